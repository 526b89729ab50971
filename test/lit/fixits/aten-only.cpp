// RUN: %check_torch_tidy %s torch-compile-requires-grad-propagation %t \
// RUN:   --config="{CheckOptions: {torch-compile-requires-grad-propagation.FixColumnLimit: 0, torch-compile-requires-grad-propagation.FixStyle: index_put, torch-compile-requires-grad-propagation.StrictFixes: true}}"
// A file that includes only ATen (and torch/library.h) sees at::, not the
// torch:: frontend: the positions a fix builds are spelled at::arange and
// at::kLong there (the corpus: a fix spelled torch::arange in an ATen-only
// extension, which then no longer compiled).
#include <ATen/ATen.h>
#include <torch/library.h>
#include <torch_tidy/compiled.h>

using at::indexing::Slice;

TORCH_TIDY_COMPILED at::Tensor rows(const at::Tensor &v) {
  auto m = at::zeros({4, 3});
  m.index_put_({Slice(1, 3)}, v);
  // CHECK-MESSAGES: :[[@LINE-1]]:3: warning: in-place index_put_ into 'm'
  // CHECK-FIXES: m = m.flatten().index_put({at::arange(m.numel(), m.options().dtype(at::kLong)).view(m.sizes()).index({Slice(1, 3)})}, v.view_symint(at::indexing::slicePrefix1sSize(v.sym_sizes())).to(m.options())).view(m.sizes());
  auto c = at::zeros({4, 3});
  c.narrow(0, 1, 2).copy_(v);
  // CHECK-MESSAGES: :[[@LINE-1]]:3: warning: in-place copy_ into 'c'
  // CHECK-FIXES: c = c.flatten().index_put({at::arange(c.numel(), c.options().dtype(at::kLong)).view(c.sizes()).narrow(0, 1, 2)}, v.to(c.options())).view(c.sizes());
  return m + c;
}
