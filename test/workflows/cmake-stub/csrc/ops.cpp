// The registered functions: they hand their arguments to the stubs.
#include "dispatch.h"

STUB_DEFINE_DISPATCH(shrink_stub);
STUB_DEFINE_DISPATCH(lora_stub);

namespace stub_lib {

at::Tensor shrink_cpu(at::Tensor &out, const at::Tensor &input, double scale) {
  shrink_stub(c10::kCPU, out, input, scale);
  return input.sum();
}

at::Tensor lora_cpu(at::Tensor &out, const at::Tensor &input, double scale) {
  lora_stub(c10::kCPU, out, input, scale);
  return out;
}

} // namespace stub_lib

TORCH_LIBRARY(stub_lib, m) {
  m.def("shrink(Tensor out, Tensor input, float scale) -> Tensor");
  STUB_OP_REGISTER_DISPATCH("lora", stub_lib::lora_cpu, c10::DispatchKey::CPU)
}

TORCH_LIBRARY_IMPL(stub_lib, CPU, m) {
  m.impl("shrink", &stub_lib::shrink_cpu);
}
