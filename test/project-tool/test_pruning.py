#!/usr/bin/env python3
"""Unit tests of torch_tidy_project.pruning: the files where an enabled
check can warn, with a synthetic project index and a fake torch-tidy."""
import os
import stat
import tempfile
import unittest
from collections import Counter

from support import write
from torch_tidy_project import pruning
from torch_tidy_project.common import ProjectError

FLAGSHIP = pruning.FLAGSHIP
UNDECLARED = pruning.UNDECLARED


class FilesThatMatterTest(unittest.TestCase):
    def setUp(self):
        self._tmp = tempfile.TemporaryDirectory()
        d = self.d = os.path.realpath(self._tmp.name)
        self.reg = write(os.path.join(d, "src", "reg.cpp"),
                         "TORCH_LIBRARY(my, m) { m.def(\"f(Tensor x) -> "
                         "Tensor\"); }\n")
        self.impl = write(os.path.join(d, "src", "impl.cpp"),
                          "at::Tensor f_cpu(const at::Tensor& x) {\n"
                          "  return x;\n}\n")
        write(os.path.join(d, "include", "marks.h"),
              "#define REGION TORCH_TIDY_COMPILED\n")
        self.marked = write(os.path.join(d, "src", "marked.cpp"),
                            '#include "marks.h"\nvoid g() {}\n')
        self.direct = write(os.path.join(d, "src", "direct.cpp"),
                            "void h() TORCH_TIDY_COMPILED {}\n")
        self.index_use = write(os.path.join(d, "src", "idx.cpp"),
                               "auto y = x.index ({0});\n")
        self.grad = write(os.path.join(d, "src", "grad.cpp"),
                          "x.requires_grad_(true);\n")
        self.copying = write(os.path.join(d, "src", "copying.cpp"),
                             "auto c = out.contiguous();\n")
        self.plain = write(os.path.join(d, "src", "plain.cpp"),
                           "int plain() { return 0; }\n")
        self.files = [self.reg, self.impl, self.marked, self.direct,
                      self.index_use, self.grad, self.copying, self.plain]
        self.index = {
            "operators": [{"namespace": "my", "schema": "f(Tensor x) -> "
                           "Tensor", "file": self.reg, "line": 1}],
            "kernels": [{"namespace": "my", "operator": "f", "key": "CPU",
                         "fake": False, "how": "m.impl",
                         "function": "my::f_cpu", "file": self.reg,
                         "line": 1}]}

    def tearDown(self):
        self._tmp.cleanup()

    def prune(self, names, options=None):
        return pruning.files_that_matter(set(names), options or {}, self.d,
                                         self.files, self.index)

    def test_flagship(self):
        (keep, skipped), why = self.prune([FLAGSHIP])
        self.assertIsNone(why)
        self.assertEqual(keep, [self.reg, self.impl, self.marked,
                                self.direct])
        self.assertEqual(skipped, Counter({pruning.CANNOT_WARN: 4}))

    def test_undeclared_mutation_needs_no_marks(self):
        (keep, skipped), _ = self.prune([UNDECLARED])
        self.assertEqual(keep, [self.reg, self.impl])
        self.assertEqual(sum(skipped.values()), 6)

    def test_checks_that_apply_everywhere(self):
        (keep, _), _ = self.prune(["torch-index-assign-to-copy"])
        self.assertEqual(keep, [self.index_use])
        (keep, _), _ = self.prune(["torch-inplace-on-grad-leaf"])
        self.assertEqual(keep, [self.grad])
        (keep, _), _ = self.prune(["torch-write-into-copy"])
        self.assertEqual(keep, [self.copying])
        (keep, _), _ = self.prune([FLAGSHIP, "torch-index-assign-to-copy",
                                   "torch-inplace-on-grad-leaf",
                                   "torch-write-into-copy"])
        self.assertEqual(keep, self.files[:-1])

    def test_every_file_when_any_function_may_be_a_region(self):
        for options in ({f"{FLAGSHIP}.RegionMode": "all"},
                        {f"{FLAGSHIP}.CompiledFunctions": "my_fn"}):
            pruned, why = self.prune([FLAGSHIP], options)
            self.assertIsNone(pruned)
            self.assertIn("RegionMode: all or CompiledFunctions", why)
        pruned, _ = self.prune([FLAGSHIP],
                               {f"{FLAGSHIP}.RegionMode": "auto"})
        self.assertIsNotNone(pruned)

    def test_unknown_check_lints_everything(self):
        pruned, why = self.prune([FLAGSHIP, "torch-new-check"])
        self.assertIsNone(pruned)
        self.assertEqual(why, "no pruning rule for torch-new-check")

    def test_no_enabled_check(self):
        (keep, skipped), why = self.prune([])
        self.assertEqual(keep, [])
        self.assertEqual(skipped[pruning.CANNOT_WARN], len(self.files))


class OtherFrameworkTest(unittest.TestCase):
    """Files of another framework's operators (deepmd-kit's TensorFlow ops
    beside its torch ones) are named, unless they mention torch."""

    def test_tensorflow_jax_paddle(self):
        self.assertEqual(pruning.other_framework(
            '#include "tensorflow/core/framework/op.h"\n'
            'REGISTER_OP("ProdForceSeA").Input("net_deriv: T");\n'),
            "TensorFlow")
        self.assertEqual(pruning.other_framework(
            "class ProdForceOp : public OpKernel {\n};\n"), "TensorFlow")
        self.assertEqual(pruning.other_framework(
            "XLA_FFI_DEFINE_HANDLER_SYMBOL(kRmsNorm, RmsNormImpl, ...);\n"),
            "JAX FFI")
        self.assertEqual(pruning.other_framework(
            'PD_BUILD_OP(custom_relu).Inputs({"X"});\n'), "Paddle")

    def test_torch_or_nothing(self):
        # a file of both frameworks is a torch file; plain C++ is no one's
        self.assertIsNone(pruning.other_framework(
            "#include <torch/extension.h>\nREGISTER_OP(\"x\");\n"))
        self.assertIsNone(pruning.other_framework(
            "TORCH_LIBRARY(ns, m) {}\nclass K : public OpKernel {};\n"))
        self.assertIsNone(pruning.other_framework("int add(int a) { return a; }\n"))
        self.assertIsNone(pruning.other_framework("// REGISTER_OPTIONS(x)\n"))


class EnabledChecksTest(unittest.TestCase):
    def test_names_and_options_from_a_fake_torch_tidy(self):
        with tempfile.TemporaryDirectory() as d:
            tidy = write(os.path.join(d, "torch-tidy"), """#!/bin/sh
for a in "$@"; do
  case "$a" in
    --list-checks) echo "Enabled checks:"
                   echo "    torch-compile-requires-grad-propagation"
                   echo "    torch-op-undeclared-mutation"
                   echo ""; exit 0 ;;
    --dump-config) echo "---"; echo "Checks: '-*,torch-*'"
                   echo "CheckOptions:"
                   echo "  torch-compile-requires-grad-propagation.RegionMode: 'all'"
                   echo "  torch-op-undeclared-mutation.Strict: true"
                   echo "  llvm-else.Option: x"; exit 0 ;;
  esac
done
exit 1
""", mode=stat.S_IRWXU)
            sample = write(os.path.join(d, "a.cpp"))
            names, options = pruning.enabled_checks(tidy, "-*,torch-*", d,
                                                    sample)
        self.assertEqual(names, {FLAGSHIP, UNDECLARED})
        self.assertEqual(options, {f"{FLAGSHIP}.RegionMode": "all",
                                   f"{UNDECLARED}.Strict": "true"})

    def test_a_failing_or_empty_answer_stops_the_run(self):
        # Pruning on no answer would skip every file as "cannot warn".
        for script, said in (
                ('echo "bad .clang-tidy" >&2; exit 1', "failed for"),
                ('echo "Enabled checks:"; echo ""; exit 0',
                 "no check is enabled")):
            with tempfile.TemporaryDirectory() as d:
                tidy = write(os.path.join(d, "torch-tidy"),
                             "#!/bin/sh\n" + script + "\n",
                             mode=stat.S_IRWXU)
                sample = write(os.path.join(d, "a.cpp"))
                with self.assertRaises(ProjectError) as c:
                    pruning.enabled_checks(tidy, "-*,torch-*", d, sample)
                self.assertIn(said, str(c.exception))


if __name__ == "__main__":
    unittest.main()
