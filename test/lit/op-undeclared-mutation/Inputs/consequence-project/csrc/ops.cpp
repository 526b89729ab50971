// The project's schemas, two catch-all kernels and one Meta kernel; the
// other kernels are in kernels.cpp and meta.cpp, the Python fakes in
// cq/fakes.py.
#include <torch/torch.h>

namespace {
void catch_raw_kernel(const at::Tensor &dst) {
  float *p = dst.data_ptr<float>();
  p[0] = 1.0f;
}
void catch_aten_kernel(const at::Tensor &dst) { dst.add_(1); }
void same_file_meta(const at::Tensor &dst) {}
} // namespace

TORCH_LIBRARY(cq, m) {
  m.def("silent_py(Tensor dst, Tensor src) -> ()");
  m.def("silent_meta(Tensor dst, Tensor src) -> Tensor");
  m.def("silent_wrapper(Tensor dst, Tensor src) -> ()");
  m.def("graph_break(Tensor dst, Tensor src) -> ()");
  m.def("effects_only(Tensor x, str path) -> ()");
  m.def("explicit_op(Tensor dst) -> ()");
  m.def("catch_raw(Tensor dst) -> ()", &catch_raw_kernel);
  m.def("catch_aten(Tensor dst) -> ()", &catch_aten_kernel);
  m.def("py_meta(Tensor dst) -> ()");
  m.def("lib_meta(Tensor dst) -> ()");
  m.def("abs_fake(Tensor dst) -> ()");
  m.def("same_file(Tensor dst) -> ()");
  m.def("declared(Tensor(a!) dst, Tensor src) -> ()");
  m.def("elsewhere(Tensor dst, Tensor src) -> ()");
  m.def("autograd_out(Tensor x, Tensor out) -> Tensor");
}

TORCH_LIBRARY_IMPL(cq, Meta, m) { m.impl("same_file", &same_file_meta); }
