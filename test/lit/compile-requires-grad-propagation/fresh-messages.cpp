// RUN: %check_torch_tidy %s torch-compile-requires-grad-propagation %t
// What the message says was measured for a fresh-local write depends on its
// form: the newest torch keeps requires_grad after setitem and in-place ops
// on the tensor itself, and loses it after writes through a view.
#include <torch/torch.h>
#include <torch_tidy/compiled.h>

using torch::indexing::Slice;

TORCH_TIDY_COMPILED at::Tensor forms(const at::Tensor &v,
                                     const at::Tensor &idx) {
  auto m = torch::zeros({3, 4});
  m.index_put_({Slice(), 0}, v);
  // CHECK-MESSAGES: :[[@LINE-1]]:3: warning: in-place index_put_ into 'm', which was created without gradient tracking, from 'v', which may require grad: torch.compile loses requires_grad after such writes (measured in Python on torch 2.8.0 (torch 2.15.0 keeps it for this form)), and code that branches on it drops gradients; the out-of-place form keeps it [torch-compile-requires-grad-propagation]
  auto a = torch::zeros({3, 4});
  a[0] = v;
  // CHECK-MESSAGES: :[[@LINE-1]]:3: warning: in-place operator[] assignment into 'a'{{.*}}(measured in Python on torch 2.8.0 (torch 2.15.0 keeps it for this form))
  auto b = torch::zeros({3, 4});
  b.index_copy_(0, idx, v);
  // CHECK-MESSAGES: :[[@LINE-1]]:3: warning: in-place index_copy_ into 'b'{{.*}}(measured in Python on torch 2.8.0 (torch 2.15.0 keeps it for this form))
  auto c = torch::zeros({3, 4});
  c.narrow(0, 1, 2).copy_(v);
  // CHECK-MESSAGES: :[[@LINE-1]]:3: warning: in-place copy_ into 'c'{{.*}}(measured in Python on torch 2.8.0 and 2.15.0)
  auto d = torch::zeros({3, 4});
  auto w = d.slice(0, 1, 3);
  w.index_put_({0}, v);
  // CHECK-MESSAGES: :[[@LINE-1]]:3: warning: in-place index_put_ into 'd'{{.*}}(measured in Python on torch 2.8.0 and 2.15.0)
  auto e = torch::zeros({3, 4});
  e[0][1] = v;
  // CHECK-MESSAGES: :[[@LINE-1]]:3: warning: in-place operator[] assignment into 'e'{{.*}}(measured in Python on torch 2.8.0 and 2.15.0)
  return m + a + b + c + d + e;
}
