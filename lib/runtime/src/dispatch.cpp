// The one place that picks a backend for a device.
#include "torch_tidy/runtime/backend.h"

namespace torch_tidy::runtime {

Backend &backend_for(Device device) {
  return device == Device::CPU ? cpu_backend() : cuda_backend();
}

#ifndef TORCH_TIDY_RUNTIME_HAS_CUDA
// Built without nvcc: CUDA tensors are a clear error, not a crash.
Backend &cuda_backend() {
  throw Error("this runtime was built without the CUDA backend (no nvcc)");
}
bool cuda_backend_compiled() { return false; }
#endif

} // namespace torch_tidy::runtime
