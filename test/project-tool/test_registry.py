#!/usr/bin/env python3
"""Unit tests of torch_tidy_project.registry and coverage.with_registry:
torch's registry as the count of kernels (issue 58, item 2). Synthetic
registries over files in a temporary folder; one case reads a real registry
from TORCH_TIDY_PYTHON_28's torch (a Python-defined operator), and says
SKIPPED by name where that Python is missing."""
import io
import os
import subprocess
import sys
import tempfile
import unittest
from contextlib import redirect_stdout

from support import write
from torch_tidy_project import coverage as cov
from torch_tidy_project import registry, report


def kernel(name, key, file, line=1, function=None, fake=False, ns="myops"):
    return {"namespace": ns, "operator": name, "key": key, "fake": fake,
            "how": "m.impl", "function": function, "file": file,
            "line": line}


def schema(name, file, ns="myops"):
    return {"namespace": ns, "schema": f"{name}(Tensor x) -> Tensor",
            "file": file, "line": 1}


def reg_kernel(key, file, line):
    return {"key": key, "file": file, "line": line, "unboxed": True}


def a_registry(ops):
    return registry.Registry({"torch": "2.8.0", "imported": ["mypkg"],
                              "failed": {}, "loaded": [], "not_loaded": {},
                              "operators": ops}, ["mypkg"], "python3")


class ProjectFileTest(unittest.TestCase):
    def test_the_longest_common_tail_names_the_file(self):
        sources = ["/p/csrc/cpu/ops.cpp", "/p/csrc/cuda/ops.cpp",
                   "/p/csrc/reg.cpp"]
        # Compiled in another checkout (a wheel's build folder).
        self.assertEqual(registry.project_file(
            "/tmp/pip-req-build-x/csrc/cpu/ops.cpp", sources, "/p"),
            "/p/csrc/cpu/ops.cpp")
        self.assertEqual(registry.project_file(
            "/build/csrc/reg.cpp", sources, "/p"), "/p/csrc/reg.cpp")

    def test_a_name_shared_by_two_files_is_not_guessed(self):
        sources = ["/p/a/ops.cpp", "/p/b/ops.cpp"]
        self.assertIsNone(registry.project_file("/elsewhere/ops.cpp",
                                                sources, "/p"))
        self.assertIsNone(registry.project_file("/x/other.cpp", sources,
                                                "/p"))


class MatchTest(unittest.TestCase):
    def test_keys_torch_registers_under_another_name(self):
        # TORCH_LIBRARY_IMPL(ns, Autocast, m) registers for AutocastCUDA.
        reg = a_registry({"myops::a": {
            "schema": None, "defined_at": None, "fake": None,
            "kernels": [reg_kernel("AutocastCUDA", "/b/src/a.cpp", 3)]}})
        pairs, only_reg, only_idx = registry.match(
            reg, {"myops::a": [kernel("a", "Autocast", "/p/src/a.cpp", 4)]},
            ["/p/src/a.cpp"], "/p")
        self.assertEqual((len(pairs), only_reg, only_idx), (1, [], []))

    def test_overloads_pair_with_their_operators_registrations(self):
        # The registry names ns::a and ns::a.out; the index keeps both
        # m.impl("a", ...) and m.impl("a.out", ...) under ns::a.
        reg = a_registry({
            "myops::a": {"schema": None, "defined_at": None, "fake": None,
                         "kernels": [reg_kernel("CPU", "/b/src/a.cpp", 3)]},
            "myops::a.out": {"schema": None, "defined_at": None,
                             "fake": None,
                             "kernels": [reg_kernel("CPU", "/b/src/a.cpp",
                                                    4)]}})
        pairs, only_reg, only_idx = registry.match(
            reg, {"myops::a": [kernel("a", "CPU", "/p/src/a.cpp", 3),
                               kernel("a", "CPU", "/p/src/a.cpp", 4)]},
            ["/p/src/a.cpp"], "/p")
        self.assertEqual(sorted(p[0] for p in pairs),
                         ["myops::a", "myops::a.out"])
        self.assertEqual((only_reg, only_idx), ([], []))
        # One index registration pairs once: the other overload is missed.
        pairs, only_reg, _ = registry.match(
            reg, {"myops::a": [kernel("a", "CPU", "/p/src/a.cpp", 3)]},
            ["/p/src/a.cpp"], "/p")
        self.assertEqual((len(pairs), [o[0] for o in only_reg]),
                         (1, ["myops::a.out"]))
        self.assertEqual(registry.base_name("myops::a.out"), "myops::a")
        self.assertEqual(registry.base_name("a"), "a")


class SitesTest(unittest.TestCase):
    def test_what_the_checks_read(self):
        # Operators with a C++ kernel in the registry, overloads together,
        # every key (alias suffix dropped), the Python fake at the project's
        # file, a Python kernel with no place; an operator defined in
        # Python alone is left to the index.
        with tempfile.TemporaryDirectory() as root:
            write(os.path.join(root, "csrc", "ops.cpp"),
                  "TORCH_LIBRARY(myops, m) {}\n")
            write(os.path.join(root, "mypkg", "fakes.py"), "import torch\n")
            reg = a_registry({
                "myops::a": {"schema": None, "defined_at": None,
                             "fake": "/site/mypkg/fakes.py:7",
                             "kernels": [
                                 reg_kernel("CPU", "/b/csrc/ops.cpp", 3),
                                 reg_kernel("Meta", "/dev/null", 0),
                                 reg_kernel("Autograd[alias]",
                                            "/b/csrc/ops.cpp", 9)]},
                "myops::a.out": {"schema": None, "defined_at": None,
                                 "fake": None, "kernels": [
                                     reg_kernel("CPU", "/b/csrc/ops.cpp",
                                                4)]},
                "myops::py": {"schema": None, "defined_at": None,
                              "fake": "/site/mypkg/fakes.py:9",
                              "kernels": [reg_kernel("CPU", "/dev/null",
                                                     0)]}})
            index = {"operators": [schema("a", os.path.join(
                root, "csrc", "ops.cpp"))], "kernels": []}
            got = registry.sites(reg, index, root)
            real = os.path.realpath(root)
            ops = os.path.join(real, "csrc", "ops.cpp")
            self.assertEqual(got["torch"], "2.8.0")
            self.assertEqual(sorted(got["operators"]), ["myops::a"])
            self.assertEqual(
                [(s["key"], s["file"], s["line"])
                 for s in got["operators"]["myops::a"]],
                [("CPU", ops, 3), ("Meta", "a Python registration", 0),
                 ("Autograd", ops, 9),
                 ("Fake", os.path.join(real, "mypkg", "fakes.py"), 7),
                 ("CPU", ops, 4)])
            folder = os.path.join(root, "out")
            os.makedirs(folder)
            write(os.path.join(folder, "sites-old.json"), "{}")
            path = registry.write_sites(reg, index, root, folder)
            self.assertEqual(os.listdir(folder), [os.path.basename(path)])
            self.assertEqual(registry.write_sites(reg, index, root, folder),
                             path)


class CandidateModulesTest(unittest.TestCase):
    def test_packages_at_the_root_and_under_src(self):
        with tempfile.TemporaryDirectory() as root:
            write(os.path.join(root, "mypkg", "__init__.py"))
            write(os.path.join(root, "src", "other", "__init__.py"))
            write(os.path.join(root, "tests", "__init__.py"))
            write(os.path.join(root, "third_party", "dep", "__init__.py"))
            write(os.path.join(root, "csrc", "ops.cpp"))
            self.assertEqual(registry.candidate_modules(root),
                             ["mypkg", "other"])


class OwnPackagesTest(unittest.TestCase):
    # Issue 80: setup()'s packages name what the registry imports
    # (bitsandbytes' find_packages() gave `tests` too).
    def test_tests_and_docs_left_out(self):
        self.assertEqual(registry.own_packages(
            ["tests", "bitsandbytes", "docs", "_private", "kaldifeat"]),
            ["bitsandbytes", "kaldifeat"])


class WithRegistryTest(unittest.TestCase):
    """The sources: myops::a (CPU in src/reg.cpp, body in src/a_impl.cpp,
    parsed; CUDA in src/cuda/a.cu, not built), myops::b (schema only in the
    sources; the build registers a CPU kernel for it through a macro of
    another file the index did not read), a Meta kernel of a (a fake: not
    counted). The registry also holds torchvision::nms, registered by a
    package the project imports."""

    def setUp(self):
        self._tmp = tempfile.TemporaryDirectory()
        root = self.root = os.path.realpath(self._tmp.name)

        def f(rel, text=""):
            return write(os.path.join(root, rel), text)
        self.reg = f("src/reg.cpp", "TORCH_LIBRARY_IMPL(myops, CPU, m) {\n"
                     "  m.impl(\"a\", &a_cpu);\n}\n")
        self.a_impl = f("src/a_impl.cpp", "at::Tensor a_cpu(const at::Tensor"
                        "& x) {\n  return x;\n}\n")
        self.cu = f("src/cuda/a.cu")
        self.b = f("src/b.cpp", "REGISTER_ALL(myops)\n")
        self.meta = f("src/meta.cpp")
        self.index = {
            "operators": [schema("a", self.reg), schema("b", self.reg)],
            "kernels": [kernel("a", "CPU", self.reg, 2, "a_cpu"),
                        kernel("a", "CUDA", self.cu, 5, "a_cuda"),
                        kernel("a", "Meta", self.meta, 3, "a_meta",
                               fake=True)]}
        self.registry = a_registry({
            "myops::a": {"schema": "myops::a(Tensor x) -> Tensor",
                         "defined_at": "/build/src/reg.cpp:1",
                         "kernels": [
                             reg_kernel("CPU", "/build/src/reg.cpp", 1),
                             reg_kernel("Meta", "/build/src/meta.cpp", 1)],
                         "fake": None},
            "myops::b": {"schema": "myops::b(Tensor x) -> Tensor",
                         "defined_at": "/build/src/reg.cpp:1",
                         "kernels": [reg_kernel("CPU", "/build/src/b.cpp",
                                                1)],
                         "fake": "/build/mypkg/fakes.py:7"},
            "torchvision::nms": {
                "schema": "torchvision::nms(Tensor d) -> Tensor",
                "defined_at": "/site/torchvision/csrc/nms.cpp:1",
                "kernels": [reg_kernel("CPU", "/site/torchvision/csrc/"
                                       "ops/cpu/nms_kernel.cpp", 9)],
                "fake": None}})

    def tearDown(self):
        self._tmp.cleanup()

    def measure(self, parsed):
        database = {self.reg, self.a_impl, self.b, self.meta}
        return cov.measure(self.index, self.root, database, parsed, set(),
                           [])

    def test_the_registrys_kernels_are_counted(self):
        c = self.measure({self.reg, self.a_impl, self.b, self.meta})
        # On the sources alone: a's CPU analysed, its CUDA not in the
        # database; b has no kernel at all.
        self.assertEqual(c["kernels"], {"total": 2, "analysed": 1})
        cov.with_registry(c, self.registry, self.index, self.root)
        self.assertEqual(c["counted_from"], "registry")
        # a's CPU (analysed) and b's CPU (not read by the index: never
        # analysed, though its file parsed); the CUDA kernel is not built
        # and the Meta kernel is a fake.
        self.assertEqual(c["kernels"], {"total": 2, "analysed": 1})
        self.assertEqual(c["share"], 0.5)
        self.assertFalse(cov.gate(c, 0.9))
        b = c["by_operator"]["myops::b"]["kernels"][0]
        self.assertEqual(b["why"], cov.NOT_INDEXED)
        self.assertEqual(b["files"], [])
        self.assertEqual(b["registered_at"], "src/b.cpp:1")
        r = c["registry"]
        self.assertEqual(r["only_in_registry"],
                         ["myops::b CPU at src/b.cpp:1"])
        self.assertEqual(r["only_in_index"],
                         ["myops::a CUDA at src/cuda/a.cu:5"])
        self.assertEqual(r["not_the_projects"], 1)
        self.assertEqual(r["not_the_projects_by_namespace"],
                         {"torchvision": 1})
        out = io.StringIO()
        with redirect_stdout(out):
            report.registry_lines(c)
        self.assertIn("1 operators of packages the project imports left "
                      "out (not its namespaces or files; by namespace: "
                      "torchvision 1)", out.getvalue())
        self.assertNotIn("torchvision::nms", c["by_operator"])
        self.assertEqual(r["fakes"]["not_read_by_index"],
                         ["myops::b at /build/mypkg/fakes.py:7"])
        self.assertEqual(c["operators"], {"total": 2, "with_cpp_kernels": 2,
                                          "analysed": 1})

    def test_the_guard_of_an_unread_registration_is_its_remedy(self):
        # xformers' flash_attn_3: registered through a macro in a file the
        # CPU build does not compile; setup.py adds it under FORCE_CUDA.
        # The remedy is that switch, not only "the index did not read it".
        c = self.measure({self.reg, self.a_impl, self.b, self.meta})
        cov.with_registry(c, self.registry, self.index, self.root,
                          [cov.Switch("FORCE_CUDA", "env",
                                      files={self.b}),
                           cov.Switch("OTHER", "env", files=set())])
        b = c["by_operator"]["myops::b"]["kernels"][0]
        self.assertEqual(b["why"], cov.NOT_INDEXED)
        self.assertEqual(b["bring_in"], "src/b.cpp:1: --env FORCE_CUDA=1")
        self.assertEqual(cov.bring_in(c), ["--env FORCE_CUDA=1"])
        # Compiled in another checkout, in vendored code the project's
        # sources leave out: named by its path's tail among the guarded.
        vendored = write(os.path.join(self.root, "third_party", "fa",
                                      "api.cpp"))
        self.registry.operators["myops::b"]["kernels"][0]["file"] = \
            "/ci/checkout/third_party/fa/api.cpp"
        c = self.measure({self.reg, self.a_impl, self.b, self.meta})
        cov.with_registry(c, self.registry, self.index, self.root,
                          [cov.Switch("FORCE_CUDA", "env",
                                      files={vendored})])
        self.assertEqual(c["by_operator"]["myops::b"]["kernels"][0][
            "bring_in"].split(": ", 1)[1], "--env FORCE_CUDA=1")
        self.registry.operators["myops::b"]["kernels"][0]["file"] = \
            "/build/src/b.cpp"
        # Without a guard naming it, the fact alone.
        c = self.measure({self.reg, self.a_impl, self.b, self.meta})
        cov.with_registry(c, self.registry, self.index, self.root, [])
        self.assertEqual(c["by_operator"]["myops::b"]["kernels"][0][
            "bring_in"], "src/b.cpp:1: torch's registry names this "
            "registration; the project index did not read it")

    def test_a_kernel_not_built_does_not_lower_coverage(self):
        # Without b's unread registration, the build's one kernel is
        # analysed: 100%, where the sources alone said 50%.
        del self.registry.operators["myops::b"]["kernels"][0]
        c = self.measure({self.reg, self.a_impl, self.b, self.meta})
        self.assertEqual(c["share"], 0.5)
        cov.with_registry(c, self.registry, self.index, self.root)
        self.assertEqual(c["kernels"], {"total": 1, "analysed": 1})
        self.assertTrue(cov.gate(c, 0.9))
        self.assertEqual(c["by_operator"]["myops::b"]["status"],
                         cov.NO_KERNEL)

    def test_falsely_green_on_the_index_is_red_on_the_registry(self):
        # The case: the index saw few operators (the rest went
        # through the project's macros of another file); every kernel it
        # saw was analysed, so the sources alone pass the gate.
        ops = {"myops::a": self.registry.operators["myops::a"]}
        for i in range(20):
            ops[f"myops::m{i}"] = {
                "schema": f"myops::m{i}(Tensor x) -> Tensor",
                "defined_at": "/build/src/b.cpp:1",
                "kernels": [reg_kernel("CPU", "/build/src/b.cpp", 1)],
                "fake": None}
        self.index["kernels"] = self.index["kernels"][:1]
        c = self.measure({self.reg, self.a_impl, self.b})
        self.assertTrue(cov.gate(c, 0.9))
        cov.with_registry(c, a_registry(ops), self.index, self.root)
        self.assertEqual(c["kernels"], {"total": 21, "analysed": 1})
        self.assertFalse(cov.gate(c, 0.9))
        self.assertEqual(len(c["registry"]["operators_only_in_registry"]),
                         20)


class RealRegistryTest(unittest.TestCase):
    """registry.read on a real torch: a package whose import defines an
    operator (a Python kernel and a fake) is read; the kernels registered
    from Python are not counted as C++ kernels; a package that does not
    import is named with its error."""

    def test_read(self):
        python = os.environ.get("TORCH_TIDY_PYTHON_28")
        if not python or not os.path.exists(python):
            print("SKIPPED RealRegistryTest.test_read: no torch 2.8.0 venv "
                  "(TORCH_TIDY_PYTHON_28)")
            return
        with tempfile.TemporaryDirectory() as d:
            write(os.path.join(d, "regpkg", "__init__.py"),
                  "import torch\n"
                  "lib = torch.library.Library('regpkg', 'DEF')\n"
                  "lib.define('twice(Tensor x) -> Tensor')\n"
                  "@torch.library.impl('regpkg::twice', 'CPU')\n"
                  "def _(x):\n    return x * 2\n"
                  "@torch.library.register_fake('regpkg::twice')\n"
                  "def _(x):\n    return torch.empty_like(x)\n"
                  # A fallthrough passes the call on: no kernel.
                  "lib.impl('twice', torch.library.fallthrough_kernel, "
                  "'Autograd')\n")
            env = dict(os.environ, PYTHONPATH=d)
            reg, why = registry.read(python, ["regpkg", "nosuchpkg"],
                                     {"regpkg"}, env)
            self.assertIsNone(why)
            self.assertEqual(sorted(reg.operators), ["regpkg::twice"])
            op = reg.operators["regpkg::twice"]
            self.assertEqual(op["schema"], "regpkg::twice(Tensor x) -> Tensor")
            self.assertEqual(sorted(k["key"] for k in op["kernels"]),
                             ["CPU", "Meta"])
            self.assertEqual(reg.cpp_kernels("regpkg::twice"), [])
            self.assertTrue(op["fake"].endswith("regpkg/__init__.py:7"),
                            op["fake"])
            self.assertIn("ModuleNotFoundError",
                          reg.data["failed"]["nosuchpkg"])
            none, why = registry.read(python, ["nosuchpkg"], set(), env)
            self.assertIsNone(none)
            self.assertIn("does not import", why)

    def test_a_package_not_installed_is_said_without_importing_torch(self):
        # A torch that cannot be imported: the answer still names the
        # package, so torch was not imported for it (seconds on each run).
        with tempfile.TemporaryDirectory() as d:
            write(os.path.join(d, "torch", "__init__.py"),
                  "raise SystemExit('torch was imported')\n")
            env = dict(os.environ, PYTHONPATH=d)
            none, why = registry.read(sys.executable, ["nosuchpkg"], set(),
                                      env)
        self.assertIsNone(none)
        self.assertIn("does not import", why)
        self.assertIn("No module named 'nosuchpkg'", why)


if __name__ == "__main__":
    unittest.main()
