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
// An operator whose schema a project helper infers from the registered
// function's C++ signature (a big CPU library's LoRA shrink), its kernel
// behind a stub: the write is judged against the inferred schema.
// RUN: env TORCH_TIDY_PROJECT_ROOT=auto TORCH_TIDY_CACHE=%t/cache \
// RUN:   %clang_tidy --load=%torch_tidy_module -checks='-*,torch-op-undeclared-mutation' \
// RUN:   %S/Inputs/stub-project/csrc/kernels/lora.cpp -- -std=c++17 -isystem %mock_include \
// RUN:   2>&1 | FileCheck %s --check-prefix=LORA --implicit-check-not=warning:
// The registering file itself: the stub calls are opaque there, no write is
// reported twice; the function that returns the argument it hands to a
// stub gets no copy fix (the stub's kernel writes it).
// RUN: env TORCH_TIDY_PROJECT_ROOT=auto TORCH_TIDY_CACHE=%t/cache \
// RUN:   %clang_tidy --load=%torch_tidy_module -checks='-*,torch-op-undeclared-mutation' \
// RUN:   %S/Inputs/stub-project/csrc/ops.cpp -- -std=c++17 -isystem %mock_include \
// RUN:   2>&1 | FileCheck %s --check-prefix=OPS --implicit-check-not=warning:

// The write through a raw pointer into `out`, which shrink's schema does
// not declare; the path through the stub is named.
// KERNELS: shrink.cpp:11:5: warning: a write through data_ptr writes into argument 'out' of operator 'stubp::shrink', which its schema does not declare mutable
// KERNELS: note: the schema of 'stubp::shrink' is declared in {{.*}}ops.cpp:41, with 'out' without an alias annotation
// KERNELS: note: '(anonymous namespace)::shrink_kernel_impl' is the kernel of dispatch stub 'shrink_stub', which 'shrink_cpu' calls in {{.*}}ops.cpp:14; 'shrink_cpu' is registered as the CPU kernel of 'stubp::shrink' in {{.*}}ops.cpp:47
// KERNELS: note: no fix: the schema is declared in another file of the project (ops.cpp:41)
// Not reported: expand's `out` is declared mutable (Tensor(a!)); scaled's
// stub gets a temporary of the registered function, not an argument.

// LORA: lora.cpp:30:3: warning: a write through data_ptr writes into argument 'out' of operator 'stubp::lora_shrink', which its schema does not declare mutable: {{.*}}; define the operator with a schema string that declares it 'Tensor(a!) out'
// LORA: lora.cpp:12:3: note: the write is here, in '(anonymous namespace)::dot'
// LORA: note: the schema of 'stubp::lora_shrink' is inferred from the C++ signature of 'stubp::lora_shrink_cpu' by the project's stubp_define_inferred ({{.*}}ops.cpp:53), as LibTorch infers it: no argument is declared mutable
// LORA: note: '(anonymous namespace)::lora_shrink_kernel_impl' is the kernel of dispatch stub 'lora_shrink_stub', which 'lora_shrink_cpu' calls in {{.*}}ops.cpp:34
// LORA: note: no fix: the schema is inferred from the C++ signature of 'stubp::lora_shrink_cpu' by the project's stubp_define_inferred, which never declares a mutation; define the operator with a schema string

// OPS: ops.cpp:35:10: warning: the kernel returns argument 'out' of operator 'stubp::lora_shrink', which the schema does not declare as aliasing its output: {{.*}}; it hands 'out' to dispatch stub 'lora_shrink_stub' (its kernel 'lora_shrink_kernel_impl' is registered in {{.*}}lora.cpp:35), whose kernel may write it
// OPS: ops.cpp:35:10: note: no fix: the kernel hands 'out' to dispatch stub 'lora_shrink_stub'
