// RUN: %check_torch_tidy %s torch-compile-requires-grad-propagation %t
// RUN: %check_torch_tidy %s torch-compile-requires-grad-propagation %t-all \
// RUN:   --config="{CheckOptions: {torch-compile-requires-grad-propagation.RegionMode: all}}" \
// RUN:   --check-suffix=ALL
// RUN: %check_torch_tidy %s torch-compile-requires-grad-propagation %t-re \
// RUN:   --config="{CheckOptions: {torch-compile-requires-grad-propagation.CompiledFunctions: 'model::.*_compiled|free_compiled'}}" \
// RUN:   --check-suffix=REGEX
// Without registration, nothing is a region unless RegionMode is 'all' or
// the function's qualified name matches CompiledFunctions (a full match).
#include <torch/torch.h>

namespace model {
at::Tensor forward_compiled(const at::Tensor &v) {
  auto m = torch::zeros({3});
  m.index_put_({0}, v);
  // CHECK-MESSAGES-ALL: :[[@LINE-1]]:3: warning: in-place index_put_ into 'm'
  // CHECK-MESSAGES-REGEX: :[[@LINE-2]]:3: warning: in-place index_put_ into 'm'
  return m;
}
at::Tensor forward_compiled_not(const at::Tensor &v);
} // namespace model

at::Tensor free_compiled(const at::Tensor &v) {
  auto m = torch::zeros({3});
  m.index_put_({0}, v);
  // CHECK-MESSAGES-ALL: :[[@LINE-1]]:3: warning: in-place index_put_ into 'm'
  // CHECK-MESSAGES-REGEX: :[[@LINE-2]]:3: warning: in-place index_put_ into 'm'
  return m;
}

at::Tensor free_compiled_suffix(const at::Tensor &v) {
  auto m = torch::zeros({3});
  m.index_put_({0}, v);
  // CHECK-MESSAGES-ALL: :[[@LINE-1]]:3: warning: in-place index_put_ into 'm'
  return m;
}
