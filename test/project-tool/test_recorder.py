#!/usr/bin/env python3
"""Unit tests of torch_tidy_project.recorder: the environment, the
variables a build script names, recorded CMake calls read back, and real
recordings of small setup.py files and an in-tree PEP 517 backend (nothing
is built; cmake is stood in for)."""
import os
import shutil
import subprocess
import tempfile
import textwrap
import unittest

from support import PYTHON, needs_setuptools, write
from torch_tidy_project import recorder


def listing(root):
    found = []
    for d, dirs, files in os.walk(root):
        dirs.sort()
        found += [os.path.relpath(os.path.join(d, x), root)
                  for x in dirs + sorted(files)]
    return sorted(found)


class EnvironmentTest(unittest.TestCase):
    def test_pairs_applied_to_a_copy(self):
        base = {"A": "1", "PATH": "/bin"}
        env = recorder.environment(["B=2", "A=3", "C=x=y", "D="], base)
        self.assertEqual(env, {"A": "3", "B": "2", "C": "x=y", "D": "",
                               "PATH": "/bin"})
        self.assertEqual(base, {"A": "1", "PATH": "/bin"})

    def test_default_base_is_os_environ(self):
        env = recorder.environment(["TT_RECORDER_TEST=1"])
        self.assertEqual(env["TT_RECORDER_TEST"], "1")
        self.assertNotIn("TT_RECORDER_TEST", os.environ)
        self.assertEqual(env.get("PATH"), os.environ.get("PATH"))

    def test_bad_pairs(self):
        for bad in ("NOEQUALS", "=value", "1X=2", "A-B=1", "A B=1"):
            with self.assertRaises(ValueError, msg=bad) as c:
                recorder.environment([bad], {})
            self.assertIn("VAR=VALUE", str(c.exception))


class VariablesInTextTest(unittest.TestCase):
    def test_reads_by_name(self):
        text = textwrap.dedent('''
            import os
            from os import environ, getenv
            a = os.environ.get("TT_A", "0")
            b = os.getenv('TT_B')
            c = os.environ["TT_C"]
            d = environ.get("TT_D")
            e = getenv("TT_E")
            f = check_env_flag("TT_F")
            g = _get_env_bool('TT_G', False)
            again = os.environ.get("TT_A")
            other = dict.get("NOT_ENV")
            print("NOT_ENV_EITHER")
            ''')
        self.assertEqual(recorder.variables_in_text(text),
                         ["TT_A", "TT_B", "TT_C", "TT_D", "TT_E", "TT_F",
                          "TT_G"])

    def test_nothing(self):
        self.assertEqual(recorder.variables_in_text("x = 1\n"), [])


class ParseCmakeCallTest(unittest.TestCase):
    def test_positional_source_and_defines(self):
        with tempfile.TemporaryDirectory() as d:
            src = os.path.join(d, "native")
            write(os.path.join(src, "CMakeLists.txt"), "project(x)\n")
            build = os.path.join(d, "build")
            os.makedirs(build)
            init = os.path.join(build, "init.cmake")
            call = {"cwd": build,
                    "args": [".", "../native", "-DWITH_X:BOOL=ON",
                             "-D", "PLAIN=1", "-DNOVALUE", "-G", "Ninja",
                             "-UOLD", "-C", "init.cmake",
                             "-DCMAKE_BUILD_TYPE=Release", "-Wno-dev"],
                    "init_caches": {init: "/scratch/init-cache-0-0.cmake"},
                    "env_changes": {"CC": "clang"}}
            p = recorder.parse_cmake_call(call)
        self.assertEqual(p["source"], src)
        self.assertEqual(p["defines"], {"WITH_X": "ON", "PLAIN": "1",
                                        "CMAKE_BUILD_TYPE": "Release"})
        self.assertEqual(p["init_caches"], ["/scratch/init-cache-0-0.cmake"])
        self.assertEqual(p["env"], {"CC": "clang"})
        self.assertTrue(p["command"].startswith("cmake . ../native "))

    def test_s_and_b_forms(self):
        for args in (["-S", "../src", "-B", "out"], ["-S../src", "-Bout"]):
            call = {"cwd": "/w/build", "args": args + ["-DA=b"],
                    "init_caches": {}}
            p = recorder.parse_cmake_call(call)
            self.assertEqual(p["source"], "/w/src", args)
            self.assertEqual(p["defines"], {"A": "b"})
            self.assertEqual(p["env"], {})

    def test_absolute_source_and_unknown_cache_file(self):
        call = {"cwd": "/w", "args": ["-S", "/abs/src", "-C", "/w/c.cmake",
                                      "--preset=dev"],
                "init_caches": {}}
        p = recorder.parse_cmake_call(call)
        self.assertEqual(p["source"], "/abs/src")
        self.assertEqual(p["init_caches"], ["/w/c.cmake"])

    def test_no_source(self):
        call = {"cwd": "/nonexistent-dir", "args": ["foo", "-DX=1"],
                "init_caches": {}}
        self.assertIsNone(recorder.parse_cmake_call(call)["source"])


class BuildRecordTest(unittest.TestCase):
    def test_failed_and_texts(self):
        rec = recorder.BuildRecord("setup.py", "/s/setup-py.log")
        self.assertFalse(rec.failed())
        rec.error = "boom"
        self.assertTrue(rec.failed())
        rec.output = "a\nb\nlast"
        self.assertIn("setup.py failed: boom", rec.failure())
        self.assertIn("/s/setup-py.log", rec.failure())
        rec.cmake_calls = [{}]
        self.assertFalse(rec.failed())
        rec.variables = ["A"]
        rec.variables_in_text = ["B", "A"]
        self.assertEqual(rec.all_variables(), ["A", "B"])
        self.assertIn("it reads A, B", rec.no_sources_text())
        self.assertIn("--env VAR=VALUE", rec.no_sources_text())


SETUP_ENV = '''
import os
from setuptools import setup, Extension

exts = []
if os.environ.get("TT_BUILD_FOO"):
    exts.append(Extension(
        "pkg._foo", sources=["csrc/foo.cpp"], include_dirs=["inc"],
        define_macros=[("FOO", "1"), ("BARE", None)],
        undef_macros=["NDEBUG"],
        extra_compile_args={"cxx": ["-O2", "-DCXX"], "nvcc": ["-DNV"]}))
setup(name="pkg", ext_modules=exts)
'''

SETUP_CMAKE = '''
import os
import subprocess
import sys
from setuptools import setup, Extension
from setuptools.command.build_ext import build_ext


class CMakeExtension(Extension):
    def __init__(self, name, src_dir):
        super().__init__(name, sources=[])
        self.src_dir = os.path.abspath(src_dir)


class CMakeBuild(build_ext):
    def build_extension(self, ext):
        computed = "ON" if sys.version_info >= (3,) else "OFF"
        os.makedirs(self.build_temp, exist_ok=True)
        subprocess.check_call(["cmake", ext.src_dir, f"-DWITH_X={computed}"],
                              cwd=self.build_temp)


setup(name="cm", ext_modules=[CMakeExtension("cm._native", "native")],
      cmdclass={"build_ext": CMakeBuild})
'''

BACKEND = '''
import os
import subprocess


def build_wheel(wheel_directory, config_settings=None,
                metadata_directory=None):
    from cmake import CMAKE_BIN_DIR
    try:
        import projpkg.settings  # the package's runtime settings, as
    except ImportError:          # deepmd-kit's backend imports deepmd's
        pass
    flavour = os.environ.get("TT_BACKEND_FLAVOUR", "plain")
    init = os.path.join(wheel_directory, "init.cmake")
    with open(init, "w") as f:
        f.write('set(FROM_INIT "yes" CACHE STRING "")\\n')
    build = (config_settings or {}).get("build-dir", "build")
    try:
        subprocess.check_call([os.path.join(CMAKE_BIN_DIR, "cmake"),
                               "-S", os.path.abspath("src"), "-B", build,
                               f"-DFLAVOUR:STRING={flavour}", "-C", init])
    finally:
        os.remove(init)
    return "never.whl"
'''


SETUP_SANDBOX = textwrap.dedent('''
    import os, shutil, subprocess
    from setuptools import setup, Extension
    here = os.path.dirname(os.path.abspath(__file__))
    subprocess.run(["git", "submodule", "update", "--init"], cwd=here)
    subprocess.run(["git", "config", "torch-tidy.test", "wrote"], cwd=here)
    described = subprocess.run(["git", "describe", "--always", "--dirty"],
                               cwd=here,
                               capture_output=True, text=True).stdout.strip()
    print("DESCRIBED=" + described)
    os.makedirs(os.path.join(here, "pkg"), exist_ok=True)
    with open(os.path.join(here, "pkg", "version.py"), "w") as f:
        f.write("version = '1'\\n")
    with open(os.path.join(here, "pkg", "version.py")) as f:
        assert "version" in f.read()
    with open(os.path.join(here, "csrc", "gen.cpp"), "w") as f:
        f.write("int gen() { return 1; }\\n")
    shutil.rmtree(os.path.join(here, "build"))
    setup(name="pkg", ext_modules=[Extension("pkg._ops", [
        "csrc/ops.cpp", "csrc/gen.cpp"])])
    ''')


def tree_bytes(root):
    """{path: bytes} of every file below root, .git's too."""
    out = {}
    for d, dirs, files in os.walk(root):
        for f in files:
            p = os.path.join(d, f)
            with open(p, "rb") as fh:
                out[os.path.relpath(p, root)] = fh.read()
        for x in dirs:
            out[os.path.relpath(os.path.join(d, x), root) + "/"] = b""
    return out


class RecordSetupPyTest(unittest.TestCase):
    def setUp(self):
        self._tmp = tempfile.TemporaryDirectory()
        self.d = os.path.realpath(self._tmp.name)
        self.project = os.path.join(self.d, "proj")
        self.scratch = os.path.join(self.d, "scratch")

    def tearDown(self):
        self._tmp.cleanup()

    @needs_setuptools
    def test_extensions_switched_on_by_environment(self):
        setup_py = write(os.path.join(self.project, "setup.py"), SETUP_ENV)
        write(os.path.join(self.project, "csrc", "foo.cpp"))
        env = recorder.environment([])
        env.pop("TT_BUILD_FOO", None)
        rec = recorder.record_setup_py(PYTHON, setup_py, env, self.scratch)
        self.assertIsNone(rec.error, rec.output)
        self.assertEqual(rec.extensions, [])
        self.assertIn("TT_BUILD_FOO", rec.variables)
        self.assertIn("TT_BUILD_FOO", rec.variables_in_text)
        self.assertEqual(rec.cmake_calls, [])
        self.assertTrue(os.path.isfile(rec.log))

        env = recorder.environment(["TT_BUILD_FOO=1"], env)
        rec = recorder.record_setup_py(PYTHON, setup_py, env, self.scratch)
        self.assertIsNone(rec.error, rec.output)
        self.assertEqual(len(rec.extensions), 1)
        e = rec.extensions[0]
        self.assertEqual(e["name"], "pkg._foo")
        self.assertEqual(e["sources"],
                         [os.path.join(self.project, "csrc", "foo.cpp")])
        self.assertEqual(e["include_dirs"], [os.path.join(self.project,
                                                          "inc")])
        self.assertEqual(e["define_macros"], [["FOO", "1"], ["BARE", None]])
        self.assertEqual(e["undef_macros"], ["NDEBUG"])
        self.assertEqual(e["cxx"], ["-O2", "-DCXX"])
        self.assertEqual(e["nvcc"], ["-DNV"])

    @needs_setuptools
    def test_the_tree_and_git_are_left_as_they_were(self):
        # A setup.py that inits its submodules (a network clone), writes git
        # config, generates a version file and a source into the tree and
        # removes a folder: the tree and .git stay byte-for-byte as they
        # were, the generated source is linted from the shadow folder, and
        # the refused git commands and the writes are named. git's queries
        # still answer.
        if not shutil.which("git"):
            print("SKIPPED test_the_tree_and_git_are_left_as_they_were: no git",
                  flush=True)
            self.skipTest("no git")
        setup_py = write(os.path.join(self.project, "setup.py"), SETUP_SANDBOX)
        write(os.path.join(self.project, "csrc", "ops.cpp"))
        write(os.path.join(self.project, "build", "old.txt"), "old\n")
        write(os.path.join(self.project, ".gitmodules"),
              '[submodule "third_party/x"]\n\tpath = third_party/x\n'
              '\turl = https://example.invalid/x.git\n')
        git = ["git", "-C", self.project]
        for cmd in (["init", "-q"], ["add", "-A"],
                    ["-c", "user.name=t", "-c", "user.email=t@t", "commit",
                     "-qm", "x"]):
            subprocess.run(git + cmd, check=True, capture_output=True)
        # A tracked file touched since the commit: `describe --dirty` would
        # refresh the index's stat data (deepmd-kit's CMake runs it).
        later = os.stat(setup_py).st_mtime + 10
        os.utime(os.path.join(self.project, "csrc", "ops.cpp"), (later, later))
        before = tree_bytes(self.project)
        rec = recorder.record_setup_py(PYTHON, setup_py, recorder.environment([]),
                                       self.scratch)
        self.assertIsNone(rec.error, rec.output)
        self.assertEqual(tree_bytes(self.project), before)
        self.assertIn("DESCRIBED=", rec.output)   # a read-only query answers
        self.assertNotIn("DESCRIBED=\n", rec.output)
        self.assertNotIn("-dirty", rec.output)   # the same bytes: not dirty
        self.assertEqual(sorted(rec.git_refused),
                         ["git config torch-tidy.test wrote",
                          "git submodule update --init"])
        self.assertEqual(sorted(rec.sandbox_writes),
                         ["csrc/gen.cpp", "pkg/version.py"])
        sources = rec.extensions[0]["sources"]
        self.assertEqual(sources[0], os.path.join(self.project, "csrc", "ops.cpp"))
        self.assertEqual(sources[1], os.path.join(rec.shadow, "csrc", "gen.cpp"))
        self.assertTrue(os.path.isfile(sources[1]))

    @needs_setuptools
    def test_a_folder_replaced_by_a_link_as_the_build_sees_it(self):
        # xformers' setup.py replaces a vendored folder of its package with a
        # link to a submodule's (rmtree, then symlink). The tree stays as it
        # was; to the build the folder is gone, then the link, which leads
        # where it would have; a file it removed and one it renamed are gone
        # to it too.
        write(os.path.join(self.project, "pkg", "_vend", "old.py"), "old\n")
        write(os.path.join(self.project, "third_party", "v", "mod.py"), "x\n")
        write(os.path.join(self.project, "build", "old.txt"), "old\n")
        write(os.path.join(self.project, "build", "a.txt"), "a\n")
        write(os.path.join(self.project, "csrc", "a.cpp"), "int a;\n")
        setup_py = write(os.path.join(self.project, "setup.py"), """\
            import os, shutil
            to = os.path.join("pkg", "_vend")
            if os.path.islink(to):
                os.unlink(to)
            elif os.path.isdir(to):
                shutil.rmtree(to)
            print("GONE=%s,%s" % (os.path.exists(to), os.path.isdir(to)))
            os.symlink(os.path.join("..", "third_party", "v"), to)
            print("LINK=%s,%s,%s" % (
                os.path.islink(to), os.path.isfile(os.path.join(to, "mod.py")),
                os.path.exists(os.path.join(to, "old.py"))))
            os.remove(os.path.join("build", "old.txt"))
            os.rename(os.path.join("build", "a.txt"),
                      os.path.join("build", "b.txt"))
            print("FILES=%s,%s,%s" % tuple(os.path.exists(os.path.join(
                "build", n)) for n in ("old.txt", "a.txt", "b.txt")))
            try:
                os.symlink("x", os.path.join("build", "b.txt"))
            except FileExistsError:
                print("EXISTS")
            # Listings: what it wrote, less what it removed; a source it
            # generates (and hard-links) is globbed and walked.
            print("LIST=%s" % ",".join(sorted(os.listdir("build"))))
            import glob
            os.makedirs(os.path.join("csrc", "gen"))
            open(os.path.join("csrc", "gen", "g.cpp"), "w").write("int g;")
            os.link(os.path.join("csrc", "gen", "g.cpp"),
                    os.path.join("csrc", "gen", "h.cpp"))
            print("GLOB=%s" % ",".join(sorted(glob.glob("csrc/**/*.cpp",
                                                        recursive=True))))
            print("WALK=%s" % ",".join(sorted(
                f for _, _, fs in os.walk("csrc") for f in fs)))
            # scikit-build's generator test: a folder made, entered, left.
            here = os.getcwd()
            os.makedirs("_cmake_test_compile")
            os.chdir("_cmake_test_compile")
            open("CMakeLists.txt", "w").write("project(t)")
            os.chdir(here)
            print("ENTERED=%s" % os.path.isfile(os.path.join(
                "_cmake_test_compile", "CMakeLists.txt")))
            from setuptools import setup
            setup(name="p")
            """)
        before = tree_bytes(self.project)
        rec = recorder.record_setup_py(PYTHON, setup_py,
                                       recorder.environment([]), self.scratch)
        self.assertIsNone(rec.error, rec.output)
        self.assertEqual(tree_bytes(self.project), before)
        self.assertFalse(os.path.islink(os.path.join(self.project, "pkg",
                                                     "_vend")))
        for said in ("GONE=False,False", "LINK=True,True,False",
                     "FILES=False,False,True", "EXISTS", "ENTERED=True",
                     "LIST=b.txt\n",
                     "GLOB=csrc/a.cpp,csrc/gen/g.cpp,csrc/gen/h.cpp\n",
                     "WALK=a.cpp,g.cpp,h.cpp\n"):
            self.assertIn(said, rec.output)
        self.assertIn("pkg/_vend", rec.sandbox_writes)

    @needs_setuptools
    def test_every_missing_import_is_named_at_once(self):
        # fbgemm_gpu's setup.py imports setuptools_git_versioning, skbuild
        # and tabulate: a user told one at a time runs it three times.
        setup_py = write(os.path.join(self.project, "setup.py"), """\
            import os
            import tt_missing_one
            from tt_missing_two.sub import thing
            import json, tt_missing_one
            from setuptools import setup
            setup(name="p")
            """)
        rec = recorder.record_setup_py(PYTHON, setup_py,
                                       recorder.environment([]), self.scratch)
        self.assertTrue(rec.failed())
        self.assertEqual(rec.missing_imports,
                         ["tt_missing_one", "tt_missing_two"])
        self.assertIn("of the modules it imports, tt_missing_one, "
                      "tt_missing_two do not import in --python's "
                      "environment", rec.failure())

    @needs_setuptools
    def test_removals_relative_to_a_folder_descriptor(self):
        # shutil.rmtree removes through dir_fd (names relative to the folder
        # it opened, not to the project, the working folder): a temporary
        # folder of the build's is removed, not taken for the tree's.
        setup_py = write(os.path.join(self.project, "setup.py"), """\
            import os, shutil, tempfile
            tmp = tempfile.mkdtemp()
            os.makedirs(os.path.join(tmp, "wheel", "pkg"))
            open(os.path.join(tmp, "wheel", "pkg", "x.py"), "w").write("")
            shutil.rmtree(tmp)
            print("LEFT=" + str(os.path.exists(tmp)))
            from setuptools import setup
            setup(name="p")
            """)
        rec = recorder.record_setup_py(PYTHON, setup_py,
                                       recorder.environment([]), self.scratch)
        self.assertIsNone(rec.error, rec.output)
        self.assertIn("LEFT=False", rec.output)

    @needs_setuptools
    def test_setup_py_that_fails(self):
        setup_py = write(os.path.join(self.project, "setup.py"),
                         "raise RuntimeError('no way')\n")
        rec = recorder.record_setup_py(PYTHON, setup_py,
                                       recorder.environment([]), self.scratch)
        self.assertTrue(rec.failed())
        self.assertIn("RuntimeError: no way", rec.error)

    @needs_setuptools
    def test_setup_py_without_setup_call(self):
        setup_py = write(os.path.join(self.project, "setup.py"), "x = 1\n")
        rec = recorder.record_setup_py(PYTHON, setup_py,
                                       recorder.environment([]), self.scratch)
        self.assertEqual(rec.error, "setup.py did not call setup()")

    @needs_setuptools
    def test_a_cmake_project_the_build_writes_and_probes_runs(self):
        # scikit-build tests each generator on a CMake project it writes into
        # _cmake_test_compile (configure, then --build) before the real
        # configure: that probe runs as it is and is not taken for the
        # project's configure.
        if not shutil.which("cmake"):
            print("SKIPPED test_a_cmake_project_the_build_writes_and_probes_"
                  "runs: no cmake", flush=True)
            self.skipTest("no cmake")
        setup_py = write(os.path.join(self.project, "setup.py"), """\
            import os, subprocess
            here = os.getcwd()
            os.makedirs(os.path.join("_cmake_test_compile", "build"))
            open(os.path.join("_cmake_test_compile", "CMakeLists.txt"),
                 "w").write("cmake_minimum_required(VERSION 3.10)\\n"
                            "project(probe NONE)")
            os.chdir(os.path.join("_cmake_test_compile", "build"))
            codes = [subprocess.run(["cmake", "..", "-G", "Unix Makefiles"]
                                    ).returncode]
            os.chdir(here)
            # and a command run in a folder it made (cwd=)
            codes.append(subprocess.run(["cmake", "--build", "."], cwd=
                os.path.join("_cmake_test_compile", "build")).returncode)
            print("PROBE=%s,%s" % tuple(codes))
            # The project's own configure, from a build folder it made
            # below the project: recorded.
            os.makedirs(os.path.join("_skbuild", "cmake-build"))
            subprocess.run(["cmake", os.path.abspath("native")],
                           cwd=os.path.join("_skbuild", "cmake-build"))
            from setuptools import setup
            setup(name="p")
            """)
        write(os.path.join(self.project, "native", "CMakeLists.txt"),
              "cmake_minimum_required(VERSION 3.10)\nproject(n NONE)\n")
        before = tree_bytes(self.project)
        rec = recorder.record_setup_py(PYTHON, setup_py,
                                       recorder.environment([]), self.scratch,
                                       real_cmake=shutil.which("cmake"))
        self.assertIsNone(rec.error, rec.output)
        self.assertIn("PROBE=0,0", rec.output)
        self.assertEqual([recorder.parse_cmake_call(c)["source"]
                          for c in rec.cmake_calls],
                         [os.path.join(self.project, "native")])
        self.assertEqual(tree_bytes(self.project), before)

    @needs_setuptools
    def test_build_ext_driving_cmake(self):
        setup_py = write(os.path.join(self.project, "setup.py"), SETUP_CMAKE)
        src = os.path.join(self.project, "native")
        write(os.path.join(src, "CMakeLists.txt"),
              "cmake_minimum_required(VERSION 3.18)\nproject(n CXX)\n")
        before = listing(self.project)
        rec = recorder.record_setup_py(PYTHON, setup_py,
                                       recorder.environment([]), self.scratch,
                                       real_cmake=shutil.which("cmake"))
        self.assertFalse(rec.failed(), rec.output)
        self.assertEqual(len(rec.cmake_calls), 1, rec.output)
        self.assertEqual([e["sources"] for e in rec.extensions], [[]])
        call = rec.cmake_calls[0]
        self.assertTrue(call["cwd"].startswith(self.scratch + os.sep))
        p = recorder.parse_cmake_call(call)
        self.assertEqual(p["source"], src)
        self.assertEqual(p["defines"].get("WITH_X"), "ON")
        self.assertEqual(listing(self.project), before)


    @needs_setuptools
    def test_build_clib_driving_cmake_beside_a_binding(self):
        # An operator library's core built by CMake from build_clib, a
        # small pybind extension with sources beside it: the extension is
        # recorded, its sources not compiled, and build_clib reaches cmake.
        setup_py = write(os.path.join(self.project, "setup.py"), SETUP_CLIB)
        write(os.path.join(self.project, "CMakeLists.txt"),
              "cmake_minimum_required(VERSION 3.18)\nproject(n CXX)\n")
        write(os.path.join(self.project, "csrc", "bind.cpp"),
              "this is not C++: compiling it would fail\n")
        before = listing(self.project)
        rec = recorder.record_setup_py(PYTHON, setup_py,
                                       recorder.environment([]), self.scratch,
                                       real_cmake=shutil.which("cmake"))
        self.assertFalse(rec.failed(), rec.output)
        self.assertEqual(len(rec.cmake_calls), 1, rec.output)
        p = recorder.parse_cmake_call(rec.cmake_calls[0])
        self.assertEqual(p["by"], "build_clib")
        self.assertEqual(p["source"], self.project)
        self.assertEqual(p["defines"].get("CORE_CPU"), "ON")
        self.assertNotIn("TORCH_TIDY_COMMAND", p["env"])
        self.assertEqual([e["sources"] for e in rec.extensions],
                         [[os.path.join(self.project, "csrc", "bind.cpp")]])
        self.assertEqual(rec.commands[0][0], "build_clib")
        # The package the registry imports: setup()'s, not a folder name.
        self.assertEqual(rec.packages, ["corelib"])
        self.assertEqual(listing(self.project), before)

    @needs_setuptools
    def test_own_build_command_runs_one_branch(self):
        # A custom `build` that chooses its CMake options by an environment
        # variable: the configure the build runs is the branch taken, never
        # the options of every branch at once.
        setup_py = write(os.path.join(self.project, "setup.py"), SETUP_OWN)
        write(os.path.join(self.project, "native", "CMakeLists.txt"),
              "cmake_minimum_required(VERSION 3.18)\nproject(n CXX)\n")
        for env, on, off in (([], "WITH_CPU", "WITH_GPU"),
                             (["OWN_TARGET=gpu"], "WITH_GPU", "WITH_CPU")):
            rec = recorder.record_setup_py(
                PYTHON, setup_py, recorder.environment(env),
                self.scratch, real_cmake=shutil.which("cmake"))
            self.assertEqual(len(rec.cmake_calls), 1, rec.output)
            p = recorder.parse_cmake_call(rec.cmake_calls[0])
            self.assertEqual(p["by"], "build", rec.commands)
            self.assertEqual(p["defines"].get(on), "ON", env)
            self.assertNotIn(off, p["defines"], env)

    @needs_setuptools
    def test_build_ext_running_cmake_for_part_of_the_package(self):
        # A build_ext that compiles ordinary extensions through its base
        # class and runs cmake for a shared part (torchao's shape): the
        # extension is not compiled, cmake is reached.
        setup_py = write(os.path.join(self.project, "setup.py"), SETUP_PART)
        write(os.path.join(self.project, "shared", "CMakeLists.txt"),
              "cmake_minimum_required(VERSION 3.18)\nproject(n CXX)\n")
        write(os.path.join(self.project, "csrc", "ops.cpp"),
              "this is not C++: compiling it would fail\n")
        rec = recorder.record_setup_py(PYTHON, setup_py,
                                       recorder.environment([]), self.scratch,
                                       real_cmake=shutil.which("cmake"))
        self.assertEqual(len(rec.cmake_calls), 1, rec.output)
        p = recorder.parse_cmake_call(rec.cmake_calls[0])
        self.assertEqual(p["by"], "build_ext")
        self.assertEqual(p["source"], os.path.join(self.project, "shared"))
        self.assertEqual(len(rec.extensions), 1)

    @needs_setuptools
    def test_setuptools_own_commands_are_not_run(self):
        # A setup.py whose commands are setuptools' own is only recorded:
        # nothing runs, nothing is said.
        setup_py = write(os.path.join(self.project, "setup.py"),
                         "from setuptools import setup, Extension\n"
                         "setup(name='p', ext_modules=[Extension('p._C', "
                         "['csrc/ops.cpp'])])\n")
        rec = recorder.record_setup_py(PYTHON, setup_py,
                                       recorder.environment([]), self.scratch,
                                       real_cmake=shutil.which("cmake"))
        self.assertFalse(rec.failed(), rec.output)
        self.assertEqual(rec.commands, [])
        self.assertEqual(rec.cmake_calls, [])


SETUP_CLIB = '''
import os
import subprocess
from setuptools import setup, Extension
from setuptools.command.build_clib import build_clib


class CoreLibBuild(build_clib):
    def run(self):
        here = os.path.dirname(os.path.abspath(__file__))
        tmp = os.path.join(self.build_temp, "core")
        os.makedirs(tmp, exist_ok=True)
        subprocess.check_call(["cmake", here, "-DCORE_CPU=ON"], cwd=tmp)
        subprocess.check_call(["cmake", "--build", "."], cwd=tmp)


setup(name="corelib",
      packages=["corelib", "corelib.ops"],
      package_dir={"corelib": "python/corelib"},
      libraries=[("core", {"sources": []})],
      ext_modules=[Extension("corelib._C", ["csrc/bind.cpp"])],
      cmdclass={"build_clib": CoreLibBuild})
'''

SETUP_OWN = '''
import os
import subprocess
from setuptools import setup
from setuptools.command.build import build


class OwnBuild(build):
    def run(self):
        args = ["-DWITH_GPU=ON"] if os.environ.get("OWN_TARGET") == "gpu" \\
            else ["-DWITH_CPU=ON"]
        os.makedirs(self.build_temp, exist_ok=True)
        subprocess.check_call(["cmake", "-S", "native", "-B",
                               self.build_temp] + args)
        super().run()


setup(name="own", packages=[], cmdclass={"build": OwnBuild})
'''

SETUP_PART = '''
import os
import subprocess
from setuptools import setup, Extension
from setuptools.command.build_ext import build_ext


class PartlyCMake(build_ext):
    def run(self):
        super().run()
        os.makedirs(self.build_temp, exist_ok=True)
        subprocess.check_call(["cmake", "-S", os.path.abspath("shared"),
                               "-B", self.build_temp])


setup(name="part", ext_modules=[Extension("part._C", ["csrc/ops.cpp"])],
      cmdclass={"build_ext": PartlyCMake})
'''


class RecordBackendTest(unittest.TestCase):
    @needs_setuptools
    def test_in_tree_backend_with_pypi_cmake(self):
        with tempfile.TemporaryDirectory() as tmp:
            d = os.path.realpath(tmp)
            project = os.path.join(d, "proj")
            scratch = os.path.join(d, "scratch")
            write(os.path.join(project, "_build", "mybackend.py"), BACKEND)
            write(os.path.join(project, "src", "CMakeLists.txt"),
                  "cmake_minimum_required(VERSION 3.18)\nproject(b CXX)\n")
            write(os.path.join(project, "projpkg", "__init__.py"), "")
            write(os.path.join(project, "projpkg", "settings.py"),
                  "import os\n"
                  "THREADS = int(os.environ.get('PROJPKG_THREADS', '1'))\n")
            before = listing(project)
            env = recorder.environment(["TT_BACKEND_FLAVOUR=fancy"])
            env["PYTHONPATH"] = project
            rec = recorder.record_backend(
                PYTHON, project, "mybackend", ["_build"], env, scratch,
                {"build-dir": os.path.join(scratch, "build")},
                real_cmake=shutil.which("cmake"))
            self.assertTrue(rec.imported, rec.output)
            self.assertFalse(rec.failed(), rec.output)
            self.assertEqual(len(rec.cmake_calls), 1, rec.output)
            self.assertIn("TT_BACKEND_FLAVOUR", rec.variables)
            self.assertIn("TT_BACKEND_FLAVOUR", rec.variables_in_text)
            # Read while the backend ran, by the package it imported: a
            # runtime setting, never offered as a switch of the build.
            self.assertIn("PROJPKG_THREADS", rec.variables)
            self.assertEqual(rec.readers["PROJPKG_THREADS"],
                             os.path.join(project, "projpkg", "settings.py"))
            self.assertEqual(rec.switch_variables(), ["TT_BACKEND_FLAVOUR"])
            self.assertFalse([v for v in rec.variables
                              if v.startswith("TORCH_TIDY_")])
            p = recorder.parse_cmake_call(rec.cmake_calls[0])
            self.assertEqual(p["source"], os.path.join(project, "src"))
            self.assertEqual(p["defines"], {"FLAVOUR": "fancy"})
            self.assertEqual(len(p["init_caches"]), 1)
            copy = p["init_caches"][0]
            self.assertTrue(copy.startswith(scratch + os.sep), copy)
            self.assertTrue(os.path.isfile(copy))
            with open(copy) as f:
                self.assertIn('set(FROM_INIT "yes"', f.read())
            # The backend deleted its own file: only the copy is left.
            self.assertFalse(os.path.exists(os.path.join(scratch, "wheel",
                                                         "init.cmake")))
            self.assertEqual(listing(project), before)

    def record_inline_backend(self, text):
        """The record of an in-tree backend `inline` (backend-path _build)
        whose module is text."""
        with tempfile.TemporaryDirectory() as tmp:
            d = os.path.realpath(tmp)
            project = os.path.join(d, "proj")
            write(os.path.join(project, "_build", "inline.py"), text)
            return recorder.record_backend(
                PYTHON, project, "inline", ["_build"],
                recorder.environment([]), os.path.join(d, "scratch"))

    @needs_setuptools
    def test_what_the_backend_asks_for_and_lacks_stops_it(self):
        # get_requires_for_build_wheel is asked first, as pip asks it; what
        # the Python lacks is named, and the backend does not build without
        # it. torch is never asked for: the build uses --python's.
        rec = self.record_inline_backend("""\
            def get_requires_for_build_wheel(config_settings=None):
                return ["tt-nowhere-xyz>=1", "torch>=99", "setuptools"]
            def build_wheel(wheel_directory, config_settings=None,
                            metadata_directory=None):
                raise SystemExit("built without what it asked for")
            """)
        self.assertTrue(rec.imported, rec.output)
        self.assertEqual(rec.dynamic_requires,
                         ["tt-nowhere-xyz>=1", "torch>=99", "setuptools"])
        self.assertEqual(rec.dynamic_missing, ["tt-nowhere-xyz>=1"])
        self.assertIn("get_requires_for_build_wheel asks for "
                      "tt-nowhere-xyz>=1", rec.error)
        self.assertNotIn("built without", rec.output)
        self.assertEqual(rec.cmake_calls, [])

    @needs_setuptools
    def test_a_hook_that_fails_leaves_the_build_as_it_was(self):
        # A get_requires_for_build_wheel that raises: the backend still
        # builds, as it did before the question was asked.
        rec = self.record_inline_backend("""\
            def get_requires_for_build_wheel(config_settings=None):
                raise RuntimeError("no metadata here")
            def build_wheel(wheel_directory, config_settings=None,
                            metadata_directory=None):
                raise SystemExit("BUILD_WHEEL_RAN")
            """)
        self.assertTrue(rec.imported, rec.output)
        self.assertEqual(rec.dynamic_missing, [])
        self.assertIn("no metadata here", rec.output)
        self.assertIn("BUILD_WHEEL_RAN", rec.error or rec.output)

    def test_the_backends_own_code(self):
        # deepmd-kit: backend-path ["."] and backend backend.dp_backend:
        # its own code is backend/, not the package deepmd/ beside it.
        with tempfile.TemporaryDirectory() as tmp:
            d = os.path.realpath(tmp)
            write(os.path.join(d, "backend", "dp_backend.py"))
            write(os.path.join(d, "deepmd", "env.py"))
            write(os.path.join(d, "_b", "mine.py"))
            self.assertEqual(recorder.backend_code(d, "backend.dp_backend",
                                                   ["."]),
                             [os.path.join(d, "backend")])
            self.assertEqual(recorder.backend_code(d, "mine:Backend",
                                                   ["_b"]),
                             [os.path.join(d, "_b", "mine.py")])
            self.assertEqual(recorder.backend_code(d, "gone", ["_b"]),
                             [os.path.join(d, "_b")])
            rec = recorder.BuildRecord("the build backend", "log")
            rec.build_code = [os.path.join(d, "backend")]
            rec.variables = ["DP_VARIANT", "DP_INTRA_OP_PARALLELISM_THREADS"]
            rec.readers = {
                "DP_VARIANT": os.path.join(d, "backend", "read_env.py"),
                "DP_INTRA_OP_PARALLELISM_THREADS":
                    os.path.join(d, "deepmd", "env.py")}
            self.assertEqual(rec.switch_variables(), ["DP_VARIANT"])

    def record_missing_backend(self):
        with tempfile.TemporaryDirectory() as tmp:
            d = os.path.realpath(tmp)
            os.makedirs(os.path.join(d, "proj"))
            return recorder.record_backend(PYTHON, os.path.join(d, "proj"),
                                           "no_such_backend_xyz", [],
                                           recorder.environment([]),
                                           os.path.join(d, "scratch"))

    @needs_setuptools
    def test_backend_that_does_not_import_fails(self):
        rec = self.record_missing_backend()
        self.assertTrue(rec.failed())
        self.assertIn("no_such_backend_xyz", rec.error)
        self.assertEqual(rec.cmake_calls, [])

    # Regression (recorder.DRIVER_BACKEND / _run): BuildRecord.imported says
    # "whether it imported", but the driver only ever sets "imported" to True
    # and _run defaults a missing value to True, so a backend whose import
    # failed is recorded as imported.
    @needs_setuptools
    def test_backend_that_does_not_import_is_not_imported(self):
        self.assertFalse(self.record_missing_backend().imported)


if __name__ == "__main__":
    unittest.main()
