#!/usr/bin/env python3
"""A small model's training step where the host shows (issue 28): a stack of
12 MLP blocks at hidden 1024, TEQ against bf16 and torch.compile FP8.

  PYTHONPATH=build-gpu/python-bindings python3 bench/mlp_stack_bench.py \\
      --artifact .artifacts/mlp_stack.so [--quick] [--json out.json]

The model: 12 x (fc1 [1024 -> 4096] -> tanh -> fc2 [4096 -> 1024]), no bias,
4096 tokens, bf16, N(0,1) input and output gradient, weights scaled as
nn.Linear initialises them; one step is the forward and the backward of the
whole stack (y, dx and every weight's gradient from dy), the same work for
every contender, on the same tensors:

* TEQ (bench/mlp_stack_programs.py, compiled by scripts/gpu-prepare), through
  teq.runtime, in three shapes of call:
  - "1 entry": forward + backward of all 12 layers in one entry
    (`.artifacts/mlp_stack.so`, `bench/programs.py stack`'s text),
    Float8CurrentScaling;
  - "2 entries": the stack as a teq.Program training pair, its forward entry
    then its backward entry (+ its update entry under DelayedScaling, history
    1024, every step, state copied back with update_state=True);
  - "24 calls": one block's training pair called per layer (12 forwards,
    12 backwards; + 12 updates under DelayedScaling), as a framework with one
    module per layer calls it;
  each direct (outputs allocated per call, as mlp_bench.py does), replayed
  from a PyTorch CUDA graph of the whole step (timing.graphed), and with the
  runtime's own CUDA graph (graph=True, the same out= tensors every step);
* bf16 autograd: mlp_bench.bf16_block per layer, torch.autograd.grad over the
  stack (eager, CUDA graph; torch.compile of the block, as mlp_bench compiles
  it, with its compiled backward, and that + CUDA graph);
* torch.compile FP8: mlp_bench's TE-like current-scaling block
  (fp8_mlp_forward / fp8_mlp_backward, each torch.compile'd once and called
  per layer; compiled, compiled + CUDA graph).

Timed by bench/timing.py (every contender in one Suite: queued, per-call
events, median, two rounds in alternating order). Speed-ups are bf16's best
configuration over TEQ's. The host's part: "host ms" is the time one step
takes to enqueue from an idle queue (synchronised before and after, median of
10): where it exceeds the device time (the CUDA-graph replay of the same
step), that call shape is host-bound. Then: the agreement of y and dx with
bf16 autograd (delayed scaling at steps 1, 2 and 20: it starts from scale 1),
and where the device time goes (the PyTorch profiler over 3 direct steps:
GEMM kernels and the rest, per step). Results: bench/RESULTS.md, "12-layer
MLP stack at hidden 1024".
"""

import argparse
import json
import os
import shlex
import statistics
import sys
import time

import torch

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import timing  # noqa: E402
from timing import best_of, fmt_ratio, kernel_breakdown, ratio  # noqa: E402
import mlp_bench  # noqa: E402
from mlp_bench import bf16_block, fp8_mlp_forward, fp8_mlp_backward  # noqa: E402
from mlp_stack_programs import LAYERS, TOKENS, HIDDEN, FFN  # noqa: E402


def host_ms(fn, n=10):
    """Median host time (ms) to enqueue one call of `fn` from an idle queue."""
    times = []
    for _ in range(n):
        torch.cuda.synchronize()
        t0 = time.perf_counter()
        fn()
        times.append((time.perf_counter() - t0) * 1e3)
    torch.cuda.synchronize()
    return statistics.median(times)


def ordered(entry, values):
    """The entry's input values in manifest order from a name -> value dict."""
    missing = [a.name for a in entry.inputs if a.name not in values]
    if missing:
        raise KeyError(f"{entry.name}: no value for {', '.join(missing)}")
    return [values[a.name] for a in entry.inputs]


def fresh_state(entry, like):
    """Delayed-scaling state inputs of `entry`: scales 1, histories 0."""
    state = {}
    for a in entry.inputs:
        if a.name.endswith("_scale"):
            state[a.name] = torch.ones(a.shape, device=like.device, dtype=torch.float32)
        elif a.name.endswith("_amax_history"):
            state[a.name] = torch.zeros(a.shape, device=like.device, dtype=torch.float32)
    return state


class Pair:
    """A teq.Program training pair (forward, backward [, update]) of
    `weights`' blocks; forward(x) -> (y, outputs), backward(dy, outputs) ->
    (dx, dweights...), update(). With graph=True every call passes the same
    out= tensors (allocated on first use) and runs the runtime's CUDA graph.
    Argument lists are built once; a call fills in x / dy and the saved
    tensors."""

    def __init__(self, art, name, weights):
        self.fwd, self.bwd = art[f"{name}_forward"], art[f"{name}_backward"]
        self.upd = art[f"{name}_update"] if f"{name}_update" in art else None
        like = weights[0][0]
        values = {f"fc{j + 1}_{i}.weight": w[j] for i, w in enumerate(weights)
                  for j in range(2)}
        state = fresh_state(self.fwd, like)
        state.update(fresh_state(self.bwd, like))
        self.delayed = self.upd is not None
        self.fwd_args = ordered(self.fwd, {**values, **state, "x": None})
        self.x_at = [a.name for a in self.fwd.inputs].index("x")
        out_at = {a.name: i for i, a in enumerate(self.fwd.outputs)}
        self.bwd_args = ordered(self.bwd, {**state, "grad_output0": None, **{
            n: None for n in out_at}})
        names = [a.name for a in self.bwd.inputs]
        self.dy_at = names.index("grad_output0")
        self.saved_at = [(i, out_at[n]) for i, n in enumerate(names) if n in out_at]
        self.upd_args = ordered(self.upd, state) if self.delayed else None
        self.fwd_out = self.bwd_out = self.upd_out = None

    def forward(self, x, graph=False):
        args = list(self.fwd_args)
        args[self.x_at] = x
        if graph and self.fwd_out is None:
            self.fwd_out = self.fwd.allocate_outputs(like=x)
        outs = self.fwd(*args, out=self.fwd_out if graph else None, graph=graph,
                        update_state=self.delayed)
        return outs[0], outs

    def backward(self, dy, outs, graph=False):
        args = list(self.bwd_args)
        args[self.dy_at] = dy
        for i, j in self.saved_at:
            args[i] = outs[j]
        if graph and self.bwd_out is None:
            self.bwd_out = self.bwd.allocate_outputs(like=dy)
        return self.bwd(*args, out=self.bwd_out if graph else None, graph=graph,
                        update_state=self.delayed)

    def update(self, graph=False):
        if not self.delayed:
            return
        if graph and self.upd_out is None:
            self.upd_out = self.upd.allocate_outputs(like=self.upd_args[0])
        self.upd(*self.upd_args, out=self.upd_out if graph else None, graph=graph,
                 update_state=True)


def stack_step(pair, x, dy, graph=False):
    """The 2-entry step (3 with the update)."""
    y, saved = pair.forward(x, graph)
    grads = pair.backward(dy, saved, graph)
    pair.update(graph)
    return y, grads


def layers_step(pairs, x, dy, graph=False):
    """The per-layer step: each layer's forward, then each backward in
    reverse, then each update."""
    h, saved = x, []
    for p in pairs:
        h, s = p.forward(h, graph)
        saved.append(s)
    g, grads = dy, []
    for p, s in zip(reversed(pairs), reversed(saved)):
        r = p.backward(g, s, graph)
        g = r[0]
        grads.append(r)
    for p in pairs:
        p.update(graph)
    return h, g, grads


def bf16_stack(x, weights, dy, block=bf16_block):
    h = x
    for w1, w2 in weights:
        h = block(h, w1, w2)
    flat = [w for pair in weights for w in pair]
    grads = torch.autograd.grad(h, [x] + flat, grad_outputs=dy)
    return h, grads


def fp8_stack(x, weights, dy, fwd, bwd):
    h, saved = x, []
    for w1, w2 in weights:
        h, s = fwd(h, w1, w2)
        saved.append(s)
    g, grads = dy, []
    for s in reversed(saved):
        g, dw1, dw2 = bwd(g, s)
        grads += [dw1, dw2]
    return h, g, grads


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--artifact", default=".artifacts/mlp_stack.so",
                        help="the 1-entry stack; the pairs are in <artifact minus .so>/")
    parser.add_argument("--quick", action="store_true", help="3 warm-up, 10 timed calls")
    parser.add_argument("--warmup", type=int, default=None)
    parser.add_argument("--iters", type=int, default=None)
    parser.add_argument("--rounds", type=int, default=2)
    parser.add_argument("--no-delayed", action="store_true")
    parser.add_argument("--json", default=None)
    parser.add_argument("--plot-dir", default=None, help="accepted for gpu-check; no plot")
    args = parser.parse_args()
    warmup = args.warmup if args.warmup is not None else (3 if args.quick else 10)
    iters = args.iters if args.iters is not None else (10 if args.quick else 50)

    import teq.runtime
    torch.backends.cuda.matmul.allow_tf32 = False
    command = "python3 " + " ".join(shlex.quote(a) for a in sys.argv)
    for line in timing.header(command, warmup, iters):
        print(line)
    print(f"commit: {timing.git_commit()}")
    print(f"model: {LAYERS} x (fc1 {HIDDEN}->{FFN}, tanh, fc2 {FFN}->{HIDDEN}), "
          f"{TOKENS} tokens, bf16, no bias; one step = forward + backward of the stack")
    errors = []
    pairs_dir = os.path.splitext(args.artifact)[0]

    gen = torch.Generator(device="cuda").manual_seed(4321)
    x = torch.randn(TOKENS, HIDDEN, device="cuda", dtype=torch.bfloat16, generator=gen)
    weights = []
    for _ in range(LAYERS):
        w1 = (torch.randn(FFN, HIDDEN, device="cuda", generator=gen) / (3 * HIDDEN) ** 0.5
              ).to(torch.bfloat16)
        w2 = (torch.randn(HIDDEN, FFN, device="cuda", generator=gen) / (3 * FFN) ** 0.5
              ).to(torch.bfloat16)
        weights.append((w1, w2))
    flat = [w for pair in weights for w in pair]
    dy = torch.randn(TOKENS, HIDDEN, device="cuda", dtype=torch.bfloat16, generator=gen)
    xg = x.detach().clone().requires_grad_(True)
    weights_g = [tuple(w.detach().clone().requires_grad_(True) for w in pair)
                 for pair in weights]

    # Contenders: key -> (fn, also time a PyTorch CUDA graph of it, calls a step).
    contenders = {}
    calls = {}
    fused = teq.runtime.load(args.artifact)[f"stack_{LAYERS}"]
    fused_out = fused.allocate_outputs(like=x)
    contenders["teq 1 entry"] = (lambda: fused(x, *flat, dy), True)
    contenders["teq 1 entry, graph=True"] = (
        lambda: fused(x, *flat, dy, out=fused_out, graph=True), False)
    calls["teq 1 entry"] = calls["teq 1 entry, graph=True"] = 1
    recipes = ["current"] + ([] if args.no_delayed else ["delayed"])
    arts = {}
    for kind in recipes:
        try:
            stack_art = teq.runtime.load(os.path.join(pairs_dir, f"stack_{kind}.so"))
            layer_art = teq.runtime.load(os.path.join(pairs_dir, f"layer_{kind}.so"))
            arts[kind] = (stack_art, layer_art)
            # Separate Pair objects for direct and graph=True calls: the
            # graph ones keep their out= tensors.
            sp, sg = (Pair(stack_art, f"stack_{kind}", weights) for _ in range(2))
            lp = [Pair(layer_art, f"layer_{kind}", [w]) for w in weights]
            lg = [Pair(layer_art, f"layer_{kind}", [w]) for w in weights]
        except Exception as e:  # noqa: BLE001
            errors.append(f"loading the {kind} pairs: {e}")
            continue
        n2, n24 = (3, 36) if kind == "delayed" else (2, 24)
        tag = "" if kind == "current" else " delayed"
        contenders[f"teq{tag} 2 entries"] = (lambda sp=sp: stack_step(sp, x, dy), True)
        contenders[f"teq{tag} 2 entries, graph=True"] = (
            lambda sg=sg: stack_step(sg, x, dy, graph=True), False)
        contenders[f"teq{tag} {n24} calls"] = (lambda lp=lp: layers_step(lp, x, dy), True)
        contenders[f"teq{tag} {n24} calls, graph=True"] = (
            lambda lg=lg: layers_step(lg, x, dy, graph=True), False)
        calls[f"teq{tag} 2 entries"] = calls[f"teq{tag} 2 entries, graph=True"] = n2
        calls[f"teq{tag} {n24} calls"] = calls[f"teq{tag} {n24} calls, graph=True"] = n24

    t0 = time.perf_counter()
    bf16_comp = torch.compile(bf16_block, dynamic=False)
    fp8_fwd = torch.compile(fp8_mlp_forward, dynamic=False)
    fp8_bwd = torch.compile(fp8_mlp_backward, dynamic=False)
    contenders["bf16"] = (lambda: bf16_stack(xg, weights_g, dy), True)
    contenders["bf16 compile"] = (lambda: bf16_stack(xg, weights_g, dy, bf16_comp), True)
    contenders["fp8 compile"] = (lambda: fp8_stack(x, weights, dy, fp8_fwd, fp8_bwd), True)
    for key in ("bf16", "bf16 compile", "fp8 compile"):
        try:
            contenders[key][0]()  # compiles
        except Exception as e:  # noqa: BLE001
            errors.append(f"{key} first call: {e}")
    torch.cuda.synchronize()
    print(f"torch.compile of the peers: {time.perf_counter() - t0:.1f} s", flush=True)

    suite = timing.Suite(warmup, iters, errors, "stack", rounds=args.rounds)
    for key, (fn, graph) in contenders.items():
        suite.add(key, fn, graph=graph)
    # Host time per step from an idle queue, before the suite times them.
    hosts = {}
    for key, (fn, _) in contenders.items():
        try:
            hosts[key] = host_ms(fn)
        except Exception as e:  # noqa: BLE001
            errors.append(f"{key} host time: {e}")
    for key, fn in suite.fns.items():
        if key.endswith("+graph"):
            try:
                hosts[key] = host_ms(fn)
            except Exception as e:  # noqa: BLE001
                errors.append(f"{key} host time: {e}")
    t = suite.run()
    spread = suite.spread()

    # Agreement with bf16 autograd: relative error of y and dx, and the norm
    # of y over bf16's (delayed scaling: the first step runs with scale 1,
    # the second with the scales its update computed).
    rel = {}
    try:
        ref_y, ref_g = bf16_stack(xg, weights_g, dy)

        def err(a, b):
            a, b = a.detach().float(), b.detach().float()
            return float((a - b).norm() / b.norm())

        def agree(key, y, dx):
            rel[key] = (err(y, ref_y), err(dx, ref_g[0]),
                        float(y.detach().float().norm() / ref_y.detach().float().norm()))
        got = fused(x, *flat, dy)
        agree("teq 1 entry", got[0], got[1])
        for kind, (stack_art, layer_art) in arts.items():
            tag = "" if kind == "current" else " delayed"
            pair = Pair(stack_art, f"stack_{kind}", weights)
            layer_pairs = [Pair(layer_art, f"layer_{kind}", [w]) for w in weights]
            # Delayed scaling starts from scale 1: a layer whose input
            # underflows E4M3 at scale 1 records amax 0 and keeps scale 1,
            # so the scales settle about a layer a step; 20 steps settle all.
            for step in range(1, 21 if kind == "delayed" else 3):
                y, g = stack_step(pair, x, dy)
                yl, dxl, _ = layers_step(layer_pairs, x, dy)
                if step in (1, 2, 20):
                    agree(f"teq{tag} 2 entries, step {step}", y, g[0])
                    agree(f"teq{tag} per-layer calls, step {step}", yl, dxl)
        y, dx, _ = fp8_stack(x, weights, dy, fp8_fwd, fp8_bwd)
        agree("fp8 compile", y, dx)
    except Exception as e:  # noqa: BLE001
        errors.append(f"agreement: {e}")

    # Where the device time goes: every kernel of 3 direct steps under the
    # PyTorch profiler (CUPTI sees TEQ's driver launches and cuBLASLt calls
    # too), summed per step: GEMMs and the rest.
    kernels = {}
    for key in ("teq 1 entry", "teq delayed 2 entries", "bf16", "bf16 compile",
                "fp8 compile"):
        if key not in contenders:
            continue
        try:
            kernels[key] = kernel_breakdown(contenders[key][0])
        except Exception as e:  # noqa: BLE001
            errors.append(f"{key} profile: {e}")

    def best(key):
        return best_of(t.get(key), t.get(key + "+graph"))[0]

    bf16_best, bf16_where = best_of(best("bf16"), best("bf16 compile"))
    fp8_best = best("fp8 compile")
    teq_keys = [k for k in t if k.startswith("teq")]
    device_of = {}
    for key in teq_keys + ["bf16", "bf16 compile", "fp8 compile"]:
        base = key[:-len("+graph")] if key.endswith("+graph") else key
        base = base.replace(", graph=True", "")
        g = t.get(base + "+graph")
        if g is not None and g.ok:
            device_of[key] = g.median

    print()
    print(f"Per step (ms; median of the per-call event times, fastest of {args.rounds} rounds; "
          "+g = replayed from a PyTorch CUDA graph of the whole step; graph=True = "
          "teq.runtime's own graph, same out= tensors; host = enqueue time of one step "
          "from an idle queue; device = the +g replay of the same calls; spread "
          f"{100 * spread:.1f}%):")
    print()
    print("| contender | calls a step | ms a step | vs bf16 best | vs compile FP8 best "
          "| host ms a step | device ms a step | host / device |")
    print("|---|---|---|---|---|---|---|---|")
    rows = []
    for key, tm in t.items():
        base = key[:-len("+graph")] if key.endswith("+graph") else key
        n = calls.get(base, "-")
        if key.endswith("+graph"):
            n = f"1 graph ({n})" if n != "-" else "1 graph"
        h, d = hosts.get(key), device_of.get(key)
        hd = f"{h / d:.2f}" if h is not None and d else "-"
        print(f"| {key} | {n} | {tm.cell()} | {fmt_ratio(ratio(bf16_best, tm))} | "
              f"{fmt_ratio(ratio(fp8_best, tm))} | "
              f"{'-' if h is None else f'{h:.3f}'} | {'-' if d is None else f'{d:.3f}'} "
              f"| {hd} |")
        rows.append({"key": key, "calls": n, "t": tm.to_json(), "host_ms": h,
                     "device_ms": d})
    print()
    cur = [k for k in teq_keys if "delayed" not in k]
    teq_best, teq_where = best_of(*[t[k] for k in cur])
    direct = [k for k in cur if "graph" not in k]
    teq_direct, direct_where = best_of(*[t[k] for k in direct])
    if bf16_best is not None:
        print(f"bf16 best: {bf16_best.median:.3f} ms "
              f"({['eager or its graph', 'compiled or its graph'][bf16_where]})")
    if fp8_best is not None:
        print(f"torch.compile FP8 best: {fp8_best.median:.3f} ms")
    if teq_best is not None:
        print(f"TEQ (current) best: {teq_best.median:.3f} ms ({cur[teq_where]}): "
              f"{fmt_ratio(ratio(bf16_best, teq_best))} bf16, "
              f"{fmt_ratio(ratio(fp8_best, teq_best))} torch.compile FP8 "
              f"(target >= 1.2x bf16)")
    if teq_direct is not None:
        print(f"TEQ (current) best direct call: {teq_direct.median:.3f} ms "
              f"({direct[direct_where]}): {fmt_ratio(ratio(bf16_best, teq_direct))} bf16")
    if kernels:
        print()
        print("Device time by kernel (PyTorch profiler, 3 direct steps, per step):")
        print()
        print("| contender | kernels a step | GEMM ms | other kernels ms | sum ms "
              "| largest non-GEMM kernels (ms a step) |")
        print("|---|---|---|---|---|---|")
        for key, k in kernels.items():
            top = ", ".join(f"{n[:48]} {ms:.3f}" for n, ms in k["top_other"])
            print(f"| {key} | {k['count']:.0f} | {k['gemm_ms']:.3f} | {k['other_ms']:.3f} "
                  f"| {k['gemm_ms'] + k['other_ms']:.3f} | {top} |")
    if rel:
        print()
        print("Agreement with bf16 autograd (relative error of y / dx; |y| / |y bf16|):")
        for k, (a, b, n) in rel.items():
            print(f"- {k}: {a:.3f} / {b:.3f}; {n:.3f}")
    if args.json:
        with open(args.json, "w") as f:
            json.dump({"rows": rows, "rel_err": rel, "kernels": kernels, "errors": errors, "spread": spread,
                       "bf16_best_ms": bf16_best.median if bf16_best else None,
                       "fp8_best_ms": fp8_best.median if fp8_best else None,
                       "teq_best_ms": teq_best.median if teq_best else None},
                      f, indent=1)
    if errors:
        print()
        print("Errors:")
        for e in errors:
            print(f"- {str(e)[:400]}")
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
