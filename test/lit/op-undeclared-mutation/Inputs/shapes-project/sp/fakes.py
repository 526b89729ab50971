# Fakes registered the ways projects write them.
import torch

from ._ops import add_op_namespace_prefix

# deep-gemm (kernels-community): a loop over names, the namespace made by a
# helper at build time.
for _op in [
    "gemm_nt",
    "gemm_nn",
]:

    @torch.library.register_fake(add_op_namespace_prefix(_op))
    def _fake(*args, **kwargs):
        pass


torch.library.register_fake(getattr(torch.ops.sp, "by_getattr"))(lambda a, d: None)


def _register(name):
    torch.library.register_fake(f"sp::{name}")(lambda a, d: None)


_register("by_helper")
for _name in ("helper_loop",):
    _register(_name)

if enable_torch_compile:
    torch.library.register_fake("sp::when_compiled")(lambda a, d: None)
