// copy_, fill_ and the copies built on them (clone, contiguous, to).
#include "internal.h"

namespace torch_tidy::runtime {

using detail::backend_of;

Tensor &Tensor::copy_(const Tensor &src) {
  check_inplace(*this);
  detail::check_no_internal_overlap(*this);
  detail::broadcast_shapes(sizes(), src.sizes()); // throws with torch's text
  Tensor from = src.device() == device() ? src : src.to(device());
  TT_CHECK(from.dim() <= dim(), "output with shape ",
           detail::to_string(sizes()), " doesn't match the broadcast shape ",
           detail::to_string(detail::broadcast_shapes(sizes(), src.sizes())));
  backend_of(*this).copy(ref(), detail::broadcast_ref(from, sizes()));
  record_inplace(*this, "CopyBackwards", {src}, [](const Tensor &grad) {
    // The old value is overwritten (zero gradient); the source gets all.
    return std::vector<Tensor>{Tensor(), grad};
  });
  return *this;
}

Tensor &Tensor::fill_(double value) {
  check_inplace(*this);
  backend_of(*this).fill(ref(), value);
  record_inplace(*this, "FillBackward", {},
                 [](const Tensor &) { return std::vector<Tensor>{Tensor()}; });
  return *this;
}

Tensor Tensor::clone() const {
  Tensor out = empty(sizes(), {dtype(), device()});
  backend_of(out).copy(out.ref(), ref());
  record(out, "CloneBackward", {*this},
         [](const Tensor &grad) { return std::vector<Tensor>{grad}; });
  return out;
}

Tensor Tensor::contiguous() const { return is_contiguous() ? *this : clone(); }

Tensor Tensor::to(DType dtype) const {
  if (dtype == this->dtype())
    return *this;
  Tensor out = empty(sizes(), {dtype, device()});
  backend_of(out).copy(out.ref(), ref());
  record(out, "ToCopyBackward", {*this},
         [](const Tensor &grad) { return std::vector<Tensor>{grad}; });
  return out;
}

Tensor Tensor::to(Device device) const {
  if (device == this->device())
    return *this;
  // Cross-device moves go through one dense byte transfer.
  Tensor dense = contiguous();
  Tensor out = empty(sizes(), {dtype(), device});
  std::size_t nbytes = std::size_t(numel()) * element_size(dtype());
  const char *src = static_cast<const char *>(dense.impl().storage->data()) +
                    dense.storage_offset() * element_size(dtype());
  if (device == Device::CPU)
    backend_of(dense).download(out.impl().storage->data(), src, nbytes);
  else
    backend_of(out).upload(out.impl().storage->data(), src, nbytes);
  Device from = this->device();
  record(out, "ToCopyBackward", {*this}, [from](const Tensor &grad) {
    return std::vector<Tensor>{grad.to(from)};
  });
  return out;
}

} // namespace torch_tidy::runtime
