"""What switches a setup.py's extensions on, read from its text: the
conditions of the `if` branches that add an extension (an `...Extension(...)`
call, `ext_modules.append` / `+=`), as environment variables the condition
reads (directly or through a name assigned from one) and torch-version
gates (`torch.__version__ >= "2.11"`, `TORCH_VERSION >= (2, 11)`), with the
sources the branch names. Coverage's advice is only these: a variable the
build reads for another purpose (a version suffix) is never suggested as a
switch."""
import ast
import functools
import glob
import os
import re

SOURCE_SUFFIXES = (".cpp", ".cc", ".cxx", ".cu", ".sycl")
ENV_FUNCS = ("get", "getenv")


class Guard:
    """One switch: an environment variable (kind 'env') or a torch version
    (kind 'torch', value '2.11'), and the sources of the branch it guards
    (real paths; None where the branch names none this reading can see).
    wants: the variable's value that makes the guarding condition hold, read
    from it ("cuda" for `os.environ.get("V") == "cuda"`, "1" for a plain
    truth test); None where no one value does (`!= "cpu"`, `not ...`): the
    advice then quotes the condition (condition, line: its text and
    setup.py's line)."""

    def __init__(self, kind, value, sources, wants="1", condition=None,
                 line=None):
        self.kind, self.value, self.sources = kind, value, sources
        self.wants, self.condition, self.line = wants, condition, line

    def hint(self, python=None):
        if self.kind == "env":
            if self.wants is not None:
                return f"--env {self.value}={self.wants}"
            return (f"--env {self.value} set so that `{self.condition}` "
                    f"holds (setup.py:{self.line})")
        return (f"needs torch >= {self.value} (--python "
                f"{python or 'PYTHON'} with a torch that new)")

    def __repr__(self):
        return f"Guard({self.kind}, {self.value}, {self.sources})"


def _const_str(node):
    return node.value if isinstance(node, ast.Constant) and \
        isinstance(node.value, str) else None


def env_helpers(tree):
    """The names of functions of the file that read the environment variable
    they are given (`def enabled(name): return os.environ.get(name) ==
    "1"`)."""
    out = set()
    for f in ast.walk(tree):
        if not isinstance(f, ast.FunctionDef):
            continue
        params = {a.arg for a in f.args.args}
        for n in ast.walk(f):
            if isinstance(n, ast.Call) and n.args and \
                    isinstance(n.args[0], ast.Name) and n.args[0].id in params:
                func = n.func
                if isinstance(func, ast.Attribute) and func.attr in ENV_FUNCS \
                        and ("environ" in ast.unparse(func.value) or
                             ast.unparse(func.value) == "os"):
                    out.add(f.name)
            elif isinstance(n, ast.Subscript) and \
                    ast.unparse(n.value).endswith("environ") and \
                    isinstance(n.slice, ast.Name) and n.slice.id in params:
                out.add(f.name)
    return out


def env_reads(node, helpers=()):
    """The environment variables an expression reads by name (helpers: the
    file's functions that read the variable they are given)."""
    found = []
    for n in ast.walk(node):
        name = None
        if isinstance(n, ast.Call) and n.args:
            first = _const_str(n.args[0])
            func = n.func
            called = func.attr if isinstance(func, ast.Attribute) else \
                func.id if isinstance(func, ast.Name) else ""
            owner = ast.unparse(func.value) if isinstance(
                func, ast.Attribute) else ""
            if first and ((called in ENV_FUNCS and
                           (owner.endswith("environ") or owner == "os" or
                            not owner)) or
                          (("env" in called.lower() or called in helpers) and
                           re.match(r"^[A-Z][A-Z0-9_]+$", first))):
                name = first
        elif isinstance(n, ast.Subscript) and \
                ast.unparse(n.value).endswith("environ"):
            name = _const_str(n.slice)
        if name and name not in found:
            found.append(name)
    return found


def env_defaults(tree):
    """{variable: the default its reads give} where every read of it with a
    default gives the same string (`os.getenv("USE_CPP", "1")`)."""
    seen = {}
    for n in ast.walk(tree):
        if isinstance(n, ast.Call) and len(n.args) >= 2 and \
                isinstance(n.func, ast.Attribute) and \
                n.func.attr in ENV_FUNCS:
            name, default = _const_str(n.args[0]), _const_str(n.args[1])
            if name and default is not None:
                seen.setdefault(name, set()).add(default)
    return {k: next(iter(v)) for k, v in seen.items() if len(v) == 1}


def _version_literal(node):
    """'2.11' of a version-like literal: "2.11", "2.11.0", (2, 11),
    Version("2.11")."""
    text = ast.unparse(node)
    m = re.search(r"""["'](\d+\.\d+(?:\.\d+)?)""", text) or \
        re.search(r"\((\d+),\s*(\d+)", text)
    if not m:
        return None
    return m.group(1) if m.lastindex == 1 else f"{m.group(1)}.{m.group(2)}"


def torch_gates(test, version_names):
    """[(op, version)] of a condition's comparisons of torch's version: op
    '>=' or '>' where the condition holds from that version on, '<' or '<='
    where it holds below it."""
    out = []
    for n in ast.walk(test):
        if not isinstance(n, ast.Compare) or len(n.ops) != 1:
            continue
        left, right = n.left, n.comparators[0]
        names = {x.id for x in ast.walk(left) if isinstance(x, ast.Name)}
        text = ast.unparse(left)
        torchy = "torch" in text.lower() or names & version_names
        flipped = False
        if not torchy:
            names = {x.id for x in ast.walk(right) if isinstance(x, ast.Name)}
            text = ast.unparse(right)
            torchy = "torch" in text.lower() or names & version_names
            left, right, flipped = right, left, True
        if not torchy or "version" not in (text.lower() + " ".join(names).lower()):
            continue
        version = _version_literal(right)
        if not version:
            continue
        op = {ast.GtE: ">=", ast.Gt: ">", ast.Lt: "<", ast.LtE: "<="}.get(
            type(n.ops[0]))
        if op and flipped:
            op = {">=": "<=", ">": "<", "<": ">", "<=": ">="}[op]
        if op:
            out.append((op, version))
    return out


def _extension_list(node):
    """Whether node names a list of extensions (ext_modules, extensions),
    not their flags (extra_compile_args["cxx"])."""
    text = ast.unparse(node).lower()
    return "ext" in text and not any(w in text for w in (
        "extra", "arg", "flag", "define", "include", "link", "macro"))


def _adds_extension(stmts):
    for s in stmts:
        for n in ast.walk(s):
            if isinstance(n, ast.Call):
                f = n.func
                name = f.attr if isinstance(f, ast.Attribute) else \
                    f.id if isinstance(f, ast.Name) else ""
                if name.endswith("Extension") or (
                        isinstance(f, ast.Attribute) and
                        name in ("append", "extend") and
                        _extension_list(f.value)):
                    return True
            if isinstance(n, ast.AugAssign) and _extension_list(n.target):
                return True
    return False


def _path(node, names, directory):
    """The path a simple expression names, or None: a string, a name
    assigned one, os.path.join / dirname / abspath / realpath of those,
    __file__ (setup.py), str() of one."""
    if isinstance(node, ast.Constant) and isinstance(node.value, str):
        return node.value
    if isinstance(node, ast.Name):
        if node.id == "__file__":
            return os.path.join(directory, "setup.py")
        return names.get(node.id)
    if isinstance(node, ast.Call) and not node.keywords:
        f = ast.unparse(node.func)
        args = [_path(a, names, directory) for a in node.args]
        if None in args or not args:
            return None
        if f in ("os.path.join", "path.join", "join"):
            return os.path.join(*args)
        if len(args) == 1 and f in ("os.path.dirname", "path.dirname",
                                    "dirname"):
            return os.path.dirname(args[0])
        if len(args) == 1 and f in ("os.path.abspath", "os.path.realpath",
                                    "str", "os.fspath"):
            return args[0]
    return None


def _path_names(tree, directory):
    """{name: path} of the names assigned a simple path expression anywhere
    in setup.py (this_dir, flash_root = os.path.join(this_dir, ...))."""
    names = {}
    for _ in range(3):  # names assigned from names assigned later in text
        for n in ast.walk(tree):
            if isinstance(n, ast.Assign) and len(n.targets) == 1 and \
                    isinstance(n.targets[0], ast.Name):
                v = _path(n.value, names, directory)
                if v is not None:
                    names[n.targets[0].id] = v
    return names


def _reached(stmts, functions, assigned=None):
    """stmts, the bodies of setup.py's own functions they call (xformers
    adds its flash-attention extensions through one) and the values
    assigned to the names they read (`sources += source_cuda`, globbed
    before the branch), transitively."""
    assigned = assigned or {}
    out, seen, todo = list(stmts), set(), list(stmts)
    while todo:
        nodes = list(ast.walk(todo.pop()))
        # A name whose attribute is taken (`ext_modules.append(...)`) is
        # where the branch puts its extension, not what it holds.
        receivers = {id(n.value) for n in nodes
                     if isinstance(n, ast.Attribute)}
        for n in nodes:
            if not isinstance(n, ast.Name) or n.id in seen or \
                    id(n) in receivers:
                continue
            more = []
            if isinstance(n.ctx, ast.Load) and n.id in functions:
                more = functions[n.id].body
            elif isinstance(n.ctx, ast.Load) and n.id in assigned:
                more = assigned[n.id]
            if more:
                seen.add(n.id)
                out += more
                todo += more
    return out


def _assignments(tree):
    """{name: [value nodes]} of every `name = ...` / `name += ...`."""
    out = {}
    for n in ast.walk(tree):
        if isinstance(n, ast.Assign):
            for t in n.targets:
                if isinstance(t, ast.Name):
                    out.setdefault(t.id, []).append(n.value)
        elif isinstance(n, (ast.AugAssign, ast.AnnAssign)) and \
                isinstance(n.target, ast.Name) and n.value is not None:
            out.setdefault(n.target.id, []).append(n.value)
    return out


def _extension_dirs(node, names, directory):
    """The folders an `...Extension(...)` call builds from: a keyword whose
    name ends in dir (cmake_lists_dir, sourcedir, source_dir; not an
    include or library folder), or a CMake extension's second argument,
    naming a folder that exists."""
    if not isinstance(node, ast.Call):
        return []
    f = node.func
    name = f.attr if isinstance(f, ast.Attribute) else \
        f.id if isinstance(f, ast.Name) else ""
    if not name.endswith("Extension"):
        return []
    values = [k.value for k in node.keywords if k.arg and
              k.arg.lower().endswith("dir") and
              not k.arg.lower().startswith(("include", "library", "lib"))]
    if "cmake" in name.lower() and len(node.args) >= 2:
        values.append(node.args[1])
    out = []
    for v in values:
        p = _path(v, names, directory)
        if p is not None and os.path.isdir(os.path.join(directory, p)):
            out.append(p)
    return out


def _sources(stmts, directory, names=None, functions=None, assigned=None):
    """Real paths of the sources a branch names (and setup.py's functions it
    calls): literals that end in a source suffix, and glob patterns (literal
    or built from paths setup.py names), relative to setup.py's folder."""
    names = names or {}
    found = set()

    def pattern(v):
        for p in glob.glob(os.path.join(directory, v), recursive=True):
            if p.endswith(SOURCE_SUFFIXES):
                found.add(os.path.realpath(p))
    reached = _reached(stmts, functions or {}, assigned)
    for s in reached:
        for n in ast.walk(s):
            for folder in _extension_dirs(n, names, directory):
                # An extension built from a folder (torchao's
                # `CMakeExtension(name, cmake_lists_dir="torchao/csrc/cpu")`,
                # a CMakeBuild's `sourcedir`): the sources below it.
                pattern(os.path.join(folder, "**", "*"))
    inside_glob = set()
    for s in reached:
        for n in ast.walk(s):
            if isinstance(n, ast.Call) and n.args and \
                    ast.unparse(n.func) in ("glob.glob", "glob", "iglob",
                                            "glob.iglob"):
                v = _path(n.args[0], names, directory)
                if v and "*" in v:
                    pattern(v)
                    inside_glob.update(map(id, ast.walk(n.args[0])))
    for s in reached:
        for n in ast.walk(s):
            if id(n) in inside_glob:
                continue
            v = _const_str(n)
            if not v:
                continue
            if "*" in v:
                pattern(v)
            elif v.endswith(SOURCE_SUFFIXES):
                p = os.path.join(directory, v)
                if os.path.exists(p):
                    found.add(os.path.realpath(p))
    return found or None


def _env_names(tree, helpers):
    """({name: [variables]}, {names}): the names assigned from environment
    reads, and those holding torch's version."""
    env_of = {}      # a name assigned from environment reads -> variables
    version_names = set()   # names holding torch's version
    # Names assigned from names that are (BUILD_CUDA = X_BUILD_CUDA or ...,
    # X_BUILD_CUDA = os.getenv(...)): the reads carried along, a few hops.
    for _ in range(3):
        for n in ast.walk(tree):
            if not isinstance(n, (ast.Assign, ast.AnnAssign)) or \
                    n.value is None:
                continue
            targets = n.targets if isinstance(n, ast.Assign) else [n.target]
            reads = env_reads(n.value, helpers) + [
                v for x in ast.walk(n.value) if isinstance(x, ast.Name)
                for v in env_of.get(x.id, [])]
            value = ast.unparse(n.value)
            for t in targets:
                for x in ast.walk(t):
                    if isinstance(x, ast.Name):
                        known = env_of.setdefault(x.id, [])
                        known += [r for r in reads if r not in known]
                        if "torch" in value and "version" in value.lower():
                            version_names.add(x.id)
    return env_of, version_names


def _test_reads(test, helpers=(), env_of=None):
    env_of = env_of or {}
    return env_reads(test, helpers) + [
        v for x in ast.walk(test) if isinstance(x, ast.Name)
        for v in env_of.get(x.id, [])]


def read(text, directory):
    """[Guard] of a setup.py's text; [] where it does not parse."""
    try:
        tree = ast.parse(text)
    except (SyntaxError, ValueError):
        return []
    helpers = env_helpers(tree)
    env_of, version_names = _env_names(tree, helpers)
    defaults = env_defaults(tree)
    guards = []
    names = _path_names(tree, directory)
    functions = {f.name: f for f in tree.body
                 if isinstance(f, ast.FunctionDef)}
    assigned = _assignments(tree)

    def visit(stmts, above):
        for s in stmts:
            if isinstance(s, ast.If):
                reads = _test_reads(s.test, helpers, env_of)
                gates = torch_gates(s.test, version_names)
                for branch, holds in ((s.body, True), (s.orelse, False)):
                    own = [(reads if holds else [],
                            [(op, v) for op, v in gates
                             if (op in (">=", ">")) == holds])]
                    conditions = above + own
                    if _adds_extension(branch):
                        sources = _sources(branch, directory, names,
                                           functions, assigned)
                        # The conditions above were recorded by the branches
                        # that hold this one, with its sources among theirs.
                        for env, versions in own:
                            for v in env:
                                wants = _holding_value(s.test, v, helpers,
                                                       env_of)
                                # A variable whose default is the value
                                # the test wants switches nothing on
                                # (torchao's USE_CPP, "1" by default):
                                # the branch's other conditions decide.
                                if wants is not None and \
                                        defaults.get(v) == wants:
                                    continue
                                guards.append(Guard(
                                    "env", v, sources, wants,
                                    ast.unparse(s.test)[:120], s.lineno))
                            for _, version in versions:
                                guards.append(Guard("torch", version, sources))
                    visit(branch, conditions)
                if _drops_sources(s.body):
                    # `if not use_cpu_kernels or not is_linux: sources = [s
                    # for s in sources if s not in excluded]` (torchao): the
                    # files the branch names come back where the test fails.
                    # Only what the branch itself names: the list it
                    # filters holds every source.
                    dropped = _sources(
                        [st for st in s.body if not _drops_sources([st])],
                        directory, names)
                    for v in reads:
                        wants = _failing_value(s.test, v, helpers, env_of)
                        if wants is not None and defaults.get(v) != wants:
                            guards.append(Guard(
                                "env", v, dropped, wants,
                                f"not ({ast.unparse(s.test)[:110]})",
                                s.lineno))
            else:
                # Loops, with, try and function bodies: their statements,
                # under the same conditions.
                for field in ("body", "orelse", "finalbody"):
                    inner = getattr(s, field, None)
                    if isinstance(inner, list):
                        visit(inner, above)
                for handler in getattr(s, "handlers", []) or []:
                    visit(handler.body, above)
    visit(tree.body, [])
    # One guard per switch and the value it wants, its sources merged (None:
    # not known).
    merged = {}
    for g in guards:
        key = (g.kind, g.value, g.wants)
        if key not in merged:
            merged[key] = Guard(g.kind, g.value, g.sources, g.wants,
                                g.condition, g.line)
        elif merged[key].sources is not None:
            merged[key].sources = None if g.sources is None else \
                merged[key].sources | g.sources
    return list(merged.values())


_DEFINE = re.compile(r"^-D([A-Za-z_]\w*)(?::\w+)?=(.*)$")
OFF = ("", "0", "OFF", "FALSE", "NO", "N", "NOTFOUND", "IGNORE")


def _holding_value(test, variable, helpers, env_of):
    """The value of variable that makes test hold, read from the test: the
    string it is compared equal to (or the first of those it is tested to be
    in); "1" where it is a truth test, or compared unequal to an off value
    (`!= "0"`); None where no one value does (`not os.getenv("V")`, `!=
    "cpu"`)."""
    reads = functools.partial(_test_reads, helpers=helpers, env_of=env_of)
    for n in ast.walk(test):
        if isinstance(n, ast.UnaryOp) and isinstance(n.op, ast.Not) and \
                variable in reads(n.operand):
            return None
        if not (isinstance(n, ast.Compare) and len(n.ops) == 1):
            continue
        left, right, op = n.left, n.comparators[0], n.ops[0]
        if variable not in reads(left):
            left, right = right, left
            if variable not in reads(left):
                continue
        if isinstance(right, (ast.Tuple, ast.List, ast.Set)):
            values = [_const_str(e) for e in right.elts]
        else:
            values = [_const_str(right)]
        values = [v for v in values if v is not None]
        if not values:
            continue
        if isinstance(op, (ast.Eq, ast.In)):
            return values[0]
        if isinstance(op, (ast.NotEq, ast.NotIn)):
            return "1" if all(v.upper() in OFF for v in values) else None
    return "1"


def _drops_sources(stmts):
    """Whether a branch takes files out of a list of sources (`sources = [s
    for s in sources if s not in excluded]`, `sources.remove(...)`)."""
    for st in stmts:
        for n in ast.walk(st):
            if isinstance(n, ast.Assign) and len(n.targets) == 1 and \
                    isinstance(n.targets[0], ast.Name) and \
                    "source" in n.targets[0].id.lower() and \
                    isinstance(n.value, ast.ListComp) and any(
                        isinstance(op, ast.NotIn)
                        for g in n.value.generators for c in g.ifs
                        for x in ast.walk(c) if isinstance(x, ast.Compare)
                        for op in x.ops):
                return True
            if isinstance(n, ast.Call) and \
                    isinstance(n.func, ast.Attribute) and \
                    n.func.attr == "remove" and \
                    "source" in ast.unparse(n.func.value).lower():
                return True
    return False


def _failing_value(test, variable, helpers, env_of):
    """The value of variable that makes test fail, where the test says one:
    under a `not`, the value that makes what it negates hold; compared
    unequal to a string, that string. None otherwise."""
    reads = functools.partial(_test_reads, helpers=helpers, env_of=env_of)
    for n in ast.walk(test):
        if isinstance(n, ast.UnaryOp) and isinstance(n.op, ast.Not) and \
                variable in reads(n.operand):
            return _holding_value(n.operand, variable, helpers, env_of)
        if isinstance(n, ast.Compare) and len(n.ops) == 1 and \
                isinstance(n.ops[0], ast.NotEq):
            for side, other in ((n.left, n.comparators[0]),
                                (n.comparators[0], n.left)):
                if variable in reads(side) and _const_str(other) is not None:
                    return _const_str(other)
    return None


def cmake_defines_by_env(text):
    """{CMAKE_VARIABLE: (ENV_VARIABLE, value)} of a build script (a
    backend's module, a setup.py) that passes CMake `-DX=ON` inside an `if`
    on an environment variable: deepmd-kit's backend appends
    "-DUSE_CUDA_TOOLKIT:BOOL=TRUE" where DP_VARIANT is "cuda"; a
    scikit-build-core backend sets `settings["cmake.define.X"] = "ON"`. Only
    defines that switch something on (not OFF, 0, FALSE or empty); {} where
    the text does not parse."""
    try:
        tree = ast.parse(text)
    except (SyntaxError, ValueError):
        return {}
    helpers = env_helpers(tree)
    env_of, _ = _env_names(tree, helpers)
    found = {}

    def visit(stmts, above):
        for s in stmts:
            if isinstance(s, ast.If):
                reads = _test_reads(s.test, helpers, env_of)
                # A variable no one value of which makes the test hold
                # (`not os.getenv("V")`) switches nothing on.
                here = above + [
                    (v, wants) for v in reads[:1]
                    for wants in [_holding_value(s.test, v, helpers, env_of)]
                    if wants is not None]
                visit(s.body, here)
                visit(s.orelse, above)
                continue
            inner = [getattr(s, f) for f in ("body", "orelse", "finalbody")
                     if isinstance(getattr(s, f, None), list)]
            if inner:
                for block in inner:
                    visit(block, above)
                continue
            if not above:
                continue
            for n in ast.walk(s):
                value = _const_str(n)
                if value is None and isinstance(n, ast.JoinedStr) and \
                        n.values:
                    value = _const_str(n.values[0])
                m = _DEFINE.match(value or "")
                if m and m.group(2).upper() not in OFF and \
                        "{" not in m.group(2):
                    found.setdefault(m.group(1), above[-1])
                # scikit-build-core's config setting:
                # settings["cmake.define.X"] = "ON".
                if isinstance(n, ast.Assign) and len(n.targets) == 1 and \
                        isinstance(n.targets[0], ast.Subscript):
                    key = _const_str(n.targets[0].slice) or ""
                    value = _const_str(n.value)
                    if key.startswith("cmake.define.") and value and \
                            value.upper() not in OFF:
                        found.setdefault(key[len("cmake.define."):],
                                         above[-1])
    visit(tree.body, [])
    return found
