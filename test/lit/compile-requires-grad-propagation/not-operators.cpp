// RUN: %check_torch_tidy %s torch-compile-requires-grad-propagation %t \
// RUN:   --config="{CheckOptions: {torch-compile-requires-grad-propagation.RegionMode: all}}"
// Free functions count as in-place writes only when they are ATen operators,
// declared right in at:: or torch::. Functionalization glue with a trailing
// '_' (at::functionalization::impl::replace_, found in DeepSpeed's
// shm_interface.cpp in the corpus) tells functionalization about a mutation;
// it writes no value.
#include <torch/torch.h>

at::Tensor all_reduce(const at::Tensor &self);

at::Tensor &all_reduce_glue(at::Tensor &x) {
  at::Tensor out;
  out = all_reduce(x);
  at::functionalization::impl::replace_(x, out);
  at::functionalization::impl::commit_update(x);
  return x;
}

// An ATen free function in at:: is still a write.
at::Tensor &fill_from(at::Tensor &x, const at::Tensor &v) {
  at::fill_(x, v);
  // CHECK-MESSAGES: :[[@LINE-1]]:3: warning: in-place fill_ into mutable argument 'x'
  return x;
}

TORCH_LIBRARY(tt, m) {
  m.def("all_reduce_(Tensor(a!) self) -> Tensor(a!)");
  m.def("fill_from(Tensor(a!) x, Tensor v) -> Tensor(a!)", &fill_from);
}
TORCH_LIBRARY_IMPL(tt, Functionalize, m) {
  m.impl("all_reduce_", all_reduce_glue);
}
