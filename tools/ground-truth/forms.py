"""The write forms measured by the ground truth, in Python.

Each form builds a fresh target from a factory (no grad), writes `src` (which
requires grad) into it and returns the result. The in-place ids end with '_'.
tt_gt_ops.cpp holds the C++ twins: same shapes, same index constants.

Each form also has a `read`: the positions of the target it writes, read back.
That is the adjoint of the write, so it is the autograd formula for the CPU
control ops (cpp_ops.py).
"""

import torch


# Index constants, shared with tt_gt_ops.cpp.
def triu_indices():
    return torch.triu_indices(4, 4, 1)


def index_copy_index():
    return torch.arange(2, -1, -2)  # [2, 0]


def scatter_index():
    # [[0, 2], [1, 3], [2, 0]]
    return (torch.arange(6).view(3, 2) * 2 + torch.arange(3).view(3, 1)).remainder(4)


def masked_scatter_mask():
    return torch.arange(12).view(3, 4).remainder(3).eq(0)


# masked_scatter consumes the first mask.sum() elements of src in order; the
# flat positions are fixed so the backward needs no data-dependent shapes.
MASKED_POSITIONS = [0, 3, 6, 9]


# --- writes --------------------------------------------------------------

def setitem_adv_(src):
    m = torch.zeros(2, 4, 4)
    rows, cols = triu_indices()
    m[:, rows, cols] = src  # the seed's skew-symmetric builder
    return m


def setitem_slice_int_(src):
    m = torch.zeros(3, 4)
    m[:, 0] = src
    return m


def setitem_int_(src):
    m = torch.zeros(3, 4)
    m[0] = src
    return m


def narrow_copy_(src):
    m = torch.zeros(3, 4)
    m.narrow(0, 1, 2).copy_(src)
    return m


def select_copy_(src):
    m = torch.zeros(3, 4)
    m.select(0, 0).copy_(src)
    return m


def index_copy_(src):
    m = torch.zeros(3, 4)
    m.index_copy_(0, index_copy_index(), src)
    return m


def masked_scatter_(src):
    m = torch.zeros(3, 4)
    m.masked_scatter_(masked_scatter_mask(), src)
    return m


def scatter_(src):
    m = torch.zeros(3, 4)
    m.scatter_(1, scatter_index(), src)
    return m


def view_alias_copy_(src):
    m = torch.zeros(3, 4)
    w = m[1:3]
    w.copy_(src)
    return m


def index_put(src):
    # The documented fix for the seed (pytorch/pytorch#169179).
    m = torch.zeros(2, 4, 4)
    rows, cols = triu_indices()
    batch = torch.arange(2)[:, None]
    return m.index_put((batch, rows, cols), src)


def slice_scatter(src):
    return torch.slice_scatter(torch.zeros(3, 4), src, 0, 1, 3)


def select_scatter(src):
    return torch.select_scatter(torch.zeros(3, 4), src, 1, 0)


def index_copy(src):
    return torch.zeros(3, 4).index_copy(0, index_copy_index(), src)


def masked_scatter(src):
    return torch.zeros(3, 4).masked_scatter(masked_scatter_mask(), src)


def scatter(src):
    return torch.zeros(3, 4).scatter(1, scatter_index(), src)


# --- reads (adjoints of the writes) ----------------------------------------

def _read_adv(g):
    rows, cols = triu_indices()
    return g[:, rows, cols]


def _read_masked(g):
    picked = g.reshape(-1)[torch.tensor(MASKED_POSITIONS)]
    return torch.cat([picked, g.new_zeros(12 - len(MASKED_POSITIONS))]).view(3, 4)


def _read_scatter(g):
    return g.gather(1, scatter_index())


def _read_rows_1_3(g):
    return g[1:3]


# id -> (write, source shape, read)
FORMS = {
    "setitem_adv_": (setitem_adv_, (2, 6), _read_adv),
    "setitem_slice_int_": (setitem_slice_int_, (3,), lambda g: g[:, 0]),
    "setitem_int_": (setitem_int_, (4,), lambda g: g[0]),
    "narrow_copy_": (narrow_copy_, (2, 4), _read_rows_1_3),
    "select_copy_": (select_copy_, (4,), lambda g: g[0]),
    "index_copy_": (index_copy_, (2, 4), lambda g: g[index_copy_index()]),
    "masked_scatter_": (masked_scatter_, (3, 4), _read_masked),
    "scatter_": (scatter_, (3, 2), _read_scatter),
    "view_alias_copy_": (view_alias_copy_, (2, 4), _read_rows_1_3),
    "index_put": (index_put, (2, 6), _read_adv),
    "slice_scatter": (slice_scatter, (2, 4), _read_rows_1_3),
    "select_scatter": (select_scatter, (3,), lambda g: g[:, 0]),
    "index_copy": (index_copy, (2, 4), lambda g: g[index_copy_index()]),
    "masked_scatter": (masked_scatter, (3, 4), _read_masked),
    "scatter": (scatter, (3, 2), _read_scatter),
}

# --- operators with a mutable argument (tt_gt_ops.cpp: tt_gt_mut*) ---------
# The compiled caller makes the target, m = zeros(target_shape(id)), and calls
# the operator, which writes src into it; then it reads m.requires_grad.
# id -> (source shape, read, call):
#   "mutable"     op(m, src), schema (Tensor(a!) m, Tensor src) -> ()
#   "kwonly"      op(src, out=m), schema (Tensor src, *, Tensor(a!) out) -> ()
#   "functional"  m = op(m, src), schema (Tensor m, Tensor src) -> Tensor: the
#                 functional twin, which returns the written copy
MUTABLE_FORMS = {
    **{f: (FORMS[f][1], FORMS[f][2], "mutable") for f in FORMS if f.endswith("_")},
    "copy_": ((3, 4), lambda g: g, "mutable"),  # m.copy_(src), the whole tensor
    "fill_": ((), lambda g: g.sum(), "mutable"),  # m.fill_(src), src 0-dim
    "add_": ((3, 4), lambda g: g, "mutable"),  # m.add_(src)
    # out.narrow(0, 1, 2).copy_(src) into a keyword-only argument
    "kwonly_out_": ((2, 4), _read_rows_1_3, "kwonly"),
    # the narrow write, schema (Tensor(a!) m, Tensor src) -> Tensor(a!)
    "returns_alias_": ((2, 4), _read_rows_1_3, "mutable"),
    **{f: (FORMS[f][1], FORMS[f][2], "functional") for f in FORMS if not f.endswith("_")},
}


# --- in-place arithmetic (issue 39), the python path only ------------------
# A fresh zeros(3, 4) target written by an in-place value op with `src` (which
# requires grad) as its operand: through narrow(0, 1, 2), through select(0, 1),
# through a named view (w = m[1:3]), or into the whole tensor. masked_fill_
# takes a 0-dim value (src.sum()), clamp_ a tensor min. tt_gt_ops.cpp has no
# twins: only the python path measures them (python_view_arith).

def _arith(op, view):
    def write(src):
        m = torch.zeros(3, 4)
        if view == "narrow":
            w = m.narrow(0, 1, 2)
        elif view == "select":
            w = m.select(0, 1)
        elif view == "named":
            w = m[1:3]
        else:
            w = m
        if op == "masked_fill_":
            w.masked_fill_(w.eq(0), src.sum())
        elif op == "clamp_":
            w.clamp_(min=src)
        else:
            getattr(w, op)(src)
        return m
    return write


_ARITH_SHAPE = {"narrow": (2, 4), "select": (4,), "named": (2, 4), "whole": (3, 4)}
ARITH_OPS = ["add_", "sub_", "mul_", "div_", "clamp_", "masked_fill_"]
ARITH_VIEWS = ["narrow", "select", "named", "whole"]
# id "<view>_<op>" -> (write, source shape)
VIEW_ARITH_FORMS = {f"{view}_{op}": (_arith(op, view), _ARITH_SHAPE[view])
                    for view in ARITH_VIEWS for op in ARITH_OPS}


def target_shape(form):
    return (2, 4, 4) if form in ("setitem_adv_", "index_put") else (3, 4)


IN_PLACE = [f for f in FORMS if f.endswith("_")]
FIXES = [f for f in FORMS if not f.endswith("_")]


def op_name(form):
    """The C++ operator name for a form (see tt_gt_ops.cpp)."""
    return form[:-1] + "_inplace" if form.endswith("_") else form


# --- what the Python front end flags beyond the forms above (issue 60) -----
# The python path only (python_more): a write through a chain of views
# (narrow, then select), a basic slice of rows and a column, and the seed's
# setitem into targets made by other factories than torch.zeros. No C++
# twins. id -> (write, source shape)

def chain_copy_(src):
    m = torch.zeros(3, 4)
    m.narrow(0, 1, 2).select(1, 0).copy_(src)
    return m


def setitem_rows_col_(src):
    m = torch.zeros(3, 4)
    m[1:3, 0] = src
    return m


def _target(make):
    """m = make(src), then written through a view: a form every version
    measured loses on a torch.zeros target, so that the row tells whether
    this way of making the target loses the flag too."""
    def write(src):
        m = make(src)
        m.narrow(0, 1, 2).copy_(src)
        return m
    return write


# --- issue 78: more forms real training code writes ------------------------

def index_add_(src):
    m = torch.zeros(3, 4)
    m.index_add_(0, index_copy_index(), src)
    return m


def scatter_add_(src):
    m = torch.zeros(3, 4)
    m.scatter_add_(1, scatter_index(), src)
    return m


def index_put_(src):
    m = torch.zeros(3, 4)
    m.index_put_((torch.tensor([0, 2]), torch.tensor([1, 3])), src)
    return m


def setitem_augmented_(src):
    m = torch.zeros(3, 4)
    m[1:3] += src
    return m


def setitem_mask_(src):
    m = torch.zeros(3, 4)
    m[masked_scatter_mask()] = src
    return m


def chained_inplace_(src):
    m = torch.zeros(3, 4)
    m.mul_(2).add_(src)
    return m


def whole_copy_(src):
    m = torch.empty(3, 4)
    m.copy_(src)
    return m


def bound_result_(src):
    # The flag is read on what the in-place method returned, not on m.
    m = torch.zeros(3, 4)
    out = m.index_copy_(0, index_copy_index(), src)
    return out


# id -> (write, source shape). The targets have 3 rows or more, written in
# rows 1 and 2 by _target; the *_like ones are made from a tensor that
# requires grad (torch.cat([src, src])), as real code makes them.
PYTHON_MORE_FORMS = {
    "chain_copy_": (chain_copy_, (2,)),
    "setitem_rows_col_": (setitem_rows_col_, (2,)),
    "index_add_": (index_add_, (2, 4)),
    "scatter_add_": (scatter_add_, (3, 2)),
    "index_put_": (index_put_, (2,)),
    "setitem_augmented_": (setitem_augmented_, (2, 4)),
    "setitem_mask_": (setitem_mask_, (4,)),
    "chained_inplace_": (chained_inplace_, (3, 4)),
    "whole_copy_": (whole_copy_, (3, 4)),
    "bound_result_": (bound_result_, (2, 4)),
    "new_zeros_target_": (_target(lambda s: s.new_zeros(3, 4)), (2, 4)),
    "zeros_like_target_": (_target(lambda s: torch.zeros_like(torch.cat([s, s]))), (2, 4)),
    "empty_target_": (_target(lambda s: torch.empty(3, 4)), (2, 4)),
    "ones_target_": (_target(lambda s: torch.ones(3, 4)), (2, 4)),
    "tensor_target_": (_target(lambda s: torch.tensor([[0.0] * 4] * 3)), (2, 4)),
    "clone_target_": (_target(lambda s: torch.zeros(3, 4).clone()), (2, 4)),
    "new_empty_target_": (_target(lambda s: s.new_empty(3, 4)), (2, 4)),
    "new_ones_target_": (_target(lambda s: s.new_ones(3, 4)), (2, 4)),
    "new_full_target_": (_target(lambda s: s.new_full((3, 4), 0.5)), (2, 4)),
    "empty_like_target_": (_target(lambda s: torch.empty_like(torch.cat([s, s]))), (2, 4)),
    "ones_like_target_": (_target(lambda s: torch.ones_like(torch.cat([s, s]))), (2, 4)),
    "full_target_": (_target(lambda s: torch.full((3, 4), 0.5)), (2, 4)),
    "eye_repeat_target_": (_target(lambda s: torch.eye(2).repeat(3, 2)), (2, 4)),
    "to_device_target_": (_target(lambda s: torch.zeros(3, 4).to(s.device)), (2, 4)),
    "fill_target_": (_target(lambda s: torch.empty(3, 4).fill_(0)), (2, 4)),
}


# --- what reads the flag (issue 78; consumers.py) -------------------------
# Every in-place form the Python front end reports, by id: the writes above,
# their source shapes, in a table of their own order.
PYTHON_WRITES = {
    **{f: (FORMS[f][0], FORMS[f][1]) for f in FORMS if f.endswith("_")},
    **{f: w for f, w in PYTHON_MORE_FORMS.items() if not f.endswith("_target_")
       and f != "bound_result_"},
    **VIEW_ARITH_FORMS,
}
