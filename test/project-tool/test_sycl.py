#!/usr/bin/env python3
"""Unit tests of torch_tidy_project.sycl: SYCL sources (.sycl files, and
sources a SYCL compiler compiles) parsed as C++, host side, with torch-tidy's
stand-ins for the SYCL headers; and the .sycl sources torch-tidy-cdb finds
and gives a SyclExtension's flags."""
import os
import tempfile
import unittest

from support import fake_torch, write
from torch_tidy_project import cdb, sycl


def icpx_entry(build, source, *extra):
    return {"directory": build,
            "arguments": ["/opt/intel/oneapi/compiler/bin/icpx", "-fsycl",
                          "-fsycl-targets=spir64_gen", "-Xs", "-device pvc",
                          "-DK=1", "-I../inc", "-std=c++17", *extra,
                          "-c", source, "-o", "k.o"],
            "file": source}


class TranslateTest(unittest.TestCase):
    def test_a_sycl_entry_is_read_as_cxx_with_the_stand_ins(self):
        e = icpx_entry("/p/build", "../src/k.sycl")
        self.assertTrue(sycl.is_sycl(e))
        out = sycl.translate(e)
        args = out["arguments"]
        self.assertEqual(args[:5], ["clang++", "-x", "c++", "-isystem",
                                    sycl.STANDIN_DIR])
        self.assertIn("-DK=1", args)
        self.assertIn("/p/inc", args)
        self.assertIn("-std=c++17", args)
        # Only a SYCL compiler knows these.
        for gone in ("-fsycl", "-fsycl-targets=spir64_gen", "-Xs",
                     "-device pvc"):
            self.assertNotIn(gone, args)
        self.assertEqual(args[-2:], ["-c", "/p/src/k.sycl"])
        self.assertEqual(out["file"], "../src/k.sycl")

    def test_a_cpp_source_compiled_with_fsycl_is_one_too(self):
        self.assertTrue(sycl.is_sycl(icpx_entry("/p", "k.cpp")))
        self.assertFalse(sycl.is_sycl({
            "directory": "/p", "file": "a.cpp",
            "arguments": ["g++", "-DA", "-c", "a.cpp"]}))

    def test_database_counts_what_it_turned(self):
        plain = {"directory": "/p", "file": "a.cpp",
                 "arguments": ["g++", "-c", "a.cpp"]}
        entries, n = sycl.translate_database(
            [plain, icpx_entry("/p", "k.sycl")])
        self.assertEqual(n, 1)
        self.assertIs(entries[0], plain)
        self.assertEqual(entries[1]["arguments"][1:3], ["-x", "c++"])

    def test_the_stand_ins_are_there(self):
        for h in ("sycl/sycl.hpp", "sycl/ext/intel/esimd.hpp"):
            self.assertTrue(os.path.isfile(os.path.join(sycl.STANDIN_DIR,
                                                        h)), h)


class CdbTest(unittest.TestCase):
    def test_sycl_sources_found_and_parsed_as_cxx(self):
        with tempfile.TemporaryDirectory() as d:
            a = write(os.path.join(d, "src", "ops.cpp"))
            k = write(os.path.join(d, "src", "kernels.sycl"))
            found = cdb.find_sources([os.path.join(d, "src")])
            self.assertEqual(found, [k, a] if k < a else [a, k])
            items = cdb.for_sources(found, fake_torch(d), d,
                                    os.path.join(d, "shim"), "n")
            by_file = {i["file"]: i["arguments"] for i in items}
            self.assertEqual(by_file[k][1:5], sycl.parse_flags()[:4])
            self.assertNotIn("-x", by_file[a])

    def test_setup_py_sycl_extension_flags(self):
        with tempfile.TemporaryDirectory() as d:
            torch = fake_torch(d)
            a, k = os.path.join(d, "a.cpp"), os.path.join(d, "k.sycl")
            exts = [{"name": "pkg._xpu", "sources": [a, k],
                     "include_dirs": [], "define_macros": [],
                     "undef_macros": [], "cxx": ["-DCXX_FLAG"], "nvcc": [],
                     "sycl": ["-DSYCL_FLAG", "-fsycl-targets=spir64"]}]
            best = cdb.setup_entries(exts, cdb.base_flags(torch), None)
        self.assertEqual(best[k][:4], sycl.parse_flags()[:4])
        self.assertIn("-DSYCL_FLAG", best[k])
        self.assertNotIn("-DCXX_FLAG", best[k])
        self.assertNotIn("-fsycl-targets=spir64", best[k])
        self.assertIn("-DCXX_FLAG", best[a])
        self.assertNotIn("-DSYCL_FLAG", best[a])


if __name__ == "__main__":
    unittest.main()
