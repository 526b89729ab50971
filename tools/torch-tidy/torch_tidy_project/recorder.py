"""A project's own build run with its compiler-facing steps stood in for:
setup.py with setuptools' setup() recording its extensions, and setup.py or
a PEP 517 build backend (scikit-build-core, a project's own) with `cmake`
recording the configure command it is given. What setuptools and cmake
would build is not built, and their output goes to the scratch folder
given; a build_ext that compiles by other means than cmake is not stood in
for (and stopped after 30 minutes), and what the project's own code writes
is its own. Also recorded: the environment variables the project's own
Python code reads."""
import json
import os
import re
import shlex
import shutil
import subprocess
import sys

from . import build_env, guards, sandbox
from .common import last_lines, read_text

MARKER = "TORCH_TIDY_RECORD_JSON="

# Stands in for cmake (and cmake3): queries go to the real cmake; a
# configure is recorded, with copies of its -C initial-cache files, and
# fails so that the build stops there; --build and --install are refused.
CMAKE_STANDIN = r'''
import json, os, sys
args = sys.argv[1:]
real = os.environ.get("TORCH_TIDY_REAL_CMAKE", "")
first = args[0] if args else ""
if not args or first in ("--version", "-version", "--help", "-h", "-E",
                         "-P", "--system-information", "--find-package") \
        or first.startswith("--help"):
    if not real:
        sys.exit("torch-tidy: no real cmake to answer " + " ".join(args))
    os.execv(real, [real] + args)
# A CMake project the build wrote itself below the project (kept in the
# shadow) and probes, such as scikit-build's generator test in
# _cmake_test_compile: run as it is, not recorded.
def _probe():
    shadow = os.environ.get("TORCH_TIDY_SHADOW", "")
    if not (real and shadow):
        return False
    def inside(p):
        return (os.path.abspath(p) + os.sep).startswith(shadow + os.sep)
    if first == "--build":
        # a build folder the real cmake configured (a recorded configure
        # makes none)
        return len(args) > 1 and inside(args[1]) and \
            os.path.isfile(os.path.join(args[1], "CMakeCache.txt"))
    i, source = 0, None
    while i < len(args) and source is None:
        a = args[i]
        if a == "-S" and i + 1 < len(args):
            source = args[i + 1]
        elif a.startswith("-S") and len(a) > 2:
            source = a[2:]
        elif a in ("-G", "-T", "-A", "-C", "-B", "-D", "-U"):
            i += 1
        elif not a.startswith("-"):
            source = a
        i += 1
    return inside(source or ".") and \
        os.path.isfile(os.path.join(source or ".", "CMakeLists.txt"))
if _probe():
    os.execv(real, [real] + args)
if first in ("--build", "--install", "--open"):
    sys.exit("torch-tidy: cmake " + first + " refused: only the configure "
             "command is recorded")
caches, i = {}, 0
while i < len(args):
    a = args[i]
    path = None
    if a == "-C" and i + 1 < len(args):
        path = args[i + 1]
    elif a.startswith("-C") and len(a) > 2:
        path = a[2:]
    if path:
        full = os.path.abspath(path)
        try:
            with open(full) as f:
                caches[full] = f.read()
        except OSError:
            caches[full] = None
    i += 1
with open(os.environ["TORCH_TIDY_RECORD"], "a") as f:
    f.write(json.dumps({"cwd": os.getcwd(), "args": args,
                        "env": dict(os.environ), "init_caches": caches}) +
            "\n")
sys.exit("torch-tidy: CMake configure recorded; nothing is configured or "
         "built")
'''

# Run by the project's Python. Shared part: the cmake stand-in wherever a
# cmake is started, and the environment variables the project's own code
# reads (frames in the project's folder, outside .torch-tidy).
DRIVER_COMMON = r'''
import json, os, re, runpy, subprocess, sys, traceback
MARKER, request = sys.argv[1], json.loads(sys.argv[2])
project, bindir, stub = request["project"], request["bin"], request["stub"]
sys.dont_write_bytecode = True
sys.path.insert(0, stub)
variables = []
readers = {}   # variable: the project file that read it first
_Environ = type(os.environ)
_getitem = _Environ.__getitem__
_skip = (os.path.abspath(os.__file__),)
def _read_by_project():
    f = sys._getframe(2)
    while f is not None:
        raw = f.f_code.co_filename
        # os and _collections_abc (frozen in Python 3.11: "<frozen os>").
        if raw.startswith("<frozen") or raw.endswith("_collections_abc.py") \
                or os.path.abspath(raw) in _skip:
            f = f.f_back
            continue
        if raw.startswith("<"):
            return None
        name = os.path.abspath(raw)
        if name.startswith(project + os.sep) and \
                os.sep + ".torch-tidy" + os.sep not in name:
            return name
        return None
    return None
def _getitem_recorded(self, key):
    # torch-tidy's own variables (the stand-ins') are not the project's.
    if isinstance(key, str) and key not in variables and \
            not key.startswith("TORCH_TIDY_"):
        who = _read_by_project()
        if who:
            variables.append(key)
            readers[key] = who
    return _getitem(self, key)
_Environ.__getitem__ = _getitem_recorded
_init = subprocess.Popen.__init__
def _popen(self, args, *a, **kw):
    if isinstance(args, (list, tuple)) and args and \
            os.path.basename(str(args[0])) in ("cmake", "cmake3"):
        args = [os.path.join(bindir, "cmake")] + list(args[1:])
    return _init(self, args, *a, **kw)
subprocess.Popen.__init__ = _popen
result = {"variables": variables, "readers": readers, "error": None}
def finish():
    # On a line of its own, whatever the build printed last.
    print("\n" + MARKER + json.dumps(result), flush=True)
'''

DRIVER_SETUP = DRIVER_COMMON + sandbox.DRIVER_SANDBOX + r'''
result["sandbox_writes"] = sandbox_writes
''' + r'''
path = request["setup_py"]
os.chdir(os.path.dirname(path))
sys.path.insert(0, os.path.dirname(path))
class Recorded(Exception):
    pass
import setuptools
real_setup = setuptools.setup
real_core_setup = None
def describe(e):
    extra = getattr(e, "extra_compile_args", None) or []
    return {
        "name": e.name,
        "sources": [os.path.abspath(s) for s in e.sources],
        "include_dirs": [os.path.abspath(d) for d in (e.include_dirs or [])],
        "define_macros": [[k, v] for k, v in (e.define_macros or [])],
        "undef_macros": list(e.undef_macros or []),
        "cxx": list(extra.get("cxx", []) if isinstance(extra, dict)
                    else extra),
        "nvcc": list(extra.get("nvcc", []) if isinstance(extra, dict)
                     else []),
        "sycl": list(extra.get("sycl", []) if isinstance(extra, dict)
                     else []),
    }
def _recorded():
    return os.path.exists(os.environ["TORCH_TIDY_RECORD"])
def _own(cls):
    """A command class the project wrote (setup.py or its own modules)."""
    mod = sys.modules.get(getattr(cls, "__module__", None) or "")
    f = os.path.abspath(getattr(mod, "__file__", None) or "")
    return f.startswith(project + os.sep) and \
        os.sep + ".torch-tidy" + os.sep not in f
def _not_compiled():
    """What setuptools itself would compile is not compiled: the sources
    of extensions setup() was given (recorded above) and of build_clib's
    libraries. A project's build command that runs cmake for some parts
    and leaves the rest to its base class gets as far as cmake."""
    import setuptools.command.build_ext as st_ext
    import setuptools.command.build_clib as st_clib
    classes = [st_ext.build_ext, st_clib.build_clib]
    try:
        import distutils.command.build_ext as d_ext
        import distutils.command.build_clib as d_clib
        classes += [d_ext.build_ext, d_clib.build_clib]
    except Exception:
        pass
    for cls in classes:
        if "build_extension" in cls.__dict__:
            orig = cls.__dict__["build_extension"]
            def build_extension(self, ext, _orig=orig):
                if ext.sources:
                    return None
                return _orig(self, ext)
            cls.build_extension = build_extension
        if "build_libraries" in cls.__dict__:
            cls.build_libraries = lambda self, libraries: None
def _run_command(name, args, kwargs, exts, argv):
    os.environ["TORCH_TIDY_COMMAND"] = name
    kw = dict(kwargs, ext_modules=exts, script_args=[name] + argv)
    if not argv:
        base = os.path.join(os.path.dirname(request["build_temp"]), "build")
        options = {k: dict(v) for k, v in (kw.get("options") or {}).items()}
        build = (kw.get("cmdclass") or {}).get("build")
        import setuptools.command.build as st_build
        if build is None or issubclass(build, st_build.build):
            options.setdefault("build", {})["build_base"] = base
        kw["options"] = options
    try:
        real_setup(*args, **kw)
        said = "ran to the end without cmake"
    except BaseException as e:
        said = (type(e).__name__ + ": " + str(e))[-600:]
    result["commands"].append([name, said])
    return said
def setup(*args, **kwargs):
    exts = list(kwargs.get("ext_modules") or [])
    result["setup_called"] = True
    result["extensions"] = [describe(e) for e in exts]
    result["commands"] = []
    # The top-level packages it installs: what imports the library (the
    # registry's import), whatever folders beside them hold __init__.py.
    result["packages"] = []
    for p in kwargs.get("packages") or []:
        top = str(p).split(".")[0]
        if top and top not in result["packages"]:
            result["packages"].append(top)
    setuptools.setup = real_setup
    if real_core_setup:
        distutils.core.setup = real_core_setup
    # Extensions without sources are built by the project's own build_ext
    # (CMake): run it, with cmake recording, on those alone.
    driven = [e for e in exts if not e.sources]
    if driven:
        said = _run_command("build_ext", args, kwargs, driven, [
            "--build-temp", request["build_temp"],
            "--build-lib", request["build_lib"]])
        if not said.startswith("ran to the end"):
            result["build_ext"] = said
    # Build commands the project wrote itself (a build_clib that runs
    # CMake, a build_ext that runs it for part of the package, a build or
    # build_cmake of its own), in the order a build runs them, until one
    # gives cmake a configure; what setuptools would compile is not.
    cmdclass = kwargs.get("cmdclass") or {}
    own = [n for n, c in cmdclass.items() if isinstance(c, type) and _own(c)]
    order = [n for n in ("build_clib", "build_ext", "build", "build_py")
             if n in own and not (n == "build_ext" and driven)]
    order += [n for n in own if n not in order and n != "build_ext" and
              (n.startswith("build") or "cmake" in n.lower())]
    if order and not _recorded():
        _not_compiled()
        for name in order:
            _run_command(name, args, kwargs, exts, [])
            if _recorded():
                break
    raise Recorded()
setuptools.setup = setup
try:
    import distutils.core
    real_core_setup = distutils.core.setup
    distutils.core.setup = setup
except Exception:
    pass
sys.argv = [path, "build_ext"]
try:
    runpy.run_path(path, run_name="__main__")
except Recorded:
    pass
except BaseException as e:
    traceback.print_exc()
    result["error"] = (type(e).__name__ + ": " + str(e))[-600:]
    if isinstance(e, ImportError):
        # Every module setup.py imports at its top that this Python cannot
        # find, not only the first: the user installs them at once.
        import ast, importlib.util
        try:
            tree = ast.parse(open(path).read())
        except Exception:
            tree = ast.Module(body=[], type_ignores=[])
        names = []
        for node in tree.body:
            if isinstance(node, ast.Import):
                names += [a.name.split(".")[0] for a in node.names]
            elif isinstance(node, ast.ImportFrom) and node.module and \
                    not node.level:
                names.append(node.module.split(".")[0])
        missing = []
        for n in names:
            try:
                found = importlib.util.find_spec(n) is not None
            except Exception:
                found = False
            if not found and n not in missing:
                missing.append(n)
        result["missing_imports"] = missing
if not result.get("setup_called") and not result["error"]:
    result["error"] = "setup.py did not call setup()"
finish()
'''

DRIVER_BACKEND = DRIVER_COMMON + sandbox.DRIVER_SANDBOX + r'''
result["sandbox_writes"] = sandbox_writes
''' + build_env.LACKING + r'''
os.chdir(project)
for d in reversed(request["backend_path"]):
    sys.path.insert(0, os.path.join(project, d))
result["imported"] = False
try:
    import importlib
    name, _, attr = request["backend"].partition(":")
    backend = importlib.import_module(name)
    for part in filter(None, attr.split(".")):
        backend = getattr(backend, part)
    result["imported"] = True
    # pip asks the backend what else its build needs before building
    # (scikit-build-core: cmake, ninja, its dynamic-metadata plugins).
    # Where the hook or the reading of its answer fails, the build goes on
    # as it did before pip's question was asked.
    hook = getattr(backend, "get_requires_for_build_wheel", None)
    try:
        asked = [str(r) for r in (hook(request["config_settings"]) or [])] \
            if hook is not None else []
        # torch is --python's own (build_env.OWN): never asked for again.
        missing = lacking([r for r in asked
                           if not re.match(r"\s*torch\s*(?:[^\w.-]|$)", r)])
    except Exception:
        traceback.print_exc()
        asked, missing = [], []
    result["dynamic_requires"] = asked
    result["dynamic_missing"] = missing
    if result["dynamic_missing"]:
        result["error"] = ("its get_requires_for_build_wheel asks for " +
                           ", ".join(result["dynamic_missing"]) +
                           ", which this Python lacks")
    else:
        os.makedirs(request["wheel_dir"], exist_ok=True)
        backend.build_wheel(request["wheel_dir"], request["config_settings"])
        result["error"] = \
            "the build backend built a wheel without calling cmake"
except BaseException as e:
    traceback.print_exc()
    result["error"] = result.get("error") or \
        (type(e).__name__ + ": " + str(e))[-600:]
finish()
'''


class BuildRecord:
    """What a recorded build did: its extensions (setup.py), the CMake
    configure commands it gave, the environment variables its code read,
    and its output (kept in `log`)."""

    def __init__(self, what, log):
        self.what = what              # "setup.py", "the build backend ..."
        self.log = log
        self.extensions = None        # setup.py: its ext_modules
        self.cmake_calls = []
        self.variables = []           # read while it ran
        self.variables_in_text = []   # named in its text (env reads)
        self.readers = {}             # variable: the file that read it
        self.build_code = None        # a backend's own folders (backend-path)
        self.dynamic_requires = []    # a backend's get_requires_for_build_wheel
        self.dynamic_missing = []     # of those, what its Python lacks
        self.error = None             # why it stopped, when not at cmake
        self.imported = True          # a backend: whether it imported
        self.output = ""
        self.sandbox_writes = []      # files it wrote, kept out of the tree
        self.shadow = None            # where they are
        self.git_refused = []         # git commands it ran, refused
        self.guards = None            # setup.py: what switches extensions
        # {CMAKE_VARIABLE: (ENV, value)}: a -D its code passes where an
        # environment variable has that value (guards.cmake_defines_by_env)
        self.cmake_by_env = {}
        self.missing_imports = []     # its top-level imports not found
        # setup.py: [command, what happened] of the build commands it was
        # run with (build_ext for extensions without sources; the project's
        # own build_clib, build_ext, build, ... until one ran cmake)
        self.commands = []
        self.packages = []            # setup.py: the top-level packages

    def failed(self):
        return self.error is not None and not self.cmake_calls

    def failure(self):
        missing = ""
        if self.missing_imports:
            missing = (f"; of the modules it imports, "
                       f"{', '.join(self.missing_imports)} "
                       f"{'does' if len(self.missing_imports) == 1 else 'do'}"
                       f" not import in --python's environment: install "
                       f"them there (pip install, under the names its "
                       f"requirements give)")
        return (f"{self.what} failed: {self.error}{missing}; its output is "
                f"in {self.log}; the last lines:\n"
                f"{last_lines(self.output)}")

    def no_sources_text(self):
        reads = self.all_variables()
        said = f"{self.what} defines no extension sources"
        env = [g for g in self.guards or [] if g.kind == "env"]
        switches = list(dict.fromkeys(g.value for g in env))
        gates = [g.value for g in self.guards or [] if g.kind == "torch"]
        if switches:
            said += (f" with this environment; the branches that add its "
                     f"extensions or their sources test "
                     f"{', '.join(switches)}: give them with "
                     f"--env VAR=VALUE (e.g. {env[0].hint()})")
        elif reads and self.guards is None:
            said += (f" with this environment; it reads {', '.join(reads)}: "
                     f"extensions switched on by environment variables are "
                     f"given with --env VAR=VALUE (e.g. --env {reads[0]}=1)")
        elif reads:
            said += (f" with this environment; it reads {', '.join(reads)}, "
                     f"none of them in a condition that adds an extension "
                     f"this reading can see")
        if gates:
            said += (f"; an extension needs torch >= "
                     f"{', '.join(sorted(set(gates)))} (--python with such a "
                     f"torch)")
        return said

    def all_variables(self):
        seen = list(self.variables)
        seen += [v for v in self.variables_in_text if v not in seen]
        return seen

    def switch_variables(self):
        """The variables that may switch what is built. A backend's: those
        its own code (backend-path) read or names; what the package it
        imports reads at import (thread counts, devices) is the package's
        runtime setting, never a switch of the build."""
        if self.build_code is None:
            return self.all_variables()
        inside = tuple(os.path.realpath(c) + ("" if c.endswith(".py")
                                               else os.sep)
                       for c in self.build_code)
        seen = [v for v in self.variables
                if os.path.realpath(self.readers.get(v, "")).startswith(inside)]
        seen += [v for v in self.variables_in_text if v not in seen]
        return seen


def environment(pairs, base=None):
    """os.environ (or base) with VAR=VALUE pairs applied; ValueError for a
    pair that is not one."""
    env = dict(os.environ if base is None else base)
    for pair in pairs:
        name, eq, value = pair.partition("=")
        if not eq or not re.match(r"^[A-Za-z_]\w*$", name):
            raise ValueError(f"--env {pair}: expected VAR=VALUE")
        env[name] = value
    return env


ENV_READ = re.compile(
    r"""(?:os\.(?:environ\.get|getenv)|environ\.get|getenv)\(\s*[rbu]?['"]"""
    r"""([A-Za-z_]\w*)['"]|environ\[\s*[rbu]?['"]([A-Za-z_]\w*)['"]\s*\]|"""
    r"""\b\w*env\w*\(\s*['"]([A-Z][A-Z0-9_]+)['"]""", re.I)


def variables_in_text(text):
    """Environment variables a build script's text reads by name."""
    found = []
    for m in ENV_READ.finditer(text):
        name = next(g for g in m.groups() if g)
        if name not in found:
            found.append(name)
    return found


def _prepare(scratch):
    """The stand-in cmake (a shell script running CMAKE_STANDIN with this
    Python: a shebang line cannot hold a path with spaces) and the `cmake`
    Python module that names it (for builds that run PyPI's cmake through
    `cmake.CMAKE_BIN_DIR`)."""
    bindir = os.path.join(scratch, "bin")
    stub = os.path.join(scratch, "stub")
    os.makedirs(bindir, exist_ok=True)
    os.makedirs(os.path.join(stub, "cmake"), exist_ok=True)
    script = os.path.join(scratch, "cmake-stand-in.py")
    with open(script, "w") as f:
        f.write(CMAKE_STANDIN)
    for name in ("cmake", "cmake3"):
        path = os.path.join(bindir, name)
        with open(path, "w") as f:
            f.write(f"#!/bin/sh\nexec {shlex.quote(sys.executable)} "
                    f"{shlex.quote(script)} \"$@\"\n")
        os.chmod(path, 0o755)
    with open(os.path.join(stub, "cmake", "__init__.py"), "w") as f:
        f.write("# torch-tidy's stand-in for PyPI's cmake package.\n"
                f"CMAKE_BIN_DIR = {bindir!r}\nCMAKE_DATA = {scratch!r}\n")
    record = os.path.join(scratch, "cmake-calls.jsonl")
    if os.path.exists(record):
        os.remove(record)
    return bindir, stub, record


def _run(python, driver, request, env, scratch, real_cmake, what, log):
    bindir, stub, record_path = _prepare(scratch)
    shadow = os.path.join(scratch, "shadow")
    shutil.rmtree(shadow, ignore_errors=True)
    request = dict(request, bin=bindir, stub=stub, shadow=shadow)
    git_bin, git_record = sandbox.prepare(scratch)
    run_env = sandbox.environment(env, git_bin, git_record)
    run_env["PATH"] = bindir + os.pathsep + run_env["PATH"]
    run_env["TORCH_TIDY_RECORD"] = record_path
    run_env["TORCH_TIDY_REAL_CMAKE"] = real_cmake or ""
    run_env["TORCH_TIDY_SHADOW"] = shadow
    run_env["PYTHONDONTWRITEBYTECODE"] = "1"
    rec = BuildRecord(what, log)
    try:
        res = subprocess.run([python, "-c", driver, MARKER,
                              json.dumps(request)], capture_output=True,
                             text=True, errors="replace", env=run_env,
                             timeout=1800)
        out, code = res.stdout + res.stderr, res.returncode
    except OSError as e:
        out, code = f"cannot run {python}: {e.strerror}", -1
    except subprocess.TimeoutExpired:
        out, code = f"{what} did not finish in 1800 s", -1
    with open(log, "w") as f:
        f.write(out)
    rec.output = "\n".join(l for l in out.splitlines()
                           if not l.startswith(MARKER))
    result = None
    for line in out.splitlines():
        if line.startswith(MARKER):
            result = json.loads(line[len(MARKER):])
    if result is None:
        rec.error = f"exited {code} before it finished"
    else:
        rec.variables = result.get("variables", [])
        rec.readers = result.get("readers") or {}
        rec.dynamic_requires = result.get("dynamic_requires") or []
        rec.dynamic_missing = result.get("dynamic_missing") or []
        rec.error = result.get("error")
        rec.missing_imports = result.get("missing_imports") or []
        rec.extensions = result.get("extensions")
        rec.commands = result.get("commands") or []
        rec.packages = result.get("packages") or []
        rec.imported = result.get("imported", True)
        rec.sandbox_writes = result.get("sandbox_writes") or []
        rec.shadow = shadow
        _shadowed_paths(rec, request["project"], shadow)
        if result.get("build_ext") and rec.error is None and \
                not os.path.exists(record_path):
            rec.error = "its build_ext stopped before it ran cmake: " + \
                result["build_ext"]
    rec.git_refused = sandbox.refused(git_record)
    if os.path.exists(record_path):
        base = dict(run_env)
        for line in read_text(record_path).splitlines():
            try:
                call = json.loads(line)
            except ValueError:
                continue  # a configure that was stopped while writing
            call["by"] = call["env"].get("TORCH_TIDY_COMMAND")
            call["env_changes"] = _env_changes(base, call.pop("env"))
            call["init_caches"] = _keep_caches(call["init_caches"], scratch,
                                               len(rec.cmake_calls))
            rec.cmake_calls.append(call)
    return rec


def _shadowed_paths(rec, project, shadow):
    """Sources and include folders the build made (in the shadow folder,
    not the tree) named where they are."""
    def where(path):
        if os.path.exists(path) or not path.startswith(project + os.sep):
            return path
        moved = os.path.join(shadow, os.path.relpath(path, project))
        return moved if os.path.exists(moved) else path
    for e in rec.extensions or []:
        e["sources"] = [where(p) for p in e["sources"]]
        e["include_dirs"] = [where(p) for p in e["include_dirs"]]


IGNORED_ENV = {"PATH", "PYTHONPATH", "PWD", "OLDPWD", "SHLVL", "_",
               "TORCH_TIDY_RECORD", "TORCH_TIDY_REAL_CMAKE",
               "PYTHONDONTWRITEBYTECODE", "TORCH_TIDY_REAL_GIT",
               "TORCH_TIDY_GIT_RECORD", "GIT_ALLOW_PROTOCOL",
               "GIT_TERMINAL_PROMPT", "GIT_OPTIONAL_LOCKS",
               "TORCH_TIDY_COMMAND"}


def _env_changes(base, env):
    """The variables the build set (or changed) for cmake."""
    return {k: v for k, v in env.items()
            if k not in IGNORED_ENV and base.get(k) != v}


def _keep_caches(caches, scratch, n):
    """Copies of a configure's -C files, which the build may delete."""
    kept = {}
    for i, (path, text) in enumerate(sorted(caches.items())):
        if text is None:
            continue
        copy = os.path.join(scratch, f"init-cache-{n}-{i}.cmake")
        with open(copy, "w") as f:
            f.write(text)
        kept[path] = copy
    return kept


def record_setup_py(python, setup_py, env, scratch, real_cmake=None):
    """setup.py run with setup() recording its extensions; extensions without
    sources built by its build_ext, with cmake recording."""
    setup_py = os.path.abspath(setup_py)
    os.makedirs(scratch, exist_ok=True)
    request = {"setup_py": setup_py,
               "project": os.path.dirname(setup_py),
               "build_temp": os.path.join(scratch, "build-temp"),
               "build_lib": os.path.join(scratch, "build-lib")}
    rec = _run(python, DRIVER_SETUP, request, env, scratch, real_cmake,
               "setup.py", os.path.join(scratch, "setup-py.log"))
    text = read_text(setup_py)
    rec.variables_in_text = variables_in_text(text)
    rec.guards = guards.read(text, os.path.dirname(setup_py))
    rec.cmake_by_env = guards.cmake_defines_by_env(text)
    return rec


def record_backend(python, project, backend, backend_path, env, scratch,
                   config_settings=None, real_cmake=None):
    """The PEP 517 hook build_wheel of backend, with cmake recording."""
    os.makedirs(scratch, exist_ok=True)
    request = {"project": os.path.abspath(project), "backend": backend,
               "backend_path": list(backend_path or []),
               "wheel_dir": os.path.join(scratch, "wheel"),
               "config_settings": config_settings or {}}
    rec = _run(python, DRIVER_BACKEND, request, env, scratch, real_cmake,
               f"the build backend {backend}",
               os.path.join(scratch, "backend.log"))
    rec.build_code = backend_code(project, backend, backend_path)
    for code in rec.build_code:
        for root, _, files in (os.walk(code) if os.path.isdir(code) else
                               [(os.path.dirname(code), [],
                                 [os.path.basename(code)])]):
            for f in files:
                if f.endswith(".py"):
                    text = read_text(os.path.join(root, f))
                    for v in variables_in_text(text):
                        if v not in rec.variables_in_text:
                            rec.variables_in_text.append(v)
                    for k, v in guards.cmake_defines_by_env(text).items():
                        rec.cmake_by_env.setdefault(k, v)
    return rec


def backend_code(project, backend, backend_path):
    """The backend's own code in the project: in each backend-path folder,
    the package or module its name starts with (deepmd-kit's backend-path
    is the project itself, its backend `backend.dp_backend`: the folder
    backend/, not the package deepmd/ it imports), else the folder."""
    top = backend.partition(":")[0].split(".")[0]
    found = []
    for d in backend_path or []:
        folder = os.path.join(project, d)
        for code in (os.path.join(folder, top),
                     os.path.join(folder, top + ".py")):
            if top and os.path.exists(code):
                found.append(os.path.normpath(code))
                break
        else:
            found.append(os.path.normpath(folder))
    return found


def parse_cmake_call(call):
    """A recorded configure as {source, defines, init_caches, env,
    command}: the source directory (absolute), the -D cache entries in
    order, the -C files (our copies), the environment the build set for it,
    and the command as one line."""
    cwd, args = call["cwd"], call["args"]
    source, positional, defines, caches = None, [], {}, []
    i = 0
    takes_value = ("-S", "-B", "-D", "-C", "-G", "-T", "-A", "-U",
                   "--preset", "--toolchain", "--install-prefix")
    while i < len(args):
        a = args[i]
        value = None
        for flag in takes_value:
            if a == flag and i + 1 < len(args):
                value, i = (flag, args[i + 1]), i + 1
                break
            if flag in ("-S", "-B", "-D", "-C", "-G", "-T", "-A", "-U") and \
                    a.startswith(flag) and len(a) > len(flag):
                value = (flag, a[len(flag):])
                break
            if a.startswith(flag + "="):
                value = (flag, a[len(flag) + 1:])
                break
        i += 1
        if value:
            flag, v = value
            if flag == "-S":
                source = os.path.join(cwd, v)
            elif flag == "-D":
                name, eq, val = v.partition("=")
                if eq:
                    defines[name.split(":")[0]] = val
            elif flag == "-C":
                full = os.path.abspath(os.path.join(cwd, v))
                caches.append(call["init_caches"].get(full, full))
            continue
        if not a.startswith("-"):
            positional.append(os.path.join(cwd, a))
    if source is None:
        for p in positional:
            if os.path.isfile(os.path.join(p, "CMakeLists.txt")):
                source = p
                break
    return {"source": os.path.normpath(source) if source else None,
            "defines": defines, "init_caches": caches,
            "env": call.get("env_changes", {}),
            "by": call.get("by"),
            "command": " ".join(shlex.quote(a) for a in ["cmake"] + args)}
