#!/usr/bin/env python3
"""tools/ground-truth/extension_build.py without torch: the precompiled
header is built with the flags cpp_extension gives a source (read from a
probe's build.ninja), used through -include, built once per torch version,
and dropped, with a note, wherever it cannot be built or GCC would not use
it. A stand-in cpp_extension writes the build.ninja; a stand-in compiler
records its command lines."""

import contextlib
import io
import os
import stat
import sys
import tempfile
import types
import unittest
from unittest import mock

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, "..", "..", "tools", "ground-truth"))
import extension_build as eb  # noqa: E402

# The stand-in compiler: says it is GCC (clang where $FAKE_CLANG is set), logs each command line, writes the
# file after -o, and warns as GCC does when $FAKE_INVALID is set.
COMPILER = r'''#!/bin/sh
case "$*" in -dM*) echo "#define __GNUC__ 12"; [ -n "$FAKE_CLANG" ] && echo "#define __clang__ 1"; exit 0 ;; esac
echo "$*" >> "$FAKE_LOG"
out=""
prev=""
for a in "$@"; do [ "$prev" = "-o" ] && out="$a"; prev="$a"; done
case "$*" in
  *-include*) [ -n "$FAKE_INVALID" ] && echo "warning: tt_pch.h.gch: not used because \`X' is defined" >&2 ;;
esac
[ -n "$out" ] && echo built > "$out"
exit 0
'''


class FakeCppExtension:
    def __init__(self, compiler):
        self.compiler = compiler
        self.loads = []

    def load(self, name, sources, build_directory, is_python_module, verbose,
             extra_cflags=None):
        self.loads.append((name, list(sources), list(extra_cflags or [])))
        with open(os.path.join(build_directory, "build.ninja"), "w") as f:
            f.write("ninja_required_version = 1.3\n"
                    f"cxx = {self.compiler}\n\n"
                    f"cflags = -DTORCH_EXTENSION_NAME={name} -DTORCH_API_INCLUDE_EXTENSION_H "
                    "-DPYBIND11_COMPILER_TYPE=\\\"_gcc\\\" -isystem /torch/include -fPIC "
                    "-std=c++17\npost_cflags = \n\nrule compile\n  command = $cxx $cflags\n")


class ExtensionBuildTest(unittest.TestCase):
    def setUp(self):
        self.tmp = tempfile.TemporaryDirectory()
        self.addCleanup(self.tmp.cleanup)
        self.compiler = os.path.join(self.tmp.name, "g++")
        with open(self.compiler, "w") as f:
            f.write(COMPILER)
        os.chmod(self.compiler, os.stat(self.compiler).st_mode | stat.S_IEXEC)
        self.log = os.path.join(self.tmp.name, "log")
        self.ext = FakeCppExtension(self.compiler)
        self.torch = types.SimpleNamespace(__version__="2.8.0+cpu")
        env = {"TORCH_TIDY_CACHE": os.path.join(self.tmp.name, "cache"),
               "FAKE_LOG": self.log}
        for patch in (mock.patch.dict(os.environ, env),
                      mock.patch.object(eb, "_cpp_extension", lambda: self.ext),
                      mock.patch.dict(eb._PCH_FLAGS, clear=True)):
            patch.start()
            self.addCleanup(patch.stop)

    def commands(self):
        with open(self.log) as f:
            return f.read().splitlines()

    def test_built_with_the_probes_flags_and_used_by_every_twin(self):
        flags = eb.pch_flags(self.torch)
        self.assertEqual(flags[0], "-include")
        header = flags[1]
        self.assertTrue(os.path.exists(header + ".gch"))
        with open(header) as f:
            self.assertEqual(f.read().splitlines(), [f"#include <{h}>" for h in eb.HEADERS])
        build, check = self.commands()
        # The probe's flags, less its extension name; the header as C++ header.
        self.assertIn("-isystem /torch/include -fPIC -std=c++17", build)
        self.assertIn("-DPYBIND11_COMPILER_TYPE=\"_gcc\"", build)
        self.assertIn("-x c++-header", build)
        self.assertNotIn("TORCH_EXTENSION_NAME", build)
        self.assertIn("-Winvalid-pch", check)
        # A twin gets the flags; a second torch of the same version reuses it.
        eb.load_texts(self.torch, "tt_twin", [("twin.cpp", "int x;\n")])
        self.assertEqual(self.ext.loads[-1][2], flags)
        eb._PCH_FLAGS.clear()
        self.assertEqual(eb.pch_flags(self.torch), flags)
        self.assertEqual(len(self.commands()), 2)

    def test_another_torch_version_gets_its_own_header(self):
        first = eb.pch_flags(self.torch)
        other = eb.pch_flags(types.SimpleNamespace(__version__="2.15.0"))
        self.assertNotEqual(first[1], other[1])

    def test_a_header_gcc_would_not_use_is_dropped_with_a_note(self):
        err = io.StringIO()
        with mock.patch.dict(os.environ, {"FAKE_INVALID": "1"}), \
                contextlib.redirect_stderr(err):
            flags = eb.pch_flags(self.torch)
        self.assertEqual(flags, [])
        self.assertIn("without a precompiled header: GCC does not use it", err.getvalue())
        self.assertFalse(any(n.endswith(".gch") for _, _, files in
                             os.walk(os.environ["TORCH_TIDY_CACHE"]) for n in files))
        # The twin is still built, without it.
        with contextlib.redirect_stderr(io.StringIO()):
            eb.load_texts(self.torch, "tt_twin", [("twin.cpp", "int x;\n")])
        self.assertEqual(self.ext.loads[-1][2], [])

    def test_a_failed_probe_builds_without_it(self):
        def broken(**kwargs):
            raise RuntimeError("Error building extension 'tt_pch_probe'")
        self.ext.load = broken
        err = io.StringIO()
        with contextlib.redirect_stderr(err):
            self.assertEqual(eb.pch_flags(self.torch), [])
        self.assertIn("RuntimeError: Error building extension", err.getvalue())

    def test_another_compiler_is_not_given_a_gcc_header(self):
        err = io.StringIO()
        with mock.patch.dict(os.environ, {"FAKE_CLANG": "1"}), \
                contextlib.redirect_stderr(err):
            self.assertEqual(eb.pch_flags(self.torch), [])
        self.assertIn("the compiler is not GCC", err.getvalue())

    def test_sources_are_kept_by_text_and_compiled_as_written(self):
        eb.pch_flags(self.torch)
        eb.load_texts(self.torch, "tt_twin", [("twin.cpp", "int x;\n")])
        name, sources, _ = self.ext.loads[-1]
        with open(sources[0]) as f:
            self.assertEqual(f.read(), "int x;\n")
        eb.load_texts(self.torch, "tt_twin", [("twin.cpp", "int y;\n")])
        self.assertNotEqual(os.path.dirname(self.ext.loads[-1][1][0]),
                            os.path.dirname(sources[0]))


if __name__ == "__main__":
    unittest.main()
