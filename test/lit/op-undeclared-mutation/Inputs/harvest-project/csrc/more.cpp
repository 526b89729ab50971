// A second translation unit of the harvest project (harvest.cpp lints it
// in the same clang-tidy run as ops.cpp).
#include <torch/library.h>

at::Tensor thrice_cpu(const at::Tensor &x) { return x * 3; }

TORCH_LIBRARY_FRAGMENT(hv, m) { m.def("thrice(Tensor x) -> Tensor"); }
TORCH_LIBRARY_IMPL(hv, CPU, m) { m.impl("thrice", &thrice_cpu); }
