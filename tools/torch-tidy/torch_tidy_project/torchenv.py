"""What the project's Python's torch is, and what a cpp_extension build of
it passes the compiler; asked of that Python once."""
import hashlib
import json
import os
import re
import shutil
import subprocess

from .common import read_text

MARKER = "TORCH_TIDY_TORCH_JSON="
QUERY = r'''
import inspect, json, os, site, sys, sysconfig
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
    "search_path": [p for p in sys.path if p] +
                   [site.getusersitepackages()],
    # The namespaces of torch's own operators (aten, prims, inductor, ...):
    # a project registers fakes and kernels for them without defining them.
    "namespaces": sorted({n.split("::")[0] for n in
                          getattr(torch._C, "_dispatch_get_all_op_names",
                                  lambda: [])()}),
}))
''' % MARKER


class TorchNotFound(Exception):
    """The Python cannot import torch; the message is its last line."""


# What, beside the folders Python searches, decides what the query says:
# where Python and CUDA are found, and what the dynamic loader finds.
ENV_KEYS = ("PATH", "LD_LIBRARY_PATH", "CUDA_HOME", "CUDA_PATH", "ROCM_HOME",
            "ROCM_PATH", "VIRTUAL_ENV", "CONDA_PREFIX")


def query(python, env=None, cache=None):
    """A dict: version, release (digits only), cuda, cmake_prefix_path,
    torch_dir, executable, include_paths, python_include, cxx11_abi,
    cuda_home, search_path. Raises TorchNotFound.

    cache: a file that keeps the answer (importing torch takes seconds, on
    every run). It is used again only for the same interpreter, the same
    environment where it matters (ENV_KEYS, PYTHON*), and while every folder
    on that Python's search path is as it was: installing or removing a
    package changes its folder's time, and so asks again."""
    env_now = env if env is not None else os.environ
    key = _cache_key(python, env_now) if cache else None
    if key is not None:
        info = _cached(cache, key)
        if info is not None:
            return info
    info = _ask(python, env)
    if key is not None:
        _keep(cache, key, info)
    return info


def _cache_key(python, env):
    exe = shutil.which(python, path=env.get("PATH")) \
        if os.sep not in python else python
    if not exe:
        return None
    real = os.path.realpath(exe)
    try:
        st = os.stat(real)
    except OSError:
        return None
    return {"python": python, "executable": real,
            # A changed query is asked again.
            "query": hashlib.sha256(QUERY.encode()).hexdigest()[:16],
            "stat": [st.st_ino, st.st_size, st.st_mtime_ns],
            "env": {k: v for k, v in sorted(env.items())
                    if k in ENV_KEYS or k.startswith("PYTHON")}}


def _stamp(paths):
    out = []
    for p in paths:
        try:
            st = os.stat(p)
            out.append([p, st.st_ino, st.st_mtime_ns])
        except OSError:
            out.append([p, None, None])
    return out


def _cached(cache, key):
    try:
        with open(cache, encoding="utf-8") as f:
            kept = json.load(f)
        info = kept["info"]
        if kept["key"] != key or \
                kept["stamp"] != _stamp(info.get("search_path", [])) or \
                not os.path.isdir(info["torch_dir"]):
            return None
        return info
    except (OSError, ValueError, KeyError, TypeError):
        return None


def _keep(cache, key, info):
    try:
        os.makedirs(os.path.dirname(cache), exist_ok=True)
        tmp = f"{cache}.{os.getpid()}"
        with open(tmp, "w", encoding="utf-8") as f:
            json.dump({"key": key, "info": info,
                       "stamp": _stamp(info.get("search_path", []))}, f)
        os.replace(tmp, cache)
    except OSError:
        pass  # asked again next time


def _ask(python, env):
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
