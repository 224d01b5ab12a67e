"""teq.runtime on the GPU with PyTorch tensors (skips without torch, CUDA or
a TEQ context): outputs bit-identical to te-run on the same inputs, calls on
the caller's stream, and bad calls that raise ValueError and leave the
outputs untouched."""

import os
import subprocess

import pytest

from runtime_helpers import artifact, require_torch_cuda, te_run

torch = require_torch_cuda()
import teq.runtime as rt  # noqa: E402

DEV = "cuda:0"


def _bytes(t):
    return t.detach().contiguous().cpu().view(torch.uint8).numpy().tobytes()


def _write(path, t):
    with open(path, "wb") as f:
        f.write(_bytes(t))


def _inputs(entry, gen, given=None):
    """Random inputs as te-run makes them: N(0,1) tensors, |N(0,1)| state."""
    given = dict(given or {})
    values = []
    for a in entry.inputs:
        if a.name in given:
            values.append(given[a.name])
            continue
        assert not a.is_proto, "proto inputs come from a forward call"
        dtype = {"bf16": torch.bfloat16, "f16": torch.float16, "f32": torch.float32}[a.dtype]
        x = torch.randn(a.shape, generator=gen, dtype=torch.float32)
        if a.shape and len(a.shape) <= 2 and a.dtype == "f32" and a.shape[-1] <= 3:
            x = x.abs() + 0.5  # scales and amax histories: positive
        values.append(x.to(dtype).to(DEV))
    return values


def _te_run_outputs(path, entry, values, tmp_path):
    """Runs te-run --entry on `values` (via --inputs) and reads --outputs."""
    runner = te_run()
    if runner is None:
        pytest.skip("no te-run (TEQ_TE_RUN, build-gpu/bin/te-run, build/bin/te-run)")
    ins = tmp_path / f"{entry.name}-in"
    outs = tmp_path / f"{entry.name}-out"
    ins.mkdir()
    outs.mkdir()
    for a, v in zip(entry.inputs, values):
        if a.is_proto:
            for b in a.buffers:
                _write(ins / f"{a.name}.{b.name}.bin", v[b.name])
        else:
            _write(ins / f"{a.name}.bin", v)
    result = subprocess.run([runner, path, "--entry", entry.name, "--inputs", str(ins),
                             "--outputs", str(outs)], capture_output=True, text=True)
    assert result.returncode == 0, result.stdout + result.stderr
    files = {}
    for a in entry.outputs + entry.inouts:
        if a.is_proto:
            for b in a.buffers:
                files[(a.name, b.name)] = (outs / f"{a.name}.{b.name}.bin").read_bytes()
        else:
            files[(a.name, None)] = (outs / f"{a.name}.bin").read_bytes()
    return files


def _compare(entry, results, files):
    for a, value in zip(entry.outputs, results):
        if a.is_proto:
            assert isinstance(value, rt.QuantizedTensor)
            assert list(value.buffers) == a.buffer_names
            for b in a.buffers:
                assert _bytes(value[b.name]) == files[(a.name, b.name)], (entry.name, a.name, b.name)
        else:
            assert _bytes(value) == files[(a.name, None)], (entry.name, a.name)


@pytest.mark.parametrize("name, fwd, bwd", [
    ("linear-current", "fwd", "bwd"),
    ("linear-current", "fwd_bias", "bwd_main_grad"),
    ("linear-delayed", "fwd", "bwd"),
    ("linear-hp", "fwd", "bwd"),
    ("mlp-current", "mlp_fwd", "mlp_bwd"),
])
def test_bit_identical_to_te_run(name, fwd, bwd, tmp_path):
    path = artifact(name)
    art = rt.load(path)
    assert art.loaded and art.device == 0
    gen = torch.Generator().manual_seed(1234)
    f, b = art[fwd], art[bwd]
    fin = _inputs(f, gen)
    fout = f(*fin)
    torch.cuda.synchronize()
    assert isinstance(fout, tuple) and len(fout) == len(f.outputs)
    _compare(f, fout, _te_run_outputs(path, f, fin, tmp_path))
    # The backward on the forward's saved results (and its own inputs).
    given = {}
    saved = iter(fout[1:])
    for a in b.inputs[1:]:
        if a.is_proto:
            given[a.name] = next(saved)
    if name == "linear-hp":  # bwd(dy, x, w): the forward's own arguments
        given = {b.inputs[1].name: fin[0], b.inputs[2].name: fin[1]}
    if name == "mlp-current":  # every saved result, in order
        given = {a.name: v for a, v in zip(b.inputs[1:], fout[1:])}
    bin_ = _inputs(b, gen, given)
    bout = b(*bin_)
    torch.cuda.synchronize()
    _compare(b, bout, _te_run_outputs(path, b, bin_, tmp_path))


def test_saved_arguments_are_the_tensors_passed():
    """A LayerNorm forward that saves its input x and weight g returns them
    as they are (alias_of): the very tensors passed, no copy, no buffers;
    the backward reads them; the same tensor may be passed for two
    arguments."""
    import torch.nn.functional as F

    art = rt.load(artifact("saved-alias"))
    fwd, bwd = art["ln_fwd"], art["ln_bwd"]
    gen = torch.Generator().manual_seed(3)
    x = (2 * torch.randn(128, 256, generator=gen) + 1).to(torch.bfloat16).to(DEV)
    g = (1 + 0.2 * torch.randn(256, generator=gen)).to(torch.bfloat16).to(DEV)
    b = (0.2 * torch.randn(256, generator=gen)).to(torch.bfloat16).to(DEV)
    y, saved_x, mean, rstd, saved_g = fwd(x, g, b)
    assert saved_x is x and saved_g is g
    out = fwd.allocate_outputs(like=x)
    assert out[1] is None and out[4] is None
    res = fwd(x, g, b, out=out)
    assert res[0] is out[0] and res[1] is x and res[4] is g
    with pytest.raises(ValueError, match="output 'saved_x' is argument 'x' itself"):
        fwd(x, g, b, out={"saved_x": torch.empty_like(x)})
    torch.cuda.synchronize()
    ref = F.layer_norm(x.float(), (256,), g.float(), b.float(), 1e-5)
    assert ((y.float() - ref).norm() / ref.norm()).item() < 1e-2
    assert torch.equal(out[0], y)
    # The backward on the saved tensors (x and g themselves) against autograd.
    dy = torch.randn(128, 256, generator=gen).to(torch.bfloat16).to(DEV)
    dx, dg, db = bwd(dy, saved_x, mean, rstd, saved_g)
    xr, gr, br = (t.float().requires_grad_(True) for t in (x, g, b))
    F.layer_norm(xr, (256,), gr, br, 1e-5).backward(dy.float())
    torch.cuda.synchronize()
    for got, want in ((dx, xr.grad), (dg, gr.grad), (db, br.grad)):
        assert ((got.float() - want).norm() / want.norm()).item() < 2e-2
    # The same tensor for both arguments: both results are it.
    both = art["both"]
    a = torch.randn(64, 128, generator=gen).to(torch.bfloat16).to(DEV)
    a_out, b_out, total = both(a, a)
    assert a_out is a and b_out is a
    torch.cuda.synchronize()
    assert torch.equal(total, a + a)


def test_quantized_results_have_te_names_and_out_is_written():
    art = rt.load(artifact("linear-current"))
    fwd = art["fwd"]
    x = torch.randn(64, 128, device=DEV, dtype=torch.bfloat16)
    w = torch.randn(256, 128, device=DEV, dtype=torch.bfloat16)
    y, sx, sw = fwd(x, w)
    assert y.dtype == torch.bfloat16 and y.shape == (64, 256) and y.device.index == 0
    assert sx.transpose.dtype == torch.uint8 and sx.transpose.shape == (128, 64)
    assert sx._transpose is sx.transpose and sx["scale_inv"].dtype == torch.float32
    assert sx.shape == (64, 128) and sx.quantizer["kind"] == "float8_current_scaling"
    out = fwd.allocate_outputs(like=x)
    res = fwd(x, w, out=out)
    assert all(r is o for r, o in zip(res, out))
    torch.cuda.synchronize()
    assert torch.equal(out[0], y) and torch.equal(out[1].transpose, sx.transpose)
    # By name, with out= as a dict (only some outputs given).
    y2 = torch.empty_like(y)
    res = fwd(arg0=x, arg1=w, out={"result0": y2})
    assert res[0] is y2
    torch.cuda.synchronize()
    assert torch.equal(y2, y)


def test_runs_on_the_callers_stream():
    art = rt.load(artifact("linear-current"))
    fwd = art["fwd"]
    x = torch.randn(64, 128, device=DEV, dtype=torch.bfloat16)
    w = torch.randn(256, 128, device=DEV, dtype=torch.bfloat16)
    ref = fwd(x, w, synchronize=True)[0]
    s = torch.cuda.Stream()
    s.wait_stream(torch.cuda.current_stream())
    with torch.cuda.stream(s):
        y = fwd(x, w)[0]  # s is the current stream: enqueued there
        z = y.float().sum()
    s.synchronize()
    assert torch.equal(y, ref) and torch.isfinite(z)
    # The legacy default stream (handle 0) explicitly.
    y0 = fwd(x, w, stream=0)[0]
    torch.cuda.synchronize()
    assert torch.equal(y0, ref)


def test_graph_replays_equal_direct_calls():
    """graph=True: captured on the first call with a set of addresses, then
    replayed; every output byte the direct call's, on the current and the
    legacy default stream, and with new inputs in the same buffers."""
    art = rt.load(artifact("linear-current"))
    fwd = art["fwd"]
    x = torch.empty(64, 128, device=DEV, dtype=torch.bfloat16)
    w = torch.empty(256, 128, device=DEV, dtype=torch.bfloat16)
    out = fwd.allocate_outputs(like=x)

    def buffers(value):
        return [value] if isinstance(value, torch.Tensor) else list(value.buffers.values())

    for step in range(3):
        x.copy_(torch.randn(64, 128, device=DEV))  # new inputs, same addresses
        w.copy_(torch.randn(256, 128, device=DEV))
        direct = fwd(x, w, synchronize=True)
        res = fwd(x, w, out=out, graph=True, stream=0 if step == 2 else None)
        torch.cuda.synchronize()
        for d, r in zip(direct, res):
            for db, rb in zip(buffers(d), buffers(r)):
                assert _bytes(db) == _bytes(rb), f"step {step}"


def test_call_inside_a_torch_cuda_graph_capture():
    """An entry called (teq.runtime, graph=True too, and as a teq.torch op)
    while PyTorch captures a CUDA graph is captured with PyTorch's work; each
    replay with new inputs in the same tensors equals a direct call byte for
    byte."""
    import teq.torch as tt
    art = rt.load(artifact("linear-current"))
    fwd = art["fwd"]
    op = tt.register(art)["fwd"]
    x = torch.randn(64, 128, device=DEV, dtype=torch.bfloat16)
    w = torch.nn.Parameter(torch.randn(256, 128, device=DEV, dtype=torch.bfloat16))
    out = fwd.allocate_outputs(like=x)
    out_g = fwd.allocate_outputs(like=x)

    def step():
        h = x * 2  # PyTorch's own work before and after the entries
        fwd(h, w, out=out)
        fwd(h, w, out=out_g, graph=True)
        return op(h, w)[0] + 1

    side = torch.cuda.Stream()
    side.wait_stream(torch.cuda.current_stream())
    with torch.cuda.stream(side):
        step()
    torch.cuda.current_stream().wait_stream(side)
    graph = torch.cuda.CUDAGraph()
    with torch.cuda.graph(graph):
        y_op = step()

    def buffers(value):
        return [value] if isinstance(value, torch.Tensor) else list(value.buffers.values())

    for i in range(3):
        x.copy_(torch.randn(64, 128, device=DEV))
        with torch.no_grad():
            w.copy_(torch.randn(256, 128, device=DEV))
        graph.replay()
        direct = fwd(x * 2, w, synchronize=True)
        torch.cuda.synchronize()
        for replayed in (out, out_g):
            for d, r in zip(direct, replayed):
                for db, rb in zip(buffers(d), buffers(r)):
                    assert _bytes(db) == _bytes(rb), f"replay {i}"
        assert _bytes(direct[0] + 1) == _bytes(y_op), f"replay {i}"


def test_call_on_another_stream_waits_for_torch():
    """stream= other than PyTorch's current stream: the tensors go through
    the DLPack protocol, which makes that stream wait for the work that wrote
    them (a parameter, which requires grad, included)."""
    art = rt.load(artifact("linear-current"))
    fwd = art["fwd"]
    w = torch.nn.Parameter(torch.randn(256, 128, device=DEV, dtype=torch.bfloat16))
    side = torch.cuda.Stream()
    for _ in range(3):
        big = torch.randn(4096, 4096, device=DEV)  # keeps the current stream busy
        x = (big @ big)[:64, :128].to(torch.bfloat16).contiguous()
        y = fwd(x, w, stream=side.cuda_stream)[0]
        torch.cuda.current_stream().wait_stream(side)
        expected = fwd(x, w, synchronize=True)[0]
        assert _bytes(y) == _bytes(expected)


def _bad_calls(x, w):
    cases = {
        "dtype": (x.float(), w, r"argument 'arg0': expected dtype bfloat16 \(bf16\), got float32"),
        "shape": (x[:32].contiguous(), w, r"argument 'arg0': expected shape \[64, 128\], got "
                                          r"\[32, 128\]"),
        "cpu": (x.cpu(), w, r"argument 'arg0': expected a CUDA tensor on cuda:0, got a tensor "
                            r"on cpu"),
        "non-contiguous": (x, torch.empty(128, 256, device=DEV, dtype=torch.bfloat16).t(),
                           r"argument 'arg1': expected a contiguous \(row-major\) tensor"),
        "misaligned": (torch.empty(64 * 128 + 8, device=DEV, dtype=torch.bfloat16)[8:].view(64, 128),
                       w, r"argument 'arg0': expected a 256-byte aligned address"),
    }
    return cases


@pytest.mark.parametrize("case", ["dtype", "shape", "cpu", "non-contiguous", "misaligned"])
def test_bad_call_raises_and_leaves_outputs_untouched(case):
    art = rt.load(artifact("linear-current"))
    fwd = art["fwd"]
    x = torch.randn(64, 128, device=DEV, dtype=torch.bfloat16)
    w = torch.randn(256, 128, device=DEV, dtype=torch.bfloat16)
    out = fwd.allocate_outputs(like=x)
    for t in [out[0]] + list(out[1]) + list(out[2]):
        t.view(torch.uint8).fill_(0xA5)
    torch.cuda.synchronize()
    before = [_bytes(t) for t in [out[0]] + list(out[1]) + list(out[2])]
    bx, bw, message = _bad_calls(x, w)[case]
    with pytest.raises(ValueError, match=message):
        fwd(bx, bw, out=out)
    # A bad output buffer is caught the same way.
    with pytest.raises(ValueError, match=r"argument 'result0': expected shape \[64, 256\]"):
        fwd(x, w, out=[torch.empty(64, 255, device=DEV, dtype=torch.bfloat16), None, None])
    torch.cuda.synchronize()
    after = [_bytes(t) for t in [out[0]] + list(out[1]) + list(out[2])]
    assert before == after


def test_wrong_device_artifact_and_errors_name_the_path(tmp_path):
    with pytest.raises(FileNotFoundError):
        rt.load(tmp_path / "missing.so")
    if torch.cuda.device_count() > 1:
        art = rt.load(artifact("linear-current"), device=1)
        x = torch.randn(64, 128, device=DEV, dtype=torch.bfloat16)
        w = torch.randn(256, 128, device=DEV, dtype=torch.bfloat16)
        with pytest.raises(ValueError, match="expected a tensor on cuda:1"):
            art["fwd"](x, w)


def test_device_info_and_context_stream():
    ctx = rt.context(0)
    info = ctx.device_info()
    assert info["ordinal"] == 0 and info["sm"].startswith("sm_")
    assert ctx.stream != 0
    assert os.path.basename(rt.load(artifact("linear-current")).path) == "linear-current.so"


def test_update_state_writes_the_callers_state_in_place():
    art = rt.load(artifact("mlp_delayed"))
    update = art["mlp_delayed_update"]
    state = {}
    for arg in update.inputs:
        shape = tuple(arg.shape)
        if arg.name.endswith("_scale"):
            state[arg.name] = torch.full(shape, 2.0, device=DEV, dtype=torch.float32)
        else:  # an amax history with amaxes recorded in row 0
            state[arg.name] = torch.rand(shape, device=DEV, dtype=torch.float32) + 0.5
    before = {name: t.clone() for name, t in state.items()}
    results = update(**state, update_state=True)
    torch.cuda.synchronize()
    for arg, result in zip(update.outputs, results):
        name = arg.name[: -len(".updated")]
        assert torch.equal(state[name], result), name
        assert not torch.equal(state[name], before[name]), name  # rolled, rescaled
    # Without update_state the caller's tensors stay as they were.
    again = {name: t.clone() for name, t in state.items()}
    update(**again)
    torch.cuda.synchronize()
    assert all(torch.equal(again[n], state[n]) for n in state)
    with pytest.raises(ValueError, match="update_state=True copies on the current stream"):
        update(**state, update_state=True, stream=0)
