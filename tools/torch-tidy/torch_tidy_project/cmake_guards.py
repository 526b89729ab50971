"""What switches a CMake project's sources on, read from its CMakeLists.txt
files: the `if()` branches (through `add_subdirectory`) that name a source
(`add_library`, `list(APPEND ...)`, `set(...)`, `target_sources`,
`file(GLOB ...)`), and the variables their conditions test. Coverage's
advice for a source the build left out is only these: an option that adds a
define (deepmd-kit's DEEPMD_ENABLE_DPA1_HIGH_LMAX) is never suggested for a
file whose name shares a word with it. A condition that already held in the
analysed configuration (a branch that also adds a file the database lists)
is left out of the advice; a variable the project's own CMake computes
(`set()` without CACHE, `*_FOUND`) is named as a condition, not as a
switch; a variable the build backend passes (`-DUSE_CUDA_TOOLKIT=TRUE`
where `DP_VARIANT` is "cuda") is advised as that environment variable."""
import glob
import os
import re

from .cmake import _substitute, cmake_directories
from .common import rel
from .coverage import SOURCES as SOURCE_SUFFIXES
from .coverage import VALUE_WORDS, Switch, _words
# Commands whose arguments name sources without adding them to a build.
NOT_ADDING = {"set_source_files_properties", "set_property", "message",
              "install", "source_group", "get_filename_component",
              "configure_file", "set_target_properties", "add_test",
              "get_property", "get_source_file_property", "if", "elseif",
              "else", "endif", "foreach", "endforeach", "function",
              "endfunction", "macro", "endmacro", "while", "endwhile"}
UNARY = {"EXISTS", "COMMAND", "POLICY", "TARGET", "TEST", "IS_DIRECTORY",
         "IS_SYMLINK", "IS_ABSOLUTE", "IS_READABLE", "IS_WRITABLE",
         "IS_EXECUTABLE"}
BINARY = {"STREQUAL", "EQUAL", "LESS", "GREATER", "LESS_EQUAL",
          "GREATER_EQUAL", "STRLESS", "STRGREATER", "STRLESS_EQUAL",
          "STRGREATER_EQUAL", "MATCHES", "VERSION_EQUAL", "VERSION_LESS",
          "VERSION_GREATER", "VERSION_LESS_EQUAL", "VERSION_GREATER_EQUAL",
          "IN_LIST", "PATH_EQUAL", "IS_NEWER_THAN"}
CONSTANTS = {"ON", "OFF", "TRUE", "FALSE", "YES", "NO", "Y", "N", "IGNORE",
             "NOTFOUND", "0", "1"}
# Platform variables CMake sets: a condition of the machine, not a switch.
PLATFORM = {"WIN32", "UNIX", "APPLE", "MSVC", "MINGW", "CYGWIN", "ANDROID",
            "IOS", "LINUX", "BSD", "XCODE", "EMSCRIPTEN"}
_COMMAND = re.compile(r"([A-Za-z_]\w*)[ \t]*\(")


def commands(text):
    """[(name, [arguments], line)] of a CMake text with its comments left
    out: names lower-case, quoted arguments kept with their quotes, nested
    parentheses as "(" and ")" arguments."""
    out, i, line = [], 0, 1
    while True:
        m = _COMMAND.search(text, i)
        if not m:
            return out
        line += text.count("\n", i, m.start())
        j, depth, args, cur = m.end(), 1, [], ""
        while j < len(text) and depth:
            c = text[j]
            if c == '"':
                k = j + 1
                while k < len(text) and text[k] != '"':
                    k += 2 if text[k] == "\\" else 1
                cur += text[j:k + 1]
                j = k + 1
                continue
            if c in "()" or c.isspace():
                if cur:
                    args.append(cur)
                    cur = ""
                if c == "(":
                    depth += 1
                    args.append(c)
                elif c == ")":
                    depth -= 1
                    if depth:
                        args.append(c)
            else:
                cur += c
            j += 1
        out.append((m.group(1).lower(), args, line))
        line += text.count("\n", m.start(), j)
        i = j


class Level:
    """One condition a source is under: the `if`/`elseif` arguments (None
    for an `else()` branch, which this reading does not turn into a
    switch), where it is written."""

    def __init__(self, args, path, line):
        self.args, self.path, self.line = args, path, line


class Reading:
    """A CMake project's sources and the conditions they are under.
    records: [(levels, {real source paths})], one per command that names
    sources (levels: a tuple of Level, () where unconditional). computed:
    {variable: (path, line)} the project's CMake sets itself. options:
    {variable: default} of its option()s. values: {variable: literal} of
    its one-value set()s. lists: how many files were read."""

    def __init__(self):
        self.records, self.computed, self.options = [], {}, {}
        self.values = {}   # set(NAME literal): what a comparison names
        self.lists = 0


def read(source):
    """The Reading of the CMake project at source (its folder)."""
    lists = cmake_directories(source)
    reading = Reading()
    reading.lists = len(lists)
    parsed = {p: commands(t) for p, t in lists.items()}
    for path, cmds in parsed.items():
        conditions = []
        for name, args, line in cmds:
            if name == "if":
                conditions.append([a.upper() for a in args])
            elif name == "endif" and conditions:
                conditions.pop()
            elif name in ("elseif", "else") and conditions:
                conditions[-1] = None
            if not args:
                continue
            if name == "set" and len(args) == 2 and "$" not in args[1]:
                reading.values.setdefault(args[0], args[1].strip('"'))
            if name == "set" and "CACHE" not in args[1:]:
                # `if(NOT DEFINED X) set(X default)`: a default the user
                # may override, not a value the project computes.
                if conditions and conditions[-1] in (
                        ["NOT", "DEFINED", args[0].upper()],
                        ["NOT", args[0].upper()]):
                    continue
                reading.computed.setdefault(args[0], (path, line))
            elif name in ("option", "cmake_dependent_option"):
                default = next((a.upper() for a in args[2:]
                                if a.upper() in CONSTANTS), "OFF")
                reading.options.setdefault(args[0], default)
    seen = set()
    # Sources named into a variable (set, list(APPEND), file(GLOB)): {name:
    # [(levels, files)]}; a command that uses ${name} adds them under the
    # conditions of both.
    named_in, used = {}, set()

    def walk(path, above):
        if path in seen or path not in parsed:
            return
        seen.add(path)
        here = os.path.dirname(path)
        stack, variables = [], {}
        for name, args, line in parsed[path]:
            if name == "if":
                stack.append(Level(args, path, line))
                continue
            if name in ("elseif", "else"):
                if stack:
                    stack[-1] = Level(args if name == "elseif" else None,
                                      path, line)
                continue
            if name == "endif":
                if stack:
                    stack.pop()
                continue
            levels = tuple(above) + tuple(stack)
            if name == "set" and len(args) == 2:
                value = _substitute(args[1], here, source, variables)
                if value is not None:
                    variables[args[0]] = value
            if name == "add_subdirectory" and args:
                d = _substitute(args[0], here, source, variables)
                if d:
                    walk(os.path.normpath(os.path.join(here, d,
                                                       "CMakeLists.txt")),
                         levels)
                continue
            if name in NOT_ADDING:
                continue
            files = _sources(name, args, here, source, variables)
            into = _variable_named(name, args)
            if into:
                if name != "list" and f"${{{into}}}" not in " ".join(args):
                    named_in[into] = []   # set anew, not appended to
                if files:
                    named_in.setdefault(into, []).append((levels, files))
                continue
            for a in args:
                for var in re.findall(r"\$\{(\w+)\}", a):
                    for lv, fs in named_in.get(var, []):
                        used.add(id(fs))
                        reading.records.append((levels + tuple(
                            x for x in lv if x not in levels), fs))
            if files:
                reading.records.append((levels, files))
    top = os.path.join(source, "CMakeLists.txt")
    walk(top, ())
    for path in sorted(parsed):
        walk(path, ())
    # Named into a variable this reading did not see used: under the
    # conditions where they were named.
    for entries in named_in.values():
        reading.records += [(lv, fs) for lv, fs in entries
                            if id(fs) not in used]
    return reading


def _variable_named(name, args):
    """The variable a set(), list(APPEND ...) or file(GLOB ...) names its
    sources into, or None."""
    if name == "set" and args and "CACHE" not in args:
        return args[0]
    if name == "list" and len(args) > 1 and args[0].upper() in (
            "APPEND", "PREPEND", "INSERT"):
        return args[1]
    if name == "file" and len(args) > 1 and args[0].upper() in (
            "GLOB", "GLOB_RECURSE"):
        return args[1]
    return None


def _sources(name, args, here, source, variables):
    found = set()
    globbing = name == "file" and args and args[0].upper() in (
        "GLOB", "GLOB_RECURSE")
    for a in args:
        v = _substitute(a, here, source, variables)
        if not v:
            continue
        path = os.path.join(here, v)
        if globbing and "*" in v:
            for p in glob.glob(path, recursive=args[0].upper() ==
                               "GLOB_RECURSE"):
                if p.endswith(SOURCE_SUFFIXES):
                    found.add(os.path.realpath(p))
        elif v.endswith(SOURCE_SUFFIXES) and os.path.isfile(path):
            found.add(os.path.realpath(path))
    return found


def _unquote(token):
    m = re.match(r'^"?\$\{(\w+)\}"?$', token)
    return m.group(1) if m else token.strip('"')


def _alternatives(args):
    """A condition's arguments split at its top-level OR."""
    out, cur, depth = [], [], 0
    for a in args:
        depth += (a == "(") - (a == ")")
        if a.upper() == "OR" and depth == 0:
            out.append(cur)
            cur = []
        elif a not in "()":
            cur.append(a)
    return out + [cur]


def requirements(args, reading):
    """What one alternative of a condition asks: ([(variable, value)] to
    set, [text] the machine or the project's CMake decides), or None where
    it cannot be read as such (a negated switch)."""
    settings, needs, i = [], [], 0
    while i < len(args):
        a, up = args[i], args[i].upper()
        nxt = args[i + 1] if i + 1 < len(args) else None
        if up in ("AND", "NOT") or up in CONSTANTS:
            i += 1
            continue
        negated = i > 0 and args[i - 1].upper() == "NOT"
        if up in UNARY:
            needs.append(("NOT " if negated else "") +
                         (f"{a} {nxt}" if nxt else a))
            i += 2
            continue
        if up == "DEFINED" and nxt:
            var = nxt
            env = re.match(r"^(?:\$?ENV)\{(\w+)\}$", var)
            if negated:
                return None
            settings.append((("env", env.group(1)) if env else var, "1"))
            i += 2
            continue
        name = _unquote(a)
        env = re.match(r'^"?\$ENV\{(\w+)\}"?$', a)
        if nxt and nxt.upper() in BINARY and i + 2 < len(args):
            other = args[i + 2].strip('"')
            op = nxt.upper()
            if "torch" in name.lower() and (
                    op in ("VERSION_GREATER_EQUAL", "VERSION_GREATER") and
                    not negated or op == "VERSION_LESS" and negated) and \
                    re.match(r"^\d+(\.\d+)*$", other):
                # A torch version gate, as setup.py's are named.
                needs.append(f"torch >= {other} (--python with a torch "
                             f"that new)")
            elif op in ("STREQUAL", "EQUAL") and not negated and \
                    "$" not in other:
                # An unquoted name is CMake's variable: its value.
                if not args[i + 2].startswith('"'):
                    other = reading.values.get(other, other)
                target = ("env", env.group(1)) if env else name
                settings.append((target, other))
            else:
                needs.append(("NOT " if negated else "") +
                             " ".join(args[i:i + 3]))
            i += 3
            continue
        if not re.match(r"^[A-Za-z_]\w*$", name) and not env:
            needs.append(a)
        elif negated:
            if env or reading.options.get(name) not in ("ON", "TRUE", "YES",
                                                        "1"):
                if name in reading.computed:
                    needs.append(f"NOT {name}")
                # else: off unless told otherwise, as the condition asks
            else:
                settings.append((name, "OFF"))
        else:
            settings.append((("env", env.group(1)) if env else name, "ON"))
        i += 1
    return settings, needs


def _holds_value(env, value):
    """Whether the backend's variable holds a value (DP_LAMMPS_VERSION, a
    path) that any non-empty string satisfies: "=1" is no advice there."""
    return value == "1" and bool(_words(env) & VALUE_WORDS)


def _truthy(value):
    return value.upper() not in ("OFF", "FALSE", "NO", "N", "0", "",
                                 "IGNORE", "NOTFOUND")


def _describe(levels, reading, by_env, root):
    """The hints for one chain of conditions not yet held: one per
    combination of their OR alternatives (at most 4); [] where the chain
    holds as the build is (`NOT WITH_TESTS`, an option OFF by default);
    None where none can be read."""
    combos = [([], [])]
    for level in levels:
        where = f"{rel(level.path, root)}:{level.line}"
        if level.args is None:
            combos = [(s, n + [f"the else() branch at {where}"])
                      for s, n in combos]
            continue
        grown = []
        for alt in _alternatives(level.args):
            asked = requirements(alt, reading)
            if asked is None:
                continue
            for s, n in combos:
                grown.append((s + asked[0], n + asked[1]))
        combos = grown[:4]
    # Where one alternative asks for less (`if(CUDA OR ROCM)` around
    # `if(ROCM)`: ROCM alone), the one that asks for more is not advice.
    asked = [set(map(str, s)) | set(n) for s, n in combos]
    combos = [c for c, a in zip(combos, asked)
              if not any(b < a for b in asked)]
    hints = []
    for settings, needs in combos:
        parts, also, chosen, possible = [], list(needs), {}, True
        passes = []
        for target, value in settings:
            if isinstance(target, tuple):
                part = f"--env {target[1]}={'1' if value == 'ON' else value}"
            elif target in by_env and _truthy(value) and not _holds_value(
                    *by_env[target]):
                env, env_value = by_env[target]
                if chosen.setdefault(env, env_value) != env_value:
                    possible = False   # one variable, two values
                part = f"--env {env}={env_value}"
                if f"-D{target}" not in passes:
                    passes.append(f"-D{target}")
            elif target in PLATFORM or target.startswith("CMAKE_"):
                part, need = None, target if _truthy(value) else \
                    f"NOT {target}"
            elif target in reading.computed and target not in \
                    reading.options:
                path, line = reading.computed[target]
                said = target if value == "ON" else f"{target} = {value}"
                part, need = None, (f"{said} (set by the project's CMake, "
                                    f"{rel(path, root)}:{line})")
            elif value == "ON" and _words(target) & VALUE_WORDS:
                # A variable that holds a value (LAMMPS_VERSION, a path):
                # set to something, not switched on.
                part, need = None, f"{target} (a value)"
            else:
                part = f"-D {target}={value}"
            if part is None:
                if need not in also:
                    also.append(need)
            elif part not in parts:
                parts.append(part)
        if not possible:
            continue
        if not parts and not also:
            return []   # holds as the build is: not what leaves it out
        last = levels[-1]
        where = f"{rel(last.path, root)}:{last.line}"
        branch = f"the else() branch at {where}"
        if last.args is None:
            # The branch is named where it is written, not again at the end.
            also.remove(branch)
        hold = "hold" if len(also) > 1 else "holds"
        at = f"if() at {where}" if last.args is not None else \
            f"in {branch}"
        if parts:
            text = " ".join(parts)
            if also:
                text += f", where {' and '.join(also)} {hold} too"
            said = [f"the build passes {' '.join(passes)}"] if passes else []
            text += f" ({', '.join(said + [at])})"
        elif also:
            text = f"built where {' and '.join(also)} {hold} ({at})"
        else:
            text = f"built {at}"
        if text not in hints:
            hints.append(text)
    return hints or None


def switches(reading, database_files, by_env, root):
    """[coverage.Switch] naming the sources they bring in, for the sources
    the analysed build left out (not in database_files, real paths). by_env:
    {CMAKE_VARIABLE: (ENV, value)} the build backend passes."""
    held = set()
    for levels, files in reading.records:
        if files & database_files:
            held.update(map(id, levels))
    named = set()
    for levels, files in reading.records:
        if all(id(level) in held for level in levels):
            named |= files
    by_hint = {}
    for levels, files in reading.records:
        pending = [level for level in levels if id(level) not in held]
        files = files - named - database_files
        if not pending or not files:
            continue
        hints = _describe(pending, reading, by_env, root)
        if hints is None:
            hints = [f"built where the condition at "
                     f"{rel(pending[-1].path, root)}:{pending[-1].line} "
                     f"holds"]
        for hint in hints:
            by_hint.setdefault(hint, set()).update(files)
    return [Switch(hint.split()[1] if hint.startswith(("-D ", "--env "))
                   else hint, "cmake", files=files, text=hint)
            for hint, files in by_hint.items()]
