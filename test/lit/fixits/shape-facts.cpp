// RUN: %check_torch_tidy %s torch-compile-requires-grad-propagation %t \
// RUN:   --config="{CheckOptions: {torch-compile-requires-grad-propagation.FixColumnLimit: 0, torch-compile-requires-grad-propagation.FixStyle: index_put, torch-compile-requires-grad-propagation.StrictFixes: true}}"
// With StrictFixes (the forms exact for every input), a fix leaves out the leading-unit-dim strip where the value's rank is
// proven no larger than the indexed result's (a guard before the write, a
// local of known shape), and the cast where the value provably has the
// target's dtype and device. Where a proof fails, both stay.
#include <stdexcept>
#include <torch/torch.h>
#include <torch_tidy/compiled.h>
using torch::indexing::Slice;

// A guard proves v is 2-D; the result of {Slice(), rows, cols} on a 3-D m
// is 2-D: no strip.
TORCH_TIDY_COMPILED at::Tensor checked(const at::Tensor &v, int64_t n) {
  TORCH_CHECK(v.dim() == 2, "v must be [B, K]");
  auto idx = torch::triu_indices(n, n, 1);
  auto rows = idx[0];
  auto cols = idx[1];
  auto m = torch::zeros({v.size(0), n, n}, v.options());
  m.index_put_({Slice(), rows, cols}, v);
  // CHECK-MESSAGES: :[[@LINE-1]]:3: warning: in-place index_put_ into 'm'
  // CHECK-MESSAGES: :[[@LINE-2]]:3: note: rule: index-put-advanced
  // CHECK-FIXES: {{^}}  m = m.index_put({std::nullopt, rows, cols}, v);{{$}}
  return m;
}

// A conjunction in the guard, a long 2-D index: the result is 2-D.
TORCH_TIDY_COMPILED at::Tensor batched(const at::Tensor &v, int64_t n) {
  TORCH_CHECK(v.size(0) > 0 && v.dim() == 2, "v must be [B, K]");
  auto idx = torch::triu_indices(n, n, 1);
  auto batch = torch::arange(v.size(0)).unsqueeze(1);
  auto m = torch::zeros({v.size(0), n, n}, v.options());
  m.index_put_({batch, idx[0], idx[1]}, v);
  // CHECK-MESSAGES: :[[@LINE-1]]:3: warning: in-place index_put_ into 'm'
  // CHECK-MESSAGES: :[[@LINE-2]]:3: note: rule: index-put-advanced
  // CHECK-FIXES: {{^}}  m = m.index_put({batch, idx[0], idx[1]}, v);{{$}}
  return m;
}

// `if (...) throw` proves it too; a local reshaped value.
TORCH_TIDY_COMPILED at::Tensor thrown(const at::Tensor &v, const at::Tensor &w,
                                      int64_t n) {
  if (v.dim() != 1)
    throw std::invalid_argument("v must be 1-D");
  auto rows = torch::arange(n);
  auto m = torch::zeros({n});
  m.index_put_({rows}, v);
  // CHECK-MESSAGES: :[[@LINE-1]]:3: warning: in-place index_put_ into 'm'
  // CHECK-MESSAGES: :[[@LINE-2]]:3: note: rule: index-put-advanced
  // CHECK-FIXES: {{^}}  m = m.index_put({rows}, v);{{$}}
  auto flat = w.reshape({-1});
  m.index_put_({rows}, flat);
  // CHECK-MESSAGES: :[[@LINE-1]]:3: warning: in-place index_put_ into 'm'
  // CHECK-MESSAGES: :[[@LINE-2]]:3: note: rule: index-put-advanced
  // CHECK-FIXES: {{^}}  m = m.index_put({rows}, flat);{{$}}
  return m;
}

// Made with v's options: the copy_ cast is left out; setitem with basic
// indices on a known 2-D target gives a 1-D result, and v is 1-D.
TORCH_TIDY_COMPILED at::Tensor same_options(const at::Tensor &v, int64_t r) {
  TORCH_CHECK(v.dim() == 1);
  auto m = torch::zeros({r, v.size(0)}, v.options());
  m.index({Slice(), 0}) = v;
  // CHECK-MESSAGES: :[[@LINE-1]]:3: warning: in-place index(...) assignment into 'm'
  // CHECK-MESSAGES: :[[@LINE-2]]:3: note: rule: index-put-positions-copy
  // CHECK-FIXES: {{^}}  m = m.flatten().index_put({torch::arange(m.numel(), m.options().dtype(torch::kLong)).view(m.sizes()).index({Slice(), 0})}, v).view(m.sizes());{{$}}
  m.index_put_({1, Slice()}, v);
  // CHECK-MESSAGES: :[[@LINE-1]]:3: warning: in-place index_put_ into 'm'
  // CHECK-MESSAGES: :[[@LINE-2]]:3: note: rule: index-put-positions-setitem
  // CHECK-FIXES: {{^}}  m = m.flatten().index_put({torch::arange(m.numel(), m.options().dtype(torch::kLong)).view(m.sizes()).index({1, Slice()})}, v).view(m.sizes());{{$}}
  return m;
}

// The proofs that fail: the strip and the cast stay.
TORCH_TIDY_COMPILED at::Tensor unproven(at::Tensor v, const at::Tensor &u,
                                        const at::Tensor &mask, int64_t n,
                                        bool flag) {
  auto rows = torch::arange(n);
  auto m = torch::zeros({n, 4});
  // Too many dims for the result: the strip is needed.
  TORCH_CHECK(u.dim() == 3);
  m.index_put_({rows}, u);
  // CHECK-MESSAGES: :[[@LINE-1]]:3: warning: in-place index_put_ into 'm'
  // CHECK-FIXES: {{^}}  m = m.index_put({rows}, u.view_symint(at::indexing::slicePrefix1sSize(u.sym_sizes())));{{$}}
  // A guard on one branch does not cover the write after it.
  if (flag) {
    TORCH_CHECK(v.dim() == 1);
  }
  m.index_put_({rows}, v);
  // CHECK-MESSAGES: :[[@LINE-1]]:3: warning: in-place index_put_ into 'm'
  // CHECK-FIXES: {{^}}  m = m.index_put({rows}, v.view_symint(at::indexing::slicePrefix1sSize(v.sym_sizes())));{{$}}
  // A guard that does not leave proves nothing.
  if (v.dim() != 1) {
    flag = false;
  }
  m.index_put_({Slice(), rows}, v);
  // CHECK-MESSAGES: :[[@LINE-1]]:3: warning: in-place index_put_ into 'm'
  // CHECK-FIXES: {{^}}  m = m.index_put({std::nullopt, rows}, v.view_symint(at::indexing::slicePrefix1sSize(v.sym_sizes())));{{$}}
  // A case label after the guard is a way around it.
  switch (n) {
  case 0:
    TORCH_CHECK(v.dim() == 1);
  case 1:
    m.index_put_({rows}, v);
    // CHECK-MESSAGES: :[[@LINE-1]]:5: warning: in-place index_put_ into 'm'
    // CHECK-FIXES: {{^}}    m = m.index_put({rows}, v.view_symint(at::indexing::slicePrefix1sSize(v.sym_sizes())));{{$}}
    break;
  }
  // A mask of unknown rank: the result's rank is not bounded.
  m.index_put_({mask}, v);
  // CHECK-MESSAGES: :[[@LINE-1]]:3: warning: in-place index_put_ into 'm'
  // CHECK-FIXES: {{^}}  m = m.index_put({mask}, v.view_symint(at::indexing::slicePrefix1sSize(v.sym_sizes())));{{$}}
  // m has the default options, v its own: the cast stays.
  m.index({Slice(), 0}) = v;
  // CHECK-MESSAGES: :[[@LINE-1]]:3: warning: in-place index(...) assignment into 'm'
  // CHECK-FIXES: {{^}}  m = m.flatten().index_put({torch::arange(m.numel(), m.options().dtype(torch::kLong)).view(m.sizes()).index({Slice(), 0})}, v.to(m.options())).view(m.sizes());{{$}}
  return m;
}

// A guard before, but v is assigned later (or its shape changed in place):
// the guard proves nothing about v at the write.
TORCH_TIDY_COMPILED at::Tensor reassigned(at::Tensor v, const at::Tensor &w,
                                          int64_t n) {
  TORCH_CHECK(v.dim() == 1);
  TORCH_CHECK(w.dim() == 1);
  auto rows = torch::arange(n);
  auto m = torch::zeros({n}, v.options());
  m.index_put_({rows}, v);
  // CHECK-MESSAGES: :[[@LINE-1]]:3: warning: in-place index_put_ into 'm'
  // CHECK-FIXES: {{^}}  m = m.index_put({rows}, v.view_symint(at::indexing::slicePrefix1sSize(v.sym_sizes())));{{$}}
  w.unsqueeze_(0);
  m.index_put_({rows}, w);
  // CHECK-MESSAGES: :[[@LINE-1]]:3: warning: in-place index_put_ into 'm'
  // CHECK-FIXES: {{^}}  m = m.index_put({rows}, w.view_symint(at::indexing::slicePrefix1sSize(w.sym_sizes())));{{$}}
  v = v.unsqueeze(0);
  return m;
}

// A goto may jump past any guard.
TORCH_TIDY_COMPILED at::Tensor jumped(const at::Tensor &v, int64_t n) {
  auto rows = torch::arange(n);
  auto m = torch::zeros({n});
  if (n > 3)
    goto write;
  TORCH_CHECK(v.dim() == 1);
write:
  m.index_put_({rows}, v);
  // CHECK-MESSAGES: :[[@LINE-1]]:3: warning: in-place index_put_ into 'm'
  // CHECK-FIXES: {{^}}  m = m.index_put({rows}, v.view_symint(at::indexing::slicePrefix1sSize(v.sym_sizes())));{{$}}
  return m;
}

void reshape_in_place(const at::Tensor &t);

// A copy shares the TensorImpl, and in-place methods are const: a tensor
// copied, captured or handed to code other than LibTorch's may change shape.
TORCH_TIDY_COMPILED at::Tensor escaped(const at::Tensor &v, const at::Tensor &u,
                                       const at::Tensor &w, int64_t n) {
  TORCH_CHECK(v.dim() == 1 && u.dim() == 1 && w.dim() == 1);
  auto copy = v;
  copy.unsqueeze_(0);
  reshape_in_place(u);
  auto later = [w] { w.unsqueeze_(0); };
  later();
  auto rows = torch::arange(n);
  auto m = torch::zeros({n});
  m.index_put_({rows}, v);
  // CHECK-MESSAGES: :[[@LINE-1]]:3: warning: in-place index_put_ into 'm'
  // CHECK-FIXES: {{^}}  m = m.index_put({rows}, v.view_symint(at::indexing::slicePrefix1sSize(v.sym_sizes())));{{$}}
  m.index_put_({rows}, u);
  // CHECK-MESSAGES: :[[@LINE-1]]:3: warning: in-place index_put_ into 'm'
  // CHECK-FIXES: {{^}}  m = m.index_put({rows}, u.view_symint(at::indexing::slicePrefix1sSize(u.sym_sizes())));{{$}}
  m.index_put_({rows}, w);
  // CHECK-MESSAGES: :[[@LINE-1]]:3: warning: in-place index_put_ into 'm'
  // CHECK-FIXES: {{^}}  m = m.index_put({rows}, w.view_symint(at::indexing::slicePrefix1sSize(w.sym_sizes())));{{$}}
  return m;
}

// A local read in its own initializer (legal C++, undefined value): the
// proofs give up instead of looping.
TORCH_TIDY_COMPILED at::Tensor self_init(const at::Tensor &v, int64_t n) {
  at::Tensor w = w.unsqueeze(0).clone();
  auto rows = torch::arange(n);
  auto m = torch::zeros({n}, w.options());
  m.index_put_({rows}, w);
  // CHECK-MESSAGES: :[[@LINE-1]]:3: warning: in-place index_put_ into 'm'
  // CHECK-FIXES: {{^}}  m = m.index_put({rows}, w.view_symint(at::indexing::slicePrefix1sSize(w.sym_sizes())));{{$}}
  return m + v;
}

// Options: a target made with another dtype, or reassigned with a cast,
// keeps the cast.
TORCH_TIDY_COMPILED at::Tensor other_dtype(const at::Tensor &v, int64_t r) {
  auto m = torch::zeros({r, 3}, v.options().dtype(torch::kDouble));
  m.index({Slice(), 0}) = v;
  // CHECK-MESSAGES: :[[@LINE-1]]:3: warning: in-place index(...) assignment into 'm'
  // CHECK-FIXES: {{^}}  m = m.flatten().index_put({torch::arange(m.numel(), m.options().dtype(torch::kLong)).view(m.sizes()).index({Slice(), 0})}, v.to(m.options())).view(m.sizes());{{$}}
  auto k = torch::zeros({r, 3}, v.options());
  k = k.to(torch::kDouble);
  k.index({Slice(), 0}) = v;
  // CHECK-MESSAGES: :[[@LINE-1]]:3: warning: in-place index(...) assignment into 'k'
  // CHECK-FIXES: {{^}}  k = k.flatten().index_put({torch::arange(k.numel(), k.options().dtype(torch::kLong)).view(k.sizes()).index({Slice(), 0})}, v.to(k.options())).view(k.sizes());{{$}}
  auto z = torch::zeros_like(v, v.options().dtype(torch::kDouble));
  z.index({Slice(), 0}) = v;
  // CHECK-MESSAGES: :[[@LINE-1]]:3: warning: in-place index(...) assignment into 'z'
  // CHECK-FIXES: {{^}}  z = z.flatten().index_put({torch::arange(z.numel(), z.options().dtype(torch::kLong)).view(z.sizes()).index({Slice(), 0})}, v.to(z.options())).view(z.sizes());{{$}}
  auto same = torch::zeros_like(v);
  same.index({Slice(), 0}) = v;
  // CHECK-MESSAGES: :[[@LINE-1]]:3: warning: in-place index(...) assignment into 'same'
  // CHECK-FIXES: {{^}}  same = same.flatten().index_put({torch::arange(same.numel(), same.options().dtype(torch::kLong)).view(same.sizes()).index({Slice(), 0})}, v).view(same.sizes());{{$}}
  // A math op may change the dtype (integers become floats): the cast stays.
  auto ints = torch::zeros({r, 3}, v.options());
  auto root = v.sqrt();
  ints.index({Slice(), 0}) = root;
  // CHECK-MESSAGES: :[[@LINE-1]]:3: warning: in-place index(...) assignment into 'ints'
  // CHECK-FIXES: {{^}}  ints = ints.flatten().index_put({torch::arange(ints.numel(), ints.options().dtype(torch::kLong)).view(ints.sizes()).index({Slice(), 0})}, root.to(ints.options())).view(ints.sizes());{{$}}
  return m + k + z + same + ints;
}
