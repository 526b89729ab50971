# Twin of the shape a mixture-of-experts block with expert parallelism
# writes (issue 78's case (b)): each expert's output scattered back into a
# buffer made with new_empty, by setitem, then handed to an all-to-all
# autograd.Function whose forward runs a collective (no autograd there) and
# whose backward runs the reverse exchange. A one-process gloo group: the
# exchange is the identity, the gradients are those of the experts.
#
# Measured: the experts' weight gradients, compiled (aot_eager, inductor),
# equal the uncompiled ones on torch 2.8.0 too, though the flag of `out` is
# stale there and Dynamo traces the Function's forward inline: its
# collective, traced, is differentiable, and its gradient is the backward's
# exchange. torch-tidy-py must not report it: nothing in the forward shows
# a gradient that would be lost (a negative twin; write_line None).
import os
import tempfile

import torch
import torch.distributed as dist
from torch import nn

TWIN = {"write_line": None, "params": "moe.experts",
        "expect": {"2.8.0": "same", "latest": "same"}}


class AllToAll(torch.autograd.Function):
    @staticmethod
    def forward(ctx, inp):
        out = torch.empty_like(inp)
        dist.all_to_all_single(out, inp.contiguous())
        return out

    @staticmethod
    def backward(ctx, grad):
        out = torch.empty_like(grad)
        dist.all_to_all_single(out, grad.contiguous())
        return out


class Experts(nn.Module):
    def __init__(self, n=3, d=4):
        super().__init__()
        self.experts = nn.ModuleList([nn.Linear(d, d) for _ in range(n)])

    def forward(self, x, routing):
        out = x.new_empty(x.shape)
        for i, expert in enumerate(self.experts):
            idx = torch.nonzero(routing == i).squeeze(-1)
            out[idx, :] = expert(x[idx])
        return AllToAll.apply(out)


class MoEBlock(nn.Module):
    def __init__(self, n=3, d=4):
        super().__init__()
        self.moe = Experts(n, d)

    def forward(self, x, routing):
        return self.moe(x, routing)


def setup():
    if not dist.is_initialized():
        dist.init_process_group("gloo", init_method="file://" + tempfile.mktemp(),
                                rank=0, world_size=1)
    torch.manual_seed(0)
    model = MoEBlock()
    x = torch.randn(6, 4)
    routing = torch.tensor([0, 1, 2, 0, 1, 2])
    return model, (x, routing)
