// A Python custom op whose body hands a tensor to a C++ function a pybind11
// module binds (issue 80, item 7): torch.compile calls the custom op as one
// operator without tracing into it, so a write of the C++ function into an
// argument the custom op's mutates_args does not list is lost under
// compile (a fake registered: silently) or fails to compile (no fake), as
// measured (tools/ground-truth/opaque_callers.py, rows pybind_*). The write
// is reported in the C++ file, against the custom op's declaration; a write
// into a tensor the custom op made itself (make), or one it lists (scale),
// is not; a call outside a custom op adds nothing.
//
// RUN: rm -rf %t && mkdir -p %t
// RUN: env TORCH_TIDY_PROJECT_ROOT=auto TORCH_TIDY_CACHE=%t/cache \
// RUN:   %clang_tidy --load=%torch_tidy_module -checks='-*,torch-op-undeclared-mutation' \
// RUN:   %S/Inputs/pybind-project/csrc/fill.cpp -- -std=c++17 -isystem %mock_include \
// RUN:   2>&1 | FileCheck %s --implicit-check-not=warning:
// The index read back from its cache says the same.
// RUN: env TORCH_TIDY_PROJECT_ROOT=auto TORCH_TIDY_CACHE=%t/cache \
// RUN:   %clang_tidy --load=%torch_tidy_module -checks='-*,torch-op-undeclared-mutation' \
// RUN:   %S/Inputs/pybind-project/csrc/fill.cpp -- -std=c++17 -isystem %mock_include \
// RUN:   2>&1 | FileCheck %s --implicit-check-not=warning:
// Built as the module the custom ops call (-DTORCH_EXTENSION_NAME=_C, as
// setup.py's "pkg._C" builds it): the same; built as another module that
// binds the same names, the calls are not its own.
// RUN: env TORCH_TIDY_PROJECT_ROOT=auto TORCH_TIDY_CACHE=%t/cache \
// RUN:   %clang_tidy --load=%torch_tidy_module -checks='-*,torch-op-undeclared-mutation' \
// RUN:   %S/Inputs/pybind-project/csrc/fill.cpp -- -std=c++17 -isystem %mock_include \
// RUN:   -DTORCH_EXTENSION_NAME=_C 2>&1 | FileCheck %s --implicit-check-not=warning:
// RUN: env TORCH_TIDY_PROJECT_ROOT=auto TORCH_TIDY_CACHE=%t/cache \
// RUN:   %clang_tidy --load=%torch_tidy_module -checks='-*,torch-op-undeclared-mutation' \
// RUN:   %S/Inputs/pybind-project/csrc/fill.cpp -- -std=c++17 -isystem %mock_include \
// RUN:   -DTORCH_EXTENSION_NAME=_other 2>&1 | FileCheck %s --allow-empty --check-prefix=OTHER
// OTHER-NOT: warning:
// Consequence: silent leaves out the custom op without a fake (a compile
// error, not silent).
// RUN: env TORCH_TIDY_PROJECT_ROOT=auto TORCH_TIDY_CACHE=%t/cache \
// RUN:   %clang_tidy --load=%torch_tidy_module -checks='-*,torch-op-undeclared-mutation' \
// RUN:   --config="{CheckOptions: {torch-op-undeclared-mutation.Consequence: silent}}" \
// RUN:   %S/Inputs/pybind-project/csrc/fill.cpp -- -std=c++17 -isystem %mock_include \
// RUN:   2>&1 | FileCheck %s --check-prefix=SILENT --implicit-check-not=warning:
// SILENT: fill.cpp:4:3: warning: copy_ writes into 'out', which the Python custom op 'pw::fill'
// SILENT: fill.cpp:14:3: warning: add_ writes into 'out' wherever contiguous()
//
// CHECK: fill.cpp:4:3: warning: copy_ writes into 'out', which the Python custom op 'pw::fill' ({{.*}}ops.py:7) passes to 'fill_rows' from its argument 'out' without listing it in mutates_args: torch.compile calls the custom op as one operator without tracing into it, so compiled callers lose the write, silently, as with an undeclared write in a C++ operator with a fake kernel (measured on torch 2.8.0 and 2.15.0); list 'out' in its mutates_args
// CHECK: fill.cpp:11:53: warning: add_ writes into 'out', which the Python custom op 'pw::loud' ({{.*}}ops.py:35) passes to 'no_fake' from its argument 'dst' without listing it in mutates_args: torch.compile calls the custom op as one operator without tracing into it, so compiling a call of it fails (no fake kernel of it is registered here; with one, compiled callers would lose the write silently) (measured on torch 2.8.0 and 2.15.0); list 'dst' in its mutates_args
// A write through a method that returns its receiver or a copy says when
// it reaches the argument.
// CHECK: fill.cpp:14:3: warning: add_ writes into 'out' wherever contiguous() returns its receiver (it copies only where the receiver is not contiguous), which the Python custom op 'pw::copied' ({{.*}}ops.py:41) passes to 'through_copy' from its argument 'out' without listing it in mutates_args
