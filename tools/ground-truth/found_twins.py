#!/usr/bin/env python3
"""Twins of the real bugs in docs/found.md, measured.

Each real undeclared mutation that torch-op-undeclared-mutation finds in a
public project gets a twin here: an operator with the project's schema,
registered as the project registers it (a CPU kernel where the project has
only XPU/PrivateUse1 kernels; CPU + a C++ Autograd kernel that mark_dirty()s
`out` for pyg-lib; a catch-all m.def(name, fn) writing through data_ptr() for
flashinfer), whose kernel writes the arguments the project's kernel writes.
Four variants each (VARIANTS): as shipped, once a fake is added (Python
register_fake), fixed, fixed + fake.

  found_twins.py generate OUT.cpp
      the C++ twins, one namespace per variant.
  VENV/bin/python found_twins.py measure --out ROWS.json --source SRC.cpp
      builds them and records, per variant, opcheck's test_schema message (and
      the first of all its tests that fails), and whether torch.compile
      (eager, aot_eager, inductor; default and fullgraph=True) keeps the
      written arguments and the result as the uncompiled call does, with a
      graph break, or raises; and the class that shows (Consequence.h).
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
    "caller": "Python `def caller(op, ...)` calling the operator as the project does; "
              "compiled instead of a bare call",
    "claims": "{version: {variant: class}} where docs/found.md states a class other than "
              "the default expectation",
}
_REQUIRED = ("schema", "writes", "params", "body", "inputs", "project")
REGISTERS = {"cpu": "CPU kernel (the project: XPU/PrivateUse1 only)",
             "cpu+autograd": "CPU kernel + C++ Autograd kernel (mark_dirty)",
             "catchall": "catch-all kernel, m.def(name, fn), raw-pointer writes"}

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
    # The kernel copies by direction: host to device (direct == 1, the
    # default of sgl_kernel_npu.kvcacheio) writes device_k/device_v, device
    # to host (direct == 2) writes host_k/host_v. Both are measured.
    "transfer_kv_dim_exchange": {
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
    # pyg-lib: an optional out argument the CPU kernel accumulates into and
    # returns (out = optional_out.value().contiguous()), under a C++
    # Autograd kernel (torch::autograd::Function) that mark_dirty()s it.
    "segment_sum_csr": {
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
        # Silent on 2.8.0 (inductor reads the unwritten residual); torch
        # 2.15.0 keeps the write (as for beside_declared in the
        # registrations table).
        "claims": {"2.8.0": {"shipped": "silent", "with_fake": "silent"}},
        # RMSNorm.forward_cpu (layers/layernorm.py): x and residual are the
        # decoder layer's intermediates; it returns both, the next layer
        # reads residual.
        "caller": "def caller(op, x, residual, weight, eps):\n"
                  "    x, residual = x * 1, residual * 1\n"
                  "    op(x, residual, weight, eps)\n"
                  "    return [x * 2, residual * 2]\n",
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
    # The same operator under sglang's decoder layers: each call's residual
    # feeds the next (two layers, four norms), both returned
    # (tools/ground-truth/sglang_chain.py measures more caller shapes and
    # sglang's own compile settings).
    "fused_add_rmsnorm_cpu_chained": {
        "project": "sglang-cpu",
        "claims": {"2.8.0": {"shipped": "silent", "with_fake": "silent"}},
        "caller": "def caller(op, x, residual, weight, eps):\n"
                  "    x, residual = x * 1, residual * 1\n"
                  "    for _ in range(2):\n"
                  "        op(x, residual, weight, eps)\n"
                  "        x = x.tanh()\n"
                  "        op(x, residual, weight, eps)\n"
                  "        x = x.sigmoid()\n"
                  "    return [x * 2, residual * 2]\n",
        "ships_fake": True,
        "schema": "fused_add_rmsnorm_cpu_chained(Tensor(a!) input, Tensor residual, "
                  "Tensor weight, float eps) -> ()",
        "fixed": "fused_add_rmsnorm_cpu_chained(Tensor(a!) input, Tensor(b!) residual, "
                 "Tensor weight, float eps) -> ()",
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
        # intel_amx_backend.forward_decode: the query and the output are
        # intermediates, the KV caches the model's state (graph inputs, read
        # by the next step); attn_logits a scratch buffer nobody reads.
        "caller": "def caller(op, q, k_cache, v_cache, out, key, value, loc, logits, r2t, rpi, sl, "
                  "scale, cap):\n"
                  "    q, out = q * 1, out * 1\n"
                  "    op(q, k_cache, v_cache, out, key, value, loc, logits, r2t, rpi, sl, scale, cap)\n"
                  "    return [out * 2, k_cache, v_cache]\n",
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
        # DeepseekV2MoE.forward_cpu: hidden_states is an intermediate, passed
        # with inplace=True; the caller reads the result, not hidden_states.
        "caller": "def caller(op, h, *rest):\n"
                  "    h = h * 1\n"
                  "    return [op(h, *rest) * 2]\n",
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
        # RotaryEmbedding.forward_cpu: query and key are intermediates (the
        # qkv projection's); the caller uses the returned pair.
        "caller": "def caller(op, positions, query, key, head_size, cache, is_neox):\n"
                  "    query, key = query * 1, key * 1\n"
                  "    q, k = op(positions, query, key, head_size, cache, is_neox)\n"
                  "    return [q * 2, k * 2]\n",
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
            if twin["registers"] == "catchall" and not fixed:
                add(f'  m.def("{key}", &k_{ns}_{key});', (ns, key))
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

    def tensors(values):
        out = []
        for v in values:
            if isinstance(v, torch.Tensor):
                out.append(v)
            elif isinstance(v, (list, tuple)):
                out += tensors(v)
        return out

    def clone(values):
        return [v.clone() if isinstance(v, torch.Tensor) else
                clone(v) if isinstance(v, list) else v for v in values]

    rows = []
    for ns, fixed, fake in VARIANTS:
        for key, twin in TWINS.items():
            qual = f"{ns}::{key}"
            row = {"op": qual, "twin": key, "variant": ns, "fixed": fixed,
                   "registers": twin["registers"], "fake": "none", "errors": {}}
            # A project that ships a fake registers it in every variant.
            if fake or twin.get("ships_fake"):
                source = twin.get("fixed_fake", twin.get("fake")) if fixed else twin.get("fake")
                try:
                    torch.library.register_fake(qual)(
                        eval(source, {"t": t}) if source else (lambda *a, **k: None))
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

            caller = None
            if twin.get("caller"):
                # The project's own caller, inside its compiled model
                # forward: which tensors are the graph's intermediates and
                # which it reads after the call.
                scope = {}
                exec(twin["caller"], scope)
                caller = scope["caller"]

            def program(*values):
                if caller:
                    return caller(op, *values)
                result = op(*values)
                return tensors(values) + tensors([result] if result is not None else [])

            try:
                eager = [[x.detach().clone() for x in program(*clone(s))] for s in sets]
                row["uncompiled"] = "ok"
            except Exception as e:
                # The uncompiled call itself fails: nothing to compare with.
                row["uncompiled"] = "error: " + type(e).__name__
                row["errors"]["uncompiled"] = first_line(e)
                row.update({c: "-" for c in CELLS})
                row["class"] = "fails uncompiled"
                rows.append(row)
                continue
            for backend in BACKENDS:
                for mode in MODES:
                    cell = backend if mode == "default" else f"{backend} fullgraph"
                    torch._dynamo.reset()
                    counters.clear()
                    try:
                        fn = torch.compile(program, backend=backend, fullgraph=mode == "fullgraph")
                        same = True
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
            rows.append(row)
    with open(args.out, "w") as f:
        json.dump({"torch": torch.__version__, "rows": rows}, f, indent=1)


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


def render(table):
    versions = [table["versions"][lab] for lab in table["order"] if lab in table["versions"]]
    by = {(r["torch"], r["op"]): r for r in table["rows"]}
    head = (["twin", "registers", "variant", "fake", "opcheck test_schema", "opcheck, first failing"]
            + CELLS + ["class"])
    lines = [f"Measured on torch {', '.join(versions)} (CPU). Cells: the tensors the caller reads "
             "after the call (the written arguments and the result) are `kept` (as uncompiled) or "
             "`lost`; `(graph break)`: Dynamo broke the graph and ran the call eagerly; `error`: "
             "compiling raised. Where the versions differ, each is named.", "",
             "| " + " | ".join(head) + " |", "|" + "---|" * len(head)]
    for key, twin in TWINS.items():
        for ns, fixed, _ in VARIANTS:
            rs = [by.get((v, f"{ns}::{key}")) for v in versions]
            row = [f"`{key}` ({twin['project']})", twin["registers"], VARIANT_NAMES[ns]]
            for col in ["fake", "opcheck", "opcheck_all"] + CELLS + ["class"]:
                vals = [(failing_test(r) if col == "opcheck_all" else r.get(col)) if r else None
                        for r in rs]
                text = _joined(vals, versions)
                if col == "opcheck" and text != "pass":
                    text = f'"{text}"'
                row.append(text.replace("|", "\\|"))
            lines.append("| " + " | ".join(row) + " |")
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
    # Rows of variants no longer measured (an older layout) go.
    known = {f"{ns}::{k}" for ns, _, _ in VARIANTS for k in TWINS}
    table["rows"] = [r for r in table["rows"] if r["op"] in known and "class" in r]
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
    # A twin whose class differs on a version says so (label: the ctest's).
    claim.update(TWINS[row["twin"]].get("claims", {}).get(label, {}))
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
    if want["class"] == "graph-break":
        want.update({f"{b} fullgraph": "error: " for b in BACKENDS})
    if want["class"] == "kept":
        want.update({c: "kept" for c in CELLS})
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
    "sglang-cpu": {"shipped": "traced", "with_fake": "traced", "fixed": "kept",
                   "fixed_fake": "kept", "opcheck": "...but was "},
}


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
        for k, v in expected(r, label).items():
            if v is not None and not matches(r.get(k), v):
                bad += 1
                print(f"NOT AS docs/found.md SAYS {r['op']}: {k} measured {r.get(k)!r}, "
                      f"docs/found.md says {v!r}")
    print(f"found-twins torch {got['torch']}: {len(got['rows'])} twin variants, {bad} problems")
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
    print(f"found twins: {len(want)} undeclared, {len(want)} fixed; the check warns on "
          f"{len(warned)}, disagreements with opcheck {len(bad)}")
    return 1 if bad else 0


def cmd_fixes(args):
    """The check's --fix on the twins: the undeclared variants get the
    check's schema. Each must then pass opcheck's test_schema and lose no
    write under any backend, and a second --fix changes nothing and warns on
    nothing. With a fake, the twins whose fix is the schema alone
    (SCHEMA_FIX_ENOUGH) keep every write, fullgraph too; the others' result
    is printed. flashinfer's catch-all twin is not counted: a schema string
    cannot be added to m.def(name, fn) in place (docs/found.md)."""
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
                if TWINS[op.split("::")[1]]["registers"] != "catchall"
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
        got = measure_with(python, src)
    bad = checked = incomplete = 0
    for key, twin in TWINS.items():
        if twin["registers"] == "catchall" and f'm.def("{key}", &k_tt_found_{key});' not in fixed:
            bad += 1
            print(f"CHANGED: the check now fixes the catch-all {key}; docs/found.md says it "
                  "offers no fix there")
    for r in got["rows"]:
        twin = TWINS[r["twin"]]
        if twin["registers"] == "catchall":
            continue
        checked += 1
        known = FIX_PARTIAL.get(r["twin"])
        if known and r["variant"] in ("tt_found", "tt_found_fake"):
            if known["opcheck"] in r["opcheck"] and not r["errors"].get("uncompiled"):
                print(f"KNOWN, the check's fix is partial: {r['op']}: the uncompiled call runs, "
                      f"opcheck still says: {r['opcheck']}")
                incomplete += 1
                continue
            bad += 1
            print(f"CHANGED {r['op']}: docs/found.md says the check's partial fix leaves "
                  f"opcheck saying {known['opcheck']!r} and the uncompiled call running; "
                  f"measured {cells(r)}")
            continue
        lost = [c for c in CELLS if r[c] == "lost"]
        need_all = r["variant"].endswith("_fake") and r["twin"] in SCHEMA_FIX_ENOUGH
        if r["opcheck"] != "pass" or lost or (need_all and any(r[c] != "kept" for c in CELLS)):
            bad += 1
            print(f"FIX NOT PROVEN {r['op']}: {cells(r)}")
    print(f"found twins, fixed by --fix, torch {got['torch']}: {checked} operators, "
          f"{checked - bad - incomplete} pass opcheck and lose no write ({', '.join(BACKENDS)}; "
          f"with a fake, those whose fix is the schema alone keep every write, fullgraph too); "
          f"{incomplete} partly fixed as docs/found.md says; {bad} otherwise")
    return 1 if bad else 0


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
