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
"""

import math
import os
import re
import threading

import torch

from teq import runtime as _runtime
from teq.runtime import QuantizedTensor, TrainingPair

__all__ = ["EntryOp", "Linear", "Registered", "register"]

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


def torch_dtype(encoding):
    """The torch dtype a buffer of `encoding` is allocated with (FP8, FP4 and
    E8M0 buffers: uint8 raw bytes, as TE keeps them)."""
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
    if isinstance(artifact, _runtime.Artifact):
        art = artifact
        if not art.loaded:
            raise ValueError(f"artifact '{art.path}' was only inspected; register a loaded "
                             f"artifact (teq.runtime.load) or a path")
    else:
        art = _load(artifact, device)
    namespace = namespace or default_namespace(art.path)
    if not re.fullmatch(r"[A-Za-z_][A-Za-z0-9_]*", namespace):
        raise ValueError(f"namespace '{namespace}' is not an identifier")
    with _lock:
        done = _registered.get(namespace)
        if done is not None:
            if (os.path.realpath(done.artifact.path) == os.path.realpath(art.path)
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


class _LinearFunction(torch.autograd.Function):
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
        results = plan.fwd_op.op(*flat)
        if plan.fwd_op.num_results == 1:
            results = (results,)
        outputs, saved, updates = [], [], []
        i = 0
        for (role, name), arg in zip(plan.forward_results, plan.fwd_op.outputs):
            n = len(arg.buffers)
            if role == "output":
                outputs.append(results[i])
            elif role == "saved":
                saved.extend(results[i:i + n])
            else:
                updates.append(results[i])
            i += n
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


class Linear(torch.nn.Module):
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
