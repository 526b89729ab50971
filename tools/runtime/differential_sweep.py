#!/usr/bin/env python3
"""The runtime's differential suite over many fresh seeds (a benchmark, not a
CI test: CI runs fixed seeds).

  differential_sweep.py [--build build] [--total 1000000] [--per-seed 12000]
                        [--jobs 2] [--first-seed S]

Seeds are drawn from the clock unless --first-seed is given (then S, S+1,
...). Prints one line per seed and a total; exit 1 on any failed case, with
the seed and the case to reproduce it (runtime_differential --cases N --seed S).
"""
import argparse
import concurrent.futures
import os
import re
import subprocess
import sys
import time

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--build", default=os.path.join(ROOT, "build"))
    ap.add_argument("--total", type=int, default=1000000)
    ap.add_argument("--per-seed", type=int, default=12000)
    ap.add_argument("--jobs", type=int, default=2)
    ap.add_argument("--first-seed", type=int, default=None)
    args = ap.parse_args()
    binary = os.path.join(args.build, "bin", "runtime_differential")
    if not os.path.exists(binary):
        raise SystemExit(f"sweep: {binary} is not built (no torch 2.8.0 venv?)")
    first = args.first_seed if args.first_seed is not None else int(time.time() * 1000) % 4_000_000_000
    runs = (args.total + args.per_seed - 1) // args.per_seed
    seeds = [first + k for k in range(runs)]
    start = time.time()

    def one(seed):
        res = subprocess.run([binary, "--cases", str(args.per_seed), "--seed", str(seed),
                              "--show", "3"], capture_output=True, text=True)
        # The total is the last line of its own ("N passed, M failed"); lines
        # above break it down (operator calls, ...).
        totals = re.findall(r"^(\d+) passed, (\d+) failed$", res.stdout, re.M)
        m = totals[-1] if totals else None
        fails = re.findall(r"^FAIL case (\d+): (.*)$", res.stdout, re.M)
        return seed, (int(m[0]), int(m[1])) if m else (0, args.per_seed), fails

    passed = failed = 0
    with concurrent.futures.ThreadPoolExecutor(max_workers=args.jobs) as pool:
        for seed, (p, f), fails in pool.map(one, seeds):
            passed += p
            failed += f
            print(f"seed {seed}: {p} passed, {f} failed", flush=True)
            for case, what in fails:
                print(f"  FAIL case {case} (runtime_differential --cases {int(case) + 1} "
                      f"--seed {seed}): {what}")
    print(f"sweep: {len(seeds)} seeds from {first}, {passed + failed} cases: {passed} passed, "
          f"{failed} failed, {time.time() - start:.0f} s")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
