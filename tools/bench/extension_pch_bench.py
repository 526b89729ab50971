#!/usr/bin/env python3
"""What the ground-truth suites' shared precompiled header saves
(tools/ground-truth/extension_build.py): one twin built cold three ways, in
the same run, under one torch:

  inline   load_inline, as the suites built before (it prepends
           <torch/extension.h>)
  file     the same text as a file, compiled as written
  pch      the same file on the precompiled header (built first, timed apart)

usage: VENV/bin/python tools/bench/extension_pch_bench.py [--twins N]

Prints each build's wall time and its ratio to `inline`, and the break-even:
how many twins the PCH's own build takes to pay back. Every build goes to a
temporary cache, so nothing is warm. Not in CI: it is a measurement (about
four minutes on two cores).
"""
import argparse
import os
import sys
import tempfile
import time

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, "..", "ground-truth"))

# A twin as the suites write them: a few kernels and their registrations.
TWIN = r'''
#include <ATen/ATen.h>
#include <torch/library.h>
void add_rows(at::Tensor m, const at::Tensor &v) { m.narrow(0, 0, 2).add_(v); }
at::Tensor scaled(const at::Tensor &x, double s) { return x.mul(s).contiguous(); }
std::tuple<at::Tensor, at::Tensor> pair(const at::Tensor &x) {
  return std::make_tuple(x.view({-1}), x.sum());
}
TORCH_LIBRARY(NS, m) {
  m.def("add_rows(Tensor m, Tensor v) -> ()");
  m.def("scaled(Tensor x, float s) -> Tensor");
  m.def("pair(Tensor x) -> (Tensor, Tensor)");
}
TORCH_LIBRARY_IMPL(NS, CPU, m) {
  m.impl("add_rows", &add_rows);
  m.impl("scaled", &scaled);
  m.impl("pair", &pair);
}
'''


def timed(fn):
    start = time.monotonic()
    fn()
    return time.monotonic() - start


def main():
    p = argparse.ArgumentParser(description=__doc__,
                                formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--twins", type=int, default=2,
                   help="twins built each way (default 2); the median is printed")
    args = p.parse_args()
    with tempfile.TemporaryDirectory(prefix="tt-pch-bench-") as cache:
        os.environ["TORCH_TIDY_CACHE"] = cache
        import torch
        import torch.utils.cpp_extension
        import extension_build as eb
        times = {"inline": [], "file": [], "pch": []}
        for i in range(args.twins):
            text = TWIN.replace("NS", f"tt_bench_inline{i}")
            build = os.path.join(cache, f"inline{i}")
            os.makedirs(build)
            times["inline"].append(timed(lambda: torch.utils.cpp_extension.load_inline(
                f"tt_bench_inline{i}", cpp_sources=[text], is_python_module=False,
                build_directory=build)))
            text = TWIN.replace("NS", f"tt_bench_file{i}")
            build = eb.build_dir(torch, f"tt_bench_file{i}", [text])
            path = os.path.join(build, "twin.cpp")
            eb.write_if_changed(path, text)
            times["file"].append(timed(lambda: torch.utils.cpp_extension.load(
                name=f"tt_bench_file{i}", sources=[path], build_directory=build,
                is_python_module=False)))
        pch_build = timed(lambda: eb.pch_flags(torch))
        if not eb.pch_flags(torch):
            print("FAIL: no precompiled header could be built (see the note above)")
            return 1
        for i in range(args.twins):
            text = TWIN.replace("NS", f"tt_bench_pch{i}")
            times["pch"].append(timed(lambda: eb.load_texts(
                torch, f"tt_bench_pch{i}", [("twin.cpp", text)])))
    median = {k: sorted(v)[len(v) // 2] for k, v in times.items()}
    print(f"torch {torch.__version__}, {args.twins} twin(s) each way, median wall time")
    print(f"{'build':8} {'seconds':>8} {'vs inline':>10}")
    for k in ("inline", "file", "pch"):
        print(f"{k:8} {median[k]:8.1f} {median[k] / median['inline']:10.2f}")
    print(f"{'PCH':8} {pch_build:8.1f}   (once per torch version)")
    saved = median["file"] - median["pch"]
    if saved > 0:
        print(f"break-even against `file`: {pch_build / saved:.1f} twins")
    return 0


if __name__ == "__main__":
    sys.exit(main())
