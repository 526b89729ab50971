// RUN: %check_torch_tidy %s torch-write-into-copy %t
// Device moves (docs/ground-truth-device-moves.json, a GPU run): a write
// into a CUDA tensor's cpu() or to(kCPU), or a CPU tensor's cuda() or
// to(kCUDA), lands in a copy. Reported in kernels that such tensors reach
// (registered for the other device, or catch-all), never in a kernel only
// tensors of the target device reach, nor outside a registered kernel.
#include <torch/torch.h>

void cuda_kernel(at::Tensor &out) {
  auto host = out.cpu();
  host.add_(1);
  // CHECK-MESSAGES: :[[@LINE-1]]:3: warning: write into 'out.cpu()' (add_) is lost when 'out' is a CUDA tensor: cpu() then returns a new tensor, and the caller's 'out' is left unchanged; no write-back copies it into the receiver [torch-write-into-copy]
  // CHECK-MESSAGES: :[[@LINE+49]]:3: note: 'out' is declared mutable in the schema of 'dev::cuda_kernel'
  // CHECK-MESSAGES: :[[@LINE+48]]:3: note: 'dev::cuda_kernel' has this kernel for CUDA
  // CHECK-MESSAGES: :[[@LINE-4]]:3: note: no fix: no rule of RewriteRules.def moves a device copy's values back yet; copy them into the receiver after the last write (out.copy_(...)), or write on its device
}

void to_cpu_kernel(at::Tensor &out) {
  out.to(at::kCPU).mul_(2);
  // CHECK-MESSAGES: :[[@LINE-1]]:3: warning: write into 'out.to(at::kCPU)' (mul_) is lost when 'out' is a CUDA tensor: to() then
}

void catch_all(at::Tensor &out) {
  float *p = out.cpu().data_ptr<float>();
  p[0] = 1;
  // CHECK-MESSAGES: :[[@LINE-1]]:3: warning: write into 'out.cpu()' (a write through data_ptr) is lost when 'out' is a CUDA tensor: cpu() then
  // CHECK-MESSAGES: :[[@LINE+41]]:3: note: 'dev::catch_all' has a catch-all kernel here (CompositeExplicitAutograd), which CUDA tensors reach
}

void cpu_kernel_to_cuda(at::Tensor &out) {
  out.cuda().zero_();
  // CHECK-MESSAGES: :[[@LINE-1]]:3: warning: write into 'out.cuda()' (zero_) is lost when 'out' is a CPU tensor: cuda() then
  out.to(torch::Device("cuda")).zero_();
  // CHECK-MESSAGES: :[[@LINE-1]]:3: warning: write into 'out.to(torch::Device("cuda"))' (zero_) is lost when 'out' is a CPU tensor: to() then
}

// Not reported: a CPU kernel's cpu() returns its receiver; a CUDA kernel's
// cuda() too; a guard that rules the copy out; a device in a variable.
void cpu_kernel(at::Tensor &out, const at::Tensor &other) {
  out.cpu().add_(1);
  out.to(at::kCPU).add_(1);
  out.to(other.device()).add_(1);
}
void cuda_kernel_to_cuda(at::Tensor &out) {
  out.cuda().add_(1);
}
void guarded(at::Tensor &out) {
  TORCH_CHECK(out.is_cpu(), "out must be a CPU tensor");
  out.cpu().add_(1);
}

TORCH_LIBRARY(dev, m) {
  m.def("cuda_kernel(Tensor(a!) out) -> ()");
  m.def("to_cpu_kernel(Tensor(a!) out) -> ()");
  m.def("catch_all(Tensor(a!) out) -> ()");
  m.def("cpu_kernel_to_cuda(Tensor(a!) out) -> ()");
  m.def("cpu_kernel(Tensor(a!) out, Tensor other) -> ()");
  m.def("cuda_kernel_to_cuda(Tensor(a!) out) -> ()");
  m.def("guarded(Tensor(a!) out) -> ()");
}
TORCH_LIBRARY_IMPL(dev, CUDA, m) {
  m.impl("cuda_kernel", &cuda_kernel);
  m.impl("to_cpu_kernel", &to_cpu_kernel);
  m.impl("cuda_kernel_to_cuda", &cuda_kernel_to_cuda);
  m.impl("guarded", &guarded);
}
TORCH_LIBRARY_IMPL(dev, CompositeExplicitAutograd, m) {
  m.impl("catch_all", &catch_all);
}
TORCH_LIBRARY_IMPL(dev, CPU, m) {
  m.impl("cpu_kernel_to_cuda", &cpu_kernel_to_cuda);
  m.impl("cpu_kernel", &cpu_kernel);
}
