// RUN: %check_torch_tidy %s torch-compile-requires-grad-propagation %t \
// RUN:   %fresh_in_kernels
// Which targets are fresh-non-grad: factories in torch:: and at::, *_like,
// new_*, after .to()/.cuda()/.contiguous(), and the optional-or-fresh idiom.
#include <torch/torch.h>
using torch::indexing::Slice;

// A helper that writes into its argument: a fresh tensor passed here is
// reported at the call.
void fill(at::Tensor out, const at::Tensor &v) { out.index_put_({0}, v); }

at::Tensor fresh(const at::Tensor &v, std::optional<at::Tensor> out) {
  auto a = torch::zeros({3, 3});
  a.index_put_({0}, v);
  // CHECK-MESSAGES: :[[@LINE-1]]:3: warning: in-place index_put_ into 'a'
  // CHECK-MESSAGES: :[[@LINE-3]]:12: note: 'a' is created here without requires_grad
  auto b = at::ones({3, 3});
  b.index_put_({0}, v);
  // CHECK-MESSAGES: :[[@LINE-1]]:3: warning: in-place index_put_ into 'b'
  at::Tensor c = torch::empty({3, 3});
  c.index_put_({0}, v);
  // CHECK-MESSAGES: :[[@LINE-1]]:3: warning: in-place index_put_ into 'c'
  auto d = torch::full({3, 3}, 2.0);
  d.index_put_({0}, v);
  // CHECK-MESSAGES: :[[@LINE-1]]:3: warning: in-place index_put_ into 'd'
  auto e = torch::zeros_like(v);
  e.index_put_({0}, v);
  // CHECK-MESSAGES: :[[@LINE-1]]:3: warning: in-place index_put_ into 'e'
  auto f = at::empty_like(v);
  f.index_put_({0}, v);
  // CHECK-MESSAGES: :[[@LINE-1]]:3: warning: in-place index_put_ into 'f'
  auto g = v.new_zeros({3, 3});
  g.index_put_({0}, v);
  // CHECK-MESSAGES: :[[@LINE-1]]:3: warning: in-place index_put_ into 'g'
  auto h = v.new_empty({3});
  h.index_put_({0}, v);
  // CHECK-MESSAGES: :[[@LINE-1]]:3: warning: in-place index_put_ into 'h'
  auto i = torch::randn({3, 3});
  i.index_put_({0}, v);
  // CHECK-MESSAGES: :[[@LINE-1]]:3: warning: in-place index_put_ into 'i'
  auto j = torch::eye(3);
  j.index_put_({0}, v);
  // CHECK-MESSAGES: :[[@LINE-1]]:3: warning: in-place index_put_ into 'j'
  auto k = torch::zeros({3, 3}).to(torch::kCUDA);
  k.index_put_({0}, v);
  // CHECK-MESSAGES: :[[@LINE-1]]:3: warning: in-place index_put_ into 'k'
  auto l = at::zeros({3, 3}).cuda().contiguous();
  l.index_put_({0}, v);
  // CHECK-MESSAGES: :[[@LINE-1]]:3: warning: in-place index_put_ into 'l'
  auto n = torch::zeros({3, 3}, torch::requires_grad(false));
  n.index_put_({0}, v);
  // CHECK-MESSAGES: :[[@LINE-1]]:3: warning: in-place index_put_ into 'n'
  auto o = torch::zeros({3, 3}, torch::dtype(torch::kFloat).requires_grad(false));
  o.index_put_({0}, v);
  // CHECK-MESSAGES: :[[@LINE-1]]:3: warning: in-place index_put_ into 'o'
  auto p = out.has_value() ? *out : at::zeros({3, 3});
  p.index_put_({0}, v);
  // CHECK-MESSAGES: :[[@LINE-1]]:3: warning: in-place index_put_ into 'p'
  auto q = torch::ones_like(v, v.options());
  q.index_put_({0}, v);
  // CHECK-MESSAGES: :[[@LINE-1]]:3: warning: in-place index_put_ into 'q'
  at::Tensor r;
  r = torch::zeros({3});
  r.index_put_({0}, v);
  // CHECK-MESSAGES: :[[@LINE-1]]:3: warning: in-place index_put_ into 'r'
  auto s = torch::zeros({3});
  fill(s, v);
  // CHECK-MESSAGES: :[[@LINE-1]]:3: warning: {{.*}}'s'
  // Integer and bool tensors can never require grad: no flag to lose.
  auto t = torch::zeros({3, 3}, torch::kInt8);
  t.index_put_({0}, v);
  auto u = torch::zeros({3}, torch::dtype(torch::kLong)).to(torch::kCUDA);
  u.index({Slice(0, 2)}) = v;
  auto w = torch::empty({3}, at::TensorOptions().dtype(at::kBool));
  w.narrow(0, 0, 1).copy_(v);
  auto x = torch::zeros({3}, torch::kInt);
  fill(x, v);
  return a + b + c + d + e + f + g + h + i + j + k + l + n + o + p + q + r +
         s + t + u + w + x;
}

struct Model {
  at::Tensor buffer;
  at::Tensor forward(at::Tensor &param, const at::Tensor &v,
                     torch::TensorOptions opts) {
    // Targets that are not fresh-non-grad: no warning.
    param.index_put_({0}, v);  // a parameter
    buffer.index_put_({0}, v); // a member
    // Already requires grad (cloned: an in-place write into the leaf itself
    // would throw, which torch-inplace-on-grad-leaf reports).
    auto a = torch::zeros({3}, torch::requires_grad()).clone();
    a.index_put_({0}, v);
    auto b =
        torch::zeros({3}, torch::TensorOptions().requires_grad(true)).clone();
    b.index_put_({0}, v);
    auto grad_opts = torch::dtype(torch::kFloat).requires_grad(true);
    auto c = torch::ones({3}, grad_opts).clone();
    c.index_put_({0}, v);
    auto d = torch::zeros({3}, opts); // options from the caller: unknown
    d.index_put_({0}, v);
    auto e = v * 2; // computed from a parameter
    e.index_put_({0}, v);
    auto f = torch::zeros({3});
    f.requires_grad_();
    auto f2 = f * 1;
    f2.index_put_({0}, v);
    auto g = torch::zeros({3});
    g.set_requires_grad(true);
    auto g2 = g.clone();
    g2.index_put_({0}, v);
    auto h = torch::sin(v);
    h.index_put_({0}, v);
    auto i = make();
    i.index_put_({0}, v); // a call result
    return a + b + c + d + e + f2 + g2 + h + i;
  }
  at::Tensor make();
};

at::Tensor forward(at::Tensor &param, const at::Tensor &v) {
  Model m;
  return m.forward(param, v, {});
  // 'p' is the operator's mutable argument, written through Model::forward.
  // CHECK-MESSAGES: :[[@LINE-2]]:10: warning: in-place index_put_ into mutable argument 'p' of operator 'tt::forward'
}

TORCH_LIBRARY(tt, m) {
  m.def("fresh(Tensor v, Tensor? out) -> Tensor", &fresh);
  m.def("forward(Tensor(a!) p, Tensor v) -> Tensor", &forward);
}
