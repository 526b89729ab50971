#!/usr/bin/env python3
"""Unit tests of torch_tidy_project.index: a synthetic project index (the
shape torch-tidy --project-index prints) summed up and read per operator."""
import os
import stat
import tempfile
import unittest

from support import write
from torch_tidy_project import index


def op(ns, schema, file, line=1):
    return {"namespace": ns, "schema": schema, "file": file, "line": line}


def kernel(ns, name, key, file, line=1, fake=False, how="m.impl",
           function=None):
    return {"namespace": ns, "operator": name, "key": key, "fake": fake,
            "how": how, "function": function, "file": file, "line": line}


class Fixture(unittest.TestCase):
    """A project: myops::add (schema; CPU kernel add_cpu defined in
    impl.cpp, registered in reg.cpp; CUDA kernel in k.cu; a Meta fake in C++,
    a Python fake and a disallow_in_graph mark), myops::mul (schema, no
    kernel), other::neg (schema with its own namespace; kernel in a Python
    file only), myops::inferred (m.def without schema, a lambda kernel in
    unparsed.cpp), myops::hidden (schema in a .py file; kernel in hidden.cpp,
    not linted)."""

    def setUp(self):
        self._tmp = tempfile.TemporaryDirectory()
        d = self.d = os.path.realpath(self._tmp.name)
        self.reg = write(os.path.join(d, "csrc", "reg.cpp"),
                         "TORCH_LIBRARY_IMPL(myops, CPU, m) {\n"
                         "  m.impl(\"add\", &add_cpu);\n}\n")
        self.impl = write(os.path.join(d, "csrc", "impl.cpp"),
                          "at::Tensor add_cpu(const at::Tensor& a,\n"
                          "                   const at::Tensor& b) {\n"
                          "  return a + b;\n}\n")
        self.header = write(os.path.join(d, "csrc", "impl.h"),
                            "at::Tensor add_cpu(const at::Tensor& a,"
                            " const at::Tensor& b);\n")
        self.cu = write(os.path.join(d, "csrc", "k.cu"), "// kernels\n")
        self.unparsed = write(os.path.join(d, "csrc", "unparsed.cpp"))
        self.hidden = write(os.path.join(d, "csrc", "hidden.cpp"))
        self.py = os.path.join(d, "pkg", "ops.py")
        self.index = {
            "root": d, "files": 9,
            "operators": [
                op("myops", "add(Tensor a, Tensor b) -> Tensor", self.reg, 3),
                op("myops", "mul(Tensor a, Tensor b) -> Tensor", self.reg, 4),
                op("myops", "other::neg(Tensor a) -> Tensor", self.reg, 5),
                op("myops", "hidden(Tensor a) -> Tensor", self.py, 2),
            ],
            "kernels": [
                kernel("myops", "add", "CPU", self.reg, 2,
                       function="myops::add_cpu"),
                kernel("myops", "add", "CUDA", self.cu, 9,
                       function="add_cuda"),
                kernel("myops", "add", "Meta", self.reg, 7, fake=True),
                kernel("myops", "add", "Fake", self.py, 3, fake=True,
                       how="register_fake"),
                kernel("myops", "add", "DisallowInGraph", self.py, 9,
                       how="disallow_in_graph"),
                kernel("other", "neg", "CPU", self.py, 4,
                       how="torch.library.impl"),
                kernel("myops", "inferred", "CPU", self.unparsed, 1,
                       how="m.def"),
                kernel("myops", "hidden", "", self.hidden, 1),
            ],
        }

    def tearDown(self):
        self._tmp.cleanup()


class OperatorNamesTest(Fixture):
    def test_schemas_and_inferred_registrations(self):
        self.assertEqual(index.operator_names(self.index),
                         ["myops::add", "myops::hidden", "myops::inferred",
                          "myops::mul", "other::neg"])

    def test_inferred_through_a_macro(self):
        # REG(solo) expanding to m.def("solo", &solo): the index names the
        # macro and keeps the registration's kind.
        self.index["kernels"].append(kernel("myops", "solo", "CompositeImplicitAutograd",
                                            self.reg, 6, how="REG: m.def"))
        self.index["kernels"].append(kernel("myops", "meta_only", "Meta",
                                            self.reg, 7, how="META_OP"))
        names = index.operator_names(self.index)
        self.assertIn("myops::solo", names)
        self.assertNotIn("myops::meta_only", names)

    def test_empty(self):
        self.assertEqual(index.operator_names(None), [])
        self.assertEqual(index.operator_names({}), [])


class CppKernelsTest(Fixture):
    def test_fakes_python_and_marks_left_out(self):
        by_op = index.cpp_kernels(self.index)
        self.assertEqual(sorted(by_op), ["myops::add", "myops::hidden",
                                         "myops::inferred"])
        self.assertEqual([k["key"] for k in by_op["myops::add"]],
                         ["CPU", "CUDA"])


class DefinedFunctionsTest(unittest.TestCase):
    def test_definitions(self):
        found = index.defined_functions
        self.assertEqual(found("Tensor f(int a) {", {"f", "g"}), {"f"})
        self.assertEqual(found("auto g(int a) const noexcept -> T {",
                               {"g"}), {"g"})
        self.assertEqual(found("void ns::g(\n  int a,\n  int b)\n{", {"g"}),
                         {"g"})
        self.assertEqual(found("std::vector<int> g(int a) {", {"g"}), {"g"})
        self.assertEqual(found("Tensor f(int a);", {"f"}), set())
        self.assertEqual(found("Tensor ff(int a) {", {"f"}), set())
        self.assertEqual(found("Tensor f(int a) {", set()), set())

    def test_calls_are_not_definitions(self):
        found = index.defined_functions
        self.assertEqual(found("  if (forward(x)) {", {"forward"}), set())
        self.assertEqual(found("  while (!forward(x)) {", {"forward"}),
                         set())
        self.assertEqual(found("  return forward(x) {", {"forward"}), set())
        self.assertEqual(found("  y = forward(x) {", {"forward"}), set())


class OperatorFilesTest(Fixture):
    def test_why_a_file_matters(self):
        plain = write(os.path.join(self.d, "csrc", "plain.cpp"), "int x;\n")
        why = index.operator_files(self.index, [self.reg, self.impl, plain,
                                                self.hidden])
        self.assertEqual(why[self.reg], ["registers or defines operators"])
        self.assertEqual(why[self.impl], ["defines a kernel"])
        self.assertEqual(why[self.hidden], ["registers or defines operators"])
        self.assertNotIn(plain, why)

    # Issue 80: a file that registers a kernel to a dispatch stub which a
    # registered function calls matters (it was skipped as one where no
    # check can warn), as does a file defining that kernel.
    def test_dispatch_stub_kernels(self):
        krnl = write(os.path.join(self.d, "csrc", "kernels", "k.cpp"),
                     "void shrink_impl(at::Tensor &o) {}\n"
                     "REGISTER_DISPATCH(shrink_stub, &shrink_impl);\n")
        defs = write(os.path.join(self.d, "csrc", "kernels", "d.cpp"),
                     "void expand_impl(at::Tensor &o) {\n}\n")
        doc = dict(self.index, stub_kernels=[
            {"stub": "shrink_stub", "function": "shrink_impl",
             "device": "CPU", "file": krnl, "line": 2},
            {"stub": "expand_stub", "function": "ns::expand_impl",
             "device": "CPU", "file": krnl, "line": 3}])
        why = index.operator_files(doc, [krnl, defs])
        self.assertEqual(why[krnl], ["registers a dispatch-stub kernel",
                                     "defines a kernel"])
        self.assertEqual(why[defs], ["defines a kernel"])
        self.assertEqual(index.operator_files(self.index, [krnl, defs]), {})

    # Issue 80 (7): a C++ function a pybind11 module binds and a Python
    # custom op calls is judged where it is defined.
    def test_pybind_callees(self):
        defs = write(os.path.join(self.d, "csrc", "fill.cpp"),
                     "void fill_rows(at::Tensor out, const at::Tensor &s) {\n}\n")
        other = write(os.path.join(self.d, "csrc", "other.cpp"),
                      "void unbound(at::Tensor out) {\n}\n")
        doc = dict(self.index, pybind_callees=[
            {"name": "fill_rows", "function": "ns::fill_rows", "file": defs,
             "line": 5, "callers": [{"operator": "pw::fill", "file": "ops.py",
                                     "line": 7, "declares": "00"}]}])
        why = index.operator_files(doc, [defs, other])
        self.assertEqual(why, {defs: ["defines a function a Python custom op calls"]})


class RegisteringFilesTest(Fixture):
    def test_cpp_files_with_their_operators(self):
        found = index.registering_files(self.index)
        self.assertEqual(found[self.reg], ["myops::add", "myops::mul",
                                           "other::neg"])
        self.assertEqual(found[self.cu], ["myops::add"])
        self.assertEqual(found[self.unparsed], ["myops::inferred"])
        self.assertEqual(found[self.hidden], ["myops::hidden"])
        self.assertNotIn(self.py, found)


class SummaryTest(Fixture):
    def test_counts(self):
        s = index.summary(self.index)
        self.assertEqual(s, {
            "root": self.d, "operators": 5, "kernels": 5,
            "kernels_by_key": {"?": 1, "CPU": 3, "CUDA": 1},
            "fakes": 2,
            "fakes_by_how": {"Meta (m.impl)": 1, "register_fake": 1},
            "disallowed_in_graph": 1, "called_in_python_custom_ops": 0,
            "custom_class_methods": 0,
            "files_indexed": 9, "build_files_indexed": 0})
        self.assertIsNone(index.summary(None))

    def test_project_index_unseen_causes(self):
        linted = {self.reg, self.impl, self.unparsed}
        s = index.project_index(self.index, linted, {self.unparsed})
        self.assertEqual(s["kernels_unseen"], {
            "no C++ kernel registered in the project": 2,   # mul, neg
            "registered only in files not linted": 1,        # hidden
            "registered in files that did not parse": 1,     # inferred
        })
        self.assertEqual(s["operators"], 5)
        self.assertIsNone(index.project_index(None, set(), set()))


class LoadTest(unittest.TestCase):
    def fake_tidy(self, d, body):
        return write(os.path.join(d, "torch-tidy"), "#!/bin/sh\n" + body,
                     mode=stat.S_IRWXU)

    def test_load(self):
        with tempfile.TemporaryDirectory() as d:
            good = self.fake_tidy(d, 'echo "{\\"root\\": \\"$1\\", '
                                     '\\"files\\": 2}"\n')
            self.assertEqual(index.load(good, "/r"),
                             {"root": "--project-index=/r", "files": 2})
            bad = self.fake_tidy(d, "echo nope\n")
            self.assertIsNone(index.load(bad, "/r"))
            fails = self.fake_tidy(d, "echo '{}'; exit 1\n")
            self.assertIsNone(index.load(fails, "/r"))
            self.assertIsNone(index.load(os.path.join(d, "none"), "/r"))


if __name__ == "__main__":
    unittest.main()
