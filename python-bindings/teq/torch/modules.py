"""Module: a compiled teq.Program as an nn.Module (its roles from
ProgramPair, its delayed-scaling update from teq.torch.scaling)."""

import hashlib
import math
import os
import tempfile

from teq import runtime as _runtime
from teq.torch._common import (_FunctionBase, _ModuleBase, _TORCH_DTYPES, _apply_keeping_dtypes,
                               _lock, _plans, _require_torch, _split_forward_results, torch)
from teq.torch.ops import _artifacts, register
from teq.torch.roles import STATE_SUFFIXES, ProgramPair, _pick_entries, _program_saved_from_args
from teq.torch.scaling import (_apply_scale_updates, _default_state_init, _run_update_entry,
                               _scale_updates)


class _ProgramPlan:
    """What _ProgramFunction needs, as plain Python values (looked up by
    id, so that torch.compile sees only an int constant)."""

    def __init__(self, pair, fwd_op, bwd_op, state_names, updates, device, update_op=None,
                 infer_op=None):
        self.pair = pair
        self.fwd_op = fwd_op
        self.bwd_op = bwd_op
        # The inference forward (run under torch.no_grad()): the forward's
        # results less the saved ones, in the same order.
        self.infer_op = infer_op
        self.infer_results = tuple(r for r in pair.forward_results if r[0] != "saved")
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
                # An alias (the forward's argument itself) is saved as that
                # argument's tensors.
                self.saved[n] = (off, len(a.value_buffers))
                off += len(a.value_buffers)
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


def _forward_values(plan, xs, params, state):
    """The forward entry's argument values, in its order."""
    values = []
    for role, name in plan.pair.forward_args:
        if role == "state":
            values.append(state[plan.state_index[name]])
        else:
            kind, i = plan.arg_pos[name]
            values.append(xs[i] if kind == "input" else params[i])
    return values


class _ProgramFunction(_FunctionBase):
    @staticmethod
    def forward(ctx, plan_id, *tensors):
        plan = _plans[plan_id]
        n_in, n_par, n_mg = plan.n_in, plan.n_par, plan.n_mg
        xs = tensors[:n_in]
        params = tensors[n_in:n_in + n_par]
        main_grads = tensors[n_in + n_par:n_in + n_par + n_mg]
        state = tensors[n_in + n_par + n_mg:]
        values = _forward_values(plan, xs, params, state)
        outputs, saved, updates = _split_forward_results(
            plan.fwd_op, plan.fwd_op.op(*plan.fwd_op.flatten(values)),
            plan.pair.forward_results, values)
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
        # One value per result (an alias result is its argument's value).
        results = plan.bwd_op.unflatten(plan.bwd_op.op(*plan.bwd_op.flatten(values)), values)
        by_result = []
        for (role, name), value in zip(plan.pair.backward_results, results):
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


def _check_inference_entry(pair, entry):
    """The inference entry takes the forward's arguments and returns its
    results less the saved ones, by name and in order."""
    fwd = pair.forward
    want_in = [a.name for a in fwd.inputs]
    want_out = [a.name for (role, _), a in zip(pair.forward_results, fwd.outputs)
                if role != "saved"]
    got_in = [a.name for a in entry.inputs]
    got_out = [a.name for a in entry.outputs]
    if (got_in, got_out) != (want_in, want_out):
        raise ValueError(
            f"inference entry '{entry.name}' does not match forward '{fwd.name}': it must "
            f"take the forward's arguments ({', '.join(want_in)}) and return its results "
            f"less the saved ones ({', '.join(want_out)}); it takes ({', '.join(got_in)}) "
            f"and returns ({', '.join(got_out)})")


def _split(name):
    parts = name.split(".")
    if not all(p.isidentifier() for p in parts):
        raise ValueError(f"'{name}': every dotted component of a parameter or buffer name "
                         f"must be an identifier")
    return tuple(parts)


def _is_delayed(recipe):
    from teq.recipe import DelayedScaling

    return isinstance(recipe, DelayedScaling)


def _norm_gammas(forward):
    """{gamma argument: zero_centered_gamma} of the norms of a forward entry,
    from what its saved statistics are computed by."""
    gammas = {}
    for a in forward.outputs:
        by = a.computed_by or {}
        if by.get("op") in ("layer_norm", "rms_norm") and "gamma" in by:
            gammas[by["gamma"]] = bool(by.get("zero_centered_gamma", False))
    return gammas


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
      when it has one, else lib/Reference's rule as a torch op
      (delayed_scaling_update: on the host, a device synchronisation per
      update); ``"entry"`` / ``"torch"`` choose; for
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

    def __init__(self, pair, registered, *, init=None, recipe=None, scale_update=True,
                 inference=None):
        _require_torch("teq.torch.Module")
        super().__init__()
        self._pair = pair
        self._registered = registered
        device = torch.device("cuda", registered.artifact.device)
        self._device = device
        init = dict(init or {})
        fargs = {a.name: a for a in pair.forward.inputs}
        gammas = _norm_gammas(pair.forward)
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
                value = self._default_param(name, arg, fargs, device, gammas)
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
        infer_op = None
        if inference is not None:
            _check_inference_entry(pair, inference)
            infer_op = registered[inference.name]
        plan = _ProgramPlan(pair, registered[pair.forward.name], bwd_op, pair.state,
                            updates, registered.artifact.device, update_op, infer_op)
        with _lock:
            _plans.append(plan)
            self._plan_id = len(_plans) - 1

    def _apply(self, fn, recurse=True):
        # .to(torch.bfloat16) and the like: FP8 state and main_grad stay fp32
        # (the entries take them so); weight.main_grad follows its buffer.
        result = _apply_keeping_dtypes(self, super()._apply, fn, recurse,
                                       self._state_paths + self._main_grad_paths)
        for name, path in zip(self._pair.main_grads, self._main_grad_paths):
            self._resolve(_split(name)).main_grad = self._resolve(path)
        return result

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
    def _default_param(name, arg, fargs, device, gammas):
        """TE's initialisation: a norm's gamma ones (zeros with
        zero_centered_gamma); nn.Linear's for the rest: kaiming_uniform(a=
        sqrt(5)) for a matrix, uniform(+-1/sqrt(fan_in)) for a vector next to
        a '<prefix>.weight' matrix, zeros otherwise (a norm's beta)."""
        value = torch.empty(arg.shape, dtype=_TORCH_DTYPES[arg.dtype], device=device)
        if name in gammas:
            return value.fill_(0.0 if gammas[name] else 1.0)
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
                      init=None, recipe=None, scale_update=True, inference=None):
        """The Module of a compiled teq.Program at `path`: entries `forward`
        and `backward` (default: the artifact's ``<name>_forward`` /
        ``<name>_backward`` pair, or its only entry for an inference
        program); `update` the DelayedScaling update entry (default
        ``<name>_update`` if there is one; False: none). `inputs`/`parameters` (names) and `saved_from_args`
        ({backward argument: forward argument}) override the roles read
        from the names (ProgramPair); `init` ({name: tensor or float})
        sets parameters and state; `recipe` and `scale_update` control the
        delayed-scaling update (see the class). `inference`: the entry run
        under ``torch.no_grad()`` in place of the training forward (default:
        ``<name>``, a Program's inference forward, when the artifact has it
        next to the pair; False: none)."""
        _require_torch("teq.torch.Module")
        registered = register(path, namespace=namespace, device=device)
        art = registered.artifact
        fwd, bwd, upd = _pick_entries(art, forward, backward, update)
        pair = ProgramPair(fwd, bwd, update=upd, inputs=inputs, parameters=parameters,
                           saved_from_args=saved_from_args)
        if inference is None:
            stem = fwd.name[:-8] if fwd.name.endswith("_forward") else None
            inference = art[stem] if bwd is not None and stem in art.entries else None
        elif inference is False:
            inference = None
        else:
            inference = art[inference]
        return cls(pair, registered, init=init, recipe=recipe, scale_update=scale_update,
                   inference=inference)

    @classmethod
    def from_program(cls, program, path=None, *, training=None, target=None, device=0,
                     namespace=None, init=None, scale_update=True, inference=True,
                     **compile_options):
        """Compiles `program` (a teq.Program) with teq.compile (needs the
        compiler extension: a workstation build) into `path` (default: a
        file named by the program's IR in the temporary directory) and
        loads it as a Module. The roles come from the Program itself
        (inputs, parameters, the saved tensors that are its arguments) and
        the delayed-scaling recipe of each Linear from its autocast
        regions. `target` defaults to the Program's, else the GPU's. A
        training Module also gets the Program's inference forward
        (``inference=True``, Program.module's): its forward runs that entry
        under ``torch.no_grad()``."""
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
        inference = bool(inference and training)
        module = program.module(training=training, inference=inference)
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
        names = program.entries(training, inference)
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
                   scale_update=scale_update,
                   inference=art[program.name] if inference else None)

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
        if torch.is_grad_enabled():
            self._check_input_grads(plan, xs)
        params = [self._resolve(p) for p in self._param_paths]
        main_grads = [self._resolve(p) for p in self._main_grad_paths]
        state = [self._resolve(p) for p in self._state_paths]
        if plan.infer_op is not None and not torch.is_grad_enabled():
            # Inference: the entry that saves nothing and writes no
            # columnwise copies; nothing for autograd to record.
            op = plan.infer_op
            values = _forward_values(plan, xs, params, state)
            outputs, _, updates = _split_forward_results(
                op, op.op(*op.flatten(values)), plan.infer_results, values)
        else:
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

    def _check_input_grads(self, plan, xs):
        """An input that requires grad (it comes from a trainable op) whose
        gradient the backward entry does not compute would silently get
        none: refused instead, saying how to compile the gradient."""
        for i, x in enumerate(xs):
            if x.requires_grad and plan.grad_slots[i] is None:
                name = self._input_args[i][0]
                raise ValueError(
                    f"input '{name}' requires grad, but the backward entry "
                    f"'{plan.bwd_op.entry.name if plan.bwd_op else '(none)'}' computes no "
                    f"gradient for it, so it would get none: declare it "
                    f"p.input('{name}', ..., requires_grad=True) in the Program (with "
                    f"Module.from_artifact also inputs=['{name}']), or pass "
                    f"{name}.detach() if no gradient should flow")

    @property
    def pair(self):
        return self._pair

    @property
    def artifact(self):
        return self._registered.artifact

    @property
    def inference_entry(self):
        """The entry forward runs under ``torch.no_grad()`` (a
        teq.runtime.Entry), or None: the training forward runs then too."""
        op = _plans[self._plan_id].infer_op
        return op.entry if op is not None else None

    def extra_repr(self):
        return f"artifact='{self._registered.artifact.path}', {self._pair.describe()}"
