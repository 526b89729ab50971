// RUN: %check_torch_tidy %s torch-compile-requires-grad-propagation %t \
// RUN:   --config="{CheckOptions: {torch-compile-requires-grad-propagation.FixColumnLimit: 0, torch-compile-requires-grad-propagation.FixStyle: index_put, torch-compile-requires-grad-propagation.StrictFixes: true}}"
// Every rule of FixStyle: index_put with StrictFixes: the general positions
// form for basic writes, the strip kept. The default's short forms are in
// short-fixes.cpp.
#include <torch/torch.h>
#include <torch_tidy/compiled.h>
using torch::indexing::Ellipsis;
using torch::indexing::None;
using torch::indexing::Slice;

TORCH_TIDY_COMPILED at::Tensor
rules(const at::Tensor &v, const at::Tensor &rows, const at::Tensor &cols,
      const at::Tensor &mask, const at::Tensor &idx) {
  auto m = torch::zeros({2, 3, 3});
  m.index_put_({Slice(), rows, cols}, v);
  // CHECK-MESSAGES: :[[@LINE-1]]:3: warning: in-place index_put_ into 'm'
  // CHECK-MESSAGES: :[[@LINE-2]]:3: note: rule: index-put-advanced
  // CHECK-FIXES: {{^}}  m = m.index_put({std::nullopt, rows, cols}, v.view_symint(at::indexing::slicePrefix1sSize(v.sym_sizes())));{{$}}
  m.index({Slice(), 1}) = v * 2;
  // CHECK-MESSAGES: :[[@LINE-1]]:3: warning: in-place index(...) assignment into 'm'
  // CHECK-MESSAGES: :[[@LINE-2]]:3: note: rule: index-put-positions-copy
  // CHECK-FIXES: {{^}}  m = m.flatten().index_put({torch::arange(m.numel(), m.options().dtype(torch::kLong)).view(m.sizes()).index({Slice(), 1})}, (v * 2).to(m.options())).view(m.sizes());{{$}}
  m.index({Slice(), rows}) = v; // index() with a tensor is a copy: no write
  m[idx[0]] = v;
  // CHECK-MESSAGES: :[[@LINE-1]]:3: warning: in-place operator[] assignment into 'm'
  // CHECK-MESSAGES: :[[@LINE-2]]:3: note: rule: index-put-positions-copy
  // CHECK-FIXES: {{^}}  m = m.flatten().index_put({torch::arange(m.numel(), m.options().dtype(torch::kLong)).view(m.sizes())[idx[0]]}, v.to(m.options())).view(m.sizes());{{$}}
  m.index_put_(c10::List<std::optional<at::Tensor>>({rows}), v, true);
  // CHECK-MESSAGES: :[[@LINE-1]]:3: warning: in-place index_put_ into 'm'
  // CHECK-MESSAGES: :[[@LINE-2]]:3: note: rule: index-put-list
  // CHECK-FIXES: {{^}}  m = m.index_put(c10::List<std::optional<at::Tensor>>({rows}), v, true);{{$}}
  at::index_put_(m, {rows}, v);
  // CHECK-MESSAGES: :[[@LINE-1]]:3: warning: in-place index_put_ into 'm'
  // CHECK-MESSAGES: :[[@LINE-2]]:3: note: rule: index-put-list
  // CHECK-FIXES: {{^}}  m = at::index_put(m, {rows}, v);{{$}}
  m.index_put_({1, Slice(None, -1, 2), Ellipsis}, v);
  // CHECK-MESSAGES: :[[@LINE-1]]:3: warning: in-place index_put_ into 'm'
  // CHECK-MESSAGES: :[[@LINE-2]]:3: note: rule: index-put-positions-setitem
  // CHECK-FIXES: {{^}}  m = m.flatten().index_put({torch::arange(m.numel(), m.options().dtype(torch::kLong)).view(m.sizes()).index({1, Slice(None, -1, 2), Ellipsis})}, v.view_symint(at::indexing::slicePrefix1sSize(v.sym_sizes())).to(m.options())).view(m.sizes());{{$}}
  m[0] = v;
  // CHECK-MESSAGES: :[[@LINE-1]]:3: warning: in-place operator[] assignment into 'm'
  // CHECK-MESSAGES: :[[@LINE-2]]:3: note: rule: index-put-positions-copy
  // CHECK-FIXES: {{^}}  m = m.flatten().index_put({torch::arange(m.numel(), m.options().dtype(torch::kLong)).view(m.sizes())[0]}, v.to(m.options())).view(m.sizes());{{$}}
  m.select(0, 1).narrow(0, 0, 2).copy_(v);
  // CHECK-MESSAGES: :[[@LINE-1]]:3: warning: in-place copy_ into 'm'
  // CHECK-MESSAGES: :[[@LINE-2]]:3: note: rule: index-put-positions-copy
  // CHECK-FIXES: {{^}}  m = m.flatten().index_put({torch::arange(m.numel(), m.options().dtype(torch::kLong)).view(m.sizes()).select(0, 1).narrow(0, 0, 2)}, v.to(m.options())).view(m.sizes());{{$}}
  auto row = m.select(0, 1).t();
  row.narrow(0, 0, 2).copy_(v);
  // CHECK-MESSAGES: :[[@LINE-1]]:3: warning: in-place copy_ into 'm'
  // CHECK-MESSAGES: :[[@LINE-2]]:3: note: rule: index-put-positions-copy
  // CHECK-FIXES: {{^}}  m = m.flatten().index_put({torch::arange(m.numel(), m.options().dtype(torch::kLong)).view(m.sizes()).select(0, 1).t().narrow(0, 0, 2)}, v.to(m.options())).view(m.sizes());{{$}}
  m.index_copy_(0, idx, v);
  // CHECK-MESSAGES: :[[@LINE-1]]:3: warning: in-place index_copy_ into 'm'
  // CHECK-MESSAGES: :[[@LINE-2]]:3: note: rule: index-copy
  // CHECK-FIXES: {{^}}  m = m.index_copy(0, idx, v);{{$}}
  m.masked_scatter_(mask, v);
  // CHECK-MESSAGES: :[[@LINE-1]]:3: warning: in-place masked_scatter_ into 'm'
  // CHECK-MESSAGES: :[[@LINE-2]]:3: note: rule: masked-scatter
  // CHECK-FIXES: {{^}}  m = m.masked_scatter(mask, v);{{$}}
  m.scatter_(0, idx, v);
  // CHECK-MESSAGES: :[[@LINE-1]]:3: warning: in-place scatter_ into 'm'
  // CHECK-MESSAGES: :[[@LINE-2]]:3: note: rule: scatter
  // CHECK-FIXES: {{^}}  m = m.scatter(0, idx, v);{{$}}
  m.masked_fill_(mask, v);
  // CHECK-MESSAGES: :[[@LINE-1]]:3: warning: in-place masked_fill_ into 'm'
  // CHECK-MESSAGES: :[[@LINE-2]]:3: note: rule: masked-fill
  // CHECK-FIXES: {{^}}  m = m.masked_fill(mask, v);{{$}}
  m.index_fill_(0, idx, v);
  // CHECK-MESSAGES: :[[@LINE-1]]:3: warning: in-place index_fill_ into 'm'
  // CHECK-MESSAGES: :[[@LINE-2]]:3: note: rule: index-fill
  // CHECK-FIXES: {{^}}  m = m.index_fill(0, idx, v);{{$}}
  return m;
}

// In-place arithmetic through a view gets its scatter form in every style
// (index_put would need the view's positions).
TORCH_TIDY_COMPILED at::Tensor arithmetic(const at::Tensor &v) {
  auto m = torch::zeros({4, 3});
  m.narrow(0, 1, 2).mul_(v);
  // CHECK-MESSAGES: :[[@LINE-1]]:3: warning: in-place mul_ into 'm'
  // CHECK-MESSAGES: :[[@LINE-2]]:3: note: rule: scatter-inplace-arith
  // CHECK-FIXES: {{^}}  m = m.slice_scatter(m.narrow(0, 1, 2).mul(v), 0, 1, 3);{{$}}
  return m;
}
