// Small helpers shared by the runtime unit tests.
#pragma once

#include "torch_tidy/runtime/runtime.h"

#include <gtest/gtest.h>

#include <vector>

namespace torch_tidy::runtime::testing {

inline Tensor f32(const std::vector<double> &values, const Shape &shape,
                  bool requires_grad = false) {
  return from_doubles(values, shape,
                      {DType::Float32, Device::CPU, requires_grad});
}

inline Tensor i64(const std::vector<double> &values, const Shape &shape) {
  return from_doubles(values, shape, {DType::Int64});
}

inline Tensor mask(const std::vector<double> &values, const Shape &shape) {
  return from_doubles(values, shape, {DType::Bool});
}

/// 0, 1, 2, ... as float32 in the given shape.
inline Tensor iota(const Shape &shape, bool requires_grad = false) {
  std::int64_t n = 1;
  for (auto s : shape)
    n *= s;
  std::vector<double> values(static_cast<std::size_t>(n));
  for (std::size_t i = 0; i < values.size(); ++i)
    values[i] = double(i);
  return f32(values, shape, requires_grad);
}

} // namespace torch_tidy::runtime::testing
