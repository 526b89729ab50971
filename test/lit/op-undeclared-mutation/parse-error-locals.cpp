// A function template whose instantiation fails (a backend's header missing,
// as at::xpu's is on a machine without SYCL) is analysed in its pattern,
// where `Kernel task(p, n)` of a dependent type is a ParenListExpr without a
// type: the analysis skips it, reports the write it can see, and does not
// crash (it did on sgl-kernel-xpu's src/sycl/MoEPrepareInputs.cpp).
// RUN: not %clang_tidy --load=%torch_tidy_module -checks='-*,torch-op-undeclared-mutation' \
// RUN:   %s -- -std=c++17 -isystem %mock_include > %t.out 2>&1
// RUN: FileCheck %s --implicit-check-not=warning: --implicit-check-not="Stack dump" < %t.out
#include <torch/library.h>
#include <torch/torch.h>

template <typename T> struct CountTask {
  T *out;
  int64_t n;
  CountTask(T *out, int64_t n) : out(out), n(n) {}
  void operator()() const { out[0] = static_cast<T>(n); }
};

template <typename T> void launch_counts(at::Tensor &counts, int64_t n) {
  T *out = static_cast<T *>(counts.data_ptr());
  auto stream = at::xpu::getCurrentXPUStream();
  using Kernel = CountTask<T>;
  Kernel task(out, n);
  stream.submit(task);
}

void fill_counts(at::Tensor counts, const at::Tensor &ids) {
  launch_counts<int>(counts, ids.numel());
  auto *out = counts.data_ptr<int>();
  out[1] = static_cast<int>(ids.numel());
}

TORCH_LIBRARY(xpu_like, m) {
  m.def("fill_counts(Tensor counts, Tensor ids) -> ()");
}
TORCH_LIBRARY_IMPL(xpu_like, CPU, m) { m.impl("fill_counts", &fill_counts); }
// CHECK: error: no member named 'xpu' in namespace 'at'
// CHECK: warning: a write through data_ptr writes into argument 'counts' of operator 'xpu_like::fill_counts'
