#!/usr/bin/env python3
"""The fixes of torch-write-into-copy, proven on real LibTorch (the rules
write-back-copy and check-no-copy of RewriteRules.def).

  write_into_copy_fixes.py --clang-tidy CLANG_TIDY --module MODULE
                           --libtorch LABEL=TORCH_DIR|debian [...]

write_into_copy_fixes.cpp holds one kernel per copying method and write
form; each means to add 1 to every element of its `Tensor &out`. This:

  1. runs the check on it with the first LibTorch's headers: one warning per
     kernel, the write-back rule for the wb_* kernels and the check rule for
     the ck_* kernels, no compiler error;
  2. builds it with write_into_copy_driver.cpp against that LibTorch and
     runs every kernel on a receiver that needs no copy and one that does:
     the write reaches the first and is lost for the second (the bug);
  3. applies the check's --fix (--fix-notes: a write-back after the last
     write goes on a note); a second --fix changes nothing and no warning
     is left; no line of the fixed file is over 80 columns;
  4. builds the fixed kernels against every LibTorch given and runs them:
     a written-back kernel reaches both receivers; a checked one reaches the
     first and fails with a c10::Error, leaving the receiver unchanged, for
     the second.

Exit 0 when all hold, 1 otherwise, 77 when no LibTorch could be used (said
by name). Builds are kept in ~/.cache/torch-tidy/write-into-copy.
"""
import argparse
import os
import re
import shutil
import subprocess
import sys
import tempfile

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import write_into_copy as wic  # noqa: E402  (LibTorch flags and builds)

HERE = os.path.dirname(os.path.abspath(__file__))
FIXTURE = os.path.join(HERE, "write_into_copy_fixes.cpp")
DRIVER = os.path.join(HERE, "write_into_copy_driver.cpp")
CHECK = "torch-write-into-copy"
WIDTH = 80


def tidy(args, flags, src, fix=False):
    cmd = [args.clang_tidy, "--load", args.module, f"-checks=-*,{CHECK}",
           src, "--", "-std=c++17", *flags]
    if fix:
        cmd.insert(1, "--fix-notes")
    return subprocess.run(cmd, stdout=subprocess.PIPE,
                          stderr=subprocess.STDOUT, text=True)


def kernels(text):
    """The kernels' names, in order."""
    return re.findall(r"^void (\w+)\(at::Tensor &out\)", text, re.M)


def run_built(label, where, source, name):
    binary, why = wic.libtorch_build(label, where, (source, DRIVER), name)
    if binary is None:
        return None, why
    res = subprocess.run([binary], capture_output=True, text=True)
    rows = [line.split("\t") for line in res.stdout.splitlines()
            if line.count("\t") == 2]
    if res.returncode or not rows:
        return None, f"the driver failed: {res.stderr[-800:]}"
    return rows, None


def main():
    p = argparse.ArgumentParser(description=__doc__,
                                formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--clang-tidy", required=True)
    p.add_argument("--module", required=True)
    p.add_argument("--libtorch", action="append", default=[],
                   help="LABEL=TORCH_DIR or LABEL=debian")
    args = p.parse_args()
    usable = []
    for spec in args.libtorch:
        label, _, where = spec.partition("=")
        flags, why = wic.libtorch_flags(where)
        if flags is None:
            print(f"SKIP write-into-copy-fixes LibTorch {label}: {why}")
        else:
            usable.append((label, where, flags))
    if not usable:
        print("SKIP write-into-copy-fixes: no LibTorch to build against")
        return 77
    problems = []
    text = open(FIXTURE).read()
    names = kernels(text)
    label0, where0, flags0 = usable[0]
    with tempfile.TemporaryDirectory() as tmp:
        src = os.path.join(tmp, "write_into_copy_fixes.cpp")
        shutil.copyfile(FIXTURE, src)
        # 1. The warnings and the rule each kernel's fix takes.
        out = tidy(args, flags0, src).stdout
        if "error:" in out:
            problems.append("clang-tidy reported errors: " + out[-2000:])
        warned = len(re.findall(r"warning: .*\[" + CHECK + r"\]", out))
        rules = re.findall(r"note: rule: ([\w-]+)", out)
        want = ["write-back-copy" if n.startswith("wb_") else "check-no-copy"
                for n in names]
        if warned != len(names) or rules != want:
            problems.append(f"expected {len(names)} warnings with rules {want}; "
                            f"got {warned} with {rules}")
        # 2. The bug, on the unfixed kernels.
        rows, why = run_built(label0, where0, src, "wic-unfixed")
        if rows is None:
            problems.append(f"LibTorch {label0} (unfixed): {why}")
        else:
            lost = 0
            for name, receiver, result in rows:
                copies = receiver in ("transposed", "float64", "contiguous_4d")
                expect = "lost" if copies else "reaches"
                lost += copies and result == "lost"
                if result != expect:
                    problems.append(f"unfixed {name} {receiver}: {result}, "
                                    f"expected {expect}")
            print(f"LibTorch {label0}, unfixed: {len(rows)} runs; the write "
                  f"is lost in {lost}, each where the receiver needs a copy")
        # 3. --fix, its idempotence and its lines' widths.
        fix = tidy(args, flags0, src, fix=True)
        fixed = open(src).read()
        if fixed == text:
            problems.append("--fix changed nothing: " + fix.stdout[-1500:])
        again = tidy(args, flags0, src, fix=True)
        if open(src).read() != fixed or "warning:" in again.stdout:
            problems.append("a second --fix changed the file or still warns: "
                            + again.stdout[-1500:])
        wide = [line for line in fixed.splitlines() if len(line) > WIDTH]
        if wide:
            problems.append(f"fixed lines over {WIDTH} columns: {wide}")
        added = len(fixed.splitlines()) - len(text.splitlines())
        print(f"--fix: {added} lines added, widest "
              f"{max(len(line) for line in fixed.splitlines())} columns; a "
              f"second --fix changes nothing")
        # 4. The fixed kernels on every LibTorch.
        for label, where, _ in usable:
            rows, why = run_built(label, where, src, "wic-fixed")
            if rows is None:
                problems.append(f"LibTorch {label} (fixed): {why}")
                continue
            counts = {}
            for name, receiver, result in rows:
                copies = receiver in ("transposed", "float64", "contiguous_4d")
                expect = ("error" if copies and name.startswith("ck_")
                          else "reaches")
                counts[result] = counts.get(result, 0) + 1
                if result != expect:
                    problems.append(f"fixed {name} {receiver} on LibTorch "
                                    f"{label}: {result}, expected {expect}")
            print(f"LibTorch {label}, fixed: {len(rows)} runs: "
                  + ", ".join(f"{v} {k}" for k, v in sorted(counts.items())))
    for problem in problems:
        print("FAIL: " + problem)
    if not problems:
        print(f"write-into-copy-fixes: {len(names)} kernels fixed by --fix; "
              f"every write-back reaches its receiver and every check "
              f"rejects a receiver that needs the copy, on "
              f"{', '.join(u[0] for u in usable)}")
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main())
