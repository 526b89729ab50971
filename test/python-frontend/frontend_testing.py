"""What the torch-tidy-py test files share: the package on the path (or one
SKIP line, exit 77, where this Python has no LibCST), and linting small
sources through the command line's main()."""
import contextlib
import io
import os
import sys
import tempfile
import textwrap

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(HERE))
sys.path.insert(0, os.path.join(ROOT, "tools", "torch-tidy"))

try:
    import libcst  # noqa: F401
except ImportError:
    print("SKIP python-frontend: LibCST is not installed for this Python "
          f"({sys.executable}); bootstrap adds it to the tools venv")
    sys.exit(77)

from torch_tidy_py import cli  # noqa: E402

CHECK = "[torch-compile-requires-grad-propagation]"


def lint(source, *options, name="mod.py"):
    """(exit status, stdout, stderr) of torch-tidy-py on one file; paths in
    the output are the file's name."""
    return lint_files({name: source}, *options)


def lint_files(files, *options):
    """The same on several files ({relative path: source}), linted in one run."""
    with tempfile.TemporaryDirectory() as tmp:
        paths = []
        for rel, text in files.items():
            path = os.path.join(tmp, rel)
            os.makedirs(os.path.dirname(path), exist_ok=True)
            with open(path, "w") as f:
                f.write(textwrap.dedent(text))
            paths.append(path)
        out, err = io.StringIO(), io.StringIO()
        with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
            rc = cli.main([*paths, *options])
        prefix = tmp + os.sep
        return rc, out.getvalue().replace(prefix, ""), err.getvalue().replace(prefix, "")


def warnings(out):
    return [line for line in out.splitlines() if ": warning: " in line]


def wrap(body, header="@torch.compile\ndef f(x: torch.Tensor, rows, cols, idx, mask):"):
    """A compiled function: the target made, the body, the flag read."""
    lines = ["import torch", "", header, "    m = torch.zeros(4, 3)"]
    lines += ["    " + line for line in textwrap.dedent(body).strip().splitlines()]
    lines += ["    assert m.requires_grad", "    return m"]
    return "\n".join(lines) + "\n"
