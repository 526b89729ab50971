// PyTorch's indexing rules: basic indices (integers, slices, None, ...) make
// a view; advanced indices (integer and boolean tensors) are resolved to the
// storage offset of every addressed element, which index() gathers from and
// index_put_() scatters to.
#include "internal.h"

#include <limits>

namespace torch_tidy::runtime {

using detail::backend_of;
using detail::to_string;

namespace {

// How many dimensions of the indexed tensor an index entry consumes.
std::int64_t consumed_dims(const TensorIndex &index) {
  if (index.integer() || index.slice())
    return 1;
  if (const Tensor *t = index.tensor())
    return t->dtype() == DType::Bool ? t->dim() : 1;
  return 0; // None, Ellipsis
}

// One advanced index after boolean masks were expanded: an int64 tensor per
// dimension of the basic view (undefined where that dim is not indexed).
struct BasicPass {
  Tensor view;
  std::vector<Tensor> advanced;
  bool single_mask = false; // the only tensor index was one boolean mask
};

// Converts a boolean mask whose dims start at view dim `dim` into one int64
// coordinate tensor per masked dimension.
std::vector<Tensor> mask_to_coordinates(const Tensor &view, std::int64_t dim,
                                        const Tensor &mask) {
  for (std::int64_t k = 0; k < mask.dim(); ++k)
    TT_CHECK(dim + k < view.dim() && mask.sizes()[k] == view.sizes()[dim + k],
             "The shape of the mask ", to_string(mask.sizes()), " at index ", k,
             " does not match the shape of the indexed tensor ",
             to_string(view.sizes()), " at index ", dim + k);
  Backend &backend = backend_of(mask);
  std::int64_t count = backend.count_nonzero(mask.ref());
  Tensor flat = empty({count}, {DType::Int64, mask.device()});
  backend.nonzero_flat(mask.ref(),
                       static_cast<std::int64_t *>(flat.impl().storage->data()),
                       count);
  // Unravel flat positions into coordinates on the host: it keeps the
  // backends to one nonzero primitive, and index masks are small.
  std::vector<double> flat_host = flat.to_doubles();
  Shape row_strides = detail::contiguous_strides(mask.sizes());
  std::vector<Tensor> coordinates;
  for (std::int64_t k = 0; k < mask.dim(); ++k) {
    std::vector<double> coord(static_cast<std::size_t>(count));
    for (std::size_t i = 0; i < coord.size(); ++i)
      coord[i] =
          double(std::int64_t(flat_host[i]) / row_strides[k] % mask.sizes()[k]);
    coordinates.push_back(
        from_doubles(coord, {count}, {DType::Int64, view.device()}));
  }
  return coordinates;
}

BasicPass apply_basic_indices(const Tensor &self,
                              const std::vector<TensorIndex> &indices) {
  std::int64_t consumed = 0, ellipses = 0;
  for (const TensorIndex &index : indices) {
    consumed += consumed_dims(index);
    ellipses += index.is_ellipsis();
  }
  TT_CHECK(ellipses <= 1, "an index can only have a single ellipsis ('...')");
  TT_CHECK(consumed <= self.dim(), "too many indices for tensor of dimension ",
           self.dim());
  // Like torch 2.8's applySlicing, every tensor index takes one slot here,
  // even a multi-dim mask; masks are expanded to coordinates afterwards, so
  // basic indices after a multi-dim mask apply one dim further left than
  // NumPy would (PyTorch 2.8 behaves this way in C++ and Python). Newer
  // torch gives a mask one slot per dim (TorchSemantics).
  const bool mask_takes_each_dim = torch_semantics().mask_takes_each_dim();
  Tensor view = self;
  std::vector<Tensor> slots; // one per view dim so far; undefined = basic
  // Slots after a mask's first, under mask_takes_each_dim: the mask's own.
  std::vector<bool> mask_tail;
  for (const TensorIndex &index : indices) {
    std::int64_t dim = std::int64_t(slots.size());
    if (const std::int64_t *i = index.integer()) {
      view = view.select(dim, *i);
    } else if (const Slice *s = index.slice()) {
      view = view.slice(
          dim, s->start.value_or(0),
          s->stop.value_or(std::numeric_limits<std::int64_t>::max()), s->step);
      slots.emplace_back();
    } else if (index.is_new_axis()) {
      view = view.unsqueeze(dim);
      slots.emplace_back();
    } else if (index.is_ellipsis()) {
      slots.resize(slots.size() + std::size_t(self.dim() - consumed));
    } else {
      const Tensor &t = *index.tensor();
      TT_CHECK(t.dtype() == DType::Int64 || t.dtype() == DType::Bool,
               "tensors used as indices must be long, int, byte or bool "
               "tensors");
      slots.push_back(t.dtype() == DType::Bool ? t : t.to(self.device()));
      mask_tail.resize(slots.size(), false);
      if (mask_takes_each_dim && t.dtype() == DType::Bool)
        for (std::int64_t k = 1; k < t.dim(); ++k) {
          slots.emplace_back();
          mask_tail.push_back(true);
        }
    }
  }
  mask_tail.resize(slots.size(), false);
  BasicPass pass{view, {}};
  std::int64_t tensors = 0, masks = 0;
  for (const Tensor &slot : slots) {
    tensors += slot.defined();
    masks += slot.defined() && slot.dtype() == DType::Bool;
  }
  pass.single_mask = tensors == 1 && masks == 1;
  for (std::size_t i = 0; i < slots.size(); ++i) {
    const Tensor &slot = slots[i];
    if (mask_tail[i])
      continue; // its coordinates came with the mask's first slot
    if (slot.defined() && slot.dtype() == DType::Bool) {
      std::int64_t at = std::int64_t(pass.advanced.size());
      for (Tensor &coord : mask_to_coordinates(view, at, slot))
        pass.advanced.push_back(coord);
    } else {
      pass.advanced.push_back(slot);
    }
  }
  TT_CHECK(std::int64_t(pass.advanced.size()) <= view.dim(),
           "too many indices for tensor of dimension ", view.dim());
  pass.advanced.resize(std::size_t(view.dim()));
  return pass;
}

} // namespace

// A StridedRef reading `t` (right-aligned broadcast into `block`) placed at
// dims [at, at + block.size()) of `result`, stride 0 everywhere else.
StridedRef detail::place(const Tensor &t, const Shape &block, std::size_t at,
                         const Shape &result) {
  StridedRef in_block = detail::broadcast_ref(t, block);
  StridedRef out = in_block;
  out.ndim = int(result.size());
  for (std::size_t d = 0; d < result.size(); ++d) {
    bool inside = d >= at && d < at + block.size();
    out.sizes[d] = result[d];
    out.strides[d] = inside ? in_block.strides[d - at] : 0;
  }
  return out;
}

detail::ResolvedIndex
detail::resolve_index(const Tensor &self,
                      const std::vector<TensorIndex> &indices) {
  BasicPass pass = apply_basic_indices(self, indices);
  const Tensor &view = pass.view;
  std::vector<std::int64_t> adv_dims;
  Shape block; // broadcast shape of the advanced indices
  for (std::int64_t d = 0; d < view.dim(); ++d)
    if (pass.advanced[d].defined()) {
      const Tensor &index = pass.advanced[d];
      block = adv_dims.empty() ? index.sizes()
                               : detail::broadcast_shapes(block, index.sizes());
      adv_dims.push_back(d);
    }
  if (adv_dims.empty())
    return {view, false, {}, false, {}};

  // Adjacent advanced indices keep their place; separated ones move the
  // broadcast block to the front (NumPy/PyTorch rule).
  bool adjacent =
      adv_dims.back() - adv_dims.front() + 1 == std::int64_t(adv_dims.size());
  std::size_t block_at = adjacent ? std::size_t(adv_dims.front()) : 0;
  Shape result;
  std::vector<std::int64_t> plain_dims; // view dims kept as they are
  for (std::int64_t d = 0; d < view.dim(); ++d)
    if (!pass.advanced[d].defined())
      plain_dims.push_back(d);
  for (std::int64_t d : plain_dims)
    result.push_back(view.sizes()[d]);
  result.insert(result.begin() + std::ptrdiff_t(block_at), block.begin(),
                block.end());
  // PyTorch checks bounds while visiting elements: an empty result is
  // never checked.
  std::int64_t result_numel = 1;
  for (std::int64_t size : result)
    result_numel *= size;
  std::int64_t block_numel = 1;
  for (std::int64_t size : block)
    block_numel *= size;
  for (std::int64_t d : adv_dims)
    TT_CHECK(block_numel == 0 || view.sizes()[d] > 0,
             "index is out of bounds for dimension with size 0");
  if (result_numel > 0)
    for (std::int64_t d : adv_dims)
      check_index_bounds(pass.advanced[d], view.sizes()[d], true, "index", d);

  // Kept dims address through the view's own strides; the index tensors
  // add one int64 term per element of their broadcast block.
  Tensor extra = zeros(block, {DType::Int64, view.device()});
  Backend &backend = backend_of(view);
  for (std::int64_t d : adv_dims)
    backend.add_index_term(extra.ref(),
                           place(pass.advanced[d], block, 0, block),
                           view.sizes()[d], view.strides()[d]);
  Addresses at{result, view.ref(), extra,
               place(extra, block, block_at, result)};
  at.layout.ndim = int(result.size());
  for (std::size_t d = 0; d < result.size(); ++d) {
    at.layout.sizes[d] = result[d];
    at.layout.strides[d] = 0;
  }
  for (std::size_t k = 0; k < plain_dims.size(); ++k)
    at.layout.strides[k < block_at ? k : k + block.size()] =
        view.strides()[plain_dims[k]];
  std::vector<TensorIndex> view_indices;
  for (const Tensor &index : pass.advanced)
    view_indices.push_back(index.defined() ? TensorIndex(index)
                                           : TensorIndex(Slice{}));
  return {view, true, at, pass.single_mask, view_indices};
}

// Storage offset of every element of self, materialized (self-shaped).
static Tensor element_offsets(const Tensor &self) {
  Tensor offsets = full(self.sizes(), double(self.storage_offset()),
                        {DType::Int64, self.device()});
  for (std::int64_t d = 0; d < self.dim(); ++d) {
    Tensor positions = arange(self.sizes()[d], {DType::Int64, self.device()});
    backend_of(self).add_index_term(offsets.ref(),
                                    detail::place(positions, {self.sizes()[d]},
                                                  std::size_t(d), self.sizes()),
                                    self.sizes()[d], self.strides()[d]);
  }
  return offsets;
}

detail::Addresses detail::absolute_addresses(const Tensor &self,
                                             const Tensor &offsets) {
  Addresses at{offsets.sizes(), self.ref(), offsets, offsets.ref()};
  at.layout.ndim = offsets.ref().ndim;
  at.layout.offset = 0;
  for (int d = 0; d < at.layout.ndim; ++d) {
    at.layout.sizes[d] = offsets.sizes()[d];
    at.layout.strides[d] = 0;
  }
  return at;
}

detail::Addresses detail::view_addresses(const Tensor &view) {
  Tensor zero = zeros({}, {DType::Int64, view.device()});
  return {view.sizes(), view.ref(), zero, broadcast_ref(zero, view.sizes())};
}

void detail::check_mask(const Tensor &self, const Tensor &mask) {
  TT_CHECK(mask.dtype() == DType::Bool,
           "expected mask to be a boolean tensor, but got mask with dtype ",
           name(mask.dtype()));
  check_same_device(self, mask, "mask");
  Shape shape = broadcast_shapes(self.sizes(), mask.sizes());
  TT_CHECK(
      shape == self.sizes(), "The size of the mask ", to_string(mask.sizes()),
      " cannot be broadcast to the tensor of size ", to_string(self.sizes()));
}

detail::Addresses detail::masked_addresses(const Tensor &self,
                                           const Tensor &mask) {
  check_mask(self, mask);
  Shape shape = self.sizes();
  StridedRef mask_ref = broadcast_ref(mask, shape);
  Backend &backend = backend_of(self);
  Tensor flat =
      empty({backend.count_nonzero(mask_ref)}, {DType::Int64, self.device()});
  backend.nonzero_flat(mask_ref,
                       static_cast<std::int64_t *>(flat.impl().storage->data()),
                       flat.numel());
  if (self.is_contiguous()) { // flat position p lives at offset + p
    Addresses at = absolute_addresses(self, flat);
    at.layout.offset = self.storage_offset();
    return at;
  }
  // element_offsets is dense from 0, so a flat position is its own offset.
  Tensor all = element_offsets(self);
  return absolute_addresses(self,
                            gather_at(all, absolute_addresses(all, flat)));
}

Tensor detail::gather_at(const Tensor &self, const Addresses &at) {
  Tensor out = empty(at.shape, {self.dtype(), self.device()});
  backend_of(self).gather(out.ref(), at.layout, at.extra_ref, at.extra_scale);
  return out;
}

void detail::scatter_at(const Tensor &self, const Addresses &at,
                        const Tensor &values, bool accumulate) {
  TT_CHECK(values.dtype() == self.dtype(),
           "Index put requires the source and destination dtypes match, got ",
           name(self.dtype()), " for the destination and ",
           name(values.dtype()), " for the source.");
  // Like PyTorch, only a 0-dim value may come from another device.
  if (values.dim() > 0)
    detail::check_same_device(self, values, "index_put_");
  Tensor from = values.to(self.device());
  const Shape &shape = at.shape;
  bool fits = from.dim() <= std::int64_t(shape.size());
  for (std::int64_t k = 0; fits && k < from.dim(); ++k) {
    std::int64_t v = from.sizes()[from.dim() - 1 - k];
    fits = v == 1 || v == shape[shape.size() - 1 - k];
  }
  TT_CHECK(
      fits, "shape mismatch: value tensor of shape ", to_string(values.sizes()),
      " cannot be broadcast to indexing result of shape ", to_string(shape));
  backend_of(self).scatter(at.layout, at.extra_ref, at.extra_scale,
                           detail::broadcast_ref(from, shape), accumulate);
}

Tensor Tensor::index(const std::vector<TensorIndex> &indices) const {
  detail::ResolvedIndex resolved = detail::resolve_index(*this, indices);
  if (!resolved.advanced)
    return resolved.view;
  Tensor out = detail::gather_at(*this, resolved.at);
  Shape in_sizes = sizes();
  DType in_dtype = dtype();
  record(out, "IndexBackward", {*this}, [=](const Tensor &grad) {
    Tensor result = zeros(in_sizes, {in_dtype, grad.device()});
    result.index_put_(indices, grad, /*accumulate=*/true);
    return std::vector<Tensor>{result};
  });
  return out;
}

// Setitem strips leading size-1 dims of the value before broadcasting.
static Tensor strip_leading_ones(const Tensor &values) {
  Shape shape = values.sizes();
  std::size_t lead = 0;
  while (lead < shape.size() && shape[lead] == 1)
    ++lead;
  if (lead == 0)
    return values;
  return values.view(Shape(shape.begin() + std::ptrdiff_t(lead), shape.end()));
}

namespace {
/// The one implementation of index_put_: setitem (set_item: strips the
/// value's leading ones, a basic-only index is a copy_ into the view) or
/// at::index_put_ (neither).
Tensor &index_put_impl(Tensor &self, const std::vector<TensorIndex> &indices,
                       const Tensor &values, bool accumulate, bool set_item) {
  check_inplace(self);
  Tensor stripped = set_item ? strip_leading_ones(values) : values;
  detail::ResolvedIndex resolved = detail::resolve_index(self, indices);
  if (!resolved.advanced && set_item) {
    // Only basic indices: PyTorch's set_item is a copy_ into the view.
    resolved.view.copy_(stripped);
    note_inplace_write(self);
    return self;
  }
  detail::Addresses at =
      resolved.advanced ? resolved.at : detail::view_addresses(resolved.view);
  // PyTorch turns a one-mask, one-value put into masked_fill_, which casts
  // the value instead of requiring equal dtypes.
  bool as_masked_fill = !accumulate && resolved.single_mask &&
                        stripped.numel() == 1 &&
                        stripped.device() == Device::CPU;
  detail::scatter_at(self, at,
                     as_masked_fill ? stripped.to(self.dtype()) : stripped,
                     accumulate);
  // As set_item, the write is recorded on the view left by the basic
  // indices, with the tensor indices re-expressed against that view.
  Tensor target = resolved.view;
  std::vector<TensorIndex> on_view = resolved.view_indices;
  Shape value_sizes = values.sizes(), stripped_sizes = stripped.sizes();
  record_inplace(target, "IndexPutBackward", {values}, [=](const Tensor &grad) {
    Tensor zero = zeros({}, {grad.dtype(), grad.device()});
    Tensor grad_self = accumulate ? grad : grad.index_put(on_view, zero);
    Tensor grad_values =
        grad.index(on_view).sum_to(stripped_sizes).reshape(value_sizes);
    return std::vector<Tensor>{grad_self, grad_values};
  });
  note_inplace_write(self);
  return self;
}
} // namespace

Tensor &Tensor::index_put_(const std::vector<TensorIndex> &indices,
                           const Tensor &values, bool accumulate) {
  // Setitem (no accumulate) strips leading size-1 dims of the value;
  // at::index_put_ (the accumulate form) does not.
  return index_put_impl(*this, indices, values, accumulate,
                        /*set_item=*/!accumulate);
}

Tensor Tensor::index_put(const std::vector<TensorIndex> &indices,
                         const Tensor &values, bool accumulate) const {
  return detail::functional_twin(
      *this, [&](Tensor &out) { out.index_put_(indices, values, accumulate); });
}

Tensor &
Tensor::index_put_list_(const std::vector<std::optional<Tensor>> &indices,
                        const Tensor &values, bool accumulate) {
  std::vector<TensorIndex> list;
  bool any_tensor = false;
  for (const std::optional<Tensor> &entry : indices) {
    any_tensor |= entry.has_value();
    list.push_back(entry ? TensorIndex(*entry) : TensorIndex(Slice{}));
  }
  TT_CHECK(any_tensor, "index_put_: at least one index must be a tensor");
  return index_put_impl(*this, list, values, accumulate, /*set_item=*/false);
}

Tensor Tensor::index_put_list(const std::vector<std::optional<Tensor>> &indices,
                              const Tensor &values, bool accumulate) const {
  return detail::functional_twin(*this, [&](Tensor &out) {
    out.index_put_list_(indices, values, accumulate);
  });
}

} // namespace torch_tidy::runtime
