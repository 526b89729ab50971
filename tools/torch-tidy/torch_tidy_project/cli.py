"""torch-tidy-project: lint every file of a LibTorch operator library in one
command, and say what happened, including what it did not see."""
import argparse
import json
import os
import re
import shutil
import sys
import time
from collections import Counter

from . import cache as file_cache
from . import cmake_guards
from . import coverage as cov
from . import (database, index, pruning, pyproject, python_files, recorder,
               registry, report, running, sarif, shards, torchenv)
from .common import (ProjectError, log, read_text, rel, scratch_dir,
                     write_json)

DESCRIPTION = """\
The compile database, in this order:
  - --database PATH, as it is;
  - the project's own compile_commands.json (in DIR or DIR/build), as it is,
    named with its age; one that torch-tidy-cdb wrote there is named and not
    used (--database make skips both);
  - made from the project's build, into ROOT/.torch-tidy/ (the only place
    this tool writes to in the project's tree; ROOT below):
    a pyproject.toml whose backend drives CMake (scikit-build-core, or a
      project's own): its build_wheel runs with `cmake` recording the
      configure it computes (cmake.source-dir, cmake.args, cmake.define and
      whatever the backend adds); CMake then configures with those options;
    a setup.py: run with setup() recording its extensions (CppExtension /
      CUDAExtension sources and flags), and, for extensions it builds with
      CMake, its build_ext with `cmake` recording the options it computes;
    a CMakeLists.txt alone: configured.
    CMake configures for the compile database only (nothing is built), with
    the torch of --python; where torch's CMake package fails (a CUDA
    toolchain the project does not need), with torch-tidy's stand-in for it
    (torch's headers and flags only); where configure still fails, from the
    project's CMake sources and include directories (said so).
  --env VAR=VALUE reaches setup.py, the build backend and CMake; their
  output is kept in ROOT/.torch-tidy/. Their git commands that would change
  the tree or .git, or fetch, are refused, and what their Python writes into
  the tree is kept in ROOT/.torch-tidy/ instead (the summary names both).
nvcc entries become clang CUDA entries (host side). Every database is
checked for the LibTorch its include paths name; with --python, one made
for another torch is refused unless --allow-torch-mismatch.

The project root ROOT (--root; default: DIR where it holds .git, setup.py or
pyproject.toml, else the nearest parent up to the git repository's top with
a Python build: a setup.py, or a pyproject.toml that declares
[build-system]; else DIR) is where the checks and the summary alike read
schemas, kernels and fakes; the summary says why it is the root.

Only the files where an enabled check can warn are linted (--all-files:
every file). The summary says, per operator, whether its C++ kernels were
analysed, and if not why (no C++ kernel; kernel file not in the database;
left out by the build's configuration; not parsed; not linted) and what
would bring them in. Coverage is the share of C++ kernels analysed and of
linted files that parsed, the lower of the two. Where the project's package
imports in --python's environment (CI built it), the kernels counted are
those torch's dispatcher registry holds for the project's operators
(--registry): one the sources register that the build did not compile
counts for nothing, one the index did not read is never analysed, and every
difference between the two is named.

Each linted file's result is kept in ROOT/.torch-tidy/cache/, keyed by the
file and every header clang read for it, its compile command, torch-tidy,
the check configuration and the project index facts its checks read; a
later run lints again only the files whose key changed and replays the
others (--no-cache: lint every file, keep nothing). --shard K/N lints the
K-th of N shares of the files, for a CI matrix; `torch-tidy-project merge
SHARD.json...` then gives the whole run's result and exit status (a shard
alone exits 4 after a complete run: it read a share of the project, so its
status is no verdict). docs/incremental.md says more.

Exit status: 0 when nothing is reported; 1 when a check warned (or, with
--fail-on errors, a file did not parse); 3 when coverage is below
--min-coverage (default 0.9), whatever the checks said; 2 when the project
cannot be linted. --fail-on lists what fails a run (default:
warnings,coverage; 'errors' adds files that did not parse; 'never' always
exits 0 after a complete run). The last line says the result and why.
"""


# The exit status of a shard's complete run (--shard K/N).
SHARD_EXIT = 4


def find_root(project):
    """(the project root, why it is). The project directory, where it holds
    .git, setup.py or pyproject.toml; else the nearest parent, up to the git
    repository's top and below the home folder, whose Python build (a
    setup.py, or a pyproject.toml that declares [build-system]) may build
    the directory's code (a CMake folder of a Python package); else the
    project directory. A pyproject.toml with no build system (a formatter's
    settings) moves nothing."""
    markers = (".git", "setup.py", "pyproject.toml")
    held = [m for m in markers if os.path.exists(os.path.join(project, m))]
    if held:
        return project, f"the project directory (it holds {held[0]})"
    home = os.path.expanduser("~")
    passed = []
    d = project
    while True:
        parent = os.path.dirname(d)
        # Never the file system's root or the home folder: a stray
        # ~/pyproject.toml does not make the whole home the project.
        if parent == d or parent == home:
            break
        d = parent
        if os.path.exists(os.path.join(d, "setup.py")):
            return d, (f"the Python package above the project directory "
                       f"({rel(os.path.join(d, 'setup.py'), project)})")
        if os.path.exists(os.path.join(d, "pyproject.toml")):
            if pyproject.declares_build(d):
                return d, (f"the Python package above the project directory "
                           f"({rel(os.path.join(d, 'pyproject.toml'), project)}"
                           f" declares a build)")
            passed.append(os.path.join(d, "pyproject.toml"))
        if os.path.exists(os.path.join(d, ".git")):
            break
    why = "the project directory (no Python build above it"
    if passed:
        why += "; " + ", ".join(rel(p, project) for p in passed) + \
            " declares no [build-system]"
    return project, why + ")"


def parse_args(argv):
    p = argparse.ArgumentParser(
        prog="torch-tidy-project", description=DESCRIPTION,
        formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("file_regex", nargs="?", default="",
                   help="lint only the entries whose path matches")
    p.add_argument("-p", dest="project", default=".",
                   help="the project directory (default: .)")
    p.add_argument("--root", help="the project root, where schemas, kernels "
                   "and fakes are read (default: the project directory, or "
                   "the Python package a CMake folder is part of)")
    p.add_argument("--python", default=None,
                   help="the Python whose torch builds the project (default: "
                   "python3, not checked)")
    p.add_argument("--env", action="append", default=[], metavar="VAR=VALUE",
                   help="an environment variable for setup.py, the build "
                   "backend and CMake (repeatable)")
    p.add_argument("-D", dest="define", action="append", default=[],
                   metavar="VAR=VALUE",
                   help="a CMake cache entry for the configure step "
                   "(repeatable)")
    p.add_argument("--cmake", help="the cmake to configure with (default: "
                   "PATH's, else the project's Python environment's, the "
                   "first new enough)")
    p.add_argument("--database", default="auto", metavar="PATH|make",
                   help="the compile database to lint with, or 'make' to "
                   "make one from the build even where the project has one")
    p.add_argument("--no-build-isolation", action="store_true",
                   help="run setup.py or the build backend in --python as "
                   "it is; by default pyproject.toml's [build-system] "
                   "requires that --python lacks are installed (with its "
                   "pip) in .torch-tidy/build-env/, beside --python's "
                   "packages and its torch, as pip's isolated build does")
    p.add_argument("--cuda-path", help="the CUDA toolkit for the .cu "
                   "sources of a database torch-tidy writes itself (a "
                   "setup.py's extensions, a CMake project's sources)")
    p.add_argument("-j", dest="jobs", type=int, default=os.cpu_count() or 1)
    p.add_argument("--checks", default="-*,torch-*",
                   help="the checks (default: -*,torch-*)")
    p.add_argument("--fail-on", default="warnings,coverage",
                   help="what fails the run, comma-separated: warnings, "
                   "errors (implies warnings), coverage; or never (default: "
                   "warnings,coverage)")
    p.add_argument("--min-coverage", type=float, default=0.9,
                   help="the share of C++ kernels analysed and linted files "
                   "parsed below which the run fails (default: 0.9; 0 turns "
                   "it off)")
    p.add_argument("--allow-torch-mismatch", action="store_true",
                   help="lint a database made for another torch than "
                   "--python's")
    p.add_argument("--json", metavar="FILE",
                   help="also write the result as JSON to FILE "
                   "(docs/torch-tidy-project.schema.json)")
    p.add_argument("--other-framework-ops", action="store_true",
                   help="lint files that register another framework's "
                        "operators (TensorFlow REGISTER_OP/OpKernel, JAX FFI, "
                        "Paddle PD_BUILD_OP) and mention nothing of torch's; "
                        "by default they are counted apart, not linted")
    p.add_argument("--all-files", action="store_true",
                   help="lint every file of the database, also those where "
                   "no enabled check can warn")
    p.add_argument("--sarif", metavar="FILE",
                   help="also write the findings as one SARIF 2.1.0 log")
    p.add_argument("--no-cache", action="store_true",
                   help="lint every file afresh, reading and keeping no "
                   "cached result")
    p.add_argument("--shard", metavar="K/N",
                   help="lint only the K-th of N shares of the files (CI "
                   "matrices; combine with `torch-tidy-project merge`)")
    p.add_argument("--shard-times", metavar="JSON",
                   help="balance the shares by the per-file times of an "
                   "earlier run's --json (default: by file size)")
    p.add_argument("--registry", default="auto", metavar="auto|off|MODULE",
                   help="read torch's dispatcher registry after importing "
                   "the project's package in --python's environment, and "
                   "count coverage on it: 'auto' tries the project's own "
                   "packages (folders with __init__.py at the root or under "
                   "src/), MODULE[,MODULE] names them (then one that does "
                   "not import is an error), 'off' reads only the sources "
                   "(default: auto)")
    p.add_argument("--python-files", default="auto", choices=("auto", "on", "off"),
                   help="lint the project's Python files that mention torch "
                   "with torch-tidy-py in the same run and report: 'auto' "
                   "where LibCST imports in this Python or --python's, and "
                   "says so where it does not; 'on' makes that an error; "
                   "'off' (default: auto)")
    p.add_argument("--torch-tidy", help="the torch-tidy binary")
    args = p.parse_args(argv)
    args.shard_k = args.shard_n = None
    if args.shard:
        try:
            args.shard_k, args.shard_n = shards.parse(args.shard)
        except ValueError as e:
            p.error(str(e))
    elif args.shard_times:
        p.error("--shard-times needs --shard K/N")
    if args.jobs < 1:
        p.error("-j must be at least 1")
    if not 0 <= args.min_coverage <= 1:
        p.error("--min-coverage must be a share between 0 and 1")
    try:
        args.pattern = re.compile(args.file_regex)
    except re.error as e:
        p.error(f"bad FILE_REGEX: {e}")
    fail_on = {x.strip() for x in args.fail_on.split(",") if x.strip()}
    bad = fail_on - {"warnings", "errors", "coverage", "never"}
    if bad or not fail_on or ("never" in fail_on and len(fail_on) > 1):
        p.error(f"--fail-on {args.fail_on}: expected a comma-separated list "
                f"of warnings, errors, coverage, or never")
    if "errors" in fail_on:
        fail_on.add("warnings")
    args.fail_on = fail_on
    args.defines = {}
    for d in args.define:
        name, eq, value = d.partition("=")
        name = name.split(":")[0]
        if not eq or not re.match(r"^[A-Za-z_][\w]*$", name):
            p.error(f"-D {d}: expected VAR=VALUE")
        args.defines[name] = value
    try:
        args.environ = recorder.environment(args.env)
    except ValueError as e:
        p.error(str(e))
    # Paths given relative to here are run from other folders.
    if args.cuda_path:
        args.cuda_path = os.path.abspath(args.cuda_path)
    if args.cmake:
        args.cmake = os.path.abspath(args.cmake) if os.sep in args.cmake \
            else shutil.which(args.cmake) or args.cmake
    if args.database not in ("auto", "make"):
        args.database = os.path.abspath(args.database)
    return args


def main(argv=None, here=None):
    argv = sys.argv[1:] if argv is None else argv
    if argv[:1] == ["merge"]:
        return shards.main(argv[1:], main)
    args = parse_args(argv)
    try:
        return run(args, here or os.path.dirname(os.path.abspath(__file__)))
    except ProjectError as e:
        print(f"torch-tidy-project: {e}", file=sys.stderr, flush=True)
        _write_error_outputs(args, str(e))
        return 2


def _write_error_outputs(args, message):
    """--json and --sarif of a run the project stopped (exit 2): CI that
    reads them finds the error, not a missing file or a clean log."""
    if not (args.json or args.sarif):
        return
    project = os.path.abspath(args.project)
    root = os.path.abspath(args.root) if args.root else (
        find_root(project)[0] if os.path.isdir(project) else project)
    last = f"torch-tidy-project: ERROR: {message}"
    summary = {
        "schema": report.SCHEMA,
        "result": {"exit_status": 2, "failed_on": ["error"],
                   "last_line": last},
        "error": message, "project": project, "root": root,
        "options": {"checks": args.checks, "fail_on": sorted(args.fail_on),
                    "min_coverage": args.min_coverage}}
    try:
        if args.json:
            write_json(args.json, summary)
        if args.sarif:
            write_json(args.sarif, sarif.log(summary))
    except (OSError, ProjectError) as e:
        print(f"torch-tidy-project: the error's --json/--sarif could not "
              f"be written ({e})", file=sys.stderr, flush=True)


def run(args, here):
    project, root, root_why = _folders(args)
    tidy, own_version, llvm_version = _torch_tidy(args, here)
    log(f"torch-tidy is {tidy} (torch-tidy {own_version or 'unknown'}, LLVM "
        f"{llvm_version or 'unknown'}); project root {root}: {root_why}")
    torch_info = _python_torch(args, root)
    start = time.time()
    index_json = index.load(tidy, root)
    if index_json is None:
        # Without it no file would be known to register an operator: a run
        # that prunes on nothing and measures nothing must not pass.
        raise ProjectError(f"the project index of {root} could not be read "
                           f"({tidy} --project-index={root} failed)")
    db = database.obtain(argparse.Namespace(
        project=project, root=root, python=args.python, env=args.environ,
        defines=args.defines, cmake=args.cmake, database=args.database,
        cuda_path=args.cuda_path, torch=torch_info,
        operator_files=index.registering_files(index_json),
        build_isolation=not args.no_build_isolation))
    _check_torch(args, db, torch_info, project)
    tidy_env = dict(args.environ, TORCH_TIDY_PROJECT_ROOT=root)
    # The build's files the walk of the root does not read (vendored code
    # under third_party/, sources the build generates in its build folder):
    # indexed too, by this summary and by the checks alike.
    build_files = index.write_build_files(
        [os.path.join(e["directory"], e["file"]) for e in db.entries],
        scratch_dir(root, "index"))
    if build_files:
        tidy_env["TORCH_TIDY_PROJECT_FILES"] = build_files
        again = index.load(tidy, root, tidy_env)
        if again is not None:
            index_json = again
    reg, reg_why = _registry(args, root, index_json, torch_info,
                             getattr(db.build, "packages", None))

    files, skipped, regex_skipped, entries = _files_of(db, args)
    if reg is not None:
        # What the operators register, as torch's registry holds it: the
        # checks' consequence classes read it.
        tidy_env["TORCH_TIDY_PROJECT_REGISTRY"] = registry.write_sites(
            reg, index_json, root, scratch_dir(root, "registry"))
    candidates = files
    if not args.all_files:
        files = _prune(tidy, args.checks, project, files, index_json,
                       tidy_env, skipped)
    every = files
    if args.shard:
        times = shards.earlier_times(args.shard_times) \
            if args.shard_times else None
        files = shards.partition(files, root, args.shard_n,
                                 times)[args.shard_k - 1]
        log(f"shard {args.shard_k}/{args.shard_n}: {len(files)} of "
            f"{len(every)} files (balanced by "
            f"{'--shard-times' if times else 'file size'})")
    scratch = scratch_dir(root, "run")
    results, cache_info = _lint_with_cache(
        args, tidy, files, entries, tidy_env, scratch, project, root,
        index_json, db, llvm_version)
    warnings, findings, unparsed, causes = _read(
        files, results, running.find_sarif(tidy), scratch, root, llvm_version)
    configuration = running.configuration_problems(results, root)
    for problem in configuration:
        log(f"configuration: {problem['file']} cannot be read by the bundled "
            f"clang-tidy ({problem['error']}); {problem['files']} file(s) "
            f"under it were linted without it, the torch checks with their "
            f"defaults")
    # The project's Python (torch-tidy-py), once per run: by the first
    # shard in a sharded one.
    py_info = None
    if not args.shard or args.shard_k == 1:
        py_warnings, py_findings, py_unparsed, py_info = python_files.lint(
            args.python_files, args.python, root, scratch,
            running.find_sarif(tidy))
        warnings.update(py_warnings)
        findings += py_findings
        for cause, where in py_unparsed.items():
            unparsed.setdefault(cause, []).extend(where)
    seconds = time.time() - start

    # A shard counts every file of the run as linted: the others are the
    # other shards' to parse (the merge adds what they found).
    linted = {os.path.realpath(f) for f in every}
    # What the files that parsed included: a kernel in a header of the
    # project's is analysed where one of them includes it.
    included = {os.path.realpath(p) for f in files
                if os.path.realpath(f) not in causes
                for p in (results[f].deps or [])}
    # What the files that parsed register, as the compiler saw them.
    harvests = [results[f].harvest for f in files
                if os.path.realpath(f) not in causes and results[f].harvest]
    # The database's files the compiler did not read, by why (a shard says
    # so for its own files; the merge unites them).
    kept = set(every)
    unread = {cov.NOT_READ_PRUNED: [f for f in candidates if f not in kept],
              cov.NOT_READ_REGEX: sorted(regex_skipped),
              cov.NOT_READ_UNPARSED: [f for f in files
                                      if os.path.realpath(f) in causes],
              cov.NOT_READ_NO_CHECK: [
                  f for f in files if os.path.realpath(f) not in causes
                  and not results[f].harvest]}
    c = _coverage(args, db, index_json, root, linted, causes, regex_skipped,
                  reg, reg_why, included, harvests, unread,
                  (torch_info or {}).get("namespaces"))
    if args.shard:
        c["files"]["linted"] = len(files)
        c["files"]["parsed"] = len(files) - len(causes)
    code, reasons, last = report.verdict(
        args.fail_on, warnings, sum(len(v) for v in unparsed.values()), c,
        args.min_coverage)
    code, reasons, last = python_files.gate(code, reasons, last, py_info,
                                            args.fail_on)
    summary = {
        "schema": report.SCHEMA,
        "result": {"exit_status": code, "failed_on": reasons,
                   "last_line": last},
        "project": project,
        "root": root,
        "root_why": root_why,
        "files_linted": len(files),
        "files_skipped": dict(skipped),
        "did_not_parse": unparsed,
        "configuration": configuration,
        "warnings": dict(sorted(warnings.items())),
        "findings": sorted(findings, key=report.finding_order),
        "coverage": c,
        "seconds": round(seconds, 1),
        "index": index.project_index(index_json, linted, set(causes)),
        "database": db.to_json(root),
        "build": db.build and {
            "what": db.build.what, "log": db.build.log,
            "variables_read": db.build.all_variables(),
            "env": dict(e.split("=", 1) for e in args.env)},
        "python_torch": torch_info["version"]
        if args.python and torch_info else None,
        "torch_tidy": {"path": tidy, "version": own_version,
                       "llvm": llvm_version},
        "options": {"checks": args.checks, "fail_on": sorted(args.fail_on),
                    "min_coverage": args.min_coverage},
        "file_seconds": {rel(f, root): results[f].seconds for f in files
                         if results[f].seconds is not None},
        "cache": cache_info,
        "python": py_info,
    }
    if args.shard:
        names = [rel(f, root) for f in every]
        summary["shard"] = {
            "index": args.shard_k, "count": args.shard_n,
            "files": sorted(rel(f, root) for f in files),
            "all_files": sorted(names),
            "all_files_digest": shards.digest(names),
            "index_digest": shards.digest([json.dumps(index_json,
                                                      sort_keys=True)]),
            "registration_files": shards.registration_files(index_json,
                                                            root),
            # The project's headers this shard's parsed files read: a
            # kernel there is analysed in the merge too.
            "included": sorted(
                rel(p, root) for p in included
                if p.startswith(os.path.realpath(root) + os.sep))}
        # A shard read a share of the project: its status is no verdict
        # (4, never the 0 a gate would pass on); its merge's is.
        n = sum(warnings.values())
        code, last = SHARD_EXIT, (
            f"torch-tidy-project: shard {args.shard_k}/{args.shard_n} "
            f"done: {n} warning{'s' if n != 1 else ''} in {len(files)} "
            f"files; the verdict is `torch-tidy-project merge`'s over all "
            f"{args.shard_n} shards")
        summary["result"] = {"exit_status": SHARD_EXIT, "failed_on": [],
                             "last_line": last}
    report.print_summary(summary, project)
    if args.json:
        write_json(args.json, summary)
    if args.sarif:
        write_json(args.sarif, sarif.log(summary))
    print(last, flush=True)
    return code


def _note_deps(results, files, entries):
    """Sets each fresh result's deps from its dependency file."""
    for f in files:
        r = results.get(f)
        if r is not None and r.depfile and os.path.exists(r.depfile):
            r.deps = file_cache.depfile_paths(read_text(r.depfile),
                                              entries[f]["directory"])


def _lint_with_cache(args, tidy, files, entries, env, scratch, project, root,
                     index_json, db, llvm_version):
    """({file: FileResult}, the JSON's "cache"): the files whose cached
    result still holds replayed, the others linted (and kept)."""
    db_dir = os.path.dirname(db.path)

    def without_cache(why):
        log(why)
        results = running.lint(tidy, files, args.checks, db_dir, args.jobs,
                               env, scratch, project,
                               record="," not in scratch)
        _note_deps(results, files, entries)
        return results, {"used": False}

    if args.no_cache:
        return without_cache("--no-cache: every file is linted, nothing is "
                             "kept")
    if "," in scratch:
        return without_cache(f"no cache: clang's dependency file cannot be "
                             f"written below {scratch} (a comma in the "
                             f"path)")
    try:
        cache = file_cache.Cache(root)
    except (ProjectError, OSError) as e:
        return without_cache(f"no cache: {e}; every file is linted")
    facts = file_cache.IndexFacts(index_json)
    tool = file_cache.tool_digest(tidy, cache)
    keys, replayed, stale = {}, {}, Counter()
    for n, f in enumerate(files):
        keys[f] = {"file": os.path.realpath(f),
                   "command": file_cache.command_digest(entries[f]),
                   "tool": tool,
                   "config": file_cache.config_digest(f, args.checks, env)}
        hit, why = cache.lookup(f, keys[f], entries[f], facts)
        if hit is None:
            stale[why] += 1
            continue
        fixes = None
        if hit.get("fixes") is not None:
            fixes = os.path.join(scratch, f"replayed-{n}.yaml")
            with open(fixes, "w", encoding="utf-8",
                      errors="surrogateescape") as out:
                out.write(hit["fixes"])
        replayed[f] = running.FileResult(f, hit["code"], hit["output"],
                                         fixes, hit.get("seconds"))
        replayed[f].deps = [p for p, _ in hit.get("deps") or []]
        replayed[f].harvest = hit.get("harvest")
    todo = [f for f in files if f not in replayed]
    why = ", ".join(f"{n} {w}" for w, n in stale.most_common())
    log(f"cache: {len(replayed)} of {len(files)} files replayed, "
        f"{len(todo)} to lint" + (f" ({why})" if why else "") +
        " (--no-cache lints every file)")
    kept = [0]
    stopped = []

    def keep(r):
        """Each file's result kept as it completes: a killed or timed-out
        run resumes where it stopped."""
        f = r.path
        if stopped or r.code is None or r.code < 0 or r.config_problem or \
                running.parse_failure(r, llvm_version):
            return  # never kept: it did not parse, crashed or timed out,
            # or was linted without the project's unreadable configuration
        fixes = None
        if r.fixes:
            with open(r.fixes, encoding="utf-8", errors="surrogateescape") \
                    as y:
                fixes = y.read()
        try:
            kept[0] += cache.store(f, keys[f], entries[f], r.depfile,
                                   r.readsfile, facts,
                                   {"code": r.code, "output": r.output,
                                    "fixes": fixes, "harvest": r.harvest},
                                   r.seconds)
        except OSError as e:
            log(f"the cache could not keep {rel(f, project)}'s result "
                f"({e}): the next run lints it again")
            stopped.append(e)

    results = running.lint(tidy, todo, args.checks, db_dir, args.jobs, env,
                           scratch, project, record=True, on_done=keep)
    _note_deps(results, todo, entries)
    kept = kept[0]
    try:
        cache.save_meta()
    except OSError as e:
        log(f"the cache's stamp could not be written ({e})")
    results.update(replayed)
    return results, {"used": True, "replayed": len(replayed),
                     "linted": len(todo), "kept": kept,
                     "why_linted": dict(stale),
                     "relinted": sorted(rel(f, root) for f in todo)}


def _folders(args):
    """(project directory, project root, why it is the root)."""
    project = os.path.abspath(args.project)
    if not os.path.isdir(project):
        raise ProjectError(f"{args.project}: not a directory")
    root, why = (os.path.abspath(args.root), "--root") if args.root \
        else find_root(project)
    if not os.path.isdir(root):
        raise ProjectError(f"--root {args.root}: not a directory")
    return project, root, why


def _torch_tidy(args, here):
    """(torch-tidy, its version, its LLVM's version); refused where it has
    no torch checks."""
    tidy = running.find_torch_tidy(args.torch_tidy, here)
    if not running.has_torch_checks(tidy):
        raise ProjectError(f"{tidy} has no torch-tidy checks (a plain "
                           f"clang-tidy?); pass --torch-tidy with "
                           f"torch-tidy's path")
    return (tidy,) + running.tidy_version(tidy)


def _python_torch(args, root):
    """What --python's torch is (None where python3 has none and --python
    was not given); kept in root/.torch-tidy/torch.json while that Python's
    packages are as they were."""
    try:
        return torchenv.query(args.python or "python3", args.environ,
                              cache=os.path.join(scratch_dir(root),
                                                 "torch.json"))
    except torchenv.TorchNotFound as e:
        if args.python:
            raise ProjectError(f"--python {args.python}: cannot import torch "
                               f"with it ({e})")
        return None


def _check_torch(args, db, torch_info, project):
    """Refuses a database made for another torch than --python's (unless
    --allow-torch-mismatch) and says which torch it names."""
    if args.python and torch_info:
        other = {v: d for v, d in db.libtorch.items()
                 if v != torch_info["release"]}
        if other and not args.allow_torch_mismatch:
            names = ", ".join(f"{v} (headers in {d})"
                              for v, d in sorted(other.items()))
            raise ProjectError(
                f"{rel(db.source or db.path, project)} names LibTorch "
                f"{names}, but --python's torch is {torch_info['version']} "
                f"({torch_info['cmake_prefix_path']}): make the database "
                f"with that torch (CMake: -DTorch_DIR=<its "
                f"share/cmake/Torch>; or --database make), or pass "
                f"--allow-torch-mismatch")
    torch_line = (", ".join(f"{v} (headers in {d})"
                            for v, d in sorted(db.libtorch.items()))
                  or "none found in the database's include paths")
    log(f"the database ({rel(db.path, project)}: {db.origin}) names LibTorch "
        f"{torch_line}")


def _files_of(db, args):
    """(the database's files to lint, Counter of those skipped by why, the
    real paths FILE_REGEX left out)."""
    files, skipped, regex_skipped, entries = [], Counter(), set(), {}
    for e in db.entries:
        f = os.path.normpath(os.path.join(e["directory"], e["file"]))
        if f in files:
            skipped["the same file again"] += 1
        elif not os.path.isfile(f):
            skipped["no such file"] += 1
        elif not args.pattern.search(f):
            skipped["not matching FILE_REGEX"] += 1
            regex_skipped.add(os.path.realpath(f))
        elif not args.other_framework_ops and \
                (other := pruning.other_framework(read_text(f))):
            skipped[f"{other} operators, which no torch check reads "
                    f"(--other-framework-ops lints them)"] += 1
        else:
            files.append(f)
            entries[f] = e
    if not files:
        raise ProjectError("no file to lint" + (
            f" matches '{args.file_regex}'" if args.file_regex else
            " in the database"))
    return files, skipped, regex_skipped, entries


def _prune(tidy, checks, project, files, index_json, env, skipped):
    """The files where an enabled check can warn; the others counted in
    skipped."""
    names, options = pruning.enabled_checks(tidy, checks, project, files[0],
                                            env)
    pruned, reason = pruning.files_that_matter(names, options, project,
                                               files, index_json)
    if pruned is None:
        log(f"every file is linted ({reason})")
        return files
    kept, cannot = pruned
    skipped.update(cannot)
    if cannot:
        log(f"{sum(cannot.values())} files skipped: no enabled check can "
            f"warn there (the project index and their text say; --all-files "
            f"lints them)")
    if not kept:
        log("no file where an enabled check can warn")
    return kept


ERROR_NOTES_SHOWN = 2


def trim_error_notes(lines, keep=ERROR_NOTES_SHOWN):
    """A file's output as printed: after a compile error, its first `keep`
    notes (with their source lines) and a count of the rest (an overload
    error lists every candidate: 640 lines for 4 errors in
    torch-harmonics). Warnings' notes are the checks' own, all kept; --json
    keeps every note."""
    out, notes, dropped, after_error, dropping = [], 0, 0, False, False

    def flush():
        nonlocal dropped
        if dropped:
            out.append(f"  ({dropped} more note{'s' if dropped != 1 else ''}"
                       f" of this error)")
        dropped = 0
    for line in lines:
        m = running.DIAGNOSTIC.match(line)
        if not m:
            if not dropping:
                out.append(line)
            continue
        level = m.group(4)
        if level == "note" and after_error:
            notes += 1
            dropping = notes > keep
            if dropping:
                dropped += 1
                continue
        else:
            flush()
            after_error = level in ("error", "fatal error")
            notes, dropping = 0, False
        out.append(line)
    flush()
    return out


def _read(files, results, sarif, scratch, root, llvm_version):
    """torch-tidy's output per file printed and read: (Counter of findings
    per check, findings, {cause: files that did not parse}, {real path:
    cause})."""
    warnings, findings, unparsed, causes, cache = \
        Counter(), [], {}, {}, {}
    seen = set()
    for f in files:
        r = results[f]
        shown = [l for l in r.output.splitlines()
                 if not re.search(r"warnings? generated", l)
                 and not l.startswith("Error while processing")]
        if any(running.DIAGNOSTIC.match(l) for l in shown):
            print("\n".join(trim_error_notes(shown)))
        fixes = running.fixes(sarif, r, scratch)
        for d in running.diagnostics(r.output):
            key = (d["check"], os.path.realpath(d["file"]), d["line"],
                   d["column"])
            found = report.finding(d, root, fixes.get(key), cache)
            if report.finding_key(found) in seen:
                continue
            seen.add(report.finding_key(found))
            warnings[d["check"]] += 1
            findings.append(found)
        cause = running.parse_failure(r, llvm_version)
        if cause:
            unparsed.setdefault(cause, []).append(rel(f, root))
            causes[os.path.realpath(f)] = cause
    return warnings, findings, unparsed, causes


def _registry(args, root, index_json, torch_info, packages=None):
    """(registry.Registry or None, why it was not read). packages: the
    top-level packages setup.py installs, where it was read (kaldifeat's
    `kaldifeat`, mapped from kaldifeat/python/, not the `cmake` helper
    folder beside setup.py)."""
    if args.registry == "off":
        return None, "--registry off"
    if torch_info is None:
        return None, "python3 has no torch (--python names one)"
    explicit = args.registry != "auto"
    modules = [m.strip() for m in args.registry.split(",") if m.strip()] \
        if explicit else (registry.own_packages(packages) if packages else
                          registry.candidate_modules(root))
    namespaces = {op.split("::")[0]
                  for op in index.operator_names(index_json)}
    log(f"torch's registry: importing {', '.join(modules) or 'nothing'} "
        f"in {torch_info['executable']}")
    reg, why = registry.read(torch_info["executable"], modules, namespaces,
                             args.environ)
    if reg is None and explicit:
        raise ProjectError(f"--registry {args.registry}: {why}")
    return reg, why


def not_advised_again(switches, env):
    """A switch already given (--env VAR=VALUE) is never advised again:
    where the files it guards are still not compiled with the value the
    advice would give, it says so (torchao's USE_CPP, setup.py's default,
    was advised back verbatim); given with another value, the advice names
    the value given."""
    given = dict(e.split("=", 1) for e in env if "=" in e)
    for sw in switches:
        hint = sw.hint()
        m = re.match(r"--env (\w+)(?:=(\S*))?", hint)
        if not m or m.group(1) not in given:
            continue
        name, value = m.group(1), given[m.group(1)]
        if m.group(2) is None or m.group(2) == value:
            sw.text = (f"--env {name}={value} was given and does not compile "
                       f"it: another switch of the build does, or the build "
                       f"cannot run here")
        else:
            sw.text = f"{hint} (given: {name}={value})"
    return switches


def _coverage(args, db, index_json, root, linted, causes, regex_skipped,
              reg=None, reg_why=None, included=(), harvests=(),
              unread=None, torch_namespaces=None):
    """The coverage of the run, with the gate's verdict; counted on torch's
    registry where it was read. torch_namespaces: those of --python's
    torch's own operators."""
    switches = []
    if db.build and db.build.guards is not None:
        # setup.py: only what its branches that add extensions test.
        # The value each advice gives is the one its condition tests.
        switches += [cov.Switch(g.value, g.kind, files=g.sources,
                                text=g.hint() if g.kind == "env" else None)
                     for g in db.build.guards]
    elif db.build:
        switches += [cov.Switch(v, "env")
                     for v in db.build.switch_variables()]
    database_files = {os.path.realpath(os.path.join(e["directory"],
                                                    e["file"]))
                      for e in db.entries}
    if db.cmake_source:
        # The CMake build's own if() branches around its sources.
        switches += cmake_guards.switches(
            cmake_guards.read(db.cmake_source), database_files,
            db.build.cmake_by_env if db.build else {}, root)
    not_advised_again(switches, args.env)
    c = cov.measure(index_json, root, database_files, linted, set(causes),
                    switches, causes, regex_skipped, included)
    if reg is not None:
        cov.with_registry(c, reg, index_json, root, switches)
    else:
        c["counted_from"] = "index"
        c["registry"] = {"not_read": reg_why}
        # Operators the project registers fakes or kernels for and the index
        # saw no definition of (torch's registry, where read, knows them).
        undefined = cov.undefined_operators(index_json, root,
                                            torch_namespaces)
        if undefined["operators"]:
            c["undefined"] = undefined
    if harvests or any((unread or {}).values()):
        cov.with_compiler(c, harvests, index_json, root,
                          count=c["counted_from"] == "index", unread=unread)
    if c["counted_from"] == "index":
        # Defined, with no kernel the index or the compiler read.
        seen = {k.split(" ", 1)[0] for k in
                (c.get("compiler") or {}).get("kernels_only_compiler", [])}
        kernelless = [op for op in cov.kernelless_operators(
            index_json, torch_namespaces) if op not in seen]
        if kernelless:
            c["kernelless"] = kernelless
    python_kernels = cov.python_kernel_operators(index_json)
    if python_kernels:
        c["python_kernels"] = python_kernels
    if db.how == "cmake sources":
        cov.approximate(c, "the database was made from the CMake sources "
                        "because CMake could not configure, not from the "
                        "build's configuration")
    c["minimum"] = args.min_coverage
    c["passed"] = cov.gate(c, args.min_coverage)
    c["unseen"] = [op for op, _, _ in cov.unseen(c)]
    c["bring_in"] = cov.bring_in(c)
    return c
