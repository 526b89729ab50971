#pragma once
#include <ATen/core/Tensor.h>

namespace plain_ops {
at::Tensor accumulate_cpu(const at::Tensor &acc, const at::Tensor &x);
at::Tensor accumulate_meta(const at::Tensor &acc, const at::Tensor &x);
} // namespace plain_ops
