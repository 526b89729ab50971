"""SYCL sources (.sycl files, which torch's SyclExtension and icpx -fsycl
builds compile, and sources compiled with -fsycl) parsed as C++, host side:
clang has no SYCL implementation here, so the entry gets torch-tidy's
stand-ins for the SYCL headers (sycl_host/: the host API kernel launches and
USM copies use, and ESIMD's stores), keeps the macros, include paths and
standard it was given, and drops every option only a SYCL compiler knows.
The analyses then see a kernel handed to parallel_for run, as they see a
CUDA launch's __global__ body."""
import os

from .flags import compiler_arguments, kept_flags

SYCL_EXTENSIONS = (".sycl",)
STANDIN_DIR = os.path.join(os.path.dirname(os.path.abspath(__file__)),
                           "sycl_host")


def parse_flags():
    """What makes clang read a SYCL source as C++ with the stand-ins."""
    return ["-x", "c++", "-isystem", STANDIN_DIR]


def is_sycl_source(path):
    return path.endswith(SYCL_EXTENSIONS)


def is_sycl(entry):
    """A .sycl source, or any source a SYCL compiler compiles (-fsycl)."""
    if is_sycl_source(entry.get("file", "")):
        return True
    return any(a == "-fsycl" or a.startswith("-fsycl-")
               for a in compiler_arguments(entry))


def translate(entry):
    args = compiler_arguments(entry)
    cwd = entry.get("directory", ".")
    source = os.path.normpath(os.path.join(cwd, entry["file"]))
    flags = [f for f in kept_flags(args[1:], cwd)
             if os.path.normpath(f) != source]
    return {"directory": cwd,
            "arguments": ["clang++", *parse_flags(), *flags, "-c", source],
            "file": entry["file"]}


def translate_database(entries):
    """(entries, how many were SYCL entries turned into C++ ones)."""
    out, n = [], 0
    for e in entries:
        if is_sycl(e):
            out.append(translate(e))
            n += 1
        else:
            out.append(e)
    return out, n
