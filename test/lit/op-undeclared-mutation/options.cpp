// Options round-trip through --dump-config; a value that is not a bool is
// reported and the default is used.
// RUN: %clang_tidy --load=%torch_tidy_module -checks='-*,torch-op-undeclared-mutation' \
// RUN:   --config="{CheckOptions: {torch-op-undeclared-mutation.CompositeKernels: true, torch-op-undeclared-mutation.Aliasing: false}}" \
// RUN:   --dump-config %s -- | FileCheck %s --check-prefix=DUMP
// DUMP-DAG: torch-op-undeclared-mutation.CompositeKernels: 'true'
// DUMP-DAG: torch-op-undeclared-mutation.Aliasing: 'false'
// RUN: %clang_tidy --load=%torch_tidy_module -checks='-*,torch-op-undeclared-mutation' --dump-config %s -- \
// RUN:   | FileCheck %s --check-prefix=DEFAULT
// DEFAULT-DAG: torch-op-undeclared-mutation.CompositeKernels: 'false'
// DEFAULT-DAG: torch-op-undeclared-mutation.Aliasing: 'true'
// RUN: %clang_tidy --load=%torch_tidy_module -checks='-*,torch-op-undeclared-mutation' \
// RUN:   --config="{CheckOptions: {torch-op-undeclared-mutation.Aliasing: maybe}}" \
// RUN:   %s -- -std=c++17 -isystem %mock_include 2>&1 | FileCheck %s --check-prefix=BAD
// BAD: invalid configuration value 'maybe' for option 'Aliasing'; expected a bool (true or false); using 'true'
// BAD: warning: the kernel returns argument 'm' of operator 'op::ret'
// Aliasing: false silences the return rule, not the write rule:
// RUN: %clang_tidy --load=%torch_tidy_module -checks='-*,torch-op-undeclared-mutation' \
// RUN:   --config="{CheckOptions: {torch-op-undeclared-mutation.Aliasing: false}}" \
// RUN:   %s -- -std=c++17 -isystem %mock_include 2>&1 | FileCheck %s --check-prefix=NOALIAS --implicit-check-not='returns argument'
// NOALIAS: warning: zero_ writes into argument 'm' of operator 'op::write'
// ProjectRoot: 'auto' by default (lit sets TORCH_TIDY_PROJECT_ROOT=none for
// its other tests; without it the default shows), the environment's value
// where the configuration names none.
// RUN: env -u TORCH_TIDY_PROJECT_ROOT %clang_tidy --load=%torch_tidy_module -checks='-*,torch-op-undeclared-mutation' \
// RUN:   --dump-config %s -- | FileCheck %s --check-prefix=ROOT-AUTO
// ROOT-AUTO: torch-op-undeclared-mutation.ProjectRoot: auto
// RUN: env TORCH_TIDY_PROJECT_ROOT=none %clang_tidy --load=%torch_tidy_module -checks='-*,torch-op-undeclared-mutation' \
// RUN:   --dump-config %s -- | FileCheck %s --check-prefix=ROOT-ENV
// ROOT-ENV: torch-op-undeclared-mutation.ProjectRoot: none
#include <torch/torch.h>

at::Tensor ret(const at::Tensor &m, const at::Tensor &v) { return m; }
at::Tensor write(const at::Tensor &m, const at::Tensor &v) {
  m.zero_();
  return v.sum();
}
TORCH_LIBRARY(op, m) {
  m.def("ret(Tensor m, Tensor v) -> Tensor");
  m.def("write(Tensor m, Tensor v) -> Tensor");
}
TORCH_LIBRARY_IMPL(op, CPU, m) {
  m.impl("ret", &ret);
  m.impl("write", &write);
}
