"""teq.torch.ProgramPair without a GPU or torch (CI): the roles of a
compiled teq.Program's arguments and results read from the manifest
(test_torch_roles_cpu tests what differs) or their names
(inspected artifacts compiled from programs.py and from small Programs
here), and the errors for artifacts whose names do not fit."""

import os
import re
import tempfile

import pytest

import programs
from runtime_helpers import artifact, runtime_module

runtime_module()
import teq.runtime as rt  # noqa: E402
import teq.torch as tt  # noqa: E402  (imports without torch)


def _pair(name, **kwargs):
    art = rt.inspect(programs.artifact(name))
    return tt.ProgramPair(art[f"{name}_forward"], art[f"{name}_backward"], **kwargs)


def _compile(program_or_text, training=None):
    """Compiles a Program (or IR text) into a temporary artifact; inspected."""
    pytest.importorskip("teq._teq_compiler", reason="the compiler extension is not built here")
    import teq

    path = os.path.join(tempfile.mkdtemp(prefix="teq-roles-"), "p.so")
    if isinstance(program_or_text, str):
        teq.compile(program_or_text, output=path)
    else:
        teq.compile(program_or_text.module(training=training), output=path)
    return rt.inspect(path)


SAVED = ("fc1.saved_input", "fc1.saved_weight", "tanh1.result", "fc2.saved_input",
         "fc2.saved_weight")


def test_roles_of_the_current_scaling_mlp():
    pair = _pair("mlp_current")
    assert pair.inputs == ("x",)
    assert pair.parameters == ("fc1.weight", "fc1.bias", "fc2.weight")
    assert pair.trainable == pair.parameters
    assert pair.outputs == ("output0",)
    assert pair.state == {} and pair.main_grads == ()
    roles = pair.roles()
    assert roles["mlp_current_forward"]["args"] == (
        ("input", "x"), ("parameter", "fc1.weight"), ("parameter", "fc1.bias"),
        ("parameter", "fc2.weight"))
    assert roles["mlp_current_forward"]["results"] == (
        (("output", "output0"),) + tuple(("saved", n) for n in SAVED))
    assert roles["mlp_current_backward"]["args"] == (
        (("grad_output", "output0"),) + tuple(("saved", n) for n in SAVED))
    assert roles["mlp_current_backward"]["results"] == (
        ("grad", "fc1.weight"), ("grad", "fc1.bias"), ("grad", "fc2.weight"))
    assert "x=input" in pair.describe()


def test_roles_of_the_delayed_scaling_mlp():
    pair = _pair("mlp_delayed")
    assert pair.inputs == ("x",)
    assert pair.parameters == ("fc1.weight", "fc1.bias", "fc2.weight")
    hist = programs.AMAX_HISTORY_LEN
    assert {n: (a.dtype, a.shape) for n, a in pair.state.items()} == {
        "fc1.fwd_scale": ("f32", (3,)), "fc1.fwd_amax_history": ("f32", (hist, 3)),
        "fc2.fwd_scale": ("f32", (3,)), "fc2.fwd_amax_history": ("f32", (hist, 3)),
        "fc1.bwd_scale": ("f32", (2,)), "fc1.bwd_amax_history": ("f32", (hist, 2)),
        "fc2.bwd_scale": ("f32", (2,)), "fc2.bwd_amax_history": ("f32", (hist, 2))}
    roles = pair.roles()
    fwd, bwd = roles["mlp_delayed_forward"], roles["mlp_delayed_backward"]
    assert fwd["args"][4:] == (("state", "fc1.fwd_scale"), ("state", "fc1.fwd_amax_history"),
                               ("state", "fc2.fwd_scale"), ("state", "fc2.fwd_amax_history"))
    assert fwd["results"][-2:] == (("state", "fc1.fwd_amax_history"),
                                   ("state", "fc2.fwd_amax_history"))
    assert bwd["args"][-4:] == (("state", "fc1.bwd_scale"), ("state", "fc1.bwd_amax_history"),
                                ("state", "fc2.bwd_scale"), ("state", "fc2.bwd_amax_history"))
    assert bwd["results"] == (("grad", "fc1.weight"), ("grad", "fc1.bias"),
                              ("grad", "fc2.weight"), ("state", "fc1.bwd_amax_history"),
                              ("state", "fc2.bwd_amax_history"))
    # The saved quantized tensors are protos on both sides.
    art = pair.forward
    assert [a.is_proto for a in art.outputs[1:6]] == [True, True, False, True, True]


def test_roles_match_program_entries():
    pytest.importorskip("teq._teq_compiler", reason="the compiler extension is not built here")
    for name, program in programs.programs().items():
        entries = program.entries(training=True)
        art = rt.inspect(programs.artifact(name))
        for entry, (args, results) in entries.items():
            assert [a.name for a in art[entry].inputs] == list(args)
            assert [a.name for a in art[entry].outputs] == list(results)


def test_roles_of_the_update_entry():
    art = rt.inspect(programs.artifact("mlp_delayed"))
    if "mlp_delayed_update" not in art.entries:
        pytest.skip("this artifact has no update entry (compiled before there was one)")
    upd = art["mlp_delayed_update"]
    pair = tt.ProgramPair(art["mlp_delayed_forward"], art["mlp_delayed_backward"], update=upd)
    assert set(pair.update_args) == set(pair.state)
    assert pair.update_results == pair.update_args
    assert pair.roles()["mlp_delayed_update"]["args"][0] == ("state", pair.update_args[0])
    # The update entry of another program does not fit.
    cur = rt.inspect(programs.artifact("mlp_current"))
    with pytest.raises(ValueError, match=r"entry 'mlp_delayed_update' argument "
                                         r"'fc1.fwd_scale' is not state of entries "
                                         r"'mlp_current_forward'/'mlp_current_backward' "
                                         r"\(state: none\)"):
        tt.ProgramPair(cur["mlp_current_forward"], cur["mlp_current_backward"], update=upd)


def test_explicit_inputs_and_parameters():
    pair = _pair("mlp_current", parameters=["fc1.weight", "fc2.weight"])
    assert pair.inputs == ("x", "fc1.bias") and pair.parameters == ("fc1.weight", "fc2.weight")
    # The bias is then an input whose gradient the backward returns.
    assert pair.input_grads == ("fc1.bias",)
    pair = _pair("mlp_current", inputs=["x"])
    assert pair.parameters == ("fc1.weight", "fc1.bias", "fc2.weight")
    with pytest.raises(ValueError, match=r"inputs: entry 'mlp_current_forward' has no argument "
                                         r"'y' \(arguments: x, fc1.weight"):
        _pair("mlp_current", inputs=["y"])
    with pytest.raises(ValueError, match="x: in both inputs and parameters"):
        _pair("mlp_current", inputs=["x"], parameters=["x", "fc1.weight", "fc1.bias",
                                                       "fc2.weight"])
    with pytest.raises(ValueError, match=r"argument\(s\) fc2.weight: neither in inputs nor "
                                         r"in parameters"):
        _pair("mlp_current", inputs=["x"], parameters=["fc1.weight", "fc1.bias"])
    with pytest.raises(ValueError, match="'fc1.fwd_scale' is delayed-scaling state"):
        _pair("mlp_delayed", parameters=["fc1.fwd_scale"])
    with pytest.raises(ValueError, match="'x' given twice"):
        _pair("mlp_current", inputs=["x", "x"])


def test_input_requiring_grad_and_main_grad():
    import teq
    from teq.recipe import Float8CurrentScaling

    pytest.importorskip("teq._teq_compiler", reason="the compiler extension is not built here")
    p = teq.Program("mg", target="sm_90")
    x = p.input("x", (64, 128), requires_grad=True)
    fc1 = p.Linear(128, 256, bias=True, name="fc1", fuse_wgrad_accumulation=True)
    with teq.autocast(recipe=Float8CurrentScaling()):
        p.output(fc1(x))
    art = _compile(p, training=True)
    fwd, bwd = art["mg_forward"], art["mg_backward"]
    # The manifest's roles say x is an input (from the names alone, x,
    # having a gradient, would count as a parameter: test_torch_roles_cpu).
    assert tt.ProgramPair(fwd, bwd).parameters == ("fc1.weight", "fc1.bias")
    pair = tt.ProgramPair(fwd, bwd, inputs=["x"])
    assert pair.inputs == ("x",) and pair.input_grads == ("x",)
    assert pair.parameters == ("fc1.weight", "fc1.bias")
    assert pair.main_grads == ("fc1.weight",)
    assert pair.trainable == ("fc1.weight", "fc1.bias")
    assert pair.backward_args[-1] == ("main_grad", "fc1.weight")
    assert pair.backward_results == (("grad", "x"), ("main_grad", "fc1.weight"),
                                     ("grad", "fc1.bias"))


def test_saved_tensors_the_compiler_dropped():
    import teq

    pytest.importorskip("teq._teq_compiler", reason="the compiler extension is not built here")
    p = teq.Program("hp", target="sm_90")
    x = p.input("x", (64, 128))
    p.output(p.Linear(128, 256, bias=False, name="fc1")(x))
    art = _compile(p, training=True)
    pair = tt.ProgramPair(art["hp_forward"], art["hp_backward"])
    # High precision: the saved input and weight are the forward's arguments.
    assert [a.name for a in art["hp_forward"].outputs] == ["output0"]
    assert pair.backward_args == (("grad_output", "output0"), ("arg", "x"),
                                  ("arg", "fc1.weight"))
    assert tt._program_saved_from_args(p, art, "hp_forward", "hp_backward") == {
        "fc1.saved_input": "x", "fc1.saved_weight": "fc1.weight"}
    # Square: x and the weight have one type; the input is ambiguous.
    p = teq.Program("sq", target="sm_90")
    x = p.input("x", (128, 128))
    p.output(p.Linear(128, 128, bias=False, name="fc1")(x))
    art = _compile(p, training=True)
    with pytest.raises(ValueError, match=r"argument 'fc1.saved_input' \(bf16\[128, 128\]\) is "
                                         r"not a gradient.*saved_from_args=\{'fc1.saved_input': "
                                         r"<argument>\} \(candidates: x, fc1.weight\)"):
        tt.ProgramPair(art["sq_forward"], art["sq_backward"])
    pair = tt.ProgramPair(art["sq_forward"], art["sq_backward"],
                          saved_from_args={"fc1.saved_input": "x"})
    assert pair.backward_args[1:] == (("arg", "x"), ("arg", "fc1.weight"))
    with pytest.raises(ValueError, match="saved_from_args: 'fc1.saved_input' -> 'nope'"):
        tt.ProgramPair(art["sq_forward"], art["sq_backward"],
                       saved_from_args={"fc1.saved_input": "nope"})
    with pytest.raises(ValueError, match="saved_from_args: entry 'sq_backward' has no dropped "
                                         "saved tensor other"):
        tt.ProgramPair(art["sq_forward"], art["sq_backward"],
                       saved_from_args={"fc1.saved_input": "x", "other": "x"})


def test_inference_program():
    pytest.importorskip("teq._teq_compiler", reason="the compiler extension is not built here")
    p = programs.mlp("inf", "delayed", tokens=64, hidden=128, ffn=256)
    art = _compile(p, training=False)
    assert list(art.entries)[0] == "inf"  # then maybe inf_update
    fwd, bwd, upd = tt._pick_entries(art, None, None)
    assert fwd.name == "inf" and bwd is None
    assert (upd is None) == ("inf_update" not in art.entries)
    pair = tt.ProgramPair(fwd, None, update=upd,
                          parameters=["fc1.weight", "fc1.bias", "fc2.weight"])
    assert pair.outputs == ("output0",)
    assert pair.forward_results[1:] == (("state", "fc1.fwd_amax_history"),
                                        ("state", "fc2.fwd_amax_history"))
    assert pair.trainable == ()  # no backward: nothing to train


def test_pick_entries():
    art = rt.inspect(programs.artifact("mlp_current"))
    fwd, bwd, upd = tt._pick_entries(art, None, None)
    assert (fwd.name, bwd.name, upd) == ("mlp_current_forward", "mlp_current_backward", None)
    fwd, bwd, upd = tt._pick_entries(art, "mlp_current_forward", None)
    assert bwd.name == "mlp_current_backward"
    with pytest.raises(KeyError, match="no entry 'nope'"):
        tt._pick_entries(art, "nope", None)
    art = rt.inspect(programs.artifact("mlp_delayed"))
    fwd, bwd, upd = tt._pick_entries(art, None, None)
    assert fwd.name == "mlp_delayed_forward" and bwd.name == "mlp_delayed_backward"
    assert (upd is None) == ("mlp_delayed_update" not in art.entries)
    assert tt._pick_entries(art, None, None, update=False)[2] is None
    linear = rt.inspect(artifact("linear-current"))
    with pytest.raises(ValueError, match="name the forward entry"):
        tt._pick_entries(linear, None, None)


def test_names_that_do_not_fit():
    # te-compile's function-pair artifacts name arguments arg0, result0, ...
    linear = rt.inspect(artifact("linear-current"))
    with pytest.raises(ValueError, match=r"entry 'fwd' result 'result0' is not an output \(entry "
                                         r"'bwd' has no argument 'grad_result0'\).*"
                                         r"teq.torch.Linear.from_artifact"):
        tt.ProgramPair(linear["fwd"], linear["bwd"])


def test_renamed_results_do_not_fit():
    pytest.importorskip("teq._teq_compiler", reason="the compiler extension is not built here")
    # Without the roles (an artifact compiled before the manifest had them)
    # the names are all there is; with them renaming is harmless
    # (test_torch_roles_cpu).
    text = re.sub(r', teq\.role(_of)? = "[^"]*"', "",
                  str(programs.mlp("mlp", "delayed", tokens=64, hidden=128, ffn=256)
                      .module(training=True)))
    assert "teq.role" not in text

    def pair(old, new, only_backward=False):
        assert f'teq.name = "{old}"' in text
        head, tail = text, ""
        if only_backward:
            cut = text.index("func.func @mlp_backward")
            head, tail = text[cut:], text[:cut]
        changed = head.replace(f'teq.name = "{old}"', f'teq.name = "{new}"')
        art = _compile(tail + changed if only_backward else changed)
        return tt.ProgramPair(art["mlp_forward"], art["mlp_backward"])

    with pytest.raises(ValueError, match=r"entry 'mlp_backward' result 'dbias' is not the "
                                         r"gradient of an input or parameter"):
        pair("grad_fc1.bias", "dbias")
    with pytest.raises(ValueError, match=r"entry 'mlp_backward' result 'grad_fc3.weight' is "
                                         r"not the gradient"):
        pair("grad_fc2.weight", "grad_fc3.weight")
    with pytest.raises(ValueError, match=r"entry 'mlp_forward' result 'fc1.fwd_amax_history.new'"
                                         r" is not an output"):
        pair("fc1.fwd_amax_history.updated", "fc1.fwd_amax_history.new")
    # A saved result the backward takes under another name.
    with pytest.raises(ValueError, match=r"entry 'mlp_forward' result 'tanh1.result' is not an "
                                         r"output \(entry 'mlp_backward' has no argument "
                                         r"'grad_tanh1.result'\), not saved for backward"):
        pair("tanh1.result", "tanh1.out", only_backward=True)
    # Renamed consistently on both sides it is still a saved tensor.
    assert ("saved", "tanh1.out") in pair("tanh1.result", "tanh1.out").backward_args
    # The gradient of an output under another name.
    with pytest.raises(ValueError, match=r"result 'output0' is not an output"):
        pair("grad_output0", "d_output0")


def test_import_without_torch():
    try:
        import torch  # noqa: F401
        pytest.skip("torch is installed: the ImportError path is not reachable")
    except ImportError:
        pass
    with pytest.raises(ImportError, match="teq.torch.Module needs PyTorch"):
        tt.Module.from_artifact(programs.artifact("mlp_current"))
    with pytest.raises(ImportError, match="teq.torch.register needs PyTorch"):
        tt.register(programs.artifact("mlp_current"))
