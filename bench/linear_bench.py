#!/usr/bin/env python3
"""Linear benchmark on the GPU: TEQ's FP8 Linear vs PyTorch bf16 and FP8.

  python3 bench/linear_bench.py --te-run build-gpu/bin/te-run \
      --artifact .artifacts/linear.so [--sizes 8192x8192x8192,4096] [--quick]

One TE Linear, x:[M,K], w:[N,K], dy:[M,N], bf16 activations. In one process
and one run, on the same device, medians after warm-up (CUDA events):

* TEQ (te-run --bench on the artifact of bench/linear.mlir):
  fwd_<recipe>_M_K_N (quantize x, w + fprop GEMM) and fwdbwd_<recipe>_M_K_N
  (+ quantize dy, w columnwise, dgrad, wgrad) for Float8CurrentScaling and
  Float8BlockScaling; gemm_current_M_K_N, the FP8 fprop GEMM alone on
  pre-quantized E4M3 operands.
* PyTorch bf16: F.linear forward; forward + backward with autograd
  (torch.autograd.grad of F.linear(x, w) for x and w with grad_outputs=dy).
* torch.compile FP8 current scaling (te-semantics.md §5.1, §6): forward =
  amax + scale + cast of x and w (E4M3), torch._scaled_mm with fast
  accumulation; forward + backward = the same plus dy (E5M2), the
  transposed copies Hopper's TN-only FP8 GEMM needs (.t().contiguous(), as
  TE keeps them), dgrad dx = dy w and wgrad dw = dy^T x with split
  accumulation (use_fast_accum=False), as TE's current-scaling recipe runs.
* The FP8 GEMM ceiling: torch._scaled_mm on pre-quantized E4M3 operands with
  fast accumulation (cuBLASLt, per-tensor scales).

Prints Markdown tables for bench/RESULTS.md. Speedups are time ratios
(> 1: TEQ faster). A failing te-run entry shows its error in the table and
the run goes on; the exit status is 1 if anything failed.
"""

import argparse
import datetime
import json
import shlex
import subprocess
import sys

import torch
import torch.nn.functional as F

E4M3_MAX = 448.0
E5M2_MAX = 57344.0
FLT_MAX = torch.finfo(torch.float32).max

DEFAULT_SIZES = [(8192, 8192, 8192), (16384, 4096, 4096),
                 (4096, 4096, 4096), (2048, 2048, 2048)]


# ---------------------------------------------------------------------------
# Timing
# ---------------------------------------------------------------------------

def time_ms(fn, warmup, iters):
    """Median of `iters` CUDA-event timings after `warmup` calls."""
    for _ in range(warmup):
        fn()
    torch.cuda.synchronize()
    times = []
    for _ in range(iters):
        start = torch.cuda.Event(enable_timing=True)
        end = torch.cuda.Event(enable_timing=True)
        start.record()
        fn()
        end.record()
        end.synchronize()
        times.append(start.elapsed_time(end))
    times.sort()
    n = len(times)
    return times[n // 2] if n % 2 else 0.5 * (times[n // 2 - 1] + times[n // 2])


def short(message, limit=90):
    message = " ".join(str(message).split())
    return message if len(message) <= limit else message[:limit - 3] + "..."


class Result:
    """A time in ms, or the error that prevented it."""

    def __init__(self, ms=None, error=None):
        self.ms = ms
        self.error = error

    def cell(self):
        if self.ms is not None:
            return f"{self.ms:.3f}"
        return f"error: {short(self.error, 60)}"


def measure(fn, warmup, iters, errors, label):
    try:
        return Result(time_ms(fn, warmup, iters))
    except Exception as e:  # noqa: BLE001 - report and go on
        errors.append(f"{label}: {e}")
        return Result(error=str(e).strip().splitlines()[0] if str(e).strip()
                      else type(e).__name__)


def te_run(te_run_path, artifact, entry, warmup, iters, errors):
    """Median ms of one entry (te-run --bench --json: entries[0].bench.
    median_us), or the error te-run reported."""
    cmd = [te_run_path, artifact, "--entry", entry, "--bench", "--json",
           "--warmup", str(warmup), "--iters", str(iters)]
    try:
        out = subprocess.run(cmd, capture_output=True, text=True, timeout=900)
    except (OSError, subprocess.TimeoutExpired) as e:
        errors.append(f"TEQ {entry}: {e}")
        return Result(error=str(e))
    report = None
    try:
        report = json.loads(out.stdout)
    except (json.JSONDecodeError, ValueError):
        pass
    error = None
    if isinstance(report, dict):
        entries = report.get("entries") or []
        if entries and isinstance(entries[0], dict):
            e0 = entries[0]
            bench = e0.get("bench")
            if out.returncode == 0 and isinstance(bench, dict) \
                    and "median_us" in bench:
                return Result(float(bench["median_us"]) / 1000.0)
            error = e0.get("error")
        error = error or report.get("error")
    if not error:
        lines = [l for l in out.stderr.strip().splitlines() if l.strip()]
        error = lines[-1] if lines else (
            f"te-run exited {out.returncode} without a result")
    errors.append(f"TEQ {entry}: {error}")
    return Result(error=error)


# ---------------------------------------------------------------------------
# PyTorch peers
# ---------------------------------------------------------------------------

def quantize(t, fp8_dtype, fmax):
    """Per-tensor current scaling (te-semantics.md §5.1): amax, scale
    (FLT_MAX if it overflows, 1 for a zero or non-finite amax), saturating
    cast. Returns the FP8 data and scale_inv (fp32 scalar tensor)."""
    amax = t.abs().amax().float()
    scale = fmax / amax
    scale = torch.where(torch.isinf(scale), torch.full_like(scale, FLT_MAX),
                        scale)
    scale = torch.where((amax == 0) | ~torch.isfinite(amax),
                        torch.ones_like(scale), scale)
    q = (t.float() * scale).clamp(-fmax, fmax).to(fp8_dtype)
    return q, scale.reciprocal()


def fp8_forward(x, w):
    xq, sx = quantize(x, torch.float8_e4m3fn, E4M3_MAX)
    wq, sw = quantize(w, torch.float8_e4m3fn, E4M3_MAX)
    # y = x w^T: a = x [M,K] row-major, b = w^T [K,N] column-major (TN).
    return torch._scaled_mm(xq, wq.t(), scale_a=sx, scale_b=sw,
                            out_dtype=torch.bfloat16, use_fast_accum=True)


def fp8_forward_backward(x, w, dy):
    # Forward: x rowwise + its transpose (kept for wgrad), w rowwise.
    xq, sx = quantize(x, torch.float8_e4m3fn, E4M3_MAX)
    x_t = xq.t().contiguous()
    wq, sw = quantize(w, torch.float8_e4m3fn, E4M3_MAX)
    y = torch._scaled_mm(xq, wq.t(), scale_a=sx, scale_b=sw,
                         out_dtype=torch.bfloat16, use_fast_accum=True)
    # Backward: w's transpose (dgrad), dy E5M2 rowwise + transpose.
    w_t = wq.t().contiguous()
    dyq, sdy = quantize(dy, torch.float8_e5m2, E5M2_MAX)
    dy_t = dyq.t().contiguous()
    # dx = dy w: a = dy [M,N], b = w as [N,K] column-major (= w_t^T).
    dx = torch._scaled_mm(dyq, w_t.t(), scale_a=sdy, scale_b=sw,
                          out_dtype=torch.bfloat16, use_fast_accum=False)
    # dw = dy^T x: a = dy^T [N,M], b = x as [M,K] column-major (= x_t^T).
    dw = torch._scaled_mm(dy_t, x_t.t(), scale_a=sdy, scale_b=sx,
                          out_dtype=torch.bfloat16, use_fast_accum=False)
    return y, dx, dw


def bf16_forward_backward(x, w, dy):
    y = F.linear(x, w)
    dx, dw = torch.autograd.grad(y, (x, w), grad_outputs=dy)
    return y, dx, dw


# ---------------------------------------------------------------------------
# Memory
# ---------------------------------------------------------------------------

DTYPE_BYTES = {"bf16": 2, "f16": 2, "f32": 4, "i64": 8}


def teq_memory(te_run_path, artifact, cache):
    """Per entry: (bytes of its outputs, bytes of its workspace), from the
    manifest (`te-run --list --json`). The workspace holds every temporary
    (quantized copies, intermediate results), planned by lifetime."""
    if "entries" not in cache:
        out = subprocess.run([te_run_path, artifact, "--list", "--json"],
                             capture_output=True, text=True, timeout=120)
        manifest = json.loads(out.stdout) if out.returncode == 0 else {}
        cache["entries"] = {e["name"]: e for e in manifest.get("entries", [])}
    return cache["entries"]


def teq_extra_bytes(entry):
    if entry is None:
        return None
    outputs = 0
    for arg in entry.get("args", []):
        if arg.get("kind") == "input":
            continue
        if "tensor" in arg:
            n = 1
            for d in arg["tensor"]["shape"]:
                n *= d
            outputs += n * DTYPE_BYTES.get(arg["tensor"]["dtype"], 0)
        else:
            outputs += sum(b.get("bytes", 0) for b in arg.get("buffers", []))
    return outputs + entry.get("workspace_bytes", 0)


def torch_extra_bytes(fn):
    """Peak device memory one call allocates beyond what already exists
    (its outputs and temporaries)."""
    torch.cuda.synchronize()
    torch.cuda.reset_peak_memory_stats()
    base = torch.cuda.memory_allocated()
    out = fn()
    torch.cuda.synchronize()
    peak = torch.cuda.max_memory_allocated() - base
    del out
    return peak


def mib(b):
    return "-" if b is None else f"{b / 2**20:.1f}"


# ---------------------------------------------------------------------------
# main
# ---------------------------------------------------------------------------

def parse_sizes(text):
    sizes = []
    for item in text.split(","):
        item = item.strip().lower()
        if not item:
            continue
        parts = item.split("x")
        try:
            dims = [int(p) for p in parts]
        except ValueError:
            raise argparse.ArgumentTypeError(f"bad size '{item}' (MxKxN or N)")
        if len(dims) == 1:
            dims = dims * 3
        if len(dims) != 3 or min(dims) <= 0:
            raise argparse.ArgumentTypeError(f"bad size '{item}' (MxKxN or N)")
        sizes.append(tuple(dims))
    if not sizes:
        raise argparse.ArgumentTypeError("no sizes given")
    return sizes


def speedup(base, teq):
    if base.ms is None or teq.ms is None or teq.ms <= 0:
        return "-"
    return f"{base.ms / teq.ms:.2f}x"


def tflops(flops, result):
    if result.ms is None or result.ms <= 0:
        return None
    return flops / (result.ms * 1e-3) / 1e12


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--te-run", required=True)
    parser.add_argument("--artifact", required=True)
    parser.add_argument("--sizes", type=parse_sizes, default=DEFAULT_SIZES,
                        help="comma-separated MxKxN (or N for N^3); default "
                             "8192x8192x8192,16384x4096x4096,4096,2048")
    parser.add_argument("--quick", action="store_true",
                        help="smoke run: 3 warm-up, 10 timed iterations")
    parser.add_argument("--warmup", type=int, default=None)
    parser.add_argument("--iters", type=int, default=None)
    args = parser.parse_args()
    warmup = args.warmup if args.warmup is not None else (3 if args.quick else 10)
    iters = args.iters if args.iters is not None else (10 if args.quick else 50)
    if iters < 1 or warmup < 0:
        parser.error("--iters must be >= 1 and --warmup >= 0")

    torch.backends.cuda.matmul.allow_tf32 = False
    dev = torch.cuda.get_device_name()
    command = "python3 " + " ".join(shlex.quote(a) for a in sys.argv)
    print(f"device: {dev}; torch {torch.__version__} (CUDA "
          f"{torch.version.cuda}); date "
          f"{datetime.datetime.now(datetime.timezone.utc):%Y-%m-%d %H:%M} UTC")
    print(f"command: {command}")
    print(f"method: {warmup} warm-up + {iters} timed iterations, median, CUDA "
          f"events; inputs N(0,1) bf16 (dy too); TEQ via te-run --bench "
          f"(its own buffers, same device, same process tree); operands of "
          f"2048^3 fit in the 50 MB L2, the other sizes do not")

    fwd_comp = torch.compile(fp8_forward, dynamic=False)
    fwdbwd_comp = torch.compile(fp8_forward_backward, dynamic=False)

    rows = []
    errors = []
    manifest_cache = {}
    for (m, k, n) in args.sizes:
        sfx = f"{m}_{k}_{n}"
        label = f"{m}x{k}x{n}"
        r = {"label": label, "mnk": (m, k, n)}
        # TEQ first, before this size's PyTorch tensors exist.
        torch.cuda.empty_cache()
        for recipe in ("current", "block"):
            r[f"teq_fwd_{recipe}"] = te_run(
                args.te_run, args.artifact, f"fwd_{recipe}_{sfx}", warmup,
                iters, errors)
            r[f"teq_fwdbwd_{recipe}"] = te_run(
                args.te_run, args.artifact, f"fwdbwd_{recipe}_{sfx}", warmup,
                iters, errors)
        r["teq_gemm"] = te_run(args.te_run, args.artifact,
                               f"gemm_current_{sfx}", warmup, iters, errors)

        x = torch.randn(m, k, device="cuda", dtype=torch.bfloat16)
        w = torch.randn(n, k, device="cuda", dtype=torch.bfloat16)
        dy = torch.randn(m, n, device="cuda", dtype=torch.bfloat16)
        xg = x.detach().clone().requires_grad_(True)
        wg = w.detach().clone().requires_grad_(True)

        r["bf16_fwd"] = measure(lambda: F.linear(x, w), warmup, iters, errors,
                                f"{label} bf16 fwd")
        r["bf16_fwdbwd"] = measure(lambda: bf16_forward_backward(xg, wg, dy),
                                   warmup, iters, errors,
                                   f"{label} bf16 fwd+bwd")
        r["comp_fwd"] = measure(lambda: fwd_comp(x, w), warmup, iters, errors,
                                f"{label} torch.compile FP8 fwd")
        r["comp_fwdbwd"] = measure(lambda: fwdbwd_comp(x, w, dy), warmup,
                                   iters, errors,
                                   f"{label} torch.compile FP8 fwd+bwd")
        manifest = teq_memory(args.te_run, args.artifact, manifest_cache)
        for recipe in ("current", "block"):
            r[f"mem_teq_{recipe}"] = teq_extra_bytes(
                manifest.get(f"fwdbwd_{recipe}_{sfx}"))
        try:
            r["mem_bf16"] = torch_extra_bytes(
                lambda: bf16_forward_backward(xg, wg, dy))
            r["mem_comp"] = torch_extra_bytes(lambda: fwdbwd_comp(x, w, dy))
        except Exception as e:  # noqa: BLE001
            errors.append(f"{label} memory: {e}")
            r["mem_bf16"] = r["mem_comp"] = None
        try:
            xq, sx = quantize(x, torch.float8_e4m3fn, E4M3_MAX)
            wq, sw = quantize(w, torch.float8_e4m3fn, E4M3_MAX)
            r["ceiling"] = measure(
                lambda: torch._scaled_mm(xq, wq.t(), scale_a=sx, scale_b=sw,
                                         out_dtype=torch.bfloat16,
                                         use_fast_accum=True),
                warmup, iters, errors, f"{label} _scaled_mm ceiling")
            del xq, wq
        except Exception as e:  # noqa: BLE001
            errors.append(f"{label} _scaled_mm ceiling: {e}")
            r["ceiling"] = Result(error=str(e))
        rows.append(r)
        del x, w, dy, xg, wg
        torch.cuda.empty_cache()

    print()
    print("Times (ms, median):")
    print()
    print("| M x K x N | TEQ cur fwd | TEQ cur fwd+bwd | TEQ block fwd "
          "| TEQ block fwd+bwd | bf16 fwd | bf16 fwd+bwd "
          "| torch.compile FP8 fwd | torch.compile FP8 fwd+bwd |")
    print("|---|---|---|---|---|---|---|---|---|")
    for r in rows:
        cells = [r[key].cell() for key in (
            "teq_fwd_current", "teq_fwdbwd_current", "teq_fwd_block",
            "teq_fwdbwd_block", "bf16_fwd", "bf16_fwdbwd", "comp_fwd",
            "comp_fwdbwd")]
        print(f"| {r['label']} | " + " | ".join(cells) + " |")

    print()
    print("Speedups (time ratio, > 1: TEQ faster) and the GEMM alone "
          "(TFLOP/s = 2MNK / time):")
    print()
    print("| M x K x N | cur fwd vs bf16 | cur fwd+bwd vs bf16 "
          "| block fwd vs bf16 | block fwd+bwd vs bf16 "
          "| cur fwd vs torch.compile | cur fwd+bwd vs torch.compile "
          "| TEQ GEMM ms | TEQ GEMM TFLOP/s | _scaled_mm TFLOP/s | % of ceiling |")
    print("|---|---|---|---|---|---|---|---|---|---|---|")
    for r in rows:
        m, k, n = r["mnk"]
        flops = 2.0 * m * n * k
        teq_tf = tflops(flops, r["teq_gemm"])
        ceil_tf = tflops(flops, r["ceiling"])
        pct = (f"{100.0 * teq_tf / ceil_tf:.1f}%"
               if teq_tf is not None and ceil_tf else "-")
        cells = [
            speedup(r["bf16_fwd"], r["teq_fwd_current"]),
            speedup(r["bf16_fwdbwd"], r["teq_fwdbwd_current"]),
            speedup(r["bf16_fwd"], r["teq_fwd_block"]),
            speedup(r["bf16_fwdbwd"], r["teq_fwdbwd_block"]),
            speedup(r["comp_fwd"], r["teq_fwd_current"]),
            speedup(r["comp_fwdbwd"], r["teq_fwdbwd_current"]),
            r["teq_gemm"].cell(),
            f"{teq_tf:.0f}" if teq_tf is not None else "-",
            f"{ceil_tf:.0f}" if ceil_tf is not None else r["ceiling"].cell(),
            pct,
        ]
        print(f"| {r['label']} | " + " | ".join(cells) + " |")

    print()
    print("Device memory one forward+backward call allocates beyond its inputs "
          "(MiB): TEQ = outputs + the entry's planned workspace (all "
          "temporaries; the runtime allocates it once per artifact), PyTorch "
          "= peak allocated during the call (outputs + temporaries):")
    print()
    print("| M x K x N | TEQ current | TEQ block | bf16 autograd "
          "| torch.compile FP8 |")
    print("|---|---|---|---|---|")
    for r in rows:
        print(f"| {r['label']} | {mib(r.get('mem_teq_current'))} | "
              f"{mib(r.get('mem_teq_block'))} | {mib(r.get('mem_bf16'))} | "
              f"{mib(r.get('mem_comp'))} |")

    if errors:
        print()
        print("Errors:")
        for e in errors:
            print(f"- {short(e, 400)}")
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
