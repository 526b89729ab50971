# The wheel's install test lints this project as a user would, after
# `pip install` of the wheel: a torch.utils.cpp_extension operator library whose
# kernel writes rows of a buffer its caller owns, and a compiled Python
# function that writes into a fresh tensor.
from setuptools import setup
from torch.utils.cpp_extension import BuildExtension, CppExtension

setup(
    name="rowfill",
    packages=["rowfill"],
    ext_modules=[CppExtension("rowfill._C", ["csrc/rowfill.cpp"])],
    cmdclass={"build_ext": BuildExtension},
)
