#!/usr/bin/env python3
"""The pruning benchmark (issue 38): torch-tidy-project on whole projects,
every file (--all-files) against only the files where an enabled check can
warn (the default), in the same run. Prints per project the files linted,
the wall times, their ratio and whether the warnings are identical.

usage: prune_bench.py [--torch-tidy-project PATH] [--python PY] [-j N]
                      [--out DIR] PROJECT_DIR...

Each PROJECT_DIR is a project torch-tidy-project can lint as it is (a
compile_commands.json there or in build/, a setup.py, or a CMakeLists.txt
that configures with PY's torch). The full run goes first, then the pruned
one, so the pruned one gets no warmer cache than the project index's (which
both read). Exit 1 if any project's warnings differ. Not in CI: it takes as
long as linting the projects twice.
"""
import argparse
import json
import os
import subprocess
import sys
import time

HERE = os.path.dirname(os.path.abspath(__file__))


def run(script, python, jobs, project, extra, out):
    cmd = [sys.executable, script, "-p", project, "-j", str(jobs),
           "--fail-on", "never", "--json", out] + extra
    if python:
        cmd += ["--python", python]
    start = time.time()
    res = subprocess.run(cmd, capture_output=True, text=True)
    seconds = time.time() - start
    try:
        summary = json.load(open(out))
    except (OSError, ValueError):
        sys.exit(f"prune_bench: {project}: torch-tidy-project failed "
                 f"(exit {res.returncode}): {res.stderr.strip()[-300:]}")
    return seconds, summary


def where(finding):
    """A finding's place and check: what two runs' findings are compared by
    when they differ."""
    return f"{finding['file']}:{finding['line']}:{finding['column']}: " \
        f"[{finding['check']}]"


def main():
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("projects", nargs="+")
    p.add_argument("--torch-tidy-project", default=os.path.join(
        HERE, "..", "torch-tidy", "torch-tidy-project"))
    p.add_argument("--python", default="")
    p.add_argument("-j", dest="jobs", type=int, default=os.cpu_count() or 1)
    p.add_argument("--out", default="prune-bench")
    args = p.parse_args()
    os.makedirs(args.out, exist_ok=True)
    rows, differ = [], 0
    for project in args.projects:
        name = os.path.basename(os.path.abspath(project).rstrip("/"))
        t_all, s_all = run(args.torch_tidy_project, args.python, args.jobs,
                           project, ["--all-files"],
                           os.path.abspath(os.path.join(args.out,
                                                        f"{name}-all.json")))
        t_pruned, s_pruned = run(args.torch_tidy_project, args.python,
                                 args.jobs, project, [],
                                 os.path.abspath(os.path.join(
                                     args.out, f"{name}-pruned.json")))
        same = s_all.get("findings") == s_pruned.get("findings")
        differ += not same
        rows.append((name, s_all["files_linted"], s_pruned["files_linted"],
                     t_all, t_pruned, len(s_all.get("findings", [])), same))
        if not same:
            a, b = set(map(where, s_all["findings"])), \
                set(map(where, s_pruned["findings"]))
            print(f"{name}: only with --all-files: {sorted(a - b)[:10]}; "
                  f"only pruned: {sorted(b - a)[:10]}")
    print(f"{'project':24} {'files all':>9} {'pruned':>6} {'all s':>7} "
          f"{'pruned s':>8} {'ratio':>6} {'warnings':>8} identical")
    for name, fa, fp, ta, tp, w, same in rows:
        print(f"{name:24} {fa:9} {fp:6} {ta:7.0f} {tp:8.0f} "
              f"{tp / ta if ta else 0:6.2f} {w:8} {'yes' if same else 'NO'}")
    ta = sum(r[3] for r in rows)
    tp = sum(r[4] for r in rows)
    print(f"{'all projects':24} {sum(r[1] for r in rows):9} "
          f"{sum(r[2] for r in rows):6} {ta:7.0f} {tp:8.0f} "
          f"{tp / ta if ta else 0:6.2f}")
    return 1 if differ else 0


if __name__ == "__main__":
    sys.exit(main())
