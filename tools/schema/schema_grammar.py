#!/usr/bin/env python3
"""Compares torch-tidy's schema parser with torch's.

  schema_grammar.py --python LABEL=PYTHON --dump torch-tidy-schema-dump
                    [--schemas FILE ...] [--schemas-from DIR ...]

Every schema torch registers (torch._C._jit_get_all_schemas(), printed by
torch) and every line of the --schemas files that torch._C.parse_schema
accepts is read by both parsers; for each, the operator's name and overload,
and per argument and return the name, whether it is a tensor, the alias sets
before and after `->`, whether it is written, keyword-only and defaulted must
agree (sets torch makes up for a bare `Tensor!`, `$0`, ... compare as one).
Lines torch rejects must be rejected by torch-tidy too, or are reported.

Exit 0 with 0 disagreements, 1 otherwise, 77 (one line) without the venv.
"""
import argparse
import json
import os
import re
import subprocess
import sys
import tempfile

TORCH_SIDE = r'''
import json, re, sys, torch

def args(lst):
    out = []
    for a in lst:
        sets, after, write = [], [], False
        infos = [a.alias_info] if a.alias_info is not None else []
        while infos:
            info = infos.pop()
            sets += sorted(info.before_set)
            after += sorted(info.after_set)
            write |= info.is_write
            infos += list(getattr(info, "contained_types", []) or [])
        t = a.type
        tensor = isinstance(t, torch.TensorType) or (
            isinstance(t, torch.OptionalType)
            and isinstance(t.getElementType(), torch.TensorType))
        out.append(dict(name=a.name, tensor=tensor, write=write, sets=sets,
                        after=after, kwarg=a.kwarg_only,
                        default=a.has_default_value()))
    return out

def dump(s, text):
    return dict(schema=text, ok=True, name=s.name, overload=s.overload_name,
                args=args(s.arguments), rets=args(s.returns))

for s in torch._C._jit_get_all_schemas():
    print(json.dumps(dump(s, str(s))))
for path in sys.argv[1:]:
    for line in open(path):
        line = line.rstrip("\n")
        if not line.strip() or line.startswith("#"):
            continue
        try:
            s = torch._C.parse_schema(line)
        except Exception as e:
            # A custom class type (__torch__.torch.classes.ns.Name) parses
            # only once the project has registered the class: read the
            # grammar with the class types as Any.
            try:
                if "__torch__." not in line:
                    raise
                s = torch._C.parse_schema(
                    re.sub(r"__torch__(\.\w+)+", "Any", line))
            except Exception:
                print(json.dumps(dict(schema=line, ok=False,
                                      error=(str(e).splitlines() or [""])[0])))
                continue
        print(json.dumps(dump(s, line)))
'''


SOURCE_EXTENSIONS = (".cpp", ".cc", ".cxx", ".cu", ".h", ".hpp", ".cuh")
SCHEMA_CALL = re.compile(r'(?:\.def|\.op|\.schema|TORCH_SELECTIVE_SCHEMA)\s*\('
                         r'\s*((?:"(?:[^"\\\n]|\\.)*"\s*)+)')


def schemas_under(folder):
    """The schema literals (adjacent literals joined) of m.def, .op, .schema
    and TORCH_SELECTIVE_SCHEMA calls in the C++/CUDA files under folder: a
    corpus's schemas, read where its sources are (nothing is copied here)."""
    seen = []
    for root, dirs, files in os.walk(folder):
        dirs.sort()
        for name in sorted(files):
            if not name.endswith(SOURCE_EXTENSIONS):
                continue
            try:
                text = open(os.path.join(root, name), errors="replace").read()
            except OSError:
                continue
            for m in SCHEMA_CALL.finditer(text):
                parts = re.findall(r'"((?:[^"\\\n]|\\.)*)"', m.group(1))
                schema = "".join(parts).encode().decode("unicode_escape",
                                                        "replace")
                if ("(" in schema and "->" in schema and "\n" not in schema
                        and schema not in seen):
                    seen.append(schema)
    return seen


def normalise(entry):
    """Sets torch invents for `Tensor!` ($0, $1, ...) compare as '$'."""
    def sets(xs):
        return sorted("$" if x.startswith("$") else x for x in xs)
    if not entry["ok"]:
        return {"ok": False}
    out = {k: entry[k] for k in ("name", "overload")}
    for key in ("args", "rets"):
        out[key] = [dict(a, sets=sets(a["sets"]), after=sets(a["after"]))
                    for a in entry[key]]
    out["ok"] = True
    return out


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--python", required=True, help="LABEL=PYTHON")
    ap.add_argument("--dump", required=True)
    ap.add_argument("--schemas", nargs="*", default=[],
                    help="files of schemas, one per line")
    ap.add_argument("--schemas-from", nargs="*", default=[], metavar="DIR",
                    help="also the schema literals of the sources under DIR "
                    "(a corpus's unpacked repositories)")
    args = ap.parse_args()
    label, _, python = args.python.partition("=")
    name = f"schema-grammar-torch-{label}"
    if not python or not os.path.exists(python):
        print(f"{name}: SKIPPED (no torch {label} venv; `make test` makes it)")
        return 77
    schema_files = list(args.schemas)
    if args.schemas_from:
        found = [x for d in args.schemas_from for x in schemas_under(d)]
        with tempfile.NamedTemporaryFile("w", suffix=".txt",
                                         delete=False) as f:
            f.write("\n".join(found) + "\n")
        schema_files.append(f.name)
        print(f"{name}: {len(found)} schema literals under "
              f"{' '.join(args.schemas_from)}")
    torch_run = subprocess.run([python, "-c", TORCH_SIDE] + schema_files,
                               capture_output=True, text=True)
    if torch_run.returncode != 0:
        print(torch_run.stderr[-2000:])
        print(f"{name}: torch failed to list its schemas")
        return 1
    theirs = [json.loads(l) for l in torch_run.stdout.splitlines()]
    texts = "\n".join(t["schema"] for t in theirs) + "\n"
    ours_run = subprocess.run([args.dump], input=texts, capture_output=True,
                              text=True)
    if ours_run.returncode != 0:
        print(ours_run.stderr)
        return 1
    ours = [json.loads(l) for l in ours_run.stdout.splitlines()]
    if len(ours) != len(theirs):
        print(f"{name}: {len(theirs)} schemas in, {len(ours)} out")
        return 1
    bad = []
    for t, o in zip(theirs, ours):
        if normalise(t) != normalise(o):
            bad.append((t, o))
    accepted = sum(t["ok"] for t in theirs)
    for t, o in bad[:15]:
        print(f"DISAGREE {t['schema']}")
        if not o["ok"]:
            print(f"  torch-tidy: {o['error']} (offset {o['offset']})")
        elif not t["ok"]:
            print(f"  torch rejects it: {t['error']}; torch-tidy accepts it")
        else:
            nt, no = normalise(t), normalise(o)
            for k in nt:
                if nt[k] != no[k]:
                    print(f"  {k}: torch {nt[k]}\n  {' ' * len(k)}  torch-tidy {no[k]}")
    print(f"{name}: {len(theirs)} schemas ({accepted} accepted by torch, "
          f"{len(theirs) - accepted} rejected), {len(bad)} disagreements")
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
