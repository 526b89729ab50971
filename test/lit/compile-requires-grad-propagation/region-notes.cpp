// RUN: %check_torch_tidy %s torch-compile-requires-grad-propagation %t \
// RUN:   %fresh_in_kernels
// Every note: where the target was created, why the function is traced, and
// which rewrite rule the fix uses.
#include <torch/torch.h>
using torch::indexing::Slice;

at::Tensor helper(const at::Tensor &vec, const at::Tensor &rows,
                  const at::Tensor &cols) {
  auto matrix = torch::zeros({2, 3, 3});
  matrix.index_put_({Slice(), rows, cols}, vec);
  // CHECK-NOTES: :[[@LINE-1]]:3: warning: in-place index_put_ into 'matrix', which was created without gradient tracking, from 'vec', which may require grad: enabled by FreshTargetsInKernels: in Python this write loses requires_grad under torch.compile on torch 2.8.0, while in this C++ kernel the flag was measured right on torch 2.8.0 and 2.15.0; the out-of-place form keeps it everywhere [torch-compile-requires-grad-propagation]
  // CHECK-NOTES: :[[@LINE-3]]:17: note: 'matrix' is created here without requires_grad
  // CHECK-NOTES: :[[@LINE+15]]:10: note: 'helper' runs inside torch.compile: it is reached from 'skew' here
  // CHECK-NOTES: :[[@LINE-4]]:3: note: rule: index-put-advanced
  // CHECK-NOTES: :[[@LINE-5]]:3: note: the fix assumes 'vec' has no more leading size-1 dims than the indexed result: setitem strips them, index_put throws on them (StrictFixes: true keeps the strip)
  return matrix;
}

at::Tensor skew(const at::Tensor &vec, const at::Tensor &rows,
                const at::Tensor &cols) {
  auto m = torch::zeros({2, 3, 3});
  m.index({Slice(), 0}) = vec;
  // CHECK-NOTES: :[[@LINE-1]]:3: warning: in-place index(...) assignment into 'm'
  // CHECK-NOTES: :[[@LINE-3]]:12: note: 'm' is created here without requires_grad
  // CHECK-NOTES: :[[@LINE+7]]:3: note: 'skew' runs inside torch.compile: it is registered here as a CompositeImplicitAutograd kernel
  // CHECK-NOTES: :[[@LINE-4]]:3: note: rule: select-scatter
  // CHECK-NOTES: :[[@LINE-5]]:3: note: the fix assumes 'vec' has the shape of 'm.index({Slice(), 0})': select_scatter throws where copy_ would broadcast it (StrictFixes: true keeps the broadcast)
  return helper(vec, rows, cols) - m;
}

TORCH_LIBRARY(tt, m) {
  m.def("skew(Tensor vec, Tensor rows, Tensor cols) -> Tensor", &skew);
}
