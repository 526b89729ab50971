"""What reads the stale flag in real code (issue 78), in Python.

In training code the reader of a written tensor's requires_grad is rarely a
`.requires_grad` in user code: it is Dynamo itself, where the tensor (or a
value computed from it) reaches a custom torch.autograd.Function's apply.
Dynamo decides from its own copy of the inputs' requires_grad how to trace
the Function: where no input seems to require grad it traces the forward
inline and never runs the backward; where another input does, it runs the
backward with ctx.needs_input_grad False for the written one.

Each consumer below takes the written target `m` (a forms.py write of `src`,
which requires grad) and returns a tensor; measure.py compares the gradient
of `src` through sum(out * w) with the uncompiled run. The Functions are
what real ones are like: a backward that is not the derivative of the
forward as traced (a quantizer passed straight through), a forward that is
not differentiable at all (an opaque kernel or a collective), a backward
that asks ctx.needs_input_grad which gradients to compute.

  function             RoundSTE.apply(m): forward rounds, backward passes
                       the gradient through (int8/fp8 matmuls, quantizers)
  function_opaque      OpaqueDouble.apply(m): the forward's result is not
                       differentiable by itself (a custom kernel, an
                       all-to-all), the backward gives the gradient
  function_needs_grad  ScaleByWeight.apply(m, WEIGHT), WEIGHT a leaf that
                       requires grad, the backward computes a gradient only
                       where ctx.needs_input_grad says so
  function_ignores_needs_grad  the same Function with a backward that
                       returns both gradients whatever ctx says (control)
  function_derived     RoundSTE.apply(m * 2 + 1): a value computed from m
  checkpoint_function  torch.utils.checkpoint.checkpoint(f, m,
                       use_reentrant=False), f applying OpaqueDouble (whose
                       loss shows for every form: a write of a product into
                       zeros has a zero gradient, which RoundSTE's straight-
                       through backward and its traced forward agree on)
  checkpoint_function_reentrant  the same with use_reentrant=True
  custom_op            torch.library.custom_op with register_autograd (the
                       same rounding, the gradient straight through): the
                       form torch recommends for an opaque kernel (control)
  dist_all_reduce      torch.distributed.nn.functional.all_reduce(m), and
  dist_all_to_all_single  ...all_to_all_single(torch.empty_like(m), m): the
                       collectives expert-parallel code calls, autograd
                       Functions of torch's own (a one-process gloo group)
FLAG_READS are flag paths: the compiled function reads requires_grad of
m * 2 + 1, m.grad_fn or m.is_leaf and branches on it, as the python path
does on m.requires_grad.
"""

import tempfile

import torch
import torch.distributed as dist
import torch.distributed.nn.functional as dist_nn
import torch.utils.checkpoint


class RoundSTE(torch.autograd.Function):
    """Rounds to halves; the backward passes the gradient straight through."""

    @staticmethod
    def forward(ctx, x):
        return torch.round(x * 2) / 2

    @staticmethod
    def backward(ctx, grad):
        return grad


class OpaqueDouble(torch.autograd.Function):
    """2 * x, computed where autograd does not see it (detach stands for a
    custom kernel or a collective); the backward gives the gradient."""

    @staticmethod
    def forward(ctx, x):
        return x.detach() * 2

    @staticmethod
    def backward(ctx, grad):
        return grad * 2


class ScaleByWeight(torch.autograd.Function):
    """x * w, each gradient computed only where ctx.needs_input_grad asks."""

    @staticmethod
    def forward(ctx, x, w):
        ctx.save_for_backward(x, w)
        return x * w

    @staticmethod
    def backward(ctx, grad):
        x, w = ctx.saved_tensors
        grad_x = grad * w if ctx.needs_input_grad[0] else None
        grad_w = grad * x if ctx.needs_input_grad[1] else None
        return grad_x, grad_w


class ScaleByWeightAlways(torch.autograd.Function):
    """x * w, both gradients computed whatever ctx.needs_input_grad says."""

    @staticmethod
    def forward(ctx, x, w):
        ctx.save_for_backward(x, w)
        return x * w

    @staticmethod
    def backward(ctx, grad):
        x, w = ctx.saved_tensors
        return grad * w, grad * x


@torch.library.custom_op("tt_gt_py::round_ste", mutates_args=())
def round_ste(x: torch.Tensor) -> torch.Tensor:
    return torch.round(x * 2) / 2


@round_ste.register_fake
def _round_ste_fake(x):
    return torch.empty_like(x)


def _round_ste_backward(ctx, grad):
    return grad


round_ste.register_autograd(_round_ste_backward)


def weight(shape):
    """The other input of the two-input Functions: a leaf that requires
    grad (a module's parameter), the same values every time."""
    n = torch.Size(shape).numel()
    return torch.linspace(0.5, 1.5, n).view(shape).requires_grad_()


def _opaque_applied(t):
    return OpaqueDouble.apply(t)


def function(m):
    return RoundSTE.apply(m)


def function_opaque(m):
    return OpaqueDouble.apply(m)


def function_derived(m):
    return RoundSTE.apply(m * 2 + 1)


def checkpoint_function(m):
    return torch.utils.checkpoint.checkpoint(_opaque_applied, m, use_reentrant=False)


def checkpoint_function_reentrant(m):
    return torch.utils.checkpoint.checkpoint(_opaque_applied, m, use_reentrant=True)


def custom_op(m):
    return round_ste(m)


def _process_group():
    """One process, gloo: the collectives run (and are identities)."""
    if not dist.is_initialized():
        dist.init_process_group("gloo", init_method="file://" + tempfile.mktemp(
            prefix="tt-gt-group-"), rank=0, world_size=1)


def dist_all_reduce(m):
    return dist_nn.all_reduce(m)


def dist_all_to_all_single(m):
    return dist_nn.all_to_all_single(torch.empty_like(m), m)


def with_weight(function_class):
    """A consumer (m, w) -> function_class.apply(m, w)."""
    def consume(m, w):
        return function_class.apply(m, w)
    return consume


# path -> consumer(m) or, for the two-input Functions, consumer(m, w)
CONSUMERS = {
    "python_function": function,
    "python_function_opaque": function_opaque,
    "python_function_needs_grad": with_weight(ScaleByWeight),
    "python_function_ignores_needs_grad": with_weight(ScaleByWeightAlways),
    "python_function_derived": function_derived,
    "python_checkpoint_function": checkpoint_function,
    "python_checkpoint_function_reentrant": checkpoint_function_reentrant,
    "python_custom_op": custom_op,
    "python_dist_all_reduce": dist_all_reduce,
    "python_dist_all_to_all_single": dist_all_to_all_single,
}
DIST = {"python_dist_all_reduce", "python_dist_all_to_all_single"}
TWO_INPUTS = {"python_function_needs_grad", "python_function_ignores_needs_grad"}


def derived(m):
    return m * 2 + 1


# Flag paths beside the python path's read of m.requires_grad: the same read
# on a value computed from m, and the other attributes that tell whether a
# tensor takes part in autograd. path -> (what is read, m -> the flag).
FLAG_READS = {
    "python_flag_derived": ("(m * 2 + 1).requires_grad", lambda m: derived(m).requires_grad),
    "python_flag_grad_fn": ("m.grad_fn is not None", lambda m: m.grad_fn is not None),
    "python_flag_is_leaf": ("not m.is_leaf", lambda m: not m.is_leaf),
}
