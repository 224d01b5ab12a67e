#!/usr/bin/env python3
"""Compiles a Linear forward + backward of every recipe for every GPU
`te-compile --list-targets` names, to PTX (and checks it with ptxas where
the toolkit knows the architecture).

A recipe TE supports on a target (te-semantics.md §2) must compile; one it
does not support must be refused with TE's message; anything else (a crash,
an LLVM error, another refusal) fails the test. The only other refusal
allowed is KNOWN_GAPS: TE runs it, TEQ does not lower it yet, and says so.

  compile_every_target.py TE_COMPILE WORKDIR [--ptxas PTXAS|auto]
  compile_every_target.py --check-ptx WORKDIR --ptxas PTXAS|auto

The second form runs ptxas over the PTX a first run left in WORKDIR (the GPU
machine has the CUDA toolkit but no MLIR: scripts/gpu-prepare compiles,
scripts/gpu-check checks).
"""
import argparse
import glob
import os
import re
import shutil
import subprocess
import sys

SHAPES = dict(m=128, k=256, n=384)

def linear_program(recipe, delayed=False, rng=False):
    m, k, n = SHAPES["m"], SHAPES["k"], SHAPES["n"]
    x, w, y = f"tensor<{m}x{k}xbf16>", f"tensor<{n}x{k}xbf16>", f"tensor<{m}x{n}xbf16>"
    args = [f"%x: {x}", f"%w: {w}", f"%dy: {y}"]
    fwd_state = bwd_state = ""
    fwd_hist = bwd_hist = ""
    extra_types = []
    if delayed:
        args += ["%fs: tensor<3xf32>", "%fh: tensor<4x3xf32>",
                 "%bs: tensor<2xf32>", "%bh: tensor<4x2xf32>"]
        fwd_state = "state(%fs, %fh : tensor<3xf32>, tensor<4x3xf32>) "
        bwd_state = "state(%bs, %bh : tensor<2xf32>, tensor<4x2xf32>) "
        fwd_hist = " updated_amax_history(tensor<4x3xf32>)"
        bwd_hist = " updated_amax_history(tensor<4x2xf32>)"
        extra_types = ["tensor<4x3xf32>", "tensor<4x2xf32>"]
    rng_arg = ""
    if rng:
        args.append("%rng: tensor<2xi64>")
        rng_arg = "rng_state(%rng : tensor<2xi64>) "
    fwd_results = "%out, %sx, %sw" + (", %h1" if delayed else "")
    bwd_results = "%gx, %gw" + (", %h2" if delayed else "")
    results = [y, x, w] + extra_types
    yields = "%out, %gx, %gw" + (", %h1, %h2" if delayed else "")
    return f"""func.func @linear({', '.join(args)}) -> ({', '.join(results)}) {{
  %r:{len(results)} = teq.autocast recipe({recipe}) -> {', '.join(results)} {{
    {fwd_results} = teq.linear_forward %x, %w {fwd_state}config(#teq.linear<>) : {x}, {w} -> {y} saved_input({x}) saved_weight({w}){fwd_hist}
    {bwd_results} = teq.linear_backward %dy, %sx, %sw {bwd_state}{rng_arg}config(#teq.linear<>) : {y}, {x}, {w} dgrad({x}) wgrad({w}){bwd_hist}
    teq.yield {yields} : {', '.join(results)}
  }}
  return {', '.join(f'%r#{i}' for i in range(len(results)))} : {', '.join(results)}
}}
"""

# name -> (program, does TE support it on sm (te-semantics.md §2)?)
RECIPES = {
    "delayed": (linear_program("#teq.delayed_scaling<amax_history_len = 4>", delayed=True),
                lambda sm: sm >= 89),
    "current": (linear_program("#teq.float8_current_scaling<>"), lambda sm: sm >= 89),
    "block": (linear_program("#teq.float8_block_scaling<>"), lambda sm: sm >= 90),
    "mxfp8": (linear_program("#teq.mxfp8_block_scaling<>"), lambda sm: 100 <= sm < 120),
    "nvfp4": (linear_program("#teq.nvfp4_block_scaling<>", rng=True), lambda sm: sm >= 100),
    # CustomRecipes: E5M2 gradients, E4M3 elsewhere.
    "custom": (linear_program(
        "#teq.custom_recipe<[<tensor_type = grad_output> -> #teq.float8_current_scaling_quantizer<f8E5M2>, "
        "<> -> #teq.float8_current_scaling_quantizer<f8E4M3FN>]>"),
        lambda sm: sm >= 89),
    "custom_mxfp8": (linear_program(
        "#teq.custom_recipe<[<tensor_type = grad_output> -> #teq.mxfp8_quantizer<f8E5M2>, "
        "<> -> #teq.mxfp8_quantizer<f8E4M3FN>]>"),
        lambda sm: 100 <= sm < 120),
}

# TE runs these; TEQ refuses them with this message until they are lowered.
KNOWN_GAPS = {
    # FP8 block scaling on Blackwell runs as MXFP8 after a scale conversion
    # (te-semantics.md §6.2) that TEQ does not lower yet.
    ("block", "blackwell"): "run as MXFP8 after a scale conversion that has no lowering yet",
}

# Where TE refuses, the message it gives (te-semantics.md §2).
TE_REFUSAL = re.compile(r"is not supported on sm_\d+[af]?: ")

CRASH = re.compile(r"LLVM ERROR|PLEASE submit a bug report|Stack dump|Assertion")


_PTXAS_HELP = {}


def ptxas_arch_supported(ptxas, chip):
    if ptxas not in _PTXAS_HELP:
        _PTXAS_HELP[ptxas] = subprocess.run([ptxas, "--help"], capture_output=True,
                                            text=True).stdout
    return re.search(r"\b" + chip + r"\b", _PTXAS_HELP[ptxas]) is not None


def find_ptxas(option):
    if option != "auto":
        return option
    path = shutil.which("ptxas")
    if not path and os.path.exists("/usr/local/cuda/bin/ptxas"):
        path = "/usr/local/cuda/bin/ptxas"
    return path


def check_ptx(workdir, ptxas):
    """ptxas over every <recipe>-<chip>.ptx in workdir."""
    checked = skipped = failures = 0
    for ptx in sorted(glob.glob(os.path.join(workdir, "*-sm_*.ptx"))):
        chip = re.search(r"-(sm_\d+[af]?)\.ptx$", ptx).group(1)
        if not ptxas_arch_supported(ptxas, chip):
            skipped += 1
            print(f"{os.path.basename(ptx)}: skipped, this ptxas has no {chip}")
            continue
        run = subprocess.run([ptxas, "-arch=" + chip, ptx, "-o", os.devnull],
                             capture_output=True, text=True)
        checked += 1
        if run.returncode != 0:
            failures += 1
            print(f"{os.path.basename(ptx)}: ptxas FAILED\n{run.stderr}", file=sys.stderr)
    print(f"ptxas: {checked} PTX files checked, {failures} failures, "
          f"{skipped} for architectures this ptxas does not know")
    return 1 if failures or not checked else 0


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("te_compile", nargs="?")
    parser.add_argument("workdir")
    parser.add_argument("--ptxas")
    parser.add_argument("--check-ptx", action="store_true")
    args = parser.parse_args()
    ptxas = find_ptxas(args.ptxas) if args.ptxas else None
    if args.check_ptx:
        if not ptxas:
            print("--check-ptx needs ptxas (--ptxas PATH or auto)", file=sys.stderr)
            return 2
        return check_ptx(args.workdir, ptxas)
    if not args.te_compile:
        parser.error("TE_COMPILE is required")
    os.makedirs(args.workdir, exist_ok=True)
    listing = subprocess.run([args.te_compile, "--list-targets"], check=True,
                             capture_output=True, text=True).stdout.split("\n")
    targets = [line.split()[0] for line in listing if line.strip()]
    sources = {}
    for name, (program, _) in RECIPES.items():
        path = os.path.join(args.workdir, name + ".mlir")
        with open(path, "w") as f:
            f.write(program)
        sources[name] = path
    failures = 0
    for chip in targets:
        sm = int(re.match(r"sm_(\d+)", chip).group(1))
        outcome = []
        for name, (_, te_supports) in RECIPES.items():
            ptx = os.path.join(args.workdir, f"{name}-{chip}.ptx")
            run = subprocess.run([args.te_compile, sources[name], "--target=" + chip,
                                  "--emit=ptx", "-o", ptx],
                                 capture_output=True, text=True, timeout=120)
            err = run.stderr
            family = "blackwell" if sm >= 100 else "other"
            gap = KNOWN_GAPS.get((name, family))
            if CRASH.search(err) or run.returncode not in (0, 1):
                verdict = f"CRASH (exit {run.returncode})"
            elif te_supports(sm) and gap is None:
                verdict = "compiled" if run.returncode == 0 else "FAILED to compile"
            elif te_supports(sm):
                verdict = ("refused (known gap)" if run.returncode == 1 and gap in err
                           else "UNEXPECTED: " + ("compiled; update KNOWN_GAPS"
                                                  if run.returncode == 0 else "other error"))
            else:
                verdict = ("refused as TE does" if run.returncode == 1 and TE_REFUSAL.search(err)
                           else "UNEXPECTED: " + ("compiled" if run.returncode == 0
                                                  else "refused without TE's message"))
            if verdict == "compiled" and ptxas and ptxas_arch_supported(ptxas, chip):
                check = subprocess.run([ptxas, "-arch=" + chip, ptx, "-o", os.devnull],
                                       capture_output=True, text=True)
                if check.returncode != 0:
                    verdict = "PTXAS FAILED"
                    err = check.stderr
                else:
                    verdict = "compiled, ptxas OK"
            bad = verdict.isupper() or verdict.startswith(("CRASH", "FAILED", "UNEXPECTED", "PTXAS"))
            if bad:
                failures += 1
                print(f"{chip} {name}: {verdict}\n{err}", file=sys.stderr)
            outcome.append(f"{name}={verdict}")
        print(f"{chip}: " + ", ".join(outcome))
    print(f"{len(targets)} targets x {len(RECIPES)} recipes, {failures} failures")
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
