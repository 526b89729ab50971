#!/usr/bin/env bash
# Everything CUDA, in one call on a GPU machine (PyTorch with CUDA, CMake,
# Ninja and nvcc; no LLVM, no network):
#   1. the reference runtime's CUDA backend: build, differential suite on CPU
#      and CUDA against the local CUDA LibTorch, write-op benchmark
#      (tools/runtime/gpu-differential.sh);
#   2. the rule-verification suite on CPU and CUDA (1,000 instances per rule
#      and device; torch-tidy-verify-rules --device all);
#   3. the ground-truth reproducers with CUDA tensors: the C++ operator
#      (CompositeImplicitAutograd), the Python forms and the autograd.Function,
#      uncompiled and under torch.compile (tools/ground-truth/measure.py
#      --device cuda), printed as a table.
#   tools/gpu/check.sh [python]          (default: python3)
# Environment: CASES, INSTANCES (default 1000), BUILD_DIR.
set -uo pipefail
root=$(cd "$(dirname "$0")/../.." && pwd)
python=${1:-${TORCH_TIDY_GPU_PYTHON:-python3}}
build=${BUILD_DIR:-$root/build-runtime-gpu}
instances=${INSTANCES:-1000}
export BUILD_DIR=$build
status=0

echo "== 1. runtime: CUDA backend, differential suite, benchmark =="
"$root/tools/runtime/gpu-differential.sh" "$python" || status=1

echo "== 2. rule verification, CPU and CUDA ($instances instances per rule) =="
if cmake --build "$build" -j "$(nproc)" --target torch-tidy-verify-rules; then
  "$build/bin/torch-tidy-verify-rules" --device all --instances "$instances" || status=1
else
  status=1
fi

echo "== 3. ground truth with CUDA tensors =="
out=$(mktemp -d)
if "$python" "$root/tools/ground-truth/measure.py" --device cuda --out "$out/rows.json"; then
  "$python" - "$out/rows.json" <<'PY'
import json, sys
doc = json.load(open(sys.argv[1]))
print(f"torch {doc['torch']}, CUDA tensors")
print(f"{'path':18} {'form':24} {'backend':10} {'rg_inside':9} {'wrong_branch':12} {'grads_equal':11} error")
for r in doc["rows"]:
    print(f"{r['path']:18} {r['form']:24} {r['backend']:10} {str(r['rg_inside']):9} "
          f"{str(r['wrong_branch']):12} {str(r['grads_equal']):11} {r['error'] or ''}")
PY
else
  status=1
fi
rm -rf "$out"
echo "== tools/gpu/check.sh: $([ $status -eq 0 ] && echo all passed || echo FAILURES) =="
exit $status
