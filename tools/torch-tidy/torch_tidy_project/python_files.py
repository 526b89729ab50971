"""The project's own Python files, linted in the same run by torch-tidy-py
(the package torch_tidy_py beside this one): its warnings join the run's
warnings, findings (with their fixes), --json and SARIF, and a file it
cannot parse joins the files that did not parse.

Which files: those git tracks under the root (else every file below it but
hidden, build, dist and virtual-environment folders) that end in .py and
mention torch; all of them where one mentions compile or _dynamo (a region's
callees may be in the others), none where none does. torch-tidy-py needs LibCST: it runs under the first of this
Python and the project's (--python) that imports it; with none, the run
says so (summary line and JSON), and --python-files on makes that an error.
"""
import os
import re
import subprocess
import sys
from collections import Counter

from . import report, running
from .common import ProjectError, log, rel

SKIP_DIRS = {"build", "dist", "node_modules", "site-packages", "__pycache__", "venv", "env"}
CHECK_RE = re.compile(r"torch-tidy-py: (\d+) file\(s\), (\d+) compiled region\(s\), "
                      r"(\d+) warning\(s\), (\d+) with a fix(?:; (\d+) write)?")


COMPILES = re.compile(r"\bcompile\b|_dynamo")


def candidates(root):
    """The root's Python files that mention torch, sorted."""
    return [p for p, _ in _scan(root)]


def _scan(root):
    """[(path, whether it mentions compile or _dynamo)] of the root's Python
    files that mention torch, sorted; each file read once."""
    paths = None
    if os.path.isdir(os.path.join(root, ".git")):
        res = subprocess.run(["git", "-C", root, "ls-files", "-z", "--", "*.py"],
                             capture_output=True)
        if res.returncode == 0:
            paths = [os.path.join(root, p) for p in
                     res.stdout.decode("utf-8", "surrogateescape").split("\0") if p]
    if paths is None:
        paths = []
        for d, dirs, files in os.walk(root):
            dirs[:] = [x for x in dirs if not x.startswith(".") and x not in SKIP_DIRS
                       and not os.path.exists(os.path.join(d, x, "pyvenv.cfg"))]
            paths += [os.path.join(d, f) for f in files if f.endswith(".py")]
    out = []
    for p in paths:
        try:
            with open(p, encoding="utf-8", errors="replace") as f:
                text = f.read()
        except OSError:
            out.append((p, True))  # torch-tidy-py says it cannot read it
            continue
        if "torch" in text:
            out.append((p, bool(COMPILES.search(text))))
    return sorted(out)


def gate(code, reasons, last, info, fail_on):
    """The verdict with the project's Python: a gate on coverage never
    passes where Python files that compile something were not linted (no
    LibCST under --python-files auto): exit 3, as for C++ it did not read.
    --python-files off leaves them out on purpose."""
    if not info or not info.get("not_linted_why") or not info.get("compiling") or \
            "never" in fail_on or "coverage" not in fail_on or code not in (0, 1):
        return code, reasons, last
    reasons = list(reasons) + ["coverage"]
    return 3, reasons, (f"torch-tidy-project: FAIL ({', '.join(reasons)}): "
                        f"{info['compiling']} of the project's Python files compile something "
                        f"and were not linted: {info['not_linted_why']} (--python-files off "
                        f"leaves them out)")


def _with_libcst(pythons):
    for py in pythons:
        if not py:
            continue
        if py == sys.executable:
            import importlib.util
            if importlib.util.find_spec("libcst") is not None:
                return py
            continue
        try:
            if subprocess.run([py, "-c", "import libcst"], capture_output=True,
                              timeout=120).returncode == 0:
                return py
        except (OSError, subprocess.TimeoutExpired):
            continue
    return None


def lint(mode, project_python, root, scratch, sarif):
    """(Counter of warnings per check, findings, {cause: files that did not
    parse}, the JSON's "python") for the run's Python files."""
    if mode == "off":
        return Counter(), [], {}, {"files": None, "linted": 0,
                                   "not_linted_why": "--python-files off"}
    scanned = _scan(root)
    files = [p for p, _ in scanned]
    compiling = [p for p, compiles in scanned if compiles]
    info = {"files": len(files), "compiling": len(compiling), "linted": 0, "regions": 0,
            "warnings": 0, "fixes": 0, "unmeasured": 0, "python": None,
            "not_linted_why": None}
    if not compiling:
        # No region can be in them (a region is made by torch.compile,
        # .compile() or torch._dynamo): nothing to lint, no LibCST needed.
        return Counter(), [], {}, info
    # Beside this package: in a build's bin/, an installation's share/ and
    # the source tree alike.
    package = os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))),
                           "torch_tidy_py")
    if not os.path.isdir(package):
        why = f"torch-tidy-py's package is not at {package}"
    else:
        py = _with_libcst([sys.executable, project_python])
        why = None if py else ("LibCST is not installed for " + " or ".join(
            p for p in (sys.executable, project_python) if p) + " (pip install libcst)")
    if why:
        if mode == "on":
            raise ProjectError(f"--python-files on: {len(files)} Python files cannot be "
                               f"linted: {why}")
        info["not_linted_why"] = why
        log(f"python: {len(files)} files that mention torch not linted: {why}")
        return Counter(), [], {}, info
    info["python"] = py
    fixes_yaml = os.path.join(scratch, "python-fixes.yaml")
    env = dict(os.environ, PYTHONPATH=os.pathsep.join(
        [os.path.dirname(package)] + [p for p in [os.environ.get("PYTHONPATH")] if p]))
    res = subprocess.run([py, "-m", "torch_tidy_py", "--export-fixes", fixes_yaml, *files],
                         capture_output=True, text=True, env=env, cwd=root)
    if res.returncode not in (0, 1, 2) or ("Traceback" in res.stderr and res.returncode != 2):
        raise ProjectError(f"torch-tidy-py failed (exit {res.returncode}): "
                           f"{res.stderr[-1500:]}")
    if res.stdout.strip():
        print(res.stdout.rstrip(), flush=True)
    unparsed = {}
    for line in res.stderr.splitlines():
        m = re.match(r"(.+?)(?::\d+:\d+)?: error: (cannot parse|cannot read|torch-tidy-py "
                     r"failed)", line)
        if m:
            cause = {"cannot parse": "Python syntax error (torch-tidy-py)",
                     "cannot read": "Python file not readable (torch-tidy-py)"}.get(
                m.group(2), "torch-tidy-py failed on the file")
            unparsed.setdefault(cause, []).append(rel(m.group(1), root))
    m = CHECK_RE.search(res.stderr)
    if m:
        info.update(linted=int(m.group(1)) - sum(len(v) for v in unparsed.values()),
                    regions=int(m.group(2)), warnings=int(m.group(3)),
                    fixes=int(m.group(4)), unmeasured=int(m.group(5) or 0))
    result = running.FileResult("<python>", res.returncode, res.stdout,
                                fixes_yaml if os.path.exists(fixes_yaml) else None)
    fixes = running.fixes(sarif, result, scratch)
    warnings, findings, cache = Counter(), [], {}
    for d in running.diagnostics(res.stdout):
        key = (d["check"], os.path.realpath(d["file"]), d["line"], d["column"])
        findings.append(report.finding(d, root, fixes.get(key), cache))
        warnings[d["check"]] += 1
    log(f"python: {info['linted']} of {len(files)} files that mention torch linted by "
        f"torch-tidy-py: {info['regions']} compiled regions, {info['warnings']} warnings")
    return warnings, findings, unparsed, info
