#!/usr/bin/env python3
"""Runs docs/upstream/*.py with the newest torch's python; each must print
REPRODUCED and exit 0 (the loss it documents is still there). Exit 77 with
one line when that venv is missing."""
import argparse
import glob
import os
import subprocess
import sys

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--python", default="")
    args = ap.parse_args()
    if not args.python or not os.path.exists(args.python):
        print("SKIPPED upstream-reproducers: no venv with the newest torch "
              "(tools/bootstrap/bootstrap.sh could not install it)")
        return 77
    scripts = sorted(glob.glob(os.path.join(ROOT, "docs", "upstream", "*.py")))
    failed = 0
    for script in scripts:
        env = dict(os.environ, PYTHONWARNINGS="ignore")
        res = subprocess.run([args.python, script], stdout=subprocess.PIPE,
                             stderr=subprocess.STDOUT, text=True, env=env)
        lines = [l for l in res.stdout.splitlines() if l.startswith("torch ")]
        ok = res.returncode == 0 and "REPRODUCED" in res.stdout.splitlines()
        print(f"{'ok  ' if ok else 'FAIL'} {os.path.relpath(script, ROOT)}")
        for l in lines:
            print("     " + l)
        if not ok:
            failed += 1
            print(res.stdout[-3000:])
    print(f"upstream-reproducers: {len(scripts) - failed} of {len(scripts)} still reproduce")
    return 1 if failed or not scripts else 0


if __name__ == "__main__":
    sys.exit(main())
