// RUN: %check_torch_tidy %s torch-op-undeclared-mutation %t
// A second --fix-notes changes nothing and warns only where no fix exists:
// RUN: rm -rf %t.d && mkdir -p %t.d && cp %s %t.d/a.cpp
// RUN: %clang_tidy --load=%torch_tidy_module -checks='-*,torch-op-undeclared-mutation' --fix-notes %t.d/a.cpp -- -std=c++17 -isystem %mock_include
// RUN: cp %t.d/a.cpp %t.d/once.cpp
// RUN: %clang_tidy --load=%torch_tidy_module -checks='-*,torch-op-undeclared-mutation' --fix-notes %t.d/a.cpp -- -std=c++17 -isystem %mock_include > %t.d/second.out 2>&1
// RUN: diff %t.d/once.cpp %t.d/a.cpp
// RUN: grep -c "warning:" %t.d/second.out | grep -x 2
// The fixes: a free alias letter per mutated argument (or '!' in the
// annotation it has), the return left alone (a written alias return fails
// to compile under aot_eager and inductor, measured); returns of an
// argument get a copy; no fix where the schema cannot be edited.
#include <torch/torch.h>

#define SCHEMA_OF(name) #name "(Tensor m, Tensor v) -> Tensor"

namespace {
at::Tensor two_args(const at::Tensor &a, const at::Tensor &b,
                    const at::Tensor &c) {
  a.zero_();
  b.zero_();
  return c.sum();
}
at::Tensor write_return(const at::Tensor &m, const at::Tensor &v) {
  m.mul_(2);
  return m;
}
at::Tensor view_return(const at::Tensor &m, const at::Tensor &v) {
  return m.narrow(0, 1, 2);
}
at::Tensor cond_return(const at::Tensor &m, const at::Tensor &v) {
  return v.numel() > 0 ? m : v;
}
at::Tensor inferred(at::Tensor &m, const at::Tensor &v) {
  m.copy_(v);
  return v.sum();
}
at::Tensor from_macro(const at::Tensor &m, const at::Tensor &v) {
  m.copy_(v);
  return v.sum();
}
at::Tensor from_variable(const at::Tensor &m, const at::Tensor &v) {
  m.copy_(v);
  return v.sum();
}
} // namespace

TORCH_LIBRARY(fx, m) {
  m.def("two_args(Tensor(a) a, Tensor b, Tensor c) -> Tensor(a)");
  m.def("write_return(Tensor m, Tensor v) -> Tensor");
  m.def("view_return(Tensor m, Tensor v) -> Tensor");
  m.def("cond_return(Tensor m, Tensor v) -> Tensor");
  m.def("inferred", &inferred);
  m.def(SCHEMA_OF(from_macro));
  // Not a literal at the call: the schema is unknown here, so the check is
  // silent on from_variable.
  const char *schema = "from_variable(Tensor m, Tensor v) -> Tensor";
  m.def(schema);
}

TORCH_LIBRARY_IMPL(fx, CPU, m) {
  m.impl("two_args", &two_args);
  m.impl("write_return", &write_return);
  m.impl("view_return", &view_return);
  m.impl("cond_return", &cond_return);
  m.impl("inferred", &inferred);
  m.impl("from_macro", &from_macro);
  m.impl("from_variable", &from_variable);
}

// (The expectations are here, away from the code.) A schema fix sits on the
// note at the schema, not on the warning, whose snippet clang would label
// with the schema's line: --fix-notes applies it, clangd offers it.
// CHECK-MESSAGES: :20:3: warning: zero_ writes into argument 'a' of operator 'fx::two_args', which its schema does not declare mutable: {{.*}}; declare it 'Tensor(a!) a'
// CHECK-MESSAGES: :20:3: note: rule: schema-mark-mutable
// CHECK-MESSAGES: :21:3: warning: zero_ writes into argument 'b' of operator 'fx::two_args', {{.*}}; declare it 'Tensor(b!) b'
// CHECK-MESSAGES: :25:3: warning: mul_ writes into argument 'm' of operator 'fx::write_return'
// CHECK-MESSAGES: :26:10: warning: the kernel returns argument 'm' of operator 'fx::write_return', which the schema does not declare as aliasing its output: torch.library.opcheck fails test_schema, and torch.compile (aot_eager, inductor) on torch 2.15.0 warns that this will become an error (it raises where the environment sets CI); return a copy [torch-op-undeclared-mutation]
// CHECK-MESSAGES: :26:10: note: a copy, because keeping the alias ('Tensor(a) m -> Tensor(a)' and a view of 'm') fails opcheck's test_aot_dispatch_dynamic and torch.compile with aot_eager and inductor (torch 2.8.0 and 2.15.0): torch does not functionalize a custom operator whose output aliases an input
// CHECK-MESSAGES: :26:10: note: rule: return-clone
// CHECK-MESSAGES: :29:10: warning: the kernel returns a view of argument 'm' of operator 'fx::view_return'
// CHECK-MESSAGES: :32:10: warning: the kernel returns argument 'm' of operator 'fx::cond_return'
// CHECK-MESSAGES: :35:3: warning: copy_ writes into argument 'm' of operator 'fx::inferred'
// CHECK-MESSAGES: :35:3: note: no fix: the schema is inferred from the kernel's C++ signature (m.def(name, fn)), which never declares a mutation; define the operator with a schema string
// CHECK-MESSAGES: :39:3: warning: copy_ writes into argument 'm' of operator 'fx::from_macro'
// CHECK-MESSAGES: :39:3: note: no fix: the schema literal comes from a macro expansion
// CHECK-FIXES: m.mul_(2);
// CHECK-FIXES-NEXT: return m.clone();
// CHECK-FIXES: return m.narrow(0, 1, 2).clone();
// CHECK-FIXES: return (v.numel() > 0 ? m : v).clone();
// CHECK-FIXES: m.def("two_args(Tensor(a!) a, Tensor(b!) b, Tensor c) -> Tensor(a)");
// CHECK-FIXES: m.def("write_return(Tensor(a!) m, Tensor v) -> Tensor");
// CHECK-FIXES: m.def("view_return(Tensor m, Tensor v) -> Tensor");
// CHECK-FIXES: m.def(SCHEMA_OF(from_macro));
