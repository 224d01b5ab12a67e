"""The one timing method of every benchmark in bench/ (issue 16).

Every timed thing -- a TEQ entry called through teq.runtime, a PyTorch peer
in eager mode, under torch.compile, or replayed from a CUDA graph -- is a
Python callable that enqueues its work on PyTorch's current stream, and is
timed here the same way, the way te-run --bench times an entry:

* `warmup` untimed calls, then one device synchronisation;
* `iters` calls queued back to back, each between its own pair of CUDA
  events (start recorded, call, stop recorded), with no host
  synchronisation anywhere in the queue: host launch latency is hidden
  wherever the device is the slower side, for every contender alike;
* one synchronisation at the end; the median of the per-call event times
  is the figure (the mean over the whole queue, first start to last stop
  divided by `iters`, is kept too).

Best configurations of a peer: `graphed(fn)` captures one call of `fn` in
a CUDA graph (torch.cuda.graph) and returns a callable that replays it, to
be timed by the same `queued`; torch.compile is the caller's (the compiled
function is just another callable). `best_of` picks the fastest measured
configuration. `Suite` times a set of contenders in alternating rounds
(the second in reverse order) and keeps each one's fastest round.

The copy ceiling (`copy_ceiling`) is the best of `dst.copy_(src)` into a
preallocated tensor and a device-to-device cudaMemcpyAsync of the same
bytes (through CuPy's runtime bindings, on PyTorch's current stream), both
timed queued by `queued`, in the caller's run.
"""

import os
import statistics
import time

import torch


class Timing:
    """A measured time (ms) or the error that prevented it."""

    def __init__(self, median=None, mean=None, lo=None, hi=None, error=None, iters=0,
                 host=None):
        self.median = median
        self.host = host  # host ms per call while queueing (launch cost)
        self.mean = mean
        self.min = lo
        self.max = hi
        self.error = error
        self.iters = iters

    @property
    def ok(self):
        return self.median is not None

    def cell(self, digits=3):
        if self.ok:
            return f"{self.median:.{digits}f}"
        return "n/a"

    def to_json(self):
        return {"median_ms": self.median, "mean_ms": self.mean, "min_ms": self.min,
                "max_ms": self.max, "host_ms": self.host, "iters": self.iters,
                "round_medians_ms": getattr(self, "rounds", None), "error": self.error}

    def __repr__(self):
        if self.ok:
            return f"Timing(median={self.median:.4f} ms, mean={self.mean:.4f} ms)"
        return f"Timing(error={self.error!r})"


def queued(fn, warmup=10, iters=100):
    """Times `fn` as te-run --bench times an entry (see the module's
    docstring). Returns a Timing; exceptions propagate."""
    for _ in range(warmup):
        fn()
    torch.cuda.synchronize()
    starts = [torch.cuda.Event(enable_timing=True) for _ in range(iters)]
    stops = [torch.cuda.Event(enable_timing=True) for _ in range(iters)]
    # Each call's results are dropped at once, as in a training loop: the
    # caching allocator reuses their memory, stream-ordered.
    # The host's own time per call is kept too: where it exceeds the device
    # time, the events measure the host (launch cost), for any contender.
    t0 = time.perf_counter()
    for i in range(iters):
        starts[i].record()
        fn()
        stops[i].record()
    host = (time.perf_counter() - t0) * 1e3 / iters
    torch.cuda.synchronize()
    times = [s.elapsed_time(e) for s, e in zip(starts, stops)]
    whole = starts[0].elapsed_time(stops[-1]) / iters
    return Timing(statistics.median(times), whole, min(times), max(times), iters=iters,
                  host=host)


def graphed(fn, warmup=3):
    """A callable that replays one call of `fn` captured in a CUDA graph
    (torch.cuda.graph, on a side stream after `warmup` eager calls there,
    as PyTorch documents). The graph's outputs are reused by every replay.
    Raises whatever the capture raises."""
    side = torch.cuda.Stream()
    side.wait_stream(torch.cuda.current_stream())
    with torch.cuda.stream(side):
        for _ in range(warmup):
            fn()
    torch.cuda.current_stream().wait_stream(side)
    torch.cuda.synchronize()
    graph = torch.cuda.CUDAGraph()
    with torch.cuda.graph(graph, capture_error_mode="thread_local"):
        out = fn()
    torch.cuda.synchronize()

    def replay():
        graph.replay()
        return out

    replay.graph = graph
    replay.outputs = out
    return replay


def measure(fn, warmup, iters, errors=None, label=""):
    """`queued(fn)`, with an exception recorded as the Timing's error (and
    appended to `errors` with `label`) instead of raised."""
    try:
        return queued(fn, warmup, iters)
    except Exception as e:  # noqa: BLE001 - report and go on
        msg = " ".join(str(e).split()) or type(e).__name__
        if errors is not None:
            errors.append(f"{label}: {msg}")
        torch.cuda.synchronize()
        return Timing(error=msg)


class Suite:
    """The contenders of one comparison, timed in rounds: each round times
    every contender once with `queued`, the second round in reverse order,
    and so on, so that no contender always runs first or last (clocks and
    power drift over a run). A contender's figure is its fastest round's;
    `spread` is the largest (slowest / fastest round - 1) of the suite.

    add(key, fn, graph=True) registers `fn` and, unless graph is False or
    the suite has graphs=False, `key + "+graph"`: one call of `fn` captured
    in a CUDA graph (captured at once, replayed in every round)."""

    def __init__(self, warmup, iters, errors=None, label="", graphs=True, rounds=2):
        self.warmup, self.iters, self.errors, self.label = warmup, iters, errors, label
        self.graphs, self.rounds = graphs, rounds
        self.fns = {}
        self.results = {}

    def add(self, key, fn, graph=True):
        self.fns[key] = fn
        if graph and self.graphs:
            try:
                self.fns[key + "+graph"] = graphed(fn)
            except Exception as e:  # noqa: BLE001
                msg = " ".join(str(e).split()) or type(e).__name__
                if self.errors is not None:
                    self.errors.append(f"{self.label} {key} (CUDA graph capture): {msg}")
                try:
                    torch.cuda.synchronize()
                except Exception:  # noqa: BLE001
                    pass
                self.results[key + "+graph"] = Timing(error="capture failed: " + msg)

    def run(self):
        rounds = {k: [] for k in self.fns}
        order = list(self.fns)
        for r in range(self.rounds):
            for key in (order if r % 2 == 0 else order[::-1]):
                if rounds[key] and not rounds[key][-1].ok:
                    continue  # failed once: not again
                rounds[key].append(measure(self.fns[key], self.warmup, self.iters,
                                           self.errors if not rounds[key] else None,
                                           f"{self.label} {key}"))
        for key, ts in rounds.items():
            ok = [t for t in ts if t.ok]
            if not ok:
                self.results[key] = ts[0]
                continue
            best = min(ok, key=lambda t: t.median)
            best.rounds = [t.median for t in ok]
            self.results[key] = best
        self.fns.clear()  # the graphs' memory goes
        return self.results

    def spread(self):
        worst = 0.0
        for t in self.results.values():
            rs = getattr(t, "rounds", None)
            if t.ok and rs and len(rs) > 1:
                worst = max(worst, max(rs) / min(rs) - 1)
        return worst

GEMM_NAMES = ("gemm", "nvjet", "cutlass", "xmma", "cublas", "matmul", "sm90_")


def kernel_breakdown(fn, steps=3, top=4):
    """Device ms per step of `fn`'s kernels, GEMMs apart, from the PyTorch
    profiler's CUDA activity (CUPTI sees TEQ's driver launches and cuBLASLt
    calls too). `kernels` lists every kernel name, largest first, with its
    ms and launches a step; `top_other` the `top` largest non-GEMM ones."""
    from torch.profiler import ProfilerActivity, profile

    fn()
    torch.cuda.synchronize()
    with profile(activities=[ProfilerActivity.CUDA]) as prof:
        for _ in range(steps):
            fn()
        torch.cuda.synchronize()
    gemm = other = count = 0.0
    per_name = {}
    for e in prof.key_averages():
        us = getattr(e, "self_device_time_total", None)
        if us is None:
            us = getattr(e, "self_cuda_time_total", 0.0)
        if not us or e.key.startswith("ProfilerStep"):
            continue
        name = e.key
        is_gemm = any(g in name.lower() for g in GEMM_NAMES)
        if is_gemm:
            gemm += us
        else:
            other += us
        us_so_far, n, _ = per_name.get(name, (0.0, 0, is_gemm))
        per_name[name] = (us_so_far + us, n + e.count, is_gemm)
        count += e.count
    rows = sorted(per_name.items(), key=lambda kv: -kv[1][0])
    return {"gemm_ms": gemm / 1e3 / steps, "other_ms": other / 1e3 / steps,
            "count": count / steps,
            "kernels": [(n, us / 1e3 / steps, c / steps, g) for n, (us, c, g) in rows],
            "top_other": [(n, us / 1e3 / steps) for n, (us, _, g) in rows
                          if not g][:top]}


def best_of(*timings):
    """(timing, index) of the fastest measured timing, or (None, None)."""
    best, where = None, None
    for i, t in enumerate(timings):
        if t is not None and t.ok and (best is None or t.median < best.median):
            best, where = t, i
    return best, where


def ratio(peer, teq):
    """Speed-up of TEQ over a peer (peer time / TEQ time), or None."""
    if peer is None or teq is None or not peer.ok or not teq.ok or teq.median <= 0:
        return None
    return peer.median / teq.median


def fmt_ratio(r):
    return "-" if r is None else f"{r:.2f}x"


# ---------------------------------------------------------------------------
# The copy ceiling
# ---------------------------------------------------------------------------

def _memcpy_d2d():
    """A function (dst, src, nbytes) enqueueing cudaMemcpyAsync
    device-to-device on PyTorch's current stream, or None without CuPy."""
    try:
        import cupy
    except Exception:  # noqa: BLE001
        return None
    runtime = cupy.cuda.runtime
    kind = runtime.memcpyDeviceToDevice

    def copy(dst, src, nbytes):
        stream = torch.cuda.current_stream().cuda_stream
        runtime.memcpyAsync(dst.data_ptr(), src.data_ptr(), nbytes, kind, stream)
        return dst

    return copy


def copy_ceiling(src, warmup=10, iters=100):
    """The device copy bandwidth for `src`'s bytes (read once + written
    once), best of `copy_` into a preallocated tensor and a device-to-device
    cudaMemcpyAsync, both queued. Returns a dict: GB/s of each, the best,
    and which won."""
    dst = torch.empty_like(src)
    nbytes = src.numel() * src.element_size()
    moved = 2 * nbytes
    result = {"bytes_moved": moved}
    t = queued(lambda: dst.copy_(src), warmup, iters)
    result["copy_"] = {"ms": t.median, "gbps": moved / t.median / 1e6}
    memcpy = _memcpy_d2d()
    if memcpy is not None:
        try:
            t = queued(lambda: memcpy(dst, src, nbytes), warmup, iters)
            result["memcpy"] = {"ms": t.median, "gbps": moved / t.median / 1e6}
        except Exception as e:  # noqa: BLE001
            result["memcpy"] = {"error": " ".join(str(e).split())}
    else:
        result["memcpy"] = {"error": "CuPy is not importable"}
    best = max((v["gbps"], k) for k, v in result.items()
               if isinstance(v, dict) and "gbps" in v)
    result["best_gbps"], result["best"] = best
    del dst
    return result


# ---------------------------------------------------------------------------
# Device memory
# ---------------------------------------------------------------------------

def peak_extra_bytes(fn):
    """Peak device memory PyTorch's allocator holds during one call of `fn`
    beyond what was allocated before it (its outputs and temporaries), from
    torch.cuda.max_memory_allocated deltas."""
    torch.cuda.synchronize()
    torch.cuda.reset_peak_memory_stats()
    base = torch.cuda.memory_allocated()
    out = fn()
    torch.cuda.synchronize()
    peak = torch.cuda.max_memory_allocated() - base
    del out
    return peak


def mib(b):
    return "-" if b is None else f"{b / 2**20:.0f}"


# ---------------------------------------------------------------------------
# Reporting helpers
# ---------------------------------------------------------------------------

def header(command, warmup, iters):
    """The lines every benchmark prints first."""
    import datetime
    props = torch.cuda.get_device_properties(0)
    lines = [
        f"device: {torch.cuda.get_device_name()} ({props.multi_processor_count} SMs); "
        f"torch {torch.__version__} (CUDA {torch.version.cuda}); date "
        f"{datetime.datetime.now(datetime.timezone.utc):%Y-%m-%d %H:%M} UTC",
        f"command: {command}",
        f"method (bench/timing.py): {warmup} warm-up calls, then {iters} calls queued "
        f"back to back, each between its own CUDA events, no host sync in the queue; "
        f"median of the per-call times; every contender (TEQ through teq.runtime, "
        f"PyTorch eager, torch.compile, CUDA-graph replay) timed by this same code "
        f"on the same input tensors",
    ]
    return lines


def git_commit():
    """TEQ_COMMIT if set (a source snapshot without .git), else git's HEAD."""
    if os.environ.get("TEQ_COMMIT"):
        return os.environ["TEQ_COMMIT"]
    import subprocess
    try:
        out = subprocess.run(["git", "rev-parse", "--short", "HEAD"], capture_output=True,
                             text=True, timeout=10)
        return out.stdout.strip() or "unknown"
    except Exception:  # noqa: BLE001
        return "unknown"
