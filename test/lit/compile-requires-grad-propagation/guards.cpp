// RUN: %check_torch_tidy %s torch-compile-requires-grad-propagation %t \
// RUN:   %fresh_in_kernels
// Writes under a guard that disables autograd are not flagged.
#include <torch/torch.h>

at::Tensor guarded(const at::Tensor &v, bool flag) {
  auto m = torch::zeros({3, 3});
  {
    torch::NoGradGuard no_grad;
    m.index_put_({0}, v);
  }
  {
    at::NoGradGuard no_grad;
    if (flag)
      m.index_put_({1}, v);
  }
  {
    at::AutoGradMode off(false);
    m.index_put_({0}, v);
  }
  {
    c10::InferenceMode inference;
    m.index_put_({0}, v);
  }
  {
    c10::InferenceMode inference_on(true);
    m.index_put_({0}, v);
  }
  {
    torch::AutoGradMode on(true); // grad stays on
    m.index_put_({0}, v);
    // CHECK-MESSAGES: :[[@LINE-1]]:5: warning: in-place index_put_ into 'm'
  }
  {
    c10::InferenceMode not_inference(false);
    m.index_put_({0}, v);
    // CHECK-MESSAGES: :[[@LINE-1]]:5: warning: in-place index_put_ into 'm'
  }
  {
    m.index_put_({0}, v); // the guard comes later
    // CHECK-MESSAGES: :[[@LINE-1]]:5: warning: in-place index_put_ into 'm'
    torch::NoGradGuard late;
  }
  {
    torch::NoGradGuard scoped;
  }
  m.index_put_({2}, v); // the guard's scope has ended
  // CHECK-MESSAGES: :[[@LINE-1]]:3: warning: in-place index_put_ into 'm'
  return m;
}

TORCH_LIBRARY(tt, m) { m.def("guarded(Tensor v, bool f) -> Tensor", &guarded); }
