#!/usr/bin/env python3
"""Unit tests of tools/bench/run_bench.py's page: rewriting
docs/performance.md keeps the sections other benches and people wrote (the
incremental runs, the twins, the wheel), once each and word for word, and
writes its own generated sections once."""
import os
import shutil
import sys
import tempfile
import types
import unittest

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
sys.path.insert(0, os.path.join(ROOT, "tools", "bench"))
import run_bench  # noqa: E402

PAGE = os.path.join(ROOT, "docs", "performance.md")


def fake_bench():
    return types.SimpleNamespace(
        llvm="19", args=types.SimpleNamespace(runs=3, functions=200),
        rows=[("share", "a measure", "1.0", "<= 1", True)])


def headings(text):
    return [l for l in text.splitlines() if l.startswith("## ")]


class PerformancePage(unittest.TestCase):
    def setUp(self):
        self.tmp = tempfile.mkdtemp()
        self.page = os.path.join(self.tmp, "performance.md")
        shutil.copy(PAGE, self.page)

    def tearDown(self):
        shutil.rmtree(self.tmp)

    def rewrite(self):
        run_bench.write_markdown(fake_bench(), self.page, False,
                                 "python3 tools/bench/run_bench.py", 60)
        return open(self.page).read()

    def test_the_committed_page_has_hand_written_sections(self):
        kept = run_bench.kept_sections(PAGE)
        self.assertIn("## The wheel", [k.splitlines()[0] for k in kept])

    def test_rewrite_keeps_every_other_section_word_for_word(self):
        kept = run_bench.kept_sections(PAGE)
        text = self.rewrite()
        for section in kept:
            self.assertIn(section, text)
        self.assertIn("| share | a measure | 1.0 | <= 1 | met |", text)

    def test_each_section_once_after_two_rewrites(self):
        before = headings(open(PAGE).read())
        self.rewrite()
        after = headings(self.rewrite())
        self.assertEqual(sorted(after), sorted(set(after)))
        self.assertEqual(sorted(after), sorted(before))
        for generated in run_bench.GENERATED_SECTIONS:
            self.assertEqual(after.count("## " + generated), 1)

    def test_no_page_yet(self):
        os.remove(self.page)
        text = self.rewrite()
        self.assertEqual(headings(text),
                         ["## " + g for g in run_bench.GENERATED_SECTIONS])


if __name__ == "__main__":
    unittest.main()
