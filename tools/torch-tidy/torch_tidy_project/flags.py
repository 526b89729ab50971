"""The flags of a compile command that decide how a source parses (macros,
include paths, forced includes, the standard), read from gcc's, clang's and
nvcc's command lines alike, response files and -Xcompiler included; and the
command line of a compile database entry."""
import os
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
    parses: -D, -U, -I, -isystem, -iquote, -idirafter, -include, -std
    (also inside -Xcompiler), paths made absolute."""
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
            elif a in TAKES_VALUE and nxt is not None:
                i += 2
            else:
                i += 1
    return out
