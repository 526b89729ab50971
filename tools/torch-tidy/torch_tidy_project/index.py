"""The project index (torch-tidy --project-index: the schemas, kernels and
fakes of every C++, CUDA and Python file under the project root), summed up,
and read per operator: which files register its kernels and which define
them."""
import json
import os
import re
import subprocess
from collections import Counter

from .common import read_text

# Registrations whose operator has an inferred schema (no schema text).
INFERRED = ("m.def", "torch::RegisterOperators")


def load(tidy, root):
    """What torch-tidy --project-index=ROOT prints, or None."""
    try:
        res = subprocess.run([tidy, f"--project-index={root}"],
                             capture_output=True, text=True, timeout=900)
    except (OSError, subprocess.TimeoutExpired):
        return None
    if res.returncode != 0:
        return None
    try:
        return json.loads(res.stdout)
    except ValueError:
        return None


def operator_names(index):
    """The qualified names of the operators the project defines: schemas,
    and registrations with an inferred schema."""
    ops = set()
    for s in (index or {}).get("operators", []):
        m = re.match(r"\s*(?:(\w+)::)?(\w+)", s["schema"])
        if m:
            ops.add(f"{m.group(1) or s['namespace']}::{m.group(2)}")
    for k in (index or {}).get("kernels", []):
        if k["how"] in INFERRED:
            ops.add(f"{k['namespace']}::{k['operator']}")
    return sorted(ops)


def cpp_kernels(index):
    """{qualified operator: [kernel registrations in C++/CUDA files]} (no
    fakes, no disallow_in_graph marks)."""
    by_op = {}
    for k in (index or {}).get("kernels", []):
        if k.get("fake") or k["key"] == "DisallowInGraph" or \
                k["file"].endswith(".py"):
            continue
        by_op.setdefault(f"{k['namespace']}::{k['operator']}", []).append(k)
    return by_op


def definition_pattern(functions):
    """A regex matching the definition of any of the named functions."""
    if not functions:
        return None
    return re.compile(
        r"\b(" + "|".join(sorted(map(re.escape, functions))) +
        r")\s*\([^;{}]*\)\s*(?:const\s*)?(?:noexcept\s*)?(?:->[^;{]*)?\{",
        re.S)


def kernel_files(index, candidates):
    """{qualified operator: set of files} that register one of its C++
    kernels or define a function registered as one, among the registration
    files and candidates (real paths)."""
    kernels = cpp_kernels(index)
    by_function = {}
    for op, ks in kernels.items():
        for k in ks:
            if k.get("function"):
                by_function.setdefault(k["function"].split("::")[-1],
                                       set()).add(op)
    files = {op: {os.path.realpath(k["file"]) for k in ks}
             for op, ks in kernels.items()}
    pattern = definition_pattern(by_function)
    if pattern:
        for f in candidates:
            for m in pattern.finditer(read_text(f)):
                for op in by_function.get(m.group(1), ()):
                    files[op].add(os.path.realpath(f))
    return files


def operator_files(index, files):
    """The files of `files` the operator checks can warn in, each with why:
    those the project index names (schemas, registrations) and those that
    define a function registered as a kernel."""
    named, functions = set(), set()
    for s in (index or {}).get("operators", []):
        named.add(os.path.realpath(s["file"]))
    for k in (index or {}).get("kernels", []):
        named.add(os.path.realpath(k["file"]))
        if k.get("function"):
            functions.add(k["function"].split("::")[-1])
    definition = definition_pattern(functions)
    why = {}
    for f in files:
        reasons = []
        if os.path.realpath(f) in named:
            reasons.append("registers or defines operators")
        if definition and definition.search(read_text(f)):
            reasons.append("defines a kernel")
        if reasons:
            why[f] = reasons
    return why


def registering_files(index):
    """{file: [operators]} of the C++/CUDA files that define schemas or
    register kernels (fakes left out)."""
    found = {}
    for s in (index or {}).get("operators", []):
        m = re.match(r"\s*(?:(\w+)::)?(\w+)", s["schema"])
        if m and not s["file"].endswith(".py"):
            found.setdefault(s["file"], []).append(
                f"{m.group(1) or s['namespace']}::{m.group(2)}")
    for op, ks in cpp_kernels(index).items():
        for k in ks:
            ops = found.setdefault(k["file"], [])
            if op not in ops:
                ops.append(op)
    return found


def summary(index):
    """Counts of what the index found."""
    if index is None:
        return None
    every = index.get("kernels", [])
    marks = [k for k in every if k["key"] == "DisallowInGraph"]
    kernels = [k for k in every if not k.get("fake") and
               k["key"] != "DisallowInGraph"]
    fakes = [k for k in every if k.get("fake")]
    return {
        "root": index.get("root"),
        "operators": len(operator_names(index)),
        "kernels": len(kernels),
        "kernels_by_key": dict(sorted(Counter(k["key"] or "?"
                                              for k in kernels).items())),
        "fakes": len(fakes),
        "fakes_by_how": dict(sorted(Counter(
            f"{k['key']} ({k['how']})" if k["key"] != "Fake" else k["how"]
            for k in fakes).items())),
        "disallowed_in_graph": len(marks),
        "files_indexed": index.get("files", 0),
    }


def project_index(index, linted, unparsed):
    """The summary with kernels_unseen: for how many operators no kernel
    body could be analysed, by cause (tools/corpus/run.py's table)."""
    s = summary(index)
    if s is None:
        return None
    by_op = cpp_kernels(index)
    unseen = Counter()
    for op in operator_names(index):
        files = {os.path.realpath(k["file"]) for k in by_op.get(op, [])}
        if not files:
            unseen["no C++ kernel registered in the project"] += 1
        elif not files & linted:
            unseen["registered only in files not linted"] += 1
        elif not (files & linted) - unparsed:
            unseen["registered in files that did not parse"] += 1
    s["kernels_unseen"] = dict(sorted(unseen.items()))
    return s
