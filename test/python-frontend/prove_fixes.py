"""Proves torch-tidy-py's fixes on real torch.compile.

torch-tidy-py --fix rewrites a copy of fix_cases.py. Then:
  - every write of fix_cases.py was warned on and fixed, and together the
    fixes use every rule that has a Python form in RewriteRules.def (a rule
    cannot ship unproven);
  - a second run on the fixed copy warns on nothing and changes nothing;
  - under the torch of --python, each fixed function, run uncompiled and
    compiled with aot_eager and inductor, reads requires_grad == True after
    the write where the original uncompiled reads it (True), and gives the
    original uncompiled values and gradients.
The original compiled (aot_eager) is measured too and printed: it shows what
the fix repairs on that version (not asserted: newer torch keeps some forms).

Exit: 0 proven, 1 a fix not proven, 77 no such venv (said by name).
"""
import argparse
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
CASES = os.path.join(HERE, "fix_cases.py")
BACKENDS = ("none", "aot_eager", "inductor")
SKIP = 77


def _load(path, name):
    spec = importlib.util.spec_from_file_location(name, path)
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    return mod


def measure(original, fixed):
    """Runs in the torch venv: prints one JSON line of rows."""
    import warnings
    import logging
    import torch
    import torch._dynamo
    warnings.filterwarnings("ignore")
    logging.disable(logging.WARNING)
    torch._dynamo.config.cache_size_limit = 64
    compile_ = torch.compile
    # The files decorate with @torch.compile: load the plain functions, and
    # compile them here with each backend.
    torch.compile = lambda f=None, **kw: f if f is not None else (lambda g: g)
    try:
        orig, fix = _load(original, "tt_original"), _load(fixed, "tt_fixed")
    finally:
        torch.compile = compile_

    def run(fn, make, backend):
        torch._dynamo.reset()
        f = fn if backend == "none" else torch.compile(fn, backend=backend)
        torch.manual_seed(0)
        args = make()
        x = args[0].requires_grad_()
        out, flag = f(*args)
        weight = torch.linspace(-1.0, 1.0, out.numel()).reshape(out.shape)
        grad = None
        if out.requires_grad:
            (out * weight).sum().backward()
            grad = x.grad.tolist() if x.grad is not None else None
        return {"flag": bool(flag), "values": out.detach().tolist(), "grad": grad}

    rows = []
    for name, make in orig.INPUTS.items():
        row = {"case": name}
        for which, mod, backends in (("original", orig, ("none", "aot_eager")),
                                     ("fixed", fix, BACKENDS)):
            for b in backends:
                try:
                    row[f"{which}/{b}"] = run(getattr(mod, name), make, b)
                except Exception as e:  # the verdict says it
                    row[f"{which}/{b}"] = {"error": f"{type(e).__name__}: {str(e)[:300]}"}
        rows.append(row)
    print("ROWS " + json.dumps({"torch": torch.__version__, "rows": rows}))


def _close(a, b):
    if isinstance(a, list) and isinstance(b, list):
        return len(a) == len(b) and all(_close(x, y) for x, y in zip(a, b))
    if isinstance(a, (int, float)) and isinstance(b, (int, float)):
        return abs(a - b) <= 1e-5 + 1e-5 * abs(b)
    return a == b


def tidy(python, script, path, *extra):
    return subprocess.run([python, script, *extra, path], capture_output=True, text=True)


def main():
    p = argparse.ArgumentParser(description=__doc__,
                                formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--measure", nargs=2, metavar=("ORIGINAL", "FIXED"), help=argparse.SUPPRESS)
    p.add_argument("--tidy-python", help="a Python with LibCST (the tools venv)")
    p.add_argument("--tidy", help="torch-tidy-py (build/bin/torch-tidy-py)")
    p.add_argument("--python", help="LABEL=PYTHON of a torch venv")
    args = p.parse_args()
    if args.measure:
        measure(*args.measure)
        return 0
    label, _, python = (args.python or "").partition("=")
    if not python or not os.path.exists(python):
        print(f"SKIP python-fixes torch {label}: no venv python ({python or 'not given'}); "
              "tools/bootstrap could not install it")
        return SKIP
    if not args.tidy_python or subprocess.run([args.tidy_python, "-c", "import libcst"],
                                              capture_output=True).returncode:
        print(f"SKIP python-fixes torch {label}: no Python with LibCST ({args.tidy_python}); "
              "tools/bootstrap could not install the tools venv")
        return SKIP
    sys.path.insert(0, os.path.join(ROOT, "tools", "torch-tidy"))
    from torch_tidy_py.rules import Rules
    python_rules = set(Rules().python)
    bad = []
    with tempfile.TemporaryDirectory() as tmp:
        fixed = os.path.join(tmp, "fixed_cases.py")
        shutil.copy(CASES, fixed)
        first = tidy(args.tidy_python, args.tidy, fixed, "--fix")
        warned = re.findall(r":(\d+):\d+: warning: ", first.stdout)
        fixes = re.findall(r":(\d+):\d+: note: rule: ([\w-]+);", first.stdout)
        no_fix = re.findall(r"note: no fix: (.*)", first.stdout)
        if first.returncode != 1 or not warned or len(fixes) != len(warned) or no_fix:
            bad.append(f"--fix: exit {first.returncode}, {len(warned)} warnings, "
                       f"{len(fixes)} fixes, not fixed: {no_fix}\n{first.stdout[-2000:]}"
                       f"{first.stderr[-1000:]}")
        missing = python_rules - {r for _, r in fixes}
        if missing:
            bad.append(f"rules with a Python form that no case proves: {sorted(missing)}")
        with open(fixed) as f:
            text = f.read()
        second = tidy(args.tidy_python, args.tidy, fixed, "--fix")
        with open(fixed) as f:
            again = f.read()
        if second.returncode != 0 or again != text:
            bad.append(f"a second --fix: exit {second.returncode}, file "
                       f"{'changed' if again != text else 'unchanged'}\n{second.stdout[-2000:]}")
        res = subprocess.run([python, os.path.abspath(__file__), "--measure", CASES, fixed],
                             capture_output=True, text=True)
    line = next((x for x in res.stdout.splitlines() if x.startswith("ROWS ")), None)
    if res.returncode or line is None:
        print(res.stdout[-3000:], res.stderr[-3000:])
        print(f"FAIL python-fixes torch {label}: the measurement failed")
        return 1
    got = json.loads(line[5:])
    for row in got["rows"]:
        case = row["case"]
        ref = row["original/none"]
        problems = []
        if "error" in ref or not ref["flag"]:
            problems.append(f"the original uncompiled: {ref}")
        for b in BACKENDS:
            r = row[f"fixed/{b}"]
            if "error" in r:
                problems.append(f"fixed, {b}: {r['error']}")
                continue
            if r["flag"] != ref.get("flag"):
                problems.append(f"fixed, {b}: requires_grad {r['flag']}")
            if not _close(r["values"], ref.get("values")):
                problems.append(f"fixed, {b}: values differ")
            if not _close(r["grad"], ref.get("grad")):
                problems.append(f"fixed, {b}: gradients differ")
        compiled = row["original/aot_eager"]
        before = compiled.get("error") or f"requires_grad {compiled['flag']}"
        if problems:
            bad.append(f"{case}: " + "; ".join(problems))
            print(f"NOT PROVEN {case}: " + "; ".join(problems))
        else:
            print(f"PROVEN {case}: the fixed function reads requires_grad True and gives the "
                  f"uncompiled values and gradients uncompiled, on aot_eager and inductor "
                  f"(the original on aot_eager: {before})")
    for b in bad:
        if not b.split(":")[0] in {r["case"] for r in got["rows"]}:
            print("FAIL", b)
    rules = sorted({r for _, r in fixes})
    print(f"python-fixes torch {got['torch']}: {len(got['rows'])} cases, {len(fixes)} fixes "
          f"through {len(rules)} rules ({', '.join(rules)}); {len(bad)} problem(s)")
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
