"""What every module shares: the error that stops a run, the project's
.torch-tidy/ folder, progress lines and file reading."""
import json
import os
import re

SCRATCH = ".torch-tidy"
# Folders that hold other projects' code, tests, builds and docs, not the
# project's own sources: left out of a database made from CMake sources and
# of the sources a run is said to have missed.
NOT_THE_PROJECTS = re.compile(r"^(\..*|third[_-]?party|3rdparty|external|"
                              r"extern|vendor|build([-_.].*)?|cmake-build.*|"
                              r"tests?|"
                              r"benchmarks?|examples?|docs?)$", re.I)


class ProjectError(Exception):
    """The project cannot be linted; the message says why, in one line where
    it can (a build's failure adds its last lines). Exit status 2."""


def log(message, tool="torch-tidy-project"):
    print(f"{tool}: {message}", flush=True)


def read_text(path):
    try:
        with open(path, encoding="utf-8", errors="replace") as f:
            return f.read()
    except OSError:
        return ""


def scratch_dir(root, *parts):
    """root/.torch-tidy/PARTS, made on demand. The folder holds a .gitignore
    of '*', so that what torch-tidy writes there never shows in git status:
    it is the only place in a project's tree torch-tidy writes to."""
    base = os.path.join(root, SCRATCH)
    path = os.path.join(base, *parts)
    try:
        os.makedirs(base, exist_ok=True)
        ignore = os.path.join(base, ".gitignore")
        if not os.path.exists(ignore):
            with open(ignore, "w") as f:
                f.write("# Written by torch-tidy: its databases, logs and "
                        "stand-ins.\n*\n")
        os.makedirs(path, exist_ok=True)
    except OSError as e:
        raise ProjectError(f"cannot write {path}: {e.strerror} (torch-tidy "
                           f"keeps its database and logs there)")
    return path


def write_json(path, doc):
    """doc as indented JSON to path (a --json or --sarif file)."""
    try:
        with open(path, "w") as f:
            json.dump(doc, f, indent=2)
            f.write("\n")
    except OSError as e:
        raise ProjectError(f"{path}: {e}")


def last_lines(text, n=12):
    """The last n non-empty lines of a tool's output, indented, for a failure
    message."""
    lines = [l.rstrip() for l in text.splitlines() if l.strip()]
    return "\n".join("    " + l for l in lines[-n:])


def rel(path, start):
    """path relative to start where it lies below it, else as given."""
    try:
        r = os.path.relpath(path, start)
    except ValueError:
        return path
    outside = r == os.pardir or r.startswith(os.pardir + os.sep)
    return path if outside else r


def age_text(seconds):
    """'3 minutes', '2 days': how old a file is, in words."""
    seconds = max(0, int(seconds))
    for unit, size in (("day", 86400), ("hour", 3600), ("minute", 60)):
        if seconds >= size:
            n = seconds // size
            return f"{n} {unit}{'s' if n != 1 else ''}"
    return f"{seconds} second{'s' if seconds != 1 else ''}"
