// The single dispatch point between the device-independent ops and the
// per-device kernels. Ops compute layouts; backends only move elements.
#pragma once

#include "torch_tidy/runtime/layout.h"

#include <cstddef>
#include <cstdint>
#include <type_traits>
#include <utility>

namespace torch_tidy::runtime {

/// Elementwise ops of two operands of one dtype. Div is true division (the
/// ops compute it in a floating dtype); Max is torch.maximum (a NaN on
/// either side gives NaN), clamp's op with a tensor min; Ge and Lt give 1
/// where a >= b (a < b) holds and 0 elsewhere, NaN included.
enum class BinaryOp : std::uint8_t { Add, Sub, Mul, Div, Max, Ge, Lt };

#if defined(__CUDACC__)
#define TORCH_TIDY_HOST_DEVICE __host__ __device__
#else
#define TORCH_TIDY_HOST_DEVICE
#endif

/// One element of a BinaryOp, the same on every backend.
template <class T>
TORCH_TIDY_HOST_DEVICE inline T apply_binary(BinaryOp op, T x, T y) {
  switch (op) {
  case BinaryOp::Add:
    return T(x + y);
  case BinaryOp::Sub:
    return T(x - y);
  case BinaryOp::Mul:
    return T(x * y);
  case BinaryOp::Div:
    // The ops divide in a floating dtype; the integral instances only
    // compile (and do not trap).
    if constexpr (std::is_integral_v<T>)
      return y == T(0) ? T(0) : T(x / y);
    else
      return T(x / y);
  case BinaryOp::Max:
    return x != x ? x : y != y ? y : x < y ? y : x;
  case BinaryOp::Ge:
    return T(x >= y);
  case BinaryOp::Lt:
    return T(x < y);
  }
  return T();
}

class Backend {
public:
  virtual ~Backend() = default;

  virtual void *allocate(std::size_t nbytes) = 0;
  virtual void deallocate(void *data) = 0;
  virtual void upload(void *device_dst, const void *host_src,
                      std::size_t nbytes) = 0;
  virtual void download(void *host_dst, const void *device_src,
                        std::size_t nbytes) = 0;
  /// Plain byte copy within this device (bandwidth reference).
  virtual void copy_bytes(void *dst, const void *src, std::size_t nbytes) = 0;

  /// dst = src elementwise, converting dtype; both have dst's sizes (a
  /// broadcast source has stride 0 where it was expanded).
  virtual void copy(const StridedRef &dst, const StridedRef &src) = 0;
  virtual void fill(const StridedRef &dst, double value) = 0;
  /// out = a op b; all three have out's sizes and dtype.
  virtual void binary(BinaryOp op, const StridedRef &out, const StridedRef &a,
                      const StridedRef &b) = 0;
  /// dst = mask ? value : dst elementwise (masked_fill_): mask is bool,
  /// value of dst's dtype; both have dst's sizes (stride 0 where
  /// broadcast). One pass, no positions computed.
  virtual void where_fill(const StridedRef &dst, const StridedRef &mask,
                          const StridedRef &value) = 0;
  /// dst += src where dst may repeat elements (stride 0): this is how sums
  /// reduce. Same dtype.
  virtual void accumulate(const StridedRef &dst, const StridedRef &src) = 0;
  /// Indexed access: element i lives at layout's strided offset of i plus
  /// extra[i] * extra_scale (int64 extra); layout, extra, out and values share
  /// sizes. A stride-0 layout with absolute extras addresses arbitrary
  /// elements; a strided layout with a zero extra is a plain view. out[i] =
  /// storage(layout)[at(i)]
  virtual void gather(const StridedRef &out, const StridedRef &layout,
                      const StridedRef &extra, std::int64_t extra_scale) = 0;
  /// storage(layout)[at(i)] (+)= values[i]
  virtual void scatter(const StridedRef &layout, const StridedRef &extra,
                       std::int64_t extra_scale, const StridedRef &values,
                       bool accumulate) = 0;
  /// offsets[i] += wrap(index[i]) * stride, wrap(k) = k < 0 ? k + dim_size :
  /// k; index is int64 with offsets' sizes. Builds indexing offsets.
  virtual void add_index_term(const StridedRef &offsets,
                              const StridedRef &index, std::int64_t dim_size,
                              std::int64_t stride) = 0;
  /// Row-major positions of the nonzero elements of mask as flat indices
  /// into a contiguous tensor of mask's sizes; out is int64 with room for
  /// count_nonzero(mask) elements.
  virtual std::int64_t count_nonzero(const StridedRef &mask) = 0;
  virtual void nonzero_flat(const StridedRef &mask, std::int64_t *out,
                            std::int64_t count) = 0;
  /// (min, max) of a non-empty int64 tensor, for bounds checks.
  virtual std::pair<std::int64_t, std::int64_t>
  min_max(const StridedRef &values) = 0;
};

/// The dispatch point: the backend that owns memory on device.
Backend &backend_for(Device device);

Backend &cpu_backend();
/// Defined by cuda_backend.cu when nvcc was found; otherwise a stub throws.
Backend &cuda_backend();
bool cuda_backend_compiled();

} // namespace torch_tidy::runtime
