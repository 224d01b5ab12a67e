#!/usr/bin/env python3
"""Host microseconds per call through Python (issue 28): teq.runtime's entry
calls on bench/host_cost.mlir's small entries (256^3: the device never holds
the host back), next to PyTorch's own calls for the same work, timed the same
way in the same process.

  python3 bench/host_cost_python.py .artifacts/host_cost.so [--json OUT]

Each figure: 3 warm-up calls, then REPS repetitions of CALLS calls queued
back to back without synchronizing; the median over the repetitions of (time
to enqueue the calls) / CALLS, as bench/host_cost (the C/C++ path) measures.
TEQ, per entry: teq.runtime with its outputs given (out=, allocated once, as
a training loop that keeps its buffers would), the same with graph=True
(captured in the warm-up, replayed), teq.runtime allocating its outputs,
and the entry as a torch operator (teq.torch.register: PyTorch's dispatcher,
outputs allocated by the op); and the teq.runtime call replayed inside a
PyTorch CUDA graph (torch.cuda.graph), as a PyTorch peer is. PyTorch's
peers: torch._scaled_mm (the FP8 GEMM alone, tensorwise scales), F.linear in
bf16 (a Linear forward), a current-scaling quantize written with torch ops
(amax, scale, cast: the work of TEQ's quantize entry), each eager, replayed
from a torch.cuda.graph, and (the quantize) under torch.compile.
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


def torch_graph(call):
    """A replay of call() captured in a torch.cuda.graph (warmed up on a side
    stream first, as PyTorch's docs ask)."""
    side = torch.cuda.Stream()
    side.wait_stream(torch.cuda.current_stream())
    with torch.cuda.stream(side):
        for _ in range(3):
            call()
    torch.cuda.current_stream().wait_stream(side)
    graph = torch.cuda.CUDAGraph()
    with torch.cuda.graph(graph):
        call()
    return graph.replay


def teq_rows(path):
    import teq.torch as tt
    art = rt.load(path)
    ops = tt.register(path)
    rows = []
    for name in art.entries:
        entry = art[name]
        if entry.groups:
            continue
        values = inputs_of(entry)
        out = entry.allocate_outputs(like=values[0] if values else None)
        op = ops[name]
        row = {"entry": entry.name}
        row["teq"] = measure(lambda: entry(*values, out=out))
        row["teq_graph"] = measure(lambda: entry(*values, out=out, graph=True))
        row["teq_alloc"] = measure(lambda: entry(*values))
        row["teq_torch_op"] = measure(lambda: op(*values))
        row["teq_in_torch_graph"] = measure(torch_graph(lambda: entry(*values, out=out)))
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
        row = {"peer": name, "us": measure(call)}
        if "compile" not in name:
            row["torch_graph_us"] = measure(torch_graph(call))
        rows.append(row)
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
    print(f"\n{'TEQ entry':<30} {'out= given':>11} {'graph=True':>11} {'allocating':>11} "
          f"{'torch op':>11} {'torch graph':>11}")
    for r in teq:
        print(f"{r['entry']:<30} {r['teq']:>11.2f} {r['teq_graph']:>11.2f} "
              f"{r['teq_alloc']:>11.2f} {r['teq_torch_op']:>11.2f} "
              f"{r['teq_in_torch_graph']:>11.2f}")
    print(f"\n{'PyTorch':<40} {'eager us':>10} {'torch graph us':>15}")
    for r in peers:
        graph = r.get("torch_graph_us")
        print(f"{r['peer']:<40} {r['us']:>10.2f} "
              f"{(f'{graph:.2f}' if graph is not None else '-'):>15}")
    if args.json:
        with open(args.json, "w") as f:
            json.dump({"device": torch.cuda.get_device_name(0), "calls": CALLS,
                       "reps": REPS, "unit": "host us per call (median)",
                       "teq": teq, "torch": peers}, f, indent=2)


if __name__ == "__main__":
    main()
