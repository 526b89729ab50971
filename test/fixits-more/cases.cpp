// Compile-and-run cases of torch-index-assign-to-copy and
// torch-inplace-on-grad-leaf. run_fixits_more.py copies this file, lets
// torch-tidy --fix it, and compiles the original and the fixed copy side by
// side (namespace TT_NS is `original` or `fixed`) against real LibTorch;
// harness.cpp requires the original to misbehave (lose the write, or throw)
// and the fixed copy to do what the code meant.
//
// Every line that must be flagged ends with `// expect: <check>`; each
// must also be fixed (its text changes).
#include <torch/torch.h>

#ifndef TT_NS
#define TT_NS original
#endif

namespace TT_NS {
using torch::indexing::Ellipsis;
using torch::indexing::Slice;

// torch-index-assign-to-copy: each writes into `t` (a handle: the caller
// sees changes to its data).
void assign_rows_cols(at::Tensor t, const at::Tensor &rows,
                      const at::Tensor &cols, const at::Tensor &v) {
  t.index({Slice(), rows, cols}) = v; // expect: torch-index-assign-to-copy
}
void assign_mask_scalar(at::Tensor t, const at::Tensor &mask) {
  t.index({mask}) = 0; // expect: torch-index-assign-to-copy
}
void copy_mask(at::Tensor t, const at::Tensor &mask, const at::Tensor &v) {
  t.index({mask}).copy_(v); // expect: torch-index-assign-to-copy
}
void zero_idx(at::Tensor t, const at::Tensor &idx) {
  t.index({idx}).zero_(); // expect: torch-index-assign-to-copy
}
void fill_idx(at::Tensor t, const at::Tensor &idx) {
  t.index({idx}).fill_(2.5); // expect: torch-index-assign-to-copy
}
// A value of another dtype: copy_ casts it, so the fix casts it too
// (index_put_ requires equal dtypes).
void copy_idx_other_dtype(at::Tensor t, const at::Tensor &idx,
                          const at::Tensor &v) {
  t.index({idx}).copy_(v); // expect: torch-index-assign-to-copy
}
void assign_last_dim(at::Tensor t, const at::Tensor &idx, const at::Tensor &v) {
  t.index({Ellipsis, idx}) = v; // expect: torch-index-assign-to-copy
}

// torch-inplace-on-grad-leaf: each initialises a leaf that requires grad.
at::Tensor leaf_fill() {
  auto w = torch::zeros({3}, torch::requires_grad());
  w.fill_(1.5); // expect: torch-inplace-on-grad-leaf
  return w;
}
at::Tensor leaf_copy(const at::Tensor &src) {
  auto w = torch::empty({2, 3}, at::TensorOptions().requires_grad(true));
  w.copy_(src); // expect: torch-inplace-on-grad-leaf
  return w;
}
at::Tensor leaf_setitem_after_requires_grad(double x) {
  at::Tensor w = at::zeros({4});
  w.requires_grad_();
  w[1] = x; // expect: torch-inplace-on-grad-leaf
  return w;
}
at::Tensor leaf_two_writes() {
  auto w = torch::ones({3}, torch::requires_grad(true));
  w.mul_(2); // expect: torch-inplace-on-grad-leaf
  w.add_(1); // expect: torch-inplace-on-grad-leaf
  return w;
}
at::Tensor leaf_slice_copy(const at::Tensor &src) {
  auto w = torch::zeros({3, 3}, torch::requires_grad());
  w.slice(0, 0, 2).copy_(src); // expect: torch-inplace-on-grad-leaf
  return w;
}
} // namespace TT_NS
