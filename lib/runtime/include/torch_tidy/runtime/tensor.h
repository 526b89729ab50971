// The strided tensor: a handle to (storage, sizes, strides, offset, dtype)
// plus the autograd metadata PyTorch keeps next to it.
#pragma once

#include "torch_tidy/runtime/layout.h"
#include "torch_tidy/runtime/storage.h"

#include <cstdint>
#include <memory>
#include <optional>
#include <vector>

namespace torch_tidy::runtime {

class Node;
class TensorIndex;
class Tensor;

struct TensorImpl {
  std::shared_ptr<Storage> storage;
  Shape sizes, strides;
  std::int64_t offset = 0;
  DType dtype = DType::Float32;

  // --- autograd ------------------------------------------------------------
  bool leaf_requires_grad = false;   // meaningful only while grad_fn is null
  std::shared_ptr<Node> grad_fn;     // history of a non-leaf
  std::shared_ptr<Node> accumulator; // a leaf's sink for grad(), lazily made
  std::shared_ptr<TensorImpl> base;  // root tensor when this is a view
  std::int64_t grad_fn_version = 0;  // storage version grad_fn was made at
  /// Compiled mode's stale copy of requires_grad (taken at creation).
  bool requires_grad_at_creation = false;
};

class Tensor {
public:
  Tensor() = default;
  explicit Tensor(std::shared_ptr<TensorImpl> impl) : impl_(std::move(impl)) {}

  bool defined() const { return impl_ != nullptr; }
  TensorImpl &impl() const;
  const std::shared_ptr<TensorImpl> &impl_ptr() const { return impl_; }
  bool is_same(const Tensor &other) const { return impl_ == other.impl_; }

  // --- layout --------------------------------------------------------------
  const Shape &sizes() const { return impl().sizes; }
  const Shape &strides() const { return impl().strides; }
  std::int64_t size(std::int64_t dim) const;
  std::int64_t dim() const { return std::int64_t(impl().sizes.size()); }
  std::int64_t numel() const;
  std::int64_t storage_offset() const { return impl().offset; }
  DType dtype() const { return impl().dtype; }
  Device device() const { return impl().storage->device(); }
  bool is_contiguous() const;
  StridedRef ref() const;
  std::int64_t version() const { return impl().storage->version(); }

  // --- autograd ------------------------------------------------------------
  /// Eager: PyTorch's flag. Compiled: the value taken at creation.
  bool requires_grad() const;
  /// The live flag, whatever the mode: what autograd itself uses.
  bool requires_grad_eager() const;
  Tensor &set_requires_grad(bool requires_grad);
  std::shared_ptr<Node> grad_fn() const;
  bool is_leaf() const;
  bool is_view() const { return impl().base != nullptr; }
  Tensor detach() const;

  // --- views (views.cpp) ---------------------------------------------------
  Tensor slice(std::int64_t dim, std::int64_t start, std::int64_t end,
               std::int64_t step = 1) const;
  Tensor narrow(std::int64_t dim, std::int64_t start,
                std::int64_t length) const;
  Tensor select(std::int64_t dim, std::int64_t index) const;
  Tensor transpose(std::int64_t dim0, std::int64_t dim1) const;
  Tensor unsqueeze(std::int64_t dim) const;
  Tensor squeeze() const;
  Tensor squeeze(std::int64_t dim) const;
  Tensor view(const Shape &shape) const;
  Tensor expand(const Shape &shape) const;
  Tensor as_strided(const Shape &sizes, const Shape &strides,
                    std::int64_t offset) const;
  Tensor reshape(const Shape &shape) const;

  // --- copies (copy_ops.cpp) -----------------------------------------------
  Tensor &copy_(const Tensor &src);
  Tensor &fill_(double value);
  Tensor clone() const;
  Tensor contiguous() const;
  Tensor to(Device device) const;
  Tensor to(DType dtype) const;

  // --- indexing (indexing.cpp) ---------------------------------------------
  Tensor index(const std::vector<TensorIndex> &indices) const;
  Tensor &index_put_(const std::vector<TensorIndex> &indices,
                     const Tensor &values, bool accumulate = false);
  Tensor index_put(const std::vector<TensorIndex> &indices,
                   const Tensor &values, bool accumulate = false) const;
  /// LibTorch's index_put_ with a c10::List<std::optional<Tensor>> (named
  /// apart so braced index lists stay unambiguous): an empty entry is a
  /// full slice, and unlike setitem the value is not stripped of leading
  /// size-1 dims.
  Tensor &index_put_list_(const std::vector<std::optional<Tensor>> &indices,
                          const Tensor &values, bool accumulate = false);
  Tensor index_put_list(const std::vector<std::optional<Tensor>> &indices,
                        const Tensor &values, bool accumulate = false) const;

  // --- dimension-wise writes (write_ops.cpp) -------------------------------
  Tensor &index_copy_(std::int64_t dim, const Tensor &index,
                      const Tensor &source);
  Tensor index_copy(std::int64_t dim, const Tensor &index,
                    const Tensor &source) const;
  Tensor &index_fill_(std::int64_t dim, const Tensor &index, double value);
  Tensor index_fill(std::int64_t dim, const Tensor &index, double value) const;
  /// The value is a 0-dim tensor; it gets the sum of the filled gradients.
  Tensor &index_fill_(std::int64_t dim, const Tensor &index,
                      const Tensor &value);
  Tensor index_fill(std::int64_t dim, const Tensor &index,
                    const Tensor &value) const;
  Tensor index_select(std::int64_t dim, const Tensor &index) const;
  Tensor &scatter_(std::int64_t dim, const Tensor &index, const Tensor &src);
  Tensor scatter(std::int64_t dim, const Tensor &index,
                 const Tensor &src) const;
  Tensor &scatter_(std::int64_t dim, const Tensor &index, double value);
  Tensor scatter(std::int64_t dim, const Tensor &index, double value) const;
  Tensor gather(std::int64_t dim, const Tensor &index) const;
  Tensor slice_scatter(const Tensor &src, std::int64_t dim, std::int64_t start,
                       std::int64_t end, std::int64_t step = 1) const;
  Tensor select_scatter(const Tensor &src, std::int64_t dim,
                        std::int64_t index) const;

  // --- mask writes (mask_ops.cpp) ------------------------------------------
  Tensor &masked_fill_(const Tensor &mask, double value);
  Tensor masked_fill(const Tensor &mask, double value) const;
  /// The value is a 0-dim tensor; it gets the sum of the filled gradients.
  Tensor &masked_fill_(const Tensor &mask, const Tensor &value);
  Tensor masked_fill(const Tensor &mask, const Tensor &value) const;
  Tensor &masked_scatter_(const Tensor &mask, const Tensor &source);
  Tensor masked_scatter(const Tensor &mask, const Tensor &source) const;
  Tensor masked_select(const Tensor &mask) const;

  // --- arithmetic (arithmetic.cpp) -----------------------------------------
  Tensor add(const Tensor &other) const;
  Tensor sub(const Tensor &other) const;
  Tensor mul(const Tensor &other) const;
  /// True division: integral operands give float32.
  Tensor div(const Tensor &other) const;
  /// clamp(min) with a tensor bound: torch.maximum(self, min).
  Tensor clamp(const Tensor &min) const;
  /// In place (issue 39's rewrites of in-place arithmetic through a view):
  /// other broadcasts to this tensor's shape, the result is cast to its
  /// dtype where PyTorch allows it (not floating into integer or bool).
  Tensor &add_(const Tensor &other);
  Tensor &sub_(const Tensor &other);
  Tensor &mul_(const Tensor &other);
  Tensor &div_(const Tensor &other);
  Tensor &clamp_(const Tensor &min);
  Tensor sum() const;
  Tensor sum(const Shape &dims, bool keepdim = false) const;
  /// Sums broadcast dimensions away so the result has `shape`.
  Tensor sum_to(const Shape &shape) const;

  // --- host access ---------------------------------------------------------
  std::vector<double> to_doubles() const;
  double item() const;

private:
  std::shared_ptr<TensorImpl> impl_;
};

inline Tensor operator+(const Tensor &a, const Tensor &b) { return a.add(b); }
inline Tensor operator-(const Tensor &a, const Tensor &b) { return a.sub(b); }
inline Tensor operator*(const Tensor &a, const Tensor &b) { return a.mul(b); }

/// Wraps an int64/bool index list for the dims that need one tensor.
std::int64_t wrap_dim(std::int64_t dim, std::int64_t ndim);

} // namespace torch_tidy::runtime
