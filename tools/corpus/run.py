#!/usr/bin/env python3
"""Runs torch-tidy over the public corpus (tools/corpus/repos.txt).

  run.py [--build build] [--out build/corpus] [--mirror DIR] [--jobs 2]
         [--per-repo 3] [--repos owner/name,...] [--timeout 300] [--no-fix]
         [--module PATH] [--only LIST]

For every repository at its pinned commit: the sources come from a local
mirror (--mirror, default $TORCH_TIDY_CORPUS_MIRROR or /work/.mirror, as
owner+name/repo git directories; for a project too large to mirror,
owner+name/tree, the files tools/corpus/assembled/OWNER+NAME.txt lists,
assembled one by one at the pinned commit) or, failing that, a clone from
GitHub. With --whole, every file of a project the operator checks can warn
in is linted (torch-tidy-project's choice from the project index) and each
project's operators whose kernels stay unseen are counted by cause. Up to
--per-repo C++/CUDA files that use LibTorch are picked (those with the most
in-place writes and operator registrations first), and in a project that
registers operators every file that defines a schema or registers a kernel
too, and each is linted with
every torch-* check with `RegionMode: all` and with the defaults (the default
run only where the file registers an operator or marks a function compiled:
elsewhere the flagship has no region under defaults and the other checks do
not read RegionMode). Results are cached under OUT/cache by module, file,
flags, configuration and the third-party packages installed, so an
interrupted run resumes. Flags are derived
per file: the torch 2.8 venv's include directories and Python headers, the
repository's include directories (the file's own, its ancestors, and every
directory a quoted include resolves in), the third-party libraries the
projects use (Debian's Boost, OpenCV, Eigen, GLM and nlohmann-json, which
the runner installs unless --no-install), and for .cu files what
torch-tidy-cdb gives them (clang's CUDA mode, host side, with the machine's
toolkit, torch's nvcc defines and stand-ins for headers CUDA 13 removed).
The project-wide operator index reads the repository's other files (C++,
CUDA and Python: TORCH_LIBRARY blocks, torch.library definitions), with the
unpacked repository as the project root. A note's `defines=A,B=1` adds -DA
-DB=1 to that repository's files (the build options its CMakeLists sets).
Per file and run: crash, timeout, compile errors (and the headers not
found), warnings per check, seconds.

Then, unless --no-fix, every file with warnings under `RegionMode: all` is
copied beside itself, its fixes exported and proven by torch-tidy-verify
(CPU; Schema-rule fixes are proven on real torch by the op-mutation-fixes
ctests and counted apart), fixed with --fix, and syntax-checked with the same
flags: every exported fix must be verified, the fixed copy must bring no new
compile error, and a second --fix must change nothing.

Writes OUT/report.json, OUT/warnings.tsv (every warning, for labelling),
prints a summary, and with tools/corpus/labels.tsv the precision per check
and per class (and, for labels with a consequence column, per consequence
class). Exit 1 on any crash, timeout or failed fix.
"""
import argparse
import concurrent.futures
import hashlib
import json
import os
import re
import shutil
import signal
import subprocess
import sys
import threading
import time

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(HERE))

# torch-tidy-project's package (tools/torch-tidy/torch_tidy_project): the
# runner parses .cu files as torch-tidy-cdb does, and --whole lints the files
# of a project the operator checks can warn in, as torch-tidy-project picks
# them.
sys.path.insert(0, os.path.join(ROOT, "tools", "torch-tidy"))
from torch_tidy_project import cdb as CDB  # noqa: E402
from torch_tidy_project import index as INDEX  # noqa: E402
from torch_tidy_project.common import read_text as text_of  # noqa: E402

CHECKS = ["torch-compile-requires-grad-propagation", "torch-index-assign-to-copy",
          "torch-inplace-on-grad-leaf", "torch-op-undeclared-mutation",
          "torch-write-into-copy"]
SOURCE_EXT = (".cpp", ".cc", ".cxx", ".cu")
HEADER_EXT = (".h", ".hpp", ".cuh", ".hh", ".inl", ".inc", ".h.in")
# What is unpacked of each repository: sources, headers and the files they
# include as text.
# Python files too: the project index reads the operators they define.
CODE_EXT = SOURCE_EXT + HEADER_EXT + (".ipp", ".tcc", ".def", ".cuinl", ".c", ".py")
# Files that define an operator schema or register a kernel: every one of
# them is linted in a project that has any.
REGISTERS = re.compile(r"TORCH_LIBRARY|TORCH_SELECTIVE_SCHEMA|RegisterOperators")
TORCH_INCLUDE = re.compile(r'#\s*include\s*[<"](torch|ATen|c10)/')
# In-place tensor writes and operator registrations: files with more of them
# are picked first.
INTERESTING = re.compile(r"\.(index_put_|copy_|fill_|masked_fill_|masked_scatter_|index_copy_|"
                         r"index_fill_|scatter_|index_add_|add_|mul_|sub_|div_)\(|"
                         r"\.index\(\{[^}]*\}\)\s*=[^=]|TORCH_LIBRARY")
# Sliced and indexed in-place writes, the form of the bug: files with more of
# them are picked before files with only other in-place writes.
SLICED = re.compile(r"\.(index_put_|index_copy_|index_fill_|index_add_|masked_scatter_|"
                    r"masked_fill_|scatter_|scatter_add_)\(|"
                    r"\.(index|slice|narrow|select)\([^;]*?\)\s*(=[^=]|\.(copy_|fill_|zero_|"
                    r"add_|mul_|sub_|div_|index_put_|masked_fill_)\()")
# Comments, left out when counting writes (commented-out code is common).
COMMENT = re.compile(r"//[^\n]*|/\*.*?\*/", re.S)
QUOTED_INCLUDE = re.compile(r'#\s*include\s*"([^"]+)"')
# Any include: an angle-bracket one may name a header of the repository too
# (`#include <models/net.h>` with include/ on the project's path).
ANY_INCLUDE = re.compile(r'#\s*include\s*[<"]([^">]+)[">]')
LIBRARY_INCLUDE = re.compile(r"(torch|ATen|c10)/")
CONFIGS = {
    "all": "{CheckOptions: {torch-compile-requires-grad-propagation.RegionMode: all}}",
    "default": "",
}


# --- sources ---------------------------------------------------------------

def read_repos(path, only):
    repos = []
    for line in open(path):
        line = line.strip()
        if not line or line.startswith("#"):
            continue
        name, commit, kind, *note = line.split(None, 3)
        if only and name not in only:
            continue
        note = note[0] if note else ""
        files = None  # "files=N" first in the note: pick N files there
        m = re.match(r"files=(\d+)\s*", note)
        if m:
            files, note = int(m.group(1)), note[m.end():]
        defines = []  # "defines=A,B=1" next: the project's build options
        m = re.match(r"defines=(\S+)\s*", note)
        if m:
            defines, note = ["-D" + d for d in m.group(1).split(",") if d], note[m.end():]
        repos.append({"name": name, "commit": commit, "kind": kind, "files": files,
                      "defines": defines, "note": note})
    return repos


def materialize(repo, mirror, dest):
    """Unpacks the pinned commit into dest (once); returns dest or None."""
    # v2: with the Python files (the project index reads them).
    stamp = os.path.join(dest, ".torch-tidy-corpus-v2-" + repo["commit"])
    if os.path.exists(stamp):
        return dest
    shutil.rmtree(dest, ignore_errors=True)
    os.makedirs(dest)
    git_dir = os.path.join(mirror, repo["name"].replace("/", "+", 1), "repo")
    tree = os.path.join(mirror, repo["name"].replace("/", "+", 1), "tree")
    if not os.path.isdir(git_dir) and os.path.isdir(tree):
        # A project too large to mirror, assembled file by file at the
        # pinned commit (tools/corpus/assembled/OWNER+NAME.txt lists them).
        for d, _, files in os.walk(tree):
            for f in files:
                if f.endswith(CODE_EXT):
                    target = os.path.join(dest, os.path.relpath(os.path.join(d, f), tree))
                    os.makedirs(os.path.dirname(target), exist_ok=True)
                    shutil.copyfile(os.path.join(d, f), target)
        open(stamp, "w").close()
        return dest
    if not os.path.isdir(git_dir):
        clone = dest + ".git"
        res = subprocess.run(["git", "clone", "-q", "--bare",
                              f"https://github.com/{repo['name']}.git", clone],
                             capture_output=True, text=True)
        if res.returncode != 0:
            print(f"corpus: {repo['name']}: no mirror at {git_dir} and no clone: "
                  f"{res.stderr.strip()[:200]}")
            return None
        git_dir = clone
    # The C/C++/CUDA files of the commit, blob by blob: a mirror may lack
    # large binary blobs, which `git archive` would stop at.
    res = subprocess.run(["git", "-C", git_dir, "ls-tree", "-r", repo["commit"]],
                         capture_output=True, text=True)
    if res.returncode != 0:
        print(f"corpus: {repo['name']}: commit {repo['commit']} not in {git_dir}")
        return None
    wanted = []
    for line in res.stdout.splitlines():
        meta, path = line.split("\t", 1)
        mode, kind, sha = meta.split()
        if kind == "blob" and (path.endswith(CODE_EXT) or
                               os.path.basename(path) == "pyproject.toml"):
            wanted.append((sha, path))
    batch = subprocess.run(["git", "-C", git_dir, "cat-file", "--batch"],
                           input="".join(sha + "\n" for sha, _ in wanted).encode(),
                           capture_output=True)
    data, pos = batch.stdout, 0
    for sha, path in wanted:
        header_end = data.index(b"\n", pos)
        header = data[pos:header_end].split()
        pos = header_end + 1
        if len(header) < 3 or header[1] == b"missing":
            continue
        size = int(header[2])
        target = os.path.join(dest, path)
        os.makedirs(os.path.dirname(target), exist_ok=True)
        with open(target, "wb") as f:
            f.write(data[pos:pos + size])
        pos += size + 1
    open(stamp, "w").close()
    return dest


def pick_files(root, per_repo):
    """LibTorch source files: including a torch header, directly or through
    a header of the repository that does. Those with the most sliced or indexed
    in-place writes first, then those with the most other in-place writes and
    registrations, then in path order; at most per_repo."""
    sources, headers = [], []
    for d, dirs, files in os.walk(root):
        dirs[:] = sorted(x for x in dirs if not x.startswith(".") and
                         x not in ("third_party", "3rdparty", "external", "docs"))
        for f in sorted(files):
            p = os.path.join(d, f)
            if f.startswith(".tt-fix-"):  # a fix copy an interrupted run left
                os.remove(p)
                continue
            if f.endswith(SOURCE_EXT):
                sources.append(p)
            elif f.endswith(HEADER_EXT):
                headers.append(p)
    torch_headers = {os.path.basename(h) for h in headers if TORCH_INCLUDE.search(text_of(h))}
    chosen = []
    for p in sources:
        text = text_of(p)
        uses_torch = TORCH_INCLUDE.search(text) or any(
            os.path.basename(inc) in torch_headers for inc in QUOTED_INCLUDE.findall(text))
        if uses_torch:
            code = COMMENT.sub(" ", text)
            chosen.append((-len(SLICED.findall(code)), -len(INTERESTING.findall(code)), p))
    chosen.sort()
    picked = [p for *_, p in chosen[:per_repo]]
    # Every file that defines a schema or registers a kernel.
    for *_, p in chosen[per_repo:]:
        if REGISTERS.search(COMMENT.sub(" ", text_of(p))):
            picked.append(p)
    return picked


def whole_project_files(args, root):
    """--whole: every source file of the project the operator checks can
    warn in, as torch-tidy-project picks them (the project index's schema
    and registration files, files defining a registered kernel), and the
    index itself."""
    index_json = INDEX.load(args.torch_tidy, root)
    sources = []
    for d, dirs, files in os.walk(root):
        dirs[:] = sorted(x for x in dirs if not x.startswith("."))
        sources += [os.path.join(d, f) for f in sorted(files)
                    if f.endswith(SOURCE_EXT) and not f.startswith(".tt-fix-")]
    return sorted(INDEX.operator_files(index_json, sources)), index_json


# --- flags -----------------------------------------------------------------

def header_index(root):
    index = []
    for d, dirs, files in os.walk(root):
        dirs[:] = [x for x in dirs if not x.startswith(".")]
        for f in files:
            if f.endswith(HEADER_EXT) or f.endswith(".cuh"):
                index.append(os.path.relpath(os.path.join(d, f), root))
    return index


def include_dirs(path, root, index):
    """The file's directory and its ancestors, then every directory from
    which the file's includes (two levels deep; quoted, or angle-bracket ones
    naming a header of the repository, LibTorch's own excepted) resolve."""
    dirs = []
    d = os.path.dirname(path)
    while True:
        dirs.append(d)
        if os.path.samefile(d, root) or len(dirs) > 12:
            break
        d = os.path.dirname(d)
    seen, frontier = set(), [path]
    for _ in range(2):
        nxt = []
        for f in frontier:
            for inc in ANY_INCLUDE.findall(text_of(f)):
                if inc in seen or LIBRARY_INCLUDE.match(inc):
                    continue
                seen.add(inc)
                for rel in index:
                    if rel == inc or rel.endswith("/" + inc):
                        base = os.path.join(root, rel[: len(rel) - len(inc)])
                        base = os.path.normpath(base)
                        if base not in dirs:
                            dirs.append(base)
                        nxt.append(os.path.join(root, rel))
                        break
        frontier = nxt
    return dirs


def torch_flags(python):
    """-isystem flags for the venv's torch and Python headers."""
    code = ("import os, sysconfig, importlib.util as u; "
            "t = os.path.dirname(u.find_spec('torch').origin); "
            "print(os.path.join(t, 'include')); "
            "print(os.path.join(t, 'include', 'torch', 'csrc', 'api', 'include')); "
            "print(sysconfig.get_paths()['include'])")
    out = subprocess.run([python, "-c", code], capture_output=True, text=True, check=True)
    return [f for d in out.stdout.split() for f in ("-isystem", d)]


# Third-party libraries the corpus's projects include, from Debian; OpenCV's,
# Eigen's and stb's headers sit outside the default search path (pkg-config).
DEB_DEPENDENCIES = ("libboost-dev", "libopencv-dev", "libeigen3-dev",
                    "libglm-dev", "nlohmann-json3-dev", "libyaml-cpp-dev",
                    "libcurl4-openssl-dev", "libjsoncpp-dev", "libnanoflann-dev",
                    "libspdlog-dev", "libstb-dev", "libzip-dev", "pkg-config")
PKG_CONFIG_LIBS = ("opencv4", "eigen3", "stb")


def installed_dependencies():
    """The DEB_DEPENDENCIES installed, with their versions."""
    found = []
    for p in DEB_DEPENDENCIES:
        res = subprocess.run(["dpkg-query", "-W", "-f=${Status} ${Version}", p],
                             capture_output=True, text=True)
        if res.stdout.startswith("install ok installed"):
            found.append(p + "=" + res.stdout.split()[-1])
    return found


def install_dependencies():
    """apt-get installs the DEB_DEPENDENCIES not installed yet; says which."""
    have = {d.split("=")[0] for d in installed_dependencies()}
    missing = [p for p in DEB_DEPENDENCIES if p not in have]
    if not missing:
        return
    print(f"corpus: installing {' '.join(missing)} (apt-get)", flush=True)
    env = dict(os.environ, DEBIAN_FRONTEND="noninteractive")
    sudo = [] if os.geteuid() == 0 else ["sudo"]
    install = sudo + ["apt-get", "install", "-y", "--no-install-recommends"] + missing
    if subprocess.run(install, capture_output=True, env=env).returncode != 0:
        subprocess.run(sudo + ["apt-get", "update"], capture_output=True, env=env)
        if subprocess.run(install, capture_output=True, env=env).returncode != 0:
            print(f"corpus: could not install {' '.join(missing)}; files that include "
                  f"them will not parse", flush=True)



def library_flags():
    """-isystem flags for the installed PKG_CONFIG_LIBS; none for the rest."""
    flags = []
    for lib in PKG_CONFIG_LIBS:
        try:
            out = subprocess.run(["pkg-config", "--cflags-only-I", lib],
                                 capture_output=True, text=True)
        except OSError:
            return flags
        if out.returncode == 0:
            flags += [f for d in out.stdout.split() if d.startswith("-I")
                      for f in ("-isystem", d[2:])]
    return flags


def file_flags(path, root, index, base_flags, cuda_flags):
    """cuda_flags: torch-tidy-cdb's (every entry, .cu entries), or None."""
    flags = ["-std=c++17", "-D_GLIBCXX_USE_CXX11_ABI=1", "-DTORCH_EXTENSION_NAME=corpus_ext",
             "-DTORCH_API_INCLUDE_EXTENSION_H", "-DWITH_CUDA", "-w"]
    if cuda_flags and path.endswith(".cu"):
        flags = cuda_flags[1] + flags
    flags += base_flags + (cuda_flags[0] if cuda_flags else [])
    for d in include_dirs(path, root, index):
        flags += ["-I", d]
    return flags


# --- running ---------------------------------------------------------------

# The clang-tidy runs in flight: stopped with the runner (SIGTERM), which
# otherwise left them running, each holding a core.
_LIVE = set()
_LIVE_LOCK = threading.Lock()


def _stop(signum, frame):
    with _LIVE_LOCK:
        live = list(_LIVE)
    for p in live:
        try:
            p.kill()
        except OSError:
            pass
    os._exit(128 + signum)


def run(cmd, timeout, project=None):
    """project: the root the operator index reads (ProjectRoot), or off."""
    env = dict(os.environ, TORCH_TIDY_PROJECT_ROOT=project or "none")
    start = time.perf_counter()
    p = subprocess.Popen(cmd, stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
                         text=True, errors="replace", env=env)
    with _LIVE_LOCK:
        _LIVE.add(p)
    try:
        out, _ = p.communicate(timeout=timeout)
        code, timed_out = p.returncode, False
    except subprocess.TimeoutExpired:
        p.kill()
        out, _ = p.communicate()
        code, timed_out = None, True
    finally:
        with _LIVE_LOCK:
            _LIVE.discard(p)
    return out, code, timed_out, time.perf_counter() - start


def crashed(out, code):
    """A signal, LLVM's crash banner, or clang-tidy's own failure to run
    (`Error: no checks enabled.`, the module not loading), at the start of
    one of clang-tidy's lines (clang quotes source lines under diagnostics,
    which may contain the same words). A run that did not lint is never
    counted as a file with no warnings."""
    return (code is not None and code < 0) or any(
        line.startswith(("Stack dump", "PLEASE submit a bug report", "Error: ",
                         "torch-tidy: cannot load"))
        for line in out.splitlines())


def loads_checks(args):
    """Stops the run, saying why, when clang-tidy does not list every check
    asked for with args.module loaded (a module copied without the
    libraries beside it loads none)."""
    cmd = [args.clang_tidy, f"--load={args.module}",
           "-checks=-*," + ",".join(args.checks), "--list-checks"]
    res = subprocess.run(cmd, stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
                         text=True, errors="replace")
    listed = set(res.stdout.split())
    missing = [c for c in args.checks if "*" not in c and c not in listed]
    if res.returncode != 0 or missing or not any(w.startswith("torch-") for w in listed):
        raise SystemExit(f"corpus: {args.module} does not enable the checks asked for "
                         f"({', '.join(missing) or ', '.join(args.checks)}); "
                         f"clang-tidy said:\n{res.stdout[-1500:]}")


WARNING = re.compile(r"^(.*?):(\d+):(\d+): warning: (.*) \[(torch-[\w-]+)\]$")
ERROR = re.compile(r"^(.*?):(\d+):(\d+): error: (.*?)( \[clang-diagnostic-error\])?$")
NOT_FOUND = re.compile(r"^'([^']+)' file not found")


def lint(args, path, flags, config, fix=False, root=None, export=None):
    """root: the unpacked repository, the project the operator index reads.
    export: a YAML file for --export-fixes (the file is left as it is)."""
    cmd = [args.clang_tidy, f"--load={args.module}", "-checks=-*," + ",".join(args.checks)]
    if CONFIGS[config]:
        cmd.append("--config=" + CONFIGS[config])
    if fix:
        cmd.append("--fix-notes")  # --fix, and the schema fixes on their notes
    if export:
        cmd.append("--export-fixes=" + export)
    cmd += [path, "--"] + flags
    out, code, timed_out, secs = run(cmd, args.timeout, root)
    warnings = []
    errors = []
    missing = []
    for line in out.splitlines():
        m = WARNING.match(line)
        if m and os.path.abspath(m.group(1)) == os.path.abspath(path):
            warnings.append({"line": int(m.group(2)), "column": int(m.group(3)),
                             "check": m.group(5), "message": m.group(4)})
        e = ERROR.match(line)
        if e:
            errors.append(e.group(4))
            m = NOT_FOUND.match(e.group(4))
            if m and m.group(1) not in missing:
                missing.append(m.group(1))
    return {"crash": crashed(out, code), "timeout": timed_out, "seconds": round(secs, 2),
            "errors": len(errors), "first_error": errors[0] if errors else "",
            "missing": missing,
            "warnings": warnings,
            "tail": out[-3000:] if crashed(out, code) or timed_out else ""}


def syntax_errors(args, path, flags):
    cmd = [args.clang, "-fsyntax-only", "-ferror-limit=0", path] + flags
    out, code, timed_out, _ = run(cmd, args.timeout)
    # The messages, without where they are (a fix moves lines).
    return sorted(e.group(4) for e in map(ERROR.match, out.splitlines()) if e), timed_out


def fix_lengths(before, after):
    """Per fixed statement: its line, the written and the fixed length
    (stripped, lines joined), and whether the fix is the general positions
    form (flatten() or the leading-1s strip)."""
    import difflib
    a, b = before.splitlines(), after.splitlines()
    out = []
    for tag, i1, i2, j1, j2 in difflib.SequenceMatcher(
            None, a, b, autojunk=False).get_opcodes():
        if tag != "replace":
            continue
        pairs = (list(zip(range(i1, i2), range(j1, j2))) if i2 - i1 == j2 - j1
                 else [(None, None)])
        for i, j in pairs:
            w = (" ".join(x.strip() for x in a[i1:i2]) if i is None
                 else a[i].strip())
            f = (" ".join(x.strip() for x in b[j1:j2]) if j is None
                 else b[j].strip())
            # A block whose line count changed (a named view's declaration
            # removed with its write) is one statement: the written lines
            # joined against the fixed ones, at every line it covers.
            lines = (list(range(i1 + 1, i2 + 1)) if i is None else [i + 1])
            out.append({"line": lines[0], "lines": lines, "written": len(w),
                        "fixed": len(f), "general": "flatten()" in f or
                        "slicePrefix1sSize" in f})
    return out


def check_fix(args, path, flags, root=None):
    """Fixes a copy beside the file; returns a dict of what happened."""
    d, name = os.path.split(path)
    copy = os.path.join(d, ".tt-fix-" + name)
    shutil.copyfile(path, copy)
    exported = copy + ".fixes.yaml"
    try:
        # Every fix the file gets, proven by torch-tidy-verify before it is
        # applied (the verifier reads the file the offsets point into).
        verified = verify_exports(args, lint(args, copy, flags, "all", root=root,
                                             export=exported), exported)
        result = lint(args, copy, flags, "all", fix=True, root=root)
        fixed = text_of(copy)
        changed = fixed != text_of(path)
        before, _ = syntax_errors(args, path, flags)
        after, _ = syntax_errors(args, copy, flags)
        new = list(after)
        for e in before:
            if e in new:
                new.remove(e)
        again = lint(args, copy, flags, "all", fix=True, root=root)
        idempotent = text_of(copy) == fixed
        return {"changed": changed, "new_errors": new[:5], "idempotent": idempotent,
                "lengths": fix_lengths(text_of(path), fixed),
                "verify": verified,
                "crash": result["crash"] or again["crash"],
                "timeout": result["timeout"] or again["timeout"]}
    finally:
        os.remove(copy)
        if os.path.exists(exported):
            os.remove(exported)


def verify_exports(args, result, exported):
    """torch-tidy-verify over one file's exported fixes: counts of fixes
    verified, of Schema-rule fixes (proven on real torch by the
    op-mutation-fixes ctests, not on the runtime) and of others unverified,
    with the reasons."""
    out = {"fixes": 0, "verified": 0, "schema": 0, "unverified": []}
    if result["crash"] or result["timeout"] or not os.path.exists(exported):
        return out
    p = subprocess.run([args.torch_tidy_verify, exported, "--json", "--device", "cpu",
                        "--instances", "200"], capture_output=True, text=True)
    if p.returncode not in (0, 1):
        out["unverified"].append("torch-tidy-verify failed: " + p.stderr.strip()[-300:])
        return out
    for f in json.loads(p.stdout)["fixes"]:
        out["fixes"] += 1
        if f["status"] == "verified":
            out["verified"] += 1
        elif ("op-mutation-fixes" in f.get("reason", "")
              or "write-into-copy-fixes" in f.get("reason", "")):
            out["schema"] += 1
        else:
            out["unverified"].append(f"{f.get('line')}: {f.get('rule')}: {f.get('reason')}")
    return out


# Under the default options the flagship looks only at operators registered
# in the file and at functions marked compiled, and the other checks do not
# read RegionMode: a file with neither gives the same result as under
# `RegionMode: all` for them, so its default run is skipped (and says so).
DEFAULT_RELEVANT = re.compile(r"TORCH_LIBRARY|torch_tidy::compiled|TORCH_TIDY_COMPILED|"
                              r"CompiledFunctions")


def cached_lint(args, path, flags, config, root=None):
    """lint(), remembered by module, file contents, flags, config and project
    root, so that an interrupted run resumes where it stopped."""
    key = hashlib.sha1("\0".join([args.module_digest, args.dependencies, text_of(path), config,
                                  root or ""] +
                                  flags + [",".join(args.checks)])
                       .encode(errors="replace")).hexdigest()
    cache = os.path.join(args.out, "cache", key + ".json")
    if os.path.exists(cache):
        with open(cache) as f:
            return json.load(f)
    result = lint(args, path, flags, config, root=root)
    os.makedirs(os.path.dirname(cache), exist_ok=True)
    with open(cache + ".tmp", "w") as f:
        json.dump(result, f)
    os.replace(cache + ".tmp", cache)
    return result


def job(args, repo, root, index, base_flags, path):
    flags = file_flags(path, root, index, base_flags, args.cuda_flags) + repo.get("defines", [])
    rel = os.path.relpath(path, root)
    entry = {"repo": repo["name"], "path": rel, "runs": {}}
    flagship = "torch-compile-requires-grad-propagation" in args.checks
    for config in args.configs:
        if config == "default" and "all" in args.configs and not flagship:
            # Only the flagship reads RegionMode: the same run.
            entry["runs"][config] = dict(entry["runs"]["all"],
                                         skipped="no check that reads RegionMode")
            continue
        if config == "default" and "all" in args.configs and \
                not args.whole and not DEFAULT_RELEVANT.search(text_of(path)):
            entry["runs"][config] = {
                "crash": False, "timeout": False, "seconds": 0, "errors": 0,
                "first_error": "", "warnings": [
                    w for w in entry["runs"]["all"]["warnings"]
                    if w["check"] != "torch-compile-requires-grad-propagation"],
                "tail": "", "skipped": "no registration or compiled marker"}
            continue
        entry["runs"][config] = cached_lint(args, path, flags, config, root)
    if not args.no_fix and "all" in args.configs and entry["runs"]["all"]["warnings"] and \
            not entry["runs"]["all"]["crash"]:
        entry["fix"] = check_fix(args, path, flags, root)
    return entry


# --- labels and the report -------------------------------------------------

def read_labels(path):
    labels = {}
    if not os.path.exists(path):
        return labels
    for line in open(path):
        if not line.strip() or line.startswith("#"):
            continue
        parts = line.rstrip("\n").split("\t")
        if len(parts) < 7:
            continue
        repo, rel, ln, check, cls, label, reason = parts[:7]
        # An optional eighth column: the consequence class the message
        # states (torch-op-undeclared-mutation, issue 36).
        consequence = parts[7] if len(parts) > 7 else ""
        labels[(repo, rel, int(ln), check)] = {"class": cls, "label": label, "reason": reason,
                                               "consequence": consequence}
    return labels


def first_run(entry):
    """The file's first run ('all' where it ran): its parse and errors."""
    return next(iter(entry["runs"].values()))


def summarize(entries, labels, out_dir, checks=CHECKS, configs=tuple(CONFIGS)):
    files = len(entries)
    crashes = [(e["repo"], e["path"], c) for e in entries for c, r in e["runs"].items() if r["crash"]]
    timeouts = [(e["repo"], e["path"], c) for e in entries for c, r in e["runs"].items() if r["timeout"]]
    error_files = sum(1 for e in entries if first_run(e)["errors"])
    print(f"\ncorpus: {len({e['repo'] for e in entries})} repositories, {files} files; "
          f"{len(crashes)} crashes, {len(timeouts)} timeouts; {error_files} files with "
          f"compile errors")
    # Why they do not parse: the first header not found, else the first error.
    causes = {}
    for e in entries:
        r = first_run(e)
        if not r["errors"]:
            continue
        missing = r.get("missing") or []
        cause = f"'{missing[0]}' not found" if missing else r["first_error"][:90]
        causes.setdefault(cause, []).append(f"{e['repo']}/{e['path']}")
    for cause, where in sorted(causes.items(), key=lambda c: (-len(c[1]), c[0])):
        print(f"    {len(where):3} {cause}  (e.g. {where[0]})")
    for config in configs:
        counts = {c: 0 for c in checks}
        for e in entries:
            for w in e["runs"][config]["warnings"]:
                counts[w["check"]] += 1
        secs = sum(e["runs"][config]["seconds"] for e in entries)
        skipped = sum(1 for e in entries if e["runs"][config].get("skipped") ==
                      "no registration or compiled marker")
        same = sum(1 for e in entries if e["runs"][config].get("skipped") ==
                   "no check that reads RegionMode")
        print(f"  {config:8} warnings: " + ", ".join(f"{c} {n}" for c, n in counts.items())
              + f"; {secs:.0f} s" + (f"; {skipped} files without a registration or compiled "
                                     f"marker not run (same as 'all' for the other checks)"
                                     if skipped else "")
              + (f"; {same} files not run again (no check run reads RegionMode: the "
                 f"'all' run)" if same else ""))
    fixes = [e for e in entries if "fix" in e]
    bad = [e for e in fixes if e["fix"]["new_errors"] or not e["fix"]["idempotent"]
           or e["fix"]["crash"] or e["fix"]["timeout"]
           or e["fix"].get("verify", {}).get("unverified")]
    print(f"  --fix: {len(fixes)} files with warnings, {sum(e['fix']['changed'] for e in fixes)} "
          f"changed, {len(bad)} with a new compile error, a second --fix that changes them "
          f"or an unverified fix")
    proofs = [e["fix"].get("verify", {}) for e in fixes]
    print(f"  exported fixes (torch-tidy-verify, CPU): {sum(v.get('fixes', 0) for v in proofs)}, "
          f"{sum(v.get('verified', 0) for v in proofs)} verified on the runtime, "
          f"{sum(v.get('schema', 0) for v in proofs)} Schema- or LibTorch-rule fixes (proven "
          f"on real torch by the op-mutation-fixes and write-into-copy-fixes ctests), "
          f"{sum(len(v.get('unverified', [])) for v in proofs)} unverified")
    for e in bad:
        print(f"    FIX {e['repo']}/{e['path']}: {e['fix']}")
    # Fix length (issue 30): every fixed statement, and those at lines
    # labelled hazard.
    import statistics
    lengths = [(e, x) for e in fixes for x in e["fix"].get("lengths", [])]
    hazard_lines = {(k[0], k[1], k[2]) for k, v in labels.items()
                    if v["label"] == "hazard"}
    for what, rows in (("all fixed statements", lengths),
                       ("at hazard-labelled lines",
                        [(e, x) for e, x in lengths
                         if any((e["repo"], e["path"], line) in hazard_lines
                                for line in x.get("lines", [x["line"]]))])):
        if rows:
            ratios = [x["fixed"] / max(1, x["written"]) for _, x in rows]
            print(f"  fix length, {what}: {len(rows)}, median "
                  f"{statistics.median(x['written'] for _, x in rows):.0f} -> "
                  f"{statistics.median(x['fixed'] for _, x in rows):.0f} chars, "
                  f"median ratio {statistics.median(ratios):.2f}x, longest "
                  f"{max(ratios):.2f}x, {sum(x['general'] for _, x in rows)} "
                  f"general forms (flatten() or the strip)")
    for repo, path, config in crashes:
        print(f"    CRASH {repo}/{path} ({config})")
    for repo, path, config in timeouts:
        print(f"    TIMEOUT {repo}/{path} ({config})")

    # Every warning, for labelling; the label when there is one.
    rows = []
    with open(os.path.join(out_dir, "warnings.tsv"), "w") as f:
        f.write("repo\tpath\tline\tcheck\tconfig\tlabel\tmessage\n")
        for e in entries:
            for config in configs:
                for w in e["runs"][config]["warnings"]:
                    key = (e["repo"], e["path"], w["line"], w["check"])
                    lab = labels.get(key)
                    rows.append((config, key, lab))
                    f.write(f"{e['repo']}\t{e['path']}\t{w['line']}\t{w['check']}\t{config}\t"
                            f"{lab['label'] if lab else '-'}\t{w['message']}\n")
    if labels:
        print("\nprecision on the labels (hazard / (hazard + benign); unclear left out):")
        for config in configs:
            per = {}
            for cfg, key, lab in rows:
                if cfg != config or not lab:
                    continue
                groups = [key[3], key[3] + " / " + lab["class"]]
                if lab.get("consequence"):
                    groups.append(key[3] + " / consequence " + lab["consequence"])
                for group in groups:
                    t = per.setdefault(group, {"hazard": 0, "benign": 0, "unclear": 0})
                    t[lab["label"]] += 1
            for group, t in sorted(per.items()):
                judged = t["hazard"] + t["benign"]
                p = f"{100 * t['hazard'] / judged:.0f}%" if judged else "-"
                print(f"  {config:8} {group:70} {p:>5} (hazard {t['hazard']}, benign "
                      f"{t['benign']}, unclear {t['unclear']})")
        for config in configs:
            unlabelled = sum(1 for cfg, _, lab in rows if cfg == config and not lab)
            print(f"  {unlabelled} warnings of the '{config}' run have no label")
    return 1 if crashes or timeouts or bad else 0


def main():
    signal.signal(signal.SIGTERM, _stop)
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--build", default=os.path.join(ROOT, "build"))
    ap.add_argument("--out", default="")
    ap.add_argument("--mirror", default=os.environ.get("TORCH_TIDY_CORPUS_MIRROR", "/work/.mirror"))
    ap.add_argument("--jobs", type=int, default=2)
    ap.add_argument("--per-repo", type=int, default=3)
    ap.add_argument("--repos", default="")
    ap.add_argument("--timeout", type=int, default=300)
    ap.add_argument("--no-fix", action="store_true")
    ap.add_argument("--labels", default=os.path.join(HERE, "labels.tsv"))
    ap.add_argument("--module", default="",
                    help="the module to load (default BUILD/lib/TorchTidyModule.so)")
    ap.add_argument("--only", default="",
                    help="a file of repo/path lines: lint only those files (their "
                         "sources, whether or not --per-repo would pick them)")
    ap.add_argument("--cuda", default=os.environ.get("CUDA_HOME", "/usr/local/cuda"))
    ap.add_argument("--no-install", action="store_true",
                    help="do not apt-get the projects' Debian dependencies")
    ap.add_argument("--checks", default=",".join(CHECKS),
                    help="comma-separated checks to run (default: every torch check)")
    ap.add_argument("--whole", action="store_true",
                    help="lint every file of each project the operator checks can warn "
                         "in (torch-tidy-project's choice from the project index) instead "
                         "of --per-repo files, and count each project's unseen kernels")
    ap.add_argument("--configs", default=",".join(CONFIGS),
                    help="the runs per file: all (RegionMode: all), default, or both")
    args = ap.parse_args()
    args.checks = [c for c in args.checks.split(",") if c]
    args.configs = [c for c in args.configs.split(",") if c]
    if not args.configs or any(c not in CONFIGS for c in args.configs):
        raise SystemExit(f"corpus: --configs takes {', '.join(CONFIGS)}")
    args.out = args.out or os.path.join(args.build, "corpus")
    cache = {}
    for line in open(os.path.join(args.build, "CMakeCache.txt")):
        if "=" in line and ":" in line.split("=")[0]:
            k, v = line.rstrip("\n").split("=", 1)
            cache[k.split(":")[0]] = v
    llvm_bin = cache.get("TORCH_TIDY_LLVM_BIN") or "/usr/lib/llvm-19/bin"
    args.clang_tidy = os.path.join(llvm_bin, "clang-tidy")
    args.clang = os.path.join(llvm_bin, "clang++")
    args.module = args.module or os.path.join(args.build, "lib", "TorchTidyModule.so")
    args.torch_tidy = os.path.join(args.build, "bin", "torch-tidy")
    args.torch_tidy_verify = os.path.join(args.build, "bin", "torch-tidy-verify")
    if args.whole and not os.path.exists(args.torch_tidy):
        raise SystemExit(f"corpus: --whole needs {args.torch_tidy} (the project index)")
    # The module is a small loader; the checks are in the libraries beside it.
    digest = hashlib.sha1()
    module_dir = os.path.dirname(os.path.abspath(args.module))
    for name in sorted(os.listdir(module_dir)):
        if name.endswith(".so") or name == os.path.basename(args.module):
            with open(os.path.join(module_dir, name), "rb") as f:
                digest.update(f.read())
    args.module_digest = digest.hexdigest()
    loads_checks(args)
    only = set()
    if args.only:
        only = {l.strip() for l in open(args.only)
                if l.strip() and not l.startswith("#")}
    venv = cache.get("TORCH_TIDY_VENV_28", "")
    python = os.path.join(venv, "bin", "python")
    if not os.path.exists(python):
        raise SystemExit(f"corpus: no torch 2.8.0 venv at {venv} (run tools/bootstrap/bootstrap.sh)")
    os.makedirs(args.out, exist_ok=True)
    if not args.no_install:
        install_dependencies()
    # What a file parses depends on the headers installed: part of the cache key.
    args.dependencies = ",".join(installed_dependencies())
    base_flags = torch_flags(python) + library_flags()
    args.cuda_flags = CDB.cuda_flags_for(
        args.cuda, os.path.join(args.out, ".torch-tidy", "cuda-shim"))
    if not args.cuda_flags:
        print(f"corpus: no CUDA toolkit at {args.cuda}: .cu files are parsed as C++")

    repos = read_repos(os.path.join(HERE, "repos.txt"), set(filter(None, args.repos.split(","))))
    os.makedirs(args.out, exist_ok=True)
    work = []
    for repo in repos:
        root = materialize(repo, args.mirror, os.path.join(args.out, "src",
                                                           repo["name"].replace("/", "+")))
        if not root:
            continue
        index = header_index(root)
        if args.whole:
            paths, repo["index"] = whole_project_files(args, root)
            repo["root"] = root
        elif only:
            # The listed sources of this repository, picked or not.
            prefix = repo["name"] + "/"
            paths = sorted(os.path.join(root, entry[len(prefix):]) for entry in only
                           if entry.startswith(prefix) and entry.endswith(SOURCE_EXT)
                           and os.path.isfile(os.path.join(root, entry[len(prefix):])))
        else:
            paths = pick_files(root, repo["files"] or args.per_repo)
        for path in paths:
            if not only or f"{repo['name']}/{os.path.relpath(path, root)}" in only:
                work.append((repo, root, index, path))
    print(f"corpus: {len(repos)} repositories, {len(work)} files, {args.jobs} jobs", flush=True)
    entries = []
    with concurrent.futures.ThreadPoolExecutor(max_workers=args.jobs) as pool:
        futures = [pool.submit(job, args, repo, root, index, base_flags, path)
                   for repo, root, index, path in work]
        for fut in concurrent.futures.as_completed(futures):
            e = fut.result()
            entries.append(e)
            r = e["runs"]
            status = "CRASH" if any(x["crash"] for x in r.values()) else \
                "TIMEOUT" if any(x["timeout"] for x in r.values()) else "ok"
            print(f"  {status:7} {e['repo']}/{e['path']}: " + ", ".join(
                f"{c} {len(x['warnings'])} warnings" for c, x in r.items()) +
                f", {first_run(e)['errors']} errors, "
                f"{sum(x['seconds'] for x in r.values()):.0f} s", flush=True)
    entries.sort(key=lambda e: (e["repo"], e["path"]))
    projects = whole_project_summary(repos, entries) if args.whole else []
    for repo in repos:
        repo.pop("index", None)
    with open(os.path.join(args.out, "report.json"), "w") as f:
        json.dump({"repos": repos, "files": entries, "projects": projects}, f, indent=1)
    return summarize(entries, read_labels(args.labels), args.out, args.checks,
                     args.configs)


def whole_project_summary(repos, entries):
    """--whole: per project, what its index holds, the files linted and
    parsed, and the operators whose kernels no linted file let the checks
    see, by cause."""
    rows = []
    print("\nprojects linted whole (operators, kernels, fakes from the project index):")
    for repo in repos:
        if "root" not in repo:
            continue
        mine = [e for e in entries if e["repo"] == repo["name"]]
        linted = {os.path.realpath(os.path.join(repo["root"], e["path"])) for e in mine}
        unparsed = {os.path.realpath(os.path.join(repo["root"], e["path"]))
                    for e in mine if first_run(e)["errors"]}
        summary = INDEX.project_index(repo.get("index"), linted, unparsed) or {}
        row = {"repo": repo["name"], "files": len(mine), "did_not_parse": len(unparsed),
               "warnings": sum(len(x["warnings"]) for e in mine
                               for c, x in e["runs"].items() if c == "default"),
               "crashes": sum(1 for e in mine for x in e["runs"].values() if x["crash"]),
               "timeouts": sum(1 for e in mine for x in e["runs"].values() if x["timeout"]),
               **{k: summary.get(k) for k in ("operators", "kernels", "fakes",
                                              "kernels_by_key", "kernels_unseen")}}
        rows.append(row)
        unseen = "; ".join(f"{n} {cause}" for cause, n in
                           (row["kernels_unseen"] or {}).items()) or "none"
        print(f"  {repo['name']}: {row['files']} files ({row['did_not_parse']} did not "
              f"parse), {row['operators']} operators, {row['kernels']} C++ kernels, "
              f"{row['fakes']} fakes; operators with no kernel seen: {unseen}")
    return rows


if __name__ == "__main__":
    sys.exit(main())
