// A vendored library the project's build compiles into its own (as xformers
// compiles third_party/flash-attention): its schemas here, its kernels in
// cpu.cpp. torch-tidy-project reads both because the build compiles them,
// although the project index does not walk third_party/.
#include <torch/library.h>

TORCH_LIBRARY(vend, m) {
  m.def("scaled_sum(Tensor x, float s) -> Tensor");
  m.def("negate(Tensor x) -> Tensor");
}
