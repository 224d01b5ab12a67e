"""The roles the compiler writes into the manifest ("role"/"of",
docs/Artifact.md) for a teq.Program's entries, as teq.runtime.inspect
exposes them (Arg.role, Arg.role_of), and teq.torch.ProgramPair reading
them: renamed arguments no longer confuse it, and artifacts without roles
fall back to the names. No GPU, no torch."""

import os
import re
import tempfile

import pytest

import programs
from runtime_helpers import runtime_module

runtime_module()
import teq.runtime as rt  # noqa: E402
import teq.torch as tt  # noqa: E402  (imports without torch)

pytest.importorskip("teq._teq_compiler", reason="the compiler extension is not built here")
import teq  # noqa: E402
from teq.recipe import Float8CurrentScaling  # noqa: E402

_ROLE = re.compile(r', teq\.role(_of)? = "[^"]*"')


def _compile(program_or_text, training=True):
    path = os.path.join(tempfile.mkdtemp(prefix="teq-roles-"), "p.so")
    text = program_or_text if isinstance(program_or_text, str) else program_or_text.module(
        training=training)
    teq.compile(text, output=path)
    return rt.inspect(path)


def _roles(entry):
    return ([(a.name, a.role, a.role_of) for a in entry.inputs],
            [(a.name, a.role, a.role_of) for a in entry.outputs])


def _without_roles(program):
    """The program's IR text without teq.role/teq.role_of: what an
    artifact compiled before roles were written looks like."""
    text = str(program.module(training=True))
    stripped = _ROLE.sub("", text)
    assert stripped != text and "teq.role" not in stripped
    return stripped


def _linear(name, fuse=False, x_requires_grad=False, x_name="x"):
    p = teq.Program(name, target="sm_90")
    x = p.input(x_name, (64, 128), requires_grad=x_requires_grad)
    fc1 = p.Linear(128, 256, bias=True, name="fc1", fuse_wgrad_accumulation=fuse)
    with teq.autocast(recipe=Float8CurrentScaling()):
        p.output(fc1(x))
    return p


def test_roles_of_a_linear_pair():
    art = _compile(_linear("lin"))
    saved = ["fc1.saved_input", "fc1.saved_weight"]
    assert _roles(art["lin_forward"]) == (
        [("x", "input", None), ("fc1.weight", "parameter", None),
         ("fc1.bias", "parameter", None)],
        [("output0", "output", None)] + [(n, "saved", None) for n in saved])
    assert _roles(art["lin_backward"]) == (
        [("grad_output0", "grad_output", "output0")] + [(n, "saved", None) for n in saved],
        [("grad_fc1.weight", "grad", "fc1.weight"), ("grad_fc1.bias", "grad", "fc1.bias")])
    pair = tt.ProgramPair(art["lin_forward"], art["lin_backward"])
    assert pair.from_roles
    assert pair.inputs == ("x",) and pair.parameters == ("fc1.weight", "fc1.bias")
    assert pair.backward_results == (("grad", "fc1.weight"), ("grad", "fc1.bias"))
    # The same program without roles: the names give the same roles.
    old = _compile(_without_roles(_linear("lin")))
    assert all(a.role is None and a.role_of is None
               for e in ("lin_forward", "lin_backward")
               for a in old[e].inputs + old[e].outputs)
    by_names = tt.ProgramPair(old["lin_forward"], old["lin_backward"])
    assert not by_names.from_roles
    assert by_names.roles() == pair.roles()


def test_roles_of_a_delayed_scaling_mlp_and_its_update():
    p = programs.mlp("mlp", "delayed", tokens=64, hidden=128, ffn=256)
    art = _compile(p)
    fwd, bwd, upd = art["mlp_forward"], art["mlp_backward"], art["mlp_update"]
    state_f = [a.name for a in fwd.inputs if a.role == "state"]
    assert state_f == ["fc1.fwd_scale", "fc1.fwd_amax_history", "fc2.fwd_scale",
                       "fc2.fwd_amax_history"]
    assert [(a.name, a.role_of) for a in fwd.outputs if a.role == "state_update"] == [
        ("fc1.fwd_amax_history.updated", "fc1.fwd_amax_history"),
        ("fc2.fwd_amax_history.updated", "fc2.fwd_amax_history")]
    assert [(a.name, a.role_of) for a in bwd.outputs if a.role == "state_update"] == [
        ("fc1.bwd_amax_history.updated", "fc1.bwd_amax_history"),
        ("fc2.bwd_amax_history.updated", "fc2.bwd_amax_history")]
    assert all(a.role == "state" and a.role_of is None for a in upd.inputs)
    assert [a.role_of for a in upd.outputs] == [a.name for a in upd.inputs]
    assert all(a.role == "state_update" for a in upd.outputs)
    pair = tt.ProgramPair(fwd, bwd, update=upd)
    assert pair.from_roles
    assert pair.update_results == pair.update_args == tuple(a.name for a in upd.inputs)
    assert pair.forward_results[-2:] == (
        ("state", "fc1.fwd_amax_history"), ("state", "fc2.fwd_amax_history"))
    old = _compile(_without_roles(p))
    by_names = tt.ProgramPair(old["mlp_forward"], old["mlp_backward"], update=old["mlp_update"])
    assert not by_names.from_roles and by_names.roles() == pair.roles()


def test_roles_of_a_main_grad_linear():
    art = _compile(_linear("mg", fuse=True, x_requires_grad=True))
    fwd, bwd = art["mg_forward"], art["mg_backward"]
    assert [(a.name, a.role, a.role_of) for a in bwd.inputs if a.role == "main_grad"] == [
        ("fc1.weight.main_grad", "main_grad", "fc1.weight")]
    assert _roles(bwd)[1] == [("grad_x", "grad", "x"),
                              ("grad_fc1.weight", "main_grad", "fc1.weight"),
                              ("grad_fc1.bias", "grad", "fc1.bias")]
    # The roles say x is an input though it has a gradient: no inputs=[...]
    # needed (from the names it would count as a parameter).
    pair = tt.ProgramPair(fwd, bwd)
    assert pair.inputs == ("x",) and pair.input_grads == ("x",)
    assert pair.parameters == ("fc1.weight", "fc1.bias")
    assert pair.main_grads == ("fc1.weight",)
    assert pair.trainable == ("fc1.weight", "fc1.bias")
    assert pair.backward_results == (("grad", "x"), ("main_grad", "fc1.weight"),
                                     ("grad", "fc1.bias"))
    old = _compile(_without_roles(_linear("mg", fuse=True, x_requires_grad=True)))
    assert tt.ProgramPair(old["mg_forward"], old["mg_backward"]).parameters == (
        "x", "fc1.weight", "fc1.bias")


def test_renamed_arguments_do_not_confuse_the_roles():
    # An input whose name ends like delayed-scaling state: the names would
    # make it state; the roles say input.
    p = _linear("odd", x_name="x.fwd_scale")
    pair = tt.ProgramPair(*(_compile(p)[e] for e in ("odd_forward", "odd_backward")))
    assert pair.inputs == ("x.fwd_scale",) and pair.state == {}
    old = _compile(_without_roles(_linear("odd", x_name="x.fwd_scale")))
    by_names = tt.ProgramPair(old["odd_forward"], old["odd_backward"])
    assert by_names.inputs == () and "x.fwd_scale" in by_names.state
    # Renamed results and arguments in the IR (what the names could not
    # follow, test_torch_program_cpu.test_renamed_results_do_not_fit):
    # the roles still hold.
    text = str(programs.mlp("mlp", "delayed", tokens=64, hidden=128, ffn=256)
               .module(training=True))
    for old_name, new_name in (("grad_fc1.bias", "dbias"),
                               ("fc1.bwd_amax_history.updated", "h1"),
                               ("grad_output0", "dy")):
        assert f'teq.name = "{old_name}"' in text
        text = text.replace(f'teq.name = "{old_name}"', f'teq.name = "{new_name}"')
    art = _compile(text)
    pair = tt.ProgramPair(art["mlp_forward"], art["mlp_backward"], update=art["mlp_update"])
    assert ("grad", "fc1.bias") in pair.backward_results
    assert ("state", "fc1.bwd_amax_history") in pair.backward_results
    assert pair.backward_args[0] == ("grad_output", "output0")


def test_roles_that_do_not_fit():
    # A role of the wrong entry is an error naming it, not a guess.
    text = str(_linear("bad").module(training=True)).replace(
        'teq.name = "fc1.bias", teq.role = "parameter"',
        'teq.name = "fc1.bias", teq.role = "state"', 1)
    assert 'teq.role = "state"' in text
    art = _compile(text)
    with pytest.raises(ValueError, match=r"entry 'bad_backward' result 'grad_fc1.bias' has "
                                         r"role 'grad' of 'fc1.bias' \(expected the grad of "
                                         r"an argument of entry 'bad_forward'\)"):
        tt.ProgramPair(art["bad_forward"], art["bad_backward"])


def test_norm_gammas_start_as_te_initialises_them():
    # A norm's gamma starts at ones (TE's default), zeros with
    # zero_centered_gamma; teq.torch finds the gammas from what the
    # forward's saved statistics are computed by.
    from teq.torch.modules import _norm_gammas

    p = teq.Program("norms", target="sm_90")
    x = p.input("x", (64, 128), requires_grad=True)
    ln = p.LayerNorm(128, name="ln")
    rms = p.RMSNorm(128, zero_centered_gamma=True, name="rms")
    fc = p.Linear(128, 128, name="fc")
    with teq.autocast(recipe=Float8CurrentScaling()):
        p.output(fc(rms(ln(x))))
    inspected = _compile(p)
    forward = inspected["norms_forward"]
    assert _norm_gammas(forward) == {"ln.weight": False, "rms.weight": True}
