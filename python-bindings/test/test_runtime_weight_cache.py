"""The weight cache on the GPU (Program.module(weight_cache=True), TE's
is_first_microbatch): quantizing the weights once with @F_weights and
running @F_cached for every microbatch gives outputs and saved tensors
byte-identical to running @F each time, and the backward on them is
byte-identical too."""

import pytest

import programs
from runtime_helpers import require_torch_cuda

torch = require_torch_cuda()
import teq.runtime as rt  # noqa: E402

DEV = "cuda:0"


def _bytes(value):
    if isinstance(value, rt.QuantizedTensor):
        return {name: _bytes(value[name]) for name in value.buffers}
    return value.detach().contiguous().cpu().view(torch.uint8).numpy().tobytes()


@pytest.mark.parametrize("forward", ["mlp_current_forward", "mlp_current"])
def test_cached_forward_is_bit_identical(forward):
    art = rt.load(programs.artifact("mlp_current"))
    f, weights, cached = art[forward], art[forward + "_weights"], art[forward + "_cached"]
    assert [a.name for a in weights.inputs] == ["fc1.weight", "fc2.weight"]
    assert [(a.name, a.role, a.role_of) for a in weights.outputs] == [
        ("fc1.weight.quantized", "quantized_weight", "fc1.weight"),
        ("fc2.weight.quantized", "quantized_weight", "fc2.weight")]
    torch.manual_seed(3)
    params = {
        "fc1.weight": torch.randn(programs.FFN, programs.HIDDEN, device=DEV,
                                  dtype=torch.bfloat16),
        "fc1.bias": torch.randn(programs.FFN, device=DEV, dtype=torch.bfloat16),
        "fc2.weight": torch.randn(programs.HIDDEN, programs.FFN, device=DEV,
                                  dtype=torch.bfloat16),
    }
    copies = dict(zip([a.name for a in weights.outputs],
                      weights(params["fc1.weight"], params["fc2.weight"])))
    backward = art["mlp_current_backward"] if forward.endswith("_forward") else None
    for step in range(3):  # three microbatches of one optimizer step
        x = torch.randn(programs.TOKENS, programs.HIDDEN, device=DEV, dtype=torch.bfloat16)
        plain = f(**{"x": x, **params})
        given = {"x": x, **params, **copies}
        reused = cached(**{a.name: given[a.name] for a in cached.inputs})
        torch.cuda.synchronize()
        assert [a.name for a in cached.outputs] == [a.name for a in f.outputs]
        for a, p, r in zip(f.outputs, plain, reused):
            assert _bytes(p) == _bytes(r), (forward, step, a.name)
        if backward is not None:
            dy = torch.randn(programs.TOKENS, programs.HIDDEN, device=DEV,
                             dtype=torch.bfloat16)
            grads = []
            for outputs in (plain, reused):
                by_name = dict(zip([a.name for a in f.outputs], outputs))
                grads.append(backward(**{a.name: dy if a.role == "grad_output" else by_name[a.name]
                                         for a in backward.inputs}))
            torch.cuda.synchronize()
            for a, p, r in zip(backward.outputs, *grads):
                assert _bytes(p) == _bytes(r), (step, a.name)
