"""Generated inputs of growing size, shared by the scaling benchmark
(tools/bench/run_bench.py) and the work-counter regression guard
(test/lit/robustness/scaling.cpp.py). Both include the mock
<torch/torch.h> of the lit suite and are analysed with RegionMode: all."""


def long_function(groups):
    """One function, 5 statements a group, each group a fresh local written
    in a branch, a loop with a nested branch, and a reassignment."""
    body = ["#include <torch/torch.h>",
            "at::Tensor big(const at::Tensor &v, bool c, int k) {",
            "  auto m = torch::zeros({4, 4});"]
    for i in range(groups):
        body += [f"  auto t{i} = torch::zeros({{4}});",
                 f"  if (c) {{ t{i}.index_put_({{0}}, v.detach()); }} else {{ m = m * 2; }}",
                 "  for (int j = 0; j < k; ++j) {",
                 f"    if (j % 2) {{ m.index_put_({{{i % 4}}}, v.detach()); }}",
                 "  }"]
    body += ["  return m;", "}"]
    return "\n".join(body) + "\n"


def many_functions(n):
    """n small functions, each writing into a fresh tensor in a branch."""
    parts = ["#include <torch/torch.h>"]
    for i in range(n):
        parts.append(f"at::Tensor f{i}(const at::Tensor &v, bool c) {{\n"
                     f"  auto m = torch::zeros({{4}});\n"
                     f"  if (c)\n    m.index_put_({{0}}, v.detach());\n"
                     f"  return m;\n}}")
    return "\n".join(parts) + "\n"
