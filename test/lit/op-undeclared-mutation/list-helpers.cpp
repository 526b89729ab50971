// RUN: %check_torch_tidy %s torch-op-undeclared-mutation %t
// A helper that takes a list of tensors (std::vector<at::Tensor>,
// at::TensorList, c10::List<at::Tensor>) and writes its elements writes
// every argument the kernel put in the list: an init list, a local list, a
// single tensor converted to a list, or the kernel's own Tensor[] argument.
// opcheck's test_schema rejects each such operator (a write of an argument
// not declared mutable; the ground-truth rows list_helper_* in
// docs/ground-truth-mutation.json).
#include <torch/torch.h>

namespace {
void zeroAll(const std::vector<at::Tensor> &ts) {
  for (const auto &t : ts)
    t.zero_();
}
void scaleFirst(at::TensorList ts) { ts[0].mul_(2); }
void fillFirst(const c10::List<at::Tensor> &ts) { ts.get(0).fill_(1); }
at::Tensor sumAll(const std::vector<at::Tensor> &ts) {
  at::Tensor s = ts[0].sum();
  for (const auto &t : ts)
    s = s + t.sum();
  return s;
}
} // namespace

at::Tensor init_list(const at::Tensor &a, const at::Tensor &b) {
  zeroAll({a, b.narrow(0, 0, 1)});
  // CHECK-MESSAGES: :[[@LINE-1]]:3: warning: zero_ writes into argument 'a' of operator 'lh::init_list', which its schema does not declare mutable
  // CHECK-MESSAGES: :14:5: note: the write is here, in '(anonymous namespace)::zeroAll'
  // CHECK-MESSAGES: :[[@LINE-3]]:3: warning: zero_ writes into argument 'b' of operator 'lh::init_list', which its schema does not declare mutable
  return a.sum();
}

at::Tensor local_list(const at::Tensor &a, const at::Tensor &b) {
  std::vector<at::Tensor> both = {a, b};
  scaleFirst(both);
  // CHECK-MESSAGES: :[[@LINE-1]]:3: warning: mul_ writes into argument 'a' of operator 'lh::local_list', which its schema does not declare mutable
  // CHECK-MESSAGES: :[[@LINE-2]]:3: warning: mul_ writes into argument 'b' of operator 'lh::local_list', which its schema does not declare mutable
  return a.sum();
}

at::Tensor one_tensor(const at::Tensor &a, const at::Tensor &b) {
  scaleFirst(a);
  // CHECK-MESSAGES: :[[@LINE-1]]:3: warning: mul_ writes into argument 'a' of operator 'lh::one_tensor', which its schema does not declare mutable
  return b.sum();
}

at::Tensor c10_list(const at::Tensor &a, const at::Tensor &b) {
  fillFirst(c10::List<at::Tensor>({a}));
  // CHECK-MESSAGES: :[[@LINE-1]]:3: warning: fill_ writes into argument 'a' of operator 'lh::c10_list', which its schema does not declare mutable
  return b.sum();
}

void list_arg(at::TensorList ts, const at::Tensor &b) {
  scaleFirst(ts);
  // CHECK-MESSAGES: :[[@LINE-1]]:3: warning: mul_ writes into argument 'ts' of operator 'lh::list_arg', which its schema does not declare mutable{{.*}}; declare it 'Tensor(a!)[] ts'
}

// Not reported: a helper that only reads the list; a list of copies.
at::Tensor reads_only(const at::Tensor &a, const at::Tensor &b) {
  at::Tensor s = sumAll({a, b});
  zeroAll({a.clone(), b * 2});
  return a * s;
}

TORCH_LIBRARY(lh, m) {
  m.def("init_list(Tensor a, Tensor b) -> Tensor");
  m.def("local_list(Tensor a, Tensor b) -> Tensor");
  m.def("one_tensor(Tensor a, Tensor b) -> Tensor");
  m.def("c10_list(Tensor a, Tensor b) -> Tensor");
  m.def("list_arg(Tensor[] ts, Tensor b) -> ()");
  m.def("reads_only(Tensor a, Tensor b) -> Tensor");
}
TORCH_LIBRARY_IMPL(lh, CPU, m) {
  m.impl("init_list", &init_list);
  m.impl("local_list", &local_list);
  m.impl("one_tensor", &one_tensor);
  m.impl("c10_list", &c10_list);
  m.impl("list_arg", &list_arg);
  m.impl("reads_only", &reads_only);
}
