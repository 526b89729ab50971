"""Runs the check with TORCH_TIDY_STATS=1 on generated inputs of growing size
and fails if a work counter grows faster than the input."""
import os
import re
import subprocess
import sys

tidy, module, mock, tmp = sys.argv[1:5]
os.makedirs(tmp, exist_ok=True)
# The generators are shared with the scaling benchmark (tools/bench).
sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)),
                                "..", "..", "..", "tools", "bench"))
from scaling_inputs import long_function, many_functions  # noqa: E402


def stats(name, text):
    path = os.path.join(tmp, name)
    open(path, "w").write(text)
    env = dict(os.environ, TORCH_TIDY_STATS="1")
    res = subprocess.run(
        [tidy, f"--load={module}", "-checks=-*,torch-*",
         "--config={CheckOptions: {torch-compile-requires-grad-propagation.RegionMode: all}}",
         path, "--", "-std=c++17", "-isystem", mock],
        stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True, env=env)
    m = re.search(r"torch-tidy-stats: (.*)", res.stdout)
    if res.returncode != 0 or not m:
        sys.exit(f"{name}: clang-tidy failed:\n{res.stdout[-3000:]}")
    return {k: int(v) for k, v in (kv.split("=") for kv in m.group(1).split())}


failures = []


def check_linear(label, sizes, results, counters):
    base_size, base = sizes[0], results[0]
    for size, r in zip(sizes[1:], results[1:]):
        for c in counters:
            grow = r[c] / max(base[c], 1)
            allowed = 1.25 * size / base_size
            print(f"{label}: {c} x{grow:.2f} for input x{size / base_size:.0f}"
                  f" (allowed x{allowed:.2f})")
            if grow > allowed:
                failures.append(f"{label}: {c} grew x{grow:.2f} for x{size / base_size:.0f} input")
    for size, r in zip(sizes, results):
        if r["blocks-visited"] > 3 * r["cfg-blocks"]:
            failures.append(f"{label} size {size}: {r['blocks-visited']} block "
                            f"visits for {r['cfg-blocks']} blocks")


sizes = [200, 1000, 4000]  # groups of 5 statements: 1k, 5k, 20k statements
results = [stats(f"long{g}.cpp", long_function(g)) for g in sizes]
check_linear("one long function", sizes, results,
             ["blocks-visited", "elements-visited", "state-entries"])
for g, r in zip(sizes, results):
    if r["max-state"] > 8:
        failures.append(f"{g * 5} statements: {r['max-state']} facts live at once")

fsizes = [1000, 10000]
fresults = [stats(f"many{n}.cpp", many_functions(n)) for n in fsizes]
check_linear("many functions", fsizes, fresults,
             ["functions-analysed", "blocks-visited", "elements-visited",
              "state-entries"])
if failures:
    sys.exit("\n".join(failures))
