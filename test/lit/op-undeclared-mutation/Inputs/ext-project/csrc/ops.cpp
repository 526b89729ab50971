// The project's schemas, with no kernel: the kernels are in kernels.cpp.
#include <torch/library.h>

TORCH_LIBRARY(extp, m) {
  m.def("scatter_first(Tensor Dst, Tensor Src, Tensor Index) -> ()");
  m.def("norm_out(Tensor input, Tensor output) -> Tensor");
  m.def(TORCH_SELECTIVE_SCHEMA("extp::declared(Tensor(a!) m, Tensor v) -> ()"));
  m.def("reads(Tensor x) -> Tensor");
}
