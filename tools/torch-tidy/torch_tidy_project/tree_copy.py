"""CMake's configure runs on a copy of the project's tree, so that what the
project's own CMake code writes (configure_file, file(WRITE), codegen run by
execute_process) lands in the copy, never in the tree: the CMake source
folder is copied file by file into .torch-tidy/configure/tree/<its absolute
path> (files over BIG are linked, as are build trees, git submodules and
.git), and each
folder above it up to / holds links to its other entries, so that `..` paths
read the tree (fbgemm_gpu's CMake includes ../cmake/modules). The compile
database CMake writes names the copy; map_entries names the tree's own files
instead, and keeps in the copy only what the configure made (its generated
sources and headers). Where a folder of the copy holds made files, the
include path names the tree's folder followed by that folder's view in
<copy>.made, which holds links to the made files alone: a header of the
tree is never reachable through the copy as well (two spellings of one
header: redefinitions, deepmd-kit's DeviceFunctor)."""
import json
import os
import shlex
import shutil

from .common import SCRATCH

BIG = 8 << 20
INCLUDE_FLAGS = ("-I", "-isystem", "-iquote", "-idirafter")


def top_of(source, project):
    """The folder whose files a write through `..` may reach and torch-tidy
    looks at afterwards: the repository holding source (its .git), else the
    project folder when source lies below it, else source."""
    d = os.path.abspath(source)
    while True:
        if os.path.lexists(os.path.join(d, ".git")):
            return d
        up = os.path.dirname(d)
        if up == d:
            break
        d = up
    project = os.path.abspath(project)
    if (os.path.abspath(source) + os.sep).startswith(project + os.sep):
        return project
    return os.path.abspath(source)


class Mirror:
    """A copy of source below dest (at dest/<source's absolute path>), with
    the paths to map it back."""

    def __init__(self, source, dest):
        self.copy_top = os.path.abspath(dest)
        # Links to the files the configure made, alone, at their real paths.
        self.made_top = self.copy_top + ".made"
        self.real_source = os.path.abspath(source)
        self.source = self.copy_top + self.real_source
        self.unread = []      # files of the tree that could not be copied
        self.made = set()     # files the configure made in the copy
        self.changed = []     # tree files the configure rewrote in its copy
        self.made_dirs = set()
        self.copied = self.size = 0  # files copied, their bytes

    def build(self):
        """Makes the copy afresh."""
        shutil.rmtree(self.copy_top, ignore_errors=True)
        real, copy = os.sep, self.copy_top
        for part in self.real_source.split(os.sep)[1:]:
            os.makedirs(copy, exist_ok=True)
            for name in _names(real):
                if name != part and name != SCRATCH:
                    os.symlink(os.path.join(real, name),
                               os.path.join(copy, name))
            real, copy = os.path.join(real, part), os.path.join(copy, part)
        self._copy(real, copy)
        return self

    def _copy(self, src, dst):
        os.makedirs(dst, exist_ok=True)
        try:
            entries = list(os.scandir(src))
        except OSError:
            self.unread.append(src)
            return
        for e in entries:
            if e.name == SCRATCH:
                continue
            to = os.path.join(dst, e.name)
            try:
                if e.is_symlink():
                    os.symlink(os.readlink(e.path), to)
                elif e.is_dir():
                    # .git, a build tree, a git submodule (third-party
                    # code, often most of the tree's bytes): linked.
                    if e.name == ".git" or any(os.path.lexists(
                            os.path.join(e.path, x))
                            for x in ("CMakeCache.txt", ".git")):
                        os.symlink(e.path, to)
                    else:
                        self._copy(e.path, to)
                elif e.is_file():
                    if e.stat().st_size > BIG:
                        os.symlink(e.path, to)
                    else:
                        shutil.copy2(e.path, to)
                        self.copied += 1
                        self.size += e.stat().st_size
            except OSError:
                self.unread.append(e.path)

    def cwd(self):
        """Where the configure runs: the copy's counterpart of the current
        folder where that is the source's folder, one below it or above it
        (a command CMake runs without WORKING_DIRECTORY writes there:
        fbgemm_gpu's code generators), else the copy of the source."""
        here = os.path.realpath(os.getcwd())
        source = os.path.realpath(self.real_source)
        if here == source or here.startswith(source + os.sep) or \
                source.startswith(here + os.sep):
            where = os.path.normpath(os.path.join(
                self.source, os.path.relpath(here, source)))
        else:
            where = self.source
        return where if os.path.isdir(where) else self.source

    def settle(self):
        """After the configure: what it made and rewrote in the copy."""
        self.made, self.changed = set(), []
        for d, dirs, files in os.walk(self.source):
            real_d = self.real(d)
            for f in files:
                p = os.path.join(d, f)
                if os.path.islink(p):
                    continue
                r = os.path.join(real_d, f)
                if not os.path.lexists(r):
                    self.made.add(p)
                    continue
                try:
                    a, b = os.stat(p), os.stat(r)
                except OSError:
                    continue
                if a.st_size != b.st_size or int(a.st_mtime) != int(
                        b.st_mtime):
                    self.changed.append(r)
        # The made files alone, linked at their real paths below made_top.
        shutil.rmtree(self.made_top, ignore_errors=True)
        for p in self.made:
            view = self.made_view(p)
            try:
                os.makedirs(os.path.dirname(view), exist_ok=True)
                os.symlink(p, view)
            except OSError:
                pass
        # A made header may be included by a path below an include folder
        # ("gen/ops.h"): each folder above it, up to the source's, counts.
        self.made_dirs = set()
        for p in self.made:
            d = os.path.dirname(p)
            while self.inside(d) and d not in self.made_dirs:
                self.made_dirs.add(d)
                if d == self.source:
                    break
                d = os.path.dirname(d)
        self.changed.sort()
        return self

    def inside(self, path):
        return path == self.copy_top or path.startswith(self.copy_top +
                                                        os.sep)

    def made_view(self, path):
        """The counterpart below made_top of a path of the copy: the folder
        that holds links to the files the configure made there, alone."""
        return self.made_top + self.real(path)

    def real(self, path):
        """path's counterpart in the tree (whether or not it is there)."""
        return os.path.normpath(os.sep + os.path.relpath(path, self.copy_top))

    def to_real(self, path):
        """The tree's path for a path of the copy, where the tree has it
        and the configure did not make it; else path."""
        p = os.path.normpath(path)
        if not self.inside(p) or p in self.made:
            return path
        r = self.real(p)
        return r if os.path.lexists(r) else path

    def text(self, text):
        """text with the copy's paths named as the tree's."""
        return text.replace(self.copy_top + os.sep, os.sep)

    def _token(self, token):
        i = token.find(self.copy_top)
        if i < 0:
            return token
        return token[:i] + self.to_real(token[i:])

    def map_entries(self, entries):
        """The database's entries naming the tree's files: an include
        folder of the copy becomes the tree's, followed by the copy's where
        the configure made files in it; a source's own folder of the copy
        is added (-iquote) where the configure made files beside it."""
        out = []
        for e in entries:
            if self.copy_top not in json.dumps(e):
                out.append(e)
                continue
            e = dict(e)
            command = "arguments" not in e
            args = shlex.split(e.get("command", "")) if command else \
                list(e["arguments"])
            mapped = []
            i = 0
            while i < len(args):
                a = args[i]
                if a in INCLUDE_FLAGS and i + 1 < len(args):
                    mapped += self._include(a, args[i + 1], separate=True)
                    i += 2
                    continue
                flag = next((f for f in INCLUDE_FLAGS if a.startswith(f) and
                             a[len(f):].startswith(self.copy_top)), None)
                if flag:
                    mapped += self._include(flag, a[len(flag):], False)
                else:
                    mapped.append(self._token(a))
                i += 1
            path = e["file"] if os.path.isabs(e["file"]) else os.path.join(
                e.get("directory", ""), e["file"])
            own = os.path.dirname(os.path.normpath(path))
            e["file"] = self._token(e["file"])
            if own in self.made_dirs and e["file"] != path and mapped:
                mapped[1:1] = ["-iquote", self.made_view(own)]
            if command:
                e["command"] = shlex.join(mapped)
            else:
                e["arguments"] = mapped
            if "output" in e:
                e["output"] = self._token(e["output"])
            out.append(e)
        return out

    def _include(self, flag, path, separate):
        real = self.to_real(path)
        made = os.path.normpath(path) in self.made_dirs
        if real != path:  # the tree's folder, then what was made in it
            both = [real] + ([self.made_view(path)] if made else [])
        else:  # a folder only the configure made
            both = [self.made_view(path) if made else path]
        if separate:
            return [x for p in both for x in (flag, p)]
        return [flag + p for p in both]


def _names(folder):
    try:
        return sorted(os.listdir(folder))
    except OSError:
        return []
