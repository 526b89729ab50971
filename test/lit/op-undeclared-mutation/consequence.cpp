// What torch.compile does with an operator that mutates an argument its
// schema does not declare depends on what the project registers for it
// (docs/ground-truth-registrations.json): with a fake kernel (Python
// register_fake / impl_abstract / impl(..., "Meta"), a C++ Meta kernel, a
// CompositeExplicitAutograd kernel) the consequence is silent; with backend
// kernels only, a graph break; a catch-all kernel writing through pointers,
// an error. The project (Inputs/consequence-project) keeps its schemas,
// kernels and fakes in different files, C++ and Python.
//
// RUN: rm -rf %t && mkdir -p %t
// The schemas file: every `-> ()` operator without a mutable argument, at
// its schema, with its class and the fake it rests on.
// RUN: env TORCH_TIDY_PROJECT_ROOT=auto TORCH_TIDY_CACHE=%t/cache %clang_tidy --load=%torch_tidy_module \
// RUN:   -checks='-*,torch-op-undeclared-mutation' \
// RUN:   %S/Inputs/consequence-project/csrc/ops.cpp -- -std=c++17 -isystem %mock_include \
// RUN:   2>&1 | FileCheck %s --check-prefix=OPS --implicit-check-not=warning:
// Consequence: silent keeps only the operators a fake makes silent.
// RUN: env TORCH_TIDY_PROJECT_ROOT=auto TORCH_TIDY_CACHE=%t/cache %clang_tidy --load=%torch_tidy_module \
// RUN:   -checks='-*,torch-op-undeclared-mutation' \
// RUN:   --config="{CheckOptions: {torch-op-undeclared-mutation.Consequence: silent}}" \
// RUN:   %S/Inputs/consequence-project/csrc/ops.cpp -- -std=c++17 -isystem %mock_include \
// RUN:   2>&1 | FileCheck %s --check-prefix=SILENT-OPS --implicit-check-not=warning:
// The kernels file: each write with its class; the fake named by file:line.
// RUN: env TORCH_TIDY_PROJECT_ROOT=auto TORCH_TIDY_CACHE=%t/cache %clang_tidy --load=%torch_tidy_module \
// RUN:   -checks='-*,torch-op-undeclared-mutation' \
// RUN:   %S/Inputs/consequence-project/csrc/kernels.cpp -- -std=c++17 -isystem %mock_include \
// RUN:   2>&1 | FileCheck %s --check-prefix=KERNELS --implicit-check-not=warning:
// RUN: env TORCH_TIDY_PROJECT_ROOT=auto TORCH_TIDY_CACHE=%t/cache %clang_tidy --load=%torch_tidy_module \
// RUN:   -checks='-*,torch-op-undeclared-mutation' \
// RUN:   --config="{CheckOptions: {torch-op-undeclared-mutation.Consequence: silent}}" \
// RUN:   %S/Inputs/consequence-project/csrc/kernels.cpp -- -std=c++17 -isystem %mock_include \
// RUN:   2>&1 | FileCheck %s --check-prefix=SILENT-KERNELS --implicit-check-not=warning:
// A CompositeExplicitAutograd kernel is its own fake.
// RUN: env TORCH_TIDY_PROJECT_ROOT=auto TORCH_TIDY_CACHE=%t/cache %clang_tidy --load=%torch_tidy_module \
// RUN:   -checks='-*,torch-op-undeclared-mutation' \
// RUN:   %S/Inputs/consequence-project/csrc/meta.cpp -- -std=c++17 -isystem %mock_include \
// RUN:   2>&1 | FileCheck %s --check-prefix=META --implicit-check-not=warning:
// CompositeKernels: catch-all kernels' writes are reported too, with their
// class: traced (ATen writes) or loud (through a pointer).
// RUN: env TORCH_TIDY_PROJECT_ROOT=auto TORCH_TIDY_CACHE=%t/cache %clang_tidy --load=%torch_tidy_module \
// RUN:   -checks='-*,torch-op-undeclared-mutation' \
// RUN:   --config="{CheckOptions: {torch-op-undeclared-mutation.CompositeKernels: true}}" \
// RUN:   %S/Inputs/consequence-project/csrc/ops.cpp -- -std=c++17 -isystem %mock_include \
// RUN:   2>&1 | FileCheck %s --check-prefix=COMPOSITE
// A kernel defined in one file and registered from another is judged in
// the file that defines it.
// RUN: env TORCH_TIDY_PROJECT_ROOT=auto TORCH_TIDY_CACHE=%t/cache %clang_tidy --load=%torch_tidy_module \
// RUN:   -checks='-*,torch-op-undeclared-mutation' \
// RUN:   %S/Inputs/consequence-project/csrc/elsewhere_kernel.cpp -- -std=c++17 -isystem %mock_include \
// RUN:   2>&1 | FileCheck %s --check-prefix=ELSEWHERE --implicit-check-not=warning:
// The option round-trips; a value it does not know is a configuration error.
// RUN: %clang_tidy --load=%torch_tidy_module -checks='-*,torch-op-undeclared-mutation' \
// RUN:   --config="{CheckOptions: {torch-op-undeclared-mutation.Consequence: silent}}" \
// RUN:   --dump-config %S/Inputs/consequence-project/csrc/ops.cpp -- \
// RUN:   | FileCheck %s --check-prefix=DUMP
// RUN: %clang_tidy --load=%torch_tidy_module -checks='-*,torch-op-undeclared-mutation' \
// RUN:   --dump-config %S/Inputs/consequence-project/csrc/ops.cpp -- \
// RUN:   | FileCheck %s --check-prefix=DUMP-DEFAULT
// RUN: env TORCH_TIDY_PROJECT_ROOT=auto TORCH_TIDY_CACHE=%t/cache %clang_tidy --load=%torch_tidy_module \
// RUN:   -checks='-*,torch-op-undeclared-mutation' \
// RUN:   --config="{CheckOptions: {torch-op-undeclared-mutation.Consequence: loudest}}" \
// RUN:   %S/Inputs/consequence-project/csrc/ops.cpp -- -std=c++17 -isystem %mock_include \
// RUN:   2>&1 | FileCheck %s --check-prefix=BAD

// A catch-all kernel that writes through memory is reported by default, at
// the write (loud: compiling fails whatever the schema declares), with no
// fix: the remedy is a declaration and a device registration.
// OPS: ops.cpp:9:3: warning: a write through data_ptr writes into argument 'dst' of operator 'cq::catch_raw', which its schema does not declare mutable: torch.compile fails at its calls where its catch-all kernel reads or writes tensor data through pointers (loud): {{.*}}; declare it 'Tensor(a!) dst' and register the kernel for its device instead of as a catch-all (then opcheck passes and the writes are kept, measured)
// OPS: ops.cpp:22:20: note: 'dst' is declared here without an alias annotation{{$}}
// OPS: ops.cpp:9:3: note: no fix: its catch-all kernel writes 'dst' through memory; the fix declares it and registers the kernel for its device, a change of registration torch-tidy does not rewrite
// OPS: ops.cpp:16:9: warning: operator 'cq::silent_py' returns nothing and its schema declares no argument mutable: its calls vanish under torch.compile (silent): with the fake kernel registered for it, aot_eager and inductor drop them, and with them whatever its kernels do (tensor writes, files, communication) (measured on torch 2.8.0 and 2.15.0); declare the argument its kernels write 'Tensor(a!)' (a declared mutation keeps the call, measured; where they write no tensor, as for files or communication, declaring a tensor argument mutable keeps the call all the same, measured) [torch-op-undeclared-mutation]
// OPS-NEXT: m.def(
// OPS-NEXT: ^
// OPS-NEXT: ops.cpp:16:9: note: the fake kernel of 'cq::silent_py' is registered in {{.*}}consequence-project{{/|\\}}cq{{/|\\}}fakes.py:6 (torch.library.register_fake)
// OPS: ops.cpp:16:9: note: no fix: no kernel of 'cq::silent_py' is defined in this translation unit
// OPS: ops.cpp:18:9: warning: operator 'cq::silent_wrapper' returns nothing {{.*}} (silent)
// OPS: ops.cpp:18:9: note: the fake kernel of 'cq::silent_wrapper' is registered in {{.*}}meta.cpp:15 (Meta kernel, DISPATCH_TO_META)
// OPS: ops.cpp:19:9: warning: operator 'cq::graph_break' returns nothing and its schema declares no argument mutable: torch.compile graph-breaks at its calls (graph break): no fake kernel is registered for it in the project, so Dynamo runs them eagerly and fullgraph=True fails; once one is, aot_eager and inductor drop them, and with them whatever its kernels do (tensor writes, files, communication), silently (measured on torch 2.8.0 and 2.15.0); declare
// OPS: ops.cpp:20:9: warning: operator 'cq::effects_only' returns nothing {{.*}} (silent)
// OPS: ops.cpp:20:9: note: the fake kernel of 'cq::effects_only' is registered in {{.*}}fakes.py:11 (torch.library.register_fake)
// OPS: ops.cpp:21:9: warning: operator 'cq::explicit_op' returns nothing {{.*}} (silent)
// OPS: ops.cpp:21:9: note: the fake kernel of 'cq::explicit_op' is registered in {{.*}}meta.cpp:19 (CompositeExplicitAutograd kernel, TORCH_LIBRARY_IMPL)
// OPS: ops.cpp:24:9: warning: operator 'cq::py_meta' returns nothing {{.*}} (silent)
// OPS: ops.cpp:24:9: note: the fake kernel of 'cq::py_meta' is registered in {{.*}}fakes.py:14 (Meta kernel, torch.library.impl)
// OPS: ops.cpp:25:9: warning: operator 'cq::lib_meta' returns nothing {{.*}} (silent)
// OPS: ops.cpp:25:9: note: the fake kernel of 'cq::lib_meta' is registered in {{.*}}fakes.py:20 (Meta kernel, Library.impl)
// OPS: ops.cpp:26:9: warning: operator 'cq::abs_fake' returns nothing {{.*}} (silent)
// OPS: ops.cpp:26:9: note: the fake kernel of 'cq::abs_fake' is registered in {{.*}}fakes.py:23 (torch.library.impl_abstract)
// OPS: ops.cpp:27:9: warning: operator 'cq::same_file' returns nothing {{.*}} (silent)
// OPS: ops.cpp:33:35: note: the fake kernel of 'cq::same_file': its Meta kernel, registered here

// OPS: ops.cpp:29:9: warning: operator 'cq::elsewhere' returns nothing {{.*}} (graph break)

// COMPOSITE: ops.cpp:9:3: warning: a write through data_ptr writes into argument 'dst' of operator 'cq::catch_raw', {{.*}} (loud): Dynamo runs that kernel on fake tensors, which have none, whatever else is registered beside it (a device or Meta kernel), and torch refuses a fake for it (measured on torch 2.8.0 and 2.15.0); declare it 'Tensor(a!) dst'
// COMPOSITE: ops.cpp:11:49: warning: add_ writes into argument 'dst' of operator 'cq::catch_aten', which its schema does not declare mutable: torch.compile traces through its catch-all kernel and keeps the writes (traced) (measured on torch 2.8.0 and 2.15.0); declare it 'Tensor(a!) dst'

// SILENT-OPS: ops.cpp:16:9: warning: operator 'cq::silent_py'
// SILENT-OPS: ops.cpp:18:9: warning: operator 'cq::silent_wrapper'
// SILENT-OPS: ops.cpp:20:9: warning: operator 'cq::effects_only'
// SILENT-OPS: ops.cpp:21:9: warning: operator 'cq::explicit_op'
// SILENT-OPS: ops.cpp:24:9: warning: operator 'cq::py_meta'
// SILENT-OPS: ops.cpp:25:9: warning: operator 'cq::lib_meta'
// SILENT-OPS: ops.cpp:26:9: warning: operator 'cq::abs_fake'
// SILENT-OPS: ops.cpp:27:9: warning: operator 'cq::same_file'

// KERNELS: kernels.cpp:9:3: warning: copy_ writes into argument 'dst' of operator 'cq::silent_py', which its schema does not declare mutable: its calls vanish under torch.compile (silent): with the fake kernel registered for it, aot_eager and inductor drop them (measured on torch 2.8.0 and 2.15.0); torch.library.opcheck fails test_schema; declare it 'Tensor(a!) dst' [torch-op-undeclared-mutation]
// KERNELS: kernels.cpp:9:3: note: the fake kernel of 'cq::silent_py' is registered in {{.*}}fakes.py:6 (torch.library.register_fake)
// KERNELS: kernels.cpp:12:3: warning: add_ writes into argument 'dst' of operator 'cq::silent_meta', which its schema does not declare mutable: torch.compile gives wrong values (silent): with the fake kernel registered for it, inductor computes with the unwritten values (measured on torch 2.8.0 and 2.15.0); torch.library.opcheck fails test_schema
// KERNELS: kernels.cpp:12:3: note: the fake kernel of 'cq::silent_meta' is registered in {{.*}}meta.cpp:14 (Meta kernel, TORCH_LIBRARY_IMPL)
// The write inside the AT_DISPATCH lambda: at the line written, no macro
// backtrace.
// KERNELS: kernels.cpp:18:5: warning: a write through data_ptr writes into argument 'dst' of operator 'cq::silent_wrapper', {{.*}} (silent)
// KERNELS-NOT: expanded from macro
// KERNELS: kernels.cpp:22:3: warning: mul_ writes into argument 'dst' of operator 'cq::graph_break', {{.*}} (graph break): no fake kernel is registered for it in the project
// An Autograd kernel (autograd.cpp) runs on fake tensors too; the return
// of the written argument keeps no fix: that kernel may mark it dirty.
// KERNELS: kernels.cpp:28:3: warning: add_ writes into argument 'out' of operator 'cq::autograd_out', which its schema does not declare mutable: torch.compile graph-breaks at its calls (graph break): no fake kernel is registered for it in the project, so Dynamo runs them eagerly and fullgraph=True fails; once one is, its Autograd kernel runs on fake tensors too, and one that marks the argument dirty fails to compile (measured on torch 2.8.0 and 2.15.0); torch.library.opcheck fails test_schema; declare it 'Tensor(a!) out'
// KERNELS: kernels.cpp:29:10: warning: the kernel returns argument 'out' of operator 'cq::autograd_out'
// KERNELS: kernels.cpp:29:10: note: no fix: 'cq::autograd_out' has an Autograd kernel, which may mark 'out' dirty and then needs it returned; return a copy here once that kernel no longer does

// SILENT-KERNELS: kernels.cpp:9:3: warning: copy_ writes into argument 'dst' of operator 'cq::silent_py'
// SILENT-KERNELS: kernels.cpp:12:3: warning: add_ writes into argument 'dst' of operator 'cq::silent_meta'
// SILENT-KERNELS: kernels.cpp:18:5: warning: a write through data_ptr writes into argument 'dst' of operator 'cq::silent_wrapper'

// META: meta.cpp:10:50: warning: zero_ writes into argument 'dst' of operator 'cq::explicit_op', {{.*}} (silent)
// META: meta.cpp:19:3: note: the fake kernel of 'cq::explicit_op': its CompositeExplicitAutograd kernel, registered here

// ELSEWHERE: elsewhere_kernel.cpp:7:3: warning: copy_ writes into argument 'dst' of operator 'cq::elsewhere', {{.*}} (graph break)
// ELSEWHERE: elsewhere_kernel.cpp:6:6: note: the schema of 'cq::elsewhere' is declared in {{.*}}ops.cpp:29, with 'dst' without an alias annotation
// ELSEWHERE: elsewhere_kernel.cpp:6:6: note: 'cq_kernels::elsewhere_cuda' is registered as the CUDA kernel of 'cq::elsewhere' in {{.*}}register.cpp:9

// DUMP: torch-op-undeclared-mutation.Consequence: silent
// DUMP-DEFAULT: torch-op-undeclared-mutation.Consequence: any

// BAD: warning: invalid configuration value 'loudest' for option 'Consequence'; expected 'any' or 'silent'; using 'any' [clang-tidy-config]
