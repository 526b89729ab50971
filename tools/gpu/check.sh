#!/usr/bin/env bash
# Everything CUDA, in one call on a GPU machine (PyTorch with CUDA, CMake,
# Ninja and nvcc; no LLVM, no network). Each step has its own time limit, so
# a slow step still lets the others report; every table goes to OUT.
#   1. build the reference runtime with its CUDA backend, the differential
#      suite against the local LibTorch and the rule verifiers
#      (tools/runtime/standalone);
#   2. the device-safe generator against LibTorch on CPU (no case that would
#      assert on the device);
#   3. the differential suite on CPU and on CUDA (12,000 cases each; the
#      CUDA run stops at a lost CUDA context, naming the case);
#   4. rule verification on CPU and CUDA (1,000 instances per rule);
#   5. the write-op benchmark on CUDA (time ratio LibTorch/runtime);
#   6. the ground truth with CUDA tensors (measure.py --device cuda: the
#      Python forms and the C++ operator's mutable argument), rows with the
#      error's first line;
#   7. device moves (tools/gpu/device_moves.py), checked against
#      docs/ground-truth-device-moves.json.
# Budget: under 8 minutes on an H200 with 16 cores (docs/gpu.md).
#   tools/gpu/check.sh [python]              (default: python3)
# Environment: OUT (default build-gpu-run), BUILD_DIR, CASES (12000),
# INSTANCES (1000).
set -uo pipefail
root=$(cd "$(dirname "$0")/../.." && pwd)
python=${1:-${TORCH_TIDY_GPU_PYTHON:-python3}}
out=${OUT:-$root/build-gpu-run}
build=${BUILD_DIR:-$root/build-runtime-gpu}
cases=${CASES:-12000}
instances=${INSTANCES:-1000}
mkdir -p "$out"
summary=$out/summary.txt
: >"$summary"
status=0

# step NAME LIMIT_SECONDS COMMAND...: runs it under its limit, its output to
# OUT/NAME.log and to the terminal, one line to OUT/summary.txt.
step() {
  local name=$1 limit=$2
  shift 2
  local start=$SECONDS rc
  echo "== $name (limit ${limit} s) =="
  timeout --kill-after=10 "$limit" "$@" 2>&1 | tee "$out/$name.log"
  rc=${PIPESTATUS[0]}
  local took=$((SECONDS - start)) verdict=ok
  case $rc in
    0) ;;
    77) verdict=SKIPPED ;;
    124 | 137) verdict="TIMED OUT"; status=1 ;;
    *) verdict="FAILED (exit $rc)"; status=1 ;;
  esac
  printf '%-28s %-18s %4d s\n' "$name" "$verdict" "$took" | tee -a "$summary"
  return $rc
}

info=$("$python" - <<'PY'
import sys, torch
if not torch.cuda.is_available():
    sys.exit("tools/gpu/check.sh: torch %s sees no CUDA device" % torch.__version__)
major, minor = torch.cuda.get_device_capability(0)
print(f"{major}{minor}")
print(f"torch {torch.__version__} (CUDA {torch.version.cuda}) on {torch.cuda.get_device_name(0)}")
PY
) || exit 1
arch=$(echo "$info" | head -1)
echo "$(date -u +%F) $(echo "$info" | tail -1), the project at $(git -C "$root" rev-parse --short HEAD 2>/dev/null)" | tee "$out/device.txt"
command -v nvcc >/dev/null || { echo "tools/gpu/check.sh: nvcc not found" >&2; exit 1; }

build_all() {
  cmake -S "$root/tools/runtime/standalone" -B "$build" -G Ninja \
    -DCMAKE_BUILD_TYPE=Release -DTORCH_TIDY_PYTHON_28="$python" \
    -DTORCH_TIDY_CUDA_ARCHITECTURES="$arch" >"$out/configure.log" 2>&1 ||
    { cat "$out/configure.log"; return 1; }
  grep -q "CUDA backend enabled" "$out/configure.log" ||
    { echo "CMake did not enable the CUDA backend (configure.log)"; return 1; }
  cmake --build "$build" -j "$(nproc)" --target runtime_differential runtime_bench \
    torch-tidy-verify-rules
}
if step build 240 build_all; then
  bin=$build/bin
  step device-safe 90 "$bin/runtime_differential" --check-device-safe --cases "$cases"
  step differential-cpu 90 "$bin/runtime_differential" --device cpu --cases "$cases"
  step differential-cuda 150 "$bin/runtime_differential" --device cuda --cases "$cases"
  step rule-verification 120 "$bin/torch-tidy-verify-rules" --device all --instances "$instances"
  step bench 90 "$bin/runtime_bench" --device cuda --rows 8192 --cols 8192
fi
step ground-truth-cuda 240 "$python" "$root/tools/ground-truth/measure.py" --device cuda \
  --only python --only cpp_mutable_composite --out "$out/ground-truth-cuda.json"
if step device-moves 120 "$python" "$root/tools/gpu/device_moves.py" --out "$out/device-moves.json"; then
  step device-moves-check 30 "$python" "$root/tools/gpu/device_moves.py" --check "$out/device-moves.json"
fi
echo "== tools/gpu/check.sh: $([ $status -eq 0 ] && echo all passed || echo FAILURES); tables in $out =="
cat "$summary"
exit $status
