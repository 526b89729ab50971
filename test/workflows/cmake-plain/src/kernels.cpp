// The CPU kernel: `acc` is declared mutable, so writing it is no undeclared
// mutation; but a compiled caller whose `x` requires grad reads
// acc.requires_grad == False afterwards (torch-compile-requires-grad-
// propagation's one warning in this project).
#include <ATen/core/Tensor.h>
#include <torch/library.h>

#include "plain_ops/kernels.h"

namespace plain_ops {
at::Tensor accumulate_cpu(const at::Tensor &acc, const at::Tensor &x) {
  acc.add_(x);
  return acc;
}
} // namespace plain_ops

TORCH_LIBRARY_IMPL(plain_ops, CPU, m) {
  m.impl("accumulate", &plain_ops::accumulate_cpu);
}
