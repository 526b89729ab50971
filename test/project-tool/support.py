"""Helpers the unit tests of torch_tidy_project share (not a test itself).

A test file is run as a script, so its own folder comes first on sys.path
and `import support` finds this file; importing it puts
tools/torch-tidy on sys.path, where torch_tidy_project is."""
import functools
import os
import subprocess
import sys
import textwrap

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)),
                                "..", "..", "tools", "torch-tidy"))

# torch 2.8.0's torch/version.h, the lines torchenv.header_torch reads.
VERSION_H = """#pragma once
#define TORCH_VERSION_MAJOR 2
#define TORCH_VERSION_MINOR 8
#define TORCH_VERSION_PATCH 0
"""


def write(path, text="", mode=None):
    """Writes text (dedented, so an indented triple-quoted string can be
    given as it stands) to path, making its folders; chmods it to mode
    where given. Returns path."""
    os.makedirs(os.path.dirname(path), exist_ok=True)
    with open(path, "w") as f:
        f.write(textwrap.dedent(text))
    if mode is not None:
        os.chmod(path, mode)
    return path


def fake_torch(d, version="2.8.0"):
    """A torch dict as torchenv.query gives it, for a torch under d: its
    headers in d/torch/include (made, with VERSION_H as torch/version.h
    whatever the version) and the C++ API's include folder below it, its
    CMake package looked for in d/prefix, no CUDA."""
    inc = os.path.join(d, "torch", "include")
    api = os.path.join(inc, "torch", "csrc", "api", "include")
    os.makedirs(api, exist_ok=True)
    write(os.path.join(inc, "torch", "version.h"), VERSION_H)
    return {"version": version, "release": version.split("+")[0],
            "cmake_prefix_path": os.path.join(d, "prefix"),
            "torch_dir": os.path.join(d, "torch"),
            "executable": sys.executable, "include_paths": [inc, api],
            "python_include": os.path.join(d, "py", "include"),
            "cxx11_abi": 1, "cuda_home": None}


def has_setuptools(python):
    """Whether that Python imports setuptools."""
    try:
        return subprocess.run([python, "-c", "import setuptools"],
                              capture_output=True, timeout=120
                              ).returncode == 0
    except (OSError, subprocess.TimeoutExpired):
        return False


@functools.lru_cache(maxsize=None)
def python_with_setuptools():
    """sys.executable where it has setuptools, else $TORCH_TIDY_PYTHON_28,
    else the torch 2.8.0 venv of tools/bootstrap; None where none has it.
    Looked for once, on first use."""
    try:
        import setuptools  # noqa: F401
        return sys.executable
    except ImportError:
        pass
    for p in (os.environ.get("TORCH_TIDY_PYTHON_28"),
              "/root/.cache/torch-tidy/venv-torch-2.8.0/bin/python"):
        if p and os.path.isfile(p) and has_setuptools(p):
            return p
    return None


def __getattr__(name):
    """PYTHON (`from support import PYTHON`) is python_with_setuptools(),
    looked for only where a file uses it."""
    if name == "PYTHON":
        return python_with_setuptools()
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


def needs_setuptools(test):
    """A test method's decorator: where there is no PYTHON, the test
    prints a SKIPPED line and is skipped."""
    if python_with_setuptools() is None:
        def skipped(self):
            print(f"SKIPPED {test.__name__}: no Python with setuptools",
                  flush=True)
            self.skipTest("no Python with setuptools")
        skipped.__name__ = test.__name__
        return skipped
    return test
