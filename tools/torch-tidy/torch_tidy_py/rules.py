"""The rewrite rules torch-tidy-py may fix through: the rows of
RewriteRules.def, the table the C++ checks' fixes come from, and their Python
forms (its TORCH_TIDY_PYTHON_FORM rows). A fix is offered only through a row
there and only where its replacement text has the row's form, in the notation
of torch_tidy/rules/RuleForms.h:

  $t, $v, $n  an identifier, the same text at every use within one form
  @           any non-empty text with balanced (), [] and {} and string
              literals, and no ';' outside brackets
  ~           spaces and tabs, possibly none
  $(a|b|c)    one of the literal texts a, b, c
  $[...]      the bracketed template, or nothing
  |or|        separates alternative forms
Every other character stands for itself.
"""
import os
import re

HERE = os.path.dirname(os.path.abspath(__file__))
# Beside the package where a build copied it; an installation's share
# directory (share/torch-tidy/python/torch_tidy_py -> share/torch-tidy); the
# source tree.
CANDIDATES = [os.path.join(HERE, "RewriteRules.def"),
              os.path.join(HERE, "..", "..", "RewriteRules.def"),
              os.path.join(HERE, "..", "..", "..", "lib", "rules", "include", "torch_tidy",
                           "rules", "RewriteRules.def")]

_STRINGS = r'((?:"(?:[^"\\]|\\.)*"\s*)+)'


class RulesError(Exception):
    pass


def _concat(literals):
    """The value of adjacent C string literals."""
    parts = re.findall(r'"((?:[^"\\]|\\.)*)"', literals)
    return "".join(bytes(p, "utf-8").decode("unicode_escape") for p in parts)


class Rules:
    """ids: every rule id of the table; python[id]: its Python form."""

    def __init__(self, path=None):
        path = path or next((p for p in CANDIDATES if os.path.exists(p)), None)
        if path is None:
            raise RulesError("cannot find RewriteRules.def (looked in " + ", ".join(
                os.path.normpath(p) for p in CANDIDATES) + ")")
        try:
            with open(path) as f:
                text = re.sub(r"//[^\n]*", "", f.read())
        except OSError as e:
            raise RulesError(f"cannot read the rule table {path}: {e}")
        self.path = path
        self.ids = re.findall(r'TORCH_TIDY_REWRITE_RULE\(\s*"([^"]+)"', text)
        self.python = {}
        for rid, form in re.findall(r"TORCH_TIDY_PYTHON_FORM\(\s*" + _STRINGS + r",\s*"
                                    + _STRINGS + r"\)", text):
            rid = _concat(rid)
            if rid not in self.ids:
                raise RulesError(f"{path}: a Python form of '{rid}', which is no rule")
            self.python[rid] = _concat(form)
        if not self.python:
            raise RulesError(f"{path}: no TORCH_TIDY_PYTHON_FORM row")

    def matches(self, rid, text):
        """Whether text has the Python form of rule rid."""
        form = self.python.get(rid)
        if form is None:
            return False
        return any(_match(_parse(alt), 0, text, 0, {}) for alt in form.split("|or|"))


def _parse(template):
    """Tokens: ('lit', c), ('id', name), ('any',), ('space',), ('alt', [str]),
    ('opt', tokens)."""
    out, i = [], 0
    while i < len(template):
        c = template[i]
        if c == "$" and i + 1 < len(template):
            n = template[i + 1]
            if n == "(":
                j = template.index(")", i)
                out.append(("alt", template[i + 2:j].split("|")))
                i = j + 1
                continue
            if n == "[":
                depth, j = 0, i + 1
                while True:
                    depth += {"[": 1, "]": -1}.get(template[j], 0)
                    if depth == 0:
                        break
                    j += 1
                out.append(("opt", _parse(template[i + 2:j])))
                i = j + 1
                continue
            out.append(("id", n))
            i += 2
            continue
        if c == "@":
            out.append(("any",))
        elif c == "~":
            out.append(("space",))
        else:
            out.append(("lit", c))
        i += 1
    return out


def _balanced(text):
    stack, quote, i = [], None, 0
    pairs = {")": "(", "]": "[", "}": "{"}
    while i < len(text):
        c = text[i]
        if quote:
            if c == "\\":
                i += 2
                continue
            if c == quote:
                quote = None
        elif c in "\"'":
            quote = c
        elif c in "([{":
            stack.append(c)
        elif c in pairs:
            if not stack or stack.pop() != pairs[c]:
                return False
        elif c == ";" and not stack:
            return False
        i += 1
    return not stack and quote is None


def _match(tokens, k, text, i, bound):
    if k == len(tokens):
        return i == len(text)
    tok = tokens[k]
    kind = tok[0]
    if kind == "lit":
        return text.startswith(tok[1], i) and _match(tokens, k + 1, text, i + 1, bound)
    if kind == "space":
        j = i
        while True:
            if _match(tokens, k + 1, text, j, bound):
                return True
            if j < len(text) and text[j] in " \t":
                j += 1
            else:
                return False
    if kind == "alt":
        return any(text.startswith(a, i) and _match(tokens, k + 1, text, i + len(a), bound)
                   for a in tok[1])
    if kind == "opt":
        return _match(tok[1] + tokens[k + 1:], 0, text, i, bound) or \
            _match(tokens, k + 1, text, i, bound)
    if kind == "id":
        m = re.compile(r"[A-Za-z_]\w*").match(text, i)
        if not m:
            return False
        name = m.group(0)
        if tok[1] in bound and bound[tok[1]] != name:
            return False
        return _match(tokens, k + 1, text, m.end(), dict(bound, **{tok[1]: name}))
    # any: the shortest balanced text first
    for j in range(i + 1, len(text) + 1):
        if _balanced(text[i:j]) and _match(tokens, k + 1, text, j, bound):
            return True
    return False
