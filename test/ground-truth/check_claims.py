#!/usr/bin/env python3
"""The claims the checks make equal the committed measurements.

lib/analysis/include/torch_tidy/analysis/GroundTruth.h (and GroundTruth.cpp)
hold the facts the messages and defaults rest on; this test reads them and
docs/ground-truth.json and fails on any disagreement:
  - the versions named in messages are the versions measured;
  - for every dispatch key the flagship reports mutable-argument writes for
    by default, the matching path loses the flag for every in-place form on
    every version and compiled backend (true uncompiled), and its functional
    twins keep it;
  - the newest torch loses the flag after exactly the Python writes through
    a view, as newestLosesFreshWrite says;
  - the in-place arithmetic that freshViewArithmeticMeasured names loses it
    through every view on both versions and is kept into the whole tensor
    on the newest (path python_view_arith);
  - for those keys, the gradients say what the flagship's message says
    (checks/CompileRequiresGradPropagationCheck.cpp, "code that branches on
    it drops gradients"): the branching caller's src.grad differs from the
    uncompiled one on every in-place form, version and compiled backend, and
    the gradient through a loss on the written buffer (no branch) and
    opcheck's verdict are measured; where that gradient is lost even
    without a branch is printed;
  - a compound assignment on a tensor (`t += v`) is the method
    compoundAssignMethod names (lib/libtorch/src/LibTorchApi.cpp): read in
    each TensorBody.h given with --tensor-body (the flagship judges `+=`
    through a view by add_'s measurement);
  - schemas LibTorch infers for m.def(name, fn) declare nothing mutable;
  - each Consequence class (registrationRows in lib/operators/src/
    Consequence.cpp) measures, on its rows of
    docs/ground-truth-registrations.json, what the class says;
  - torch-write-into-copy flags exactly the methods
    docs/ground-truth-write-into-copy.json shows a lost write for
    (copyingMethods in GroundTruth.cpp): each entry's rows lose the write
    when the receiver needs a copy and keep it when not, on every LibTorch
    version, and no measured loss is left out; the check's message states
    each entry's condition, and its page lists every method and condition;
  - torch-op-undeclared-mutation's claims on undeclared aliases returned
    (ALIAS_NOTE, ALIAS_COMPILE) and on metadata and copy-conditional writes
    (METADATA_CONSEQUENCE, CONDITIONAL_CONSEQUENCE) hold on the committed
    docs/ground-truth-alias-returns.json and
    docs/ground-truth-write-conditions.json (each script's claims()).
"""
import json
import os
import re
import sys

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
HEADER = os.path.join(ROOT, "lib/analysis/include/torch_tidy/analysis/GroundTruth.h")
SOURCE = os.path.join(ROOT, "lib/analysis/src/GroundTruth.cpp")
TABLE = os.path.join(ROOT, "docs/ground-truth.json")
CONSEQUENCE = os.path.join(ROOT, "lib/operators/src/Consequence.cpp")
LIBTORCH_API = os.path.join(ROOT, "lib/libtorch/src/LibTorchApi.cpp")
OPERATOR_SPELLING = {"PlusEqual": "+=", "MinusEqual": "-=", "StarEqual": "*=",
                     "SlashEqual": "/=", "AmpEqual": "&=", "PipeEqual": "|=",
                     "CaretEqual": "^="}
FLAGSHIP = os.path.join(ROOT, "checks/CompileRequiresGradPropagationCheck.cpp")
REGISTRATIONS = os.path.join(ROOT, "docs/ground-truth-registrations.json")
BACKENDS = ["eager", "aot_eager", "inductor"]
MODES = ["default", "fullgraph"]

KEY_PATHS = {"CompositeImplicitAutograd": "cpp_mutable_composite",
             "CompositeExplicitAutograd": "cpp_mutable_explicit",
             "CPU": "cpp_mutable_cpu"}
# Python forms the newest torch loses, by GroundTruth.cpp's rule: copy_ into
# a view (narrow, select) and writes through a named view.
THROUGH_A_VIEW = {"narrow_copy_", "select_copy_", "view_alias_copy_"}


def literal(text, name):
    m = re.search(name + r'\s*=\s*"([^"]*)"', text)
    if not m:
        raise SystemExit(f"claims: {name} not found in GroundTruth.h")
    return m.group(1)


def registration_rows(source):
    """{class: [registration rows]} from registrationRows' arrays."""
    body = source[source.index("registrationRows(Consequence"):]
    return {name: re.findall(r'"(\w+)"', items) for name, items in
            re.findall(r"StringLiteral\s+(\w+)\[\]\s*=\s*\{([^}]*)\}", body)}


# Silent rows that register python_fake's fake another way (a loop, getattr,
# a helper, under a condition that holds): the index must read each, and
# each is measured to count the same.
FAKE_SPELLINGS = {"python_fake_loop", "python_fake_getattr", "python_fake_helper",
                  "python_fake_condition_on"}


def consequence_problems():
    """(measurements checked, disagreements) of the Consequence classes."""
    classes = registration_rows(open(CONSEQUENCE).read())
    table = json.load(open(REGISTRATIONS))
    problems, checked = [], 0
    if set(classes) != {"Silent", "GraphBreak", "Traced", "Loud"}:
        problems.append(f"registrationRows names classes {sorted(classes)}")
    for label, version in table["versions"].items():
        rows = [r for r in table["rows"] if r["torch"] == version]
        for r in (r for r in rows if r["declared"]):
            for c in (f"{b} {m}" for m in MODES for b in BACKENDS):
                checked += 1
                if r[c] != "same":
                    problems.append(f"torch {version}: declared control {r['op']} {c}: {r[c]}")
        for cls, names in classes.items():
            for name in names:
                mine = [r for r in rows if r["registration"] == name and not r["declared"]]
                if not mine:
                    problems.append(f"torch {version}: {cls} row {name} is not measured")
                    continue

                def expect(form, columns, ok, what):
                    nonlocal checked
                    for r in (r for r in mine if form is None or r["form"] == form):
                        for c in columns:
                            checked += 1
                            if not ok(r, c):
                                problems.append(f"torch {version}: {cls} {name}/{r['form']} "
                                                f"{c}: {r[c]}, the class says {what}")
                    if form and not any(r["form"] == form for r in mine):
                        problems.append(f"torch {version}: {cls} {name}/{form} is not measured")
                both = [f"{b} {m}" for m in MODES for b in ("aot_eager", "inductor")]
                if cls == "Silent" and name in FAKE_SPELLINGS:
                    # The same Python fake reached another way: measured on
                    # the void form, where a dropped call shows.
                    expect("void_write", both, lambda r, c: r[c] != "same",
                           "not same (the call dropped)")
                elif cls == "Silent":
                    expect("void_write", both, lambda r, c: r[c] != "same", "not same (the call dropped)")
                    # The message's version note where the kernel returns
                    # the argument it writes: stale under inductor on the
                    # reference version only.
                    expect("written_returned", [f"inductor {m}" for m in MODES],
                           (lambda r, c: r[c] != "same") if label == "2.8.0"
                           else (lambda r, c: r[c] == "same"),
                           "stale on 2.8.0 only (the message says so)")
                    # "and with them whatever its kernels do": a kernel with
                    # no tensor effect runs 0 times under aot_eager/inductor.
                    if name == "python_fake":
                        expect("void_side_effect", both,
                               lambda r, c: r.get(c + " runs") == [0, 0],
                               "run 0 times (its effects gone)")
                    expect("write_other", [f"inductor {m}" for m in MODES],
                           lambda r, c: r[c] != "same", "not same (unwritten values read)")
                    # The message's version note where the operator declares
                    # another argument mutable: stale under inductor on the
                    # reference version only.
                    expect("beside_declared", [f"inductor {m}" for m in MODES],
                           (lambda r, c: r[c] != "same") if label == "2.8.0"
                           else (lambda r, c: r[c] == "same"),
                           "stale on 2.8.0 only (the message says so)")
                elif cls == "GraphBreak":
                    expect(None, [f"{b} default" for b in BACKENDS],
                           lambda r, c: r[c] == "same" and r[c.split()[0] + " breaks"] >= 1,
                           "same after a graph break")
                    expect(None, [f"{b} fullgraph" for b in BACKENDS],
                           lambda r, c: r[c].startswith("error"), "an error")
                elif cls == "Traced" and name == "catchall_aten_device" and \
                        label != "2.8.0":
                    # The message's version note: beside a backend kernel,
                    # traced on the reference version only; the newest
                    # torch's aot_eager drops the writes, inductor fails.
                    expect(None, [f"aot_eager {m}" for m in MODES],
                           lambda r, c: r[c] == "differs", "differs (the note says so)")
                    expect(None, [f"inductor {m}" for m in MODES],
                           lambda r, c: r[c].startswith("error"), "an error (the note says so)")
                elif cls == "Traced":
                    expect(None, [f"{b} {m}" for m in MODES for b in BACKENDS],
                           lambda r, c: r[c] == "same", "same")
                elif cls == "Loud":
                    expect(None, [f"{b} {m}" for m in MODES for b in BACKENDS],
                           lambda r, c: r[c].startswith("error"), "an error")
    # The note on a torch._dynamo.disallow_in_graph mark: calls through what
    # it returns break the graph and run (their writes and effects kept,
    # once per call); fullgraph=True fails on them.
    for label, version in table["versions"].items():
        mine = [r for r in table["rows"] if r["torch"] == version and
                r["registration"] == "python_fake_disallowed"]
        if not mine:
            problems.append(f"torch {version}: python_fake_disallowed is not measured")
        for r in mine:
            for b in BACKENDS:
                checked += 2
                if r[f"{b} default"] != "same" or not r.get(f"{b} breaks"):
                    problems.append(f"torch {version}: disallowed {r['op']} {b} default: "
                                    f"{r[f'{b} default']}, the note says kept after a graph break")
                if not r[f"{b} fullgraph"].startswith("error"):
                    problems.append(f"torch {version}: disallowed {r['op']} {b} fullgraph: "
                                    f"{r[f'{b} fullgraph']}, the note says it fails")
                if r["form"] == "void_side_effect" and r.get(f"{b} default runs") != [1, 1]:
                    problems.append(f"torch {version}: disallowed {r['op']} {b}: runs "
                                    f"{r.get(f'{b} default runs')}, the note says it runs")
    # The loud message: "torch refuses a fake for it" (row catchall_raw_fake
    # records register_fake's refusal on each version).
    for label, version in table["versions"].items():
        mine = [r for r in table["rows"] if r["torch"] == version and
                r["registration"] == "catchall_raw_fake"]
        checked += 1
        if not mine or not all(r.get("fake_refused") for r in mine):
            problems.append(f"torch {version}: catchall_raw_fake: register_fake was not "
                            "refused, the loud message says torch refuses a fake")
    return checked, problems


def flagship_mutable_message():
    """The text of the flagship's mutable-argument warning (its adjacent
    string literals joined)."""
    text = open(FLAGSHIP).read()
    start = text.index('"in-place %0 into mutable argument')
    chunk = text[start:text.index("<<", start)]
    return "".join(re.findall(r'"((?:[^"\\]|\\.)*)"', chunk))


def gradient_problems(key, path, rows, message):
    """(measurements checked, disagreements, notes) of the flagship's
    gradient claim for one dispatch key's path."""
    branching = "code that branches on it drops gradients" in message
    unconditional = not branching and "drops gradients" in message
    problems, notes, checked = [], [], 0
    lost_without_branch, opcheck_passes, in_place_forms = {}, {}, {}
    for r in (r for r in rows if r["path"] == path):
        where = f"{key}: {path}/{r['form']} torch {r['torch']} {r['backend']}"
        if r["error"]:
            continue
        checked += 1
        if r.get("grad") is None:
            problems.append(f"{where}: the gradient through the written buffer is not measured")
            continue
        if r["backend"] == "none":
            if r["form"].endswith("_") and r.get("opcheck"):
                verdicts = opcheck_passes.setdefault(r["torch"], [0, 0])
                verdicts[0] += r["opcheck"] == "pass"
                verdicts[1] += 1
            if r["grad"] != "computed":
                problems.append(f"{where}: uncompiled grad {r['grad']}, no reference")
            if not r.get("opcheck"):
                problems.append(f"{where}: opcheck's verdict is not measured")
            continue
        if not r["form"].endswith("_"):
            continue
        if branching and (r["grads_equal"] is not False or r["wrong_branch"] is not True):
            problems.append(f"{where}: the branching caller's grads_equal {r['grads_equal']}, "
                            f"wrong_branch {r['wrong_branch']}; the message says code that "
                            f"branches on it drops gradients")
        if unconditional and r["grad"] not in ("none", "differs"):
            problems.append(f"{where}: grad {r['grad']}; the message says it drops gradients")
        if not (branching or unconditional):
            problems.append(f"{where}: the message no longer states a gradient consequence")
        in_place_forms.setdefault(r["torch"], set()).add(r["form"])
        if r["grad"] in ("none", "differs"):
            lost_without_branch.setdefault((r["torch"], r["grad"]), {}).setdefault(
                r["backend"], set()).add(r["form"])
    for (version, cell), by_backend in sorted(lost_without_branch.items()):
        total = len(in_place_forms[version])
        names = ", ".join(f"{b} ({len(by_backend[b])} of {total} in-place forms)"
                          for b in BACKENDS if b in by_backend)
        notes.append(f"{key}: torch {version}: with no branch at all, the gradient through "
                     f"the written buffer is {cell} under {names}")
    for version, (passed, total) in sorted(opcheck_passes.items()):
        notes.append(f"{key}: torch {version}: opcheck passes {passed} of the {total} "
                     f"in-place operators")
    return checked, problems, notes


def compound_problems(bodies):
    """compoundAssignMethod's table against `Tensor& operator+=(const Tensor &
    other) { return add_(other); }` in each TensorBody.h."""
    api = open(LIBTORCH_API).read()
    table = api[api.index("StringRef compoundAssignMethod"):]
    table = table[:table.index("default:")]
    ours = {OPERATOR_SPELLING[k]: m
            for k, m in re.findall(r'case OO_(\w+):\s*return "(\w+)";', table)}
    checked, problems = 0, []
    if not bodies:
        print("ground-truth-claims: no TensorBody.h given, compound assignments "
              "not checked")
    for path in bodies:
        text = open(path).read()
        theirs = dict(re.findall(r"Tensor\s*&\s*operator(\S{1,2}=)\(const Tensor\s*&"
                                 r"\s*other\)\s*(?:const\s*)?\{\s*return (\w+)\(other\);",
                                 text))
        for op in sorted(set(ours) | set(theirs)):
            checked += 1
            if ours.get(op) != theirs.get(op):
                problems.append(f"{path}: operator{op} calls {theirs.get(op)}, "
                                f"compoundAssignMethod says {ours.get(op)}")
    return checked, problems


FOUND = os.path.join(ROOT, "docs", "found.md")


def latent_table_problems():
    """(rows checked, disagreements) of docs/found.md's latent table: each
    row counts distinct operators, its classes add up to that count, and a
    row that also counts warnings has at least as many warnings."""
    text = open(FOUND).read()
    start = text.index("## Latent, by project")
    rows = [l for l in text[start:].splitlines()
            if l.startswith("| ") and " @ " in l.split(" | ")[0] and
            not l.startswith("| project @")]
    problems = []
    for line in rows:
        cells = [c.strip() for c in line.strip("|").split(" | ")]
        project, confirmed, classes = cells[0], cells[1], cells[2]
        n = int(re.match(r"(\d+)", confirmed).group(1))
        stated = sum(int(k) for k in re.findall(r"\b(\d+)\b", classes))
        if stated != n:
            problems.append(f"found.md: {project}: {n} operators, classes add up to {stated}")
        w = re.search(r"\((\d+) warnings\)", confirmed)
        if w and int(w.group(1)) < n:
            problems.append(f"found.md: {project}: fewer warnings than operators")
    if not rows:
        problems.append("found.md: the latent table was not found")
    return len(rows), problems


OP_UNDECLARED = os.path.join(ROOT, "checks", "OpUndeclaredMutationCheck.cpp")
FOUND_TABLE = os.path.join(ROOT, "docs", "found.json")


def declares_other_problems():
    """(claims checked, disagreements) of the version note of
    torch-op-undeclared-mutation's message where the operator declares
    another argument mutable: a single call keeps the write on the newest
    torch (registrations row beside_declared, checked in
    consequence_problems), calls chained through an intermediate of the
    compiled graph lose it on both versions (docs/found.json: the `llama`
    caller of fused_add_rmsnorm_cpu, as shipped, under inductor)."""
    # The message's C++ string literals, joined.
    text = re.sub(r'"\s*\n\s*"', "", open(OP_UNDECLARED).read())
    if "calls chained through an intermediate of the compiled graph did not" not in text:
        return 1, ["OpUndeclaredMutationCheck.cpp: the note on chained calls is gone; "
                   "update declares_other_problems"]
    table = json.load(open(FOUND_TABLE))
    problems, checked = [], 0
    for label, version in table["versions"].items():
        rows = [r for r in table["rows"] if r["torch"] == version
                and r["op"] == "tt_found::fused_add_rmsnorm_cpu" and r.get("caller") == "llama"]
        checked += 1
        if not rows or rows[0]["inductor"] != "lost":
            problems.append(f"found.json, torch {version}: the chained caller (llama) of "
                            f"fused_add_rmsnorm_cpu is not lost under inductor "
                            f"({rows[0]['inductor'] if rows else 'no row'}), as the message says")
    return checked, problems


def mutation_count_problems():
    """(claims checked, disagreements): each doc that counts the generated
    operators of docs/ground-truth-mutation.json states the table's count
    per torch version."""
    table = json.load(open(os.path.join(ROOT, "docs", "ground-truth-mutation.json")))
    counts = {}
    for r in table["rows"]:
        counts[r["torch"]] = counts.get(r["torch"], 0) + 1
    n = max(counts.values()) if counts else 0
    problems, checked = [], 0
    for doc, pattern in (("docs/design.md", r"measures (\d+) generated operators"),
                         ("docs/ground-truth.md", r"torch.compile's values for (\d+)"),
                         ("docs/checks/torch-op-undeclared-mutation.md",
                          r"on the (\d+) generated ground-truth operators")):
        found = re.search(pattern, open(os.path.join(ROOT, doc)).read())
        checked += 1
        if not found:
            problems.append(f"{doc}: no count of the generated operators ({pattern})")
        elif int(found.group(1)) != n:
            problems.append(f"{doc}: {found.group(1)} generated operators, the table has {n}")
    return checked, problems


WIC_TABLE = os.path.join(ROOT, "docs/ground-truth-write-into-copy.json")
WIC_DEVICE_MOVES = os.path.join(ROOT, "docs/ground-truth-device-moves.json")
WIC_CHECK = os.path.join(ROOT, "checks/WriteIntoCopyCheck.cpp")
WIC_PAGE = os.path.join(ROOT, "docs/checks/torch-write-into-copy.md")


def copying_methods(source):
    """[(method, form, rows, condition, when)] of copyingMethods."""
    body = source[source.index("copyingMethods()"):]
    body = body[:body.index("return Methods;")]
    body = re.sub(r'"\s*\n\s*"', "", body)  # literals split over lines
    return re.findall(r'\{"(\w+)",\s*"(\w*)",\s*"([\w|]+)",\s*'
                      r'CopyCondition::(\w+),\s*"([^"]+)"\}', body)


def write_into_copy_problems(source):
    """The methods torch-write-into-copy flags against the measured table."""
    problems = []
    entries = copying_methods(source)
    if not entries:
        return ["copyingMethods: no entries read"], 0
    table = json.load(open(WIC_TABLE))["libtorch"]
    if set(table) != {"2.8", "1.13"}:
        problems.append(f"{WIC_TABLE}: LibTorch versions {sorted(table)}, "
                        f"expected 2.8 and 1.13")
    named = set()
    checked = 0
    moves = json.load(open(WIC_DEVICE_MOVES))["rows"]
    for method, form, rows, cond, when in entries:
        if cond == "Device":
            # a GPU run's rows: the copy loses the write on every backend
            # measured, the same call on the target's device keeps it
            for row in rows.split("|"):
                mine = [r for r in moves if r[0] == row]
                checked += len(mine)
                copies = [r for r in mine if r[3] == "copy"]
                same = [r for r in mine if r[3] == "same"]
                if not copies or any(r[5] != "lost" for r in copies):
                    problems.append(f"{method}({form}): row {row} of the device "
                                    f"moves does not lose the write where a copy "
                                    f"is made: {copies}")
                if any(r[5] != "reaches" for r in same):
                    problems.append(f"{method}({form}): row {row} of the device "
                                    f"moves does not keep the write where no "
                                    f"copy is made: {same}")
                device = "CUDA" if copies and copies[0][1] == "cuda" else "CPU"
                if copies and f"is a {device} tensor" != when:
                    problems.append(f"{method}({form}): says '{when}', the rows "
                                    f"copy a {device} tensor")
            continue
        for row in rows.split("|"):
            named.add(row)
            for version, measured in table.items():
                mine = [r for r in measured if r[0] == row]
                copies = [r for r in mine if r[3] == "copy"]
                same = [r for r in mine if r[3] == "same"]
                checked += len(mine)
                if not copies or any(r[4] != "lost" for r in copies):
                    problems.append(f"{method}({form}): row {row} on LibTorch "
                                    f"{version} does not lose the write where "
                                    f"a copy is made: {copies}")
                if not same or any(r[4] != "reaches" for r in same):
                    problems.append(f"{method}({form}): row {row} on LibTorch "
                                    f"{version} does not keep the write where "
                                    f"no copy is made: {same}")
                forms = {r[2] for r in copies}
                if forms != {"aten_inplace", "raw_pointer"}:
                    problems.append(f"{method}({form}): row {row} on LibTorch "
                                    f"{version} measures write forms {forms}")
    for version, measured in table.items():
        for row in sorted({r[0] for r in measured
                           if r[4] == "lost"} - named):
            problems.append(f"LibTorch {version} loses the write into {row}, "
                            f"which no copyingMethods entry flags")
    check = open(WIC_CHECK).read()
    if "is lost when '%2' %3: %4() then" not in check or \
            "Method->When" not in check:
        problems.append(f"{WIC_CHECK}: the message no longer states the "
                        f"method's condition (When)")
    page = open(WIC_PAGE).read() if os.path.exists(WIC_PAGE) else ""
    for method, form, rows, cond, when in entries:
        if f"`{method}(" not in page or when not in page:
            problems.append(f"{WIC_PAGE} does not list {method}() with its "
                            f"condition '{when}'")
    return problems, checked


def measured_table_problems():
    """The messages of torch-op-undeclared-mutation that tools/ground-truth's
    alias_returns.py and write_conditions.py measure (an undeclared alias
    returned; metadata and copy-conditional writes), checked by those
    scripts' own claims() against their committed tables, with no torch
    run: (cells checked, problems)."""
    sys.path.insert(0, os.path.join(ROOT, "tools", "ground-truth"))
    import alias_returns
    import write_conditions
    checked, problems = 0, []
    for module in (alias_returns, write_conditions):
        rows = alias_returns.table_rows(module.TABLE)
        name = os.path.relpath(module.TABLE, ROOT)
        if len(rows) < 2:
            problems.append(f"{name}: {len(rows)} torch version(s), the messages "
                            "claim both")
            continue
        checked += sum(len(r) for _, r in rows)
        problems += [f"{name}: {p}" for p in module.claims(rows)]
    return checked, problems


def main():
    args = sys.argv[1:]
    bodies = [args[i + 1] for i, a in enumerate(args) if a == "--tensor-body"]
    header, source = open(HEADER).read(), open(SOURCE).read()
    table = json.load(open(TABLE))
    problems = []

    ref, new = literal(header, "ReferenceVersion"), literal(header, "NewestVersion")
    both = literal(header, "BothVersions")
    if table["versions"].get("2.8.0") != ref:
        problems.append(f"ReferenceVersion {ref}, table {table['versions'].get('2.8.0')}")
    if table["versions"].get("latest") != new:
        problems.append(f"NewestVersion {new}, table {table['versions'].get('latest')}")
    if both != f"torch {ref} and {new}":
        problems.append(f"BothVersions '{both}' does not name {ref} and {new}")

    body = source[source.index("mutableArgumentLossMeasured"):]
    body = body[:body.index("}")]
    keys = set(re.findall(r'DispatchKey == "(\w+)"', body))
    rows = table["rows"]
    checked = 0
    message = flagship_mutable_message()
    for key in sorted(keys):
        path = KEY_PATHS.get(key)
        if path is None:
            problems.append(f"key {key} is reported by default but no path measures it")
            continue
        for r in (r for r in rows if r["path"] == path):
            if r["backend"] == "none" or r["error"]:
                continue
            checked += 1
            in_place = r["form"].endswith("_")
            if in_place and r["rg_inside"] is not False:
                problems.append(f"{key}: {path}/{r['form']} torch {r['torch']} "
                                f"{r['backend']}: rg_inside {r['rg_inside']}, claimed lost")
            if not in_place and r["rg_inside"] is not True:
                problems.append(f"{key}: functional twin {r['form']} torch {r['torch']} "
                                f"{r['backend']}: rg_inside {r['rg_inside']}, claimed kept")
        uncompiled = [r for r in rows if r["path"] == path and r["backend"] == "none"
                      and not r["error"]]
        if not uncompiled or any(r["rg_inside"] is not True for r in uncompiled):
            problems.append(f"{key}: {path} is not true uncompiled in every row")
        n, more, notes = gradient_problems(key, path, rows, message)
        checked += n
        problems += more
        for note in notes:
            print("note:", note)

    for r in rows:
        if r["path"] != "python" or r["torch"] != new or r["backend"] == "none":
            continue
        if not r["form"].endswith("_"):
            continue
        checked += 1
        lost = r["rg_inside"] is False
        if lost != (r["form"] in THROUGH_A_VIEW):
            problems.append(f"newest torch {new}: python/{r['form']} {r['backend']} "
                            f"lost={lost}, newestLosesFreshWrite says "
                            f"{r['form'] in THROUGH_A_VIEW}")

    # In-place arithmetic (path python_view_arith): the ops
    # freshViewArithmeticMeasured names lose the flag through every view on
    # every version and compiled backend (so a fresh local's write through a
    # view is reported), and into the whole tensor the newest keeps it (not
    # reported, as a whole-tensor copy_). The table must measure each op.
    arith = source[source.index("freshViewArithmeticMeasured"):]
    arith = arith[:arith.index("}")]
    ops = set(re.findall(r'OpName == "(\w+)"', arith))
    if not ops:
        problems.append("freshViewArithmeticMeasured: no op names read")
    arith_rows = [r for r in rows if r["path"] == "python_view_arith"]
    for op in sorted(ops):
        mine = [r for r in arith_rows if r["form"].endswith("_" + op)]
        if not mine:
            problems.append(f"freshViewArithmeticMeasured names {op}, "
                            "python_view_arith does not measure it")
        for r in mine:
            if r["backend"] == "none" or r["error"]:
                continue
            checked += 1
            whole = r["form"].startswith("whole_")
            lost = r["rg_inside"] is False
            if not whole and not lost:
                problems.append(f"python_view_arith/{r['form']} torch {r['torch']} "
                                f"{r['backend']}: kept, claimed lost through a view")
            if whole and r["torch"] == new and lost:
                problems.append(f"python_view_arith/{r['form']} torch {new} "
                                f"{r['backend']}: lost into the whole tensor, which "
                                "is not reported")

    for version, schemas in table.get("inferred_schemas", {}).items():
        for op, schema in schemas.items():
            checked += 1
            if "!" in schema or re.search(r"Tensor\(", schema):
                problems.append(f"torch {version}: inferred schema of {op} is "
                                f"annotated: {schema}")

    n, more = consequence_problems()
    checked += n
    problems += more
    n, more = compound_problems(bodies)
    checked += n
    problems += more
    n, more = latent_table_problems()
    checked += n
    problems += more
    n, more = mutation_count_problems()
    checked += n
    problems += more
    n, more = declares_other_problems()
    checked += n
    problems += more
    more, n = write_into_copy_problems(source)
    checked += n
    problems += more
    n, more = measured_table_problems()
    checked += n
    problems += more

    for p in problems:
        print("DISAGREES:", p)
    print(f"ground-truth-claims: {checked} measurements checked against "
          f"GroundTruth.h, Consequence.cpp and the flagship's message, "
          f"{len(problems)} disagree")
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main())
