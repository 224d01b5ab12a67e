#!/usr/bin/env python3
"""Accuracy of one TEQ Linear entry against PyTorch's own FP8 path.

  python3 test/GPU/linear_accuracy.py --te-run build-gpu/bin/te-run \
      --artifact .artifacts/linear-accuracy.so \
      --entry linear_current_m256_k512_n1024 --recipe current [--seed 1]

Runs on the GPU machine (PyTorch + CUDA). Steps:

1. `te-run ART --list --json` gives the entry's arguments (docs/Artifact.md).
   Roles come from names when they are the usual ones (x, w, bias, dy /
   y, dx, dw, dbias), else from order and shape: inputs x [M,K], w [N,K],
   an optional 1-D bias [N], dy [M,N]; outputs (in order) y [M,N], dx [M,K],
   dw [N,K], an optional 1-D dbias [N]. A forward-only entry (no dy) checks y.
2. Seeded inputs (torch CPU generator): x, w ~ N(0,1), bias ~ N(0,1),
   dy ~ 1e-3 * N(0,1), rounded to the argument's dtype; written as raw
   little-endian bytes to DIR/<arg>.bin (te-run's --inputs format).
3. `te-run ART --entry E --inputs DIR --outputs DIR2`; reads DIR2/<arg>.bin.
4. float64 reference of the unquantized computation (y = x w^T + b,
   dx = dy w, dw = dy^T x, dbias = sum_rows dy), and PyTorch's FP8 path on
   the same inputs and recipe:
   - current: per-tensor current scaling (te-semantics.md §5.1), E4M3 x/w,
     E5M2 dy; torch._scaled_mm, fast accumulation for fprop only (§6.4);
   - block: 1x128 x/dy (rowwise and, for wgrad, along M), 128x128 w,
     E4M3, power-of-two scales (§1.5, §5.3); torch._scaled_mm with
     blockwise scales when this PyTorch accepts them and agrees with the
     emulation, else the emulation (dequantize, float32 GEMM, bf16 output);
     the output says which;
   - none: bf16 F.linear and its gradients.
5. Relative Frobenius error of every output against the reference. Passes
   iff each TEQ error <= 1.05 * PyTorch FP8 error + 1e-6 (recipe none:
   <= 1e-2). Prints a table; exits 1 naming the failing outputs.
"""

import argparse
import ctypes
import json
import os
import subprocess
import sys
import tempfile

import torch
import torch.nn.functional as F

E4M3_MAX = 448.0
E5M2_MAX = 57344.0
FLT_MAX = torch.finfo(torch.float32).max
BF16_MAX = torch.finfo(torch.bfloat16).max
DY_MAGNITUDE = 1e-3
RATIO_LIMIT = 1.05
ABS_SLACK = 1e-6
NONE_LIMIT = 1e-2

DTYPES = {"bf16": torch.bfloat16, "f16": torch.float16, "f32": torch.float32}

INPUT_ALIASES = {
    "x": {"x", "input", "inp"},
    "w": {"w", "weight"},
    "bias": {"b", "bias"},
    "dy": {"dy", "grad_output", "grad"},
}
OUTPUT_ALIASES = {
    "y": {"y", "out", "output"},
    "dx": {"dx", "dgrad", "grad_input"},
    "dw": {"dw", "wgrad", "grad_weight"},
    "dbias": {"db", "dbias", "bgrad", "grad_bias"},
}


class Failure(Exception):
    pass


# ---------------------------------------------------------------------------
# te-run and the manifest
# ---------------------------------------------------------------------------

def list_entry(te_run, artifact, entry_name):
    proc = subprocess.run([te_run, artifact, "--list", "--json"],
                          capture_output=True, text=True)
    if proc.returncode != 0:
        raise Failure(f"te-run --list failed (exit {proc.returncode}): "
                      f"{proc.stderr.strip() or proc.stdout.strip()}")
    try:
        manifest = json.loads(proc.stdout)
    except json.JSONDecodeError as e:
        raise Failure(f"te-run --list --json printed no JSON: {e}")
    entries = manifest.get("entries", [])
    for entry in entries:
        if entry.get("name") == entry_name:
            return manifest, entry
    names = ", ".join(e.get("name", "?") for e in entries)
    raise Failure(f"no entry '{entry_name}' in {artifact} (entries: {names})")


def describe(arg):
    if "tensor" in arg:
        return f"tensor {arg['tensor']['dtype']}{arg['tensor']['shape']}"
    if "proto" in arg:
        return f"proto {arg['proto'].get('text', '')}"
    return "unknown"


def assign_roles(args, aliases, order, what):
    """Maps role -> argument, by name if every argument has a known name,
    else by order (1-D arguments are the bias roles)."""
    by_name = {}
    for arg in args:
        for role, names in aliases.items():
            if arg["name"].lower() in names:
                by_name[role] = arg
    if len(by_name) == len(args):
        return by_name
    two_d = [a for a in args if len(a["tensor"]["shape"]) == 2]
    one_d = [a for a in args if len(a["tensor"]["shape"]) == 1]
    other = [a for a in args if len(a["tensor"]["shape"]) not in (1, 2)]
    if other:
        raise Failure(f"{what} '{other[0]['name']}' has rank "
                      f"{len(other[0]['tensor']['shape'])}; expected 1-D or 2-D")
    roles = {}
    matrix_roles = [r for r in order if r not in ("bias", "dbias")]
    if len(two_d) > len(matrix_roles):
        raise Failure(f"entry has {len(two_d)} 2-D {what}s; expected at most "
                      f"{len(matrix_roles)} ({', '.join(matrix_roles)})")
    for role, arg in zip(matrix_roles, two_d):
        roles[role] = arg
    bias_role = "bias" if "bias" in order else "dbias"
    if len(one_d) > 1:
        raise Failure(f"entry has {len(one_d)} 1-D {what}s; expected at most one")
    if one_d:
        roles[bias_role] = one_d[0]
    return roles


def entry_roles(entry):
    inputs, outputs = [], []
    for arg in entry.get("args", []):
        kind = arg.get("kind")
        if "tensor" not in arg:
            if kind in ("input", "inout"):
                raise Failure(f"argument '{arg['name']}' ({describe(arg)}) is "
                              f"not a tensor; this script feeds tensors only")
            continue  # outputs that are not tensors: not checked
        if kind == "input":
            inputs.append(arg)
        elif kind == "output":
            outputs.append(arg)
        elif kind == "inout":
            raise Failure(f"argument '{arg['name']}' is inout (recipe state); "
                          f"this script handles stateless Linear entries only")
    ins = assign_roles(inputs, INPUT_ALIASES, ["x", "w", "bias", "dy"], "input")
    outs = assign_roles(outputs, OUTPUT_ALIASES, ["y", "dx", "dw", "dbias"],
                        "output")
    for role in ("x", "w"):
        if role not in ins:
            raise Failure(f"entry has no input for {role}")
    if "y" not in outs:
        raise Failure("entry has no output y")
    m, k = ins["x"]["tensor"]["shape"]
    n, k2 = ins["w"]["tensor"]["shape"]
    expect = {"x": [m, k], "w": [n, k], "bias": [n], "dy": [m, n],
              "y": [m, n], "dx": [m, k], "dw": [n, k], "dbias": [n]}
    if k2 != k:
        raise Failure(f"x {ins['x']['tensor']['shape']} and w "
                      f"{ins['w']['tensor']['shape']} disagree on K")
    for roles in (ins, outs):
        for role, arg in roles.items():
            if list(arg["tensor"]["shape"]) != expect[role]:
                raise Failure(f"argument '{arg['name']}' taken as {role} has "
                              f"shape {arg['tensor']['shape']}, expected "
                              f"{expect[role]}")
            if arg["tensor"]["dtype"] not in DTYPES:
                raise Failure(f"argument '{arg['name']}' has dtype "
                              f"{arg['tensor']['dtype']}; expected one of "
                              f"{', '.join(DTYPES)}")
    if any(r in outs for r in ("dx", "dw", "dbias")) and "dy" not in ins:
        raise Failure("entry returns gradients but has no dy input")
    if "dbias" in outs and "bias" not in ins:
        raise Failure("entry returns dbias but has no bias input")
    return ins, outs, (m, k, n)


def tensor_bytes(t):
    t = t.detach().to("cpu").contiguous().clone()
    return ctypes.string_at(t.data_ptr(), t.numel() * t.element_size())


def write_tensor(path, t):
    with open(path, "wb") as f:
        f.write(tensor_bytes(t))


def read_tensor(path, dtype, shape):
    with open(path, "rb") as f:
        data = f.read()
    numel = 1
    for d in shape:
        numel *= d
    expected = numel * torch.empty((), dtype=dtype).element_size()
    if len(data) != expected:
        raise Failure(f"{path}: {len(data)} bytes, expected {expected}")
    raw = torch.frombuffer(bytearray(data), dtype=torch.uint8)
    return raw.view(dtype).reshape(shape).clone()


def run_te_run(te_run, artifact, entry, in_dir, out_dir):
    proc = subprocess.run([te_run, artifact, "--entry", entry, "--inputs",
                           in_dir, "--outputs", out_dir],
                          capture_output=True, text=True)
    if proc.returncode != 0:
        raise Failure(f"te-run --entry {entry} failed (exit "
                      f"{proc.returncode}): "
                      f"{(proc.stderr.strip() or proc.stdout.strip())[-2000:]}")


# ---------------------------------------------------------------------------
# PyTorch FP8 paths
# ---------------------------------------------------------------------------

def quantize_per_tensor(t, fp8_dtype, fmax):
    """Current scaling (te-semantics.md §5.1): data, scale_inv (fp32 [])."""
    amax = t.abs().amax().float()
    scale = fmax / amax
    scale = torch.where(torch.isinf(scale), torch.full_like(scale, FLT_MAX),
                        scale)
    scale = torch.where((amax == 0) | ~torch.isfinite(amax),
                        torch.ones_like(scale), scale)
    q = (t.float() * scale).clamp(-fmax, fmax).to(fp8_dtype)
    return q, scale.reciprocal()


def pow2_floor(scale):
    """TE's force_pow_2: keep sign and exponent bits (round down)."""
    bits = scale.view(torch.int32) & -8388608  # 0xFF800000
    return bits.view(torch.float32)


def block_scale(amax, fmax):
    """Block scaling scale from the amax (§5.3, bf16 input, pow2, eps 0)."""
    scale = fmax / amax
    scale = torch.where(torch.isinf(scale), torch.full_like(scale, BF16_MAX),
                        scale)
    scale = torch.where((amax == 0) | ~torch.isfinite(amax),
                        torch.ones_like(scale), scale)
    return pow2_floor(scale)


def quantize_1x128(t, fp8_dtype, fmax):
    """1x128 blocks along the last dim of 2-D t. Returns data [R,C],
    scale_inv [R, ceil(C/128)] and the dequantized float32 tensor."""
    r, c = t.shape
    nb = (c + 127) // 128
    tf = t.float()
    padded = torch.zeros(r, nb * 128, dtype=torch.float32, device=t.device)
    padded[:, :c] = tf
    blocks = padded.view(r, nb, 128)
    amax = blocks.abs().amax(dim=2)
    scale = block_scale(amax, fmax)
    q = (blocks * scale[:, :, None]).clamp(-fmax, fmax).to(fp8_dtype)
    scale_inv = scale.reciprocal()
    deq = (q.float() * scale_inv[:, :, None]).view(r, nb * 128)[:, :c]
    q = q.view(r, nb * 128)[:, :c].contiguous()
    return q, scale_inv, deq.contiguous()


def quantize_128x128(t, fp8_dtype, fmax):
    """128x128 blocks of 2-D t: data [R,C], scale_inv [ceil(R/128),
    ceil(C/128)], dequantized float32."""
    r, c = t.shape
    rb, cb = (r + 127) // 128, (c + 127) // 128
    padded = torch.zeros(rb * 128, cb * 128, dtype=torch.float32,
                         device=t.device)
    padded[:r, :c] = t.float()
    blocks = padded.view(rb, 128, cb, 128)
    amax = blocks.abs().amax(dim=(1, 3))
    scale = block_scale(amax, fmax)
    q = (blocks * scale[:, None, :, None]).clamp(-fmax, fmax).to(fp8_dtype)
    scale_inv = scale.reciprocal()
    deq = (q.float() * scale_inv[:, None, :, None]).view(rb * 128, cb * 128)
    q = q.view(rb * 128, cb * 128)[:r, :c].contiguous()
    return q, scale_inv, deq[:r, :c].contiguous()


def rel_fro(out, ref):
    out = out.double()
    num = torch.linalg.vector_norm(out - ref).item()
    den = torch.linalg.vector_norm(ref).item()
    return num / den if den > 0 else num


def torch_current(x, w, b, dy):
    """TE Float8CurrentScaling Linear in PyTorch (cuBLASLt via _scaled_mm)."""
    xq, sx = quantize_per_tensor(x, torch.float8_e4m3fn, E4M3_MAX)
    wq, sw = quantize_per_tensor(w, torch.float8_e4m3fn, E4M3_MAX)
    out = {}
    kwargs = {"bias": b} if b is not None else {}
    # fprop: y = x w^T; a row-major [M,K], b column-major [K,N]; fast accum.
    out["y"] = torch._scaled_mm(xq, wq.t(), scale_a=sx, scale_b=sw,
                                out_dtype=torch.bfloat16,
                                use_fast_accum=True, **kwargs)
    if dy is not None:
        dyq, sdy = quantize_per_tensor(dy, torch.float8_e5m2, E5M2_MAX)
        # dgrad: dx = dy w: a = dy [M,N] (E5M2), b = w as [N,K] column-major
        # (the transposed copy Hopper keeps); split accumulator.
        w_t = wq.t().contiguous()
        out["dx"] = torch._scaled_mm(dyq, w_t.t(), scale_a=sdy, scale_b=sw,
                                     out_dtype=torch.bfloat16,
                                     use_fast_accum=False)
        # wgrad: dw = dy^T x: a = dy^T [N,M], b = x as [M,K] column-major.
        dy_t = dyq.t().contiguous()
        x_t = xq.t().contiguous()
        out["dw"] = torch._scaled_mm(dy_t, x_t.t(), scale_a=sdy, scale_b=sx,
                                     out_dtype=torch.bfloat16,
                                     use_fast_accum=False)
        out["dbias"] = dy.float().sum(dim=0).to(torch.bfloat16)
    return out, "torch._scaled_mm, per-tensor scales (cuBLASLt)"


def a_scale_1x128(s):
    """Scale of a row-major operand with 1x128 blocks, as _scaled_mm wants
    it: shape [R, C/128], outer-dim-major (stride (1, R))."""
    return s.t().contiguous().t()


def a_scale_128x128(s, pad):
    """Scale of a row-major operand with 128x128 blocks: [R/128, C/128]
    row-major; some PyTorch versions want the row stride rounded up to 4."""
    if not pad:
        return s.contiguous()
    rb, cb = s.shape
    buf = torch.zeros(rb, (cb + 3) // 4 * 4, dtype=s.dtype, device=s.device)
    buf[:, :cb] = s
    return buf[:, :cb]


def native_block_gemm(a, a_kind, a_s, b_rm, b_kind, b_s):
    """out = a @ b_rm^T with blockwise _scaled_mm (a [M,K] and b_rm [N,K]
    row-major, blocks along K). Tries the scale layouts PyTorch versions
    accept; raises the last error if none works."""
    last = None
    for pad in (False, True):
        sa = a_scale_1x128(a_s) if a_kind == 1 else a_scale_128x128(a_s, pad)
        sb = (a_scale_1x128(b_s) if b_kind == 1
              else a_scale_128x128(b_s, pad)).t()
        try:
            return torch._scaled_mm(a, b_rm.t(), scale_a=sa, scale_b=sb,
                                    out_dtype=torch.bfloat16,
                                    use_fast_accum=False)
        except (RuntimeError, TypeError, ValueError) as e:
            last = e
    raise last


def torch_block(x, w, b, dy, ref):
    """TE Float8BlockScaling Linear in PyTorch: native blockwise _scaled_mm
    where it works and agrees with the emulation, else the emulation."""
    fp8 = torch.float8_e4m3fn
    xq, sx, xd = quantize_1x128(x, fp8, E4M3_MAX)            # fprop
    wq, sw, wd = quantize_128x128(w, fp8, E4M3_MAX)           # both usages
    gemms = {"y": (xq, 1, sx, xd, wq, 2, sw, wd)}
    if dy is not None:
        dyq, sdy, dyd = quantize_1x128(dy, fp8, E4M3_MAX)     # dgrad
        dytq, sdyt, dytd = quantize_1x128(dy.t(), fp8, E4M3_MAX)  # wgrad
        xtq, sxt, xtd = quantize_1x128(x.t(), fp8, E4M3_MAX)      # wgrad
        wtq, swt, wtd = wq.t().contiguous(), sw.t().contiguous(), wd.t()
        # dx = dy w = dy (w^T)^T ; dw = dy^T x = dy^T (x^T)^T
        gemms["dx"] = (dyq, 1, sdy, dyd, wtq, 2, swt, wtd.contiguous())
        gemms["dw"] = (dytq, 1, sdyt, dytd, xtq, 1, sxt, xtd)
    out, how = {}, {}
    for name, (aq, ak, a_s, ad, bq, bk, b_s, bd) in gemms.items():
        emul = ad @ bd.t()                                  # float32
        if name == "y" and b is not None:
            emul = emul + b.float()
        emul = emul.to(torch.bfloat16)
        try:
            native = native_block_gemm(aq, ak, a_s, bq, bk, b_s)
            if name == "y" and b is not None:
                native = (native.float() + b.float()).to(torch.bfloat16)
            emul_err = rel_fro(emul, ref[name])
            diff = rel_fro(native, emul.double())
            if diff <= 0.1 * emul_err:
                out[name], how[name] = native, "native blockwise _scaled_mm"
            else:
                out[name] = emul
                how[name] = (f"emulated (native blockwise _scaled_mm differs "
                             f"from the emulation by {diff:.3g})")
        except Exception as e:  # noqa: BLE001 - any failure: emulate
            out[name] = emul
            msg = str(e).strip().splitlines()[0] if str(e).strip() else type(e).__name__
            how[name] = f"emulated (no native blockwise _scaled_mm: {msg[:120]})"
    if dy is not None:
        out["dbias"] = dy.float().sum(dim=0).to(torch.bfloat16)
        how["dbias"] = "sum of dy in float32"
    return out, how


def torch_none(x, w, b, dy):
    xr = x.detach().clone().requires_grad_(dy is not None)
    wr = w.detach().clone().requires_grad_(dy is not None)
    br = b.detach().clone().requires_grad_(dy is not None) if b is not None else None
    y = F.linear(xr, wr, br)
    out = {"y": y.detach()}
    if dy is not None:
        wanted = [xr, wr] + ([br] if br is not None else [])
        grads = torch.autograd.grad(y, wanted, grad_outputs=dy)
        out["dx"], out["dw"] = grads[0], grads[1]
        out["dbias"] = grads[2] if br is not None else dy.float().sum(0)
    return out, "bf16 F.linear + autograd"


# ---------------------------------------------------------------------------
# main
# ---------------------------------------------------------------------------

def main():
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--te-run", required=True)
    p.add_argument("--artifact", required=True)
    p.add_argument("--entry", required=True)
    p.add_argument("--recipe", required=True, choices=["current", "block", "none"])
    p.add_argument("--seed", type=int, default=0)
    p.add_argument("--keep", metavar="DIR",
                   help="write inputs/outputs under DIR (kept) instead of a "
                        "temporary folder")
    args = p.parse_args()

    torch.backends.cuda.matmul.allow_tf32 = False
    torch.backends.cudnn.allow_tf32 = False
    torch.set_float32_matmul_precision("highest")
    if not torch.cuda.is_available():
        raise Failure("no CUDA device visible to PyTorch")
    dev = torch.device("cuda")

    _, entry = list_entry(args.te_run, args.artifact, args.entry)
    ins, outs, (m, k, n) = entry_roles(entry)

    gen = torch.Generator(device="cpu")
    gen.manual_seed(args.seed)
    values = {}
    for role in ("x", "w", "bias", "dy"):  # fixed order: seeded draws
        if role not in ins:
            continue
        arg = ins[role]
        shape = arg["tensor"]["shape"]
        v = torch.randn(*shape, generator=gen, dtype=torch.float32)
        if role == "dy":
            v = v * DY_MAGNITUDE
        values[role] = v.to(DTYPES[arg["tensor"]["dtype"]])

    with tempfile.TemporaryDirectory(prefix="teq-linear-acc-") as tmp:
        base = args.keep or tmp
        in_dir = os.path.join(base, "inputs")
        out_dir = os.path.join(base, "outputs")
        os.makedirs(in_dir, exist_ok=True)
        os.makedirs(out_dir, exist_ok=True)
        for role, arg in ins.items():
            write_tensor(os.path.join(in_dir, arg["name"] + ".bin"), values[role])
        run_te_run(args.te_run, args.artifact, args.entry, in_dir, out_dir)
        teq = {}
        for role, arg in outs.items():
            path = os.path.join(out_dir, arg["name"] + ".bin")
            if not os.path.exists(path):
                raise Failure(f"te-run wrote no {path} (output {role})")
            teq[role] = read_tensor(path, DTYPES[arg["tensor"]["dtype"]],
                                    arg["tensor"]["shape"]).to(dev)

    x = values["x"].to(dev)
    w = values["w"].to(dev)
    b = values["bias"].to(dev) if "bias" in values else None
    dy = values["dy"].to(dev) if "dy" in values else None

    xd, wd = x.double(), w.double()
    ref = {"y": xd @ wd.t()}
    if b is not None:
        ref["y"] = ref["y"] + b.double()
    if dy is not None:
        dyd = dy.double()
        ref["dx"] = dyd @ wd
        ref["dw"] = dyd.t() @ xd
        ref["dbias"] = dyd.sum(dim=0)

    if args.recipe == "current":
        peer, how = torch_current(x, w, b, dy)
    elif args.recipe == "block":
        peer, how = torch_block(x, w, b, dy, ref)
    else:
        peer, how = torch_none(x, w, b, dy)

    print(f"entry {args.entry}: M={m} K={k} N={n}, recipe {args.recipe}, "
          f"seed {args.seed}, dy ~ {DY_MAGNITUDE:g}*N(0,1); "
          f"device {torch.cuda.get_device_name()}, torch {torch.__version__}")
    if isinstance(how, dict):
        for role in ("y", "dx", "dw", "dbias"):
            if role in how and role in outs:
                print(f"  PyTorch {role}: {how[role]}")
    else:
        print(f"  PyTorch: {how}")
    if args.recipe == "none":
        print(f"  pass: TEQ error <= {NONE_LIMIT:g}")
    else:
        print(f"  pass: TEQ error <= {RATIO_LIMIT:g} * PyTorch FP8 error + "
              f"{ABS_SLACK:g}")
    print()
    print("| output | arg | TEQ rel. Frobenius error | PyTorch error | ratio | result |")
    print("|---|---|---|---|---|---|")
    failed = []
    for role in ("y", "dx", "dw", "dbias"):
        if role not in outs:
            continue
        teq_err = rel_fro(teq[role], ref[role])
        peer_err = rel_fro(peer[role], ref[role])
        if args.recipe == "none":
            ok = teq_err <= NONE_LIMIT
        else:
            ok = teq_err <= RATIO_LIMIT * peer_err + ABS_SLACK
        ratio = teq_err / peer_err if peer_err > 0 else float("inf")
        print(f"| {role} | {outs[role]['name']} | {teq_err:.4e} | "
              f"{peer_err:.4e} | {ratio:.3f} | {'ok' if ok else 'FAIL'} |")
        if not ok:  # NaN errors fail too
            failed.append(f"{role} ({outs[role]['name']}): TEQ error "
                          f"{teq_err:.4e} vs PyTorch {peer_err:.4e}")
    print()
    if failed:
        print(f"FAILED {args.entry}: " + "; ".join(failed))
        return 1
    print(f"PASSED {args.entry}")
    return 0


if __name__ == "__main__":
    try:
        sys.exit(main())
    except Failure as e:
        print(f"linear_accuracy: error: {e}", file=sys.stderr)
        sys.exit(1)
