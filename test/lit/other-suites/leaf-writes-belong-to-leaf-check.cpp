// In-place writes into a leaf that requires grad are not the flagship's
// hazard (the target already requires grad) but throw at run time: the
// flagship stays silent and torch-inplace-on-grad-leaf reports them.
// RUN: %check_torch_tidy %s torch-compile-requires-grad-propagation %t-flagship --check-suffix=FLAGSHIP
// RUN: %check_torch_tidy %s torch-inplace-on-grad-leaf %t-leaf --check-suffix=LEAF --no-fix
#include <torch/torch.h>
#include <torch_tidy/compiled.h>

TORCH_TIDY_COMPILED at::Tensor leaves(const at::Tensor &v) {
  auto a = torch::zeros({3}, torch::requires_grad());
  a.index_put_({0}, v);
  // CHECK-MESSAGES-LEAF: :[[@LINE-1]]:3: warning: in-place write into 'a', a leaf tensor that requires grad
  auto b = torch::zeros({3}, torch::TensorOptions().requires_grad(true));
  b.index_put_({0}, v);
  // CHECK-MESSAGES-LEAF: :[[@LINE-1]]:3: warning: in-place write into 'b'
  auto f = torch::zeros({3});
  f.requires_grad_();
  f.index_put_({0}, v);
  // CHECK-MESSAGES-LEAF: :[[@LINE-1]]:3: warning: in-place write into 'f'
  auto g = torch::zeros({3});
  g.set_requires_grad(true);
  g.index_put_({0}, v);
  // CHECK-MESSAGES-LEAF: :[[@LINE-1]]:3: warning: in-place write into 'g'
  return a + b + f + g;
}
