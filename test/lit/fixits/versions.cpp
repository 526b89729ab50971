// Spellings follow the LibTorch version: detected from TORCH_VERSION_MAJOR
// (torch/version.h) or set by the LibTorchVersion option.
// RUN: %check_torch_tidy %s torch-compile-requires-grad-propagation %t-old \
// RUN:   --check-suffix=OLD \
// RUN:   --config="{CheckOptions: {torch-compile-requires-grad-propagation.FixColumnLimit: 0, torch-compile-requires-grad-propagation.StrictFixes: true}}" \
// RUN:   -- -DTORCH_VERSION_MAJOR=1 -DTORCH_VERSION_MINOR=13
// RUN: %check_torch_tidy %s torch-compile-requires-grad-propagation %t-opt \
// RUN:   --check-suffix=OLD \
// RUN:   --config="{CheckOptions: {torch-compile-requires-grad-propagation.FixColumnLimit: 0, torch-compile-requires-grad-propagation.LibTorchVersion: '1.13', torch-compile-requires-grad-propagation.StrictFixes: true}}"
// RUN: %check_torch_tidy %s torch-compile-requires-grad-propagation %t-new \
// RUN:   --check-suffix=NEW \
// RUN:   --config="{CheckOptions: {torch-compile-requires-grad-propagation.FixColumnLimit: 0, torch-compile-requires-grad-propagation.StrictFixes: true}}" \
// RUN:   -- -DTORCH_VERSION_MAJOR=2 -DTORCH_VERSION_MINOR=8
#include <torch/torch.h>
#include <torch_tidy/compiled.h>
using torch::indexing::Slice;

TORCH_TIDY_COMPILED at::Tensor k(const at::Tensor &v, const at::Tensor &rows) {
  auto m = torch::zeros({3, 3});
  m.index_put_({Slice(), rows}, v);
  // CHECK-MESSAGES-OLD: :[[@LINE-1]]:3: warning: in-place index_put_ into 'm'
  // CHECK-FIXES-OLD: {{^}}  m = m.index_put({c10::nullopt, rows}, v.view(at::indexing::slicePrefix1sSize(v.sizes())));{{$}}
  // CHECK-MESSAGES-NEW: :[[@LINE-3]]:3: warning: in-place index_put_ into 'm'
  // CHECK-FIXES-NEW: {{^}}  m = m.index_put({std::nullopt, rows}, v.view_symint(at::indexing::slicePrefix1sSize(v.sym_sizes())));{{$}}
  return m;
}

// A None stop in a slice_scatter: std::nullopt or c10::nullopt.
TORCH_TIDY_COMPILED at::Tensor stepped(const at::Tensor &v) {
  auto m = torch::zeros({5, 3});
  m.index({Slice(1, torch::indexing::None, 2)}) = v;
  // CHECK-MESSAGES-OLD: :[[@LINE-1]]:3: warning: in-place index(...) assignment into 'm'
  // CHECK-FIXES-OLD: {{^}}  m = m.slice_scatter(v.to(m.options()).expand_as(m.index({Slice(1, torch::indexing::None, 2)})), 0, 1, c10::nullopt, 2);{{$}}
  // CHECK-MESSAGES-NEW: :[[@LINE-3]]:3: warning: in-place index(...) assignment into 'm'
  // CHECK-FIXES-NEW: {{^}}  m = m.slice_scatter(v.to(m.options()).expand_as(m.index({Slice(1, torch::indexing::None, 2)})), 0, 1, std::nullopt, 2);{{$}}
  return m;
}
