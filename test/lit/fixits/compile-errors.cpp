// No fix is written into a file that does not compile (with -fix-errors,
// clang-tidy would otherwise apply it).
// RUN: cp %s %t.cpp
// RUN: %clang_tidy --load=%torch_tidy_module -checks='-*,torch-*' --fix-errors %t.cpp -- \
// RUN:   -std=c++17 -isystem %mock_include -I %S/../../../include > %t.out 2>&1
// RUN: FileCheck %s --input-file=%t.out
// RUN: diff %s %t.cpp
// CHECK: warning: in-place index_put_ into 'm'
// CHECK: note: no fix: the file has compile errors
#include <torch/torch.h>
#include <torch_tidy/compiled.h>

TORCH_TIDY_COMPILED at::Tensor k(const at::Tensor &v) {
  auto m = torch::zeros({3, 3});
  m.index_put_({0}, v);
  undeclared_function(m);
  return m;
}
