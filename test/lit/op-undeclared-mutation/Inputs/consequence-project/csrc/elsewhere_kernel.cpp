// A kernel file as CUDA projects write them: the functions only; another
// file (register.cpp) registers them by name.
#include <torch/torch.h>

namespace cq_kernels {
void elsewhere_cuda(const at::Tensor &dst, const at::Tensor &src) {
  dst.narrow(0, 0, 1).copy_(src);
}
} // namespace cq_kernels

// Of the same name in another namespace: not the kernel register.cpp
// names (cq_kernels::elsewhere_cuda), so not judged against its schema.
namespace other {
void elsewhere_cuda(const at::Tensor &dst, const at::Tensor &src) {
  dst.zero_();
}
} // namespace other

// Not registered anywhere: nothing to judge it against.
void unregistered(const at::Tensor &dst) { dst.zero_(); }
