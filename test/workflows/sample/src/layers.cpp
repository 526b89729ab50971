// Two findings of torch-compile-requires-grad-propagation, each with a fix.
#include <torch/torch.h>
#include <torch_tidy/compiled.h>

using torch::indexing::Slice;

TORCH_TIDY_COMPILED at::Tensor
skew(const at::Tensor &vec, const at::Tensor &rows, const at::Tensor &cols) {
  auto matrix = torch::zeros({2, 4, 4});
  matrix.index_put_({Slice(), rows, cols}, vec);
  return matrix;
}

TORCH_TIDY_COMPILED at::Tensor gather_rows(const at::Tensor &src,
                                           const at::Tensor &idx) {
  auto out = torch::zeros({4, 3});
  out.index_copy_(0, idx, src);
  return out;
}
