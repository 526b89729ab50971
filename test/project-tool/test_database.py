#!/usr/bin/env python3
"""Unit tests of torch_tidy_project.database: which compile database a run
uses, where it came from, and what is read from a project's build files."""
import argparse
import io
import json
import os
import shlex
import shutil
import subprocess
import tempfile
import textwrap
import time
import unittest
from contextlib import redirect_stdout

from support import PYTHON, VERSION_H, fake_torch, needs_setuptools, write
from torch_tidy_project import database
from torch_tidy_project.common import ProjectError

REAL_CMAKE = shutil.which("cmake")
CXX = shutil.which("c++") or shutil.which("g++") or shutil.which("clang++")


def write_json(path, items):
    os.makedirs(os.path.dirname(path), exist_ok=True)
    with open(path, "w") as f:
        json.dump(items, f)
    return path


def torch_entry(directory, file="a.cpp", name="ext"):
    """An entry as torch-tidy-cdb writes it."""
    return {"directory": directory, "file": file,
            "arguments": ["clang++", "-std=c++17",
                          "-DTORCH_API_INCLUDE_EXTENSION_H",
                          f"-DTORCH_EXTENSION_NAME={name}", "-c", file]}


def gcc_entry(directory, file, *flags):
    return {"directory": directory, "file": file,
            "command": " ".join(["/usr/bin/c++", *flags, "-c", file])}


def context(project, **kw):
    """The ctx obtain() takes (cli.run makes it with these fields)."""
    ctx = argparse.Namespace(
        project=project, root=project, python=None, env=dict(os.environ),
        env_pairs=[], defines={}, cmake=None, database="auto",
        cuda_path=None, torch=None, operator_files={})
    for k, v in kw.items():
        setattr(ctx, k, v)
    return ctx


def obtain(ctx):
    with redirect_stdout(io.StringIO()):
        return database.obtain(ctx)


class WrittenByTorchTidyTest(unittest.TestCase):
    def test_cases(self):
        self.assertFalse(database.written_by_torch_tidy([]))
        self.assertTrue(database.written_by_torch_tidy(
            [torch_entry("/p"), torch_entry("/p", "b.cpp")]))
        self.assertFalse(database.written_by_torch_tidy(
            [torch_entry("/p"), gcc_entry("/p", "b.cpp")]))
        no_name = torch_entry("/p")
        no_name["arguments"] = [a for a in no_name["arguments"]
                                if not a.startswith("-DTORCH_EXTENSION")]
        self.assertFalse(database.written_by_torch_tidy([no_name]))
        as_command = {"directory": "/p", "file": "a.cpp",
                      "command": "clang++ -DTORCH_API_INCLUDE_EXTENSION_H "
                                 "-DTORCH_EXTENSION_NAME=x -c a.cpp"}
        self.assertTrue(database.written_by_torch_tidy([as_command]))
        self.assertFalse(database.written_by_torch_tidy([gcc_entry(
            "/p", "a.cpp", "-DTORCH_API_INCLUDE_EXTENSION_H",
            "-DTORCH_EXTENSION_NAME=x")]))


class LoadTest(unittest.TestCase):
    def test_malformed_databases_are_one_line_errors(self):
        with tempfile.TemporaryDirectory() as d:
            for items in ({"file": "a.cpp"}, [{"file": "a.cpp"}],
                          [{"arguments": ["cc"]}], ["a.cpp"]):
                path = write_json(os.path.join(d, "cc.json"), items)
                with self.assertRaises(ProjectError) as c:
                    database.load(path)
                self.assertIn("not a compile database", str(c.exception))

    def test_a_missing_directory_is_the_database_s(self):
        with tempfile.TemporaryDirectory() as d:
            path = write_json(os.path.join(d, "cc.json"),
                              [{"file": "a.cpp", "command": "cc -c a.cpp"}])
            self.assertEqual(database.load(path)[0]["directory"], d)


class ExistingTest(unittest.TestCase):
    def test_age_and_flag(self):
        with tempfile.TemporaryDirectory() as d:
            own = write_json(os.path.join(d, "compile_commands.json"),
                             [gcc_entry(d, "a.cpp")])
            ours = write_json(os.path.join(d, "build",
                                           "compile_commands.json"),
                              [torch_entry(d)])
            old = time.time() - 7200
            os.utime(own, (old, old))
            found = database.existing(d)
        self.assertEqual([(p, ours_) for p, _, _, ours_ in found],
                         [(own, False), (ours, True)])
        self.assertAlmostEqual(found[0][2], 7200, delta=60)
        self.assertLess(found[1][2], 60)
        self.assertEqual(found[0][1][0]["file"], "a.cpp")

    def test_none_and_unreadable(self):
        with tempfile.TemporaryDirectory() as d:
            self.assertEqual(database.existing(d), [])
            write(os.path.join(d, "compile_commands.json"), "{not json")
            with self.assertRaises(ProjectError):
                database.existing(d)
            write(os.path.join(d, "compile_commands.json"), '{"a": 1}')
            with self.assertRaises(ProjectError) as c:
                database.existing(d)
            self.assertIn("not a compile database", str(c.exception))


class DeclaredOptionsTest(unittest.TestCase):
    def test_options_and_defaults(self):
        with tempfile.TemporaryDirectory() as d:
            write(os.path.join(d, "CMakeLists.txt"), """\
                option(WITH_CUDA "Build the CUDA kernels" ON)
                OPTION(USE_FAST "fast path")
                option(WITH_CUDA "again" OFF)
                option(BUILD_TESTS "tests" false)
                add_subdirectory(lib)
                """)
            write(os.path.join(d, "lib", "CMakeLists.txt"),
                  'option(LIB_EXTRA "extra" YES)\n')
            write(os.path.join(d, "third_party", "dep", "CMakeLists.txt"),
                  'option(DEP_THING "dep" ON)\n')
            self.assertEqual(database.declared_options(d),
                             {"WITH_CUDA": "ON", "USE_FAST": "OFF",
                              "BUILD_TESTS": "FALSE", "LIB_EXTRA": "YES"})


class SetupPyCmakeDefinesTest(unittest.TestCase):
    def test_literal_and_f_strings(self):
        text = textwrap.dedent('''
            cmake_args = [
                "-DWITH_A=ON",
                '-DB:BOOL=OFF',
                f"-DPY_EXE={sys.executable}",
                f"-DLITERAL_F=1",
                "-DEMPTY=",
                F"-DUPPER={x}",
                "-DFMT={}".format(y),
            ]
            ''')
        self.assertEqual(database.setup_py_cmake_defines(text),
                         ({"WITH_A": "ON", "B": "OFF", "LITERAL_F": "1",
                           "EMPTY": ""}, {}))

    # Regression (database.setup_py_cmake_defines): a string followed by '+'
    # or '%' is not literal, but the part in quotes is taken for the value:
    # CMake gets -DWITH_CUDA= (empty, i.e. false) and -DCMAKE_BUILD_TYPE=%s.
    def test_concatenated_values_are_not_literal(self):
        text = ('args = ["-DWITH_CUDA=" + str(flag), '
                '"-DCMAKE_BUILD_TYPE=%s" % cfg]\n')
        self.assertEqual(database.setup_py_cmake_defines(text), ({}, {}))

    # Issue 80: a setup.py with a branch per target gave CMake the options
    # of every branch at once, a combination no real build uses (the
    # project's preset check failed the configure).
    def test_one_branch_never_all_at_once(self):
        text = textwrap.dedent('''
            import os
            args = ["-DBUILD_SHARED=ON"]
            if os.environ.get("MY_TARGET") == "gpu":
                args += ["-DUSE_GPU=ON"]
            elif os.environ.get("MY_TARGET") == "xpu":
                args += ["-DUSE_XPU=ON"]
            else:
                args += ["-DUSE_CPU_ONLY=ON"]
            flag = "-DFAST=ON" if os.environ.get("FAST") else "-DFAST=OFF"
            try:
                import numpy
            except ImportError:
                args.append("-DNO_NUMPY=ON")
            ''')
        taken, left = database.setup_py_cmake_defines(text)
        self.assertEqual(taken, {"BUILD_SHARED": "ON"})
        self.assertEqual(set(left), {"USE_GPU", "USE_XPU", "USE_CPU_ONLY",
                                     "FAST", "NO_NUMPY"})
        taken, left = database.setup_py_cmake_defines(
            text, {"MY_TARGET": "gpu"})
        self.assertEqual(taken, {"BUILD_SHARED": "ON", "USE_GPU": "ON"})
        self.assertNotIn("USE_GPU", left)


class NoSourcesTextTest(unittest.TestCase):
    def test_names_variables_operators_and_files(self):
        from torch_tidy_project import recorder
        rec = recorder.BuildRecord("setup.py", "/p/.torch-tidy/recorder/"
                                   "setup-py.log")
        rec.variables = ["XX_BUILD_CPU"]
        rec.variables_in_text = ["XX_BUILD_CPU", "XX_BUILD_CUDA"]
        ctx = argparse.Namespace(project="/p", operator_files={
            "/p/csrc/ops.cpp": ["xx::a", "xx::b"],
            "/p/csrc/cuda/k.cu": ["xx::b", "xx::c"]})
        said = database.no_sources_text(ctx, rec)
        self.assertIn("setup.py defines no extension sources with this "
                      "environment; it reads XX_BUILD_CPU, XX_BUILD_CUDA", said)
        self.assertIn("--env XX_BUILD_CPU=1", said)
        self.assertIn("the 3 operators the project registers (xx::a, xx::b, "
                      "xx::c), in csrc/cuda/k.cu, csrc/ops.cpp", said)
        self.assertTrue(said.endswith(
            "(setup.py's output: .torch-tidy/recorder/setup-py.log)"))


class TorchIncludesTest(unittest.TestCase):
    def test_versions_and_directories(self):
        with tempfile.TemporaryDirectory() as d:
            inc = os.path.join(d, "site", "torch", "include")
            write(os.path.join(inc, "torch", "version.h"), VERSION_H)
            src = os.path.join(d, "src")
            api = os.path.join(src, "torch", "csrc", "api", "include")
            write(os.path.join(api, "torch", "version.h"),
                  VERSION_H.replace("MINOR 8", "MINOR 7"))
            entries = [
                {"directory": os.path.join(d, "site"), "file": "a.cpp",
                 "arguments": ["c++", "-isystem", "torch/include",
                               "-I/nonexistent", "-c", "a.cpp"]},
                {"directory": d, "file": "b.cpp",
                 "command": f"c++ -I{inc} -iquote {d} -c b.cpp"},
            ]
            found, dirs = database.torch_includes(entries)
            self.assertEqual(found, {"2.8.0": inc})
            self.assertEqual(dirs, [inc])
            # A source tree's layout (torch/csrc/api/include below the
            # directory named).
            entries.append({"directory": d, "file": "c.cpp",
                            "command": f"c++ -isystem{src} -c c.cpp"})
            found, dirs = database.torch_includes(entries)
            self.assertEqual(found, {"2.8.0": inc, "2.7.0": api})
            self.assertEqual(dirs, [inc, src])

    def test_include_dirs(self):
        e = {"directory": "/w", "file": "a.cpp",
             "arguments": ["c++", "-I", "inc", "-Ijoined", "-isystem", "/s",
                           "-iquote", "q", "-idirafter/after", "-c", "a.cpp"]}
        self.assertEqual(database.include_dirs(e),
                         ["/w/inc", "/w/joined", "/s", "/w/q", "/after"])


class ObtainExistingTest(unittest.TestCase):
    def setUp(self):
        self._tmp = tempfile.TemporaryDirectory()
        self.project = os.path.realpath(self._tmp.name)

    def tearDown(self):
        self._tmp.cleanup()

    def read_written(self):
        path = os.path.join(self.project, ".torch-tidy",
                            "compile_commands.json")
        self.assertTrue(os.path.isfile(path))
        with open(path) as f:
            return json.load(f)

    def test_project_database_used_as_it_is(self):
        write_json(os.path.join(self.project, "compile_commands.json"),
                   [gcc_entry(".", "src/a.cpp", "-DX"),
                    gcc_entry("sub", "b.cpp")])
        db = obtain(context(self.project))
        self.assertEqual(db.how, "existing")
        self.assertIn("the project's compile_commands.json", db.origin)
        self.assertIn("old, as it is", db.origin)
        self.assertEqual(db.source, os.path.join(self.project,
                                                 "compile_commands.json"))
        self.assertEqual(db.path, os.path.join(self.project, ".torch-tidy",
                                               "compile_commands.json"))
        written = self.read_written()
        self.assertEqual([e["directory"] for e in written],
                         [self.project, os.path.join(self.project, "sub")])
        self.assertEqual(written[0]["command"],
                         "/usr/bin/c++ -DX -c src/a.cpp")
        self.assertEqual(db.notes, [])
        self.assertEqual(db.nvcc_translated, 0)
        j = db.to_json(self.project)
        self.assertEqual(j["how"], "existing")
        self.assertEqual(j["path"], db.path)

    def test_torch_tidy_database_noted_not_used(self):
        write_json(os.path.join(self.project, "compile_commands.json"),
                   [torch_entry(self.project)])
        own = write_json(os.path.join(self.project, "build",
                                      "compile_commands.json"),
                         [gcc_entry(".", "../a.cpp")])
        db = obtain(context(self.project))
        self.assertEqual(db.source, own)
        self.assertIn("the project's build/compile_commands.json", db.origin)
        self.assertEqual(len(db.notes), 1)
        self.assertIn("compile_commands.json", db.notes[0])
        self.assertIn("written by torch-tidy-cdb", db.notes[0])
        self.assertIn("not used", db.notes[0])
        self.assertEqual(self.read_written()[0]["directory"],
                         os.path.join(self.project, "build"))

    def test_only_torch_tidy_database_and_nothing_to_make_one(self):
        write_json(os.path.join(self.project, "compile_commands.json"),
                   [torch_entry(self.project)])
        with self.assertRaises(ProjectError) as c:
            obtain(context(self.project))
        self.assertIn("nothing to make one from", str(c.exception))
        self.assertIn("no setup.py, no CMakeLists.txt", str(c.exception))

    def test_given_database_directory(self):
        given = os.path.join(self.project, "elsewhere")
        write_json(os.path.join(given, "compile_commands.json"),
                   [torch_entry(".")])
        db = obtain(context(self.project, database=given))
        self.assertEqual(db.how, "given")
        self.assertIn("given with --database", db.origin)
        self.assertEqual(self.read_written()[0]["directory"], given)

    def test_nvcc_entries_translated_and_given_torch_paths(self):
        torch = fake_torch(self.project)
        inc = torch["include_paths"][0]
        toolkit = os.path.join(self.project, "cuda")
        write(os.path.join(toolkit, "include", "cuda.h"))
        nvcc = os.path.join(toolkit, "bin", "nvcc")
        write_json(os.path.join(self.project, "build",
                                "compile_commands.json"), [
            gcc_entry(".", "../a.cpp", "-isystem", inc),
            {"directory": ".", "file": "../k.cu",
             "command": f"{nvcc} -DK -x cu -c ../k.cu -o k.o"}])
        db = obtain(context(self.project))
        self.assertEqual(db.nvcc_translated, 1)
        self.assertTrue(any(n.startswith("1 nvcc entry turned into") and
                            "clang CUDA entr" in n and
                            "1 named no torch include path" in n
                            for n in db.notes), db.notes)
        cu = self.read_written()[1]
        self.assertEqual(cu["arguments"][0], "clang++")
        self.assertIn(inc, cu["arguments"])
        self.assertIn("-DK", cu["arguments"])
        self.assertEqual(cu["directory"], os.path.join(self.project,
                                                       "build"))


    def test_sycl_entries_parsed_as_cxx_with_the_stand_ins(self):
        torch = fake_torch(self.project)
        inc = torch["include_paths"][0]
        write_json(os.path.join(self.project, "build",
                                "compile_commands.json"), [
            gcc_entry(".", "../a.cpp", "-isystem", inc),
            {"directory": ".", "file": "../k.sycl",
             "command": f"icpx -fsycl -fsycl-targets=spir64 -DK "
                        f"-isystem {inc} -c ../k.sycl -o k.o"}])
        db = obtain(context(self.project))
        self.assertTrue(any(n.startswith("1 SYCL entry parsed as C++")
                            for n in db.notes), db.notes)
        k = self.read_written()[1]
        self.assertEqual(k["arguments"][:3], ["clang++", "-x", "c++"])
        self.assertIn("-DK", k["arguments"])
        self.assertNotIn("-fsycl", k["arguments"])


class ObtainFromBuildTest(unittest.TestCase):
    def setUp(self):
        self._tmp = tempfile.TemporaryDirectory()
        self.d = os.path.realpath(self._tmp.name)
        self.project = os.path.join(self.d, "proj")
        os.makedirs(self.project)
        self.torch = fake_torch(self.d)

    def tearDown(self):
        self._tmp.cleanup()

    @needs_setuptools
    def test_setup_py_extensions(self):
        write(os.path.join(self.project, "setup.py"), """\
            from setuptools import setup, Extension
            setup(name="p", ext_modules=[
                Extension("p._C", sources=["csrc/ops.cpp"],
                          define_macros=[("WITH_OPS", "1")])])
            """)
        write(os.path.join(self.project, "csrc", "ops.cpp"))
        write_json(os.path.join(self.project, "compile_commands.json"),
                   [torch_entry(self.project)])
        db = obtain(context(self.project, python=PYTHON, torch=self.torch))
        self.assertEqual(db.how, "setup.py", db.notes)
        self.assertIn("made from setup.py's 1 extension", db.origin)
        self.assertTrue(any("written by torch-tidy-cdb" in n
                            for n in db.notes))
        self.assertEqual(len(db.entries), 1)
        args = db.entries[0]["arguments"]
        self.assertIn("-DWITH_OPS=1", args)
        self.assertIn("-DTORCH_EXTENSION_NAME=_C", args)
        self.assertIn(self.torch["include_paths"][0], args)
        self.assertTrue(os.path.isfile(db.path))
        self.assertIsNotNone(db.build)

    @needs_setuptools
    def test_writes_of_the_build_into_the_tree_are_kept_out_and_said(self):
        write(os.path.join(self.project, "setup.py"), """\
            from setuptools import setup, Extension
            with open("version.py", "w") as f:
                f.write("__version__ = '1.0'\\n")
            setup(name="p", ext_modules=[Extension("p._C", ["a.cpp"])])
            """)
        write(os.path.join(self.project, "a.cpp"))
        time.sleep(1.1)  # the file's mtime falls after the run begins
        db = obtain(context(self.project, python=PYTHON, torch=self.torch))
        self.assertEqual(db.how, "setup.py")
        self.assertFalse(os.path.exists(os.path.join(self.project,
                                                     "version.py")))
        self.assertIn("setup.py wrote 1 file into the project's tree "
                      "(version.py): kept in .torch-tidy/recorder/shadow "
                      "instead; the tree is unchanged", db.notes)

    @needs_setuptools
    def test_setup_py_needs_torch(self):
        write(os.path.join(self.project, "setup.py"), """\
            from setuptools import setup, Extension
            setup(name="p", ext_modules=[Extension("p._C", ["a.cpp"])])
            """)
        write(os.path.join(self.project, "a.cpp"))
        with self.assertRaises(ProjectError) as c:
            obtain(context(self.project, python=PYTHON))
        self.assertIn("cannot import torch", str(c.exception))

    @needs_setuptools
    def test_make_skips_the_project_database(self):
        write(os.path.join(self.project, "setup.py"), """\
            from setuptools import setup
            setup(name="p", ext_modules=[])
            """)
        write_json(os.path.join(self.project, "compile_commands.json"),
                   [gcc_entry(".", "a.cpp")])
        with self.assertRaises(ProjectError) as c:
            obtain(context(self.project, python=PYTHON, torch=self.torch,
                           database="make",
                           operator_files={
                               os.path.join(self.project, "ops.cpp"):
                               ["my::op"]}))
        said = str(c.exception)
        self.assertIn("defines no extension sources", said)
        self.assertIn("the 1 operator the project registers (my::op), in "
                      "ops.cpp", said)

    @unittest.skipIf(not REAL_CMAKE, "no cmake on PATH")
    def test_cmake_project_that_cannot_configure(self):
        write(os.path.join(self.project, "CMakeLists.txt"), """\
            cmake_minimum_required(VERSION 3.18)
            project(never NONE)
            option(WITH_EXTRA "extra" ON)
            include_directories(${CMAKE_CURRENT_SOURCE_DIR}/inc)
            message(FATAL_ERROR "this project never configures")
            """)
        os.makedirs(os.path.join(self.project, "inc"))
        write(os.path.join(self.project, "src", "a.cpp"))
        db = obtain(context(self.project, torch=self.torch,
                            cmake=REAL_CMAKE))
        self.assertEqual(db.how, "cmake sources")
        self.assertIn("CMake could not configure", db.origin)
        self.assertEqual(db.cmake_options, {"WITH_EXTRA": "ON"})
        self.assertEqual(db.cmake_source, self.project)
        self.assertEqual([e["file"] for e in db.entries],
                         [os.path.join(self.project, "src", "a.cpp")])
        self.assertIn(f"-I{os.path.join(self.project, 'inc')}",
                      db.entries[0]["arguments"])
        self.assertTrue(any("this project never configures" in n
                            for n in db.notes), db.notes)

    # Issue 58 item 8: what the project's CMake writes below its source
    # (file(WRITE), configure_file, a script run by execute_process, over a
    # file of the tree too) lands in a copy, and the tree and .git stay
    # byte for byte; the database names the tree's files, the made ones in
    # the copy, and its commands compile.
    @unittest.skipIf(not (REAL_CMAKE and CXX and shutil.which("git")),
                     "no cmake, C++ compiler or git")
    def test_cmake_configure_leaves_the_tree_unchanged(self):
        repo = os.path.join(self.d, "repo")
        project = os.path.join(repo, "proj")
        write(os.path.join(repo, "common", "util.cmake"), "set(UTIL 1)\n")
        write(os.path.join(repo, "common", "inc", "shared.h"),
              "#define SHARED 1\n")
        write(os.path.join(project, "CMakeLists.txt"), f"""\
            cmake_minimum_required(VERSION 3.18)
            project(tiny CXX)
            include(${{CMAKE_CURRENT_SOURCE_DIR}}/../common/util.cmake)
            file(WRITE ${{CMAKE_CURRENT_SOURCE_DIR}}/gen/gen_ops.cpp
                 "int gen_op() {{ return 1; }}\\n")
            file(WRITE ${{CMAKE_CURRENT_SOURCE_DIR}}/version.h
                 "#define VERSION 2\\n")
            configure_file(config.h.in
                           ${{CMAKE_CURRENT_SOURCE_DIR}}/src/config.h)
            execute_process(COMMAND {PYTHON} -c
                "open('include/py_gen.h', 'w').write('#define PY 1')"
                WORKING_DIRECTORY ${{CMAKE_CURRENT_SOURCE_DIR}})
            execute_process(COMMAND {PYTHON} -c
                "open('cwd_gen.h', 'w').write('')")
            include_directories(${{CMAKE_CURRENT_SOURCE_DIR}}
                                ${{CMAKE_CURRENT_SOURCE_DIR}}/include
                                ../common/inc)
            add_library(tiny STATIC src/a.cpp gen/gen_ops.cpp)
            """)
        write(os.path.join(project, "config.h.in"), "#define CONFIG 1\n")
        write(os.path.join(project, "version.h"), "#define VERSION 1\n")
        write(os.path.join(project, "include", "keep.h"), "")
        write(os.path.join(project, "src", "a.cpp"), """\
            #include "config.h"
            #include "py_gen.h"
            #include "shared.h"
            #include "version.h"
            static_assert(CONFIG + PY + SHARED == 3, "");
            static_assert(VERSION == 1, "the tree's own version.h");
            """)
        subprocess.run(["git", "init", "-q", repo], check=True)
        subprocess.run(["git", "-C", repo, "add", "-A"], check=True)
        subprocess.run(["git", "-C", repo, "-c", "user.name=t", "-c",
                        "user.email=t@t", "commit", "-qm", "t"], check=True)

        def snapshot():
            out = {}
            for d, dirs, files in os.walk(repo):
                dirs[:] = [x for x in dirs if x != ".torch-tidy"]
                for f in files:
                    p = os.path.join(d, f)
                    with open(p, "rb") as fh:
                        out[p] = (fh.read(), os.stat(p).st_mtime_ns)
            return out

        before = snapshot()
        time.sleep(1.1)  # a write into the tree would be newer than the run
        # Run from the project, as a user does: a command CMake runs without
        # a WORKING_DIRECTORY writes into the current folder's copy.
        here = os.getcwd()
        os.chdir(project)
        try:
            db = obtain(context(project, torch=self.torch, cmake=REAL_CMAKE))
        finally:
            os.chdir(here)
        self.assertEqual(snapshot(), before)
        self.assertEqual(db.how, "cmake", db.notes)
        copy = os.path.join(project, ".torch-tidy", "configure", "tree") + \
            repo
        files = sorted(e["file"] for e in db.entries)
        self.assertEqual(files, [
            os.path.join(copy, "proj", "gen", "gen_ops.cpp"),
            os.path.join(project, "src", "a.cpp")])
        self.assertIn("CMake's configure ran on a copy of the tree "
                      "(.torch-tidy/configure/tree) and made 4 files there "
                      "(cwd_gen.h, gen/gen_ops.cpp, include/py_gen.h, "
                      "src/config.h): "
                      "the database reads them in the "
                      "copy and the tree's own files in the tree, which is "
                      "unchanged", db.notes)
        self.assertIn("CMake's configure rewrote 1 of the tree's files in "
                      "its copy (version.h): the database reads the tree's "
                      "own, as they are", db.notes)
        self.assertFalse(any("wrote into the project's tree" in n
                             for n in db.notes), db.notes)
        entry = next(e for e in db.entries if e["file"].endswith("a.cpp"))
        args = shlex.split(entry["command"])  # CMake's form, kept
        self.assertIn(f"-I{os.path.join(repo, 'common', 'inc')}", args)
        # The copy's folders with made files are named by their views of
        # the made files alone (tree.made), after the tree's own: nothing
        # names the copy itself, so no header of the tree is reached twice.
        view = os.path.join(project, ".torch-tidy", "configure",
                            "tree.made") + repo
        real_inc = args.index(f"-I{os.path.join(project, 'include')}")
        self.assertEqual(args[real_inc + 1],
                         f"-I{os.path.join(view, 'proj', 'include')}")
        self.assertEqual(args[1:3],
                         ["-iquote", os.path.join(view, "proj", "src")])
        self.assertNotIn(copy + os.sep, " ".join(args))
        # The mapped command compiles (the tree's a.cpp, the made headers).
        cmd = [CXX] + [a for a in args[1:]
                       if a not in ("-o", "-c") and not a.endswith(".o")]
        res = subprocess.run(cmd + ["-fsyntax-only"], cwd=entry["directory"],
                             capture_output=True, text=True)
        self.assertEqual(res.returncode, 0, res.stderr)

    @unittest.skipIf(not (REAL_CMAKE and CXX), "no cmake or C++ compiler")
    @needs_setuptools
    def test_scikit_build_style_backend(self):
        write(os.path.join(self.project, "pyproject.toml"), """\
            [build-system]
            requires = ["scikit-build-core"]
            build-backend = "mybackend"
            backend-path = ["_build"]

            [tool.scikit-build]
            cmake.source-dir = "native"
            cmake.define.FROM_TOML = "yes"
            """)
        write(os.path.join(self.project, "_build", "mybackend.py"), """\
            import os, subprocess
            def build_wheel(wheel_directory, config_settings=None,
                            metadata_directory=None):
                subprocess.check_call(["cmake", "-S", "native", "-B",
                                       config_settings["build-dir"],
                                       "-DMODE=computed"])
            """)
        write(os.path.join(self.project, "native", "CMakeLists.txt"), """\
            cmake_minimum_required(VERSION 3.18)
            project(native CXX)
            add_library(native STATIC k.cpp)
            target_compile_definitions(native PRIVATE MODE_${MODE})
            """)
        write(os.path.join(self.project, "native", "k.cpp"))
        db = obtain(context(self.project, python=PYTHON, torch=self.torch,
                            cmake=REAL_CMAKE))
        self.assertEqual(db.how, "cmake", db.notes)
        self.assertEqual(db.cmake_source, os.path.join(self.project,
                                                       "native"))
        self.assertEqual(len(db.entries), 1)
        self.assertIn("-DMODE_computed", db.entries[0]["command"])
        self.assertIn("made by CMake configure of native", db.origin)


if __name__ == "__main__":
    unittest.main()
