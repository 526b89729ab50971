# An operator library whose extensions are switched on by environment
# variables, none by default (as many are): `ENVX_BUILD_CPU=1
# ENVX_BUILD_CUDA=1 pip install .`. Six operators: their schemas in
# csrc/ops.cpp, CPU kernels for two of them, CUDA kernels for five. The
# workflow-env-switched test lints it without the variables (nothing to
# lint: exit 2, naming them), with the CPU one alone (most kernels unseen:
# exit 3, naming the operators and the variable that brings them in) and
# with both (every kernel analysed), through torch-tidy-project --env.
import os

from setuptools import setup
from torch.utils.cpp_extension import BuildExtension, CppExtension, \
    CUDAExtension


def enabled(name):
    return os.environ.get(name, "0") == "1"


ext_modules = []
if enabled("ENVX_BUILD_CPU"):
    ext_modules.append(CppExtension(
        "envx._cpu", ["csrc/ops.cpp", "csrc/cpu/kernels.cpp"],
        define_macros=[("ENVX_CPU", None)]))
if enabled("ENVX_BUILD_CUDA"):
    ext_modules.append(CUDAExtension(
        "envx._cuda", ["csrc/ops.cpp", "csrc/cuda/kernels.cu"],
        define_macros=[("ENVX_CUDA", None)]))

setup(name="envx", packages=["envx"], ext_modules=ext_modules,
      cmdclass={"build_ext": BuildExtension})
