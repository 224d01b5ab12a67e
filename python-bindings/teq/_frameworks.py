"""How teq.runtime meets the frameworks whose tensors it runs on (PyTorch,
CuPy, anything with __dlpack__): the runtime extension, tensor checks and
exports, the current stream, output allocation. Split from runtime.py,
whose entry and artifact classes call these on every call."""

import sys


def _rt():
    try:
        from teq import _teq_runtime
    except ImportError as error:  # pragma: no cover - depends on the build
        raise ImportError(
            "teq.runtime needs the teq._teq_runtime extension (build the "
            "target _teq_runtime, e.g. ninja -C build _teq_runtime "
            f"teq-python-sources): {error}"
        ) from error
    return _teq_runtime


def _is_tensor_like(value):
    return hasattr(value, "__dlpack__") and hasattr(value, "__dlpack_device__")


def _exportable(tensors):
    """PyTorch refuses to export tensors that require grad (parameters):
    their detached views share the memory."""
    out = []
    for t in tensors:
        if getattr(t, "requires_grad", False) and _module_of(t) == "torch":
            t = t.detach()
        out.append(t)
    return out


def _module_of(value):
    return type(value).__module__.split(".")[0]


_torch_state = {}


def _torch_if_loaded():
    """PyTorch if the process has imported it (teq.runtime never imports it
    for a caller that does not use it), with its direct DLPack exporter
    registered with the runtime on first sight."""
    torch = _torch_state.get("module")
    if torch is not None:
        return torch
    torch = sys.modules.get("torch")
    if torch is None or not hasattr(torch, "Tensor"):
        return None
    export = getattr(getattr(torch, "_C", None), "_to_dlpack", None)
    raw_stream = getattr(getattr(torch, "_C", None), "_cuda_getCurrentRawStream", None)
    if export is not None:
        _rt().register_exporter(torch.Tensor, export)
    _torch_state["export"] = export is not None
    _torch_state["raw_stream"] = raw_stream
    _torch_state["devices"] = {}
    _torch_state["module"] = torch
    return torch


def _torch_current_stream(device):
    """The CUstream PyTorch is working on for device ``device`` (int; 0 is
    the legacy default stream)."""
    _torch_if_loaded()  # fills _torch_state on the first call
    raw_stream = _torch_state.get("raw_stream")
    if raw_stream is not None:
        return raw_stream(device or 0)
    return int(_torch_state["module"].cuda.current_stream(device or 0).cuda_stream)


def _torch_device(torch, device):
    devices = _torch_state["devices"]
    d = devices.get(device)
    if d is None:
        d = devices[device] = torch.device("cuda", device or 0)
    return d


def _check_device(value, label, device):
    if not _is_tensor_like(value):
        raise ValueError(f"{label}: expected a CUDA tensor (torch.Tensor, cupy.ndarray, "
                         f"... with __dlpack__), got {type(value).__name__}")
    kind, index = value.__dlpack_device__()
    kind = int(kind)
    if kind != 2:
        names = {1: "cpu", 3: "cuda_host (pinned host memory)", 13: "cuda_managed"}
        where = names.get(kind, f"DLPack device type {kind}")
        expected = f"cuda:{device}" if device is not None else "a CUDA device"
        raise ValueError(f"{label}: expected a CUDA tensor on {expected}, got a tensor on {where}")
    if device is not None and int(index) != device:
        raise ValueError(f"{label}: expected a tensor on cuda:{device} (the device the "
                         f"artifact was loaded on), got cuda:{index}")


def _torch_dtype(torch, encoding):
    dtypes = _torch_state.get("dtypes")
    if dtypes is None:
        dtypes = _torch_state["dtypes"] = {
            "f32": torch.float32,
            "bf16": torch.bfloat16,
            "f16": torch.float16,
            "i64": torch.int64,
        }
    return dtypes.get(encoding, torch.uint8)


def _cupy_dtype(cupy, encoding):
    return {
        "f32": cupy.float32,
        "bf16": cupy.uint16,  # CuPy has no bfloat16: raw bits
        "f16": cupy.float16,
        "i64": cupy.int64,
    }.get(encoding, cupy.uint8)


def _empty(buffer, framework, device):
    if framework in (None, "torch"):
        torch = _torch_if_loaded()
        if torch is None:
            try:
                import torch  # noqa: F401
            except ImportError:
                if framework == "torch":
                    raise
            torch = _torch_if_loaded()
        if torch is not None:
            # empty_strided: 2.1 us a call against torch.empty's 3.3-3.5 us
            # on the H200's host (it parses no size or device).
            strides = buffer.__dict__.get("_strides")
            if strides is None:
                strides, n = [], 1
                for d in reversed(buffer.shape):
                    strides.append(n)
                    n *= d
                strides = buffer._strides = tuple(reversed(strides))
            return torch.empty_strided(buffer.shape, strides,
                                       dtype=_torch_dtype(torch, buffer.encoding),
                                       device=_torch_device(torch, device))
    try:
        import cupy
    except ImportError:
        raise RuntimeError("cannot allocate outputs: neither torch nor cupy imports; "
                           "pass them with out=") from None
    with cupy.cuda.Device(device or 0):
        return cupy.empty(buffer.shape, dtype=_cupy_dtype(cupy, buffer.encoding))


def _current_stream(framework, device):
    if framework in (None, "torch"):
        try:
            import torch
        except ImportError:
            torch = None
        if torch is not None:
            return int(torch.cuda.current_stream(device or 0).cuda_stream)
    if framework in (None, "cupy"):
        try:
            import cupy
        except ImportError:
            return None
        with cupy.cuda.Device(device or 0):
            return int(cupy.cuda.get_current_stream().ptr)
    return None
