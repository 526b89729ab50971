#!/usr/bin/env python3
"""Unit tests of torch_tidy_project.sarif: the run's invocation (its exit
status, and what it could not do as toolExecutionNotifications), notes as
related locations at the place they name, and the merge of shards' logs."""
import os
import tempfile
import unittest

import support  # noqa: F401 (tools/torch-tidy on sys.path)
from test_report import coverage, low_coverage
from torch_tidy_project import report, sarif


def summary(code=0, failed_on=(), c=None, unparsed=None, findings=(), root="/p"):
    return {"result": {"exit_status": code, "failed_on": list(failed_on),
                       "last_line": f"torch-tidy-project: last line {code}"},
            "root": root, "project": root, "findings": list(findings),
            "did_not_parse": unparsed or {}, "coverage": c or coverage()}


def notifications(log):
    inv = log["runs"][0]["invocations"][0]
    return inv, {n["descriptor"]["id"]: n
                 for n in inv.get("toolExecutionNotifications", [])}


class InvocationTest(unittest.TestCase):
    def test_a_clean_run(self):
        inv, notes = notifications(sarif.log(summary()))
        self.assertEqual(inv["exitCode"], 0)
        self.assertTrue(inv["executionSuccessful"])
        self.assertEqual(inv["exitCodeDescription"], "torch-tidy-project: last line 0")
        self.assertEqual(notes, {})

    def test_a_coverage_failure_is_not_a_clean_run(self):
        c = dict(low_coverage(), minimum=0.9)
        log = sarif.log(summary(3, ["coverage"], c,
                                {"missing header": ["x.cpp", "y.cu"]}))
        self.assertEqual(log["runs"][0]["results"], [])
        inv, notes = notifications(log)
        self.assertEqual(inv["exitCode"], 3)
        self.assertFalse(inv["executionSuccessful"])
        self.assertEqual(notes["coverage"]["level"], "error")
        self.assertIn("below the 90% --min-coverage", notes["coverage"]["message"]["text"])
        parse = notes["did-not-parse"]
        self.assertEqual(parse["level"], "warning")
        self.assertIn("2 files did not parse (missing header)", parse["message"]["text"])
        self.assertEqual([l["physicalLocation"]["artifactLocation"]["uri"]
                          for l in parse["locations"]], ["x.cpp", "y.cu"])
        unseen = notes["operators-not-analysed"]["message"]["text"]
        self.assertIn("2 operators", unseen)
        self.assertIn("my::b (not analysed)", unseen)
        self.assertIn("my::c", unseen)
        self.assertNotIn("my::d", unseen)  # no C++ kernel: not counted

    def test_warnings_are_a_successful_execution(self):
        inv, _ = notifications(sarif.log(summary(1, ["warnings"])))
        self.assertTrue(inv["executionSuccessful"])
        self.assertEqual(inv["exitCode"], 1)

    def test_an_error_stops_the_run(self):
        s = {"result": {"exit_status": 2, "failed_on": ["error"],
                        "last_line": "torch-tidy-project: ERROR: no file"},
             "error": "no file to lint in the database", "project": "/p",
             "root": "/p"}
        log = sarif.log(s)
        self.assertEqual(log["runs"][0]["results"], [])
        inv, notes = notifications(log)
        self.assertFalse(inv["executionSuccessful"])
        self.assertEqual(inv["exitCode"], 2)
        self.assertEqual(notes["error"]["level"], "error")
        self.assertEqual(notes["error"]["message"]["text"], "no file to lint in the database")

    def test_the_merge_carries_the_merged_invocation(self):
        one = sarif.log(summary())
        merged = sarif.combine([one, one], summary(3, ["coverage"],
                                                   dict(low_coverage(), minimum=0.9)))
        inv, notes = notifications(merged)
        self.assertEqual(inv["exitCode"], 3)
        self.assertIn("coverage", notes)


class NotePlacesTest(unittest.TestCase):
    def test_a_note_naming_a_python_fake_points_there(self):
        with tempfile.TemporaryDirectory() as root:
            fakes = os.path.join(root, "pkg", "fakes.py")
            os.makedirs(os.path.dirname(fakes))
            open(fakes, "w").close()
            d = {"check": "torch-op-undeclared-mutation", "level": "warning",
                 "file": os.path.join(root, "ops.cpp"), "line": 8, "column": 9,
                 "message": "kernel writes 'out' (silent)",
                 "notes": [{"file": os.path.join(root, "ops.cpp"), "line": 8,
                            "column": 9,
                            "message": f"the fake kernel of 'ns::op' is registered in "
                                       f"{fakes}:6 (torch.library.register_fake)"},
                           {"file": os.path.join(root, "ops.cpp"), "line": 3,
                            "column": 1, "message": "the write is here"},
                           {"file": os.path.join(root, "ops.cpp"), "line": 4,
                            "column": 1, "message": "registered in /nowhere/x.py:3"}]}
            f = report.finding(d, root, None, {})
            self.assertEqual(f["notes"][0]["about"], {"file": "pkg/fakes.py", "line": 6})
            self.assertNotIn("about", f["notes"][1])
            self.assertNotIn("about", f["notes"][2])  # no such file
            log = sarif.log(summary(1, ["warnings"], findings=[f], root=root))
            related = log["runs"][0]["results"][0]["relatedLocations"]
            where = related[0]["physicalLocation"]
            self.assertEqual(where["artifactLocation"]["uri"], "pkg/fakes.py")
            self.assertEqual(where["region"]["startLine"], 6)
            self.assertEqual(related[1]["physicalLocation"]["region"]["startLine"], 3)


if __name__ == "__main__":
    unittest.main()
