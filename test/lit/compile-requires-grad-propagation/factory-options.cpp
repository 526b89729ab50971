// RUN: %check_torch_tidy %s torch-compile-requires-grad-propagation %t
// The seed's shape, `zeros(batch, n, n, device=vec.device, dtype=vec.dtype)`
// then an indexed write of vec, however C++ spells the factory's options:
// a value that converts to TensorOptions (Device, DeviceType, ScalarType,
// Layout, MemoryFormat, caffe2::TypeMeta, a device string), TensorOptions()
// chains, torch::/at:: helpers, options variables followed through their
// assignments. Only requires_grad(true), torch::requires_grad(), a
// non-constant flag or options the analysis cannot see make the result a
// value that may require grad, and no target.
#include <torch/torch.h>
#include <torch_tidy/compiled.h>
using torch::indexing::Slice;

TORCH_TIDY_COMPILED at::Tensor device_argument(const at::Tensor &vec,
                                               const at::Tensor &rows,
                                               int64_t b, int64_t n) {
  auto m = torch::zeros({b, n, n}, vec.device());
  m.index_put_({Slice(), rows, rows}, vec);
  // CHECK-MESSAGES: :[[@LINE-1]]:3: warning: in-place index_put_ into 'm', which was created without gradient tracking, from 'vec'
  // CHECK-MESSAGES: :[[@LINE-3]]:12: note: 'm' is created here without requires_grad
  return m;
}

TORCH_TIDY_COMPILED at::Tensor options_chain(const at::Tensor &vec,
                                             const at::Tensor &rows, int64_t b,
                                             int64_t n) {
  auto m = torch::zeros(
      {b, n, n},
      torch::TensorOptions().device(vec.device()).dtype(vec.dtype()));
  m.index_put_({Slice(), rows, rows}, vec);
  // CHECK-MESSAGES: :[[@LINE-1]]:3: warning: in-place index_put_ into 'm'
  return m;
}

TORCH_TIDY_COMPILED at::Tensor dtype_then_device(const at::Tensor &vec,
                                                 const at::Tensor &rows,
                                                 int64_t b, int64_t n) {
  auto m = torch::zeros({b, n, n},
                        torch::dtype(vec.dtype()).device(vec.device()));
  m.index_put_({Slice(), rows, rows}, vec);
  // CHECK-MESSAGES: :[[@LINE-1]]:3: warning: in-place index_put_ into 'm'
  return m;
}

TORCH_TIDY_COMPILED at::Tensor torch_device(const at::Tensor &vec,
                                            const at::Tensor &rows, int64_t b,
                                            int64_t n) {
  auto m = torch::zeros({b, n, n}, torch::device(vec.device()));
  m.index_put_({Slice(), rows, rows}, vec);
  // CHECK-MESSAGES: :[[@LINE-1]]:3: warning: in-place index_put_ into 'm'
  return m;
}

TORCH_TIDY_COMPILED at::Tensor at_device(const at::Tensor &vec,
                                         const at::Tensor &rows, int64_t b,
                                         int64_t n) {
  auto m = at::zeros({b, n, n}, at::device(vec.device()).dtype(at::kFloat));
  m.index_put_({Slice(), rows, rows}, vec);
  // CHECK-MESSAGES: :[[@LINE-1]]:3: warning: in-place index_put_ into 'm'
  return m;
}

TORCH_TIDY_COMPILED at::Tensor options_variable(const at::Tensor &vec,
                                                const at::Tensor &rows,
                                                int64_t b, int64_t n) {
  auto opts = torch::TensorOptions().dtype(vec.dtype());
  opts = opts.device(vec.device());
  auto m = torch::zeros({b, n, n}, opts);
  m.index_put_({Slice(), rows, rows}, vec);
  // CHECK-MESSAGES: :[[@LINE-1]]:3: warning: in-place index_put_ into 'm'
  return m;
}

// The four spellings found before, kept.
TORCH_TIDY_COMPILED at::Tensor found_before(const at::Tensor &vec,
                                            const at::Tensor &rows, int64_t b,
                                            int64_t n) {
  auto a = torch::zeros({b, n, n}, vec.options());
  a.index_put_({Slice(), rows, rows}, vec);
  // CHECK-MESSAGES: :[[@LINE-1]]:3: warning: in-place index_put_ into 'a'
  auto c = vec.new_zeros({b, n, n});
  c.index_put_({Slice(), rows, rows}, vec);
  // CHECK-MESSAGES: :[[@LINE-1]]:3: warning: in-place index_put_ into 'c'
  auto d = torch::zeros({b, n, n}, torch::kCUDA);
  d.index_put_({Slice(), rows, rows}, vec);
  // CHECK-MESSAGES: :[[@LINE-1]]:3: warning: in-place index_put_ into 'd'
  auto e = torch::zeros({b, n, n}, vec.options().requires_grad(false));
  e.index_put_({Slice(), rows, rows}, vec);
  // CHECK-MESSAGES: :[[@LINE-1]]:3: warning: in-place index_put_ into 'e'
  return a + c + d + e;
}

// Every other factory spelling with such options, and the other parts an
// options argument can be made of.
TORCH_TIDY_COMPILED at::Tensor more_spellings(const at::Tensor &vec,
                                              const at::Tensor &rows,
                                              int64_t n) {
  auto a = at::empty({n, n}, vec.options().layout(at::kStrided));
  a.fill_(0);
  a.index_put_({rows}, vec);
  // CHECK-MESSAGES: :[[@LINE-1]]:3: warning: in-place index_put_ into 'a'
  auto c = torch::ones_like(vec, vec.device());
  c.index_put_({rows}, vec);
  // CHECK-MESSAGES: :[[@LINE-1]]:3: warning: in-place index_put_ into 'c'
  auto d = vec.new_empty({n, n}, torch::TensorOptions(vec.dtype()));
  d.zero_();
  d.index_put_({rows}, vec);
  // CHECK-MESSAGES: :[[@LINE-1]]:3: warning: in-place index_put_ into 'd'
  auto e = torch::full({n, n}, 0.5, torch::TensorOptions("cuda:0"));
  e.index_put_({rows}, vec);
  // CHECK-MESSAGES: :[[@LINE-1]]:3: warning: in-place index_put_ into 'e'
  auto f = torch::zeros({n, n}, at::MemoryFormat::Contiguous);
  f.index_put_({rows}, vec);
  // CHECK-MESSAGES: :[[@LINE-1]]:3: warning: in-place index_put_ into 'f'
  auto g = torch::zeros({n, n}, torch::layout(torch::kStrided)
                                    .requires_grad(std::nullopt));
  g.index_put_({rows}, vec);
  // CHECK-MESSAGES: :[[@LINE-1]]:3: warning: in-place index_put_ into 'g'
  constexpr bool kTrain = false;
  auto h = torch::zeros({n, n}, torch::requires_grad(kTrain));
  h.index_put_({rows}, vec);
  // CHECK-MESSAGES: :[[@LINE-1]]:3: warning: in-place index_put_ into 'h'
  torch::TensorOptions o;
  if (vec.is_cuda())
    o = o.device(torch::kCUDA);
  else
    o = vec.options();
  auto i = torch::zeros({n, n}, o);
  i.index_put_({rows}, vec);
  // CHECK-MESSAGES: :[[@LINE-1]]:3: warning: in-place index_put_ into 'i'
  auto j = torch::zeros({n, n}, vec.is_cuda() ? torch::Device(torch::kCUDA)
                                              : vec.device());
  j.index_put_({rows}, vec);
  // CHECK-MESSAGES: :[[@LINE-1]]:3: warning: in-place index_put_ into 'j'
  auto k = torch::empty({n, n}, caffe2::TypeMeta::fromScalarType(at::kFloat));
  k.index_put_({rows}, vec);
  // CHECK-MESSAGES: :[[@LINE-1]]:3: warning: in-place index_put_ into 'k'
  // A fill chained on the factory returns the same fresh tensor.
  auto l = torch::empty({n, n}, vec.device()).fill_(0);
  l.index_put_({rows}, vec);
  // CHECK-MESSAGES: :[[@LINE-1]]:3: warning: in-place index_put_ into 'l'
  at::Tensor q = at::empty({n, n}, vec.options()).zero_();
  q.index_put_({rows}, vec);
  // CHECK-MESSAGES: :[[@LINE-1]]:3: warning: in-place index_put_ into 'q'
  // A fill from a value with grad is a write like any other: the tensor
  // stays the fresh target of later sliced writes.
  auto p = torch::empty({n, n}).fill_(vec.sum());
  p.index_put_({rows}, vec);
  // CHECK-MESSAGES: :[[@LINE-1]]:3: warning: in-place index_put_ into 'p'
  return a + c + d + e + f + g + h + i + j + k + l + q + p;
}

// Negatives: options that ask for grad, or that the analysis cannot see.
torch::TensorOptions make_options();
struct Holder {
  torch::TensorOptions opts;
  TORCH_TIDY_COMPILED at::Tensor negatives(const at::Tensor &vec,
                                           const at::Tensor &rows, int64_t n,
                                           bool train,
                                           torch::TensorOptions given) {
    auto a = torch::zeros({n, n}, vec.options().requires_grad(true));
    a = a.clone();
    a.index_put_({rows}, vec);
    auto b = torch::zeros({n, n}, torch::requires_grad()).clone();
    b.index_put_({rows}, vec);
    auto c = torch::zeros({n, n}, vec.options().requires_grad(train));
    c.index_put_({rows}, vec);
    auto d = torch::zeros({n, n}, given); // from the caller
    d.index_put_({rows}, vec);
    auto e = torch::zeros({n, n}, opts); // a member
    e.index_put_({rows}, vec);
    auto f = torch::zeros({n, n}, make_options()); // unknown code
    f.index_put_({rows}, vec);
    auto later = vec.options();
    later = later.requires_grad(true); // an assignment that asks
    auto g = torch::zeros({n, n}, later).clone();
    g.index_put_({rows}, vec);
    auto escaped = vec.options();
    change(escaped); // may be changed through the reference
    auto h = torch::zeros({n, n}, escaped);
    h.index_put_({rows}, vec);
    auto i = torch::zeros({n, n}, torch::dtype(vec.dtype())
                                      .requires_grad(train && n > 0));
    i.index_put_({rows}, vec);
    auto j = torch::zeros({n, n}, torch::dtype(at::kFloat).merge_in(given));
    j.index_put_({rows}, vec);
    return a + b + c + d + e + f + g + h + i + j;
  }
  static void change(torch::TensorOptions &o);
};
