#!/usr/bin/env python3
"""Writes the benchmark programs (TEQ MLIR) of bench/.

  python3 bench/programs.py linear > bench/linear.mlir
  python3 bench/programs.py mlp > bench/mlp.mlir
  python3 bench/programs.py stack --layers 24 [--tokens 8192 --hidden 4096
      --ffn 16384] > stack.mlir
  python3 bench/programs.py host_cost > bench/host_cost.mlir
  python3 bench/programs.py check   # bench/linear.mlir, bench/mlp.mlir,
                                    # bench/host_cost.mlir up to date?

* linear: one TE Linear (y = x w^T, dx = dy w, dw = dy^T x; x:[M,K],
  w:[N,K], dy:[M,N], bf16) at each benchmark size, entries
    fwd_<recipe>_M_K_N(x, w) -> y
    fwdbwd_<recipe>_M_K_N(x, w, dy) -> y, dx, dw
  for recipe current (Float8CurrentScaling) and block (Float8BlockScaling);
    fwd_delayed_M_K_N(x, w, scale, history) -> y, scale', history'
    fwdbwd_delayed_M_K_N(x, w, dy, scale, history, bscale, bhistory)
        -> y, dx, dw, scale', history', bscale', bhistory'
  (DelayedScaling, TE's default history of 1024, with its state update --
  roll the histories, new scales -- in the same entry), and
    gemm_current_M_K_N(wq, xq) -> y
  the FP8 fprop GEMM alone on pre-quantized E4M3 operands; and
    update_delayed(scale, history) -> scale', history'
  DelayedScaling's update step alone.
* mlp: a TE-like MLP block, fc1 -> activation -> fc2, forward and backward
  in one entry, hidden 4096, ffn 16384, 8192 and 16384 tokens,
  Float8CurrentScaling: with tanh (backward dh = da - (da * a) * a),
    mlp_<recipe>_T_H_F(x, w1, w2, dy) -> y, dx, dw1, dw2
  the benchmark's block, and with GELU (teq.activation gelu: TE's tanh
  form, its default activation, its derivative the compiler's),
    mlp_gelu_<recipe>_T_H_F(x, w1, w2, dy) -> y, dx, dw1, dw2.
* host_cost: the host-cost benchmark's entries (bench/host_cost), small
  enough that the GPU never falls behind the host: the linear entries above
  at 256x256x256, a current-scaling quantize of a bf16[256, 256] with both
  usages,
    quantize_current_256x256(x) -> q
  and update_delayed.
* stack: `--layers` such blocks in one forward + backward entry (issue 16,
  part 4; bench/compile_time.py times te-compile on it), `--activation`
  tanh (default) or gelu.
"""

import argparse
import os
import sys

LINEAR_SIZES = [(8192, 8192, 8192), (16384, 4096, 4096), (4096, 4096, 4096),
                (2048, 2048, 2048)]
MLP_SHAPES = [(8192, 4096, 16384), (16384, 4096, 16384)]
HISTORY = 1024

RECIPES = {
    "current": "#teq.float8_current_scaling<>",
    "block": "#teq.float8_block_scaling<>",
    "delayed": f"#teq.delayed_scaling<amax_history_len = {HISTORY}>",
}


def t(*shape, dtype="bf16"):
    return f"tensor<{'x'.join(str(d) for d in shape)}x{dtype}>"


def linear_entries(m, k, n):
    x, w, y, dx, dw = t(m, k), t(n, k), t(m, n), t(m, k), t(n, k)
    sfx = f"{m}_{k}_{n}"
    out = []
    for recipe in ("current", "block"):
        r = RECIPES[recipe]
        out.append(f"""
  func.func @fwd_{recipe}_{sfx}(%x: {x}, %w: {w}) -> {y} {{
    %y = teq.autocast recipe({r}) -> {y} {{
      %out = teq.linear_forward %x, %w config(#teq.linear<name = "fc">)
          : {x}, {w} -> {y}
      teq.yield %out : {y}
    }}
    return %y : {y}
  }}
  func.func @fwdbwd_{recipe}_{sfx}(%x: {x}, %w: {w}, %dy: {y}) -> ({y}, {dx}, {dw}) {{
    %y, %dx, %dw = teq.autocast recipe({r}) -> {y}, {dx}, {dw} {{
      %out, %sx, %sw = teq.linear_forward %x, %w config(#teq.linear<name = "fc">)
          : {x}, {w} -> {y} saved_input({x}) saved_weight({w})
      %gx, %gw = teq.linear_backward %dy, %sx, %sw config(#teq.linear<name = "fc">)
          : {y}, {x}, {w} dgrad({dx}) wgrad({dw})
      teq.yield %out, %gx, %gw : {y}, {dx}, {dw}
    }}
    return %y, %dx, %dw : {y}, {dx}, {dw}
  }}""")
    r = RECIPES["delayed"]
    s3, h3 = t(3, dtype="f32"), t(HISTORY, 3, dtype="f32")
    s2, h2 = t(2, dtype="f32"), t(HISTORY, 2, dtype="f32")
    upd = "margin = 0 : i64, amax_compute_algo = #teq.amax_compute_algo<max>"
    out.append(f"""
  func.func @fwd_delayed_{sfx}(%x: {x}, %w: {w}, %s: {s3}, %h: {h3}) -> ({y}, {s3}, {h3}) {{
    %y, %h1 = teq.autocast recipe({r}) -> {y}, {h3} {{
      %out, %hh = teq.linear_forward %x, %w state(%s, %h : {s3}, {h3}) config(#teq.linear<name = "fc">)
          : {x}, {w} -> {y} updated_amax_history({h3})
      teq.yield %out, %hh : {y}, {h3}
    }}
    %s2, %h2 = teq.delayed_scaling_update %s, %h1 {{fp8_dtype = f8E4M3FN, {upd}}} : {s3}, {h3}
    return %y, %s2, %h2 : {y}, {s3}, {h3}
  }}
  func.func @fwdbwd_delayed_{sfx}(%x: {x}, %w: {w}, %dy: {y}, %s: {s3}, %h: {h3}, %bs: {s2}, %bh: {h2})
      -> ({y}, {dx}, {dw}, {s3}, {h3}, {s2}, {h2}) {{
    %y, %dx, %dw, %h1, %bh1 = teq.autocast recipe({r}) -> {y}, {dx}, {dw}, {h3}, {h2} {{
      %out, %sx, %sw, %hh = teq.linear_forward %x, %w state(%s, %h : {s3}, {h3}) config(#teq.linear<name = "fc">)
          : {x}, {w} -> {y} saved_input({x}) saved_weight({w}) updated_amax_history({h3})
      %gx, %gw, %bhh = teq.linear_backward %dy, %sx, %sw state(%bs, %bh : {s2}, {h2}) config(#teq.linear<name = "fc">)
          : {y}, {x}, {w} dgrad({dx}) wgrad({dw}) updated_amax_history({h2})
      teq.yield %out, %gx, %gw, %hh, %bhh : {y}, {dx}, {dw}, {h3}, {h2}
    }}
    %s2, %h2 = teq.delayed_scaling_update %s, %h1 {{fp8_dtype = f8E4M3FN, {upd}}} : {s3}, {h3}
    %bs2, %bh2 = teq.delayed_scaling_update %bs, %bh1 {{fp8_dtype = f8E5M2, {upd}}} : {s2}, {h2}
    return %y, %dx, %dw, %s2, %h2, %bs2, %bh2 : {y}, {dx}, {dw}, {s3}, {h3}, {s2}, {h2}
  }}""")
    q = "#teq.float8_current_scaling_quantizer<f8E4M3FN>"
    pw = f"!teq.proto<{n}x{k}xbf16, {q}, rowwise>"
    px = f"!teq.proto<{m}x{k}xbf16, {q}, rowwise>"
    out.append(f"""
  func.func @gemm_current_{sfx}(%wq: {pw}, %xq: {px}) -> {y} {{
    %y = teq.gemm TN %wq, %xq {{kind = #teq.gemm_kind<fprop>, physical_layout = #teq.gemm_layout<TN>, use_split_accumulator = false}}
        : {pw}, {px} -> {y}
    return %y : {y}
  }}""")
    return "".join(out)


def update_entry():
    s3, h3 = t(3, dtype="f32"), t(HISTORY, 3, dtype="f32")
    upd = "margin = 0 : i64, amax_compute_algo = #teq.amax_compute_algo<max>"
    return f"""
  // DelayedScaling's update step alone (the forward's three slots).
  func.func @update_delayed(%s: {s3}, %h: {h3}) -> ({s3}, {h3}) {{
    %s2, %h2 = teq.delayed_scaling_update %s, %h {{fp8_dtype = f8E4M3FN, {upd}}} : {s3}, {h3}
    return %s2, %h2 : {s3}, {h3}
  }}"""


HOST_COST_SIZE = 256


def host_cost_module():
    n = HOST_COST_SIZE
    q = "#teq.float8_current_scaling_quantizer<f8E4M3FN>"
    x, p = t(n, n), f"!teq.proto<{n}x{n}xbf16, {q}, rowwise|columnwise>"
    quantize = f"""
  func.func @quantize_current_{n}x{n}(%x: {x}) -> {p} {{
    %q = teq.quantize %x : {x} -> {p}
    return %q : {p}
  }}"""
    return (
        "// Generated by `python3 bench/programs.py host_cost` (edit that script, not\n"
        "// this file). The host-cost benchmark's entries (bench/host_cost): one GEMM,\n"
        "// a quantize, Linear forward and forward + backward, the delayed-scaling\n"
        f"// update, at {n}x{n}x{n} so that the host, not the GPU, bounds a call.\n"
        "// scripts/gpu-prepare compiles it to .artifacts/host_cost.so.\n"
        "module attributes {teq.target = #teq.target<sm_90>} {"
        + linear_entries(n, n, n) + quantize + update_entry() + "\n}\n")


def linear_module():
    body = "".join(linear_entries(*s) for s in LINEAR_SIZES) + update_entry()
    return (
        "// Generated by `python3 bench/programs.py linear` (edit that script, not this\n"
        "// file). The Linear benchmark's entries (bench/linear_bench.py): one TE\n"
        "// Linear at each size under Float8CurrentScaling, Float8BlockScaling and\n"
        f"// DelayedScaling (history {HISTORY}, its state update in the entry), and the\n"
        "// FP8 fprop GEMM alone. scripts/gpu-prepare compiles it to .artifacts/linear.so.\n"
        "module attributes {teq.target = #teq.target<sm_90>} {"
        + body + "\n}\n")


# GELU (TE's tanh form, its default activation) is teq.activation gelu: the
# compiler derives the backward (teq-decompose-activations, TE's formulas in
# f32, rounded once) and fuses each direction into one kernel; the backward
# reads the pre-activation h.
def gelu_forward(i, h):
    return f"      %a{i} = teq.activation gelu %h{i} : {h} -> {h}"


def gelu_backward(i, h):
    return f"      %dh{i} = teq.activation_backward gelu %da{i}, %h{i} : {h}, {h}"


def tanh_backward(i, h):
    return f"""      %p{i} = arith.mulf %da{i}, %a{i} : {h}
      %q{i} = arith.mulf %p{i}, %a{i} : {h}
      %dh{i} = arith.subf %da{i}, %q{i} : {h}"""


def mlp_body(name, layers, tokens, hidden, ffn, recipe="current",
             activation="tanh"):
    """One entry: `layers` blocks fc1 -> activation (tanh or gelu) -> fc2,
    forward then backward. Arguments x, w1_0, w2_0, ..., dy; results y, dx,
    dw1_0, dw2_0, ..."""
    x, h, w1, w2 = t(tokens, hidden), t(tokens, ffn), t(ffn, hidden), t(hidden, ffn)
    args = [f"%x: {x}"]
    for i in range(layers):
        args += [f"%w1_{i}: {w1}", f"%w2_{i}: {w2}"]
    args.append(f"%dy: {x}")
    res_types = [x, x] + [w1, w2] * layers
    lines = []
    cur = "%x"
    for i in range(layers):
        lines.append(f"""      %h{i}, %s1x{i}, %s1w{i} = teq.linear_forward {cur}, %w1_{i} config(#teq.linear<name = "fc1_{i}">)
          : {x}, {w1} -> {h} saved_input({x}) saved_weight({w1})
{gelu_forward(i, h) if activation == "gelu" else f"      %a{i} = math.tanh %h{i} : {h}"}
      %o{i}, %s2x{i}, %s2w{i} = teq.linear_forward %a{i}, %w2_{i} config(#teq.linear<name = "fc2_{i}">)
          : {h}, {w2} -> {x} saved_input({h}) saved_weight({w2})""")
        cur = f"%o{i}"
    grad = "%dy"
    for i in reversed(range(layers)):
        lines.append(f"""      %da{i}, %gw2_{i} = teq.linear_backward {grad}, %s2x{i}, %s2w{i} config(#teq.linear<name = "fc2_{i}">)
          : {x}, {h}, {w2} dgrad({h}) wgrad({w2})
{gelu_backward(i, h) if activation == "gelu" else tanh_backward(i, h)}
      %gx{i}, %gw1_{i} = teq.linear_backward %dh{i}, %s1x{i}, %s1w{i} config(#teq.linear<name = "fc1_{i}">)
          : {h}, {x}, {w1} dgrad({x}) wgrad({w1})""")
        grad = f"%gx{i}"
    results = [cur, grad] + [v for i in range(layers) for v in (f"%gw1_{i}", f"%gw2_{i}")]
    names = ", ".join(f"%r{k}" for k in range(len(results)))
    types = ", ".join(res_types)
    return f"""
  // {layers} x (fc1 [{hidden}->{ffn}] -> {activation} -> fc2 [{ffn}->{hidden}]), {tokens} tokens, forward + backward.
  func.func @{name}({', '.join(args)})
      -> ({types}) {{
    {names} = teq.autocast recipe({RECIPES[recipe]}) -> {types} {{
{chr(10).join(lines)}
      teq.yield {', '.join(results)} : {types}
    }}
    return {names} : {types}
  }}"""


def mlp_module():
    body = "".join(mlp_body(f"mlp_current_{tk}_{hd}_{ff}", 1, tk, hd, ff)
                   for tk, hd, ff in MLP_SHAPES)
    body += "".join(mlp_body(f"mlp_gelu_current_{tk}_{hd}_{ff}", 1, tk, hd, ff,
                             activation="gelu")
                    for tk, hd, ff in MLP_SHAPES)
    return (
        "// Generated by `python3 bench/programs.py mlp` (edit that script, not this\n"
        "// file). A TE-like MLP block, fc1 -> activation -> fc2, forward + backward\n"
        "// in one entry, Float8CurrentScaling (bench/mlp_bench.py): mlp_current_* with\n"
        "// tanh (backward dh = da - (da * a) * a), mlp_gelu_current_* with GELU's tanh\n"
        "// approximation in f32. scripts/gpu-prepare compiles it to .artifacts/mlp.so.\n"
        "module attributes {teq.target = #teq.target<sm_90>} {"
        + body + "\n}\n")


def stack_module(layers, tokens, hidden, ffn, activation="tanh"):
    return (
        f"// Generated by `python3 bench/programs.py stack --layers {layers} --tokens {tokens} "
        f"--hidden {hidden} --ffn {ffn} --activation {activation}`:\n"
        "// issue 16 part 4's stack of identical MLP blocks in one entry.\n"
        "module attributes {teq.target = #teq.target<sm_90>} {"
        + mlp_body(f"stack_{layers}", layers, tokens, hidden, ffn,
                   activation=activation) + "\n}\n")


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("what", choices=["linear", "mlp", "host_cost", "stack",
                                         "check"])
    parser.add_argument("--layers", type=int, default=24)
    parser.add_argument("--tokens", type=int, default=8192)
    parser.add_argument("--hidden", type=int, default=4096)
    parser.add_argument("--ffn", type=int, default=16384)
    parser.add_argument("--activation", choices=["tanh", "gelu"], default="tanh")
    parser.add_argument("-o", "--output", default="-")
    args = parser.parse_args()
    if args.what == "check":
        here = os.path.dirname(os.path.abspath(__file__))
        stale = []
        for name, make in (("linear", linear_module), ("mlp", mlp_module),
                           ("host_cost", host_cost_module)):
            with open(os.path.join(here, f"{name}.mlir")) as f:
                if f.read() != make():
                    stale.append(name)
        for name in stale:
            print(f"bench/{name}.mlir is not what `python3 bench/programs.py {name}` writes")
        return 1 if stale else 0
    if args.what == "linear":
        text = linear_module()
    elif args.what == "mlp":
        text = mlp_module()
    elif args.what == "host_cost":
        text = host_cost_module()
    else:
        if args.layers < 1:
            parser.error("--layers must be >= 1")
        text = stack_module(args.layers, args.tokens, args.hidden, args.ffn,
                            args.activation)
    if args.output == "-":
        sys.stdout.write(text)
    else:
        with open(args.output, "w") as f:
            f.write(text)
    return 0


if __name__ == "__main__":
    sys.exit(main())
