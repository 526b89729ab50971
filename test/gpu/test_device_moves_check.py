#!/usr/bin/env python3
"""tools/gpu/device_moves.py --check, without a GPU: a measurement equal to
the committed table passes; one where a CUDA tensor's cpu() write reaches
the tensor (what the table says is lost) fails, naming the row."""
import json
import os
import subprocess
import sys
import tempfile

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
TOOL = os.path.join(ROOT, "tools", "gpu", "device_moves.py")
TABLE = os.path.join(ROOT, "docs", "ground-truth-device-moves.json")


def run(rows):
    with tempfile.NamedTemporaryFile("w", suffix=".json", delete=False) as f:
        json.dump({"torch": "test", "device": "none", "rows": rows}, f)
    res = subprocess.run([sys.executable, TOOL, "--check", f.name],
                         capture_output=True, text=True)
    os.unlink(f.name)
    return res


def main():
    committed = json.load(open(TABLE))["rows"]
    same = [[r[0], r[1], r[2], r[3], r[4].split(" ")[0], r[5]] for r in committed]
    bad = 0
    res = run(same)
    print(res.stdout.strip())
    if res.returncode != 0 or "0 differ" not in res.stdout:
        print("FAIL: the committed rows, measured again, did not pass")
        bad += 1
    flipped = [r[:5] + (["reaches"] if (r[0], r[1], r[4]) == ("cuda_cpu", "cuda", "eager")
                        else [r[5]]) for r in same]
    res = run(flipped)
    print(res.stdout.strip())
    if res.returncode != 1 or "DIFFERS cuda_cpu on cuda (eager)" not in res.stdout:
        print("FAIL: a measurement that differs from the table passed")
        bad += 1
    print(f"device-moves check: {bad} problem(s)")
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
