"""What a run says: the findings with their consequence class, the summary
printed at the end, the JSON document for CI (docs/torch-tidy-project.schema.json),
and the exit status with the last line that says why."""
import math
import os
import re

from . import coverage as cov
from .common import rel
from .running import line_column

SCHEMA = "torch-tidy-project/2"
# The consequence classes the checks' messages state, as "(class)": see the
# pages of docs/checks/.
CLASS_TOKEN = re.compile(r"\((silent|graph break|loud|traced|unknown)\b[^)]*"
                         r"\)")
# The flagship's messages: a write into a mutable argument, and a write
# into a fresh local in a compiled region.
STALE = ("keeps reading requires_grad() == false", "loses requires_grad")


def finding_class(message):
    """The consequence class a message states: silent, graph break, loud,
    traced, unknown, or 'stale requires_grad' (torch.compile's flag goes
    stale: a write into a mutable argument, or into a fresh local in a
    compiled region); None for a message that states none."""
    m = CLASS_TOKEN.search(message)
    if m:
        return m.group(1)
    if any(s in message for s in STALE):
        return "stale requires_grad"
    return None


# A place a note names in its text: "... registered in /p/ops.py:9 (...)".
NAMED_PLACE = re.compile(r"(?:^|\s)(/[^\s:'()]+):(\d+)\b")


def named_place(message, root):
    """{file, line} of the first existing file a note's message names, the
    file relative to root where it lies below it; None if it names none."""
    for m in NAMED_PLACE.finditer(message):
        if os.path.isfile(m.group(1)):
            return {"file": rel(m.group(1), root), "line": int(m.group(2))}
    return None


def note(n, root):
    """One note of a finding: where it was reported, and, where its text
    names another place (a Python fake, a schema or a registration in
    another file), that place as `about`."""
    out = {"file": rel(n["file"], root), "line": n["line"],
           "column": n["column"], "message": n["message"]}
    about = named_place(n["message"], root)
    if about:
        out["about"] = about
    return out


def rule_of(notes):
    for n in notes:
        m = re.match(r"rule: ([\w.-]+)", n["message"])
        if m:
            return m.group(1)
    return None


def finding(d, root, replacements, cache):
    """One finding of the JSON document."""
    fix = None
    if replacements:
        reps = []
        for r in replacements:
            line, column = line_column(r["file"], r["offset"], cache)
            reps.append({"file": rel(r["file"], root), "offset": r["offset"],
                         "length": r["length"], "line": line,
                         "column": column, "text": r["text"]})
        fix = {"rule": rule_of(d["notes"]), "replacements": reps}
    return {
        "check": d["check"], "level": d["level"],
        "file": rel(d["file"], root), "line": d["line"],
        "column": d["column"], "message": d["message"],
        "class": finding_class(d["message"]),
        "notes": [note(n, root) for n in d["notes"]],
        "fix": fix,
    }


def finding_key(f):
    """What makes two findings one: a warning in a header of the project's
    is given by every file that includes it, in one run and across the
    shards of one (check, file below the root, line, column, message)."""
    return (f["check"], f["file"], f["line"], f["column"], f["message"])


def finding_order(f):
    """The order of a run's findings: file, line, column, check."""
    return (f["file"], f["line"], f["column"], f["check"])


def percent(share):
    """A share in whole percent, rounded down: 0.896 is 89%, never shown as
    the 90% it falls short of."""
    return f"{math.floor(100 * share + 1e-9)}%"


def threshold(minimum):
    """--min-coverage as given, in percent: 0.895 is 89.5%."""
    return f"{100 * minimum:g}%"


def compiler_lines(c):
    """How the index differs from what the linted files register as the
    compiler saw them (macros expanded, with each file's flags)."""
    r = c.get("compiler")
    if not r:
        return
    diffs = [(what, r.get(said) or []) for what, said in (
        ("operators the compiler saw registered, not read by the index",
         "operators_only_compiler"),
        ("C++ kernels the compiler saw registered, not read by the index"
         + (" (counted above)" if c.get("counted_from") == "index" else ""),
         "kernels_only_compiler"),
        ("C++ kernels the index read in those files, not compiled there"
         + (" (not counted)" if c.get("counted_from") == "index" else ""),
         "kernels_only_index"))]
    if r["files"] and not any(items for _, items in diffs):
        print(f"    the registrations of the {r['files']} files linted, as "
              f"the compiler saw them, are the index's")
    elif r["files"]:
        print(f"    the registrations of the {r['files']} files linted, as "
              f"the compiler saw them, against the index:")
        for what, items in diffs:
            if items:
                print(f"    {len(items)} {what}: " + ", ".join(items[:4]) +
                      (" ..." if len(items) > 4 else ""))
    unread = r.get("not_read") or {}
    if unread:
        n = sum(len(v) for v in unread.values())
        print(f"    {n} files of the database the compiler did not read "
              f"(what they register is the index's reading alone):")
        for why, files in unread.items():
            print(f"    {len(files)} {why}: " + ", ".join(files[:3]) +
                  (" ..." if len(files) > 3 else ""))


def registry_lines(c):
    """What torch's registry said, and how the index differs from it."""
    r = c.get("registry") or {}
    if c.get("counted_from") != "registry":
        if r.get("not_read"):
            print(f"    counted on the project index (torch's registry not "
                  f"read: {r['not_read']})")
        return
    print(f"    counted on torch's registry: {r['operators']} operators, "
          f"{r['kernels']} C++ kernels, after importing "
          f"{', '.join(r['imported'])} in {r['python']} (torch "
          f"{r['torch']})" + (f"; {len(r['libraries_loaded'])} shared "
                             f"libraries loaded with torch.ops.load_library"
                             if r["libraries_loaded"] else ""))
    for what, said in (
            ("registered, not read by the index", "only_in_registry"),
            ("in the sources, not in the registry (not built, or "
             "registered under another name)", "only_in_index"),
            ("operators in the registry only", "operators_only_in_registry"),
            ("operators in the sources only (not built, or another name)",
             "operators_only_in_index")):
        if r.get(said):
            print(f"    {len(r[said])} {what}: " + ", ".join(r[said][:4]) +
                  (" ..." if len(r[said]) > 4 else ""))
    missed = r.get("fakes", {}).get("not_read_by_index", [])
    if missed:
        print(f"    {len(missed)} Python fakes registered, not read by the "
              f"index: " + ", ".join(missed[:4]) +
              (" ..." if len(missed) > 4 else ""))
    if r.get("not_the_projects"):
        by_ns = r.get("not_the_projects_by_namespace") or {}
        named = ", ".join(f"{ns} {n}" for ns, n in sorted(
            by_ns.items(), key=lambda x: (-x[1], x[0]))[:6]) + (
            " ..." if len(by_ns) > 6 else "")
        print(f"    {r['not_the_projects']} operators of packages the "
              f"project imports left out (not its namespaces or files"
              + (f"; by namespace: {named}" if named else "") + ")")
    for lib, why in sorted(r.get("libraries_not_loaded", {}).items())[:3]:
        print(f"    not loaded: {lib} ({why})")
    for mod, why in sorted(r.get("failed", {}).items()):
        print(f"    did not import: {mod} ({why})")


def undefined_text(c):
    """'' or what the index read registrations of and no definition, and
    the operators it read a definition of and no kernel."""
    texts = []
    kernelless = c.get("kernelless") or []
    if kernelless:
        texts.append(
            f"{len(kernelless)} operator{'s' if len(kernelless) != 1 else ''}"
            f" the project defines with no kernel the project index read "
            f"(registered where it does not look: a Python register_kernel "
            f"under a name imported from another module, a C++ macro it does "
            f"not expand; --env PYTHONPATH with the built package counts "
            f"them on torch's registry): " + ", ".join(kernelless[:4]) +
            (" ..." if len(kernelless) > 4 else ""))
    more = _undefined_registrations(c)
    if more:
        texts.append(more)
    return "; and ".join(texts)


def _undefined_registrations(c):
    u = c.get("undefined") or {}
    ops = u.get("operators") or []
    if not ops:
        return ""
    text = (f"{len(ops)} operator{'s' if len(ops) != 1 else ''} the project "
            f"registers kernels or fakes for, whose definition the project "
            f"index did not read: " + ", ".join(ops[:4]) +
            (" ..." if len(ops) > 4 else ""))
    files = u.get("files") or []
    if files:
        text += (f" (named TORCH_LIBRARY where no registration was read: "
                 + ", ".join(files[:3]) + (" ..." if len(files) > 3 else "")
                 + "; a registration macro of the project's own?)")
    return text


def coverage_text(c):
    """'coverage 82%: 14 of 17 kernels analysed, 6 of 6 files parsed'."""
    undefined = undefined_text(c)
    python_kernels = c.get("python_kernels") or []
    if c["share"] is None and python_kernels and not undefined:
        undefined = (f"{len(python_kernels)} operator"
                     f"{'s' if len(python_kernels) != 1 else ''} with only "
                     f"Python kernels, which no check analyses (their "
                     f"writes, and C code they reach through ctypes): " +
                     ", ".join(python_kernels[:4]) +
                     (" ..." if len(python_kernels) > 4 else ""))
    if c["share"] is None:
        return (f"coverage: nothing measured, yet {undefined}" if undefined
                else "coverage: nothing to measure (no kernel, no file "
                     "linted)")
    if undefined:
        return coverage_share_text(c) + f"; and {undefined}"
    return coverage_share_text(c)


def coverage_share_text(c):
    """The share part of coverage_text."""
    parts = []
    if c["kernels"]["total"]:
        parts.append(f"{c['kernels']['analysed']} of {c['kernels']['total']} "
                     f"C++ kernels analysed")
    if c["files"]["linted"]:
        parts.append(f"{c['files']['parsed']} of {c['files']['linted']} "
                     f"files parsed")
    if c.get("approximate"):
        return (f"coverage {percent(c['share'])} (approximate: "
                f"{c['approximate']}; {', '.join(parts)} there, none counted)")
    return f"coverage {percent(c['share'])}: " + ", ".join(parts)


def verdict(fail_on, warnings, unparsed, c, minimum):
    """(exit status, reasons, last line). Exit 3 when coverage is below the
    minimum, else 1 when a check warned (or, with 'errors', a file did not
    parse), else 0."""
    n = sum(warnings.values())
    said = f"{n} warning{'s' if n != 1 else ''}"
    if "never" in fail_on:
        return 0, [], (f"torch-tidy-project: done (--fail-on never): {said}; "
                        f"{coverage_text(c)}")
    reasons = []
    if "warnings" in fail_on and n:
        reasons.append("warnings")
    if "errors" in fail_on and unparsed:
        reasons.append("errors")
    low = "coverage" in fail_on and not cov.gate(c, minimum)
    if low:
        reasons.append("coverage")
    if not reasons:
        return 0, [], f"torch-tidy-project: PASS: {said}; {coverage_text(c)}"
    head = f"torch-tidy-project: FAIL ({', '.join(reasons)}): {said}"
    if unparsed:
        head += f", {unparsed} file{'s' if unparsed != 1 else ''} did not parse"
    if not low:
        return 1, reasons, f"{head}; {coverage_text(c)}"
    unseen = cov.unseen(c)
    names = ", ".join(op for op, _, _ in unseen[:8]) + \
        (f" and {len(unseen) - 8} more" if len(unseen) > 8 else "")
    remedies = cov.bring_in(c)
    if undefined_text(c):
        # Not a share below the minimum: what defines them was not read.
        return 3, reasons, f"{head}, but {coverage_text(c)}"
    line = (f"{head}, but {coverage_text(c)}, below {threshold(minimum)} "
            f"(--min-coverage)")
    if unseen:
        line += (f": {len(unseen)} of {c['operators']['with_cpp_kernels']} "
                 f"operators not fully seen: {names}")
    if remedies:
        line += "; to bring them in: " + "; ".join(remedies[:4])
    # Counted on the sources, kernels the build leaves out count against
    # it: on torch's registry (the built package importable) only what the
    # build compiles counts (torch-harmonics' CPU build: 28% here, 100%
    # there).
    not_built = any(not k["analysed"] and k.get("why") in (
        cov.NOT_IN_DATABASE, cov.LEFT_OUT)
        for o in c["by_operator"].values() for k in o["kernels"])
    if c.get("counted_from") == "index" and not_built and \
            (c.get("registry") or {}).get("not_read"):
        line += ("; or, for the build as it is, counted on torch's registry: "
                 "the built package importable (--env PYTHONPATH=DIR)")
    return 3, reasons, line


def print_summary(s, project):
    """The summary lines before the last one."""
    files = s["files_linted"]
    unparsed = sum(len(v) for v in s["did_not_parse"].values())
    print(f"\ntorch-tidy-project: {files} files, {unparsed} did not parse, "
          f"{sum(s['warnings'].values())} warnings, {s['seconds']:.0f} s")
    for cause, where in sorted(s["did_not_parse"].items(),
                               key=lambda c: -len(c[1])):
        print(f"  did not parse: {len(where)} x {cause} (e.g. {where[0]})")
    for check, n in sorted(s["warnings"].items()):
        print(f"  {n:5} {check}")
    classes = {}
    for f in s["findings"]:
        if f["class"]:
            classes[f["class"]] = classes.get(f["class"], 0) + 1
    if classes:
        print("  by class: " + ", ".join(f"{n} {c}" for c, n in
                                         sorted(classes.items())))
    py = s.get("python")
    if py and py.get("files"):
        if not py.get("compiling") and not py.get("not_linted_why"):
            print(f"  python: {py['files']} files mention torch, none compiles anything "
                  f"(torch.compile, .compile(), torch._dynamo): nothing for torch-tidy-py")
        elif py.get("not_linted_why"):
            print(f"  python: {py['files']} files that mention torch NOT linted: "
                  f"{py['not_linted_why']}")
        else:
            print(f"  python: {py['linted']} of {py['files']} files that mention torch "
                  f"linted by torch-tidy-py: {py['regions']} compiled regions, "
                  f"{py['warnings']} warnings ({py['fixes']} with a fix)" +
                  (f", {py['unmeasured']} writes of unmeasured forms not reported"
                   if py.get("unmeasured") else ""))
    skipped = s["files_skipped"]
    print(f"  files: {files} linted, {sum(skipped.values())} skipped" +
          "".join(f"; {n} {why}" for why, n in sorted(skipped.items())))
    idx = s["index"]
    if idx:
        keys = ", ".join(f"{k} {n}" for k, n in idx["kernels_by_key"].items())
        fakes = ", ".join(f"{n} {how}" for how, n in
                          idx["fakes_by_how"].items())
        print(f"  project: {idx['operators']} operators defined, "
              f"{idx['kernels']} kernels ({keys or 'none'}), "
              f"{idx['fakes']} fake registrations ({fakes or 'none'}); " +
              (f"{idx['disallowed_in_graph']} marked "
               f"torch._dynamo.disallow_in_graph; "
               if idx["disallowed_in_graph"] else "") +
              f"{idx['files_indexed']} C++, CUDA and Python files indexed" +
              (f" ({idx['build_files_indexed']} of them compiled by the "
               f"build in folders not walked: third_party/, build "
               f"folders, outside the root)"
               if idx.get("build_files_indexed") else ""))
    else:
        print("  project: the project index could not be read")
    c = s["coverage"]
    print(f"  {coverage_text(c)} (--min-coverage {threshold(c['minimum'])})")
    registry_lines(c)
    compiler_lines(c)
    for op, status, hints in cov.unseen(c)[:20]:
        print(f"    {op}: {status}; " + "; ".join(hints))
    if len(cov.unseen(c)) > 20:
        print(f"    ... {len(cov.unseen(c)) - 20} more (--json lists all)")
    outside = c["files"]["not_in_database"]
    if outside:
        print(f"    {len(outside)} of the project's C/C++/CUDA sources are in "
              f"no database entry (not counted: no kernel is registered or "
              f"defined there): " + ", ".join(outside[:5]) +
              (" ..." if len(outside) > 5 else ""))
    methods = c.get("custom_class_methods") or {}
    if methods.get("total"):
        unseen = [m for m, x in methods["methods"].items()
                  if not x["analysed"]]
        print(f"    {methods['total']} methods of TorchScript custom classes "
              f"(not operators, not counted): {methods['analysed']} "
              f"analysed" + (f"; not: " + ", ".join(unseen[:5]) +
                             (" ..." if len(unseen) > 5 else "")
                             if unseen else ""))
    no_kernel = [op for op, o in c["by_operator"].items()
                 if o["status"] == cov.NO_KERNEL]
    if no_kernel:
        where = (" in torch's registry (Python only, or kernels the build "
                 "did not compile)" if c.get("counted_from") == "registry"
                 else "")
        print(f"    {len(no_kernel)} operators have no C++ kernel{where} "
              f"(not counted): " + ", ".join(no_kernel[:6]) +
              (" ..." if len(no_kernel) > 6 else ""))
    python_kernels = c.get("python_kernels") or []
    if python_kernels:
        print(f"    {len(python_kernels)} operator"
              f"{'s have' if len(python_kernels) != 1 else ' has'} only Python "
              f"kernels, not analysed (their writes, and C code they reach "
              f"through ctypes, are not read; a custom_op's calls of "
              f"pybind11-bound C++ functions are): " +
              ", ".join(python_kernels[:4]) +
              (" ..." if len(python_kernels) > 4 else ""))
    print(f"  root: {s['root']}" +
          (f", {s['root_why']}" if s.get("root_why") else "") +
          " (schemas, kernels and fakes are read below it, by the checks "
          "and by this summary alike; --root sets it)")
    db = s["database"]
    print(f"  database: {db['path']} ({db['origin']})")
    for note in db["notes"]:
        print(f"    {note}")
    build = s.get("build")
    if build and build.get("variables_read"):
        print(f"  build reads: {', '.join(build['variables_read'])}" +
              (f"; given: {' '.join(f'{k}={v}' for k, v in build['env'].items())}"
               if build.get("env") else ""))
    torch_line = ", ".join(f"{v} (headers in {d})" for v, d in
                           sorted(db["libtorch"].items())) or \
        "none found in the database's include paths"
    print(f"  torch: LibTorch {torch_line}" +
          (f"; --python's torch {s['python_torch']}"
           if s.get("python_torch") else ""))
    t = s["torch_tidy"]
    print(f"  torch-tidy: {t['path']} (torch-tidy {t['version'] or 'unknown'}"
          f", LLVM {t['llvm'] or 'unknown'})")
