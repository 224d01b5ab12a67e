"""Norms from the Program builder: p.layer_norm / p.rms_norm (and the
p.LayerNorm / p.RMSNorm modules) build teq.layer_norm / teq.rms_norm with
TE's attributes, their backward teq.layer_norm_backward /
teq.rms_norm_backward on the saved x, statistics and weight, and
norm -> Linear -> activation -> Linear programs compile."""

import json
import re

import pytest

pytest.importorskip("teq._teq_compiler", reason="the compiler extension is not built here")

import teq  # noqa: E402
from teq.recipe import Float8CurrentScaling  # noqa: E402

pytestmark = pytest.mark.usefixtures("compiler")


def test_layer_norm_ops_and_saved_values():
    p = teq.Program("ln")
    x = p.input("x", (4, 16, 64), requires_grad=True)
    ln = p.LayerNorm(64, eps=1e-6, zero_centered_gamma=True, name="ln")
    y = ln(x)
    assert y.shape == (4, 16, 64) and y.dtype == "bf16"
    p.output(y)
    text = str(p.module(training=True))
    assert re.search(r"teq\.layer_norm %arg0, %arg1, %arg2 \{eps = 9\.99999997E-7 : f32, "
                     r"zero_centered_gamma\} : \(tensor<4x16x64xbf16>, tensor<64xbf16>, "
                     r"tensor<64xbf16>\) -> \(tensor<4x16x64xbf16>, tensor<64xf32>, "
                     r"tensor<64xf32>\)", text), text
    assert re.search(r"teq\.layer_norm_backward %arg0, %arg1, %arg2, %arg3, %arg4 "
                     r"\{zero_centered_gamma\}", text), text
    fwd, bwd = p.entries(training=True)["ln_forward"], p.entries(training=True)["ln_backward"]
    assert fwd == (["x", "ln.weight", "ln.bias"],
                   ["output0", "ln.saved_input", "ln.mean", "ln.rstd", "ln.saved_weight"])
    assert bwd[1] == ["grad_x", "grad_ln.weight", "grad_ln.bias"]


def test_rms_norm_ops_defaults_and_frozen_weight():
    p = teq.Program("rms")
    x = p.input("x", (32, 128), requires_grad=True)
    w = p.parameter("w", (128,), "f32", requires_grad=False)  # TE's f32 weight
    p.output(p.rms_norm(x, w))
    text = str(p.module(training=True))
    # TE's default eps is the op's (not printed); no zero_centered_gamma.
    assert ("teq.rms_norm %arg0, %arg1 : (tensor<32x128xbf16>, "
            "tensor<128xf32>) -> (tensor<32x128xbf16>, tensor<32xf32>)") in text, text
    assert ("teq.rms_norm_backward %arg0, %arg1, %arg2, %arg3 : (tensor<32x128xbf16>, "
            "tensor<32x128xbf16>, tensor<32xf32>, tensor<128xf32>) -> "
            "(tensor<32x128xbf16>, tensor<128xf32>)") in text, text
    # A parameter without requires_grad gets no gradient.
    assert p.entries(training=True)["rms_backward"][1] == ["grad_x"]
    assert p.entries(training=True)["rms_forward"][1] == [
        "output0", "rms_norm0.saved_input", "rms_norm0.rstd", "rms_norm0.saved_weight"]


def test_a_value_used_twice_sums_its_gradients():
    # Residual: y = x + LN(x): grad x = dy + layer_norm_backward's dx.
    p = teq.Program("res")
    x = p.input("x", (8, 32), requires_grad=True)
    ln = p.LayerNorm(32, name="ln")
    p.output(p.add(x, ln(x)))
    bwd = [f for f in str(p.module(training=True)).split("func.func") if "@res_backward" in f][0]
    assert re.search(r"%dx, %dgamma, %dbeta = teq\.layer_norm_backward %arg0,", bwd), bwd
    assert re.search(r"arith\.addf (%arg0, %dx|%dx, %arg0)", bwd), bwd


@pytest.mark.parametrize("norm", ["layer_norm", "rms_norm"])
def test_residual_gradient_goes_into_the_norm_backward(tmp_path, norm):
    # grad x = dy + the norm's dx: te-compile's teq-fuse-norm-backward-adds
    # makes dy the backward's `add` (TE's rmsnorm_bwd_add: one rounding), so
    # no separate add kernel; dx's computed_by names it (docs/Norms.md).
    p = teq.Program("res", target="sm_90")
    x = p.input("x", (64, 256), requires_grad=True)
    n = p.LayerNorm(256, name="n") if norm == "layer_norm" else p.RMSNorm(256, name="n")
    p.output(p.add(x, n(x)))
    teq.compile(p, output=tmp_path / "res.json", emit="manifest")
    manifest = json.loads((tmp_path / "res.json").read_text())
    bwd = next(e for e in manifest["entries"] if e["name"] == "res_backward")
    by = {a["name"]: a.get("computed_by") for a in bwd["args"]}
    dx = [b for b in by.values() if b and b.get("output") == "dx"]
    assert len(dx) == 1 and dx[0]["op"] == norm + "_backward", by
    assert dx[0]["add"] in by and by[dx[0]["add"]] is None, by  # an input
    assert not any(b and b.get("op") == "arith.addf" for b in by.values()), by


def test_norm_errors():
    p = teq.Program("bad")
    x = p.input("x", (4, 64))
    w = p.parameter("w", (32,))
    w64 = p.parameter("w64", (64,))
    b16 = p.parameter("b16", (64,), "f16")
    with pytest.raises(ValueError, match=r"layer_norm 'ln': weight 'w' must be \[64\] "
                                         r"\(x's last dimension\), got \[32\]"):
        p.layer_norm(x, w, name="ln")
    with pytest.raises(ValueError, match=r"rms_norm: weight 'w' must be \[64\]"):
        p.rms_norm(x, w)
    with pytest.raises(ValueError, match=r"bias 'b16' must be of x's dtype \(bf16\) or f32"):
        p.layer_norm(x, w64, b16)
    for eps in (0, -1e-5, float("inf"), "1e-5"):
        with pytest.raises(ValueError, match="eps must be a finite number > 0"):
            p.layer_norm(x, w64, eps=eps)
    with pytest.raises(ValueError, match="x must have rank >= 2"):
        p.rms_norm(p.input("v", (64,)), w64)
    with pytest.raises(ValueError, match="normalized_shape must be a positive int"):
        p.LayerNorm((4, 64))
    with pytest.raises(TypeError, match="expected a Tensor of program 'bad'"):
        p.rms_norm(x, "w64")


def test_builder_errors_come_from_the_verifier():
    # Past the Program's checks, the C API returns the op verifier's message.
    from teq import _teq_compiler as _c
    from teq.compiler import Module, tensor_type

    module = Module(_c.Module.empty(None, ""))
    b = _c.FunctionBuilder(module._handle, "f", [tensor_type((4, 64), "bf16"),
                                                 tensor_type((32,), "bf16")])
    with pytest.raises(teq.CompilerError, match=r"gamma must be \[64\] \(x's last dimension\)"):
        b.layer_norm(b.argument(0), b.argument(1), None, 1e-5, False)
    with pytest.raises(teq.CompilerError, match="eps must be a finite number > 0"):
        b.rms_norm(b.argument(0), b.argument(0), 0.0, False)


@pytest.mark.parametrize("norm", ["layer_norm", "rms_norm"])
def test_norm_mlp_compiles_to_a_training_pair(tmp_path, norm):
    p = teq.Program("mlp", target="sm_90")
    x = p.input("x", (64, 128), requires_grad=True)
    n = p.LayerNorm(128, name="ln") if norm == "layer_norm" else p.RMSNorm(128, name="rms")
    gated = norm == "rms_norm"
    fc1 = p.Linear(128, 512 if gated else 256, bias=False, name="fc1")
    fc2 = p.Linear(256, 128, bias=False, name="fc2")
    with teq.autocast(recipe=Float8CurrentScaling()):
        h = fc1(n(x))
        y = fc2(p.swiglu(h) if gated else p.gelu(h))
    p.output(y)
    teq.compile(p, output=tmp_path / "mlp.so")
    assert (tmp_path / "mlp.so").stat().st_size > 0
    teq.compile(p, output=tmp_path / "mlp.json", emit="manifest")
    manifest = json.loads((tmp_path / "mlp.json").read_text())
    assert {e["name"] for e in manifest["entries"]} == {"mlp_forward", "mlp_backward"}
    teq.compile(p, output=tmp_path / "mlp.mlir", emit="mlir")
    lowered = (tmp_path / "mlp.mlir").read_text()
    # The norm's own kernels, forward and backward (docs/Norms.md).
    kernels = [line for line in lowered.splitlines() if "gpu.func @" in line]
    assert any(norm in k for k in kernels), kernels
