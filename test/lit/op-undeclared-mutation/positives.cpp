// RUN: %check_torch_tidy %s torch-op-undeclared-mutation %t
// Kernels below autograd (CPU, CUDA, CompositeExplicitAutograd) that write
// into an argument their schema does not declare mutable: opcheck's
// test_schema fails; torch.compile graph-breaks (no fake is registered
// here), and with a fake (a CompositeExplicitAutograd kernel is one)
// inductor computes with the unwritten values
// (docs/ground-truth-registrations.json). Every write form, each through a view
// or alias too, and the fix: the annotation in the schema literal.
#include <torch/torch.h>

using torch::indexing::Slice;

namespace {
void writeRows(const at::Tensor &dst, const at::Tensor &src) {
  dst.narrow(0, 0, 2).copy_(src);
}

at::Tensor index_put(at::Tensor &m, const at::Tensor &v) {
  m.index_put_({Slice(0, 2)}, v);
  // CHECK-MESSAGES: :[[@LINE-1]]:3: warning: index_put_ writes into argument 'm' of operator 'um::index_put', which its schema does not declare mutable: torch.compile graph-breaks at its calls (graph break): no fake kernel is registered for it in the project, so Dynamo runs them eagerly and fullgraph=True fails; once one is, inductor computes with the unwritten values, silently (measured on torch 2.8.0 and 2.15.0); torch.library.opcheck fails test_schema; declare it 'Tensor(a!) m' [torch-op-undeclared-mutation]
  return m.sum();
}
at::Tensor index_assign(const at::Tensor &m, const at::Tensor &v) {
  m.index({Slice(0, 2)}) = v;
  // CHECK-MESSAGES: :[[@LINE-1]]:3: warning: index(...) assignment writes into argument 'm' of operator 'um::index_assign'
  return m.sum();
}
at::Tensor subscript(const at::Tensor &m, const at::Tensor &v) {
  m[0] = v;
  // CHECK-MESSAGES: :[[@LINE-1]]:3: warning: operator[] assignment writes into argument 'm' of operator 'um::subscript'
  return m.sum();
}
at::Tensor views(const at::Tensor &m, const at::Tensor &v) {
  m.narrow(0, 1, 2).copy_(v);
  // CHECK-MESSAGES: :[[@LINE-1]]:3: warning: copy_ writes into argument 'm' of operator 'um::views'
  at::Tensor w = m.select(0, 3);
  w.copy_(v);
  // CHECK-MESSAGES: :[[@LINE-1]]:3: note: 'm' is also written here (copy_)
  m.detach().mul_(2);
  // CHECK-MESSAGES: :[[@LINE-1]]:3: note: 'm' is also written here (mul_)
  m.contiguous().zero_();
  // CHECK-MESSAGES: :[[@LINE-1]]:3: note: 'm' is also written here (zero_)
  return m.sum();
}
at::Tensor scalars(const at::Tensor &m, const at::Tensor &v) {
  m.fill_(2);
  // CHECK-MESSAGES: :[[@LINE-1]]:3: warning: fill_ writes into argument 'm' of operator 'um::scalars'
  return v.sum();
}
at::Tensor compound(at::Tensor &m, const at::Tensor &v) {
  at::Tensor t = m;
  t += v;
  // CHECK-MESSAGES: :[[@LINE-1]]:3: warning: operator+= writes into argument 'm' of operator 'um::compound'
  return t.sum();
}
at::Tensor free_functions(at::Tensor &m, const at::Tensor &v) {
  at::relu_(m);
  // CHECK-MESSAGES: :[[@LINE-1]]:3: warning: at::relu_ writes into argument 'm' of operator 'um::free_functions'
  at::neg_out(m, v);
  // CHECK-MESSAGES: :[[@LINE-1]]:3: note: 'm' is also written here (at::neg_out)
  return m.sum();
}
at::Tensor out_last(const at::Tensor &v, at::Tensor &out) {
  at::neg_outf(v, out);
  // CHECK-MESSAGES: :[[@LINE-1]]:3: warning: at::neg_outf writes into argument 'out' of operator 'um::out_last'
  return v.sum();
}
at::Tensor helper(const at::Tensor &m, const at::Tensor &v) {
  writeRows(m, v);
  // CHECK-MESSAGES: :[[@LINE-1]]:3: warning: copy_ writes into argument 'm' of operator 'um::helper'
  // CHECK-MESSAGES: :15:3: note: the write is here, in '(anonymous namespace)::writeRows'
  return m.sum();
}
at::Tensor raw(const at::Tensor &m, const at::Tensor &v) {
  float *p = m.data_ptr<float>();
  p[0] = 7.0f;
  // CHECK-MESSAGES: :[[@LINE-1]]:3: warning: a write through data_ptr writes into argument 'm' of operator 'um::raw'
  *(p + 1) += 1.0f;
  // CHECK-MESSAGES: :[[@LINE-1]]:3: note: 'm' is also written here (a write through data_ptr)
  auto a = m.accessor<float, 2>();
  a[1][2] = 7.0f;
  // CHECK-MESSAGES: :[[@LINE-1]]:3: note: 'm' is also written here (a write through an accessor)
  return v.sum();
}
at::Tensor in_lambda(const at::Tensor &m, const at::Tensor &v) {
  auto body = [&] { m.add_(v); };
  // CHECK-MESSAGES: :[[@LINE-1]]:21: warning: add_ writes into argument 'm' of operator 'um::in_lambda'
  body();
  return m.sum();
}
at::Tensor second_arg(const at::Tensor &v, const at::Tensor &m) {
  if (v.numel() > 0)
    m.zero_();
  // CHECK-MESSAGES: :[[@LINE-1]]:5: warning: zero_ writes into argument 'm' of operator 'um::second_arg'
  return v.sum();
}
at::Tensor cuda_kernel(const at::Tensor &m, const at::Tensor &v) {
  m.copy_(v);
  // CHECK-MESSAGES: :[[@LINE-1]]:3: warning: copy_ writes into argument 'm' of operator 'um::on_cuda'
  return v.sum();
}
} // namespace

TORCH_LIBRARY(um, m) {
  m.def("index_put(Tensor m, Tensor v) -> Tensor");
  m.def("index_assign(Tensor m, Tensor v) -> Tensor");
  m.def("subscript(Tensor m, Tensor v) -> Tensor");
  m.def("views(Tensor m, Tensor v) -> Tensor");
  m.def("scalars(Tensor m, Tensor v) -> Tensor");
  m.def("compound(Tensor m, Tensor v) -> Tensor");
  m.def("free_functions(Tensor m, Tensor v) -> Tensor");
  m.def("out_last(Tensor v, Tensor out) -> Tensor");
  m.def("helper(Tensor m, Tensor v) -> Tensor");
  m.def("raw(Tensor m, Tensor v) -> Tensor");
  m.def("in_lambda(Tensor m, Tensor v) -> Tensor");
  m.def("second_arg(Tensor v, Tensor? m) -> Tensor");
  m.def("on_cuda(Tensor m, Tensor v) -> Tensor");
}

TORCH_LIBRARY_IMPL(um, CPU, m) {
  m.impl("index_put", &index_put);
  m.impl("index_assign", &index_assign);
  m.impl("subscript", &subscript);
  m.impl("views", &views);
  m.impl("scalars", &scalars);
  m.impl("compound", &compound);
  m.impl("free_functions", &free_functions);
  m.impl("out_last", &out_last);
  m.impl("helper", &helper);
  m.impl("raw", &raw);
  m.impl("in_lambda", &in_lambda);
  m.impl("second_arg", &second_arg);
}

TORCH_LIBRARY_IMPL(um, CUDA, m) { m.impl("on_cuda", &cuda_kernel); }

// CHECK-FIXES: m.def("index_put(Tensor(a!) m, Tensor v) -> Tensor");
// CHECK-FIXES: m.def("index_assign(Tensor(a!) m, Tensor v) -> Tensor");
// CHECK-FIXES: m.def("subscript(Tensor(a!) m, Tensor v) -> Tensor");
// CHECK-FIXES: m.def("views(Tensor(a!) m, Tensor v) -> Tensor");
// CHECK-FIXES: m.def("scalars(Tensor(a!) m, Tensor v) -> Tensor");
// CHECK-FIXES: m.def("compound(Tensor(a!) m, Tensor v) -> Tensor");
// CHECK-FIXES: m.def("free_functions(Tensor(a!) m, Tensor v) -> Tensor");
// CHECK-FIXES: m.def("out_last(Tensor v, Tensor(a!) out) -> Tensor");
// CHECK-FIXES: m.def("helper(Tensor(a!) m, Tensor v) -> Tensor");
// CHECK-FIXES: m.def("raw(Tensor(a!) m, Tensor v) -> Tensor");
// CHECK-FIXES: m.def("in_lambda(Tensor(a!) m, Tensor v) -> Tensor");
// CHECK-FIXES: m.def("second_arg(Tensor v, Tensor(a!)? m) -> Tensor");
// CHECK-FIXES: m.def("on_cuda(Tensor(a!) m, Tensor v) -> Tensor");
