// RUN: %check_torch_tidy %s torch-compile-requires-grad-propagation %t \
// RUN:   %fresh_in_kernels
// A function template is analysed once, however many instantiations it has;
// dependent code it cannot resolve is skipped silently.
#include <torch/torch.h>

template <typename T> at::Tensor fill(const at::Tensor &v, T scale) {
  auto m = torch::zeros({3});
  m.index_put_({0}, v);
  // CHECK-MESSAGES: :[[@LINE-1]]:3: warning: in-place index_put_ into 'm'
  return m * scale;
}

template <typename TensorT> TensorT dependent(const TensorT &v) {
  auto m = torch::zeros({3});
  m.index_put_({0}, v); // the source's type is dependent
  TensorT n = torch::zeros({3});
  n.index_put_({0}, v); // the target's type is dependent
  return m + n;
}

at::Tensor use(const at::Tensor &v) {
  return fill(v, 1.0) + fill(v, 2) + fill<float>(v, 3.0f) +
         dependent(v) + dependent<at::Tensor>(v);
}

TORCH_LIBRARY(tt, m) { m.def("use(Tensor v) -> Tensor", &use); }
