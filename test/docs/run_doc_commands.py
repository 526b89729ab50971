#!/usr/bin/env python3
"""Runs the command blocks of the docs that are marked runnable, as written.

A block is a fenced ```sh block preceded by a line

    <!-- runnable: in=DIR [exit=N] [expect="TEXT"] [after=path] -->

DIR is where it runs: `.` is the checkout, anything else a copy of that
directory of the repository (a sample project), one copy per directory:
the blocks that name it run there in the order of the files given and of
their lines, as a reader who follows the docs runs them in one project
(so a later block may find what an earlier one left, such as the cache). Each block runs in
bash with -e -o pipefail and these stand-ins for the reader's machine:

  $TT            a tree that looks like the reader's checkout after
                 `make demo` and `make test`: the repository's files, and
                 build/bin, build/lib, build/demo/bin, build/demo/lib all
                 this build's bin/ and lib/;
  .venv/bin/python  (in a sample project) the torch 2.8.0 venv's Python;
  after=path     the block comes after the docs' PATH line, which it does
                 not repeat: $TT/build/demo/bin is first on PATH.

A checkout block runs in a copy of $TT as well, so that what it writes stays
there. The block passes when it exits N (default 0) and its output holds
TEXT. A block that needs the torch venv where there is none is reported
SKIPPED by name; the test fails if any block fails, or if a file has no
runnable block.
"""
import argparse
import os
import re
import shlex
import shutil
import subprocess
import sys
import time

MARK = re.compile(r"^<!--\s*runnable:(.*?)-->\s*$")


def blocks(path):
    lines = open(path, encoding="utf-8").read().splitlines()
    found = []
    i = 0
    while i < len(lines):
        m = MARK.match(lines[i])
        if not m:
            i += 1
            continue
        attrs = dict(re.findall(r'(\w+)=("[^"]*"|\S+)', m.group(1)))
        attrs = {k: v.strip('"') for k, v in attrs.items()}
        j = i + 1
        while j < len(lines) and not lines[j].strip():
            j += 1
        if j >= len(lines) or not lines[j].startswith("```sh"):
            sys.exit(f"{path}:{i + 1}: a runnable mark not followed by a "
                     f"```sh block")
        k = j + 1
        while k < len(lines) and not lines[k].startswith("```"):
            k += 1
        found.append((i + 1, attrs, "\n".join(lines[j + 1:k]) + "\n"))
        i = k + 1
    return found


def fake_checkout(src, build, dest):
    """The reader's checkout: the repository's files (links) and a build/
    whose bin/ and lib/, and demo/'s, are this build's."""
    os.makedirs(dest)
    for name in os.listdir(src):
        if name in ("build", ".git"):
            continue
        os.symlink(os.path.join(src, name), os.path.join(dest, name))
    for sub in ("build", os.path.join("build", "demo")):
        os.makedirs(os.path.join(dest, sub), exist_ok=True)
        for d in ("bin", "lib"):
            os.symlink(os.path.join(build, d), os.path.join(dest, sub, d))


def main():
    p = argparse.ArgumentParser()
    p.add_argument("--source-dir", required=True)
    p.add_argument("--build-dir", required=True)
    p.add_argument("--torch-python", default="")
    p.add_argument("--out", required=True)
    p.add_argument("docs", nargs="+")
    args = p.parse_args()
    src = os.path.abspath(args.source_dir)
    build = os.path.abspath(args.build_dir)
    shutil.rmtree(args.out, ignore_errors=True)
    os.makedirs(args.out)
    failures, ran, skipped = [], 0, 0
    projects = {}  # in= directory -> its one copy
    for doc in args.docs:
        found = blocks(os.path.join(src, doc))
        if not found:
            failures.append(f"{doc}: no block marked runnable")
            print(f"FAIL {doc}: no block marked runnable")
        for line, attrs, text in found:
            name = f"{doc}:{line}"
            where = attrs.get("in", ".")
            tag = re.sub(r"\W+", "-", name)
            base = os.path.join(os.path.abspath(args.out), tag)
            tt = os.path.join(base, "tt")
            fake_checkout(src, build, tt)
            if where == ".":
                cwd = tt
            elif where in projects:
                cwd = projects[where]
            else:
                cwd = os.path.join(os.path.abspath(args.out),
                                   "project-" + re.sub(r"\W+", "-", where))
                shutil.copytree(os.path.join(src, where), cwd, symlinks=True)
                projects[where] = cwd
            if where != "." and ".venv/bin/python" in text:
                if not args.torch_python:
                    print(f"SKIPPED {name}: no torch 2.8.0 venv "
                          f"(tools/bootstrap) for .venv/bin/python")
                    skipped += 1
                    continue
                os.makedirs(os.path.join(cwd, ".venv", "bin"),
                            exist_ok=True)
                wrapper = os.path.join(cwd, ".venv", "bin", "python")
                with open(wrapper, "w") as f:
                    f.write(f"#!/bin/sh\nexec "
                            f"{shlex.quote(args.torch_python)} \"$@\"\n")
                os.chmod(wrapper, 0o755)
            env = dict(os.environ, TT=tt)
            if attrs.get("after") == "path":
                env["PATH"] = os.path.join(tt, "build", "demo", "bin") + \
                    os.pathsep + env["PATH"]
            start = time.monotonic()
            try:
                res = subprocess.run(["bash", "-e", "-o", "pipefail", "-c",
                                      text], cwd=cwd, env=env, text=True,
                                     stdout=subprocess.PIPE,
                                     stderr=subprocess.STDOUT, timeout=900)
                out, code = res.stdout, res.returncode
            except subprocess.TimeoutExpired:
                out, code = "(timed out after 900 s)", -1
            with open(os.path.join(base, "output.log"), "w") as f:
                f.write(text + "\n----\n" + out)
            want = int(attrs.get("exit", "0"))
            expect = attrs.get("expect", "")
            ok = code == want and expect in out
            ran += 1
            print(f"{'PASS' if ok else 'FAIL'} {name} (in {where}, "
                  f"{time.monotonic() - start:.0f} s): exit "
                  f"{code}, want {want}" +
                  (f"; output {'holds' if expect in out else 'lacks'} "
                   f"{expect!r}" if expect else ""))
            if not ok:
                failures.append(name)
                print("  " + "\n  ".join(text.strip().splitlines()))
                print("  output: " + out.strip()[-1500:].replace("\n",
                                                                 "\n  "))
    print(f"{ran} block(s) run, {skipped} skipped, {len(failures)} "
          f"failure(s)")
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
