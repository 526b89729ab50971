// RUN: %check_torch_tidy %s torch-op-undeclared-mutation %t
// Memory handed to a function whose body is not here is guessed written
// only where the declaration's `const` tells inputs from outputs: some of
// its pointers are to const, or it takes one pointer only. A launcher that
// takes every pointer non-const (kernels-community's rwkv `cuda_forward`,
// punica's `sgmv`), a `T **` array of addresses (punica's `w_ptr`) and a
// struct of several non-const pointers (deep-gemm's runtime `Args`) are not
// guessed. One call that writes several arguments reports each of them.
#include <torch/torch.h>

#include <cstdint>

// Every pointer non-const: which it writes is not in the declaration.
void launch_all_mutable(int n, float *w, float *u, float *y);
// Inputs const: the non-const ones are the outputs.
void launch_two_outputs(int n, const float *x, float *y, float *s);
// An array of weight addresses, read through.
void launch_gather(float *y, const float *x, float **w, int n);
// One pointer: nothing to tell it from.
void launch_atomic(int32_t *counter);

struct RuntimeArgs {
  int n;
  void *in;
  void *out;
};
struct Runtime {
  static void launch(const RuntimeArgs &args);
};

void all_mutable_kernel(const at::Tensor &w, const at::Tensor &u,
                        const at::Tensor &y) {
  launch_all_mutable(static_cast<int>(w.numel()), w.data_ptr<float>(),
                     u.data_ptr<float>(), y.data_ptr<float>());
}

void two_outputs_kernel(const at::Tensor &x, const at::Tensor &y,
                        const at::Tensor &s) {
  launch_two_outputs(static_cast<int>(x.numel()), x.data_ptr<float>(),
                     y.data_ptr<float>(), s.data_ptr<float>());
  // Reported in the order of their messages ('s' before 'y').
  // CHECK-MESSAGES: :[[@LINE-3]]:3: warning: passing its memory to 'launch_two_outputs' writes into argument 's' of operator 'uc::two_outputs'{{.*}}
  // CHECK-MESSAGES: :[[@LINE-4]]:3: warning: passing its memory to 'launch_two_outputs' writes into argument 'y' of operator 'uc::two_outputs'{{.*}}
}

void gather_kernel(const at::Tensor &y, const at::Tensor &x,
                   const at::Tensor &w_ptr) {
  launch_gather(y.data_ptr<float>(), x.data_ptr<float>(),
                static_cast<float **>(w_ptr.data_ptr()),
                static_cast<int>(x.numel()));
}

void atomic_kernel(const at::Tensor &counter) {
  launch_atomic(counter.data_ptr<int32_t>());
  // CHECK-MESSAGES: :[[@LINE-1]]:3: warning: passing its memory to 'launch_atomic' writes into argument 'counter' of operator 'uc::atomic'{{.*}}
}

void runtime_kernel(const at::Tensor &x, const at::Tensor &out) {
  const RuntimeArgs args = {static_cast<int>(x.numel()), x.data_ptr(),
                            out.data_ptr()};
  Runtime::launch(args);
}

// A helper whose body is here writes two arguments at one call: both.
void write_both(float *a, float *b) {
  a[0] = 1.0f;
  b[0] = 2.0f;
}
void both_kernel(const at::Tensor &a, const at::Tensor &b) {
  write_both(a.data_ptr<float>(), b.data_ptr<float>());
  // CHECK-MESSAGES: :[[@LINE-1]]:3: warning: a write through data_ptr writes into argument 'a' of operator 'uc::both'{{.*}}
  // CHECK-MESSAGES: :[[@LINE-2]]:3: warning: a write through data_ptr writes into argument 'b' of operator 'uc::both'{{.*}}
}

TORCH_LIBRARY(uc, m) {
  m.def("all_mutable(Tensor w, Tensor u, Tensor y) -> ()");
  m.def("two_outputs(Tensor x, Tensor y, Tensor s) -> ()");
  m.def("gather(Tensor(a!) y, Tensor x, Tensor w_ptr) -> ()");
  m.def("atomic(Tensor counter) -> ()");
  m.def("runtime(Tensor x, Tensor(a!) out) -> ()");
  m.def("both(Tensor a, Tensor b) -> ()");
}
TORCH_LIBRARY_IMPL(uc, CUDA, m) {
  m.impl("all_mutable", &all_mutable_kernel);
  m.impl("two_outputs", &two_outputs_kernel);
  m.impl("gather", &gather_kernel);
  m.impl("atomic", &atomic_kernel);
  m.impl("runtime", &runtime_kernel);
  m.impl("both", &both_kernel);
}
// The launcher whose declaration tells nothing: its operator returns
// nothing and declares nothing mutable, reported at its schema.
// CHECK-MESSAGES: :[[@LINE-17]]:9: warning: operator 'uc::all_mutable' returns nothing

// A catch-all kernel (m.def(name, fn)) that hands memory to such a launcher
// is not guessed to write, but it cannot run on fake tensors: the class
// stays the one of a kernel on raw memory.
void catchall_kernel(at::Tensor w, at::Tensor u, at::Tensor y) {
  launch_all_mutable(static_cast<int>(w.numel()), w.data_ptr<float>(),
                     u.data_ptr<float>(), y.data_ptr<float>());
}
TORCH_LIBRARY_FRAGMENT(uc, m) { m.def("catchall", &catchall_kernel); }
// CHECK-MESSAGES: :[[@LINE-1]]:35: warning: operator 'uc::catchall' returns nothing and its schema declares no argument mutable, as LibTorch infers it from the C++ signature of m.def(name, fn): torch.compile fails at its calls where its catch-all kernel reads or writes tensor data through pointers (loud){{.*}}
