#!/usr/bin/env python3
"""The wheel as a pip user gets it (issue 61).

Packs the wheel from this build (tools/wheel/build_wheel.py, what `make wheel`
runs, with the same inputs), then checks:
  * auditwheel names a manylinux policy for it, and no binary in it needs a
    library outside glibc and libgcc_s (readelf: no LLVM, no libstdc++);
  * in a fresh venv made by the system's python3, `pip install` of the wheel
    (offline: its dependency LibCST from bootstrap's wheelhouse) gives every
    console script;
  * then, with LLVM hidden (every /usr/lib/llvm-* directory and every
    libLLVM / libclang library of the system masked, in a mount namespace of
    its own) and neither the build nor the checkout reachable (masked too),
    and nothing but the venv and /usr/bin on PATH:
      - the build's own torch-tidy no longer starts (the masking works);
      - the wheel's torch-tidy finds clang's builtin headers in the wheel;
      - torch-tidy-project lints a small project of this test's own
        (test/wheel/project: setup.py, a LibTorch operator, a compiled
        Python function) against the torch 2.8.0 venv's torch, with --json
        and --sarif, and finds both its bugs;
      - torch-tidy-py, flake8 (TTP001, through the wheel's entry point),
        torch-tidy-hook (the pre-commit hook's script), torch-tidy-sarif,
        torch-tidy-verify and torch-clangd run;
  * pre-commit installs the torch-tidy-py-pip hook through pyproject.toml,
    which pulls the wheel (offline), and it fails on the seed.
Prints the wheel's size, the install time and the first run's time.

Exit 77 (a SKIPPED line naming what is missing) without the tools venv
(wheel, auditwheel), the wheelhouse or the torch 2.8.0 venv. Without a
mount namespace (not root, no unshare, or mounts refused), the checks run
with LLVM installed and a NOT HIDDEN line says so.
"""
import argparse
import glob
import json
import os
import shutil
import subprocess
import sys
import tempfile
import time

SKIP = 77
HERE = os.path.dirname(os.path.abspath(__file__))
SCRIPTS = ("torch-tidy", "torch-clangd", "torch-tidy-sarif",
           "torch-tidy-verify", "torch-tidy-project", "torch-tidy-cdb",
           "torch-tidy-py", "torch-tidy-hook")


def run(cmd, **kw):
    kw.setdefault("stdout", subprocess.PIPE)
    kw.setdefault("stderr", subprocess.STDOUT)
    kw.setdefault("text", True)
    return subprocess.run(cmd, **kw)


def fail(msg, out=""):
    if out:
        print(out[-6000:])
    print("FAIL:", msg)
    return 1


# The part that runs with LLVM, the build and the checkout hidden: a shell
# script in its own mount namespace. Each check prints a line CHECK <name>
# <exit> and its output goes to <name>.log in the scratch directory.
INNER = r"""
set -u
cd "$SCRATCH"
mask() { for p in "$@"; do
  if [ -d "$p" ]; then mount -t tmpfs none "$p"; elif [ -e "$p" ]; then mount --bind /dev/null "$p"; fi
done; }
if [ "$HIDE" = 1 ]; then
  mask /usr/lib/llvm-* /usr/lib/x86_64-linux-gnu/libLLVM* /usr/lib/x86_64-linux-gnu/libclang* \
       "$BUILD_DIR" "$SOURCE_DIR"
fi
export PATH="$VENV/bin:/usr/bin:/bin"
unset LD_LIBRARY_PATH PYTHONPATH
check() { name="$1"; shift; "$@" >"$SCRATCH/$name.log" 2>&1; echo "CHECK $name $?"; }
check build-tidy "$BUILD_TIDY" --version
check version torch-tidy --version
printf '#include <stddef.h>\nsize_t n;\n' > builtin.cpp
check builtin torch-tidy builtin.cpp -- -v
START=$(date +%s.%N)
cd project
check project torch-tidy-project --python "$TORCH_PYTHON" --json ../report.json --sarif ../report.sarif
cd ..
END=$(date +%s.%N)
echo "FIRST_RUN $START $END"
check py torch-tidy-py project/rowfill/__init__.py
check flake8 flake8 --select TTP project/rowfill/__init__.py
check hook torch-tidy-hook -p project/.torch-tidy project/csrc/rowfill.cpp
check sarif torch-tidy-sarif --help
check verify torch-tidy-verify --help
printf 'int main() { return 0; }\n' > clangd.cpp
check clangd torch-clangd --check=clangd.cpp
for b in "$VENV"/lib/python3*/site-packages/torch_tidy/bin/*; do
  echo "NEEDED $(basename "$b") $(readelf -d "$b" | sed -n 's/.*(NEEDED).*\[\(.*\)\]/\1/p' | tr '\n' ' ')"
done
"""


def main():
    p = argparse.ArgumentParser()
    p.add_argument("--build-dir", required=True)
    p.add_argument("--source-dir", required=True)
    p.add_argument("--tools-python", default="")
    p.add_argument("--torch-python", default="")
    p.add_argument("--wheelhouse", required=True)
    p.add_argument("--build-wheel", nargs=argparse.REMAINDER, required=True,
                   help="build_wheel.py's arguments, as the wheel target "
                        "gives them (less --out and --work)")
    args = p.parse_args()
    for what, path in (("the tools venv (wheel, auditwheel)",
                        args.tools_python),
                       ("the torch 2.8.0 venv", args.torch_python),
                       ("bootstrap's wheelhouse (LibCST)",
                        os.path.join(args.wheelhouse, ".torch-tidy-ok"))):
        if not path or not os.path.exists(path):
            print(f"SKIPPED wheel-install: no {what} ({path or 'not set'}); "
                  f"run make bootstrap with PyPI reachable")
            return SKIP
    scratch = tempfile.mkdtemp(prefix="torch-tidy-wheel-")
    try:
        return check(args, scratch)
    finally:
        shutil.rmtree(scratch, ignore_errors=True)


def check(args, scratch):
    dist = os.path.join(scratch, "dist")
    start = time.monotonic()
    built = run([args.tools_python,
                 os.path.join(args.source_dir, "tools/wheel/build_wheel.py"),
                 *args.build_wheel, "--work", os.path.join(scratch, "stage"),
                 "--out", dist])
    pack_s = time.monotonic() - start
    print(built.stdout.strip())
    if built.returncode:
        return fail("build_wheel.py failed")
    shutil.rmtree(os.path.join(scratch, "stage"))
    wheels = glob.glob(os.path.join(dist, "torch_tidy-*-py3-none-manylinux_*.whl"))
    if len(wheels) != 1:
        return fail(f"no manylinux wheel in {dist}: {os.listdir(dist)}")
    wheel = wheels[0]
    if "consistent with the following platform tag: \"manylinux_" not in built.stdout:
        return fail("auditwheel show named no manylinux policy", built.stdout)

    venv = os.path.join(scratch, "venv")
    made = run(["/usr/bin/python3", "-m", "venv", venv])
    if made.returncode:
        return fail("python3 -m venv failed", made.stdout)
    start = time.monotonic()
    inst = run([os.path.join(venv, "bin", "pip"), "install", "--no-index",
                "--find-links", args.wheelhouse, wheel])
    install_s = time.monotonic() - start
    if inst.returncode:
        return fail("pip install of the wheel failed", inst.stdout)
    missing = [s for s in SCRIPTS
               if not os.path.isfile(os.path.join(venv, "bin", s))]
    if missing:
        return fail(f"pip made no console script for {missing}")

    # flake8 beside it: the wheel's flake8.extension entry point registers
    # TTP001 (checked below, with LLVM hidden).
    inst = run([os.path.join(venv, "bin", "pip"), "install", "--no-index",
                "--find-links", args.wheelhouse, "flake8"])
    if inst.returncode:
        return fail("pip install flake8 from the wheelhouse failed", inst.stdout)
    shutil.copytree(os.path.join(HERE, "project"),
                    os.path.join(scratch, "project"))
    # Hiding needs a mount namespace of its own (root, and a kernel and
    # container that allow it): probed first.
    hide = (os.geteuid() == 0 and shutil.which("unshare") and
            run(["unshare", "--mount", "--propagation", "private", "sh", "-c",
                 "mount -t tmpfs none /mnt"]).returncode == 0)
    env = dict(os.environ, SCRATCH=scratch, VENV=venv, HIDE="1" if hide else "0",
               BUILD_DIR=os.path.realpath(args.build_dir),
               SOURCE_DIR=os.path.realpath(args.source_dir),
               BUILD_TIDY=os.path.join(os.path.realpath(args.build_dir),
                                       "bin", "torch-tidy"),
               TORCH_PYTHON=args.torch_python)
    cmd = ["bash", "-c", INNER]
    if hide:
        cmd = ["unshare", "--mount", "--propagation", "private"] + cmd
    else:
        print("NOT HIDDEN: no mount namespace here (not root, no unshare, "
              "or mounts refused): the checks below run with LLVM, the build "
              "and the checkout where they are")
    inner = run(cmd, env=env)
    results = {}
    needed = {}
    first_run = None
    for line in inner.stdout.splitlines():
        part = line.split()
        if part[:1] == ["CHECK"]:
            results[part[1]] = int(part[2])
        elif part[:1] == ["NEEDED"]:
            needed[part[1]] = part[2:]
        elif part[:1] == ["FIRST_RUN"]:
            first_run = float(part[2]) - float(part[1])

    def log(name):
        path = os.path.join(scratch, name + ".log")
        return open(path, errors="replace").read() if os.path.exists(path) else ""

    failures = []

    def expect(name, code, text=None):
        got = results.get(name)
        out = log(name)
        if got != code or (text and text not in out):
            failures.append(name)
            print(f"FAIL {name}: exit {got}, expected {code}"
                  + (f" and '{text}' in its output" if text else "")
                  + "\n  " + out[-3000:].replace("\n", "\n  "))
        else:
            print(f"PASS {name}")

    if hide:
        # The masking works: the build's torch-tidy, which links Debian's
        # libLLVM and libclang-cpp, cannot start.
        if results.get("build-tidy") == 0:
            failures.append("build-tidy")
            print("FAIL build-tidy: the build's torch-tidy ran, so LLVM was "
                  "not hidden:\n  " + log("build-tidy"))
        else:
            print("PASS build-tidy: the build's torch-tidy cannot start "
                  "with LLVM hidden")
    expect("version", 0, "torch-tidy version")
    site = glob.glob(os.path.join(venv, "lib", "python3*", "site-packages",
                                  "torch_tidy"))[0]
    expect("builtin", 0, os.path.join(site, "lib", "clang"))
    expect("project", 1, "2 warnings")
    if "project" not in failures:
        out = log("project")
        tidy_line = [l for l in out.splitlines() if l.startswith("  torch-tidy: ")]
        if not tidy_line or os.path.join(site, "bin", "torch-tidy") not in tidy_line[0]:
            failures.append("project-tidy")
            print(f"FAIL project-tidy: torch-tidy-project did not use the "
                  f"wheel's torch-tidy: {tidy_line}")
        report = json.load(open(os.path.join(scratch, "report.json")))
        checks = sorted((f["file"], f["check"]) for f in report["findings"])
        sarif = json.load(open(os.path.join(scratch, "report.sarif")))
        results_n = sum(len(r.get("results", [])) for r in sarif["runs"])
        want = [(f, "torch-compile-requires-grad-propagation")
                for f in ("csrc/rowfill.cpp", "rowfill/__init__.py")]
        if checks != want or results_n != 2:
            failures.append("project-report")
            print(f"FAIL project-report: --json findings {checks}, SARIF "
                  f"results {results_n}; expected the C++ and the Python "
                  f"write")
        else:
            print("PASS project-report: --json and --sarif hold the C++ "
                  "kernel's index_put_ and the compiled Python write")
    expect("py", 1, "torch-compile-requires-grad-propagation")
    expect("flake8", 1, "rowfill/__init__.py:7:5: TTP001 ")
    expect("hook", 1, "rowfill.cpp:9:3: error: in-place index_put_")
    expect("sarif", 0)
    expect("verify", 0)
    expect("clangd", 0)
    allowed = {"libc.so.6", "libm.so.6", "libgcc_s.so.1", "ld-linux-x86-64.so.2"}
    for binary, libs in sorted(needed.items()):
        extra = [l for l in libs if l not in allowed]
        if extra:
            failures.append("needed-" + binary)
            print(f"FAIL needed-{binary}: links {extra} (the wheel must "
                  f"need glibc and libgcc_s only)")
    if len(needed) < 3:
        failures.append("needed")
        print(f"FAIL needed: read {len(needed)} binaries in the installed "
              f"wheel, expected at least torch-tidy, torch-clangd and "
              f"torch-tidy-sarif")
    else:
        print(f"PASS needed: {', '.join(sorted(needed))} need glibc and "
              f"libgcc_s only")
    pre_commit(args, scratch, wheel, failures)
    size = os.path.getsize(wheel) / 2**20
    print(f"wheel: {os.path.basename(wheel)}, {size:.1f} MiB; packed and "
          f"repaired in {pack_s:.0f} s; pip install {install_s:.1f} s; first "
          f"torch-tidy-project run {first_run or float('nan'):.1f} s")
    if failures:
        print(f"FAIL: {len(failures)} check(s): {', '.join(failures)}")
        return 1
    print("PASS: the wheel installs and works with no LLVM" +
          ("" if hide else " (LLVM NOT HIDDEN: see above)"))
    return 0


def pre_commit(args, scratch, wheel, failures):
    """The hooks that install from the wheel (language: python): pre-commit
    installs the checkout (pyproject.toml), which pulls the wheel; offline,
    from the wheel's directory and the wheelhouse."""
    version = os.path.basename(wheel).split("-")[1]
    pyproject = open(os.path.join(args.source_dir, "pyproject.toml")).read()
    if f'"torch-tidy=={version}"' not in pyproject:
        failures.append("pyproject")
        print(f"FAIL pyproject: pyproject.toml does not depend on "
              f"torch-tidy=={version}, the wheel's version")
    pc = os.path.join(os.path.dirname(args.tools_python), "pre-commit")
    repo = os.path.join(scratch, "hooked")
    os.makedirs(repo)
    run(["git", "init", "-q"], cwd=repo)
    shutil.copy(os.path.join(args.source_dir, "examples", "skew_symmetric.py"),
                os.path.join(repo, "model.py"))
    run(["git", "add", "model.py"], cwd=repo)
    env = dict(os.environ, PIP_NO_INDEX="1",
               PIP_FIND_LINKS=f"{os.path.dirname(wheel)} {args.wheelhouse}",
               PRE_COMMIT_HOME=os.path.join(scratch, "pre-commit-home"))
    out = run([pc, "try-repo", args.source_dir, "torch-tidy-py-pip",
               "--verbose"], cwd=repo, env=env)
    if out.returncode == 0 or "model.py:17:5: warning: " not in out.stdout:
        failures.append("pre-commit")
        print(f"FAIL pre-commit: the torch-tidy-py-pip hook (installed from "
              f"the wheel) did not fail on the seed with its warning (exit "
              f"{out.returncode}):\n  " + out.stdout[-3000:].replace("\n", "\n  "))
    else:
        print("PASS pre-commit: the torch-tidy-py-pip hook, installed from "
              "the wheel through pyproject.toml, fails on the seed")


if __name__ == "__main__":
    sys.exit(main())
