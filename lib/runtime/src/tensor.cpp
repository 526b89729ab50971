// Tensor metadata, requires_grad in both modes, and host access.
#include "internal.h"

#include "torch_tidy/runtime/dtype_dispatch.h"
#include "torch_tidy/runtime/mode.h"

#include <algorithm>

namespace torch_tidy::runtime {

using detail::backend_of;

TensorImpl &Tensor::impl() const {
  TT_CHECK(impl_ != nullptr, "operation on an undefined tensor");
  return *impl_;
}

std::int64_t wrap_dim(std::int64_t dim, std::int64_t ndim) {
  // Like PyTorch, a 0-dim tensor accepts dims -1 and 0.
  std::int64_t range = std::max<std::int64_t>(ndim, 1);
  TT_CHECK(dim >= -range && dim < range,
           "Dimension out of range (expected to be in range of [", -range, ", ",
           range - 1, "], but got ", dim, ")");
  return dim < 0 ? dim + range : dim;
}

std::int64_t Tensor::size(std::int64_t dim) const {
  return sizes()[wrap_dim(dim, this->dim())];
}

std::int64_t Tensor::numel() const {
  std::int64_t n = 1;
  for (std::int64_t s : sizes())
    n *= s;
  return n;
}

bool Tensor::is_contiguous() const {
  std::int64_t expected = 1;
  for (std::int64_t d = dim() - 1; d >= 0; --d) {
    if (sizes()[d] == 1)
      continue;
    if (strides()[d] != expected)
      return false;
    expected *= sizes()[d];
  }
  return true;
}

StridedRef Tensor::ref() const {
  TT_CHECK(dim() <= kMaxDims, "the runtime supports at most ", kMaxDims,
           " dimensions, got ", dim());
  StridedRef ref;
  ref.data = impl().storage->data();
  ref.dtype = dtype();
  ref.ndim = int(dim());
  for (int d = 0; d < ref.ndim; ++d) {
    ref.sizes[d] = sizes()[d];
    ref.strides[d] = strides()[d];
  }
  ref.offset = storage_offset();
  return ref;
}

std::shared_ptr<Node> Tensor::grad_fn() const {
  TensorImpl &self = impl();
  // A view whose storage was written since its history was made gets its
  // history regenerated from the base (PyTorch does this lazily too).
  if (self.base && self.grad_fn_version != version()) {
    Tensor base(self.base);
    if (base.requires_grad_eager())
      self.grad_fn = detail::make_view_of_base_node(base, *this);
    self.grad_fn_version = version();
  }
  return self.grad_fn;
}

bool Tensor::requires_grad_eager() const {
  return grad_fn() != nullptr || impl().leaf_requires_grad;
}

bool Tensor::requires_grad() const {
  if (is_compiled_mode())
    return impl().requires_grad_at_creation;
  return requires_grad_eager();
}

bool Tensor::is_leaf() const { return grad_fn() == nullptr; }

Tensor &Tensor::set_requires_grad(bool requires_grad) {
  TT_CHECK(is_leaf(), "you can only change requires_grad flags of leaf "
                      "variables.");
  TT_CHECK(!requires_grad || is_floating(dtype()),
           "only Tensors of floating point dtype can require gradients");
  impl().leaf_requires_grad = requires_grad;
  // Setting the flag is part of creating a leaf, so the snapshot follows it.
  impl().requires_grad_at_creation = requires_grad;
  return *this;
}

Tensor Tensor::detach() const {
  auto impl = std::make_shared<TensorImpl>();
  impl->storage = this->impl().storage;
  impl->sizes = sizes();
  impl->strides = strides();
  impl->offset = storage_offset();
  impl->dtype = dtype();
  return Tensor(impl);
}

std::vector<double> Tensor::to_doubles() const {
  Tensor host = to(Device::CPU).contiguous();
  std::vector<double> out(host.numel());
  dispatch_dtype(dtype(), [&](auto tag) {
    using T = typename decltype(tag)::type;
    const T *data = static_cast<const T *>(host.impl().storage->data()) +
                    host.storage_offset();
    std::transform(data, data + out.size(), out.begin(),
                   [](T v) { return double(v); });
  });
  return out;
}

double Tensor::item() const {
  TT_CHECK(numel() == 1, "a Tensor with ", numel(),
           " elements cannot be converted to Scalar");
  return to_doubles()[0];
}

} // namespace torch_tidy::runtime
