"""What the teq.torch modules share: PyTorch (optional: ProgramPair needs
none), the dtypes of buffer encodings, the lock and the plan table that
autograd functions index (torch.compile sees only an int)."""

import re
import threading

try:
    import torch
except ImportError as _error:  # ProgramPair (roles) needs no torch
    torch = None
    _TORCH_IMPORT_ERROR = _error


def _require_torch(what):
    if torch is None:
        raise ImportError(f"{what} needs PyTorch: {_TORCH_IMPORT_ERROR}")


if torch is not None:
    _TORCH_DTYPES = {
        "f32": torch.float32,
        "bf16": torch.bfloat16,
        "f16": torch.float16,
        "i64": torch.int64,
    }
    # Raw-byte encodings also accept the matching float8 dtype where torch has it.
    _FLOAT8 = {
        "e4m3": getattr(torch, "float8_e4m3fn", None),
        "e5m2": getattr(torch, "float8_e5m2", None),
        "e8m0": getattr(torch, "float8_e8m0fnu", None),
    }
    _FunctionBase = torch.autograd.Function
    _ModuleBase = torch.nn.Module
else:
    _TORCH_DTYPES, _FLOAT8 = {}, {}
    _FunctionBase = _ModuleBase = object


def torch_dtype(encoding):
    """The torch dtype a buffer of `encoding` is allocated with (FP8, FP4 and
    E8M0 buffers: uint8 raw bytes, as TE keeps them)."""
    _require_torch("teq.torch.torch_dtype")
    return _TORCH_DTYPES.get(encoding, torch.uint8)


def _dtype_ok(encoding, dtype):
    if dtype == torch_dtype(encoding):
        return True
    return _FLOAT8.get(encoding) is not None and dtype == _FLOAT8[encoding]


def _ident(text):
    text = re.sub(r"\W", "_", text)
    if not text or text[0].isdigit():
        text = "_" + text
    return text


_lock = threading.RLock()


# Plans of Linear and Module autograd functions, looked up by index.
_plans = []


def _apply_keeping_dtypes(module, apply, fn, recurse, paths):
    """``nn.Module._apply`` (what ``.to()``, ``.half()``, ``.bfloat16()``,
    ``.cuda()`` run) except that the buffers at `paths` (tuples of attribute
    names) keep their dtype: delayed-scaling state and ``main_grad`` stay
    fp32 whatever dtype the model is cast to, as TE keeps them; they follow a
    device move, exactly."""
    def parent_of(path):
        value = module
        for p in path[:-1]:
            value = getattr(value, p)
        return value

    before = {path: getattr(parent_of(path), path[-1]) for path in paths}
    result = apply(fn, recurse)
    for path, old in before.items():
        parent = parent_of(path)
        new = parent._buffers.get(path[-1])
        if new is not None and old is not None and new.dtype != old.dtype:
            parent._buffers[path[-1]] = old.to(device=new.device)
    return result


def _split_forward_results(fwd_op, results, roles, values):
    """A forward op's flat results as (outputs, saved buffers, state
    updates), by the (role, name) of each manifest result. An alias result
    (the forward's argument returned as is) is not among the op's results:
    it is that argument's value in `values` (the forward's arguments), the
    tensor itself, so that a saved one goes to save_for_backward as the
    caller's tensor (autograd's version counter then refuses a backward
    after the caller modified it in place)."""
    if fwd_op.num_results == 1:
        results = (results,)
    outputs, saved, updates = [], [], []
    i = 0
    for k, ((role, _), arg) in enumerate(zip(roles, fwd_op.outputs)):
        n = len(arg.buffers)
        if arg.alias_of is not None:
            value = values[fwd_op.entry._aliases[k]]
            tensors = fwd_op.flatten_value(arg.alias, value)
        else:
            value, tensors = results[i], results[i:i + n]
        if role == "output":
            outputs.append(value)
        elif role == "saved":
            saved.extend(tensors)
        else:
            updates.append(value)
        i += n
    return outputs, saved, updates
