// add, sub, mul, div, clamp with a tensor min (broadcasting, type
// promotion), their in-place forms, and the sums.
#include "internal.h"

#include <algorithm>

namespace torch_tidy::runtime {

using detail::backend_of;

// bool < integer < floating.
static int category(DType t) {
  return t == DType::Bool ? 0 : is_floating(t) ? 2 : 1;
}

// PyTorch's rule: a 0-dim operand only wins when it is of a higher category
// (bool < integer < floating) than the dimensioned ones.
static DType result_dtype(const Tensor &a, const Tensor &b) {
  bool a_scalar = a.dim() == 0, b_scalar = b.dim() == 0;
  if (a_scalar == b_scalar)
    return promote(a.dtype(), b.dtype());
  const Tensor &dims = a_scalar ? b : a;
  const Tensor &scalar = a_scalar ? a : b;
  return category(scalar.dtype()) > category(dims.dtype()) ? scalar.dtype()
                                                           : dims.dtype();
}

// True division computes in floating point: integral operands divide in
// the default dtype (float32).
static DType op_dtype(BinaryOp op, const Tensor &a, const Tensor &b) {
  DType dtype = result_dtype(a, b);
  return op == BinaryOp::Div && !is_floating(dtype) ? DType::Float32 : dtype;
}

static Tensor binary(BinaryOp op, const char *name, const Tensor &a,
                     const Tensor &b) {
  detail::check_same_device(a, b, name);
  DType dtype = op_dtype(op, a, b);
  TT_CHECK(!(op == BinaryOp::Sub &&
             (a.dtype() == DType::Bool || b.dtype() == DType::Bool)),
           "Subtraction, the `-` operator, with a bool tensor is not "
           "supported. If you are trying to invert a mask, use the `~` or "
           "`logical_not()` operator instead.");
  Shape shape = detail::broadcast_shapes(a.sizes(), b.sizes());
  Tensor out = empty(shape, {dtype, a.device()});
  Tensor x = a.to(dtype), y = b.to(dtype);
  backend_of(out).binary(op, out.ref(), detail::broadcast_ref(x, shape),
                         detail::broadcast_ref(y, shape));
  return out;
}

// PyTorch's div gradients: grad / other, -grad * ((self / other) / other).
static std::vector<Tensor> div_grads(const Tensor &grad, const Tensor &self,
                                     const Tensor &other) {
  Tensor negated = zeros_like(grad).sub(grad);
  return {grad.div(other), negated.mul(self.div(other).div(other))};
}

// where(a cmp b, grad, 0): grad where the comparison holds, 0 elsewhere (a
// NaN compares false).
static Tensor grad_where(BinaryOp cmp, const Tensor &grad, const Tensor &a,
                         const Tensor &b) {
  Tensor holds = binary(cmp, "clamp", a, b);
  Tensor fails = full(holds.sizes(), 1.0, {holds.dtype(), holds.device()})
                     .sub(holds)
                     .to(DType::Bool);
  return grad.masked_fill(fails, 0.0);
}

// PyTorch's clamp_backward_min_max with a min only: self gets the gradient
// where self >= min, min where self < min, neither at a NaN.
static std::vector<Tensor> clamp_grads(const Tensor &grad, const Tensor &self,
                                       const Tensor &min) {
  return {grad_where(BinaryOp::Ge, grad, self, min),
          grad_where(BinaryOp::Lt, grad, self, min)};
}

// torch 2.15's clamp_backward_min_max with a min only, torch.maximum's
// gradients: a tie gives self and min half each, a NaN gives each all of it
// (no comparison holds), otherwise the larger operand takes it.
static std::vector<Tensor>
clamp_grads_split(const Tensor &grad, const Tensor &self, const Tensor &min) {
  Options options{grad.dtype(), grad.device()};
  Tensor tie =
      binary(BinaryOp::Ge, "clamp", self, min)
          .to(grad.dtype())
          .mul(binary(BinaryOp::Ge, "clamp", min, self).to(grad.dtype()));
  Tensor share = full(tie.sizes(), 1.0, options)
                     .sub(tie.mul(full(tie.sizes(), 0.5, options)));
  Tensor shared = grad.mul(share);
  return {shared.masked_fill(
              binary(BinaryOp::Lt, "clamp", self, min).to(DType::Bool), 0.0),
          shared.masked_fill(
              binary(BinaryOp::Lt, "clamp", min, self).to(DType::Bool), 0.0)};
}

// Whether op's gradients read its operands (add's and sub's do not).
static bool reads_operands(BinaryOp op) {
  return op != BinaryOp::Add && op != BinaryOp::Sub;
}

// The gradients of (self, other) from the output's, out of place and in
// place alike; self and other as the op read them (unused by add and sub).
static std::vector<Tensor> binary_grads(BinaryOp op, const Tensor &grad,
                                        const Tensor &self,
                                        const Tensor &other) {
  switch (op) {
  case BinaryOp::Add:
    return {grad, grad};
  case BinaryOp::Sub:
    return {grad, zeros_like(grad).sub(grad)};
  case BinaryOp::Mul:
    return {grad.mul(other), grad.mul(self)};
  case BinaryOp::Div:
    return div_grads(grad, self, other);
  case BinaryOp::Max:
    return torch_semantics().clamp_splits_ties()
               ? clamp_grads_split(grad, self, other)
               : clamp_grads(grad, self, other);
  default:
    TT_CHECK(false, "no gradient for this binary op");
  }
  return {};
}

// An out-of-place op and its history. Broadcast and dtype differences are
// undone by the engine (sum_to, cast).
static Tensor binary_op(BinaryOp op, const char *name, const char *node,
                        const Tensor &self, const Tensor &other) {
  Tensor out = binary(op, name, self, other);
  bool reads = reads_operands(op);
  SavedTensor self_saved(reads ? self : Tensor()),
      other_saved(reads ? other : Tensor());
  record(out, node, {self, other}, [=](const Tensor &grad) {
    return binary_grads(op, grad, self_saved.unpack(), other_saved.unpack());
  });
  return out;
}

Tensor Tensor::add(const Tensor &other) const {
  return binary_op(BinaryOp::Add, "add", "AddBackward", *this, other);
}

Tensor Tensor::sub(const Tensor &other) const {
  return binary_op(BinaryOp::Sub, "sub", "SubBackward", *this, other);
}

Tensor Tensor::mul(const Tensor &other) const {
  return binary_op(BinaryOp::Mul, "mul", "MulBackward", *this, other);
}

Tensor Tensor::div(const Tensor &other) const {
  return binary_op(BinaryOp::Div, "div", "DivBackward", *this, other);
}

// torch.clamp(self, min) with a tensor min is torch.maximum(self, min).
Tensor Tensor::clamp(const Tensor &min) const {
  return binary_op(BinaryOp::Max, "clamp", "ClampBackward", *this, min);
}

// In place: the value computed as the out-of-place op computes it, written
// into this tensor (a view writes through to its base), recorded as one
// in-place node (CopySlices on a view's base).
static Tensor &arith_inplace(Tensor &self, BinaryOp op, const char *name,
                             const Tensor &other) {
  check_inplace(self);
  detail::check_no_internal_overlap(self);
  Shape shape = detail::broadcast_shapes(self.sizes(), other.sizes());
  TT_CHECK(shape == self.sizes(), "output with shape ",
           detail::to_string(self.sizes()),
           " doesn't match the broadcast shape ", detail::to_string(shape));
  DType dtype = op_dtype(op, self, other);
  TT_CHECK(category(dtype) <= category(self.dtype()), "result type ",
           runtime::name(dtype), " can't be cast to the desired output type ",
           runtime::name(self.dtype()));
  // The gradients of mul, div and clamp read self as it was.
  Tensor old = reads_operands(op) ? self.detach().clone() : Tensor();
  Tensor value = binary(op, name, self.detach(), other.detach());
  backend_of(self).copy(self.ref(), detail::broadcast_ref(value, shape));
  SavedTensor other_saved(other), old_saved(old);
  record_inplace(self, name, {other}, [=](const Tensor &grad) {
    return binary_grads(op, grad, old_saved.unpack(), other_saved.unpack());
  });
  return self;
}

Tensor &Tensor::add_(const Tensor &other) {
  return arith_inplace(*this, BinaryOp::Add, "AddBackward", other);
}

Tensor &Tensor::sub_(const Tensor &other) {
  return arith_inplace(*this, BinaryOp::Sub, "SubBackward", other);
}

Tensor &Tensor::mul_(const Tensor &other) {
  return arith_inplace(*this, BinaryOp::Mul, "MulBackward", other);
}

Tensor &Tensor::div_(const Tensor &other) {
  return arith_inplace(*this, BinaryOp::Div, "DivBackward", other);
}

Tensor &Tensor::clamp_(const Tensor &min) {
  return arith_inplace(*this, BinaryOp::Max, "ClampBackward", min);
}

Tensor Tensor::sum() const {
  Shape all(dim());
  for (std::int64_t d = 0; d < dim(); ++d)
    all[d] = d;
  return sum(all, false);
}

Tensor Tensor::sum(const Shape &dims, bool keepdim) const {
  std::vector<bool> reduced(dim());
  for (std::int64_t d : dims) {
    std::int64_t w = wrap_dim(d, dim());
    TT_CHECK(dim() == 0 || !reduced[w], "dim ", w,
             " appears multiple times in the list of dims");
    if (dim() > 0)
      reduced[w] = true;
  }
  Shape kept_sizes = sizes(), out_sizes;
  for (std::int64_t d = 0; d < dim(); ++d) {
    if (reduced[d])
      kept_sizes[d] = 1;
    if (!reduced[d] || keepdim)
      out_sizes.push_back(kept_sizes[d]);
  }
  DType out_dtype = is_floating(dtype()) ? dtype() : DType::Int64;
  Tensor total = zeros(kept_sizes, {out_dtype, device()});
  // Reduce by accumulating into a view that repeats each output element
  // along the reduced dims (stride 0).
  StridedRef into = total.ref();
  for (std::int64_t d = 0; d < dim(); ++d)
    if (reduced[d]) {
      into.sizes[d] = sizes()[d];
      into.strides[d] = 0;
    }
  Tensor src = to(out_dtype);
  backend_of(total).accumulate(into, src.ref());
  Tensor out = detail::make_view(total, out_sizes,
                                 detail::contiguous_strides(out_sizes), 0);
  out.impl().base = nullptr; // a fresh result, not a view for autograd
  Shape in_sizes = sizes();
  record(out, "SumBackward", {*this}, [=](const Tensor &grad) {
    return std::vector<Tensor>{grad.reshape(kept_sizes).expand(in_sizes)};
  });
  return out;
}

Tensor Tensor::sum_to(const Shape &shape) const {
  if (sizes() == shape)
    return *this;
  TT_CHECK(sizes().size() >= shape.size(),
           "sum_to: ", detail::to_string(sizes()), " cannot be reduced to ",
           detail::to_string(shape));
  std::size_t lead = sizes().size() - shape.size();
  Shape dims;
  for (std::size_t d = 0; d < sizes().size(); ++d)
    if (d < lead || (shape[d - lead] == 1 && sizes()[d] != 1))
      dims.push_back(std::int64_t(d));
  Tensor reduced = sum(dims, true);
  return reduced.reshape(shape);
}

} // namespace torch_tidy::runtime
