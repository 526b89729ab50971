# The cmake-lib library built the way big operator libraries build theirs:
# CMake runs from a build_clib command of setup.py (the core library), and
# setup() compiles a small binding extension with sources itself. The test
# copies cmake-lib's CMakeLists.txt, csrc/ and tidy_lib/ beside this file.
import os
import subprocess
import sys

from setuptools import Extension, setup
from setuptools.command.build_clib import build_clib


class CoreBuild(build_clib):
    def run(self):
        import torch.utils

        flavour = "gpu" if os.environ.get("TIDY_LIB_TARGET") == "gpu" \
            else "workflow"
        here = os.path.dirname(os.path.abspath(__file__))
        tmp = os.path.join(self.build_temp, "core")
        os.makedirs(tmp, exist_ok=True)
        subprocess.check_call(
            ["cmake", here, f"-DCMAKE_PREFIX_PATH={torch.utils.cmake_prefix_path}",
             f"-DPython3_EXECUTABLE={sys.executable}",
             "-DTIDY_LIB_WITH_ZLIB=ON", f"-DTIDY_LIB_FLAVOUR={flavour}"],
            cwd=tmp)
        subprocess.check_call(["cmake", "--build", "."], cwd=tmp)


setup(
    name="tidy_lib",
    packages=["tidy_lib"],
    libraries=[("tidy_lib_core", {"sources": []})],
    ext_modules=[Extension("tidy_lib._bind", ["csrc/bind.cpp"])],
    cmdclass={"build_clib": CoreBuild},
)
