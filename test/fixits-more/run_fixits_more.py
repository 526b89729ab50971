#!/usr/bin/env python3
"""Compile-and-run fix-it test of torch-index-assign-to-copy and
torch-inplace-on-grad-leaf against one LibTorch tier.

  run_fixits_more.py --tier NAME --clang-tidy PATH --module PATH
                     --source-dir REPO --include DIR [--include DIR ...]
                     --lib-dir DIR [--cxx g++] --out DIR

1. clang-tidy --fix (both checks) on a copy of cases.cpp: exactly the lines
   marked `// expect: <check>` warn, each with its check, and each of them
   is rewritten; a second --fix changes nothing and warns nothing;
2. harness.cpp, compiled against the tier with the original and the fixed
   copy, requires the original to lose its write or throw autograd's leaf
   error, and the fixed copy to write as intended.

Exit 0 when all pass, 1 on any failure, 77 (one line saying why) when the
tier's headers are missing.
"""
import argparse
import os
import re
import shutil
import subprocess
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(os.path.dirname(HERE), "fixits"))
import libtorch_tier  # noqa: E402
CHECKS = ("torch-index-assign-to-copy", "torch-inplace-on-grad-leaf")
EXPECT = re.compile(r"// expect: (\S+)\s*$")
WARNING = re.compile(r"^(.*?):(\d+):\d+: warning: .*\[([\w-]+)\]$")


def clang_tidy(args, path, fix):
    cmd = [args.clang_tidy, f"--load={args.module}",
           "-checks=-*," + ",".join(CHECKS)] + (["--fix"] if fix else [])
    cmd += [path, "--", "-std=c++17", "-D_GLIBCXX_USE_CXX11_ABI=1",
            *libtorch_tier.isystem(args)]
    res = subprocess.run(cmd, stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
                         text=True)
    real = os.path.realpath(path)
    warned = {(int(m.group(2)), m.group(3))
              for m in map(WARNING.match, res.stdout.splitlines())
              if m and os.path.realpath(m.group(1)) == real}
    errors = [l for l in res.stdout.splitlines() if ": error:" in l]
    return warned, errors, res.stdout


def main():
    ap = argparse.ArgumentParser()
    libtorch_tier.add_tier_arguments(ap)
    args = ap.parse_args()
    name = f"fixits-more-{args.tier}"
    if libtorch_tier.headers_missing(args, name):
        return 77

    work = os.path.join(args.out, name)
    shutil.rmtree(work, ignore_errors=True)
    src = os.path.join(HERE, "cases.cpp")
    lines = open(src).read().splitlines()
    expected = {(i + 1, m.group(1)) for i, l in enumerate(lines)
                for m in [EXPECT.search(l)] if m}
    paths = {}
    for folder in ("original", "fixed"):
        os.makedirs(os.path.join(work, folder))
        paths[folder] = os.path.join(work, folder, "cases.cpp")
        shutil.copyfile(src, paths[folder])

    failures = []
    warned, errors, out = clang_tidy(args, paths["fixed"], fix=True)
    failures += [f"clang-tidy error: {e}" for e in errors[:5]]
    for line, check in sorted(expected - warned):
        failures.append(f"line {line}: no {check} warning")
    for line, check in sorted(warned - expected):
        failures.append(f"line {line}: unexpected {check} warning")
    fixed_lines = open(paths["fixed"]).read().splitlines()
    for line, check in sorted(expected):
        if fixed_lines[line - 1] == lines[line - 1]:
            failures.append(f"line {line}: {check} left it unfixed")
    before = open(paths["fixed"]).read()
    again, errors, _ = clang_tidy(args, paths["fixed"], fix=True)
    failures += [f"fixed copy: {e}" for e in errors[:5]]
    if again:
        failures.append(f"fixed copy still warns on lines "
                        f"{sorted(l for l, _ in again)}")
    if open(paths["fixed"]).read() != before:
        failures.append("a second --fix changed the fixed copy")
    print(f"{len(expected)} flagged lines expected, {len(warned)} warned")
    if failures:
        print(out)

    cmd = libtorch_tier.harness_command(args, os.path.join(HERE, "harness.cpp"),
                                        os.path.join(work, "harness"), [work])
    build = subprocess.run(cmd, stdout=subprocess.PIPE,
                           stderr=subprocess.STDOUT, text=True)
    if build.returncode != 0:
        print(build.stdout[-6000:])
        failures.append("harness does not compile")
    else:
        res = subprocess.run([os.path.join(work, "harness")],
                             stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
                             text=True)
        print(res.stdout, end="")
        if res.returncode != 0:
            failures.append("harness: " + (res.stdout.strip().splitlines()
                                           or ["crashed"])[-1])
    for f in failures:
        print(f"FAIL {f}")
    print(f"{name}: {'FAILED' if failures else 'passed'}")
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
