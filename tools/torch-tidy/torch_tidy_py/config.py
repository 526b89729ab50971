"""torch-tidy-py's configuration: the [tool.torch-tidy-py] table of the
nearest pyproject.toml above the files (or --config FILE), under the
command line's options.

  [tool.torch-tidy-py]
  flag-read = "read"        # or "any"
  min-torch = "2.10"
  compiled = ["Block", "pkg.model.Decoder", "train_step"]

`compiled` names what the project compiles where torch-tidy-py cannot see
it (a model built by a library's factory and compiled there): a class (its
forward is a region), a function or a method ("Class.method"), by its name
or its dotted module path. --dump-config prints what a run uses, in this
form."""
import os
from dataclasses import dataclass, field

TABLE = "torch-tidy-py"
KEYS = ("flag-read", "min-torch", "compiled")


class ConfigError(Exception):
    pass


@dataclass
class Config:
    flag_read: str = "read"
    min_torch: str = None
    compiled: list = field(default_factory=list)
    source: str = None  # the file it was read from

    def dump(self):
        lines = ["# torch-tidy-py's configuration"
                 + (f" (from {self.source})" if self.source else " (defaults)"),
                 f"[tool.{TABLE}]",
                 f'flag-read = "{self.flag_read}"']
        if self.min_torch:
            lines.append(f'min-torch = "{self.min_torch}"')
        lines.append("compiled = [" + ", ".join(f'"{c}"' for c in self.compiled) + "]")
        return "\n".join(lines) + "\n"


def find(paths):
    """The nearest pyproject.toml with a [tool.torch-tidy-py] table, above the
    files' common directory; None."""
    dirs = [os.path.dirname(os.path.abspath(p)) for p in paths] or [os.getcwd()]
    here = os.path.commonpath(dirs)
    while True:
        cand = os.path.join(here, "pyproject.toml")
        if os.path.isfile(cand):
            try:
                if _table(cand) is not None:
                    return cand
            except ConfigError:
                return cand  # read it again to say what is wrong
        parent = os.path.dirname(here)
        if parent == here:
            return None
        here = parent


def _table(path):
    import tomllib
    try:
        with open(path, "rb") as f:
            data = tomllib.load(f)
    except (OSError, tomllib.TOMLDecodeError) as e:
        raise ConfigError(f"{path}: cannot read: {e}")
    return data.get("tool", {}).get(TABLE)


def load(path, parse_version):
    """The Config of a file's [tool.torch-tidy-py] table (defaults where it
    has none); ConfigError names the file and the key that is wrong."""
    table = _table(path)
    config = Config(source=path)
    if table is None:
        return config
    if not isinstance(table, dict):
        raise ConfigError(f"{path}: [tool.{TABLE}] must be a table")
    for key, value in table.items():
        if key not in KEYS:
            raise ConfigError(f"{path}: unknown key '{key}' in [tool.{TABLE}] "
                              f"(known: {', '.join(KEYS)})")
        if key == "flag-read":
            if value not in ("read", "any"):
                raise ConfigError(f"{path}: flag-read must be \"read\" or \"any\", not {value!r}")
            config.flag_read = value
        elif key == "min-torch":
            try:
                config.min_torch = parse_version(str(value))
            except Exception as e:
                raise ConfigError(f"{path}: min-torch: {e}")
        elif key == "compiled":
            if not isinstance(value, list) or not all(isinstance(v, str) and v for v in value):
                raise ConfigError(f"{path}: compiled must be a list of names")
            config.compiled = list(value)
    return config
