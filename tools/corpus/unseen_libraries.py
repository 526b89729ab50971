#!/usr/bin/env python3
"""Reruns issue 80's table of unseen libraries (docs/reliability.md): each
repository of unseen_libraries.txt checked out at its commit from a git
mirror (`fetch` puts them under /work/.mirror/OWNER+NAME/repo), committed as
one snapshot (setup.py files that run `git rev-parse` need a commit), and
linted with the one command, `torch-tidy-project --python PY -j 2 --json`,
plus the row's own arguments.

  unseen_libraries.py --python VENV/bin/python --out DIR [--site SITE]
                      [--mirrors /work/.mirror] [--only NAME]

Prints, per library, the exit status, the seconds, and the summary's counts
(files linted, did not parse, warnings, operators, coverage)."""
import argparse
import json
import os
import shlex
import subprocess
import sys
import time

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(HERE))


def rows():
    for line in open(os.path.join(HERE, "unseen_libraries.txt")):
        if line.startswith("#") or not line.strip():
            continue
        repo, commit, *rest = line.rstrip("\n").split("\t")
        yield repo, commit, shlex.split(rest[0]) if rest else []


def checkout(git_dir, commit, dest):
    """The commit's files (those the mirror holds) in dest, committed."""
    subprocess.run(["rm", "-rf", dest], check=True)
    os.makedirs(dest)
    names = subprocess.run(["git", f"--git-dir={git_dir}", "ls-tree", "-r",
                            "-z", "--name-only", commit], check=True,
                           capture_output=True).stdout.split(b"\0")
    missing = 0
    for name in filter(None, names):
        path = os.path.join(dest, os.fsdecode(name))
        os.makedirs(os.path.dirname(path), exist_ok=True)
        blob = subprocess.run(["git", f"--git-dir={git_dir}", "show",
                               f"{commit}:{os.fsdecode(name)}"],
                              capture_output=True)
        if blob.returncode != 0:
            missing += 1
            continue
        with open(path, "wb") as f:
            f.write(blob.stdout)
    for cmd in (["git", "init", "-q"], ["git", "add", "-A"],
                ["git", "-c", "user.email=t@example.com", "-c", "user.name=t",
                 "commit", "-qm", f"snapshot of {commit}"]):
        subprocess.run(cmd, cwd=dest, check=True, capture_output=True)
    return missing


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--python", required=True)
    ap.add_argument("--out", required=True)
    ap.add_argument("--site", default="")
    ap.add_argument("--mirrors", default="/work/.mirror")
    ap.add_argument("--only", default="")
    ap.add_argument("--tool", default=os.path.join(ROOT, "build", "bin",
                                                   "torch-tidy-project"))
    args = ap.parse_args()
    for repo, commit, extra in rows():
        if args.only and args.only not in repo:
            continue
        git_dir = os.path.join(args.mirrors, repo.replace("/", "+"), "repo")
        if not os.path.isdir(git_dir):
            print(f"{repo}: no mirror at {git_dir} (fetch it first)")
            continue
        dest = os.path.join(args.out, repo.replace("/", "+"))
        missing = checkout(git_dir, commit, dest)
        extra = [a.replace("SITE", args.site) for a in extra]
        summary = os.path.join(args.out, repo.replace("/", "+") + ".json")
        started = time.time()
        res = subprocess.run([args.tool, "--python", args.python, "-j", "2",
                              "--json", summary] + extra, cwd=dest,
                             capture_output=True, text=True)
        took = time.time() - started
        with open(summary[:-5] + ".log", "w") as f:
            f.write(res.stdout + res.stderr)
        try:
            s = json.load(open(summary))
        except (OSError, ValueError):
            s = {}
        idx = s.get("index") or {}
        print(f"{repo} @ {commit[:10]}: exit {res.returncode}, {took:.0f} s, "
              f"{missing} files the mirror lacks; files linted "
              f"{s.get('files_linted')}, did not parse "
              f"{sum(len(v) for v in (s.get('did_not_parse') or {}).values())}"
              f", warnings {s.get('warnings')}, operators "
              f"{idx.get('operators')}, coverage "
              f"{(s.get('coverage') or {}).get('share')}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
