from setuptools import setup
from torch.utils.cpp_extension import CppExtension, BuildExtension

setup(name="pw", packages=["pkg"],
      ext_modules=[CppExtension("pkg._C", ["csrc/fill.cpp"])],
      cmdclass={"build_ext": BuildExtension})
