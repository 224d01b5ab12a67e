"""Writes parallel-mlp-delayed.mlir (run from the repository root with the
Python package on PYTHONPATH: python3 python-bindings/test/Inputs/
parallel-mlp-delayed.py): issue 17's TP/SP MLP under DelayedScaling.

The column-parallel fc1 + row-parallel fc2 MLP with sequence parallelism on
a "tp" group of 2 (512 tokens, 256 a rank; hidden 256; FFN 2048, 1024 a
rank), forward, backward and TE's update step, under
autocast(DelayedScaling, amax_reduction_group=tp): x and dy are quantized
with the stored scales and gathered in FP8, each rank records its own
amaxes, and the update all-reduces (max) them over the group before the new
scales, so every rank's scales stay the one-GPU run's. The same MLP
unsharded (mlp_delayed_*) is what the ranks are compared with
(test_runtime_parallel.py)."""

import os
import sys

import teq
from teq.recipe import DelayedScaling

HERE = os.path.dirname(os.path.abspath(__file__))
RECIPE = DelayedScaling(amax_history_len=4)


def mlp(name, tp_size):
    p = teq.Program(name, target="sm_90")
    tokens = 512 // tp_size
    x = p.input("x", (tokens, 256))
    if tp_size == 1:
        fc1 = p.Linear(256, 2048, bias=False, name="fc1")
        fc2 = p.Linear(2048, 256, bias=False, name="fc2")
        with teq.autocast(recipe=RECIPE):
            y = fc2(p.tanh(fc1(x)))
    else:
        tp = p.process_group("tp")
        # Each rank's weight shards: fc1's rows, fc2's columns.
        ffn = 2048 // tp_size
        fc1 = p.Linear(256, ffn, bias=False, name="fc1", parallel_mode="column",
                       sequence_parallel=True, tp_size=tp_size, tp_group=tp)
        fc2 = p.Linear(ffn, 256, bias=False, name="fc2", parallel_mode="row",
                       sequence_parallel=True, tp_size=tp_size, tp_group=tp)
        with teq.autocast(recipe=RECIPE, amax_reduction_group=tp):
            y = fc2(p.tanh(fc1(x)))
    p.output(y)
    return p


def main():
    text = [str(mlp("tp_mlp_delayed", 2).module(training=True)),
            str(mlp("mlp_delayed", 1).module(training=True))]
    # One module: the second program's functions join the first's.
    first, second = text
    body = second[second.index(" {\n") + 3:second.rindex("}")]
    merged = first[:first.rindex("}")] + body + "}\n"
    header = "".join("// " + line + "\n" if line else "//\n"
                     for line in __doc__.splitlines())
    out = os.path.join(HERE, "parallel-mlp-delayed.mlir")
    with open(out, "w") as f:
        f.write(header + "// Written by parallel-mlp-delayed.py.\n" + merged)
    print(out)


if __name__ == "__main__":
    sys.exit(main())
