"""nvcc entries of a compile database (CMake lists .cu files with nvcc's
command line) turned into clang ones: clang parses the host side of the file
in CUDA mode with the include paths, macros and standard nvcc was given, and
every option only nvcc knows is dropped."""
import os
import shutil

from . import cdb
from .flags import compiler_arguments, kept_flags


def is_nvcc(entry):
    args = compiler_arguments(entry)
    return bool(args) and os.path.basename(args[0]).startswith("nvcc")


def toolkit_of(nvcc):
    """The CUDA toolkit an nvcc belongs to."""
    path = nvcc if os.path.isabs(nvcc) else shutil.which(nvcc)
    if not path:
        return None
    return os.path.dirname(os.path.dirname(os.path.realpath(path)))


def translate(entry, shim_dir, torch_includes=()):
    """A clang entry for an nvcc one; (entry, added torch includes?)."""
    args = compiler_arguments(entry)
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
