// RUN: %check_torch_tidy %s torch-op-undeclared-mutation %t -- -x cuda --cuda-host-only -nocudainc -nocudalib --cuda-gpu-arch=sm_70
// Atomic updates and inline-assembly stores through a tensor's memory are
// writes (issue 47, item 4): atomicAdd and its kin, ATen's gpuAtomicAdd,
// and a PTX `red` / `st` / `atom` in a helper's inline assembly, followed
// from the kernel launch to the operator's argument. Loads in assembly
// (ld, cp.async's global source) and atomics on fresh buffers are not.
#include <torch/torch.h>
#define __global__ __attribute__((global))
#define __device__ __attribute__((device))
struct dim3 {
  unsigned x, y, z;
  dim3(unsigned a = 1, unsigned b = 1, unsigned c = 1) : x(a), y(b), z(c) {}
};
extern "C" int __cudaPushCallConfiguration(dim3 g, dim3 b, size_t s = 0,
                                           void *st = nullptr);
// Stand-ins for the CUDA runtime's and ATen's declarations.
__device__ float atomicAdd(float *address, float val);
__device__ int atomicMax_block(int *address, int val);
__device__ float gpuAtomicAdd(float *address, float val);

__device__ void red_add(float *p, float v) {
  asm volatile("red.global.add.f32 [%0], %1;" ::"l"(p), "f"(v) : "memory");
}
__device__ void st_named(int *p, int v) {
  asm volatile("st.global.s32 [%[dst]], %[val];" ::[dst] "l"(p), [val] "r"(v));
}
__device__ int ld_only(const int *p) {
  int v;
  asm volatile("ld.global.s32 %0, [%1];" : "=r"(v) : "l"(p));
  return v;
}

__global__ void add_kernel(float *stats, const float *x, int n) {
  atomicAdd(stats + 1, x[0]);
}
__global__ void max_kernel(int *counts, int n) { atomicMax_block(&counts[2], n); }
__global__ void aten_kernel(float *acc, int n) { gpuAtomicAdd(acc, 1.0f); }
__global__ void red_kernel(float *sums, int n) { red_add(sums + n, 2.0f); }
__global__ void st_kernel(int *flags, int n) { st_named(flags, n); }
__global__ void ld_kernel(const int *in, int *out, int n) {
  out[0] = ld_only(in);
}

// CHECK-MESSAGES: :[[@LINE+3]]:3: warning: an atomic update ('atomicAdd') writes into argument 'stats' of operator 'cu::atomics', which its schema does not declare mutable
// CHECK-MESSAGES: :[[@LINE-11]]:3: note: the write is here, in 'add_kernel'
at::Tensor atomics(const at::Tensor &x, at::Tensor stats) {
  add_kernel<<<1, 32>>>(stats.data_ptr<float>(), x.data_ptr<float>(), 4);
  // A fresh buffer's atomics are no argument's.
  at::Tensor scratch = at::zeros_like(x);
  add_kernel<<<1, 32>>>(scratch.data_ptr<float>(), x.data_ptr<float>(), 4);
  return x.sum();
}

// CHECK-MESSAGES: :[[@LINE+3]]:3: warning: an atomic update ('atomicMax_block') writes into argument 'counts' of operator 'cu::maxed', which its schema does not declare mutable
// CHECK-MESSAGES: :[[@LINE-19]]:50: note: the write is here, in 'max_kernel'
at::Tensor maxed(const at::Tensor &x, at::Tensor counts) {
  max_kernel<<<1, 32>>>(counts.data_ptr<int>(), 4);
  return x.sum();
}

// CHECK-MESSAGES: :[[@LINE+3]]:3: warning: an atomic update ('gpuAtomicAdd') writes into argument 'acc' of operator 'cu::aten_atomic', which its schema does not declare mutable
// CHECK-MESSAGES: :[[@LINE-25]]:50: note: the write is here, in 'aten_kernel'
at::Tensor aten_atomic(const at::Tensor &x, at::Tensor acc) {
  aten_kernel<<<1, 32>>>(acc.data_ptr<float>(), 4);
  return x.sum();
}

// CHECK-MESSAGES: :[[@LINE+3]]:3: warning: an inline-assembly store writes into argument 'sums' of operator 'cu::reduced', which its schema does not declare mutable
// CHECK-MESSAGES: :[[@LINE-47]]:53: note: the write is here, in 'red_add'
at::Tensor reduced(const at::Tensor &x, at::Tensor sums) {
  red_kernel<<<1, 32>>>(sums.data_ptr<float>(), 4);
  return x.sum();
}

// CHECK-MESSAGES: :[[@LINE+3]]:3: warning: an inline-assembly store writes into argument 'flags' of operator 'cu::stored', which its schema does not declare mutable
// CHECK-MESSAGES: :[[@LINE-51]]:62: note: the write is here, in 'st_named'
at::Tensor stored(const at::Tensor &x, at::Tensor flags) {
  st_kernel<<<1, 32>>>(flags.data_ptr<int>(), 4);
  return x.sum();
}

// ld.global only reads 'in': no warning.
at::Tensor loaded(const at::Tensor &in, const at::Tensor &x) {
  at::Tensor out = at::empty_like(x);
  ld_kernel<<<1, 32>>>(in.data_ptr<int>(), out.data_ptr<int>(), 4);
  return out;
}

TORCH_LIBRARY(cu, m) {
  m.def("atomics(Tensor x, Tensor stats) -> Tensor");
  m.def("maxed(Tensor x, Tensor counts) -> Tensor");
  m.def("aten_atomic(Tensor x, Tensor acc) -> Tensor");
  m.def("reduced(Tensor x, Tensor sums) -> Tensor");
  m.def("stored(Tensor x, Tensor flags) -> Tensor");
  m.def("loaded(Tensor input, Tensor x) -> Tensor");
}
TORCH_LIBRARY_IMPL(cu, CUDA, m) {
  m.impl("atomics", &atomics);
  m.impl("maxed", &maxed);
  m.impl("aten_atomic", &aten_atomic);
  m.impl("reduced", &reduced);
  m.impl("stored", &stored);
  m.impl("loaded", &loaded);
}
