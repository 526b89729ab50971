// The seed's skew-symmetric builder as a LibTorch operator that fills a
// buffer its caller owns: `matrix` is a mutable (`Tensor(a!)`) argument.
//
//   @torch.compile
//   def build(vec):                                  # vec.requires_grad
//       matrix = torch.zeros(B, n, n)
//       torch.ops.torch_tidy_example.fill_skew_(matrix, vec)
//       if not matrix.requires_grad:                 # False when compiled
//           matrix = matrix.detach()                 # gradients dropped
//       return matrix
//
// Measured (docs/ground-truth.md, path cpp_mutable_composite): uncompiled,
// matrix.requires_grad is True after the call; under torch.compile it stays
// False on torch 2.8.0 and 2.15.0, with the eager, aot_eager and inductor
// backends. The functional twin below, which returns the matrix, keeps it.
#include <torch/library.h>
#include <torch/torch.h>

using torch::indexing::Slice;

void fill_skew_(at::Tensor &matrix, const at::Tensor &vec) {
  const int64_t n = matrix.size(-1);
  auto idx = torch::triu_indices(n, n, /*offset=*/1);
  matrix.index_put_({Slice(), idx[0], idx[1]}, vec);
  matrix.index_put_({Slice(), idx[1], idx[0]}, -vec);
}

// The remedy: a functional operator that returns the result.
at::Tensor skew_symmetric(const at::Tensor &vec, int64_t n) {
  auto idx = torch::triu_indices(n, n, /*offset=*/1);
  auto batch = torch::arange(vec.size(0)).unsqueeze(1);
  auto matrix = torch::zeros({vec.size(0), n, n}, vec.options());
  matrix = matrix.index_put({batch, idx[0], idx[1]}, vec);
  return matrix.index_put({batch, idx[1], idx[0]}, -vec);
}

TORCH_LIBRARY(torch_tidy_example, m) {
  m.def("fill_skew_(Tensor(a!) matrix, Tensor vec) -> ()", &fill_skew_);
  m.def("skew_symmetric(Tensor vec, int n) -> Tensor", &skew_symmetric);
}
