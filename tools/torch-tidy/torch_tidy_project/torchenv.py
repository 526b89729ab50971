"""What the project's Python's torch is, and what a cpp_extension build of
it passes the compiler; asked of that Python once."""
import json
import os
import re
import subprocess

from .common import read_text

MARKER = "TORCH_TIDY_TORCH_JSON="
QUERY = r'''
import inspect, json, os, sys, sysconfig
import torch, torch.utils
import torch.utils.cpp_extension as ce
params = inspect.signature(ce.include_paths).parameters
paths = ce.include_paths(device_type="cpu") if "device_type" in params \
    else ce.include_paths(False)
print("%s" + json.dumps({
    "version": torch.__version__,
    "cuda": getattr(torch.version, "cuda", None),
    "cmake_prefix_path": torch.utils.cmake_prefix_path,
    "torch_dir": os.path.dirname(torch.__file__),
    "executable": sys.executable,
    "include_paths": list(paths),
    "python_include": sysconfig.get_paths()["include"],
    "cxx11_abi": int(bool(torch._C._GLIBCXX_USE_CXX11_ABI)),
    "cuda_home": getattr(ce, "CUDA_HOME", None),
}))
''' % MARKER


class TorchNotFound(Exception):
    """The Python cannot import torch; the message is its last line."""


def query(python, env=None):
    """A dict: version, release (digits only), cuda, cmake_prefix_path,
    torch_dir, executable, include_paths, python_include, cxx11_abi,
    cuda_home. Raises TorchNotFound."""
    try:
        res = subprocess.run([python, "-c", QUERY], capture_output=True,
                             text=True, errors="replace", timeout=300,
                             env=env)
    except OSError as e:
        raise TorchNotFound(f"cannot run {python}: {e.strerror}")
    except subprocess.TimeoutExpired:
        raise TorchNotFound(f"{python} did not answer in 300 s")
    for line in res.stdout.splitlines():
        if line.startswith(MARKER):
            info = json.loads(line[len(MARKER):])
            info["release"] = release(info["version"])
            return info
    last = (res.stderr.strip().splitlines() or ["no output"])[-1]
    raise TorchNotFound(last)


def release(version):
    """'2.8.0+cu128' -> '2.8.0'."""
    m = re.match(r"[\d.]+", version)
    return m.group(0).rstrip(".") if m else version


def default_std(version):
    """The C++ standard a cpp_extension build of this torch uses."""
    m = re.match(r"(\d+)\.(\d+)", version)
    if m and (int(m.group(1)), int(m.group(2))) >= (2, 10):
        return "c++20"
    return "c++17"


def header_torch(directory):
    """(version, include directory) of the LibTorch headers under an include
    directory, or None. The version macros are in torch/version.h up to
    torch 2.14 and in torch/headeronly/version.h from 2.15 on, which the
    C++ API's torch/version.h then includes."""
    for rel in (("torch", "version.h"), ("torch", "headeronly", "version.h"),
                ("torch", "csrc", "api", "include", "torch", "version.h")):
        path = os.path.join(directory, *rel)
        version = _version_in(path)
        if version:
            top = os.path.join(directory, *rel[:-2]) if rel[-2] == "torch" \
                else directory
            return version, os.path.normpath(top)
    return None


def _version_in(path):
    """The release a version.h defines, following its include of
    torch/headeronly/version.h (an include directory up); or None."""
    if not os.path.isfile(path):
        return None
    text = read_text(path)
    parts = [re.search(rf"#define TORCH_VERSION_{p}\s+(\d+)", text)
             for p in ("MAJOR", "MINOR", "PATCH")]
    if all(parts):
        return ".".join(m.group(1) for m in parts)
    if "torch/headeronly/version.h" not in text:
        return None
    # The include root: up from .../torch/version.h, and from the C++ API's
    # .../torch/csrc/api/include/torch/version.h, to the folder holding
    # torch/headeronly/.
    d = os.path.dirname(os.path.dirname(path))
    for _ in range(5):
        inner = os.path.join(d, "torch", "headeronly", "version.h")
        if os.path.isfile(inner):
            return _version_in(inner)
        d = os.path.dirname(d)
    return None
