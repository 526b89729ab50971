"""Small questions about Python syntax the analyses share: a literal
integer's value, a value's text shortened for a message, the arguments of
an in-place method that give the written values."""
import libcst as cst

from . import torch_names as tn


def int_value(node):
    """The value of an integer literal, negative ones too; else None."""
    if isinstance(node, cst.Integer):
        return int(node.value, 0)
    if isinstance(node, cst.UnaryOperation) and isinstance(node.operator, cst.Minus) and \
            isinstance(node.expression, cst.Integer):
        return -int(node.expression.value, 0)
    return None


def short(text):
    """text on one line, at most 40 characters."""
    text = " ".join(text.split())
    return text if len(text) <= 40 else text[:37] + "..."


def value_arguments(call, method):
    """The arguments of an in-place method call that give the written values."""
    position, keywords = tn.VALUE_ARGUMENT[method]
    positional = [a.value for a in call.args if a.keyword is None and a.star == ""]
    named = [a.value for a in call.args if a.keyword and a.keyword.value in keywords]
    if position is None:
        return positional + named
    return positional[position:position + 1] + named


def ndim(call, f):
    """The number of dimensions of a torch call's tensor where the call
    says it: arange (1), tensor of a nested list literal; else None."""
    if not isinstance(call, cst.Call):
        return None
    name = f.torch_name(call.func)
    if name == "arange":
        return 1
    if name in ("tensor", "as_tensor") and call.args:
        depth, node = 0, call.args[0].value
        while isinstance(node, (cst.List, cst.Tuple)) and node.elements:
            depth += 1
            node = node.elements[0].value
        return depth or None
    return None
