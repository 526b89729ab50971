// Stand-in for <sycl/ext/intel/esimd.hpp>, host side, for torch-tidy's
// analyses only (see ../../../README.md): each store writes through its
// pointer; loads read; nothing is computed.
#pragma once
#include <sycl/sycl.hpp>

#define SYCL_ESIMD_KERNEL
#define SYCL_ESIMD_FUNCTION

namespace sycl {
inline namespace _V1 {
namespace ext::intel::esimd {

template <typename T, int N> class simd {
public:
  simd() = default;
  simd(T) {}
  simd(T, T) {}
  template <typename U> simd(const simd<U, N> &) {}
  void copy_from(const T *Src) { Values[0] = Src[0]; }
  void copy_to(T *Dest) const { Dest[0] = Values[0]; }
  template <typename Flags> void copy_from(const T *Src, Flags) {
    Values[0] = Src[0];
  }
  template <typename Flags> void copy_to(T *Dest, Flags) const {
    Dest[0] = Values[0];
  }
  T operator[](int I) const { return Values[I]; }
  template <typename U> simd &operator=(const U &) { return *this; }
  template <int M> simd<T, M> select(int = 0, int = 0) const { return {}; }

private:
  T Values[N] = {};
};

template <typename T, int N>
simd<T, N> operator+(const simd<T, N> &, const simd<T, N> &) {
  return {};
}
template <typename T, int N>
simd<T, N> operator*(const simd<T, N> &, const simd<T, N> &) {
  return {};
}

template <typename T, int N, typename... Flags>
simd<T, N> block_load(const T *Src, Flags...) {
  simd<T, N> V;
  V.copy_from(Src);
  return V;
}
template <typename T, int N, typename... Flags>
void block_store(T *Dest, simd<T, N> Values, Flags...) {
  Values.copy_to(Dest);
}
template <typename T, int N, typename... Rest>
simd<T, N> gather(const T *Src, simd<std::uint32_t, N>, Rest...) {
  simd<T, N> V;
  V.copy_from(Src);
  return V;
}
template <typename T, int N, typename... Rest>
void scatter(T *Dest, simd<std::uint32_t, N>, simd<T, N> Values, Rest...) {
  Values.copy_to(Dest);
}

struct overaligned_tag {};
struct vector_aligned_tag {};
inline constexpr vector_aligned_tag vector_aligned{};

} // namespace ext::intel::esimd
} // namespace _V1
} // namespace sycl
