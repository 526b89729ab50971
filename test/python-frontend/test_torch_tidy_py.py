"""torch-tidy-py (tools/torch-tidy/torch_tidy_py): compiled regions, write
forms, sources, targets, negatives, options and bad input, each on a small
file, against the committed table docs/ground-truth.json.

  python3 test_torch_tidy_py.py   (needs LibCST: bootstrap puts it in the
                                   tools venv; without it, one SKIP line)
"""
import contextlib
import io
import os
import re
import sys
import tempfile
import textwrap
import unittest

from frontend_testing import CHECK, HERE, ROOT, lint, warnings, wrap  # noqa: F401
from torch_tidy_py import analysis, cli  # noqa: E402
from torch_tidy_py.ground_truth import GroundTruth  # noqa: E402


class Regions(unittest.TestCase):
    BODY = "m[1:3, 0] = x[:, 0]"

    def assertRegion(self, source, count=1):
        rc, out, err = lint(source)
        self.assertEqual(len(warnings(out)), count, out + err)
        self.assertEqual(rc, 1 if count else 0)
        return out

    def test_decorator_bare_and_called(self):
        self.assertRegion(wrap(self.BODY))
        self.assertRegion(wrap(self.BODY, "@torch.compile(backend='aot_eager', "
                                          "fullgraph=True)\ndef f(x):"))

    def test_dynamo_optimize_decorator(self):
        self.assertRegion(wrap(self.BODY, "@torch._dynamo.optimize('inductor')\ndef f(x):"))

    def test_passed_to_compile(self):
        source = wrap(self.BODY, "def f(x):") + "\ng = torch.compile(f, backend='inductor')\n"
        out = self.assertRegion(source)
        self.assertIn("'f' is compiled: passed to torch.compile", out)
        source = wrap(self.BODY, "def f(x):") + "\ng = torch._dynamo.optimize('eager')(f)\n"
        self.assertRegion(source)

    def test_import_aliases(self):
        source = wrap(self.BODY).replace("import torch", "import torch as T\nimport torch")
        source = source.replace("@torch.compile", "@T.compile")
        self.assertRegion(source)
        source = wrap(self.BODY).replace("import torch", "import torch\nfrom torch import compile")
        self.assertRegion(source.replace("@torch.compile", "@compile"))

    def test_called_helper(self):
        source = wrap(self.BODY, "def helper(x):") + textwrap.dedent("""
            @torch.compile
            def outer(x):
                return helper(x) * 2
            """)
        out = self.assertRegion(source)
        self.assertIn("'helper' is compiled: called from 'outer', which is compiled", out)

    def test_module_forward(self):
        module = textwrap.dedent("""
            import torch
            class Net(torch.nn.Module):
                def forward(self, x):
                    return self.build(x) * 2
                def build(self, x):
                    m = torch.zeros(4, 3)
                    m[1:3, 0] = x[:, 0] * self.scale
                    return m if m.requires_grad else m.detach()
            """)
        for how in ("net = torch.compile(Net())", "model = Net()\nnet = torch.compile(model)",
                    "model = Net()\nmodel.compile()"):
            with self.subTest(how=how):
                out = self.assertRegion(module + how + "\n")
                self.assertIn("'Net.build' is compiled: called from 'Net.forward'", out)
        # A module that is never compiled.
        self.assertRegion(module + "net = Net()\n", count=0)

    def test_how_training_scripts_make_and_compile_models(self):
        """An annotated name, methods that return the module (.cuda(),
        .to(device), .eval()), a method compiled in place, and a
        submodule's forward called as self.attn(x)."""
        block = textwrap.dedent("""
            import torch
            class Block(torch.nn.Module):
                def forward(self, x):
                    m = torch.zeros(4, 3)
                    m[1:3, 0] = x[:, 0] * self.scale
                    return m if m.requires_grad else m.detach()
            class Net(torch.nn.Module):
                def __init__(self):
                    super().__init__()
                    self.block = Block()
                def forward(self, x):
                    return self.block(x) * 2
            """)
        for how in ("model: torch.nn.Module = Net()\nmodel = torch.compile(model)",
                    "model = Net().cuda()\nmodel.compile()",
                    "model = Net().to('cpu').eval()\nopt = torch.compile(model)"):
            with self.subTest(how=how):
                out = self.assertRegion(block + how + "\n")
                self.assertIn("'Block.forward' is compiled: called from 'Net.forward'", out)
        in_place = textwrap.dedent("""
            import torch
            class Loss(torch.nn.Module):
                def __init__(self):
                    super().__init__()
                    self.compute = torch.compile(self.compute)
                def compute(self, x):
                    m = torch.zeros(4, 3)
                    m[1:3, 0] = x[:, 0]
                    return m if m.requires_grad else m.detach()
            """)
        out = self.assertRegion(in_place)
        self.assertIn("'Loss.compute' is compiled: its method self.compute passed to "
                      "torch.compile", out)

    def test_the_upstream_report(self):
        """pytorch/pytorch#169179's code as reported: a module's method,
        indices held on self, the flag asserted under is_grad_enabled()."""
        out = self.assertRegion(textwrap.dedent("""
            import torch
            class Skew(torch.nn.Module):
                def forward(self, vec, block_size):
                    return self._pytorch_skew_symmetric(vec, block_size)
                def _pytorch_skew_symmetric(self, vec, block_size):
                    batch_size = vec.shape[0]
                    matrix = torch.zeros(batch_size, block_size, block_size,
                                         device=vec.device, dtype=vec.dtype)
                    matrix[:, self.rows, self.cols] = vec
                    if torch.is_grad_enabled():
                        assert vec.requires_grad
                        assert matrix.requires_grad
                    matrix = matrix - matrix.transpose(-2, -1)
                    return matrix
            model = torch.compile(Skew())
            """))
        self.assertIn("mod.py:10:9: warning:", out)
        self.assertIn("write it out of place (index_put", out)

    def test_across_files(self):
        helper = textwrap.dedent("""
            import torch
            def helper(x):
                m = torch.zeros(4, 3)
                m[1:3, 0] = x[:, 0]
                return m if m.requires_grad else m.detach()
            """)
        model = textwrap.dedent("""
            import torch
            IMPORT
            @torch.compile
            def run(x):
                return NAME(x) * 2
            """)
        # A module whose class is in another file, compiled here.
        layers = textwrap.dedent("""
            import torch
            class Layer(torch.nn.Module):
                def forward(self, x):
                    m = torch.zeros(4, 3)
                    m[1:3, 0] = x[:, 0]
                    return m if m.requires_grad else m.detach()
            """)
        with tempfile.TemporaryDirectory() as tmp:
            os.makedirs(os.path.join(tmp, "pkg"))
            files = {"pkg/__init__.py": "", "pkg/layers.py": layers,
                     "pkg/train.py": "import torch\nfrom .layers import Layer\n"
                                     "model = torch.compile(Layer())\n"}
            for rel, text in files.items():
                with open(os.path.join(tmp, rel), "w") as f:
                    f.write(text)
            out = io.StringIO()
            with contextlib.redirect_stdout(out), contextlib.redirect_stderr(io.StringIO()):
                cli.main([os.path.join(tmp, r) for r in files])
            self.assertIn("layers.py:6:9: warning:", out.getvalue())
            self.assertIn("'Layer.forward' is compiled: the forward of a 'Layer' passed to "
                          "torch.compile in train.py", out.getvalue())
        cases = {"from .utils import helper": ("helper", 1),
                 "from pkg.utils import helper as h": ("h", 1),
                 "from pkg import utils": ("utils.helper", 1),
                 "from other.utils import helper": ("helper", 0)}  # not in the run
        for imp, (name, count) in cases.items():
            with self.subTest(imp=imp), tempfile.TemporaryDirectory() as tmp:
                os.makedirs(os.path.join(tmp, "pkg"))
                files = {"pkg/__init__.py": "", "pkg/utils.py": helper,
                         "pkg/model.py": model.replace("IMPORT", imp).replace("NAME", name)}
                for rel, text in files.items():
                    with open(os.path.join(tmp, rel), "w") as f:
                        f.write(text)
                out = io.StringIO()
                with contextlib.redirect_stdout(out), \
                        contextlib.redirect_stderr(io.StringIO()):
                    rc = cli.main([os.path.join(tmp, r) for r in files])
                self.assertEqual(len(warnings(out.getvalue())), count, out.getvalue())
                if count:
                    self.assertIn("utils.py:5:5: warning:", out.getvalue())
                    self.assertIn("'helper' is compiled: called from 'run' in model.py",
                                  out.getvalue())

    def test_not_compiled(self):
        self.assertRegion(wrap(self.BODY, "def f(x):"), count=0)
        # A nested function is not run where it is defined.
        source = wrap("def inner():\n    m[1:3, 0] = x[:, 0]\ninner")
        self.assertRegion(source, count=0)


class Forms(unittest.TestCase):
    CASES = {
        "m = torch.zeros(2, 4, 4)\nm[:, rows, cols] = x": ("setitem_adv_", "index_put"),
        "m[:, 0] = x": ("setitem_slice_int_", "select_scatter"),
        "m[0] = x": ("setitem_int_", "select_scatter"),
        "m[1:3, 0] = x": ("setitem_rows_col_", "slice_scatter"),
        "v = m[1:3]\nv[:, 0] = x": ("view_alias_copy_", "slice_scatter"),
        "v = m.narrow(0, 1, 2)\nv.copy_(x)": ("view_alias_copy_", "slice_scatter"),
        "m.narrow(0, 1, 2).copy_(x)": ("narrow_copy_", "slice_scatter"),
        "m.select(0, 1).copy_(x)": ("select_copy_", "select_scatter"),
        "m.narrow(0, 1, 2).select(1, 0).copy_(x)": ("chain_copy_", "slice_scatter"),
        "m.index_copy_(0, idx, x)": ("index_copy_", "index_copy"),
        "m.masked_scatter_(mask, x)": ("masked_scatter_", "masked_scatter"),
        "m.scatter_(1, idx, x)": ("scatter_", "scatter"),
        "m.narrow(0, 1, 2).add_(x)": ("narrow_add_", None),
        "v = m[1:3]\nv.mul_(x)": ("named_mul_", None),
        "v = m[1:3]\nv.masked_fill_(v > 0, x.sum())": ("named_masked_fill_", None),
        "m.select(0, 1).clamp_(min=x)": ("select_clamp_", None),
    }

    def test_each_form_classified_and_reported(self):
        truth = GroundTruth()
        for body, (form, remedy) in self.CASES.items():
            with self.subTest(body=body):
                writes = analysis.Analyzer(wrap(body)).analyse().writes
                self.assertEqual([w.form for w in writes], [form])
                self.assertTrue(truth.measured(form), f"{form} is not in the table")
                rc, out, _ = lint(wrap(body))
                found = warnings(out)
                lost = [v for v, _ in truth.losing(form)]
                self.assertEqual(len(found), 1 if lost else 0, out)
                if found:
                    for v in lost:
                        self.assertIn(f"torch {v} with the ", found[0])
                    if remedy:
                        self.assertIn(f"write it out of place ({remedy}", found[0])
                    self.assertTrue(found[0].endswith(CHECK))

    def test_remedies_keep_the_flag(self):
        """Every out-of-place form a message names keeps the flag on every
        version and backend of the table (the messages say so)."""
        truth = GroundTruth()
        for remedy in set(analysis.REMEDY.values()):
            form = remedy.split()[0]
            with self.subTest(remedy=remedy):
                self.assertTrue(truth.measured(form), form)
                self.assertEqual(truth.kept_on(form), truth.versions)

    def test_out_of_place_forms_are_not_writes(self):
        for body in ("m = m.index_put((rows,), x)", "m = m.slice_scatter(x, 0, 1, 3)",
                     "m = torch.select_scatter(m, x, 1, 0)", "m = m.index_copy(0, idx, x)"):
            with self.subTest(body=body):
                self.assertEqual(lint(wrap(body))[0], 0)


class Sources(unittest.TestCase):
    def test_derived_and_module_state(self):
        self.assertEqual(lint(wrap("y = x * 2\nz = y.sum(0)\nm[0] = z"))[0], 1)
        source = textwrap.dedent("""
            import torch
            class M(torch.nn.Module):
                def forward(self, x):
                    m = torch.zeros(4, 3)
                    m[0] = self.weight
                    return m if m.requires_grad else m.detach()
            @torch.compile
            def run(mod, x):
                return mod.forward(x)
            """)
        # A module's forward is not followed yet (attribute calls); a
        # function using module state is:
        source2 = textwrap.dedent("""
            import torch
            @torch.compile
            def f(self, x):
                m = torch.zeros(4, 3)
                m[0] = self.weight
                return m if m.requires_grad else m.detach()
            """)
        self.assertEqual(lint(source)[0], 0)
        self.assertEqual(lint(source2)[0], 1)

    def test_negatives(self):
        cases = {
            "constant source": "m[0] = torch.ones(3)",
            "detached source": "m[0] = x.detach()",
            "item source": "m[0, 0] = x.sum().item()",
            "under no_grad": "with torch.no_grad():\n    m[0] = x",
            "target requires grad": "m = torch.zeros(4, 3, requires_grad=True)\nm[0] = x",
            "target rebound to a grad value": "m = m + x\nm[0] = x",
            "another tensor written": "n = x * 1\nn[0] = x",
            # The index comes from x (topk's indices), the values are constant:
            # an index never carries grad (kernels-community's grouped_topk).
            "index from a grad value": "i = torch.topk(x, 2)[1]\nm.scatter_(1, i, 1)",
            "mask from a grad value": "v = m[1:3]\nv.masked_fill_(x[:2] > 0, 1.0)",
            # Integer and boolean tensors never require grad (a new user's
            # false positives in torchtitan and modded-nanogpt).
            "integer target": "m = torch.zeros(4, 3, dtype=torch.int32)\nm[0] = x[0]",
            "boolean target": "m = torch.zeros_like(x, dtype=torch.bool)\nm[0] = x[0]",
            "integer literal target": "m = torch.tensor([0, 1, 2])\nm[0] = x[0]",
            "comparison value": "m[0] = x[0] == 1",
            "bitwise value": "m[0] = (x ^ 3)[0]",
            "argmax value": "m[0] = x.argmax(1)",
            "cast to long": "m[0] = x[0].to(torch.long)",
        }
        for what, body in cases.items():
            with self.subTest(what):
                rc, out, err = lint(wrap(body))
                self.assertEqual(rc, 0, out + err)


class Targets(unittest.TestCase):
    def test_measured_factories(self):
        for make in ("torch.zeros(4, 3)", "x.new_zeros(4, 3)", "torch.zeros_like(x)",
                     "torch.empty(4, 3)", "torch.ones(4, 3)", "torch.tensor([[0.0] * 3] * 4)",
                     "torch.zeros(4, 3).clone()"):
            with self.subTest(make=make):
                rc, out, _ = lint(wrap(f"m = {make}\nm[:, 0] = x[:, 0]"))
                self.assertEqual(len(warnings(out)), 1, out)
                self.assertIn("note: 'm' is made here by", out)

    def test_unmeasured_forms_are_counted_not_reported(self):
        """In-place writes the table does not hold (fill_ with a tensor
        through a view, addcmul_, += on the whole tensor, index_fill_ with a
        tensor): counted on the summary line, not reported, with
        --flag-read any too."""
        body = ("m.narrow(0, 0, 1).fill_(x.sum())\nm.addcmul_(x, x)\nm += x\n"
                "m.index_fill_(0, idx, x.sum())\nm.requires_grad_(False)")
        for options in ((), ("--flag-read", "any")):
            rc, out, err = lint(wrap(body), *options)
            self.assertEqual((rc, warnings(out)), (0, []))
            self.assertIn("; 4 write(s) of a form, into a target or read in a way that was "
                          "not measured, not reported", err)

    def test_unmeasured_factory_is_counted_not_reported(self):
        rc, out, err = lint(wrap("m = torch.full_like(x, 2.0)\nm[:, 0] = x[:, 0]"))
        self.assertEqual(rc, 0)
        self.assertIn("1 write(s) of a form, into a target or read in a way that was not "
                      "measured, not reported", err)


class Options(unittest.TestCase):
    def test_flag_read(self):
        source = wrap("m[0] = x").replace("    assert m.requires_grad\n", "")
        self.assertEqual(lint(source)[0], 0)
        self.assertEqual(lint(source, "--flag-read", "any")[0], 1)
        # Read in a branch, after the write.
        source = wrap("m[0] = x\nif not m.requires_grad:\n    m = m.detach()")
        self.assertEqual(lint(source.replace("    assert m.requires_grad\n", ""))[0], 1)

    def test_min_torch(self):
        truth = GroundTruth()
        newest = truth.versions[-1]
        adv = wrap("m = torch.zeros(2, 4, 4)\nm[:, rows, cols] = x")
        view = wrap("v = m[1:3]\nv[:, 0] = x")
        # setitem keeps the flag on the newest torch measured; a write
        # through a named view loses it there too.
        self.assertIn(newest, truth.kept_on("setitem_adv_"))
        self.assertEqual(lint(adv, "--min-torch", newest)[0], 0)
        self.assertEqual(lint(adv, "--min-torch", "2.8")[0], 1)
        self.assertEqual(lint(view, "--min-torch", newest)[0], 1)
        # A version given without its patch level is that version's .0.
        short = ".".join(newest.split(".")[:2])
        self.assertEqual(lint(adv, "--min-torch", short)[0], 0)

    def test_list_regions(self):
        source = wrap("y = x * 2", "def f(x):") + "\ng = torch.compile(f)\n"
        rc, out, err = lint(source, "--list-regions")
        self.assertEqual(rc, 0)
        self.assertIn("mod.py:3:5: note: 'f' is compiled: passed to torch.compile", err)

    def test_bad_option(self):
        with self.assertRaises(SystemExit) as e, \
                contextlib.redirect_stderr(io.StringIO()) as err:
            cli.main(["x.py", "--min-torch", "two"])
        self.assertEqual(e.exception.code, 2)
        self.assertIn("is not a torch version", err.getvalue())


class Example(unittest.TestCase):
    def test_the_readme_example(self):
        """examples/skew_symmetric.py: both writes of the seed reported, its
        fixed twin not; the README shows the first warning as printed."""
        path = os.path.join(ROOT, "examples", "skew_symmetric.py")
        out = io.StringIO()
        with contextlib.redirect_stdout(out), contextlib.redirect_stderr(io.StringIO()):
            rc = cli.main([path])
        found = [w.replace(ROOT + os.sep, "") for w in warnings(out.getvalue())]
        self.assertEqual(rc, 1)
        self.assertEqual([w.split(": warning")[0] for w in found],
                         ["examples/skew_symmetric.py:17:5", "examples/skew_symmetric.py:18:5"])
        notes = [n.replace(ROOT + os.sep, "") for n in out.getvalue().splitlines()
                 if "note: rule: " in n]
        with open(os.path.join(ROOT, "README.md")) as f:
            readme = f.read()
        self.assertIn("# " + found[0] + "\n", readme)
        self.assertIn("# " + notes[0] + "\n", readme)
        with open(os.path.join(ROOT, "docs", "python.md")) as f:
            doc = f.read()
        self.assertIn("\n" + found[0] + "\n", doc)
        self.assertIn("\n" + notes[0] + "\n", doc)


    def test_the_training_code_example(self):
        """examples/adapter_blocks.py: the adapter's write reported through
        the Function its activations reach, with the fix; docs/python.md
        shows the output as printed (python-twins-* measure the example)."""
        path = os.path.join(ROOT, "examples", "adapter_blocks.py")
        out = io.StringIO()
        with contextlib.redirect_stdout(out), contextlib.redirect_stderr(io.StringIO()):
            rc = cli.main([path])
        text = out.getvalue().replace(ROOT + os.sep, "")
        self.assertEqual(rc, 1)
        self.assertEqual(len(warnings(text)), 1, text)
        self.assertIn("reaches 'Int8Matmul.apply'", text)
        self.assertIn("note: rule: index-put-advanced", text)
        with open(os.path.join(ROOT, "docs", "python.md")) as f:
            doc = f.read()
        for line in text.splitlines():
            self.assertIn("\n" + line + "\n", doc)


class Sarif(unittest.TestCase):
    def test_torch_tidy_sarif_reads_the_output(self):
        """torch-tidy-sarif (TORCH_TIDY_SARIF, set by the ctest) turns the
        output into SARIF: one result per warning, its notes as related
        locations."""
        import json
        import subprocess
        sarif = os.environ.get("TORCH_TIDY_SARIF")
        if not sarif:
            print("SKIPPED python-frontend sarif: TORCH_TIDY_SARIF is not set (no build)")
            return
        rc, out, _ = lint(wrap("m[0] = x") + "\n" + wrap("v = m[1:3]\nv.copy_(x)").replace(
            "def f(", "def g(").replace("import torch\n", ""))
        self.assertEqual(len(warnings(out)), 2, out)
        res = subprocess.run([sarif, "-"], input=out, capture_output=True, text=True)
        self.assertEqual(res.returncode, 0, res.stderr)
        results = json.loads(res.stdout)["runs"][0]["results"]
        self.assertEqual([r["ruleId"] for r in results], [CHECK[1:-1]] * 2)
        # The target's making, the region, and the fix's rule (or why none);
        # the named view's fix says too that the view's binding goes.
        self.assertEqual([len(r["relatedLocations"]) for r in results], [3, 4])
        self.assertEqual(results[1]["locations"][0]["physicalLocation"]["region"]["startLine"],
                         int(warnings(out)[1].split(":")[1]))


class Fixes(unittest.TestCase):
    """--fix and --export-fixes: the out-of-place form assigned to the
    target, through a rule of RewriteRules.def with a Python form; withdrawn
    where rebinding the name could change what another use sees. Each rule's
    fix is proven on real torch.compile by prove_fixes.py (python-fixes-*)."""
    HEADER = "@torch.compile\ndef f(x: torch.Tensor, rows, cols, idx, mask, i):"
    CASES = {
        "m[1] = x": ("select-scatter", "m = m.select_scatter(x, 0, 1)"),
        "m[:, 0] = x": ("select-scatter", "m = m.select_scatter(x, 1, 0)"),
        "m[1:3] = x": ("slice-scatter", "m = m.slice_scatter(x, 0, 1, 3)"),
        "m[:2] = x": ("slice-scatter", "m = m.slice_scatter(x, 0, 0, 2)"),
        "m.narrow(0, 1, 2).copy_(x)": ("slice-scatter", "m = m.slice_scatter(x, 0, 1, 3)"),
        "m.narrow(0, i, 2).copy_(x)": ("slice-scatter", "m = m.slice_scatter(x, 0, i, i + 2)"),
        "m.narrow(0, i - 1, 2).copy_(x)":
            ("slice-scatter", "m = m.slice_scatter(x, 0, i - 1, (i - 1) + 2)"),
        "m.select(1, 2).copy_(x)": ("select-scatter", "m = m.select_scatter(x, 1, 2)"),
        "m.narrow(0, 1, 2).add_(x)":
            ("scatter-inplace-arith", "m = m.slice_scatter(m.narrow(0, 1, 2).add(x), 0, 1, 3)"),
        "m.select(0, 1).clamp_(min=x)":
            ("scatter-inplace-arith", "m = m.select_scatter(m.select(0, 1).clamp(min=x), 0, 1)"),
        "m.index_copy_(0, idx, x)": ("index-copy", "m = m.index_copy(0, idx, x)"),
        "m.masked_scatter_(mask, x)": ("masked-scatter", "m = m.masked_scatter(mask, x)"),
        "m.scatter_(1, idx, x)": ("scatter", "m = m.scatter(1, idx, x)"),
        "r, c = torch.triu_indices(4, 3, 1)\nm[r, c] = x":
            ("index-put-advanced", "m = m.index_put((r, c), x)"),
        "j = torch.tensor([0, 2])\nm[j, :] = x":
            ("index-put-advanced", "m = m.index_put((j,), x)"),
        "j = torch.arange(2)\nm[:, j] = x":
            ("index-put-advanced",
             "m = m.index_put((torch.arange(m.shape[0], device=m.device)[:, None], j), x)"),
        # Two selects or slices (issue 78: the writes 2.8.0 loses, and views).
        "m[1, 0] = x":
            ("scatter-nested", "m = m.select_scatter(m.select(0, 1).select_scatter(x, 0, 0), 0, 1)"),
        "m[1:3, 0] = x":
            ("scatter-nested",
             "m = m.slice_scatter(m.narrow(0, 1, 2).select_scatter(x, 1, 0), 0, 1, 3)"),
        "m[0, 1:3] = x":
            ("scatter-nested",
             "m = m.select_scatter(m.select(0, 0).slice_scatter(x, 0, 1, 3), 0, 0)"),
        "m.narrow(0, 1, 2).select(1, 0).copy_(x)":
            ("scatter-nested",
             "m = m.slice_scatter(m.narrow(0, 1, 2).select_scatter(x, 1, 0), 0, 1, 3)"),
        "m.select(1, 0).narrow(0, 1, 2).copy_(x)":
            ("scatter-nested",
             "m = m.select_scatter(m.select(1, 0).slice_scatter(x, 0, 1, 3), 1, 0)"),
        "m.index_put_((idx,), x)": ("index-put-list", "m = m.index_put((idx,), x)"),
        "m[1:3] += x": ("scatter-inplace-arith",
                        "m = m.slice_scatter(m.narrow(0, 1, 2).add(x), 0, 1, 3)"),
    }
    NO_FIX = {
        "m[:, rows, cols] = x": "index_put takes tensors, and 'rows' is not known",
        "j = torch.tensor([[0], [1]])\nm[:, j] = x": "needs the index's number of dimensions",
        "m[1, 0, 2] = x": "more than two selects or slices",
        "m[::2] = x": "a slice with a step",
        "m.narrow(0, -2, 2).copy_(x)": "negative start",
        "m.narrow(0, len(x), 2).copy_(x)": "free of calls",
        "v = m.t()\nv.copy_(x)": "a view other than",
        "m[0] = rows": "not known to be a tensor",
        "m[0] = x; m[1] = x": "shares its statement",
        "n = m\nm[0] = x": "may keep a reference",
        "g(m)\nm[0] = x": "may keep a reference",
        "keep = [m]\nm[0] = x": "may keep a reference",
        "for k in range(2):\n    m[0] = x\n    out = g(m)": "may keep a reference",
        "h = lambda: m\nm[0] = x": "nested function, lambda",
    }

    def fixes(self, body):
        writes = analysis.Analyzer(wrap(body, self.HEADER)).analyse().writes
        return [(w.fix_rule, w.fix_text, w.no_fix) for w in writes]

    def test_each_form_fixed_through_its_rule(self):
        from torch_tidy_py.rules import Rules
        rules = Rules()
        for body, (rule, text) in self.CASES.items():
            with self.subTest(body=body):
                self.assertEqual(self.fixes(body), [(rule, text, None)])
                self.assertTrue(rules.matches(rule, text))

    def test_no_fix_and_why(self):
        for body, why in self.NO_FIX.items():
            with self.subTest(body=body):
                got = self.fixes(body)
                self.assertTrue(got, body)
                for rule, _, no_fix in got:
                    self.assertIsNone(rule)
                    self.assertIn(why, no_fix)
                rc, out, _ = lint(wrap(body, self.HEADER))
                if warnings(out):
                    self.assertIn("note: no fix: ", out)
                    self.assertIn(why, out.split("note: no fix: ")[1])

    def test_uses_that_keep_the_fix(self):
        """Metadata, reductions, further in-place writes, and any use after
        the write outside a loop around it."""
        for body in ("s = m.shape[0]\nd = m.dtype\nt = m.sum()\nm.zero_()\nm[0] = x",
                     "m.narrow(0, 0, 1).fill_(1)\nm[0] = x\nout = g(m)\nn = m",
                     "for k in range(2):\n    m[0] = x\nout = g(m)",
                     "if x.sum() > 0:\n    return g(m)\nm[0] = x"):
            with self.subTest(body=body):
                self.assertEqual([r for r, _, _ in self.fixes(body)], ["select-scatter"])

    def test_fix_applies_and_a_second_run_is_clean(self):
        source = wrap("m[1:3] = x\nm.select(1, 2).copy_(x[:, 0])")
        with tempfile.TemporaryDirectory() as tmp:
            path = os.path.join(tmp, "mod.py")
            with open(path, "w") as f:
                f.write("# é: a comment\n" + source)
            out, err = io.StringIO(), io.StringIO()
            with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
                rc = cli.main([path, "--fix"])
            self.assertEqual(rc, 1)
            self.assertEqual(out.getvalue().count("note: rule: "), 2)
            self.assertIn("2 fix(es) applied", err.getvalue())
            with open(path) as f:
                fixed = f.read()
            self.assertIn("    m = m.slice_scatter(x, 0, 1, 3)\n", fixed)
            self.assertIn("    m = m.select_scatter(x[:, 0], 1, 2)\n", fixed)
            self.assertEqual(fixed.replace("m = m.slice_scatter(x, 0, 1, 3)", "m[1:3] = x")
                             .replace("m = m.select_scatter(x[:, 0], 1, 2)",
                                      "m.select(1, 2).copy_(x[:, 0])"),
                             "# é: a comment\n" + source)
            out, err = io.StringIO(), io.StringIO()
            with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
                rc = cli.main([path, "--fix"])
            self.assertEqual((rc, warnings(out.getvalue())), (0, []))
            with open(path) as f:
                self.assertEqual(f.read(), fixed)

    def test_a_long_fix_is_laid_out_like_the_file(self):
        """Within the file's longest line (at least 79 columns), else a
        hanging indent four columns in from the statement."""
        from torch_tidy_py.cli import layout
        short = "m = m.select_scatter(x, 0, 1)"
        self.assertEqual(layout(short, 4, "x = 1\n"), short)
        long_ = ("matrix = matrix.index_put((torch.arange(matrix.shape[0], "
                 "device=matrix.device)[:, None], rows, cols), vec)")
        self.assertEqual(layout(long_, 4, "x = 1\n"),
                         "matrix = matrix.index_put(\n        (torch.arange(matrix.shape[0], "
                         "device=matrix.device)[:, None], rows, cols), vec)")
        self.assertEqual(layout(long_, 4, "#" * 120 + "\n"), long_)

    def test_export_fixes(self):
        """clang-tidy's YAML: byte offsets (a non-ASCII line before), the
        replacement, the `rule: <id>` note; the file itself untouched."""
        import yaml
        source = "# é: a comment\n" + wrap("m[1] = x")
        with tempfile.TemporaryDirectory() as tmp:
            path = os.path.join(tmp, "mod.py")
            out_yaml = os.path.join(tmp, "fixes.yaml")
            with open(path, "w") as f:
                f.write(source)
            with contextlib.redirect_stdout(io.StringIO()), \
                    contextlib.redirect_stderr(io.StringIO()):
                rc = cli.main([path, "--export-fixes", out_yaml])
            self.assertEqual(rc, 1)
            with open(out_yaml) as f:
                doc = yaml.safe_load(f)
            with open(path) as f:
                self.assertEqual(f.read(), source)
        (diag,) = doc["Diagnostics"]
        self.assertEqual(diag["DiagnosticName"], CHECK[1:-1])
        (rep,) = diag["DiagnosticMessage"]["Replacements"]
        data = source.encode()
        self.assertEqual(data[rep["Offset"]:rep["Offset"] + rep["Length"]], b"m[1] = x")
        self.assertEqual(rep["ReplacementText"], "m = m.select_scatter(x, 0, 1)")
        self.assertEqual([n["Message"] for n in diag["Notes"]], ["rule: select-scatter"])

    def test_a_text_without_its_rule_form_is_not_offered(self):
        """The fix goes through the table: with the rule's Python form
        changed, the same text is withdrawn, and a form of no rule is an
        error."""
        from torch_tidy_py.rules import CANDIDATES
        table = next(p for p in CANDIDATES if os.path.exists(p))
        with open(table) as f:
            text = f.read()
        with tempfile.TemporaryDirectory() as tmp:
            changed = os.path.join(tmp, "RewriteRules.def")
            with open(changed, "w") as f:
                f.write(text.replace('"$t = $t.select_scatter(@)"',
                                     '"$t = torch.select_scatter($t, @)"'))
            rc, out, _ = lint(wrap("m[1] = x"), "--rules", changed)
            self.assertEqual(rc, 1)
            self.assertIn("does not have the form of rule 'select-scatter'", out)
            self.assertNotIn("note: rule: ", out)
            with open(changed, "w") as f:
                f.write(text.replace('TORCH_TIDY_PYTHON_FORM("scatter",',
                                     'TORCH_TIDY_PYTHON_FORM("no-such-rule",'))
            rc, _, err = lint(wrap("m[1] = x"), "--rules", changed)
            self.assertEqual(rc, 2)
            self.assertIn("'no-such-rule', which is no rule", err)

    def test_every_python_form_is_proven_by_a_case(self):
        """prove_fixes.py's cases use every Python form (it fails otherwise
        too; here without torch)."""
        from torch_tidy_py.rules import Rules
        path = os.path.join(HERE, "fix_cases.py")
        with open(path) as f:
            source = f.read()
        out = io.StringIO()
        with contextlib.redirect_stdout(out), contextlib.redirect_stderr(io.StringIO()):
            cli.main([path])
        import re
        used = set(re.findall(r"note: rule: ([\w-]+);", out.getvalue()))
        self.assertEqual(used, set(Rules().python))
        self.assertNotIn("note: no fix", out.getvalue())
        self.assertIn("INPUTS", source)


class Flake8(unittest.TestCase):
    """The flake8 plugin (torch_tidy_py.flake8_plugin), registered as a
    local plugin: TTP001 where torch-tidy-py warns, its options."""

    def flake8(self, source, *options):
        import subprocess
        with tempfile.TemporaryDirectory() as tmp:
            with open(os.path.join(tmp, "model.py"), "w") as f:
                f.write(source)
            with open(os.path.join(tmp, "setup.cfg"), "w") as f:
                f.write("[flake8:local-plugins]\nextension =\n"
                        "    TTP = torch_tidy_py.flake8_plugin:Plugin\n"
                        f"paths = {os.path.join(ROOT, 'tools', 'torch-tidy')}\n")
            res = subprocess.run([sys.executable, "-m", "flake8", "--select", "TTP", *options,
                                  "model.py"], cwd=tmp, capture_output=True, text=True)
        return res.returncode, res.stdout + res.stderr

    def test_the_seed_and_options(self):
        try:
            import flake8  # noqa: F401
        except ImportError:
            print("SKIPPED python-frontend flake8: flake8 is not installed for this Python "
                  "(bootstrap adds it to the tools venv)")
            return
        with open(os.path.join(ROOT, "examples", "skew_symmetric.py")) as f:
            seed = f.read()
        rc, out = self.flake8(seed)
        self.assertEqual(rc, 1, out)
        self.assertEqual(re.findall(r"^model\.py:(\d+):(\d+): TTP001 ", out, re.M),
                         [("17", "5"), ("18", "5")])
        self.assertIn("torch-tidy-py --fix: matrix = matrix.index_put(", out)
        # setitem kept the flag on 2.15.0: nothing to report for a project
        # that supports no older torch.
        self.assertEqual(self.flake8(seed, "--torch-tidy-min-torch", "2.15")[0], 0)
        self.assertEqual(self.flake8(wrap("m.narrow(0, 1, 2).copy_(x)"),
                                     "--torch-tidy-min-torch", "2.15")[0], 1)
        self.assertEqual(self.flake8("import torch\nx = torch.zeros(2)\n")[0], 0)

    def test_version_is_the_projects(self):
        import torch_tidy_py
        with open(os.path.join(ROOT, "CMakeLists.txt")) as f:
            version = re.search(r"project\(torch-tidy VERSION (\S+)", f.read()).group(1)
        self.assertEqual(torch_tidy_py.__version__, version)


class BadInput(unittest.TestCase):
    def test_syntax_error_and_unreadable_file(self):
        with tempfile.TemporaryDirectory() as tmp:
            bad = os.path.join(tmp, "bad.py")
            good = os.path.join(tmp, "good.py")
            with open(bad, "w") as f:
                f.write("def f(:\n")
            with open(good, "w") as f:
                f.write(wrap("m[0] = x"))
            missing = os.path.join(tmp, "missing.py")
            out, err = io.StringIO(), io.StringIO()
            with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
                rc = cli.main([bad, missing, good])
            self.assertEqual(rc, 2)
            self.assertIn("bad.py:1:", err.getvalue())
            self.assertIn("error: cannot parse", err.getvalue())
            self.assertIn("missing.py: error: cannot read", err.getvalue())
            # The good file is still linted.
            self.assertEqual(len(warnings(out.getvalue())), 1)
            with open(bad) as f:
                self.assertEqual(f.read(), "def f(:\n")  # nothing written


if __name__ == "__main__":
    unittest.main()
