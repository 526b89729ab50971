"""Run by first_release.py with one release's python: the Python write forms
of forms.py, read requires_grad inside the compiled function, JSON out."""
import json
import logging
import os
import sys
import warnings

import torch

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import forms  # noqa: E402

FORMS = ["setitem_adv_", "setitem_int_", "index_copy_", "narrow_copy_",
         "view_alias_copy_"]
BACKENDS = ["none", "eager", "aot_eager"]


def main():
    warnings.filterwarnings("ignore")
    logging.getLogger("torch").setLevel(logging.ERROR)
    version = torch.__version__.split("+")[0]
    rows = []
    for form in FORMS:
        write, shape, _ = forms.FORMS[form]

        def region(src, write=write):
            m = write(src)
            return m * 1, torch.tensor(m.requires_grad)
        for backend in BACKENDS:
            torch._dynamo.reset()
            fn = region if backend == "none" else torch.compile(region, backend=backend)
            src = torch.randn(shape, requires_grad=True)
            _, flag = fn(src)
            rows.append({"torch": version, "form": form, "backend": backend,
                         "kept": bool(flag)})
    print(json.dumps({"torch": version, "rows": rows}))


if __name__ == "__main__":
    main()
