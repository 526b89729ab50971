#!/usr/bin/env python3
"""Unit tests of torch_tidy_project.running: torch-tidy's output read back
(findings with their notes, compiler errors, why a file did not parse),
finding torch-tidy, and running fake torch-tidy / torch-tidy-sarif
programs."""
import io
import json
import os
import sys
import tempfile
import unittest
from contextlib import redirect_stdout

from support import write
from torch_tidy_project import running
from torch_tidy_project.common import ProjectError


OUTPUT = """\
2 warnings and 1 error generated.
/p/a.cpp:10:5: warning: x keeps requires_grad (silent) [torch-compile-requires-grad-propagation]
/p/a.cpp:8:1: note: the region starts here
/p/inc/b.h:3:2: note: rule: add-requires-grad
/p/c.cpp:20:3: error: no member named 'x' in 'Y' [clang-diagnostic-error]
/p/c.cpp:18:1: note: 'Y' declared here
/p/d.cpp:5:1: error: use of undeclared identifier 'z'
/p/d.cpp:4:1: note: to match this '('
/p/e.cpp:7:7: warning: a[0] written in place [torch-inplace-on-grad-leaf]
Error while processing /p/c.cpp.
"""


class DiagnosticsTest(unittest.TestCase):
    def test_findings_with_their_notes(self):
        found = running.diagnostics(OUTPUT)
        self.assertEqual(len(found), 2)
        first, second = found
        self.assertEqual(first["check"],
                         "torch-compile-requires-grad-propagation")
        self.assertEqual(first["level"], "warning")
        self.assertEqual((first["file"], first["line"], first["column"]),
                         ("/p/a.cpp", 10, 5))
        self.assertEqual(first["message"], "x keeps requires_grad (silent)")
        self.assertEqual(first["notes"], [
            {"file": "/p/a.cpp", "line": 8, "column": 1,
             "message": "the region starts here"},
            {"file": "/p/inc/b.h", "line": 3, "column": 2,
             "message": "rule: add-requires-grad"}])
        # The compiler errors' notes do not attach to a finding.
        self.assertEqual(second["check"], "torch-inplace-on-grad-leaf")
        self.assertEqual(second["message"], "a[0] written in place")
        self.assertEqual(second["notes"], [])

    def test_note_after_compiler_error_not_attached_to_previous_warning(self):
        out = ("/p/a.cpp:1:1: warning: w [torch-x]\n"
               "/p/a.cpp:2:1: error: bad thing\n"
               "/p/a.cpp:3:1: note: about the bad thing\n")
        found = running.diagnostics(out)
        self.assertEqual(len(found), 1)
        self.assertEqual(found[0]["notes"], [])

    def test_note_first_is_dropped(self):
        self.assertEqual(running.diagnostics(
            "/p/a.cpp:3:1: note: orphan\n"), [])

    def test_warnings_as_errors_level_kept(self):
        out = ("/p/a.cpp:4:2: error: x keeps requires_grad (silent) "
               "[torch-compile-requires-grad-propagation,-warnings-as-errors]"
               "\n/p/a.cpp:3:1: note: here\n")
        found = running.diagnostics(out)
        self.assertEqual(len(found), 1)
        self.assertEqual(found[0]["level"], "error")
        self.assertEqual(found[0]["notes"][0]["message"], "here")
        self.assertEqual(running.errors(out), [])

    # Regression (running.diagnostics): with WarningsAsErrors (a project's
    # .clang-tidy, or --warnings-as-errors) clang-tidy prints
    # "[check,-warnings-as-errors]", and the whole bracket is taken for the
    # check's name: the summary counts a check that does not exist.
    def test_warnings_as_errors_check_name(self):
        out = ("/p/a.cpp:4:2: error: x keeps requires_grad (silent) "
               "[torch-compile-requires-grad-propagation,-warnings-as-errors]"
               "\n")
        self.assertEqual(running.diagnostics(out)[0]["check"],
                         "torch-compile-requires-grad-propagation")


class HarvestTest(unittest.TestCase):
    def test_one_translation_units_line_is_read(self):
        doc = {"file": "/p/a.cpp", "registrations": [
            {"operator": "ns::op", "kind": "schema", "file": "/p/a.cpp",
             "line": 3}]}
        with tempfile.TemporaryDirectory() as d:
            p = write(os.path.join(d, "h.json"), json.dumps(doc) + "\n")
            self.assertEqual(running.read_harvest(p), doc)
            # Two translation units' lines (a run that linted two files
            # into one harvest): not this file's alone, so nothing.
            write(p, json.dumps(doc) + "\n" +
                  json.dumps(dict(doc, file="/p/b.cpp")) + "\n")
            self.assertIsNone(running.read_harvest(p))
            for bad in ("", "{", "[]\n", '{"file": "/p/a.cpp"}\n'):
                write(p, bad)
                self.assertIsNone(running.read_harvest(p), bad)
            self.assertIsNone(running.read_harvest(os.path.join(d, "no")))


class ErrorsTest(unittest.TestCase):
    def test_compiler_errors(self):
        self.assertEqual(running.errors(OUTPUT),
                         ["no member named 'x' in 'Y'",
                          "use of undeclared identifier 'z'"])
        self.assertEqual(running.errors(
            "/p/a.cpp:1:10: fatal error: 'torch/all.h' file not found\n"),
            ["'torch/all.h' file not found"])
        self.assertEqual(running.errors("/p/a.cpp:1:1: warning: w [torch-x]"
                                        "\n"), [])


class ParseFailureTest(unittest.TestCase):
    def result(self, code, output):
        return running.FileResult("/p/a.cpp", code, output, None)

    def test_parsed(self):
        self.assertIsNone(running.parse_failure(self.result(0, "")))
        # Findings make torch-tidy exit non-zero; the file still parsed.
        self.assertIsNone(running.parse_failure(self.result(
            1, "/p/a.cpp:1:1: warning: w [torch-x]\n")))

    def test_missing_header(self):
        out = ("/p/a.cpp:1:10: fatal error: 'torch/extension.h' file not "
               "found\n/p/a.cpp:2:1: error: unknown type name 'at'\n")
        self.assertEqual(running.parse_failure(self.result(1, out)),
                         "'torch/extension.h' not found")

    def test_missing_header_with_debian_package(self):
        out = "/p/a.cpp:3:10: fatal error: 'omp.h' file not found\n"
        self.assertEqual(running.parse_failure(self.result(1, out), "19.1.7"),
                         "'omp.h' not found (Debian: apt-get install "
                         "libomp-19-dev)")
        # Without torch-tidy's LLVM version, clang's package is not named.
        self.assertEqual(running.parse_failure(self.result(1, out)),
                         "'omp.h' not found")

    def test_other_error(self):
        out = "/p/a.cpp:2:1: error: " + "x" * 300 + "\n"
        self.assertEqual(running.parse_failure(self.result(1, out)),
                         "x" * 100)

    def test_refused_configuration_is_not_a_parse(self):
        self.assertEqual(running.parse_failure(self.result(
            1, "Error: no checks enabled.\n")),
            "torch-tidy exited 1: Error: no checks enabled.")

    def test_timeout(self):
        self.assertEqual(running.parse_failure(self.result(None, "")),
                         f"torch-tidy did not finish in "
                         f"{running.FILE_TIMEOUT} s")

    def test_crash(self):
        self.assertEqual(running.parse_failure(self.result(-11, "Stack dump:"
                                                           "\n")),
                         "torch-tidy crashed (signal 11)")


class FindTorchTidyTest(unittest.TestCase):
    def test_explicit(self):
        with tempfile.TemporaryDirectory() as d:
            tidy = write(os.path.join(d, "bin", "torch-tidy"), "#!/bin/sh\n",
                         mode=0o755)
            link = os.path.join(d, "tt-link")
            os.symlink(tidy, link)
            self.assertEqual(running.find_torch_tidy(tidy, "/nowhere"),
                             os.path.realpath(tidy))
            self.assertEqual(running.find_torch_tidy(link, "/nowhere"),
                             os.path.realpath(tidy))

    def test_explicit_missing_or_not_executable(self):
        with tempfile.TemporaryDirectory() as d:
            plain = write(os.path.join(d, "torch-tidy"), "")
            for path in (os.path.join(d, "missing"), plain):
                with self.assertRaises(ProjectError) as c:
                    running.find_torch_tidy(path, d)
                self.assertIn("--torch-tidy", str(c.exception))

    def test_beside_the_script(self):
        with tempfile.TemporaryDirectory() as d:
            tidy = write(os.path.join(d, "torch-tidy"), "#!/bin/sh\n",
                         mode=0o755)
            self.assertEqual(running.find_torch_tidy(None, d),
                             os.path.realpath(tidy))


class FakeToolsTest(unittest.TestCase):
    def test_version_and_checks(self):
        with tempfile.TemporaryDirectory() as d:
            tidy = write(os.path.join(d, "torch-tidy"), """#!/bin/sh
if [ "$1" = --version ]; then
  echo "torch-tidy version 0.4.1"; echo "  LLVM version 19.1.7"
else
  echo "Enabled checks:"; echo "    torch-compile-requires-grad-propagation"
fi
""", mode=0o755)
            self.assertEqual(running.tidy_version(tidy), ("0.4.1", "19.1.7"))
            self.assertTrue(running.has_torch_checks(tidy))
            plain = write(os.path.join(d, "clang-tidy"),
                          "#!/bin/sh\necho 'LLVM version 19.1.7'\n",
                          mode=0o755)
            self.assertEqual(running.tidy_version(plain), (None, "19.1.7"))
            self.assertFalse(running.has_torch_checks(plain))

    def test_lint_runs_each_file(self):
        with tempfile.TemporaryDirectory() as d:
            tidy = write(os.path.join(d, "torch-tidy"), """#!/bin/sh
for a in "$@"; do
  case "$a" in
    --export-fixes=*) fixes="${a#--export-fixes=}" ;;
    -*) ;;
    *) file="$a" ;;
  esac
done
case "$file" in
  *bad.cpp) echo "$file:1:1: warning: w [torch-x]"; echo "Diagnostics:" > "$fixes"; exit 1 ;;
esac
exit 0
""", mode=0o755)
            good = write(os.path.join(d, "proj", "good.cpp"))
            bad = write(os.path.join(d, "proj", "bad.cpp"))
            out = io.StringIO()
            with redirect_stdout(out):
                results = running.lint(tidy, [good, bad], "-*,torch-*", d, 2,
                                       dict(os.environ),
                                       os.path.join(d, "scratch"),
                                       os.path.join(d, "proj"))
            self.assertEqual(set(results), {good, bad})
            self.assertEqual(results[good].code, 0)
            self.assertIsNone(results[good].fixes)
            self.assertEqual(results[bad].code, 1)
            self.assertIn("warning: w [torch-x]", results[bad].output)
            self.assertTrue(os.path.isfile(results[bad].fixes))
            lines = [l.split() for l in out.getvalue().splitlines()]
            self.assertEqual(sorted(l[0] for l in lines), ["[1/2]", "[2/2]"])
            self.assertEqual(sorted(l[1] for l in lines),
                             ["bad.cpp", "good.cpp"])

    def test_fixes_read_through_sarif(self):
        with tempfile.TemporaryDirectory() as d:
            doc = {"runs": [{"results": [{
                "ruleId": "torch-x",
                "locations": [{"physicalLocation": {
                    "artifactLocation": {"uri": "file:///p/my%20a.cpp"},
                    "region": {"startLine": 3, "startColumn": 5}}}],
                "fixes": [{"artifactChanges": [{
                    "artifactLocation": {"uri": "file:///p/my%20a.cpp"},
                    "replacements": [{
                        "deletedRegion": {"charOffset": 10,
                                          "charLength": 2},
                        "insertedContent": {"text": "y"}}]}]}]}]}]}
            sarif = write(os.path.join(d, "torch-tidy-sarif"),
                          f"#!{sys.executable}\nimport sys\n"
                          f"out = sys.argv[sys.argv.index('-o') + 1]\n"
                          f"open(out, 'w').write({json.dumps(doc)!r})\n",
                          mode=0o755)
            tidy = write(os.path.join(d, "torch-tidy"), "#!/bin/sh\n",
                         mode=0o755)
            self.assertEqual(running.find_sarif(tidy), sarif)
            yaml = write(os.path.join(d, "0.yaml"), "Diagnostics: []\n")
            result = running.FileResult("/p/my a.cpp", 1, "output", yaml)
            found = running.fixes(sarif, result, d)
            self.assertEqual(found, {
                ("torch-x", os.path.realpath("/p/my a.cpp"), 3, 5):
                [{"file": "/p/my a.cpp", "offset": 10, "length": 2,
                  "text": "y"}]})
            self.assertEqual(running.fixes(None, result, d), {})
            self.assertEqual(running.fixes(sarif, running.FileResult(
                "/p/a.cpp", 0, "", None), d), {})


class LineColumnTest(unittest.TestCase):
    def test_offsets(self):
        with tempfile.TemporaryDirectory() as d:
            path = os.path.join(d, "f.cpp")
            with open(path, "wb") as f:
                f.write("ab\ncd\n\u00e9x\n".encode())
            cache = {}
            self.assertEqual(running.line_column(path, 0, cache), (1, 1))
            self.assertEqual(running.line_column(path, 2, cache), (1, 3))
            self.assertEqual(running.line_column(path, 3, cache), (2, 1))
            self.assertEqual(running.line_column(path, 4, cache), (2, 2))
            # Columns count bytes: 'é' is two.
            self.assertEqual(running.line_column(path, 8, cache), (3, 3))
            self.assertEqual(running.line_column(path, 10, cache), (4, 1))
            self.assertEqual(running.line_column(path, 11, cache),
                             (None, None))
            self.assertEqual(running.line_column(path, None, cache),
                             (None, None))
            self.assertIn(path, cache)
            os.remove(path)
            # Read once: the cache answers.
            self.assertEqual(running.line_column(path, 3, cache), (2, 1))
            self.assertEqual(running.line_column(os.path.join(d, "none"), 0,
                                                 cache), (None, None))


if __name__ == "__main__":
    unittest.main()
