"""Recipes and quantizers: TE's names, fields and defaults, value semantics,
the attribute text both ways, and TE's messages on bad fields."""

import dataclasses

import pytest

# A runtime-only build (a GPU node) has no compiler: nothing here applies.
pytest.importorskip("teq._teq_compiler", reason="the compiler extension is not built here")

import teq  # noqa: E402
from teq.quantizer import (DelayedScalingRequest, Float8BlockQuantizer,
                           Float8CurrentScalingQuantizer, Float8Quantizer,
                           MXFP8Quantizer, NVFP4Quantizer, Quantizer,
                           QuantizerRole)
from teq.recipe import (CustomRecipe, DelayedScaling, Float8BlockScaling,
                        Float8CurrentScaling, Format, MMParams,
                        MXFP8BlockScaling, NVFP4BlockScaling, Recipe)

pytestmark = pytest.mark.usefixtures("compiler")

EVERY_RECIPE = [
    DelayedScaling(),
    DelayedScaling(margin=1, amax_history_len=16, amax_compute_algo="most_recent",
                   reduce_amax=False),
    Float8CurrentScaling(),
    Float8CurrentScaling(use_power_2_scales=True,
                         fp8_gemm_fprop=MMParams(use_split_accumulator=True)),
    Float8BlockScaling(),
    Float8BlockScaling(x_block_scaling_dim=2, w_block_scaling_dim=1,
                       use_f32_scales=True),
    MXFP8BlockScaling(),
    MXFP8BlockScaling(fp8_format=Format.HYBRID, enable_2d_quantization=True),
    NVFP4BlockScaling(),
    NVFP4BlockScaling(disable_rht=True, disable_stochastic_rounding=True,
                      backward_override="high_precision"),
    CustomRecipe(rules=(
        (QuantizerRole(tensor_type="weight"), Float8BlockQuantizer("e4m3")),
        (QuantizerRole(tensor_type="grad_output"),
         Float8CurrentScalingQuantizer("e5m2")),
        (QuantizerRole(), Float8CurrentScalingQuantizer("e4m3"))),
        quantization_alignment=64),
]

EVERY_QUANTIZER = [
    Float8Quantizer("e4m3"),
    Float8CurrentScalingQuantizer("e5m2", force_pow_2_scales=True,
                                  amax_epsilon=1e-6),
    Float8BlockQuantizer("e4m3", block_scaling_dim=1),
    MXFP8Quantizer("e4m3", with_2d_quantization=True),
    NVFP4Quantizer("e2m1", with_rht=True, with_post_rht_amax=True,
                   stochastic_rounding=True),
]


def test_defaults_are_te_defaults():
    assert DelayedScaling().margin == 0
    assert DelayedScaling().amax_history_len == 1024
    assert DelayedScaling().amax_compute_algo == "max"
    assert DelayedScaling().fp8_format is Format.HYBRID
    assert DelayedScaling().reduce_amax is True
    cur = Float8CurrentScaling()
    assert cur.fp8_gemm_fprop == MMParams(use_split_accumulator=False)
    assert cur.fp8_gemm_dgrad == MMParams(True) == cur.fp8_gemm_wgrad
    block = Float8BlockScaling()
    assert (block.x_block_scaling_dim, block.w_block_scaling_dim,
            block.grad_block_scaling_dim) == (1, 2, 1)
    assert block.fp8_format is Format.E4M3
    assert block.fp8_quant_fwd_inp.power_2_scale is True
    assert MXFP8BlockScaling().fp8_format is Format.E4M3
    nvfp4 = NVFP4BlockScaling()
    assert nvfp4.fp4_quant_fwd_inp.random_hadamard_transform
    assert nvfp4.fp4_quant_bwd_grad.stochastic_rounding
    assert nvfp4.fp4_quant_fwd_weight.fp4_2d_quantization
    assert Format.HYBRID.max_fwd == 448 and Format.HYBRID.max_bwd == 57344


@pytest.mark.parametrize("recipe", EVERY_RECIPE, ids=repr)
def test_recipe_round_trips_through_the_compiler(recipe, compiler):
    text = recipe.to_attr()
    # The compiler prints it exactly so (defaults left out).
    assert compiler.parse_attribute(text) == text
    assert Recipe.from_attr(text) == recipe
    assert type(recipe).from_attr(text) == recipe
    assert hash(Recipe.from_attr(text)) == hash(recipe)
    assert str(recipe) == text


@pytest.mark.parametrize("quantizer", EVERY_QUANTIZER, ids=repr)
def test_quantizer_round_trips_through_the_compiler(quantizer, compiler):
    text = quantizer.to_attr()
    assert Quantizer.from_attr(text) == quantizer
    # The compiler's own print (floats in its notation) reads back equal.
    assert Quantizer.from_attr(compiler.parse_attribute(text)) == quantizer


def test_value_semantics():
    assert DelayedScaling(margin=1) == DelayedScaling(margin=1)
    assert DelayedScaling(margin=1) != DelayedScaling(margin=2)
    assert len({DelayedScaling(margin=1), DelayedScaling(margin=1)}) == 1
    assert "margin=1" in repr(DelayedScaling(margin=1))
    assert "amax_history_len=1024" in repr(DelayedScaling(margin=1))
    with pytest.raises(dataclasses.FrozenInstanceError):
        DelayedScaling().margin = 3
    assert DelayedScaling.delayed() and not DelayedScaling.mxfp8()
    assert Float8CurrentScaling.float8_per_tensor_scaling()


@pytest.mark.parametrize("make, message", [
    (lambda: Float8BlockScaling(x_block_scaling_dim=3),
     "Float8BlockScaling: x_block_scaling_dim must be 1 or 2, got 3"),
    (lambda: Float8BlockScaling(x_block_scaling_dim=2, w_block_scaling_dim=2),
     "Float8BlockScaling: 2D by 2D block gemm not supported"),
    (lambda: DelayedScaling(fp8_format=Format.E5M2),
     "Pure E5M2 training is not supported."),
    (lambda: DelayedScaling(backward_override="dequantized"),
     "DelayedScaling: backward_override is not supported"),
    (lambda: NVFP4BlockScaling(fp4_format=Format.E4M3),
     "NVFP4BlockScaling: fp4_format must be E2M1"),
    (lambda: Float8BlockQuantizer("e4m3", block_scaling_dim=3),
     "Float8BlockQuantizer: block_scaling_dim must be 1"),
    (lambda: NVFP4Quantizer("e4m3"), "NVFP4Quantizer quantizes to f4E2M1FN"),
    (lambda: CustomRecipe(rules=()), "CustomRecipe: the rule list is empty"),
    (lambda: DelayedScaling(margin=101), "DelayedScaling: margin must be in [-100, 100]"),
])
def test_te_messages_on_bad_fields(make, message):
    with pytest.raises(ValueError) as error:
        make()
    assert message in str(error.value)


def test_bad_python_values():
    with pytest.raises(ValueError, match="unknown dtype 'fp8'"):
        Float8Quantizer("fp8")
    with pytest.raises(ValueError, match="unknown tensor_type 'bias'"):
        QuantizerRole(tensor_type="bias")
    with pytest.raises(TypeError, match="QuantizerRole"):
        CustomRecipe(rules=(("weight", Float8Quantizer("e4m3")),))
    # The compiler reads the text (teqAttributeGetParameters): its message.
    with pytest.raises(ValueError, match="unknown struct parameter name: margn"):
        DelayedScaling.from_attr("#teq.delayed_scaling<margn = 1>")
    with pytest.raises(ValueError, match="DelayedScaling: expected a #teq.delayed_scaling"):
        DelayedScaling.from_attr("#teq.mxfp8_block_scaling<>")
    with pytest.raises(ValueError, match="is not a teq recipe"):
        Recipe.from_attr("#teq.mxfp8_quantizer<f8E4M3FN>")


def test_attribute_parameters_by_the_c_api(compiler):
    """Every field, defaults included, typed: what from_attr builds on."""
    mnemonic, fields = compiler.attribute_parameters(
        "#teq.float8_current_scaling<use_power_2_scales = true>")
    assert mnemonic == "float8_current_scaling"
    assert fields["use_power_2_scales"] is True and fields["fp8_format"] == "HYBRID"
    assert fields["fp8_gemm_fprop"] == {"use_split_accumulator": False}
    assert fields["backward_override"] == "none" and len(fields) == 8
    mnemonic, fields = compiler.attribute_parameters(
        "#teq.float8_block_quantizer<f8E4M3FN, amax_epsilon = 1.0e-06>")
    assert mnemonic == "float8_block_quantizer"
    assert fields == {"fp8_dtype": "f8E4M3FN", "block_scaling_dim": 2,
                      "force_pow_2_scales": True, "amax_epsilon": 1e-06}
    mnemonic, fields = compiler.attribute_parameters(
        '#teq.custom_recipe<[<tensor_type = weight> -> #teq.mxfp8_quantizer<f8E4M3FN>, '
        '<name = "fc1"> -> #teq.delayed_scaling_request<margin = 1>]>')
    assert mnemonic == "custom_recipe" and fields["quantization_alignment"] == 128
    assert fields["rules"] == [
        [{"module_type": "", "tensor_type": "weight", "name": ""},
         "#teq.mxfp8_quantizer<f8E4M3FN>"],
        [{"module_type": "", "name": "fc1"}, "#teq.delayed_scaling_request<margin = 1>"]]
    assert compiler.attribute_parameters("#teq.target<sm_90>") == ("target", None)
    assert compiler.attribute_parameters("1 : i64") == ("", None)


def test_delayed_scaling_request_in_a_custom_recipe(compiler):
    recipe = CustomRecipe(rules=(
        (QuantizerRole(tensor_type="weight"),
         DelayedScalingRequest(amax_history_len=32)),
        (QuantizerRole(), Float8CurrentScalingQuantizer("e4m3"))))
    assert compiler.parse_attribute(recipe.to_attr()) == recipe.to_attr()
    assert Recipe.from_attr(recipe.to_attr()) == recipe
