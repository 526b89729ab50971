#!/usr/bin/env python3
"""What the wheel costs a user (issue 61): its size, `pip install` time into
a fresh venv (offline, LibCST from bootstrap's wheelhouse), the first run of
the installed torch-tidy-project on a small project (test/wheel/project),
and the static torch-tidy's lint time beside the build's shared one on the
same file, run alternately, with the ratio. Prints a table; nothing is
written.

  python3 tools/bench/wheel_bench.py --build build --wheel dist/torch_tidy-*.whl
"""
import argparse
import glob
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import time

SRC = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
CACHE = os.environ.get("TORCH_TIDY_CACHE",
                       os.path.join(os.path.expanduser("~"), ".cache", "torch-tidy"))


def timed(cmd, **kw):
    start = time.monotonic()
    p = subprocess.run(cmd, stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
                       text=True, **kw)
    return time.monotonic() - start, p


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--build", default="build")
    ap.add_argument("--wheel", required=True)
    ap.add_argument("--repeat", type=int, default=7)
    ap.add_argument("--torch-python",
                    default=os.path.join(CACHE, "venv-torch-2.8.0", "bin", "python"))
    args = ap.parse_args()
    args.build = os.path.abspath(args.build)
    [wheel] = glob.glob(args.wheel)
    scratch = tempfile.mkdtemp(prefix="torch-tidy-wheel-bench-")
    try:
        venv = os.path.join(scratch, "venv")
        subprocess.run(["/usr/bin/python3", "-m", "venv", venv], check=True)
        install_s, p = timed([os.path.join(venv, "bin", "pip"), "install",
                              "--no-index", "--find-links",
                              os.path.join(CACHE, "wheelhouse"), wheel])
        if p.returncode:
            sys.exit(p.stdout)
        rows = [("wheel size", f"{os.path.getsize(wheel) / 2**20:.1f} MiB", ""),
                ("pip install (offline, fresh venv)", f"{install_s:.1f} s", "")]
        firsts = {}
        for name, tool in (("wheel", os.path.join(venv, "bin", "torch-tidy-project")),
                           ("build", os.path.join(args.build, "bin", "torch-tidy-project"))):
            proj = os.path.join(scratch, "project-" + name)
            shutil.copytree(os.path.join(SRC, "test", "wheel", "project"), proj)
            firsts[name], p = timed([tool, "--python", args.torch_python,
                                     "--fail-on", "never"], cwd=proj)
            if p.returncode:
                sys.exit(p.stdout)
        rows.append(("first torch-tidy-project run (configure + lint)",
                     f"{firsts['wheel']:.1f} s",
                     f"build's: {firsts['build']:.1f} s"))
        site = glob.glob(os.path.join(venv, "lib", "python3*", "site-packages",
                                      "torch_tidy", "bin", "torch-tidy"))[0]
        include = glob.glob(os.path.join(os.path.dirname(os.path.dirname(
            args.torch_python)), "lib", "python3*", "site-packages", "torch",
            "include"))[0]
        example = os.path.join(SRC, "examples", "skew_symmetric.cpp")
        lint = ["-checks=-*,torch-*", example, "--", "-std=c++17", "-I",
                os.path.join(SRC, "include"), "-isystem", include, "-isystem",
                os.path.join(include, "torch", "csrc", "api", "include")]
        times = {"static": [], "shared": []}
        tools = {"static": site,
                 "shared": os.path.join(args.build, "bin", "torch-tidy")}
        for i in range(args.repeat + 1):
            for kind in ("static", "shared") if i % 2 else ("shared", "static"):
                t, p = timed([tools[kind]] + lint)
                if "warning:" not in p.stdout:
                    sys.exit(f"{kind} torch-tidy found no warning:\n{p.stdout}")
                if i:  # the first round warms the file cache
                    times[kind].append(t)
        med = {k: statistics.median(v) for k, v in times.items()}
        spread = {k: (max(v) - min(v)) / 2 for k, v in times.items()}
        rows.append(("lint skew_symmetric.cpp (torch 2.8.0 headers), static",
                     f"{med['static']:.2f} s ± {spread['static']:.2f}",
                     f"median of {args.repeat}"))
        rows.append(("same, the build's shared torch-tidy",
                     f"{med['shared']:.2f} s ± {spread['shared']:.2f}",
                     f"static/shared {med['static'] / med['shared']:.2f}"))
        width = max(len(r[0]) for r in rows)
        for r in rows:
            print(f"{r[0]:<{width}}  {r[1]:>16}  {r[2]}")
    finally:
        shutil.rmtree(scratch, ignore_errors=True)


if __name__ == "__main__":
    main()
