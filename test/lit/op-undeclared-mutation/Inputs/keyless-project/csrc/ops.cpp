// An operator whose only Python registration names its dispatch key by an
// expression (kl/impls.py): it may be the fake.
#include <torch/torch.h>

namespace {
void kl_cpu(const at::Tensor &a, const at::Tensor &d) { d.copy_(a); }
} // namespace

TORCH_LIBRARY(kl, m) { m.def("opaque(Tensor a, Tensor d) -> ()"); }

TORCH_LIBRARY_IMPL(kl, CPU, m) { m.impl("opaque", &kl_cpu); }
