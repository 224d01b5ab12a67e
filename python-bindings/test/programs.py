"""teq.Programs built in Python for the teq.torch.Module tests, and the
script that compiles them (run on the workstation, which has the compiler;
scripts/gpu-prepare runs it for the GPU machine):

    python3 python-bindings/test/programs.py OUTDIR    # OUTDIR/<name>.so

Each program is the two-Linear MLP ``fc2(tanh(fc1(x)))`` (fc1 with a bias,
fc2 without) under one recipe, with shapes large enough for FP8 errors to
be meaningful: x 256x512, fc1 512->1024, fc2 1024->512.
"""

import os
import sys

# Shapes (multiples of 16, as FP8 GEMMs need).
TOKENS, HIDDEN, FFN = 256, 512, 1024
AMAX_HISTORY_LEN = 16
TARGET = "sm_90"

# name -> recipe ("current": Float8CurrentScaling, "delayed":
# DelayedScaling(amax_history_len=16)).
PROGRAMS = {"mlp_current": "current", "mlp_delayed": "delayed",
            "mlp_current_dgrad": "current"}
# Programs whose input x requires grad (its backward returns grad_x).
INPUT_GRAD = {"mlp_current_dgrad"}


def recipe(kind):
    from teq.recipe import DelayedScaling, Float8CurrentScaling

    if kind == "current":
        return Float8CurrentScaling()
    if kind == "delayed":
        return DelayedScaling(amax_history_len=AMAX_HISTORY_LEN)
    raise ValueError(f"unknown recipe kind {kind!r}")


def mlp(name, kind, target=TARGET, tokens=TOKENS, hidden=HIDDEN, ffn=FFN,
        input_grad=False):
    """The MLP y = fc2(tanh(fc1(x))) as a teq.Program named `name` under
    recipe `kind` ("current" or "delayed"); with `input_grad`, x requires
    grad (the backward also returns grad_x)."""
    import teq

    p = teq.Program(name, target=target)
    x = p.input("x", (tokens, hidden), requires_grad=input_grad)
    fc1 = p.Linear(hidden, ffn, bias=True, name="fc1")
    fc2 = p.Linear(ffn, hidden, bias=False, name="fc2")
    with teq.autocast(recipe=recipe(kind)):
        y = fc2(p.tanh(fc1(x)))
    p.output(y)
    return p


def programs(target=TARGET):
    """{name: Program} of every test program."""
    return {name: mlp(name, kind, target, input_grad=name in INPUT_GRAD)
            for name, kind in PROGRAMS.items()}


def compile_all(outdir, target=TARGET):
    """Compiles every program to OUTDIR/<name>.so; returns the paths."""
    import teq

    os.makedirs(outdir, exist_ok=True)
    paths = {}
    for name, program in programs(target).items():
        # The training pair and the inference forward teq.torch runs under
        # torch.no_grad(); current scaling also with the weight-cache entries
        # (<forward>_weights, <forward>_cached; delayed scaling has none).
        module = program.module(training=True, inference=True,
                                weight_cache=PROGRAMS[name] == "current")
        paths[name] = teq.compile(module, output=os.path.join(outdir, name + ".so"))
    return paths


_compiled = {}


def artifact(name):
    """The compiled program `name` for the tests: compiled here with the
    compiler extension when it imports (once per process), else
    $TEQ_ARTIFACTS/<name>.so (default .artifacts/python, where
    scripts/gpu-prepare puts them); skips the test if neither."""
    import pytest

    if name not in PROGRAMS:
        raise KeyError(name)
    try:
        import teq._teq_compiler  # noqa: F401
        have_compiler = True
    except ImportError:
        have_compiler = False
    if have_compiler:
        if not _compiled:
            import tempfile

            _compiled.update(compile_all(tempfile.mkdtemp(prefix="teq-py-programs-")))
        return _compiled[name]
    repo = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
    folder = os.environ.get("TEQ_ARTIFACTS", os.path.join(repo, ".artifacts", "python"))
    path = os.path.join(folder, name + ".so")
    if not os.path.isfile(path):
        pytest.skip(f"no compiler extension (teq._teq_compiler) and no {path} "
                    f"(TEQ_ARTIFACTS; scripts/gpu-prepare compiles programs.py there)")
    return path


def main(argv):
    if len(argv) != 2:
        print("usage: programs.py OUTDIR", file=sys.stderr)
        return 2
    for name, path in compile_all(argv[1]).items():
        print(f"compiled program {name} -> {path}")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
