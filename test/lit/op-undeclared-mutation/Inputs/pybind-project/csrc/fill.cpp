#include <torch/extension.h>

void fill_rows(at::Tensor out, const at::Tensor &src) {
  out.narrow(0, 0, 2).copy_(src);
}
void scale_into(at::Tensor out, const at::Tensor &x) {
  float *p = out.data_ptr<float>();
  p[0] = 1;
}
void fresh(at::Tensor out, const at::Tensor &x) { out.add_(x); }
void no_fake(at::Tensor out, const at::Tensor &x) { out.add_(x); }
void read_only(const at::Tensor &x) {}
void through_copy(at::Tensor out, const at::Tensor &x) {
  out.contiguous().add_(x);
}

PYBIND11_MODULE(TORCH_EXTENSION_NAME, m) {
  m.def("fill_rows", &fill_rows, "fills the first rows");
  m.def("scale_into", &scale_into);
  m.def("fresh", fresh);
  m.def("no_fake", &no_fake);
  m.def("read_only", &read_only);
  m.def("through_copy", &through_copy);
}
