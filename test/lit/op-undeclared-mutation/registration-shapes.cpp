// The registration shapes real projects use, each classed as
// docs/ground-truth-registrations.json measured it (rows in brackets):
//  - rwkv's catch-all kernel `m.def(name, fn)` with a CUDA kernel beside
//    it: loud, not a graph break [catchall_raw_cuda, catchall_raw_device];
//  - a catch-all kernel with ATen ops beside a CPU kernel: traced on
//    2.8.0, not on 2.15.0, said so [catchall_aten_device];
//  - fakes registered in a loop over names (deep-gemm), through getattr,
//    by a helper called with a bare name or a loop's variable: silent
//    [python_fake_loop, python_fake_getattr, python_fake_helper];
//  - a fake registered under a condition: silent where it holds, said in
//    the headline [python_fake_condition_on, python_fake_condition_off];
//  - a project that registers a fake the index cannot name: unknown, never
//    "no fake" (graph break).
//
// RUN: rm -rf %t && mkdir -p %t
// RUN: env TORCH_TIDY_PROJECT_ROOT=auto TORCH_TIDY_CACHE=%t/cache %clang_tidy --load=%torch_tidy_module \
// RUN:   -checks='-*,torch-op-undeclared-mutation' \
// RUN:   %S/Inputs/shapes-project/csrc/ops.cpp -- -std=c++17 -isystem %mock_include \
// RUN:   2>&1 | FileCheck %s --check-prefix=SHAPES --implicit-check-not=warning:
// RUN: env TORCH_TIDY_PROJECT_ROOT=auto TORCH_TIDY_CACHE=%t/cache %clang_tidy --load=%torch_tidy_module \
// RUN:   -checks='-*,torch-op-undeclared-mutation' \
// RUN:   %S/Inputs/unnamed-project/csrc/ops.cpp -- -std=c++17 -isystem %mock_include \
// RUN:   2>&1 | FileCheck %s --check-prefix=UNNAMED --implicit-check-not=warning:
// A Python registration whose dispatch key is an expression may be the
// fake: unknown, said so.
// RUN: env TORCH_TIDY_PROJECT_ROOT=auto TORCH_TIDY_CACHE=%t/cache %clang_tidy --load=%torch_tidy_module \
// RUN:   -checks='-*,torch-op-undeclared-mutation' \
// RUN:   %S/Inputs/keyless-project/csrc/ops.cpp -- -std=c++17 -isystem %mock_include \
// RUN:   2>&1 | FileCheck %s --check-prefix=KEYLESS --implicit-check-not=warning:
// Consequence: silent keeps the unknown class (a fake it cannot name may be
// the operator's) and drops the loud and traced ones.
// RUN: env TORCH_TIDY_PROJECT_ROOT=auto TORCH_TIDY_CACHE=%t/cache %clang_tidy --load=%torch_tidy_module \
// RUN:   -checks='-*,torch-op-undeclared-mutation' \
// RUN:   --config="{CheckOptions: {torch-op-undeclared-mutation.Consequence: silent}}" \
// RUN:   %S/Inputs/unnamed-project/csrc/ops.cpp -- -std=c++17 -isystem %mock_include \
// RUN:   2>&1 | FileCheck %s --check-prefix=UNNAMED --implicit-check-not=warning:
// RUN: env TORCH_TIDY_PROJECT_ROOT=auto TORCH_TIDY_CACHE=%t/cache %clang_tidy --load=%torch_tidy_module \
// RUN:   -checks='-*,torch-op-undeclared-mutation' \
// RUN:   --config="{CheckOptions: {torch-op-undeclared-mutation.Consequence: silent}}" \
// RUN:   %S/Inputs/shapes-project/csrc/ops.cpp -- -std=c++17 -isystem %mock_include \
// RUN:   2>&1 | FileCheck %s --check-prefix=SILENT --implicit-check-not=warning:

// SHAPES: ops.cpp:12:3: warning: a write through data_ptr writes into argument 'y' of operator 'sp::rw_forward', which its schema does not declare mutable: torch.compile fails at its calls where its catch-all kernel reads or writes tensor data through pointers (loud): Dynamo runs that kernel on fake tensors, which have none, whatever else is registered beside it (a device or Meta kernel), and torch refuses a fake for it (measured on torch 2.8.0 and 2.15.0); declare it 'Tensor(a!) y' and register the kernel for its device instead of as a catch-all
// SHAPES: ops.cpp:20:3: note: '(anonymous namespace)::rw_forward' is registered here as the CompositeImplicitAutograd kernel of 'sp::rw_forward'
// SHAPES: ops.cpp:15:40: warning: mul_ writes into argument 'dst' of operator 'sp::aten_both', {{.*}}: torch.compile traces through its catch-all kernel (traced on torch 2.8.0, the writes kept; with a backend kernel beside the catch-all one, torch 2.15.0's aot_eager dropped the writes and inductor failed to compile); declare it 'Tensor(a!) dst'
// SHAPES: ops.cpp:16:59: warning: copy_ writes into argument 'd' of operator 'sp::by_getattr', {{.*}} (silent): with the fake kernel
// SHAPES: note: the fake kernel of 'sp::by_getattr' is registered in {{.*}}fakes.py:18 (torch.library.register_fake)
// SHAPES: ops.cpp:16:59: warning: copy_ writes into argument 'd' of operator 'sp::by_helper', {{.*}} (silent): with
// SHAPES: note: the fake kernel of 'sp::by_helper' is registered in {{.*}}fakes.py:25 (_register)
// SHAPES: ops.cpp:16:59: warning: copy_ writes into argument 'd' of operator 'sp::gemm_nn', {{.*}} (silent): with
// SHAPES: note: the fake kernel of 'sp::gemm_nn' is registered in {{.*}}fakes.py:13 (torch.library.register_fake (in a loop over names))
// SHAPES: ops.cpp:16:59: warning: copy_ writes into argument 'd' of operator 'sp::gemm_nt', {{.*}} (silent): with
// SHAPES: ops.cpp:16:59: warning: copy_ writes into argument 'd' of operator 'sp::helper_loop', {{.*}} (silent): with
// SHAPES: note: the fake kernel of 'sp::helper_loop' is registered in {{.*}}fakes.py:27 (_register)
// SHAPES: ops.cpp:16:59: warning: copy_ writes into argument 'd' of operator 'sp::when_compiled', which its schema does not declare mutable: its calls vanish under torch.compile (silent where the fake's condition holds: it is registered under `if enable_torch_compile:` at {{.*}}fakes.py:30; a graph break where it does not): with the fake kernel

// SILENT-NOT: rw_forward
// SILENT-NOT: aten_both
// SILENT: warning: {{.*}} 'sp::by_getattr'
// SILENT: warning: {{.*}} 'sp::by_helper'
// SILENT: warning: {{.*}} 'sp::gemm_nn'
// SILENT: warning: {{.*}} 'sp::gemm_nt'
// SILENT: warning: {{.*}} 'sp::helper_loop'
// SILENT: warning: {{.*}} 'sp::when_compiled'

// KEYLESS: ops.cpp:6:57: warning: copy_ writes into argument 'd' of operator 'kl::opaque', which its schema does not declare mutable: what torch.compile does with its calls is not known here (unknown: the project registers a kernel for it whose dispatch key this analysis could not read, {{.*}}impls.py:4): if it is its fake, aot_eager and inductor drop its calls, silently; if it is not, Dynamo graph-breaks at them

// UNNAMED: ops.cpp:6:57: warning: copy_ writes into argument 'd' of operator 'un::opaque', which its schema does not declare mutable: what torch.compile does with its calls is not known here (unknown: the project registers fakes this analysis could not name, {{.*}}fakes.py:4): if one of them is its fake, aot_eager and inductor drop its calls, silently; if none is, Dynamo graph-breaks at them

