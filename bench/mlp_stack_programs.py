#!/usr/bin/env python3
"""The programs of bench/mlp_stack_bench.py (issue 28's small-model step),
compiled here (the build host, with the compiler extension); scripts/gpu-prepare
runs it:

    PYTHONPATH=build/python-bindings python3 bench/mlp_stack_programs.py OUTDIR

A stack of LAYERS identical MLP blocks, fc1 [HIDDEN -> FFN] -> tanh -> fc2
[FFN -> HIDDEN], no bias, TOKENS tokens, bf16 (the block of bench/mlp_bench.py
at a small model's shape), as three kinds of entries:

* OUTDIR/mlp_stack.so: forward + backward of the whole stack in ONE entry,
  `stack_<LAYERS>(x, w1_0, w2_0, ..., dy) -> y, dx, dw1_0, dw2_0, ...`, the
  text `bench/programs.py stack` writes, Float8CurrentScaling;
* OUTDIR/mlp_stack/stack_<recipe>.so: the same stack as a teq.Program
  (docs/Python.md), a training pair: `stack_<recipe>_forward(x, weights
  [, state]) -> y, saved...` and `stack_<recipe>_backward(dy, saved...
  [, state]) -> dx, dweights...` (and, for DelayedScaling with TE's history
  of 1024, `stack_delayed_update(state) -> state'`), so a step is two calls
  (three with the update);
* OUTDIR/mlp_stack/layer_<recipe>.so: one block as such a pair, called once
  per layer in each direction: 2 x LAYERS calls a step, as a framework with
  one module per layer makes them.
"""

import os
import sys

LAYERS, TOKENS, HIDDEN, FFN = 12, 4096, 1024, 4096
HISTORY = 1024  # DelayedScaling's amax history (TE's default)
TARGET = "sm_90"
RECIPES = ("current", "delayed")


def recipe(kind):
    from teq.recipe import DelayedScaling, Float8CurrentScaling

    return (Float8CurrentScaling() if kind == "current"
            else DelayedScaling(amax_history_len=HISTORY))


def stack_program(name, layers, kind):
    """`layers` blocks fc2(tanh(fc1(x))) as a teq.Program; x requires grad
    (the step returns dx, as the fused entry does)."""
    import teq

    p = teq.Program(name, target=TARGET)
    x = p.input("x", (TOKENS, HIDDEN), requires_grad=True)
    blocks = [(p.Linear(HIDDEN, FFN, bias=False, name=f"fc1_{i}"),
               p.Linear(FFN, HIDDEN, bias=False, name=f"fc2_{i}"))
              for i in range(layers)]
    with teq.autocast(recipe=recipe(kind)):
        h = x
        for fc1, fc2 in blocks:
            h = fc2(p.tanh(fc1(h)))
    p.output(h)
    return p


def fused_text(layers=LAYERS):
    sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
    import programs

    return programs.stack_module(layers, TOKENS, HIDDEN, FFN)


def compile_all(outdir):
    import teq

    os.makedirs(os.path.join(outdir, "mlp_stack"), exist_ok=True)
    paths = [teq.compile(fused_text(), output=os.path.join(outdir, "mlp_stack.so"))]
    for kind in RECIPES:
        for name, layers in ((f"stack_{kind}", LAYERS), (f"layer_{kind}", 1)):
            paths.append(teq.compile(stack_program(name, layers, kind),
                                     output=os.path.join(outdir, "mlp_stack", name + ".so")))
    return paths


if __name__ == "__main__":
    if len(sys.argv) != 2:
        sys.exit(__doc__)
    for path in compile_all(sys.argv[1]):
        print(f"compiled {path}")
