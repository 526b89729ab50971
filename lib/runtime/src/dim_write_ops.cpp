// Dimension-wise writes and reads: index_copy, index_fill, index_select,
// scatter, gather, slice_scatter, select_scatter.
#include "internal.h"

#include <algorithm>

namespace torch_tidy::runtime {

using detail::backend_of;
using detail::to_string;

namespace {

void check_vector_index(const Tensor &index, const char *op) {
  TT_CHECK(index.dtype() == DType::Int64, op,
           "(): Expected a long tensor for index, but got ",
           name(index.dtype()));
  TT_CHECK(index.dim() <= 1, op,
           "(): Index is supposed to be a vector or a scalar (got ",
           index.dim(), " dims)");
}

// Addresses of target[..., index[p], ...] for every position p of the index
// tensor (index replaces the coordinate along `dim`): scatter and gather.
detail::Addresses along_dim(const Tensor &target, std::int64_t dim,
                            const Tensor &index) {
  StridedRef layout = target.ref();
  for (std::int64_t d = 0; d < target.dim(); ++d)
    layout.sizes[d] = index.sizes()[d];
  std::int64_t stride = 0; // a 0-dim target has one element; index is 0
  if (target.dim() > 0) {
    stride = target.strides()[dim];
    layout.strides[dim] = 0;
  }
  // The (bounds-checked, non-negative) index is the per-element term.
  return {index.sizes(), layout, index, index.ref(), stride};
}

// The shared argument checks of scatter and gather.
void check_scatter_gather(const char *op, const Tensor &self, std::int64_t dim,
                          const Tensor &index, const Tensor *src) {
  TT_CHECK(index.dtype() == DType::Int64, op,
           "(): Expected dtype int64 for index");
  TT_CHECK(index.dim() == self.dim(),
           "Index tensor must have the same number of dimensions as ",
           src ? "self" : "input", " tensor");
  if (src)
    TT_CHECK(src->dim() == self.dim(),
             "Index tensor must have the same number of dimensions as src "
             "tensor");
  for (std::int64_t d = 0; d < self.dim(); ++d) {
    bool fits = d == dim || index.sizes()[d] <= self.sizes()[d];
    if (src)
      fits = fits && index.sizes()[d] <= src->sizes()[d];
    TT_CHECK(fits || index.numel() == 0, "Expected index ",
             to_string(index.sizes()), " to be smaller than self ",
             to_string(self.sizes()), " apart from dimension ", dim,
             src ? " and to be smaller size than src " : "",
             src ? to_string(src->sizes()) : "");
  }
  detail::check_same_device(self, index, op);
  detail::check_index_bounds(index, self.dim() ? self.sizes()[dim] : 1, false,
                             op, dim);
}

// slice_scatter/select_scatter take src's gradient into a result of self's
// dtype; PyTorch rejects that when the result cannot carry a gradient.
void check_differentiable_output(const Tensor &self, const Tensor &src) {
  TT_CHECK(!any_requires_grad({src}) || is_floating(self.dtype()),
           "Autograd not support dtype: ", name(self.dtype()));
}

} // namespace

Tensor &Tensor::index_copy_(std::int64_t dim, const Tensor &index,
                            const Tensor &source) {
  if (this->dim() == 0) { // PyTorch treats a scalar as a 1-element vector
    wrap_dim(dim, 0);
    unsqueeze(0).index_copy_(0, index,
                             source.dim() == 0 ? source.reshape({1}) : source);
    return *this;
  }
  check_inplace(*this);
  detail::check_no_internal_overlap(*this);
  dim = wrap_dim(dim, this->dim());
  check_vector_index(index, "index_copy_");
  TT_CHECK(source.dtype() == dtype(),
           "index_copy_(): self and source "
           "expected to have the same dtype, but "
           "got (self) ",
           name(dtype()), " and (source) ", name(source.dtype()));
  TT_CHECK(source.dim() == this->dim(),
           "When source and destination are not scalars, their "
           "dimensionality must match. Source dimensionality (",
           source.dim(), "), destination dimensionality (", this->dim(), ")");
  TT_CHECK(index.numel() == source.sizes()[dim],
           "index_copy_(): Number of indices (", index.numel(),
           ") should be equal to source.size(dim) (", source.sizes()[dim], ")");
  for (std::int64_t d = 0; d < this->dim(); ++d)
    TT_CHECK(d == dim || source.sizes()[d] == sizes()[d],
             "index_copy_(): Source/destination tensor must have same slice "
             "shapes. Destination slice shape: ",
             to_string(sizes()),
             " and source slice shape: ", to_string(source.sizes()));
  Tensor positions = index.reshape({index.numel()});
  if (source.numel() > 0) // PyTorch checks while copying: nothing, no check
    detail::check_index_bounds(positions, sizes()[dim], false, "index_copy_",
                               dim);
  auto resolved =
      detail::resolve_index(*this, detail::index_at_dim(dim, positions));
  detail::scatter_at(*this, resolved.at, source, false);
  // Like PyTorch, source's gradient (an index_select, which checks bounds
  // even when empty) is only formed when source needs one.
  bool source_needs_grad = any_requires_grad({source});
  record_inplace(*this, "IndexCopyBackward", {source}, [=](const Tensor &grad) {
    return std::vector<Tensor>{
        grad.index_fill(dim, positions, 0),
        source_needs_grad ? grad.index_select(dim, positions) : Tensor()};
  });
  return *this;
}

Tensor Tensor::index_copy(std::int64_t dim, const Tensor &index,
                          const Tensor &source) const {
  return detail::functional_twin(
      *this, [&](Tensor &out) { out.index_copy_(dim, index, source); });
}

Tensor &Tensor::index_fill_(std::int64_t dim, const Tensor &index,
                            double value) {
  return index_fill_(dim, index, full({}, value, {dtype(), device()}));
}

Tensor Tensor::index_fill(std::int64_t dim, const Tensor &index,
                          double value) const {
  return detail::functional_twin(
      *this, [&](Tensor &out) { out.index_fill_(dim, index, value); });
}

Tensor &Tensor::index_fill_(std::int64_t dim, const Tensor &index,
                            const Tensor &value) {
  TT_CHECK(value.dim() == 0,
           "index_fill_ only supports a 0-dimensional value tensor, but got "
           "tensor with ",
           value.dim(), " dimension(s).");
  if (this->dim() == 0) { // PyTorch treats a scalar as a 1-element vector
    wrap_dim(dim, 0);
    unsqueeze(0).index_fill_(0, index, value);
    return *this;
  }
  check_inplace(*this);
  dim = wrap_dim(dim, this->dim());
  check_vector_index(index, "index_fill_");
  Tensor positions = index.reshape({index.numel()});
  auto resolved =
      detail::resolve_index(*this, detail::index_at_dim(dim, positions));
  Tensor filler;
  {
    NoGradGuard no_grad;
    filler = value.to(device()).to(dtype());
  }
  detail::scatter_at(*this, resolved.at, filler, false);
  DType value_dtype = value.dtype();
  if (!any_requires_grad({value})) {
    record_inplace(*this, "IndexFillBackward", {}, [=](const Tensor &grad) {
      return std::vector<Tensor>{grad.index_fill(dim, positions, 0)};
    });
    return *this;
  }
  // The value's gradient counts every filled slice once, however often the
  // index names it: PyTorch 2.8 selects with the unique index values, as
  // given (unwrapped), so its backward fails on a negative index and on one
  // out of range, which an empty tensor's forward lets through (index_select
  // checks bounds whatever the tensor's size); the runtime does the same.
  std::vector<double> unique;
  for (double p : positions.to_doubles())
    if (std::find(unique.begin(), unique.end(), p) == unique.end())
      unique.push_back(p);
  Tensor unique_positions = from_doubles(unique, {std::int64_t(unique.size())},
                                         {DType::Int64, device()});
  record_inplace(*this, "IndexFillBackward", {value}, [=](const Tensor &grad) {
    return std::vector<Tensor>{
        grad.index_fill(dim, positions, 0),
        grad.index_select(dim, unique_positions).sum().to(value_dtype)};
  });
  return *this;
}

Tensor Tensor::index_fill(std::int64_t dim, const Tensor &index,
                          const Tensor &value) const {
  return detail::functional_twin(
      *this, [&](Tensor &out) { out.index_fill_(dim, index, value); });
}

Tensor Tensor::index_select(std::int64_t dim, const Tensor &index) const {
  if (this->dim() == 0) {
    wrap_dim(dim, 0);
    return unsqueeze(0).index_select(0, index).reshape(index.sizes());
  }
  dim = wrap_dim(dim, this->dim());
  check_vector_index(index, "index_select");
  Tensor positions = index.reshape({index.numel()});
  detail::check_index_bounds(positions, sizes()[dim], false, "index_select",
                             dim);
  return this->index(detail::index_at_dim(dim, positions));
}

Tensor &Tensor::scatter_(std::int64_t dim, const Tensor &index,
                         const Tensor &src) {
  check_inplace(*this);
  detail::check_no_internal_overlap(*this);
  dim = wrap_dim(dim, this->dim());
  TT_CHECK(src.dtype() == dtype(),
           "scatter(): Expected self.dtype to be equal to src.dtype");
  check_scatter_gather("scatter", *this, dim, index, &src);
  if (index.numel() > 0) {
    Tensor part = src; // the leading index-shaped block of src
    {
      NoGradGuard no_grad;
      for (std::int64_t d = 0; d < index.dim(); ++d)
        part = part.slice(d, 0, index.sizes()[d]);
    }
    detail::scatter_at(*this, along_dim(*this, dim, index), part, false);
  }
  record_inplace(*this, "ScatterBackward", {src}, [=](const Tensor &grad) {
    return std::vector<Tensor>{grad.scatter(dim, index, 0.0),
                               grad.gather(dim, index)};
  });
  return *this;
}

Tensor Tensor::scatter(std::int64_t dim, const Tensor &index,
                       const Tensor &src) const {
  return detail::functional_twin(
      *this, [&](Tensor &out) { out.scatter_(dim, index, src); });
}

Tensor &Tensor::scatter_(std::int64_t dim, const Tensor &index, double value) {
  check_inplace(*this);
  detail::check_no_internal_overlap(*this);
  dim = wrap_dim(dim, this->dim());
  check_scatter_gather("scatter", *this, dim, index, nullptr);
  if (index.numel() > 0)
    detail::scatter_at(*this, along_dim(*this, dim, index),
                       full({}, value, {dtype(), device()}), false);
  record_inplace(*this, "ScatterBackward", {}, [=](const Tensor &grad) {
    return std::vector<Tensor>{grad.scatter(dim, index, 0.0)};
  });
  return *this;
}

Tensor Tensor::scatter(std::int64_t dim, const Tensor &index,
                       double value) const {
  return detail::functional_twin(
      *this, [&](Tensor &out) { out.scatter_(dim, index, value); });
}

Tensor Tensor::gather(std::int64_t dim, const Tensor &index) const {
  dim = wrap_dim(dim, this->dim());
  check_scatter_gather("gather", *this, dim, index, nullptr);
  Tensor out = detail::gather_at(*this, along_dim(*this, dim, index));
  Shape in_sizes = sizes();
  record(out, "GatherBackward", {*this}, [=](const Tensor &grad) {
    Tensor result = zeros(in_sizes, {grad.dtype(), grad.device()});
    detail::scatter_at(result, along_dim(result, dim, index), grad.contiguous(),
                       /*accumulate=*/true);
    return std::vector<Tensor>{result};
  });
  return out;
}

Tensor Tensor::slice_scatter(const Tensor &src, std::int64_t dim,
                             std::int64_t start, std::int64_t end,
                             std::int64_t step) const {
  Shape slot;
  {
    NoGradGuard no_grad;
    slot = slice(dim, start, end, step).sizes();
  }
  check_differentiable_output(*this, src);
  TT_CHECK(src.sizes() == slot,
           "slice_scatter: expected src to have a size "
           "equal to the slice of self. src size = ",
           to_string(src.sizes()), ", slice size = ", to_string(slot));
  return detail::functional_twin(
      *this, [&](Tensor &out) { out.slice(dim, start, end, step).copy_(src); });
}

Tensor Tensor::select_scatter(const Tensor &src, std::int64_t dim,
                              std::int64_t index) const {
  Shape slot;
  {
    NoGradGuard no_grad;
    slot = select(dim, index).sizes();
  }
  check_differentiable_output(*this, src);
  TT_CHECK(src.sizes() == slot,
           "select_scatter: expected src to have a size "
           "equal to the slice of self. src size = ",
           to_string(src.sizes()), ", slice size = ", to_string(slot));
  return detail::functional_twin(
      *this, [&](Tensor &out) { out.select(dim, index).copy_(src); });
}

} // namespace torch_tidy::runtime
