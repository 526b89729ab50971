"""What reads the stale flag (issue 78): code that reads requires_grad,
grad_fn or is_leaf, of the written tensor or of a value computed from it;
Dynamo at a custom autograd.Function's apply (no other input requiring
grad: its backward is not run; another one requiring grad and a backward
that reads ctx.needs_input_grad: a None gradient); through calls, returns
and torch.utils.checkpoint. Each claim is tied to its rows of the measured
table (the versions a message names are those every part lost on).

  python3 test_consumers.py   (needs LibCST; without it, one SKIP line)
"""
import re
import textwrap
import unittest

from frontend_testing import lint, lint_files, warnings
from torch_tidy_py import claims
from torch_tidy_py.analysis import Analyzer
from torch_tidy_py.ground_truth import GroundTruth

FUNCTIONS = textwrap.dedent("""
    import torch
    from torch.utils.checkpoint import checkpoint


    class Quantize(torch.autograd.Function):
        @staticmethod
        def forward(ctx, x):
            return torch.round(x * 8) / 8

        @staticmethod
        def backward(ctx, grad):
            return grad


    class Scale(torch.autograd.Function):
        @staticmethod
        def forward(ctx, x, w):
            ctx.save_for_backward(x, w)
            return x * w

        @staticmethod
        def backward(ctx, grad):
            x, w = ctx.saved_tensors
            grad_x = grad * w if ctx.needs_input_grad[0] else None
            grad_w = grad * x if ctx.needs_input_grad[1] else None
            return grad_x, grad_w


    class ScaleAlways(torch.autograd.Function):
        @staticmethod
        def forward(ctx, x, w):
            ctx.save_for_backward(x, w)
            return x * w

        @staticmethod
        def backward(ctx, grad):
            x, w = ctx.saved_tensors
            return grad * w, grad * x
    """)


def compiled(body, params="x: torch.Tensor, w: torch.Tensor"):
    """FUNCTIONS, then a compiled function: m made, written, then body."""
    lines = ["@torch.compile", f"def f({params}):", "    m = torch.zeros(4, 3)"]
    lines += ["    " + line for line in textwrap.dedent(body).strip().splitlines()]
    return FUNCTIONS + "\n\n" + "\n".join(lines) + "\n"


class Consumers(unittest.TestCase):
    truth = GroundTruth()

    def consumers(self, source):
        writes = Analyzer(source).analyse().writes
        return [(w.line, [(c.kind, c.derived, c.attribute or c.callee, c.conditions)
                          for c in w.consumers]) for w in writes]

    def reported(self, source, *options):
        rc, out, err = lint(source, *options)
        return warnings(out), out, err

    def assertClaim(self, warning, form, *paths):
        """The versions the warning names are those on which every row the
        claim stands on lost it."""
        lost = None
        for path in paths:
            here = dict(self.truth.losing(form, path))
            lost = here if lost is None else {v: [b for b in lost[v] if b in here[v]]
                                              for v in lost if v in here}
        lost = {v: b for v, b in lost.items() if b}
        named = re.findall(r"torch (\S+) with the", warning)
        self.assertEqual(named, sorted(lost, key=lambda v: tuple(map(int, v.split(".")))),
                         warning)

    def test_flag_attributes(self):
        for attr, path in (("requires_grad", None), ("grad_fn", "python_flag_grad_fn"),
                           ("is_leaf", "python_flag_is_leaf")):
            for write, form in (("m[1:3, 0] = x[:, 0]", "setitem_rows_col_"),
                                ("m.narrow(0, 1, 2).copy_(x)", "narrow_copy_")):
                with self.subTest(attr=attr, write=write):
                    source = compiled(f"{write}\nok = m.{attr}\nreturn m, ok")
                    found, out, _ = self.reported(source)
                    self.assertEqual(self.consumers(source)[0][1][0][:3],
                                     ("flag", False, attr))
                    lost = self.truth.losing(form, path)
                    self.assertEqual(len(found), 1 if lost else 0, out)
                    if found:
                        self.assertClaim(found[0], form, path)
                        if attr != "requires_grad":
                            self.assertIn(f"reads 'm.{attr}'", found[0])

    def test_flag_of_a_computed_value(self):
        source = compiled("m[1:3, 0] = x[:, 0]\nr = m - m.t().t()\nassert r.requires_grad\n"
                          "return r")
        self.assertEqual(self.consumers(source)[0][1][0][:2], ("flag", True))
        found, out, _ = self.reported(source)
        lost = self.truth.losing("setitem_rows_col_", "python_flag_derived")
        self.assertEqual(len(found), 1 if lost else 0, out)
        if found:
            self.assertClaim(found[0], "setitem_rows_col_", "python_flag_derived")
            self.assertIn("reads the flag of a value computed from it", found[0])

    def test_function_with_no_other_input_that_requires_grad(self):
        source = compiled("m.narrow(0, 1, 2).copy_(x)\nreturn Quantize.apply(m)")
        self.assertEqual(self.consumers(source), [(compiled("").count("\n") + 1,
                                                   [("function", False, "Quantize", ())])])
        found, out, _ = self.reported(source)
        self.assertEqual(len(found), 1, out)
        self.assertClaim(found[0], "narrow_copy_", "python_function_opaque")
        self.assertIn("reaches 'Quantize.apply' (line", found[0])
        self.assertIn("its backward is not run, and its forward calls torch.round, so the "
                      "gradient through it is lost", found[0])
        # The flag is not read by this code: --flag-read read reports it all
        # the same, since Dynamo reads it.
        self.assertNotIn("this code reads", found[0])

    def test_function_whose_backward_reads_needs_input_grad(self):
        source = compiled("m.narrow(0, 1, 2).copy_(x)\nreturn Scale.apply(m, w)")
        (line, [(kind, derived, name, conditions)]), = self.consumers(source)
        self.assertEqual((kind, name, conditions), ("function_needs_grad", "Scale", ()))
        found, out, _ = self.reported(source)
        self.assertEqual(len(found), 1, out)
        self.assertClaim(found[0], "narrow_copy_", "python_function_needs_grad")
        self.assertIn("ctx.needs_input_grad[0]: False for it compiled, so its gradient is None",
                      found[0])

    def test_function_whose_backward_ignores_needs_input_grad(self):
        """Measured (python_function_ignores_needs_grad): the gradient is
        kept where another input requires grad; where none does, Dynamo
        traces the forward inline, and a forward of differentiable
        operations (x * w) gives its own gradient: what is lost cannot be
        told, so it is counted, not reported."""
        source = compiled("m.narrow(0, 1, 2).copy_(x)\nreturn ScaleAlways.apply(m, w)")
        (line, [(kind, derived, name, conditions)]), = self.consumers(source)
        self.assertEqual((kind, conditions), ("function", ("w",)))
        found, out, err = self.reported(source)
        self.assertEqual(found, [])
        self.assertIn("1 write(s) of a form, into a target or read in a way that was not "
                      "measured", err)
        self.assertEqual(self.truth.losing("narrow_copy_", "python_function_ignores_needs_grad"),
                         [])

    def test_what_shows_a_forward_is_not_differentiable(self):
        """The Function's forward, as Dynamo traces it inline, must show why
        its gradient is lost: no_grad (a with, or a helper decorated with
        it), detach, rounding or an integer cast, a kernel (torch.ops, an
        extension module outside the run, a triton launch)."""
        for forward, why in (
                ("with torch.no_grad():\n    return x * 2", "runs torch.no_grad()"),
                ("return helper(x)", "'helper' runs under torch.no_grad()"),
                ("return x.detach() * 2", "calls .detach()"),
                ("return x.to(torch.int8).float()", "casts with x.to(torch.int8)"),
                ("return torch.ops.mylib.quant(x)", "calls torch.ops.mylib.quant"),
                ("return fused_ext.forward(x)", "calls fused_ext.forward of a module outside"),
                ("return x * 2", None)):
            with self.subTest(forward=forward):
                body = textwrap.indent(forward, " " * 8)
                source = textwrap.dedent("""
                    import torch
                    import fused_ext

                    @torch.no_grad()
                    def helper(x):
                        return x * 2

                    class Op(torch.autograd.Function):
                        @staticmethod
                        def forward(ctx, x):
                    BODY
                        @staticmethod
                        def backward(ctx, grad):
                            return grad * 2

                    @torch.compile
                    def f(x: torch.Tensor):
                        m = torch.zeros(4, 3)
                        m.narrow(0, 1, 2).copy_(x)
                        return Op.apply(m)
                    """).replace("BODY", body)
                found, out, err = self.reported(source)
                self.assertEqual(len(found), 1 if why else 0, out + err)
                if why:
                    self.assertIn(why, found[0])

    def test_a_computed_value_reaches_the_function(self):
        source = compiled("m[1:3, 0] = x[:, 0]\nr = (m - m.t().t()) * 2\n"
                          "return Quantize.apply(r)")
        (line, [(kind, derived, _, _)]), = self.consumers(source)
        self.assertEqual((kind, derived), ("function", True))
        found, out, _ = self.reported(source)
        lost = self.truth.losing("setitem_rows_col_", "python_function_derived")
        self.assertEqual(len(found), 1 if lost else 0, out)
        if found:
            self.assertClaim(found[0], "setitem_rows_col_", "python_function_opaque",
                             "python_function_derived")
            self.assertIn("a value computed from 'm' reaches 'Quantize.apply'", found[0])

    def test_an_operand_that_may_require_grad_is_a_condition(self):
        source = compiled("m[1:3, 0] = x[:, 0]\nr = m @ w\nreturn Quantize.apply(r)")
        (line, [(kind, derived, _, conditions)]), = self.consumers(source)
        self.assertEqual((kind, derived, conditions), ("function", True, ("w",)))

    def test_through_calls_returns_and_checkpoint(self):
        helper = textwrap.dedent("""
            def quantized(t):
                return Quantize.apply(t)

            def make(x):
                m = torch.zeros(4, 3)
                m.narrow(0, 1, 2).copy_(x)
                return m
            """)
        for body, via in (("m.narrow(0, 1, 2).copy_(x)\nreturn quantized(m)", ()),
                          ("return Quantize.apply(make(x))", ()),
                          ("m.narrow(0, 1, 2).copy_(x)\n"
                           "return checkpoint(quantized, m, use_reentrant=False)",
                           ("checkpoint",)),
                          ("m.narrow(0, 1, 2).copy_(x)\n"
                           "return checkpoint(Quantize.apply, m, use_reentrant=True)",
                           ("checkpoint_reentrant",))):
            with self.subTest(body=body):
                source = compiled(body).replace("\n\n@torch.compile", helper + "\n\n@torch.compile")
                found, out, err = self.reported(source)
                self.assertEqual(len(found), 1, out + err)
                self.assertIn("reaches 'Quantize.apply'", found[0])
                if via:
                    self.assertIn("through torch.utils.checkpoint", found[0])
                    w = [w for w in Analyzer(source).analyse().writes if w.consumers][0]
                    self.assertEqual(w.consumers[0].via, via)
                    self.assertClaim(found[0], "narrow_copy_", "python_function_opaque",
                                     claims.CHECKPOINT[via[0]])

    def test_functions_named_other_ways(self):
        """An alias of apply; a Function of another file of the run; one
        imported from outside the run (its backward unseen: the gradient is
        lost where no other input requires grad)."""
        source = compiled("quantize = Quantize.apply\nm.narrow(0, 1, 2).copy_(x)\n"
                          "return quantize(m)")
        self.assertEqual(len(self.reported(source)[0]), 1)
        source = compiled("m.narrow(0, 1, 2).copy_(x)\nreturn quantize(m)").replace(
            "\n\n@torch.compile", "\n\nquantize = Quantize.apply\n\n@torch.compile")
        self.assertEqual(len(self.reported(source)[0]), 1)
        files = {"pkg/__init__.py": "",
                 "pkg/ops.py": FUNCTIONS,
                 "pkg/model.py": "import torch\nfrom .ops import Scale\nfrom apex import Fused\n"
                                 "\n@torch.compile\ndef f(x, w):\n    m = torch.zeros(4, 3)\n"
                                 "    m.narrow(0, 1, 2).copy_(x)\n"
                                 "    return Scale.apply(m, w) + Fused.apply(m, w)\n"}
        rc, out, err = lint_files(files)
        self.assertEqual(len(warnings(out)), 1, out + err)
        self.assertIn("reaches 'Scale.apply'", out)
        self.assertIn("ctx.needs_input_grad[0]", out)

    def test_collectives_of_torch_distributed_nn(self):
        """all_reduce and all_to_all_single of torch.distributed.nn are
        autograd Functions of torch's own: measured consumers; all_gather
        is not measured (counted, not reported)."""
        for call, path in (("dist_nn.all_reduce(out)", "python_dist_all_reduce"),
                           ("dist_nn.all_to_all_single(torch.empty_like(out), out)",
                            "python_dist_all_to_all_single"),
                           ("torch.cat(dist_nn.all_gather(out))", None)):
            with self.subTest(call=call):
                source = ("import torch\nimport torch.distributed.nn.functional as dist_nn\n\n"
                          "@torch.compile\ndef f(x: torch.Tensor, idx):\n"
                          "    out = torch.zeros(4, 3)\n    out.scatter_add_(0, idx, x)\n"
                          f"    return {call}\n")
                (line, [(kind, derived, name, _)]), = self.consumers(source)
                self.assertEqual(kind, "collective")
                found, out, err = self.reported(source)
                if path is None:
                    self.assertEqual(found, [])
                    self.assertIn("1 write(s) of a form, into a target or read in a way that "
                                  "was not measured", err)
                    continue
                lost = self.truth.losing("scatter_add_", path)
                self.assertEqual(len(found), 1 if lost else 0, out)
                if found:
                    self.assertClaim(found[0], "scatter_add_", path)
                    self.assertIn(f"reaches {name}", found[0])
                    # the out-of-place method named, and that no rule writes it
                    self.assertIn("write it out of place (scatter_add), by hand: no rule of "
                                  "RewriteRules.def writes it", found[0])

    def test_what_keeps_the_flag_is_not_a_consumer(self):
        """A custom op (torch.library.custom_op with register_autograd):
        measured to keep the gradient; and the result an in-place method
        returns (bound_result_): read afresh."""
        self.assertEqual(self.truth.losing("narrow_copy_", "python_custom_op"), [])
        self.assertTrue(self.truth.kept_on("bound_result_"))
        source = compiled("out = m.index_copy_(0, torch.tensor([0, 1]), x)\n"
                          "return Quantize.apply(out)")
        self.assertEqual(self.consumers(source), [(self.consumers(source)[0][0], [])])

    def test_without_a_consumer_nothing_is_reported(self):
        source = compiled("m.narrow(0, 1, 2).copy_(x)\nreturn m * 2")
        self.assertEqual(self.reported(source)[0], [])
        self.assertEqual(len(self.reported(source, "--flag-read", "any")[0]), 1)

    def test_every_consumer_path_is_measured_for_every_form(self):
        """The table holds each consumer's path for every form the front
        end reports (tools/ground-truth/consumers.py)."""
        from torch_tidy_py.torch_names import ARITH, INPLACE_FORMS
        forms = set(INPLACE_FORMS.values()) | {
            "setitem_adv_", "setitem_slice_int_", "setitem_int_", "setitem_rows_col_",
            "setitem_mask_", "setitem_augmented_", "view_alias_copy_", "narrow_copy_",
            "select_copy_", "chain_copy_", "chained_inplace_"} | {
            f"{v}_{op}" for v in ("narrow", "select", "named", "whole") for op in ARITH}
        for path in ("python_function", "python_function_opaque", "python_function_derived",
                     "python_function_needs_grad", "python_checkpoint_function",
                     "python_checkpoint_function_reentrant", "python_flag_derived",
                     "python_flag_grad_fn", "python_flag_is_leaf", "python_dist_all_reduce",
                     "python_dist_all_to_all_single"):
            for form in sorted(forms):
                with self.subTest(path=path, form=form):
                    self.assertTrue(self.truth.measured(form, path))


if __name__ == "__main__":
    unittest.main()
