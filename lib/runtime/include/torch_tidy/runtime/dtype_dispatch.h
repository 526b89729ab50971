// Turns a runtime DType into a C++ element type for kernel templates. Shared
// by the CPU (.cpp) and CUDA (.cu) backends.
#pragma once

#include "torch_tidy/runtime/dtype.h"

#include <cstdint>

namespace torch_tidy::runtime {

template <class T> struct TypeTag {
  using type = T;
};

/// Calls fn(TypeTag<T>{}) with the element type T of dtype.
template <class Fn> decltype(auto) dispatch_dtype(DType dtype, Fn &&fn) {
  switch (dtype) {
  case DType::Bool:
    return fn(TypeTag<bool>{});
  case DType::Int64:
    return fn(TypeTag<std::int64_t>{});
  case DType::Float32:
    return fn(TypeTag<float>{});
  case DType::Float64:
    break;
  }
  return fn(TypeTag<double>{});
}

/// The one place that says how a value changes type: bool is "nonzero",
/// everything else is C++'s conversion (truncation for integers, as PyTorch).
template <class To, class From>
#ifdef __CUDACC__
__host__ __device__
#endif
    inline To
    convert(From value) {
  if constexpr (std::is_same_v<To, bool>)
    return value != From(0);
  else
    return static_cast<To>(value);
}

} // namespace torch_tidy::runtime
