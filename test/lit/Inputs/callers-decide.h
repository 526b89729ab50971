// Declared in a header: other translation units may call it.
#include <torch/torch.h>
torch::Tensor declaredInHeader(torch::Tensor X);
