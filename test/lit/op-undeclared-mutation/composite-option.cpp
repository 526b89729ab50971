// RUN: %check_torch_tidy %s torch-op-undeclared-mutation %t
// RUN: %check_torch_tidy %s torch-op-undeclared-mutation %t-all \
// RUN:   --config="{CheckOptions: {torch-op-undeclared-mutation.CompositeKernels: true}}" \
// RUN:   --check-suffix=ALL
// CompositeImplicitAutograd kernels: opcheck passes and torch.compile gives
// eager's values (measured), so they are reported only with
// CompositeKernels: true -- the schema is still wrong if the operator later
// gets a backend kernel.
#include <torch/torch.h>

at::Tensor composite(const at::Tensor &m, const at::Tensor &v) {
  m.copy_(v);
  return v.sum();
}

TORCH_LIBRARY(ci, m) {
  m.def("composite(Tensor m, Tensor v) -> Tensor", &composite);
}
// CHECK-FIXES-ALL: m.def("composite(Tensor(a!) m, Tensor v) -> Tensor", &composite);
// (Not next to the write: clang's excerpt of the fix-it quotes the lines
// between.)
// CHECK-MESSAGES-ALL: :12:3: warning: copy_ writes into argument 'm' of operator 'ci::composite'
