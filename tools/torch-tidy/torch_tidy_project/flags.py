"""The flags of a compile command that decide how a source parses (macros,
include paths, forced includes, the standard, the target's instruction set
and the language's switches), read from gcc's, clang's and nvcc's command
lines alike, response files and -Xcompiler included; and the command line of
a compile database entry."""
import os
import re
import shlex

from .common import read_text

# Options (nvcc's, and the compilers' it shares) that take a value as the
# next argument (a value given with '=' needs nothing): kept_flags drops
# them with their value, but for the ones it keeps.
TAKES_VALUE = {
    "-o", "-x", "-ccbin", "--compiler-bindir", "-gencode",
    "--generate-code", "-arch", "--gpu-architecture", "-code", "--gpu-code",
    "-Xcudafe", "-Xptxas", "--ptxas-options", "-Xnvlink", "--nvlink-options",
    "-Xfatbin", "-Xarchive", "-Xlinker", "--linker-options", "-maxrregcount",
    "-t", "--threads", "-MF", "-MT", "-MQ", "--dependency-output",
    "-diag-suppress", "--diag-suppress", "-rdc", "--relocatable-device-code",
    "-default-stream", "--default-stream", "-L", "-l", "-odir",
    "--output-directory", "-split-compile", "--split-compile",
    "-Xcompiler", "--compiler-options", "-optf", "--options-file",
    "-I", "-isystem", "-include", "-D", "-U", "-std", "--std", "-idirafter",
    "-iquote",
}


# The target's and the language's flags that change how a source parses,
# kept as they are: the instruction set (-march=native, -mavx512f, -mfma:
# __AVX512F__ and the intrinsics a kernel file guards with it), -m64,
# -pthread, and the language switches (-fno-rtti, -fno-exceptions,
# -funsigned-char, -ffast-math). Every one is a flag clang accepts; nvcc's
# own -m options (-maxrregcount) are not among them.
TARGET_FLAG = re.compile(
    r"^-(?:m(?:arch|tune|cpu|fpu|float-abi|prefer-vector-width)=[\w.+-]+"
    r"|m(?:no-)?(?:avx[\w-]*|sse[\w.]*|ssse3|fma4?|f16c|bmi2?|popcnt|lzcnt"
    r"|amx[\w-]*|aes|pclmul|vpclmulqdq|sha|movbe|adx|rdrnd|rdseed|gfni|vaes"
    r"|cx16|neon|sve2?)"
    r"|m(?:32|64)|pthread"
    r"|f(?:no-)?(?:rtti|exceptions|signed-char|unsigned-char|fast-math"
    r"|openmp-simd))$")
# Flags that change how a source parses but that are not passed: -fopenmp
# defines _OPENMP, after which torch's headers include <omp.h>, which clang
# finds only with its own OpenMP package; without it `#pragma omp` lines
# parse as they are. The database says so (not_passed).
NOT_PASSED = re.compile(r"^-f?openmp(?:=\w+)?$|^-qopenmp$|^-fiopenmp$")


def not_passed(args):
    """The flags of a command line (-Xcompiler's included) that change how a
    source parses but that kept_flags does not keep."""
    out = []
    for i, a in enumerate(args):
        if a in ("-Xcompiler", "--compiler-options") and i + 1 < len(args):
            out += not_passed(_host_options(args[i + 1]))
        elif a.startswith(("-Xcompiler=", "--compiler-options=")):
            out += not_passed(_host_options(a.split("=", 1)[1]))
        elif NOT_PASSED.match(a):
            out.append(a)
    return list(dict.fromkeys(out))


LAUNCHERS = ("ccache", "sccache", "distcc")


def compiler_arguments(entry):
    """The entry's command line from its compiler on (a compiler launcher,
    ccache or sccache, left out)."""
    args = arguments(entry)
    while args and os.path.basename(args[0]) in LAUNCHERS:
        args = args[1:]
    return args


def arguments(entry):
    if "arguments" in entry:
        return list(entry["arguments"])
    try:
        return shlex.split(entry.get("command", ""))
    except ValueError:
        return entry.get("command", "").split()


def _expand_files(args, cwd):
    """nvcc's --options-file/-optf and @file arguments read in place (CMake
    keeps include paths there)."""
    out, i = [], 0
    while i < len(args):
        a = args[i]
        path = None
        if a in ("--options-file", "-optf") and i + 1 < len(args):
            path, i = args[i + 1], i + 1
        elif a.startswith(("--options-file=", "-optf=")):
            path = a.split("=", 1)[1]
        elif a.startswith("@") and len(a) > 1:
            path = a[1:]
        if path is not None:
            text = read_text(os.path.join(cwd, path))
            try:
                out += _expand_files(shlex.split(text), cwd)
            except ValueError:
                out += text.split()
        else:
            out.append(a)
        i += 1
    return out


def _host_options(value):
    """-Xcompiler's comma-separated host compiler options."""
    return [o for o in value.split(",") if o]


def kept_flags(args, cwd):
    """The flags of an nvcc command line that decide how the host side
    parses: -D, -U, -I, -isystem, -iquote, -idirafter, -include, -std, the
    target's and the language's flags (TARGET_FLAG) (also inside
    -Xcompiler), paths made absolute."""
    args = _expand_files(args, cwd)
    out, i = [], 0
    while i < len(args):
        a = args[i]
        nxt = args[i + 1] if i + 1 < len(args) else None
        if a in ("-Xcompiler", "--compiler-options") and nxt is not None:
            out += kept_flags(_host_options(nxt), cwd)
            i += 2
            continue
        if a.startswith(("-Xcompiler=", "--compiler-options=")):
            out += kept_flags(_host_options(a.split("=", 1)[1]), cwd)
            i += 1
            continue
        for flag in ("-isystem", "-iquote", "-idirafter", "-I"):
            if a == flag and nxt is not None:
                out += [flag, os.path.normpath(os.path.join(cwd, nxt))]
                i += 2
                break
            if a.startswith(flag) and len(a) > len(flag) and \
                    not a.startswith("-include"):
                out += [flag, os.path.normpath(os.path.join(
                    cwd, a[len(flag):].lstrip("=")))]
                i += 1
                break
        else:
            if a in ("-D", "-U", "-include") and nxt is not None:
                out += [a, nxt]
                i += 2
            elif a.startswith(("-D", "-U")) and len(a) > 2:
                out.append(a)
                i += 1
            elif a in ("-std", "--std") and nxt is not None:
                out.append(f"-std={nxt}")
                i += 2
            elif a.startswith(("-std=", "--std=")):
                out.append("-std=" + a.split("=", 1)[1])
                i += 1
            elif TARGET_FLAG.match(a):
                out.append(a)
                i += 1
            elif a in TAKES_VALUE and nxt is not None:
                i += 2
            else:
                i += 1
    return out
