// Registration shapes of real projects (docs/ground-truth-registrations.json):
// rwkv's catch-all kernel with a CUDA kernel beside it, a catch-all written
// with ATen ops beside a CPU kernel, and operators whose fakes are
// registered in sp/fakes.py in a loop, through getattr, by a helper and
// under a condition.
#include <torch/torch.h>

namespace {
// rwkv: `ops.def(name, fn)` and `ops.impl(name, torch::kCUDA, fn)`.
void rw_forward(at::Tensor y, at::Tensor s) {
  float *out = y.data_ptr<float>();
  out[0] = s.data_ptr<float>()[0];
}
void aten_catch(const at::Tensor &dst) { dst.add_(1); }
void aten_cpu(const at::Tensor &dst) { dst.mul_(2); }
void gemm_cpu(const at::Tensor &a, const at::Tensor &d) { d.copy_(a); }
} // namespace

TORCH_LIBRARY(sp, m) {
  m.def("rw_forward", &rw_forward);
  m.def("aten_both(Tensor dst) -> ()", &aten_catch);
  m.def("gemm_nt(Tensor a, Tensor d) -> ()");
  m.def("gemm_nn(Tensor a, Tensor d) -> ()");
  m.def("by_getattr(Tensor a, Tensor d) -> ()");
  m.def("by_helper(Tensor a, Tensor d) -> ()");
  m.def("helper_loop(Tensor a, Tensor d) -> ()");
  m.def("when_compiled(Tensor a, Tensor d) -> ()");
}

TORCH_LIBRARY_IMPL(sp, CUDA, m) { m.impl("rw_forward", &rw_forward); }

TORCH_LIBRARY_IMPL(sp, CPU, m) {
  m.impl("aten_both", &aten_cpu);
  m.impl("gemm_nt", &gemm_cpu);
  m.impl("gemm_nn", &gemm_cpu);
  m.impl("by_getattr", &gemm_cpu);
  m.impl("by_helper", &gemm_cpu);
  m.impl("helper_loop", &gemm_cpu);
  m.impl("when_compiled", &gemm_cpu);
}
