// The CPU kernels, registered away from the schemas.
#include <ATen/core/Tensor.h>
#include <torch/library.h>

namespace tidy_lib {

// Writes into `x`, which its schema does not declare mutable (a planted
// undeclared mutation: tidy_lib/fakes.py registers a fake for it).
void scale_rows_cpu(const at::Tensor &x, const at::Tensor &rows, double s) {
  x.mul_(s);
}

// Clean: returns a new tensor.
at::Tensor scaled_cpu(const at::Tensor &x, double s) { return x.mul(s); }

} // namespace tidy_lib

TORCH_LIBRARY_IMPL(tidy_lib, CPU, m) {
  m.impl("scale_rows", &tidy_lib::scale_rows_cpu);
  m.impl("scaled", &tidy_lib::scaled_cpu);
}
