"""torch-tidy-py: the seed in compiled Python. Reports, in clang-tidy's
diagnostic format, in-place writes into a tensor made without gradient
tracking from a value that may require grad, inside a torch.compile'd
function, after which the tensor's stale requires_grad is read: by the code
(requires_grad, grad_fn, is_leaf), or by Dynamo where the tensor, or a value
computed from it, reaches a custom autograd.Function's apply (its backward
dropped, or a None gradient). Each claim is the measured table's
(docs/ground-truth.json): the torch versions and backends it names.

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

from .ground_truth import GroundTruth, GroundTruthError

CHECK = "torch-compile-requires-grad-propagation"


def _parse_version(text):
    parts = text.split(".")
    if not 1 <= len(parts) <= 3 or not all(p.isdigit() for p in parts):
        raise argparse.ArgumentTypeError(f"'{text}' is not a torch version (like 2.9 or 2.15.0)")
    return text


def main(argv=None):
    p = argparse.ArgumentParser(prog="torch-tidy-py", description=__doc__,
                                formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("files", nargs="*", help="Python files to lint (all the files of a "
                   "package, so that calls across them are followed)")
    p.add_argument("--flag-read", choices=("read", "any"), default=None,
                   help="read (default): report a write only where the stale flag is read "
                        "after it (by this code, or by Dynamo at an autograd.Function's "
                        "apply); any: every such write (an audit)")
    p.add_argument("--min-torch", type=_parse_version, metavar="VERSION",
                   help="the oldest torch the project supports: forms every compiled backend "
                        "kept on a measured version no newer than it are not reported")
    p.add_argument("--compiled", action="append", metavar="NAME", default=None,
                   help="a class (its forward), function or method the project compiles "
                        "where this run cannot see it (repeat it; adds to the "
                        "configuration's compiled)")
    p.add_argument("--config", metavar="FILE",
                   help="read [tool.torch-tidy-py] from FILE (default: the nearest "
                        "pyproject.toml above the files that has one)")
    p.add_argument("--no-config", action="store_true", help="read no configuration file")
    p.add_argument("--dump-config", action="store_true",
                   help="print the configuration this run would use, and exit")
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
    from .config import Config, ConfigError, find, load
    try:
        source = None if args.no_config else (args.config or find(args.files))
        config = load(source, _parse_version) if source else Config()
    except ConfigError as e:
        print(f"torch-tidy-py: error: {e}", file=sys.stderr)
        return 2
    if args.flag_read:
        config.flag_read = args.flag_read
    if args.min_torch:
        config.min_torch = args.min_torch
    config.compiled += args.compiled or []
    if args.dump_config:
        sys.stdout.write(config.dump())
        return 0
    if not args.files:
        p.error("no files given")
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
        from .analysis import Analysis, check_rule_forms
        from .claims import message, reported
        from .definitions import PythonFile
    except ImportError as e:
        print(f"torch-tidy-py: error: {e}: the Python front end needs LibCST, which "
              f"{sys.executable} does not have: pip install libcst for it, or set "
              "TORCH_TIDY_PYTHON to a Python that has it", file=sys.stderr)
        return 2
    import libcst as cst
    status = 0
    warnings = regions = unmeasured = 0
    fixes = []  # (path, write, message)
    # Every file parsed first: a region in one may reach functions of another.
    files, sources = [], {}
    for path in args.files:
        try:
            with open(path, encoding="utf-8", newline="") as f:
                text = f.read()
            files.append(PythonFile(text, path))
            sources[path] = text
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
    analysis = Analysis(files, config.compiled)
    try:
        results = analysis.run()
    except Exception as e:  # a bug of ours: say so, lint each file alone
        print(f"torch-tidy-py: error: following calls across the files failed "
              f"({type(e).__name__}: {e}); each file is linted alone; please report this",
              file=sys.stderr)
        status = 2
        results = {}
        for f in files:
            try:
                results[f.path] = Analysis([f], config.compiled).run()[f.path]
            except Exception as e:
                print(f"{f.path}: error: torch-tidy-py failed on this file "
                      f"({type(e).__name__}: {e}); nothing reported for it; please report "
                      "this", file=sys.stderr)
    if args.list_regions:
        for f, node, why in analysis.project.not_regions:
            print(f"{f.path}:{f.line(node)}:{f.column(node)}: note: not a region: {why}",
                  file=sys.stderr)
    for f in files:
        path = f.path
        result = results.get(path)
        if result is None:
            continue
        regions += len(result.regions)
        reasons = dict(result.regions)
        if args.list_regions:
            for name, why in result.regions:
                line, col = result.functions[name]
                print(f"{path}:{line}:{col}: note: '{name}' is compiled: {why}",
                      file=sys.stderr)
        check_rule_forms(result.writes, rules)
        shown, skipped = reported(result.writes, truth, config.flag_read, config.min_torch)
        unmeasured += skipped
        for w, consumer, lost, kept in shown:
            warnings += 1
            text = message(w, lost, kept, consumer)
            print(f"{path}:{w.line}:{w.column}: warning: {text} [{CHECK}]")
            print(f"{path}:{w.made_line}:{w.made_column}: note: '{w.target}' is made here by "
                  f"{w.factory}, which does not track gradients")
            fn = result.functions[w.function]
            print(f"{path}:{fn[0]}:{fn[1]}: note: '{w.function}' is compiled: "
                  f"{reasons[w.function]}")
            if consumer is not None and (consumer.kind != "flag" or
                                         consumer.path != path or
                                         consumer.function != w.function):
                what = {"flag": f"a read of {consumer.attribute}",
                        "collective": consumer.callee}.get(consumer.kind,
                                                           f"'{consumer.callee}.apply'")
                print(f"{consumer.path}:{consumer.line}:{consumer.column}: note: the stale flag "
                      f"reaches {what} here, in '{consumer.function}'")
            if w.fix_rule:
                (line, col), _ = w.fix_range
                print(f"{path}:{line}:{col}: note: rule: {w.fix_rule}; the fix writes "
                      f"'{w.fix_text}'")
                if w.fix_note:
                    print(f"{path}:{line}:{col}: note: {w.fix_note}")
                start, end, first = w.fix_edits[0]
                w.fix_edits[0] = (start, end, layout(first, col - 1, sources[path]))
                fixes.append((path, w, text))
            else:
                print(f"{path}:{w.line}:{w.column}: note: no fix: {w.no_fix}")
    print(f"torch-tidy-py: {len(args.files)} file(s), {regions} compiled region(s), "
          f"{warnings} warning(s), {len(fixes)} with a fix"
          + (f"; {unmeasured} write(s) of a form, into a target or read in a way "
             "that was not measured, not reported" if unmeasured else ""),
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
    """The fix laid out like the file: each line where it fits the file's
    longest line (at least 79 columns, PEP 8's), else its arguments on the
    next line, indented four more than the statement (a hanging indent)."""
    limit = max([79] + [len(x) for x in source.splitlines()])
    first, newline, rest = text.partition("\n")
    if indent + len(first) > limit:
        at = first.index("(", first.index(" = ") + 3) + 1
        first = first[:at] + "\n" + " " * (indent + 4) + first[at:]
    return first + newline + rest


def _edits(source, writes):
    """[(start, end, text)] in characters, last first; None if two overlap."""
    edits = sorted(((_offset(source, *s), _offset(source, *e), t)
                    for w in writes for s, e, t in w.fix_edits), reverse=True)
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
    return len(writes)


def _yaml(text):
    return "'" + text.replace("'", "''") + "'"


def export_fixes(out, fixes, sources):
    """clang-tidy's export format: one diagnostic per warning with its
    replacements (byte offsets) and its `rule: <id>` note."""
    lines = ["---", "MainSourceFile:  ''", "Diagnostics:"]
    for path, w, msg in fixes:
        source = sources[path]
        full = os.path.abspath(path)
        at = len(source[:_offset(source, w.line, w.column)].encode("utf-8"))
        first = len(source[:_offset(source, *w.fix_range[0])].encode("utf-8"))
        lines += [f"  - DiagnosticName:  {CHECK}",
                  "    DiagnosticMessage:",
                  f"      Message:         {_yaml(msg)}",
                  f"      FilePath:        {_yaml(full)}",
                  f"      FileOffset:      {at}",
                  "      Replacements:"]
        for s, e, text in w.fix_edits:
            start, end = _offset(source, *s), _offset(source, *e)
            lines += [f"        - FilePath:        {_yaml(full)}",
                      f"          Offset:          {len(source[:start].encode('utf-8'))}",
                      f"          Length:          {len(source[start:end].encode('utf-8'))}",
                      f"          ReplacementText: {_yaml(text)}"]
        lines += ["    Notes:",
                  f"      - Message:         {_yaml('rule: ' + w.fix_rule)}",
                  f"        FilePath:        {_yaml(full)}",
                  f"        FileOffset:      {first}",
                  "        Replacements:    []",
                  "    Level:           Warning",
                  f"    BuildDirectory:  {_yaml(os.getcwd())}"]
    if not fixes:
        lines[-1] = "Diagnostics:     []"
    lines.append("...")
    with open(out, "w") as f:
        f.write("\n".join(lines) + "\n")
