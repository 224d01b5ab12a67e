#!/usr/bin/env python3
"""MLP block benchmark on the GPU: TEQ vs bf16 autograd and torch.compile FP8.

  PYTHONPATH=build-gpu/python-bindings python3 bench/mlp_bench.py \\
      --artifact .artifacts/mlp.so [--tokens 8192,16384] [--quick]
      [--activation tanh|gelu] [--json out.json] [--plot-dir DIR]

A TE-like MLP block at TE's 5B shapes (hidden 4096, ffn 16384): x:[T,4096],
fc1 w1:[16384,4096], activation, fc2 w2:[4096,16384], forward + backward (dx,
dw1, dw2 from dy), bf16, N(0,1) inputs shared by every contender. The
activation is the same for all of them: tanh (the default; the runs of
bench/RESULTS.md) or, with --activation gelu, GELU's tanh approximation (TE's
default activation; TEQ's teq.activation gelu, its derivative the compiler's,
in f32 and rounded once, bench/programs.py).

* TEQ: the entry mlp_current_T_4096_16384 (tanh) or
  mlp_gelu_current_T_4096_16384 (GELU) of bench/mlp.mlir
  (Float8CurrentScaling), through teq.runtime, direct and CUDA graph;
* bf16 autograd: F.linear, torch.tanh or F.gelu(approximate="tanh"),
  F.linear, torch.autograd.grad
  (eager, CUDA graph, torch.compile of the forward with its compiled
  backward);
* torch.compile FP8: the same block with the TE-like current-scaling
  Linear of bench/linear_bench.py (quantize x, w1, activation output, w2, E5M2
  gradients, transposed copies, torch._scaled_mm), forward and explicit
  backward in one compiled function (compiled, compiled + CUDA graph).

Timed by bench/timing.py (queued, per-call events, median). Speed-ups are
peer / TEQ, TEQ's best configuration against each peer's best. Memory as in
linear_bench.py.
"""

import argparse
import json
import math
import os
import shlex
import sys

import torch
import torch.nn.functional as F

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import timing  # noqa: E402
from timing import best_of, fmt_ratio, mib, ratio  # noqa: E402
from linear_bench import quantize, E4M3_MAX, E5M2_MAX  # noqa: E402

HIDDEN, FFN = 4096, 16384
# The block's activation (--activation), read when the functions below are
# traced.
ACTIVATION = "tanh"
GELU_K0, GELU_K1 = math.sqrt(2 / math.pi), 0.044715


def activation(h):
    if ACTIVATION == "gelu":
        return F.gelu(h, approximate="tanh")
    return torch.tanh(h)


def activation_backward(h, a, da):
    """dh (f32) from the pre-activation h, the activation a and its gradient."""
    if ACTIVATION == "gelu":
        hf = h.float()
        t = torch.tanh(GELU_K0 * (hf + GELU_K1 * hf * hf * hf))
        return da * (0.5 * (1 + t) + 0.5 * hf * (1 - t * t) * GELU_K0
                     * (1 + 3 * GELU_K1 * hf * hf))
    return da * (1 - a.float() * a.float())


def _mm(a, sa, b_t, sb, fast):
    """a [M,K] rowwise FP8 x b_t^T, with b_t [N,K] rowwise FP8 (TN)."""
    return torch._scaled_mm(a, b_t.t(), scale_a=sa, scale_b=sb, out_dtype=torch.bfloat16,
                            use_fast_accum=fast)


def fp8_mlp_forward(x, w1, w2):
    """The forward half of fp8_mlp: y and what the backward half reads."""
    e4 = torch.float8_e4m3fn
    xq, sx = quantize(x, e4, E4M3_MAX)
    w1q, sw1 = quantize(w1, e4, E4M3_MAX)
    h = _mm(xq, sx, w1q, sw1, True)                    # [T, F]
    a = activation(h)
    aq, sa = quantize(a, e4, E4M3_MAX)
    w2q, sw2 = quantize(w2, e4, E4M3_MAX)
    y = _mm(aq, sa, w2q, sw2, True)                    # [T, H]
    # h only where the activation's backward reads it (GELU; tanh's reads a).
    saved = (xq, sx, w1q, sw1, h if ACTIVATION == "gelu" else None, a, aq, sa, w2q, sw2)
    return y, saved


def fp8_mlp_backward(dy, saved):
    """The backward half of fp8_mlp: dx, dw1, dw2 from dy."""
    xq, sx, w1q, sw1, h, a, aq, sa, w2q, sw2 = saved
    e5 = torch.float8_e5m2
    # fc2 backward: da = dy w2, dw2 = dy^T a.
    dyq, sdy = quantize(dy, e5, E5M2_MAX)
    da = _mm(dyq, sdy, w2q.t().contiguous(), sw2, False)          # [T, F]
    dw2 = _mm(dyq.t().contiguous(), sdy, aq.t().contiguous(), sa, False)  # [H, F]
    dh = activation_backward(h, a, da).to(torch.bfloat16)
    # fc1 backward: dx = dh w1, dw1 = dh^T x.
    dhq, sdh = quantize(dh, e5, E5M2_MAX)
    dx = _mm(dhq, sdh, w1q.t().contiguous(), sw1, False)          # [T, H]
    dw1 = _mm(dhq.t().contiguous(), sdh, xq.t().contiguous(), sx, False)  # [F, H]
    return dx, dw1, dw2


def fp8_mlp(x, w1, w2, dy):
    """TE-like FP8 current-scaling MLP block, forward then backward (one
    function: torch.compile sees both halves at once)."""
    y, saved = fp8_mlp_forward(x, w1, w2)
    return (y,) + fp8_mlp_backward(dy, saved)


def bf16_block(x, w1, w2):
    return F.linear(activation(F.linear(x, w1)), w2)


def bf16_mlp(x, w1, w2, dy, block=bf16_block):
    y = block(x, w1, w2)
    dx, dw1, dw2 = torch.autograd.grad(y, (x, w1, w2), grad_outputs=dy)
    return y, dx, dw1, dw2


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--artifact", default=".artifacts/mlp.so")
    parser.add_argument("--tokens", default=None, help="default 8192,16384")
    parser.add_argument("--quick", action="store_true",
                        help="smoke run: 3 warm-up, 10 timed calls; 8192 tokens only unless --tokens")
    parser.add_argument("--warmup", type=int, default=None)
    parser.add_argument("--iters", type=int, default=None)
    parser.add_argument("--no-graph", action="store_true")
    parser.add_argument("--rounds", type=int, default=2,
                        help="timing rounds, alternating order; each contender's fastest counts")
    parser.add_argument("--activation", choices=["tanh", "gelu"], default="tanh")
    parser.add_argument("--json", default=None)
    parser.add_argument("--plot-dir", default=None)
    args = parser.parse_args()
    warmup = args.warmup if args.warmup is not None else (3 if args.quick else 10)
    iters = args.iters if args.iters is not None else (10 if args.quick else 50)
    if args.tokens is None:
        args.tokens = "8192" if args.quick else "8192,16384"

    global ACTIVATION
    ACTIVATION = args.activation
    import teq.runtime
    torch.backends.cuda.matmul.allow_tf32 = False
    command = "python3 " + " ".join(shlex.quote(a) for a in sys.argv)
    for line in timing.header(command, warmup, iters):
        print(line)
    print(f"commit: {timing.git_commit()}")
    print(f"activation: {ACTIVATION}")
    art = teq.runtime.load(args.artifact)
    fp8_comp = torch.compile(fp8_mlp, dynamic=False)
    bf16_comp = torch.compile(bf16_block, dynamic=False)

    rows, errors = [], []
    for tokens in [int(v) for v in args.tokens.split(",") if v.strip()]:
        label = f"{tokens}x{HIDDEN}x{FFN}"
        print(f"== {label}", flush=True)
        gen = torch.Generator(device="cuda").manual_seed(4321)
        x = torch.randn(tokens, HIDDEN, device="cuda", dtype=torch.bfloat16, generator=gen)
        # Weights scaled as nn.Linear initialises them (U(+-1/sqrt(in))
        # has std 1/sqrt(3 in)), so tanh sees a spread of values, not just +-1.
        w1 = (torch.randn(FFN, HIDDEN, device="cuda", generator=gen) / (3 * HIDDEN) ** 0.5
              ).to(torch.bfloat16)
        w2 = (torch.randn(HIDDEN, FFN, device="cuda", generator=gen) / (3 * FFN) ** 0.5
              ).to(torch.bfloat16)
        dy = torch.randn(tokens, HIDDEN, device="cuda", dtype=torch.bfloat16, generator=gen)
        xg, w1g, w2g = (t.detach().clone().requires_grad_(True) for t in (x, w1, w2))
        r = {"size": label, "tokens": tokens, "t": {}}

        suite = timing.Suite(warmup, iters, errors, label, graphs=not args.no_graph,
                             rounds=args.rounds)
        prefix = "mlp_gelu_current" if ACTIVATION == "gelu" else "mlp_current"
        entry = art[f"{prefix}_{tokens}_{HIDDEN}_{FFN}"]
        suite.add("teq", lambda: entry(x, w1, w2, dy))
        suite.add("bf16", lambda: bf16_mlp(xg, w1g, w2g, dy))
        suite.add("bf16_compile", lambda: bf16_mlp(xg, w1g, w2g, dy, bf16_comp))
        suite.add("fp8_compile", lambda: fp8_comp(x, w1, w2, dy))
        r["t"] = suite.run()
        r["spread"] = suite.spread()
        del suite

        # Agreement with bf16 (a sanity check that every side computes the
        # same block): relative error of y and dx against bf16 autograd.
        try:
            ref = bf16_mlp(xg, w1g, w2g, dy)
            got = entry(x, w1, w2, dy)
            p8 = fp8_comp(x, w1, w2, dy)
            torch.cuda.synchronize()

            def rel(a, b):
                return float((a.detach().float() - b.detach().float()).norm() / b.detach().float().norm())
            r["rel_err"] = {"teq_y": rel(got[0], ref[0]), "teq_dx": rel(got[1], ref[1]),
                            "teq_dw1": rel(got[2], ref[2]),
                            "fp8_y": rel(p8[0], ref[0]), "fp8_dx": rel(p8[1], ref[1]),
                            "fp8_dw1": rel(p8[2], ref[2])}
            del ref, got, p8
        except Exception as e:  # noqa: BLE001
            errors.append(f"{label} agreement: {e}")

        # Outputs + workspace_bytes: temporaries placed inside outputs not
        # yet written (the manifest's "placement") take no more.
        mem = {}
        try:
            mem["teq"] = timing.peak_extra_bytes(lambda: entry(x, w1, w2, dy)) \
                + entry.workspace_bytes
            mem["teq_workspace"] = entry.workspace_bytes
            mem["bf16"] = timing.peak_extra_bytes(lambda: bf16_mlp(xg, w1g, w2g, dy))
            mem["fp8_compile"] = timing.peak_extra_bytes(lambda: fp8_comp(x, w1, w2, dy))
        except Exception as e:  # noqa: BLE001
            errors.append(f"{label} memory: {e}")
        r["mem"] = mem
        rows.append(r)
        del x, w1, w2, dy, xg, w1g, w2g
        torch.cuda.empty_cache()

    def best(r, key):
        return best_of(r["t"].get(key), r["t"].get(key + "+graph"))[0]

    def cell(t):
        return t.cell() if t is not None else "-"

    print()
    print("Times (ms; each contender's fastest round's median; +g = CUDA graph replay; "
          "spread = largest difference between one contender's rounds):")
    print()
    print("| tokens x hidden x ffn | TEQ | TEQ +g | bf16 | bf16 +g | bf16 compile "
          "| bf16 compile +g | compile FP8 | compile FP8 +g | TEQ host ms per call | spread |")
    print("|---|---|---|---|---|---|---|---|---|---|---|")
    for r in rows:
        t = r["t"]
        cells = [cell(t.get(k)) for k in ("teq", "teq+graph", "bf16", "bf16+graph",
                                          "bf16_compile", "bf16_compile+graph",
                                          "fp8_compile", "fp8_compile+graph")]
        cells.append(f"{t['teq'].host:.3f}" if t["teq"].ok else "-")
        cells.append(f"{100 * r['spread']:.1f}%")
        print(f"| {r['size']} | " + " | ".join(cells) + " |")
    print()
    print("Speed-ups (best vs best; targets: >= 1.6x bf16, >= 1.25x torch.compile FP8) and "
          "memory of the call (MiB beyond inputs):")
    print()
    print("| tokens | TEQ ms | vs bf16 autograd | vs torch.compile FP8 | TFLOP/s TEQ "
          "| mem TEQ (workspace) | mem bf16 | mem compile FP8 | rel err y/dx/dw1 TEQ "
          "| rel err y/dx/dw1 compile FP8 |")
    print("|---|---|---|---|---|---|---|---|---|---|")
    summary = []
    for r in rows:
        tq = best(r, "teq")
        tb = best_of(best(r, "bf16"), best(r, "bf16_compile"))[0]
        tf = best(r, "fp8_compile")
        s = {"size": r["size"], "vs_bf16": ratio(tb, tq), "vs_fp8": ratio(tf, tq)}
        summary.append(s)
        flops = 6 * 2.0 * r["tokens"] * HIDDEN * FFN
        tflops = f"{flops / (tq.median * 1e-3) / 1e12:.0f}" if tq else "-"
        mm, e = r["mem"], r.get("rel_err", {})

        def errs(p):
            v = [e.get(f"{p}_{k}") for k in ("y", "dx", "dw1")]
            return "/".join(f"{x:.3f}" if x is not None else "-" for x in v)
        print(f"| {r['tokens']} | {cell(tq)} | {fmt_ratio(s['vs_bf16'])} | "
              f"{fmt_ratio(s['vs_fp8'])} | {tflops} | {mib(mm.get('teq'))} "
              f"({mib(mm.get('teq_workspace'))}) | {mib(mm.get('bf16'))} | "
              f"{mib(mm.get('fp8_compile'))} | {errs('teq')} | {errs('fp8')} |")

    if args.plot_dir:
        import plots
        plots.speedup_bars(
            os.path.join(args.plot_dir, "mlp_speedup.png" if ACTIVATION == "tanh"
                         else f"mlp_{ACTIVATION}_speedup.png"),
            f"TEQ MLP block (fc1 -> {ACTIVATION} -> fc2, fwd+bwd, FP8 current) speed-up",
            [str(r["tokens"]) + " tokens" for r in rows],
            {"vs bf16 autograd": [s["vs_bf16"] for s in summary],
             "vs torch.compile FP8": [s["vs_fp8"] for s in summary]},
            target={"bf16 target": 1.6, "FP8 target": 1.25})
    if args.json:
        with open(args.json, "w") as f:
            json.dump({"rows": [{**r, "t": {k: v.to_json() for k, v in r["t"].items()}}
                                for r in rows], "summary": summary, "errors": errors}, f,
                      indent=1)
    if errors:
        print()
        print("Errors:")
        for e in errors:
            print(f"- {e[:400]}")
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
