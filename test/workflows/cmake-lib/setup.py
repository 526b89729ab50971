# An operator library whose setup.py drives CMake, as many public ones do: no
# CppExtension for torch-tidy-cdb to read; `pip install .` runs CMake from
# build_ext. torch-tidy-project runs that build_ext with cmake recording, and
# configures CMake itself with the torch of --python and the -D options below.
import os
import subprocess
import sys

from setuptools import Extension, setup
from setuptools.command.build_ext import build_ext


class CMakeBuild(build_ext):
    def build_extension(self, ext):
        import torch.utils

        mode = "Debug" if self.debug else "Release"
        out = os.path.abspath(os.path.dirname(self.get_ext_fullpath(ext.name)))
        cmake_args = [
            f"-DCMAKE_BUILD_TYPE={mode}",
            f"-DCMAKE_LIBRARY_OUTPUT_DIRECTORY={out}",
            f"-DCMAKE_PREFIX_PATH={torch.utils.cmake_prefix_path}",
            f"-DPython3_EXECUTABLE={sys.executable}",
            "-DTIDY_LIB_WITH_ZLIB=ON",
            "-DTIDY_LIB_FLAVOUR=workflow",
        ]
        os.makedirs(self.build_temp, exist_ok=True)
        subprocess.check_call(["cmake", ext.sourcedir, *cmake_args],
                              cwd=self.build_temp)
        subprocess.check_call(["cmake", "--build", "."], cwd=self.build_temp)


class CMakeExtension(Extension):
    def __init__(self, name):
        super().__init__(name, sources=[])
        self.sourcedir = os.path.dirname(os.path.abspath(__file__))


setup(
    name="tidy_lib",
    packages=["tidy_lib"],
    ext_modules=[CMakeExtension("tidy_lib._C")],
    cmdclass={"build_ext": CMakeBuild},
)
