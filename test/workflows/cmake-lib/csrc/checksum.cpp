// A kernel that needs the Debian package CMake found (zlib).
#include <ATen/core/Tensor.h>
#include <torch/library.h>
#include <zlib.h>

#ifndef TIDY_LIB_WITH_ZLIB
#error "CMake's target_compile_definitions did not reach this file"
#endif

namespace tidy_lib {

int64_t checksum_cpu(const at::Tensor &x) {
  const auto *bytes = static_cast<const Bytef *>(x.const_data_ptr());
  return static_cast<int64_t>(
      crc32(0L, bytes, static_cast<uInt>(x.numel() * x.element_size())));
}

} // namespace tidy_lib

TORCH_LIBRARY_IMPL(tidy_lib, CPU, m) {
  m.impl("checksum", &tidy_lib::checksum_cpu);
}
