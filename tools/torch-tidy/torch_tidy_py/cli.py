"""torch-tidy-py: the seed in compiled Python. Reports, in clang-tidy's
diagnostic format, in-place writes into a tensor made without gradient
tracking from a value that may require grad, inside a torch.compile'd
function, where the code reads the tensor's requires_grad after the write:
torch.compile reads False there on the torch versions the message names
(measured: docs/ground-truth.json), where the uncompiled code reads True.

Fixes (--fix, --export-fixes) replace the write's statement by its
out-of-place form assigned to the tensor's name, through a rule of
RewriteRules.def (the C++ checks' table) whose Python form the text has;
each rule's fix is proven on real torch.compile by the python-fixes ctests.

Exit status: 0 no warning, 1 warnings, 2 a file could not be read or
parsed (the others are still linted; nothing is written into it), or a bad
option."""
import argparse
import os
import sys
import tempfile

from .ground_truth import GroundTruth, GroundTruthError, version_key

CHECK = "torch-compile-requires-grad-propagation"


def _parse_version(text):
    parts = text.split(".")
    if not 1 <= len(parts) <= 3 or not all(p.isdigit() for p in parts):
        raise argparse.ArgumentTypeError(f"'{text}' is not a torch version (like 2.9 or 2.15.0)")
    return text


def claim(write, truth):
    """(versions losing the flag with their backends, versions keeping it) for
    a write: its form and its target's making must each be measured, and a
    version loses it where every one of them lost it there. None where one
    of them was not measured."""
    if write.target_forms is None:
        return None
    forms = (write.form,) + tuple(write.target_forms)
    if not all(truth.measured(f) for f in forms):
        return None
    lost = dict(truth.losing(write.form))
    for f in write.target_forms:
        other = dict(truth.losing(f))
        lost = {v: b for v, b in lost.items() if v in other}
    kept = [v for v in truth.kept_on(write.form)
            if all(v in truth.kept_on(f) for f in write.target_forms)]
    return sorted(lost.items(), key=lambda kv: version_key(kv[0])), kept


def reported(writes, truth, flag_read="read", min_torch=None):
    """([(write, versions losing the flag, versions keeping it)] to report,
    the number of writes not reported because their form or target's making
    was not measured)."""
    out, unmeasured = [], 0
    for w in writes:
        if flag_read == "read" and not w.flag_reads:
            continue
        measured = claim(w, truth)
        if measured is None:
            unmeasured += 1
            continue
        lost, kept = measured
        if not lost:
            continue
        if min_torch and any(version_key(v) <= version_key(min_torch) for v in kept):
            continue
        out.append((w, lost, kept))
    return out, unmeasured


def message(write, lost, kept):
    from .analysis import REMEDY
    def backends(names):
        names = list(names)
        listed = names[0] if len(names) == 1 else ", ".join(names[:-1]) + " and " + names[-1]
        return f"the {listed} backend" + ("s" if len(names) > 1 else "")
    where = "; ".join(f"torch {v} with {backends(b)}" for v, b in lost)
    kept_text = f"; torch {', '.join(kept)} keeps it" if kept else ""
    reads = ", ".join(str(n) for n in sorted(set(write.flag_reads)))
    remedy = REMEDY.get(write.form)
    fix = (f"; write it out of place ({remedy}), which keeps the flag on every version "
           "and backend measured" if remedy else
           "; write it out of place (the view's out-of-place result scattered back)")
    source = f"'{write.source}', which" if write.source else "a value that"
    return (f"in-place write into '{write.target}', made without gradient tracking, from "
            f"{source} may require grad, inside a compiled region: torch.compile reads "
            f"'{write.target}.requires_grad' as False after it where uncompiled code reads "
            f"True (measured on {where}{kept_text})"
            + (f", and this code reads the flag (line {reads})" if reads else "") + fix)


def main(argv=None):
    p = argparse.ArgumentParser(prog="torch-tidy-py", description=__doc__,
                                formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("files", nargs="+", help="Python files to lint")
    p.add_argument("--flag-read", choices=("read", "any"), default="read",
                   help="read (default): report a write only where its function reads the "
                        "tensor's requires_grad after it; any: every such write (an audit)")
    p.add_argument("--min-torch", type=_parse_version, metavar="VERSION",
                   help="the oldest torch the project supports: forms every compiled backend "
                        "kept on a measured version no newer than it are not reported")
    p.add_argument("--list-regions", action="store_true",
                   help="also list every compiled region found, and why it is one (on "
                        "stderr), to see what was looked at")
    p.add_argument("--fix", action="store_true",
                   help="apply the fixes of the warnings to the files")
    p.add_argument("--export-fixes", metavar="YAML",
                   help="write the fixes of the warnings to YAML (clang-tidy's format, for "
                        "clang-apply-replacements)")
    p.add_argument("--ground-truth", metavar="JSON", help=argparse.SUPPRESS)
    p.add_argument("--rules", metavar="DEF", help=argparse.SUPPRESS)
    args = p.parse_args(argv)
    try:
        truth = GroundTruth(args.ground_truth)
    except GroundTruthError as e:
        print(f"torch-tidy-py: error: {e}", file=sys.stderr)
        return 2
    from .rules import Rules, RulesError
    try:
        rules = Rules(args.rules)
    except RulesError as e:
        print(f"torch-tidy-py: error: {e}", file=sys.stderr)
        return 2
    try:
        from .analysis import Analyzer, Project, check_rule_forms
    except ImportError as e:
        print(f"torch-tidy-py: error: {e}: the Python front end needs LibCST "
              "(pip install libcst)", file=sys.stderr)
        return 2
    import libcst as cst
    status = 0
    warnings = regions = unmeasured = 0
    fixes = []  # (path, write, message)
    # Every file parsed first: a region in one may reach functions of another.
    analyzers = []
    sources = {}
    for path in args.files:
        try:
            with open(path, encoding="utf-8", newline="") as f:
                source = f.read()
            analyzers.append(Analyzer(source, path))
            sources[path] = source
        except (OSError, UnicodeDecodeError) as e:
            print(f"{path}: error: cannot read: {e}", file=sys.stderr)
            status = 2
        except cst.ParserSyntaxError as e:
            print(f"{path}:{e.raw_line}:{e.raw_column + 1}: error: cannot parse: "
                  f"{e.message} (nothing reported for this file)", file=sys.stderr)
            status = 2
        except Exception as e:  # a bug of ours: say so, lint the other files
            print(f"{path}: error: torch-tidy-py failed on this file ({type(e).__name__}: "
                  f"{e}); nothing reported for it; please report this", file=sys.stderr)
            status = 2
    try:
        project_regions = Project(analyzers).regions()
    except Exception as e:
        print(f"torch-tidy-py: error: following calls across the files failed "
              f"({type(e).__name__}: {e}); each file is linted alone; please report this",
              file=sys.stderr)
        status = 2
        project_regions = {}
    for analyzer in analyzers:
        path = analyzer.path
        try:
            result = analyzer.analyse(project_regions.get(path))
        except Exception as e:  # a bug of ours: say so, lint the other files
            print(f"{path}: error: torch-tidy-py failed on this file ({type(e).__name__}: "
                  f"{e}); nothing reported for it; please report this", file=sys.stderr)
            status = 2
            continue
        regions += len(result.regions)
        reasons = dict(result.regions)
        if args.list_regions:
            for name, why in result.regions:
                line, col = result.functions[name]
                print(f"{path}:{line}:{col}: note: '{name}' is compiled: {why}",
                      file=sys.stderr)
        check_rule_forms(result.writes, rules)
        shown, skipped = reported(result.writes, truth, args.flag_read, args.min_torch)
        unmeasured += skipped
        for w, lost, kept in shown:
            warnings += 1
            print(f"{path}:{w.line}:{w.column}: warning: {message(w, lost, kept)} [{CHECK}]")
            print(f"{path}:{w.made_line}:{w.made_column}: note: '{w.target}' is made here by "
                  f"{w.factory}, which does not track gradients")
            fn = result.functions[w.function]
            print(f"{path}:{fn[0]}:{fn[1]}: note: '{w.function}' is compiled: "
                  f"{reasons[w.function]}")
            if w.fix_rule:
                (line, col), _ = w.fix_range
                print(f"{path}:{line}:{col}: note: rule: {w.fix_rule}; the fix writes "
                      f"'{w.fix_text}'")
                w.fix_layout = layout(w.fix_text, col - 1, sources[path])
                fixes.append((path, w, message(w, lost, kept)))
            else:
                print(f"{path}:{w.line}:{w.column}: note: no fix: {w.no_fix}")
    print(f"torch-tidy-py: {len(args.files)} file(s), {regions} compiled region(s), "
          f"{warnings} warning(s), {len(fixes)} with a fix"
          + (f"; {unmeasured} write(s) of a form or into a target "
             "whose making was not measured, not reported" if unmeasured else ""),
          file=sys.stderr)
    if args.export_fixes:
        try:
            export_fixes(args.export_fixes, fixes, sources)
        except OSError as e:
            print(f"torch-tidy-py: error: cannot write {args.export_fixes}: {e}",
                  file=sys.stderr)
            status = 2
    if args.fix:
        for path in sorted({f[0] for f in fixes}):
            done = apply_fixes(path, sources[path], [w for p_, w, _ in fixes if p_ == path])
            if done is None:
                status = 2
            else:
                print(f"torch-tidy-py: {path}: {done} fix(es) applied", file=sys.stderr)
    if status:
        return status
    return 1 if warnings else 0


def _offset(source, line, column):
    """The character offset of (line, column), both from 1."""
    lines = source.splitlines(keepends=True)
    return sum(len(x) for x in lines[:line - 1]) + column - 1


def layout(text, indent, source):
    """The fix laid out like the file: on one line where it fits the file's
    longest line (at least 79 columns, PEP 8's), else its arguments on the
    next line, indented four more than the statement (a hanging indent)."""
    limit = max([79] + [len(x) for x in source.splitlines()])
    if indent + len(text) <= limit:
        return text
    at = text.index("(", text.index(" = ") + 3) + 1
    return text[:at] + "\n" + " " * (indent + 4) + text[at:]


def _edits(source, writes):
    """[(start, end, text)] in characters, last first; None if two overlap."""
    edits = sorted(((_offset(source, *w.fix_range[0]), _offset(source, *w.fix_range[1]),
                     w.fix_layout) for w in writes), reverse=True)
    for (s1, _, _), (_, e2, _) in zip(edits, edits[1:]):
        if e2 > s1:
            return None
    return edits


def apply_fixes(path, source, writes):
    """Rewrites path with the fixes (all or none): the number applied, or
    None (said on stderr) where they overlap, the file changed since it was
    read, or the result would not parse."""
    import libcst as cst
    edits = _edits(source, writes)
    if edits is None:
        print(f"{path}: error: fixes overlap; nothing written", file=sys.stderr)
        return None
    text = source
    for start, end, new in edits:
        text = text[:start] + new + text[end:]
    try:
        cst.parse_module(text)
    except cst.ParserSyntaxError as e:
        print(f"{path}: error: the fixed file would not parse ({e.message}); nothing "
              "written; please report this", file=sys.stderr)
        return None
    try:
        with open(path, encoding="utf-8", newline="") as f:
            if f.read() != source:
                print(f"{path}: error: the file changed while it was linted; nothing written",
                      file=sys.stderr)
                return None
        mode = os.stat(path).st_mode & 0o7777
        fd, tmp = tempfile.mkstemp(dir=os.path.dirname(os.path.abspath(path)),
                                   prefix=".torch-tidy-py-")
        with os.fdopen(fd, "w", encoding="utf-8", newline="") as f:
            f.write(text)
        os.chmod(tmp, mode)
        os.replace(tmp, path)
    except OSError as e:
        print(f"{path}: error: cannot write the fixes: {e}", file=sys.stderr)
        return None
    return len(edits)


def _yaml(text):
    return "'" + text.replace("'", "''") + "'"


def export_fixes(out, fixes, sources):
    """clang-tidy's export format: one diagnostic per warning with its
    replacement (byte offsets) and its `rule: <id>` note."""
    lines = ["---", "MainSourceFile:  ''", "Diagnostics:"]
    for path, w, msg in fixes:
        source = sources[path]
        full = os.path.abspath(path)
        start = _offset(source, *w.fix_range[0])
        end = _offset(source, *w.fix_range[1])
        at = len(source[:_offset(source, w.line, w.column)].encode("utf-8"))
        offset = len(source[:start].encode("utf-8"))
        length = len(source[start:end].encode("utf-8"))
        lines += [f"  - DiagnosticName:  {CHECK}",
                  "    DiagnosticMessage:",
                  f"      Message:         {_yaml(msg)}",
                  f"      FilePath:        {_yaml(full)}",
                  f"      FileOffset:      {at}",
                  "      Replacements:",
                  f"        - FilePath:        {_yaml(full)}",
                  f"          Offset:          {offset}",
                  f"          Length:          {length}",
                  f"          ReplacementText: {_yaml(w.fix_layout)}",
                  "    Notes:",
                  f"      - Message:         {_yaml('rule: ' + w.fix_rule)}",
                  f"        FilePath:        {_yaml(full)}",
                  f"        FileOffset:      {offset}",
                  "        Replacements:    []",
                  "    Level:           Warning",
                  f"    BuildDirectory:  {_yaml(os.getcwd())}"]
    if not fixes:
        lines[-1] = "Diagnostics:     []"
    lines.append("...")
    with open(out, "w") as f:
        f.write("\n".join(lines) + "\n")
