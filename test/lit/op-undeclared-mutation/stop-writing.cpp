// Writes the kernel makes for its own use, into an argument its schema does
// not declare mutable: a reshape of its own handle (`m.unsqueeze_(1)`, the
// new shape read after) and an in-place op on a conversion's result
// (`m.to(at::kFloat).mul_(s)`, which writes `m` wherever to() makes no
// copy). The remedy is to stop writing: the fix rebinds the kernel's
// by-value handle to the out-of-place form (rule metadata-out-of-place),
// binds it to a new local where the handle is const (metadata-to-local), or
// uses the out-of-place op (copy-write-out-of-place). The consequence stated
// is the one measured for each with a fake registered
// (tools/ground-truth/write_conditions.py, ctest write-conditions, which
// builds this check's fixes and runs opcheck and torch.compile on them).
// RUN: %check_torch_tidy %s torch-op-undeclared-mutation %t
#include <torch/torch.h>

at::Tensor scale_rows(at::Tensor x, at::Tensor scales) {
  scales.unsqueeze_(1);
  return x * scales;
}
// CHECK-MESSAGES: :[[@LINE-3]]:3: warning: unsqueeze_ (a write of its sizes, strides or storage) writes into argument 'scales' of operator 'sw::scale_rows', which its schema does not declare mutable: what torch.compile does depends on the fake (silent): inductor raises where the fake returns the unwritten shape, and computes with the unwritten metadata, silently, where it returns the written one; aot_eager gave eager's values with both (measured on torch 2.8.0 and 2.15.0, with unsqueeze_, t_ and resize_, the caller reading the argument after the call); torch.library.opcheck fails test_schema; stop writing it: rebind the kernel's own handle to the out-of-place form (the caller's tensor keeps its shape) [torch-op-undeclared-mutation]
// CHECK-MESSAGES: :[[@LINE-4]]:3: note: rule: metadata-out-of-place
// CHECK-FIXES: scales = scales.unsqueeze(1);

at::Tensor linear_f32(at::Tensor input, at::Tensor input_scales,
                      at::Tensor weight) {
  return at::matmul(input.to(at::kFloat).mul_(input_scales), weight);
}
// CHECK-MESSAGES: :[[@LINE-2]]:21: warning: mul_ writes into argument 'input' of operator 'sw::linear_f32' wherever to() returns its receiver (it copies only where the receiver has another dtype), which its schema does not declare mutable: where no copy is made, inductor computes with the unwritten values (silent); aot_eager gave eager's values (measured on torch 2.8.0 and 2.15.0 with a fake, through to(dtype) and contiguous(), the kernel's result read); torch.library.opcheck fails test_schema; stop writing it: the out-of-place form gives the same value
// CHECK-MESSAGES: :[[@LINE-3]]:21: note: rule: copy-write-out-of-place
// CHECK-FIXES: return at::matmul(input.to(at::kFloat).mul(input_scales), weight);

// A local handle of a const reference (torchao's prepack kernels): the
// local is rebound; where the parameter is read after the write in its new
// shape, rebinding would change what the kernel computes: no fix.
at::Tensor prepack(const at::Tensor &weight, const at::Tensor &scales) {
  auto new_scales = scales;
  if (new_scales.dim() == 1)
    new_scales.unsqueeze_(1);
  new_scales = new_scales.to(at::kFloat);
  return weight * new_scales;
}
// CHECK-MESSAGES: :[[@LINE-4]]:5: warning: unsqueeze_ (a write of its sizes, strides or storage) writes into argument 'scales' of operator 'sw::prepack', {{.*}}; stop writing it: rebind the kernel's own handle
// CHECK-MESSAGES: :[[@LINE-5]]:5: note: rule: metadata-out-of-place
// CHECK-FIXES: new_scales = new_scales.unsqueeze(1);

at::Tensor prepack_reads(const at::Tensor &weight, const at::Tensor &scales) {
  auto new_scales = scales;
  if (new_scales.dim() == 1)
    new_scales.unsqueeze_(1);
  int64_t g = scales.size(1);
  return weight * new_scales * g;
}
// CHECK-MESSAGES: :[[@LINE-4]]:5: warning: unsqueeze_ (a write of its sizes, strides or storage) writes into argument 'scales' of operator 'sw::prepack_reads', {{.*}}; stop writing it, or declare it 'Tensor(a!) scales'
// CHECK-MESSAGES: :[[@LINE-5]]:5: note: no fix: {{.*}}; stopping the write: 'scales', bound to the same tensor, is read after the write and would keep the old metadata

// A const reference: the out-of-place form is bound to a new local, and
// the parameter's later uses are renamed to it (rule metadata-to-local).
// A use in a macro's argument is renamed where the argument spells it.
at::Tensor by_reference(const at::Tensor &x, const at::Tensor &s) {
  s.unsqueeze_(1);
  TORCH_CHECK(s.dim() == 2, "s must be 2-D");
  auto y = x * s;
  return y + s.sum();
}
// CHECK-MESSAGES: :[[@LINE-5]]:3: warning: unsqueeze_ (a write of its sizes, strides or storage) writes into argument 's' of operator 'sw::by_reference', {{.*}}; stop writing it: bind the out-of-place form to a new local and use that after (the caller's tensor keeps its shape) [torch-op-undeclared-mutation]
// CHECK-MESSAGES: :[[@LINE-6]]:3: note: rule: metadata-to-local
// CHECK-FIXES: auto s_unsqueezed = s.unsqueeze(1);
// CHECK-FIXES-NEXT: TORCH_CHECK(s_unsqueezed.dim() == 2, "s must be 2-D");
// CHECK-FIXES-NEXT: auto y = x * s_unsqueezed;
// CHECK-FIXES-NEXT: return y + s_unsqueezed.sum();

// Negatives of metadata-to-local: a write in a nested block (a local there
// would not reach the later uses), a lambda holding the parameter, a second
// write, and a kernel that already spells the new local's name.
at::Tensor ref_nested(const at::Tensor &x, const at::Tensor &s) {
  if (s.dim() == 1)
    s.unsqueeze_(1);
  return x * s;
}
// CHECK-MESSAGES: :[[@LINE-3]]:5: warning: unsqueeze_ {{.*}}'sw::ref_nested', {{.*}}; stop writing it, or declare it 'Tensor(a!) s'
// CHECK-MESSAGES: :[[@LINE-4]]:5: note: no fix: {{.*}}; stopping the write: the kernel takes it by const reference and the write is inside a nested block: a new local there would not reach its later uses
at::Tensor ref_lambda(const at::Tensor &x, const at::Tensor &s) {
  auto f = [&]() { return x * s; };
  s.t_();
  return f();
}
// CHECK-MESSAGES: :[[@LINE-3]]:3: warning: t_ {{.*}}'sw::ref_lambda', {{.*}}; stop writing it, or declare it 'Tensor(a!) s'
// CHECK-MESSAGES: :[[@LINE-4]]:3: note: no fix: {{.*}}; stopping the write: a lambda of the kernel captures 's'
at::Tensor ref_twice(const at::Tensor &x, const at::Tensor &s) {
  s.unsqueeze_(0);
  s.t_();
  return x * s;
}
// CHECK-MESSAGES: :[[@LINE-4]]:3: warning: unsqueeze_ {{.*}}'sw::ref_twice', {{.*}}; stop writing it, or declare it 'Tensor(a!) s'
// CHECK-MESSAGES: :[[@LINE-5]]:3: note: no fix: {{.*}}; stopping the write: 's' is written again after the write
// A macro argument this build drops (a debug-only check): the rename could
// not reach it.
#define DEBUG_ONLY_CHECK(cond)
at::Tensor ref_dropped(const at::Tensor &x, const at::Tensor &s) {
  s.unsqueeze_(1);
  DEBUG_ONLY_CHECK(s.dim() == 2);
  return x * s;
}
// CHECK-MESSAGES: :[[@LINE-4]]:3: warning: unsqueeze_ {{.*}}'sw::ref_dropped', {{.*}}; stop writing it, or declare it 'Tensor(a!) s'
// CHECK-MESSAGES: :[[@LINE-5]]:3: note: no fix: {{.*}}; stopping the write: 's' is spelled after the write where this build does not use it (a macro argument that expands to nothing here?)
at::Tensor ref_clash(const at::Tensor &x, const at::Tensor &s) {
  auto s_unsqueezed = x.sum();
  s.unsqueeze_(1);
  return s_unsqueezed * s;
}
// CHECK-MESSAGES: :[[@LINE-3]]:3: warning: unsqueeze_ {{.*}}'sw::ref_clash', {{.*}}; stop writing it, or declare it 'Tensor(a!) s'
// CHECK-MESSAGES: :[[@LINE-4]]:3: note: no fix: {{.*}}; stopping the write: the kernel already uses the name 's_unsqueezed' a new local would take

// Negatives of the stop-writing fix: a write whose value is not used (the
// write is what the statement does), and an argument the kernel returns.
at::Tensor statement(at::Tensor x, at::Tensor out) {
  out.contiguous().mul_(2);
  return x + 1;
}
// CHECK-MESSAGES: :[[@LINE-3]]:3: warning: mul_ writes into argument 'out' of operator 'sw::statement' wherever contiguous() returns its receiver {{.*}}; declare it 'Tensor(a!) out'

TORCH_LIBRARY(sw, m) {
  m.def("scale_rows(Tensor x, Tensor scales) -> Tensor");
  m.def("linear_f32(Tensor input, Tensor input_scales, Tensor weight) -> Tensor");
  m.def("by_reference(Tensor x, Tensor s) -> Tensor");
  m.def("statement(Tensor x, Tensor out) -> Tensor");
  m.def("prepack(Tensor weight, Tensor scales) -> Tensor");
  m.def("prepack_reads(Tensor weight, Tensor scales) -> Tensor");
  m.def("ref_nested(Tensor x, Tensor s) -> Tensor");
  m.def("ref_lambda(Tensor x, Tensor s) -> Tensor");
  m.def("ref_twice(Tensor x, Tensor s) -> Tensor");
  m.def("ref_clash(Tensor x, Tensor s) -> Tensor");
  m.def("ref_dropped(Tensor x, Tensor s) -> Tensor");
}
// CHECK-FIXES: m.def("statement(Tensor x, Tensor(a!) out) -> Tensor");

TORCH_LIBRARY_IMPL(sw, CPU, m) {
  m.impl("scale_rows", &scale_rows);
  m.impl("linear_f32", &linear_f32);
  m.impl("by_reference", &by_reference);
  m.impl("statement", &statement);
  m.impl("prepack", &prepack);
  m.impl("prepack_reads", &prepack_reads);
  m.impl("ref_nested", &ref_nested);
  m.impl("ref_lambda", &ref_lambda);
  m.impl("ref_twice", &ref_twice);
  m.impl("ref_clash", &ref_clash);
  m.impl("ref_dropped", &ref_dropped);
}

at::Tensor meta_any(at::Tensor x, at::Tensor s) { return at::empty_like(x); }
TORCH_LIBRARY_IMPL(sw, Meta, m) {
  m.impl("scale_rows", &meta_any);
  m.impl("by_reference", &meta_any);
  m.impl("statement", &meta_any);
  m.impl("prepack", &meta_any);
  m.impl("prepack_reads", &meta_any);
  m.impl("ref_nested", &meta_any);
  m.impl("ref_lambda", &meta_any);
  m.impl("ref_twice", &meta_any);
  m.impl("ref_clash", &meta_any);
  m.impl("ref_dropped", &meta_any);
}
at::Tensor meta3(at::Tensor x, at::Tensor s, at::Tensor w) {
  return at::empty_like(x);
}
TORCH_LIBRARY_IMPL(sw, Meta, m) { m.impl("linear_f32", &meta3); }
