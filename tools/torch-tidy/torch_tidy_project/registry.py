"""Torch's dispatcher registry of the project: where the project's package
imports in --python's environment (CI has built it to run its tests), the
operators it registers as torch sees them, each with its schema, its kernels
per dispatch key with the file:line that registered them, and its Python
fake. The static index is compared with it, difference by difference, and
coverage counts the registry's kernels (issue 58, item 2)."""
import json
import os
import re
import subprocess
import tempfile

from .common import NOT_THE_PROJECTS, rel

MARKER = "TORCH_TIDY_REGISTRY_JSON="
# Run in --python's environment, in an empty folder so that the project's
# source tree does not shadow its installed package. argv: the marker, the
# modules to import, the namespaces the static index found.
QUERY = r'''
import importlib, importlib.util, json, os, re, sys
marker, modules, namespaces = sys.argv[1], json.loads(sys.argv[2]), \
    set(json.loads(sys.argv[3]))
# A package that is not installed is said as its import would say it,
# without importing torch first (seconds, on every run of a project whose
# package is not built in this environment).
absent = {}
for name in modules:
    top = name.split(".")[0]
    try:
        if importlib.util.find_spec(top) is None:
            absent[name] = "ModuleNotFoundError: No module named %r" % top
    except BaseException:
        pass
if len(absent) == len(modules):
    print(marker + json.dumps({"torch": None, "imported": [],
                               "failed": absent}))
    sys.exit(0)
import torch
before = set(torch._C._dispatch_get_all_op_names())
imported, failed, loaded, not_loaded = [], {}, [], {}
def mapped():
    try:
        with open("/proc/self/maps") as f:
            return {os.path.realpath(l.split()[-1]) for l in f
                    if l.rstrip().endswith(".so") or ".so." in l}
    except OSError:
        return set()
for name in modules:
    try:
        mod = importlib.import_module(name)
    except BaseException as e:
        failed[name] = (type(e).__name__ + ": " + str(e)).splitlines()[0][:300]
        continue
    imported.append(name)
    # Libraries load their operators' shared library lazily too:
    # torch.ops.load_library on those the import did not load.
    have = mapped()
    for top in list(getattr(mod, "__path__", [])):
        for d, dirs, files in os.walk(top):
            dirs[:] = [x for x in dirs if not x.startswith((".", "__"))]
            for f in sorted(files):
                if not re.search(r"\.so(\.|$)", f):
                    continue
                p = os.path.realpath(os.path.join(d, f))
                if p in have:
                    continue
                try:
                    torch.ops.load_library(p)
                    loaded.append(p)
                except BaseException as e:
                    not_loaded[p] = (type(e).__name__ + ": " +
                                     str(e)).splitlines()[0][:300]
after = set(torch._C._dispatch_get_all_op_names())
ops = sorted((after - before) | {o for o in after
                                 if o.split("::")[0] in namespaces})
# "CPU: registered at FILE:LINE :: (...) [ boxed unboxed ]", or "registered
# by RegisterOperators" (torch::RegisterOperators keeps no place).
line = re.compile(r"^(\S[^:]*): registered (?:at (.*):(\d+)|by (.*?)) :: "
                  r".*?(?:\[ (.*) \])?$")
try:
    from torch._library import simple_registry
except ImportError:
    simple_registry = None
out = {}
for op in ops:
    dump = torch._C._dispatch_dump(op)
    entry = {"schema": None, "defined_at": None, "kernels": [], "fake": None}
    for l in dump.splitlines():
        if l.startswith("schema: "):
            entry["schema"] = l[len("schema: "):]
        elif l.startswith("debug: registered at "):
            entry["defined_at"] = l[len("debug: registered at "):]
        else:
            m = line.match(l)
            # A fallthrough passes the call on: no kernel to analyse.
            if m and "fallthrough" not in (m.group(5) or "").split():
                entry["kernels"].append({
                    "key": m.group(1), "file": m.group(2),
                    "line": int(m.group(3) or 0), "by": m.group(4),
                    "unboxed": "unboxed" in (m.group(5) or "")})
    if simple_registry is not None:
        try:
            k = simple_registry.singleton.find(op).fake_impl.kernel
            entry["fake"] = getattr(k, "source", None) if k else None
        except Exception:
            pass
    out[op] = entry
print(marker + json.dumps({
    "torch": torch.__version__, "imported": imported, "failed": failed,
    "loaded": loaded, "not_loaded": not_loaded, "operators": out}))
'''
# Keys the index calls fakes (Consequence.cpp isFakeKey): not counted as
# kernels to analyse, by the index and the registry alike.
FAKE_KEYS = {"Fake", "Meta", "CompositeExplicitAutograd",
             "CompositeExplicitAutogradNonFunctional"}
CPP = (".c", ".cc", ".cpp", ".cxx", ".cu", ".h", ".hpp", ".cuh", ".sycl")


# Folder names that are never the project's package (its tests, docs, ...).
NOT_PACKAGES = ("setup", "tests", "test", "docs", "examples", "benchmarks",
                "tools", "scripts")


def own_packages(names):
    """Of the top-level packages setup() installs, those that may load the
    project's library (its tests and examples left out)."""
    return [n for n in names if n not in NOT_PACKAGES and
            not n.startswith((".", "_")) and not NOT_THE_PROJECTS.match(n)]


def candidate_modules(root):
    """The project's own top-level Python packages: folders with an
    __init__.py at the root or under src/ (tests, docs, other projects'
    code and hidden folders left out), named as they are imported."""
    found = []
    for base in (root, os.path.join(root, "src")):
        try:
            names = sorted(os.listdir(base))
        except OSError:
            continue
        for name in names:
            if name.startswith((".", "_")) or NOT_THE_PROJECTS.match(name) \
                    or not re.match(r"^[A-Za-z_]\w*$", name) or \
                    name in NOT_PACKAGES:
                continue
            if os.path.isfile(os.path.join(base, name, "__init__.py")) and \
                    name not in found:
                found.append(name)
    return found


class Registry:
    """What torch's dispatcher holds for the project. operators: {qualified
    name: {schema, defined_at, kernels: [{key, file, line, unboxed}],
    fake}}."""

    def __init__(self, data, modules, python):
        self.data, self.modules, self.python = data, modules, python
        self.operators = data.get("operators", {})
        # own_operators' answer, once it has kept the project's operators.
        self.own = None

    def cpp_kernels(self, op):
        """The kernels of op registered from C++/CUDA files (a Python
        registration reads /dev/null or a .py file): key (alias suffix
        dropped), file, line."""
        out = []
        for k in self.operators.get(op, {}).get("kernels", []):
            if k["file"] is None:
                # torch::RegisterOperators: C++, its place not kept.
                if not k.get("unboxed"):
                    continue
            elif k["file"] == "/dev/null" or k["file"].endswith(".py") or \
                    not k["file"].endswith(CPP):
                continue
            out.append(dict(k, key=k["key"].replace("[alias]", "")))
        return out

    def summary(self):
        return {"python": self.python, "torch": self.data.get("torch"),
                "modules_tried": self.modules,
                "imported": self.data.get("imported", []),
                "failed": self.data.get("failed", {}),
                "libraries_loaded": self.data.get("loaded", []),
                "libraries_not_loaded": self.data.get("not_loaded", {}),
                "operators": len(self.operators),
                "kernels": sum(len(self.cpp_kernels(o))
                               for o in self.operators)}


def read(python, modules, namespaces, env=None, timeout=600):
    """The Registry after importing modules in python (env: its
    environment), or (None, why) where none imported or torch could not
    be asked."""
    if not modules:
        return None, "no Python package of the project to import (none " \
            "found at the root or under src/; --registry MODULE names one)"
    with tempfile.TemporaryDirectory(prefix="torch-tidy-registry-") as cwd:
        # Run from an empty folder: the project's source tree must not
        # shadow its installed package.
        run_env = dict(env if env is not None else os.environ)
        try:
            res = subprocess.run(
                [python, "-c", QUERY, MARKER, json.dumps(modules),
                 json.dumps(sorted(namespaces))], capture_output=True,
                text=True, errors="replace", timeout=timeout, cwd=cwd,
                env=run_env)
        except OSError as e:
            return None, f"cannot run {python}: {e.strerror}"
        except subprocess.TimeoutExpired:
            return None, f"importing {', '.join(modules)} in {python} " \
                f"took over {timeout} s"
    for out in res.stdout.splitlines():
        if out.startswith(MARKER):
            data = json.loads(out[len(MARKER):])
            if not data["imported"]:
                failed = "; ".join(f"{m}: {why}" for m, why in
                                   data["failed"].items())
                return None, f"the project's package does not import in " \
                    f"{python} ({failed})"
            return Registry(data, modules, python), None
    last = (res.stderr.strip().splitlines() or ["no output"])[-1]
    return None, f"{python} could not read torch's registry ({last})"


def project_file(path, sources, root):
    """The project's source a registry's file:line names (the path as it
    was compiled, perhaps in another checkout or a build's copy): the one
    whose path ends with the longest run of the same folders; None where
    none shares more than the file's name with it or two tie."""
    if os.path.isfile(path) and os.path.realpath(path).startswith(
            os.path.realpath(root) + os.sep):
        return os.path.realpath(path)
    parts = path.replace("\\", "/").split("/")
    best, best_n, tie = None, 0, False
    for s in sources:
        sp = s.split(os.sep)
        n = 0
        while n < min(len(sp), len(parts)) and sp[-1 - n] == parts[-1 - n]:
            n += 1
        if n > best_n:
            best, best_n, tie = s, n, False
        elif n == best_n and n:
            tie = True
    if best is None or tie or (best_n < 2 and len(parts) > 1 and
                               _ambiguous_name(parts[-1], sources)):
        return None
    return best


def _ambiguous_name(name, sources):
    return sum(os.path.basename(s) == name for s in sources) != 1


# Keys a registration names that torch registers under another: the
# Autocast alias of TORCH_LIBRARY_IMPL(ns, Autocast, m) is AutocastCUDA.
SAME_KEY = {"Autocast": "AutocastCUDA"}


def _key(index_kernel):
    key = index_kernel["key"] or "CompositeImplicitAutograd"
    return SAME_KEY.get(key, key)


def match(registry, index_kernels, sources, root):
    """Pairs each C++ kernel of the registry with the index's registration
    of it. index_kernels: {operator: [index kernel]} (project_index.
    cpp_kernels plus fakes). Returns (pairs, only_registry, only_index):
    pairs [(op, registry kernel, its project file, index kernel)],
    only_registry [(op, registry kernel, its project file)], only_index
    [(op, index kernel)] of the registry's operators. The registry names
    each overload (ns::op.out); the index keeps a registration under its
    operator's name (ns::op), overloads together: an index kernel pairs
    once, with any overload of its operator."""
    pairs, only_registry, used = [], [], set()
    for name in sorted(registry.operators):
        op = base_name(name)
        mine = index_kernels.get(op, [])
        for k in registry.cpp_kernels(name):
            f = k["file"] and project_file(k["file"], sources, root)
            found = None
            for same_file in (True, False):
                for i, ik in enumerate(mine):
                    if (op, i) in used or _key(ik) != k["key"]:
                        continue
                    if same_file and (f is None or os.path.realpath(
                            ik["file"]) != f):
                        continue
                    found = i
                    break
                if found is not None:
                    break
            if found is None:
                only_registry.append((name, k, f))
            else:
                used.add((op, found))
                pairs.append((name, k, f, mine[found]))
    only_index = [(op, ik) for op in sorted({base_name(n) for n in
                                             registry.operators})
                  for i, ik in enumerate(index_kernels.get(op, []))
                  if (op, i) not in used]
    return pairs, only_registry, only_index


def sites(reg, index, root):
    """What torch-tidy reads from the registry ($TORCH_TIDY_PROJECT_REGISTRY,
    ProjectOperators::readRegistry): {"torch": version, "operators":
    {ns::op: [{key, file, line, how}]}} for each of the project's operators
    the registry holds a C++ kernel of (overloads together), every key it
    registers and its Python fake, at the project's file where the
    registry's path maps to one. Operators defined in Python alone keep the
    index's reading."""
    sources, _ = own_operators(reg, index, root)
    python_files = sorted(set(map(os.path.realpath, python_sources(root))))
    with_cpp = {base_name(op) for op in reg.operators if reg.cpp_kernels(op)}
    out = {}
    for op, o in sorted(reg.operators.items()):
        if base_name(op) not in with_cpp:
            continue
        mine = out.setdefault(base_name(op), [])
        for k in o.get("kernels", []):
            file, line = k["file"], k["line"]
            if file is None:
                file, line = "a torch::RegisterOperators registration", 0
            elif file == "/dev/null":
                file, line = "a Python registration", 0
            else:
                file = project_file(file, sources + python_files, root) \
                    or file
            mine.append({"key": k["key"].replace("[alias]", ""),
                         "file": file, "line": line,
                         "how": "read from torch's registry"})
        if o.get("fake"):
            path, _, line = o["fake"].rpartition(":")
            if not line.isdigit():
                path, line = o["fake"], "0"
            mine.append({"key": "Fake",
                         "file": project_file(path, python_files, root)
                         or path, "line": int(line),
                         "how": "register_fake, read from torch's registry"})
    return {"torch": reg.data.get("torch"), "operators": out}


def write_sites(reg, index, root, folder):
    """Writes sites() into folder, named by its content (so that a lint
    cached on another registry is not replayed); returns its path."""
    import hashlib
    text = json.dumps(sites(reg, index, root), sort_keys=True, indent=1)
    path = os.path.join(folder, "sites-" + hashlib.sha256(
        text.encode()).hexdigest()[:16] + ".json")
    with open(path, "w", encoding="utf-8") as f:
        f.write(text)
    for name in os.listdir(folder):  # earlier runs'
        if name.startswith("sites-") and name != os.path.basename(path):
            try:
                os.remove(os.path.join(folder, name))
            except OSError:
                pass
    return path


def base_name(op):
    """ns::name of a registry's ns::name.overload."""
    ns, _, name = op.rpartition("::")
    return f"{ns}::{name.split('.')[0]}" if ns else name.split(".")[0]


def index_kernels(index):
    """{qualified operator: [index kernels]} that registry kernels pair
    with: every C++/CUDA registration, fakes (Meta, CompositeExplicit-
    Autograd) included; marks, custom-class methods and Python
    registrations left out."""
    from . import index as project_index
    by_op = {}
    for k in (index or {}).get("kernels", []):
        if k["key"] in project_index.MARKS or k["file"].endswith(".py"):
            continue
        by_op.setdefault(f"{k['namespace']}::{k['operator']}", []).append(k)
    return by_op


def python_fakes(index):
    """The qualified operators the index read a Python fake of."""
    return {f"{k['namespace']}::{k['operator']}"
            for k in (index or {}).get("kernels", [])
            if k.get("fake") and k["file"].endswith(".py")}


def own_operators(reg, index, root):
    """Keeps in reg the project's operators only (keep_projects with the
    index's namespaces and the files below root). Returns (the C/C++/CUDA
    sources below root, real paths, sorted; the count dropped). Done once
    per registry: later calls give the first's answer."""
    from . import coverage
    from . import index as project_index
    if reg.own is not None:
        return reg.own
    sources = sorted(set(map(os.path.realpath, coverage.tree_sources(root))))
    python_files = sorted(set(map(os.path.realpath, python_sources(root))))
    namespaces = {op.split("::")[0]
                  for op in project_index.operator_names(index)}
    reg.own = (sources, keep_projects(reg, namespaces,
                                      sources + python_files, root))
    return reg.own


def python_sources(root):
    """The .py files below root (hidden folders left out)."""
    found = []
    for d, dirs, files in os.walk(root):
        dirs[:] = [x for x in dirs if not x.startswith(".")]
        found += [os.path.join(d, f) for f in files if f.endswith(".py")]
    return found


def keep_projects(reg, namespaces, sources, root):
    """Drops from reg the operators that are not the project's: a package
    the project's imports (torchvision imported by its __init__) adds its
    own. An operator is the project's where its namespace is one the
    sources define, or where its schema, a kernel or its fake was
    registered in a file of the project. Returns the count dropped."""
    dropped = []
    for op, o in reg.operators.items():
        if op.split("::")[0] in namespaces:
            continue
        places = [o.get("defined_at"), o.get("fake")] + [
            f"{k['file']}:{k['line']}" for k in o["kernels"] if k["file"]]
        if any(p and project_file(p.rsplit(":", 1)[0], sources, root)
               for p in places):
            continue
        dropped.append(op)
    for op in dropped:
        del reg.operators[op]
    # By namespace, for the summary to name the packages.
    reg.foreign = {}
    for op in dropped:
        ns = op.split("::")[0]
        reg.foreign[ns] = reg.foreign.get(ns, 0) + 1
    return len(dropped)


def shorten(path_line, root):
    """FILE:LINE with FILE relative to root where it is below it."""
    path, _, line = path_line.rpartition(":")
    real = os.path.realpath(path) if path else path
    if real.startswith(os.path.realpath(root) + os.sep):
        path = rel(real, root)
    return f"{path}:{line}"


def where(k, root, project_path=None):
    """A registry kernel's FILE:LINE: the project's file it names where
    known (project_file), else the path as compiled."""
    if project_path:
        return f"{rel(project_path, root)}:{k['line']}"
    if not k["file"]:
        return f"(registered by {k.get('by') or 'an unknown registrar'})"
    return shorten(f"{k['file']}:{k['line']}", root)
