#!/usr/bin/env python3
"""Unit tests of torch_tidy_project.python_files: which of the project's
Python files torch-tidy-py lints, and what a run says where it cannot lint
them (no LibCST) or was told not to."""
import os
import subprocess
import tempfile
import unittest
from unittest import mock

import support  # noqa: F401 (tools/torch-tidy on sys.path)
from torch_tidy_project import python_files
from torch_tidy_project.common import ProjectError


def write(root, rel, text):
    path = os.path.join(root, rel)
    os.makedirs(os.path.dirname(path), exist_ok=True)
    with open(path, "w") as f:
        f.write(text)
    return path


class CandidatesTest(unittest.TestCase):
    def test_files_that_mention_torch_outside_build_and_venvs(self):
        with tempfile.TemporaryDirectory() as root:
            model = write(root, "pkg/model.py", "import torch\n")
            write(root, "pkg/plain.py", "x = 1\n")
            write(root, "build/lib/pkg/model.py", "import torch\n")
            write(root, ".venv/lib/site.py", "import torch\n")
            write(root, "env2/pyvenv.cfg", "home = /usr\n")
            write(root, "env2/lib/x.py", "import torch\n")
            write(root, "csrc/ops.cpp", "// torch\n")
            self.assertEqual(python_files.candidates(root), [model])

    def test_git_tracked_files_only_in_a_repository(self):
        with tempfile.TemporaryDirectory() as root:
            if subprocess.run(["git", "init", "-q", root]).returncode:
                self.skipTest("no git")
            tracked = write(root, "model.py", "import torch\n")
            write(root, "scratch.py", "import torch\n")
            subprocess.run(["git", "-C", root, "add", "model.py"], check=True)
            self.assertEqual(python_files.candidates(root), [tracked])


class ModeTest(unittest.TestCase):
    def test_off_lints_nothing_and_says_so(self):
        with tempfile.TemporaryDirectory() as root:
            write(root, "model.py", "import torch\n")
            w, f, unparsed, info = python_files.lint("off", None, root, root, None)
        self.assertEqual((sum(w.values()), f, unparsed), (0, [], {}))
        self.assertEqual(info["not_linted_why"], "--python-files off")

    def test_without_libcst_auto_says_so_and_on_is_an_error(self):
        with tempfile.TemporaryDirectory() as root:
            write(root, "model.py", "import torch\nf = torch.compile(g)\n")
            with mock.patch.object(python_files, "_with_libcst", lambda pythons: None):
                w, f, _, info = python_files.lint("auto", None, root, root, None)
                self.assertEqual((sum(w.values()), f, info["linted"]), (0, [], 0))
                self.assertIn("LibCST is not installed", info["not_linted_why"])
                self.assertEqual(info["files"], 1)
                with self.assertRaises(ProjectError) as e:
                    python_files.lint("on", None, root, root, None)
                self.assertIn("--python-files on: 1 Python files cannot be linted",
                              str(e.exception))

    def test_a_gate_does_not_pass_on_unread_compiled_python(self):
        """auto without LibCST: a passing or warning verdict becomes exit 3
        (coverage); off, nothing compiled, or --fail-on never keep theirs."""
        unread = {"files": 2, "compiling": 1, "not_linted_why": "LibCST is not installed"}
        code, reasons, last = python_files.gate(0, [], "PASS", unread, {"warnings", "coverage"})
        self.assertEqual((code, reasons), (3, ["coverage"]))
        self.assertIn("1 of the project's Python files compile something and were not "
                      "linted: LibCST is not installed", last)
        self.assertEqual(python_files.gate(1, ["warnings"], "x", unread,
                                           {"warnings", "coverage"})[:2],
                         (3, ["warnings", "coverage"]))
        for info, fail_on in ((dict(unread, compiling=0), {"coverage"}),
                              ({"files": None, "not_linted_why": "--python-files off"},
                               {"coverage"}),
                              (unread, {"never"}), (unread, {"warnings"}), (None, {"coverage"})):
            with self.subTest(info=info, fail_on=fail_on):
                self.assertEqual(python_files.gate(0, [], "PASS", info, fail_on),
                                 (0, [], "PASS"))

    def test_nothing_compiled_needs_no_libcst(self):
        """No file, or no file that compiles anything: no region can be
        there, so nothing is linted and LibCST is not needed, even `on`."""
        with tempfile.TemporaryDirectory() as root:
            write(root, "ops.cpp", "int x;\n")
            with mock.patch.object(python_files, "_with_libcst", lambda pythons: None):
                _, _, _, info = python_files.lint("on", None, root, root, None)
                self.assertEqual((info["files"], info["not_linted_why"]), (0, None))
                write(root, "setup.py", "from torch.utils import cpp_extension\n")
                _, _, _, info = python_files.lint("on", None, root, root, None)
        self.assertEqual((info["files"], info["compiling"], info["linted"],
                          info["not_linted_why"]), (1, 0, 0, None))


if __name__ == "__main__":
    unittest.main()
