// A warning's source snippet is its own line, labelled with its number; a
// fix-it on another line (the schema's annotation, far above the write)
// shows at that line, in the note there. Were the fix on the warning, clang
// would print the write's line under the schema's number.
// REQUIRES: torch-tidy-binary
// RUN: %torch_tidy_binary -checks='-*,torch-op-undeclared-mutation' %s -- -std=c++17 -isystem %mock_include 2>&1 \
// RUN:   | FileCheck %s --strict-whitespace --match-full-lines
#include <torch/torch.h>

TORCH_LIBRARY(snip, m) { m.def("scale(Tensor x) -> Tensor"); }

// CHECK:{{.*}}snippet-line.cpp:[[#WRITE:@LINE+15]]:3: warning: mul_ writes into argument 'x' of operator 'snip::scale'{{.*}}
// CHECK-NEXT:   [[#WRITE]] |   x.mul_(2);
// CHECK-NEXT:      |   ^~~~~~~~~
// CHECK-NEXT:{{.*}}snippet-line.cpp:10:39: note: 'x' is declared here without an alias annotation; the fix declares it 'Tensor(a!) x'
// CHECK-NEXT:   10 | TORCH_LIBRARY(snip, m) { m.def("scale(Tensor x) -> Tensor"); }
// CHECK-NEXT:      |                                       ^
// CHECK-NEXT:      |                                             (a!)
//
// A fix on the warning's own line stays on the warning.
// CHECK:{{.*}}snippet-line.cpp:[[#RET:@LINE+7]]:10: warning: the kernel returns argument 'x' of operator 'snip::scale'{{.*}}
// CHECK-NEXT:   [[#RET]] |   return x;
// CHECK-NEXT:      |          ^
// CHECK-NEXT:      |           .clone()

at::Tensor scale_cpu(const at::Tensor &x) {
  x.mul_(2);
  return x;
}

TORCH_LIBRARY_IMPL(snip, CPU, m) { m.impl("scale", &scale_cpu); }
