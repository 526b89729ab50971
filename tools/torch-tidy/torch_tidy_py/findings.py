"""What the analysis finds: writes, what reads their stale flag, and the
staleness a value carries from one function to another."""
from dataclasses import dataclass, field


@dataclass(frozen=True)
class Stale:
    """A value whose requires_grad torch.compile may read stale: the write
    that made it so (its key), whether the value was computed from the
    written tensor (derived) rather than being it, the other values it was
    computed with that must not require grad for the flag to stay stale
    (their code), and what it went through on the way (checkpoint)."""
    write: tuple
    derived: bool = False
    conditions: tuple = ()
    via: tuple = ()

    def computed(self, conditions=()):
        return Stale(self.write, True, tuple(sorted(set(self.conditions) | set(conditions))),
                     self.via)


@dataclass
class Consumer:
    """Where code (or Dynamo) reads a stale flag.
      flag                 a read of requires_grad, grad_fn or is_leaf
      function             an autograd.Function's apply whose other inputs
                           do not require grad: its backward is not run
      function_needs_grad  an autograd.Function's apply whose backward reads
                           ctx.needs_input_grad for the stale input: None
      collective           a collective of torch.distributed.nn (callee: its
                           name; path: its ground truth path, None where
                           not measured)"""
    kind: str
    path: str
    line: int
    column: int
    function: str          # the function it is in
    derived: bool = False
    conditions: tuple = ()
    via: tuple = ()
    attribute: str = None  # flag: the attribute read
    callee: str = None     # function kinds: the Function's name
    position: int = None   # function kinds: the argument's position
    path_rows: str = None  # collective: its ground truth path
    # function: why the Function's forward is not differentiable as traced
    # (its backward not run, the gradient is lost), None where nothing shows it
    opaque: str = None


@dataclass
class Write:
    line: int
    column: int
    target: str
    form: str
    made_line: int
    made_column: int
    factory: str
    # The measured forms of the target's making (torch_names.TARGET_FORMS and
    # FRESH_CHAIN), or None where a part of it was not measured.
    target_forms: tuple
    function: str = ""
    path: str = ""
    source: str = ""  # the written value, as written (shortened)
    consumers: list = field(default_factory=list)
    # The fix: its rule (a row of RewriteRules.def) and its edits, each
    # ((line, column), (line, column), text) with columns from 1, the first
    # replacing the write's statement; or why there is none.
    fix_rule: str = None
    fix_text: str = None
    fix_edits: list = None
    fix_note: str = None  # what else the fix does (a view bound again, ...)
    no_fix: str = None
    statement: object = field(default=None, repr=False)  # the node the fix replaces
    view_statement: object = field(default=None, repr=False)  # a named view's binding

    @property
    def key(self):
        return (self.path, self.line, self.column)

    @property
    def fix_range(self):
        return (self.fix_edits[0][0], self.fix_edits[0][1]) if self.fix_edits else None

    @property
    def flag_reads(self):
        return sorted({c.line for c in self.consumers
                       if c.kind == "flag" and c.path == self.path})


@dataclass
class FileResult:
    path: str
    regions: list = field(default_factory=list)  # [(function, why compiled)]
    writes: list = field(default_factory=list)
    functions: dict = field(default_factory=dict)  # function -> (line, column)
