#!/usr/bin/env python3
"""Unit tests of torch_tidy_project.report: the consequence class a
message states, a finding of the JSON document, the coverage line, the
verdict (exit status and last line) and the printed summary."""
import io
import os
import tempfile
import unittest
from collections import Counter
from contextlib import redirect_stdout

import support  # noqa: F401 (tools/torch-tidy on sys.path)
from torch_tidy_project import coverage as cov
from torch_tidy_project import report

FAIL_ON = {"warnings", "coverage"}


def coverage(share=1.0, kernels=(4, 4), files=(2, 2), by_operator=None):
    ops = by_operator or {}
    return {"share": share,
            "kernels": {"total": kernels[0], "analysed": kernels[1]},
            "files": {"linted": files[0], "parsed": files[1],
                      "not_in_database": []},
            "operators": {"total": len(ops),
                          "with_cpp_kernels": sum(
                              1 for o in ops.values()
                              if o["status"] != cov.NO_KERNEL),
                          "analysed": sum(1 for o in ops.values()
                                          if o["analysed"])},
            "by_operator": ops}


def low_coverage():
    """Half the kernels seen: my::a analysed, my::b left out by a switch,
    my::c not in the database, my::d no C++ kernel."""
    ops = {
        "my::a": {"analysed": True, "status": "analysed",
                  "kernels": [{"key": "CPU", "analysed": True,
                               "files": ["a.cpp"]}]},
        "my::b": {"analysed": False, "status": "not analysed",
                  "kernels": [{"key": "CUDA", "analysed": False,
                               "files": ["cuda/b.cu"], "why": cov.LEFT_OUT,
                               "bring_in": "cuda/b.cu: --env WITH_CUDA=1"}]},
        "my::c": {"analysed": False, "status": "not analysed",
                  "kernels": [{"key": "CPU", "analysed": False,
                               "files": ["c.cpp"],
                               "why": cov.NOT_IN_DATABASE,
                               "bring_in": "c.cpp: a build that compiles "
                                           "the file (or --database with "
                                           "one that lists it)"}]},
        "my::d": {"analysed": False, "status": cov.NO_KERNEL, "kernels": []},
    }
    return coverage(1 / 3, (3, 1), (1, 1), ops)


class FindingClassTest(unittest.TestCase):
    def test_classes(self):
        cases = {
            "x keeps requires_grad (silent)": "silent",
            "data-dependent branch (graph break: item())": "graph break",
            "(graph break) at the call": "graph break",
            "raises at run time (loud)": "loud",
            "the value is baked in (traced)": "traced",
            "(unknown: opaque call)": "unknown",
            "the out tensor keeps reading requires_grad() == false after "
            "the write": "stale requires_grad",
            "torch.compile loses requires_grad after such writes":
            "stale requires_grad",
            "the kernel returns a view of argument 'out'": None,
            "a plain message": None,
            "(silently) wrong": None,
            "(quiet)": None,
        }
        for message, cls in cases.items():
            self.assertEqual(report.finding_class(message), cls, message)


class FindingTest(unittest.TestCase):
    def test_finding_with_fix(self):
        with tempfile.TemporaryDirectory() as d:
            src = os.path.join(d, "src", "a.cpp")
            os.makedirs(os.path.dirname(src))
            with open(src, "w") as f:
                f.write("int a;\nint b = x;\n")
            diag = {"check": "torch-x", "level": "warning", "file": src,
                    "line": 2, "column": 9, "message": "bad (loud)",
                    "notes": [{"file": src, "line": 1, "column": 1,
                               "message": "declared here"},
                              {"file": src, "line": 2, "column": 9,
                               "message": "rule: use-y"}]}
            reps = [{"file": src, "offset": 15, "length": 1, "text": "y"}]
            f = report.finding(diag, d, reps, {})
            none = report.finding(diag, d, None, {})
        self.assertEqual(f["file"], "src/a.cpp")
        self.assertEqual(f["class"], "loud")
        self.assertEqual(f["notes"][0], {"file": "src/a.cpp", "line": 1,
                                         "column": 1,
                                         "message": "declared here"})
        self.assertEqual(f["fix"], {"rule": "use-y", "replacements": [
            {"file": "src/a.cpp", "offset": 15, "length": 1, "line": 2,
             "column": 9, "text": "y"}]})
        self.assertIsNone(none["fix"])

    def test_rule_of(self):
        self.assertIsNone(report.rule_of([{"message": "no rule"}]))
        self.assertEqual(report.rule_of([{"message": "x"},
                                         {"message": "rule: a.b-c"}]),
                         "a.b-c")


class CoverageTextTest(unittest.TestCase):
    def test_text(self):
        self.assertEqual(report.coverage_text(coverage(0.75, (4, 3), (2, 2))),
                         "coverage 75%: 3 of 4 C++ kernels analysed, 2 of 2 "
                         "files parsed")
        self.assertEqual(report.coverage_text(coverage(1.0, (0, 0), (2, 2))),
                         "coverage 100%: 2 of 2 files parsed")
        self.assertIn("nothing to measure",
                      report.coverage_text(coverage(None, (0, 0), (0, 0))))
        approximate = dict(coverage(0.0, (4, 4), (2, 2)),
                           approximate="a database from the CMake sources")
        self.assertEqual(report.coverage_text(approximate),
                         "coverage 0% (approximate: a database from the CMake "
                         "sources; 4 of 4 C++ kernels analysed, 2 of 2 files "
                         "parsed there, none counted)")


class VerdictTest(unittest.TestCase):
    def test_pass(self):
        code, reasons, last = report.verdict(FAIL_ON, Counter(), 0,
                                             coverage(), 0.9)
        self.assertEqual((code, reasons), (0, []))
        self.assertEqual(last, "torch-tidy-project: PASS: 0 warnings; "
                               "coverage 100%: 4 of 4 C++ kernels analysed, "
                               "2 of 2 files parsed")

    def test_warnings(self):
        code, reasons, last = report.verdict(
            FAIL_ON, Counter({"torch-a": 2, "torch-b": 1}), 0, coverage(),
            0.9)
        self.assertEqual((code, reasons), (1, ["warnings"]))
        self.assertTrue(last.startswith("torch-tidy-project: FAIL "
                                        "(warnings): 3 warnings; coverage "
                                        "100%"), last)

    def test_one_warning_singular(self):
        last = report.verdict(FAIL_ON, Counter({"torch-a": 1}), 0,
                              coverage(), 0.9)[2]
        self.assertIn(": 1 warning;", last)

    def test_errors(self):
        code, reasons, last = report.verdict(
            {"errors", "warnings", "coverage"}, Counter(), 2, coverage(),
            0.9)
        self.assertEqual((code, reasons), (1, ["errors"]))
        self.assertIn("FAIL (errors): 0 warnings, 2 files did not parse",
                      last)
        # Without 'errors', files that did not parse fail nothing.
        self.assertEqual(report.verdict(FAIL_ON, Counter(), 2, coverage(),
                                        0.9)[0], 0)

    def test_warnings_not_failing(self):
        code, _, last = report.verdict({"coverage"}, Counter({"t": 4}), 0,
                                       coverage(), 0.9)
        self.assertEqual(code, 0)
        self.assertIn("PASS: 4 warnings", last)

    def test_coverage_below_minimum(self):
        c = low_coverage()
        code, reasons, last = report.verdict(FAIL_ON, Counter({"t": 1}), 0,
                                             c, 0.9)
        self.assertEqual(code, 3)
        self.assertEqual(reasons, ["warnings", "coverage"])
        self.assertTrue(last.startswith("torch-tidy-project: FAIL (warnings, "
                                        "coverage): 1 warning, but coverage "
                                        "33%"), last)
        self.assertIn("below 90% (--min-coverage)", last)
        self.assertIn("2 of 3 operators not fully seen: my::b, my::c", last)
        self.assertNotIn("my::a", last)
        self.assertNotIn("my::d", last)
        self.assertIn("to bring them in: --env WITH_CUDA=1; a build that "
                      "compiles the file", last)
        self.assertNotIn("counted on torch's registry", last)
        # Counted on the sources because the package does not import: the
        # registry's count, for the build as it is, is named too.
        c2 = dict(c, counted_from="index",
                  registry={"not_read": "No module named 'x'"})
        self.assertIn("; or, for the build as it is, counted on torch's "
                      "registry: the built package importable (--env "
                      "PYTHONPATH=DIR)",
                      report.verdict(FAIL_ON, Counter(), 0, c2, 0.9)[2])
        # Coverage alone gives 3 too; not asked for, it passes.
        self.assertEqual(report.verdict(FAIL_ON, Counter(), 0, c, 0.9)[0], 3)
        self.assertEqual(report.verdict({"warnings"}, Counter(), 0, c,
                                        0.9)[0], 0)
        self.assertEqual(report.verdict(FAIL_ON, Counter(), 0, c, 0.3)[0], 0)

    def test_many_unseen_operators_shortened(self):
        ops = {f"my::op{i:02}": {
            "analysed": False, "status": "not analysed",
            "kernels": [{"key": "CPU", "analysed": False, "files": ["x.cpp"],
                         "why": cov.NOT_LINTED, "bring_in": "--all-files"}]}
            for i in range(10)}
        last = report.verdict(FAIL_ON, Counter(), 0,
                              coverage(0.0, (10, 0), (1, 1), ops), 0.9)[2]
        self.assertIn("my::op07 and 2 more", last)
        self.assertNotIn("my::op08", last)

    def test_never(self):
        code, reasons, last = report.verdict(
            {"never"}, Counter({"t": 3}), 5, low_coverage(), 0.9)
        self.assertEqual((code, reasons), (0, []))
        self.assertTrue(last.startswith("torch-tidy-project: done "
                                        "(--fail-on never): 3 warnings; "
                                        "coverage 33%"), last)

    # Regression (report.percent / verdict): the share is rounded to a whole
    # percent, so a coverage just below the minimum (0.896 < 0.9) is said to
    # be "coverage 90%, below 90%"; it is rounded down.
    def test_share_just_below_minimum_not_shown_equal(self):
        c = coverage(0.896, (1000, 896), (1, 1))
        code, _, last = report.verdict(FAIL_ON, Counter(), 0, c, 0.9)
        self.assertEqual(code, 3)
        self.assertNotIn("coverage 90%", last)

    def test_minimum_shown_as_given(self):
        # The share rounds down; the threshold is shown exactly.
        c = coverage(0.894, (1000, 894), (1, 1))
        code, _, last = report.verdict(FAIL_ON, Counter(), 0, c, 0.895)
        self.assertEqual(code, 3)
        self.assertIn("coverage 89%", last)
        self.assertIn("below 89.5% (--min-coverage)", last)

    def test_coverage_low_from_files_that_did_not_parse(self):
        c = coverage(0.5, (4, 4), (6, 3), {
            "my::a": {"analysed": True, "status": "analysed",
                      "kernels": [{"key": "CPU", "analysed": True,
                                   "files": ["a.cpp"]}]}})
        code, reasons, last = report.verdict(FAIL_ON, Counter(), 3, c, 0.9)
        self.assertEqual((code, reasons), (3, ["coverage"]))
        self.assertIn("3 files did not parse", last)
        self.assertIn("3 of 6 files parsed, below 90%", last)

    # Regression (report.verdict): where coverage is low only because files
    # did not parse (every kernel analysed), the last line still ends with "0
    # of 1 operators not fully seen: " and an empty list.
    def test_coverage_low_from_files_names_no_empty_operator_list(self):
        c = coverage(0.5, (4, 4), (6, 3), {
            "my::a": {"analysed": True, "status": "analysed",
                      "kernels": [{"key": "CPU", "analysed": True,
                                   "files": ["a.cpp"]}]}})
        last = report.verdict(FAIL_ON, Counter(), 3, c, 0.9)[2]
        self.assertNotIn("0 of 1 operators not fully seen", last)
        self.assertFalse(last.rstrip().endswith(":"), last)


class PrintSummaryTest(unittest.TestCase):
    def test_lines(self):
        c = dict(low_coverage(), minimum=0.9)
        s = {"files_linted": 3,
             "did_not_parse": {"'x.h' not found": ["a.cpp", "b.cpp"]},
             "warnings": {"torch-a": 2}, "seconds": 4.2,
             "findings": [{"class": "silent"}, {"class": "silent"},
                          {"class": None}],
             "files_skipped": {"cannot warn": 5},
             "index": None, "coverage": c, "root": "/r",
             "database": {"path": "/r/.torch-tidy/compile_commands.json",
                          "origin": "the project's", "notes": ["a note"],
                          "libtorch": {"2.8.0": "/t/include"}},
             "build": {"variables_read": ["WITH_CUDA"],
                       "env": {"WITH_CUDA": "0"}},
             "python_torch": "2.8.0",
             "torch_tidy": {"path": "/bin/torch-tidy", "version": "0.4",
                            "llvm": "19"}}
        out = io.StringIO()
        with redirect_stdout(out):
            report.print_summary(s, "/r")
        text = out.getvalue()
        for said in ("torch-tidy-project: 3 files, 2 did not parse, "
                     "2 warnings, 4 s",
                     "did not parse: 2 x 'x.h' not found (e.g. a.cpp)",
                     "by class: 2 silent",
                     "files: 3 linted, 5 skipped; 5 cannot warn",
                     "the project index could not be read",
                     "coverage 33%", "(--min-coverage 90%)",
                     "my::b: not analysed; cuda/b.cu: --env WITH_CUDA=1",
                     "1 operators have no C++ kernel (not counted): my::d",
                     "    a note",
                     "build reads: WITH_CUDA; given: WITH_CUDA=0",
                     "LibTorch 2.8.0 (headers in /t/include); --python's "
                     "torch 2.8.0",
                     "torch-tidy 0.4, LLVM 19"):
            self.assertIn(said, text)


if __name__ == "__main__":
    unittest.main()
