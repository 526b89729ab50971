#!/usr/bin/env bash
# Regenerates the ground truth for both PyTorch venvs made by tools/bootstrap:
# re-runs every reproducer, rewrites docs/ground-truth.json and the generated
# table in docs/ground-truth.md, and prints the table. A missing venv gets one
# skip line and keeps its committed rows.
set -eu
here="$(cd "$(dirname "$0")" && pwd)"
cache="${TORCH_TIDY_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/torch-tidy}"

venv_python() { # prints the venv's python if bootstrap finished it, else nothing
  [ -f "$cache/$1/.torch-tidy-ok" ] && echo "$cache/$1/bin/python" || true
}

exec python3 "$here/ground_truth.py" --write \
  --python "2.8.0=$(venv_python venv-torch-2.8.0)" \
  --python "latest=$(venv_python venv-torch-latest)"
