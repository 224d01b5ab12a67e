"""Activations from the Program builder on the GPU against PyTorch: an MLP
fc2(gelu(fc1(x))) (TE's tanh GELU, F.gelu(approximate='tanh')) and a SwiGLU
MLP fc2(silu(a) * b), [a | b] = fc1(x), both in bf16 (autocast disabled, so
the activations' numerics are not hidden under FP8's), forward and backward
(grad x, grad fc1.weight, grad fc2.weight) through teq.torch.Module, each
within PyTorch's own bf16 error of a float64 reference. The derivatives are
the compiler's (teq-decompose-activations); nothing is written by hand.

The programs are compiled on the build host (the compiler is not on the GPU
machine): scripts/gpu-prepare runs

    python3 python-bindings/test/test_torch_activations.py --prepare DIR

and the tests read DIR = .artifacts/python/activations (TEQ_ARTIFACTS/...)."""

import os
import sys

TOKENS, HIDDEN, FFN = 256, 512, 1024
ACTS = ("gelu", "swiglu")


def program(act):
    """The MLP of `act` as a teq.Program named mlp_<act>."""
    import teq

    p = teq.Program(f"mlp_{act}", target="sm_90")
    x = p.input("x", (TOKENS, HIDDEN), requires_grad=True)
    fc1 = p.Linear(HIDDEN, 2 * FFN if act == "swiglu" else FFN, bias=False, name="fc1")
    fc2 = p.Linear(FFN, HIDDEN, bias=False, name="fc2")
    with teq.autocast(enabled=False):
        h = fc1(x)
        y = fc2(p.swiglu(h) if act == "swiglu" else p.gelu(h, approximate="tanh"))
    p.output(y)
    return p


def prepare(directory):
    import teq

    os.makedirs(directory, exist_ok=True)
    for act in ACTS:
        path = teq.compile(program(act).module(training=True),
                           output=os.path.join(directory, f"mlp_{act}.so"))
        print(f"compiled mlp_{act} -> {path}")


if __name__ == "__main__" and sys.argv[1:2] == ["--prepare"]:
    prepare(sys.argv[2])
    sys.exit(0)

import pytest  # noqa: E402

from runtime_helpers import require_torch_cuda  # noqa: E402

torch = require_torch_cuda()
import torch.nn.functional as F  # noqa: E402
import teq.torch as tt  # noqa: E402

DEV = "cuda:0"


def _artifact(act, tmp_path_factory):
    try:
        import teq._teq_compiler  # noqa: F401
    except ImportError:
        repo = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
        folder = os.path.join(os.environ.get("TEQ_ARTIFACTS",
                                             os.path.join(repo, ".artifacts", "python")),
                              "activations")
        path = os.path.join(folder, f"mlp_{act}.so")
        if not os.path.isfile(path):
            pytest.skip(f"no compiler and no {path} (scripts/gpu-prepare)")
        return path
    directory = tmp_path_factory.mktemp("activations")
    prepare(str(directory))
    return str(directory / f"mlp_{act}.so")


def _torch_mlp(act, x, w1, w2, dy):
    """The same MLP in PyTorch (bf16, or float64 for the reference)."""
    x = x.detach().clone().requires_grad_(True)
    w1 = w1.detach().clone().requires_grad_(True)
    w2 = w2.detach().clone().requires_grad_(True)
    h = x @ w1.t()
    if act == "swiglu":
        a, b = h.chunk(2, dim=-1)  # TE's order: the first half is activated
        z = F.silu(a) * b
    else:
        z = F.gelu(h, approximate="tanh")
    y = z @ w2.t()
    y.backward(dy.to(y.dtype))
    return {"y": y.detach(), "x": x.grad, "fc1.weight": w1.grad, "fc2.weight": w2.grad}


def _rel(got, ref):
    got, ref = got.double(), ref.double()
    return ((got - ref).norm() / ref.norm()).item()


@pytest.mark.parametrize("act", ACTS)
def test_mlp_matches_pytorch(act, tmp_path_factory):
    torch.manual_seed(7)
    m = tt.Module.from_artifact(_artifact(act, tmp_path_factory))
    x = torch.randn(TOKENS, HIDDEN, device=DEV, dtype=torch.bfloat16, requires_grad=True)
    dy = torch.randn(TOKENS, HIDDEN, device=DEV, dtype=torch.bfloat16)
    y = m(x)
    y.backward(dy)
    got = {"y": y.detach(), "x": x.grad, "fc1.weight": m.fc1.weight.grad,
           "fc2.weight": m.fc2.weight.grad}
    w1, w2 = m.fc1.weight.detach(), m.fc2.weight.detach()
    ref = _torch_mlp(act, x.double(), w1.double(), w2.double(), dy.double())
    pt = _torch_mlp(act, x, w1, w2, dy)
    torch.cuda.synchronize()
    report = [f"{k}: teq {_rel(got[k], ref[k]):.3e}, torch {_rel(pt[k], ref[k]):.3e}"
              for k in ref]
    print(f"\n{act}: " + "; ".join(report))
    for k in ref:
        assert _rel(got[k], ref[k]) <= max(1.5 * _rel(pt[k], ref[k]), 2e-3), report
