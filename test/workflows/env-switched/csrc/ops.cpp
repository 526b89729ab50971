// envx's schemas. The kernels are in cpu/kernels.cpp and cuda/kernels.cu,
// each built only when setup.py's environment variable says so.
#include <torch/library.h>

TORCH_LIBRARY(envx, m) {
  m.def("scale(Tensor x, float s) -> Tensor");
  m.def("shift(Tensor x, float s) -> Tensor");
  m.def("clip_(Tensor(a!) x, float lo, float hi) -> ()");
  m.def("fill_rows_(Tensor(a!) out, Tensor rows) -> ()");
  m.def("normalize(Tensor x) -> Tensor");
  m.def("count(Tensor x) -> Tensor");
}
