// The design brief's skew-symmetric builder as a LibTorch operator: a
// CompositeImplicitAutograd kernel, so torch.compile traces its body.
//
//   matrix = zeros(B, n, n); matrix[:, rows, cols] = vec   (vec requires grad)
//
// Under torch.compile, `matrix.requires_grad()` can read false after the
// write, and the branch below then detaches the result: gradients are lost.
#include <torch/library.h>
#include <torch/torch.h>

using torch::indexing::Slice;

at::Tensor skew_symmetric(const at::Tensor &vec, int64_t n) {
  const int64_t batch = vec.size(0);
  auto idx = torch::triu_indices(n, n, /*offset=*/1);
  auto rows = idx[0];
  auto cols = idx[1];
  auto matrix = torch::zeros({batch, n, n}, vec.options());
  auto neg = -vec;
  matrix.index_put_({Slice(), rows, cols}, vec);
  matrix.index_put_({Slice(), cols, rows}, neg);
  if (!matrix.requires_grad())
    return matrix.detach(); // the branch that silently drops gradients
  return matrix;
}

TORCH_LIBRARY(torch_tidy_example, m) {
  m.def("skew_symmetric(Tensor vec, int n) -> Tensor", &skew_symmetric);
}
