"""Writing teq programs in Python with TE's names, no IR text.

    import teq
    from teq.recipe import Float8CurrentScaling

    p = teq.Program("mlp", target="sm_90")
    x = p.input("x", (64, 128))                  # bf16 unless dtype= says
    fc1 = p.Linear(128, 512, bias=False, name="fc1")
    fc2 = p.Linear(512, 128, bias=False, name="fc2")
    with teq.autocast(recipe=Float8CurrentScaling()):
        y = fc2(p.tanh(fc1(x)))
    p.output(y)
    print(p.module(training=True))               # @mlp_forward, @mlp_backward
    teq.compile(p, output="mlp.so")

``teq.autocast`` nests as ``te.autocast``: the innermost region wins, a
region without a recipe uses the target's default recipe
(``get_default_recipe``), ``enabled=False`` runs in high precision. Each
Linear remembers the regions it was called in; its backward runs under the
same recipe, as TE captures the forward's recipe.

A training program (``module(training=True)``, the default of
``teq.compile`` when the program has trainable parameters) has two entries:

* ``@<name>_forward(inputs..., parameters..., [state...])`` returns the
  outputs, then the saved tensors (quantized where backward reads them
  quantized), then the updated delayed-scaling amax histories;
* ``@<name>_backward(output grads..., saved..., [main_grads...], [state...])``
  returns the gradients of the inputs that require them, of the parameters,
  then the updated amax histories;
* with DelayedScaling, ``@<name>_update(state...)`` is TE's update step
  after a training step: each amax history rolls and each scale becomes
  ``fp8_max * 2^-margin / amax`` (``teq.delayed_scaling_update``); it returns
  ``<state>.updated`` for every state argument;
* with ``inference=True``, also ``@<name>(inputs..., parameters...,
  [state...])``: the forward for inference, as a program without training
  compiles it. It takes the training forward's arguments and returns its
  outputs and updated amax histories, but saves nothing: each Linear
  quantizes its input and weight for the forward GEMM only (no columnwise
  copies, no saved tensors). ``teq.torch`` runs it under
  ``torch.no_grad()``.

``Program.entries(training)`` lists those arguments and results by name;
the artifact's manifest names them so too (``teq.name``), which is how
``teq.torch`` ties a compiled Program to parameters, buffers and gradients.
"""

import contextlib
import dataclasses
import threading
from typing import List, Optional, Tuple

from teq import _teq_compiler as _c
from teq.compiler import Module, Target, dtype_name, tensor_type
from teq.norm_modules import LayerNormModule, RMSNormModule
from teq.recipe import (CustomRecipe, DelayedScaling, Float8CurrentScaling,
                        MXFP8BlockScaling, Recipe)

__all__ = ["Program", "autocast", "Tensor"]

_state = threading.local()


def _autocast_stack():
    if not hasattr(_state, "stack"):
        _state.stack = []
    return _state.stack


@contextlib.contextmanager
def autocast(enabled=True, recipe=None, amax_reduction_group=None):
    """TE's ``te.autocast``: the Linears called inside quantize under
    `recipe` (None: the target's default recipe); nesting as TE's, the
    innermost region wins. ``amax_reduction_group`` (a
    Program.process_group) is the group DelayedScaling with ``reduce_amax``
    all-reduces (max) the recorded amaxes over in the update entry, so that
    every rank's scales are equal (TE's default is the world group; a
    Program names it). Sequence-parallel Linears under DelayedScaling gather
    FP8 data with the stored scale and need it."""
    if recipe is not None and not isinstance(recipe, Recipe):
        raise TypeError(f"autocast recipe must be a teq recipe "
                        f"(teq.recipe.DelayedScaling(), ...), got {recipe!r}")
    if amax_reduction_group is not None and (
            not isinstance(amax_reduction_group, Tensor)
            or amax_reduction_group.kind != "process_group"):
        raise TypeError("autocast amax_reduction_group must be a "
                        f"Program.process_group, got {amax_reduction_group!r}")
    stack = _autocast_stack()
    stack.append((recipe, bool(enabled), amax_reduction_group))
    try:
        yield
    finally:
        stack.pop()


@dataclasses.dataclass(eq=False)
class Tensor:
    """A value of a Program: its shape and dtype. Made by Program.input,
    Program.parameter and the ops."""

    program: "Program"
    name: str
    shape: Tuple[int, ...]
    dtype: str
    kind: str  # "input", "parameter", "process_group" or "value"
    requires_grad: bool = False

    def __repr__(self):
        return f"teq.Tensor({self.name}: {self.dtype}{list(self.shape)})"


@dataclasses.dataclass
class _Op:
    kind: str             # "linear" or an arith/math op name
    operands: List[Tensor]
    result: Tensor
    regions: Tuple        # the autocast stack when it was called
    config: Optional[dict] = None  # Linear options


class LinearModule:
    """TE's ``te.Linear(in_features, out_features, bias=True, ...)`` inside
    a Program: calling it on a Tensor adds a Linear (weight [out, in], bias
    [out]) to the program."""

    def __init__(self, program, in_features, out_features, bias=True,
                 name=None, params_dtype="bf16", fuse_wgrad_accumulation=False,
                 parallel_mode=None, sequence_parallel=False, tp_size=1,
                 tp_group=None, save_original_input=False):
        self.program = program
        self.name = name or f"linear{len(program._linears)}"
        program._linears.append(self)
        self.weight = program.parameter(f"{self.name}.weight",
                                        (out_features, in_features), params_dtype)
        self.bias = (program.parameter(f"{self.name}.bias", (out_features,),
                                       params_dtype) if bias else None)
        self.options = dict(fuse_wgrad_accumulation=fuse_wgrad_accumulation,
                            parallel_mode=parallel_mode,
                            sequence_parallel=sequence_parallel, tp_size=tp_size,
                            tp_group=tp_group, save_original_input=save_original_input)

    def __call__(self, x):
        return self.program.linear(x, self.weight, self.bias, name=self.name,
                                   **self.options)


class Program:
    """A teq program built in Python (see the module docstring)."""

    def __init__(self, name="model", target=None):
        if not name.isidentifier():
            raise ValueError(f"program name {name!r} must be an identifier")
        self.name = name
        self.target = Target.of(target) if target is not None else None
        self._inputs: List[Tensor] = []
        self._params: List[Tensor] = []
        self._groups: List[Tensor] = []
        self._ops: List[_Op] = []
        self._outputs: List[Tensor] = []
        self._linears: List[LinearModule] = []
        self._norm_modules: list = []  # LayerNormModule / RMSNormModule
        self._names = set()

    # -- values ---------------------------------------------------------
    def _new(self, name, shape, dtype, kind, requires_grad):
        if name in self._names:
            raise ValueError(f"the program already has a value named '{name}'")
        self._names.add(name)
        return Tensor(self, name, tuple(int(d) for d in shape), dtype_name(dtype),
                      kind, requires_grad)

    def input(self, name, shape, dtype="bf16", requires_grad=False):
        """An activation input; with requires_grad the backward entry
        returns its gradient."""
        tensor_type(shape, dtype)  # checks the shape and dtype
        t = self._new(name, shape, dtype, "input", requires_grad)
        self._inputs.append(t)
        return t

    def parameter(self, name, shape, dtype="bf16", requires_grad=True):
        """A weight or bias."""
        tensor_type(shape, dtype)
        t = self._new(name, shape, dtype, "parameter", requires_grad)
        self._params.append(t)
        return t

    def process_group(self, name):
        """A communicator argument (``!teq.process_group``) for
        tensor-parallel Linears (``tp_group=``); passed in at run time."""
        t = self._new(name, (), "f32", "process_group", False)
        t.dtype = "process_group"
        self._groups.append(t)
        return t

    def Linear(self, in_features, out_features, bias=True, **options):
        return LinearModule(self, in_features, out_features, bias, **options)

    def LayerNorm(self, normalized_shape, eps=1e-5, zero_centered_gamma=False,
                  **options):
        return LayerNormModule(self, normalized_shape, eps, zero_centered_gamma,
                               **options)

    def RMSNorm(self, normalized_shape, eps=1e-5, zero_centered_gamma=False,
                **options):
        return RMSNormModule(self, normalized_shape, eps, zero_centered_gamma,
                             **options)

    def _check(self, *tensors):
        for t in tensors:
            if not isinstance(t, Tensor) or t.program is not self:
                raise TypeError(f"expected a Tensor of program '{self.name}', "
                                f"got {t!r}")

    def _record(self, kind, operands, shape, dtype, config=None):
        short = kind.split(".")[-1].rstrip("f")
        result = Tensor(self, f"{short}{len(self._ops)}", shape, dtype, "value",
                        any(o.requires_grad for o in operands))
        self._ops.append(_Op(kind, list(operands), result,
                             tuple(_autocast_stack()), config))
        return result

    # -- ops --------------------------------------------------------------
    def linear(self, x, weight, bias=None, *, name, fuse_wgrad_accumulation=False,
               parallel_mode=None, sequence_parallel=False, tp_size=1,
               tp_group=None, save_original_input=False):
        """y = x @ weight^T (+ bias), TE's Linear with its options. Tensor
        parallel (``parallel_mode`` "column" or "row", ``tp_size``,
        ``sequence_parallel``) takes the local weight shard and a
        ``tp_group`` (Program.process_group); shapes follow TE
        (te-semantics.md §7: column + SP gathers the input's first dimension,
        row + SP scatters the output's)."""
        self._check(x, weight, *([bias] if bias is not None else []))
        if len(weight.shape) != 2 or x.shape[-1] != weight.shape[1]:
            raise ValueError(f"Linear '{name}': input {list(x.shape)} does not fit "
                             f"weight {list(weight.shape)} ([out, in])")
        if parallel_mode not in (None, "column", "row"):
            raise ValueError(f"Linear '{name}': parallel_mode must be None, 'column' "
                             f"or 'row', got {parallel_mode!r}")
        if not isinstance(tp_size, int) or tp_size < 1:
            raise ValueError(f"Linear '{name}': tp_size must be a positive integer, "
                             f"got {tp_size!r}")
        if (tp_size > 1) != (tp_group is not None):
            raise ValueError(f"Linear '{name}': tp_size = {tp_size} "
                             + ("needs tp_group=" if tp_size > 1 else "takes no tp_group")
                             + " (Program.process_group)")
        if tp_group is not None:
            self._check(tp_group)
            if tp_group.kind != "process_group":
                raise TypeError(f"Linear '{name}': tp_group must be a "
                                "Program.process_group")
        shape = x.shape[:-1] + (weight.shape[0],)
        if sequence_parallel and tp_size > 1 and parallel_mode is not None:
            if len(x.shape) < 2:
                raise ValueError(f"Linear '{name}': sequence parallelism splits the "
                                 "first (sequence) dimension; the input has none")
            if parallel_mode == "column":
                shape = (x.shape[0] * tp_size,) + shape[1:]
            elif x.shape[0] % tp_size:
                raise ValueError(f"Linear '{name}': row-parallel sequence parallelism "
                                 f"scatters dimension 0 ({x.shape[0]}) over "
                                 f"tp_size = {tp_size}, which does not divide it")
            else:
                shape = (x.shape[0] // tp_size,) + shape[1:]
        config = dict(name=name, bias=bias is not None,
                      fuse_wgrad_accumulation=fuse_wgrad_accumulation,
                      save_original_input=save_original_input,
                      parallel_mode=parallel_mode, sequence_parallel=sequence_parallel,
                      tp_size=tp_size, tp_group=tp_group,
                      weight=weight, bias_value=bias)
        operands = [x, weight] + ([bias] if bias is not None else [])
        return self._record("linear", operands, shape, x.dtype, config)

    def _elementwise(self, kind, *operands):
        self._check(*operands)
        first = operands[0]
        for o in operands[1:]:
            if o.shape != first.shape or o.dtype != first.dtype:
                raise ValueError(f"{kind}: operands {o!r} and {first!r} differ "
                                 "in shape or dtype")
        return self._record(kind, operands, first.shape, first.dtype)

    def tanh(self, x):
        return self._elementwise("math.tanh", x)

    # Activations with TE's names and formulas (teq.activation); their
    # derivatives are the compiler's (teq-decompose-activations), and
    # backward saves the activation's input.
    _GATED = ("geglu", "qgeglu", "reglu", "sreglu", "swiglu", "glu")

    def _activation(self, kind, x):
        self._check(x)
        shape = tuple(x.shape)
        if kind in self._GATED:
            if not shape or shape[-1] % 2:
                raise ValueError(f"{kind}: a gated activation takes [..., 2n] "
                                 "(the activated half, then the linear half); "
                                 f"got {list(shape)}")
            shape = shape[:-1] + (shape[-1] // 2,)
        return self._record("activation", [x], shape, x.dtype, dict(kind=kind))

    def gelu(self, x, approximate="tanh"):
        """GELU: approximate="tanh" is TE's (and F.gelu(approximate='tanh')'s)
        tanh form, "none" PyTorch's exact erf form (TE has no kernel for it)."""
        if approximate not in ("tanh", "none"):
            raise ValueError(f"gelu: approximate must be 'tanh' or 'none', got "
                             f"{approximate!r}")
        return self._activation("gelu" if approximate == "tanh" else "gelu_erf", x)

    def qgelu(self, x):
        """QuickGELU: x * sigmoid(1.702 x)."""
        return self._activation("qgelu", x)

    def silu(self, x):
        """SiLU: x * sigmoid(x)."""
        return self._activation("silu", x)

    def relu(self, x):
        return self._activation("relu", x)

    def srelu(self, x):
        """Squared ReLU: relu(x)^2."""
        return self._activation("srelu", x)

    def swiglu(self, x):
        """silu(a) * b of x = [a | b] ([..., 2n] -> [..., n]; TE's half
        order: the first half is activated)."""
        return self._activation("swiglu", x)

    def geglu(self, x):
        """gelu(a) * b of x = [a | b] (TE's tanh GELU)."""
        return self._activation("geglu", x)

    def qgeglu(self, x):
        """qgelu(a) * b of x = [a | b]."""
        return self._activation("qgeglu", x)

    def reglu(self, x):
        """relu(a) * b of x = [a | b]."""
        return self._activation("reglu", x)

    def sreglu(self, x):
        """srelu(a) * b of x = [a | b]."""
        return self._activation("sreglu", x)

    def glu(self, x):
        """sigmoid(a) * b of x = [a | b]."""
        return self._activation("glu", x)

    # TE's norms (teq.layer_norm / teq.rms_norm, docs/Norms.md). Forward
    # saves x, the f32 statistics and the weight (TE's ctx tensors);
    # backward emits the *_backward op on them.
    def _norm(self, kind, x, weight, bias, eps, zero_centered_gamma, name):
        self._check(x, weight, *([bias] if bias is not None else []))
        what = f"{kind} '{name}'" if name else kind
        if len(x.shape) < 2:
            raise ValueError(f"{what}: x must have rank >= 2 (rows, then the "
                             f"normalised dimension), got {list(x.shape)}")
        if x.dtype not in ("bf16", "f16", "f32"):
            raise ValueError(f"{what}: x must be bf16, f16 or f32, got {x.dtype}")
        n = x.shape[-1]
        for role, t in (("weight", weight), ("bias", bias)):
            if t is None:
                continue
            if t.shape != (n,):
                raise ValueError(f"{what}: {role} '{t.name}' must be [{n}] (x's "
                                 f"last dimension), got {list(t.shape)}")
            if t.dtype not in (x.dtype, "f32") or t.dtype != weight.dtype:
                raise ValueError(f"{what}: {role} '{t.name}' must be of x's dtype "
                                 f"({x.dtype}) or f32, as the weight, got {t.dtype}")
        if (isinstance(eps, bool) or not isinstance(eps, (int, float))
                or not 0 < eps < float("inf")):
            raise ValueError(f"{what}: eps must be a finite number > 0, got {eps!r}")
        if not isinstance(zero_centered_gamma, bool):
            raise TypeError(f"{what}: zero_centered_gamma must be a bool, got "
                            f"{zero_centered_gamma!r}")
        if name is not None and any(o.config and o.config.get("name") == name
                                    for o in self._ops):
            raise ValueError(f"{what}: the program already has an op named '{name}'")
        result = self._record(kind, [x, weight] + ([bias] if bias is not None else []),
                              x.shape, x.dtype,
                              dict(eps=float(eps), bias=bias,
                                   zero_centered_gamma=zero_centered_gamma))
        self._ops[-1].config["name"] = name or result.name
        return result

    def layer_norm(self, x, weight, bias=None, eps=1e-5, zero_centered_gamma=False,
                   *, name=None):
        """TE's LayerNorm over x's last dimension: weight (and bias) [n], of
        x's dtype or f32; zero_centered_gamma scales by weight + 1."""
        return self._norm("layer_norm", x, weight, bias, eps, zero_centered_gamma,
                          name)

    def rms_norm(self, x, weight, eps=1e-5, zero_centered_gamma=False, *,
                 name=None):
        """TE's RMSNorm over x's last dimension: weight [n]."""
        return self._norm("rms_norm", x, weight, None, eps, zero_centered_gamma,
                          name)

    def add(self, a, b):
        return self._elementwise("arith.addf", a, b)

    def mul(self, a, b):
        return self._elementwise("arith.mulf", a, b)

    def output(self, *tensors):
        self._check(*tensors)
        self._outputs.extend(tensors)

    # -- building ---------------------------------------------------------
    def _effective_recipe(self, regions):
        """The recipe a Linear called under `regions` runs with, or None for
        high precision."""
        for recipe, enabled, _ in reversed(regions):
            if not enabled:
                return None
            if recipe is not None:
                return recipe
            return self._default_recipe()
        return None

    def _amax_reduction_group(self, op):
        """The group a delayed-scaling Linear's update reduces its amaxes
        over (the autocast region that gives its recipe), or None."""
        for _, enabled, group in reversed(op.regions):
            if not enabled:
                return None
            delayed, recipe = self._is_delayed(op)
            if not delayed or not recipe.reduce_amax:
                return None
            if group is not None:
                self._check(group)
            return group
        return None

    def _check_delayed_gathers(self):
        """A sequence-parallel Linear under DelayedScaling gathers FP8 data
        quantized with the stored scale: the ranks' scales must be equal,
        which only the update's amax reduction keeps them."""
        for op in self._ops:
            c = op.config
            if (op.kind != "linear" or c["tp_size"] == 1
                    or not c["sequence_parallel"] or not c["parallel_mode"]
                    or not self._is_delayed(op)[0]):
                continue
            group = self._amax_reduction_group(op)
            if group is None:
                raise ValueError(
                    f"Linear '{c['name']}': DelayedScaling with sequence "
                    "parallelism gathers FP8 quantized with the stored scale, "
                    "so every rank's scale must be the same: run it under "
                    "autocast(amax_reduction_group=<its tp group or one "
                    "containing it>) with reduce_amax=True")
            # The update may reduce over a larger group (TE's TP x DP); that
            # it contains the TP group is the caller's communicators' fact.

    def _update_results(self, update_args):
        groups = {g.name for g in self._groups}
        return [f"{n}.updated" for n in update_args if n not in groups]

    def _update_groups(self, training):
        """The update entry's process-group arguments, in order."""
        groups = []
        ops = {id(op): op for op, _, _ in
               self._state_args(True) + (self._state_args(False) if training else [])}
        for op in ops.values():
            g = self._amax_reduction_group(op)
            if g is not None and all(g is not h for h in groups):
                groups.append(g)
        return groups

    def _default_recipe(self):
        if self.target is None:
            raise ValueError(f"program '{self.name}': autocast without a recipe "
                             "uses the target's default recipe; give the Program "
                             "a target")
        if self.target.supports("mxfp8"):
            return MXFP8BlockScaling()
        if self.target.sm >= 120:
            return Float8CurrentScaling()
        return DelayedScaling()

    def _is_delayed(self, op):
        recipe = self._effective_recipe(op.regions)
        if isinstance(recipe, CustomRecipe) and any(
                type(q).__name__ == "DelayedScalingRequest" for _, q in recipe.rules):
            raise NotImplementedError(
                f"Linear '{op.config['name']}': a CustomRecipe with a "
                "DelayedScalingRequest needs per-role state, which the Program "
                "builder does not lay out yet")
        return isinstance(recipe, DelayedScaling), recipe

    def _state_args(self, forward):
        """(name, shape) of the delayed-scaling state arguments."""
        args = []
        for op in self._ops:
            if op.kind != "linear":
                continue
            delayed, recipe = self._is_delayed(op)
            if delayed:
                slots = 3 if forward else 2
                prefix = f"{op.config['name']}.{'fwd' if forward else 'bwd'}"
                args.append((op, f"{prefix}_scale", (slots,)))
                args.append((op, f"{prefix}_amax_history",
                             (recipe.amax_history_len, slots)))
        return args

    def entries(self, training=False, inference=False):
        """{entry: (argument names, result names)} of module(training,
        inference)."""
        return {name: (args, results) for name, (args, results, _) in
                self._plan(training, inference).items()}

    def _plan(self, training, inference=False):
        """{entry: (argument names, result names, (argument roles, result
        roles))}: each role a (role, of) pair the manifest writes as "role"
        and "of" (docs/Artifact.md; of "" for none), None for a process
        group (no argument of the manifest)."""
        if not self._outputs:
            raise ValueError(f"program '{self.name}' has no outputs "
                             "(Program.output)")
        fwd_state = self._state_args(True)
        fwd_args = [t.name for t in self._inputs + self._params + self._groups] + [
            name for _, name, _ in fwd_state]
        fwd_arg_roles = ([("input", "")] * len(self._inputs)
                         + [("parameter", "")] * len(self._params)
                         + [None] * len(self._groups)
                         + [("state", "")] * len(fwd_state))
        fwd_results = [f"output{i}" for i in range(len(self._outputs))]
        fwd_result_roles = [("output", "")] * len(fwd_results)
        self._check_delayed_gathers()
        plan = {}
        update_state = [name for _, name, _ in
                        fwd_state + (self._state_args(False) if training else [])]
        update_groups = [g.name for g in self._update_groups(training)]
        update_roles = ([("state", "")] * len(update_state), [
            ("state_update", n) for n in update_state])
        update_roles[0].extend([None] * len(update_groups))
        update_state += update_groups
        # A forward's updated amax history: the state argument it updates.
        hist_f = [(f"{op.config['name']}.fwd_amax_history.updated", name)
                  for op, name, _ in fwd_state if name.endswith("amax_history")]
        if not training or inference:
            plan[self.name] = (fwd_args, fwd_results + [n for n, _ in hist_f],
                               (fwd_arg_roles, fwd_result_roles + [
                                   ("state_update", of) for _, of in hist_f]))
        if not training:
            if update_state:
                plan[f"{self.name}_update"] = (
                    update_state, self._update_results(update_state), update_roles)
            return plan
        saved = self._saved_values()
        plan[f"{self.name}_forward"] = (
            fwd_args, fwd_results + [n for n, _ in saved] + [n for n, _ in hist_f],
            (fwd_arg_roles, fwd_result_roles + [("saved", "")] * len(saved)
             + [("state_update", of) for _, of in hist_f]))
        fused = [op.config["weight"] for op in self._ops
                 if op.kind == "linear" and op.config["fuse_wgrad_accumulation"]]
        main_grads = [f"{w.name}.main_grad" for w in fused]
        bwd_state = self._state_args(False)
        bwd_args = ([f"grad_output{i}" for i in range(len(self._outputs))]
                    + [n for n, _ in saved] + main_grads
                    + [g.name for g in self._groups]
                    + [name for _, name, _ in bwd_state])
        bwd_arg_roles = ([("grad_output", f"output{i}") for i in range(len(self._outputs))]
                         + [("saved", "")] * len(saved)
                         + [("main_grad", w.name) for w in fused]
                         + [None] * len(self._groups)
                         + [("state", "")] * len(bwd_state))
        # A parameter with a main_grad gets back its accumulated main_grad
        # (fuse_wgrad_accumulation) in place of a gradient.
        grad_of = [t for t in self._inputs + self._params if t.requires_grad]
        grads = [f"grad_{t.name}" for t in grad_of]
        grad_roles = [("main_grad" if any(t is w for w in fused) else "grad", t.name)
                      for t in grad_of]
        hist_b = [(f"{op.config['name']}.bwd_amax_history.updated", name)
                  for op, name, _ in bwd_state if name.endswith("amax_history")]
        plan[f"{self.name}_backward"] = (
            bwd_args, grads + [n for n, _ in hist_b],
            (bwd_arg_roles, grad_roles + [("state_update", of) for _, of in hist_b]))
        if update_state:
            plan[f"{self.name}_update"] = (
                update_state, self._update_results(update_state), update_roles)
        return plan

    def _saved_values(self):
        """(name, (op index, slot)) of what backward reads, in order."""
        saved = []
        for i, op in enumerate(self._ops):
            if op.kind == "linear":
                name = op.config["name"]
                saved.append((f"{name}.saved_input", (i, "input")))
                saved.append((f"{name}.saved_weight", (i, "weight")))
            elif op.kind == "math.tanh":
                saved.append((f"{op.result.name}.result", (i, "result")))
            elif op.kind == "activation":
                saved.append((f"{op.result.name}.input", (i, "input")))
            elif op.kind in ("layer_norm", "rms_norm"):
                name = op.config["name"]
                stats = ("mean", "rstd") if op.kind == "layer_norm" else ("rstd",)
                saved.append((f"{name}.saved_input", (i, "input")))
                saved += [(f"{name}.{s}", (i, s)) for s in stats]
                saved.append((f"{name}.saved_weight", (i, "weight")))
            elif op.kind == "arith.mulf":
                saved.append((f"{op.result.name}.lhs", (i, "lhs")))
                saved.append((f"{op.result.name}.rhs", (i, "rhs")))
        return saved

    def module(self, training=None, inference=False, weight_cache=False):
        """The program as a teq Module: one entry @<name>, or with
        training (default: any parameter or input requires grad) the
        @<name>_forward / @<name>_backward pair, and with inference=True
        also the inference forward @<name> next to them.

        weight_cache=True (TE's is_first_microbatch): compiling also yields,
        for each forward F, @F_weights (the parameters in, their quantized
        copies out) and @F_cached (F taking those copies instead of
        quantizing): with gradient accumulation run @F_weights once per
        optimizer step and @F_cached for every microbatch. Delayed scaling
        and stochastic rounding are refused (their quantizations change
        with every call)."""
        if training is None:
            training = any(t.requires_grad for t in self._inputs + self._params)
        plan = self._plan(training, inference)  # checks outputs
        module = Module(_c.Module.empty(self.target.chip if self.target else None,
                                        self.target.cuda if self.target else ""))
        forward = f"{self.name}_forward" if training else self.name
        saved = self._build_forward(module, training, plan[forward], weight_cache)
        if training and inference:
            self._build_forward(module, False, plan[self.name], weight_cache)
        if training:
            self._build_backward(module, saved, plan[f"{self.name}_backward"])
        if f"{self.name}_update" in plan:
            self._build_update(module, training, plan[f"{self.name}_update"])
        module._handle.verify()
        return module

    def __str__(self):
        return str(self.module())

    def _open_regions(self, builder, current, wanted):
        """Closes and opens autocast regions so that `wanted` is open."""
        common = 0
        while (common < len(current) and common < len(wanted)
               and current[common] is wanted[common]):
            common += 1
        for _ in range(len(current) - common):
            builder.end_autocast()
        for recipe, enabled, _ in wanted[common:]:
            builder.begin_autocast(recipe.to_attr() if recipe else None, enabled)
        return list(wanted)

    def _linear_config(self, op, requires_dgrad, requires_wgrad):
        c = op.config
        fields = [f'name = "{c["name"]}"']
        if c["bias"]:
            fields.append("bias = true")
        if c["fuse_wgrad_accumulation"]:
            fields.append("fuse_wgrad_accumulation = true")
        if not requires_dgrad:
            fields.append("requires_dgrad = false")
        if not requires_wgrad:
            fields.append("requires_wgrad = false")
        if c["parallel_mode"]:
            fields.append(f"parallel_mode = {c['parallel_mode']}")
        if c["sequence_parallel"]:
            fields.append("sequence_parallel = true")
        if c["tp_size"] != 1:
            fields.append(f"tp_size = {c['tp_size']}")
        if c["save_original_input"]:
            fields.append("save_original_input = true")
        return "#teq.linear<" + ", ".join(fields) + ">"

    @staticmethod
    def _name_arguments(builder, plan):
        """Names and roles of the entry's arguments, roles of its results
        (before builder.ret(..., plan[1]))."""
        arg_roles, result_roles = plan[2]
        for i, name in enumerate(plan[0]):
            builder.set_argument_name(i, name)
            if arg_roles[i] is not None:
                builder.set_argument_role(i, *arg_roles[i])
        for i, role in enumerate(result_roles):
            builder.set_result_role(i, *role)

    def _build_forward(self, module, training, plan, weight_cache=False):
        name = f"{self.name}_forward" if training else self.name
        state = self._state_args(True)
        arg_types = ([tensor_type(t.shape, t.dtype) for t in self._inputs + self._params]
                     + ["!teq.process_group"] * len(self._groups)
                     + [tensor_type(shape, "f32") for _, _, shape in state])
        b = _c.FunctionBuilder(module._handle, name, arg_types)
        self._name_arguments(b, plan)
        if weight_cache:
            b.cache_weights()
        values = {}
        for i, t in enumerate(self._inputs + self._params + self._groups):
            values[id(t)] = b.argument(i)
        state_values = {}
        base = len(self._inputs) + len(self._params) + len(self._groups)
        for j, (op, arg_name, _) in enumerate(state):
            state_values[(id(op), arg_name.rsplit("_", 1)[-1] == "history")] = \
                b.argument(base + j)
        regions = []
        saved = {}
        histories = []
        for op in self._ops:
            regions = self._open_regions(b, regions, op.regions)
            if op.kind == "linear":
                x, w = op.operands[0], op.config["weight"]
                bias = op.config["bias_value"]
                scale = state_values.get((id(op), False))
                history = state_values.get((id(op), True))
                group = op.config["tp_group"]
                out, sx, sw, hist = b.linear_forward(
                    values[id(x)], values[id(w)],
                    values[id(bias)] if bias is not None else None, scale, history,
                    self._linear_config(op, x.requires_grad, w.requires_grad),
                    training, training,
                    values[id(group)] if group is not None else None)
                values[id(op.result)] = out
                saved[(id(op), "input")] = sx
                saved[(id(op), "weight")] = sw
                if hist is not None:
                    histories.append(hist)
            elif op.kind == "activation":
                x = values[id(op.operands[0])]
                values[id(op.result)] = b.activation(op.config["kind"], x)
                saved[(id(op), "input")] = x
            elif op.kind in ("layer_norm", "rms_norm"):
                c = op.config
                x, w = values[id(op.operands[0])], values[id(op.operands[1])]
                if op.kind == "layer_norm":
                    bias = values[id(c["bias"])] if c["bias"] is not None else None
                    y, mean, rstd = b.layer_norm(x, w, bias, c["eps"],
                                                 c["zero_centered_gamma"])
                    saved[(id(op), "mean")] = mean
                else:
                    y, rstd = b.rms_norm(x, w, c["eps"], c["zero_centered_gamma"])
                values[id(op.result)] = y
                saved[(id(op), "input")] = x
                saved[(id(op), "rstd")] = rstd
                saved[(id(op), "weight")] = w
            else:
                result = b.elementwise(op.kind, [values[id(o)] for o in op.operands])
                values[id(op.result)] = result
                if op.kind == "math.tanh":
                    saved[(id(op), "result")] = result
                elif op.kind == "arith.mulf":
                    saved[(id(op), "lhs")] = values[id(op.operands[0])]
                    saved[(id(op), "rhs")] = values[id(op.operands[1])]
        self._open_regions(b, regions, ())
        results = [values[id(t)] for t in self._outputs]
        saved_list = []
        if training:
            for _, (index, slot) in self._saved_values():
                saved_list.append(saved[(id(self._ops[index]), slot)])
        b.ret(results + saved_list + histories, plan[1])
        return saved_list

    def _build_update(self, module, training, plan):
        """@<name>_update: TE's delayed-scaling update step (roll each amax
        history, new scales from it) for every Linear's state, to run after
        a step (forward and backward) as TE does."""
        state = self._state_args(True) + (self._state_args(False) if training else [])
        groups = self._update_groups(training)
        b = _c.FunctionBuilder(module._handle, f"{self.name}_update",
                               [tensor_type(shape, "f32") for _, _, shape in state]
                               + ["!teq.process_group"] * len(groups))
        self._name_arguments(b, plan)
        group_values = {id(g): b.argument(len(state) + i) for i, g in enumerate(groups)}
        results = []
        for j in range(0, len(state), 2):
            op, name, _ = state[j]
            recipe = self._effective_recipe(op.regions)
            forward = ".fwd_" in name
            e4m3 = forward or recipe.fp8_format.name == "E4M3"
            group = self._amax_reduction_group(op)
            scale, history = b.delayed_scaling_update(
                b.argument(j), b.argument(j + 1), "f8E4M3FN" if e4m3 else "f8E5M2",
                recipe.margin, recipe.amax_compute_algo,
                group_values[id(group)] if group is not None else None)
            results += [scale, history]
        b.ret(results, plan[1])

    def _build_backward(self, module, saved_forward, plan):
        saved_names = self._saved_values()
        main_grad_ops = [op for op in self._ops if op.kind == "linear"
                         and op.config["fuse_wgrad_accumulation"]]
        state = self._state_args(False)
        arg_types = ([tensor_type(t.shape, t.dtype) for t in self._outputs]
                     + [v.type for v in saved_forward]
                     + [tensor_type(op.config["weight"].shape, "f32")
                        for op in main_grad_ops]
                     + ["!teq.process_group"] * len(self._groups)
                     + [tensor_type(shape, "f32") for _, _, shape in state])
        b = _c.FunctionBuilder(module._handle, f"{self.name}_backward", arg_types)
        self._name_arguments(b, plan)
        n_out = len(self._outputs)
        saved = {}
        for j, (_, (index, slot)) in enumerate(saved_names):
            saved[(id(self._ops[index]), slot)] = b.argument(n_out + j)
        base = n_out + len(saved_names)
        main_grads = {id(op): b.argument(base + j) for j, op in enumerate(main_grad_ops)}
        base += len(main_grad_ops)
        groups = {id(g): b.argument(base + j) for j, g in enumerate(self._groups)}
        base += len(self._groups)
        state_values = {}
        for j, (op, arg_name, _) in enumerate(state):
            state_values[(id(op), arg_name.endswith("history"))] = b.argument(base + j)

        grads = {}

        def accumulate(tensor, grad):
            if grad is None or not tensor.requires_grad:
                return
            key = id(tensor)
            grads[key] = grad if key not in grads else b.elementwise(
                "arith.addf", [grads[key], grad])

        for i, t in enumerate(self._outputs):
            accumulate(t, b.argument(i))
        regions = []
        histories = {}
        for op in reversed(self._ops):
            dy = grads.get(id(op.result))
            if dy is None:
                continue
            regions = self._open_regions(b, regions, op.regions)
            if op.kind == "linear":
                x, w = op.operands[0], op.config["weight"]
                bias = op.config["bias_value"]
                group = op.config["tp_group"]
                dx, dw, db, hist = b.linear_backward(
                    dy, saved[(id(op), "input")], saved[(id(op), "weight")],
                    main_grads.get(id(op)), state_values.get((id(op), False)),
                    state_values.get((id(op), True)),
                    self._linear_config(op, x.requires_grad, w.requires_grad),
                    groups[id(group)] if group is not None else None)
                accumulate(x, dx)
                accumulate(w, dw)
                if bias is not None:
                    accumulate(bias, db)
                if hist is not None:
                    histories[id(op)] = hist
            elif op.kind == "math.tanh":
                # d tanh(x) = dy (1 - y^2) = dy - (dy y) y
                y = saved[(id(op), "result")]
                dyy = b.elementwise("arith.mulf", [b.elementwise(
                    "arith.mulf", [dy, y]), y])
                accumulate(op.operands[0], b.elementwise("arith.subf", [dy, dyy]))
            elif op.kind == "activation":
                accumulate(op.operands[0], b.activation_backward(
                    op.config["kind"], dy, saved[(id(op), "input")]))
            elif op.kind == "layer_norm":
                c = op.config
                dx, dw, db = b.layer_norm_backward(
                    dy, saved[(id(op), "input")], saved[(id(op), "mean")],
                    saved[(id(op), "rstd")], saved[(id(op), "weight")],
                    c["zero_centered_gamma"])
                accumulate(op.operands[0], dx)
                accumulate(op.operands[1], dw)
                if c["bias"] is not None:
                    accumulate(c["bias"], db)
            elif op.kind == "rms_norm":
                dx, dw = b.rms_norm_backward(
                    dy, saved[(id(op), "input")], saved[(id(op), "rstd")],
                    saved[(id(op), "weight")], op.config["zero_centered_gamma"])
                accumulate(op.operands[0], dx)
                accumulate(op.operands[1], dw)
            elif op.kind == "arith.addf":
                accumulate(op.operands[0], dy)
                accumulate(op.operands[1], dy)
            elif op.kind == "arith.mulf":
                lhs, rhs = saved[(id(op), "lhs")], saved[(id(op), "rhs")]
                accumulate(op.operands[0], b.elementwise("arith.mulf", [dy, rhs]))
                accumulate(op.operands[1], b.elementwise("arith.mulf", [dy, lhs]))
        self._open_regions(b, regions, ())
        results = []
        for t in self._inputs + self._params:
            if not t.requires_grad:
                continue
            if id(t) not in grads:
                raise ValueError(f"program '{self.name}': '{t.name}' requires a "
                                 "gradient but no output depends on it")
            results.append(grads[id(t)])
        # Histories in forward order; a Linear no output depends on records
        # no amax in backward: its history comes back unchanged.
        ordered = [histories.get(id(op), state_values[(id(op), True)])
                   for op, name, _ in state if name.endswith("amax_history")]
        b.ret(results + ordered, plan[1])
