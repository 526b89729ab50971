// RUN: %check_torch_tidy %s torch-compile-requires-grad-propagation %t
// The older c10::RegisterOperators API registers like torch::Library: a
// catch-all kernel (.op(schema, fn), .catchAllKernel) is the
// CompositeImplicitAutograd kernel, so a write into its mutable argument is
// reported as for m.def(schema, fn); a CPU kernel with a read-only schema
// is not this check's.
#include <torch/torch.h>

namespace {
at::Tensor by_function(at::Tensor &m, const at::Tensor &v) {
  m.copy_(v);
  // CHECK-MESSAGES: :[[@LINE-1]]:3: warning: in-place copy_ into mutable argument 'm' of operator 'ro::by_function' from 'v'
  return m;
}
at::Tensor catch_all(at::Tensor &m, const at::Tensor &v) {
  m.add_(v);
  // CHECK-MESSAGES: :[[@LINE-1]]:3: warning: in-place add_ into mutable argument 'm' of operator 'ro::catch_all' from 'v'
  return m;
}
at::Tensor read_only(const at::Tensor &m, const at::Tensor &v) {
  return m + v;
}
} // namespace

static auto registry =
    torch::RegisterOperators()
        .op("ro::by_function(Tensor(a!) m, Tensor v) -> Tensor(a!)",
            &by_function)
        .op(torch::RegisterOperators::options()
                .schema("ro::catch_all(Tensor(a!) m, Tensor v) -> Tensor(a!)")
                .catchAllKernel(&catch_all))
        .op("ro::read_only(Tensor m, Tensor v) -> Tensor",
            torch::RegisterOperators::options().kernel(c10::DispatchKey::CPU,
                                                       &read_only));
