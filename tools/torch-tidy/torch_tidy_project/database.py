"""Finding or making the compile database, and saying where it came from.

A database the project keeps (compile_commands.json in the project folder or
its build/) is used as it is and named with its age; one that torch-tidy-cdb
wrote there (an earlier torch-tidy run, or the recipe of docs/extensions.md)
is named and not taken for the project's own. Otherwise the database is
made from the project's own build, each run afresh, into .torch-tidy/:

  pyproject.toml whose backend drives CMake (scikit-build-core, or a
      project's own): its build_wheel runs with cmake recording; CMake is
      configured with the options the backend computed (else those
      pyproject.toml names);
  setup.py: run with setup() recording its extensions (their sources and
      flags) and, for extensions it builds with CMake, its build_ext with
      cmake recording;
  CMakeLists.txt alone: configured.

nvcc entries are turned into clang ones, and the result is written to
.torch-tidy/compile_commands.json, which the checks read."""
import argparse
import ast
import json
import os
import re
import shutil
import time

from . import (build_env, cdb, cmake, flags, guards, nvcc, pyproject,
               recorder, sandbox, sycl, tree_copy)
from .common import ProjectError, age_text, log, read_text, rel, scratch_dir
from .torchenv import header_torch

NAME = "compile_commands.json"


class Database:
    def __init__(self):
        self.path = None          # what the checks read
        self.source = None        # the database it was made from, if any
        self.origin = None        # one line: where it came from
        self.how = None           # a short key: existing, setup.py, ...
        self.entries = []
        self.notes = []           # what the reader should know
        self.build = None         # recorder.BuildRecord, where one ran
        self.cmake_source = None  # the CMake source folder, where configured
        self.cmake_options = {}   # option(NAME ... ON|OFF) of the project
        self.nvcc_translated = 0
        self.libtorch = {}        # LibTorch version -> include directory
        self.requirements = None  # build_env.Prepared, where one was read

    def to_json(self, root):
        return {"path": self.path, "origin": self.origin, "how": self.how,
                "made_from": self.source, "notes": self.notes,
                "nvcc_entries_translated": self.nvcc_translated,
                "cmake_source": self.cmake_source and
                rel(self.cmake_source, root),
                "libtorch": self.libtorch}


def written_by_torch_tidy(entries):
    """Whether a database looks written by torch-tidy-cdb: clang++ entries
    with the cpp_extension macros it adds."""
    if not entries:
        return False
    for e in entries:
        args = flags.arguments(e)
        if not args or args[0] != "clang++" or \
                "-DTORCH_API_INCLUDE_EXTENSION_H" not in args or \
                not any(a.startswith("-DTORCH_EXTENSION_NAME=") for a in args):
            return False
    return True


def load(path):
    try:
        with open(path) as f:
            items = json.load(f)
    except (OSError, ValueError) as e:
        raise ProjectError(f"cannot read {path}: {e}")
    if not isinstance(items, list) or not all(
            isinstance(e, dict) and isinstance(e.get("file"), str) and
            ("arguments" in e or "command" in e) for e in items):
        raise ProjectError(f"{path}: not a compile database (a JSON list of "
                           f"entries with file and arguments or command)")
    return [dict(e, directory=e.get("directory") or os.path.dirname(
        os.path.abspath(path))) for e in items]


def existing(project):
    """[(path, entries, age in seconds, written by torch-tidy?)] of the
    databases in the project folder and its build/."""
    found = []
    for d in (project, os.path.join(project, "build")):
        path = os.path.join(d, NAME)
        if os.path.isfile(path):
            items = load(path)
            found.append((path, items, time.time() - os.path.getmtime(path),
                          written_by_torch_tidy(items)))
    return found


# {NAME: default} of the option() calls of a CMake project (cmake's).
declared_options = cmake.declared_options


_LITERAL_DEFINE = re.compile(r"-D([A-Za-z_]\w*)(?::\w+)?=([^{}]*)$")


def setup_py_cmake_defines(text, env=None):
    """The -DVAR=VALUE strings setup.py passes CMake where they are literal
    (not joined to computed text): what is left when its build cannot be
    run to cmake. One branch, never every branch at once: a -D under an
    `if` (or a conditional expression, an `and`/`or`, an except block) is
    taken only where guards.cmake_defines_by_env tells the environment
    variable that switches it on and env (dict) has that value.
    ({VAR: VALUE} taken, {VAR: VALUE} left out)."""
    env = env or {}
    try:
        tree = ast.parse(text)
    except (SyntaxError, ValueError):
        return {}, {}
    by_env = guards.cmake_defines_by_env(text)
    parent = {}
    for node in ast.walk(tree):
        for child in ast.iter_child_nodes(node):
            parent[child] = node

    def conditional(node):
        while node in parent:
            up = parent[node]
            if isinstance(up, (ast.If, ast.IfExp, ast.BoolOp,
                               ast.ExceptHandler, ast.comprehension)) or \
                    (isinstance(up, ast.Try) and node in up.orelse) or \
                    type(up).__name__ == "match_case":
                if not (isinstance(up, (ast.If, ast.IfExp)) and
                        node is up.test):
                    return True
            node = up
        return False

    taken, left = {}, {}
    for node in ast.walk(tree):
        if isinstance(node, ast.Constant) and isinstance(node.value, str):
            value = node.value
            if isinstance(parent.get(node), ast.JoinedStr):
                continue
        elif isinstance(node, ast.JoinedStr) and all(
                isinstance(v, ast.Constant) for v in node.values):
            value = "".join(str(v.value) for v in node.values)
        else:
            continue
        if isinstance(parent.get(node), (ast.BinOp, ast.Attribute)):
            continue   # "-DX=" + str(flag), "-DX={}".format(y)
        m = _LITERAL_DEFINE.match(value)
        if not m:
            continue
        name, val = m.group(1), m.group(2)
        switch = by_env.get(name)
        if not conditional(node) or (switch and
                                     env.get(switch[0]) == switch[1]):
            taken.setdefault(name, val)
        else:
            left.setdefault(name, val)
    return taken, {k: v for k, v in left.items() if k not in taken}


def obtain(ctx):
    """The database for a run. ctx: project, root, python, env (dict),
    defines (-D, dict), cmake (explicit or None), database
    ('auto', 'make' or a path), cuda_path, torch (torchenv.query's dict or
    None), operator_files ({file: [operators]} the index says register or
    define operators: for the 'no sources' explanation), build_isolation
    (optional, default True: pyproject.toml's build requirements --python
    lacks are installed beside it, build_env.prepare)."""
    db = Database()
    project = ctx.project
    if ctx.database not in ("auto", "make"):
        path = ctx.database
        if os.path.isdir(path):
            path = os.path.join(path, NAME)
        db.entries = load(path)
        db.source, db.how = os.path.abspath(path), "given"
        db.origin = f"{rel(path, project)}, given with --database"
        return _finish(ctx, db)
    if ctx.database == "auto":
        for path, items, age, ours in existing(project):
            shown = rel(path, project)
            if ours:
                db.notes.append(
                    f"{shown} ({age_text(age)} old) was written by "
                    f"torch-tidy-cdb, not by the project's build: not used "
                    f"(--database {shown} would use it)")
                continue
            db.entries, db.source, db.how = items, path, "existing"
            db.origin = (f"the project's {shown}, {age_text(age)} old, as "
                         f"it is")
            log(f"using {db.origin} (--database make makes one from the "
                f"build instead)")
            return _finish(ctx, db)
    try:
        doc = pyproject.read(project)
    except ProjectError as e:
        doc = None
        db.notes.append(f"{e}: setup.py or CMakeLists.txt is read instead")
        log(db.notes[-1])
    setup_py = os.path.join(project, "setup.py")
    has_setup = os.path.isfile(setup_py)
    top_cmake = os.path.isfile(os.path.join(project, "CMakeLists.txt"))
    if doc is not None and (pyproject.uses_scikit_build(doc) or has_setup) \
            and getattr(ctx, "build_isolation", True):
        # [build-system] requires, as pip's isolated build provides them.
        prep = build_env.prepare(ctx.python or "python3", doc, ctx.root,
                                 ctx.env)
        db.requirements = prep
        if prep.note:
            db.notes.append(prep.note)
            log(prep.note)
        if prep.python != (ctx.python or "python3"):
            ctx = argparse.Namespace(**vars(ctx))
            ctx.python_given, ctx.python = ctx.python, prep.python
    if doc is not None and pyproject.uses_scikit_build(doc):
        return _finish(ctx, _from_backend(ctx, db, doc))
    if has_setup:
        return _finish(ctx, _from_setup_py(ctx, db, setup_py, top_cmake))
    if top_cmake:
        log("no compile_commands.json; a CMake project")
        return _finish(ctx, _from_cmake(ctx, db, project, {}, [], {}))
    backend = pyproject.backend(doc)[0] if doc is not None else None
    raise ProjectError(
        f"no compile_commands.json in {project} (or its build/), and "
        f"nothing to make one from: no setup.py, no CMakeLists.txt" +
        (f", and pyproject.toml's backend {backend} is not one that drives "
         f"CMake (scikit-build-core)" if backend else ", no pyproject.toml") +
        "; see docs/extensions.md")


def _need_torch(ctx):
    if ctx.torch is None:
        raise ProjectError(
            f"{ctx.python or 'python3'} cannot import torch, and the build "
            f"needs the torch the project builds against: pass --python with "
            f"that environment's interpreter")


def _real_cmake(ctx, source, specifier=None):
    requirement = cmake.required_version(source, specifier)
    return cmake.find_cmake(
        ctx.cmake, [ctx.python, getattr(ctx, "python_given", None)],
        requirement)[0]


def _from_backend(ctx, db, doc):
    _need_torch(ctx)
    settings = pyproject.scikit_build_settings(doc)
    source = os.path.normpath(os.path.join(ctx.project,
                                           settings["source_dir"]))
    if not os.path.isfile(os.path.join(source, "CMakeLists.txt")):
        raise ProjectError(f"pyproject.toml's cmake.source-dir "
                           f"'{settings['source_dir']}' has no "
                           f"CMakeLists.txt")
    try:
        real, too_old = _real_cmake(ctx, source, settings["version"]), None
    except ProjectError as e:
        # pip asks the backend first: scikit-build-core's
        # get_requires_for_build_wheel asks for a newer cmake than PATH's,
        # which is then installed beside the build's Python.
        real, too_old = None, e
    name, path = pyproject.backend(doc)
    log(f"no compile_commands.json; pyproject.toml's backend {name} drives "
        f"CMake (source {rel(source, ctx.project)}): running it with "
        f"cmake recording")
    scratch = scratch_dir(ctx.root, "recorder")
    started = time.time()
    rec = recorder.record_backend(
        ctx.python or "python3", ctx.project, name, path, ctx.env, scratch,
        {"build-dir": os.path.join(scratch, "build")},
        real or ctx.cmake or shutil.which("cmake"))
    if rec.dynamic_missing and getattr(ctx, "build_isolation", True):
        # What its get_requires_for_build_wheel asks for, installed as pip
        # would before building; then the backend runs again.
        given = getattr(ctx, "python_given", None) or ctx.python or "python3"
        prep = build_env.prepare(given, doc, ctx.root, ctx.env,
                                 extra=rec.dynamic_missing)
        asked = (f"the build backend {name}'s get_requires_for_build_wheel "
                 f"asks for {', '.join(rec.dynamic_missing)}")
        if prep.install_failed or prep.python == given:
            db.notes.append(f"{asked}; {prep.note}" if prep.note else asked)
        else:
            db.notes.append(f"{asked}: {prep.note}")
            db.requirements = prep
            ctx = argparse.Namespace(**vars(ctx))
            ctx.python_given, ctx.python = given, prep.python
            if too_old is not None:
                real = _real_cmake(ctx, source, settings["version"])
                too_old = None
            rec = recorder.record_backend(
                ctx.python, ctx.project, name, path, ctx.env, scratch,
                {"build-dir": os.path.join(scratch, "build")}, real)
        log(db.notes[-1])
    if too_old is not None:
        if rec.dynamic_missing:   # what was asked, and why it did not help
            raise ProjectError(f"{too_old}; {db.notes[-1]}")
        raise too_old
    db.build = rec
    _note_writes(ctx, db, f"the build backend {name}", started)
    _note_sandbox(ctx, db, rec)
    defines, caches, env = dict(settings["defines"]), [], {}
    if rec.cmake_calls:
        call = recorder.parse_cmake_call(rec.cmake_calls[-1])
        source = call["source"] or source
        defines, caches, env = call["defines"], call["init_caches"], \
            call["env"]
        log(f"CMake options the backend computed: {_options(defines)}" +
            (f" (and {len(caches)} initial-cache file"
             f"{'s' if len(caches) != 1 else ''})" if caches else ""))
    else:
        for a in settings["args"]:
            m = re.match(r"-D([A-Za-z_]\w*)(?::\w+)?=(.*)", a)
            if m:
                defines[m.group(1)] = m.group(2)
        why = rec.error or "it did not run cmake"
        if not rec.imported:
            why = (f"{ctx.python or 'python3'} cannot import it: {why}; "
                   f"install the project's build requirements there"
                   f"{_requirements_hint(db)}")
        db.notes.append(f"the build backend {name} did not reach cmake "
                        f"({why}; log: {rel(rec.log, ctx.project)}): the "
                        f"CMake options are pyproject.toml's own")
        log(db.notes[-1])
    return _from_cmake(ctx, db, source, defines, caches, env, real)


def _requirements_hint(db):
    """Where pyproject.toml's build requirements could not be provided:
    the pip command that installs them in --python."""
    prep = db.requirements
    if prep is None or not prep.install_failed:
        return ""
    return (f" (pyproject.toml's build requirements it lacks: "
            f"{prep.install_hint()})")


def _options(defines):
    """The project's own of a build's -D options, as one line: CMake's,
    scikit-build-core's and the ones torch-tidy sets itself left out."""
    shown = sorted((k, v) for k, v in defines.items()
                   if k not in cmake.OWN_CMAKE_VARS and
                   not k.startswith(("CMAKE_", "SKBUILD")))
    return " ".join(f"-D{k}={v}" for k, v in shown) or "none"


def _from_setup_py(ctx, db, setup_py, top_cmake):
    scratch = scratch_dir(ctx.root, "recorder")
    # The cmake that answers the build's queries (cmake --version): the one
    # CMake will configure with where that can be told now.
    try:
        real = _real_cmake(ctx, ctx.project) if top_cmake else None
    except ProjectError:
        real = None  # said again if CMake is needed
    real = real or ctx.cmake or shutil.which("cmake")
    log(f"no compile_commands.json; reading {rel(setup_py, ctx.project)} "
        f"(setup() recording its extensions"
        f"{', cmake recording its configure' if top_cmake else ''})")
    started = time.time()
    rec = recorder.record_setup_py(ctx.python or "python3", setup_py,
                                   ctx.env, scratch, real)
    db.build = rec
    _note_writes(ctx, db, "setup.py", started)
    _note_sandbox(ctx, db, rec)
    driven = top_cmake and rec.extensions is not None and any(
        not e["sources"] for e in rec.extensions)
    if rec.failed() and not driven:
        raise ProjectError(rec.failure() + _requirements_hint(db))
    sources = [s for e in rec.extensions or [] for s in e["sources"]]
    if rec.cmake_calls:
        _need_torch(ctx)
        call = recorder.parse_cmake_call(rec.cmake_calls[-1])
        log(f"setup.py drives CMake; the options its "
            f"{call['by'] or 'build'} computed: {_options(call['defines'])}")
        _from_cmake(ctx, db, call["source"] or ctx.project,
                    call["defines"], call["init_caches"], call["env"])
        if sources:
            # The extensions setup() compiles itself beside what CMake
            # builds (a library's pybind module beside its CMake-built core).
            _add_extensions(ctx, db, rec, setup_py)
        return db
    if sources:
        _need_torch(ctx)
        db.entries = cdb.for_extensions(
            rec.extensions, ctx.torch, os.path.dirname(setup_py),
            scratch_dir(ctx.root, "cuda-shim"), ctx.cuda_path)
        db.how = "setup.py"
        db.origin = (f"made from {rel(setup_py, ctx.project)}'s "
                     f"{len(rec.extensions)} extension"
                     f"{'s' if len(rec.extensions) != 1 else ''} "
                     f"(torch-tidy-cdb --setup-py)")
        for flag, files in cdb.not_passed(rec.extensions).items():
            db.notes.append(
                f"{flag}, which setup.py passes for {len(files)} source"
                f"{'s' if len(files) != 1 else ''} (e.g. "
                f"{rel(files[0], ctx.project)}), is not passed to torch-tidy: "
                f"it would define _OPENMP, and torch's headers then include "
                f"<omp.h>, which clang finds only with its own OpenMP "
                f"package; the code under `#ifdef _OPENMP` is not analysed, "
                f"`#pragma omp` lines parse as they are")
            log(db.notes[-1])
        return db
    if driven:
        # A setup.py whose build_ext could not be run to cmake: its literal
        # -D options.
        _need_torch(ctx)
        defines, left = setup_py_cmake_defines(read_text(setup_py),
                                               ctx.env)
        db.notes.append(
            "setup.py defines extensions without sources but its build_ext "
            "did not run cmake" + (f" ({rec.error})" if rec.error else "") +
            ": CMake gets the -D options setup.py names literally outside "
            "its conditions" +
            (": " + " ".join(f"-D{k}={v}" for k, v in sorted(
                defines.items())) if defines else " (none)") +
            ("; left out, as setup.py passes them only in branches "
             "(one branch, never all at once; -D VAR=VALUE gives one): " +
             " ".join(f"-D{k}={v}" for k, v in sorted(left.items()))
             if left else ""))
        log(db.notes[-1])
        return _from_cmake(ctx, db, ctx.project, defines, [], {})
    raise ProjectError(no_sources_text(ctx, rec))


def _add_extensions(ctx, db, rec, setup_py):
    """Entries for setup.py's extensions with sources that the CMake
    database has not (what setup() compiles itself), and a note."""
    have = {os.path.realpath(os.path.join(e.get("directory", ""),
                                          e.get("file", "")))
            for e in db.entries}
    exts = []
    for e in rec.extensions:
        srcs = [s for s in e["sources"] if os.path.realpath(s) not in have]
        if srcs:
            exts.append(dict(e, sources=srcs))
    if not exts:
        return
    added = cdb.for_extensions(
        exts, ctx.torch, os.path.dirname(setup_py),
        scratch_dir(ctx.root, "cuda-shim"), ctx.cuda_path)
    db.entries = list(db.entries) + added
    db.notes.append(
        f"with the CMake database, {len(added)} source"
        f"{'s' if len(added) != 1 else ''} of setup.py's "
        f"{len(exts)} extension{'s' if len(exts) != 1 else ''} with sources "
        f"({', '.join(e['name'] for e in exts[:4])}"
        f"{' ...' if len(exts) > 4 else ''}), which setup() compiles itself")
    log(db.notes[-1])


def no_sources_text(ctx, rec):
    """Why setup.py gave nothing to lint, the operators the project defines
    that no database entry covers, and the files that register them."""
    said = rec.no_sources_text()
    files = sorted(ctx.operator_files or {})
    if files:
        ops = sorted({op for f in files for op in ctx.operator_files[f]})
        said += (f"; unseen: the {len(ops)} operator"
                 f"{'s' if len(ops) != 1 else ''} the project registers ("
                 + ", ".join(ops[:12]) + (", ..." if len(ops) > 12 else "") +
                 "), in " + ", ".join(rel(f, ctx.project) for f in files[:8]) +
                 (" and more" if len(files) > 8 else ""))
    return said + f" (setup.py's output: {rel(rec.log, ctx.project)})"


def _from_cmake(ctx, db, source, defines, caches, env, real=None):
    _need_torch(ctx)
    real = real or _real_cmake(ctx, source)
    defines = dict(defines)
    defines.update(ctx.defines)
    build = scratch_dir(ctx.root, "cmake-build")
    log(f"configuring CMake (compile database only) in "
        f"{rel(build, os.getcwd())}")
    started = time.time()
    full_env = dict(ctx.env)
    full_env.update(env)
    given = getattr(ctx, "python_given", None)
    if given and ctx.python and ctx.python != given:
        # The build requirements' environment, whose scripts folder pip's
        # isolated build puts first on PATH: CMake finds the packages it
        # installed there (pybind11[global]'s share/cmake/pybind11) by it.
        full_env["PATH"] = os.path.dirname(ctx.python) + os.pathsep + \
            full_env.get("PATH", os.environ.get("PATH", ""))
    git_bin, git_record = sandbox.prepare(scratch_dir(ctx.root, "configure"))
    full_env = sandbox.environment(full_env, git_bin, git_record)
    # The configure runs on a copy: what the project's CMake writes below
    # its source stays out of the tree.
    mirror = tree_copy.Mirror(source,
                              scratch_dir(ctx.root, "configure", "tree"))
    copying = time.time()
    mirror.build()
    log(f"copied {mirror.copied} files ({mirror.size / 1e6:.1f} MB) of "
        f"{rel(source, os.getcwd()) or '.'} for the configure, into "
        f"{rel(mirror.copy_top, os.getcwd())} "
        f"({time.time() - copying:.1f} s)")
    done = cmake.configure(real, source, build, ctx.torch, defines, caches,
                           full_env, ctx.project, mirror)
    mirror.settle()
    refused = sandbox.refused(git_record)
    if refused:
        db.notes.append(
            f"CMake's configure ran {'; '.join(refused[:3])}"
            f"{' ...' if len(refused) > 3 else ''}: refused (the project's "
            f"build runs under torch-tidy without changing its tree or .git, "
            f"and without fetching); where the build needs it (submodules), "
            f"run it before torch-tidy-project")
        log(db.notes[-1])
    db.notes += done.notes
    db.cmake_source = source
    db.cmake_options = declared_options(source)
    _note_copy(ctx, db, mirror)
    # Below the source's folder, writes land in the copy; a write through
    # `..` into the tree above it is named.
    _note_writes(ctx, db, "CMake's configure (the project's own "
                 "configure_file or file(WRITE))", started,
                 tree_copy.top_of(source, ctx.project))
    for n in done.notes:
        log(n)
    if done.directory:
        db.source = os.path.join(done.directory, NAME)
        db.entries = mirror.map_entries(load(db.source))
        db.how = "cmake" if done.how == "CMake configure" else \
            "cmake, torch stand-in"
        db.origin = f"made by {done.how} of {rel(source, ctx.project)}"
        return db
    items, said = cmake.sources_database(source, ctx.torch,
                                         scratch_dir(ctx.root, "cuda-shim"),
                                         ctx.cuda_path)
    db.entries, db.how = items, "cmake sources"
    db.origin = "made from the CMake sources: CMake could not configure"
    db.notes.append(f"CMake could not configure, so torch-tidy wrote {said}; "
                    f"flags CMake would compute are missing")
    log(db.notes[-1])
    return db


def _note_copy(ctx, db, mirror):
    """Notes on the configure's copy of the tree: the files it made there
    (linted where they are), the tree's files it rewrote there (the
    database reads the tree's) and the files that could not be copied."""
    def listed(names):
        return ", ".join(names[:5]) + (" ..." if len(names) > 5 else "")

    def say(text):
        db.notes.append(text)
        log(text)
    made = sorted(rel(mirror.real(p), ctx.project) for p in mirror.made)
    if made:
        say(f"CMake's configure ran on a copy of the tree "
            f"({rel(mirror.copy_top, ctx.project)}) and made {len(made)} "
            f"file{'s' if len(made) != 1 else ''} there ({listed(made)}): "
            f"the database reads them in the copy and the tree's own files "
            f"in the tree, which is unchanged")
    changed = [rel(p, ctx.project) for p in mirror.changed]
    if changed:
        say(f"CMake's configure rewrote {len(changed)} of the tree's files "
            f"in its copy ({listed(changed)}): the database reads the "
            f"tree's own, as they are")
    unread = [rel(p, ctx.project) for p in mirror.unread]
    if unread:
        say(f"{len(unread)} file{'s' if len(unread) != 1 else ''} of the "
            f"tree could not be copied for CMake's configure "
            f"({listed(unread)}): the configure did not see "
            f"{'them' if len(unread) != 1 else 'it'}")


def _note_sandbox(ctx, db, rec):
    """Notes on what the recorded build tried and torch-tidy kept from the
    tree: the files its Python wrote (kept in the shadow folder) and the git
    commands it ran that were refused."""
    if rec.sandbox_writes:
        db.notes.append(
            f"{rec.what} wrote {len(rec.sandbox_writes)} file"
            f"{'s' if len(rec.sandbox_writes) != 1 else ''} into the "
            f"project's tree ({', '.join(rec.sandbox_writes[:5])}"
            f"{' ...' if len(rec.sandbox_writes) > 5 else ''}): kept in "
            f"{rel(rec.shadow, ctx.project)} instead; the tree is unchanged")
        log(db.notes[-1])
    if rec.git_refused:
        db.notes.append(
            f"{rec.what} ran {'; '.join(rec.git_refused[:3])}"
            f"{' ...' if len(rec.git_refused) > 3 else ''}: refused (the "
            f"project's build runs under torch-tidy without changing its "
            f"tree or .git, and without fetching); where the build needs "
            f"it (submodules), run it before torch-tidy-project")
        log(db.notes[-1])


def _note_writes(ctx, db, who, since, below=None):
    """A note naming the files a step of the project's own build wrote into
    its tree (torch-tidy writes only to .torch-tidy/)."""
    written = _written_into_tree(below or ctx.project, since, ctx.root)
    if written:
        db.notes.append(f"{who} wrote into the project's tree: " +
                        ", ".join(written[:5]) +
                        (f" and {len(written) - 5} more" if len(written) > 5
                         else ""))
        log(db.notes[-1])


def _written_into_tree(source, since, root):
    """Files below source changed since the configure began (outside
    .torch-tidy)."""
    found = []
    for d, dirs, files in os.walk(source):
        dirs[:] = [x for x in dirs if not x.startswith(".")]
        for f in files:
            p = os.path.join(d, f)
            try:
                if os.path.getmtime(p) >= since - 1:
                    found.append(rel(p, root))
            except OSError:
                pass
    return sorted(found)


def torch_includes(entries):
    """{version: include directory} of the LibTorch headers the entries
    name, and the directories themselves, in order."""
    found, seen, dirs = {}, set(), []
    for e in entries:
        for d in include_dirs(e):
            if d in seen:
                continue
            seen.add(d)
            t = header_torch(d)
            if t:
                found.setdefault(t[0], t[1])
                dirs.append(d)
    return found, dirs


INCLUDE_FLAGS = ("-I", "-isystem", "-iquote", "-idirafter")


def include_dirs(entry):
    """The include directories an entry names (response files read, paths
    absolute)."""
    kept = flags.kept_flags(flags.compiler_arguments(entry)[1:],
                            entry.get("directory", "."))
    return [kept[i + 1] for i, f in enumerate(kept[:-1])
            if f in INCLUDE_FLAGS]


def _finish(ctx, db):
    """nvcc entries turned into clang ones; the database the checks read
    written to .torch-tidy/compile_commands.json."""
    if db.source:
        # Copied elsewhere, an entry's folder must not be relative.
        base = os.path.dirname(os.path.abspath(db.source))
        db.entries = [dict(e, directory=os.path.normpath(os.path.join(
            base, e.get("directory", ".")))) for e in db.entries]
    _, dirs = torch_includes(db.entries)
    entries, n, added = nvcc.translate_database(
        db.entries, scratch_dir(ctx.root, "cuda-shim"), dirs)
    db.nvcc_translated = n
    if n:
        db.notes.append(
            f"{n} nvcc entr{'y' if n == 1 else 'ies'} turned into "
            f"{'a clang CUDA entry' if n == 1 else 'clang CUDA entries'} "
            f"(host side; nvcc-only options dropped)" +
            (f"; {added} named no torch include path and were given the "
             f"database's" if added else ""))
    entries, n = sycl.translate_database(entries)
    if n:
        db.notes.append(
            f"{n} SYCL entr{'y' if n == 1 else 'ies'} parsed as C++, host "
            f"side, with torch-tidy's stand-ins for the SYCL headers "
            f"(SYCL-only options dropped)")
    db.entries = entries
    db.libtorch = torch_includes(entries)[0]
    db.path = os.path.join(scratch_dir(ctx.root), NAME)
    cdb.write(db.path, entries)
    return db
