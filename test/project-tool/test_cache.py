"""Unit tests of torch_tidy_project.cache (incremental runs) and shards (CI
shards and their merge): the parts that need no torch-tidy. The end-to-end
cases are test/incremental/run_incremental.py."""
import gzip
import json
import os
import tempfile
import unittest

import support  # noqa: F401  (puts torch_tidy_project on sys.path)
from support import write
from torch_tidy_project import cache, shards
from torch_tidy_project.common import ProjectError


class DepfileTest(unittest.TestCase):
    def test_continuations_and_escaped_spaces(self):
        text = ("a.o: src/a.cpp \\\n  /inc/x.h /inc/my\\ dir/y.h \\\n"
                "  ../z.h\n")
        self.assertEqual(cache.depfile_paths(text, "/p/build"),
                         [os.path.realpath("/p/build/src/a.cpp"), "/inc/x.h",
                          "/inc/my dir/y.h", os.path.realpath("/p/z.h")])

    def test_empty(self):
        self.assertEqual(cache.depfile_paths("", "/p"), [])


class SearchDirsTest(unittest.TestCase):
    def test_order_and_forms(self):
        entry = {"directory": "/p", "arguments": [
            "c++", "-Iinc", "-isystem", "/sys", "-I", "/abs", "-iquote",
            "q", "-idirafter", "/late", "-c", "a.cpp"]}
        self.assertEqual(cache.search_dirs(entry),
                         ["/p/q", "/p/inc", "/abs", "/sys",
                          "/usr/local/include", "/usr/include", "/late"])

    def test_command_string(self):
        entry = {"directory": "/p", "command": "c++ -I 'a b' -c x.cpp"}
        self.assertEqual(cache.search_dirs(entry)[0], "/p/a b")

    def test_two_sided_cuda(self):
        both = {"directory": "/p", "file": "k.cu",
                "arguments": ["clang++", "-x", "cuda", "-c", "k.cu"]}
        host = dict(both, arguments=both["arguments"] + ["--cuda-host-only"])
        cpp = {"directory": "/p", "file": "k.cpp",
               "arguments": ["clang++", "-c", "k.cpp"]}
        self.assertTrue(cache.two_sided_cuda(both))
        self.assertFalse(cache.two_sided_cuda(host))
        self.assertFalse(cache.two_sided_cuda(cpp))

    def test_shadow_probes(self):
        deps = ["/torch/include/ATen/core/Tensor.h", "/p/inc/own.h",
                "/elsewhere/x.h"]
        probes = cache.shadow_probes(deps, ["/p/inc", "/torch/include"])
        # Torch's header would be shadowed by one of the same name in the
        # project's folder searched first; the first folder's own headers
        # and files below no folder have nothing before them.
        self.assertEqual(probes, {"/p/inc/ATen/core/Tensor.h"})

    def test_a_file_read_is_no_probe(self):
        deps = ["/b/t.h", "/a/t.h"]
        self.assertEqual(cache.shadow_probes(deps, ["/a", "/b"]), set())


class IndexFactsTest(unittest.TestCase):
    INDEX = {"operators": [
        {"namespace": "demo", "schema": "scale(Tensor x) -> ()",
         "file": "/p/ops.cpp", "line": 3},
        {"namespace": "", "schema": "demo::shift(Tensor x) -> ()",
         "file": "/p/ops.cpp", "line": 4}],
        "kernels": [
        {"namespace": "demo", "operator": "scale", "key": "CPU",
         "fake": False, "how": "TORCH_LIBRARY_IMPL", "function": "demo::k",
         "file": "/p/k.cpp", "line": 9, "condition": "", "declares": ""},
        {"namespace": "demo", "operator": "", "key": "UnnamedFake",
         "fake": True, "how": "register_fake", "function": "",
         "file": "/p/f.py", "line": 2, "condition": "", "declares": ""}]}

    def test_names(self):
        f = cache.IndexFacts(self.INDEX)
        for key in ("operator scale", "operator shift", "function k",
                    "unnamed-fakes "):
            self.assertTrue(f.digest(key), key)
        self.assertEqual(f.digest("operator nothing"), "")
        self.assertIsNone(f.digest("something else"))

    def test_a_change_moves_only_its_name(self):
        before = cache.IndexFacts(self.INDEX)
        changed = json.loads(json.dumps(self.INDEX))
        changed["operators"][0]["schema"] = "scale(Tensor(a!) x) -> ()"
        after = cache.IndexFacts(changed)
        self.assertNotEqual(before.digest("operator scale"),
                            after.digest("operator scale"))
        for key in ("operator shift", "function k", "unnamed-fakes "):
            self.assertEqual(before.digest(key), after.digest(key), key)


class CacheTest(unittest.TestCase):
    def setUp(self):
        self.tmp = tempfile.TemporaryDirectory()
        self.root = os.path.realpath(self.tmp.name)
        self.src = write(os.path.join(self.root, "a.cpp"), "int a;\n")
        self.entry = {"directory": self.root, "file": "a.cpp",
                      "arguments": ["c++", "-c", "a.cpp"]}
        self.key = {"file": self.src, "command": "c", "tool": "t",
                    "config": "k"}
        self.facts = cache.IndexFacts({"operators": [], "kernels": []})

    def tearDown(self):
        self.tmp.cleanup()

    def store(self, c, reads="operator scale\n"):
        dep = write(os.path.join(self.root, "a.d"), f"a.o: {self.src}\n")
        rd = write(os.path.join(self.root, "a.reads"), reads)
        return c.store(self.src, self.key, self.entry, dep, rd, self.facts,
                       {"code": 0, "output": "out", "fixes": None}, 1.5)

    def test_round_trip_and_a_changed_file(self):
        c = cache.Cache(self.root)
        self.assertTrue(self.store(c))
        hit, why = cache.Cache(self.root).lookup(self.src, self.key,
                                                 self.entry, self.facts)
        self.assertEqual((hit["output"], hit["seconds"], why),
                         ("out", 1.5, None))
        write(self.src, "int b;\n")
        hit, why = cache.Cache(self.root).lookup(self.src, self.key,
                                                 self.entry, self.facts)
        self.assertEqual((hit, why), (None, "file"))

    def test_each_key_part(self):
        c = cache.Cache(self.root)
        self.store(c)
        for part in ("command", "tool", "config"):
            key = dict(self.key, **{part: "other"})
            self.assertEqual(c.lookup(self.src, key, self.entry,
                                      self.facts), (None, part))

    def test_configurations_kept_side_by_side(self):
        # A CPU run, a CUDA run (--env switches the command), the CPU run
        # again: replayed (torch-harmonics' trial re-linted every file).
        c = cache.Cache(self.root)
        cpu, cuda = dict(self.key), dict(self.key, command="c -DCUDA")
        self.store(c)
        self.key = cuda
        self.store(c)
        for key in (cpu, cuda):
            hit, why = cache.Cache(self.root).lookup(self.src, key,
                                                     self.entry, self.facts)
            self.assertEqual((hit["output"], why), ("out", None))
        # The latest KEEP_COMMANDS are kept.
        os.utime(c._entry_path(self.src, cpu["command"]), (1, 1))
        for i in range(cache.KEEP_COMMANDS):
            self.key = dict(cpu, command=f"c -DV{i}")
            self.store(c)
        self.assertEqual(len(c._entries_of(self.src)), cache.KEEP_COMMANDS)
        self.assertEqual(c.lookup(self.src, cpu, self.entry, self.facts),
                         (None, "command"))

    def test_an_unknown_read_is_not_kept(self):
        c = cache.Cache(self.root)
        self.assertFalse(self.store(c, reads="mystery x\n"))
        self.assertFalse(c.store(self.src, self.key, self.entry, None, None,
                                 self.facts, {}, 0))

    def test_a_corrupt_entry_is_ignored(self):
        c = cache.Cache(self.root)
        self.store(c)
        [name] = os.listdir(c.files)
        with gzip.open(os.path.join(c.files, name), "wt") as f:
            f.write("{}")
        hit, why = cache.Cache(self.root).lookup(self.src, self.key,
                                                 self.entry, self.facts)
        self.assertEqual((hit, why), (None, "corrupt"))

    def test_a_foreign_cache_is_dropped(self):
        c = cache.Cache(self.root)
        self.store(c)
        meta = os.path.join(c.dir, "meta.json")
        write(meta, json.dumps({"format": cache.FORMAT, "version": 0}))
        again = cache.Cache(self.root)
        self.assertEqual(os.listdir(again.files), [])
        with open(meta) as f:
            self.assertEqual(json.load(f)["version"], cache.VERSION)


class ShardsTest(unittest.TestCase):
    FILES = [f"/p/{c}.cpp" for c in "abcdefg"]

    def test_parse(self):
        self.assertEqual(shards.parse("2/3"), (2, 3))
        for bad in ("0/3", "4/3", "x", "1/0", ""):
            with self.assertRaises(ValueError):
                shards.parse(bad)

    def test_every_file_once_and_stable(self):
        for n in (1, 2, 3, 7, 9):
            parts = shards.partition(self.FILES, "/p", n)
            self.assertEqual(sorted(f for p in parts for f in p),
                             self.FILES)
            self.assertEqual(parts, shards.partition(
                list(reversed(self.FILES)), "/p", n))

    def test_balanced_by_times(self):
        times = {"a.cpp": 60.0, "b.cpp": 10.0, "c.cpp": 10.0, "d.cpp": 10.0,
                 "e.cpp": 10.0, "f.cpp": 10.0, "g.cpp": 10.0}
        parts = shards.partition(self.FILES, "/p", 2, times)
        self.assertEqual(parts[0], ["/p/a.cpp"])
        self.assertEqual(len(parts[1]), 6)

    def test_a_kernel_in_a_header_one_shard_read_is_analysed(self):
        # csrc/k.h holds the kernel's body; a.cpp (shard 1) includes it,
        # b.cpp (shard 2) registers it. Neither shard's files name the
        # header; shard 1 says it read it.
        def shard(k, files, included, compiler=None):
            kernel = {"key": "CPU", "files": ["csrc/k.h"],
                      "registered_at": "b.cpp:3", "analysed": bool(included)}
            if not included:
                kernel.update(why="registered only in files not linted",
                              bring_in="a run without FILE_REGEX")
            cov = {"by_operator": {"ns::op": {
                       "analysed": bool(included),
                       "status": "analysed" if included else "not analysed",
                       "kernels": [kernel]}},
                   "operators": {"total": 1, "with_cpp_kernels": 1,
                                 "analysed": int(bool(included))},
                   "kernels": {"total": 1, "analysed": int(bool(included))},
                   "files": {"linted": 1, "parsed": 1},
                   "share": 1.0 if included else 0.0,
                   "counted_from": "index", "minimum": 0.9,
                   "passed": bool(included)}
            if compiler:
                cov["compiler"] = compiler
            return {
                "schema": shards.report.SCHEMA, "root": "/p", "project": "/p",
                "torch_tidy": {"version": "0.1.0"},
                "options": {"checks": None,
                            "fail_on": ["warnings", "coverage"],
                            "min_coverage": 0.9},
                "findings": [], "warnings": {}, "did_not_parse": {},
                "coverage": cov, "index": None, "seconds": 1.0,
                "shard": {"index": k, "count": 2, "files": files,
                          "all_files": ["a.cpp", "b.cpp"],
                          "all_files_digest": "d", "index_digest": "i",
                          "registration_files": {}, "included": included}}
        # What the compiler read in each shard, and what it did not: the
        # whole run's is both (the pruned files each shard names once).
        def view(n, unparsed):
            return {"files": n, "operators_only_compiler": [],
                    "kernels_only_compiler": [], "kernels_only_index": [],
                    "not_read": {"pruned": ["c.cpp"], "unparsed": unparsed}}
        merged = shards.merge([
            shard(1, ["a.cpp"], ["csrc/k.h"], view(1, [])),
            shard(2, ["b.cpp"], [], view(0, ["b.cpp"]))], ["s1", "s2"])
        self.assertEqual(merged["coverage"]["compiler"]["files"], 1)
        self.assertEqual(merged["coverage"]["compiler"]["not_read"],
                         {"pruned": ["c.cpp"], "unparsed": ["b.cpp"]})
        k = merged["coverage"]["by_operator"]["ns::op"]["kernels"][0]
        self.assertTrue(k["analysed"], k)
        self.assertEqual(merged["coverage"]["kernels"],
                         {"total": 1, "analysed": 1})
        self.assertEqual(merged["result"]["exit_status"], 0)
        # No shard read it: not analysed, and the gate is not green.
        merged = shards.merge([shard(1, ["a.cpp"], []),
                               shard(2, ["b.cpp"], [])], ["s1", "s2"])
        k = merged["coverage"]["by_operator"]["ns::op"]["kernels"][0]
        self.assertFalse(k["analysed"])
        self.assertEqual(merged["result"]["exit_status"], 3)

    def test_earlier_times_must_be_a_result(self):
        with tempfile.TemporaryDirectory() as d:
            p = write(os.path.join(d, "x.json"), "{}")
            with self.assertRaises(ProjectError):
                shards.earlier_times(p)


if __name__ == "__main__":
    unittest.main()
