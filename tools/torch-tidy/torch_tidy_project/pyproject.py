"""pyproject.toml: which build backend builds the project, and for
scikit-build-core the settings that decide its CMake configure."""
import os

from .common import ProjectError

try:
    import tomllib
except ImportError:  # Python < 3.11
    try:
        import tomli as tomllib
    except ImportError:
        tomllib = None

SCIKIT_BUILD = "scikit_build_core.build"


def read(project):
    """The parsed pyproject.toml of project, or None where there is none;
    ProjectError where it cannot be parsed."""
    path = os.path.join(project, "pyproject.toml")
    if not os.path.isfile(path):
        return None
    if tomllib is None:
        raise ProjectError("reading pyproject.toml needs Python 3.11's "
                           "tomllib (or the tomli package)")
    try:
        with open(path, "rb") as f:
            return tomllib.load(f)
    except (OSError, ValueError) as e:
        raise ProjectError(f"cannot read {path}: {e}")


def declares_build(project):
    """Whether project's pyproject.toml declares a build ([build-system]), as
    against one that only configures tools (a formatter's settings);
    unreadable counts as no build."""
    try:
        doc = read(project)
    except ProjectError:
        return False
    return bool(doc and doc.get("build-system"))


def backend(doc):
    """(build-backend, backend-path) of a parsed pyproject.toml; setuptools'
    legacy backend where none is named, as pip does."""
    system = (doc or {}).get("build-system", {})
    return (system.get("build-backend") or "setuptools.build_meta:__legacy__",
            list(system.get("backend-path") or []))


def uses_scikit_build(doc):
    """Whether scikit-build-core's backend builds the project: named as the
    backend (scikit_build_core.build), or a project's own backend (named
    with backend-path) beside [tool.scikit-build] settings or a requirement
    of scikit-build-core. setuptools with scikit-build-core's plugin is not:
    its build would compile."""
    name, path = backend(doc)
    if name.startswith("scikit_build_core") and \
            not name.startswith("scikit_build_core.setuptools"):
        return True
    if not path:
        return False
    requires = (doc or {}).get("build-system", {}).get("requires", [])
    return "scikit-build" in (doc or {}).get("tool", {}) or any(
        str(r).replace("_", "-").lower().startswith("scikit-build-core")
        for r in requires)


def scikit_build_settings(doc):
    """[tool.scikit-build]'s CMake settings, with dotted keys and nested
    tables read alike: source_dir, args, defines, version (a specifier such
    as '>=3.25.2', or None)."""
    tool = (doc or {}).get("tool", {}).get("scikit-build", {})
    cmake = dict(tool.get("cmake", {}))
    defines = {}
    for k, v in (cmake.get("define") or {}).items():
        if isinstance(v, bool):
            v = "ON" if v else "OFF"
        elif isinstance(v, list):
            v = ";".join(map(str, v))
        elif isinstance(v, dict):
            v = v.get("default", "")  # an env-backed define's default
        defines[k] = str(v)
    version = cmake.get("version")
    if version is None and cmake.get("minimum-version"):
        version = ">=" + str(cmake["minimum-version"])
    return {"source_dir": cmake.get("source-dir", "."),
            "args": [str(a) for a in cmake.get("args", [])],
            "defines": defines,
            "version": str(version) if version else None}
