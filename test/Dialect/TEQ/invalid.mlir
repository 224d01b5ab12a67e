// RUN: te-opt %s -split-input-file -verify-diagnostics

// Every diagnostic the teq parsers and verifiers can emit from textual IR, one
// case per split. Attribute and type errors are reported at the attribute, so
// each bad attribute sits on its own line of a func attribute dictionary or
// inline in a type on the op line.

//===----------------------------------------------------------------------===//
// teq.target placement (TEQDialect::verifyOperationAttribute)
//===----------------------------------------------------------------------===//

// expected-error @+1 {{'teq.target' belongs on a builtin.module}}
func.func private @target_on_func() attributes {teq.target = #teq.target<sm_90>}

// -----

// expected-error @+1 {{'teq.target' must be a #teq.target<...>, got "sm_90"}}
module attributes {teq.target = "sm_90"} {}

// -----

// expected-error @+1 {{'teq.target' must be a #teq.target<...>, got #teq.float8_current_scaling<>}}
module attributes {teq.target = #teq.float8_current_scaling<>} {}

// -----

// The attribute name prints with extra quotes ('"teq.recipe"'), so only the
// rest of the message is matched.
// expected-error @+1 {{on an operation; teq knows 'teq.target'}}
module attributes {teq.recipe = #teq.delayed_scaling<>} {}

// -----

//===----------------------------------------------------------------------===//
// #teq.target
//===----------------------------------------------------------------------===//

func.func private @bad_chip() attributes {
  // expected-error @+1 {{; expected sm_<compute capability>[a|f] such as sm_90 or sm_100a}}
  t = #teq.target<sm_abc>
}

// -----

func.func private @bad_chip_suffix() attributes {
  // expected-error @+1 {{; expected sm_<compute capability>[a|f] such as sm_90 or sm_100a}}
  t = #teq.target<sm_90b>
}

// -----

func.func private @bad_chip_prefix() attributes {
  // expected-error @+1 {{; expected sm_<compute capability>[a|f] such as sm_90 or sm_100a}}
  t = #teq.target<gfx942>
}

// -----

func.func private @bad_chip_overflow() attributes {
  // expected-error @+1 {{; expected sm_<compute capability>[a|f] such as sm_90 or sm_100a}}
  t = #teq.target<sm_99999999999>
}

// -----

// One chip-name rule for the attribute and the artifact manifest
// (layout::parseChipName): 2 to 4 digits, no leading zero.
func.func private @chip_one_digit() attributes {
  // expected-error @+1 {{invalid GPU target 'sm_9'; expected sm_<compute capability>[a|f] such as sm_90 or sm_100a}}
  t = #teq.target<sm_9>
}

// -----

func.func private @chip_five_digits() attributes {
  // expected-error @+1 {{invalid GPU target 'sm_12345'; expected sm_<compute capability>[a|f] such as sm_90 or sm_100a}}
  t = #teq.target<sm_12345>
}

// -----

func.func private @chip_leading_zero() attributes {
  // expected-error @+1 {{invalid GPU target 'sm_090'; expected sm_<compute capability>[a|f] such as sm_90 or sm_100a}}
  t = #teq.target<sm_090>
}

// -----

// Four digits is a chip name; teq does not know the chip.
func.func private @chip_four_digits() attributes {
  // expected-error @+1 {{unsupported GPU target sm_1000: teq knows sm_70 through sm_130}}
  t = #teq.target<sm_1000a>
}

// -----

func.func private @old_chip() attributes {
  // expected-error @+1 {{unsupported GPU target sm_60: teq knows sm_70 through sm_130}}
  t = #teq.target<sm_60>
}

// -----

func.func private @future_chip() attributes {
  // expected-error @+1 {{unsupported GPU target sm_150: teq knows sm_70 through sm_130}}
  t = #teq.target<sm_150>
}

// -----

func.func private @bad_cuda() attributes {
  // expected-error @+1 {{malformed CUDA version "twelve"; expected MAJOR.MINOR such as "12.9"}}
  t = #teq.target<sm_90, cuda = "twelve">
}

// -----

func.func private @bad_cuda_minor() attributes {
  // expected-error @+1 {{malformed CUDA version "12.10"}}
  t = #teq.target<sm_90, cuda = "12.10">
}

// -----

func.func private @bad_target_field() attributes {
  // expected-error @+1 {{expected 'cuda'}}
  t = #teq.target<sm_90, cudnn = "9.1">
}

// -----

//===----------------------------------------------------------------------===//
// #teq.mm_params, #teq.quantizer_role, #teq.delayed_scaling_request
//===----------------------------------------------------------------------===//

func.func private @bad_bool() attributes {
  // expected-error @+2 {{expected 'true' or 'false'}}
  // expected-error @+1 {{failed to parse TEQ_MMParamsAttr parameter 'use_split_accumulator' which is to be a `bool`}}
  m = #teq.mm_params<use_split_accumulator = 1>
}

// -----

func.func private @role_field_twice() attributes {
  // expected-error @+1 {{field 'name' given twice}}
  r = #teq.quantizer_role<name = "fc1", name = "fc2">
}

// -----

func.func private @role_bad_tensor_type() attributes {
  // expected-error @+1 {{unknown tensor_type 'activation'; expected input, weight, output, grad_output or grad_input}}
  r = #teq.quantizer_role<tensor_type = activation>
}

// -----

func.func private @role_bad_field() attributes {
  // expected-error @+1 {{unknown field 'module' in #teq.quantizer_role; expected module_type, tensor_type or name}}
  r = #teq.quantizer_role<module = "linear">
}

// -----

func.func private @request_e5m2() attributes {
  // expected-error @+1 {{DelayedScalingRequest: Pure E5M2 training is not supported.}}
  r = #teq.delayed_scaling_request<fp8_format = E5M2>
}

// -----

func.func private @request_e2m1() attributes {
  // expected-error @+1 {{DelayedScalingRequest: fp8_format = E2M1 is an FP4 format; use E4M3 or HYBRID}}
  r = #teq.delayed_scaling_request<fp8_format = E2M1>
}

// -----

func.func private @request_history() attributes {
  // expected-error @+1 {{DelayedScalingRequest: amax_history_len must be at least 1, got 0}}
  r = #teq.delayed_scaling_request<amax_history_len = 0>
}

// -----

func.func private @request_margin() attributes {
  // expected-error @+1 {{DelayedScalingRequest: margin must be in [-100, 100] (fp8_max * 2^-margin must stay a normal float32), got -101}}
  r = #teq.delayed_scaling_request<margin = -101>
}

// -----

//===----------------------------------------------------------------------===//
// Recipes
//===----------------------------------------------------------------------===//

func.func private @unknown_recipe() attributes {
  // expected-error @+1 {{unknown attribute `foo_scaling` in dialect `teq`}}
  r = #teq.foo_scaling<>
}

// -----

func.func private @recipe_bad_field() attributes {
  // expected-error @+1 {{duplicate or unknown struct parameter name: amax_history_length}}
  r = #teq.delayed_scaling<amax_history_length = 16>
}

// -----

func.func private @recipe_quantizer_field() attributes {
  // A quantizer field is not a recipe field.
  // expected-error @+1 {{duplicate or unknown struct parameter name: force_pow_2_scales}}
  r = #teq.float8_block_scaling<force_pow_2_scales = false>
}

// -----

func.func private @recipe_bad_enum() attributes {
  // expected-error @+2 {{expected ::mlir::teq::Format to be one of: E2M1, E4M3, E5M2, HYBRID}}
  // expected-error @+1 {{failed to parse TEQ_Float8CurrentScalingAttr parameter 'fp8_format' which is to be a `::mlir::teq::Format`}}
  r = #teq.float8_current_scaling<fp8_format = E3M4>
}

// -----

func.func private @delayed_e5m2() attributes {
  // expected-error @+1 {{DelayedScaling: Pure E5M2 training is not supported.}}
  r = #teq.delayed_scaling<fp8_format = E5M2>
}

// -----

func.func private @delayed_e2m1() attributes {
  // expected-error @+1 {{DelayedScaling: fp8_format = E2M1 is an FP4 format; use E4M3 or HYBRID}}
  r = #teq.delayed_scaling<fp8_format = E2M1>
}

// -----

func.func private @delayed_history() attributes {
  // expected-error @+1 {{DelayedScaling: amax_history_len must be at least 1, got 0}}
  r = #teq.delayed_scaling<amax_history_len = 0>
}

// -----

func.func private @delayed_margin() attributes {
  // expected-error @+1 {{DelayedScaling: margin must be in [-100, 100] (fp8_max * 2^-margin must stay a normal float32), got 101}}
  r = #teq.delayed_scaling<margin = 101>
}

// -----

func.func private @delayed_backward_override() attributes {
  // expected-error @+1 {{DelayedScaling: backward_override is not supported with delayed scaling}}
  r = #teq.delayed_scaling<backward_override = dequantized>
}

// -----

func.func private @current_e5m2() attributes {
  // expected-error @+1 {{Float8CurrentScaling: Pure E5M2 training is not supported.}}
  r = #teq.float8_current_scaling<fp8_format = E5M2>
}

// -----

func.func private @current_bad_mm_params() attributes {
  // expected-error @+3 {{expected 'true' or 'false'}}
  // expected-error @+2 {{failed to parse TEQ_MMParamsAttr parameter 'use_split_accumulator'}}
  // expected-error @+1 {{failed to parse TEQ_Float8CurrentScalingAttr parameter 'fp8_gemm_fprop' which is to be a `MMParamsAttr`}}
  r = #teq.float8_current_scaling<fp8_gemm_fprop = <use_split_accumulator = maybe>>
}

// -----

func.func private @block_e5m2() attributes {
  // expected-error @+1 {{Float8BlockScaling: Pure E5M2 training is not supported.}}
  r = #teq.float8_block_scaling<fp8_format = E5M2>
}

// -----

func.func private @block_dim_x() attributes {
  // expected-error @+1 {{Float8BlockScaling: x_block_scaling_dim must be 1 or 2, got 3}}
  r = #teq.float8_block_scaling<x_block_scaling_dim = 3>
}

// -----

func.func private @block_dim_w() attributes {
  // expected-error @+1 {{Float8BlockScaling: w_block_scaling_dim must be 1 or 2, got 0}}
  r = #teq.float8_block_scaling<w_block_scaling_dim = 0>
}

// -----

func.func private @block_dim_grad() attributes {
  // expected-error @+1 {{Float8BlockScaling: grad_block_scaling_dim must be 1 or 2, got 3}}
  r = #teq.float8_block_scaling<grad_block_scaling_dim = 3>
}

// -----

func.func private @block_2d_x_w() attributes {
  // expected-error @+1 {{Float8BlockScaling: 2D by 2D block gemm not supported (x_block_scaling_dim = 2 and w_block_scaling_dim = 2)}}
  r = #teq.float8_block_scaling<x_block_scaling_dim = 2>
}

// -----

func.func private @block_2d_x_grad() attributes {
  // expected-error @+1 {{Float8BlockScaling: 2D by 2D block gemm not supported (x_block_scaling_dim = 2 and grad_block_scaling_dim = 2)}}
  r = #teq.float8_block_scaling<x_block_scaling_dim = 2, w_block_scaling_dim = 1, grad_block_scaling_dim = 2>
}

// -----

func.func private @block_2d_w_grad() attributes {
  // expected-error @+1 {{Float8BlockScaling: 2D by 2D block gemm not supported (w_block_scaling_dim = 2 and grad_block_scaling_dim = 2)}}
  r = #teq.float8_block_scaling<grad_block_scaling_dim = 2>
}

// -----

func.func private @block_fast_accum_fprop() attributes {
  // expected-error @+1 {{Float8BlockScaling: fp8_gemm_fprop must use split accumulator}}
  r = #teq.float8_block_scaling<fp8_gemm_fprop = <use_split_accumulator = false>>
}

// -----

func.func private @block_fast_accum_dgrad() attributes {
  // expected-error @+1 {{Float8BlockScaling: fp8_gemm_dgrad must use split accumulator}}
  r = #teq.float8_block_scaling<fp8_gemm_dgrad = <use_split_accumulator = false>>
}

// -----

func.func private @block_fast_accum_wgrad() attributes {
  // expected-error @+1 {{Float8BlockScaling: fp8_gemm_wgrad must use split accumulator (block-scaled GEMMs require use_split_accumulator = true)}}
  r = #teq.float8_block_scaling<fp8_gemm_wgrad = <use_split_accumulator = false>>
}

// -----

func.func private @block_fp8_dpa() attributes {
  // expected-error @+1 {{Float8BlockScaling: FP8 attention (fp8_dpa, fp8_mha) is not supported with block scaling}}
  r = #teq.float8_block_scaling<fp8_dpa = true>
}

// -----

func.func private @block_fp8_mha() attributes {
  // expected-error @+1 {{Float8BlockScaling: FP8 attention (fp8_dpa, fp8_mha) is not supported with block scaling}}
  r = #teq.float8_block_scaling<fp8_mha = true>
}

// -----

func.func private @mxfp8_e5m2() attributes {
  // expected-error @+1 {{MXFP8BlockScaling: Pure E5M2 training is not supported.}}
  r = #teq.mxfp8_block_scaling<fp8_format = E5M2>
}

// -----

func.func private @mxfp8_e2m1() attributes {
  // expected-error @+1 {{MXFP8BlockScaling: fp8_format = E2M1 is an FP4 format; use E4M3 or HYBRID}}
  r = #teq.mxfp8_block_scaling<fp8_format = E2M1>
}

// -----

func.func private @nvfp4_fp4_format() attributes {
  // expected-error @+1 {{NVFP4BlockScaling: fp4_format must be E2M1, got E4M3}}
  r = #teq.nvfp4_block_scaling<fp4_format = E4M3>
}

// -----

func.func private @nvfp4_fp8_format() attributes {
  // expected-error @+1 {{NVFP4BlockScaling: fp8_format (the block scale format) must be E4M3, got HYBRID}}
  r = #teq.nvfp4_block_scaling<fp8_format = HYBRID>
}

// -----

func.func private @nvfp4_4over6_with_rht() attributes {
  // expected-error @+1 {{NVFP4BlockScaling: nvfp4_4over6 = activations cannot be combined with RHT or stochastic rounding}}
  r = #teq.nvfp4_block_scaling<nvfp4_4over6 = activations>
}

// -----

func.func private @nvfp4_4over6_with_sr() attributes {
  // expected-error @+1 {{NVFP4BlockScaling: nvfp4_4over6 = all cannot be combined with RHT or stochastic rounding; set disable_rht = true and disable_stochastic_rounding = true}}
  r = #teq.nvfp4_block_scaling<disable_rht = true, nvfp4_4over6 = all>
}

// -----

func.func private @nvfp4_row_scaled_rht() attributes {
  // expected-error @+1 {{NVFP4BlockScaling: row_scaled_activation forbids RHT; set disable_rht = true}}
  r = #teq.nvfp4_block_scaling<row_scaled_activation = true>
}

// -----

func.func private @nvfp4_bad_4over6() attributes {
  // expected-error @+2 {{expected ::mlir::teq::NVFP4FourOverSix to be one of: none, weights, activations, all}}
  // expected-error @+1 {{failed to parse TEQ_NVFP4BlockScalingAttr parameter 'nvfp4_4over6'}}
  r = #teq.nvfp4_block_scaling<nvfp4_4over6 = sometimes>
}

// -----

func.func private @custom_e5m2() attributes {
  // expected-error @+1 {{CustomRecipe: Pure E5M2 training is not supported.}}
  r = #teq.custom_recipe<[<> -> #teq.float8_current_scaling_quantizer<f8E4M3FN>], fp8_format = E5M2>
}

// -----

func.func private @custom_alignment_zero() attributes {
  // expected-error @+1 {{CustomRecipe: quantization_alignment must be greater than 0, got 0}}
  r = #teq.custom_recipe<[<> -> #teq.float8_current_scaling_quantizer<f8E4M3FN>], quantization_alignment = 0>
}

// -----

func.func private @custom_alignment_negative() attributes {
  // expected-error @+1 {{CustomRecipe: quantization_alignment must be greater than 0, got -64}}
  r = #teq.custom_recipe<[<> -> #teq.float8_current_scaling_quantizer<f8E4M3FN>], quantization_alignment = -64>
}

// -----

func.func private @custom_empty() attributes {
  // expected-error @+1 {{CustomRecipe: the rule list is empty; map at least one role to a quantizer}}
  r = #teq.custom_recipe<[]>
}

// -----

func.func private @custom_stateful_quantizer() attributes {
  // expected-error @+1 {{CustomRecipe: rule 1 gives a stateful #teq.float8_quantizer; ask for delayed scaling with #teq.delayed_scaling_request<...> instead}}
  r = #teq.custom_recipe<[<tensor_type = weight> -> #teq.mxfp8_quantizer<f8E4M3FN>, <> -> #teq.float8_quantizer<f8E4M3FN>]>
}

// -----

func.func private @custom_requests_differ() attributes {
  // expected-error @+1 {{CustomRecipe: all DelayedScalingRequests of one recipe must match, but rule 2 differs from an earlier one}}
  r = #teq.custom_recipe<[<tensor_type = input> -> #teq.delayed_scaling_request<>, <tensor_type = weight> -> #teq.delayed_scaling_request<>, <> -> #teq.delayed_scaling_request<margin = 1>]>
}

// -----

func.func private @custom_not_a_quantizer() attributes {
  // expected-error @+1 {{CustomRecipe: rule 0 maps to 42 : i64, which is neither a quantizer nor a #teq.delayed_scaling_request}}
  r = #teq.custom_recipe<[<> -> 42]>
}

// -----

func.func private @custom_recipe_as_quantizer() attributes {
  // expected-error @+1 {{CustomRecipe: rule 0 maps to #teq.float8_current_scaling<>, which is neither a quantizer nor a #teq.delayed_scaling_request}}
  r = #teq.custom_recipe<[<> -> #teq.float8_current_scaling<>]>
}

// -----

func.func private @custom_field_twice() attributes {
  // expected-error @+1 {{field 'quantization_alignment' given twice}}
  r = #teq.custom_recipe<[<> -> #teq.mxfp8_quantizer<f8E4M3FN>], quantization_alignment = 64, quantization_alignment = 32>
}

// -----

func.func private @custom_bad_field() attributes {
  // expected-error @+1 {{unknown field 'alignment' in #teq.custom_recipe; expected fp8_format, quantization_alignment or backward_override}}
  r = #teq.custom_recipe<[<> -> #teq.mxfp8_quantizer<f8E4M3FN>], alignment = 64>
}

// -----

func.func private @custom_bad_format() attributes {
  // expected-error @+1 {{unknown format 'E3M4'}}
  r = #teq.custom_recipe<[<> -> #teq.mxfp8_quantizer<f8E4M3FN>], fp8_format = E3M4>
}

// -----

func.func private @custom_bad_backward_override() attributes {
  // expected-error @+1 {{unknown backward_override 'fp32'}}
  r = #teq.custom_recipe<[<> -> #teq.mxfp8_quantizer<f8E4M3FN>], backward_override = fp32>
}

// -----

func.func private @custom_no_rule_list() attributes {
  // expected-error @+1 {{expected '[' in a custom recipe's rule list}}
  r = #teq.custom_recipe<quantization_alignment = 64>
}

// -----

func.func private @custom_role_not_a_role() attributes {
  // expected-error @+1 {{invalid kind of attribute specified}}
  r = #teq.custom_recipe<[#teq.target<sm_90> -> #teq.mxfp8_quantizer<f8E4M3FN>]>
}

// -----

//===----------------------------------------------------------------------===//
// Quantizers
//===----------------------------------------------------------------------===//

func.func private @mxfp8_bf16() attributes {
  // expected-error @+1 {{MXFP8Quantizer quantizes to f8E4M3FN or f8E5M2, not 'bf16'}}
  q = #teq.mxfp8_quantizer<bf16>
}

// -----

func.func private @float8_fp4() attributes {
  // expected-error @+1 {{Float8Quantizer quantizes to f8E4M3FN or f8E5M2, not 'f4E2M1FN'}}
  q = #teq.float8_quantizer<f4E2M1FN>
}

// -----

func.func private @current_i8() attributes {
  // expected-error @+1 {{Float8CurrentScalingQuantizer quantizes to f8E4M3FN or f8E5M2, not 'i8'}}
  q = #teq.float8_current_scaling_quantizer<i8>
}

// -----

func.func private @block_fnuz() attributes {
  // The FNUZ variants are AMD's; TE quantizes to the OCP formats.
  // expected-error @+1 {{Float8BlockQuantizer quantizes to f8E4M3FN or f8E5M2, not 'f8E4M3FNUZ'}}
  q = #teq.float8_block_quantizer<f8E4M3FNUZ>
}

// -----

func.func private @nvfp4_fp8() attributes {
  // expected-error @+1 {{NVFP4Quantizer quantizes to f4E2M1FN, not 'f8E4M3FN'}}
  q = #teq.nvfp4_quantizer<f8E4M3FN>
}

// -----

func.func private @quantizer_no_dtype() attributes {
  // expected-error @+1 {{#teq.mxfp8_quantizer expects its element type first (e.g. f8E4M3FN, f8E5M2, f4E2M1FN)}}
  q = #teq.mxfp8_quantizer<with_2d_quantization = true>
}

// -----

func.func private @quantizer_empty() attributes {
  // expected-error @+1 {{#teq.nvfp4_quantizer expects its element type first}}
  q = #teq.nvfp4_quantizer<>
}

// -----

func.func private @quantizer_bad_field() attributes {
  // expected-error @+1 {{unknown field 'with_2d' in #teq.mxfp8_quantizer; expected one of: with_2d_quantization}}
  q = #teq.mxfp8_quantizer<f8E4M3FN, with_2d = true>
}

// -----

func.func private @quantizer_recipe_field() attributes {
  // A recipe field is not a quantizer field.
  // expected-error @+1 {{unknown field 'use_power_2_scales' in #teq.float8_current_scaling_quantizer; expected one of: with_amax_reduction, force_pow_2_scales, amax_epsilon}}
  q = #teq.float8_current_scaling_quantizer<f8E4M3FN, use_power_2_scales = true>
}

// -----

func.func private @quantizer_no_fields() attributes {
  // expected-error @+1 {{unknown field 'margin' in #teq.float8_quantizer; it has no fields besides its element type}}
  q = #teq.float8_quantizer<f8E4M3FN, margin = 1>
}

// -----

func.func private @quantizer_field_twice() attributes {
  // expected-error @+1 {{field 'force_pow_2_scales' given twice}}
  q = #teq.float8_block_quantizer<f8E4M3FN, force_pow_2_scales = true, force_pow_2_scales = false>
}

// -----

func.func private @quantizer_bad_bool() attributes {
  // expected-error @+1 {{expected 'true' or 'false'}}
  q = #teq.mxfp8_quantizer<f8E4M3FN, with_2d_quantization = 1>
}

// -----

func.func private @quantizer_process_group() attributes {
  // expected-error @+1 {{a quantizer cannot hold a process group: set with_amax_reduction = true and pass the group to the op that quantizes, as amax_reduction_group(%group)}}
  q = #teq.float8_current_scaling_quantizer<f8E4M3FN, amax_reduction_group = 0>
}

// -----

func.func private @quantizer_process_group_alias() attributes {
  // expected-error @+1 {{a quantizer cannot hold a process group}}
  q = #teq.nvfp4_quantizer<f4E2M1FN, with_amax_reduction = true, process_group = "tp">
}

// -----

func.func private @quantizer_scale_tensor() attributes {
  // expected-error @+1 {{a quantizer cannot hold a tensor: delayed-scaling state is passed to the op that quantizes, as state(%scale, %amax_history)}}
  q = #teq.float8_quantizer<f8E4M3FN, scale = dense<1.0> : tensor<1xf32>>
}

// -----

func.func private @quantizer_amax_tensor() attributes {
  // expected-error @+1 {{a quantizer cannot hold a tensor}}
  q = #teq.float8_current_scaling_quantizer<f8E4M3FN, amax = dense<0.0> : tensor<1xf32>>
}

// -----

func.func private @quantizer_usage() attributes {
  // expected-error @+1 {{usage is part of the tensor type, not the quantizer: write it in !teq.proto<..., rowwise|columnwise>}}
  q = #teq.mxfp8_quantizer<f8E4M3FN, rowwise = true>
}

// -----

func.func private @quantizer_usage_columnwise() attributes {
  // expected-error @+1 {{usage is part of the tensor type, not the quantizer}}
  q = #teq.float8_block_quantizer<f8E4M3FN, columnwise = false>
}

// -----

func.func private @quantizer_optimize_for_gemm() attributes {
  // expected-error @+1 {{scale swizzling is part of the tensor type, not the quantizer: write gemm_swizzled in !teq.proto<...>}}
  q = #teq.mxfp8_quantizer<f8E4M3FN, optimize_for_gemm = true>
}

// -----

func.func private @quantizer_internal() attributes {
  // expected-error @+1 {{'internal' is a PyTorch storage choice with no meaning in teq}}
  q = #teq.nvfp4_quantizer<f4E2M1FN, internal = true>
}

// -----

func.func private @quantizer_device() attributes {
  // expected-error @+1 {{quantizers are device-independent; the GPU is the module's #teq.target}}
  q = #teq.float8_current_scaling_quantizer<f8E4M3FN, device = 0>
}

// -----

func.func private @block_len() attributes {
  // expected-error @+1 {{block_len is fixed at 128 in TE's Float8BlockQuantizer}}
  q = #teq.float8_block_quantizer<f8E4M3FN, block_len = 128>
}

// -----

func.func private @block_quantizer_dim() attributes {
  // expected-error @+1 {{Float8BlockQuantizer: block_scaling_dim must be 1 (1x128 blocks) or 2 (128x128 blocks), got 3}}
  q = #teq.float8_block_quantizer<f8E4M3FN, block_scaling_dim = 3>
}

// -----

func.func private @current_negative_epsilon() attributes {
  // expected-error @+1 {{Float8CurrentScalingQuantizer: amax_epsilon must be finite and >= 0, got -1}}
  q = #teq.float8_current_scaling_quantizer<f8E4M3FN, amax_epsilon = -1.0e-03>
}

// -----

func.func private @block_infinite_epsilon() attributes {
  // expected-error @+1 {{Float8BlockQuantizer: amax_epsilon must be finite and >= 0, got INF}}
  q = #teq.float8_block_quantizer<f8E4M3FN, amax_epsilon = 0x7FF0000000000000>
}

// -----

func.func private @nvfp4_bad_err_mode() attributes {
  // expected-error @+1 {{unknown nvfp4_4over6_err_mode 'RMS'; expected MAE or MSE}}
  q = #teq.nvfp4_quantizer<f4E2M1FN, nvfp4_4over6_err_mode = RMS>
}

// -----

func.func private @nvfp4_rht_pre_amax() attributes {
  // expected-error @+1 {{NVFP4Quantizer: with_rht requires with_post_rht_amax = true (only the post-RHT amax is implemented)}}
  q = #teq.nvfp4_quantizer<f4E2M1FN, with_rht = true>
}

// -----

func.func private @nvfp4_post_rht_amax_without_rht() attributes {
  // expected-error @+1 {{NVFP4Quantizer: with_post_rht_amax requires with_rht = true}}
  q = #teq.nvfp4_quantizer<f4E2M1FN, with_post_rht_amax = true>
}

// -----

func.func private @nvfp4_row_scaled_rht() attributes {
  // expected-error @+1 {{NVFP4Quantizer: row_scaled_nvfp4 cannot be combined with with_rht, with_2d_quantization, stochastic_rounding or with_amax_reduction}}
  q = #teq.nvfp4_quantizer<f4E2M1FN, with_rht = true, with_post_rht_amax = true, row_scaled_nvfp4 = true>
}

// -----

func.func private @nvfp4_row_scaled_2d() attributes {
  // expected-error @+1 {{NVFP4Quantizer: row_scaled_nvfp4 cannot be combined}}
  q = #teq.nvfp4_quantizer<f4E2M1FN, with_2d_quantization = true, row_scaled_nvfp4 = true>
}

// -----

func.func private @nvfp4_row_scaled_sr() attributes {
  // expected-error @+1 {{NVFP4Quantizer: row_scaled_nvfp4 cannot be combined}}
  q = #teq.nvfp4_quantizer<f4E2M1FN, stochastic_rounding = true, row_scaled_nvfp4 = true>
}

// -----

func.func private @nvfp4_row_scaled_amax_reduction() attributes {
  // expected-error @+1 {{NVFP4Quantizer: row_scaled_nvfp4 cannot be combined}}
  q = #teq.nvfp4_quantizer<f4E2M1FN, with_amax_reduction = true, row_scaled_nvfp4 = true>
}

// -----

func.func private @nvfp4_4over6_rht() attributes {
  // expected-error @+1 {{NVFP4Quantizer: nvfp4_use_4over6 cannot be combined with with_rht or stochastic_rounding}}
  q = #teq.nvfp4_quantizer<f4E2M1FN, with_rht = true, with_post_rht_amax = true, nvfp4_use_4over6 = true>
}

// -----

func.func private @nvfp4_4over6_sr() attributes {
  // expected-error @+1 {{NVFP4Quantizer: nvfp4_use_4over6 cannot be combined with with_rht or stochastic_rounding}}
  q = #teq.nvfp4_quantizer<f4E2M1FN, stochastic_rounding = true, nvfp4_use_4over6 = true>
}

// -----

func.func private @nvfp4_e4m3_max() attributes {
  // expected-error @+1 {{NVFP4Quantizer: nvfp4_e4m3_max must be 448 or 256, got 240}}
  q = #teq.nvfp4_quantizer<f4E2M1FN, nvfp4_use_4over6 = true, nvfp4_e4m3_max = 240>
}

// -----

func.func private @nvfp4_e4m3_max_without_4over6() attributes {
  // expected-error @+1 {{NVFP4Quantizer: nvfp4_e4m3_max = 256 only applies with nvfp4_use_4over6 = true}}
  q = #teq.nvfp4_quantizer<f4E2M1FN, nvfp4_e4m3_max = 256>
}

// -----

//===----------------------------------------------------------------------===//
// #teq.linear
//===----------------------------------------------------------------------===//

func.func private @linear_tp_size_zero() attributes {
  // expected-error @+1 {{#teq.linear: tp_size must be at least 1, got 0}}
  l = #teq.linear<tp_size = 0>
}

// -----

func.func private @linear_tp_without_mode() attributes {
  // expected-error @+1 {{#teq.linear: tp_size = 2 needs parallel_mode = column or row}}
  l = #teq.linear<tp_size = 2>
}

// -----

func.func private @linear_fuse_without_wgrad() attributes {
  // expected-error @+1 {{#teq.linear: fuse_wgrad_accumulation needs requires_wgrad = true}}
  l = #teq.linear<fuse_wgrad_accumulation = true, requires_wgrad = false>
}

// -----

func.func private @linear_bad_mode() attributes {
  // expected-error @+2 {{expected ::mlir::teq::ParallelMode to be one of: none, column, row}}
  // expected-error @+1 {{failed to parse TEQ_LinearConfigAttr parameter 'parallel_mode'}}
  l = #teq.linear<parallel_mode = diagonal>
}

// -----

//===----------------------------------------------------------------------===//
// #teq.linear_quantization
//===----------------------------------------------------------------------===//

func.func private @linear_quantization_no_recipe() attributes {
  // expected-error @+1 {{struct is missing required parameter: recipe}}
  q = #teq.linear_quantization<fprop_split_accumulator = false>
}

// -----

func.func private @linear_quantization_empty_recipe() attributes {
  // expected-error @+1 {{#teq.linear_quantization needs the recipe name}}
  q = #teq.linear_quantization<recipe = "">
}

// -----

func.func private @linear_quantization_input_only() attributes {
  // expected-error @+1 {{#teq.linear_quantization: the fprop GEMM needs both input and weight quantized, or neither}}
  q = #teq.linear_quantization<recipe = "MXFP8BlockScaling", input = #teq.mxfp8_quantizer<f8E4M3FN>>
}

// -----

func.func private @linear_quantization_weight_only() attributes {
  // expected-error @+1 {{#teq.linear_quantization: the fprop GEMM needs both input and weight quantized, or neither}}
  q = #teq.linear_quantization<recipe = "CustomRecipe", weight = #teq.float8_block_quantizer<f8E4M3FN>>
}

// -----

func.func private @linear_quantization_backward_only() attributes {
  // expected-error @+1 {{#teq.linear_quantization: a quantized grad_output needs quantized forward tensors}}
  q = #teq.linear_quantization<recipe = "CustomRecipe", grad_output = #teq.float8_current_scaling_quantizer<f8E5M2>>
}

// -----

func.func private @linear_quantization_not_a_quantizer() attributes {
  // expected-error @+2 {{expected a quantizer attribute (#teq.*_quantizer<...>), got #teq.delayed_scaling_request<>}}
  // expected-error @+1 {{failed to parse TEQ_LinearQuantizationAttr parameter 'grad_output'}}
  q = #teq.linear_quantization<recipe = "CustomRecipe", input = #teq.mxfp8_quantizer<f8E4M3FN>, weight = #teq.mxfp8_quantizer<f8E4M3FN>, grad_output = #teq.delayed_scaling_request<>>
}

// -----

//===----------------------------------------------------------------------===//
// !teq.proto
//===----------------------------------------------------------------------===//

// expected-error @+1 {{expected a quantizer attribute (#teq.*_quantizer<...>), got #teq.float8_current_scaling<>}}
func.func private @proto_recipe(!teq.proto<64x128xbf16, #teq.float8_current_scaling<>, rowwise>)

// -----

// expected-error @+1 {{expected a quantizer attribute (#teq.*_quantizer<...>), got #teq.delayed_scaling_request<>}}
func.func private @proto_request(!teq.proto<64x128xbf16, #teq.delayed_scaling_request<>, rowwise>)

// -----

// expected-error @+1 {{unknown usage 'rowwize'; expected rowwise, columnwise or rowwise|columnwise}}
func.func private @proto_bad_usage(!teq.proto<64x128xbf16, #teq.mxfp8_quantizer<f8E4M3FN>, rowwize>)

// -----

// expected-error @+1 {{unknown usage 'none'}}
func.func private @proto_no_usage(!teq.proto<64x128xbf16, #teq.mxfp8_quantizer<f8E4M3FN>, none>)

// -----

// expected-error @+1 {{unknown usage 'gemm_swizzled'}}
func.func private @proto_missing_usage(!teq.proto<64x128xbf16, #teq.mxfp8_quantizer<f8E4M3FN>, gemm_swizzled>)

// -----

// expected-error @+1 {{unknown scale layout 'swizzled'; expected compact or gemm_swizzled}}
func.func private @proto_bad_layout(!teq.proto<64x128xbf16, #teq.mxfp8_quantizer<f8E4M3FN>, rowwise, swizzled>)

// -----

// expected-error @+1 {{a quantized tensor's logical element type must be bf16, f16 or f32, got 'f64'}}
func.func private @proto_f64(!teq.proto<64x128xf64, #teq.mxfp8_quantizer<f8E4M3FN>, rowwise>)

// -----

// expected-error @+1 {{a quantized tensor's logical element type must be bf16, f16 or f32, got 'f8E4M3FN'}}
func.func private @proto_fp8(!teq.proto<64x128xf8E4M3FN, #teq.mxfp8_quantizer<f8E4M3FN>, rowwise>)

// -----

// expected-error @+1 {{only MXFP8 and NVFP4 block scales have a gemm_swizzled layout, not those of Float8CurrentScalingQuantizer}}
func.func private @proto_swizzled_per_tensor(!teq.proto<64x128xbf16, #teq.float8_current_scaling_quantizer<f8E4M3FN>, rowwise, gemm_swizzled>)

// -----

// expected-error @+1 {{only MXFP8 and NVFP4 block scales have a gemm_swizzled layout, not those of Float8Quantizer}}
func.func private @proto_swizzled_delayed(!teq.proto<64x128xbf16, #teq.float8_quantizer<f8E4M3FN>, rowwise, gemm_swizzled>)

// -----

// expected-error @+1 {{only MXFP8 and NVFP4 block scales have a gemm_swizzled layout, not those of Float8BlockQuantizer}}
func.func private @proto_swizzled_block(!teq.proto<256x128xbf16, #teq.float8_block_quantizer<f8E4M3FN>, rowwise, gemm_swizzled>)

// -----

// expected-error @+1 {{RHT is only supported for bfloat16 input, got 'f16'}}
func.func private @proto_rht_f16(!teq.proto<64x128xf16, #teq.nvfp4_quantizer<f4E2M1FN, with_rht = true, with_post_rht_amax = true>, columnwise>)

// -----

// expected-error @+1 {{cannot lay out a MXFP8Quantizer tensor: dimension 0 is 0; quantized tensors need positive dimensions}}
func.func private @proto_zero_dim(!teq.proto<0x128xbf16, #teq.mxfp8_quantizer<f8E4M3FN>, rowwise>)

// -----

// expected-error @+1 {{cannot lay out a Float8CurrentScalingQuantizer tensor: the tensor has more than 2^56 elements}}
func.func private @proto_huge(!teq.proto<1048576x1048576x1048576xbf16, #teq.float8_current_scaling_quantizer<f8E4M3FN>, rowwise>)

// -----

// expected-error @+1 {{cannot lay out a NVFP4Quantizer tensor: NVFP4 packs two E2M1 values per byte: K = 127 must be even for rowwise usage}}
func.func private @proto_nvfp4_odd_k(!teq.proto<64x127xbf16, #teq.nvfp4_quantizer<f4E2M1FN>, rowwise>)

// -----

// expected-error @+1 {{cannot lay out a NVFP4Quantizer tensor: NVFP4 packs two E2M1 values per byte: M = 63 must be even for columnwise usage}}
func.func private @proto_nvfp4_odd_m(!teq.proto<63x128xbf16, #teq.nvfp4_quantizer<f4E2M1FN>, rowwise|columnwise>)

// -----

// M is the product of the leading dimensions: 3 x 7 = 21.
// expected-error @+1 {{M = 21 must be even for columnwise usage}}
func.func private @proto_nvfp4_odd_m_3d(!teq.proto<3x7x128xbf16, #teq.nvfp4_quantizer<f4E2M1FN>, columnwise>)

// -----

// A 0-D tensor is 1x1: K = 1 cannot be packed.
// expected-error @+1 {{K = 1 must be even for rowwise usage}}
func.func private @proto_nvfp4_scalar(!teq.proto<bf16, #teq.nvfp4_quantizer<f4E2M1FN>, rowwise>)

// -----

// expected-error @+1 {{expected static shape}}
func.func private @proto_dynamic(!teq.proto<?x128xbf16, #teq.mxfp8_quantizer<f8E4M3FN>, rowwise>)

// -----

//===----------------------------------------------------------------------===//
// teq.autocast, teq.yield
//===----------------------------------------------------------------------===//

func.func @autocast_yield_mismatch(%x: tensor<64x128xbf16>) -> tensor<64x128xf32> {
  // expected-error @+1 {{'teq.autocast' op yields 1 value(s) of types 'tensor<64x128xbf16>' but the region's results are 'tensor<64x128xf32>'}}
  %0 = teq.autocast recipe(#teq.float8_current_scaling<>) -> tensor<64x128xf32> {
    teq.yield %x : tensor<64x128xbf16>
  }
  return %0 : tensor<64x128xf32>
}

// -----

func.func @autocast_yield_missing(%x: tensor<64x128xbf16>) -> tensor<64x128xbf16> {
  // expected-error @+1 {{'teq.autocast' op yields 0 value(s)}}
  %0 = teq.autocast -> tensor<64x128xbf16> {
    teq.yield
  }
  return %0 : tensor<64x128xbf16>
}

// -----

func.func @autocast_block_args() {
  // expected-error @+1 {{'teq.autocast' op region takes no arguments}}
  "teq.autocast"() ({
  ^bb0(%a: i32):
    "teq.yield"() : () -> ()
  }) : () -> ()
  return
}

// -----

func.func @autocast_quantizer_as_recipe() {
  // expected-error @+1 {{custom op 'teq.autocast' invalid kind of attribute specified}}
  teq.autocast recipe(#teq.mxfp8_quantizer<f8E4M3FN>) {
  }
  return
}

// -----

func.func @autocast_quantizer_as_recipe_generic() {
  // expected-error @+1 {{invalid properties {recipe = #teq.mxfp8_quantizer<f8E4M3FN>} for op teq.autocast: Invalid attribute `recipe` in property conversion}}
  "teq.autocast"() <{recipe = #teq.mxfp8_quantizer<f8E4M3FN>}> ({
    "teq.yield"() : () -> ()
  }) : () -> ()
  return
}

// -----

func.func @yield_outside_autocast(%x: tensor<4xbf16>) {
  // expected-error @+1 {{'teq.yield' op expects parent op 'teq.autocast'}}
  teq.yield %x : tensor<4xbf16>
}

// -----

//===----------------------------------------------------------------------===//
// teq.quantize, teq.dequantize, teq.update_usage
//===----------------------------------------------------------------------===//

func.func @quantize_shape(%x: tensor<64x128xbf16>) {
  // expected-error @+1 {{'teq.quantize' op input shape [64x128] does not match the quantized tensor's shape [128x64]}}
  %0 = teq.quantize %x : tensor<64x128xbf16> -> !teq.proto<128x64xbf16, #teq.mxfp8_quantizer<f8E4M3FN>, rowwise>
  return
}

// -----

func.func @quantize_rank(%x: tensor<8x8x128xbf16>) {
  // expected-error @+1 {{'teq.quantize' op input shape [8x8x128] does not match the quantized tensor's shape [64x128]}}
  %0 = teq.quantize %x : tensor<8x8x128xbf16> -> !teq.proto<64x128xbf16, #teq.mxfp8_quantizer<f8E4M3FN>, rowwise>
  return
}

// -----

func.func @quantize_element_type(%x: tensor<64x128xf16>) {
  // expected-error @+1 {{'teq.quantize' op input element type 'f16' does not match the quantized tensor's logical element type 'bf16'}}
  %0 = teq.quantize %x : tensor<64x128xf16> -> !teq.proto<64x128xbf16, #teq.mxfp8_quantizer<f8E4M3FN>, rowwise>
  return
}

// -----

func.func @quantize_missing_state(%x: tensor<64x128xbf16>) {
  // expected-error @+1 {{'teq.quantize' op Float8Quantizer is stateful (delayed scaling): pass its stored scale and amax history}}
  %0 = teq.quantize %x : tensor<64x128xbf16> -> !teq.proto<64x128xbf16, #teq.float8_quantizer<f8E4M3FN>, rowwise>
  return
}

// -----

func.func @quantize_unexpected_state(%x: tensor<64x128xbf16>, %s: tensor<1xf32>, %h: tensor<1024xf32>) {
  // expected-error @+1 {{'teq.quantize' op Float8CurrentScalingQuantizer has no delayed-scaling state; remove state(...)}}
  %0, %1 = teq.quantize %x state(%s, %h : tensor<1xf32>, tensor<1024xf32>) : tensor<64x128xbf16> -> !teq.proto<64x128xbf16, #teq.float8_current_scaling_quantizer<f8E4M3FN>, rowwise>, tensor<1024xf32>
  return
}

// -----

func.func @quantize_updated_without_state(%x: tensor<64x128xbf16>) {
  // expected-error @+1 {{'teq.quantize' op returns an updated amax history but takes no delayed-scaling state}}
  %0, %1 = teq.quantize %x : tensor<64x128xbf16> -> !teq.proto<64x128xbf16, #teq.float8_current_scaling_quantizer<f8E4M3FN>, rowwise>, tensor<1024xf32>
  return
}

// -----

func.func @quantize_scale_shape(%x: tensor<64x128xbf16>, %s: tensor<3xf32>, %h: tensor<1024xf32>) {
  // expected-error @+1 {{'teq.quantize' op delayed-scaling scale must be tensor<1xf32> (one per quantizer slot), got 'tensor<3xf32>'}}
  %0, %1 = teq.quantize %x state(%s, %h : tensor<3xf32>, tensor<1024xf32>) : tensor<64x128xbf16> -> !teq.proto<64x128xbf16, #teq.float8_quantizer<f8E4M3FN>, rowwise>, tensor<1024xf32>
  return
}

// -----

func.func @quantize_history_rank(%x: tensor<64x128xbf16>, %s: tensor<1xf32>, %h: tensor<1024x1xf32>) {
  // expected-error @+1 {{'teq.quantize' op delayed-scaling amax history must be tensor<Lxf32> with L = amax_history_len >= 1, got 'tensor<1024x1xf32>'}}
  %0, %1 = teq.quantize %x state(%s, %h : tensor<1xf32>, tensor<1024x1xf32>) : tensor<64x128xbf16> -> !teq.proto<64x128xbf16, #teq.float8_quantizer<f8E4M3FN>, rowwise>, tensor<1024x1xf32>
  return
}

// -----

func.func @quantize_history_empty(%x: tensor<64x128xbf16>, %s: tensor<1xf32>, %h: tensor<0xf32>) {
  // expected-error @+1 {{'teq.quantize' op delayed-scaling amax history must be tensor<Lxf32> with L = amax_history_len >= 1, got 'tensor<0xf32>'}}
  %0, %1 = teq.quantize %x state(%s, %h : tensor<1xf32>, tensor<0xf32>) : tensor<64x128xbf16> -> !teq.proto<64x128xbf16, #teq.float8_quantizer<f8E4M3FN>, rowwise>, tensor<0xf32>
  return
}

// -----

func.func @quantize_no_updated_history(%x: tensor<64x128xbf16>, %s: tensor<1xf32>, %h: tensor<1024xf32>) {
  // expected-error @+1 {{'teq.quantize' op takes delayed-scaling state but does not return the updated amax history}}
  %0 = teq.quantize %x state(%s, %h : tensor<1xf32>, tensor<1024xf32>) : tensor<64x128xbf16> -> !teq.proto<64x128xbf16, #teq.float8_quantizer<f8E4M3FN>, rowwise>
  return
}

// -----

func.func @quantize_updated_history_type(%x: tensor<64x128xbf16>, %s: tensor<1xf32>, %h: tensor<1024xf32>) {
  // expected-error @+1 {{'teq.quantize' op updated amax history type 'tensor<16xf32>' must match the amax history type 'tensor<1024xf32>'}}
  %0, %1 = teq.quantize %x state(%s, %h : tensor<1xf32>, tensor<1024xf32>) : tensor<64x128xbf16> -> !teq.proto<64x128xbf16, #teq.float8_quantizer<f8E4M3FN>, rowwise>, tensor<16xf32>
  return
}

// -----

func.func @quantize_sr_missing_rng_state(%x: tensor<64x128xbf16>) {
  // expected-error @+1 {{'teq.quantize' op NVFP4Quantizer with stochastic_rounding draws its random bits from an explicit Philox state: pass the seed and offset, e.g. `teq.quantize %x rng_state(%rng : tensor<2xi64>)`}}
  %0 = teq.quantize %x : tensor<64x128xbf16> -> !teq.proto<64x128xbf16, #teq.nvfp4_quantizer<f4E2M1FN, stochastic_rounding = true>, rowwise>
  return
}

// -----

func.func @quantize_unexpected_rng_state(%x: tensor<64x128xbf16>, %rng: tensor<2xi64>) {
  // expected-error @+1 {{'teq.quantize' op takes an rng_state but NVFP4Quantizer does not round stochastically; remove rng_state(...)}}
  %0 = teq.quantize %x rng_state(%rng : tensor<2xi64>) : tensor<64x128xbf16> -> !teq.proto<64x128xbf16, #teq.nvfp4_quantizer<f4E2M1FN>, rowwise>
  return
}

// -----

func.func @quantize_rng_state_other_format(%x: tensor<64x128xbf16>, %rng: tensor<2xi64>) {
  // expected-error @+1 {{'teq.quantize' op takes an rng_state but MXFP8Quantizer does not round stochastically; remove rng_state(...)}}
  %0 = teq.quantize %x rng_state(%rng : tensor<2xi64>) : tensor<64x128xbf16> -> !teq.proto<64x128xbf16, #teq.mxfp8_quantizer<f8E4M3FN>, rowwise>
  return
}

// -----

func.func @quantize_rng_state_shape(%x: tensor<64x128xbf16>, %rng: tensor<3xi64>) {
  // expected-error @+1 {{'teq.quantize' op rng_state must be tensor<2xi64> (the Philox seed and offset), got 'tensor<3xi64>'}}
  %0 = teq.quantize %x rng_state(%rng : tensor<3xi64>) : tensor<64x128xbf16> -> !teq.proto<64x128xbf16, #teq.nvfp4_quantizer<f4E2M1FN, stochastic_rounding = true>, rowwise>
  return
}

// -----

func.func @quantize_rng_state_type(%x: tensor<64x128xbf16>, %rng: tensor<2xi32>) {
  // expected-error @+1 {{'teq.quantize' op operand #1 must be ranked tensor of 64-bit signless integer values, but got 'tensor<2xi32>'}}
  %0 = teq.quantize %x rng_state(%rng : tensor<2xi32>) : tensor<64x128xbf16> -> !teq.proto<64x128xbf16, #teq.nvfp4_quantizer<f4E2M1FN, stochastic_rounding = true>, rowwise>
  return
}

// -----

func.func @quantize_missing_group(%x: tensor<64x128xbf16>) {
  // expected-error @+1 {{'teq.quantize' op Float8CurrentScalingQuantizer has with_amax_reduction = true: pass the process group as amax_reduction_group(%group)}}
  %0 = teq.quantize %x : tensor<64x128xbf16> -> !teq.proto<64x128xbf16, #teq.float8_current_scaling_quantizer<f8E4M3FN, with_amax_reduction = true>, rowwise>
  return
}

// -----

func.func @quantize_nvfp4_missing_group(%x: tensor<64x128xbf16>) {
  // expected-error @+1 {{'teq.quantize' op NVFP4Quantizer has with_amax_reduction = true}}
  %0 = teq.quantize %x : tensor<64x128xbf16> -> !teq.proto<64x128xbf16, #teq.nvfp4_quantizer<f4E2M1FN, with_amax_reduction = true>, rowwise>
  return
}

// -----

func.func @quantize_unexpected_group(%x: tensor<64x128xbf16>, %g: !teq.process_group) {
  // expected-error @+1 {{'teq.quantize' op takes an amax_reduction_group but MXFP8Quantizer does not reduce its amax; set with_amax_reduction = true}}
  %0 = teq.quantize %x amax_reduction_group(%g) : tensor<64x128xbf16> -> !teq.proto<64x128xbf16, #teq.mxfp8_quantizer<f8E4M3FN>, rowwise>
  return
}

// -----

func.func @dequantize_shape(%q: !teq.proto<64x128xbf16, #teq.mxfp8_quantizer<f8E4M3FN>, rowwise>) {
  // expected-error @+1 {{'teq.dequantize' op result shape [128x64] does not match the quantized tensor's shape [64x128]}}
  %0 = teq.dequantize %q : !teq.proto<64x128xbf16, #teq.mxfp8_quantizer<f8E4M3FN>, rowwise> -> tensor<128x64xbf16>
  return
}

// -----

func.func @dequantize_to_fp8(%q: !teq.proto<64x128xbf16, #teq.mxfp8_quantizer<f8E4M3FN>, rowwise>) {
  // expected-error @+1 {{'teq.dequantize' op dequantizes to bf16, f16 or f32, not 'f8E4M3FN'}}
  %0 = teq.dequantize %q : !teq.proto<64x128xbf16, #teq.mxfp8_quantizer<f8E4M3FN>, rowwise> -> tensor<64x128xf8E4M3FN>
  return
}

// -----

func.func @update_usage_other_quantizer(%q: !teq.proto<64x128xbf16, #teq.float8_current_scaling_quantizer<f8E4M3FN>, rowwise|columnwise>) {
  // expected-error @+1 {{'teq.update_usage' op may only change the usage: '!teq.proto<64x128xbf16, #teq.float8_current_scaling_quantizer<f8E4M3FN>, rowwise|columnwise>' and '!teq.proto<64x128xbf16, #teq.float8_current_scaling_quantizer<f8E5M2>, rowwise>' differ in more than usage}}
  %0 = teq.update_usage %q : !teq.proto<64x128xbf16, #teq.float8_current_scaling_quantizer<f8E4M3FN>, rowwise|columnwise> -> !teq.proto<64x128xbf16, #teq.float8_current_scaling_quantizer<f8E5M2>, rowwise>
  return
}

// -----

func.func @update_usage_scale_layout(%q: !teq.proto<64x128xbf16, #teq.mxfp8_quantizer<f8E4M3FN>, rowwise|columnwise>) {
  // expected-error @+1 {{'teq.update_usage' op may only change the usage}}
  %0 = teq.update_usage %q : !teq.proto<64x128xbf16, #teq.mxfp8_quantizer<f8E4M3FN>, rowwise|columnwise> -> !teq.proto<64x128xbf16, #teq.mxfp8_quantizer<f8E4M3FN>, rowwise, gemm_swizzled>
  return
}

// -----

// TE's quantizers refuse these shapes (te-semantics.md §3); so does
// teq.quantize, as the Linear path does.
func.func @quantize_mxfp8_ragged(%x: tensor<300x256xbf16>) {
  // expected-error @+1 {{'teq.quantize' op cannot quantize 'tensor<300x256xbf16>': MXFP8Quantizer needs at least 2 dimensions with both the product of the leading dimensions (300) and the last dimension (256) divisible by 32}}
  %q = teq.quantize %x : tensor<300x256xbf16> -> !teq.proto<300x256xbf16, #teq.mxfp8_quantizer<f8E4M3FN>, rowwise>
  return
}

// -----

func.func @quantize_mxfp8_1d(%x: tensor<256xbf16>) {
  // expected-error @+1 {{'teq.quantize' op cannot quantize 'tensor<256xbf16>': MXFP8Quantizer needs at least 2 dimensions}}
  %q = teq.quantize %x : tensor<256xbf16> -> !teq.proto<256xbf16, #teq.mxfp8_quantizer<f8E4M3FN>, rowwise>
  return
}

// -----

func.func @quantize_nvfp4_ragged(%x: tensor<2x24x40xbf16>) {
  // expected-error @+1 {{'teq.quantize' op cannot quantize 'tensor<2x24x40xbf16>': NVFP4Quantizer needs at least 2 dimensions with both the product of the leading dimensions (48) and the last dimension (40) divisible by 16}}
  %q = teq.quantize %x : tensor<2x24x40xbf16> -> !teq.proto<2x24x40xbf16, #teq.nvfp4_quantizer<f4E2M1FN>, rowwise>
  return
}

// -----

func.func @swizzle_scales_per_tensor(%q: !teq.proto<64x128xbf16, #teq.float8_current_scaling_quantizer<f8E4M3FN>, rowwise>) {
  // expected-error @+1 {{'teq.swizzle_scales' op swizzles MXFP8 and NVFP4 block scales only, not Float8CurrentScalingQuantizer scales}}
  %0 = teq.swizzle_scales %q : !teq.proto<64x128xbf16, #teq.float8_current_scaling_quantizer<f8E4M3FN>, rowwise> -> !teq.proto<64x128xbf16, #teq.float8_current_scaling_quantizer<f8E4M3FN>, rowwise>
  return
}

// -----

func.func @swizzle_scales_already_swizzled(%q: !teq.proto<64x128xbf16, #teq.mxfp8_quantizer<f8E4M3FN>, rowwise, gemm_swizzled>) {
  // expected-error @+1 {{'teq.swizzle_scales' op takes compact scales to gemm_swizzled ones}}
  %0 = teq.swizzle_scales %q : !teq.proto<64x128xbf16, #teq.mxfp8_quantizer<f8E4M3FN>, rowwise, gemm_swizzled> -> !teq.proto<64x128xbf16, #teq.mxfp8_quantizer<f8E4M3FN>, rowwise, gemm_swizzled>
  return
}

// -----

func.func @swizzle_scales_usage(%q: !teq.proto<64x128xbf16, #teq.nvfp4_quantizer<f4E2M1FN>, rowwise|columnwise>) {
  // expected-error @+1 {{'teq.swizzle_scales' op may only change the scale layout}}
  %0 = teq.swizzle_scales %q : !teq.proto<64x128xbf16, #teq.nvfp4_quantizer<f4E2M1FN>, rowwise|columnwise> -> !teq.proto<64x128xbf16, #teq.nvfp4_quantizer<f4E2M1FN>, rowwise, gemm_swizzled>
  return
}

// -----

func.func @update_usage_mxfp8_add_columnwise(%q: !teq.proto<64x128xbf16, #teq.mxfp8_quantizer<f8E4M3FN>, rowwise>) {
  // expected-error @+1 {{'teq.update_usage' op cannot add the columnwise usage to a MXFP8Quantizer tensor (mxfp8): its rowwise and columnwise scales differ, so quantize the high-precision tensor with the usage you need}}
  %0 = teq.update_usage %q : !teq.proto<64x128xbf16, #teq.mxfp8_quantizer<f8E4M3FN>, rowwise> -> !teq.proto<64x128xbf16, #teq.mxfp8_quantizer<f8E4M3FN>, rowwise|columnwise>
  return
}

// -----

func.func @update_usage_nvfp4_add_rowwise(%q: !teq.proto<64x128xbf16, #teq.nvfp4_quantizer<f4E2M1FN>, columnwise>) {
  // expected-error @+1 {{'teq.update_usage' op cannot add the rowwise usage to a NVFP4Quantizer tensor}}
  %0 = teq.update_usage %q : !teq.proto<64x128xbf16, #teq.nvfp4_quantizer<f4E2M1FN>, columnwise> -> !teq.proto<64x128xbf16, #teq.nvfp4_quantizer<f4E2M1FN>, rowwise>
  return
}

// -----

func.func @update_usage_block_1d(%q: !teq.proto<64x128xbf16, #teq.float8_block_quantizer<f8E4M3FN, block_scaling_dim = 1>, rowwise>) {
  // expected-error @+1 {{'teq.update_usage' op cannot add the columnwise usage to a Float8BlockQuantizer tensor (block_fp8_1d)}}
  %0 = teq.update_usage %q : !teq.proto<64x128xbf16, #teq.float8_block_quantizer<f8E4M3FN, block_scaling_dim = 1>, rowwise> -> !teq.proto<64x128xbf16, #teq.float8_block_quantizer<f8E4M3FN, block_scaling_dim = 1>, columnwise>
  return
}

// -----

//===----------------------------------------------------------------------===//
// teq.linear_forward
//===----------------------------------------------------------------------===//

func.func @linear_scalar_input(%x: tensor<bf16>, %w: tensor<256x128xbf16>) {
  // expected-error @+1 {{'teq.linear_forward' op input must have at least one dimension ([*, in])}}
  %0 = teq.linear_forward %x, %w config(#teq.linear<>) : tensor<bf16>, tensor<256x128xbf16> -> tensor<256xbf16>
  return
}

// -----

func.func @linear_weight_rank(%x: tensor<64x128xbf16>, %w: tensor<2x256x128xbf16>) {
  // expected-error @+1 {{'teq.linear_forward' op weight must be [out, in], got [2x256x128]}}
  %0 = teq.linear_forward %x, %w config(#teq.linear<>) : tensor<64x128xbf16>, tensor<2x256x128xbf16> -> tensor<64x256xbf16>
  return
}

// -----

func.func @linear_in_features(%x: tensor<64x64xbf16>, %w: tensor<256x128xbf16>) {
  // expected-error @+1 {{'teq.linear_forward' op input's last dimension 64 does not match the weight's in_features 128 (input [64x64], weight [256x128])}}
  %0 = teq.linear_forward %x, %w config(#teq.linear<>) : tensor<64x64xbf16>, tensor<256x128xbf16> -> tensor<64x256xbf16>
  return
}

// -----

func.func @linear_in_features_proto(%x: tensor<64x128xbf16>, %w: !teq.proto<256x64xbf16, #teq.mxfp8_quantizer<f8E4M3FN>, rowwise>) {
  // expected-error @+1 {{'teq.linear_forward' op input's last dimension 128 does not match the weight's in_features 64}}
  %0 = teq.linear_forward %x, %w config(#teq.linear<>) : tensor<64x128xbf16>, !teq.proto<256x64xbf16, #teq.mxfp8_quantizer<f8E4M3FN>, rowwise> -> tensor<64x256xbf16>
  return
}

// -----

func.func @linear_sp_without_sequence(%x: tensor<128xbf16>, %w: tensor<64x128xbf16>, %g: !teq.process_group) {
  // expected-error @+1 {{'teq.linear_forward' op sequence parallelism splits the leading (sequence) dimension; input [128] has none}}
  %0 = teq.linear_forward %x, %w tp_group(%g) config(#teq.linear<parallel_mode = column, sequence_parallel = true, tp_size = 2>) : tensor<128xbf16>, tensor<64x128xbf16> -> tensor<64xbf16>
  return
}

// -----

func.func @linear_row_sp_indivisible(%x: tensor<6x32xbf16>, %w: tensor<256x32xbf16>, %g: !teq.process_group) {
  // expected-error @+1 {{'teq.linear_forward' op row-parallel sequence parallelism reduce-scatters the output's leading dimension 6 over tp_size = 4, which does not divide it}}
  %0 = teq.linear_forward %x, %w tp_group(%g) config(#teq.linear<parallel_mode = row, sequence_parallel = true, tp_size = 4>) : tensor<6x32xbf16>, tensor<256x32xbf16> -> tensor<1x256xbf16>
  return
}

// -----

func.func @linear_output_shape(%x: tensor<64x128xbf16>, %w: tensor<256x128xbf16>) {
  // expected-error @+1 {{'teq.linear_forward' op output shape [64x128] should be [64x256] for input [64x128] and weight [256x128] (none parallel, tp_size = 1)}}
  %0 = teq.linear_forward %x, %w config(#teq.linear<>) : tensor<64x128xbf16>, tensor<256x128xbf16> -> tensor<64x128xbf16>
  return
}

// -----

func.func @linear_column_sp_output_shape(%x: tensor<16x128xbf16>, %w: tensor<64x128xbf16>, %g: !teq.process_group) {
  // Column parallel + SP all-gathers the input along dim 0: [16] -> [64].
  // expected-error @+1 {{'teq.linear_forward' op output shape [16x64] should be [64x64] for input [16x128] and weight [64x128] (column parallel, sequence parallel, tp_size = 4)}}
  %0 = teq.linear_forward %x, %w tp_group(%g) config(#teq.linear<parallel_mode = column, sequence_parallel = true, tp_size = 4>) : tensor<16x128xbf16>, tensor<64x128xbf16> -> tensor<16x64xbf16>
  return
}

// -----

func.func @linear_output_fp8(%x: tensor<64x128xbf16>, %w: tensor<256x128xbf16>) {
  // expected-error @+1 {{'teq.linear_forward' op output must be bf16, f16 or f32, got 'f8E4M3FN'}}
  %0 = teq.linear_forward %x, %w config(#teq.linear<>) : tensor<64x128xbf16>, tensor<256x128xbf16> -> tensor<64x256xf8E4M3FN>
  return
}

// -----

func.func @linear_missing_bias(%x: tensor<64x128xbf16>, %w: tensor<256x128xbf16>) {
  // expected-error @+1 {{'teq.linear_forward' op config says bias = true but no bias is passed}}
  %0 = teq.linear_forward %x, %w config(#teq.linear<bias = true>) : tensor<64x128xbf16>, tensor<256x128xbf16> -> tensor<64x256xbf16>
  return
}

// -----

func.func @linear_unexpected_bias(%x: tensor<64x128xbf16>, %w: tensor<256x128xbf16>, %b: tensor<256xbf16>) {
  // expected-error @+1 {{'teq.linear_forward' op takes a bias but config says bias = false}}
  %0 = teq.linear_forward %x, %w bias(%b : tensor<256xbf16>) config(#teq.linear<>) : tensor<64x128xbf16>, tensor<256x128xbf16> -> tensor<64x256xbf16>
  return
}

// -----

func.func @linear_bias_shape(%x: tensor<64x128xbf16>, %w: tensor<256x128xbf16>, %b: tensor<128xbf16>) {
  // expected-error @+1 {{'teq.linear_forward' op bias must be [256] (the weight's out_features), got [128]}}
  %0 = teq.linear_forward %x, %w bias(%b : tensor<128xbf16>) config(#teq.linear<bias = true>) : tensor<64x128xbf16>, tensor<256x128xbf16> -> tensor<64x256xbf16>
  return
}

// -----

func.func @linear_saved_input_shape(%x: tensor<64x128xbf16>, %w: tensor<256x128xbf16>) {
  // expected-error @+1 {{'teq.linear_forward' op saved input has shape [128x64] but the input is [64x128]}}
  %0:2 = teq.linear_forward %x, %w config(#teq.linear<>) : tensor<64x128xbf16>, tensor<256x128xbf16> -> tensor<64x256xbf16> saved_input(tensor<128x64xbf16>)
  return
}

// -----

func.func @linear_saved_weight_element_type(%x: tensor<64x128xbf16>, %w: tensor<256x128xbf16>) {
  // expected-error @+1 {{'teq.linear_forward' op saved weight has element type 'f32' but the weight has 'bf16'}}
  %0:2 = teq.linear_forward %x, %w config(#teq.linear<>) : tensor<64x128xbf16>, tensor<256x128xbf16> -> tensor<64x256xbf16> saved_weight(!teq.proto<256x128xf32, #teq.mxfp8_quantizer<f8E4M3FN>, columnwise>)
  return
}

// -----

func.func @linear_state_scale(%x: tensor<64x128xbf16>, %w: tensor<256x128xbf16>, %s: tensor<1xf32>, %h: tensor<1024x3xf32>) {
  // expected-error @+1 {{'teq.linear_forward' op delayed-scaling scale must be tensor<3xf32> (one per quantizer slot), got 'tensor<1xf32>'}}
  %0:2 = teq.linear_forward %x, %w state(%s, %h : tensor<1xf32>, tensor<1024x3xf32>) config(#teq.linear<>) : tensor<64x128xbf16>, tensor<256x128xbf16> -> tensor<64x256xbf16> updated_amax_history(tensor<1024x3xf32>)
  return
}

// -----

func.func @linear_state_history(%x: tensor<64x128xbf16>, %w: tensor<256x128xbf16>, %s: tensor<3xf32>, %h: tensor<1024xf32>) {
  // expected-error @+1 {{'teq.linear_forward' op delayed-scaling amax history must be tensor<Lx3xf32> with L = amax_history_len >= 1, got 'tensor<1024xf32>'}}
  %0:2 = teq.linear_forward %x, %w state(%s, %h : tensor<3xf32>, tensor<1024xf32>) config(#teq.linear<>) : tensor<64x128xbf16>, tensor<256x128xbf16> -> tensor<64x256xbf16> updated_amax_history(tensor<1024xf32>)
  return
}

// -----

func.func @linear_state_history_slots(%x: tensor<64x128xbf16>, %w: tensor<256x128xbf16>, %s: tensor<3xf32>, %h: tensor<1024x2xf32>) {
  // expected-error @+1 {{'teq.linear_forward' op delayed-scaling amax history must be tensor<Lx3xf32>}}
  %0:2 = teq.linear_forward %x, %w state(%s, %h : tensor<3xf32>, tensor<1024x2xf32>) config(#teq.linear<>) : tensor<64x128xbf16>, tensor<256x128xbf16> -> tensor<64x256xbf16> updated_amax_history(tensor<1024x2xf32>)
  return
}

// -----

func.func @linear_state_not_returned(%x: tensor<64x128xbf16>, %w: tensor<256x128xbf16>, %s: tensor<3xf32>, %h: tensor<1024x3xf32>) {
  // expected-error @+1 {{'teq.linear_forward' op takes delayed-scaling state but does not return the updated amax history}}
  %0 = teq.linear_forward %x, %w state(%s, %h : tensor<3xf32>, tensor<1024x3xf32>) config(#teq.linear<>) : tensor<64x128xbf16>, tensor<256x128xbf16> -> tensor<64x256xbf16>
  return
}

// -----

func.func @linear_updated_without_state(%x: tensor<64x128xbf16>, %w: tensor<256x128xbf16>) {
  // expected-error @+1 {{'teq.linear_forward' op returns an updated amax history but takes no delayed-scaling state}}
  %0:2 = teq.linear_forward %x, %w config(#teq.linear<>) : tensor<64x128xbf16>, tensor<256x128xbf16> -> tensor<64x256xbf16> updated_amax_history(tensor<1024x3xf32>)
  return
}

// -----

func.func @linear_missing_tp_group(%x: tensor<64x128xbf16>, %w: tensor<128x128xbf16>) {
  // expected-error @+1 {{'teq.linear_forward' op tensor-parallel Linear (tp_size = 2) needs its process group: add tp_group(%group)}}
  %0 = teq.linear_forward %x, %w config(#teq.linear<parallel_mode = column, tp_size = 2>) : tensor<64x128xbf16>, tensor<128x128xbf16> -> tensor<64x128xbf16>
  return
}

// -----

func.func @linear_unexpected_tp_group(%x: tensor<64x128xbf16>, %w: tensor<256x128xbf16>, %g: !teq.process_group) {
  // expected-error @+1 {{'teq.linear_forward' op takes a tp_group but tp_size = 1}}
  %0 = teq.linear_forward %x, %w tp_group(%g) config(#teq.linear<parallel_mode = column>) : tensor<64x128xbf16>, tensor<256x128xbf16> -> tensor<64x256xbf16>
  return
}

// -----

func.func @linear_resolved_delayed_without_state(%x: tensor<64x128xbf16>, %w: tensor<256x128xbf16>) {
  // expected-error @+1 {{'teq.linear_forward' op resolved to delayed scaling (DelayedScaling) but has no state: pass state(%scale, %amax_history : tensor<3xf32>, tensor<Lx3xf32>)}}
  %0 = teq.linear_forward %x, %w config(#teq.linear<>) {quantization = #teq.linear_quantization<recipe = "DelayedScaling", input = #teq.float8_quantizer<f8E4M3FN>, weight = #teq.float8_quantizer<f8E4M3FN>, output = #teq.float8_quantizer<f8E4M3FN>>} : tensor<64x128xbf16>, tensor<256x128xbf16> -> tensor<64x256xbf16>
  return
}

// -----

func.func @linear_resolved_stateless_with_state(%x: tensor<64x128xbf16>, %w: tensor<256x128xbf16>, %s: tensor<3xf32>, %h: tensor<16x3xf32>) {
  // expected-error @+1 {{'teq.linear_forward' op takes delayed-scaling state but resolved to high_precision, which has none}}
  %0:2 = teq.linear_forward %x, %w state(%s, %h : tensor<3xf32>, tensor<16x3xf32>) config(#teq.linear<>) {quantization = #teq.linear_quantization<recipe = "high_precision">} : tensor<64x128xbf16>, tensor<256x128xbf16> -> tensor<64x256xbf16> updated_amax_history(tensor<16x3xf32>)
  return
}

// -----

//===----------------------------------------------------------------------===//
// teq.linear_backward
//===----------------------------------------------------------------------===//

func.func @backward_weight_rank(%dy: tensor<64x256xbf16>, %x: tensor<64x128xbf16>, %w: tensor<128xbf16>) {
  // expected-error @+1 {{'teq.linear_backward' op weight must be [out, in], got [128]}}
  %0:2 = teq.linear_backward %dy, %x, %w config(#teq.linear<>) : tensor<64x256xbf16>, tensor<64x128xbf16>, tensor<128xbf16> dgrad(tensor<64x128xbf16>) wgrad(tensor<128xbf16>)
  return
}

// -----

func.func @backward_grad_output_shape(%dy: tensor<64x128xbf16>, %x: tensor<64x128xbf16>, %w: tensor<256x128xbf16>) {
  // expected-error @+1 {{'teq.linear_backward' op grad_output shape [64x128] should be the forward output's shape [64x256]}}
  %0:2 = teq.linear_backward %dy, %x, %w config(#teq.linear<>) : tensor<64x128xbf16>, tensor<64x128xbf16>, tensor<256x128xbf16> dgrad(tensor<64x128xbf16>) wgrad(tensor<256x128xbf16>)
  return
}

// -----

func.func @backward_row_sp_grad_output(%dy: tensor<64x256xbf16>, %x: tensor<64x32xbf16>, %w: tensor<256x32xbf16>, %g: !teq.process_group) {
  // Row parallel + SP: the forward output was reduce-scattered to [64 / 4].
  // expected-error @+1 {{'teq.linear_backward' op grad_output shape [64x256] should be the forward output's shape [16x256]}}
  %0:2 = teq.linear_backward %dy, %x, %w tp_group(%g) config(#teq.linear<parallel_mode = row, sequence_parallel = true, tp_size = 4>) : tensor<64x256xbf16>, tensor<64x32xbf16>, tensor<256x32xbf16> dgrad(tensor<64x32xbf16>) wgrad(tensor<256x32xbf16>)
  return
}

// -----

func.func @backward_missing_dgrad(%dy: tensor<64x256xbf16>, %x: tensor<64x128xbf16>, %w: tensor<256x128xbf16>) {
  // expected-error @+1 {{'teq.linear_backward' op requires_dgrad = true but there is no dgrad result}}
  %0 = teq.linear_backward %dy, %x, %w config(#teq.linear<>) : tensor<64x256xbf16>, tensor<64x128xbf16>, tensor<256x128xbf16> wgrad(tensor<256x128xbf16>)
  return
}

// -----

func.func @backward_unexpected_dgrad(%dy: tensor<64x256xbf16>, %x: tensor<64x128xbf16>, %w: tensor<256x128xbf16>) {
  // expected-error @+1 {{'teq.linear_backward' op has a dgrad result but requires_dgrad = false}}
  %0:2 = teq.linear_backward %dy, %x, %w config(#teq.linear<requires_dgrad = false>) : tensor<64x256xbf16>, tensor<64x128xbf16>, tensor<256x128xbf16> dgrad(tensor<64x128xbf16>) wgrad(tensor<256x128xbf16>)
  return
}

// -----

func.func @backward_missing_wgrad(%dy: tensor<64x256xbf16>, %x: tensor<64x128xbf16>, %w: tensor<256x128xbf16>) {
  // expected-error @+1 {{'teq.linear_backward' op requires_wgrad = true but there is no wgrad result}}
  %0 = teq.linear_backward %dy, %x, %w config(#teq.linear<>) : tensor<64x256xbf16>, tensor<64x128xbf16>, tensor<256x128xbf16> dgrad(tensor<64x128xbf16>)
  return
}

// -----

func.func @backward_unexpected_wgrad(%dy: tensor<64x256xbf16>, %x: tensor<64x128xbf16>, %w: tensor<256x128xbf16>) {
  // expected-error @+1 {{'teq.linear_backward' op has a wgrad result but requires_wgrad = false}}
  %0:2 = teq.linear_backward %dy, %x, %w config(#teq.linear<requires_wgrad = false>) : tensor<64x256xbf16>, tensor<64x128xbf16>, tensor<256x128xbf16> dgrad(tensor<64x128xbf16>) wgrad(tensor<256x128xbf16>)
  return
}

// -----

func.func @backward_missing_dbias(%dy: tensor<64x256xbf16>, %x: tensor<64x128xbf16>, %w: tensor<256x128xbf16>) {
  // expected-error @+1 {{'teq.linear_backward' op the Linear has a bias but there is no dbias result}}
  %0:2 = teq.linear_backward %dy, %x, %w config(#teq.linear<bias = true>) : tensor<64x256xbf16>, tensor<64x128xbf16>, tensor<256x128xbf16> dgrad(tensor<64x128xbf16>) wgrad(tensor<256x128xbf16>)
  return
}

// -----

func.func @backward_unexpected_dbias(%dy: tensor<64x256xbf16>, %x: tensor<64x128xbf16>, %w: tensor<256x128xbf16>) {
  // expected-error @+1 {{'teq.linear_backward' op has a dbias result but the Linear has no bias or requires_wgrad = false}}
  %0:3 = teq.linear_backward %dy, %x, %w config(#teq.linear<>) : tensor<64x256xbf16>, tensor<64x128xbf16>, tensor<256x128xbf16> dgrad(tensor<64x128xbf16>) wgrad(tensor<256x128xbf16>) dbias(tensor<256xbf16>)
  return
}

// -----

func.func @backward_dbias_without_wgrad(%dy: tensor<64x256xbf16>, %x: tensor<64x128xbf16>, %w: tensor<256x128xbf16>) {
  // dbias comes with wgrad: a bias without requires_wgrad has none.
  // expected-error @+1 {{'teq.linear_backward' op has a dbias result but the Linear has no bias or requires_wgrad = false}}
  %0:2 = teq.linear_backward %dy, %x, %w config(#teq.linear<bias = true, requires_wgrad = false>) : tensor<64x256xbf16>, tensor<64x128xbf16>, tensor<256x128xbf16> dgrad(tensor<64x128xbf16>) dbias(tensor<256xbf16>)
  return
}

// -----

func.func @backward_dgrad_shape(%dy: tensor<64x256xbf16>, %x: tensor<64x128xbf16>, %w: tensor<256x128xbf16>) {
  // expected-error @+1 {{'teq.linear_backward' op dgrad shape [64x256] should be the input's shape [64x128]}}
  %0:2 = teq.linear_backward %dy, %x, %w config(#teq.linear<>) : tensor<64x256xbf16>, tensor<64x128xbf16>, tensor<256x128xbf16> dgrad(tensor<64x256xbf16>) wgrad(tensor<256x128xbf16>)
  return
}

// -----

func.func @backward_missing_main_grad(%dy: tensor<64x256xbf16>, %x: tensor<64x128xbf16>, %w: tensor<256x128xbf16>) {
  // expected-error @+1 {{'teq.linear_backward' op fuse_wgrad_accumulation = true needs the fp32 main_grad: add main_grad(%main_grad : tensor<...xf32>)}}
  %0:2 = teq.linear_backward %dy, %x, %w config(#teq.linear<fuse_wgrad_accumulation = true>) : tensor<64x256xbf16>, tensor<64x128xbf16>, tensor<256x128xbf16> dgrad(tensor<64x128xbf16>) wgrad(tensor<256x128xf32>)
  return
}

// -----

func.func @backward_unexpected_main_grad(%dy: tensor<64x256xbf16>, %x: tensor<64x128xbf16>, %w: tensor<256x128xbf16>, %mg: tensor<256x128xf32>) {
  // expected-error @+1 {{'teq.linear_backward' op takes a main_grad but fuse_wgrad_accumulation = false}}
  %0:2 = teq.linear_backward %dy, %x, %w main_grad(%mg : tensor<256x128xf32>) config(#teq.linear<>) : tensor<64x256xbf16>, tensor<64x128xbf16>, tensor<256x128xbf16> dgrad(tensor<64x128xbf16>) wgrad(tensor<256x128xf32>)
  return
}

// -----

func.func @backward_wgrad_shape(%dy: tensor<64x256xbf16>, %x: tensor<64x128xbf16>, %w: tensor<256x128xbf16>) {
  // expected-error @+1 {{'teq.linear_backward' op wgrad shape [128x256] should be the weight's shape [256x128]}}
  %0:2 = teq.linear_backward %dy, %x, %w config(#teq.linear<>) : tensor<64x256xbf16>, tensor<64x128xbf16>, tensor<256x128xbf16> dgrad(tensor<64x128xbf16>) wgrad(tensor<128x256xbf16>)
  return
}

// -----

func.func @backward_main_grad_type(%dy: tensor<64x256xbf16>, %x: tensor<64x128xbf16>, %w: tensor<256x128xbf16>, %mg: tensor<256x128xf32>) {
  // expected-error @+1 {{'teq.linear_backward' op main_grad type 'tensor<256x128xf32>' should be 'tensor<256x128xbf16>' (wgrad accumulates into it)}}
  %0:2 = teq.linear_backward %dy, %x, %w main_grad(%mg : tensor<256x128xf32>) config(#teq.linear<fuse_wgrad_accumulation = true>) : tensor<64x256xbf16>, tensor<64x128xbf16>, tensor<256x128xbf16> dgrad(tensor<64x128xbf16>) wgrad(tensor<256x128xbf16>)
  return
}

// -----

func.func @backward_dbias_shape(%dy: tensor<64x256xbf16>, %x: tensor<64x128xbf16>, %w: tensor<256x128xbf16>) {
  // expected-error @+1 {{'teq.linear_backward' op dbias must be [256], got [128]}}
  %0:3 = teq.linear_backward %dy, %x, %w config(#teq.linear<bias = true>) : tensor<64x256xbf16>, tensor<64x128xbf16>, tensor<256x128xbf16> dgrad(tensor<64x128xbf16>) wgrad(tensor<256x128xbf16>) dbias(tensor<128xbf16>)
  return
}

// -----

func.func @backward_state_scale(%dy: tensor<64x256xbf16>, %x: tensor<64x128xbf16>, %w: tensor<256x128xbf16>, %s: tensor<3xf32>, %h: tensor<16x2xf32>) {
  // expected-error @+1 {{'teq.linear_backward' op delayed-scaling scale must be tensor<2xf32> (one per quantizer slot), got 'tensor<3xf32>'}}
  %0:3 = teq.linear_backward %dy, %x, %w state(%s, %h : tensor<3xf32>, tensor<16x2xf32>) config(#teq.linear<>) : tensor<64x256xbf16>, tensor<64x128xbf16>, tensor<256x128xbf16> dgrad(tensor<64x128xbf16>) wgrad(tensor<256x128xbf16>) updated_amax_history(tensor<16x2xf32>)
  return
}

// -----

func.func @backward_state_history(%dy: tensor<64x256xbf16>, %x: tensor<64x128xbf16>, %w: tensor<256x128xbf16>, %s: tensor<2xf32>, %h: tensor<16x3xf32>) {
  // expected-error @+1 {{'teq.linear_backward' op delayed-scaling amax history must be tensor<Lx2xf32> with L = amax_history_len >= 1, got 'tensor<16x3xf32>'}}
  %0:3 = teq.linear_backward %dy, %x, %w state(%s, %h : tensor<2xf32>, tensor<16x3xf32>) config(#teq.linear<>) : tensor<64x256xbf16>, tensor<64x128xbf16>, tensor<256x128xbf16> dgrad(tensor<64x128xbf16>) wgrad(tensor<256x128xbf16>) updated_amax_history(tensor<16x3xf32>)
  return
}

// -----

func.func @forward_rng_state_shape(%x: tensor<64x128xbf16>, %w: tensor<256x128xbf16>, %rng: tensor<2x2xi64>) {
  // expected-error @+1 {{'teq.linear_forward' op rng_state must be tensor<2xi64> (the Philox seed and offset), got 'tensor<2x2xi64>'}}
  %0 = teq.linear_forward %x, %w rng_state(%rng : tensor<2x2xi64>) config(#teq.linear<>) : tensor<64x128xbf16>, tensor<256x128xbf16> -> tensor<64x256xbf16>
  return
}

// -----

func.func @backward_rng_state_shape(%dy: tensor<64x256xbf16>, %x: tensor<64x128xbf16>, %w: tensor<256x128xbf16>, %rng: tensor<1xi64>) {
  // expected-error @+1 {{'teq.linear_backward' op rng_state must be tensor<2xi64> (the Philox seed and offset), got 'tensor<1xi64>'}}
  %0:2 = teq.linear_backward %dy, %x, %w rng_state(%rng : tensor<1xi64>) config(#teq.linear<>) : tensor<64x256xbf16>, tensor<64x128xbf16>, tensor<256x128xbf16> dgrad(tensor<64x128xbf16>) wgrad(tensor<256x128xbf16>)
  return
}

// -----

// A Linear resolved to stochastic rounding takes the Philox state of that
// quantization; one resolved to no stochastic rounding takes none.
func.func @backward_resolved_sr_no_rng_state(%dy: tensor<64x256xbf16>, %x: tensor<64x128xbf16>, %w: tensor<256x128xbf16>) {
  // expected-error @+1 {{'teq.linear_backward' op resolved to stochastic rounding of grad_output (NVFP4BlockScaling) but has no rng_state: pass rng_state(%rng : tensor<2xi64>)}}
  %0:2 = teq.linear_backward %dy, %x, %w config(#teq.linear<>) {quantization = #teq.linear_quantization<recipe = "NVFP4BlockScaling", input = #teq.nvfp4_quantizer<f4E2M1FN>, weight = #teq.nvfp4_quantizer<f4E2M1FN>, output = #teq.nvfp4_quantizer<f4E2M1FN>, grad_output = #teq.nvfp4_quantizer<f4E2M1FN, stochastic_rounding = true>, grad_input = #teq.nvfp4_quantizer<f4E2M1FN, stochastic_rounding = true>>} : tensor<64x256xbf16>, tensor<64x128xbf16>, tensor<256x128xbf16> dgrad(tensor<64x128xbf16>) wgrad(tensor<256x128xbf16>)
  return
}

// -----

func.func @forward_resolved_unused_rng_state(%x: tensor<64x128xbf16>, %w: tensor<256x128xbf16>, %rng: tensor<2xi64>) {
  // expected-error @+1 {{'teq.linear_forward' op takes an rng_state but resolved to MXFP8BlockScaling, which rounds none of its tensors stochastically}}
  %0 = teq.linear_forward %x, %w rng_state(%rng : tensor<2xi64>) config(#teq.linear<>) {quantization = #teq.linear_quantization<recipe = "MXFP8BlockScaling", input = #teq.mxfp8_quantizer<f8E4M3FN>, weight = #teq.mxfp8_quantizer<f8E4M3FN>, output = #teq.mxfp8_quantizer<f8E4M3FN>, grad_output = #teq.mxfp8_quantizer<f8E4M3FN>, grad_input = #teq.mxfp8_quantizer<f8E4M3FN>, fprop_split_accumulator = false>} : tensor<64x128xbf16>, tensor<256x128xbf16> -> tensor<64x256xbf16>
  return
}

// -----

func.func @forward_resolved_two_sr_tensors(%x: tensor<64x128xbf16>, %w: tensor<256x128xbf16>, %rng: tensor<2xi64>) {
  // expected-error @+1 {{'teq.linear_forward' op rounds input and weight stochastically but has one rng_state (one Philox stream): both would round with the same random bits}}
  %0 = teq.linear_forward %x, %w rng_state(%rng : tensor<2xi64>) config(#teq.linear<>) {quantization = #teq.linear_quantization<recipe = "CustomRecipe", input = #teq.nvfp4_quantizer<f4E2M1FN, stochastic_rounding = true>, weight = #teq.nvfp4_quantizer<f4E2M1FN, stochastic_rounding = true>, output = #teq.nvfp4_quantizer<f4E2M1FN>, grad_output = #teq.nvfp4_quantizer<f4E2M1FN>, grad_input = #teq.nvfp4_quantizer<f4E2M1FN>>} : tensor<64x128xbf16>, tensor<256x128xbf16> -> tensor<64x256xbf16>
  return
}

// -----

func.func @backward_updated_history_type(%dy: tensor<64x256xbf16>, %x: tensor<64x128xbf16>, %w: tensor<256x128xbf16>, %s: tensor<2xf32>, %h: tensor<16x2xf32>) {
  // expected-error @+1 {{'teq.linear_backward' op updated amax history type 'tensor<32x2xf32>' must match the amax history type 'tensor<16x2xf32>'}}
  %0:3 = teq.linear_backward %dy, %x, %w state(%s, %h : tensor<2xf32>, tensor<16x2xf32>) config(#teq.linear<>) : tensor<64x256xbf16>, tensor<64x128xbf16>, tensor<256x128xbf16> dgrad(tensor<64x128xbf16>) wgrad(tensor<256x128xbf16>) updated_amax_history(tensor<32x2xf32>)
  return
}

// -----

func.func @backward_missing_tp_group(%dy: tensor<64x256xbf16>, %x: tensor<64x64xbf16>, %w: tensor<256x64xbf16>) {
  // expected-error @+1 {{'teq.linear_backward' op tensor-parallel Linear (tp_size = 2) needs its process group: add tp_group(%group)}}
  %0:2 = teq.linear_backward %dy, %x, %w config(#teq.linear<parallel_mode = row, tp_size = 2>) : tensor<64x256xbf16>, tensor<64x64xbf16>, tensor<256x64xbf16> dgrad(tensor<64x64xbf16>) wgrad(tensor<256x64xbf16>)
  return
}

// -----

func.func @backward_unexpected_tp_group(%dy: tensor<64x256xbf16>, %x: tensor<64x128xbf16>, %w: tensor<256x128xbf16>, %g: !teq.process_group) {
  // expected-error @+1 {{'teq.linear_backward' op takes a tp_group but tp_size = 1}}
  %0:2 = teq.linear_backward %dy, %x, %w tp_group(%g) config(#teq.linear<>) : tensor<64x256xbf16>, tensor<64x128xbf16>, tensor<256x128xbf16> dgrad(tensor<64x128xbf16>) wgrad(tensor<256x128xbf16>)
  return
}

// -----

func.func @backward_resolved_delayed_without_state(%dy: tensor<64x256xbf16>, %x: tensor<64x128xbf16>, %w: tensor<256x128xbf16>) {
  // The backward slots of a custom recipe ask for delayed scaling.
  // expected-error @+1 {{'teq.linear_backward' op resolved to delayed scaling (CustomRecipe) but has no state: pass state(%scale, %amax_history : tensor<2xf32>, tensor<Lx2xf32>)}}
  %0:2 = teq.linear_backward %dy, %x, %w config(#teq.linear<>) {quantization = #teq.linear_quantization<recipe = "CustomRecipe", input = #teq.mxfp8_quantizer<f8E4M3FN>, weight = #teq.mxfp8_quantizer<f8E4M3FN>, grad_output = #teq.float8_quantizer<f8E5M2>>} : tensor<64x256xbf16>, tensor<64x128xbf16>, tensor<256x128xbf16> dgrad(tensor<64x128xbf16>) wgrad(tensor<256x128xbf16>)
  return
}

// -----

func.func @backward_resolved_stateless_with_state(%dy: tensor<64x256xbf16>, %x: tensor<64x128xbf16>, %w: tensor<256x128xbf16>, %s: tensor<2xf32>, %h: tensor<16x2xf32>) {
  // Forward delayed scaling does not make the backward slots stateful.
  // expected-error @+1 {{'teq.linear_backward' op takes delayed-scaling state but resolved to CustomRecipe, which has none}}
  %0:3 = teq.linear_backward %dy, %x, %w state(%s, %h : tensor<2xf32>, tensor<16x2xf32>) config(#teq.linear<>) {quantization = #teq.linear_quantization<recipe = "CustomRecipe", input = #teq.float8_quantizer<f8E4M3FN>, weight = #teq.float8_quantizer<f8E4M3FN>, grad_output = #teq.float8_current_scaling_quantizer<f8E5M2>>} : tensor<64x256xbf16>, tensor<64x128xbf16>, tensor<256x128xbf16> dgrad(tensor<64x128xbf16>) wgrad(tensor<256x128xbf16>) updated_amax_history(tensor<16x2xf32>)
  return
}

// -----

//===----------------------------------------------------------------------===//
// teq.gemm
//===----------------------------------------------------------------------===//

func.func @gemm_mixed(%a: !teq.proto<256x128xbf16, #teq.float8_current_scaling_quantizer<f8E4M3FN>, rowwise>, %b: tensor<64x128xbf16>) {
  // expected-error @+1 {{'teq.gemm' op takes two quantized operands or two high-precision ones, got '!teq.proto<256x128xbf16, #teq.float8_current_scaling_quantizer<f8E4M3FN>, rowwise>' and 'tensor<64x128xbf16>'}}
  %0 = teq.gemm TN %a, %b : !teq.proto<256x128xbf16, #teq.float8_current_scaling_quantizer<f8E4M3FN>, rowwise>, tensor<64x128xbf16> -> tensor<64x256xbf16>
  return
}

// -----

func.func @gemm_a_rank(%a: tensor<2x256x128xbf16>, %b: tensor<64x128xbf16>) {
  // A is flattened to [512, 128] like B, so TN gives [64, 512].
  // expected-error @+1 {{'teq.gemm' op result shape [64x256] should be [64x512] for A [2x256x128]}}
  %0 = teq.gemm TN %a, %b : tensor<2x256x128xbf16>, tensor<64x128xbf16> -> tensor<64x256xbf16>
  return
}

// -----

func.func @gemm_b_scalar(%a: tensor<256x128xbf16>, %b: tensor<bf16>) {
  // expected-error @+1 {{'teq.gemm' op operands must have at least one dimension}}
  %0 = teq.gemm TN %a, %b : tensor<256x128xbf16>, tensor<bf16> -> tensor<256xbf16>
  return
}

// -----

func.func @gemm_inner_dims(%a: tensor<256x128xbf16>, %b: tensor<64x128xbf16>) {
  // NN reads A as [k, m] = [256, 128], but B gives k = 128.
  // expected-error @+1 {{'teq.gemm' op inner dimensions differ for layout NN: A [256x128] gives k = 256, B [64x128] gives k = 128}}
  %0 = teq.gemm NN %a, %b : tensor<256x128xbf16>, tensor<64x128xbf16> -> tensor<64x128xbf16>
  return
}

// -----

func.func @gemm_result_shape(%a: tensor<256x128xbf16>, %b: tensor<64x128xbf16>) {
  // expected-error @+1 {{'teq.gemm' op result shape [256x64] should be [64x256] for A [256x128], B [64x128] and layout TN}}
  %0 = teq.gemm TN %a, %b : tensor<256x128xbf16>, tensor<64x128xbf16> -> tensor<256x64xbf16>
  return
}

// -----

func.func @gemm_result_shape_3d(%a: tensor<256x128xbf16>, %b: tensor<4x16x128xbf16>) {
  // D keeps B's leading dimensions.
  // expected-error @+1 {{'teq.gemm' op result shape [64x256] should be [4x16x256] for A [256x128], B [4x16x128] and layout TN}}
  %0 = teq.gemm TN %a, %b : tensor<256x128xbf16>, tensor<4x16x128xbf16> -> tensor<64x256xbf16>
  return
}

// -----

func.func @gemm_result_type(%a: tensor<256x128xbf16>, %b: tensor<64x128xbf16>) {
  // expected-error @+1 {{'teq.gemm' op result must be bf16, f16 or f32, got 'i32'}}
  %0 = teq.gemm TN %a, %b : tensor<256x128xbf16>, tensor<64x128xbf16> -> tensor<64x256xi32>
  return
}

// -----

func.func @gemm_usage_a(%a: !teq.proto<256x128xbf16, #teq.float8_current_scaling_quantizer<f8E4M3FN>, columnwise>, %b: !teq.proto<64x128xbf16, #teq.float8_current_scaling_quantizer<f8E4M3FN>, rowwise>) {
  // expected-error @+1 {{'teq.gemm' op layout TN reads A rowwise, but A only has usage columnwise}}
  %0 = teq.gemm TN %a, %b : !teq.proto<256x128xbf16, #teq.float8_current_scaling_quantizer<f8E4M3FN>, columnwise>, !teq.proto<64x128xbf16, #teq.float8_current_scaling_quantizer<f8E4M3FN>, rowwise> -> tensor<64x256xbf16>
  return
}

// -----

func.func @gemm_usage_a_nn(%a: !teq.proto<256x128xbf16, #teq.mxfp8_quantizer<f8E4M3FN>, rowwise>, %b: !teq.proto<64x256xbf16, #teq.mxfp8_quantizer<f8E5M2>, rowwise>) {
  // dgrad (NN) reads the weight columnwise.
  // expected-error @+1 {{'teq.gemm' op layout NN reads A columnwise, but A only has usage rowwise}}
  %0 = teq.gemm NN %a, %b : !teq.proto<256x128xbf16, #teq.mxfp8_quantizer<f8E4M3FN>, rowwise>, !teq.proto<64x256xbf16, #teq.mxfp8_quantizer<f8E5M2>, rowwise> -> tensor<64x128xbf16>
  return
}

// -----

func.func @gemm_usage_b(%a: !teq.proto<64x128xbf16, #teq.mxfp8_quantizer<f8E4M3FN>, columnwise>, %b: !teq.proto<64x256xbf16, #teq.mxfp8_quantizer<f8E5M2>, rowwise>) {
  // wgrad (NT) reads grad_output columnwise.
  // expected-error @+1 {{'teq.gemm' op layout NT reads B columnwise, but B only has usage rowwise}}
  %0 = teq.gemm NT %a, %b : !teq.proto<64x128xbf16, #teq.mxfp8_quantizer<f8E4M3FN>, columnwise>, !teq.proto<64x256xbf16, #teq.mxfp8_quantizer<f8E5M2>, rowwise> -> tensor<256x128xbf16>
  return
}

// -----

func.func @gemm_e5m2_e5m2(%a: !teq.proto<256x128xbf16, #teq.float8_current_scaling_quantizer<f8E5M2>, rowwise>, %b: !teq.proto<64x128xbf16, #teq.float8_current_scaling_quantizer<f8E5M2>, rowwise>) {
  // expected-error @+1 {{'teq.gemm' op FP8 GEMMs with both A and B in E5M2 are not supported}}
  %0 = teq.gemm TN %a, %b : !teq.proto<256x128xbf16, #teq.float8_current_scaling_quantizer<f8E5M2>, rowwise>, !teq.proto<64x128xbf16, #teq.float8_current_scaling_quantizer<f8E5M2>, rowwise> -> tensor<64x256xbf16>
  return
}

// -----

func.func @gemm_block_2d_2d(%a: !teq.proto<256x128xbf16, #teq.float8_block_quantizer<f8E4M3FN>, rowwise>, %b: !teq.proto<128x128xbf16, #teq.float8_block_quantizer<f8E4M3FN>, rowwise>) {
  // expected-error @+1 {{'teq.gemm' op 2D by 2D block gemm not supported}}
  %0 = teq.gemm TN %a, %b : !teq.proto<256x128xbf16, #teq.float8_block_quantizer<f8E4M3FN>, rowwise>, !teq.proto<128x128xbf16, #teq.float8_block_quantizer<f8E4M3FN>, rowwise> -> tensor<128x256xbf16>
  return
}

// -----

func.func @gemm_incompatible_scaling(%a: !teq.proto<256x128xbf16, #teq.float8_current_scaling_quantizer<f8E4M3FN>, rowwise>, %b: !teq.proto<64x128xbf16, #teq.mxfp8_quantizer<f8E4M3FN>, rowwise>) {
  // expected-error @+1 {{'teq.gemm' op Inputs A and B to GEMM need to have compatible scaling modes, got per_tensor_fp8 and mxfp8}}
  %0 = teq.gemm TN %a, %b : !teq.proto<256x128xbf16, #teq.float8_current_scaling_quantizer<f8E4M3FN>, rowwise>, !teq.proto<64x128xbf16, #teq.mxfp8_quantizer<f8E4M3FN>, rowwise> -> tensor<64x256xbf16>
  return
}

// -----

func.func @gemm_incompatible_block_nvfp4(%a: !teq.proto<256x128xbf16, #teq.float8_block_quantizer<f8E4M3FN>, rowwise>, %b: !teq.proto<64x128xbf16, #teq.nvfp4_quantizer<f4E2M1FN>, rowwise>) {
  // expected-error @+1 {{'teq.gemm' op Inputs A and B to GEMM need to have compatible scaling modes, got block_fp8_2d and nvfp4}}
  %0 = teq.gemm TN %a, %b : !teq.proto<256x128xbf16, #teq.float8_block_quantizer<f8E4M3FN>, rowwise>, !teq.proto<64x128xbf16, #teq.nvfp4_quantizer<f4E2M1FN>, rowwise> -> tensor<64x256xbf16>
  return
}

// -----

func.func @gemm_block_fast_accum(%a: !teq.proto<256x128xbf16, #teq.float8_block_quantizer<f8E4M3FN>, rowwise>, %b: !teq.proto<64x128xbf16, #teq.float8_block_quantizer<f8E4M3FN, block_scaling_dim = 1>, rowwise>) {
  // expected-error @+1 {{'teq.gemm' op FP8 block-scaled GEMMs require use_split_accumulator = true}}
  %0 = teq.gemm TN %a, %b {use_split_accumulator = false} : !teq.proto<256x128xbf16, #teq.float8_block_quantizer<f8E4M3FN>, rowwise>, !teq.proto<64x128xbf16, #teq.float8_block_quantizer<f8E4M3FN, block_scaling_dim = 1>, rowwise> -> tensor<64x256xbf16>
  return
}

// -----

func.func @gemm_element_types_differ(%a: tensor<256x128xbf16>, %b: tensor<64x128xf16>) {
  // expected-error @+1 {{'teq.gemm' op high-precision operands must have one element type, got 'bf16' and 'f16'}}
  %0 = teq.gemm TN %a, %b : tensor<256x128xbf16>, tensor<64x128xf16> -> tensor<64x256xbf16>
  return
}

// -----

func.func @gemm_integer_operands(%a: tensor<256x128xi8>, %b: tensor<64x128xi8>) {
  // expected-error @+1 {{'teq.gemm' op high-precision operands must be bf16, f16 or f32, got 'i8'}}
  %0 = teq.gemm TN %a, %b : tensor<256x128xi8>, tensor<64x128xi8> -> tensor<64x256xbf16>
  return
}

// -----

func.func @gemm_bias_shape(%a: tensor<256x128xbf16>, %b: tensor<64x128xbf16>, %bias: tensor<64xbf16>) {
  // expected-error @+1 {{'teq.gemm' op bias must be [256], got [64]}}
  %0 = teq.gemm TN %a, %b bias(%bias : tensor<64xbf16>) : tensor<256x128xbf16>, tensor<64x128xbf16> -> tensor<64x256xbf16>
  return
}

// -----

func.func @gemm_bias_type(%a: tensor<256x128xbf16>, %b: tensor<64x128xbf16>, %bias: tensor<256xi32>) {
  // expected-error @+1 {{'teq.gemm' op bias must be bf16, f16 or f32, got 'i32'}}
  %0 = teq.gemm TN %a, %b bias(%bias : tensor<256xi32>) : tensor<256x128xbf16>, tensor<64x128xbf16> -> tensor<64x256xbf16>
  return
}

// -----

func.func @gemm_accumulate_type(%a: tensor<64x128xbf16>, %b: tensor<64x256xbf16>, %c: tensor<256x128xf32>) {
  // expected-error @+1 {{'teq.gemm' op accumulator type 'tensor<256x128xf32>' must equal the result type 'tensor<256x128xbf16>'}}
  %0 = teq.gemm NT %a, %b accumulate(%c : tensor<256x128xf32>) : tensor<64x128xbf16>, tensor<64x256xbf16> -> tensor<256x128xbf16>
  return
}

// -----

func.func @gemm_dbias_shape(%a: tensor<64x128xbf16>, %b: tensor<64x256xbf16>) {
  // expected-error @+1 {{'teq.gemm' op dbias (BGRADB, summed over B) must be [256], got [128]}}
  %0:2 = teq.gemm NT %a, %b : tensor<64x128xbf16>, tensor<64x256xbf16> -> tensor<256x128xbf16>, tensor<128xbf16>
  return
}

// -----

func.func @gemm_bias_and_dbias(%a: tensor<256x128xbf16>, %b: tensor<64x128xbf16>, %bias: tensor<256xbf16>) {
  // expected-error @+1 {{'teq.gemm' op cannot both add a bias and compute its gradient}}
  %0:2 = teq.gemm TN %a, %b bias(%bias : tensor<256xbf16>) : tensor<256x128xbf16>, tensor<64x128xbf16> -> tensor<64x256xbf16>, tensor<64xbf16>
  return
}

// -----

func.func @gemm_bad_layout(%a: tensor<256x128xbf16>, %b: tensor<64x128xbf16>) {
  // expected-error @+1 {{unknown GEMM layout 'TX'; expected TN, NN, NT or TT}}
  %0 = teq.gemm TX %a, %b : tensor<256x128xbf16>, tensor<64x128xbf16> -> tensor<64x256xbf16>
  return
}

// -----

// expected-error @+1 {{'teq.saved_memory' belongs on a function and is}}
func.func private @bad_saved_memory() attributes {teq.saved_memory = {before = 1}}
