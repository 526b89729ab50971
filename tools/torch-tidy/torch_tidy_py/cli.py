"""torch-tidy-py: the seed in compiled Python. Reports, in clang-tidy's
diagnostic format, in-place writes into a tensor made without gradient
tracking from a value that may require grad, inside a torch.compile'd
function, where the code reads the tensor's requires_grad after the write:
torch.compile reads False there on the torch versions the message names
(measured: docs/ground-truth.json), where the uncompiled code reads True.

Exit status: 0 no warning, 1 warnings, 2 a file could not be read or
parsed (the others are still linted), or a bad option."""
import argparse
import sys

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


def message(write, lost, kept):
    from .analysis import REMEDY
    where = "; ".join(f"torch {v} ({', '.join(b)})" for v, b in lost)
    kept_text = f"; torch {', '.join(kept)} keeps it" if kept else ""
    reads = ", ".join(str(n) for n in sorted(set(write.flag_reads)))
    remedy = REMEDY.get(write.form)
    fix = (f"; write it out of place ({remedy}), which keeps the flag on every version "
           "and backend measured" if remedy else
           "; write it out of place (the view's out-of-place result scattered back)")
    return (f"in-place write into '{write.target}', made without gradient tracking, from a "
            f"value that may require grad, inside a compiled region: torch.compile reads "
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
    p.add_argument("--ground-truth", metavar="JSON", help=argparse.SUPPRESS)
    args = p.parse_args(argv)
    try:
        truth = GroundTruth(args.ground_truth)
    except GroundTruthError as e:
        print(f"torch-tidy-py: error: {e}", file=sys.stderr)
        return 2
    try:
        from .analysis import Analyzer, Project
    except ImportError as e:
        print(f"torch-tidy-py: error: {e}: the Python front end needs LibCST "
              "(pip install libcst)", file=sys.stderr)
        return 2
    import libcst as cst
    status = 0
    warnings = regions = unmeasured = 0
    # Every file parsed first: a region in one may reach functions of another.
    analyzers = []
    for path in args.files:
        try:
            with open(path, encoding="utf-8") as f:
                source = f.read()
            analyzers.append(Analyzer(source, path))
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
        for w in result.writes:
            if args.flag_read == "read" and not w.flag_reads:
                continue
            measured = claim(w, truth)
            if measured is None:
                unmeasured += 1
                continue
            lost, kept = measured
            if not lost:
                continue
            if args.min_torch and any(version_key(v) <= version_key(args.min_torch)
                                      for v in kept):
                continue
            warnings += 1
            print(f"{path}:{w.line}:{w.column}: warning: {message(w, lost, kept)} [{CHECK}]")
            print(f"{path}:{w.made_line}:{w.made_column}: note: '{w.target}' is made here by "
                  f"{w.factory}, which does not track gradients")
            fn = result.functions[w.function]
            print(f"{path}:{fn[0]}:{fn[1]}: note: '{w.function}' is compiled: "
                  f"{reasons[w.function]}")
    print(f"torch-tidy-py: {len(args.files)} file(s), {regions} compiled region(s), "
          f"{warnings} warning(s)" + (f"; {unmeasured} write(s) of a form or into a target "
                                      "whose making was not measured, not reported"
                                      if unmeasured else ""), file=sys.stderr)
    if status:
        return status
    return 1 if warnings else 0
