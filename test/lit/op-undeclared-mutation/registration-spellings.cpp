// RUN: %check_torch_tidy %s torch-op-undeclared-mutation %t
// Every registration spelling (issue 31): the kernels of each are judged
// against their schema. The older c10::RegisterOperators API (still in
// LibTorch 2.x, used by older extensions) defines and registers at once:
// .op(schema, fn[, options]), .op(name_or_schema, options().kernel(key, fn))
// and .op(options().schema(...).kernel<decltype(f), &f>(key)).
#include <torch/torch.h>

namespace {
at::Tensor by_function(const at::Tensor &m, const at::Tensor &v) {
  m.copy_(v);
  // CHECK-MESSAGES: :[[@LINE-1]]:3: warning: copy_ writes into argument 'm' of operator 'ro::by_function', which its schema does not declare mutable
  return m.sum();
}
at::Tensor by_options(const at::Tensor &m, const at::Tensor &v) {
  m.add_(v);
  // CHECK-MESSAGES: :[[@LINE-1]]:3: warning: add_ writes into argument 'm' of operator 'ro::by_options', which its schema does not declare mutable
  return m.sum();
}
at::Tensor by_template(const at::Tensor &m, const at::Tensor &v) {
  m.mul_(v);
  // CHECK-MESSAGES: :[[@LINE-1]]:3: warning: mul_ writes into argument 'm' of operator 'ro::by_template', which its schema does not declare mutable
  return m.sum();
}
at::Tensor declared(at::Tensor &m, const at::Tensor &v) {
  m.copy_(v); // declared Tensor(a!): fine
  return m.sum();
}
at::Tensor fragment(const at::Tensor &m, const at::Tensor &v) {
  m.zero_();
  // CHECK-MESSAGES: :[[@LINE-1]]:3: warning: zero_ writes into argument 'm' of operator 'fr::fragment', which its schema does not declare mutable
  return v.sum();
}
at::Tensor selective(const at::Tensor &m, const at::Tensor &v) {
  m.fill_(1);
  // CHECK-MESSAGES: :[[@LINE-1]]:3: warning: fill_ writes into argument 'm' of operator 'fr::selective', which its schema does not declare mutable
  return v.sum();
}
at::Tensor keyed(const at::Tensor &m, const at::Tensor &v) {
  m.sub_(v);
  // CHECK-MESSAGES: :[[@LINE-1]]:3: warning: sub_ writes into argument 'm' of operator 'fr::keyed', which its schema does not declare mutable
  return v.sum();
}
} // namespace

static auto registry =
    torch::RegisterOperators()
        .op("ro::by_function(Tensor m, Tensor v) -> Tensor",
            &by_function,
            torch::RegisterOperators::options().kernel(c10::DispatchKey::CPU,
                                                       &by_function))
        .op("ro::by_options(Tensor m, Tensor v) -> Tensor",
            torch::RegisterOperators::options().kernel(c10::DispatchKey::CPU,
                                                       &by_options))
        .op(torch::RegisterOperators::options()
                .schema("ro::by_template(Tensor m, Tensor v) -> Tensor")
                .kernel<decltype(by_template), &by_template>(
                    c10::DispatchKey::CPU))
        .op("ro::declared(Tensor(a!) m, Tensor v) -> Tensor",
            torch::RegisterOperators::options().kernel(c10::DispatchKey::CPU,
                                                       &declared));

TORCH_LIBRARY_FRAGMENT(fr, m) {
  m.def("fragment(Tensor m, Tensor v) -> Tensor");
  m.def(TORCH_SELECTIVE_SCHEMA("fr::selective(Tensor m, Tensor v) -> Tensor"));
  m.def("keyed(Tensor m, Tensor v) -> Tensor");
}
TORCH_LIBRARY_IMPL(fr, CPU, m) {
  m.impl("fragment", &fragment);
  m.impl(TORCH_SELECTIVE_NAME("fr::selective"), TORCH_FN(selective));
}
TORCH_LIBRARY_FRAGMENT(fr, m) {
  m.impl("keyed", c10::DispatchKey::CPU, &keyed);
}
