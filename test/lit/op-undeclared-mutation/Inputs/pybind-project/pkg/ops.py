import torch
from pkg import _C


@torch.library.custom_op("pw::fill", mutates_args=())
def fill(out: torch.Tensor, src: torch.Tensor) -> None:
    _C.fill_rows(out, src)


@fill.register_fake
def _(out, src):
    return None


@torch.library.custom_op("pw::scale", mutates_args=("out",))
def scale(out: torch.Tensor, x: torch.Tensor) -> None:
    _C.scale_into(out, x)


@torch.library.custom_op("pw::make", mutates_args=())
def make(x: torch.Tensor) -> torch.Tensor:
    out = torch.empty_like(x)
    _C.fresh(out, x)
    return out


@torch.library.custom_op(
    "pw::loud",
    mutates_args=[],
)
def loud(
    dst: torch.Tensor,
    x: torch.Tensor,
) -> None:
    _C.no_fake(dst, x)
    _C.read_only(x)


@torch.library.custom_op("pw::copied", mutates_args=())
def copied(out: torch.Tensor, x: torch.Tensor) -> None:
    _C.through_copy(out, x)


@copied.register_fake
def _(out, x):
    return None


def not_a_custom_op(out, src):
    _C.fill_rows(out, src)
