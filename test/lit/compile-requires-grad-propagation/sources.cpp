// RUN: %check_torch_tidy %s torch-compile-requires-grad-propagation %t \
// RUN:   %fresh_in_kernels
// Which sources may require grad: parameters, members, globals, call results
// and values computed from them. Literals, Scalars, detach(), integer and
// bool tensors, index producers and fresh non-grad tensors do not.
#include <torch/torch.h>

at::Tensor global_weight;
at::Tensor compute(const at::Tensor &x);

struct Layer {
  at::Tensor weight;
  at::Tensor run(const at::Tensor &x) {
    auto m = torch::zeros({3, 3});
    m.index_put_({0}, weight);
    // CHECK-MESSAGES: :[[@LINE-1]]:5: warning: in-place index_put_ into 'm', which was created without gradient tracking, from 'weight'
    m.index_put_({1}, this->weight * 2);
    // CHECK-MESSAGES: :[[@LINE-1]]:5: warning: in-place index_put_ into 'm', which was created without gradient tracking, from 'this->weight * 2'
    return m;
  }
};

at::Tensor sources(const at::Tensor &x, at::Tensor y) {
  auto m = torch::zeros({3, 3});
  m.index_put_({0}, global_weight);
  // CHECK-MESSAGES: :[[@LINE-1]]:3: warning: in-place index_put_ into 'm', which was created without gradient tracking, from 'global_weight'
  m.index_put_({1}, compute(x));
  // CHECK-MESSAGES: :[[@LINE-1]]:3: warning: in-place index_put_ into 'm', which was created without gradient tracking, from 'compute(x)'
  auto e = x.exp() + y;
  m.index_put_({2}, e);
  // CHECK-MESSAGES: :[[@LINE-1]]:3: warning: in-place index_put_ into 'm', which was created without gradient tracking, from 'e'
  m.index_put_({0}, torch::matmul(x, y));
  // CHECK-MESSAGES: :[[@LINE-1]]:3: warning: in-place index_put_ into 'm'
  m.index_put_({0}, torch::cat({x, y}));
  // CHECK-MESSAGES: :[[@LINE-1]]:3: warning: in-place index_put_ into 'm'
  m.index_put_({0}, x.to(torch::kDouble));
  // CHECK-MESSAGES: :[[@LINE-1]]:3: warning: in-place index_put_ into 'm'
  auto t = torch::zeros({3});
  t.index_put_({0}, x); // t now holds grad data
  // CHECK-MESSAGES: :[[@LINE-1]]:3: warning: in-place index_put_ into 't'
  m.index_put_({1}, t); // so t may require grad as a source
  // CHECK-MESSAGES: :[[@LINE-1]]:3: warning: in-place index_put_ into 'm', which was created without gradient tracking, from 't'
  return m;
}

at::Tensor non_grad_sources(const at::Tensor &x) {
  auto m = torch::zeros({3, 3});
  m.index_put_({0}, x.detach());
  m.index_put_({0}, torch::arange(3));
  m.index_put_({0}, torch::triu_indices(3, 3));
  m.index_put_({0}, at::tril_indices(3, 3));
  m.index_put_({0}, x.to(torch::kLong));
  m.index_put_({0}, x > 0);
  m.index_put_({0}, x.gt(0));
  m.index_put_({0}, torch::zeros({3}, torch::kLong));
  m.index_put_({0}, torch::ones({3}));
  auto other = torch::zeros({3});
  m.index_put_({0}, other);
  m.index_put_({0}, other * 2);
  auto d = x.detach();
  m.index_put_({0}, d + 1);
  m.index_put_({0}, torch::tensor({1.0, 2.0}));
  return m;
}

TORCH_LIBRARY(tt, m) {
  m.def("sources(Tensor x, Tensor y) -> Tensor", &sources);
  m.def("non_grad_sources(Tensor x) -> Tensor", &non_grad_sources);
  m.def("layer(Tensor x) -> Tensor", [](const at::Tensor &x) {
    Layer l;
    return l.run(x);
  });
}
