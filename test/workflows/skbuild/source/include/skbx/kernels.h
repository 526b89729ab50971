// skbx's kernel declarations, shared by the CPU and CUDA files.
#pragma once
#include <ATen/ATen.h>

namespace skbx {
at::Tensor scale_rows_cpu(const at::Tensor &x, const at::Tensor &s);
at::Tensor scale_rows_cuda(const at::Tensor &x, const at::Tensor &s);
at::Tensor offset_cuda(const at::Tensor &x, double v);
} // namespace skbx
