// The schemas and the registered functions, which hand their arguments to
// the dispatch stubs.
#include "dispatch.h"

STUBP_DEFINE_DISPATCH(shrink_stub);
STUBP_DEFINE_DISPATCH(expand_stub);
STUBP_DEFINE_DISPATCH(scale_stub);
STUBP_DEFINE_DISPATCH(lora_shrink_stub);

namespace stubp {

// `out` undeclared: the shrink kernel writes it.
at::Tensor shrink_cpu(at::Tensor &out, at::Tensor &input, double scale) {
  shrink_stub(at::kCPU, out, input, scale);
  return input.sum();
}

// `out` declared mutable: nothing to report.
void expand_cpu(at::Tensor &out, const at::Tensor &input) {
  expand_stub(c10::DeviceType::CPU, out, input);
}

// The stub gets a temporary, not the argument: its write stays inside.
at::Tensor scaled_cpu(const at::Tensor &x, double s) {
  at::Tensor tmp = x.clone();
  scale_stub(at::kCPU, tmp, s);
  return tmp;
}

// The operator's schema is inferred from this signature by the helper;
// the stub's kernel writes `out`, which this function returns.
at::Tensor lora_shrink_cpu(at::Tensor &out, at::Tensor &input,
                           at::Tensor &weights, double scale) {
  lora_shrink_stub(at::kCPU, out, input, weights, scale);
  return out;
}

} // namespace stubp

TORCH_LIBRARY(stubp, m) {
  m.def("shrink(Tensor out, Tensor input, float scale) -> Tensor");
  m.def("expand(Tensor(a!) out, Tensor input) -> ()");
  m.def("scaled(Tensor x, float s) -> Tensor");
}

TORCH_LIBRARY_IMPL(stubp, CPU, m) {
  m.impl("shrink", &stubp::shrink_cpu);
  m.impl("expand", &stubp::expand_cpu);
  m.impl("scaled", &stubp::scaled_cpu);
}

TORCH_LIBRARY_FRAGMENT(stubp, m) {
  STUBP_OP_REGISTER_DISPATCH("lora_shrink", stubp::lora_shrink_cpu,
                             c10::DispatchKey::CPU)
}
