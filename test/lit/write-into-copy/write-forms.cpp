// RUN: %check_torch_tidy %s torch-write-into-copy %t -- -std=c++17
// Every write form the analyses know, into a copy of an output argument:
// one warning per copying call, at its first write.
#include <cstring>
#include <torch/torch.h>
#include <algorithm>
using torch::indexing::Slice;

void index_put(at::Tensor &out, const at::Tensor &v) {
  auto c = out.contiguous();
  c.index_put_({Slice(0, 2)}, v);
  // CHECK-MESSAGES: :[[@LINE-1]]:3: warning: write into 'out.contiguous()' (index_put_) is lost
  c.add_(1); // a second write into the same copy: no second warning
}

void subscript(at::Tensor &out) {
  auto c = out.contiguous();
  c[0] = 1;
  // CHECK-MESSAGES: :[[@LINE-1]]:3: warning: write into 'out.contiguous()' (operator[] assignment) is lost
}

void free_function(at::Tensor &out) {
  auto c = out.contiguous();
  at::relu_(c);
  // CHECK-MESSAGES: :[[@LINE-1]]:3: warning: write into 'out.contiguous()' (at::relu_) is lost
}

void raw_pointer(at::Tensor &out) {
  auto c = out.contiguous();
  float *p = c.data_ptr<float>();
  std::fill(p, p + c.numel(), 0.f);
  // CHECK-MESSAGES: :[[@LINE-1]]:3: warning: write into 'out.contiguous()' (std::fill) is lost
}

void c_call(at::Tensor &out, const float *src) {
  auto c = out.contiguous();
  std::memcpy(c.data_ptr<float>(), src, 4 * c.numel());
  // CHECK-MESSAGES: :[[@LINE-1]]:3: warning: write into 'out.contiguous()' (memcpy) is lost
}

void accessor(at::Tensor &out) {
  auto c = out.contiguous();
  auto a = c.accessor<float, 1>();
  a[0] = 2;
  // CHECK-MESSAGES: :[[@LINE-1]]:3: warning: write into 'out.contiguous()' (a write through an accessor) is lost
}

// A view struct over the copy's memory, handed to a method.
template <typename T> struct Strided1D {
  Strided1D(T *p, int64_t n) : p(p), n(n) {}
  T *p;
  int64_t n;
};
struct Filler {
  void run(Strided1D<float> s) const;
};
void view_struct(at::Tensor &out, const Filler &f) {
  auto c = out.contiguous();
  f.run(Strided1D<float>(c.data_ptr<float>(), c.numel()));
  // CHECK-MESSAGES: :[[@LINE-1]]:3: warning: write into 'out.contiguous()' (handing its memory, in a 'Strided1D<float>', to 'Filler::run') is lost
}

// The dispatch lambda's writes, and a kernel-style helper taking a pointer.
template <typename T> void scale_kernel(T *p, int64_t n) {
  for (int64_t i = 0; i < n; ++i)
    p[i] *= 2;
}
void dispatch(at::Tensor &out) {
  auto c = out.contiguous();
  AT_DISPATCH_FLOATING_TYPES(c.scalar_type(), "scale", [&] {
    scale_kernel<scalar_t>(c.data_ptr<scalar_t>(), c.numel());
    // CHECK-MESSAGES: :[[@LINE-1]]:5: warning: write into 'out.contiguous()' (a write through data_ptr) is lost
  });
}

// A temporary copy written in place, and through a view of a copy.
void temporary(at::Tensor &out) {
  out.contiguous().view({-1}).mul_(2);
  // CHECK-MESSAGES: :[[@LINE-1]]:3: warning: write into 'out.contiguous()' (mul_) is lost
}

// The copy made here, handed to a helper that writes its parameter: the
// warning is at the call.
void add_one(at::Tensor t) { t.add_(1); }
void copy_to_helper(at::Tensor &out) {
  auto c = out.contiguous();
  add_one(c);
  // CHECK-MESSAGES: :[[@LINE-1]]:3: warning: write into 'out.contiguous()' (add_) is lost
  // CHECK-MESSAGES: :[[@LINE-2]]:3: note: rule: write-back-copy
}
