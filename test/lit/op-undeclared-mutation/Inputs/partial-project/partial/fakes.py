import torch


@torch.library.register_fake("partial::silent_void")
def _(out, x):
    return None
