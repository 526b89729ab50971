// An operator with no fake the index can name, in a project that registers
// a fake under a name made at run time (un/fakes.py).
#include <torch/torch.h>

namespace {
void un_cpu(const at::Tensor &a, const at::Tensor &d) { d.copy_(a); }
} // namespace

TORCH_LIBRARY(un, m) { m.def("opaque(Tensor a, Tensor d) -> ()"); }

TORCH_LIBRARY_IMPL(un, CPU, m) { m.impl("opaque", &un_cpu); }
