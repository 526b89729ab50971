# A torch.utils.cpp_extension project, as `pip install .` builds it: no CMake,
# so no compile_commands.json. docs/extensions.md lints it without building
# (tools/torch-tidy/torch-tidy-cdb); the workflow-extension test does that
# and never runs this file.
from setuptools import setup
from torch.utils.cpp_extension import BuildExtension, CUDAExtension

setup(
    name="tidy_ext",
    ext_modules=[
        CUDAExtension(
            "tidy_ext._C",
            ["csrc/ops.cpp", "csrc/ops_cuda.cu"],
            extra_compile_args={"cxx": ["-O2"], "nvcc": ["-O2"]},
        )
    ],
    cmdclass={"build_ext": BuildExtension},
)
