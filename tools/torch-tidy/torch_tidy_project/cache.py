"""Incremental runs: each linted file's result kept under
ROOT/.torch-tidy/cache/, keyed by everything it depends on, and replayed
while none of it changed (docs/incremental.md).

A file's key has two parts.

  Known before linting it: the file's path, its compile command (the
  database entry), torch-tidy (its binary's content, and the LLVM libraries
  it loads by size and time), and the check configuration (--checks, the
  TORCH_TIDY_* environment but the list of the build's files, and every .clang-tidy from the file's folder up
  to the file system's root).

  Learnt while linting it: the files clang read (the main file and every
  header, from the dependency file clang writes with -Wp,-MD), each by its
  content; that no header of the same name appeared in an include folder
  searched before the one it was found in; and the facts of the project
  index the checks asked for (torch-tidy writes the operator and kernel
  function names it looked up to $TORCH_TIDY_INDEX_READS), each by what the
  index says of that name now: its schemas, kernels and fakes in every file,
  C++ and Python.

A result is replayed only when every part is the same; a file that did not
parse, crashed or timed out is never kept. The cache is versioned: a
corrupt or foreign one is ignored with one line and rebuilt."""
import gzip
import hashlib
import json
import os
import re
import shlex
import shutil
import subprocess

from .common import log, read_text, scratch_dir

FORMAT = "torch-tidy-project cache"
# Bump when what a key holds or how an entry is written changes.
VERSION = 2
# Compile commands (configurations) kept per file.
KEEP_COMMANDS = 4
# Include options whose folder is searched for headers, in search order.
INCLUDE_OPTIONS = ("-iquote", "-I", "-isystem", "-idirafter")
SYSTEM_DIRS = ["/usr/local/include", "/usr/include"]


def _mtime(path):
    try:
        return os.path.getmtime(path)
    except OSError:
        return 0


def _sha(data):
    return hashlib.sha256(data).hexdigest()


def _text_sha(text):
    return _sha(text.encode("utf-8", "surrogateescape"))


def file_digest(path):
    """The sha256 of a file's bytes, or None where it cannot be read."""
    h = hashlib.sha256()
    try:
        with open(path, "rb") as f:
            for block in iter(lambda: f.read(1 << 20), b""):
                h.update(block)
    except OSError:
        return None
    return h.hexdigest()


def depfile_paths(text, directory):
    """The files a Make dependency file lists (its target left out), made
    absolute against directory and real."""
    body = text.replace("\\\n", " ")
    _, _, deps = body.partition(": ")
    words, word, i = [], "", 0
    while i < len(deps):
        c = deps[i]
        if c == "\\" and i + 1 < len(deps) and deps[i + 1] in " #":
            word += deps[i + 1]
            i += 2
            continue
        if c.isspace():
            if word:
                words.append(word)
            word = ""
        else:
            word += c
        i += 1
    if word:
        words.append(word)
    return [os.path.realpath(os.path.join(directory, w)) for w in words]


def _argv(entry):
    if "arguments" in entry:
        return list(entry["arguments"])
    try:
        return shlex.split(entry.get("command", ""))
    except ValueError:
        return []


def two_sided_cuda(entry):
    """Whether an entry compiles CUDA for both host and device: clang then
    writes the dependency file twice, the device side's last, and a header
    only the host side reads would go unseen (such a file is not kept)."""
    argv = _argv(entry)
    cuda = entry.get("file", "").endswith(".cu") or any(
        a == "cuda" and i and argv[i - 1] == "-x" for i, a in enumerate(argv))
    return cuda and not any(a in ("--cuda-host-only", "--cuda-device-only")
                            for a in argv)


def search_dirs(entry):
    """The include folders a database entry's command names, in the order
    clang searches them (quoted-only folders first), made real."""
    argv = _argv(entry)
    found = {o: [] for o in INCLUDE_OPTIONS}
    i = 0
    while i < len(argv):
        a = argv[i]
        for o in INCLUDE_OPTIONS:
            if a == o and i + 1 < len(argv):
                found[o].append(argv[i + 1])
                i += 1
                break
            if a.startswith(o) and len(a) > len(o) and (
                    o != "-I" or not a.startswith("-Iquote")):
                found[o].append(a[len(o):])
                break
        i += 1
    out = []
    # The system's folders, searched after -isystem and before -idirafter
    # (clang's own and the C++ library's are not named here).
    found["-isystem"] += SYSTEM_DIRS
    for o in INCLUDE_OPTIONS:
        for d in found[o]:
            d = os.path.realpath(os.path.join(entry["directory"], d))
            if d not in out:
                out.append(d)
    return out


def shadow_probes(deps, dirs):
    """The paths that must not exist for deps to resolve as they did: for
    a header found below a searched folder, the same name below each folder
    searched before it."""
    probes = set()
    for dep in deps:
        for i, d in enumerate(dirs):
            if dep.startswith(d + os.sep):
                name = dep[len(d) + 1:]
                probes.update(os.path.join(e, name) for e in dirs[:i])
                break
    # A file clang read is checked by its content, wherever it lies (a
    # header may include another of the same name by its path).
    return probes - set(deps)


class IndexFacts:
    """What the project index says of each name a file's checks can ask
    for, as a digest: 'operator NAME' (every schema and every kernel or fake
    registration of an operator of that name, in any namespace), 'function
    NAME' (every registration of a kernel function of that name),
    'unnamed-fakes ' (the fakes whose operator the index could not name)."""

    def __init__(self, index_json):
        groups = {}

        def add(key, entry):
            groups.setdefault(key, []).append(
                json.dumps(entry, sort_keys=True))

        for s in (index_json or {}).get("operators", []):
            m = re.match(r"\s*(?:\w+::)?(\w+)", s.get("schema", ""))
            add(f"operator {m.group(1) if m else ''}", s)
        for k in (index_json or {}).get("kernels", []):
            add(f"operator {k.get('operator', '')}", k)
            if k.get("function"):
                add(f"function {k['function'].split('::')[-1]}", k)
            if k.get("key") == "UnnamedFake":
                add("unnamed-fakes ", k)
        self.digests = {key: _text_sha("\n".join(sorted(v)))
                        for key, v in groups.items()}

    KINDS = ("operator ", "function ", "unnamed-fakes ")

    def digest(self, key):
        """A name's facts as a digest ('' where the index has none); None
        for a read this tool does not know (never trusted)."""
        if not key.startswith(self.KINDS):
            return None
        return self.digests.get(key, "")


class Cache:
    """The cache of one project root. Entries live in
    ROOT/.torch-tidy/cache/files/, one gzipped JSON per linted file."""

    def __init__(self, root):
        self.root = os.path.realpath(root)
        self.dir = scratch_dir(root, "cache")
        self.files = os.path.join(self.dir, "files")
        self._digests = {}
        self._exists = {}
        self._stats = {}
        self._open()

    # The cache's own version stamp, and the digests of files outside the
    # project by size and modification time (the LLVM libraries, torch's
    # headers: read once, not at every run).
    def _open(self):
        meta = os.path.join(self.dir, "meta.json")
        doc = None
        if os.path.exists(meta):
            try:
                with open(meta) as f:
                    doc = json.load(f)
            except (OSError, ValueError):
                doc = "corrupt"
            ok = isinstance(doc, dict) and doc.get("format") == FORMAT \
                and doc.get("version") == VERSION
            if not ok:
                what = ("not readable" if doc == "corrupt" else
                        f"version {doc.get('version')!r}, this tool writes "
                        f"{VERSION}" if isinstance(doc, dict) and
                        doc.get("format") == FORMAT else "not this tool's")
                log(f"ignoring the cache in {self.dir} ({what}): every "
                    f"file is linted and the cache made anew")
                shutil.rmtree(self.files, ignore_errors=True)
                doc = None
        if doc is None:
            os.makedirs(self.dir, exist_ok=True)
            with open(meta, "w") as f:
                json.dump({"format": FORMAT, "version": VERSION,
                           "stats": {}}, f)
            self._stats = {}
        else:
            stats = doc.get("stats")
            self._stats = stats if isinstance(stats, dict) else {}
        os.makedirs(self.files, exist_ok=True)
        self._corrupt = 0

    def save_meta(self):
        meta = os.path.join(self.dir, "meta.json")
        tmp = meta + ".tmp"
        with open(tmp, "w") as f:
            json.dump({"format": FORMAT, "version": VERSION,
                       "stats": self._stats}, f)
        os.replace(tmp, meta)

    def digest(self, path):
        """A file's content digest (memoised per run). Files below the
        project root are always read; others are read again only when
        their size or modification time changed."""
        if path in self._digests:
            return self._digests[path]
        try:
            st = os.stat(path)
        except OSError:
            self._digests[path] = None
            return None
        inside = path.startswith(self.root + os.sep)
        sig = [st.st_size, st.st_mtime_ns, st.st_ino]
        known = self._stats.get(path)
        if not inside and isinstance(known, list) and len(known) == 4 and \
                known[:3] == sig:
            d = known[3]
        else:
            d = file_digest(path)
            if not inside and d:
                self._stats[path] = sig + [d]
        self._digests[path] = d
        return d

    def exists(self, path):
        if path not in self._exists:
            self._exists[path] = os.path.lexists(path)
        return self._exists[path]

    def _entry_path(self, file, command):
        """A file's entry for one compile command: a file linted under
        several configurations (a CPU and a CUDA build, switched by --env)
        keeps one entry for each, the KEEP_COMMANDS latest."""
        return os.path.join(self.files,
                            _text_sha(os.path.realpath(file))[:32] + "-" +
                            _text_sha(command)[:16] + ".json.gz")

    def _entries_of(self, file):
        head = _text_sha(os.path.realpath(file))[:32] + "-"
        try:
            names = os.listdir(self.files)
        except OSError:
            return []
        return [os.path.join(self.files, n) for n in names
                if n.startswith(head) and n.endswith(".json.gz")]

    def lookup(self, file, key, entry, facts):
        """(stored result dict, None) when the file's result can be
        replayed; else (None, why it cannot: 'new', or the first part of its
        key that changed)."""
        path = self._entry_path(file, key["command"])
        if not os.path.exists(path):
            return None, "command" if self._entries_of(file) else "new"
        try:
            with gzip.open(path, "rt", encoding="utf-8") as f:
                doc = json.load(f)
            if doc.get("version") != VERSION:
                raise ValueError("an entry of another version")
            stored = doc["key"]
            for part in ("file", "command", "tool", "config"):
                if stored.get(part) != key[part]:
                    return None, part
            dirs = doc["search_dirs"]
            if dirs != search_dirs(entry):
                return None, "command"
            deps = doc["deps"]
            for p, d in deps:
                if self.digest(p) != d:
                    return None, "header" if p != stored["file"] else "file"
            for p in shadow_probes([p for p, _ in deps], dirs):
                if self.exists(p):
                    return None, "header"
            for read, d in doc["reads"].items():
                now = facts.digest(read)
                if now is None or now != d:
                    return None, "index"
            result = doc["result"]
            if not isinstance(result.get("output"), str):
                raise ValueError("no output")
            return dict(result, seconds=doc.get("seconds")), None
        except (OSError, ValueError, KeyError, TypeError, AttributeError,
                EOFError, gzip.BadGzipFile):
            self._corrupt += 1
            if self._corrupt == 1:
                log(f"ignoring a corrupt cache entry ({path}): its file is "
                    f"linted again")
            return None, "corrupt"

    def store(self, file, key, entry, depfile, readsfile, facts, result,
              seconds):
        """Keeps a linted file's result; returns whether it was kept (a
        result without its dependency or reads file, or with a read this
        tool cannot check, is not)."""
        if not (depfile and os.path.exists(depfile) and readsfile and
                os.path.exists(readsfile)) or two_sided_cuda(entry):
            return False
        deps = depfile_paths(read_text(depfile), entry["directory"])
        if not deps:
            return False
        real = os.path.realpath(file)
        if real not in deps:
            deps.insert(0, real)
        pairs = []
        for p in dict.fromkeys(deps):
            d = self.digest(p)
            if d is None:
                return False
            pairs.append([p, d])
        reads = {}
        for line in read_text(readsfile).splitlines():
            if not line:
                continue
            # The line is "KIND NAME"; unnamed-fakes has an empty name.
            key_text = line if " " in line else line + " "
            d = facts.digest(key_text)
            if d is None:
                return False
            reads[key_text] = d
        doc = {"version": VERSION, "key": key, "search_dirs":
               search_dirs(entry), "deps": pairs, "reads": reads,
               "result": result, "seconds": seconds}
        path = self._entry_path(file, key["command"])
        tmp = path + ".tmp"
        with gzip.open(tmp, "wt", encoding="utf-8") as f:
            json.dump(doc, f)
        os.replace(tmp, path)
        # The file's other configurations: the latest KEEP_COMMANDS kept.
        others = sorted(self._entries_of(file), key=_mtime, reverse=True)
        for old in others[KEEP_COMMANDS:]:
            try:
                os.remove(old)
            except OSError:
                pass
        return True


def tool_digest(tidy, cache):
    """torch-tidy's identity: its binary's content and the shared libraries
    it loads from outside the system's folders (LLVM's), each by content
    (read again only when size or time changed)."""
    parts = [cache.digest(os.path.realpath(tidy)) or "?"]
    libs = os.path.join(os.path.dirname(os.path.realpath(tidy)), "..", "lib")
    for lib in sorted(_loaded_libraries(tidy)) + sorted(
            os.path.join(libs, f) for f in (os.listdir(libs)
                                            if os.path.isdir(libs) else [])
            if f.endswith(".so")):
        parts.append(f"{lib}={cache.digest(os.path.realpath(lib))}")
    return _text_sha("\n".join(parts))


def _loaded_libraries(tidy):
    try:
        out = subprocess.run(["ldd", tidy], capture_output=True, text=True,
                             timeout=60).stdout
    except (OSError, subprocess.TimeoutExpired):
        return []
    found = []
    for m in re.finditer(r"=>\s*(\S+)", out):
        p = m.group(1)
        if not p.startswith(("/lib/", "/lib64/", "/usr/lib/x86_64",
                             "/usr/lib/aarch64", "/usr/lib64/")):
            found.append(p)
    return found


def config_digest(file, checks, env):
    """The check configuration a file is linted with: --checks, the
    TORCH_TIDY_* environment, and every .clang-tidy from the file's folder
    up to the file system's root (clang-tidy reads the nearest, which may
    inherit its parents')."""
    parts = [f"checks={checks}"]
    parts += sorted(f"{k}={v}" for k, v in env.items()
                    if k.startswith("TORCH_TIDY_") and
                    k not in ("TORCH_TIDY_INDEX_READS",
                              "TORCH_TIDY_PROJECT_FILES"))
    d = os.path.dirname(os.path.abspath(file))
    while True:
        c = os.path.join(d, ".clang-tidy")
        if os.path.isfile(c):
            parts.append(f"{c}={file_digest(c)}")
        parent = os.path.dirname(d)
        if parent == d:
            break
        d = parent
    return _text_sha("\n".join(parts))


def command_digest(entry):
    """A database entry's command, folder and file."""
    return _text_sha(json.dumps({k: entry.get(k) for k in
                                 ("directory", "file", "arguments",
                                  "command")}, sort_keys=True))
