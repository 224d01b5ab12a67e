#!/usr/bin/env python3
"""Transformer layers, forward + backward (issue 24 item 5): TEQ against
bf16 and a TE-like torch.compile FP8 layer.

    # here (the compiler): the TEQ halves of every layer
    PYTHONPATH=build/python-bindings python3 bench/layer_bench.py --compile OUTDIR
    # on the GPU
    PYTHONPATH=build-gpu/python-bindings python3 bench/layer_bench.py \\
        --artifacts OUTDIR [--quick] [--json out.json]

Two layers, sequence 2048, batch 2 and 8 (--quick: batch 2, current
scaling only), bf16:

* GPT (TE's TransformerLayer config): LayerNorm, QKV with bias (4096 ->
  3 x 4096), causal attention (32 heads), proj with bias, residual,
  LayerNorm, fc1 with bias (4096 -> 16384), GELU (tanh form), fc2 with bias,
  residual;
* Llama (Llama-3-8B's shapes): RMSNorm, QKV without bias (32 query, 8 KV
  heads: 4096 -> 6144), attention, o_proj, residual, RMSNorm, gate/up
  (4096 -> 2 x 14336), SwiGLU, down (14336 -> 4096), residual.

--profile lists every kernel of each contender's step instead of timing it
(the PyTorch profiler over 3 direct steps: device ms and launches a step).

Attention is PyTorch's (F.scaled_dot_product_attention, causal, GQA) for
every contender. Contenders, each timed as one training step (the layer's
forward and torch.autograd.grad of its output for dy, w.r.t. x and every
parameter), on the same tensors:

* bf16: eager and torch.compile of the layer's forward (its backward
  compiled by AOTAutograd);
* FP8 torch.compile: the same layer with TE-like current-scaling Linears
  (per-tensor E4M3 x and w, E5M2 gradients, torch._scaled_mm with fast
  accumulation in fprop only, transposed copies in the backward);
* TEQ (current, delayed, block scaling): two teq.torch Modules per layer,
  the part before attention (norm + QKV) and the part after it (proj,
  residual, norm, MLP, residual), compiled from teq.Programs; eager and
  under torch.compile (the Modules are opaque ops).

Each also captured in a CUDA graph where that works (bench/timing.py's
Suite; a failed capture is reported, not fatal). Speed-ups: bf16's best
configuration over each contender's best. Memory: the peak the allocator
holds during one step beyond what was allocated before it.
"""

import argparse
import json
import os
import sys

TARGET = "sm_90"
SEQ = 2048
BATCHES = (2, 8)
EPS = 1e-5
RECIPES = ("current", "delayed", "block")
LAYERS = {
    "gpt": dict(hidden=4096, ffn=16384, heads=32, kv_heads=32, norm="layer_norm",
                activation="gelu", bias=True),
    "llama": dict(hidden=4096, ffn=14336, heads=32, kv_heads=8, norm="rms_norm",
                  activation="swiglu", bias=False),
}


def qkv_features(cfg):
    head = cfg["hidden"] // cfg["heads"]
    return cfg["hidden"] + 2 * cfg["kv_heads"] * head


def fc1_features(cfg):
    return 2 * cfg["ffn"] if cfg["activation"] == "swiglu" else cfg["ffn"]


# -- the TEQ halves (compiled on the build host) ------------------------------


def _recipe(kind):
    from teq.recipe import DelayedScaling, Float8BlockScaling, Float8CurrentScaling

    return {"current": Float8CurrentScaling(), "delayed": DelayedScaling(),
            "block": Float8BlockScaling()}[kind]


def _norm(p, cfg, name):
    if cfg["norm"] == "layer_norm":
        return p.LayerNorm(cfg["hidden"], eps=EPS, name=name)
    return p.RMSNorm(cfg["hidden"], eps=EPS, name=name)


def pre_attention(layer, batch, recipe):
    """norm -> QKV: x [T, H] -> qkv [T, qkv_features]."""
    import teq

    cfg = LAYERS[layer]
    tokens, hidden = batch * SEQ, cfg["hidden"]
    p = teq.Program(f"{layer}_pre", target=TARGET)
    x = p.input("x", (tokens, hidden), requires_grad=True)
    norm = _norm(p, cfg, "norm1")
    qkv = p.Linear(hidden, qkv_features(cfg), bias=cfg["bias"], name="qkv")
    with teq.autocast(recipe=_recipe(recipe)):
        p.output(qkv(norm(x)))
    return p


def post_attention(layer, batch, recipe):
    """(attn, x) -> h = proj(attn) + x; out = fc2(act(fc1(norm(h)))) + h."""
    import teq

    cfg = LAYERS[layer]
    tokens, hidden = batch * SEQ, cfg["hidden"]
    p = teq.Program(f"{layer}_post", target=TARGET)
    attn = p.input("attn", (tokens, hidden), requires_grad=True)
    x = p.input("x", (tokens, hidden), requires_grad=True)
    proj = p.Linear(hidden, hidden, bias=cfg["bias"], name="proj")
    norm = _norm(p, cfg, "norm2")
    fc1 = p.Linear(hidden, fc1_features(cfg), bias=cfg["bias"], name="fc1")
    fc2 = p.Linear(cfg["ffn"], hidden, bias=cfg["bias"], name="fc2")
    act = p.gelu if cfg["activation"] == "gelu" else p.swiglu
    with teq.autocast(recipe=_recipe(recipe)):
        h = p.add(proj(attn), x)
        p.output(p.add(fc2(act(fc1(norm(h)))), h))
    return p


def artifact_path(directory, layer, half, batch, recipe):
    return os.path.join(directory, f"{layer}_{half}_b{batch}_{recipe}.so")


def compile_all(directory):
    import teq

    os.makedirs(directory, exist_ok=True)
    for layer in LAYERS:
        for batch in BATCHES:
            for recipe in RECIPES:
                for half, build in (("pre", pre_attention), ("post", post_attention)):
                    path = artifact_path(directory, layer, half, batch, recipe)
                    teq.compile(build(layer, batch, recipe).module(training=True,
                                                                   inference=True),
                                output=path)
                    print(f"compiled {path}")


# -- the GPU side -------------------------------------------------------------


def profile_lines(suite, label, errors):
    """Every kernel of each contender's step (direct calls, not graphs),
    from the PyTorch profiler: device ms and launches a step."""
    import timing

    lines = []
    for key, fn in suite.fns.items():
        if key.endswith("+graph") or key.startswith("bf16 eager"):
            continue
        try:
            k = timing.kernel_breakdown(fn)
        except Exception as e:  # noqa: BLE001 - report, go on
            errors.append(f"{label} {key} (profile): {e}")
            continue
        lines += ["", f"### {label} {key}: {k['count']:.0f} kernels a step, GEMMs "
                  f"{k['gemm_ms']:.3f} ms, the rest {k['other_ms']:.3f} ms", "",
                  "| kernel | ms a step | launches a step |", "|---|---|---|"]
        for name, ms, count, is_gemm in k["kernels"]:
            lines.append(f"| {'GEMM ' if is_gemm else ''}{name[:90]} | {ms:.3f} | "
                         f"{count:.0f} |")
    return lines


def run(args):
    import torch
    import torch.nn.functional as F

    sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
    import timing
    from linear_bench import E4M3_MAX, E5M2_MAX, quantize
    import teq.torch as tt

    e4, e5 = torch.float8_e4m3fn, torch.float8_e5m2

    def mm(a, sa, b_t, sb, fast):
        return torch._scaled_mm(a, b_t.t(), scale_a=sa, scale_b=sb,
                                out_dtype=torch.bfloat16, use_fast_accum=fast)

    class FP8Linear(torch.autograd.Function):
        """TE-like current-scaling Linear (bench/linear_bench.py's math)."""

        @staticmethod
        def forward(ctx, x, w, b):
            xq, sx = quantize(x, e4, E4M3_MAX)
            wq, sw = quantize(w, e4, E4M3_MAX)
            y = mm(xq, sx, wq, sw, True)
            ctx.save_for_backward(xq, sx, wq, sw)
            ctx.has_bias = b is not None
            return y if b is None else y + b

        @staticmethod
        def backward(ctx, dy):
            xq, sx, wq, sw = ctx.saved_tensors
            dyq, sdy = quantize(dy.contiguous(), e5, E5M2_MAX)
            dx = mm(dyq, sdy, wq.t().contiguous(), sw, False)
            dw = mm(dyq.t().contiguous(), sdy, xq.t().contiguous(), sx, False)
            return dx, dw, (dy.sum(0) if ctx.has_bias else None)

    def fp8_linear(x, w, b=None):
        return FP8Linear.apply(x, w, b)

    def attention(qkv, cfg, batch):
        hidden, heads, kv = cfg["hidden"], cfg["heads"], cfg["kv_heads"]
        d = hidden // heads
        q, k, v = qkv.split([hidden, kv * d, kv * d], dim=-1)
        q = q.reshape(batch, SEQ, heads, d).transpose(1, 2)
        k = k.reshape(batch, SEQ, kv, d).transpose(1, 2)
        v = v.reshape(batch, SEQ, kv, d).transpose(1, 2)
        o = F.scaled_dot_product_attention(q, k, v, is_causal=True,
                                           enable_gqa=kv != heads)
        return o.transpose(1, 2).reshape(batch * SEQ, hidden)

    def norm(x, cfg, w, b):
        if cfg["norm"] == "layer_norm":
            return F.layer_norm(x, (cfg["hidden"],), w, b, EPS)
        return F.rms_norm(x, (cfg["hidden"],), w, EPS)

    def act(h, cfg):
        if cfg["activation"] == "gelu":
            return F.gelu(h, approximate="tanh")
        a, b = h.chunk(2, dim=-1)  # TE: the first half is activated
        return F.silu(a) * b

    def torch_layer(x, P, cfg, batch, linear):
        qkv = linear(norm(x, cfg, P["norm1.weight"], P.get("norm1.bias")), P["qkv.weight"],
                     P.get("qkv.bias"))
        h = linear(attention(qkv, cfg, batch), P["proj.weight"], P.get("proj.bias")) + x
        f = linear(norm(h, cfg, P["norm2.weight"], P.get("norm2.bias")), P["fc1.weight"],
                   P.get("fc1.bias"))
        return linear(act(f, cfg), P["fc2.weight"], P.get("fc2.bias")) + h

    warmup, iters = (2, 5) if args.quick else (5, 20)
    batches = (2,) if args.quick else BATCHES
    recipes = ("current",) if args.quick else RECIPES
    if args.batches:
        batches = tuple(int(b) for b in args.batches.split(","))
    if args.recipes:
        recipes = tuple(args.recipes.split(","))
    lines = timing.header(" ".join(sys.argv), warmup, iters)
    lines.append(f"commit {timing.git_commit()}")
    rows, errors = [], []
    for layer in args.layers.split(","):
        cfg = LAYERS[layer]
        for batch in batches:
            tokens, hidden = batch * SEQ, cfg["hidden"]
            g = torch.Generator(device="cuda").manual_seed(5)

            def randn(*shape, scale=1.0):
                return (torch.randn(*shape, device="cuda", generator=g) * scale).to(
                    torch.bfloat16)

            P = {"norm1.weight": 1 + randn(hidden, scale=0.1),
                 "norm2.weight": 1 + randn(hidden, scale=0.1),
                 "qkv.weight": randn(qkv_features(cfg), hidden, scale=hidden ** -0.5),
                 "proj.weight": randn(hidden, hidden, scale=hidden ** -0.5),
                 "fc1.weight": randn(fc1_features(cfg), hidden, scale=hidden ** -0.5),
                 "fc2.weight": randn(hidden, cfg["ffn"], scale=cfg["ffn"] ** -0.5)}
            if cfg["norm"] == "layer_norm":
                P["norm1.bias"] = randn(hidden, scale=0.1)
                P["norm2.bias"] = randn(hidden, scale=0.1)
            if cfg["bias"]:
                for name, n in (("qkv", qkv_features(cfg)), ("proj", hidden),
                                ("fc1", fc1_features(cfg)), ("fc2", hidden)):
                    P[f"{name}.bias"] = randn(n, scale=0.1)
            for t in P.values():
                t.requires_grad_(True)
            x = randn(tokens, hidden).requires_grad_(True)
            dy = randn(tokens, hidden)
            grads_of = [x] + list(P.values())

            def step_of(forward):
                def step():
                    return torch.autograd.grad(forward(), grads_of, dy)
                return step

            suite = timing.Suite(warmup, iters, errors, f"{layer} b{batch}")
            contenders = {
                "bf16 eager": lambda: torch_layer(x, P, cfg, batch, F.linear),
            }
            bf16_c = torch.compile(lambda x: torch_layer(x, P, cfg, batch, F.linear))
            contenders["bf16 compiled"] = lambda: bf16_c(x)
            fp8_c = torch.compile(lambda x: torch_layer(x, P, cfg, batch, fp8_linear))
            contenders["fp8 compiled"] = lambda: fp8_c(x)
            for recipe in recipes:
                try:
                    init = {n: v.detach() for n, v in P.items()}
                    pre = tt.Module.from_artifact(
                        artifact_path(args.artifacts, layer, "pre", batch, recipe),
                        init={k: v for k, v in init.items()
                              if k.startswith(("norm1", "qkv"))})
                    post = tt.Module.from_artifact(
                        artifact_path(args.artifacts, layer, "post", batch, recipe),
                        init={k: v for k, v in init.items()
                              if not k.startswith(("norm1", "qkv"))})
                except Exception as e:  # noqa: BLE001 - report, go on
                    errors.append(f"{layer} b{batch} teq {recipe}: {e}")
                    continue
                teq_params = list(pre.parameters()) + list(post.parameters())

                def teq_layer(x, pre=pre, post=post):
                    return post(attention(pre(x), cfg, batch), x)

                def teq_step_of(forward, params=teq_params):
                    def step():
                        return torch.autograd.grad(forward(), [x] + params, dy)
                    return step

                teq_c = torch.compile(teq_layer)
                for key, fwd in ((f"teq {recipe}", lambda f=teq_layer: f(x)),
                                 (f"teq {recipe} compiled", lambda f=teq_c: f(x))):
                    suite.add(key, teq_step_of(fwd))
            for key, fwd in contenders.items():
                suite.add(key, step_of(fwd))
            if args.profile:
                lines += profile_lines(suite, f"{layer} b{batch}", errors)
                del suite
                torch.cuda.synchronize()
                torch.cuda.empty_cache()
                continue
            memory = {}
            for key in list(suite.fns):
                if key.endswith("+graph"):
                    continue
                try:
                    memory[key] = timing.peak_extra_bytes(suite.fns[key])
                except Exception as e:  # noqa: BLE001
                    errors.append(f"{layer} b{batch} {key} (memory): {e}")
            results = suite.run()
            base = {}
            for key, t in results.items():
                name = key.replace("+graph", "")
                if t.ok and (name not in base or t.median < base[name].median):
                    base[name] = t
            bf16 = timing.best_of(base.get("bf16 eager"), base.get("bf16 compiled"))[0]
            fp8 = base.get("fp8 compiled")
            for name, t in base.items():
                rows.append({"layer": layer, "batch": batch, "contender": name,
                             "ms": t.median,
                             "graph": results.get(name + "+graph") is t,
                             "vs_bf16": bf16.median / t.median if bf16 else None,
                             "vs_fp8": fp8.median / t.median if fp8 else None,
                             "memory_mib": memory[name] / 2**20 if name in memory
                             else None})
            del suite
            torch.cuda.synchronize()
            torch.cuda.empty_cache()
    lines += ["", "| layer | batch | contender | ms/step (best config) | x bf16 best | "
              "x fp8 compiled | peak extra MiB |", "|---|---|---|---|---|---|---|"]
    for r in rows:
        def f(v, spec):
            return "n/a" if v is None else format(v, spec)
        lines.append(f"| {r['layer']} | {r['batch']} | {r['contender']}"
                     f"{' (graph)' if r['graph'] else ''} | {f(r['ms'], '.3f')} | "
                     f"{f(r['vs_bf16'], '.2f')} | {f(r['vs_fp8'], '.2f')} | "
                     f"{f(r['memory_mib'], '.0f')} |")
    lines += [f"error: {e}" for e in errors]
    print("\n".join(lines))
    if args.plot_dir:
        import plots

        # One group per layer and batch, one bar per TEQ recipe: the
        # speed-up over bf16's best, the targets dashed (1.75x; TE's 1.65x).
        labels = sorted({(r["layer"], r["batch"]) for r in rows})
        series = {}
        for recipe in recipes:
            series[f"TEQ {recipe}"] = [
                max([r["vs_bf16"] for r in rows if (r["layer"], r["batch"]) == lb
                     and r["contender"].startswith(f"teq {recipe}") and r["vs_bf16"]],
                    default=None) for lb in labels]
        series["FP8 torch.compile"] = [
            next((r["vs_bf16"] for r in rows if (r["layer"], r["batch"]) == lb
                  and r["contender"] == "fp8 compiled"), None) for lb in labels]
        plots.speedup_bars(os.path.join(args.plot_dir, "layer_speedup.png"),
                           "Layer forward + backward over bf16 (best of eager, compiled, "
                           "CUDA graph)", [f"{layer} b{batch}" for layer, batch in labels],
                           series, target=1.75, ylabel="speed-up over bf16 (x)")
    if args.json:
        with open(args.json, "w") as fh:
            json.dump({"rows": rows, "errors": errors, "header": lines[:3]}, fh, indent=1)
    return 0


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--compile", metavar="OUTDIR")
    parser.add_argument("--artifacts", metavar="DIR")
    parser.add_argument("--quick", action="store_true")
    parser.add_argument("--json")
    parser.add_argument("--plot-dir", help="write layer_speedup.png there (matplotlib)")
    parser.add_argument("--layers", default="gpt,llama", help="comma-separated: gpt, llama")
    parser.add_argument("--batches", help="comma-separated, of 2 and 8 (compiled ones)")
    parser.add_argument("--recipes", help="comma-separated: current, delayed, block")
    parser.add_argument("--profile", action="store_true",
                        help="instead of timing: every kernel of each contender's step "
                        "(PyTorch profiler), device ms a step")
    args = parser.parse_args()
    if args.batches and any(int(b) not in BATCHES for b in args.batches.split(",")):
        parser.error(f"--batches: the artifacts are compiled for {BATCHES}")
    if args.recipes and any(r not in RECIPES for r in args.recipes.split(",")):
        parser.error(f"--recipes: choose from {', '.join(RECIPES)}")
    if any(layer not in LAYERS for layer in args.layers.split(",")):
        parser.error(f"--layers: choose from {', '.join(LAYERS)}")
    if args.compile:
        compile_all(args.compile)
        return 0
    if not args.artifacts:
        parser.error("--compile OUTDIR or --artifacts DIR")
    return run(args)


if __name__ == "__main__":
    sys.exit(main())
