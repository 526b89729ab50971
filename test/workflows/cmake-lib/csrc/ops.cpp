// The schemas. set_python_module names the module that registers the
// fakes (tidy_lib/fakes.py); LibTorch 1.13 has no such call, so this file
// parses only against the torch the library is built with.
#include <torch/library.h>

TORCH_LIBRARY(tidy_lib, m) {
  m.set_python_module("tidy_lib.fakes");
  m.def("scale_rows(Tensor x, Tensor rows, float s) -> ()");
  m.def("scaled(Tensor x, float s) -> Tensor");
  m.def("checksum(Tensor x) -> int");
}
