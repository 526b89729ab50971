#!/usr/bin/env python3
"""Ground truth: what torch.compile does with an operator whose kernel writes
an argument its schema does not declare mutable, by what the operator
registers (the classes of lib/operators/src/Consequence.cpp).

  registrations.py generate OUT.cpp
      the C++ operators (standard library only): registration shape (a Python
      fake, a C++ Meta kernel, a CompositeExplicitAutograd kernel, a CPU
      kernel only, a CPU kernel under a C++ autograd Function that marks the
      written input dirty, a catch-all kernel with ATen ops or raw pointers)
      x kernel form (void_write, write_other, written_returned, aliasing,
      void_side_effect), a few declared (`Tensor(a!) m`) controls.
  VENV/bin/python registrations.py measure --out ROWS.json SRC.cpp
      builds them, adds the Python registrations (fakes, effect marking) and
      records per operator opcheck's test_schema verdict and message, and
      under eager / aot_eager / inductor, default and fullgraph=True, whether
      the compiled call gives the uncompiled values (the written m included),
      the graph breaks (default mode) and how often a side-effect kernel ran.
  registrations.py write --python LABEL=PYTHON ...
      re-measures, rewrites docs/ground-truth-registrations.json and its
      table in docs/checks/torch-op-undeclared-mutation.md.
  registrations.py check --python LABEL=PYTHON
      re-measures one version against the table (a ctest).
"""
import argparse
import json
import os
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(HERE))
sys.path.insert(0, HERE)
import undeclared_mutation as um  # noqa: E402  (torch set-up and driver helpers)
import sampling  # noqa: E402

JSON_PATH = os.path.join(ROOT, "docs", "ground-truth-registrations.json")
DOC_PATH = um.DOC_PATH
WHAT = "op-registrations"
# What a measurement depends on (sampling.py): a change re-measures the whole table.
INPUTS = ["registrations.py", "undeclared_mutation.py"]
SUITE = "registrations"
PREFIX = "tt_reg"
BACKENDS = um.BACKENDS
MODES = ["default", "fullgraph"]
COLUMNS = [f"{b} {mode}" for mode in MODES for b in BACKENDS]
# The side-effect kernel appends a line to this file per run: counting lines
# tells whether a compiled call ran it, and how often.
RUNS_ENV = "TT_REG_RUNS_FILE"

# form -> (returns a tensor, ATen body, raw-pointer body). m is a float [4, 3]
# tensor (contiguous), v a float [2, 3] tensor; every write adds v to m's
# first two rows.
FORMS = {
    "void_write": (False, ["m.narrow(0, 0, 2).add_(v);"],
                   ["addRows(m.data_ptr<float>(), v);"]),
    "write_other": (True, ["m.narrow(0, 0, 2).add_(v);", "return m.sum();"],
                    ["addRows(m.data_ptr<float>(), v);", "return m.sum();"]),
    "written_returned": (True, ["m.narrow(0, 0, 2).add_(v);", "return m;"], None),
    "aliasing": (True, ["return m;"], None),
    "void_side_effect": (False, ["recordRun();"], None),
    # The operator declares another argument mutable (d, written too) and
    # writes m undeclared: sglang's fused_add_rmsnorm_cpu(Tensor(a!) input,
    # Tensor residual, ...) writes residual.
    "beside_declared": (False, ["d.fill_(1);", "m.narrow(0, 0, 2).add_(v);"], None),
    # No tensor argument at all (`(int n) -> ()`), a side effect only: the
    # runtime settings operators (deep-gemm's set_num_sms) look so.
    "scalar_side_effect": (False, ["recordRun();"], None),
}
# Forms whose operator takes a declared-mutable argument d before m.
LEADING = {"beside_declared"}
# Forms whose operator takes an int and no tensor.
SCALAR = {"scalar_side_effect"}
# Forms whose kernel only records that it ran.
SIDE_EFFECT = {"void_side_effect", "scalar_side_effect"}

# registration shape -> the (form, declared) operators it gets. The declared
# controls sit beside the shapes that would lose or break on them undeclared.
SHAPES = {
    "python_fake": [("void_write", False), ("write_other", False),
                    ("written_returned", False), ("aliasing", False),
                    ("void_side_effect", False), ("beside_declared", False),
                    ("void_write", True), ("void_side_effect", True)],
    # The same Python fakes, and the operators marked effectful (ORDERED).
    "python_fake_effectful": [("void_side_effect", False), ("void_write", False),
                              ("write_other", False)],
    # The same Python fakes, the operator called through what
    # torch._dynamo.disallow_in_graph(op.default) returns (torchcodec's
    # encoders are called so).
    "python_fake_disallowed": [("void_write", False), ("void_side_effect", False)],
    "cpp_meta": [("void_write", False), ("write_other", False), ("written_returned", False),
                 ("beside_declared", False)],
    "composite_explicit": [("void_write", False), ("write_other", False),
                           ("written_returned", False), ("beside_declared", False)],
    "backend_only": [("void_write", False), ("write_other", False),
                     ("written_returned", False), ("aliasing", False),
                     ("void_side_effect", False), ("void_write", True)],
    "autograd_mark_dirty": [("void_write", False), ("write_other", False)],
    "catchall_aten": [("void_write", False), ("write_other", False),
                      ("written_returned", False)],
    "catchall_raw": [("void_write", False), ("write_other", False)],
    # rwkv's registration (kernels-community): `ops.def(name, fn)`, a
    # catch-all kernel with an inferred schema, and `ops.impl(name,
    # torch::kCUDA, fn)`. The inputs are CPU tensors, so this row's CUDA
    # kernel never runs; catchall_raw_device registers the same kernel for
    # the inputs' own device (CPU), as rwkv's CUDA tensors meet it.
    "catchall_raw_cuda": [("void_write", False), ("write_other", False)],
    "catchall_raw_device": [("void_write", False), ("write_other", False)],
    "catchall_aten_device": [("void_write", False)],
    # A catch-all kernel and a C++ Meta kernel; and a catch-all kernel with
    # a Python fake asked for (torch refuses it: the row records the refusal).
    "catchall_raw_meta": [("void_write", False)],
    "catchall_raw_fake": [("void_write", False)],
    # The Python fakes registered the ways projects write them: in a loop
    # over names (deep-gemm's `for _op in [...]: register_fake(...)`),
    # through getattr(torch.ops.ns, name), by a helper called with the name,
    # and under a condition that holds; python_fake_condition_off: the
    # condition does not hold (sglang registers its fakes only so).
    "python_fake_loop": [("void_write", False)],
    "python_fake_getattr": [("void_write", False)],
    "python_fake_helper": [("void_write", False)],
    "python_fake_condition_on": [("void_write", False)],
    "python_fake_condition_off": [("void_write", False)],
    # Operators with no tensor argument: a CPU kernel only (nothing to
    # dispatch on), a catch-all kernel (m.def(schema, fn)), the same marked
    # effectful, a CompositeExplicitAutograd kernel, and that with a fake.
    "scalar_backend_only": [("scalar_side_effect", False)],
    "scalar_catchall": [("scalar_side_effect", False)],
    "scalar_catchall_effectful": [("scalar_side_effect", False)],
    "scalar_composite_explicit": [("scalar_side_effect", False)],
    "scalar_python_fake": [("scalar_side_effect", False)],
}
PYTHON_FAKE = {"python_fake", "python_fake_effectful", "python_fake_disallowed",
               "python_fake_loop", "python_fake_getattr", "python_fake_helper",
               "python_fake_condition_on", "scalar_python_fake"}
# How each shape registers its Python fake (the measurement does it so).
FAKE_HOW = {"python_fake_loop": "loop", "python_fake_getattr": "getattr",
            "python_fake_helper": "helper", "python_fake_condition_on": "condition",
            "python_fake_condition_off": "condition_off", "catchall_raw_fake": "refused"}
EFFECTFUL = {"python_fake_effectful", "scalar_catchall_effectful"}


def op_name(form, declared):
    return form + ("_decl" if declared else "")


def schema_of(form, declared):
    if form in SCALAR:
        return f"{op_name(form, declared)}(int n) -> ()"
    m = "Tensor(a!) m" if declared else "Tensor m"
    d = "Tensor(b!) d, " if form in LEADING else ""
    ret = "Tensor" if FORMS[form][0] else "()"
    return f"{op_name(form, declared)}({d}{m}, Tensor v) -> {ret}"


def operators():
    """Every generated operator: (namespace, name, shape, form, declared)."""
    return [(f"{PREFIX}_{shape}", op_name(form, declared), shape, form, declared)
            for shape, ops in SHAPES.items() for form, declared in ops]


def _kernel(name, form, body):
    ret = "at::Tensor" if FORMS[form][0] else "void"
    if form in SCALAR:
        return [f"{ret} {name}(int64_t n) {{", "  (void)n;"] + \
            ["  " + b for b in body] + ["}", ""]
    d = "const at::Tensor &d, " if form in LEADING else ""
    return [f"{ret} {name}({d}const at::Tensor &m, const at::Tensor &v) {{"] + \
        ["  " + b for b in body] + ["}", ""]


def _mark_dirty(form):
    """A C++ autograd Function whose forward redispatches below autograd and
    marks m dirty: how a hand-written Autograd kernel of an in-place op looks."""
    struct = "MarkDirty_" + form
    tensor = FORMS[form][0]
    sig = ("at::Tensor" if tensor else "void") + "(const at::Tensor &, const at::Tensor &)"
    call = "at::Tensor r = op.call(m, v);" if tensor else "op.call(m, v);"
    return [
        f"struct {struct} : public torch::autograd::Function<{struct}> {{",
        "  static torch::autograd::variable_list",
        "  forward(torch::autograd::AutogradContext *ctx, at::Tensor m, at::Tensor v) {",
        "    static auto op = c10::Dispatcher::singleton()",
        f'        .findSchemaOrThrow("{PREFIX}_autograd_mark_dirty::{form}", "")',
        f"        .typed<{sig}>();",
        "    at::AutoDispatchBelowADInplaceOrView below;",
        f"    {call}",
        "    ctx->mark_dirty({m});",
        "    return {m" + (", r" if tensor else "") + "};",
        "  }",
        "  static torch::autograd::variable_list",
        "  backward(torch::autograd::AutogradContext *, torch::autograd::variable_list g) {",
        "    return {g[0], at::Tensor()};",
        "  }",
        "};",
    ] + _kernel(f"ag_{form}", form,
                [f"{'return ' if tensor else ''}{struct}::apply(m, v){'[1]' if tensor else ''};"])


def generate(path):
    lines = [
        "// Generated by tools/ground-truth/registrations.py: operators whose kernels",
        "// write an argument the schema does not declare mutable, registered in each",
        "// shape torch-op-undeclared-mutation tells apart. Do not edit; regenerate.",
        "#include <ATen/ATen.h>",
        "#include <torch/autograd.h>",
        "#include <torch/library.h>",
        "#include <cstdio>",
        "#include <cstdlib>",
        "",
        "namespace {",
        "void addRows(float *p, const at::Tensor &v) {",
        "  at::Tensor c = v.contiguous();",
        "  const float *q = c.data_ptr<float>();",
        "  for (int64_t i = 0; i < c.numel(); ++i)",
        "    p[i] += q[i];",
        "}",
        "void recordRun() {",
        f'  if (const char *path = std::getenv("{RUNS_ENV}"))',
        '    if (std::FILE *f = std::fopen(path, "a")) {',
        '      std::fputs("ran\\n", f);',
        "      std::fclose(f);",
        "    }",
        "}",
        "",
    ]
    for form, (tensor, aten, raw) in FORMS.items():
        lines += _kernel(f"k_{form}", form, aten)
        if raw:
            lines += _kernel(f"k_{form}_raw", form, raw)
        # Meta kernels: the shapes only, as a fake would.
        lines += _kernel(f"meta_{form}", form,
                         ["return at::empty({}, m.options());"] if form == "write_other"
                         else ["return m;"] if tensor else [] if form in SCALAR
                         else ["(void)m;", "(void)v;"] +
                         (["(void)d;"] if form in LEADING else []))
    for form, _ in SHAPES["autograd_mark_dirty"]:
        lines += _mark_dirty(form)
    lines += ["} // namespace", ""]
    for shape, ops in SHAPES.items():
        ns = f"{PREFIX}_{shape}"
        lines.append(f"TORCH_LIBRARY({ns}, m) {{")
        for form, declared in ops:
            schema = schema_of(form, declared)
            if shape.startswith("catchall") or shape.startswith("scalar_catchall"):
                # m.def(schema, fn): a catch-all (CompositeImplicitAutograd) kernel.
                raw = "_raw" if shape.startswith("catchall_raw") else ""
                lines.append(f'  m.def("{schema}", &k_{form}{raw});')
            else:
                lines.append(f'  m.def("{schema}");')
        lines += ["}", ""]
        impls = {"cpp_meta": [("CPU", "k_"), ("Meta", "meta_")],
                 "composite_explicit": [("CompositeExplicitAutograd", "k_")],
                 "autograd_mark_dirty": [("CPU", "k_"), ("Autograd", "ag_")],
                 "catchall_aten": [], "catchall_raw": [], "catchall_raw_fake": [],
                 "scalar_catchall": [], "scalar_catchall_effectful": [],
                 "scalar_composite_explicit": [("CompositeExplicitAutograd", "k_")],
                 "scalar_python_fake": [("CompositeExplicitAutograd", "k_")],
                 "catchall_raw_cuda": [("CUDA", "k_", "_raw")],
                 "catchall_raw_device": [("CPU", "k_", "_raw")],
                 "catchall_raw_meta": [("Meta", "meta_")],
                 }.get(shape, [("CPU", "k_")])
        for key, prefix, *suffix in impls:
            lines.append(f"TORCH_LIBRARY_IMPL({ns}, {key}, m) {{")
            for form, declared in ops:
                lines.append(f'  m.impl("{op_name(form, declared)}", '
                             f'&{prefix}{form}{"".join(suffix)});')
            lines += ["}", ""]
    with open(path, "w") as f:
        f.write("\n".join(lines))


# --- measurement (runs under a venv's python) --------------------------------

def first_line(text, limit=160):
    """The first line of an error message that says something (not a blank or
    a bare traceback header), trimmed."""
    for line in str(text).splitlines():
        line = line.strip()
        if line and not line.startswith("Traceback"):
            return line[:limit]
    return ""


def mark_effectful(torch, op):
    """Marks op as having side effects the way this torch offers: the public
    torch.library spelling where it exists, the private one of
    torch._higher_order_ops.effects otherwise. Returns which one it used."""
    api = getattr(torch.library, "_register_effectful_op", None)
    from torch._higher_order_ops import effects
    effect = effects._EffectType.ORDERED
    if api is not None:
        api(op, effect)
        return "torch.library._register_effectful_op(op, ORDERED)"
    effects._register_effectful_op(op, effect)
    return "torch._higher_order_ops.effects._register_effectful_op(op, ORDERED)"


def _measure(args):
    torch = um.prepare_torch("tt-reg")
    import torch._dynamo.utils
    runs = tempfile.NamedTemporaryFile(prefix="tt-reg-runs-", delete=False).name
    os.environ[RUNS_ENV] = runs
    um.load_operators(torch, "tt_reg_ops", args.sources)

    def ran():
        """How often the side-effect kernel ran since the last call; resets."""
        with open(runs) as f:
            n = len(f.readlines())
        open(runs, "w").close()
        return n

    def fake_of(form):
        if form in SCALAR:
            return lambda n: None
        if not FORMS[form][0]:
            return lambda *args: None
        if form == "write_other":
            return lambda m, v: m.new_empty(())
        return lambda m, v: m

    def register_fake_helper(qualname, fn):
        # A project's helper, called with the operator's name.
        torch.library.register_fake(qualname)(fn)

    wanted = None
    if args.ops:
        with open(args.ops) as f:
            wanted = set(json.load(f))
    measured = [o for o in operators() if wanted is None or f"{o[0]}::{o[1]}" in wanted]
    effect_api = {}
    fake_refused = {}
    for ns, name, shape, form, declared in measured:
        how = FAKE_HOW.get(shape, "call")
        if shape in PYTHON_FAKE and how == "call":
            torch.library.register_fake(f"{ns}::{name}")(fake_of(form))
        elif how == "loop":
            for each in [name]:
                torch.library.register_fake(f"{ns}::{each}")(fake_of(form))
        elif how == "getattr":
            torch.library.register_fake(getattr(getattr(torch.ops, ns), name).default)(
                fake_of(form))
        elif how == "helper":
            register_fake_helper(f"{ns}::{name}", fake_of(form))
        elif how in ("condition", "condition_off"):
            enable_torch_compile = how == "condition"
            if enable_torch_compile:
                torch.library.register_fake(f"{ns}::{name}")(fake_of(form))
        elif how == "refused":
            try:
                torch.library.register_fake(f"{ns}::{name}")(fake_of(form))
            except Exception as e:
                fake_refused[f"{ns}::{name}"] = type(e).__name__ + ": " + first_line(e)
        if shape in EFFECTFUL:
            op = getattr(getattr(torch.ops, ns), name).default
            try:
                effect_api[f"{ns}::{name}"] = mark_effectful(torch, op)
            except Exception as e:
                effect_api[f"{ns}::{name}"] = "error: " + type(e).__name__

    def program(op, form):
        def f(x, v):
            if form in SCALAR:
                op(3)
                return x * 2, v.sum()
            m = x * 1
            if form in LEADING:
                # d, declared and written, beside m: both read after.
                d = x[0] * 0
                op(d, m, v)
                return m * 2, d * 2
            r = op(m, v)
            # m * 2 reads m after the call: the written values, or stale ones
            # where the call was dropped or moved.
            return m * 2, (v.sum() if r is None else r)
        return f

    def call(fn):
        g = torch.Generator().manual_seed(20261126)
        x = torch.randn(4, 3, generator=g)
        v = torch.randn(2, 3, generator=g)
        return [t.detach().clone() for t in fn(x, v)]

    def same(a, b):
        return len(a) == len(b) and all(
            p.shape == q.shape and torch.allclose(p, q, rtol=1e-4, atol=1e-5) for p, q in zip(a, b))

    rows = []
    for ns, name, shape, form, declared in measured:
        qual = f"{ns}::{name}"
        op = getattr(getattr(torch.ops, ns), name)
        row = {"op": qual, "registration": shape, "form": form, "declared": declared,
               "schema": schema_of(form, declared), "errors": {}}
        if qual in effect_api:
            row["effect_api"] = effect_api[qual]
        if shape in FAKE_HOW:
            row["fake_registered"] = FAKE_HOW[shape]
        if qual in fake_refused:
            row["fake_refused"] = fake_refused[qual]
        g = torch.Generator().manual_seed(7)
        try:
            inputs = (torch.randn(4, 3, generator=g), torch.randn(2, 3, generator=g))
            if form in LEADING:
                inputs = (torch.zeros(3),) + inputs
            if form in SCALAR:
                inputs = (3,)
            torch.library.opcheck(op, inputs,
                                  test_utils="test_schema")
            row["opcheck"], row["opcheck_message"] = "pass", ""
        except Exception as e:
            row["opcheck"] = um.opcheck_verdict(e)
            row["opcheck_message"] = first_line(e.__cause__ or e)
        if shape == "python_fake_disallowed":
            op = torch._dynamo.disallow_in_graph(op.default)
        ran()
        try:
            want = call(program(op, form))
        except Exception as e:
            # The operator cannot run uncompiled (no tensor to dispatch on):
            # nothing compiled to compare with.
            row["uncompiled"] = "error: " + type(e).__name__
            row["errors"]["uncompiled"] = first_line(e)
            rows.append(row)
            continue
        row["uncompiled_runs"] = ran() if form in SIDE_EFFECT else None
        for mode in MODES:
            for backend in BACKENDS:
                column = f"{backend} {mode}"
                torch._dynamo.reset()
                torch._dynamo.utils.counters.clear()
                fn = torch.compile(program(op, form), backend=backend, fullgraph=mode == "fullgraph")
                try:
                    row[column] = "same" if same(call(fn), want) else "differs"
                except Exception as e:
                    row[column] = "error: " + type(e).__name__
                    row["errors"][column] = first_line(e)
                if mode == "default":
                    row[f"{backend} breaks"] = sum(
                        torch._dynamo.utils.counters["graph_break"].values())
                if form in SIDE_EFFECT:
                    # The first call compiles (and may run the kernel while
                    # tracing); the second is what every later call does.
                    first = ran()
                    try:
                        call(fn)
                    except Exception:
                        pass
                    row[f"{column} runs"] = [first, ran()]
        rows.append(row)
    os.unlink(runs)
    with open(args.out, "w") as f:
        json.dump({"torch": torch.__version__, "rows": rows}, f, indent=1)


# --- driver (standard library) -----------------------------------------------

def measure_with(python, only=None):
    """Measures every generated operator, or those named ("ns::op") in only."""
    with tempfile.TemporaryDirectory() as tmp:
        src = os.path.join(tmp, "tt_reg_ops.cpp")
        generate(src)
        out = os.path.join(tmp, "rows.json")
        cmd = [python, os.path.abspath(__file__), "measure", "--out", out]
        if only is not None:
            with open(os.path.join(tmp, "ops.json"), "w") as f:
                json.dump(sorted(only), f)
            cmd += ["--ops", os.path.join(tmp, "ops.json")]
        return um.run_measurement(cmd + [src], out, python, WHAT)


def comparable(row):
    """What check compares: the verdicts, not error texts (they carry paths
    and line numbers that move between runs)."""
    keys = ["op", "opcheck", "opcheck_message", "uncompiled", "uncompiled_runs",
            "fake_refused", *COLUMNS]
    keys += [f"{b} breaks" for b in BACKENDS]
    keys += [f"{c} runs" for c in COLUMNS]
    return {k: row.get(k) for k in keys}


def cell(row, column):
    if "uncompiled" in row:
        return "(uncompiled: " + row["uncompiled"] + ")"
    text = row[column]
    backend, mode = column.split()
    breaks = row.get(f"{backend} breaks") if mode == "default" else None
    if breaks:
        text += f", {breaks} break" + ("s" if breaks > 1 else "")
    runs = row.get(f"{column} runs")
    if runs:
        text += f", ran {runs[0]}/{runs[1]}"
    return text


def render(table):
    """One table for every version: a cell that differs between versions
    names each version's value."""
    labels = [lab for lab in table["order"] if lab in table["versions"]]
    # "2.8.0" for "2.8.0+cu128": the wheel's local tag says nothing here.
    short = {lab: table["versions"][lab].split("+")[0] for lab in labels}
    by_version = {}
    for r in table["rows"]:
        by_version.setdefault(r["torch"], {})[r["op"]] = r
    messages = []
    head = ["registration", "schema", "opcheck", *COLUMNS]
    lines = ["| " + " | ".join(head) + " |", "|" + "---|" * len(head)]
    first = by_version[table["versions"][labels[0]]]
    for op, r0 in first.items():
        cells = [f"`{r0['registration']}`", f"`{r0['schema']}`"]

        def joined(fn):
            got = [(lab, fn(by_version[table["versions"][lab]].get(op))) for lab in labels]
            if len({g for _, g in got}) == 1:
                return got[0][1]
            return "<br>".join(f"{short[lab]}: {g}" for lab, g in got)

        def verdict(r):
            if r is None:
                return "-"
            if not r["opcheck_message"]:
                return r["opcheck"]
            if r["opcheck_message"] not in messages:
                messages.append(r["opcheck_message"])
            return f"{r['opcheck']} [{messages.index(r['opcheck_message']) + 1}]"
        cells.append(joined(verdict))
        for c in COLUMNS:
            cells.append(joined(lambda r: cell(r, c) if r else "-"))
        lines.append("| " + " | ".join(cells) + " |")
    lines.append("")
    lines.append("Versions: " + ", ".join(f"{lab} = {table['versions'][lab]}" for lab in labels)
                 + ". `N break(s)`: graph breaks (default mode); `ran a/b`: how often the "
                 "side-effect kernel ran in the first (compiling) call / a later call "
                 "(uncompiled: 1). opcheck's messages:")
    lines.append("")
    lines += [f"{i + 1}. `{m}`" for i, m in enumerate(messages)]
    effect = {}
    for lab in labels:
        for r in by_version[table["versions"][lab]].values():
            if "effect_api" in r:
                effect[short[lab]] = r["effect_api"]
    if effect:
        lines += ["", "`python_fake_effectful` marks the operators with "
                  + "; ".join(f"`{api}` ({v})" for v, api in effect.items()) + "."]
    return "\n".join(lines)


BEGIN = "<!-- BEGIN GENERATED: registrations.py write rewrites this part -->"


def cmd_write(args):
    table = um.read_table(JSON_PATH)
    for spec in args.python:
        label, python = um.python_of(spec, WHAT)
        if python:
            um.merge_measurement(table, label, measure_with(python))
            sampling.stamp(SUITE, label, INPUTS, python)
    um.write_table(JSON_PATH, table)
    with open(DOC_PATH) as f:
        if BEGIN not in f.read():
            raise SystemExit(f"{DOC_PATH} has no {BEGIN}: add the markers where the table goes")
    um.rewrite_generated(DOC_PATH, BEGIN, render(table))
    print(render(table))


def cmd_check(args):
    label, python = um.python_of(args.python, WHAT)
    if not python:
        return um.SKIP_CODE
    table = um.read_table(JSON_PATH)
    want_version = table["versions"].get(label)
    ops = operators()
    is_whole, why = sampling.whole(SUITE, label, INPUTS, python)
    only = None
    if not is_whole:
        # Every registration shape, form and declaration keeps an operator.
        chosen = sampling.sample(ops, [lambda o: o[2], lambda o: o[3], lambda o: o[4]])
        only = {f"{ns}::{name}" for ns, name, _, _, _ in chosen}
        table = dict(table, rows=[r for r in table["rows"] if r["op"] in only])
    sampling.say(f"{WHAT} {label}", is_whole, why, len(only or ops), len(ops))
    got = measure_with(python, only)
    status = um.compare_with_table(got, table, want_version, comparable, WHAT,
                                   "tools/ground-truth/registrations.py")
    if status == 0 and is_whole and args.stamp:
        sampling.stamp(SUITE, label, INPUTS, python)
        print(f"{WHAT}: recorded the inputs of {label} in docs/ground-truth-inputs.json")
    return status


def main():
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    sub = p.add_subparsers(dest="cmd", required=True)
    sub.add_parser("generate").add_argument("out")
    m = sub.add_parser("measure")
    m.add_argument("--out", required=True)
    m.add_argument("--ops", help="a JSON list of ns::name: measure only these")
    m.add_argument("sources", nargs="+")
    w = sub.add_parser("write", help="re-measure, rewrite the table and the doc's table")
    w.add_argument("--python", action="append", default=[], help="LABEL=PYTHON")
    c = sub.add_parser("check", help="re-measure one version against the table (a sample "
                       "when the inputs are those it was measured from: sampling.py)")
    c.add_argument("--python", required=True, help="LABEL=PYTHON")
    c.add_argument("--stamp", action="store_true",
                   help="once every operator was re-measured and matches, record the inputs")
    args = p.parse_args()
    if args.cmd == "generate":
        generate(args.out)
        return 0
    if args.cmd == "measure":
        _measure(args)
        return 0
    return {"write": cmd_write, "check": cmd_check}[args.cmd](args) or 0


if __name__ == "__main__":
    sys.exit(main())
