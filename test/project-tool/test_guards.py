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
