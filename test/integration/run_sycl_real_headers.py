#!/usr/bin/env python3
"""Lints the SYCL lit case (test/lit/op-undeclared-mutation/sycl-kernels.sycl)
against a real LibTorch's headers, as torch-tidy-project parses a .sycl
source: C++, host side, with torch-tidy's stand-ins for the SYCL headers
(c10's headers use sycl::half, bfloat16 and clz once SYCL_LANGUAGE_VERSION
is defined). Requires no compiler error and exactly the warnings the lit
case's CHECK-MESSAGES lines name (line and column).

  run_sycl_real_headers.py --clang-tidy PATH --module PATH
                           --include DIR [--include DIR ...]

Exit 77 (skipped, with one line saying why) when the headers are missing.
"""
import argparse
import os
import re
import subprocess
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.normpath(os.path.join(HERE, "..", ".."))
CASE = os.path.join(ROOT, "test", "lit", "op-undeclared-mutation",
                    "sycl-kernels.sycl")
STANDINS = os.path.join(ROOT, "tools", "torch-tidy", "torch_tidy_project",
                        "sycl_host")


def expected_warnings(path):
    want = set()
    for i, line in enumerate(open(path, encoding="utf-8")):
        m = re.search(r"CHECK-MESSAGES: :\[\[@LINE-(\d+)\]\]:(\d+): warning:",
                      line)
        if m:
            want.add((i + 1 - int(m.group(1)), int(m.group(2))))
    return want


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--clang-tidy", required=True)
    ap.add_argument("--module", required=True)
    ap.add_argument("--include", action="append", default=[])
    args = ap.parse_args()
    if not any(os.path.exists(os.path.join(d, "torch", "torch.h"))
               for d in args.include):
        print(f"SKIPPED integration-sycl-libtorch-2.8: <torch/torch.h> not "
              f"found in {args.include}")
        return 77
    cmd = [args.clang_tidy, f"--load={args.module}",
           "-checks=-*,torch-op-undeclared-mutation", CASE, "--",
           "-x", "c++", "-std=c++17", "-isystem", STANDINS,
           "-D_GLIBCXX_USE_CXX11_ABI=1"]
    for d in args.include:
        cmd += ["-isystem", d]
    res = subprocess.run(cmd, stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
                         text=True)
    out = res.stdout
    if res.returncode < 0 or "Stack dump" in out:
        print(out)
        print("FAIL: clang-tidy crashed")
        return 1
    errors = [l for l in out.splitlines() if re.search(r"\berror:", l)]
    got = {(int(m.group(1)), int(m.group(2))) for m in re.finditer(
        re.escape(CASE) + r":(\d+):(\d+): warning:", out)}
    want = expected_warnings(CASE)
    print(f"{len(got)} warnings, {len(want)} expected, {len(errors)} "
          f"compiler errors")
    failed = False
    for e in errors[:10]:
        print(f"FAIL: {e}")
        failed = True
    for line, col in sorted(want - got):
        print(f"FAIL: no warning at {line}:{col}")
        failed = True
    for line, col in sorted(got - want):
        print(f"FAIL: an unexpected warning at {line}:{col}")
        failed = True
    if not want:
        print("FAIL: the lit case names no warning")
        failed = True
    print("FAIL" if failed else "PASS")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
