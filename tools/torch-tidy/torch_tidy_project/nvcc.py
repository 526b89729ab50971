"""nvcc entries of a compile database (CMake lists .cu files with nvcc's
command line) turned into clang ones: clang parses the host side of the file
in CUDA mode with the include paths, macros and standard nvcc was given, and
every option only nvcc knows is dropped."""
import os
import shlex
import shutil

from . import cdb
from .common import read_text

# nvcc options that take a value as the next argument (a value given with
# '=' needs nothing). Dropped with their value unless KEPT says otherwise.
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


def is_nvcc(entry):
    args = arguments(entry)
    return bool(args) and os.path.basename(args[0]).startswith("nvcc")


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


def toolkit_of(nvcc):
    """The CUDA toolkit an nvcc belongs to."""
    path = nvcc if os.path.isabs(nvcc) else shutil.which(nvcc)
    if not path:
        return None
    return os.path.dirname(os.path.dirname(os.path.realpath(path)))


def translate(entry, shim_dir, torch_includes=()):
    """A clang entry for an nvcc one; (entry, added torch includes?)."""
    args = arguments(entry)
    cwd = entry.get("directory", ".")
    source = os.path.normpath(os.path.join(cwd, entry["file"]))
    flags = kept_flags(args[1:], cwd)
    flags = [f for f in flags if os.path.normpath(f) != source]
    toolkit = toolkit_of(args[0]) or "/usr/local/cuda"
    host = cdb.cuda_host_flags(toolkit, shim_dir)
    common = []
    include = os.path.join(toolkit, "include")
    named = {os.path.realpath(f) for f in flags}
    if os.path.isdir(include) and os.path.realpath(include) not in named:
        common += ["-isystem", include]
    if os.path.isdir(os.path.join(include, "cccl")):
        common += ["-isystem", os.path.join(include, "cccl")]
    # Without torch's include paths (a response file that could not be read)
    # clang would take whatever LibTorch /usr/include holds: give it the
    # database's own.
    added = False
    missing = [d for d in torch_includes if os.path.realpath(d) not in named]
    if torch_includes and len(missing) == len(torch_includes):
        for d in torch_includes:
            common += ["-isystem", d]
        added = True
    out = {"directory": cwd,
           "arguments": ["clang++", *host, *flags, *common, "-c", source],
           "file": entry["file"]}
    return out, added


def translate_database(entries, shim_dir, torch_includes=()):
    """(entries, nvcc entries translated, entries given torch's paths)."""
    out, n, added = [], 0, 0
    for e in entries:
        if is_nvcc(e):
            t, a = translate(e, shim_dir, torch_includes)
            out.append(t)
            n += 1
            added += a
        else:
            out.append(e)
    return out, n, added
