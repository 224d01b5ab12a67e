"""Linear: an nn.Module over a forward and a backward entry whose roles
are given explicitly (teq.runtime.TrainingPair)."""

import math

from teq.runtime import TrainingPair
from teq.torch._common import (_FunctionBase, _ModuleBase, _TORCH_DTYPES, _apply_keeping_dtypes,
                               _lock, _plans, _require_torch, _split_forward_results, torch)
from teq.torch.ops import register
from teq.torch.scaling import _default_state_init


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
        self.saved_buffers = tuple(len(a.value_buffers) for (r, _), a in
                                   zip(pair.forward_results, pair.forward.outputs) if r == "saved")
        self.output_dtypes = tuple(_TORCH_DTYPES[a.dtype] for (r, _), a in
                                   zip(pair.forward_results, pair.forward.outputs)
                                   if r == "output")
        self.output_shapes = tuple(a.shape for (r, _), a in
                                   zip(pair.forward_results, pair.forward.outputs)
                                   if r == "output")


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
            plan.fwd_op, plan.fwd_op.op(*flat), plan.forward_results, values)
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
        # One value per result (an alias result is its argument's value).
        results = plan.bwd_op.unflatten(plan.bwd_op.op(*plan.bwd_op.flatten(values)), values)
        dx = dw = db = None
        for (role, name), value in zip(plan.backward_results, results):
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

    def _apply(self, fn, recurse=True):
        # .to(torch.bfloat16) and the like: FP8 state and main_grad stay fp32
        # (the entries take them so); weight.main_grad follows its buffer.
        paths = [(n,) for n in _plans[self._plan_id].state_names]
        if self.main_grad is not None:
            paths.append(("main_grad",))
        result = _apply_keeping_dtypes(self, super()._apply, fn, recurse, paths)
        if self.main_grad is not None:
            self.weight.main_grad = self.main_grad
        return result

    def extra_repr(self):
        return (f"artifact='{self.registered.artifact.path}', "
                f"{self.pair.describe()}")
