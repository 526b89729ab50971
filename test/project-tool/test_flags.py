#!/usr/bin/env python3
"""Unit tests of torch_tidy_project.flags: the flags of gcc's, clang's and
nvcc's command lines that decide how a source parses."""
import os
import tempfile
import unittest

from support import write
from torch_tidy_project import flags


class KeptFlagsTest(unittest.TestCase):
    def test_joined_and_separate_forms(self):
        kept = flags.kept_flags(
            ["-I", "a", "-Ib", "-isystem=c", "-iquote", "d", "-D", "X",
             "-UY", "-include", "pre.h", "-std", "c++17", "-ccbin", "g++",
             "-arch=sm_80", "-lineinfo", "-maxrregcount", "32"], "/w")
        self.assertEqual(kept, ["-I", "/w/a", "-I", "/w/b", "-isystem",
                                 "/w/c", "-iquote", "/w/d", "-D", "X", "-UY",
                                 "-include", "pre.h", "-std=c++17"])


    def test_extra_compile_args_of_an_extension(self):
        # cpp_extension's extra_compile_args, "cxx" or "nvcc": -O3, -Wall
        # and -gencode dropped; nvcc's --std read as -std.
        args = ["-O3", "-DX=1", "-I", "inc", "-std=c++17", "--std=c++20",
                "-isystem", "/s", "-Wall", "-include", "pre.h", "-U", "Y",
                "-Ijoined", "-D", "Z", "-UW", "-gencode", "arch=compute_80"]
        self.assertEqual(flags.kept_flags(args, "/w"),
                         ["-DX=1", "-I", "/w/inc", "-std=c++17",
                          "-std=c++20", "-isystem", "/s", "-include",
                          "pre.h", "-U", "Y", "-I", "/w/joined", "-D", "Z",
                          "-UW"])

    def test_response_files_and_xcompiler(self):
        with tempfile.TemporaryDirectory() as d:
            write(os.path.join(d, "inc.rsp"), "-I sub -isystem /t\n")
            self.assertEqual(
                flags.kept_flags(["--options-file", "inc.rsp",
                                  "-Xcompiler=-fPIC,-DFOO", "@inc.rsp"], d),
                ["-I", os.path.join(d, "sub"), "-isystem", "/t", "-DFOO",
                 "-I", os.path.join(d, "sub"), "-isystem", "/t"])


class ArgumentsTest(unittest.TestCase):
    def test_arguments_with_unbalanced_quote(self):
        self.assertEqual(flags.arguments({"command": "nvcc -DX='1 -c a.cu"}),
                         ["nvcc", "-DX='1", "-c", "a.cu"])

    def test_compiler_launchers_left_out(self):
        self.assertEqual(flags.compiler_arguments(
            {"command": "ccache sccache /usr/bin/nvcc -c a.cu"}),
            ["/usr/bin/nvcc", "-c", "a.cu"])


if __name__ == "__main__":
    unittest.main()
