"""One Python file, parsed once (LibCST) and indexed: the names under which
it reaches torch, compile, checkpoint and autograd.Function; its imports;
every function and class it defines (at module level, under `if`/`try`,
in class bodies and nested in functions); what each class's methods bind
on self (submodules, containers of submodules, buffers); what each scope
binds to a name; and the places where it compiles something or replaces a
module's forward. Nothing here follows calls or other files: regions.py
does, from these facts."""
import re
from dataclasses import dataclass, field

import libcst as cst
from libcst.metadata import MetadataWrapper, PositionProvider

from . import torch_names as tn

MARKER = re.compile(r"#\s*torch-tidy:\s*compiled\b")


def dotted(node):
    """'torch.compile' for an Attribute/Name chain, else None."""
    if isinstance(node, cst.Name):
        return node.value
    if isinstance(node, cst.Attribute):
        base = dotted(node.value)
        return base + "." + node.attr.value if base else None
    return None


def constructed(value):
    """The callee of a call that makes value, through the module methods that
    return the module itself (Net(...).cuda().eval()): its dotted name and
    the call; (None, None) for another value."""
    while isinstance(value, cst.Call) and isinstance(value.func, cst.Attribute) and \
            value.func.attr.value in tn.MODULE_SELF_METHODS:
        value = value.func.value
    if isinstance(value, cst.Call):
        name = dotted(value.func)
        if name:
            return name, value
    return None, None


@dataclass
class FunctionInfo:
    key: str            # "f", "Class.method", "outer.inner"
    node: cst.FunctionDef
    cls: str = None     # the class whose body defines it
    outer: str = None   # the function it is nested in
    nested: list = field(default_factory=list)  # keys of functions nested in it


@dataclass
class ClassInfo:
    name: str
    node: cst.ClassDef
    bases: list = field(default_factory=list)    # dotted names
    methods: dict = field(default_factory=dict)  # name -> function key
    # self.attr = value in its methods: attr -> [(value, the method's key)]
    members: dict = field(default_factory=dict)
    # self.attr.append(v), self.attr[k] = v, self.attr.extend([...]):
    # attr -> [(value, the method's key)]
    added: dict = field(default_factory=dict)
    buffers: dict = field(default_factory=dict)  # register_buffer: name -> value or None
    frozen: set = field(default_factory=set)     # nn.Parameter(..., requires_grad=False)


@dataclass
class CompileSite:
    """torch.compile(arg), optimize(...)(arg), a compile alias or maker
    called on arg, arg.compile(), or a decorator: in scope (a function key,
    or None at module level)."""
    scope: str
    arg: cst.BaseExpression
    how: str            # "passed to torch.compile", "compiled with .compile()", ...
    node: cst.CSTNode
    loops: tuple = ()   # the For statements around it, innermost last


@dataclass
class ForwardPatch:
    """X.forward = value: a module's forward replaced (value a function,
    types.MethodType(f, x), functools.partial(f, x), f.__get__(x))."""
    scope: str
    owner: cst.BaseExpression
    value: cst.BaseExpression
    loops: tuple = ()


class PythonFile:
    def __init__(self, source, path="<string>"):
        self.path = path
        self.source = source
        # The tree is only read: no copy for the metadata (LibCST copies by
        # default, which costs as much as the parse).
        self.wrapper = MetadataWrapper(cst.parse_module(source), unsafe_skip_copy=True)
        self.module = self.wrapper.module
        self._pos = None
        self.torch = set()         # names of the torch module
        self.torch_members = {}    # alias -> dotted name under torch (from torch.x import y)
        self.imported = {}         # alias -> (dots, module, name) of `from M import name`
        self.modules = {}          # alias -> (dots, module) of `import M` / `from . import M`
        self.compile_aliases = {}  # name -> how it compiles (tc = torch.compile, ...)
        self.compile_makers = {}   # function key -> the index of the parameter it compiles
        self.functions = {}
        self.classes = {}
        self.bindings = {}         # (scope, name) -> [values]
        self.loops = {}            # (scope, name) -> [(iterable, kind)]
        self.compile_sites = []
        self.library_sites = []    # (scope, call, fors): accelerator.prepare(...), Trainer(...)
        self.calls = []            # (scope, call, fors): every call
        self.patches = []
        self.apply_aliases = {}    # name -> class, for `name = SomeFunction.apply`
        self.markers = set()       # function keys and class names marked compiled
        self.returns = {}          # function key -> its return statements (with a value)
        _Survey(self).run()
        if MARKER.search(source):
            self._read_markers()

    @property
    def pos(self):
        """Positions, resolved where needed (it costs about twice the parse)."""
        if self._pos is None:
            self._pos = self.wrapper.resolve(PositionProvider)
        return self._pos

    def line(self, node):
        return self.pos[node].start.line

    def column(self, node):
        return self.pos[node].start.column + 1

    def code(self, node):
        return self.module.code_for_node(node).strip()

    # -- names ----------------------------------------------------------
    def torch_name(self, node):
        """'compile' for torch.compile (however torch is imported), else None."""
        name = dotted(node)
        if name is None:
            return None
        head, _, rest = name.partition(".")
        if head in self.torch:
            return rest
        if head in self.torch_members:
            base = self.torch_members[head]
            return base + ("." + rest if rest else "")
        return None

    def is_compile(self, node):
        name = dotted(node)
        return name is not None and (name in self.compile_aliases or
                                     self.torch_name(node) in tn.COMPILE)

    def compiling_decorator(self, dec):
        d = dec.decorator
        if isinstance(d, cst.Call):
            return self.is_compile(d.func) or dotted(d.func) in self.compile_makers or \
                (isinstance(d.func, cst.Call) and self.is_compile(d.func.func))
        return self.is_compile(d) or dotted(d) in self.compile_makers

    def grad_scope(self, node):
        """'off' for no_grad()/inference_mode()/set_grad_enabled(False), 'on'
        for enable_grad()/set_grad_enabled(True), else None (a decorator or
        a with item)."""
        call = node if isinstance(node, cst.Call) else None
        name = self.torch_name(call.func if call else node)
        if name in tn.NO_GRAD:
            return "off"
        if name in tn.ENABLE_GRAD:
            return "on"
        if name in tn.SET_GRAD_ENABLED and call and call.args:
            value = call.args[0].value
            if isinstance(value, cst.Name) and value.value in ("False", "True"):
                return "off" if value.value == "False" else "on"
        return None

    def is_function_base(self, name):
        head, _, rest = name.partition(".")
        if head in self.torch:
            return rest in tn.FUNCTION_BASES
        if head in self.torch_members:
            full = self.torch_members[head] + ("." + rest if rest else "")
            return full in tn.FUNCTION_BASES
        return False

    def is_checkpoint(self, node):
        return self.torch_name(node) in tn.CHECKPOINT

    def _read_markers(self):
        """`# torch-tidy: compiled` on a def's or class's line, or on the
        line above it (its decorators included)."""
        lines = self.source.splitlines()
        marked = {i + 1 for i, text in enumerate(lines) if MARKER.search(text)}

        def header(node):
            first = min([self.line(d) for d in node.decorators] + [self.line(node)])
            return set(range(first - 1, self.line(node.name) + 1))
        for key, info in self.functions.items():
            if header(info.node) & marked:
                self.markers.add(key)
        for name, info in self.classes.items():
            if header(info.node) & marked:
                self.markers.add(name)


class _Survey(cst.CSTVisitor):
    """One walk of the file (LibCST's walks cost about as much as its
    parse), with the class and function it is in."""

    def __init__(self, f):
        self.f = f
        self.classes = []    # ClassInfo stack
        self.functions = []  # FunctionInfo stack
        self.fors = []       # For stack (within the current function)
        self.saved_fors = []
        self.calls = []      # (scope, call, fors)

    def run(self):
        self.f.module.visit(self)
        self.f.calls = self.calls
        self._calls_by_scope = {}
        for entry in self.calls:
            self._calls_by_scope.setdefault(entry[0], []).append(entry)
        # What compiles is known once every alias and maker is.
        for info in self.f.functions.values():
            self._compile_maker(info)
        for info in list(self.f.functions.values()) + list(self.f.classes.values()):
            if any(self.f.compiling_decorator(d) for d in info.node.decorators):
                self.f.compile_sites.append(CompileSite(
                    getattr(info, "outer", None), None, "decorated with torch.compile",
                    info.node))
        for scope, call, fors in self.calls:
            self._compile_site(scope, call, fors)

    @property
    def scope(self):
        return self.functions[-1].key if self.functions else None

    # imports
    def visit_Import(self, node):
        for a in node.names:
            name = dotted(a.name)
            if name == "torch":
                self.f.torch.add(a.asname.name.value if a.asname else "torch")
            elif name and name.startswith("torch.") and a.asname:
                self.f.torch_members[a.asname.name.value] = name[len("torch."):]
            elif name and name.startswith("torch."):
                self.f.torch.add("torch")
            elif name:
                alias = a.asname.name.value if a.asname else name.split(".")[0]
                self.f.modules[alias] = (0, name if a.asname else name.split(".")[0])

    def visit_ImportFrom(self, node):
        if isinstance(node.names, cst.ImportStar):
            return
        module = dotted(node.module) if node.module is not None else ""
        dots = len(node.relative)
        for a in node.names:
            if not isinstance(a.name, (cst.Name, cst.Attribute)):
                continue
            name = dotted(a.name)
            alias = a.asname.name.value if a.asname else name
            if not dots and (module == "torch" or module.startswith("torch.")):
                self.f.torch_members[alias] = (module[len("torch."):] + "." if module != "torch"
                                               else "") + name
            elif module is not None:
                # A function or class another file may define; or a module
                # (from . import utils), told apart when resolved.
                self.f.imported[alias] = (dots, module, name)

    # definitions
    def visit_ClassDef(self, node):
        if self.functions:
            return False  # a class inside a function: not followed
        info = ClassInfo(node.name.value, node,
                         [dotted(b.value) for b in node.bases if dotted(b.value)])
        self.f.classes.setdefault(info.name, info)
        self.classes.append(info)
        return True

    def leave_ClassDef(self, node):
        if self.classes and self.classes[-1].node is node:
            self.classes.pop()

    def visit_FunctionDef(self, node):
        name = node.name.value
        if self.functions:
            outer = self.functions[-1]
            key = f"{outer.key}.{name}"
            info = FunctionInfo(key, node, outer.cls, outer.key)
            outer.nested.append(key)
        elif self.classes:
            cls = self.classes[-1]
            key = f"{cls.name}.{name}"
            info = FunctionInfo(key, node, cls.name)
            cls.methods.setdefault(name, key)
        else:
            key = name
            info = FunctionInfo(key, node)
        if key in self.f.functions:  # defined again (if/else): both are read
            key = f"{key}@{len(self.f.functions)}"
            info.key = key
        self.f.functions[key] = info
        self.functions.append(info)
        self.saved_fors.append(self.fors)
        self.fors = []
        return True

    def leave_FunctionDef(self, node):
        self.functions.pop()
        self.fors = self.saved_fors.pop()

    def visit_Return(self, node):
        if self.functions and node.value is not None:
            self.f.returns.setdefault(self.functions[-1].key, []).append(node)

    def _compile_maker(self, info):
        """A function that hands one of its parameters to torch.compile
        (def compile_model(model, config): ... torch.compile(model, ...)):
        what it is called on is compiled, as where it is called."""
        params = [p.name.value for p in info.node.params.params]
        for scope, call, _ in self._calls_by_scope.get(info.key, ()):
            if self.f.is_compile(call.func) and call.args and \
                    isinstance(call.args[0].value, cst.Name) and \
                    call.args[0].value.value in params:
                self.f.compile_makers[info.key] = params.index(call.args[0].value.value)
                return

    def visit_For(self, node):
        self.fors.append(node)
        target, iterable, pairs, kind = node.target, node.iter, False, "elements"
        if isinstance(iterable, cst.Call) and isinstance(iterable.func, cst.Name) and \
                iterable.func.value == "enumerate" and iterable.args:
            iterable, pairs = iterable.args[0].value, True
        if isinstance(iterable, cst.Call) and isinstance(iterable.func, cst.Attribute) and \
                iterable.func.attr.value in tn.ITERATORS:
            how = tn.ITERATORS[iterable.func.attr.value]
            pairs = pairs or how.startswith("pairs")
            kind = "all" if how.endswith("all") else "elements"
            iterable = iterable.func.value
        if pairs:
            if not (isinstance(target, cst.Tuple) and len(target.elements) == 2):
                return True
            target = target.elements[1].value
        if isinstance(target, cst.Name):
            self.f.loops.setdefault((self.scope, target.value), []).append((iterable, kind))
        return True

    def leave_For(self, node):
        if self.fors and self.fors[-1] is node:
            self.fors.pop()

    # bindings
    def visit_Assign(self, node):
        for t in node.targets:
            self._bind(t.target, node.value)

    def visit_AnnAssign(self, node):
        if node.value is not None:
            self._bind(node.target, node.value)

    def _compile_alias(self, value):
        """How a module-level value compiles what it is called on: an alias
        of torch.compile (tc = torch.compile), one chosen by a condition,
        functools.partial of it, torch.compile(mode=...) with no function
        (a decorator), torch._dynamo.optimize(...); else None."""
        f = self.f
        if f.is_compile(value):
            return f"an alias of {dotted(value)}"
        if isinstance(value, cst.IfExp) and (f.is_compile(value.body) or
                                             f.is_compile(value.orelse)):
            return "torch.compile where a condition chooses it"
        if isinstance(value, cst.Call):
            if dotted(value.func) in ("functools.partial", "partial") and value.args and \
                    f.is_compile(value.args[0].value):
                return "functools.partial(torch.compile, ...)"
            if f.is_compile(value.func) and not any(a.keyword is None for a in value.args):
                return f"{dotted(value.func)}(...) with no function: a decorator"
        return None

    def _bind(self, target, value):
        f = self.f
        if isinstance(target, cst.Name):
            f.bindings.setdefault((self.scope, target.value), []).append(value)
            if self.scope is None:
                how = self._compile_alias(value)
                if how:
                    f.compile_aliases[target.value] = how
                elif isinstance(value, cst.Attribute) and value.attr.value == "apply" and \
                        isinstance(value.value, cst.Name):
                    f.apply_aliases[target.value] = value.value.value
            return
        if isinstance(target, cst.Attribute):
            if target.attr.value == "forward":
                self.f.patches.append(ForwardPatch(self.scope, target.value, value,
                                                   tuple(self.fors)))
            if isinstance(target.value, cst.Name) and target.value.value == "self" and \
                    self.classes:
                cls = self.classes[-1]
                cls.members.setdefault(target.attr.value, []).append((value, self.scope))
                if isinstance(value, cst.Call) and (dotted(value.func) or "").endswith(
                        "Parameter") and any(
                        a.keyword and a.keyword.value == "requires_grad" and
                        isinstance(a.value, cst.Name) and a.value.value == "False"
                        for a in value.args):
                    cls.frozen.add(target.attr.value)
            return
        if isinstance(target, cst.Subscript) and self.classes and \
                _self_attribute(target.value):
            self.classes[-1].added.setdefault(target.value.attr.value, []).append(
                (value, self.scope))

    def visit_Call(self, node):
        func = node.func
        # self.layers.append(Block()), self.register_buffer("rows", rows)
        if isinstance(func, cst.Attribute) and self.classes:
            if func.attr.value in ("append", "extend", "insert", "add_module") and \
                    _self_attribute(func.value) and node.args:
                self.classes[-1].added.setdefault(func.value.attr.value, []).append(
                    (node.args[-1].value, self.scope))
            elif func.attr.value == "add_module" and isinstance(func.value, cst.Name) and \
                    func.value.value == "self" and len(node.args) >= 2 and \
                    isinstance(node.args[0].value, cst.SimpleString):
                self.classes[-1].members.setdefault(
                    node.args[0].value.evaluated_value, []).append(
                    (node.args[1].value, self.scope))
            elif func.attr.value == "register_buffer" and isinstance(func.value, cst.Name) and \
                    func.value.value == "self" and node.args and \
                    isinstance(node.args[0].value, cst.SimpleString):
                self.classes[-1].buffers[node.args[0].value.evaluated_value] = \
                    node.args[1].value if len(node.args) > 1 else None
        self.calls.append((self.scope, node, tuple(self.fors)))

    def _compile_site(self, scope, node, fors):
        """torch.compile(arg), optimize(...)(arg), an alias or a maker called
        on arg, arg.compile()."""
        f, func = self.f, node.func
        how, arg = None, None
        if f.is_compile(func) and node.args:
            how, arg = "passed to torch.compile", node.args[0].value
        elif isinstance(func, cst.Call) and f.is_compile(func.func) and node.args:
            how, arg = "passed to torch.compile", node.args[0].value
        elif dotted(func) in f.compile_makers and node.args:
            index = f.compile_makers[dotted(func)]
            if index < len(node.args):
                how = f"passed to '{dotted(func)}', which compiles it"
                arg = node.args[index].value
        elif isinstance(func, cst.Attribute) and func.attr.value == "compile" and \
                not f.is_compile(func) and not _is_regex(func):
            how, arg = "compiled with .compile()", func.value
        if how:
            f.compile_sites.append(CompileSite(scope, arg, how, node, fors))
        elif (isinstance(func, cst.Attribute) and func.attr.value == "prepare") or \
                (dotted(func) or "").split(".")[-1] == "Trainer":
            # Libraries that compile what they are given: accelerate's
            # prepare (an Accelerator with a dynamo backend), transformers'
            # Trainer (TrainingArguments with torch_compile); regions.py
            # decides from how they were made.
            f.library_sites.append((scope, node, fors))


def _self_attribute(node):
    return isinstance(node, cst.Attribute) and isinstance(node.value, cst.Name) and \
        node.value.value == "self"


def _is_regex(func):
    """re.compile(...), a pattern's compile: not a module's."""
    return dotted(func.value) in ("re", "regex") or (
        isinstance(func.value, cst.Name) and func.value.value in ("re", "regex"))
