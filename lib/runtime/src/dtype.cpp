#include "torch_tidy/runtime/dtype.h"

namespace torch_tidy::runtime {

std::size_t element_size(DType dtype) {
  switch (dtype) {
  case DType::Bool:
    return 1;
  case DType::Float32:
    return 4;
  case DType::Int64:
  case DType::Float64:
    break;
  }
  return 8;
}

const char *name(DType dtype) {
  switch (dtype) {
  case DType::Bool:
    return "bool";
  case DType::Int64:
    return "int64";
  case DType::Float32:
    return "float32";
  case DType::Float64:
    break;
  }
  return "float64";
}

const char *name(Device device) {
  return device == Device::CPU ? "cpu" : "cuda";
}

bool is_floating(DType dtype) {
  return dtype == DType::Float32 || dtype == DType::Float64;
}

// The enum is declared in promotion order.
DType promote(DType a, DType b) { return a > b ? a : b; }

} // namespace torch_tidy::runtime
