#!/usr/bin/env python3
"""Unit tests of torch_tidy_project.cdb: compile commands for cpp_extension
sources (torch-tidy-cdb), with a fake torch and a fake CUDA toolkit."""
import io
import json
import os
import shutil
import subprocess
import tempfile
import unittest
from contextlib import redirect_stderr, redirect_stdout

from support import fake_torch, write
from torch_tidy_project import cdb, torchenv
from torch_tidy_project.common import ProjectError


def ext(name, sources, **kw):
    e = {"name": name, "sources": sources, "include_dirs": [],
         "define_macros": [], "undef_macros": [], "cxx": [], "nvcc": []}
    e.update(kw)
    return e


def fake_toolkit(d, *headers):
    tk = os.path.join(d, "cuda")
    write(os.path.join(tk, "include", "cuda.h"))
    for h in headers:
        write(os.path.join(tk, "include", h))
    return tk


class CudaFlagsTest(unittest.TestCase):
    def test_none_without_cuda_h(self):
        with tempfile.TemporaryDirectory() as d:
            os.makedirs(os.path.join(d, "cuda", "include"))
            self.assertIsNone(cdb.cuda_flags_for(os.path.join(d, "cuda"),
                                                 os.path.join(d, "shim")))
            self.assertFalse(os.path.exists(os.path.join(d, "shim")))

    def test_flags_and_shim_headers_written_when_missing(self):
        with tempfile.TemporaryDirectory() as d:
            tk = fake_toolkit(d, "texture_fetch_functions.h")
            shim = os.path.join(d, "shim")
            common, cu = cdb.cuda_flags_for(tk, shim)
            self.assertEqual(common, ["-isystem", os.path.join(tk, "include")])
            self.assertEqual(cu[:5], ["-x", "cuda", "--cuda-host-only",
                                      f"--cuda-path={tk}",
                                      "-Wno-unknown-cuda-version"])
            self.assertEqual(cu[5:7], ["-isystem", shim])
            self.assertEqual(cu[-len(cdb.NVCC_DEFINES):], cdb.NVCC_DEFINES)
            self.assertEqual(sorted(os.listdir(shim)),
                             ["surface_indirect_functions.h",
                              "texture_indirect_functions.h",
                              cdb.NVCC_HOST_HEADER])
            with open(os.path.join(shim, "texture_indirect_functions.h")) as f:
                self.assertIn("#pragma once", f.read())

    def test_no_shim_when_nothing_is_missing(self):
        with tempfile.TemporaryDirectory() as d:
            tk = fake_toolkit(d, *cdb.CUDA_SHIM_HEADERS)
            shim = os.path.join(d, "shim")
            common, cu = cdb.cuda_flags_for(tk, shim)
            self.assertNotIn(shim, cu)
            # Only nvcc's host min/max, force-included.
            self.assertEqual(os.listdir(shim), [cdb.NVCC_HOST_HEADER])
            header = os.path.join(shim, cdb.NVCC_HOST_HEADER)
            self.assertEqual(cu[cu.index("-include") + 1], header)

    # torch-harmonics' attention launch code calls max(bdimx, WARP_SIZE) on
    # the host, as nvcc allows; clang's CUDA mode has min/max for the
    # device only. With the force-included header it parses, kernels and
    # __host__ __device__ functions too.
    def test_host_min_max_parse_as_with_nvcc(self):
        clang = shutil.which("clang++-19")
        toolkit = "/usr/local/cuda"
        if not clang or not os.path.isfile(os.path.join(toolkit, "include",
                                                        "cuda.h")):
            print("SKIPPED test_host_min_max_parse_as_with_nvcc: no "
                  "clang++-19 or CUDA toolkit", flush=True)
            self.skipTest("no clang++-19 or CUDA toolkit")
        with tempfile.TemporaryDirectory() as d:
            src = write(os.path.join(d, "k.cu"), """\
                #include <cuda_runtime.h>
                int host(int a, unsigned u, long long l, float x, double y) {
                  return max(a, 32) + min(a, 3) + max(u, 2u) +
                         (int)max(l, 3LL) + (int)max(x, 1.f) +
                         (int)min(y, 2.0) + max(a, u);
                }
                __global__ void k(int *p) { p[0] = max(p[1], 3); }
                __host__ __device__ int hd(int a) { return max(a, 1); }
                """)
            common, cu = cdb.cuda_flags_for(toolkit, os.path.join(d, "shim"))
            res = subprocess.run([clang, "-fsyntax-only", *cu, *common, src],
                                 capture_output=True, text=True)
            self.assertEqual(res.returncode, 0, res.stderr)
            without = [a for a in cu if a != "-include" and
                       not a.endswith(cdb.NVCC_HOST_HEADER)]
            res = subprocess.run([clang, "-fsyntax-only", *without, *common,
                                  src], capture_output=True, text=True)
            self.assertIn("no matching function for call to 'max'",
                          res.stderr)

    # deepmd-kit's dpa1 kernels load with __ldcs(const float4 *), which
    # clang 19's CUDA headers lack (nvcc and clang 22 have it): declared in
    # the force-included header, they parse with either clang.
    def test_cache_hint_loads_parse_as_with_nvcc(self):
        toolkit = "/usr/local/cuda"
        clangs = [c for c in (shutil.which("clang++-19"),
                              "/usr/lib/llvm-22/bin/clang++") if c and
                  os.access(c, os.X_OK)]
        if not clangs or not os.path.isfile(os.path.join(
                toolkit, "include", "cuda.h")):
            print("SKIPPED test_cache_hint_loads_parse_as_with_nvcc: no "
                  "clang++-19 or CUDA toolkit", flush=True)
            self.skipTest("no clang++-19 or CUDA toolkit")
        with tempfile.TemporaryDirectory() as d:
            src = write(os.path.join(d, "k.cu"), """\
                #include <cuda_runtime.h>
                __global__ void k(const float *p, float *q, int *r) {
                  const float4 v = __ldcs(reinterpret_cast<const float4 *>(p));
                  q[0] = v.x + __ldcg(p + 1) + __ldca(p + 2);
                  __stcs(r, __ldcs(r + 1));
                }
                """)
            common, cu = cdb.cuda_flags_for(toolkit, os.path.join(d, "shim"))
            for clang in clangs:
                res = subprocess.run([clang, "-fsyntax-only", *cu, *common,
                                      src], capture_output=True, text=True)
                self.assertEqual(res.returncode, 0, f"{clang}: {res.stderr}")
            without = [a for a in cu if a != "-include" and
                       not a.endswith(cdb.NVCC_HOST_HEADER)]
            res = subprocess.run([clangs[0], "-fsyntax-only", *without,
                                  *common, src], capture_output=True,
                                 text=True)
            self.assertIn("error: use of undeclared identifier '__ldcs'",
                          res.stderr)

    def test_shim_in_torch_tidy_folder_is_git_ignored(self):
        with tempfile.TemporaryDirectory() as d:
            tk = fake_toolkit(d)
            shim = os.path.join(d, "proj", ".torch-tidy", "cuda-shim")
            cdb.cuda_flags_for(tk, shim)
            self.assertEqual(len(os.listdir(shim)),
                             len(cdb.CUDA_SHIM_HEADERS) + 1)
            with open(os.path.join(d, "proj", ".torch-tidy",
                                   ".gitignore")) as f:
                self.assertIn("*", f.read().split())

    def test_cccl_for_cuda_13(self):
        with tempfile.TemporaryDirectory() as d:
            tk = fake_toolkit(d)
            os.makedirs(os.path.join(tk, "include", "cccl"))
            common, _ = cdb.cuda_flags_for(tk, os.path.join(d, "shim"))
            self.assertEqual(common, ["-isystem", os.path.join(tk, "include"),
                                      "-isystem",
                                      os.path.join(tk, "include", "cccl")])

    def test_cuda_toolkit_order(self):
        torch = {"cuda_home": "/from/torch"}
        self.assertEqual(cdb.cuda_toolkit("/explicit", torch), "/explicit")
        old = os.environ.pop("CUDA_HOME", None)
        try:
            self.assertEqual(cdb.cuda_toolkit(None, torch), "/from/torch")
            self.assertEqual(cdb.cuda_toolkit(None, {}), "/usr/local/cuda")
            os.environ["CUDA_HOME"] = "/from/env"
            self.assertEqual(cdb.cuda_toolkit(None, torch), "/from/env")
        finally:
            os.environ.pop("CUDA_HOME", None)
            if old is not None:
                os.environ["CUDA_HOME"] = old


class ShimDirForTest(unittest.TestCase):
    def test_beside_or_in_torch_tidy_folder(self):
        self.assertEqual(cdb.shim_dir_for("/p/.torch-tidy/compile_commands"
                                          ".json"), "/p/.torch-tidy/cuda-shim")
        self.assertEqual(cdb.shim_dir_for("/p/out/cc.json"),
                         "/p/out/.torch-tidy/cuda-shim")


class SetupEntriesTest(unittest.TestCase):
    def test_richest_flags_per_source_and_nvcc_only_for_cu(self):
        with tempfile.TemporaryDirectory() as d:
            torch = fake_torch(d)
            tk = fake_toolkit(d)
            cuda = cdb.cuda_flags_for(tk, os.path.join(d, "shim"))
            base = cdb.base_flags(torch)
            a, k = os.path.join(d, "a.cpp"), os.path.join(d, "k.cu")
            exts = [ext("pkg._cpu", [a], cxx=["-DCPU_ONLY"]),
                    ext("pkg._cuda", [a, k],
                        include_dirs=[os.path.join(d, "inc"),
                                      torch["include_paths"][0],
                                      os.path.join(tk, "include")],
                        define_macros=[["WITH_CUDA", None], ["N", "2"]],
                        undef_macros=["NDEBUG"],
                        cxx=["-O2", "-DCXX_FLAG"],
                        nvcc=["-DNVCC_FLAG", "--use_fast_math",
                              "--std=c++17"])]
            best = cdb.setup_entries(exts, base, cuda)
        self.assertEqual(set(best), {a, k})
        fa, fk = best[a], best[k]
        # a.cpp: the CUDA extension's richer flags, no nvcc flags, no CUDA
        # mode.
        self.assertIn("-DTORCH_EXTENSION_NAME=_cuda", fa)
        self.assertIn("-DWITH_CUDA", fa)
        self.assertIn("-DN=2", fa)
        self.assertIn("-UNDEBUG", fa)
        self.assertIn("-DCXX_FLAG", fa)
        self.assertNotIn("-DNVCC_FLAG", fa)
        self.assertNotIn("--cuda-host-only", fa)
        self.assertIn(f"-I{os.path.join(d, 'inc')}", fa)
        # torch's and CUDA's include dirs stay system directories.
        self.assertNotIn(f"-I{torch['include_paths'][0]}", fa)
        self.assertNotIn(f"-I{os.path.join(tk, 'include')}", fa)
        # k.cu: CUDA mode first, nvcc's flags (not cxx's: BuildExtension
        # gives a .cu source extra_compile_args["nvcc"] alone), nvcc's
        # standard last.
        self.assertEqual(fk[:3], ["-x", "cuda", "--cuda-host-only"])
        self.assertIn("-DNVCC_FLAG", fk)
        self.assertNotIn("-DCXX_FLAG", fk)
        self.assertIn("-D__CUDA_NO_HALF_OPERATORS__", fk)
        self.assertNotIn("--use_fast_math", fk)
        self.assertEqual([f for f in fk if f.startswith("-std=")][-1],
                         "-std=c++17")

    def test_the_targets_flags_reach_the_entries(self):
        # The AVX-512 kernels of a project parse only with the instruction
        # set its extra_compile_args name (-march=native -mfma: __AVX512F__
        # and the intrinsics); optimisation and warnings do not matter, and
        # -fopenmp is named as not passed.
        cxx = ["-O3", "-march=native", "-mfma", "-mavx512f", "-fopenmp",
               "-Wall", "-fno-rtti", "-funsigned-char"]
        nvcc = ["-O3", "-maxrregcount", "32", "-Xcompiler",
                "-fopenmp,-mavx2"]
        exts = [ext("x", ["/s/a.cpp", "/s/k.cu"], cxx=cxx, nvcc=nvcc)]
        best = cdb.setup_entries(exts, ["-std=c++17"], ([], ["-x", "cuda"]))
        self.assertEqual(best["/s/a.cpp"][2:],
                         ["-march=native", "-mfma", "-mavx512f", "-fno-rtti",
                          "-funsigned-char"])
        self.assertEqual(best["/s/k.cu"][4:], ["-mavx2"])
        self.assertEqual(cdb.not_passed(exts),
                         {"-fopenmp": ["/s/a.cpp", "/s/k.cu"]})

    def test_cpu_only_extension(self):
        base = ["-std=c++17"]
        best = cdb.setup_entries([ext("x", ["/s/a.cpp"])], base, None)
        self.assertEqual(best["/s/a.cpp"],
                         ["-std=c++17", "-DTORCH_EXTENSION_NAME=x"])


class FindSourcesTest(unittest.TestCase):
    def test_recursion_hidden_and_order(self):
        with tempfile.TemporaryDirectory() as d:
            for rel in ("src/b.cpp", "src/a.cc", "src/sub/c.cxx",
                        "src/sub/k.cu", "src/.hidden/h.cpp", "src/x.h",
                        "src/y.py"):
                write(os.path.join(d, rel))
            src = os.path.join(d, "src")
            found = cdb.find_sources([src, os.path.join(src, "b.cpp")])
        self.assertEqual(found, [os.path.join(src, "a.cc"),
                                 os.path.join(src, "b.cpp"),
                                 os.path.join(src, "sub", "c.cxx"),
                                 os.path.join(src, "sub", "k.cu")])

    def test_errors(self):
        with tempfile.TemporaryDirectory() as d:
            txt = write(os.path.join(d, "notes.txt"))
            with self.assertRaises(ProjectError) as c:
                cdb.find_sources([txt])
            self.assertIn("not a C++, CUDA or SYCL source", str(c.exception))
            with self.assertRaises(ProjectError) as c:
                cdb.find_sources([os.path.join(d, "gone.cpp")])
            self.assertIn("no such file", str(c.exception))

    def test_relative_paths_made_absolute(self):
        with tempfile.TemporaryDirectory() as d:
            write(os.path.join(d, "a.cpp"))
            cwd = os.getcwd()
            os.chdir(d)
            try:
                found = cdb.find_sources(["a.cpp"])
            finally:
                os.chdir(cwd)
        self.assertEqual(found, [os.path.join(os.path.realpath(d), "a.cpp")])


class ForSourcesTest(unittest.TestCase):
    def test_cpu_sources(self):
        with tempfile.TemporaryDirectory() as d:
            torch = fake_torch(d)
            a = write(os.path.join(d, "a.cpp"))
            items = cdb.for_sources([a], torch, d, os.path.join(d, "shim"),
                                    "myext", includes=["inc"],
                                    defines=["FOO", "N=3"])
        self.assertEqual(len(items), 1)
        e = items[0]
        self.assertEqual(e["file"], a)
        self.assertEqual(e["directory"], d)
        args = e["arguments"]
        self.assertEqual(args[0], "clang++")
        self.assertEqual(args[-2:], ["-c", a])
        for flag in ("-std=c++17", "-DTORCH_API_INCLUDE_EXTENSION_H",
                     "-D_GLIBCXX_USE_CXX11_ABI=1", "-DFOO", "-DN=3",
                     "-DTORCH_EXTENSION_NAME=myext",
                     f"-I{os.path.abspath('inc')}"):
            self.assertIn(flag, args)
        for inc in torch["include_paths"] + [torch["python_include"]]:
            i = args.index(inc)
            self.assertEqual(args[i - 1], "-isystem")
        self.assertNotIn("-x", args)

    def test_std_from_version_and_override(self):
        with tempfile.TemporaryDirectory() as d:
            a = write(os.path.join(d, "a.cpp"))
            new = cdb.for_sources([a], fake_torch(d, "2.10.0"), d, d, "n")
            given = cdb.for_sources([a], fake_torch(d), d, d, "n",
                                    std="c++20")
        self.assertIn("-std=c++20", new[0]["arguments"])
        self.assertIn("-std=c++20", given[0]["arguments"])
        self.assertNotIn("-std=c++17", given[0]["arguments"])

    def test_cuda_sources(self):
        with tempfile.TemporaryDirectory() as d:
            tk = fake_toolkit(d)
            a = write(os.path.join(d, "a.cpp"))
            k = write(os.path.join(d, "k.cu"))
            items = cdb.for_sources([a, k], fake_torch(d), d,
                                    os.path.join(d, "shim"), "n",
                                    cuda_path=tk)
        fa, fk = items[0]["arguments"], items[1]["arguments"]
        self.assertNotIn("--cuda-host-only", fa)
        self.assertIn(os.path.join(tk, "include"), fa)
        self.assertEqual(fk[1:4], ["-x", "cuda", "--cuda-host-only"])
        self.assertIn("-D__CUDA_NO_BFLOAT16_CONVERSIONS__", fk)
        self.assertIn(os.path.join(tk, "include"), fk)

    def test_cuda_source_without_toolkit(self):
        with tempfile.TemporaryDirectory() as d:
            k = write(os.path.join(d, "k.cu"))
            with self.assertRaises(ProjectError) as c:
                cdb.for_sources([k], fake_torch(d), d, d, "n",
                                cuda_path=os.path.join(d, "nocuda"))
        self.assertIn("no CUDA toolkit", str(c.exception))


class ForExtensionsTest(unittest.TestCase):
    def test_missing_source(self):
        with tempfile.TemporaryDirectory() as d:
            with self.assertRaises(ProjectError) as c:
                cdb.for_extensions([ext("x", [os.path.join(d, "gone.cpp")])],
                                   fake_torch(d), d, d)
        self.assertIn("gone.cpp", str(c.exception))

    def test_one_entry_per_source(self):
        with tempfile.TemporaryDirectory() as d:
            a = write(os.path.join(d, "a.cpp"))
            b = write(os.path.join(d, "b.cpp"))
            items = cdb.for_extensions([ext("p.one", [a]),
                                        ext("p.two", [a, b],
                                            define_macros=[["X", "1"]])],
                                       fake_torch(d), d, d)
        self.assertEqual([e["file"] for e in items], [a, b])
        self.assertIn("-DTORCH_EXTENSION_NAME=two", items[0]["arguments"])


class WriteAndSummaryTest(unittest.TestCase):
    def test_write_and_summary_line(self):
        with tempfile.TemporaryDirectory() as d:
            out = os.path.join(d, "deep", "compile_commands.json")
            items = [{"directory": d, "file": "a.cu",
                      "arguments": ["clang++", "-std=c++17", "-c", "a.cu"]},
                     {"directory": d, "file": "b.cpp",
                      "arguments": ["clang++", "-c", "b.cpp"]}]
            cdb.write(out, items)
            with open(out) as f:
                self.assertEqual(json.load(f), items)
            line = cdb.summary_line(out, items, {"version": "2.8.0"}, d)
        self.assertEqual(line, "wrote deep/compile_commands.json: 2 entries "
                               "(1 CUDA), torch 2.8.0, -std=c++17")


class MainTest(unittest.TestCase):
    def test_setup_py_and_sources_refused(self):
        with redirect_stderr(io.StringIO()):
            with self.assertRaises(SystemExit) as c:
                cdb.main(["--setup-py", "setup.py", "a.cpp"])
        self.assertEqual(c.exception.code, 2)

    def test_nothing_given_refused(self):
        with redirect_stderr(io.StringIO()):
            with self.assertRaises(SystemExit):
                cdb.main([])

    def fake_python(self, d, answer):
        return write(os.path.join(d, "bin", "python"),
                     "#!/bin/sh\necho '" + answer + "'\n", mode=0o755)

    def test_sources_written(self):
        out = io.StringIO()
        with tempfile.TemporaryDirectory() as tmp:
            d = os.path.realpath(tmp)
            torch = dict(fake_torch(d), cuda=None, cmake_prefix_path="/x",
                         torch_dir="/t", executable="/p", cuda_home=None)
            python = self.fake_python(d, torchenv.MARKER + json.dumps(torch))
            a = write(os.path.join(d, "csrc", "a.cpp"))
            db = os.path.join(d, "cc.json")
            with redirect_stdout(out):
                code = cdb.main(["--python", python, "--name", "myext",
                                 "-D", "FOO=1", os.path.join(d, "csrc"),
                                 "-o", db])
            self.assertEqual(code, 0)
            with open(db) as f:
                items = json.load(f)
        self.assertEqual([e["file"] for e in items], [a])
        self.assertIn("-DTORCH_EXTENSION_NAME=myext", items[0]["arguments"])
        self.assertIn("-DFOO=1", items[0]["arguments"])
        self.assertIn("1 entry (0 CUDA), torch 2.8.0, -std=c++17",
                      out.getvalue())

    def test_python_without_torch_exit_2(self):
        err = io.StringIO()
        with tempfile.TemporaryDirectory() as d:
            python = self.fake_python(d, "nothing")
            a = write(os.path.join(d, "a.cpp"))
            with redirect_stderr(err):
                code = cdb.main(["--python", python, a, "-o",
                                 os.path.join(d, "cc.json")])
            self.assertFalse(os.path.exists(os.path.join(d, "cc.json")))
        self.assertEqual(code, 2)
        self.assertIn("cannot import torch", err.getvalue())

    def test_missing_source_exit_2(self):
        err = io.StringIO()
        with tempfile.TemporaryDirectory() as d:
            with redirect_stderr(err):
                code = cdb.main([os.path.join(d, "gone.cpp"), "-o",
                                 os.path.join(d, "cc.json")])
        self.assertEqual(code, 2)
        self.assertIn("no such file", err.getvalue())


if __name__ == "__main__":
    unittest.main()
