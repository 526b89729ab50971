"""Builds operators.cpp with torch.utils.cpp_extension and reports, for every
case, the requires_grad that a caller reads on its buffer after the call,
uncompiled and under torch.compile. Run with a venv's python:

  measure_verdicts.py BUILD_DIR BACKEND[,BACKEND...]  -> JSON on stdout
"""
import contextlib
import io
import json
import logging
import os
import sys
import warnings

BUILD = os.path.abspath(sys.argv[1])
os.makedirs(BUILD, exist_ok=True)
os.environ.setdefault("TORCHINDUCTOR_CACHE_DIR", os.path.join(BUILD, "inductor"))

import torch  # noqa: E402

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..",
                                "tools", "ground-truth"))
import cases  # noqa: E402
import extension_build  # noqa: E402  (the twins' shared precompiled header)


def quiet():
    warnings.filterwarnings("ignore")
    logging.getLogger("torch").setLevel(logging.ERROR)
    torch._logging.set_logs(all=logging.ERROR)


def load():
    build = os.path.join(BUILD, "torch-" + torch.__version__)
    os.makedirs(build, exist_ok=True)
    with contextlib.redirect_stdout(io.StringIO()):
        extension_build.load(torch, "tt_verdicts_ops", build, [cases.SOURCE])


def register_fake(case):
    qualname = f"{cases.NAMESPACE}::{case['name']}"
    if case["call"] == "functional":
        torch.library.register_fake(qualname)(lambda m, v: torch.empty_like(m))
    elif case["call"] == "kwonly":
        torch.library.register_fake(qualname)(lambda v, *, out: None)
    else:
        torch.library.register_fake(qualname)(lambda m, v: None)


def region(case):
    op = getattr(getattr(torch.ops, cases.NAMESPACE), case["name"])

    def run(v):
        m = torch.zeros(cases.TARGET_SHAPE)
        if case["call"] == "functional":
            m = op(m, v)
        elif case["call"] == "kwonly":
            op(v, out=m)
        else:
            op(m, v)
        # What user code reads after the call, inside the compiled region.
        return m * 1, torch.tensor(m.requires_grad)
    return run


def main():
    backends = sys.argv[2].split(",")
    quiet()
    load()
    result = {"torch": torch.__version__.split("+")[0], "cases": {}}
    for case in cases.parse():
        if case["key"] != "CompositeImplicitAutograd":
            register_fake(case)
        seen = {}
        for backend in ["none"] + backends:
            torch._dynamo.reset()
            fn = region(case)
            if backend != "none":
                fn = torch.compile(fn, backend=backend)
            v = torch.randn(case["src"], requires_grad=True)
            try:
                _, flag = fn(v)
                seen[backend] = bool(flag)
            except Exception as e:  # recorded, and a failure of the test
                seen[backend] = type(e).__name__
        result["cases"][case["name"]] = seen
        print(case["name"], seen, file=sys.stderr, flush=True)
    print(json.dumps(result))


if __name__ == "__main__":
    main()
