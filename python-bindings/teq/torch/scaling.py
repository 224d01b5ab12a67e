"""Delayed-scaling state of a Module and its update step (TE's
amax_and_scale_update_after_reduction): the artifact's update entry, or
lib/Reference's rule through the runtime extension."""

from teq import runtime as _runtime
from teq.torch._common import _require_torch, torch


def _default_state_init(name):
    return 1.0 if "scale" in name and "inv" not in name else 0.0


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

    `amax_history` is fp32 ``[L, n]``, `scale` fp32 ``[n]``. Returns
    ``(new_history, new_scale)`` on their device; the inputs are not
    changed. The rule is lib/Reference's ``updateDelayedScaling`` (the one
    the GPU kernel is checked against), run on the host through the runtime
    extension: the op ``torch.ops.teq.delayed_scaling_update``, opaque to
    torch.compile, copies CUDA tensors to the host and back (a device
    synchronisation; a Module with an update entry runs the compiled
    kernel instead)."""
    _require_torch("teq.torch.delayed_scaling_update")
    if amax_compute_algo not in ("max", "most_recent"):
        raise ValueError(f"amax_compute_algo {amax_compute_algo!r}: only 'max' and "
                         f"'most_recent' are implemented")
    return _update_op(amax_history, scale, float(fp8_max), int(margin), amax_compute_algo)


_UPDATE_SCHEMA = ("delayed_scaling_update(Tensor amax_history, Tensor scale, float fp8_max, "
                  "int margin, str amax_compute_algo) -> (Tensor, Tensor)")


def _check_update_args(history, scale):
    if history.dtype != torch.float32 or scale.dtype != torch.float32:
        raise ValueError(f"delayed_scaling_update: amax_history and scale must be float32, "
                         f"got {history.dtype} and {scale.dtype}")
    if history.dim() != 2 or tuple(scale.shape) != (history.shape[1],):
        raise ValueError(f"delayed_scaling_update: expected amax_history [L, n] and scale "
                         f"[n], got {list(history.shape)} and {list(scale.shape)}")


def _update_impl(history, scale, fp8_max, margin, algo):
    _check_update_args(history, scale)
    new_history, new_scale = _runtime._rt().delayed_scaling_update(
        history.detach().cpu().tolist(), scale.detach().cpu().tolist(), fp8_max, margin, algo)
    return (torch.tensor(new_history, dtype=torch.float32,
                         device=history.device).reshape(history.shape),
            torch.tensor(new_scale, dtype=torch.float32, device=scale.device))


def _update_fake(history, scale, fp8_max, margin, algo):
    _check_update_args(history, scale)
    return torch.empty_like(history), torch.empty_like(scale)


def _define_update_op():
    """Defines torch.ops.teq.delayed_scaling_update at import (not on first
    use: torch.compile cannot trace the definition). The namespace "teq" is
    reserved: register() gives artifacts "teq_<name>"."""
    lib = torch.library.Library("teq", "FRAGMENT")
    lib.define(_UPDATE_SCHEMA)
    lib.impl("delayed_scaling_update", _update_impl, "CPU")
    lib.impl("delayed_scaling_update", _update_impl, "CUDA")
    register_fake = getattr(torch.library, "register_fake", None)
    if register_fake is not None:
        register_fake("teq::delayed_scaling_update", _update_fake, lib=lib)
    else:  # torch < 2.4
        torch.library.impl_abstract("teq::delayed_scaling_update", _update_fake, lib=lib)
    return lib, torch.ops.teq.delayed_scaling_update.default


if torch is not None:
    _update_library, _update_op = _define_update_op()


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
