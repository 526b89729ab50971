#!/usr/bin/env python3
"""Why torch-op-undeclared-mutation fixes a returned argument with a copy.

A kernel that returns an argument it received (or a view of it) fails
opcheck's test_schema unless the schema says the output aliases it. The
check's fix returns a copy (rule return-clone). The fix that keeps the alias
instead declares it ('Tensor(a) m -> Tensor(a)') and returns a view. The
undeclared aliases the check reports beyond `return m;` are measured too:
an element of a tuple the return builds (std::make_tuple(m, ...), a braced
return of a view) and contiguous() of a contiguous argument, which returns
its receiver; with the fix's copies of each. This builds one CPU operator
per form, with a fake kernel of the same shape, and
measures, under each torch:
  - opcheck with its whole default suite (test_schema,
    test_autograd_registration, test_faketensor, test_aot_dispatch_dynamic):
    "pass" or the name of the first test that fails;
  - torch.compile(fullgraph=True) with eager, aot_eager and inductor, inputs
    with and without requires_grad: "same" (the uncompiled values), or
    "different", or "error".

  alias_returns.py --python LABEL=PYTHON [--python ...]
                   [--libtorch113-include DIR ...] [--write]
      measures and checks that every cell equals the committed table
      (docs/ground-truth-alias-returns.json; --write rewrites it instead,
      where everything else holds), that every alias-keeping form fails as EXPECTED
      says, that the copy passes everything, and that the check's note
      (ALIAS_NOTE in checks/OpUndeclaredMutationCheck.cpp) names the opcheck
      test and the backends measured here. With --libtorch113-include,
      the forms (the fixes' among them) are compiled against that LibTorch
      1.13 too (g++ -fsyntax-only; SKIPPED said by name where its
      <torch/library.h> is not there). Exit 0 when all hold, 1 otherwise,
      77 when no torch could run (SKIP said by name).
"""
import json
import os
import re
import subprocess
import sys
import tempfile

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import undeclared_mutation as um  # noqa: E402  (shared helpers)

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(HERE))
CHECK_SOURCE = os.path.join(ROOT, "checks", "OpUndeclaredMutationCheck.cpp")
BACKENDS = ["eager", "aot_eager", "inductor"]

# name -> (schema, kernel body, fake kernel on (m, v)).
FORMS = {
    # The alias-keeping fix: a declared alias and a view of the argument.
    "alias_view": ("(Tensor(a) m, Tensor v) -> Tensor(a)", "return m.alias();",
                   "m.view_as(m)"),
    "alias_narrow": ("(Tensor(a) m, Tensor v) -> Tensor(a)",
                     "return m.narrow(0, 1, 2);", "m.narrow(0, 1, 2)"),
    # The argument itself, declared.
    "alias_self": ("(Tensor(a) m, Tensor v) -> Tensor(a)", "return m;", "m"),
    # A written argument returned as a written alias.
    "write_alias": ("(Tensor(a!) m, Tensor v) -> Tensor(a!)",
                    "m.mul_(2);\n  return m;", "m"),
    # The check's fix.
    "copy": ("(Tensor m, Tensor v) -> Tensor", "return m.clone();",
             "torch.empty_like(m)"),
    "write_copy": ("(Tensor(a!) m, Tensor v) -> Tensor",
                   "m.mul_(2);\n  return m.clone();", "torch.empty_like(m)"),
    # An argument returned as an element of a tuple the return builds
    # (std::make_tuple, a braced return), and the fix's copy of it.
    "tuple_self": ("(Tensor m, Tensor v) -> (Tensor, Tensor)",
                   "return std::make_tuple(m, v * 2);",
                   "(torch.empty_like(m), torch.empty_like(v))"),
    "tuple_view": ("(Tensor m, Tensor v) -> (Tensor, Tensor)",
                   "return {m.narrow(0, 1, 2), v * 2};",
                   "(m.new_empty(2, 3), torch.empty_like(v))"),
    "tuple_copy": ("(Tensor m, Tensor v) -> (Tensor, Tensor)",
                   "return std::make_tuple(m.clone(), v * 2);",
                   "(torch.empty_like(m), torch.empty_like(v))"),
    # The argument itself and a view of it, the schema declaring no alias.
    "self_undeclared": ("(Tensor m, Tensor v) -> Tensor", "return m;",
                        "torch.empty_like(m)"),
    "view_undeclared": ("(Tensor m, Tensor v) -> Tensor", "return m.narrow(0, 1, 2);",
                        "m.new_empty(2, 3)"),
    # A method that returns its receiver where it makes no copy (m is
    # contiguous here), and the fix's copy of its result.
    "contiguous_self": ("(Tensor m, Tensor v) -> Tensor", "return m.contiguous();",
                        "torch.empty_like(m)"),
    "contiguous_copy": ("(Tensor m, Tensor v) -> Tensor",
                        "return m.contiguous().clone();", "torch.empty_like(m)"),
}
# Forms whose kernel returns a tuple of two tensors.
TUPLES = {"tuple_self", "tuple_view", "tuple_copy"}
# What was measured on torch 2.8.0 and 2.15.0: opcheck's verdict, and the
# backends under which torch.compile fails (with and without grad).
EXPECTED = {
    "alias_view": ("test_aot_dispatch_dynamic", {"aot_eager", "inductor"}),
    "alias_narrow": ("test_aot_dispatch_dynamic", {"aot_eager", "inductor"}),
    "alias_self": ("test_schema", {"aot_eager", "inductor"}),
    "write_alias": ("test_aot_dispatch_dynamic", {"aot_eager", "inductor"}),
    "copy": ("pass", set()),
    "write_copy": ("pass", set()),
    # The undeclared aliases the check reports (a tuple's element, a
    # contiguous() that returns its receiver): opcheck's test_schema fails,
    # compiled values equal eager's; the fix's copies pass everything.
    "self_undeclared": ("test_schema", set()),
    "view_undeclared": ("test_schema", set()),
    "tuple_self": ("test_schema", set()),
    "tuple_view": ("test_schema", set()),
    "contiguous_self": ("test_schema", set()),
    "tuple_copy": ("pass", set()),
    "contiguous_copy": ("pass", set()),
}
# The undeclared aliases: where torch has the aliasing check of custom
# operators' outputs (torch._functorch.config.error_on_custom_op_aliasing,
# 2.15.0 here), torch.compile warns on its first call that the alias "is
# deprecated and will become an error", with the values unchanged ("warns";
# not under the eager backend, which does not run AOTAutograd),
# and raises where that flag is set, which its default does where the
# environment sets CI (columns BACKEND_strict). Elsewhere: "same".
WARNS = {"self_undeclared", "view_undeclared", "tuple_self", "tuple_view",
         "contiguous_self"}
# The forms measured with the flag set: those that compile by default.
STRICT = [name for name, (_, failing) in EXPECTED.items() if not failing]


def generate():
    lines = ["#include <ATen/ATen.h>", "#include <torch/library.h>", "#include <tuple>", ""]
    for name, (_, body, _) in FORMS.items():
        ret = "std::tuple<at::Tensor, at::Tensor>" if name in TUPLES else "at::Tensor"
        lines.append(f"{ret} k_{name}(const at::Tensor &m, const at::Tensor &v) {{\n"
                     f"  {body}\n}}")
    lines.append("TORCH_LIBRARY(tt_ar, m) {")
    lines += [f'  m.def("{name}{schema}");' for name, (schema, _, _) in FORMS.items()]
    lines += ["}", "TORCH_LIBRARY_IMPL(tt_ar, CPU, m) {"]
    lines += [f'  m.impl("{name}", &k_{name});' for name in FORMS]
    lines += ["}", ""]
    return "\n".join(lines)


def measure():
    import warnings
    import logging
    os.environ.setdefault("TORCHINDUCTOR_CACHE_DIR", tempfile.mkdtemp(prefix="tt-ar-ind-"))
    import torch
    warnings.filterwarnings("ignore")
    logging.disable(logging.WARNING)
    import torch._functorch.config as functorch_config
    um.load_inline_operators(torch, "tt_ar", generate())
    version = torch.__version__.split("+")[0]
    # Measured with the flag pinned, whatever the environment (CI) says.
    check = hasattr(functorch_config, "error_on_custom_op_aliasing")
    print(f"ROW {version} - aliascheck {'yes' if check else 'no'}", flush=True)

    def compiled(program, backend, x, v, strict):
        """same, warns (same, with the custom-op aliasing warning),
        different or error."""
        if check:
            functorch_config.error_on_custom_op_aliasing = strict
        torch._dynamo.reset()
        try:
            with warnings.catch_warnings(record=True) as caught:
                warnings.simplefilter("always")
                want = program(x, v)
                got = torch.compile(program, backend=backend, fullgraph=True)(x, v)
            if not all(torch.allclose(a, b) for a, b in zip(want, got)):
                return "different"
            warned = any("may not alias any inputs" in str(w.message) for w in caught)
            return "warns" if warned else "same"
        except Exception:
            return "error"
    for name, (_, _, fake) in FORMS.items():
        torch.library.register_fake(f"tt_ar::{name}")(
            eval(f"lambda m, v: {fake}", {"torch": torch}))
        op = getattr(torch.ops.tt_ar, name)
        g = torch.Generator().manual_seed(7)
        try:
            torch.library.opcheck(op, (torch.randn(4, 3, generator=g),
                                       torch.randn(2, 3, generator=g)))
            verdict = "pass"
        except Exception as e:
            found = re.search(r"(test_\w+) failed", str(e))
            verdict = found.group(1) if found else "error"
        print(f"ROW {version} {name} opcheck {verdict}", flush=True)

        def program(x, v, op=op, tuple_=name in TUPLES):
            m = x * 1
            r = op(m, v)
            if tuple_:
                return (m * 2).sum(), r[0] * 3, r[1] * 3
            return (m * 2).sum(), r * 3

        def inputs(grad):
            return (torch.randn(4, 3, generator=torch.Generator().manual_seed(1),
                                requires_grad=grad),
                    torch.randn(2, 3, generator=torch.Generator().manual_seed(2)))

        for grad in (False, True):
            for backend in BACKENDS:
                result = compiled(program, backend, *inputs(grad), strict=False)
                print(f"ROW {version} {name} {backend}{'_grad' if grad else ''} {result}",
                      flush=True)
        if check and name in STRICT:
            for backend in BACKENDS[1:]:
                result = compiled(program, backend, *inputs(False), strict=True)
                print(f"ROW {version} {name} {backend}_strict {result}", flush=True)


def check_text(constant):
    """A string constant of the check, as its source spells it."""
    text = open(CHECK_SOURCE).read()
    found = re.search(constant + r"\s*=\s*((?:\s*\"[^\"]*\")+)", text)
    if not found:
        return None
    return "".join(re.findall(r'"([^"]*)"', found.group(1)))


def note_text():
    """The check's note on a returned argument, as its source spells it."""
    return check_text("ALIAS_NOTE")


def newest_version():
    """The newest torch the check's messages name (GroundTruth.h)."""
    header = os.path.join(ROOT, "lib", "analysis", "include", "torch_tidy", "analysis",
                          "GroundTruth.h")
    found = re.search(r'NewestVersion\s*=\s*"([^"]+)"', open(header).read())
    return found.group(1) if found else None


def take(argv, flag):
    """Removes `flag VALUE` pairs from argv; returns the VALUEs."""
    values = []
    while flag in argv:
        i = argv.index(flag)
        values.append(argv[i + 1])
        del argv[i:i + 2]
    return values


def take_flag(argv, flag):
    """Removes every `flag` from argv; whether there was one."""
    found = flag in argv
    argv[:] = [a for a in argv if a != flag]
    return found


def compile_113(dirs, text=None, what="the forms"):
    """The problems of compiling `text` (the forms by default) against
    LibTorch 1.13's headers; none (and a SKIPPED line) where they are not
    there."""
    if not any(os.path.exists(os.path.join(d, "torch", "library.h"))
               for d in dirs + ["/usr/include"]):
        print(f"SKIPPED libtorch-1.13 compile of {what}: <torch/library.h> not in {dirs}")
        return []
    with tempfile.TemporaryDirectory(prefix="tt-ar-113-") as tmp:
        path = os.path.join(tmp, "forms.cpp")
        with open(path, "w") as f:
            f.write(generate() if text is None else text)
        cmd = ["g++", "-std=c++17", "-fsyntax-only", "-D_GLIBCXX_USE_CXX11_ABI=1"]
        for d in dirs:
            cmd += ["-isystem", d]
        res = subprocess.run(cmd + [path], stdout=subprocess.PIPE,
                             stderr=subprocess.STDOUT, text=True)
    if res.returncode != 0:
        return [f"{what} do not compile against LibTorch 1.13: "
                + res.stdout[-2000:]]
    print(f"libtorch 1.13: {what} compile")
    return []


def version_key(version):
    return tuple(int(x) for x in re.findall(r"\d+", version)[:3])


def claims(measured, show=False):
    """The problems of the measured rows ([(label, rows)], rows as `ROW`
    lines split) against EXPECTED, and of the check's texts (ALIAS_NOTE,
    ALIAS_COMPILE) against the rows; check_claims.py runs it on the
    committed table."""
    problems = []
    note = note_text()
    if note is None:
        problems.append("ALIAS_NOTE is not found in " + CHECK_SOURCE)
    else:
        for test in {t for t, _ in EXPECTED.values() if t not in ("pass", "test_schema")}:
            if test not in note:
                problems.append(f"the check's note does not name {test}: {note!r}")
        failing = set().union(*(b for _, b in EXPECTED.values()))
        for backend in BACKENDS:
            if (backend in failing) != (re.search(rf"\b{backend}\b", note) is not None):
                problems.append(f"the check's note {'omits' if backend in failing else 'names'}"
                                f" backend {backend}: {note!r}")
    compile_text = check_text("ALIAS_COMPILE")
    for label, rows in measured:
        got = {(r[2], r[3]): r[4] for r in rows}
        version = rows[0][1]
        check = got.get(("-", "aliascheck")) == "yes"
        if show:
            print(f"torch {version}: custom-op aliasing check in torch.compile: "
                  f"{'yes' if check else 'no'}")
        for name, (verdict, failing) in EXPECTED.items():
            columns = BACKENDS + [b + "_grad" for b in BACKENDS]
            if check and name in STRICT:
                columns += [b + "_strict" for b in BACKENDS[1:]]
            if show:
                print(f"torch {version} {name:15} opcheck {got.get((name, 'opcheck'))}; "
                      + ", ".join(f"{c} {got.get((name, c))}" for c in columns))
            if got.get((name, "opcheck")) != verdict:
                problems.append(f"torch {version} {name}: opcheck "
                                f"{got.get((name, 'opcheck'))}, expected {verdict}")
            for backend in BACKENDS:
                for column in (backend, backend + "_grad"):
                    want = ("error" if backend in failing
                            else "warns" if check and name in WARNS and backend != "eager"
                            else "same")
                    if got.get((name, column)) != want:
                        problems.append(f"torch {version} {name}: {column} "
                                        f"{got.get((name, column))}, expected {want}")
            if check and name in STRICT:
                for backend in BACKENDS[1:]:
                    want = "error" if name in WARNS else "same"
                    if got.get((name, backend + "_strict")) != want:
                        problems.append(f"torch {version} {name}: {backend}_strict "
                                        f"{got.get((name, backend + '_strict'))}, "
                                        f"expected {want}")
        # The warning states the check for the newest torch the messages
        # name (GroundTruth.h) only, and only where it was measured there.
        newest = version == newest_version()
        if newest and check != (compile_text is not None):
            problems.append(f"torch {version} {'has' if check else 'has no'} the custom-op "
                            f"aliasing check, but ALIAS_COMPILE in {CHECK_SOURCE} "
                            f"{'is missing' if check else 'states it'}")
        if newest and check and compile_text is not None:
            for phrase in ("warns", "will become an error", "raises where the environment "
                           "sets CI", "aot_eager", "inductor"):
                if phrase not in compile_text:
                    problems.append(f"ALIAS_COMPILE does not say {phrase!r}: {compile_text!r}")
        if not newest and check:
            problems.append(f"torch {version} has the custom-op aliasing check, which the "
                            "check's message states for the newest torch only")
    return problems


TABLE = os.path.join(ROOT, "docs", "ground-truth-alias-returns.json")


def table_rows(path):
    """The committed table as measured rows: [(version, rows)]."""
    if not os.path.exists(path):
        return []
    table = json.load(open(path))
    return [(version, [["ROW", version] + cell.split(" ", 1) + [value]
                       for cell, value in cells.items()])
            for version, cells in sorted(table["versions"].items(),
                                         key=lambda kv: version_key(kv[0]))]


def write_table(measured, path, script):
    versions = {rows[0][1]: {f"{r[2]} {r[3]}": r[4] for r in rows} for _, rows in measured}
    with open(path, "w") as f:
        json.dump({"script": script, "versions": versions}, f, indent=1, sort_keys=True)
        f.write("\n")
    print(f"wrote {os.path.relpath(path, ROOT)}: torch {', '.join(sorted(versions))}")


def table_problems(measured, path, script, optional=lambda name: False):
    """Each measured cell against the committed table (a version it lacks
    is a problem: re-measure with --write); a cell of the table not
    measured is one too, unless optional(its name)."""
    committed = dict(table_rows(path))
    problems = []
    for _, rows in measured:
        version = rows[0][1]
        if version not in committed:
            problems.append(f"{os.path.relpath(path, ROOT)} has no rows for torch {version}: "
                            f"re-measure with {script} --write")
            continue
        want = {(r[2], r[3]): r[4] for r in committed[version]}
        got = {(r[2], r[3]): r[4] for r in rows}
        for cell in sorted(set(want) | set(got)):
            if cell not in got and optional(cell[0]):
                continue
            if want.get(cell) != got.get(cell):
                problems.append(f"torch {version} {cell[0]} {cell[1]}: measured "
                                f"{got.get(cell)}, the table says {want.get(cell)}")
    return problems


def main():
    libtorch113 = take(sys.argv, "--libtorch113-include")
    write = take_flag(sys.argv, "--write")
    args = um.venv_script_args(__doc__, measure)
    if args is None:
        return 0
    problems = (compile_113(libtorch113, None,
                            f"the {len(FORMS)} forms (the fixes' among them)")
                if libtorch113 else [])
    measured, failed = um.measure_under_venvs(args.python, __file__, "alias-returns")
    problems += failed
    problems += claims(measured, show=True)
    if write and not problems:
        write_table(measured, TABLE, "alias_returns.py")
    elif not write:
        problems += table_problems(measured, TABLE, "alias_returns.py")
    return um.venv_script_verdict(
        problems, len(measured), "alias-returns",
        f"{len(EXPECTED)} forms as expected and as {os.path.relpath(TABLE, ROOT)} says "
        f"under {len(measured)} torch version(s)")


if __name__ == "__main__":
    sys.exit(main())
