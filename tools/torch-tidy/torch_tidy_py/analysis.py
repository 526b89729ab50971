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
# In-place methods that write no values into the tensor.
NOT_WRITES = {"requires_grad_", "detach_", "retain_grad", "share_memory_", "pin_memory_",
              "record_stream"}
# Integer and boolean tensors never require grad: a target made with such a
# dtype is none, and a value of such a kind carries no grad.
INT_DTYPES = {"bool", "uint8", "int8", "int16", "short", "int32", "int", "int64", "long",
              "uint16", "uint32", "uint64"}
INT_RESULTS = {"long", "int", "bool", "short", "byte", "char", "argmax", "argmin", "argsort",
               "nonzero", "eq", "ne", "lt", "le", "gt", "ge", "logical_not", "logical_and",
               "logical_or", "logical_xor", "isnan", "isinf", "isfinite", "bucketize",
               "searchsorted", "randint", "randperm", "numel", "dim", "size"}
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
# Calls of torch whose result is a tensor (or a tuple of tensors): an index
# made by one may be passed to index_put, which takes tensors only.
INDEX_TENSOR_FUNCS = {"arange", "tensor", "as_tensor", "triu_indices", "tril_indices",
                      "nonzero", "where", "randint", "randperm", "argsort", "argmax",
                      "argmin", "bucketize", "searchsorted", "cat", "stack", "full",
                      "zeros", "ones", "unique", "masked_select", "logical_not", "isnan",
                      "isfinite", "eq", "ne", "lt", "le", "gt", "ge"}
# torch functions whose result is a boolean tensor (a mask).
MASK_FUNCS = {"ge", "gt", "le", "lt", "eq", "ne", "isnan", "isfinite", "isinf",
              "logical_not", "logical_and", "logical_or", "logical_xor"}
# torch functions whose result, unpacked, gives 1-D index tensors.
UNPACK_1D = {"triu_indices", "tril_indices", "nonzero"}
# A use of the target that neither keeps a reference to it nor gives one
# away (a fix rebinds the name: a reference kept before the write would not
# see it): its metadata and results that are new tensors.
SAFE_ATTRIBUTES = {"shape", "dtype", "device", "requires_grad", "ndim", "is_cuda", "layout",
                   "is_leaf", "grad_fn"}
SAFE_METHODS = {"size", "dim", "numel", "sum", "mean", "norm", "max", "min", "amax", "amin",
                "prod", "std", "var", "any", "all", "clone", "item", "tolist"}


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
    source: str = ""  # the written value, as written (shortened)
    # The fix: its rule (a row of RewriteRules.def), the replacement of the
    # write's statement and the statement's range ((line, column) start and
    # end, columns from 1); or why there is none.
    fix_rule: str = None
    fix_text: str = None
    fix_layout: str = None  # fix_text laid out like the file (cli.layout)
    fix_range: tuple = None
    no_fix: str = None
    statement: object = field(default=None, repr=False)  # the node a fix replaces


@dataclass
class FileResult:
    path: str
    regions: list = field(default_factory=list)  # [(function, why compiled)]
    writes: list = field(default_factory=list)
    functions: dict = field(default_factory=dict)  # function -> (line, column)


# Module methods that return the module itself: GPT(...).cuda() is a GPT.
MODULE_SELF_METHODS = {"cuda", "cpu", "to", "train", "eval", "float", "half", "bfloat16",
                       "double", "requires_grad_", "to_empty", "type"}


def _constructed(value):
    """The class name called to make value: Net(...), and Net(...).cuda(),
    .to(device), .eval(), ... (methods that return the module); else None."""
    while isinstance(value, cst.Call) and isinstance(value.func, cst.Attribute) and \
            value.func.attr.value in MODULE_SELF_METHODS:
        value = value.func.value
    if isinstance(value, cst.Call) and isinstance(value.func, cst.Name):
        return value.func.value
    return None


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
        made = _constructed(node.value)
        if made:
            for t in node.targets:
                if isinstance(t.target, cst.Name):
                    self.assigned_calls.append((t.target.value, made))

    def visit_AnnAssign(self, node):
        # model: nn.Module = GPT(...)
        made = _constructed(node.value) if node.value is not None else None
        if made and isinstance(node.target, cst.Name):
            self.assigned_calls.append((node.target.value, made))

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
                          if cls in self.classes or cls in survey.imported}
        # A class's attributes bound to an instance of a class in its
        # methods (self.attn = Attention(...)), and its methods compiled in
        # place (self.f = torch.compile(self.f)).
        self.members = {}
        self.compiled_methods = {}
        for stmt in self.wrapper.module.body:
            if not isinstance(stmt, cst.ClassDef):
                continue
            for assign in m.findall(stmt, m.Assign(targets=[m.AssignTarget(
                    target=m.Attribute(value=m.Name("self")))])):
                attr = assign.targets[0].target.attr.value
                made = _constructed(assign.value)
                if made:
                    self.members[(stmt.name.value, attr)] = made
                v = assign.value
                if isinstance(v, cst.Call) and self._is_compile(v.func) and v.args and \
                        m.matches(v.args[0].value, m.Attribute(value=m.Name("self"))) and \
                        f"{stmt.name.value}.{v.args[0].value.attr.value}" in self.functions:
                    self.compiled_methods[f"{stmt.name.value}.{v.args[0].value.attr.value}"] = \
                        f"compiled in place: self.{attr} = torch.compile(self.{v.args[0].value.attr.value})"

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
        for name, why in self.compiled_methods.items():
            roots.setdefault(name, why)
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
            if cls:
                roots.setdefault(f"{cls}.forward",
                                 f"the forward of a '{cls}' passed to torch.compile")
            # model.compile()
            if m.matches(func, m.Attribute(attr=m.Name("compile"))):
                cls = self._instance_class(func.value)
                if cls:
                    roots.setdefault(f"{cls}.forward",
                                     f"the forward of a '{cls}' compiled with .compile()")
        # Those of a class of this file; the others' (an imported class) are
        # the Project's to find.
        return {name: why for name, why in roots.items() if name in self.functions
                or name.split(".")[0] in self.imported}

    def callees(self, name):
        """What a function calls that may be defined in the project: a name
        ('f'), or a method of its own class on self ('Class.f')."""
        cls = name.split(".")[0] if "." in name else None
        for call in m.findall(self.functions[name], m.Call()):
            if isinstance(call.func, cst.Name):
                yield call.func.value
            elif cls and m.matches(call.func, m.Attribute(value=m.Name("self"))):
                attr = call.func.attr.value
                member = self.members.get((cls, attr))
                if member:
                    # self.attn(x): the forward of the submodule's class
                    yield f"{member}.forward"
                else:
                    yield f"{cls}.{attr}"

    def _instance_class(self, node):
        """The class (of this file, or imported) of a module made by
        node or bound to the name node."""
        made = _constructed(node) if isinstance(node, cst.Call) else None
        if made and (made in self.classes or made in self.imported):
            return made
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

    def _find(self, a, name):
        """(the file, the name there) of a function or method a names: its
        own, or one it imports (`helper`, `Attention.forward` of an imported
        Attention); (None, None) where no file of the run defines it."""
        if name in a.functions:
            return a, name
        head, dot, rest = name.partition(".")
        if head in a.imported:
            other = self._resolve(a, a.imported[head])
            original = a.imported[head][2] + dot + rest
            if other is not None and original in other.functions:
                return other, original
        return None, None

    def regions(self):
        """{path: {function: why it is compiled}}."""
        seen = {p: {} for p in self.files}
        work = []
        for p, a in self.files.items():
            for name, why in a.roots().items():
                seen[p][name] = why
                if name in a.functions:
                    work.append((a, name))
        for p, a in self.files.items():
            for name in list(seen[p]):
                if name not in a.functions:  # the forward of an imported class
                    why = seen[p].pop(name)
                    target, defined = self._find(a, name)
                    if target is not None:
                        tp = os.path.normpath(target.path)
                        seen[tp].setdefault(defined, f"{why} in {os.path.basename(a.path)}")
                        work.append((target, defined))
        while work:
            a, name = work.pop()
            for callee in a.callees(name):
                target, defined = self._find(a, callee)
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
        self.tensors = {}  # names bound to a tensor made by torch -> its ndim or None
        self.masks = set()  # names bound to a boolean tensor
        self.statement = None

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
        if self._int_dtype(value):
            return None  # an integer or boolean tensor never requires grad
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

    def _int_dtype(self, call):
        """Whether a call names an integer or boolean dtype (dtype=torch.long,
        .to(torch.int32)), or is torch.tensor of integer literals."""
        for a in call.args:
            if a.keyword is None and not (isinstance(call.func, cst.Attribute) and
                                          call.func.attr.value == "to"):
                continue
            name = _dotted(a.value) or ""
            head, _, rest = name.partition(".")
            if (a.keyword is None or a.keyword.value == "dtype") and \
                    head in self.a.torch and rest in INT_DTYPES:
                return True
        name = _dotted(call.func) or ""
        if name.partition(".")[2] in ("tensor", "as_tensor") and call.args and \
                not any(a.keyword and a.keyword.value == "dtype" for a in call.args):
            ints = list(m.findall(call.args[0].value, m.Integer()))
            others = list(m.findall(call.args[0].value, m.Float() | m.Name() | m.Call()))
            return bool(ints) and not others
        return False

    def _may_require_grad(self, node):
        if isinstance(node, (cst.Comparison, cst.BooleanOperation)):
            return False  # a boolean
        if isinstance(node, cst.BinaryOperation) and isinstance(
                node.operator, (cst.BitAnd, cst.BitOr, cst.BitXor, cst.LeftShift,
                                cst.RightShift)):
            return False  # integers or booleans
        if isinstance(node, cst.UnaryOperation) and isinstance(node.operator, cst.BitInvert):
            return False
        if isinstance(node, cst.Call):
            name = _dotted(node.func) or ""
            method = node.func.attr.value if isinstance(node.func, cst.Attribute) else ""
            if method in INT_RESULTS or (name.partition(".")[0] in self.a.torch and
                                         name.partition(".")[2] in INT_RESULTS) or \
                    (method == "to" and self._int_dtype(node)):
                return False
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
        self._check_fixes()
        return self.writes

    def _block(self, suite):
        if isinstance(suite, cst.SimpleStatementSuite):
            for small in suite.body:
                self._small(small, alone=len(suite.body) == 1)
            return
        for stmt in suite.body:
            self._statement(stmt)

    def _statement(self, stmt):
        if isinstance(stmt, cst.SimpleStatementLine):
            for small in stmt.body:
                self._small(small, alone=len(stmt.body) == 1)
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

    def _small(self, small, alone=True):
        # The statement a write's fix would replace: alone on its line.
        self.statement = small if alone else None
        if isinstance(small, cst.Assign):
            value = small.value
            if len(small.targets) != 1:
                self.statement = None
            for t in small.targets:
                self._assign(t.target, value)
        elif isinstance(small, cst.AnnAssign) and small.value is not None:
            self._assign(small.target, small.value)
        elif isinstance(small, cst.Expr) and isinstance(small.value, cst.Call):
            self._call_write(small.value)
        elif isinstance(small, cst.AugAssign) and isinstance(small.target, cst.Subscript):
            # m[0:4] += h: not measured; counted, not reported
            base, _ = self._base_of(small.target.value)
            if base and not self.no_grad_depth and self._may_require_grad(small.value):
                self._record(small.target, base, "unmeasured:setitem_augmented",
                             (None, "the form was not measured"))
        self._flag_reads(small)

    def _assign(self, target, value):
        if isinstance(target, cst.Subscript):
            self._setitem(target, value)
            return
        if isinstance(target, cst.Tuple) and self._makes_index_tensor(value):
            # rows, cols = torch.triu_indices(n, n, 1): 1-D each
            one_d = _dotted(value.func).partition(".")[2] in UNPACK_1D
            for el in target.elements:
                if isinstance(el.value, cst.Name):
                    self.tensors[el.value.value] = 1 if one_d else None
            return
        if not isinstance(target, cst.Name):
            return
        name = target.value
        self.tensors.pop(name, None)
        self.masks.discard(name)
        if self._is_mask(value):
            self.masks.add(name)
        if self._makes_index_tensor(value):
            self.tensors[name] = _ndim(value)
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
            plan = (None, "a write through a named view has no fix yet")
        else:
            form = _index_form(target)
            if form == "setitem_adv_" and any(
                    isinstance(el.slice, cst.Index) and self._is_mask(el.slice.value)
                    for el in target.slice):
                # A boolean mask: not the measured form (on torch 2.8.0,
                # m[mask] = x[mask] kept the flag under aot_eager).
                form = "setitem_mask_"
            plan = self._plan_setitem(target, value)
        self._record(target, base, form, plan, value)

    def _call_write(self, call):
        func = call.func
        if not isinstance(func, cst.Attribute) or self.no_grad_depth:
            return
        method = func.attr.value
        recv = func.value
        if method not in VALUE_ARGUMENT:
            self._unmeasured_call(call, method)
            return
        if not any(self._may_require_grad(v) for v in _value_arguments(call, method)):
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
            source = next(v for v in _value_arguments(call, method) if self._may_require_grad(v))
            self._record(call, base, form, self._plan_call(call, base, form), source)

    def _unmeasured_call(self, call, method):
        """An in-place method the table does not hold (index_put_,
        scatter_add_, index_add_, fill_ with a tensor, ...) writing a fresh
        tensor, directly or through views, from a value that may require
        grad: recorded with an unmeasured form, so that it is counted."""
        if not method.endswith("_") or method in NOT_WRITES or self.no_grad_depth:
            return
        recv = call.func.value
        while isinstance(recv, cst.Call) and isinstance(recv.func, cst.Attribute) and \
                recv.func.attr.value in VIEWS:
            recv = recv.func.value
        base, _ = self._base_of(recv)
        if base and any(self._may_require_grad(a.value) for a in call.args):
            self._record(call, base, "unmeasured:" + method, (None, "the form was not measured"))

    def _record(self, node, base, form, plan, source=None):
        made_line, made_column, factory, target_forms = self.fresh[base]
        w = Write(self.line(node), self.col(node), base, form, made_line, made_column,
                  factory, target_forms, function=self.name)
        if source is not None:
            text = " ".join(self._code(source).split())
            w.source = text if len(text) <= 40 else text[:37] + "..."
        rule, text = plan
        if rule is None:
            w.no_fix = text
        elif self.statement is None:
            w.no_fix = "the write shares its statement or line with another"
        else:
            w.fix_rule, w.fix_text = rule, text
            r = self.a.pos[self.statement]
            w.fix_range = ((r.start.line, r.start.column + 1), (r.end.line, r.end.column + 1))
            w.statement = self.statement
        self.writes.append(w)

    # Fixes: the write's statement replaced by the out-of-place form that
    # assigns the target (RewriteRules.def's Python forms).
    def _code(self, node):
        return self.a.wrapper.module.code_for_node(node).strip()

    def _makes_index_tensor(self, value):
        if isinstance(value, cst.Call):
            name = _dotted(value.func)
            if name:
                head, _, rest = name.partition(".")
                return head in self.a.torch and rest in INDEX_TENSOR_FUNCS
        return False

    def _is_mask(self, node):
        if isinstance(node, cst.Name):
            return node.value in self.masks
        if isinstance(node, cst.Comparison):
            return True
        if isinstance(node, cst.Call):
            return (_dotted(node.func) or "").partition(".")[2] in MASK_FUNCS or (
                isinstance(node.func, cst.Attribute) and node.func.attr.value == "bool")
        return False

    def _index_ndim(self, node):
        if isinstance(node, cst.Name):
            return self.tensors.get(node.value)
        return _ndim(node)

    def _is_index_tensor(self, node):
        if isinstance(node, cst.Name):
            return node.value in self.tensors or node.value in self.fresh
        return self._makes_index_tensor(node)

    def _plan_setitem(self, target, value):
        """(rule, text) or (None, why not) for `m[...] = value`."""
        m_ = self._code(target.value)
        v = self._code(value)
        kinds = []
        for el in target.slice:
            s = el.slice
            if isinstance(s, cst.Slice):
                if s.step is not None:
                    return None, "a slice with a step has no fix yet"
                full = s.lower is None and s.upper is None
                kinds.append(("full",) if full else ("bounded", s.lower, s.upper))
            elif _is_int(s.value):
                kinds.append(("int", s.value))
            elif self._is_index_tensor(s.value):
                kinds.append(("tensor", s.value))
            else:
                return None, (f"index_put takes tensors, and '{self._code(s.value)}' is not "
                              "known to be one (made by a torch function in this function)")
        partial = [(d, k) for d, k in enumerate(kinds) if k[0] != "full"]
        if any(k[0] == "tensor" for _, k in partial):
            if any(k[0] != "tensor" for _, k in partial):
                return None, "an index that mixes tensors with integers or slices has no fix yet"
            first, last = partial[0][0], partial[-1][0]
            if last - first + 1 != len(partial):
                return None, "a full slice between tensor indices has no fix"
            # Trailing full slices are index_put's default; a leading one is
            # spelled as a broadcast arange (the seed's own workaround),
            # where each tensor index is known to be 1-D.
            parts = []
            if first:
                if any(self._index_ndim(k[1]) != 1 for _, k in partial):
                    return None, ("a full slice before a tensor index needs the index's "
                                  "number of dimensions, which is not known here")
                torch_ = "torch" if "torch" in self.a.torch else sorted(self.a.torch)[0]
                for d in range(first):
                    nones = ", None" * (first - d)
                    parts.append(f"{torch_}.arange({m_}.shape[{d}], device={m_}.device)"
                                 f"[:{nones}]")
            parts += [self._code(k[1]) for _, k in partial]
            tup = parts[0] + "," if len(parts) == 1 else ", ".join(parts)
            return "index-put-advanced", f"{m_} = {m_}.index_put(({tup}), {v})"
        if len(partial) != 1:
            return None, "a write of several integer or slice indices (a nested scatter) has no fix yet"
        d, k = partial[0]
        if k[0] == "int":
            return "select-scatter", f"{m_} = {m_}.select_scatter({v}, {d}, {self._code(k[1])})"
        lower = self._code(k[1]) if k[1] is not None else "0"
        upper = f", {self._code(k[2])}" if k[2] is not None else ""
        return "slice-scatter", f"{m_} = {m_}.slice_scatter({v}, {d}, {lower}{upper})"

    def _plan_call(self, call, base, form):
        """(rule, text) or (None, why not) for an in-place method's write."""
        func = call.func
        method = func.attr.value
        rest = self._code(call)[len(self._code(func)):]  # "(args)" as written
        if form == "view_alias_copy_" or form.startswith("named_"):
            return None, "a write through a named view has no fix yet"
        if form in INPLACE_FORMS.values():
            rule = {"index_copy_": "index-copy", "masked_scatter_": "masked-scatter",
                    "scatter_": "scatter"}[form]
            return rule, f"{base} = {base}.{method[:-1]}{rest}"
        view = func.value
        if not (isinstance(view, cst.Call) and isinstance(view.func, cst.Attribute) and
                isinstance(view.func.value, cst.Name) and view.func.value.value == base):
            return None, "a write through a chain of views has no fix yet"
        kind = view.func.attr.value
        args = [a.value for a in view.args]
        if any(a.keyword is not None or a.star for a in view.args) or \
                len(args) != (3 if kind == "narrow" else 2) or \
                not all(_pure(a) for a in args):
            return None, (f"the fix repeats {kind}'s arguments, which must be positional and "
                          "free of calls")
        code = [self._code(a) for a in args]
        d = code[0]
        if kind == "narrow":
            if _int_value(args[1]) is not None and _int_value(args[1]) < 0:
                return None, "narrow from a negative start has no fix yet"
            start, length = _int_value(args[1]), _int_value(args[2])
            end = str(start + length) if start is not None and length is not None else \
                f"{_parenthesized(args[1], code[1])} + {_parenthesized(args[2], code[2])}"
            where = f"{d}, {code[1]}, {end}"
            scatter = "slice_scatter"
        else:
            where = f"{d}, {code[1]}"
            scatter = "select_scatter"
        if method == "copy_":
            values = _value_arguments(call, method)
            if len(call.args) != 1 or len(values) != 1:
                return None, "copy_ with more than its source has no fix"
            return ("slice-scatter" if kind == "narrow" else "select-scatter",
                    f"{base} = {base}.{scatter}({self._code(values[0])}, {where})")
        return ("scatter-inplace-arith",
                f"{base} = {base}.{scatter}({self._code(view)}.{method[:-1]}{rest}, {where})")

    def _check_fixes(self):
        """A fix rebinds the target's name: withdrawn where another use of
        the name could hold the tensor across the write (an alias, a view, a
        call that may keep it, a closure), or where a use after the write may
        run before it (in a loop around both)."""
        fixed = [w for w in self.writes if w.fix_rule]
        for target in {w.target for w in fixed}:
            mine = [w for w in fixed if w.target == target]
            uses = _Uses(target, {id(w.statement) for w in mine})
            self.fn.body.visit(uses)
            last = max(w.fix_range[1] for w in mine)
            loops = set()
            for stack in uses.statements:
                loops |= {id(n) for n in stack if isinstance(n, (cst.For, cst.While))}
            why = None
            for node, stack in uses.found:
                if any(isinstance(n, (cst.FunctionDef, cst.Lambda, cst.ClassDef,
                                      cst.Global, cst.Nonlocal)) for n in stack):
                    why = "a nested function, lambda or scope declaration uses it"
                    break
                if _harmless_use(node, stack, uses.statement_ids):
                    continue
                p = self.a.pos[node].start
                after = (p.line, p.column + 1) > last
                in_loop = any(id(n) in loops for n in stack)
                if not after or in_loop:
                    why = (f"'{target}' is used at line {p.line} in a way that may keep a "
                           "reference to it, and the fix rebinds the name")
                    break
            if why:
                for w in mine:
                    w.fix_rule = w.fix_text = w.fix_range = None
                    w.no_fix = why

    def _flag_reads(self, node):
        for attr in m.findall(node, m.Attribute(attr=m.Name("requires_grad"))):
            if isinstance(attr.value, cst.Name):
                name = attr.value.value
                base = name if name in self.fresh else self.views.get(name)
                for w in self.writes:
                    if w.target == base and w.function == self.name:
                        w.flag_reads.append(self.line(attr))


class _Uses(cst.CSTVisitor):
    """Every Name `name` in a function body with its ancestors, and the
    ancestors of the statements given by id."""

    def __init__(self, name, statement_ids):
        self.name = name
        self.statement_ids = statement_ids
        self.stack = []
        self.found = []
        self.statements = []

    def on_visit(self, node):
        if isinstance(node, cst.Name) and node.value == self.name:
            self.found.append((node, tuple(self.stack)))
        if id(node) in self.statement_ids:
            self.statements.append(tuple(self.stack))
        self.stack.append(node)
        return True

    def on_leave(self, original_node):
        self.stack.pop()


def _harmless_use(node, stack, statement_ids):
    """A use that keeps no reference to the tensor: the written statements
    themselves, a binding of the name, another in-place write into it as a
    statement, its metadata, or a method that gives a new tensor or a
    number."""
    if any(id(n) in statement_ids for n in stack):
        return True
    if any(isinstance(n, cst.Return) for n in stack):
        return True  # the function ends there: no later write is seen
    parent = stack[-1] if stack else None
    if isinstance(parent, cst.Attribute) and parent.attr is node:
        return True  # x.name: another name
    if isinstance(parent, (cst.AssignTarget, cst.Param)):
        return True  # a binding
    if isinstance(parent, cst.Arg) and parent.keyword is node:
        return True
    if isinstance(parent, cst.Subscript) and parent.value is node and len(stack) > 1 and \
            isinstance(stack[-2], cst.AssignTarget):
        return True  # m[...] = ...: an in-place write into it
    if not (isinstance(parent, cst.Attribute) and parent.value is node):
        return False
    if parent.attr.value in SAFE_ATTRIBUTES:
        return True
    # A chain of method calls on it: m.sum(), m.narrow(0, 1, 2).zero_()
    methods, k, current = [], len(stack) - 1, None
    while k >= 1 and isinstance(stack[k], cst.Attribute) and \
            isinstance(stack[k - 1], cst.Call) and stack[k - 1].func is stack[k] and \
            (current is None or stack[k].value is current):
        methods.append(stack[k].attr.value)
        current = stack[k - 1]
        k -= 2
    if not methods:
        return False
    if methods[0] in SAFE_METHODS:
        return True
    statement = k >= 0 and isinstance(stack[k], cst.Expr) and stack[k].value is current
    return statement and methods[-1].endswith("_") and \
        all(x in VIEWS for x in methods[:-1])


def check_rule_forms(writes, rules):
    """Withdraws a fix whose text does not have its rule's Python form."""
    for w in writes:
        if w.fix_rule and not rules.matches(w.fix_rule, w.fix_text):
            w.no_fix = (f"the fix '{w.fix_text}' does not have the form of rule "
                        f"'{w.fix_rule}' in RewriteRules.def (a bug; please report it)")
            w.fix_rule = w.fix_text = w.fix_range = None


def _ndim(call):
    """The number of dimensions of a torch call's tensor where the call
    says it: arange (1), tensor of a nested list literal; else None."""
    if not isinstance(call, cst.Call):
        return None
    name = (_dotted(call.func) or "").partition(".")[2]
    if name == "arange":
        return 1
    if name in ("tensor", "as_tensor") and call.args:
        depth, node = 0, call.args[0].value
        while isinstance(node, (cst.List, cst.Tuple)) and node.elements:
            depth += 1
            node = node.elements[0].value
        return depth or None
    return None


def _is_int(node):
    return _int_value(node) is not None


def _int_value(node):
    if isinstance(node, cst.Integer):
        return int(node.value, 0)
    if isinstance(node, cst.UnaryOperation) and isinstance(node.operator, cst.Minus) and \
            isinstance(node.expression, cst.Integer):
        return -int(node.expression.value, 0)
    return None


def _pure(node):
    """An expression without calls (evaluating it twice gives the same)."""
    if isinstance(node, (cst.Name, cst.Integer)):
        return True
    if isinstance(node, cst.UnaryOperation):
        return _pure(node.expression)
    if isinstance(node, cst.BinaryOperation):
        return _pure(node.left) and _pure(node.right)
    if isinstance(node, cst.Attribute):
        return _pure(node.value)
    if isinstance(node, cst.Subscript):
        return _pure(node.value) and all(
            isinstance(e.slice, cst.Index) and _pure(e.slice.value) for e in node.slice)
    return False


def _parenthesized(node, code):
    if isinstance(node, (cst.Name, cst.Integer, cst.Attribute, cst.Subscript)):
        return code
    return f"({code})"


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
