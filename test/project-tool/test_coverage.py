#!/usr/bin/env python3
"""Unit tests of torch_tidy_project.coverage: per operator, were its C++
kernels analysed, and if not why and what would bring them in; the run's
coverage and its gate. A synthetic project index over files in a temporary
folder."""
import contextlib
import io
import os
import tempfile
import unittest

from support import write
from torch_tidy_project import coverage as cov
from torch_tidy_project import report


def op(name, file):
    return {"namespace": "myops", "schema": f"{name}(Tensor x) -> Tensor",
            "file": file, "line": 1}


def kernel(name, key, file, line=1, function=None):
    return {"namespace": "myops", "operator": name, "key": key,
            "fake": False, "how": "m.impl", "function": function,
            "file": file, "line": line}


NOT_IN_DB_REMEDY = "a build that compiles the file (or --database with one that " \
                   "lists it)"


class MeasureTest(unittest.TestCase):
    """myops::a  CPU kernel a_cpu defined in src/a_impl.cpp: analysed
    myops::b  registered in src/b.cpp, which did not parse
    myops::c  CUDA, src/cuda/c_kernel.cu not in the database; TT_WITH_CUDA
    myops::d  src/extra/d_op.cpp not in the database, no switch matches
    myops::e  a schema, no C++ kernel
    myops::f  src/extra/f_op.cpp not in the database, no switch matches
    myops::g  CPU in src/reg.cpp (analysed), CUDA in src/cuda/g_kernel.cu
              (not in the database)
    myops::h  src/h.cpp in the database, not linted
    myops::i  src/i.cpp in the database, left out by FILE_REGEX"""

    def setUp(self):
        self._tmp = tempfile.TemporaryDirectory()
        root = self.root = os.path.realpath(self._tmp.name)

        def f(rel, text=""):
            return write(os.path.join(root, rel), text)
        self.reg = f("src/reg.cpp", "TORCH_LIBRARY_IMPL(myops, CPU, m) {\n"
                                    "  m.impl(\"a\", &a_cpu);\n}\n")
        self.a_impl = f("src/a_impl.cpp",
                        "at::Tensor a_cpu(const at::Tensor& x) {\n"
                        "  return x;\n}\n")
        self.b = f("src/b.cpp")
        self.c = f("src/cuda/c_kernel.cu")
        self.d = f("src/extra/d_op.cpp")
        self.f = f("src/extra/f_op.cpp")
        self.g = f("src/cuda/g_kernel.cu")
        self.h = f("src/h.cpp")
        self.i = f("src/i.cpp")
        f(".hidden/ignored.cpp", "at::Tensor a_cpu(int x) {\n}\n")
        f("src/util/helper.cpp")  # no kernel, in no database entry
        f("tests/test_ops.cpp")   # a test: not the project's sources
        self.index = {
            "root": root, "files": 10,
            "operators": [op(n, self.reg) for n in "abcdefghi"],
            "kernels": [
                kernel("a", "CPU", self.reg, 2, "a_cpu"),
                kernel("b", "CPU", self.b),
                kernel("c", "CUDA", self.c),
                kernel("d", "CPU", self.d),
                kernel("f", "CPU", self.f),
                kernel("g", "CPU", self.reg, 3),
                kernel("g", "CUDA", self.g),
                kernel("h", "CPU", self.h),
                kernel("i", "CPU", self.i),
                dict(kernel("e", "Meta", self.reg, 9), fake=True),
            ]}
        self.database_files = {self.reg, self.a_impl, self.b, self.h,
                               self.i}
        self.linted = {self.reg, self.a_impl, self.b}
        self.unparsed = {self.b}
        self.switches = [cov.Switch("TT_WITH_CUDA", "env"),
                         cov.Switch("BUILD_SRC", "env")]
        self.result = cov.measure(
            self.index, root, self.database_files, self.linted,
            self.unparsed, self.switches,
            {self.b: "'missing.h' not found"}, {self.i})

    def tearDown(self):
        self._tmp.cleanup()

    def kernel_of(self, name, i=0):
        return self.result["by_operator"][f"myops::{name}"]["kernels"][i]

    def test_analysed_kernel(self):
        a = self.result["by_operator"]["myops::a"]
        self.assertEqual(a["status"], "analysed")
        self.assertTrue(a["analysed"])
        self.assertEqual(a["kernels"], [{"key": "CPU", "analysed": True,
                                         "files": ["src/a_impl.cpp"],
                                         "registered_at": "src/reg.cpp:2"}])

    def test_not_parsed(self):
        k = self.kernel_of("b")
        self.assertFalse(k["analysed"])
        self.assertEqual(k["why"], cov.NOT_PARSED)
        self.assertEqual(k["bring_in"],
                         "src/b.cpp: what it lacks to parse ('missing.h' not "
                         "found)")

    def test_left_out_by_an_environment_switch(self):
        k = self.kernel_of("c")
        self.assertEqual(k["why"], cov.LEFT_OUT)
        self.assertEqual(k["why"], "left out by the build's configuration")
        self.assertEqual(k["bring_in"],
                         "src/cuda/c_kernel.cu: --env TT_WITH_CUDA=1")
        self.assertNotIn("BUILD_SRC", k["bring_in"])

    def test_not_in_database_without_a_switch(self):
        for name, rel in (("d", "src/extra/d_op.cpp"),
                          ("f", "src/extra/f_op.cpp")):
            k = self.kernel_of(name)
            self.assertEqual(k["why"], cov.NOT_IN_DATABASE)
            self.assertEqual(k["bring_in"], f"{rel}: {NOT_IN_DB_REMEDY}")

    def test_not_linted(self):
        self.assertEqual((self.kernel_of("h")["why"],
                          self.kernel_of("h")["bring_in"]),
                         (cov.NOT_LINTED, "src/h.cpp: --all-files"))
        self.assertEqual((self.kernel_of("i")["why"],
                          self.kernel_of("i")["bring_in"]),
                         (cov.NOT_LINTED,
                          "src/i.cpp: a run without FILE_REGEX"))

    def test_partly_analysed(self):
        g = self.result["by_operator"]["myops::g"]
        self.assertEqual(g["status"], "partly analysed")
        self.assertFalse(g["analysed"])
        self.assertEqual([k["analysed"] for k in g["kernels"]], [True, False])
        self.assertEqual(g["kernels"][1]["why"], cov.LEFT_OUT)

    def test_operator_without_cpp_kernel_not_counted(self):
        e = self.result["by_operator"]["myops::e"]
        self.assertEqual(e, {"analysed": False, "status": cov.NO_KERNEL,
                             "kernels": []})
        self.assertEqual(self.result["operators"],
                         {"total": 9, "with_cpp_kernels": 8, "analysed": 1})

    def test_counts_and_share(self):
        r = self.result
        self.assertEqual(r["kernels"], {"total": 9, "analysed": 2})
        self.assertEqual(r["files"], {
            "linted": 3, "parsed": 2,
            # The project's sources in no database entry where no kernel is
            # registered or defined: said, not counted.
            "not_in_database": ["src/util/helper.cpp"]})
        self.assertAlmostEqual(r["share"], min(2 / 9, 2 / 3))
        self.assertFalse(cov.gate(r, 0.9))
        self.assertTrue(cov.gate(r, 0.2))
        self.assertTrue(cov.gate(r, 0))

    def test_unseen(self):
        unseen = cov.unseen(self.result)
        self.assertEqual([u[0] for u in unseen],
                         ["myops::" + n for n in "bcdfghi"])
        self.assertEqual(dict((u[0], u[1]) for u in unseen)["myops::g"],
                         "partly analysed")
        self.assertEqual(dict((u[0], u[2]) for u in unseen)["myops::c"],
                         ["src/cuda/c_kernel.cu: --env TT_WITH_CUDA=1"])

    def test_bring_in_most_common_first(self):
        self.assertEqual(cov.bring_in(self.result), [
            "--env TT_WITH_CUDA=1", NOT_IN_DB_REMEDY,
            "what it lacks to parse ('missing.h' not found)",
            "--all-files", "a run without FILE_REGEX"])


class QualifiedKernelTest(unittest.TestCase):
    def test_a_qualified_kernel_is_not_matched_by_its_bare_name(self):
        # `&Reader::Create<T>` registered: eight files define a `Create`, one
        # of them Reader's; only that one holds the kernel's body.
        with tempfile.TemporaryDirectory() as tmp:
            root = os.path.realpath(tmp)
            reg = write(os.path.join(root, "register.cpp"))
            reader = write(os.path.join(root, "reader.cpp"),
                           "template <class T>\nvoid Reader::Create(T x) {}\n")
            others = [write(os.path.join(root, f"other{n}.cpp"),
                            "void Create(int x) {}\n") for n in range(7)]
            index = {"operators": [op("make", reg)],
                     "kernels": [kernel("make", "CPU", reg,
                                        function="Reader::Create")]}
            files = {reg, reader, *others}
            r = cov.measure(index, root, files, {reg, *others}, set(), [])
        k = r["by_operator"]["myops::make"]["kernels"][0]
        self.assertEqual(k["files"], ["reader.cpp"])
        self.assertFalse(k["analysed"])  # reader.cpp was not linted


class CustomClassMethodsTest(unittest.TestCase):
    def test_listed_apart_and_not_counted(self):
        # Issue 58: TorchScript custom classes' methods are not operators;
        # they are listed under their own heading, analysed where the file
        # that defines the method (or registers it) parsed.
        with tempfile.TemporaryDirectory() as d:
            root = os.path.realpath(d)
            reg = write(os.path.join(root, "csrc", "classes.cpp"),
                        "TORCH_LIBRARY(cc, m) {}\n")
            work = write(os.path.join(root, "csrc", "work.cpp"),
                         "at::Tensor Work::wait() {\n  return t;\n}\n")
            bad = write(os.path.join(root, "csrc", "other.cpp"),
                        "at::Tensor Other::wait() {\n  return t;\n}\n")
            method = dict(kernel("Work.wait", "CustomClassMethod", reg, 3,
                                 "Work::wait"), namespace="cc",
                          how="class_.def")
            other = dict(method, operator="Other.wait",
                         function="Other::wait", line=4)
            init = dict(method, operator="Work.__init__", function="",
                        line=2)
            index = {"operators": [op("run", reg)],
                     "kernels": [kernel("run", "CPU", reg, 5),
                                 method, other, init]}
            c = cov.measure(index, root, {reg, work, bad},
                            {reg, work, bad}, {bad}, [])
            self.assertEqual(c["kernels"], {"total": 1, "analysed": 1})
            self.assertEqual(sorted(c["by_operator"]), ["myops::run"])
            m = c["custom_class_methods"]
            self.assertEqual((m["total"], m["analysed"]), (3, 2))
            self.assertEqual(m["methods"]["cc::Work.wait"],
                             {"files": ["csrc/work.cpp"], "analysed": True,
                              "registered_at": "csrc/classes.cpp:3"})
            self.assertFalse(m["methods"]["cc::Other.wait"]["analysed"])
            self.assertEqual(m["methods"]["cc::Work.__init__"]["files"],
                             ["csrc/classes.cpp"])


class ShareTest(unittest.TestCase):
    def test_file_share_lower_than_kernel_share(self):
        with tempfile.TemporaryDirectory() as tmp:
            root = os.path.realpath(tmp)
            files = [write(os.path.join(root, f"{n}.cpp")) for n in "abcd"]
            index = {"operators": [op("a", files[0])],
                     "kernels": [kernel("a", "CPU", files[0])]}
            r = cov.measure(index, root, set(files), set(files),
                            set(files[2:]), [])
        self.assertEqual(r["kernels"], {"total": 1, "analysed": 1})
        self.assertEqual(r["share"], 0.5)

    def test_nothing_to_measure(self):
        with tempfile.TemporaryDirectory() as root:
            r = cov.measure({"operators": [], "kernels": []}, root, set(),
                            set(), set(), [])
        self.assertIsNone(r["share"])
        self.assertTrue(cov.gate(r, 1.0))
        self.assertEqual(cov.unseen(r), [])
        self.assertEqual(cov.bring_in(r), [])

    def test_a_fallback_database_counts_no_kernel(self):
        # Kernels parsed in a database made from the CMake sources (another
        # configuration than the build's) never count toward the gate.
        with tempfile.TemporaryDirectory() as tmp:
            root = os.path.realpath(tmp)
            files = [write(os.path.join(root, f"{n}.cpp")) for n in "ab"]
            index = {"operators": [op("a", files[0])],
                     "kernels": [kernel("a", "CPU", files[0])]}
            r = cov.measure(index, root, set(files), set(files), set(), [])
        self.assertEqual(r["share"], 1.0)
        cov.approximate(r, "from the CMake sources")
        self.assertEqual(r["share"], 0.0)
        self.assertEqual(r["kernels"], {"total": 1, "analysed": 1})
        self.assertFalse(cov.gate(r, 0.9))
        self.assertEqual(r["approximate"], "from the CMake sources")

    def test_registered_but_never_defined_is_not_green(self):
        # openequivariance: its C++ library block hides behind an alias
        # macro (`#define REGISTER_LIBRARY TORCH_LIBRARY`) the index does
        # not read, while Python registers a fake and an autograd for each
        # operator. Nothing measured, or every linted file parsed: the gate
        # must not pass on it, and names the operators and the file.
        from torch_tidy_project import report
        with tempfile.TemporaryDirectory() as tmp:
            root = os.path.realpath(tmp)
            lib = write(os.path.join(root, "csrc", "lib.cpp"),
                        "#define REGISTER_LIBRARY TORCH_LIBRARY\n")
            hpp = write(os.path.join(root, "csrc", "core.hpp"),
                        "REGISTER_LIBRARY(tp, m) { m.def(\"f(Tensor x) -> "
                        "Tensor\"); }\n")
            py = write(os.path.join(root, "tp", "ops.py"))
            fake = dict(kernel("f", "Fake", py), how="register_fake")
            auto = dict(kernel("f", "Autograd", py), how="register_autograd")
            index = {"operators": [], "kernels": [
                dict(fake, namespace="tp"), dict(auto, namespace="tp"),
                dict(kernel("add", "Fake", py), namespace="aten")]}
            undefined = cov.undefined_operators(index, root)
            # (core.hpp names only the alias)
            self.assertEqual(undefined, {"operators": ["tp::f"],
                                         "files": ["csrc/lib.cpp"]})
            for linted in (set(), {lib}):
                r = cov.measure(index, root, linted, linted, set(), [])
                r["undefined"] = undefined
                self.assertFalse(cov.gate(r, 0.9), linted)
                code, reasons, last = report.verdict(
                    {"warnings", "coverage"}, {}, 0, r, 0.9)
                self.assertEqual((code, reasons), (3, ["coverage"]), last)
                self.assertIn("1 operator the project registers kernels or "
                              "fakes for, whose definition the project "
                              "index did not read: tp::f (named "
                              "TORCH_LIBRARY where no registration was "
                              "read: csrc/lib.cpp", last)
            self.assertIn("nothing measured, yet", report.coverage_text(
                dict(cov.measure(index, root, set(), set(), set(), []),
                     undefined=undefined)))
            # A namespace of torch's own (the --python torch's, beyond the
            # hand list: inductor's fakes) is not the project's to define.
            index["kernels"].append(dict(kernel("resize", "Fake", py),
                                         namespace="inductor"))
            self.assertEqual(cov.undefined_operators(index, root)[
                "operators"], ["inductor::resize", "tp::f"])
            self.assertEqual(cov.undefined_operators(
                index, root, ["aten", "inductor"])["operators"], ["tp::f"])
            index["kernels"].pop()
            # Defined in Python (custom_op, torch.library.define): nothing
            # is undefined.
            index["kernels"].append(dict(kernel("f", "CustomOp", py),
                                         namespace="tp",
                                         how="torch.library.custom_op"))
            self.assertEqual(cov.undefined_operators(index, root),
                             {"operators": [], "files": []})

    def test_defined_operators_with_no_kernel_the_index_read(self):
        # Issue 80 (bitsandbytes): operators defined in Python whose kernels
        # are registered through `register_kernel` imported from another
        # module under that name: only fakes read. The gate does not pass
        # on nothing measured, and names them; a kernel of any key but a
        # fake's (CompositeExplicitAutograd, a device's) is one.
        from torch_tidy_project import report
        with tempfile.TemporaryDirectory() as tmp:
            root = os.path.realpath(tmp)
            py = write(os.path.join(root, "bnb", "_ops.py"))
            index = {"operators": [
                {"namespace": "", "schema": f"bnb::{n}(Tensor A) -> Tensor",
                 "file": py, "line": 1} for n in ("quant", "dequant",
                                                    "gemm")],
                "kernels": [
                    dict(kernel("quant", "Fake", py), namespace="bnb",
                         how="register_fake"),
                    dict(kernel("dequant", "CompositeExplicitAutograd", py),
                         namespace="bnb", how="register_kernel"),
                    dict(kernel("x", "Fake", py), namespace="aten")]}
            self.assertEqual(cov.kernelless_operators(index),
                             ["bnb::gemm", "bnb::quant"])
            r = cov.measure(index, root, set(), set(), set(), [])
            self.assertTrue(cov.gate(r, 0.9))
            r["kernelless"] = cov.kernelless_operators(index)
            self.assertFalse(cov.gate(r, 0.9))
            code, reasons, last = report.verdict(
                {"warnings", "coverage"}, {}, 0, r, 0.9)
            self.assertEqual((code, reasons), (3, ["coverage"]), last)
            self.assertIn("nothing measured, yet 2 operators the project "
                          "defines with no kernel the project index read",
                          last)
            self.assertIn("bnb::gemm, bnb::quant", last)
            # Operators whose kernels are all Python functions: named as
            # not analysed (a C++ kernel beside one makes it C++'s).
            cxx = write(os.path.join(root, "csrc", "k.cpp"))
            index["kernels"] += [
                dict(kernel("gemm", "CPU", py), namespace="bnb",
                     how="torch.library.register_kernel (imported)"),
                dict(kernel("both", "CUDA", py), namespace="bnb"),
                dict(kernel("both", "CPU", cxx), namespace="bnb")]
            self.assertEqual(cov.python_kernel_operators(index),
                             ["bnb::dequant", "bnb::gemm"])
            # A custom op that calls a pybind11-bound C++ function is not.
            followed = dict(index, pybind_callees=[{"name": "gemm", "callers": [
                {"operator": "bnb::gemm"}]}])
            self.assertEqual(cov.python_kernel_operators(followed),
                             ["bnb::dequant"])
            # With nothing measured, they fail the gate and are named.
            r = cov.measure(index, root, set(), set(), set(), [])
            r["python_kernels"] = cov.python_kernel_operators(index)
            self.assertFalse(cov.gate(r, 0.9))
            code, reasons, last = report.verdict(
                {"warnings", "coverage"}, {}, 0, r, 0.9)
            self.assertEqual((code, reasons), (3, ["coverage"]), last)
            self.assertIn("nothing measured, yet 2 operators with only Python "
                          "kernels, which no check analyses", last)

    def test_a_kernel_in_a_header_a_parsed_file_includes(self):
        # openequivariance registers its kernels in torch_core.hpp, which
        # the .cpp that parsed includes: analysed there; not where no file
        # that parsed includes it. The header is no file of the file share.
        with tempfile.TemporaryDirectory() as tmp:
            root = os.path.realpath(tmp)
            cpp = write(os.path.join(root, "ext", "lib.cpp"))
            hpp = write(os.path.join(root, "ext", "core.hpp"))
            index = {"operators": [op("f", hpp)],
                     "kernels": [kernel("f", "CUDA", hpp)]}
            r = cov.measure(index, root, {cpp}, {cpp}, set(), [],
                            included={cpp, hpp, "/usr/include/x.h"})
            self.assertEqual(r["kernels"], {"total": 1, "analysed": 1})
            self.assertEqual(r["files"]["parsed"], 1)
            r = cov.measure(index, root, {cpp}, {cpp}, set(), [])
            k = r["by_operator"]["myops::f"]["kernels"][0]
            self.assertFalse(k["analysed"])
            self.assertEqual(k["bring_in"], "ext/core.hpp: a header; a "
                             "linted file that includes it and parses (a "
                             "build that compiles one)")
            # One that did not parse credits nothing (cli passes only the
            # parsed files' reads).
            r = cov.measure(index, root, {cpp}, {cpp}, {cpp}, [],
                            included=set())
            self.assertEqual(r["kernels"]["analysed"], 0)

    def test_the_compilers_view_of_the_registrations(self):
        # ops.cpp registers twice's CPU kernel through a macro the index
        # does not expand, and, under #if WITH_CUDA (not compiled), a CUDA
        # kernel the index reads; halve's CPU kernel is read by both. The
        # compiler saw a third operator's kernel whose body is elsewhere.
        with tempfile.TemporaryDirectory() as tmp:
            root = os.path.realpath(tmp)
            cpp = write(os.path.join(root, "csrc", "ops.cpp"))
            index = {"operators": [op("twice", cpp), op("halve", cpp)],
                     "kernels": [kernel("halve", "CPU", cpp, 13, "halve"),
                                 kernel("twice", "CUDA", cpp, 16)]}

            def reg(name, key, line, defined=True):
                return {"operator": f"myops::{name}", "kind": "kernel",
                        "key": key, "function": f"{name}_cpu",
                        "defined": defined, "file": cpp, "line": line}
            harvest = {"file": cpp, "registrations": [
                {"operator": "myops::twice", "kind": "schema",
                 "inferred": False, "file": cpp, "line": 8},
                reg("twice", "CPU", 12), reg("halve", "CPU", 13),
                reg("hidden", "CPU", 20, defined=False),
                # A fake the compiler saw is no C++ kernel to count.
                reg("twice", "Meta", 21)]}
            r = cov.measure(index, root, {cpp}, {cpp}, set(), [])
            self.assertEqual(r["kernels"], {"total": 2, "analysed": 2})
            r["counted_from"] = "index"
            cov.with_compiler(r, [harvest], index, root)
            self.assertEqual(r["compiler"], {
                "files": 1,
                "operators_only_compiler": ["myops::hidden at "
                                            "csrc/ops.cpp:20"],
                "kernels_only_compiler": [
                    "myops::hidden CPU at csrc/ops.cpp:20",
                    "myops::twice CPU at csrc/ops.cpp:12"],
                "kernels_only_index": [
                    "myops::twice CUDA at csrc/ops.cpp:16"],
                "not_read": {}})
            # Counted on the index: the CUDA kernel the build does not
            # compile counts for nothing; twice's CPU kernel is analysed
            # (its body is in the file); hidden's is not (elsewhere, and
            # the index did not read its registration): not green.
            self.assertEqual(r["kernels"], {"total": 3, "analysed": 2})
            twice = r["by_operator"]["myops::twice"]["kernels"]
            self.assertEqual([(k["key"], k["analysed"], k.get("seen_by"))
                              for k in twice], [("CPU", True, "compiler")])
            hidden = r["by_operator"]["myops::hidden"]["kernels"][0]
            self.assertFalse(hidden["analysed"])
            self.assertEqual(hidden["why"], cov.NOT_INDEXED_COMPILED)
            self.assertEqual(r["operators"], {"total": 3,
                                              "with_cpp_kernels": 3,
                                              "analysed": 2})
            self.assertFalse(cov.gate(r, 0.9))
            # Counted on the registry: listed, not counted.
            r = cov.measure(index, root, {cpp}, {cpp}, set(), [])
            cov.with_compiler(r, [harvest], index, root, count=False)
            self.assertEqual(r["kernels"], {"total": 2, "analysed": 2})
            self.assertEqual(len(r["compiler"]["kernels_only_compiler"]), 2)

    def test_the_files_the_compiler_did_not_read_are_named_by_why(self):
        with tempfile.TemporaryDirectory() as root:
            root = os.path.realpath(root)
            files = {}
            for name in ("ops.cpp", "util.cpp", "bad.cpp", "plain.cpp"):
                files[name] = os.path.join(root, "csrc", name)
            index = {"operators": [], "kernels": []}
            r = cov.measure(index, root, set(files.values()),
                            set(files.values()), set(), [])
            r["counted_from"] = "index"
            unread = {cov.NOT_READ_PRUNED: [files["util.cpp"]],
                      cov.NOT_READ_REGEX: [],
                      cov.NOT_READ_UNPARSED: [files["bad.cpp"]],
                      cov.NOT_READ_NO_CHECK: [files["plain.cpp"]]}
            harvest = {"file": files["ops.cpp"], "registrations": []}
            cov.with_compiler(r, [harvest], index, root, unread=unread)
            self.assertEqual(r["compiler"]["files"], 1)
            self.assertEqual(r["compiler"]["not_read"], {
                cov.NOT_READ_PRUNED: ["csrc/util.cpp"],
                cov.NOT_READ_UNPARSED: ["csrc/bad.cpp"],
                cov.NOT_READ_NO_CHECK: ["csrc/plain.cpp"]})
            # The summary says how many, and why, even when the compiler
            # read none of them.
            r2 = cov.measure(index, root, set(files.values()),
                             set(files.values()), set(), [])
            r2["counted_from"] = "index"
            cov.with_compiler(r2, [], index, root, unread=unread)
            out = io.StringIO()
            with contextlib.redirect_stdout(out):
                report.compiler_lines(r2)
            text = out.getvalue()
            self.assertIn("3 files of the database the compiler did not "
                          "read", text)
            self.assertIn(f"1 {cov.NOT_READ_PRUNED}: csrc/util.cpp", text)
            self.assertNotIn("files linted, as the compiler", text)

    def test_gate_boundary(self):
        self.assertTrue(cov.gate({"share": 0.9}, 0.9))
        self.assertTrue(cov.gate({"share": 0.8999999999999}, 0.9))
        self.assertFalse(cov.gate({"share": 0.89}, 0.9))
        self.assertTrue(cov.gate({"share": 0.0}, 0.0))


class SwitchesTest(unittest.TestCase):
    def test_words_every_path_shares_are_ignored(self):
        root = "/r"
        paths = ["/r/mypkg/csrc/cuda/a.cu", "/r/mypkg/csrc/cpu/b.cpp"]
        switches = [cov.Switch("MYPKG_BUILD", "env"),
                    cov.Switch("MYPKG_CUDA", "env"),
                    cov.Switch("WITH_CPU", "cmake", "OFF"),
                    cov.Switch("USE_CSRC", "env")]
        found = cov.switches_for(paths, switches, root)
        self.assertEqual({p: [s.name for s in ss] for p, ss in found.items()},
                         {paths[0]: ["MYPKG_CUDA"], paths[1]: ["WITH_CPU"]})

    def test_variables_holding_values_are_not_switches(self):
        paths = ["/r/csrc/cuda/a.cu", "/r/csrc/cpu/b.cpp"]
        found = cov.switches_for(paths, [cov.Switch("TORCH_CUDA_ARCH_LIST",
                                                    "env"),
                                         cov.Switch("CUDA_HOME", "env"),
                                         cov.Switch("FORCE_CUDA", "env")],
                                 "/r")
        self.assertEqual({p: [s.name for s in ss] for p, ss in found.items()},
                         {paths[0]: ["FORCE_CUDA"]})

    def test_options_on_by_default_are_not_switches(self):
        # deepmd-kit: DEEPMD_CUDA_PORTABLE_PTX is ON unless told otherwise;
        # "-D DEEPMD_CUDA_PORTABLE_PTX=ON" brings nothing in.
        switches = cov.cmake_switches({"DEEPMD_CUDA_PORTABLE_PTX": "ON",
                                       "BYPASS_CUDA_CHECK": "TRUE",
                                       "WITH_CUDA": "OFF"})
        self.assertEqual([s.name for s in switches], ["WITH_CUDA"])
        found = cov.switches_for(["/r/op/a.cu", "/r/op/b.cpp"], switches,
                                 "/r")
        self.assertEqual([s.hint() for s in found["/r/op/a.cu"]],
                         ["-D WITH_CUDA=ON"])

    def test_generic_words_ignored(self):
        found = cov.switches_for(["/r/a/with_build.cpp", "/r/b/x.cpp"],
                                 [cov.Switch("WITH_BUILD", "env")], "/r")
        self.assertEqual(found, {})

    def test_cu_files_hold_the_word_cuda(self):
        self.assertIn("cuda", cov.path_words("/r/k/kernel.cu", "/r"))
        self.assertNotIn("cuda", cov.path_words("/r/k/kernel.cpp", "/r"))

    def test_hints(self):
        self.assertEqual(cov.Switch("X", "env").hint(), "--env X=1")
        self.assertEqual(cov.Switch("WITH_X", "cmake", "OFF").hint(),
                         "-D WITH_X=ON")

    def test_tree_sources_skip_hidden(self):
        with tempfile.TemporaryDirectory() as d:
            for rel in ("a.c", "b/c.cu", ".git/d.cpp", "e.h", "f.py"):
                write(os.path.join(d, rel))
            found = sorted(os.path.relpath(p, d)
                           for p in cov.tree_sources(d))
        self.assertEqual(found, ["a.c", "b/c.cu"])

    def test_tree_sources_of_the_project_own(self):
        with tempfile.TemporaryDirectory() as d:
            for rel in ("csrc/a.cpp", "third_party/x/b.cpp", "tests/c.cpp",
                        "build/d.cpp", "benchmark/e.cu", "csrc/cuda/f.cu"):
                write(os.path.join(d, rel))
            every = sorted(os.path.relpath(p, d)
                           for p in cov.tree_sources(d))
            own = sorted(os.path.relpath(p, d)
                         for p in cov.tree_sources(d, own_only=True))
        self.assertEqual(len(every), 6)
        self.assertEqual(own, ["csrc/a.cpp", "csrc/cuda/f.cu"])


if __name__ == "__main__":
    unittest.main()
