// RUN: %check_torch_tidy %s torch-inplace-on-grad-leaf %t
// Nothing here throws, or nothing here is proven to.
#include <torch/torch.h>
using torch::indexing::Slice;

void fn(at::Tensor &t);
void fn_const(const at::Tensor &t);
at::Tensor make();

void negatives(const at::Tensor &v, const at::Tensor &idx, bool c,
               at::TensorOptions opts, const at::Tensor &p) {
  auto a = torch::zeros({3});
  a.zero_(); // 1: does not require grad
  auto b = torch::zeros({3}, torch::requires_grad(false));
  b.add_(1); // 2
  auto c1 = torch::zeros({3}, opts);
  c1.add_(1); // 3: options unknown
  auto mixed = torch::dtype(torch::kFloat);
  if (c)
    mixed = mixed.requires_grad(true);
  auto c2 = torch::zeros({3}, mixed);
  c2.add_(1); // 3b: asks for grad on one path only: not proven
  auto d = torch::zeros({3}, torch::requires_grad());
  {
    torch::NoGradGuard guard;
    d.uniform_(); // 4: under no_grad
  }
  auto e = torch::zeros({3}, torch::requires_grad());
  e.data().add_(1); // 5: through data()
  e.detach().zero_(); // 6: through detach()
  auto f = torch::zeros({3}, torch::requires_grad());
  f = f * 2; // not a leaf any more
  f.add_(1); // 7
  auto g = torch::zeros({3}, torch::requires_grad());
  fn(g); // may rebind it
  g.add_(1); // 8
  auto h = torch::zeros({3}, torch::requires_grad());
  h.requires_grad_(false);
  h.add_(1); // 9
  auto k = torch::zeros({3});
  if (c)
    k.requires_grad_();
  k.add_(1); // 10: not proven
  auto l = torch::zeros({3}, torch::requires_grad());
  l.index({idx}) = v; // 11: a copy (torch-index-assign-to-copy's case)
  p.add_(1); // 12: a parameter, unknown
  auto m = make();
  m.add_(1); // 13: unknown
  auto n = torch::zeros({3}, torch::requires_grad());
  auto &alias = n;
  alias.add_(1); // 14: aliases are not tracked
  n.add_(1);
  auto o = torch::zeros({3}, torch::requires_grad());
  auto lam = [&o] { o.add_(1); }; // 15: lambda body
  lam();
  o.add_(1);
  auto q = torch::zeros({3}, torch::requires_grad());
  q.requires_grad_(); // 16: metadata, not a value write
  fn_const(q);
  auto r = torch::zeros({3}, torch::requires_grad());
  at::AutoGradMode off(false);
  r.add_(1); // 17: grad mode off
}

void inference() {
  c10::InferenceMode guard;
  auto w = torch::zeros({3}, torch::requires_grad());
  w.add_(1); // 18
}

void block_scoped(bool c) {
  at::Tensor w = torch::zeros({3});
  if (c) {
    w.requires_grad_();
  }
  w.add_(1); // 19: the setter's block does not enclose the write
}

template <typename T> void dependent() {
  auto w = torch::zeros({3}, torch::requires_grad());
  w.add_(T(1)); // 20: dependent code is skipped
}
