"""What torch's Python API means to the front end, in one place: the
factories, views, in-place writes, grad-free values, grad-mode scopes and
the names under which torch reaches compile, checkpoint and
autograd.Function. The analyses read these tables; none spells a torch name
itself."""

# Factories whose result does not require grad unless asked to.
FACTORIES = {"zeros", "ones", "empty", "full", "zeros_like", "ones_like", "empty_like",
             "full_like", "rand", "randn", "randint", "arange", "linspace", "eye",
             "tensor", "as_tensor"}
NEW_FACTORIES = {"new_zeros", "new_ones", "new_empty", "new_full", "new_tensor"}
# The measured target makings (ground truth path python_more, each written
# through narrow): factory -> its row (None: torch.zeros, the target of
# every form row). A factory not here is not measured.
TARGET_FORMS = {"zeros": None, "new_zeros": "new_zeros_target_",
                "zeros_like": "zeros_like_target_", "empty": "empty_target_",
                "ones": "ones_target_", "tensor": "tensor_target_",
                "new_empty": "new_empty_target_", "new_ones": "new_ones_target_",
                "new_full": "new_full_target_", "empty_like": "empty_like_target_",
                "ones_like": "ones_like_target_", "full": "full_target_"}
# Methods of a fresh tensor whose result is that tensor or a fresh copy of
# it, still without grad: method -> its row. `torch.eye(n)` is measured only
# followed by repeat (the orthogonal adapters' `torch.eye(n).repeat(b, 1, 1)`).
FRESH_CHAIN = {"clone": "clone_target_", "to": "to_device_target_",
               "fill_": "fill_target_", "repeat": "eye_repeat_target_"}
EYE_FORM = "eye_repeat_target_"
# Methods whose result is a view of the receiver.
VIEWS = {"narrow", "select", "view", "view_as", "expand", "expand_as", "transpose", "t",
         "permute", "unsqueeze", "squeeze", "diagonal", "unflatten", "as_strided",
         "swapaxes", "swapdims", "movedim", "unfold"}
# The views a fix can scatter back through.
SCATTER_VIEWS = {"narrow": "slice_scatter", "select": "select_scatter"}
# In-place methods measured as their own form, on the tensor itself.
INPLACE_FORMS = {"index_copy_": "index_copy_", "masked_scatter_": "masked_scatter_",
                 "scatter_": "scatter_", "index_add_": "index_add_",
                 "scatter_add_": "scatter_add_", "index_put_": "index_put_",
                 "copy_": "whole_copy_"}
# In-place arithmetic, measured through each view and on the whole tensor
# (path python_view_arith).
ARITH = {"add_", "sub_", "mul_", "div_", "clamp_", "masked_fill_"}
# The argument whose values an in-place method writes (position, keywords):
# an index or a mask (integers, booleans) never carries grad.
VALUE_ARGUMENT = {"copy_": (0, ("src",)), "index_copy_": (2, ("source",)),
                  "masked_scatter_": (1, ("source",)), "scatter_": (2, ("src", "value")),
                  "index_add_": (2, ("source",)), "scatter_add_": (2, ("src",)),
                  "index_put_": (1, ("values",)),
                  "add_": (0, ("other",)), "sub_": (0, ("other",)), "mul_": (0, ("other",)),
                  "div_": (0, ("other",)), "masked_fill_": (1, ("value",)),
                  "clamp_": (None, ("min", "max"))}
# In-place methods that write no values into the tensor.
NOT_WRITES = {"requires_grad_", "detach_", "retain_grad", "share_memory_", "pin_memory_",
              "record_stream", "resize_", "uniform_", "normal_", "bernoulli_", "random_",
              "exponential_", "geometric_", "cauchy_", "log_normal_", "zero_", "fill_diagonal_"}
# Out-of-place forms a message names, by the write's form.
REMEDY = {
    "setitem_adv_": "index_put",
    "setitem_slice_int_": "select_scatter",
    "setitem_rows_col_": "slice_scatter",
    "chain_copy_": "slice_scatter of the view's select_scatter",
    "setitem_int_": "select_scatter",
    "narrow_copy_": "slice_scatter",
    "select_copy_": "select_scatter",
    "view_alias_copy_": "slice_scatter",
    "index_copy_": "index_copy",
    "masked_scatter_": "masked_scatter",
    "scatter_": "scatter",
    "index_put_": "index_put",
    "setitem_augmented_": "slice_scatter of the view's out-of-place sum",
}
# Values that never carry grad: these attributes and methods of a tensor,
# builtins that make Python numbers, integer and boolean results.
DETACHING = {"detach", "item", "tolist", "numpy", "data"}
NUMBER_BUILTINS = {"float", "int", "bool", "len", "str", "round"}
INT_DTYPES = {"bool", "uint8", "int8", "int16", "short", "int32", "int", "int64", "long",
              "uint16", "uint32", "uint64"}
INT_RESULTS = {"long", "int", "bool", "short", "byte", "char", "argmax", "argmin", "argsort",
               "nonzero", "eq", "ne", "lt", "le", "gt", "ge", "logical_not", "logical_and",
               "logical_or", "logical_xor", "isnan", "isinf", "isfinite", "bucketize",
               "searchsorted", "randint", "randperm", "numel", "dim", "size",
               "triu_indices", "tril_indices", "arange"}
# Calls of torch whose result is a tensor (or a tuple of tensors): an index
# made by one may be passed to index_put, which takes tensors only.
INDEX_TENSOR_FUNCS = {"arange", "tensor", "as_tensor", "triu_indices", "tril_indices",
                      "nonzero", "where", "randint", "randperm", "argsort", "argmax",
                      "argmin", "bucketize", "searchsorted", "cat", "stack", "full",
                      "zeros", "ones", "unique", "masked_select", "logical_not", "isnan",
                      "isfinite", "eq", "ne", "lt", "le", "gt", "ge"}
# Methods that keep an index tensor one: reshapes and integer casts.
INDEX_RESHAPES = {"squeeze", "unsqueeze", "view", "reshape", "flatten", "long", "int",
                  "contiguous", "to", "t", "transpose"}
# torch functions whose result is a boolean tensor (a mask).
MASK_FUNCS = {"ge", "gt", "le", "lt", "eq", "ne", "isnan", "isfinite", "isinf",
              "logical_not", "logical_and", "logical_or", "logical_xor"}
# torch functions whose result, unpacked, gives 1-D index tensors.
UNPACK_1D = {"triu_indices", "tril_indices", "nonzero"}
# What a tensor has and a Python number or list has not: a name used so is
# known to hold a tensor (shape, ndim and dtype: or a numpy array, which
# never requires grad, so that a write of one is not reported).
TENSOR_ATTRIBUTES = {"device", "is_cuda", "requires_grad", "grad", "grad_fn", "is_leaf",
                     "layout", "mT", "mH", "shape", "ndim", "dtype"}
TENSOR_METHODS = {"unsqueeze", "contiguous", "to", "cuda", "cpu", "detach", "narrow",
                  "expand", "expand_as", "permute", "dim", "numel", "new_zeros", "new_empty",
                  "new_ones", "new_full", "type_as", "masked_fill", "index_select", "float",
                  "half", "bfloat16", "double", "view", "view_as", "size", "softmax",
                  "matmul", "bmm", "mm", "clone", "requires_grad_", "select", "unflatten",
                  "flatten", "transpose", "reshape", "norm", "pow", "exp", "sigmoid"}
# Attributes of a tensor that tell whether it takes part in autograd: a read
# of one is where code sees the stale flag. attribute -> its flag path for a
# read of the written tensor itself (requires_grad: the form's own path).
FLAG_ATTRIBUTES = {"requires_grad": None, "grad_fn": "python_flag_grad_fn",
                   "is_leaf": "python_flag_is_leaf"}
# A use of the target that neither keeps a reference to it nor gives one
# away (a fix rebinds the name: a reference kept before the write would not
# see it): its metadata and results that are new tensors.
SAFE_ATTRIBUTES = {"shape", "dtype", "device", "requires_grad", "ndim", "is_cuda", "layout",
                   "is_leaf", "grad_fn"}
SAFE_METHODS = {"size", "dim", "numel", "sum", "mean", "norm", "max", "min", "amax", "amin",
                "prod", "std", "var", "any", "all", "clone", "item", "tolist"}
# Module methods that return the module itself: GPT(...).cuda() is a GPT.
MODULE_SELF_METHODS = {"cuda", "cpu", "to", "train", "eval", "float", "half", "bfloat16",
                       "double", "requires_grad_", "to_empty", "type", "apply"}
# Containers of modules (torch.nn): their elements are the modules they hold.
CONTAINERS = {"ModuleList", "ModuleDict", "Sequential", "ParameterList"}
# Iterating a container or a module: what the loop variable is.
ITERATORS = {"children": "elements", "values": "elements", "items": "pairs",
             "named_children": "pairs", "modules": "all", "named_modules": "pairs_all"}
# Dotted names (after the torch alias) that compile their argument.
COMPILE = {"compile", "_dynamo.optimize"}
# ... that run their first argument under activation checkpointing.
CHECKPOINT = {"utils.checkpoint.checkpoint"}
# ... that are torch.autograd.Function.
FUNCTION_BASES = {"autograd.Function", "autograd.function.Function",
                  "autograd.function.InplaceFunction"}
# The collectives of torch.distributed.nn, autograd Functions of torch's own
# (their names after the torch alias) -> (the position of the tensor whose
# flag they read, its ground truth path, or None where not measured).
COLLECTIVES = {}
for _module in ("distributed.nn.functional.", "distributed.nn."):
    COLLECTIVES.update({
        _module + "all_reduce": (0, "python_dist_all_reduce"),
        _module + "all_to_all_single": (1, "python_dist_all_to_all_single"),
        _module + "all_gather": (0, None), _module + "reduce_scatter": (1, None),
        _module + "all_to_all": (1, None), _module + "broadcast": (0, None),
        _module + "reduce": (0, None), _module + "gather": (0, None),
        _module + "scatter": (1, None)})
# Grad-mode scopes: a decorator or a with item named so runs its body
# without grad (set_grad_enabled only with False).
NO_GRAD = {"no_grad", "inference_mode", "autograd.no_grad", "autograd.grad_mode.no_grad",
           "autograd.inference_mode"}
ENABLE_GRAD = {"enable_grad", "autograd.enable_grad"}
SET_GRAD_ENABLED = {"set_grad_enabled", "autograd.set_grad_enabled"}
# The methods of an autograd.Function that run without grad (forward) or
# with grad only under create_graph (backward): writes there are no hazard.
FUNCTION_NO_GRAD_METHODS = {"forward", "backward", "setup_context", "jvp", "vjp"}
