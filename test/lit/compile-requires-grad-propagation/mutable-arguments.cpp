// RUN: %check_torch_tidy %s torch-compile-requires-grad-propagation %t
// RUN: %check_torch_tidy %s torch-compile-requires-grad-propagation %t-all \
// RUN:   --config="{CheckOptions: {torch-compile-requires-grad-propagation.RegionMode: all}}" \
// RUN:   --check-suffix=ALL
// Writes into an operator's mutable (`Tensor(a!)`) argument from a value
// that may require grad: a torch.compile'd caller keeps reading
// requires_grad == false for the tensor it passed (docs/ground-truth.md,
// paths cpp_mutable_*). Reported by default for the keys measured
// (CompositeImplicitAutograd, CompositeExplicitAutograd, CPU); every key
// under RegionMode: all.
#include <torch/torch.h>

using torch::indexing::Slice;

// --- every write form, in a CompositeImplicitAutograd kernel ---------------
void forms(at::Tensor &m, const at::Tensor &v, const at::Tensor &idx,
           const at::Tensor &mask) {
  m.index_put_({Slice(0, 2)}, v);
  // CHECK-MESSAGES: :[[@LINE-1]]:3: warning: in-place index_put_ into mutable argument 'm' of operator 'tt::forms' from 'v', which may require grad: a torch.compile'd caller keeps reading requires_grad() == false for the tensor it passed (measured on torch 2.8.0 and 2.15.0), and code that branches on it drops gradients [torch-compile-requires-grad-propagation]
  // CHECK-MESSAGES-ALL: :[[@LINE-2]]:3: warning: in-place index_put_ into mutable argument 'm'
  m.index({Slice(), 0}) = v;
  // CHECK-MESSAGES: :[[@LINE-1]]:3: warning: in-place index(...) assignment into mutable argument 'm'
  // CHECK-MESSAGES-ALL: :[[@LINE-2]]:3: warning: in-place index(...) assignment
  m[0] = v;
  // CHECK-MESSAGES: :[[@LINE-1]]:3: warning: in-place operator[] assignment into mutable argument 'm'
  // CHECK-MESSAGES-ALL: :[[@LINE-2]]:3: warning: in-place operator[] assignment
  m.narrow(0, 1, 2).copy_(v);
  // CHECK-MESSAGES: :[[@LINE-1]]:3: warning: in-place copy_ into mutable argument 'm'
  // CHECK-MESSAGES-ALL: :[[@LINE-2]]:3: warning: in-place copy_
  m.select(0, 0).copy_(v);
  // CHECK-MESSAGES: :[[@LINE-1]]:3: warning: in-place copy_ into mutable argument 'm'
  // CHECK-MESSAGES-ALL: :[[@LINE-2]]:3: warning: in-place copy_
  m.index_copy_(0, idx, v);
  // CHECK-MESSAGES: :[[@LINE-1]]:3: warning: in-place index_copy_ into mutable argument 'm'
  // CHECK-MESSAGES-ALL: :[[@LINE-2]]:3: warning: in-place index_copy_
  m.masked_scatter_(mask, v);
  // CHECK-MESSAGES: :[[@LINE-1]]:3: warning: in-place masked_scatter_ into mutable argument 'm'
  // CHECK-MESSAGES-ALL: :[[@LINE-2]]:3: warning: in-place masked_scatter_
  m.scatter_(1, idx, v);
  // CHECK-MESSAGES: :[[@LINE-1]]:3: warning: in-place scatter_ into mutable argument 'm'
  // CHECK-MESSAGES-ALL: :[[@LINE-2]]:3: warning: in-place scatter_
  m.masked_fill_(mask, v.sum());
  // CHECK-MESSAGES: :[[@LINE-1]]:3: warning: in-place masked_fill_ into mutable argument 'm'
  // CHECK-MESSAGES-ALL: :[[@LINE-2]]:3: warning: in-place masked_fill_
  m.index_fill_(0, idx, v.sum());
  // CHECK-MESSAGES: :[[@LINE-1]]:3: warning: in-place index_fill_ into mutable argument 'm'
  // CHECK-MESSAGES-ALL: :[[@LINE-2]]:3: warning: in-place index_fill_
  // Whole-tensor writes and in-place arithmetic count for mutable arguments.
  m.copy_(v);
  // CHECK-MESSAGES: :[[@LINE-1]]:3: warning: in-place copy_ into mutable argument 'm'
  // CHECK-MESSAGES-ALL: :[[@LINE-2]]:3: warning: in-place copy_
  m.fill_(v.sum());
  // CHECK-MESSAGES: :[[@LINE-1]]:3: warning: in-place fill_ into mutable argument 'm'
  // CHECK-MESSAGES-ALL: :[[@LINE-2]]:3: warning: in-place fill_
  m.add_(v);
  // CHECK-MESSAGES: :[[@LINE-1]]:3: warning: in-place add_ into mutable argument 'm'
  // CHECK-MESSAGES-ALL: :[[@LINE-2]]:3: warning: in-place add_
  m.mul_(v);
  // CHECK-MESSAGES: :[[@LINE-1]]:3: warning: in-place mul_ into mutable argument 'm'
  // CHECK-MESSAGES-ALL: :[[@LINE-2]]:3: warning: in-place mul_
  m.index_add_(0, at::arange(2), v); // names the operand with grad
  // CHECK-MESSAGES: :[[@LINE-1]]:3: warning: in-place index_add_ into mutable argument 'm' of operator 'tt::forms' from 'v'
  // CHECK-MESSAGES-ALL: :[[@LINE-2]]:3: warning: in-place index_add_
  m.addcmul_(idx, v);
  // CHECK-MESSAGES: :[[@LINE-1]]:3: warning: in-place addcmul_ into mutable argument 'm' of operator 'tt::forms' from 'idx'
  // CHECK-MESSAGES-ALL: :[[@LINE-2]]:3: warning: in-place addcmul_
  m += v;
  // CHECK-MESSAGES: :[[@LINE-1]]:3: warning: in-place += into mutable argument 'm'
  // CHECK-MESSAGES-ALL: :[[@LINE-2]]:3: warning: in-place +=
  at::fill_(m, v.sum());
  // CHECK-MESSAGES: :[[@LINE-1]]:3: warning: in-place fill_ into mutable argument 'm'
  // CHECK-MESSAGES-ALL: :[[@LINE-2]]:3: warning: in-place fill_
  at::index_put_(m, {std::nullopt}, v);
  // CHECK-MESSAGES: :[[@LINE-1]]:3: warning: in-place index_put_ into mutable argument 'm'
  // CHECK-MESSAGES-ALL: :[[@LINE-2]]:3: warning: in-place index_put_
  at::addmv_(m, idx, v);
  // CHECK-MESSAGES: :[[@LINE-1]]:3: warning: in-place addmv_ into mutable argument 'm'
  // CHECK-MESSAGES-ALL: :[[@LINE-2]]:3: warning: in-place addmv_
}

// --- views and aliases of the argument ---------------------------------------
void views(at::Tensor m, const at::Tensor &v) {
  auto w = m.slice(0, 1, 3); // a named view
  w.copy_(v);
  // CHECK-MESSAGES: :[[@LINE-1]]:3: warning: in-place copy_ into mutable argument 'm' of operator 'tt::views'
  // CHECK-MESSAGES-ALL: :[[@LINE-2]]:3: warning: in-place copy_
  at::Tensor &r = m; // a reference
  r.index_put_({0}, v);
  // CHECK-MESSAGES: :[[@LINE-1]]:3: warning: in-place index_put_ into mutable argument 'm'
  // CHECK-MESSAGES-ALL: :[[@LINE-2]]:3: warning: in-place index_put_
  at::Tensor h = m; // another handle to the same tensor
  h.narrow(0, 0, 1).transpose(0, 1).copy_(v);
  // CHECK-MESSAGES: :[[@LINE-1]]:3: warning: in-place copy_ into mutable argument 'm'
  // CHECK-MESSAGES-ALL: :[[@LINE-2]]:3: warning: in-place copy_
}

// --- through a helper that is not registered itself -------------------------
static void fill_rows(at::Tensor &dst, const at::Tensor &src) {
  dst.index_put_({Slice(0, 2)}, src);
}
void via_helper(at::Tensor &m, const at::Tensor &v) {
  fill_rows(m, v);
  // CHECK-MESSAGES: :[[@LINE-1]]:3: warning: in-place index_put_ into mutable argument 'm' of operator 'tt::via_helper'
  // CHECK-MESSAGES-ALL: :[[@LINE-2]]:3: warning: in-place index_put_
  fill_rows(m, v.detach()); // the helper's write carries no grad here
}

// --- a keyword-only mutable argument; a DispatchKeySet-taking kernel --------
void kwonly(const at::Tensor &v, int64_t n, at::Tensor &out) {
  out.narrow(0, 0, n).copy_(v);
  // CHECK-MESSAGES: :[[@LINE-1]]:3: warning: in-place copy_ into mutable argument 'out' of operator 'tt::kwonly'
  // CHECK-MESSAGES-ALL: :[[@LINE-2]]:3: warning: in-place copy_
}
void with_keyset(c10::DispatchKeySet ks, at::Tensor &m, const at::Tensor &v) {
  m.copy_(v);
  // CHECK-MESSAGES: :[[@LINE-1]]:3: warning: in-place copy_ into mutable argument 'm' of operator 'tt::with_keyset'
  // CHECK-MESSAGES-ALL: :[[@LINE-2]]:3: warning: in-place copy_
}

// --- registration spellings ----------------------------------------------------
void by_pointer(at::Tensor &m, const at::Tensor &v) {
  m.copy_(v);
  // CHECK-MESSAGES: :[[@LINE-1]]:3: warning: in-place copy_ into mutable argument 'm' of operator 'tt::by_pointer'
  // CHECK-MESSAGES-ALL: :[[@LINE-2]]:3: warning: in-place copy_
}
void by_name(at::Tensor &m, const at::Tensor &v) {
  m.copy_(v);
  // CHECK-MESSAGES: :[[@LINE-1]]:3: warning: in-place copy_ into mutable argument 'm' of operator 'tt::by_name'
  // CHECK-MESSAGES-ALL: :[[@LINE-2]]:3: warning: in-place copy_
}
void by_torch_fn(at::Tensor &m, const at::Tensor &v) {
  m.copy_(v);
  // CHECK-MESSAGES: :[[@LINE-1]]:3: warning: in-place copy_ into mutable argument 'm' of operator 'tt::by_torch_fn'
  // CHECK-MESSAGES-ALL: :[[@LINE-2]]:3: warning: in-place copy_
}
void impl_catch_all(at::Tensor &m, const at::Tensor &v) {
  m.copy_(v);
  // CHECK-MESSAGES: :[[@LINE-1]]:3: warning: in-place copy_ into mutable argument 'm' of operator 'tt::impl_catch_all'
  // CHECK-MESSAGES-ALL: :[[@LINE-2]]:3: warning: in-place copy_
}
void impl_cpu(at::Tensor &m, const at::Tensor &v) {
  m.copy_(v);
  // CHECK-MESSAGES: :[[@LINE-1]]:3: warning: in-place copy_ into mutable argument 'm' of operator 'tt::impl_cpu'
  // CHECK-MESSAGES-ALL: :[[@LINE-2]]:3: warning: in-place copy_
}
void impl_explicit(at::Tensor &m, const at::Tensor &v) {
  m.copy_(v);
  // CHECK-MESSAGES: :[[@LINE-1]]:3: warning: in-place copy_ into mutable argument 'm' of operator 'tt::impl_explicit'
  // CHECK-MESSAGES-ALL: :[[@LINE-2]]:3: warning: in-place copy_
}
void impl_implicit(at::Tensor &m, const at::Tensor &v) {
  m.copy_(v);
  // CHECK-MESSAGES: :[[@LINE-1]]:3: warning: in-place copy_ into mutable argument 'm' of operator 'tt::impl_implicit'
  // CHECK-MESSAGES-ALL: :[[@LINE-2]]:3: warning: in-place copy_
}
void dispatch_cpu(at::Tensor &m, const at::Tensor &v) {
  m.copy_(v);
  // CHECK-MESSAGES: :[[@LINE-1]]:3: warning: in-place copy_ into mutable argument 'm' of operator 'tt::dispatch_cpu'
  // CHECK-MESSAGES-ALL: :[[@LINE-2]]:3: warning: in-place copy_
}
void key_argument(at::Tensor &m, const at::Tensor &v) {
  m.copy_(v);
  // CHECK-MESSAGES: :[[@LINE-1]]:3: warning: in-place copy_ into mutable argument 'm' of operator 'tt::key_argument'
  // CHECK-MESSAGES-ALL: :[[@LINE-2]]:3: warning: in-place copy_
}
void device_type(at::Tensor &m, const at::Tensor &v) {
  m.copy_(v);
  // CHECK-MESSAGES: :[[@LINE-1]]:3: warning: in-place copy_ into mutable argument 'm' of operator 'tt::device_type'
  // CHECK-MESSAGES-ALL: :[[@LINE-2]]:3: warning: in-place copy_
}
void in_fragment(at::Tensor &m, const at::Tensor &v) {
  m.copy_(v);
  // CHECK-MESSAGES: :[[@LINE-1]]:3: warning: in-place copy_ into mutable argument 'm' of operator 'tt::in_fragment'
  // CHECK-MESSAGES-ALL: :[[@LINE-2]]:3: warning: in-place copy_
}
void selective(at::Tensor &m, const at::Tensor &v) {
  m.copy_(v);
  // CHECK-MESSAGES: :[[@LINE-1]]:3: warning: in-place copy_ into mutable argument 'm' of operator 'tt::selective'
  // CHECK-MESSAGES-ALL: :[[@LINE-2]]:3: warning: in-place copy_
}
void overload_out(const at::Tensor &v, at::Tensor &out) {
  out.copy_(v);
  // CHECK-MESSAGES: :[[@LINE-1]]:3: warning: in-place copy_ into mutable argument 'out' of operator 'tt::scale.out'
  // CHECK-MESSAGES-ALL: :[[@LINE-2]]:3: warning: in-place copy_
}
void by_helper_registration(at::Tensor &m, const at::Tensor &v) {
  m.copy_(v);
  // CHECK-MESSAGES: :[[@LINE-1]]:3: warning: in-place copy_ into mutable argument 'm' of operator 'tt::by_helper_registration'
  // CHECK-MESSAGES-ALL: :[[@LINE-2]]:3: warning: in-place copy_
}
// Keys that were not measured: reported only under RegionMode: all.
void cuda_kernel(at::Tensor &m, const at::Tensor &v) {
  m.copy_(v);
  // CHECK-MESSAGES-ALL: :[[@LINE-1]]:3: warning: in-place copy_ into mutable argument 'm' of operator 'tt::cuda_only'
}
void meta_kernel(at::Tensor &m, const at::Tensor &v) {
  m.copy_(v);
  // CHECK-MESSAGES-ALL: :[[@LINE-1]]:3: warning: in-place copy_ into mutable argument 'm' of operator 'tt::meta_only'
}

// --- not reported ----------------------------------------------------------
void values_without_grad(at::Tensor &m, const at::Tensor &v) {
  m.copy_(v.detach());                   // detached
  m.index_put_({0}, at::arange(3));      // an integer tensor
  m.copy_(v.to(at::kLong));              // an integer tensor
  m.fill_(0);                            // a literal
  m.zero_();                             // no value at all
  m.index_put_({0}, 1.0);                // a Scalar
  m.add_(1.0);                           // a Scalar
  auto fresh = torch::zeros({3});
  m.copy_(fresh);                        // a fresh tensor without grad
}
void under_guards(at::Tensor &m, const at::Tensor &v) {
  {
    torch::NoGradGuard no_grad;
    m.copy_(v);
  }
  {
    c10::InferenceMode guard;
    m.index_put_({0}, v);
  }
}
void reassigned(at::Tensor &m, const at::Tensor &v) {
  m = m * 2; // a new tensor: the caller's is not written
  m.copy_(v);
}
void clone_then_write(const at::Tensor &m, const at::Tensor &v) {
  auto out = m.clone();
  out.index_put_({0}, v);
}
at::Tensor functional_twin(const at::Tensor &m, const at::Tensor &v) {
  return m.slice_scatter(v, 0, 0, 2);
}
void not_mutable(const at::Tensor &m, const at::Tensor &v) {
  m.copy_(v); // torch-op-undeclared-mutation's business, not this check's
}
void only_aliased(const at::Tensor &m, const at::Tensor &v) {
  m.copy_(v); // Tensor(a): an alias, not declared written
}
void inferred(at::Tensor &m, const at::Tensor &v) {
  m.copy_(v); // m.def(name, fn): LibTorch infers `Tensor`, not `Tensor(a!)`
}
void never_registered(at::Tensor &m, const at::Tensor &v) { m.copy_(v); }
void list_argument(std::vector<at::Tensor> ms, const at::Tensor &v) {
  ms[0].copy_(v); // Tensor(a!)[]: lists are not followed
}
void other_file_schema(at::Tensor &m, const at::Tensor &v) {
  m.copy_(v); // the schema is not in this file
}

static void register_more(torch::Library &m) {
  m.def("by_helper_registration(Tensor(a!) m, Tensor v) -> ()",
        &by_helper_registration);
}

TORCH_LIBRARY(tt, m) {
  m.def("forms(Tensor(a!) m, Tensor v, Tensor idx, Tensor mask) -> ()",
        &forms);
  m.def("views(Tensor(a!) m, Tensor v) -> ()", &views);
  m.def("via_helper(Tensor(a!) m, Tensor v) -> ()", &via_helper);
  m.def("kwonly(Tensor v, int n, *, Tensor(a!) out) -> ()", &kwonly);
  m.def("with_keyset(Tensor(a!) m, Tensor v) -> ()", &with_keyset);
  m.def("by_pointer(Tensor(a!) m, Tensor v) -> ()", &by_pointer);
  m.def("by_name(Tensor(a!) m, Tensor v) -> ()", by_name);
  m.def("by_torch_fn(Tensor(a!) m, Tensor v) -> ()", TORCH_FN(by_torch_fn));
  m.def("by_lambda(Tensor(a!) m, Tensor v) -> ()",
        [](at::Tensor &m, const at::Tensor &v) {
          m.index_put_({0}, v);
          // CHECK-MESSAGES: :[[@LINE-1]]:11: warning: in-place index_put_ into mutable argument 'm' of operator 'tt::by_lambda'
          // CHECK-MESSAGES-ALL: :[[@LINE-2]]:11: warning: in-place index_put_
        });
  m.def("impl_catch_all(Tensor(a!) m, Tensor v) -> ()");
  m.impl("impl_catch_all", &impl_catch_all);
  m.def("impl_cpu(Tensor(a!) m, Tensor v) -> ()");
  m.def("impl_explicit(Tensor(a!) m, Tensor v) -> ()");
  m.def("impl_implicit(Tensor(a!) m, Tensor v) -> ()");
  m.def("dispatch_cpu(Tensor(a!) m, Tensor v) -> ()");
  m.impl("dispatch_cpu", torch::dispatch(c10::DispatchKey::CPU, &dispatch_cpu));
  m.def("key_argument(Tensor(a!) m, Tensor v) -> ()");
  m.impl("tt::key_argument", c10::DispatchKey::CPU, &key_argument);
  m.def("device_type(Tensor(a!) m, Tensor v) -> ()");
  m.impl("device_type", torch::dispatch(at::kCPU, &device_type));
  m.def(TORCH_SELECTIVE_SCHEMA("selective(Tensor(a!) m, Tensor v) -> ()"));
  m.impl(TORCH_SELECTIVE_NAME("selective"), &selective);
  m.def("scale.out(Tensor v, *, Tensor(a!) out) -> Tensor(a!)");
  m.impl("scale.out", &overload_out);
  m.def("cuda_only(Tensor(a!) m, Tensor v) -> ()");
  m.def("meta_only(Tensor(a!) m, Tensor v) -> ()");
  register_more(m);
  // Not reported:
  m.def("values_without_grad(Tensor(a!) m, Tensor v) -> ()",
        &values_without_grad);
  m.def("under_guards(Tensor(a!) m, Tensor v) -> ()", &under_guards);
  m.def("reassigned(Tensor(a!) m, Tensor v) -> ()", &reassigned);
  m.def("clone_then_write(Tensor m, Tensor v) -> ()", &clone_then_write);
  m.def("functional_twin(Tensor m, Tensor v) -> Tensor", &functional_twin);
  m.def("not_mutable(Tensor m, Tensor v) -> ()", &not_mutable);
  m.def("only_aliased(Tensor(a) m, Tensor v) -> ()", &only_aliased);
  m.def("inferred", &inferred);
  m.def("list_argument(Tensor(a!)[] ms, Tensor v) -> ()", &list_argument);
}
TORCH_LIBRARY_FRAGMENT(tt, m) {
  m.def("in_fragment(Tensor(a!) m, Tensor v) -> ()", &in_fragment);
}
TORCH_LIBRARY_IMPL(tt, CPU, m) { m.impl("impl_cpu", &impl_cpu); }
TORCH_LIBRARY_IMPL(tt, CompositeExplicitAutograd, m) {
  m.impl("impl_explicit", &impl_explicit);
}
TORCH_LIBRARY_IMPL(tt, CompositeImplicitAutograd, m) {
  m.impl("impl_implicit", &impl_implicit);
}
TORCH_LIBRARY_IMPL(tt, CUDA, m) { m.impl("cuda_only", &cuda_kernel); }
TORCH_LIBRARY_IMPL(tt, Meta, m) { m.impl("meta_only", &meta_kernel); }
TORCH_LIBRARY_IMPL(other, CPU, m) {
  m.impl("other_file_schema", &other_file_schema);
}
