// RUN: %check_torch_tidy %s torch-inplace-on-grad-leaf %t
// In-place writes into a local leaf that requires grad, outside no_grad.
#include <torch/torch.h>
using torch::indexing::Slice;

void init_forms(const at::Tensor &v, const at::Tensor &mask, int64_t i) {
  auto a = torch::zeros({3}, torch::requires_grad());
  a.uniform_();
  // CHECK-MESSAGES: :[[@LINE-1]]:3: warning: in-place write into 'a', a leaf tensor that requires grad, outside a no-grad scope: autograd throws 'a leaf Variable that requires grad is being used in an in-place operation'; initialise it under torch::NoGradGuard [torch-inplace-on-grad-leaf]
  // CHECK-MESSAGES: :[[@LINE-3]]:3: note: 'a' becomes a leaf that requires grad here
  // CHECK-MESSAGES: :[[@LINE-3]]:3: note: rule: no-grad-guard
  // CHECK-FIXES: { torch::NoGradGuard no_grad; a.uniform_(); }
  auto b = torch::empty({3}, at::TensorOptions().requires_grad(true));
  b.fill_(1);
  // CHECK-MESSAGES: :[[@LINE-1]]:3: warning: in-place write into 'b'
  // CHECK-FIXES: { torch::NoGradGuard no_grad; b.fill_(1); }
  auto c = torch::ones({3}, torch::requires_grad(true));
  c.mul_(2);
  // CHECK-MESSAGES: :[[@LINE-1]]:3: warning: in-place write into 'c'
  // CHECK-FIXES: { torch::NoGradGuard no_grad; c.mul_(2); }
  at::Tensor d = at::zeros({3});
  d.requires_grad_();
  d.copy_(v);
  // CHECK-MESSAGES: :[[@LINE-1]]:3: warning: in-place write into 'd'
  // CHECK-MESSAGES: :[[@LINE-3]]:3: note: 'd' becomes a leaf that requires grad here
  // CHECK-FIXES: { torch::NoGradGuard no_grad; d.copy_(v); }
  at::Tensor e = at::zeros({3});
  e.set_requires_grad(true);
  e[0] = v;
  // CHECK-MESSAGES: :[[@LINE-1]]:3: warning: in-place write into 'e'
  // CHECK-FIXES: { torch::NoGradGuard no_grad; e[0] = v; }
  auto f = torch::zeros({3}).requires_grad_();
  f.index({Slice(0, 2)}) = v;
  // CHECK-MESSAGES: :[[@LINE-1]]:3: warning: in-place write into 'f'
  // CHECK-FIXES: { torch::NoGradGuard no_grad; f.index({Slice(0, 2)}) = v; }
  auto g = torch::randn({3}, torch::requires_grad());
  g.index_put_({mask}, 0);
  // CHECK-MESSAGES: :[[@LINE-1]]:3: warning: in-place write into 'g'
  // CHECK-FIXES: { torch::NoGradGuard no_grad; g.index_put_({mask}, 0); }
  auto h = torch::zeros({3, 3}, torch::requires_grad());
  h.slice(0, 0, 2).copy_(v);
  // CHECK-MESSAGES: :[[@LINE-1]]:3: warning: in-place write into 'h'
  // CHECK-FIXES: { torch::NoGradGuard no_grad; h.slice(0, 0, 2).copy_(v); }
  auto k = torch::zeros({3}, torch::requires_grad());
  k += 1;
  // CHECK-MESSAGES: :[[@LINE-1]]:3: warning: in-place write into 'k'
  // CHECK-FIXES: { torch::NoGradGuard no_grad; k += 1; }
  auto l = torch::zeros({3}, torch::requires_grad());
  l.zero_();
  // CHECK-MESSAGES: :[[@LINE-1]]:3: warning: in-place write into 'l'
  // CHECK-FIXES: { torch::NoGradGuard no_grad; l.zero_(); }
  l.add_(1);
  // CHECK-MESSAGES: :[[@LINE-1]]:3: warning: in-place write into 'l'
  // CHECK-FIXES: { torch::NoGradGuard no_grad; l.add_(1); }
  auto m = torch::zeros({3, 3}, torch::requires_grad());
  m.select(0, i).transpose(0, 0).normal_();
  // CHECK-MESSAGES: :[[@LINE-1]]:3: warning: in-place write into 'm'
  // CHECK-FIXES: { torch::NoGradGuard no_grad; m.select(0, i).transpose(0, 0).normal_(); }
  auto n = torch::zeros({3}, torch::requires_grad());
  at::fill_(n, 1.0);
  // CHECK-MESSAGES: :[[@LINE-1]]:3: warning: in-place write into 'n'
  // CHECK-FIXES: { torch::NoGradGuard no_grad; at::fill_(n, 1.0); }
  auto o = torch::zeros({3}, torch::requires_grad());
  o.clamp_(0);
  // CHECK-MESSAGES: :[[@LINE-1]]:3: warning: in-place write into 'o'
  // Options variables are followed: every value asks for grad.
  auto opts = torch::dtype(torch::kFloat).requires_grad(true);
  auto p = torch::ones({3}, opts);
  p.mul_(2);
  // CHECK-MESSAGES: :[[@LINE-1]]:3: warning: in-place write into 'p'
  // CHECK-FIXES: { torch::NoGradGuard no_grad; p.mul_(2); }
}

at::Tensor used_first(const at::Tensor &x) {
  auto w = torch::zeros({3}, torch::requires_grad());
  auto y = w * x;
  w.add_(1);
  // CHECK-MESSAGES: :[[@LINE-1]]:3: warning: in-place write into 'w'
  // CHECK-MESSAGES: :[[@LINE-2]]:3: note: no fix: 'w' is used before this write; writing it under no_grad would change what that use computed from
  // CHECK-FIXES: {{^}}  w.add_(1);
  return y;
}

void in_loop(int n) {
  auto w = torch::zeros({3}, torch::requires_grad());
  for (int i = 0; i < n; ++i) {
    w.sub_(1);
    // CHECK-MESSAGES: :[[@LINE-1]]:5: warning: in-place write into 'w'
    // CHECK-MESSAGES: :[[@LINE-2]]:5: note: no fix: the write is in a loop
  }
}

void in_branch(bool c) {
  auto w = torch::zeros({3}, torch::requires_grad());
  if (c) {
    w.div_(2);
    // CHECK-MESSAGES: :[[@LINE-1]]:5: warning: in-place write into 'w'
    // CHECK-FIXES: { torch::NoGradGuard no_grad; w.div_(2); }
  }
}

at::Tensor value_used() {
  auto w = torch::zeros({3}, torch::requires_grad());
  return w.zero_();
  // CHECK-MESSAGES: :[[@LINE-1]]:10: warning: in-place write into 'w'
  // CHECK-MESSAGES: :[[@LINE-2]]:10: note: no fix: the write is part of a larger expression
}

void guard_ended() {
  auto w = torch::zeros({3}, torch::requires_grad());
  {
    torch::NoGradGuard guard;
    w.zero_();
  }
  w.add_(1);
  // CHECK-MESSAGES: :[[@LINE-1]]:3: warning: in-place write into 'w'
  // CHECK-FIXES: { torch::NoGradGuard no_grad; w.add_(1); }
}

// A write spelled by a macro: no fix (the block's braces would have to go
// into the macro's expansion).
#define BUMP(t) t.add_(1)
void in_macro() {
  auto w = torch::zeros({3}, torch::requires_grad());
  BUMP(w);
  // CHECK-MESSAGES: :[[@LINE-1]]:8: warning: in-place write into 'w'
  // CHECK-MESSAGES: :[[@LINE-2]]:8: note: no fix: the write is in a macro
  // CHECK-FIXES: {{^}}  BUMP(w);
}
