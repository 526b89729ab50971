"""The build's own requirements, provided as pip provides them (issue 58,
item 5). pip builds a project in an isolated environment holding
pyproject.toml's [build-system] requires; a setup.py or a build backend run
by torch-tidy-project in --python's environment fails where one of them is
missing there (scikit-build-core, pybind11, a project's helper). So the
requirements --python lacks are installed, with --python's pip, into an
environment of their own under .torch-tidy/build-env/ that sees --python's
packages too (its torch above all: a build compiles against the torch of
--python, never one a requirement would pull in). Where that cannot be done
(no index reachable, a requirement that does not resolve) the run goes on
in --python alone and says which packages to install there."""
import hashlib
import json
import os
import re
import shlex
import subprocess

from .common import log, rel, scratch_dir

# Which requirements (strings) the Python it runs in does not satisfy (name,
# version, markers): lacking(texts). Also run inside the recorder's driver,
# for what a backend's get_requires_for_build_wheel asks for.
LACKING = r'''
def lacking(texts):
    try:
        from packaging.requirements import Requirement
    except ImportError:
        from pip._vendor.packaging.requirements import Requirement
    import importlib.metadata as md
    out = []
    for text in texts:
        try:
            req = Requirement(text)
        except Exception:
            out.append(text)
            continue
        if req.marker is not None and not req.marker.evaluate():
            continue
        try:
            version = md.version(req.name)
        except md.PackageNotFoundError:
            out.append(text)
            continue
        if req.specifier and not req.specifier.contains(version,
                                                        prereleases=True):
            out.append(text)
    return out
'''

# Reads, in the build's Python, which requirements it does not satisfy.
MISSING = "import json, sys\n" + LACKING + \
    "print(json.dumps(lacking(json.loads(sys.argv[1]))))\n"

# The site folders of the build's Python, for the new environment's .pth.
SITES = r'''
import json, site, sysconfig
paths = [sysconfig.get_paths()["purelib"], sysconfig.get_paths()["platlib"]]
try:
    paths += site.getsitepackages()
except AttributeError:
    pass
seen = []
for p in paths:
    if p not in seen:
        seen.append(p)
print(json.dumps(seen))
'''

# Requirements that --python's own install stands for, never installed
# into the build's environment: the torch the project builds against.
OWN = ("torch",)


def _name(requirement):
    """A requirement's project name, normalised (Torch_X[extra]>=1 ->
    torch-x)."""
    m = re.match(r"\s*([A-Za-z0-9][A-Za-z0-9._-]*)", requirement)
    return re.sub(r"[-_.]+", "-", m.group(1)).lower() if m else ""


class Prepared:
    """python: the interpreter to run the build with; note: what was done
    (or None); missing: the requirements --python lacks (and the build's
    environment could not provide, when install_failed)."""

    def __init__(self, python, note=None, missing=(), install_failed=False):
        self.python, self.note = python, note
        self.missing, self.install_failed = list(missing), install_failed

    def install_hint(self):
        """`pip install '...'` naming what to install in --python."""
        return install_hint(self.missing)


def install_hint(reqs):
    """`pip install 'a>=1' b`: the command that installs reqs."""
    return "pip install " + " ".join(shlex.quote(r) for r in reqs)


def requirements(doc):
    """pyproject.toml's [build-system] requires, as strings."""
    return [str(r) for r in
            ((doc or {}).get("build-system", {}).get("requires") or [])]


def missing(python, reqs, env=None):
    """The requirements python does not satisfy (name, version, markers),
    or None where that cannot be asked."""
    try:
        res = subprocess.run([python, "-c", MISSING, json.dumps(reqs)],
                             capture_output=True, text=True, timeout=120,
                             env=env)
        return json.loads(res.stdout) if res.returncode == 0 else None
    except (OSError, ValueError, subprocess.TimeoutExpired):
        return None


def prepare(python, doc, root, env=None, timeout=900, extra=()):
    """A Prepared for running the project's build with python: python
    itself where it has every build requirement (or none are declared);
    else an environment under root/.torch-tidy/build-env/ with the missing
    ones installed beside python's packages. extra: requirements the
    backend's get_requires_for_build_wheel added (pip installs those too)."""
    reqs = requirements(doc) + [r for r in extra
                                if r not in requirements(doc)]
    if not reqs:
        return Prepared(python)
    env = dict(os.environ, **(env or {}))
    lacking = missing(python, reqs, env)
    if lacking is None:
        return Prepared(python, f"whether {python} has the build "
                                f"requirements ({', '.join(reqs)}) could "
                                f"not be asked: the build runs there as it "
                                f"is")
    own = [r for r in lacking if _name(r) in OWN]
    lacking = [r for r in lacking if _name(r) not in OWN]
    said = (f"; pyproject.toml asks for {', '.join(own)}, the build uses "
            f"{python}'s torch" if own else "")
    if not lacking:
        return Prepared(python, said[2:] or None)
    key = hashlib.sha256(json.dumps([os.path.realpath(python)] +
                                    sorted(lacking)).encode()).hexdigest()
    folder = scratch_dir(root, "build-env", key[:12])
    built = os.path.join(folder, "bin", "python")
    ready = os.path.join(folder, "ready")
    shown = rel(folder, root)
    if os.path.isfile(ready) and os.path.isfile(built):
        return Prepared(built, f"the build requirements {python} lacks "
                               f"({', '.join(lacking)}) are those installed "
                               f"in {shown} earlier, beside {python}'s "
                               f"packages{said}", lacking)
    log(f"installing the build requirements {python} lacks "
        f"({', '.join(lacking)}) in {shown}, as pip's isolated build would")
    why = _make(python, folder, lacking, env, timeout)
    if why:
        return Prepared(python, f"the build requirements "
                                f"{', '.join(lacking)} are not in {python}, "
                                f"and installing them in an environment of "
                                f"their own failed ({why}): the build runs "
                                f"in {python} as it is; install them there "
                                f"({install_hint(lacking)})"
                                f"{said}", lacking, install_failed=True)
    with open(ready, "w") as f:
        f.write("\n".join(lacking) + "\n")
    return Prepared(built, f"the build requirements {python} lacks "
                           f"({', '.join(lacking)}) were installed in "
                           f"{shown}, beside {python}'s packages (its torch "
                           f"among them), as pip's isolated build does"
                           f"{said}", lacking)


def _make(python, folder, reqs, env, timeout):
    """Makes the environment; the reason it failed, or None."""
    def run(cmd, seconds=300):
        try:
            res = subprocess.run(cmd, capture_output=True, text=True,
                                 timeout=seconds, env=env)
        except (OSError, subprocess.TimeoutExpired) as e:
            return str(e)
        if res.returncode == 0:
            return None
        lines = [x for x in (res.stderr + res.stdout).splitlines()
                 if x.strip()]
        errors = [x for x in lines if x.startswith("ERROR")]
        return (errors or lines or [f"exit {res.returncode}"])[-1][:300]

    why = run([python, "-m", "venv", "--clear", "--without-pip", folder])
    if why:
        return f"python -m venv: {why}"
    try:
        sites = json.loads(subprocess.run(
            [python, "-c", SITES], capture_output=True, text=True,
            timeout=60, env=env).stdout)
        own = subprocess.run(
            [os.path.join(folder, "bin", "python"), "-c",
             "import sysconfig; print(sysconfig.get_paths()['purelib'])"],
            capture_output=True, text=True, timeout=60, env=env)
        purelib = own.stdout.strip()
        # The new environment's own packages first, then python's, read
        # as a site folder (its own .pth files processed).
        with open(os.path.join(purelib, "_torch_tidy_build_env.pth"),
                  "w") as f:
            for s in sites:
                f.write(f"import site; site.addsitedir({s!r})\n")
    except (OSError, ValueError, subprocess.TimeoutExpired) as e:
        return f"reading {python}'s site folders: {e}"
    why = run([python, "-m", "pip", "--python",
               os.path.join(folder, "bin", "python"), "install",
               "--disable-pip-version-check", "--no-input", "--retries",
               "1"] + reqs,
              timeout)
    return f"pip install: {why}" if why else None
