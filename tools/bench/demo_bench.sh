#!/usr/bin/env bash
# Benchmark of `make demo` as a new user meets it (issue 18): a fresh clone,
# an empty cache directory, the Debian packages already present. Prints the
# time of each phase and the total against the 5-minute budget, and fails if
# the demo touched PyPI (a venv or pip log in the cache) or printed no warning.
#
#   tools/bench/demo_bench.sh [REPO]      (default: this checkout's repository)
set -u
repo=$(cd "${1:-$(dirname "$0")/../..}" && pwd)
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
git clone -q "$repo" "$work/torch-tidy" || exit 1
[ -d "$repo/../shared" ] && ln -s "$(cd "$repo/../shared" && pwd)" "$work/shared"
cache="$work/cache"
mkdir -p "$cache"
cd "$work/torch-tidy" || exit 1
# Forbid PyPI outright: any pip run fails instead of downloading.
export PIP_NO_INDEX=1 TORCH_TIDY_CACHE="$cache"
start=$(date +%s.%N)
if ! make demo >"$work/demo.log" 2>&1; then
  tail -30 "$work/demo.log"
  echo "demo-bench: make demo failed"
  exit 1
fi
end=$(date +%s.%N)
total=$(python3 -c "print($end - $start)")
grep -q "warning: in-place index_put_ into mutable argument" "$work/demo.log" ||
  { echo "demo-bench: no warning in the demo's output"; exit 1; }
grep -q "^+.*= .*index_copy(" "$work/demo.log" ||
  { echo "demo-bench: no fix in the demo's output"; exit 1; }
if ls "$cache" | grep -q -e '^venv' -e '^pip.log$'; then
  echo "demo-bench: the demo touched PyPI: $(ls "$cache")"
  exit 1
fi
targets=$(grep -c '^\[[0-9]*/[0-9]*\]' "$work/demo.log" || true)
nproc=$(nproc)
printf 'make demo, fresh clone, empty cache (%s), %s cores, %s build steps\n' "$cache" "$nproc" "$targets"
printf '  total          %7.1f s\n' "$total"
printf '  budget         %7.1f s (5 minutes)\n' 300
printf '  total / budget %7.2f\n' "$(python3 -c "print($total / 300)")"
printf '  PyPI           none (no venv, no pip log in the cache)\n'
