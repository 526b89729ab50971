#!/usr/bin/env python3
"""Unit tests of torch_tidy_project.pyproject: the build backend and
scikit-build-core's CMake settings of a pyproject.toml."""
import os
import tempfile
import textwrap
import unittest

import support  # noqa: F401 (tools/torch-tidy on sys.path)
from torch_tidy_project import pyproject
from torch_tidy_project.common import ProjectError

NO_TOML = pyproject.tomllib is None


def project_with(d, text):
    with open(os.path.join(d, "pyproject.toml"), "w") as f:
        f.write(textwrap.dedent(text))
    return d


@unittest.skipIf(NO_TOML, "no tomllib (Python < 3.11) and no tomli")
class ReadTest(unittest.TestCase):
    def test_none_without_the_file(self):
        with tempfile.TemporaryDirectory() as d:
            self.assertIsNone(pyproject.read(d))

    def test_parsed(self):
        with tempfile.TemporaryDirectory() as d:
            doc = pyproject.read(project_with(d, """
                [build-system]
                requires = ["setuptools"]
                build-backend = "setuptools.build_meta"
                """))
        self.assertEqual(doc["build-system"]["requires"], ["setuptools"])

    def test_unparsable(self):
        with tempfile.TemporaryDirectory() as d:
            project_with(d, "[build-system\nrequires = \n")
            with self.assertRaises(ProjectError) as c:
                pyproject.read(d)
        self.assertIn("pyproject.toml", str(c.exception))


class BackendTest(unittest.TestCase):
    def test_defaults_to_setuptools_legacy(self):
        legacy = ("setuptools.build_meta:__legacy__", [])
        self.assertEqual(pyproject.backend(None), legacy)
        self.assertEqual(pyproject.backend({}), legacy)
        self.assertEqual(pyproject.backend(
            {"build-system": {"requires": ["setuptools"]}}), legacy)

    def test_named_backend_and_path(self):
        doc = {"build-system": {"build-backend": "backend:hooks",
                                "backend-path": ["_build", "more"]}}
        self.assertEqual(pyproject.backend(doc),
                         ("backend:hooks", ["_build", "more"]))


class UsesScikitBuildTest(unittest.TestCase):
    def test_cases(self):
        yes = [
            {"build-system": {"build-backend": "scikit_build_core.build"}},
            {"build-system": {"build-backend": "own",
                              "backend-path": ["."]},
             "tool": {"scikit-build": {}}},
            {"build-system": {"build-backend": "own", "backend-path": ["b"],
                              "requires": ["scikit_build_core>=0.10"]}},
        ]
        # Not scikit-build-core's backend: setuptools with its plugin (the
        # build would compile), or a requirement alone.
        no = [None, {},
              {"build-system": {"build-backend": "scikit_build_core."
                                "setuptools.build_meta"}},
              {"build-system": {"build-backend": "own",
                                "requires": ["scikit_build_core>=0.10"]}},
              {"build-system": {"requires": ["Scikit-Build-Core"]}},
              {"build-system": {"build-backend": "setuptools.build_meta",
                                "requires": ["setuptools", "torch"]}},
              {"build-system": {"build-backend": "hatchling.build"},
               "tool": {"hatch": {}}}]
        for doc in yes:
            self.assertTrue(pyproject.uses_scikit_build(doc), doc)
        for doc in no:
            self.assertFalse(pyproject.uses_scikit_build(doc), doc)


@unittest.skipIf(NO_TOML, "no tomllib (Python < 3.11) and no tomli")
class ScikitBuildSettingsTest(unittest.TestCase):
    def settings(self, text):
        with tempfile.TemporaryDirectory() as d:
            return pyproject.scikit_build_settings(
                pyproject.read(project_with(d, text)))

    def test_dotted_keys(self):
        s = self.settings("""
            [tool.scikit-build]
            cmake.source-dir = "src"
            cmake.args = ["-DA=1", "-GNinja"]
            cmake.define.WITH_CUDA = false
            cmake.define.WITH_CPU = true
            cmake.define.ARCHS = ["8.0", "9.0"]
            cmake.define.N = 4
            cmake.version = ">=3.25.2"
            build-dir = "build/{wheel_tag}"
            """)
        self.assertEqual(s, {"source_dir": "src",
                             "args": ["-DA=1", "-GNinja"],
                             "defines": {"WITH_CUDA": "OFF", "WITH_CPU": "ON",
                                         "ARCHS": "8.0;9.0", "N": "4"},
                             "version": ">=3.25.2"})

    def test_nested_tables(self):
        s = self.settings("""
            [tool.scikit-build]
            build-dir = "out"

            [tool.scikit-build.cmake]
            source-dir = "src"
            minimum-version = "3.26"

            [tool.scikit-build.cmake.define]
            WITH_CUDA = true
            LIST = [1, 2]
            FROM_ENV = {env = "TT_FROM_ENV", default = "dflt"}
            """)
        self.assertEqual(s["source_dir"], "src")
        self.assertEqual(s["defines"], {"WITH_CUDA": "ON", "LIST": "1;2",
                                        "FROM_ENV": "dflt"})
        self.assertEqual(s["version"], ">=3.26")
        self.assertEqual(s["args"], [])

    def test_defaults(self):
        for doc in (None, {}, {"tool": {"scikit-build": {}}}):
            self.assertEqual(pyproject.scikit_build_settings(doc),
                             {"source_dir": ".", "args": [], "defines": {},
                              "version": None})

    def test_version_wins_over_minimum_version(self):
        s = pyproject.scikit_build_settings({"tool": {"scikit-build": {
            "cmake": {"version": ">=3.20", "minimum-version": "3.15"}}}})
        self.assertEqual(s["version"], ">=3.20")


if __name__ == "__main__":
    unittest.main()
