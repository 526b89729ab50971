// A kernel below autograd that returns an argument, or a view of it, where
// the schema declares no alias: as an element of a tuple the return builds
// (std::make_tuple, std::tie, a braced return, std::tuple<...>(...)), and
// through a method that returns its receiver where it makes no copy
// (contiguous(), to(dtype)): the warning says that condition. opcheck
// fails test_schema on each (tools/ground-truth/alias_returns.py, forms
// tuple_self, tuple_view, contiguous_self). The fix returns a copy of the
// result (form contiguous_copy passes opcheck and compiles to eager's
// values); a tuple's element gets none, its note saying to copy it and to
// make the fake return a new tensor too (form tuple_copy, with such a fake):
// a copy in the kernel alone leaves an aliasing fake behind.
// RUN: %check_torch_tidy %s torch-op-undeclared-mutation %t
#include <torch/torch.h>
#include <tuple>

// A fall-back path that returns its arguments.
std::tuple<at::Tensor, at::Tensor> quantize(const at::Tensor &weight,
                                            const at::Tensor &scales) {
  if (weight.dim() == 1)
    return std::make_tuple(weight, scales);
  return std::make_tuple(weight.clone(), scales * 2);
}
// CHECK-MESSAGES: :[[@LINE-3]]:28: warning: the kernel returns argument 'weight' of operator 'ar::quantize' as element 0 of its result, which the schema does not declare as aliasing that output: torch.library.opcheck fails test_schema, and torch.compile (aot_eager, inductor) on torch 2.15.0 warns that this will become an error (it raises where the environment sets CI); return a copy [torch-op-undeclared-mutation]
// CHECK-MESSAGES: :[[@LINE-4]]:28: note: no fix: an element of a returned tuple: copy it ('weight.clone()'; opcheck passes and compiled values equal eager's, measured) and make the operator's fake return a new tensor there too, which torch-tidy does not rewrite, so it leaves both to you
// CHECK-MESSAGES: :[[@LINE-5]]:36: warning: the kernel returns argument 'scales' of operator 'ar::quantize' as element 1 of its result, which
// CHECK-FIXES: return std::make_tuple(weight, scales);

std::tuple<at::Tensor, at::Tensor> braced(const at::Tensor &w,
                                          const at::Tensor &s) {
  return {w.view({-1}), s * 2};
}
// CHECK-MESSAGES: :[[@LINE-2]]:11: warning: the kernel returns a view of argument 'w' of operator 'ar::braced' as element 0 of its result, which
// CHECK-FIXES: return {w.view({-1}), s * 2};

std::tuple<at::Tensor, at::Tensor> constructed(const at::Tensor &w,
                                               const at::Tensor &s) {
  return std::tuple<at::Tensor, at::Tensor>(s * 2, w);
}
// CHECK-MESSAGES: :[[@LINE-2]]:52: warning: the kernel returns argument 'w' of operator 'ar::constructed' as element 1 of its result, which

// Declared: element 1 aliases 'w' (Tensor(a) w -> (Tensor, Tensor(a))).
std::tuple<at::Tensor, at::Tensor> declared(const at::Tensor &w,
                                            const at::Tensor &s) {
  return std::make_tuple(s * 2, w.view({-1}));
}

// Fresh values only: no warning.
std::tuple<at::Tensor, at::Tensor> fresh(const at::Tensor &w,
                                         const at::Tensor &s) {
  at::Tensor a = w.clone();
  return std::make_tuple(a.view({-1}), s + 1);
}

// Returns its receiver where it makes no copy.
at::Tensor contiguous_of(const at::Tensor &m) { return m.contiguous(); }
// CHECK-MESSAGES: :[[@LINE-1]]:56: warning: the kernel returns a view of argument 'm' of operator 'ar::contiguous_of' wherever contiguous() returns its receiver (it copies only where the receiver is not contiguous), which the schema does not declare as aliasing its output: torch.library.opcheck fails test_schema, and torch.compile (aot_eager, inductor) on torch 2.15.0 warns that this will become an error (it raises where the environment sets CI); return a copy
// CHECK-FIXES: at::Tensor contiguous_of(const at::Tensor &m) { return m.contiguous().clone(); }

at::Tensor as_float(const at::Tensor &scales) {
  at::Tensor s = scales.to(at::kFloat);
  return s.view({1});
}
// CHECK-MESSAGES: :[[@LINE-2]]:10: warning: the kernel returns a view of argument 'scales' of operator 'ar::as_float' wherever to() returns its receiver (it copies only where the receiver has another dtype), which

// A conversion that always copies: no warning.
at::Tensor always_copies(const at::Tensor &m) {
  return m.to(at::kFloat, /*non_blocking=*/false, /*copy=*/true);
}

// Writes the argument and returns it, the write without a fix here (the
// schema comes from a macro; issue 80: a library's LoRA shrink kernel, its
// schema inferred): a copy of the result alone would leave the write
// undeclared, so the return gets none either. (Where the write's fix
// declares it, the return is copied too: fixes.cpp's write_return.)
at::Tensor scale_in_place(at::Tensor x, double s) {
  x.mul_(s);
  return x;
}
// CHECK-MESSAGES: :[[@LINE-3]]:3: warning: mul_ writes into argument 'x' of operator 'ar::scale_in_place', which its schema does not declare mutable
// CHECK-MESSAGES: :[[@LINE-3]]:10: warning: the kernel returns argument 'x' of operator 'ar::scale_in_place', which the schema does not declare as aliasing its output: {{.*}}; it also writes 'x', which gets no fix here: declare it 'Tensor(a!) x' and return a copy, both (a copy alone leaves the write undeclared)
// CHECK-MESSAGES: :[[@LINE-4]]:10: note: no fix: the kernel also writes 'x', which gets no fix here: returning a copy alone would leave that write undeclared
// CHECK-FIXES: return x;

#define SCALE_IN_PLACE_SCHEMA "scale_in_place(Tensor x, float s) -> Tensor"
TORCH_LIBRARY(ar, m) {
  m.def("quantize(Tensor weight, Tensor scales) -> (Tensor, Tensor)");
  m.def("braced(Tensor w, Tensor s) -> (Tensor, Tensor)");
  m.def("constructed(Tensor w, Tensor s) -> (Tensor, Tensor)");
  m.def("declared(Tensor(a) w, Tensor s) -> (Tensor, Tensor(a))");
  m.def("fresh(Tensor w, Tensor s) -> (Tensor, Tensor)");
  m.def("contiguous_of(Tensor m) -> Tensor");
  m.def("as_float(Tensor scales) -> Tensor");
  m.def("always_copies(Tensor m) -> Tensor");
  m.def(SCALE_IN_PLACE_SCHEMA);
}

TORCH_LIBRARY_IMPL(ar, CPU, m) {
  m.impl("quantize", &quantize);
  m.impl("braced", &braced);
  m.impl("constructed", &constructed);
  m.impl("declared", &declared);
  m.impl("fresh", &fresh);
  m.impl("contiguous_of", &contiguous_of);
  m.impl("as_float", &as_float);
  m.impl("always_copies", &always_copies);
  m.impl("scale_in_place", &scale_in_place);
}
