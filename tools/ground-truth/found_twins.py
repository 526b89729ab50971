#!/usr/bin/env python3
"""Twins of the real bugs in docs/found.md, measured.

Each real undeclared mutation that torch-op-undeclared-mutation finds in a
public project gets a twin here: an operator with the project's schema,
registered as the project registers it (a CPU kernel where the project has
only XPU/PrivateUse1 kernels; CPU + a C++ Autograd kernel that mark_dirty()s
`out` for pyg-lib; a catch-all m.def(name, fn) writing through data_ptr() for
flashinfer), whose kernel writes the arguments the project's kernel writes.
Four variants each (VARIANTS): as shipped, once a fake is added (Python
register_fake), fixed, fixed + fake. Each variant is called by every caller
the twin has (CALLER_KEYS): the callers read in the project (which tensors
are graph inputs or intermediates, what is read after the call, how the
project compiles), and contrasts that show a condition; docs/found.md states
a class per caller and version, and `check` holds each to it.

  found_twins.py generate OUT.cpp
      the C++ twins, one namespace per variant.
  VENV/bin/python found_twins.py measure --out ROWS.json --source SRC.cpp
      builds them and records, per variant, opcheck's test_schema message (and
      the first of all its tests that fails), and per caller whether
      torch.compile (eager, aot_eager, inductor; default and, for the first
      caller, fullgraph=True) keeps what the caller reads as the uncompiled
      call does, with a graph break, or raises; and the class that shows
      (Consequence.h).
  found_twins.py write --python LABEL=PYTHON ...
      re-measures and rewrites docs/found.json and the table in docs/found.md.
  found_twins.py check --python LABEL=PYTHON
      re-measures one version against docs/found.json and against the classes
      docs/found.md states (CLAIMS) (a ctest).
  found_twins.py static --python LABEL=PYTHON --clang-tidy CT --module SO
      the check warns on every undeclared twin and on no fixed one (a ctest).
  found_twins.py fixes --python LABEL=PYTHON --clang-tidy CT --module SO
      the check's own --fix on the twins: every twin then passes opcheck's
      test_schema and loses no write, a second --fix changes nothing (a ctest).
"""
import argparse
import functools
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
import sampling  # noqa: E402
JSON_PATH = os.path.join(ROOT, "docs", "found.json")
# What a measurement depends on (sampling.py): a change re-measures every twin.
INPUTS = ["found_twins.py", "undeclared_mutation.py"]
SUITE = "found-twins"
FIXES_SUITE = "found-twins-fixes"
# Twins measured in every check: fused_add_rmsnorm_cpu's callers carry the
# showcase's claim (the llama chain, silent under inductor on both versions).
ALWAYS = {"fused_add_rmsnorm_cpu"}
DOC_PATH = os.path.join(ROOT, "docs", "found.md")
CHECK = "torch-op-undeclared-mutation"
SKIP_CODE = 77
BACKENDS = ["eager", "aot_eager", "inductor"]

# The LoRA shrink of intel-extension-for-pytorch's kernel (PunicaKrnl.cpp):
# out[b, r] = scale * input[b] . weights[indicies[b], r], written through
# data_ptr (float here; the project's computes bf16 and half).
_PUNICA_SHRINK = [
    "float *o = out.data_ptr<float>();",
    "const float *x = input.data_ptr<float>();",
    "const float *w = weights.data_ptr<float>();",
    "const int64_t *lora = indicies.data_ptr<int64_t>();",
    "const int64_t batch = input.size(0), hidden = input.size(1);",
    "const int64_t rank = weights.size(1);",
    "for (int64_t b = 0; b < batch; ++b)",
    "  for (int64_t r = 0; r < rank; ++r) {",
    "    double acc = 0;",
    "    for (int64_t h = 0; h < hidden; ++h)",
    "      acc += x[b * hidden + h] * w[(lora[b] * rank + r) * hidden + h];",
    "    o[b * rank + r] = static_cast<float>(scale * acc);",
    "  }"]

# id -> the twin: the project's schema (its name and arguments as the
# project writes them), the arguments the project's kernel writes, the C++
# kernel's parameters and body, and the Python inputs (t is torch). Every
# key a twin may have (checked when the module loads):
TWIN_KEYS = {
    # required
    "schema": "the schema as the project writes it (name and arguments)",
    "writes": "the arguments the project's kernel writes",
    "params": "the C++ kernel's parameter list",
    "body": "the C++ kernel's statements, as a list of lines",
    "inputs": "Python expressions of the inputs (t is torch, g a generator); one set or a list",
    "project": "the project the bug is in, as docs/found.md names it",
    # optional
    "registers": "what the project registers (REGISTERS; default cpu)",
    "returns": "the C++ return type (default void)",
    "fixed": "the fixed schema, where declaring `writes` alone is not the fix",
    "fixed_body": "the fixed kernel's statements, where they differ",
    "fixed_returns": "the fixed kernel's return type, where it differs",
    "fake": "a Python fake (register_fake) for the '+ fake' variants",
    "fixed_fake": "the fake of the fixed variants, where it differs",
    "ships_fake": "the project registers its fake itself: 'as shipped' registers it too",
    "fake_key": "the dispatch key the project registers its fake as a kernel for (Meta: "
                "torch.library.impl(op, 'Meta')); default: torch.library.register_fake",
    "says": "what the check's warning on the undeclared twin says of what its callers "
            "measure (found-twins-static holds the message to it)",
    "callers": "the project's callers (CALLER_KEYS), the first shown in the main table; "
               "default: one bare call whose every tensor is a graph input, read after it",
}
# What a caller holds. Each is compiled and compared with its uncompiled run,
# in every variant of its twin.
CALLER_KEYS = {
    # required
    "name": "a short name, unique within the twin",
    "shape": "what the caller is, as docs/found.md says it: which tensors are graph "
             "inputs or intermediates, what is returned or read after the call",
    "read": "where the caller was read in the project (path and commit or release); "
            "'contrast' for a caller written to show a condition, not the project's",
    # optional
    "source": "Python `def caller(op, ...)`: the compiled function (default: a bare call "
              "returning every tensor argument and the result); `t` is torch, `op` and `ns` "
              "the variant's operator and namespace",
    "inputs": "its inputs, as the twin's `inputs` (default: the twin's)",
    "compile": "torch.compile's setting as the project compiles: dynamic (False), no_grad "
               "(True), freezing (True: inductor freezing)",
    "claims": "{version label or 'all': {variant: class}} where docs/found.md states a class "
              "other than the project's (CLAIMS)",
}
_CALLER_REQUIRED = ("name", "shape", "read")
# The caller a twin has when it names none.
DEFAULT_CALLER = {"name": "direct",
                  "shape": "a direct call: every tensor a graph input, all read after the call",
                  "read": "the wrapper passes the caller's tensors through"}
_REQUIRED = ("schema", "writes", "params", "body", "inputs", "project")
REGISTERS = {"cpu": "CPU kernel (the project: XPU/PrivateUse1 only)",
             "cpu+autograd": "CPU kernel + C++ Autograd kernel (mark_dirty)",
             "catchall": "catch-all kernel, m.def(name, fn), raw-pointer writes",
             "cpu-inferred": "CPU kernel, its schema inferred from the C++ signature "
                             "(m.def(name, torch::dispatch(CPU, fn)))"}

def _direct(shape, read):
    """The bare call (DEFAULT_CALLER's source) with what it stands for."""
    return dict(DEFAULT_CALLER, shape=shape, read=read)


def _outputs_allocated(read):
    """A caller that allocates the written outputs itself and returns them
    (the quantization wrappers'). The twin zero-fills where the projects use
    torch.empty, so that an unwritten output reads the same every run."""
    return {"name": "allocates outputs",
            "shape": "the wrapper allocates `output_q` and `output_s` in the compiled function "
                     "(intermediates), calls the operator and returns them",
            "read": read,
            "source": "def caller(op, x, output_q, output_s, *rest):\n"
                      "    output_q, output_s = t.zeros_like(output_q), t.zeros_like(output_s)\n"
                      "    op(x, output_q, output_s, *rest)\n"
                      "    return [output_q * 2, output_s * 2]\n"}


_XPU_WRAPPER = ("python/sgl_kernel/gemm.py @ 9cf16bf9 passes the caller's tensors through; "
                "sglang's callers allocate the outputs and return them")

TWINS = {
    "moe_sum_reduce": {
        "callers": [
            _direct("a direct call of `sgl_kernel.moe_sum_reduce(input, output, scale)`: both "
                    "tensors graph inputs, read after the call", _XPU_WRAPPER),
            {"name": "inside sglang's custom op",
             "shape": "sglang's caller: inside `inplace_fused_experts`, its own custom op "
                      "(`mutates_args=[\"hidden_states\"]`), which torch.compile does not trace "
                      "into; `hidden_states` an intermediate, returned",
             "read": "python/sglang/srt/layers/moe/moe_runner/triton_utils/fused_moe.py "
                     "(moe_combine_topk, _fused_moe_kernel_sequence), sglang 0.5.23 wheel",
             # The operator runs eagerly inside the opaque custom op.
             "claims": {"all": {"shipped": "traced", "with_fake": "traced"}},
             "source": "@t.library.custom_op('tt_found_callers::inplace_fused_experts_' + ns,\n"
                       "                     mutates_args=['hidden_states'])\n"
                       "def inplace_fused_experts(hidden_states: t.Tensor, x: t.Tensor,\n"
                       "                          scale: float) -> None:\n"
                       "    op(x.clone(), hidden_states, scale)\n"
                       "\n"
                       "def caller(_op, x, output, scale):\n"
                       "    h = output * 1\n"
                       "    inplace_fused_experts(h, x, scale)\n"
                       "    return [h * 2]\n"},
        ],
        "schema": "moe_sum_reduce(Tensor input, Tensor output, float routed_scaling_factor) -> ()",
        "writes": ["output"],
        "params": "const at::Tensor &input, const at::Tensor &output, double routed_scaling_factor",
        "body": ["output.copy_(input.sum(1) * routed_scaling_factor);"],
        "inputs": "[t.randn(3, 2, 4, generator=g), t.zeros(3, 4), 0.5]",
    },
    "sgl_per_token_group_quant_8bit": {
        "callers": [_direct("a direct call: every tensor a graph input, read after the call",
                            _XPU_WRAPPER),
                    _outputs_allocated("sglang_per_token_group_quant_fp8 (srt/layers/quantization/fp8_kernel.py, sglang 0.5.23 wheel) allocates x_q, x_s and returns them; on XPU sglang 0.5.23 quantizes with Triton instead")],
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
        "callers": [_direct("a direct call: every tensor a graph input, read after the call",
                            _XPU_WRAPPER),
                    _outputs_allocated("as sgl_per_token_group_quant_8bit (gemm.py @ 9cf16bf9 calls v2 with enable_v2)")],
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
        "callers": [_direct("a direct call: every tensor a graph input, read after the call",
                            _XPU_WRAPPER),
                    _outputs_allocated("python/sgl_kernel/gemm.py @ 9cf16bf9: the wrapper allocates output_q and output_s and returns views of them; sglang 0.5.23 has no caller")],
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
        "callers": [
            _direct("a direct call: every tensor a graph input, read after the call", _XPU_WRAPPER),
            dict(_outputs_allocated(
                "scaled_fp8_quant (kernels/ops/quantization/fp8_kernel.py, sglang 0.5.23 wheel): "
                "`output = torch.empty(...)`, `scale = torch.zeros(1)`, then `return output, "
                "scale`; apply_fp8_linear calls it inside the model forward that XPUGraphRunner "
                "compiles with --enable-torch-compile"), name="scaled_fp8_quant"),
        ],
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
        "callers": [
            _direct("a direct call: every tensor a graph input, read after the call",
                    "the package has no wrapper; tests call torch.ops.npu directly"),
            {"name": "eagle_utils",
             "shape": "sglang's build_tree_kernel_efficient: the five outputs allocated by the "
                      "caller (`positions`, `tree_mask`, and `retrieve_index`, "
                      "`retrieve_next_token`, `retrieve_next_sibling` three views of one "
                      "`torch.full((3, bs, n), -1)`), all returned; eager worker code, not "
                      "compiled by sglang",
             "read": "python/sglang/srt/speculative/eagle_utils.py, sglang 0.5.23 wheel",
             # The twin's kernel fills tree_mask with 1, so the caller starts
             # it at 0 (sglang fills it True and the kernel writes a window).
             "source": "def caller(op, parent_list, selected_index, seq_lens, tree_mask, "
                       "positions, ri, rnt, rns, *rest):\n"
                       "    tree_mask, positions = t.zeros_like(tree_mask), t.zeros_like(positions)\n"
                       "    ri, rnt, rns = t.full((3,) + tuple(ri.shape), -1.0)\n"
                       "    op(parent_list, selected_index, seq_lens, tree_mask, positions, ri, rnt, "
                       "rns, *rest)\n"
                       "    return [tree_mask * 2, positions * 2, ri * 2, rnt * 2, rns * 2]\n"},
        ],
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
    # The kernel copies by direction: host to device (direct == 1, the
    # default of sgl_kernel_npu.kvcacheio) writes device_k/device_v, device
    # to host (direct == 2) writes host_k/host_v. Both are measured.
    "transfer_kv_dim_exchange": {
        "callers": [_direct("sglang's host cache pools: the device and host KV caches, long-lived buffers (graph inputs were the code compiled), both directions",
                            "python/sglang/srt/mem_cache/ (pool_host, memory_pool_host.py), sglang "
                            "0.5.23 wheel: scheduler code, not compiled")],
        "schema": "transfer_kv_dim_exchange(Tensor device_k, Tensor host_k, Tensor device_v, "
                  "Tensor host_v, Tensor device_indices, Tensor host_indices, int page_size, "
                  "int direct, int flags) -> ()",
        "writes": ["device_k", "host_k", "device_v", "host_v"],
        "params": "const at::Tensor &device_k, const at::Tensor &host_k, const at::Tensor &device_v, "
                  "const at::Tensor &host_v, const at::Tensor &device_indices, "
                  "const at::Tensor &host_indices, int64_t page_size, int64_t direct, int64_t flags",
        "body": ["if (direct == 2) {",
                 "  host_k.copy_(device_k);",
                 "  if (device_v.numel() != 0 && host_v.numel() != 0)",
                 "    host_v.copy_(device_v);",
                 "} else {",
                 "  device_k.copy_(host_k);",
                 "  if (device_v.numel() != 0 && host_v.numel() != 0)",
                 "    device_v.copy_(host_v);",
                 "}"],
        "inputs": ["[t.randn(4, 3, generator=g), t.randn(4, 3, generator=g), "
                   "t.randn(4, 3, generator=g), t.randn(4, 3, generator=g), t.zeros(4), t.zeros(4), "
                   "1, 1, 2]",
                   "[t.randn(4, 3, generator=g), t.randn(4, 3, generator=g), "
                   "t.randn(4, 3, generator=g), t.randn(4, 3, generator=g), t.zeros(4), t.zeros(4), "
                   "1, 2, 2]"],
    },
    "transfer_state_per_layer_direct_pf_lf": {
        "callers": [_direct("sglang's Mamba host pool: `dst` a layer of the device state, a long-lived buffer (a graph input were the code compiled)",
                            "python/sglang/srt/mem_cache/ (pool_host, memory_pool_host.py), sglang "
                            "0.5.23 wheel: scheduler code, not compiled")],
        "schema": "transfer_state_per_layer_direct_pf_lf(Tensor src, Tensor dst, Tensor src_indices, "
                  "Tensor dst_indices, int layer_id, int flags) -> ()",
        "writes": ["dst"],
        "params": "const at::Tensor &src, const at::Tensor &dst, const at::Tensor &src_indices, "
                  "const at::Tensor &dst_indices, int64_t layer_id, int64_t flags",
        "body": ["dst.copy_(src);"],
        "inputs": "[t.randn(4, 3, generator=g), t.zeros(4, 3), t.zeros(4), t.zeros(4), 0, 0]",
    },
    "transfer_state_all_layer_direct_lf_pf": {
        "callers": [_direct("sglang's Mamba host pool: `host_states` pinned host buffers, long-lived (graph inputs were the code compiled)",
                            "python/sglang/srt/mem_cache/ (pool_host, memory_pool_host.py), sglang "
                            "0.5.23 wheel: scheduler code, not compiled")],
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
    # pyg-lib: an optional out argument the CPU kernel accumulates into and
    # returns (out = optional_out.value().contiguous()), under a C++
    # Autograd kernel (torch::autograd::Function) that mark_dirty()s it.
    "segment_sum_csr": {
        "callers": [
            _direct("`out` passed by the user of `pyg_lib.ops.segment_sum_csr(src, indptr, out)` "
                    "(a graph input); `out` and the result read after the call",
                    "pyg_lib/ops/__init__.py @ 764e3a49 passes `out` through"),
            {"name": "own buffer",
             "shape": "pyg-lib's scatter_logsumexp: a buffer allocated in the function is passed "
                      "as `out`, the result is discarded and the buffer read",
             "read": "pyg_lib/ops/__init__.py:952-962 @ 764e3a49 (scatter_max into "
                     "`max_value_per_index = torch.full(...)`)",
             "source": "def caller(op, src, indptr, out):\n"
                       "    buf = t.zeros_like(out)\n"
                       "    op(src, indptr, buf)\n"
                       "    return [buf * 2]\n"},
        ],
        "project": "pyg-lib",
        "registers": "cpu+autograd",
        "schema": "segment_sum_csr(Tensor src, Tensor indptr, Tensor? out=None) -> Tensor",
        # The fix torch asks for (an alias-annotated return cannot be
        # functionalized): declare out written, return a copy, and so no
        # mark_dirty (out is no longer returned).
        "fixed": "segment_sum_csr(Tensor src, Tensor indptr, Tensor(a!)? out=None) -> Tensor",
        "fixed_body": ["at::Tensor out = optional_out.has_value()",
                       "                     ? optional_out.value().contiguous()",
                       "                     : at::zeros({2, src.size(1)}, src.options());",
                       "out.add_(src.narrow(0, 0, 2));",
                       "return out.clone();"],
        "writes": ["out"],
        "params": "const at::Tensor &src, const at::Tensor &indptr, "
                  "const std::optional<at::Tensor> &optional_out",
        "body": ["at::Tensor out = optional_out.has_value()",
                 "                     ? optional_out.value().contiguous()",
                 "                     : at::zeros({2, src.size(1)}, src.options());",
                 "out.add_(src.narrow(0, 0, 2));",
                 "return out;"],
        "returns": "at::Tensor",
        "fake": "lambda src, indptr, out=None: src.new_empty(2, src.size(1))",
        "inputs": ["[t.randn(3, 4, generator=g), t.tensor([0.0, 1.0, 3.0]), t.zeros(2, 4)]"],
    },
    # flashinfer: m.def("rmsnorm", rmsnorm) registers a catch-all kernel with
    # an inferred schema (arguments _0, _1, ...); the kernel writes out (_0)
    # through data_ptr().
    "rmsnorm": {
        "callers": [
            _direct("`out` passed by the caller of `flashinfer.norm.rmsnorm(..., out=out)` (a graph "
                    "input), read after the call", "flashinfer/norm.py:43-78 @ ea569640"),
            {"name": "allocates out",
             "shape": "flashinfer.norm.rmsnorm without `out`: `out = torch.empty_like(input)` in "
                      "the compiled function, returned",
             "read": "flashinfer/norm.py:75-77 @ ea569640",
             "source": "def caller(op, out, x, weight, eps, pdl):\n"
                       "    out = t.zeros_like(x)\n"
                       "    op(out, x, weight, eps, pdl)\n"
                       "    return [out * 2]\n"},
        ],
        "project": "flashinfer",
        "registers": "catchall",
        "schema": "rmsnorm(Tensor _0, Tensor _1, Tensor _2, float _3, bool _4) -> ()",
        # The fix: a schema that names and declares out, and the kernel
        # registered for its device (CPU here) instead of as a catch-all.
        "fixed": "rmsnorm(Tensor(a!) out, Tensor input, Tensor weight, float eps, bool enable_pdl) -> ()",
        "writes": ["_0"],
        "params": "at::Tensor &out, at::Tensor &input, at::Tensor &weight, double eps, "
                  "bool enable_pdl",
        "body": ["float *o = out.data_ptr<float>();",
                 "const float *x = input.data_ptr<float>();",
                 "const float *w = weight.data_ptr<float>();",
                 "const int64_t rows = input.size(0), cols = input.size(1);",
                 "for (int64_t r = 0; r < rows; ++r) {",
                 "  double ss = 0;",
                 "  for (int64_t c = 0; c < cols; ++c)",
                 "    ss += x[r * cols + c] * x[r * cols + c];",
                 "  const double inv = 1.0 / std::sqrt(ss / cols + eps);",
                 "  for (int64_t c = 0; c < cols; ++c)",
                 "    o[r * cols + c] = static_cast<float>(x[r * cols + c] * inv * w[c]);",
                 "}"],
        "inputs": ["[t.zeros(2, 4), t.randn(2, 4, generator=g), t.randn(4, generator=g), 1e-6, "
                   "False]"],
    },
    # sglang's CPU backend (sgl-kernel/csrc/cpu, assembled at ff1d5f46; see
    # docs/found.md): CPU kernels, and Python fakes that sglang registers
    # (register_fake_ops in cpu_graph_runner.py) whenever torch.compile is
    # enabled, so "as shipped" registers the project's fake too.
    "fused_add_rmsnorm_cpu": {
        "project": "sglang-cpu",
        "callers": [
            {"name": "llama",
             "shape": "sglang's LlamaModel.forward, compiled whole: `residual = hidden_states = "
                      "embed_tokens(input_ids)` (an intermediate of the compiled graph), layer 0's "
                      "input norm unfused, every later norm fused and chained through the decoder "
                      "layers (matmuls between them), a final fused norm; only the hidden states "
                      "returned",
             "read": "python/sglang/srt/models/llama.py (LlamaModel.forward, "
                     "LlamaDecoderLayer.forward), layers/layernorm.py (RMSNorm.forward_cpu), "
                     "model_executor/cpu_graph_runner.py @ 8cfb511d (torch.compile(torch.no_grad()"
                     "(model.forward), dynamic=False), freezing); sglang 0.5.3 to 0.5.6 wheels",
             "compile": {"dynamic": False, "no_grad": True, "freezing": True},
             # Inductor gives each call its own copy of the embedding (it
             # thinks residual unchanged), so no call sees the residual the
             # one before wrote: both versions.
             "claims": {"all": {"shipped": "silent", "with_fake": "silent"}},
             "source": "def caller(op, ids, table, weight, wq, wm, eps):\n"
                       "    h = t.nn.functional.embedding(ids, table)\n"
                       "    residual = None\n"
                       "    for layer in range(2):\n"
                       "        if residual is None:\n"
                       "            residual = h\n"
                       "            h = h * t.rsqrt(h.pow(2).mean(-1, keepdim=True) + eps) * weight\n"
                       "        else:\n"
                       "            op(h, residual, weight, eps)\n"
                       "        h = h @ wq\n"
                       "        op(h, residual, weight, eps)\n"
                       "        h = h @ wm\n"
                       "    op(h, residual, weight, eps)\n"
                       "    return [h]\n",
             "inputs": "[t.randint(0, 10, (4,), generator=g), t.randn(10, 16, generator=g), "
                       "t.randn(16, generator=g), t.randn(16, 16, generator=g) / 4, "
                       "t.randn(16, 16, generator=g) / 4, 1e-6]"},
            {"name": "one call",
             "shape": "contrast: one call of RMSNorm.forward_cpu, `x` and `residual` "
                      "intermediates (`x * 1`), both returned",
             "read": "contrast",
             # torch 2.15.0 keeps the write for this graph.
             "claims": {"2.8.0": {"shipped": "silent", "with_fake": "silent"}},
             "source": "def caller(op, x, residual, weight, eps):\n"
                       "    x, residual = x * 1, residual * 1\n"
                       "    op(x, residual, weight, eps)\n"
                       "    return [x * 2, residual * 2]\n"},
            {"name": "residual an input",
             "shape": "contrast: `residual` a graph input (as a pipeline rank or a graph break "
                      "would pass it; sglang's CPU runner asserts one rank), chained through two "
                      "layers, only the hidden states returned",
             "read": "contrast",
             "compile": {"dynamic": False, "no_grad": True},
             "source": "def caller(op, x, residual, weight, wq, wm, eps):\n"
                       "    h = x * 1\n"
                       "    for layer in range(2):\n"
                       "        op(h, residual, weight, eps)\n"
                       "        h = h @ wq\n"
                       "        op(h, residual, weight, eps)\n"
                       "        h = h @ wm\n"
                       "    return [h]\n",
             "inputs": "[t.randn(4, 16, generator=g), t.randn(4, 16, generator=g), "
                       "t.randn(16, generator=g), t.randn(16, 16, generator=g) / 4, "
                       "t.randn(16, 16, generator=g) / 4, 1e-6]"},
        ],
        "ships_fake": True,
        "schema": "fused_add_rmsnorm_cpu(Tensor(a!) input, Tensor residual, Tensor weight, "
                  "float eps) -> ()",
        "fixed": "fused_add_rmsnorm_cpu(Tensor(a!) input, Tensor(b!) residual, Tensor weight, "
                 "float eps) -> ()",
        "writes": ["residual"],
        "params": "at::Tensor &input, at::Tensor &residual, const at::Tensor &weight, double eps",
        "body": ["residual.add_(input);",
                 "input.copy_(residual * at::rsqrt(residual.pow(2).mean(-1, true) + eps) * weight);"],
        "fake": "lambda *a, **k: None",
        "inputs": "[t.randn(2, 4, generator=g), t.randn(2, 4, generator=g), t.randn(4, generator=g), "
                  "1e-6]",
    },
    "decode_attention_cpu": {
        "project": "sglang-cpu",
        "callers": [{
            "name": "forward_decode",
            "shape": "IntelAMXAttnBackend.forward_decode: the query and the output (`q.new_empty`) "
                     "intermediates; the KV caches the model's state (graph inputs, read by the "
                     "next step); `attn_logits` allocated outside the graph, read by nobody",
            "read": "python/sglang/srt/layers/attention/intel_amx_backend.py, sglang 0.5.3 to "
                    "0.5.6 wheels (13 arguments, as the pinned schema)",
            "source": "def caller(op, q, k_cache, v_cache, out, key, value, loc, logits, r2t, rpi, "
                      "sl, scale, cap):\n"
                      "    q, out = q * 1, out * 1\n"
                      "    op(q, k_cache, v_cache, out, key, value, loc, logits, r2t, rpi, sl, scale, "
                      "cap)\n"
                      "    return [out * 2, k_cache, v_cache]\n"}],
        "ships_fake": True,
        "schema": "decode_attention_cpu(Tensor query, Tensor k_cache, Tensor v_cahce, Tensor(a!) output, "
                  "Tensor key, Tensor value, Tensor loc, Tensor attn_logits, Tensor req_to_token, "
                  "Tensor req_pool_indices, Tensor seq_lens, float sm_scale, float logit_cap) -> ()",
        "fixed": "decode_attention_cpu(Tensor query, Tensor(b!) k_cache, Tensor(c!) v_cahce, "
                 "Tensor(a!) output, Tensor key, Tensor value, Tensor loc, Tensor(d!) attn_logits, "
                 "Tensor req_to_token, Tensor req_pool_indices, Tensor seq_lens, float sm_scale, "
                 "float logit_cap) -> ()",
        "writes": ["k_cache", "v_cahce", "attn_logits"],
        "params": "const at::Tensor &query, const at::Tensor &k_cache, const at::Tensor &v_cache, "
                  "const at::Tensor &output, const at::Tensor &key, const at::Tensor &value, "
                  "const at::Tensor &loc, const at::Tensor &attn_logits, "
                  "const at::Tensor &req_to_token, const at::Tensor &req_pool_indices, "
                  "const at::Tensor &seq_lens, double sm_scale, double logit_cap",
        "body": ["k_cache.index_copy_(0, loc, key);",
                 "v_cache.index_copy_(0, loc, value);",
                 "attn_logits.copy_(at::matmul(query, k_cache.t()) * sm_scale);",
                 "output.copy_(at::matmul(at::softmax(attn_logits, -1), v_cache));"],
        "fake": "lambda *a, **k: None",
        "inputs": "[t.randn(2, 4, generator=g), t.randn(6, 4, generator=g), t.randn(6, 4, generator=g), "
                  "t.zeros(2, 4), t.randn(2, 4, generator=g), t.randn(2, 4, generator=g), "
                  "t.tensor([1, 3]), t.zeros(2, 6), t.zeros(2, 6, dtype=t.int32), "
                  "t.zeros(2, dtype=t.int64), t.full((2,), 6), 0.5, 0.0]",
    },
    # inplace=True, as sglang's DeepseekV2MoE.forward_cpu passes it: the
    # kernel writes hidden_states and returns it.
    "shared_expert_cpu": {
        "project": "sglang-cpu",
        "callers": [{
            "name": "DeepseekV2MoE",
            "shape": "DeepseekV2MoE.forward_cpu: `hidden_states` an intermediate, passed with "
                     "`inplace=True`; only the result is read",
            "read": "python/sglang/srt/models/deepseek_v2.py, sglang 0.5.3 to 0.5.6 wheels",
            "source": "def caller(op, h, *rest):\n"
                      "    h = h * 1\n"
                      "    return [op(h, *rest) * 2]\n"}],
        "ships_fake": True,
        "schema": "shared_expert_cpu(Tensor hidden_states, Tensor w1, Tensor w2, Tensor "
                  "fused_experts_out, float routed_scaling_factor, bool inplace, bool use_int8_w8a8, "
                  "bool use_fp8_w8a16, Tensor? w1_scale, Tensor? w2_scale, int[]? block_size, "
                  "Tensor? a1_scale, Tensor? a2_scale, bool is_vnni) -> Tensor",
        # The fix measured: the written argument declared, and the result a
        # new tensor (a custom operator may not return an alias of an input).
        "fixed": "shared_expert_cpu(Tensor(a!) hidden_states, Tensor w1, Tensor w2, Tensor "
                 "fused_experts_out, float routed_scaling_factor, bool inplace, bool use_int8_w8a8, "
                 "bool use_fp8_w8a16, Tensor? w1_scale, Tensor? w2_scale, int[]? block_size, "
                 "Tensor? a1_scale, Tensor? a2_scale, bool is_vnni) -> Tensor",
        "fixed_body": ["at::Tensor h = at::silu(at::matmul(hidden_states, w1.t()));",
                       "at::Tensor r = at::matmul(h, w2.t()) + fused_experts_out * routed_scaling_factor;",
                       "if (inplace)",
                       "  hidden_states.copy_(r);",
                       "return r;"],
        "writes": ["hidden_states"],
        "params": "const at::Tensor &hidden_states, const at::Tensor &w1, const at::Tensor &w2, "
                  "const at::Tensor &fused_experts_out, double routed_scaling_factor, bool inplace, "
                  "bool use_int8_w8a8, bool use_fp8_w8a16, const std::optional<at::Tensor> &w1_scale, "
                  "const std::optional<at::Tensor> &w2_scale, at::OptionalIntArrayRef block_size, "
                  "const std::optional<at::Tensor> &a1_scale, "
                  "const std::optional<at::Tensor> &a2_scale, bool is_vnni",
        "body": ["at::Tensor out = inplace ? hidden_states : at::empty_like(hidden_states);",
                 "at::Tensor h = at::silu(at::matmul(hidden_states, w1.t()));",
                 "out.copy_(at::matmul(h, w2.t()) + fused_experts_out * routed_scaling_factor);",
                 "return out;"],
        "returns": "at::Tensor",
        "fake": "lambda input, *a, **k: t.empty_like(input)",
        "inputs": "[t.randn(2, 4, generator=g), t.randn(6, 4, generator=g), t.randn(4, 6, generator=g), "
                  "t.randn(2, 4, generator=g), 0.5, True, False, False, None, None, None, None, None, "
                  "False]",
    },
    # 2-D query and key: rotated in place and returned.
    "rotary_embedding_cpu": {
        "project": "sglang-cpu",
        # Only 2-D inputs are written in place (rope.cpp at 68663266: the
        # 3-D path, DeepSeek's, writes new tensors).
        "callers": [{
            "name": "llama",
            "shape": "LlamaAttention: `q, k, v = qkv.split(...)` (2-D views of the projection's "
                     "output, an intermediate) rotated by RotaryEmbedding.forward_cpu; the "
                     "returned pair is used",
            "read": "python/sglang/srt/models/llama.py, layers/rotary_embedding.py, sglang 0.5.3 "
                    "to 0.5.6 wheels",
            "source": "def caller(op, positions, query, key, head_size, cache, is_neox):\n"
                      "    qkv = t.cat([query, key, query + key], -1) * 1\n"
                      "    q, k, v = qkv.split([query.size(-1), key.size(-1), query.size(-1)], -1)\n"
                      "    q, k = op(positions, q, k, head_size, cache, is_neox)\n"
                      "    return [q * 2, k * 2, v * 2]\n"}],
        "ships_fake": True,
        "schema": "rotary_embedding_cpu(Tensor positions, Tensor query, Tensor key, int head_size, "
                  "Tensor cos_sin_cache, bool is_neox) -> (Tensor, Tensor)",
        "fixed": "rotary_embedding_cpu(Tensor positions, Tensor(a!) query, Tensor(b!) key, "
                 "int head_size, Tensor cos_sin_cache, bool is_neox) -> (Tensor, Tensor)",
        "writes": ["query", "key"],
        "params": "const at::Tensor &positions, const at::Tensor &query, const at::Tensor &key, "
                  "int64_t head_size, const at::Tensor &cos_sin_cache, bool is_neox",
        "body": ["at::Tensor c = cos_sin_cache.index_select(0, positions);",
                 "query.mul_(c);",
                 "key.mul_(c);",
                 "return std::make_tuple(query, key);"],
        # The fix measured: query and key declared written, and new tensors
        # returned (a custom operator may not return an alias of an input).
        "fixed_body": ["at::Tensor c = cos_sin_cache.index_select(0, positions);",
                       "query.mul_(c);",
                       "key.mul_(c);",
                       "return std::make_tuple(query.clone(), key.clone());"],
        "returns": "std::tuple<at::Tensor, at::Tensor>",
        # sglang's fake for 2-D inputs returns query and key themselves.
        "fake": "lambda positions, query, key, head_size, cache, is_neox: (query, key)",
        "fixed_fake": "lambda positions, query, key, *a: (t.empty_like(query), t.empty_like(key))",
        "inputs": "[t.tensor([0, 2]), t.randn(2, 4, generator=g), t.randn(2, 4, generator=g), 4, "
                  "t.randn(3, 4, generator=g), True]",
    },
    # intel-extension-for-pytorch (csrc/cpu/aten/Punica.cpp @ 6d3ba89cf; see
    # docs/found.md): IPEX_OP_REGISTER_DISPATCH registers the CPU kernel with
    # a schema inferred from its C++ signature (no argument mutable, the
    # arguments named _0, _1, ...); the kernel behind the dispatch stub writes
    # `out` through data_ptr and the registered function returns it. The
    # package registers a Meta kernel that returns a new tensor
    # (_meta_registrations.py).
    "punica_bgmv_shrink": {
        "project": "intel-extension-for-pytorch",
        "callers": [
            {"name": "vLLM IPEX LoRA",
             "shape": "vLLM's IPEX LoRA backend: its `bgmv_shrink` calls "
                      "`ipex.llm.functional.bgmv_shrink`, which passes the output buffer (a graph "
                      "input) to the operator; the result is ignored and the buffer read",
             "read": "vllm-project/vllm vllm/lora/ops/ipex_ops/lora_ops.py @ 466716c2",
             "source": "def caller(op, out, x, w, idx, scale):\n"
                       "    op(out, x, w, idx, scale)\n"
                       "    return [out * 1]\n"},
            _direct("`ipex.llm.functional.bgmv_shrink` alone: `out` passed in (a graph input), "
                    "the operator's result returned; both read",
                    "intel_extension_for_pytorch 2.8.0 wheel, llm/functional")
            | {"claims": {"all": {"shipped": "traced", "with_fake": "traced"}}},
        ],
        # The two callers on 2.15.0: the result read (traced), ignored (silent).
        "says": "a caller that reads what the kernel returns, the argument it writes, got the "
                "written values, and one that ignores the result did not",
        "registers": "cpu-inferred",
        "ships_fake": True,
        "fake_key": "Meta",
        # As torch's dispatcher holds the inferred schema.
        "schema": "punica_bgmv_shrink(Tensor _0, Tensor _1, Tensor _2, Tensor _3, float _4) -> Tensor",
        # The fix: a schema written out that declares the output written and
        # returns nothing (the callers read the buffer they passed; a custom
        # operator may not return an alias of an input).
        "fixed": "punica_bgmv_shrink(Tensor(a!) out, Tensor input, Tensor weights, "
                 "Tensor indicies, float scale) -> ()",
        "writes": ["_0"],
        "params": "at::Tensor &out, at::Tensor &input, at::Tensor &weights, at::Tensor &indicies, "
                  "const double scale",
        "body": _PUNICA_SHRINK + ["return out;"],
        "returns": "at::Tensor",
        "fixed_body": _PUNICA_SHRINK,
        "fixed_returns": "void",
        "fake": "lambda out, *a: out.new_empty(out.shape)",
        "fixed_fake": "lambda *a: None",
        "inputs": "[t.zeros(4, 8), t.randn(4, 32, generator=g), t.randn(2, 8, 32, generator=g), "
                  "t.tensor([0, 1, 0, 1]), 0.5]",
    },
}


# What each project registers for its operators (docs/found.md): the twins of
# sgl-kernel-xpu (XPU kernels) and sgl-kernel-npu (PrivateUse1 kernels) get a
# CPU kernel only, no fake, as their projects ship.
for _key in ("moe_sum_reduce", "sgl_per_token_group_quant_8bit", "sgl_per_token_group_quant_8bit_v2",
             "sgl_per_token_group_quant_fp4", "sgl_per_tensor_quant_fp8"):
    TWINS[_key].setdefault("project", "sgl-kernel-xpu")
for _key in ("build_tree_kernel_efficient", "transfer_kv_dim_exchange",
             "transfer_state_per_layer_direct_pf_lf", "transfer_state_all_layer_direct_lf_pf"):
    TWINS[_key].setdefault("project", "sgl-kernel-npu")
# TT_FOUND_ONLY=a,b: only those twins (for trying new ones; the ctests and
# `write` measure every twin).
if os.environ.get("TT_FOUND_ONLY"):
    TWINS = {k: v for k, v in TWINS.items() if k in os.environ["TT_FOUND_ONLY"].split(",")}
for _key, _twin in TWINS.items():
    _unknown = set(_twin) - set(TWIN_KEYS)
    _missing = [k for k in _REQUIRED if k not in _twin]
    if _unknown or _missing:
        raise SystemExit(f"found_twins.py: twin {_key}: unknown keys {sorted(_unknown)}, "
                         f"missing {_missing} (TWIN_KEYS says what a twin holds)")
    if _twin.get("registers", "cpu") not in REGISTERS:
        raise SystemExit(f"found_twins.py: twin {_key}: registers "
                         f"{_twin['registers']!r} is none of {sorted(REGISTERS)}")
    _twin.setdefault("registers", "cpu")
    if isinstance(_twin["inputs"], str):
        _twin["inputs"] = [_twin["inputs"]]
    _twin.setdefault("callers", [DEFAULT_CALLER])
    for _caller in _twin["callers"]:
        _unknown = set(_caller) - set(CALLER_KEYS)
        _missing = [k for k in _CALLER_REQUIRED if k not in _caller]
        if _unknown or _missing:
            raise SystemExit(f"found_twins.py: twin {_key}, caller {_caller.get('name')}: unknown "
                             f"keys {sorted(_unknown)}, missing {_missing} (CALLER_KEYS)")
        if isinstance(_caller.get("inputs"), str):
            _caller["inputs"] = [_caller["inputs"]]
    if len({c["name"] for c in _twin["callers"]}) != len(_twin["callers"]):
        raise SystemExit(f"found_twins.py: twin {_key}: two callers of one name")

# The variants of each twin: (namespace, schema fixed, fake registered from
# Python). tt_found registers what the project registers; tt_found_fake adds a
# torch.library.register_fake ("once a fake is added"); tt_found_fixed and
# tt_found_fixed_fake are the same with the written arguments declared.
VARIANTS = [("tt_found", False, False), ("tt_found_fake", False, True),
            ("tt_found_fixed", True, False), ("tt_found_fixed_fake", True, True)]
VARIANT_NAMES = {"tt_found": "as shipped", "tt_found_fake": "once a fake is added",
                 "tt_found_fixed": "fixed", "tt_found_fixed_fake": "fixed + fake"}
MODES = ["default", "fullgraph"]
CELLS = [f"{b}" for b in BACKENDS] + [f"{b} fullgraph" for b in BACKENDS]


def fixed_schema(twin):
    """The schema with each written argument declared `Tensor(x!)` (or the
    twin's own fixed schema)."""
    if "fixed" in twin:
        return twin["fixed"]
    schema = twin["schema"]
    letters = iter("abcdefghijklmnopqrstuvwxyz")
    for name in twin["writes"]:
        schema, n = re.subn(r"Tensor(\[\])?(\??) " + name + r"\b",
                            lambda m: f"Tensor({next(letters)}!){m.group(1) or ''}{m.group(2)} {name}",
                            schema, count=1)
        assert n == 1, (name, schema)
    return schema


def schema_of(twin, fixed):
    return fixed_schema(twin) if fixed else twin["schema"]


AUTOGRAD = """class AG_{ns}_{key} : public torch::autograd::Function<AG_{ns}_{key}> {{
public:
  static torch::autograd::variable_list
  forward(torch::autograd::AutogradContext *ctx, const at::Tensor &src,
          const at::Tensor &indptr, const std::optional<at::Tensor> &optional_out) {{
    at::AutoDispatchBelowADInplaceOrView guard;
    static auto op = c10::Dispatcher::singleton()
                         .findSchemaOrThrow("{ns}::{key}", "")
                         .typed<at::Tensor(const at::Tensor &, const at::Tensor &,
                                           const std::optional<at::Tensor> &)>();
    at::Tensor out = op.call(src, indptr, optional_out);
    ctx->saved_data["rows"] = src.size(0);
{dirty}
    return {{out}};
  }}
  static torch::autograd::variable_list
  backward(torch::autograd::AutogradContext *ctx, torch::autograd::variable_list grads) {{
    const int64_t rows = ctx->saved_data["rows"].toInt();
    return {{at::constant_pad_nd(grads[0], {{0, 0, 0, rows - 2}}), at::Tensor(), at::Tensor()}};
  }}
}};
at::Tensor ag_{ns}_{key}(const at::Tensor &src, const at::Tensor &indptr,
                         const std::optional<at::Tensor> &optional_out) {{
  return AG_{ns}_{key}::apply(src, indptr, optional_out)[0];
}}
"""


# The registrations whose schema torch infers from the kernel's C++
# signature: the check offers no fix there (a schema string cannot be added
# to m.def(name, fn) in place; docs/found.md).
INFERRED = {"catchall", "cpu-inferred"}


def inferred_def(ns, key, twin):
    """The m.def line of a twin whose schema is inferred."""
    if twin["registers"] == "catchall":
        return f'  m.def("{key}", &k_{ns}_{key});'
    return f'  m.def("{key}", torch::dispatch(c10::DispatchKey::CPU, TORCH_FN(k_{ns}_{key})));'


def generate(path):
    """Writes the C++ twins; returns {line number: (namespace, twin)} for the
    lines of each twin's kernel and registration."""
    lines = ["// Generated by tools/ground-truth/found_twins.py: twins of the real",
             "// undeclared mutations in docs/found.md, registered as their projects",
             "// register them. Do not edit; regenerate.",
             "#include <ATen/ATen.h>",
             "#include <torch/autograd.h>",
             "#include <torch/library.h>",
             "#include <cmath>",
             "#include <optional>",
             "",
             "namespace {"]
    owner = {}

    def add(text, who):
        for line in text if isinstance(text, list) else [text]:
            lines.append(line)
            owner[len(lines)] = who

    for ns, fixed, _ in VARIANTS:
        for key, twin in TWINS.items():
            body = twin.get("fixed_body", twin["body"]) if fixed else twin["body"]
            returns = twin.get("fixed_returns", twin.get("returns", "void")) if fixed \
                else twin.get("returns", "void")
            add(f"{returns} k_{ns}_{key}({twin['params']}) {{", (ns, key))
            add(["  " + b for b in body] + ["}", ""], (ns, key))
            if twin["registers"] == "cpu+autograd":
                dirty = "" if fixed and "fixed_body" in twin else (
                    "    if (optional_out.has_value())\n"
                    "      ctx->mark_dirty({optional_out.value()});")
                add(AUTOGRAD.format(ns=ns, key=key, dirty=dirty).splitlines(), (ns, key))
    lines += ["} // namespace", ""]
    for ns, fixed, _ in VARIANTS:
        lines.append(f"TORCH_LIBRARY({ns}, m) {{")
        for key, twin in TWINS.items():
            if twin["registers"] in INFERRED and not fixed:
                add(inferred_def(ns, key, twin), (ns, key))
            else:
                add(f'  m.def("{schema_of(twin, fixed)}");', (ns, key))
        lines += ["}", "", f"TORCH_LIBRARY_IMPL({ns}, CPU, m) {{"]
        for key, twin in TWINS.items():
            if twin["registers"] in ("cpu", "cpu+autograd") or fixed:
                add(f'  m.impl("{key}", &k_{ns}_{key});', (ns, key))
        lines += ["}", ""]
        autograd = [k for k, t in TWINS.items() if t["registers"] == "cpu+autograd"]
        if autograd:
            lines.append(f"TORCH_LIBRARY_IMPL({ns}, Autograd, m) {{")
            for key in autograd:
                add(f'  m.impl("{key}", &ag_{ns}_{key});', (ns, key))
            lines += ["}", ""]
    with open(path, "w") as f:
        f.write("\n".join(lines))
    return owner


# --- measurement (runs under a venv's python) --------------------------------

def tensors_of(torch, values):
    """The tensors in values, lists and tuples flattened."""
    out = []
    for v in values:
        if isinstance(v, torch.Tensor):
            out.append(v)
        elif isinstance(v, (list, tuple)):
            out += tensors_of(torch, v)
    return out


def clone_values(torch, values):
    return [v.clone() if isinstance(v, torch.Tensor) else
            clone_values(torch, v) if isinstance(v, list) else v for v in values]


def first_line(e):
    text = str(e).strip().splitlines()
    return (text[0] if text else type(e).__name__)[:300]


def opcheck_message(e):
    """The reason opcheck's test_schema gives (its cause's first line)."""
    cause = e.__cause__ or e
    return first_line(cause)


def _measure(args):
    torch = um.prepare_torch("tt-found")
    from torch._dynamo.utils import counters
    t = torch
    um.load_operators(torch, "tt_found_ops", [args.source])
    clone = functools.partial(clone_values, torch)
    rows = []
    only = args.variants.split(",") if args.variants else None
    twins = set(args.twins.split(",")) if args.twins else None
    for ns, fixed, fake in VARIANTS:
        if only and ns not in only:
            continue
        for key, twin in TWINS.items():
            if twins is not None and key not in twins:
                continue
            qual = f"{ns}::{key}"
            row = {"op": qual, "twin": key, "variant": ns, "fixed": fixed,
                   "registers": twin["registers"], "fake": "none", "errors": {}}
            # A project that ships a fake registers it in every variant.
            if fake or twin.get("ships_fake"):
                source = twin.get("fixed_fake", twin.get("fake")) if fixed else twin.get("fake")
                fn = eval(source, {"t": t}) if source else (lambda *a, **k: None)
                try:
                    if twin.get("fake_key"):
                        torch.library.impl(qual, twin["fake_key"])(fn)
                    else:
                        torch.library.register_fake(qual)(fn)
                    row["fake"] = "registered"
                except Exception as e:
                    row["fake"] = "refused"
                    row["errors"]["register_fake"] = f"{type(e).__name__}: {first_line(e)}"
            op = getattr(getattr(torch.ops, ns), key).default
            g = torch.Generator().manual_seed(29)
            sets = [eval(s, {"t": t, "g": g}) for s in twin["inputs"]]
            try:
                torch.library.opcheck(op, tuple(clone(sets[0])), test_utils="test_schema")
                row["opcheck"] = "pass"
            except Exception as e:
                row["opcheck"] = opcheck_message(e)

            try:
                torch.library.opcheck(op, tuple(clone(sets[0])))
                row["opcheck_all"] = "pass"
            except Exception as e:
                m = re.search(r"(test_\w+) failed", str(e))
                row["opcheck_all"] = (m.group(1) + ": " if m else "") + opcheck_message(e)

            # The first caller is measured in every mode; the others with
            # the default torch.compile only (what decides a class), to keep
            # the suite's time.
            for i, caller in enumerate(twin["callers"]):
                rows.append(measure_caller(torch, counters, dict(row), op, ns, twin, caller,
                                           MODES if i == 0 else MODES[:1]))
    with open(args.out, "w") as f:
        json.dump({"torch": torch.__version__, "rows": rows}, f, indent=1)


def measure_caller(torch, counters, row, op, ns, twin, caller, modes):
    """One caller of one variant: its uncompiled values, then each backend
    in each of modes compiled as the project compiles (the caller's
    `compile`); a mode not measured leaves its cells '-'."""
    import contextlib
    import torch._inductor.config as inductor_config
    row["caller"] = caller["name"]
    row["errors"] = dict(row["errors"])
    settings = caller.get("compile", {})

    clone = functools.partial(clone_values, torch)
    if "source" in caller:
        scope = {"t": torch, "op": op, "ns": ns}
        exec(caller["source"], scope)

        def program(*values):
            return scope["caller"](op, *values)
    else:
        def program(*values):
            result = op(*values)
            return (tensors_of(torch, values)
                    + tensors_of(torch, [result] if result is not None else []))
    g = torch.Generator().manual_seed(29)
    sets = [eval(s, {"t": torch, "g": g}) for s in caller.get("inputs", twin["inputs"])]

    def context():
        stack = contextlib.ExitStack()
        if settings.get("no_grad"):
            stack.enter_context(torch.no_grad())
        if settings.get("freezing"):
            stack.enter_context(inductor_config.patch(freezing=True))
        return stack

    try:
        with context():
            eager = [[x.detach().clone() for x in program(*clone(s))] for s in sets]
        row["uncompiled"] = "ok"
    except Exception as e:
        # The uncompiled call itself fails: nothing to compare with.
        row["uncompiled"] = "error: " + type(e).__name__
        row["errors"]["uncompiled"] = first_line(e)
        row.update({c: "-" for c in CELLS})
        row["class"] = "fails uncompiled"
        return row
    row.update({c: "-" for c in CELLS})
    for backend in BACKENDS:
        for mode in modes:
            cell = backend if mode == "default" else f"{backend} fullgraph"
            torch._dynamo.reset()
            counters.clear()
            try:
                fn = torch.compile(program, backend=backend, fullgraph=mode == "fullgraph",
                                   dynamic=settings.get("dynamic"))
                same = True
                with context():
                    for s, want in zip(sets, eager):
                        got = fn(*clone(s))
                        same = same and len(got) == len(want) and all(
                            torch.allclose(a.detach(), b, rtol=1e-4, atol=1e-5, equal_nan=True)
                            for a, b in zip(got, want))
                broke = sum(counters["graph_break"].values()) > 0
                row[cell] = ("kept (graph break)" if broke else "kept") if same else "lost"
            except Exception as e:
                row[cell] = "error: " + type(e).__name__
                row["errors"][cell] = first_line(e)
    row["class"] = consequence(row)
    return row


def consequence(row):
    """The class the measured cells show (Consequence.h's names) for an
    undeclared variant; for a fixed one, "kept" or what else it shows.
    The default compile decides it; fullgraph=True tells a graph break."""
    default = [row[b] for b in BACKENDS if b != "eager"]
    if any(c.startswith("error") for c in default):
        return "loud"
    if any(c == "lost" for c in default):
        return "silent"
    if any(c == "kept (graph break)" for c in default):
        return "graph-break"
    return "kept" if row["fixed"] else "traced"


# --- driver (standard library) -----------------------------------------------

def measure_with(python, source=None, variants=None, twins=None):
    """Measures the twins of source (default: freshly generated), in the
    variants named (default: all), those named in twins only if given."""
    with tempfile.TemporaryDirectory() as tmp:
        src = os.path.join(tmp, "tt_found_ops.cpp")
        if source:
            shutil.copy(source, src)
        else:
            generate(src)
        out = os.path.join(tmp, "rows.json")
        cmd = [python, os.path.abspath(__file__), "measure", "--out", out, "--source", src]
        if variants:
            cmd += ["--variants", ",".join(variants)]
        if twins:
            cmd += ["--twins", ",".join(twins)]
        return um.run_measurement(cmd, out, python, "found-twins")


def python_of(spec):
    return um.python_of(spec, "found-twins")


def failing_test(row):
    """The first of opcheck's tests (all of them) that fails, or pass."""
    return row.get("opcheck_all", "-").split(":")[0]


def cells(row):
    return ([row.get("fake"), row["opcheck"], failing_test(row)] + [row[c] for c in CELLS]
            + [row.get("class")])


def _joined(values, versions):
    """One value when every version measured it, else each version's."""
    got = [v for v in values if v is not None]
    if got and all(v == got[0] for v in got) and len(got) == len(values):
        return got[0]
    return "; ".join(f"{ver}: {v if v is not None else '-'}" for ver, v in zip(versions, values))


def row_key(row):
    """A measured row's identity: the operator variant and its caller."""
    if "caller" in row:
        return (row["op"], row["caller"])
    return (row["op"], TWINS[row["twin"]]["callers"][0]["name"])


def caller_of(row):
    return next(c for c in TWINS[row["twin"]]["callers"] if c["name"] == row_key(row)[1])


def class_summary(row):
    """The class, and for silent and loud the default-mode backends that
    lost the writes or raised."""
    cls = row.get("class")
    if cls in ("silent", "loud"):
        bad = [b for b in BACKENDS if row.get(b) == "lost" or row.get(b, "").startswith("error")]
        return f"{cls} ({', '.join(bad)})"
    return cls


def render(table):
    versions = [table["versions"][lab] for lab in table["order"] if lab in table["versions"]]
    by = {(r["torch"],) + row_key(r): r for r in table["rows"]}
    head = (["twin", "registers", "variant", "fake", "opcheck test_schema", "opcheck, first failing"]
            + CELLS + ["class"])
    lines = [f"Measured on torch {', '.join(versions)} (CPU), each twin with its first caller "
             "(the next table has every caller). Cells: the tensors the caller reads "
             "after the call (the written arguments and the result) are `kept` (as uncompiled) or "
             "`lost`; `(graph break)`: Dynamo broke the graph and ran the call eagerly; `error`: "
             "compiling raised. Where the versions differ, each is named.", "",
             "| " + " | ".join(head) + " |", "|" + "---|" * len(head)]
    for key, twin in TWINS.items():
        first = twin["callers"][0]["name"]
        for ns, fixed, _ in VARIANTS:
            rs = [by.get((v, f"{ns}::{key}", first)) for v in versions]
            row = [f"`{key}` ({twin['project']})", twin["registers"], VARIANT_NAMES[ns]]
            for col in ["fake", "opcheck", "opcheck_all"] + CELLS + ["class"]:
                vals = [(failing_test(r) if col == "opcheck_all" else r.get(col)) if r else None
                        for r in rs]
                text = _joined(vals, versions)
                if col == "opcheck" and text != "pass":
                    text = f'"{text}"'
                row.append(text.replace("|", "\\|"))
            lines.append("| " + " | ".join(row) + " |")
    lines += ["", "Every caller of each twin, the class each variant shows (for silent and loud, "
              "the backends that lost the writes or raised; the default `torch.compile`, with the "
              "caller's settings):", "",
              "| twin | caller | what it is | read in the project | "
              + " | ".join(VARIANT_NAMES[ns] for ns, _, _ in VARIANTS) + " |",
              "|" + "---|" * (4 + len(VARIANTS))]
    for key, twin in TWINS.items():
        for caller in twin["callers"]:
            settings = ", ".join(f"{k}={v}" for k, v in caller.get("compile", {}).items())
            row = [f"`{key}`", caller["name"] + (f" ({settings})" if settings else ""),
                   caller["shape"], caller["read"]]
            for ns, _, _ in VARIANTS:
                rs = [by.get((v, f"{ns}::{key}", caller["name"])) for v in versions]
                row.append(_joined([class_summary(r) if r else None for r in rs], versions))
            lines.append("| " + " | ".join(x.replace("|", "\\|") for x in row) + " |")
    lines += ["", "The schemas measured (the project's, and the fix):", "",
              "| twin | as shipped | fixed |", "|---|---|---|"]
    for key, twin in TWINS.items():
        s, f = twin["schema"], fixed_schema(twin)
        lines.append(f"| `{key}` | `{s[s.index('('):]}` | `{f[f.index('('):]}` |")
    return "\n".join(lines)


BEGIN = "<!-- BEGIN GENERATED: found_twins.py write rewrites this part -->"
END = "<!-- END GENERATED -->"


def cmd_write(args):
    table = um.read_table(JSON_PATH)
    for spec in args.python:
        label, python = python_of(spec)
        if python:
            um.merge_measurement(table, label, measure_with(python))
            sampling.stamp(SUITE, label, INPUTS, python)
    # Rows of variants no longer measured (an older layout) go.
    known = {(f"{ns}::{k}", c["name"]) for ns, _, _ in VARIANTS for k, t in TWINS.items()
             for c in t["callers"]}
    table["rows"] = [r for r in table["rows"]
                     if r.get("twin") in TWINS and row_key(r) in known and "class" in r]
    um.write_table(JSON_PATH, table)
    um.rewrite_generated(DOC_PATH, BEGIN, render(table), END)
    print(render(table))


def expected(row, label=None):
    """What docs/found.md says of each variant: as shipped, the project's
    class (CLAIMS) and opcheck's test_schema message; once a fake is added,
    what CLAIMS says; with the fixed schema (and the fix's registration),
    opcheck's test_schema passes and the class CLAIMS names. A graph break
    is claimed with its condition: fullgraph=True errors."""
    claim = dict(CLAIMS[TWINS[row["twin"]]["project"]])
    # A caller whose class differs, on every version or on one, says so
    # (label: the ctest's).
    claims = caller_of(row).get("claims", {})
    claim.update(claims.get("all", {}))
    claim.update(claims.get(label, {}))
    variant = {"tt_found": "shipped", "tt_found_fake": "with_fake", "tt_found_fixed": "fixed",
               "tt_found_fixed_fake": "fixed_fake"}[row["variant"]]
    want = {"class": claim[variant]}
    if variant == "shipped":
        want["opcheck"] = claim["opcheck"]
    elif variant.startswith("fixed"):
        want["opcheck"] = "pass"
    if variant == "with_fake":
        want["fake"] = claim.get("fake", "registered")
    elif variant == "fixed_fake":
        want["fake"] = "registered"
    measured = [c for c in CELLS if row.get(c) != "-"]
    if want["class"] == "graph-break":
        want.update({f"{b} fullgraph": "error: " for b in BACKENDS if f"{b} fullgraph" in measured})
    if want["class"] == "kept":
        want.update({c: "kept" for c in measured})
    return want


def matches(value, want):
    """want: the value, or its start when it ends with ': ', or a part of
    it when it starts with '...'."""
    if value is None:
        return False
    if want.startswith("..."):
        return want[3:] in value
    return value.startswith(want) if want.endswith(": ") else value == want


# The claims docs/found.md makes of each project's twins (the check ctest
# tests them on every version).
CLAIMS = {
    "sgl-kernel-xpu": {"shipped": "graph-break", "with_fake": "silent", "fixed": "kept",
                       "fixed_fake": "kept",
                       "opcheck": "...is not defined as mutable but was mutated"},
    "sgl-kernel-npu": {"shipped": "graph-break", "with_fake": "silent", "fixed": "kept",
                       "fixed_fake": "kept",
                       "opcheck": "...is not defined as mutable but was mutated"},
    "pyg-lib": {"shipped": "graph-break", "with_fake": "loud", "fixed": "graph-break",
                "fixed_fake": "kept",
                "opcheck": "Argument out is not defined to alias output but was aliasing"},
    "flashinfer": {"shipped": "loud", "with_fake": "loud", "fake": "refused", "fixed": "kept",
                   "fixed_fake": "kept", "opcheck": "pass"},
    # sglang's CPU backend ships its fakes: as shipped is with a fake. What
    # its own callers read decides the class (traced: kept), except where a
    # twin's "claims" says otherwise.
    # intel-extension-for-pytorch ships a Meta kernel: as shipped is with a
    # fake, and the write is lost without a word (docs/found.md).
    "intel-extension-for-pytorch": {
        "shipped": "silent", "with_fake": "silent", "fixed": "kept", "fixed_fake": "kept",
        "opcheck": "Argument _0 is not defined to alias output but was aliasing"},
    "sglang-cpu": {"shipped": "traced", "with_fake": "traced", "fixed": "kept",
                   "fixed_fake": "kept", "opcheck": "...but was "},
}


def sample_twins():
    """check's sample: every project and registration shape keeps a twin,
    and the twins whose callers carry the showcase's claims (ALWAYS)."""
    return sampling.sample(list(TWINS), [lambda k: TWINS[k]["project"],
                                         lambda k: TWINS[k]["registers"],
                                         lambda k: k if k in ALWAYS else ""])


def cmd_check(args):
    label, python = python_of(args.python)
    if not python:
        return SKIP_CODE
    with open(JSON_PATH) as f:
        table = json.load(f)
    want_version = table["versions"].get(label)
    names = list(TWINS)
    is_whole, why = sampling.whole(SUITE, label, INPUTS, python)
    chosen = None
    if not is_whole:
        # Every project and registration shape keeps a twin, every variant
        # and caller of it; the twins whose callers carry the showcase's
        # claims (ALWAYS) are always measured. Each twin's callers compile
        # alone (dynamo reset), so a twin measures the same in any subset.
        chosen = sample_twins()
    sampling.say(f"found-twins {label}", is_whole, why, len(chosen or names), len(names))
    got = measure_with(python, twins=chosen)
    if want_version and got["torch"] != want_version:
        print(f"found-twins: torch {got['torch']} installed, the table has {want_version}; "
              "rerun tools/ground-truth/found_twins.py write")
        return 1
    want = {row_key(r): r for r in table["rows"] if r["torch"] == want_version
            and (chosen is None or r["twin"] in chosen)}
    measured = {row_key(r) for r in got["rows"]}
    bad = 0
    for r in got["rows"]:
        w = want.get(row_key(r))
        name = "{} ({})".format(*row_key(r))
        if w is None or cells(w) != cells(r):
            bad += 1
            print(f"DIFFERS {name}: measured {cells(r)}, table {cells(w) if w else None}")
        for k, v in expected(r, label).items():
            if v is not None and not matches(r.get(k), v):
                bad += 1
                print(f"NOT AS docs/found.md SAYS {name}: {k} measured {r.get(k)!r}, "
                      f"docs/found.md says {v!r}")
    for k in sorted(want.keys() - measured):
        bad += 1
        print("NOT MEASURED {} ({}): in the table".format(*k))
    print(f"found-twins torch {got['torch']}: {len(got['rows'])} twin variants and callers, "
          f"{bad} problems")
    if not bad and is_whole and args.stamp:
        sampling.stamp(SUITE, label, INPUTS, python)
        print(f"found-twins: recorded the inputs of {label} in docs/ground-truth-inputs.json")
    return 1 if bad else 0


def warned_ops(output, owner):
    """{"ns::op"} that the check warns about: a warning line tagged with the
    check's name that names the operator in quotes, either qualified
    ('ns::op') or by its name ('op') at a line of that operator's kernel or
    registration. The wording around them may change."""
    found = set()
    tag = "[" + CHECK + "]"
    for line in output.splitlines():
        if "warning:" not in line or tag not in line:
            continue
        quoted = set(re.findall(r"'([A-Za-z0-9_:.]+)'", line))
        for q in quoted:
            if "::" in q and q.split("::")[0].startswith("tt_found"):
                found.add("::".join(q.split("::")[:2]).split(".")[0])
        m = re.match(r"(?:.*?):(\d+):\d+: warning:", line)
        who = owner.get(int(m.group(1))) if m else None
        if who and who[1] in quoted:
            found.add(f"{who[0]}::{who[1]}")
    return found


def cmd_static(args):
    label, python = python_of(args.python)
    if not python:
        return SKIP_CODE
    with tempfile.TemporaryDirectory() as tmp:
        src = os.path.join(tmp, "tt_found_ops.cpp")
        owner = generate(src)
        proc = um.run_tidy(args.clang_tidy, args.module, src, um.torch_include_of(python))
    if "error:" in proc.stdout:
        print(proc.stdout[-4000:])
        print("FAIL: clang-tidy reported errors on the twins")
        return 1
    warned = warned_ops(proc.stdout, owner)
    want = {f"{ns}::{k}" for ns, fixed, _ in VARIANTS if not fixed for k in TWINS}
    bad = sorted(want ^ warned)
    for op in bad:
        print(("MISSED " if op in want else "FALSE ") + op)
    unsaid = [k for k, twin in TWINS.items() if "says" in twin
              and f"'tt_found::{k}'" not in "".join(
                  line for line in proc.stdout.splitlines() if twin["says"] in line)]
    for key in unsaid:
        print(f"NOT SAID tt_found::{key}: no warning says {TWINS[key]['says']!r}")
    bad += unsaid
    print(f"found twins: {len(want)} undeclared, {len(want)} fixed; the check warns on "
          f"{len(warned)}, disagreements with opcheck {len(bad)}")
    return 1 if bad else 0


def cmd_fixes(args):
    """The check's --fix on the twins: the undeclared variants get the
    check's schema. Each must then pass opcheck's test_schema and lose no
    write under any backend, and a second --fix changes nothing and warns on
    nothing. With a fake, the twins whose fix is the schema alone
    (SCHEMA_FIX_ENOUGH) keep every write, fullgraph too; the others' result
    is printed. The twins whose schema is inferred (INFERRED: flashinfer's
    catch-all, intel-extension-for-pytorch's CPU kernel) are not counted: a
    schema string cannot be added to m.def(name, fn) in place (docs/found.md)."""
    label, python = python_of(args.python)
    if not python:
        return SKIP_CODE
    include = um.torch_include_of(python)
    with tempfile.TemporaryDirectory() as tmp:
        src = os.path.join(tmp, "tt_found_ops.cpp")
        owner = generate(src)
        before = open(src).read()
        um.run_tidy(args.clang_tidy, args.module, src, include, fix=True)
        fixed = open(src).read()
        again = um.run_tidy(args.clang_tidy, args.module, src, include, fix=True)
        left = {op for op in warned_ops(again.stdout, owner)
                if TWINS[op.split("::")[1]]["registers"] not in INFERRED
                and op.split("::")[1] not in FIX_PARTIAL}
        withheld = [k for k, why in FIX_PARTIAL.items() if k in TWINS
                    if why["note"] and why["note"] not in again.stdout]
        if withheld:
            print(again.stdout[-3000:])
            print(f"CHANGED: the check no longer withholds part of the fix of {withheld} "
                  "with the note docs/found.md quotes")
            return 1
        if fixed == before or open(src).read() != fixed or left:
            print(again.stdout[-3000:])
            print(f"FAIL: --fix changed nothing, or a second --fix changed the file or warns "
                  f"({sorted(left)})")
            return 1
        # The check warns on no fixed variant (found-twins-static), so --fix
        # leaves them as `check` measures them: only the undeclared variants,
        # which it fixed, are measured here.
        # The fixed text proven whole before is re-proven on check's sample
        # of twins; a fix that wrote another text, whole.
        is_whole, why = sampling.whole(FIXES_SUITE, label, INPUTS, python, text=fixed)
        chosen = None if is_whole else sample_twins()
        sampling.say(f"found-twins fixes {label}", is_whole, why, len(chosen or TWINS),
                     len(TWINS))
        got = measure_with(python, src, ["tt_found", "tt_found_fake"], twins=chosen)
    bad = checked = incomplete = 0
    for key, twin in TWINS.items():
        if twin["registers"] in INFERRED and inferred_def("tt_found", key, twin) not in fixed:
            bad += 1
            print(f"CHANGED: the check now fixes {key}, whose schema is inferred; docs/found.md "
                  "says it offers no fix there")
    for r in got["rows"]:
        twin = TWINS[r["twin"]]
        if twin["registers"] in INFERRED:
            continue
        checked += 1
        name = "{} ({})".format(*row_key(r))
        known = FIX_PARTIAL.get(r["twin"])
        if known and r["variant"] in ("tt_found", "tt_found_fake"):
            if known["opcheck"] in r["opcheck"] and not r["errors"].get("uncompiled"):
                print(f"KNOWN, the check's fix is partial: {name}: the uncompiled call runs, "
                      f"opcheck still says: {r['opcheck']}")
                incomplete += 1
                continue
            bad += 1
            print(f"CHANGED {name}: docs/found.md says the check's partial fix leaves "
                  f"opcheck saying {known['opcheck']!r} and the uncompiled call running; "
                  f"measured {cells(r)}")
            continue
        lost = [c for c in CELLS if r[c] == "lost"]
        need_all = r["variant"].endswith("_fake") and r["twin"] in SCHEMA_FIX_ENOUGH
        if r["opcheck"] != "pass" or lost or (
                need_all and any(r[c] not in ("kept", "-") for c in CELLS)):
            bad += 1
            print(f"FIX NOT PROVEN {name}: {cells(r)}")
    print(f"found twins, fixed by --fix, torch {got['torch']}: {checked} operators and callers, "
          f"{checked - bad - incomplete} pass opcheck and lose no write ({', '.join(BACKENDS)}; "
          f"with a fake, those whose fix is the schema alone keep every write, fullgraph too); "
          f"{incomplete} partly fixed as docs/found.md says; {bad} otherwise")
    if bad:
        return 1
    if is_whole and args.stamp:
        sampling.stamp(FIXES_SUITE, label, INPUTS, python, text=fixed)
        print(f"found-twins fixes: recorded the inputs of {label} in "
              "docs/ground-truth-inputs.json")
    return 0


# The twins the check's --fix leaves partly fixed, and how (docs/found.md):
# pyg-lib's Autograd kernel mark_dirty()s out, which must then be returned, so
# the check declares the mutation and withholds the return copy (its note
# says why); opcheck still reports the aliasing, the uncompiled call runs.
# sglang's rotary_embedding_cpu returns query and key through
# std::make_tuple: the check does not see returns inside a tuple (a known
# gap, docs/found.md), so its fix declares the writes and leaves the aliasing
# returns; no note says so (note None).
FIX_PARTIAL = {"segment_sum_csr": {
    "note": "has an Autograd kernel, which may mark 'out' dirty",
    "opcheck": "alias"},
    "rotary_embedding_cpu": {"note": None, "opcheck": "alias"}}

# The twins whose bug the schema annotation alone fixes (docs/found.md).
SCHEMA_FIX_ENOUGH = {k for k, t in TWINS.items() if t["registers"] == "cpu"}


def main():
    p = argparse.ArgumentParser(description=__doc__,
                                formatter_class=argparse.RawDescriptionHelpFormatter)
    sub = p.add_subparsers(dest="cmd", required=True)
    g = sub.add_parser("generate")
    g.add_argument("out")
    m = sub.add_parser("measure")
    m.add_argument("--out", required=True)
    m.add_argument("--source", required=True)
    m.add_argument("--variants", help="NS,NS: only these variants (default: all)")
    m.add_argument("--twins", help="OP,OP: only these twins (default: all)")
    w = sub.add_parser("write")
    w.add_argument("--python", action="append", default=[], help="LABEL=PYTHON")
    c = sub.add_parser("check", help="re-measure one version against the table and "
                       "docs/found.md (a sample when the inputs are those it was measured "
                       "from: sampling.py)")
    c.add_argument("--python", required=True, help="LABEL=PYTHON")
    c.add_argument("--stamp", action="store_true",
                   help="once every twin was re-measured and matches, record the inputs")
    for name in ("static", "fixes"):
        s = sub.add_parser(name)
        s.add_argument("--python", required=True)
        s.add_argument("--clang-tidy", required=True)
        s.add_argument("--module", required=True)
        if name == "fixes":
            s.add_argument("--stamp", action="store_true",
                           help="once every fixed twin was proven, record the inputs and "
                           "the fixed source's digest")
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
