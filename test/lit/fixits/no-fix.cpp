// RUN: %check_torch_tidy %s torch-compile-requires-grad-propagation %t
// Where a rewrite cannot be proved safe the warning stays, with a note that
// says why no fix is offered, and the text is left as it was.
#include <torch/torch.h>
#include <torch_tidy/compiled.h>
using torch::indexing::None;
using torch::indexing::Slice;

#define WRITE(t, v) t.index_put_({0}, v)

TORCH_TIDY_COMPILED at::Tensor no_fix(const at::Tensor &v, bool c) {
  auto m = torch::zeros({3, 3});
  WRITE(m, v);
  // CHECK-MESSAGES: :[[@LINE-1]]:9: warning: in-place index_put_ into 'm'
  // CHECK-MESSAGES: :[[@LINE-2]]:9: note: no fix: the write is inside a macro expansion
  // CHECK-FIXES: {{^}}  WRITE(m, v);{{$}}
  auto r = m.index_put_({1}, v) * 2;
  // CHECK-MESSAGES: :[[@LINE-1]]:12: warning: in-place index_put_ into 'm'
  // CHECK-MESSAGES: :[[@LINE-2]]:12: note: no fix: the in-place call's result is used as a value
  // CHECK-FIXES: {{^}}  auto r = m.index_put_({1}, v) * 2;{{$}}
  m.index_put_({Slice(), 0, None}, v * 2);
  // CHECK-MESSAGES: :[[@LINE-1]]:3: warning: in-place index_put_ into 'm'
  // CHECK-MESSAGES: :[[@LINE-2]]:3: note: no fix: the value is an expression the rewrite would evaluate twice; store it in a variable to get a fix
  return m + r;
}

// A const view read after the write cannot be bound again.
TORCH_TIDY_COMPILED at::Tensor named_view(const at::Tensor &v) {
  auto m = torch::zeros({3, 3});
  const auto row = m.select(0, 2);
  row.copy_(v);
  // CHECK-MESSAGES: :[[@LINE-1]]:3: warning: in-place copy_ into 'm'
  // CHECK-MESSAGES: :[[@LINE-2]]:3: note: no fix: 'row' is a view of 'm' read after the write, and const: it cannot be bound again to the rewritten 'm'
  // CHECK-FIXES: {{^}}  row.copy_(v);{{$}}
  return m + row;
}

// The view's chain reads 'i', which changes before the write: spelled at
// the write, the chain would name another row.
TORCH_TIDY_COMPILED at::Tensor view_index_changed(const at::Tensor &v,
                                                  int64_t i) {
  auto m = torch::zeros({3, 3});
  auto row = m.select(0, i);
  i = i + 1;
  row.copy_(v);
  // CHECK-MESSAGES: :[[@LINE-1]]:3: warning: in-place copy_ into 'm'
  // CHECK-MESSAGES: :[[@LINE-2]]:3: note: no fix: 'row' is a view of 'm' whose later use the rewrite would change
  // CHECK-FIXES: {{^}}  row.copy_(v);{{$}}
  return m * i;
}

// The write is the body of an if: a statement after it would run whatever
// the condition.
TORCH_TIDY_COMPILED at::Tensor view_written_under_if(const at::Tensor &v,
                                                     bool b) {
  auto m = torch::zeros({3, 3});
  auto first = m.select(0, 0);
  if (b)
    m.index_copy_(0, v, v);
  // CHECK-MESSAGES: :[[@LINE-1]]:5: warning: in-place index_copy_ into 'm'
  // CHECK-MESSAGES: :[[@LINE-2]]:5: note: no fix: 'first' is another view of 'm' and would not see the rewritten tensor
  return m + first;
}

TORCH_TIDY_COMPILED at::Tensor aliased(const at::Tensor &v) {
  auto m = torch::zeros({3, 3});
  at::Tensor &ref = m;
  m.index_copy_(0, v, v);
  // CHECK-MESSAGES: :[[@LINE-1]]:3: warning: in-place index_copy_ into 'm'
  // CHECK-MESSAGES: :[[@LINE-2]]:3: note: no fix: 'ref' is another view of 'm' and would not see the rewritten tensor
  return ref;
}

TORCH_TIDY_COMPILED at::Tensor into_view(const at::Tensor &v) {
  auto m = torch::zeros({3, 3});
  m.select(0, 1).index_copy_(0, v, v);
  // CHECK-MESSAGES: :[[@LINE-1]]:3: warning: in-place index_copy_ into 'm'
  // CHECK-MESSAGES: :[[@LINE-2]]:3: note: no fix: writes of this form into a view of 'm' are not rewritten
  return m;
}

static void helper(at::Tensor &out, const at::Tensor &v) {
  out.index_put_({0}, v);
}
TORCH_TIDY_COMPILED at::Tensor through_call(const at::Tensor &v) {
  auto m = torch::zeros({3, 3});
  helper(m, v);
  // CHECK-MESSAGES: :[[@LINE-1]]:3: warning: 'helper' writes in place (index_put_) into 'm'
  // CHECK-MESSAGES: :[[@LINE-2]]:3: note: no fix: the write is in 'helper'; rewrite it there to the out-of-place form
  return m;
}

TORCH_TIDY_COMPILED at::Tensor view_read_in_loop(const at::Tensor &v, int n) {
  auto m = torch::zeros({3, 3});
  auto first = m.select(0, 0);
  at::Tensor acc = v;
  for (int i = 0; i < n; ++i) {
    acc = acc + first; // read again in the next iteration, after the write
    m.index_copy_(0, v, v);
    // CHECK-MESSAGES: :[[@LINE-1]]:5: warning: in-place index_copy_ into 'm'
    // CHECK-MESSAGES: :[[@LINE-2]]:5: note: no fix: 'first' is another view of 'm' and would not see the rewritten tensor
  }
  return m + acc;
}

TORCH_TIDY_COMPILED at::Tensor view_taken_after(const at::Tensor &v) {
  auto m = torch::zeros({3, 3});
  m.index_copy_(0, v, v);
  // CHECK-MESSAGES: :[[@LINE-1]]:3: warning: in-place index_copy_ into 'm'
  // CHECK-MESSAGES: :[[@LINE-2]]:3: note: rule: index-copy
  // CHECK-FIXES: {{^}}  m = m.index_copy(0, v, v);{{$}}
  auto later = m.select(0, 0); // taken of the rewritten tensor
  return later;
}
