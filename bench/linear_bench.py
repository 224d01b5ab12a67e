#!/usr/bin/env python3
"""Linear benchmark on the GPU: TEQ's FP8 Linear vs PyTorch, timed fairly.

  PYTHONPATH=build-gpu/python-bindings python3 bench/linear_bench.py \\
      --artifact .artifacts/linear.so [--sizes 8192x8192x8192,4096] [--quick]
      [--json out.json] [--plot-dir DIR] [--te-run build-gpu/bin/te-run]

One TE Linear, x:[M,K], w:[N,K], dy:[M,N], bf16, N(0,1) inputs (the same
tensors for every contender). TEQ runs through its Python runtime
(teq.runtime: the artifact of bench/linear.mlir, entries called on PyTorch
tensors, outputs allocated by PyTorch's allocator, work on PyTorch's
current stream). Every contender is timed by bench/timing.py (queued
calls, per-call CUDA events, no host sync in the queue, median):

* TEQ: fwd/fwdbwd under Float8CurrentScaling, Float8BlockScaling and
  DelayedScaling (its state update -- history roll, new scales -- in the
  entry), called directly and replayed from a CUDA graph;
* bf16: F.linear forward; forward + backward with autograd (eager, CUDA
  graph, torch.compile);
* torch.compile FP8 current scaling, TE-like (te-semantics.md 5.1, 6):
  amax + scale + saturating cast of x, w (E4M3) and dy (E5M2), the
  transposed copies Hopper's TN-only FP8 GEMM needs, torch._scaled_mm with
  fast accumulation for fprop and split accumulation for dgrad/wgrad
  (compiled, and compiled + CUDA graph);
* torch.compile FP8 DelayedScaling, TE-like: casts with the given scales,
  amaxes recorded into the history, TE's update (roll, scale = fp8_max /
  max(history)) (compiled, and compiled + CUDA graph);
* the FP8 fprop GEMM alone: TEQ's gemm_current entry and torch._scaled_mm
  on the same pre-quantized bytes.

Speed-ups are time ratios (peer / TEQ, > 1: TEQ faster), TEQ's best
configuration against each peer's best. Memory of a forward + backward
call: TEQ = its outputs (PyTorch's allocator, peak delta) + the entry's
workspace (allocated by the runtime once per artifact, the largest entry's;
the cuBLASLt workspace of 32 MiB, which PyTorch also keeps, is left out on
both sides); PyTorch = the peak delta of torch.cuda.max_memory_allocated
over one call. Exit status 1 if anything failed.
"""

import argparse
import json
import os
import shlex
import subprocess
import sys

import torch
import torch.nn.functional as F

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import timing  # noqa: E402
from timing import fmt_ratio, best_of, ratio, mib  # noqa: E402

E4M3_MAX = 448.0
E5M2_MAX = 57344.0
FLT_MAX = torch.finfo(torch.float32).max
HISTORY = 1024

DEFAULT_SIZES = [(8192, 8192, 8192), (16384, 4096, 4096),
                 (4096, 4096, 4096), (2048, 2048, 2048)]


# ---------------------------------------------------------------------------
# PyTorch peers
# ---------------------------------------------------------------------------

def quantize(t, fp8_dtype, fmax):
    """Per-tensor current scaling (te-semantics.md 5.1): amax, scale
    (FLT_MAX if it overflows, 1 for a zero or non-finite amax), saturating
    cast. Returns the FP8 data and scale_inv (fp32 scalar tensor)."""
    amax = t.abs().amax().float()
    scale = fmax / amax
    scale = torch.where(torch.isinf(scale), torch.full_like(scale, FLT_MAX), scale)
    scale = torch.where((amax == 0) | ~torch.isfinite(amax), torch.ones_like(scale), scale)
    q = (t.float() * scale).clamp(-fmax, fmax).to(fp8_dtype)
    return q, scale.reciprocal()


def fp8_forward(x, w):
    xq, sx = quantize(x, torch.float8_e4m3fn, E4M3_MAX)
    wq, sw = quantize(w, torch.float8_e4m3fn, E4M3_MAX)
    return torch._scaled_mm(xq, wq.t(), scale_a=sx, scale_b=sw,
                            out_dtype=torch.bfloat16, use_fast_accum=True)


def fp8_forward_backward(x, w, dy):
    xq, sx = quantize(x, torch.float8_e4m3fn, E4M3_MAX)
    x_t = xq.t().contiguous()
    wq, sw = quantize(w, torch.float8_e4m3fn, E4M3_MAX)
    y = torch._scaled_mm(xq, wq.t(), scale_a=sx, scale_b=sw,
                         out_dtype=torch.bfloat16, use_fast_accum=True)
    w_t = wq.t().contiguous()
    dyq, sdy = quantize(dy, torch.float8_e5m2, E5M2_MAX)
    dy_t = dyq.t().contiguous()
    dx = torch._scaled_mm(dyq, w_t.t(), scale_a=sdy, scale_b=sw,
                          out_dtype=torch.bfloat16, use_fast_accum=False)
    dw = torch._scaled_mm(dy_t, x_t.t(), scale_a=sdy, scale_b=sx,
                          out_dtype=torch.bfloat16, use_fast_accum=False)
    return y, dx, dw


def delayed_cast(t, scale, fp8_dtype, fmax):
    """DelayedScaling's cast (te-semantics.md 5.2): the stored scale, a
    saturating cast, and this tensor's amax for the history."""
    q = (t.float() * scale).clamp(-fmax, fmax).to(fp8_dtype)
    return q, scale.reciprocal(), t.abs().amax().float()


def delayed_update(scale, history, newest, fmax):
    """TE's update: the step's amaxes max-ed into row 0, then amax = max over
    the history, the history rolled (row 0 reset), scale = fp8_max / amax
    where amax is finite and positive (else the old scale)."""
    row0 = torch.maximum(history[0], newest)
    hist = torch.cat([row0[None], history[1:]], 0)
    amax = hist.amax(0)
    rolled = torch.roll(hist, -1, 0)
    rolled = torch.cat([torch.zeros_like(rolled[:1]), rolled[1:]], 0)
    new = fmax / amax
    new = torch.where(torch.isinf(new), torch.full_like(new, FLT_MAX), new)
    new = torch.where((amax > 0) & torch.isfinite(amax), new, scale)
    return new, rolled


def fp8_delayed_forward(x, w, s, h):
    xq, sx, ax = delayed_cast(x, s[0], torch.float8_e4m3fn, E4M3_MAX)
    wq, sw, aw = delayed_cast(w, s[1], torch.float8_e4m3fn, E4M3_MAX)
    y = torch._scaled_mm(xq, wq.t(), scale_a=sx, scale_b=sw,
                         out_dtype=torch.bfloat16, use_fast_accum=True)
    s2, h2 = delayed_update(s, h, torch.stack([ax, aw, torch.zeros_like(ax)]), E4M3_MAX)
    return y, s2, h2


def fp8_delayed_forward_backward(x, w, dy, s, h, bs, bh):
    xq, sx, ax = delayed_cast(x, s[0], torch.float8_e4m3fn, E4M3_MAX)
    x_t = xq.t().contiguous()
    wq, sw, aw = delayed_cast(w, s[1], torch.float8_e4m3fn, E4M3_MAX)
    y = torch._scaled_mm(xq, wq.t(), scale_a=sx, scale_b=sw,
                         out_dtype=torch.bfloat16, use_fast_accum=True)
    w_t = wq.t().contiguous()
    dyq, sdy, ady = delayed_cast(dy, bs[0], torch.float8_e5m2, E5M2_MAX)
    dy_t = dyq.t().contiguous()
    dx = torch._scaled_mm(dyq, w_t.t(), scale_a=sdy, scale_b=sw,
                          out_dtype=torch.bfloat16, use_fast_accum=False)
    dw = torch._scaled_mm(dy_t, x_t.t(), scale_a=sdy, scale_b=sx,
                          out_dtype=torch.bfloat16, use_fast_accum=False)
    zero = torch.zeros_like(ax)
    s2, h2 = delayed_update(s, h, torch.stack([ax, aw, zero]), E4M3_MAX)
    bs2, bh2 = delayed_update(bs, bh, torch.stack([ady, zero]), E5M2_MAX)
    return y, dx, dw, s2, h2, bs2, bh2


def bf16_forward_backward(x, w, dy, linear=F.linear):
    y = linear(x, w)
    dx, dw = torch.autograd.grad(y, (x, w), grad_outputs=dy)
    return y, dx, dw


# ---------------------------------------------------------------------------
# main
# ---------------------------------------------------------------------------

def parse_sizes(text):
    sizes = []
    for item in text.split(","):
        item = item.strip().lower()
        if not item:
            continue
        dims = [int(p) for p in item.split("x")]
        if len(dims) == 1:
            dims = dims * 3
        if len(dims) != 3 or min(dims) <= 0:
            raise argparse.ArgumentTypeError(f"bad size '{item}' (MxKxN or N)")
        sizes.append(tuple(dims))
    return sizes


def te_run_median(te_run, artifact, entry, warmup, iters):
    """te-run --bench's median in ms (a cross-check only: te-run uses its
    own random inputs)."""
    try:
        out = subprocess.run([te_run, artifact, "--entry", entry, "--bench", "--json",
                              "--warmup", str(warmup), "--iters", str(iters)],
                             capture_output=True, text=True, timeout=600)
        return json.loads(out.stdout)["entries"][0]["bench"]["median_us"] / 1000.0
    except Exception as e:  # noqa: BLE001
        return f"error: {e}"


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--artifact", default=".artifacts/linear.so")
    parser.add_argument("--sizes", type=parse_sizes, default=None,
                        help="comma-separated MxKxN (or N for N^3); default "
                             "8192x8192x8192,16384x4096x4096,4096,2048")
    parser.add_argument("--quick", action="store_true",
                        help="smoke run: 3 warm-up, 10 timed calls; 2048^3 only unless --sizes")
    parser.add_argument("--warmup", type=int, default=None)
    parser.add_argument("--iters", type=int, default=None)
    parser.add_argument("--no-graph", action="store_true", help="skip CUDA-graph configurations")
    parser.add_argument("--rounds", type=int, default=2,
                        help="timing rounds, alternating order; each contender's fastest counts")
    parser.add_argument("--json", default=None)
    parser.add_argument("--plot-dir", default=None)
    parser.add_argument("--te-run", default=None,
                        help="also time fwdbwd_current with te-run --bench (cross-check)")
    args = parser.parse_args()
    warmup = args.warmup if args.warmup is not None else (3 if args.quick else 10)
    iters = args.iters if args.iters is not None else (10 if args.quick else 100)
    if args.sizes is None:
        args.sizes = [(2048, 2048, 2048)] if args.quick else DEFAULT_SIZES

    import teq.runtime
    torch.backends.cuda.matmul.allow_tf32 = False
    command = "python3 " + " ".join(shlex.quote(a) for a in sys.argv)
    for line in timing.header(command, warmup, iters):
        print(line)
    print(f"commit: {timing.git_commit()}")

    free0, _ = torch.cuda.mem_get_info()
    art = teq.runtime.load(args.artifact)
    free1, _ = torch.cuda.mem_get_info()
    max_ws = max(e.workspace_bytes for e in art)
    print(f"teq.runtime.load({args.artifact}): device memory taken {mib(free0 - free1)} MiB "
          f"(largest entry workspace {mib(max_ws)} MiB + the cuBLASLt workspace and code)")

    fwd_comp = torch.compile(fp8_forward, dynamic=False)
    fwdbwd_comp = torch.compile(fp8_forward_backward, dynamic=False)
    dfwd_comp = torch.compile(fp8_delayed_forward, dynamic=False)
    dfwdbwd_comp = torch.compile(fp8_delayed_forward_backward, dynamic=False)
    linear_comp = torch.compile(F.linear, dynamic=False)

    rows, errors = [], []
    for (m, k, n) in args.sizes:
        sfx = f"{m}_{k}_{n}"
        label = f"{m}x{k}x{n}"
        print(f"== {label}", flush=True)
        r = {"size": label, "mkn": [m, k, n], "t": {}}
        gen = torch.Generator(device="cuda").manual_seed(1234)
        x = torch.randn(m, k, device="cuda", dtype=torch.bfloat16, generator=gen)
        w = torch.randn(n, k, device="cuda", dtype=torch.bfloat16, generator=gen)
        dy = torch.randn(m, n, device="cuda", dtype=torch.bfloat16, generator=gen)
        xg = x.detach().clone().requires_grad_(True)
        wg = w.detach().clone().requires_grad_(True)
        s = torch.ones(3, device="cuda")
        h = torch.zeros(HISTORY, 3, device="cuda")
        bs = torch.ones(2, device="cuda")
        bh = torch.zeros(HISTORY, 2, device="cuda")

        suite = timing.Suite(warmup, iters, errors, label, graphs=not args.no_graph,
                             rounds=args.rounds)
        teq_calls = {
            "teq_fwd_current": (art[f"fwd_current_{sfx}"], (x, w)),
            "teq_fwdbwd_current": (art[f"fwdbwd_current_{sfx}"], (x, w, dy)),
            "teq_fwd_block": (art[f"fwd_block_{sfx}"], (x, w)),
            "teq_fwdbwd_block": (art[f"fwdbwd_block_{sfx}"], (x, w, dy)),
            "teq_fwd_delayed": (art[f"fwd_delayed_{sfx}"], (x, w, s, h)),
            "teq_fwdbwd_delayed": (art[f"fwdbwd_delayed_{sfx}"], (x, w, dy, s, h, bs, bh)),
        }
        for key, (entry, ins) in teq_calls.items():
            suite.add(key, lambda entry=entry, ins=ins: entry(*ins))
        suite.add("bf16_fwd", lambda: F.linear(x, w))
        suite.add("bf16_fwdbwd", lambda: bf16_forward_backward(xg, wg, dy))
        suite.add("bf16_fwdbwd_compile",
                  lambda: bf16_forward_backward(xg, wg, dy, linear_comp))
        suite.add("fp8_fwd_compile", lambda: fwd_comp(x, w))
        suite.add("fp8_fwdbwd_compile", lambda: fwdbwd_comp(x, w, dy))
        suite.add("fp8d_fwd_compile", lambda: dfwd_comp(x, w, s, h))
        suite.add("fp8d_fwdbwd_compile", lambda: dfwdbwd_comp(x, w, dy, s, h, bs, bh))
        # DelayedScaling's update step alone (roll the history, new scales).
        if "update_delayed" in art:
            suite.add("teq_update_delayed", lambda: art["update_delayed"](s, h))
        # The FP8 GEMM alone, on the same quantized bytes for both.
        xq, sx = quantize(x, torch.float8_e4m3fn, E4M3_MAX)
        wq, sw = quantize(w, torch.float8_e4m3fn, E4M3_MAX)
        ge = art[f"gemm_current_{sfx}"]
        pw = {"data": wq.view(torch.uint8), "scale_inv": sw.reshape(1).float()}
        px = {"data": xq.view(torch.uint8), "scale_inv": sx.reshape(1).float()}
        suite.add("teq_gemm", lambda: ge(pw, px))
        suite.add("scaled_mm", lambda: torch._scaled_mm(xq, wq.t(), scale_a=sx, scale_b=sw,
                                                        out_dtype=torch.bfloat16,
                                                        use_fast_accum=True))
        r["t"] = suite.run()
        r["spread"] = suite.spread()
        del suite, xq, wq, pw, px

        # Memory of one forward + backward call: outputs + workspace_bytes.
        # Temporaries the compiler keeps inside not-yet-written outputs
        # (the manifest's "placement") are in the outputs' bytes, so this
        # sum is still all the call needs.
        mem = {}
        for recipe in ("current", "block", "delayed"):
            entry, ins = teq_calls[f"teq_fwdbwd_{recipe}"]
            try:
                outs = timing.peak_extra_bytes(lambda: entry(*ins))
                mem[f"teq_{recipe}"] = outs + entry.workspace_bytes
                mem[f"teq_{recipe}_workspace"] = entry.workspace_bytes
            except Exception as e:  # noqa: BLE001
                errors.append(f"{label} memory TEQ {recipe}: {e}")
        for key, fn in (("bf16", lambda: bf16_forward_backward(xg, wg, dy)),
                        ("fp8_compile", lambda: fwdbwd_comp(x, w, dy)),
                        ("fp8d_compile", lambda: dfwdbwd_comp(x, w, dy, s, h, bs, bh))):
            try:
                mem[key] = timing.peak_extra_bytes(fn)
            except Exception as e:  # noqa: BLE001
                errors.append(f"{label} memory {key}: {e}")
        r["mem"] = mem
        if args.te_run and (m, k, n) == args.sizes[0]:
            r["te_run_fwdbwd_current"] = te_run_median(
                args.te_run, args.artifact, f"fwdbwd_current_{sfx}", warmup, iters)
        rows.append(r)
        del x, w, dy, xg, wg
        torch.cuda.empty_cache()

    return report(rows, errors, args)


def best(r, key):
    t = r["t"]
    return best_of(t.get(key), t.get(key + "+graph"))[0]


PEERS = {
    "fwd": [("torch.compile FP8", "fp8_fwd_compile"), ("bf16", "bf16_fwd")],
    "fwdbwd": [("torch.compile FP8", "fp8_fwdbwd_compile"), ("bf16", "bf16_fwdbwd")],
}


def report(rows, errors, args):
    def cell(t):
        return t.cell() if t is not None else "-"

    print()
    print("Times (ms; each contender's fastest round's median; '+g' = replayed from a CUDA "
          "graph; host ms = the host's time per call while queueing, launch-bound where it "
          "is not below the device time):")
    print()
    keys = ["teq_fwd_current", "teq_fwdbwd_current", "teq_fwd_delayed", "teq_fwdbwd_delayed",
            "teq_fwd_block", "teq_fwdbwd_block", "bf16_fwd", "bf16_fwdbwd",
            "bf16_fwdbwd_compile", "fp8_fwd_compile", "fp8_fwdbwd_compile",
            "fp8d_fwd_compile", "fp8d_fwdbwd_compile"]
    for r in rows:
        print(f"{r['size']} (largest spread between the rounds of one contender: "
              f"{100 * r['spread']:.1f}%):")
        print()
        print("| contender | direct | +g | host ms per direct call |")
        print("|---|---|---|---|")
        for key in keys + ["teq_gemm", "scaled_mm", "teq_update_delayed"]:
            t = r["t"]
            if key not in t:
                continue
            host = f"{t[key].host:.3f}" if t[key].ok and t[key].host else "-"
            print(f"| {key} | {cell(t.get(key))} | {cell(t.get(key + '+graph'))} | {host} |")
        print()

    def bbf16(r):
        return best_of(best(r, "bf16_fwdbwd"), best(r, "bf16_fwdbwd_compile"))[0]

    print("Speed-ups, TEQ's best configuration over each peer's best (peer ms / TEQ ms):")
    print()
    print("| M x K x N | TEQ cur fwd ms | vs torch.compile FP8 | vs bf16 | TEQ cur fwd+bwd ms "
          "| vs torch.compile FP8 | vs bf16 | TEQ delayed fwd ms | vs compile FP8 delayed "
          "| vs compile FP8 current | TEQ delayed fwd+bwd ms | vs compile FP8 delayed "
          "| vs compile FP8 current | vs bf16 | TEQ block fwd+bwd ms | vs bf16 |")
    print("|" + "---|" * 17)
    summary = []
    for r in rows:
        cf, cb = best(r, "teq_fwd_current"), best(r, "teq_fwdbwd_current")
        df, db = best(r, "teq_fwd_delayed"), best(r, "teq_fwdbwd_delayed")
        bb = best(r, "teq_fwdbwd_block")
        pf, pb = best(r, "fp8_fwd_compile"), best(r, "fp8_fwdbwd_compile")
        pdf, pdb = best(r, "fp8d_fwd_compile"), best(r, "fp8d_fwdbwd_compile")
        bf, bfb = best(r, "bf16_fwd"), bbf16(r)
        s = {
            "size": r["size"],
            "cur_fwd_vs_fp8": ratio(pf, cf), "cur_fwd_vs_bf16": ratio(bf, cf),
            "cur_fwdbwd_vs_fp8": ratio(pb, cb), "cur_fwdbwd_vs_bf16": ratio(bfb, cb),
            "del_fwd_vs_fp8d": ratio(pdf, df), "del_fwd_vs_fp8": ratio(pf, df),
            "del_fwdbwd_vs_fp8d": ratio(pdb, db), "del_fwdbwd_vs_fp8": ratio(pb, db),
            "del_fwdbwd_vs_bf16": ratio(bfb, db),
            "block_fwdbwd_vs_bf16": ratio(bfb, bb),
        }
        summary.append(s)
        cells = [cell(cf), fmt_ratio(s["cur_fwd_vs_fp8"]), fmt_ratio(s["cur_fwd_vs_bf16"]),
                 cell(cb), fmt_ratio(s["cur_fwdbwd_vs_fp8"]), fmt_ratio(s["cur_fwdbwd_vs_bf16"]),
                 cell(df), fmt_ratio(s["del_fwd_vs_fp8d"]), fmt_ratio(s["del_fwd_vs_fp8"]),
                 cell(db), fmt_ratio(s["del_fwdbwd_vs_fp8d"]), fmt_ratio(s["del_fwdbwd_vs_fp8"]),
                 fmt_ratio(s["del_fwdbwd_vs_bf16"]), cell(bb),
                 fmt_ratio(s["block_fwdbwd_vs_bf16"])]
        print(f"| {r['size']} | " + " | ".join(cells) + " |")

    print()
    print("The FP8 fprop GEMM alone, same quantized operands, best of direct and CUDA graph "
          "(TFLOP/s = 2MNK / time):")
    print()
    print("| M x K x N | TEQ gemm ms | TEQ TFLOP/s | torch._scaled_mm ms | TFLOP/s | TEQ / torch |")
    print("|---|---|---|---|---|---|")
    for r in rows:
        m, k, n = r["mkn"]
        tg, sm = best(r, "teq_gemm"), best(r, "scaled_mm")

        def tf(t):
            return f"{2.0 * m * n * k / (t.median * 1e-3) / 1e12:.0f}" if t and t.ok else "-"
        print(f"| {r['size']} | {cell(tg)} | {tf(tg)} | {cell(sm)} | {tf(sm)} | "
              f"{fmt_ratio(ratio(sm, tg))} |")

    print()
    print("Device memory of one forward+backward call beyond its inputs (MiB): TEQ = outputs "
          "+ the entry's workspace; PyTorch = peak allocated during the call:")
    print()
    print("| M x K x N | TEQ current (workspace) | TEQ delayed | TEQ block "
          "| torch.compile FP8 current | torch.compile FP8 delayed | bf16 autograd "
          "| TEQ current / compile FP8 | TEQ current / bf16 |")
    print("|---|---|---|---|---|---|---|---|---|")
    for r in rows:
        mm = r["mem"]

        def rr(a, b):
            return f"{mm[a] / mm[b]:.2f}" if mm.get(a) and mm.get(b) else "-"
        print(f"| {r['size']} | {mib(mm.get('teq_current'))} "
              f"({mib(mm.get('teq_current_workspace'))}) | {mib(mm.get('teq_delayed'))} | "
              f"{mib(mm.get('teq_block'))} | {mib(mm.get('fp8_compile'))} | "
              f"{mib(mm.get('fp8d_compile'))} | {mib(mm.get('bf16'))} | "
              f"{rr('teq_current', 'fp8_compile')} | {rr('teq_current', 'bf16')} |")
    for r in rows:
        if "te_run_fwdbwd_current" in r:
            print()
            print(f"cross-check: te-run --bench fwdbwd_current {r['size']}: "
                  f"{r['te_run_fwdbwd_current']} ms (its own random inputs)")

    if args.plot_dir:
        import plots
        labels = [r["size"] for r in rows]
        plots.speedup_bars(
            os.path.join(args.plot_dir, "linear_speedup.png"),
            "TEQ Linear (FP8) speed-up over each peer's best configuration",
            labels,
            {"cur fwd vs compile FP8": [s["cur_fwd_vs_fp8"] for s in summary],
             "cur fwd+bwd vs compile FP8": [s["cur_fwdbwd_vs_fp8"] for s in summary],
             "delayed fwd+bwd vs compile FP8 delayed": [s["del_fwdbwd_vs_fp8d"] for s in summary],
             "cur fwd+bwd vs bf16": [s["cur_fwdbwd_vs_bf16"] for s in summary],
             "block fwd+bwd vs bf16": [s["block_fwdbwd_vs_bf16"] for s in summary]},
            target={"FP8 target": 1.2, "block vs bf16 target": 1.4})
    if args.json:
        out = {"rows": [{**r, "t": {k: v.to_json() for k, v in r["t"].items()}} for r in rows],
               "summary": summary, "errors": errors}
        with open(args.json, "w") as f:
            json.dump(out, f, indent=1)
    if errors:
        print()
        print("Errors:")
        for e in errors:
            print(f"- {e[:400]}")
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
