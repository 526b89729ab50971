// RUN: %check_torch_tidy %s torch-compile-requires-grad-propagation %t
// Registrations the operator model cannot fully read: no crash, nothing
// reported where it cannot be sure, and the sure cases still reported.
#include <torch/torch.h>

#include <string>

void two_params(at::Tensor &m, const at::Tensor &v) { m.copy_(v); }
// CHECK-MESSAGES: :[[@LINE-1]]:55: warning: in-place copy_ into mutable argument 'm' of operator 'odd::from_helper'

void three_params(at::Tensor &m, const at::Tensor &v, int64_t k) {
  m.copy_(v);
}
// A generic lambda, a template kernel and a kernel declared elsewhere.
template <typename T> void templated(at::Tensor &m, const at::Tensor &v) {
  m.copy_(v);
  // CHECK-MESSAGES: :[[@LINE-1]]:3: warning: in-place copy_ into mutable argument 'm' of operator 'odd::templated'
}
void declared_only(at::Tensor &m, const at::Tensor &v);

std::string schema_of(const char *name) {
  return std::string(name) + "(Tensor(a!) m, Tensor v) -> ()";
}

static void recursive_helper(torch::Library &m, int depth) {
  if (depth > 0)
    recursive_helper(m, depth - 1); // a helper that calls itself
  m.def("from_helper(Tensor(a!) m, Tensor v) -> ()", &two_params);
}

TORCH_LIBRARY(odd, m) {
  // The kernel's parameters do not line up with the schema: not checked.
  m.def("mismatch(Tensor(a!) m, Tensor v) -> ()", &three_params);
  // A schema built at run time: not a literal, not checked.
  m.def(schema_of("runtime_schema").c_str(), &two_params);
  recursive_helper(m, 2);
  m.def("generic(Tensor(a!) m, Tensor v) -> ()",
        [](auto &m, const auto &v) { m.copy_(v); });
  m.def("templated(Tensor(a!) m, Tensor v) -> ()", &templated<float>);
  m.def("declared(Tensor(a!) m, Tensor v) -> ()", &declared_only);
  m.def("varargs(Tensor(a!) m, ...) -> ()", &two_params);
  m.impl("never_defined", &two_params);
}
TORCH_LIBRARY_IMPL(odd, CPU, m) {
  m.impl("mismatch", &three_params);
}
