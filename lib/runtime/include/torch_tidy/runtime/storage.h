// A block of memory on one device, shared by a tensor and all of its views.
#pragma once

#include "torch_tidy/runtime/dtype.h"

#include <cstddef>
#include <cstdint>

namespace torch_tidy::runtime {

class Storage {
public:
  Storage(std::size_t nbytes, Device device);
  ~Storage();
  Storage(const Storage &) = delete;
  Storage &operator=(const Storage &) = delete;

  void *data() const { return data_; }
  std::size_t nbytes() const { return nbytes_; }
  Device device() const { return device_; }

  /// PyTorch's version counter: every in-place write to any view of this
  /// storage bumps it, so saved tensors can detect they were overwritten.
  std::int64_t version() const { return version_; }
  void bump_version() { ++version_; }

private:
  void *data_ = nullptr;
  std::size_t nbytes_ = 0;
  Device device_;
  std::int64_t version_ = 0;
};

} // namespace torch_tidy::runtime
