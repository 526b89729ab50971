// RUN: %check_torch_tidy %s torch-compile-requires-grad-propagation %t \
// RUN:   %fresh_in_kernels
// Every in-place write form listed in docs/design.md, into a fresh tensor, from a
// parameter that may require grad, inside a CompositeImplicitAutograd kernel.
#include <torch/torch.h>
using torch::indexing::Slice;
using torch::indexing::None;
using torch::indexing::Ellipsis;

at::Tensor forms(const at::Tensor &v, const at::Tensor &rows,
                 const at::Tensor &cols, const at::Tensor &mask,
                 const at::Tensor &idx) {
  auto m = torch::zeros({2, 3, 3});
  m.index_put_({Slice(), rows, cols}, v);
  // CHECK-MESSAGES: :[[@LINE-1]]:3: warning: in-place index_put_ into 'm', which was created without gradient tracking, from 'v', which may require grad: enabled by FreshTargetsInKernels: in Python this write loses requires_grad under torch.compile on torch 2.8.0, while in this C++ kernel the flag was measured right on torch 2.8.0 and 2.15.0; the out-of-place form keeps it everywhere [torch-compile-requires-grad-propagation]
  m.index_put_(c10::List<std::optional<at::Tensor>>({rows, cols}), v);
  // CHECK-MESSAGES: :[[@LINE-1]]:3: warning: in-place index_put_ into 'm'
  m.index({Slice(), 2}) = v;
  // CHECK-MESSAGES: :[[@LINE-1]]:3: warning: in-place index(...) assignment into 'm'
  m.index({Slice(1, None, 2), Ellipsis}) = v;
  // CHECK-MESSAGES: :[[@LINE-1]]:3: warning: in-place index(...) assignment into 'm'
  m[0] = v;
  // CHECK-MESSAGES: :[[@LINE-1]]:3: warning: in-place operator[] assignment into 'm'
  m[0][1] = v;
  // CHECK-MESSAGES: :[[@LINE-1]]:3: warning: in-place operator[] assignment into 'm'
  m.slice(1, 0, 2).copy_(v);
  // CHECK-MESSAGES: :[[@LINE-1]]:3: warning: in-place copy_ into 'm'
  m.narrow(2, 1, 1).copy_(v);
  // CHECK-MESSAGES: :[[@LINE-1]]:3: warning: in-place copy_ into 'm'
  m.select(0, 1).copy_(v);
  // CHECK-MESSAGES: :[[@LINE-1]]:3: warning: in-place copy_ into 'm'
  m.select(0, 1).narrow(0, 0, 2).copy_(v);
  // CHECK-MESSAGES: :[[@LINE-1]]:3: warning: in-place copy_ into 'm'
  m.transpose(1, 2).select(0, 0).copy_(v);
  // CHECK-MESSAGES: :[[@LINE-1]]:3: warning: in-place copy_ into 'm'
  m.slice(0, 0, 1) = v;
  // CHECK-MESSAGES: :[[@LINE-1]]:3: warning: in-place assignment into a view into 'm'
  m.index_copy_(0, idx, v);
  // CHECK-MESSAGES: :[[@LINE-1]]:3: warning: in-place index_copy_ into 'm'
  m.masked_scatter_(mask, v);
  // CHECK-MESSAGES: :[[@LINE-1]]:3: warning: in-place masked_scatter_ into 'm'
  m.scatter_(1, idx, v);
  // CHECK-MESSAGES: :[[@LINE-1]]:3: warning: in-place scatter_ into 'm'
  m.masked_fill_(mask, v.sum());
  // CHECK-MESSAGES: :[[@LINE-1]]:3: warning: in-place masked_fill_ into 'm', which was created without gradient tracking, from 'v.sum()'
  m.index_fill_(1, idx, v.sum());
  // CHECK-MESSAGES: :[[@LINE-1]]:3: warning: in-place index_fill_ into 'm'
  m.select(0, 0).fill_(v.sum());
  // CHECK-MESSAGES: :[[@LINE-1]]:3: warning: in-place fill_ into 'm'
  at::index_put_(m, {rows, cols}, v);
  // CHECK-MESSAGES: :[[@LINE-1]]:3: warning: in-place index_put_ into 'm'
  torch::index_put_(m, {rows, cols}, v);
  // CHECK-MESSAGES: :[[@LINE-1]]:3: warning: in-place index_put_ into 'm'
  at::Tensor s = m.select(0, 1);
  at::fill_(s, v.sum());
  // CHECK-MESSAGES: :[[@LINE-1]]:3: warning: in-place fill_ into 'm'
  return m;
}

at::Tensor aliases(const at::Tensor &v) {
  auto m = torch::zeros({4, 4});
  auto top = m.slice(0, 0, 2);
  top.copy_(v);
  // CHECK-MESSAGES: :[[@LINE-1]]:3: warning: in-place copy_ into 'm'
  auto row = top.select(0, 1);
  row.index_put_({0}, v);
  // CHECK-MESSAGES: :[[@LINE-1]]:3: warning: in-place index_put_ into 'm'
  at::Tensor &ref = m;
  ref.index_put_({1}, v);
  // CHECK-MESSAGES: :[[@LINE-1]]:3: warning: in-place index_put_ into 'm'
  return m;
}

at::Tensor scalars_and_whole(const at::Tensor &v) {
  auto m = torch::zeros({4, 4});
  m.index_put_({0}, 1.0);      // a Scalar cannot require grad
  m.index({1}) = 2.0;          // Scalar assignment
  m.masked_fill_(v > 0, 0.0);  // Scalar value
  m.index_fill_(0, v, 3.0);    // Scalar value
  m.scatter_(0, v, 1.0);       // Scalar value
  m.select(0, 2).fill_(1.0);   // Scalar value
  m.copy_(v);                  // the whole tensor: not a sliced write
  m.fill_(v.sum());            // the whole tensor
  auto r = m.index({v});       // a read
  auto s = m.select(0, 0);     // a view, not written
  return m + r + s;
}

TORCH_LIBRARY(tt, m) {
  m.def("forms(Tensor v, Tensor r, Tensor c, Tensor mask, Tensor idx) -> Tensor", &forms);
  m.def("aliases(Tensor v) -> Tensor", &aliases);
  m.def("scalars_and_whole(Tensor v) -> Tensor", &scalars_and_whole);
}
