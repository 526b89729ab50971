// A module declared in a header: the training code in another file calls
// forward with grad on.
#include <torch/torch.h>
struct GaussianModel {
  at::Tensor forward(const at::Tensor &means);
  at::Tensor scales;
};
at::Tensor render(const at::Tensor &means);
