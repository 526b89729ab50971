# Fake kernels registered from Python, in each spelling torch.library has.
import torch
from torch.library import impl_abstract


@torch.library.register_fake("cq::silent_py")
def _(dst, src):
    return None


torch.library.register_fake("cq::effects_only")(lambda x, path: None)


@torch.library.impl("cq::py_meta", "Meta")
def _py_meta(dst):
    return None


lib = torch.library.Library("cq", "IMPL")
lib.impl("lib_meta", lambda dst: None, "Meta")


@impl_abstract("cq::abs_fake")
def _abs(dst):
    return None


# Not fakes: a backend kernel and an autograd formula.
torch.library.register_kernel("cq::graph_break", "cuda")(lambda dst, src: None)
