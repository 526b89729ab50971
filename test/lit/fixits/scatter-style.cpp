// RUN: %check_torch_tidy %s torch-compile-requires-grad-propagation %t \
// RUN:   --config="{CheckOptions: {torch-compile-requires-grad-propagation.FixColumnLimit: 0, torch-compile-requires-grad-propagation.FixStyle: scatter, torch-compile-requires-grad-propagation.StrictFixes: true}}"
// FixStyle: scatter with StrictFixes: slice_scatter / select_scatter (nested
// once) with the value broadcast and cast, as copy_ does, for every input
// (a select spelled through a transpose folded into one); the position
// rewrite where no scatter form is exact.
#include <torch/torch.h>
#include <torch_tidy/compiled.h>

TORCH_TIDY_COMPILED at::Tensor rules(const at::Tensor &v, int64_t i) {
  auto m = torch::zeros({4, 3});
  m.slice(0, 0, 2).copy_(v);
  // CHECK-MESSAGES: :[[@LINE-1]]:3: warning: in-place copy_ into 'm'
  // CHECK-MESSAGES: :[[@LINE-2]]:3: note: rule: slice-scatter
  // CHECK-FIXES: {{^}}  m = m.slice_scatter(v.to(m.options()).expand_as(m.slice(0, 0, 2)), 0, 0, 2);{{$}}
  m.slice(1, 0, 3, 2).copy_(v);
  // CHECK-MESSAGES: :[[@LINE-1]]:3: warning: in-place copy_ into 'm'
  // CHECK-MESSAGES: :[[@LINE-2]]:3: note: rule: slice-scatter
  // CHECK-FIXES: {{^}}  m = m.slice_scatter(v.to(m.options()).expand_as(m.slice(1, 0, 3, 2)), 1, 0, 3, 2);{{$}}
  m.narrow(0, 1, 2).copy_(v);
  // CHECK-MESSAGES: :[[@LINE-1]]:3: warning: in-place copy_ into 'm'
  // CHECK-MESSAGES: :[[@LINE-2]]:3: note: rule: slice-scatter
  // CHECK-FIXES: {{^}}  m = m.slice_scatter(v.to(m.options()).expand_as(m.narrow(0, 1, 2)), 0, 1, 3);{{$}}
  m.select(0, -1).copy_(v);
  // CHECK-MESSAGES: :[[@LINE-1]]:3: warning: in-place copy_ into 'm'
  // CHECK-MESSAGES: :[[@LINE-2]]:3: note: rule: select-scatter
  // CHECK-FIXES: {{^}}  m = m.select_scatter(v.to(m.options()).expand_as(m.select(0, -1)), 0, -1);{{$}}
  m.select(1, 0).fill_(v);
  // CHECK-MESSAGES: :[[@LINE-1]]:3: warning: in-place fill_ into 'm'
  // CHECK-MESSAGES: :[[@LINE-2]]:3: note: rule: select-scatter
  // CHECK-FIXES: {{^}}  m = m.select_scatter(v.to(m.options()).expand_as(m.select(1, 0)), 1, 0);{{$}}
  m.narrow(0, i, 2).copy_(v); // a start that may be negative: positions
  // CHECK-MESSAGES: :[[@LINE-1]]:3: warning: in-place copy_ into 'm'
  // CHECK-MESSAGES: :[[@LINE-2]]:3: note: rule: index-put-positions-copy
  // CHECK-MESSAGES: :[[@LINE-3]]:3: note: the general form: no short form for this write (narrow's start is not a literal, so it may be negative (StrictFixes: true))
  // CHECK-FIXES: {{^}}  m = m.flatten().index_put({torch::arange(m.numel(), m.options().dtype(torch::kLong)).view(m.sizes()).narrow(0, i, 2)}, v.to(m.options())).view(m.sizes()); // a start that may be negative: positions{{$}}
  m.select(0, 1).select(0, 2).copy_(v); // two views: nested
  // CHECK-MESSAGES: :[[@LINE-1]]:3: warning: in-place copy_ into 'm'
  // CHECK-MESSAGES: :[[@LINE-2]]:3: note: rule: scatter-nested
  // CHECK-FIXES: {{^}}  m = m.select_scatter(m.select(0, 1).select_scatter(v.to(m.options()).expand_as(m.select(0, 1).select(0, 2)), 0, 2), 0, 1); // two views: nested{{$}}
  m.t().select(0, 1).copy_(v); // a select of the 2-D transpose: folded
  // CHECK-MESSAGES: :[[@LINE-1]]:3: warning: in-place copy_ into 'm'
  // CHECK-MESSAGES: :[[@LINE-2]]:3: note: rule: select-scatter
  // CHECK-FIXES: {{^}}  m = m.select_scatter(v.to(m.options()).expand_as(m.t().select(0, 1)), 1, 1); // a select of the 2-D transpose: folded{{$}}
  m.t().narrow(0, 1, 2).copy_(v); // a slice of the transpose: positions
  // CHECK-MESSAGES: :[[@LINE-1]]:3: warning: in-place copy_ into 'm'
  // CHECK-MESSAGES: :[[@LINE-2]]:3: note: rule: index-put-positions-copy
  // CHECK-MESSAGES: :[[@LINE-3]]:3: note: the general form: no short form for this write ('t' has no scatter form)
  return m;
}
