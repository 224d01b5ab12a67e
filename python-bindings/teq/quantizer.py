"""TE's quantizers (``transformer_engine.pytorch.tensor``), with TE's class
names and fields, as values; and the pieces of a CustomRecipe's rules
(``QuantizerRole``, ``DelayedScalingRequest``).

The FP8/FP4 element type is written as TE's dtype names without the
``tex.DType.kFloat8`` prefix: ``"e4m3"``, ``"e5m2"``, ``"e2m1"``.
A quantizer never holds a process group or tensors: amax reduction groups
and delayed-scaling state are arguments of the program.

    >>> Float8CurrentScalingQuantizer("e5m2", force_pow_2_scales=True).to_attr()
    '#teq.float8_current_scaling_quantizer<f8E5M2, force_pow_2_scales = true>'
"""

import dataclasses
import math
from typing import Optional

_DTYPES = {"e4m3": "f8E4M3FN", "e5m2": "f8E5M2", "e2m1": "f4E2M1FN"}
_DTYPE_NAMES = {v: k for k, v in _DTYPES.items()}
_TENSOR_TYPES = ("input", "weight", "output", "grad_output", "grad_input")


def _format_value(value):
    """A field value in the attribute syntax (the compiler reads it back)."""
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, int):
        return str(value)
    if isinstance(value, float):
        if not math.isfinite(value):
            raise ValueError(f"{value} cannot be written as a teq attribute field")
        text = repr(value)
        # MLIR float literals need a '.' before an exponent: 1e-06 -> 1.0e-06.
        mantissa, e, exponent = text.partition("e")
        if "." not in mantissa:
            mantissa += ".0"
        return mantissa + e + exponent
    if isinstance(value, dict):
        return "<" + ", ".join(f"{k} = {_format_value(v)}" for k, v in value.items()) + ">"
    if hasattr(value, "to_attr"):
        return value.to_attr()
    return str(value)


def _format_struct(mnemonic, fields):
    """``#teq.<mnemonic><k = v, ...>`` for the (key, value) pairs given."""
    return f"#teq.{mnemonic}<" + ", ".join(
        f"{k} = {_format_value(v)}" for k, v in fields) + ">"


def _parameters(text):
    """(mnemonic, {field: value}) of a teq attribute's text, read by the
    compiler through its typed C API (teqAttributeGetParameters: every
    field, defaults included; parameters None for an attribute that is no
    recipe, quantizer or part of one). A text the compiler rejects is a
    ValueError with its message."""
    try:
        from teq import _teq_compiler
    except ImportError as error:
        raise ImportError(f"reading a teq attribute needs the compiler extension "
                          f"(teq._teq_compiler; a build with MLIR): {error}") from None
    from teq.errors import CompilerError

    try:
        return _teq_compiler.attribute_parameters(text)
    except CompilerError as error:
        raise ValueError(str(error)) from None


def _verify(value):
    """Checks `value` (a recipe or quantizer) with the compiler's verifier
    where the compiler extension is built (TE's messages); nothing
    otherwise."""
    try:
        from teq import _teq_compiler
    except ImportError:
        return
    _teq_compiler.verify_attribute(value.to_attr())


class Quantizer:
    """Base of TE's quantizers. Subclasses are frozen dataclasses: the first
    field is the element type, the others the attribute's named fields."""

    _mnemonic = ""

    def to_attr(self):
        fields = dataclasses.fields(self)
        dtype = getattr(self, fields[0].name)
        text = f"#teq.{self._mnemonic}<{_DTYPES[dtype]}"
        for field in fields[1:]:
            value = getattr(self, field.name)
            if value != field.default:
                text += f", {field.name} = {_format_value(value)}"
        return text + ">"

    @classmethod
    def from_attr(cls, text):
        if cls is Quantizer:
            return quantizer_from_attr(text)
        mnemonic, fields = _parameters(text)
        if mnemonic != cls._mnemonic:
            raise ValueError(f"{cls.__name__}: expected a #teq.{cls._mnemonic} attribute, "
                             f"got {text!r}")
        return cls._from_parameters(fields)

    @classmethod
    def _from_parameters(cls, fields):
        fields = dict(fields)
        dtype = fields.pop(dataclasses.fields(cls)[0].name)
        if dtype not in _DTYPE_NAMES:
            raise ValueError(f"{cls.__name__}: unknown element type {dtype}")
        known = {f.name: f for f in dataclasses.fields(cls)}
        kwargs = {}
        for key, value in fields.items():
            if key not in known:
                raise ValueError(f"{cls.__name__} has no field '{key}'")
            if isinstance(known[key].default, float) and isinstance(value, int):
                value = float(value)
            kwargs[key] = value
        return cls(_DTYPE_NAMES[dtype], **kwargs)

    def __str__(self):
        return self.to_attr()

    def __post_init__(self):
        dtype = getattr(self, dataclasses.fields(self)[0].name)
        if dtype not in _DTYPES:
            raise ValueError(f"{type(self).__name__}: unknown dtype {dtype!r} "
                             f"(expected one of {', '.join(_DTYPES)})")
        _verify(self)


@dataclasses.dataclass(frozen=True)
class Float8Quantizer(Quantizer):
    """Per-tensor FP8 with a stored scale (delayed scaling): the scale and
    amax history are arguments of the program."""

    _mnemonic = "float8_quantizer"
    fp8_dtype: str = "e4m3"


@dataclasses.dataclass(frozen=True)
class Float8CurrentScalingQuantizer(Quantizer):
    _mnemonic = "float8_current_scaling_quantizer"
    fp8_dtype: str = "e4m3"
    with_amax_reduction: bool = False
    force_pow_2_scales: bool = False
    amax_epsilon: float = 0.0


@dataclasses.dataclass(frozen=True)
class Float8BlockQuantizer(Quantizer):
    _mnemonic = "float8_block_quantizer"
    fp8_dtype: str = "e4m3"
    block_scaling_dim: int = 2
    force_pow_2_scales: bool = True
    amax_epsilon: float = 0.0


@dataclasses.dataclass(frozen=True)
class MXFP8Quantizer(Quantizer):
    _mnemonic = "mxfp8_quantizer"
    fp8_dtype: str = "e4m3"
    with_2d_quantization: bool = False


@dataclasses.dataclass(frozen=True)
class NVFP4Quantizer(Quantizer):
    _mnemonic = "nvfp4_quantizer"
    fp4_dtype: str = "e2m1"
    with_amax_reduction: bool = False
    with_rht: bool = False
    with_post_rht_amax: bool = False
    with_2d_quantization: bool = False
    stochastic_rounding: bool = False
    row_scaled_nvfp4: bool = False
    nvfp4_use_4over6: bool = False
    nvfp4_e4m3_max: int = 448
    nvfp4_4over6_err_mode: str = "MAE"
    with_random_sign_mask: bool = True


@dataclasses.dataclass(frozen=True)
class QuantizerRole:
    """TE's QuantizerRole; in a CustomRecipe rule a field left None matches
    anything."""

    module_type: Optional[str] = None
    tensor_type: Optional[str] = None
    name: Optional[str] = None

    def __post_init__(self):
        if self.tensor_type is not None and self.tensor_type not in _TENSOR_TYPES:
            raise ValueError(f"QuantizerRole: unknown tensor_type {self.tensor_type!r} "
                             f"(expected one of {', '.join(_TENSOR_TYPES)})")

    def to_attr_body(self):
        fields = []
        if self.module_type:
            fields.append(f'module_type = "{self.module_type}"')
        if self.tensor_type:
            fields.append(f"tensor_type = {self.tensor_type}")
        if self.name:
            fields.append(f'name = "{self.name}"')
        return "<" + ", ".join(fields) + ">"

    def to_attr(self):
        return "#teq.quantizer_role" + self.to_attr_body()

    @classmethod
    def from_fields(cls, fields):
        """The role of a quantizer_role's parameters (an empty string or an
        absent field matches anything: None)."""
        return cls(**{k: (v or None) for k, v in fields.items()})


@dataclasses.dataclass(frozen=True)
class DelayedScalingRequest:
    """What a CustomRecipe rule returns for a stateful delayed-scaling
    quantizer."""

    fp8_format: str = "HYBRID"
    margin: int = 0
    amax_history_len: int = 1024
    amax_compute_algo: str = "max"
    reduce_amax: bool = True

    def to_attr(self):
        fields = []
        for field in dataclasses.fields(self):
            value = getattr(self, field.name)
            if value != field.default:
                fields.append((field.name, value))
        return _format_struct("delayed_scaling_request", fields)

    def __post_init__(self):
        _verify(self)


_QUANTIZERS = {cls._mnemonic: cls for cls in (
    Float8Quantizer, Float8CurrentScalingQuantizer, Float8BlockQuantizer,
    MXFP8Quantizer, NVFP4Quantizer)}


def quantizer_from_attr(text):
    """The quantizer (or DelayedScalingRequest) of an attribute text."""
    mnemonic, fields = _parameters(text)
    if mnemonic == "delayed_scaling_request":
        return DelayedScalingRequest(**fields)
    if mnemonic not in _QUANTIZERS:
        raise ValueError(f"'{text}' is not a teq quantizer (expected one of "
                         + ", ".join(f"#teq.{m}" for m in _QUANTIZERS) + ")")
    return _QUANTIZERS[mnemonic]._from_parameters(fields)
