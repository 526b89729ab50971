"""One region function, its statements in source order: the in-place writes
into tensors it made without gradient tracking from values that may
require grad, the values whose flag torch.compile may then read stale
(the written tensor, its named views, values computed from it), and where
that flag is read: an attribute read (requires_grad, grad_fn, is_leaf), an
autograd.Function's apply. Calls into other functions of the run are
edges: what they pass (a stale argument), what they return, whether grad
is enabled there; Project (analysis.py) follows them."""
from dataclasses import dataclass

import libcst as cst
import libcst.matchers as m

from . import torch_names as tn
from .definitions import dotted
from .findings import Consumer, Stale, Write
from .fixes import edits_for, plan_augmented, plan_call, plan_named_view, plan_setitem
from .syntax import int_value, ndim, short, value_arguments


@dataclass
class Edge:
    """A call from the scanned function to a function of the run."""
    file: object
    key: str
    why: str
    stale_args: dict   # the callee's parameter -> frozenset of Stale
    grad: bool         # grad enabled at the call
    line: int


@dataclass
class View:
    base: str
    node: cst.BaseExpression   # the view expression
    statement: object          # the statement that binds it (alone on its line), or None


class FunctionScan:
    def __init__(self, project, f, key, stale_params=None, grad=True):
        self.p, self.f, self.key = project, f, key
        self.info = info = f.functions[key]
        self.fn = fn = info.node
        self.cls = f.classes.get(info.cls) if info.cls else None
        params = fn.params
        plist = list(params.posonly_params) + list(params.params) + list(params.kwonly_params)
        self.params = [p.name.value for p in list(params.posonly_params) + list(params.params)]
        self.grad = set()
        self.known = set()   # names known to hold a tensor (fixes need it)
        for p in plist:
            name = p.name.value
            if name in ("self", "cls"):
                continue
            kind = _annotation_kind(p.annotation)
            if kind != "number":
                self.grad.add(name)
            if kind == "tensor":
                self.known.add(name)
        for star in (params.star_arg, params.star_kwarg):
            if isinstance(star, cst.Param):
                self.grad.add(star.name.value)
        self.known |= _tensor_evidence(fn.body)
        self.fresh = {}   # name -> (line, column, factory, target forms or None)
        self.views = {}   # name -> View
        self.stale = {k: frozenset(v) for k, v in (stale_params or {}).items()}
        self.writes, self.facts, self.edges = [], [], []
        self.returns = set()
        self.applies = {}  # local names bound to a Function's apply -> the Function
        self.tensors = {}  # names bound to a tensor made by torch -> its ndim or None
        self.masks = set()  # names bound to a boolean tensor
        self.statement = None
        self.no_grad_depth = 0 if grad else 1
        if any(f.grad_scope(d.decorator) == "off" for d in fn.decorators):
            self.no_grad_depth = 1
        if self.cls is not None and fn.name.value in tn.FUNCTION_NO_GRAD_METHODS and \
                project.is_function_class(f, self.cls):
            self.no_grad_depth = 1  # an autograd.Function runs these without grad

    def line(self, node):
        return self.f.line(node)

    def col(self, node):
        return self.f.column(node)

    def code(self, node):
        return self.f.code(node)

    @property
    def torch_alias(self):
        return "torch" if "torch" in self.f.torch else sorted(self.f.torch or {"torch"})[0]

    # -- what an expression is -------------------------------------------
    def torch_name(self, node):
        return self.f.torch_name(node)

    def factory(self, value):
        """(the making's spelling, its measured target forms or None) for a
        value made without gradient tracking, else None: a factory, x.new_*,
        then methods that keep it fresh (clone, to, fill_, repeat; others
        keep it fresh unmeasured)."""
        if not isinstance(value, cst.Call):
            return None
        if any(a.keyword and a.keyword.value == "requires_grad" for a in value.args):
            return None
        if self.int_dtype(value):
            return None  # an integer or boolean tensor never requires grad
        chain = []
        node = value
        while isinstance(node, cst.Call) and isinstance(node.func, cst.Attribute):
            method = node.func.attr.value
            if method in tn.NEW_FACTORIES:
                break
            if method in tn.FRESH_CHAIN or method in tn.VIEWS or method in (
                    "cuda", "cpu", "float", "double", "half", "bfloat16", "contiguous",
                    "type", "type_as"):
                if any(a.keyword and a.keyword.value == "requires_grad" for a in node.args) or \
                        self.int_dtype(node) or (method == "fill_" and any(
                            self.may_require_grad(a.value) for a in node.args)):
                    return None  # fill_ of a grad value makes a tensor that requires grad
                chain.append(method)
                node = node.func.value
                continue
            break
        chain.reverse()
        base = None
        if isinstance(node, cst.Call):
            name = self.torch_name(node.func)
            if name in tn.FACTORIES:
                base = (dotted(node.func), name)
            elif isinstance(node.func, cst.Attribute) and node.func.attr.value in tn.NEW_FACTORIES:
                base = (node.func.attr.value, node.func.attr.value)
        elif isinstance(node, cst.Name) and node.value in self.fresh and chain and \
                all(c in ("clone", "repeat") for c in chain):
            # m.clone(), m.repeat(...) of a fresh m: a new fresh tensor (a
            # view or m.to(...) is m itself, or a view of it).
            spelling, forms = self.fresh[node.value][2:]
            if forms is not None:
                return self._chained(spelling, forms, chain)
            return spelling + "".join(f"(...).{c}" for c in chain), None
        if base is None:
            return None
        spelling, factory = base
        if factory == "eye":
            forms = () if "repeat" in chain else None
        elif factory in tn.TARGET_FORMS:
            form = tn.TARGET_FORMS[factory]
            forms = (form,) if form else ()
        else:
            forms = None
        return self._chained(spelling, forms, chain)

    @staticmethod
    def _chained(spelling, forms, chain):
        text = spelling + "".join(f"(...).{c}" for c in chain)
        if forms is None:
            return text, None
        for c in chain:
            if c not in tn.FRESH_CHAIN:
                return text, None
            forms = forms + (tn.FRESH_CHAIN[c],)
        return text, tuple(dict.fromkeys(forms))

    def int_dtype(self, call):
        """Whether a call names an integer or boolean dtype (dtype=torch.long,
        .to(torch.int32)), or is torch.tensor of integer literals."""
        for a in call.args:
            if a.keyword is None and not (isinstance(call.func, cst.Attribute) and
                                          call.func.attr.value == "to"):
                continue
            if (a.keyword is None or a.keyword.value == "dtype") and \
                    self.torch_name(a.value) in tn.INT_DTYPES:
                return True
        name = self.torch_name(call.func) or ""
        if name in ("tensor", "as_tensor") and call.args and \
                not any(a.keyword and a.keyword.value == "dtype" for a in call.args):
            ints = list(m.findall(call.args[0].value, m.Integer()))
            others = list(m.findall(call.args[0].value, m.Float() | m.Name() | m.Call()))
            return bool(ints) and not others
        return False

    def may_require_grad(self, node, stale=True):
        """Whether node may be a tensor that requires grad (a stale value
        counts where stale is true: it requires grad uncompiled)."""
        if isinstance(node, (cst.Comparison, cst.BooleanOperation)):
            return False  # a boolean
        if isinstance(node, (cst.Integer, cst.Float, cst.Imaginary, cst.SimpleString,
                             cst.ConcatenatedString, cst.FormattedString)):
            return False
        if isinstance(node, cst.BinaryOperation) and isinstance(
                node.operator, (cst.BitAnd, cst.BitOr, cst.BitXor, cst.LeftShift,
                                cst.RightShift)):
            return False  # integers or booleans
        if isinstance(node, cst.UnaryOperation) and isinstance(node.operator, cst.BitInvert):
            return False
        if isinstance(node, cst.Call):
            name = dotted(node.func) or ""
            method = node.func.attr.value if isinstance(node.func, cst.Attribute) else ""
            if isinstance(node.func, cst.Name) and name in tn.NUMBER_BUILTINS:
                return False  # float(x), int(...), len(...): Python numbers
            if name.partition(".")[0] == "math":
                return False
            torch_fn = self.torch_name(node.func)
            if method in tn.INT_RESULTS or torch_fn in tn.INT_RESULTS or \
                    (method == "to" and self.int_dtype(node)):
                return False
            if method in tn.DETACHING:
                return False
            if torch_fn in ("tensor", "as_tensor") and not any(
                    a.keyword and a.keyword.value == "requires_grad" for a in node.args):
                return False  # a new tensor of Python values: no grad
            if (torch_fn in tn.FACTORIES or method in tn.NEW_FACTORIES) and not any(
                    a.keyword and a.keyword.value == "requires_grad" for a in node.args):
                return False  # a new tensor without grad, zeros_like(x) and x.new_ones too
        if isinstance(node, cst.Name):
            return node.value in self.grad or (stale and node.value in self.stale)
        if isinstance(node, cst.Attribute):
            if node.attr.value in tn.DETACHING or node.attr.value in tn.SAFE_ATTRIBUTES:
                return False  # detached, or metadata: a shape, a dtype, a flag
            base = node.value
            if isinstance(base, cst.Name) and base.value == "self":
                return not self._never_grad_member(node.attr.value)
            return self.may_require_grad(base, stale)
        if isinstance(node, cst.Call):
            parts = [node.func] + [a.value for a in node.args]
            return any(self.may_require_grad(p, stale) for p in parts)
        return any(self.may_require_grad(c, stale) for c in node.children
                   if isinstance(c, cst.BaseExpression))

    def _never_grad_member(self, attr):
        """A registered buffer, a parameter made with requires_grad=False, or
        a member the class binds only to what is no tensor (a number, a
        string, None, a module, a process group: a call of anything but torch
        or nn.Parameter)."""
        if self.cls is None:
            return False
        values = []
        for g, c in [(self.f, self.cls)] + self.p.bases(self.f, self.cls):
            if attr in c.buffers or attr in c.frozen:
                return True
            values += [(g, v) for v, _ in c.members.get(attr, [])]
        if not values:
            return False  # not bound here: a parameter nn.Module made, perhaps
        return all(_not_a_tensor(g, v) for g, v in values)

    def is_tensor(self, node):
        """Whether node is known to be a tensor (a fix spelled with a scatter
        or index_put needs one: setitem takes Python numbers too)."""
        if isinstance(node, cst.Name):
            return node.value in self.known or node.value in self.fresh or \
                node.value in self.tensors or node.value in self.stale
        if isinstance(node, cst.Attribute):
            if isinstance(node.value, cst.Name) and node.value.value == "self":
                return self._tensor_member(node.attr.value)
            return node.attr.value in ("T", "mT", "H", "mH", "data", "grad") and \
                self.is_tensor(node.value)
        if isinstance(node, cst.Subscript):
            return self.is_tensor(node.value)
        if isinstance(node, cst.UnaryOperation) and isinstance(node.operator, cst.Minus):
            return self.is_tensor(node.expression)
        if isinstance(node, cst.BinaryOperation):
            return self.is_tensor(node.left) or self.is_tensor(node.right)
        if isinstance(node, cst.Call):
            name = self.torch_name(node.func)
            if name is not None:
                return name not in ("is_tensor", "numel", "is_grad_enabled")
            if self._module_call(node):
                return True  # a module's output (a tuple would not be written)
            if isinstance(node.func, cst.Attribute):
                method = node.func.attr.value
                return method not in ("item", "tolist", "size", "dim", "numel", "numpy") and \
                    self.is_tensor(node.func.value)
        return False

    def _module_call(self, call):
        """A call of a submodule: self.proj(x), a module bound to a name or
        iterated from a container of self (for expert in self.experts)."""
        func = call.func
        if isinstance(func, cst.Attribute) and isinstance(func.value, cst.Name) and \
                func.value.value == "self":
            return self.cls is not None and not self.p.method(self.f, self.cls, func.attr.value)
        if isinstance(func, cst.Subscript):
            return self._module_call(cst.Call(func=func.value))
        if isinstance(func, cst.Name):
            for iterable, _ in self.f.loops.get((self.key, func.value), []):
                if isinstance(iterable, cst.Attribute) and \
                        isinstance(iterable.value, cst.Name) and iterable.value.value == "self":
                    return True
        return False

    def _tensor_member(self, attr):
        if self.cls is None:
            return False
        for g, c in [(self.f, self.cls)] + self.p.bases(self.f, self.cls):
            if attr in c.buffers:
                return True
            for value, _ in c.members.get(attr, []):
                name = dotted(value.func) if isinstance(value, cst.Call) else None
                if name and (name.endswith("Parameter") or g.torch_name(value.func) is not None):
                    return True
        return False

    def base_of(self, node):
        """The fresh target a receiver reaches: (name, how) with how one of
        'self' (the tensor), 'named' (a named view), or None."""
        if isinstance(node, cst.Name):
            if node.value in self.fresh:
                return node.value, "self"
            if node.value in self.views:
                return self.views[node.value].base, "named"
        return None, None

    # -- staleness ----------------------------------------------------------
    def stale_of(self, node):
        """The Stale facts of the value node computes (the written tensor or
        a named view of it as they are; a value computed from them as
        derived, with the other operands that may require grad as its
        conditions)."""
        if isinstance(node, cst.Name):
            return self.stale.get(node.value, frozenset())
        if isinstance(node, (cst.Integer, cst.Float, cst.SimpleString, cst.Comparison)):
            return frozenset()
        operands = []
        if isinstance(node, cst.Attribute):
            if node.attr.value in tn.DETACHING or node.attr.value in tn.SAFE_ATTRIBUTES:
                return frozenset()
            operands = [node.value]
        elif isinstance(node, cst.Subscript):
            operands = [node.value]
        elif isinstance(node, (cst.BinaryOperation,)):
            operands = [node.left, node.right]
        elif isinstance(node, cst.UnaryOperation):
            operands = [node.expression]
        elif isinstance(node, cst.Call):
            return self._call_stale(node)
        else:
            return frozenset()
        return self._derived(operands)

    def _derived(self, operands):
        found = set()
        conditions = []
        for o in operands:
            s = self.stale_of(o)
            if s:
                found |= s
            elif self.may_require_grad(o, stale=False):
                conditions.append(short(self.code(o)))
        return frozenset(s.computed(conditions) for s in found)

    def _call_stale(self, call):
        func = call.func
        if isinstance(func, cst.Attribute):
            method = func.attr.value
            if method in tn.DETACHING or method in tn.INT_RESULTS or method.endswith("_") or \
                    method == "apply" or method in ("size", "dim", "numel", "item"):
                return frozenset()
            if self.stale_of(func.value):
                return self._derived([func.value] + [a.value for a in call.args])
        if self.torch_name(func) is not None:
            name = self.torch_name(func)
            if name in tn.INT_RESULTS or name in ("is_tensor", "is_grad_enabled"):
                return frozenset()
            return self._derived([a.value for a in call.args])
        if isinstance(func, cst.Name) and (func.value in self.f.apply_aliases or
                                           func.value in self.applies):
            return frozenset()
        # A function of the run: what it returns (Project's summaries).
        out = set()
        for g, key, _, _ in self.p.callees(self.f, self.key, call):
            out |= self.p.returns.get((g.path, key), set())
        return frozenset(out)

    # -- statements -----------------------------------------------------------
    def run(self):
        self._block(self.fn.body)
        return self

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
            saved = self.no_grad_depth
            for item in stmt.items:
                self._expression(item.item)
                scope = self.f.grad_scope(item.item)
                if scope == "off":
                    self.no_grad_depth += 1
                elif scope == "on":
                    self.no_grad_depth = 0
            self._block(stmt.body)
            self.no_grad_depth = saved
            return
        if isinstance(stmt, (cst.FunctionDef, cst.ClassDef)):
            return  # a nested definition runs when called: Project scans it apart
        if isinstance(stmt, (cst.If, cst.While)):
            self._expression(stmt.test)
        if isinstance(stmt, cst.For):
            self._expression(stmt.iter)
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
            if len(small.targets) != 1:
                self.statement = None
            self._expression(small.value)
            write = self._inplace_result(small.value)
            for t in small.targets:
                self._assign(t.target, small.value, write)
        elif isinstance(small, cst.AnnAssign) and small.value is not None:
            self._expression(small.value)
            self._assign(small.target, small.value, self._inplace_result(small.value))
        elif isinstance(small, cst.Expr):
            self._expression(small.value)
            if isinstance(small.value, cst.Call):
                self._grad_switch(small.value)
                self._call_write(small.value)
        elif isinstance(small, cst.AugAssign):
            self._expression(small.value)
            self._augmented(small)
        elif isinstance(small, cst.Return) and small.value is not None:
            self._expression(small.value)
            self._inplace_result(small.value)
            self.returns |= self.stale_of(small.value)
        else:
            for child in small.children:
                if isinstance(child, cst.BaseExpression):
                    self._expression(child)

    def _grad_switch(self, call):
        """torch.set_grad_enabled(False) as a statement: the rest of the
        function runs without grad (True: with)."""
        name = self.torch_name(call.func)
        if name in tn.SET_GRAD_ENABLED:
            scope = self.f.grad_scope(call)
            if scope == "off":
                self.no_grad_depth = max(self.no_grad_depth, 1)
            elif scope == "on":
                self.no_grad_depth = 0

    def _inplace_result(self, value):
        """`out = m.index_copy_(...)`, `return m.index_copy_(...)`: the write
        into m is recorded (no fix: its result is used); the result is a
        value torch.compile reads afresh (measured: bound_result_)."""
        if isinstance(value, cst.Call) and isinstance(value.func, cst.Attribute) and \
                value.func.attr.value.endswith("_"):
            saved, self.statement = self.statement, None
            self._call_write(value)
            self.statement = saved
            return True
        return False

    def _assign(self, target, value, inplace_result=False):
        if isinstance(target, cst.Subscript):
            self._setitem(target, value)
            return
        if isinstance(target, cst.Tuple):
            if self._makes_index_tensor(value):
                # rows, cols = torch.triu_indices(n, n, 1): 1-D each
                one_d = self.torch_name(value.func) in tn.UNPACK_1D
                for el in target.elements:
                    if isinstance(el.value, cst.Name):
                        self.tensors[el.value.value] = 1 if one_d else None
                return
            for el in target.elements:
                if isinstance(el.value, cst.Name):
                    self._forget(el.value.value)
                    if self.may_require_grad(value):
                        self.grad.add(el.value.value)
            return
        if not isinstance(target, cst.Name):
            return
        name = target.value
        stale = frozenset() if inplace_result else self.stale_of(value)
        self._forget(name)
        self.applies.pop(name, None)
        if isinstance(value, cst.Attribute) and value.attr.value == "apply" and \
                dotted(value.value):
            self.applies[name] = dotted(value.value)
        if self._is_mask(value):
            self.masks.add(name)
        if self._makes_index_tensor(value):
            self.tensors[name] = ndim(value, self.f)
        if self.is_tensor(value):
            self.known.add(name)
        made = self.factory(value)
        if made:
            self.fresh[name] = (self.line(target), self.col(target)) + made
            return
        # A named view of a fresh tensor: v = m[1:3], v = m.narrow(...),
        # v = m.narrow(...).select(...).
        recv = value
        while isinstance(recv, cst.Subscript) or (
                isinstance(recv, cst.Call) and isinstance(recv.func, cst.Attribute) and
                recv.func.attr.value in tn.VIEWS):
            recv = recv.value if isinstance(recv, cst.Subscript) else recv.func.value
        if recv is not value and isinstance(recv, cst.Name) and not (
                isinstance(value, cst.Subscript) and not _basic_index(value)):
            base, how = self.base_of(recv)
            if base:
                self.views[name] = View(base, value, self.statement)
                if base in self.stale:
                    self.stale[name] = self.stale[base]
                return
        if stale:
            self.stale[name] = stale
        if self.may_require_grad(value):
            self.grad.add(name)

    def _forget(self, name):
        for table in (self.fresh, self.views, self.stale, self.tensors):
            table.pop(name, None)
        self.masks.discard(name)
        self.grad.discard(name)
        self.known.discard(name)

    def _augmented(self, small):
        """m[a:b] += h (measured: setitem_augmented_); m += h and a named
        view's += are not measured: counted."""
        target = small.target
        if not isinstance(target, cst.Subscript):
            base, _ = self.base_of(target)
            if base and not self.no_grad_depth and self.may_require_grad(small.value):
                self._record(target, base, "unmeasured:augmented", (None, "not measured"),
                             small.value)
            return
        base, how = self.base_of(target.value)
        if not base or self.no_grad_depth or not self.may_require_grad(small.value):
            return
        basic = all(isinstance(el.slice, cst.Slice) or int_value(el.slice.value) is not None
                    for el in target.slice)
        if how == "self" and basic and isinstance(small.operator, cst.AddAssign):
            plan = plan_augmented(self, target, small.value)
            self._record(target, base, "setitem_augmented_", plan, small.value)
        else:
            self._record(target, base, "unmeasured:setitem_augmented", (None, "not measured"),
                         small.value)

    def _setitem(self, target, value):
        base, how = self.base_of(target.value)
        if not base or self.no_grad_depth or not self.may_require_grad(value):
            return
        if how == "named":
            form = "view_alias_copy_"
            name = target.value.value
            plan = plan_named_view(self, name, target, value, "setitem")
        else:
            form = _index_form(target)
            if form == "setitem_adv_" and any(
                    isinstance(el.slice, cst.Index) and self._is_mask(el.slice.value)
                    for el in target.slice):
                form = "setitem_mask_"
            plan = plan_setitem(self, target, value)
        self._record(target, base, form, plan, value)

    def _call_write(self, call):
        func = call.func
        if not isinstance(func, cst.Attribute) or self.no_grad_depth:
            return
        method = func.attr.value
        recv = func.value
        if method not in tn.VALUE_ARGUMENT:
            self._unmeasured_call(call, method)
            return
        values = value_arguments(call, method)
        if not any(self.may_require_grad(v) for v in values):
            return
        base, how = self.base_of(recv)
        form = None
        if base and how == "self" and method in tn.INPLACE_FORMS:
            form = tn.INPLACE_FORMS[method]
        elif base and how == "self" and method in tn.ARITH:
            form = "whole_" + method
        elif base and how == "named" and method == "copy_":
            form = "view_alias_copy_"
        elif base and how == "named" and method in tn.ARITH:
            form = "named_" + method
        else:
            # m.mul_(2).add_(x): in-place methods chained on the tensor
            inner = recv
            chained = 0
            while isinstance(inner, cst.Call) and isinstance(inner.func, cst.Attribute) and \
                    inner.func.attr.value.endswith("_") and \
                    inner.func.attr.value not in tn.NOT_WRITES:
                inner = inner.func.value
                chained += 1
            if chained:
                base, how = self.base_of(inner)
                if base and how == "self":
                    form = "chained_inplace_"
            else:
                # m.narrow(...).copy_(x), m.narrow(...).select(...).copy_(x)
                views = []
                while isinstance(recv, cst.Call) and isinstance(recv.func, cst.Attribute) and \
                        recv.func.attr.value in ("narrow", "select"):
                    views.append(recv.func.attr.value)
                    recv = recv.func.value
                base, how = self.base_of(recv)
                if base and how == "self" and len(views) == 1:
                    if method == "copy_":
                        form = f"{views[0]}_copy_"
                    elif method in tn.ARITH:
                        form = f"{views[0]}_{method}"
                elif base and how == "self" and len(views) > 1 and method == "copy_":
                    form = "chain_copy_"
        if base and form:
            source = next(v for v in values if self.may_require_grad(v))
            self._record(call, base, form, plan_call(self, call, base, form), source)
        elif base:
            self._record(call, base, "unmeasured:" + method, (None, "not measured"),
                         next(v for v in values if self.may_require_grad(v)))

    def _unmeasured_call(self, call, method):
        """An in-place method the table does not hold (fill_ with a tensor,
        addcmul_, ...) writing a fresh tensor, directly or through views,
        from a value that may require grad: recorded with an unmeasured
        form, so that it is counted."""
        if not method.endswith("_") or method in tn.NOT_WRITES or self.no_grad_depth:
            return
        recv = call.func.value
        while isinstance(recv, cst.Call) and isinstance(recv.func, cst.Attribute) and \
                recv.func.attr.value in tn.VIEWS:
            recv = recv.func.value
        base, _ = self.base_of(recv)
        if base and any(self.may_require_grad(a.value) for a in call.args):
            self._record(call, base, "unmeasured:" + method, (None, "the form was not measured"))

    def _record(self, node, base, form, plan, source=None):
        made_line, made_column, factory, target_forms = self.fresh[base]
        w = Write(self.line(node), self.col(node), base, form, made_line, made_column,
                  factory, target_forms, function=self.key, path=self.f.path)
        if source is not None:
            w.source = short(self.code(source))
        rule, text = plan[0], plan[1]
        extra = plan[2] if len(plan) > 2 else None
        if rule is None:
            w.no_fix = text
        elif self.statement is None:
            w.no_fix = "the write shares its statement or line with another, or its result " \
                       "is used"
        else:
            w.fix_rule, w.fix_text = rule, text
            w.statement = self.statement
            w.view_statement = (extra or {}).get("statement")
            w.fix_edits, w.fix_note = edits_for(self, self.statement, text, extra)
        self.writes.append(w)
        # The tensor, and its named views, now carry the stale flag.
        stale = frozenset({Stale(w.key)})
        self.stale[base] = self.stale.get(base, frozenset()) | stale
        for name, view in self.views.items():
            if view.base == base:
                self.stale[name] = self.stale[base]

    # -- expressions: flag reads, autograd.Functions, calls ----------------------
    def _expression(self, node):
        for n in _evaluated(node):
            if isinstance(n, cst.Attribute):
                self._flag_read(n)
            elif isinstance(n, cst.Call):
                self._call(n)

    def _flag_read(self, attr):
        name = attr.attr.value
        if name not in tn.FLAG_ATTRIBUTES or not isinstance(attr.value, cst.Name):
            return
        for s in self.stale.get(attr.value.value, ()):
            if s.derived and name != "requires_grad":
                continue  # not measured: grad_fn and is_leaf of a computed value
            self._fact(s, Consumer("flag", self.f.path, self.line(attr), self.col(attr),
                                   self.key, s.derived, s.conditions, s.via, attribute=name))

    def _fact(self, stale, consumer):
        self.facts.append((stale.write, consumer))

    def _call(self, call):
        func = call.func
        fclass = None
        if isinstance(func, cst.Attribute) and func.attr.value == "apply":
            fclass = self.p.function_class(self.f, func.value)
            name = dotted(func.value)
        elif isinstance(func, cst.Name) and (func.value in self.applies or
                                             func.value in self.f.apply_aliases):
            name = self.applies.get(func.value) or self.f.apply_aliases[func.value]
            fclass = self.p.function_class(self.f, cst.parse_expression(name))
        if fclass is not None:
            self._apply(call, fclass, name)
            return
        if self.f.is_checkpoint(func) and call.args:
            self._checkpoint(call)
            return
        name = self.torch_name(func)
        if name in tn.COLLECTIVES:
            self._collective(call, name)
            return
        for g, key, skip_self, why in self.p.callees(self.f, self.key, call):
            self._edge(call, g, key, skip_self, why, [a for a in call.args])

    def _apply(self, call, fclass, name, args=None, via=()):
        """A stale value handed to an autograd.Function: Dynamo reads its
        flag to decide how to trace the Function (args: those of apply where
        call is not apply itself, checkpoint(F.apply, ...))."""
        args = [a for a in (call.args if args is None else args) if not a.star]
        reads = opaque = None
        if fclass[0] != "outside":
            found = self.p.method(fclass[0], fclass[1], "backward")
            reads = _needs_input_grad_reads(found[0].functions[found[1]].node) if found else set()
            opaque = self.p.opaque_forward(fclass[0], fclass[1])
        for i, arg in enumerate(args):
            stales = self.stale_of(arg.value)
            if not stales:
                continue
            others = [a.value for j, a in enumerate(args) if j != i]
            grad_others = [short(self.code(o)) for o in others
                           if not self.stale_of(o) and self.may_require_grad(o, stale=False)]
            for s in stales:
                conditions = tuple(s.conditions)
                if grad_others and reads is not None and i in reads:
                    kind = "function_needs_grad"
                else:
                    kind = "function"
                    conditions = tuple(sorted(set(conditions) | set(grad_others)))
                self._fact(s, Consumer(kind, self.f.path, self.line(call), self.col(call),
                                       self.key, s.derived, conditions,
                                       tuple(dict.fromkeys(s.via + via)), callee=name,
                                       position=i, opaque=opaque))

    def _collective(self, call, name):
        """A collective of torch.distributed.nn: an autograd Function of
        torch's own, traced from its input's flag."""
        position, path = tn.COLLECTIVES[name]
        args = [a for a in call.args if a.keyword is None and not a.star]
        if position >= len(args):
            return
        for s in self.stale_of(args[position].value):
            self._fact(s, Consumer("collective", self.f.path, self.line(call), self.col(call),
                                   self.key, s.derived, s.conditions, s.via,
                                   callee="torch." + name, position=position, path_rows=path))

    def _checkpoint(self, call):
        """torch.utils.checkpoint.checkpoint(fn, *args): fn runs in the
        region with args (measured: the flag passes through unchanged)."""
        reentrant = None
        for a in call.args:
            if a.keyword and a.keyword.value == "use_reentrant" and \
                    isinstance(a.value, cst.Name) and a.value.value in ("True", "False"):
                reentrant = a.value.value == "True"
        via = {True: ("checkpoint_reentrant",), False: ("checkpoint",)}.get(
            reentrant, ("checkpoint", "checkpoint_reentrant"))
        fn = call.args[0].value
        args = [a for a in call.args[1:] if a.keyword is None]
        if isinstance(fn, cst.Attribute) and fn.attr.value == "apply":
            fclass = self.p.function_class(self.f, fn.value)
            if fclass is not None:  # checkpoint(F.apply, m): F.apply(m) checkpointed
                self._apply(call, fclass, dotted(fn.value), args, via)
                return
        if isinstance(fn, cst.Lambda):
            # checkpoint(lambda t: self.block(t), x): its body runs here,
            # with t bound to x.
            params = [p.name.value for p in fn.params.params]
            saved = {n: self.stale.get(n) for n in params}
            for n, a in zip(params, args):
                s = self.stale_of(a.value)
                if s:
                    self.stale[n] = frozenset(Stale(x.write, x.derived, x.conditions,
                                                    tuple(dict.fromkeys(x.via + via)))
                                              for x in s)
            self._expression(fn.body)
            for n, old in saved.items():
                if old is None:
                    self.stale.pop(n, None)
                else:
                    self.stale[n] = old
            return
        for g, key, skip_self, why in self.p.callable_targets(self.f, self.key, fn):
            self._edge(call, g, key, skip_self,
                       f"run by torch.utils.checkpoint from '{self.key}'", args, via)
        for a in call.args[1:]:
            self._expression(a.value)

    def _edge(self, call, g, key, skip_self, why, args, via=()):
        callee = g.functions[key].node.params
        names = [p.name.value for p in list(callee.posonly_params) + list(callee.params)]
        if skip_self and names:
            names = names[1:]
        stale_args = {}
        for i, arg in enumerate(args):
            if arg.star:
                continue
            if arg.keyword is not None:
                param = arg.keyword.value
            elif i < len(names):
                param = names[i]
            else:
                continue
            s = self.stale_of(arg.value)
            if s:
                stale_args[param] = frozenset(
                    Stale(x.write, x.derived, x.conditions, tuple(dict.fromkeys(x.via + via)))
                    for x in s)
        self.edges.append(Edge(g, key, why, stale_args, not self.no_grad_depth,
                               self.line(call)))

    # -- helpers of the fixes ---------------------------------------------------
    def _makes_index_tensor(self, value):
        """A torch call that makes index tensors (arange, nonzero, ...),
        possibly reshaped or cast after (torch.nonzero(m).squeeze(-1))."""
        while isinstance(value, cst.Call) and isinstance(value.func, cst.Attribute) and \
                value.func.attr.value in tn.INDEX_RESHAPES:
            value = value.func.value
        return isinstance(value, cst.Call) and \
            self.torch_name(value.func) in tn.INDEX_TENSOR_FUNCS

    def _is_mask(self, node):
        if isinstance(node, cst.Name):
            return node.value in self.masks
        if isinstance(node, cst.Comparison):
            return True
        if isinstance(node, cst.Call):
            return self.torch_name(node.func) in tn.MASK_FUNCS or (
                isinstance(node.func, cst.Attribute) and node.func.attr.value == "bool")
        return False


def _not_a_tensor(f, value):
    if isinstance(value, (cst.Integer, cst.Float, cst.SimpleString, cst.ConcatenatedString,
                          cst.FormattedString, cst.Comparison)):
        return True
    if isinstance(value, cst.Name) and value.value in ("None", "True", "False"):
        return True
    if isinstance(value, cst.Call):
        name = dotted(value.func) or ""
        if f.torch_name(value.func) is not None or name.endswith("Parameter"):
            return False
        return not (isinstance(value.func, cst.Attribute) and
                    value.func.attr.value in tn.TENSOR_METHODS)
    return False


def _basic_index(sub):
    """m[1:3], m[:, 0]: a view (an index of tensors or lists is a copy)."""
    return all(isinstance(el.slice, cst.Slice) or int_value(el.slice.value) is not None or
               isinstance(el.slice.value, cst.Ellipsis) or
               (isinstance(el.slice.value, cst.Name) and el.slice.value.value == "None")
               for el in sub.slice)


def _annotation_kind(annotation):
    """'tensor' for a Tensor annotation, 'number' for int, float, bool,
    str, else None."""
    if annotation is None:
        return None
    name = dotted(annotation.annotation) or ""
    last = name.split(".")[-1]
    if last == "Tensor":
        return "tensor"
    if last in ("int", "float", "bool", "str"):
        return "number"
    return None


def _tensor_evidence(body):
    """Names the function uses as only a tensor is used (x.device,
    x.unsqueeze(0), ...)."""
    names = set()
    for attr in m.findall(body, m.Attribute(value=m.Name())):
        a = attr.attr.value
        if a in tn.TENSOR_ATTRIBUTES or a in tn.TENSOR_METHODS:
            names.add(attr.value.value)
    return names


def _needs_input_grad_reads(backward):
    """The argument positions a Function's backward reads from
    ctx.needs_input_grad (ctx.needs_input_grad[i], or a tuple unpacked from
    it); None where it reads the whole tuple otherwise."""
    positions = set()
    for sub in m.findall(backward, m.Subscript(value=m.Attribute(attr=m.Name("needs_input_grad")))):
        el = sub.slice[0].slice if sub.slice else None
        if isinstance(el, cst.Index) and int_value(el.value) is not None:
            positions.add(int_value(el.value))
    for assign in m.findall(backward, m.Assign(
            value=m.Attribute(attr=m.Name("needs_input_grad")))):
        target = assign.targets[0].target
        if isinstance(target, cst.Tuple):
            positions |= set(range(len(target.elements)))
    return positions


def _evaluated(node):
    """The attributes and calls an expression evaluates, outer first (not
    those inside a lambda or a comprehension's own scope)."""
    found = []

    class Walk(cst.CSTVisitor):
        def visit_Lambda(self, n):
            return False

        def visit_Attribute(self, n):
            found.append(n)

        def visit_Call(self, n):
            found.append(n)
    node.visit(Walk())
    return found


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
        elif int_value(s.value) is not None:
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
