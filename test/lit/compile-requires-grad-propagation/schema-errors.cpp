// RUN: %check_torch_tidy %s torch-compile-requires-grad-propagation %t
// A schema string that does not parse is reported where it goes wrong, and
// its operator's kernels are not checked; nothing crashes.
#include <torch/torch.h>

void k(at::Tensor &m, const at::Tensor &v) { m.copy_(v); }

TORCH_LIBRARY(tt, m) {
  m.def("unclosed(Tensor(a! m, Tensor v) -> ()", &k);
  // CHECK-MESSAGES: :[[@LINE-1]]:29: warning: cannot parse the operator schema: expected ')' to close the alias annotation, found 'm'; torch-tidy does not check this operator's kernels [torch-compile-requires-grad-propagation]
  m.def("no_arrow(Tensor(a!) m, Tensor v)", &k);
  // CHECK-MESSAGES: :[[@LINE-1]]:42: warning: cannot parse the operator schema: expected '->' after the arguments
  m.def("" "split(Tensor(a!) m, "
        "Tensor) -> ()", &k);
  // CHECK-MESSAGES: :[[@LINE-1]]:16: warning: cannot parse the operator schema: expected an argument name after the type 'Tensor', found ')'
  m.def("", &k);
  // CHECK-MESSAGES: :[[@LINE-1]]:10: warning: cannot parse the operator schema: expected an operator name, found the end of the schema
  m.impl("bad name", &k);
  // CHECK-MESSAGES: :[[@LINE-1]]:15: warning: cannot parse the operator schema: unexpected 'n' after the operator name
}
