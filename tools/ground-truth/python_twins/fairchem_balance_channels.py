# Twin of fairchem's charge and spin channel balancing under graph
# parallelism (facebookresearch/fairchem, src/fairchem/core/models/uma/
# escn_md.py, balance_channels_batched, added by #1768 on 2026-02-17 while
# fairchem-core pinned torch~=2.8.0; the pin moved to 2.13 on 2026-07-28).
# After each message-passing block, a contiguous range of channels is
# shifted so that its sum per system matches the system's charge (or spin):
# the partial sums are gathered with index_add_ into torch.zeros and, where
# graph parallelism is initialized, summed across ranks with
# torch.distributed.nn.functional.all_reduce, the autograd-aware collective.
# Inference computes forces as the gradient of the energy with respect to
# the positions (conservative forces), with the model compiled
# (InferenceSettings(compile=True), the "turbo" settings).
#
# Here: a one-process gloo group (the all_reduce is the identity), the
# positions a leaf that requires grad (their gradient is the forces), the
# blocks a stand-in for eSCN message passing that depends on the positions.
# Measured: compiled with aot_eager and inductor on torch 2.8.0, the forces
# differ from uncompiled ones (the gradient through the all_reduce of the
# stale partial sums is lost); torch 2.15.0 gives the uncompiled forces.
import tempfile

import torch
import torch.distributed as dist
from torch import nn
from torch.distributed.nn.functional import all_reduce as all_reduce_with_grad

TWIN = {"write_line": 44, "params": "pos", "fix": False,
        # what the note tells to write by hand, measured too
        "hand_fix": ["sums.index_add_(0, owner, selected)",
                     "sums = sums.index_add(0, owner, selected)"],
        "expect": {"2.8.0": "differs", "latest": "same"}}


def gp_initialized():
    return dist.is_initialized()


def shift_channels_to_targets(emb, targets, counts, owner, lo, hi):
    """Channels lo..hi-1 of the first feature shifted, atom by atom, so that
    their sum over each system's atoms is that system's target (as the
    project balances charge and spin channels)."""
    selected = emb[:, 0, lo:hi]
    sums = torch.zeros(len(counts), hi - lo, device=emb.device, dtype=emb.dtype)
    sums.index_add_(0, owner, selected)
    if gp_initialized():  # the other ranks' atoms
        sums = all_reduce_with_grad(sums)
    excess = (sums - targets[:, None]) / counts[:, None]
    out = emb.clone()
    out[:, 0, lo:hi] = selected - excess[owner]
    return out


class Block(nn.Module):
    """A stand-in for an eSCN-MD block: an update of every atom's embedding
    that depends on the positions."""

    def __init__(self, channels):
        super().__init__()
        self.mix = nn.Linear(channels, channels)
        self.requires_grad_(False)  # inference: the weights are frozen

    def forward(self, x, pos):
        radial = torch.sin(pos.sum(-1, keepdim=True))[:, :, None]
        return x + torch.tanh(self.mix(x)) * radial


class Backbone(nn.Module):  # torch-tidy: compiled
    """fairchem's predict unit compiles the model it loaded (torch.compile(
    self.model, dynamic=True) where InferenceSettings(compile=True)), and its
    tests/core/models/uma/test_compile.py compiles eSCNMDBackbone."""

    def __init__(self, atoms=6, channels=4, layers=2):
        super().__init__()
        self.pos = nn.Parameter(torch.randn(atoms, 3))  # the forces' variable
        self.blocks = nn.ModuleList([Block(channels) for _ in range(layers)])
        self.embed = nn.Parameter(torch.randn(atoms, 1, channels), requires_grad=False)
        self.register_buffer("batch", torch.tensor([0, 0, 0, 1, 1, 1]))
        self.register_buffer("natoms", torch.tensor([3.0, 3.0]))
        self.register_buffer("charge", torch.tensor([0.0, 1.0]))

    def forward(self, x):
        x = self.embed * torch.cos(self.pos.sum(-1))[:, None, None]
        for block in self.blocks:
            x = block(x, self.pos)
            x = shift_channels_to_targets(x, self.charge, self.natoms, self.batch, 0, 2)
        return x.sum(dim=(1, 2))


def compile_model(model, backend):
    return torch.compile(model, backend=backend, dynamic=True)


def setup():
    if not dist.is_initialized():
        dist.init_process_group("gloo", init_method="file://" + tempfile.mktemp(),
                                rank=0, world_size=1)
    torch.manual_seed(0)
    return Backbone(), (torch.zeros(()),)
