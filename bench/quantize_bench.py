#!/usr/bin/env python3
"""Quantize benchmark on the GPU: TEQ's kernels vs the copy ceiling and PyTorch.

  PYTHONPATH=build-gpu/python-bindings python3 bench/quantize_bench.py \\
      --artifact .artifacts/quantize.so [--quick] [--json out.json] [--plot-dir DIR]

bf16 inputs larger than L2 (8192x8192, 16384x4096), N(0,1), the same tensor
for every contender; everything timed by bench/timing.py (queued calls,
per-call CUDA events, no host sync in the queue, median), in one run:

* the copy ceiling: the best of `copy_` into a preallocated tensor and a
  device-to-device cudaMemcpyAsync of the same bytes (read + written);
* TEQ (teq.runtime on the artifact of bench/quantize.mlir, direct and CUDA
  graph): per-tensor FP8 current scaling, rowwise and rowwise + the
  transposed copy; block FP8 1D/2D, MXFP8, NVFP4 1D/2D/RHT with both
  usages;
* PyTorch current scaling (amax, scale, cast [+ transpose]) in eager mode,
  compiled, and compiled + CUDA graph. PyTorch has no kernels for the other
  formats: they compare with the copy ceiling only.

"Bytes moved" counts what each algorithm must move: current scaling and
NVFP4 read the input twice (the amax must be known before any element is
cast), block FP8 and MXFP8 once; every output is written once.
"% of copy" = (bytes moved / time) / the copy ceiling's GB/s.
"""

import argparse
import json
import os
import shlex
import sys

import torch

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import timing  # noqa: E402
from timing import best_of  # noqa: E402

FP8_MAX = 448.0
SHAPES = [(8192, 8192), (16384, 4096)]


def current_scaling(x, transpose):
    """TE's current scaling in PyTorch: amax, scale (5.1), cast (+ transpose)."""
    amax = x.abs().amax().float()
    scale = torch.where((amax == 0) | ~torch.isfinite(amax), torch.ones_like(amax),
                        FP8_MAX / amax)
    q = (x.float() * scale).clamp(-FP8_MAX, FP8_MAX).to(torch.float8_e4m3fn)
    scale_inv = 1.0 / scale
    if transpose:
        return q, q.t().contiguous(), scale_inv
    return q, scale_inv


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--artifact", default=".artifacts/quantize.so")
    parser.add_argument("--quick", action="store_true",
                        help="smoke run: 3 warm-up, 10 timed calls, 8192x8192 only")
    parser.add_argument("--warmup", type=int, default=None)
    parser.add_argument("--iters", type=int, default=None)
    parser.add_argument("--rounds", type=int, default=2,
                        help="timing rounds, alternating order; each contender's fastest counts")
    parser.add_argument("--json", default=None)
    parser.add_argument("--plot-dir", default=None)
    args = parser.parse_args()
    warmup = args.warmup if args.warmup is not None else (3 if args.quick else 10)
    iters = args.iters if args.iters is not None else (10 if args.quick else 100)

    import teq.runtime
    command = "python3 " + " ".join(shlex.quote(a) for a in sys.argv)
    for line in timing.header(command, warmup, iters):
        print(line)
    print(f"commit: {timing.git_commit()}")
    art = teq.runtime.load(args.artifact)
    comp_r = torch.compile(lambda t: current_scaling(t, False), dynamic=False)
    comp_t = torch.compile(lambda t: current_scaling(t, True), dynamic=False)

    errors, rows, other, ceilings, spreads = [], [], [], {}, {}
    for m, k in (SHAPES[:1] if args.quick else SHAPES):
        shape = f"{m}x{k}"
        print(f"== {shape}", flush=True)
        gen = torch.Generator(device="cuda").manual_seed(99)
        x = torch.randn(m, k, device="cuda", dtype=torch.bfloat16, generator=gen)
        n = m * k
        ceil = timing.copy_ceiling(x, warmup, iters)
        ceilings[shape] = ceil
        copy_gbps = ceil["best_gbps"]

        suite = timing.Suite(warmup, iters, errors, shape, rounds=args.rounds)
        cur = []
        for variant, transpose in (("rowwise", False), ("both", True)):
            entry = art[f"current_{variant}_{shape}"]
            suite.add(f"teq current {variant}", lambda entry=entry: entry(x))
            suite.add(f"eager {variant}", lambda tr=transpose: current_scaling(x, tr), graph=False)
            fn = comp_t if transpose else comp_r
            suite.add(f"compile {variant}", lambda fn=fn: fn(x))
            cur.append((variant, transpose))
        formats = (("block 1D, both", f"block1d_both_{shape}", 2 * n + 2 * n),
                   ("block 2D, both", f"block2d_both_{shape}", 2 * n + 2 * n),
                   ("MXFP8, both", f"mxfp8_both_{shape}", 2 * n + 2 * n),
                   ("NVFP4 1D, both", f"nvfp4_1d_both_{shape}", 2 * (2 * n) + n + n // 8),
                   ("NVFP4 2D, both", f"nvfp4_2d_both_{shape}", 2 * (2 * n) + n + n // 8),
                   ("NVFP4 RHT, both", f"nvfp4_rht_both_{shape}", 2 * (2 * n) + n + n // 8))
        for name, entry_name, _ in formats:
            entry = art[entry_name]
            suite.add(f"teq {name}", lambda entry=entry: entry(x))
        t = suite.run()
        spreads[shape] = suite.spread()
        # The copy again after the kernels: the ceiling is the better of the two.
        again = timing.copy_ceiling(x, warmup, iters)
        ceil["after"] = again
        if again["best_gbps"] > ceil["best_gbps"]:
            ceil["best_gbps"], ceil["best"] = again["best_gbps"], again["best"] + " (after)"
        copy_gbps = ceil["best_gbps"]
        for variant, transpose in cur:
            moved = 2 * n * 2 + n * (2 if transpose else 1) + 4
            rows.append({"shape": shape, "what": f"current, {variant}", "moved": moved,
                         "teq": t[f"teq current {variant}"],
                         "teq_graph": t[f"teq current {variant}+graph"],
                         "eager": t[f"eager {variant}"], "compile": t[f"compile {variant}"],
                         "compile_graph": t[f"compile {variant}+graph"],
                         "copy_gbps": copy_gbps})
        for name, _, moved in formats:
            other.append({"shape": shape, "what": name, "moved": moved, "teq": t[f"teq {name}"],
                          "teq_graph": t[f"teq {name}+graph"], "copy_gbps": copy_gbps})
        del x
        torch.cuda.empty_cache()

    print()
    print("Copy ceiling (GB/s, bytes read + written, queued):")
    print()
    print("| shape | copy_ into preallocated | cudaMemcpyAsync D2D | ceiling used "
          "| largest spread between rounds (TEQ and torch) |")
    print("|---|---|---|---|---|")
    for shape, c in ceilings.items():
        def g(key):
            v = c.get(key, {})
            return f"{v['gbps']:.0f}" if "gbps" in v else v.get("error", "-")
        print(f"| {shape} | {g('copy_')} | {g('memcpy')} | {c['best_gbps']:.0f} ({c['best']}) | "
              f"{100 * spreads.get(shape, 0):.1f}% |")

    def teq_best(r):
        return best_of(r["teq"], r["teq_graph"])[0]

    def pct(r):
        t = teq_best(r)
        if t is None:
            return None
        return r["moved"] / t.median / 1e6 / r["copy_gbps"]

    def us(t):
        return f"{t.median * 1e3:.1f}" if t is not None and t.ok else "n/a"

    print()
    print("Current scaling (us, median; TEQ = best of direct and CUDA graph):")
    print()
    print("| shape | outputs | TEQ us (direct / graph) | TEQ GB/s | % of copy | torch eager us "
          "| torch.compile us | torch.compile +graph us | TEQ vs best torch |")
    print("|---|---|---|---|---|---|---|---|---|")
    fractions = []
    for r in rows:
        t = teq_best(r)
        p = pct(r)
        peer = best_of(r["eager"], r["compile"], r["compile_graph"])[0]
        fractions.append((f"{r['shape']} current {r['what'].split(', ')[1]}", p))
        print(f"| {r['shape']} | {r['what']} | {us(r['teq'])} / {us(r['teq_graph'])} | "
              f"{r['moved'] / t.median / 1e6:.0f} | {100 * p:.1f}% | {us(r['eager'])} | "
              f"{us(r['compile'])} | {us(r['compile_graph'])} | "
              f"{timing.fmt_ratio(timing.ratio(peer, t))} |" if t else
              f"| {r['shape']} | {r['what']} | n/a | | | | | | |")
    print()
    print("Formats with no PyTorch kernel, against the copy ceiling only:")
    print()
    print("| shape | quantization | TEQ us (direct / graph) | TEQ GB/s | % of copy "
          "| host us per direct call |")
    print("|---|---|---|---|---|---|")
    for r in other:
        t = teq_best(r)
        p = pct(r)
        fractions.append((f"{r['shape']} {r['what']}", p))
        if t is None:
            print(f"| {r['shape']} | {r['what']} | n/a | | |")
            continue
        host = f"{r['teq'].host * 1e3:.0f}" if r["teq"].ok else "-"
        print(f"| {r['shape']} | {r['what']} | {us(r['teq'])} / {us(r['teq_graph'])} | "
              f"{r['moved'] / t.median / 1e6:.0f} | {100 * p:.1f}% | {host} |")
    below = [(k, v) for k, v in fractions if v is not None and v < 0.9]
    print()
    print("Under the 90% target: " + (", ".join(f"{k} {100 * v:.1f}%" for k, v in below)
                                       if below else "none"))

    if args.plot_dir:
        import plots
        plots.fraction_bars(os.path.join(args.plot_dir, "quantize_vs_copy.png"),
                            "TEQ quantize kernels: bandwidth / copy ceiling (same run)",
                            [k for k, _ in fractions], [v for _, v in fractions], target=0.9)
    if args.json:
        def js(r):
            return {k: (v.to_json() if isinstance(v, timing.Timing) else v) for k, v in r.items()}
        with open(args.json, "w") as f:
            json.dump({"ceilings": ceilings, "current": [js(r) for r in rows],
                       "other": [js(r) for r in other], "errors": errors}, f, indent=1)
    if errors:
        print()
        print("Errors:")
        for e in errors:
            print(f"- {e[:400]}")
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
