#!/usr/bin/env python3
"""Twins of the real bugs in docs/found.md, measured.

Each real undeclared mutation that torch-op-undeclared-mutation finds in a
public project gets a twin here: an operator with the project's schema (the
same arguments, the same `-> ()`), registered for CPU, whose kernel writes the
arguments the project's kernel writes (the project's kernels run on XPU or
NPU; what torch.compile does with a call depends on the schema, not on the
device). Beside each, the fixed twin: the schema with the written arguments
declared `Tensor(a!)`.

  found_twins.py generate OUT.cpp
      the C++ twins (undeclared in namespace tt_found, fixed in tt_found_fixed).
  VENV/bin/python found_twins.py measure --out ROWS.json SRC.cpp
      builds them and records, per twin, opcheck's test_schema verdict and
      whether torch.compile (eager, aot_eager, inductor; fullgraph) leaves the
      written arguments as the uncompiled call does.
  found_twins.py write --python LABEL=PYTHON ...
      re-measures and rewrites docs/found.json and the table in docs/found.md.
  found_twins.py check --python LABEL=PYTHON
      re-measures one version against docs/found.json (a ctest).
  found_twins.py static --python LABEL=PYTHON --clang-tidy CT --module SO
      the check warns on every undeclared twin and on no fixed one, and its
      verdicts equal opcheck's (a ctest).
  found_twins.py fixes --python LABEL=PYTHON --clang-tidy CT --module SO
      the check's own --fix on the twins: the fixed file builds, every twin
      passes opcheck's test_schema and keeps its writes under every backend,
      and a second --fix changes nothing (a ctest).
"""
import argparse
import json
import os
import re
import shutil
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(HERE))
sys.path.insert(0, HERE)
import undeclared_mutation as um  # noqa: E402  (its driver helpers)
JSON_PATH = os.path.join(ROOT, "docs", "found.json")
DOC_PATH = os.path.join(ROOT, "docs", "found.md")
CHECK = "torch-op-undeclared-mutation"
SKIP_CODE = 77
BACKENDS = ["eager", "aot_eager", "inductor"]

# id -> the twin: the project's schema (its name and arguments as the
# project writes them), the arguments the project's kernel writes, the C++
# kernel's parameters and body, and the Python inputs (t is torch).
TWINS = {
    "moe_sum_reduce": {
        "schema": "moe_sum_reduce(Tensor input, Tensor output, float routed_scaling_factor) -> ()",
        "writes": ["output"],
        "params": "const at::Tensor &input, const at::Tensor &output, double routed_scaling_factor",
        "body": ["output.copy_(input.sum(1) * routed_scaling_factor);"],
        "inputs": "[t.randn(3, 2, 4, generator=g), t.zeros(3, 4), 0.5]",
    },
    "sgl_per_token_group_quant_8bit": {
        "schema": "sgl_per_token_group_quant_8bit(Tensor input, Tensor output_q, Tensor output_s, "
                  "int group_size, float eps, float fp8_min, float fp8_max, bool scale_ue8m0) -> ()",
        "writes": ["output_q", "output_s"],
        "params": "const at::Tensor &input, const at::Tensor &output_q, const at::Tensor &output_s, "
                  "int64_t group_size, double eps, double fp8_min, double fp8_max, bool scale_ue8m0",
        "body": ["at::Tensor g = input.reshape({-1, group_size});",
                 "at::Tensor s = g.abs().amax(1, true).clamp_min(eps) / fp8_max;",
                 "output_s.copy_(s.reshape(output_s.sizes()));",
                 "output_q.copy_((g / s).clamp(fp8_min, fp8_max).reshape(output_q.sizes()));"],
        "inputs": "[t.randn(4, 8, generator=g), t.zeros(4, 8), t.zeros(4, 2), 4, 1e-10, -448.0, "
                  "448.0, False]",
    },
    "sgl_per_token_group_quant_8bit_v2": {
        "schema": "sgl_per_token_group_quant_8bit_v2(Tensor input, Tensor output_q, Tensor output_s, "
                  "int group_size, float eps, float fp8_min, float fp8_max, bool scale_ue8m0, "
                  "bool fuse_silu_and_mul, Tensor? masked_m) -> ()",
        "writes": ["output_q", "output_s"],
        "params": "const at::Tensor &input, const at::Tensor &output_q, const at::Tensor &output_s, "
                  "int64_t group_size, double eps, double fp8_min, double fp8_max, bool scale_ue8m0, "
                  "bool fuse_silu_and_mul, const std::optional<at::Tensor> &masked_m",
        "body": ["at::Tensor g = input.reshape({-1, group_size});",
                 "at::Tensor s = g.abs().amax(1, true).clamp_min(eps) / fp8_max;",
                 "output_s.copy_(s.reshape(output_s.sizes()));",
                 "output_q.copy_((g / s).clamp(fp8_min, fp8_max).reshape(output_q.sizes()));"],
        "inputs": "[t.randn(4, 8, generator=g), t.zeros(4, 8), t.zeros(4, 2), 4, 1e-10, -448.0, "
                  "448.0, False, False, None]",
    },
    "sgl_per_token_group_quant_fp4": {
        "schema": "sgl_per_token_group_quant_fp4(Tensor input, Tensor output_q, Tensor output_s, "
                  "int group_size, float eps, Tensor? input_secondary=None) -> ()",
        "writes": ["output_q", "output_s"],
        "params": "const at::Tensor &input, const at::Tensor &output_q, const at::Tensor &output_s, "
                  "int64_t group_size, double eps, const std::optional<at::Tensor> &input_secondary",
        "body": ["at::Tensor g = input.reshape({-1, group_size});",
                 "at::Tensor s = g.abs().amax(1, true).clamp_min(eps) / 6.0;",
                 "output_s.copy_(s.reshape(output_s.sizes()));",
                 "output_q.copy_((g / s).round().reshape(output_q.sizes()));"],
        "inputs": "[t.randn(4, 8, generator=g), t.zeros(4, 8), t.zeros(4, 2), 4, 1e-10, None]",
    },
    "sgl_per_tensor_quant_fp8": {
        "schema": "sgl_per_tensor_quant_fp8(Tensor input, Tensor output_q, Tensor output_s, "
                  "bool is_static) -> ()",
        "writes": ["output_q", "output_s"],
        "params": "const at::Tensor &input, const at::Tensor &output_q, const at::Tensor &output_s, "
                  "bool is_static",
        "body": ["if (!is_static)",
                 "  output_s.copy_(input.abs().max().reshape(output_s.sizes()) / 448.0);",
                 "output_q.copy_(input / output_s);"],
        "inputs": "[t.randn(4, 8, generator=g), t.zeros(4, 8), t.ones(1), False]",
    },
    "build_tree_kernel_efficient": {
        "schema": "build_tree_kernel_efficient(Tensor parent_list, Tensor selected_index, "
                  "Tensor verified_seq_len, Tensor tree_mask, Tensor positions, Tensor retrive_index, "
                  "Tensor retrive_next_token, Tensor retrive_next_sibling, int topk, int depth, "
                  "int draft_token_num, int tree_mask_mode)->()",
        "writes": ["tree_mask", "positions", "retrive_index", "retrive_next_token",
                   "retrive_next_sibling"],
        "params": "const at::Tensor &parent_list, const at::Tensor &selected_index, "
                  "const at::Tensor &verified_seq_len, const at::Tensor &tree_mask, "
                  "const at::Tensor &positions, const at::Tensor &retrive_index, "
                  "const at::Tensor &retrive_next_token, const at::Tensor &retrive_next_sibling, "
                  "int64_t topk, int64_t depth, int64_t draft_token_num, int64_t tree_mask_mode",
        "body": ["tree_mask.fill_(1);",
                 "positions.copy_(verified_seq_len.unsqueeze(1) + depth);",
                 "retrive_index.copy_(selected_index);",
                 "retrive_next_token.copy_(parent_list);",
                 "retrive_next_sibling.fill_(-1);"],
        "inputs": "[t.randn(2, 4, generator=g), t.randn(2, 4, generator=g), t.randn(2, generator=g), "
                  "t.zeros(2, 4), t.zeros(2, 4), t.zeros(2, 4), t.zeros(2, 4), t.zeros(2, 4), 2, 3, 4, 0]",
    },
    "transfer_kv_dim_exchange": {
        "schema": "transfer_kv_dim_exchange(Tensor device_k, Tensor host_k, Tensor device_v, "
                  "Tensor host_v, Tensor device_indices, Tensor host_indices, int page_size, "
                  "int direct, int flags) -> ()",
        "writes": ["host_k", "host_v"],
        "params": "const at::Tensor &device_k, const at::Tensor &host_k, const at::Tensor &device_v, "
                  "const at::Tensor &host_v, const at::Tensor &device_indices, "
                  "const at::Tensor &host_indices, int64_t page_size, int64_t direct, int64_t flags",
        "body": ["host_k.copy_(device_k);", "host_v.copy_(device_v);"],
        "inputs": "[t.randn(4, 3, generator=g), t.zeros(4, 3), t.randn(4, 3, generator=g), "
                  "t.zeros(4, 3), t.zeros(4), t.zeros(4), 1, 1, 0]",
    },
    "transfer_state_per_layer_direct_pf_lf": {
        "schema": "transfer_state_per_layer_direct_pf_lf(Tensor src, Tensor dst, Tensor src_indices, "
                  "Tensor dst_indices, int layer_id, int flags) -> ()",
        "writes": ["dst"],
        "params": "const at::Tensor &src, const at::Tensor &dst, const at::Tensor &src_indices, "
                  "const at::Tensor &dst_indices, int64_t layer_id, int64_t flags",
        "body": ["dst.copy_(src);"],
        "inputs": "[t.randn(4, 3, generator=g), t.zeros(4, 3), t.zeros(4), t.zeros(4), 0, 0]",
    },
    "transfer_state_all_layer_direct_lf_pf": {
        "schema": "transfer_state_all_layer_direct_lf_pf(Tensor[] device_states, Tensor[] host_states, "
                  "Tensor device_indices, Tensor host_indices, int flags) -> ()",
        "writes": ["host_states"],
        "params": "at::TensorList device_states, at::TensorList host_states, "
                  "const at::Tensor &device_indices, const at::Tensor &host_indices, int64_t flags",
        "body": ["for (size_t i = 0; i < host_states.size(); ++i)",
                 "  host_states[i].copy_(device_states[i]);"],
        "inputs": "[[t.randn(2, 3, generator=g), t.randn(2, 3, generator=g)], "
                  "[t.zeros(2, 3), t.zeros(2, 3)], t.zeros(2), t.zeros(2), 0]",
    },
    # pyg-lib: an optional out argument the kernel accumulates into.
    "segment_sum_csr": {
        "schema": "segment_sum_csr(Tensor src, Tensor indptr, Tensor? out=None) -> Tensor",
        "writes": ["out"],
        "params": "const at::Tensor &src, const at::Tensor &indptr, "
                  "const std::optional<at::Tensor> &optional_out",
        "body": ["at::Tensor out = optional_out.has_value()",
                 "                     ? optional_out.value().contiguous()",
                 "                     : at::zeros({2, src.size(1)}, src.options());",
                 "out.add_(src.narrow(0, 0, 2));",
                 "return out.clone();"],
        "returns": "at::Tensor",
        "fake": "lambda src, indptr, out=None: src.new_empty(2, src.size(1))",
        "inputs": "[t.randn(3, 4, generator=g), t.tensor([0.0, 1.0, 3.0]), t.zeros(2, 4)]",
    },
}


def fixed_schema(twin):
    """The schema with each written argument declared `Tensor(x!)`."""
    schema = twin["schema"]
    letters = iter("abcdefghijklmnopqrstuvwxyz")
    for name in twin["writes"]:
        schema, n = re.subn(r"Tensor(\[\])?(\??) " + name + r"\b",
                            lambda m: f"Tensor({next(letters)}!){m.group(1) or ''}{m.group(2)} {name}",
                            schema, count=1)
        assert n == 1, (name, schema)
    return schema


def generate(path):
    lines = ["// Generated by tools/ground-truth/found_twins.py: twins of the real",
             "// undeclared mutations in docs/found.md. Do not edit; regenerate.",
             "#include <ATen/ATen.h>",
             "#include <torch/library.h>",
             "#include <optional>",
             "",
             "namespace {"]
    for key, twin in TWINS.items():
        lines.append(f"{twin.get('returns', 'void')} k_{key}({twin['params']}) {{")
        lines += ["  " + b for b in twin["body"]]
        lines += ["}", ""]
    lines += ["} // namespace", ""]
    for ns, schema_of in (("tt_found", lambda t: t["schema"]), ("tt_found_fixed", fixed_schema)):
        lines.append(f"TORCH_LIBRARY({ns}, m) {{")
        for key, twin in TWINS.items():
            lines.append(f'  m.def("{schema_of(twin)}");')
        lines += ["}", "", f"TORCH_LIBRARY_IMPL({ns}, CPU, m) {{"]
        for key in TWINS:
            lines.append(f'  m.impl("{key}", &k_{key});')
        lines += ["}", ""]
    with open(path, "w") as f:
        f.write("\n".join(lines))


# --- measurement (runs under a venv's python) --------------------------------

def _measure(args):
    torch = um.prepare_torch("tt-found")
    t = torch
    um.load_operators(torch, "tt_found_ops", [args.source])

    def tensors(values):
        out = []
        for v in values:
            if isinstance(v, torch.Tensor):
                out.append(v)
            elif isinstance(v, list):
                out += tensors(v)
        return out

    def clone(values):
        return [v.clone() if isinstance(v, torch.Tensor) else
                clone(v) if isinstance(v, list) else v for v in values]

    rows = []
    for ns in ("tt_found", "tt_found_fixed"):
        for key, twin in TWINS.items():
            qual = f"{ns}::{key}"
            torch.library.register_fake(qual)(
                eval(twin["fake"], {"t": t}) if "fake" in twin else (lambda *a, **k: None))
            op = getattr(getattr(torch.ops, ns), key).default
            g = torch.Generator().manual_seed(29)
            inputs = eval(twin["inputs"], {"t": t, "g": g})
            row = {"op": qual, "twin": key, "fixed": ns == "tt_found_fixed"}
            try:
                torch.library.opcheck(op, tuple(clone(inputs)), test_utils="test_schema")
                row["opcheck"] = "pass"
            except Exception as e:
                text = str(e) + " " + str(e.__cause__ or "")
                row["opcheck"] = "mutation" if "not defined as mutable but was mutated" in text \
                    else "error: " + type(e.__cause__ or e).__name__

            def program(*values):
                op(*values)
                return [x * 1 for x in tensors(values)]

            eager = [x.detach() for x in program(*clone(inputs))]
            for backend in BACKENDS:
                torch._dynamo.reset()
                try:
                    got = torch.compile(program, backend=backend, fullgraph=True)(*clone(inputs))
                    same = len(got) == len(eager) and all(
                        torch.allclose(a, b, rtol=1e-4, atol=1e-5) for a, b in zip(got, eager))
                    row[backend] = "same" if same else "differs"
                except Exception as e:
                    row[backend] = "error: " + type(e).__name__
            rows.append(row)
    with open(args.out, "w") as f:
        json.dump({"torch": torch.__version__, "rows": rows}, f, indent=1)


# --- driver (standard library) -----------------------------------------------

def measure_with(python, source=None):
    """Measures the twins of source (default: freshly generated)."""
    with tempfile.TemporaryDirectory() as tmp:
        src = os.path.join(tmp, "tt_found_ops.cpp")
        if source:
            shutil.copy(source, src)
        else:
            generate(src)
        out = os.path.join(tmp, "rows.json")
        return um.run_measurement([python, os.path.abspath(__file__), "measure", "--out", out,
                                   "--source", src], out, python, "found-twins")


def python_of(spec):
    return um.python_of(spec, "found-twins")


def cells(row):
    return [row["opcheck"]] + [row[b] for b in BACKENDS]


def render(table):
    versions = [table["versions"][lab] for lab in table["order"] if lab in table["versions"]]
    head = ["twin", "schema"]
    for v in versions:
        head += [f"{v} opcheck"] + [f"{v} {b}" for b in BACKENDS]
    lines = ["| " + " | ".join(head) + " |", "|" + "---|" * len(head)]
    by = {(r["torch"], r["op"]): r for r in table["rows"]}
    for ns in ("tt_found", "tt_found_fixed"):
        for key, twin in TWINS.items():
            schema = twin["schema"] if ns == "tt_found" else fixed_schema(twin)
            row = [f"`{ns}::{key}`", f"`{schema[schema.index('('):]}`"]
            for v in versions:
                r = by.get((v, f"{ns}::{key}"))
                row += cells(r) if r else ["-"] * (1 + len(BACKENDS))
            lines.append("| " + " | ".join(row) + " |")
    return "\n".join(lines)


BEGIN = "<!-- BEGIN GENERATED: found_twins.py write rewrites this part -->"
END = "<!-- END GENERATED -->"


def cmd_write(args):
    table = um.read_table(JSON_PATH)
    for spec in args.python:
        label, python = python_of(spec)
        if python:
            um.merge_measurement(table, label, measure_with(python))
    um.write_table(JSON_PATH, table)
    um.rewrite_generated(DOC_PATH, BEGIN, render(table), END)
    print(render(table))


def expected(row):
    """What docs/found.md says of every twin: the undeclared one fails
    opcheck's test_schema and its writes are lost under aot_eager and
    inductor (the twin's caller reads only the written tensors, so a call
    whose schema says it writes nothing is dead code, whatever it returns);
    the fixed one passes and keeps them."""
    if row["fixed"]:
        return {"opcheck": "pass", "eager": "same", "aot_eager": "same", "inductor": "same"}
    return {"opcheck": "mutation", "eager": "same", "aot_eager": "differs", "inductor": "differs"}


def cmd_check(args):
    label, python = python_of(args.python)
    if not python:
        return SKIP_CODE
    with open(JSON_PATH) as f:
        table = json.load(f)
    want_version = table["versions"].get(label)
    got = measure_with(python)
    if want_version and got["torch"] != want_version:
        print(f"found-twins: torch {got['torch']} installed, the table has {want_version}; "
              "rerun tools/ground-truth/found_twins.py write")
        return 1
    want = {r["op"]: r for r in table["rows"] if r["torch"] == want_version}
    bad = 0
    for r in got["rows"]:
        w = want.get(r["op"])
        if w is None or cells(w) != cells(r):
            bad += 1
            print(f"DIFFERS {r['op']}: measured {cells(r)}, table {cells(w) if w else None}")
        e = expected(r)
        if any(r[k] != v for k, v in e.items()):
            bad += 1
            print(f"NOT AS docs/found.md SAYS {r['op']}: measured {cells(r)}, expected "
                  f"{[e[k] for k in ('opcheck', *BACKENDS)]}")
    print(f"found-twins torch {got['torch']}: {len(got['rows'])} twins, {bad} problems")
    return 1 if bad else 0


def cmd_static(args):
    label, python = python_of(args.python)
    if not python:
        return SKIP_CODE
    with tempfile.TemporaryDirectory() as tmp:
        src = os.path.join(tmp, "tt_found_ops.cpp")
        generate(src)
        proc = um.run_tidy(args.clang_tidy, args.module, src, um.torch_include_of(python))
    if "error:" in proc.stdout:
        print(proc.stdout[-4000:])
        print("FAIL: clang-tidy reported errors on the twins")
        return 1
    warned = um.warned_ops(proc.stdout)
    want = {f"tt_found::{k}" for k in TWINS}
    bad = sorted(want ^ warned)
    for op in bad:
        print(("MISSED " if op in want else "FALSE ") + op)
    print(f"found twins: {len(TWINS)} undeclared, {len(TWINS)} fixed; the check warns on "
          f"{len(warned)}, disagreements with opcheck {len(bad)}")
    return 1 if bad else 0


def cmd_fixes(args):
    label, python = python_of(args.python)
    if not python:
        return SKIP_CODE
    include = um.torch_include_of(python)
    with tempfile.TemporaryDirectory() as tmp:
        src = os.path.join(tmp, "tt_found_ops.cpp")
        generate(src)
        before = open(src).read()
        um.run_tidy(args.clang_tidy, args.module, src, include, fix=True)
        fixed = open(src).read()
        again = um.run_tidy(args.clang_tidy, args.module, src, include, fix=True)
        if fixed == before or open(src).read() != fixed or um.warned_ops(again.stdout):
            print(again.stdout[-3000:])
            print("FAIL: --fix changed nothing, or a second --fix changed the file or warns")
            return 1
        got = measure_with(python, src)
    bad = 0
    for r in got["rows"]:
        if r["opcheck"] != "pass" or any(r[b] != "same" for b in BACKENDS):
            bad += 1
            print(f"FIX NOT PROVEN {r['op']}: {cells(r)}")
    print(f"found twins, fixed by --fix, torch {got['torch']}: {len(got['rows'])} operators, "
          f"{len(got['rows']) - bad} pass opcheck and keep their writes under "
          f"{', '.join(BACKENDS)}; {bad} do not")
    return 1 if bad else 0


def main():
    p = argparse.ArgumentParser(description=__doc__,
                                formatter_class=argparse.RawDescriptionHelpFormatter)
    sub = p.add_subparsers(dest="cmd", required=True)
    g = sub.add_parser("generate")
    g.add_argument("out")
    m = sub.add_parser("measure")
    m.add_argument("--out", required=True)
    m.add_argument("--source", required=True)
    w = sub.add_parser("write")
    w.add_argument("--python", action="append", default=[], help="LABEL=PYTHON")
    c = sub.add_parser("check")
    c.add_argument("--python", required=True, help="LABEL=PYTHON")
    for name in ("static", "fixes"):
        s = sub.add_parser(name)
        s.add_argument("--python", required=True)
        s.add_argument("--clang-tidy", required=True)
        s.add_argument("--module", required=True)
    args = p.parse_args()
    if args.cmd == "generate":
        generate(args.out)
        return 0
    if args.cmd == "measure":
        _measure(args)
        return 0
    return {"write": cmd_write, "check": cmd_check, "static": cmd_static,
            "fixes": cmd_fixes}[args.cmd](args) or 0


if __name__ == "__main__":
    sys.exit(main())
