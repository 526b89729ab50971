#include <torch/extension.h>

// Adds src into the first rows of out.
void add_rows(at::Tensor out, const at::Tensor &src) {
  auto rows = out.narrow(0, 0, src.size(0));
  rows.add_(src);
}

// Writes x * 2 into out.
void doubled(at::Tensor out, const at::Tensor &x) { at::mul_out(out, x, 2); }

PYBIND11_MODULE(TORCH_EXTENSION_NAME, m) {
  m.def("add_rows", &add_rows, "adds src into the first rows of out");
  m.def("doubled", &doubled, "writes x * 2 into out");
}
