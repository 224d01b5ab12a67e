"""Issue 17's two-GPU benchmark: the tensor/sequence parallel MLP forward +
backward on 2 GPUs of one host, at 8192 tokens, hidden 4096, FFN 16384
(bench/tp_mlp.mlir):

* TEQ, tp 2: `te-run tp_mlp.so --nranks 2 --bench` (one thread, GPU and NCCL
  communicator a rank; FP8 current scaling, the amax all-reduced and x and
  dy gathered in FP8, y reduce-scattered in bf16);
* TEQ on one GPU: the unsharded MLP of the same artifact (its entries run on
  each GPU alone in the same te-run call);
* PyTorch, tp 2: the same MLP in bf16 with torch.distributed (NCCL, one
  process a GPU): all-gather of x, h = x w1_r^T, tanh, y_r = a w2_r^T,
  reduce-scatter of y; backward: all-gather of dy, fc2's dgrad and wgrad,
  tanh', fc1's wgrad (no dx: fc1 needs no dgrad, as in TEQ's program).

Every figure is timed the way te-run --bench times an entry: warm-up runs,
then each run between its own pair of CUDA events, queued without host
synchronisation; per timed run the slower rank's time; the median of those.
NCCL's NVLink multicast stays off (NCCL_NVLS_ENABLE=0).

    python3 bench/tp_mlp_bench.py --artifact .artifacts/tp_mlp.so \\
        --te-run build-gpu/bin/te-run [--json out.json]
    BENCH=tp_mlp bash scripts/gpu-check --bench-only   # the same, there
"""

import argparse
import json
import os
import statistics
import subprocess
import sys

S, H, F = 8192, 4096, 16384  # tokens, hidden, FFN (bench/tp_mlp.mlir)


def teq_steps(te_run, artifact, warmup, iters):
    """{entry: median us} of te-run --nranks 2 --bench (per run the slower
    rank; the unsharded entries run on each GPU alone)."""
    out = subprocess.run([te_run, artifact, "--nranks", "2", "--bench", "--json",
                          "--warmup", str(warmup), "--iters", str(iters)],
                         capture_output=True, text=True, check=False)
    if out.returncode != 0:
        raise RuntimeError(f"te-run failed ({out.returncode}): {out.stderr[-2000:]}")
    report = json.loads(out.stdout)
    return {step["name"]: step["median_us"] for step in report["step"]}


def _torch_rank(rank, port, warmup, iters, queue):
    import torch
    import torch.distributed as dist

    torch.cuda.set_device(rank)
    dist.init_process_group("nccl", init_method=f"tcp://127.0.0.1:{port}",
                            rank=rank, world_size=2)
    dev = torch.device("cuda", rank)
    bf16 = torch.bfloat16
    gen = torch.Generator(device=dev).manual_seed(17 + rank)
    x = torch.randn(S // 2, H, device=dev, dtype=bf16, generator=gen)
    dy = torch.randn(S // 2, H, device=dev, dtype=bf16, generator=gen)
    w1 = torch.randn(F // 2, H, device=dev, dtype=bf16, generator=gen) / 64
    w2 = torch.randn(H, F // 2, device=dev, dtype=bf16, generator=gen) / 90
    x_full = torch.empty(S, H, device=dev, dtype=bf16)
    dy_full = torch.empty(S, H, device=dev, dtype=bf16)
    y = torch.empty(S // 2, H, device=dev, dtype=bf16)

    def forward():
        dist.all_gather_into_tensor(x_full, x)
        a = torch.tanh(x_full @ w1.t())
        dist.reduce_scatter_tensor(y, a @ w2.t())
        return a

    def backward(a):
        dist.all_gather_into_tensor(dy_full, dy)
        dw2 = dy_full.t() @ a
        dh = (dy_full @ w2) * (1 - a * a)
        dist.all_gather_into_tensor(x_full, x)  # TE re-gathers x for wgrad
        dw1 = dh.t() @ x_full
        return dw1, dw2

    a = forward()
    times = {}
    for name, fn in (("forward", forward), ("backward", lambda: backward(a))):
        for _ in range(warmup):
            fn()
        torch.cuda.synchronize()
        dist.barrier()
        starts = [torch.cuda.Event(enable_timing=True) for _ in range(iters)]
        stops = [torch.cuda.Event(enable_timing=True) for _ in range(iters)]
        for i in range(iters):
            starts[i].record()
            fn()
            stops[i].record()
        torch.cuda.synchronize()
        mine = torch.tensor([s.elapsed_time(e) * 1000 for s, e in zip(starts, stops)],
                            device=dev)
        dist.all_reduce(mine, op=dist.ReduceOp.MAX)  # per run the slower rank
        times[name] = statistics.median(mine.tolist())
    if rank == 0:
        queue.put(times)
    dist.barrier()
    dist.destroy_process_group()


def torch_steps(warmup, iters, port=29517):
    import torch.multiprocessing as mp

    ctx = mp.get_context("spawn")
    queue = ctx.Queue()
    procs = [ctx.Process(target=_torch_rank, args=(r, port, warmup, iters, queue))
             for r in range(2)]
    for p in procs:
        p.start()
    times = queue.get(timeout=600)
    for p in procs:
        p.join(60)
    return times


def main():
    os.environ.setdefault("NCCL_NVLS_ENABLE", "0")
    if os.environ["NCCL_NVLS_ENABLE"] != "0":
        sys.exit("NCCL_NVLS_ENABLE must be 0 (NVLink multicast off)")
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--artifact", required=True, help="bench/tp_mlp.mlir compiled")
    parser.add_argument("--te-run", default="build-gpu/bin/te-run")
    parser.add_argument("--warmup", type=int, default=20)
    parser.add_argument("--iters", type=int, default=100)
    parser.add_argument("--json")
    parser.add_argument("--plot-dir", help="accepted for scripts/gpu-check; no plot")
    args = parser.parse_args()

    teq = teq_steps(args.te_run, args.artifact, args.warmup, args.iters)
    peer = torch_steps(args.warmup, args.iters)
    rows = [
        ("TEQ FP8, tp 2", teq["tp_mlp_forward"], teq["tp_mlp_backward"]),
        ("TEQ FP8, one GPU", teq["mlp_forward"], teq["mlp_backward"]),
        ("PyTorch bf16, tp 2", peer["forward"], peer["backward"]),
    ]
    print(f"MLP {S} tokens, hidden {H}, FFN {F}, tanh; per run the slower rank, "
          f"median of {args.iters} (us)")
    print(f"{'':22} {'forward':>10} {'backward':>10} {'fwd+bwd':>10}")
    for name, fwd, bwd in rows:
        print(f"{name:22} {fwd:10.1f} {bwd:10.1f} {fwd + bwd:10.1f}")
    if args.json:
        with open(args.json, "w") as f:
            json.dump({"shape": {"tokens": S, "hidden": H, "ffn": F},
                       "rows": [{"name": n, "forward_us": a, "backward_us": b}
                                for n, a, b in rows]}, f, indent=2)


if __name__ == "__main__":
    main()
