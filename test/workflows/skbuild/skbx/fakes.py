# Fake kernels: what torch.compile traces skbx's operators with.
import torch


@torch.library.register_fake("skbx::scale_rows")
def _(x, s):
    return x.new_empty(())


@torch.library.register_fake("skbx::offset")
def _(x, v):
    return torch.empty_like(x)
