#!/usr/bin/python3
"""teq-fuzz: a crash fuzzer for te-opt and te-compile (Python 3, stdlib only).

Generates teq programs and runs each through te-opt pass pipelines and
te-compile (every --emit kind), and reports every crash: a signal, an exit
code other than 0 or 1, "LLVM ERROR", "PLEASE submit a bug report", a stack
dump, assertion or sanitizer text, or a timeout. Rejecting a program with a
diagnostic and exit code 1 is not a crash: that is what bad input should get.

Programs come from two generators:

  structured  well-typed programs built from the dialect's grammar: random
              targets (every chip the verifier accepts, and some it does not),
              shapes (ragged, aligned, zero-sized, dynamic, huge), dtypes,
              quantizers with random fields, usages and scale layouts,
              recipes (all six, custom ones with random rules), Linear
              configs (bias, TP/SP, main_grad, dgrad/wgrad, save_original_input),
              nested autocast regions, forward/backward pairs, GEMMs,
              delayed-scaling state and updates, collectives and elementwise
              arith/math ops. Most verify; a few fields are deliberately
              off so that the verifiers and checks are exercised too.
  mutate      textual mutations (dimensions, keywords, integers, booleans,
              SSA uses, deleted/duplicated/swapped lines, spliced fragments)
              of the lit tests and examples (test/, examples/) and of
              structured programs.

Everything is deterministic from --seed: program I of seed S is always the same
text and gets the same tool invocations, so `--seed S --only I` reproduces one
program. Each crash is printed with its seed, program index, command and
signature, and its input is saved under <out>/crashes/ (the first few per
signature; the signature is the assertion / error line or the top frames).

  teq-fuzz.py --seed 1 --count 300                # ~300 programs
  teq-fuzz.py --seed 7 --time 1200 --all-emits    # 20 minutes, every --emit
  teq-fuzz.py --seed 7 --only 4711 --keep         # rerun one program, keep files

Exit status: 0 without crashes, 1 with crashes, 2 on usage errors.
"""

import argparse
import concurrent.futures
import hashlib
import os
import random
import re
import shutil
import subprocess
import sys
import tempfile
import threading
import time

HERE = os.path.dirname(os.path.abspath(__file__))
SRC_ROOT = os.path.dirname(os.path.dirname(HERE))

# ---------------------------------------------------------------------------
# Vocabulary
# ---------------------------------------------------------------------------

# Chips the verifier accepts (sm_70 .. sm_130, suffix "", a or f), weighted
# toward those TEQ generates code for; a few the verifier rejects.
TARGETS_COMMON = ["sm_89", "sm_90", "sm_90a", "sm_100", "sm_100a", "sm_100f",
                  "sm_101", "sm_101a", "sm_103", "sm_103a", "sm_103f",
                  "sm_110", "sm_110a", "sm_120", "sm_120a", "sm_121",
                  "sm_121a"]
TARGETS_RARE = ["sm_70", "sm_75", "sm_80", "sm_86", "sm_87", "sm_89a",
                "sm_89f", "sm_90f", "sm_95", "sm_100f", "sm_120f", "sm_130",
                "sm_130a", "sm_101f", "sm_110f"]
TARGETS_INVALID = ["sm_60", "sm_131", "sm_90b", "sm_", "sm_9x", "gfx90a",
                   "sm_4294967386", "sm_0100"]
CUDA_VERSIONS = ["12.0", "12.1", "12.4", "12.8", "12.9", "13.0", "13.1",
                 "11.8"]
CUDA_INVALID = ["12", "12.10", "012.9", "a.b", "", "12.9.1", "-1.0"]

HP_DTYPES = ["bf16", "bf16", "bf16", "f16", "f32"]
BAD_DTYPES = ["f64", "i32", "f8E4M3FN", "i8", "complex<f32>", "f8E5M2",
              "index", "tf32"]
FP8_TYPES = ["f8E4M3FN", "f8E5M2"]
FP8_BAD = ["f8E4M3FNUZ", "f8E5M2FNUZ", "f4E2M1FN", "bf16", "i8", "f8E8M0FNU",
           "f8E4M3"]
FORMATS = ["E4M3", "HYBRID", "E5M2", "E2M1"]
USAGES = ["rowwise", "columnwise", "rowwise|columnwise"]
BOOLS = ["true", "false"]

# Dimension values: TE's alignments, ragged sizes, edge cases.
DIMS_COMMON = [16, 32, 64, 128, 128, 256, 256, 512, 1024]
DIMS_RAGGED = [1, 2, 3, 8, 15, 17, 24, 31, 33, 48, 96, 100, 127, 129, 130,
               160, 192, 200, 255, 257, 384, 640, 1000]
DIMS_EDGE = [0, 1, 4096, 8192, 65536, 2147483647, 2147483648, 4294967296,
             9223372036854775807]

ELEMENTWISE_UNARY = ["math.tanh", "math.exp", "math.absf", "arith.negf",
                     "math.sqrt", "math.erf", "math.log", "math.rsqrt",
                     "math.sin", "math.floor", "math.exp2", "math.log1p"]
ELEMENTWISE_BINARY = ["arith.addf", "arith.subf", "arith.mulf", "arith.divf",
                      "arith.maximumf", "arith.minimumf", "math.powf",
                      "arith.maxnumf", "arith.remf", "math.atan2",
                      "math.copysign"]


class Gen:
    """Random choices with a few helpers."""

    def __init__(self, rng):
        self.r = rng
        # Most programs are meant to verify; a sloppy one gets deliberate
        # mistakes (wrong fields, types, operands) so that the verifiers
        # and checks are exercised too.
        self.sloppy = rng.random() < 0.3

    def bad(self, prob):
        """True with probability `prob` in a sloppy program, else never."""
        return self.sloppy and self.r.random() < prob

    def p(self, prob):
        return self.r.random() < prob

    def pick(self, seq):
        return self.r.choice(seq)

    def int(self, a, b):
        return self.r.randint(a, b)

    # -- attributes ---------------------------------------------------------

    def target_chip(self):
        x = self.r.random()
        if x < 0.80:
            return self.pick(TARGETS_COMMON)
        if x < 0.95:
            return self.pick(TARGETS_RARE)
        if x < 0.98 or not self.sloppy:
            return "sm_%d%s" % (self.int(70, 130), self.pick(["", "a", "f"]))
        return self.pick(TARGETS_INVALID)

    def target_attr(self, chip=None):
        chip = chip or self.target_chip()
        if self.p(0.7):
            return "#teq.target<%s>" % chip
        cuda = self.pick(CUDA_INVALID) if self.bad(0.1) else self.pick(CUDA_VERSIONS)
        return '#teq.target<%s, cuda = "%s">' % (chip, cuda)

    def dim(self, align=1):
        x = self.r.random()
        if x < 0.75:
            d = self.pick(DIMS_COMMON)
        elif x < 0.97:
            d = self.pick(DIMS_RAGGED)
        else:
            d = self.pick(DIMS_EDGE)
        if align > 1 and self.p(0.85):
            d = max(align, (d + align - 1) // align * align) if d < 1 << 20 else d
        return d

    def shape(self, rank=None, align=1):
        rank = rank if rank is not None else self.pick([1, 2, 2, 2, 2, 3, 3, 4])
        return [self.dim(align) for _ in range(rank)]

    def hp_dtype(self):
        return self.pick(BAD_DTYPES) if self.bad(0.05) else self.pick(HP_DTYPES)

    def fp8(self):
        if self.bad(0.05):
            return self.pick(FP8_BAD)
        return "f8E4M3FN" if self.p(0.7) else "f8E5M2"

    def fields(self, items):
        """`a = b, c = d` from (name, value) pairs, each kept at random, in a
        random order (struct() accepts any)."""
        kept = [(k, v) for k, v in items if self.p(0.5)]
        if self.p(0.3):
            self.r.shuffle(kept)
        return ", ".join("%s = %s" % kv for kv in kept)

    def epsilon(self):
        return self.pick(["0.0", "1.0e-06", "1.0e-12", "0.5", "1.0",
                          "-0.0", "-1.0", "1.0e+38", "3.4e+39"]) \
            if self.p(0.4) else "0.0"

    def quantizer(self, kind=None, consistent=0.7):
        """A quantizer attribute (text) and its kind."""
        kind = kind or self.pick(["float8", "current", "current", "block",
                                  "block", "mxfp8", "mxfp8", "nvfp4", "nvfp4",
                                  "nvfp4"])
        ok = not self.bad(1 - consistent)
        if kind == "float8":
            return "#teq.float8_quantizer<%s>" % self.fp8(), kind
        if kind == "current":
            f = self.fields([("with_amax_reduction", self.pick(BOOLS) if not ok else "false"),
                             ("force_pow_2_scales", self.pick(BOOLS)),
                             ("amax_epsilon", self.epsilon() if not ok else
                              self.pick(["0.0", "1.0e-06", "0.5"]))])
            return "#teq.float8_current_scaling_quantizer<%s%s>" % (
                self.fp8(), ", " + f if f else ""), kind
        if kind == "block":
            dim = self.pick(["1", "2"]) if ok else self.pick(["0", "3", "-1", "1", "2"])
            f = self.fields([("block_scaling_dim", dim),
                             ("force_pow_2_scales", self.pick(BOOLS)),
                             ("amax_epsilon", self.epsilon() if not ok else "0.0")])
            if not ok and self.p(0.05):
                f = (f + ", " if f else "") + "block_len = 64"
            return "#teq.float8_block_quantizer<%s%s>" % (
                self.fp8(), ", " + f if f else ""), kind
        if kind == "mxfp8":
            f = self.fields([("with_2d_quantization", self.pick(BOOLS))])
            return "#teq.mxfp8_quantizer<%s%s>" % (self.fp8(), ", " + f if f else ""), kind
        # nvfp4: mostly the combinations the verifier and lowering accept.
        rht = self.p(0.35)
        sr = self.p(0.3)
        two_d = self.p(0.3) and not rht
        items = []
        if rht:
            items += [("with_rht", "true"), ("with_post_rht_amax", "true")]
            if self.p(0.2):
                items.append(("with_random_sign_mask", self.pick(BOOLS)))
        if sr:
            items.append(("stochastic_rounding", "true"))
        if two_d:
            items.append(("with_2d_quantization", "true"))
        if not ok:
            items += [(k, self.pick(BOOLS)) for k in
                      self.r.sample(["with_amax_reduction", "with_rht",
                                     "with_post_rht_amax", "row_scaled_nvfp4",
                                     "nvfp4_use_4over6",
                                     "with_random_sign_mask"], 2)]
            if self.p(0.3):
                items.append(("nvfp4_e4m3_max", self.pick(["256", "448", "0", "-448"])))
            if self.p(0.3):
                items.append(("nvfp4_4over6_err_mode", self.pick(["MAE", "MSE", "MXE"])))
        seen = {}
        for k, v in items:
            seen[k] = v
        items = list(seen.items())
        if self.p(0.3):
            self.r.shuffle(items)
        dt = self.fp8() if self.bad(0.1) else "f4E2M1FN"
        f = ", ".join("%s = %s" % kv for kv in items)
        return "#teq.nvfp4_quantizer<%s%s>" % (dt, ", " + f if f else ""), kind

    def usage(self):
        return self.pick(["none", "rowwise|rowwise", "both"]) if self.bad(0.05) else self.pick(USAGES)

    def proto(self, shape, dtype, quantizer, qkind, usage=None, layout=None):
        usage = usage or self.usage()
        if layout is None:
            if qkind in ("mxfp8", "nvfp4"):
                layout = self.pick(["", "", ", gemm_swizzled", ", compact"])
            else:
                layout = ", gemm_swizzled" if self.bad(0.1) else ""
        return "!teq.proto<%s, %s, %s%s>" % (shape_str(shape, dtype), quantizer, usage, layout)

    def mm(self, ok=True):
        return "<use_split_accumulator = %s>" % self.pick(BOOLS)

    def recipe(self, chip=None, consistent=0.7):
        """A recipe attribute as a dict: text, kind and what the generator
        needs to know (amax_history_len, stochastic grad_output, ...);
        mostly one the chip supports."""
        if chip and self.p(0.85):
            kind = self.pick(recipe_kinds_for(chip))
        else:
            kind = self.pick(["delayed", "current", "current", "block", "mxfp8",
                              "mxfp8", "nvfp4", "nvfp4", "custom", "custom"])
        qkinds = [k for k in quantizer_kinds_for(chip) if k != "float8"] \
            if chip and self.p(0.85) else ["current", "block", "mxfp8", "nvfp4"]
        ok = not self.bad(1 - consistent)
        info = {"kind": kind, "hist": 1024}
        bo = ("backward_override", self.pick(["none", "high_precision", "dequantized"])
              if not ok and self.p(0.3) else "none")
        fmt_ok = self.pick(["E4M3", "HYBRID"])
        fmt = ("fp8_format", fmt_ok if ok else self.pick(FORMATS))
        if kind == "delayed":
            hist = self.pick([1, 2, 16, 1024]) if ok else self.pick([0, -1, 1, 5, 1 << 20])
            info["hist"] = hist
            f = self.fields([("margin", str(self.pick([0, 1, -3, 2]) if ok else self.pick([-101, 101, 0, 64]))),
                             fmt, ("amax_history_len", str(hist)),
                             ("amax_compute_algo", self.pick(["max", "most_recent"])),
                             ("reduce_amax", self.pick(BOOLS)),
                             ("fp8_dpa", self.pick(BOOLS)), ("fp8_mha", self.pick(BOOLS)),
                             bo])
            if "amax_history_len" not in f:
                info["hist"] = 1024
            info["text"] = "#teq.delayed_scaling<%s>" % f
        elif kind == "current":
            f = self.fields([("use_power_2_scales", self.pick(BOOLS)), fmt,
                             ("fp8_gemm_fprop", self.mm()), ("fp8_gemm_dgrad", self.mm()),
                             ("fp8_gemm_wgrad", self.mm()),
                             ("fp8_dpa", self.pick(BOOLS)), ("fp8_mha", self.pick(BOOLS)), bo])
            info["text"] = "#teq.float8_current_scaling<%s>" % f
        elif kind == "block":
            dims = self.pick([(1, 2, 1), (1, 1, 1), (2, 1, 1), (1, 1, 2)]) if ok else \
                (self.int(0, 3), self.int(0, 3), self.int(0, 3))
            mm = "<use_split_accumulator = true>" if ok else self.mm()
            f = self.fields([("use_f32_scales", self.pick(BOOLS)),
                             ("fp8_format", "E4M3" if ok else self.pick(FORMATS)),
                             ("x_block_scaling_dim", str(dims[0])),
                             ("w_block_scaling_dim", str(dims[1])),
                             ("grad_block_scaling_dim", str(dims[2])),
                             ("fp8_gemm_fprop", mm), ("fp8_gemm_dgrad", mm),
                             ("fp8_gemm_wgrad", mm), bo])
            if re.search(r"x_block_scaling_dim = 2", f) is None and "w_block" not in f:
                pass
            info["text"] = "#teq.float8_block_scaling<%s>" % f
        elif kind == "mxfp8":
            f = self.fields([("margin", str(self.pick([0, 1]))), fmt,
                             ("enable_2d_quantization", self.pick(BOOLS)),
                             ("fp8_dpa", self.pick(BOOLS)), bo])
            info["text"] = "#teq.mxfp8_block_scaling<%s>" % f
        elif kind == "nvfp4":
            d_rht = self.pick(BOOLS)
            d_sr = self.pick(BOOLS)
            items = [("disable_rht", d_rht), ("disable_stochastic_rounding", d_sr),
                     ("disable_2d_quantization", self.pick(BOOLS))]
            if not ok:
                items += [("row_scaled_activation", self.pick(BOOLS)),
                          ("nvfp4_4over6", self.pick(["none", "weights", "activations", "all"])),
                          ("nvfp4_4over6_e4m3_use_256", self.pick(["none", "weights", "all"])),
                          ("nvfp4_4over6_err_mode", self.pick(["MAE", "MSE"])),
                          ("fp4_format", self.pick(FORMATS)),
                          ("fp8_format", self.pick(FORMATS)), bo]
            f = self.fields(items)
            m = re.search(r"disable_stochastic_rounding = (\w+)", f)
            info["sr"] = not (m and m.group(1) == "true")
            info["text"] = "#teq.nvfp4_block_scaling<%s>" % f
        else:
            rules = []
            hist = self.pick([1, 16, 1024])
            info["hist"] = hist
            fmt_req = self.pick(["HYBRID", "E4M3"])
            for _ in range(self.int(1, 4)):
                role = self.fields([("module_type", self.pick(['"linear"', '"grouped_linear"', '""'])),
                                    ("tensor_type", self.pick(["input", "weight", "output",
                                                               "grad_output", "grad_input"])),
                                    ("name", self.pick(['"fc1"', '"fc2"', '"proj"', '""']))])
                if self.p(0.15):
                    q = "#teq.delayed_scaling_request<%s>" % self.fields(
                        [("amax_history_len", str(hist)), ("fp8_format", fmt_req),
                         ("margin", "0")])
                    if "amax_history_len" not in q:
                        pass
                else:
                    q = self.quantizer(kind=self.pick(qkinds)
                                       if self.p(0.97) else None, consistent=0.97)[0]
                rules.append("<%s> -> %s" % (role, q))
            if self.p(0.85):
                rules.append("<> -> %s" % self.quantizer(
                    kind=self.pick(qkinds), consistent=0.97)[0])
            extra = self.fields([("fp8_format", self.pick(["HYBRID", "E4M3"]) if ok else self.pick(FORMATS)),
                                 ("quantization_alignment", str(self.pick([16, 32, 128]) if ok else self.pick([0, -16, 7, 128]))),
                                 bo])
            info["text"] = "#teq.custom_recipe<[%s]%s>" % (", ".join(rules), ", " + extra if extra else "")
            info["rules"] = rules
            info["req_hist"] = hist
        return info

    def linear_config(self, name):
        tp = 1
        mode = "none"
        if self.p(0.08):
            mode = self.pick(["column", "row"])
            tp = self.pick([2, 4, 8])
        elif self.bad(0.1):
            mode = self.pick(["column", "row"])
        cfg = {"bias": self.p(0.35), "mode": mode, "tp": tp,
               "sp": self.p(0.5) if tp > 1 else self.bad(0.1),
               "fuse": False, "dgrad": self.p(0.9), "wgrad": self.p(0.85),
               "soi": self.p(0.15), "name": name}
        cfg["fuse"] = cfg["wgrad"] and self.p(0.2)
        if self.bad(0.1):  # verifier-rejected combinations
            cfg[self.pick(["tp", "fuse"])] = self.pick([0, True, 3])
        return cfg


def chip_sm(chip):
    m = re.match(r"sm_(\d+)", chip or "")
    return int(m.group(1)) if m else 90


# What the generators draw per chip family, below each compute capability:
# the recipes TE supports there (te-semantics.md §2) and the quantizers worth
# trying. A name listed twice is drawn twice as often.
KINDS_BY_CHIP = [
    (89, ["delayed", "current", "custom"],
     ["current", "current", "float8"]),
    (90, ["delayed", "current", "current", "custom"],
     ["current", "current", "float8"]),
    (100, ["delayed", "current", "current", "block", "block", "custom", "custom"],
     ["current", "block", "block", "float8"]),
    (120, ["delayed", "current", "mxfp8", "mxfp8", "nvfp4", "nvfp4", "custom", "custom"],
     ["current", "mxfp8", "mxfp8", "nvfp4", "nvfp4", "block", "float8"]),
    (None, ["delayed", "current", "current", "nvfp4", "nvfp4", "custom"],
     ["current", "nvfp4", "nvfp4", "float8", "mxfp8"]),
]


def kinds_for(chip):
    sm = chip_sm(chip)
    return next((recipes, quantizers) for below, recipes, quantizers in KINDS_BY_CHIP
                if below is None or sm < below)


def recipe_kinds_for(chip):
    """Recipes TE supports on the chip (te-semantics.md §2)."""
    return kinds_for(chip)[0]


def quantizer_kinds_for(chip):
    return kinds_for(chip)[1]


def shape_str(shape, dtype):
    return "x".join(["?" if d is None else str(d) for d in shape] + [dtype])


def tensor(shape, dtype):
    return "tensor<%s>" % shape_str(shape, dtype)


def config_text(cfg):
    parts = []
    if cfg["bias"]:
        parts.append("bias = true")
    if cfg["mode"] != "none":
        parts.append("parallel_mode = %s" % cfg["mode"])
    if cfg["sp"]:
        parts.append("sequence_parallel = true")
    if cfg["tp"] != 1:
        parts.append("tp_size = %s" % cfg["tp"])
    if cfg["fuse"]:
        parts.append("fuse_wgrad_accumulation = true")
    if not cfg["dgrad"]:
        parts.append("requires_dgrad = false")
    if not cfg["wgrad"]:
        parts.append("requires_wgrad = false")
    if cfg["soi"]:
        parts.append("save_original_input = true")
    if cfg["name"]:
        parts.append('name = "%s"' % cfg["name"])
    return "#teq.linear<%s>" % ", ".join(parts)


# ---------------------------------------------------------------------------
# Recipe model: which quantizers a Linear resolves to (state and rng needs).
# ---------------------------------------------------------------------------

def default_recipe(chip):
    m = re.match(r"sm_(\d+)", chip or "")
    sm = int(m.group(1)) if m else 90
    if 100 <= sm < 120:
        return {"kind": "mxfp8", "hist": 1024}
    if sm >= 120:
        return {"kind": "current", "hist": 1024}
    return {"kind": "delayed", "hist": 1024}


def role_matches(rule, name, role):
    pat = rule.split(" -> ")[0]
    m = re.search(r'module_type = "([^"]*)"', pat)
    if m and m.group(1) and m.group(1) != "linear":
        return False
    m = re.search(r"tensor_type = (\w+)", pat)
    if m and m.group(1) != role:
        return False
    m = re.search(r'name = "([^"]*)"', pat)
    if m and m.group(1) and m.group(1) != name:
        return False
    return True


def role_quantizer(recipe, name, role):
    """The text of the quantizer the recipe gives `role`, or a marker."""
    if recipe is None:
        return None
    k = recipe["kind"]
    if k == "delayed":
        return "#teq.float8_quantizer<>"
    if k == "nvfp4":
        if role == "grad_output" and recipe.get("sr", True):
            return "nvfp4 stochastic_rounding = true"
        return "nvfp4"
    if k == "custom":
        for rule in recipe["rules"]:
            if role_matches(rule, name, role):
                return rule.split(" -> ", 1)[1]
        return None
    return k


def stateful(q):
    return q is not None and ("float8_quantizer" in q or "delayed_scaling_request" in q)


def stochastic(q):
    return q is not None and "stochastic_rounding = true" in q


# ---------------------------------------------------------------------------
# Structured program generators
# ---------------------------------------------------------------------------

class Func:
    """One func.func being built: arguments, body lines, results."""

    def __init__(self, name):
        self.name = name
        self.args = []       # (ssa, type)
        self.lines = []
        self.results = []    # (ssa, type)
        self.n = 0

    def arg(self, type_, hint="a"):
        ssa = "%%%s_%d" % (hint, len(self.args))
        self.args.append((ssa, type_))
        return ssa

    def fresh(self, hint="v"):
        self.n += 1
        return "%%%s%d" % (hint, self.n)

    def text(self, extra_attrs=""):
        sig = ", ".join("%s: %s" % a for a in self.args)
        rtypes = [t for _, t in self.results]
        if len(rtypes) == 1:
            rsig = " -> " + rtypes[0]
        elif rtypes:
            rsig = " -> (" + ", ".join(rtypes) + ")"
        else:
            rsig = ""
        out = ["  func.func @%s(%s)%s%s {" % (self.name, sig, rsig, extra_attrs)]
        out += ["    " + l for l in self.lines]
        if self.results:
            out.append("    return %s : %s" % (", ".join(s for s, _ in self.results),
                                              ", ".join(rtypes)))
        else:
            out.append("    return")
        out.append("  }")
        return "\n".join(out)


def module_text(g, funcs, chip, with_target=True):
    attrs = ""
    if with_target and chip is not None:
        attrs = " attributes {teq.target = %s}" % g.target_attr(chip)
    name = " @m" if g.p(0.1) else ""
    return "module%s%s {\n%s\n}\n" % (name, attrs, "\n".join(f.text() for f in funcs))


def gen_quantize(g, chip):
    """Quantizations with random quantizers, shapes, usages and layouts, and
    what may follow them: update_usage, dequantize, a return."""
    funcs = []
    for fi in range(g.int(1, 3)):
        f = Func("q%d" % fi)
        for _ in range(g.int(1, 3)):
            q, kind = g.quantizer(kind=g.pick(quantizer_kinds_for(chip)) if g.p(0.8) else None)
            align = {"block": 128, "mxfp8": 32, "nvfp4": 32}.get(kind, 16)
            shape = g.shape(align=align if g.p(0.7) else 1)
            if g.bad(0.05):
                shape[g.int(0, len(shape) - 1)] = None
            dt = g.hp_dtype()
            if kind == "nvfp4" and "with_rht" in q and g.p(0.7):
                dt = "bf16"
            x = f.arg(tensor(shape, dt), "x")
            ptype = g.proto(shape, dt, q, kind)
            operands = ""
            rtypes = ptype
            hist_t = None
            if (kind == "float8") != g.bad(0.1):
                L = g.pick([1, 16, 1024])
                hist_t = tensor([L, 1], "f32") if g.bad(0.1) else tensor([L], "f32")
                sc = f.arg(tensor([2], "f32") if g.bad(0.1) else tensor([1], "f32"), "s")
                h = f.arg(hist_t, "h")
                operands += " state(%s, %s : tensor<1xf32>, %s)" % (sc, h, hist_t) \
                    if "tensor<1xf32>" in f.args[-2][1] else \
                    " state(%s, %s : %s, %s)" % (sc, h, f.args[-2][1], hist_t)
                rtypes += ", " + hist_t
            if ("stochastic_rounding = true" in q) != g.bad(0.1):
                rt = "tensor<3xi64>" if g.bad(0.1) else "tensor<2xi64>"
                r = f.arg(rt, "rng")
                operands += " rng_state(%s : %s)" % (r, rt)
            if ("with_amax_reduction = true" in q) != g.bad(0.1):
                pg = f.arg("!teq.process_group", "pg")
                operands += " amax_reduction_group(%s)" % pg
            v = f.fresh("q")
            if hist_t:
                hv = f.fresh("hist")
                f.lines.append("%s, %s = teq.quantize %s%s : %s -> %s" % (
                    v, hv, x, operands, tensor(shape, dt), rtypes))
                f.results.append((hv, hist_t))
            else:
                f.lines.append("%s = teq.quantize %s%s : %s -> %s" % (
                    v, x, operands, tensor(shape, dt), rtypes))
            follow = g.pick(["return"] * 6 + ["update"] * 3 + ["dequantize", "both", "none"])
            if follow in ("update", "both"):
                m = re.match(r"(!teq\.proto<.*, )(rowwise\|columnwise|rowwise|columnwise|none|both|rowwise\|rowwise)((, \w+)?>)$", ptype)
                if m:
                    held = m.group(2)
                    u2 = g.pick([u for u in USAGES if u in held or held == "rowwise|columnwise"] or USAGES) \
                        if g.p(0.8) else g.pick(USAGES)
                    t2 = m.group(1) + u2 + m.group(3)
                    v2 = f.fresh("u")
                    f.lines.append("%s = teq.update_usage %s : %s -> %s" % (v2, v, ptype, t2))
                    f.results.append((v2, t2))
            if follow in ("dequantize", "both"):
                v3 = f.fresh("d")
                dt3 = "i8" if g.bad(0.1) else g.pick(["bf16", "f32", "f16"])
                f.lines.append("%s = teq.dequantize %s : %s -> %s" % (v3, v, ptype, tensor(shape, dt3)))
                f.results.append((v3, tensor(shape, dt3)))
            if follow in ("return", "both") or (follow == "none" and g.p(0.5)):
                f.results.append((v, ptype))
        if g.p(0.05):
            q, kind = g.quantizer()
            t = g.proto(g.shape(), g.hp_dtype(), q, kind)
            v = f.fresh("c")
            f.lines.append("%s = teq.create_tensor : %s" % (v, t))
            f.results.append((v, t))
        funcs.append(f)
    return module_text(g, funcs, chip, with_target=g.p(0.9))


def gen_gemm(g, chip):
    """quantize + teq.gemm with random layouts, epilogues and operands."""
    f = Func("gemm")
    layout = g.pick(["TN", "TN", "NN", "NT", "TT"])
    m, n, k = g.dim(16), g.dim(16), g.dim(16)
    dt = g.hp_dtype()
    # A is [m, k] if transa else [k, m]; B is [n, k] if transb else [..., k].
    transa = layout in ("TN", "TT")
    transb = layout in ("NT", "TT")
    a_shape = [m, k] if transa else [k, m]
    if transb:
        b_shape = [k, n]
    else:
        b_shape = ([g.dim(16)] if g.p(0.2) else []) + [n, k]
    if g.bad(0.1):
        b_shape[-1] = g.dim()
    if g.bad(0.1):
        b_shape[0] = None
    a = f.arg(tensor(a_shape, dt), "a")
    b = f.arg(tensor(b_shape, dt), "b")
    quantized = g.p(0.75)
    if quantized:
        q, kind = g.quantizer(consistent=0.95)
        if kind in ("float8",) and g.p(0.8):
            q, kind = g.quantizer(kind=g.pick(["current", "mxfp8", "block", "nvfp4"]))
        qb = q
        if kind == "block" and g.p(0.7):
            qb = q.replace("block_scaling_dim = 2", "block_scaling_dim = 1")
        if kind in ("current", "block", "mxfp8") and g.p(0.5):
            qb = qb.replace("f8E4M3FN", "f8E5M2", 1) if g.p(0.5) else qb
        elif g.p(0.1):
            qb, _ = g.quantizer()
        usage_a = "rowwise" if transa else "columnwise"
        usage_b = "columnwise" if transb else "rowwise"
        if g.p(0.5):
            usage_a = "rowwise|columnwise"
        if g.p(0.5):
            usage_b = "rowwise|columnwise"
        ta = g.proto(a_shape, dt, q, kind, usage=usage_a)
        tb = g.proto(b_shape, dt, qb, kind, usage=usage_b)
        qa, qbv = f.fresh("qa"), f.fresh("qb")
        for v, x, shp, t, qq in ((qa, a, a_shape, ta, q), (qbv, b, b_shape, tb, qb)):
            ops = ""
            if "float8_quantizer" in qq:
                s = f.arg("tensor<1xf32>", "s")
                h = f.arg("tensor<16xf32>", "h")
                ops = " state(%s, %s : tensor<1xf32>, tensor<16xf32>)" % (s, h)
            if "stochastic_rounding = true" in qq:
                r = f.arg("tensor<2xi64>", "rng")
                ops += " rng_state(%s : tensor<2xi64>)" % r
            if "float8_quantizer" in qq:
                hv = f.fresh("hist")
                f.lines.append("%s, %s = teq.quantize %s%s : %s -> %s, tensor<16xf32>" % (
                    v, hv, x, ops, tensor(shp, dt), t))
            else:
                f.lines.append("%s = teq.quantize %s%s : %s -> %s" % (v, x, ops, tensor(shp, dt), t))
        opa, opb, tya, tyb = qa, qbv, ta, tb
    else:
        opa, opb, tya, tyb = a, b, tensor(a_shape, dt), tensor(b_shape, dt)
    out_shape = ([b_shape[-1]] if transb else b_shape[:-1]) + [m]
    odt = g.pick(["bf16", "bf16", "f32", "f16"])
    extra = ""
    results = [(None, tensor(out_shape, odt))]
    if g.p(0.3):
        bias = f.arg(tensor([m], g.pick(["bf16", "f32"])), "bias")
        extra += " bias(%s : %s)" % (bias, f.args[-1][1])
    if g.p(0.2):
        c = f.arg(tensor(out_shape, odt), "c")
        extra += " accumulate(%s : %s)" % (c, tensor(out_shape, odt))
    attrs = []
    if g.p(0.5):
        attrs.append("use_split_accumulator = %s" % g.pick(BOOLS))
    if g.p(0.5):
        attrs.append("kind = #teq.gemm_kind<%s>" % g.pick(["fprop", "dgrad", "wgrad"]))
    if g.p(0.1):
        attrs.append("physical_layout = #teq.gemm_layout<%s>" % g.pick(["TN", "NN", "NT", "TT"]))
    dbias_t = None
    if g.p(0.15):
        nn = b_shape[-1] if transb else (b_shape[0] if len(b_shape) == 2 or None in b_shape[:2]
                                         else b_shape[0] * b_shape[1])
        dbias_t = tensor([nn], odt)
    d = f.fresh("d")
    rtypes = tensor(out_shape, odt) + (", " + dbias_t if dbias_t else "")
    lhs = d if not dbias_t else "%s, %s" % (d, d + "b")
    f.lines.append("%s = teq.gemm %s %s, %s%s%s : %s, %s -> %s" % (
        lhs, layout, opa, opb, extra, " {%s}" % ", ".join(attrs) if attrs else "",
        tya, tyb, rtypes))
    f.results.append((d, tensor(out_shape, odt)))
    if dbias_t:
        f.results.append((d + "b", dbias_t))
    return module_text(g, [f], chip, with_target=g.p(0.95))


def gen_misc(g, chip):
    """Delayed-scaling updates, bias_grad / bias_add, collectives,
    elementwise ops on their own."""
    f = Func("misc")
    for _ in range(g.int(1, 4)):
        what = g.pick(["update", "update", "bias_grad", "bias_add", "collective",
                       "elementwise", "elementwise"])
        if what == "update":
            S = g.pick([1, 2, 3, 5])
            L = g.pick([1, 2, 16, 1024])
            st = tensor([S], "f32")
            ht = tensor([L], "f32") if S == 1 and g.p(0.3) else tensor([L, S], "f32")
            if g.p(0.05):
                ht = tensor([L, S + 1], "f32")
            s = f.arg(st, "s")
            h = f.arg(ht, "h")
            attrs = ["fp8_dtype = %s" % (g.fp8())]
            if g.p(0.5):
                attrs.append("margin = %d : i64" % g.pick([0, 1, -3, 100, -100, 101, 1 << 40]))
            if g.p(0.5):
                attrs.append("amax_compute_algo = #teq.amax_compute_algo<%s>" % g.pick(["max", "most_recent"]))
            s2, h2 = f.fresh("s"), f.fresh("h")
            f.lines.append("%s, %s = teq.delayed_scaling_update %s, %s {%s} : %s, %s" % (
                s2, h2, s, h, ", ".join(attrs), st, ht))
            f.results += [(s2, st), (h2, ht)]
        elif what == "bias_grad":
            shape = g.shape()
            if g.bad(0.2):
                shape[0] = None
            dt = g.hp_dtype()
            x = f.arg(tensor(shape, dt), "dy")
            v = f.fresh("db")
            rt = tensor([shape[-1]] if shape else [1], dt)
            f.lines.append("%s = teq.bias_grad %s : %s -> %s" % (v, x, tensor(shape, dt), rt))
            f.results.append((v, rt))
        elif what == "bias_add":
            shape = g.shape()
            dt = g.hp_dtype()
            x = f.arg(tensor(shape, dt), "y")
            b = f.arg(tensor([shape[-1]], g.hp_dtype()), "b")
            v = f.fresh("z")
            f.lines.append("%s = teq.bias_add %s, %s : %s, %s" % (v, x, b, tensor(shape, dt), f.args[-1][1]))
            f.results.append((v, tensor(shape, dt)))
        elif what == "collective":
            op = g.pick(["all_gather", "reduce_scatter", "all_reduce"])
            tp = g.pick([1, 2, 4, 0])
            shape = g.shape(rank=g.pick([1, 2, 3]))
            dt = g.hp_dtype()
            if g.bad(0.2):
                shape[-1] = None
            out = list(shape)
            if shape[0] is None:
                pass
            elif op == "all_gather":
                out[0] = shape[0] * max(tp, 1)
            elif op == "reduce_scatter":
                out[0] = shape[0] // max(tp, 1)
            x = f.arg(tensor(shape, dt), "x")
            pg = f.arg("!teq.process_group", "pg")
            v = f.fresh("c")
            f.lines.append("%s = teq.%s %s, %s {tp_size = %d : i64} : %s -> %s" % (
                v, op, x, pg, tp, tensor(shape, dt), tensor(out, dt)))
            f.results.append((v, tensor(out, dt)))
        else:
            shape = g.shape()
            dt = g.hp_dtype()
            if g.bad(0.2):
                shape[0] = None
            t = tensor(shape, dt)
            x = f.arg(t, "x")
            if g.p(0.5):
                op = g.pick(ELEMENTWISE_UNARY)
                v = f.fresh("e")
                f.lines.append("%s = %s %s : %s" % (v, op, x, t))
            else:
                op = g.pick(ELEMENTWISE_BINARY)
                y = f.arg(t, "y")
                v = f.fresh("e")
                f.lines.append("%s = %s %s, %s : %s" % (v, op, x, y, t))
            if g.p(0.2):
                dt2 = g.pick(["f32", "bf16", "f16"])
                conv = "arith.extf" if dt in ("bf16", "f16") and dt2 == "f32" else "arith.truncf"
                v2 = f.fresh("e")
                f.lines.append("%s = %s %s : %s to %s" % (v2, conv, v, t, tensor(shape, dt2)))
                f.results.append((v2, tensor(shape, dt2)))
            else:
                f.results.append((v, t))
    return module_text(g, [f], chip, with_target=g.p(0.95))


class Stmt:
    """One statement of a Linear program: its kind, operands (logical value
    ids) and results (logical ids with types); `recipe` is filled in once
    the autocast tree is known."""

    def __init__(self, kind, **kw):
        self.kind = kind
        self.__dict__.update(kw)


def gen_linear(g, chip):
    """Linear forward/backward (an MLP chain), elementwise ops between the
    layers, nested autocast regions; in one function or a forward/backward
    pair."""
    ctx = {"types": {}, "n": 0}

    def new(type_):
        ctx["n"] += 1
        vid = "v%d" % ctx["n"]
        ctx["types"][vid] = type_
        return vid

    args = []   # (vid, type, hint)

    def arg(type_, hint):
        vid = new(type_)
        args.append((vid, type_, hint))
        return vid

    nlayers = g.pick([1, 1, 2, 2, 3])
    dt = g.hp_dtype() if g.p(0.5) else "bf16"
    align = g.pick([16, 32, 32, 128, 128, 1])
    lead = [g.dim(align) for _ in range(g.pick([0, 1, 1, 1, 2]))]
    if not lead and g.p(0.7):
        lead = [g.dim(align)]
    feats = [g.dim(align) for _ in range(nlayers + 1)]
    if lead and g.bad(0.1):
        lead[g.int(0, len(lead) - 1)] = None   # a dynamic dimension
    pair = g.p(0.25)
    x0 = arg(tensor(lead + [feats[0]], dt), "x")
    stmts = []
    layers = []
    cur = x0
    cur_shape = lead + [feats[0]]
    pgs = {}

    def pg(tp_key):
        if tp_key not in pgs:
            pgs[tp_key] = arg("!teq.process_group", "tp")
        return pgs[tp_key]

    names = ["fc1", "fc2", "proj", "qkv", "out"]
    for li in range(nlayers):
        cfg = g.linear_config(names[li] if g.p(0.8) else "")
        fin, fout = feats[li], feats[li + 1]
        w_dt = g.hp_dtype() if g.bad(0.1) else dt
        w = arg(tensor([fout, fin], w_dt), "w")
        b = arg(tensor([fout], dt), "b") if cfg["bias"] else None
        # Output shape (te-semantics §7).
        out = list(cur_shape)
        out[-1] = fout
        if cfg["sp"] and cfg["tp"] > 1 and len(out) >= 2 and cur_shape[0] is not None:
            if cfg["mode"] == "column":
                out[0] = cur_shape[0] * cfg["tp"]
            elif cur_shape[0] % cfg["tp"] == 0:
                out[0] = cur_shape[0] // cfg["tp"]
        st = Stmt("fwd", layer=li, x=cur, w=w, b=b, cfg=cfg,
                  x_type=tensor(cur_shape, dt), w_type=ctx["types"][w],
                  out_type=tensor(out, dt), w_shape=[fout, fin], w_dt=w_dt)
        st.y = new(st.out_type)
        st.sx = new(st.x_type) if (cfg["wgrad"] or g.p(0.3)) and g.p(0.92) else None
        st.sw = new(st.w_type) if (cfg["dgrad"] or g.p(0.3)) and g.p(0.92) else None
        st.tp_group = pg(cfg["tp"]) if cfg["tp"] > 1 or g.bad(0.05) else None
        stmts.append(st)
        layers.append(st)
        cur, cur_shape = st.y, out
        if li + 1 < nlayers or g.p(0.3):
            if g.p(0.6):
                t = tensor(cur_shape, dt)
                if g.p(0.6):
                    e = Stmt("ew", op=g.pick(ELEMENTWISE_UNARY), ins=[cur], type=t)
                else:
                    other = arg(t, "r") if g.p(0.5) else cur
                    e = Stmt("ew", op=g.pick(ELEMENTWISE_BINARY), ins=[cur, other], type=t)
                e.out = new(t)
                stmts.append(e)
                cur = e.out
            elif g.p(0.2):
                # A bias-style constant operand (as the MLP of ops.mlir).
                t = tensor(cur_shape, dt)
                e = Stmt("relu", ins=[cur], type=t)
                e.out = new(t)
                stmts.append(e)
                cur = e.out
    final_y = cur
    # Backward, last layer first; dy of a layer is dgrad of the next.
    backward = g.p(0.8)
    bstmts = []
    if backward:
        dy = arg(ctx["types"][final_y], "dy") if ctx["types"][final_y] == layers[-1].out_type \
            else arg(layers[-1].out_type, "dy")
        for st in reversed(layers):
            cfg = st.cfg
            bcfg = dict(cfg)
            if g.bad(0.1):
                bcfg["bias"] = not cfg["bias"]
            bs = Stmt("bwd", fwd=st, cfg=bcfg, dy=dy, dy_type=st.out_type)
            bs.x = st.sx if st.sx and g.p(0.95) else st.x
            bs.w = st.sw if st.sw and g.p(0.95) else st.w
            bs.x_type, bs.w_type = st.x_type, st.w_type
            bs.main_grad = arg(tensor(st.w_shape, "f32"), "mg") if bcfg["fuse"] else None
            bs.dx = new(st.x_type) if bcfg["dgrad"] else None
            wt = st.w_type if not bcfg["fuse"] else tensor(st.w_shape, "f32")
            bs.dw = new(wt) if bcfg["wgrad"] else None
            bs.db = new(tensor(st.w_shape[:1], st.w_dt)) \
                if bcfg["bias"] and bcfg["wgrad"] else None
            bs.tp_group = st.tp_group
            bstmts.append(bs)
            if bs.dx and st.layer > 0:
                dy = bs.dx
            else:
                dy = arg(layers[st.layer - 1].out_type, "dy") if st.layer > 0 else dy
    # Place statements into functions and autocast trees.
    recipes = [g.recipe(chip) for _ in range(g.int(1, 3))]
    if pair and backward:
        groups = [("fwd", stmts), ("bwd", bstmts)]
    else:
        groups = [("f", stmts + bstmts)]

    def tree(items, depth):
        """A list of nodes: ("stmt", s) or ("ac", autocast dict, children)."""
        nodes = []
        i = 0
        while i < len(items):
            if depth < 3 and g.p(0.3 if depth else 0.85):
                j = g.int(i + 1, len(items))
                ac = {"recipe": g.pick(recipes) if g.p(0.85) else None,
                      "enabled": g.p(0.88), "group": g.p(0.02)}
                nodes.append(("ac", ac, tree(items[i:j], depth + 1)))
                i = j
            else:
                nodes.append(("stmt", items[i]))
                i += 1
        return nodes

    def assign(nodes, eff):
        for n in nodes:
            if n[0] == "stmt":
                n[1].eff = eff
            else:
                ac = n[1]
                if not ac["enabled"]:
                    e = None
                elif ac["recipe"] is None:
                    e = default_recipe(chip)
                else:
                    e = ac["recipe"]
                assign(n[2], e)

    trees = []
    for gname, items in groups:
        if g.p(0.5):
            # The common form: the whole body in one region, maybe with
            # inner regions.
            ac = {"recipe": g.pick(recipes), "enabled": True, "group": g.p(0.02)}
            t = [("ac", ac, tree(items, 1))]
        else:
            t = tree(items, 0)
        assign(t, None)
        trees.append((gname, items, t))
    # A backward runs under its forward's recipe when it can find the
    # forward (same function); in a pair, under its own.
    for gname, items, _ in trees:
        for s in items:
            if s.kind == "bwd" and not (pair and backward):
                s.eff = s.fwd.eff

    # Now the state / rng operands each Linear needs under its recipe.
    consistent = not g.bad(0.3)
    for gname, items, _ in trees:
        for s in items:
            if s.kind not in ("fwd", "bwd"):
                continue
            r = s.eff
            name = s.cfg["name"]
            roles = ["input", "weight", "output"] if s.kind == "fwd" else ["grad_output", "grad_input"]
            qs = [role_quantizer(r, name, ro) for ro in roles]
            need_state = any(stateful(q) for q in qs)
            if not consistent and g.p(0.3):
                need_state = not need_state
            s.state = None
            if need_state:
                L = r.get("req_hist", r.get("hist", 1024)) if r else 16
                if not isinstance(L, int) or L < 1:
                    L = 16
                slots = 3 if s.kind == "fwd" else 2
                st_t = tensor([slots], "f32")
                h_t = tensor([L, slots], "f32")
                s.state = (arg(st_t, "s"), arg(h_t, "h"))
                s.hist_out = new(h_t)
            if s.kind == "fwd":
                need_rng = any(stochastic(role_quantizer(r, name, ro)) for ro in ("input", "weight"))
            else:
                need_rng = stochastic(role_quantizer(r, name, "grad_output")) and \
                    (s.dx is not None or s.dw is not None)
            if not consistent and g.p(0.3):
                need_rng = not need_rng
            s.rng = arg("tensor<2xi64>", "rng") if need_rng else None

    # Values defined in the forward function that the backward one reads
    # become arguments of the backward function (the pair form).
    funcs = []
    defined_in = {}
    for gname, items, t in trees:
        for s in items:
            for attr in ("y", "sx", "sw", "out", "hist_out", "dx", "dw", "db"):
                v = getattr(s, attr, None)
                if v:
                    defined_in[v] = gname

    used_by = {}
    for gname, items, t in trees:
        for s in items:
            ins = []
            if s.kind == "fwd":
                ins = [s.x, s.w, s.b, s.tp_group, s.rng] + list(s.state or ())
            elif s.kind == "bwd":
                ins = [s.dy, s.x, s.w, s.main_grad, s.tp_group, s.rng] + list(s.state or ())
            else:
                ins = list(s.ins)
            for v in ins:
                if v:
                    used_by.setdefault(v, set()).add(gname)

    arg_ids = {a[0] for a in args}
    hints = {a[0]: a[2] for a in args}
    for gname, items, t in trees:
        f = Func(("linear_" + gname) if gname != "f" else "linear")
        names_ = {}
        # Arguments: program arguments this function uses, and values of the
        # other function it reads.
        order = []
        for a in args:
            if gname in used_by.get(a[0], ()):
                order.append(a[0])
        for v, where in defined_in.items():
            if where != gname and gname in used_by.get(v, ()):
                order.append(v)
        for v in order:
            names_[v] = f.arg(ctx["types"][v], hints.get(v, "p"))
        emit_nodes(g, f, t, names_, ctx, [0], top=True)
        # Results: every value defined here that nothing here consumes, plus
        # what the other function reads.
        consumed = set()
        for s in items:
            for v in (getattr(s, "x", None), getattr(s, "w", None), getattr(s, "dy", None)):
                consumed.add(v)
            for v in getattr(s, "ins", []):
                consumed.add(v)
        outs = []
        for s in items:
            for attr in ("y", "out", "sx", "sw", "hist_out", "dx", "dw", "db"):
                v = getattr(s, attr, None)
                if not v:
                    continue
                other_reads = any(w != gname for w in used_by.get(v, ()))
                if other_reads or v not in consumed or g.p(0.1):
                    outs.append(v)
        for v in outs:
            if v in names_:
                f.results.append((names_[v], ctx["types"][v]))
        funcs.append(f)
    return module_text(g, funcs, chip, with_target=g.p(0.93))


def emit_nodes(g, f, nodes, names, ctx, counter, top=False):
    """Emits statements and autocast regions into f.lines; `names` maps
    logical values to SSA names visible here. Returns the values defined
    (at any depth) in these nodes."""
    defined = []
    for n in nodes:
        if n[0] == "stmt":
            defined += emit_stmt(g, f, n[1], names, ctx)
            continue
        ac, children = n[1], n[2]
        inner_lines_start = len(f.lines)
        saved = list(f.lines)
        f.lines = []
        inner_names = dict(names)
        inner_defined = emit_nodes(g, f, children, inner_names, ctx, counter)
        body = f.lines
        f.lines = saved
        counter[0] += 1
        res = "%%ac%d" % counter[0]
        types = [ctx["types"][v] for v in inner_defined]
        head = "teq.autocast"
        if ac["recipe"]:
            head += " recipe(%s)" % ac["recipe"]["text"]
        if not ac["enabled"]:
            head += " enabled(false)"
        elif g.p(0.05):
            head += " enabled(true)"
        if ac["group"]:
            head += " amax_reduction_group(%s)" % f.arg("!teq.process_group", "dp")
        if types:
            head += " -> " + ", ".join(types)
        if types:
            lhs = res + (":%d" % len(types) if len(types) > 1 else "")
            f.lines.append("%s = %s {" % (lhs, head))
        else:
            f.lines.append("%s {" % head)
        f.lines += ["  " + l for l in body]
        if types:
            f.lines.append("  teq.yield %s : %s" % (
                ", ".join(inner_names[v] for v in inner_defined), ", ".join(types)))
        f.lines.append("}")
        for i, v in enumerate(inner_defined):
            names[v] = res if len(types) == 1 else "%s#%d" % (res, i)
        defined += inner_defined
    return defined


def emit_stmt(g, f, s, names, ctx):
    T = ctx["types"]

    def nm(v):
        return names.get(v, "%undef_" + str(v))

    def fresh(v, hint):
        names[v] = f.fresh(hint)
        return names[v]

    if s.kind in ("ew", "relu"):
        out = fresh(s.out, "e")
        if s.kind == "relu":
            z = f.fresh("zero")
            f.lines.append("%s = arith.constant dense<0.000000e+00> : %s" % (z, s.type))
            f.lines.append("%s = arith.maximumf %s, %s : %s" % (out, nm(s.ins[0]), z, s.type))
        else:
            f.lines.append("%s = %s %s : %s" % (out, s.op, ", ".join(nm(v) for v in s.ins), s.type))
        return [s.out]
    if s.kind == "fwd":
        ops = "%s, %s" % (nm(s.x), nm(s.w))
        if s.b:
            ops += " bias(%s : %s)" % (nm(s.b), T[s.b])
        if s.state:
            ops += " state(%s, %s : %s, %s)" % (nm(s.state[0]), nm(s.state[1]),
                                                T[s.state[0]], T[s.state[1]])
        if s.rng:
            ops += " rng_state(%s : tensor<2xi64>)" % nm(s.rng)
        if s.tp_group:
            ops += " tp_group(%s)" % nm(s.tp_group)
        results = [s.y] + [v for v in (s.sx, s.sw) if v] + ([s.hist_out] if s.state else [])
        lhs = ", ".join(fresh(v, "y") for v in results)
        tail = ""
        if s.sx:
            tail += " saved_input(%s)" % T[s.sx]
        if s.sw:
            tail += " saved_weight(%s)" % T[s.sw]
        if s.state:
            tail += " updated_amax_history(%s)" % T[s.hist_out]
        f.lines.append("%s = teq.linear_forward %s config(%s) : %s, %s -> %s%s" % (
            lhs, ops, config_text(s.cfg), T[s.x], T[s.w], s.out_type, tail))
        return results
    # bwd
    ops = "%s, %s, %s" % (nm(s.dy), nm(s.x), nm(s.w))
    if s.main_grad:
        ops += " main_grad(%s : %s)" % (nm(s.main_grad), T[s.main_grad])
    if s.state:
        ops += " state(%s, %s : %s, %s)" % (nm(s.state[0]), nm(s.state[1]),
                                            T[s.state[0]], T[s.state[1]])
    if s.rng:
        ops += " rng_state(%s : tensor<2xi64>)" % nm(s.rng)
    if s.tp_group:
        ops += " tp_group(%s)" % nm(s.tp_group)
    results = [v for v in (s.dx, s.dw, s.db) if v] + ([s.hist_out] if s.state else [])
    if not results:
        f.lines.append("teq.linear_backward %s config(%s) : %s, %s, %s" % (
            ops, config_text(s.cfg), T[s.dy], T[s.x], T[s.w]))
        return []
    lhs = ", ".join(fresh(v, "g") for v in results)
    tail = ""
    if s.dx:
        tail += " dgrad(%s)" % T[s.dx]
    if s.dw:
        tail += " wgrad(%s)" % T[s.dw]
    if s.db:
        tail += " dbias(%s)" % T[s.db]
    if s.state:
        tail += " updated_amax_history(%s)" % T[s.hist_out]
    f.lines.append("%s = teq.linear_backward %s config(%s) : %s, %s, %s%s" % (
        lhs, ops, config_text(s.cfg), T[s.dy], T[s.x], T[s.w], tail))
    return results


GENERATORS = [(gen_linear, 45), (gen_quantize, 30), (gen_gemm, 15), (gen_misc, 10)]


def gen_structured(g, only=None):
    chip = g.target_chip()
    gens = [(fn, w) for fn, w in GENERATORS if only is None or fn.__name__ == "gen_" + only]
    total = sum(w for _, w in gens)
    x = g.r.uniform(0, total)
    for fn, w in gens:
        if x < w:
            return fn(g, chip), fn.__name__
        x -= w
    return gens[0][0](g, chip), gens[0][0].__name__


def make_program(g, args):
    """Program text and the name of what made it."""
    mode = args.mode
    if mode == "mixed":
        mode = "mutate" if g.p(0.3) else "structured"
    if mode == "mutate":
        if args.corpus and g.p(0.6):
            return mutate(g, g.pick(args.corpus)), "mutate-corpus"
        return mutate(g, gen_structured(g, args.gen)[0]), "mutate-structured"
    return gen_structured(g, args.gen)


# ---------------------------------------------------------------------------
# Mutations
# ---------------------------------------------------------------------------

KEYWORD_CLASSES = [
    ["bf16", "f16", "f32", "f64", "i8", "i32", "i64", "f8E4M3FN", "f8E5M2", "f4E2M1FN", "index"],
    ["f8E4M3FN", "f8E5M2", "f4E2M1FN", "f8E4M3FNUZ", "f8E8M0FNU"],
    ["rowwise", "columnwise", "rowwise|columnwise", "none"],
    ["gemm_swizzled", "compact"],
    ["TN", "NN", "NT", "TT"],
    ["fprop", "dgrad", "wgrad"],
    ["true", "false"],
    ["column", "row", "none"],
    ["E4M3", "E5M2", "HYBRID", "E2M1"],
    ["max", "most_recent"],
    ["input", "weight", "output", "grad_output", "grad_input"],
    ["float8_quantizer", "float8_current_scaling_quantizer", "float8_block_quantizer",
     "mxfp8_quantizer", "nvfp4_quantizer"],
    ["delayed_scaling", "float8_current_scaling", "float8_block_scaling",
     "mxfp8_block_scaling", "nvfp4_block_scaling", "custom_recipe"],
    ["linear_forward", "linear_backward"],
    ["all_gather", "reduce_scatter", "all_reduce"],
    ["saved_input", "saved_weight", "updated_amax_history", "dgrad", "wgrad", "dbias"],
    ["state", "rng_state", "tp_group", "main_grad", "bias", "amax_reduction_group", "accumulate"],
    ["math.tanh", "math.exp", "arith.negf", "math.absf", "math.erf", "math.sqrt"],
    ["arith.addf", "arith.mulf", "arith.subf", "arith.maximumf", "arith.divf", "math.powf"],
    ["sm_70", "sm_89", "sm_90", "sm_90a", "sm_100", "sm_100a", "sm_100f", "sm_103",
     "sm_110", "sm_120", "sm_121", "sm_130", "sm_95", "sm_89a"],
]
INTERESTING_INTS = [0, 1, 2, 3, 7, 15, 16, 17, 31, 32, 33, 64, 127, 128, 129,
                    255, 256, 1024, 65535, 65536, 2147483647, 2147483648,
                    4294967295, 4294967296, 9223372036854775807, -1]
SPLICE_TOKENS = ["?x", "0x", "x0", "tensor<", ">", "(", ")", "{", "}", ",",
                 "%x", "!teq.process_group", "#teq.linear<>", "-> ",
                 "teq.yield", "dense<1.0>", ":", "\"", "#", "<>", "[", "]"]


def load_corpus():
    """Chunks of the lit tests and examples (split-input-file and split-file
    pieces), without RUN and CHECK lines."""
    dirs = [os.path.join(SRC_ROOT, d) for d in
            ("test/Dialect", "test/Tools", "examples", "test/GPU/Inputs",
             "test/Embedding/Inputs", "bench")]
    chunks = []
    for d in dirs:
        for root, _, files in os.walk(d):
            for fn in sorted(files):
                if not fn.endswith(".mlir"):
                    continue
                try:
                    with open(os.path.join(root, fn), encoding="utf-8") as fh:
                        text = fh.read()
                except OSError:
                    continue
                for part in re.split(r"^// -----\s*$|^//--- .*$", text, flags=re.M):
                    lines = [l for l in part.splitlines()
                             if not re.match(r"\s*//\s*(RUN|[A-Z0-9-]+(-NEXT|-SAME|-LABEL|-DAG|-NOT)?):", l)]
                    body = "\n".join(lines)
                    if "func.func" in body or "module" in body:
                        chunks.append(body + "\n")
    chunks.sort()
    return chunks


def mutate(g, text):
    for _ in range(g.int(1, 4)):
        text = mutate_once(g, text)
    # te-opt --split-input-file is never used, but keep the marker out anyway.
    return text.replace("// -----", "//")


def mutate_once(g, text):
    op = g.pick(["dim", "dim", "dim", "keyword", "keyword", "keyword", "int",
                 "bool", "ssa", "line_del", "line_dup", "line_swap", "span_del",
                 "splice", "rank", "field_del", "dynamic"])
    if op in ("dim", "rank", "dynamic"):
        ms = list(re.finditer(r"(?<=[<x])(\d+)(?=x)", text))
        if not ms:
            return text
        m = g.pick(ms)
        if op == "dim":
            new = str(g.pick(INTERESTING_INTS[:-1]))
        elif op == "dynamic":
            new = "?"
        else:
            new = m.group(1) + "x" + str(g.pick([1, 2, 16, 128])) if g.p(0.5) else ""
            if new == "":
                # drop the dimension and its 'x'
                return text[:m.start()] + text[m.end() + 1:]
        return text[:m.start()] + new + text[m.end():]
    if op == "keyword":
        cls = g.pick(KEYWORD_CLASSES)
        pat = "|".join(re.escape(w) for w in sorted(cls, key=len, reverse=True))
        ms = list(re.finditer(r"(?<![\w.])(%s)(?![\w])" % pat, text))
        if not ms:
            return text
        m = g.pick(ms)
        return text[:m.start()] + g.pick(cls) + text[m.end():]
    if op == "int":
        ms = list(re.finditer(r"(?<== )(-?\d+)", text))
        if not ms:
            return text
        m = g.pick(ms)
        return text[:m.start()] + str(g.pick(INTERESTING_INTS)) + text[m.end():]
    if op == "bool":
        ms = list(re.finditer(r"\b(true|false)\b", text))
        if not ms:
            return text
        m = g.pick(ms)
        return text[:m.start()] + ("false" if m.group(1) == "true" else "true") + text[m.end():]
    if op == "ssa":
        ms = list(re.finditer(r"%[\w#]+", text))
        if len(ms) < 2:
            return text
        a, b = g.pick(ms), g.pick(ms)
        return text[:a.start()] + b.group(0) + text[a.end():]
    lines = text.splitlines()
    if op == "line_del" and len(lines) > 2:
        del lines[g.int(0, len(lines) - 1)]
        return "\n".join(lines) + "\n"
    if op == "line_dup" and lines:
        i = g.int(0, len(lines) - 1)
        lines.insert(g.int(0, len(lines)), lines[i])
        return "\n".join(lines) + "\n"
    if op == "line_swap" and len(lines) > 2:
        i, j = g.int(0, len(lines) - 1), g.int(0, len(lines) - 1)
        lines[i], lines[j] = lines[j], lines[i]
        return "\n".join(lines) + "\n"
    if op == "span_del" and len(text) > 10:
        i = g.int(0, len(text) - 2)
        j = min(len(text), i + g.int(1, 40))
        return text[:i] + text[j:]
    if op == "splice":
        i = g.int(0, len(text))
        return text[:i] + g.pick(SPLICE_TOKENS) + text[i:]
    if op == "field_del":
        ms = list(re.finditer(r"(, )?\b\w+ = [^,>]+", text))
        if not ms:
            return text
        m = g.pick(ms)
        return text[:m.start()] + text[m.end():]
    return text


# ---------------------------------------------------------------------------
# Running the tools
# ---------------------------------------------------------------------------

CRASH_PATTERNS = [
    ("asan", re.compile(r".*ERROR: (Address|Leak|Memory|Thread|UndefinedBehavior)Sanitizer.*")),
    ("ubsan", re.compile(r"\S*: runtime error: .*")),
    ("LLVM ERROR", re.compile(r"LLVM ERROR:.*")),
    ("assertion", re.compile(r".*Assertion `.*' failed.*|.*assertion failed.*", re.I)),
    ("unreachable", re.compile(r".*UNREACHABLE executed.*")),
    ("bug report", re.compile(r"PLEASE submit a bug report.*")),
    ("stack dump", re.compile(r"Stack dump:.*")),
]

PASSES = ["--teq-check-recipe-support", "--teq-resolve-autocast",
          "--teq-infer-prototypes", "--teq-dedupe-saved-tensors",
          "--teq-quantize-cse", "--teq-decompose-linear", "--canonicalize",
          "--cse", "--teq-print-buffer-layouts", "--convert-teq-to-gpu",
          "--symbol-dce", "--teq-dedupe-saved-tensors=record-saved-memory=true",
          "--teq-dedupe-saved-tensors=print-saved-memory=true"]


def te_opt_pipelines(g, chip_opt):
    """te-opt invocations (argument lists) for one program."""
    t = "target=%s" % chip_opt
    cands = [
        [],
        ["--teq-frontend"],
        ["--teq-frontend=%s print-saved-memory=true record-saved-memory=true" % t],
        ["--teq-lower-to-gemm"],
        ["--teq-lower-to-gemm=%s" % t],
        ["--teq-lower-to-gemm", "--convert-teq-to-gpu"],
        ["--teq-lower-to-gemm=%s" % t, "--convert-teq-to-gpu", "--canonicalize"],
        ["--teq-set-target=%s" % t, "--teq-check-recipe-support"],
        ["--teq-resolve-autocast", "--teq-infer-prototypes", "--teq-dedupe-saved-tensors"],
        ["--teq-resolve-autocast", "--teq-decompose-linear"],
        ["--teq-print-buffer-layouts=%s" % t],
        ["--teq-print-buffer-layouts"],
        ["--canonicalize"],
        ["--teq-quantize-cse", "--canonicalize", "--cse"],
        ["--mlir-print-op-generic"],
        ["--pass-pipeline=builtin.module(teq-frontend{%s})" % t],
        "random",
        "random",
    ]
    return cands


def classify(rc, out, err, timed_out):
    """None if the run is not a crash; else (kind, signature)."""
    text = err + "\n" + out[-20000:]
    if timed_out:
        return "timeout", "timeout"
    for kind, pat in CRASH_PATTERNS:
        m = pat.search(text)
        if m:
            sig = m.group(0).strip()
            if kind in ("bug report", "stack dump", "asan"):
                sig = top_frames(text) or sig
                if kind == "asan":
                    what = re.search(r"Sanitizer: ([\w-]+)", m.group(0))
                    sig = (what.group(1) + " in " if what else "") + sig
            if kind == "ubsan":
                sig = re.sub(r"^.*/", "", sig)
            return kind, sig
    if rc < 0:
        return "signal %d" % -rc, "signal %d" % -rc
    if rc not in (0, 1):
        return "exit %d" % rc, "exit %d" % rc
    return None


def top_frames(text, n=3):
    """The first `n` symbolized frames of a stack dump that are not the
    signal handler's or libc's, without arguments."""
    names = []
    for m in re.finditer(r"^\s*#\d+ 0x[0-9a-f]+ (?:in )?(.+?)(?: \(/[^()]*\)| /\S+)?$", text, re.M):
        fr = m.group(1)
        if fr.startswith("(") or re.match(r"^\S+\.so", fr):
            continue
        if any(s in fr for s in ("llvm::sys::", "SignalHandler", "__restore_rt",
                                 "mlir::detail::walk", "callback_fn", "function_ref",
                                 "__interceptor", "PrintStackTrace", "RunSignalHandlers",
                                 "__sanitizer", "__asan", "__ubsan", "abort", "raise",
                                 "__assert_fail", "__libc", "__GI_", "pthread_kill")):
            continue
        # Drop the argument list and template arguments of the function name.
        depth, out = 0, []
        for ch in fr:
            if ch in "(<":
                depth += 1
            elif ch in ")>":
                depth -= 1
            elif depth == 0:
                out.append(ch)
        names.append("".join(out).strip())
        if len(names) == n:
            break
    return " <- ".join(names)


def normalize_sig(sig):
    sig = re.sub(r"0x[0-9a-f]+", "0x?", sig)
    sig = re.sub(r"\d+", "N", sig)
    return sig[:300]


class Runner:
    def __init__(self, args):
        self.args = args
        self.te_opt = os.path.join(args.bin_dir, "te-opt")
        self.te_compile = os.path.join(args.bin_dir, "te-compile")
        self.lock = threading.Lock()
        self.stats = {"programs": 0, "te-opt": 0, "te-compile": 0,
                      "te-compile ok": 0, "backend ok": 0, "valid": 0}
        self.by_gen = {}
        self.errors = {}
        self.crashes = {}   # signature -> list of (seed, index, path)
        self.crash_count = 0
        self.harness_errors = 0
        self.late_errors = []
        self.crash_dir = os.path.join(args.out, "crashes")
        os.makedirs(self.crash_dir, exist_ok=True)

    def run(self, cmd, stdin_text=None, cwd=None):
        env = dict(os.environ)
        env.setdefault("LLVM_DISABLE_CRASH_REPORT", "1")
        try:
            for attempt in range(60):
                try:
                    p = subprocess.run(cmd, input=stdin_text, capture_output=True, text=True,
                                       errors="replace", timeout=self.args.timeout, cwd=cwd,
                                       env=env)
                    break
                except (PermissionError, FileNotFoundError, OSError) as e:
                    # The tool is being relinked (a build in the same tree):
                    # wait for it instead of counting a crash or skipping.
                    if attempt == 59 or isinstance(e, subprocess.SubprocessError):
                        raise
                    time.sleep(2)
            return p.returncode, p.stdout, p.stderr, False
        except subprocess.TimeoutExpired as e:
            out = e.stdout if isinstance(e.stdout, str) else (e.stdout or b"").decode("utf-8", "replace")
            err = e.stderr if isinstance(e.stderr, str) else (e.stderr or b"").decode("utf-8", "replace")
            return -9, out or "", err or "", True

    def note_error(self, tool, err):
        m = re.search(r"error: (.*)", err)
        if m:
            msg = tool + ": " + re.sub(r"\d+", "N", m.group(1))[:110]
            with self.lock:
                self.errors[msg] = self.errors.get(msg, 0) + 1

    def report(self, index, text, cmd, rc, err, verdict, input_path):
        kind, sig = verdict
        key = normalize_sig(sig)
        with self.lock:
            self.crash_count += 1
            seen = self.crashes.setdefault(key, [])
            n = len(seen)
            path = None
            if n < self.args.max_per_signature:
                h = hashlib.sha1(key.encode()).hexdigest()[:10]
                path = os.path.join(self.crash_dir, "crash-%s-s%s-p%d.mlir" % (h, self.args.seed, index))
                shown = " ".join("<input>" if c == input_path else c for c in cmd)
                with open(path, "w", encoding="utf-8") as fh:
                    fh.write("// teq-fuzz crash: %s\n" % kind)
                    fh.write("// seed %s, program %d\n" % (self.args.seed, index))
                    fh.write("// command: %s\n" % shown)
                    fh.write("// signature: %s\n" % sig.replace("\n", " "))
                    for l in err.strip().splitlines()[:12]:
                        fh.write("//   %s\n" % l[:300])
                    fh.write(text)
            seen.append((self.args.seed, index, path))
            print("CRASH seed=%s program=%d kind=%s\n  command: %s\n  signature: %s\n  reproducer: %s" % (
                self.args.seed, index, kind, " ".join(cmd), sig, path or "(same signature as an earlier one; not saved)"),
                flush=True)

    def check(self, index, text, cmd, input_path, stdin_text=None, cwd=None):
        rc, out, err, to = self.run(cmd, stdin_text, cwd)
        verdict = classify(rc, out, err, to)
        if verdict:
            self.report(index, text if stdin_text is None else stdin_text, cmd, rc, err, verdict, input_path)
        elif rc == 1:
            self.note_error(os.path.basename(cmd[0]), err)
        return rc, out, err, verdict

    def program(self, index):
        """Generates program `index` and runs it; deterministic."""
        rng = random.Random("%s:%d" % (self.args.seed, index))
        g = Gen(rng)
        text, gen = make_program(g, self.args)
        tmp = tempfile.mkdtemp(prefix="teq-fuzz-", dir=self.args.tmp)
        try:
            self._run_program(index, g, text, gen, tmp)
        except Exception as e:  # a harness problem: say so, keep going
            with self.lock:
                self.harness_errors += 1
            print("teq-fuzz: harness error on program %d: %r" % (index, e), file=sys.stderr, flush=True)
        finally:
            if not self.args.keep:
                shutil.rmtree(tmp, ignore_errors=True)
            else:
                print("kept %s" % tmp)

    def _run_program(self, index, g, text, gen, tmp):
        path = os.path.join(tmp, "input.mlir")
        with open(path, "w", encoding="utf-8") as fh:
            fh.write(text)
        m = re.search(r"teq\.target = #teq\.target<(\w+)", text)
        module_chip = m.group(1) if m else None
        if module_chip and g.p(0.85):
            chip_opt = module_chip
        else:
            chip_opt = g.pick(TARGETS_COMMON) if g.p(0.9) else g.target_chip()
        cands = te_opt_pipelines(g, chip_opt)
        chosen = g.r.sample(cands, min(self.args.pipelines, len(cands)))
        if [] not in chosen:
            chosen.insert(0, [])
        n_opt = 0
        valid = False
        for pipe in chosen:
            if pipe == "random":
                pipe = [g.pick(PASSES) for _ in range(g.int(1, 5))]
            cmd = [self.te_opt, path] + pipe
            rc, out, err, verdict = self.check(index, text, cmd, path)
            n_opt += 1
            if pipe == [] and rc == 0:
                valid = True
            if pipe == ["--mlir-print-op-generic"] and rc == 0 and not verdict:
                # The generic form must parse back (and print again).
                self.check(index, out, [self.te_opt, "-"], path, stdin_text=out)
                n_opt += 1
        # te-compile: the cheap emits first; the backend ones only for
        # programs that lower.
        flags = []
        if (module_chip is None and g.p(0.9)) or g.p(0.15):
            flags.append("--target=%s" % chip_opt)
        if g.p(0.1):
            flags.append("--kernel-index-bitwidth=64")
        first = g.pick(["manifest", "mlir"])
        n_cc = 1
        rc, _, _, _ = self.check(index, text, [self.te_compile, path, "--emit=" + first,
                                               "-o", os.path.join(tmp, "out." + first)] + flags, path)
        backend_ok = False
        if rc == 0:
            emits = ["ptx", "llvm", "obj", "lib"]
            if not self.args.all_emits:
                emits = [g.pick(emits)]
                if g.p(0.25):
                    emits.append("mlir" if first == "manifest" else "manifest")
            else:
                emits.append("mlir" if first == "manifest" else "manifest")
            for e in emits:
                out = os.path.join(tmp, "out." + e)
                rc2, _, err2, v2 = self.check(index, text, [self.te_compile, path, "--emit=" + e,
                                                            "-o", out] + flags, path, cwd=tmp)
                n_cc += 1
                if rc2 == 1 and not v2:
                    # The lowering took it but a later stage refused it: not
                    # a crash, but worth a look (listed in the summary).
                    m2 = re.search(r"error: (.*)", err2)
                    with self.lock:
                        self.late_errors.append((index, e, m2.group(1)[:160] if m2 else err2[:160]))
                backend_ok = backend_ok or (rc2 == 0 and e in ("ptx", "llvm", "obj", "lib"))
        with self.lock:
            self.stats["programs"] += 1
            self.stats["te-opt"] += n_opt
            self.stats["te-compile"] += n_cc
            self.stats["valid"] += int(valid)
            self.stats["te-compile ok"] += int(rc == 0)
            self.stats["backend ok"] += int(backend_ok)
            gs = self.by_gen.setdefault(gen, [0, 0, 0])
            gs[0] += 1
            gs[1] += int(valid)
            gs[2] += int(rc == 0)


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0],
                                 formatter_class=argparse.RawDescriptionHelpFormatter,
                                 epilog=__doc__.split("\n\n", 1)[1])
    ap.add_argument("--seed", default="1", help="seed (any string; default 1)")
    ap.add_argument("--count", type=int, default=None, help="number of programs")
    ap.add_argument("--time", type=float, default=None,
                    help="stop starting programs after this many seconds")
    ap.add_argument("--start", type=int, default=0, help="index of the first program")
    ap.add_argument("--only", type=int, default=None, help="run only program ONLY")
    ap.add_argument("--jobs", "-j", type=int, default=os.cpu_count() or 1)
    ap.add_argument("--bin-dir", default=None,
                    help="directory with te-opt and te-compile (default: build/bin "
                         "of this checkout, or $TEQ_BIN_DIR)")
    ap.add_argument("--out", default=None,
                    help="where crashes are saved (default: a directory in the "
                         "temp dir, printed)")
    ap.add_argument("--tmp", default=None, help="temp directory for inputs and outputs")
    ap.add_argument("--mode", choices=["mixed", "structured", "mutate"], default="mixed")
    ap.add_argument("--gen", choices=["linear", "quantize", "gemm", "misc"], default=None,
                    help="only this structured generator")
    ap.add_argument("--pipelines", type=int, default=4,
                    help="te-opt pipelines per program besides parse/verify (default 4)")
    ap.add_argument("--all-emits", action="store_true",
                    help="te-compile every --emit kind of each program that lowers "
                         "(default: one backend emit chosen at random)")
    ap.add_argument("--timeout", type=float, default=60.0,
                    help="seconds one tool invocation may take before it counts as a hang")
    ap.add_argument("--max-per-signature", type=int, default=3,
                    help="reproducers saved per crash signature")
    ap.add_argument("--keep", action="store_true", help="keep each program's temp dir")
    ap.add_argument("--print", dest="print_program", action="store_true",
                    help="print the programs instead of running them")
    ap.add_argument("--stats", action="store_true",
                    help="print the most frequent diagnostics at the end")
    ap.add_argument("--stats-lines", type=int, default=40)
    ap.add_argument("--quiet", "-q", action="store_true", help="no progress lines")
    args = ap.parse_args()

    if args.bin_dir is None:
        args.bin_dir = os.environ.get("TEQ_BIN_DIR") or os.path.join(SRC_ROOT, "build", "bin")
    args.bin_dir = os.path.abspath(args.bin_dir)
    if args.count is None and args.time is None and args.only is None:
        args.count = 100
    for tool in ("te-opt", "te-compile"):
        if not args.print_program and not os.access(os.path.join(args.bin_dir, tool), os.X_OK):
            print("teq-fuzz: %s not found in %s (use --bin-dir)" % (tool, args.bin_dir), file=sys.stderr)
            return 2
    if args.out is None:
        args.out = tempfile.mkdtemp(prefix="teq-fuzz-out-s%s-" % args.seed, dir=args.tmp)
    os.makedirs(args.out, exist_ok=True)
    args.corpus = load_corpus() if args.mode in ("mixed", "mutate") else []

    if args.only is not None:
        indices = iter([args.only])
    elif args.count is not None:
        indices = iter(range(args.start, args.start + args.count))
    else:
        indices = iter(range(args.start, 1 << 62))

    if args.print_program:
        for i in indices:
            g = Gen(random.Random("%s:%d" % (args.seed, i)))
            text, _ = make_program(g, args)
            print("// ----- program %d" % i)
            print(text)
            if args.count is None and args.only is None and i > 20:
                break
        return 0

    runner = Runner(args)
    print("teq-fuzz: seed %s, %s, %d jobs, tools in %s, crashes saved to %s" % (
        args.seed, ("program %d" % args.only) if args.only is not None else
        ("%d programs" % args.count if args.count is not None else "%.0f s" % args.time),
        args.jobs, args.bin_dir, runner.crash_dir), flush=True)
    start = time.monotonic()
    last = [start]

    def progress():
        now = time.monotonic()
        if not args.quiet and now - last[0] >= 30:
            last[0] = now
            s = runner.stats
            print("  %5.0f s: %d programs, %d crashes (%d signatures)" % (
                now - start, s["programs"], runner.crash_count, len(runner.crashes)), flush=True)

    with concurrent.futures.ThreadPoolExecutor(max_workers=args.jobs) as pool:
        pending = set()
        exhausted = False
        while True:
            while not exhausted and len(pending) < args.jobs * 2:
                if args.time is not None and time.monotonic() - start >= args.time:
                    exhausted = True
                    break
                i = next(indices, None)
                if i is None:
                    exhausted = True
                    break
                pending.add(pool.submit(runner.program, i))
            if not pending:
                break
            done, pending = concurrent.futures.wait(pending, timeout=5,
                                                    return_when=concurrent.futures.FIRST_COMPLETED)
            for fut in done:
                fut.result()
            progress()

    s = runner.stats
    elapsed = time.monotonic() - start
    print("teq-fuzz: seed %s: %d programs in %.1f s (%d te-opt and %d te-compile runs); "
          "%d parse and verify, %d compile through convert-teq-to-gpu, %d through the backend" % (
              args.seed, s["programs"], elapsed, s["te-opt"], s["te-compile"], s["valid"],
              s["te-compile ok"], s["backend ok"]))
    for gen in sorted(runner.by_gen):
        n, v, c = runner.by_gen[gen]
        print("  %-18s %5d programs, %5d verify, %5d compile" % (gen, n, v, c))
    if runner.late_errors:
        print("programs that lower but a later --emit refuses (%d; not crashes):" % len(runner.late_errors))
        for i, e, msg in sorted(runner.late_errors)[:10]:
            print("  program %d --emit=%s: %s" % (i, e, msg))
    if args.stats:
        print("most frequent diagnostics:")
        for msg, n in sorted(runner.errors.items(), key=lambda kv: -kv[1])[:args.stats_lines]:
            print("  %6d  %s" % (n, msg))
    if runner.harness_errors:
        print("teq-fuzz: %d programs could not be run (harness errors above)" % runner.harness_errors)
    if runner.crashes:
        print("teq-fuzz: %d crashes, %d distinct signatures:" % (runner.crash_count, len(runner.crashes)))
        for sig, hits in sorted(runner.crashes.items(), key=lambda kv: -len(kv[1])):
            saved = [p for _, _, p in hits if p]
            print("  %4d x %s\n         e.g. seed %s program %d: %s" % (
                len(hits), sig, hits[0][0], hits[0][1], saved[0] if saved else "-"))
        return 1
    if runner.harness_errors:
        return 2
    print("teq-fuzz: no crashes")
    if args.out and not os.listdir(runner.crash_dir) and not args.keep:
        shutil.rmtree(args.out, ignore_errors=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
