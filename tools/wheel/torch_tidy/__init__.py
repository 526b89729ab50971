"""torch-tidy, installed from its wheel: the console scripts pip makes run
the static binaries in bin/ beside this file (torch-tidy, torch-clangd,
torch-tidy-sarif, torch-tidy-verify), the Python tools (torch-tidy-project,
torch-tidy-cdb, torch-tidy-py) and the pre-commit hook's script
(torch-tidy-hook, in hooks/). torch-tidy and torch-clangd find clang's
builtin headers in lib/clang/ beside bin/, as an installed clang-tidy does."""
import os
import sys

__version__ = "@VERSION@"
BIN = os.path.join(os.path.dirname(os.path.abspath(__file__)), "bin")


def binary(name):
    """The path of one of the wheel's binaries."""
    return os.path.join(BIN, name)


def _exec(name):
    path = binary(name)
    if not os.access(path, os.X_OK):
        sys.exit(f"{name}: {path} is missing or not executable (a broken "
                 f"install of torch-tidy {__version__}?); reinstall it with "
                 f"pip install --force-reinstall torch-tidy")
    os.execv(path, [path] + sys.argv[1:])


def torch_tidy():
    _exec("torch-tidy")


def torch_clangd():
    _exec("torch-clangd")


def torch_tidy_sarif():
    _exec("torch-tidy-sarif")


def torch_tidy_verify():
    _exec("torch-tidy-verify")


def torch_tidy_hook():
    # The pre-commit hook's script (tools/pre-commit/torch-tidy-hook), with
    # this wheel's torch-tidy unless TORCH_TIDY_BIN names another.
    script = os.path.join(os.path.dirname(BIN), "hooks", "torch-tidy-hook")
    os.environ.setdefault("TORCH_TIDY_BIN", binary("torch-tidy"))
    os.execv("/bin/bash", ["bash", script] + sys.argv[1:])


def torch_tidy_project():
    # Finds torch-tidy and torch-tidy-sarif in BIN, as the script finds them
    # beside itself in a build or an installation.
    from torch_tidy_project.cli import main
    sys.exit(main(here=BIN))
