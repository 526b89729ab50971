#!/usr/bin/env bash
# One call on a GPU machine: builds the reference runtime (with its CUDA
# backend) and the differential suite against the CUDA LibTorch of the local
# PyTorch (2.11 on the project's GPU machines), runs the suite on CPU and on
# CUDA, then the write-op benchmark, and prints the tables.
# Needs: nvcc, CMake >= 3.20, Ninja, a python with a CUDA torch. No LLVM, no
# network, no GoogleTest (the unit tests are skipped if it is missing).
#   tools/runtime/gpu-differential.sh [python]      (default: python3)
# Environment: CASES (default 12000), BUILD_DIR (default build-runtime-gpu).
set -euo pipefail
root=$(cd "$(dirname "$0")/../.." && pwd)
python=${1:-${TORCH_TIDY_GPU_PYTHON:-python3}}
build=${BUILD_DIR:-$root/build-runtime-gpu}
cases=${CASES:-12000}

# Fail early, in one line, when there is nothing to run on.
arch=$("$python" - <<'PY'
import sys, torch
if not torch.cuda.is_available():
    sys.exit("gpu-differential: torch %s sees no CUDA device" % torch.__version__)
major, minor = torch.cuda.get_device_capability(0)
print(f"{major}{minor}")
print(f"torch {torch.__version__} (CUDA {torch.version.cuda}) on {torch.cuda.get_device_name(0)}", file=sys.stderr)
PY
)
command -v nvcc >/dev/null || { echo "gpu-differential: nvcc not found" >&2; exit 1; }

cmake -S "$root/tools/runtime/standalone" -B "$build" -G Ninja \
  -DCMAKE_BUILD_TYPE=Release -DTORCH_TIDY_PYTHON_28="$python" \
  -DTORCH_TIDY_CUDA_ARCHITECTURES="$arch" >"$build.configure.log" 2>&1 ||
  { cat "$build.configure.log"; exit 1; }
grep -q "CUDA backend enabled" "$build.configure.log" ||
  { echo "gpu-differential: CMake did not enable the CUDA backend" >&2; exit 1; }
cmake --build "$build" -j "$(nproc)" --target runtime_differential runtime_bench

status=0
echo "== differential, CPU =="
"$build/bin/runtime_differential" --device cpu --cases "$cases" || status=1
echo "== differential, CUDA =="
"$build/bin/runtime_differential" --device cuda --cases "$cases" || status=1
echo "== write-op benchmark, CUDA (fraction of device-to-device copy bandwidth) =="
"$build/bin/runtime_bench" --device cuda --rows 8192 --cols 8192 || status=1
exit $status
