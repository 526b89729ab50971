// Layout arithmetic shared by the op families: strides, broadcasting, views,
// bounds.
#include "internal.h"

#include <algorithm>

namespace torch_tidy::runtime::detail {

Shape contiguous_strides(const Shape &sizes) {
  Shape strides(sizes.size(), 1);
  for (std::int64_t d = std::int64_t(sizes.size()) - 2; d >= 0; --d)
    strides[d] = strides[d + 1] * std::max<std::int64_t>(sizes[d + 1], 1);
  return strides;
}

std::string to_string(const Shape &shape) {
  std::string out = "[";
  for (std::size_t d = 0; d < shape.size(); ++d)
    out += (d ? ", " : "") + std::to_string(shape[d]);
  return out + "]";
}

Backend &backend_of(const Tensor &tensor) {
  return backend_for(tensor.device());
}

Tensor empty_strided(const Shape &sizes, const Shape &strides, DType dtype,
                     Device device) {
  std::int64_t extent = 1; // one past the furthest element
  for (std::size_t d = 0; d < sizes.size(); ++d) {
    TT_CHECK(sizes[d] >= 0, "Trying to create tensor with negative dimension ",
             sizes[d], ": ", to_string(sizes));
    if (sizes[d] == 0)
      extent = 0;
    else if (extent > 0)
      extent += (sizes[d] - 1) * strides[d];
  }
  auto impl = std::make_shared<TensorImpl>();
  impl->storage = std::make_shared<Storage>(
      std::size_t(extent) * element_size(dtype), device);
  impl->sizes = sizes;
  impl->strides = strides;
  impl->dtype = dtype;
  return Tensor(impl);
}

Tensor make_view(const Tensor &self, Shape sizes, Shape strides,
                 std::int64_t offset) {
  auto impl = std::make_shared<TensorImpl>();
  impl->storage = self.impl().storage;
  impl->sizes = std::move(sizes);
  impl->strides = std::move(strides);
  impl->offset = offset;
  impl->dtype = self.dtype();
  impl->base = self.is_view() ? self.impl().base : self.impl_ptr();
  impl->grad_fn_version = self.version();
  return Tensor(impl);
}

void check_same_device(const Tensor &a, const Tensor &b, const char *op) {
  TT_CHECK(a.device() == b.device(),
           "Expected all tensors to be on the same device, but found at least "
           "two devices, ",
           name(a.device()), " and ", name(b.device()), "! (in ", op, ")");
}

Shape broadcast_shapes(const Shape &a, const Shape &b) {
  std::size_t n = std::max(a.size(), b.size());
  Shape out(n);
  for (std::size_t k = 0; k < n; ++k) {
    std::int64_t x = k < a.size() ? a[a.size() - 1 - k] : 1;
    std::int64_t y = k < b.size() ? b[b.size() - 1 - k] : 1;
    TT_CHECK(x == y || x == 1 || y == 1, "The size of tensor a (", x,
             ") must match the size of tensor b (", y,
             ") at non-singleton dimension ", n - 1 - k);
    out[n - 1 - k] = x == 1 ? y : x;
  }
  return out;
}

StridedRef broadcast_ref(const Tensor &self, const Shape &shape) {
  StridedRef ref = self.ref();
  TT_CHECK(shape.size() <= std::size_t(kMaxDims) &&
               shape.size() >= std::size_t(ref.ndim),
           "cannot broadcast ", to_string(self.sizes()), " to ",
           to_string(shape));
  StridedRef out = ref;
  out.ndim = int(shape.size());
  int lead = out.ndim - ref.ndim;
  for (int d = 0; d < out.ndim; ++d) {
    int src = d - lead;
    bool kept = src >= 0 && ref.sizes[src] == shape[d];
    TT_CHECK(kept || src < 0 || ref.sizes[src] == 1, "cannot broadcast ",
             to_string(self.sizes()), " to ", to_string(shape));
    out.sizes[d] = shape[d];
    out.strides[d] = kept ? ref.strides[src] : 0;
  }
  return out;
}

void check_no_internal_overlap(const Tensor &self) {
  if (self.numel() == 0)
    return;
  for (std::int64_t d = 0; d < self.dim(); ++d)
    TT_CHECK(self.sizes()[d] <= 1 || self.strides()[d] != 0,
             "unsupported operation: more than one element of the written-to "
             "tensor refers to a single memory location. Please clone() the "
             "tensor before performing the operation.");
}

void check_index_bounds(const Tensor &index, std::int64_t size,
                        bool allow_negative, const char *op, std::int64_t dim) {
  if (index.numel() == 0)
    return;
  auto [lo, hi] = backend_of(index).min_max(index.ref());
  std::int64_t low_limit = allow_negative ? -size : 0;
  std::int64_t bad = lo < low_limit ? lo : hi;
  TT_CHECK(lo >= low_limit && hi < size, op, ": index ", bad,
           " is out of bounds for dimension ", dim, " with size ", size);
}

std::vector<TensorIndex> index_at_dim(std::int64_t dim, const Tensor &index) {
  std::vector<TensorIndex> indices(std::size_t(dim), TensorIndex(Slice{}));
  indices.emplace_back(index);
  return indices;
}

} // namespace torch_tidy::runtime::detail
