#!/usr/bin/env bash
# Write-op benchmark of the reference runtime against LibTorch on this
# machine: per op, LibTorch time / runtime time (1.0 = as fast), with both
# on one CPU thread. Builds only what it needs (no LLVM).
#   tools/runtime/bench.sh [cpu|cuda] [extra runtime_bench flags...]
set -euo pipefail
root=$(cd "$(dirname "$0")/../.." && pwd)
device=${1:-cpu}
shift || true
cache=${TORCH_TIDY_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/torch-tidy}
python=${TORCH_TIDY_BENCH_PYTHON:-$cache/venv-torch-2.8.0/bin/python}
build=${BUILD_DIR:-$root/build-runtime-bench}
cmake -S "$root/tools/runtime/standalone" -B "$build" -G Ninja \
  -DCMAKE_BUILD_TYPE=Release -DTORCH_TIDY_PYTHON_28="$python" >"$build.configure.log" 2>&1 ||
  { cat "$build.configure.log"; exit 1; }
cmake --build "$build" -j 2 --target runtime_bench >/dev/null
"$build/bin/runtime_bench" --device "$device" "$@"
