#!/usr/bin/env python3
"""tools/ground-truth/sampling.py: when a check re-measures every case, and
which cases its sample keeps."""

import json
import os
import sys
import tempfile
import unittest
from unittest import mock

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, "..", "..", "tools", "ground-truth"))
import sampling  # noqa: E402


class SampleTest(unittest.TestCase):
    CASES = [(p, f) for p in ("a", "b", "c") for f in ("x", "y", "z", "w", "v")]

    def test_every_value_of_every_stratum_is_kept(self):
        chosen = sampling.sample(self.CASES, [lambda c: c[0], lambda c: c[1]], every=100)
        self.assertEqual({c[0] for c in chosen}, {"a", "b", "c"})
        self.assertEqual({c[1] for c in chosen}, {"x", "y", "z", "w", "v"})
        self.assertLess(len(chosen), len(self.CASES))

    def test_every_nth_in_order_and_deterministic(self):
        chosen = sampling.sample(self.CASES, [], every=4)
        self.assertEqual(chosen, self.CASES[::4])
        self.assertEqual(chosen, sampling.sample(list(self.CASES), [], every=4))

    def test_order_of_the_table_is_kept(self):
        chosen = sampling.sample(self.CASES, [lambda c: c[1]], every=7)
        self.assertEqual(chosen, sorted(chosen, key=self.CASES.index))

    def test_every_one_is_everything(self):
        self.assertEqual(sampling.sample(self.CASES, [lambda c: c[0]], every=1), self.CASES)


class WholeTest(unittest.TestCase):
    def setUp(self):
        self.tmp = tempfile.TemporaryDirectory()
        self.inputs = os.path.join(self.tmp.name, "inputs.json")
        patches = [mock.patch.object(sampling, "INPUTS_PATH", self.inputs),
                   mock.patch.object(sampling, "versions_of", lambda py: self.versions),
                   mock.patch.dict(os.environ, {}, clear=False)]
        for p in patches:
            p.start()
            self.addCleanup(p.stop)
        os.environ.pop(sampling.ENV, None)
        self.versions = ("2.8.0", "3.11")

    def tearDown(self):
        self.tmp.cleanup()

    def test_nothing_recorded_is_whole(self):
        is_whole, why = sampling.whole("s", "2.8.0", ["sampling.py"], "py")
        self.assertTrue(is_whole)
        self.assertIn("no inputs recorded", why)

    def test_recorded_inputs_sample(self):
        sampling.stamp("s", "2.8.0", ["sampling.py"], "py")
        with open(self.inputs) as f:
            self.assertIn("2.8.0", json.load(f)["s"])
        is_whole, why = sampling.whole("s", "2.8.0", ["sampling.py"], "py")
        self.assertFalse(is_whole, why)

    def test_another_torch_is_whole(self):
        sampling.stamp("s", "latest", ["sampling.py"], "py")
        self.versions = ("2.16.0", "3.11")
        is_whole, why = sampling.whole("s", "latest", ["sampling.py"], "py")
        self.assertTrue(is_whole)
        self.assertIn("torch version changed", why)

    def test_an_edited_input_is_whole(self):
        with mock.patch.object(sampling, "HERE", self.tmp.name):
            with open(os.path.join(self.tmp.name, "repro.py"), "w") as f:
                f.write("x = 1\n")
            sampling.stamp("s", "2.8.0", ["repro.py"], "py")
            self.assertFalse(sampling.whole("s", "2.8.0", ["repro.py"], "py")[0])
            with open(os.path.join(self.tmp.name, "repro.py"), "a") as f:
                f.write("x = 2\n")
            is_whole, why = sampling.whole("s", "2.8.0", ["repro.py"], "py")
        self.assertTrue(is_whole)
        self.assertIn("a reproducer", why)

    def test_another_label_or_suite_is_not_stamped(self):
        sampling.stamp("s", "2.8.0", ["sampling.py"], "py")
        self.assertTrue(sampling.whole("s", "latest", ["sampling.py"], "py")[0])
        self.assertTrue(sampling.whole("t", "2.8.0", ["sampling.py"], "py")[0])

    def test_a_fix_that_writes_another_text_is_proven_whole(self):
        fixed = "TORCH_LIBRARY(ns, m) { m.def(\"f(Tensor(a!) x) -> ()\"); }\n"
        sampling.stamp("fixes", "2.8.0", ["sampling.py"], "py", text=fixed)
        self.assertFalse(sampling.whole("fixes", "2.8.0", ["sampling.py"], "py",
                                        text=fixed)[0])
        is_whole, why = sampling.whole("fixes", "2.8.0", ["sampling.py"], "py",
                                       text=fixed.replace("(a!)", ""))
        self.assertTrue(is_whole)
        self.assertIn("the fixed source", why)
        # A text is an input: the inputs without it are not those recorded.
        self.assertTrue(sampling.whole("fixes", "2.8.0", ["sampling.py"], "py")[0])

    def test_environment_forces_whole(self):
        sampling.stamp("s", "2.8.0", ["sampling.py"], "py")
        os.environ[sampling.ENV] = "full"
        is_whole, why = sampling.whole("s", "2.8.0", ["sampling.py"], "py")
        self.assertTrue(is_whole)
        self.assertIn("full", why)


if __name__ == "__main__":
    unittest.main()
