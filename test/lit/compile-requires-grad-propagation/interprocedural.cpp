// RUN: %check_torch_tidy %s torch-compile-requires-grad-propagation %t \
// RUN:   %fresh_in_kernels
// A fresh tensor passed to a same-TU function that writes into it in place
// is reported at the call site, with a note at the write.
#include <torch/torch.h>
using torch::indexing::Slice;

static void fill_upper(at::Tensor &out, const at::Tensor &vec) {
  out.index_put_({Slice(), 0}, vec);
}
static void fill_by_value(at::Tensor out, const at::Tensor &vec) {
  out.select(1, 0).copy_(vec);
}
static void fill_indirect(at::Tensor &out, const at::Tensor &vec) {
  fill_upper(out, vec);
}
static void fill_constant(at::Tensor &out) { out.index_put_({0}, 1.0); }
static void fill_detached(at::Tensor &out, const at::Tensor &vec) {
  out.index_put_({0}, vec.detach());
}
static void fill_no_grad(at::Tensor &out, const at::Tensor &vec) {
  torch::NoGradGuard guard;
  out.index_put_({0}, vec);
}
static void replace(at::Tensor &out, const at::Tensor &vec) { out = vec * 2; }
void external(at::Tensor &out);

at::Tensor kernel(const at::Tensor &vec, const at::Tensor &param) {
  auto a = torch::zeros({2, 3});
  fill_upper(a, vec);
  // CHECK-NOTES: :[[@LINE-1]]:3: warning: 'fill_upper' writes in place (index_put_) into 'a', which was created without gradient tracking, from a value that may require grad
  // CHECK-NOTES: :[[@LINE-23]]:3: note: the in-place write from 'vec' is here
  // CHECK-NOTES: :[[@LINE-4]]:12: note: 'a' is created here without requires_grad
  // CHECK-NOTES: :[[@LINE+37]]:3: note: 'kernel' runs inside torch.compile: it is registered here as a CompositeImplicitAutograd kernel
  // CHECK-NOTES: :[[@LINE-5]]:3: note: no fix: the write is in '{{[a-z_]+}}'; rewrite it there to the out-of-place form
  auto b = torch::zeros({2, 3});
  fill_by_value(b, vec);
  // CHECK-NOTES: :[[@LINE-1]]:3: warning: 'fill_by_value' writes in place (copy_) into 'b'
  // CHECK-NOTES: :[[@LINE-27]]:3: note: the in-place write from 'vec' is here
  // CHECK-NOTES: :[[@LINE-4]]:12: note: 'b' is created here without requires_grad
  // CHECK-NOTES: :[[@LINE+30]]:3: note: 'kernel' runs inside torch.compile
  // CHECK-NOTES: :[[@LINE-5]]:3: note: no fix: the write is in '{{[a-z_]+}}'; rewrite it there to the out-of-place form
  auto c = torch::zeros({2, 3});
  fill_indirect(c, vec);
  // CHECK-NOTES: :[[@LINE-1]]:3: warning: 'fill_indirect' writes in place (index_put_) into 'c'
  // CHECK-NOTES: :[[@LINE-37]]:3: note: the in-place write from 'vec' is here
  // CHECK-NOTES: :[[@LINE-4]]:12: note: 'c' is created here without requires_grad
  // CHECK-NOTES: :[[@LINE+23]]:3: note: 'kernel' runs inside torch.compile
  // CHECK-NOTES: :[[@LINE-5]]:3: note: no fix: the write is in '{{[a-z_]+}}'; rewrite it there to the out-of-place form
  auto d = torch::zeros({2, 3});
  fill_constant(d);
  fill_detached(d, vec);
  fill_no_grad(d, vec);
  auto e = torch::zeros({2, 3});
  replace(e, vec);
  e.index_put_({0}, vec); // replaced by a grad value
  auto f = torch::zeros({2, 3});
  external(f);
  f.index_put_({0}, vec); // an unknown function may have replaced it
  auto g = torch::zeros({2, 3});
  {
    torch::NoGradGuard guard;
    fill_upper(g, vec);
  }
  at::Tensor p = param;
  fill_upper(p, vec); // not fresh
  return a + b + c + d + e + f + g;
}

TORCH_LIBRARY(tt, m) {
  m.def("kernel(Tensor vec, Tensor param) -> Tensor", &kernel);
}
