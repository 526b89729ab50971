#!/usr/bin/env python3
"""The cost of the project-wide operator index (issue 29's targets).

  python3 tools/bench/project_index_bench.py [--build build] [--files 1000]
                                             [--runs 7]

Generates an extension project of --files C++, CUDA and Python files (about
the size of real extension sources; one in 33 holds a TORCH_LIBRARY block of
schemas, one in 50 is Python defining operators), then measures

1. learning the project's operators the first time (an empty cache) and
   once cached, with build/bin/project-index-bench (medians of --runs);
2. what the index adds to one clang-tidy run of a kernel file in the
   project: torch-op-undeclared-mutation with ProjectRoot: auto (the cache
   written) against ProjectRoot: none on the same file, alternating, medians.

Prints each number beside its target: first time <= 2000 ms, cached <= 50 ms
per translation unit.
"""
import argparse
import os
import random
import shutil
import statistics
import subprocess
import sys
import tempfile
import time

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
MOCK = os.path.join(ROOT, "test", "lit", "Inputs", "mock-libtorch")


def cache_value(build, key):
    for line in open(os.path.join(build, "CMakeCache.txt")):
        if line.startswith(key + ":"):
            return line.split("=", 1)[1].strip()
    return ""


def generate(root, files):
    rnd = random.Random(29)
    open(os.path.join(root, "setup.py"), "w").write("from setuptools import setup\n")
    body = "\n".join(
        f"static int helper_{{i}}_{k}(const float *x, int n) {{\n"
        f"  int s = 0; // \"a string\" in a comment\n"
        f"  for (int j = 0; j < n; ++j) s += x[j] > {k};\n  return s;\n}}"
        for k in range(60))
    for i in range(files):
        d = os.path.join(root, "csrc", f"part{i % 25}")
        os.makedirs(d, exist_ok=True)
        if i % 50 == 1:
            os.makedirs(os.path.join(root, "ext"), exist_ok=True)
            with open(os.path.join(root, "ext", f"ops{i}.py"), "w") as f:
                f.write("import torch\nlib = torch.library.Library('bench', 'FRAGMENT')\n")
                for k in range(5):
                    f.write(f"lib.define('py{i}_{k}(Tensor x, Tensor out) -> Tensor')\n")
            continue
        ext = ".cu" if rnd.random() < 0.2 else ".cpp"
        with open(os.path.join(d, f"f{i}{ext}"), "w") as f:
            if i % 33 == 0:
                f.write("#include <torch/library.h>\nTORCH_LIBRARY_FRAGMENT(bench, m) {\n")
                for k in range(12):
                    f.write(f'  m.def("op{i}_{k}(Tensor x, Tensor out) -> ()");\n')
                f.write("}\n")
            f.write(body.replace("{i}", str(i)))
    kernel = os.path.join(root, "csrc", "kernels.cpp")
    with open(kernel, "w") as f:
        f.write("#include <torch/torch.h>\n"
                "void k(const at::Tensor &x, const at::Tensor &out) { out.add_(x); }\n"
                "TORCH_LIBRARY_IMPL(bench, CPU, m) { m.impl(\"op0_0\", &k); }\n")
    return kernel


def tidy_seconds(clang_tidy, module, kernel, setting, cache):
    env = dict(os.environ, TORCH_TIDY_CACHE=cache)
    cmd = [clang_tidy, f"--load={module}", "-checks=-*,torch-op-undeclared-mutation",
           f"--config={{CheckOptions: {{ProjectRoot: {setting}}}}}", kernel, "--",
           "-std=c++17", "-isystem", MOCK]
    t0 = time.perf_counter()
    out = subprocess.run(cmd, stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
                         text=True, env=env).stdout
    dt = time.perf_counter() - t0
    warned = "warning: add_ writes into argument 'out'" in out
    return dt, warned


def main():
    ap = argparse.ArgumentParser(description=__doc__,
                                 formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--build", default="build")
    ap.add_argument("--files", type=int, default=1000)
    ap.add_argument("--runs", type=int, default=7)
    ap.add_argument("--no-targets", action="store_true",
                    help="exit 0 whatever the times (a smoke run in ctest)")
    args = ap.parse_args()
    build = os.path.abspath(args.build)
    bench = os.path.join(build, "bin", "project-index-bench")
    module = os.path.join(build, "lib", "TorchTidyModule.so")
    llvm = cache_value(build, "TORCH_TIDY_LLVM_VERSION") or "19"
    clang_tidy = f"/usr/lib/llvm-{llvm}/bin/clang-tidy"
    if not os.path.exists(bench) or not os.path.exists(module):
        sys.exit(f"build {bench} and {module} first (make build)")
    tmp = tempfile.mkdtemp(prefix="tt-index-bench-")
    try:
        project = os.path.join(tmp, "project")
        os.makedirs(project)
        kernel = generate(project, args.files)
        size = sum(os.path.getsize(os.path.join(d, f))
                   for d, _, fs in os.walk(project) for f in fs)
        out = subprocess.run([bench, project, os.path.join(tmp, "bench-cache"),
                              str(args.runs)], stdout=subprocess.PIPE, text=True,
                             check=True).stdout
        stats = dict(line.split() for line in out.splitlines())
        cache = os.path.join(tmp, "tidy-cache")
        tidy_seconds(clang_tidy, module, kernel, "auto", cache)  # writes the cache
        on, off = [], []
        for _ in range(args.runs):
            t, warned = tidy_seconds(clang_tidy, module, kernel, "auto", cache)
            if not warned:
                sys.exit("FAIL: with the index the kernel file's write is not reported")
            on.append(t)
            t, warned = tidy_seconds(clang_tidy, module, kernel, "none", cache)
            if warned:
                sys.exit("FAIL: without the index the write is reported")
            off.append(t)
        cold, warm = float(stats["cold_ms"]), float(stats["warm_ms"])
        m_on, m_off = statistics.median(on) * 1000, statistics.median(off) * 1000
        print(f"project: {stats['files']} files ({size / 1e6:.1f} MB), "
              f"{stats['schemas']} schemas")
        print(f"learning its operators the first time: {cold:.1f} ms "
              f"(target <= 2000 ms; {'met' if cold <= 2000 else 'NOT met'})")
        print(f"once cached ({stats['warm_from_cache']} files from the cache, "
              f"{stats['warm_read']} read): {warm:.1f} ms "
              f"(target <= 50 ms; {'met' if warm <= 50 else 'NOT met'})")
        print(f"clang-tidy on a kernel file of the project, median of {args.runs}: "
              f"ProjectRoot: auto {m_on:.0f} ms, none {m_off:.0f} ms, "
              f"difference {m_on - m_off:+.0f} ms (ratio {m_on / m_off:.3f})")
        return 0 if args.no_targets or (cold <= 2000 and warm <= 50) else 1
    finally:
        shutil.rmtree(tmp, ignore_errors=True)


if __name__ == "__main__":
    sys.exit(main())
