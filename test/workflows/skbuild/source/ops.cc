// skbx's schemas; the kernels are in cpu_kernels.cc and cuda_kernels.cu,
// the fake kernels in skbx/fakes.py at the repository's root.
#include <torch/library.h>

TORCH_LIBRARY(skbx, m) {
  m.def("scale_rows(Tensor x, Tensor s) -> Tensor");
  m.def("offset(Tensor x, float v) -> Tensor");
}
