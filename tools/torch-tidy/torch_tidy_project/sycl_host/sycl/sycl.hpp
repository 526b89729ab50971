// Stand-in for <sycl/sycl.hpp>, host side, for torch-tidy's analyses only
// (see ../README.md): a launch calls its kernel, a copy writes its
// destination; nothing is computed.
#pragma once
#include <cstddef>
#include <cstdint>
#include <cstring>

#define SYCL_LANGUAGE_VERSION 202001
#define SYCL_EXTERNAL

namespace sycl {
inline namespace _V1 {

// The types and functions c10's headers use once SYCL_LANGUAGE_VERSION is
// defined (c10/util/Half.h, BFloat16.h, Float8_fnuz_cvt.h).
struct half {
  unsigned short Bits = 0;
  half() = default;
  half(float) {}
  operator float() const { return 0.0f; }
};
namespace ext::oneapi {
struct bfloat16 {
  unsigned short Bits = 0;
  bfloat16() = default;
  bfloat16(float) {}
  operator float() const { return 0.0f; }
};
} // namespace ext::oneapi
template <typename T> T clz(T) { return 0; }

template <int D = 1> struct id {
  std::size_t Values[D] = {};
  id() = default;
  template <typename... T> id(T... V) : Values{std::size_t(V)...} {}
  std::size_t get(int I) const { return Values[I]; }
  std::size_t operator[](int I) const { return Values[I]; }
  operator std::size_t() const { return Values[0]; }
};

template <int D = 1> struct range {
  std::size_t Values[D] = {};
  range() = default;
  template <typename... T> range(T... V) : Values{std::size_t(V)...} {}
  std::size_t get(int I) const { return Values[I]; }
  std::size_t operator[](int I) const { return Values[I]; }
  std::size_t size() const { return Values[0]; }
};

template <int D = 1> struct item {
  id<D> get_id() const { return {}; }
  std::size_t get_id(int) const { return 0; }
  std::size_t get_linear_id() const { return 0; }
  range<D> get_range() const { return {}; }
  std::size_t get_range(int) const { return 0; }
  std::size_t operator[](int) const { return 0; }
  operator id<D>() const { return {}; }
  operator std::size_t() const { return 0; }
};

template <int D = 1> struct group {
  std::size_t get_group_id(int) const { return 0; }
  std::size_t get_local_linear_id() const { return 0; }
};

struct sub_group {
  std::uint32_t get_local_id() const { return 0; }
  std::uint32_t get_local_linear_id() const { return 0; }
  std::uint32_t get_group_linear_id() const { return 0; }
  std::uint32_t get_local_range() const { return 0; }
};

template <int D = 1> struct nd_item {
  std::size_t get_global_id(int) const { return 0; }
  id<D> get_global_id() const { return {}; }
  std::size_t get_global_linear_id() const { return 0; }
  std::size_t get_local_id(int) const { return 0; }
  std::size_t get_local_linear_id() const { return 0; }
  std::size_t get_group(int) const { return 0; }
  std::size_t get_group_linear_id() const { return 0; }
  std::size_t get_global_range(int) const { return 0; }
  std::size_t get_local_range(int) const { return 0; }
  group<D> get_group() const { return {}; }
  sub_group get_sub_group() const { return {}; }
  void barrier() const {}
};

template <int D = 1> struct nd_range {
  nd_range(range<D>, range<D>) {}
};

class event {
public:
  void wait() {}
};

class handler {
public:
  template <typename Name = void, int D, typename K>
  void parallel_for(range<D>, K Kernel) {
    Kernel(item<D>{});
  }
  template <typename Name = void, int D, typename K>
  void parallel_for(nd_range<D>, K Kernel) {
    Kernel(nd_item<D>{});
  }
  template <typename Name = void, typename K> void single_task(K Kernel) {
    Kernel();
  }
  void memcpy(void *Dest, const void *Src, std::size_t Bytes) {
    std::memcpy(Dest, Src, Bytes);
  }
  void memset(void *Dest, int Value, std::size_t Bytes) {
    std::memset(Dest, Value, Bytes);
  }
  template <typename T> void fill(T *Dest, const T &Value, std::size_t N) {
    Dest[0] = Value;
  }
  template <typename T> void copy(const T *Src, T *Dest, std::size_t N) {
    Dest[0] = Src[0];
  }
  template <typename T> void depends_on(T) {}
};

class device {};
class context {};

class queue {
public:
  template <typename F> event submit(F CommandGroup) {
    handler H;
    CommandGroup(H);
    return {};
  }
  template <typename Name = void, int D, typename K>
  event parallel_for(range<D>, K Kernel) {
    Kernel(item<D>{});
    return {};
  }
  template <typename Name = void, int D, typename K>
  event parallel_for(nd_range<D>, K Kernel) {
    Kernel(nd_item<D>{});
    return {};
  }
  template <typename Name = void, typename K> event single_task(K Kernel) {
    Kernel();
    return {};
  }
  event memcpy(void *Dest, const void *Src, std::size_t Bytes) {
    std::memcpy(Dest, Src, Bytes);
    return {};
  }
  event memset(void *Dest, int Value, std::size_t Bytes) {
    std::memset(Dest, Value, Bytes);
    return {};
  }
  template <typename T> event fill(T *Dest, const T &Value, std::size_t N) {
    Dest[0] = Value;
    return {};
  }
  template <typename T> event copy(const T *Src, T *Dest, std::size_t N) {
    Dest[0] = Src[0];
    return {};
  }
  void wait() {}
  device get_device() const { return {}; }
  context get_context() const { return {}; }
};

} // namespace _V1
} // namespace sycl
