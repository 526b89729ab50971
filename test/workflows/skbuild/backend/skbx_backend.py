"""skbx's build backend: scikit-build-core's, with the kernels to build
decided here (CPU always; CUDA where a toolkit is found), as some projects
do in their own backends."""
import os
import shutil

from scikit_build_core import build as _skbuild
from scikit_build_core.build import *  # noqa: F401,F403


def _with_kernels(config_settings):
    settings = dict(config_settings or {})
    settings["cmake.define.SKBX_WITH_CPU"] = "ON"
    cuda = os.environ.get("CUDA_HOME", "/usr/local/cuda")
    has_cuda = shutil.which("nvcc") or os.path.exists(
        os.path.join(cuda, "bin", "nvcc"))
    settings["cmake.define.SKBX_WITH_CUDA"] = "ON" if has_cuda else "OFF"
    # The extra kernels are the user's choice, as deepmd-kit's DP_VARIANT.
    if os.environ.get("SKBX_KERNELS", "") == "extra":
        settings["cmake.define.SKBX_WITH_EXTRA"] = "ON"
    return settings


def build_wheel(wheel_directory, config_settings=None,
                metadata_directory=None):
    return _skbuild.build_wheel(wheel_directory,
                                _with_kernels(config_settings),
                                metadata_directory)
