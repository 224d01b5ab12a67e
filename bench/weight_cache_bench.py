#!/usr/bin/env python3
"""The weight cache across microbatches (issue 24 item 3; TE's
is_first_microbatch): one optimizer step of gradient accumulation over
MICROBATCHES microbatches of an MLP block, with and without the cache.

    # here (the compiler): the programs
    PYTHONPATH=build/python-bindings python3 bench/weight_cache_bench.py --compile OUTDIR
    # on the GPU
    PYTHONPATH=build-gpu/python-bindings python3 bench/weight_cache_bench.py \\
        --artifacts OUTDIR [--quick] [--json out.json]

The block: fc1 [HIDDEN -> FFN] -> tanh -> fc2 [FFN -> HIDDEN], no bias, bf16,
TE's GPT layer shapes (hidden 4096, FFN 16384), TOKENS tokens a microbatch
(batch 1 and 4 of sequence 2048), under Float8CurrentScaling and
Float8BlockScaling, compiled by Program.module(weight_cache=True). A step:

* without the cache: for each microbatch, @mlp_forward(x, w1, w2) then
  @mlp_backward(dy, saved...) -> (dw1, dw2): both weights quantized (both
  usages) every microbatch, as TE does without is_first_microbatch;
* with the cache: @mlp_forward_weights(w1, w2) once, then for each
  microbatch @mlp_forward_cached(x, w1q, w2q) and the same backward.

Both run on the same tensors, timed by bench/timing.py's one method
(Suite: queued, per-call events, median; direct calls and a CUDA graph of
the whole step). The figure is ms per microbatch (step time /
MICROBATCHES) and the cache's gain. Before timing, every output of every
microbatch (y, the saved tensors, dw1, dw2) is compared byte for byte
between the two.
"""

import argparse
import json
import os
import sys

TARGET = "sm_90"
HIDDEN, FFN = 4096, 16384
TOKENS = (2048, 8192)
MICROBATCHES = (4, 8)
RECIPES = ("current", "block")


def program(recipe, tokens):
    import teq
    from teq.recipe import Float8BlockScaling, Float8CurrentScaling

    p = teq.Program("mlp", target=TARGET)
    x = p.input("x", (tokens, HIDDEN))
    fc1 = p.Linear(HIDDEN, FFN, bias=False, name="fc1")
    fc2 = p.Linear(FFN, HIDDEN, bias=False, name="fc2")
    with teq.autocast(recipe=Float8CurrentScaling() if recipe == "current"
                      else Float8BlockScaling()):
        p.output(fc2(p.tanh(fc1(x))))
    return p


def artifact_name(recipe, tokens):
    return f"weight_cache_{recipe}_{tokens}.so"


def compile_all(outdir):
    import teq

    os.makedirs(outdir, exist_ok=True)
    for recipe in RECIPES:
        for tokens in TOKENS:
            path = os.path.join(outdir, artifact_name(recipe, tokens))
            teq.compile(program(recipe, tokens).module(training=True, weight_cache=True),
                        output=path)
            print(f"compiled {path}")


def run(args):
    import torch

    sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
    import timing
    import teq.runtime as rt

    warmup, iters = (2, 5) if args.quick else (3, 10)
    lines = timing.header(" ".join(sys.argv), warmup, iters)
    lines.append(f"commit {timing.git_commit()}")
    rows, errors = [], []
    for recipe in RECIPES:
        for tokens in TOKENS:
            art = rt.load(os.path.join(args.artifacts, artifact_name(recipe, tokens)))
            fwd, bwd = art["mlp_forward"], art["mlp_backward"]
            weights, cached = art["mlp_forward_weights"], art["mlp_forward_cached"]
            g = torch.Generator(device="cuda").manual_seed(7)

            def randn(*shape, scale=1.0):
                return (torch.randn(*shape, device="cuda", generator=g) * scale).to(
                    torch.bfloat16)

            w1 = randn(FFN, HIDDEN, scale=HIDDEN ** -0.5)
            w2 = randn(HIDDEN, FFN, scale=FFN ** -0.5)
            for micro in MICROBATCHES:
                xs = [randn(tokens, HIDDEN) for _ in range(micro)]
                dys = [randn(tokens, HIDDEN) for _ in range(micro)]

                def backward(outs, dy):
                    by_name = dict(zip([a.name for a in fwd.outputs], outs))
                    return bwd(*[dy if a.role == "grad_output" else by_name[a.name]
                                 for a in bwd.inputs])

                def uncached_step():
                    out = []
                    for x, dy in zip(xs, dys):
                        outs = fwd(x, w1, w2)
                        out.append((outs, backward(outs, dy)))
                    return out

                def cached_step():
                    w1q, w2q = weights(w1, w2)
                    out = []
                    for x, dy in zip(xs, dys):
                        outs = cached(x, w1q, w2q)
                        out.append((outs, backward(outs, dy)))
                    return out

                identical = _identical(rt, uncached_step(), cached_step())
                suite = timing.Suite(warmup, iters, errors, f"{recipe} {tokens}x{micro}")
                suite.add("uncached", uncached_step)
                suite.add("cached", cached_step)
                res = suite.run()
                best = {k: timing.best_of(res[k], res[k + "+graph"])[0]
                        for k in ("uncached", "cached")}
                row = {"recipe": recipe, "tokens": tokens, "microbatches": micro,
                       "identical": identical, "spread": suite.spread()}
                for k, t in res.items():
                    row[k] = t.median / micro if t.ok else None
                if best["uncached"] and best["cached"]:
                    row["gain"] = best["uncached"].median / best["cached"].median - 1
                rows.append(row)
                del suite
                torch.cuda.synchronize()
    lines.append("")
    lines.append("| recipe | tokens/microbatch | microbatches | uncached ms/mb (direct, graph) | "
                 "cached ms/mb (direct, graph) | gain (best vs best) | bit-identical |")
    lines.append("|---|---|---|---|---|---|---|")
    for r in rows:
        def cell(k):
            return "n/a" if r.get(k) is None else f"{r[k]:.3f}"
        gain = "n/a" if "gain" not in r else f"{100 * r['gain']:+.1f}%"
        lines.append(f"| {r['recipe']} | {r['tokens']} | {r['microbatches']} | "
                     f"{cell('uncached')}, {cell('uncached+graph')} | "
                     f"{cell('cached')}, {cell('cached+graph')} | {gain} | "
                     f"{'yes' if r['identical'] else 'NO'} |")
    lines += [f"error: {e}" for e in errors]
    print("\n".join(lines))
    if args.json:
        with open(args.json, "w") as f:
            json.dump({"rows": rows, "errors": errors, "header": lines[:3]}, f, indent=1)
    return 0 if all(r["identical"] for r in rows) and not errors else 1


def _identical(rt, a, b):
    """Every output of every microbatch byte-equal between two steps."""
    import torch

    def flat(v):
        if isinstance(v, rt.QuantizedTensor):
            return [v[n] for n in v.buffers]
        return [v]

    for (fa, ba), (fb, bb) in zip(a, b):
        for x, y in zip(list(fa) + list(ba), list(fb) + list(bb)):
            for s, t in zip(flat(x), flat(y)):
                if not torch.equal(s.view(torch.uint8), t.view(torch.uint8)):
                    return False
    return True


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--compile", metavar="OUTDIR")
    parser.add_argument("--artifacts", metavar="DIR")
    parser.add_argument("--quick", action="store_true")
    parser.add_argument("--json")
    args = parser.parse_args()
    if args.compile:
        compile_all(args.compile)
        return 0
    if not args.artifacts:
        parser.error("--compile OUTDIR or --artifacts DIR")
    return run(args)


if __name__ == "__main__":
    sys.exit(main())
