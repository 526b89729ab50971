// RUN: %check_torch_tidy %s torch-op-undeclared-mutation %t -- -x cuda --cuda-host-only -nocudainc -nocudalib --cuda-gpu-arch=sm_70
// A CUDA kernel launch (<<<...>>>) handed a tensor's memory: the __global__
// function's body is read, as a helper's is. Parsed as CUDA (host side), as
// torch-tidy-cdb parses .cu files; the runtime headers are stand-ins.
#include <torch/torch.h>
#define __global__ __attribute__((global))
struct dim3 {
  unsigned x, y, z;
  dim3(unsigned a = 1, unsigned b = 1, unsigned c = 1) : x(a), y(b), z(c) {}
};
extern "C" int __cudaPushCallConfiguration(dim3 g, dim3 b, size_t s = 0,
                                           void *st = nullptr);

__global__ void fill_kernel(float *out, int n) { out[0] = 1.0f; }
__global__ void copy_kernel(const float *in, float *tmp, int n) {
  tmp[0] = in[0];
}

// (The expected warning is written above the write: clang prints the lines
// from the write down to the fix-it in the schema.)
// CHECK-MESSAGES: :[[@LINE+3]]:3: warning: a write through data_ptr writes into argument 'out' of operator 'cu::launch', which its schema does not declare mutable
// CHECK-MESSAGES: :[[@LINE-8]]:50: note: the write is here, in 'fill_kernel'
at::Tensor launch(const at::Tensor &x, at::Tensor out) {
  fill_kernel<<<1, 32>>>(out.data_ptr<float>(), 4);
  // x is only read by copy_kernel (a const pointer); t is fresh.
  at::Tensor t = at::zeros_like(x);
  copy_kernel<<<1, 32>>>(x.data_ptr<float>(), t.data_ptr<float>(), 4);
  return x.sum();
}

TORCH_LIBRARY(cu, m) { m.def("launch(Tensor x, Tensor out) -> Tensor"); }
TORCH_LIBRARY_IMPL(cu, CUDA, m) { m.impl("launch", &launch); }
