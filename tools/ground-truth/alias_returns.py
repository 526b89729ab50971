#!/usr/bin/env python3
"""Why torch-op-undeclared-mutation fixes a returned argument with a copy.

A kernel that returns an argument it received (or a view of it) fails
opcheck's test_schema unless the schema says the output aliases it. The
check's fix returns a copy (rule return-clone). The fix that keeps the alias
instead declares it ('Tensor(a) m -> Tensor(a)') and returns a view. This
builds one CPU operator per form, with a fake kernel of the same shape, and
measures, under each torch:
  - opcheck with its whole default suite (test_schema,
    test_autograd_registration, test_faketensor, test_aot_dispatch_dynamic):
    "pass" or the name of the first test that fails;
  - torch.compile(fullgraph=True) with eager, aot_eager and inductor, inputs
    with and without requires_grad: "same" (the uncompiled values), or
    "different", or "error".

  alias_returns.py --python LABEL=PYTHON [--python ...]
      measures and checks that every alias-keeping form fails as EXPECTED
      says, that the copy passes everything, and that the check's note
      (ALIAS_NOTE in checks/OpUndeclaredMutationCheck.cpp) names the opcheck
      test and the backends measured here. Exit 0 when all hold, 1
      otherwise, 77 when no torch could run (SKIP said by name).
"""
import os
import re
import sys
import tempfile

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import undeclared_mutation as um  # noqa: E402  (shared helpers)

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(HERE))
CHECK_SOURCE = os.path.join(ROOT, "checks", "OpUndeclaredMutationCheck.cpp")
BACKENDS = ["eager", "aot_eager", "inductor"]

# name -> (schema, kernel body, fake kernel on (m, v)).
FORMS = {
    # The alias-keeping fix: a declared alias and a view of the argument.
    "alias_view": ("(Tensor(a) m, Tensor v) -> Tensor(a)", "return m.alias();",
                   "m.view_as(m)"),
    "alias_narrow": ("(Tensor(a) m, Tensor v) -> Tensor(a)",
                     "return m.narrow(0, 1, 2);", "m.narrow(0, 1, 2)"),
    # The argument itself, declared.
    "alias_self": ("(Tensor(a) m, Tensor v) -> Tensor(a)", "return m;", "m"),
    # A written argument returned as a written alias.
    "write_alias": ("(Tensor(a!) m, Tensor v) -> Tensor(a!)",
                    "m.mul_(2);\n  return m;", "m"),
    # The check's fix.
    "copy": ("(Tensor m, Tensor v) -> Tensor", "return m.clone();",
             "torch.empty_like(m)"),
    "write_copy": ("(Tensor(a!) m, Tensor v) -> Tensor",
                   "m.mul_(2);\n  return m.clone();", "torch.empty_like(m)"),
}
# What was measured on torch 2.8.0 and 2.15.0: opcheck's verdict, and the
# backends under which torch.compile fails (with and without grad).
EXPECTED = {
    "alias_view": ("test_aot_dispatch_dynamic", {"aot_eager", "inductor"}),
    "alias_narrow": ("test_aot_dispatch_dynamic", {"aot_eager", "inductor"}),
    "alias_self": ("test_schema", {"aot_eager", "inductor"}),
    "write_alias": ("test_aot_dispatch_dynamic", {"aot_eager", "inductor"}),
    "copy": ("pass", set()),
    "write_copy": ("pass", set()),
}


def generate():
    lines = ["#include <ATen/ATen.h>", "#include <torch/library.h>", ""]
    for name, (_, body, _) in FORMS.items():
        lines.append(f"at::Tensor k_{name}(const at::Tensor &m, const at::Tensor &v) {{\n"
                     f"  {body}\n}}")
    lines.append("TORCH_LIBRARY(tt_ar, m) {")
    lines += [f'  m.def("{name}{schema}");' for name, (schema, _, _) in FORMS.items()]
    lines += ["}", "TORCH_LIBRARY_IMPL(tt_ar, CPU, m) {"]
    lines += [f'  m.impl("{name}", &k_{name});' for name in FORMS]
    lines += ["}", ""]
    return "\n".join(lines)


def measure():
    import warnings
    import logging
    os.environ.setdefault("TORCHINDUCTOR_CACHE_DIR", tempfile.mkdtemp(prefix="tt-ar-ind-"))
    import torch
    warnings.filterwarnings("ignore")
    logging.disable(logging.WARNING)
    um.load_inline_operators(torch, "tt_ar", generate())
    version = torch.__version__.split("+")[0]
    for name, (_, _, fake) in FORMS.items():
        torch.library.register_fake(f"tt_ar::{name}")(
            eval(f"lambda m, v: {fake}", {"torch": torch}))
        op = getattr(torch.ops.tt_ar, name)
        g = torch.Generator().manual_seed(7)
        try:
            torch.library.opcheck(op, (torch.randn(4, 3, generator=g),
                                       torch.randn(2, 3, generator=g)))
            verdict = "pass"
        except Exception as e:
            found = re.search(r"(test_\w+) failed", str(e))
            verdict = found.group(1) if found else "error"
        print(f"ROW {version} {name} opcheck {verdict}", flush=True)

        def program(x, v):
            m = x * 1
            r = op(m, v)
            return (m * 2).sum(), r * 3

        for grad in (False, True):
            for backend in BACKENDS:
                torch._dynamo.reset()
                x = torch.randn(4, 3, generator=torch.Generator().manual_seed(1),
                                requires_grad=grad)
                v = torch.randn(2, 3, generator=torch.Generator().manual_seed(2))
                try:
                    want = program(x, v)
                    got = torch.compile(program, backend=backend, fullgraph=True)(x, v)
                    same = all(torch.allclose(a, b) for a, b in zip(want, got))
                    result = "same" if same else "different"
                except Exception:
                    result = "error"
                print(f"ROW {version} {name} {backend}{'_grad' if grad else ''} {result}",
                      flush=True)


def note_text():
    """The check's note on a returned argument, as its source spells it."""
    text = open(CHECK_SOURCE).read()
    found = re.search(r"ALIAS_NOTE\s*=\s*((?:\s*\"[^\"]*\")+)", text)
    if not found:
        return None
    return "".join(re.findall(r'"([^"]*)"', found.group(1)))


def main():
    args = um.venv_script_args(__doc__, measure)
    if args is None:
        return 0
    problems = []
    note = note_text()
    if note is None:
        problems.append("ALIAS_NOTE is not found in " + CHECK_SOURCE)
    else:
        for test in {t for t, _ in EXPECTED.values() if t not in ("pass", "test_schema")}:
            if test not in note:
                problems.append(f"the check's note does not name {test}: {note!r}")
        failing = set().union(*(b for _, b in EXPECTED.values()))
        for backend in BACKENDS:
            if (backend in failing) != (re.search(rf"\b{backend}\b", note) is not None):
                problems.append(f"the check's note {'omits' if backend in failing else 'names'}"
                                f" backend {backend}: {note!r}")
    measured, failed = um.measure_under_venvs(args.python, __file__, "alias-returns")
    problems += failed
    ran = len(measured)
    for label, rows in measured:
        got = {(r[2], r[3]): r[4] for r in rows}
        for name, (verdict, failing) in EXPECTED.items():
            print(f"torch {rows[0][1]} {name:13} opcheck {got.get((name, 'opcheck'))}; "
                  + ", ".join(f"{c} {got.get((name, c))}"
                              for c in BACKENDS + [b + "_grad" for b in BACKENDS]))
            if got.get((name, "opcheck")) != verdict:
                problems.append(f"torch {label} {name}: opcheck {got.get((name, 'opcheck'))}, "
                                f"expected {verdict}")
            for backend in BACKENDS:
                for column in (backend, backend + "_grad"):
                    want = "error" if backend in failing else "same"
                    if got.get((name, column)) != want:
                        problems.append(f"torch {label} {name}: {column} "
                                        f"{got.get((name, column))}, expected {want}")
    return um.venv_script_verdict(
        problems, ran, "alias-returns",
        f"{len(EXPECTED)} forms as expected under {ran} torch version(s)")


if __name__ == "__main__":
    sys.exit(main())
