// RUN: %check_torch_tidy %s torch-op-undeclared-mutation %t
// An operator whose schema returns nothing and declares no argument mutable:
// with a fake kernel torch.compile with aot_eager or inductor drops its
// calls, without one it graph-breaks (docs/ground-truth-registrations.json).
// Reported at the schema whatever its kernels do (a file of schemas only, as
// extension projects keep them, or kernels here that write no tensor); at
// the write, with the fix, when a kernel here writes an argument. This file
// registers no fake: every class is a graph break, or loud for a catch-all
// kernel whose body is elsewhere. (consequence.cpp has the other classes.)
#include <torch/torch.h>

namespace {
void add_rows(const at::Tensor &dst, const at::Tensor &src) {
  dst.narrow(0, 0, 2).add_(src);
  // CHECK-MESSAGES: :[[@LINE-1]]:3: warning: add_ writes into argument 'dst' of operator 'vo::add_rows', which its schema does not declare mutable
  // CHECK-MESSAGES: :[[@LINE+31]]:19: note: 'dst' is declared here without an alias annotation
  // CHECK-MESSAGES: :[[@LINE+43]]:3: note: '(anonymous namespace)::add_rows' is registered here as the CPU kernel of 'vo::add_rows'
  // CHECK-MESSAGES: :[[@LINE-4]]:3: note: rule: schema-mark-mutable
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
  // CHECK-MESSAGES: :[[@LINE-1]]:9: warning: operator 'vo::scatter_add_first' returns nothing and its schema declares no argument mutable: torch.compile graph-breaks at its calls (graph break): no fake kernel is registered for it in the project, so Dynamo runs them eagerly and fullgraph=True fails; once one is, aot_eager and inductor drop them, and with them whatever its kernels do (tensor writes, files, communication), silently (measured on torch 2.8.0 and 2.15.0); declare the argument its kernels write 'Tensor(a!)' (a declared mutation keeps the call, measured; where they write no tensor, as for files or communication, declaring a tensor argument mutable keeps the call all the same, measured) [torch-op-undeclared-mutation]
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
  // A kernel here that writes no tensor: its calls still go (with a fake).
  m.def("log_sum(Tensor x) -> ()");
  // CHECK-MESSAGES: :[[@LINE-1]]:9: warning: operator 'vo::log_sum' returns nothing {{.*}} (graph break)
  // CHECK-MESSAGES: :[[@LINE-2]]:9: note: no fix: its kernels here write no tensor argument; which argument to declare is a reading of them
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
  // m.def(name, fn) registers a catch-all kernel: Dynamo runs it on fake
  // tensors, and a body elsewhere (CUDA) is taken to read their data.
  // CHECK-MESSAGES: :[[@LINE-3]]:5: warning: operator 'vi::rmsnorm' returns nothing and its schema declares no argument mutable, as LibTorch infers it from the C++ signature of m.def(name, fn): torch.compile fails at its calls where its catch-all kernel reads or writes tensor data through pointers (loud): Dynamo runs that kernel on fake tensors, which have none, whatever else is registered beside it (a device or Meta kernel), and torch refuses a fake for it (measured on torch 2.8.0 and 2.15.0); declare the argument its kernels write 'Tensor(a!)' in a schema string and register the kernel for its device instead of as a catch-all (then opcheck passes and the writes are kept, measured) [torch-op-undeclared-mutation]
  // CHECK-MESSAGES: :[[@LINE-4]]:5: note: no fix: no kernel of 'vi::rmsnorm' is defined in this translation unit
  m.def("norm_returns", &norm_returns);
}
