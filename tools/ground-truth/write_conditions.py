#!/usr/bin/env python3
"""What torch.compile does with two kinds of undeclared write whose effect
depends on a condition the check cannot see from the kernel alone.

1. A write of an argument's metadata (`m.unsqueeze_(0)`, `m.t_()`,
   `m.resize_({2, 6})`) on `Tensor m` (and `m.unsqueeze_(0)` on
   `const at::Tensor &m`), the kernel's output read in the new
   shape (`return m * 2;`), under two fakes: one that returns the
   unwritten input's shape (`fake_input`) and one that returns the written
   shape (`fake_written`). Which backend computes silently wrong values and
   which raises depends on the fake.
2. A write through a method that returns its receiver where it makes no
   copy (`at::Tensor s = m.to(at::kFloat).mul_(2);`, `m.contiguous()`), its
   result read, with a fake: for a float32, contiguous `m` it writes `m`;
   `m.to(at::kDouble).mul_(2)` writes a copy only (the negative).

The check's own --fix of the forms (run with the lit suite's mock headers:
`m = m.unsqueeze(0);`, `auto m_unsqueezed = m.unsqueeze(0);` and its uses,
`.mul(2)`) is built beside them (operators
NAME_fixed) and measured the same way: each fixed form passes test_schema,
and computes eager's values compiled where its fake returns the kernel's
output shape; the fixed source is compiled against LibTorch 1.13 too.

Each operator is a CPU kernel with a Python fake. The caller reads the
argument after the call (`m = x * 1; r = op(m, v); return m * 2, r * 3`);
eager, aot_eager and inductor (fullgraph=True) are compared with the
uncompiled call, shape and values: "same", "differs" (the caller's `m` or
the result differ, no error), or "error". opcheck's test_schema verdict is
recorded too.

  write_conditions.py --python LABEL=PYTHON [--python ...]
                      [--clang-tidy PATH --module PATH --mock-include DIR]
                      [--libtorch113-include DIR ...] [--write]
      measures under each torch and checks that every cell equals the
      committed table (docs/ground-truth-write-conditions.json; --write
      rewrites it instead, where everything else holds), that each form the
      check fixes passes once fixed, and that the check's messages
      (METADATA_CONSEQUENCE and the conditional-write clause in
      checks/OpUndeclaredMutationCheck.cpp) state what was measured. Exit 0
      when all hold, 1 otherwise, 77 when no torch could run (SKIP said by
      name).
"""
import os
import re
import sys
import tempfile

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import undeclared_mutation as um  # noqa: E402  (shared helpers)
from alias_returns import (check_text, compile_113, table_problems,  # noqa: E402
                           take, take_flag, write_table)

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(HERE))
CHECK_SOURCE = os.path.join(ROOT, "checks", "OpUndeclaredMutationCheck.cpp")
BACKENDS = ["eager", "aot_eager", "inductor"]

# Metadata writes: method -> (the kernel's statement on m, what the
# written-shape fake does to its clone of m).
METADATA = {
    "unsqueeze_": ("m.unsqueeze_(0);", "t.unsqueeze_(0)"),
    "t_": ("m.t_();", "t.t_()"),
    "resize_": ("m.resize_({2, 6});", "t.resize_(2, 6)"),
}
FAKES = {
    "fake_input": "torch.empty_like(m) * 2",
    "fake_written": "WRITE(m.clone()) * 2",
}
# Value writes through a method that may return its receiver.
CONDITIONAL = {
    "to_same": "at::Tensor s = m.to(at::kFloat).mul_(2);",
    "contiguous_same": "at::Tensor s = m.contiguous().mul_(2);",
    "to_other": "at::Tensor s = m.to(at::kDouble).mul_(2).to(at::kFloat);",
}


# Metadata writes on a const reference (`const at::Tensor &m`, torchao's
# prepack kernels): the check's fix binds a new local (metadata-to-local).
REF_METADATA = {"unsqueeze_": METADATA["unsqueeze_"]}
BY_VALUE = "at::Tensor m"
BY_REF = "const at::Tensor &m"


def forms():
    """name -> (kernel body, fake expression on (m, v), written-shape
    statement or None, the kernel's parameter m)."""
    out = {}
    for methods, tag, param in ((METADATA, "", BY_VALUE), (REF_METADATA, "_ref", BY_REF)):
        for method, (stmt, write) in methods.items():
            for fake, expr in FAKES.items():
                out[f"{method.strip('_')}{tag}_{fake}"] = (
                    f"{stmt}\n  return m * 2;", expr, write, param)
    for name, stmt in CONDITIONAL.items():
        out[name] = (f"{stmt}\n  return s * 3 + v.sum();",
                     "torch.empty_like(m)", None, BY_VALUE)
    return out


def generate(suffix=""):
    """The operators' source; with a suffix, the kernels and operators are
    named with it (the fixed copy is built beside the original)."""
    lines = ["#include <ATen/ATen.h>", "#include <torch/library.h>", ""]
    for name, (body, _, _, param) in forms().items():
        lines.append(f"at::Tensor k_{name}{suffix}({param}, const at::Tensor &v) {{\n"
                     f"  {body}\n}}")
    lines.append(f"TORCH_LIBRARY(tt_wc{suffix}, m) {{")
    lines += [f'  m.def("{name}(Tensor m, Tensor v) -> Tensor");' for name in forms()]
    lines += ["}", f"TORCH_LIBRARY_IMPL(tt_wc{suffix}, CPU, m) {{"]
    lines += [f'  m.impl("{name}", &k_{name}{suffix});' for name in forms()]
    lines += ["}", ""]
    return "\n".join(lines)


FIXED = os.path.join(tempfile.gettempdir(), "tt-write-conditions-fixed.cpp")
# The committed measurement (--write rewrites it); check_claims.py runs
# claims() on it.
TABLE = os.path.join(ROOT, "docs", "ground-truth-write-conditions.json")


def fix_with_check(clang_tidy, module, mock_include):
    """The check's own --fix of the forms (the fixed copy, written to
    FIXED), and the forms its fixes changed; a problem string instead where
    it could not run."""
    import subprocess
    with tempfile.TemporaryDirectory(prefix="tt-wc-fix-") as tmp:
        path = os.path.join(tmp, "forms.cpp")
        with open(path, "w") as f:
            f.write(generate("_fixed"))
        res = subprocess.run(
            [clang_tidy, f"--load={module}", "-checks=-*,torch-op-undeclared-mutation",
             "--fix-notes", path, "--", "-std=c++17", "-isystem", mock_include],
            stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True,
            env=dict(os.environ, TORCH_TIDY_PROJECT_ROOT="none"))
        fixed = open(path).read()
    if res.returncode not in (0, 1):
        return None, f"clang-tidy --fix failed: {res.stdout[-1500:]}"
    rules = set(re.findall(r"note: rule: ([\w-]+)", res.stdout))
    with open(FIXED, "w") as f:
        f.write(fixed)
    return rules, None


def measure():
    import warnings
    import logging
    os.environ.setdefault("TORCHINDUCTOR_CACHE_DIR", tempfile.mkdtemp(prefix="tt-wc-ind-"))
    import torch
    warnings.filterwarnings("ignore")
    logging.disable(logging.WARNING)
    um.load_inline_operators(torch, "tt_wc", generate())
    fixed = os.environ.get("TT_WC_FIXED")
    if fixed:
        um.load_inline_operators(torch, "tt_wc_fixed", open(fixed).read())
    version = torch.__version__.split("+")[0]
    targets = [("", n, f, w) for n, (_, f, w, _) in forms().items()]
    if fixed:
        targets += [("_fixed", n, f, w) for n, (_, f, w, _) in forms().items()]
    for suffix, name, fake, write in targets:
        env = {"torch": torch}
        if write:
            env["WRITE"] = eval(f"lambda t: ({write}, t)[1]", {"torch": torch})
        torch.library.register_fake(f"tt_wc{suffix}::{name}")(
            eval(f"lambda m, v: {fake}", env))
        op = getattr(getattr(torch.ops, "tt_wc" + suffix), name)
        name = name + suffix
        g = torch.Generator().manual_seed(7)
        try:
            torch.library.opcheck(op, (torch.randn(4, 3, generator=g),
                                       torch.randn(2, 3, generator=g)),
                                  test_utils="test_schema")
            verdict = "pass"
        except Exception as e:
            verdict = um.opcheck_verdict(e).replace(" ", "")
        print(f"ROW {version} {name} opcheck {verdict}", flush=True)

        def program(x, v, op=op):
            m = x * 1
            r = op(m, v)
            return m * 2, r * 3

        for backend in BACKENDS:
            torch._dynamo.reset()
            x = torch.randn(4, 3, generator=torch.Generator().manual_seed(1))
            v = torch.randn(2, 3, generator=torch.Generator().manual_seed(2))
            try:
                want = program(x.clone(), v)
                got = torch.compile(program, backend=backend, fullgraph=True)(x.clone(), v)
                same = all(a.shape == b.shape and torch.allclose(a, b)
                           for a, b in zip(want, got))
                result = "same" if same else "differs"
            except Exception:
                result = "error"
            print(f"ROW {version} {name} {backend} {result}", flush=True)


def claims(measured):
    """The problems of the check's messages against the rows measured: each
    clause of METADATA_CONSEQUENCE and CONDITIONAL_CONSEQUENCE is asserted
    only where every version measured shows it."""
    problems = []
    meta = check_text("METADATA_CONSEQUENCE")
    cond = check_text("CONDITIONAL_CONSEQUENCE")
    if meta is None or cond is None:
        return ["METADATA_CONSEQUENCE or CONDITIONAL_CONSEQUENCE is not in "
                + CHECK_SOURCE]
    got = {}
    for label, rows in measured:
        for r in rows:
            got[(r[1], r[2], r[3])] = r[4]
    versions = sorted({v for v, _, _ in got})

    def every(names, column, value, only=None):
        return all(got.get((v, n, column)) == value
                   for v in (only or versions) for n in names)

    def claim(text, phrase, holds, what):
        if (phrase in text) != holds:
            problems.append(f"the message {'says' if phrase in text else 'omits'} "
                            f"{phrase!r}, but {what} {'does not hold' if not holds else 'holds'}"
                            f" on {versions}")

    fin = ([f"{m.strip('_')}_fake_input" for m in METADATA]
           + [f"{m.strip('_')}_ref_fake_input" for m in REF_METADATA])
    fwr = ([f"{m.strip('_')}_fake_written" for m in METADATA]
           + [f"{m.strip('_')}_ref_fake_written" for m in REF_METADATA])
    claim(meta, "inductor raises where the fake returns the unwritten shape",
          every(fin, "inductor", "error"), "inductor's error with fake_input")
    claim(meta, "unwritten metadata, silently, where it returns the written one",
          every(fwr, "inductor", "differs"), "inductor's silent difference with fake_written")
    claim(meta, "aot_eager gave eager's values with both",
          every(fin + fwr, "aot_eager", "same"), "aot_eager's equal values")
    same = ["to_same", "contiguous_same"]
    claim(cond, "where no copy is made, inductor computes with the unwritten values",
          every(same, "inductor", "differs"), "inductor's difference")
    claim(cond, "aot_eager gave eager's values",
          every(same, "aot_eager", "same"), "aot_eager's equal values")
    claim(cond, "measured on %0", len(versions) >= 2, "a measurement on both versions")
    return problems


def main():
    tidy = take(sys.argv, "--clang-tidy")
    module = take(sys.argv, "--module")
    mock = take(sys.argv, "--mock-include")
    libtorch113 = take(sys.argv, "--libtorch113-include")
    write = take_flag(sys.argv, "--write")
    args = um.venv_script_args(__doc__, measure)
    if args is None:
        return 0
    problems, rules = [], set()
    if tidy and module and mock:
        rules, failed = fix_with_check(tidy[0], module[0], mock[0])
        if failed:
            problems.append(failed)
        else:
            os.environ["TT_WC_FIXED"] = FIXED
            print(f"the check's fixes of the forms: rules {sorted(rules)}")
            for rule in ("metadata-out-of-place", "metadata-to-local",
                         "copy-write-out-of-place"):
                if rule not in rules:
                    problems.append(f"the check's --fix used no {rule} fix")
            if libtorch113:
                problems += compile_113(
                    libtorch113, open(FIXED).read(), "the fixed forms")
    else:
        print("SKIPPED the fixes of write-conditions: no --clang-tidy, --module "
              "and --mock-include given")
    measured, failed = um.measure_under_venvs(args.python, __file__, "write-conditions")
    problems += failed
    fixed_names = [n + "_fixed" for n in forms()] if rules else []
    for label, rows in measured:
        got = {(r[2], r[3]): r[4] for r in rows}
        cols = ["opcheck"] + BACKENDS
        for name in list(forms()) + fixed_names:
            values = tuple(got.get((name, c)) for c in cols)
            print(f"torch {rows[0][1]} {name:34} "
                  + ", ".join(f"{c} {v}" for c, v in zip(cols, values)))
            want = None  # the committed table holds the forms' cells
            if name.endswith("_fixed"):
                base = name[:-len("_fixed")]
                # A form the check fixed passes opcheck and computes eager's
                # values compiled; one it left alone behaves as before.
                changed = open(FIXED).read().split(f"k_{base}_fixed(")[1].split("}")[0] != \
                    generate("_fixed").split(f"k_{base}_fixed(")[1].split("}")[0]
                want = ("pass", "same", "same", "same") if changed else None
                if changed and base.endswith("_fake_input"):
                    # The fix keeps the kernel's output shape: a fake that
                    # returns another is the fake's own error under
                    # torch.compile; opcheck's test_schema is what the fix
                    # answers.
                    want = ("pass",) + values[1:]
            if want and values != want:
                problems.append(f"torch {label} {name}: {values}, expected {want}")
    problems += claims(measured)
    if write and not problems:
        write_table(measured, TABLE, "write_conditions.py")
    elif not write:
        # The fixed forms are measured only with the check (--clang-tidy).
        problems += table_problems(measured, TABLE, "write_conditions.py",
                                   optional=lambda name: name.endswith("_fixed"))
    return um.venv_script_verdict(
        problems, len(measured), "write-conditions",
        f"{len(forms())} forms and the check's fixes of them as expected and as "
        f"{os.path.relpath(TABLE, ROOT)} says, the messages' claims measured, under "
        f"{len(measured)} torch version(s)")


if __name__ == "__main__":
    sys.exit(main())
