// tidy_ext operators, host side. Planted for the workflow-extension test:
// two findings (fill_rows_, normalize) and one clean operator (with_rows).
#include <torch/extension.h>
#include <torch/library.h>

using torch::indexing::Slice;

namespace tidy_ext {

// Fills the first rows of `out`, a buffer the caller owns.
void fill_rows_(at::Tensor &out, const at::Tensor &rows) {
  out.index_put_({Slice(0, rows.size(0))}, rows);
}

// The functional form: returns a new tensor, the caller's stays untouched.
at::Tensor with_rows(const at::Tensor &base, const at::Tensor &rows) {
  return base.slice_scatter(rows, 0, 0, rows.size(0));
}

// Divides by the norm in place, though the schema says `Tensor x`.
at::Tensor normalize_cpu(const at::Tensor &x) {
  x.div_(x.norm());
  return x.sum();
}

} // namespace tidy_ext

TORCH_LIBRARY(tidy_ext, m) {
  m.def("fill_rows_(Tensor(a!) out, Tensor rows) -> ()", &tidy_ext::fill_rows_);
  m.def("with_rows(Tensor base, Tensor rows) -> Tensor", &tidy_ext::with_rows);
  m.def("normalize(Tensor x) -> Tensor");
}

TORCH_LIBRARY_IMPL(tidy_ext, CPU, m) {
  m.impl("normalize", &tidy_ext::normalize_cpu);
}

// `import tidy_ext._C` loads the library and so registers the operators.
PYBIND11_MODULE(TORCH_EXTENSION_NAME, m) {}
