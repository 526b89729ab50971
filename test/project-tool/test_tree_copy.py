#!/usr/bin/env python3
"""Unit tests of torch_tidy_project.tree_copy: the copy of the tree CMake's
configure runs on, and the database's paths mapped back to the tree."""
import os
import shlex
import tempfile
import unittest

from support import write
from torch_tidy_project import tree_copy


class MirrorTest(unittest.TestCase):
    def setUp(self):
        self._tmp = tempfile.TemporaryDirectory()
        self.d = os.path.realpath(self._tmp.name)
        self.repo = os.path.join(self.d, "repo")
        self.src = os.path.join(self.repo, "lib")
        write(os.path.join(self.repo, "cmake", "util.cmake"), "")
        write(os.path.join(self.src, "CMakeLists.txt"), "")
        write(os.path.join(self.src, "a.cpp"), "int a;\n")
        write(os.path.join(self.src, "build", "CMakeCache.txt"), "")
        write(os.path.join(self.src, ".torch-tidy", "old.json"), "")
        os.makedirs(os.path.join(self.src, ".git"))
        write(os.path.join(self.src, "third_party", "sub", ".git"),
              "gitdir: ../../.git/modules/sub\n")
        write(os.path.join(self.src, "third_party", "sub", "big.h"), "")
        with open(os.path.join(self.src, "big.bin"), "wb") as f:
            f.truncate(tree_copy.BIG + 1)
        os.symlink("a.cpp", os.path.join(self.src, "alias.cpp"))
        self.dest = os.path.join(self.src, ".torch-tidy", "configure", "tree")
        self.m = tree_copy.Mirror(self.src, self.dest).build()

    def tearDown(self):
        self._tmp.cleanup()

    def test_layout(self):
        copy = self.dest + self.src
        self.assertEqual(self.m.source, copy)
        # Files are copied; big files, build trees and .git are linked;
        # links stay links; torch-tidy's own folder is left out.
        self.assertFalse(os.path.islink(os.path.join(copy, "a.cpp")))
        for linked in ("big.bin", "build", ".git", "third_party/sub"):
            self.assertEqual(os.readlink(os.path.join(copy, linked)),
                             os.path.join(self.src, linked))
        self.assertEqual(os.readlink(os.path.join(copy, "alias.cpp")),
                         "a.cpp")
        self.assertFalse(os.path.lexists(os.path.join(copy, ".torch-tidy")))
        self.assertEqual(self.m.copied, 2)  # CMakeLists.txt, a.cpp
        # `..` reads the tree through links in each folder above.
        self.assertEqual(os.readlink(os.path.join(self.dest + self.repo,
                                                  "cmake")),
                         os.path.join(self.repo, "cmake"))
        self.assertTrue(os.path.isfile(os.path.join(
            copy, os.pardir, "cmake", "util.cmake")))

    def test_settle_and_map(self):
        copy = self.m.source
        write(os.path.join(copy, "gen", "ops.cpp"), "int g;\n")
        write(os.path.join(copy, "inc", "sub", "made.h"), "")
        with open(os.path.join(copy, "a.cpp"), "a") as f:
            f.write("int b;\n")
        self.m.settle()
        self.assertEqual(self.m.made, {os.path.join(copy, "gen", "ops.cpp"),
                                       os.path.join(copy, "inc", "sub",
                                                    "made.h")})
        self.assertEqual(self.m.changed, [os.path.join(self.src, "a.cpp")])
        self.assertEqual(self.m.to_real(os.path.join(copy, "a.cpp")),
                         os.path.join(self.src, "a.cpp"))
        made = os.path.join(copy, "gen", "ops.cpp")
        self.assertEqual(self.m.to_real(made), made)
        os.makedirs(os.path.join(self.src, "inc"))
        entries = self.m.map_entries([
            {"directory": "/b", "file": os.path.join(copy, "a.cpp"),
             "command": f"c++ -I{copy}/inc -isystem {copy}/inc/sub "
                        f"-I/usr/include -c {copy}/a.cpp"},
            {"directory": "/b", "file": made,
             "arguments": ["c++", "-c", made, "-o", "/b/g.o"]},
            {"directory": "/b", "file": "/elsewhere/x.cpp",
             "command": "c++ -c /elsewhere/x.cpp"}])
        # The source's own folder of the copy holds made files (below it):
        # "gen/ops.cpp" is found from a.cpp, as in the build.
        # The copy's folders are named by their views of made files alone
        # (issue 80: a tree header reached through the copy as well is a
        # redefinition), each after the tree's own.
        view = self.m.made_top + self.src
        self.assertEqual(shlex.split(entries[0]["command"]), [
            "c++", "-iquote", view, f"-I{self.src}/inc", f"-I{view}/inc",
            "-isystem", f"{view}/inc/sub", "-I/usr/include", "-c",
            f"{self.src}/a.cpp"])
        self.assertNotIn(copy, entries[0]["command"])
        self.assertEqual(sorted(os.listdir(view)), ["gen", "inc"])
        self.assertEqual(os.listdir(os.path.join(view, "inc")), ["sub"])
        self.assertEqual(os.path.realpath(os.path.join(view, "inc", "sub",
                                                       "made.h")),
                         os.path.realpath(os.path.join(copy, "inc", "sub",
                                                       "made.h")))
        self.assertEqual(entries[0]["file"], os.path.join(self.src, "a.cpp"))
        # A made source stays in the copy, and so do its paths.
        self.assertEqual(entries[1]["file"], made)
        self.assertEqual(entries[1]["arguments"],
                         ["c++", "-c", made, "-o", "/b/g.o"])
        # An entry that names nothing of the copy is as it was.
        self.assertEqual(entries[2], {"directory": "/b",
                                      "file": "/elsewhere/x.cpp",
                                      "command": "c++ -c /elsewhere/x.cpp"})
        self.assertEqual(self.m.text(f"error at {copy}/a.cpp:3"),
                         f"error at {self.src}/a.cpp:3")

    def test_cwd(self):
        here = os.getcwd()
        try:
            os.chdir(self.src)
            self.assertEqual(self.m.cwd(), self.m.source)
            os.chdir(self.repo)
            self.assertEqual(self.m.cwd(), self.dest + self.repo)
            os.chdir(self.d)
            self.assertEqual(self.m.cwd(), self.dest + self.d)
            # A folder beside the source would reach the tree through a
            # link: the copy of the source instead.
            os.chdir(os.path.join(self.repo, "cmake"))
            self.assertEqual(self.m.cwd(), self.m.source)
        finally:
            os.chdir(here)

    def test_top_of(self):
        cmake = os.path.join(self.repo, "cmake")
        self.assertEqual(tree_copy.top_of(cmake, self.repo), self.repo)
        self.assertEqual(tree_copy.top_of(cmake, self.d), self.d)
        self.assertEqual(tree_copy.top_of(self.src, self.repo), self.src)
        os.makedirs(os.path.join(self.repo, ".git"))
        self.assertEqual(tree_copy.top_of(cmake, cmake), self.repo)


if __name__ == "__main__":
    unittest.main()
