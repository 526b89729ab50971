// RUN: %check_torch_tidy %s torch-compile-requires-grad-propagation %t
// Constant conditions and noreturn calls leave null successors in clang's
// CFG (the default case of AT_DISPATCH_* ends in one). The flow analysis
// walked them with llvm::po_begin and crashed (the corpus: 25 of 29 crashes,
// e.g. pytorch_scatter's scatter_cpu.cpp); unreachable writes are not
// reported.
#include <torch/torch.h>
#include <torch_tidy/compiled.h>

[[noreturn]] void fail(const char *why);

TORCH_TIDY_COMPILED at::Tensor constant_branches(const at::Tensor &v, int k) {
  auto m = torch::zeros({3});
  if (false)
    m.index_put_({0}, v);
  while (0) {
    m.index_put_({1}, v);
  }
  do {
    m.index_put_({2}, v);
    // CHECK-MESSAGES: :[[@LINE-1]]:5: warning: in-place index_put_ into 'm'
  } while (false);
  switch (k) {
  case 0:
    m.index_put_({0}, v);
    // CHECK-MESSAGES: :[[@LINE-1]]:5: warning: in-place index_put_ into 'm'
    break;
  default:
    fail("unknown k");
  }
  return m;
}
