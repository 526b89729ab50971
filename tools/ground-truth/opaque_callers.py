#!/usr/bin/env python3
"""What compiled callers see of an operator called inside a Python custom op.

torch-op-undeclared-mutation reports an operator whose kernel writes an
argument its schema does not declare mutable. A project may call it only
inside a Python `@torch.library.custom_op` function, which torch.compile
calls as one operator without tracing into it. This builds two CPU operators
(C++, with a no-op Python fake each, as the silent class has): `add_rows`,
which writes its argument m undeclared, and `record`, which writes nothing
and counts its runs. It calls each directly and inside Python custom ops
whose mutates_args lists the argument passed, lists nothing, or is
"unknown", and measures under torch.compile(fullgraph=True) with aot_eager
and inductor: "same" (the uncompiled values, or as many runs), "different"
(other values, or fewer runs), or "error". The same write in a C++ function
a pybind11 module binds (`fill_rows`), called inside Python custom ops that
list the argument or list nothing, with a fake and without one (issue 80:
a Python-declared schema over a C++ write), gives the rows pybind_*.

  opaque_callers.py --python LABEL=PYTHON [--python ...]
      measures and checks the table EXPECTED under each torch, and that the
      check's note (noteOpaqueCallers in checks/OpUndeclaredMutationCheck.cpp)
      says what EXPECTED measures: the write seen where mutates_args lists
      the argument, lost where it lists nothing. Exit 0 when all hold, 1
      otherwise, 77 when no torch could run (SKIP said by name).
"""
import os
import re
import sys
import tempfile

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import undeclared_mutation as um  # noqa: E402  (shared helpers)

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
CHECK_SOURCE = os.path.join(ROOT, "checks", "OpUndeclaredMutationCheck.cpp")
BACKENDS = ["aot_eager", "inductor"]

KERNEL = r'''
#include <torch/library.h>
#include <ATen/ATen.h>
static int64_t g_runs = 0;
void add_rows(at::Tensor m, const at::Tensor &v) { m.narrow(0, 0, 2).add_(v); }
void record(const at::Tensor &m) { ++g_runs; }
int64_t runs() { return g_runs; }
TORCH_LIBRARY(tt_oc, m) {
  m.def("add_rows(Tensor m, Tensor v) -> ()");
  m.def("record(Tensor m) -> ()");
  m.def("runs() -> int");
}
TORCH_LIBRARY_IMPL(tt_oc, CPU, m) {
  m.impl("add_rows", &add_rows);
  m.impl("record", &record);
}
TORCH_LIBRARY_IMPL(tt_oc, CompositeExplicitAutograd, m) {
  m.impl("runs", &runs);
}
'''

PYBIND = r'''
#include <torch/extension.h>
void fill_rows(at::Tensor out, const at::Tensor &v) { out.narrow(0, 0, 2).add_(v); }
PYBIND11_MODULE(TORCH_EXTENSION_NAME, m) { m.def("fill_rows", &fill_rows); }
'''

# case -> (what the custom op's mutates_args is, or None for a direct call;
# the inner operator) : the measured result under every backend.
CASES = {
    "write_direct": (None, "add_rows"),
    "write_in_listed": (("x",), "add_rows"),
    "write_in_unlisted": ((), "add_rows"),
    "write_in_unknown": ("unknown", "add_rows"),
    "record_direct": (None, "record"),
    "record_in_listed": (("x",), "record"),
    "record_in_unlisted": ((), "record"),
    "record_in_unknown": ("unknown", "record"),
    "pybind_in_listed": (("x",), "pybind"),
    "pybind_in_unlisted": ((), "pybind"),
    "pybind_in_unlisted_nofake": ((), "pybind"),
}
EXPECTED = {
    "write_direct": "different",
    "write_in_listed": "same",
    "write_in_unlisted": "different",
    "write_in_unknown": "same",
    "record_direct": "different",
    "record_in_listed": "same",
    "record_in_unlisted": "different",
    "record_in_unknown": "same",
    "pybind_in_listed": "same",
    "pybind_in_unlisted": "different",
    "pybind_in_unlisted_nofake": "error",
}


def measure():
    import logging
    import warnings
    os.environ.setdefault("TORCHINDUCTOR_CACHE_DIR", tempfile.mkdtemp(prefix="tt-oc-ind-"))
    import torch
    warnings.filterwarnings("ignore")
    logging.disable(logging.WARNING)
    um.load_inline_operators(torch, "tt_oc", KERNEL)
    import extension_build
    ext = extension_build.load_module_texts(torch, "tt_oc_pybind",
                                            [("pybind.cpp", PYBIND)])
    for name in ("add_rows", "record"):
        torch.library.register_fake(f"tt_oc::{name}")(lambda *args: None)
    version = torch.__version__.split("+")[0]
    for case, (mutates, inner) in CASES.items():
        op = ext.fill_rows if inner == "pybind" else getattr(torch.ops.tt_oc, inner)
        if mutates is None:
            call = op
        else:
            qualified = f"tt_oc::{case}"
            if inner in ("add_rows", "pybind"):
                def body(x: torch.Tensor, y: torch.Tensor) -> None:
                    op(x, y)
            else:
                def body(x: torch.Tensor, y: torch.Tensor) -> None:
                    op(x)
            call = torch.library.custom_op(qualified, mutates_args=mutates)(body)
            if not case.endswith("_nofake"):
                call.register_fake(lambda x, y: None)
        if inner in ("add_rows", "pybind"):
            def f(x, v, call=call):
                m = x * 1
                call(m, v)
                return m * 2
        else:
            def f(x, v, call=call):
                (call(x) if mutates is None else call(x, v))
                return x * 2
        x, v = torch.randn(4, 3), torch.randn(2, 3)
        before = torch.ops.tt_oc.runs()
        want = f(x, v)
        want_runs = torch.ops.tt_oc.runs() - before
        for backend in BACKENDS:
            torch._dynamo.reset()
            try:
                before = torch.ops.tt_oc.runs()
                got = torch.compile(f, backend=backend, fullgraph=True)(x, v)
                ran = torch.ops.tt_oc.runs() - before
                same = torch.allclose(got, want) and ran == want_runs
                result = "same" if same else "different"
            except Exception as e:  # what compiling raised
                # "error": compiling could not run it on fake tensors (the
                # custom op without a fake); any other failure is its own.
                result = "error" if "fake" in str(e).lower() else \
                    f"error-other-{type(e).__name__}"
                print(f"# {case} {backend}: {type(e).__name__}: {str(e)[:200]}")
            print(f"ROW {version} {case} {backend} {result}", flush=True)


def note_text(function="noteOpaqueCallers"):
    text = open(CHECK_SOURCE).read()
    start = text.find(f"void OpUndeclaredMutationCheck::{function}(")
    end = text.find("\n}\n", start)
    return None if start < 0 else text[start:end]


def main():
    args = um.venv_script_args(__doc__, measure)
    if args is None:
        return 0
    problems = []
    note = note_text()
    if note is None:
        problems.append("noteOpaqueCallers is not found in " + CHECK_SOURCE)
    else:
        # The note's clauses, each the outcome of a measured case.
        flat = re.sub(r'"\s*\n\s*"', "", note)
        for clause, case in (("so compiled callers of it see the write", "write_in_listed"),
                             ("lose the write too, silently", "write_in_unlisted"),
                             ("is \\\"unknown\\\", which torch takes as any argument "
                              "written, so compiled callers of it see the write",
                              "write_in_unknown"),
                             ("declares nothing mutable, so compiled callers of it lose "
                              "its calls, and what the kernel does, silently",
                              "record_in_unlisted")):
            if clause not in flat:
                problems.append(f"the check's note lacks the clause of {case}: {clause!r}")
    # The warning of a pybind11-bound function's write (checkPybindCallees):
    # its two classes, each the outcome of a measured case.
    pybind = note_text("checkPybindCallees")
    if pybind is None:
        problems.append("checkPybindCallees is not found in " + CHECK_SOURCE)
    else:
        flat = re.sub(r'"\s*\n\s*"', "", pybind)
        for clause, case in (("compiled callers lose the write, silently",
                              "pybind_in_unlisted"),
                             ("compiling a call of it fails", "pybind_in_unlisted_nofake")):
            if clause not in flat:
                problems.append(f"the pybind warning lacks the clause of {case}: {clause!r}")
    measured, failed = um.measure_under_venvs(args.python, __file__, "opaque-callers")
    problems += failed
    for label, rows in measured:
        got = {(r[2], r[3]): r[4] for r in rows}
        for case, want in EXPECTED.items():
            cells = [got.get((case, b)) for b in BACKENDS]
            print(f"torch {rows[0][1]} {case:20} " +
                  ", ".join(f"{b} {c}" for b, c in zip(BACKENDS, cells)))
            for b, c in zip(BACKENDS, cells):
                if c != want:
                    problems.append(f"torch {label} {case} {b}: {c}, expected {want}")
    return um.venv_script_verdict(
        problems, measured, "opaque-callers",
        f"{len(EXPECTED)} cases as expected under {len(measured)} torch version(s)")


if __name__ == "__main__":
    sys.exit(main())
