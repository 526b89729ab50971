// RUN: %check_torch_tidy %s torch-op-undeclared-mutation %t
// An operator whose schema returns nothing and declares no argument mutable:
// torch.compile with aot_eager or inductor drops its calls
// (docs/ground-truth-mutation.json, void_write_undecl). Reported at the
// schema when no kernel of it is in this file (a file of schemas only, as
// extension projects keep them); at the write, with the fix, when one is.
#include <torch/torch.h>

namespace {
void add_rows(const at::Tensor &dst, const at::Tensor &src) {
  dst.narrow(0, 0, 2).add_(src);
  // CHECK-MESSAGES: :[[@LINE-1]]:3: warning: add_ writes into argument 'dst' of operator 'vo::add_rows', which its schema does not declare mutable
  // CHECK-MESSAGES: :[[@LINE+32]]:19: note: 'dst' is declared here without an alias annotation
  // CHECK-MESSAGES: :[[@LINE+42]]:3: note: '(anonymous namespace)::add_rows' is registered here as the CPU kernel of 'vo::add_rows'
  // CHECK-MESSAGES: :[[@LINE+30]]:9: note: 'vo::add_rows' returns nothing: torch.compile with aot_eager or inductor drops its calls outright (measured on torch 2.8.0 and 2.15.0)
  // CHECK-MESSAGES: :[[@LINE-5]]:3: note: rule: schema-mark-mutable
}
void log_sum(const at::Tensor &x) { (void)x.sum(); }
} // namespace
// A kernel defined in another file (a .cu): only declared here.
void shuffle_rows_cuda(const at::Tensor &input, const at::Tensor &map,
                       const at::Tensor &output);
// Kernels defined elsewhere, registered by name: LibTorch infers the schema
// from the C++ signature (no argument mutable; `-> ()` for void).
void rmsnorm_cuda(at::Tensor &out, at::Tensor &input, double eps);
at::Tensor norm_returns(const at::Tensor &input);

TORCH_LIBRARY(vo, m) {
  // Schemas only: the kernels are in other files.
  m.def("scatter_add_first(Tensor Dst, Tensor Src, Tensor Index) -> ()");
  // CHECK-MESSAGES: :[[@LINE-1]]:9: warning: operator 'vo::scatter_add_first' returns nothing and its schema declares no argument mutable: torch.compile with aot_eager or inductor drops its calls (measured on torch 2.8.0 and 2.15.0), so a kernel that writes an argument leaves the caller's tensor unwritten; declare the written argument 'Tensor(a!)' [torch-op-undeclared-mutation]
  // CHECK-MESSAGES: :[[@LINE-2]]:9: note: no fix: no kernel of 'vo::scatter_add_first' is defined in this translation unit; which argument it writes is not known here
  m.def("all_reduce(int fa, Tensor inp, Tensor out, int reg_buffer) -> ()");
  // CHECK-MESSAGES: :[[@LINE-1]]:9: warning: operator 'vo::all_reduce' returns nothing
  // CHECK-MESSAGES: :[[@LINE-2]]:9: note: no fix: no kernel of 'vo::all_reduce'
  m.def("gather_list(Tensor[] parts, Tensor out) -> ()");
  // CHECK-MESSAGES: :[[@LINE-1]]:9: warning: operator 'vo::gather_list' returns nothing
  // CHECK-MESSAGES: :[[@LINE-2]]:9: note: no fix: no kernel of 'vo::gather_list'
  // Not reported: a declared mutation, no tensor, a return.
  m.def("declared(Tensor(a!) Dst, Tensor Src) -> ()");
  m.def("declared_list(Tensor(a!)[] parts) -> ()");
  m.def("no_tensor(int n) -> ()");
  m.def("returns(Tensor Dst, Tensor Src) -> Tensor");
  // A kernel here that writes: reported at the write, with the fix.
  m.def("add_rows(Tensor dst, Tensor src) -> ()");
  // CHECK-FIXES: {{^}}  m.def("add_rows(Tensor(a!) dst, Tensor src) -> ()");
  // A kernel here that only reads: nothing to report.
  m.def("log_sum(Tensor x) -> ()");
  // Its kernel is registered here but defined elsewhere: the schema alone.
  m.def("shuffle_rows(Tensor input, Tensor map, Tensor output) -> ()");
  // CHECK-MESSAGES: :[[@LINE-1]]:9: warning: operator 'vo::shuffle_rows' returns nothing
  // CHECK-MESSAGES: :[[@LINE-2]]:9: note: no fix: no kernel of 'vo::shuffle_rows' is defined in this translation unit
}

TORCH_LIBRARY_IMPL(vo, CPU, m) {
  m.impl("add_rows", &add_rows);
  m.impl("log_sum", &log_sum);
  m.impl("shuffle_rows", &shuffle_rows_cuda);
}

TORCH_LIBRARY(vi, m) {
  m.def("rmsnorm", &rmsnorm_cuda);
  // CHECK-MESSAGES: :[[@LINE-1]]:5: warning: operator 'vi::rmsnorm' returns nothing and its schema declares no argument mutable, as LibTorch infers it from the C++ signature of m.def(name, fn): torch.compile with aot_eager or inductor drops its calls (measured on torch 2.8.0 and 2.15.0), so a kernel that writes an argument leaves the caller's tensor unwritten; declare the written argument 'Tensor(a!)' in a schema string [torch-op-undeclared-mutation]
  // CHECK-MESSAGES: :[[@LINE-2]]:5: note: no fix: no kernel of 'vi::rmsnorm' is defined in this translation unit
  m.def("norm_returns", &norm_returns);
}
