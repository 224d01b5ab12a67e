"""TEQ artifacts in PyTorch: custom ops and a Linear module.

::

    import torch, teq.torch
    ops = teq.torch.register("pair.so")          # torch.ops.teq_pair.fwd, .bwd
    y, saved_x, saved_w = ops.fwd(x, w)          # QuantizedTensor for protos

    fc1 = teq.torch.Linear.from_artifact("pair.so", forward="fwd", backward="bwd")
    step = torch.compile(lambda x: fc1(x).float().sum(), fullgraph=True)
    step(x).backward()                           # fc1.weight.grad

``register`` makes every entry of an artifact a ``torch.library`` operator
``<namespace>::<entry>`` whose arguments are the entry's input and inout
buffers (a quantized argument is one Tensor per buffer, ``<arg>__<buffer>``)
and whose results are its output buffers; inout arguments are declared
mutated (``Tensor(a!)``). Each has a fake (meta) implementation computed from
the manifest, so ``torch.compile(fullgraph=True)`` traces through it as one
opaque node. The CUDA implementation runs the entry on PyTorch's current
stream, zero copy (teq.runtime).

``Linear.from_artifact`` ties a forward entry and a backward entry into an
``nn.Module`` through a ``torch.autograd.Function`` (teq.runtime.TrainingPair
says how the arguments map, explicitly): weight and bias are parameters,
delayed-scaling state and ``main_grad`` are buffers.

``Module.from_artifact`` / ``Module.from_program`` do the same for a whole
compiled ``teq.Program`` (``<name>_forward``, ``<name>_backward`` and, for
DelayedScaling, ``<name>_update``), with the roles read from the names the
manifest gives every argument and result (``ProgramPair``, which needs no
torch: this module imports without it, and only its torch parts raise).
"""

import hashlib
import math
import os
import re
import tempfile
import threading

try:
    import torch
except ImportError as _error:  # ProgramPair (roles from names) needs no torch
    torch = None
    _TORCH_IMPORT_ERROR = _error

from teq import runtime as _runtime
from teq.runtime import QuantizedTensor, TrainingPair

__all__ = ["EntryOp", "Linear", "Module", "ProgramPair", "Registered", "delayed_scaling_update",
           "register"]


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
_registered = {}  # namespace -> Registered
_artifacts = {}  # (realpath, device) -> teq.runtime.Artifact


def _load(path, device):
    key = (os.path.realpath(os.fspath(path)), _runtime._ordinal(device))
    with _lock:
        art = _artifacts.get(key)
        if art is None:
            art = _runtime.load(path, device=key[1])
            _artifacts[key] = art
        return art


class EntryOp:
    """One entry as a torch operator. Call it with the entry's inputs
    (tensors; QuantizedTensor for quantized arguments); it returns the
    outputs like teq.runtime's call (tensors and QuantizedTensor)."""

    # Shared, not copied (nn.Module deepcopy).
    def __copy__(self):
        return self

    def __deepcopy__(self, memo):
        return self

    def __init__(self, entry, namespace, lib):
        self.entry = entry
        self.name = _ident(entry.name)
        self.qualname = f"{namespace}::{self.name}"
        self.inputs = entry.inputs
        self.outputs = entry.outputs
        params = []
        alias = 0
        self.param_labels = []
        for arg in self.inputs:
            for b in arg.buffers:
                pname = _ident(arg.name if not arg.is_proto else f"{arg.name}__{b.name}")
                if arg.kind == "inout":
                    params.append(f"Tensor(a{alias}!) {pname}")
                    alias += 1
                else:
                    params.append(f"Tensor {pname}")
                self.param_labels.append((arg, b))
        self.num_results = sum(len(a.buffers) for a in self.outputs)
        if self.num_results == 0:
            ret = "()"
        elif self.num_results == 1:
            ret = "Tensor"
        else:
            ret = "(" + ", ".join(["Tensor"] * self.num_results) + ")"
        self.schema = f"{self.name}({', '.join(params)}) -> {ret}"
        lib.define(self.schema)
        lib.impl(self.name, self._impl, "CUDA")
        register_fake = getattr(torch.library, "register_fake", None)
        if register_fake is not None:
            register_fake(self.qualname, self._fake, lib=lib)
        else:  # torch < 2.4
            torch.library.impl_abstract(self.qualname, self._fake, lib=lib)
        self.op = getattr(getattr(torch.ops, namespace), self.name).default

    # -- kernels ----------------------------------------------------------------

    def _result_buffers(self):
        return [b for a in self.outputs for b in a.buffers]

    def _check(self, tensors):
        """Shape and dtype of every input buffer, also under FakeTensor, so a
        wrong call fails at trace time with the argument's name."""
        entry = self.entry.name
        if len(tensors) != len(self.param_labels):
            raise ValueError(f"entry '{entry}': expected {len(self.param_labels)} tensors, "
                             f"got {len(tensors)}")
        for t, (arg, b) in zip(tensors, self.param_labels):
            where = (f"entry '{entry}': argument '{arg.name}'"
                     + (f" buffer '{b.name}'" if arg.is_proto else ""))
            if tuple(t.shape) != b.shape:
                raise ValueError(f"{where}: expected shape {list(b.shape)}, got {list(t.shape)}")
            if not _dtype_ok(b.encoding, t.dtype):
                raise ValueError(f"{where}: expected dtype {torch_dtype(b.encoding)} "
                                 f"({b.encoding}), got {t.dtype}")

    def _impl(self, *tensors):
        self._check(tensors)
        device = tensors[0].device if tensors else torch.device("cuda", self.entry.artifact.device)
        results = [torch.empty(b.shape, dtype=torch_dtype(b.encoding), device=device)
                   for b in self._result_buffers()]
        flat = []
        it_in, it_out = iter(tensors), iter(results)
        for arg in self.entry.args:
            source = it_out if arg.kind == "output" else it_in
            for _ in arg.buffers:
                flat.append(next(source))
        stream = torch.cuda.current_stream(device).cuda_stream
        self.entry.run_buffers(flat, stream=int(stream))
        return self._pack(results)

    def _fake(self, *tensors):
        self._check(tensors)
        device = tensors[0].device if tensors else torch.device("cuda", self.entry.artifact.device)
        results = [torch.empty(b.shape, dtype=torch_dtype(b.encoding), device=device)
                   for b in self._result_buffers()]
        return self._pack(results)

    def _pack(self, results):
        if self.num_results == 0:
            return None
        if self.num_results == 1:
            return results[0]
        return tuple(results)

    # -- structured calls ---------------------------------------------------------

    def flatten(self, values):
        """The op's tensor arguments from one value per input argument."""
        if len(values) != len(self.inputs):
            raise TypeError(f"entry '{self.entry.name}' takes {len(self.inputs)} arguments "
                            f"({', '.join(a.name for a in self.inputs)}), got {len(values)}")
        flat = []
        for arg, value in zip(self.inputs, values):
            if not arg.is_proto:
                if isinstance(value, (QuantizedTensor, dict, list, tuple)):
                    raise ValueError(f"entry '{self.entry.name}': argument '{arg.name}': "
                                     f"expected a tensor {arg.type_text()}")
                flat.append(value)
            elif isinstance(value, (QuantizedTensor, dict)):
                buffers = value.buffers if isinstance(value, QuantizedTensor) else value
                for b in arg.buffers:
                    if b.name not in buffers:
                        raise ValueError(
                            f"entry '{self.entry.name}': argument '{arg.name}': expected a "
                            f"quantized tensor with buffers {', '.join(arg.buffer_names)}, "
                            f"got {', '.join(buffers)}")
                    flat.append(buffers[b.name])
            elif isinstance(value, (list, tuple)) and len(value) == len(arg.buffers):
                flat.extend(value)
            else:
                raise ValueError(f"entry '{self.entry.name}': argument '{arg.name}': expected "
                                 f"a QuantizedTensor ({arg.type_text()})")
        return flat

    def unflatten(self, results):
        """One value per output argument (tensor / QuantizedTensor) from the
        op's results."""
        if self.num_results == 0:
            return ()
        if self.num_results == 1:
            results = (results,)
        values, i = [], 0
        for arg in self.outputs:
            n = len(arg.buffers)
            if arg.is_proto:
                values.append(QuantizedTensor.for_arg(
                    arg, {b.name: results[i + k] for k, b in enumerate(arg.buffers)}))
            else:
                values.append(results[i])
            i += n
        return tuple(values)

    def __call__(self, *values):
        return self.unflatten(self.op(*self.flatten(values)))

    def __repr__(self):
        return f"<teq.torch.EntryOp {self.qualname}: {self.schema}>"


class Registered:
    """The operators of one artifact: ``ops.<entry>`` / ``ops["entry"]`` are
    EntryOp (structured calls); ``ops.<entry>.op`` is the torch op
    (``torch.ops.<namespace>.<entry>.default``)."""

    # Shared, not copied (nn.Module deepcopy).
    def __copy__(self):
        return self

    def __deepcopy__(self, memo):
        return self

    def __init__(self, artifact, namespace):
        self.artifact = artifact
        self.namespace = namespace
        self.library = torch.library.Library(namespace, "FRAGMENT")
        self.ops = {}
        for entry in artifact:
            self.ops[entry.name] = EntryOp(entry, namespace, self.library)

    def __getitem__(self, name):
        try:
            return self.ops[name]
        except KeyError:
            raise KeyError(f"artifact '{self.artifact.path}': no entry '{name}' "
                           f"(entries: {', '.join(self.ops)})") from None

    def __getattr__(self, name):
        ops = self.__dict__.get("ops")
        if ops is not None and name in ops:
            return ops[name]
        raise AttributeError(f"'Registered' object has no attribute '{name}'")

    def __iter__(self):
        return iter(self.ops.values())

    def __repr__(self):
        return f"<teq.torch.Registered {self.namespace}: {', '.join(self.ops)}>"


def default_namespace(path):
    """``teq_<file stem>``, e.g. ``teq_mlp`` for ``/x/mlp.so``."""
    stem = os.path.basename(os.fspath(path))
    stem = stem[:-3] if stem.endswith(".so") else stem
    return "teq_" + _ident(stem).strip("_")


def register(artifact, namespace=None, device=0):
    """Registers every entry of `artifact` (a path or a loaded
    teq.runtime.Artifact) as an operator ``<namespace>::<entry>``. The same
    artifact registers once (later calls return the same Registered); a
    namespace taken by another artifact is a ValueError."""
    _require_torch("teq.torch.register")
    if isinstance(artifact, _runtime.Artifact):
        art = artifact
        if not art.loaded:
            raise ValueError(f"artifact '{art.path}' was only inspected; register a loaded "
                             f"artifact (teq.runtime.load) or a path")
    else:
        art = _load(artifact, device)
    explicit = namespace is not None
    namespace = namespace or default_namespace(art.path)
    if not re.fullmatch(r"[A-Za-z_][A-Za-z0-9_]*", namespace):
        raise ValueError(f"namespace '{namespace}' is not an identifier")
    real = os.path.realpath(art.path)
    with _lock:
        done = _registered.get(namespace)
        if (done is not None and not explicit
                and os.path.realpath(done.artifact.path) != real):
            # Two files whose names read alike (mlp-x.so, mlp_x.so): the
            # default namespace of the second one gets its path's hash.
            namespace += "_" + hashlib.sha1(real.encode()).hexdigest()[:8]
            done = _registered.get(namespace)
        if done is not None:
            if (os.path.realpath(done.artifact.path) == real
                    and done.artifact.device == art.device):
                return done
            raise ValueError(f"namespace '{namespace}' already holds the ops of artifact "
                             f"'{done.artifact.path}' (cuda:{done.artifact.device}); pass "
                             f"another namespace= for '{art.path}'")
        reg = Registered(art, namespace)
        _registered[namespace] = reg
        return reg


# -- Linear ---------------------------------------------------------------------


class _Plan:
    """What _LinearFunction needs, as plain Python values (looked up by id,
    so that torch.compile sees only an int constant)."""

    def __init__(self, pair, fwd_op, bwd_op, state_names):
        self.pair = pair
        self.fwd_op = fwd_op
        self.bwd_op = bwd_op
        self.state_names = tuple(state_names)
        self.device = fwd_op.entry.artifact.device
        self.state_index = {n: i for i, n in enumerate(self.state_names)}
        self.num_outputs = pair.num_outputs
        self.has_bias = pair.bias is not None
        self.has_main_grad = pair.main_grad is not None
        self.forward_args = pair.forward_args
        self.forward_results = pair.forward_results
        self.backward_args = pair.backward_args
        self.backward_results = pair.backward_results
        # Forward-updated states, in result order (returned by the Function).
        self.forward_updates = tuple(n for r, n in pair.forward_results if r == "state")
        # States the backward reads (saved for backward).
        self.backward_reads = tuple(dict.fromkeys(n for r, n in pair.backward_args if r == "state"))
        # Forward arguments the backward reads (saved only then).
        self.backward_uses = frozenset(r for r, _ in pair.backward_args
                                       if r in ("input", "weight", "bias"))
        self.saved_buffers = tuple(len(a.buffers) for (r, _), a in
                                   zip(pair.forward_results, pair.forward.outputs) if r == "saved")
        self.output_dtypes = tuple(_TORCH_DTYPES[a.dtype] for (r, _), a in
                                   zip(pair.forward_results, pair.forward.outputs)
                                   if r == "output")
        self.output_shapes = tuple(a.shape for (r, _), a in
                                   zip(pair.forward_results, pair.forward.outputs)
                                   if r == "output")


_plans = []


class _LinearFunction(_FunctionBase):
    @staticmethod
    def forward(ctx, plan_id, x, weight, bias, main_grad, *state):
        plan = _plans[plan_id]
        values = []
        for role, name in plan.forward_args:
            if role == "input":
                values.append(x)
            elif role == "weight":
                values.append(weight)
            elif role == "bias":
                values.append(bias)
            else:
                values.append(state[plan.state_index[name]])
        flat = plan.fwd_op.flatten(values)
        outputs, saved, updates = _split_forward_results(
            plan.fwd_op, plan.fwd_op.op(*flat), plan.forward_results)
        reads = [state[plan.state_index[n]] for n in plan.backward_reads]
        ctx.plan_id = plan_id
        ctx.save_for_backward(x if "input" in plan.backward_uses else None,
                              weight if "weight" in plan.backward_uses else None,
                              bias if "bias" in plan.backward_uses else None,
                              main_grad, *reads, *saved)
        if updates:
            ctx.mark_non_differentiable(*updates)
        return tuple(outputs) + tuple(updates)

    @staticmethod
    def backward(ctx, *grads):
        plan = _plans[ctx.plan_id]
        saved = ctx.saved_tensors
        x, weight, bias, main_grad = saved[:4]
        nreads = len(plan.backward_reads)
        reads = dict(zip(plan.backward_reads, saved[4:4 + nreads]))
        saved_flat = saved[4 + nreads:]
        dys = []
        for k in range(plan.num_outputs):
            g = grads[k]
            if g is None:
                g = torch.zeros(plan.output_shapes[k], dtype=plan.output_dtypes[k],
                                device=grads[0].device if grads[0] is not None
                                else torch.device("cuda", plan.device))
            dys.append(g.contiguous())
        values = []
        gi = si = off = 0
        for (role, name), arg in zip(plan.backward_args, plan.bwd_op.inputs):
            if role == "grad_output":
                values.append(dys[gi])
                gi += 1
            elif role == "saved":
                n = plan.saved_buffers[si]
                values.append(list(saved_flat[off:off + n]) if arg.is_proto
                              else saved_flat[off])
                si += 1
                off += n
            elif role == "input":
                values.append(x)
            elif role == "weight":
                values.append(weight)
            elif role == "bias":
                values.append(bias)
            elif role == "main_grad":
                values.append(main_grad)
            else:
                values.append(reads[name])
        results = plan.bwd_op.op(*plan.bwd_op.flatten(values))
        if plan.bwd_op.num_results == 1:
            results = (results,)
        dx = dw = db = None
        i = 0
        for (role, name), arg in zip(plan.backward_results, plan.bwd_op.outputs):
            value = results[i]
            i += len(arg.buffers)
            if role == "grad_input":
                dx = value
            elif role == "grad_weight":
                dw = value
            elif role == "grad_bias":
                db = value
            elif role == "main_grad":
                main_grad.copy_(value)
            else:
                reads[name].copy_(value)
        return (None, dx, dw, db, None) + (None,) * len(plan.state_names)


def _default_state_init(name):
    return 1.0 if "scale" in name and "inv" not in name else 0.0


class Linear(_ModuleBase):
    """A Linear whose forward and backward are entries of a TEQ artifact.

    Parameters: ``weight`` (and ``bias`` when the forward takes one), with
    the manifest's shapes and dtypes. Buffers: every ``state:<name>`` of the
    pair (e.g. the delayed-scaling scale and amax history; the forward's
    updated values are written back after each call, the backward's after
    each backward), and ``main_grad`` (fp32, also ``weight.main_grad``)
    when the backward accumulates into it (fuse_wgrad_accumulation; then
    ``weight.grad`` stays None, as in TE).
    """

    def __init__(self, pair, registered, *, weight=None, bias=None, state_init=None):
        super().__init__()
        self.pair = pair
        self.registered = registered
        device = torch.device("cuda", registered.artifact.device)
        w = pair.weight
        if weight is None:
            weight = torch.empty(w.shape, dtype=_TORCH_DTYPES[w.dtype], device=device)
            torch.nn.init.kaiming_uniform_(weight, a=math.sqrt(5))
        self.weight = torch.nn.Parameter(self._given(weight, w, "weight", device))
        if pair.bias is not None:
            b = pair.bias
            if bias is None:
                fan_in = w.shape[-1] if w.shape else 1
                bound = 1 / math.sqrt(fan_in) if fan_in > 0 else 0
                bias = torch.empty(b.shape, dtype=_TORCH_DTYPES[b.dtype], device=device)
                torch.nn.init.uniform_(bias, -bound, bound)
            self.bias = torch.nn.Parameter(self._given(bias, b, "bias", device))
        else:
            if bias is not None:
                raise ValueError("bias given, but the forward entry takes no 'bias'")
            self.register_parameter("bias", None)
        state_init = dict(state_init or {})
        unknown = set(state_init) - set(pair.state)
        if unknown:
            raise ValueError(f"state_init: no state {', '.join(sorted(unknown))} "
                             f"(state: {', '.join(pair.state) or 'none'})")
        for name, arg in pair.state.items():
            init = state_init.get(name, _default_state_init(name))
            if isinstance(init, torch.Tensor):
                value = self._given(init, arg, f"state '{name}'", device)
            else:
                value = torch.full(arg.shape, float(init), dtype=_TORCH_DTYPES[arg.dtype],
                                   device=device)
            self.register_buffer(name, value)
        if pair.main_grad is not None:
            mg = pair.main_grad
            self.register_buffer("main_grad", torch.zeros(
                mg.shape, dtype=_TORCH_DTYPES[mg.dtype], device=device))
            if tuple(mg.shape) != tuple(w.shape):
                raise ValueError(f"main_grad {mg.type_text()} does not match the weight "
                                 f"{w.type_text()}")
            self.weight.main_grad = self.main_grad
        else:
            self.main_grad = None
        plan = _Plan(pair, registered[pair.forward.name], registered[pair.backward.name],
                     pair.state)
        with _lock:
            _plans.append(plan)
            self._plan_id = len(_plans) - 1

    @staticmethod
    def _given(tensor, arg, what, device):
        if tuple(tensor.shape) != tuple(arg.shape) or tensor.dtype != _TORCH_DTYPES[arg.dtype]:
            raise ValueError(f"{what}: expected {arg.type_text()} "
                             f"({_TORCH_DTYPES[arg.dtype]}), got {tuple(tensor.shape)} "
                             f"{tensor.dtype}")
        return tensor.detach().to(device).contiguous()

    @classmethod
    def from_artifact(cls, path, forward="fwd", backward="bwd", *, num_outputs=1,
                      forward_args=None, forward_results=None, backward_args=None,
                      backward_results=None, device=0, namespace=None, weight=None,
                      bias=None, state_init=None):
        """The Linear of entries `forward` and `backward` of the artifact at
        `path` (registered as torch ops, see register()). The roles of their
        arguments and results (teq.runtime.TrainingPair) default to
        ``F(input, weight) -> (output, saved...)`` and
        ``B(grad_output, saved...) -> (grad_input, grad_weight)``; give them
        for bias, delayed-scaling state (``state:<name>``), main_grad or
        saved tensors the compiler dropped (``input``/``weight``). A
        mismatch between the two entries is a ValueError."""
        _require_torch("teq.torch.Linear")
        registered = register(path, namespace=namespace, device=device)
        art = registered.artifact
        pair = TrainingPair(art[forward], art[backward], num_outputs=num_outputs,
                            forward_args=forward_args, forward_results=forward_results,
                            backward_args=backward_args, backward_results=backward_results)
        return cls(pair, registered, weight=weight, bias=bias, state_init=state_init)

    def forward(self, x):
        plan = _plans[self._plan_id]
        x = x.contiguous()
        state = tuple(getattr(self, n) for n in plan.state_names)
        results = _LinearFunction.apply(self._plan_id, x, self.weight, self.bias,
                                        self.main_grad, *state)
        outputs = results[:plan.num_outputs]
        updates = results[plan.num_outputs:]
        if updates:
            with torch.no_grad():
                for name, value in zip(plan.forward_updates, updates):
                    getattr(self, name).copy_(value)
        return outputs[0] if plan.num_outputs == 1 else tuple(outputs)

    def extra_repr(self):
        return (f"artifact='{self.registered.artifact.path}', "
                f"{self.pair.describe()}")


# -- Module: a compiled teq.Program ---------------------------------------------

# The last name component of delayed-scaling state (teq.Program names it
# "<linear>.fwd_scale", ...); "<state>.updated" is the state's new value.
STATE_SUFFIXES = ("fwd_scale", "fwd_amax_history", "bwd_scale", "bwd_amax_history")
_UPDATED = ".updated"
_FLT_MAX = 3.4028234663852886e38


def _sig(arg):
    """What must agree between two arguments that are one value."""
    if arg.is_proto:
        return ("proto", arg.dtype, tuple(arg.shape), arg.quantizer_kind, arg.usage,
                tuple((b.name, b.encoding, tuple(b.shape)) for b in arg.buffers))
    return ("tensor", arg.dtype, tuple(arg.shape))


def _name_list(values, what):
    if values is None:
        return None
    if isinstance(values, str):
        values = (values,)
    values = tuple(values)
    for v in values:
        if not isinstance(v, str):
            raise TypeError(f"{what}: expected argument names (str), got {v!r}")
    seen = set()
    for v in values:
        if v in seen:
            raise ValueError(f"{what}: '{v}' given twice")
        seen.add(v)
    return values


class ProgramPair:
    """The roles of the arguments and results of a compiled teq.Program's
    entries, read from their names (``Program.entries()``; the artifact's
    manifest names every argument and result so). Needs no GPU and no torch
    (it works on ``teq.runtime.inspect``'s entries).

    Forward entry ``<name>_forward`` (or an inference entry, ``backward``
    None):

    - arguments: ``("input", name)`` (passed to Module.forward in order),
      ``("parameter", name)``, ``("state", name)`` (delayed-scaling state:
      the last name component is one of STATE_SUFFIXES, or the entry returns
      ``<name>.updated``, or it is inout);
    - results: ``("output", name)`` (the backward takes ``grad_<name>``),
      ``("saved", name)`` (the backward takes an argument of that name),
      ``("state", name)`` for ``<name>.updated``.

    Backward entry ``<name>_backward``:

    - arguments: ``("grad_output", output)`` for ``grad_<output>``,
      ``("saved", name)``, ``("main_grad", parameter)`` for
      ``<parameter>.main_grad`` (fuse_wgrad_accumulation),
      ``("state", name)``, and ``("arg", forward argument)`` for a saved
      tensor the compiler dropped from the forward's results because it is
      one of the forward's own arguments (``teq.saved_from_args``; which one
      is ``saved_from_args[name]``, else ``<linear>.weight`` for
      ``<linear>.saved_weight``, else the only forward argument of that
      type, else a ValueError);
    - results: ``("grad", name)`` for ``grad_<name>`` of an input or a
      parameter, ``("main_grad", parameter)`` when that parameter has a
      main_grad (the accumulated main_grad), ``("state", name)`` for
      ``<name>.updated``.

    Which forward arguments are parameters: ``parameters`` and ``inputs``
    (names) say so explicitly; by default the parameters are the
    (non-state) forward arguments with a ``grad_<name>`` backward result
    that are not in ``inputs``, and the inputs are the rest. An input that
    requires grad (``Program.input(..., requires_grad=True)``) must
    therefore be named in ``inputs``. Names that fit none of these are a
    ValueError naming the entry and the name.
    """

    def __init__(self, forward, backward=None, *, update=None, inputs=None, parameters=None,
                 saved_from_args=None):
        self.forward = forward
        self.backward = backward
        self.update = update
        fname = forward.name
        bname = backward.name if backward is not None else None
        inputs = _name_list(inputs, "inputs")
        parameters = _name_list(parameters, "parameters")
        saved_from_args = dict(saved_from_args or {})
        fin, fout = forward.inputs, forward.outputs
        bin_ = backward.inputs if backward is not None else []
        bout = backward.outputs if backward is not None else []
        fargs = {a.name: a for a in fin}
        fres = {a.name: a for a in fout}
        bargs = {a.name: a for a in bin_}
        bres = {a.name: a for a in bout}
        hint = ("; teq.torch.Module reads the roles from the names a teq.Program gives "
                "its entries (Program.entries()); for other artifacts give the roles "
                "explicitly with teq.torch.Linear.from_artifact")

        def is_state(arg, results):
            return (arg.name.rsplit(".", 1)[-1] in STATE_SUFFIXES
                    or arg.name + _UPDATED in results or arg.kind == "inout")

        # -- forward arguments
        grads = {a.name[5:] for a in bout if a.name.startswith("grad_")}
        state_args = [a.name for a in fin if is_state(a, fres)]
        plain = [a.name for a in fin if a.name not in state_args]
        for what, names in (("inputs", inputs), ("parameters", parameters)):
            for n in names or ():
                if n in state_args:
                    raise ValueError(f"{what}: entry '{fname}' argument '{n}' is "
                                     f"delayed-scaling state (a module buffer)")
                if n not in plain:
                    raise ValueError(f"{what}: entry '{fname}' has no argument '{n}' "
                                     f"(arguments: {', '.join(plain) or 'none'})")
        if inputs is not None and parameters is not None:
            both = set(inputs) & set(parameters)
            if both:
                raise ValueError(f"{', '.join(sorted(both))}: in both inputs and parameters")
            rest = [n for n in plain if n not in inputs and n not in parameters]
            if rest:
                raise ValueError(f"entry '{fname}' argument(s) {', '.join(rest)}: neither in "
                                 f"inputs nor in parameters")
        elif parameters is not None:
            inputs = tuple(n for n in plain if n not in parameters)
        elif inputs is not None:
            parameters = tuple(n for n in plain if n not in inputs)
        else:
            parameters = tuple(n for n in plain if n in grads)
            inputs = tuple(n for n in plain if n not in grads)
        self.forward_args = []
        for a in fin:
            if a.name in state_args:
                role = "state"
            elif a.name in parameters:
                role = "parameter"
            else:
                role = "input"
            if a.is_proto:
                raise ValueError(f"entry '{fname}' argument '{a.name}': quantized inputs "
                                 f"({a.type_text()}) are not supported by teq.torch.Module")
            self.forward_args.append((role, a.name))
        self.forward_args = tuple(self.forward_args)
        self.inputs = tuple(n for r, n in self.forward_args if r == "input")
        self.parameters = tuple(n for r, n in self.forward_args if r == "parameter")

        # -- forward results
        self.forward_results = []
        for a in fout:
            if a.name.endswith(_UPDATED) and a.name[:-len(_UPDATED)] in state_args:
                src = fargs[a.name[:-len(_UPDATED)]]
                if _sig(src) != _sig(a):
                    raise ValueError(f"entry '{fname}' result '{a.name}' ({a.type_text()}) "
                                     f"is the new value of '{src.name}' ({src.type_text()}): "
                                     f"they must agree")
                self.forward_results.append(("state", src.name))
            elif backward is None:
                self.forward_results.append(("output", a.name))
            elif "grad_" + a.name in bargs:
                if a.name in bargs:
                    raise ValueError(f"entry '{bname}' takes both '{a.name}' and "
                                     f"'grad_{a.name}': is '{a.name}' an output or saved?")
                self.forward_results.append(("output", a.name))
            elif a.name in bargs:
                self.forward_results.append(("saved", a.name))
            else:
                raise ValueError(
                    f"entry '{fname}' result '{a.name}' is not an output (entry '{bname}' "
                    f"has no argument 'grad_{a.name}'), not saved for backward (entry "
                    f"'{bname}' has no argument '{a.name}') and not a state update "
                    f"('<state argument>{_UPDATED}'){hint}")
        self.forward_results = tuple(self.forward_results)
        self.outputs = tuple(n for r, n in self.forward_results if r == "output")
        if not self.outputs:
            raise ValueError(f"entry '{fname}' has no outputs{hint}")

        # -- backward arguments
        self.backward_args = []
        self.backward_results = []
        if backward is not None:
            saved = {n for r, n in self.forward_results if r == "saved"}
            outputs = set(self.outputs)
            bstate = []
            for a in bin_:
                n = a.name
                if n.startswith("grad_") and n[5:] in outputs:
                    y = fres[n[5:]]
                    if _sig(y) != _sig(a):
                        raise ValueError(f"entry '{bname}' argument '{n}' ({a.type_text()}) is "
                                         f"the gradient of entry '{fname}' result '{y.name}' "
                                         f"({y.type_text()}): they must agree")
                    role = ("grad_output", n[5:])
                elif n in saved:
                    s = fres[n]
                    if _sig(s) != _sig(a):
                        raise ValueError(f"saved tensor '{n}': entry '{fname}' returns "
                                         f"{s.type_text()}, entry '{bname}' takes "
                                         f"{a.type_text()}")
                    role = ("saved", n)
                elif n.endswith(".main_grad") and n[:-10] in self.parameters:
                    p = fargs[n[:-10]]
                    if a.dtype != "f32" or tuple(a.shape) != tuple(p.shape) or a.is_proto:
                        raise ValueError(f"entry '{bname}' argument '{n}' ({a.type_text()}): "
                                         f"a main_grad is f32{list(p.shape)}")
                    role = ("main_grad", p.name)
                elif is_state(a, bres):
                    if a.name in fargs and fargs[a.name].name not in state_args:
                        raise ValueError(f"entry '{bname}' argument '{n}' is state, but entry "
                                         f"'{fname}' takes it as a plain argument")
                    role = ("state", n)
                    bstate.append(n)
                else:
                    role = ("arg", self._dropped_saved(a, fin, state_args, saved_from_args,
                                                       fname, bname, hint))
                self.backward_args.append(role)
            extra = set(saved_from_args) - {a.name for (r, _), a in
                                            zip(self.backward_args, bin_) if r == "arg"}
            if extra:
                raise ValueError(f"saved_from_args: entry '{bname}' has no dropped saved "
                                 f"tensor {', '.join(sorted(extra))}")
            missing = [n for n in self.outputs if ("grad_output", n) not in self.backward_args]
            if missing:
                raise ValueError(f"entry '{bname}' takes no gradient for output(s) "
                                 f"{', '.join(missing)}")
            missing = [n for n in saved if ("saved", n) not in self.backward_args]
            if missing:  # cannot happen: saved means "a backward argument"
                raise ValueError(f"saved results {', '.join(missing)} are not read")
            main_grads = {n for r, n in self.backward_args if r == "main_grad"}
            # -- backward results
            for a in bout:
                n = a.name
                if n.endswith(_UPDATED) and n[:-len(_UPDATED)] in bstate:
                    src = bargs[n[:-len(_UPDATED)]]
                    if _sig(src) != _sig(a):
                        raise ValueError(f"entry '{bname}' result '{n}' ({a.type_text()}) is "
                                         f"the new value of '{src.name}' ({src.type_text()}): "
                                         f"they must agree")
                    self.backward_results.append(("state", src.name))
                elif n.startswith("grad_") and n[5:] in main_grads:
                    mg = bargs[n[5:] + ".main_grad"]
                    if _sig(mg) != _sig(a):
                        raise ValueError(f"entry '{bname}' result '{n}' ({a.type_text()}) is "
                                         f"the accumulated '{mg.name}' ({mg.type_text()})")
                    self.backward_results.append(("main_grad", n[5:]))
                elif n.startswith("grad_") and n[5:] in fargs and n[5:] not in state_args:
                    src = fargs[n[5:]]
                    if _sig(src) != _sig(a):
                        raise ValueError(f"entry '{bname}' result '{n}' ({a.type_text()}) is "
                                         f"the gradient of '{src.name}' ({src.type_text()}): "
                                         f"they must agree")
                    self.backward_results.append(("grad", src.name))
                else:
                    raise ValueError(
                        f"entry '{bname}' result '{n}' is not the gradient of an input or "
                        f"parameter of entry '{fname}' ('grad_<argument>') and not a state "
                        f"update ('<state argument>{_UPDATED}'){hint}")
            for p in main_grads:
                if ("main_grad", p) not in self.backward_results:
                    raise ValueError(f"entry '{bname}' takes '{p}.main_grad' but returns no "
                                     f"'grad_{p}' (the accumulated main_grad)")
        self.backward_args = tuple(self.backward_args)
        self.backward_results = tuple(self.backward_results)
        self.input_grads = tuple(n for r, n in self.backward_results
                                 if r == "grad" and n in self.inputs)
        self.main_grads = tuple(n for r, n in self.backward_args if r == "main_grad")
        self.trainable = tuple(n for n in self.parameters
                               if ("grad", n) in self.backward_results
                               or ("main_grad", n) in self.backward_results)

        # -- state: one type per name
        self.state = {}
        for roles, args, ename in ((self.forward_args, fin, fname),
                                   (self.backward_args, bin_, bname)):
            for (role, n), a in zip(roles, args):
                if role != "state":
                    continue
                prev = self.state.get(n)
                if prev is not None and _sig(prev) != _sig(a):
                    raise ValueError(f"state '{n}': entry '{ename}' takes {a.type_text()}, "
                                     f"elsewhere {prev.type_text()}")
                self.state.setdefault(n, a)
        written = {n for r, n in self.forward_results if r == "state"}
        read_back = {n for r, n in self.backward_args if r == "state"}
        if written & read_back:
            raise ValueError(f"state {', '.join(sorted(written & read_back))}: updated by entry "
                             f"'{fname}' and read by entry '{bname}'")
        # -- the update entry (DelayedScaling: TE's update step), state only
        self.update_args = self.update_results = ()
        if update is not None:
            uname = update.name
            for a in update.inputs:
                if a.name not in self.state:
                    raise ValueError(f"entry '{uname}' argument '{a.name}' is not state of "
                                     f"entries '{fname}'/'{bname}' (state: "
                                     f"{', '.join(self.state) or 'none'})")
                if _sig(a) != _sig(self.state[a.name]):
                    raise ValueError(f"entry '{uname}' argument '{a.name}' ({a.type_text()}) "
                                     f"disagrees with {self.state[a.name].type_text()}")
            names = {a.name for a in update.inputs}
            results = []
            for a in update.outputs:
                src = a.name[:-len(_UPDATED)] if a.name.endswith(_UPDATED) else None
                if src not in names:
                    raise ValueError(f"entry '{uname}' result '{a.name}' is not "
                                     f"'<state argument>{_UPDATED}'{hint}")
                if _sig(a) != _sig(self.state[src]):
                    raise ValueError(f"entry '{uname}' result '{a.name}' ({a.type_text()}) "
                                     f"disagrees with '{src}'")
                results.append(src)
            self.update_args = tuple(a.name for a in update.inputs)
            self.update_results = tuple(results)

    @staticmethod
    def _dropped_saved(arg, fin, state_args, given, fname, bname, hint):
        """The forward argument a saved tensor the compiler dropped is."""
        n = arg.name
        candidates = [a for a in fin if a.name not in state_args and _sig(a) == _sig(arg)]
        if n in given:
            src = next((a for a in fin if a.name == given[n]), None)
            if src is None or src.name in state_args:
                raise ValueError(f"saved_from_args: '{n}' -> '{given[n]}': entry '{fname}' has "
                                 f"no such argument")
            if _sig(src) != _sig(arg):
                raise ValueError(f"saved_from_args: entry '{bname}' argument '{n}' "
                                 f"({arg.type_text()}) cannot be entry '{fname}' argument "
                                 f"'{src.name}' ({src.type_text()})")
            return src.name
        if n.endswith(".saved_weight"):
            w = n[:-len(".saved_weight")] + ".weight"
            match = [a for a in candidates if a.name == w]
            if match:
                return w
        if len(candidates) == 1:
            return candidates[0].name
        raise ValueError(
            f"entry '{bname}' argument '{n}' ({arg.type_text()}) is not a gradient, a saved "
            f"result of entry '{fname}', a main_grad or state; if it is a saved tensor the "
            f"compiler dropped because it is one of entry '{fname}''s arguments, say which with "
            f"saved_from_args={{'{n}': <argument>}} (candidates: "
            f"{', '.join(a.name for a in candidates) or 'none of that type'}){hint}")

    # Entries are shared, not copied (nn.Module deepcopy).
    def __copy__(self):
        return self

    def __deepcopy__(self, memo):
        return self

    def roles(self):
        """{entry name: {"args": ((role, name), ...), "results": (...)}}."""
        out = {self.forward.name: {"args": self.forward_args,
                                   "results": self.forward_results}}
        if self.backward is not None:
            out[self.backward.name] = {"args": self.backward_args,
                                       "results": self.backward_results}
        if self.update is not None:
            out[self.update.name] = {"args": tuple(("state", n) for n in self.update_args),
                                     "results": tuple(("state", n)
                                                      for n in self.update_results)}
        return out

    def describe(self):
        def side(roles, args):
            return ", ".join(f"{a.name}={r}" + ("" if n == a.name else f":{n}")
                             for (r, n), a in zip(roles, args))
        text = (f"{self.forward.name}({side(self.forward_args, self.forward.inputs)}) -> "
                f"({side(self.forward_results, self.forward.outputs)})")
        if self.backward is not None:
            text += (f"; {self.backward.name}("
                     f"{side(self.backward_args, self.backward.inputs)}) -> "
                     f"({side(self.backward_results, self.backward.outputs)})")
        return text


def delayed_scaling_update(amax_history, scale, fp8_max, margin=0, amax_compute_algo="max"):
    """TE's delayed-scaling update step (te-semantics §5.2, the fused
    ``amax_and_scale_update_after_reduction`` kernel, no amax reduction):
    per column i (a quantizer slot), with ``last = amax_history[0, i]``:

    - if ``last != 0`` the history rolls: ``new[0] = 0``, ``new[j] =
      old[j+1]`` for ``0 < j < L-1``, ``new[L-1] = last``; else it stays;
    - amax is ``max(old)`` (NaN ignored) when it rolled, else 0
      (``"max"``), or ``last`` (``"most_recent"``);
    - ``scale = (fp8_max * 2^-margin) / amax`` (one fp32 division) where
      amax is finite and > 0, else the old scale; an infinite scale becomes
      FLT_MAX.

    Returns ``(new_history, new_scale)``; the inputs are not changed."""
    _require_torch("teq.torch.delayed_scaling_update")
    if amax_compute_algo not in ("max", "most_recent"):
        raise ValueError(f"amax_compute_algo {amax_compute_algo!r}: only 'max' and "
                         f"'most_recent' are implemented")
    h = amax_history
    last = h[0]
    if h.shape[0] > 1:
        rolled = torch.cat([torch.zeros_like(h[:1]), h[2:], h[:1]], dim=0)
    else:
        rolled = torch.zeros_like(h)
    roll = last != 0  # NaN rolls too, as in the kernel
    new_h = torch.where(roll.unsqueeze(0), rolled, h)
    if amax_compute_algo == "max":
        no_nan = torch.where(torch.isnan(h), torch.zeros_like(h), h)
        amax = torch.where(roll, torch.clamp_min(no_nan.amax(dim=0), 0.0),
                           torch.zeros_like(last))
    else:
        amax = last
    scaled_max = float(fp8_max) * 2.0 ** (-int(margin))
    # One correctly rounded fp32 division, as the kernel's: in fp64, then
    # rounded to fp32 (exact for fp32 operands), so that torch.compile's
    # generated code (whose fp32 division may be approximate) agrees bit
    # for bit with eager.
    factor = (torch.full_like(amax, scaled_max, dtype=torch.float64)
              / amax.to(torch.float64)).to(amax.dtype)
    new_s = torch.where(torch.isfinite(amax) & (amax > 0), factor, scale)
    new_s = torch.where(torch.isinf(new_s), torch.full_like(new_s, _FLT_MAX), new_s)
    return new_h, new_s


def _split_forward_results(fwd_op, results, roles):
    """A forward op's flat results as (outputs, saved buffers, state
    updates), by the (role, name) of each manifest result."""
    if fwd_op.num_results == 1:
        results = (results,)
    outputs, saved, updates = [], [], []
    i = 0
    for (role, _), arg in zip(roles, fwd_op.outputs):
        n = len(arg.buffers)
        if role == "output":
            outputs.append(results[i])
        elif role == "saved":
            saved.extend(results[i:i + n])
        else:
            updates.append(results[i])
        i += n
    return outputs, saved, updates


class _ScaleUpdate:
    """One delayed-scaling update: the history and scale state indices."""

    def __init__(self, prefix, direction, history, scale, fp8_max, margin, algo, where):
        self.prefix = prefix
        self.direction = direction
        self.history = history
        self.scale = scale
        self.fp8_max = fp8_max
        self.margin = margin
        self.algo = algo
        self.where = where  # "forward" or "backward"


def _scale_updates(pair, state_names, recipe, enabled):
    if not enabled:
        return ()
    from teq.recipe import DelayedScaling

    index = {n: i for i, n in enumerate(state_names)}
    fwd_updated = {n for r, n in pair.forward_results if r == "state"}
    bwd_updated = {n for r, n in pair.backward_results if r == "state"}
    updates = []
    for name in state_names:
        for direction in ("fwd", "bwd"):
            suffix = f".{direction}_amax_history"
            if not (name.endswith(suffix) or name == suffix[1:]):
                continue
            prefix = name[:-len(suffix)] if name.endswith(suffix) else ""
            scale = (prefix + "." if prefix else "") + f"{direction}_scale"
            if scale not in index:
                raise ValueError(f"state '{name}' has no '{scale}' to update; pass "
                                 f"scale_update=False")
            if isinstance(recipe, dict):
                r = recipe.get(prefix, DelayedScaling())
            else:
                r = recipe if recipe is not None else DelayedScaling()
            if not isinstance(r, DelayedScaling):
                raise ValueError(f"recipe for '{prefix}': expected teq.recipe.DelayedScaling, "
                                 f"got {r!r}")
            rows = pair.state[name].shape[0] if pair.state[name].shape else 0
            if recipe is not None and r.amax_history_len != rows:
                raise ValueError(f"recipe for '{prefix}': amax_history_len="
                                 f"{r.amax_history_len}, but '{name}' has {rows} rows")
            if callable(r.amax_compute_algo) or r.amax_compute_algo not in ("max",
                                                                             "most_recent"):
                raise ValueError(f"recipe for '{prefix}': amax_compute_algo "
                                 f"{r.amax_compute_algo!r} is not implemented ('max', "
                                 f"'most_recent'); pass scale_update=False")
            fmt = r.fp8_format
            fp8_max = fmt.max_fwd if direction == "fwd" else fmt.max_bwd
            where = ("forward" if name in fwd_updated else
                     "backward" if name in bwd_updated else None)
            if where is None:
                continue  # never updated: nothing to roll
            updates.append(_ScaleUpdate(prefix, direction, index[name], index[scale],
                                        fp8_max, r.margin, r.amax_compute_algo, where))
    return tuple(updates)


class _ProgramPlan:
    """What _ProgramFunction needs, as plain Python values (looked up by
    id, so that torch.compile sees only an int constant)."""

    def __init__(self, pair, fwd_op, bwd_op, state_names, updates, device, update_op=None):
        self.pair = pair
        self.fwd_op = fwd_op
        self.bwd_op = bwd_op
        self.device = device
        self.inputs = pair.inputs
        self.parameters = pair.parameters
        self.main_grads = pair.main_grads
        self.state_names = tuple(state_names)
        self.n_in = len(pair.inputs)
        self.n_par = len(pair.parameters)
        self.n_mg = len(pair.main_grads)
        pos = {}
        for i, n in enumerate(pair.inputs):
            pos[n] = ("input", i)
        for i, n in enumerate(pair.parameters):
            pos[n] = ("parameter", i)
        self.arg_pos = pos
        self.state_index = {n: i for i, n in enumerate(self.state_names)}
        self.main_grad_index = {n: i for i, n in enumerate(pair.main_grads)}
        fout = fwd_op.outputs
        self.num_outputs = len(pair.outputs)
        self.output_meta = tuple((a.shape, _TORCH_DTYPES[a.dtype]) for (r, _), a in
                                 zip(pair.forward_results, fout) if r == "output")
        self.forward_updates = tuple(n for r, n in pair.forward_results if r == "state")
        # Saved results: name -> (offset, count) in the flat saved list.
        self.saved = {}
        off = 0
        for (r, n), a in zip(pair.forward_results, fout):
            if r == "saved":
                self.saved[n] = (off, len(a.buffers))
                off += len(a.buffers)
        self.arg_reads = tuple(dict.fromkeys(n for r, n in pair.backward_args if r == "arg"))
        self.state_reads = tuple(dict.fromkeys(n for r, n in pair.backward_args
                                               if r == "state"))
        self.fwd_scale_updates = tuple(u for u in updates if u.where == "forward")
        self.bwd_scale_updates = tuple(u for u in updates if u.where == "backward")
        for u in self.bwd_scale_updates:
            for i in (u.history, u.scale):
                if self.state_names[i] not in self.state_reads:
                    raise ValueError(f"state '{self.state_names[i]}' is updated at the end of "
                                     f"backward but entry '{pair.backward.name}' does not read "
                                     f"it; pass scale_update=False")
        self.output_index = {n: i for i, n in enumerate(pair.outputs)}
        # The update entry: after a forward it rolls the forward state, after
        # a backward the backward state (the other direction gets zeros: a
        # zero newest amax is a no-op, and its results are dropped).
        self.update_op = update_op
        if update_op is not None:
            def direction(n):
                last = n.rsplit(".", 1)[-1]
                return last[:3] if last in STATE_SUFFIXES else None

            self.update_args = tuple((self.state_index[n], direction(n),
                                      tuple(pair.state[n].shape)) for n in pair.update_args)
            self.update_results = tuple((self.state_index[n], direction(n))
                                        for n in pair.update_results)
            for n in pair.update_args:
                if direction(n) is None:
                    raise ValueError(f"entry '{pair.update.name}' argument '{n}': not "
                                     f"'<linear>.fwd_*' or '<linear>.bwd_*' state; pass "
                                     f"scale_update='torch' or False")
                if direction(n) == "bwd" and n not in self.state_reads:
                    raise ValueError(f"state '{n}' is updated at the end of backward but "
                                     f"entry '{pair.backward.name}' does not read it; pass "
                                     f"scale_update=False")
        grad_of = {n: i for i, (r, n) in enumerate(pair.backward_results) if r == "grad"}
        self.grad_slots = tuple(grad_of.get(n) for n in pair.inputs + pair.parameters)


def _run_update_entry(plan, direction, state, device):
    """Runs the update entry for `direction` ("fwd"/"bwd") on `state`
    (indexable by state index: that direction's buffers), writing back."""
    values = []
    for i, d, shape in plan.update_args:
        values.append(state[i] if d == direction
                      else torch.zeros(shape, dtype=torch.float32, device=device))
    results = plan.update_op.op(*plan.update_op.flatten(values))
    if plan.update_op.num_results == 1:
        results = (results,)
    for (i, d), value in zip(plan.update_results, results):
        if d == direction:
            state[i].copy_(value)


def _apply_scale_updates(updates, state):
    for u in updates:
        h, s = state[u.history], state[u.scale]
        new_h, new_s = delayed_scaling_update(h, s, u.fp8_max, u.margin, u.algo)
        h.copy_(new_h)
        s.copy_(new_s)


class _ProgramFunction(_FunctionBase):
    @staticmethod
    def forward(ctx, plan_id, *tensors):
        plan = _plans[plan_id]
        n_in, n_par, n_mg = plan.n_in, plan.n_par, plan.n_mg
        xs = tensors[:n_in]
        params = tensors[n_in:n_in + n_par]
        main_grads = tensors[n_in + n_par:n_in + n_par + n_mg]
        state = tensors[n_in + n_par + n_mg:]
        values = []
        for role, name in plan.pair.forward_args:
            if role == "state":
                values.append(state[plan.state_index[name]])
            else:
                kind, i = plan.arg_pos[name]
                values.append(xs[i] if kind == "input" else params[i])
        outputs, saved, updates = _split_forward_results(
            plan.fwd_op, plan.fwd_op.op(*plan.fwd_op.flatten(values)),
            plan.pair.forward_results)
        ctx.plan_id = plan_id
        if plan.bwd_op is not None:
            arg_reads = []
            for name in plan.arg_reads:
                kind, j = plan.arg_pos[name]
                arg_reads.append(xs[j] if kind == "input" else params[j])
            state_reads = [state[plan.state_index[n]] for n in plan.state_reads]
            ctx.save_for_backward(*main_grads, *arg_reads, *state_reads, *saved)
        if updates:
            ctx.mark_non_differentiable(*updates)
        return tuple(outputs) + tuple(updates)

    @staticmethod
    def backward(ctx, *grads):
        plan = _plans[ctx.plan_id]
        if plan.bwd_op is None:
            raise RuntimeError(f"entry '{plan.fwd_op.entry.name}' has no backward entry")
        saved = ctx.saved_tensors
        k = plan.n_mg
        main_grads = saved[:k]
        arg_reads = dict(zip(plan.arg_reads, saved[k:k + len(plan.arg_reads)]))
        k += len(plan.arg_reads)
        state_reads = dict(zip(plan.state_reads, saved[k:k + len(plan.state_reads)]))
        k += len(plan.state_reads)
        saved_flat = saved[k:]
        device = torch.device("cuda", plan.device)
        values = []
        for (role, name), arg in zip(plan.pair.backward_args, plan.bwd_op.inputs):
            if role == "grad_output":
                j = plan.output_index[name]
                g = grads[j]
                if g is None:
                    shape, dtype = plan.output_meta[j]
                    g = torch.zeros(shape, dtype=dtype, device=device)
                values.append(g.contiguous())
            elif role == "saved":
                off, n = plan.saved[name]
                values.append(list(saved_flat[off:off + n]) if arg.is_proto
                              else saved_flat[off])
            elif role == "arg":
                values.append(arg_reads[name])
            elif role == "main_grad":
                values.append(main_grads[plan.main_grad_index[name]])
            else:
                values.append(state_reads[name])
        results = plan.bwd_op.op(*plan.bwd_op.flatten(values))
        if plan.bwd_op.num_results == 1:
            results = (results,)
        by_result = []
        i = 0
        for (role, name), arg in zip(plan.pair.backward_results, plan.bwd_op.outputs):
            value = results[i]
            i += len(arg.buffers)
            by_result.append(value)
            if role == "main_grad":
                main_grads[plan.main_grad_index[name]].copy_(value)
            elif role == "state":
                state_reads[name].copy_(value)
        if plan.bwd_scale_updates or plan.update_op is not None:
            state = {plan.state_index[n]: t for n, t in state_reads.items()}
            _apply_scale_updates(plan.bwd_scale_updates, state)
            if plan.update_op is not None:
                _run_update_entry(plan, "bwd", state, device)
        out = [None if slot is None else by_result[slot] for slot in plan.grad_slots]
        return (None, *out) + (None,) * (plan.n_mg + len(plan.state_names))


def _split(name):
    parts = name.split(".")
    if not all(p.isidentifier() for p in parts):
        raise ValueError(f"'{name}': every dotted component of a parameter or buffer name "
                         f"must be an identifier")
    return tuple(parts)


def _is_delayed(recipe):
    from teq.recipe import DelayedScaling

    return isinstance(recipe, DelayedScaling)


class Module(_ModuleBase):
    """A compiled teq.Program as an ``nn.Module`` (see ProgramPair for how
    arguments become inputs, parameters and buffers).

    - ``forward(*inputs)`` (or by name) takes the program's inputs in order
      and returns its output (a tuple if several); a backward through them
      runs the backward entry with the forward's saved results and sets the
      parameters' ``.grad`` (an input named in ``inputs`` that has a
      ``grad_<input>`` result gets its gradient).
    - Parameters and buffers keep the program's dotted names through child
      modules: ``module.fc1.weight``, ``state_dict()["fc1.bias"]``.
    - Delayed-scaling state (``fc1.fwd_scale``, ``fc1.fwd_amax_history``,
      ``fc1.bwd_scale``, ``fc1.bwd_amax_history``) are fp32 buffers
      initialised as TE does (scale 1, history 0). The entries return the
      updated histories (the current step's amax max-updated into row 0),
      which are copied into the buffers. Then TE's update step runs (roll
      the history, ``scale = (fp8_max / amax) / 2^margin`` with amax over
      the history): on the forward state after each forward call (TE: at
      the autocast region's exit), on the backward state at the end of
      each backward. ``scale_update``: True (default) uses the artifact's
      update entry ``<name>_update`` (the Program's recipe compiled in)
      when it has one, else the same rule in PyTorch
      (delayed_scaling_update); ``"entry"`` / ``"torch"`` choose; for
      ``"torch"``, fp8_max, margin and amax_compute_algo come from
      ``recipe`` (a teq.recipe.DelayedScaling, or a dict by Linear name;
      default DelayedScaling()'s: HYBRID, E4M3 448 forward, E5M2 57344
      backward, margin 0, "max"). With ``scale_update=False`` the scale
      stays at its initial value (1) and the history is only max-updated
      in row 0, never rolled: the caller owns the update.
    - ``main_grad`` (fuse_wgrad_accumulation): an fp32 buffer
      ``<parent>.<leaf>_main_grad`` (``fc1.weight_main_grad``, also
      ``fc1.weight.main_grad``) that the backward accumulates into; that
      parameter's ``.grad`` stays None, as in TE.
    - Every input is checked before anything runs: a wrong type, device,
      dtype or shape is a ValueError naming the input, and no buffer or
      parameter changes.
    """

    def __init__(self, pair, registered, *, init=None, recipe=None, scale_update=True):
        _require_torch("teq.torch.Module")
        super().__init__()
        self._pair = pair
        self._registered = registered
        device = torch.device("cuda", registered.artifact.device)
        self._device = device
        init = dict(init or {})
        fargs = {a.name: a for a in pair.forward.inputs}
        known = set(pair.parameters) | set(pair.state)
        unknown = set(init) - known
        if unknown:
            raise ValueError(f"init: no parameter or state {', '.join(sorted(unknown))} "
                             f"(parameters: {', '.join(pair.parameters) or 'none'}; state: "
                             f"{', '.join(pair.state) or 'none'})")
        self._param_paths = []
        for name in pair.parameters:
            arg = fargs[name]
            value = init.get(name)
            if value is None:
                value = self._default_param(name, arg, fargs, device)
            elif isinstance(value, torch.Tensor):
                value = self._given(value, arg, f"parameter '{name}'", device)
            else:
                value = torch.full(arg.shape, float(value), dtype=_TORCH_DTYPES[arg.dtype],
                                   device=device)
            param = torch.nn.Parameter(value, requires_grad=name in pair.trainable)
            self._register(name, param, "parameter")
            self._param_paths.append(_split(name))
        self._state_paths = []
        for name, arg in pair.state.items():
            value = init.get(name, _default_state_init(name.rsplit(".", 1)[-1]))
            if isinstance(value, torch.Tensor):
                value = self._given(value, arg, f"state '{name}'", device)
            else:
                value = torch.full(arg.shape, float(value), dtype=_TORCH_DTYPES[arg.dtype],
                                   device=device)
            self._register(name, value, "buffer")
            self._state_paths.append(_split(name))
        self._main_grad_paths = []
        for name in pair.main_grads:
            parts = _split(name)
            path = parts[:-1] + (parts[-1] + "_main_grad",)
            arg = fargs[name]
            self._register(".".join(path), torch.zeros(arg.shape, dtype=torch.float32,
                                                       device=device), "buffer")
            self._main_grad_paths.append(path)
            self._resolve(parts).main_grad = self._resolve(path)
        # (name, shape, torch dtype, type text) of each input: plain values
        # for torch.compile.
        self._input_args = tuple((n, tuple(fargs[n].shape), _TORCH_DTYPES[fargs[n].dtype],
                                  fargs[n].type_text()) for n in pair.inputs)
        if scale_update not in (True, False, "entry", "torch"):
            raise ValueError(f"scale_update: True, False, 'entry' or 'torch', got "
                             f"{scale_update!r}")
        if scale_update == "entry" and pair.update is None:
            raise ValueError(f"scale_update='entry': artifact "
                             f"'{registered.artifact.path}' has no update entry")
        use_entry = pair.update is not None and scale_update in (True, "entry")
        if use_entry and recipe is not None:
            raise ValueError("recipe= is for scale_update='torch' (the update entry has the "
                             "Program's recipe compiled in)")
        updates = _scale_updates(pair, tuple(pair.state), recipe,
                                 scale_update in (True, "torch") and not use_entry)
        self._scale_update = "entry" if use_entry else (
            "torch" if updates else False)
        bwd_op = registered[pair.backward.name] if pair.backward is not None else None
        update_op = registered[pair.update.name] if use_entry else None
        plan = _ProgramPlan(pair, registered[pair.forward.name], bwd_op, pair.state,
                            updates, registered.artifact.device, update_op)
        with _lock:
            _plans.append(plan)
            self._plan_id = len(_plans) - 1

    # -- construction helpers --------------------------------------------------

    def _register(self, name, value, kind):
        parts = _split(name)
        parent = self
        for p in parts[:-1]:
            child = parent._modules.get(p)
            if child is None:
                if hasattr(parent, p):
                    raise ValueError(f"'{name}': '{p}' is already a parameter, buffer or "
                                     f"attribute")
                child = torch.nn.Module()
                parent.add_module(p, child)
            parent = child
        leaf = parts[-1]
        if hasattr(parent, leaf) or leaf in parent._modules:
            raise ValueError(f"'{name}': the name is taken (a parameter, buffer, child "
                             f"module or attribute)")
        if kind == "parameter":
            parent.register_parameter(leaf, value)
        else:
            parent.register_buffer(leaf, value)

    def _resolve(self, parts):
        value = self
        for p in parts:
            value = getattr(value, p)
        return value

    @staticmethod
    def _given(tensor, arg, what, device):
        dtype = _TORCH_DTYPES[arg.dtype]
        if tuple(tensor.shape) != tuple(arg.shape) or tensor.dtype != dtype:
            raise ValueError(f"{what}: expected {arg.type_text()} ({dtype}), got "
                             f"{tuple(tensor.shape)} {tensor.dtype}")
        return tensor.detach().to(device).clone().contiguous()

    @staticmethod
    def _default_param(name, arg, fargs, device):
        """nn.Linear's initialisation: kaiming_uniform(a=sqrt(5)) for a
        matrix, uniform(+-1/sqrt(fan_in)) for a vector next to a
        '<prefix>.weight' matrix, zeros otherwise."""
        value = torch.empty(arg.shape, dtype=_TORCH_DTYPES[arg.dtype], device=device)
        if len(arg.shape) >= 2:
            torch.nn.init.kaiming_uniform_(value, a=math.sqrt(5))
            return value
        prefix = name.rsplit(".", 1)[0] if "." in name else None
        w = fargs.get(prefix + ".weight") if prefix else None
        if w is not None and len(w.shape) >= 2 and w.shape[-1] > 0:
            bound = 1 / math.sqrt(w.shape[-1])
            torch.nn.init.uniform_(value, -bound, bound)
        else:
            value.zero_()
        return value

    # -- constructors ----------------------------------------------------------

    @classmethod
    def from_artifact(cls, path, forward=None, backward=None, *, update=None, inputs=None,
                      parameters=None, saved_from_args=None, device=0, namespace=None,
                      init=None, recipe=None, scale_update=True):
        """The Module of a compiled teq.Program at `path`: entries `forward`
        and `backward` (default: the artifact's ``<name>_forward`` /
        ``<name>_backward`` pair, or its only entry for an inference
        program); `update` the DelayedScaling update entry (default
        ``<name>_update`` if there is one; False: none). `inputs`/`parameters` (names) and `saved_from_args`
        ({backward argument: forward argument}) override the roles read
        from the names (ProgramPair); `init` ({name: tensor or float})
        sets parameters and state; `recipe` and `scale_update` control the
        delayed-scaling update (see the class)."""
        _require_torch("teq.torch.Module")
        registered = register(path, namespace=namespace, device=device)
        art = registered.artifact
        fwd, bwd, upd = _pick_entries(art, forward, backward, update)
        pair = ProgramPair(fwd, bwd, update=upd, inputs=inputs, parameters=parameters,
                           saved_from_args=saved_from_args)
        return cls(pair, registered, init=init, recipe=recipe, scale_update=scale_update)

    @classmethod
    def from_program(cls, program, path=None, *, training=None, target=None, device=0,
                     namespace=None, init=None, scale_update=True, **compile_options):
        """Compiles `program` (a teq.Program) with teq.compile (needs the
        compiler extension: a workstation build) into `path` (default: a
        file named by the program's IR in the temporary directory) and
        loads it as a Module. The roles come from the Program itself
        (inputs, parameters, the saved tensors that are its arguments) and
        the delayed-scaling recipe of each Linear from its autocast
        regions. `target` defaults to the Program's, else the GPU's."""
        _require_torch("teq.torch.Module")
        try:
            from teq import compiler as _compiler
        except ImportError as error:
            raise ImportError(f"Module.from_program needs the compiler extension "
                              f"(teq._teq_compiler; a build with MLIR); on a machine without "
                              f"it compile the Program elsewhere (teq.compile(program, "
                              f"output='x.so')) and use Module.from_artifact: {error}") from None
        if target is None and program.target is None:
            major, minor = torch.cuda.get_device_capability(_runtime._ordinal(device))
            target = f"sm_{major}{minor}"
        if training is None:
            training = any(t.requires_grad for t in program._inputs + program._params)
        module = program.module(training=training)
        chip = _compiler.Target.of(target).chip if target is not None else program.target.chip
        if path is None:
            key = hashlib.sha256((str(module) + "\n" + chip).encode()).hexdigest()[:16]
            folder = os.path.join(tempfile.gettempdir(), f"teq-programs-{os.getuid()}")
            os.makedirs(folder, exist_ok=True)
            path = os.path.join(folder, f"{program.name}-{key}.so")
            namespace = namespace or f"teq_{program.name}_{key[:8]}"
        path = os.fspath(path)
        loaded = (os.path.realpath(path), _runtime._ordinal(device)) in _artifacts
        if not loaded:  # never overwrite a library this process has open
            tmp = f"{path}.tmp{os.getpid()}.so"
            _compiler.compile(module, target=target, output=tmp, **compile_options)
            os.replace(tmp, path)
        names = program.entries(training)
        if training:
            fwd, bwd = f"{program.name}_forward", f"{program.name}_backward"
        else:
            fwd, bwd = program.name, None
        upd = f"{program.name}_update" if f"{program.name}_update" in names else None
        registered = register(path, namespace=namespace, device=device)
        art = registered.artifact
        pair = ProgramPair(art[fwd], art[bwd] if bwd else None,
                           update=art[upd] if upd else None,
                           inputs=[t.name for t in program._inputs],
                           parameters=[t.name for t in program._params],
                           saved_from_args=_program_saved_from_args(program, art, fwd, bwd))
        for entry, (args, results) in names.items():
            got = ([a.name for a in art[entry].inputs], [a.name for a in art[entry].outputs])
            if got != (list(args), list(results)):
                raise ValueError(f"artifact '{path}' entry '{entry}' does not name its "
                                 f"arguments and results as Program.entries() does: {got} vs "
                                 f"{(list(args), list(results))}")
        recipes = {}
        for op in program._ops:
            if op.kind == "linear":
                r = program._effective_recipe(op.regions)
                if _is_delayed(r):
                    recipes[op.config["name"]] = r
        use_entry = upd is not None and scale_update in (True, "entry")
        return cls(pair, registered, init=init,
                   recipe=None if use_entry else (recipes or None),
                   scale_update=scale_update)

    # -- running -----------------------------------------------------------------

    def _bind(self, inputs, named):
        args = self._input_args
        if len(inputs) > len(args):
            raise TypeError(f"forward takes {len(args)} inputs "
                            f"({', '.join(a[0] for a in args)}), got {len(inputs)}")
        values = list(inputs) + [None] * (len(args) - len(inputs))
        for key, value in named.items():
            i = None
            for j, a in enumerate(args):
                if a[0] == key:
                    i = j
            if i is None:
                raise TypeError(f"forward has no input '{key}' (inputs: "
                                f"{', '.join(a[0] for a in args)})")
            if i < len(inputs):
                raise TypeError(f"forward: input '{key}' given twice")
            values[i] = value
        out = []
        for (name, shape, dtype, text), t in zip(args, values):
            if t is None:
                raise TypeError(f"forward missing input '{name}' ({text})")
            if not isinstance(t, torch.Tensor):
                raise ValueError(f"input '{name}': expected a torch.Tensor {text}, got "
                                 f"{type(t).__name__}")
            if t.device != self._device:
                raise ValueError(f"input '{name}': expected a CUDA tensor on {self._device}, "
                                 f"got a tensor on {t.device}")
            if t.dtype != dtype:
                raise ValueError(f"input '{name}': expected dtype {dtype} ({text}), got "
                                 f"{t.dtype}")
            if tuple(t.shape) != shape:
                raise ValueError(f"input '{name}': expected shape {list(shape)}, got "
                                 f"{list(t.shape)}")
            out.append(t.contiguous())
        return out

    def forward(self, *inputs, **named):
        plan = _plans[self._plan_id]
        xs = self._bind(inputs, named)
        params = [self._resolve(p) for p in self._param_paths]
        main_grads = [self._resolve(p) for p in self._main_grad_paths]
        state = [self._resolve(p) for p in self._state_paths]
        results = _ProgramFunction.apply(self._plan_id, *xs, *params, *main_grads, *state)
        outputs = results[:plan.num_outputs]
        updates = results[plan.num_outputs:]
        if updates or plan.fwd_scale_updates or plan.update_op is not None:
            with torch.no_grad():
                for name, value in zip(plan.forward_updates, updates):
                    state[plan.state_index[name]].copy_(value)
                _apply_scale_updates(plan.fwd_scale_updates, state)
                if plan.update_op is not None:
                    _run_update_entry(plan, "fwd", state, self._device)
        return outputs[0] if plan.num_outputs == 1 else tuple(outputs)

    @property
    def pair(self):
        return self._pair

    @property
    def artifact(self):
        return self._registered.artifact

    def extra_repr(self):
        return f"artifact='{self._registered.artifact.path}', {self._pair.describe()}"


def _pick_entries(art, forward, backward, update=None):
    names = list(art.entries)
    if forward is None:
        pairs = [n for n in names if n.endswith("_forward") and n[:-8] + "_backward" in names]
        # An inference program: its entry (and maybe <name>_update).
        single = [n for n in names if not (n.endswith("_update") and n[:-7] in names)]
        if len(pairs) == 1:
            forward = pairs[0]
        elif not pairs and len(single) == 1:
            forward = single[0]
        else:
            raise ValueError(f"artifact '{art.path}': name the forward entry (entries: "
                             f"{', '.join(names)}; a teq.Program's are <name>_forward and "
                             f"<name>_backward)")
    fwd = art[forward]
    if backward is None and forward.endswith("_forward") and forward[:-8] + "_backward" in names:
        backward = forward[:-8] + "_backward"
    bwd = art[backward] if backward is not None else None
    if update is None:
        stem = forward[:-8] if forward.endswith("_forward") else forward
        update = stem + "_update" if stem + "_update" in names else None
    upd = art[update] if update else None
    return fwd, bwd, upd


def _program_saved_from_args(program, art, fwd, bwd):
    """{backward argument: forward argument} for the saved tensors the
    compiler dropped because they are the forward's own arguments."""
    if bwd is None:
        return {}
    returned = {a.name for a in art[fwd].outputs}
    wanted = {a.name for a in art[bwd].inputs} - returned
    args = {t.name for t in program._inputs + program._params}
    found = {}
    for op in program._ops:
        if op.kind == "linear":
            slots = {f"{op.config['name']}.saved_input": op.operands[0],
                     f"{op.config['name']}.saved_weight": op.config["weight"]}
        elif op.kind == "arith.mulf":
            slots = {f"{op.result.name}.lhs": op.operands[0],
                     f"{op.result.name}.rhs": op.operands[1]}
        else:
            continue
        for saved, tensor in slots.items():
            if saved in wanted and tensor.name in args:
                found[saved] = tensor.name
    return found
