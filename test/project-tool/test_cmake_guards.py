#!/usr/bin/env python3
"""Unit tests of torch_tidy_project.cmake_guards: what switches a CMake
project's sources on (the if() branches that name them, through
add_subdirectory), the variables a build backend passes CMake from the
environment (guards.cmake_defines_by_env), and coverage's advice from them
only."""
import os
import tempfile
import textwrap
import unittest

import support  # noqa: F401 (tools/torch-tidy on sys.path)
from support import write
from torch_tidy_project import cmake_guards
from torch_tidy_project import coverage as cov
from torch_tidy_project import guards

# deepmd-kit's shape (bc902daf): the operators' folder is added under an
# option the backend switches on; its CUDA operators under a variable the
# backend passes where DP_VARIANT is "cuda" and one the project's CMake
# computes from torch; an option that only adds a define.
TOP = textwrap.dedent('''
    cmake_minimum_required(VERSION 3.25)
    project(dp)
    option(ENABLE_PYTORCH "Enable PyTorch" OFF)
    option(WITH_TESTS "tests" OFF)
    if(TORCH_CUDA_LIBRARIES)  # computed from torch
      set(HAS_CUDA TRUE)
    else()
      set(HAS_CUDA FALSE)
    endif()
    if(ENABLE_PYTORCH)
      add_subdirectory(op/pt/)
    endif()
    if(WIN32)
      add_library(win MODULE win/only.cpp)
    endif()
    if(BUILD_CPP_IF)  # the backend passes it where a version is given
      add_library(cpp MODULE cpp/api.cpp)
    endif()
    if(NOT Torch_VERSION VERSION_LESS "2.11")
      add_library(new MODULE new/ops.cpp)
    endif()
''')
OPS = textwrap.dedent('''
    file(GLOB OP_SRC comm.cc)
    option(HIGH_LMAX "Instantiate more dpa1 kernels" OFF)
    if(USE_CUDA_TOOLKIT AND HAS_CUDA)
      set(KERNELS dpa1_c8.cu
          dpa1_c16.cu)
      list(APPEND OP_SRC dpa1.cu ${KERNELS})
    elseif(USE_SYCL OR "$ENV{XPU}" STREQUAL "1")
      list(APPEND OP_SRC sycl_ops.cpp)
    else()
      list(APPEND OP_SRC fallback.cpp)
    endif()
    add_library(op_pt MODULE ${OP_SRC})
    if(HIGH_LMAX)
      target_compile_definitions(op_pt PRIVATE HIGH_LMAX=1)
      set_source_files_properties(dpa1.cu PROPERTIES COMPILE_OPTIONS -O3)
    endif()
    if(NOT WITH_TESTS)  # holds unless told otherwise
      list(APPEND OP_SRC notests.cpp)
    endif()
''')
BACKEND = textwrap.dedent('''
    import os

    def get_argument_from_env():
        cmake_args = []
        variant = os.environ.get("DP_VARIANT", "cpu").lower()
        if variant == "cpu":
            pass
        elif variant == "cuda":
            cmake_args.append("-DUSE_CUDA_TOOLKIT:BOOL=TRUE")
            root = os.environ.get("CUDAToolkit_ROOT")
            if root:
                cmake_args.append(f"-DCUDAToolkit_ROOT:STRING={root}")
        if os.environ.get("DP_ENABLE_PYTORCH", "1") == "1":
            cmake_args.extend(["-DENABLE_PYTORCH=ON"])
        else:
            cmake_args.append("-DENABLE_PYTORCH=OFF")
        if os.environ.get("DP_TESTS"):
            cmake_args.append("-DWITH_TESTS=0")
        if os.environ.get("DP_LAMMPS_VERSION", "") != "":
            cmake_args.append("-DBUILD_CPP_IF=TRUE")
        return cmake_args
''')
SOURCES = ("op/pt/comm.cc", "op/pt/dpa1.cu", "op/pt/dpa1_c8.cu",
           "op/pt/dpa1_c16.cu", "op/pt/sycl_ops.cpp", "op/pt/fallback.cpp",
           "op/pt/notests.cpp", "win/only.cpp", "new/ops.cpp",
           "cpp/api.cpp")


def project(d):
    write(os.path.join(d, "CMakeLists.txt"), TOP)
    write(os.path.join(d, "op", "pt", "CMakeLists.txt"), OPS)
    for s in SOURCES:
        write(os.path.join(d, s), "int x;\n")
    return os.path.realpath(d)


class CommandsTest(unittest.TestCase):
    def test_arguments_lines_and_quotes(self):
        text = 'set(A "x (y) z"\n  b)\nif(NOT (A AND B))\nendif()\n'
        self.assertEqual(cmake_guards.commands(text), [
            ("set", ['A', '"x (y) z"', 'b'], 1),
            ("if", ["NOT", "(", "A", "AND", "B", ")"], 3),
            ("endif", [], 4)])


class ReadTest(unittest.TestCase):
    def test_conditions_of_each_source(self):
        with tempfile.TemporaryDirectory() as d:
            root = project(d)
            reading = cmake_guards.read(root)
            levels = {}
            for chain, files in reading.records:
                for f in files:
                    levels[os.path.relpath(f, root)] = [
                        level.args and " ".join(level.args)
                        for level in chain]
            self.assertEqual(levels["op/pt/comm.cc"], ["ENABLE_PYTORCH"])
            self.assertEqual(levels["op/pt/dpa1_c8.cu"], [
                "ENABLE_PYTORCH", "USE_CUDA_TOOLKIT AND HAS_CUDA"])
            self.assertEqual(levels["op/pt/fallback.cpp"],
                             ["ENABLE_PYTORCH", None])   # else()
            self.assertEqual(levels["win/only.cpp"], ["WIN32"])
            self.assertEqual(reading.computed["HAS_CUDA"][1], 7)
            self.assertEqual(reading.options["HIGH_LMAX"], "OFF")


    def test_sources_named_in_a_variable_take_the_conditions_of_its_use(self):
        with tempfile.TemporaryDirectory() as d:
            write(os.path.join(d, "CMakeLists.txt"), '''
                set(CUDA_SOURCES k.cu)
                set(CUDA_SOURCES ${CUDA_SOURCES} l.cu)
                file(GLOB CPU_SOURCES *.cpp)
                add_library(ops SHARED ${CPU_SOURCES})
                if(WITH_CUDA)
                  target_sources(ops PRIVATE ${CUDA_SOURCES})
                endif()
            ''')
            for f in ("k.cu", "l.cu", "a.cpp"):
                write(os.path.join(d, f))
            root = os.path.realpath(d)
            found = {}
            for chain, files in cmake_guards.read(root).records:
                for f in files:
                    found.setdefault(os.path.relpath(f, root), set()).add(
                        " ".join(" ".join(level.args) for level in chain))
            self.assertEqual(found, {"k.cu": {"WITH_CUDA"},
                                     "l.cu": {"WITH_CUDA"}, "a.cpp": {""}})


class RequirementsTest(unittest.TestCase):
    def test_negations_are_kept_in_what_is_named(self):
        reading = cmake_guards.Reading()
        reading.options = {"FAST": "ON"}
        ask = cmake_guards.requirements
        self.assertEqual(ask(["NOT", "EXISTS", "p"], reading),
                         ([], ["NOT EXISTS p"]))
        self.assertEqual(ask(["NOT", "V", "MATCHES", "x"], reading),
                         ([], ["NOT V MATCHES x"]))
        # An option ON unless told otherwise, asked OFF; one OFF already.
        self.assertEqual(ask(["NOT", "FAST", "AND", "NOT", "SLOW"], reading),
                         ([("FAST", "OFF")], []))
        self.assertIsNone(ask(["NOT", "DEFINED", "X"], reading))


class BackendDefinesTest(unittest.TestCase):
    def test_defines_under_environment_conditions(self):
        self.assertEqual(guards.cmake_defines_by_env(BACKEND), {
            "USE_CUDA_TOOLKIT": ("DP_VARIANT", "cuda"),
            "ENABLE_PYTORCH": ("DP_ENABLE_PYTORCH", "1"),
            "BUILD_CPP_IF": ("DP_LAMMPS_VERSION", "1")})
        # A scikit-build-core backend's config setting.
        self.assertEqual(guards.cmake_defines_by_env(textwrap.dedent('''
            import os
            def settings(s):
                if os.environ.get("K", "") == "extra":
                    s["cmake.define.WITH_EXTRA"] = "ON"
                    s["cmake.define.WITH_SLOW"] = "OFF"
                return s
        ''')), {"WITH_EXTRA": ("K", "extra")})
        # Off values, values the script computes and unparsable text.
        self.assertEqual(guards.cmake_defines_by_env("if (:\n"), {})


class SwitchesTest(unittest.TestCase):
    def advice(self, root, built):
        database = {os.path.join(root, f) for f in built}
        switches = cmake_guards.switches(
            cmake_guards.read(root), database,
            guards.cmake_defines_by_env(BACKEND), root)
        wanted = [os.path.join(root, s) for s in SOURCES]
        found = cov.switches_for(
            wanted + [os.path.join(root, "op/pt/high_lmax_extra.cu")],
            # A variable of the backend's that shares words with the files:
            # advice only where the build names no guard of a file.
            switches + [cov.Switch("DP_DPA1_EXTRA", "env")], root)
        return {os.path.relpath(p, root): [s.hint() for s in ss]
                for p, ss in found.items()}

    def test_advice_is_the_branch_that_adds_the_file(self):
        with tempfile.TemporaryDirectory() as d:
            root = project(d)
            advice = self.advice(root, ["op/pt/comm.cc",
                                        "op/pt/fallback.cpp"])
            # ENABLE_PYTORCH held in the analysed build (comm.cc is built):
            # only the condition around the CUDA files is advised, as the
            # backend's variable, with the computed one named.
            self.assertEqual(advice["op/pt/dpa1_c8.cu"], [
                "--env DP_VARIANT=cuda, where HAS_CUDA (set by the project's "
                "CMake, CMakeLists.txt:7) holds too (the build passes "
                "-DUSE_CUDA_TOOLKIT, if() at op/pt/CMakeLists.txt:4)"
            ])
            self.assertEqual(advice["op/pt/dpa1.cu"],
                             advice["op/pt/dpa1_c8.cu"])
            # OR: either alternative; an environment variable CMake reads.
            self.assertEqual(advice["op/pt/sycl_ops.cpp"], [
                "-D USE_SYCL=ON (if() at op/pt/CMakeLists.txt:8)",
                "--env XPU=1 (if() at op/pt/CMakeLists.txt:8)"])
            # A platform is a condition, not a switch.
            self.assertEqual(advice["win/only.cpp"],
                             ["built where WIN32 holds (if() at "
                              "CMakeLists.txt:14)"])
            # A torch version gate, named as setup.py's are.
            self.assertEqual(advice["new/ops.cpp"], [
                "built where torch >= 2.11 (--python with a torch that new) "
                "holds (if() at CMakeLists.txt:20)"])
            # A variable that holds a value: no "--env DP_LAMMPS_VERSION=1".
            self.assertEqual(advice["cpp/api.cpp"], [
                "-D BUILD_CPP_IF=ON (if() at CMakeLists.txt:17)"])
            # The option that only adds a define (and sets a property of a
            # source) is advised for none of them, nor for a file whose name
            # shares its words but that the build does not name.
            self.assertFalse(any("HIGH_LMAX" in h for hs in advice.values()
                                 for h in hs))
            self.assertEqual(advice["op/pt/high_lmax_extra.cu"],
                             ["--env DP_DPA1_EXTRA=1"])
            self.assertNotIn("op/pt/comm.cc", advice)
            self.assertNotIn("op/pt/notests.cpp", advice)

    def test_conditions_that_did_not_hold_are_all_advised(self):
        with tempfile.TemporaryDirectory() as d:
            root = project(d)
            advice = self.advice(root, [])
            self.assertEqual(advice["op/pt/comm.cc"], [
                "--env DP_ENABLE_PYTORCH=1 (the build passes "
                "-DENABLE_PYTORCH, if() at CMakeLists.txt:11)"])
            self.assertTrue(advice["op/pt/dpa1.cu"][0].startswith(
                "--env DP_ENABLE_PYTORCH=1 --env DP_VARIANT=cuda, where "))
            self.assertIn("(the build passes -DENABLE_PYTORCH "
                          "-DUSE_CUDA_TOOLKIT, if()",
                          advice["op/pt/dpa1.cu"][0])
            # An else() branch is named, never guessed.
            self.assertEqual(advice["op/pt/fallback.cpp"], [
                "--env DP_ENABLE_PYTORCH=1 (the build passes "
                "-DENABLE_PYTORCH, in the else() branch at "
                "op/pt/CMakeLists.txt:10)"])

    def test_one_variable_never_two_values(self):
        with tempfile.TemporaryDirectory() as d:
            write(os.path.join(d, "CMakeLists.txt"), textwrap.dedent('''
                if(USE_CUDA_TOOLKIT OR USE_ROCM_TOOLKIT)
                  if(USE_ROCM_TOOLKIT)
                    add_library(g MODULE rocm.cpp)
                  endif()
                endif()
            '''))
            write(os.path.join(d, "rocm.cpp"))
            # FBGEMM's shape: a default the user may override, compared
            # with a variable that names its value.
            write(os.path.join(d, "gen", "CMakeLists.txt"), '''
                set(TARGET_GENAI "genai")
                if(NOT DEFINED BUILD_TARGET)
                  set(BUILD_TARGET "default")
                endif()
                if(BUILD_TARGET STREQUAL TARGET_GENAI)
                  add_library(g MODULE genai.cu)
                endif()
            ''')
            write(os.path.join(d, "gen", "genai.cu"))
            write(os.path.join(d, "sub", "CMakeLists.txt"), '''
                if(NOT DEFINED SKIP_IT)
                  add_library(s MODULE s.cpp)
                else()
                  add_library(t MODULE t.cpp)
                endif()
            ''')
            write(os.path.join(d, "sub", "s.cpp"))
            write(os.path.join(d, "sub", "t.cpp"))
            root = os.path.realpath(d)
            reading = cmake_guards.read(root)
            # Without the backend's variables: the alternative that asks
            # for less, not "-D USE_CUDA_TOOLKIT=ON -D USE_ROCM_TOOLKIT=ON".
            self.assertEqual(
                [s.hint() for s in cmake_guards.switches(reading, set(), {},
                                                         root)][0],
                "-D USE_ROCM_TOOLKIT=ON (if() at CMakeLists.txt:3)")
            switches = cmake_guards.switches(
                reading, set(),
                {"USE_CUDA_TOOLKIT": ("V", "cuda"),
                 "USE_ROCM_TOOLKIT": ("V", "rocm")}, root)
            self.assertEqual([s.hint() for s in switches], [
                "--env V=rocm (the build passes -DUSE_ROCM_TOOLKIT, "
                "if() at CMakeLists.txt:3)",
                "-D BUILD_TARGET=genai (if() at gen/CMakeLists.txt:6)",
                # A condition this reading cannot turn into a switch.
                "built where the condition at sub/CMakeLists.txt:2 holds",
                "built in the else() branch at sub/CMakeLists.txt:4"])


if __name__ == "__main__":
    unittest.main()
