"""What the project's own build code may do while torch-tidy records it
(setup.py, a build backend, CMake's configure): read the tree and .git,
never change them, never fetch. A `git` stand-in first on PATH answers the
commands that only read (rev-parse, describe, status, config --get, ...)
with the real git, on a copy of the index (a query may refresh it), and
refuses every other (submodule update, fetch,
checkout, config writes), and git's own network is switched off
(GIT_ALLOW_PROTOCOL names no protocol). The Python the recorder runs writes
below the project into a shadow folder instead (builtins.open, os.mkdir,
os.remove, os.rename, os.symlink, os.link and shutil.rmtree redirected;
reads of what it wrote, and os.chdir or a command's cwd into a folder it
made, redirected back; listings hold both; what it removed absent to it
since), so setup.py's
generated files stay out of the tree. (CMake's configure, which is not
Python, runs on a copy of the tree instead: tree_copy.)"""
import json
import os
import shlex
import shutil
import sys

from .common import read_text

# git subcommands that only read the repository. `branch`, `tag`, `config`,
# `remote` and `submodule` read only in the forms READ_FORMS lets through.
READ_ONLY = {
    "rev-parse", "describe", "log", "show", "status", "ls-files", "ls-tree",
    "diff", "rev-list", "cat-file", "name-rev", "merge-base", "for-each-ref",
    "show-ref", "shortlog", "blame", "grep", "version", "help", "var",
    "check-ignore", "symbolic-ref", "--version", "--help", "--exec-path",
    "branch", "tag", "config", "remote", "submodule",
}

GIT_STANDIN = r'''
import json, os, sys
args = sys.argv[1:]
real = os.environ.get("TORCH_TIDY_REAL_GIT", "")
i = 0
# git's own options before the subcommand.
while i < len(args) and args[i].startswith("-") and args[i] not in (
        "--version", "--help", "--exec-path"):
    i += 2 if args[i] in ("-C", "-c", "--git-dir", "--work-tree",
                          "--namespace") else 1
sub, rest = (args[i] if i < len(args) else ""), args[i + 1:]
flags = [a for a in rest if a.startswith("-")]
words = [a for a in rest if not a.startswith("-")]
ok = sub in READ_ONLY
if sub == "branch":
    ok = not words or any(f in ("--list", "-l", "--contains", "--merged")
                          for f in flags)
    ok = ok and not any(f in ("-d", "-D", "-m", "-M", "-c", "-C", "-f",
                              "--delete", "--move", "--copy", "--force",
                              "--set-upstream-to", "-u", "--unset-upstream",
                              "--edit-description") for f in flags)
elif sub == "tag":
    ok = not words or any(f in ("-l", "--list", "--contains", "--points-at")
                          for f in flags)
    ok = ok and not any(f in ("-d", "--delete", "-a", "-s", "-f", "-m", "-F")
                        for f in flags)
elif sub == "config":
    ok = any(f in ("--get", "--get-all", "--get-regexp", "--list", "-l",
                   "--get-urlmatch", "--show-origin", "--name-only")
             for f in flags) or (len(words) == 1 and not flags)
elif sub == "remote":
    ok = not words or words[0] == "get-url" or (words[0] == "show" and
                                                "-n" in flags)
elif sub == "submodule":
    ok = not words or words[0] in ("status", "summary")
elif sub == "symbolic-ref":
    ok = len(words) <= 1
if ok and real:
    # A query may still rewrite the index (`describe --dirty` refreshes its
    # stat data whatever GIT_OPTIONAL_LOCKS says): it gets a copy of it.
    import shutil, subprocess
    index = subprocess.run(
        [real] + args[:i] + ["rev-parse", "--path-format=absolute",
                             "--git-path", "index"],
        stdin=subprocess.DEVNULL, capture_output=True, text=True).stdout.strip()
    if not os.path.isfile(index):
        os.execv(real, [real] + args)
    copy = os.path.join(os.path.dirname(os.environ["TORCH_TIDY_GIT_RECORD"]),
                        f"git-index-{os.getpid()}")
    shutil.copyfile(index, copy)
    try:
        code = subprocess.run([real] + args,
                              env=dict(os.environ, GIT_INDEX_FILE=copy)).returncode
    finally:
        for leftover in (copy, copy + ".lock"):
            if os.path.exists(leftover):
                os.remove(leftover)
    sys.exit(code)
with open(os.environ["TORCH_TIDY_GIT_RECORD"], "a") as f:
    f.write(json.dumps({"cwd": os.getcwd(), "args": args}) + "\n")
sys.exit("torch-tidy: `git " + " ".join(args) + "` refused: the project's "
         "build runs under torch-tidy without changing its tree or .git, "
         "and without fetching")
'''

# Run first in the recorder's Python: writes below the project go to the
# shadow folder (request["shadow"]); reads of what was written read it back.
DRIVER_SANDBOX = r'''
import builtins, io, shutil, subprocess
_shadow = request["shadow"]
_keep = (os.path.join(project, ".torch-tidy"),)
_real_open, _real_mkdir = builtins.open, os.mkdir
_real_remove, _real_rename = os.remove, os.rename
_real_replace, _real_rmtree = os.replace, shutil.rmtree
_real_rmdir, _real_symlink = os.rmdir, os.symlink
_lexists, _islink = os.path.lexists, os.path.islink
sandbox_writes = []
# What the build removed from the tree (it stays there): absent to it since,
# and everything below it, until it writes there again (into the shadow).
_removed = set()
def _inside(path):
    try:
        full = os.path.abspath(os.fspath(path))
    except TypeError:
        return None
    if not full.startswith(project + os.sep) or full.startswith(_keep):
        return None
    return full
def _shadow_of(full):
    return os.path.join(_shadow, os.path.relpath(full, project))
def _gone(full):
    p = full
    while p.startswith(project + os.sep):
        if p in _removed:
            return True
        p = os.path.dirname(p)
    return False
def _for_reading(path):
    full = _inside(path)
    if full is None:
        return path
    shadow = _shadow_of(full)
    return shadow if _lexists(shadow) or _gone(full) else path
def _for_writing(path, keep_content=False, record=True):
    full = _inside(path)
    if full is None:
        return path
    shadow = _shadow_of(full)
    os.makedirs(os.path.dirname(shadow), exist_ok=True)
    if keep_content and not _lexists(shadow) and os.path.isfile(full):
        shutil.copy2(full, shadow)
    name = os.path.relpath(full, project)
    if record and name not in sandbox_writes:
        sandbox_writes.append(name)
    return shadow
def _open(file, mode="r", *a, **kw):
    if isinstance(mode, str) and any(c in mode for c in "wxa+"):
        file = _for_writing(file, keep_content="a" in mode or "+" in mode)
    else:
        file = _for_reading(file)
    return _real_open(file, mode, *a, **kw)
def _relative_to_fd(kw, *names):
    # A path relative to a directory's descriptor (shutil.rmtree's and
    # tempfile's own removals pass dir_fd) is not the working folder's:
    # where it leads is not known here, so it is left alone.
    return any(kw.get(n) is not None for n in names)
def _mkdir(path, *a, **kw):
    if _relative_to_fd(kw, "dir_fd"):
        return _real_mkdir(path, *a, **kw)
    return _real_mkdir(_for_writing(path, record=False), *a, **kw) \
        if _inside(path) else _real_mkdir(path, *a, **kw)
def _removing(real):
    # A removal below the project removes the shadow's copy, if any; the
    # tree's file stays, absent to the build from then on.
    def remove(path, *a, **kw):
        if _relative_to_fd(kw, "dir_fd"):
            return real(path, *a, **kw)
        full = _inside(path)
        if full is None:
            return real(path, *a, **kw)
        if _lexists(_shadow_of(full)):
            real(_shadow_of(full), *a, **kw)
        if _lexists(full):
            _removed.add(full)
    return remove
def _symlink(src, dst, *a, **kw):
    # A link made below the project is made in the shadow (a relative
    # target made absolute, so that it leads where it would have).
    full = _inside(dst)
    if _relative_to_fd(kw, "dir_fd") or full is None:
        return _real_symlink(src, dst, *a, **kw)
    if _lexists(_for_reading(dst)):
        raise FileExistsError(17, "File exists", dst)
    src = os.fspath(src)
    if not os.path.isabs(src):
        src = os.path.join(os.path.dirname(full), src)
    return _real_symlink(src, _for_writing(dst), *a, **kw)
def _rename(src, dst, *a, **kw):
    if _relative_to_fd(kw, "src_dir_fd", "dst_dir_fd") or (
            _inside(src) is None and _inside(dst) is None):
        return _real_rename(src, dst, *a, **kw)
    s = _for_reading(src)
    d = _for_writing(dst)
    if _inside(src) is None or s != src:
        return _real_rename(s, d, *a, **kw)
    shutil.copy2(s, d)  # the tree's file stays; its new name is the shadow's
    _removed.add(_inside(src))  # and its old name is gone to the build
def _replace(src, dst, *a, **kw):
    if _relative_to_fd(kw, "src_dir_fd", "dst_dir_fd") or (
            _inside(src) is None and _inside(dst) is None):
        return _real_replace(src, dst, *a, **kw)
    return _rename(src, dst)
builtins.open = io.open = _open
os.mkdir, os.rename, os.replace = _mkdir, _rename, _replace
os.remove = os.unlink = _removing(_real_remove)
os.rmdir, shutil.rmtree = _removing(_real_rmdir), _removing(_real_rmtree)
os.symlink = _symlink
# Into a folder it made (scikit-build's _cmake_test_compile, its
# _skbuild/.../cmake-build as a command's cwd): the shadow's.
_real_chdir = os.chdir
os.chdir = lambda p: _real_chdir(p if isinstance(p, int) else _for_reading(p))
_popen_init = subprocess.Popen.__init__
def _popen_in_shadow(self, args, *a, **kw):
    if kw.get("cwd") is not None and not isinstance(kw["cwd"], int):
        kw["cwd"] = _for_reading(kw["cwd"])
    return _popen_init(self, args, *a, **kw)
subprocess.Popen.__init__ = _popen_in_shadow
_exists, _isfile, _isdir = os.path.exists, os.path.isfile, os.path.isdir
os.path.exists = lambda p: _exists(_for_reading(p))
os.path.lexists = lambda p: _lexists(_for_reading(p))
os.path.isfile = lambda p: _isfile(_for_reading(p))
os.path.islink = lambda p: _islink(_for_reading(p))
os.path.isdir = lambda p: _isdir(_for_reading(p)) or (
    _isdir(p) and not (_inside(p) and _gone(_inside(p))))
# A listing below the project holds the tree's entries and what the build
# wrote (the shadow's first), less what it removed: a source it generates
# and then globs (glob, os.walk and shutil use os.scandir) is found.
_real_listdir, _real_scandir = os.listdir, os.scandir
def _merged(path):
    """[(name, listing folder)] or None where path is not the project's."""
    if isinstance(path, (int, bytes)):
        return None
    full = _inside(path)
    if full is None:
        return None
    shadow, out, names = _shadow_of(full), [], set()
    if _isdir(shadow):
        for n in _real_listdir(shadow):
            out.append((n, shadow))
            names.add(n)
    if _isdir(full) and not _gone(full):
        for n in _real_listdir(full):
            if n not in names and not _gone(os.path.join(full, n)):
                out.append((n, full))
    return out if out or _isdir(shadow) or (
        _isdir(full) and not _gone(full)) else None
def _listdir(path="."):
    m = _merged(path)
    return _real_listdir(path) if m is None else [n for n, _ in m]
class _Listing:
    def __init__(self, entries):
        self._it = iter(entries)
    def __iter__(self):
        return self
    def __next__(self):
        return next(self._it)
    def __enter__(self):
        return self
    def __exit__(self, *a):
        return False
    def close(self):
        pass
def _scandir(path="."):
    m = _merged(path)
    if m is None:
        return _real_scandir(path)
    want, entries = {(n, d) for n, d in m}, []
    for d in dict.fromkeys(d for _, d in m):
        with _real_scandir(d) as it:
            entries += [e for e in it if (e.name, d) in want]
    return _Listing(entries)
os.listdir, os.scandir = _listdir, _scandir
# A hard link made below the project is a copy in the shadow (a link to the
# tree's file would let a later write through it change the tree).
_real_link = os.link
def _link(src, dst, *a, **kw):
    if _relative_to_fd(kw, "src_dir_fd", "dst_dir_fd") or _inside(dst) is None:
        return _real_link(src, dst, *a, **kw)
    if _lexists(_for_reading(dst)):
        raise FileExistsError(17, "File exists", dst)
    shutil.copy2(_for_reading(src), _for_writing(dst))
os.link = _link
'''


def prepare(scratch):
    """The git stand-in in scratch/git-bin (first on PATH) and the file it
    records refusals in (emptied)."""
    bindir = os.path.join(scratch, "git-bin")
    os.makedirs(bindir, exist_ok=True)
    script = os.path.join(scratch, "git-stand-in.py")
    with open(script, "w") as f:
        f.write(f"READ_ONLY = {sorted(READ_ONLY)!r}\n" + GIT_STANDIN)
    path = os.path.join(bindir, "git")
    with open(path, "w") as f:
        f.write(f"#!/bin/sh\nexec {shlex.quote(sys.executable)} "
                f"{shlex.quote(script)} \"$@\"\n")
    os.chmod(path, 0o755)
    record = os.path.join(scratch, "git-refused.jsonl")
    if os.path.exists(record):
        os.remove(record)
    return bindir, record


def environment(env, bindir, record):
    """env with the git stand-in first on PATH, git's network switched off,
    no optional locks (`git status` refreshes no index) and no prompt."""
    out = dict(env)
    real = shutil.which("git", path=env.get("PATH", os.defpath)) or ""
    if os.path.dirname(real) == bindir:
        real = out.get("TORCH_TIDY_REAL_GIT", "")
    out["PATH"] = bindir + os.pathsep + env.get("PATH", "")
    out["TORCH_TIDY_REAL_GIT"] = real
    out["TORCH_TIDY_GIT_RECORD"] = record
    out["GIT_ALLOW_PROTOCOL"] = "torch-tidy-no-protocol"
    out["GIT_TERMINAL_PROMPT"] = "0"
    out["GIT_OPTIONAL_LOCKS"] = "0"
    return out


def refused(record):
    """The git commands the stand-in refused, as command lines."""
    out = []
    for line in read_text(record).splitlines():
        try:
            call = json.loads(line)
        except ValueError:
            continue
        text = "git " + " ".join(shlex.quote(a) for a in call["args"])
        if text not in out:
            out.append(text)
    return out
