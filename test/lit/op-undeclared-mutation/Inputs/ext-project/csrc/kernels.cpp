// The project's kernels; the schemas are in ops.cpp and extp/ops.py.
#include <torch/torch.h>

namespace {
void scatter_first_cpu(const at::Tensor &Dst, const at::Tensor &Src,
                       const at::Tensor &Index) {
  Dst.narrow(0, 0, 1).add_(Src);
}
at::Tensor norm_out_cpu(const at::Tensor &input, at::Tensor output) {
  float *o = output.mutable_data_ptr<float>();
  o[0] = 1.0f;
  return input.sum();
}
at::Tensor accumulate_cpu(const at::Tensor &x,
                          const c10::optional<at::Tensor> &out) {
  at::Tensor o = out.value();
  o.add_(x);
  return x.sum();
}
void declared_cpu(at::Tensor &m, const at::Tensor &v) { m.copy_(v); }
at::Tensor reads_cpu(const at::Tensor &x) { return x * 2; }
at::Tensor outside_cpu(const at::Tensor &m) {
  m.zero_();
  return m.sum();
}
void grad_into_cpu(at::Tensor &m, const at::Tensor &v) {
  m.index_put_({0}, v);
}
} // namespace

TORCH_LIBRARY_IMPL(extp, CPU, m) {
  m.impl("scatter_first", &scatter_first_cpu);
  m.impl("norm_out", &norm_out_cpu);
  m.impl("accumulate", &accumulate_cpu);
  m.impl("declared", &declared_cpu);
  m.impl("reads", &reads_cpu);
  m.impl("outside", &outside_cpu);
  m.impl("grad_into", &grad_into_cpu);
}
