"""The files where an enabled check can warn: those the project index names
(schemas, kernel registrations), those that define a registered kernel
function, those with a compiled-region marker (or including a header that
has one), and for the checks that apply everywhere the files holding the
writes they look for."""
import os
import re
import subprocess
from collections import Counter

from . import index
from .common import ProjectError, read_text

FLAGSHIP = "torch-compile-requires-grad-propagation"
UNDECLARED = "torch-op-undeclared-mutation"
# What a file must hold for a check to warn there, besides what the project
# index says: the checks that apply everywhere look for these writes.
EVERYWHERE_TEXT = {
    "torch-index-assign-to-copy": re.compile(r"\bindex\s*\("),
    "torch-inplace-on-grad-leaf": re.compile(r"requires_grad"),
    # A call of a method that may return a copy (GroundTruth's
    # copyingMethods).
    "torch-write-into-copy": re.compile(
        r"(\.|->)\s*(contiguous|expect_contiguous|reshape|flatten|toType|to|"
        r"cpu|cuda)\s*\("),
}
# Another framework's operators (deepmd-kit keeps TensorFlow ops beside its
# torch ones): no torch check reads them, so a file that registers them and
# mentions nothing of torch's is not linted unless asked
# (--other-framework-ops), and is counted apart.
OTHER_FRAMEWORKS = [
    ("TensorFlow", re.compile(r"\bREGISTER_OP\s*\(|\bREGISTER_KERNEL_BUILDER\s*\("
                              r"|:\s*public\s+(::)?(tensorflow::)?OpKernel\b")),
    ("JAX FFI", re.compile(r"\bXLA_FFI_DEFINE_HANDLER(_SYMBOL)?\s*\(|\bxla::ffi::")),
    ("Paddle", re.compile(r"\bPD_BUILD_(GRAD_)?OP\s*\(")),
]
TORCH_TEXT = re.compile(r"\bTORCH_LIBRARY|\btorch::|\bat::|\bc10::|"
                        r"#\s*include\s*[<\"](torch|ATen|c10)/")


def other_framework(text):
    """The framework whose operators the file registers where it mentions
    nothing of torch's (TensorFlow, JAX FFI, Paddle), else None."""
    if TORCH_TEXT.search(text):
        return None
    for name, pattern in OTHER_FRAMEWORKS:
        if pattern.search(text):
            return name
    return None
COMPILED_MARK = re.compile(r"TORCH_TIDY_COMPILED|torch_tidy::compiled")
INCLUDE = re.compile(r'^\s*#\s*include\s*[<"]([^>"]+)[>"]', re.M)
CANNOT_WARN = ("cannot warn under the enabled checks (no schema, "
               "registration, kernel, compiled region or write they look for)")


def enabled_checks(tidy, checks, project, sample, env=None):
    """The torch checks that will run, and their options, as torch-tidy
    reads them for a file of the project (its .clang-tidy included)."""
    def ask(option):
        try:
            res = subprocess.run([tidy, f"--checks={checks}", option,
                                  sample], capture_output=True, text=True,
                                 errors="replace", cwd=project, env=env,
                                 timeout=300)
        except (OSError, subprocess.TimeoutExpired) as e:
            raise ProjectError(f"{tidy} {option} did not answer: {e}")
        if res.returncode != 0:
            last = (res.stderr.strip().splitlines() or ["no output"])[-1]
            raise ProjectError(f"{tidy} {option} failed for {sample} "
                               f"(exit {res.returncode}: {last}); a "
                               f".clang-tidy of the project it cannot read?")
        return res.stdout

    listed = ask("--list-checks").split("Enabled checks:", 1)[-1]
    names = set(re.findall(r"^\s+([\w.-]+)\s*$", listed, re.M))
    if not names:
        raise ProjectError(f"no check is enabled for {sample} with "
                           f"--checks={checks} (and the project's "
                           f".clang-tidy)")
    dumped = ask("--dump-config")
    options = dict(re.findall(r"^\s+(torch-[\w.-]+):\s*'?(.*?)'?\s*$",
                              dumped, re.M))
    return names, options


def files_that_matter(names, options, project, files, index_json):
    """((kept files, Counter of skipped by why), None), or (None, why every
    file is linted)."""
    if FLAGSHIP in names and (
            options.get(f"{FLAGSHIP}.RegionMode", "auto") == "all" or
            options.get(f"{FLAGSHIP}.CompiledFunctions", "")):
        return None, "RegionMode: all or CompiledFunctions: any function " \
            "may be a region"
    unknown = {n for n in names if n not in EVERYWHERE_TEXT and
               n not in (FLAGSHIP, UNDECLARED)}
    if unknown:
        return None, f"no pruning rule for {', '.join(sorted(unknown))}"
    operators = FLAGSHIP in names or UNDECLARED in names
    operator_why = index.operator_files(index_json, files) \
        if operators else {}
    # Project headers that mark compiled regions: a file including one may
    # define a marked function.
    marked_headers = set()
    if FLAGSHIP in names:
        for root, dirs, fs in os.walk(project):
            dirs[:] = [d for d in dirs if not d.startswith(".")]
            for f in fs:
                if f.endswith((".h", ".hh", ".hpp", ".hxx", ".cuh")) and \
                        COMPILED_MARK.search(read_text(os.path.join(root, f))):
                    marked_headers.add(f)
    keep, skipped = [], Counter()
    for f in files:
        text = read_text(f)
        why = list(operator_why.get(f, []))
        if FLAGSHIP in names and (COMPILED_MARK.search(text) or any(
                os.path.basename(i) in marked_headers
                for i in INCLUDE.findall(text))):
            why.append("compiled region")
        for check, pattern in EVERYWHERE_TEXT.items():
            if check in names and pattern.search(text):
                why.append(check)
        if why:
            keep.append(f)
        else:
            skipped[CANNOT_WARN] += 1
    return (keep, skipped), None
