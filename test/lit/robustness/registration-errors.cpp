// RUN: %check_torch_tidy %s torch-compile-requires-grad-propagation %t
// Registrations in a file with compile errors (an undeclared kernel or name,
// a broken kernel body): no crash; a kernel whose body parsed is checked.
#include <torch/torch.h>

void fine(at::Tensor &m, const at::Tensor &v) { m.copy_(v); }
// CHECK-MESSAGES: :[[@LINE-1]]:49: warning: in-place copy_ into mutable argument 'm' of operator 'errs::fine'
void broken(at::Tensor &m, const at::Tensor &v) {
  m.copy_(v.no_such_method());
  // CHECK-MESSAGES: :[[@LINE-1]]:13: error: no member named 'no_such_method'
}
template <typename T> void never_instantiated(at::Tensor &m, T v) {
  m.copy_(v);
}

TORCH_LIBRARY(errs, m) {
  m.def("fine(Tensor(a!) m, Tensor v) -> ()", &fine);
  m.def("broken(Tensor(a!) m, Tensor v) -> ()", &broken);
  m.def("missing(Tensor(a!) m, Tensor v) -> ()", &no_such_kernel);
  // CHECK-MESSAGES: :[[@LINE-1]]:51: error: use of undeclared identifier 'no_such_kernel'
  m.def("tpl(Tensor(a!) m, Tensor v) -> ()", &never_instantiated<at::Tensor>);
  m.impl(undeclared_name, &fine);
  // CHECK-MESSAGES: :[[@LINE-1]]:10: error: use of undeclared identifier 'undeclared_name'
  m.def("unterminated(Tensor(a! m) -> ()", &fine);
  // CHECK-MESSAGES: :[[@LINE-1]]:33: remark: cannot parse the operator schema
  m.def("fine2(Tensor(a!) m, Tensor v) -> ()", fine
  // CHECK-MESSAGES: :[[@LINE+1]]:1: error: expected ')'
}
