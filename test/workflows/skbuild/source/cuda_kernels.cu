// skbx's CUDA kernels (host side). Planted for the workflow-skbuild test:
// scale_rows_cuda writes into `x`, which the schema declares `Tensor x`;
// skbx/fakes.py registers a fake for skbx::scale_rows, so the class is
// silent. offset_cuda is clean.
#include "skbx/kernels.h"
#include <torch/library.h>

namespace skbx {
at::Tensor scale_rows_cuda(const at::Tensor &x, const at::Tensor &s) {
  x.mul_(s);
  return x.sum();
}

at::Tensor offset_cuda(const at::Tensor &x, double v) { return x.add(v); }
} // namespace skbx

TORCH_LIBRARY_IMPL(skbx, CUDA, m) {
  m.impl("scale_rows", &skbx::scale_rows_cuda);
  m.impl("offset", &skbx::offset_cuda);
}
