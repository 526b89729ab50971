"""Finds, in compiled Python, in-place writes into a tensor made without
gradient tracking from a value that may require grad, and where torch.compile
then reads the tensor's stale requires_grad: code that reads the flag, or
Dynamo at an autograd.Function's apply (LibCST, concrete syntax).

The files of a run are read together (definitions.PythonFile); their
regions (regions.py) are scanned one function at a time (scan.py), and the
calls between them followed until nothing changes: a region's callees are
regions, a stale value passed to one is stale in it, and what one returns
is stale where it was. Each write is classified into a form of the measured
table (ground_truth.py); claims.py decides what may be said of it."""
import collections
import os

from .definitions import PythonFile
from .findings import FileResult
from .fixes import check_fixes, check_rule_forms  # noqa: F401  (the package's API)
from .regions import Project
from .scan import FunctionScan
from .torch_names import REMEDY  # noqa: F401  (the package's API)

RESCANS = 8  # a function whose inputs keep changing is scanned at most this often


class _Region:
    def __init__(self, f, key, why):
        self.f, self.key, self.why = f, key, why
        self.grad = False
        self.params = {}     # parameter -> frozenset of Stale
        self.callers = set()
        self.scans = 0
        self.writes = []


class Analysis:
    """The regions of the files of one run, and their writes."""

    def __init__(self, files, compiled=()):
        self.project = Project(files, compiled)
        self.regions = {}
        self.facts = {}      # region key -> [(write key, Consumer)]
        self.queue = collections.deque()
        self.queued = set()

    def _add(self, f, key, why, grad=True, stale=None, caller=None):
        k = (os.path.normpath(f.path), key)
        region = self.regions.get(k)
        changed = False
        if region is None:
            region = self.regions[k] = _Region(f, key, why)
            changed = True
        if grad and not region.grad:
            region.grad = changed = True
        for param, facts in (stale or {}).items():
            old = region.params.get(param, frozenset())
            if not facts <= old:
                region.params[param] = old | facts
                changed = True
        if caller is not None:
            region.callers.add(caller)
        if changed and k not in self.queued:
            self.queue.append(k)
            self.queued.add(k)

    def run(self):
        """{path: FileResult}."""
        p = self.project
        for f, key, why in p.roots():
            self._add(f, key, why)
        while self.queue:
            k = self.queue.popleft()
            self.queued.discard(k)
            region = self.regions[k]
            if region.scans >= RESCANS:
                continue
            region.scans += 1
            self._scan(k, region)
        return self._results()

    def _scan(self, k, region):
        p, f, key = self.project, region.f, region.key
        scan = FunctionScan(p, f, key, region.params, region.grad).run()
        check_fixes(scan)
        region.writes = scan.writes
        self.facts[k] = scan.facts
        if p.returns.get(k, frozenset()) != frozenset(scan.returns):
            p.returns[k] = frozenset(scan.returns)
            for caller in region.callers:
                if caller not in self.queued:
                    self.queue.append(caller)
                    self.queued.add(caller)
        for e in scan.edges:
            where = "" if e.file is f else f" in {os.path.basename(f.path)}"
            why = e.why if e.why != "called" else f"called from '{key}'"
            self._add(e.file, e.key, f"{why}{where}, which is compiled", e.grad,
                      e.stale_args, caller=k)
        info = f.functions[key]
        for nested in info.nested:
            self._add(f, nested, f"defined in '{key}', which is compiled", region.grad)
        for dec in info.node.decorators:
            for g, inner, name in self._decorator_wrappers(f, dec):
                self._add(g, inner, f"the inner function of decorator '{name}', which "
                          f"decorates '{key}', compiled", region.grad)

    def _decorator_wrappers(self, f, dec):
        """The functions nested in a decorator of the run (its inner
        wrapper, which runs in place of the function it decorates)."""
        node = dec.decorator
        from .definitions import dotted
        name = dotted(node.func if hasattr(node, "func") else node)
        if not name or f.compiling_decorator(dec) or f.grad_scope(node):
            return []
        found = self.project.find_function(f, name)
        if not found:
            return []
        g, key = found
        out, work = [], list(g.functions[key].nested)
        while work:
            inner = work.pop()
            out.append((g, inner, name))
            work += g.functions[inner].nested
        return out

    def _results(self):
        consumers = collections.defaultdict(dict)
        for facts in self.facts.values():
            for wkey, c in facts:
                ident = (c.kind, c.path, c.line, c.column, c.derived, c.via, c.attribute,
                         c.position, c.conditions)
                consumers[wkey][ident] = c
        results = {}
        for f in self.project.files.values():
            results[f.path] = FileResult(f.path)
        for (path, key), region in self.regions.items():
            f = region.f
            result = results[f.path]
            result.regions.append((key, region.why))
            where = f.pos[f.functions[key].node.name].start
            result.functions[key] = (where.line, where.column + 1)
            for w in region.writes:
                w.consumers = sorted(consumers.get(w.key, {}).values(),
                                     key=lambda c: (c.path, c.line, c.column))
                result.writes.append(w)
        for result in results.values():
            result.regions.sort(key=lambda r: result.functions[r[0]])
            result.writes.sort(key=lambda w: (w.line, w.column))
        return results


class Analyzer:
    """One file alone (the flake8 plugin's view, and the tests')."""

    def __init__(self, source, path="<string>"):
        self.file = PythonFile(source, path)
        self.path = path

    def analyse(self):
        return Analysis([self.file]).run()[self.path]
