#!/usr/bin/env python3
"""Host microseconds per call through Python (issue 28): teq.runtime's entry
calls on bench/host_cost.mlir's small entries (256^3: the device never holds
the host back), next to PyTorch's own calls for the same work, timed the same
way in the same process.

  python3 bench/host_cost_python.py .artifacts/host_cost.so [--json OUT]

Each figure: 3 warm-up calls, then REPS repetitions of CALLS calls queued
back to back without synchronizing; the median over the repetitions of (time
to enqueue the calls) / CALLS, as bench/host_cost (the C/C++ path) measures.
Every TEQ call passes its outputs (out=, allocated once), as a training loop
that keeps its buffers would; "graph" adds graph=True (captured in the
warm-up, replayed). PyTorch's peers: torch._scaled_mm (the FP8 GEMM alone,
tensorwise scales), F.linear in bf16 (a Linear forward), a current-scaling
quantize written with torch ops (amax, scale, cast: the work of TEQ's
quantize entry), each eager and, where it compiles, under torch.compile.
"""

import argparse
import json
import statistics
import time

import torch
import torch.nn.functional as F

import teq.runtime as rt

CALLS, REPS = 32, 50
DEV = "cuda:0"


def measure(call):
    for _ in range(3):
        call()
    torch.cuda.synchronize()
    host = []
    for _ in range(REPS):
        start = time.perf_counter()
        for _ in range(CALLS):
            call()
        host.append((time.perf_counter() - start) / CALLS * 1e6)
        torch.cuda.synchronize()
    return statistics.median(host)


def inputs_of(entry):
    values = []
    for arg in entry.inputs:
        if arg.is_proto:
            q = rt._allocate(arg, "torch", 0)
            for buffer in q.buffers.values():  # finite FP8 codes, unit scales
                if buffer.dtype == torch.float32:
                    buffer.fill_(1.0)
                else:
                    buffer.view(torch.uint8).fill_(0x38)
            values.append(q)
        elif arg.dtype == "f32":
            values.append(torch.rand(arg.shape, device=DEV) + 0.5)
        else:
            dtype = {"bf16": torch.bfloat16, "f16": torch.float16}[arg.dtype]
            values.append(torch.randn(arg.shape, device=DEV, dtype=dtype))
    return values


def teq_rows(path):
    art = rt.load(path)
    rows = []
    for name in art.entries:
        entry = art[name]
        if entry.groups:
            continue
        values = inputs_of(entry)
        out = entry.allocate_outputs(like=values[0] if values else None)
        row = {"entry": entry.name}
        row["teq"] = measure(lambda: entry(*values, out=out))
        row["teq_graph"] = measure(lambda: entry(*values, out=out, graph=True))
        rows.append(row)
    return rows


def torch_rows():
    m = k = n = 256
    rows = []
    a = torch.randn(m, k, device=DEV).to(torch.float8_e4m3fn)
    b = torch.randn(n, k, device=DEV).to(torch.float8_e4m3fn)
    one = torch.ones((), device=DEV)
    x = torch.randn(m, k, device=DEV, dtype=torch.bfloat16)
    w = torch.randn(n, k, device=DEV, dtype=torch.bfloat16)

    def scaled_mm():
        return torch._scaled_mm(a, b.t(), scale_a=one, scale_b=one,
                                out_dtype=torch.bfloat16)

    def linear():
        return F.linear(x, w)

    def quantize(t):
        amax = t.abs().amax().float()
        scale = torch.where(amax > 0, 448.0 / amax, torch.ones_like(amax))
        return (t.float() * scale).to(torch.float8_e4m3fn), 1.0 / scale

    compiled = torch.compile(quantize)
    peers = [("torch._scaled_mm (FP8 GEMM)", scaled_mm),
             ("F.linear (bf16 Linear forward)", linear),
             ("quantize with torch ops, eager", lambda: quantize(x)),
             ("quantize with torch ops, torch.compile", lambda: compiled(x))]
    for name, call in peers:
        rows.append({"peer": name, "us": measure(call)})
    return rows


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("artifact")
    parser.add_argument("--json")
    args = parser.parse_args()
    teq = teq_rows(args.artifact)
    peers = torch_rows()
    print(f"device: {torch.cuda.get_device_name(0)}; torch {torch.__version__}; "
          f"{CALLS} calls per measurement, median of {REPS}")
    print(f"\n{'TEQ entry (teq.runtime, out= given)':<40} {'direct us':>10} {'graph us':>10}")
    for r in teq:
        print(f"{r['entry']:<40} {r['teq']:>10.2f} {r['teq_graph']:>10.2f}")
    print(f"\n{'PyTorch':<40} {'us':>10}")
    for r in peers:
        print(f"{r['peer']:<40} {r['us']:>10.2f}")
    if args.json:
        with open(args.json, "w") as f:
            json.dump({"device": torch.cuda.get_device_name(0), "calls": CALLS,
                       "reps": REPS, "unit": "host us per call (median)",
                       "teq": teq, "torch": peers}, f, indent=2)


if __name__ == "__main__":
    main()
