"""How much of a ground-truth table `make test` re-measures.

A table (docs/ground-truth*.json) is written from a whole measurement. Its
inputs, the sources of the reproducers and the torch and Python versions that
ran them, are recorded in docs/ground-truth-inputs.json, one digest per suite
and version label, by the command that writes the table (or by a whole check
run with --stamp). A check then re-measures:

  - every cell, when its inputs differ from the recorded ones (a reproducer
    edited, a new torch on PyPI for "latest"), or when the environment says
    TORCH_TIDY_GROUND_TRUTH=full;
  - otherwise a fixed sample: every EVERY-th case in the table's order, and
    the first case of each value of every stratum (path, form, registration,
    ...) not yet in it, so every value is still exercised on every run.

A suite that proves a check's fixes (applies --fix, then builds and measures
what it wrote) digests the fixed source with its inputs: the fixes proven
whole once are sampled while the check writes the same text, and a check
that writes another text has it proven whole.

Either way it fails on any measured cell that differs from the table, and it
says which it did. The sample keeps `make test` within CI's time; it checks
that the committed measurement still reproduces here, while the inputs'
digest guarantees a change of what is measured is measured whole.
Standard library only.
"""

import hashlib
import json
import os
import subprocess
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(HERE))
INPUTS_PATH = os.path.join(ROOT, "docs", "ground-truth-inputs.json")
ENV = "TORCH_TIDY_GROUND_TRUTH"
EVERY = 4


def versions_of(python):
    """(torch version, Python major.minor) of a venv's python, read from its
    metadata without importing torch."""
    code = ("import importlib.metadata as m, sys; "
            "print(m.version('torch')); print('%d.%d' % sys.version_info[:2])")
    out = subprocess.run([python, "-c", code], stdout=subprocess.PIPE,
                         stderr=subprocess.DEVNULL, text=True, check=True).stdout.split()
    return out[0], out[1]


def digest(files, python, text=None):
    """The inputs' digest: the named files of tools/ground-truth (their
    bytes), the torch version and the Python version of `python`, and a text
    made at run time where given (a fix suite's fixed source)."""
    h = hashlib.sha256()
    if text is not None:
        h.update(b"text\0" + text.encode() + b"\0")
    for name in sorted(files):
        with open(os.path.join(HERE, name), "rb") as f:
            h.update(name.encode() + b"\0" + f.read() + b"\0")
    torch_version, py = versions_of(python)
    h.update(f"torch {torch_version} python {py}".encode())
    return h.hexdigest()[:16]


def _read():
    if not os.path.exists(INPUTS_PATH):
        return {}
    with open(INPUTS_PATH) as f:
        return json.load(f)


def recorded(suite, label):
    return _read().get(suite, {}).get(label)


def stamp(suite, label, files, python, text=None):
    """Records the inputs a whole measurement of suite under label used."""
    data = _read()
    data.setdefault(suite, {})[label] = digest(files, python, text)
    with open(INPUTS_PATH, "w") as f:
        json.dump(data, f, indent=1, sort_keys=True)
        f.write("\n")


def whole(suite, label, files, python, text=None):
    """(True, why) when the check must re-measure every cell; (False, why)
    when the sample suffices. A suite that proves fixes passes the fixed
    source as text: a fix that changed is proven whole."""
    if os.environ.get(ENV) == "full":
        return True, f"{ENV}=full"
    want = recorded(suite, label)
    have = digest(files, python, text)
    if want is None:
        return True, f"no inputs recorded for {suite} {label} in docs/ground-truth-inputs.json"
    if want != have:
        return True, (f"the inputs differ from those the table was measured from "
                      f"({have}, recorded {want}): "
                      + ("the fixed source, " if text is not None else "")
                      + "a reproducer or the torch version changed")
    return False, f"the inputs are those the table was measured from ({have})"


def sample(cases, strata, every=EVERY):
    """The cases to re-measure: every `every`-th of `cases` (in order) and,
    for each stratum (a function of a case), the first case of each of its
    values that the sample lacks. Deterministic."""
    chosen = [c for i, c in enumerate(cases) if i % every == 0]
    for stratum in strata:
        have = {stratum(c) for c in chosen}
        for c in cases:
            v = stratum(c)
            if v not in have:
                chosen.append(c)
                have.add(v)
    keep = set(map(id, chosen))
    return [c for c in cases if id(c) in keep]


def say(what, is_whole, why, measured, total):
    print(f"{what}: {'every' if is_whole else 'a sample of'} {measured} of {total} cases "
          f"re-measured: {why}" + ("" if is_whole else
                                   f"; the whole table: {ENV}=full"), flush=True)


if __name__ == "__main__":
    sys.exit(__doc__)
