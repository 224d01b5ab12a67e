"""teq.torch.Module on the GPU (skips without torch, CUDA or a TEQ context),
on artifacts compiled from the Python-built Programs of programs.py (the
two-Linear MLP under Float8CurrentScaling and DelayedScaling):

(a) forward and backward through the Module bit-identical to te-run on the
    same inputs;
(b) torch.compile(fullgraph=True): no graph break, outputs, gradients and
    state bit-identical to the eager Module;
(c) outputs and gradients within PyTorch's own FP8 error (torch._scaled_mm
    under the same recipe) of a float64 reference;
(d) bad calls raise ValueError and change no parameter or buffer;
and TE's delayed-scaling update rule (lib/Reference's, and the artifact's
<name>_update entry against it), and a short compiled training loop with
DelayedScaling (the loss falls, the amax histories roll)."""

import copy
import subprocess

import pytest

import programs
from runtime_helpers import require_torch_cuda, te_run

torch = require_torch_cuda()
import teq.torch as tt  # noqa: E402

DEV = "cuda:0"
KINDS = ["current", "delayed"]
BF16 = torch.bfloat16
E4M3 = torch.float8_e4m3fn
E5M2 = torch.float8_e5m2
FP8_MAX = {E4M3: 448.0, E5M2: 57344.0}
FLT_MAX = 3.4028234663852886e38
SHAPE_X = (programs.TOKENS, programs.HIDDEN)


def _module(kind, **kwargs):
    return tt.Module.from_artifact(programs.artifact(f"mlp_{kind}"), **kwargs)


def _bytes(t):
    return t.detach().contiguous().cpu().view(torch.uint8).numpy().tobytes()


def _snapshot(module):
    values = {f"param {n}": _bytes(p) for n, p in module.named_parameters()}
    values.update({f"buffer {n}": _bytes(b) for n, b in module.named_buffers()})
    return values


def _te_run(entry, values, folder):
    """te-run --entry on `values` ({argument: tensor, bytes, or {buffer:
    tensor or bytes}}); returns {file stem: bytes} of its --outputs."""
    runner = te_run()
    if runner is None:
        pytest.skip("no te-run (TEQ_TE_RUN, build-gpu/bin/te-run, build/bin/te-run)")
    ins, outs = folder / f"{entry.name}-in", folder / f"{entry.name}-out"
    ins.mkdir()
    outs.mkdir()

    def write(path, value):
        path.write_bytes(value if isinstance(value, bytes) else _bytes(value))

    for a in entry.inputs:
        if a.is_proto:
            for b in a.buffers:
                write(ins / f"{a.name}.{b.name}.bin", values[a.name][b.name])
        else:
            write(ins / f"{a.name}.bin", values[a.name])
    result = subprocess.run([runner, entry.artifact.path, "--entry", entry.name, "--inputs",
                             str(ins), "--outputs", str(outs)], capture_output=True, text=True)
    assert result.returncode == 0, result.stdout + result.stderr
    return {p.name[:-4]: p.read_bytes() for p in outs.iterdir() if p.name.endswith(".bin")}


# -- (a) bit-identical to te-run ---------------------------------------------------


@pytest.mark.parametrize("kind", KINDS)
def test_module_bit_identical_to_te_run(kind, tmp_path):
    torch.manual_seed(10)
    # scale_update=False: the buffers then hold exactly the entries' results.
    m = _module(kind, scale_update=False)
    art = m.artifact
    fwd, bwd = art[f"mlp_{kind}_forward"], art[f"mlp_{kind}_backward"]
    assert [n for n, _ in m.named_parameters()] == ["fc1.weight", "fc1.bias", "fc2.weight"]
    x = torch.randn(SHAPE_X, device=DEV, dtype=BF16)
    dy = torch.randn(SHAPE_X, device=DEV, dtype=BF16)
    values = {"x": x.clone()}
    values.update({n: p.detach().clone() for n, p in m.named_parameters()})
    values.update({n: b.clone() for n, b in m.named_buffers()})
    torch.cuda.synchronize()
    y = m(x)
    y.backward(dy)
    torch.cuda.synchronize()
    f = _te_run(fwd, values, tmp_path)
    assert _bytes(y) == f["output0"]
    buffers = dict(m.named_buffers())
    for a in fwd.outputs:
        if a.name.endswith(".updated"):
            assert _bytes(buffers[a.name[:-8]]) == f[a.name], a.name
    # The backward on te-run's saved results (the same names on both sides).
    bvalues = {"grad_output0": dy}
    for a in bwd.inputs[1:]:
        if a.is_proto:
            bvalues[a.name] = {b.name: f[f"{a.name}.{b.name}"] for b in a.buffers}
        elif a.name in f:
            bvalues[a.name] = f[a.name]
        else:
            bvalues[a.name] = values[a.name]  # backward state, as before the call
    g = _te_run(bwd, bvalues, tmp_path)
    params = dict(m.named_parameters())
    for a in bwd.outputs:
        if a.name.startswith("grad_"):
            assert _bytes(params[a.name[5:]].grad) == g[a.name], a.name
        else:
            assert _bytes(buffers[a.name[:-8]]) == g[a.name], a.name
    if kind == "delayed":  # the histories were written
        assert m.fc1.fwd_amax_history[0, :2].min() > 0
        assert m.fc2.bwd_amax_history[0, 0] > 0
        assert torch.equal(m.fc1.fwd_scale, torch.ones(3, device=DEV))  # no update


# -- (b) torch.compile ------------------------------------------------------------


@pytest.mark.parametrize("kind", KINDS)
def test_compiled_matches_eager(kind):
    torch.manual_seed(11)
    eager = _module(kind)
    x = torch.randn(SHAPE_X, device=DEV, dtype=BF16)
    dy = torch.randn(SHAPE_X, device=DEV, dtype=BF16)

    def fn(module, x):
        return module(x)

    explanation = torch._dynamo.explain(fn)(copy.deepcopy(eager), x)
    assert explanation.graph_break_count == 0, explanation.break_reasons
    compiled_module = copy.deepcopy(eager)
    compiled = torch.compile(compiled_module, fullgraph=True)
    for step in range(3):  # later steps use the updated state
        for p in list(eager.parameters()) + list(compiled_module.parameters()):
            p.grad = None
        ye = eager(x)
        ye.backward(dy)
        yc = compiled(x)
        yc.backward(dy)
        torch.cuda.synchronize()
        assert torch.equal(ye, yc), step
        for (name, pe), (_, pc) in zip(eager.named_parameters(),
                                       compiled_module.named_parameters()):
            assert pe.grad is not None and torch.equal(pe.grad, pc.grad), (step, name)
        compiled_buffers = dict(compiled_module.named_buffers())
        for name, value in eager.named_buffers():
            assert torch.equal(value, compiled_buffers[name]), (step, name)
    if kind == "delayed":  # the scales were updated from the histories
        assert (eager.fc1.fwd_scale[:2] != 1).all() and (eager.fc2.bwd_scale[:1] != 1).all()


# -- (c) FP8 error against float64, next to PyTorch's own FP8 path -----------------


def _cast(t, dtype, scale):
    return (t.float() * scale).clamp(-FP8_MAX[dtype], FP8_MAX[dtype]).to(dtype)


def _current_scale(t, dtype):
    amax = t.float().abs().amax()
    return torch.where(amax > 0, FP8_MAX[dtype] / amax, torch.ones_like(amax))


def _gemm(a, sa, da, bt, sb, db, fast_accum, bias=None):
    """a @ bt^T with a quantized to `da` with scale `sa` and bt to `db`,
    by torch._scaled_mm (bf16 out); emulated in fp32 where it refuses."""
    qa, qb = _cast(a, da, sa), _cast(bt, db, sb)
    inv_a = (1.0 / sa.float()).reshape(())
    inv_b = (1.0 / sb.float()).reshape(())
    try:
        out = torch._scaled_mm(qa, qb.t(), scale_a=inv_a, scale_b=inv_b, bias=bias,
                               out_dtype=BF16, use_fast_accum=fast_accum)
        return out[0] if isinstance(out, tuple) else out
    except (RuntimeError, TypeError, AttributeError, NotImplementedError):
        out = (qa.float() * inv_a) @ (qb.float() * inv_b).t()
        if bias is not None:
            out = out + bias.float()
        return out.to(BF16)


def _torch_fp8_mlp(x, w1, b1, w2, dy, scales=None):
    """The MLP's forward and backward as TE computes it, in PyTorch:
    per-tensor FP8 (E4M3 forward, E5M2 gradients), torch._scaled_mm GEMMs
    (fast accumulation in fprop only), bf16 results. `scales` (delayed
    scaling) gives every quantization's scale; else current scaling."""
    def scale(key, t, dtype):
        return scales[key] if scales is not None else _current_scale(t, dtype)

    s_x1, s_w1 = scale("x1", x, E4M3), scale("w1", w1, E4M3)
    h = _gemm(x, s_x1, E4M3, w1, s_w1, E4M3, True, bias=b1)
    a = torch.tanh(h)
    s_x2, s_w2 = scale("x2", a, E4M3), scale("w2", w2, E4M3)
    y = _gemm(a, s_x2, E4M3, w2, s_w2, E4M3, True)
    s_g2 = scale("g2", dy, E5M2)
    da = _gemm(dy, s_g2, E5M2, w2.t().contiguous(), s_w2, E4M3, False)
    dw2 = _gemm(dy.t().contiguous(), s_g2, E5M2, a.t().contiguous(), s_x2, E4M3, False)
    dh = da - (da * a) * a
    s_g1 = scale("g1", dh, E5M2)
    dw1 = _gemm(dh.t().contiguous(), s_g1, E5M2, x.t().contiguous(), s_x1, E4M3, False)
    db1 = dh.float().sum(0).to(BF16)
    return {"y": y, "fc1.weight": dw1, "fc1.bias": db1, "fc2.weight": dw2}


def _f64_mlp(x, w1, b1, w2, dy):
    x, dy = x.double(), dy.double()
    w1, b1, w2 = (t.detach().double().requires_grad_(True) for t in (w1, b1, w2))
    y = torch.tanh(x @ w1.t() + b1) @ w2.t()
    y.backward(dy)
    return {"y": y.detach(), "fc1.weight": w1.grad, "fc1.bias": b1.grad, "fc2.weight": w2.grad}


def _rel(a, ref):
    return ((a.double() - ref).norm() / ref.norm()).item()


@pytest.mark.parametrize("kind", KINDS)
def test_fp8_error_within_pytorchs(kind):
    torch.manual_seed(12)
    m = _module(kind)
    x = torch.randn(SHAPE_X, device=DEV, dtype=BF16)
    dy = torch.randn(SHAPE_X, device=DEV, dtype=BF16)
    if kind == "delayed":  # one step first: scales from the amax histories
        m(x).backward(dy)
        for p in m.parameters():
            p.grad = None
        scales = {"x1": m.fc1.fwd_scale[0], "w1": m.fc1.fwd_scale[1],
                  "x2": m.fc2.fwd_scale[0], "w2": m.fc2.fwd_scale[1],
                  "g1": m.fc1.bwd_scale[0], "g2": m.fc2.bwd_scale[0]}
        scales = {k: v.detach().clone() for k, v in scales.items()}
        assert all((v != 1).item() for v in scales.values()), scales
    else:
        scales = None
    y = m(x)
    y.backward(dy)
    got = {"y": y.detach(), "fc1.weight": m.fc1.weight.grad, "fc1.bias": m.fc1.bias.grad,
           "fc2.weight": m.fc2.weight.grad}
    w1, b1, w2 = m.fc1.weight.detach(), m.fc1.bias.detach(), m.fc2.weight.detach()
    ref = _f64_mlp(x, w1, b1, w2, dy)
    pt = _torch_fp8_mlp(x, w1, b1, w2, dy, scales)
    torch.cuda.synchronize()
    report = []
    for name in ref:
        teq_err, torch_err = _rel(got[name], ref[name]), _rel(pt[name], ref[name])
        report.append(f"{name}: teq {teq_err:.3e}, torch._scaled_mm {torch_err:.3e}")
    print(f"\n{kind}: " + "; ".join(report))
    for name in ref:
        teq_err, torch_err = _rel(got[name], ref[name]), _rel(pt[name], ref[name])
        assert teq_err <= max(1.5 * torch_err, 2e-3), report
        assert teq_err < 0.25, report  # FP8, not noise


# -- (d) bad calls -----------------------------------------------------------------


@pytest.mark.parametrize("kind", KINDS)
def test_no_grad_runs_the_inference_entry(kind):
    """Under torch.no_grad() the Module runs the inference forward (rowwise
    quantizations only, nothing saved), eager and under
    torch.compile(fullgraph=True): the output and the state afterwards are
    bit-identical to the training forward's."""
    train = _module(kind)
    infer = copy.deepcopy(train)
    assert infer.inference_entry is not None and infer.inference_entry.name == f"mlp_{kind}"
    assert all(a.usage != "columnwise" for a in infer.inference_entry.outputs)
    plan = tt._common._plans[infer._plan_id]
    torch.manual_seed(7)
    xs = [torch.randn(SHAPE_X, device=DEV, dtype=BF16) for _ in range(3)]
    compiled = torch.compile(infer, fullgraph=True)
    for step, x in enumerate(xs):
        y_train = train(x)
        training_forward = plan.fwd_op
        plan.fwd_op = None  # the training forward must not run
        try:
            with torch.no_grad():
                y_infer = (compiled if step else infer)(x)
        finally:
            plan.fwd_op = training_forward
        assert y_infer.grad_fn is None
        assert _bytes(y_infer) == _bytes(y_train), f"step {step}"
        assert _snapshot(infer) == _snapshot(train), f"step {step}"


def test_no_gradient_is_dropped_silently():
    """A Module after a trainable op (LayerNorm -> TEQ MLP): where the
    program's x requires no grad, the call is refused, naming the input and
    the fix; where it does, the LayerNorm's parameters get their gradients
    through grad_x."""
    ln = torch.nn.LayerNorm(programs.HIDDEN, device=DEV, dtype=BF16)
    x = torch.randn(SHAPE_X, device=DEV, dtype=BF16)
    m = _module("current")
    with pytest.raises(ValueError, match=r"input 'x' requires grad, but the backward entry "
                                         r"'mlp_current_backward' computes no gradient"):
        m(ln(x))
    m(ln(x).detach())  # said so: no gradient wanted
    with torch.no_grad():
        m(ln(x))
    with_dgrad = tt.Module.from_artifact(programs.artifact("mlp_current_dgrad"), inputs=["x"])
    with_dgrad(ln(x)).float().sum().backward()
    assert ln.weight.grad is not None and ln.bias.grad is not None
    assert torch.isfinite(ln.weight.grad.float()).all() and ln.weight.grad.abs().sum() > 0


def test_dtype_casts_keep_fp8_state_fp32():
    """module.to(torch.bfloat16) / .bfloat16() / .to(device), what mixed
    precision scripts do, leave the delayed-scaling state fp32 (values
    untouched) and the Module runs on; .half() casts the bf16 parameters to
    f16, which the artifact refuses with the parameter's name."""
    m = _module("delayed")
    before = {n: _bytes(b) for n, b in m.named_buffers()}
    assert all(b.dtype == torch.float32 for b in m.buffers())
    m.to(torch.bfloat16)
    m.bfloat16()
    m.to(DEV)
    assert all(b.dtype == torch.float32 for b in m.buffers())
    assert {n: _bytes(b) for n, b in m.named_buffers()} == before
    assert all(p.dtype == BF16 for p in m.parameters())
    x = torch.randn(SHAPE_X, device=DEV, dtype=BF16)
    m(x).float().sum().backward()
    assert all(p.grad is not None for p in m.parameters())
    m.half()
    assert all(b.dtype == torch.float32 for b in m.buffers())
    with pytest.raises(ValueError, match=r"argument 'fc1.weight'.*expected dtype"):
        m(x)


@pytest.mark.parametrize("case", ["dtype", "shape", "cpu", "not a tensor", "missing"])
def test_bad_call_raises_and_changes_nothing(case):
    m = _module("delayed")
    x = torch.randn(SHAPE_X, device=DEV, dtype=BF16)
    m(x).float().sum().backward()  # state and grads that are not the initial ones
    torch.cuda.synchronize()
    before = _snapshot(m)
    grads = {n: _bytes(p.grad) for n, p in m.named_parameters()}
    cases = {
        "dtype": ((x.float(),), ValueError, r"input 'x': expected dtype torch.bfloat16 "
                                            r"\(bf16\[256, 512\]\), got torch.float32"),
        "shape": ((x[:128].contiguous(),), ValueError,
                  r"input 'x': expected shape \[256, 512\], got \[128, 512\]"),
        "cpu": ((x.cpu(),), ValueError,
                r"input 'x': expected a CUDA tensor on cuda:0, got a tensor on cpu"),
        "not a tensor": (([[1.0]],), ValueError, r"input 'x': expected a torch.Tensor"),
        "missing": ((), TypeError, r"forward missing input 'x' \(bf16\[256, 512\]\)"),
    }
    args, error, message = cases[case]
    with pytest.raises(error, match=message):
        m(*args)
    torch.cuda.synchronize()
    assert _snapshot(m) == before
    assert {n: _bytes(p.grad) for n, p in m.named_parameters()} == grads
    with pytest.raises(TypeError, match="forward has no input 'z'"):
        m(z=x)
    assert torch.isfinite(m(x=x).float()).all()  # still works, by name too


# -- the delayed-scaling update rule and training -------------------------------------


def test_delayed_scaling_update_rule():
    # TE's test_scale_update_numeric_scenarios: amax zero / tiny / normal /
    # inf / nan in the newest row, old scale 1.
    tiny = 448.0 / FLT_MAX / 2
    h = torch.zeros(4, 5)
    h[0] = torch.tensor([0.0, tiny, 3.0, float("inf"), float("nan")])
    new_h, new_s = tt.delayed_scaling_update(h, torch.ones(5), 448.0)
    expected = (torch.tensor(448.0, dtype=torch.float64) / 3.0).float()
    assert new_s[0] == 1 and new_s[1] == FLT_MAX and new_s[2] == expected
    assert new_s[3] == 1 and new_s[4] == 1
    assert torch.equal(new_h[:, 0], torch.zeros(4))  # zero: no roll
    assert torch.equal(new_h[:3, 1:], torch.zeros(3, 4))
    assert new_h[3, 2] == 3.0 and new_h[3, 3] == float("inf") and torch.isnan(new_h[3, 4])
    assert torch.isnan(h[0, 4]) and h[0, 2] == 3.0  # inputs unchanged
    # The roll: new = [0, old[2], old[3], old[0]]; "max" also sees the
    # dropped old[1] (the fused kernel's window), "most_recent" old[0].
    h = torch.tensor([[1.0], [7.0], [2.0], [3.0]])
    new_h, new_s = tt.delayed_scaling_update(h, torch.full((1,), 5.0), 448.0)
    assert torch.equal(new_h, torch.tensor([[0.0], [2.0], [3.0], [1.0]]))
    assert new_s.item() == 64.0
    _, new_s = tt.delayed_scaling_update(h, torch.ones(1), 448.0, amax_compute_algo="most_recent")
    assert new_s.item() == 448.0
    _, new_s = tt.delayed_scaling_update(h, torch.ones(1), 57344.0, margin=1)
    assert new_s.item() == 57344.0 / 2 / 7
    new_h, new_s = tt.delayed_scaling_update(torch.tensor([[4.0]]), torch.ones(1), 448.0)
    assert new_h.item() == 0 and new_s.item() == 112.0
    with pytest.raises(ValueError, match="amax_compute_algo"):
        tt.delayed_scaling_update(h, torch.ones(1), 448.0, amax_compute_algo="mean")


def test_delayed_scaling_update_compiled_on_cuda():
    """The rule is one torch op (lib/Reference on the host): on CUDA tensors
    and under torch.compile(fullgraph=True) it returns eager's values."""
    torch.manual_seed(15)
    h = torch.rand(16, 3, device=DEV) * 10
    h[0, 1] = 0
    s = torch.ones(3, device=DEV)
    eager = tt.delayed_scaling_update(h, s, 448.0)
    compiled = torch.compile(lambda h, s: tt.delayed_scaling_update(h, s, 448.0),
                             fullgraph=True)(h, s)
    for a, b in zip(eager, compiled):
        assert a.device == h.device and torch.equal(a, b)
    cpu = tt.delayed_scaling_update(h.cpu(), s.cpu(), 448.0)
    assert all(torch.equal(a.cpu(), b) for a, b in zip(eager, cpu))


def test_update_entry_matches_the_torch_rule():
    """The artifact's update entry (TE's update step, compiled) and
    delayed_scaling_update (lib/Reference's rule, on the host) after one step."""
    torch.manual_seed(14)
    a = _module("delayed")
    if a.pair.update is None:
        pytest.skip("this artifact has no update entry")
    assert a._scale_update == "entry"
    b = _module("delayed", scale_update="torch",
                init={n: p.detach() for n, p in a.named_parameters()})
    assert b._scale_update == "torch"
    x = torch.randn(SHAPE_X, device=DEV, dtype=BF16)
    dy = torch.randn(SHAPE_X, device=DEV, dtype=BF16)
    for m in (a, b):
        m(x).backward(dy)
    torch.cuda.synchronize()
    ba, bb = dict(a.named_buffers()), dict(b.named_buffers())
    for name in ba:
        if name.endswith("history"):
            assert torch.equal(ba[name], bb[name]), (name, ba[name], bb[name])
        else:
            assert torch.allclose(ba[name], bb[name], rtol=2.5e-7, atol=0), \
                (name, ba[name], bb[name])
    hist = ba["fc1.fwd_amax_history"]
    assert (hist[-1, :2] > 0).all() and (hist[0] == 0).all()  # rolled
    assert (ba["fc1.fwd_scale"][:2] != 1).all() and ba["fc1.fwd_scale"][2] == 1
    assert (ba["fc2.bwd_scale"][:1] != 1).all() and ba["fc2.bwd_scale"][1] == 1
    # Both directions, one step each: the forward's update left the
    # backward state alone and the other way round.
    assert (ba["fc2.bwd_amax_history"][-1, 0] > 0) and (ba["fc2.bwd_amax_history"][-2] == 0).all()


def test_module_buffers_and_repr():
    m = _module("delayed")
    buffers = dict(m.named_buffers())
    hist = programs.AMAX_HISTORY_LEN
    assert set(buffers) == {f"{l}.{d}_{s}" for l in ("fc1", "fc2") for d in ("fwd", "bwd")
                            for s in ("scale", "amax_history")}
    assert torch.equal(buffers["fc1.fwd_scale"], torch.ones(3, device=DEV))
    assert torch.equal(buffers["fc2.bwd_amax_history"], torch.zeros(hist, 2, device=DEV))
    assert m.fc1.weight.shape == (programs.FFN, programs.HIDDEN) and m.fc1.weight.dtype == BF16
    assert set(m.state_dict()) == set(buffers) | {"fc1.weight", "fc1.bias", "fc2.weight"}
    assert "fc1.fwd_scale=state" in repr(m)
    w = torch.zeros(programs.FFN, programs.HIDDEN, dtype=BF16)
    m = _module("current", init={"fc1.weight": w, "fc1.bias": 0.5})
    assert torch.equal(m.fc1.weight.detach().cpu(), w) and (m.fc1.bias == 0.5).all()
    with pytest.raises(ValueError, match="init: no parameter or state nope"):
        _module("current", init={"nope": 1.0})
    with pytest.raises(ValueError, match=r"parameter 'fc1.weight': expected bf16\[1024, 512\]"):
        _module("current", init={"fc1.weight": w.t()})
    from teq.recipe import DelayedScaling

    with pytest.raises(ValueError, match="amax_history_len=1024, but 'fc1.fwd_amax_history' "
                                         "has 16 rows"):
        _module("delayed", recipe=DelayedScaling(), scale_update="torch")
    if _module("delayed").pair.update is not None:
        with pytest.raises(ValueError, match="recipe= is for scale_update='torch'"):
            _module("delayed", recipe=DelayedScaling(amax_history_len=16))
    else:
        with pytest.raises(ValueError, match="has no update entry"):
            _module("delayed", scale_update="entry")
    with pytest.raises(ValueError, match="scale_update: True, False, 'entry' or 'torch'"):
        _module("delayed", scale_update="yes")
    with pytest.raises(ValueError, match="parameters: entry 'mlp_current_forward' has no "
                                         "argument 'w'"):
        _module("current", parameters=["w"])


def test_training_loop_compiled_delayed():
    torch.manual_seed(13)
    m = _module("delayed")
    x = torch.randn(SHAPE_X, device=DEV, dtype=BF16)
    target = 0.5 * torch.randn(SHAPE_X, device=DEV, dtype=torch.float32)

    def loss_fn(x):
        return ((m(x).float() - target) ** 2).sum()

    step = torch.compile(loss_fn, fullgraph=True)
    opt = torch.optim.SGD(m.parameters(), lr=2e-4)
    losses = []
    for _ in range(3):
        opt.zero_grad(set_to_none=True)
        loss = step(x)
        loss.backward()
        opt.step()
        losses.append(loss.item())
    torch.cuda.synchronize()
    # The histories rolled once per step: rows L-3..L-1 hold the three
    # steps' amaxes, row 0 was reset; unused slots stayed 0 (output, grad_input).
    hist = programs.AMAX_HISTORY_LEN
    for name, used in (("fc1.fwd", 2), ("fc2.fwd", 2), ("fc1.bwd", 1), ("fc2.bwd", 1)):
        h = dict(m.named_buffers())[f"{name}_amax_history"]
        s = dict(m.named_buffers())[f"{name}_scale"]
        assert (h[hist - 3:, :used] > 0).all(), (name, h)
        assert (h[:hist - 3] == 0).all() and (h[:, used:] == 0).all(), (name, h)
        fp8_max = 448.0 if name.endswith("fwd") else 57344.0
        expected = (fp8_max / h[:, :used].double().amax(0)).float()
        # (the update entry's fp32 division: correctly rounded, or within an ulp)
        assert torch.allclose(s[:used], expected, rtol=2.5e-7, atol=0), (name, s, expected)
        assert (s[used:] == 1).all()
    # fc1's input is the same each step: the same amax three times.
    assert torch.equal(m.fc1.fwd_amax_history[hist - 3:, 0],
                       m.fc1.fwd_amax_history[hist - 1, 0].expand(3))
    with torch.no_grad():
        final = loss_fn(x).item()
    losses.append(final)
    print(f"\nlosses: {losses}")
    assert all(b < a for a, b in zip(losses, losses[1:])), losses
