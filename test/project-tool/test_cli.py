#!/usr/bin/env python3
"""Unit tests of torch_tidy_project.cli: torch-tidy-project's command line,
the project root, and the runs that stop before linting (exit 2)."""
import io
import json
import os
import stat
import tempfile
import unittest
from contextlib import redirect_stderr, redirect_stdout

from support import write
from torch_tidy_project import cli


def parse(*argv):
    return cli.parse_args(list(argv))


class ParseArgsTest(unittest.TestCase):
    def refused(self, *argv):
        err = io.StringIO()
        with redirect_stderr(err):
            with self.assertRaises(SystemExit) as c:
                parse(*argv)
        self.assertEqual(c.exception.code, 2, argv)
        return err.getvalue()

    def test_defaults(self):
        a = parse()
        self.assertEqual(a.fail_on, {"warnings", "coverage"})
        self.assertEqual(a.min_coverage, 0.9)
        self.assertEqual(a.project, ".")
        self.assertEqual(a.database, "auto")
        self.assertEqual(a.checks, "-*,torch-*")
        self.assertEqual(a.defines, {})
        self.assertIsNone(a.python)
        self.assertGreaterEqual(a.jobs, 1)
        self.assertTrue(a.pattern.search("anything"))
        self.assertEqual(a.environ.get("PATH"), os.environ.get("PATH"))

    def test_fail_on_lists(self):
        self.assertEqual(parse("--fail-on", "warnings").fail_on,
                         {"warnings"})
        self.assertEqual(parse("--fail-on", " coverage , warnings ").fail_on,
                         {"warnings", "coverage"})
        self.assertEqual(parse("--fail-on", "never").fail_on, {"never"})

    def test_errors_implies_warnings(self):
        self.assertEqual(parse("--fail-on", "errors").fail_on,
                         {"errors", "warnings"})
        self.assertEqual(parse("--fail-on", "errors,coverage").fail_on,
                         {"errors", "warnings", "coverage"})

    def test_bad_fail_on(self):
        for value in ("bogus", "warnings,bogus", "", ",", "never,warnings"):
            said = self.refused("--fail-on", value)
            self.assertIn("--fail-on", said)

    def test_min_coverage_range(self):
        self.assertEqual(parse("--min-coverage", "0").min_coverage, 0)
        self.assertEqual(parse("--min-coverage", "1").min_coverage, 1)
        self.assertEqual(parse("--min-coverage", "0.5").min_coverage, 0.5)
        for value in ("1.5", "-0.1", "90"):
            self.assertIn("--min-coverage", self.refused("--min-coverage",
                                                         value))
        self.refused("--min-coverage", "most")

    def test_defines(self):
        a = parse("-D", "WITH_CUDA:BOOL=ON", "-DLIST=a;b", "-D", "EMPTY=",
                  "-D", "X=1=2")
        self.assertEqual(a.defines, {"WITH_CUDA": "ON", "LIST": "a;b",
                                     "EMPTY": "", "X": "1=2"})
        for bad in ("NOVALUE", "1X=2", "=v", "A B=1"):
            self.assertIn("expected VAR=VALUE", self.refused("-D", bad))

    def test_env(self):
        a = parse("--env", "TT_CLI_A=1", "--env", "TT_CLI_B=x=y")
        self.assertEqual(a.environ["TT_CLI_A"], "1")
        self.assertEqual(a.environ["TT_CLI_B"], "x=y")
        self.assertEqual(a.env, ["TT_CLI_A=1", "TT_CLI_B=x=y"])
        self.assertNotIn("TT_CLI_A", os.environ)
        for bad in ("NOEQUALS", "1A=2"):
            self.assertIn("VAR=VALUE", self.refused("--env", bad))

    def test_jobs_and_regex(self):
        self.assertEqual(parse("-j", "3").jobs, 3)
        self.refused("-j", "0")
        a = parse("csrc/.*\\.cu$")
        self.assertTrue(a.pattern.search("/p/csrc/k.cu"))
        self.assertFalse(a.pattern.search("/p/csrc/k.cpp"))
        self.assertIn("FILE_REGEX", self.refused("("))


def markers_above(path):
    """Whether a folder above path holds a root marker (the test's own
    temporary folder must not sit in a project)."""
    d = os.path.dirname(path)
    while True:
        if any(os.path.exists(os.path.join(d, m))
               for m in (".git", "setup.py", "pyproject.toml")):
            return True
        parent = os.path.dirname(d)
        if parent == d:
            return False
        d = parent


class FindRootTest(unittest.TestCase):
    def setUp(self):
        self._tmp = tempfile.TemporaryDirectory()
        self.d = os.path.realpath(self._tmp.name)
        if markers_above(self.d):
            print(f"SKIPPED FindRootTest: a folder above {self.d} holds "
                  f".git, setup.py or pyproject.toml", flush=True)
            self.skipTest(f"a folder above {self.d} holds .git, setup.py or "
                          f"pyproject.toml")

    def tearDown(self):
        self._tmp.cleanup()

    def mk(self, *parts):
        path = os.path.join(self.d, *parts)
        os.makedirs(path, exist_ok=True)
        return path

    def touch(self, *parts):
        path = os.path.join(self.d, *parts)
        os.makedirs(os.path.dirname(path), exist_ok=True)
        open(path, "w").close()
        return path

    def test_never_the_home_folder(self):
        # A stray ~/pyproject.toml does not make the home the root.
        self.touch("pyproject.toml")
        project = self.mk("work", "proj")
        old = os.environ.get("HOME")
        os.environ["HOME"] = self.d
        try:
            self.assertEqual(cli.find_root(project)[0], project)
        finally:
            if old is None:
                del os.environ["HOME"]
            else:
                os.environ["HOME"] = old

    def test_project_with_a_marker_is_the_root(self):
        for marker in ("setup.py", "pyproject.toml"):
            project = self.mk(marker + "-proj")
            self.mk(marker + "-proj", "csrc")
            self.touch(marker + "-proj", marker)
            self.assertEqual(cli.find_root(project)[0], project)
        git = self.mk("git-proj", ".git")
        self.assertEqual(cli.find_root(os.path.dirname(git))[0],
                         os.path.dirname(git))

    def test_nearest_python_package_above(self):
        repo = self.mk("repo")
        self.mk("repo", ".git")
        self.touch("repo", "python", "pyproject.toml")
        self.touch("repo", "python", "setup.py")
        deep = self.mk("repo", "python", "csrc", "ops")
        self.assertEqual(cli.find_root(deep)[0],
                         os.path.join(repo, "python"))

    def test_git_top_with_setup_py(self):
        repo = self.mk("repo")
        self.mk("repo", ".git")
        self.touch("repo", "setup.py")
        sub = self.mk("repo", "cmake", "native")
        self.assertEqual(cli.find_root(sub)[0], repo)

    def test_not_past_the_git_top(self):
        self.touch("outer", "setup.py")
        self.mk("outer", "repo", ".git")
        sub = self.mk("outer", "repo", "native")
        self.assertEqual(cli.find_root(sub)[0], sub)

    def test_a_formatters_pyproject_does_not_move_the_root(self):
        # A CMake library inside a larger repository whose top
        # pyproject.toml only configures a formatter: the library's folder
        # stays the root, and the summary says why.
        repo = self.mk("repo")
        self.mk("repo", ".git")
        with open(self.touch("repo", "pyproject.toml"), "w") as f:
            f.write("[tool.black]\nline-length = 100\n")
        lib = self.mk("repo", "libs", "ops")
        root, why = cli.find_root(lib)
        self.assertEqual(root, lib)
        self.assertIn(os.path.join(repo, "pyproject.toml") + " declares no [build-system]", why)

    def test_a_pyproject_that_builds_moves_the_root(self):
        self.mk("repo", ".git")
        with open(self.touch("repo", "pkg", "pyproject.toml"), "w") as f:
            f.write("[build-system]\nrequires = ['scikit-build-core']\n"
                    "build-backend = 'scikit_build_core.build'\n")
        deep = self.mk("repo", "pkg", "csrc")
        root, why = cli.find_root(deep)
        self.assertEqual(root, os.path.join(self.d, "repo", "pkg"))
        self.assertIn("repo/pkg/pyproject.toml declares a build", why)

    def test_nothing_anywhere(self):
        project = self.mk("a", "b")
        self.assertEqual(cli.find_root(project)[0], project)


class MainTest(unittest.TestCase):
    def run_main(self, *argv):
        err, out = io.StringIO(), io.StringIO()
        with redirect_stderr(err), redirect_stdout(out):
            code = cli.main(list(argv), here="/nonexistent-here")
        return code, err.getvalue()

    def test_project_not_a_directory(self):
        code, err = self.run_main("-p", "/nonexistent/project/xyz")
        self.assertEqual(code, 2)
        self.assertIn("not a directory", err)
        self.assertTrue(err.startswith("torch-tidy-project: "))

    def test_the_error_is_in_the_json_and_the_sarif(self):
        # CI reads --json and --sarif whatever the exit: a run the project
        # stopped writes both, saying so.
        with tempfile.TemporaryDirectory() as d:
            j, s = os.path.join(d, "r.json"), os.path.join(d, "r.sarif")
            code, err = self.run_main("-p", os.path.join(d, "missing"),
                                      "--json", j, "--sarif", s)
            self.assertEqual(code, 2)
            with open(j) as f, open(s) as g:
                doc, log = json.load(f), json.load(g)
        self.assertEqual(doc["result"]["exit_status"], 2)
        self.assertEqual(doc["result"]["failed_on"], ["error"])
        self.assertIn("not a directory", doc["error"])
        self.assertTrue(doc["result"]["last_line"].startswith(
            "torch-tidy-project: ERROR: "))
        self.assertEqual(doc["options"]["min_coverage"], 0.9)
        inv = log["runs"][0]["invocations"][0]
        self.assertEqual((inv["exitCode"], inv["executionSuccessful"]),
                         (2, False))
        self.assertIn("not a directory",
                      inv["toolExecutionNotifications"][0]["message"]["text"])
        self.assertEqual(log["runs"][0]["results"], [])
        try:
            import jsonschema
        except ImportError:
            print("SKIPPED schema validation of the exit-2 document: no "
                  "jsonschema in this Python")
            return
        schema = json.load(open(os.path.join(
            os.path.dirname(__file__), "..", "..", "docs",
            "torch-tidy-project.schema.json")))
        jsonschema.validate(doc, schema, cls=jsonschema.Draft202012Validator)
        broken = dict(doc)
        del broken["error"]
        with self.assertRaises(jsonschema.ValidationError):
            jsonschema.validate(broken, schema,
                                cls=jsonschema.Draft202012Validator)

    def test_no_torch_tidy(self):
        with tempfile.TemporaryDirectory() as d:
            code, err = self.run_main("-p", d, "--torch-tidy",
                                      os.path.join(d, "missing"))
        self.assertEqual(code, 2)
        self.assertIn("no torch-tidy found", err)

    def test_plain_clang_tidy_refused(self):
        with tempfile.TemporaryDirectory() as d:
            fake = write(os.path.join(d, "clang-tidy"),
                         "#!/bin/sh\necho 'Enabled checks:'\n",
                         mode=stat.S_IRWXU)
            code, err = self.run_main("-p", d, "--torch-tidy", fake)
        self.assertEqual(code, 2)
        self.assertIn("has no torch-tidy checks", err)


class NotAdvisedAgainTest(unittest.TestCase):
    def test_a_given_switch_is_not_advised_again(self):
        from torch_tidy_project import coverage as cov
        switches = [cov.Switch("USE_CPP", "env"), cov.Switch("USE_CUDA", "env"),
                    cov.Switch("2.11", "torch")]
        cli.not_advised_again(switches, ["USE_CPP=1", "OTHER=x"])
        hints = [s.hint() for s in switches]
        self.assertEqual(hints[0], "--env USE_CPP=1 was given and does not "
                         "compile it: another switch of the build does, or "
                         "the build cannot run here")
        self.assertEqual(hints[1], "--env USE_CUDA=1")
        self.assertTrue(hints[2].startswith("needs torch >= 2.11"))

    def test_a_switch_given_another_value_names_it(self):
        # The condition wants DP_VARIANT=cuda; the user gave cpu: the advice
        # stays, with what was given (a name alone is not the switch).
        from torch_tidy_project import coverage as cov
        switches = [cov.Switch("DP_VARIANT", "env", text="--env DP_VARIANT=cuda"),
                    cov.Switch("NO_X", "env", text="--env NO_X set so that `not "
                               "os.getenv('NO_X')` holds (setup.py:3)")]
        cli.not_advised_again(switches, ["DP_VARIANT=cpu", "NO_X=1"])
        self.assertEqual(switches[0].hint(),
                         "--env DP_VARIANT=cuda (given: DP_VARIANT=cpu)")
        self.assertTrue(switches[1].hint().startswith(
            "--env NO_X=1 was given and does not compile it"))


class TrimErrorNotesTest(unittest.TestCase):
    def test_an_errors_notes_past_two_are_counted(self):
        # An overload error lists every candidate (torch-harmonics: 640
        # lines for 4 errors); a warning's notes are the check's, all kept.
        def diag(level, text, line=1):
            return [f"/p/a.cu:{line}:1: {level}: {text}", "  1 | code",
                    "    | ^"]
        lines = (diag("error", "no matching function for call to 'max' "
                      "[clang-diagnostic-error]") +
                 sum((diag("note", f"candidate {i}") for i in range(5)), []) +
                 diag("warning", "in-place write [torch-x]", 9) +
                 sum((diag("note", f"because {i}", 9) for i in range(4)), []))
        out = cli.trim_error_notes(lines)
        text = "\n".join(out)
        for kept in ("candidate 0", "candidate 1", "because 0", "because 3",
                     "in-place write"):
            self.assertIn(kept, text)
        for gone in ("candidate 2", "candidate 4"):
            self.assertNotIn(gone, text)
        self.assertEqual(out.count("  (3 more notes of this error)"), 1)
        self.assertLess(out.index("  (3 more notes of this error)"),
                        out.index("/p/a.cu:9:1: warning: in-place write "
                                  "[torch-x]"))
        self.assertEqual(len(out), len(lines) - 9 + 1)


class MergeErrorTest(unittest.TestCase):
    def test_a_stopped_shard_is_named_and_the_outputs_say_so(self):
        with tempfile.TemporaryDirectory() as d:
            shard = os.path.join(d, "shard.json")
            with open(shard, "w") as f:
                json.dump({"schema": "torch-tidy-project/2",
                           "result": {"exit_status": 2, "failed_on": ["error"],
                                      "last_line": "x"},
                           "error": "no file to lint", "project": d,
                           "root": d, "options": {"checks": "-*,torch-*",
                                                  "fail_on": ["warnings"],
                                                  "min_coverage": 0.9}}, f)
            j, s = os.path.join(d, "m.json"), os.path.join(d, "m.sarif")
            err = io.StringIO()
            with redirect_stderr(err), redirect_stdout(io.StringIO()):
                code = cli.main(["merge", shard, "--json", j, "--sarif", s])
            self.assertEqual(code, 2)
            self.assertIn("stopped with an error: no file to lint",
                          err.getvalue())
            with open(j) as f:
                doc = json.load(f)
            self.assertEqual(doc["result"]["exit_status"], 2)
            self.assertEqual(doc["root"], d)
            with open(s) as f:
                inv = json.load(f)["runs"][0]["invocations"][0]
            self.assertFalse(inv["executionSuccessful"])


if __name__ == "__main__":
    unittest.main()
