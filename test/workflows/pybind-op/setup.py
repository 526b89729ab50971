# A Python custom op over a C++ function a pybind11 module binds (issue 80,
# item 7): the schema is declared in Python (torch.library.custom_op's
# mutates_args), the write is in C++ (csrc/fill.cpp). The workflow
# cmake-projects lints it with one torch-tidy-project command.
from setuptools import setup
from torch.utils.cpp_extension import BuildExtension, CppExtension

setup(
    name="pybind_op",
    packages=["pybind_op"],
    ext_modules=[CppExtension("pybind_op._C", ["csrc/fill.cpp"])],
    cmdclass={"build_ext": BuildExtension},
)
