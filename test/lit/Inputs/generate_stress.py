#!/usr/bin/env python3
"""Writes large inputs for the robustness tests.

  generate_stress.py lines N OUT.cpp      about N lines of registered kernels,
                                          half hazardous; OUT.cpp.expected
                                          gets the number of warnings due
  generate_stress.py templates N OUT.cpp  one hazardous template with N
                                          instantiations
"""
import sys


def lines(n, out):
    parts = ["#include <torch/torch.h>", "using torch::indexing::Slice;"]
    regs = []
    expected = 0
    i = 0
    while len("\n".join(parts).splitlines()) + 2 * len(regs) < n - 10:
        hazardous = i % 2 == 0
        src = "v" if hazardous else "v.detach()"
        parts.append(f"""at::Tensor k{i}(const at::Tensor &v, bool c) {{
  auto m = torch::zeros({{4, 4}});
  if (c) {{
    m.index_put_({{Slice(), {i % 4}}}, {src});
  }} else {{
    m.select(0, 1).copy_({src});
  }}
  for (int j = 0; j < 3; ++j)
    m = m * 2;
  return m;
}}""")
        regs.append(f'  m.def("k{i}(Tensor v, bool c) -> Tensor", &k{i});')
        expected += 2 if hazardous else 0
        i += 1
    parts.append("TORCH_LIBRARY(stress, m) {")
    parts += regs
    parts.append("}")
    open(out, "w").write("\n".join(parts) + "\n")
    open(out + ".expected", "w").write(str(expected))


def templates(n, out):
    parts = ["#include <torch/torch.h>",
             "template <int N> at::Tensor k(const at::Tensor &v) {",
             "  auto m = torch::zeros({N + 1});",
             "  m.index_put_({0}, v);",
             "  return m;",
             "}",
             "at::Tensor all(const at::Tensor &v) {",
             "  at::Tensor r = v;"]
    parts += [f"  r = r + k<{i}>(v);" for i in range(n)]
    parts += ["  return r;", "}",
              'TORCH_LIBRARY(stress, m) { m.def("all(Tensor v) -> Tensor", &all); }']
    open(out, "w").write("\n".join(parts) + "\n")


if __name__ == "__main__":
    kind, n, out = sys.argv[1], int(sys.argv[2]), sys.argv[3]
    {"lines": lines, "templates": templates}[kind](n, out)
