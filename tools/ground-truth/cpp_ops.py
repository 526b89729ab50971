"""Builds tt_gt_ops.cpp once per torch version and completes the CPU control ops.

The build directory lives in the cache (keyed by torch version), never in the
source tree, so a second run only loads the shared library.
"""

import os

import torch
import torch.utils.cpp_extension

import extension_build
import forms

HERE = os.path.dirname(os.path.abspath(__file__))


def load(cache_root):
    """Loads the ops into torch.ops.tt_gt*; returns the registration errors.

    The result maps "ns::op" to the class name of the error that
    torch.library raised while completing it (register_autograd refuses
    operators with a mutable argument), for the table's error column.
    """
    build = os.path.join(cache_root, "ground-truth-build", "torch-" + torch.__version__)
    os.makedirs(build, exist_ok=True)
    extension_build.load(torch, "tt_gt_ops", build, [os.path.join(HERE, "tt_gt_ops.cpp")])
    for form in forms.FORMS:
        _complete_cpu_op(form)
    errors = {}
    for form in forms.MUTABLE_FORMS:
        _complete_mutable_cpu_op("tt_gt_mut_cpu", form, with_autograd=False)
        _complete_mutable_cpu_op("tt_gt_mut_cea", form, with_autograd=False)
        try:
            _complete_mutable_cpu_op("tt_gt_mut_cpu_ag", form, with_autograd=True)
        except RuntimeError as e:
            errors["tt_gt_mut_cpu_ag::" + forms.op_name(form)] = type(e).__name__
    return errors


def _complete_cpu_op(form):
    """Gives tt_gt_cpu::<op> a fake kernel (for tracing) and an autograd formula.

    The C++ body computes y = 2*m and z = 3*y, so dL/dm = 2*gy + 6*gz, and the
    gradient of src is that read back at the written positions.
    """
    qualname = "tt_gt_cpu::" + forms.op_name(form)
    shape = forms.target_shape(form)
    read = forms.FORMS[form][2]

    def fake(src):
        flag = src.new_empty((), dtype=torch.bool)
        return src.new_empty(shape), src.new_empty(shape), flag, flag.clone()

    def setup_context(ctx, inputs, output):
        pass

    def backward(ctx, gy, gz, gflag, gbranch):
        gm = 0
        if gy is not None:
            gm = gm + 2 * gy
        if gz is not None:
            gm = gm + 6 * gz
        return read(gm)

    torch.library.register_fake(qualname)(fake)
    torch.library.register_autograd(qualname, backward, setup_context=setup_context)


def _complete_mutable_cpu_op(namespace, form, with_autograd):
    """Gives a mutable-argument CPU op (or its functional twin) a fake kernel
    and, with_autograd, a formula: the gradient of src is the written
    positions of the output's gradient read back."""
    qualname = namespace + "::" + forms.op_name(form)
    _, read, call = forms.MUTABLE_FORMS[form]

    if call == "functional":
        def fake(m, src):
            return torch.empty_like(m)
    elif call == "kwonly":
        def fake(src, *, out):
            return None
    elif form == "returns_alias_":
        def fake(m, src):
            return m
    else:
        def fake(m, src):
            return None

    torch.library.register_fake(qualname)(fake)
    if not with_autograd:
        return

    def setup_context(ctx, inputs, output):
        pass

    def backward(ctx, *grads):
        g = grads[0]
        return (None, read(g)) if call != "kwonly" else (read(g), None)

    torch.library.register_autograd(qualname, backward, setup_context=setup_context)
