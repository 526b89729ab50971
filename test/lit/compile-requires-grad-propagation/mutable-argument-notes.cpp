// RUN: %check_torch_tidy %s torch-compile-requires-grad-propagation %t
// Every note of a mutable-argument warning: the write inside a helper, the
// `(a!)` in the schema, the registration with its key, and the remedy.
#include <torch/torch.h>

static void store(at::Tensor &dst, const at::Tensor &src) {
  dst.narrow(0, 0, 2).copy_(src);
}

void put_rows_(at::Tensor &m, const at::Tensor &v) {
  store(m, v * 2);
  // CHECK-NOTES: :[[@LINE-1]]:3: warning: in-place copy_ into mutable argument 'm' of operator 'mylib::put_rows_' from 'v * 2', which may require grad: a torch.compile'd caller keeps reading requires_grad() == false for the tensor it passed (measured on torch 2.8.0 and 2.15.0), and code that branches on it drops gradients [torch-compile-requires-grad-propagation]
  // CHECK-NOTES: :[[@LINE-6]]:3: note: the in-place copy_ is here, in 'store'
  // CHECK-NOTES: :[[@LINE+14]]:26: note: 'm' is declared mutable here
  // CHECK-NOTES: :[[@LINE+17]]:37: note: 'put_rows_' is registered here as the CPU kernel of 'mylib::put_rows_'
  // CHECK-NOTES: :[[@LINE-5]]:3: note: no fix: make a functional variant that returns the written tensor, such as 'put_rows(Tensor m, Tensor v) -> Tensor', and have callers use its result
}

void scale_out(const at::Tensor &v, int64_t k, at::Tensor &out) {
  out.add_(v);
  // CHECK-NOTES: :[[@LINE-1]]:3: warning: in-place add_ into mutable argument 'out' of operator 'mylib::scale.out'
  // CHECK-NOTES: :[[@LINE+7]]:46: note: 'out' is declared mutable here
  // CHECK-NOTES: :[[@LINE+6]]:3: note: 'scale_out' is registered here as the CompositeImplicitAutograd kernel of 'mylib::scale.out'
  // CHECK-NOTES: :[[@LINE-4]]:3: note: no fix: make a functional variant that returns the written tensor, such as 'scale(Tensor v, int k) -> Tensor', and have callers use its result
}

TORCH_LIBRARY(mylib, m) {
  m.def("put_rows_(Tensor(a!) m, Tensor v) -> ()");
  m.def("scale.out(Tensor v, int k, *, Tensor(a!) out) -> Tensor(a!)",
        &scale_out);
}
TORCH_LIBRARY_IMPL(mylib, CPU, m) { m.impl("put_rows_", &put_rows_); }
