#!/usr/bin/env python3
"""The Debian package as a user gets it (issue 18).

Builds the .deb with CPack from the build directory, unpacks it into a
temporary root (dpkg -x), and checks:
  * the files a user needs are there (binaries, module, header, docs, hook);
  * no installed ELF file carries a RUNPATH (the build's, or CUDA's);
  * every library an installed ELF file links (NEEDED) is shipped by the
    package itself or by a package named in its Depends (ldconfig + dpkg -S),
    and Depends names Debian's LLVM runtime packages;
  * the installed torch-tidy, with no LD_LIBRARY_PATH, warns on an example and
    --fix rewrites another (the installed header included); Debian's
    clang-tidy --loads the installed module; the pre-commit hook and
    run-clang-tidy work with the installed torch-tidy found on PATH.

Exit 77 (a SKIPPED line) when dpkg-deb or dpkg-shlibdeps is missing.
"""
import argparse
import glob
import json
import os
import re
import shutil
import subprocess
import sys
import tempfile

SKIP = 77


def run(cmd, **kw):
    kw.setdefault("stdout", subprocess.PIPE)
    kw.setdefault("stderr", subprocess.STDOUT)
    kw.setdefault("text", True)
    return subprocess.run(cmd, **kw)


def fail(msg, out=""):
    if out:
        print(out[-4000:])
    print("FAIL:", msg)
    return 1


def is_elf(path):
    with open(path, "rb") as f:
        return f.read(4) == b"\x7fELF"


def dynamic(path):
    out = run(["readelf", "-d", path]).stdout
    needed = re.findall(r"\(NEEDED\)\s+Shared library: \[([^\]]+)\]", out)
    runpath = re.findall(r"\((?:RUNPATH|RPATH)\)\s+Library r(?:un)?path: \[([^\]]+)\]", out)
    return needed, runpath


def system_libraries():
    """soname -> path of the x86-64 libraries the dynamic loader knows."""
    libs = {}
    for line in run(["ldconfig", "-p"]).stdout.splitlines():
        m = re.match(r"\s*(\S+) \(([^)]*)\) => (\S+)", line)
        if m and "x86-64" in m.group(2):
            libs.setdefault(m.group(1), m.group(3))
    return libs


def owner(path):
    """The Debian package that ships path (following usrmerge's /lib)."""
    for p in (path, os.path.realpath(path)):
        for q in (p, p.replace("/usr/lib/", "/lib/", 1), p.replace("/lib/", "/usr/lib/", 1)):
            out = run(["dpkg", "-S", q])
            if out.returncode == 0:
                return out.stdout.split(":")[0].strip()
    return None


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--build-dir", required=True)
    ap.add_argument("--source-dir", required=True)
    ap.add_argument("--llvm-bin", required=True)
    ap.add_argument("--torch-include", required=True, help="LibTorch's C++ API include dir")
    ap.add_argument("--out", required=True)
    ap.add_argument("--tools-python", default="",
                    help="a Python with LibCST, to run the installed torch-tidy-py with")
    args = ap.parse_args()
    for tool in ("dpkg-deb", "dpkg-shlibdeps", "cpack", "readelf"):
        if not shutil.which(tool):
            print(f"SKIPPED install-deb: {tool} is not installed (apt-get install dpkg-dev)")
            return SKIP

    shutil.rmtree(args.out, ignore_errors=True)
    os.makedirs(args.out)
    pack = run(["cpack", "-G", "DEB", "--config", os.path.join(args.build_dir, "CPackConfig.cmake"),
                "-B", args.out])
    debs = glob.glob(os.path.join(args.out, "*.deb"))
    if pack.returncode != 0 or len(debs) != 1:
        return fail("cpack made no .deb", pack.stdout)
    deb = debs[0]
    depends_field = run(["dpkg-deb", "-f", deb, "Depends"]).stdout.strip()
    depends = {alt.strip().split()[0].split(":")[0]
               for item in depends_field.split(",") for alt in item.split("|") if alt.strip()}
    print(f"{os.path.basename(deb)}: {os.path.getsize(deb) / 1e6:.1f} MB; Depends: {depends_field}")

    root = os.path.join(args.out, "root")
    x = run(["dpkg", "-x", deb, root])
    if x.returncode != 0:
        return fail("dpkg -x failed", x.stdout)
    bad = 0
    want = ["usr/bin/torch-tidy", "usr/bin/torch-clangd", "usr/bin/torch-tidy-verify",
            "usr/bin/torch-tidy-sarif", "usr/bin/torch-tidy-hook", "usr/bin/torch-tidy-cdb",
            "usr/bin/torch-tidy-project", "usr/bin/torch-tidy-py", "usr/lib/TorchTidyModule.so",
            "usr/lib/libTorchTidyChecks.so", "usr/include/torch_tidy/compiled.h",
            "usr/share/doc/torch-tidy/README.md",
            "usr/share/torch-tidy/python/torch_tidy_project/cli.py",
            "usr/share/torch-tidy/python/torch_tidy_project/cdb.py",
            "usr/share/torch-tidy/python/torch_tidy_py/analysis.py",
            "usr/share/doc/torch-tidy/ground-truth.json"]
    for f in want:
        if not os.path.exists(os.path.join(root, f)):
            bad += 1
            print(f"MISSING /{f}")

    # Linked libraries against Depends.
    system = system_libraries()
    shipped = set()
    elves = []
    for d, _, files in os.walk(root):
        for name in files:
            p = os.path.join(d, name)
            if not os.path.islink(p) and is_elf(p):
                elves.append(p)
                shipped.add(name)
    for llvm_pkg in ("libclang-cpp19", "libllvm19"):
        if llvm_pkg not in depends:
            bad += 1
            print(f"DEPENDS lacks {llvm_pkg} (the binaries link its library)")
    checked = 0
    for p in sorted(elves):
        needed, runpath = dynamic(p)
        rel = "/" + os.path.relpath(p, root)
        if runpath:
            bad += 1
            print(f"RUNPATH in {rel}: {runpath}")
        for lib in needed:
            if lib in shipped:
                continue
            path = system.get(lib)
            pkg = owner(path) if path else None
            checked += 1
            if pkg is None:
                bad += 1
                print(f"UNRESOLVED {rel} needs {lib}: no Debian package ships it here")
            elif pkg not in depends:
                bad += 1
                print(f"DEPENDS lacks {pkg}: {rel} needs {lib} ({path})")
    print(f"{len(elves)} ELF files, {checked} linked libraries checked against Depends")

    # The installed tools. libclang-common-19-dev (in Depends) holds clang's
    # builtin headers in /usr/lib/clang; the unpacked root stands in for /usr.
    os.symlink("/usr/lib/clang", os.path.join(root, "usr/lib/clang"))
    env = {k: v for k, v in os.environ.items() if k != "LD_LIBRARY_PATH"}
    env["PATH"] = os.path.join(root, "usr/bin") + os.pathsep + env.get("PATH", "")
    tidy = os.path.join(root, "usr/bin/torch-tidy")
    examples = os.path.join(args.source_dir, "examples")
    flags = ["-std=c++17", "-isystem", os.path.join(root, "usr/include"),
             "-isystem", args.torch_include]
    lint = run([tidy, "-checks=-*,torch-*", os.path.join(examples, "skew_symmetric.cpp"), "--"] + flags,
               env=env)
    if "warning: in-place index_put_ into mutable argument 'matrix'" not in lint.stdout:
        bad += 1
        print(lint.stdout[-3000:])
        print("FAIL: the installed torch-tidy does not warn on examples/skew_symmetric.cpp")
    work = os.path.join(args.out, "work")
    os.makedirs(work)
    fixed = os.path.join(work, "mixture_layer.cpp")
    shutil.copy(os.path.join(examples, "mixture_layer.cpp"), fixed)
    before = open(fixed).read()
    fix = run([tidy, "-checks=-*,torch-*", "--fix", fixed, "--"] + flags, env=env)
    after = open(fixed).read()
    if after == before or "out = out.index_copy(0, slots" not in after:
        bad += 1
        print(fix.stdout[-3000:])
        print("FAIL: the installed torch-tidy --fix did not rewrite examples/mixture_layer.cpp")
    load = run([os.path.join(args.llvm_bin, "clang-tidy"), "--load",
                os.path.join(root, "usr/lib/TorchTidyModule.so"), "-checks=-*,torch-*", "--list-checks"],
               env=env)
    if "torch-compile-requires-grad-propagation" not in load.stdout:
        bad += 1
        print(load.stdout[-2000:])
        print("FAIL: clang-tidy --load of the installed module lists no torch-tidy check")

    # The hook and run-clang-tidy, finding torch-tidy on PATH.
    project = os.path.join(work, "project")
    os.makedirs(project)
    src = os.path.join(project, "skew_symmetric.cpp")
    shutil.copy(os.path.join(examples, "skew_symmetric.cpp"), src)
    with open(os.path.join(project, "compile_commands.json"), "w") as f:
        json.dump([{"directory": project, "file": src,
                    "arguments": ["clang++"] + flags + ["-c", src]}], f)
    hook = run(["torch-tidy-hook", "-p", project, src], env=env, cwd=project)
    if hook.returncode == 0 or "torch-compile-requires-grad-propagation" not in hook.stdout:
        bad += 1
        print(hook.stdout[-3000:])
        print("FAIL: the installed hook, torch-tidy on PATH, did not fail on the example")
    rct = run([os.path.join(args.llvm_bin, "run-clang-tidy"), "-clang-tidy-binary",
               shutil.which("torch-tidy", path=env["PATH"]), "-checks=-*,torch-*", "-p", project,
               "-quiet"], env=env, cwd=project)
    if "warning: in-place index_put_ into mutable argument 'matrix'" not in rct.stdout:
        bad += 1
        print(rct.stdout[-3000:])
        print("FAIL: run-clang-tidy with the installed torch-tidy found no warning")
    # The installed scripts find their package in share/torch-tidy/python.
    for script, words in (("torch-tidy-project", "--min-coverage"),
                          ("torch-tidy-cdb", "--setup-py")):
        res = run([os.path.join(root, "usr/bin", script), "--help"], env=env)
        if res.returncode != 0 or words not in res.stdout:
            bad += 1
            print(res.stdout[-2000:])
            print(f"FAIL: the installed {script} --help (its package in "
                  f"share/torch-tidy/python)")
    # torch-tidy-py finds its package, the measured table it reads
    # (share/doc/torch-tidy/ground-truth.json) and the rule table its fixes
    # go through (share/torch-tidy/RewriteRules.def) from where it is
    # installed.
    seed = os.path.join(work, "seed.py")
    with open(seed, "w") as f:
        f.write("import torch\n\n@torch.compile\ndef f(x: torch.Tensor):\n"
                "    m = torch.zeros(2, 4, 4)\n    rows, cols = torch.triu_indices(4, 4, 1)\n"
                "    m[:, rows, cols] = x\n    assert m.requires_grad\n    return m\n")
    if args.tools_python:
        py = run([args.tools_python, os.path.join(root, "usr/bin/torch-tidy-py"), seed], env=env)
        if py.returncode != 1 or "torch 2.8.0 with the eager, aot_eager and inductor " \
                "backends" not in py.stdout or "note: rule: index-put-advanced" not in py.stdout:
            bad += 1
            print(py.stdout[-2000:])
            print("FAIL: the installed torch-tidy-py did not report the seed")
    else:
        print("SKIPPED the installed torch-tidy-py on the seed: no Python with LibCST "
              "(the tools venv) was given")
    # The hook and run-clang-tidy's project had a database there: the whole
    # project in one command, the installed torch-tidy beside the script.
    whole = run([os.path.join(root, "usr/bin/torch-tidy-project"), "-p",
                 project, "--json", os.path.join(work, "project.json")],
                env=env, cwd=project)
    if whole.returncode != 1 or "FAIL (warnings)" not in whole.stdout:
        bad += 1
        print(whole.stdout[-3000:])
        print("FAIL: the installed torch-tidy-project did not report the "
              "example's warning")
    if bad:
        print(f"FAIL: {bad} problem(s) with the installed package")
        return 1
    print("PASS: the .deb installs, its Depends cover what it links, and the installed tools work")
    return 0


if __name__ == "__main__":
    sys.exit(main())
