// Fake (Meta) kernels in C++, and a CompositeExplicitAutograd kernel.
#include "dispatch.h"
#include <torch/torch.h>

namespace {
at::Tensor silent_meta_meta(const at::Tensor &dst, const at::Tensor &src) {
  return src.sum();
}
void silent_wrapper_meta(const at::Tensor &dst, const at::Tensor &src) {}
void explicit_op_kernel(const at::Tensor &dst) { dst.zero_(); }
} // namespace

TORCH_LIBRARY_IMPL(cq, Meta, m) {
  m.impl("silent_meta", &silent_meta_meta);
  DISPATCH_TO_META("silent_wrapper", silent_wrapper_meta);
}

TORCH_LIBRARY_IMPL(cq, CompositeExplicitAutograd, m) {
  m.impl("explicit_op", &explicit_op_kernel);
}
