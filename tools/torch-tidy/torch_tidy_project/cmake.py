"""Configuring a CMake project for its compile database alone (nothing is
built), with the torch of the project's Python, in a way that survives the
toolchain: torch's own CMake package first; where that fails (a CUDA the
project does not need, a CMake too old for the toolkit), a stand-in for it
that gives torch's headers and flags only; where configure still fails, a
database from the project's CMake sources and include directories."""
import os
import re
import shlex
import shutil
import subprocess

from . import cdb
from .common import (NOT_THE_PROJECTS, ProjectError, last_lines, read_text,
                     rel)

# CMake variables torch-tidy sets itself: a build's values for them (paths
# of the machine that wrote it) are not taken. The make program belongs to
# the build's generator, which torch-tidy does not take either (scikit-build
# passes ninja's; with CMake's default generator it breaks every try-compile).
OWN_CMAKE_VARS = {"Torch_DIR", "Python_EXECUTABLE", "Python3_EXECUTABLE",
                  "PYTHON_EXECUTABLE", "CMAKE_EXPORT_COMPILE_COMMANDS",
                  "CMAKE_MAKE_PROGRAM"}
# Set for every configure, where the build does not set them: torch's CMake
# package otherwise compiles and runs a CUDA program to pick GPU
# architectures (which fails without a GPU, or where CMake does not know the
# toolkit's dialects), and include paths are kept in the database rather
# than in response files.
DATABASE_DEFAULTS = {"TORCH_CUDA_ARCH_LIST": "8.0",
                     "CMAKE_CUDA_USE_RESPONSE_FILE_FOR_INCLUDES": "OFF",
                     "CMAKE_CXX_USE_RESPONSE_FILE_FOR_INCLUDES": "OFF"}
# A package CMake could not find, and the Debian package that provides it
# (find_package names and pkg-config modules); a package not listed is named
# as CMake names it.
DEBIAN_PACKAGES = {
    "ffmpeg": "libavcodec-dev libavformat-dev libavutil-dev "
              "libswscale-dev libswresample-dev libavdevice-dev "
              "libavfilter-dev",
    "libavcodec": "libavcodec-dev", "libavformat": "libavformat-dev",
    "libavutil": "libavutil-dev", "libswscale": "libswscale-dev",
    "libswresample": "libswresample-dev", "libavdevice": "libavdevice-dev",
    "libavfilter": "libavfilter-dev",
    "zlib": "zlib1g-dev", "png": "libpng-dev", "jpeg": "libjpeg-dev",
    "libpng": "libpng-dev", "libjpeg": "libjpeg-dev",
    "opencv": "libopencv-dev", "opencv4": "libopencv-dev",
    "eigen3": "libeigen3-dev", "boost": "libboost-all-dev",
    "pybind11": "pybind11-dev", "openmp": "libomp-dev",
    "fmt": "libfmt-dev", "spdlog": "libspdlog-dev",
    "nlohmann_json": "nlohmann-json3-dev", "yaml-cpp": "libyaml-cpp-dev",
    "gtest": "libgtest-dev", "protobuf": "libprotobuf-dev protobuf-compiler",
    "openssl": "libssl-dev", "curl": "libcurl4-openssl-dev",
    "blas": "libopenblas-dev", "lapack": "liblapack-dev",
    "tbb": "libtbb-dev", "glog": "libgoogle-glog-dev",
    "gflags": "libgflags-dev", "sox": "libsox-dev",
    "sndfile": "libsndfile1-dev", "libsndfile": "libsndfile1-dev",
    "cuda": "nvidia-cuda-toolkit", "cudatoolkit": "nvidia-cuda-toolkit",
    "python": "python3-dev", "python3": "python3-dev",
    "pythonlibs": "python3-dev", "pkgconfig": "pkgconf",
    "threads": "libc6-dev", "glm": "libglm-dev", "lz4": "liblz4-dev",
    "zstd": "libzstd-dev", "bzip2": "libbz2-dev", "lzma": "liblzma-dev",
    "libzip": "libzip-dev", "jsoncpp": "libjsoncpp-dev",
}


def version_of(cmake):
    """(major, minor, patch) of a cmake binary, or None."""
    try:
        res = subprocess.run([cmake, "--version"], capture_output=True,
                             text=True, timeout=60)
    except (OSError, subprocess.TimeoutExpired):
        return None
    m = re.search(r"version (\d+)\.(\d+)\.?(\d*)", res.stdout)
    return tuple(int(x or 0) for x in m.groups()) if m else None


def parse_version(text):
    m = re.match(r"\s*(\d+)(?:\.(\d+))?(?:\.(\d+))?", text or "")
    return tuple(int(x or 0) for x in m.groups()) if m else None


def show(version):
    return ".".join(map(str, version))


def required_version(source, specifier=None):
    """(version, where) the project requires of CMake, the highest of
    cmake_minimum_required in source/CMakeLists.txt and a '>=X' specifier
    (scikit-build-core's cmake.version); None when neither says."""
    found = []
    top = os.path.join(source, "CMakeLists.txt")
    m = re.search(r"cmake_minimum_required\s*\(\s*VERSION\s+([\d.]+)",
                  read_text(top), re.I)
    if m and parse_version(m.group(1)):
        found.append((parse_version(m.group(1)),
                      f"{rel(top, os.getcwd())} (cmake_minimum_required)"))
    if specifier:
        m = re.search(r">=\s*([\d.]+)", specifier)
        if m and parse_version(m.group(1)):
            found.append((parse_version(m.group(1)),
                          f"pyproject.toml (cmake.version {specifier})"))
    return max(found) if found else None


def find_cmake(explicit, python, requirement):
    """The cmake to configure with: --cmake, else the first of PATH's and
    the project's Python environments' (PyPI's cmake) that is new enough.
    python: a Python or a list of them (the build's isolated environment and
    the --python it was made from: a cmake pip put beside the latter is not
    beside the former). ProjectError naming what would do where none is."""
    candidates = []
    if explicit:
        candidates = [explicit]
    else:
        candidates = [shutil.which("cmake")]
        for p in ([python] if isinstance(python, str) else python or []):
            if p:
                beside = os.path.join(os.path.dirname(
                    os.path.abspath(shutil.which(p) or p)), "cmake")
                if beside not in candidates:
                    candidates.append(beside)
    seen = []
    for c in candidates:
        if not c or not os.path.isfile(c) or not os.access(c, os.X_OK):
            continue
        v = version_of(c)
        if v is None:
            continue
        seen.append((c, v))
        if requirement is None or v >= requirement[0]:
            return c, v
    if not seen:
        raise ProjectError(
            ("--cmake " + explicit + ": not a cmake that runs") if explicit
            else "this is a CMake project and there is no cmake on PATH "
                 "(Debian: apt-get install cmake; or pip install cmake into "
                 "the project's environment)")
    have = ", ".join(f"{show(v)} ({c})" for c, v in seen)
    need = show(requirement[0])
    raise ProjectError(
        f"CMake {have} is older than {need}, which {requirement[1]} "
        f"requires: a CMake >= {need} would do (pip install 'cmake>={need}' "
        f"into the project's environment is found there by itself, or pass "
        f"--cmake PATH)")


def torch_stand_in(directory, torch):
    """A CMake package named Torch that gives the torch of the project's
    Python as headers and compile flags only: no libraries, no CUDA. Enough
    for a compile database; written to directory."""
    os.makedirs(directory, exist_ok=True)
    abi = f"-D_GLIBCXX_USE_CXX11_ABI={torch['cxx11_abi']}"
    includes = ";".join(torch["include_paths"])
    with open(os.path.join(directory, "TorchConfig.cmake"), "w") as f:
        f.write(f"""# Written by torch-tidy: a stand-in for torch {torch['version']}'s
# CMake package, for a compile database only (its headers and flags; no
# libraries, no CUDA). See docs/extensions.md.
set(TORCH_INSTALL_PREFIX "{torch['torch_dir']}")
set(TORCH_INCLUDE_DIRS "{includes}")
set(TORCH_CXX_FLAGS "{abi}")
set(TORCH_LIBRARIES torch)
foreach(_t torch torch_library torch_cpu torch_cuda c10 c10_cuda torch_python)
  if(NOT TARGET ${{_t}})
    add_library(${{_t}} INTERFACE IMPORTED)
  endif()
endforeach()
set_target_properties(torch PROPERTIES
  INTERFACE_INCLUDE_DIRECTORIES "${{TORCH_INCLUDE_DIRS}}"
  INTERFACE_COMPILE_OPTIONS "{abi}")
foreach(_t torch_library torch_cpu torch_cuda c10 c10_cuda torch_python)
  set_target_properties(${{_t}} PROPERTIES INTERFACE_LINK_LIBRARIES torch)
endforeach()
set(Torch_FOUND TRUE)
set(TORCH_FOUND TRUE)
""")
    with open(os.path.join(directory, "TorchConfigVersion.cmake"), "w") as f:
        f.write(f"""set(PACKAGE_VERSION "{torch['release']}")
set(PACKAGE_VERSION_COMPATIBLE TRUE)
if(PACKAGE_FIND_VERSION STREQUAL PACKAGE_VERSION)
  set(PACKAGE_VERSION_EXACT TRUE)
endif()
""")
    return directory


def _unset_command_variable(log):
    """(file:line, VAR) where the failure is an execute_process whose
    COMMAND is a variable the configure has not set (a project's own
    `execute_process(COMMAND ${PYTHON_INTERP} -c "import torch ...")`)."""
    m = re.search(r"^CMake Error at ([^\n]+?):(\d+) \(execute_process\):\s*\n"
                  r"\s+execute_process given COMMAND argument with no value",
                  log, re.M)
    if not m:
        return None
    lines = read_text(m.group(1)).splitlines()
    text = "\n".join(lines[int(m.group(2)) - 1:int(m.group(2)) + 5])
    var = re.search(r"COMMAND\s+\"?\$\{(\w+)\}", text)
    return (f"{os.path.basename(m.group(1))}:{m.group(2)}",
            var.group(1) if var else None)


def _download(log):
    """What a failed FetchContent / ExternalProject download fetched, or
    None: '<name>' (or '' where the log does not name it)."""
    if not re.search(r"FetchContent|ExternalProject|-populate", log):
        return None
    if not re.search(r"Failed to (?:clone|download)|Could not resolve host|"
                     r"unable to access|Build step for \S+ failed|"
                     r"refused: the project's build runs under torch-tidy|"
                     r"download failed|error: downloading", log):
        return None
    m = re.search(r"Build step for (\S+) failed|(\w+)-populate", log)
    return (m.group(1) or m.group(2)) if m else ""


def declared_options(source):
    """{NAME: default} of the option() calls in a CMake project's
    CMakeLists.txt files (third-party folders left out)."""
    options = {}
    for text in cmake_directories(source).values():
        for m in re.finditer(r"\boption\s*\(\s*(\w+)\s+\"[^\"]*\"\s*"
                             r"(ON|OFF|TRUE|FALSE|YES|NO|1|0)?\s*\)", text,
                             re.I):
            options.setdefault(m.group(1), (m.group(2) or "OFF").upper())
    return options


def _options_named(text, given, declared):
    """Where the project's own check refuses a combination of options (a
    preset's constraint, "Use of 'X' requires 'Y'"): the options its error
    names, each with the value this configure gave it or its default, and
    what sets them; "" where it names none."""
    named = []
    for name in re.findall(r"\b[A-Za-z_][A-Za-z0-9_]{2,}\b", text):
        if name not in named and (name in given or name in declared):
            named.append(name)
    if not named:
        return ""
    parts = [f"{n}={given[n]} (given)" if n in given else
             f"{n} not given (default {declared[n]})" for n in named]
    return (f" (the options it names: {', '.join(parts)}; one build's "
            f"combination is given with -D VAR=VALUE, e.g. the options of "
            f"the project's preset or its documented build)")


def configure_failure(log, project=None, given=None, declared=None):
    """(kind, one line): why CMake could not configure. kind is 'package'
    (a package is missing), 'submodule' (a path in an empty git submodule),
    'download' (FetchContent or ExternalProject could not fetch),
    'variable' (execute_process of a variable the configure has not set) or
    'other'."""
    # Only what CMake Error blocks say: an optional find_package prints the
    # same words as a warning ("CMake Warning ... Could not find a package
    # configuration file") or a status line ("-- Could NOT find X").
    errors = "\n".join(re.findall(r"^CMake Error[^\n]*\n((?:[ \t]+\S.*\n|"
                                  r"[ \t]*\n(?=[ \t]+\S))+)", log, re.M))
    m = re.search(r'Could not find a package configuration file provided by'
                  r'\s+"([^"]+)"', errors)
    if not m:
        m = re.search(r"^[ \t]+Could NOT find (\S+)", errors, re.M)
    # pkg_check_modules(... REQUIRED) names the missing modules in its
    # status lines, then fails with "A required package was not found".
    pkgconfig = re.findall(
        r"(?:^\s+-\s+(\S+)\s*$|None of the required '([^']+)'|"
        r"Package '([^']+)',? required by .*?not found|"
        r"No package '([^']+)' found)", log, re.M) \
        if "A required package was not found" in errors else []
    missing = [m.group(1)] if m else []
    if not missing and pkgconfig:
        missing = sorted({next(x for x in g if x) for g in pkgconfig})
    if missing:
        names = [re.split(r"[<>=\s]", pkg)[0] for pkg in missing]
        debs = []
        for name in names:
            for deb in DEBIAN_PACKAGES.get(name.lower(), "").split():
                if deb not in debs:
                    debs.append(deb)
        said = (("a package is" if len(names) == 1 else "packages are") +
                " missing: " + ", ".join(names))
        return "package", said + (f" (Debian: apt-get install "
                                  f"{' '.join(debs)})" if debs else "")
    unset = _unset_command_variable(log)
    if unset:
        where, var = unset
        return "variable", (
            f"CMake error at {where}: execute_process runs "
            f"{'${' + var + '}' if var else 'a variable'}, which this configure "
            f"does not set" + (f" (a variable of the project's own: -D {var}="
                               f"PATH brings it in, e.g. the Python of "
                               f"--python)" if var else ""))
    fetched = _download(log)
    if fetched is not None:
        return "download", (
            f"CMake's configure downloads {fetched or 'a dependency'} "
            f"(FetchContent or ExternalProject), which torch-tidy does not "
            f"do: fetch it first, or give CMake its sources "
            f"(-D FETCHCONTENT_SOURCE_DIR_{(fetched or 'NAME').upper()}=PATH, "
            f"-D FETCHCONTENT_FULLY_DISCONNECTED=ON)")
    m = re.search(r"CMake Error(?: at ([^:\n]+:\d+))?[^\n]*:\n"
                  r"((?:[ \t]+\S.*\n|[ \t]*\n(?=[ \t]+\S))+)", log)
    if m:
        where = f" at {m.group(1)}" if m.group(1) else ""
        text = " ".join(m.group(2).split())
        said = f"CMake error{where}: {text[:240]}"
        if project:
            # A path in an empty git submodule: say so.
            modules = read_text(os.path.join(project, ".gitmodules"))
            for path in re.findall(r"^\s*path\s*=\s*(\S+)", modules, re.M):
                full = os.path.join(project, path)
                if path in text and (not os.path.isdir(full) or
                                     not os.listdir(full)):
                    return "submodule", said + (
                        f" ({path} is an empty git submodule: git submodule "
                        f"update --init, or give torch-tidy-cdb the sources "
                        f"and -I flags)")
        said += _options_named(text, given or {}, declared or {})
        if re.search(r'requires the language dialect "CUDA\d*"', text):
            said += (" (this CMake does not know the flags of this nvcc: a "
                     "newer CMake would, e.g. pip install cmake into the "
                     "project's environment, or --cmake PATH)")
        return "other", said
    lines = [l for l in log.splitlines() if l.strip()]
    return "other", lines[-1][:200] if lines else "no output"


def error_in(log, directory):
    """Whether a CMake error of log is located in a file below directory."""
    top = os.path.realpath(directory) + os.sep
    return any(os.path.realpath(p).startswith(top) for p in
               re.findall(r"^CMake Error at ([^:\n]+):\d+", log, re.M))


class Configured:
    """The outcome of configure(): the database's directory, how it was
    made (one line) and what the reader should know (lines)."""

    def __init__(self, directory, how, notes):
        self.directory, self.how, self.notes = directory, how, notes


def configure(cmake, source, build, torch, defines, init_caches, env,
              project, mirror=None):
    """Configures source into build for its compile database (or, given a
    tree_copy.Mirror, its copy of source, the logs read with the tree's
    paths). Tries torch's own CMake package, then torch-tidy's stand-in for
    it. Returns
    Configured (its directory None where both failed and the caller should
    fall back to the sources), or raises ProjectError for a failure that a
    database from the sources would not mend (a missing package, an empty
    submodule)."""
    plan = {}
    prefix = torch["cmake_prefix_path"]
    plan["Torch_DIR"] = os.path.join(prefix, "Torch")
    theirs = defines.get("CMAKE_PREFIX_PATH", "")
    plan["CMAKE_PREFIX_PATH"] = ";".join(
        [prefix] + [p for p in theirs.split(";") if p and p != prefix])
    for var in ("Python_EXECUTABLE", "Python3_EXECUTABLE",
                "PYTHON_EXECUTABLE"):
        plan[var] = torch["executable"]
    for k, v in defines.items():
        if k not in OWN_CMAKE_VARS and k != "CMAKE_PREFIX_PATH":
            plan[k] = v
    for k, v in DATABASE_DEFAULTS.items():
        if k not in plan and k not in env:
            plan[k] = v
    plan["CMAKE_EXPORT_COMPILE_COMMANDS"] = "ON"
    notes = []
    run = mirror.source if mirror else source
    shown = mirror.text if mirror else (lambda text: text)
    cwd = mirror.cwd() if mirror else None
    first = _configure(cmake, run, build, plan, init_caches, env, shown, cwd)
    if first[0]:
        return Configured(build, "CMake configure", notes)
    given = {k: v for k, v in defines.items() if k not in OWN_CMAKE_VARS}
    declared = declared_options(source)
    kind, why = configure_failure(first[1], project, given, declared)
    # A package torch's own CMake files look for (CUDA, cuDNN) is theirs to
    # need, not the project's: the stand-in is tried for it.
    if kind in ("package", "submodule") and \
            not error_in(first[1], torch["torch_dir"]):
        raise ProjectError(f"CMake could not configure {source}: {why} "
                           f"(log: {first[2]}; -D VAR=VALUE passes options)")
    # A download the configure could not make, or a variable it runs that
    # is not set, is the project's: a stand-in for torch's package would
    # fail the same way (the same error twice).
    if kind in ("download", "variable") and \
            not error_in(first[1], torch["torch_dir"]):
        notes.append(f"CMake could not configure: {why} (log: {first[2]})")
        return Configured(None, None, notes)
    stand_in = torch_stand_in(os.path.join(os.path.dirname(build),
                                           "torch-stand-in"), torch)
    second = _configure(cmake, run, build,
                        dict(plan, Torch_DIR=stand_in), init_caches, env,
                        shown, cwd,
                        log_name="torch-tidy-configure-stand-in.log")
    # The failure is torch's package's only where its error is in torch's
    # own CMake files; else it is named as the project's.
    notes.append((f"torch's own CMake package did not configure: {why}"
                  if error_in(first[1], torch["torch_dir"]) else
                  f"CMake could not configure: {why}") +
                 f" (log: {first[2]})")
    if second[0]:
        notes.append(f"configured with torch-tidy's stand-in for torch's "
                     f"CMake package (torch {torch['version']}'s headers and "
                     f"flags; no libraries, no CUDA toolchain)")
        return Configured(build, "CMake configure, torch stand-in", notes)
    kind2, why2 = configure_failure(second[1], project, given, declared)
    if kind2 in ("package", "submodule"):
        raise ProjectError(f"CMake could not configure {source}: {why2} "
                           f"(log: {second[2]}; -D VAR=VALUE passes options)")
    notes.append(f"with torch-tidy's stand-in for torch's package it did not "
                 f"either: {why2} (log: {second[2]})")
    return Configured(None, None, notes)


def _configure(cmake, source, build, plan, init_caches, env, shown,
               cwd=None, log_name="torch-tidy-configure.log"):
    """(success, log text as shown(), log path)."""
    os.makedirs(build, exist_ok=True)
    # A fresh cache: packages found for another torch are not kept.
    for stale in ("CMakeCache.txt", "compile_commands.json"):
        if os.path.exists(os.path.join(build, stale)):
            os.remove(os.path.join(build, stale))
    shutil.rmtree(os.path.join(build, "CMakeFiles"), ignore_errors=True)
    cmd = [cmake, "-S", source, "-B", build, "-Wno-dev"]
    for c in init_caches:
        cmd += ["-C", c]
    cmd += [f"-D{k}={v}" for k, v in plan.items()]
    try:
        res = subprocess.run(cmd, capture_output=True, text=True,
                             errors="replace", timeout=900, env=env, cwd=cwd)
        log, code = res.stdout + res.stderr, res.returncode
    except subprocess.TimeoutExpired as e:
        log, code = str(e), -1
    except OSError as e:
        log, code = f"cannot run {cmake}: {e.strerror}", -1
    log_path = os.path.join(build, log_name)
    with open(log_path, "w") as f:
        f.write(" ".join(shlex.quote(c) for c in cmd) + "\n\n" + log)
    ok = code == 0 and os.path.isfile(os.path.join(build,
                                                   "compile_commands.json"))
    return ok, shown(log), rel(log_path, os.getcwd())


_CMAKE_TOKENS = re.compile(r'"(?:\\.|[^"\\])*"'      # a quoted argument
                           r'|#\[(=*)\[.*?\]\1\]'       # a bracket comment
                           r'|#[^\n]*', re.S)             # a line comment


def strip_comments(text):
    """A CMakeLists.txt's text without its comments (`PRIVATE "X" # fix
    header path` defines no `fix`), newlines kept; a `#` inside a quoted
    argument stays."""
    def keep(m):
        t = m.group(0)
        return t if t.startswith('"') else "\n" * t.count("\n")
    return _CMAKE_TOKENS.sub(keep, text)


def cmake_directories(source):
    """{CMakeLists.txt path: its text, comments left out} under source
    (other projects' code, tests and builds left out)."""
    found = {}
    for root, dirs, files in os.walk(source):
        dirs[:] = sorted(d for d in dirs if not NOT_THE_PROJECTS.match(d))
        if "CMakeLists.txt" in files:
            path = os.path.join(root, "CMakeLists.txt")
            found[path] = strip_comments(read_text(path))
    return found


def _substitute(token, here, source, variables):
    """token with CMake's directory variables and earlier set() values put
    in; None where it holds what this reading cannot evaluate."""
    token = re.sub(r"\$<BUILD_INTERFACE:([^>]*)>", r"\1", token.strip('"'))
    if "$<" in token:
        return None
    token = token.replace("${CMAKE_CURRENT_SOURCE_DIR}", here) \
        .replace("${CMAKE_CURRENT_LIST_DIR}", here) \
        .replace("${PROJECT_SOURCE_DIR}", source) \
        .replace("${CMAKE_SOURCE_DIR}", source)
    token = re.sub(r"\$\{(\w+)\}",
                   lambda m: variables.get(m.group(1), "\0"), token)
    return None if "\0" in token or "$" in token else token


def _expand(token, here, source, variables):
    """A directory named in a CMakeLists.txt, absolute, or None."""
    token = _substitute(token, here, source, variables)
    return os.path.normpath(os.path.join(here, token)) if token else None


def sources_database(source, torch, shim_dir, cuda_path=None):
    """Entries for a CMake project's sources where CMake cannot configure:
    every .cpp/.cc/.cxx (.cu where a CUDA toolkit is there) below source but
    third-party code, tests and builds; the include directories its
    CMakeLists.txt files name (include_directories,
    target_include_directories), source itself and every 'include' folder;
    the definitions it adds (add_definitions, add_compile_definitions,
    target_compile_definitions) where they are literal. Returns (entries,
    one line saying what was read)."""
    lists = cmake_directories(source)
    variables, includes, defines = {}, [source], []
    name = "extension"
    for path, text in lists.items():
        here = os.path.dirname(path)
        for m in re.finditer(r"\bset\s*\(\s*(\w+)\s+([^\s)]+)\s*\)", text,
                             re.I):
            value = _substitute(m.group(2), here, source, variables)
            if value is not None:
                variables[m.group(1)] = value
        m = re.search(r"\bproject\s*\(\s*(\w+)", text, re.I)
        if m and path == os.path.join(source, "CMakeLists.txt"):
            name = m.group(1)
        for m in re.finditer(r"\b(?:target_)?include_directories\s*\(([^)]*)"
                             r"\)", text, re.I):
            tokens = m.group(1).split()
            if m.group(0).lower().startswith("target_"):
                tokens = tokens[1:]
            for t in tokens:
                if t.upper() in ("SYSTEM", "BEFORE", "AFTER", "PUBLIC",
                                 "PRIVATE", "INTERFACE"):
                    continue
                d = _expand(t, here, source, variables)
                if d and os.path.isdir(d) and d not in includes:
                    includes.append(d)
        for m in re.finditer(r"\b(add_definitions|add_compile_definitions|"
                             r"target_compile_definitions)\s*\(([^)]*)\)",
                             text, re.I):
            tokens = m.group(2).split()
            if m.group(1).lower().startswith("target_"):
                tokens = tokens[1:]
            for t in tokens:
                t = t.strip('"')
                if t.upper() in ("PUBLIC", "PRIVATE", "INTERFACE") or \
                        "$" in t:
                    continue
                t = t[2:] if t.startswith("-D") else t
                if re.match(r"^[A-Za-z_]\w*(=\S*)?$", t) and t not in defines:
                    defines.append(t)
    for root, dirs, _ in os.walk(source):
        dirs[:] = [d for d in dirs if not NOT_THE_PROJECTS.match(d)]
        if os.path.basename(root) == "include" and root not in includes:
            includes.append(root)
    sources = []
    for root, dirs, files in os.walk(source):
        dirs[:] = sorted(d for d in dirs if not NOT_THE_PROJECTS.match(d))
        sources += [os.path.join(root, f) for f in sorted(files)
                    if f.endswith(cdb.SOURCE_EXTENSIONS)]
    dropped = 0
    if any(s.endswith(".cu") for s in sources) and not cdb.cuda_flags_for(
            cdb.cuda_toolkit(cuda_path, torch), shim_dir):
        dropped = sum(s.endswith(".cu") for s in sources)
        sources = [s for s in sources if not s.endswith(".cu")]
    items = cdb.for_sources(sources, torch, source, shim_dir, name,
                            cuda_path, includes=includes, defines=defines)
    said = (f"a database from the CMake sources: {len(items)} files below "
            f"{rel(source, os.getcwd())}, {len(includes)} include "
            f"directories and {len(defines)} definitions from "
            f"{len(lists)} CMakeLists.txt files")
    if dropped:
        said += f"; {dropped} .cu files left out (no CUDA toolkit)"
    return items, said
