"""torch-tidy-py as a flake8 plugin: code TTP001, the same warnings as
torch-tidy-py on each file alone (a compiled function's callees in other
files are not followed: flake8 gives a plugin one file at a time).

Registered by a pip installation's entry point (`flake8.extension`,
`TTP = torch_tidy_py.flake8_plugin:Plugin`), or without one by flake8's
local plugins (setup.cfg, tox.ini or .flake8):

  [flake8:local-plugins]
  extension =
      TTP = torch_tidy_py.flake8_plugin:Plugin
  paths = /path/to/torch-tidy/tools/torch-tidy

Options: --torch-tidy-flag-read read|any, --torch-tidy-min-torch VERSION,
--torch-tidy-compiled NAME[,NAME...] (those of torch-tidy-py). Fixes are
torch-tidy-py's (--fix): flake8 reports.
"""
from . import __version__


class Plugin:
    name = "torch-tidy-py"
    version = __version__
    flag_read = "read"
    min_torch = None
    compiled = ()
    _truth = _rules = None

    def __init__(self, tree, filename, lines):
        self.filename = filename
        self.lines = lines

    @classmethod
    def add_options(cls, manager):
        manager.add_option("--torch-tidy-flag-read", default="read", choices=("read", "any"),
                           parse_from_config=True,
                           help="torch-tidy-py's --flag-read (default: read)")
        manager.add_option("--torch-tidy-min-torch", default=None, parse_from_config=True,
                           help="torch-tidy-py's --min-torch: the oldest torch supported")
        manager.add_option("--torch-tidy-compiled", default="", parse_from_config=True,
                           comma_separated_list=True,
                           help="torch-tidy-py's --compiled: classes and functions the "
                                "project compiles where this file does not show it")

    @classmethod
    def parse_options(cls, options):
        cls.flag_read = options.torch_tidy_flag_read
        cls.min_torch = options.torch_tidy_min_torch
        cls.compiled = tuple(c for c in options.torch_tidy_compiled or () if c)

    def run(self):
        from .analysis import Analysis, check_rule_forms
        from .claims import message, reported
        from .definitions import PythonFile
        from .ground_truth import GroundTruth
        from .rules import Rules
        if Plugin._truth is None:
            Plugin._truth, Plugin._rules = GroundTruth(), Rules()
        source = "".join(self.lines)
        try:
            result = Analysis([PythonFile(source, self.filename)],
                              self.compiled).run()[self.filename]
        except Exception as e:  # flake8 reports its own E999 for syntax errors
            yield 1, 0, f"TTP000 torch-tidy-py could not analyse this file ({type(e).__name__})", \
                type(self)
            return
        check_rule_forms(result.writes, Plugin._rules)
        shown, _ = reported(result.writes, Plugin._truth, self.flag_read, self.min_torch)
        for w, consumer, lost, kept in shown:
            fix = f" (torch-tidy-py --fix: {w.fix_text})" if w.fix_rule else ""
            yield w.line, w.column - 1, f"TTP001 {message(w, lost, kept, consumer)}{fix}", \
                type(self)
