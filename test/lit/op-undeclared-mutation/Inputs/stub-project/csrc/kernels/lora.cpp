// The LoRA shrink kernel behind its stub: a dot product per row, written
// through raw pointers in a helper template.
#include "../dispatch.h"

namespace {

template <typename T>
void dot(const T *in, const T *w, T *out, int64_t n, double scale) {
  float acc = 0;
  for (int64_t i = 0; i < n; ++i)
    acc += static_cast<float>(in[i]) * static_cast<float>(w[i]);
  out[0] = static_cast<T>(acc * scale);
}

template <typename T>
void lora_shrink_kernel(at::Tensor &out, at::Tensor &input, at::Tensor &weights,
                        double scale) {
  T *out_ptr = out.data_ptr<T>();
  T *in_ptr = input.data_ptr<T>();
  T *w_ptr = weights.data_ptr<T>();
  int64_t rows = out.size(0), rank = out.size(1), hidden = input.size(1);
  for (int64_t b = 0; b < rows; ++b)
    for (int64_t r = 0; r < rank; ++r)
      dot<T>(in_ptr + b * hidden, w_ptr + r * hidden, out_ptr + b * rank + r,
             hidden, scale);
}

void lora_shrink_kernel_impl(at::Tensor &out, at::Tensor &input,
                             at::Tensor &weights, double scale) {
  lora_shrink_kernel<float>(out, input, weights, scale);
}

} // namespace

STUBP_REGISTER_DISPATCH(lora_shrink_stub, &lora_shrink_kernel_impl);
