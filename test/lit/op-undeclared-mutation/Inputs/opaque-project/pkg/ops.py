import torch
from torch.library import register_fake

for _name in ["add_rows", "add_rows_too", "add_direct", "record", "log_only"]:
    register_fake(f"tw::{_name}")(lambda *args: None)


@torch.library.custom_op("tw::outer_declared", mutates_args=("x",))
def outer_declared(x: torch.Tensor, y: torch.Tensor) -> None:
    torch.ops.tw.add_rows(x, y)


@torch.library.custom_op(
    "tw::outer_undeclared",
    mutates_args=(),
)
def outer_undeclared(x: torch.Tensor, y: torch.Tensor) -> None:
    torch.ops.tw.add_rows_too.default(x, y)


@torch.library.custom_op("tw::outer_unknown", mutates_args="unknown")
def outer_unknown(x: torch.Tensor) -> None:
    torch.ops.tw.record(x)


@torch.library.custom_op("tw::outer_quiet", mutates_args=[])
def outer_quiet(x: torch.Tensor) -> None:
    torch.ops.tw.log_only(x)


def not_a_custom_op(x, y):
    torch.ops.tw.add_direct(x, y)
