#!/usr/bin/env python3
"""The incremental benchmark (issue 49): torch-tidy-project on whole
projects, a full cold run against incremental runs after a one-line change
in a kernel file, in a header and in a schema file, each checked against a
--no-cache run on the same tree. Prints per project and change the files
re-linted, the wall times, their ratio to the cold run and whether the
findings are identical.

usage: incremental_bench.py [--torch-tidy-project PATH] [--python PY]
                            [-j N] [--out DIR] PROJECT_DIR[=DATABASE]...

Each PROJECT_DIR is copied to --out first (the changes are made in the
copy). DATABASE is the compile database to lint with (default: the
project's own, or what torch-tidy-project makes from its build; it is made
once, before any timed run, and reused, so the times are linting's). The
changes, chosen from the project index and the database:

  kernel: a line added at the top of a linted file that registers kernels
          (not the schema file): it and the files whose findings read its
          operators, whose registrations moved, are linted again;
  header: a line added at the end of the project header most linted files
          include (directly);
  schema: one schema of the file declaring the most, respaced ('(' to
          '( '): the same operator, other index facts.

Exit 1 if any findings differ. Not in CI: it lints each project four times.
"""
import argparse
import json
import os
import re
import shutil
import subprocess
import sys
import time

HERE = os.path.dirname(os.path.abspath(__file__))
INCLUDE = re.compile(r'^\s*#\s*include\s*[<"]([^>"]+)[>"]', re.M)


def run(args, project, database, extra, out):
    cmd = [sys.executable, args.torch_tidy_project, "-p", project, "-j",
           str(args.jobs), "--fail-on", "never", "--json", out,
           "--database", database] + extra
    if args.python:
        cmd += ["--python", args.python, "--allow-torch-mismatch"]
    start = time.time()
    res = subprocess.run(cmd, capture_output=True, text=True)
    seconds = time.time() - start
    try:
        with open(out) as f:
            summary = json.load(f)
    except (OSError, ValueError):
        sys.exit(f"incremental_bench: {project}: torch-tidy-project failed "
                 f"(exit {res.returncode}): {res.stderr.strip()[-400:]}"
                 f"{res.stdout.strip()[-400:]}")
    return seconds, summary


def answer(s):
    return (s["findings"], s["warnings"], s["did_not_parse"],
            s["coverage"]["share"])


def make_database(args, project, out):
    """The database of the project, made (or found) once."""
    cmd = [sys.executable, args.torch_tidy_project, "-p", project, "-j",
           str(args.jobs), "--fail-on", "never", "--no-cache", "--json",
           out, "-j", "1", "(?!)"]
    if args.python:
        cmd += ["--python", args.python, "--allow-torch-mismatch"]
    subprocess.run(cmd, capture_output=True, text=True)
    made = os.path.join(project, ".torch-tidy", "compile_commands.json")
    if not os.path.exists(made):
        sys.exit(f"incremental_bench: {project}: no database made")
    keep = os.path.join(project, ".torch-tidy", "bench_database.json")
    shutil.copy(made, keep)
    return keep


def choose(project, summary, index_entries):
    """(kernel file, header, schema file) relative to the project."""
    linted = sorted(summary["file_seconds"])
    root = summary["root"]
    schema_counts = {}
    for s in index_entries["operators"]:
        if not s["file"].endswith(".py"):
            r = os.path.relpath(s["file"], root)
            schema_counts[r] = schema_counts.get(r, 0) + 1
    schema_file = max(sorted(schema_counts), key=lambda f: schema_counts[f]) \
        if schema_counts else None
    registering = {os.path.relpath(k["file"], root)
                   for k in index_entries["kernels"]
                   if not k["fake"] and not k["file"].endswith(".py")}
    kernels = [f for f in linted if f in registering and f != schema_file]
    kernel = kernels[len(kernels) // 2] if kernels else None
    counts = {}
    for f in linted:
        with open(os.path.join(root, f), errors="replace") as fh:
            text = fh.read()
        for inc in set(INCLUDE.findall(text)):
            for base in (os.path.dirname(os.path.join(root, f)), root):
                p = os.path.normpath(os.path.join(base, inc))
                if p.startswith(root + os.sep) and os.path.isfile(p):
                    r = os.path.relpath(p, root)
                    counts[r] = counts.get(r, 0) + 1
                    break
    header = max(sorted(counts), key=lambda h: counts[h]) if counts else None
    return kernel, header, schema_file


def change(root, what, path):
    p = os.path.join(root, path)
    with open(p, errors="surrogateescape") as f:
        text = f.read()
    if what == "kernel":
        text = "// torch-tidy incremental benchmark: a line added\n" + text
    elif what == "header":
        text = text + ("" if text.endswith("\n") else "\n") + \
            "// torch-tidy incremental benchmark: a line added\n"
    else:
        m = re.search(r'm\.def\(\s*(?:TORCH_SELECTIVE_SCHEMA\(\s*)?"[^"(]*\(',
                      text)
        if not m:
            return False
        text = text[:m.end()] + " " + text[m.end():]
    with open(p, "w", errors="surrogateescape") as f:
        f.write(text)
    return True


def bench(args, spec, out):
    src, _, database = spec.partition("=")
    name = os.path.basename(os.path.normpath(src))
    project = os.path.join(out, name)
    shutil.rmtree(project, ignore_errors=True)
    shutil.copytree(src, project, symlinks=True,
                    ignore=shutil.ignore_patterns(".torch-tidy", ".git"))
    database = os.path.abspath(database) if database else \
        make_database(args, project, os.path.join(out, f"{name}-db.json"))
    shutil.rmtree(os.path.join(project, ".torch-tidy", "cache"),
                  ignore_errors=True)
    cold_s, cold = run(args, project, database, [],
                       os.path.join(out, f"{name}-cold.json"))
    index_entries = json.loads(subprocess.run(
        [cold["torch_tidy"]["path"], f"--project-index={cold['root']}"],
        capture_output=True, text=True).stdout)
    rows = [{"project": name, "change": "none (cold)", "file": "",
             "linted": cold["cache"]["linted"],
             "files": cold["files_linted"], "seconds": cold_s,
             "ratio": 1.0, "identical": True}]
    picks = choose(project, cold, index_entries)
    for what, path in zip(("kernel", "header", "schema"), picks):
        if not path or not change(project, what, path):
            rows.append({"project": name, "change": what, "file": "-",
                         "linted": None, "files": cold["files_linted"],
                         "seconds": None, "ratio": None,
                         "identical": None})
            continue
        inc_s, inc = run(args, project, database, [],
                         os.path.join(out, f"{name}-{what}.json"))
        _, full = run(args, project, database, ["--no-cache"],
                      os.path.join(out, f"{name}-{what}-full.json"))
        rows.append({"project": name, "change": what, "file": path,
                     "linted": inc["cache"]["linted"],
                     "files": inc["files_linted"], "seconds": inc_s,
                     "ratio": inc_s / cold_s,
                     "identical": answer(inc) == answer(full)})
    return rows


def main():
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("projects", nargs="+")
    p.add_argument("--torch-tidy-project", default=os.path.join(
        HERE, "..", "torch-tidy", "torch-tidy-project"))
    p.add_argument("--python", default="")
    p.add_argument("-j", dest="jobs", type=int, default=os.cpu_count() or 1)
    p.add_argument("--out", default="incremental-bench")
    args = p.parse_args()
    out = os.path.abspath(args.out)
    os.makedirs(out, exist_ok=True)
    rows = []
    for spec in args.projects:
        rows += bench(args, spec, out)
        print_rows(rows)
    differ = [r for r in rows if r["identical"] is False]
    return 1 if differ else 0


def print_rows(rows):
    print("| project | change | file | files | re-linted | s | ratio to "
          "cold | identical |")
    print("|---|---|---|---|---|---|---|---|")
    for r in rows:
        s = "-" if r["seconds"] is None else f"{r['seconds']:.1f}"
        ratio = "-" if r["ratio"] is None else f"{r['ratio']:.3f}"
        ident = {True: "yes", False: "**no**", None: "-"}[r["identical"]]
        print(f"| {r['project']} | {r['change']} | {r['file'] or ''} | "
              f"{r['files']} | {r['linted'] if r['linted'] is not None else '-'}"
              f" | {s} | {ratio} | {ident} |", flush=True)


if __name__ == "__main__":
    sys.exit(main())
