// Tensor factories. Every factory returns a contiguous tensor that does not
// require grad unless asked to.
#pragma once

#include "torch_tidy/runtime/tensor.h"

#include <cstdint>
#include <vector>

namespace torch_tidy::runtime {

struct Options {
  DType dtype = DType::Float32;
  Device device = Device::CPU;
  bool requires_grad = false;
};

Tensor empty(const Shape &shape, Options options = {});
Tensor zeros(const Shape &shape, Options options = {});
Tensor ones(const Shape &shape, Options options = {});
Tensor full(const Shape &shape, double value, Options options = {});
Tensor arange(std::int64_t end, Options options = {DType::Int64});
Tensor arange(std::int64_t start, std::int64_t end, std::int64_t step,
              Options options = {DType::Int64});
/// [2, N] int64 row/column indices of the upper triangle, as torch.
Tensor triu_indices(std::int64_t rows, std::int64_t cols,
                    std::int64_t offset = 0, Device device = Device::CPU);
/// Standard normal values from a seeded generator (not torch's stream).
Tensor randn(const Shape &shape, std::uint64_t seed, Options options = {});
/// Copies host values (converted to options.dtype) into a new tensor.
Tensor from_doubles(const std::vector<double> &values, const Shape &shape,
                    Options options = {});
Tensor zeros_like(const Tensor &like);

} // namespace torch_tidy::runtime
