#!/usr/bin/env python3
"""Unit tests of torch_tidy_project.torchenv: torch's release and default
standard, LibTorch headers under an include directory, and the query of a
Python (a fake one that answers as torch would)."""
import json
import os
import stat
import tempfile
import unittest

from support import VERSION_H, write
from torch_tidy_project import torchenv


class ReleaseAndStdTest(unittest.TestCase):
    def test_release(self):
        self.assertEqual(torchenv.release("2.8.0+cu128"), "2.8.0")
        self.assertEqual(torchenv.release("2.10.0a0+git123"), "2.10.0")
        self.assertEqual(torchenv.release("1.13.1"), "1.13.1")
        self.assertEqual(torchenv.release("nightly"), "nightly")

    def test_default_std(self):
        self.assertEqual(torchenv.default_std("1.13.1"), "c++17")
        self.assertEqual(torchenv.default_std("2.8.0+cpu"), "c++17")
        self.assertEqual(torchenv.default_std("2.9.1"), "c++17")
        self.assertEqual(torchenv.default_std("2.10.0"), "c++20")
        self.assertEqual(torchenv.default_std("2.11.0.dev20250101"), "c++20")
        self.assertEqual(torchenv.default_std("3.0.0"), "c++20")
        self.assertEqual(torchenv.default_std("garbage"), "c++17")


class HeaderTorchTest(unittest.TestCase):
    def test_wheel_layout(self):
        with tempfile.TemporaryDirectory() as d:
            write(os.path.join(d, "include", "torch", "version.h"), VERSION_H)
            self.assertEqual(torchenv.header_torch(os.path.join(d, "include")),
                             ("2.8.0", os.path.join(d, "include")))

    def test_api_include_layout(self):
        with tempfile.TemporaryDirectory() as d:
            write(os.path.join(d, "torch", "csrc", "api", "include", "torch",
                               "version.h"), VERSION_H)
            self.assertEqual(
                torchenv.header_torch(d),
                ("2.8.0", os.path.join(d, "torch", "csrc", "api", "include")))

    def test_headeronly_layout(self):
        # torch 2.15: the macros moved to torch/headeronly/version.h, which
        # the C++ API's torch/version.h includes.
        include_api = "#include <torch/headeronly/version.h>\n"
        with tempfile.TemporaryDirectory() as d:
            inc = os.path.join(d, "include")
            write(os.path.join(inc, "torch", "headeronly", "version.h"),
                  VERSION_H.replace("MINOR 8", "MINOR 15"))
            api = os.path.join(inc, "torch", "csrc", "api", "include")
            write(os.path.join(api, "torch", "version.h"), include_api)
            self.assertEqual(torchenv.header_torch(inc), ("2.15.0", inc))
            self.assertEqual(torchenv.header_torch(api), ("2.15.0", api))

    def test_no_or_incomplete_header(self):
        with tempfile.TemporaryDirectory() as d:
            self.assertIsNone(torchenv.header_torch(d))
            write(os.path.join(d, "torch", "version.h"),
                  "#define TORCH_VERSION_MAJOR 2\n")
            self.assertIsNone(torchenv.header_torch(d))


class QueryTest(unittest.TestCase):
    def fake_python(self, d, body):
        return write(os.path.join(d, "python"), "#!/bin/sh\n" + body,
                     stat.S_IRWXU)

    def test_answer_is_read_and_release_added(self):
        info = {"version": "2.8.0+cu128", "cuda": "12.8",
                "cmake_prefix_path": "/t/share/cmake", "torch_dir": "/t",
                "executable": "/v/bin/python", "include_paths": ["/t/include"],
                "python_include": "/usr/include/python3.11", "cxx11_abi": 1,
                "cuda_home": None}
        with tempfile.TemporaryDirectory() as d:
            py = self.fake_python(d, "echo 'noise'\necho '%s%s'\n" % (
                torchenv.MARKER, json.dumps(info)))
            got = torchenv.query(py)
        self.assertEqual(got["release"], "2.8.0")
        self.assertEqual(got["include_paths"], ["/t/include"])
        self.assertEqual(got["cxx11_abi"], 1)

    def test_no_torch_gives_the_last_line(self):
        with tempfile.TemporaryDirectory() as d:
            py = self.fake_python(d, "echo 'Traceback' >&2\necho "
                                  "\"ModuleNotFoundError: No module named "
                                  "'torch'\" >&2\nexit 1\n")
            with self.assertRaises(torchenv.TorchNotFound) as c:
                torchenv.query(py)
        self.assertIn("No module named 'torch'", str(c.exception))

    def test_missing_interpreter(self):
        with tempfile.TemporaryDirectory() as d:
            with self.assertRaises(torchenv.TorchNotFound) as c:
                torchenv.query(os.path.join(d, "no-python"))
        self.assertIn("cannot run", str(c.exception))

    def test_answer_is_kept_while_the_search_path_is_as_it_was(self):
        # The fake Python counts its runs; its answer names a site folder.
        with tempfile.TemporaryDirectory() as d:
            site = os.path.join(d, "site")
            os.makedirs(os.path.join(site, "torch"))
            info = {"version": "2.8.0", "torch_dir": os.path.join(site,
                                                                  "torch"),
                    "search_path": [site, os.path.join(d, "user-site")]}
            py = self.fake_python(d, "echo x >> %s/runs\necho '%s%s'\n" % (
                d, torchenv.MARKER, json.dumps(info)))
            cache = os.path.join(d, "scratch", "torch.json")
            runs = lambda: len(open(os.path.join(d, "runs")).readlines())
            env = {"PATH": "/usr/bin"}
            self.assertEqual(torchenv.query(py, env, cache)["release"],
                             "2.8.0")
            self.assertEqual(torchenv.query(py, env, cache)["release"],
                             "2.8.0")
            self.assertEqual(runs(), 1)
            # Another environment where it matters: asked again.
            torchenv.query(py, dict(env, PYTHONPATH="/elsewhere"), cache)
            self.assertEqual(runs(), 2)
            torchenv.query(py, dict(env, PYTHONPATH="/elsewhere"), cache)
            self.assertEqual(runs(), 2)
            # A package installed (a folder of the search path changes), or
            # a folder that was missing now made: asked again.
            os.makedirs(os.path.join(site, "other-1.0.dist-info"))
            torchenv.query(py, dict(env, PYTHONPATH="/elsewhere"), cache)
            self.assertEqual(runs(), 3)
            os.makedirs(os.path.join(d, "user-site"))
            torchenv.query(py, dict(env, PYTHONPATH="/elsewhere"), cache)
            self.assertEqual(runs(), 4)
            # Without a cache, always asked; a damaged cache is asked past.
            torchenv.query(py, env)
            self.assertEqual(runs(), 5)
            write(cache, "{not json")
            torchenv.query(py, env, cache)
            self.assertEqual(runs(), 6)

    def test_query_is_valid_python(self):
        compile(torchenv.QUERY, "<query>", "exec")
        self.assertIn(torchenv.MARKER, torchenv.QUERY)


if __name__ == "__main__":
    unittest.main()
