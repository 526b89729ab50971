"""Per operator the project defines: were its C++ kernels analysed, and if
not, why and what would bring them in. A kernel (one registration of an
operator for a dispatch key) is analysed when the file that defines its
function (or, for a lambda or a function the index cannot find, the file
that registers it) was linted and parsed. The share of analysed kernels, and
of linted files that parsed, is the run's coverage."""
import os
import re

from . import index as project_index
from .common import NOT_THE_PROJECTS, read_text, rel

SOURCES = (".c", ".cc", ".cpp", ".cxx", ".cu", ".sycl")
NO_KERNEL = "no C++ kernel"
NOT_IN_DATABASE = "kernel file not in the database"
LEFT_OUT = "left out by the build's configuration"
NOT_PARSED = "not parsed"
NOT_LINTED = "not linted"
NOT_INDEXED = "registration not read by the index"
# Variables that hold values, not switches (TORCH_CUDA_ARCH_LIST, CUDA_HOME).
VALUE_WORDS = {"list", "dir", "dirs", "path", "paths", "home", "root", "arch",
               "archs", "flags", "version", "prefix", "include", "library",
               "name", "jobs", "level", "type", "mode", "file", "cache"}
# Words of a build switch's name that say nothing about which files it
# brings in.
GENERIC = {"build", "with", "use", "enable", "enabled", "force", "no",
           "disable", "ext", "extension", "extensions", "torch", "lib",
           "the", "on", "off", "support", "compile", "debug", "test",
           "tests", "benchmark", "benchmarks", "verbose", "ninja", "python"}


def tree_sources(root, own_only=False):
    """C, C++, CUDA and SYCL sources below root (hidden folders left out; with
    own_only, other projects' code, tests and builds too)."""
    found = []
    for d, dirs, files in os.walk(root):
        dirs[:] = [x for x in dirs if not x.startswith(".") and not (
            own_only and NOT_THE_PROJECTS.match(x))]
        found += [os.path.join(d, f) for f in files if f.endswith(SOURCES)]
    return found


def _words(text):
    return {w for w in re.split(r"[^a-z0-9]+", text.lower()) if w}


def path_words(path, root):
    words = _words(rel(path, root))
    if path.endswith((".cu", ".cuh")):
        words.add("cuda")
    if path.endswith(".sycl"):
        words.update(("sycl", "xpu"))
    return words


class Switch:
    """A build setting that may bring files in: an environment variable the
    build tests where it adds an extension (kind 'env'), a torch version an
    extension needs (kind 'torch', name '2.11'), or a CMake option(). files:
    the real paths of the sources it brings in, where the build names them
    (matched by path); None: matched by the words of the names."""

    def __init__(self, name, kind, default=None, files=None, text=None):
        self.name, self.kind, self.default = name, kind, default
        self.files, self.text = files, text

    def hint(self):
        if self.text:
            return self.text
        if self.kind == "env":
            return f"--env {self.name}=1"
        if self.kind == "torch":
            return (f"needs torch >= {self.name} (--python with a torch that "
                    f"new)")
        return f"-D {self.name}=ON"


def cmake_switches(options):
    """The Switches of a CMake project's option()s ({NAME: default}) that
    can bring files in: an option that is ON unless told otherwise (deepmd's
    DEEPMD_CUDA_PORTABLE_PTX) switches nothing on."""
    return [Switch(k, "cmake", v) for k, v in options.items()
            if v not in ("ON", "TRUE", "YES", "1")]


def switches_for(paths, switches, root, everywhere=()):
    """{path: [Switch]} of paths whose names share a meaningful word with
    the path. A word every file of `everywhere` (the project's sources, the
    paths themselves where none are given) holds is not meaningful: the
    package's own name, its source folder."""
    words = {p: path_words(p, root) for p in paths}
    every = [path_words(p, root) for p in everywhere] or list(words.values())
    common = set.intersection(*every) if every else set()
    found = {}
    for p in paths:
        # Where the build names the file, its own guards are the advice: a
        # switch that only shares a word with it is not.
        named = [s for s in switches if s.files is not None and
                 os.path.realpath(p) in s.files and
                 (s.kind != "env" or not _words(s.name) & VALUE_WORDS)]
        if named:
            found[p] = named
            continue
        for s in switches:
            # A variable that holds a value (TORCH_CUDA_ARCH_LIST, a path)
            # has no "=1" that switches anything on.
            if s.kind != "torch" and _words(s.name) & VALUE_WORDS:
                continue
            if s.files is not None:
                continue   # not this file's: it is matched by path above
            if s.kind == "torch":
                continue
            mine = _words(s.name) - GENERIC - common
            if mine & words[p]:
                found.setdefault(p, []).append(s)
    return found


def _qualified_in(text, qualifier, name):
    """Whether text defines name as qualifier's: `qualifier::name` written
    there, or name inside a `namespace`, `class` or `struct` of that name."""
    return bool(re.search(rf"\b{re.escape(qualifier)}\s*::\s*"
                          rf"{re.escape(name)}\b", text) or
                re.search(rf"\b(?:namespace|class|struct)\s+"
                          rf"{re.escape(qualifier)}\b", text))


def measure(index, root, database_files, linted, unparsed, switches,
            unparsed_causes=None, regex_skipped=(), included=()):
    """The coverage of a run. database_files, linted, unparsed: real paths.
    switches: [Switch]. included: real paths the files that parsed read (a
    kernel or registration in a header of the project's is analysed where
    one of them includes it). Returns a dict (the JSON's "coverage", less
    the gate)."""
    ops = project_index.operator_names(index)
    by_op = project_index.cpp_kernels(index)
    # Where kernel functions are defined: the database's files and the
    # project's own sources (other projects' code and tests left out).
    own = set(map(os.path.realpath, tree_sources(root, True)))
    candidates = set(database_files) | own
    methods = project_index.class_methods(index)
    functions = {}
    for k in [k for ks in by_op.values() for k in ks] + methods:
        if k.get("function"):
            functions.setdefault(k["function"].split("::")[-1], set())
    if functions:
        for f in candidates:
            for name in project_index.defined_functions(read_text(f),
                                                        functions):
                functions[name].add(f)
    parsed = set(linted) - set(unparsed)
    # Files whose code was analysed: those that parsed and the project's
    # headers they include.
    real_root = os.path.realpath(root) + os.sep
    credited = parsed | {f for f in included if f.startswith(real_root)}

    def files_of(k):
        written = (k.get("function") or "").split("::")
        files = functions.get(written[-1]) or set()
        if len(written) > 1:
            # Qualified where registered (`&Cls::Create<T>`, `&ns::kernel`):
            # only the files that define it so.
            files = {f for f in files
                     if _qualified_in(read_text(f), written[-2],
                                      written[-1])}
        return files or {os.path.realpath(k["file"])}
    body_files = {}
    for op, ks in by_op.items():
        for k in ks:
            body_files[(op, k["key"], k["file"], k["line"])] = files_of(k)
    missing = {f for files in body_files.values() for f in files
               if f not in database_files}
    matched = switches_for(sorted(missing), switches, root,
                           sorted(candidates | missing))
    operators, kernels_total, kernels_seen = {}, 0, 0
    for op in ops:
        ks = by_op.get(op, [])
        if not ks:
            operators[op] = {"analysed": False, "status": NO_KERNEL,
                             "kernels": []}
            continue
        entries = []
        for k in ks:
            files = body_files[(op, k["key"], k["file"], k["line"])]
            kernels_total += 1
            entry = {"key": k["key"] or None,
                     "files": sorted(rel(f, root) for f in files),
                     "registered_at": f"{rel(k['file'], root)}:{k['line']}"}
            if files & credited:
                entry["analysed"] = True
                kernels_seen += 1
            else:
                entry["analysed"] = False
                entry["why"], entry["bring_in"] = _why(
                    files, database_files, unparsed, regex_skipped, matched,
                    unparsed_causes or {}, root)
            entries.append(entry)
        operators[op] = {"kernels": entries}
        restatus(operators[op])
    files_linted = len(linted)
    files_parsed = len(parsed)
    # The project's own sources no database entry covers and where no
    # kernel is registered or defined: said, not counted.
    kernel_files = {f for files in body_files.values() for f in files} | {
        os.path.realpath(k["file"]) for ks in by_op.values() for k in ks}
    outside = sorted(rel(f, root) for f in own
                     if f not in database_files and f not in kernel_files)
    # TorchScript custom classes' methods: not operators, not counted;
    # analysed where the file defining (or registering) them parsed.
    listed = {}
    for k in methods:
        files = files_of(k)
        listed[f"{k['namespace']}::{k['operator']}"] = {
            "files": sorted(rel(f, root) for f in files),
            "registered_at": f"{rel(k['file'], root)}:{k['line']}",
            "analysed": bool(files & credited)}
    return {
        "custom_class_methods": {
            "total": len(listed),
            "analysed": sum(m["analysed"] for m in listed.values()),
            "methods": listed},
        "share": _share(kernels_total, kernels_seen, files_linted,
                        files_parsed),
        "kernels": {"total": kernels_total, "analysed": kernels_seen},
        "operators": _operator_counts(operators),
        "files": {"linted": files_linted, "parsed": files_parsed,
                  "not_in_database": outside},
        "by_operator": operators,
    }


def _share(kernels, analysed, linted, parsed):
    """Coverage: the lower of the share of kernels analysed and the share
    of linted files that parsed; None where there is neither."""
    shares = ([analysed / kernels] if kernels else []) + (
        [parsed / linted] if linted else [])
    return min(shares) if shares else None


def _operator_counts(operators):
    """The "operators" counts of a coverage's by_operator."""
    return {"total": len(operators),
            "with_cpp_kernels": sum(1 for o in operators.values()
                                    if o["status"] != NO_KERNEL),
            "analysed": sum(1 for o in operators.values() if o["analysed"])}


HEADERS = (".h", ".hh", ".hpp", ".hxx", ".cuh", ".inl")


def _why(files, database_files, unparsed, regex_skipped, matched, causes,
         root):
    """(why a kernel body was not analysed, what would bring it in)."""
    bad = sorted(files & set(unparsed))
    if bad:
        cause = causes.get(bad[0])
        return NOT_PARSED, (f"{rel(bad[0], root)}: what it lacks to parse" +
                            (f" ({cause})" if cause else ""))
    skipped = sorted(files & set(regex_skipped))
    if skipped:
        return NOT_LINTED, f"{rel(skipped[0], root)}: a run without " \
            f"FILE_REGEX"
    inside = sorted(files & set(database_files))
    if inside:
        return NOT_LINTED, f"{rel(inside[0], root)}: --all-files"
    hints = []
    for f in sorted(files):
        for s in matched.get(f, []):
            if s.hint() not in hints:
                hints.append(s.hint())
    first = rel(sorted(files)[0], root)
    if hints:
        return LEFT_OUT, f"{first}: " + " or ".join(hints)
    if all(f.endswith(HEADERS) for f in files):
        # A header is analysed through a file that includes it.
        return NOT_IN_DATABASE, f"{first}: a header; a linted file that " \
            f"includes it and parses (a build that compiles one)"
    return NOT_IN_DATABASE, f"{first}: a build that compiles the file (or " \
        f"--database with one that lists it)"


def with_registry(result, reg, index, root, switches=()):
    """Recounts a coverage on torch's registry (registry.Registry): the
    kernels counted are the registry's C++ kernels of the project's
    operators (fakes left out, as the index leaves them), each analysed
    where the index's registration it pairs with was; one the index did
    not read is never analysed. What the sources register and the build
    did not compile counts for nothing and is listed; every difference
    between the two is named under result["registry"]. switches ([Switch])
    give the remedy for a registration the index did not read where the
    build's guards name its file (xformers' flash_attn_3, built only with
    FORCE_CUDA)."""
    from . import registry as project_registry
    sources, foreign = project_registry.own_operators(reg, index, root)
    pairs, only_registry, only_index = project_registry.match(
        reg, project_registry.index_kernels(index), sources, root)
    static = {}
    for op, o in result["by_operator"].items():
        for e in o["kernels"]:
            static[(op, e["registered_at"])] = e
    paired = {}
    for op, k, f, ik in pairs:
        paired.setdefault(op, []).append(
            (k, f, static.get((project_registry.base_name(op),
                               f"{rel(ik['file'], root)}:{ik['line']}"))))
    for op, k, f in only_registry:
        paired.setdefault(op, []).append((k, f, None))
    operators, total, seen = {}, 0, 0
    for op in sorted(reg.operators):
        entries = []
        for k, f, e in sorted(paired.get(op, []),
                           key=lambda x: (x[0]["key"], x[0]["line"])):
            if k["key"] in project_registry.FAKE_KEYS:
                continue
            here = project_registry.where(k, root, f)
            if e is None:
                hints = _switch_hints(f or k["file"], switches, root)
                e = {"key": k["key"], "files": [], "analysed": False,
                     "why": NOT_INDEXED,
                     "bring_in": f"{here}: " + (" or ".join(hints) if hints
                                                else "torch's registry names "
                                                "this registration; the "
                                                "project index did not read "
                                                "it")}
            entries.append(dict(e, key=k["key"], registered_at=here))
        total += len(entries)
        seen += sum(e["analysed"] for e in entries)
        operators[op] = {"kernels": entries}
        restatus(operators[op])
    # The index names operators without their overloads (ns::op for
    # ns::op.out too).
    index_ops = set(result["by_operator"])
    reg_ops = {project_registry.base_name(op) for op in reg.operators}
    result.update({
        "share": _share(total, seen, result["files"]["linted"],
                        result["files"]["parsed"]),
        "kernels": {"total": total, "analysed": seen},
        "operators": _operator_counts(operators),
        "by_operator": operators,
        "counted_from": "registry",
    })
    summary = reg.summary()
    summary.update({
        "only_in_registry": [
            f"{op} {k['key']} at {project_registry.where(k, root, f)}"
            for op, k, f in only_registry],
        "only_in_index": [
            f"{op} {ik['key'] or 'CompositeImplicitAutograd'} at "
            f"{rel(ik['file'], root)}:{ik['line']}" for op, ik in only_index
            if ik["key"] not in project_registry.FAKE_KEYS],
        "operators_only_in_registry": sorted(
            op for op in reg.operators
            if project_registry.base_name(op) not in index_ops),
        "operators_only_in_index": sorted(index_ops - reg_ops),
    })
    summary["not_the_projects"] = foreign
    if getattr(reg, "foreign", None):
        summary["not_the_projects_by_namespace"] = dict(sorted(
            reg.foreign.items()))
    fakes = project_registry.python_fakes(index)
    registered = {op: o["fake"] for op, o in reg.operators.items()
                  if o.get("fake")}
    summary["fakes"] = {
        "registry": len(registered),
        "not_read_by_index": sorted(
            f"{op} at {project_registry.shorten(where, root)}"
            for op, where in registered.items()
            if project_registry.base_name(op) not in fakes)}
    result["registry"] = summary
    return result


NOT_INDEXED_COMPILED = "registration the compiler saw, not read by the " \
    "index"


def restatus(o):
    """An operator's analysed flag and status from its kernels' (no kernel:
    NO_KERNEL, not analysed)."""
    n = sum(bool(k["analysed"]) for k in o["kernels"])
    o["analysed"] = bool(o["kernels"]) and n == len(o["kernels"])
    o["status"] = (NO_KERNEL if not o["kernels"] else "analysed"
                   if o["analysed"] else "partly analysed" if n else
                   "not analysed")


# Why a database file was not read by the compiler for its registrations
# (with_compiler's unread): what the summary says of them.
NOT_READ_PRUNED = ("not linted: nothing an enabled check reads there, as "
                   "the project index and the text say (--all-files lints "
                   "them)")
NOT_READ_REGEX = "not matching FILE_REGEX"
NOT_READ_UNPARSED = "did not parse"
NOT_READ_NO_CHECK = ("linted by no check that reads registrations "
                     "(torch-op-undeclared-mutation, "
                     "torch-compile-requires-grad-propagation, "
                     "torch-write-into-copy)")


def with_compiler(result, harvests, index, root, count=True, unread=None):
    """Compares the index with what the linted files register as the
    compiler saw them (harvests: each parsed file's $TORCH_TIDY_HARVEST
    document: macros expanded, with the file's own flags), and names every
    difference under result["compiler"]. With count (coverage counted on
    the index), each C++ kernel only the compiler saw is counted: analysed
    where its body is in the file that registers it, else not (the index
    did not read the registration, so where the body is was not looked
    up). unread: {why: the database's files the compiler did not read},
    named under "not_read" (there, what they register is the index's
    reading alone)."""
    from . import registry as project_registry
    root_real = os.path.realpath(root) + os.sep

    def key(k):
        k = k or "CompositeImplicitAutograd"
        return project_registry.SAME_KEY.get(k, k)
    by_op = project_index.cpp_kernels(index)
    index_kernels = {(op, key(k["key"])) for op, ks in by_op.items()
                     for k in ks}
    index_ops = set(project_index.operator_names(index))
    harvested = set()
    ops, kernels = {}, {}
    for h in harvests:
        harvested.add(os.path.realpath(h["file"]))
        for r in h["registrations"]:
            f = os.path.realpath(r.get("file") or h["file"])
            if not f.startswith(root_real) and f not in harvested:
                continue  # another project's header
            op = project_registry.base_name(r["operator"])
            ops.setdefault(op, f"{rel(f, root)}:{r.get('line', 0)}")
            if r["kind"] == "kernel" and \
                    key(r.get("key")) not in project_registry.FAKE_KEYS:
                kernels.setdefault((op, key(r.get("key"))), (f, r))
    only_ops = sorted(op for op in ops if op not in index_ops)
    only_kernels = sorted(k for k in kernels if k not in index_kernels)
    # The index's registrations in a file the compiler read whole, that
    # the compiler did not see there: a branch the build does not compile,
    # or a misreading.
    seen_at = {(op, k, f) for (op, k), (f, _) in kernels.items()}
    not_compiled = sorted(
        (op, key(k["key"]), f"{rel(k['file'], root)}:{k['line']}")
        for op, ks in by_op.items() for k in ks
        if os.path.realpath(k["file"]) in harvested and
        (op, key(k["key"]), os.path.realpath(k["file"])) not in seen_at and
        (op, key(k["key"])) not in kernels)
    only_index = [f"{op} {k} at {where}" for op, k, where in not_compiled]
    result["compiler"] = {
        "files": len(harvested),
        "operators_only_compiler": [f"{op} at {ops[op]}" for op in only_ops],
        "kernels_only_compiler": [
            f"{op} {k} at {rel(kernels[(op, k)][0], root)}:"
            f"{kernels[(op, k)][1].get('line', 0)}" for op, k in only_kernels],
        "kernels_only_index": only_index,
        "not_read": {why: sorted({rel(f, root) for f in files})
                     for why, files in (unread or {}).items() if files}}
    if not count or not (only_kernels or not_compiled):
        return result
    by_operator = result["by_operator"]
    # What the build does not compile counts for nothing (listed above).
    for op, k, where in not_compiled:
        o = by_operator.get(op)
        if not o or o["status"] == NO_KERNEL:
            continue
        o["kernels"] = [e for e in o["kernels"]
                        if e.get("registered_at") != where]
        restatus(o)
    for op, k in only_kernels:
        f, r = kernels[(op, k)]
        where = f"{rel(f, root)}:{r.get('line', 0)}"
        entry = {"key": k, "files": [rel(f, root)], "registered_at": where,
                 "seen_by": "compiler", "analysed": bool(r.get("defined"))}
        if not entry["analysed"]:
            entry["why"] = NOT_INDEXED_COMPILED
            fn = r.get("function") or "its kernel"
            entry["bring_in"] = (
                f"{where}: the compiler saw {fn} registered here, defined "
                f"in another file; the project index did not read the "
                f"registration")
        o = by_operator.setdefault(op, {"analysed": True, "status":
                                        "analysed", "kernels": []})
        if o["status"] == NO_KERNEL:
            o["kernels"] = []
        o["kernels"].append(entry)
        restatus(o)
    total = sum(len(o["kernels"]) for o in by_operator.values()
                if o["status"] != NO_KERNEL)
    seen = sum(e["analysed"] for o in by_operator.values()
               if o["status"] != NO_KERNEL for e in o["kernels"])
    result["kernels"] = {"total": total, "analysed": seen}
    result["operators"] = _operator_counts(by_operator)
    result["share"] = _share(total, seen, result["files"]["linted"],
                             result["files"]["parsed"])
    return result


def approximate(result, why):
    """Marks a coverage measured on another configuration than the build's
    (a database from the CMake sources): the kernels parsed there are not
    counted as analysed toward the gate, so its share is 0 where there are
    kernels; what was parsed is still said."""
    result["approximate"] = why
    if result["kernels"]["total"]:
        result["share"] = 0.0


def gate(result, minimum):
    """Whether coverage passes --min-coverage (a share, 0 to 1). Never where
    the project registers kernels or fakes for operators whose definition
    the index did not read (undefined_operators): what defines them was
    not seen, so no share of it can be; nor where nothing was measured and
    operators have only Python kernels, which no check analyses."""
    if (result.get("undefined") or {}).get("operators") or \
            result.get("kernelless"):
        return False
    share = result.get("share")
    # Nothing measured, and operators whose kernels are all Python: not a
    # pass on nothing (bitsandbytes: Python kernels over ctypes).
    if share is None and result.get("python_kernels"):
        return False
    return share is None or share + 1e-9 >= minimum


# Namespaces of torch's own operators: a project may register a fake or a
# kernel for one of them without defining it.
TORCHS = ("aten", "prims", "_c10d_functional", "c10d", "quantized",
          "_quantized", "profiler", "*", "")
LIBRARY_TEXT = re.compile(r"\b(?:STABLE_)?TORCH_LIBRARY(?:_IMPL|_FRAGMENT)?"
                          r"\b")


def undefined_operators(index, root, torch_namespaces=()):
    """What the index read registrations of without a definition: {
    "operators": [ns::op registered (kernels, fakes, autograd, ...) with no
    schema, inferred or written, anywhere in the index], "files": [the
    project's C/C++/CUDA sources that name TORCH_LIBRARY (or its _IMPL,
    _FRAGMENT, STABLE_ forms) where the index read no registration: where a
    definition may hide, behind a macro of the project's own]}.
    torch_namespaces: those --python's torch defines operators in (torch's
    own, beside TORCHS)."""
    defined = set(project_index.operator_names(index))
    torchs = set(TORCHS) | set(torch_namespaces or ())
    ops = sorted({f"{k['namespace']}::{k['operator']}"
                  for k in (index or {}).get("kernels", [])
                  if k["key"] not in project_index.MARKS and
                  k["namespace"] not in torchs} - defined)
    if not ops:
        return {"operators": [], "files": []}
    registering = {os.path.realpath(x["file"]) for x in
                   (index or {}).get("operators", []) +
                   (index or {}).get("kernels", [])}
    files = sorted(rel(f, root) for f in
                   map(os.path.realpath, tree_sources(root))
                   if f not in registering and
                   LIBRARY_TEXT.search(read_text(f) or ""))
    return {"operators": ops, "files": files}


def kernelless_operators(index, torch_namespaces=()):
    """The operators the project defines (a schema, written or inferred)
    for which the index read no kernel at all, only fakes or nothing: an
    operator is called through a kernel, so theirs are registered where the
    index does not look (bitsandbytes: Python kernels registered through
    `register_kernel = torch.library.register_kernel` imported from another
    module; a C++ macro it does not expand)."""
    torchs = set(TORCHS) | set(torch_namespaces or ())
    with_kernel = {f"{k['namespace']}::{k['operator']}"
                   for k in (index or {}).get("kernels", [])
                   if k["key"] not in project_index.MARKS and
                   k["key"] not in ("Fake", "Meta")}
    return [op for op in project_index.operator_names(index)
            if op.split("::")[0] not in torchs and op not in with_kernel]


def python_kernel_operators(index):
    """The operators whose kernels the index read are all Python functions
    (torch.library.register_kernel, impl, custom_op): their writes are not
    analysed, nor C code they reach through ctypes (bitsandbytes); only a
    custom_op's calls of pybind11-bound C++ functions are followed."""
    python, cxx = set(), set()
    # A custom op whose body calls a pybind11-bound C++ function: followed.
    cxx |= {c["operator"] for p in (index or {}).get("pybind_callees", [])
            for c in p.get("callers", [])}
    for k in (index or {}).get("kernels", []):
        if k["key"] in project_index.MARKS or k["key"] in ("Fake", "Meta"):
            continue
        op = f"{k['namespace']}::{k['operator']}"
        (python if k["file"].endswith(".py") else cxx).add(op)
    return sorted(python - cxx)


def unseen(result):
    """[(operator, status, [bring_in])] of the operators whose kernels were
    not all analysed (those with no C++ kernel left out)."""
    out = []
    for op, o in sorted(result["by_operator"].items()):
        if o["status"] in ("analysed", NO_KERNEL):
            continue
        hints = []
        for k in o["kernels"]:
            if not k["analysed"] and k["bring_in"] not in hints:
                hints.append(k["bring_in"])
        out.append((op, o["status"], hints))
    return out


def _switch_hints(path, switches, root):
    """The hints of the switches that bring path in (by its path where the
    build names its sources, else by the words of its name)."""
    if not path or not switches:
        return []
    if not os.path.isfile(path):
        # The path as the registry's build compiled it (another checkout):
        # the guarded source it names by its tail, vendored code included.
        from . import registry as project_registry
        guarded = sorted({f for s in switches for f in s.files or ()})
        path = project_registry.project_file(path, guarded, root)
        if not path:
            return []
    real = os.path.realpath(path)
    every = set(map(os.path.realpath, tree_sources(root, True))) | {real}
    hints = []
    for s in switches_for([real], switches, root, sorted(every)).get(real,
                                                                     []):
        if s.hint() not in hints:
            hints.append(s.hint())
    return hints


def bring_in(result):
    """The distinct remedies, most common first: what would bring the unseen
    kernels in (each kernel's bring_in is 'FILE: remedy')."""
    counts = {}
    for o in result["by_operator"].values():
        for k in o["kernels"]:
            if not k["analysed"]:
                remedy = k["bring_in"].split(": ", 1)[-1]
                counts[remedy] = counts.get(remedy, 0) + 1
    return [r for r, _ in sorted(counts.items(), key=lambda x: -x[1])]
