"""TE's recipes, with TE's class names, fields and defaults
(``transformer_engine.common.recipe``), as values.

Each recipe is a frozen dataclass: equal settings compare and hash equal,
``repr`` shows the fields, and ``to_attr()`` / ``from_attr()`` convert to
and from the ``teq`` attribute that the compiler reads (its textual form is
its serialized form; ``from_attr`` reads it through the compiler's typed C
API, so it needs the compiler extension)::

    >>> DelayedScaling(margin=1).to_attr()
    '#teq.delayed_scaling<margin = 1>'
    >>> Float8CurrentScaling.from_attr('#teq.float8_current_scaling<use_power_2_scales = true>')
    Float8CurrentScaling(use_power_2_scales=True, fp8_format=<Format.HYBRID: 3>, ...)

Where the compiler extension is present, a recipe is checked by the
compiler's verifier when it is made, so a bad field raises ``ValueError``
with TE's message (e.g. "Float8BlockScaling: x_block_scaling_dim must be 1
or 2, got 3"). TE reads some defaults from environment variables
(``NVTE_*``); here the defaults are the values those variables have when
unset, so a recipe means the same thing wherever it is compiled.

Not expressible (as in the compiler): callables (``amax_compute_algo`` as a
function, ``scaling_factor_compute_algo``, ``CustomRecipe.qfactory``); a
CustomRecipe is an ordered list of rules ``QuantizerRole -> quantizer``.
"""

import dataclasses
import enum
from typing import Optional, Tuple

from teq.quantizer import (DelayedScalingRequest, Quantizer, QuantizerRole, _format_struct,
                           _format_value, _parameters, _verify, quantizer_from_attr)


class Format(enum.Enum):
    """TE's Format: E4M3 = (448, 448), E5M2 = (57344, 57344), HYBRID = E4M3
    forward and E5M2 backward, E2M1 = FP4 (6, 6)."""

    E2M1 = 0
    E4M3 = 1
    E5M2 = 2
    HYBRID = 3

    @property
    def max_fwd(self):
        return {0: 6.0, 1: 448.0, 2: 57344.0, 3: 448.0}[self.value]

    @property
    def max_bwd(self):
        return {0: 6.0, 1: 448.0, 2: 57344.0, 3: 57344.0}[self.value]


@dataclasses.dataclass(frozen=True)
class MMParams:
    """TE's MMParams: ``use_split_accumulator = True`` means FP8 fast
    accumulation is off."""

    use_split_accumulator: bool = True


@dataclasses.dataclass(frozen=True)
class QParams:
    """TE's QParams (read-only derived settings of a recipe's quantizers)."""

    power_2_scale: bool = False
    amax_epsilon: float = 0.0
    random_hadamard_transform: bool = False
    stochastic_rounding: bool = False
    fp4_2d_quantization: bool = False


def _to_text(value):
    if isinstance(value, Format):
        return value.name
    if isinstance(value, MMParams):
        return {"use_split_accumulator": value.use_split_accumulator}
    if value is None:
        return "none"
    return value


def _from_text(field, value):
    default = field.default
    if isinstance(default, Format):
        return Format[value]
    if isinstance(default, MMParams):
        return MMParams(**value)
    if field.name == "backward_override":
        return None if value == "none" else value
    if isinstance(default, float) and isinstance(value, int):
        return float(value)
    return value


class Recipe:
    """Base of TE's recipes. Subclasses are frozen dataclasses whose fields
    are, in order, the parameters of the ``#teq.<mnemonic>`` attribute."""

    _mnemonic = ""

    # TE's classmethod predicates.
    @classmethod
    def delayed(cls):
        return cls is DelayedScaling

    @classmethod
    def float8_current_scaling(cls):
        return cls is Float8CurrentScaling

    @classmethod
    def float8_per_tensor_scaling(cls):
        return cls in (DelayedScaling, Float8CurrentScaling)

    @classmethod
    def float8_block_scaling(cls):
        return cls is Float8BlockScaling

    @classmethod
    def mxfp8(cls):
        return cls is MXFP8BlockScaling

    @classmethod
    def nvfp4(cls):
        return cls is NVFP4BlockScaling

    @classmethod
    def custom(cls):
        return cls is CustomRecipe

    def to_attr(self):
        """The ``#teq.<mnemonic><...>`` attribute text (fields at their
        default are left out, as the compiler prints it)."""
        fields = []
        for field in dataclasses.fields(self):
            value = getattr(self, field.name)
            if value != field.default:
                fields.append((field.name, _to_text(value)))
        return _format_struct(self._mnemonic, fields)

    @classmethod
    def from_attr(cls, text):
        """The recipe of an attribute text; on ``Recipe`` itself, of any kind."""
        if cls is Recipe:
            return recipe_from_attr(text)
        mnemonic, fields = _parameters(text)
        if mnemonic != cls._mnemonic:
            raise ValueError(f"{cls.__name__}: expected a #teq.{cls._mnemonic} attribute, "
                             f"got {text!r}")
        return cls._from_parameters(fields)

    @classmethod
    def _from_parameters(cls, fields):
        known = {f.name: f for f in dataclasses.fields(cls)}
        kwargs = {}
        for key, value in fields.items():
            if key not in known:
                raise ValueError(f"{cls.__name__} has no field '{key}'")
            kwargs[key] = _from_text(known[key], value)
        return cls(**kwargs)

    def __str__(self):
        return self.to_attr()

    def __post_init__(self):
        _verify(self)


@dataclasses.dataclass(frozen=True)
class DelayedScaling(Recipe):
    """Per-tensor FP8 with a scale from an amax history of earlier steps:
    ``scale = (FP8_MAX / amax) / 2^margin``. TE asserts backward_override is
    None for this recipe."""

    _mnemonic = "delayed_scaling"
    margin: int = 0
    fp8_format: Format = Format.HYBRID
    amax_history_len: int = 1024
    amax_compute_algo: str = "max"
    reduce_amax: bool = True
    fp8_dpa: bool = False
    fp8_mha: bool = False
    backward_override: Optional[str] = None


@dataclasses.dataclass(frozen=True)
class Float8CurrentScaling(Recipe):
    """Per-tensor FP8 with the scale from the tensor's own amax."""

    _mnemonic = "float8_current_scaling"
    use_power_2_scales: bool = False
    fp8_format: Format = Format.HYBRID
    fp8_gemm_fprop: MMParams = MMParams(use_split_accumulator=False)
    fp8_gemm_dgrad: MMParams = MMParams(use_split_accumulator=True)
    fp8_gemm_wgrad: MMParams = MMParams(use_split_accumulator=True)
    fp8_dpa: bool = False
    fp8_mha: bool = False
    backward_override: Optional[str] = None

    @property
    def fp8_quant_fwd_inp(self):
        return QParams(power_2_scale=self.use_power_2_scales)

    fp8_quant_fwd_weight = fp8_quant_fwd_inp
    fp8_quant_bwd_grad = fp8_quant_fwd_inp


@dataclasses.dataclass(frozen=True)
class Float8BlockScaling(Recipe):
    """FP8 with one scale per 1x128 (dim 1) or 128x128 (dim 2) block
    (DeepSeek-V3 style); split accumulation is required for all GEMMs."""

    _mnemonic = "float8_block_scaling"
    use_f32_scales: bool = False
    fp8_format: Format = Format.E4M3
    x_block_scaling_dim: int = 1
    w_block_scaling_dim: int = 2
    grad_block_scaling_dim: int = 1
    fp8_gemm_fprop: MMParams = MMParams(use_split_accumulator=True)
    fp8_gemm_dgrad: MMParams = MMParams(use_split_accumulator=True)
    fp8_gemm_wgrad: MMParams = MMParams(use_split_accumulator=True)
    fp8_dpa: bool = False
    fp8_mha: bool = False
    backward_override: Optional[str] = None

    @property
    def fp8_quant_fwd_inp(self):
        return QParams(power_2_scale=not self.use_f32_scales)

    fp8_quant_fwd_weight = fp8_quant_fwd_inp
    fp8_quant_bwd_grad = fp8_quant_fwd_inp


@dataclasses.dataclass(frozen=True)
class MXFP8BlockScaling(Recipe):
    """FP8 with one E8M0 scale per 32 elements; ``enable_2d_quantization``
    gives Linear weights 32x32 blocks."""

    _mnemonic = "mxfp8_block_scaling"
    margin: int = 0
    fp8_format: Format = Format.E4M3
    enable_2d_quantization: bool = False
    fp8_dpa: bool = False
    fp8_mha: bool = False
    backward_override: Optional[str] = None


@dataclasses.dataclass(frozen=True)
class NVFP4BlockScaling(Recipe):
    """FP4 E2M1 with an E4M3 scale per 16 elements and a per-tensor fp32
    scale; RHT on the columnwise copies of inputs and gradients, stochastic
    rounding of gradients and 16x16 weight blocks unless disabled."""

    _mnemonic = "nvfp4_block_scaling"
    disable_rht: bool = False
    disable_stochastic_rounding: bool = False
    disable_2d_quantization: bool = False
    row_scaled_activation: bool = False
    nvfp4_4over6: str = "none"
    nvfp4_4over6_e4m3_use_256: str = "all"
    nvfp4_4over6_err_mode: str = "MAE"
    fp4_format: Format = Format.E2M1
    fp8_format: Format = Format.E4M3
    fp8_dpa: bool = False
    fp8_mha: bool = False
    backward_override: Optional[str] = None

    @property
    def fp4_quant_fwd_inp(self):
        return QParams(random_hadamard_transform=not self.disable_rht)

    @property
    def fp4_quant_fwd_weight(self):
        return QParams(fp4_2d_quantization=not self.disable_2d_quantization)

    @property
    def fp4_quant_bwd_grad(self):
        return QParams(random_hadamard_transform=not self.disable_rht,
                       stochastic_rounding=not self.disable_stochastic_rounding)


@dataclasses.dataclass(frozen=True)
class CustomRecipe(Recipe):
    """TE's CustomRecipe with its ``qfactory`` written as ordered rules
    ``(QuantizerRole, quantizer)``: the first rule whose role pattern
    matches (fields left None match anything) gives the quantizer, or a
    DelayedScalingRequest."""

    _mnemonic = "custom_recipe"
    rules: Tuple[Tuple[QuantizerRole, object], ...]
    fp8_format: Format = Format.HYBRID
    quantization_alignment: int = 128
    backward_override: Optional[str] = None

    def __post_init__(self):
        object.__setattr__(self, "rules", tuple(
            (role, quantizer) for role, quantizer in self.rules))
        for role, quantizer in self.rules:
            if not isinstance(role, QuantizerRole):
                raise TypeError(f"CustomRecipe rule role must be a QuantizerRole, "
                                f"got {role!r}")
            if not isinstance(quantizer, (Quantizer, DelayedScalingRequest)):
                raise TypeError(f"CustomRecipe rule quantizer must be a teq "
                                f"quantizer or DelayedScalingRequest, got {quantizer!r}")
        Recipe.__post_init__(self)

    def to_attr(self):
        rules = ", ".join(f"{role.to_attr_body()} -> {quantizer.to_attr()}"
                          for role, quantizer in self.rules)
        text = f"#teq.custom_recipe<[{rules}]"
        for field in dataclasses.fields(self):
            if field.name == "rules":
                continue
            value = getattr(self, field.name)
            if value != field.default:
                text += f", {field.name} = {_format_value(_to_text(value))}"
        return text + ">"

    @classmethod
    def _from_parameters(cls, fields):
        fields = dict(fields)
        rules = fields.pop("rules")
        known = {f.name: f for f in dataclasses.fields(cls)}
        kwargs = {}
        for key, value in fields.items():
            if key not in known:
                raise ValueError(f"CustomRecipe has no field '{key}'")
            kwargs[key] = _from_text(known[key], value)
        return cls(rules=tuple((QuantizerRole.from_fields(role), quantizer_from_attr(q))
                               for role, q in rules), **kwargs)


_RECIPES = {cls._mnemonic: cls for cls in (
    DelayedScaling, Float8CurrentScaling, Float8BlockScaling, MXFP8BlockScaling,
    NVFP4BlockScaling, CustomRecipe)}


def recipe_from_attr(text):
    """The recipe object of any ``#teq.<recipe><...>`` attribute text."""
    mnemonic, fields = _parameters(text)
    if mnemonic not in _RECIPES:
        raise ValueError(f"'{text}' is not a teq recipe (expected one of "
                         + ", ".join(f"#teq.{m}" for m in _RECIPES) + ")")
    return _RECIPES[mnemonic]._from_parameters(fields)
