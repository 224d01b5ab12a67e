"""teq.runtime's parallel groups: entry.groups, unique ids, Communicator and
the communicators a call takes. Without a GPU: the stand-in artifact with
collectives (unittests/Runtime, fake_artifact_collectives.so) inspected, and
the argument errors. With two GPUs and PyTorch (skipped otherwise): its
all-reduce, all-gather and reduce-scatter on two ranks, one thread each."""

import os
import threading

import pytest

from runtime_helpers import REPO, runtime_module

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


def _on_ranks(n, body):
    """Runs body(rank) on n threads; re-raises the first failure."""
    errors = [None] * n

    def run(rank):
        try:
            body(rank)
        except BaseException as error:  # noqa: BLE001 - reported below
            errors[rank] = error

    threads = [threading.Thread(target=run, args=(r,)) for r in range(n)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    for error in errors:
        if error is not None:
            raise error


def test_collectives_on_two_gpus():
    torch = _two_gpus()
    path = fake_collectives()
    uid = rt.unique_id()

    def rank_body(rank):
        dev = f"cuda:{rank}"
        tp = rt.Communicator(uid, 2, rank, device=rank, name="tp")
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
