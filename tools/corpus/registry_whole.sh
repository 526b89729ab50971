#!/bin/bash
# Each project of the registry table (registry_libs.json) linted whole by
# torch-tidy-project, counted on torch's registry: docs/reliability.md,
# "Each project of the table, whole". Usage:
#   EXTRA="--env FORCE_ONLY_CPU=1" registry_whole.sh WORK SITE NAME...
# WORK/NAME is a copy of the project's sources (torch-tidy-project writes
# WORK/NAME/.torch-tidy/), SITE/NAME its installed package (PYTHONPATH).
# PY (default: the torch 2.8.0 venv) and TT (default: build/'s
# torch-tidy-project) may be set. Each run's output goes to WORK/NAME.log,
# its --json and --sarif beside it, and "NAME rc=N secs=S" to
# WORK/summary.txt.
set -u
work=$1 site=$2
shift 2
PY=${PY:-${TORCH_TIDY_CACHE:-$HOME/.cache/torch-tidy}/venv-torch-2.8.0/bin/python}
TT=${TT:-$(cd "$(dirname "$0")/../.." && pwd)/build/bin/torch-tidy-project}
for p in "$@"; do
  start=$(date +%s)
  # shellcheck disable=SC2086  # EXTRA is a list of options
  (cd "$work/$p" && nice -n 10 "$TT" --python "$PY" \
     --env "PYTHONPATH=$site/$p" ${EXTRA:-} -j 2 \
     --json "$work/$p.json" --sarif "$work/$p.sarif") > "$work/$p.log" 2>&1
  echo "$p rc=$? secs=$(( $(date +%s) - start ))" >> "$work/summary.txt"
done
