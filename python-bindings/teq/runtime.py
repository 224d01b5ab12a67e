"""Load and run TEQ artifacts from Python (needs only CUDA, no MLIR).

::

    import torch, teq.runtime
    art = teq.runtime.load("pair.so")              # on cuda:0
    print(art)                                     # entries, args, buffers
    fwd = art["fwd"]
    y, saved_x, saved_w = fwd(x, w)                # torch tensors in, out
    saved_x.transpose, saved_x.scale_inv           # TE's buffer names
    dx, dw = art["bwd"](dy, saved_x, saved_w)

An entry takes its ``input`` and ``inout`` arguments in manifest order
(positionally or by name) and returns its ``output`` arguments as a tuple:
tensors for tensor results, :class:`QuantizedTensor` for quantized (proto)
results, whose buffers are tensors named as TE names them (``data``,
``transpose``, ``scale_inv``, ``rowwise_data``, ``columnwise_scale_inv``,
``amax_rowwise``, ...). ``inout`` arguments (delayed-scaling state: scale,
amax history; the stochastic-rounding ``rng_state``) are tensors the caller
owns; the entry updates them in place.

An output that is one of the entry's inputs returned as is (``Arg.alias_of``,
the manifest's ``alias_of``: a training forward's saved input or weight) has
no buffers: the call returns the very object passed for that input (the
same tensor, no copy), and ``out=`` takes ``None`` for it. It shares memory
with the input: modify either in place and the other changes too (teq.torch
saves it with ``save_for_backward``, so autograd's version check refuses a
backward after such a change).

Tensors are passed zero copy through DLPack (PyTorch, CuPy or anything with
``__dlpack__``): each must be a CUDA tensor on the artifact's device with the
manifest's dtype (FP8/FP4/E8M0 buffers: ``uint8`` raw bytes, as TE keeps
them, or the matching ``float8_*`` dtype), shape, row-major contiguous, and
256-byte aligned; otherwise ``ValueError`` names the argument and what was
expected, and nothing runs. Outputs are allocated with the inputs' framework
on their device (``torch.empty`` / ``cupy.empty``) unless given with
``out=``; an output given must not share memory with any input or other
output (the entry may keep temporaries in an output's bytes until it writes
it), else ``ValueError`` names both ("result 'dx' overlaps argument 'x'"). The entry is enqueued on the caller's current stream (PyTorch's
``torch.cuda.current_stream()``, CuPy's current stream) and the call returns
without waiting (``synchronize=True`` waits and reports kernel faults).

``inspect(path)`` reads the manifest without a GPU: listing works, calls do
not.

Tensor / sequence parallel entries communicate over parallel groups
(``entry.groups``: name and size), one NCCL communicator per group, which
every rank creates from the same unique id and passes to each call::

    uid = teq.runtime.unique_id() if rank == 0 else None   # 128 bytes
    uid = broadcast(uid)                  # the caller's channel, e.g.
                                          # torch.distributed.broadcast_object_list
    tp = teq.runtime.Communicator(uid, size=2, rank=rank, device=rank, name="tp")
    y, = art["fwd"](x, w, communicators=[tp])

NCCL (``libnccl.so.2``) is loaded on first use: ``$TEQ_NCCL_LIBRARY`` (the
library or its directory) if set, else the ``nvidia-nccl-cu13`` package's
(PyTorch's NCCL) when it is installed, else the library search path.
"""

import json
import os
import threading

__all__ = [
    "Artifact",
    "Arg",
    "Buffer",
    "Entry",
    "Gemm",
    "QuantizedTensor",
    "Communicator",
    "context",
    "inspect",
    "load",
    "unique_id",
]

# The alignment every buffer must have: cuBLASLt's operands need 256 bytes
# (docs/Artifact.md, teqGemm), kernels 16; fresh framework allocations have
# it.
ALIGNMENT = 256

_DTYPE_BITS = {"f32": 32, "bf16": 16, "f16": 16, "i64": 64}


from ._frameworks import (  # noqa: E402,F401  (also teq.runtime's names)
    _check_device,
    _current_stream,
    _empty,
    _exportable,
    _is_tensor_like,
    _module_of,
    _rt,
    _torch_current_stream,
    _torch_device,
    _torch_dtype,
    _torch_if_loaded,
    _cupy_dtype,
)

_contexts = {}
_contexts_lock = threading.Lock()


def context(device=0):
    """The runtime's context on CUDA device ``device`` (an ordinal or a
    ``torch.device``/``'cuda:N'``), created once per process."""
    ordinal = _ordinal(device)
    with _contexts_lock:
        ctx = _contexts.get(ordinal)
        if ctx is None:
            ctx = _rt().Context(ordinal)
            _contexts[ordinal] = ctx
        return ctx


def _ordinal(device):
    if device is None:
        return 0
    if isinstance(device, int):
        return device
    if isinstance(device, str):
        text = device.strip()
        if text == "cuda":
            return 0
        if text.startswith("cuda:") and text[5:].isdigit():
            return int(text[5:])
        raise ValueError(f"device: expected an ordinal or 'cuda:N', got {device!r}")
    index = getattr(device, "index", None)  # torch.device / cupy Device
    if index is None and hasattr(device, "id"):
        index = device.id
    if index is None:
        if getattr(device, "type", None) == "cuda":
            return 0
        raise ValueError(f"device: expected a CUDA device, got {device!r}")
    return int(index)


def load(path, device=0):
    """Loads the artifact at ``path`` on CUDA device ``device``: its device
    code, its GEMM plans and its workspace. Errors (RuntimeError) name the
    path: missing file, not a TEQ artifact, a target other than the
    device's, ..."""
    path = os.fspath(path)
    _check_file(path)
    ctx = context(device)
    return Artifact(_rt().Artifact.load(ctx, path), ctx)


def inspect(path):
    """Reads the artifact's manifest without a GPU or a driver: entries,
    arguments, buffers and GEMMs can be listed; entries cannot run."""
    path = os.fspath(path)
    _check_file(path)
    return Artifact(_rt().Artifact.inspect(path), None)


def _locate_nccl():
    """Points the runtime at the NCCL of the nvidia-nccl-cu13 package (the
    one PyTorch uses) unless $TEQ_NCCL_LIBRARY names one already."""
    if os.environ.get("TEQ_NCCL_LIBRARY"):
        return
    try:
        import importlib.util
        spec = importlib.util.find_spec("nvidia.nccl")
    except (ImportError, ValueError):
        spec = None
    for directory in (spec.submodule_search_locations or []) if spec else []:
        library = os.path.join(directory, "lib", "libnccl.so.2")
        if os.path.exists(library):
            os.environ["TEQ_NCCL_LIBRARY"] = library
            return


def unique_id():
    """A new NCCL unique id (``bytes``, 128 of them) for one parallel group:
    create it on one rank and hand it to every rank, which each make a
    :class:`Communicator` from it."""
    _locate_nccl()
    return _rt().unique_id()


class Communicator:
    """One rank's NCCL communicator of a parallel group, on CUDA device
    ``device``: rank ``rank`` of ``size``, from the group's
    :func:`unique_id`. Creating it waits until every rank of the group has
    created its own (ranks of one process do so from threads of their own).
    ``name`` labels the group in error messages (e.g. ``"tp"``).

    A rank that fails before it creates its communicator would leave the
    others waiting forever: ``timeout`` (seconds; ``None``: no limit) gives
    up after that long, and ``should_abort`` (a callable, polled about every
    millisecond while waiting, with the GIL) gives up once it returns true,
    e.g. when the launcher's store says that another rank failed. Either
    raises RuntimeError ("... initialization timed out after 30 s ...",
    "... initialization aborted ..."); an exception ``should_abort`` raises
    is raised as is. With either the communicator is non-blocking in NCCL's
    sense, which costs host time on every collective (docs/Parallel.md);
    without, it is blocking. :meth:`abort` stops a collective waiting on the
    device; on a blocking communicator a thread still inside NCCL's host
    call (e.g. connecting to a peer on first use) keeps the communicator
    until NCCL returns."""

    def __init__(self, unique_id, size, rank, device=0, name="", timeout=None,
                 should_abort=None):
        unique_id = bytes(unique_id)
        if len(unique_id) != 128:
            raise ValueError(f"unique id: expected 128 bytes (from teq.runtime.unique_id()), "
                             f"got {len(unique_id)}")
        if timeout is not None and not timeout > 0:
            raise ValueError(f"communicator: timeout must be positive seconds or None, "
                             f"got {timeout!r}")
        if should_abort is not None and not callable(should_abort):
            raise TypeError(f"communicator: should_abort must be callable, got "
                            f"{type(should_abort).__name__}")
        _locate_nccl()
        self.device = _ordinal(device)
        self.name = name
        self._handle = _rt().Communicator(context(self.device), unique_id,
                                          int(size), int(rank), name,
                                          float(timeout or 0), should_abort)

    @property
    def size(self):
        return self._handle.size

    @property
    def rank(self):
        return self._handle.rank

    @property
    def nccl_comm(self):
        """The ``ncclComm_t`` as an integer."""
        return self._handle.nccl_comm

    def abort(self):
        """Stops this rank's collectives (``ncclCommAbort``): a call waiting
        for a peer that failed returns with an error, later calls fail. Safe
        from another thread; call it on every rank's communicator when one
        rank fails, so that no rank waits forever."""
        self._handle.abort()

    def check_async_error(self):
        """Raises RuntimeError with the error NCCL found while collectives
        ran (a peer failed, the network broke), if any."""
        self._handle.check_async_error()

    def __repr__(self):
        label = f" '{self.name}'" if self.name else ""
        return f"Communicator{label}(rank {self.rank} of {self.size}, cuda:{self.device})"


def _handles(communicators, entry):
    if communicators is None:
        return []
    handles = []
    for i, comm in enumerate(communicators):
        if not isinstance(comm, Communicator):
            raise TypeError(f"entry '{entry}': communicators[{i}]: expected a "
                            f"teq.runtime.Communicator, got {type(comm).__name__}")
        handles.append(comm._handle)
    return handles


def _check_file(path):
    if not os.path.exists(path):
        raise FileNotFoundError(f"artifact '{path}': no such file")


class Gemm:
    """One GEMM of the artifact (manifest ``gemms``), in cuBLAS's
    column-major terms: D[m x n] = op(A) op(B). ``shares_plan_of``: the id
    of the earlier GEMM of the same problem whose cuBLASLt plan it runs
    (set up once), or None."""

    def __init__(self, info, manifest):
        self.__dict__.update(info)
        self.manifest = manifest or {}
        # Keys the C API does not model (alpha, compute_type, bias_type).
        for key in ("alpha", "compute_type", "bias_type", "algo"):
            if key in self.manifest and key not in self.__dict__:
                self.__dict__[key] = self.manifest[key]

    def __repr__(self):
        return (
            f"Gemm({self.id} {self.name!r}: m={self.m} n={self.n} k={self.k} "
            f"{'T' if self.transa else 'N'}{'T' if self.transb else 'N'} "
            f"{self.a_type} x {self.b_type} -> {self.d_type}, "
            f"scales {self.a_scale_mode}/{self.b_scale_mode}, epilogue {self.epilogue}"
            + ("" if self.shares_plan_of is None else f", the plan of GEMM {self.shares_plan_of}")
            + ")"
        )


class Buffer:
    """One device buffer of an entry (an element of its flat buffer list)."""

    def __init__(self, info):
        self.index = info["index"]
        self.arg_index = info["arg_index"]
        self.buffer_index = info["buffer_index"]
        self.name = info["name"]
        self.encoding = info["encoding"]
        self.shape = tuple(info["shape"])
        self.valid_shape = tuple(info["valid_shape"])
        self.bytes = info["bytes"]
        self.transposed = info["transposed"]
        self.scale_layout = info["scale_layout"]

    @property
    def element_bits(self):
        """Bits of one stored element (FP8/FP4 pairs/E8M0: 8)."""
        return _DTYPE_BITS.get(self.encoding, 8)

    def __repr__(self):
        extra = " transposed" if self.transposed else ""
        if self.valid_shape != self.shape:
            extra += f" valid {list(self.valid_shape)}"
        if self.scale_layout:
            extra += f" {self.scale_layout}"
        return f"Buffer({self.name} {self.encoding}{list(self.shape)}{extra}, {self.bytes} B)"


class Arg:
    """One argument of an entry: a tensor (one buffer) or a quantized tensor
    (``is_proto``: several buffers with TE's names)."""

    def __init__(self, info, buffers, manifest):
        self.index = info["index"]
        self.name = info["name"]
        self.kind = info["kind"]  # "input", "output" or "inout"
        self.is_proto = info["is_proto"]
        self.dtype = info["dtype"]
        self.shape = tuple(info["shape"])
        self.bytes = info["bytes"]
        self.buffers = list(buffers)
        self._buffer_names = [b.name for b in self.buffers]
        self.quantizer_kind = info["quantizer_kind"]
        self.usage = info["usage"]
        self.scale_layout = info["scale_layout"]
        self.quantizer = json.loads(info["quantizer_json"]) if info["quantizer_json"] else None
        # What the argument is to a training step (the manifest's "role" and
        # "of", docs/Artifact.md): None where the manifest does not say.
        self.role = info.get("role") or None
        self.role_of = info.get("role_of") or None
        # An output that is input argument `alias_of` returned as is: no
        # buffers of its own; `alias` is that argument (Entry sets it).
        self.alias_of = info.get("alias_of") or None
        self.alias = None
        self.manifest = manifest or {}
        self.computed_by = self.manifest.get("computed_by")
        self.text = self.manifest.get("proto", {}).get("text") if self.is_proto else None

    @property
    def buffer_names(self):
        return list(self._buffer_names)

    @property
    def value_buffers(self):
        """The buffers a value of this argument has: its own, or for an alias
        output those of the argument it is."""
        return self.alias.buffers if self.alias is not None else self.buffers

    def type_text(self):
        if self.is_proto:
            return (
                f"proto {self.dtype}{list(self.shape)} {self.quantizer_kind} "
                f"{self.usage} ({', '.join(b.name for b in self.value_buffers)})"
            )
        return f"{self.dtype}{list(self.shape)}"

    def __repr__(self):
        alias = f" = {self.alias_of}" if self.alias_of else ""
        return f"Arg({self.kind} {self.name}: {self.type_text()}{alias})"


class QuantizedTensor:
    """A quantized tensor: the buffers of a proto argument, each a tensor of
    the framework in use, under TE's names (``qt.data``, ``qt.scale_inv``,
    ``qt["columnwise_data"]``; TE's underscored ``qt._data`` too).
    ``shape``/``dtype`` are the logical high-precision shape and dtype;
    ``quantizer``, ``usage`` and ``scale_layout`` come from the manifest.
    Calls update its buffers in place; the object itself is not changed."""

    def __init__(self, buffers, *, shape=None, dtype=None, quantizer=None, usage=None,
                 scale_layout=None, text=None):
        self.buffers = dict(buffers)
        self.shape = tuple(shape) if shape is not None else None
        self.dtype = dtype
        self.quantizer = quantizer
        self.usage = usage
        self.scale_layout = scale_layout
        self.text = text

    @classmethod
    def for_arg(cls, arg, buffers):
        return cls(buffers, shape=arg.shape, dtype=arg.dtype, quantizer=arg.quantizer,
                   usage=arg.usage, scale_layout=arg.scale_layout, text=arg.text)

    def __getattr__(self, name):
        # Only called for names that are not attributes: the buffers.
        buffers = self.__dict__.get("buffers", {})
        if name in buffers:
            return buffers[name]
        if name.startswith("_") and name[1:] in buffers:  # TE's _data, _scale_inv
            return buffers[name[1:]]
        raise AttributeError(
            f"QuantizedTensor has no buffer '{name}' (buffers: {', '.join(buffers)})")

    def __getitem__(self, name):
        return self.buffers[name]

    def __iter__(self):
        return iter(self.buffers.values())

    def __len__(self):
        return len(self.buffers)

    def keys(self):
        return self.buffers.keys()

    def items(self):
        return self.buffers.items()

    def __repr__(self):
        parts = []
        for name, t in self.buffers.items():
            shape = list(getattr(t, "shape", ()))
            parts.append(f"{name}={_dtype_name(t)}{shape}")
        kind = (self.quantizer or {}).get("kind", "?")
        shape = list(self.shape) if self.shape is not None else "?"
        return f"QuantizedTensor({self.dtype}{shape} {kind} {self.usage}: {', '.join(parts)})"


def _dtype_name(t):
    dtype = getattr(t, "dtype", None)
    text = str(dtype)
    return text[6:] if text.startswith("torch.") else text


class Entry:
    """One entry point of an artifact; call it to run it."""

    # Handles are shared, not copied (nn.Module deepcopy, copy.copy).
    def __copy__(self):
        return self

    def __deepcopy__(self, memo):
        return self

    def __init__(self, artifact, handle, manifest):
        self.artifact = artifact
        self._handle = handle
        self.name = handle.name
        self.manifest = manifest or {}
        self.symbol = self.manifest.get("symbol", f"teq_entry_{self.name}")
        self.workspace_bytes = handle.workspace_bytes
        self.buffers = [Buffer(handle.buffer_info(i)) for i in range(handle.num_buffers)]
        margs = self.manifest.get("args", [])
        self.args = []
        for i in range(handle.num_args):
            info = handle.arg_info(i)
            first, count = info["first_buffer"], info["num_buffers"]
            self.args.append(Arg(info, self.buffers[first:first + count],
                                 margs[i] if i < len(margs) else None))
        self.temporaries = list(self.manifest.get("temporaries", []))
        # The parallel groups a call needs one communicator each for.
        self.groups = list(handle.groups())
        self._labels = []
        for b in self.buffers:
            arg = self.args[b.arg_index]
            if arg.is_proto:
                self._labels.append(
                    f"entry '{self.name}': argument '{arg.name}' buffer '{b.name}'")
            else:
                self._labels.append(f"entry '{self.name}': argument '{arg.name}'")
        # What every call needs, computed once: the arguments a call takes
        # and returns, and where each argument's value comes from (the
        # call's inputs or its outputs, by position).
        self._inputs = [a for a in self.args if a.kind != "output"]
        self._outputs = [a for a in self.args if a.kind == "output"]
        self._input_names = {a.name: i for i, a in enumerate(self._inputs)}
        # Alias outputs: the input each one is (by position among the
        # inputs); they pass no buffers.
        self._aliases = {}
        for i, a in enumerate(self._outputs):
            if a.alias_of is not None:
                j = self._input_names[a.alias_of]
                a.alias = self._inputs[j]
                self._aliases[i] = j
        positions = {a.index: (False, i) for i, a in enumerate(self._inputs)}
        positions.update({a.index: (True, i) for i, a in enumerate(self._outputs)})
        self._sources = [positions[a.index] + (a,) for a in self.args
                         if a.alias_of is None]

    @property
    def inputs(self):
        """The arguments a call takes: ``input`` and ``inout``, in order."""
        return list(self._inputs)

    @property
    def outputs(self):
        """The arguments a call returns (``output``), in order."""
        return list(self._outputs)

    @property
    def inouts(self):
        return [a for a in self.args if a.kind == "inout"]

    def signature(self):
        ins = ", ".join(
            f"{a.name}: {'inout ' if a.kind == 'inout' else ''}{a.type_text()}" for a in self.inputs)
        outs = ", ".join(f"{a.name}: {a.alias_of if a.alias_of else a.type_text()}"
                         for a in self.outputs)
        return f"{self.name}({ins}) -> ({outs})"

    def __repr__(self):
        return f"<teq.runtime.Entry {self.signature()}>"

    # -- calling ------------------------------------------------------------

    def _bind(self, args, kwargs):
        """The values of the input/inout arguments, in order."""
        inputs = self._inputs
        if not kwargs and len(args) == len(inputs):
            return args
        if len(args) > len(inputs):
            raise TypeError(
                f"entry '{self.name}' takes {len(inputs)} arguments "
                f"({', '.join(a.name for a in inputs)}), got {len(args)}")
        values = list(args) + [None] * (len(inputs) - len(args))
        given = [True] * len(args) + [False] * (len(inputs) - len(args))
        names = self._input_names
        for key, value in kwargs.items():
            if key not in names:
                outputs = {a.name for a in self._outputs}
                hint = " (an output: pass it with out=)" if key in outputs else ""
                raise TypeError(
                    f"entry '{self.name}' has no argument '{key}'{hint} "
                    f"(arguments: {', '.join(names)})")
            i = names[key]
            if given[i]:
                raise TypeError(f"entry '{self.name}': argument '{key}' given twice")
            values[i], given[i] = value, True
        missing = [inputs[i] for i in range(len(inputs)) if not given[i]]
        if missing:
            raise TypeError(
                f"entry '{self.name}' missing argument(s) "
                + ", ".join(f"'{a.name}' ({a.kind} {a.type_text()})" for a in missing)
                + ("; inout arguments (scale, amax history, rng_state) are the caller's"
                   " tensors and must be passed" if any(a.kind == "inout" for a in missing)
                   else ""))
        return values

    def _bind_out(self, out):
        outputs = self._outputs
        if out is None:
            return [None] * len(outputs)
        if type(out) in (tuple, list) and len(out) == len(outputs):
            return out
        if isinstance(out, dict):
            names = {a.name: i for i, a in enumerate(outputs)}
            values = [None] * len(outputs)
            for key, value in out.items():
                if key not in names:
                    raise TypeError(f"entry '{self.name}': out has no output '{key}' "
                                    f"(outputs: {', '.join(names)})")
                values[names[key]] = value
            return values
        if _is_tensor_like(out) or isinstance(out, QuantizedTensor):
            out = (out,)
        out = list(out)
        if len(out) != len(outputs):
            raise TypeError(f"entry '{self.name}': out has {len(out)} values, the entry has "
                            f"{len(outputs)} outputs ({', '.join(a.name for a in outputs)})")
        return out

    def _flatten(self, arg, value):
        """The tensors of one argument's buffers, in order."""
        where = f"entry '{self.name}': argument '{arg.name}'"
        if not arg.is_proto:
            if isinstance(value, (QuantizedTensor, dict)):
                raise ValueError(f"{where}: expected a tensor {arg.type_text()}, "
                                 f"got a quantized tensor")
            if not _is_tensor_like(value):
                raise ValueError(f"{where}: expected a CUDA tensor {arg.type_text()} "
                                 f"(torch.Tensor, cupy.ndarray, ... with __dlpack__), "
                                 f"got {type(value).__name__}")
            return [value]
        if isinstance(value, QuantizedTensor):
            buffers = value.buffers
        elif isinstance(value, dict):
            buffers = value
        elif isinstance(value, (list, tuple)) and len(value) == len(arg.buffers):
            return list(value)
        else:
            raise ValueError(
                f"{where}: expected a QuantizedTensor ({arg.type_text()}), got "
                f"{type(value).__name__}")
        names = arg._buffer_names
        if len(buffers) == len(names):
            try:
                return [buffers[n] for n in names]
            except KeyError:
                pass
        raise ValueError(
            f"{where}: expected a quantized tensor with buffers {', '.join(names)} "
            f"({arg.text or arg.type_text()}), got buffers {', '.join(buffers)}")

    def __call__(self, *args, out=None, stream=None, synchronize=False,
                 update_state=False, communicators=None, graph=False, **kwargs):
        """Runs the entry; returns its outputs as a tuple (tensors and
        :class:`QuantizedTensor`). ``out``: outputs to write (a sequence with
        one value or None per output, or a dict by name); ``stream``: a
        CUstream handle (int; 0 is the legacy default stream) or None for the
        framework's current stream.

        Entries are functional: state they update (delayed scaling's amax
        history and scale) comes back as the output ``<name>.updated``. With
        ``update_state=True`` each such output is also copied, on the same
        stream, into the caller's input ``<name>``, so the caller's state
        tensors are updated in place (PyTorch tensors, current stream).

        ``communicators``: one :class:`Communicator` per group of
        ``entry.groups``, in that order, for entries that communicate.

        ``graph=True``: run the entry as a CUDA graph, captured on the first
        call with a set of buffer addresses and replayed on later calls with
        the same ones (results bit for bit those of a direct call; one graph
        launch instead of the host work of each kernel). Pass the same
        ``out=`` tensors (and inputs) to replay: new addresses capture a new
        graph, up to 16 per entry, then the entry runs directly. Each graph
        keeps workspaces of its own while the artifact is loaded. Refused for
        entries that communicate."""
        comms = _handles(communicators, self.name)
        if update_state and stream is not None:
            raise ValueError(f"entry '{self.name}': update_state=True copies on the "
                             "current stream; do not pass stream=")
        values = self._bind(args, kwargs)
        outs = self._bind_out(out)
        device = self.artifact.device
        torch = _torch_if_loaded()
        framework = _framework(values, outs, torch)
        # The device of every input that is not a PyTorch tensor first
        # (before anything is allocated); a PyTorch tensor's device is
        # checked where it is exported, with its dtype and shape.
        if framework != "torch" or not self.artifact.loaded:
            for arg, value in zip(self._inputs, values):
                for t in self._flatten(arg, value):
                    _check_device(t, self._labels[arg.buffers[0].index]
                                  if not arg.is_proto
                                  else f"entry '{self.name}': argument '{arg.name}'",
                                  device)
        if not self.artifact.loaded:
            raise RuntimeError(
                f"entry '{self.name}': artifact '{self.artifact.path}' was opened with "
                f"teq.runtime.inspect() (manifest only); load it with "
                f"teq.runtime.load() to run its entries")
        if update_state and framework != "torch":
            raise ValueError(f"entry '{self.name}': update_state=True needs PyTorch "
                             "tensors (it copies on PyTorch's current stream)")
        results = list(outs)
        for i, value in enumerate(results):
            if i in self._aliases:
                if value is not None:
                    self._alias_given(i)
                results[i] = values[self._aliases[i]]
            elif value is None:
                results[i] = _allocate(self._outputs[i], framework, device)
        flat = []
        tensor_type = torch.Tensor if torch is not None else ()
        for is_output, i, arg in self._sources:
            value = results[i] if is_output else values[i]
            if isinstance(value, tensor_type) and not arg.is_proto:
                flat.append(value)
            elif type(value) is QuantizedTensor and len(value.buffers) == len(arg.buffers):
                buffers = value.buffers
                try:
                    flat.extend([buffers[n] for n in arg._buffer_names])
                except KeyError:
                    flat.extend(self._flatten(arg, value))
            else:
                flat.extend(self._flatten(arg, value))
        self._run(flat, framework, stream, synchronize, comms, graph)
        if update_state:
            self._copy_updated_state(values, results)
        return tuple(results)

    def _alias_given(self, i):
        arg = self._outputs[i]
        raise ValueError(f"entry '{self.name}': output '{arg.name}' is argument "
                         f"'{arg.alias_of}' itself (alias_of): it has no buffers; pass "
                         f"None for it in out=")

    def _run(self, flat, framework, stream, synchronize, comms, graph):
        """Runs the entry on its flat buffer list. PyTorch tensors on the
        stream PyTorch is working on are exported directly (no DLPack stream
        handshake: their producers are already ordered before the entry);
        on any other stream through the protocol, which makes that stream
        wait for PyTorch's."""
        producer_stream = False
        if framework == "torch":
            current = _torch_current_stream(self.artifact.device)
            if stream is None:
                stream, producer_stream = current, True
            else:
                producer_stream = int(stream) == current
        elif stream is None:
            stream = _current_stream(framework, self.artifact.device)
        if not producer_stream:
            flat = _exportable(flat)
        self._handle.run_dlpack(flat, self._labels, stream, ALIGNMENT, synchronize, False,
                                comms, graph, producer_stream)

    def _copy_updated_state(self, values, results):
        """Copies every output ``<name>.updated`` into the input ``<name>``."""
        given = {arg.name: value for arg, value in zip(self._inputs, values)}
        for arg, result in zip(self._outputs, results):
            if not arg.name.endswith(".updated") or arg.alias_of is not None:
                continue
            target = given.get(arg.name[:-len(".updated")])
            if target is not None:
                target.copy_(result)

    def check(self, *args, out, **kwargs):
        """The checks of a call (arguments, outputs, every buffer's device,
        dtype, shape, strides, size and alignment) without running it;
        ``out`` is required. Raises ValueError/TypeError as a call would."""
        values = self._bind(args, kwargs)
        outs = self._bind_out(out)
        for i, o in enumerate(outs):
            if i in self._aliases and o is not None:
                self._alias_given(i)
        if any(o is None for i, o in enumerate(outs) if i not in self._aliases):
            raise TypeError(f"entry '{self.name}': check() needs every output in out= "
                            f"(None for an alias output)")
        by_index = {a.index: v for a, v in zip(self._inputs, values)}
        by_index.update({a.index: v for a, v in zip(self._outputs, outs)})
        flat = []
        for arg in self.args:
            if arg.alias_of is None:
                flat.extend(self._flatten(arg, by_index[arg.index]))
        self._handle.run_dlpack(_exportable(flat), self._labels, None, ALIGNMENT, False, True)

    def run_buffers(self, buffers, stream=None, synchronize=False, communicators=None,
                    graph=False):
        """Runs the entry on its flat buffer list (one tensor per buffer, in
        manifest order: inputs, outputs and inouts as the arguments come);
        the checks, the stream, the communicators and ``graph`` are as for a
        call."""
        comms = _handles(communicators, self.name)
        buffers = list(buffers)
        torch = _torch_if_loaded()
        self._run(buffers, _framework(buffers, (), torch), stream, synchronize, comms, graph)

    def allocate_outputs(self, like=None):
        """Fresh output values (tensors / QuantizedTensor) for a call, with
        the framework of ``like`` (default: torch if importable); None for
        an alias output (it is its input)."""
        framework = _framework([like] if like is not None else [], (), _torch_if_loaded())
        return tuple(None if a.alias_of is not None
                     else _allocate(a, framework, self.artifact.device) for a in self._outputs)


class Artifact:
    """A loaded (or inspected) artifact: its entries, GEMMs and manifest."""

    # Handles are shared, not copied (nn.Module deepcopy, copy.copy).
    def __copy__(self):
        return self

    def __deepcopy__(self, memo):
        return self

    def __init__(self, handle, ctx):
        self._handle = handle
        self._context = ctx
        self.path = handle.path
        self.loaded = handle.loaded
        self.device = ctx.ordinal if ctx is not None else None
        self.target = handle.target
        self.device_code = handle.device_code
        self.manifest = json.loads(handle.manifest_json)
        mentries = {e.get("name"): e for e in self.manifest.get("entries", [])}
        self.entries = {}
        for i in range(handle.num_entries):
            h = handle.entry(i)
            self.entries[h.name] = Entry(self, h, mentries.get(h.name))
        mgemms = self.manifest.get("gemms", [])
        self.gemms = [Gemm(handle.gemm_info(i), mgemms[i] if i < len(mgemms) else None)
                      for i in range(handle.num_gemms)]

    def __getitem__(self, name):
        try:
            return self.entries[name]
        except KeyError:
            raise KeyError(f"artifact '{self.path}': no entry '{name}' "
                           f"(entries: {', '.join(self.entries)})") from None

    def __getattr__(self, name):
        entries = self.__dict__.get("entries")
        if entries is not None and name in entries:
            return entries[name]
        raise AttributeError(f"'Artifact' object has no attribute '{name}'")

    def __iter__(self):
        return iter(self.entries.values())

    def __len__(self):
        return len(self.entries)

    def __contains__(self, name):
        return name in self.entries

    @property
    def context(self):
        return self._context

    def synchronize(self):
        """Waits for the context's own stream (calls on the framework's
        stream are waited for with the framework, e.g.
        torch.cuda.synchronize())."""
        if self._context is not None:
            self._context.synchronize()

    def describe(self):
        lines = [f"artifact {self.path}: target {self.target}, device code "
                 f"{self.device_code}, {len(self.entries)} entries, {len(self.gemms)} GEMMs"
                 + ("" if self.loaded else " (inspected)")]
        for e in self.entries.values():
            lines.append(f"  {e.signature()}"
                         + (f"  [workspace {e.workspace_bytes} B]" if e.workspace_bytes else "")
                         + "".join(f"  [group {g['name']} of {g['size']}]" for g in e.groups))
            for a in e.args:
                alias = f" = argument '{a.alias_of}' itself (alias_of)" if a.alias_of else ""
                lines.append(f"    {a.kind:6} {a.name}: {a.type_text()}{alias}")
                if a.is_proto:
                    for b in a.buffers:
                        lines.append(f"             {b!r}")
        for g in self.gemms:
            lines.append(f"  {g!r}")
        return "\n".join(lines)

    def __repr__(self):
        return (f"<teq.runtime.Artifact '{self.path}' {self.target}: "
                f"{', '.join(self.entries)}{'' if self.loaded else ' (inspected)'}>")

    def __str__(self):
        return self.describe()


# -- frameworks ----------------------------------------------------------------


def _framework(values, outs, torch):
    """'torch', 'cupy' or None from the values given (QuantizedTensor
    buffers included); else 'torch' if it imports, else 'cupy'."""
    for group in (values, outs):
        for v in group:
            if torch is not None and isinstance(v, torch.Tensor):
                return "torch"
            if isinstance(v, QuantizedTensor):
                v = next(iter(v.buffers.values()), None)
            elif isinstance(v, dict):
                v = next(iter(v.values()), None)
            elif isinstance(v, (list, tuple)):
                v = v[0] if v else None
            if v is None:
                continue
            module = _module_of(v)
            if module in ("torch", "cupy"):
                return module
    return None


def _allocate(arg, framework, device):
    if not arg.is_proto:
        return _empty(arg.buffers[0], framework, device)
    return QuantizedTensor.for_arg(
        arg, {b.name: _empty(b, framework, device) for b in arg.buffers})


# A training pair (forward entry + backward entry), in its own module.
from .training_pair import (  # noqa: E402,F401
    BACKWARD_ARG_ROLES,
    BACKWARD_RESULT_ROLES,
    FORWARD_ARG_ROLES,
    FORWARD_RESULT_ROLES,
    TrainingPair,
)
