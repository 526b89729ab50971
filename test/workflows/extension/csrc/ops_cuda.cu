// tidy_ext operators with CUDA code. Planted for the workflow-extension test:
// two findings (scatter_rows_, clip) and one clean operator (scale_rows).
#include <ATen/cuda/CUDAContext.h>
#include <c10/cuda/CUDAGuard.h>
#include <torch/extension.h>
#include <torch/library.h>

namespace tidy_ext {

__global__ void scale_kernel(const float *src, float *dst, float alpha,
                             int64_t n) {
  const int64_t i = blockIdx.x * static_cast<int64_t>(blockDim.x) + threadIdx.x;
  if (i < n)
    dst[i] = alpha * src[i];
}

at::Tensor scale_rows_cuda(const at::Tensor &src, double alpha) {
  TORCH_CHECK(src.is_cuda() && src.scalar_type() == at::kFloat);
  const c10::cuda::CUDAGuard guard(src.device());
  auto in = src.contiguous();
  auto out = at::empty_like(in);
  const int64_t n = in.numel();
  scale_kernel<<<(n + 255) / 256, 256, 0, at::cuda::getCurrentCUDAStream()>>>(
      in.data_ptr<float>(), out.data_ptr<float>(), static_cast<float>(alpha),
      n);
  C10_CUDA_KERNEL_LAUNCH_CHECK();
  return out;
}

// Adds `rows` into the rows `idx` of `out`, a buffer the caller owns.
void scatter_rows_(at::Tensor &out, const at::Tensor &idx,
                   const at::Tensor &rows) {
  out.index_put_({idx}, rows, /*accumulate=*/true);
}

// Clamps `x` into [-limit, limit] in place, though the schema says `Tensor x`.
at::Tensor clip_cuda(const at::Tensor &x, double limit) {
  const c10::cuda::CUDAGuard guard(x.device());
  x.clamp_(-limit, limit);
  return x.abs().amax();
}

} // namespace tidy_ext

TORCH_LIBRARY_FRAGMENT(tidy_ext, m) {
  m.def("scale_rows(Tensor src, float alpha) -> Tensor");
  m.def("scatter_rows_(Tensor(a!) out, Tensor idx, Tensor rows) -> ()",
        &tidy_ext::scatter_rows_);
  m.def("clip(Tensor x, float limit) -> Tensor");
}

TORCH_LIBRARY_IMPL(tidy_ext, CUDA, m) {
  m.impl("scale_rows", &tidy_ext::scale_rows_cuda);
  m.impl("clip", &tidy_ext::clip_cuda);
}
