// The kernels of register.cpp's operators: one writes its input through
// memory inside a lambda handed to the project's own helper, then
// AT_DISPATCH and at::parallel_for; the other only reads it.
#include "ops.h"
#include <cstring>
#include <functional>

void run_async(std::function<void()> fn); // defined in another library

std::vector<at::Tensor> gather_async(at::Tensor input, at::Tensor out,
                                     int64_t n) {
  run_async([=]() {
    AT_DISPATCH_FLOATING_TYPES(input.scalar_type(), "gather", [&] {
      at::parallel_for(0, n, 1, [&](int64_t b, int64_t e) {
        std::memcpy(input.data_ptr<scalar_t>() + b, out.data_ptr<scalar_t>() + b,
                    (e - b) * sizeof(scalar_t));
      });
    });
  });
  return {out};
}

at::Tensor gather_read(at::Tensor input, at::Tensor like) {
  at::Tensor r = at::empty_like(like);
  const float *src = input.data_ptr<float>();
  std::memcpy(r.data_ptr<float>(), src, 4);
  return r;
}
