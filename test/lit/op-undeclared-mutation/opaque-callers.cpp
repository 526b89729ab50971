// A project that calls its operators inside Python custom ops
// (`@torch.library.custom_op`), which torch.compile calls as one operator
// without tracing into them (issue 47, item 2). The warning stays (direct
// torch.ops calls are silent), the headline's class says it is for direct
// calls, and a note per calling custom op says what its compiled callers
// see, by what its mutates_args lists, as measured on both versions
// (tools/ground-truth/opaque_callers.py, ctest opaque-callers): listed or
// "unknown" keep the write (and a void operator's calls), none lose them.
// A call outside a custom op (not_a_custom_op) adds nothing.
//
// RUN: rm -rf %t && mkdir -p %t
// RUN: env TORCH_TIDY_PROJECT_ROOT=auto TORCH_TIDY_CACHE=%t/cache %clang_tidy --load=%torch_tidy_module \
// RUN:   -checks='-*,torch-op-undeclared-mutation' \
// RUN:   %S/Inputs/opaque-project/csrc/ops.cpp -- -std=c++17 -isystem %mock_include > %t/out 2>&1
// RUN: FileCheck %s --implicit-check-not=warning: --implicit-check-not="called inside" < %t/out
//
// CHECK: ops.cpp:4:52: warning: add_ writes into argument 'm' of operator 'tw::add_rows', which its schema does not declare mutable: its calls vanish under torch.compile (silent for direct torch.ops calls; calls inside a Python custom op follow what it declares mutable): with the fake kernel registered for it, aot_eager and inductor drop them (measured on torch 2.8.0 and 2.15.0)
// CHECK: ops.cpp:4:52: note: 'tw::add_rows' is called inside the Python custom op 'tw::outer_declared' in {{.*}}ops.py:10, which torch.compile calls as one operator without tracing into it: its mutates_args lists the argument it passes for 'm', so compiled callers of it see the write (measured on torch 2.8.0 and 2.15.0)
// CHECK: ops.cpp:5:56: warning: add_ writes into argument 'm' of operator 'tw::add_rows_too', {{.*}}(silent for direct torch.ops calls; calls inside a Python custom op follow what it declares mutable)
// CHECK: ops.cpp:5:56: note: 'tw::add_rows_too' is called inside the Python custom op 'tw::outer_undeclared' in {{.*}}ops.py:18, which torch.compile calls as one operator without tracing into it: its mutates_args does not list the argument it passes for 'm', so compiled callers of it lose the write too, silently (measured on torch 2.8.0 and 2.15.0)
// CHECK: ops.cpp:6:54: warning: add_ writes into argument 'm' of operator 'tw::add_direct', which its schema does not declare mutable: its calls vanish under torch.compile (silent):
// CHECK: ops.cpp:14:9: warning: operator 'tw::record' returns nothing {{.*}}(silent for direct torch.ops calls; calls inside a Python custom op follow what it declares mutable)
// CHECK: ops.cpp:14:9: note: 'tw::record' is called inside the Python custom op 'tw::outer_unknown' in {{.*}}ops.py:23, which torch.compile calls as one operator without tracing into it: its mutates_args is "unknown", which torch takes as any argument written, so compiled callers of it keep its calls (measured on torch 2.8.0 and 2.15.0)
// CHECK: ops.cpp:15:9: warning: operator 'tw::log_only' returns nothing {{.*}}(silent for direct torch.ops calls; calls inside a Python custom op follow what it declares mutable)
// CHECK: ops.cpp:15:9: note: 'tw::log_only' is called inside the Python custom op 'tw::outer_quiet' in {{.*}}ops.py:28, which torch.compile calls as one operator without tracing into it: it declares nothing mutable, so compiled callers of it lose its calls, and what the kernel does, silently (measured on torch 2.8.0 and 2.15.0)
