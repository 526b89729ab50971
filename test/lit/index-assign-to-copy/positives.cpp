// RUN: %check_torch_tidy %s torch-index-assign-to-copy %t
// In-place writes into the copy that advanced indexing returns.
#include <torch/torch.h>
using torch::indexing::Ellipsis;
using torch::indexing::None;
using torch::indexing::Slice;

void forms(at::Tensor t, const at::Tensor &v, const at::Tensor &rows,
           const at::Tensor &cols, const at::Tensor &mask,
           const at::Tensor &idx) {
  t.index({Slice(), rows, cols}) = v;
  // CHECK-MESSAGES: :[[@LINE-1]]:3: warning: assignment into the result of advanced indexing of 't' is lost: index() with a tensor or mask index returns a new tensor, not a view, so 't' is left unchanged; use index_put_ [torch-index-assign-to-copy]
  // CHECK-MESSAGES: :[[@LINE-2]]:3: note: rule: index-put-into-copy
  // CHECK-FIXES: t.index_put_({Slice(), rows, cols}, v.to(t.options()));
  t.index({mask}) = 0;
  // CHECK-MESSAGES: :[[@LINE-1]]:3: warning: assignment into the result of advanced indexing of 't'
  // CHECK-FIXES: t.index_put_({mask}, 0);
  t.index({mask}).copy_(v);
  // CHECK-MESSAGES: :[[@LINE-1]]:3: warning: copy_ into the result of advanced indexing of 't'
  // CHECK-FIXES: t.index_put_({mask}, v.to(t.options()));
  t.index({idx}).zero_();
  // CHECK-MESSAGES: :[[@LINE-1]]:3: warning: zero_ into the result of advanced indexing of 't'
  // CHECK-FIXES: t.index_put_({idx}, 0);
  t.index({idx}).fill_(2.5);
  // CHECK-MESSAGES: :[[@LINE-1]]:3: warning: fill_ into the result of advanced indexing of 't'
  // CHECK-FIXES: t.index_put_({idx}, 2.5);
  t.index({idx}).fill_(v);
  // CHECK-MESSAGES: :[[@LINE-1]]:3: warning: fill_ into the result of advanced indexing of 't'
  // CHECK-FIXES: t.index_put_({idx}, v.to(t.options()));
  t.index({Ellipsis, idx}) = v;
  // CHECK-MESSAGES: :[[@LINE-1]]:3: warning: assignment into the result of advanced indexing of 't'
  // CHECK-FIXES: t.index_put_({Ellipsis, idx}, v.to(t.options()));
  t.index({None, idx, 1}) = v;
  // CHECK-MESSAGES: :[[@LINE-1]]:3: warning: assignment into the result of advanced indexing of 't'
  // CHECK-FIXES: t.index_put_({None, idx, 1}, v.to(t.options()));
  t.index({Slice(0, 2), rows > 0}) = v;
  // CHECK-MESSAGES: :[[@LINE-1]]:3: warning: assignment into the result of advanced indexing of 't'
  // CHECK-FIXES: t.index_put_({Slice(0, 2), rows > 0}, v.to(t.options()));
  t.index({idx}).add_(1);
  // CHECK-MESSAGES: :[[@LINE-1]]:3: warning: add_ into the result of advanced indexing of 't'
  // CHECK-MESSAGES: :[[@LINE-2]]:3: note: no fix: 'add_' has no exact index_put_ form (index_put_ with accumulate=true differs from add_ when indices repeat); write the new values with index_put_ by hand
  // CHECK-FIXES: t.index({idx}).add_(1);
  t.index({idx}).mul_(v);
  // CHECK-MESSAGES: :[[@LINE-1]]:3: warning: mul_ into the result of advanced indexing of 't'
  t.index({mask}).uniform_();
  // CHECK-MESSAGES: :[[@LINE-1]]:3: warning: uniform_ into the result of advanced indexing of 't'
  t.index({idx}) += 1;
  // CHECK-MESSAGES: :[[@LINE-1]]:3: warning: compound assignment into the result of advanced indexing of 't'
  // CHECK-MESSAGES: :[[@LINE-2]]:3: note: no fix: a compound assignment on the copy
  t.index({idx}).masked_fill_(mask, 1);
  // CHECK-MESSAGES: :[[@LINE-1]]:3: warning: masked_fill_ into the result of advanced indexing of 't'
  t.index(c10::List<std::optional<at::Tensor>>({rows, cols})) = v;
  // CHECK-MESSAGES: :[[@LINE-1]]:3: warning: assignment into the result of advanced indexing of 't'
  // CHECK-MESSAGES: :[[@LINE-2]]:3: note: no fix: the index list is not a braced list
  t.index({idx}).index({Slice()}) = v;
  // CHECK-MESSAGES: :[[@LINE-1]]:3: warning: assignment into the result of advanced indexing of 't'
  // CHECK-MESSAGES: :[[@LINE-2]]:3: note: no fix: the write goes through a view of the copy
  t.index({idx}).select(0, 1).zero_();
  // CHECK-MESSAGES: :[[@LINE-1]]:3: warning: zero_ into the result of advanced indexing of 't'
  // CHECK-MESSAGES: :[[@LINE-2]]:3: note: no fix: the write goes through a view of the copy
}

at::Tensor value_used(at::Tensor t, const at::Tensor &idx, const at::Tensor &v) {
  return t.index({idx}) = v;
  // CHECK-MESSAGES: :[[@LINE-1]]:10: warning: assignment into the result of advanced indexing of 't'
  // CHECK-MESSAGES: :[[@LINE-2]]:10: note: no fix: the write's value is used
}

void const_base(const at::Tensor &t, const at::Tensor &idx) {
  t.index({idx}).zero_();
  // CHECK-MESSAGES: :[[@LINE-1]]:3: warning: zero_ into the result of advanced indexing of 't'
  // CHECK-MESSAGES: :[[@LINE-2]]:3: note: no fix: 't' is const, and index_put_ with a TensorIndex list needs a non-const tensor
  // CHECK-FIXES: t.index({idx}).zero_();
}

at::Tensor make();
void temporary_base(const at::Tensor &idx, const at::Tensor &v) {
  make().index({idx}).copy_(v);
  // CHECK-MESSAGES: :[[@LINE-1]]:3: warning: copy_ into the result of advanced indexing of 'make()'
  // CHECK-MESSAGES: :[[@LINE-2]]:3: note: no fix: the indexed tensor is not a named variable
}

#define ZERO_AT(t, i) t.index({i}).zero_()
void in_macro(at::Tensor t, const at::Tensor &idx) {
  ZERO_AT(t, idx);
  // CHECK-MESSAGES: :[[@LINE-1]]:3: warning: zero_ into the result of advanced indexing of 't'
  // CHECK-MESSAGES: :[[@LINE-2]]:3: note: no fix: the write is in a macro
}

// Eager code too: no compiled region is needed.
struct Model {
  at::Tensor weight;
  void reset(const at::Tensor &rows) {
    at::Tensor w = weight;
    w.index({rows}).zero_();
    // CHECK-MESSAGES: :[[@LINE-1]]:5: warning: zero_ into the result of advanced indexing of 'w'
    // CHECK-FIXES: w.index_put_({rows}, 0);
  }
};

template <typename T> void in_template(at::Tensor t, const at::Tensor &idx) {
  t.index({idx}).zero_();
  // CHECK-MESSAGES: :[[@LINE-1]]:3: warning: zero_ into the result of advanced indexing of 't'
  // CHECK-FIXES: t.index_put_({idx}, 0);
}
template void in_template<int>(at::Tensor, const at::Tensor &);
template void in_template<float>(at::Tensor, const at::Tensor &);
