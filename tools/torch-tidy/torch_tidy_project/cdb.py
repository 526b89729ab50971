"""Compile commands for sources a cpp_extension build compiles, without
building them: torch-tidy-cdb, and the database torch-tidy-project makes for
a setup.py's CppExtension / CUDAExtension modules or, where CMake cannot
configure, for a CMake project's sources."""
import argparse
import json
import os
import re
import sys
import tempfile

from . import recorder, sycl, torchenv
from .flags import kept_flags
from .flags import not_passed as flags_not_passed
from .common import SCRATCH, ProjectError, read_text, scratch_dir
from .torchenv import default_std

SOURCE_EXTENSIONS = (".cpp", ".cc", ".cxx", ".cu") + sycl.SYCL_EXTENSIONS
# torch.utils.cpp_extension.COMMON_NVCC_FLAGS, less nvcc's own options.
NVCC_DEFINES = ["-D__CUDA_NO_HALF_OPERATORS__",
                "-D__CUDA_NO_HALF_CONVERSIONS__",
                "-D__CUDA_NO_BFLOAT16_CONVERSIONS__",
                "-D__CUDA_NO_HALF2_OPERATORS__"]
# Included by clang's __clang_cuda_runtime_wrapper.h (clang 19), removed in
# CUDA 13; only the missing ones get an empty stand-in.
CUDA_SHIM_HEADERS = ("texture_fetch_functions.h",
                     "texture_indirect_functions.h",
                     "surface_indirect_functions.h")


def base_flags(torch, std=None, includes=(), defines=()):
    """What every cpp_extension compile gets from the torch it builds
    against (less TORCH_EXTENSION_NAME, which is per extension)."""
    flags = [f"-std={std or default_std(torch['version'])}",
             "-DTORCH_API_INCLUDE_EXTENSION_H",
             f"-D_GLIBCXX_USE_CXX11_ABI={torch['cxx11_abi']}"]
    flags += [f"-I{os.path.abspath(d)}" for d in includes]
    flags += [f"-D{d}" for d in defines]
    for d in torch["include_paths"] + [torch["python_include"]]:
        flags += ["-isystem", d]
    return flags


def cuda_toolkit(explicit, torch):
    """The CUDA toolkit .cu sources are parsed with."""
    return (explicit or os.environ.get("CUDA_HOME") or torch.get("cuda_home")
            or "/usr/local/cuda")


# nvcc's host min and max (CUDA's math_functions.hpp declares them __host__
# __device__), which clang's CUDA mode declares for the device only: host
# launch code's `max(bdimx, WARP_SIZE)` (torch-harmonics' attention kernels)
# would not parse; and the cache-hint loads and stores clang 19 lacks.
# Force-included into every .cu entry.
NVCC_HOST_HEADER = "torch_tidy_nvcc_host.h"
NVCC_HOST_TEXT = """\
// Written by torch-tidy: nvcc's host overloads of min and max (CUDA's
// math_functions.hpp), which clang's CUDA mode declares for the device only.
#pragma once
#if defined(__CUDA__) && !defined(__CUDA_ARCH__)
#define TORCH_TIDY_MIN_MAX(A, B, R)                                         \\
  static inline __host__ R min(A a, B b) {                                  \\
    return (R)a < (R)b ? (R)a : (R)b;                                       \\
  }                                                                         \\
  static inline __host__ R max(A a, B b) { return (R)a > (R)b ? (R)a : (R)b; }
TORCH_TIDY_MIN_MAX(int, int, int)
TORCH_TIDY_MIN_MAX(unsigned int, unsigned int, unsigned int)
TORCH_TIDY_MIN_MAX(int, unsigned int, unsigned int)
TORCH_TIDY_MIN_MAX(unsigned int, int, unsigned int)
TORCH_TIDY_MIN_MAX(long, long, long)
TORCH_TIDY_MIN_MAX(unsigned long, unsigned long, unsigned long)
TORCH_TIDY_MIN_MAX(long, unsigned long, unsigned long)
TORCH_TIDY_MIN_MAX(unsigned long, long, unsigned long)
TORCH_TIDY_MIN_MAX(long long, long long, long long)
TORCH_TIDY_MIN_MAX(unsigned long long, unsigned long long, unsigned long long)
TORCH_TIDY_MIN_MAX(long long, unsigned long long, unsigned long long)
TORCH_TIDY_MIN_MAX(unsigned long long, long long, unsigned long long)
TORCH_TIDY_MIN_MAX(float, float, float)
TORCH_TIDY_MIN_MAX(double, double, double)
TORCH_TIDY_MIN_MAX(float, double, double)
TORCH_TIDY_MIN_MAX(double, float, double)
#undef TORCH_TIDY_MIN_MAX
#endif
// The cache-hint loads and stores (__ldcs, __stcg, ...), which nvcc has
// and clang's CUDA headers lack (19 all of them, 22 all but __ldcg, __ldcs,
// __ldcv and __stwt): declared, for the host side's reading of device code
// (deepmd-kit's dpa1 kernels call __ldcs(const float4 *)). Where clang
// defines one, this is a redeclaration.
#if defined(__CUDA__)
#define TORCH_TIDY_CACHE_HINTS(T)                                           \
  __device__ T __ldcg(const T *);                                           \
  __device__ T __ldca(const T *);                                           \
  __device__ T __ldcs(const T *);                                           \
  __device__ T __ldlu(const T *);                                           \
  __device__ T __ldcv(const T *);                                           \
  __device__ void __stwb(T *, T);                                           \
  __device__ void __stcg(T *, T);                                           \
  __device__ void __stcs(T *, T);                                           \
  __device__ void __stwt(T *, T);
TORCH_TIDY_CACHE_HINTS(char)
TORCH_TIDY_CACHE_HINTS(signed char)
TORCH_TIDY_CACHE_HINTS(short)
TORCH_TIDY_CACHE_HINTS(int)
TORCH_TIDY_CACHE_HINTS(long)
TORCH_TIDY_CACHE_HINTS(long long)
TORCH_TIDY_CACHE_HINTS(unsigned char)
TORCH_TIDY_CACHE_HINTS(unsigned short)
TORCH_TIDY_CACHE_HINTS(unsigned int)
TORCH_TIDY_CACHE_HINTS(unsigned long)
TORCH_TIDY_CACHE_HINTS(unsigned long long)
TORCH_TIDY_CACHE_HINTS(float)
TORCH_TIDY_CACHE_HINTS(double)
TORCH_TIDY_CACHE_HINTS(char2)
TORCH_TIDY_CACHE_HINTS(char4)
TORCH_TIDY_CACHE_HINTS(short2)
TORCH_TIDY_CACHE_HINTS(short4)
TORCH_TIDY_CACHE_HINTS(int2)
TORCH_TIDY_CACHE_HINTS(int4)
TORCH_TIDY_CACHE_HINTS(longlong2)
TORCH_TIDY_CACHE_HINTS(uchar2)
TORCH_TIDY_CACHE_HINTS(uchar4)
TORCH_TIDY_CACHE_HINTS(ushort2)
TORCH_TIDY_CACHE_HINTS(ushort4)
TORCH_TIDY_CACHE_HINTS(uint2)
TORCH_TIDY_CACHE_HINTS(uint4)
TORCH_TIDY_CACHE_HINTS(ulonglong2)
TORCH_TIDY_CACHE_HINTS(float2)
TORCH_TIDY_CACHE_HINTS(float4)
TORCH_TIDY_CACHE_HINTS(double2)
#undef TORCH_TIDY_CACHE_HINTS
#endif
"""


def nvcc_host_header(shim_dir):
    """The force-included header of nvcc's host min/max, written to
    shim_dir (its path)."""
    _made(shim_dir)
    path = os.path.join(shim_dir, NVCC_HOST_HEADER)
    if read_text(path) != NVCC_HOST_TEXT:
        with open(path, "w") as f:
            f.write(NVCC_HOST_TEXT)
    return path


def _made(shim_dir):
    parent = os.path.dirname(os.path.abspath(shim_dir))
    if os.path.basename(parent) == SCRATCH:
        scratch_dir(os.path.dirname(parent), os.path.basename(shim_dir))
    os.makedirs(shim_dir, exist_ok=True)


def cuda_shim(cuda_include, shim_dir):
    """An -isystem directory with empty stand-ins for the headers clang's CUDA
    wrapper includes but this toolkit lacks, or None when none is missing."""
    missing = [h for h in CUDA_SHIM_HEADERS
               if not os.path.exists(os.path.join(cuda_include, h))]
    if not missing:
        return None
    _made(shim_dir)
    for h in missing:
        if os.path.exists(os.path.join(shim_dir, h)):
            continue
        with open(os.path.join(shim_dir, h), "w") as f:
            f.write("// Empty stand-in written by torch-tidy: this CUDA "
                    "toolkit\n// no longer has the header, which clang's CUDA "
                    "wrapper includes.\n#pragma once\n")
    return shim_dir


def cuda_flags_for(cuda, shim_dir):
    """How CUDA sources are parsed: (flags every entry gets, flags .cu entries
    get first). The toolkit's include directory (and CUDA 13's cccl) for
    every entry, as CUDAExtension adds it; for .cu sources clang's CUDA mode,
    host side, the stand-ins for headers clang's CUDA wrapper includes but
    the toolkit lacks (written to shim_dir), and torch's nvcc defines. None
    when there is no toolkit at cuda."""
    cuda_include = os.path.join(cuda, "include")
    if not os.path.exists(os.path.join(cuda_include, "cuda.h")):
        return None
    common = ["-isystem", cuda_include]
    if os.path.isdir(os.path.join(cuda_include, "cccl")):
        common += ["-isystem", os.path.join(cuda_include, "cccl")]
    return common, cuda_host_flags(cuda, shim_dir) + NVCC_DEFINES


def cuda_host_flags(cuda, shim_dir):
    """clang's CUDA mode, host side, with the toolkit at cuda."""
    cu = ["-x", "cuda", "--cuda-host-only", f"--cuda-path={cuda}",
          "-Wno-unknown-cuda-version"]
    shim = cuda_shim(os.path.join(cuda, "include"), shim_dir)
    if shim:
        cu += ["-isystem", shim]
    return cu + ["-include", nvcc_host_header(shim_dir)]


def setup_entries(exts, base, cuda_flags, directory="."):
    """(file, flags) per source, the richest set where two extensions build
    one source. directory: setup.py's, where extra_compile_args' relative
    paths start."""
    best = {}
    # CppExtension adds torch's (and CUDA's) include paths to include_dirs:
    # they stay system directories, as in base.
    system = {os.path.normpath(a) for a in base + list(cuda_flags[0] if
                                                       cuda_flags else [])
              if not a.startswith("-")}
    for e in exts:
        name = e["name"].split(".")[-1]
        own = [f"-DTORCH_EXTENSION_NAME={name}"]
        own += [f"-I{d}" for d in e["include_dirs"]
                if os.path.normpath(d) not in system]
        own += [f"-D{k}" if v is None else f"-D{k}={v}"
                for k, v in e["define_macros"]]
        own += [f"-U{u}" for u in e["undef_macros"]]
        for src in e["sources"]:
            # BuildExtension gives a .cu source extra_compile_args["nvcc"],
            # a .sycl source extra_compile_args["sycl"] (SyclExtension) and
            # a C++ source extra_compile_args["cxx"].
            cu = src.endswith(".cu")
            sy = sycl.is_sycl_source(src)
            extra = kept_flags(e["nvcc"] if cu else
                               e.get("sycl", []) if sy else e["cxx"],
                               directory)
            flags = ((cuda_flags[1] if cu else []) +
                     (sycl.parse_flags() if sy else []) +
                     base + (list(cuda_flags[0]) if cuda_flags else []) +
                     own + extra)
            # A later -std= wins, as with the compiler.
            if src not in best or len(flags) > len(best[src]):
                best[src] = flags
    return best


def not_passed(exts):
    """{flag: [sources]} of the flags setup.py's extensions pass that change
    how a source parses but that setup_entries does not keep (-fopenmp)."""
    out = {}
    for e in exts:
        for src in e["sources"]:
            args = e["nvcc"] if src.endswith(".cu") else \
                e.get("sycl", []) if sycl.is_sycl_source(src) else e["cxx"]
            for flag in flags_not_passed(args):
                if src not in out.setdefault(flag, []):
                    out[flag].append(src)
    return out


def find_sources(paths):
    found = []
    for p in paths:
        if os.path.isdir(p):
            for root, dirs, files in os.walk(p):
                dirs[:] = sorted(d for d in dirs if not d.startswith("."))
                found += [os.path.join(root, f) for f in sorted(files)
                          if f.endswith(SOURCE_EXTENSIONS)]
        elif os.path.isfile(p):
            if not p.endswith(SOURCE_EXTENSIONS):
                raise ProjectError(f"{p}: not a C++, CUDA or SYCL source "
                                   f"(.cpp, .cc, .cxx, .cu, .sycl)")
            found.append(p)
        else:
            raise ProjectError(f"{p}: no such file or directory")
    unique = []
    for f in map(os.path.abspath, found):
        if f not in unique:
            unique.append(f)
    return unique


def entries(sources, flags_of, directory):
    return [{"directory": directory,
             "arguments": ["clang++", *flags_of(src), "-c", src],
             "file": src} for src in sources]


def write(path, items):
    os.makedirs(os.path.dirname(os.path.abspath(path)), exist_ok=True)
    with open(path, "w") as f:
        json.dump(items, f, indent=2)
        f.write("\n")


def for_extensions(exts, torch, directory, shim_dir, cuda_path=None,
                   std=None):
    """Entries for the extensions setup.py defines (recorder.SetupRecord's
    extensions); ProjectError where a source is missing, there is none, or
    a .cu source has no toolkit."""
    sources = []
    for e in exts:
        sources += [s for s in e["sources"] if s not in sources]
    missing = [s for s in sources if not os.path.isfile(s)]
    if missing:
        raise ProjectError(f"setup.py names a source that does not exist: "
                           f"{missing[0]}")
    cuda_flags = _cuda(sources, torch, cuda_path, shim_dir)
    per_file = setup_entries(exts, base_flags(torch, std), cuda_flags,
                             directory)
    return entries(sources, per_file.get, directory)


def for_sources(sources, torch, directory, shim_dir, name, cuda_path=None,
                std=None, includes=(), defines=()):
    """Entries for sources given by hand (torch-tidy-cdb SOURCES, or a CMake
    project's sources where CMake cannot configure)."""
    cuda_flags = _cuda(sources, torch, cuda_path, shim_dir)
    common = base_flags(torch, std, includes, defines) + \
        [f"-DTORCH_EXTENSION_NAME={name}"]
    if cuda_flags:
        common += cuda_flags[0]

    def flags(src):
        if sycl.is_sycl_source(src):
            return sycl.parse_flags() + common
        return cuda_flags[1] + common if src.endswith(".cu") else common
    return entries(sources, flags, directory)


def _cuda(sources, torch, cuda_path, shim_dir):
    if not any(s.endswith(".cu") for s in sources):
        return None
    cuda = cuda_toolkit(cuda_path, torch)
    flags = cuda_flags_for(cuda, shim_dir)
    if not flags:
        raise ProjectError(f"no CUDA toolkit at {cuda} (no include/cuda.h), "
                           f"needed for the .cu sources: pass --cuda-path or "
                           f"set CUDA_HOME")
    return flags


def summary_line(path, items, torch, cwd=None):
    n_cuda = sum(e["file"].endswith(".cu") for e in items)
    std = next((a for a in items[0]["arguments"] if a.startswith("-std=")),
               "") if items else ""
    shown = os.path.relpath(path, cwd) if cwd else path
    return (f"wrote {shown}: {len(items)} "
            f"{'entry' if len(items) == 1 else 'entries'} ({n_cuda} CUDA), "
            f"torch {torch['version']}, {std}")


USAGE = """torch-tidy-cdb: write a compile_commands.json for a
torch.utils.cpp_extension (setup.py) project without building it, so that
torch-tidy (or clang-tidy, run-clang-tidy) can parse its sources with torch's
headers.

With --setup-py it reads the project's own extensions instead: setup.py is
run by PY with setuptools' setup() replaced by one that only records its
ext_modules (nothing is built), and each CppExtension / CUDAExtension gives
its sources, include_dirs, define_macros, undef_macros, the
-D/-U/-I/-isystem/-include/-std and the target's and language's flags
(-march=, -m<isa> such as -mavx512f and -mfma, -fno-rtti, ...) of its
extra_compile_args ("cxx" for C++ sources, "nvcc" for .cu ones, as
BuildExtension compiles them) and TORCH_EXTENSION_NAME (the last component
of its name); -fopenmp is not passed (the summary says so: clang finds
<omp.h> only with its own OpenMP package). A source two
extensions build (CPU and CUDA variants) gets one entry, with the richer
set of flags. A setup.py whose extensions are switched on by environment
variables gets them from --env VAR=VALUE; one that drives CMake has no
sources to read (torch-tidy-project configures CMake for it).

It asks PY (default: python3; give the interpreter of the environment where
you build the extension) for what a CppExtension/CUDAExtension build passes
the compiler:

  torch.utils.cpp_extension.include_paths()   -isystem, each
  sysconfig.get_paths()["include"]           -isystem (Python.h, pybind11)
  torch._C._GLIBCXX_USE_CXX11_ABI            -D_GLIBCXX_USE_CXX11_ABI=0|1
  torch.__version__                          -std=c++20 from torch 2.10 on,
                                             -std=c++17 before (or --std)

plus -DTORCH_EXTENSION_NAME=NAME and -DTORCH_API_INCLUDE_EXTENSION_H, and
writes one entry per .cpp, .cc, .cxx, .cu and .sycl file named or found below a
named directory (recursively; directories whose name starts with a dot are
skipped). The compiler is clang++: the entries are for clang-based tools.

CUDA: when there is a .cu source, every entry gets the toolkit's include
directory (as CUDAExtension does), and each .cu entry makes clang parse the
host side of the file:

  -x cuda --cuda-host-only --cuda-path=CUDA -Wno-unknown-cuda-version
  -D__CUDA_NO_HALF_OPERATORS__ ... (torch's nvcc defines)

CUDA is --cuda-path, else $CUDA_HOME, else torch.utils.cpp_extension.CUDA_HOME,
else /usr/local/cuda. With CUDA 13 the toolkit's cccl directory (thrust, cub)
is added too, and the CUDA 11/12 headers that clang's CUDA wrapper still
includes but CUDA 13 removed are stood in for by empty files in
.torch-tidy/cuda-shim next to the output file. No GPU is needed.

SYCL: each .sycl entry makes clang parse the file as C++, host side, with
torch-tidy's stand-ins for the SYCL headers (-x c++ -isystem
.../torch_tidy_project/sycl_host), and gets a SyclExtension's
extra_compile_args["sycl"]. No SYCL compiler is needed.

Exit 0 on success; 2, with one line saying why, when PY cannot import torch,
setup.py cannot be read, a named source does not exist, no source was found,
or the CUDA toolkit is missing for a .cu source.
"""


def shim_dir_for(out):
    """Where the CUDA stand-ins go for a database written to out: beside it
    when out is in a .torch-tidy folder, else in .torch-tidy next to it."""
    d = os.path.dirname(os.path.abspath(out))
    if os.path.basename(d) == SCRATCH:
        return os.path.join(d, "cuda-shim")
    return os.path.join(d, SCRATCH, "cuda-shim")


def main(argv=None):
    p = argparse.ArgumentParser(
        prog="torch-tidy-cdb", description=USAGE,
        formatter_class=argparse.RawDescriptionHelpFormatter,
        epilog="example, in the project directory (docs/extensions.md):\n"
        "  torch-tidy-cdb --python .venv/bin/python csrc\n"
        "  run-clang-tidy-19 -clang-tidy-binary torch-tidy "
        "-checks='-*,torch-*' -p .")
    p.add_argument("--setup-py", metavar="FILE",
                   help="read the sources and flags of the extensions this "
                   "setup.py defines (nothing is built)")
    p.add_argument("sources", nargs="*", metavar="SOURCES_OR_DIRS",
                   help="source files, or directories to search recursively "
                   "for .cpp, .cc, .cxx, .cu and .sycl files")
    p.add_argument("--python", default="python3",
                   help="the Python with torch that builds the extension "
                   "(default: python3)")
    p.add_argument("--env", action="append", default=[], metavar="VAR=VALUE",
                   help="an environment variable for setup.py (repeatable)")
    p.add_argument("--std", help="C++ standard (default: c++20 for torch "
                   ">= 2.10, else c++17)")
    p.add_argument("--name", help="TORCH_EXTENSION_NAME: the last component "
                   "of the extension's name in setup.py (default: the current "
                   "directory's name)")
    p.add_argument("-o", "--output", default="compile_commands.json",
                   help="where to write (default: ./compile_commands.json)")
    p.add_argument("-I", dest="include", action="append", default=[],
                   metavar="DIR", help="an include directory (include_dirs= "
                   "in setup.py); repeatable")
    p.add_argument("-D", dest="define", action="append", default=[],
                   metavar="MACRO[=VALUE]", help="a macro (define_macros= or "
                   "-D in extra_compile_args); repeatable")
    p.add_argument("--cuda-path", help="the CUDA toolkit for .cu sources "
                   "(default: $CUDA_HOME, torch's CUDA_HOME, /usr/local/cuda)")
    args = p.parse_args(argv)
    if args.setup_py and args.sources:
        p.error("give --setup-py or sources, not both")
    if not args.setup_py and not args.sources:
        p.error("give sources (or directories), or --setup-py")
    try:
        env = recorder.environment(args.env)
    except ValueError as e:
        p.error(str(e))
    out = os.path.abspath(args.output)
    try:
        if args.setup_py:
            if not os.path.isfile(args.setup_py):
                raise ProjectError(f"{args.setup_py}: no such file")
            # Kept: a failure's message names setup.py's log there.
            scratch = tempfile.mkdtemp(prefix="torch-tidy-cdb-")
            record = recorder.record_setup_py(args.python, args.setup_py,
                                              env, scratch)
            if record.failed():
                raise ProjectError(record.failure())
            if record.extensions is None:
                raise ProjectError(f"{args.setup_py} ran cmake before it "
                                   f"called setup(): a setup.py that drives "
                                   f"CMake; torch-tidy-project configures "
                                   f"it")
            sources = [s for e in record.extensions for s in e["sources"]]
            if not sources:
                raise ProjectError(record.no_sources_text())
        else:
            sources = find_sources(args.sources)
            if not sources:
                raise ProjectError("no .cpp, .cc, .cxx or .cu source found "
                                   "in " + " ".join(args.sources))
        try:
            torch = torchenv.query(args.python, env)
        except torchenv.TorchNotFound as e:
            raise ProjectError(
                f"{args.python} cannot import torch ({e}); pass --python "
                f"with the interpreter of the environment that builds the "
                f"extension")
        if args.setup_py:
            items = for_extensions(record.extensions, torch,
                                   os.path.dirname(os.path.abspath(
                                       args.setup_py)), shim_dir_for(out),
                                   args.cuda_path, args.std)
        else:
            cwd = os.getcwd()
            name = args.name or re.sub(r"\W", "_", os.path.basename(cwd)) \
                or "extension"
            items = for_sources(sources, torch, cwd, shim_dir_for(out), name,
                                args.cuda_path, args.std, args.include,
                                args.define)
        write(out, items)
    except ProjectError as e:
        print(f"torch-tidy-cdb: {e}", file=sys.stderr)
        return 2
    print("torch-tidy-cdb: " + summary_line(out, items, torch, os.getcwd()))
    return 0
