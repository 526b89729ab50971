"""What may be said of a write, and only that: each claim is the rows of the
measured table its parts stand on (ground_truth.py), and a message states
the versions and backends on which every part lost what uncompiled code
has.

The parts of a claim: what reads the stale flag (the consumer) measured for
the write's form (the form's own flag path for a read of requires_grad; a
path of its own for grad_fn and is_leaf, for a value computed from the
written tensor, for an autograd.Function's apply and for checkpoint on the
way); and each measured way the target was made (path python_more). A write
whose form, making or consumer was not measured is not reported: counted."""
from .ground_truth import version_key
from .torch_names import REMEDY

# Consumer paths of the ground truth (tools/ground-truth/consumers.py).
FUNCTION = "python_function"
FUNCTION_OPAQUE = "python_function_opaque"
FUNCTION_DERIVED = "python_function_derived"
FUNCTION_NEEDS_GRAD = "python_function_needs_grad"
FLAG_DERIVED = "python_flag_derived"
CHECKPOINT = {"checkpoint": "python_checkpoint_function",
              "checkpoint_reentrant": "python_checkpoint_function_reentrant"}
FLAG_PATHS = {"grad_fn": "python_flag_grad_fn", "is_leaf": "python_flag_is_leaf"}


def parts(write, consumer, truth):
    """[(form, path)]: the rows a claim of write through consumer rests on
    (path None: the form's own flag path); None where one is not measured."""
    if write.target_forms is None:
        return None
    out = []
    if consumer is None or (consumer.kind == "flag" and consumer.attribute == "requires_grad"
                            and not consumer.derived):
        out.append((write.form, None))
    elif consumer.kind == "flag":
        out.append((write.form, FLAG_DERIVED if consumer.derived
                    else FLAG_PATHS[consumer.attribute]))
    elif consumer.kind == "collective":
        if consumer.path_rows is None:
            return None  # a collective not measured
        out.append((write.form, consumer.path_rows))
        if consumer.derived:
            out.append((write.form, FLAG_DERIVED))
    else:
        if consumer.kind == "function_needs_grad":
            out.append((write.form, FUNCTION_NEEDS_GRAD))
        elif consumer.opaque is None:
            # Traced inline, a forward of differentiable operations gives its
            # own gradient (measured: kept through a collective's Function):
            # what is lost cannot be told.
            return None
        else:
            out.append((write.form, FUNCTION_OPAQUE))
        if consumer.derived:
            out.append((write.form, FUNCTION_DERIVED))
    for via in (consumer.via if consumer else ()):
        out.append((write.form, CHECKPOINT[via]))
    out += [(f, None) for f in write.target_forms]
    if not all(truth.measured(f, p) for f, p in out):
        return None
    return out


def claim(write, truth, consumer=None):
    """(versions losing with the backends that lost on every part, versions
    on which some part kept it on every backend), or None (not measured)."""
    rows = parts(write, consumer, truth)
    if rows is None:
        return None
    lost = None
    for form, path in rows:
        here = dict(truth.losing(form, path))
        lost = here if lost is None else {
            v: [b for b in lost[v] if b in here[v]] for v in lost if v in here}
    lost = {v: b for v, b in lost.items() if b}
    kept = sorted({v for form, path in rows for v in truth.kept_on(form, path)},
                  key=version_key)
    return sorted(lost.items(), key=lambda kv: version_key(kv[0])), kept


def reported(writes, truth, flag_read="read", min_torch=None):
    """([(write, consumer or None, versions losing, versions keeping)] to
    report, the number of writes not reported because a part of their
    claim was not measured). A write is reported through its first
    consumer with a claim (flag_read "read"), or with none ("any")."""
    out, unmeasured = [], 0
    for w in writes:
        if flag_read == "read" and not w.consumers:
            continue
        if w.form.startswith("unmeasured:"):
            unmeasured += 1
            continue
        choices = list(w.consumers) if flag_read == "read" else [None] + list(w.consumers)
        if flag_read == "any" and w.consumers:
            choices = list(w.consumers) + [None]
        best, unknown = None, False
        for c in choices:
            measured = claim(w, truth, c)
            if measured is None:
                unknown = True
                continue
            lost, kept = measured
            if not lost:
                continue
            if min_torch and any(version_key(v) <= version_key(min_torch) for v in kept):
                continue
            best = (w, c, lost, kept)
            break
        if best:
            out.append(best)
        elif unknown:
            unmeasured += 1
    return out, unmeasured


def _backends(names):
    names = list(names)
    listed = names[0] if len(names) == 1 else ", ".join(names[:-1]) + " and " + names[-1]
    return f"the {listed} backend" + ("s" if len(names) > 1 else "")


def _where(consumer, write):
    if consumer.path != write.path:
        import os
        return f"{os.path.basename(consumer.path)}:{consumer.line}"
    return f"line {consumer.line}"


def _conditions(consumer):
    if not consumer.conditions:
        return ""
    names = [f"'{c}'" for c in consumer.conditions[:3]]
    more = " and more" if len(consumer.conditions) > 3 else ""
    listed = names[0] if len(names) == 1 else ", ".join(names[:-1]) + " and " + names[-1]
    return f", where {listed}{more} {'does' if len(names) == 1 else 'do'} not require grad"


def consequence(write, consumer):
    """What the reader of the stale flag does with it, as measured."""
    t = write.target
    if consumer is None:
        return ""
    what = f"'{t}'" if not consumer.derived else f"a value computed from '{t}'"
    through = " through torch.utils.checkpoint" if consumer.via else ""
    at = _where(consumer, write)
    inside = f", in '{consumer.function}'" if consumer.function != write.function else ""
    if consumer.kind == "flag":
        if consumer.derived:
            return (f", and this code reads the flag of a value computed from it{through} "
                    f"({at}{inside}){_conditions(consumer)}")
        if consumer.attribute != "requires_grad":
            return (f", and this code reads '{t}.{consumer.attribute}'{through} ({at}{inside}),"
                    " stale the same way")
        if consumer.path == write.path and consumer.function == write.function and \
                not consumer.via:
            lines = sorted({c.line for c in write.consumers
                            if c.kind == "flag" and c.attribute == "requires_grad" and
                            not c.derived and c.function == write.function and not c.via})
            return f", and this code reads the flag (line {', '.join(map(str, lines))})"
        return f", and this code reads the flag{through} ({at}{inside})"
    if consumer.kind == "collective":
        return (f", and {what} reaches {consumer.callee}{through} ({at}{inside}), an autograd "
                "Function of torch's own that torch.compile then traces as if its input did "
                "not require grad: the gradient through it is lost (none, or not the "
                f"uncompiled one){_conditions(consumer)}")
    if consumer.kind == "function_needs_grad":
        return (f", and {what} reaches '{consumer.callee}.apply'{through} ({at}{inside}) as "
                f"its input {consumer.position}, whose backward reads "
                f"ctx.needs_input_grad[{consumer.position}]: False for it compiled, so "
                f"its gradient is None{_conditions(consumer)}")
    return (f", and {what} reaches '{consumer.callee}.apply'{through} ({at}{inside}), "
            "which torch.compile then traces as if no input required grad: its backward is "
            f"not run, and {consumer.opaque}, so the gradient through it is lost"
            f"{_conditions(consumer)}")


def message(write, lost, kept, consumer=None):
    where = "; ".join(f"torch {v} with {_backends(b)}" for v, b in lost)
    kept_text = f"; torch {', '.join(kept)} keeps it" if kept else ""
    remedy = REMEDY.get(write.form)
    if remedy:
        fix = (f"; write it out of place ({remedy}), which keeps the flag on every version "
               "and backend measured")
    elif write.form[:write.form.index("_")] in ("narrow", "select", "named"):
        fix = "; write it out of place (the view's out-of-place result scattered back)"
    elif write.form in ("index_add_", "scatter_add_"):
        fix = (f"; write it out of place ({write.form[:-1]}), by hand: no rule of "
               "RewriteRules.def writes it")
    else:
        fix = "; write it out of place (no out-of-place form of this write was measured)"
    source = f"'{write.source}', which" if write.source else "a value that"
    head = (f"in-place write into '{write.target}', made without gradient tracking, from "
            f"{source} may require grad, inside a compiled region: ")
    if consumer is None or consumer.kind == "flag":
        return (head + f"torch.compile reads '{write.target}.requires_grad' as False after it "
                f"where uncompiled code reads True (measured on {where}{kept_text})"
                + consequence(write, consumer) + fix)
    return (head + f"torch.compile takes '{write.target}' for a tensor that does not require "
            "grad after it" + consequence(write, consumer)
            + f" (measured on {where}{kept_text})" + fix)
