// RUN: %check_torch_tidy %s torch-op-undeclared-mutation %t
// A write through a device move reaches an undeclared argument only where
// the move returns its receiver: cpu() in a CPU kernel, not in a CUDA
// kernel (always a copy there: torch-write-into-copy's subject, not this
// check's).
#include <torch/torch.h>

void k_cpu(const at::Tensor &self) { self.cpu().add_(1); }
// CHECK-MESSAGES: :[[@LINE-1]]:38: warning: add_ writes into argument 'self' of operator 'dm::k_cpu' wherever cpu() returns its receiver (it copies only where the receiver is a CUDA tensor), which its schema does not declare mutable
at::Tensor k_cuda(const at::Tensor &self) { return self.cpu().add_(1); }
void k_cuda_to_cuda(const at::Tensor &self) { self.cuda().add_(1); }
// CHECK-MESSAGES: :[[@LINE-1]]:47: warning: add_ writes into argument 'self' of operator 'dm::k_cuda_to_cuda' wherever cuda() returns its receiver (it copies only where the receiver is a CPU tensor), which its schema does not declare mutable

TORCH_LIBRARY(dm, m) {
  m.def("k_cpu(Tensor self) -> ()");
  m.def("k_cuda(Tensor self) -> Tensor");
  m.def("k_cuda_to_cuda(Tensor self) -> ()");
}
TORCH_LIBRARY_IMPL(dm, CPU, m) { m.impl("k_cpu", &k_cpu); }
TORCH_LIBRARY_IMPL(dm, CUDA, m) {
  m.impl("k_cuda", &k_cuda);
  m.impl("k_cuda_to_cuda", &k_cuda_to_cuda);
}
