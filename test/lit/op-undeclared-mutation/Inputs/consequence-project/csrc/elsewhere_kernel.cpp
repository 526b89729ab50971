// A kernel file as CUDA projects write them: the functions only; another
// file (register.cpp) registers them by name.
#include <torch/torch.h>

void elsewhere_cuda(const at::Tensor &dst, const at::Tensor &src) {
  dst.narrow(0, 0, 1).copy_(src);
}

// Not registered anywhere: nothing to judge it against.
void unregistered(const at::Tensor &dst) { dst.zero_(); }
