#!/usr/bin/env python3
"""Unit tests of torch_tidy_project.nvcc: nvcc compile-database entries
turned into clang CUDA (host side) entries."""
import os
import tempfile
import unittest

from support import write
from torch_tidy_project import cdb, nvcc


def pairs(args, flag):
    """The values given with flag as a separate argument."""
    return [args[i + 1] for i, a in enumerate(args[:-1]) if a == flag]


class Fixture(unittest.TestCase):
    def setUp(self):
        self._tmp = tempfile.TemporaryDirectory()
        self.d = os.path.realpath(self._tmp.name)
        self.toolkit = os.path.join(self.d, "cuda")
        write(os.path.join(self.toolkit, "include", "cuda.h"))
        write(os.path.join(self.toolkit, "bin", "nvcc"), "#!/bin/sh\n")
        self.nvcc = os.path.join(self.toolkit, "bin", "nvcc")
        self.project = os.path.join(self.d, "proj")
        self.build = os.path.join(self.project, "build")
        os.makedirs(os.path.join(self.project, "inc"))
        write(os.path.join(self.project, "src", "k.cu"))
        self.sysinc = os.path.join(self.d, "sys")
        os.makedirs(self.sysinc)
        write(os.path.join(self.build, "includes_CUDA.rsp"),
              f"-I../inc -isystem {self.sysinc}\n")
        self.shim = os.path.join(self.d, "shim")

    def tearDown(self):
        self._tmp.cleanup()

    def entry(self, extra=()):
        return {"directory": self.build,
                "arguments": [self.nvcc, "--options-file",
                              "includes_CUDA.rsp", *extra,
                              "-Xcompiler=-fPIC,-DFOO", "-DBAR=1",
                              "-gencode", "arch=compute_80,code=sm_80",
                              "-Xcudafe", "--diag_suppress=x",
                              "--expt-relaxed-constexpr", "-std=c++17",
                              "-x", "cu", "-c", "../src/k.cu",
                              "-o", "obj/k.o"],
                "file": "../src/k.cu"}


class TranslateTest(Fixture):
    def test_clang_cuda_host_entry(self):
        out, added = nvcc.translate(self.entry(), self.shim)
        args = out["arguments"]
        self.assertFalse(added)
        self.assertEqual(args[0], "clang++")
        self.assertEqual(args[1:4], ["-x", "cuda", "--cuda-host-only"])
        self.assertIn(f"--cuda-path={self.toolkit}", args)
        self.assertEqual(out["directory"], self.build)
        self.assertEqual(out["file"], "../src/k.cu")
        source = os.path.join(self.project, "src", "k.cu")
        self.assertEqual(args[-2:], ["-c", source])
        # Kept: macros, include paths (absolute), the standard.
        self.assertIn("-DFOO", args)
        self.assertIn("-DBAR=1", args)
        self.assertIn("-std=c++17", args)
        self.assertIn(os.path.join(self.project, "inc"), pairs(args, "-I"))
        self.assertIn(self.sysinc, pairs(args, "-isystem"))
        for flag in ("-I", "-isystem"):
            for p in pairs(args, flag):
                self.assertTrue(os.path.isabs(p), p)
        # The toolkit's include directory, and the shim for headers the fake
        # toolkit lacks.
        self.assertIn(os.path.join(self.toolkit, "include"),
                      pairs(args, "-isystem"))
        self.assertIn(self.shim, pairs(args, "-isystem"))
        for h in cdb.CUDA_SHIM_HEADERS:
            self.assertTrue(os.path.isfile(os.path.join(self.shim, h)))
        # Dropped: nvcc's own options and their values, the output.
        for gone in ("-gencode", "arch=compute_80,code=sm_80", "-Xcudafe",
                     "--diag_suppress=x", "--expt-relaxed-constexpr", "-o",
                     "obj/k.o", "-fPIC", "-Xcompiler=-fPIC,-DFOO",
                     "--options-file", "includes_CUDA.rsp", "cu"):
            self.assertNotIn(gone, args)
        self.assertEqual(args.count("-x"), 1)
        self.assertEqual(args.count("-c"), 1)
        self.assertEqual(args.count(source), 1)

    def test_command_string_and_at_file(self):
        write(os.path.join(self.build, "more.rsp"), "-DFROM_AT_FILE")
        e = {"directory": self.build,
             "command": f"{self.nvcc} @more.rsp -Xcompiler -DHOST "
                        f"--compiler-options=-Wall,-DHOST2 -I ../inc "
                        f"--std c++20 -c ../src/k.cu -o k.o",
             "file": "../src/k.cu"}
        self.assertTrue(nvcc.is_nvcc(e))
        args = nvcc.translate(e, self.shim)[0]["arguments"]
        for kept in ("-DFROM_AT_FILE", "-DHOST", "-DHOST2", "-std=c++20"):
            self.assertIn(kept, args)
        self.assertNotIn("-Wall", args)
        self.assertIn(os.path.join(self.project, "inc"), pairs(args, "-I"))

    def test_toolkit_include_not_repeated_when_named(self):
        e = self.entry(["-isystem", os.path.join(self.toolkit, "include")])
        args = nvcc.translate(e, self.shim)[0]["arguments"]
        self.assertEqual(pairs(args, "-isystem").count(
            os.path.join(self.toolkit, "include")), 1)

    def test_torch_includes_added_when_entry_names_none(self):
        t1, t2 = os.path.join(self.d, "torch1"), os.path.join(self.d, "t2")
        out, added = nvcc.translate(self.entry(), self.shim, [t1, t2])
        self.assertTrue(added)
        inc = pairs(out["arguments"], "-isystem")
        self.assertIn(t1, inc)
        self.assertIn(t2, inc)

    def test_torch_includes_not_added_when_entry_names_one(self):
        t1, t2 = os.path.join(self.d, "torch1"), os.path.join(self.d, "t2")
        os.makedirs(t1)
        out, added = nvcc.translate(self.entry(["-isystem", t1]), self.shim,
                                    [t1, t2])
        self.assertFalse(added)
        self.assertNotIn(t2, out["arguments"])
        self.assertEqual(pairs(out["arguments"], "-isystem").count(t1), 1)


class DatabaseTest(Fixture):
    def test_translate_database_counts(self):
        t = os.path.join(self.d, "torch")
        gcc = {"directory": self.build,
               "arguments": ["/usr/bin/c++", "-isystem", t, "-c", "a.cpp"],
               "file": "a.cpp"}
        named = self.entry(["-isystem", t])
        entries = [gcc, self.entry(), named]
        out, n, added = nvcc.translate_database(entries, self.shim, [t])
        self.assertEqual(n, 2)
        self.assertEqual(added, 1)
        self.assertEqual(len(out), 3)
        self.assertIs(out[0], gcc)
        self.assertEqual(out[1]["arguments"][0], "clang++")
        self.assertEqual(out[2]["arguments"][0], "clang++")

    def test_is_nvcc(self):
        self.assertTrue(nvcc.is_nvcc({"command": "/usr/local/cuda/bin/nvcc "
                                      "-c a.cu", "file": "a.cu"}))
        self.assertFalse(nvcc.is_nvcc({"arguments": ["clang++", "-c", "a.cu"],
                                       "file": "a.cu"}))
        self.assertFalse(nvcc.is_nvcc({"command": "", "file": "a.cu"}))

    def test_toolkit_of(self):
        self.assertEqual(nvcc.toolkit_of(self.nvcc), self.toolkit)
        self.assertIsNone(nvcc.toolkit_of("no-such-nvcc-anywhere-xyz"))


if __name__ == "__main__":
    unittest.main()
