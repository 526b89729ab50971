// The schema and its Meta kernel (a fake, in C++).
#include <torch/library.h>

#include "plain_ops/kernels.h"

namespace plain_ops {
at::Tensor accumulate_meta(const at::Tensor &acc, const at::Tensor &x) {
  return acc;
}
} // namespace plain_ops

TORCH_LIBRARY(plain_ops, m) {
  m.def("accumulate(Tensor(a!) acc, Tensor x) -> Tensor(a!)");
}

TORCH_LIBRARY_IMPL(plain_ops, Meta, m) {
  m.impl("accumulate", &plain_ops::accumulate_meta);
}
