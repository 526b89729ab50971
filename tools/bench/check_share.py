#!/usr/bin/env python3
"""Prints the torch checks' share of total clang-tidy time on files that
include the real <torch/torch.h> (the integration suite's generated files):
all torch-* checks together, the flagship alone, and then each check alone.

  check_share.py --build BUILD_DIR [--runs 3] [--functions 200]

For each LibTorch tier it runs clang-tidy with --enable-check-profile, reads
the check's wall time from the profile, measures the whole process's wall
time, and prints the median share over the runs.
"""
import argparse
import os
import re
import statistics
import subprocess
import sys
import time

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
sys.path.insert(0, os.path.join(ROOT, "test", "integration"))
import generate_real_header_cases  # noqa: E402


def cache_value(build, key):
    for line in open(os.path.join(build, "CMakeCache.txt")):
        if line.startswith(key + ":"):
            return line.split("=", 1)[1].strip()
    return ""


def tiers(build):
    torch28 = cache_value(build, "TORCH_TIDY_TORCH28_INCLUDE_DIRS")
    out = []
    if torch28:
        out.append(("libtorch-2.8", torch28.split(";")))
    out.append(("libtorch-1.13", ["/usr/include/torch/csrc/api/include"]))
    return out


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--build", default=os.path.join(ROOT, "build"))
    ap.add_argument("--runs", type=int, default=3)
    ap.add_argument("--functions", type=int, default=200)
    args = ap.parse_args()
    llvm = cache_value(args.build, "TORCH_TIDY_LLVM_VERSION") or "19"
    tidy = f"/usr/lib/llvm-{llvm}/bin/clang-tidy"
    module = os.path.join(args.build, "lib", "TorchTidyModule.so")
    print(f"{'tier':<16}{'torch-* s':>10}{'total s':>10}{'share':>9}{'flagship':>11}")
    for tier, includes in tiers(args.build):
        src = os.path.join(args.build, "bench", f"share-{tier}.cpp")
        os.makedirs(os.path.dirname(src), exist_ok=True)
        generate_real_header_cases.generate(args.functions, src)
        checks, flagship, totals = [], [], []
        per_check = {}
        for _ in range(args.runs):
            cmd = [tidy, f"--load={module}", "-checks=-*,torch-*",
                   "--enable-check-profile", src, "--", "-std=c++17"]
            for d in includes:
                cmd += ["-isystem", d]
            start = time.perf_counter()
            res = subprocess.run(cmd, stdout=subprocess.PIPE,
                                 stderr=subprocess.STDOUT, text=True)
            totals.append(time.perf_counter() - start)
            # The "Total" column of each check's profile line.
            lines = re.findall(r"\s([\d.]+) \(\s*[\d.]+%\)\s+(torch-[\w-]+)\s*$",
                               res.stdout, re.M)
            times = {name: float(t) for t, name in lines}
            if "torch-compile-requires-grad-propagation" not in times:
                sys.exit(f"no profile line for the check in:\n{res.stdout[-2000:]}")
            checks.append(sum(times.values()))
            for name, t in times.items():
                per_check.setdefault(name, []).append(t)
            flagship.append(times["torch-compile-requires-grad-propagation"])
        c, t = statistics.median(checks), statistics.median(totals)
        f = statistics.median(flagship)
        print(f"{tier:<16}{c:>10.4f}{t:>10.2f}{100 * c / t:>8.3f}%"
              f"{100 * f / t:>10.3f}%")
        for name, ts in sorted(per_check.items()):
            share = 100 * statistics.median(ts) / t
            print(f"  {name:<44}{statistics.median(ts):>10.4f} s{share:>9.4f}%")


if __name__ == "__main__":
    main()
