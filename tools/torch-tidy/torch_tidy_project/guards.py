"""What switches a setup.py's extensions on, read from its text: the
conditions of the `if` branches that add an extension (an `...Extension(...)`
call, `ext_modules.append` / `+=`), as environment variables the condition
reads (directly or through a name assigned from one) and torch-version
gates (`torch.__version__ >= "2.11"`, `TORCH_VERSION >= (2, 11)`), with the
sources the branch names. Coverage's advice is only these: a variable the
build reads for another purpose (a version suffix) is never suggested as a
switch."""
import ast
import glob
import os
import re

SOURCE_SUFFIXES = (".cpp", ".cc", ".cxx", ".cu", ".sycl")
ENV_FUNCS = ("get", "getenv")


class Guard:
    """One switch: an environment variable (kind 'env') or a torch version
    (kind 'torch', value '2.11'), and the sources of the branch it guards
    (real paths; None where the branch names none this reading can see)."""

    def __init__(self, kind, value, sources):
        self.kind, self.value, self.sources = kind, value, sources

    def hint(self, python=None):
        if self.kind == "env":
            return f"--env {self.value}=1"
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
                        "ext" in ast.unparse(f.value).lower()):
                    return True
            if isinstance(n, ast.AugAssign) and \
                    "ext" in ast.unparse(n.target).lower():
                return True
    return False


def _sources(stmts, directory):
    """Real paths of the sources a branch names: literals that end in a
    source suffix, and glob patterns, relative to setup.py's folder."""
    found = set()
    for s in stmts:
        for n in ast.walk(s):
            v = _const_str(n)
            if not v:
                continue
            if "*" in v:
                for p in glob.glob(os.path.join(directory, v),
                                   recursive=True):
                    if p.endswith(SOURCE_SUFFIXES):
                        found.add(os.path.realpath(p))
            elif v.endswith(SOURCE_SUFFIXES):
                p = os.path.join(directory, v)
                if os.path.exists(p):
                    found.add(os.path.realpath(p))
    return found or None


def read(text, directory):
    """[Guard] of a setup.py's text; [] where it does not parse."""
    try:
        tree = ast.parse(text)
    except (SyntaxError, ValueError):
        return []
    helpers = env_helpers(tree)
    env_of = {}      # a name assigned from environment reads -> variables
    version_names = set()   # names holding torch's version
    for n in ast.walk(tree):
        if isinstance(n, (ast.Assign, ast.AnnAssign)) and n.value is not None:
            targets = n.targets if isinstance(n, ast.Assign) else [n.target]
            reads = env_reads(n.value, helpers)
            value = ast.unparse(n.value)
            for t in targets:
                for x in ast.walk(t):
                    if isinstance(x, ast.Name):
                        if reads:
                            env_of.setdefault(x.id, []).extend(reads)
                        if "torch" in value and "version" in value.lower():
                            version_names.add(x.id)
    guards = []

    def visit(stmts, above):
        for s in stmts:
            if isinstance(s, ast.If):
                reads = env_reads(s.test, helpers) + [
                    v for x in ast.walk(s.test) if isinstance(x, ast.Name)
                    for v in env_of.get(x.id, [])]
                gates = torch_gates(s.test, version_names)
                for branch, holds in ((s.body, True), (s.orelse, False)):
                    conditions = above + [(reads if holds else [],
                                           [(op, v) for op, v in gates
                                            if (op in (">=", ">")) == holds])]
                    if _adds_extension(branch):
                        sources = _sources(branch, directory)
                        for env, versions in conditions:
                            for v in env:
                                guards.append(Guard("env", v, sources))
                            for _, version in versions:
                                guards.append(Guard("torch", version, sources))
                    visit(branch, conditions)
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
    # One guard per switch, its sources merged (None: not known).
    merged = {}
    for g in guards:
        key = (g.kind, g.value)
        if key not in merged:
            merged[key] = Guard(g.kind, g.value, g.sources)
        elif merged[key].sources is not None:
            merged[key].sources = None if g.sources is None else \
                merged[key].sources | g.sources
    return list(merged.values())
