#!/usr/bin/env python3
"""Ground truth for torch-op-undeclared-mutation: operators whose kernels write
into arguments their schema does or does not declare mutable.

One generator, three uses:

  undeclared_mutation.py generate OUT.cpp [--ns PREFIX]
      writes the C++ operators (standard library only): every write form
      below x dispatch key (CompositeImplicitAutograd, CPU, CPU with a Python
      autograd formula) x declared (`Tensor(a!) m`) / undeclared (`Tensor m`).
  VENV/bin/python undeclared_mutation.py measure --out ROWS.json SRC.cpp...
      builds the sources with torch.utils.cpp_extension and, per operator,
      records torch.library.opcheck's test_schema verdict and whether
      torch.compile (eager, aot_eager, inductor; fullgraph) gives the values
      of the uncompiled call.
  undeclared_mutation.py write|check|static|fixes ...
      the driver (standard library): see --help of each.

The committed table is docs/ground-truth-mutation.json; its reading is in
docs/checks/torch-op-undeclared-mutation.md.
"""

import argparse
import json
import os
import re
import shutil
import subprocess
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
import extension_build  # noqa: E402
import sampling  # noqa: E402
ROOT = os.path.dirname(os.path.dirname(HERE))
JSON_PATH = os.path.join(ROOT, "docs", "ground-truth-mutation.json")
DOC_PATH = os.path.join(ROOT, "docs", "checks", "torch-op-undeclared-mutation.md")
CHECK = "torch-op-undeclared-mutation"
SKIP_CODE = 77
BACKENDS = ["eager", "aot_eager", "inductor"]
# Each backend runs twice: with inputs that do not require grad (the shape of
# the reported case) and with x.requires_grad (autograd traced too).
COLUMNS = BACKENDS + [b + "_grad" for b in BACKENDS]

# name -> (the kernel's `m` parameter, body, what it does to m: True when it
# writes into m's values, "alias" when it returns m or a view of it,
# "write_alias" when both, False when neither). `m` is a float [4, 3] tensor, `v` a float [2, 3] tensor; every body
# returns a tensor.
FORMS = {
    "index_put": ("at::Tensor &m", [
        "m.index_put_({Slice(0, v.size(0))}, v);",
        "return m.sum();"], True),
    "index_assign": ("const at::Tensor &m", [
        "m.index({Slice(0, 2)}) = v;",
        "return m.sum();"], True),
    "subscript_assign": ("const at::Tensor &m", [
        "m[0] = v[1];",
        "return m.sum();"], True),
    "narrow_copy": ("const at::Tensor &m", [
        "m.narrow(0, 1, 2).copy_(v);",
        "return m.sum();"], True),
    "named_view_copy": ("const at::Tensor &m", [
        "at::Tensor w = m.select(0, 3);",
        "w.copy_(v[0]);",
        "return m.sum();"], True),
    "copy": ("const at::Tensor &m", [
        "m.copy_(v.repeat({2, 1}));",
        "return m.sum();"], True),
    "fill_scalar": ("const at::Tensor &m", [
        "m.fill_(2);",
        "return v.sum();"], True),
    "zero": ("const at::Tensor &m", [
        "m.zero_();",
        "return v.sum();"], True),
    "mul_scalar": ("const at::Tensor &m", [
        "m.mul_(3);",
        "return m.sum();"], True),
    "add_tensor": ("const at::Tensor &m", [
        "m.add_(v.sum(0));",
        "return m.sum();"], True),
    "compound_assign": ("at::Tensor &m", [
        "m += v.sum(0);",
        "return m.sum();"], True),
    "local_alias": ("const at::Tensor &m", [
        "at::Tensor t = m;",
        "t.sub_(v.sum(0));",
        "return t.sum();"], True),
    "detach_write": ("const at::Tensor &m", [
        "m.detach().mul_(2);",
        "return v.sum();"], True),
    "free_inplace": ("at::Tensor &m", [
        "at::relu_(m);",
        "return m.sum();"], True),
    "out_function": ("at::Tensor &m", [
        "at::neg_out(m, v.repeat({2, 1}));",
        "return m.sum();"], True),
    "helper_write": ("const at::Tensor &m", [
        "writeRows(m, v);",
        "return m.sum();"], True),
    "data_ptr_write": ("const at::Tensor &m", [
        "float *p = m.data_ptr<float>();",
        "p[0] = 7.0f;",
        "return v.sum();"], True),
    "accessor_write": ("const at::Tensor &m", [
        "auto a = m.accessor<float, 2>();",
        "a[1][2] = 7.0f;",
        "return v.sum();"], True),
    "write_and_return": ("const at::Tensor &m", [
        "m.mul_(2);",
        "return m;"], "write_alias"),
    # How extension kernels write (issue 29): raw pointers inside AT_DISPATCH
    # and at::parallel_for lambdas, standard algorithms and C calls, a helper
    # handed a pointer, an out argument written and returned, an optional
    # out argument, and a schema that returns nothing.
    "dispatch_raw_write": ("const at::Tensor &m", [
        "AT_DISPATCH_FLOATING_TYPES(m.scalar_type(), \"w\", [&] {",
        "  scalar_t *p = m.data_ptr<scalar_t>() + 1;",
        "  at::parallel_for(0, 2, 1, [&](int64_t b, int64_t e) {",
        "    for (int64_t i = b; i < e; ++i)",
        "      p[i] += scalar_t(1);",
        "  });",
        "});",
        "return m.sum();"], True),
    "std_iota": ("const at::Tensor &m", [
        "float *p = m.mutable_data_ptr<float>();",
        "std::iota(p + 3, p + 6, 0.0f);",
        "return m.sum();"], True),
    "memset": ("const at::Tensor &m", [
        "std::memset(m.data_ptr<float>(), 0, 3 * sizeof(float));",
        "return v.sum();"], True),
    # A helper that writes the elements of a list of tensors it is handed
    # (issue 47): an init list, a local std::vector converted to
    # at::TensorList.
    "list_helper": ("const at::Tensor &m", [
        "negAll({m.narrow(0, 0, 2), v.clone()});",
        "return m.sum();"], True),
    "tensorlist_helper": ("const at::Tensor &m", [
        "std::vector<at::Tensor> both = {m, v.clone()};",
        "scaleFirst(both);",
        "return m.sum();"], True),
    # A static member function of a class template's dispatch chain, and a
    # custom autograd function's forward reached through F::apply (issue 47).
    "static_helper": ("const at::Tensor &m", [
        "RowDispatch<float>::run(m);",
        "return m.sum();"], True),
    "autograd_apply": ("const at::Tensor &m", [
        "return AddRows::apply(m, v);"], True),
    "pointer_helper": ("const at::Tensor &m", [
        "fillRow(m.data_ptr<float>() + 3, 3);",
        "return m.sum();"], True),
    "raw_write_and_return": ("const at::Tensor &m", [
        "float *p = m.data_ptr<float>();",
        "std::fill(p, p + 3, 2.0f);",
        "return m;"], "write_alias"),
    "optional_out": ("const c10::optional<at::Tensor> &m", [
        "at::Tensor out = m.value().contiguous();",
        "float *o = out.data_ptr<float>();",
        "const float *in = v.const_data_ptr<float>();",
        "for (int64_t i = 0; i < 3; ++i)",
        "  o[i] += in[i];",
        "return v.sum();"], True),
    "void_write": ("const at::Tensor &m", [
        "m.narrow(0, 0, 2).add_(v);"], True),
    # Benign: nothing writes into m's values.
    "read_only": ("const at::Tensor &m", [
        "return (m * v.sum()).sum();"], False),
    "clone_write": ("const at::Tensor &m", [
        "at::Tensor c = m.clone();",
        "c.index_put_({Slice(0, 2)}, v);",
        "return c.sum();"], False),
    "fresh_local_write": ("const at::Tensor &m", [
        "at::Tensor t = at::zeros_like(m);",
        "t.narrow(0, 0, 2).copy_(v);",
        "return (t + m).sum();"], False),
    "advanced_index_copy": ("const at::Tensor &m", [
        "m.index({at::arange(2, m.options().dtype(at::kLong))}) = v;",
        "return m.sum();"], False),
    "rebound_then_write": ("const at::Tensor &m", [
        "at::Tensor t = m;",
        "t = t.clone();",
        "t.mul_(2);",
        "return t.sum();"], False),
    # Returns m or a view of it: aliasing the schema must declare with
    # `Tensor(a) m -> Tensor(a)` (the declared variant).
    "return_arg": ("const at::Tensor &m", [
        "return m;"], "alias"),
    "return_view": ("const at::Tensor &m", [
        "return m.narrow(0, 1, 2);"], "alias"),
    "return_clone": ("const at::Tensor &m", [
        "return m.clone();"], False),
    "void_read": ("const at::Tensor &m", [
        "at::Tensor s = m.sum();",
        "(void)s;"], False),
    "unreachable_return": ("const at::Tensor &m", [
        "if (v.numel() < 0) {",
        "  TORCH_CHECK(false, \"unsupported\");",
        "  return m;",
        "}",
        "return v.sum();"], False),
}

# Forms whose schema is not `(Tensor m, Tensor v) -> Tensor`: an optional m
# (`Tensor? m`), or nothing returned (`-> ()`, the kernel returns void).
OPTIONAL_M = {"optional_out"}
RETURNS_NOTHING = {"void_write", "void_read"}

# key -> (namespace suffix, dispatch key of TORCH_LIBRARY_IMPL, autograd
# formula registered from Python)
KEYS = {
    "cia": ("cia", "CompositeImplicitAutograd", False),
    "cpu": ("cpu", "CPU", False),
    "cpu_ag": ("cpu_ag", "CPU", True),
}


def op_name(form, declared):
    return form + ("_decl" if declared else "_undecl")


def schema_of(form, declared):
    aliases = FORMS[form][2] == "alias"
    opt = "?" if form in OPTIONAL_M else ""
    ret = "()" if form in RETURNS_NOTHING else "Tensor"
    if not declared:
        return f"{op_name(form, False)}(Tensor{opt} m, Tensor v) -> {ret}"
    if aliases:
        return f"{op_name(form, True)}(Tensor(a){opt} m, Tensor v) -> Tensor(a)"
    if FORMS[form][2] == "write_alias":
        return f"{op_name(form, True)}(Tensor(a!){opt} m, Tensor v) -> Tensor(a!)"
    return f"{op_name(form, True)}(Tensor(a!){opt} m, Tensor v) -> {ret}"


def operators(prefix="tt_um"):
    """Every generated operator: (namespace, name, form, key, declared)."""
    out = []
    for key, (suffix, _, _) in KEYS.items():
        for form, (_, _, writes) in FORMS.items():
            for declared in ((False, True) if writes else (False,)):
                out.append((f"{prefix}_{suffix}", op_name(form, declared), form, key, declared))
    return out


def generate(path, prefix="tt_um"):
    lines = [
        "// Generated by tools/ground-truth/undeclared_mutation.py: operators whose",
        "// kernels write (or do not write) into an argument their schema does or",
        "// does not declare mutable. Do not edit; regenerate.",
        "#include <ATen/ATen.h>",
        "#include <ATen/Dispatch.h>",
        "#include <ATen/Parallel.h>",
        "#include <ATen/TensorIndexing.h>",
        "#include <torch/csrc/autograd/custom_function.h>",
        "#include <torch/library.h>",
        "#include <cstring>",
        "#include <numeric>",
        "",
        "using at::indexing::Slice;",
        "",
        "namespace {",
        "void writeRows(const at::Tensor &dst, const at::Tensor &src) {",
        "  dst.narrow(0, 0, 2).copy_(src);",
        "}",
        "void negAll(const std::vector<at::Tensor> &ts) {",
        "  for (const auto &t : ts)",
        "    t.neg_();",
        "}",
        "void scaleFirst(at::TensorList ts) { ts[0].mul_(2); }",
        "struct RowOps {",
        "  static void scale(const at::Tensor &t) { t.narrow(0, 0, 2).mul_(2); }",
        "};",
        "template <typename T> struct RowDispatch {",
        "  static void run(const at::Tensor &t) { RowOps::scale(t); }",
        "};",
        "struct AddRows : torch::autograd::Function<AddRows> {",
        "  static at::Tensor forward(torch::autograd::AutogradContext *ctx,",
        "                            const at::Tensor &dst, const at::Tensor &src) {",
        "    dst.narrow(0, 0, 2).add_(src);",
        "    return src.sum();",
        "  }",
        "  static torch::autograd::variable_list",
        "  backward(torch::autograd::AutogradContext *ctx,",
        "           torch::autograd::variable_list grads) {",
        "    return {at::Tensor(), at::Tensor()};",
        "  }",
        "};",
        "void fillRow(float *p, int64_t n) {",
        "  for (int64_t i = 0; i < n; ++i)",
        "    p[i] = 2.0f;",
        "}",
        "",
    ]
    for form, (param, body, _) in FORMS.items():
        ret = "void" if form in RETURNS_NOTHING else "at::Tensor"
        lines.append(f"{ret} k_{form}({param}, const at::Tensor &v) {{")
        lines += ["  " + b for b in body]
        lines += ["}", ""]
    lines += ["} // namespace", ""]
    for key, (suffix, dispatch, _) in KEYS.items():
        ns = f"{prefix}_{suffix}"
        lines.append(f"TORCH_LIBRARY({ns}, m) {{")
        for form, (_, _, writes) in FORMS.items():
            for declared in ((False, True) if writes else (False,)):
                lines.append(f'  m.def("{schema_of(form, declared)}");')
        lines += ["}", "", f"TORCH_LIBRARY_IMPL({ns}, {dispatch}, m) {{"]
        for form, (_, _, writes) in FORMS.items():
            for declared in ((False, True) if writes else (False,)):
                lines.append(f'  m.impl("{op_name(form, declared)}", &k_{form});')
        lines += ["}", ""]
    with open(path, "w") as f:
        f.write("\n".join(lines))


# --- measurement (runs under a venv's python) --------------------------------

def prepare_torch(tag):
    """Imports torch for a measurement (runs under a venv's python): quiet,
    room for many compiled graphs, and a fresh inductor cache (a cached graph
    of an operator with the same name but another schema must not be
    reused)."""
    import atexit
    import logging
    import warnings
    if "TORCHINDUCTOR_CACHE_DIR" not in os.environ:
        inductor = tempfile.mkdtemp(prefix=f"{tag}-inductor-")
        os.environ["TORCHINDUCTOR_CACHE_DIR"] = inductor
        atexit.register(shutil.rmtree, inductor, True)
    import torch
    import torch._dynamo
    import torch.utils.cpp_extension
    warnings.filterwarnings("ignore")
    logging.disable(logging.WARNING)
    torch._dynamo.config.cache_size_limit = 64
    return torch


def measure_under_venvs(specs, script, what):
    """Runs `script --measure` under each LABEL=PYTHON of specs and collects
    the `ROW ...` lines it prints, split: returns ([(label, rows)] for the
    versions that ran, [problems]). A venv that is missing prints a SKIP
    line; a run that fails or prints no row is a problem."""
    ran, problems = [], []
    for spec in specs:
        label, _, python = spec.partition("=")
        if not os.path.exists(python):
            print(f"SKIP {what} torch {label}: no venv python ({python})")
            continue
        res = subprocess.run([python, os.path.abspath(script), "--measure"],
                             capture_output=True, text=True)
        rows = [line.split() for line in res.stdout.splitlines() if line.startswith("ROW ")]
        if res.returncode or not rows:
            problems.append(f"torch {label}: measurement failed: {res.stderr[-1500:]}")
            continue
        ran.append((label, rows))
    return ran, problems


def venv_script_args(doc, measure):
    """The command line of a script that measures under each venv
    (`--python LABEL=PYTHON ...`) and re-runs itself there with --measure:
    returns the parsed arguments, or None once --measure has run."""
    p = argparse.ArgumentParser(description=doc,
                                formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--python", action="append", default=[], help="LABEL=PYTHON")
    p.add_argument("--measure", action="store_true", help=argparse.SUPPRESS)
    args = p.parse_args()
    if args.measure:
        measure()
        return None
    return args


def venv_script_verdict(problems, ran, what, summary):
    """Prints the problems (FAIL lines) and returns the exit status: 1 on any
    problem, 77 (SKIP said by name) when no venv ran, else 0 after
    printing `WHAT: SUMMARY`."""
    for problem in problems:
        print("FAIL", problem)
    if problems:
        return 1
    if not ran:
        print(f"SKIP {what}: no torch venv could run")
        return SKIP_CODE
    print(f"{what}: {summary}")
    return 0


def load_operators(torch, name, sources):
    """Builds (or loads the build kept from an earlier run) the C++ operators
    of the source files, an extension with no Python module
    (extension_build)."""
    texts = []
    for path in sources:
        with open(path) as f:
            texts.append(f.read())
    extension_build.load_texts(torch, name, [(os.path.basename(p), t)
                                             for p, t in zip(sources, texts)])


def load_inline_operators(torch, name, text):
    """load_operators for one source text, compiled as written."""
    extension_build.load_texts(torch, name, [(f"{name}.cpp", text)])


def opcheck_verdict(e):
    """opcheck's test_schema verdict from the error it raised: "mutation",
    "aliasing", or "error: " and the type of what failed."""
    text = str(e) + " " + str(e.__cause__ or "")  # OpCheckError wraps the check's error
    if "not defined as mutable but was mutated" in text:
        return "mutation"
    if "alias" in text or "directly return inputs" in text:
        return "aliasing"
    return "error: " + type(e.__cause__ or e).__name__


def _measure(args):
    import warnings
    torch = prepare_torch("tt-um")
    # Newer torch checks custom-op outputs for aliasing at a compiled
    # function's first call: a warning by default, a RuntimeError where the CI
    # environment variable is set. The columns measure the default (what a user
    # gets); aliasing_check records the check itself, both ways.
    import torch._functorch.config as functorch_config
    has_alias_check = hasattr(functorch_config, "error_on_custom_op_aliasing")
    if has_alias_check:
        functorch_config.error_on_custom_op_aliasing = False

    load_operators(torch, "tt_um_ops", args.sources)

    rows = []
    ops = []
    wanted = None
    if args.ops:
        with open(args.ops) as f:
            wanted = set(json.load(f))
    for prefix in args.prefix:
        for ns, name, form, key, declared in operators(prefix):
            if wanted is None or f"{ns}::{name}" in wanted:
                ops.append((ns, name, form, key, declared))
    autograd_error = {}
    for ns, name, form, key, declared in ops:
        qual = f"{ns}::{name}"
        if key == "cia":
            continue
        if FORMS[form][2] == "write_alias":
            torch.library.register_fake(qual)(lambda m, v: m)
        elif FORMS[form][2] == "alias":
            torch.library.register_fake(qual)(
                (lambda m, v: m) if form == "return_arg" else (lambda m, v: m.narrow(0, 1, 2)))
        elif form == "return_clone":
            torch.library.register_fake(qual)(lambda m, v: torch.empty_like(m))
        elif form in RETURNS_NOTHING:
            torch.library.register_fake(qual)(lambda m, v: None)
        else:
            torch.library.register_fake(qual)(lambda m, v: v.new_empty(()))
        if KEYS[key][2]:
            def setup_context(ctx, inputs, output):
                pass

            def backward(ctx, g):
                return None, None
            try:
                torch.library.register_autograd(qual, backward, setup_context=setup_context)
            except RuntimeError as e:
                autograd_error[qual] = type(e).__name__

    def inputs(n, grad):
        """One x per operator (a write that corrupts one x must not reach the
        next operator's reads), and v."""
        xs = []
        for _ in range(n):
            g = torch.Generator().manual_seed(20261123)
            xs.append(torch.randn(4, 3, generator=g, requires_grad=grad))
        v = torch.randn(2, 3, generator=torch.Generator().manual_seed(5))
        return xs, v

    def program(op_list):
        def f(v, *xs):
            outs = []
            for op, x in zip(op_list, xs):
                m = x * 1
                r = op(m, v)
                outs.append((m * 2).sum())
                # An operator that returns nothing: its effect is on m only.
                outs.append(v.sum() if r is None else r)
            return outs
        return f

    def values(fn, n, grad):
        xs, v = inputs(n, grad)
        return [t.detach() for t in fn(v, *xs)]

    def same(a, b):
        return len(a) == len(b) and all(
            p.shape == q.shape and torch.allclose(p, q, rtol=1e-4, atol=1e-5) for p, q in zip(a, b))

    def compiled(op_list, backend):
        torch._dynamo.reset()
        return torch.compile(program(op_list), backend=backend, fullgraph=True)

    results = {}
    for ns, name, form, key, declared in ops:
        qual = f"{ns}::{name}"
        op = getattr(getattr(torch.ops, ns), name)
        row = {"op": qual, "form": form, "key": key, "declared": declared,
               "autograd_error": autograd_error.get(qual)}
        g = torch.Generator().manual_seed(7)
        m0 = torch.randn(4, 3, generator=g)
        v0 = torch.randn(2, 3, generator=g)
        try:
            torch.library.opcheck(op, (m0, v0), test_utils="test_schema")
            row["opcheck"] = "pass"
        except Exception as e:  # OpCheckError wraps the schema check's error
            text = str(e) + " " + str(e.__cause__ or "")
            row["detail"] = text.strip().splitlines()[-1][:200] if text.strip() else ""
            row["opcheck"] = opcheck_verdict(e)
        row["eager_error"] = None
        for grad, field in ((False, "_eager_values"), (True, "_eager_values_grad")):
            try:
                row[field] = values(program([op]), 1, grad)
            except Exception as e:
                row[field] = None
                row["eager_error"] = (row["eager_error"] or "") + \
                    ("grad: " if grad else "") + type(e).__name__ + " "
                row["detail"] = str(e).strip().splitlines()[0][:200]
        if row["eager_error"]:
            row["eager_error"] = row["eager_error"].strip()
        results[qual] = (row, op)
        rows.append(row)

    def run_batch(batch, backend, grad):
        """Compiles the ops of batch together; splits a failing batch."""
        column = backend + ("_grad" if grad else "")
        want = "_eager_values_grad" if grad else "_eager_values"
        try:
            with warnings.catch_warnings(record=True) as caught:
                warnings.simplefilter("always")
                got = values(compiled([op for _, op in batch], backend), len(batch), grad)
            for w in caught:
                text = str(w.message)
                if "will become an error in a future version of PyTorch" not in text:
                    continue  # not the aliasing check's deprecation warning
                for row, _ in batch:
                    if re.search(re.escape(row["op"]) + r"(?![\w])", text):
                        row["_alias_warned"] = True
        except Exception as e:
            if len(batch) == 1:
                batch[0][0][column] = "error: " + type(e).__name__
                return
            half = len(batch) // 2
            run_batch(batch[:half], backend, grad)
            run_batch(batch[half:], backend, grad)
            return
        for i, (row, _) in enumerate(batch):
            row[column] = "same" if same(got[2 * i:2 * i + 2], row[want]) else "differs"

    for grad in (False, True):
        want = "_eager_values_grad" if grad else "_eager_values"
        for backend in BACKENDS:
            for key in KEYS:
                batch = [results[r["op"]] for r in rows
                         if r["key"] == key and r.get(want) is not None]
                if batch:
                    run_batch(batch, backend, grad)
    # torch's own aliasing check: silent, or a warning by default, and with
    # the CI setting (error_on_custom_op_aliasing) a RuntimeError or not.
    for r in rows:
        warned = r.pop("_alias_warned", False)
        if not has_alias_check:
            r["aliasing_check"] = "not in this torch"
        elif not warned:
            r["aliasing_check"] = "silent"
        else:
            functorch_config.error_on_custom_op_aliasing = True
            try:
                values(compiled([results[r["op"]][1]], "aot_eager"), 1, False)
                r["aliasing_check"] = "warns; with CI set: no error"
            except Exception as e:
                r["aliasing_check"] = "warns; with CI set: " + type(e).__name__
            functorch_config.error_on_custom_op_aliasing = False
    for r in rows:
        for column in COLUMNS:
            r.setdefault(column, "not run: eager error")
        r.pop("_eager_values", None)
        r.pop("_eager_values_grad", None)
    with open(args.out, "w") as f:
        json.dump({"torch": torch.__version__, "rows": rows}, f, indent=1)


# --- driver (standard library) -----------------------------------------------

def measure_with(python, sources, prefixes, only=None):
    """Measures the operators of sources (only those named in `only`, if given)."""
    with tempfile.TemporaryDirectory() as tmp:
        out = os.path.join(tmp, "rows.json")
        cmd = [python, os.path.abspath(__file__), "measure", "--out", out]
        if only is not None:
            with open(os.path.join(tmp, "ops.json"), "w") as f:
                json.dump(sorted(only), f)
            cmd += ["--ops", os.path.join(tmp, "ops.json")]
        for p in prefixes:
            cmd += ["--prefix", p]
        return run_measurement(cmd + sources, out, python, "undeclared-mutation")


def run_measurement(cmd, out, python, what):
    """Runs a measurement subprocess (a venv's python) that writes JSON to
    out; returns it. The measurement is of torch's defaults, whoever runs it:
    CI=1 turns torch's custom-op aliasing warning into an error
    (aliasing_check measures both)."""
    env = {k: v for k, v in os.environ.items()
           if k not in ("CI", "TORCHINDUCTOR_ERROR_ON_CUSTOM_OP_ALIASING")}
    proc = subprocess.run(cmd, stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
                          text=True, env=env)
    if proc.returncode != 0:
        sys.stderr.write(proc.stdout[-6000:])
        raise SystemExit(f"{what}: measurement failed under {python}")
    with open(out) as f:
        return json.load(f)


def python_of(spec, what="undeclared-mutation"):
    """(label, the venv's python or None) from LABEL=PYTHON; says SKIP when
    there is no such python."""
    label, _, python = spec.partition("=")
    if not python or not os.path.exists(python):
        print(f"SKIP {what} torch {label}: no venv python ({python or 'not given'}); "
              "tools/bootstrap could not install it")
        return label, None
    return label, python


def venv_and_table(spec):
    """(label, the venv's python or None, the committed table)."""
    label, python = python_of(spec)
    with open(JSON_PATH) as f:
        return label, python, json.load(f)


def verdict_cells(row):
    return [row["opcheck"]] + [row[c] for c in COLUMNS] + [row.get("aliasing_check", "-")]


def render(table):
    versions = [table["versions"][lab] for lab in table["order"] if lab in table["versions"]]
    head = ["key / form / schema"]
    for v in versions:
        head += [f"{v} opcheck"] + [f"{v} {c}" for c in COLUMNS] + [f"{v} aliasing check"]
    lines = ["| " + " | ".join(head) + " |", "|" + "---|" * len(head)]
    by_version = {}
    for r in table["rows"]:
        by_version.setdefault(r["torch"], {})[(r["key"], r["form"], r["declared"])] = r
    first = by_version[versions[0]]
    for (key, form, declared) in first:
        schema = schema_of(form, declared)
        cells = [f"{key} / `{form}` / `{schema[schema.index('('):]}`"]
        for v in versions:
            r = by_version.get(v, {}).get((key, form, declared))
            cells += verdict_cells(r) if r else ["-"] * (2 + len(COLUMNS))
        lines.append("| " + " | ".join(cells) + " |")
    return "\n".join(lines)


BEGIN = "<!-- BEGIN GENERATED: undeclared_mutation.py write rewrites this part -->"
END = "<!-- END GENERATED -->"


def rewrite_generated(doc_path, begin, body, end=END):
    """Replaces what stands between the markers begin and end in doc_path."""
    with open(doc_path) as f:
        text = f.read()
    head, _, rest = text.partition(begin)
    _, _, tail = rest.partition(end)
    with open(doc_path, "w") as f:
        f.write(head + begin + "\n" + body + "\n" + end + tail)


def read_table(path):
    """A measurement table: {"order": labels, "versions": label -> torch
    version, "rows": [...]}, empty when path does not exist."""
    if not os.path.exists(path):
        return {"order": [], "versions": {}, "rows": []}
    with open(path) as f:
        return json.load(f)


def merge_measurement(table, label, got):
    """Replaces the rows of label's previous torch version with got's."""
    old = table["versions"].get(label)
    table["rows"] = [r for r in table["rows"] if r["torch"] != old]
    table["versions"][label] = got["torch"]
    if label not in table["order"]:
        table["order"].append(label)
    for r in got["rows"]:
        r["torch"] = got["torch"]
        table["rows"].append(r)


def write_table(path, table):
    with open(path, "w") as f:
        json.dump(table, f, indent=1)
        f.write("\n")


def comparable(row):
    return {k: row.get(k) for k in ("op", "opcheck", "eager_error", "autograd_error", *COLUMNS,
                                    "aliasing_check")}


def cmd_write(args):
    table = read_table(JSON_PATH)
    only = None
    if args.forms:
        unknown = set(args.forms) - set(FORMS)
        if unknown:
            raise SystemExit(f"unknown forms: {sorted(unknown)}")
        only = {f"{ns}::{name}" for ns, name, form, _, _ in operators()
                if form in args.forms}
    with tempfile.TemporaryDirectory() as tmp:
        src = os.path.join(tmp, "tt_um_ops.cpp")
        generate(src)
        for spec in args.python:
            label, python = python_of(spec)
            if not python:
                continue
            got = measure_with(python, [src], ["tt_um"], only)
            if only is None:
                sampling.stamp(SUITE, label, INPUTS, python)
            if only is not None:
                # Only these forms re-measured: the version's other rows stay.
                version = table["versions"].get(label)
                if version != got["torch"]:
                    raise SystemExit(f"torch {label} is {got['torch']}, the table's is "
                                     f"{version}: re-measure every form")
                kept = [r for r in table["rows"]
                        if r["torch"] == version and r["op"] not in only]
                got["rows"] = kept + got["rows"]
            merge_measurement(table, label, got)
    # The table in the generator's order.
    order = {f"{ns}::{name}": i for i, (ns, name, _, _, _) in enumerate(operators())}
    table["rows"].sort(key=lambda r: (table["order"].index(
        next(l for l, v in table["versions"].items() if v == r["torch"])),
        order.get(r["op"], len(order))))
    write_table(JSON_PATH, table)
    rewrite_generated(DOC_PATH, BEGIN, render(table))
    print(render(table))


# What a measurement depends on (sampling.py): a change re-measures the whole table.
INPUTS = ["undeclared_mutation.py"]
SUITE = "undeclared-mutation"
SAMPLE_KEY = "cpu"  # the key whose batch the sample re-measures
FIXES_SUITE = "undeclared-mutation-fixes"


def cmd_check(args):
    label, python, table = venv_and_table(args.python)
    if not python:
        return SKIP_CODE
    want_version = table["versions"].get(label)
    ops = operators()
    is_whole, why = sampling.whole(SUITE, label, INPUTS, python)
    only = None
    if not is_whole:
        # The operators of one dispatch key are compiled together in one
        # graph, and inductor's values for one can depend on the others there
        # (measured: write_and_return_undecl's inductor cell differs in a
        # graph of a stratified subset), so the sample is one key's batch,
        # whole: every form and declaration, as the table measured them.
        chosen = [o for o in ops if o[3] == SAMPLE_KEY]
        only = {f"{ns}::{name}" for ns, name, _, _, _ in chosen}
        table = dict(table, rows=[r for r in table["rows"] if r["op"] in only])
    sampling.say(f"undeclared-mutation {label}", is_whole, why, len(only or ops), len(ops))
    with tempfile.TemporaryDirectory() as tmp:
        src = os.path.join(tmp, "tt_um_ops.cpp")
        generate(src)
        got = measure_with(python, [src], ["tt_um"], only)
    status = compare_with_table(got, table, want_version, comparable, "undeclared-mutation",
                                "tools/ground-truth/undeclared_mutation.py")
    if status == 0 and is_whole and args.stamp:
        sampling.stamp(SUITE, label, INPUTS, python)
        print(f"undeclared-mutation: recorded the inputs of {label} in "
              "docs/ground-truth-inputs.json")
    return status


def compare_with_table(got, table, want_version, comparable, what, script):
    """Prints each operator whose measurement (got) differs from its row of
    the committed table for want_version, and a summary; 1 if any differs,
    the torch installed is not the table's, or an operator is missing."""
    if want_version and got["torch"] != want_version:
        print(f"{what}: torch {got['torch']} installed, the table has {want_version}; "
              f"rerun {script} write")
        return 1
    want = {r["op"]: comparable(r) for r in table["rows"] if r["torch"] == want_version}
    bad = 0
    for r in got["rows"]:
        if comparable(r) != want.get(r["op"]):
            bad += 1
            print(f"DIFFERS {r['op']}:\n  measured {comparable(r)}\n  table    {want.get(r['op'])}")
    if len(got["rows"]) != len(want):
        bad += 1
        print(f"DIFFERS: {len(got['rows'])} operators measured, {len(want)} in the table")
    print(f"{what} torch {got['torch']}: {len(got['rows'])} operators, {bad} differ from the table")
    return 1 if bad else 0


def run_tidy(clang_tidy, module, src, torch_include, fix=False):
    include, std = torch_include
    cmd = [clang_tidy, "--load", module, f"-checks=-*,{CHECK}", src]
    if fix:
        cmd.insert(1, "--fix-notes")  # --fix, and the schema fix on its note
    cmd += ["--", "-std=" + std, "-isystem", include,
            "-isystem", os.path.join(include, "torch", "csrc", "api", "include")]
    return subprocess.run(cmd, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)


def warned_ops(output):
    """{"ns::op"} that the check's warnings name."""
    return set(re.findall(r"warning: .*? of operator '([a-z0-9_:]+)'.*\[" + CHECK + r"\]", output))


def torch_include_of(python):
    """(torch's include directory, the C++ standard its headers need): the
    headers of torch 2.10 and later use C++20 (std::strong_ordering)."""
    out = subprocess.run([python, "-c", "import torch, torch.utils.cpp_extension as c; "
                          "print(c.include_paths()[0]); print(torch.__version__)"],
                         stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True, check=True)
    include, version = out.stdout.split()[:2]
    major, minor = (int(x) for x in version.split(".")[:2])
    return include, "c++20" if (major, minor) >= (2, 10) else "c++17"


def loud_catch_all(row):
    """An undeclared catch-all (CompositeImplicitAutograd) operator whose
    compiled calls all fail: its kernel writes through memory, which fake
    tensors do not have. opcheck's test_schema passes on it (the catch-all
    kernel hides the write from it), and the check reports it by default."""
    return (row["key"] == "cia" and not row["declared"]
            and all(str(row[c]).startswith("error:") for c in COLUMNS))


def cmd_static(args):
    """The check warns exactly on the operators whose opcheck test_schema fails
    for mutation and on the loud catch-all ones (loud_catch_all), in every
    version of the committed table."""
    label, python, table = venv_and_table(args.python)
    if not python:
        return SKIP_CODE
    with tempfile.TemporaryDirectory() as tmp:
        src = os.path.join(tmp, "tt_um_ops.cpp")
        generate(src)
        proc = run_tidy(args.clang_tidy, args.module, src, torch_include_of(python))
    if "error:" in proc.stdout:
        print(proc.stdout[-4000:])
        print("FAIL: clang-tidy reported errors on the generated operators")
        return 1
    warned = warned_ops(proc.stdout)
    bad = 0
    for label, version in table["versions"].items():
        rows = [r for r in table["rows"] if r["torch"] == version]
        failing = {r["op"] for r in rows if r["opcheck"] in ("mutation", "aliasing")}
        loud = {r["op"] for r in rows if loud_catch_all(r)} - failing
        others = [r for r in rows if r["opcheck"] not in ("pass", "mutation", "aliasing")]
        for r in others:
            bad += 1
            print(f"UNEXPECTED opcheck verdict on torch {version}: {r['op']}: {r['opcheck']}")
        for op in sorted(failing - warned):
            bad += 1
            print(f"MISSED on torch {version}: {op} (opcheck fails test_schema; the check is silent)")
        for op in sorted(loud - warned):
            bad += 1
            print(f"MISSED on torch {version}: {op} (a catch-all kernel's write: compiling "
                  "fails on every backend; the check is silent)")
        for op in sorted(warned - failing - loud):
            bad += 1
            print(f"FALSE on torch {version}: {op} (opcheck passes; the check warns)")
        print(f"torch {version}: {len(rows)} operators, opcheck fails {len(failing)}, "
              f"{len(loud)} more are loud catch-all ones, the check warns on {len(warned)}, "
              f"disagreements {len((failing | loud) ^ warned)}")
    return 1 if bad else 0


def cmd_fixes(args):
    """Each undeclared operator that opcheck rejects, fixed by the check's own
    --fix, builds, passes opcheck's test_schema and gives the uncompiled
    values under every backend; a second --fix changes nothing."""
    label, python, table = venv_and_table(args.python)
    if not python:
        return SKIP_CODE
    version = table["versions"].get(label)
    failing = {r["op"].replace("tt_um_", "tt_umfix_", 1) for r in table["rows"]
               if r["torch"] == version and r["opcheck"] in ("mutation", "aliasing")}
    want_rows = {r["op"]: r for r in table["rows"] if r["torch"] == version}
    include = torch_include_of(python)
    with tempfile.TemporaryDirectory() as tmp:
        src = os.path.join(tmp, "tt_umfix_ops.cpp")
        generate(src, prefix="tt_umfix")
        before = open(src).read()
        proc = run_tidy(args.clang_tidy, args.module, src, include, fix=True)
        fixed = open(src).read()
        if fixed == before:
            print(proc.stdout[-3000:])
            print("FAIL: --fix changed nothing")
            return 1
        again = run_tidy(args.clang_tidy, args.module, src, include, fix=True)
        # A loud catch-all operator keeps its warning and has no fix (the
        # remedy is a registration for its device).
        loud = {r["op"].replace("tt_um_", "tt_umfix_", 1) for r in table["rows"]
                if r["torch"] == version and loud_catch_all(r)}
        if open(src).read() != fixed or warned_ops(again.stdout) - loud:
            print(again.stdout[-3000:])
            print("FAIL: a second --fix changed the file or still warns on an operator it can fix")
            return 1
        shutil.copy(src, os.path.join(args.keep, "tt_umfix_ops.cpp")) if args.keep else None
        # The text proven whole before is re-proven on one key's batch (every
        # form: cmd_check's sample); a fix that wrote another text, whole.
        is_whole, why = sampling.whole(FIXES_SUITE, label, INPUTS, python, text=fixed)
        proven = failing if is_whole else {
            op for op in failing if op.split("::")[0] == f"tt_umfix_{SAMPLE_KEY}"}
        sampling.say(f"undeclared-mutation fixes {label}", is_whole, why, len(proven),
                     len(failing))
        got = measure_with(python, [src], ["tt_umfix"], only=proven)
    bad = 0
    notes = []
    rows = {r["op"]: r for r in got["rows"]}
    for op in sorted(proven):
        r = rows[op]
        original = want_rows.get(op.replace("tt_umfix_", "tt_um_", 1), {})
        problems = []
        if r["opcheck"] != "pass":
            problems.append(f"opcheck {r['opcheck']}")
        for c in COLUMNS:
            if r[c] == "same" or str(original.get(c, "")).startswith("not run"):
                continue
            if r[c].startswith("not run"):
                # The fixed operator raises eagerly (so compiled too): there is
                # no value to compare; said below, not hidden.
                notes.append(f"NOTE {op}: {c}: {r[c]} ({r.get('detail', '')[:100]})")
                continue
            if original.get("declared") and r[c] == original.get(c):
                # A declared operator keeps what torch.compile did before.
                notes.append(f"NOTE {op}: {c}: {r[c]} before and after the fix")
                continue
            problems.append(f"{c} {r[c]}")
        if problems:
            bad += 1
            print(f"FIX NOT PROVEN {op}: " + ", ".join(problems))
    for n in notes:
        print(n)
    print(f"torch {got['torch']}: {len(failing)} operators that opcheck rejects, fixed by --fix, "
          f"{len(proven)} of them proven here; "
          f"{len(proven) - bad} pass opcheck test_schema and, where the uncompiled call runs, "
          f"match its values on {', '.join(COLUMNS)}; {bad} do not")
    if bad or not failing:
        return 1
    if is_whole and args.stamp:
        sampling.stamp(FIXES_SUITE, label, INPUTS, python, text=fixed)
        print(f"undeclared-mutation fixes: recorded the inputs of {label} in "
              "docs/ground-truth-inputs.json")
    return 0


def main():
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    sub = p.add_subparsers(dest="cmd", required=True)
    g = sub.add_parser("generate")
    g.add_argument("out")
    g.add_argument("--ns", default="tt_um")
    m = sub.add_parser("measure")
    m.add_argument("--out", required=True)
    m.add_argument("--prefix", action="append", default=[])
    m.add_argument("--ops", help="a JSON list of ns::name: measure only these")
    m.add_argument("sources", nargs="+")
    w = sub.add_parser("write", help="re-measure, rewrite the table and the doc's table")
    w.add_argument("--python", action="append", default=[], help="LABEL=PYTHON")
    w.add_argument("--forms", nargs="+",
                   help="re-measure only these forms (new ones): the other rows stay")
    c = sub.add_parser("check", help="re-measure one version against the table (a sample "
                       "when the inputs are those it was measured from: sampling.py)")
    c.add_argument("--python", required=True, help="LABEL=PYTHON")
    c.add_argument("--stamp", action="store_true",
                   help="once every operator was re-measured and matches, record the inputs")
    for name in ("static", "fixes"):
        s = sub.add_parser(name)
        s.add_argument("--python", required=True, help="LABEL=PYTHON (its torch headers)")
        s.add_argument("--clang-tidy", required=True)
        s.add_argument("--module", required=True)
        s.add_argument("--keep", help="copy the fixed source here")
        if name == "fixes":
            s.add_argument("--stamp", action="store_true",
                           help="once every fixed operator was proven, record the inputs "
                           "and the fixed source's digest")
    args = p.parse_args()
    if args.cmd == "generate":
        generate(args.out, args.ns)
        return 0
    if args.cmd == "measure":
        if not args.prefix:
            args.prefix = ["tt_um"]
        _measure(args)
        return 0
    return {"write": cmd_write, "check": cmd_check, "static": cmd_static,
            "fixes": cmd_fixes}[args.cmd](args) or 0


if __name__ == "__main__":
    sys.exit(main())
