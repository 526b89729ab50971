# The writes whose fixes prove_fixes.py proves: each function is compiled,
# writes in place into a tensor made without gradient tracking from `x`,
# which requires grad, and reads the flag after the write. torch-tidy-py
# --fix rewrites a copy of this file; the prover runs both under torch.compile
# (aot_eager, inductor) and uncompiled. INPUTS gives each function's
# arguments (x first, made to require grad by the prover).
import torch


@torch.compile
def seed(x, n):
    m = torch.zeros(x.shape[0], n, n)
    rows, cols = torch.triu_indices(n, n, 1)
    m[:, rows, cols] = x
    m[:, cols, rows] = -x
    return m, m.requires_grad


@torch.compile
def rows_index(x):
    m = torch.zeros(4, 3)
    idx = torch.tensor([0, 2])
    m[idx, :] = x
    return m, m.requires_grad


@torch.compile
def int_setitem(x):
    m = torch.zeros(3, 4)
    m[1] = x
    return m, m.requires_grad


@torch.compile
def column_setitem(x):
    m = x.new_zeros(4, 3)
    m[:, 0] = x
    return m, m.requires_grad


@torch.compile
def rows_setitem(x):
    m = torch.zeros(4, 3)
    m[1:3] = x
    return m, m.requires_grad


@torch.compile
def narrow_copy(x):
    m = torch.zeros(4, 3)
    m.narrow(0, 1, 2).copy_(x)
    return m, m.requires_grad


@torch.compile
def narrow_copy_start(x, i):
    m = torch.zeros(5, 3)
    m.narrow(0, i, 2).copy_(x)
    return m, m.requires_grad


@torch.compile
def select_copy(x):
    m = torch.zeros_like(x).clone()
    m.select(1, 2).copy_(x[:, 0])
    return m, m.requires_grad


@torch.compile
def narrow_add(x):
    m = torch.ones(4, 3)
    m.narrow(0, 1, 2).add_(x)
    return m, m.requires_grad


@torch.compile
def select_mul(x):
    m = torch.ones(3, 4)
    m.select(0, 1).mul_(x)
    return m, m.requires_grad


@torch.compile
def narrow_clamp(x):
    m = torch.zeros(4, 3)
    m.narrow(0, 0, 2).clamp_(min=x)
    return m, m.requires_grad


@torch.compile
def index_copy(x):
    m = torch.zeros(4, 3)
    idx = torch.tensor([0, 2])
    m.index_copy_(0, idx, x)
    return m, m.requires_grad


@torch.compile
def masked_scatter(x):
    m = torch.zeros(2, 3)
    mask = torch.tensor([[True, False, True], [False, True, False]])
    m.masked_scatter_(mask, x)
    return m, m.requires_grad


@torch.compile
def scatter(x):
    m = torch.zeros(2, 4)
    idx = torch.tensor([[0, 3], [1, 2]])
    m.scatter_(1, idx, x)
    return m, m.requires_grad


INPUTS = {
    "seed": lambda: (torch.randn(2, 6), 4),
    "rows_index": lambda: (torch.randn(2, 3),),
    "int_setitem": lambda: (torch.randn(4),),
    "column_setitem": lambda: (torch.randn(4),),
    "rows_setitem": lambda: (torch.randn(2, 3),),
    "narrow_copy": lambda: (torch.randn(2, 3),),
    "narrow_copy_start": lambda: (torch.randn(2, 3), 2),
    "select_copy": lambda: (torch.randn(3, 3),),
    "narrow_add": lambda: (torch.randn(2, 3),),
    "select_mul": lambda: (torch.randn(4),),
    "narrow_clamp": lambda: (torch.randn(2, 3),),
    "index_copy": lambda: (torch.randn(2, 3),),
    "masked_scatter": lambda: (torch.randn(3),),
    "scatter": lambda: (torch.randn(2, 2),),
}
