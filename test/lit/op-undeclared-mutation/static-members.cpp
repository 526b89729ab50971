// RUN: %check_torch_tidy %s torch-op-undeclared-mutation %t
// Static member functions are followed as free helpers are: plain, member
// templates, and dispatch chains through class templates; F::apply of a
// custom autograd function (struct F : torch::autograd::Function<F>) is
// followed into F::forward, its arguments after the context. opcheck's
// test_schema rejects such operators undeclared (generated operators
// static_helper and autograd_apply in docs/ground-truth-mutation.json, both
// versions; inductor gives other values than eager for the CPU kernels).
#include <torch/torch.h>

namespace {
struct Kernels {
  static void scale(const at::Tensor &t) { t.mul_(2); }
  template <typename T> static void fill(const at::Tensor &t, T v) {
    t.fill_(v);
  }
  static at::Tensor sum(const at::Tensor &t) { return t.sum(); }
};
template <typename T> struct Dispatch {
  static void run(const at::Tensor &t) { Kernels::scale(t); }
};
struct Bump : torch::autograd::Function<Bump> {
  static at::Tensor forward(torch::autograd::AutogradContext *ctx,
                            const at::Tensor &x, const at::Tensor &y) {
    x.add_(y);
    return y.clone();
  }
};
struct ReadOnly : torch::autograd::Function<ReadOnly> {
  static at::Tensor forward(torch::autograd::AutogradContext *ctx,
                            const at::Tensor &x) {
    return x * 2;
  }
};
} // namespace

at::Tensor plain(const at::Tensor &a, const at::Tensor &b) {
  Kernels::scale(a);
  // CHECK-MESSAGES: :[[@LINE-1]]:3: warning: mul_ writes into argument 'a' of operator 'sm::plain', which its schema does not declare mutable
  // CHECK-MESSAGES: :13:44: note: the write is here, in '(anonymous namespace)::Kernels::scale'
  return b.sum();
}

at::Tensor templated(const at::Tensor &a, const at::Tensor &b) {
  Kernels::fill(a, 1.0);
  // CHECK-MESSAGES: :[[@LINE-1]]:3: warning: fill_ writes into argument 'a' of operator 'sm::templated'
  return b.sum();
}

at::Tensor chain(const at::Tensor &a, const at::Tensor &b) {
  Dispatch<float>::run(a);
  // CHECK-MESSAGES: :[[@LINE-1]]:3: warning: mul_ writes into argument 'a' of operator 'sm::chain'
  return b.sum();
}

at::Tensor autograd_fn(const at::Tensor &a, const at::Tensor &b) {
  return Bump::apply(a, b);
  // CHECK-MESSAGES: :[[@LINE-1]]:10: warning: add_ writes into argument 'a' of operator 'sm::autograd_fn'
  // CHECK-MESSAGES: :25:5: note: the write is here, in '(anonymous namespace)::Bump::forward'
}

// Not reported: a static member that only reads; a forward that reads.
at::Tensor reads(const at::Tensor &a, const at::Tensor &b) {
  return Kernels::sum(a) + ReadOnly::apply(b);
}

TORCH_LIBRARY(sm, m) {
  m.def("plain(Tensor a, Tensor b) -> Tensor");
  m.def("templated(Tensor a, Tensor b) -> Tensor");
  m.def("chain(Tensor a, Tensor b) -> Tensor");
  m.def("autograd_fn(Tensor a, Tensor b) -> Tensor");
  m.def("reads(Tensor a, Tensor b) -> Tensor");
}
TORCH_LIBRARY_IMPL(sm, CPU, m) {
  m.impl("plain", &plain);
  m.impl("templated", &templated);
  m.impl("chain", &chain);
  m.impl("autograd_fn", &autograd_fn);
  m.impl("reads", &reads);
}
