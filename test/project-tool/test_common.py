#!/usr/bin/env python3
"""Unit tests of torch_tidy_project.common: the .torch-tidy/ folder, ages in
words, paths relative to a folder, the last lines of a tool's output."""
import os
import tempfile
import unittest

import support  # noqa: F401 (tools/torch-tidy on sys.path)
from torch_tidy_project import common


class ScratchDirTest(unittest.TestCase):
    def test_makes_folder_with_gitignore_of_everything(self):
        with tempfile.TemporaryDirectory() as root:
            path = common.scratch_dir(root, "recorder", "build")
            self.assertEqual(path, os.path.join(root, ".torch-tidy",
                                                "recorder", "build"))
            self.assertTrue(os.path.isdir(path))
            ignore = os.path.join(root, ".torch-tidy", ".gitignore")
            self.assertTrue(os.path.isfile(ignore))
            with open(ignore) as f:
                lines = [l.strip() for l in f.read().splitlines()]
            self.assertIn("*", lines)

    def test_without_parts_is_the_folder_itself(self):
        with tempfile.TemporaryDirectory() as root:
            self.assertEqual(common.scratch_dir(root),
                             os.path.join(root, common.SCRATCH))
            self.assertEqual(common.SCRATCH, ".torch-tidy")

    def test_keeps_an_existing_gitignore(self):
        with tempfile.TemporaryDirectory() as root:
            os.makedirs(os.path.join(root, ".torch-tidy"))
            ignore = os.path.join(root, ".torch-tidy", ".gitignore")
            with open(ignore, "w") as f:
                f.write("mine\n")
            common.scratch_dir(root, "x")
            with open(ignore) as f:
                self.assertEqual(f.read(), "mine\n")

    def test_called_twice_is_harmless(self):
        with tempfile.TemporaryDirectory() as root:
            a = common.scratch_dir(root, "run")
            with open(os.path.join(a, "kept"), "w") as f:
                f.write("x")
            b = common.scratch_dir(root, "run")
            self.assertEqual(a, b)
            self.assertTrue(os.path.isfile(os.path.join(b, "kept")))


class AgeTextTest(unittest.TestCase):
    def test_units_and_plurals(self):
        cases = {0: "0 seconds", 1: "1 second", 59: "59 seconds",
                 60: "1 minute", 119: "1 minute", 120: "2 minutes",
                 3599: "59 minutes", 3600: "1 hour", 7200: "2 hours",
                 86399: "23 hours", 86400: "1 day", 3 * 86400: "3 days"}
        for seconds, text in cases.items():
            self.assertEqual(common.age_text(seconds), text, seconds)

    def test_fractions_and_negative_ages(self):
        self.assertEqual(common.age_text(90.9), "1 minute")
        self.assertEqual(common.age_text(-5), "0 seconds")


class RelTest(unittest.TestCase):
    def test_below_is_relative(self):
        self.assertEqual(common.rel("/a/b/c.cpp", "/a"), "b/c.cpp")
        self.assertEqual(common.rel("/a/b", "/a/b"), ".")

    def test_outside_is_as_given(self):
        self.assertEqual(common.rel("/x/y.cpp", "/a"), "/x/y.cpp")
        self.assertEqual(common.rel("/a/../x", "/a/b"), "/a/../x")
        self.assertEqual(common.rel("/ab/c", "/a"), "/ab/c")

    # Regression (common.rel): a file whose name starts with '..' (such as
    # '..inc.h') lies below start, but its relative path starts with '..' and
    # is taken for one outside it: the path comes back as given.
    def test_name_starting_with_two_dots_is_below(self):
        self.assertEqual(common.rel("/a/..inc.h", "/a"), "..inc.h")


class ReadTextAndLastLinesTest(unittest.TestCase):
    def test_read_text(self):
        with tempfile.TemporaryDirectory() as d:
            p = os.path.join(d, "f.txt")
            with open(p, "wb") as f:
                f.write(b"ok \xff\n")
            self.assertTrue(common.read_text(p).startswith("ok "))
            self.assertEqual(common.read_text(os.path.join(d, "none")), "")

    def test_last_lines(self):
        text = "\n".join(f"line {i}" for i in range(20)) + "\n\n  \n"
        out = common.last_lines(text, 3).splitlines()
        self.assertEqual(out, ["    line 17", "    line 18", "    line 19"])
        self.assertEqual(common.last_lines(""), "")


class ProjectErrorTest(unittest.TestCase):
    def test_is_an_exception_with_its_message(self):
        with self.assertRaises(common.ProjectError) as c:
            raise common.ProjectError("why")
        self.assertEqual(str(c.exception), "why")


if __name__ == "__main__":
    unittest.main()
