// Operators like the lit cases of mutable arguments, built with
// torch.utils.cpp_extension and called from torch.compile'd Python on a fresh
// torch.zeros(3, 4) buffer (run_verdicts.py). The test requires the flag to
// be lost exactly for the operators that torch-tidy flags with default
// options.
//
// Each kernel is preceded by its case line, read by run_verdicts.py:
//   // case: NAME call=mutable|kwonly|functional src=SHAPE [key=K]
//          [owner=undeclared]
// call: op(m, v), op(v, out=m), or m = op(m, v); src: the shape of v (which
// requires grad); key: the dispatch key of a kernel registered below
// autograd (a fake kernel is registered for it); owner=undeclared: the
// schema does not declare the write, which torch-op-undeclared-mutation
// reports, not the flagship.
#include <ATen/ATen.h>
#include <torch/library.h>

using at::Tensor;
using at::indexing::Slice;

namespace {

at::TensorOptions longOn(const Tensor &T) {
  return T.options().dtype(at::kLong);
}

} // namespace

// --- every write form, CompositeImplicitAutograd (m.def(schema, fn)) -------

// case: index_put call=mutable src=2,4
void index_put(Tensor &m, const Tensor &v) { m.index_put_({Slice(0, 2)}, v); }

// case: index_assign call=mutable src=3
void index_assign(Tensor &m, const Tensor &v) { m.index({Slice(), 0}) = v; }

// case: subscript_assign call=mutable src=4
void subscript_assign(Tensor &m, const Tensor &v) { m[0] = v; }

// case: narrow_copy call=mutable src=2,4
void narrow_copy(Tensor &m, const Tensor &v) { m.narrow(0, 1, 2).copy_(v); }

// case: select_copy call=mutable src=4
void select_copy(Tensor &m, const Tensor &v) { m.select(0, 2).copy_(v); }

// case: index_copy call=mutable src=2,4
void index_copy(Tensor &m, const Tensor &v) {
  m.index_copy_(0, at::arange(2, longOn(v)), v);
}

// case: masked_scatter call=mutable src=3,4
void masked_scatter(Tensor &m, const Tensor &v) {
  m.masked_scatter_(at::arange(12, longOn(v)).view({3, 4}).remainder(3).eq(0),
                    v);
}

// case: scatter call=mutable src=3,2
void scatter(Tensor &m, const Tensor &v) {
  m.scatter_(1, at::arange(6, longOn(v)).view({3, 2}).remainder(4), v);
}

// case: masked_fill call=mutable src=4
void masked_fill(Tensor &m, const Tensor &v) {
  m.masked_fill_(at::arange(12, longOn(v)).view({3, 4}).gt(5), v.sum());
}

// case: index_fill call=mutable src=4
void index_fill(Tensor &m, const Tensor &v) {
  m.index_fill_(1, at::arange(2, longOn(v)), v.sum());
}

// case: whole_copy call=mutable src=3,4
void whole_copy(Tensor &m, const Tensor &v) { m.copy_(v); }

// case: whole_fill call=mutable src=4
void whole_fill(Tensor &m, const Tensor &v) { m.fill_(v.sum()); }

// case: add call=mutable src=3,4
void add(Tensor &m, const Tensor &v) { m.add_(v); }

// case: compound_add call=mutable src=4
void compound_add(Tensor &m, const Tensor &v) { m += v; }

// case: index_add call=mutable src=2,4
void index_add(Tensor &m, const Tensor &v) {
  m.index_add_(0, at::arange(2, longOn(v)), v);
}

// case: free_index_put call=mutable src=2,4
void free_index_put(Tensor &m, const Tensor &v) {
  c10::List<std::optional<Tensor>> Rows;
  Rows.push_back(at::arange(2, longOn(v)));
  at::index_put_(m, Rows, v);
}

// --- views and aliases ------------------------------------------------------

// case: named_view call=mutable src=2,4
void named_view(const Tensor &m, const Tensor &v) {
  auto w = m.slice(0, 1, 3);
  w.copy_(v);
}

// case: reference_alias call=mutable src=3,4
void reference_alias(Tensor &m, const Tensor &v) {
  Tensor &r = m;
  r.index_put_({Slice()}, v);
}

// case: handle_alias call=mutable src=3,1
void handle_alias(const Tensor &m, const Tensor &v) {
  Tensor h = m;
  h.narrow(1, 0, 1).transpose(0, 1).copy_(v.t());
}

// --- through an unregistered helper; keyword-only; other spellings ---------

static void fill_rows(Tensor &dst, const Tensor &src) {
  dst.index_put_({Slice(0, 2)}, src);
}
// case: via_helper call=mutable src=2,4
void via_helper(Tensor &m, const Tensor &v) { fill_rows(m, v); }

// case: kwonly_out call=kwonly src=2,4
void kwonly_out(const Tensor &v, Tensor &out) { out.narrow(0, 0, 2).copy_(v); }

// case: by_torch_fn call=mutable src=3,4
void by_torch_fn(Tensor &m, const Tensor &v) { m.copy_(v * 2); }

// case: by_lambda call=mutable src=3,4
// (the kernel is the lambda in TORCH_LIBRARY below)

// --- kernels below autograd (fake kernels registered from Python) ---------

// case: cpu_kernel call=mutable src=2,4 key=CPU
void cpu_kernel(Tensor &m, const Tensor &v) { m.narrow(0, 0, 2).copy_(v); }

// case: explicit_kernel call=mutable src=3,4 key=CompositeExplicitAutograd
void explicit_kernel(Tensor &m, const Tensor &v) { m.copy_(v); }

// case: dispatch_cpu call=mutable src=3,4 key=CPU
void dispatch_cpu(Tensor &m, const Tensor &v) { m.add_(v); }

// --- not flagged ------------------------------------------------------------

// case: detached call=mutable src=3,4
void detached(Tensor &m, const Tensor &v) { m.copy_(v.detach()); }

// case: integer_value call=mutable src=3,4
void integer_value(Tensor &m, const Tensor &v) {
  m.copy_(at::arange(12, longOn(v)).view({3, 4}));
}

// case: literal_value call=mutable src=3,4
void literal_value(Tensor &m, const Tensor &v) { m.fill_(1.5); }

// case: no_grad_guard call=mutable src=3,4
void no_grad_guard(Tensor &m, const Tensor &v) {
  at::NoGradGuard Guard;
  m.copy_(v);
}

// case: functional_twin call=functional src=2,4
Tensor functional_twin(const Tensor &m, const Tensor &v) {
  return m.slice_scatter(v, 0, 0, 2);
}

// case: clone_then_write call=functional src=2,4
Tensor clone_then_write(const Tensor &m, const Tensor &v) {
  auto out = m.clone();
  out.index_put_({Slice(0, 2)}, v);
  return out;
}

// case: undeclared call=mutable src=3,4 owner=undeclared
void undeclared(const Tensor &m, const Tensor &v) { m.copy_(v); }

// case: inferred call=mutable src=3,4 owner=undeclared
void inferred(Tensor &m, const Tensor &v) { m.copy_(v); }

TORCH_LIBRARY(tt_verdicts, m) {
  m.def("index_put(Tensor(a!) m, Tensor v) -> ()", &index_put);
  m.def("index_assign(Tensor(a!) m, Tensor v) -> ()", &index_assign);
  m.def("subscript_assign(Tensor(a!) m, Tensor v) -> ()", &subscript_assign);
  m.def("narrow_copy(Tensor(a!) m, Tensor v) -> ()", &narrow_copy);
  m.def("select_copy(Tensor(a!) m, Tensor v) -> ()", &select_copy);
  m.def("index_copy(Tensor(a!) m, Tensor v) -> ()", &index_copy);
  m.def("masked_scatter(Tensor(a!) m, Tensor v) -> ()", &masked_scatter);
  m.def("scatter(Tensor(a!) m, Tensor v) -> ()", &scatter);
  m.def("masked_fill(Tensor(a!) m, Tensor v) -> ()", &masked_fill);
  m.def("index_fill(Tensor(a!) m, Tensor v) -> ()", &index_fill);
  m.def("whole_copy(Tensor(a!) m, Tensor v) -> ()", &whole_copy);
  m.def("whole_fill(Tensor(a!) m, Tensor v) -> ()", &whole_fill);
  m.def("add(Tensor(a!) m, Tensor v) -> ()", &add);
  m.def("compound_add(Tensor(a!) m, Tensor v) -> ()", &compound_add);
  m.def("index_add(Tensor(a!) m, Tensor v) -> ()", &index_add);
  m.def("free_index_put(Tensor(a!) m, Tensor v) -> ()", &free_index_put);
  m.def("named_view(Tensor(a!) m, Tensor v) -> ()", &named_view);
  m.def("reference_alias(Tensor(a!) m, Tensor v) -> ()", &reference_alias);
  m.def("handle_alias(Tensor(a!) m, Tensor v) -> ()", &handle_alias);
  m.def("via_helper(Tensor(a!) m, Tensor v) -> ()", &via_helper);
  m.def("kwonly_out(Tensor v, *, Tensor(a!) out) -> ()", &kwonly_out);
  m.def("by_torch_fn(Tensor(a!) m, Tensor v) -> ()", TORCH_FN(by_torch_fn));
  m.def("by_lambda(Tensor(a!) m, Tensor v) -> ()",
        [](Tensor &m, const Tensor &v) { m.index_put_({Slice()}, v); });
  m.def("cpu_kernel(Tensor(a!) m, Tensor v) -> ()");
  m.def("explicit_kernel(Tensor(a!) m, Tensor v) -> ()");
  m.def("dispatch_cpu(Tensor(a!) m, Tensor v) -> ()");
  m.impl("dispatch_cpu",
         torch::dispatch(c10::DispatchKey::CPU, TORCH_FN(dispatch_cpu)));
  m.def("detached(Tensor(a!) m, Tensor v) -> ()", &detached);
  m.def("integer_value(Tensor(a!) m, Tensor v) -> ()", &integer_value);
  m.def("literal_value(Tensor(a!) m, Tensor v) -> ()", &literal_value);
  m.def("no_grad_guard(Tensor(a!) m, Tensor v) -> ()", &no_grad_guard);
  m.def("functional_twin(Tensor m, Tensor v) -> Tensor", &functional_twin);
  m.def("clone_then_write(Tensor m, Tensor v) -> Tensor", &clone_then_write);
  m.def("undeclared(Tensor m, Tensor v) -> ()", &undeclared);
  m.def("inferred", &inferred);
}
TORCH_LIBRARY_IMPL(tt_verdicts, CPU, m) { m.impl("cpu_kernel", &cpu_kernel); }
TORCH_LIBRARY_IMPL(tt_verdicts, CompositeExplicitAutograd, m) {
  m.impl("explicit_kernel", &explicit_kernel);
}
