# The seed itself (pytorch/pytorch#169179): a skew-symmetric matrix built
# with in-place writes, inside a compiled function, into a tensor made
# without gradient tracking, from a vector that requires grad.
#
# Measured for this form (docs/ground-truth.md, path python, setitem_adv_):
# uncompiled, the flag reads True after the write; compiled it reads False
# on torch 2.8.0 (eager, aot_eager, inductor backends) and True on torch
# 2.15.0. Where it reads False, the branch below detaches the matrix and
# the gradient of `vec` is lost (the table's gradients differ there).
import torch


@torch.compile
def skew_symmetric(vec, n):
    matrix = torch.zeros(vec.shape[0], n, n)
    rows, cols = torch.triu_indices(n, n, 1)
    matrix[:, rows, cols] = vec
    matrix[:, cols, rows] = -vec
    if not matrix.requires_grad:
        matrix = matrix.detach()
    return matrix


# The seed's own workaround: the out-of-place index_put keeps the flag.
@torch.compile
def skew_symmetric_fixed(vec, n):
    matrix = torch.zeros(vec.shape[0], n, n)
    rows, cols = torch.triu_indices(n, n, 1)
    batch = torch.arange(vec.shape[0])[:, None]
    matrix = matrix.index_put((batch, rows, cols), vec)
    matrix = matrix.index_put((batch, cols, rows), -vec)
    if not matrix.requires_grad:
        matrix = matrix.detach()
    return matrix
