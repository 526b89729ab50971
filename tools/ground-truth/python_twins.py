#!/usr/bin/env python3
"""The Python twins: runnable models of the shape a project writes, each
for a finding of torch-tidy-py (docs/found.md) or an example, measured on
real torch.compile.

A twin is a Python file with
  TWIN = {"write_line": N,          # the write torch-tidy-py must report (None:
                                    # a negative twin, nothing to report)
          "fix": False,             # optional: no fix is offered (a note says why)
          "hand_fix": [old, new],   # optional, with "fix": False: what the note
                                    # says to write, measured as a fix is
          "params": "prefix",       # the parameters whose gradients count
          "expect": {"2.8.0": "none", "latest": "same"}}
  setup() -> (model, inputs)        # a fresh model and its inputs
  compile_model(model, backend)     # optional: how the project compiles it
                                    # (default: torch.compile(model, backend=))
For each torch of --python, the check runs the twin uncompiled and compiled
with aot_eager and inductor, and compares the gradients of `params` with the
uncompiled ones: "same", "differs" or "none" (no gradient at all); each
compiled backend must give what `expect` says for that torch. Then, with the
tools venv's Python: torch-tidy-py must warn at write_line; its --fix on a
copy must make every backend give the uncompiled gradients ("same"), and a
second --fix must change nothing.

  python_twins.py check --python LABEL=PY --tidy TORCH_TIDY_PY --tidy-python PY
Exit 0 all as expected, 1 a difference (listed), 77 no such venv (said).
"""
import argparse
import ast
import importlib.util
import json
import os
import re
import shutil
import subprocess
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(HERE))
TWINS = [os.path.join(HERE, "python_twins", f)
         for f in sorted(os.listdir(os.path.join(HERE, "python_twins"))) if f.endswith(".py")]
TWINS.append(os.path.join(ROOT, "examples", "adapter_blocks.py"))
BACKENDS = ("aot_eager", "inductor")
SKIP = 77


def _load(path, name):
    spec = importlib.util.spec_from_file_location(name, path)
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    return mod


def measure(path):
    """In a torch venv: one JSON line {"torch", "cells": {backend: cell}}."""
    import logging
    import warnings
    import torch
    import torch._dynamo
    warnings.filterwarnings("ignore")
    logging.disable(logging.WARNING)
    twin = _load(path, "tt_twin")
    prefix = twin.TWIN["params"]

    def grads(backend):
        torch._dynamo.reset()
        model, inputs = twin.setup()
        run = model
        if backend != "none":
            if hasattr(twin, "compile_model"):
                compiled = twin.compile_model(model, backend)
                run = model if compiled is None else compiled  # no truth test: an
                # OptimizedModule of torch 2.15 raises TypeError on len()
            else:
                run = torch.compile(model, backend=backend)
        out = run(*inputs)
        weights = torch.linspace(-1.0, 1.0, out.numel()).view_as(out)
        loss = (out * weights).sum()
        if loss.requires_grad:
            loss.backward()
        return {n: p.grad for n, p in model.named_parameters() if n.startswith(prefix)}

    eager = grads("none")
    cells = {}
    for b in BACKENDS:
        try:
            got = grads(b)
        except Exception as e:
            cells[b] = f"error: {type(e).__name__}"
            continue
        if all(g is None for g in got.values()) and any(g is not None for g in eager.values()):
            cells[b] = "none"
        elif all((g is None and eager[n] is None) or
                 (g is not None and eager[n] is not None and torch.allclose(g, eager[n],
                                                                            atol=1e-6))
                 for n, g in got.items()):
            cells[b] = "same"
        else:
            cells[b] = "differs"
    print("CELLS " + json.dumps({"torch": torch.__version__.split("+")[0], "cells": cells}))


def run_measure(python, path):
    res = subprocess.run([python, os.path.abspath(__file__), "measure", path],
                         capture_output=True, text=True, timeout=900)
    line = next((x for x in res.stdout.splitlines() if x.startswith("CELLS ")), None)
    if res.returncode or line is None:
        raise RuntimeError(f"measuring {os.path.basename(path)} failed: "
                           f"{res.stderr[-1500:]}")
    return json.loads(line[6:])


def fixed_measured(python, fixed, version, said, problem):
    """A fixed twin measured: [] where every backend gives the uncompiled
    gradients, else the problem."""
    name = os.path.basename(fixed)
    after = run_measure(python, fixed)["cells"]
    ok = all(c == "same" for c in after.values())
    print(f"{name}: torch {version}: {said}: {after}" + ("" if ok else " (NOT FIXED)"))
    return [] if ok else [f"{name}: {problem} on torch {version}: {after}"]


def check(args):
    label, _, python = (args.python or "").partition("=")
    if not python or not os.path.exists(python):
        print(f"SKIP python-twins torch {label}: no venv python ({python or 'not given'}); "
              "tools/bootstrap could not install it")
        return SKIP
    problems = []
    for path in TWINS:
        name = os.path.basename(path)
        with open(path) as f:
            text = f.read()
        twin = re.search(r"^TWIN = (\{.*?\})$", text, re.M | re.S)
        expect = ast.literal_eval(twin.group(1)) if twin else {}
        want = expect.get("expect", {}).get(label)
        got = run_measure(python, path)
        cells = got["cells"]
        verdict = "as expected" if want and all(c == want for c in cells.values()) else \
            f"expected {want}"
        print(f"{name}: torch {got['torch']}: compiled gradients {cells} ({verdict})")
        if verdict != "as expected":
            problems.append(f"{name}: torch {got['torch']}: {cells}, expected {want}")
        # The tool: a warning at the write (none for a negative twin), a fix
        # that makes every backend right.
        res = subprocess.run([args.tidy_python, args.tidy, path], capture_output=True,
                             text=True)
        lines = [int(m) for m in re.findall(r":(\d+):\d+: warning: ", res.stdout)]
        if expect.get("write_line") is None:
            if lines:
                problems.append(f"{name}: torch-tidy-py warned at lines {lines} on a negative "
                                f"twin: {res.stdout[-800:]}")
            continue
        if expect.get("write_line") not in lines:
            problems.append(f"{name}: torch-tidy-py warned at lines {lines}, not at "
                            f"{expect.get('write_line')}: {res.stdout[-800:]}{res.stderr[-400:]}")
            continue
        if expect.get("fix") is False:
            # No rule writes this form out of place: the warning says why.
            if "note: no fix: " not in res.stdout:
                problems.append(f"{name}: a fix or no word of why none: {res.stdout[-600:]}")
            else:
                print(f"{name}: no fix offered, as expected: "
                      + res.stdout.split("note: no fix: ")[1].splitlines()[0])
            if "hand_fix" in expect:
                old, new = expect["hand_fix"]
                with tempfile.TemporaryDirectory() as tmp:
                    fixed = os.path.join(tmp, name)
                    with open(fixed, "w") as f:
                        f.write(text.replace(old, new))
                    problems += fixed_measured(python, fixed, got["torch"],
                                               "written by hand as the note says",
                                               "the hand fix")
            continue
        with tempfile.TemporaryDirectory() as tmp:
            fixed = os.path.join(tmp, name)
            shutil.copy(path, fixed)
            first = subprocess.run([args.tidy_python, args.tidy, "--fix", fixed],
                                   capture_output=True, text=True)
            with open(fixed) as f:
                once = f.read()
            second = subprocess.run([args.tidy_python, args.tidy, "--fix", fixed],
                                    capture_output=True, text=True)
            with open(fixed) as f:
                twice = f.read()
            if once == text or second.returncode != 0 or twice != once:
                problems.append(f"{name}: --fix: first exit {first.returncode}, changed "
                                f"{once != text}; second exit {second.returncode}, changed "
                                f"{twice != once}: {first.stdout[-600:]}")
                continue
            problems += fixed_measured(python, fixed, got["torch"],
                                       "after torch-tidy-py --fix", "after --fix")
    for p in problems:
        print("FAIL " + p)
    print(f"python-twins torch {label}: {len(TWINS)} twins, {len(problems)} problem(s)")
    return 1 if problems else 0


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    sub = ap.add_subparsers(dest="cmd", required=True)
    c = sub.add_parser("check")
    c.add_argument("--python", help="LABEL=PYTHON of a torch venv")
    c.add_argument("--tidy", required=True, help="torch-tidy-py")
    c.add_argument("--tidy-python", required=True, help="a Python with LibCST")
    m = sub.add_parser("measure")
    m.add_argument("path")
    args = ap.parse_args()
    if args.cmd == "measure":
        measure(args.path)
        return 0
    return check(args)


if __name__ == "__main__":
    sys.exit(main())
