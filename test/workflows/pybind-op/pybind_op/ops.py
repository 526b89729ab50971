import torch

from . import _C


# The write into `out` is not declared: compiled callers lose it.
@torch.library.custom_op("pybind_op::add_rows", mutates_args=())
def add_rows(out: torch.Tensor, src: torch.Tensor) -> None:
    _C.add_rows(out, src)


@add_rows.register_fake
def _(out, src):
    return None


# Declared, and a tensor the op makes itself: nothing to say.
@torch.library.custom_op("pybind_op::doubled", mutates_args=("out",))
def doubled(out: torch.Tensor, x: torch.Tensor) -> None:
    _C.doubled(out, x)


@torch.library.custom_op("pybind_op::fresh_doubled", mutates_args=())
def fresh_doubled(x: torch.Tensor) -> torch.Tensor:
    out = torch.empty_like(x)
    _C.doubled(out, x)
    return out
