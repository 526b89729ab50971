# A torch.utils.cpp_extension project, as `pip install .` builds it: no CMake,
# so no compile_commands.json. docs/extensions.md lints it without building
# (tools/torch-tidy/torch-tidy-cdb); the workflow-extension test does that,
# once from the sources and once reading this file's extensions
# (--setup-py: setup() is replaced, nothing is built).
from setuptools import setup
from torch.utils.cpp_extension import BuildExtension, CUDAExtension

setup(
    name="tidy_ext",
    ext_modules=[
        CUDAExtension(
            "tidy_ext._C",
            ["csrc/ops.cpp", "csrc/ops_cuda.cu"],
            include_dirs=["csrc"],
            define_macros=[("WITH_PYTHON", None)],
            extra_compile_args={"cxx": ["-O2", "-DTIDY_EXT_CPU"],
                                "nvcc": ["-O2", "-DTIDY_EXT_CUDA"]},
        )
    ],
    cmdclass={"build_ext": BuildExtension},
)
