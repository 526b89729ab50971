"""torch-tidy over the files, N at a time, and what it said read back:
each finding with its message, its notes and their locations, and its fix
(from --export-fixes, read by torch-tidy-sarif with LLVM's own YAML
reader)."""
import json
import os
import re
import shutil
import subprocess
import threading
import time
import urllib.parse
from concurrent.futures import ThreadPoolExecutor

from .common import ProjectError, rel

DIAGNOSTIC = re.compile(r"^(.*?):(\d+):(\d+): (warning|error|note|fatal "
                        r"error): (.*?)(?: \[([\w.,-]+)\])?$")
NOT_FOUND = re.compile(r"^'([^']+)' file not found")


def find_torch_tidy(explicit, here):
    """--torch-tidy, else the one next to the script (an installed bin/, or
    a build tree's bin/), else the one on PATH, else a build of the source
    tree the script is in."""
    if explicit:
        candidates = [explicit]
    else:
        tree = os.path.join(here, "..", "..", "build")
        candidates = [os.path.join(here, "torch-tidy"),
                      shutil.which("torch-tidy"),
                      os.path.join(tree, "bin", "torch-tidy"),
                      os.path.join(tree, "demo", "bin", "torch-tidy")]
    for c in candidates:
        if c and os.path.isfile(c) and os.access(c, os.X_OK):
            return os.path.realpath(c)
    raise ProjectError("no torch-tidy found (next to this script, on PATH, "
                       "or in this source tree's build/bin or "
                       "build/demo/bin); pass --torch-tidy PATH")


def _ask(tidy, *args):
    """What torch-tidy prints for a quick query ('' where it cannot run)."""
    try:
        return subprocess.run([tidy, *args], capture_output=True, text=True,
                              errors="replace", timeout=120).stdout
    except (OSError, subprocess.TimeoutExpired):
        return ""


def tidy_version(tidy):
    """(torch-tidy's version or None, LLVM's version or None)."""
    out = _ask(tidy, "--version")
    own = re.search(r"torch-tidy version (\S+)", out)
    llvm = re.search(r"LLVM version (\S+)", out)
    return own and own.group(1), llvm and llvm.group(1)


def has_torch_checks(tidy):
    return "torch-compile-requires-grad-propagation" in _ask(
        tidy, "--list-checks", "-checks=-*,torch-*")


def find_sarif(tidy):
    """torch-tidy-sarif beside torch-tidy, else on PATH, else None."""
    beside = os.path.join(os.path.dirname(tidy), "torch-tidy-sarif")
    if os.path.isfile(beside) and os.access(beside, os.X_OK):
        return beside
    return shutil.which("torch-tidy-sarif")


class FileResult:
    def __init__(self, path, code, output, fixes, seconds=None):
        self.path, self.code, self.output, self.fixes = \
            path, code, output, fixes
        self.seconds = seconds
        # With record: clang's dependency file and the index names the
        # checks read (cache.py keys the result by them).
        self.depfile = self.readsfile = None
        # The real paths it read (its dependency file's, or the cache's),
        # where known: headers of the project's a kernel may be in.
        self.deps = None
        # What it registers as the compiler saw it ($TORCH_TIDY_HARVEST:
        # {"file", "registrations"}), None where no check wrote it.
        self.harvest = None
        # (.clang-tidy path, error) where the project's configuration for
        # this file could not be read, and the checks ran without it.
        self.config_problem = None


# "<path>/.clang-tidy:3:1: error: expected a sequence or map", and
# "Error parsing <path>: Invalid argument" after it.
CONFIG_ERROR = re.compile(r"^(.*?\.clang-tidy):(\d+):(\d+): error: (.*)$")
CONFIG_PARSING = re.compile(r"^Error parsing (.*?\.clang-tidy): (.*)$")


def unreadable_configs(tidy, files):
    """{directory: (config path, error)} for the directories of `files`
    whose .clang-tidy (the one clang-tidy reads there, or a parent it
    inherits) the bundled clang-tidy cannot read. Asked of clang-tidy
    itself (--dump-config for a file of the directory), once a directory."""
    out = {}
    for d in sorted({os.path.dirname(os.path.abspath(f)) for f in files}):
        try:
            res = subprocess.run(
                [tidy, "--dump-config",
                 os.path.join(d, "torch-tidy-config-probe.cpp"), "--"],
                capture_output=True, text=True, errors="replace", timeout=60)
        except (OSError, subprocess.TimeoutExpired):
            continue
        for line in (res.stdout + res.stderr).splitlines():
            m = CONFIG_ERROR.match(line)
            if m:
                out[d] = (m.group(1), f"line {m.group(2)}, column "
                          f"{m.group(3)}: {m.group(4)}")
                break
            m = CONFIG_PARSING.match(line)
            if m:
                out[d] = (m.group(1), m.group(2))
                break
    return out


# A file whose lint takes longer than this is reported as not parsed.
FILE_TIMEOUT = 1800


# Folders below the root whose headers are not the project's (common.
# NOT_THE_PROJECTS, as a POSIX regular expression for clang-tidy).
FOREIGN_HEADERS = (r"(\.[^/]*|third[_-]?party|3rdparty|external|extern|"
                   r"vendor|build([-_.][^/]*)?|cmake-build[^/]*|tests?|"
                   r"benchmarks?|examples?|docs?)")


def _ere(text):
    """text as a literal in a POSIX extended regular expression."""
    return re.sub(r"([.^$|()\[\]{}*+?\\])", r"\\\1", text)


def header_filters(root):
    """clang-tidy's header filters for a project at root: the warnings in
    its own headers are shown (a kernel's body in csrc/kernels.h, a library
    block in a header a .cpp includes), those of the folders that are other
    projects' or its build's are not."""
    roots = "|".join(_ere(r) for r in sorted({os.path.abspath(root),
                                               os.path.realpath(root)}))
    # The folders below the root only: a root inside a build/ or tests/
    # folder keeps its headers.
    return [f"--header-filter=^({roots})/",
            f"--exclude-header-filter=^({roots})/([^/]*/)*"
            f"{FOREIGN_HEADERS}/"]


def lint(tidy, files, checks, db_dir, jobs, env, scratch, project,
         record=False, on_done=None):
    """{file: FileResult}; a progress line per file. A file that takes
    longer than FILE_TIMEOUT seconds gets code None. With record, clang
    writes each file's dependency file (-Wp,-MD) and torch-tidy the index
    names its checks read ($TORCH_TIDY_INDEX_READS), into scratch.
    on_done(result) is called for each file as it completes, one call at a
    time (the cache keeps it then: a killed run keeps what it finished)."""
    lock = threading.Lock()
    done_lock = threading.Lock()
    done = [0]
    os.makedirs(scratch, exist_ok=True)
    headers = header_filters(env.get("TORCH_TIDY_PROJECT_ROOT") or project)
    # A .clang-tidy the bundled clang-tidy cannot read would fail every file
    # under it as if it did not parse: those files are linted without it
    # (--config={}: the torch checks with their defaults), and the
    # configuration is reported once (configuration_problems()).
    unreadable = unreadable_configs(tidy, files) if files else {}

    def one(numbered):
        n, f = numbered
        fixes = os.path.join(scratch, f"{n}.yaml")
        depfile = os.path.join(scratch, f"{n}.d")
        reads = os.path.join(scratch, f"{n}.reads")
        harvest = os.path.join(scratch, f"{n}.harvest")
        for old in (fixes, depfile, reads, harvest):
            if os.path.exists(old):
                os.remove(old)
        problem = unreadable.get(os.path.dirname(os.path.abspath(f)))
        cmd = [tidy, f"-checks={checks}", "-p", db_dir, "--quiet",
               f"--export-fixes={fixes}"] + headers + \
            (["--config={}"] if problem else []) + [f]
        file_env = dict(env, TORCH_TIDY_HARVEST=harvest)
        if record:
            cmd[-1:-1] = [f"--extra-arg=-Wp,-MD,{depfile}"]
            file_env["TORCH_TIDY_INDEX_READS"] = reads
        start = time.time()
        try:
            res = subprocess.run(cmd, capture_output=True, text=True,
                                 errors="replace", env=file_env,
                                 timeout=FILE_TIMEOUT)
            code, out = res.returncode, res.stdout + res.stderr
        except subprocess.TimeoutExpired:
            code, out = None, ""
        with lock:
            done[0] += 1
            print(f"[{done[0]}/{len(files)}] {rel(f, project)}", flush=True)
        r = FileResult(f, code, out, fixes if os.path.exists(fixes) else None,
                       round(time.time() - start, 3))
        if record:
            r.depfile, r.readsfile = depfile, reads
        r.harvest = read_harvest(harvest)
        r.config_problem = problem
        if on_done:
            with done_lock:
                on_done(r)
        return r

    with ThreadPoolExecutor(max_workers=jobs) as pool:
        return {r.path: r for r in pool.map(one, enumerate(files))}


def configuration_problems(results, project):
    """[{"file", "error", "files"}]: each .clang-tidy the bundled clang-tidy
    could not read, once, with the number of files linted without it."""
    by_config = {}
    for r in results.values():
        problem = getattr(r, "config_problem", None)
        if problem:
            entry = by_config.setdefault(problem[0], {
                "file": rel(problem[0], project), "error": problem[1],
                "files": 0})
            entry["files"] += 1
    return [by_config[k] for k in sorted(by_config)]


def read_harvest(path):
    """What a file's lint wrote to $TORCH_TIDY_HARVEST (one line of JSON per
    translation unit; a run lints one), or None."""
    try:
        with open(path, encoding="utf-8") as f:
            lines = [l for l in f.read().splitlines() if l.strip()]
        docs = [json.loads(l) for l in lines]
    except (OSError, ValueError):
        return None
    if len(docs) != 1 or not isinstance(docs[0], dict) or \
            not isinstance(docs[0].get("registrations"), list):
        return None
    return docs[0]


def diagnostics(output):
    """The findings of torch-tidy's output, in order: dicts of check,
    level, file, line, column, message and notes (each file, line, column,
    message); compiler errors are left out (see errors())."""
    found = []
    for line in output.splitlines():
        m = DIAGNOSTIC.match(line)
        if not m:
            continue
        level, check = m.group(4), m.group(6)
        # WarningsAsErrors adds ",-warnings-as-errors" to the check's name.
        check = check and check.split(",")[0]
        loc = {"file": m.group(1), "line": int(m.group(2)),
               "column": int(m.group(3)), "message": m.group(5)}
        if level == "note":
            if found and found[-1] is not None:
                found[-1]["notes"].append(loc)
            continue
        if check and not check.startswith("clang-diagnostic"):
            found.append(dict(loc, check=check, level=level, notes=[]))
        else:
            found.append(None)  # a compiler diagnostic: its notes are not
    return [f for f in found if f is not None]


def errors(output):
    """The compiler errors of torch-tidy's output (messages)."""
    out = []
    for line in output.splitlines():
        m = DIAGNOSTIC.match(line)
        if m and m.group(4) in ("error", "fatal error") and \
                (not m.group(6) or m.group(6).startswith("clang-diagnostic")):
            out.append(m.group(5))
    return out


# Headers a parse commonly misses, and the Debian package that has them for
# clang ({llvm}: its major version).
HEADER_PACKAGES = {"omp.h": "libomp-{llvm}-dev", "Python.h": "python3-dev",
                   "zlib.h": "zlib1g-dev", "png.h": "libpng-dev",
                   "jpeglib.h": "libjpeg-dev"}


def parse_failure(result, llvm=None):
    """Why a file did not parse (one short line), or None when it did.
    llvm: torch-tidy's LLVM version, for the Debian package of a missing
    header that comes with clang."""
    if result.code is None:
        return f"torch-tidy did not finish in {FILE_TIMEOUT} s"
    errs = errors(result.output)
    if not errs and result.code >= 0:
        if result.code == 0 or diagnostics(result.output):
            return None
        # An exit status with nothing to show for it: a configuration torch-
        # tidy refused ("Error: no checks enabled."), not a parsed file.
        last = [l for l in result.output.splitlines() if l.strip()]
        return (f"torch-tidy exited {result.code}: " +
                (last[-1][:100] if last else "no output"))
    missing = [NOT_FOUND.match(e).group(1) for e in errs if NOT_FOUND.match(e)]
    if missing:
        package = HEADER_PACKAGES.get(os.path.basename(missing[0]))
        if package and "{llvm}" in package:
            package = package.format(llvm=(llvm or "").split(".")[0]) \
                if llvm else None
        return f"'{missing[0]}' not found" + (
            f" (Debian: apt-get install {package})" if package else "")
    if errs:
        return errs[0][:100]
    return f"torch-tidy crashed (signal {-result.code})"


def fixes(sarif, result, scratch):
    """{(check, real path, line, column): [replacements]} of a file's
    --export-fixes YAML, read through torch-tidy-sarif; {} without it."""
    if not sarif or not result.fixes:
        return {}
    log = result.fixes[:-5] + ".log"
    out = result.fixes[:-5] + ".sarif"
    with open(log, "w") as f:
        f.write(result.output)
    try:
        res = subprocess.run([sarif, log, "--fixes", result.fixes, "-o", out],
                             capture_output=True, text=True, timeout=300)
    except (OSError, subprocess.TimeoutExpired):
        return {}
    if res.returncode != 0:
        return {}
    try:
        with open(out) as f:
            doc = json.load(f)
    except (OSError, ValueError):
        return {}
    found = {}
    for run in doc.get("runs", []):
        for r in run.get("results", []):
            loc = (r.get("locations") or [{}])[0].get("physicalLocation", {})
            region = loc.get("region", {})
            key = (r.get("ruleId"), os.path.realpath(_path(loc)),
                   region.get("startLine"), region.get("startColumn"))
            reps = []
            for fix in r.get("fixes", []):
                for change in fix.get("artifactChanges", []):
                    path = _path(change)
                    for rep in change.get("replacements", []):
                        deleted = rep.get("deletedRegion", {})
                        if deleted.get("charOffset") is None:
                            continue  # a replacement not located by offset
                        reps.append({
                            "file": path,
                            "offset": deleted.get("charOffset"),
                            "length": deleted.get("charLength", 0),
                            "text": rep.get("insertedContent", {}).get(
                                "text", "")})
            if reps:
                found[key] = reps
    return found


def _path(holder):
    uri = holder.get("artifactLocation", {}).get("uri", "")
    if uri.startswith("file://"):
        return urllib.parse.unquote(uri[len("file://"):])
    return urllib.parse.unquote(uri)


def line_column(path, offset, cache):
    """1-based (line, column) of a byte offset into a file."""
    if path not in cache:
        try:
            with open(path, "rb") as f:
                cache[path] = f.read()
        except OSError:
            cache[path] = None
    data = cache[path]
    if data is None or offset is None or offset > len(data):
        return None, None
    before = data[:offset]
    return before.count(b"\n") + 1, offset - (before.rfind(b"\n") + 1) + 1
