"""Activations from the Program builder: p.gelu, p.silu, p.swiglu, ... build
teq.activation, their backward teq.activation_backward (the derivative is
the compiler's, teq-decompose-activations), and MLPs with them compile."""

import json

import pytest

pytest.importorskip("teq._teq_compiler", reason="the compiler extension is not built here")

import teq  # noqa: E402
from teq.recipe import Float8CurrentScaling  # noqa: E402

pytestmark = pytest.mark.usefixtures("compiler")

PLAIN = {"gelu": lambda p, x: p.gelu(x), "gelu_erf": lambda p, x: p.gelu(x, approximate="none"),
         "qgelu": lambda p, x: p.qgelu(x), "silu": lambda p, x: p.silu(x),
         "relu": lambda p, x: p.relu(x), "srelu": lambda p, x: p.srelu(x)}
GATED = {"swiglu": lambda p, x: p.swiglu(x), "geglu": lambda p, x: p.geglu(x),
         "reglu": lambda p, x: p.reglu(x), "sreglu": lambda p, x: p.sreglu(x),
         "qgeglu": lambda p, x: p.qgeglu(x), "glu": lambda p, x: p.glu(x)}


@pytest.mark.parametrize("kind", sorted({**PLAIN, **GATED}))
def test_activation_forward_and_backward_ops(kind):
    p = teq.Program("act")
    x = p.input("x", (16, 64), dtype="bf16", requires_grad=True)
    y = {**PLAIN, **GATED}[kind](p, x)
    assert y.shape == ((16, 32) if kind in GATED else (16, 64))
    p.output(y)
    text = str(p.module(training=True))
    half = "16x32" if kind in GATED else "16x64"
    assert (f"teq.activation {kind} %arg0 : tensor<16x64xbf16> -> "
            f"tensor<{half}xbf16>") in text
    # The backward reads the saved input; no hand-written derivative.
    assert (f"teq.activation_backward {kind} %arg0, %arg1 : "
            f"tensor<{half}xbf16>, tensor<16x64xbf16>") in text
    assert "math." not in text and "arith.mulf" not in text
    assert p.entries(training=True)["act_forward"][1] == ["output0", "activation0.input"]


def test_activation_errors():
    p = teq.Program("bad")
    x = p.input("x", (4, 7))
    with pytest.raises(ValueError, match=r"swiglu: a gated activation takes \[\.\.\., 2n\]"):
        p.swiglu(x)
    with pytest.raises(ValueError, match="approximate must be 'tanh' or 'none'"):
        p.gelu(x, approximate="erf")


@pytest.mark.parametrize("act", ["swiglu", "gelu"])
def test_mlp_with_an_activation_compiles(tmp_path, act):
    p = teq.Program("mlp", target="sm_90")
    x = p.input("x", (64, 128), requires_grad=True)
    hidden = 512 if act == "swiglu" else 256
    fc1 = p.Linear(128, hidden, bias=False, name="fc1")
    fc2 = p.Linear(256, 128, bias=False, name="fc2")
    with teq.autocast(recipe=Float8CurrentScaling()):
        h = fc1(x)
        y = fc2(p.swiglu(h) if act == "swiglu" else p.gelu(h))
    p.output(y)
    teq.compile(p, output=tmp_path / "mlp.mlir", emit="mlir")
    lowered = (tmp_path / "mlp.mlir").read_text()
    # One fused elementwise kernel for the activation, one for its backward;
    # the gated halves are loaded and stored in place (no slice kernels).
    kernels = [line for line in lowered.splitlines() if "gpu.func @" in line]
    fused = [k for k in kernels if "_fused" in k]
    assert len(fused) == 2, kernels
    assert not any("slice" in k for k in kernels), kernels
    teq.compile(p, output=tmp_path / "mlp.json", emit="manifest")
    entries = {e["name"] for e in json.loads((tmp_path / "mlp.json").read_text())["entries"]}
    assert entries == {"mlp_forward", "mlp_backward"}


def test_function_builder_activation_errors(compiler):
    # The C API names the problem: an unknown kind (listing the kinds), and
    # the verifier's message for a bad shape.
    module = compiler.Module.empty("sm_90")
    b = compiler.FunctionBuilder(module, "f", ["tensor<4x7xbf16>", "tensor<4x8xbf16>"])
    with pytest.raises(teq.CompilerError,
                       match=r"teqFunctionBuilderActivation: unknown activation 'mish' "
                             r"\(expected one of gelu, gelu_erf, qgelu, silu, relu, srelu, "
                             r"tanh, sigmoid, geglu, qgeglu, reglu, sreglu, swiglu, glu\)"):
        b.activation("mish", b.argument(0))
    with pytest.raises(teq.CompilerError, match="gated activation swiglu needs an input "
                                                "whose last dimension is static and even"):
        b.activation("swiglu", b.argument(0))
    with pytest.raises(teq.CompilerError, match="the incoming gradient must have the "
                                                r"forward result's shape \[4, 4\]"):
        b.activation_backward("geglu", b.argument(1), b.argument(1))
    y = b.activation("swiglu", b.argument(1))
    b.ret([y, b.activation_backward("swiglu", y, b.argument(1))])
    text = str(module)
    assert "teq.activation swiglu %arg1 : tensor<4x8xbf16> -> tensor<4x4xbf16>" in text
    assert "teq.activation_backward swiglu" in text
