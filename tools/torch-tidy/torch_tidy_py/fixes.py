"""The fixes: a write's statement replaced by its out-of-place form assigned
to the tensor's name, spelled from a row of RewriteRules.def (rules.py
checks the text against the row's Python form), and withdrawn where
rebinding the name could change another use of the tensor.

A plan is (rule, text[, extra]) or (None, why there is none); extra says
what else the fix edits: {"remove": statement} (a named view whose only use
was the write) or {"rebind": "v = m[1:3]"} (a named view read after it,
bound again to the same view of the rewritten tensor)."""
import libcst as cst
import libcst.matchers as m

from . import torch_names as tn
from .syntax import int_value, ndim, short, value_arguments


# -- the index of a write, as steps of select and slice ----------------------
class Step:
    """One view step of a tensor: select(dim, index) or a slice of dim from
    lower to upper (texts; upper None: to the end)."""

    def __init__(self, kind, dim, a, b=None):
        self.kind, self.dim, self.a, self.b = kind, dim, a, b

    def scatter(self, value):
        """The step's scatter of value into its base's spelling."""
        if self.kind == "select":
            return "select_scatter", f"{value}, {self.dim}, {self.a}"
        end = f", {self.b}" if self.b is not None else ""
        return "slice_scatter", f"{value}, {self.dim}, {self.a}{end}"


def _index_steps(scan, elements, offset=0):
    """The steps of a basic index (integers, slices without a step, whole
    slices) on a tensor, dims from offset; (None, why) where it is not one."""
    steps, dim = [], offset
    for el in elements:
        s = el.slice
        if isinstance(s, cst.Slice):
            if s.step is not None:
                return None, "a slice with a step has no fix yet"
            if s.lower is not None or s.upper is not None:
                lower = scan.code(s.lower) if s.lower is not None else "0"
                upper = scan.code(s.upper) if s.upper is not None else None
                steps.append(Step("slice", dim, lower, upper))
            dim += 1
        elif int_value(s.value) is not None:
            steps.append(Step("select", dim, scan.code(s.value)))
            dim += 1
        else:
            return None, "an index that is not an integer or a slice"
    return steps, None


def _view_steps(scan, node, base):
    """The steps of a view expression of base: m[1:3, 0], m.narrow(0, 1, 2),
    m.select(1, 0), chains of those; (None, why) otherwise."""
    calls = []
    while True:
        if isinstance(node, cst.Name) and node.value == base:
            break
        if isinstance(node, cst.Subscript):
            calls.append(("index", node))
            node = node.value
        elif isinstance(node, cst.Call) and isinstance(node.func, cst.Attribute) and \
                node.func.attr.value in ("narrow", "select"):
            calls.append((node.func.attr.value, node))
            node = node.func.value
        else:
            return None, "a view other than an index, narrow or select has no fix yet"
    steps = []
    for kind, call in reversed(calls):
        if kind == "index":
            more, why = _index_steps(scan, call.slice)
            if more is None:
                return None, why
            for s in more:
                s.dim = _shift(steps, s.dim)
            steps += more
            continue
        args = [a.value for a in call.args]
        if any(a.keyword is not None or a.star for a in call.args) or \
                len(args) != (3 if kind == "narrow" else 2) or not all(_pure(a) for a in args):
            return None, (f"the fix repeats {kind}'s arguments, which must be positional and "
                          "free of calls")
        d = int_value(args[0])
        if d is None or (d < 0 and len(calls) > 1):
            return None, f"{kind} of a dim that is not a literal >= 0 has no fix yet"
        d = _shift(steps, d) if d >= 0 else d
        if kind == "narrow":
            start, length = int_value(args[1]), int_value(args[2])
            if start is not None and start < 0:
                return None, "narrow from a negative start has no fix yet"
            code = [scan.code(a) for a in args]
            end = str(start + length) if start is not None and length is not None else \
                f"{_parenthesized(args[1], code[1])} + {_parenthesized(args[2], code[2])}"
            steps.append(Step("slice", d, code[1], end))
        else:
            steps.append(Step("select", d, scan.code(args[1])))
    return steps, None


def _shift(steps, dim):
    """A dim of the view after steps, as a dim of the view's own base: the
    view's dims are the base's without those selected so far."""
    selected = sorted(s.dim for s in steps if s.kind == "select")
    for d in selected:
        if d <= dim:
            dim += 1
    return dim


def _spell(base, steps):
    """The view of base after steps, spelled with narrow and select (the
    forms scatter-inplace-arith names)."""
    text, removed = base, []
    for s in steps:
        d = s.dim - sum(1 for r in removed if r < s.dim)
        if s.kind == "select":
            text += f".select({d}, {s.a})"
            removed.append(s.dim)
        else:
            if s.b is None:
                return None
            length = _difference(s.b, s.a)
            text += f".narrow({d}, {s.a}, {length})"
    return text


def _difference(b, a):
    try:
        return str(int(b) - int(a))
    except ValueError:
        return f"{b} - {a}" if a != "0" else b


def _nest(base, steps, value):
    """(rule, text): value written into base's view after steps (one or two)."""
    if not steps:
        return None, "the whole tensor is written: no scatter"
    if len(steps) > 2:
        return None, "a write through more than two selects or slices has no fix yet"
    if len(steps) == 1:
        scatter, args = steps[0].scatter(value)
        return scatter.replace("_", "-"), f"{base} = {base}.{scatter}({args})"
    outer, inner = steps
    outer_view = _spell(base, [outer])
    if outer_view is None:
        return None, "a slice to the end of a dim, then another step, has no fix yet"
    inner_dim = inner.dim - (1 if outer.kind == "select" and outer.dim < inner.dim else 0)
    inner_step = Step(inner.kind, inner_dim, inner.a, inner.b)
    iscatter, iargs = inner_step.scatter(value)
    oscatter, oargs = outer.scatter(f"{outer_view}.{iscatter}({iargs})")
    return "scatter-nested", f"{base} = {base}.{oscatter}({oargs})"


# -- plans, by the write's form ------------------------------------------------
def plan_setitem(scan, target, value):
    """(rule, text) or (None, why not) for `m[...] = value`."""
    m_ = scan.code(target.value)
    v = scan.code(value)
    if not scan.is_tensor(value):
        return None, (f"'{short(v)}' is not known to be a tensor here (setitem takes a Python "
                      "number, the out-of-place forms a tensor; annotate it torch.Tensor)")
    kinds = []
    for el in target.slice:
        s = el.slice
        if isinstance(s, cst.Slice):
            if s.step is not None:
                return None, "a slice with a step has no fix yet"
            full = s.lower is None and s.upper is None
            kinds.append(("full",) if full else ("bounded",))
        elif int_value(s.value) is not None:
            kinds.append(("int",))
        elif _index_tensor(scan, s.value):
            kinds.append(("tensor", s.value))
        else:
            return None, (f"index_put takes tensors, and '{scan.code(s.value)}' is not "
                          "known to be one (made by a torch function in this function, "
                          "or a registered buffer)")
    partial = [(d, k) for d, k in enumerate(kinds) if k[0] != "full"]
    if any(k[0] == "tensor" for _, k in partial):
        if any(k[0] != "tensor" for _, k in partial):
            return None, "an index that mixes tensors with integers or slices has no fix yet"
        first, last = partial[0][0], partial[-1][0]
        if last - first + 1 != len(partial):
            return None, "a full slice between tensor indices has no fix"
        # Trailing full slices are index_put's default; a leading one is
        # spelled as a broadcast arange (the seed's own workaround), where
        # each tensor index is known to be 1-D.
        parts = []
        if first:
            if any(_index_ndim(scan, k[1]) != 1 for _, k in partial):
                return None, ("a full slice before a tensor index needs the index's "
                              "number of dimensions, which is not known here")
            for d in range(first):
                nones = ", None" * (first - d)
                parts.append(f"{scan.torch_alias}.arange({m_}.shape[{d}], device={m_}.device)"
                             f"[:{nones}]")
        parts += [scan.code(k[1]) for _, k in partial]
        tup = parts[0] + "," if len(parts) == 1 else ", ".join(parts)
        return "index-put-advanced", f"{m_} = {m_}.index_put(({tup}), {v})"
    steps, why = _index_steps(scan, target.slice)
    if steps is None:
        return None, why
    return _nest(m_, steps, v)


def plan_call(scan, call, base, form):
    """(rule, text[, extra]) or (None, why not) for an in-place method's write."""
    func = call.func
    method = func.attr.value
    rest = scan.code(call)[len(scan.code(func)):]  # "(args)" as written
    if form == "view_alias_copy_" or form.startswith("named_"):
        return plan_named_view(scan, func.value.value, call, None,
                               "copy" if method == "copy_" else "arith")
    if form in ("index_copy_", "masked_scatter_", "scatter_"):
        rule = {"index_copy_": "index-copy", "masked_scatter_": "masked-scatter",
                "scatter_": "scatter"}[form]
        return rule, f"{base} = {base}.{method[:-1]}{rest}"
    if form == "index_put_":
        return "index-put-list", f"{base} = {base}.index_put{rest}"
    if form in ("index_add_", "scatter_add_", "whole_copy_") or form.startswith("whole_"):
        return None, ("the newest torch measured keeps the flag for this write, and no rule of "
                      "RewriteRules.def writes it out of place; where older torch is supported, "
                      f"write it by hand ({base} = {base}.{method[:-1]}(...))")
    if form == "chained_inplace_":
        return None, ("no rule of RewriteRules.def writes a chain of in-place methods out of "
                      f"place yet; write it by hand ({base} = {base}.<method>(...).<method>(...))")
    view = func.value
    steps, why = _view_steps(scan, view, base)
    if steps is None:
        return None, why
    if method == "copy_":
        values = value_arguments(call, method)
        if len(call.args) != 1 or len(values) != 1:
            return None, "copy_ with more than its source has no fix"
        return _nest(base, steps, scan.code(values[0]))
    return _arith(scan, base, steps, method, rest)


def _arith(scan, base, steps, method, rest):
    """In-place arithmetic through a view: the view's out-of-place result
    scattered back (scatter-inplace-arith)."""
    spelled = _spell(base, steps)
    if spelled is None or len(steps) > 2:
        return None, "no fix for arithmetic through this view yet"
    value = f"{spelled}.{method[:-1]}{rest}"
    rule, text = _nest(base, steps, value)
    return ("scatter-inplace-arith", text) if rule else (None, text)


def plan_augmented(scan, target, value):
    """`m[a:b] += v`: the slice's sum scattered back."""
    steps, why = _index_steps(scan, target.slice)
    if steps is None:
        return None, why
    m_ = scan.code(target.value)
    return _arith(scan, m_, steps, "add_", f"({scan.code(value)})")


def plan_named_view(scan, name, node, value, how):
    """A write through a named view (`v = m[1:3]` before it): into the base,
    the view's binding removed where the write was its only use, else bound
    again after the write (as the C++ named-view fixes do)."""
    view = scan.views[name]
    base = view.base
    if view.statement is None:
        return None, f"the view '{name}' is bound where the fix cannot edit it"
    steps, why = _view_steps(scan, view.node, base)
    if steps is None:
        return None, why
    if how == "setitem":
        more, why = _index_steps(scan, node.slice)
        if more is None:
            return None, why
        for s in more:
            s.dim = _shift(steps, s.dim)
        steps = steps + more
        if not scan.is_tensor(value):
            return None, (f"'{short(scan.code(value))}' is not known to be a tensor here "
                          "(annotate it torch.Tensor)")
        plan = _nest(base, steps, scan.code(value))
    elif how == "copy":
        values = value_arguments(node, "copy_")
        if len(node.args) != 1 or len(values) != 1:
            return None, "copy_ with more than its source has no fix"
        plan = _nest(base, steps, scan.code(values[0]))
    else:
        method = node.func.attr.value
        rest = scan.code(node)[len(scan.code(node.func)):]
        plan = _arith(scan, base, steps, method, rest)
    if plan[0] is None:
        return plan
    uses = _Uses(name, {id(view.statement)})
    scan.fn.body.visit(uses)
    others = [(n, stack) for n, stack in uses.found
              if not any(s is node or s is view.statement for s in stack)]
    write_line = scan.f.line(node)
    before = [n for n, _ in others if scan.f.line(n) < write_line]
    extra = {"statement": view.statement}
    if not before:
        extra["remove"] = view.statement  # the write was its first use
    if others and len(before) < len(others):
        extra.update(rebind=f"{name} = {scan.code(view.node)}", view=name)
    return plan + (extra,)


# -- edits ---------------------------------------------------------------------
def edits_for(scan, statement, text, extra):
    """([(start, end, text)], note): the statement replaced by text; a named
    view's binding removed, or bound again after it."""
    pos = scan.f.pos[statement]
    start = (pos.start.line, pos.start.column + 1)
    end = (pos.end.line, pos.end.column + 1)
    edits = [(start, end, text)]
    note = None
    extra = extra or {}
    if "rebind" in extra:
        edits[0] = (start, end, text + "\n" + " " * (start[1] - 1) + extra["rebind"])
    if "remove" in extra:
        r = scan.f.pos[extra["remove"]]
        edits.append(((r.start.line, 1), (r.end.line + 1, 1), ""))
    if "remove" in extra and "rebind" in extra:
        note = (f"'{extra['view']}' is bound after the write instead, to the same view of the "
                "rewritten tensor, which its later uses then see")
    elif "remove" in extra:
        note = "the view's binding goes with it: the write was its only use"
    elif "rebind" in extra:
        note = (f"'{extra['view']}' is bound again after the write to the same view of the "
                "rewritten tensor, which its later uses then see")
    return edits, note


# -- withdrawn where rebinding the name could change another use ---------------
def check_fixes(scan):
    """A fix rebinds the target's name: withdrawn where another use of the
    name could hold the tensor across the write (an alias, a view, a call
    that may keep it, a closure), or where a use after the write may run
    before it (in a loop around both)."""
    fixed = [w for w in scan.writes if w.fix_rule]
    for target in {w.target for w in fixed}:
        mine = [w for w in fixed if w.target == target]
        handled = {id(w.statement) for w in mine} | \
            {id(w.view_statement) for w in mine if w.view_statement is not None}
        uses = _Uses(target, handled)
        scan.fn.body.visit(uses)
        last = max(w.fix_edits[0][1] for w in mine)
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
            p = scan.f.pos[node].start
            after = (p.line, p.column + 1) > last
            in_loop = any(id(n) in loops for n in stack)
            if not after or in_loop:
                why = (f"'{target}' is used at line {p.line} in a way that may keep a "
                       "reference to it, and the fix rebinds the name")
                break
        if why:
            for w in mine:
                w.fix_rule = w.fix_text = w.fix_edits = w.fix_note = None
                w.no_fix = why


def check_rule_forms(writes, rules):
    """Withdraws a fix whose text does not have its rule's Python form."""
    for w in writes:
        if w.fix_rule and not rules.matches(w.fix_rule, w.fix_text):
            w.no_fix = (f"the fix '{w.fix_text}' does not have the form of rule "
                        f"'{w.fix_rule}' in RewriteRules.def (a bug; please report it)")
            w.fix_rule = w.fix_text = w.fix_edits = w.fix_note = None


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
    if parent.attr.value in tn.SAFE_ATTRIBUTES:
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
    if methods[0] in tn.SAFE_METHODS:
        return True
    statement = k >= 0 and isinstance(stack[k], cst.Expr) and stack[k].value is current
    return statement and methods[-1].endswith("_") and \
        all(x in tn.VIEWS for x in methods[:-1])


# -- small helpers -------------------------------------------------------------
def _index_tensor(scan, node):
    """An index known to be a tensor: made by torch here, a registered
    buffer, a fresh tensor."""
    if isinstance(node, cst.Name):
        return node.value in scan.tensors or node.value in scan.fresh
    if isinstance(node, cst.Attribute) and isinstance(node.value, cst.Name) and \
            node.value.value == "self":
        return _buffer(scan, node.attr.value) is not False
    return scan._makes_index_tensor(node)


def _buffer(scan, attr):
    """A registered buffer's value (None where not known), or False."""
    if scan.cls is None:
        return False
    for _, c in [(scan.f, scan.cls)] + scan.p.bases(scan.f, scan.cls):
        if attr in c.buffers:
            return c
    return False


def _index_ndim(scan, node):
    if isinstance(node, cst.Name):
        return scan.tensors.get(node.value)
    if isinstance(node, cst.Attribute) and isinstance(node.value, cst.Name) and \
            node.value.value == "self":
        return _buffer_ndim(scan, node.attr.value)
    return ndim(node, scan.f)


def _buffer_ndim(scan, attr):
    """A registered buffer's number of dims where its making says it:
    `rows, cols = torch.triu_indices(...)` then register_buffer("rows",
    rows); torch.arange(...); a tensor literal."""
    cls = _buffer(scan, attr)
    if not cls:
        return None
    value = cls.buffers.get(attr)
    if isinstance(value, cst.Call):
        return ndim(value, scan.f)
    if isinstance(value, cst.Name):
        for assign in m.findall(cls.node, m.Assign()):
            for t in assign.targets:
                target = t.target
                names = [e.value.value for e in target.elements
                         if isinstance(e.value, cst.Name)] if isinstance(target, cst.Tuple) \
                    else []
                if value.value in names and isinstance(assign.value, cst.Call) and \
                        scan.f.torch_name(assign.value.func) in tn.UNPACK_1D:
                    return 1
                if isinstance(target, cst.Name) and target.value == value.value:
                    return ndim(assign.value, scan.f)
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
