"""Targets, forms and negatives real training code writes (issue 78): each
target making and write form is classified into its row of the measured
table and reported exactly where the table says it lost the flag; values
that never require grad, and code that runs without grad, are not.

  python3 test_targets_forms.py   (needs LibCST; without it, one SKIP line)
"""
import unittest

from frontend_testing import lint, warnings, wrap
from torch_tidy_py.analysis import Analyzer
from torch_tidy_py.ground_truth import GroundTruth

HEADER = "@torch.compile\ndef f(x: torch.Tensor, rows, cols, idx, mask, flag: bool):"


class Targets(unittest.TestCase):
    truth = GroundTruth()
    # making -> its rows (python_more; () for torch.zeros)
    MAKINGS = {
        "x.new_empty(4, 3)": ("new_empty_target_",),
        "x.new_ones(4, 3)": ("new_ones_target_",),
        "x.new_full((4, 3), 0.5)": ("new_full_target_",),
        "torch.empty_like(x)": ("empty_like_target_",),
        "torch.ones_like(x)": ("ones_like_target_",),
        "torch.full((4, 3), 0.5)": ("full_target_",),
        "torch.eye(4, 3).repeat(1, 1)": ("eye_repeat_target_",),
        "torch.zeros(4, 3).to(x.device)": ("to_device_target_",),
        "torch.empty(4, 3).fill_(0)": ("empty_target_", "fill_target_"),
        "torch.zeros(4, 3).clone()": ("clone_target_",),
        "torch.zeros(4, 3).cuda()": None,  # not measured: counted
        "torch.eye(4, 3)": None,
    }

    def test_each_making(self):
        for make, forms in self.MAKINGS.items():
            with self.subTest(make=make):
                source = wrap(f"m = {make}\nm.narrow(0, 1, 2).copy_(x)", HEADER)
                writes = Analyzer(source).analyse().writes
                self.assertEqual(len(writes), 1)
                got = writes[0].target_forms
                self.assertEqual(got, forms)
                rc, out, err = lint(source)
                if forms is None:
                    self.assertEqual(warnings(out), [])
                    self.assertIn("1 write(s) of a form, into a target or read in a way that "
                                  "was not measured", err)
                    continue
                lost = {v for v, _ in self.truth.losing("narrow_copy_")}
                for form in forms:
                    lost &= {v for v, _ in self.truth.losing(form)}
                self.assertEqual(len(warnings(out)), 1 if lost else 0, out)
                for v in lost:
                    self.assertIn(f"torch {v} with", out)


class Forms(unittest.TestCase):
    truth = GroundTruth()
    CASES = {
        "m.index_add_(0, idx, x)": "index_add_",
        "m.scatter_add_(1, idx, x)": "scatter_add_",
        "m.index_put_((rows, cols), x)": "index_put_",
        "m[1:3] += x": "setitem_augmented_",
        "m[m > 0] = x": "setitem_mask_",
        "m.mul_(2).add_(x)": "chained_inplace_",
        "m.copy_(x)": "whole_copy_",
        "m.add_(x, alpha=2.0)": "whole_add_",
        "m.mul_(x)": "whole_mul_",
    }

    def test_each_form(self):
        for body, form in self.CASES.items():
            with self.subTest(body=body):
                source = wrap(body, HEADER)
                writes = Analyzer(source).analyse().writes
                self.assertEqual([w.form for w in writes], [form])
                self.assertTrue(self.truth.measured(form), form)
                rc, out, _ = lint(source)
                lost = self.truth.losing(form)
                self.assertEqual(len(warnings(out)), 1 if lost else 0, out)
                for v, backends in lost:
                    self.assertIn(f"torch {v} with the {backends[0]}", out)

    def test_a_bound_or_returned_result(self):
        """`out = m.index_copy_(...)`: the write into m is recorded (no fix:
        its result is used); `out` is read afresh (row bound_result_)."""
        source = wrap("out = m.index_copy_(0, idx, x)\nassert out.requires_grad", HEADER)
        (w,), = [Analyzer(source).analyse().writes]
        self.assertEqual(w.form, "index_copy_")
        self.assertIn("its result is used", w.no_fix)
        self.assertEqual([c.line for c in w.consumers], [8])  # m's own read, not out's


class Negatives(unittest.TestCase):
    def assertNothing(self, source):
        rc, out, err = lint(source, "--flag-read", "any")
        self.assertEqual((rc, warnings(out)), (0, []), out + err)

    def test_no_grad_in_any_form(self):
        for head in ("@torch.no_grad()\n@torch.compile\ndef f(x):",
                     "@torch.compile\n@torch.no_grad()\ndef f(x):",
                     "@torch.compile\n@torch.inference_mode()\ndef f(x):",
                     "@torch.compile\n@torch.no_grad\ndef f(x):"):
            with self.subTest(head=head):
                self.assertNothing(wrap("m[1:3, 0] = x[:, 0]", head))
        for body in ("with torch.set_grad_enabled(False):\n    m[1:3, 0] = x[:, 0]",
                     "torch.set_grad_enabled(False)\nm[1:3, 0] = x[:, 0]",
                     "with torch.inference_mode():\n    m[1:3, 0] = x[:, 0]",
                     "with torch.autograd.no_grad():\n    m[1:3, 0] = x[:, 0]"):
            with self.subTest(body=body):
                self.assertNothing(wrap(body))
        # enable_grad inside no_grad writes with grad again.
        rc, out, _ = lint(wrap("with torch.no_grad():\n    with torch.enable_grad():\n"
                               "        m[1:3, 0] = x[:, 0]"))
        self.assertEqual(len(warnings(out)), 1, out)

    def test_values_that_never_require_grad(self):
        for value in ("float(ok)", "x.sum().item()", "int(x.argmax())", "3.5",
                      "torch.tensor(2.0)", "torch.tensor(flag)", "len(x)",
                      "self_buffer", "torch.arange(3)", "torch.triu_indices(3, 3)[0]",
                      "x.shape[0]", "math.pi", "torch.ones_like(x)", "x.new_ones(3)"):
            with self.subTest(value=value):
                body = f"ok = flag\nself_buffer = torch.ones(3)\nm[0] = {value}"
                self.assertNothing("import math\n" + wrap(body, HEADER))

    def test_registered_buffers(self):
        """A buffer never requires grad as a value; as an index it is a
        tensor, and the seed's fix applies to it."""
        source = """
            import torch
            from torch import nn

            class Skew(nn.Module):
                def __init__(self, n):
                    super().__init__()
                    rows, cols = torch.triu_indices(n, n, 1)
                    self.register_buffer("rows", rows)
                    self.register_buffer("cols", cols)
                    self.register_buffer("base", torch.zeros(n))
                    self.frozen = nn.Parameter(torch.ones(n), requires_grad=False)

                def forward(self, vec: torch.Tensor):
                    matrix = torch.zeros(vec.shape[0], 4, 4)
                    matrix[:, self.rows, self.cols] = vec
                    matrix[:, 0, 0] = self.base[0]
                    matrix[:, 1, 1] = self.frozen[0]
                    assert matrix.requires_grad
                    return matrix

            model = torch.compile(Skew(4))
            """
        rc, out, err = lint(source)
        self.assertEqual(len(warnings(out)), 1, out + err)
        self.assertIn("note: rule: index-put-advanced; the fix writes 'matrix = matrix.index_put("
                      "(torch.arange(matrix.shape[0], device=matrix.device)[:, None], self.rows, "
                      "self.cols), vec)'", out)

    def test_a_fix_only_where_the_value_is_a_tensor(self):
        rc, out, _ = lint(wrap("m[0] = rows", HEADER))
        self.assertIn("no fix: 'rows' is not known to be a tensor here", out)
        rc, out, _ = lint(wrap("m[0] = rows", HEADER.replace("rows,", "rows: torch.Tensor,")))
        self.assertIn("note: rule: select-scatter", out)


if __name__ == "__main__":
    unittest.main()
