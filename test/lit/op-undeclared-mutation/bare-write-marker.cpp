// RUN: %check_torch_tidy %s torch-op-undeclared-mutation %t
// `Tensor!` (an alias set of its own, written) is how vLLM-style projects
// declare mutation; torch._C.parse_schema accepts it. The shape of a real
// bug: the schema marks the input written and the kernel writes the output.
#include <torch/torch.h>

namespace {
// (The expected warning is written above the write: clang prints the lines
// from the write down to the fix-it in the schema, and those must not hold
// the word it looks for.)
// CHECK-MESSAGES: :[[@LINE+3]]:3: warning: copy_ writes into argument 'output' of operator 'bw::moe_sum', which its schema does not declare mutable
// CHECK-MESSAGES: :[[@LINE+13]]:33: note: 'output' is declared here without an alias annotation
void moe_sum(at::Tensor &input, at::Tensor &output) {
  output.copy_(input);
}
void rotary(const at::Tensor &positions, at::Tensor &query,
            const c10::optional<at::Tensor> &key) {
  query.mul_(2);
  if (key)
    key->mul_(2);
}
} // namespace

TORCH_LIBRARY(bw, m) {
  m.def("moe_sum(Tensor! input, Tensor output) -> ()");
  // CHECK-FIXES: {{^}}  m.def("moe_sum(Tensor! input, Tensor(a!) output) -> ()");
  m.def("rotary(Tensor positions, Tensor! query, Tensor!? key) -> ()");
}
TORCH_LIBRARY_IMPL(bw, CUDA, m) {
  m.impl("moe_sum", &moe_sum);
  m.impl("rotary", &rotary);
}
