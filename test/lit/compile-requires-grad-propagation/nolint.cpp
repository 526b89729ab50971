// RUN: %check_torch_tidy %s torch-compile-requires-grad-propagation %t \
// RUN:   %fresh_in_kernels
// NOLINT and NOLINTNEXTLINE silence the check.
#include <torch/torch.h>

at::Tensor k(const at::Tensor &v) {
  auto m = torch::zeros({3});
  m.index_put_({0}, v); // NOLINT(torch-compile-requires-grad-propagation)
  // NOLINTNEXTLINE(torch-compile-requires-grad-propagation)
  m.index_put_({1}, v);
  m.index_put_({2}, v); // NOLINT
  // NOLINTNEXTLINE(bugprone-*)
  m.index_put_({0}, v);
  // CHECK-MESSAGES: :[[@LINE-1]]:3: warning: in-place index_put_ into 'm'
  return m;
}

TORCH_LIBRARY(tt, m) { m.def("k(Tensor v) -> Tensor", &k); }
