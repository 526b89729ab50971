// RUN: %check_torch_tidy %s torch-op-undeclared-mutation %t
// In-place writes of an argument's metadata (sizes, strides, storage):
// opcheck's test_schema rejects resize_, set_, set_data, unsqueeze_,
// transpose_, t_, swapdims_ and as_strided_ on an argument not declared
// mutable wherever the metadata changes, and passes once it is declared
// (measured on torch 2.8.0 and 2.15.0); detach_ and requires_grad_ (autograd
// metadata) pass. Reported on the argument itself. No declaration fix: what
// torch.compile does with a declared metadata mutation is not measured; the
// fix that stops the write (stop-writing.cpp) needs an out-of-place form
// and a by-value handle. A view's metadata is the view's own.
#include <torch/torch.h>

void resize_op(const at::Tensor &m, const at::Tensor &v) { m.resize_({2, 3}); }
// CHECK-MESSAGES: :[[@LINE-1]]:60: warning: resize_ (a write of its sizes, strides or storage) writes into argument 'm' of operator 'md::resize_op', which its schema does not declare mutable: {{.*}}; stop writing it, or declare it 'Tensor(a!) m' [torch-op-undeclared-mutation]
// CHECK-MESSAGES: :[[@LINE-2]]:60: note: no fix: a write of the argument's metadata: declaring it 'Tensor(a!)' makes opcheck's test_schema pass (measured), but what torch.compile does with a declared metadata mutation of an operator's input is not measured; stopping the write: 'resize_' has no out-of-place form to rebind to

void set_data_op(const at::Tensor &m, const at::Tensor &v) { m.set_data(v); }
// CHECK-MESSAGES: :[[@LINE-1]]:62: warning: set_data (a write of its sizes, strides or storage) writes into argument 'm'

void strided_op(const at::Tensor &m, const at::Tensor &v) {
  m.as_strided_({3, 4}, {1, 3});
  // CHECK-MESSAGES: :[[@LINE-1]]:3: warning: as_strided_ (a write of its sizes, strides or storage) writes into argument 'm'
}

// A copy of the argument's handle is the same tensor: its metadata is the
// argument's.
void copied_op(const at::Tensor &m, const at::Tensor &v) {
  at::Tensor t = m;
  t.unsqueeze_(0);
  // CHECK-MESSAGES: :[[@LINE-1]]:3: warning: unsqueeze_ (a write of its sizes, strides or storage) writes into argument 'm'
  auto view = m.view({-1});
  view.resize_({1});
}

// Not reported: a view's metadata, autograd metadata.
void view_op(const at::Tensor &m, const at::Tensor &v) {
  m.narrow(0, 0, 2).unsqueeze_(0);
  m.detach_();
  m.requires_grad_(false);
}

TORCH_LIBRARY(md, m) {
  m.def("resize_op(Tensor m, Tensor v) -> ()");
  m.def("set_data_op(Tensor m, Tensor v) -> ()");
  m.def("strided_op(Tensor m, Tensor v) -> ()");
  m.def("copied_op(Tensor m, Tensor v) -> ()");
  m.def("view_op(Tensor m, Tensor v) -> ()");
}
// CHECK-MESSAGES: :[[@LINE-2]]:9: warning: operator 'md::view_op' returns nothing and its schema declares no argument mutable

TORCH_LIBRARY_IMPL(md, CPU, m) {
  m.impl("resize_op", &resize_op);
  m.impl("copied_op", &copied_op);
  m.impl("set_data_op", &set_data_op);
  m.impl("strided_op", &strided_op);
  m.impl("view_op", &view_op);
}
