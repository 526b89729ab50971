"""What the Python front end may claim, read from the measured table the C++
checks rest on (docs/ground-truth.json, paths `python`, `python_view_arith`
and `python_more`): for each write form, the torch versions on which
torch.compile read requires_grad == False inside the compiled function
after the write, and the backends that did."""
import json
import os

HERE = os.path.dirname(os.path.abspath(__file__))
# Beside the package where a build copied it (build/bin/torch_tidy_py); an
# installation's docs (share/torch-tidy/python/torch_tidy_py ->
# share/doc/torch-tidy); the source tree's docs/.
CANDIDATES = [os.path.join(HERE, "ground-truth.json"),
              os.path.join(HERE, "..", "..", "..", "doc", "torch-tidy", "ground-truth.json"),
              os.path.join(HERE, "..", "..", "..", "docs", "ground-truth.json")]
PATHS = ("python", "python_view_arith", "python_more")
BACKENDS = ("eager", "aot_eager", "inductor")


class GroundTruthError(Exception):
    pass


def version_key(version):
    """(major, minor, patch): 2.15 and 2.15.0 are one version."""
    parts = [int(p) if p.isdigit() else 0 for p in version.split("+")[0].split(".")]
    return tuple((parts + [0, 0, 0])[:3])


class GroundTruth:
    """losing(form) -> [(version, [backends])] where the compiled function
    read False and the uncompiled one True; measured(form) -> bool."""

    def __init__(self, path=None):
        path = path or next((p for p in CANDIDATES if os.path.exists(p)), None)
        if path is None:
            raise GroundTruthError("cannot find ground-truth.json (looked in "
                                   + ", ".join(os.path.normpath(p) for p in CANDIDATES) + ")")
        try:
            with open(path) as f:
                table = json.load(f)
            rows = table["rows"]
        except (OSError, ValueError, KeyError) as e:
            raise GroundTruthError(f"cannot read the measured table {path}: {e}")
        self.path = path
        self.versions = sorted({r["torch"] for r in rows}, key=version_key)
        self._cells = {}
        for r in rows:
            if r.get("path") in PATHS:
                self._cells[(r["form"], r["torch"], r["backend"])] = r.get("rg_inside")

    def measured(self, form):
        return any(k[0] == form for k in self._cells)

    def losing(self, form):
        out = []
        for version in self.versions:
            if self._cells.get((form, version, "none")) is not True:
                continue
            lost = [b for b in BACKENDS if self._cells.get((form, version, b)) is False]
            if lost:
                out.append((version, lost))
        return out

    def kept_on(self, form):
        """The measured versions on which every compiled backend kept it."""
        return [v for v in self.versions
                if all(self._cells.get((form, v, b)) is True for b in BACKENDS)]
