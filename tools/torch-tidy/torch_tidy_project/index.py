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

# Registrations whose operator has an inferred schema (no schema text);
# through a project's macro they read "MACRO: m.def"; a Python function
# torch.library.custom_op makes an operator of, or a project's decorator
# that defines one after the function (torchao's _register_custom_op), has
# its schema from its annotations.
INFERRED = ("m.def", "torch::RegisterOperators", "torch.library.custom_op",
            "Library.define (schema inferred)")


def _inferred(how):
    return how.rsplit(": ", 1)[-1] in INFERRED


def load(tidy, root, env=None):
    """What torch-tidy --project-index=ROOT prints, or None. env: its
    environment ($TORCH_TIDY_PROJECT_FILES names the build's files the walk
    of the root does not read)."""
    try:
        res = subprocess.run([tidy, f"--project-index={root}"],
                             capture_output=True, text=True,
                             errors="replace", timeout=900, env=env)
    except (OSError, subprocess.TimeoutExpired):
        return None
    if res.returncode != 0:
        return None
    try:
        return json.loads(res.stdout)
    except ValueError:
        return None


def schema_operator(schema, overload=False):
    """The qualified name a schema entry of the index defines, or None;
    with overload, its overload too (ns::op.out), as torch's registry names
    it."""
    m = re.match(r"\s*(?:(\w+)::)?(\w+)(\.\w+)?", schema["schema"])
    return m and (f"{m.group(1) or schema['namespace']}::{m.group(2)}" +
                  (m.group(3) or "" if overload else ""))


def operator_names(index):
    """The qualified names of the operators the project defines: schemas,
    and registrations with an inferred schema."""
    ops = set()
    for s in (index or {}).get("operators", []):
        if schema_operator(s):
            ops.add(schema_operator(s))
    for k in (index or {}).get("kernels", []):
        if _inferred(k["how"]):
            ops.add(f"{k['namespace']}::{k['operator']}")
    return sorted(ops)


def operator_overloads(index):
    """The project's operators as torch's registry names them, overloads
    apart (ns::op, ns::op.out): the schemas' names, then the operators of
    inferred schemas and of other registrations that no schema names (the
    index keeps those without an overload)."""
    ops = {schema_operator(s, overload=True)
           for s in (index or {}).get("operators", []) if schema_operator(s)}
    bases = {o.split(".")[0] for o in ops}
    for k in (index or {}).get("kernels", []):
        op = f"{k['namespace']}::{k['operator']}"
        if k["key"] not in MARKS and op not in bases:
            ops.add(op)
    return sorted(ops)


# Sites that are neither kernels nor fakes: a torch._dynamo.disallow_in_graph
# mark, a call of the operator inside a Python custom op, and a custom
# class's method.
MARKS = ("DisallowInGraph", "OpaqueCaller", "CustomClassMethod")
# A TorchScript custom class's method, "Class.method" (not an operator).
CLASS_METHOD = "CustomClassMethod"


def class_methods(index):
    """[index entries] of the TorchScript custom classes' methods the
    project registers (`class_<T>("Name").def("m", &T::m)`), each with its
    operator "Name.m": not operators, listed apart."""
    return [k for k in (index or {}).get("kernels", [])
            if k["key"] == CLASS_METHOD]


def cpp_kernels(index):
    """{qualified operator: [kernel registrations in C++/CUDA files]} (no
    fakes, no disallow_in_graph marks, no callers)."""
    by_op = {}
    for k in (index or {}).get("kernels", []):
        if k.get("fake") or k["key"] in MARKS or \
                k["file"].endswith(".py"):
            continue
        by_op.setdefault(f"{k['namespace']}::{k['operator']}", []).append(k)
    return by_op


# Words before a name and a parenthesis that make it a call or a statement,
# not a function's definition (`if (f(x)) {`, `return f(x) {...}`).
NOT_A_DECLARATOR = {"if", "while", "for", "switch", "return", "catch", "else",
                    "case", "throw", "co_return", "new", "delete", "sizeof",
                    "decltype", "alignof", "and", "or", "not"}


def _definition_pattern(names):
    return re.compile(
        r"\b(" + "|".join(sorted(map(re.escape, names))) +
        r")\s*\([^;{}]*\)\s*(?:const\s*)?(?:noexcept\s*)?(?:->[^;{]*)?\{",
        re.S)


def defined_functions(text, names):
    """The names of `names` that text defines: `name(...) {` after a return
    type or a qualifier (a word, `>`, `*`, `&` or `::`), not a call inside
    a condition or an expression."""
    if not names:
        return set()
    found = set()
    for m in _definition_pattern(names).finditer(text):
        before = text[max(0, m.start(1) - 200):m.start(1)].rstrip()
        if not before or before[-1] not in "_>*&:" and \
                not before[-1].isalnum():
            continue
        word = re.search(r"(\w+)$", before)
        if word and word.group(1) in NOT_A_DECLARATOR:
            continue
        found.add(m.group(1))
    return found


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
    # Kernels behind dispatch stubs (REGISTER_DISPATCH) that a function of
    # the project calls: judged as its operators' kernels.
    stubs = set()
    for k in (index or {}).get("stub_kernels", []):
        stubs.add(os.path.realpath(k["file"]))
        functions.add(k["function"].split("::")[-1])
    # C++ functions a pybind11 module binds and a Python custom op calls:
    # judged against the custom op's mutates_args where they are defined.
    called = {k["function"].split("::")[-1]
              for k in (index or {}).get("pybind_callees", [])}
    why = {}
    for f in files:
        reasons = []
        if called and defined_functions(read_text(f), called):
            reasons.append("defines a function a Python custom op calls")
        if os.path.realpath(f) in named:
            reasons.append("registers or defines operators")
        if os.path.realpath(f) in stubs:
            reasons.append("registers a dispatch-stub kernel")
        if defined_functions(read_text(f), functions):
            reasons.append("defines a kernel")
        if reasons:
            why[f] = reasons
    return why


def registering_files(index):
    """{file: [operators]} of the C++/CUDA files that define schemas or
    register kernels (fakes left out)."""
    found = {}
    for s in (index or {}).get("operators", []):
        if schema_operator(s) and not s["file"].endswith(".py"):
            found.setdefault(s["file"], []).append(schema_operator(s))
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
    kernels = [k for k in every if not k.get("fake") and k["key"] not in MARKS]
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
        "called_in_python_custom_ops": sum(k["key"] == "OpaqueCaller" for k in every),
        "custom_class_methods": len(class_methods(index)),
        "files_indexed": index.get("files", 0),
        # Of those, files the build compiles that the walk does not read
        # (third_party/, build folders, outside the root).
        "build_files_indexed": index.get("build_files", 0),
    }


def project_index(index, linted, unparsed):
    """The summary with kernels_unseen: for how many operators no kernel
    body could be analysed, by cause (tools/corpus/run.py's table)."""
    s = summary(index)
    if s is None:
        return None
    by_op = cpp_kernels(index)
    s["kernels_unseen"] = kernels_unseen(
        {op: {os.path.realpath(k["file"]) for k in by_op.get(op, [])}
         for op in operator_names(index)}, linted, unparsed)
    return s


def kernels_unseen(registering, linted, unparsed):
    """{cause: count} of the operators no kernel body of which could be
    analysed. registering: {operator: files registering its C++ kernels},
    in the same form of path as linted and unparsed."""
    unseen = Counter()
    for op, files in registering.items():
        files = set(files)
        if not files:
            unseen["no C++ kernel registered in the project"] += 1
        elif not files & linted:
            unseen["registered only in files not linted"] += 1
        elif not (files & linted) - unparsed:
            unseen["registered in files that did not parse"] += 1
    return dict(sorted(unseen.items()))



def write_build_files(paths, folder):
    """Writes the files the build compiles, one absolute path a line, into
    folder/build-files.txt; returns its path, or None where there are none.
    The lint cache does not key on the list: a file's result is replayed
    while the index facts it read are the same (cache.py), whichever files
    gave them."""
    paths = sorted({os.path.realpath(p) for p in paths})
    if not paths:
        return None
    path = os.path.join(folder, "build-files.txt")
    text = "".join(p + "\n" for p in paths)
    if read_text(path) != text:
        with open(path, "w", encoding="utf-8") as f:
            f.write(text)
    return path
