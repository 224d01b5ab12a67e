"""The compiler from Python: parsing, pipelines, targets, tensor prototypes,
the Program builder and teq.compile (the same artifact as te-compile)."""

import json
import math
import subprocess

import pytest

# A runtime-only build (a GPU node) has no compiler: nothing here applies.
pytest.importorskip("teq._teq_compiler", reason="the compiler extension is not built here")

import teq  # noqa: E402
from teq.quantizer import Float8CurrentScalingQuantizer, MXFP8Quantizer
from teq.recipe import (DelayedScaling, Float8BlockScaling,
                        Float8CurrentScaling, MXFP8BlockScaling)

pytestmark = pytest.mark.usefixtures("compiler")

LINEAR = """
module attributes {teq.target = #teq.target<sm_90>} {
  func.func @fc1(%x: tensor<64x128xbf16>, %w: tensor<256x128xbf16>) -> tensor<64x256xbf16> {
    %y = teq.autocast recipe(#teq.float8_current_scaling<>) -> tensor<64x256xbf16> {
      %out, %sx, %sw = teq.linear_forward %x, %w config(#teq.linear<name = "fc1">)
          : tensor<64x128xbf16>, tensor<256x128xbf16> -> tensor<64x256xbf16>
            saved_input(tensor<64x128xbf16>) saved_weight(tensor<256x128xbf16>)
      teq.yield %out : tensor<64x256xbf16>
    }
    return %y : tensor<64x256xbf16>
  }
}
"""


def mlp(recipe=Float8CurrentScaling(), target="sm_90", bias=False):
    p = teq.Program("mlp", target=target)
    x = p.input("x", (64, 128))
    fc1 = p.Linear(128, 512, bias=bias, name="fc1")
    fc2 = p.Linear(512, 128, bias=bias, name="fc2")
    with teq.autocast(recipe=recipe):
        y = fc2(p.tanh(fc1(x)))
    p.output(y)
    return p


# -- modules and pipelines ---------------------------------------------------

def test_parse_print_and_pipelines():
    module = teq.parse(LINEAR, "linear.mlir")
    assert "teq.linear_forward" in str(module)
    lowered = teq.run_pipeline(module, "teq-lower-to-gemm")
    assert "teq.gemm TN" in str(lowered) and "teq.linear_forward" not in str(lowered)
    # run_pipeline works on a copy.
    assert "teq.linear_forward" in str(module)
    frontend = teq.run_pipeline(LINEAR, "teq-frontend", target="sm_90")
    assert "saved_input(!teq.proto<64x128xbf16, " \
           "#teq.float8_current_scaling_quantizer<f8E4M3FN>, columnwise>)" in str(frontend)


def test_errors_carry_located_diagnostics():
    with pytest.raises(teq.CompilerError) as error:
        teq.parse("module {\n  func.func @f(\n}", "broken.mlir")
    assert "broken.mlir:2:" in str(error.value)
    with pytest.raises(teq.CompilerError, match="'teq-no-such-pass' does not "
                       "refer to a registered pass"):
        teq.run_pipeline(LINEAR, "teq-no-such-pass")
    with pytest.raises(teq.CompilerError, match="requires compute capability "
                       "10.0|10.0 or higher required for MXFP8"):
        teq.run_pipeline(LINEAR.replace("float8_current_scaling", "mxfp8_block_scaling"),
                         "teq-frontend")


def test_targets_and_recipe_support():
    hopper = teq.Target("sm_90")
    assert hopper.sm == 90 and hopper.supports("fp8") and not hopper.supports("mxfp8")
    assert teq.Target("sm_100a", cuda="12.9").supports("non_tn_fp8_gemm")
    with pytest.raises(teq.CompilerError, match="invalid GPU target 'gfx942'"):
        teq.Target("gfx942")
    assert teq.check_recipe_support(Float8CurrentScaling(), "sm_90") is None
    assert teq.check_recipe_support(MXFP8BlockScaling(), "sm_100") is None
    assert teq.check_recipe_support(MXFP8BlockScaling(), "sm_90") == \
        "Device compute capability 10.0 or higher required for MXFP8 execution."
    with pytest.raises(TypeError):
        teq.check_recipe_support("mxfp8", "sm_90")


def test_tensor_proto_buffers_and_update_usage():
    proto = teq.TensorProto((128, 256), "bf16", Float8CurrentScalingQuantizer("e4m3"),
                            rowwise=True, columnwise=True)
    assert proto.shape == (128, 256) and proto.dtype == "bf16"
    assert proto.quantizer == Float8CurrentScalingQuantizer("e4m3")
    hopper = [(b.name, b.dtype, b.shape, b.bytes) for b in proto.buffers("sm_90")]
    assert hopper == [("data", "e4m3", (128, 256), 32768),
                      ("transpose", "e4m3", (256, 128), 32768),
                      ("scale_inv", "f32", (1,), 4)]
    # Blackwell runs non-TN FP8 GEMMs: no transposed copy.
    assert [b.name for b in proto.buffers("sm_100")] == ["data", "scale_inv"]
    col = proto.update_usage(rowwise_usage=False)
    assert (col.rowwise, col.columnwise) == (False, True)
    assert [b.name for b in col.buffers("sm_90")] == ["transpose", "scale_inv"]
    mx = teq.TensorProto((256, 64), "bf16", MXFP8Quantizer("e4m3"), gemm_swizzled=True)
    scale = mx.buffers("sm_100")[1]
    assert (scale.name, scale.dtype, scale.shape) == ("rowwise_scale_inv", "e8m0", (256, 4))
    with pytest.raises(ValueError, match="needs rowwise or columnwise"):
        teq.TensorProto((4, 4), "bf16", MXFP8Quantizer("e4m3"), rowwise=False)


# -- the Program builder -----------------------------------------------------

def test_training_program_has_forward_and_backward_entries():
    p = mlp()
    text = str(p.module(training=True))
    assert "func.func @mlp_forward(" in text and "func.func @mlp_backward(" in text
    assert text.count("teq.linear_forward") == 2
    assert text.count("teq.linear_backward") == 2
    # x does not require grad: fc1 computes no dgrad (TE's requires_dgrad).
    assert 'config(#teq.linear<requires_dgrad = false, name = "fc1">)' in text
    entries = p.entries(training=True)
    assert entries["mlp_forward"] == (
        ["x", "fc1.weight", "fc2.weight"],
        ["output0", "fc1.saved_input", "fc1.saved_weight", "tanh1.result",
         "fc2.saved_input", "fc2.saved_weight"])
    assert entries["mlp_backward"][1] == ["grad_fc1.weight", "grad_fc2.weight"]


def test_inference_program_is_one_entry():
    p = teq.Program("infer", target="sm_90")
    x = p.input("x", (64, 128))
    w = p.parameter("w", (256, 128), requires_grad=False)
    with teq.autocast(recipe=Float8BlockScaling()):
        y = p.linear(x, w, name="fc")
    p.output(y)
    text = str(p)
    assert "func.func @infer(" in text and "linear_backward" not in text
    assert "saved_input" not in text


@pytest.mark.parametrize("recipe", [Float8CurrentScaling(), DelayedScaling(amax_history_len=16)],
                         ids=["current", "delayed"])
def test_inference_entry_next_to_the_training_pair(tmp_path, recipe):
    """module(training=True, inference=True): @mlp (the forward that saves
    nothing) next to @mlp_forward/@mlp_backward, taking the forward's
    arguments and returning its outputs and state updates; its quantizations
    are rowwise only (no columnwise copy), so it needs less workspace."""
    p = mlp(recipe=recipe, bias=True)
    entries = p.entries(training=True, inference=True)
    assert set(entries) >= {"mlp", "mlp_forward", "mlp_backward"}
    assert entries["mlp"][0] == entries["mlp_forward"][0]
    saved = {n for n in entries["mlp_forward"][1] if ".saved_" in n or n.endswith(".result")}
    assert entries["mlp"][1] == [n for n in entries["mlp_forward"][1] if n not in saved]
    assert "mlp" not in p.entries(training=True)
    manifest = tmp_path / "mlp.json"
    teq.compile(p.module(training=True, inference=True), output=manifest, emit="manifest")
    by_name = {e["name"]: e for e in json.loads(manifest.read_text())["entries"]}

    def usages(entry):
        return [t["proto"]["usage"] for t in entry.get("temporaries", []) + entry["args"]
                if "proto" in t]

    assert usages(by_name["mlp"]) and set(usages(by_name["mlp"])) == {"rowwise"}
    assert "columnwise" in " ".join(usages(by_name["mlp_forward"]))
    # Device memory of a call (workspace and outputs): the inference forward
    # keeps no columnwise copies. (Its workspace alone may be the larger:
    # the training forward's saved outputs are written in place and host
    # its temporaries.)
    def output_bytes(arg):
        if "alias_of" in arg:  # an argument returned as is: no buffers
            return 0
        if "buffers" in arg:
            return sum(b["bytes"] for b in arg["buffers"])
        t = arg["tensor"]
        return math.prod(t["shape"]) * {"bf16": 2, "f16": 2, "f32": 4}[t["dtype"]]

    def footprint(entry):
        return entry["workspace_bytes"] + sum(
            output_bytes(a) for a in entry["args"] if a["kind"] == "output")

    assert footprint(by_name["mlp"]) < footprint(by_name["mlp_forward"])


@pytest.mark.parametrize("recipe", [Float8CurrentScaling(), Float8BlockScaling()],
                         ids=["current", "block"])
def test_weight_cache_entries(tmp_path, recipe):
    """module(weight_cache=True): every forward gets @F_weights (the
    parameters in, their quantized copies out, role quantized_weight) and
    @F_cached (F taking the copies, quantizing no parameter); F stays."""
    p = mlp(recipe=recipe, bias=True)
    manifest = tmp_path / "mlp.json"
    teq.compile(p.module(training=True, inference=True, weight_cache=True),
                output=manifest, emit="manifest")
    by_name = {e["name"]: e for e in json.loads(manifest.read_text())["entries"]}
    assert set(by_name) == {"mlp", "mlp_forward", "mlp_backward", "mlp_weights",
                            "mlp_cached", "mlp_forward_weights", "mlp_forward_cached"}
    weights = by_name["mlp_forward_weights"]
    assert [(a["name"], a["role"]) for a in weights["args"] if a["kind"] == "input"] == [
        ("fc1.weight", "parameter"), ("fc2.weight", "parameter")]
    copies = [a for a in weights["args"] if a["kind"] == "output"]
    assert [(a["name"], a["role"], a["of"]) for a in copies] == [
        ("fc1.weight.quantized", "quantized_weight", "fc1.weight"),
        ("fc2.weight.quantized", "quantized_weight", "fc2.weight")]
    assert all(a["computed_by"]["op"] == "quantize" for a in copies)
    cached = by_name["mlp_forward_cached"]
    names = [a["name"] for a in cached["args"] if a["kind"] == "input"]
    # The bias is still read; the weights are not.
    assert names == ["x", "fc1.weight.quantized", "fc1.bias", "fc2.weight.quantized",
                     "fc2.bias"]
    forward = by_name["mlp_forward"]
    assert [a["name"] for a in cached["args"] if a["kind"] == "output"] == [
        a["name"] for a in forward["args"] if a["kind"] == "output"]
    quantized = [t["computed_by"]["input"] for t in cached.get("temporaries", []) + cached["args"]
                 if (t.get("computed_by") or {}).get("op") == "quantize"]
    assert "fc1.weight" not in quantized and "fc2.weight" not in quantized
    inference_cached = by_name["mlp_cached"]
    assert {a["proto"]["usage"] for a in inference_cached["args"]
            if a["kind"] == "input" and "proto" in a} == {"rowwise"}


def test_weight_cache_refuses_delayed_scaling(tmp_path):
    p = mlp(recipe=DelayedScaling())
    with pytest.raises(teq.CompilerError, match="teq.weight_cache: the quantization of parameter "
                                               "'fc1.weight' reads delayed-scaling state"):
        teq.compile(p.module(training=True, weight_cache=True), output=tmp_path / "m.json",
                    emit="manifest")


def test_autocast_nesting_innermost_wins():
    p = teq.Program("nest", target="sm_90")
    x = p.input("x", (64, 128))
    fc1 = p.Linear(128, 128, bias=False, name="fc1")
    fc2 = p.Linear(128, 128, bias=False, name="fc2")
    with teq.autocast(recipe=Float8CurrentScaling()):
        h = fc1(x)
        with teq.autocast(enabled=False):
            y = fc2(h)
    p.output(y)
    lowered = str(teq.run_pipeline(p.module(training=False), "teq-lower-to-gemm"))
    # fc1 quantizes its operands, fc2 runs in high precision.
    assert lowered.count("teq.quantize") == 2
    assert "tensor<128x128xbf16>, tensor<64x128xbf16> -> tensor<64x128xbf16>" in lowered


def test_delayed_scaling_state_is_explicit():
    p = mlp(recipe=DelayedScaling(amax_history_len=16), bias=True)
    entries = p.entries(training=True)
    assert entries["mlp_forward"][0][-4:] == [
        "fc1.fwd_scale", "fc1.fwd_amax_history", "fc2.fwd_scale",
        "fc2.fwd_amax_history"]
    assert entries["mlp_forward"][1][-2:] == [
        "fc1.fwd_amax_history.updated", "fc2.fwd_amax_history.updated"]
    assert entries["mlp_backward"][1] == [
        "grad_fc1.weight", "grad_fc1.bias", "grad_fc2.weight", "grad_fc2.bias",
        "fc1.bwd_amax_history.updated", "fc2.bwd_amax_history.updated"]
    text = str(p.module(training=True))
    assert "state(%arg5, %arg6 : tensor<3xf32>, tensor<16x3xf32>)" in text


def test_default_recipe_follows_the_target():
    p = teq.Program("d", target="sm_90")
    x = p.input("x", (64, 128))
    w = p.parameter("w", (256, 128))
    with teq.autocast():
        p.output(p.linear(x, w, name="fc"))
    # sm_90: TE's get_default_recipe is DelayedScaling, which needs state.
    assert "fc.fwd_scale" in p.entries(training=True)["d_forward"][0]


def test_builder_errors():
    p = teq.Program("bad", target="sm_90")
    x = p.input("x", (64, 128))
    w = p.parameter("w", (256, 64))
    with pytest.raises(ValueError, match=r"input \[64, 128\] does not fit weight \[256, 64\]"):
        p.linear(x, w, name="fc")
    with pytest.raises(ValueError, match="has no outputs"):
        p.module()
    with pytest.raises(TypeError, match="autocast recipe must be a teq recipe"):
        with teq.autocast(recipe="fp8"):
            pass
    with pytest.raises(ValueError, match="already has a value named 'x'"):
        p.input("x", (1, 1))
    with pytest.raises(ValueError, match="non-positive dimension"):
        p.input("y", (0, 4))
    with pytest.raises(ValueError, match="unsupported dtype"):
        p.input("z", (4, 4), dtype="int8")
    q = teq.Program("q", target="sm_90")
    with pytest.raises(TypeError, match="expected a Tensor of program 'q'"):
        q.tanh(x)
    with pytest.raises(ValueError, match=r"tp_size = 2 needs tp_group="):
        p.linear(x, p.parameter("w2", (256, 128)), name="tp", tp_size=2)
    with pytest.raises(ValueError, match="parallel_mode must be"):
        p.linear(x, p.parameter("w3", (256, 128)), name="tp", parallel_mode="col")


# -- compile ------------------------------------------------------------------

def test_compile_writes_what_te_compile_writes(tmp_path, te_compile):
    source = tmp_path / "linear.mlir"
    source.write_text(LINEAR)
    for emit in ("manifest", "ptx", "mlir"):
        ours = tmp_path / f"ours.{emit}"
        theirs = tmp_path / f"theirs.{emit}"
        teq.compile(teq.parse(LINEAR, str(source)), output=ours, emit=emit)
        subprocess.run([str(te_compile), str(source), f"--emit={emit}", "-o",
                        str(theirs)], check=True)
        assert ours.read_text() == theirs.read_text(), emit
    artifact = teq.compile(LINEAR, output=tmp_path / "linear.so")
    assert (tmp_path / "linear.so").stat().st_size > 0
    assert artifact == str(tmp_path / "linear.so")


def test_compile_a_program(tmp_path):
    p = mlp(recipe=DelayedScaling(amax_history_len=16), bias=True)
    manifest = tmp_path / "mlp.json"
    teq.compile(p, output=manifest, emit="manifest")
    entries = {e["name"]: e for e in json.loads(manifest.read_text())["entries"]}
    assert set(entries) == {"mlp_forward", "mlp_backward", "mlp_update"}
    forward = entries["mlp_forward"]
    # x, two weights, two biases, two (scale, amax history) pairs.
    assert [a["kind"] for a in forward["args"]].count("input") == 9
    # The saved inputs of backward are quantized (columnwise FP8).
    saved = [a for a in forward["args"] if "proto" in a]
    assert len(saved) == 4
    assert all(a["proto"]["usage"] == "columnwise" for a in saved)
    teq.compile(p, output=tmp_path / "mlp.so")
    assert (tmp_path / "mlp.so").exists()


def test_compile_errors(tmp_path):
    with pytest.raises(ValueError, match="needs output"):
        teq.compile(LINEAR)
    with pytest.raises(teq.CompilerError, match="unknown emit kind 'exe'"):
        teq.compile(LINEAR, output=tmp_path / "x", emit="exe")
    with pytest.raises(ValueError, match="kernel_index_bitwidth"):
        teq.compile(LINEAR, output=tmp_path / "x", kernel_index_bitwidth=16)
    p = mlp(recipe=MXFP8BlockScaling())
    with pytest.raises(teq.CompilerError, match="MXFP8"):
        teq.compile(p, output=tmp_path / "mx.so")
    with pytest.raises(teq.CompilerError, match="unknown fusion 'bogus' to disable"):
        teq.compile(LINEAR, output=tmp_path / "x", disable_fusions=["bogus"])
    with pytest.raises(ValueError, match="one fusion name"):
        teq.compile(LINEAR, output=tmp_path / "x", disable_fusions=["residual-add,x"])


def test_disable_fusions_keeps_the_residual_add(tmp_path):
    # fc2(tanh(fc1(x))) + x: the residual goes through fc2's C input unless
    # the fusion is disabled.
    p = teq.Program("res", target="sm_90")
    x = p.input("x", (64, 128), requires_grad=True)
    fc = p.Linear(128, 128, name="fc")
    with teq.autocast(recipe=Float8CurrentScaling()):
        p.output(p.add(fc(x), x))

    def forward(**kw):
        path = tmp_path / "m.json"
        teq.compile(p, output=path, emit="manifest", **kw)
        entries = json.loads(path.read_text())["entries"]
        return json.dumps(next(e for e in entries if e["name"] == "res_forward"))

    assert '"accumulate": "x"' in forward()
    assert "arith.addf" not in forward()
    unfused = forward(disable_fusions=["residual-add"])
    assert "arith.addf" in unfused and '"accumulate"' not in unfused


def test_saved_memory_report_as_data():
    report = teq.saved_memory(mlp())
    forward = report["mlp_forward"]
    # x (8196 B) and tanh's output (32772 B) quantized columnwise, and both
    # weights' columnwise copies (65540 B each).
    assert forward["before"] == {"tensors": 4, "bytes": 172048,
                                 "per_recipe": {"Float8CurrentScaling": 172048}}
    assert forward["after"]["bytes"] <= forward["before"]["bytes"]
    assert "mlp_backward" not in report  # it saves nothing
    with pytest.raises(teq.CompilerError, match="no #teq.target on the module"):
        teq.saved_memory(LINEAR.replace(
            "module attributes {teq.target = #teq.target<sm_90>}", "module"))


def test_delayed_scaling_update_entry(tmp_path):
    p = mlp(recipe=DelayedScaling(amax_history_len=16, margin=1), bias=True)
    args, results = p.entries(training=True)["mlp_update"]
    assert args == ["fc1.fwd_scale", "fc1.fwd_amax_history", "fc2.fwd_scale",
                    "fc2.fwd_amax_history", "fc1.bwd_scale", "fc1.bwd_amax_history",
                    "fc2.bwd_scale", "fc2.bwd_amax_history"]
    assert results == [f"{a}.updated" for a in args]
    manifest = tmp_path / "mlp.json"
    teq.compile(p, output=manifest, emit="manifest")
    update = {e["name"]: e for e in json.loads(manifest.read_text())["entries"]}["mlp_update"]
    computed = {a["name"]: a.get("computed_by") for a in update["args"]}
    # HYBRID: forward slots E4M3 (448), backward slots E5M2 (57344).
    assert computed["fc1.fwd_scale.updated"]["fp8_max"] == 448
    assert computed["fc1.bwd_scale.updated"]["fp8_max"] == 57344
    assert computed["fc2.bwd_amax_history.updated"]["margin"] == 1
    # Current scaling has no state and no update entry.
    assert "mlp_update" not in mlp().entries(training=True)


def test_tensor_and_sequence_parallel_linears(tmp_path):
    p = teq.Program("tp_mlp", target="sm_90")
    x = p.input("x", (64, 128))  # this rank's sequence shard
    tp = p.process_group("tp")
    fc1 = p.Linear(128, 256, bias=False, name="fc1", parallel_mode="column",
                   sequence_parallel=True, tp_size=2, tp_group=tp)
    fc2 = p.Linear(256, 128, bias=False, name="fc2", parallel_mode="row",
                   sequence_parallel=True, tp_size=2, tp_group=tp)
    with teq.autocast(recipe=Float8CurrentScaling()):
        h = fc1(x)
        y = fc2(p.tanh(h))
    # TE's shapes: column + SP gathers the sequence, row + SP scatters it.
    assert h.shape == (128, 256) and y.shape == (64, 128)
    p.output(y)
    assert p.entries(True)["tp_mlp_forward"][0] == ["x", "fc1.weight", "fc2.weight", "tp"]
    text = str(p.module(training=True))
    assert ("tp_group(%arg3) config(#teq.linear<parallel_mode = column, "
            "sequence_parallel = true, tp_size = 2, requires_dgrad = false, "
            "name = \"fc1\">)") in text
    lowered = str(teq.run_pipeline(p.module(training=True), "teq-lower-to-gemm"))
    assert "teq.all_gather" in lowered and "teq.reduce_scatter" in lowered
    # Forward and backward compile (amax reductions, FP8 all-gathers and the
    # transpose after them, reduce-scatters: runtime calls over the "tp"
    # group, which is no argument of the artifact's entries).
    path = teq.compile(p, output=str(tmp_path / "tp.json"), emit="manifest")
    with open(path) as f:
        entries = {e["name"]: e for e in json.load(f)["entries"]}
    for name in ("tp_mlp_forward", "tp_mlp_backward"):
        assert entries[name]["groups"] == [{"name": "tp", "size": 2}], name
        assert "tp" not in [a["name"] for a in entries[name]["args"]], name


def test_delayed_scaling_tensor_parallel_reduces_amaxes_in_its_update(tmp_path):
    # TE's DelayedScaling under sequence parallelism: the inputs are gathered
    # in FP8 with the stored scale, which stays the same on every rank only
    # because the update all-reduces (max) the recorded amaxes over the
    # autocast's amax_reduction_group.
    def program(group_given):
        p = teq.Program("tp_mlp", target="sm_90")
        x = p.input("x", (64, 128))
        tp = p.process_group("tp")
        fc1 = p.Linear(128, 256, bias=False, name="fc1", parallel_mode="column",
                       sequence_parallel=True, tp_size=2, tp_group=tp)
        fc2 = p.Linear(256, 128, bias=False, name="fc2", parallel_mode="row",
                       sequence_parallel=True, tp_size=2, tp_group=tp)
        with teq.autocast(recipe=DelayedScaling(amax_history_len=16),
                          amax_reduction_group=tp if group_given else None):
            y = fc2(p.tanh(fc1(x)))
        p.output(y)
        return p

    with pytest.raises(ValueError, match="Linear 'fc1': DelayedScaling with "
                       "sequence parallelism gathers FP8 quantized with the "
                       "stored scale"):
        program(False).module(training=True)
    with pytest.raises(TypeError, match="amax_reduction_group must be a "
                       "Program.process_group"):
        with teq.autocast(recipe=DelayedScaling(), amax_reduction_group="tp"):
            pass

    p = program(True)
    update_args, update_results = p.entries(True)["tp_mlp_update"]
    assert update_args[-1] == "tp" and "tp.updated" not in update_results
    text = str(p.module(training=True))
    assert "amax_reduction_group(%arg8)" in text, text
    path = teq.compile(p, output=str(tmp_path / "tp.json"), emit="manifest")
    with open(path) as f:
        entries = {e["name"]: e for e in json.load(f)["entries"]}
    for name in ("tp_mlp_forward", "tp_mlp_backward"):
        assert entries[name]["groups"] == [{"name": "tp", "size": 2}], name
    # The update works at any group size (it only reduces amaxes); every
    # output is computed with the amax reduced over it.
    update = entries["tp_mlp_update"]
    assert update["groups"] == [{"name": "tp", "size": 0}]
    outputs = [a for a in update["args"] if a["kind"] == "output"]
    assert len(outputs) == 8
    assert all(a["computed_by"]["amax_group"] == 0 for a in outputs)


def test_values_keep_their_builder_alive(compiler):
    import gc
    module = compiler.Module.empty("sm_90")
    value = compiler.FunctionBuilder(module, "f", ["tensor<4xf32>"]).argument(0)
    gc.collect()
    assert value.type == "tensor<4xf32>"


def test_the_cuda_version_of_the_target_counts(tmp_path):
    p = teq.Program("ada", target=teq.Target("sm_89", cuda="12.0"))
    x = p.input("x", (64, 128))
    w = p.parameter("w", (256, 128), requires_grad=False)
    with teq.autocast(recipe=Float8CurrentScaling()):
        p.output(p.linear(x, w, name="fc"))
    assert '#teq.target<sm_89, cuda = "12.0">' in str(p)
    with pytest.raises(teq.CompilerError, match="Cuda version 12.1 or higher "
                       "required for FP8 execution on Ada"):
        teq.compile(p, output=tmp_path / "ada.so")
    # teq.compile's target= carries its CUDA version too, and must agree.
    with pytest.raises(teq.CompilerError, match="but #teq.target<sm_90> was requested"):
        teq.compile(p, target="sm_90", output=tmp_path / "x.so")
    unlabelled = LINEAR.replace("module attributes {teq.target = #teq.target<sm_90>}",
                                "module")
    with pytest.raises(teq.CompilerError, match="Cuda version 12.1 or higher"):
        teq.compile(unlabelled, target=teq.Target("sm_89", cuda="12.0"),
                    output=tmp_path / "y.so")


def test_a_negative_margin_scales_up(tmp_path):
    # TE checks no margin: 2^-margin > 1 scales up.
    p = mlp(recipe=DelayedScaling(amax_history_len=4, margin=-2))
    manifest = tmp_path / "m.json"
    teq.compile(p, output=manifest, emit="manifest")
    update = {e["name"]: e for e in json.loads(manifest.read_text())["entries"]}["mlp_update"]
    assert {a["computed_by"]["margin"] for a in update["args"] if "computed_by" in a} == {-2}


def test_function_builder_roles(compiler):
    # teq.role / teq.role_of on arguments and results (the manifest's
    # "role"/"of"); the vocabulary is checked when they are set.
    module = compiler.Module.empty("sm_90")
    b = compiler.FunctionBuilder(module, "f", ["tensor<4xf32>", "tensor<4xf32>"])
    b.set_argument_role(0, "state")
    b.set_argument_role(1, "grad_output", "y")
    with pytest.raises(teq.CompilerError, match=r"teqFunctionBuilderSetArgumentRole: unknown "
                                                r"role 'weight' \(expected input, parameter"):
        b.set_argument_role(0, "weight")
    with pytest.raises(teq.CompilerError, match="role 'input' refers to no other value"):
        b.set_argument_role(0, "input", "x")
    with pytest.raises(teq.CompilerError, match="argument 2 out of range"):
        b.set_argument_role(2, "input")
    b.set_result_role(0, "state_update", "s")
    b.ret([b.elementwise("math.exp", [b.argument(0)])])
    text = str(module)
    assert 'teq.role = "state"' in text
    assert '{teq.role = "grad_output", teq.role_of = "y"}' in text
    assert '-> (tensor<4xf32> {teq.role = "state_update", teq.role_of = "s"})' in text
    # A role for a result that is not returned.
    b = compiler.FunctionBuilder(module, "g", ["tensor<4xf32>"])
    b.set_result_role(1, "output")
    with pytest.raises(teq.CompilerError, match="a role was set for result 1, but 1 value"):
        b.ret([b.argument(0)])


@pytest.mark.parametrize("override", ["high_precision", "dequantized"])
def test_backward_override_runs_the_backward_in_high_precision(tmp_path, override):
    """Float8CurrentScaling(backward_override=...) from the Python builder: the
    forward saves no columnwise copy, the backward's GEMMs take high-precision
    operands (the original tensors, or the forward's copies dequantized) and
    an unquantized grad_output (TE's Linear under NVTE_BACKWARD_OVERRIDE)."""
    p = mlp(recipe=Float8CurrentScaling(backward_override=override), bias=True)
    text = str(p.module(training=True))
    assert f"backward_override = {override}" in text
    lowered = teq.compiler.run_pipeline(p.module(training=True), "teq-lower-to-gemm")
    body = str(lowered)
    backward = body[body.index("func.func @mlp_backward"):]
    # No quantization of grad_output in backward; every GEMM there is bf16.
    assert "f8E5M2" not in backward
    for line in backward.splitlines():
        if "teq.gemm" in line:
            assert "!teq.proto" not in line.split(":")[-1], line
    assert ("teq.dequantize" in backward) == (override == "dequantized")
    forward = body[body.index("func.func @mlp_forward"):body.index("func.func @mlp_backward")]
    assert "columnwise" not in forward
    if override == "high_precision":
        teq.compile(p, output=tmp_path / "mlp.so")  # the whole pair compiles
