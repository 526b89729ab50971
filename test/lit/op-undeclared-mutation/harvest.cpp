// What a file registers as the compiler sees it ($TORCH_TIDY_HARVEST,
// issue 58 item 1), for torch-tidy-project to compare with the project
// index: macros expanded (twice's CPU kernel is registered through a macro
// of another file, which the index does not expand), with the file's own
// flags (the CUDA block is compiled only with -DWITH_CUDA=1), each at the
// line of the call as written. Appended once per translation unit (one
// line each), whichever of the checks that build the operator model runs.
// RUN: rm -rf %t && mkdir -p %t/csrc && cp %S/Inputs/harvest-project/setup.py %t/
// RUN: cp %S/Inputs/harvest-project/csrc/*.h %t/csrc/ && cp %s %t/csrc/ops.cpp
// RUN: env TORCH_TIDY_HARVEST=%t/cpu.json TORCH_TIDY_CACHE=%t/cache \
// RUN:   %clang_tidy --load=%torch_tidy_module -checks='-*,torch-op-undeclared-mutation,torch-write-into-copy' \
// RUN:   %t/csrc/ops.cpp -- -std=c++17 -isystem %mock_include
// RUN: FileCheck %s --check-prefix=CPU < %t/cpu.json
// RUN: env TORCH_TIDY_HARVEST=%t/cuda.json TORCH_TIDY_CACHE=%t/cache \
// RUN:   %clang_tidy --load=%torch_tidy_module -checks='-*,torch-compile-requires-grad-propagation' \
// RUN:   %t/csrc/ops.cpp -- -std=c++17 -isystem %mock_include -DWITH_CUDA=1
// RUN: FileCheck %s --check-prefix=CUDA < %t/cuda.json
// One run over two files: a line for each, in the order linted.
// RUN: cp %S/Inputs/harvest-project/csrc/more.cpp %t/csrc/
// RUN: env TORCH_TIDY_HARVEST=%t/two.json TORCH_TIDY_CACHE=%t/cache \
// RUN:   %clang_tidy --load=%torch_tidy_module -checks='-*,torch-op-undeclared-mutation,torch-write-into-copy' \
// RUN:   %t/csrc/ops.cpp %t/csrc/more.cpp -- -std=c++17 -isystem %mock_include
// RUN: FileCheck %s --check-prefix=TWO < %t/two.json
// Without the variable nothing is written.
// RUN: %clang_tidy --load=%torch_tidy_module -checks='-*,torch-op-undeclared-mutation' \
// RUN:   %t/csrc/ops.cpp -- -std=c++17 -isystem %mock_include
// RUN: ls %t | FileCheck %s --check-prefix=FILES --implicit-check-not=.json

#include <torch/library.h>

#include "reg.h"

at::Tensor twice_cpu(const at::Tensor &x) { return x * 2; }
at::Tensor halve(const at::Tensor &x);

TORCH_LIBRARY(hv, m) {
  m.def("twice(Tensor x) -> Tensor");
  m.def("halve.out(Tensor x, *, Tensor(a!) out) -> Tensor(a!)");
}
TORCH_LIBRARY_IMPL(hv, CPU, m) {
  IMPL_TWICE;
  m.impl("halve.out", &halve);
}
#if WITH_CUDA
TORCH_LIBRARY_IMPL(hv, CUDA, m) { m.impl("twice", &twice_cpu); }
#endif

// CPU: {"file":"{{.*}}/csrc/ops.cpp","registrations":[
// CPU-SAME: {"file":"{{.*}}/csrc/ops.cpp","inferred":false,"kind":"schema","line":37,"operator":"hv::twice"}
// CPU-SAME: {"defined":true,"file":"{{.*}}/csrc/ops.cpp","function":"twice_cpu","key":"CPU","kind":"kernel","line":41,"operator":"hv::twice"}
// CPU-SAME: {"file":"{{.*}}/csrc/ops.cpp","inferred":false,"kind":"schema","line":38,"operator":"hv::halve.out"}
// CPU-SAME: {"defined":false,"file":"{{.*}}/csrc/ops.cpp","function":"halve","key":"CPU","kind":"kernel","line":42,"operator":"hv::halve"}
// CPU-NOT: CUDA

// CUDA: "key":"CPU","kind":"kernel","line":41,"operator":"hv::twice"
// CUDA: "key":"CUDA","kind":"kernel","line":45,"operator":"hv::twice"

// FILES: cpu.json
// FILES: cuda.json
// FILES: two.json

// TWO: {"file":"{{.*}}/csrc/ops.cpp","registrations":[{{.*}}"operator":"hv::twice"
// TWO-NEXT: {"file":"{{.*}}/csrc/more.cpp","registrations":[{{.*}}"operator":"hv::thrice"
// TWO-NOT: {"file"
