"""torch-tidy-py runs wherever the user is (issue 78): from a folder whose
.python-version makes pyenv's python3 another interpreter, the built
script still runs under the one it was built with (an absolute #!), and
the source script run by a Python without LibCST runs again under
$TORCH_TIDY_PYTHON, or says how to get one.

  python3 test_entry.py BUILT_SCRIPT LIBCST_PYTHON
A fake python3 first on PATH (the system's without its site-packages, so
without LibCST) stands for pyenv's shim in such a folder."""
import os
import subprocess
import sys
import tempfile
import unittest

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(HERE))
SOURCE_SCRIPT = os.path.join(ROOT, "tools", "torch-tidy", "torch-tidy-py")
EXAMPLE = os.path.join(ROOT, "examples", "skew_symmetric.py")
BUILT, LIBCST_PYTHON = os.path.abspath(sys.argv[1]), sys.argv[2]
SYSTEM_PYTHON = "/usr/bin/python3"


class Entry(unittest.TestCase):
    def setUp(self):
        self.tmp = tempfile.TemporaryDirectory()
        self.folder = self.tmp.name
        with open(os.path.join(self.folder, ".python-version"), "w") as f:
            f.write("system\n")
        shims = os.path.join(self.folder, "shims")
        os.makedirs(shims)
        with open(os.path.join(shims, "python3"), "w") as f:
            f.write(f"#!/bin/sh\nexec {SYSTEM_PYTHON} -S \"$@\"\n")
        os.chmod(os.path.join(shims, "python3"), 0o755)
        self.env = dict(os.environ, PATH=shims + os.pathsep + os.environ["PATH"])
        self.env.pop("TORCH_TIDY_PYTHON", None)

    def tearDown(self):
        self.tmp.cleanup()

    def run_tool(self, argv, **env):
        return subprocess.run(argv + [EXAMPLE], cwd=self.folder, capture_output=True,
                              text=True, env=dict(self.env, **env))

    def test_the_shim_has_no_libcst(self):
        res = subprocess.run(["python3", "-c", "import libcst"], cwd=self.folder,
                             capture_output=True, env=self.env)
        self.assertNotEqual(res.returncode, 0, "the fake python3 must lack LibCST")

    def test_the_built_script_runs_under_its_own_interpreter(self):
        with open(BUILT) as f:
            first = f.readline()
        self.assertTrue(first.startswith("#!/") and not first.startswith("#!/usr/bin/env"),
                        first)
        res = self.run_tool([BUILT])
        self.assertEqual(res.returncode, 1, res.stdout + res.stderr)
        self.assertIn("examples/skew_symmetric.py:17:5: warning:", res.stdout)

    def test_the_source_script_under_a_python_without_libcst(self):
        res = self.run_tool(["python3", SOURCE_SCRIPT])
        self.assertEqual(res.returncode, 2)
        self.assertIn("needs LibCST", res.stderr)
        self.assertIn("TORCH_TIDY_PYTHON", res.stderr)
        res = self.run_tool(["python3", SOURCE_SCRIPT], TORCH_TIDY_PYTHON=LIBCST_PYTHON)
        self.assertEqual(res.returncode, 1, res.stdout + res.stderr)
        self.assertIn("warning:", res.stdout)


if __name__ == "__main__":
    if not os.access(SYSTEM_PYTHON, os.X_OK):
        print(f"SKIPPED python-frontend-entry: no {SYSTEM_PYTHON}")
        sys.exit(77)
    unittest.main(argv=sys.argv[:1])
