"""Runs every reproducer under one torch (the interpreter's) and prints JSON rows.

Run with a venv's python: `python measure.py [--out FILE] [--only PATH]`.
`--device cuda` (GPU machines) makes every tensor a CUDA tensor (the default
device), so the C++ operator runs with CUDA tensors; the CPU-key control
path has no CUDA kernel and is left out, and rows carry "device": "cuda".
One row per (path, form, backend); see ground_truth.py for the columns.

Every case returns the same four things from inside the region:
  y       = 2 * m, where m is the written target (no branch involved);
  z       = 3 * y if the code saw requires_grad, else (3 * y).detach();
  flag    = the requires_grad value the code read after the write;
  branch  = which way the branch went.
The loss sum(y * w1) + sum(z * w2) then shows whether gradients survive.

The mutable-argument paths add two observations, each made apart from the
four above (so those stay what they were):
  grad     a second compiled caller writes through the operator and returns
           sum(m * w), a loss that uses the written buffer and no flag;
           src.grad after backward, against the uncompiled run: "same",
           "differs", or "none" (no gradient reached src); the uncompiled
           row says "computed" or "none";
  opcheck  torch.library.opcheck's verdict on the operator, all its default
           tests, on the uncompiled row only: "pass", or the first failing
           test and the first line of its message (other failing tests
           follow as "+ name").

The consumer paths (consumers.CONSUMERS, issue 78) read no flag: the written
target goes to what reads it in real code (an autograd.Function's apply,
directly, through a value computed from it or through checkpoint; the
collectives of torch.distributed.nn; a custom op as the control) and the
loss is sum(out * w). Their rows have rg_output,
grads_equal (src.grad against the uncompiled run's) and the grad column as
above ("computed" uncompiled; "same", "differs" or "none" compiled).
The flag paths of consumers.FLAG_READS read m.grad_fn, m.is_leaf or the
requires_grad of a value computed from m instead of m.requires_grad.
"""

import argparse
import contextlib
import hashlib
import io
import json
import logging
import os
import re
import sys
import warnings


def cache_root():
    """$TORCH_TIDY_CACHE, else the bootstrap's cache (~/.cache/torch-tidy)."""
    return os.environ.get("TORCH_TIDY_CACHE") or os.path.join(
        os.environ.get("XDG_CACHE_HOME") or os.path.expanduser("~/.cache"), "torch-tidy")


def sources_digest():
    """Hash of the reproducers' sources.

    The compile caches key a custom op's graph by its name, not by the Python
    autograd formula registered for it, so an edited formula would be served
    from a stale cache; one cache per version of the sources avoids that.
    """
    here = os.path.dirname(os.path.abspath(__file__))
    digest = hashlib.sha256()
    for name in ("forms.py", "measure.py", "cpp_ops.py", "tt_gt_ops.cpp", "consumers.py"):
        with open(os.path.join(here, name), "rb") as f:
            digest.update(name.encode() + b"\0" + f.read())
    return digest.hexdigest()[:16]


# Inductor's compiled kernels are cached across runs (set before torch is
# imported, so every part of inductor sees it); a warm cache keeps the check fast.
os.environ.setdefault("TORCHINDUCTOR_CACHE_DIR",
                      os.path.join(cache_root(), "inductor", sources_digest()))

import torch  # noqa: E402
import torch._dynamo  # noqa: E402

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import consumers  # noqa: E402
import cpp_ops  # noqa: E402
import forms  # noqa: E402

BACKENDS = ["none", "eager", "aot_eager", "inductor"]
PATHS = ["python", "cpp_composite", "cpp_cpu_autograd", "autograd_function",
         "cpp_mutable_composite", "cpp_mutable_cpu_autograd", "cpp_mutable_cpu",
         "cpp_mutable_explicit", "python_view_arith", "python_more",
         *consumers.FLAG_READS, *consumers.CONSUMERS]
# The mutable-argument paths and the namespace of their operators.
MUTABLE_PATHS = {"cpp_mutable_composite": "tt_gt_mut",
                 "cpp_mutable_cpu_autograd": "tt_gt_mut_cpu_ag",
                 "cpp_mutable_cpu": "tt_gt_mut_cpu",
                 "cpp_mutable_explicit": "tt_gt_mut_cea"}
# Registration errors by "ns::op" (cpp_ops.load fills it).
REGISTRATION_ERRORS = {}


def branch_on_flag(m, read=None):
    """User code after the write: read the flag (m.requires_grad, or what
    `read` reads), skip the grad path if false."""
    rg = m.requires_grad if read is None else read(m)
    y = m * 2
    if rg:
        z = y * 3
    else:
        z = (y * 3).detach()
    # In Python the branch is the flag itself; C++ and autograd_function differ.
    return y, z, torch.tensor(rg), torch.tensor(rg)


class FlagProbe(torch.autograd.Function):
    """Doubles x; reports the requires_grad it saw on its input.

    Dynamo decides how to trace an autograd.Function from its inputs'
    requires_grad (pytorch/pytorch#160901): a stale false means the Function is
    traced as if no gradient were needed.
    """

    @staticmethod
    def forward(ctx, x):
        seen = torch.tensor(x.requires_grad)
        ctx.mark_non_differentiable(seen)
        return x * 2, seen

    @staticmethod
    def backward(ctx, gy, gseen):
        return gy * 2


def mutable_region(namespace, form):
    """A compiled caller that owns a fresh buffer, hands it to a C++ operator
    that writes into it (or, for a functional twin, takes the result), and
    then reads the buffer's requires_grad."""
    _, write = mutable_call(namespace, form)

    def region(src):
        return branch_on_flag(write(src))
    return region


def mutable_call(namespace, form):
    """(op, call(src) -> the written buffer) for one mutable-argument form."""
    op = getattr(getattr(torch.ops, namespace), forms.op_name(form))
    shape = forms.target_shape(form)
    call = forms.MUTABLE_FORMS[form][2]

    def write(src):
        m = torch.zeros(shape)
        if call == "functional":
            return op(m, src)
        if call == "kwonly":
            op(src, out=m)
        else:
            op(m, src)
        return m
    return op, write


def buffer_loss_region(namespace, form):
    """A compiled caller whose loss uses the buffer the operator wrote, with
    no branch on the flag: does a gradient reach src at all?"""
    _, write = mutable_call(namespace, form)

    def region(src):
        m = write(src)
        w = torch.linspace(-1.0, 1.0, m.numel()).view_as(m)
        return (m * w).sum()
    return region


def buffer_grad(path, form, backend):
    """src.grad after backward through buffer_loss_region, or None."""
    torch._dynamo.reset()
    torch.manual_seed(0)
    src = torch.randn(source_shape(path, form), requires_grad=True)
    fn = buffer_loss_region(MUTABLE_PATHS[path], form)
    if backend != "none":
        fn = torch.compile(fn, backend=backend)
    loss = fn(src)
    if not loss.requires_grad:
        return None
    loss.backward()
    return src.grad


def grad_cell(grad, eager):
    """The grad column: this backend's src.grad against the uncompiled one."""
    if grad is None:
        return "none"
    if eager is None:
        return "differs"
    return "same" if grads_equal(grad, eager) else "differs"


def first_line(e):
    """The first line of an exception's message, without addresses; where
    it only introduces what follows ("backend='aot_eager' raised:"), the
    next line too, which names the error."""
    lines = [l.strip() for l in str(e).strip().splitlines() if l.strip()] or \
        [type(e).__name__]
    line = lines[0]
    if line.endswith(":") and len(lines) > 1:
        line = f"{line} {lines[1]}"
    line = re.sub(r"0x[0-9a-fA-F]+", "0x...", line)
    return re.sub(r"(/[\w.+-]+){2,}", "<path>", line)[:200]


def opcheck_verdict(path, form):
    """torch.library.opcheck with its default tests on this path's operator."""
    op, _ = mutable_call(MUTABLE_PATHS[path], form)
    torch.manual_seed(0)
    src = torch.randn(source_shape(path, form), requires_grad=True)
    m = torch.zeros(forms.target_shape(form))
    if forms.MUTABLE_FORMS[form][2] == "kwonly":
        args, kwargs = (src,), {"out": m}
    else:
        args, kwargs = (m, src), {}
    results = torch.library.opcheck(op, args, kwargs, raise_exception=False)
    failed = [(test, r) for test, r in results.items() if r != "SUCCESS"]
    if not failed:
        return "pass"
    test, err = failed[0]
    return " + ".join([f"{test}: {first_line(err)}"] + [t for t, _ in failed[1:]])


def forms_of(path):
    if path in MUTABLE_PATHS:
        return list(forms.MUTABLE_FORMS)
    if path == "autograd_function":
        return ["setitem_adv_", "index_put"]  # the Function's shape needs only these
    if path == "python_view_arith":
        return list(forms.VIEW_ARITH_FORMS)
    if path == "python_more":
        return list(forms.PYTHON_MORE_FORMS)
    if path in consumers.FLAG_READS or path in consumers.CONSUMERS:
        return list(forms.PYTHON_WRITES)
    return list(forms.FORMS)


def source_shape(path, form):
    if path == "python_view_arith":
        return forms.VIEW_ARITH_FORMS[form][1]
    if path == "python_more":
        return forms.PYTHON_MORE_FORMS[form][1]
    if path in consumers.FLAG_READS or path in consumers.CONSUMERS:
        return forms.PYTHON_WRITES[form][1]
    table = forms.MUTABLE_FORMS if path in MUTABLE_PATHS else forms.FORMS
    return table[form][1] if table is forms.FORMS else table[form][0]


def region_for(path, form):
    """The function that torch.compile sees, for one path and form."""
    if path in MUTABLE_PATHS:
        return mutable_region(MUTABLE_PATHS[path], form)
    if path == "python_view_arith":
        arith = forms.VIEW_ARITH_FORMS[form][0]
        return lambda src: branch_on_flag(arith(src))
    if path == "python_more":
        more = forms.PYTHON_MORE_FORMS[form][0]
        return lambda src: branch_on_flag(more(src))
    if path in consumers.FLAG_READS:
        write = forms.PYTHON_WRITES[form][0]
        read = consumers.FLAG_READS[path][1]
        return lambda src: branch_on_flag(write(src), read)
    write = forms.FORMS[form][0]
    if path == "python":
        return lambda src: branch_on_flag(write(src))
    if path == "cpp_composite":
        return getattr(torch.ops.tt_gt, forms.op_name(form))
    if path == "cpp_cpu_autograd":
        return getattr(torch.ops.tt_gt_cpu, forms.op_name(form))
    if path == "autograd_function":
        def region(src):
            y, seen = FlagProbe.apply(write(src))
            # The caller branches on the Function's output, as user code would.
            z = y * 3 if y.requires_grad else (y * 3).detach()
            return y, z, seen, torch.tensor(y.requires_grad)
        return region
    raise ValueError(path)


def run_once(path, form, backend):
    """Returns (flag, branch, y.requires_grad, src.grad or None)."""
    torch._dynamo.reset()
    torch.manual_seed(0)
    src = torch.randn(source_shape(path, form), requires_grad=True)
    fn = region_for(path, form)
    if backend != "none":
        fn = torch.compile(fn, backend=backend)
    y, z, flag, branch = fn(src)
    w1 = torch.linspace(-1.0, 1.0, y.numel()).view_as(y)
    w2 = torch.linspace(0.5, 1.5, z.numel()).view_as(z)
    loss = (y * w1).sum() + (z * w2).sum()
    grad = None
    if loss.requires_grad:
        loss.backward()
        grad = src.grad
    return bool(flag), bool(branch), bool(y.requires_grad), grad


def consumer_once(path, form, backend):
    """A consumer path (consumers.py): the written target handed to the
    consumer, the loss sum(out * w) with no flag read. Returns
    (out.requires_grad, src.grad or None)."""
    torch._dynamo.reset()
    torch.manual_seed(0)
    src = torch.randn(source_shape(path, form), requires_grad=True)
    write = forms.PYTHON_WRITES[form][0]
    consume = consumers.CONSUMERS[path]
    if path in consumers.DIST:
        consumers._process_group()
    if path in consumers.TWO_INPUTS:
        shape = write(src.detach()).shape
        w = consumers.weight(shape)

        def fn(s):
            return consume(write(s), w)
    else:
        def fn(s):
            return consume(write(s))
    if backend != "none":
        fn = torch.compile(fn, backend=backend)
    out = fn(src)
    grad = None
    if out.requires_grad:
        weights = torch.linspace(-1.0, 1.0, out.numel()).view_as(out)
        (out * weights).sum().backward()
        grad = src.grad
    return bool(out.requires_grad), grad


def grads_equal(a, b):
    if a is None or b is None:
        return a is None and b is None
    return a.shape == b.shape and torch.allclose(a, b, rtol=1e-5, atol=1e-6)


def cases_of(paths):
    """Every (path, form) measure() runs for these paths, in its order."""
    return [(path, form) for path in paths for form in forms_of(path)]


def measure(paths, device="cpu", cases=None):
    """Rows for every (path, form) of paths, or for those of `cases` only."""
    version = torch.__version__.split("+")[0]
    rows = []
    for path, form in cases_of(paths):
        if cases is not None and (path, form) not in cases:
            continue
        eager = None
        registration_error = None
        if path in MUTABLE_PATHS:
            registration_error = REGISTRATION_ERRORS.get(
                MUTABLE_PATHS[path] + "::" + forms.op_name(form))
        eager_grad = None
        for backend in BACKENDS:
            row = {"torch": version, "path": path, "form": form, "backend": backend,
                   "rg_inside": None, "rg_output": None, "wrong_branch": None,
                   "grads_equal": None, "error": None, "grad": None, "opcheck": None}
            if device != "cpu":
                row["device"] = device
            if registration_error:  # torch.library refused the operator
                row["error"] = registration_error + "@register_autograd"
                rows.append(row)
                continue
            if path in MUTABLE_PATHS:
                try:
                    grad = buffer_grad(path, form, backend)
                    if backend == "none":
                        eager_grad = grad
                        row["grad"] = "none" if grad is None else "computed"
                    else:
                        row["grad"] = grad_cell(grad, eager_grad)
                except Exception as e:
                    row["grad"] = "error: " + type(e).__name__
                    row["error_message"] = first_line(e)
                if backend == "none":
                    try:
                        row["opcheck"] = opcheck_verdict(path, form)
                    except Exception as e:  # opcheck itself could not run
                        row["opcheck"] = "error: " + type(e).__name__
                        row["opcheck_error_message"] = first_line(e)
            if path in consumers.CONSUMERS:
                try:
                    rg_out, grad = consumer_once(path, form, backend)
                except Exception as e:  # a graph break, compile error, ...
                    row["error"] = type(e).__name__
                    row["error_message"] = first_line(e)
                    rows.append(row)
                    continue
                if backend == "none":
                    eager_grad = grad
                    row["grad"] = "none" if grad is None else "computed"
                else:
                    row["grad"] = grad_cell(grad, eager_grad)
                    row["grads_equal"] = grads_equal(grad, eager_grad)
                row["rg_output"] = rg_out
                rows.append(row)
                print(f"{path:18} {form:20} {backend:10} {row}", file=sys.stderr, flush=True)
                continue
            try:
                flag, branch, rg_out, grad = run_once(path, form, backend)
            except Exception as e:  # a graph break, compile error, ...: record it
                # The class name is the table's cell; the message's first line
                # (addresses masked) says whether torch or the reproducer is
                # at fault.
                row["error"] = type(e).__name__
                row["error_message"] = first_line(e)
                rows.append(row)
                continue
            if backend == "none":
                eager = (branch, grad)
            row["rg_inside"] = flag
            row["rg_output"] = rg_out
            if eager is not None:
                row["wrong_branch"] = branch != eager[0]
                row["grads_equal"] = grads_equal(grad, eager[1])
            rows.append(row)
            print(f"{path:18} {form:20} {backend:10} {row}", file=sys.stderr, flush=True)
    return rows


def inferred_schemas():
    """What LibTorch infers for m.def(name, fn) from C++ signatures
    (tt_gt_ops.cpp's tt_gt_infer): which arguments it declares mutable."""
    return {name: str(getattr(torch.ops.tt_gt_infer, name).default._schema)
            for name in ("ref_arg", "const_ref_arg", "returns_ref")}


def quiet():
    """Compile warnings and logs are noise for a table; keep stderr readable."""
    warnings.filterwarnings("ignore")
    logging.getLogger("torch").setLevel(logging.ERROR)
    torch._logging.set_logs(all=logging.ERROR)


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--out", help="write the JSON rows here (default: stdout)")
    ap.add_argument("--only", action="append", choices=PATHS, help="measure only these paths")
    ap.add_argument("--device", choices=["cpu", "cuda"], default="cpu",
                    help="where the tensors live (default: cpu)")
    ap.add_argument("--cases", help="a JSON list of [path, form]: measure only these")
    args = ap.parse_args()
    paths = args.only or PATHS
    if args.device == "cuda":
        if not torch.cuda.is_available():
            sys.exit("measure: --device cuda, but torch %s sees no CUDA device" % torch.__version__)
        torch.set_default_device("cuda")
        paths = [p for p in paths if p not in ("cpp_cpu_autograd", "cpp_mutable_cpu_autograd",
                                               "cpp_mutable_cpu")]
    cases = None
    if args.cases:
        with open(args.cases) as f:
            cases = {tuple(c) for c in json.load(f)}
    quiet()
    with contextlib.redirect_stdout(io.StringIO()):  # the extension build chatters
        REGISTRATION_ERRORS.update(cpp_ops.load(cache_root()))
    result = {"torch": torch.__version__.split("+")[0],
              "inferred_schemas": inferred_schemas(),
              "rows": measure(paths, args.device, cases)}
    text = json.dumps(result, indent=1)
    if args.out:
        with open(args.out, "w") as f:
            f.write(text + "\n")
    else:
        print(text)


if __name__ == "__main__":
    main()
