#!/usr/bin/env python3
"""Runs the torch-tidy checks on generated functions that include a real
LibTorch's <torch/torch.h> and requires exactly the expected warnings.

  run_real_headers.py --tier NAME --clang-tidy PATH --module PATH
                      --include DIR [--include DIR ...] [--functions N]
                      [--out DIR]

Exit 77 (skipped, with one line saying why) when the headers are missing.
"""
import argparse
import os
import re
import subprocess
import sys
import time

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
import generate_real_header_cases  # noqa: E402


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--tier", required=True)
    ap.add_argument("--clang-tidy", required=True)
    ap.add_argument("--module", required=True)
    ap.add_argument("--include", action="append", default=[])
    ap.add_argument("--functions", type=int, default=200)
    ap.add_argument("--out", default=".")
    args = ap.parse_args()

    if not any(os.path.exists(os.path.join(d, "torch", "torch.h"))
               for d in args.include):
        print(f"SKIPPED integration-{args.tier}: <torch/torch.h> not found in "
              f"{args.include}")
        return 77
    os.makedirs(args.out, exist_ok=True)
    src = os.path.join(args.out, f"real-headers-{args.tier}.cpp")
    generate_real_header_cases.generate(args.functions, src)
    flagship = "torch-compile-requires-grad-propagation"
    expected = set()
    for i, line in enumerate(open(src)):
        if "// expect-warning" in line:
            expected.add((i + 1, flagship))
        m = re.search(r"// expect: (\S+)\s*$", line)
        if m:
            expected.add((i + 1, m.group(1)))

    cmd = [args.clang_tidy, f"--load={args.module}", "-checks=-*,torch-*",
           src, "--", "-std=c++17", "-D_GLIBCXX_USE_CXX11_ABI=1"]
    for d in args.include:
        cmd += ["-isystem", d]
    start = time.time()
    res = subprocess.run(cmd, stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
                         text=True)
    elapsed = time.time() - start
    out = res.stdout
    if res.returncode < 0 or "Stack dump" in out:
        print(out)
        print(f"integration-{args.tier}: clang-tidy crashed")
        return 1
    errors = [l for l in out.splitlines() if re.search(r": error:", l)]
    if errors:
        print("\n".join(errors[:20]))
        print(f"integration-{args.tier}: the generated file does not compile")
        return 1
    got = set()
    name = re.escape(os.path.basename(src))
    for line in out.splitlines():
        m = re.search(name + r":(\d+):\d+: warning: .*\[(torch-[\w-]+)\]",
                      line)
        if m:
            got.add((int(m.group(1)), m.group(2)))
    missing, extra = sorted(expected - got), sorted(got - expected)
    print(f"integration-{args.tier}: {args.functions} functions, "
          f"{len(expected)} expected warnings, {len(got)} reported, "
          f"{elapsed:.1f}s")
    if missing or extra:
        lines = open(src).read().splitlines()
        for n, check in missing:
            print(f"  missing {check} warning at line {n}: "
                  f"{lines[n - 1].strip()}")
        for n, check in extra:
            print(f"  unexpected {check} warning at line {n}: "
                  f"{lines[n - 1].strip()}")
        print(f"{len(expected - got) + len(got - expected)} failed")
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
