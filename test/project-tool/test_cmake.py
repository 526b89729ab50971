#!/usr/bin/env python3
"""Unit tests of torch_tidy_project.cmake: versions, the cmake to use, why a
configure failed, torch-tidy's stand-in for torch's CMake package, a
configure that needs it (with a real cmake, where there is one) and the
database made from a CMake project's sources."""
import os
import shutil
import stat
import tempfile
import unittest

from support import fake_torch, write
from torch_tidy_project import cmake
from torch_tidy_project.common import ProjectError

REAL_CMAKE = shutil.which("cmake")
CXX = shutil.which("c++") or shutil.which("g++") or shutil.which("clang++")


class VersionTest(unittest.TestCase):
    def test_parse_version(self):
        self.assertEqual(cmake.parse_version("3.25.2"), (3, 25, 2))
        self.assertEqual(cmake.parse_version("3.18"), (3, 18, 0))
        self.assertEqual(cmake.parse_version(" 4"), (4, 0, 0))
        self.assertEqual(cmake.parse_version("3.18...3.27"), (3, 18, 0))
        self.assertIsNone(cmake.parse_version("x3"))
        self.assertIsNone(cmake.parse_version(""))
        self.assertIsNone(cmake.parse_version(None))
        self.assertEqual(cmake.show((3, 18, 0)), "3.18.0")

    def test_required_version(self):
        with tempfile.TemporaryDirectory() as d:
            self.assertIsNone(cmake.required_version(d))
            self.assertIsNone(cmake.required_version(d, "==3.20"))
            write(os.path.join(d, "CMakeLists.txt"),
                  "CMAKE_MINIMUM_REQUIRED( VERSION 3.18...3.30)\n"
                  "project(x)\n")
            v, where = cmake.required_version(d)
            self.assertEqual(v, (3, 18, 0))
            self.assertIn("cmake_minimum_required", where)
            v, where = cmake.required_version(d, ">=3.25.2")
            self.assertEqual(v, (3, 25, 2))
            self.assertEqual(where, "pyproject.toml (cmake.version >=3.25.2)")
            v, where = cmake.required_version(d, ">=3.10")
            self.assertEqual(v, (3, 18, 0))
            self.assertIn("CMakeLists.txt", where)

    def test_version_of(self):
        with tempfile.TemporaryDirectory() as d:
            fake = write(os.path.join(d, "cmake"),
                         "#!/bin/sh\necho 'cmake version 3.10.0'\n",
                         stat.S_IRWXU)
            silent = write(os.path.join(d, "silent"), "#!/bin/sh\n",
                           stat.S_IRWXU)
            self.assertEqual(cmake.version_of(fake), (3, 10, 0))
            self.assertIsNone(cmake.version_of(silent))
            self.assertIsNone(cmake.version_of(os.path.join(d, "none")))


class FindCmakeTest(unittest.TestCase):
    def test_too_old_explicit_cmake(self):
        with tempfile.TemporaryDirectory() as d:
            fake = write(os.path.join(d, "cmake"),
                         "#!/bin/sh\necho 'cmake version 3.10.0'\n",
                         stat.S_IRWXU)
            with self.assertRaises(ProjectError) as c:
                cmake.find_cmake(fake, None, ((3, 18, 0),
                                              "CMakeLists.txt "
                                              "(cmake_minimum_required)"))
            said = str(c.exception)
            self.assertIn("3.18", said)
            self.assertIn("3.10.0", said)
            self.assertIn("--cmake", said)
            self.assertIn("CMakeLists.txt (cmake_minimum_required)", said)
            self.assertEqual(cmake.find_cmake(fake, None, ((3, 5, 0), "x")),
                             (fake, (3, 10, 0)))
            self.assertEqual(cmake.find_cmake(fake, None, None),
                             (fake, (3, 10, 0)))

    def test_explicit_that_does_not_run(self):
        with tempfile.TemporaryDirectory() as d:
            plain = write(os.path.join(d, "cmake"), "not a program")
            with self.assertRaises(ProjectError) as c:
                cmake.find_cmake(plain, None, None)
        self.assertIn("--cmake", str(c.exception))
        self.assertIn("not a cmake that runs", str(c.exception))

    def test_cmake_beside_the_python(self):
        with tempfile.TemporaryDirectory() as d:
            python = write(os.path.join(d, "bin", "python"), "#!/bin/sh\n",
                           stat.S_IRWXU)
            beside = write(os.path.join(d, "bin", "cmake"),
                           "#!/bin/sh\necho 'cmake version 99.1.0'\n",
                           stat.S_IRWXU)
            path, version = cmake.find_cmake(None, python, ((99, 0, 0), "x"))
        self.assertEqual((path, version), (beside, (99, 1, 0)))

    def test_cmake_beside_the_python_the_build_environment_came_from(self):
        # The build runs in an isolated environment made from --python; a
        # cmake pip put beside --python is found (deepmd-kit: the hint said
        # so, and it was not).
        with tempfile.TemporaryDirectory() as d:
            isolated = write(os.path.join(d, "env", "bin", "python"),
                             "#!/bin/sh\n", stat.S_IRWXU)
            given = write(os.path.join(d, "venv", "bin", "python"),
                          "#!/bin/sh\n", stat.S_IRWXU)
            beside = write(os.path.join(d, "venv", "bin", "cmake"),
                           "#!/bin/sh\necho 'cmake version 99.1.0'\n",
                           stat.S_IRWXU)
            path, version = cmake.find_cmake(None, [isolated, given],
                                             ((99, 0, 0), "x"))
        self.assertEqual((path, version), (beside, (99, 1, 0)))


MISSING_CONFIG = """\
-- The CXX compiler identification is GNU 12.2.0
CMake Error at CMakeLists.txt:5 (find_package):
  By not providing "FindFFmpeg.cmake" in CMAKE_MODULE_PATH this project has
  asked CMake to find a package configuration file provided by "FFmpeg", but
  CMake did not find one.

  Could not find a package configuration file provided by "FFmpeg" with any
  of the following names:

    FFmpegConfig.cmake
    ffmpeg-config.cmake

-- Configuring incomplete, errors occurred!
"""

MISSING_MODULE = """\
CMake Error at /usr/share/cmake-3.25/Modules/FindPackageHandleStandardArgs.cmake:230 (message):
  Could NOT find ZLIB (missing: ZLIB_LIBRARY ZLIB_INCLUDE_DIR)
Call Stack (most recent call first):
  CMakeLists.txt:4 (find_package)
"""

MISSING_PKGCONFIG = """\
-- Checking for modules 'libavcodec;libavformat'
--   No package 'libavcodec' found
--   No package 'libavformat' found
CMake Error at /usr/share/cmake-3.25/Modules/FindPkgConfig.cmake:607 (message):
  A required package was not found
"""

ERROR_AT = """\
-- The CXX compiler identification is GNU 12.2.0
CMake Error at src/CMakeLists.txt:12 (message):
  Something went wrong here
  on two lines


-- Configuring incomplete, errors occurred!
"""

SUBMODULE = """\
CMake Error at CMakeLists.txt:20 (add_subdirectory):
  The source directory

    {project}/third_party/cutlass

  does not contain a CMakeLists.txt file.


-- Configuring incomplete, errors occurred!
"""


class ConfigureFailureTest(unittest.TestCase):
    def test_missing_config_package_with_debian_name(self):
        kind, said = cmake.configure_failure(MISSING_CONFIG)
        self.assertEqual(kind, "package")
        self.assertIn("a package is missing: FFmpeg", said)
        self.assertIn("apt-get install libavcodec-dev", said)

    def test_missing_find_module_package(self):
        kind, said = cmake.configure_failure(MISSING_MODULE)
        self.assertEqual(kind, "package")
        self.assertEqual(said, "a package is missing: ZLIB (Debian: apt-get "
                               "install zlib1g-dev)")

    def test_missing_pkg_config_modules(self):
        kind, said = cmake.configure_failure(MISSING_PKGCONFIG)
        self.assertEqual(kind, "package")
        self.assertIn("packages are missing: libavcodec, libavformat", said)
        self.assertIn("libavcodec-dev libavformat-dev", said)

    def test_unknown_package_named_as_cmake_names_it(self):
        kind, said = cmake.configure_failure(
            'CMake Error at CMakeLists.txt:3 (find_package):\n'
            '  Could not find a package configuration file provided by\n'
            '  "NoSuchThing" with any of the following names:\n')
        self.assertEqual((kind, said),
                         ("package", "a package is missing: NoSuchThing"))

    def test_optional_package_warning_is_not_the_cause(self):
        # The same words in a CMake Warning (an optional find_package) do
        # not hide the real error.
        kind, said = cmake.configure_failure(
            'CMake Warning at CMakeLists.txt:3 (find_package):\n'
            '  Could not find a package configuration file provided by\n'
            '  "Optional" with any of the following names:\n\n'
            'CMake Error at CMakeLists.txt:9 (message):\n'
            '  the real reason\n')
        self.assertEqual((kind, said), ("other", "CMake error at "
                                        "CMakeLists.txt:9: the real reason"))

    def test_cmake_error_at_file_line(self):
        kind, said = cmake.configure_failure(ERROR_AT)
        self.assertEqual(kind, "other")
        self.assertEqual(said, "CMake error at src/CMakeLists.txt:12: "
                               "Something went wrong here on two lines")

    def test_empty_git_submodule(self):
        with tempfile.TemporaryDirectory() as project:
            write(os.path.join(project, ".gitmodules"),
                  '[submodule "cutlass"]\n'
                  '\tpath = third_party/cutlass\n'
                  '\turl = https://example.invalid/cutlass.git\n')
            os.makedirs(os.path.join(project, "third_party", "cutlass"))
            log = SUBMODULE.format(project=project)
            kind, said = cmake.configure_failure(log, project)
            self.assertEqual(kind, "submodule")
            self.assertIn("third_party/cutlass is an empty git submodule",
                          said)
            self.assertIn("git submodule update --init", said)
            # Without the project, or with the submodule checked out, it is
            # an ordinary error.
            self.assertEqual(cmake.configure_failure(log)[0], "other")
            write(os.path.join(project, "third_party", "cutlass",
                               "CMakeLists.txt"))
            self.assertEqual(cmake.configure_failure(log, project)[0],
                             "other")

    # Regression (cmake.configure_failure): "-- Could NOT find X" is also the
    # status line of an optional find_package() that did not find X; taken for
    # the cause, it hides the real CMake error (and makes configure() give up
    # before torch-tidy's stand-in for torch's package is tried).
    def test_optional_package_status_line_is_not_the_cause(self):
        log = ("-- Could NOT find OpenMP_CXX (missing: OpenMP_CXX_FLAGS "
               "OpenMP_CXX_LIB_NAMES)\n" + ERROR_AT)
        self.assertEqual(cmake.configure_failure(log),
                         ("other", "CMake error at src/CMakeLists.txt:12: "
                                   "Something went wrong here on two lines"))

    def test_an_unset_variable_the_project_runs(self):
        # A project that runs its own Python variable to find torch: the
        # message names the variable and the -D that sets it.
        with tempfile.TemporaryDirectory() as d:
            lists = write(os.path.join(d, "CMakeLists.txt"),
                          "project(x)\n"
                          "execute_process(\n"
                          "  COMMAND ${PYTHON_INTERP} -c \"import torch\"\n"
                          "  OUTPUT_VARIABLE TORCH_DIR)\n")
            log = (f"CMake Error at {lists}:2 (execute_process):\n"
                   f"  execute_process given COMMAND argument with no value.\n\n")
            kind, said = cmake.configure_failure(log, d)
        self.assertEqual(kind, "variable")
        self.assertIn("CMakeLists.txt:2: execute_process runs ${PYTHON_INTERP}",
                      said)
        self.assertIn("-D PYTHON_INTERP=PATH", said)

    def test_a_download(self):
        log = ("-- Populating googletest\n"
               "fatal: unable to access 'https://github.com/google/googletest/'"
               ": Could not resolve host: github.com\n"
               "CMake Error at googletest-subbuild/googletest-populate-prefix/"
               "tmp/googletest-populate-gitclone.cmake:31 (message):\n"
               "  Failed to clone repository: 'https://github.com/google/"
               "googletest'\n\n"
               "CMake Error at /usr/share/cmake-3.25/Modules/FetchContent.cmake:"
               "1624 (message):\n  Build step for googletest failed: 2\n\n")
        kind, said = cmake.configure_failure(log)
        self.assertEqual(kind, "download")
        self.assertIn("downloads googletest (FetchContent or ExternalProject)",
                      said)
        self.assertIn("-D FETCHCONTENT_SOURCE_DIR_GOOGLETEST=PATH", said)

    def test_no_error_block(self):
        self.assertEqual(cmake.configure_failure("a\nlast words\n\n"),
                         ("other", "last words"))
        self.assertEqual(cmake.configure_failure(""), ("other", "no output"))


class TorchStandInTest(unittest.TestCase):
    def test_contents(self):
        with tempfile.TemporaryDirectory() as d:
            torch = fake_torch(d, "2.8.0+cpu")
            out = cmake.torch_stand_in(os.path.join(d, "stand-in"), torch)
            self.assertEqual(out, os.path.join(d, "stand-in"))
            with open(os.path.join(out, "TorchConfig.cmake")) as f:
                config = f.read()
            with open(os.path.join(out, "TorchConfigVersion.cmake")) as f:
                version = f.read()
        self.assertIn("torch 2.8.0+cpu", config)
        self.assertIn(f'set(TORCH_INSTALL_PREFIX "{torch["torch_dir"]}")',
                      config)
        self.assertIn('set(TORCH_INCLUDE_DIRS "' +
                      ";".join(torch["include_paths"]) + '")', config)
        self.assertIn('set(TORCH_CXX_FLAGS "-D_GLIBCXX_USE_CXX11_ABI=1")',
                      config)
        self.assertIn("add_library(${_t} INTERFACE IMPORTED)", config)
        self.assertIn("set(Torch_FOUND TRUE)", config)
        self.assertNotIn("{{", config)
        self.assertIn('set(PACKAGE_VERSION "2.8.0")', version)
        self.assertIn("PACKAGE_VERSION_COMPATIBLE TRUE", version)


@unittest.skipIf(not REAL_CMAKE, "no cmake on PATH")
class ConfigureTest(unittest.TestCase):
    def setUp(self):
        self._tmp = tempfile.TemporaryDirectory()
        self.d = os.path.realpath(self._tmp.name)
        self.torch = fake_torch(self.d)
        write(os.path.join(self.torch["cmake_prefix_path"], "Torch",
                           "TorchConfig.cmake"),
              'message(FATAL_ERROR "Your installed Caffe2 version uses CUDA '
              'but I cannot find the CUDA libraries. Please set the proper '
              'CUDA prefixes and / or install CUDA.")\n')
        self.source = os.path.join(self.d, "proj")
        self.build = os.path.join(self.source, ".torch-tidy", "cmake-build")

    def tearDown(self):
        self._tmp.cleanup()

    def configure(self, defines=None):
        return cmake.configure(REAL_CMAKE, self.source, self.build,
                               self.torch, defines or {}, [],
                               dict(os.environ), self.source)

    @unittest.skipIf(not CXX, "no C++ compiler")
    def test_stand_in_when_torch_package_fails(self):
        write(os.path.join(self.source, "CMakeLists.txt"), """\
            cmake_minimum_required(VERSION 3.18)
            project(tiny CXX)
            find_package(Torch REQUIRED)
            add_library(tiny STATIC src/a.cpp)
            target_link_libraries(tiny PRIVATE ${TORCH_LIBRARIES})
            target_compile_definitions(tiny PRIVATE MODE=${MODE})
            """)
        write(os.path.join(self.source, "src", "a.cpp"), "int a;\n")
        # The build's Torch_DIR and its generator's make program (scikit-
        # build's ninja, here one that is not there) are not taken.
        done = self.configure({"MODE": "fast", "Torch_DIR": "/elsewhere",
                               "CMAKE_MAKE_PROGRAM": "/nonexistent/ninja"})
        self.assertIsNotNone(done.directory, done.notes)
        self.assertEqual(done.directory, self.build)
        self.assertIn("stand-in", done.how)
        db = os.path.join(self.build, "compile_commands.json")
        self.assertTrue(os.path.isfile(db))
        with open(db) as f:
            text = f.read()
        self.assertIn("a.cpp", text)
        self.assertIn("-DMODE=fast", text)
        self.assertIn("-D_GLIBCXX_USE_CXX11_ABI=1", text)
        self.assertIn(self.torch["include_paths"][0], text)
        self.assertTrue(any("Caffe2" in n for n in done.notes), done.notes)
        self.assertTrue(any("stand-in" in n for n in done.notes), done.notes)
        self.assertTrue(os.path.isfile(os.path.join(
            self.source, ".torch-tidy", "torch-stand-in",
            "TorchConfig.cmake")))
        self.assertTrue(os.path.isfile(os.path.join(
            self.build, "torch-tidy-configure.log")))

    # A download the configure cannot make (openequivariance's FetchContent
    # of LibTorch) is the project's: said once, with no stand-in retry that
    # fails the same way.
    @unittest.skipIf(not CXX, "no C++ compiler")
    def test_no_stand_in_retry_for_a_download(self):
        write(os.path.join(self.source, "CMakeLists.txt"), """\
            cmake_minimum_required(VERSION 3.18)
            project(tiny CXX)
            include(FetchContent)
            set(FETCHCONTENT_FULLY_DISCONNECTED OFF)
            FetchContent_Declare(libx URL file:///nonexistent/libx.zip)
            FetchContent_MakeAvailable(libx)
            """)
        done = self.configure()
        self.assertIsNone(done.directory, done.notes)
        self.assertEqual(len(done.notes), 1, done.notes)
        self.assertIn("(FetchContent or ExternalProject)", done.notes[0])
        self.assertFalse(os.path.exists(os.path.join(
            self.build, "torch-tidy-configure-stand-in.log")))

    # Issue 80: a project's own check of an option combination ("Use of
    # 'X' requires 'Y'", a preset's constraint) is said with the options it
    # names, the value given to each or its default.
    @unittest.skipIf(not CXX, "no C++ compiler")
    def test_a_preset_constraint_names_its_options(self):
        write(os.path.join(self.source, "CMakeLists.txt"), """\
            cmake_minimum_required(VERSION 3.18)
            project(tiny CXX)
            option(USE_FLASH "flash kernels" OFF)
            option(USE_CUTLASS "CUTLASS" OFF)
            if(USE_FLASH AND NOT USE_CUTLASS)
              message(FATAL_ERROR "Use of 'USE_FLASH' requires 'USE_CUTLASS'")
            endif()
            """)
        done = self.configure({"USE_FLASH": "ON"})
        self.assertIsNone(done.directory, done.notes)
        said = " ".join(done.notes)
        self.assertIn("Use of 'USE_FLASH' requires 'USE_CUTLASS'", said)
        self.assertIn("the options it names: USE_FLASH=ON (given), "
                      "USE_CUTLASS not given (default OFF)", said)

    # Regression (cmake.configure via configure_failure): torch's package
    # without CUDA prints FindCUDA's status line "-- Could NOT find CUDA
    # (...)" before its fatal error; the failure is classed 'package' and
    # configure() raises instead of trying the stand-in (which is there for "a
    # CUDA the project does not need").
    @unittest.skipIf(not CXX, "no C++ compiler")
    def test_stand_in_when_torch_package_misses_cuda(self):
        write(os.path.join(self.torch["cmake_prefix_path"], "Torch",
                           "TorchConfig.cmake"),
              'message(STATUS "Could NOT find CUDA (missing: '
              'CUDA_TOOLKIT_ROOT_DIR CUDA_NVCC_EXECUTABLE CUDA_INCLUDE_DIRS '
              'CUDA_CUDART_LIBRARY)")\n'
              'message(WARNING "Caffe2: CUDA cannot be found.")\n'
              'message(FATAL_ERROR "Your installed Caffe2 version uses CUDA '
              'but I cannot find the CUDA libraries. Please set the proper '
              'CUDA prefixes and / or install CUDA.")\n')
        write(os.path.join(self.source, "CMakeLists.txt"), """\
            cmake_minimum_required(VERSION 3.18)
            project(tiny CXX)
            find_package(Torch REQUIRED)
            add_library(tiny STATIC a.cpp)
            """)
        write(os.path.join(self.source, "a.cpp"), "int a;\n")
        done = self.configure()
        self.assertEqual(done.how, "CMake configure, torch stand-in")

    def test_missing_package_is_an_error(self):
        write(os.path.join(self.source, "CMakeLists.txt"), """\
            cmake_minimum_required(VERSION 3.18)
            project(tiny NONE)
            find_package(NoSuchPackageXyz REQUIRED)
            """)
        with self.assertRaises(ProjectError) as c:
            self.configure()
        self.assertIn("a package is missing: NoSuchPackageXyz",
                      str(c.exception))

    def test_failure_both_ways_leaves_it_to_the_caller(self):
        write(os.path.join(self.source, "CMakeLists.txt"), """\
            cmake_minimum_required(VERSION 3.18)
            project(tiny NONE)
            message(FATAL_ERROR "this project never configures")
            """)
        done = self.configure()
        self.assertIsNone(done.directory)
        self.assertIsNone(done.how)
        self.assertEqual(len(done.notes), 2)
        self.assertIn("this project never configures", done.notes[1])


class SourcesDatabaseTest(unittest.TestCase):
    def test_sources_includes_and_definitions(self):
        with tempfile.TemporaryDirectory() as tmp:
            d = os.path.realpath(tmp)
            torch = fake_torch(d)
            source = os.path.join(d, "proj")
            write(os.path.join(source, "CMakeLists.txt"), """\
                cmake_minimum_required(VERSION 3.18)
                project(mylib CXX)
                include_directories(${CMAKE_CURRENT_SOURCE_DIR}/inc)
                add_definitions(-DFOO)
                add_compile_definitions(LEVEL=2 $<$<CONFIG:Debug>:DBG>)
                add_subdirectory(third_party/dep)
                add_subdirectory(src)
                """)
            write(os.path.join(source, "src", "CMakeLists.txt"), """\
                set(GEN_DIR ${CMAKE_CURRENT_SOURCE_DIR}/gen)
                add_library(mylib a.cpp b.cc)
                target_include_directories(mylib PRIVATE ${GEN_DIR})
                target_compile_definitions(mylib PUBLIC WITH_B # fix path
                  PRIVATE "QUOTED#1") # add_definitions(-DCOMMENTED)
                #[[ add_definitions(-DBRACKETED) ]]
                """)
            write(os.path.join(source, "inc", "mylib.h"))
            write(os.path.join(source, "src", "gen", "g.h"))
            write(os.path.join(source, "src", "a.cpp"))
            write(os.path.join(source, "src", "b.cc"))
            write(os.path.join(source, "third_party", "dep",
                               "CMakeLists.txt"), "add_definitions(-DDEP)\n"
                  "include_directories(${CMAKE_CURRENT_SOURCE_DIR})\n")
            write(os.path.join(source, "third_party", "dep", "x.cpp"))
            write(os.path.join(source, "tests", "t.cpp"))
            write(os.path.join(source, "build", "gen.cpp"))
            items, said = cmake.sources_database(
                source, torch, os.path.join(d, "shim"))
        files = [e["file"] for e in items]
        self.assertEqual(files, [os.path.join(source, "src", "a.cpp"),
                                 os.path.join(source, "src", "b.cc")])
        args = items[0]["arguments"]
        self.assertIn(f"-I{source}", args)
        self.assertIn(f"-I{os.path.join(source, 'inc')}", args)
        self.assertIn(f"-I{os.path.join(source, 'src', 'gen')}", args)
        self.assertNotIn(f"-I{os.path.join(source, 'third_party', 'dep')}",
                         args)
        for define in ("-DFOO", "-DLEVEL=2", "-DWITH_B",
                       "-DTORCH_EXTENSION_NAME=mylib"):
            self.assertIn(define, args)
        self.assertNotIn("-DDEP", args)
        # Comments define nothing (deepmd-kit's `PRIVATE "LMPPLUGIN" # fix
        # header path` gave -Dfix -Dheader -Dpath, and no file parsed).
        for word in ("fix", "path", "COMMENTED", "BRACKETED"):
            self.assertFalse([a for a in args if word in a], word)
        self.assertFalse(any("CONFIG" in a for a in args))
        self.assertIn("2 files", said)
        self.assertIn("3 include directories", said)
        self.assertIn("3 definitions", said)
        self.assertIn("2 CMakeLists.txt files", said)

    def test_cu_files_left_out_without_toolkit(self):
        with tempfile.TemporaryDirectory() as tmp:
            d = os.path.realpath(tmp)
            source = os.path.join(d, "proj")
            write(os.path.join(source, "CMakeLists.txt"), "project(p)\n")
            write(os.path.join(source, "a.cpp"))
            write(os.path.join(source, "k.cu"))
            items, said = cmake.sources_database(
                source, fake_torch(d), os.path.join(d, "shim"),
                cuda_path=os.path.join(d, "nocuda"))
        self.assertEqual([os.path.basename(e["file"]) for e in items],
                         ["a.cpp"])
        self.assertIn("1 .cu files left out (no CUDA toolkit)", said)

    def test_cmake_directories_leave_out_third_party(self):
        with tempfile.TemporaryDirectory() as d:
            for sub in ("", "lib", "third_party/x", "3rdparty/y", "external",
                        "tests", "build-release", ".git", "examples"):
                write(os.path.join(d, sub, "CMakeLists.txt"), sub)
            found = cmake.cmake_directories(d)
        self.assertEqual(sorted(os.path.relpath(p, d) for p in found),
                         ["CMakeLists.txt", "lib/CMakeLists.txt"])


if __name__ == "__main__":
    unittest.main()
