#!/usr/bin/env python3
"""Unit tests of torch_tidy_project.guards: what switches a setup.py's
extensions on (the environment variables and torch-version gates of the
branches that add them, with their sources), and coverage's advice from
them only."""
import os
import tempfile
import textwrap
import unittest

import support  # noqa: F401 (tools/torch-tidy on sys.path)
from support import write
from torch_tidy_project import coverage as cov
from torch_tidy_project import guards

SETUP = textwrap.dedent('''
    import os, glob, torch
    from packaging.version import Version
    from torch.utils.cpp_extension import CppExtension, CUDAExtension

    def enabled(name):
        return os.environ.get(name, "0") == "1"

    VERSION = "1.0" + os.environ.get("VERSION_SUFFIX", "")
    BUILD_CUDA = os.getenv("XX_BUILD_CUDA", "0") == "1"
    torch_version = Version(torch.__version__)
    ext_modules = [CppExtension("x._C", ["csrc/ops.cpp"])]
    if enabled("XX_BUILD_CPU"):
        ext_modules.append(CppExtension("x._cpu", glob.glob("csrc/cpu/*.cpp")))
    if BUILD_CUDA:
        ext_modules.append(CUDAExtension("x._cuda", ["csrc/cuda/k.cu"]))
        if torch_version >= Version("2.11") and os.getenv("USE_CPP"):
            ext_modules.append(CUDAExtension("x._sm100", ["csrc/sm100/x.cu"]))
    if torch_version < Version("2.9"):
        pass
    else:
        ext_modules.append(CppExtension("x._new", ["csrc/new/n.cpp"]))
    ''')


class ReadTest(unittest.TestCase):
    def setUp(self):
        self._tmp = tempfile.TemporaryDirectory()
        self.d = os.path.realpath(self._tmp.name)
        for f in ("csrc/ops.cpp", "csrc/cpu/a.cpp", "csrc/cpu/b.cpp",
                  "csrc/cuda/k.cu", "csrc/sm100/x.cu", "csrc/new/n.cpp"):
            write(os.path.join(self.d, f))

    def tearDown(self):
        self._tmp.cleanup()

    def src(self, *names):
        return {os.path.join(self.d, n) for n in names}

    def test_the_switches_and_their_sources(self):
        got = {(g.kind, g.value): g.sources for g in guards.read(SETUP, self.d)}
        self.assertEqual(got, {
            ("env", "XX_BUILD_CPU"): self.src("csrc/cpu/a.cpp", "csrc/cpu/b.cpp"),
            ("env", "XX_BUILD_CUDA"): self.src("csrc/cuda/k.cu", "csrc/sm100/x.cu"),
            ("env", "USE_CPP"): self.src("csrc/sm100/x.cu"),
            ("torch", "2.11"): self.src("csrc/sm100/x.cu"),
            ("torch", "2.9"): self.src("csrc/new/n.cpp"),
        })
        # A variable read for a version string is no switch.
        self.assertNotIn(("env", "VERSION_SUFFIX"), got)

    def test_the_value_each_condition_wants(self):
        # The advice gives the value the guarding condition tests, not "=1"
        # by habit: a string compared equal, one of a tuple, a truth test, an
        # unequal off value; where no one value makes it hold, it quotes the
        # condition and its line.
        text = textwrap.dedent('''
            import os
            VARIANT = os.environ.get("XX_VARIANT", "cpu")
            ext_modules = []
            if VARIANT == "cuda":
                ext_modules.append(CUDAExtension("a", ["csrc/cuda/k.cu"]))
            if os.getenv("XX_CPU", "").lower() in ("on", "1"):
                ext_modules.append(CppExtension("b", ["csrc/cpu/a.cpp"]))
            if os.getenv("XX_NEW", "0") != "0":
                ext_modules.append(CppExtension("c", ["csrc/new/n.cpp"]))
            if not os.getenv("XX_NO_OPS"):
                ext_modules.append(CppExtension("d", ["csrc/ops.cpp"]))
            if os.environ.get("XX_TARGET") != "cpu":
                ext_modules.append(CppExtension("e", ["csrc/sm100/x.cu"]))
            ''')
        got = {g.value: g.hint() for g in guards.read(text, self.d)}
        self.assertEqual(got["XX_VARIANT"], "--env XX_VARIANT=cuda")
        self.assertEqual(got["XX_CPU"], "--env XX_CPU=on")
        self.assertEqual(got["XX_NEW"], "--env XX_NEW=1")
        self.assertEqual(got["XX_NO_OPS"], "--env XX_NO_OPS set so that "
                         "`not os.getenv('XX_NO_OPS')` holds (setup.py:11)")
        self.assertEqual(got["XX_TARGET"], "--env XX_TARGET set so that "
                         "`os.environ.get('XX_TARGET') != 'cpu'` holds "
                         "(setup.py:13)")

    def test_an_extension_built_from_a_folder(self):
        # torchao: the shared CPU kernels are a CMakeExtension whose
        # CMakeLists.txt is in torchao/csrc/cpu, added only where
        # BUILD_TORCHAO_EXPERIMENTAL is "1" (setup.py's "Level 3"); its
        # sources are the folder's.
        for f in ("torchao/csrc/cpu/shared_kernels/a.cpp",
                  "torchao/csrc/cpu/CMakeLists.txt", "torchao/csrc/cuda/b.cu"):
            write(os.path.join(self.d, f))
        # USE_CPP is "1" by default: the macOS auto-build it feeds is decided
        # by the platform, and "--env USE_CPP=1" would change nothing.
        text = textwrap.dedent('''
            import os
            use_cpp = os.getenv("USE_CPP", "1")
            auto = use_cpp == "1" and is_arm64 and is_macos
            ext_modules = [CUDAExtension("torchao._C", ["torchao/csrc/cuda/b.cu"])]
            if auto or os.getenv("BUILD_TORCHAO_EXPERIMENTAL") == "1":
                ext_modules.append(CMakeExtension(
                    "torchao._C_cpu_shared_kernels_aten",
                    cmake_lists_dir="torchao/csrc/cpu", cmake_args=["-DX=ON"]))
            if os.getenv("ZZ_B") == "1":
                ext_modules.append(CppExtension("z", ["torchao/csrc/cuda/b.cu"],
                                                library_dir="torchao/csrc/cpu"))
            ''')
        got = {g.hint(): g.sources for g in guards.read(text, self.d)}
        # A library folder is not what an extension is built from.
        self.assertEqual(got, {"--env BUILD_TORCHAO_EXPERIMENTAL=1":
                               self.src("torchao/csrc/cpu/shared_kernels/a.cpp"),
                               "--env ZZ_B=1": self.src("torchao/csrc/cuda/b.cu")})

    def test_sources_a_branch_takes_out(self):
        # torchao: the ATen CPU kernels are in the glob of every source and
        # taken out unless USE_CPU_KERNELS is "1" (on Linux): the advice is
        # what makes that test fail.
        for f in ("torchao/csrc/cpu/aten_kernels/a.cpp", "torchao/csrc/cuda/b.cu",
                  "torchao/csrc/cpu/shared_kernels/c.cpp"):
            write(os.path.join(self.d, f))
        text = textwrap.dedent('''
            import glob, os
            use_cpu_kernels = os.getenv("USE_CPU_KERNELS", "0") == "1"
            sources = list(glob.glob("torchao/csrc/**/*.cpp", recursive=True))
            if not use_cpu_kernels or not is_linux:
                excluded = list(glob.glob("torchao/csrc/cpu/aten_kernels/*.cpp"))
                sources = [s for s in sources if s not in excluded]
            ext_modules = [CppExtension("torchao._C", sources)]
            ''')
        got = {g.hint(): g.sources for g in guards.read(text, self.d)}
        self.assertEqual(got, {"--env USE_CPU_KERNELS=1":
                               self.src("torchao/csrc/cpu/aten_kernels/a.cpp")})

    def test_one_variable_two_values_two_switches(self):
        text = textwrap.dedent('''
            import os
            VARIANT = os.environ.get("XX_VARIANT", "cpu")
            ext_modules = []
            if VARIANT == "cuda":
                ext_modules.append(CUDAExtension("a", ["csrc/cuda/k.cu"]))
            elif VARIANT == "rocm":
                ext_modules.append(CppExtension("b", ["csrc/new/n.cpp"]))
            ''')
        got = {g.hint(): g.sources for g in guards.read(text, self.d)}
        self.assertEqual(got, {"--env XX_VARIANT=cuda": self.src("csrc/cuda/k.cu"),
                               "--env XX_VARIANT=rocm": self.src("csrc/new/n.cpp")})

    def test_sources_of_the_functions_a_branch_calls(self):
        # xformers adds flash-attention 3 under FORCE_CUDA through a
        # function of its setup.py that globs paths it builds.
        for f in ("third_party/fa/hopper/api.cpp",
                  "third_party/fa/hopper/k.cu", "top.cu", "csrc/cuda/m.cu"):
            write(os.path.join(self.d, f))
        text = textwrap.dedent('''
            import glob, os
            this_dir = os.path.dirname(os.path.abspath(__file__))

            def flash3():
                root = os.path.join(this_dir, "third_party", "fa")
                return [CUDAExtension("fa3", glob.glob(
                    os.path.join(root, "hopper", "*.cpp")) + glob.glob(
                    os.path.join(root, "hopper", "*.cu")))]

            ext_modules = []
            sources = []
            source_cuda = glob.glob(os.path.join("csrc", "**", "*.cu"),
                                    recursive=True)
            if os.getenv("FORCE_CUDA", "0") == "1" or \
                    os.getenv("TORCH_CUDA_ARCH_LIST", "") != "":
                sources += source_cuda
                ext_modules.append(CUDAExtension("x._C", sources))
                ext_modules += flash3()
                if os.getenv("FA2"):
                    ext_modules.append(CUDAExtension("fa2", unknown))
            ''')
        got = {(g.kind, g.value): g.sources for g in guards.read(text, self.d)}
        # (the pattern's own "*.cu" is not also a pattern of setup.py's
        # folder: top.cu is not brought in)
        # What the branch adds through names assigned before it is its
        # too; a branch inside it whose sources are not known leaves the
        # outer branch's as they are (they hold its).
        cuda = self.src("third_party/fa/hopper/api.cpp",
                        "third_party/fa/hopper/k.cu", "csrc/cuda/k.cu",
                        "csrc/cuda/m.cu", "csrc/sm100/x.cu")
        self.assertEqual(got, {("env", "FORCE_CUDA"): cuda,
                               ("env", "TORCH_CUDA_ARCH_LIST"): cuda,
                               ("env", "FA2"): None})
        # An arch list is no switch to set to 1.
        switches = [cov.Switch(g.value, g.kind, files=g.sources)
                    for g in guards.read(text, self.d)]
        path = os.path.join(self.d, "third_party/fa/hopper/api.cpp")
        self.assertEqual([s.hint() for s in cov.switches_for(
            [path], switches, self.d)[path]], ["--env FORCE_CUDA=1"])

    def test_a_switch_two_names_away_and_flags_that_are_no_extension(self):
        # torch-harmonics: BUILD_CUDA = TH_BUILD_CUDA or (a GPU found), and
        # TH_BUILD_CUDA = os.getenv(...) == "1"; its OpenMP switch adds a
        # flag to extra_compile_args, no extension.
        text = textwrap.dedent('''
            import os
            def get_ext_modules():
                TH_BUILD_CUDA = os.getenv("TH_BUILD_CUDA", "0") == "1"
                openmp = os.getenv("TH_OPENMP", "0") == "1"
                BUILD_CUDA = TH_BUILD_CUDA or torch.cuda.is_available()
                extra_compile_args = {"cxx": []}
                if openmp:
                    extra_compile_args["cxx"].append("-fopenmp")
                ext_modules = [CppExtension("x._C", ["csrc/ops.cpp"])]
                if BUILD_CUDA:
                    ext_modules.append(CUDAExtension("x._cuda",
                                                     ["csrc/cuda/k.cu"]))
                return ext_modules
            ''')
        got = {(g.kind, g.value): g.sources for g in guards.read(text, self.d)}
        self.assertEqual(got, {("env", "TH_BUILD_CUDA"):
                               self.src("csrc/cuda/k.cu")})

    def test_unparsable_or_no_branch(self):
        self.assertEqual(guards.read("def (:", self.d), [])
        self.assertEqual(guards.read("import os\nx = os.getenv('A')\n", self.d), [])

    def test_advice_follows_the_branches(self):
        # A kernel file in the sm100 folder: the variables and the version
        # gate of its branch, matched by path (the torch-tidy-project run
        # passes only these switches where setup.py was read).
        switches = [cov.Switch(g.value, g.kind, files=g.sources)
                    for g in guards.read(SETUP, self.d)]
        x = os.path.join(self.d, "csrc", "sm100", "x.cu")
        found = cov.switches_for([x], switches, self.d)
        self.assertEqual(sorted(s.hint() for s in found[x]),
                         ["--env USE_CPP=1", "--env XX_BUILD_CUDA=1",
                          "needs torch >= 2.11 (--python with a torch that "
                          "new)"])


if __name__ == "__main__":
    unittest.main()
