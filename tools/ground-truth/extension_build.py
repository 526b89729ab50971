"""Builds the ground-truth suites' C++ operators with torch.utils.cpp_extension,
kept across runs, and on a precompiled header shared by every suite.

Most of a twin's compile time is parsing ATen's headers: on this project's
2-core machine a twin of a few operators took 17.7 s, of which the headers
alone take 14 s. So each torch version gets one precompiled header (PCH) of
the headers every twin opens with (HEADERS), built once with the flags that
torch's cpp_extension gives the twins' sources, and every twin is compiled
with `-include` of it. GCC itself decides whether the PCH fits: one built
under other flags or macros is ignored and the headers parsed as before, so
a PCH can make a build slower, never different. Where the PCH cannot be made
(another compiler, a failed probe) the builds go on without it and say so
on stderr.

Sources are compiled as written: nothing is prepended (load_inline would
prepend <torch/extension.h>, 38 s of parsing for Python bindings that no
twin uses). Only the standard library is imported here; the caller passes
its torch.
"""

import fcntl
import hashlib
import importlib
import os
import re
import shlex
import subprocess
import sys

# The headers the twins open with. ATen's own (the Tensor API, AT_DISPATCH,
# at::parallel_for, at::indexing) and torch/library.h. <torch/autograd.h>
# stays out: a PCH's load time grows with its size (415 MB with it against
# 340 MB without), and only two twins' sources include it.
HEADERS = ("ATen/ATen.h", "ATen/Dispatch.h", "ATen/Parallel.h",
           "ATen/TensorIndexing.h", "torch/library.h")

_PCH_FLAGS = {}


def cache_root():
    """$TORCH_TIDY_CACHE, else $XDG_CACHE_HOME/torch-tidy, else
    ~/.cache/torch-tidy."""
    return os.environ.get("TORCH_TIDY_CACHE") or os.path.join(
        os.environ.get("XDG_CACHE_HOME") or os.path.expanduser("~/.cache"), "torch-tidy")


def build_dir(torch, name, texts):
    """Where the extension `name` built from texts is kept across runs: keyed
    by the torch version, the name and the sources' text, so a run whose
    sources did not change loads the library built before, and a changed
    source gets a directory of its own. What is measured (opcheck, the
    compiled calls, inductor's own cache) is run afresh every time."""
    digest = hashlib.sha256(f"{torch.__version__}\0{name}".encode())
    for text in texts:
        digest.update(b"\0" + text.encode())
    build = os.path.join(cache_root(), "extension-builds", f"{name}-{digest.hexdigest()[:16]}")
    os.makedirs(build, exist_ok=True)
    return build


def write_if_changed(path, text):
    """Writes text unless the file has it already (ninja goes by mtimes)."""
    try:
        with open(path) as f:
            if f.read() == text:
                return
    except OSError:
        pass
    with open(path, "w") as f:
        f.write(text)


def _cpp_extension():
    """torch.utils.cpp_extension (a caller's `import torch` does not load it)."""
    return importlib.import_module("torch.utils.cpp_extension")


def _ninja_variables(path):
    """The top-level `name = value` lines of a build.ninja."""
    found = {}
    with open(path) as f:
        for line in f:
            m = re.match(r"([A-Za-z_]+) = (.*)$", line.rstrip("\n"))
            if m:
                found[m.group(1)] = m.group(2)
    return found


def _make_pch(where):
    """Builds where/tt_pch.h.gch with the compile flags cpp_extension gives a
    source, learnt from a probe extension's build.ninja; returns None, or
    why it could not."""
    header = os.path.join(where, "tt_pch.h")
    write_if_changed(header, "".join(f"#include <{h}>\n" for h in HEADERS))
    probe_dir = os.path.join(where, "probe")
    os.makedirs(probe_dir, exist_ok=True)
    probe = os.path.join(probe_dir, "tt_pch_probe.cpp")
    write_if_changed(probe, "int tt_pch_probe;\n")
    _cpp_extension().load(name="tt_pch_probe", sources=[probe],
                                   build_directory=probe_dir, is_python_module=False,
                                   verbose=False)
    var = _ninja_variables(os.path.join(probe_dir, "build.ninja"))
    cxx, cflags = var.get("cxx"), var.get("cflags")
    if not cxx or cflags is None:
        return "the probe's build.ninja names no cxx or cflags"
    macros = subprocess.run(f"{cxx} -dM -E -x c++ /dev/null", shell=True,
                            capture_output=True, text=True).stdout
    if "#define __GNUC__" not in macros or "#define __clang__" in macros:
        return f"the compiler is not GCC ({cxx})"
    cflags = re.sub(r"-DTORCH_EXTENSION_NAME=\S+", "", cflags)
    post = var.get("post_cflags", "")
    gch = header + ".gch"
    partial = gch + ".partial"
    res = subprocess.run(f"{cxx} {cflags} -x c++-header {shlex.quote(header)} "
                         f"-o {shlex.quote(partial)} {post}",
                         shell=True, capture_output=True, text=True)
    if res.returncode:
        return "the header did not compile: " + res.stderr[-800:]
    os.replace(partial, gch)
    check = os.path.join(where, "check.cpp")
    write_if_changed(check, "int tt_pch_check;\n")
    res = subprocess.run(f"{cxx} {cflags} -DTORCH_EXTENSION_NAME=tt_pch_check "
                         f"-include {shlex.quote(header)} -Winvalid-pch -c {shlex.quote(check)} "
                         f"-o {shlex.quote(check + '.o')} {post}",
                         shell=True, capture_output=True, text=True)
    if res.returncode or "pch" in res.stderr.lower():
        os.unlink(gch)
        return "GCC does not use it: " + res.stderr[-800:]
    return None


def pch_flags(torch):
    """The `-include` flags of this torch's precompiled header, built once
    per torch version (under a lock: suites run side by side); [] where it
    cannot be built, said once on stderr."""
    key = torch.__version__
    if key in _PCH_FLAGS:
        return _PCH_FLAGS[key]
    digest = hashlib.sha256("\0".join((key,) + HEADERS).encode()).hexdigest()[:16]
    where = os.path.join(cache_root(), "extension-builds", f"pch-{digest}")
    os.makedirs(where, exist_ok=True)
    header = os.path.join(where, "tt_pch.h")
    with open(os.path.join(where, "lock"), "w") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)
        why = None
        if not os.path.exists(header + ".gch"):
            try:
                why = _make_pch(where)
            except Exception as e:  # a failed probe build: go on without
                why = f"{type(e).__name__}: {str(e)[-800:]}"
    if why:
        print(f"note: the twins are built without a precompiled header: {why}",
              file=sys.stderr)
        flags = []
    else:
        flags = ["-include", header]
    _PCH_FLAGS[key] = flags
    return flags


def load(torch, name, build, sources):
    """Builds (or loads the build kept in `build`) the operators of sources,
    an extension with no Python module, on the precompiled header."""
    _cpp_extension().load(name=name, sources=sources, build_directory=build,
                                   extra_cflags=pch_flags(torch),
                                   is_python_module=False, verbose=False)


def _written_sources(torch, name, named_texts):
    """(build_dir of the texts, the paths they are written to there)."""
    build = build_dir(torch, name, [text for _, text in named_texts])
    paths = []
    for i, (base, text) in enumerate(named_texts):
        path = os.path.join(build, f"src{i}-{base}")
        write_if_changed(path, text)
        paths.append(path)
    return build, paths


def load_texts(torch, name, named_texts):
    """Builds [(file name, text)] as the extension `name`, kept by build_dir."""
    build, paths = _written_sources(torch, name, named_texts)
    load(torch, name, build, paths)


def load_module_texts(torch, name, named_texts):
    """Builds [(file name, text)] as the Python extension module `name` (its
    PYBIND11_MODULE binds functions), kept by build_dir; the module."""
    build, paths = _written_sources(torch, name, named_texts)
    return _cpp_extension().load(name=name, sources=paths, build_directory=build,
                                 is_python_module=True, verbose=False)
