"""Finds, in compiled Python, in-place writes into a tensor made without
gradient tracking from a value that may require grad, where the code reads
the tensor's requires_grad after the write (LibCST, concrete syntax).

What is a compiled region here:
  - a function decorated with torch.compile, torch.compile(...) or
    torch._dynamo.optimize(...);
  - a module-level function passed by name to torch.compile(...) or to
    torch._dynamo.optimize(...)(...) in the same file;
  - the forward of a module whose class is in the file, passed to
    torch.compile (torch.compile(Net()), or torch.compile(model) where
    model = Net(...)) or compiled with model.compile();
  - a function that a region calls by name, defined in the same file or
    imported (`from .utils import helper`, `from pkg.utils import helper`)
    from another file of the same run, and a method of the region's class
    that it calls on self.
Modules of other files passed to torch.compile, and calls through a module
attribute (`utils.helper(x)`), are not followed yet.

Each write is classified into a form of the measured table (ground_truth);
a write of a form the table does not hold is not reported (unmeasured).
"""
import os
from dataclasses import dataclass, field

import libcst as cst
import libcst.matchers as m
from libcst.metadata import MetadataWrapper, PositionProvider

# Factories whose result does not require grad unless asked to.
FACTORIES = {"zeros", "ones", "empty", "full", "zeros_like", "ones_like", "empty_like",
             "full_like", "rand", "randn", "randint", "arange", "linspace", "eye",
             "tensor", "as_tensor"}
NEW_FACTORIES = {"new_zeros", "new_ones", "new_empty", "new_full", "new_tensor"}
# Methods whose result is a view of the receiver.
VIEWS = {"narrow", "select", "view", "view_as", "expand", "expand_as", "transpose", "t",
         "permute", "unsqueeze", "squeeze", "diagonal", "unflatten", "as_strided",
         "swapaxes", "swapdims", "movedim", "unfold"}
# In-place writes measured as their own form (path `python`), on the tensor.
INPLACE_FORMS = {"index_copy_": "index_copy_", "masked_scatter_": "masked_scatter_",
                 "scatter_": "scatter_"}
# In-place arithmetic measured through a view (path `python_view_arith`).
ARITH = {"add_", "sub_", "mul_", "div_", "clamp_", "masked_fill_"}
# Out-of-place forms a fix may write, by the write's form.
REMEDY = {
    "setitem_adv_": "index_put",
    "setitem_slice_int_": "select_scatter",
    "setitem_rows_col_": "slice_scatter",
    "chain_copy_": "slice_scatter of the view's select_scatter",
    "setitem_int_": "select_scatter",
    "narrow_copy_": "slice_scatter",
    "select_copy_": "select_scatter",
    "view_alias_copy_": "slice_scatter",
    "index_copy_": "index_copy",
    "masked_scatter_": "masked_scatter",
    "scatter_": "scatter",
}
DETACHING = {"detach", "item", "tolist", "numpy", "data"}
# The argument whose values an in-place method writes (position, keywords):
# an index or a mask (integers, booleans) never carries grad.
VALUE_ARGUMENT = {"copy_": (0, ("src",)), "index_copy_": (2, ("source",)),
                  "masked_scatter_": (1, ("source",)), "scatter_": (2, ("src", "value")),
                  "add_": (0, ("other",)), "sub_": (0, ("other",)), "mul_": (0, ("other",)),
                  "div_": (0, ("other",)), "masked_fill_": (1, ("value",)),
                  "clamp_": (None, ("min", "max"))}
# The measured target kinds (path python_more, `m[:, 0] = src` into each):
# factory -> its form; torch.zeros is the target of every other form.
TARGET_FORMS = {"zeros": None, "new_zeros": "new_zeros_target_",
                "zeros_like": "zeros_like_target_", "empty": "empty_target_",
                "ones": "ones_target_", "tensor": "tensor_target_"}
CLONE_FORM = "clone_target_"


@dataclass
class Write:
    line: int
    column: int
    target: str
    form: str
    made_line: int
    made_column: int
    factory: str
    # The measured forms of the target's making (TARGET_FORMS; a clone adds
    # CLONE_FORM), or None where a factory was not measured.
    target_forms: tuple
    flag_reads: list = field(default_factory=list)
    function: str = ""


@dataclass
class FileResult:
    path: str
    regions: list = field(default_factory=list)  # [(function, why compiled)]
    writes: list = field(default_factory=list)
    functions: dict = field(default_factory=dict)  # function -> (line, column)


def _dotted(node):
    """'torch.compile' for an Attribute/Name chain, else None."""
    if isinstance(node, cst.Name):
        return node.value
    if isinstance(node, cst.Attribute):
        base = _dotted(node.value)
        return base + "." + node.attr.value if base else None
    return None


class _Survey(cst.CSTVisitor):
    """One walk of the file (LibCST's walks cost about as much as its
    parse): the names under which it reaches torch and torch.compile, its
    calls, and its assignments of a call to a name."""

    def __init__(self):
        self.torch = set()
        self.compile = set()
        self.calls = []
        self.assigned_calls = []  # (name, the called name)
        self.imported = {}  # alias -> (dots, module, name) of `from M import name`

    def visit_Call(self, node):
        self.calls.append(node)

    def visit_Assign(self, node):
        if isinstance(node.value, cst.Call) and isinstance(node.value.func, cst.Name):
            for t in node.targets:
                if isinstance(t.target, cst.Name):
                    self.assigned_calls.append((t.target.value, node.value.func.value))

    def visit_Import(self, node):
        for a in node.names:
            if _dotted(a.name) == "torch":
                self.torch.add(a.asname.name.value if a.asname else "torch")

    def visit_ImportFrom(self, node):
        if isinstance(node.names, cst.ImportStar):
            return
        module = _dotted(node.module) if node.module is not None else ""
        for a in node.names:
            if not isinstance(a.name, cst.Name):
                continue
            alias = a.asname.name.value if a.asname else a.name.value
            if module == "torch" and a.name.value == "compile":
                self.compile.add(alias)
            elif module is not None:
                # (dots, module, name): a function another file may define.
                self.imported[alias] = (len(node.relative), module, a.name.value)


class Analyzer:
    def __init__(self, source, path="<string>"):
        self.path = path
        # The tree is only read: no copy for the metadata (LibCST copies by
        # default, which costs as much as the parse).
        self.wrapper = MetadataWrapper(cst.parse_module(source), unsafe_skip_copy=True)
        self._pos = None
        survey = _Survey()
        self.wrapper.module.visit(survey)
        self.torch = survey.torch
        self.compile_names = survey.compile
        self.calls = survey.calls
        self.imported = survey.imported
        # Module-level functions by name, methods as "Class.method".
        self.functions = {}
        self.classes = set()
        for stmt in self.wrapper.module.body:
            if isinstance(stmt, cst.FunctionDef):
                self.functions[stmt.name.value] = stmt
            elif isinstance(stmt, cst.ClassDef):
                self.classes.add(stmt.name.value)
                for item in stmt.body.body:
                    if isinstance(item, cst.FunctionDef):
                        self.functions[f"{stmt.name.value}.{item.name.value}"] = item
        # Names bound to an instance of a class of this file: model = Net().
        self.instances = {name: cls for name, cls in survey.assigned_calls
                          if cls in self.classes}

    @property
    def pos(self):
        """Positions, resolved once a file has a region (it costs about
        twice the parse)."""
        if self._pos is None:
            self._pos = self.wrapper.resolve(PositionProvider)
        return self._pos

    # -- regions --------------------------------------------------------
    def _is_compile(self, node):
        name = _dotted(node)
        if name is None:
            return False
        if name in self.compile_names:
            return True
        head, _, rest = name.partition(".")
        return head in self.torch and rest in ("compile", "_dynamo.optimize")

    def _compiling_decorator(self, dec):
        d = dec.decorator
        return self._is_compile(d.func if isinstance(d, cst.Call) else d)

    def roots(self):
        """{function: why it is compiled} for the regions this file makes."""
        roots = {}
        for name, fn in self.functions.items():
            if any(self._compiling_decorator(d) for d in fn.decorators):
                roots[name] = "decorated with torch.compile"
        for call in self.calls:
            func = call.func
            # torch.compile(fn, ...) and torch._dynamo.optimize(...)(fn)
            arg = None
            if self._is_compile(func) and call.args:
                arg = call.args[0].value
            elif isinstance(func, cst.Call) and self._is_compile(func.func) and call.args:
                arg = call.args[0].value
            if isinstance(arg, cst.Name) and arg.value in self.functions:
                roots.setdefault(arg.value, "passed to torch.compile")
            # A module: torch.compile(Net(...)), torch.compile(model).
            cls = self._instance_class(arg)
            if cls and f"{cls}.forward" in self.functions:
                roots.setdefault(f"{cls}.forward",
                                 f"the forward of a '{cls}' passed to torch.compile")
            # model.compile()
            if m.matches(func, m.Attribute(attr=m.Name("compile"))):
                cls = self._instance_class(func.value)
                if cls and f"{cls}.forward" in self.functions:
                    roots.setdefault(f"{cls}.forward",
                                     f"the forward of a '{cls}' compiled with .compile()")
        return roots

    def callees(self, name):
        """What a function calls that may be defined in the project: a name
        ('f'), or a method of its own class on self ('Class.f')."""
        cls = name.split(".")[0] if "." in name else None
        for call in m.findall(self.functions[name], m.Call()):
            if isinstance(call.func, cst.Name):
                yield call.func.value
            elif cls and m.matches(call.func, m.Attribute(value=m.Name("self"))):
                yield f"{cls}.{call.func.attr.value}"

    def _instance_class(self, node):
        if isinstance(node, cst.Call) and isinstance(node.func, cst.Name) and \
                node.func.value in self.classes:
            return node.func.value
        if isinstance(node, cst.Name):
            return self.instances.get(node.value)
        return None

    # -- writes ---------------------------------------------------------
    def analyse(self, regions=None):
        """The file's writes in its regions (by default those it makes and
        reaches itself; Project gives those other files reach)."""
        if regions is None:
            regions = Project([self]).regions()[self.path]
        result = FileResult(self.path)
        for name, why in regions.items():
            result.regions.append((name, why))
            where = self.pos[self.functions[name].name].start
            result.functions[name] = (where.line, where.column + 1)
            result.writes += _FunctionScan(self, name).run()
        result.writes.sort(key=lambda w: (w.line, w.column))
        return result


class Project:
    """The files of one run: a region's calls to a function another of them
    defines (`from .utils import helper`, `from pkg.utils import helper`)
    make that function a region too."""

    def __init__(self, analyzers):
        self.files = {os.path.normpath(a.path): a for a in analyzers}

    def _resolve(self, analyzer, spec):
        dots, module, _ = spec
        parts = module.split(".") if module else []
        if dots:
            base = os.path.dirname(os.path.normpath(analyzer.path))
            for _ in range(dots - 1):
                base = os.path.dirname(base)
            stem = os.path.join(base, *parts)
            for cand in (stem + ".py", os.path.join(stem, "__init__.py")):
                if cand in self.files:
                    return self.files[cand]
            return None
        tails = (os.path.join(*parts) + ".py", os.path.join(*parts, "__init__.py")) \
            if parts else ()
        found = [a for p, a in self.files.items()
                 if any(p == t or p.endswith(os.sep + t) for t in tails)]
        return found[0] if len(found) == 1 else None

    def regions(self):
        """{path: {function: why it is compiled}}."""
        seen = {p: {} for p in self.files}
        work = []
        for p, a in self.files.items():
            for name, why in a.roots().items():
                seen[p][name] = why
                work.append((a, name))
        while work:
            a, name = work.pop()
            for callee in a.callees(name):
                target, defined = None, None
                if callee in a.functions:
                    target, defined = a, callee
                elif callee in a.imported:
                    other = self._resolve(a, a.imported[callee])
                    original = a.imported[callee][2]
                    if other is not None and original in other.functions:
                        target, defined = other, original
                if target is None:
                    continue
                tp = os.path.normpath(target.path)
                if defined in seen[tp]:
                    continue
                where = "" if target is a else f" in {os.path.basename(a.path)}"
                seen[tp][defined] = f"called from '{name}'{where}, which is compiled"
                work.append((target, defined))
        return {a.path: seen[p] for p, a in self.files.items()}


class _FunctionScan:
    """One region function, its statements in source order."""

    def __init__(self, analyzer, name):
        self.a = analyzer
        self.name = name
        self.fn = fn = analyzer.functions[name]
        params = fn.params
        self.grad = {p.name.value for p in
                     list(params.posonly_params) + list(params.params) +
                     list(params.kwonly_params)} - {"self", "cls"}
        for star in (params.star_arg, params.star_kwarg):
            if isinstance(star, cst.Param):
                self.grad.add(star.name.value)
        self.fresh = {}   # name -> (line, column, factory, target forms or None)
        self.views = {}   # name -> base name
        self.writes = []
        self.no_grad_depth = 0

    def line(self, node):
        return self.a.pos[node].start.line

    def col(self, node):
        return self.a.pos[node].start.column + 1

    # What an expression is.
    def _factory(self, value):
        """(the factory's spelling, its measured target forms or None) for
        a value made without gradient tracking, else None."""
        if not isinstance(value, cst.Call):
            return None
        if any(a.keyword and a.keyword.value == "requires_grad" for a in value.args):
            return None
        def made(spelling, factory):
            if factory not in TARGET_FORMS:
                return spelling, None  # not measured
            form = TARGET_FORMS[factory]
            return spelling, (form,) if form else ()

        func = value.func
        name = _dotted(func)
        if name:
            head, _, rest = name.partition(".")
            if head in self.a.torch and rest in FACTORIES:
                return made(name, rest)
        if not isinstance(func, cst.Attribute):
            return None
        if func.attr.value in NEW_FACTORIES:
            return made(func.attr.value, func.attr.value)
        # clone() of a fresh tensor, named or made in place, is fresh.
        if func.attr.value == "clone":
            if isinstance(func.value, cst.Name) and func.value.value in self.fresh:
                inner = self.fresh[func.value.value][2:]
            else:
                inner = self._factory(func.value)
            if inner:
                spelling, forms = inner
                return spelling + "(...).clone", (None if forms is None
                                                  else forms + (CLONE_FORM,))
        return None

    def _may_require_grad(self, node):
        if isinstance(node, cst.Name):
            return node.value in self.grad
        if isinstance(node, cst.Attribute):
            if node.attr.value in DETACHING:
                return False
            base = node.value
            if isinstance(base, cst.Name) and base.value == "self":
                return True  # a module's parameter or state
            return self._may_require_grad(base)
        if isinstance(node, cst.Call):
            if isinstance(node.func, cst.Attribute) and node.func.attr.value in DETACHING:
                return False
            parts = [node.func] + [a.value for a in node.args]
            return any(self._may_require_grad(p) for p in parts)
        return any(self._may_require_grad(c) for c in node.children
                   if isinstance(c, cst.BaseExpression))

    def _base_of(self, node):
        """The fresh target a receiver reaches: (name, how) with how one of
        'self' (the tensor), 'named' (a named view), or None."""
        if isinstance(node, cst.Name):
            if node.value in self.fresh:
                return node.value, "self"
            if node.value in self.views:
                return self.views[node.value], "named"
        return None, None

    # Statements.
    def run(self):
        self._block(self.fn.body)
        return self.writes

    def _block(self, suite):
        if isinstance(suite, cst.SimpleStatementSuite):
            for small in suite.body:
                self._small(small)
            return
        for stmt in suite.body:
            self._statement(stmt)

    def _statement(self, stmt):
        if isinstance(stmt, cst.SimpleStatementLine):
            for small in stmt.body:
                self._small(small)
            return
        if isinstance(stmt, cst.With):
            scopes = {f"{t}.{s}" for t in self.a.torch for s in ("no_grad", "inference_mode")}
            no_grad = any(_dotted(i.item.func if isinstance(i.item, cst.Call) else i.item)
                          in scopes for i in stmt.items)
            self.no_grad_depth += no_grad
            self._block(stmt.body)
            self.no_grad_depth -= no_grad
            return
        if isinstance(stmt, (cst.FunctionDef, cst.ClassDef)):
            return  # a nested definition runs when called, not here
        if isinstance(stmt, (cst.If, cst.While)):
            self._flag_reads(stmt.test)
        if isinstance(getattr(stmt, "body", None), cst.BaseSuite):
            self._block(stmt.body)
        for handler in getattr(stmt, "handlers", ()):
            self._block(handler.body)
        orelse = getattr(stmt, "orelse", None)
        if isinstance(orelse, cst.If):
            self._statement(orelse)
        elif orelse is not None:
            self._block(orelse.body)
        final = getattr(stmt, "finalbody", None)
        if final is not None:
            self._block(final.body)

    def _small(self, small):
        if isinstance(small, cst.Assign):
            value = small.value
            for t in small.targets:
                self._assign(t.target, value)
        elif isinstance(small, cst.AnnAssign) and small.value is not None:
            self._assign(small.target, small.value)
        elif isinstance(small, cst.Expr) and isinstance(small.value, cst.Call):
            self._call_write(small.value)
        self._flag_reads(small)

    def _assign(self, target, value):
        if isinstance(target, cst.Subscript):
            self._setitem(target, value)
            return
        if not isinstance(target, cst.Name):
            return
        name = target.value
        self.fresh.pop(name, None)
        self.views.pop(name, None)
        self.grad.discard(name)
        factory = self._factory(value)
        if factory:
            self.fresh[name] = (self.line(target), self.col(target)) + factory
            return
        # A named view of a fresh tensor: v = m[1:3], v = m.narrow(...).
        recv = None
        if isinstance(value, cst.Subscript):
            recv = value.value
        elif isinstance(value, cst.Call) and isinstance(value.func, cst.Attribute) and \
                value.func.attr.value in VIEWS:
            recv = value.func.value
        if recv is not None:
            base, _ = self._base_of(recv)
            if base:
                self.views[name] = base
                return
        if self._may_require_grad(value):
            self.grad.add(name)

    def _setitem(self, target, value):
        base, how = self._base_of(target.value)
        if not base or self.no_grad_depth or not self._may_require_grad(value):
            return
        if how == "named":
            form = "view_alias_copy_"
        else:
            form = _index_form(target)
        self._record(target, base, form)

    def _call_write(self, call):
        func = call.func
        if not isinstance(func, cst.Attribute) or self.no_grad_depth:
            return
        method = func.attr.value
        recv = func.value
        if method not in VALUE_ARGUMENT or \
                not any(self._may_require_grad(v) for v in _value_arguments(call, method)):
            return
        base, how = self._base_of(recv)
        form = None
        if base and how == "self" and method in INPLACE_FORMS:
            form = INPLACE_FORMS[method]
        elif base and how == "named" and method == "copy_":
            form = "view_alias_copy_"
        elif base and how == "named" and method in ARITH:
            form = "named_" + method
        else:
            # m.narrow(...).copy_(x), m.narrow(...).select(...).copy_(x)
            views = []
            while isinstance(recv, cst.Call) and isinstance(recv.func, cst.Attribute) and \
                    recv.func.attr.value in ("narrow", "select"):
                views.append(recv.func.attr.value)
                recv = recv.func.value
            base, how = self._base_of(recv)
            if base and how == "self" and len(views) == 1:
                if method == "copy_":
                    form = f"{views[0]}_copy_"
                elif method in ARITH:
                    form = f"{views[0]}_{method}"
            elif base and how == "self" and len(views) > 1 and method == "copy_":
                form = "chain_copy_"
        if base and form:
            self._record(call, base, form)

    def _record(self, node, base, form):
        made_line, made_column, factory, target_forms = self.fresh[base]
        self.writes.append(Write(self.line(node), self.col(node), base, form, made_line,
                                 made_column, factory, target_forms, function=self.name))

    def _flag_reads(self, node):
        for attr in m.findall(node, m.Attribute(attr=m.Name("requires_grad"))):
            if isinstance(attr.value, cst.Name):
                name = attr.value.value
                base = name if name in self.fresh else self.views.get(name)
                for w in self.writes:
                    if w.target == base and w.function == self.name:
                        w.flag_reads.append(self.line(attr))


def _value_arguments(call, method):
    """The arguments of an in-place method call that give the written values."""
    position, keywords = VALUE_ARGUMENT[method]
    positional = [a.value for a in call.args if a.keyword is None and a.star == ""]
    named = [a.value for a in call.args if a.keyword and a.keyword.value in keywords]
    if position is None:
        return positional + named
    return positional[position:position + 1] + named


def _index_form(sub):
    """setitem_adv_ (any index a tensor, list or name), setitem_rows_col_ (a
    bounded slice among the indices: m[1:3, 0]), setitem_slice_int_ (a whole
    slice: m[:, 0]), setitem_int_ (integers only)."""
    kinds = set()
    for el in sub.slice:
        s = el.slice
        if isinstance(s, cst.Slice):
            bounded = s.lower is not None or s.upper is not None
            kinds.add("bounded" if bounded else "slice")
        elif isinstance(s.value, cst.Integer) or (
                isinstance(s.value, cst.UnaryOperation) and
                isinstance(s.value.expression, cst.Integer)):
            kinds.add("int")
        elif isinstance(s.value, cst.Ellipsis) or \
                (isinstance(s.value, cst.Name) and s.value.value == "None"):
            kinds.add("slice")
        else:
            kinds.add("advanced")
    if "advanced" in kinds:
        return "setitem_adv_"
    if "bounded" in kinds:
        return "setitem_rows_col_"
    if "slice" in kinds:
        return "setitem_slice_int_"
    return "setitem_int_"
