"""teq.runtime's parallel groups: entry.groups, unique ids, Communicator and
the communicators a call takes. Without a GPU: the stand-in artifact with
collectives (unittests/Runtime, fake_artifact_collectives.so) and the
compiled Inputs/parallel.mlir inspected, and the argument errors. With two
GPUs and PyTorch (skipped otherwise), one thread a rank: the stand-in's
all-reduce, all-gather and reduce-scatter, and the compiled entries: a
row-parallel bf16 Linear against the unsharded product, the FP8 all-gather
of an amax-reduced SP input bit for bit against the one-GPU quantization of
the full tensor, a bf16 reduce-scatter."""

import os
import threading

import pytest

from runtime_helpers import REPO, artifact, runtime_module

rt_ext = runtime_module()
import teq.runtime as rt  # noqa: E402


def fake_collectives():
    """The stand-in artifact the runtime's unit tests build."""
    for build in (os.environ.get("TEQ_BUILD_DIR"), "build", "build-gpu-tests"):
        if not build:
            continue
        path = os.path.join(REPO, build, "unittests", "Runtime", "artifacts",
                            "fake_artifact_collectives.so")
        if os.path.isfile(path):
            return path
    pytest.skip("no fake_artifact_collectives.so (build TEQRuntimeTests)")


def test_entry_groups_and_describe():
    art = rt.inspect(fake_collectives())
    assert art["all_reduce"].groups == [{"name": "tp", "size": 2}]
    assert art["noop"].groups == []
    assert "all_gather(x: bf16[32, 16]) -> (y: bf16[64, 16])  [group tp of 2]" in art.describe()


def test_compiled_groups():
    art = rt.inspect(artifact("parallel"))
    assert art["row_linear"].groups == [{"name": "arg2", "size": 2}]
    assert art["sp_input"].groups == [{"name": "arg1", "size": 2}]
    assert art["quantize_full"].groups == []
    assert [a.name for a in art["sp_input"].args] == ["arg0", "result0"]


def test_call_checks_communicators():
    art = rt.inspect(fake_collectives())
    with pytest.raises(TypeError, match=r"entry 'all_reduce': communicators\[0\]: expected a "
                                        r"teq.runtime.Communicator, got object"):
        art["all_reduce"](None, communicators=[object()])


def test_unique_id():
    try:
        first = rt.unique_id()
    except RuntimeError as error:
        assert "NCCL not available" in str(error)
        pytest.skip(str(error))
    assert isinstance(first, bytes) and len(first) == 128
    assert first != rt.unique_id()


def test_communicator_argument_errors():
    with pytest.raises(ValueError, match=r"unique id: expected 128 bytes \(from "
                                         r"teq.runtime.unique_id\(\)\), got 3"):
        rt.Communicator(b"abc", 2, 0)


# -- two GPUs ------------------------------------------------------------------


def _two_gpus():
    try:
        import torch
    except ImportError:
        pytest.skip("no PyTorch")
    if not torch.cuda.is_available() or torch.cuda.device_count() < 2:
        pytest.skip("needs 2 CUDA devices")
    return torch


def _on_ranks(n, body, timeout=120):
    """Runs body(rank, register) on n threads, one a rank; `register(comm)`
    records a rank's communicator. When a rank fails, every communicator is
    aborted, so that no rank waits forever in a collective for it; a rank
    still running after `timeout` seconds fails the test. Re-raises the first
    failure."""
    errors = [None] * n
    comms = []
    lock = threading.Lock()

    def register(comm):
        with lock:
            comms.append(comm)
        return comm

    def abort_all():
        with lock:
            for comm in comms:
                comm.abort()

    def run(rank):
        try:
            body(rank, register)
        except BaseException as error:  # noqa: BLE001 - reported below
            errors[rank] = error
            abort_all()

    threads = [threading.Thread(target=run, args=(r,), daemon=True) for r in range(n)]
    for t in threads:
        t.start()
    for t in threads:
        t.join(timeout)
    hung = [r for r, t in enumerate(threads) if t.is_alive()]
    if hung:
        abort_all()
        for t in threads:
            t.join(10)
    for error in errors:
        if error is not None:
            raise error
    assert not hung, f"ranks {hung} did not finish within {timeout} s"


def test_collectives_on_two_gpus():
    torch = _two_gpus()
    path = fake_collectives()
    uid = rt.unique_id()

    def rank_body(rank, register):
        dev = f"cuda:{rank}"
        tp = register(rt.Communicator(uid, 2, rank, device=rank, name="tp"))
        assert (tp.size, tp.rank) == (2, rank)
        art = rt.load(path, device=rank)
        x = torch.arange(64, dtype=torch.float32, device=dev) * (1 - 2 * rank) + rank
        total, biggest = art["all_reduce"](x, communicators=[tp], synchronize=True)
        i = torch.arange(64, dtype=torch.float32, device=dev)
        assert torch.equal(total, i + (1 - i))
        assert torch.equal(biggest, torch.maximum(i, 1 - i))

        shard = torch.full((32, 16), float(rank + 1), dtype=torch.bfloat16, device=dev)
        (full,) = art["all_gather"](shard, communicators=[tp], synchronize=True)
        assert torch.equal(full[:32], torch.ones(32, 16, dtype=torch.bfloat16, device=dev))
        assert torch.equal(full[32:], torch.full((32, 16), 2.0, dtype=torch.bfloat16, device=dev))

        rows = torch.arange(64, dtype=torch.float32, device=dev)[:, None].expand(64, 16)
        whole = (rows * (rank + 1)).contiguous()
        (part,) = art["reduce_scatter"](whole.to(torch.bfloat16), communicators=[tp],
                                        synchronize=True)
        expect = rows * 3
        assert torch.equal(part, expect[32 * rank:32 * (rank + 1)].to(torch.bfloat16))

        with pytest.raises(RuntimeError, match=r"entry 'all_reduce' needs 1 communicator "
                                               r"\(group 'tp' of 2 ranks\), got 0"):
            art["all_reduce"](x)
        tp.check_async_error()

    _on_ranks(2, rank_body)


class _Parallel:
    """Inputs/parallel.mlir's data: full tensors and what each rank holds."""

    def __init__(self, torch):
        gen = torch.Generator().manual_seed(17)
        self.x = torch.randn(128, 128, generator=gen).to(torch.bfloat16)
        self.w = torch.randn(256, 128, generator=gen).to(torch.bfloat16)
        self.s = (torch.randn(128, 256, generator=gen) * 3).to(torch.bfloat16)
        # The larger amax is in rank 1's shard: without the reduction rank 0
        # would scale by its own.
        self.s[100, 7] = 40.0
        self.partials = [torch.randn(128, 256, generator=gen).to(torch.bfloat16)
                         for _ in range(2)]


def _run_compiled(torch, check):
    """check(rank, art, tp, data) on two ranks of Inputs/parallel.mlir."""
    path = artifact("parallel")
    uid = rt.unique_id()
    data = _Parallel(torch)

    def rank_body(rank, register):
        tp = register(rt.Communicator(uid, 2, rank, device=rank, name="tp"))
        check(rank, rt.load(path, device=rank), tp, data)
        tp.check_async_error()

    _on_ranks(2, rank_body)


def test_compiled_row_parallel_linear_on_two_gpus():
    torch = _two_gpus()

    def check(rank, art, tp, d):
        # Row parallel: each rank holds in/tp of x's columns and of w's.
        cols = slice(64 * rank, 64 * (rank + 1))
        dev = f"cuda:{rank}"
        (y,) = art["row_linear"](d.x[:, cols].contiguous().to(dev),
                                 d.w[:, cols].contiguous().to(dev),
                                 communicators=[tp], synchronize=True)
        product = d.x.float() @ d.w.float().t()
        err = ((y.float().cpu() - product).norm() / product.norm()).item()
        assert err < 1e-2, f"rank {rank}: relative error {err}"

    _run_compiled(torch, check)


def test_compiled_fp8_gather_of_an_amax_reduced_input_on_two_gpus():
    torch = _two_gpus()

    def check(rank, art, tp, d):
        # Every rank's gathered FP8 equals the one-GPU quantization of the
        # full tensor, bit for bit (the reduced amax makes it so).
        dev = f"cuda:{rank}"
        rows = slice(64 * rank, 64 * (rank + 1))
        (q,) = art["sp_input"](d.s[rows].contiguous().to(dev), communicators=[tp],
                               synchronize=True)
        (ref,) = art["quantize_full"](d.s.to(dev), synchronize=True)
        assert torch.equal(q.scale_inv.cpu(), ref.scale_inv.cpu()), rank
        assert torch.equal(q.data.cpu(), ref.data.cpu()), rank

    _run_compiled(torch, check)


def test_compiled_reduce_scatter_on_two_gpus():
    torch = _two_gpus()

    def check(rank, art, tp, d):
        dev = f"cuda:{rank}"
        rows = slice(64 * rank, 64 * (rank + 1))
        (part,) = art["reduce_scatter"](d.partials[rank].to(dev), communicators=[tp],
                                        synchronize=True)
        expect = (d.partials[0].float() + d.partials[1].float()).to(torch.bfloat16)[rows]
        assert torch.equal(part.cpu(), expect), rank

    _run_compiled(torch, check)
