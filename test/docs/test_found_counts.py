#!/usr/bin/env python3
"""Unit tests of tools/corpus/found_counts.py: the committed pages agree with
the committed lists, and a page or a list changed alone is caught."""
import os
import sys
import unittest

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
sys.path.insert(0, os.path.join(ROOT, "tools", "corpus"))
import found_counts as fc  # noqa: E402


def pages():
    return {k: open(os.path.join(ROOT, v)).read() for k, v in fc.PAGES.items()}


def differences(counts, texts):
    return [r for r in fc.check_pages(counts, texts) if r[2] != r[3]]


class FoundCounts(unittest.TestCase):
    def setUp(self):
        self.counts = fc.Counts()
        self.pages = pages()

    def test_pages_agree_with_the_lists(self):
        self.assertEqual(differences(self.counts, self.pages), [])
        self.assertEqual(self.counts.problems(), [])

    def test_a_count_changed_on_one_page_is_caught(self):
        texts = dict(self.pages)
        texts["README"] = texts["README"].replace("sweep of 36 custom-operator",
                                                  "sweep of 35 custom-operator")
        bad = differences(self.counts, texts)
        self.assertEqual([(b[0], b[2], b[3]) for b in bad], [("README", 35, 36)])

    def test_a_sentence_gone_is_caught(self):
        texts = dict(self.pages)
        texts["found"] = texts["found"].replace("torch-tidy reports", "torch-tidy finds")
        bad = differences(self.counts, texts)
        self.assertEqual(len(bad), 1)
        self.assertIn("sentence missing", bad[0][2])

    def test_an_operator_moved_between_tables_is_caught(self):
        # A side effect counted among the argument writes of its project.
        for r in self.counts.ledger:
            if r["operator"] == "device_print_tensor":
                r["effect"] = "writes"
        whats = {b[1] for b in differences(self.counts, self.pages)}
        self.assertIn("latent: vllm-project/vllm-ascend operators (warnings)", whats)
        self.assertIn("side effects: vllm-project/vllm-ascend operators (warnings)", whats)

    def test_a_hazard_of_no_operator_is_caught(self):
        self.counts.ledger = [r for r in self.counts.ledger if r["operator"] != "mha_fwd"]
        self.assertTrue(any("belongs to no operator" in p for p in self.counts.problems()))

    def test_a_warning_not_labelled_hazard_is_caught(self):
        self.counts.labels[("vllm-project/vllm", "csrc/cpu/sgl-kernels/conv.cpp:683")] = "benign"
        self.assertTrue(any("labelled benign" in p for p in self.counts.problems()))

    def test_the_sweep_table_is_the_committed_rows(self):
        texts = dict(self.pages)
        row = "| pytorch/extension-cpp | 2 (0) | 3 | 7 | 2 |"
        self.assertIn(row, texts["reliability"])
        texts["reliability"] = texts["reliability"].replace(row, row.replace("| 2 |", "| 3 |"))
        whats = {b[1] for b in differences(self.counts, texts)}
        self.assertEqual(whats, {"the sweep's table and its summary line"})


if __name__ == "__main__":
    unittest.main()
