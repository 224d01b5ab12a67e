"""Norms from the Program builder on the GPU against PyTorch: fc(LayerNorm(x))
(weight and bias) and fc(RMSNorm(x)) (zero-centred weight: scales by
weight + 1), both in bf16 (autocast disabled, so the norms' numerics are not
hidden under FP8's), forward and backward (grad x, the norm's weight and
bias, fc.weight, fc.bias) through teq.torch.Module, each within PyTorch's
own bf16 error of a float64 reference. The backward is teq's
layer_norm_backward / rms_norm_backward on the saved x and statistics.

The programs are compiled on the build host (the compiler is not on the GPU
machine): scripts/gpu-prepare runs

    python3 python-bindings/test/test_torch_norms.py --prepare DIR

and the tests read DIR = .artifacts/python/norms (TEQ_ARTIFACTS/...)."""

import os
import sys

TOKENS, HIDDEN, OUT = 256, 768, 512
EPS = 1e-5
NORMS = ("layer_norm", "rms_norm")


def program(norm):
    """norm -> Linear as a teq.Program named <norm>_linear."""
    import teq

    p = teq.Program(f"{norm}_linear", target="sm_90")
    x = p.input("x", (TOKENS, HIDDEN), requires_grad=True)
    if norm == "layer_norm":
        n = p.LayerNorm(HIDDEN, eps=EPS, name="norm")
    else:
        n = p.RMSNorm(HIDDEN, eps=EPS, zero_centered_gamma=True, name="norm")
    fc = p.Linear(HIDDEN, OUT, name="fc")
    with teq.autocast(enabled=False):
        y = fc(n(x))
    p.output(y)
    return p


def prepare(directory):
    import teq

    os.makedirs(directory, exist_ok=True)
    for norm in NORMS:
        path = teq.compile(program(norm).module(training=True),
                           output=os.path.join(directory, f"{norm}_linear.so"))
        print(f"compiled {norm}_linear -> {path}")


if __name__ == "__main__" and sys.argv[1:2] == ["--prepare"]:
    prepare(sys.argv[2])
    sys.exit(0)

import pytest  # noqa: E402

from runtime_helpers import require_torch_cuda  # noqa: E402

torch = require_torch_cuda()
import torch.nn.functional as F  # noqa: E402
import teq.torch as tt  # noqa: E402

DEV = "cuda:0"


def _artifact(norm, tmp_path_factory):
    try:
        import teq._teq_compiler  # noqa: F401
    except ImportError:
        repo = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
        folder = os.path.join(os.environ.get("TEQ_ARTIFACTS",
                                             os.path.join(repo, ".artifacts", "python")),
                              "norms")
        path = os.path.join(folder, f"{norm}_linear.so")
        if not os.path.isfile(path):
            pytest.skip(f"no compiler and no {path} (scripts/gpu-prepare)")
        return path
    directory = tmp_path_factory.mktemp("norms")
    prepare(str(directory))
    return str(directory / f"{norm}_linear.so")


def _torch_program(norm, x, params, dy):
    """The same program in PyTorch (bf16, or float64 for the reference)."""
    x = x.detach().clone().requires_grad_(True)
    p = {k: v.detach().clone().to(x.dtype).requires_grad_(True) for k, v in params.items()}
    if norm == "layer_norm":
        h = F.layer_norm(x, (HIDDEN,), p["norm.weight"], p["norm.bias"], EPS)
    else:
        # In f32 (float64 for the reference) from the bf16 values, rounded
        # once, as TE's kernel (and F.layer_norm's) computes: weight + 1 in
        # bf16 would round the zero-centred weight first.
        c = x.to(torch.float64 if x.dtype == torch.float64 else torch.float32)
        h = (c * torch.rsqrt(c.pow(2).mean(-1, keepdim=True) + EPS)
             * (1 + p["norm.weight"].to(c.dtype))).to(x.dtype)
    y = F.linear(h, p["fc.weight"], p["fc.bias"])
    y.backward(dy.to(y.dtype))
    return {"y": y.detach(), "x": x.grad, **{k: v.grad for k, v in p.items()}}


def _rel(got, ref):
    got, ref = got.double(), ref.double()
    return ((got - ref).norm() / ref.norm()).item()


@pytest.mark.parametrize("norm", NORMS)
def test_norm_linear_matches_pytorch(norm, tmp_path_factory):
    torch.manual_seed(11)
    # Weights away from their initial values (1 and 0; teq.torch's default
    # for a vector parameter is zeros), so that a wrong gamma or beta shows.
    init = {"norm.weight": (1 if norm == "layer_norm" else 0)
            + 0.2 * torch.randn(HIDDEN, dtype=torch.bfloat16)}
    if norm == "layer_norm":
        init["norm.bias"] = 0.2 * torch.randn(HIDDEN, dtype=torch.bfloat16)
    m = tt.Module.from_artifact(_artifact(norm, tmp_path_factory), init=init)
    # Rows of different means and scales: the statistics matter.
    x = (3 * torch.randn(TOKENS, HIDDEN, device=DEV) * torch.rand(TOKENS, 1, device=DEV)
         + torch.randn(TOKENS, 1, device=DEV)).to(torch.bfloat16).requires_grad_(True)
    dy = torch.randn(TOKENS, OUT, device=DEV, dtype=torch.bfloat16)
    y = m(x)
    y.backward(dy)
    params = {"norm.weight": m.norm.weight, "fc.weight": m.fc.weight, "fc.bias": m.fc.bias}
    if norm == "layer_norm":
        params["norm.bias"] = m.norm.bias
    got = {"y": y.detach(), "x": x.grad, **{k: v.grad for k, v in params.items()}}
    ref = _torch_program(norm, x.double(), {k: v.double() for k, v in params.items()},
                         dy.double())
    pt = _torch_program(norm, x, params, dy)
    torch.cuda.synchronize()
    report = [f"{k}: teq {_rel(got[k], ref[k]):.3e}, torch {_rel(pt[k], ref[k]):.3e}"
              for k in ref]
    print(f"\n{norm}: " + "; ".join(report))
    # Both compute the norm in f32 and round each result to bf16 once, so
    # their errors against float64 are bf16 rounding (~2e-3 relative for
    # one rounding, more where roundings compound through the GEMMs);
    # teq's sums run in another order (docs/Norms.md), hence 1.5x PyTorch's
    # error, with a floor of 2e-3 (a few bf16 ulps) where PyTorch happens
    # to land closer.
    for k in ref:
        assert _rel(got[k], ref[k]) <= max(1.5 * _rel(pt[k], ref[k]), 2e-3), report


def test_saved_input_is_the_input_and_autograd_guards_it(tmp_path_factory):
    """The LayerNorm's saved x and weight are the forward's own arguments:
    the forward entry returns them as is (alias_of: no copy kernel, no
    buffers), and the Module saves the caller's tensors themselves for the
    backward, so autograd's version counter refuses a backward after either
    was modified in place, as it does for PyTorch's own ops."""
    m = tt.Module.from_artifact(_artifact("layer_norm", tmp_path_factory))
    fwd = m.artifact["layer_norm_linear_forward"]
    assert {a.name: a.alias_of for a in fwd.outputs if a.alias_of} == {
        "norm.saved_input": "x", "norm.saved_weight": "norm.weight"}
    x = torch.randn(TOKENS, HIDDEN, device=DEV, dtype=torch.bfloat16, requires_grad=True)
    packed = []

    def pack(t):
        packed.append(t)
        return t

    with torch.autograd.graph.saved_tensors_hooks(pack, lambda t: t):
        y = m(x)
    assert any(t.data_ptr() == x.data_ptr() and t.shape == x.shape for t in packed)
    weight = m.norm.weight
    assert any(t.data_ptr() == weight.data_ptr() for t in packed)
    y.backward(torch.ones_like(y))
    assert x.grad is not None and torch.isfinite(x.grad.float()).all()
    # Modified in place between forward and backward: refused.
    y = m(x)
    with torch.no_grad():
        x.mul_(2)
    with pytest.raises(RuntimeError, match="modified by an inplace operation"):
        y.backward(torch.ones_like(y))
    y = m(x)
    with torch.no_grad():
        weight.add_(1)
    with pytest.raises(RuntimeError, match="modified by an inplace operation"):
        y.backward(torch.ones_like(y))
