#!/usr/bin/env python3
"""Quantize benchmark on the GPU: TEQ's kernels vs the copy ceiling and PyTorch.

Run by scripts/gpu-check on the GPU machine. In one process and one run, on
the same device, bf16 inputs larger than L2, medians after warm-up:

* device copy bandwidth (torch clone: bytes read + written);
* TEQ per-tensor FP8 current scaling (te-run --bench on .artifacts/quantize.so):
  rowwise only, and rowwise + the transposed copy Hopper keeps;
* PyTorch eager and torch.compile current scaling (amax, scale, cast [and
  transpose]) on the same shapes;
* block FP8, MXFP8 and NVFP4 (1D, 2D, RHT; both usages) against the copy
  ceiling only: PyTorch has no kernels for them (no NVFP4 peer exists).

"Bytes moved" for current scaling counts what the algorithm must move: the
input read twice (amax pass, cast pass) and every output written once.
Prints a Markdown table for bench/RESULTS.md.
"""

import argparse
import datetime
import json
import subprocess
import sys

import torch

FP8_MAX = 448.0


def time_ms(fn, warmup=10, iters=50):
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
    return times[len(times) // 2]


def current_scaling(x, transpose):
    """TE's current scaling in PyTorch: amax, scale (5.1), cast (+ transpose)."""
    amax = x.abs().amax().float()
    scale = torch.where((amax == 0) | ~torch.isfinite(amax),
                        torch.ones_like(amax), FP8_MAX / amax)
    q = (x.float() * scale).clamp(-FP8_MAX, FP8_MAX).to(torch.float8_e4m3fn)
    scale_inv = 1.0 / scale
    if transpose:
        return q, q.t().contiguous(), scale_inv
    return q, scale_inv


def te_run(te_run_path, artifact, entry):
    out = subprocess.run(
        [te_run_path, artifact, "--entry", entry, "--bench", "--warmup", "10",
         "--iters", "50", "--json"],
        capture_output=True, text=True)
    if out.returncode != 0:
        raise RuntimeError(f"te-run {entry} failed: {out.stderr.strip()}")
    report = json.loads(out.stdout)
    bench = report["entries"][0]["bench"]
    return bench["median_us"] / 1000.0


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--te-run", required=True)
    parser.add_argument("--artifact", required=True)
    args = parser.parse_args()

    dev = torch.cuda.get_device_name()
    print(f"device: {dev}; torch {torch.__version__}; "
          f"date {datetime.datetime.now(datetime.timezone.utc):%Y-%m-%d %H:%M} UTC")
    rows = []
    other = []
    ok = True
    for m, k in [(8192, 8192), (16384, 4096)]:
        x = torch.randn(m, k, device="cuda", dtype=torch.bfloat16)
        n = m * k
        copy_ms = time_ms(lambda: x.clone())
        copy_gbps = 2 * n * 2 / copy_ms / 1e6
        eager_r = lambda: current_scaling(x, False)
        eager_t = lambda: current_scaling(x, True)
        comp_r = torch.compile(lambda t: current_scaling(t, False))
        comp_t = torch.compile(lambda t: current_scaling(t, True))
        for variant, transpose in [("rowwise", False), ("both", True)]:
            out_bytes = n * (2 if transpose else 1) + 4
            moved = 2 * n * 2 + out_bytes
            try:
                teq_ms = te_run(args.te_run, args.artifact,
                                f"current_{variant}_{m}x{k}")
            except RuntimeError as e:
                print(e, file=sys.stderr)
                ok = False
                continue
            eager_ms = time_ms(eager_t if transpose else eager_r)
            fn = comp_t if transpose else comp_r
            compiled_ms = time_ms(lambda: fn(x))
            teq_gbps = moved / teq_ms / 1e6
            rows.append((f"{m}x{k}", variant, teq_ms * 1e3, teq_gbps,
                         100 * teq_gbps / copy_gbps, eager_ms * 1e3,
                         compiled_ms * 1e3, copy_gbps))
        # Formats PyTorch has no kernel for: TEQ against the copy ceiling. A
        # block-scaled cast reads the input once and writes both copies and
        # their scales.
        for name, entry in [("block 1D, both", f"block1d_both_{m}x{k}"),
                            ("block 2D, both", f"block2d_both_{m}x{k}"),
                            ("MXFP8, both", f"mxfp8_both_{m}x{k}")]:
            try:
                ms = te_run(args.te_run, args.artifact, entry)
            except RuntimeError as e:
                print(e, file=sys.stderr)
                ok = False
                continue
            moved = 2 * n + 2 * n  # input read once, two FP8 copies
            other.append((f"{m}x{k}", name, ms * 1e3,
                          moved / ms / 1e6, 100 * moved / ms / 1e6 / copy_gbps))
        # NVFP4 (no PyTorch kernel to compare with): the global amax must be
        # known before any block is encoded, so the input is read twice (amax
        # pass, quantize pass; with RHT one pass computes both the plain and
        # the post-RHT amax), and both E2M1 copies (n/2 bytes each) and their
        # E4M3 scales (n/16 each) are written once.
        for name, entry in [("NVFP4 1D, both", f"nvfp4_1d_both_{m}x{k}"),
                            ("NVFP4 2D, both", f"nvfp4_2d_both_{m}x{k}"),
                            ("NVFP4 RHT, both", f"nvfp4_rht_both_{m}x{k}")]:
            try:
                ms = te_run(args.te_run, args.artifact, entry)
            except RuntimeError as e:
                print(e, file=sys.stderr)
                ok = False
                continue
            moved = 2 * (2 * n) + n + n // 8
            other.append((f"{m}x{k}", name, ms * 1e3,
                          moved / ms / 1e6, 100 * moved / ms / 1e6 / copy_gbps))
    print()
    print("| shape | outputs | TEQ us | TEQ GB/s | % of copy | torch eager us "
          "| torch.compile us | copy GB/s |")
    print("|---|---|---|---|---|---|---|---|")
    for r in rows:
        print(f"| {r[0]} | {r[1]} | {r[2]:.1f} | {r[3]:.0f} | {r[4]:.1f}% | "
              f"{r[5]:.1f} | {r[6]:.1f} | {r[7]:.0f} |")
    print()
    print("NVFP4 has no PyTorch peer (no NVFP4 quantize kernel in PyTorch): "
          "its rows compare with the copy ceiling only.")
    print("| shape | quantization | TEQ us | TEQ GB/s | % of copy |")
    print("|---|---|---|---|---|")
    for r in other:
        print(f"| {r[0]} | {r[1]} | {r[2]:.1f} | {r[3]:.0f} | {r[4]:.1f}% |")
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
