// Helpers shared by the op families; not part of the public API.
#pragma once

#include "torch_tidy/runtime/autograd.h"
#include "torch_tidy/runtime/backend.h"
#include "torch_tidy/runtime/factories.h"
#include "torch_tidy/runtime/index.h"
#include "torch_tidy/runtime/mode.h"

#include <string>
#include <vector>

namespace torch_tidy::runtime::detail {

Shape contiguous_strides(const Shape &sizes);
std::string to_string(const Shape &shape);
Backend &backend_of(const Tensor &tensor);

/// A new tensor with the given layout over fresh storage large enough for it.
Tensor empty_strided(const Shape &sizes, const Shape &strides, DType dtype,
                     Device device);
/// A tensor sharing self's storage: the view's autograd base is self's root.
Tensor make_view(const Tensor &self, Shape sizes, Shape strides,
                 std::int64_t offset);

void check_same_device(const Tensor &a, const Tensor &b, const char *op);
Shape broadcast_shapes(const Shape &a, const Shape &b);
/// self's layout read as `shape` (leading and size-1 dims get stride 0); no
/// autograd, the caller checked broadcastability.
StridedRef broadcast_ref(const Tensor &self, const Shape &shape);
/// A StridedRef reading `t` (right-aligned broadcast into `block`) placed at
/// dims [at, at + block.size()) of `result`, stride 0 elsewhere.
StridedRef place(const Tensor &t, const Shape &block, std::size_t at,
                 const Shape &result);
/// Rejects writes through a tensor whose elements alias (expand). PyTorch
/// checks this in copy_, index_copy_, scatter_ and masked_scatter_ only; the
/// other writes just write the shared element more than once.
void check_no_internal_overlap(const Tensor &self);
/// Throws unless every value of the int64 `index` lies in [-size, size)
/// (or [0, size) when negatives are not allowed).
void check_index_bounds(const Tensor &index, std::int64_t size,
                        bool allow_negative, const char *op, std::int64_t dim);

/// Where the elements of an indexing result live in self's storage: the
/// strided offset of `layout` (dims kept from self) plus a per-element int64
/// term (what index tensors contribute), both read in the result's shape.
struct Addresses {
  Shape shape;
  StridedRef layout; // over self's storage; result-shaped
  Tensor extra;      // int64, keeps extra_ref's memory alive
  StridedRef extra_ref;
  std::int64_t extra_scale = 1; // extra counts elements of this stride
};
/// Elements at absolute storage offsets (any int64 tensor) of self.
Addresses absolute_addresses(const Tensor &self, const Tensor &offsets);
/// Every element of the view `view`, in its own layout.
Addresses view_addresses(const Tensor &view);

/// Result of resolving an indexing expression against a tensor.
struct ResolvedIndex {
  Tensor view;      // self after the basic (view-producing) indices
  bool advanced;    // false: `view` alone is the result
  Addresses at;     // defined when advanced
  bool single_mask; // the only tensor index was one boolean mask
  /// The advanced part alone, as indices into `view` (masks expanded).
  std::vector<TensorIndex> view_indices;
};
ResolvedIndex resolve_index(const Tensor &self,
                            const std::vector<TensorIndex> &indices);
/// The checks masked_fill_ and masked_scatter_ make of a mask: bool, on
/// self's device, broadcasting to self's sizes.
void check_mask(const Tensor &self, const Tensor &mask);
/// The elements of self where mask (broadcast to self) is true, row-major.
Addresses masked_addresses(const Tensor &self, const Tensor &mask);

/// Reads the addressed elements of self into a new tensor.
Tensor gather_at(const Tensor &self, const Addresses &at);
/// Addressed elements of self (+)= values broadcast to the result shape.
void scatter_at(const Tensor &self, const Addresses &at, const Tensor &values,
                bool accumulate);

/// History of a view regenerated from its base after an in-place write:
/// gradients flow into the base at the view's position.
std::shared_ptr<Node> make_view_of_base_node(const Tensor &base,
                                             const Tensor &view);

/// The out-of-place twin of an in-place op: writes into a clone and reports
/// the result as freshly created, with the flag the write gave it.
template <class Write> Tensor functional_twin(const Tensor &self, Write write) {
  Tensor out = self.clone();
  write(out);
  out.impl().requires_grad_at_creation = out.requires_grad_eager();
  return out;
}

/// Dims before `dim` as full slices followed by `index`: the indexing
/// expression of the dimension-wise ops (index_copy, index_fill, ...).
std::vector<TensorIndex> index_at_dim(std::int64_t dim, const Tensor &index);

} // namespace torch_tidy::runtime::detail
