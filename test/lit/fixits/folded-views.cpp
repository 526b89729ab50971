// RUN: %check_torch_tidy %s torch-compile-requires-grad-propagation %t
// A select spelled another way is folded before the fix picks its form
// (issue 39): `slice(d, i, i + 1).squeeze(d)` with a literal i >= 0 and
// `narrow(d, i, 1).squeeze(d)` are `select(d, i)`; `t()[k]` of a 2-D tensor,
// `transpose(0, 1)[k]` and their `select(0, k)` are `select(1, k)`; an
// `unsqueeze(d).squeeze(d)` pair is the tensor itself. A named view the fix
// writes back through is removed with the write (it has no other use), so
// no name is left meaning the old tensor; one read after the write is bound
// again after it (issue 47). A fixed statement longer than the check's
// FixColumnLimit (70 by default) is laid out over several lines.
#include <torch/torch.h>
#include <torch_tidy/compiled.h>

TORCH_TIDY_COMPILED at::Tensor folded(const at::Tensor &x, int64_t i) {
  auto buf = torch::zeros({8, 4});
  buf.slice(0, 2, 3).squeeze(0).copy_(x);
  // CHECK-MESSAGES: :[[@LINE-1]]:3: warning: in-place copy_ into 'buf'
  // CHECK-MESSAGES: :[[@LINE-2]]:3: note: rule: select-scatter
  // CHECK-FIXES: {{^}}  buf = buf.select_scatter(x, 0, 2);{{$}}
  buf.narrow(1, i, 1).squeeze(1).copy_(x);
  // CHECK-MESSAGES: :[[@LINE-1]]:3: warning: in-place copy_ into 'buf'
  // CHECK-MESSAGES: :[[@LINE-2]]:3: note: rule: select-scatter
  // CHECK-FIXES: {{^}}  buf = buf.select_scatter(x, 1, i);{{$}}
  buf.t()[3].copy_(x);
  // CHECK-MESSAGES: :[[@LINE-1]]:3: warning: in-place copy_ into 'buf'
  // CHECK-MESSAGES: :[[@LINE-2]]:3: note: rule: select-scatter
  // CHECK-FIXES: {{^}}  buf = buf.select_scatter(x, 1, 3);{{$}}
  buf.transpose(1, 0).select(0, -1).copy_(x);
  // CHECK-MESSAGES: :[[@LINE-1]]:3: warning: in-place copy_ into 'buf'
  // CHECK-MESSAGES: :[[@LINE-2]]:3: note: rule: select-scatter
  // CHECK-FIXES: {{^}}  buf = buf.select_scatter(x, 1, -1);{{$}}
  buf.unsqueeze(0).squeeze(0)[1].copy_(x);
  // CHECK-MESSAGES: :[[@LINE-1]]:3: warning: in-place copy_ into 'buf'
  // CHECK-MESSAGES: :[[@LINE-2]]:3: note: rule: select-scatter
  // CHECK-FIXES: {{^}}  buf = buf.select_scatter(x, 0, 1);{{$}}
  buf.transpose(0, 1)[2].slice(0, 1, 3).copy_(x);
  // CHECK-MESSAGES: :[[@LINE-1]]:3: warning: in-place copy_ into 'buf'
  // CHECK-MESSAGES: :[[@LINE-2]]:3: note: rule: scatter-nested
  // CHECK-FIXES: {{^}}  buf = buf.select_scatter(buf.select(1, 2).slice_scatter(x, 0, 1, 3),{{$}}
  // CHECK-FIXES-NEXT: {{^}}                           1, 2);{{$}}
  return buf;
}

// Not a select: a start that may be negative (slice(-1, 0) is empty), a
// slice of two rows, a squeeze of another dim, t() of a tensor whose rank
// is not known here.
TORCH_TIDY_COMPILED at::Tensor not_folded(const at::Tensor &x, int64_t i,
                                          at::IntArrayRef sizes) {
  auto buf = torch::zeros({8, 4});
  buf.slice(0, i, i + 1).squeeze(0).copy_(x);
  // CHECK-MESSAGES: :[[@LINE-1]]:3: warning: in-place copy_ into 'buf'
  // CHECK-MESSAGES: :[[@LINE-2]]:3: note: rule: index-put-positions-copy
  // CHECK-MESSAGES: :[[@LINE-3]]:3: note: the general form: no short form for this write ('squeeze' has no scatter form)
  buf.slice(0, 2, 4).squeeze(0).copy_(x);
  // CHECK-MESSAGES: :[[@LINE-1]]:3: warning: in-place copy_ into 'buf'
  // CHECK-MESSAGES: :[[@LINE-2]]:3: note: rule: index-put-positions-copy
  // CHECK-MESSAGES: :[[@LINE-3]]:3: note: the general form: no short form for this write ('squeeze' has no scatter form)
  buf.narrow(0, 2, 1).squeeze(1).copy_(x);
  // CHECK-MESSAGES: :[[@LINE-1]]:3: warning: in-place copy_ into 'buf'
  // CHECK-MESSAGES: :[[@LINE-2]]:3: note: rule: index-put-positions-copy
  // CHECK-MESSAGES: :[[@LINE-3]]:3: note: the general form: no short form for this write ('squeeze' has no scatter form)
  auto any = torch::zeros(sizes);
  any.t()[0].copy_(x);
  // CHECK-MESSAGES: :[[@LINE-1]]:3: warning: in-place copy_ into 'any'
  // CHECK-MESSAGES: :[[@LINE-2]]:3: note: rule: index-put-positions-copy
  // CHECK-MESSAGES: :[[@LINE-3]]:3: note: the general form: no short form for this write ('t' has no scatter form)
  return buf + any;
}

// The examples: named views whose only use is the write. The fix
// removes the declaration with the write.
TORCH_TIDY_COMPILED at::Tensor named_top(const at::Tensor &x) {
  auto buf = torch::zeros({8, 4}, x.options());
  auto top = buf.slice(0, 0, 1).squeeze(0);
  top.copy_(x);
  // CHECK-MESSAGES: :[[@LINE-1]]:3: warning: in-place copy_ into 'buf'
  // CHECK-MESSAGES: :[[@LINE-2]]:3: note: rule: select-scatter
  // CHECK-FIXES: {{^}}  auto buf = torch::zeros({8, 4}, x.options());{{$}}
  // CHECK-FIXES-NEXT: {{^}}  buf = buf.select_scatter(x, 0, 0);{{$}}
  return buf;
}

TORCH_TIDY_COMPILED at::Tensor named_col(const at::Tensor &y) {
  auto buf = torch::zeros({8, 4}, y.options());
  auto col = buf.t()[2];

  col.copy_(y);
  // CHECK-MESSAGES: :[[@LINE-1]]:3: warning: in-place copy_ into 'buf'
  // CHECK-MESSAGES: :[[@LINE-2]]:3: note: rule: select-scatter
  // CHECK-FIXES: {{^}}  auto buf = torch::zeros({8, 4}, y.options());{{$}}
  // CHECK-FIXES-EMPTY:
  // CHECK-FIXES-NEXT: {{^}}  buf = buf.select_scatter(y, 1, 2);{{$}}
  return buf;
}

// Read after the write: the view would still show the old tensor, so it
// is bound again after the write to the same view of the rewritten buf.
TORCH_TIDY_COMPILED at::Tensor named_read_later(const at::Tensor &x) {
  auto buf = torch::zeros({8, 4}, x.options());
  auto top = buf.slice(0, 0, 1).squeeze(0);
  top.copy_(x);
  // CHECK-MESSAGES: :[[@LINE-1]]:3: warning: in-place copy_ into 'buf'
  // CHECK-MESSAGES: :[[@LINE-2]]:3: note: 'top' is bound again after the write to the same view of the rewritten 'buf', which later reads and writes then see
  // CHECK-FIXES: {{^}}  auto top = buf.slice(0, 0, 1).squeeze(0);{{$}}
  // CHECK-FIXES-NEXT: {{^}}  buf = buf.select_scatter(x, 0, 0);{{$}}
  // CHECK-FIXES-NEXT: {{^}}  top = buf.slice(0, 0, 1).squeeze(0);{{$}}
  return buf + top.sum();
}

// Another view of the target, declared before the write and read after it,
// is bound again too; the one the write goes through as well.
TORCH_TIDY_COMPILED at::Tensor other_view_read_later(const at::Tensor &x) {
  auto out = torch::zeros({4, 3, 2}, x.options());
  auto first = out.select(0, 0);
  auto plane = out.select(2, 1).narrow(0, 1, 2);
  plane.copy_(x);
  // CHECK-MESSAGES: :[[@LINE-1]]:3: warning: in-place copy_ into 'out'
  // CHECK-FIXES: {{^}}  auto plane = out.select(2, 1).narrow(0, 1, 2);{{$}}
  // CHECK-FIXES-NEXT: {{^}}  out = out.select_scatter(out.select(2, 1).slice_scatter(x, 0, 1, 3),{{$}}
  // CHECK-FIXES-NEXT: {{^}}                           2, 1);{{$}}
  // CHECK-FIXES-NEXT: {{^}}  plane = out.select(2, 1).narrow(0, 1, 2);{{$}}
  // CHECK-FIXES-NEXT: {{^}}  first = out.select(0, 0);{{$}}
  return out + first.sum() + plane.sum();
}
