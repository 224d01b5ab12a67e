// RUN: te-opt %s | FileCheck %s
// RUN: te-opt %s | te-opt | FileCheck %s
// RUN: te-opt %s --mlir-print-op-generic | te-opt | FileCheck %s
// RUN: te-opt %s --cse | FileCheck %s --check-prefix=CSE

// Round trip of every teq attribute, type and op. The CHECK lines spell the
// canonical printed form: fields equal to their default are elided and the
// others are printed in declaration order, whatever order the input uses.
// Attributes hang off func attribute dictionaries, which print their entries
// sorted by name.

// CHECK-LABEL: module attributes {teq.target = #teq.target<sm_90>} {
module attributes {teq.target = #teq.target<sm_90>} {

//===----------------------------------------------------------------------===//
// #teq.target: every chip, arch suffixes, CUDA versions ("13.0" is elided).
//===----------------------------------------------------------------------===//

// CHECK-LABEL: module @chip_sm_89
// CHECK-SAME:  attributes {teq.target = #teq.target<sm_89, cuda = "12.1">} {
module @chip_sm_89 attributes {teq.target = #teq.target<sm_89, cuda = "12.1">} {}

// CHECK-LABEL: module @chip_sm_90
// CHECK-SAME:  attributes {teq.target = #teq.target<sm_90, cuda = "12.9">} {
module @chip_sm_90 attributes {teq.target = #teq.target<sm_90, cuda = "12.9">} {}

// CHECK-LABEL: module @chip_sm_90a
// CHECK-SAME:  attributes {teq.target = #teq.target<sm_90a>} {
module @chip_sm_90a attributes {teq.target = #teq.target<sm_90a>} {}

// CHECK-LABEL: module @chip_sm_100
// CHECK-SAME:  attributes {teq.target = #teq.target<sm_100>} {
module @chip_sm_100 attributes {teq.target = #teq.target<sm_100, cuda = "13.0">} {}

// CHECK-LABEL: module @chip_sm_100a
// CHECK-SAME:  attributes {teq.target = #teq.target<sm_100a, cuda = "12.8">} {
module @chip_sm_100a attributes {teq.target = #teq.target<sm_100a, cuda = "12.8">} {}

// CHECK-LABEL: module @chip_sm_103
// CHECK-SAME:  attributes {teq.target = #teq.target<sm_103>} {
module @chip_sm_103 attributes {teq.target = #teq.target<sm_103>} {}

// CHECK-LABEL: module @chip_sm_120
// CHECK-SAME:  attributes {teq.target = #teq.target<sm_120, cuda = "13.1">} {
module @chip_sm_120 attributes {teq.target = #teq.target<sm_120, cuda = "13.1">} {}

// CHECK-LABEL: func.func private @targets()
// CHECK-SAME:  attributes {t0_sm70 = #teq.target<sm_70>,
// CHECK-SAME:  t1_sm89 = #teq.target<sm_89, cuda = "12.0">,
// CHECK-SAME:  t2_sm90 = #teq.target<sm_90>,
// CHECK-SAME:  t3_sm90a = #teq.target<sm_90a, cuda = "12.9">,
// CHECK-SAME:  t4_sm100 = #teq.target<sm_100>,
// CHECK-SAME:  t5_sm100a = #teq.target<sm_100a>,
// CHECK-SAME:  t6_sm100f = #teq.target<sm_100f, cuda = "12.9">,
// CHECK-SAME:  t7_sm103 = #teq.target<sm_103>,
// CHECK-SAME:  t8_sm120 = #teq.target<sm_120, cuda = "12.8">,
// CHECK-SAME:  t9_sm130 = #teq.target<sm_130, cuda = "12.9">}{{$}}
func.func private @targets() attributes {
  t0_sm70 = #teq.target<sm_70>,
  t1_sm89 = #teq.target<sm_89, cuda = "12.0">,
  t2_sm90 = #teq.target<sm_90>,
  t3_sm90a = #teq.target<sm_90a, cuda = "12.9">,
  t4_sm100 = #teq.target<sm_100>,
  t5_sm100a = #teq.target<sm_100a>,
  t6_sm100f = #teq.target<sm_100f, cuda = "12.9">,
  t7_sm103 = #teq.target<sm_103, cuda = "13.0">,
  t8_sm120 = #teq.target<sm_120, cuda = "12.8">,
  t9_sm130 = #teq.target<sm_130, cuda = "12.9">
}

//===----------------------------------------------------------------------===//
// #teq.mm_params, #teq.quantizer_role, #teq.delayed_scaling_request
//===----------------------------------------------------------------------===//

// CHECK-LABEL: func.func private @mm_params()
// CHECK-SAME:  attributes {fast_accum = #teq.mm_params<use_split_accumulator = false>,
// CHECK-SAME:  split = #teq.mm_params<use_split_accumulator = true>}{{$}}
func.func private @mm_params() attributes {
  split = #teq.mm_params<use_split_accumulator = true>,
  fast_accum = #teq.mm_params<use_split_accumulator = false>
}

// Fields print as module_type, tensor_type, name; empty strings are elided.
// CHECK-LABEL: func.func private @quantizer_roles()
// CHECK-SAME:  attributes {any = #teq.quantizer_role<>,
// CHECK-SAME:  empty_strings = #teq.quantizer_role<>,
// CHECK-SAME:  full = #teq.quantizer_role<module_type = "linear", tensor_type = weight, name = "fc1">,
// CHECK-SAME:  grad_input = #teq.quantizer_role<tensor_type = grad_input>,
// CHECK-SAME:  grad_output = #teq.quantizer_role<tensor_type = grad_output>,
// CHECK-SAME:  input = #teq.quantizer_role<tensor_type = input>,
// CHECK-SAME:  module = #teq.quantizer_role<module_type = "grouped_linear">,
// CHECK-SAME:  name = #teq.quantizer_role<name = "proj">,
// CHECK-SAME:  output = #teq.quantizer_role<tensor_type = output>}{{$}}
func.func private @quantizer_roles() attributes {
  any = #teq.quantizer_role<>,
  empty_strings = #teq.quantizer_role<module_type = "", name = "">,
  full = #teq.quantizer_role<name = "fc1", tensor_type = weight, module_type = "linear">,
  grad_input = #teq.quantizer_role<tensor_type = grad_input>,
  grad_output = #teq.quantizer_role<tensor_type = grad_output>,
  input = #teq.quantizer_role<tensor_type = input>,
  module = #teq.quantizer_role<module_type = "grouped_linear">,
  name = #teq.quantizer_role<name = "proj">,
  output = #teq.quantizer_role<tensor_type = output>
}

// CHECK-LABEL: func.func private @delayed_scaling_requests()
// CHECK-SAME:  attributes {default = #teq.delayed_scaling_request<>,
// CHECK-SAME:  explicit_defaults = #teq.delayed_scaling_request<>,
// CHECK-SAME:  full = #teq.delayed_scaling_request<fp8_format = E4M3, margin = 1, amax_history_len = 16, amax_compute_algo = most_recent, reduce_amax = false>}{{$}}
func.func private @delayed_scaling_requests() attributes {
  default = #teq.delayed_scaling_request<>,
  explicit_defaults = #teq.delayed_scaling_request<fp8_format = HYBRID, margin = 0, amax_history_len = 1024, amax_compute_algo = max, reduce_amax = true>,
  full = #teq.delayed_scaling_request<reduce_amax = false, amax_compute_algo = most_recent, amax_history_len = 16, margin = 1, fp8_format = E4M3>
}

//===----------------------------------------------------------------------===//
// Recipes: default, every field written with its default value (prints as
// the default), and every field the verifier allows set to a non-default
// value, written in reverse order.
//===----------------------------------------------------------------------===//

// DelayedScaling: backward_override must stay none (TE asserts it).
// CHECK-LABEL: func.func private @recipe_delayed_scaling()
// CHECK-SAME:  attributes {default = #teq.delayed_scaling<>,
// CHECK-SAME:  explicit_defaults = #teq.delayed_scaling<>,
// CHECK-SAME:  full = #teq.delayed_scaling<margin = 2, fp8_format = E4M3, amax_history_len = 16, amax_compute_algo = most_recent, reduce_amax = false, fp8_dpa = true, fp8_mha = true>}{{$}}
func.func private @recipe_delayed_scaling() attributes {
  default = #teq.delayed_scaling<>,
  explicit_defaults = #teq.delayed_scaling<margin = 0, fp8_format = HYBRID, amax_history_len = 1024, amax_compute_algo = max, reduce_amax = true, fp8_dpa = false, fp8_mha = false, backward_override = none>,
  full = #teq.delayed_scaling<fp8_mha = true, fp8_dpa = true, reduce_amax = false, amax_compute_algo = most_recent, amax_history_len = 16, fp8_format = E4M3, margin = 2>
}

// Float8CurrentScaling: the MMParams defaults are fprop false, dgrad/wgrad true.
// CHECK-LABEL: func.func private @recipe_float8_current_scaling()
// CHECK-SAME:  attributes {default = #teq.float8_current_scaling<>,
// CHECK-SAME:  explicit_defaults = #teq.float8_current_scaling<>,
// CHECK-SAME:  full = #teq.float8_current_scaling<use_power_2_scales = true, fp8_format = E4M3, fp8_gemm_fprop = <use_split_accumulator = true>, fp8_gemm_dgrad = <use_split_accumulator = false>, fp8_gemm_wgrad = <use_split_accumulator = false>, fp8_dpa = true, fp8_mha = true, backward_override = high_precision>}{{$}}
func.func private @recipe_float8_current_scaling() attributes {
  default = #teq.float8_current_scaling<>,
  explicit_defaults = #teq.float8_current_scaling<use_power_2_scales = false, fp8_format = HYBRID, fp8_gemm_fprop = <use_split_accumulator = false>, fp8_gemm_dgrad = <use_split_accumulator = true>, fp8_gemm_wgrad = <use_split_accumulator = true>, fp8_dpa = false, fp8_mha = false, backward_override = none>,
  full = #teq.float8_current_scaling<backward_override = high_precision, fp8_mha = true, fp8_dpa = true, fp8_gemm_wgrad = <use_split_accumulator = false>, fp8_gemm_dgrad = <use_split_accumulator = false>, fp8_gemm_fprop = <use_split_accumulator = true>, fp8_format = E4M3, use_power_2_scales = true>
}

// Float8BlockScaling: fp8_gemm_* must keep split accumulation and fp8_dpa /
// fp8_mha must stay false; the dims can move the 2D blocks to x.
// CHECK-LABEL: func.func private @recipe_float8_block_scaling()
// CHECK-SAME:  attributes {default = #teq.float8_block_scaling<>,
// CHECK-SAME:  explicit_defaults = #teq.float8_block_scaling<>,
// CHECK-SAME:  full = #teq.float8_block_scaling<use_f32_scales = true, fp8_format = HYBRID, x_block_scaling_dim = 2, w_block_scaling_dim = 1, backward_override = dequantized>,
// CHECK-SAME:  one_d = #teq.float8_block_scaling<w_block_scaling_dim = 1>}{{$}}
func.func private @recipe_float8_block_scaling() attributes {
  default = #teq.float8_block_scaling<>,
  explicit_defaults = #teq.float8_block_scaling<use_f32_scales = false, fp8_format = E4M3, x_block_scaling_dim = 1, w_block_scaling_dim = 2, grad_block_scaling_dim = 1, fp8_gemm_fprop = <use_split_accumulator = true>, fp8_gemm_dgrad = <use_split_accumulator = true>, fp8_gemm_wgrad = <use_split_accumulator = true>, fp8_dpa = false, fp8_mha = false, backward_override = none>,
  full = #teq.float8_block_scaling<backward_override = dequantized, grad_block_scaling_dim = 1, w_block_scaling_dim = 1, x_block_scaling_dim = 2, fp8_format = HYBRID, use_f32_scales = true>,
  one_d = #teq.float8_block_scaling<x_block_scaling_dim = 1, w_block_scaling_dim = 1, grad_block_scaling_dim = 1>
}

// CHECK-LABEL: func.func private @recipe_mxfp8_block_scaling()
// CHECK-SAME:  attributes {default = #teq.mxfp8_block_scaling<>,
// CHECK-SAME:  explicit_defaults = #teq.mxfp8_block_scaling<>,
// CHECK-SAME:  full = #teq.mxfp8_block_scaling<margin = 3, fp8_format = HYBRID, enable_2d_quantization = true, fp8_dpa = true, fp8_mha = true, backward_override = high_precision>}{{$}}
func.func private @recipe_mxfp8_block_scaling() attributes {
  default = #teq.mxfp8_block_scaling<>,
  explicit_defaults = #teq.mxfp8_block_scaling<margin = 0, fp8_format = E4M3, enable_2d_quantization = false, fp8_dpa = false, fp8_mha = false, backward_override = none>,
  full = #teq.mxfp8_block_scaling<backward_override = high_precision, fp8_mha = true, fp8_dpa = true, enable_2d_quantization = true, fp8_format = HYBRID, margin = 3>
}

// NVFP4BlockScaling: fp4_format and fp8_format are fixed (E2M1, E4M3); 4over6
// on activations needs RHT and stochastic rounding off.
// CHECK-LABEL: func.func private @recipe_nvfp4_block_scaling()
// CHECK-SAME:  attributes {default = #teq.nvfp4_block_scaling<>,
// CHECK-SAME:  explicit_defaults = #teq.nvfp4_block_scaling<>,
// CHECK-SAME:  full = #teq.nvfp4_block_scaling<disable_rht = true, disable_stochastic_rounding = true, disable_2d_quantization = true, row_scaled_activation = true, nvfp4_4over6 = all, nvfp4_4over6_e4m3_use_256 = weights, nvfp4_4over6_err_mode = MSE, fp8_dpa = true, fp8_mha = true, backward_override = dequantized>,
// CHECK-SAME:  weights_4over6 = #teq.nvfp4_block_scaling<nvfp4_4over6 = weights, nvfp4_4over6_e4m3_use_256 = none>}{{$}}
func.func private @recipe_nvfp4_block_scaling() attributes {
  default = #teq.nvfp4_block_scaling<>,
  explicit_defaults = #teq.nvfp4_block_scaling<disable_rht = false, disable_stochastic_rounding = false, disable_2d_quantization = false, row_scaled_activation = false, nvfp4_4over6 = none, nvfp4_4over6_e4m3_use_256 = all, nvfp4_4over6_err_mode = MAE, fp4_format = E2M1, fp8_format = E4M3, fp8_dpa = false, fp8_mha = false, backward_override = none>,
  full = #teq.nvfp4_block_scaling<backward_override = dequantized, fp8_mha = true, fp8_dpa = true, fp8_format = E4M3, fp4_format = E2M1, nvfp4_4over6_err_mode = MSE, nvfp4_4over6_e4m3_use_256 = weights, nvfp4_4over6 = all, row_scaled_activation = true, disable_2d_quantization = true, disable_stochastic_rounding = true, disable_rht = true>,
  weights_4over6 = #teq.nvfp4_block_scaling<nvfp4_4over6 = weights, nvfp4_4over6_e4m3_use_256 = none>
}

// CustomRecipe: rule patterns print stripped (`<...>`), whichever way they
// are written; the rules keep their order.
// CHECK-LABEL: func.func private @recipe_custom()
// CHECK-SAME:  attributes {default = #teq.custom_recipe<[<> -> #teq.float8_current_scaling_quantizer<f8E4M3FN>]>,
// CHECK-SAME:  explicit_defaults = #teq.custom_recipe<[<> -> #teq.mxfp8_quantizer<f8E4M3FN>]>,
// CHECK-SAME:  full = #teq.custom_recipe<[<module_type = "linear", tensor_type = weight, name = "fc1"> -> #teq.float8_block_quantizer<f8E4M3FN>, <tensor_type = weight> -> #teq.float8_block_quantizer<f8E4M3FN, block_scaling_dim = 1>, <tensor_type = grad_output> -> #teq.delayed_scaling_request<margin = 1>, <tensor_type = grad_input> -> #teq.delayed_scaling_request<margin = 1>, <> -> #teq.nvfp4_quantizer<f4E2M1FN>], fp8_format = E4M3, quantization_alignment = 64, backward_override = high_precision>}{{$}}
func.func private @recipe_custom() attributes {
  default = #teq.custom_recipe<[<> -> #teq.float8_current_scaling_quantizer<f8E4M3FN>]>,
  explicit_defaults = #teq.custom_recipe<[#teq.quantizer_role<> -> #teq.mxfp8_quantizer<f8E4M3FN>], backward_override = none, quantization_alignment = 128, fp8_format = HYBRID>,
  full = #teq.custom_recipe<[
      #teq.quantizer_role<module_type = "linear", tensor_type = weight, name = "fc1"> -> #teq.float8_block_quantizer<f8E4M3FN>,
      <tensor_type = weight> -> #teq.float8_block_quantizer<f8E4M3FN, block_scaling_dim = 1>,
      <tensor_type = grad_output> -> #teq.delayed_scaling_request<margin = 1>,
      <tensor_type = grad_input> -> #teq.delayed_scaling_request<margin = 1>,
      <> -> #teq.nvfp4_quantizer<f4E2M1FN>],
    backward_override = high_precision, quantization_alignment = 64, fp8_format = E4M3>
}

//===----------------------------------------------------------------------===//
// Quantizers: `<dtype, field = value, ...>`, defaults elided, fields in
// declaration order.
//===----------------------------------------------------------------------===//

// CHECK-LABEL: func.func private @quantizer_float8()
// CHECK-SAME:  attributes {e4m3 = #teq.float8_quantizer<f8E4M3FN>,
// CHECK-SAME:  e5m2 = #teq.float8_quantizer<f8E5M2>}{{$}}
func.func private @quantizer_float8() attributes {
  e4m3 = #teq.float8_quantizer<f8E4M3FN>,
  e5m2 = #teq.float8_quantizer<f8E5M2>
}

// CHECK-LABEL: func.func private @quantizer_float8_current_scaling()
// CHECK-SAME:  attributes {default = #teq.float8_current_scaling_quantizer<f8E4M3FN>,
// CHECK-SAME:  explicit_defaults = #teq.float8_current_scaling_quantizer<f8E4M3FN>,
// CHECK-SAME:  full = #teq.float8_current_scaling_quantizer<f8E5M2, with_amax_reduction = true, force_pow_2_scales = true, amax_epsilon = 2.500000e-01>}{{$}}
func.func private @quantizer_float8_current_scaling() attributes {
  default = #teq.float8_current_scaling_quantizer<f8E4M3FN>,
  explicit_defaults = #teq.float8_current_scaling_quantizer<f8E4M3FN, amax_epsilon = 0.0, force_pow_2_scales = false, with_amax_reduction = false>,
  full = #teq.float8_current_scaling_quantizer<f8E5M2, amax_epsilon = 0.25, force_pow_2_scales = true, with_amax_reduction = true>
}

// CHECK-LABEL: func.func private @quantizer_float8_block()
// CHECK-SAME:  attributes {default = #teq.float8_block_quantizer<f8E4M3FN>,
// CHECK-SAME:  explicit_defaults = #teq.float8_block_quantizer<f8E4M3FN>,
// CHECK-SAME:  full = #teq.float8_block_quantizer<f8E5M2, block_scaling_dim = 1, force_pow_2_scales = false, amax_epsilon = 1.000000e-03>}{{$}}
func.func private @quantizer_float8_block() attributes {
  default = #teq.float8_block_quantizer<f8E4M3FN>,
  explicit_defaults = #teq.float8_block_quantizer<f8E4M3FN, amax_epsilon = 0.0, force_pow_2_scales = true, block_scaling_dim = 2>,
  full = #teq.float8_block_quantizer<f8E5M2, amax_epsilon = 1.0e-03, force_pow_2_scales = false, block_scaling_dim = 1>
}

// CHECK-LABEL: func.func private @quantizer_mxfp8()
// CHECK-SAME:  attributes {default = #teq.mxfp8_quantizer<f8E4M3FN>,
// CHECK-SAME:  explicit_defaults = #teq.mxfp8_quantizer<f8E4M3FN>,
// CHECK-SAME:  full = #teq.mxfp8_quantizer<f8E5M2, with_2d_quantization = true>}{{$}}
func.func private @quantizer_mxfp8() attributes {
  default = #teq.mxfp8_quantizer<f8E4M3FN>,
  explicit_defaults = #teq.mxfp8_quantizer<f8E4M3FN, with_2d_quantization = false>,
  full = #teq.mxfp8_quantizer<f8E5M2, with_2d_quantization = true>
}

// NVFP4: RHT needs the post-RHT amax; 4over6 excludes RHT and stochastic
// rounding, and row scaling excludes RHT, 2D, SR and amax reduction, so the
// non-default fields are spread over three quantizers.
// CHECK-LABEL: func.func private @quantizer_nvfp4()
// CHECK-SAME:  attributes {default = #teq.nvfp4_quantizer<f4E2M1FN>,
// CHECK-SAME:  explicit_defaults = #teq.nvfp4_quantizer<f4E2M1FN>,
// CHECK-SAME:  four_over_six = #teq.nvfp4_quantizer<f4E2M1FN, with_amax_reduction = true, with_2d_quantization = true, nvfp4_use_4over6 = true, nvfp4_e4m3_max = 256, nvfp4_4over6_err_mode = MSE, with_random_sign_mask = false>,
// CHECK-SAME:  rht = #teq.nvfp4_quantizer<f4E2M1FN, with_amax_reduction = true, with_rht = true, with_post_rht_amax = true, with_2d_quantization = true, stochastic_rounding = true, with_random_sign_mask = false>,
// CHECK-SAME:  row_scaled = #teq.nvfp4_quantizer<f4E2M1FN, row_scaled_nvfp4 = true, nvfp4_use_4over6 = true>}{{$}}
func.func private @quantizer_nvfp4() attributes {
  default = #teq.nvfp4_quantizer<f4E2M1FN>,
  explicit_defaults = #teq.nvfp4_quantizer<f4E2M1FN, with_random_sign_mask = true, nvfp4_4over6_err_mode = MAE, nvfp4_e4m3_max = 448, nvfp4_use_4over6 = false, row_scaled_nvfp4 = false, stochastic_rounding = false, with_2d_quantization = false, with_post_rht_amax = false, with_rht = false, with_amax_reduction = false>,
  four_over_six = #teq.nvfp4_quantizer<f4E2M1FN, with_random_sign_mask = false, nvfp4_4over6_err_mode = MSE, nvfp4_e4m3_max = 256, nvfp4_use_4over6 = true, with_2d_quantization = true, with_amax_reduction = true>,
  rht = #teq.nvfp4_quantizer<f4E2M1FN, with_random_sign_mask = false, stochastic_rounding = true, with_2d_quantization = true, with_post_rht_amax = true, with_rht = true, with_amax_reduction = true>,
  row_scaled = #teq.nvfp4_quantizer<f4E2M1FN, nvfp4_use_4over6 = true, row_scaled_nvfp4 = true>
}

//===----------------------------------------------------------------------===//
// #teq.linear and the enum attributes (which print in the short form
// #teq.mnemonic<value>).
//===----------------------------------------------------------------------===//

// CHECK-LABEL: func.func private @linear_configs()
// CHECK-SAME:  attributes {default = #teq.linear<>,
// CHECK-SAME:  explicit_defaults = #teq.linear<>,
// CHECK-SAME:  full = #teq.linear<bias = true, parallel_mode = row, sequence_parallel = true, tp_size = 8, fuse_wgrad_accumulation = true, requires_dgrad = false, save_original_input = true, name = "fc2">,
// CHECK-SAME:  no_wgrad = #teq.linear<parallel_mode = column, requires_wgrad = false>}{{$}}
func.func private @linear_configs() attributes {
  default = #teq.linear<>,
  explicit_defaults = #teq.linear<bias = false, parallel_mode = none, sequence_parallel = false, tp_size = 1, fuse_wgrad_accumulation = false, requires_dgrad = true, requires_wgrad = true, save_original_input = false, name = "">,
  full = #teq.linear<name = "fc2", save_original_input = true, requires_wgrad = true, requires_dgrad = false, fuse_wgrad_accumulation = true, tp_size = 8, sequence_parallel = true, parallel_mode = row, bias = true>,
  no_wgrad = #teq.linear<requires_wgrad = false, parallel_mode = column>
}

// #teq.linear_quantization: what teq-resolve-autocast derives for a Linear.
// Absent quantizers are high precision; the split-accumulator flags default
// to true.
// CHECK-LABEL: func.func private @linear_quantizations()
// CHECK-SAME:  attributes {explicit_defaults = #teq.linear_quantization<recipe = "high_precision">,
// CHECK-SAME:  forward_only = #teq.linear_quantization<recipe = "MXFP8BlockScaling", input = #teq.mxfp8_quantizer<f8E4M3FN>, weight = #teq.mxfp8_quantizer<f8E4M3FN, with_2d_quantization = true>, dgrad_split_accumulator = false, wgrad_split_accumulator = false>,
// CHECK-SAME:  full = #teq.linear_quantization<recipe = "Float8CurrentScaling", input = #teq.float8_current_scaling_quantizer<f8E4M3FN>, weight = #teq.float8_current_scaling_quantizer<f8E4M3FN>, output = #teq.float8_current_scaling_quantizer<f8E4M3FN>, grad_output = #teq.float8_current_scaling_quantizer<f8E5M2>, grad_input = #teq.float8_current_scaling_quantizer<f8E5M2>, fprop_split_accumulator = false>,
// CHECK-SAME:  high_precision = #teq.linear_quantization<recipe = "high_precision">}{{$}}
func.func private @linear_quantizations() attributes {
  explicit_defaults = #teq.linear_quantization<recipe = "high_precision", fprop_split_accumulator = true, dgrad_split_accumulator = true, wgrad_split_accumulator = true>,
  forward_only = #teq.linear_quantization<wgrad_split_accumulator = false, dgrad_split_accumulator = false, weight = #teq.mxfp8_quantizer<f8E4M3FN, with_2d_quantization = true>, input = #teq.mxfp8_quantizer<f8E4M3FN>, recipe = "MXFP8BlockScaling">,
  full = #teq.linear_quantization<recipe = "Float8CurrentScaling", input = #teq.float8_current_scaling_quantizer<f8E4M3FN>, weight = #teq.float8_current_scaling_quantizer<f8E4M3FN>, output = #teq.float8_current_scaling_quantizer<f8E4M3FN>, grad_output = #teq.float8_current_scaling_quantizer<f8E5M2>, grad_input = #teq.float8_current_scaling_quantizer<f8E5M2>, fprop_split_accumulator = false>,
  high_precision = #teq.linear_quantization<recipe = "high_precision">
}

// CHECK-LABEL: func.func private @enum_attrs()
// CHECK-SAME:  attributes {format = #teq.format<E2M1>,
// CHECK-SAME:  gemm_kind = #teq.gemm_kind<wgrad>,
// CHECK-SAME:  gemm_layout = #teq.gemm_layout<NT>,
// CHECK-SAME:  parallel_mode = #teq.parallel_mode<column>,
// CHECK-SAME:  tensor_role = #teq.tensor_role<grad_input>,
// CHECK-SAME:  usage = #teq.usage<rowwise|columnwise>}{{$}}
func.func private @enum_attrs() attributes {
  format = #teq.format<E2M1>,
  gemm_kind = #teq.gemm_kind<wgrad>,
  gemm_layout = #teq.gemm_layout<NT>,
  parallel_mode = #teq.parallel_mode<column>,
  tensor_role = #teq.tensor_role<grad_input>,
  usage = #teq.usage<columnwise|rowwise>
}

//===----------------------------------------------------------------------===//
// !teq.proto and !teq.process_group
//===----------------------------------------------------------------------===//

// Usage prints rowwise|columnwise whatever the order written; the compact
// scale layout is the default and is elided.
// CHECK-LABEL: func.func private @protos(
// CHECK-SAME:  !teq.proto<4096xf32, #teq.float8_quantizer<f8E4M3FN>, rowwise>,
// CHECK-SAME:  !teq.proto<64x128xbf16, #teq.float8_current_scaling_quantizer<f8E5M2, amax_epsilon = 1.000000e-03>, columnwise>,
// CHECK-SAME:  !teq.proto<8x64x128xf16, #teq.float8_block_quantizer<f8E4M3FN, block_scaling_dim = 1>, rowwise|columnwise>,
// CHECK-SAME:  !teq.proto<256x128xbf16, #teq.float8_block_quantizer<f8E4M3FN>, rowwise|columnwise>,
// CHECK-SAME:  !teq.proto<64x128xbf16, #teq.mxfp8_quantizer<f8E4M3FN>, rowwise>,
// CHECK-SAME:  !teq.proto<64x128xbf16, #teq.mxfp8_quantizer<f8E4M3FN>, rowwise|columnwise, gemm_swizzled>,
// CHECK-SAME:  !teq.proto<4x32x128xbf16, #teq.mxfp8_quantizer<f8E5M2, with_2d_quantization = true>, columnwise, gemm_swizzled>,
// CHECK-SAME:  !teq.proto<64x128xbf16, #teq.nvfp4_quantizer<f4E2M1FN>, rowwise>,
// CHECK-SAME:  !teq.proto<64x128xbf16, #teq.nvfp4_quantizer<f4E2M1FN, with_rht = true, with_post_rht_amax = true, stochastic_rounding = true>, rowwise|columnwise, gemm_swizzled>,
// CHECK-SAME:  !teq.proto<2x32x128xf32, #teq.nvfp4_quantizer<f4E2M1FN, row_scaled_nvfp4 = true>, rowwise>,
// CHECK-SAME:  !teq.process_group){{$}}
func.func private @protos(
  !teq.proto<4096xf32, #teq.float8_quantizer<f8E4M3FN>, rowwise>,
  !teq.proto<64x128xbf16, #teq.float8_current_scaling_quantizer<f8E5M2, amax_epsilon = 1.0e-3>, columnwise, compact>,
  !teq.proto<8x64x128xf16, #teq.float8_block_quantizer<f8E4M3FN, block_scaling_dim = 1>, columnwise|rowwise>,
  !teq.proto<256x128xbf16, #teq.float8_block_quantizer<f8E4M3FN>, rowwise|columnwise>,
  !teq.proto<64x128xbf16, #teq.mxfp8_quantizer<f8E4M3FN>, rowwise>,
  !teq.proto<64x128xbf16, #teq.mxfp8_quantizer<f8E4M3FN>, rowwise|columnwise, gemm_swizzled>,
  !teq.proto<4x32x128xbf16, #teq.mxfp8_quantizer<f8E5M2, with_2d_quantization = true>, columnwise, gemm_swizzled>,
  !teq.proto<64x128xbf16, #teq.nvfp4_quantizer<f4E2M1FN>, rowwise, compact>,
  !teq.proto<64x128xbf16, #teq.nvfp4_quantizer<f4E2M1FN, stochastic_rounding = true, with_post_rht_amax = true, with_rht = true>, rowwise|columnwise, gemm_swizzled>,
  !teq.proto<2x32x128xf32, #teq.nvfp4_quantizer<f4E2M1FN, row_scaled_nvfp4 = true>, rowwise>,
  !teq.process_group)

//===----------------------------------------------------------------------===//
// teq.autocast and teq.yield
//===----------------------------------------------------------------------===//

// CHECK-LABEL: func.func @autocast(
// CHECK-SAME:  [[X:%[a-z0-9_]+]]: tensor<64x128xbf16>, [[W:%[a-z0-9_]+]]: tensor<256x128xbf16>, [[G:%[a-z0-9_]+]]: !teq.process_group)
func.func @autocast(%x: tensor<64x128xbf16>, %w: tensor<256x128xbf16>, %g: !teq.process_group) -> (tensor<64x256xbf16>, tensor<64x128xbf16>) {
  // No recipe: the target's default recipe. An empty body keeps its implicit
  // teq.yield, and enabled(true) is the default.
  // CHECK-NEXT:  teq.autocast {
  // CHECK-NEXT:  }
  teq.autocast {
  }
  // CHECK-NEXT:  teq.autocast {
  // CHECK-NEXT:  }
  teq.autocast enabled(true) {
    teq.yield
  }
  // CHECK-NEXT:  [[A:%[a-z0-9_]+]] = teq.autocast recipe(#teq.mxfp8_block_scaling<>) -> tensor<64x256xbf16> {
  // CHECK-NEXT:    [[Y:%[a-z0-9_]+]] = teq.linear_forward [[X]], [[W]] config(#teq.linear<>) : tensor<64x128xbf16>, tensor<256x128xbf16> -> tensor<64x256xbf16>
  // CHECK-NEXT:    teq.yield [[Y]] : tensor<64x256xbf16>
  // CHECK-NEXT:  }
  %a = teq.autocast recipe(#teq.mxfp8_block_scaling<>) -> tensor<64x256xbf16> {
    %y = teq.linear_forward %x, %w config(#teq.linear<>) : tensor<64x128xbf16>, tensor<256x128xbf16> -> tensor<64x256xbf16>
    teq.yield %y : tensor<64x256xbf16>
  }
  // Everything at once, with nested regions and a discardable attribute.
  // CHECK-NEXT:  [[B:%[a-z0-9_]+]]:2 = teq.autocast recipe(#teq.delayed_scaling<amax_history_len = 16>) enabled(false) amax_reduction_group([[G]]) -> tensor<64x256xbf16>, tensor<64x128xbf16> {
  // CHECK-NEXT:    [[N:%[a-z0-9_]+]] = teq.autocast recipe(#teq.nvfp4_block_scaling<>) -> tensor<64x128xbf16> {
  // CHECK-NEXT:      teq.autocast enabled(false) {
  // CHECK-NEXT:      }
  // CHECK-NEXT:      teq.yield [[X]] : tensor<64x128xbf16>
  // CHECK-NEXT:    }
  // CHECK-NEXT:    teq.yield [[A]], [[N]] : tensor<64x256xbf16>, tensor<64x128xbf16>
  // CHECK-NEXT:  } {note = "outer"}
  %b:2 = teq.autocast recipe(#teq.delayed_scaling<amax_history_len = 16>) enabled(false) amax_reduction_group(%g) -> tensor<64x256xbf16>, tensor<64x128xbf16> {
    %n = teq.autocast recipe(#teq.nvfp4_block_scaling<>) -> tensor<64x128xbf16> {
      teq.autocast enabled(false) {
      }
      teq.yield %x : tensor<64x128xbf16>
    }
    teq.yield %a, %n : tensor<64x256xbf16>, tensor<64x128xbf16>
  } {note = "outer"}
  // CHECK-NEXT:  teq.autocast amax_reduction_group([[G]]) {
  // CHECK-NEXT:  }
  teq.autocast amax_reduction_group(%g) {
  }
  // CHECK-NEXT:  teq.autocast recipe(#teq.custom_recipe<[<> -> #teq.float8_current_scaling_quantizer<f8E4M3FN>]>) {
  // CHECK-NEXT:  }
  teq.autocast recipe(#teq.custom_recipe<[<> -> #teq.float8_current_scaling_quantizer<f8E4M3FN>]>) {
  }
  // CHECK-NEXT:  return [[B]]#0, [[B]]#1 : tensor<64x256xbf16>, tensor<64x128xbf16>
  return %b#0, %b#1 : tensor<64x256xbf16>, tensor<64x128xbf16>
}

//===----------------------------------------------------------------------===//
// teq.quantize, teq.dequantize, teq.create_tensor, teq.update_usage
//===----------------------------------------------------------------------===//

// CHECK-LABEL: func.func @quantize(
// CHECK-SAME:  [[X:%[a-z0-9_]+]]: tensor<64x128xbf16>, [[V:%[a-z0-9_]+]]: tensor<4096xf32>, [[T:%[a-z0-9_]+]]: tensor<4x32x128xf16>, [[S:%[a-z0-9_]+]]: tensor<1xf32>, [[H:%[a-z0-9_]+]]: tensor<1024xf32>, [[G:%[a-z0-9_]+]]: !teq.process_group)
func.func @quantize(%x: tensor<64x128xbf16>, %v: tensor<4096xf32>, %t: tensor<4x32x128xf16>, %s: tensor<1xf32>, %h: tensor<1024xf32>, %g: !teq.process_group) {
  // CHECK-NEXT:  {{%[a-z0-9_]+}} = teq.quantize [[X]] : tensor<64x128xbf16> -> !teq.proto<64x128xbf16, #teq.float8_current_scaling_quantizer<f8E4M3FN>, rowwise>
  %0 = teq.quantize %x : tensor<64x128xbf16> -> !teq.proto<64x128xbf16, #teq.float8_current_scaling_quantizer<f8E4M3FN>, rowwise>
  // CHECK-NEXT:  {{%[a-z0-9_]+}} = teq.quantize [[X]] : tensor<64x128xbf16> -> !teq.proto<64x128xbf16, #teq.float8_current_scaling_quantizer<f8E5M2>, rowwise|columnwise>
  %1 = teq.quantize %x : tensor<64x128xbf16> -> !teq.proto<64x128xbf16, #teq.float8_current_scaling_quantizer<f8E5M2>, columnwise|rowwise, compact>
  // Delayed scaling: the stored scale and amax history in, the updated
  // history out.
  // CHECK-NEXT:  {{%[a-z0-9_]+}}, {{%[a-z0-9_]+}} = teq.quantize [[X]] state([[S]], [[H]] : tensor<1xf32>, tensor<1024xf32>) : tensor<64x128xbf16> -> !teq.proto<64x128xbf16, #teq.float8_quantizer<f8E4M3FN>, rowwise|columnwise>, tensor<1024xf32>
  %2, %3 = teq.quantize %x state(%s, %h : tensor<1xf32>, tensor<1024xf32>) : tensor<64x128xbf16> -> !teq.proto<64x128xbf16, #teq.float8_quantizer<f8E4M3FN>, rowwise|columnwise>, tensor<1024xf32>
  // CHECK-NEXT:  {{%[a-z0-9_]+}} = teq.quantize [[X]] amax_reduction_group([[G]]) : tensor<64x128xbf16> -> !teq.proto<64x128xbf16, #teq.float8_current_scaling_quantizer<f8E4M3FN, with_amax_reduction = true>, rowwise>
  %4 = teq.quantize %x amax_reduction_group(%g) : tensor<64x128xbf16> -> !teq.proto<64x128xbf16, #teq.float8_current_scaling_quantizer<f8E4M3FN, with_amax_reduction = true>, rowwise>
  // CHECK-NEXT:  {{%[a-z0-9_]+}} = teq.quantize [[V]] : tensor<4096xf32> -> !teq.proto<4096xf32, #teq.float8_current_scaling_quantizer<f8E4M3FN>, rowwise|columnwise>
  %5 = teq.quantize %v : tensor<4096xf32> -> !teq.proto<4096xf32, #teq.float8_current_scaling_quantizer<f8E4M3FN>, rowwise|columnwise>
  // CHECK-NEXT:  {{%[a-z0-9_]+}} = teq.quantize [[T]] : tensor<4x32x128xf16> -> !teq.proto<4x32x128xf16, #teq.mxfp8_quantizer<f8E4M3FN>, rowwise, gemm_swizzled>
  %6 = teq.quantize %t : tensor<4x32x128xf16> -> !teq.proto<4x32x128xf16, #teq.mxfp8_quantizer<f8E4M3FN>, rowwise, gemm_swizzled>
  // CHECK-NEXT:  {{%[a-z0-9_]+}} = teq.quantize [[T]] : tensor<4x32x128xf16> -> !teq.proto<4x32x128xf16, #teq.float8_block_quantizer<f8E4M3FN, block_scaling_dim = 1>, rowwise|columnwise>
  %7 = teq.quantize %t : tensor<4x32x128xf16> -> !teq.proto<4x32x128xf16, #teq.float8_block_quantizer<f8E4M3FN, block_scaling_dim = 1>, rowwise|columnwise>
  // CHECK-NEXT:  {{%[a-z0-9_]+}} = teq.quantize [[X]] amax_reduction_group([[G]]) {tag} : tensor<64x128xbf16> -> !teq.proto<64x128xbf16, #teq.nvfp4_quantizer<f4E2M1FN, with_amax_reduction = true, with_rht = true, with_post_rht_amax = true>, rowwise|columnwise, gemm_swizzled>
  %8 = teq.quantize %x amax_reduction_group(%g) {tag} : tensor<64x128xbf16> -> !teq.proto<64x128xbf16, #teq.nvfp4_quantizer<f4E2M1FN, with_amax_reduction = true, with_rht = true, with_post_rht_amax = true>, rowwise|columnwise, gemm_swizzled>
  // CHECK-NEXT:  return
  return
}

// CHECK-LABEL: func.func @dequantize_create_update(
// CHECK-SAME:  [[Q:%[a-z0-9_]+]]: !teq.proto<4x32x128xf16, #teq.nvfp4_quantizer<f4E2M1FN>, rowwise|columnwise, gemm_swizzled>,
// CHECK-SAME:  [[M:%[a-z0-9_]+]]: !teq.proto<64x128xbf16, #teq.mxfp8_quantizer<f8E4M3FN>, rowwise|columnwise>,
// CHECK-SAME:  [[P:%[a-z0-9_]+]]: !teq.proto<64x128xbf16, #teq.float8_current_scaling_quantizer<f8E4M3FN>, rowwise>)
func.func @dequantize_create_update(
    %q: !teq.proto<4x32x128xf16, #teq.nvfp4_quantizer<f4E2M1FN>, rowwise|columnwise, gemm_swizzled>,
    %m: !teq.proto<64x128xbf16, #teq.mxfp8_quantizer<f8E4M3FN>, rowwise|columnwise>,
    %p: !teq.proto<64x128xbf16, #teq.float8_current_scaling_quantizer<f8E4M3FN>, rowwise>) {
  // Dequantizing may widen the logical element type.
  // CHECK-NEXT:  {{%[a-z0-9_]+}} = teq.dequantize [[Q]] : !teq.proto<4x32x128xf16, #teq.nvfp4_quantizer<f4E2M1FN>, rowwise|columnwise, gemm_swizzled> -> tensor<4x32x128xf32>
  %0 = teq.dequantize %q : !teq.proto<4x32x128xf16, #teq.nvfp4_quantizer<f4E2M1FN>, rowwise|columnwise, gemm_swizzled> -> tensor<4x32x128xf32>
  // CHECK-NEXT:  {{%[a-z0-9_]+}} = teq.dequantize [[M]] {tag} : !teq.proto<64x128xbf16, #teq.mxfp8_quantizer<f8E4M3FN>, rowwise|columnwise> -> tensor<64x128xbf16>
  %1 = teq.dequantize %m {tag} : !teq.proto<64x128xbf16, #teq.mxfp8_quantizer<f8E4M3FN>, rowwise|columnwise> -> tensor<64x128xbf16>
  // CHECK-NEXT:  [[BLK:%[a-z0-9_]+]] = teq.create_tensor : !teq.proto<256x128xbf16, #teq.float8_block_quantizer<f8E4M3FN>, rowwise>
  %2 = teq.create_tensor : !teq.proto<256x128xbf16, #teq.float8_block_quantizer<f8E4M3FN>, rowwise>
  // CHECK-NEXT:  {{%[a-z0-9_]+}} = teq.create_tensor {tag} : !teq.proto<8x64x128xbf16, #teq.nvfp4_quantizer<f4E2M1FN, with_2d_quantization = true>, rowwise|columnwise, gemm_swizzled>
  %3 = teq.create_tensor {tag} : !teq.proto<8x64x128xbf16, #teq.nvfp4_quantizer<f4E2M1FN, with_2d_quantization = true>, rowwise|columnwise, gemm_swizzled>
  // Dropping a usage is always allowed.
  // CHECK-NEXT:  {{%[a-z0-9_]+}} = teq.update_usage [[M]] : !teq.proto<64x128xbf16, #teq.mxfp8_quantizer<f8E4M3FN>, rowwise|columnwise> -> !teq.proto<64x128xbf16, #teq.mxfp8_quantizer<f8E4M3FN>, columnwise>
  %4 = teq.update_usage %m : !teq.proto<64x128xbf16, #teq.mxfp8_quantizer<f8E4M3FN>, rowwise|columnwise> -> !teq.proto<64x128xbf16, #teq.mxfp8_quantizer<f8E4M3FN>, columnwise>
  // CHECK-NEXT:  {{%[a-z0-9_]+}} = teq.update_usage [[Q]] : !teq.proto<4x32x128xf16, #teq.nvfp4_quantizer<f4E2M1FN>, rowwise|columnwise, gemm_swizzled> -> !teq.proto<4x32x128xf16, #teq.nvfp4_quantizer<f4E2M1FN>, rowwise, gemm_swizzled>
  %5 = teq.update_usage %q : !teq.proto<4x32x128xf16, #teq.nvfp4_quantizer<f4E2M1FN>, rowwise|columnwise, gemm_swizzled> -> !teq.proto<4x32x128xf16, #teq.nvfp4_quantizer<f4E2M1FN>, rowwise, gemm_swizzled>
  // Compact MXFP8 / NVFP4 scales to the GEMM's layout.
  // CHECK-NEXT:  {{%[a-z0-9_]+}} = teq.swizzle_scales [[M]] : !teq.proto<64x128xbf16, #teq.mxfp8_quantizer<f8E4M3FN>, rowwise|columnwise> -> !teq.proto<64x128xbf16, #teq.mxfp8_quantizer<f8E4M3FN>, rowwise|columnwise, gemm_swizzled>
  %sw = teq.swizzle_scales %m : !teq.proto<64x128xbf16, #teq.mxfp8_quantizer<f8E4M3FN>, rowwise|columnwise> -> !teq.proto<64x128xbf16, #teq.mxfp8_quantizer<f8E4M3FN>, rowwise|columnwise, gemm_swizzled>
  // Adding one is allowed for per-tensor FP8 and 2D block FP8. The result
  // type is written with explicit defaults: it is the same quantizer, or the
  // verifier would reject the op.
  // CHECK-NEXT:  {{%[a-z0-9_]+}} = teq.update_usage [[P]] : !teq.proto<64x128xbf16, #teq.float8_current_scaling_quantizer<f8E4M3FN>, rowwise> -> !teq.proto<64x128xbf16, #teq.float8_current_scaling_quantizer<f8E4M3FN>, rowwise|columnwise>
  %6 = teq.update_usage %p : !teq.proto<64x128xbf16, #teq.float8_current_scaling_quantizer<f8E4M3FN>, rowwise> -> !teq.proto<64x128xbf16, #teq.float8_current_scaling_quantizer<f8E4M3FN, with_amax_reduction = false, amax_epsilon = 0.0>, columnwise|rowwise, compact>
  // CHECK-NEXT:  {{%[a-z0-9_]+}} = teq.update_usage [[BLK]] : !teq.proto<256x128xbf16, #teq.float8_block_quantizer<f8E4M3FN>, rowwise> -> !teq.proto<256x128xbf16, #teq.float8_block_quantizer<f8E4M3FN>, columnwise>
  %7 = teq.update_usage %2 : !teq.proto<256x128xbf16, #teq.float8_block_quantizer<f8E4M3FN>, rowwise> -> !teq.proto<256x128xbf16, #teq.float8_block_quantizer<f8E4M3FN, block_scaling_dim = 2, force_pow_2_scales = true>, columnwise>
  // CHECK-NEXT:  return
  return
}

//===----------------------------------------------------------------------===//
// teq.linear_forward
//===----------------------------------------------------------------------===//

// CHECK-LABEL: func.func @linear_forward(
// CHECK-SAME:  [[X:%[a-z0-9_]+]]: tensor<64x128xbf16>, [[W:%[a-z0-9_]+]]: tensor<256x128xbf16>, [[B:%[a-z0-9_]+]]: tensor<256xbf16>,
// CHECK-SAME:  [[S:%[a-z0-9_]+]]: tensor<3xf32>, [[H:%[a-z0-9_]+]]: tensor<16x3xf32>, [[G:%[a-z0-9_]+]]: !teq.process_group,
// CHECK-SAME:  [[XS:%[a-z0-9_]+]]: tensor<16x128xbf16>, [[WC:%[a-z0-9_]+]]: tensor<64x128xbf16>, [[BC:%[a-z0-9_]+]]: tensor<64xbf16>,
// CHECK-SAME:  [[XR:%[a-z0-9_]+]]: tensor<64x32xbf16>, [[WR:%[a-z0-9_]+]]: tensor<256x32xbf16>,
// CHECK-SAME:  [[WQ:%[a-z0-9_]+]]: !teq.proto<256x128xbf16, #teq.float8_current_scaling_quantizer<f8E4M3FN>, rowwise|columnwise>,
// CHECK-SAME:  [[X3:%[a-z0-9_]+]]: tensor<8x8x128xbf16>)
func.func @linear_forward(
    %x: tensor<64x128xbf16>, %w: tensor<256x128xbf16>, %b: tensor<256xbf16>,
    %s: tensor<3xf32>, %h: tensor<16x3xf32>, %g: !teq.process_group,
    %xs: tensor<16x128xbf16>, %wc: tensor<64x128xbf16>, %bc: tensor<64xbf16>,
    %xr: tensor<64x32xbf16>, %wr: tensor<256x32xbf16>,
    %wq: !teq.proto<256x128xbf16, #teq.float8_current_scaling_quantizer<f8E4M3FN>, rowwise|columnwise>,
    %x3: tensor<8x8x128xbf16>) {
  // Without saved results.
  // CHECK-NEXT:  {{%[a-z0-9_]+}} = teq.linear_forward [[X]], [[W]] config(#teq.linear<>) : tensor<64x128xbf16>, tensor<256x128xbf16> -> tensor<64x256xbf16>{{$}}
  %0 = teq.linear_forward %x, %w config(#teq.linear<>) : tensor<64x128xbf16>, tensor<256x128xbf16> -> tensor<64x256xbf16>
  // CHECK-NEXT:  {{%[a-z0-9_]+}}, {{%[a-z0-9_]+}}, {{%[a-z0-9_]+}} = teq.linear_forward [[X]], [[W]] bias([[B]] : tensor<256xbf16>) config(#teq.linear<bias = true>) : tensor<64x128xbf16>, tensor<256x128xbf16> -> tensor<64x256xbf16> saved_input(tensor<64x128xbf16>) saved_weight(tensor<256x128xbf16>){{$}}
  %1:3 = teq.linear_forward %x, %w bias(%b : tensor<256xbf16>) config(#teq.linear<bias = true>) : tensor<64x128xbf16>, tensor<256x128xbf16> -> tensor<64x256xbf16> saved_input(tensor<64x128xbf16>) saved_weight(tensor<256x128xbf16>)
  // Delayed scaling: three forward slots (input, weight, output).
  // CHECK-NEXT:  {{%[a-z0-9_]+}}, {{%[a-z0-9_]+}} = teq.linear_forward [[X]], [[W]] state([[S]], [[H]] : tensor<3xf32>, tensor<16x3xf32>) config(#teq.linear<>) : tensor<64x128xbf16>, tensor<256x128xbf16> -> tensor<64x256xbf16> updated_amax_history(tensor<16x3xf32>){{$}}
  %2:2 = teq.linear_forward %x, %w state(%s, %h : tensor<3xf32>, tensor<16x3xf32>) config(#teq.linear<>) : tensor<64x128xbf16>, tensor<256x128xbf16> -> tensor<64x256xbf16> updated_amax_history(tensor<16x3xf32>)
  // Column parallel + SP: the input [S/tp, in] is all-gathered to [S, in];
  // the weight and bias are the local [out/tp] shards.
  // CHECK-NEXT:  {{%[a-z0-9_]+}}, {{%[a-z0-9_]+}} = teq.linear_forward [[XS]], [[WC]] bias([[BC]] : tensor<64xbf16>) tp_group([[G]]) config(#teq.linear<bias = true, parallel_mode = column, sequence_parallel = true, tp_size = 4, name = "qkv">) : tensor<16x128xbf16>, tensor<64x128xbf16> -> tensor<64x64xbf16> saved_input(tensor<16x128xbf16>){{$}}
  %3:2 = teq.linear_forward %xs, %wc bias(%bc : tensor<64xbf16>) tp_group(%g) config(#teq.linear<bias = true, parallel_mode = column, sequence_parallel = true, tp_size = 4, name = "qkv">) : tensor<16x128xbf16>, tensor<64x128xbf16> -> tensor<64x64xbf16> saved_input(tensor<16x128xbf16>)
  // Row parallel + SP: the output is reduce-scattered to [S/tp, out].
  // CHECK-NEXT:  {{%[a-z0-9_]+}}, {{%[a-z0-9_]+}} = teq.linear_forward [[XR]], [[WR]] tp_group([[G]]) config(#teq.linear<parallel_mode = row, sequence_parallel = true, tp_size = 4>) : tensor<64x32xbf16>, tensor<256x32xbf16> -> tensor<16x256xbf16> saved_weight(tensor<256x32xbf16>){{$}}
  %4:2 = teq.linear_forward %xr, %wr tp_group(%g) config(#teq.linear<parallel_mode = row, sequence_parallel = true, tp_size = 4>) : tensor<64x32xbf16>, tensor<256x32xbf16> -> tensor<16x256xbf16> saved_weight(tensor<256x32xbf16>)
  // Tensor parallel without SP: shapes are local and unchanged.
  // CHECK-NEXT:  {{%[a-z0-9_]+}} = teq.linear_forward [[XS]], [[WC]] tp_group([[G]]) config(#teq.linear<parallel_mode = column, tp_size = 2>) : tensor<16x128xbf16>, tensor<64x128xbf16> -> tensor<16x64xbf16>{{$}}
  %5 = teq.linear_forward %xs, %wc tp_group(%g) config(#teq.linear<parallel_mode = column, tp_size = 2>) : tensor<16x128xbf16>, tensor<64x128xbf16> -> tensor<16x64xbf16>
  // A quantized weight, an f32 output and a quantized saved weight.
  // CHECK-NEXT:  {{%[a-z0-9_]+}}, {{%[a-z0-9_]+}}, {{%[a-z0-9_]+}} = teq.linear_forward [[X]], [[WQ]] config(#teq.linear<save_original_input = true>) {tag} : tensor<64x128xbf16>, !teq.proto<256x128xbf16, #teq.float8_current_scaling_quantizer<f8E4M3FN>, rowwise|columnwise> -> tensor<64x256xf32> saved_input(tensor<64x128xbf16>) saved_weight(!teq.proto<256x128xbf16, #teq.float8_current_scaling_quantizer<f8E4M3FN>, rowwise|columnwise>){{$}}
  %6:3 = teq.linear_forward %x, %wq config(#teq.linear<save_original_input = true>) {tag} : tensor<64x128xbf16>, !teq.proto<256x128xbf16, #teq.float8_current_scaling_quantizer<f8E4M3FN>, rowwise|columnwise> -> tensor<64x256xf32> saved_input(tensor<64x128xbf16>) saved_weight(!teq.proto<256x128xbf16, #teq.float8_current_scaling_quantizer<f8E4M3FN>, rowwise|columnwise>)
  // Resolved by teq-resolve-autocast: delayed scaling needs the state.
  // CHECK-NEXT:  {{%[a-z0-9_]+}}, {{%[a-z0-9_]+}} = teq.linear_forward [[X]], [[W]] state([[S]], [[H]] : tensor<3xf32>, tensor<16x3xf32>) config(#teq.linear<>) {quantization = #teq.linear_quantization<recipe = "DelayedScaling", input = #teq.float8_quantizer<f8E4M3FN>, weight = #teq.float8_quantizer<f8E4M3FN>, output = #teq.float8_quantizer<f8E4M3FN>, grad_output = #teq.float8_quantizer<f8E5M2>, grad_input = #teq.float8_quantizer<f8E5M2>, fprop_split_accumulator = false>} : tensor<64x128xbf16>, tensor<256x128xbf16> -> tensor<64x256xbf16> updated_amax_history(tensor<16x3xf32>){{$}}
  %8:2 = teq.linear_forward %x, %w state(%s, %h : tensor<3xf32>, tensor<16x3xf32>) config(#teq.linear<>) {quantization = #teq.linear_quantization<recipe = "DelayedScaling", input = #teq.float8_quantizer<f8E4M3FN>, weight = #teq.float8_quantizer<f8E4M3FN>, output = #teq.float8_quantizer<f8E4M3FN>, grad_output = #teq.float8_quantizer<f8E5M2>, grad_input = #teq.float8_quantizer<f8E5M2>, fprop_split_accumulator = false>} : tensor<64x128xbf16>, tensor<256x128xbf16> -> tensor<64x256xbf16> updated_amax_history(tensor<16x3xf32>)
  // CHECK-NEXT:  {{%[a-z0-9_]+}} = teq.linear_forward [[X]], [[W]] config(#teq.linear<>) {quantization = #teq.linear_quantization<recipe = "high_precision">} : tensor<64x128xbf16>, tensor<256x128xbf16> -> tensor<64x256xbf16>{{$}}
  %9 = teq.linear_forward %x, %w config(#teq.linear<>) {quantization = #teq.linear_quantization<recipe = "high_precision">} : tensor<64x128xbf16>, tensor<256x128xbf16> -> tensor<64x256xbf16>
  // A 3-D input keeps its leading dimensions.
  // CHECK-NEXT:  {{%[a-z0-9_]+}}, {{%[a-z0-9_]+}} = teq.linear_forward [[X3]], [[W]] config(#teq.linear<parallel_mode = row>) : tensor<8x8x128xbf16>, tensor<256x128xbf16> -> tensor<8x8x256xbf16> saved_input(!teq.proto<8x8x128xbf16, #teq.mxfp8_quantizer<f8E4M3FN>, columnwise>){{$}}
  %7:2 = teq.linear_forward %x3, %w config(#teq.linear<parallel_mode = row, tp_size = 1>) : tensor<8x8x128xbf16>, tensor<256x128xbf16> -> tensor<8x8x256xbf16> saved_input(!teq.proto<8x8x128xbf16, #teq.mxfp8_quantizer<f8E4M3FN>, columnwise>)
  // CHECK-NEXT:  return
  return
}

//===----------------------------------------------------------------------===//
// teq.linear_backward
//===----------------------------------------------------------------------===//

// CHECK-LABEL: func.func @linear_backward(
// CHECK-SAME:  [[DY:%[a-z0-9_]+]]: tensor<64x256xbf16>, [[X:%[a-z0-9_]+]]: tensor<64x128xbf16>, [[W:%[a-z0-9_]+]]: tensor<256x128xbf16>,
// CHECK-SAME:  [[MG:%[a-z0-9_]+]]: tensor<256x128xf32>, [[S:%[a-z0-9_]+]]: tensor<2xf32>, [[H:%[a-z0-9_]+]]: tensor<16x2xf32>, [[G:%[a-z0-9_]+]]: !teq.process_group,
// CHECK-SAME:  [[DYR:%[a-z0-9_]+]]: tensor<16x256xbf16>, [[XR:%[a-z0-9_]+]]: tensor<64x32xbf16>, [[WR:%[a-z0-9_]+]]: tensor<256x32xbf16>,
// CHECK-SAME:  [[XQ:%[a-z0-9_]+]]: !teq.proto<64x128xbf16, #teq.mxfp8_quantizer<f8E4M3FN>, columnwise>, [[WQ:%[a-z0-9_]+]]: !teq.proto<256x128xbf16, #teq.mxfp8_quantizer<f8E4M3FN>, columnwise>)
func.func @linear_backward(
    %dy: tensor<64x256xbf16>, %x: tensor<64x128xbf16>, %w: tensor<256x128xbf16>,
    %mg: tensor<256x128xf32>, %s: tensor<2xf32>, %h: tensor<16x2xf32>, %g: !teq.process_group,
    %dyr: tensor<16x256xbf16>, %xr: tensor<64x32xbf16>, %wr: tensor<256x32xbf16>,
    %xq: !teq.proto<64x128xbf16, #teq.mxfp8_quantizer<f8E4M3FN>, columnwise>, %wq: !teq.proto<256x128xbf16, #teq.mxfp8_quantizer<f8E4M3FN>, columnwise>) {
  // dgrad and wgrad.
  // CHECK-NEXT:  {{%[a-z0-9_]+}}, {{%[a-z0-9_]+}} = teq.linear_backward [[DY]], [[X]], [[W]] config(#teq.linear<>) : tensor<64x256xbf16>, tensor<64x128xbf16>, tensor<256x128xbf16> dgrad(tensor<64x128xbf16>) wgrad(tensor<256x128xbf16>){{$}}
  %0:2 = teq.linear_backward %dy, %x, %w config(#teq.linear<>) : tensor<64x256xbf16>, tensor<64x128xbf16>, tensor<256x128xbf16> dgrad(tensor<64x128xbf16>) wgrad(tensor<256x128xbf16>)
  // With a bias: dbias too.
  // CHECK-NEXT:  {{%[a-z0-9_]+}}, {{%[a-z0-9_]+}}, {{%[a-z0-9_]+}} = teq.linear_backward [[DY]], [[X]], [[W]] config(#teq.linear<bias = true>) : tensor<64x256xbf16>, tensor<64x128xbf16>, tensor<256x128xbf16> dgrad(tensor<64x128xbf16>) wgrad(tensor<256x128xbf16>) dbias(tensor<256xbf16>){{$}}
  %1:3 = teq.linear_backward %dy, %x, %w config(#teq.linear<bias = true>) : tensor<64x256xbf16>, tensor<64x128xbf16>, tensor<256x128xbf16> dgrad(tensor<64x128xbf16>) wgrad(tensor<256x128xbf16>) dbias(tensor<256xbf16>)
  // dgrad only (no dbias without wgrad).
  // CHECK-NEXT:  {{%[a-z0-9_]+}} = teq.linear_backward [[DY]], [[X]], [[W]] config(#teq.linear<bias = true, requires_wgrad = false>) : tensor<64x256xbf16>, tensor<64x128xbf16>, tensor<256x128xbf16> dgrad(tensor<64x128xbf16>){{$}}
  %2 = teq.linear_backward %dy, %x, %w config(#teq.linear<bias = true, requires_wgrad = false>) : tensor<64x256xbf16>, tensor<64x128xbf16>, tensor<256x128xbf16> dgrad(tensor<64x128xbf16>)
  // wgrad and dbias only.
  // CHECK-NEXT:  {{%[a-z0-9_]+}}, {{%[a-z0-9_]+}} = teq.linear_backward [[DY]], [[X]], [[W]] config(#teq.linear<bias = true, requires_dgrad = false>) : tensor<64x256xbf16>, tensor<64x128xbf16>, tensor<256x128xbf16> wgrad(tensor<256x128xbf16>) dbias(tensor<256xbf16>){{$}}
  %3:2 = teq.linear_backward %dy, %x, %w config(#teq.linear<bias = true, requires_dgrad = false>) : tensor<64x256xbf16>, tensor<64x128xbf16>, tensor<256x128xbf16> wgrad(tensor<256x128xbf16>) dbias(tensor<256xbf16>)
  // fuse_wgrad_accumulation: wgrad = main_grad + dw, in fp32.
  // CHECK-NEXT:  {{%[a-z0-9_]+}}, {{%[a-z0-9_]+}} = teq.linear_backward [[DY]], [[X]], [[W]] main_grad([[MG]] : tensor<256x128xf32>) config(#teq.linear<fuse_wgrad_accumulation = true>) : tensor<64x256xbf16>, tensor<64x128xbf16>, tensor<256x128xbf16> dgrad(tensor<64x128xbf16>) wgrad(tensor<256x128xf32>){{$}}
  %4:2 = teq.linear_backward %dy, %x, %w main_grad(%mg : tensor<256x128xf32>) config(#teq.linear<fuse_wgrad_accumulation = true>) : tensor<64x256xbf16>, tensor<64x128xbf16>, tensor<256x128xbf16> dgrad(tensor<64x128xbf16>) wgrad(tensor<256x128xf32>)
  // Delayed scaling: two backward slots (grad_output, grad_input).
  // CHECK-NEXT:  {{%[a-z0-9_]+}}, {{%[a-z0-9_]+}}, {{%[a-z0-9_]+}} = teq.linear_backward [[DY]], [[X]], [[W]] state([[S]], [[H]] : tensor<2xf32>, tensor<16x2xf32>) config(#teq.linear<>) : tensor<64x256xbf16>, tensor<64x128xbf16>, tensor<256x128xbf16> dgrad(tensor<64x128xbf16>) wgrad(tensor<256x128xbf16>) updated_amax_history(tensor<16x2xf32>){{$}}
  %5:3 = teq.linear_backward %dy, %x, %w state(%s, %h : tensor<2xf32>, tensor<16x2xf32>) config(#teq.linear<>) : tensor<64x256xbf16>, tensor<64x128xbf16>, tensor<256x128xbf16> dgrad(tensor<64x128xbf16>) wgrad(tensor<256x128xbf16>) updated_amax_history(tensor<16x2xf32>)
  // Row parallel + SP: grad_output is the reduce-scattered [S/tp, out].
  // CHECK-NEXT:  {{%[a-z0-9_]+}}, {{%[a-z0-9_]+}} = teq.linear_backward [[DYR]], [[XR]], [[WR]] tp_group([[G]]) config(#teq.linear<parallel_mode = row, sequence_parallel = true, tp_size = 4>) : tensor<16x256xbf16>, tensor<64x32xbf16>, tensor<256x32xbf16> dgrad(tensor<64x32xbf16>) wgrad(tensor<256x32xbf16>){{$}}
  %6:2 = teq.linear_backward %dyr, %xr, %wr tp_group(%g) config(#teq.linear<parallel_mode = row, sequence_parallel = true, tp_size = 4>) : tensor<16x256xbf16>, tensor<64x32xbf16>, tensor<256x32xbf16> dgrad(tensor<64x32xbf16>) wgrad(tensor<256x32xbf16>)
  // Every optional operand and result at once.
  // CHECK-NEXT:  {{%[a-z0-9_]+}}, {{%[a-z0-9_]+}}, {{%[a-z0-9_]+}}, {{%[a-z0-9_]+}} = teq.linear_backward [[DY]], [[X]], [[W]] main_grad([[MG]] : tensor<256x128xf32>) state([[S]], [[H]] : tensor<2xf32>, tensor<16x2xf32>) config(#teq.linear<bias = true, fuse_wgrad_accumulation = true>) : tensor<64x256xbf16>, tensor<64x128xbf16>, tensor<256x128xbf16> dgrad(tensor<64x128xbf16>) wgrad(tensor<256x128xf32>) dbias(tensor<256xbf16>) updated_amax_history(tensor<16x2xf32>){{$}}
  %7:4 = teq.linear_backward %dy, %x, %w main_grad(%mg : tensor<256x128xf32>) state(%s, %h : tensor<2xf32>, tensor<16x2xf32>) config(#teq.linear<bias = true, fuse_wgrad_accumulation = true>) : tensor<64x256xbf16>, tensor<64x128xbf16>, tensor<256x128xbf16> dgrad(tensor<64x128xbf16>) wgrad(tensor<256x128xf32>) dbias(tensor<256xbf16>) updated_amax_history(tensor<16x2xf32>)
  // Quantized saved tensors.
  // CHECK-NEXT:  {{%[a-z0-9_]+}}, {{%[a-z0-9_]+}} = teq.linear_backward [[DY]], [[XQ]], [[WQ]] config(#teq.linear<>) : tensor<64x256xbf16>, !teq.proto<64x128xbf16, #teq.mxfp8_quantizer<f8E4M3FN>, columnwise>, !teq.proto<256x128xbf16, #teq.mxfp8_quantizer<f8E4M3FN>, columnwise> dgrad(tensor<64x128xbf16>) wgrad(tensor<256x128xbf16>){{$}}
  %8:2 = teq.linear_backward %dy, %xq, %wq config(#teq.linear<>) : tensor<64x256xbf16>, !teq.proto<64x128xbf16, #teq.mxfp8_quantizer<f8E4M3FN>, columnwise>, !teq.proto<256x128xbf16, #teq.mxfp8_quantizer<f8E4M3FN>, columnwise> dgrad(tensor<64x128xbf16>) wgrad(tensor<256x128xbf16>)
  // Resolved: MXFP8 forward tensors, a high-precision backward.
  // CHECK-NEXT:  {{%[a-z0-9_]+}}, {{%[a-z0-9_]+}} = teq.linear_backward [[DY]], [[XQ]], [[WQ]] config(#teq.linear<>) {quantization = #teq.linear_quantization<recipe = "MXFP8BlockScaling", input = #teq.mxfp8_quantizer<f8E4M3FN>, weight = #teq.mxfp8_quantizer<f8E4M3FN>>} : tensor<64x256xbf16>, !teq.proto<64x128xbf16, #teq.mxfp8_quantizer<f8E4M3FN>, columnwise>, !teq.proto<256x128xbf16, #teq.mxfp8_quantizer<f8E4M3FN>, columnwise> dgrad(tensor<64x128xbf16>) wgrad(tensor<256x128xbf16>){{$}}
  %9:2 = teq.linear_backward %dy, %xq, %wq config(#teq.linear<>) {quantization = #teq.linear_quantization<recipe = "MXFP8BlockScaling", input = #teq.mxfp8_quantizer<f8E4M3FN>, weight = #teq.mxfp8_quantizer<f8E4M3FN>>} : tensor<64x256xbf16>, !teq.proto<64x128xbf16, #teq.mxfp8_quantizer<f8E4M3FN>, columnwise>, !teq.proto<256x128xbf16, #teq.mxfp8_quantizer<f8E4M3FN>, columnwise> dgrad(tensor<64x128xbf16>) wgrad(tensor<256x128xbf16>)
  // Resolved: delayed-scaling backward slots need the state.
  // CHECK-NEXT:  {{%[a-z0-9_]+}}, {{%[a-z0-9_]+}}, {{%[a-z0-9_]+}} = teq.linear_backward [[DY]], [[X]], [[W]] state([[S]], [[H]] : tensor<2xf32>, tensor<16x2xf32>) config(#teq.linear<>) {quantization = #teq.linear_quantization<recipe = "CustomRecipe", input = #teq.mxfp8_quantizer<f8E4M3FN>, weight = #teq.mxfp8_quantizer<f8E4M3FN>, grad_output = #teq.float8_quantizer<f8E5M2>, grad_input = #teq.float8_quantizer<f8E5M2>>} : tensor<64x256xbf16>, tensor<64x128xbf16>, tensor<256x128xbf16> dgrad(tensor<64x128xbf16>) wgrad(tensor<256x128xbf16>) updated_amax_history(tensor<16x2xf32>){{$}}
  %10:3 = teq.linear_backward %dy, %x, %w state(%s, %h : tensor<2xf32>, tensor<16x2xf32>) config(#teq.linear<>) {quantization = #teq.linear_quantization<recipe = "CustomRecipe", input = #teq.mxfp8_quantizer<f8E4M3FN>, weight = #teq.mxfp8_quantizer<f8E4M3FN>, grad_output = #teq.float8_quantizer<f8E5M2>, grad_input = #teq.float8_quantizer<f8E5M2>>} : tensor<64x256xbf16>, tensor<64x128xbf16>, tensor<256x128xbf16> dgrad(tensor<64x128xbf16>) wgrad(tensor<256x128xbf16>) updated_amax_history(tensor<16x2xf32>)
  // No gradient at all.
  // CHECK-NEXT:  teq.linear_backward [[DY]], [[X]], [[W]] config(#teq.linear<requires_dgrad = false, requires_wgrad = false>) : tensor<64x256xbf16>, tensor<64x128xbf16>, tensor<256x128xbf16>{{$}}
  teq.linear_backward %dy, %x, %w config(#teq.linear<requires_dgrad = false, requires_wgrad = false>) : tensor<64x256xbf16>, tensor<64x128xbf16>, tensor<256x128xbf16>
  // CHECK-NEXT:  return
  return
}

//===----------------------------------------------------------------------===//
// teq.gemm
//===----------------------------------------------------------------------===//

// use_split_accumulator = true is the default and is elided; kind prints as
// an enum attribute.
// CHECK-LABEL: func.func @gemm(
// CHECK-SAME:  [[WQ:%[a-z0-9_]+]]: !teq.proto<256x128xbf16, #teq.float8_current_scaling_quantizer<f8E4M3FN>, rowwise|columnwise>,
// CHECK-SAME:  [[XQ:%[a-z0-9_]+]]: !teq.proto<64x128xbf16, #teq.float8_current_scaling_quantizer<f8E4M3FN>, rowwise|columnwise>,
// CHECK-SAME:  [[DYQ:%[a-z0-9_]+]]: !teq.proto<64x256xbf16, #teq.float8_current_scaling_quantizer<f8E5M2>, rowwise|columnwise>,
// CHECK-SAME:  [[W:%[a-z0-9_]+]]: tensor<256x128xbf16>, [[X:%[a-z0-9_]+]]: tensor<64x128xbf16>, [[DY:%[a-z0-9_]+]]: tensor<64x256xbf16>, [[B:%[a-z0-9_]+]]: tensor<256xbf16>, [[MG:%[a-z0-9_]+]]: tensor<256x128xf32>,
// CHECK-SAME:  [[X3:%[a-z0-9_]+]]: tensor<4x16x128xbf16>, [[AT:%[a-z0-9_]+]]: tensor<128x64xbf16>,
// CHECK-SAME:  [[MW:%[a-z0-9_]+]]: !teq.proto<256x128xbf16, #teq.mxfp8_quantizer<f8E4M3FN>, rowwise, gemm_swizzled>, [[MX:%[a-z0-9_]+]]: !teq.proto<64x128xbf16, #teq.mxfp8_quantizer<f8E4M3FN>, rowwise, gemm_swizzled>,
// CHECK-SAME:  [[NW:%[a-z0-9_]+]]: !teq.proto<256x128xbf16, #teq.nvfp4_quantizer<f4E2M1FN, with_2d_quantization = true>, rowwise>, [[NX:%[a-z0-9_]+]]: !teq.proto<64x128xbf16, #teq.nvfp4_quantizer<f4E2M1FN>, rowwise>,
// CHECK-SAME:  [[BW:%[a-z0-9_]+]]: !teq.proto<256x128xbf16, #teq.float8_block_quantizer<f8E4M3FN>, rowwise>, [[BX:%[a-z0-9_]+]]: !teq.proto<64x128xbf16, #teq.float8_block_quantizer<f8E4M3FN, block_scaling_dim = 1>, rowwise>)
func.func @gemm(
    %wq: !teq.proto<256x128xbf16, #teq.float8_current_scaling_quantizer<f8E4M3FN>, rowwise|columnwise>,
    %xq: !teq.proto<64x128xbf16, #teq.float8_current_scaling_quantizer<f8E4M3FN>, rowwise|columnwise>,
    %dyq: !teq.proto<64x256xbf16, #teq.float8_current_scaling_quantizer<f8E5M2>, rowwise|columnwise>,
    %w: tensor<256x128xbf16>, %x: tensor<64x128xbf16>, %dy: tensor<64x256xbf16>, %b: tensor<256xbf16>, %mg: tensor<256x128xf32>,
    %x3: tensor<4x16x128xbf16>, %at: tensor<128x64xbf16>,
    %mw: !teq.proto<256x128xbf16, #teq.mxfp8_quantizer<f8E4M3FN>, rowwise, gemm_swizzled>, %mx: !teq.proto<64x128xbf16, #teq.mxfp8_quantizer<f8E4M3FN>, rowwise, gemm_swizzled>,
    %nw: !teq.proto<256x128xbf16, #teq.nvfp4_quantizer<f4E2M1FN, with_2d_quantization = true>, rowwise>, %nx: !teq.proto<64x128xbf16, #teq.nvfp4_quantizer<f4E2M1FN>, rowwise>,
    %bw: !teq.proto<256x128xbf16, #teq.float8_block_quantizer<f8E4M3FN>, rowwise>, %bx: !teq.proto<64x128xbf16, #teq.float8_block_quantizer<f8E4M3FN, block_scaling_dim = 1>, rowwise>) {
  // fprop: y = x w^T + b, FP8 with fast accumulation.
  // CHECK-NEXT:  {{%[a-z0-9_]+}} = teq.gemm TN [[WQ]], [[XQ]] bias([[B]] : tensor<256xbf16>) {kind = #teq.gemm_kind<fprop>, use_split_accumulator = false} : !teq.proto<256x128xbf16, #teq.float8_current_scaling_quantizer<f8E4M3FN>, rowwise|columnwise>, !teq.proto<64x128xbf16, #teq.float8_current_scaling_quantizer<f8E4M3FN>, rowwise|columnwise> -> tensor<64x256xbf16>{{$}}
  %0 = teq.gemm TN %wq, %xq bias(%b : tensor<256xbf16>) {kind = #teq.gemm_kind<fprop>, use_split_accumulator = false} : !teq.proto<256x128xbf16, #teq.float8_current_scaling_quantizer<f8E4M3FN>, rowwise|columnwise>, !teq.proto<64x128xbf16, #teq.float8_current_scaling_quantizer<f8E4M3FN>, rowwise|columnwise> -> tensor<64x256xbf16>
  // dgrad: dx = dy w (E4M3 x E5M2).
  // CHECK-NEXT:  {{%[a-z0-9_]+}} = teq.gemm NN [[WQ]], [[DYQ]] {kind = #teq.gemm_kind<dgrad>} : !teq.proto<256x128xbf16, #teq.float8_current_scaling_quantizer<f8E4M3FN>, rowwise|columnwise>, !teq.proto<64x256xbf16, #teq.float8_current_scaling_quantizer<f8E5M2>, rowwise|columnwise> -> tensor<64x128xbf16>{{$}}
  %1 = teq.gemm NN %wq, %dyq {kind = #teq.gemm_kind<dgrad>, use_split_accumulator = true} : !teq.proto<256x128xbf16, #teq.float8_current_scaling_quantizer<f8E4M3FN>, rowwise|columnwise>, !teq.proto<64x256xbf16, #teq.float8_current_scaling_quantizer<f8E5M2>, rowwise|columnwise> -> tensor<64x128xbf16>
  // wgrad: dw = dy^T x, accumulated into main_grad, with the BGRADB dbias.
  // CHECK-NEXT:  {{%[a-z0-9_]+}}, {{%[a-z0-9_]+}} = teq.gemm NT [[XQ]], [[DYQ]] accumulate([[MG]] : tensor<256x128xf32>) {kind = #teq.gemm_kind<wgrad>} : !teq.proto<64x128xbf16, #teq.float8_current_scaling_quantizer<f8E4M3FN>, rowwise|columnwise>, !teq.proto<64x256xbf16, #teq.float8_current_scaling_quantizer<f8E5M2>, rowwise|columnwise> -> tensor<256x128xf32>, tensor<256xf32>{{$}}
  %2:2 = teq.gemm NT %xq, %dyq accumulate(%mg : tensor<256x128xf32>) {kind = #teq.gemm_kind<wgrad>} : !teq.proto<64x128xbf16, #teq.float8_current_scaling_quantizer<f8E4M3FN>, rowwise|columnwise>, !teq.proto<64x256xbf16, #teq.float8_current_scaling_quantizer<f8E5M2>, rowwise|columnwise> -> tensor<256x128xf32>, tensor<256xf32>
  // TT in bf16: D = B^T A^T.
  // CHECK-NEXT:  {{%[a-z0-9_]+}} = teq.gemm TT [[AT]], [[DY]] : tensor<128x64xbf16>, tensor<64x256xbf16> -> tensor<256x128xbf16>{{$}}
  %3 = teq.gemm TT %at, %dy : tensor<128x64xbf16>, tensor<64x256xbf16> -> tensor<256x128xbf16>
  // A 3-D B keeps its leading dimensions.
  // CHECK-NEXT:  {{%[a-z0-9_]+}} = teq.gemm TN [[W]], [[X3]] bias([[B]] : tensor<256xbf16>) : tensor<256x128xbf16>, tensor<4x16x128xbf16> -> tensor<4x16x256xbf16>{{$}}
  %4 = teq.gemm TN %w, %x3 bias(%b : tensor<256xbf16>) : tensor<256x128xbf16>, tensor<4x16x128xbf16> -> tensor<4x16x256xbf16>
  // bf16 wgrad with dbias.
  // CHECK-NEXT:  {{%[a-z0-9_]+}}, {{%[a-z0-9_]+}} = teq.gemm NT [[X]], [[DY]] : tensor<64x128xbf16>, tensor<64x256xbf16> -> tensor<256x128xbf16>, tensor<256xbf16>{{$}}
  %5:2 = teq.gemm NT %x, %dy : tensor<64x128xbf16>, tensor<64x256xbf16> -> tensor<256x128xbf16>, tensor<256xbf16>
  // MXFP8, NVFP4 and 1D x 2D block FP8 fprops.
  // CHECK-NEXT:  {{%[a-z0-9_]+}} = teq.gemm TN [[MW]], [[MX]] : !teq.proto<256x128xbf16, #teq.mxfp8_quantizer<f8E4M3FN>, rowwise, gemm_swizzled>, !teq.proto<64x128xbf16, #teq.mxfp8_quantizer<f8E4M3FN>, rowwise, gemm_swizzled> -> tensor<64x256xbf16>{{$}}
  %6 = teq.gemm TN %mw, %mx : !teq.proto<256x128xbf16, #teq.mxfp8_quantizer<f8E4M3FN>, rowwise, gemm_swizzled>, !teq.proto<64x128xbf16, #teq.mxfp8_quantizer<f8E4M3FN>, rowwise, gemm_swizzled> -> tensor<64x256xbf16>
  // CHECK-NEXT:  {{%[a-z0-9_]+}} = teq.gemm TN [[NW]], [[NX]] {kind = #teq.gemm_kind<fprop>} : !teq.proto<256x128xbf16, #teq.nvfp4_quantizer<f4E2M1FN, with_2d_quantization = true>, rowwise>, !teq.proto<64x128xbf16, #teq.nvfp4_quantizer<f4E2M1FN>, rowwise> -> tensor<64x256xbf16>{{$}}
  %7 = teq.gemm TN %nw, %nx {kind = #teq.gemm_kind<fprop>} : !teq.proto<256x128xbf16, #teq.nvfp4_quantizer<f4E2M1FN, with_2d_quantization = true>, rowwise>, !teq.proto<64x128xbf16, #teq.nvfp4_quantizer<f4E2M1FN>, rowwise> -> tensor<64x256xbf16>
  // CHECK-NEXT:  {{%[a-z0-9_]+}} = teq.gemm TN [[BW]], [[BX]] bias([[B]] : tensor<256xbf16>) : !teq.proto<256x128xbf16, #teq.float8_block_quantizer<f8E4M3FN>, rowwise>, !teq.proto<64x128xbf16, #teq.float8_block_quantizer<f8E4M3FN, block_scaling_dim = 1>, rowwise> -> tensor<64x256xf32>{{$}}
  %8 = teq.gemm TN %bw, %bx bias(%b : tensor<256xbf16>) : !teq.proto<256x128xbf16, #teq.float8_block_quantizer<f8E4M3FN>, rowwise>, !teq.proto<64x128xbf16, #teq.float8_block_quantizer<f8E4M3FN, block_scaling_dim = 1>, rowwise> -> tensor<64x256xf32>
  // CHECK-NEXT:  return
  return
}

//===----------------------------------------------------------------------===//
// Equal quantizers and prototypes are the same attribute and type.
//===----------------------------------------------------------------------===//

// Spellings that differ only in explicitly written defaults, field order,
// usage order or the default scale layout print identically...
// CHECK-LABEL: func.func private @equal_quantizers()
// CHECK-SAME:  attributes {a = #teq.mxfp8_quantizer<f8E4M3FN>,
// CHECK-SAME:  b = #teq.mxfp8_quantizer<f8E4M3FN>,
// CHECK-SAME:  c = #teq.float8_block_quantizer<f8E4M3FN, block_scaling_dim = 1, amax_epsilon = 1.000000e-02>,
// CHECK-SAME:  d = #teq.float8_block_quantizer<f8E4M3FN, block_scaling_dim = 1, amax_epsilon = 1.000000e-02>}{{$}}
func.func private @equal_quantizers() attributes {
  a = #teq.mxfp8_quantizer<f8E4M3FN, with_2d_quantization = false>,
  b = #teq.mxfp8_quantizer<f8E4M3FN>,
  c = #teq.float8_block_quantizer<f8E4M3FN, amax_epsilon = 0.01, force_pow_2_scales = true, block_scaling_dim = 1>,
  d = #teq.float8_block_quantizer<f8E4M3FN, block_scaling_dim = 1, amax_epsilon = 1.000000e-02>
}

// ...and are the same type: a value declared with one spelling is returned
// as the other (the parser requires identical types for one SSA value).
// CHECK-LABEL: func.func @equal_protos(
// CHECK-SAME:  [[Q:%[a-z0-9_]+]]: !teq.proto<64x128xbf16, #teq.mxfp8_quantizer<f8E4M3FN>, rowwise|columnwise>)
// CHECK-SAME:  -> !teq.proto<64x128xbf16, #teq.mxfp8_quantizer<f8E4M3FN>, rowwise|columnwise> {
// CHECK-NEXT:  return [[Q]] : !teq.proto<64x128xbf16, #teq.mxfp8_quantizer<f8E4M3FN>, rowwise|columnwise>
func.func @equal_protos(%q: !teq.proto<64x128xbf16, #teq.mxfp8_quantizer<f8E4M3FN, with_2d_quantization = false>, columnwise|rowwise, compact>)
    -> !teq.proto<64x128xbf16, #teq.mxfp8_quantizer<f8E4M3FN>, rowwise|columnwise> {
  return %q : !teq.proto<64x128xbf16, #teq.mxfp8_quantizer<f8E4M3FN>, rowwise|columnwise>
}

// CSE merges two teq.create_tensor ops whose types are spelled differently
// but are equal.
// CHECK-LABEL: func.func @cse_equal_protos()
// CSE-LABEL:   func.func @cse_equal_protos()
// CSE-NEXT:    [[T:%[a-z0-9_]+]] = teq.create_tensor : !teq.proto<128x256xbf16, #teq.nvfp4_quantizer<f4E2M1FN, with_rht = true, with_post_rht_amax = true>, rowwise|columnwise, gemm_swizzled>
// CSE-NEXT:    return [[T]], [[T]] :
func.func @cse_equal_protos() -> (!teq.proto<128x256xbf16, #teq.nvfp4_quantizer<f4E2M1FN, with_rht = true, with_post_rht_amax = true>, rowwise|columnwise, gemm_swizzled>, !teq.proto<128x256xbf16, #teq.nvfp4_quantizer<f4E2M1FN, with_rht = true, with_post_rht_amax = true>, rowwise|columnwise, gemm_swizzled>) {
  // Without CSE both ops stay.
  // CHECK-COUNT-2: teq.create_tensor
  %a = teq.create_tensor : !teq.proto<128x256xbf16, #teq.nvfp4_quantizer<f4E2M1FN, with_post_rht_amax = true, with_rht = true, nvfp4_e4m3_max = 448, with_random_sign_mask = true>, columnwise|rowwise, gemm_swizzled>
  %b = teq.create_tensor : !teq.proto<128x256xbf16, #teq.nvfp4_quantizer<f4E2M1FN, with_rht = true, with_post_rht_amax = true>, rowwise|columnwise, gemm_swizzled>
  return %a, %b : !teq.proto<128x256xbf16, #teq.nvfp4_quantizer<f4E2M1FN, with_rht = true, with_post_rht_amax = true>, rowwise|columnwise, gemm_swizzled>, !teq.proto<128x256xbf16, #teq.nvfp4_quantizer<f4E2M1FN, with_rht = true, with_post_rht_amax = true>, rowwise|columnwise, gemm_swizzled>
}

// Different quantizers stay apart under CSE.
// CSE-LABEL:   func.func @cse_different_protos()
// CSE-NEXT:    teq.create_tensor : !teq.proto<64x128xbf16, #teq.mxfp8_quantizer<f8E4M3FN>, rowwise>
// CSE-NEXT:    teq.create_tensor : !teq.proto<64x128xbf16, #teq.mxfp8_quantizer<f8E4M3FN, with_2d_quantization = true>, rowwise>
// CSE-NEXT:    teq.create_tensor : !teq.proto<64x128xbf16, #teq.mxfp8_quantizer<f8E4M3FN>, rowwise, gemm_swizzled>
// CSE-NEXT:    return
func.func @cse_different_protos() -> (!teq.proto<64x128xbf16, #teq.mxfp8_quantizer<f8E4M3FN>, rowwise>, !teq.proto<64x128xbf16, #teq.mxfp8_quantizer<f8E4M3FN, with_2d_quantization = true>, rowwise>, !teq.proto<64x128xbf16, #teq.mxfp8_quantizer<f8E4M3FN>, rowwise, gemm_swizzled>) {
  %a = teq.create_tensor : !teq.proto<64x128xbf16, #teq.mxfp8_quantizer<f8E4M3FN>, rowwise>
  %b = teq.create_tensor : !teq.proto<64x128xbf16, #teq.mxfp8_quantizer<f8E4M3FN, with_2d_quantization = true>, rowwise>
  %c = teq.create_tensor : !teq.proto<64x128xbf16, #teq.mxfp8_quantizer<f8E4M3FN>, rowwise, gemm_swizzled>
  return %a, %b, %c : !teq.proto<64x128xbf16, #teq.mxfp8_quantizer<f8E4M3FN>, rowwise>, !teq.proto<64x128xbf16, #teq.mxfp8_quantizer<f8E4M3FN, with_2d_quantization = true>, rowwise>, !teq.proto<64x128xbf16, #teq.mxfp8_quantizer<f8E4M3FN>, rowwise, gemm_swizzled>
}

//===----------------------------------------------------------------------===//
// Upstream quant and teq in one module.
//===----------------------------------------------------------------------===//

// CHECK-LABEL: func.func @with_upstream_quant(
// CHECK-SAME:  [[I8:%[a-z0-9_]+]]: tensor<64x128x!quant.uniform<i8:f32, 1.000000e+00>>, [[X:%[a-z0-9_]+]]: tensor<64x128xbf16>)
// CHECK-SAME:  -> (tensor<64x128xf32>, !teq.proto<64x128xbf16, #teq.float8_current_scaling_quantizer<f8E4M3FN>, rowwise>) {
// CHECK-NEXT:  [[D:%[a-z0-9_]+]] = quant.dcast [[I8]] : tensor<64x128x!quant.uniform<i8:f32, 1.000000e+00>> to tensor<64x128xf32>
// CHECK-NEXT:  [[Q:%[a-z0-9_]+]] = teq.quantize [[X]] : tensor<64x128xbf16> -> !teq.proto<64x128xbf16, #teq.float8_current_scaling_quantizer<f8E4M3FN>, rowwise>
// CHECK-NEXT:  return [[D]], [[Q]] : tensor<64x128xf32>, !teq.proto<64x128xbf16, #teq.float8_current_scaling_quantizer<f8E4M3FN>, rowwise>
func.func @with_upstream_quant(%i8: tensor<64x128x!quant.uniform<i8:f32, 1.0>>, %x: tensor<64x128xbf16>)
    -> (tensor<64x128xf32>, !teq.proto<64x128xbf16, #teq.float8_current_scaling_quantizer<f8E4M3FN>, rowwise>) {
  %d = quant.dcast %i8 : tensor<64x128x!quant.uniform<i8:f32, 1.0>> to tensor<64x128xf32>
  %q = teq.quantize %x : tensor<64x128xbf16> -> !teq.proto<64x128xbf16, #teq.float8_current_scaling_quantizer<f8E4M3FN>, rowwise>
  return %d, %q : tensor<64x128xf32>, !teq.proto<64x128xbf16, #teq.float8_current_scaling_quantizer<f8E4M3FN>, rowwise>
}

}
