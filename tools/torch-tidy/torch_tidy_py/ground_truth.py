"""What the Python front end may claim, read from the measured table the C++
checks rest on (docs/ground-truth.json, its Python paths): for each path and
write form, the torch versions on which torch.compile lost what uncompiled
code has, and the backends that did.

Flag paths (python, python_view_arith, python_more, python_flag_*): the
compiled function read the flag False where uncompiled code read True.
Consumer paths (python_function*, python_checkpoint_*, python_custom_op):
the gradient of the written value differed from the uncompiled one (or was
None)."""
import json
import os

HERE = os.path.dirname(os.path.abspath(__file__))
# Beside the package where a build copied it (build/bin/torch_tidy_py); an
# installation's docs (share/torch-tidy/python/torch_tidy_py ->
# share/doc/torch-tidy); the source tree's docs/.
CANDIDATES = [os.path.join(HERE, "ground-truth.json"),
              os.path.join(HERE, "..", "..", "..", "doc", "torch-tidy", "ground-truth.json"),
              os.path.join(HERE, "..", "..", "..", "docs", "ground-truth.json")]
# The flag paths where a write form is read on the written tensor itself.
FORM_PATHS = ("python", "python_view_arith", "python_more")
BACKENDS = ("eager", "aot_eager", "inductor")


class GroundTruthError(Exception):
    pass


def version_key(version):
    """(major, minor, patch): 2.15 and 2.15.0 are one version."""
    parts = [int(p) if p.isdigit() else 0 for p in version.split("+")[0].split(".")]
    return tuple((parts + [0, 0, 0])[:3])


def is_consumer_path(path):
    return path.startswith(("python_function", "python_checkpoint", "python_dist_")) or \
        path == "python_custom_op"


class GroundTruth:
    """losing(form, path) -> [(version, [backends])] where compiling lost it;
    kept_on(form, path) -> the versions where every backend kept it;
    measured(form, path) -> bool. Without a path, the form's own flag path."""

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
        self._rows = {}
        self._form_path = {}
        for r in rows:
            if not r.get("path", "").startswith("python"):
                continue
            self._rows[(r["path"], r["form"], r["torch"], r["backend"])] = r
            if r["path"] in FORM_PATHS:
                self._form_path.setdefault(r["form"], r["path"])

    def form_path(self, form):
        return self._form_path.get(form)

    def _path(self, form, path):
        return path or self._form_path.get(form)

    def measured(self, form, path=None):
        path = self._path(form, path)
        return any(k[0] == path and k[1] == form for k in self._rows)

    def _lost(self, path, form, version, backend):
        """True lost, False kept, None not measured (or an error)."""
        base = self._rows.get((path, form, version, "none"))
        row = self._rows.get((path, form, version, backend))
        if base is None or row is None or row.get("error") or base.get("error"):
            return None
        if is_consumer_path(path):
            if base.get("grad") != "computed":
                return None
            return row.get("grads_equal") is False
        if base.get("rg_inside") is not True:
            return None
        return row.get("rg_inside") is False

    def losing(self, form, path=None):
        path = self._path(form, path)
        out = []
        for version in self.versions:
            lost = [b for b in BACKENDS if self._lost(path, form, version, b)]
            if lost:
                out.append((version, lost))
        return out

    def kept_on(self, form, path=None):
        """The measured versions on which every compiled backend kept it."""
        path = self._path(form, path)
        return [v for v in self.versions
                if all(self._lost(path, form, v, b) is False for b in BACKENDS)]

    def grad_cells(self, form, path, version):
        """{backend: the grad column} of a consumer path (same, differs, none)."""
        return {b: (self._rows.get((path, form, version, b)) or {}).get("grad")
                for b in BACKENDS}
