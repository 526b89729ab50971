"""The files of one run and what they compile, as projects compile it.

A region is a function torch.compile traces: one decorated with it (or with
an alias, a decorator that calls it, `@torch.compile` on a module class);
one passed to it; the forward of a module compiled (`torch.compile(model)`,
`model.compile()`, blocks compiled one by one in a loop over a container,
`model.layers[i] = torch.compile(block)`), including a forward put in its
place (`Block.forward = f`, `block.forward = types.MethodType(f, block)`);
one marked `# torch-tidy: compiled` or named by the configuration's
`compiled`; and, from a region, what it calls (functions, methods, a
submodule's forward, `self.blocks[i](x)`, `utils.helper(x)`, the callable
given to torch.utils.checkpoint), the functions nested in it and the inner
functions of decorators applied to it. scan.py reads each region; this
module answers the questions it asks about names across the files."""
import os

import libcst as cst

from . import torch_names as tn
from .definitions import constructed, dotted

DEPTH = 24  # a bound on how far a value is followed through names and members


class ModuleRef:
    """A module a value may be: an instance of cls (a ClassInfo of file), or
    one of the modules a container of them holds (container=True)."""
    __slots__ = ("file", "cls", "container", "guess")

    def __init__(self, file, cls, container=False, guess=False):
        self.file, self.cls, self.container, self.guess = file, cls, container, guess

    def key(self):
        return (self.file.path, self.cls.name, self.container)

    def elements(self):
        return ModuleRef(self.file, self.cls, False, self.guess)


def module_name(path):
    """a/b/c.py -> a.b.c; a/b/__init__.py -> a.b."""
    stem = os.path.splitext(os.path.normpath(path))[0]
    parts = [p for p in stem.split(os.sep) if p not in ("", ".", "..")]
    if parts and parts[-1] == "__init__":
        parts.pop()
    return ".".join(parts)


class Project:
    def __init__(self, files, compiled=()):
        self.files = {os.path.normpath(f.path): f for f in files}
        self.compiled = list(compiled)   # the configuration's patterns
        self.by_class = {}               # class name -> [(file, ClassInfo)]
        for f in self.files.values():
            for info in f.classes.values():
                self.by_class.setdefault(info.name, []).append((f, info))
        self.not_regions = []            # (file, node, why): what compiles nothing
        self._function_classes = {}
        self._patched = None
        self.returns = {}                # (path, key) -> Stale facts of what it returns
        self._memo = {}                  # what the questions below answered, by question
        self._busy = set()               # modules_of questions being answered (cycles)
        self._by_member = {}             # attribute -> [(file, ClassInfo)] binding it
        for f in self.files.values():
            for info in f.classes.values():
                for attr in set(info.members) | set(info.added):
                    self._by_member.setdefault(attr, []).append((f, info))

    # -- names across the files ------------------------------------------
    def resolve_module(self, f, spec):
        """The file of the run that `from M import` / `import M` names."""
        key = ("module", f.path if spec[0] else None, spec[0], spec[1])
        if key not in self._memo:
            self._memo[key] = self._resolve_module(f, spec)
        return self._memo[key]

    def _resolve_module(self, f, spec):
        dots, module = spec[0], spec[1]
        parts = module.split(".") if module else []
        if dots:
            base = os.path.dirname(os.path.normpath(f.path))
            for _ in range(dots - 1):
                base = os.path.dirname(base)
            stem = os.path.join(base, *parts)
            for cand in (stem + ".py", os.path.join(stem, "__init__.py")):
                if cand in self.files:
                    return self.files[cand]
            return None
        if not parts:
            return None
        tails = (os.path.join(*parts) + ".py", os.path.join(*parts, "__init__.py"))
        found = [g for p, g in self.files.items()
                 if any(p == t or p.endswith(os.sep + t) for t in tails)]
        return found[0] if len(found) == 1 else None

    def _imported_module(self, f, alias):
        """The file an alias names as a module: `import pkg.utils as u`,
        `from . import utils`, `from pkg import utils`."""
        if alias in f.modules:
            return self.resolve_module(f, f.modules[alias])
        if alias in f.imported:
            dots, module, name = f.imported[alias]
            sub = (module + "." if module else "") + name
            return self.resolve_module(f, (dots, sub))
        return None

    def find_function(self, f, name):
        """(file, key) of the function `name` means in f: its own, one it
        imports (`helper`, `h` for `helper as h`), one of a module it
        imports (`utils.helper`), a method (`Class.method`); else None."""
        if name in f.functions and f.functions[name].outer is None:
            return f, name
        head, dot, rest = name.partition(".")
        if head in f.imported:
            other = self.resolve_module(f, f.imported[head][:2])
            if other is not None:
                original = f.imported[head][2] + dot + rest
                if original in other.functions:
                    return other, original
        if dot:
            other = self._imported_module(f, head)
            if other is not None and rest in other.functions:
                return other, rest
        return None

    def find_class(self, f, name):
        """(file, ClassInfo) of the class `name` means in f, else None."""
        if name in f.classes:
            return f, f.classes[name]
        head, dot, rest = name.partition(".")
        if not dot and head in f.imported:
            other = self.resolve_module(f, f.imported[head][:2])
            original = f.imported[head][2]
            if other is not None and original in other.classes:
                return other, other.classes[original]
        if dot:
            other = self._imported_module(f, head)
            if other is not None and rest in other.classes:
                return other, other.classes[rest]
        return None

    def bases(self, f, cls, depth=0):
        """The classes of the run cls derives from, nearest first."""
        key = ("bases", f.path, cls.name)
        if depth == 0 and key in self._memo:
            return self._memo[key]
        out = []
        for base in cls.bases:
            found = self.find_class(f, base)
            if found and depth < DEPTH:
                out.append(found)
                out += self.bases(found[0], found[1], depth + 1)
        if depth == 0:
            self._memo[key] = out
        return out

    def method(self, f, cls, name):
        """(file, key) of cls's method name, through its bases in the run."""
        for g, c in [(f, cls)] + self.bases(f, cls):
            if name in c.methods:
                return g, c.methods[name]
        return None

    def is_function_class(self, f, cls):
        """Whether cls derives from torch.autograd.Function (through classes
        of the run)."""
        key = (f.path, cls.name)
        if key not in self._function_classes:
            self._function_classes[key] = False
            found = any(f.is_function_base(b) for b in cls.bases) or any(
                self.is_function_class(g, c) for g, c in self.bases(f, cls))
            self._function_classes[key] = found
        return self._function_classes[key]

    def function_class(self, f, node):
        """(file, ClassInfo) where node names an autograd.Function subclass of
        the run (`Quantize`, `ops.Quantize`); ('outside', name) where it is a
        class imported from outside the run; else None."""
        name = dotted(node)
        if name is None:
            return None
        found = self.find_class(f, name)
        if found:
            return found if self.is_function_class(*found) else None
        head = name.split(".")[0]
        if head in f.imported or head in f.modules:
            return ("outside", name)
        return None

    def opaque_forward(self, f, cls):
        """Why an autograd.Function's forward is not differentiable as
        Dynamo traces it inline (so that its backward, not run then, is the
        only gradient there is), or None where nothing shows it: the forward
        (and the functions of the run it calls) runs under no_grad, detaches,
        rounds or casts to integers, or calls a kernel (torch.ops, an
        extension module, a triton launch)."""
        key = ("opaque", f.path, cls.name)
        if key not in self._memo:
            found = self.method(f, cls, "forward")
            self._memo[key] = _opaque(self, found[0], found[1], 0) if found else None
        return self._memo[key]

    # -- what a value is ---------------------------------------------------
    def modules_of(self, f, scope, expr, depth=0):
        """The modules (ModuleRefs) expr may be in scope of f (answered once
        per expression; a question met again while it is being answered, a
        cycle through members or names, adds nothing)."""
        if depth > DEPTH or expr is None:
            return []
        key = ("modules", f.path, scope, id(expr))
        if key in self._memo:
            return [ModuleRef(r.file, r.cls, r.container, r.guess) for r in self._memo[key]]
        if key in self._busy:
            return []
        self._busy.add(key)
        try:
            out = self._modules_of(f, scope, expr, depth)
        finally:
            self._busy.discard(key)
        unique = {}
        for r in out:
            unique.setdefault(r.key(), r)
        self._memo[key] = list(unique.values())
        return [ModuleRef(r.file, r.cls, r.container, r.guess) for r in unique.values()]

    def _modules_of(self, f, scope, expr, depth):
        if isinstance(expr, cst.Name):
            return self._name_modules(f, scope, expr.value, depth)
        if isinstance(expr, cst.Call):
            name, call = constructed(expr)
            if name is None:
                return []
            if f.is_compile(call.func) and call.args:
                return self.modules_of(f, scope, call.args[0].value, depth + 1)
            if name.split(".")[-1] in tn.CONTAINERS:
                return [ModuleRef(g, c, True) for g, c in
                        self._constructed_in(f, scope, call.args, depth + 1)]
            found = self.find_class(f, name)
            if found:
                return [ModuleRef(*found)]
            # A function of the run that makes the module (a model loader,
            # a factory): what it returns.
            fn = self.find_function(f, name)
            if fn and depth < DEPTH:
                return self._returned_modules(fn[0], fn[1], depth + 1)
            return []
        if isinstance(expr, cst.Attribute):
            owners = [r for r in self.modules_of(f, scope, expr.value, depth + 1)
                      if not r.container]
            attr = expr.attr.value
            if owners:
                out = []
                for r in owners:
                    out += self._member_modules(r.file, r.cls, attr, depth + 1)
                return out
            # The owner's class is not known here (a parameter, a library's
            # model): every class of the run that binds such a member.
            out = []
            for g, c in self._by_member.get(attr, ()):
                for r in self._member_modules(g, c, attr, depth + 1):
                    r.guess = attr
                    out.append(r)
            return out
        if isinstance(expr, cst.Subscript):
            return [r.elements() for r in self.modules_of(f, scope, expr.value, depth + 1)
                    if r.container]
        return []

    def _returned_modules(self, f, key, depth):
        out = []
        for ret in f.returns.get(key, ()):
            out += self.modules_of(f, key, ret.value, depth)
        return out

    def _name_modules(self, f, scope, name, depth):
        if name == "self" and scope and f.functions[scope].cls:
            cls = f.classes.get(f.functions[scope].cls)
            return [ModuleRef(f, cls)] if cls else []
        out = []
        for s in dict.fromkeys([scope, f.functions[scope].outer if scope else None, None]):
            for iterable, kind in f.loops.get((s, name), []):
                for r in self.modules_of(f, s, iterable, depth + 1):
                    if r.container:
                        out.append(r.elements())
                    elif kind == "all":
                        out += [r] + self._nested_modules(r, depth + 1)
                    else:
                        out += self._nested_modules(r, depth + 1, deep=False)
            for value in f.bindings.get((s, name), []):
                out += self.modules_of(f, s, value, depth + 1)
            if out:
                break
        return out

    def _member_modules(self, f, cls, attr, depth):
        out = []
        for g, c in [(f, cls)] + self.bases(f, cls):
            for value, scope in c.members.get(attr, []):
                out += self.modules_of(g, scope, value, depth)
            added = c.added.get(attr, [])
            if added:
                out += [ModuleRef(h, k, True) for h, k in self._constructed_in(
                    g, None, [cst.Arg(v) for v, _ in added], depth, scopes=[s for _, s in added])]
        return out

    def _nested_modules(self, ref, depth, deep=True):
        """The submodules a module's members hold (model.modules(),
        children())."""
        out = []
        if depth > DEPTH:
            return out
        for attr in list(ref.cls.members) + list(ref.cls.added):
            for r in self._member_modules(ref.file, ref.cls, attr, depth + 1):
                r = r.elements() if r.container else r
                out.append(r)
                if deep:
                    out += self._nested_modules(r, depth + 1)
        return out

    def _constructed_in(self, f, scope, args, depth, scopes=None):
        """(file, ClassInfo) of every module class made inside args (list
        displays, comprehensions, dict values, names bound to them)."""
        found = {}
        for i, arg in enumerate(args):
            for g, c in self._made_in(f, scopes[i] if scopes else scope, arg.value):
                found[(g.path, c.name)] = (g, c)
        return list(found.values())

    def _made_in(self, f, scope, expr):
        """The module classes made inside one expression, and inside what the
        names in it are bound to (answered once; a cycle adds nothing)."""
        key = ("made", f.path, scope, id(expr))
        if key in self._memo:
            return self._memo[key]
        if key in self._busy:
            return []
        self._busy.add(key)
        found = {}
        try:
            for node in _calls_and_names(expr):
                if isinstance(node, cst.Call):
                    name, _ = constructed(node)
                    cls = self.find_class(f, name) if name else None
                    if cls:
                        found[(cls[0].path, cls[1].name)] = cls
                else:
                    for value in f.bindings.get((scope, node.value), []):
                        for g, c in self._made_in(f, scope, value):
                            found[(g.path, c.name)] = (g, c)
        finally:
            self._busy.discard(key)
        self._memo[key] = list(found.values())
        return self._memo[key]

    def callees(self, f, scope, call):
        return callees(self, f, scope, call)

    def callable_targets(self, f, scope, expr):
        return callable_targets(self, f, scope, expr)

    def forwards(self, ref):
        """(file, key) of the forward a module runs when called, and of the
        functions put in its place (X.forward = f)."""
        return [(g, k) for g, k, _ in self.forwards_why(ref)]

    def forwards_why(self, ref):
        """(file, key, how it came to be the forward: "" for its own)."""
        if self._patched is None:
            self._patched = {}
            self._patched = self.patched_forwards()
        out = []
        found = self.method(ref.file, ref.cls, "forward")
        if found:
            out.append(found + ("",))
        for g, c in [(ref.file, ref.cls)] + self.bases(ref.file, ref.cls):
            out += self._patched.get((g.path, c.name), [])
        return out

    # -- roots -------------------------------------------------------------
    def roots(self):
        """[(file, key, why)]: the regions the files make themselves."""
        out = []
        for f in self.files.values():
            for site in f.compile_sites:
                out += [(g, k, why if g is f else f"{why} in {os.path.basename(f.path)}")
                        for g, k, why in self._site_roots(f, site)]
            for key in f.markers:
                if key in f.functions:
                    out.append((f, key, "marked '# torch-tidy: compiled'"))
                elif key in f.classes:
                    out += [(g, k, f"{patch or 'the forward'} of '{key}', marked "
                             "'# torch-tidy: compiled'")
                            for g, k, patch in self.forwards_why(ModuleRef(f, f.classes[key]))]
            out += self._configured(f)
            for site in self._imported_makers(f):
                out += [(g, k, why if g is f else f"{why} in {os.path.basename(f.path)}")
                        for g, k, why in self._site_roots(f, site)]
            for scope, call, fors in f.library_sites:
                for site in self._library_site(f, scope, call, fors):
                    out += [(g, k, why if g is f else f"{why} in {os.path.basename(f.path)}")
                            for g, k, why in self._site_roots(f, site)]
        return out

    def _imported_makers(self, f):
        """Calls of a function of another file that compiles one of its
        parameters (compile_model(model, cfg) of a utils module)."""
        from .definitions import CompileSite
        out = []
        for scope, call, fors in f.calls:
            name = dotted(call.func)
            if not name or name in f.functions or name in f.compile_makers:
                continue
            head = name.split(".")[0]
            if head not in f.imported and head not in f.modules:
                continue
            found = self.find_function(f, name)
            if found and found[0] is not f and found[1] in found[0].compile_makers:
                index = found[0].compile_makers[found[1]]
                if index < len(call.args) and call.args[index].keyword is None:
                    out.append(CompileSite(scope, call.args[index].value,
                                           f"passed to '{name}', which compiles it", call, fors))
        return out

    def _library_site(self, f, scope, call, fors):
        """CompileSites for what accelerate's prepare compiles (an
        Accelerator made with a dynamo backend or plugin) and what a
        transformers Trainer compiles (TrainingArguments with torch_compile)."""
        from .definitions import CompileSite
        func = call.func
        if isinstance(func, cst.Attribute) and func.attr.value == "prepare":
            if not self._made_by(f, scope, func.value, ("Accelerator",), _dynamo_accelerator):
                return []
            how = "passed to accelerate's prepare, its Accelerator made with a dynamo backend"
            return [CompileSite(scope, a.value, how, call, fors) for a in call.args
                    if a.keyword is None and not a.star]
        model = next((a.value for a in call.args if a.keyword and a.keyword.value == "model"),
                     call.args[0].value if call.args and call.args[0].keyword is None else None)
        args = next((a.value for a in call.args if a.keyword and a.keyword.value == "args"),
                    call.args[1].value if len(call.args) > 1 and call.args[1].keyword is None
                    else None)
        if model is None or args is None or not self._made_by(
                f, scope, args, ("TrainingArguments", "Seq2SeqTrainingArguments", "SFTConfig"),
                _torch_compile_arguments):
            return []
        return [CompileSite(scope, model, "given to a Trainer whose arguments set torch_compile",
                            call, fors)]

    def _made_by(self, f, scope, expr, callees, test, depth=0):
        """Whether expr is a call of one of callees (the last part of its
        name) for which test holds: as written, bound to a name, or returned
        by a function of the run."""
        if depth > DEPTH or expr is None:
            return False
        if isinstance(expr, cst.Name):
            for s in dict.fromkeys([scope, f.functions[scope].outer if scope else None, None]):
                if any(self._made_by(f, s, v, callees, test, depth + 1)
                       for v in f.bindings.get((s, expr.value), [])):
                    return True
            return False
        if not isinstance(expr, cst.Call):
            return False
        name = dotted(expr.func) or ""
        if name.split(".")[-1] in callees:
            return test(expr)
        fn = self.find_function(f, name) if name else None
        if fn:
            return any(self._made_by(fn[0], fn[1], r.value, callees, test, depth + 1)
                       for r in fn[0].returns.get(fn[1], ()))
        return False

    def _configured(self, f):
        out = []
        if not self.compiled:
            return out
        mod = module_name(f.path)
        for pattern in self.compiled:
            def matches(name):
                full = f"{mod}.{name}" if mod else name
                return name == pattern or full == pattern or full.endswith("." + pattern)
            for key, info in f.functions.items():
                if info.outer is None and matches(key):
                    out.append((f, key, f"named by the configuration's compiled: '{pattern}'"))
            for name, cls in f.classes.items():
                if matches(name):
                    out += [(g, k, f"the forward of '{name}', named by the configuration's "
                            f"compiled: '{pattern}'")
                            for g, k in self.forwards(ModuleRef(f, cls))]
        return out

    def _site_roots(self, f, site):
        loop = ""
        if site.loops:
            loop = f" in a loop over '{f.code(site.loops[-1].iter)}'"
        if site.arg is None:  # a decorator
            node = site.node
            if isinstance(node, cst.FunctionDef):
                key = next(k for k, i in f.functions.items() if i.node is node)
                return [(f, key, "decorated with torch.compile")]
            cls = f.classes.get(node.name.value)
            if cls is None:
                return []
            if self.is_function_class(f, cls):
                self.not_regions.append((f, node, (
                    f"'{cls.name}' is an autograd.Function class decorated with torch.compile, "
                    "which compiles its __call__ only: apply runs uncompiled (measured)")))
                return []
            return [(g, k, "its class is decorated with torch.compile")
                    for g, k in self.forwards(ModuleRef(f, cls))]
        arg, scope = site.arg, site.scope
        out = []
        # A function passed by name, a method (self.f, model.forward), an
        # autograd.Function's apply.
        if isinstance(arg, cst.Name):
            found = self.find_function(f, arg.value)
            if found and not self.modules_of(f, scope, arg):
                return [(found[0], found[1], site.how)]
        if isinstance(arg, cst.Attribute):
            attr = arg.attr.value
            if attr == "apply":
                fc = self.function_class(f, arg.value)
                if fc and fc[0] != "outside":
                    found = self.method(fc[0], fc[1], "forward")
                    return [(found[0], found[1], f"{site.how} (its apply)")] if found else []
            owners = [r for r in self.modules_of(f, scope, arg.value) if not r.container]
            methods = [self.method(r.file, r.cls, attr) for r in owners]
            if any(methods) and attr != "forward":
                return [(m[0], m[1], f"its method {f.code(arg)} {site.how}")
                        for m in methods if m]
            if attr == "forward" and owners:
                return [(m[0], m[1], f"{f.code(arg)} {site.how}") for m in methods if m]
            if isinstance(arg.value, cst.Name):
                found = self.find_function(f, f"{arg.value.value}.{attr}")
                if found:
                    return [(found[0], found[1], site.how)]
        for r in self.modules_of(f, scope, arg):
            r = r.elements() if r.container else r
            what = f"the forward of a '{r.cls.name}' {site.how}{loop}"
            if r.guess:
                what += f" (every class of the run that binds '{r.guess}')"
            out += [(g, k, f"{patch} of a '{r.cls.name}' {site.how}{loop}" if patch else what)
                    for g, k, patch in self.forwards_why(r)]
        return out

    def patched_forwards(self):
        """{(path, class name): [(file, key, why)]}: functions put in place of
        a module's forward."""
        out = {}
        for f in self.files.values():
            for patch in f.patches:
                fn = _patched_function(patch.value)
                found = self.find_function(f, fn) if fn else None
                if fn and not found and patch.scope:
                    key = f"{patch.scope}.{fn}"
                    found = (f, key) if key in f.functions else None
                if not found:
                    continue
                owners = []
                name = dotted(patch.owner)
                cls = self.find_class(f, name) if name else None
                if cls:
                    owners.append(cls)
                else:
                    owners = [(r.file, r.cls) for r in self.modules_of(f, patch.scope, patch.owner)]
                for g, c in owners:
                    out.setdefault((g.path, c.name), []).append(
                        (found[0], found[1], f"put in place of the forward "
                         f"({os.path.basename(f.path)}:{f.line(patch.value)})"))
        return out


_ROUNDING = {"round", "floor", "ceil", "trunc", "sign", "_int_mm", "_scaled_mm", "int", "long",
             "char", "byte", "short", "detach"}


def _opaque(p, f, key, depth):
    """The evidence opaque_forward looks for, in one function of the run."""
    info = f.functions[key]
    for dec in info.node.decorators:
        if f.grad_scope(dec.decorator) == "off":
            return f"'{key}' runs under torch.no_grad()"
    for scope, call, _ in f.calls:
        if scope != key:
            continue
        func = call.func
        name = f.torch_name(func)
        if name in ("no_grad", "inference_mode") or f.grad_scope(call) == "off":
            return f"its forward runs {f.code(call)}"
        if name and (name.startswith("ops.") or name.split(".")[-1] in _ROUNDING):
            return f"its forward calls {f.code(func)}"
        if isinstance(func, cst.Attribute) and func.attr.value in _ROUNDING:
            return f"its forward calls .{func.attr.value}()"
        if isinstance(func, cst.Attribute) and func.attr.value == "to" and any(
                f.torch_name(a.value) in tn.INT_DTYPES or
                (f.torch_name(a.value) or "").startswith("float8") for a in call.args):
            return f"its forward casts with {f.code(call)}"
        if isinstance(func, cst.Subscript):
            return f"its forward launches {f.code(func)}"  # kernel[grid](...)
        if name is None and isinstance(func, cst.Attribute) and \
                isinstance(func.value, cst.Name):
            head = func.value.value
            if head in f.modules and p._imported_module(f, head) is None and \
                    f.modules[head][1].split(".")[0] not in ("torch", "math", "functools"):
                return f"its forward calls {f.code(func)} of a module outside the run"
        if depth < 2 and isinstance(func, cst.Name):
            found = p.find_function(f, func.value)
            if found:
                why = _opaque(p, found[0], found[1], depth + 1)
                if why:
                    return why
    return None


def _dynamo_accelerator(call):
    """Accelerator(dynamo_backend=...) other than "NO", or a dynamo plugin."""
    for a in call.args:
        if a.keyword and a.keyword.value in ("dynamo_plugin", "dynamo_config"):
            return True
        if a.keyword and a.keyword.value == "dynamo_backend":
            return not (isinstance(a.value, cst.SimpleString) and
                        a.value.evaluated_value.lower() == "no")
    return False


def _torch_compile_arguments(call):
    """TrainingArguments(torch_compile=...) other than False."""
    return any(a.keyword and a.keyword.value == "torch_compile" and
               not (isinstance(a.value, cst.Name) and a.value.value in ("False", "None"))
               for a in call.args)


def _patched_function(value):
    """The function a forward is replaced by: f, types.MethodType(f, x),
    functools.partial(f, x), f.__get__(x)."""
    if isinstance(value, cst.Name):
        return value.value
    if isinstance(value, cst.Call):
        name = dotted(value.func) or ""
        if name.split(".")[-1] in ("MethodType", "partial") and value.args:
            return dotted(value.args[0].value)
        if isinstance(value.func, cst.Attribute) and value.func.attr.value == "__get__":
            return dotted(value.func.value)
    return None


def _calls_and_names(node):
    """The calls and names inside an expression (not inside lambdas)."""
    found = []

    class Walk(cst.CSTVisitor):
        def visit_Lambda(self, n):
            return False

        def visit_Call(self, n):
            found.append(n)

        def visit_Name(self, n):
            found.append(n)
    node.visit(Walk())
    return found


def callees(project, f, scope, call):
    """[(file, key, skip_self, why)]: the functions of the run a call in
    scope (a function key of f) may run: a function by name (nested in
    scope, in f, imported, of an imported module), a method on self (its
    class's or a base's), super().m(), a submodule's forward (self.attn(x),
    self.blocks[i](x), a module bound to a name or a loop variable), a
    method of a module of the run."""
    p = project
    func = call.func
    out = []
    if isinstance(func, cst.Name):
        name = func.value
        if scope and f"{scope}.{name}" in f.functions:
            return [(f, f"{scope}.{name}", False, "called")]
        found = p.find_function(f, name)
        if found:
            return [(found[0], found[1], False, "called")]
        for r in p.modules_of(f, scope, func):
            out += [(g, k, True, "called") for g, k in p.forwards(r.elements())]
        return out
    if isinstance(func, cst.Attribute):
        attr, value = func.attr.value, func.value
        if attr == "apply" and p.function_class(f, value):
            return []
        if isinstance(value, cst.Call) and isinstance(value.func, cst.Name) and \
                value.func.value == "super" and scope and f.functions[scope].cls:
            cls = f.classes.get(f.functions[scope].cls)
            for g, c in p.bases(f, cls) if cls else []:
                if attr in c.methods:
                    return [(g, c.methods[attr], True, "called")]
            return []
        if isinstance(value, cst.Name) and value.value != "self" and (
                value.value in f.modules or value.value in f.imported):
            found = p.find_function(f, f"{value.value}.{attr}")
            if found:
                return [(found[0], found[1], False, "called")]
        if isinstance(value, cst.Name) and value.value == "self" and scope and \
                f.functions[scope].cls:
            cls = f.classes.get(f.functions[scope].cls)
            if cls is not None:
                found = p.method(f, cls, attr)
                if found:
                    return [(found[0], found[1], True, "called")]
        seen = set()
        owners = p.modules_of(f, scope, value)
        for r in owners:
            r = r.elements() if r.container else r
            found = p.method(r.file, r.cls, attr)
            if found and found not in seen:
                seen.add(found)
                out.append((found[0], found[1], True, "called"))
        # A member module called: self.attn(x).
        for r in p.modules_of(f, scope, func):
            for g, k in p.forwards(r.elements() if r.container else r):
                if (g, k) not in seen:
                    seen.add((g, k))
                    out.append((g, k, True, "called"))
        return out
    if isinstance(func, cst.Subscript):
        for r in p.modules_of(f, scope, func):
            out += [(g, k, True, "called") for g, k in p.forwards(r.elements())]
    return out


def callable_targets(project, f, scope, expr):
    """[(file, key, skip_self, why)]: the functions a callable value runs when
    called (checkpoint's first argument): a function, a bound method, a
    module, functools.partial(f, ...), what a function returns (a closure:
    create_custom_forward(module))."""
    p = project
    if isinstance(expr, cst.Call):
        name = dotted(expr.func) or ""
        if name.split(".")[-1] == "partial" and expr.args:
            return callable_targets(p, f, scope, expr.args[0].value)
        out = []
        for g, key, _, _ in callees(p, f, scope, expr):
            out += [(g, k, False, "called") for k in g.functions[key].nested]
        return out
    if isinstance(expr, cst.Attribute) and expr.attr.value == "__call__":
        expr = expr.value
    fake = cst.Call(func=expr)
    return callees(p, f, scope, fake)
