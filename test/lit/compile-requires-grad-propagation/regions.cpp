// RUN: %check_torch_tidy %s torch-compile-requires-grad-propagation %t
// RUN: %check_torch_tidy %s torch-compile-requires-grad-propagation %t-k \
// RUN:   %fresh_in_kernels --check-suffix=KERNELS
// Regions for fresh-local writes: annotated functions and their same-TU
// callees by default; CompositeImplicitAutograd kernels and their callees
// too with FreshTargetsInKernels (the ground truth measured the flag right
// inside C++ kernels, so they are opt-in). Kernels registered below
// autograd (CPU, CUDA, Meta, CompositeExplicitAutograd) are never regions.
#include <torch/torch.h>
#include <torch_tidy/compiled.h>

#define BODY(name)                                                             \
  at::Tensor name(const at::Tensor &v) {                                       \
    auto m = torch::zeros({3});                                                \
    return m;                                                                  \
  }

at::Tensor by_def(const at::Tensor &v) {
  auto m = torch::zeros({3});
  m.index_put_({0}, v);
  // CHECK-MESSAGES-KERNELS: :[[@LINE-1]]:3: warning: in-place index_put_ into 'm'
  return m;
}
at::Tensor by_impl_no_key(const at::Tensor &v) {
  auto m = torch::zeros({3});
  m.index_put_({0}, v);
  // CHECK-MESSAGES-KERNELS: :[[@LINE-1]]:3: warning: in-place index_put_ into 'm'
  return m;
}
at::Tensor by_impl_cia_library(const at::Tensor &v) {
  auto m = torch::zeros({3});
  m.index_put_({0}, v);
  // CHECK-MESSAGES-KERNELS: :[[@LINE-1]]:3: warning: in-place index_put_ into 'm'
  return m;
}
at::Tensor by_dispatch_cia(const at::Tensor &v) {
  auto m = torch::zeros({3});
  m.index_put_({0}, v);
  // CHECK-MESSAGES-KERNELS: :[[@LINE-1]]:3: warning: in-place index_put_ into 'm'
  return m;
}
at::Tensor by_fragment(const at::Tensor &v) {
  auto m = torch::zeros({3});
  m.index_put_({0}, v);
  // CHECK-MESSAGES-KERNELS: :[[@LINE-1]]:3: warning: in-place index_put_ into 'm'
  return m;
}
TORCH_TIDY_COMPILED at::Tensor annotated(const at::Tensor &v) {
  auto m = torch::zeros({3});
  m.index_put_({0}, v);
  // CHECK-MESSAGES: :[[@LINE-1]]:3: warning: in-place index_put_ into 'm'
  // CHECK-MESSAGES-KERNELS: :[[@LINE-2]]:3: warning: in-place index_put_ into 'm'
  return m;
}
[[clang::annotate("torch_tidy::compiled")]] at::Tensor
annotated_by_hand(const at::Tensor &v) {
  auto m = torch::zeros({3});
  m.index_put_({0}, v);
  // CHECK-MESSAGES: :[[@LINE-1]]:3: warning: in-place index_put_ into 'm'
  // CHECK-MESSAGES-KERNELS: :[[@LINE-2]]:3: warning: in-place index_put_ into 'm'
  return m;
}
static at::Tensor helper(const at::Tensor &v) {
  auto m = torch::zeros({3});
  m.index_put_({0}, v);
  // CHECK-MESSAGES-KERNELS: :[[@LINE-1]]:3: warning: in-place index_put_ into 'm'
  return m;
}
static at::Tensor helper_of_helper(const at::Tensor &v) { return helper(v); }
at::Tensor calls_helpers(const at::Tensor &v) {
  auto f = [&](const at::Tensor &x) {
    auto m = torch::zeros({3});
    m.index_put_({0}, x);
    // CHECK-MESSAGES-KERNELS: :[[@LINE-1]]:5: warning: in-place index_put_ into 'm'
    return m;
  };
  return helper_of_helper(v) + f(v);
}

// Not regions.
at::Tensor cpu_kernel(const at::Tensor &v) {
  auto m = torch::zeros({3});
  m.index_put_({0}, v);
  return m;
}
at::Tensor cuda_kernel(const at::Tensor &v) {
  auto m = torch::zeros({3});
  m.index_put_({0}, v);
  return m;
}
at::Tensor explicit_autograd(const at::Tensor &v) {
  auto m = torch::zeros({3});
  m.index_put_({0}, v);
  return m;
}
at::Tensor dispatch_cpu(const at::Tensor &v) {
  auto m = torch::zeros({3});
  m.index_put_({0}, v);
  return m;
}
at::Tensor schema_only(const at::Tensor &v) {
  auto m = torch::zeros({3});
  m.index_put_({0}, v);
  return m;
}
at::Tensor never_registered(const at::Tensor &v) {
  auto m = torch::zeros({3});
  m.index_put_({0}, v);
  return m;
}
[[clang::annotate("something_else")]] at::Tensor other_annotation(
    const at::Tensor &v) {
  auto m = torch::zeros({3});
  m.index_put_({0}, v);
  return m;
}

TORCH_LIBRARY(tt, m) {
  m.def("by_def(Tensor v) -> Tensor", &by_def);
  m.def("by_impl_no_key(Tensor v) -> Tensor");
  m.impl("by_impl_no_key", &by_impl_no_key);
  m.def("cpu_kernel(Tensor v) -> Tensor");
  m.def("schema_only(Tensor v) -> Tensor");
  m.def("by_dispatch_cia(Tensor v) -> Tensor");
  m.impl("by_dispatch_cia",
         torch::dispatch(c10::DispatchKey::CompositeImplicitAutograd,
                         &by_dispatch_cia));
  m.impl("dispatch_cpu", torch::dispatch(c10::DispatchKey::CPU, &dispatch_cpu));
  m.def("calls_helpers(Tensor v) -> Tensor", calls_helpers);
  m.def("lambda(Tensor v) -> Tensor", [](const at::Tensor &v) {
    auto m = torch::zeros({3});
    m.index_put_({0}, v);
    // CHECK-MESSAGES-KERNELS: :[[@LINE-1]]:5: warning: in-place index_put_ into 'm'
    return m;
  });
}
TORCH_LIBRARY_FRAGMENT(tt, m) {
  m.def("by_fragment(Tensor v) -> Tensor", &by_fragment);
}
TORCH_LIBRARY_IMPL(tt, CompositeImplicitAutograd, m) {
  m.impl("by_impl_cia_library", &by_impl_cia_library);
}
TORCH_LIBRARY_IMPL(tt, CPU, m) {
  m.impl("cpu_kernel", &cpu_kernel);
  m.impl("lambda_cpu", [](const at::Tensor &v) {
    auto m = torch::zeros({3});
    m.index_put_({0}, v);
    return m;
  });
}
TORCH_LIBRARY_IMPL(tt, CUDA, m) { m.impl("cuda_kernel", &cuda_kernel); }
TORCH_LIBRARY_IMPL(tt, CompositeExplicitAutograd, m) {
  m.impl("explicit_autograd", &explicit_autograd);
}
