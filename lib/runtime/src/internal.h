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

/// Result of resolving an indexing expression against a tensor: the storage
/// offset of every element the expression names, shaped like its result.
struct ResolvedIndex {
  Tensor view;      // self after the basic (view-producing) indices
  bool advanced;    // false: `view` alone is the result
  Tensor offsets;   // int64, result-shaped; defined when advanced
  bool single_mask; // the only tensor index was one boolean mask
  /// The advanced part alone, as indices into `view` (masks expanded).
  std::vector<TensorIndex> view_indices;
};
ResolvedIndex resolve_index(const Tensor &self,
                            const std::vector<TensorIndex> &indices);
/// Storage offsets of self's elements where mask (broadcast to self) is true,
/// in row-major order.
Tensor masked_offsets(const Tensor &self, const Tensor &mask);
/// Storage offsets of every element of self, shaped like self.
Tensor element_offsets(const Tensor &self);

/// Reads storage(self)[offsets] into a new offsets-shaped tensor.
Tensor gather_offsets(const Tensor &self, const Tensor &offsets);
/// storage(self)[offsets] (+)= values broadcast to offsets' shape.
void scatter_offsets(const Tensor &self, const Tensor &offsets,
                     const Tensor &values, bool accumulate);

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
