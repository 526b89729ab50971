#!/usr/bin/env python3
"""The project index against torch's registry on real libraries (issue 58,
item 2): for each library, its sources' index (torch-tidy --project-index)
and the registry of its installed build (imported in a torch venv), compared
by operator, by operator and dispatch key (C++ kernels), and by Python fake.

  registry_table.py LIBS.json --torch-tidy BIN [--python PY] [--json OUT]
                    [--src-dir DIR] [--site-dir DIR]

LIBS.json: a list of {"name", "version", "module", "src", "site", "how",
"build_files" (optional)}:
src the library's source tree at the installed version, site a folder on
PYTHONPATH where it is installed (pip --target), how "built here CPU-only"
or "prebuilt wheel"; SRC/ and SITE/ at their start stand for --src-dir and
--site-dir; build_files, globs below src, are the files the build compiles
that the index's walk skips (vendored code), read as torch-tidy-project
reads its database's. tools/corpus/registry_libs.json lists the libraries of
docs/reliability.md's table and how each was obtained and built.
Prints a Markdown table (docs/reliability.md keeps it) and, per library, every miss: an operator or kernel of the registry the
index did not read, and what the index read that the registry does not hold
(not built, or a wrong reading)."""
import argparse
import glob
import json
import os
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, "..", "torch-tidy"))
from torch_tidy_project import index as project_index  # noqa: E402
from torch_tidy_project import registry  # noqa: E402


def share(n, d):
    return f"{100 * n / d:.0f}% ({n}/{d})" if d else "n/a"


def compare(lib, tidy, python):
    src = os.path.realpath(lib["src"])
    # The files the library's build compiles that the walk of its sources
    # does not read (vendored code under third_party/): "build_files",
    # globs below src taken from its build script, as torch-tidy-project
    # takes them from the database.
    env = None
    listed = sorted({p for g in lib.get("build_files", [])
                     for p in glob.glob(os.path.join(src, g))})
    if listed:
        folder = tempfile.mkdtemp(prefix="registry-table-")
        env = dict(os.environ, TORCH_TIDY_PROJECT_FILES=project_index.
                   write_build_files(listed, folder))
    idx = project_index.load(tidy, src, env)
    if idx is None:
        return {"name": lib["name"], "error": "the index could not be read"}
    namespaces = {op.split("::")[0] for op in
                  project_index.operator_names(idx)}
    env = dict(os.environ, PYTHONPATH=os.path.realpath(lib["site"]))
    reg, why = registry.read(python, [lib["module"]], namespaces, env)
    if reg is None:
        return {"name": lib["name"], "error": why}
    sources, foreign = registry.own_operators(reg, idx, src)
    # Operators, overloads apart: the registry's against the index's
    # (schemas, inferred schemas, and operators the index saw kernels or
    # fakes for).
    index_ops = set(project_index.operator_overloads(idx))
    reg_ops = set(reg.operators)
    # Kernels: C++ registrations per operator and key, fakes (Meta,
    # CompositeExplicitAutograd) included, each paired as coverage pairs.
    by_op = registry.index_kernels(idx)
    pairs, only_reg, only_idx = registry.match(reg, by_op, sources, src)
    reg_bases = {registry.base_name(op) for op in reg_ops}
    index_kernels = sum(len(v) for op, v in by_op.items() if op in reg_bases)
    # Python fakes: the registry's fake source against the index's fakes.
    idx_fakes = registry.python_fakes(idx)
    # (by operator: the index keeps a fake of ns::op.out under ns::op)
    reg_fakes = {registry.base_name(op) for op, o in reg.operators.items()
                 if o.get("fake")}
    return {
        "name": lib["name"], "version": lib.get("version"),
        "how": lib.get("how"), "torch": reg.data.get("torch"),
        "foreign_operators": foreign,
        "operators": {"registry": len(reg_ops), "index": len(index_ops),
                      "both": len(reg_ops & index_ops),
                      "missed": sorted(reg_ops - index_ops),
                      "index_only": sorted(index_ops - reg_ops)},
        "kernels": {"registry": len(pairs) + len(only_reg),
                    "index": index_kernels, "both": len(pairs),
                    "missed": [f"{op} {k['key']} at "
                               f"{registry.where(k, src, f)}"
                               for op, k, f in only_reg],
                    "index_only": [f"{op} {ik['key']} at "
                                   f"{os.path.relpath(ik['file'], src)}:"
                                   f"{ik['line']}" for op, ik in only_idx]},
        "fakes": {"registry": len(reg_fakes), "both": len(reg_fakes &
                                                           idx_fakes),
                  "missed": sorted(reg_fakes - idx_fakes)},
    }


def table(rows):
    out = ["| library | build | operators: recall | precision | "
           "operator-and-key (C++): recall | precision | Python fakes: "
           "recall |", "|---|---|---|---|---|---|---|"]
    for r in rows:
        if "error" in r:
            out.append(f"| {r['name']} | | not measured: {r['error']} "
                       f"| | | | |")
            continue
        o, k, f = r["operators"], r["kernels"], r["fakes"]
        out.append(
            f"| {r['name']} {r['version']} | {r['how']} | "
            f"{share(o['both'], o['registry'])} | "
            f"{share(o['both'], o['index'])} | "
            f"{share(k['both'], k['registry'])} | "
            f"{share(k['both'], k['index'])} | "
            f"{share(f['both'], f['registry'])} |")
    return "\n".join(out)


def main():
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("libs")
    p.add_argument("--torch-tidy", required=True)
    p.add_argument("--python", default=os.path.expanduser(
        "~/.cache/torch-tidy/venv-torch-2.8.0/bin/python"))
    p.add_argument("--json")
    p.add_argument("--src-dir", default="/tmp/reglibs/src")
    p.add_argument("--site-dir", default="/tmp/reglibs/site")
    args = p.parse_args()
    with open(args.libs) as f:
        libs = json.load(f)
    for lib in libs:
        for field, base in (("src", args.src_dir), ("site", args.site_dir)):
            for mark in ("SRC/", "SITE/"):
                if lib[field].startswith(mark):
                    lib[field] = os.path.join(base, lib[field][len(mark):])
    rows = [compare(lib, args.torch_tidy, args.python) for lib in libs]
    print(table(rows))
    for r in rows:
        if "error" in r:
            continue
        print(f"\n{r['name']}: {r['foreign_operators']} operators of "
              f"imported packages left out")
        for what, items in (
                ("operators the index missed", r["operators"]["missed"]),
                ("operators the index read, not in the registry",
                 r["operators"]["index_only"]),
                ("kernels the index missed", r["kernels"]["missed"]),
                ("kernels the index read, not in the registry",
                 r["kernels"]["index_only"]),
                ("Python fakes the index missed", r["fakes"]["missed"])):
            if items:
                print(f"  {len(items)} {what}:")
                for x in items[:40]:
                    print(f"    {x}")
                if len(items) > 40:
                    print(f"    ... {len(items) - 40} more")
    if args.json:
        with open(args.json, "w") as f:
            json.dump(rows, f, indent=1, sort_keys=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
