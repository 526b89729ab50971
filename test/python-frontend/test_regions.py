"""torch-tidy-py's regions as projects compile them (issue 78): blocks
compiled in a loop over a container, .compile() on a submodule, the
callable checkpoint runs, a forward put in place, a decorator's inner
wrapper, calls through attributes and module objects, an aliased decorator,
a decorated function under an if, torch.compile on a class, what the
configuration and `# torch-tidy: compiled` name; and what is not a region.

  python3 test_regions.py   (needs LibCST; without it, one SKIP line)
"""
import re
import textwrap
import unittest

from frontend_testing import lint, lint_files, warnings

# A write the python path measures as lost on torch 2.8.0, and a read of
# the flag after it: reported in any region.
WRITE = """
        m = torch.zeros(4, 3)
        m[1:3, 0] = x[:, 0]
        assert m.requires_grad
        return m
"""


def body(indent=8):
    return textwrap.indent(textwrap.dedent(WRITE).strip(), " " * indent)


def module(template):
    """template dedented, then each line `@WRITE<n>` replaced by the write
    indented n spaces."""
    text = textwrap.dedent(template)
    return re.sub(r"^ *@WRITE(\d+)$", lambda mo: body(int(mo.group(1))), text, flags=re.M)


BLOCK = f"""
import torch
from torch import nn


class Block(nn.Module):
    def forward(self, x):
{body()}


class Model(nn.Module):
    def __init__(self, n):
        super().__init__()
        self.layers = nn.ModuleList([Block() for _ in range(n)])
        self.named = nn.ModuleDict({{"a": Block()}})

    def forward(self, x):
        for layer in self.layers:
            x = layer(x)
        return x
"""


class Regions(unittest.TestCase):
    def region(self, source, *options, count=1, why=None):
        rc, out, err = lint(source, "--list-regions", *options)
        self.assertEqual(len(warnings(out)), count, out + err)
        if why:
            self.assertIn(why, err)
        return out, err

    def test_blocks_compiled_in_a_loop(self):
        for how in ("for block in model.layers:\n    block.compile()",
                    "for block in model.layers:\n    torch.compile(block)",
                    "for i, block in enumerate(model.layers):\n"
                    "    model.layers[i] = torch.compile(block)",
                    "for i in range(2):\n    model.layers[i] = torch.compile(model.layers[i])",
                    "for name, block in model.named.items():\n    block.compile(fullgraph=True)",
                    "for mod in model.modules():\n    if isinstance(mod, Block):\n"
                    "        mod.compile()"):
            with self.subTest(how=how):
                self.region(BLOCK + "\nmodel = Model(2)\n" + how + "\n",
                            why="'Block.forward' is compiled: the forward of a 'Block'")

    def test_loop_over_a_model_of_unknown_class(self):
        """The model comes from a factory of another library: its layers'
        class is every class of the run that binds such a container."""
        source = BLOCK + "\ndef setup(model):\n    for blk in model.layers:\n" \
            "        blk.compile()\n"
        self.region(source, why="(every class of the run that binds 'layers')")

    def test_compile_on_a_submodule(self):
        source = BLOCK + textwrap.dedent("""
            class Net(nn.Module):
                def __init__(self):
                    super().__init__()
                    self.encoder = Block()
            net = Net()
            net.encoder.compile()
            """)
        self.region(source, why="the forward of a 'Block' compiled with .compile()")

    def test_checkpointed_callable(self):
        for call in ("checkpoint(self.block, x, use_reentrant=False)",
                     "torch.utils.checkpoint.checkpoint(self.block.forward, x)",
                     "checkpoint(functools.partial(helper, scale=2), x)",
                     "checkpoint(lambda t: self.block(t), x, use_reentrant=False)"):
            with self.subTest(call=call):
                source = module(f"""
                    import functools
                    import torch
                    from torch import nn
                    from torch.utils.checkpoint import checkpoint

                    def helper(x, scale=1):
                    @WRITE4

                    class Block(nn.Module):
                        def forward(self, x):
                    @WRITE8

                    class Wrapper(nn.Module):
                        def __init__(self):
                            super().__init__()
                            self.block = Block()

                        def forward(self, x):
                            return {call}

                    model = torch.compile(Wrapper())
                    """)
                self.region(source)

    def test_forward_put_in_place(self):
        for how in ("Block.forward = fast_forward",
                    "block.forward = types.MethodType(fast_forward, block)",
                    "block.forward = functools.partial(fast_forward, block)"):
            with self.subTest(how=how):
                source = module(f"""
                    import functools
                    import types
                    import torch
                    from torch import nn

                    class Block(nn.Module):
                        def forward(self, x):
                            return x

                    def fast_forward(self, x):
                    @WRITE4

                    block = Block()
                    {how}
                    block = torch.compile(block)
                    """)
                self.region(source, why="'fast_forward' is compiled: put in place of the forward")

    def test_decorators_inner_wrapper(self):
        source = module(f"""
            import functools
            import torch

            def log_calls(fn):
                @functools.wraps(fn)
                def wrapper(x):
            @WRITE8
                return wrapper

            @torch.compile
            @log_calls
            def step(x):
                return x
            """)
        self.region(source, why="'log_calls.wrapper' is compiled: the inner function of "
                                "decorator 'log_calls', which decorates 'step'")

    def test_calls_through_attributes_and_module_objects(self):
        files = {
            "pkg/__init__.py": "",
            "pkg/utils.py": f"import torch\n\ndef helper(x):\n{body(4)}\n",
            "pkg/model.py": textwrap.dedent("""
                import torch
                from torch import nn
                from pkg import utils
                import pkg.utils as u2
                from .blocks import Block

                class Net(nn.Module):
                    def __init__(self):
                        super().__init__()
                        self.blocks = nn.ModuleList([Block(), Block()])

                    def forward(self, x):
                        x = self.blocks[0](x)
                        return utils.helper(x) + u2.helper(x)

                net = torch.compile(Net())
                """),
            "pkg/blocks.py": f"import torch\nfrom torch import nn\n\nclass Block(nn.Module):\n"
                             f"    def forward(self, x):\n{body()}\n",
        }
        rc, out, err = lint_files(files, "--list-regions")
        self.assertEqual(len(warnings(out)), 2, out + err)
        self.assertIn("'helper' is compiled: called from 'Net.forward' in model.py", err)
        self.assertIn("'Block.forward' is compiled: called from 'Net.forward' in model.py", err)

    def test_aliased_decorator_and_makers(self):
        for alias in ("torch_compile = torch.compile",
                      "torch_compile = torch.compile if ENABLED else (lambda f: f)",
                      "torch_compile = functools.partial(torch.compile, mode='max-autotune')",
                      "torch_compile = torch.compile(dynamic=False)",
                      "def torch_compile(fn):\n    return torch.compile(fn) if ENABLED else fn"):
            with self.subTest(alias=alias):
                source = (f"import functools\nimport torch\nENABLED = True\n{alias}\n\n"
                          f"@torch_compile\ndef f(x):\n{body(4)}\n")
                self.region(source)

    def test_a_helper_of_another_file_that_compiles(self):
        """compile_model(model, cfg) of a utils module, which passes its
        parameter to torch.compile and returns the result under another
        name."""
        files = {"pkg/__init__.py": "",
                 "pkg/compile_utils.py": "import torch\n\ndef compile_model(model, cfg):\n"
                                         "    if not cfg.enabled:\n        return model\n"
                                         "    compiled = torch.compile(model, mode=cfg.mode)\n"
                                         "    return compiled\n",
                 "pkg/train.py": BLOCK + "\nfrom .compile_utils import compile_model\n\n"
                                 "def main(cfg):\n    model = compile_model(Model(2), cfg)\n"}
        rc, out, err = lint_files(files, "--list-regions")
        self.assertEqual(len(warnings(out)), 1, out + err)
        self.assertIn("'Model.forward' is compiled: the forward of a 'Model' passed to "
                      "'compile_model', which compiles it", err)

    def test_decorated_under_if_and_try(self):
        source = (f"import torch\nif hasattr(torch, 'compile'):\n    @torch.compile\n"
                  f"    def f(x):\n{body(8)}\nelse:\n    def f(x):\n        return x\n")
        self.region(source)
        source = (f"import torch\ntry:\n    @torch.compile\n    def f(x):\n{body(8)}\n"
                  f"except ImportError:\n    pass\n")
        self.region(source)

    def test_compile_on_a_class(self):
        source = (f"import torch\nfrom torch import nn\n\n@torch.compile\nclass Net(nn.Module):\n"
                  f"    def forward(self, x):\n{body()}\n")
        self.region(source, why="'Net.forward' is compiled: its class is decorated with "
                                "torch.compile")
        # On an autograd.Function: its __call__ only, which apply never runs
        # (measured: no graph is compiled); and its forward runs without grad.
        source = module(f"""
            import torch

            @torch.compile
            class Double(torch.autograd.Function):
                @staticmethod
                def forward(ctx, x):
            @WRITE8
            """)
        out, err = self.region(source, count=0)
        self.assertIn("not a region: 'Double' is an autograd.Function class decorated with "
                      "torch.compile, which compiles its __call__ only", err)

    def test_function_methods_are_not_hazards(self):
        """A compiled forward of an autograd.Function runs without grad
        (eagerly too): its writes are not reported."""
        source = module(f"""
            import torch

            class Double(torch.autograd.Function):
                @staticmethod
                @torch.compile
                def forward(ctx, x):
            @WRITE8
            """)
        self.region(source, count=0, why="'Double.forward' is compiled")

    def test_what_the_project_says_is_compiled(self):
        source = f"import torch\nfrom torch import nn\n\nclass Net(nn.Module):\n" \
                 f"    def forward(self, x):\n{body()}\n\ndef train_step(x):\n{body(4)}\n"
        self.region(source, count=0)
        self.region(source, "--compiled", "Net", why="named by the configuration's compiled")
        self.region(source, "--compiled", "mod.train_step")
        self.region(source, "--compiled", "Net", "--compiled", "train_step", count=2)
        marked = source.replace("class Net(nn.Module):", "class Net(nn.Module):  "
                                "# torch-tidy: compiled")
        self.region(marked, why="marked '# torch-tidy: compiled'")
        marked = source.replace("def train_step", "# torch-tidy: compiled\ndef train_step")
        self.region(marked)

    def test_configuration_file(self):
        source = f"import torch\nfrom torch import nn\n\nclass Net(nn.Module):\n" \
                 f"    def forward(self, x):\n{body()}\n"
        config = '[tool.torch-tidy-py]\ncompiled = ["Net"]\nflag-read = "read"\n'
        rc, out, err = lint_files({"proj/pyproject.toml": config, "proj/mod.py": source})
        self.assertEqual(len(warnings(out)), 1, out + err)
        rc, out, err = lint_files({"proj/pyproject.toml": config, "proj/mod.py": source},
                                  "--dump-config")
        self.assertEqual(rc, 0, err)
        self.assertIn('[tool.torch-tidy-py]\nflag-read = "read"\ncompiled = ["Net"]\n', out)
        # What --dump-config prints reads back to the same configuration.
        rc2, out2, _ = lint_files({"proj/pyproject.toml": out.split("\n", 1)[1],
                                   "proj/mod.py": source}, "--dump-config")
        self.assertEqual(out2.split("\n", 1)[1], out.split("\n", 1)[1])
        rc, out, err = lint_files({"proj/pyproject.toml": "[tool.torch-tidy-py]\ncompild = []\n",
                                   "proj/mod.py": source})
        self.assertEqual(rc, 2)
        self.assertIn("unknown key 'compild' in [tool.torch-tidy-py]", err)

    def test_libraries_that_compile_what_they_are_given(self):
        """accelerate's prepare with an Accelerator made with a dynamo
        backend (through the project's own helpers), a transformers Trainer
        whose TrainingArguments set torch_compile, a model a project
        function makes and returns; not with dynamo_backend="NO"."""
        source = module(f"""
            import torch
            from torch import nn
            import accelerate
            from transformers import Trainer, TrainingArguments

            class UNet(nn.Module):
                def forward(self, x):
            @WRITE8

            def load_unet():
                return UNet()

            def make_accelerator(args):
                return accelerate.Accelerator(dynamo_backend=args.dynamo_backend)

            def train(args):
                accelerator = make_accelerator(args)
                unet = accelerator.prepare(load_unet())
            """)
        self.region(source, why="'UNet.forward' is compiled: the forward of a 'UNet' passed to "
                                "accelerate's prepare, its Accelerator made with a dynamo backend")
        self.region(source.replace("dynamo_backend=args.dynamo_backend", 'dynamo_backend="NO"'),
                    count=0)
        trainer = source.replace("accelerator = make_accelerator(args)\n    unet = "
                                 "accelerator.prepare(load_unet())",
                                 "targs = TrainingArguments('out', torch_compile=True)\n"
                                 "    Trainer(model=load_unet(), args=targs).train()")
        self.region(trainer, why="given to a Trainer whose arguments set torch_compile")
        self.region(trainer.replace("torch_compile=True", "torch_compile=False"), count=0)

    def test_not_regions(self):
        """A module never compiled, a compile of re, a nested function
        never called, a function only called under no_grad."""
        source = BLOCK + "\nmodel = Model(2)\nimport re\npattern = re.compile('x')\n"
        self.region(source, count=0)
        source = module(f"""
            import torch

            def helper(x):
            @WRITE4

            @torch.compile
            def f(x):
                with torch.no_grad():
                    return helper(x)
            """)
        self.region(source, count=0)


if __name__ == "__main__":
    unittest.main()
