// Malformed C++: clang-tidy reports the compiler error and exits cleanly,
// with no warning from the check and no crash.
// RUN: not %clang_tidy --load=%torch_tidy_module -checks='-*,torch-*' %s -- \
// RUN:   -std=c++17 -isystem %mock_include > %t.out 2>&1
// RUN: FileCheck %s < %t.out
// RUN: not grep -E "Stack dump|PLEASE submit|torch-compile-requires" %t.out
// CHECK: error: expected ';'
#include <torch/torch.h>

at::Tensor broken(const at::Tensor &v) {
  auto m = torch::zeros({3})
  m.index_put_({0}, v);
  m.index_put_({0}, undefined_thing);
  return m
}
TORCH_LIBRARY(tt, m) { m.def("broken(Tensor v) -> Tensor", &broken); }
