"""teq.runtime without a GPU: inspecting artifacts compiled from Inputs/,
the errors of loading and of calls that need no device, the DLPack checks of
the extension (on fake CUDA DLPack tensors, checked but never run) and
training pairs (teq.runtime.TrainingPair)."""

import ctypes
import json
import math
import os

import pytest

from runtime_helpers import artifact, runtime_module

rt_ext = runtime_module()
import teq.runtime as rt  # noqa: E402


# -- a fake CUDA DLPack producer (device memory is never touched: dry runs) ----


class DLDevice(ctypes.Structure):
    _fields_ = [("device_type", ctypes.c_int32), ("device_id", ctypes.c_int32)]


class DLDataType(ctypes.Structure):
    _fields_ = [("code", ctypes.c_uint8), ("bits", ctypes.c_uint8), ("lanes", ctypes.c_uint16)]


class DLTensor(ctypes.Structure):
    _fields_ = [("data", ctypes.c_void_p), ("device", DLDevice), ("ndim", ctypes.c_int32),
                ("dtype", DLDataType), ("shape", ctypes.POINTER(ctypes.c_int64)),
                ("strides", ctypes.POINTER(ctypes.c_int64)), ("byte_offset", ctypes.c_uint64)]


class DLManagedTensor(ctypes.Structure):
    pass


DELETER = ctypes.CFUNCTYPE(None, ctypes.POINTER(DLManagedTensor))
DLManagedTensor._fields_ = [("dl_tensor", DLTensor), ("manager_ctx", ctypes.c_void_p),
                            ("deleter", DELETER)]


class DLPackVersion(ctypes.Structure):
    _fields_ = [("major", ctypes.c_uint32), ("minor", ctypes.c_uint32)]


class DLManagedTensorVersioned(ctypes.Structure):
    pass


DELETER_V = ctypes.CFUNCTYPE(None, ctypes.POINTER(DLManagedTensorVersioned))
DLManagedTensorVersioned._fields_ = [("version", DLPackVersion), ("manager_ctx", ctypes.c_void_p),
                                     ("deleter", DELETER_V), ("flags", ctypes.c_uint64),
                                     ("dl_tensor", DLTensor)]

_capsule_new = ctypes.pythonapi.PyCapsule_New
_capsule_new.restype = ctypes.py_object
_capsule_new.argtypes = [ctypes.c_void_p, ctypes.c_char_p, ctypes.c_void_p]

DTYPES = {"bf16": (4, 16), "f32": (2, 32), "f16": (2, 16), "u8": (1, 8), "i64": (0, 64),
          "i8": (0, 8), "e4m3fn": (10, 8)}


class FakeCudaTensor:
    """Looks like a CUDA tensor through DLPack; counts its deleters."""

    exported = 0
    deleted = 0
    _names = {False: b"dltensor", True: b"dltensor_versioned"}

    def __init__(self, shape, dtype="bf16", strides=None, address=0x7F0000000000,
                 device=(2, 0), versioned=False, read_only=False, byte_offset=0):
        self.shape = tuple(shape)
        self.dtype = dtype
        self.strides = strides
        self.address = address
        self.device = device
        self.versioned = versioned
        self.read_only = read_only
        self.byte_offset = byte_offset
        self._keep = []
        self.streams = []

    def __dlpack_device__(self):
        return self.device

    def __dlpack__(self, stream=None):
        self.streams.append(stream)
        shape = (ctypes.c_int64 * len(self.shape))(*self.shape)
        strides = None
        if self.strides is not None:
            strides = (ctypes.c_int64 * len(self.strides))(*self.strides)
        code, bits = DTYPES[self.dtype]
        t = DLTensor(ctypes.c_void_p(self.address), DLDevice(*self.device), len(self.shape),
                     DLDataType(code, bits, 1), shape,
                     strides if strides is not None else None, self.byte_offset)

        def delete(_):
            FakeCudaTensor.deleted += 1

        if self.versioned:
            deleter = DELETER_V(delete)
            managed = DLManagedTensorVersioned(DLPackVersion(1, 0), None, deleter,
                                               1 if self.read_only else 0, t)
        else:
            deleter = DELETER(delete)
            managed = DLManagedTensor(t, None, deleter)
        self._keep += [shape, strides, deleter, managed]
        FakeCudaTensor.exported += 1
        return _capsule_new(ctypes.addressof(managed), self._names[self.versioned], None)


_next_address = [0x7E0000000000]


def fresh_address():
    """A fake device address of its own (16 MiB apart): results must overlap
    no other buffer of a call (the runtime's contract)."""
    address = _next_address[0]
    _next_address[0] += 1 << 24
    return address


def fake_like(buffer, **kw):
    enc = {"bf16": "bf16", "f32": "f32", "f16": "f16", "i64": "i64"}.get(buffer.encoding, "u8")
    if "address" not in kw:
        kw = dict(kw, address=fresh_address())
    return FakeCudaTensor(buffer.shape, enc, **kw)


def fake_args(entry, **kw):
    """Fake inputs and outputs for every argument of `entry`, each buffer at
    an address of its own."""
    values = {}
    for a in entry.args:
        if a.alias_of is not None:  # the input itself: nothing to pass
            values[a.name] = None
        elif a.is_proto:
            values[a.name] = rt.QuantizedTensor.for_arg(
                a, {b.name: fake_like(b, **kw) for b in a.buffers})
        else:
            values[a.name] = fake_like(a.buffers[0], **kw)
    ins = [values[a.name] for a in entry.inputs]
    outs = [values[a.name] for a in entry.outputs]
    return ins, outs


@pytest.fixture(autouse=True)
def _count_deleters():
    FakeCudaTensor.exported = FakeCudaTensor.deleted = 0
    yield
    # Every capsule the extension consumed was released exactly once.
    assert FakeCudaTensor.deleted == FakeCudaTensor.exported


# -- inspecting ----------------------------------------------------------------


def test_inspect_lists_entries_args_buffers_and_gemms():
    art = rt.inspect(artifact("linear-current"))
    assert not art.loaded and art.device is None
    assert art.target == "sm_90" and art.device_code in ("ptx", "cubin")
    assert list(art.entries) == ["fwd", "bwd", "fwd_bias", "bwd_main_grad"]
    assert "fwd" in art and len(art) == 4
    fwd = art["fwd"]
    assert art.fwd is fwd
    assert [(a.name, a.kind, a.is_proto) for a in fwd.args] == [
        ("arg0", "input", False), ("arg1", "input", False), ("result0", "output", False),
        ("result1", "output", True), ("result2", "output", True)]
    assert [a.name for a in fwd.inputs] == ["arg0", "arg1"]
    assert [a.name for a in fwd.outputs] == ["result0", "result1", "result2"]
    x, w, y, sx, sw = fwd.args
    assert x.dtype == "bf16" and x.shape == (64, 128) and x.bytes == 16384
    assert y.shape == (64, 256)
    assert sx.quantizer_kind == "float8_current_scaling" and sx.usage == "columnwise"
    assert sx.quantizer["fp8_dtype"] == "e4m3"
    assert sx.text.startswith("!teq.proto<64x128xbf16")
    # The saved columnwise copy is written in place by x's quantization (no
    # copy at the end of the entry).
    assert sx.computed_by == {"input": "arg0", "op": "quantize"}
    assert [(b.name, b.encoding, b.shape, b.transposed) for b in sx.buffers] == [
        ("transpose", "e4m3", (128, 64), True), ("scale_inv", "f32", (1,), False)]
    assert sum(b.bytes for b in sx.buffers) == sx.bytes == 8196
    assert [b.index for b in fwd.buffers] == list(range(7))
    assert fwd.workspace_bytes > 0
    assert len(fwd.temporaries) == 2
    assert fwd.signature().startswith("fwd(arg0: bf16[64, 128], arg1: bf16[256, 128]) -> (")
    # bwd_main_grad's dgrad is bwd's problem: it keeps its own id and name
    # and runs bwd's plan.
    assert len(art.gemms) == 6
    dgrads = [g for g in art.gemms if g.name.endswith(":dgrad0")]
    assert [g.name for g in dgrads] == ["bwd:dgrad0", "bwd_main_grad:dgrad0"], art.gemms
    assert dgrads[0].shares_plan_of is None and dgrads[1].shares_plan_of == dgrads[0].id
    assert "the plan of GEMM" in repr(dgrads[1])
    g = art.gemms[0]
    assert (g.id, g.name, g.m, g.n, g.k, g.transa, g.transb) == (0, "fwd:fprop0", 256, 64, 128,
                                                                  True, False)
    assert (g.a_type, g.b_type, g.d_type, g.a_scale_mode) == ("e4m3", "e4m3", "bf16",
                                                              "scalar_f32")
    assert g.fast_accum and not g.accumulate and g.epilogue == "default"
    assert g.alpha == "host"
    bias_gemm = next(g for g in art.gemms if g.epilogue == "bias")
    assert bias_gemm.bias_type == "bf16"
    assert any(g.accumulate for g in art.gemms)  # main_grad
    assert art.manifest["format"] == "teq-artifact"
    assert json.loads(art._handle.manifest_json) == art.manifest
    text = str(art)
    assert "(inspected)" in text and "Buffer(transpose e4m3[128, 64] transposed" in text
    assert "bwd_main_grad(" in repr(art) or "bwd_main_grad" in repr(art)


def test_inspect_mlp_pair_and_quantized_results():
    art = rt.inspect(artifact("mlp-current"))
    fwd, bwd = art["mlp_fwd"], art["mlp_bwd"]
    assert [a.is_proto for a in fwd.outputs] == [False, True, True, False, True, True]
    assert [a.is_proto for a in bwd.inputs] == [False, True, True, False, True, True]
    assert [a.shape for a in bwd.outputs] == [(64, 128), (256, 128), (128, 256)]
    assert len(art.gemms) == 6
    assert {g.name for g in art.gemms} >= {"mlp_fwd:fprop0", "mlp_bwd:wgrad3"}


def test_an_argument_returned_as_is_is_an_alias_without_buffers():
    # saved-alias.mlir: the LayerNorm forward saves x and its weight g, which
    # it returns as they are.
    art = rt.inspect(artifact("saved-alias"))
    fwd, bwd, both = art["ln_fwd"], art["ln_bwd"], art["both"]
    assert art.manifest["version"] == 2
    assert [(a.name, a.alias_of) for a in fwd.outputs] == [
        ("y", None), ("saved_x", "x"), ("mean", None), ("rstd", None), ("saved_g", "g")]
    x, g = fwd.inputs[0], fwd.inputs[1]
    saved_x, saved_g = fwd.outputs[1], fwd.outputs[4]
    assert saved_x.alias is x and saved_g.alias is g
    assert saved_x.buffers == [] and saved_x.bytes == 0
    assert saved_x.value_buffers == x.buffers
    assert (saved_x.role, saved_x.role_of) == ("saved", "x")
    assert saved_x.computed_by is None and saved_x.manifest["alias_of"] == "x"
    # The call passes x, g, b, y, mean and rstd: nothing for the aliases.
    assert [(b.arg_index, b.name) for b in fwd.buffers] == [
        (0, "tensor"), (1, "tensor"), (2, "tensor"), (3, "tensor"), (5, "tensor"),
        (6, "tensor")]
    assert fwd.signature().endswith("-> (y: bf16[128, 256], saved_x: x, mean: f32[128], "
                                    "rstd: f32[128], saved_g: g)")
    assert "saved_x: bf16[128, 256] = argument 'x' itself (alias_of)" in str(art)
    assert "= x" in repr(saved_x)
    # The backward takes the saved x as an input of its own.
    assert [a.name for a in bwd.inputs] == ["dy", "saved_x", "mean", "rstd", "saved_g"]
    assert [a.alias_of for a in both.outputs] == ["a", "b", None]
    assert len(both.buffers) == 3
    # A training pair matches the alias with the backward's argument by
    # the argument's type.
    pair = rt.TrainingPair(fwd, bwd, forward_args=("input", "weight", "bias"),
                           forward_results=("output", "saved", "saved", "saved", "saved"),
                           backward_results=("grad_input", "grad_weight", "grad_bias"))
    assert pair.num_outputs == 1


def test_alias_outputs_take_none_in_out():
    entry = rt.inspect(artifact("saved-alias"))["ln_fwd"]
    ins, outs = fake_args(entry)
    assert outs[1] is None and outs[4] is None
    entry.check(*ins, out=outs)
    assert FakeCudaTensor.exported == 6
    given = list(outs)
    given[1] = fake_like(entry.inputs[0].buffers[0])
    with pytest.raises(ValueError, match=r"entry 'ln_fwd': output 'saved_x' is argument 'x' "
                       r"itself \(alias_of\): it has no buffers; pass None for it in out="):
        entry.check(*ins, out=given)
    with pytest.raises(ValueError, match="output 'saved_g' is argument 'g' itself"):
        entry.check(*ins, out={"saved_g": fake_like(entry.inputs[1].buffers[0]),
                               "y": outs[0], "mean": outs[2], "rstd": outs[3]})
    # The same tensor for both of @both's arguments: inputs may share memory.
    both = rt.inspect(artifact("saved-alias"))["both"]
    ins, outs = fake_args(both)
    both.check(ins[0], ins[0], out=outs)


def test_delayed_scaling_state_is_arguments():
    art = rt.inspect(artifact("linear-delayed"))
    fwd = art["fwd"]
    assert [(a.dtype, a.shape) for a in fwd.inputs] == [
        ("bf16", (64, 128)), ("bf16", (256, 128)), ("f32", (3,)), ("f32", (16, 3))]
    assert fwd.outputs[-1].shape == (16, 3) and fwd.outputs[1].quantizer_kind == "float8_delayed"


def test_load_and_inspect_errors(tmp_path):
    with pytest.raises(FileNotFoundError, match="no such file"):
        rt.inspect(tmp_path / "missing.so")
    with pytest.raises(FileNotFoundError, match="no such file"):
        rt.load(tmp_path / "missing.so")
    text = tmp_path / "notes.so"
    text.write_text("not a library\n")
    with pytest.raises(RuntimeError, match=r"artifact '.*notes.so': not a TEQ artifact \(no trailer\)"):
        rt.inspect(text)
    # A real shared library that is not an artifact.
    lib = rt_ext.__file__
    with pytest.raises(RuntimeError, match="not a TEQ artifact"):
        rt.inspect(lib)
    art = rt.inspect(artifact("linear-current"))
    with pytest.raises(KeyError, match=r"no entry 'nope' \(entries: fwd, bwd, fwd_bias"):
        art["nope"]
    with pytest.raises(KeyError, match="no entry 'nope'"):
        art._handle.lookup("nope")
    with pytest.raises(IndexError, match="out of range"):
        art._handle.entry(17)
    with pytest.raises(AttributeError):
        art.nope


def test_device_argument_forms():
    assert rt._ordinal(None) == 0 and rt._ordinal(3) == 3
    assert rt._ordinal("cuda") == 0 and rt._ordinal("cuda:2") == 2
    with pytest.raises(ValueError, match="cuda:N"):
        rt._ordinal("cpu")


# -- calls that fail before any device work -------------------------------------


def test_call_argument_errors():
    art = rt.inspect(artifact("linear-current"))
    fwd, bwd = art["fwd"], art["bwd"]
    x = FakeCudaTensor((64, 128))
    with pytest.raises(TypeError, match=r"missing argument\(s\) 'arg1' \(input bf16\[256, 128\]\)"):
        fwd(x)
    with pytest.raises(TypeError, match=r"takes 2 arguments \(arg0, arg1\), got 3"):
        fwd(x, x, x)
    with pytest.raises(TypeError, match="has no argument 'w'"):
        fwd(x, w=x)
    with pytest.raises(TypeError, match="'result0'.*an output: pass it with out="):
        fwd(x, result0=x)
    with pytest.raises(TypeError, match="given twice"):
        fwd(x, x, arg0=x)
    with pytest.raises(TypeError, match="out has 1 values, the entry has 3 outputs"):
        fwd(x, x, out=[x])
    with pytest.raises(TypeError, match="out has no output 'y'"):
        fwd(x, x, out={"y": x})


def test_call_rejects_host_tensors_and_non_tensors():
    np = pytest.importorskip("numpy")
    fwd = rt.inspect(artifact("linear-current"))["fwd"]
    host = np.zeros((64, 128), dtype=np.float32)
    if hasattr(host, "__dlpack_device__"):
        with pytest.raises(ValueError, match=r"argument 'arg0': expected a CUDA tensor .*got "
                                             r"a tensor on cpu"):
            fwd(host, FakeCudaTensor((256, 128)))
    with pytest.raises(ValueError, match=r"argument 'arg1': expected a CUDA tensor .*got list"):
        fwd(FakeCudaTensor((64, 128)), [1, 2])
    with pytest.raises(ValueError, match=r"argument 'arg0': .*got a tensor on cpu"):
        fwd(FakeCudaTensor((64, 128), device=(1, 0)), FakeCudaTensor((256, 128)))


def test_call_quantized_argument_errors():
    art = rt.inspect(artifact("linear-current"))
    bwd = art["bwd"]
    dy = FakeCudaTensor((64, 256))
    sw = rt.QuantizedTensor.for_arg(bwd.inputs[2], {
        b.name: fake_like(b) for b in bwd.inputs[2].buffers})
    with pytest.raises(ValueError, match=r"argument 'arg1': expected a QuantizedTensor "
                                         r"\(proto bf16\[64, 128\] float8_current_scaling"):
        bwd(dy, FakeCudaTensor((64, 128)), sw)
    wrong = rt.QuantizedTensor({"data": FakeCudaTensor((64, 128), "u8"),
                                "scale_inv": FakeCudaTensor((1,), "f32")})
    with pytest.raises(ValueError, match=r"argument 'arg1': expected a quantized tensor with "
                                         r"buffers transpose, scale_inv .*got buffers data, "
                                         r"scale_inv"):
        bwd(dy, wrong, sw)
    with pytest.raises(ValueError, match=r"argument 'arg0': expected a tensor bf16\[64, 256\], "
                                         r"got a quantized tensor"):
        bwd(sw, sw, sw)


def test_call_on_an_inspected_artifact_says_so():
    fwd = rt.inspect(artifact("linear-current"))["fwd"]
    with pytest.raises(RuntimeError, match=r"opened with teq.runtime.inspect\(\).*"
                                           r"teq.runtime.load\(\)"):
        fwd(FakeCudaTensor((64, 128)), FakeCudaTensor((256, 128)))
    with pytest.raises(RuntimeError, match="inspection only"):
        fwd._handle.run_pointers([0x1000] * 7)


# -- the extension's DLPack checks (dry runs) ------------------------------------


def test_check_accepts_matching_tensors_and_releases_them():
    for name in ("fwd", "bwd", "bwd_main_grad"):
        entry = rt.inspect(artifact("linear-current"))[name]
        ins, outs = fake_args(entry)
        entry.check(*ins, out=outs)
    assert FakeCudaTensor.exported == 7 + 7 + 9
    # Versioned (DLPack 1.x) capsules and raw float8 dtypes are accepted too.
    entry = rt.inspect(artifact("linear-current"))["fwd"]
    ins, outs = fake_args(entry, versioned=True)
    outs[1] = rt.QuantizedTensor.for_arg(entry.outputs[1], {
        "transpose": FakeCudaTensor((128, 64), "e4m3fn", address=fresh_address()),
        "scale_inv": FakeCudaTensor((1,), "f32", address=fresh_address())})
    entry.check(*ins, out=outs)
    # Size-1 dimensions may have any stride; empty strides mean row-major.
    e = rt.inspect(artifact("linear-delayed"))["fwd"]
    ins, outs = fake_args(e)
    ins[2] = FakeCudaTensor((3,), "f32", strides=(1,))
    outs[3] = FakeCudaTensor((16, 3), "f32", strides=(3, 1), address=fresh_address())
    e.check(*ins, out=outs)


@pytest.mark.parametrize("change, message", [
    (dict(dtype="f32"), r"argument 'arg0': expected dtype bfloat16 \(bf16\), got float32"),
    (dict(dtype="i8"), r"argument 'arg0': expected dtype bfloat16 \(bf16\), got int8"),
    (dict(shape=(128, 64)), r"argument 'arg0': expected shape \[64, 128\], got \[128, 64\]"),
    (dict(shape=(64, 128, 1)), r"expected shape \[64, 128\], got \[64, 128, 1\]"),
    (dict(strides=(1, 64)), r"argument 'arg0': expected a contiguous \(row-major\) tensor, got "
                            r"strides \[1, 64\] for shape \[64, 128\]"),
    (dict(strides=(256, 1)), r"expected a contiguous"),
    (dict(address=0x7F0000000010), r"argument 'arg0': expected a 256-byte aligned address, "
                                   r"got 0x7f0000000010"),
    (dict(byte_offset=64), r"256-byte aligned"),
    (dict(device=(1, 0)), r"argument 'arg0': expected a CUDA tensor .*got a tensor on cpu"),
    (dict(device=(3, 0)), r"got a tensor on cuda_host"),
])
def test_check_rejects_each_mismatch(change, message):
    entry = rt.inspect(artifact("linear-current"))["fwd"]
    ins, outs = fake_args(entry)
    kw = dict(shape=(64, 128), dtype="bf16")
    kw.update(change)
    shape = kw.pop("shape")
    dtype = kw.pop("dtype")
    ins[0] = FakeCudaTensor(shape, dtype, **kw)
    with pytest.raises(ValueError, match=message):
        entry.check(*ins, out=outs)


def test_check_refuses_results_that_overlap_or_are_unaligned():
    # The entry may keep temporaries in a result's bytes until it writes
    # that result: a result sharing memory with an input or another result
    # is refused before anything runs, naming both.
    entry = rt.inspect(artifact("linear-current"))["fwd"]
    ins, outs = fake_args(entry)
    outs[0] = FakeCudaTensor((64, 256), "bf16", address=ins[0].address + 256)
    with pytest.raises(ValueError, match=r"^entry 'fwd': result 'result0' overlaps "
                                         r"argument 'arg0'$"):
        entry.check(*ins, out=outs)
    ins, outs = fake_args(entry)
    outs[1] = rt.QuantizedTensor.for_arg(entry.outputs[1], {
        "transpose": FakeCudaTensor((128, 64), "e4m3fn", address=fresh_address()),
        "scale_inv": FakeCudaTensor((1,), "f32", address=outs[0].address + 512)})
    with pytest.raises(ValueError, match=r"^entry 'fwd': result 'result0' overlaps "
                                         r"result 'result1' buffer 1 \('scale_inv'\)$"):
        entry.check(*ins, out=outs)
    # Inputs may share memory (the same tensor twice).
    ins, outs = fake_args(entry)
    ins[1] = FakeCudaTensor((256, 128), "bf16", address=ins[0].address)
    entry.check(*ins, out=outs)
    # Every buffer must be 256-byte aligned (results for the temporaries in
    # them, inputs for cuBLASLt).
    ins, outs = fake_args(entry)
    outs[0] = FakeCudaTensor((64, 256), "bf16", address=fresh_address() + 16)
    with pytest.raises(ValueError, match=r"argument 'result0': expected a 256-byte aligned "
                                         r"address"):
        entry.check(*ins, out=outs)


def test_check_names_the_quantized_buffer():
    entry = rt.inspect(artifact("linear-current"))["fwd"]
    ins, outs = fake_args(entry)
    outs[2] = rt.QuantizedTensor.for_arg(entry.outputs[2], {
        "transpose": FakeCudaTensor((128, 256), "bf16"), "scale_inv": FakeCudaTensor((1,), "f32")})
    with pytest.raises(ValueError, match=r"entry 'fwd': argument 'result2' buffer 'transpose': "
                                         r"expected dtype uint8 \(raw e4m3 bytes\) or "
                                         r"float8_e4m3fn \(e4m3\), got bfloat16"):
        entry.check(*ins, out=outs)
    ins, outs = fake_args(entry, versioned=True, read_only=True)
    with pytest.raises(ValueError, match=r"argument 'result0': the tensor is read-only"):
        entry.check(*ins, out=outs)


def test_run_dlpack_counts_and_streams():
    entry = rt.inspect(artifact("linear-current"))["fwd"]
    ins, outs = fake_args(entry)
    flat = ins + [outs[0]] + list(outs[1]) + list(outs[2])
    with pytest.raises(ValueError, match="entry 'fwd': expected 7 buffers, got 6"):
        entry._handle.run_dlpack(flat[:6], dry_run=True)
    # The producer is asked for the caller's stream; 0 (legacy default) is
    # DLPack's 1.
    entry._handle.run_dlpack(flat, stream=0, dry_run=True)
    entry._handle.run_dlpack(flat, stream=0x1234, dry_run=True)
    entry._handle.run_dlpack(flat, stream=None, dry_run=True)
    assert ins[0].streams == [1, 0x1234, None]
    # Default labels name the argument.
    flat[0] = FakeCudaTensor((1,), "bf16")
    with pytest.raises(ValueError, match=r"^argument 'arg0': expected shape"):
        entry._handle.run_dlpack(flat, dry_run=True)


# -- training pairs ----------------------------------------------------------------


def test_training_pair_defaults():
    art = rt.inspect(artifact("linear-current"))
    pair = rt.TrainingPair(art["fwd"], art["bwd"])
    assert pair.num_outputs == 1 and pair.state == {} and pair.main_grad is None
    assert pair.input.shape == (64, 128) and pair.weight.shape == (256, 128)
    assert pair.describe() == (
        "forward fwd(arg0=input, arg1=weight) -> (result0=output, result1=saved, "
        "result2=saved); backward bwd(arg0=grad_output, arg1=saved, arg2=saved) -> "
        "(result0=grad_input, result1=grad_weight)")


def test_training_pair_bias_and_main_grad():
    art = rt.inspect(artifact("linear-current"))
    pair = rt.TrainingPair(
        art["fwd_bias"], art["bwd_main_grad"], forward_args=("input", "weight", "bias"),
        backward_args=("grad_output", "saved", "saved", "main_grad"),
        backward_results=("grad_input", "main_grad", "grad_bias"))
    assert pair.bias.shape == (256,) and pair.main_grad.dtype == "f32"
    with pytest.raises(ValueError, match=r"entry 'bwd_main_grad' result 'result1' "
                                         r"\(f32\[256, 128\]\) is the gradient of the forward's "
                                         r"weight \(bf16\[256, 128\]\)"):
        rt.TrainingPair(art["fwd_bias"], art["bwd_main_grad"],
                        forward_args=("input", "weight", "bias"),
                        backward_args=("grad_output", "saved", "saved", "main_grad"),
                        backward_results=("grad_input", "grad_weight", "grad_bias"))


def test_training_pair_delayed_scaling_state():
    art = rt.inspect(artifact("linear-delayed"))
    with pytest.raises(ValueError, match=r"entry 'fwd' \(forward\) arguments: 2 roles "
                                         r"\(input, weight\) for 4 values"):
        rt.TrainingPair(art["fwd"], art["bwd"])
    pair = rt.TrainingPair(
        art["fwd"], art["bwd"],
        forward_args=("input", "weight", "state:fwd_scale", "state:fwd_amax_history"),
        forward_results=("output", "saved", "saved", "state:fwd_amax_history"),
        backward_args=("grad_output", "saved", "saved", "state:bwd_scale",
                       "state:bwd_amax_history"),
        backward_results=("grad_input", "grad_weight", "state:bwd_amax_history"))
    assert {n: a.shape for n, a in pair.state.items()} == {
        "fwd_scale": (3,), "fwd_amax_history": (16, 3), "bwd_scale": (2,),
        "bwd_amax_history": (16, 2)}
    with pytest.raises(ValueError, match=r"state 'fwd_scale': .*disagrees"):
        rt.TrainingPair(
            art["fwd"], art["bwd"],
            forward_args=("input", "weight", "state:fwd_scale", "state:fwd_amax_history"),
            forward_results=("output", "saved", "saved", "state:fwd_amax_history"),
            backward_args=("grad_output", "saved", "saved", "state:fwd_scale",
                           "state:bwd_amax_history"),
            backward_results=("grad_input", "grad_weight", "state:bwd_amax_history"))
    with pytest.raises(ValueError, match="unknown role 'scale'"):
        rt.TrainingPair(art["fwd"], art["bwd"],
                        forward_args=("input", "weight", "scale", "state:h"))


def test_training_pair_saved_from_args():
    art = rt.inspect(artifact("linear-hp"))
    assert [a.name for a in art["fwd"].outputs] == ["result0"]  # x and w were dropped
    with pytest.raises(ValueError, match=r"entry 'fwd' saves 0 results .* entry 'bwd' takes 2 "
                                         r"saved arguments .*teq.saved_from_args"):
        rt.TrainingPair(art["fwd"], art["bwd"])
    pair = rt.TrainingPair(art["fwd"], art["bwd"],
                           backward_args=("grad_output", "input", "weight"))
    assert "arg1=input, arg2=weight" in pair.describe()
    with pytest.raises(ValueError, match=r"is the forward's weight .* they must agree"):
        rt.TrainingPair(art["fwd"], art["bwd"], backward_args=("grad_output", "weight", "input"))


def test_training_pair_mismatched_entries():
    cur = rt.inspect(artifact("linear-current"))
    mlp = rt.inspect(artifact("mlp-current"))
    with pytest.raises(ValueError, match=r"entry 'mlp_bwd' argument 'arg0' .*is the gradient of "
                                         r"entry 'fwd' result 'result0'"):
        rt.TrainingPair(cur["fwd"], mlp["mlp_bwd"],
                        backward_results=("grad_input", "grad_weight", "state:x"))
    with pytest.raises(ValueError, match="num_outputs=4, but it has 3 results"):
        rt.TrainingPair(cur["fwd"], cur["bwd"], num_outputs=4)
    with pytest.raises(ValueError, match=r"saved tensor 0: entry 'fwd_bias' result 'result1' .* float8_current_scaling.* does "
                                         r"not match entry 'bwd' argument 'arg1' .*float8_delayed"):
        rt.TrainingPair(cur["fwd_bias"], rt.inspect(artifact("linear-delayed"))["bwd"],
                        forward_args=("input", "weight", "bias"),
                        backward_args=("grad_output", "saved", "saved", "state:s", "state:h"),
                        backward_results=("grad_input", "grad_weight", "state:h"))


# -- TE's delayed-scaling update (lib/Reference through the extension) ------------------

FLT_MAX = 3.4028234663852886e38


def _f32(value):
    import struct

    return struct.unpack("f", struct.pack("f", value))[0]


def test_delayed_scaling_update_reference():
    """The binding teq.torch.delayed_scaling_update runs: TE's
    test_scale_update_numeric_scenarios (newest amax zero / tiny / normal /
    inf / nan, old scale 1), the roll and its window, most_recent, margin."""
    update = rt_ext.delayed_scaling_update
    nan, inf = float("nan"), float("inf")
    tiny = 448.0 / FLT_MAX / 2
    history = [[0.0, tiny, 3.0, inf, nan]] + [[0.0] * 5 for _ in range(3)]
    new_h, new_s = update(history, [1.0] * 5, 448.0)
    assert new_s[0] == 1 and new_s[1] == FLT_MAX and new_s[2] == _f32(448.0 / 3.0)
    assert new_s[3] == 1 and new_s[4] == 1
    assert [row[0] for row in new_h] == [0.0] * 4  # zero: no roll
    assert all(v == 0 for row in new_h[:3] for v in row[1:])
    assert new_h[3][2] == 3.0 and new_h[3][3] == inf and math.isnan(new_h[3][4])
    assert math.isnan(history[0][4]) and history[0][2] == 3.0  # inputs unchanged
    # The roll: new = [0, old[2], old[3], old[0]]; "max" also sees the
    # dropped old[1], "most_recent" only old[0].
    history = [[1.0], [7.0], [2.0], [3.0]]
    new_h, new_s = update(history, [5.0], 448.0)
    assert new_h == [[0.0], [2.0], [3.0], [1.0]] and new_s == [64.0]
    assert update(history, [1.0], 448.0, amax_compute_algo="most_recent")[1] == [448.0]
    assert update(history, [1.0], 57344.0, margin=1)[1] == [_f32(57344.0 / 2 / 7)]
    assert update([[4.0]], [1.0], 448.0) == ([[0.0]], [112.0])
    with pytest.raises(ValueError, match="amax_compute_algo 'mean'"):
        update(history, [1.0], 448.0, amax_compute_algo="mean")
    with pytest.raises(ValueError, match="one value per scale"):
        update([[1.0, 2.0]], [1.0], 448.0)
