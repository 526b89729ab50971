// Findings that survive a missing header. A schema file that does not parse
// at all (torch's headers and a generated one missing) still gets the
// warnings that need no parse, from the project index: `-> ()` schemas that
// declare nothing mutable, with the class their kernels and fakes give. A
// kernel file with one missing header is parsed past it (fatal errors as
// errors) and its write is reported, saying the file parsed in part.
//
// RUN: rm -rf %t && mkdir -p %t
// RUN: not env TORCH_TIDY_PROJECT_ROOT=auto TORCH_TIDY_CACHE=%t/cache %clang_tidy --load=%torch_tidy_module \
// RUN:   -checks='-*,torch-op-undeclared-mutation' \
// RUN:   %S/Inputs/partial-project/csrc/ops.cpp -- -std=c++17 -nostdinc \
// RUN:   > %t/ops.out 2>&1
// RUN: FileCheck %s --check-prefix=OPS --implicit-check-not=warning: < %t/ops.out
// RUN: not env TORCH_TIDY_PROJECT_ROOT=auto TORCH_TIDY_CACHE=%t/cache %clang_tidy --load=%torch_tidy_module \
// RUN:   -checks='-*,torch-op-undeclared-mutation' \
// RUN:   %S/Inputs/partial-project/csrc/kernels.cpp -- -std=c++17 -isystem %mock_include \
// RUN:   > %t/kernels.out 2>&1
// RUN: FileCheck %s --check-prefix=KERNELS --implicit-check-not=warning: < %t/kernels.out
// Without the project index nothing is known of the unparsed schemas.
// RUN: not %clang_tidy --load=%torch_tidy_module -checks='-*,torch-op-undeclared-mutation' \
// RUN:   %S/Inputs/partial-project/csrc/ops.cpp -- -std=c++17 -nostdinc > %t/none.out 2>&1
// RUN: not grep "warning:" %t/none.out
//
// OPS: ops.cpp:3:10: error: 'torch/library.h' file not found
// OPS: ops.cpp:7:9: warning: operator 'partial::silent_void' returns nothing and its schema declares no argument mutable: its calls vanish under torch.compile (silent): {{.*}}; this file parsed only in part ('torch/library.h', 'registration.h' were not found) [torch-op-undeclared-mutation]
// OPS-NEXT: m.def("silent_void(Tensor out, Tensor x) -> ()");
// OPS: ops.cpp:7:9: note: read from the schema's text (the project index): this file did not parse where 'partial::silent_void' is defined
// OPS: ops.cpp:7:9: note: the fake kernel of 'partial::silent_void' is registered in {{.*}}fakes.py:4 (torch.library.register_fake)
// OPS: ops.cpp:7:9: note: no fix: this file did not parse; which argument the kernels of 'partial::silent_void' write is not known here
// OPS: ops.cpp:8:9: warning: operator 'partial::graph_break_void' returns nothing {{.*}}(graph break){{.*}}; this file parsed only in part
//
// KERNELS: kernels.cpp:4:10: error: 'generated/version.h' file not found
// KERNELS: kernels.cpp:8:3: warning: copy_ writes into argument 'out' of operator 'partial::silent_void', which its schema does not declare mutable: its calls vanish under torch.compile (silent): {{.*}}; this file parsed only in part ('generated/version.h' was not found) [torch-op-undeclared-mutation]
