# Fake (meta) kernels: what torch.compile traces the operators with.
import torch


@torch.library.register_fake("tidy_lib::scale_rows")
def _(x, rows, s):
    return None


@torch.library.register_fake("tidy_lib::scaled")
def _(x, s):
    return torch.empty_like(x)
