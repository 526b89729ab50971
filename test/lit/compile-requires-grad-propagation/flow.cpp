// RUN: %check_torch_tidy %s torch-compile-requires-grad-propagation %t \
// RUN:   %fresh_in_kernels
// Flow-sensitivity on clang's CFG: reassignment from a grad value ends
// fresh-ness on every path that reaches the write; writes in one branch are
// flagged; loops converge.
#include <torch/torch.h>

at::Tensor flow(const at::Tensor &v, const at::Tensor &w, bool c, int n) {
  auto a = torch::zeros({3});
  a = v * 2; // reassigned from a grad value
  a.index_put_({0}, w);

  auto b = torch::zeros({3});
  if (c)
    b.index_put_({0}, w); // a write in one branch
  // CHECK-MESSAGES: :[[@LINE-1]]:5: warning: in-place index_put_ into 'b'

  auto d = torch::zeros({3});
  if (c)
    d = w;
  d.index_put_({0}, v); // a grad value may have reached it: not flagged

  auto e = torch::zeros({3});
  if (c)
    e = torch::ones({3}); // fresh on both paths
  else
    e = torch::empty({3});
  e.index_put_({0}, v);
  // CHECK-MESSAGES: :[[@LINE-1]]:3: warning: in-place index_put_ into 'e'

  auto f = torch::zeros({3});
  for (int i = 0; i < n; ++i) {
    f.index_put_({i}, v);
    // CHECK-MESSAGES: :[[@LINE-1]]:5: warning: in-place index_put_ into 'f'
  }

  auto g = torch::zeros({3});
  for (int i = 0; i < n; ++i) {
    g.index_put_({i}, v); // reassigned at the end of the first iteration
    g = g * w;
  }

  auto h = torch::zeros({3});
  while (n-- > 0) {
    if (c)
      continue;
    h.index({0}) = v;
    // CHECK-MESSAGES: :[[@LINE-1]]:5: warning: in-place index(...) assignment into 'h'
  }

  auto k = torch::zeros({3});
  k = k.index_put({torch::arange(1)}, v); // the out-of-place fix
  k.index_put_({0}, v);

  auto l = torch::zeros({3});
  switch (n) {
  case 0:
    l = v;
    break;
  default:
    l.index_put_({0}, v);
    // CHECK-MESSAGES: :[[@LINE-1]]:5: warning: in-place index_put_ into 'l'
    break;
  }

  auto m = torch::zeros({3});
  auto view = m.slice(0, 0, 2);
  view = w; // rebinding the name, not writing
  view.copy_(v);

  auto p = torch::zeros({3});
  try {
    p.index_put_({0}, v);
    // CHECK-MESSAGES: :[[@LINE-1]]:5: warning: in-place index_put_ into 'p'
  } catch (...) {
  }
  return a + b + d + e + f + g + h + k + l + m + p;
}

TORCH_LIBRARY(tt, m) {
  m.def("flow(Tensor v, Tensor w, bool c, int n) -> Tensor", &flow);
}
