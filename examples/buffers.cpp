// Two mistakes torch-tidy's other checks catch: a write into the copy that
// advanced indexing returns (lost), and an in-place initialisation of a
// leaf that requires grad (autograd throws).
#include <torch/torch.h>

at::Tensor clear_selected(at::Tensor scores, const at::Tensor &picked,
                          const at::Tensor &fill) {
  scores.index({picked}) = fill; // writes into a temporary copy
  return scores;
}

at::Tensor make_weight(int64_t n) {
  auto weight = torch::empty({n, n}, torch::requires_grad());
  weight.fill_(0.5); // a leaf that requires grad, written in place
  return weight;
}
