// Writes and reads selected by a boolean mask.
#include "internal.h"

namespace torch_tidy::runtime {

using detail::backend_of;

Tensor &Tensor::masked_fill_(const Tensor &mask, double value) {
  return masked_fill_(mask, full({}, value, {dtype(), device()}));
}

Tensor Tensor::masked_fill(const Tensor &mask, double value) const {
  return detail::functional_twin(
      *this, [&](Tensor &out) { out.masked_fill_(mask, value); });
}

Tensor &Tensor::masked_fill_(const Tensor &mask, const Tensor &value) {
  TT_CHECK(value.dim() == 0,
           "masked_fill_ only supports a 0-dimensional value tensor, but got "
           "tensor with ",
           value.dim(), " dimension(s).");
  check_inplace(*this);
  detail::check_mask(*this, mask);
  Tensor filler;
  {
    NoGradGuard no_grad;
    filler = value.to(device()).to(dtype());
  }
  // One elementwise pass (mask ? value : self), no positions: the masked
  // positions' addresses cost a host round trip on CUDA (docs/gpu.md).
  detail::backend_of(*this).where_fill(ref(),
                                       detail::broadcast_ref(mask, sizes()),
                                       detail::broadcast_ref(filler, sizes()));
  DType value_dtype = value.dtype();
  if (!any_requires_grad({value})) {
    record_inplace(*this, "MaskedFillBackward", {}, [=](const Tensor &grad) {
      return std::vector<Tensor>{grad.masked_fill(mask, 0)};
    });
    return *this;
  }
  record_inplace(*this, "MaskedFillBackward", {value}, [=](const Tensor &grad) {
    return std::vector<Tensor>{grad.masked_fill(mask, 0),
                               grad.masked_select(mask).sum().to(value_dtype)};
  });
  return *this;
}

Tensor Tensor::masked_fill(const Tensor &mask, const Tensor &value) const {
  return detail::functional_twin(
      *this, [&](Tensor &out) { out.masked_fill_(mask, value); });
}

Tensor &Tensor::masked_scatter_(const Tensor &mask, const Tensor &source) {
  check_inplace(*this);
  detail::check_no_internal_overlap(*this);
  TT_CHECK(source.dtype() == dtype(),
           "masked_scatter_: expected self and source to have same dtypes but "
           "got ",
           name(dtype()), " and ", name(source.dtype()));
  detail::check_same_device(*this, source, "masked_scatter_");
  detail::Addresses at = detail::masked_addresses(*this, mask);
  std::int64_t selected = at.extra.numel();
  TT_CHECK(source.numel() >= selected,
           "masked_scatter: Number of elements of source < number of ones in "
           "mask");
  Tensor values; // the first `selected` elements of source, row-major
  {
    NoGradGuard no_grad;
    values = source.reshape({source.numel()}).slice(0, 0, selected);
  }
  detail::scatter_at(*this, at, values, false);
  Shape source_sizes = source.sizes();
  std::int64_t source_numel = source.numel();
  record_inplace(
      *this, "MaskedScatterBackward", {source}, [=](const Tensor &grad) {
        Tensor grad_source =
            zeros({source_numel}, {grad.dtype(), grad.device()});
        grad_source.slice(0, 0, selected).copy_(grad.masked_select(mask));
        return std::vector<Tensor>{grad.masked_fill(mask, 0),
                                   grad_source.view(source_sizes)};
      });
  return *this;
}

Tensor Tensor::masked_scatter(const Tensor &mask, const Tensor &source) const {
  return detail::functional_twin(
      *this, [&](Tensor &out) { out.masked_scatter_(mask, source); });
}

Tensor Tensor::masked_select(const Tensor &mask) const {
  Shape shape = detail::broadcast_shapes(sizes(), mask.sizes());
  Tensor expanded;
  {
    NoGradGuard no_grad;
    expanded = expand(shape);
  }
  Tensor out =
      detail::gather_at(expanded, detail::masked_addresses(expanded, mask));
  record(out, "MaskedSelectBackward", {*this}, [=](const Tensor &grad) {
    Tensor result = zeros(shape, {grad.dtype(), grad.device()});
    result.masked_scatter_(mask, grad);
    return std::vector<Tensor>{result};
  });
  return out;
}

} // namespace torch_tidy::runtime
