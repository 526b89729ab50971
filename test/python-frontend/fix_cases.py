# The writes whose fixes prove_fixes.py proves: each function is compiled,
# writes in place into a tensor made without gradient tracking from `x`,
# which requires grad, and reads the flag after the write. torch-tidy-py
# --fix rewrites a copy of this file; the prover runs both under torch.compile
# (aot_eager, inductor) and uncompiled. INPUTS gives each function's
# arguments (x first, made to require grad by the prover).
import torch


@torch.compile
def seed(x: torch.Tensor, n):
    m = torch.zeros(x.shape[0], n, n)
    rows, cols = torch.triu_indices(n, n, 1)
    m[:, rows, cols] = x
    m[:, cols, rows] = -x
    return m, m.requires_grad


@torch.compile
def rows_index(x: torch.Tensor):
    m = torch.zeros(4, 3)
    idx = torch.tensor([0, 2])
    m[idx, :] = x
    return m, m.requires_grad


@torch.compile
def int_setitem(x: torch.Tensor):
    m = torch.zeros(3, 4)
    m[1] = x
    return m, m.requires_grad


@torch.compile
def column_setitem(x: torch.Tensor):
    m = x.new_zeros(4, 3)
    m[:, 0] = x
    return m, m.requires_grad


@torch.compile
def rows_setitem(x: torch.Tensor):
    m = torch.zeros(4, 3)
    m[1:3] = x
    return m, m.requires_grad


@torch.compile
def narrow_copy(x: torch.Tensor):
    m = torch.zeros(4, 3)
    m.narrow(0, 1, 2).copy_(x)
    return m, m.requires_grad


@torch.compile
def narrow_copy_start(x: torch.Tensor, i):
    m = torch.zeros(5, 3)
    m.narrow(0, i, 2).copy_(x)
    return m, m.requires_grad


@torch.compile
def select_copy(x: torch.Tensor):
    m = torch.zeros_like(x).clone()
    m.select(1, 2).copy_(x[:, 0])
    return m, m.requires_grad


@torch.compile
def narrow_add(x: torch.Tensor):
    m = torch.ones(4, 3)
    m.narrow(0, 1, 2).add_(x)
    return m, m.requires_grad


@torch.compile
def select_mul(x: torch.Tensor):
    m = torch.ones(3, 4)
    m.select(0, 1).mul_(x)
    return m, m.requires_grad


@torch.compile
def narrow_clamp(x: torch.Tensor):
    m = torch.zeros(4, 3)
    m.narrow(0, 0, 2).clamp_(min=x)
    return m, m.requires_grad


@torch.compile
def index_copy(x: torch.Tensor):
    m = torch.zeros(4, 3)
    idx = torch.tensor([0, 2])
    m.index_copy_(0, idx, x)
    return m, m.requires_grad


@torch.compile
def masked_scatter(x: torch.Tensor):
    m = torch.zeros(2, 3)
    mask = torch.tensor([[True, False, True], [False, True, False]])
    m.masked_scatter_(mask, x)
    return m, m.requires_grad


@torch.compile
def scatter(x: torch.Tensor):
    m = torch.zeros(2, 4)
    idx = torch.tensor([[0, 3], [1, 2]])
    m.scatter_(1, idx, x)
    return m, m.requires_grad


@torch.compile
def index_put(x: torch.Tensor):
    m = torch.zeros(4, 3)
    idx = torch.tensor([0, 2])
    m.index_put_((idx,), x)
    return m, m.requires_grad


# Issue 78: the writes the newest torch still loses (named views, view
# chains), and the slice-then-index setitem torch 2.8.0 loses.
@torch.compile
def rows_col_setitem(x: torch.Tensor):
    m = torch.zeros(4, 3)
    m[1:3, 0] = x
    return m, m.requires_grad


@torch.compile
def row_cols_setitem(x: torch.Tensor):
    m = torch.zeros(4, 3)
    m[2, 1:3] = x
    return m, m.requires_grad


@torch.compile
def chain_copy(x: torch.Tensor):
    m = torch.zeros(4, 3)
    m.narrow(0, 1, 2).select(1, 0).copy_(x)
    return m, m.requires_grad


@torch.compile
def named_copy(x: torch.Tensor):
    m = torch.zeros(4, 3)
    v = m[1:3]
    v.copy_(x)
    return m, m.requires_grad


@torch.compile
def named_setitem_read_later(x: torch.Tensor):
    m = torch.zeros(4, 3)
    v = m[1:3]
    v[:, 0] = x
    out = m + v.sum()
    return out, m.requires_grad


@torch.compile
def named_add(x: torch.Tensor):
    m = torch.ones(4, 3)
    v = m.narrow(0, 1, 2)
    v.add_(x)
    return m, m.requires_grad


@torch.compile
def named_chain_mul(x: torch.Tensor):
    m = torch.ones(4, 3)
    col = m.narrow(0, 1, 2).select(1, 2)
    col.mul_(x)
    return m, m.requires_grad


@torch.compile
def augmented(x: torch.Tensor):
    m = torch.ones(4, 3)
    m[1:3] += x
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
    "index_put": lambda: (torch.randn(2, 3),),
    "rows_col_setitem": lambda: (torch.randn(2),),
    "row_cols_setitem": lambda: (torch.randn(2),),
    "chain_copy": lambda: (torch.randn(2),),
    "named_copy": lambda: (torch.randn(2, 3),),
    "named_setitem_read_later": lambda: (torch.randn(2),),
    "named_add": lambda: (torch.randn(2, 3),),
    "named_chain_mul": lambda: (torch.randn(2),),
    "augmented": lambda: (torch.randn(2, 3),),
}
