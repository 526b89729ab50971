// Kernels behind a dispatch layer (issue 80): the registered function
// (ops.cpp) hands its arguments to a dispatch stub; the kernel that writes
// is registered to the stub in another file (kernels/shrink.cpp), through
// the project's own REGISTER_DISPATCH-shaped macro. The project index joins
// the stub's call (which parameter goes where) to the stub's kernel; the
// write is judged against the operator's schema in the kernel's file.
//
// RUN: rm -rf %t && mkdir -p %t
// RUN: env TORCH_TIDY_PROJECT_ROOT=auto TORCH_TIDY_CACHE=%t/cache \
// RUN:   %clang_tidy --load=%torch_tidy_module -checks='-*,torch-op-undeclared-mutation' \
// RUN:   %S/Inputs/stub-project/csrc/kernels/shrink.cpp -- -std=c++17 -isystem %mock_include \
// RUN:   2>&1 | FileCheck %s --check-prefix=KERNELS --implicit-check-not=warning:
// The index read back from its cache says the same.
// RUN: env TORCH_TIDY_PROJECT_ROOT=auto TORCH_TIDY_CACHE=%t/cache \
// RUN:   %clang_tidy --load=%torch_tidy_module -checks='-*,torch-op-undeclared-mutation' \
// RUN:   %S/Inputs/stub-project/csrc/kernels/shrink.cpp -- -std=c++17 -isystem %mock_include \
// RUN:   2>&1 | FileCheck %s --check-prefix=KERNELS --implicit-check-not=warning:
// The registering file itself: the stub call is opaque there, nothing is
// reported twice.
// RUN: env TORCH_TIDY_PROJECT_ROOT=auto TORCH_TIDY_CACHE=%t/cache \
// RUN:   %clang_tidy --load=%torch_tidy_module -checks='-*,torch-op-undeclared-mutation' \
// RUN:   %S/Inputs/stub-project/csrc/ops.cpp -- -std=c++17 -isystem %mock_include \
// RUN:   2>&1 | FileCheck %s --check-prefix=OPS --allow-empty --implicit-check-not=warning:

// The write through a raw pointer into `out`, which shrink's schema does
// not declare; the path through the stub is named.
// KERNELS: shrink.cpp:11:5: warning: a write through data_ptr writes into argument 'out' of operator 'stubp::shrink', which its schema does not declare mutable
// KERNELS: note: the schema of 'stubp::shrink' is declared in {{.*}}ops.cpp:32, with 'out' without an alias annotation
// KERNELS: note: '(anonymous namespace)::shrink_kernel_impl' is the kernel of dispatch stub 'shrink_stub', which 'shrink_cpu' calls in {{.*}}ops.cpp:13; 'shrink_cpu' is registered as the CPU kernel of 'stubp::shrink' in {{.*}}ops.cpp:38
// KERNELS: note: no fix: the schema is declared in another file of the project (ops.cpp:32)
// Not reported: expand's `out` is declared mutable (Tensor(a!)); scaled's
// stub gets a temporary of the registered function, not an argument.

// OPS-NOT: warning:
