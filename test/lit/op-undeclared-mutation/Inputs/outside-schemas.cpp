// Declares an operator of the sample project's namespace, outside the
// project's directory: the index does not read it.
#include <torch/library.h>

TORCH_LIBRARY_FRAGMENT(extp, m) {
  m.def("outside(Tensor m) -> Tensor");
}
