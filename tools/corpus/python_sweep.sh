#!/bin/bash
# The Python files of the corpus mirrors (tools/corpus/repos.txt, fetched to
# MIRROR) that mention torch.compile, torch._dynamo.optimize or .compile(),
# copied out to OUT/<owner+name>/<path>, then linted by torch-tidy-py with its
# defaults and with --flag-read any (docs/reliability.md, issue 60).
#   tools/corpus/python_sweep.sh [MIRROR] [OUT] [PYTHON-WITH-LIBCST]
set -u
mirror=${1:-/work/.mirror}
out=${2:-build/python-sweep}
py=${3:-${TORCH_TIDY_CACHE:-$HOME/.cache/torch-tidy}/venv-tools/bin/python}
here=$(cd "$(dirname "$0")/../.." && pwd)
rm -rf "$out" && mkdir -p "$out"
for d in "$mirror"/*+*/; do
  name=$(basename "$d"); g="$d/repo"; [ -d "$g" ] || g="$d"
  git --git-dir="$g" grep -l -E 'torch\.compile|_dynamo\.optimize|\.compile\(\)' HEAD -- '*.py' \
      2>/dev/null | sed 's/^HEAD://' | while read -r f; do
    mkdir -p "$out/$name/$(dirname "$f")"
    git --git-dir="$g" show "HEAD:$f" > "$out/$name/$f" 2>/dev/null
  done
done
mapfile -t files < <(find "$out" -name '*.py' | sort)
echo "python-sweep: ${#files[@]} files"
"$py" "$here/tools/torch-tidy/torch-tidy-py" "${files[@]}"
"$py" "$here/tools/torch-tidy/torch-tidy-py" --flag-read any "${files[@]}"
