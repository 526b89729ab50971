// RUN: %check_torch_tidy %s torch-compile-requires-grad-propagation %t
// RUN: %clang_tidy --load=%torch_tidy_module \
// RUN:   -checks='-*,torch-compile-requires-grad-propagation' \
// RUN:   --warnings-as-errors='*' %s -- -std=c++17 -isystem %mock_include \
// RUN:   -I %S/../../../include
// A schema string that does not parse is reported where it goes wrong, as a
// remark (torch-tidy's reading may be the one at fault: a remark never fails
// a build under --warnings-as-errors, the second RUN), and its operator's
// kernels are not checked; nothing crashes.
#include <torch/torch.h>

void k(at::Tensor &m, const at::Tensor &v) { m.copy_(v); }

TORCH_LIBRARY(tt, m) {
  m.def("unclosed(Tensor(a! m, Tensor v) -> ()", &k);
  // CHECK-MESSAGES: :[[@LINE-1]]:29: remark: cannot parse the operator schema: expected ')' to close the alias annotation, found 'm'; torch-tidy does not check this operator's kernels [torch-compile-requires-grad-propagation]
  m.def("no_arrow(Tensor(a!) m, Tensor v)", &k);
  // CHECK-MESSAGES: :[[@LINE-1]]:42: remark: cannot parse the operator schema: expected '->' after the arguments
  m.def("" "split(Tensor(a!) m, "
        "Tensor) -> ()", &k);
  // CHECK-MESSAGES: :[[@LINE-1]]:16: remark: cannot parse the operator schema: expected an argument name after the type 'Tensor', found ')'
  m.def("", &k);
  // CHECK-MESSAGES: :[[@LINE-1]]:10: remark: cannot parse the operator schema: expected an operator name, found the end of the schema
  m.impl("bad name", &k);
  // CHECK-MESSAGES: :[[@LINE-1]]:15: remark: cannot parse the operator schema: unexpected 'n' after the operator name
  // Schemas torch accepts are read, whatever their types (pyg-lib's tuple
  // lists, class types, escaped string defaults): no remark.
  m.def("hetero(Tensor x, (str, str, str)[] edge_types) -> Tensor");
  m.def("stream(__torch__.torch.classes.cuda.Stream s, str q=\"\\\"\") -> ()");
  // CHECK-MESSAGES-NOT: cannot parse
}
