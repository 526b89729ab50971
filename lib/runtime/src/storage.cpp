#include "torch_tidy/runtime/storage.h"

#include "torch_tidy/runtime/backend.h"

namespace torch_tidy::runtime {

Storage::Storage(std::size_t nbytes, Device device)
    : nbytes_(nbytes), device_(device) {
  // Allocate at least one byte so even empty tensors have a valid pointer.
  data_ = backend_for(device).allocate(nbytes == 0 ? 1 : nbytes);
}

Storage::~Storage() { backend_for(device_).deallocate(data_); }

} // namespace torch_tidy::runtime
