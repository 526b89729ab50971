// CUDA kernels of envx: five of its six operators (host side). Planted for
// the workflow-env-switched test: normalize_cuda writes into `x`, which the
// schema declares `Tensor x` (torch-op-undeclared-mutation: graph break, no
// fake is registered). Nothing else is reported under the defaults
// (fill_rows_cuda writes into its mutable argument, which the flagship
// reports for CUDA kernels under RegionMode: all only).
#include <ATen/ATen.h>
#include <torch/library.h>

using at::indexing::Slice;

namespace envx {

at::Tensor scale_cuda(const at::Tensor &x, double s) { return x.mul(s); }

void clip_cuda(at::Tensor &x, double lo, double hi) { x.clamp_(lo, hi); }

void fill_rows_cuda(at::Tensor &out, const at::Tensor &rows) {
  out.index_put_({Slice(0, rows.size(0))}, rows);
}

at::Tensor normalize_cuda(const at::Tensor &x) {
  x.div_(x.norm());
  return x.sum();
}

at::Tensor count_cuda(const at::Tensor &x) { return x.ne(0).sum(); }

} // namespace envx

TORCH_LIBRARY_IMPL(envx, CUDA, m) {
  m.impl("scale", &envx::scale_cuda);
  m.impl("clip_", &envx::clip_cuda);
  m.impl("fill_rows_", &envx::fill_rows_cuda);
  m.impl("normalize", &envx::normalize_cuda);
  m.impl("count", &envx::count_cuda);
}
