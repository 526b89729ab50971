// A missing header: one clear compiler error, no crash, no check warning.
// RUN: not %clang_tidy --load=%torch_tidy_module -checks='-*,torch-*' %s -- \
// RUN:   -std=c++17 > %t.out 2>&1
// RUN: FileCheck %s < %t.out
// RUN: not grep -E "Stack dump|PLEASE submit|torch-compile-requires" %t.out
// CHECK: error: 'torch/torch.h' file not found
#include <torch/torch.h>

at::Tensor k(const at::Tensor &v) {
  auto m = torch::zeros({3});
  m.index_put_({0}, v);
  return m;
}
TORCH_LIBRARY(tt, m) { m.def("k(Tensor v) -> Tensor", &k); }
