// RUN: %check_torch_tidy %s torch-compile-requires-grad-propagation %t \
// RUN:   --check-suffix=DEFAULT \
// RUN:   --config="{CheckOptions: {torch-compile-requires-grad-propagation.FixColumnLimit: 0}}"
// RUN: %check_torch_tidy %s torch-compile-requires-grad-propagation %t-strict \
// RUN:   --check-suffix=STRICT \
// RUN:   --config="{CheckOptions: {torch-compile-requires-grad-propagation.FixColumnLimit: 0, torch-compile-requires-grad-propagation.StrictFixes: true}}"
// The short fixes of the default FixStyle (auto), one per spelling of a
// write: select_scatter for one select (t[i], select, an integer index),
// slice_scatter for one slice (slice, narrow, a Slice index, with steps,
// None bounds, negative and out-of-range bounds), the two nested for two
// views, index_put for index lists of tensors and full slices, and the
// general positions form, with a note saying why, for the rest. The default
// passes the value as written and says what it assumes; StrictFixes keeps
// the broadcast, the cast and the strip that make a fix exact for every
// input (test/fixits and lib/verify run both against LibTorch and the
// reference runtime).
#include <torch/torch.h>
#include <torch_tidy/compiled.h>
using torch::indexing::Ellipsis;
using torch::indexing::None;
using torch::indexing::Slice;

TORCH_TIDY_COMPILED at::Tensor
spellings(const at::Tensor &v, const at::Tensor &rows, const at::Tensor &cols,
          int64_t i, int64_t n) {
  auto m = torch::zeros({4, 3, 5});
  m[1] = v.select(1, 0);
  // CHECK-MESSAGES-DEFAULT: :[[@LINE-1]]:3: warning: in-place operator[] assignment into 'm'
  // CHECK-MESSAGES-DEFAULT: :[[@LINE-2]]:3: note: rule: select-scatter
  // CHECK-MESSAGES-DEFAULT: :[[@LINE-3]]:3: note: the fix assumes 'v.select(1, 0)' has the shape of 'm[1]': select_scatter throws where copy_ would broadcast it (StrictFixes: true keeps the broadcast)
  // CHECK-FIXES-DEFAULT: {{^}}  m = m.select_scatter(v.select(1, 0), 0, 1);{{$}}
  // CHECK-MESSAGES-STRICT: :[[@LINE-5]]:3: warning: in-place operator[] assignment into 'm'
  // CHECK-MESSAGES-STRICT: :[[@LINE-6]]:3: note: rule: select-scatter
  // CHECK-FIXES-STRICT: {{^}}  m = m.select_scatter(v.select(1, 0).to(m.options()).expand_as(m[1]), 0, 1);{{$}}
  m.select(1, -1).copy_(v);
  // CHECK-MESSAGES-DEFAULT: :[[@LINE-1]]:3: warning: in-place copy_ into 'm'
  // CHECK-MESSAGES-DEFAULT: :[[@LINE-2]]:3: note: rule: select-scatter
  // CHECK-MESSAGES-DEFAULT: :[[@LINE-3]]:3: note: the fix assumes 'v' has the shape of 'm.select(1, -1)': select_scatter throws where copy_ would broadcast it (StrictFixes: true keeps the broadcast)
  // CHECK-FIXES-DEFAULT: {{^}}  m = m.select_scatter(v, 1, -1);{{$}}
  // CHECK-MESSAGES-STRICT: :[[@LINE-5]]:3: warning: in-place copy_ into 'm'
  // CHECK-MESSAGES-STRICT: :[[@LINE-6]]:3: note: rule: select-scatter
  // CHECK-FIXES-STRICT: {{^}}  m = m.select_scatter(v.to(m.options()).expand_as(m.select(1, -1)), 1, -1);{{$}}
  m.index({Slice(), 2}) = v;
  // CHECK-MESSAGES-DEFAULT: :[[@LINE-1]]:3: warning: in-place index(...) assignment into 'm'
  // CHECK-MESSAGES-DEFAULT: :[[@LINE-2]]:3: note: rule: select-scatter
  // CHECK-MESSAGES-DEFAULT: :[[@LINE-3]]:3: note: the fix assumes 'v' has the shape of 'm.index({Slice(), 2})': select_scatter throws where copy_ would broadcast it (StrictFixes: true keeps the broadcast)
  // CHECK-FIXES-DEFAULT: {{^}}  m = m.select_scatter(v, 1, 2);{{$}}
  // CHECK-MESSAGES-STRICT: :[[@LINE-5]]:3: warning: in-place index(...) assignment into 'm'
  // CHECK-MESSAGES-STRICT: :[[@LINE-6]]:3: note: rule: select-scatter
  // CHECK-FIXES-STRICT: {{^}}  m = m.select_scatter(v.to(m.options()).expand_as(m.index({Slice(), 2})), 1, 2);{{$}}
  m.index_put_({i}, v);
  // CHECK-MESSAGES-DEFAULT: :[[@LINE-1]]:3: warning: in-place index_put_ into 'm'
  // CHECK-MESSAGES-DEFAULT: :[[@LINE-2]]:3: note: rule: select-scatter
  // CHECK-MESSAGES-DEFAULT: :[[@LINE-3]]:3: note: the fix assumes 'v' has the shape of 'm.index({i})': select_scatter throws where setitem would strip or broadcast it (StrictFixes: true keeps the broadcast)
  // CHECK-FIXES-DEFAULT: {{^}}  m = m.select_scatter(v, 0, i);{{$}}
  // CHECK-MESSAGES-STRICT: :[[@LINE-5]]:3: warning: in-place index_put_ into 'm'
  // CHECK-MESSAGES-STRICT: :[[@LINE-6]]:3: note: rule: index-put-positions-setitem
  // CHECK-MESSAGES-STRICT: :[[@LINE-7]]:3: note: the general form: no short form for this write (setitem's strip of leading size-1 dims needs the general form (StrictFixes: true))
  // CHECK-FIXES-STRICT: {{^}}  m = m.flatten().index_put({torch::arange(m.numel(), m.options().dtype(torch::kLong)).view(m.sizes()).index({i})}, v.view_symint(at::indexing::slicePrefix1sSize(v.sym_sizes())).to(m.options())).view(m.sizes());{{$}}
  m.index_put_({Ellipsis, 0}, v);
  // CHECK-MESSAGES-DEFAULT: :[[@LINE-1]]:3: warning: in-place index_put_ into 'm'
  // CHECK-MESSAGES-DEFAULT: :[[@LINE-2]]:3: note: rule: select-scatter
  // CHECK-MESSAGES-DEFAULT: :[[@LINE-3]]:3: note: the fix assumes 'v' has the shape of 'm.index({Ellipsis, 0})': select_scatter throws where setitem would strip or broadcast it (StrictFixes: true keeps the broadcast)
  // CHECK-FIXES-DEFAULT: {{^}}  m = m.select_scatter(v, -1, 0);{{$}}
  // CHECK-MESSAGES-STRICT: :[[@LINE-5]]:3: warning: in-place index_put_ into 'm'
  // CHECK-MESSAGES-STRICT: :[[@LINE-6]]:3: note: rule: index-put-positions-setitem
  // CHECK-MESSAGES-STRICT: :[[@LINE-7]]:3: note: the general form: no short form for this write (setitem's strip of leading size-1 dims needs the general form (StrictFixes: true))
  // CHECK-FIXES-STRICT: {{^}}  m = m.flatten().index_put({torch::arange(m.numel(), m.options().dtype(torch::kLong)).view(m.sizes()).index({Ellipsis, 0})}, v.view_symint(at::indexing::slicePrefix1sSize(v.sym_sizes())).to(m.options())).view(m.sizes());{{$}}
  m.slice(2, 1, n).copy_(v);
  // CHECK-MESSAGES-DEFAULT: :[[@LINE-1]]:3: warning: in-place copy_ into 'm'
  // CHECK-MESSAGES-DEFAULT: :[[@LINE-2]]:3: note: rule: slice-scatter
  // CHECK-MESSAGES-DEFAULT: :[[@LINE-3]]:3: note: the fix assumes 'v' has the shape of 'm.slice(2, 1, n)': slice_scatter throws where copy_ would broadcast it (StrictFixes: true keeps the broadcast)
  // CHECK-FIXES-DEFAULT: {{^}}  m = m.slice_scatter(v, 2, 1, n);{{$}}
  // CHECK-MESSAGES-STRICT: :[[@LINE-5]]:3: warning: in-place copy_ into 'm'
  // CHECK-MESSAGES-STRICT: :[[@LINE-6]]:3: note: rule: slice-scatter
  // CHECK-FIXES-STRICT: {{^}}  m = m.slice_scatter(v.to(m.options()).expand_as(m.slice(2, 1, n)), 2, 1, n);{{$}}
  m.slice(0, -3, 100, 2).copy_(v);
  // CHECK-MESSAGES-DEFAULT: :[[@LINE-1]]:3: warning: in-place copy_ into 'm'
  // CHECK-MESSAGES-DEFAULT: :[[@LINE-2]]:3: note: rule: slice-scatter
  // CHECK-MESSAGES-DEFAULT: :[[@LINE-3]]:3: note: the fix assumes 'v' has the shape of 'm.slice(0, -3, 100, 2)': slice_scatter throws where copy_ would broadcast it (StrictFixes: true keeps the broadcast)
  // CHECK-FIXES-DEFAULT: {{^}}  m = m.slice_scatter(v, 0, -3, 100, 2);{{$}}
  // CHECK-MESSAGES-STRICT: :[[@LINE-5]]:3: warning: in-place copy_ into 'm'
  // CHECK-MESSAGES-STRICT: :[[@LINE-6]]:3: note: rule: slice-scatter
  // CHECK-FIXES-STRICT: {{^}}  m = m.slice_scatter(v.to(m.options()).expand_as(m.slice(0, -3, 100, 2)), 0, -3, 100, 2);{{$}}
  m.narrow(0, 1, 2).copy_(v);
  // CHECK-MESSAGES-DEFAULT: :[[@LINE-1]]:3: warning: in-place copy_ into 'm'
  // CHECK-MESSAGES-DEFAULT: :[[@LINE-2]]:3: note: rule: slice-scatter
  // CHECK-MESSAGES-DEFAULT: :[[@LINE-3]]:3: note: the fix assumes 'v' has the shape of 'm.narrow(0, 1, 2)': slice_scatter throws where copy_ would broadcast it (StrictFixes: true keeps the broadcast)
  // CHECK-FIXES-DEFAULT: {{^}}  m = m.slice_scatter(v, 0, 1, 3);{{$}}
  // CHECK-MESSAGES-STRICT: :[[@LINE-5]]:3: warning: in-place copy_ into 'm'
  // CHECK-MESSAGES-STRICT: :[[@LINE-6]]:3: note: rule: slice-scatter
  // CHECK-FIXES-STRICT: {{^}}  m = m.slice_scatter(v.to(m.options()).expand_as(m.narrow(0, 1, 2)), 0, 1, 3);{{$}}
  m.narrow(1, 0, n).copy_(v);
  // CHECK-MESSAGES-DEFAULT: :[[@LINE-1]]:3: warning: in-place copy_ into 'm'
  // CHECK-MESSAGES-DEFAULT: :[[@LINE-2]]:3: note: rule: slice-scatter
  // CHECK-MESSAGES-DEFAULT: :[[@LINE-3]]:3: note: the fix assumes 'v' has the shape of 'm.narrow(1, 0, n)': slice_scatter throws where copy_ would broadcast it (StrictFixes: true keeps the broadcast)
  // CHECK-FIXES-DEFAULT: {{^}}  m = m.slice_scatter(v, 1, 0, n);{{$}}
  // CHECK-MESSAGES-STRICT: :[[@LINE-5]]:3: warning: in-place copy_ into 'm'
  // CHECK-MESSAGES-STRICT: :[[@LINE-6]]:3: note: rule: slice-scatter
  // CHECK-FIXES-STRICT: {{^}}  m = m.slice_scatter(v.to(m.options()).expand_as(m.narrow(1, 0, n)), 1, 0, n);{{$}}
  m.narrow(2, i, n - 1).copy_(v);
  // CHECK-MESSAGES-DEFAULT: :[[@LINE-1]]:3: warning: in-place copy_ into 'm'
  // CHECK-MESSAGES-DEFAULT: :[[@LINE-2]]:3: note: rule: slice-scatter
  // CHECK-MESSAGES-DEFAULT: :[[@LINE-3]]:3: note: the fix assumes 'v' has the shape of 'm.narrow(2, i, n - 1)': slice_scatter throws where copy_ would broadcast it (StrictFixes: true keeps the broadcast)
  // CHECK-FIXES-DEFAULT: {{^}}  m = m.slice_scatter(v, 2, i, i + (n - 1));{{$}}
  // CHECK-MESSAGES-STRICT: :[[@LINE-5]]:3: warning: in-place copy_ into 'm'
  // CHECK-MESSAGES-STRICT: :[[@LINE-6]]:3: note: rule: index-put-positions-copy
  // CHECK-MESSAGES-STRICT: :[[@LINE-7]]:3: note: the general form: no short form for this write (narrow's start is not a literal, so it may be negative (StrictFixes: true))
  // CHECK-FIXES-STRICT: {{^}}  m = m.flatten().index_put({torch::arange(m.numel(), m.options().dtype(torch::kLong)).view(m.sizes()).narrow(2, i, n - 1)}, v.to(m.options())).view(m.sizes());{{$}}
  m.index({Slice(1, None, 2)}) = v;
  // CHECK-MESSAGES-DEFAULT: :[[@LINE-1]]:3: warning: in-place index(...) assignment into 'm'
  // CHECK-MESSAGES-DEFAULT: :[[@LINE-2]]:3: note: rule: slice-scatter
  // CHECK-MESSAGES-DEFAULT: :[[@LINE-3]]:3: note: the fix assumes 'v' has the shape of 'm.index({Slice(1, None, 2)})': slice_scatter throws where copy_ would broadcast it (StrictFixes: true keeps the broadcast)
  // CHECK-FIXES-DEFAULT: {{^}}  m = m.slice_scatter(v, 0, 1, std::nullopt, 2);{{$}}
  // CHECK-MESSAGES-STRICT: :[[@LINE-5]]:3: warning: in-place index(...) assignment into 'm'
  // CHECK-MESSAGES-STRICT: :[[@LINE-6]]:3: note: rule: slice-scatter
  // CHECK-FIXES-STRICT: {{^}}  m = m.slice_scatter(v.to(m.options()).expand_as(m.index({Slice(1, None, 2)})), 0, 1, std::nullopt, 2);{{$}}
  m.index_put_({Slice(None, 2), Slice(), Slice(i)}, v);
  // CHECK-MESSAGES-DEFAULT: :[[@LINE-1]]:3: warning: in-place index_put_ into 'm'
  // CHECK-MESSAGES-DEFAULT: :[[@LINE-2]]:3: note: rule: scatter-nested
  // CHECK-MESSAGES-DEFAULT: :[[@LINE-3]]:3: note: the fix assumes 'v' has the shape of 'm.index({Slice(None, 2), Slice(), Slice(i)})': the scatter forms throw where setitem would strip or broadcast it (StrictFixes: true keeps the broadcast)
  // CHECK-FIXES-DEFAULT: {{^}}  m = m.slice_scatter(m.slice(0, 0, 2).slice_scatter(v, 2, i), 0, 0, 2);{{$}}
  // CHECK-MESSAGES-STRICT: :[[@LINE-5]]:3: warning: in-place index_put_ into 'm'
  // CHECK-MESSAGES-STRICT: :[[@LINE-6]]:3: note: rule: index-put-positions-setitem
  // CHECK-MESSAGES-STRICT: :[[@LINE-7]]:3: note: the general form: no short form for this write (setitem's strip of leading size-1 dims needs the general form (StrictFixes: true))
  // CHECK-FIXES-STRICT: {{^}}  m = m.flatten().index_put({torch::arange(m.numel(), m.options().dtype(torch::kLong)).view(m.sizes()).index({Slice(None, 2), Slice(), Slice(i)})}, v.view_symint(at::indexing::slicePrefix1sSize(v.sym_sizes())).to(m.options())).view(m.sizes());{{$}}
  m.index_put_({Ellipsis, Slice(None, None, 2)}, v);
  // CHECK-MESSAGES-DEFAULT: :[[@LINE-1]]:3: warning: in-place index_put_ into 'm'
  // CHECK-MESSAGES-DEFAULT: :[[@LINE-2]]:3: note: rule: slice-scatter
  // CHECK-MESSAGES-DEFAULT: :[[@LINE-3]]:3: note: the fix assumes 'v' has the shape of 'm.index({Ellipsis, Slice(None, None, 2)})': slice_scatter throws where setitem would strip or broadcast it (StrictFixes: true keeps the broadcast)
  // CHECK-FIXES-DEFAULT: {{^}}  m = m.slice_scatter(v, -1, 0, std::nullopt, 2);{{$}}
  // CHECK-MESSAGES-STRICT: :[[@LINE-5]]:3: warning: in-place index_put_ into 'm'
  // CHECK-MESSAGES-STRICT: :[[@LINE-6]]:3: note: rule: index-put-positions-setitem
  // CHECK-MESSAGES-STRICT: :[[@LINE-7]]:3: note: the general form: no short form for this write (setitem's strip of leading size-1 dims needs the general form (StrictFixes: true))
  // CHECK-FIXES-STRICT: {{^}}  m = m.flatten().index_put({torch::arange(m.numel(), m.options().dtype(torch::kLong)).view(m.sizes()).index({Ellipsis, Slice(None, None, 2)})}, v.view_symint(at::indexing::slicePrefix1sSize(v.sym_sizes())).to(m.options())).view(m.sizes());{{$}}
  m.select(0, 1).fill_(v.sum());
  // CHECK-MESSAGES-DEFAULT: :[[@LINE-1]]:3: warning: in-place fill_ into 'm'
  // CHECK-MESSAGES-DEFAULT: :[[@LINE-2]]:3: note: rule: select-scatter
  // CHECK-FIXES-DEFAULT: {{^}}  m = m.select_scatter(v.sum().expand_as(m.select(0, 1)), 0, 1);{{$}}
  // CHECK-MESSAGES-STRICT: :[[@LINE-4]]:3: warning: in-place fill_ into 'm'
  // CHECK-MESSAGES-STRICT: :[[@LINE-5]]:3: note: rule: select-scatter
  // CHECK-FIXES-STRICT: {{^}}  m = m.select_scatter(v.sum().to(m.options()).expand_as(m.select(0, 1)), 0, 1);{{$}}
  m.slice(1, 0, 2) = v;
  // CHECK-MESSAGES-DEFAULT: :[[@LINE-1]]:3: warning: in-place assignment into a view into 'm'
  // CHECK-MESSAGES-DEFAULT: :[[@LINE-2]]:3: note: rule: slice-scatter
  // CHECK-MESSAGES-DEFAULT: :[[@LINE-3]]:3: note: the fix assumes 'v' has the shape of 'm.slice(1, 0, 2)': slice_scatter throws where copy_ would broadcast it (StrictFixes: true keeps the broadcast)
  // CHECK-FIXES-DEFAULT: {{^}}  m = m.slice_scatter(v, 1, 0, 2);{{$}}
  // CHECK-MESSAGES-STRICT: :[[@LINE-5]]:3: warning: in-place assignment into a view into 'm'
  // CHECK-MESSAGES-STRICT: :[[@LINE-6]]:3: note: rule: slice-scatter
  // CHECK-FIXES-STRICT: {{^}}  m = m.slice_scatter(v.to(m.options()).expand_as(m.slice(1, 0, 2)), 1, 0, 2);{{$}}
  m[0][1] = v;
  // CHECK-MESSAGES-DEFAULT: :[[@LINE-1]]:3: warning: in-place operator[] assignment into 'm'
  // CHECK-MESSAGES-DEFAULT: :[[@LINE-2]]:3: note: rule: scatter-nested
  // CHECK-MESSAGES-DEFAULT: :[[@LINE-3]]:3: note: the fix assumes 'v' has the shape of 'm[0][1]': the scatter forms throw where copy_ would broadcast it (StrictFixes: true keeps the broadcast)
  // CHECK-FIXES-DEFAULT: {{^}}  m = m.select_scatter(m[0].select_scatter(v, 0, 1), 0, 0);{{$}}
  // CHECK-MESSAGES-STRICT: :[[@LINE-5]]:3: warning: in-place operator[] assignment into 'm'
  // CHECK-MESSAGES-STRICT: :[[@LINE-6]]:3: note: rule: scatter-nested
  // CHECK-FIXES-STRICT: {{^}}  m = m.select_scatter(m[0].select_scatter(v.to(m.options()).expand_as(m[0][1]), 0, 1), 0, 0);{{$}}
  m.index({0, Slice(1, 3)}) = v;
  // CHECK-MESSAGES-DEFAULT: :[[@LINE-1]]:3: warning: in-place index(...) assignment into 'm'
  // CHECK-MESSAGES-DEFAULT: :[[@LINE-2]]:3: note: rule: scatter-nested
  // CHECK-MESSAGES-DEFAULT: :[[@LINE-3]]:3: note: the fix assumes 'v' has the shape of 'm.index({0, Slice(1, 3)})': the scatter forms throw where copy_ would broadcast it (StrictFixes: true keeps the broadcast)
  // CHECK-FIXES-DEFAULT: {{^}}  m = m.select_scatter(m[0].slice_scatter(v, 0, 1, 3), 0, 0);{{$}}
  // CHECK-MESSAGES-STRICT: :[[@LINE-5]]:3: warning: in-place index(...) assignment into 'm'
  // CHECK-MESSAGES-STRICT: :[[@LINE-6]]:3: note: rule: scatter-nested
  // CHECK-FIXES-STRICT: {{^}}  m = m.select_scatter(m[0].slice_scatter(v.to(m.options()).expand_as(m.index({0, Slice(1, 3)})), 0, 1, 3), 0, 0);{{$}}
  m.select(0, 1).narrow(0, 0, 2).copy_(v);
  // CHECK-MESSAGES-DEFAULT: :[[@LINE-1]]:3: warning: in-place copy_ into 'm'
  // CHECK-MESSAGES-DEFAULT: :[[@LINE-2]]:3: note: rule: scatter-nested
  // CHECK-MESSAGES-DEFAULT: :[[@LINE-3]]:3: note: the fix assumes 'v' has the shape of 'm.select(0, 1).narrow(0, 0, 2)': the scatter forms throw where copy_ would broadcast it (StrictFixes: true keeps the broadcast)
  // CHECK-FIXES-DEFAULT: {{^}}  m = m.select_scatter(m.select(0, 1).slice_scatter(v, 0, 0, 2), 0, 1);{{$}}
  // CHECK-MESSAGES-STRICT: :[[@LINE-5]]:3: warning: in-place copy_ into 'm'
  // CHECK-MESSAGES-STRICT: :[[@LINE-6]]:3: note: rule: scatter-nested
  // CHECK-FIXES-STRICT: {{^}}  m = m.select_scatter(m.select(0, 1).slice_scatter(v.to(m.options()).expand_as(m.select(0, 1).narrow(0, 0, 2)), 0, 0, 2), 0, 1);{{$}}
  m.index_put_({rows, cols}, v);
  // CHECK-MESSAGES-DEFAULT: :[[@LINE-1]]:3: warning: in-place index_put_ into 'm'
  // CHECK-MESSAGES-DEFAULT: :[[@LINE-2]]:3: note: rule: index-put-advanced
  // CHECK-MESSAGES-DEFAULT: :[[@LINE-3]]:3: note: the fix assumes 'v' has no more leading size-1 dims than the indexed result: setitem strips them, index_put throws on them (StrictFixes: true keeps the strip)
  // CHECK-FIXES-DEFAULT: {{^}}  m = m.index_put({rows, cols}, v);{{$}}
  // CHECK-MESSAGES-STRICT: :[[@LINE-5]]:3: warning: in-place index_put_ into 'm'
  // CHECK-MESSAGES-STRICT: :[[@LINE-6]]:3: note: rule: index-put-advanced
  // CHECK-FIXES-STRICT: {{^}}  m = m.index_put({rows, cols}, v.view_symint(at::indexing::slicePrefix1sSize(v.sym_sizes())));{{$}}
  m.index_put_({Slice(), rows}, v);
  // CHECK-MESSAGES-DEFAULT: :[[@LINE-1]]:3: warning: in-place index_put_ into 'm'
  // CHECK-MESSAGES-DEFAULT: :[[@LINE-2]]:3: note: rule: index-put-advanced
  // CHECK-MESSAGES-DEFAULT: :[[@LINE-3]]:3: note: the fix assumes 'v' has no more leading size-1 dims than the indexed result: setitem strips them, index_put throws on them (StrictFixes: true keeps the strip)
  // CHECK-FIXES-DEFAULT: {{^}}  m = m.index_put({std::nullopt, rows}, v);{{$}}
  // CHECK-MESSAGES-STRICT: :[[@LINE-5]]:3: warning: in-place index_put_ into 'm'
  // CHECK-MESSAGES-STRICT: :[[@LINE-6]]:3: note: rule: index-put-advanced
  // CHECK-FIXES-STRICT: {{^}}  m = m.index_put({std::nullopt, rows}, v.view_symint(at::indexing::slicePrefix1sSize(v.sym_sizes())));{{$}}
  m[0][1][2] = v;
  // CHECK-MESSAGES-DEFAULT: :[[@LINE-1]]:3: warning: in-place operator[] assignment into 'm'
  // CHECK-MESSAGES-DEFAULT: :[[@LINE-2]]:3: note: rule: index-put-positions-copy
  // CHECK-MESSAGES-DEFAULT: :[[@LINE-3]]:3: note: the general form: no short form for this write (the write goes through 3 views; the scatter forms nest two at most)
  // CHECK-FIXES-DEFAULT: {{^}}  m = m.flatten().index_put({torch::arange(m.numel(), m.options().dtype(torch::kLong)).view(m.sizes())[0][1][2]}, v.to(m.options())).view(m.sizes());{{$}}
  // CHECK-MESSAGES-STRICT: :[[@LINE-5]]:3: warning: in-place operator[] assignment into 'm'
  // CHECK-MESSAGES-STRICT: :[[@LINE-6]]:3: note: rule: index-put-positions-copy
  // CHECK-MESSAGES-STRICT: :[[@LINE-7]]:3: note: the general form: no short form for this write (the write goes through 3 views; the scatter forms nest two at most)
  // CHECK-FIXES-STRICT: {{^}}  m = m.flatten().index_put({torch::arange(m.numel(), m.options().dtype(torch::kLong)).view(m.sizes())[0][1][2]}, v.to(m.options())).view(m.sizes());{{$}}
  m.t().select(0, 1).copy_(v);
  // CHECK-MESSAGES-DEFAULT: :[[@LINE-1]]:3: warning: in-place copy_ into 'm'
  // CHECK-MESSAGES-DEFAULT: :[[@LINE-2]]:3: note: rule: index-put-positions-copy
  // CHECK-MESSAGES-DEFAULT: :[[@LINE-3]]:3: note: the general form: no short form for this write ('t' has no scatter form)
  // CHECK-FIXES-DEFAULT: {{^}}  m = m.flatten().index_put({torch::arange(m.numel(), m.options().dtype(torch::kLong)).view(m.sizes()).t().select(0, 1)}, v.to(m.options())).view(m.sizes());{{$}}
  // CHECK-MESSAGES-STRICT: :[[@LINE-5]]:3: warning: in-place copy_ into 'm'
  // CHECK-MESSAGES-STRICT: :[[@LINE-6]]:3: note: rule: index-put-positions-copy
  // CHECK-MESSAGES-STRICT: :[[@LINE-7]]:3: note: the general form: no short form for this write ('t' has no scatter form)
  // CHECK-FIXES-STRICT: {{^}}  m = m.flatten().index_put({torch::arange(m.numel(), m.options().dtype(torch::kLong)).view(m.sizes()).t().select(0, 1)}, v.to(m.options())).view(m.sizes());{{$}}
  m.index_put_({None, 0}, v);
  // CHECK-MESSAGES-DEFAULT: :[[@LINE-1]]:3: warning: in-place index_put_ into 'm'
  // CHECK-MESSAGES-DEFAULT: :[[@LINE-2]]:3: note: rule: index-put-positions-setitem
  // CHECK-MESSAGES-DEFAULT: :[[@LINE-3]]:3: note: the general form: no short form for this write (None in the index list adds a dim)
  // CHECK-FIXES-DEFAULT: {{^}}  m = m.flatten().index_put({torch::arange(m.numel(), m.options().dtype(torch::kLong)).view(m.sizes()).index({None, 0})}, v.view_symint(at::indexing::slicePrefix1sSize(v.sym_sizes())).to(m.options())).view(m.sizes());{{$}}
  // CHECK-MESSAGES-STRICT: :[[@LINE-5]]:3: warning: in-place index_put_ into 'm'
  // CHECK-MESSAGES-STRICT: :[[@LINE-6]]:3: note: rule: index-put-positions-setitem
  // CHECK-MESSAGES-STRICT: :[[@LINE-7]]:3: note: the general form: no short form for this write (setitem's strip of leading size-1 dims needs the general form (StrictFixes: true))
  // CHECK-FIXES-STRICT: {{^}}  m = m.flatten().index_put({torch::arange(m.numel(), m.options().dtype(torch::kLong)).view(m.sizes()).index({None, 0})}, v.view_symint(at::indexing::slicePrefix1sSize(v.sym_sizes())).to(m.options())).view(m.sizes());{{$}}
  return m;
}

// The value is spelled once in a short fix, so any expression will do; the
// strict form of setitem mentions it twice (strip) and needs a variable.
TORCH_TIDY_COMPILED at::Tensor expression_value(const at::Tensor &v) {
  auto m = torch::zeros({4, 3});
  m.index_put_({0}, v * 2);
  // CHECK-MESSAGES-DEFAULT: :[[@LINE-1]]:3: warning: in-place index_put_ into 'm'
  // CHECK-FIXES-DEFAULT: {{^}}  m = m.select_scatter(v * 2, 0, 0);{{$}}
  // CHECK-MESSAGES-STRICT: :[[@LINE-3]]:3: warning: in-place index_put_ into 'm'
  // CHECK-MESSAGES-STRICT: :[[@LINE-4]]:3: note: no fix: the value is an expression the rewrite would evaluate twice; store it in a variable to get a fix
  return m;
}
