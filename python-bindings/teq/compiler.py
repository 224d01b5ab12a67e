"""The compiler from Python: modules, pass pipelines, targets, quantized
tensor prototypes and their buffers, and ``compile``, on the compiler's C API
(``teq._teq_compiler``). Errors raise ``teq.CompilerError`` with the
compiler's located diagnostics.
"""

import dataclasses
import os
from typing import Optional, Tuple

from teq import _teq_compiler as _c
from teq.errors import CompilerError
from teq.quantizer import Quantizer, quantizer_from_attr
from teq.recipe import Recipe

__all__ = ["Module", "Target", "TensorProto", "Buffer", "parse", "run_pipeline",
           "compile", "check_recipe_support", "saved_memory", "version"]

_DTYPES = {"bf16": "bf16", "bfloat16": "bf16", "f16": "f16", "float16": "f16",
           "half": "f16", "f32": "f32", "float32": "f32", "float": "f32",
           "i64": "i64", "int64": "i64"}


def dtype_name(dtype):
    """"bf16", "f16", "f32" or "i64" for a name or a torch/numpy dtype."""
    text = str(dtype)
    for prefix in ("torch.", "numpy."):
        if text.startswith(prefix):
            text = text[len(prefix):]
    if text not in _DTYPES:
        raise ValueError(f"unsupported dtype {dtype!r} (expected bf16, f16, f32"
                         " or i64)")
    return _DTYPES[text]


def tensor_type(shape, dtype):
    """MLIR text of a ranked tensor type, e.g. tensor<64x128xbf16>."""
    shape = tuple(int(d) for d in shape)
    for d in shape:
        if d <= 0:
            raise ValueError(f"tensor shape {shape} has a non-positive dimension")
    dims = "".join(f"{d}x" for d in shape)
    return f"tensor<{dims}{dtype_name(dtype)}>"


def version():
    """"teq <version> (MLIR/LLVM <version>)"."""
    return _c.version()


class Module:
    """A teq module (MLIR). ``str(module)`` is its IR."""

    def __init__(self, handle):
        self._handle = handle

    @classmethod
    def parse(cls, text, name="<input>"):
        return cls(_c.Module.parse(text, name))

    def __str__(self):
        return str(self._handle)

    def clone(self):
        return Module(self._handle.clone())

    def run_pipeline(self, pipeline, **options):
        """Runs a named pipeline or pass (``teq-frontend``,
        ``teq-lower-to-gemm``, ``teq-decompose-linear``, ...) in place, with
        options as keywords (``target="sm_90"``, ``print_saved_memory=True``)
        or written in the pipeline text. Returns self."""
        if options:
            opts = " ".join(f"{k.replace('_', '-')}={_option_text(v)}"
                            for k, v in options.items())
            pipeline = f"{pipeline}{{{opts}}}"
        self._handle.run_pipeline(pipeline)
        return self


def saved_memory(program, target=None):
    """The bytes kept between forward and backward, before and after
    saved-tensor dedupe, per function that saves tensors (the report of
    ``teq-frontend{print-saved-memory=true}`` as data)::

        {"mlp_forward": {"before": {"tensors": 6, "bytes": ...,
                                    "per_recipe": {"Float8CurrentScaling": ...}},
                         "after": {...}}}
    """
    options = {"record_saved_memory": True}
    if target is not None:
        options["target"] = Target.of(target).chip
    module = run_pipeline(program, "teq-frontend", **options)
    return module._handle.function_attributes("teq.saved_memory")


def _option_text(value):
    if isinstance(value, bool):
        return "true" if value else "false"
    return str(value)


def parse(text, name="<input>"):
    """Parses and verifies a module."""
    return Module.parse(text, name)


def run_pipeline(module, pipeline, **options):
    """A copy of `module` (a Module, a Program or IR text) after `pipeline`."""
    return _as_module(module).clone().run_pipeline(pipeline, **options)


def _as_module(program):
    if isinstance(program, Module):
        return program
    if isinstance(program, str):
        return Module.parse(program)
    if hasattr(program, "module"):
        return program.module()
    raise TypeError(f"expected a teq.Module, a teq.Program or IR text, got "
                    f"{type(program).__name__}")


def compile(program, target=None, output=None, emit="lib", device_code="ptx",
            kernel_index_bitwidth="auto", gemm_algos=None, disable_fusions=()):
    """Compiles `program` (a Program, a Module or IR text) as ``te-compile``
    does and writes the artifact (or ``emit`` = obj, ptx, llvm, manifest,
    mlir) to `output`; returns its path. `target` ("sm_90", ...) defaults to
    the module's #teq.target. `disable_fusions` names fusions across ops to
    leave out (``te-compile --disable-fusion``: "residual-add", "bias-grad", "amax", "norm-add"), to measure
    each against the unfused form."""
    if output is None:
        raise ValueError("teq.compile needs output=<path>")
    if kernel_index_bitwidth not in ("auto", 64, "64"):
        raise ValueError(f"kernel_index_bitwidth must be 'auto' or 64, got "
                         f"{kernel_index_bitwidth!r}")
    if isinstance(disable_fusions, str):
        disable_fusions = (disable_fusions,)
    for name in disable_fusions:
        if not isinstance(name, str) or not name or "," in name:
            raise ValueError(f"disable_fusions: each item is one fusion name, got {name!r}")
    module = _as_module(program)
    if target is not None:
        # The whole target, CUDA version included, goes on (a copy of) the
        # module; one it has already must agree.
        target = Target.of(target)
        module = module.clone()
        module._handle.set_target(target.chip, target.cuda)
    output = os.fspath(output)
    module._handle.compile(output, "", emit, device_code,
                           kernel_index_bitwidth in (64, "64"),
                           os.fspath(gemm_algos) if gemm_algos else "",
                           ",".join(disable_fusions))
    return output


@dataclasses.dataclass(frozen=True)
class Target:
    """A GPU target: ``Target("sm_90")``, ``Target("sm_100a", cuda="12.9")``,
    with TE's capabilities."""

    chip: str
    cuda: str = "13.0"

    def __post_init__(self):
        info = _c.target_info(self.chip, self.cuda)
        object.__setattr__(self, "_info", info)

    @classmethod
    def of(cls, target):
        return target if isinstance(target, Target) else cls(str(target))

    @property
    def sm(self):
        return self._info["sm"]

    def supports(self, feature):
        """"fp8", "fp8_block_scaling", "mxfp8", "nvfp4" or "non_tn_fp8_gemm"."""
        if feature not in ("fp8", "fp8_block_scaling", "mxfp8", "nvfp4",
                           "non_tn_fp8_gemm"):
            raise ValueError(f"unknown feature {feature!r}")
        return self._info[feature]

    def to_attr(self):
        return _c.parse_attribute(f"#teq.target<{self.chip}" + (
            "" if self.cuda == "13.0" else f', cuda = "{self.cuda}"') + ">")


def check_recipe_support(recipe, target):
    """TE's message if `target` cannot run `recipe`, else None."""
    if not isinstance(recipe, Recipe):
        raise TypeError(f"expected a teq recipe, got {type(recipe).__name__}")
    target = Target.of(target)
    return _c.check_recipe_support(recipe.to_attr(), target.chip, target.cuda)


@dataclasses.dataclass(frozen=True)
class Buffer:
    """One inner buffer of a quantized tensor, as TE allocates it."""

    name: str
    dtype: str
    shape: Tuple[int, ...]
    valid_shape: Tuple[int, ...]
    bytes: int
    transposed: bool
    usage: str
    is_scale: bool


_USAGES = {"rowwise": 1, "columnwise": 2, "rowwise|columnwise": 3}


class TensorProto:
    """TE's tensor prototype as a value: logical shape and dtype, quantizer,
    usages (``rowwise``, ``columnwise`` or both) and, for MXFP8/NVFP4, the
    scale byte order. ``buffers(target)`` lists its inner buffers on a GPU."""

    def __init__(self, shape, dtype, quantizer, rowwise=True, columnwise=False,
                 gemm_swizzled=False):
        if not isinstance(quantizer, Quantizer):
            raise TypeError(f"expected a teq quantizer, got {type(quantizer).__name__}")
        usage = (1 if rowwise else 0) | (2 if columnwise else 0)
        if not usage:
            raise ValueError("a TensorProto needs rowwise or columnwise usage")
        self._type = _c.proto_type(list(shape), dtype_name(dtype),
                                   quantizer.to_attr(), usage, gemm_swizzled)

    @classmethod
    def from_type(cls, text):
        proto = cls.__new__(cls)
        _c.proto_info(text)  # checks it is a proto type
        proto._type = _c.parse_type(text)
        return proto

    @property
    def _info(self):
        return _c.proto_info(self._type)

    @property
    def shape(self):
        return tuple(self._info["shape"])

    @property
    def dtype(self):
        return self._info["dtype"]

    @property
    def quantizer(self):
        return quantizer_from_attr(self._info["quantizer"])

    @property
    def rowwise(self):
        return bool(self._info["usage"] & 1)

    @property
    def columnwise(self):
        return bool(self._info["usage"] & 2)

    def update_usage(self, rowwise_usage=None, columnwise_usage=None):
        """A copy with the usages changed, as TE's ``update_usage``."""
        row = self.rowwise if rowwise_usage is None else rowwise_usage
        col = self.columnwise if columnwise_usage is None else columnwise_usage
        usage = (1 if row else 0) | (2 if col else 0)
        if not usage:
            raise ValueError("update_usage would leave no usage")
        return TensorProto.from_type(_c.proto_with_usage(self._type, usage))

    def buffers(self, target):
        return [Buffer(b["name"], b["dtype"], tuple(b["shape"]),
                       tuple(b["valid_shape"]), b["bytes"], b["transposed"],
                       b["usage"], b["is_scale"])
                for b in _c.proto_buffers(self._type, Target.of(target).chip)]

    def to_type(self):
        return self._type

    def __str__(self):
        return self._type

    def __repr__(self):
        return f"TensorProto({self._type})"

    def __eq__(self, other):
        return isinstance(other, TensorProto) and self._type == other._type

    def __hash__(self):
        return hash(self._type)
