#!/usr/bin/env python3
"""The corpus files where torch-write-into-copy can warn: C++, CUDA and SYCL
sources of the given repositories, at their pinned commits
(tools/corpus/repos.txt), that mention Tensor and call a method that may
return a copy (contiguous, expect_contiguous, reshape, flatten, toType, or
to() with a dtype constant). Prints repo/path lines for run.py --only.

  copying_files.py [--mirror DIR] OWNER/NAME [...]

Repositories without a mirror (DIR/OWNER+NAME/repo), or whose mirror lacks
the pinned commit, are named on stderr and skipped.
"""
import argparse
import os
import re
import subprocess
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
SOURCES = ("*.cpp", "*.cu", "*.cc", "*.sycl")
COPYING = re.compile(r"(\.|->)(contiguous|expect_contiguous|reshape|flatten|"
                     r"toType)\(|\.to\((at|torch|c10)::k")


def pinned():
    pins = {}
    for line in open(os.path.join(HERE, "repos.txt")):
        parts = line.split()
        if parts and not line.startswith("#") and len(parts) >= 2:
            pins[parts[0]] = parts[1]
    return pins


def main():
    ap = argparse.ArgumentParser(description=__doc__,
                                 formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--mirror", default=os.environ.get(
        "TORCH_TIDY_CORPUS_MIRROR", "/work/.mirror"))
    ap.add_argument("repos", nargs="+")
    args = ap.parse_args()
    pins = pinned()
    for repo in args.repos:
        commit = pins.get(repo)
        git = os.path.join(args.mirror, repo.replace("/", "+"), "repo")
        if not commit or not os.path.isdir(git):
            print(f"copying_files: {repo}: no pin or no mirror", file=sys.stderr)
            continue
        if subprocess.run(["git", "--git-dir", git, "cat-file", "-e",
                           commit + "^{commit}"]).returncode:
            print(f"copying_files: {repo}: the mirror lacks {commit}",
                  file=sys.stderr)
            continue
        listed = subprocess.run(
            ["git", "--git-dir", git, "grep", "-l", "Tensor", commit, "--",
             *SOURCES], capture_output=True, text=True).stdout
        for line in listed.splitlines():
            path = line.split(":", 1)[1]
            text = subprocess.run(["git", "--git-dir", git, "show",
                                   f"{commit}:{path}"], capture_output=True,
                                  text=True, errors="replace").stdout
            if COPYING.search(text):
                print(f"{repo}/{path}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
