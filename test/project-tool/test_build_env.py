#!/usr/bin/env python3
"""Unit tests of torch_tidy_project.build_env: pyproject.toml's
[build-system] requires provided as pip's isolated build provides them
(issue 58, item 5). No network: pip reads a folder of wheels made here
(PIP_NO_INDEX, PIP_FIND_LINKS). The builds want a Python with setuptools
and pip (support.PYTHON), else each case says SKIPPED by name."""
import argparse
import io
import os
import shutil
import subprocess
import tempfile
import unittest
import zipfile
from contextlib import redirect_stdout

from support import PYTHON, fake_torch, needs_setuptools, write
from torch_tidy_project import build_env, database
from torch_tidy_project.common import ProjectError


def make_wheel(folder, name, version="1.0"):
    """A pure-Python wheel of package `name` (module name with _), its
    module saying HELLO = name."""
    module = name.replace("-", "_")
    path = os.path.join(folder, f"{module}-{version}-py3-none-any.whl")
    info = f"{module}-{version}.dist-info"
    files = {
        f"{module}/__init__.py": f"HELLO = {name!r}\n",
        f"{info}/METADATA": f"Metadata-Version: 2.1\nName: {name}\n"
                            f"Version: {version}\n",
        f"{info}/WHEEL": "Wheel-Version: 1.0\nGenerator: torch-tidy-test\n"
                         "Root-Is-Purelib: true\nTag: py3-none-any\n",
    }
    files[f"{info}/RECORD"] = "".join(f"{p},,\n" for p in files) + \
        f"{info}/RECORD,,\n"
    with zipfile.ZipFile(path, "w") as z:
        for p, text in files.items():
            z.writestr(p, text)
    return path


def context(project, **kw):
    ctx = argparse.Namespace(
        project=project, root=project, python=PYTHON, env={},
        env_pairs=[], defines={}, cmake=None, database="auto",
        cuda_path=None, torch=None, operator_files={})
    for k, v in kw.items():
        setattr(ctx, k, v)
    return ctx


SETUP_PY = """\
    import tt_build_helper
    from setuptools import setup, Extension
    setup(name="p", ext_modules=[
        Extension("p._C", sources=["csrc/ops.cpp"])])
    """


class BuildEnvTest(unittest.TestCase):
    def setUp(self):
        self._tmp = tempfile.TemporaryDirectory()
        self.d = os.path.realpath(self._tmp.name)
        self.project = os.path.join(self.d, "proj")
        self.wheels = os.path.join(self.d, "wheels")
        os.makedirs(self.wheels)
        make_wheel(self.wheels, "tt-build-helper")
        write(os.path.join(self.project, "csrc", "ops.cpp"))
        self.env = {"PIP_NO_INDEX": "1", "PIP_FIND_LINKS": self.wheels}
        self.torch = fake_torch(self.d)

    def tearDown(self):
        self._tmp.cleanup()

    def pyproject(self, *requires):
        write(os.path.join(self.project, "pyproject.toml"),
              "[build-system]\nrequires = [" +
              ", ".join(f'"{r}"' for r in requires) + "]\n"
              'build-backend = "setuptools.build_meta"\n')

    def obtain(self, **kw):
        with redirect_stdout(io.StringIO()):
            return database.obtain(context(self.project, env=self.env,
                                           torch=self.torch, **kw))

    @needs_setuptools
    def test_a_missing_requirement_is_installed_beside_pythons(self):
        # setup.py imports a helper pyproject.toml requires and --python
        # lacks: recorded in an environment of its own holding it, which
        # sees --python's packages (setuptools here, torch in real runs).
        self.pyproject("setuptools", "tt-build-helper")
        write(os.path.join(self.project, "setup.py"), SETUP_PY)
        db = self.obtain()
        self.assertEqual(db.how, "setup.py", db.notes)
        self.assertEqual(len(db.entries), 1)
        said = [n for n in db.notes if "build requirements" in n]
        self.assertEqual(len(said), 1, db.notes)
        self.assertIn("(tt-build-helper) were installed in "
                      ".torch-tidy/build-env/", said[0])
        built = db.requirements.python
        self.assertTrue(built.startswith(
            os.path.join(self.project, ".torch-tidy", "build-env")), built)
        out = subprocess.run(
            [built, "-c", "import tt_build_helper, setuptools; "
                          "print(tt_build_helper.HELLO)"],
            capture_output=True, text=True)
        self.assertEqual(out.stdout.strip(), "tt-build-helper", out.stderr)
        # --python itself is left as it was.
        self.assertNotEqual(subprocess.run(
            [PYTHON, "-c", "import tt_build_helper"],
            capture_output=True).returncode, 0)
        # Made once: the next run uses it.
        again = self.obtain()
        self.assertEqual(again.requirements.python, built)
        self.assertTrue(any("installed in .torch-tidy/build-env/" in n and
                            "earlier" in n for n in again.notes),
                        again.notes)

    @needs_setuptools
    def test_what_the_backend_asks_for_is_installed_too(self):
        # pip asks a backend's get_requires_for_build_wheel what else its
        # build needs (scikit-build-core: setuptools-scm, a newer cmake for
        # deepmd-kit) and installs that before building; so does the run.
        # torch, asked for there too, stays --python's.
        cmake, cxx = shutil.which("cmake"), shutil.which("c++")
        if not (cmake and cxx):
            print("SKIPPED test_what_the_backend_asks_for_is_installed_too: "
                  "no cmake or c++", flush=True)
            self.skipTest("no cmake or c++")
        write(os.path.join(self.project, "pyproject.toml"), """\
            [build-system]
            requires = ["setuptools"]
            build-backend = "mybackend"
            backend-path = ["_build"]

            [tool.scikit-build]
            cmake.source-dir = "native"
            """)
        write(os.path.join(self.project, "_build", "mybackend.py"), """\
            import subprocess
            def get_requires_for_build_wheel(config_settings=None):
                return ["tt-build-helper", "torch>=1"]
            def build_wheel(wheel_directory, config_settings=None,
                            metadata_directory=None):
                import tt_build_helper
                mode = tt_build_helper.HELLO.replace("-", "_")
                subprocess.check_call(["cmake", "-S", "native", "-B",
                                       config_settings["build-dir"],
                                       "-DMODE=" + mode])
            """)
        write(os.path.join(self.project, "native", "CMakeLists.txt"), """\
            cmake_minimum_required(VERSION 3.18)
            project(native CXX)
            add_library(native STATIC k.cpp)
            target_compile_definitions(native PRIVATE MODE_${MODE})
            """)
        write(os.path.join(self.project, "native", "k.cpp"))
        for d, _, files in os.walk(self.project):   # written long before
            for f in files:
                os.utime(os.path.join(d, f), (1e9, 1e9))
        with redirect_stdout(io.StringIO()):
            db = database.obtain(context(
                self.project, env=dict(os.environ, **self.env),
                torch=self.torch, cmake=cmake))
        self.assertEqual(db.how, "cmake", db.notes)
        self.assertFalse([n for n in db.notes if "wrote into" in n])
        self.assertEqual(len(db.entries), 1, db.notes)
        self.assertIn("-DMODE_tt_build_helper", db.entries[0]["command"])
        said = [n for n in db.notes if "get_requires_for_build_wheel" in n]
        self.assertEqual(len(said), 1, db.notes)
        self.assertIn("asks for tt-build-helper: the build requirements",
                      said[0])
        self.assertIn("installed in .torch-tidy/build-env/", said[0])
        self.assertEqual(db.build.dynamic_requires,
                         ["tt-build-helper", "torch>=1"])
        self.assertNotEqual(subprocess.run(
            [PYTHON, "-c", "import tt_build_helper"],
            capture_output=True).returncode, 0)

    @needs_setuptools
    def test_a_requirement_that_cannot_be_installed_is_named(self):
        self.pyproject("setuptools", "tt-nowhere>=1")
        write(os.path.join(self.project, "setup.py"),
              SETUP_PY.replace("tt_build_helper", "tt_nowhere"))
        with self.assertRaises(ProjectError) as c:
            self.obtain()
        self.assertIn("pyproject.toml's build requirements it lacks: "
                      "pip install 'tt-nowhere>=1'", str(c.exception))
        self.assertFalse(os.path.exists(os.path.join(
            self.project, ".torch-tidy", "build-env", "ready")))

    @needs_setuptools
    def test_torch_is_pythons_own(self):
        # A pinned torch is never installed: the build uses --python's.
        prep = build_env.prepare(PYTHON, {"build-system": {"requires": [
            "setuptools", "torch==1.0.0"]}}, self.project, self.env)
        self.assertEqual(prep.python, PYTHON)
        self.assertIn("pyproject.toml asks for torch==1.0.0, the build "
                      "uses", prep.note)
        self.assertFalse(os.path.exists(os.path.join(
            self.project, ".torch-tidy", "build-env")))

    @needs_setuptools
    def test_nothing_to_do(self):
        for doc in ({}, {"build-system": {"requires": ["setuptools"]}},
                    {"build-system": {"requires": [
                        "tt-build-helper; python_version < '3'"]}}):
            prep = build_env.prepare(PYTHON, doc, self.project, self.env)
            self.assertEqual((prep.python, prep.note, prep.missing),
                             (PYTHON, None, []), doc)

    def test_names(self):
        self.assertEqual([build_env._name(r) for r in (
            "torch>=2.1", "Torch_X[a]>=1; python_version>'3'",
            "scikit-build-core", "pybind11")],
            ["torch", "torch-x", "scikit-build-core", "pybind11"])
        self.assertEqual(build_env.Prepared("py", None, [
            "a>=1", "b"]).install_hint(), "pip install 'a>=1' b")


if __name__ == "__main__":
    unittest.main()
