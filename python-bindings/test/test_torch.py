"""teq.torch on the GPU (skips without torch, CUDA or a TEQ context): entries
as torch.library ops with fake implementations, teq.torch.Linear eager and
under torch.compile(fullgraph=True) for Float8CurrentScaling and
DelayedScaling (forward and backward, no graph break, the same gradients and
state as eager), main_grad accumulation, and explicit roles for saved
tensors the compiler dropped."""

import copy

import pytest

from runtime_helpers import artifact, require_torch_cuda

torch = require_torch_cuda()
import teq.runtime as rt  # noqa: E402
import teq.torch as tt  # noqa: E402

DEV = "cuda:0"

DELAYED_ROLES = dict(
    forward_args=("input", "weight", "state:fwd_scale", "state:fwd_amax_history"),
    forward_results=("output", "saved", "saved", "state:fwd_amax_history"),
    backward_args=("grad_output", "saved", "saved", "state:bwd_scale", "state:bwd_amax_history"),
    backward_results=("grad_input", "grad_weight", "state:bwd_amax_history"),
)


def _linear(kind):
    if kind == "current":
        return tt.Linear.from_artifact(artifact("linear-current"), "fwd", "bwd")
    if kind == "delayed":
        return tt.Linear.from_artifact(artifact("linear-delayed"), "fwd", "bwd", **DELAYED_ROLES)
    if kind == "hp":
        return tt.Linear.from_artifact(artifact("linear-hp"), "fwd", "bwd",
                                       backward_args=("grad_output", "input", "weight"))
    if kind == "bias_main_grad":
        return tt.Linear.from_artifact(
            artifact("linear-current"), "fwd_bias", "bwd_main_grad",
            forward_args=("input", "weight", "bias"),
            backward_args=("grad_output", "saved", "saved", "main_grad"),
            backward_results=("grad_input", "main_grad", "grad_bias"))
    raise AssertionError(kind)


def test_register_ops_match_runtime_calls():
    path = artifact("linear-current")
    ops = tt.register(path)
    assert ops is tt.register(path)  # registered once
    assert ops.namespace == "teq_linear_current"
    assert set(ops.ops) == {"fwd", "bwd", "fwd_bias", "bwd_main_grad"}
    assert ops.fwd.schema == "fwd(Tensor arg0, Tensor arg1) -> (Tensor, Tensor, Tensor, Tensor, Tensor)"
    assert ops.bwd.schema.startswith("bwd(Tensor arg0, Tensor arg1__transpose, Tensor arg1__scale_inv")
    x = torch.randn(64, 128, device=DEV, dtype=torch.bfloat16)
    w = torch.randn(256, 128, device=DEV, dtype=torch.bfloat16)
    y, sx, sw = ops.fwd(x, w)
    raw = torch.ops.teq_linear_current.fwd(x, w)
    ref = rt.load(path)["fwd"](x, w)
    torch.cuda.synchronize()
    assert torch.equal(y, ref[0]) and torch.equal(raw[0], y)
    assert torch.equal(sx.transpose, ref[1].transpose) and torch.equal(sw.scale_inv, ref[2].scale_inv)
    dy = torch.randn(64, 256, device=DEV, dtype=torch.bfloat16)
    dx, dw = ops.bwd(dy, sx, sw)
    rdx, rdw = rt.load(path)["bwd"](dy, ref[1], ref[2])
    torch.cuda.synchronize()
    assert torch.equal(dx, rdx) and torch.equal(dw, rdw)
    with pytest.raises(ValueError, match="already holds the ops of artifact"):
        tt.register(artifact("linear-hp"), namespace="teq_linear_current")


def test_fake_implementation_from_the_manifest():
    from torch._subclasses.fake_tensor import FakeTensorMode

    ops = tt.register(artifact("mlp-current"))
    with FakeTensorMode():
        x = torch.empty(64, 128, device=DEV, dtype=torch.bfloat16)
        w1 = torch.empty(256, 128, device=DEV, dtype=torch.bfloat16)
        w2 = torch.empty(128, 256, device=DEV, dtype=torch.bfloat16)
        y, s1x, s1w, act, s2x, s2w = ops.mlp_fwd(x, w1, w2)
        assert y.shape == (64, 128) and y.dtype == torch.bfloat16
        assert s1x.transpose.shape == (128, 64) and s1x.transpose.dtype == torch.uint8
        assert s2w.scale_inv.shape == (1,) and s2w.scale_inv.dtype == torch.float32
        assert act.shape == (64, 256)
        with pytest.raises(ValueError, match=r"argument 'arg0': expected shape \[64, 128\]"):
            ops.mlp_fwd(w1, w1, w2)
        with pytest.raises(ValueError, match=r"argument 'arg1': expected dtype torch.bfloat16"):
            ops.mlp_fwd(x, w1.float(), w2)


def test_ops_compile_without_graph_breaks():
    ops = tt.register(artifact("mlp-current"))

    def step(x, w1, w2, dy):
        y, s1x, s1w, act, s2x, s2w = ops.mlp_fwd(x, w1, w2)
        dx, dw1, dw2 = ops.mlp_bwd(dy, s1x, s1w, act, s2x, s2w)
        return y, dx, dw1, dw2

    x = torch.randn(64, 128, device=DEV, dtype=torch.bfloat16)
    w1 = torch.randn(256, 128, device=DEV, dtype=torch.bfloat16)
    w2 = torch.randn(128, 256, device=DEV, dtype=torch.bfloat16)
    dy = torch.randn(64, 128, device=DEV, dtype=torch.bfloat16)
    explanation = torch._dynamo.explain(step)(x, w1, w2, dy)
    assert explanation.graph_break_count == 0, explanation.break_reasons
    eager = step(x, w1, w2, dy)
    compiled = torch.compile(step, fullgraph=True)(x, w1, w2, dy)
    torch.cuda.synchronize()
    for a, b in zip(eager, compiled):
        assert torch.equal(a, b)


def _run(module, x, dy):
    x = x.detach().clone().requires_grad_(True)
    y = module(x)
    y.backward(dy)
    return y.detach(), x.grad


@pytest.mark.parametrize("kind", ["current", "delayed", "hp", "bias_main_grad"])
def test_linear_compiled_matches_eager(kind):
    torch.manual_seed(0)
    eager = _linear(kind)
    compiled_module = copy.deepcopy(eager)
    if kind == "bias_main_grad":  # deepcopy drops the attribute alias
        compiled_module.weight.main_grad = compiled_module.main_grad
    assert isinstance(eager.weight, torch.nn.Parameter)
    assert eager.weight.shape == eager.pair.weight.shape
    buffers = dict(eager.named_buffers())
    if kind == "delayed":
        assert set(buffers) == {"fwd_scale", "fwd_amax_history", "bwd_scale", "bwd_amax_history"}
        assert torch.equal(buffers["fwd_scale"], torch.ones(3, device=DEV))
        assert torch.equal(buffers["fwd_amax_history"], torch.zeros(16, 3, device=DEV))
    if kind == "bias_main_grad":
        assert set(buffers) == {"main_grad"} and eager.weight.main_grad is eager.main_grad
        assert eager.bias is not None
    x = torch.randn(eager.pair.input.shape, device=DEV, dtype=torch.bfloat16)
    dy = torch.randn(eager.pair.forward.outputs[0].shape, device=DEV, dtype=torch.bfloat16)

    def fn(module, x):
        return module(x)

    explanation = torch._dynamo.explain(fn)(compiled_module, x)
    assert explanation.graph_break_count == 0, explanation.break_reasons
    compiled_module = copy.deepcopy(eager)  # explain ran a forward: start over
    if kind == "bias_main_grad":
        compiled_module.weight.main_grad = compiled_module.main_grad
    compiled = torch.compile(compiled_module, fullgraph=True)
    for step in range(2):  # the second step sees the first's updated state
        ye, dxe = _run(eager, x, dy)
        yc, dxc = _run(compiled, x, dy)
        torch.cuda.synchronize()
        assert torch.equal(ye, yc), step
        assert torch.equal(dxe, dxc), step
        if kind == "bias_main_grad":
            assert eager.weight.grad is None and compiled_module.weight.grad is None
            assert torch.equal(eager.main_grad, compiled_module.main_grad)
            assert eager.main_grad.abs().sum() > 0
            assert torch.equal(eager.bias.grad, compiled_module.bias.grad)
        else:
            assert torch.equal(eager.weight.grad, compiled_module.weight.grad)
        for name, value in eager.named_buffers():
            assert torch.equal(value, dict(compiled_module.named_buffers())[name]), (step, name)
    if kind == "delayed":  # the amax histories were written
        assert eager.fwd_amax_history.abs().sum() > 0
        assert eager.bwd_amax_history.abs().sum() > 0


def test_linear_matches_the_entries():
    lin = _linear("current")
    x = torch.randn(64, 128, device=DEV, dtype=torch.bfloat16)
    dy = torch.randn(64, 256, device=DEV, dtype=torch.bfloat16)
    y, dx = _run(lin, x, dy)
    art = lin.registered.artifact
    ry, sx, sw = art["fwd"](x, lin.weight.detach())
    rdx, rdw = art["bwd"](dy, sx, sw)
    torch.cuda.synchronize()
    assert torch.equal(y, ry) and torch.equal(dx, rdx) and torch.equal(lin.weight.grad, rdw)


def test_linear_errors():
    path = artifact("linear-delayed")
    with pytest.raises(ValueError, match=r"2 roles \(input, weight\) for 4 values"):
        tt.Linear.from_artifact(path, "fwd", "bwd")
    with pytest.raises(ValueError, match="state_init: no state nope"):
        tt.Linear.from_artifact(path, "fwd", "bwd", state_init={"nope": 1.0}, **DELAYED_ROLES)
    with pytest.raises(ValueError, match=r"weight: expected bf16\[256, 128\]"):
        tt.Linear.from_artifact(artifact("linear-current"), "fwd", "bwd",
                                weight=torch.zeros(128, 256, dtype=torch.bfloat16))
    lin = tt.Linear.from_artifact(path, "fwd", "bwd", state_init={"fwd_scale": 2.0},
                                  **DELAYED_ROLES)
    assert torch.equal(lin.fwd_scale, torch.full((3,), 2.0, device=DEV))
    assert "state:fwd_amax_history" in repr(lin)
