// RUN: %check_torch_tidy %s torch-op-undeclared-mutation %t
// No warning: declared mutations, copies, fresh locals, advanced-index
// copies, rebound handles, read-only arguments, helpers that are not
// registered, operators whose schema this file does not see, and
// CompositeImplicitAutograd kernels (opcheck passes and torch.compile gives
// eager's values there: docs/ground-truth-mutation.json).
#include <torch/torch.h>

using torch::indexing::Slice;

namespace {
at::Tensor declared(at::Tensor &m, const at::Tensor &v) {
  m.index_put_({Slice(0, 2)}, v);
  m.narrow(0, 0, 2).copy_(v);
  return v.sum();
}
at::Tensor clone_write(const at::Tensor &m, const at::Tensor &v) {
  at::Tensor c = m.clone();
  c.index_put_({Slice(0, 2)}, v);
  c.narrow(0, 0, 1).zero_();
  return c.sum();
}
at::Tensor fresh_local(const at::Tensor &m, const at::Tensor &v) {
  at::Tensor t = at::zeros_like(m);
  t.narrow(0, 0, 2).copy_(v);
  float *p = t.data_ptr<float>();
  p[0] = 1.0f;
  return (t + m).sum();
}
at::Tensor advanced_index(const at::Tensor &m, const at::Tensor &v,
                          const at::Tensor &mask) {
  m.index({mask}) = v;       // writes into a copy (torch-index-assign-to-copy)
  m.index({mask}).zero_();   // the same
  return m.sum();
}
at::Tensor rebound(const at::Tensor &m, const at::Tensor &v) {
  at::Tensor t = m;
  t = t.clone();
  t.mul_(2);
  return t.sum();
}
at::Tensor read_only(const at::Tensor &m, const at::Tensor &v) {
  const float *p = m.data_ptr<float>();
  float first = p[0];
  at::Tensor r = m * v.sum() + first;
  r.add_(1);
  return r.sum();
}
at::Tensor grad_metadata(const at::Tensor &m, const at::Tensor &v) {
  m.requires_grad_(false); // autograd metadata, not values
  at::Tensor s = m.view({-1});
  s.unsqueeze_(1); // a view's metadata is the view's own
  return v.sum();
}
void not_registered(const at::Tensor &m, const at::Tensor &v) { m.copy_(v); }
at::Tensor composite(const at::Tensor &m, const at::Tensor &v) {
  m.copy_(v);
  return v.sum();
}
at::Tensor impl_only(const at::Tensor &m, const at::Tensor &v) {
  m.copy_(v);
  return v.sum();
}
} // namespace

TORCH_LIBRARY(neg, m) {
  m.def("declared(Tensor(a!) m, Tensor v) -> Tensor");
  m.def("clone_write(Tensor m, Tensor v) -> Tensor");
  m.def("fresh_local(Tensor m, Tensor v) -> Tensor");
  m.def("advanced_index(Tensor m, Tensor v, Tensor mask) -> Tensor");
  m.def("rebound(Tensor m, Tensor v) -> Tensor");
  m.def("read_only(Tensor m, Tensor v) -> Tensor");
  m.def("grad_metadata(Tensor m, Tensor v) -> Tensor");
  // m.def(schema, fn) and a library without a key: CompositeImplicitAutograd.
  m.def("composite(Tensor m, Tensor v) -> Tensor", &composite);
  m.def("composite_impl(Tensor m, Tensor v) -> Tensor");
  m.impl("composite_impl", &composite);
}

TORCH_LIBRARY_IMPL(neg, CPU, m) {
  m.impl("declared", &declared);
  m.impl("clone_write", &clone_write);
  m.impl("fresh_local", &fresh_local);
  m.impl("advanced_index", &advanced_index);
  m.impl("rebound", &rebound);
  m.impl("read_only", &read_only);
  m.impl("grad_metadata", &grad_metadata);
}

TORCH_LIBRARY_IMPL(neg, CompositeImplicitAutograd, m) {
  m.impl("composite_impl", &composite);
}

// The schema is defined in another file: nothing to compare with.
TORCH_LIBRARY_IMPL(elsewhere, CPU, m) { m.impl("impl_only", &impl_only); }
