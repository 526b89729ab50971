#!/usr/bin/env python3
"""Static verdict equals measured verdict, for operators with a mutable
argument.

  run_verdicts.py --python PY --clang-tidy CT --module MOD --include DIR...
                  --build DIR [--backends eager,aot_eager,inductor]

Lints operators.cpp with every torch-* check (default options), builds it
with torch.utils.cpp_extension under PY's torch, calls each operator from a
torch.compile'd function on a fresh torch.zeros buffer (measure_verdicts.py)
and requires: the caller's requires_grad is lost (true uncompiled, false
under some compiled backend) exactly for the operators the flagship reports,
kept for the others. Cases marked owner=undeclared write into an argument
their schema does not declare mutable: they must lose the flag and stay
quiet for the flagship (torch-op-undeclared-mutation's business).
Exit 77 with one line when PY is missing.
"""
import argparse
import json
import os
import re
import subprocess
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
import cases as case_table  # noqa: E402

FLAGSHIP = "torch-compile-requires-grad-propagation"


def flagged_operators(args):
    cmd = [args.clang_tidy, f"--load={args.module}", "-checks=-*,torch-*",
           case_table.SOURCE, "--", "-std=c++17", "-D_GLIBCXX_USE_CXX11_ABI=1"]
    for d in args.include:
        cmd += ["-isystem", d]
    res = subprocess.run(cmd, stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
                         text=True)
    out = res.stdout
    if res.returncode < 0 or "Stack dump" in out or re.search(r": error:", out):
        sys.stdout.write(out[-6000:])
        raise SystemExit("verdicts: clang-tidy crashed or the file does not compile")
    flagged = {}
    for line in out.splitlines():
        m = re.search(r"warning: .* of operator '" + case_table.NAMESPACE +
                      r"::(\w+)'.*\[([\w-]+)\]$", line)
        if m:
            flagged.setdefault(m.group(1), set()).add(m.group(2))
    return flagged


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--python", default="")
    ap.add_argument("--clang-tidy", required=True)
    ap.add_argument("--module", required=True)
    ap.add_argument("--include", action="append", default=[])
    ap.add_argument("--build", required=True)
    ap.add_argument("--backends", default="eager,aot_eager,inductor")
    args = ap.parse_args()
    if not args.python or not os.path.exists(args.python):
        print("SKIPPED verdicts: no torch==2.8.0 venv (tools/bootstrap/bootstrap.sh "
              "could not install it)")
        return 77

    flagged = flagged_operators(args)
    proc = subprocess.run([args.python, os.path.join(HERE, "measure_verdicts.py"),
                           args.build, args.backends],
                          stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    if proc.returncode != 0:
        sys.stdout.write(proc.stderr[-6000:])
        raise SystemExit("verdicts: the measurement failed")
    measured = json.loads(proc.stdout.splitlines()[-1])

    failures = []
    counts = {"lost and flagged": 0, "kept and quiet": 0, "lost, undeclared": 0}
    for case in case_table.parse():
        name = case["name"]
        seen = measured["cases"].get(name, {})
        uncompiled = seen.get("none")
        readings = {b: v for b, v in seen.items() if b != "none" and isinstance(v, bool)}
        errors = {b: v for b, v in seen.items() if b != "none" and not isinstance(v, bool)}
        by_flagship = FLAGSHIP in flagged.get(name, set())
        if not isinstance(uncompiled, bool) or not readings:
            failures.append(f"{name}: no reading (uncompiled {uncompiled}, {seen})")
            continue
        lost = uncompiled and any(v is False for v in readings.values())
        note = f" (errors: {errors})" if errors else ""
        if case["owner"] == "undeclared":
            ok = lost and not by_flagship
            verdict = "lost, undeclared"
        else:
            ok = lost == by_flagship
            verdict = "lost and flagged" if lost else "kept and quiet"
        status = "ok  " if ok else "FAIL"
        print(f"{status} {name:18} uncompiled {uncompiled!s:5} compiled {readings}"
              f" flagship {'warns' if by_flagship else 'quiet'}{note}")
        if ok:
            counts[verdict] += 1
        else:
            failures.append(f"{name}: measured {'lost' if lost else 'kept'}, "
                            f"flagship {'warns' if by_flagship else 'is quiet'}")
    print(f"verdicts (torch {measured['torch']}, backends {args.backends}): "
          + ", ".join(f"{n} {k}" for k, n in counts.items())
          + f", {len(failures)} disagree")
    for f in failures:
        print("DISAGREES:", f)
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
