"""The case lines of operators.cpp (see its header), shared by the runner
and the measurement."""
import os
import re

HERE = os.path.dirname(os.path.abspath(__file__))
SOURCE = os.path.join(HERE, "operators.cpp")
NAMESPACE = "tt_verdicts"
TARGET_SHAPE = (3, 4)

CASE_RE = re.compile(r"^// case: (\w+)((?: \w+=[\w,]+)*)\s*$")


def parse(path=SOURCE):
    """[{name, call, src (tuple), key, owner}] in file order."""
    cases = []
    for line in open(path):
        m = CASE_RE.match(line.strip())
        if not m:
            continue
        fields = dict(f.split("=", 1) for f in m.group(2).split())
        cases.append({
            "name": m.group(1),
            "call": fields.get("call", "mutable"),
            "src": tuple(int(d) for d in fields.get("src", "3,4").split(",")),
            "key": fields.get("key", "CompositeImplicitAutograd"),
            "owner": fields.get("owner", "flagship"),
        })
    return cases
