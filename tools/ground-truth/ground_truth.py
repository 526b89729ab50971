#!/usr/bin/env python3
"""Ground truth: when does torch.compile lose requires_grad after an in-place write?

Runs the reproducers (measure.py) under each PyTorch venv and either writes the
committed table or checks a fresh run against it. Standard library only: it runs
under any python3 and starts each venv's python for the measurement.

  ground_truth.py --write --python 2.8.0=PY --python latest=PY
      re-measure, rewrite docs/ground-truth.json and the generated part of
      docs/ground-truth.md (the hand-written reading is kept), print the table
  ground_truth.py --check --python LABEL=PY
      re-measure one version; exit 1 listing every cell that differs from the
      committed table; exit 77 (ctest: skipped) if the venv is missing
  ground_truth.py --print | --render
      print the committed table | rewrite docs/ground-truth.md's table from it
"""

import argparse
import json
import os
import re
import subprocess
import sys
import tempfile
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import sampling  # noqa: E402

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(HERE))
JSON_PATH = os.path.join(ROOT, "docs", "ground-truth.json")
MD_PATH = os.path.join(ROOT, "docs", "ground-truth.md")

LABELS = ["2.8.0", "latest"]  # the reported version, and the newest on PyPI
OBSERVED = ["rg_inside", "rg_output", "wrong_branch", "grads_equal", "error"]
# Mutable-argument paths only (measure.py): the gradient through a loss that
# uses the written buffer, and opcheck's verdict; null in the other rows.
MUTABLE_OBSERVED = ["grad", "opcheck"]
COLUMNS = OBSERVED + MUTABLE_OBSERVED
BACKENDS = ["none", "eager", "aot_eager", "inductor"]
COMPILED = BACKENDS[1:]
SKIP_CODE = 77

# What a measurement depends on (sampling.py): a change re-measures the whole table.
INPUTS = ["forms.py", "measure.py", "cpp_ops.py", "tt_gt_ops.cpp", "consumers.py"]
SUITE = "ground-truth"

BEGIN = "<!-- BEGIN GENERATED: tools/ground-truth/run.sh rewrites this part -->"
END = "<!-- END GENERATED -->"


def measure(python, cases=None):
    """Runs measure.py under `python` (for these [path, form] only, if
    given); returns its {"torch", "rows"} result."""
    with tempfile.TemporaryDirectory() as tmp:
        out = os.path.join(tmp, "rows.json")
        cmd = [python, os.path.join(HERE, "measure.py"), "--out", out]
        if cases is not None:
            with open(os.path.join(tmp, "cases.json"), "w") as f:
                json.dump(cases, f)
            cmd += ["--cases", os.path.join(tmp, "cases.json")]
        proc = subprocess.run(cmd, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)
        if proc.returncode != 0:
            sys.stderr.write(proc.stderr[-4000:])
            raise SystemExit(f"ground-truth: measure.py failed under {python} (exit {proc.returncode})")
        with open(out) as f:
            return json.load(f)


def key(row):
    return (row["path"], row["form"], row["backend"])


# --- rendering ---------------------------------------------------------------

def fmt(value):
    if value is None:
        return "-"
    return {True: "T", False: "F"}.get(value, str(value).replace("|", "\\|"))


def full_table(rows):
    """One line per measurement: version x path x form x backend x observation."""
    head = ["torch", "path", "form", "backend", *COLUMNS]
    lines = ["| " + " | ".join(head) + " |", "|" + "---|" * len(head)]
    for r in rows:
        lines.append("| " + " | ".join(fmt(r.get(c)) if c in COLUMNS else r[c] for c in head)
                     + " |")
    return "\n".join(lines)


def backends(names):
    return "(all compiled)" if names == COMPILED else "(" + ", ".join(names) + ")"


def verdict(cases):
    """One summary cell for one (version, path, form): what compiling changed."""
    by_backend = {r["backend"]: r for r in cases}
    base = by_backend.get("none", {})
    if (base.get("error") or "").endswith("@register_autograd"):
        return "torch.library.register_autograd refuses the operator"
    if base.get("error"):
        return f"eager error: {base['error']}"
    parts = []
    if base.get("rg_inside") is False:
        parts.append("false even uncompiled")
    lost = [b for b in COMPILED if by_backend[b]["rg_inside"] is False and base.get("rg_inside")]
    wrong = [b for b in COMPILED if by_backend[b]["wrong_branch"]]
    differ = [b for b in COMPILED if by_backend[b]["grads_equal"] is False]
    out_lost = [b for b in COMPILED if by_backend[b]["rg_output"] is False]
    errors = [f"{b}: {by_backend[b]['error']}" for b in COMPILED if by_backend[b]["error"]]
    if lost:
        parts.append("**lost** " + backends(lost))
    if wrong:
        parts.append("wrong branch " + backends(wrong))
    if differ:
        parts.append("grads differ " + backends(differ))
    if out_lost:
        parts.append("output lost grad " + backends(out_lost))
    if errors:
        parts.append("error (" + "; ".join(errors) + ")")
    if not (lost or wrong or differ or out_lost or errors):
        parts.append("kept, grads equal")
    what = "of src" if cases[0]["path"].startswith("python_") else "through the buffer"
    parts += mutable_verdict(base, by_backend, what)
    return "; ".join(parts)


def mutable_verdict(base, by_backend, what="through the buffer"):
    """The grad and opcheck columns of a mutable-argument path or a consumer
    path (consumers.py), summarised."""
    if base.get("grad") is None and base.get("opcheck") is None:
        return []
    parts = []
    grads = {b: by_backend[b].get("grad") for b in COMPILED}
    if base.get("grad") == "none":
        parts.append(f"no gradient {what} even uncompiled")
    by_cell = {}
    for b in COMPILED:
        by_cell.setdefault(grads[b], []).append(b)
    for cell, names in by_cell.items():
        if cell == "none" and base.get("grad") != "none":
            parts.append(f"**no gradient** {what} " + backends(names))
        elif cell == "differs":
            parts.append(f"gradient {what} differs " + backends(names))
        elif cell and cell.startswith("error"):
            parts.append(f"gradient {what} {cell} " + backends(names))
    if set(by_cell) == {"same"}:
        parts.append(f"gradient {what} kept")
    verdict_ = base.get("opcheck")
    if verdict_ == "pass":
        parts.append("opcheck passes")
    elif verdict_:
        failing = re.findall(r"(?:^| \+ )(test_\w+)", verdict_)
        parts.append("opcheck fails " + ", ".join(failing or [verdict_]))
    return parts


def summary_table(table):
    versions = [table["versions"][lab] for lab in LABELS if lab in table["versions"]]
    groups = {}
    for r in table["rows"]:
        groups.setdefault((r["path"], r["form"]), {}).setdefault(r["torch"], []).append(r)
    head = ["path", "form"] + [f"torch {v}" for v in versions]
    lines = ["| " + " | ".join(head) + " |", "|" + "---|" * len(head)]
    for (path, form), per_version in groups.items():
        cells = [verdict(per_version[v]) if v in per_version else "not measured" for v in versions]
        lines.append(f"| {path} | `{form}` | " + " | ".join(cells) + " |")
    return "\n".join(lines)


INFERRED_SIGNATURES = {
    "ref_arg": "void ref_arg(at::Tensor &, const at::Tensor &)",
    "const_ref_arg": "void const_ref_arg(const at::Tensor &, const at::Tensor &)",
    "returns_ref": "at::Tensor &returns_ref(at::Tensor &, const at::Tensor &)",
}


def inferred_table(table):
    schemas = table.get("inferred_schemas", {})
    versions = list(schemas)
    lines = ["| C++ kernel | " + " | ".join(f"torch {v}" for v in versions) + " |",
             "|---|" + "---|" * len(versions)]
    for op, signature in INFERRED_SIGNATURES.items():
        cells = [f"`{schemas[v].get(op, '-')}`" for v in versions]
        lines.append(f"| `{signature}` | " + " | ".join(cells) + " |")
    return "\n".join(lines)


def generated_markdown(table):
    versions = ", ".join(f"{lab} = torch {v}" for lab, v in table["versions"].items())
    return "\n".join([
        BEGIN,
        "",
        f"Measured on CPU ({versions}); backends: none (not compiled), eager, aot_eager, inductor.",
        "A cell summarises the compiled backends against the uncompiled run of the same code.",
        "",
        summary_table(table),
        "",
        "Schemas that LibTorch infers for `m.def(name, fn)` from the kernel's C++ signature "
        "(`tt_gt_infer` in `tools/ground-truth/tt_gt_ops.cpp`):",
        "",
        inferred_table(table),
        "",
        "<details><summary>Full table (every observation)</summary>",
        "",
        full_table(table["rows"]),
        "",
        "</details>",
        "",
        END,
    ])


def write_markdown(table):
    """Replaces the generated block of docs/ground-truth.md, keeping the prose."""
    block = generated_markdown(table)
    if os.path.exists(MD_PATH):
        with open(MD_PATH) as f:
            text = f.read()
        if BEGIN in text and END in text:
            text = text[:text.index(BEGIN)] + block + text[text.index(END) + len(END):]
        else:
            text = text.rstrip("\n") + "\n\n" + block + "\n"
    else:
        text = "# Ground truth: torch.compile and requires_grad\n\n" + block + "\n"
    with open(MD_PATH, "w") as f:
        f.write(text)


# --- commands -----------------------------------------------------------------

def parse_pythons(specs):
    pythons = {}
    for spec in specs or []:
        label, _, python = spec.partition("=")
        if label not in LABELS:
            raise SystemExit(f"ground-truth: unknown version label {label!r} (use {LABELS})")
        pythons[label] = python
    return pythons


def usable(python):
    return bool(python) and os.path.isfile(python) and os.access(python, os.X_OK)


def skip_line(label):
    spec = "torch==2.8.0" if label == "2.8.0" else "the newest torch"
    return (f"SKIP ground-truth torch {label}: {spec} is not installed "
            "(no finished venv from tools/bootstrap/bootstrap.sh: PyPI failed or was turned off)")


def cmd_write(pythons):
    table = {"generated_by": "tools/ground-truth/run.sh (ground_truth.py --write)",
             "versions": {}, "rows": []}
    if os.path.exists(JSON_PATH):  # keep a version we cannot re-measure here
        with open(JSON_PATH) as f:
            old = json.load(f)
        table["versions"] = dict(old.get("versions", {}))
        table["rows"] = list(old.get("rows", []))
        table["inferred_schemas"] = dict(old.get("inferred_schemas", {}))
    for label in LABELS:
        python = pythons.get(label)
        if not usable(python):
            print(skip_line(label) + "; its committed rows are kept")
            continue
        start = time.time()
        result = measure(python)
        print(f"ground-truth: torch {result['torch']} ({label}) measured in {time.time() - start:.0f} s")
        old_version = table["versions"].get(label)
        table["rows"] = [r for r in table["rows"] if r["torch"] != old_version]
        table["versions"][label] = result["torch"]
        table["rows"].extend(result["rows"])
        table.setdefault("inferred_schemas", {})[result["torch"]] = result["inferred_schemas"]
        sampling.stamp(SUITE, label, INPUTS, python)
    # Versions in label order; within one, measure.py's order (path, form, backend).
    order = [table["versions"][lab] for lab in LABELS if lab in table["versions"]]
    table["inferred_schemas"] = {v: table["inferred_schemas"][v] for v in order
                                 if v in table.get("inferred_schemas", {})}
    table["rows"].sort(key=lambda r: order.index(r["torch"]) if r["torch"] in order else len(order))
    with open(JSON_PATH, "w") as f:
        json.dump(table, f, indent=1)
        f.write("\n")
    write_markdown(table)
    print(full_table(table["rows"]))
    print(f"ground-truth: wrote {os.path.relpath(JSON_PATH, ROOT)} and {os.path.relpath(MD_PATH, ROOT)}")
    return 0


def diff_rows(committed, fresh):
    """Every differing cell, as readable lines."""
    problems = []
    old = {key(r): r for r in committed}
    new = {key(r): r for r in fresh}
    for k in old.keys() - new.keys():
        problems.append(f"{'/'.join(k)}: in the committed table, not measured now")
    for k in new.keys() - old.keys():
        problems.append(f"{'/'.join(k)}: measured now, not in the committed table")
    for k in sorted(old.keys() & new.keys()):
        for col in COLUMNS:
            if old[k].get(col) != new[k].get(col):
                problems.append(f"{'/'.join(k)} {col}: committed {fmt(old[k].get(col))}, "
                                f"now {fmt(new[k].get(col))}")
    return problems


def cmd_check(pythons, stamp=False):
    if len(pythons) != 1:
        raise SystemExit("ground-truth: --check takes exactly one --python LABEL=PY")
    (label, python), = pythons.items()
    if not usable(python):
        print(skip_line(label))
        return SKIP_CODE
    with open(JSON_PATH) as f:
        table = json.load(f)
    committed_version = table["versions"].get(label)
    committed = [r for r in table["rows"] if r["torch"] == committed_version]
    cases = list(dict.fromkeys((r["path"], r["form"]) for r in committed))
    is_whole, why = sampling.whole(SUITE, label, INPUTS, python)
    chosen = None
    if not is_whole:
        # Every path and every form keeps at least one case; beyond those,
        # every sixteenth (the strata alone take most of CI's share: 87 of
        # 722, from 59 of 159 before the consumer paths of issue 78).
        chosen = sampling.sample(cases, [lambda c: c[0], lambda c: c[1]], every=16)
        committed = [r for r in committed if (r["path"], r["form"]) in set(chosen)]
    sampling.say(f"ground-truth {label}", is_whole, why, len(chosen or cases), len(cases))
    start = time.time()
    result = measure(python, None if chosen is None else [list(c) for c in chosen])
    elapsed = time.time() - start
    if committed_version != result["torch"]:
        # A newer "latest" is what this test exists to notice; the observations
        # decide whether it changed anything.
        print(f"ground-truth: note: {label} is now torch {result['torch']}, "
              f"the committed table has {committed_version}; comparing observations")
    problems = diff_rows(committed, result["rows"])
    committed_schemas = table.get("inferred_schemas", {}).get(committed_version, {})
    for op, schema in sorted(result["inferred_schemas"].items()):
        if committed_schemas.get(op) != schema:
            problems.append(f"inferred schema of {op}: committed {committed_schemas.get(op)}, "
                            f"now {schema}")
    if problems:
        print(f"ground-truth: torch {result['torch']} differs from docs/ground-truth.json "
              f"in {len(problems)} cell(s):")
        for p in problems:
            print("  " + p)
        print("If the new behaviour is right, run tools/ground-truth/run.sh and update the reading.")
        return 1
    if stamp and is_whole:
        sampling.stamp(SUITE, label, INPUTS, python)
        print(f"ground-truth: recorded the inputs of {label} in docs/ground-truth-inputs.json")
    print(f"ground-truth: torch {result['torch']}: all {len(result['rows'])} rows match "
          f"the committed table ({elapsed:.0f} s)")
    return 0


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    mode = ap.add_mutually_exclusive_group(required=True)
    mode.add_argument("--write", action="store_true", help="re-measure and rewrite the committed table")
    mode.add_argument("--check", action="store_true",
                      help="re-measure one version and diff (a sample when the inputs are "
                           "those the table was measured from: tools/ground-truth/sampling.py)")
    mode.add_argument("--print", action="store_true", help="print the committed table")
    mode.add_argument("--render", action="store_true",
                      help="rewrite the generated part of docs/ground-truth.md from the JSON")
    ap.add_argument("--python", action="append", metavar="LABEL=PY",
                    help=f"interpreter of a venv, LABEL one of {LABELS}; empty PY means missing")
    ap.add_argument("--stamp", action="store_true",
                    help="with --check: once every cell was re-measured and matches, record "
                         "the inputs, so later checks may sample (sampling.py)")
    args = ap.parse_args()
    pythons = parse_pythons(args.python)
    if args.write:
        return cmd_write(pythons)
    if args.check:
        return cmd_check(pythons, args.stamp)
    with open(JSON_PATH) as f:
        table = json.load(f)
    if args.render:
        write_markdown(table)
    else:
        print(full_table(table["rows"]))
    return 0


if __name__ == "__main__":
    sys.exit(main())
