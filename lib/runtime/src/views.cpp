// View ops: new sizes/strides/offset over the same storage. Each view's
// backward maps the view's gradient back onto its input's shape.
#include "internal.h"

#include <algorithm>
#include <limits>
#include <optional>

namespace torch_tidy::runtime {

using detail::make_view;

Tensor Tensor::slice(std::int64_t dim, std::int64_t start, std::int64_t end,
                     std::int64_t step) const {
  dim = wrap_dim(dim, this->dim());
  TT_CHECK(this->dim() > 0, "slice() cannot be applied to a 0-dim tensor.");
  TT_CHECK(step > 0, "slice step must be positive");
  std::int64_t size = sizes()[dim];
  // Python slice semantics: negative bounds count from the end, then clamp.
  auto clamp = [size](std::int64_t i) {
    if (i < 0)
      i += size;
    return std::clamp<std::int64_t>(i, 0, size);
  };
  start = clamp(start);
  end = std::max(clamp(end), start);
  Shape new_sizes = sizes(), new_strides = strides();
  new_sizes[dim] = (end - start + step - 1) / step;
  new_strides[dim] *= step;
  Tensor out = make_view(*this, new_sizes, new_strides,
                         storage_offset() + start * strides()[dim]);
  Shape in_sizes = sizes();
  record(out, "SliceBackward", {*this}, [=](const Tensor &grad) {
    Tensor result = zeros(in_sizes, {grad.dtype(), grad.device()});
    result.slice(dim, start, end, step).copy_(grad);
    return std::vector<Tensor>{result};
  });
  return out;
}

Tensor Tensor::narrow(std::int64_t dim, std::int64_t start,
                      std::int64_t length) const {
  TT_CHECK(this->dim() > 0, "narrow() cannot be applied to a 0-dim tensor.");
  std::int64_t size = this->size(dim);
  TT_CHECK(start >= -size && start <= size,
           "start out of range (expected to "
           "be in range of [",
           -size, ", ", size, "], but got ", start, ")");
  if (start < 0)
    start += size;
  TT_CHECK(length >= 0 && start <= size - length, "start (", start,
           ") + length (", length, ") exceeds dimension size (", size, ").");
  return slice(dim, start, start + length);
}

Tensor Tensor::select(std::int64_t dim, std::int64_t index) const {
  TT_CHECK(this->dim() > 0, "select() cannot be applied to a 0-dim tensor.");
  dim = wrap_dim(dim, this->dim());
  std::int64_t size = sizes()[dim];
  TT_CHECK(index >= -size && index < size, "select(): index ", index,
           " out of range for tensor of size ", detail::to_string(sizes()),
           " at dimension ", dim);
  if (index < 0)
    index += size;
  Shape new_sizes = sizes(), new_strides = strides();
  new_sizes.erase(new_sizes.begin() + dim);
  new_strides.erase(new_strides.begin() + dim);
  Tensor out = make_view(*this, new_sizes, new_strides,
                         storage_offset() + index * strides()[dim]);
  Shape in_sizes = sizes();
  record(out, "SelectBackward", {*this}, [=](const Tensor &grad) {
    Tensor result = zeros(in_sizes, {grad.dtype(), grad.device()});
    result.select(dim, index).copy_(grad);
    return std::vector<Tensor>{result};
  });
  return out;
}

Tensor Tensor::transpose(std::int64_t dim0, std::int64_t dim1) const {
  dim0 = wrap_dim(dim0, dim());
  dim1 = wrap_dim(dim1, dim());
  Shape new_sizes = sizes(), new_strides = strides();
  if (dim() > 0) {
    std::swap(new_sizes[dim0], new_sizes[dim1]);
    std::swap(new_strides[dim0], new_strides[dim1]);
  }
  Tensor out = make_view(*this, new_sizes, new_strides, storage_offset());
  record(out, "TransposeBackward", {*this}, [=](const Tensor &grad) {
    return std::vector<Tensor>{grad.transpose(dim0, dim1)};
  });
  return out;
}

Tensor Tensor::unsqueeze(std::int64_t dim) const {
  dim = wrap_dim(dim, this->dim() + 1);
  Shape new_sizes = sizes(), new_strides = strides();
  std::int64_t stride = dim < this->dim() ? sizes()[dim] * strides()[dim] : 1;
  new_sizes.insert(new_sizes.begin() + dim, 1);
  new_strides.insert(new_strides.begin() + dim, stride);
  Tensor out = make_view(*this, new_sizes, new_strides, storage_offset());
  record(out, "UnsqueezeBackward", {*this}, [=](const Tensor &grad) {
    return std::vector<Tensor>{grad.squeeze(dim)};
  });
  return out;
}

static Tensor squeeze_dims(const Tensor &self, const std::vector<bool> &drop) {
  Shape new_sizes, new_strides;
  for (std::int64_t d = 0; d < self.dim(); ++d)
    if (!drop[d]) {
      new_sizes.push_back(self.sizes()[d]);
      new_strides.push_back(self.strides()[d]);
    }
  Tensor out = make_view(self, new_sizes, new_strides, self.storage_offset());
  Shape in_sizes = self.sizes();
  record(out, "SqueezeBackward", {self}, [=](const Tensor &grad) {
    return std::vector<Tensor>{grad.reshape(in_sizes)};
  });
  return out;
}

Tensor Tensor::squeeze() const {
  std::vector<bool> drop(dim());
  for (std::int64_t d = 0; d < dim(); ++d)
    drop[d] = sizes()[d] == 1;
  return squeeze_dims(*this, drop);
}

Tensor Tensor::squeeze(std::int64_t dim) const {
  dim = wrap_dim(dim, this->dim());
  std::vector<bool> drop(this->dim());
  if (this->dim() > 0)
    drop[dim] = sizes()[dim] == 1;
  return squeeze_dims(*this, drop);
}

// PyTorch's computeStride: strides that let `new_sizes` view the same
// elements, or nothing when the existing layout cannot be reinterpreted.
static std::optional<Shape> view_strides(const Shape &old_sizes,
                                         const Shape &old_strides,
                                         const Shape &new_sizes,
                                         std::int64_t numel) {
  Shape new_strides(new_sizes.size(), 1);
  if (old_sizes.empty())
    return new_strides;
  if (numel == 0)
    return old_sizes == new_sizes ? old_strides
                                  : detail::contiguous_strides(new_sizes);
  std::int64_t view_d = std::int64_t(new_sizes.size()) - 1;
  std::int64_t chunk_base_stride = old_strides.back();
  std::int64_t tensor_numel = 1, view_numel = 1;
  for (std::int64_t d = std::int64_t(old_sizes.size()) - 1; d >= 0; --d) {
    tensor_numel *= old_sizes[d];
    if (d == 0 || (old_sizes[d - 1] != 1 &&
                   old_strides[d - 1] != tensor_numel * chunk_base_stride)) {
      while (view_d >= 0 &&
             (view_numel < tensor_numel || new_sizes[view_d] == 1)) {
        new_strides[view_d] = view_numel * chunk_base_stride;
        view_numel *= new_sizes[view_d];
        --view_d;
      }
      if (view_numel != tensor_numel)
        return std::nullopt;
      if (d > 0) {
        chunk_base_stride = old_strides[d - 1];
        tensor_numel = view_numel = 1;
      }
    }
  }
  if (view_d != -1)
    return std::nullopt;
  return new_strides;
}

// Resolves one -1 in `shape` against numel.
static Shape infer_size(Shape shape, std::int64_t numel) {
  std::int64_t known = 1, infer = -1;
  for (std::size_t d = 0; d < shape.size(); ++d) {
    if (shape[d] == -1) {
      TT_CHECK(infer < 0, "only one dimension can be inferred");
      infer = std::int64_t(d);
    } else {
      TT_CHECK(shape[d] >= 0, "invalid shape dimension ", shape[d]);
      known *= shape[d];
    }
  }
  if (infer >= 0) {
    TT_CHECK(known != 0 && numel % known == 0, "shape '",
             detail::to_string(shape), "' is invalid for input of size ",
             numel);
    shape[infer] = numel / known;
  }
  TT_CHECK(infer >= 0 || known == numel, "shape '", detail::to_string(shape),
           "' is invalid for input of size ", numel);
  return shape;
}

Tensor Tensor::view(const Shape &shape) const {
  Shape new_sizes = infer_size(shape, numel());
  auto new_strides = view_strides(sizes(), strides(), new_sizes, numel());
  TT_CHECK(new_strides.has_value(),
           "view size is not compatible with input tensor's size and stride "
           "(at least one dimension spans across two contiguous subspaces). "
           "Use .reshape(...) instead.");
  Tensor out = make_view(*this, new_sizes, *new_strides, storage_offset());
  Shape in_sizes = sizes();
  record(out, "ViewBackward", {*this}, [=](const Tensor &grad) {
    return std::vector<Tensor>{grad.reshape(in_sizes)};
  });
  return out;
}

Tensor Tensor::reshape(const Shape &shape) const {
  Shape new_sizes = infer_size(shape, numel());
  if (view_strides(sizes(), strides(), new_sizes, numel()))
    return view(new_sizes);
  return contiguous().view(new_sizes);
}

Tensor Tensor::expand(const Shape &shape) const {
  TT_CHECK(shape.size() >= sizes().size(), "expand(", detail::to_string(shape),
           "): the number of sizes provided (", shape.size(),
           ") must be greater or equal to the number of dimensions in the "
           "tensor (",
           dim(), ")");
  // PyTorch's inferExpandGeometry, right to left: a new leading dim of size
  // 1 gets the stride that would make it contiguous with the next one.
  std::int64_t lead = std::int64_t(shape.size()) - dim();
  Shape new_sizes(shape.size()), new_strides(shape.size());
  for (std::int64_t d = std::int64_t(shape.size()) - 1; d >= 0; --d) {
    std::int64_t src = d - lead;
    std::int64_t have = src >= 0 ? sizes()[src] : 1;
    std::int64_t stride = src >= 0 ? strides()[src]
                          : d + 1 < std::int64_t(shape.size())
                              ? new_sizes[d + 1] * new_strides[d + 1]
                              : 0;
    std::int64_t want = shape[d];
    if (want == -1) {
      TT_CHECK(src >= 0, "expand: -1 is not allowed in a leading, "
                         "non-existing dimension");
      want = have;
    }
    if (have != want) {
      TT_CHECK(have == 1, "The expanded size of the tensor (", want,
               ") must match the existing size (", have,
               ") at non-singleton dimension ", d,
               ".  Target sizes: ", detail::to_string(shape),
               ".  Tensor sizes: ", detail::to_string(sizes()));
      stride = 0;
    }
    new_sizes[d] = want;
    new_strides[d] = stride;
  }
  Tensor out = make_view(*this, new_sizes, new_strides, storage_offset());
  Shape in_sizes = sizes();
  record(out, "ExpandBackward", {*this}, [=](const Tensor &grad) {
    return std::vector<Tensor>{grad.sum_to(in_sizes)};
  });
  return out;
}

Tensor Tensor::as_strided(const Shape &sizes, const Shape &strides,
                          std::int64_t offset) const {
  TT_CHECK(sizes.size() == strides.size(),
           "mismatch in length of strides and shape");
  std::int64_t last = offset;
  for (std::size_t d = 0; d < sizes.size(); ++d) {
    TT_CHECK(sizes[d] >= 0 && strides[d] >= 0,
             "as_strided: negative size or stride");
    if (sizes[d] == 0)
      last = -1;
    else if (last >= 0)
      last += (sizes[d] - 1) * strides[d];
  }
  std::int64_t capacity =
      std::int64_t(impl().storage->nbytes() / element_size(dtype()));
  TT_CHECK(offset >= 0 && last < capacity, "setStorage: sizes ",
           detail::to_string(sizes), ", strides ", detail::to_string(strides),
           " and storage offset ", offset,
           " are out of bounds for the storage");
  Tensor out = make_view(*this, sizes, strides, offset);
  // Only the runtime's own contiguous tensors are viewed this way with
  // history, so the gradient maps back through the same geometry.
  if (any_requires_grad({*this})) {
    TT_CHECK(is_contiguous() && storage_offset() == 0,
             "as_strided with autograd needs a contiguous input");
    out.impl().grad_fn = detail::make_view_of_base_node(*this, out);
    out.impl().grad_fn_version = version();
    out.impl().requires_grad_at_creation = true;
  }
  return out;
}

} // namespace torch_tidy::runtime
