// teq-resolve-autocast: every Linear gets the quantizers and split-accumulator
// flags of the recipe in effect (te-semantics.md §1, §6.4, §7) and no
// teq.autocast region remains; the values a region yielded are used directly.
//
// The programs after `//--- resolve.mlir` must resolve; the ones after
// `//--- errors.mlir` are the pass's own errors.

// RUN: rm -rf %t && split-file %s %t
// RUN: te-opt %t/resolve.mlir -split-input-file --teq-resolve-autocast | FileCheck %s --implicit-check-not=teq.autocast --implicit-check-not=teq.yield
// RUN: te-opt %t/errors.mlir -split-input-file -verify-diagnostics --teq-resolve-autocast

//--- resolve.mlir

//===----------------------------------------------------------------------===//
// Float8CurrentScaling (§1.3): E4M3 forward / E5M2 backward under HYBRID,
// fprop split accumulator off (fast accumulation on).
//===----------------------------------------------------------------------===//

// The forward in the region, its backward outside it (TE runs backward after
// the autocast exits, under the recipe captured in forward). The region's
// results are replaced by the values it yielded.
// CHECK-LABEL: func.func @current_hybrid
// CHECK-SAME: (%[[X:arg[0-9]+]]: tensor<64x128xbf16>, %[[W:arg[0-9]+]]: tensor<256x128xbf16>, %[[DY:arg[0-9]+]]: tensor<64x256xbf16>)
// CHECK-NEXT: %[[Y:[a-z0-9_]+]], %[[SX:[a-z0-9_]+]], %[[SW:[a-z0-9_]+]] = teq.linear_forward %[[X]], %[[W]] config(#teq.linear<name = "fc1">)
// CHECK-SAME: {quantization = #teq.linear_quantization<recipe = "Float8CurrentScaling", input = #teq.float8_current_scaling_quantizer<f8E4M3FN>, weight = #teq.float8_current_scaling_quantizer<f8E4M3FN>, output = #teq.float8_current_scaling_quantizer<f8E4M3FN>, grad_output = #teq.float8_current_scaling_quantizer<f8E5M2>, grad_input = #teq.float8_current_scaling_quantizer<f8E5M2>, fprop_split_accumulator = false>}
// CHECK-NEXT: %[[DX:[a-z0-9_]+]], %[[DW:[a-z0-9_]+]] = teq.linear_backward %[[DY]], %[[SX]], %[[SW]] config(#teq.linear<name = "fc1">)
// CHECK-SAME: {quantization = #teq.linear_quantization<recipe = "Float8CurrentScaling", input = #teq.float8_current_scaling_quantizer<f8E4M3FN>, weight = #teq.float8_current_scaling_quantizer<f8E4M3FN>, output = #teq.float8_current_scaling_quantizer<f8E4M3FN>, grad_output = #teq.float8_current_scaling_quantizer<f8E5M2>, grad_input = #teq.float8_current_scaling_quantizer<f8E5M2>, fprop_split_accumulator = false>}
// CHECK-NEXT: return %[[Y]], %[[DX]], %[[DW]] : tensor<64x256xbf16>, tensor<64x128xbf16>, tensor<256x128xbf16>
module attributes {teq.target = #teq.target<sm_90>} {
  func.func @current_hybrid(%x: tensor<64x128xbf16>, %w: tensor<256x128xbf16>, %dy: tensor<64x256xbf16>) -> (tensor<64x256xbf16>, tensor<64x128xbf16>, tensor<256x128xbf16>) {
    %y, %sx, %sw = teq.autocast recipe(#teq.float8_current_scaling<>) -> tensor<64x256xbf16>, tensor<64x128xbf16>, tensor<256x128xbf16> {
      %out, %a, %b = teq.linear_forward %x, %w config(#teq.linear<name = "fc1">) : tensor<64x128xbf16>, tensor<256x128xbf16> -> tensor<64x256xbf16> saved_input(tensor<64x128xbf16>) saved_weight(tensor<256x128xbf16>)
      teq.yield %out, %a, %b : tensor<64x256xbf16>, tensor<64x128xbf16>, tensor<256x128xbf16>
    }
    %dx, %dw = teq.linear_backward %dy, %sx, %sw config(#teq.linear<name = "fc1">) : tensor<64x256xbf16>, tensor<64x128xbf16>, tensor<256x128xbf16> dgrad(tensor<64x128xbf16>) wgrad(tensor<256x128xbf16>)
    return %y, %dx, %dw : tensor<64x256xbf16>, tensor<64x128xbf16>, tensor<256x128xbf16>
  }
}

// -----

// fp8_format = E4M3 gives E4M3 everywhere; use_power_2_scales reaches every
// quantizer; the GEMM flags are the recipe's MMParams.
// CHECK-LABEL: func.func @current_options
// CHECK: teq.linear_forward
// CHECK-SAME: {quantization = #teq.linear_quantization<recipe = "Float8CurrentScaling", input = #teq.float8_current_scaling_quantizer<f8E4M3FN, force_pow_2_scales = true>, weight = #teq.float8_current_scaling_quantizer<f8E4M3FN, force_pow_2_scales = true>, output = #teq.float8_current_scaling_quantizer<f8E4M3FN, force_pow_2_scales = true>, grad_output = #teq.float8_current_scaling_quantizer<f8E4M3FN, force_pow_2_scales = true>, grad_input = #teq.float8_current_scaling_quantizer<f8E4M3FN, force_pow_2_scales = true>, wgrad_split_accumulator = false>}
module attributes {teq.target = #teq.target<sm_90>} {
  func.func @current_options(%x: tensor<64x128xbf16>, %w: tensor<256x128xbf16>) -> tensor<64x256xbf16> {
    %y = teq.autocast recipe(#teq.float8_current_scaling<use_power_2_scales = true, fp8_format = E4M3, fp8_gemm_fprop = <use_split_accumulator = true>, fp8_gemm_wgrad = <use_split_accumulator = false>>) -> tensor<64x256xbf16> {
      %out = teq.linear_forward %x, %w config(#teq.linear<>) : tensor<64x128xbf16>, tensor<256x128xbf16> -> tensor<64x256xbf16>
      teq.yield %out : tensor<64x256xbf16>
    }
    return %y : tensor<64x256xbf16>
  }
}

//===----------------------------------------------------------------------===//
// DelayedScaling (§1.2): stateful Float8Quantizers, module split defaults.
//===----------------------------------------------------------------------===//

// -----

// CHECK-LABEL: func.func @delayed
// CHECK-SAME: (%[[X:arg[0-9]+]]: tensor<64x128xbf16>, %[[W:arg[0-9]+]]: tensor<256x128xbf16>, %[[DY:arg[0-9]+]]: tensor<64x256xbf16>, %[[S:arg[0-9]+]]: tensor<3xf32>, %[[H:arg[0-9]+]]: tensor<16x3xf32>, %[[BS:arg[0-9]+]]: tensor<2xf32>, %[[BH:arg[0-9]+]]: tensor<16x2xf32>)
// CHECK-NEXT: %[[Y:[a-z0-9_]+]], %[[SX:[a-z0-9_]+]], %[[SW:[a-z0-9_]+]], %[[H1:[a-z0-9_]+]] = teq.linear_forward %[[X]], %[[W]] state(%[[S]], %[[H]] : tensor<3xf32>, tensor<16x3xf32>) config(#teq.linear<>)
// CHECK-SAME: {quantization = #teq.linear_quantization<recipe = "DelayedScaling", input = #teq.float8_quantizer<f8E4M3FN>, weight = #teq.float8_quantizer<f8E4M3FN>, output = #teq.float8_quantizer<f8E4M3FN>, grad_output = #teq.float8_quantizer<f8E5M2>, grad_input = #teq.float8_quantizer<f8E5M2>, fprop_split_accumulator = false>}
// CHECK-NEXT: %[[DX:[a-z0-9_]+]], %[[DW:[a-z0-9_]+]], %[[BH1:[a-z0-9_]+]] = teq.linear_backward %[[DY]], %[[SX]], %[[SW]] state(%[[BS]], %[[BH]] : tensor<2xf32>, tensor<16x2xf32>) config(#teq.linear<>)
// CHECK-SAME: {quantization = #teq.linear_quantization<recipe = "DelayedScaling", input = #teq.float8_quantizer<f8E4M3FN>, weight = #teq.float8_quantizer<f8E4M3FN>, output = #teq.float8_quantizer<f8E4M3FN>, grad_output = #teq.float8_quantizer<f8E5M2>, grad_input = #teq.float8_quantizer<f8E5M2>, fprop_split_accumulator = false>}
// CHECK-NEXT: return %[[Y]], %[[DX]], %[[DW]], %[[H1]], %[[BH1]]
module attributes {teq.target = #teq.target<sm_90>} {
  func.func @delayed(%x: tensor<64x128xbf16>, %w: tensor<256x128xbf16>, %dy: tensor<64x256xbf16>, %s: tensor<3xf32>, %h: tensor<16x3xf32>, %bs: tensor<2xf32>, %bh: tensor<16x2xf32>) -> (tensor<64x256xbf16>, tensor<64x128xbf16>, tensor<256x128xbf16>, tensor<16x3xf32>, tensor<16x2xf32>) {
    %y, %sx, %sw, %h1 = teq.autocast recipe(#teq.delayed_scaling<amax_history_len = 16>) -> tensor<64x256xbf16>, tensor<64x128xbf16>, tensor<256x128xbf16>, tensor<16x3xf32> {
      %o, %a, %b, %h2 = teq.linear_forward %x, %w state(%s, %h : tensor<3xf32>, tensor<16x3xf32>) config(#teq.linear<>) : tensor<64x128xbf16>, tensor<256x128xbf16> -> tensor<64x256xbf16> saved_input(tensor<64x128xbf16>) saved_weight(tensor<256x128xbf16>) updated_amax_history(tensor<16x3xf32>)
      teq.yield %o, %a, %b, %h2 : tensor<64x256xbf16>, tensor<64x128xbf16>, tensor<256x128xbf16>, tensor<16x3xf32>
    }
    %dx, %dw, %bh1 = teq.linear_backward %dy, %sx, %sw state(%bs, %bh : tensor<2xf32>, tensor<16x2xf32>) config(#teq.linear<>) : tensor<64x256xbf16>, tensor<64x128xbf16>, tensor<256x128xbf16> dgrad(tensor<64x128xbf16>) wgrad(tensor<256x128xbf16>) updated_amax_history(tensor<16x2xf32>)
    return %y, %dx, %dw, %h1, %bh1 : tensor<64x256xbf16>, tensor<64x128xbf16>, tensor<256x128xbf16>, tensor<16x3xf32>, tensor<16x2xf32>
  }
}

// -----

// CHECK-LABEL: func.func @delayed_e4m3
// CHECK: teq.linear_forward
// CHECK-SAME: {quantization = #teq.linear_quantization<recipe = "DelayedScaling", input = #teq.float8_quantizer<f8E4M3FN>, weight = #teq.float8_quantizer<f8E4M3FN>, output = #teq.float8_quantizer<f8E4M3FN>, grad_output = #teq.float8_quantizer<f8E4M3FN>, grad_input = #teq.float8_quantizer<f8E4M3FN>, fprop_split_accumulator = false>}
module attributes {teq.target = #teq.target<sm_90>} {
  func.func @delayed_e4m3(%x: tensor<64x128xbf16>, %w: tensor<256x128xbf16>, %s: tensor<3xf32>, %h: tensor<1024x3xf32>) -> tensor<64x256xbf16> {
    %y = teq.autocast recipe(#teq.delayed_scaling<fp8_format = E4M3>) -> tensor<64x256xbf16> {
      %o, %h2 = teq.linear_forward %x, %w state(%s, %h : tensor<3xf32>, tensor<1024x3xf32>) config(#teq.linear<>) : tensor<64x128xbf16>, tensor<256x128xbf16> -> tensor<64x256xbf16> updated_amax_history(tensor<1024x3xf32>)
      teq.yield %o : tensor<64x256xbf16>
    }
    return %y : tensor<64x256xbf16>
  }
}

//===----------------------------------------------------------------------===//
// Float8BlockScaling (§1.5): x 1x128, w 128x128, grad 1x128 by default; E4M3
// only by default; power-of-two scales unless use_f32_scales; split
// accumulator on for every GEMM.
//===----------------------------------------------------------------------===//

// -----

// CHECK-LABEL: func.func @block_default
// CHECK: teq.linear_forward
// CHECK-SAME: {quantization = #teq.linear_quantization<recipe = "Float8BlockScaling", input = #teq.float8_block_quantizer<f8E4M3FN, block_scaling_dim = 1>, weight = #teq.float8_block_quantizer<f8E4M3FN>, output = #teq.float8_block_quantizer<f8E4M3FN, block_scaling_dim = 1>, grad_output = #teq.float8_block_quantizer<f8E4M3FN, block_scaling_dim = 1>, grad_input = #teq.float8_block_quantizer<f8E4M3FN, block_scaling_dim = 1>>}
// CHECK: teq.linear_backward
// CHECK-SAME: {quantization = #teq.linear_quantization<recipe = "Float8BlockScaling", input = #teq.float8_block_quantizer<f8E4M3FN, block_scaling_dim = 1>, weight = #teq.float8_block_quantizer<f8E4M3FN>, output = #teq.float8_block_quantizer<f8E4M3FN, block_scaling_dim = 1>, grad_output = #teq.float8_block_quantizer<f8E4M3FN, block_scaling_dim = 1>, grad_input = #teq.float8_block_quantizer<f8E4M3FN, block_scaling_dim = 1>>}
module attributes {teq.target = #teq.target<sm_90>} {
  func.func @block_default(%x: tensor<64x128xbf16>, %w: tensor<256x128xbf16>, %dy: tensor<64x256xbf16>) -> (tensor<64x256xbf16>, tensor<64x128xbf16>, tensor<256x128xbf16>) {
    %y, %sx, %sw = teq.autocast recipe(#teq.float8_block_scaling<>) -> tensor<64x256xbf16>, tensor<64x128xbf16>, tensor<256x128xbf16> {
      %out, %a, %b = teq.linear_forward %x, %w config(#teq.linear<>) : tensor<64x128xbf16>, tensor<256x128xbf16> -> tensor<64x256xbf16> saved_input(tensor<64x128xbf16>) saved_weight(tensor<256x128xbf16>)
      teq.yield %out, %a, %b : tensor<64x256xbf16>, tensor<64x128xbf16>, tensor<256x128xbf16>
    }
    %dx, %dw = teq.linear_backward %dy, %sx, %sw config(#teq.linear<>) : tensor<64x256xbf16>, tensor<64x128xbf16>, tensor<256x128xbf16> dgrad(tensor<64x128xbf16>) wgrad(tensor<256x128xbf16>)
    return %y, %dx, %dw : tensor<64x256xbf16>, tensor<64x128xbf16>, tensor<256x128xbf16>
  }
}

// -----

// HYBRID gives E5M2 gradients; the block dims are per role: x (input and
// output) 2D, w 1D, grad 1D; f32 scales drop the power-of-two rounding.
// CHECK-LABEL: func.func @block_options
// CHECK: teq.linear_forward
// CHECK-SAME: {quantization = #teq.linear_quantization<recipe = "Float8BlockScaling", input = #teq.float8_block_quantizer<f8E4M3FN, force_pow_2_scales = false>, weight = #teq.float8_block_quantizer<f8E4M3FN, block_scaling_dim = 1, force_pow_2_scales = false>, output = #teq.float8_block_quantizer<f8E4M3FN, force_pow_2_scales = false>, grad_output = #teq.float8_block_quantizer<f8E5M2, block_scaling_dim = 1, force_pow_2_scales = false>, grad_input = #teq.float8_block_quantizer<f8E5M2, block_scaling_dim = 1, force_pow_2_scales = false>>}
module attributes {teq.target = #teq.target<sm_90>} {
  func.func @block_options(%x: tensor<64x128xbf16>, %w: tensor<256x128xbf16>) -> tensor<64x256xbf16> {
    %y = teq.autocast recipe(#teq.float8_block_scaling<use_f32_scales = true, fp8_format = HYBRID, x_block_scaling_dim = 2, w_block_scaling_dim = 1>) -> tensor<64x256xbf16> {
      %out = teq.linear_forward %x, %w config(#teq.linear<>) : tensor<64x128xbf16>, tensor<256x128xbf16> -> tensor<64x256xbf16>
      teq.yield %out : tensor<64x256xbf16>
    }
    return %y : tensor<64x256xbf16>
  }
}

//===----------------------------------------------------------------------===//
// MXFP8BlockScaling (§1.4): E4M3 only by default, 2D weights only with
// enable_2d_quantization, module split defaults (fprop off).
//===----------------------------------------------------------------------===//

// -----

// CHECK-LABEL: func.func @mxfp8
// CHECK: teq.linear_forward {{.*}} config(#teq.linear<name = "default">)
// CHECK-SAME: {quantization = #teq.linear_quantization<recipe = "MXFP8BlockScaling", input = #teq.mxfp8_quantizer<f8E4M3FN>, weight = #teq.mxfp8_quantizer<f8E4M3FN>, output = #teq.mxfp8_quantizer<f8E4M3FN>, grad_output = #teq.mxfp8_quantizer<f8E4M3FN>, grad_input = #teq.mxfp8_quantizer<f8E4M3FN>, fprop_split_accumulator = false>}
// CHECK: teq.linear_forward {{.*}} config(#teq.linear<name = "hybrid">)
// CHECK-SAME: {quantization = #teq.linear_quantization<recipe = "MXFP8BlockScaling", input = #teq.mxfp8_quantizer<f8E4M3FN>, weight = #teq.mxfp8_quantizer<f8E4M3FN>, output = #teq.mxfp8_quantizer<f8E4M3FN>, grad_output = #teq.mxfp8_quantizer<f8E5M2>, grad_input = #teq.mxfp8_quantizer<f8E5M2>, fprop_split_accumulator = false>}
// CHECK: teq.linear_forward {{.*}} config(#teq.linear<name = "2d">)
// CHECK-SAME: {quantization = #teq.linear_quantization<recipe = "MXFP8BlockScaling", input = #teq.mxfp8_quantizer<f8E4M3FN>, weight = #teq.mxfp8_quantizer<f8E4M3FN, with_2d_quantization = true>, output = #teq.mxfp8_quantizer<f8E4M3FN>, grad_output = #teq.mxfp8_quantizer<f8E4M3FN>, grad_input = #teq.mxfp8_quantizer<f8E4M3FN>, fprop_split_accumulator = false>}
// CHECK: teq.linear_backward {{.*}} config(#teq.linear<name = "2d">)
// CHECK-SAME: {quantization = #teq.linear_quantization<recipe = "MXFP8BlockScaling", input = #teq.mxfp8_quantizer<f8E4M3FN>, weight = #teq.mxfp8_quantizer<f8E4M3FN, with_2d_quantization = true>, output = #teq.mxfp8_quantizer<f8E4M3FN>, grad_output = #teq.mxfp8_quantizer<f8E4M3FN>, grad_input = #teq.mxfp8_quantizer<f8E4M3FN>, fprop_split_accumulator = false>}
module attributes {teq.target = #teq.target<sm_100>} {
  func.func @mxfp8(%x: tensor<64x128xbf16>, %w: tensor<256x128xbf16>, %dy: tensor<64x256xbf16>) -> (tensor<64x256xbf16>, tensor<64x256xbf16>, tensor<64x256xbf16>, tensor<64x128xbf16>, tensor<256x128xbf16>) {
    %a = teq.autocast recipe(#teq.mxfp8_block_scaling<>) -> tensor<64x256xbf16> {
      %out = teq.linear_forward %x, %w config(#teq.linear<name = "default">) : tensor<64x128xbf16>, tensor<256x128xbf16> -> tensor<64x256xbf16>
      teq.yield %out : tensor<64x256xbf16>
    }
    %b = teq.autocast recipe(#teq.mxfp8_block_scaling<fp8_format = HYBRID>) -> tensor<64x256xbf16> {
      %out = teq.linear_forward %x, %w config(#teq.linear<name = "hybrid">) : tensor<64x128xbf16>, tensor<256x128xbf16> -> tensor<64x256xbf16>
      teq.yield %out : tensor<64x256xbf16>
    }
    %c, %sx, %sw = teq.autocast recipe(#teq.mxfp8_block_scaling<enable_2d_quantization = true>) -> tensor<64x256xbf16>, tensor<64x128xbf16>, tensor<256x128xbf16> {
      %out, %i, %j = teq.linear_forward %x, %w config(#teq.linear<name = "2d">) : tensor<64x128xbf16>, tensor<256x128xbf16> -> tensor<64x256xbf16> saved_input(tensor<64x128xbf16>) saved_weight(tensor<256x128xbf16>)
      teq.yield %out, %i, %j : tensor<64x256xbf16>, tensor<64x128xbf16>, tensor<256x128xbf16>
    }
    %dx, %dw = teq.linear_backward %dy, %sx, %sw config(#teq.linear<name = "2d">) : tensor<64x256xbf16>, tensor<64x128xbf16>, tensor<256x128xbf16> dgrad(tensor<64x128xbf16>) wgrad(tensor<256x128xbf16>)
    return %a, %b, %c, %dx, %dw : tensor<64x256xbf16>, tensor<64x256xbf16>, tensor<64x256xbf16>, tensor<64x128xbf16>, tensor<256x128xbf16>
  }
}

//===----------------------------------------------------------------------===//
// NVFP4BlockScaling (§1.6): input/output RHT (with post-RHT amax), weight 2D,
// gradients RHT + stochastic rounding; each disable_* switch removes its
// feature; split accumulator on (FP4 never uses fast accumulation).
//===----------------------------------------------------------------------===//

// -----

// CHECK-LABEL: func.func @nvfp4
// CHECK: teq.linear_forward {{.*}} config(#teq.linear<name = "default">)
// CHECK-SAME: {quantization = #teq.linear_quantization<recipe = "NVFP4BlockScaling", input = #teq.nvfp4_quantizer<f4E2M1FN, with_rht = true, with_post_rht_amax = true>, weight = #teq.nvfp4_quantizer<f4E2M1FN, with_2d_quantization = true>, output = #teq.nvfp4_quantizer<f4E2M1FN, with_rht = true, with_post_rht_amax = true>, grad_output = #teq.nvfp4_quantizer<f4E2M1FN, with_rht = true, with_post_rht_amax = true, stochastic_rounding = true>, grad_input = #teq.nvfp4_quantizer<f4E2M1FN, with_rht = true, with_post_rht_amax = true, stochastic_rounding = true>>}
// CHECK: teq.linear_forward {{.*}} config(#teq.linear<name = "no_rht">)
// CHECK-SAME: {quantization = #teq.linear_quantization<recipe = "NVFP4BlockScaling", input = #teq.nvfp4_quantizer<f4E2M1FN>, weight = #teq.nvfp4_quantizer<f4E2M1FN, with_2d_quantization = true>, output = #teq.nvfp4_quantizer<f4E2M1FN>, grad_output = #teq.nvfp4_quantizer<f4E2M1FN, stochastic_rounding = true>, grad_input = #teq.nvfp4_quantizer<f4E2M1FN, stochastic_rounding = true>>}
// CHECK: teq.linear_forward {{.*}} config(#teq.linear<name = "no_sr">)
// CHECK-SAME: {quantization = #teq.linear_quantization<recipe = "NVFP4BlockScaling", input = #teq.nvfp4_quantizer<f4E2M1FN, with_rht = true, with_post_rht_amax = true>, weight = #teq.nvfp4_quantizer<f4E2M1FN, with_2d_quantization = true>, output = #teq.nvfp4_quantizer<f4E2M1FN, with_rht = true, with_post_rht_amax = true>, grad_output = #teq.nvfp4_quantizer<f4E2M1FN, with_rht = true, with_post_rht_amax = true>, grad_input = #teq.nvfp4_quantizer<f4E2M1FN, with_rht = true, with_post_rht_amax = true>>}
// CHECK: teq.linear_forward {{.*}} config(#teq.linear<name = "no_2d">)
// CHECK-SAME: {quantization = #teq.linear_quantization<recipe = "NVFP4BlockScaling", input = #teq.nvfp4_quantizer<f4E2M1FN, with_rht = true, with_post_rht_amax = true>, weight = #teq.nvfp4_quantizer<f4E2M1FN>, output = #teq.nvfp4_quantizer<f4E2M1FN, with_rht = true, with_post_rht_amax = true>, grad_output = #teq.nvfp4_quantizer<f4E2M1FN, with_rht = true, with_post_rht_amax = true, stochastic_rounding = true>, grad_input = #teq.nvfp4_quantizer<f4E2M1FN, with_rht = true, with_post_rht_amax = true, stochastic_rounding = true>>}
// CHECK: teq.linear_forward {{.*}} config(#teq.linear<name = "plain">)
// CHECK-SAME: {quantization = #teq.linear_quantization<recipe = "NVFP4BlockScaling", input = #teq.nvfp4_quantizer<f4E2M1FN>, weight = #teq.nvfp4_quantizer<f4E2M1FN>, output = #teq.nvfp4_quantizer<f4E2M1FN>, grad_output = #teq.nvfp4_quantizer<f4E2M1FN>, grad_input = #teq.nvfp4_quantizer<f4E2M1FN>>}
// The backward of "default", outside its region.
// CHECK: teq.linear_backward {{.*}} config(#teq.linear<name = "default">)
// CHECK-SAME: {quantization = #teq.linear_quantization<recipe = "NVFP4BlockScaling", input = #teq.nvfp4_quantizer<f4E2M1FN, with_rht = true, with_post_rht_amax = true>, weight = #teq.nvfp4_quantizer<f4E2M1FN, with_2d_quantization = true>, output = #teq.nvfp4_quantizer<f4E2M1FN, with_rht = true, with_post_rht_amax = true>, grad_output = #teq.nvfp4_quantizer<f4E2M1FN, with_rht = true, with_post_rht_amax = true, stochastic_rounding = true>, grad_input = #teq.nvfp4_quantizer<f4E2M1FN, with_rht = true, with_post_rht_amax = true, stochastic_rounding = true>>}
module attributes {teq.target = #teq.target<sm_100>} {
  func.func @nvfp4(%x: tensor<64x128xbf16>, %w: tensor<256x128xbf16>, %dy: tensor<64x256xbf16>, %rng: tensor<2xi64>) -> (tensor<64x256xbf16>, tensor<64x256xbf16>, tensor<64x256xbf16>, tensor<64x256xbf16>, tensor<64x256xbf16>, tensor<64x128xbf16>, tensor<256x128xbf16>) {
    %a, %sx, %sw = teq.autocast recipe(#teq.nvfp4_block_scaling<>) -> tensor<64x256xbf16>, tensor<64x128xbf16>, tensor<256x128xbf16> {
      %out, %i, %j = teq.linear_forward %x, %w config(#teq.linear<name = "default">) : tensor<64x128xbf16>, tensor<256x128xbf16> -> tensor<64x256xbf16> saved_input(tensor<64x128xbf16>) saved_weight(tensor<256x128xbf16>)
      teq.yield %out, %i, %j : tensor<64x256xbf16>, tensor<64x128xbf16>, tensor<256x128xbf16>
    }
    %b = teq.autocast recipe(#teq.nvfp4_block_scaling<disable_rht = true>) -> tensor<64x256xbf16> {
      %out = teq.linear_forward %x, %w config(#teq.linear<name = "no_rht">) : tensor<64x128xbf16>, tensor<256x128xbf16> -> tensor<64x256xbf16>
      teq.yield %out : tensor<64x256xbf16>
    }
    %c = teq.autocast recipe(#teq.nvfp4_block_scaling<disable_stochastic_rounding = true>) -> tensor<64x256xbf16> {
      %out = teq.linear_forward %x, %w config(#teq.linear<name = "no_sr">) : tensor<64x128xbf16>, tensor<256x128xbf16> -> tensor<64x256xbf16>
      teq.yield %out : tensor<64x256xbf16>
    }
    %d = teq.autocast recipe(#teq.nvfp4_block_scaling<disable_2d_quantization = true>) -> tensor<64x256xbf16> {
      %out = teq.linear_forward %x, %w config(#teq.linear<name = "no_2d">) : tensor<64x128xbf16>, tensor<256x128xbf16> -> tensor<64x256xbf16>
      teq.yield %out : tensor<64x256xbf16>
    }
    %e = teq.autocast recipe(#teq.nvfp4_block_scaling<disable_rht = true, disable_stochastic_rounding = true, disable_2d_quantization = true>) -> tensor<64x256xbf16> {
      %out = teq.linear_forward %x, %w config(#teq.linear<name = "plain">) : tensor<64x128xbf16>, tensor<256x128xbf16> -> tensor<64x256xbf16>
      teq.yield %out : tensor<64x256xbf16>
    }
    %dx, %dw = teq.linear_backward %dy, %sx, %sw rng_state(%rng : tensor<2xi64>) config(#teq.linear<name = "default">) : tensor<64x256xbf16>, tensor<64x128xbf16>, tensor<256x128xbf16> dgrad(tensor<64x128xbf16>) wgrad(tensor<256x128xbf16>)
    return %a, %b, %c, %d, %e, %dx, %dw : tensor<64x256xbf16>, tensor<64x256xbf16>, tensor<64x256xbf16>, tensor<64x256xbf16>, tensor<64x256xbf16>, tensor<64x128xbf16>, tensor<256x128xbf16>
  }
}

//===----------------------------------------------------------------------===//
// The default recipe of a region that names none (§1.8): MXFP8 where it is
// supported (10.x, 11.x), else Float8CurrentScaling from CC 12.0, else
// DelayedScaling.
//===----------------------------------------------------------------------===//

// -----

// CHECK-LABEL: func.func @default_sm90
// CHECK: teq.linear_forward {{.*}} state(
// CHECK-SAME: {quantization = #teq.linear_quantization<recipe = "DelayedScaling", input = #teq.float8_quantizer<f8E4M3FN>, weight = #teq.float8_quantizer<f8E4M3FN>, output = #teq.float8_quantizer<f8E4M3FN>, grad_output = #teq.float8_quantizer<f8E5M2>, grad_input = #teq.float8_quantizer<f8E5M2>, fprop_split_accumulator = false>}
module attributes {teq.target = #teq.target<sm_90>} {
  func.func @default_sm90(%x: tensor<64x128xbf16>, %w: tensor<256x128xbf16>, %s: tensor<3xf32>, %h: tensor<1024x3xf32>) -> tensor<64x256xbf16> {
    %y = teq.autocast -> tensor<64x256xbf16> {
      %o, %h2 = teq.linear_forward %x, %w state(%s, %h : tensor<3xf32>, tensor<1024x3xf32>) config(#teq.linear<>) : tensor<64x128xbf16>, tensor<256x128xbf16> -> tensor<64x256xbf16> updated_amax_history(tensor<1024x3xf32>)
      teq.yield %o : tensor<64x256xbf16>
    }
    return %y : tensor<64x256xbf16>
  }
}

// -----

// CHECK-LABEL: func.func @default_sm89
// CHECK: teq.linear_forward {{.*}} state(
// CHECK-SAME: {quantization = #teq.linear_quantization<recipe = "DelayedScaling", input = #teq.float8_quantizer<f8E4M3FN>, weight = #teq.float8_quantizer<f8E4M3FN>, output = #teq.float8_quantizer<f8E4M3FN>, grad_output = #teq.float8_quantizer<f8E5M2>, grad_input = #teq.float8_quantizer<f8E5M2>, fprop_split_accumulator = false>}
module attributes {teq.target = #teq.target<sm_89>} {
  func.func @default_sm89(%x: tensor<64x128xbf16>, %w: tensor<256x128xbf16>, %s: tensor<3xf32>, %h: tensor<1024x3xf32>) -> tensor<64x256xbf16> {
    %y = teq.autocast -> tensor<64x256xbf16> {
      %o, %h2 = teq.linear_forward %x, %w state(%s, %h : tensor<3xf32>, tensor<1024x3xf32>) config(#teq.linear<>) : tensor<64x128xbf16>, tensor<256x128xbf16> -> tensor<64x256xbf16> updated_amax_history(tensor<1024x3xf32>)
      teq.yield %o : tensor<64x256xbf16>
    }
    return %y : tensor<64x256xbf16>
  }
}

// -----

// CHECK-LABEL: func.func @default_sm100
// CHECK: teq.linear_forward
// CHECK-SAME: {quantization = #teq.linear_quantization<recipe = "MXFP8BlockScaling", input = #teq.mxfp8_quantizer<f8E4M3FN>, weight = #teq.mxfp8_quantizer<f8E4M3FN>, output = #teq.mxfp8_quantizer<f8E4M3FN>, grad_output = #teq.mxfp8_quantizer<f8E4M3FN>, grad_input = #teq.mxfp8_quantizer<f8E4M3FN>, fprop_split_accumulator = false>}
// CHECK: teq.linear_backward
// CHECK-SAME: {quantization = #teq.linear_quantization<recipe = "MXFP8BlockScaling", input = #teq.mxfp8_quantizer<f8E4M3FN>, weight = #teq.mxfp8_quantizer<f8E4M3FN>, output = #teq.mxfp8_quantizer<f8E4M3FN>, grad_output = #teq.mxfp8_quantizer<f8E4M3FN>, grad_input = #teq.mxfp8_quantizer<f8E4M3FN>, fprop_split_accumulator = false>}
module attributes {teq.target = #teq.target<sm_100>} {
  func.func @default_sm100(%x: tensor<64x128xbf16>, %w: tensor<256x128xbf16>, %dy: tensor<64x256xbf16>) -> (tensor<64x256xbf16>, tensor<64x128xbf16>, tensor<256x128xbf16>) {
    %y, %sx, %sw = teq.autocast -> tensor<64x256xbf16>, tensor<64x128xbf16>, tensor<256x128xbf16> {
      %out, %a, %b = teq.linear_forward %x, %w config(#teq.linear<>) : tensor<64x128xbf16>, tensor<256x128xbf16> -> tensor<64x256xbf16> saved_input(tensor<64x128xbf16>) saved_weight(tensor<256x128xbf16>)
      teq.yield %out, %a, %b : tensor<64x256xbf16>, tensor<64x128xbf16>, tensor<256x128xbf16>
    }
    %dx, %dw = teq.linear_backward %dy, %sx, %sw config(#teq.linear<>) : tensor<64x256xbf16>, tensor<64x128xbf16>, tensor<256x128xbf16> dgrad(tensor<64x128xbf16>) wgrad(tensor<256x128xbf16>)
    return %y, %dx, %dw : tensor<64x256xbf16>, tensor<64x128xbf16>, tensor<256x128xbf16>
  }
}

// -----

// CHECK-LABEL: func.func @default_sm110
// CHECK: teq.linear_forward
// CHECK-SAME: {quantization = #teq.linear_quantization<recipe = "MXFP8BlockScaling", input = #teq.mxfp8_quantizer<f8E4M3FN>, weight = #teq.mxfp8_quantizer<f8E4M3FN>, output = #teq.mxfp8_quantizer<f8E4M3FN>, grad_output = #teq.mxfp8_quantizer<f8E4M3FN>, grad_input = #teq.mxfp8_quantizer<f8E4M3FN>, fprop_split_accumulator = false>}
module attributes {teq.target = #teq.target<sm_110>} {
  func.func @default_sm110(%x: tensor<64x128xbf16>, %w: tensor<256x128xbf16>) -> tensor<64x256xbf16> {
    %y = teq.autocast -> tensor<64x256xbf16> {
      %out = teq.linear_forward %x, %w config(#teq.linear<>) : tensor<64x128xbf16>, tensor<256x128xbf16> -> tensor<64x256xbf16>
      teq.yield %out : tensor<64x256xbf16>
    }
    return %y : tensor<64x256xbf16>
  }
}

// -----

// CHECK-LABEL: func.func @default_sm120
// CHECK: teq.linear_forward
// CHECK-SAME: {quantization = #teq.linear_quantization<recipe = "Float8CurrentScaling", input = #teq.float8_current_scaling_quantizer<f8E4M3FN>, weight = #teq.float8_current_scaling_quantizer<f8E4M3FN>, output = #teq.float8_current_scaling_quantizer<f8E4M3FN>, grad_output = #teq.float8_current_scaling_quantizer<f8E5M2>, grad_input = #teq.float8_current_scaling_quantizer<f8E5M2>, fprop_split_accumulator = false>}
module attributes {teq.target = #teq.target<sm_120>} {
  func.func @default_sm120(%x: tensor<64x128xbf16>, %w: tensor<256x128xbf16>) -> tensor<64x256xbf16> {
    %y = teq.autocast -> tensor<64x256xbf16> {
      %out = teq.linear_forward %x, %w config(#teq.linear<>) : tensor<64x128xbf16>, tensor<256x128xbf16> -> tensor<64x256xbf16>
      teq.yield %out : tensor<64x256xbf16>
    }
    return %y : tensor<64x256xbf16>
  }
}

//===----------------------------------------------------------------------===//
// Nesting: the innermost region wins; enabled(false) means high precision.
//===----------------------------------------------------------------------===//

// -----

// CHECK-LABEL: func.func @nested
// CHECK-SAME: (%[[X:arg[0-9]+]]: tensor<64x128xbf16>, %[[W:arg[0-9]+]]: tensor<256x128xbf16>)
// CHECK-NEXT: %[[O1:[a-z0-9_]+]] = teq.linear_forward %[[X]], %[[W]] config(#teq.linear<name = "outer">)
// CHECK-SAME: {quantization = #teq.linear_quantization<recipe = "Float8CurrentScaling", input = #teq.float8_current_scaling_quantizer<f8E4M3FN>, weight = #teq.float8_current_scaling_quantizer<f8E4M3FN>, output = #teq.float8_current_scaling_quantizer<f8E4M3FN>, grad_output = #teq.float8_current_scaling_quantizer<f8E5M2>, grad_input = #teq.float8_current_scaling_quantizer<f8E5M2>, fprop_split_accumulator = false>}
// CHECK-NEXT: %[[O2:[a-z0-9_]+]] = teq.linear_forward %[[X]], %[[W]] config(#teq.linear<name = "inner">)
// CHECK-SAME: {quantization = #teq.linear_quantization<recipe = "Float8BlockScaling", input = #teq.float8_block_quantizer<f8E4M3FN, block_scaling_dim = 1>, weight = #teq.float8_block_quantizer<f8E4M3FN>, output = #teq.float8_block_quantizer<f8E4M3FN, block_scaling_dim = 1>, grad_output = #teq.float8_block_quantizer<f8E4M3FN, block_scaling_dim = 1>, grad_input = #teq.float8_block_quantizer<f8E4M3FN, block_scaling_dim = 1>>}
// CHECK-NEXT: %[[O3:[a-z0-9_]+]] = teq.linear_forward %[[X]], %[[W]] config(#teq.linear<name = "off">)
// CHECK-SAME: {quantization = #teq.linear_quantization<recipe = "high_precision">}
// CHECK-NEXT: %[[O4:[a-z0-9_]+]] = teq.linear_forward %[[X]], %[[W]] config(#teq.linear<name = "off_default">)
// CHECK-SAME: {quantization = #teq.linear_quantization<recipe = "high_precision">}
// CHECK-NEXT: %[[O5:[a-z0-9_]+]] = teq.linear_forward %[[X]], %[[W]] config(#teq.linear<name = "on_again">)
// CHECK-SAME: {quantization = #teq.linear_quantization<recipe = "Float8BlockScaling", input = #teq.float8_block_quantizer<f8E4M3FN, block_scaling_dim = 1>, weight = #teq.float8_block_quantizer<f8E4M3FN>, output = #teq.float8_block_quantizer<f8E4M3FN, block_scaling_dim = 1>, grad_output = #teq.float8_block_quantizer<f8E4M3FN, block_scaling_dim = 1>, grad_input = #teq.float8_block_quantizer<f8E4M3FN, block_scaling_dim = 1>>}
// CHECK-NEXT: %[[O6:[a-z0-9_]+]] = teq.linear_forward %[[X]], %[[W]] config(#teq.linear<name = "after">)
// CHECK-SAME: {quantization = #teq.linear_quantization<recipe = "Float8CurrentScaling", input = #teq.float8_current_scaling_quantizer<f8E4M3FN>, weight = #teq.float8_current_scaling_quantizer<f8E4M3FN>, output = #teq.float8_current_scaling_quantizer<f8E4M3FN>, grad_output = #teq.float8_current_scaling_quantizer<f8E5M2>, grad_input = #teq.float8_current_scaling_quantizer<f8E5M2>, fprop_split_accumulator = false>}
// CHECK-NEXT: %[[O7:[a-z0-9_]+]] = teq.linear_forward %[[X]], %[[W]] config(#teq.linear<name = "outside">)
// CHECK-SAME: {quantization = #teq.linear_quantization<recipe = "high_precision">}
// CHECK-NEXT: return %[[O1]], %[[O2]], %[[O3]], %[[O4]], %[[O5]], %[[O6]], %[[O7]] :
module attributes {teq.target = #teq.target<sm_90>} {
  func.func @nested(%x: tensor<64x128xbf16>, %w: tensor<256x128xbf16>) -> (tensor<64x256xbf16>, tensor<64x256xbf16>, tensor<64x256xbf16>, tensor<64x256xbf16>, tensor<64x256xbf16>, tensor<64x256xbf16>, tensor<64x256xbf16>) {
    %r:6 = teq.autocast recipe(#teq.float8_current_scaling<>) -> tensor<64x256xbf16>, tensor<64x256xbf16>, tensor<64x256xbf16>, tensor<64x256xbf16>, tensor<64x256xbf16>, tensor<64x256xbf16> {
      %o1 = teq.linear_forward %x, %w config(#teq.linear<name = "outer">) : tensor<64x128xbf16>, tensor<256x128xbf16> -> tensor<64x256xbf16>
      %o2 = teq.autocast recipe(#teq.float8_block_scaling<>) -> tensor<64x256xbf16> {
        %i = teq.linear_forward %x, %w config(#teq.linear<name = "inner">) : tensor<64x128xbf16>, tensor<256x128xbf16> -> tensor<64x256xbf16>
        teq.yield %i : tensor<64x256xbf16>
      }
      // Disabled with a recipe, and disabled without one.
      %o3 = teq.autocast recipe(#teq.float8_block_scaling<>) enabled(false) -> tensor<64x256xbf16> {
        %i = teq.linear_forward %x, %w config(#teq.linear<name = "off">) : tensor<64x128xbf16>, tensor<256x128xbf16> -> tensor<64x256xbf16>
        teq.yield %i : tensor<64x256xbf16>
      }
      %o4, %o5 = teq.autocast enabled(false) -> tensor<64x256xbf16>, tensor<64x256xbf16> {
        %i = teq.linear_forward %x, %w config(#teq.linear<name = "off_default">) : tensor<64x128xbf16>, tensor<256x128xbf16> -> tensor<64x256xbf16>
        // Enabled again inside the disabled region.
        %j = teq.autocast recipe(#teq.float8_block_scaling<>) -> tensor<64x256xbf16> {
          %k = teq.linear_forward %x, %w config(#teq.linear<name = "on_again">) : tensor<64x128xbf16>, tensor<256x128xbf16> -> tensor<64x256xbf16>
          teq.yield %k : tensor<64x256xbf16>
        }
        teq.yield %i, %j : tensor<64x256xbf16>, tensor<64x256xbf16>
      }
      %o6 = teq.linear_forward %x, %w config(#teq.linear<name = "after">) : tensor<64x128xbf16>, tensor<256x128xbf16> -> tensor<64x256xbf16>
      teq.yield %o1, %o2, %o3, %o4, %o5, %o6 : tensor<64x256xbf16>, tensor<64x256xbf16>, tensor<64x256xbf16>, tensor<64x256xbf16>, tensor<64x256xbf16>, tensor<64x256xbf16>
    }
    %o7 = teq.linear_forward %x, %w config(#teq.linear<name = "outside">) : tensor<64x128xbf16>, tensor<256x128xbf16> -> tensor<64x256xbf16>
    return %r#0, %r#1, %r#2, %r#3, %r#4, %r#5, %o7 : tensor<64x256xbf16>, tensor<64x256xbf16>, tensor<64x256xbf16>, tensor<64x256xbf16>, tensor<64x256xbf16>, tensor<64x256xbf16>, tensor<64x256xbf16>
  }
}

// -----

// A region without results, and an empty one, disappear too; ops keep their
// order.
// CHECK-LABEL: func.func @no_results
// CHECK-NEXT: teq.linear_forward {{.*}} config(#teq.linear<name = "a">)
// CHECK-SAME: recipe = "MXFP8BlockScaling"
// CHECK-NEXT: teq.linear_forward {{.*}} config(#teq.linear<name = "b">)
// CHECK-SAME: recipe = "high_precision"
// CHECK-NEXT: return
module attributes {teq.target = #teq.target<sm_100>} {
  func.func @no_results(%x: tensor<64x128xbf16>, %w: tensor<256x128xbf16>) {
    teq.autocast recipe(#teq.mxfp8_block_scaling<>) {
      %o = teq.linear_forward %x, %w config(#teq.linear<name = "a">) : tensor<64x128xbf16>, tensor<256x128xbf16> -> tensor<64x256xbf16>
    }
    teq.autocast {
    }
    %o2 = teq.linear_forward %x, %w config(#teq.linear<name = "b">) : tensor<64x128xbf16>, tensor<256x128xbf16> -> tensor<64x256xbf16>
    return
  }
}

//===----------------------------------------------------------------------===//
// Backward ops run under their forward's recipe (TE captures it in forward),
// wherever they are.
//===----------------------------------------------------------------------===//

// -----

// CHECK-LABEL: func.func @backward_follows_forward
// CHECK-SAME: (%[[X:arg[0-9]+]]: tensor<64x128xbf16>, %[[W:arg[0-9]+]]: tensor<256x128xbf16>, %[[W2:arg[0-9]+]]: tensor<256x128xbf16>, %[[W3:arg[0-9]+]]: tensor<256x128xbf16>, %[[DY:arg[0-9]+]]: tensor<64x256xbf16>)
// Forward under MXFP8.
// CHECK-NEXT: %[[Y:[a-z0-9_]+]], %[[SX:[a-z0-9_]+]], %[[SW:[a-z0-9_]+]] = teq.linear_forward %[[X]], %[[W]] config(#teq.linear<name = "fc1">)
// CHECK-SAME: recipe = "MXFP8BlockScaling"
// Forward in a disabled region.
// CHECK-NEXT: teq.linear_forward %[[X]], %[[W2]] config(#teq.linear<name = "fc2">)
// CHECK-SAME: {quantization = #teq.linear_quantization<recipe = "high_precision">}
// Forward under current scaling whose saved tensors were deduplicated:
// backward reads the original %x and %w3.
// CHECK-NEXT: teq.linear_forward %[[X]], %[[W3]] config(#teq.linear<name = "fc3">)
// CHECK-SAME: recipe = "Float8CurrentScaling"
// fc1's backward sits in a current-scaling region: it still gets MXFP8.
// CHECK-NEXT: teq.linear_backward %[[DY]], %[[SX]], %[[SW]] config(#teq.linear<name = "fc1">)
// CHECK-SAME: {quantization = #teq.linear_quantization<recipe = "MXFP8BlockScaling", input = #teq.mxfp8_quantizer<f8E4M3FN>, weight = #teq.mxfp8_quantizer<f8E4M3FN>, output = #teq.mxfp8_quantizer<f8E4M3FN>, grad_output = #teq.mxfp8_quantizer<f8E4M3FN>, grad_input = #teq.mxfp8_quantizer<f8E4M3FN>, fprop_split_accumulator = false>}
// fc2's backward in the same region stays in high precision.
// CHECK-NEXT: teq.linear_backward %[[DY]], %{{.*}}, %{{.*}} config(#teq.linear<name = "fc2">)
// CHECK-SAME: {quantization = #teq.linear_quantization<recipe = "high_precision">}
// fc3's backward, outside any region, finds its forward through the weight.
// CHECK-NEXT: teq.linear_backward %[[DY]], %[[X]], %[[W3]] config(#teq.linear<name = "fc3">)
// CHECK-SAME: {quantization = #teq.linear_quantization<recipe = "Float8CurrentScaling", input = #teq.float8_current_scaling_quantizer<f8E4M3FN>, weight = #teq.float8_current_scaling_quantizer<f8E4M3FN>, output = #teq.float8_current_scaling_quantizer<f8E4M3FN>, grad_output = #teq.float8_current_scaling_quantizer<f8E5M2>, grad_input = #teq.float8_current_scaling_quantizer<f8E5M2>, fprop_split_accumulator = false>}
// A backward with no forward in the function uses its own region: none here.
// CHECK-NEXT: teq.linear_backward %[[DY]], %[[X]], %[[W]] config(#teq.linear<name = "orphan">)
// CHECK-SAME: {quantization = #teq.linear_quantization<recipe = "high_precision">}
module attributes {teq.target = #teq.target<sm_100>} {
  func.func @backward_follows_forward(%x: tensor<64x128xbf16>, %w: tensor<256x128xbf16>, %w2: tensor<256x128xbf16>, %w3: tensor<256x128xbf16>, %dy: tensor<64x256xbf16>) -> (tensor<64x256xbf16>, tensor<64x256xbf16>, tensor<64x256xbf16>, tensor<64x128xbf16>, tensor<256x128xbf16>, tensor<64x128xbf16>, tensor<256x128xbf16>, tensor<64x128xbf16>, tensor<256x128xbf16>, tensor<64x128xbf16>, tensor<256x128xbf16>) {
    %y, %sx, %sw = teq.autocast recipe(#teq.mxfp8_block_scaling<>) -> tensor<64x256xbf16>, tensor<64x128xbf16>, tensor<256x128xbf16> {
      %o, %a, %b = teq.linear_forward %x, %w config(#teq.linear<name = "fc1">) : tensor<64x128xbf16>, tensor<256x128xbf16> -> tensor<64x256xbf16> saved_input(tensor<64x128xbf16>) saved_weight(tensor<256x128xbf16>)
      teq.yield %o, %a, %b : tensor<64x256xbf16>, tensor<64x128xbf16>, tensor<256x128xbf16>
    }
    %y2, %sx2, %sw2 = teq.autocast recipe(#teq.mxfp8_block_scaling<>) enabled(false) -> tensor<64x256xbf16>, tensor<64x128xbf16>, tensor<256x128xbf16> {
      %o, %a, %b = teq.linear_forward %x, %w2 config(#teq.linear<name = "fc2">) : tensor<64x128xbf16>, tensor<256x128xbf16> -> tensor<64x256xbf16> saved_input(tensor<64x128xbf16>) saved_weight(tensor<256x128xbf16>)
      teq.yield %o, %a, %b : tensor<64x256xbf16>, tensor<64x128xbf16>, tensor<256x128xbf16>
    }
    %y3 = teq.autocast recipe(#teq.float8_current_scaling<>) -> tensor<64x256xbf16> {
      %o = teq.linear_forward %x, %w3 config(#teq.linear<name = "fc3">) : tensor<64x128xbf16>, tensor<256x128xbf16> -> tensor<64x256xbf16>
      teq.yield %o : tensor<64x256xbf16>
    }
    %dx, %dw, %dx2, %dw2 = teq.autocast recipe(#teq.float8_current_scaling<>) -> tensor<64x128xbf16>, tensor<256x128xbf16>, tensor<64x128xbf16>, tensor<256x128xbf16> {
      %a, %b = teq.linear_backward %dy, %sx, %sw config(#teq.linear<name = "fc1">) : tensor<64x256xbf16>, tensor<64x128xbf16>, tensor<256x128xbf16> dgrad(tensor<64x128xbf16>) wgrad(tensor<256x128xbf16>)
      %c, %d = teq.linear_backward %dy, %sx2, %sw2 config(#teq.linear<name = "fc2">) : tensor<64x256xbf16>, tensor<64x128xbf16>, tensor<256x128xbf16> dgrad(tensor<64x128xbf16>) wgrad(tensor<256x128xbf16>)
      teq.yield %a, %b, %c, %d : tensor<64x128xbf16>, tensor<256x128xbf16>, tensor<64x128xbf16>, tensor<256x128xbf16>
    }
    %dx3, %dw3 = teq.linear_backward %dy, %x, %w3 config(#teq.linear<name = "fc3">) : tensor<64x256xbf16>, tensor<64x128xbf16>, tensor<256x128xbf16> dgrad(tensor<64x128xbf16>) wgrad(tensor<256x128xbf16>)
    %dx4, %dw4 = teq.linear_backward %dy, %x, %w config(#teq.linear<name = "orphan">) : tensor<64x256xbf16>, tensor<64x128xbf16>, tensor<256x128xbf16> dgrad(tensor<64x128xbf16>) wgrad(tensor<256x128xbf16>)
    return %y, %y2, %y3, %dx, %dw, %dx2, %dw2, %dx3, %dw3, %dx4, %dw4 : tensor<64x256xbf16>, tensor<64x256xbf16>, tensor<64x256xbf16>, tensor<64x128xbf16>, tensor<256x128xbf16>, tensor<64x128xbf16>, tensor<256x128xbf16>, tensor<64x128xbf16>, tensor<256x128xbf16>, tensor<64x128xbf16>, tensor<256x128xbf16>
  }
}

// -----

// A backward op with no forward, inside a region, runs under that region.
// CHECK-LABEL: func.func @backward_alone
// CHECK-NEXT: teq.linear_backward
// CHECK-SAME: {quantization = #teq.linear_quantization<recipe = "NVFP4BlockScaling", input = #teq.nvfp4_quantizer<f4E2M1FN, with_rht = true, with_post_rht_amax = true>, weight = #teq.nvfp4_quantizer<f4E2M1FN, with_2d_quantization = true>, output = #teq.nvfp4_quantizer<f4E2M1FN, with_rht = true, with_post_rht_amax = true>, grad_output = #teq.nvfp4_quantizer<f4E2M1FN, with_rht = true, with_post_rht_amax = true, stochastic_rounding = true>, grad_input = #teq.nvfp4_quantizer<f4E2M1FN, with_rht = true, with_post_rht_amax = true, stochastic_rounding = true>>}
module attributes {teq.target = #teq.target<sm_100>} {
  func.func @backward_alone(%x: tensor<64x128xbf16>, %w: tensor<256x128xbf16>, %dy: tensor<64x256xbf16>, %rng: tensor<2xi64>) -> (tensor<64x128xbf16>, tensor<256x128xbf16>) {
    %dx, %dw = teq.autocast recipe(#teq.nvfp4_block_scaling<>) -> tensor<64x128xbf16>, tensor<256x128xbf16> {
      %a, %b = teq.linear_backward %dy, %x, %w rng_state(%rng : tensor<2xi64>) config(#teq.linear<>) : tensor<64x256xbf16>, tensor<64x128xbf16>, tensor<256x128xbf16> dgrad(tensor<64x128xbf16>) wgrad(tensor<256x128xbf16>)
      teq.yield %a, %b : tensor<64x128xbf16>, tensor<256x128xbf16>
    }
    return %dx, %dw : tensor<64x128xbf16>, tensor<256x128xbf16>
  }
}

//===----------------------------------------------------------------------===//
// Custom recipes (§1.7): the first matching rule gives each role's quantizer;
// the module split defaults apply (fprop off).
//===----------------------------------------------------------------------===//

// -----

// A DelayedScalingRequest becomes a stateful Float8Quantizer of the request's
// format: E4M3 forward, E5M2 backward under HYBRID.
// CHECK-LABEL: func.func @custom_request
// CHECK: teq.linear_forward {{.*}} config(#teq.linear<name = "fc1">)
// CHECK-SAME: {quantization = #teq.linear_quantization<recipe = "CustomRecipe", input = #teq.float8_current_scaling_quantizer<f8E4M3FN>, weight = #teq.float8_quantizer<f8E4M3FN>, output = #teq.float8_current_scaling_quantizer<f8E4M3FN>, grad_output = #teq.float8_quantizer<f8E5M2>, grad_input = #teq.float8_current_scaling_quantizer<f8E4M3FN>, fprop_split_accumulator = false>}
module attributes {teq.target = #teq.target<sm_90>} {
  func.func @custom_request(%x: tensor<64x128xbf16>, %w: tensor<256x128xbf16>, %s: tensor<3xf32>, %h: tensor<16x3xf32>) -> tensor<64x256xbf16> {
    %y = teq.autocast recipe(#teq.custom_recipe<[<tensor_type = weight> -> #teq.delayed_scaling_request<amax_history_len = 16>, <tensor_type = grad_output> -> #teq.delayed_scaling_request<amax_history_len = 16>, <> -> #teq.float8_current_scaling_quantizer<f8E4M3FN>]>) -> tensor<64x256xbf16> {
      %o, %h2 = teq.linear_forward %x, %w state(%s, %h : tensor<3xf32>, tensor<16x3xf32>) config(#teq.linear<name = "fc1">) : tensor<64x128xbf16>, tensor<256x128xbf16> -> tensor<64x256xbf16> updated_amax_history(tensor<16x3xf32>)
      teq.yield %o : tensor<64x256xbf16>
    }
    return %y : tensor<64x256xbf16>
  }
}

// -----

// TE's test of nested custom recipes: three regions, each with its own
// role -> quantizer rules, and rules of the two inner recipes name only their
// own Linear. Each Linear gets its own recipe's quantizers in forward and in
// backward, whether backward runs outside every region (@three_custom) or
// inside the innermost one (@three_custom_backward_inside).
// CHECK-LABEL: func.func @three_custom
// CHECK-SAME: (%[[X:arg[0-9]+]]: tensor<64x128xbf16>, %[[W1:arg[0-9]+]]: tensor<128x128xbf16>, %[[W2:arg[0-9]+]]: tensor<128x128xbf16>, %[[W3:arg[0-9]+]]: tensor<256x128xbf16>, %[[DY:arg[0-9]+]]: tensor<64x256xbf16>, %[[RNG:arg[0-9]+]]: tensor<2xi64>)
// CHECK-NEXT: %[[H1:[a-z0-9_]+]], %[[S1X:[a-z0-9_]+]], %[[S1W:[a-z0-9_]+]] = teq.linear_forward %[[X]], %[[W1]] config(#teq.linear<name = "fc1">)
// CHECK-SAME: {quantization = #teq.linear_quantization<recipe = "CustomRecipe", input = #teq.float8_current_scaling_quantizer<f8E4M3FN>, weight = #teq.float8_current_scaling_quantizer<f8E4M3FN>, output = #teq.float8_current_scaling_quantizer<f8E4M3FN>, grad_output = #teq.float8_current_scaling_quantizer<f8E5M2>, grad_input = #teq.float8_current_scaling_quantizer<f8E5M2>, fprop_split_accumulator = false>}
// CHECK-NEXT: %[[H2:[a-z0-9_]+]], %[[S2X:[a-z0-9_]+]], %[[S2W:[a-z0-9_]+]] = teq.linear_forward %[[H1]], %[[W2]] config(#teq.linear<name = "fc2">)
// CHECK-SAME: {quantization = #teq.linear_quantization<recipe = "CustomRecipe", input = #teq.mxfp8_quantizer<f8E4M3FN>, weight = #teq.mxfp8_quantizer<f8E4M3FN, with_2d_quantization = true>, output = #teq.mxfp8_quantizer<f8E4M3FN>, grad_output = #teq.mxfp8_quantizer<f8E5M2>, grad_input = #teq.mxfp8_quantizer<f8E4M3FN>, fprop_split_accumulator = false>}
// CHECK-NEXT: %[[Y:[a-z0-9_]+]], %[[S3X:[a-z0-9_]+]], %[[S3W:[a-z0-9_]+]] = teq.linear_forward %[[H2]], %[[W3]] config(#teq.linear<name = "fc3">)
// CHECK-SAME: {quantization = #teq.linear_quantization<recipe = "CustomRecipe", input = #teq.nvfp4_quantizer<f4E2M1FN>, weight = #teq.nvfp4_quantizer<f4E2M1FN, with_2d_quantization = true>, output = #teq.nvfp4_quantizer<f4E2M1FN>, grad_output = #teq.nvfp4_quantizer<f4E2M1FN, with_rht = true, with_post_rht_amax = true, stochastic_rounding = true>, grad_input = #teq.nvfp4_quantizer<f4E2M1FN>, fprop_split_accumulator = false>}
// CHECK-NEXT: %[[DH2:[a-z0-9_]+]], %[[DW3:[a-z0-9_]+]] = teq.linear_backward %[[DY]], %[[S3X]], %[[S3W]] rng_state(%[[RNG]] : tensor<2xi64>) config(#teq.linear<name = "fc3">)
// CHECK-SAME: {quantization = #teq.linear_quantization<recipe = "CustomRecipe", input = #teq.nvfp4_quantizer<f4E2M1FN>, weight = #teq.nvfp4_quantizer<f4E2M1FN, with_2d_quantization = true>, output = #teq.nvfp4_quantizer<f4E2M1FN>, grad_output = #teq.nvfp4_quantizer<f4E2M1FN, with_rht = true, with_post_rht_amax = true, stochastic_rounding = true>, grad_input = #teq.nvfp4_quantizer<f4E2M1FN>, fprop_split_accumulator = false>}
// CHECK-NEXT: %[[DH1:[a-z0-9_]+]], %[[DW2:[a-z0-9_]+]] = teq.linear_backward %[[DH2]], %[[S2X]], %[[S2W]] config(#teq.linear<name = "fc2">)
// CHECK-SAME: {quantization = #teq.linear_quantization<recipe = "CustomRecipe", input = #teq.mxfp8_quantizer<f8E4M3FN>, weight = #teq.mxfp8_quantizer<f8E4M3FN, with_2d_quantization = true>, output = #teq.mxfp8_quantizer<f8E4M3FN>, grad_output = #teq.mxfp8_quantizer<f8E5M2>, grad_input = #teq.mxfp8_quantizer<f8E4M3FN>, fprop_split_accumulator = false>}
// CHECK-NEXT: %[[DX:[a-z0-9_]+]], %[[DW1:[a-z0-9_]+]] = teq.linear_backward %[[DH1]], %[[S1X]], %[[S1W]] config(#teq.linear<name = "fc1">)
// CHECK-SAME: {quantization = #teq.linear_quantization<recipe = "CustomRecipe", input = #teq.float8_current_scaling_quantizer<f8E4M3FN>, weight = #teq.float8_current_scaling_quantizer<f8E4M3FN>, output = #teq.float8_current_scaling_quantizer<f8E4M3FN>, grad_output = #teq.float8_current_scaling_quantizer<f8E5M2>, grad_input = #teq.float8_current_scaling_quantizer<f8E5M2>, fprop_split_accumulator = false>}
// CHECK-NEXT: return %[[Y]], %[[DX]], %[[DW1]], %[[DW2]], %[[DW3]] :
module attributes {teq.target = #teq.target<sm_100>} {
  func.func @three_custom(%x: tensor<64x128xbf16>, %w1: tensor<128x128xbf16>, %w2: tensor<128x128xbf16>, %w3: tensor<256x128xbf16>, %dy: tensor<64x256xbf16>, %rng: tensor<2xi64>) -> (tensor<64x256xbf16>, tensor<64x128xbf16>, tensor<128x128xbf16>, tensor<128x128xbf16>, tensor<256x128xbf16>) {
    %s1x, %s1w, %s2x, %s2w, %y, %s3x, %s3w = teq.autocast recipe(#teq.custom_recipe<[<tensor_type = grad_output> -> #teq.float8_current_scaling_quantizer<f8E5M2>, <tensor_type = grad_input> -> #teq.float8_current_scaling_quantizer<f8E5M2>, <> -> #teq.float8_current_scaling_quantizer<f8E4M3FN>]>) -> tensor<64x128xbf16>, tensor<128x128xbf16>, tensor<64x128xbf16>, tensor<128x128xbf16>, tensor<64x256xbf16>, tensor<64x128xbf16>, tensor<256x128xbf16> {
      %h1, %a1, %b1 = teq.linear_forward %x, %w1 config(#teq.linear<name = "fc1">) : tensor<64x128xbf16>, tensor<128x128xbf16> -> tensor<64x128xbf16> saved_input(tensor<64x128xbf16>) saved_weight(tensor<128x128xbf16>)
      %a2, %b2, %o, %a3, %b3 = teq.autocast recipe(#teq.custom_recipe<[<tensor_type = weight, name = "fc2"> -> #teq.mxfp8_quantizer<f8E4M3FN, with_2d_quantization = true>, <tensor_type = grad_output, name = "fc2"> -> #teq.mxfp8_quantizer<f8E5M2>, <name = "fc2"> -> #teq.mxfp8_quantizer<f8E4M3FN>]>) -> tensor<64x128xbf16>, tensor<128x128xbf16>, tensor<64x256xbf16>, tensor<64x128xbf16>, tensor<256x128xbf16> {
        %h2, %c2, %d2 = teq.linear_forward %h1, %w2 config(#teq.linear<name = "fc2">) : tensor<64x128xbf16>, tensor<128x128xbf16> -> tensor<64x128xbf16> saved_input(tensor<64x128xbf16>) saved_weight(tensor<128x128xbf16>)
        %o3, %c3, %d3 = teq.autocast recipe(#teq.custom_recipe<[<module_type = "linear", tensor_type = weight, name = "fc3"> -> #teq.nvfp4_quantizer<f4E2M1FN, with_2d_quantization = true>, <module_type = "linear", tensor_type = grad_output, name = "fc3"> -> #teq.nvfp4_quantizer<f4E2M1FN, with_rht = true, with_post_rht_amax = true, stochastic_rounding = true>, <module_type = "linear", name = "fc3"> -> #teq.nvfp4_quantizer<f4E2M1FN>]>) -> tensor<64x256xbf16>, tensor<64x128xbf16>, tensor<256x128xbf16> {
          %y3, %e3, %f3 = teq.linear_forward %h2, %w3 config(#teq.linear<name = "fc3">) : tensor<64x128xbf16>, tensor<256x128xbf16> -> tensor<64x256xbf16> saved_input(tensor<64x128xbf16>) saved_weight(tensor<256x128xbf16>)
          teq.yield %y3, %e3, %f3 : tensor<64x256xbf16>, tensor<64x128xbf16>, tensor<256x128xbf16>
        }
        teq.yield %c2, %d2, %o3, %c3, %d3 : tensor<64x128xbf16>, tensor<128x128xbf16>, tensor<64x256xbf16>, tensor<64x128xbf16>, tensor<256x128xbf16>
      }
      teq.yield %a1, %b1, %a2, %b2, %o, %a3, %b3 : tensor<64x128xbf16>, tensor<128x128xbf16>, tensor<64x128xbf16>, tensor<128x128xbf16>, tensor<64x256xbf16>, tensor<64x128xbf16>, tensor<256x128xbf16>
    }
    %dh2, %dw3 = teq.linear_backward %dy, %s3x, %s3w rng_state(%rng : tensor<2xi64>) config(#teq.linear<name = "fc3">) : tensor<64x256xbf16>, tensor<64x128xbf16>, tensor<256x128xbf16> dgrad(tensor<64x128xbf16>) wgrad(tensor<256x128xbf16>)
    %dh1, %dw2 = teq.linear_backward %dh2, %s2x, %s2w config(#teq.linear<name = "fc2">) : tensor<64x128xbf16>, tensor<64x128xbf16>, tensor<128x128xbf16> dgrad(tensor<64x128xbf16>) wgrad(tensor<128x128xbf16>)
    %dx, %dw1 = teq.linear_backward %dh1, %s1x, %s1w config(#teq.linear<name = "fc1">) : tensor<64x128xbf16>, tensor<64x128xbf16>, tensor<128x128xbf16> dgrad(tensor<64x128xbf16>) wgrad(tensor<128x128xbf16>)
    return %y, %dx, %dw1, %dw2, %dw3 : tensor<64x256xbf16>, tensor<64x128xbf16>, tensor<128x128xbf16>, tensor<128x128xbf16>, tensor<256x128xbf16>
  }
}

// -----

// CHECK-LABEL: func.func @three_custom_backward_inside
// CHECK: teq.linear_forward {{.*}} config(#teq.linear<name = "fc1">)
// CHECK-SAME: {quantization = #teq.linear_quantization<recipe = "CustomRecipe", input = #teq.float8_current_scaling_quantizer<f8E4M3FN>,
// CHECK: teq.linear_forward {{.*}} config(#teq.linear<name = "fc2">)
// CHECK-SAME: {quantization = #teq.linear_quantization<recipe = "CustomRecipe", input = #teq.mxfp8_quantizer<f8E4M3FN>,
// CHECK: teq.linear_forward {{.*}} config(#teq.linear<name = "fc3">)
// CHECK-SAME: {quantization = #teq.linear_quantization<recipe = "CustomRecipe", input = #teq.nvfp4_quantizer<f4E2M1FN>,
// CHECK: teq.linear_backward {{.*}} config(#teq.linear<name = "fc3">)
// CHECK-SAME: {quantization = #teq.linear_quantization<recipe = "CustomRecipe", input = #teq.nvfp4_quantizer<f4E2M1FN>, weight = #teq.nvfp4_quantizer<f4E2M1FN, with_2d_quantization = true>, output = #teq.nvfp4_quantizer<f4E2M1FN>, grad_output = #teq.nvfp4_quantizer<f4E2M1FN, with_rht = true, with_post_rht_amax = true, stochastic_rounding = true>, grad_input = #teq.nvfp4_quantizer<f4E2M1FN>, fprop_split_accumulator = false>}
// CHECK: teq.linear_backward {{.*}} config(#teq.linear<name = "fc2">)
// CHECK-SAME: {quantization = #teq.linear_quantization<recipe = "CustomRecipe", input = #teq.mxfp8_quantizer<f8E4M3FN>, weight = #teq.mxfp8_quantizer<f8E4M3FN, with_2d_quantization = true>, output = #teq.mxfp8_quantizer<f8E4M3FN>, grad_output = #teq.mxfp8_quantizer<f8E5M2>, grad_input = #teq.mxfp8_quantizer<f8E4M3FN>, fprop_split_accumulator = false>}
// CHECK: teq.linear_backward {{.*}} config(#teq.linear<name = "fc1">)
// CHECK-SAME: {quantization = #teq.linear_quantization<recipe = "CustomRecipe", input = #teq.float8_current_scaling_quantizer<f8E4M3FN>, weight = #teq.float8_current_scaling_quantizer<f8E4M3FN>, output = #teq.float8_current_scaling_quantizer<f8E4M3FN>, grad_output = #teq.float8_current_scaling_quantizer<f8E5M2>, grad_input = #teq.float8_current_scaling_quantizer<f8E5M2>, fprop_split_accumulator = false>}
module attributes {teq.target = #teq.target<sm_100>} {
  func.func @three_custom_backward_inside(%x: tensor<64x128xbf16>, %w1: tensor<128x128xbf16>, %w2: tensor<128x128xbf16>, %w3: tensor<256x128xbf16>, %dy: tensor<64x256xbf16>, %rng: tensor<2xi64>) -> (tensor<64x256xbf16>, tensor<64x128xbf16>, tensor<128x128xbf16>, tensor<128x128xbf16>, tensor<256x128xbf16>) {
    %y, %dx, %dw1, %dw2, %dw3 = teq.autocast recipe(#teq.custom_recipe<[<tensor_type = grad_output> -> #teq.float8_current_scaling_quantizer<f8E5M2>, <tensor_type = grad_input> -> #teq.float8_current_scaling_quantizer<f8E5M2>, <> -> #teq.float8_current_scaling_quantizer<f8E4M3FN>]>) -> tensor<64x256xbf16>, tensor<64x128xbf16>, tensor<128x128xbf16>, tensor<128x128xbf16>, tensor<256x128xbf16> {
      %h1, %a1, %b1 = teq.linear_forward %x, %w1 config(#teq.linear<name = "fc1">) : tensor<64x128xbf16>, tensor<128x128xbf16> -> tensor<64x128xbf16> saved_input(tensor<64x128xbf16>) saved_weight(tensor<128x128xbf16>)
      %r:5 = teq.autocast recipe(#teq.custom_recipe<[<tensor_type = weight, name = "fc2"> -> #teq.mxfp8_quantizer<f8E4M3FN, with_2d_quantization = true>, <tensor_type = grad_output, name = "fc2"> -> #teq.mxfp8_quantizer<f8E5M2>, <name = "fc2"> -> #teq.mxfp8_quantizer<f8E4M3FN>]>) -> tensor<64x256xbf16>, tensor<64x128xbf16>, tensor<128x128xbf16>, tensor<128x128xbf16>, tensor<256x128xbf16> {
        %h2, %c2, %d2 = teq.linear_forward %h1, %w2 config(#teq.linear<name = "fc2">) : tensor<64x128xbf16>, tensor<128x128xbf16> -> tensor<64x128xbf16> saved_input(tensor<64x128xbf16>) saved_weight(tensor<128x128xbf16>)
        %q:5 = teq.autocast recipe(#teq.custom_recipe<[<module_type = "linear", tensor_type = weight, name = "fc3"> -> #teq.nvfp4_quantizer<f4E2M1FN, with_2d_quantization = true>, <module_type = "linear", tensor_type = grad_output, name = "fc3"> -> #teq.nvfp4_quantizer<f4E2M1FN, with_rht = true, with_post_rht_amax = true, stochastic_rounding = true>, <module_type = "linear", name = "fc3"> -> #teq.nvfp4_quantizer<f4E2M1FN>]>) -> tensor<64x256xbf16>, tensor<64x128xbf16>, tensor<128x128xbf16>, tensor<128x128xbf16>, tensor<256x128xbf16> {
          %y3, %e3, %f3 = teq.linear_forward %h2, %w3 config(#teq.linear<name = "fc3">) : tensor<64x128xbf16>, tensor<256x128xbf16> -> tensor<64x256xbf16> saved_input(tensor<64x128xbf16>) saved_weight(tensor<256x128xbf16>)
          %dh2, %g3 = teq.linear_backward %dy, %e3, %f3 rng_state(%rng : tensor<2xi64>) config(#teq.linear<name = "fc3">) : tensor<64x256xbf16>, tensor<64x128xbf16>, tensor<256x128xbf16> dgrad(tensor<64x128xbf16>) wgrad(tensor<256x128xbf16>)
          %dh1, %g2 = teq.linear_backward %dh2, %c2, %d2 config(#teq.linear<name = "fc2">) : tensor<64x128xbf16>, tensor<64x128xbf16>, tensor<128x128xbf16> dgrad(tensor<64x128xbf16>) wgrad(tensor<128x128xbf16>)
          %dx0, %g1 = teq.linear_backward %dh1, %a1, %b1 config(#teq.linear<name = "fc1">) : tensor<64x128xbf16>, tensor<64x128xbf16>, tensor<128x128xbf16> dgrad(tensor<64x128xbf16>) wgrad(tensor<128x128xbf16>)
          teq.yield %y3, %dx0, %g1, %g2, %g3 : tensor<64x256xbf16>, tensor<64x128xbf16>, tensor<128x128xbf16>, tensor<128x128xbf16>, tensor<256x128xbf16>
        }
        teq.yield %q#0, %q#1, %q#2, %q#3, %q#4 : tensor<64x256xbf16>, tensor<64x128xbf16>, tensor<128x128xbf16>, tensor<128x128xbf16>, tensor<256x128xbf16>
      }
      teq.yield %r#0, %r#1, %r#2, %r#3, %r#4 : tensor<64x256xbf16>, tensor<64x128xbf16>, tensor<128x128xbf16>, tensor<128x128xbf16>, tensor<256x128xbf16>
    }
    return %y, %dx, %dw1, %dw2, %dw3 : tensor<64x256xbf16>, tensor<64x128xbf16>, tensor<128x128xbf16>, tensor<128x128xbf16>, tensor<256x128xbf16>
  }
}

//===----------------------------------------------------------------------===//
// Amax reduction over the TP group (§7): the input of a column-parallel
// sequence-parallel Linear and the grad_output of a row-parallel one, under
// current scaling and NVFP4.
//===----------------------------------------------------------------------===//

// -----

// CHECK-LABEL: func.func @amax_reduction_current
// Column + SP: the input reduces.
// CHECK: teq.linear_forward {{.*}} config(#teq.linear<parallel_mode = column, sequence_parallel = true, tp_size = 2, name = "col">)
// CHECK-SAME: {quantization = #teq.linear_quantization<recipe = "Float8CurrentScaling", input = #teq.float8_current_scaling_quantizer<f8E4M3FN, with_amax_reduction = true>, weight = #teq.float8_current_scaling_quantizer<f8E4M3FN>, output = #teq.float8_current_scaling_quantizer<f8E4M3FN>, grad_output = #teq.float8_current_scaling_quantizer<f8E5M2>, grad_input = #teq.float8_current_scaling_quantizer<f8E5M2>, fprop_split_accumulator = false>}
// Row + SP: the grad_output reduces.
// CHECK: teq.linear_forward {{.*}} config(#teq.linear<parallel_mode = row, sequence_parallel = true, tp_size = 2, name = "row">)
// CHECK-SAME: {quantization = #teq.linear_quantization<recipe = "Float8CurrentScaling", input = #teq.float8_current_scaling_quantizer<f8E4M3FN>, weight = #teq.float8_current_scaling_quantizer<f8E4M3FN>, output = #teq.float8_current_scaling_quantizer<f8E4M3FN>, grad_output = #teq.float8_current_scaling_quantizer<f8E5M2, with_amax_reduction = true>, grad_input = #teq.float8_current_scaling_quantizer<f8E5M2>, fprop_split_accumulator = false>}
// Without sequence parallelism nothing reduces.
// CHECK: teq.linear_forward {{.*}} config(#teq.linear<parallel_mode = column, tp_size = 2, name = "col_nosp">)
// CHECK-SAME: {quantization = #teq.linear_quantization<recipe = "Float8CurrentScaling", input = #teq.float8_current_scaling_quantizer<f8E4M3FN>, weight = #teq.float8_current_scaling_quantizer<f8E4M3FN>, output = #teq.float8_current_scaling_quantizer<f8E4M3FN>, grad_output = #teq.float8_current_scaling_quantizer<f8E5M2>, grad_input = #teq.float8_current_scaling_quantizer<f8E5M2>, fprop_split_accumulator = false>}
// sequence_parallel has no effect at tp_size = 1.
// CHECK: teq.linear_forward {{.*}} config(#teq.linear<parallel_mode = column, sequence_parallel = true, name = "col_tp1">)
// CHECK-SAME: {quantization = #teq.linear_quantization<recipe = "Float8CurrentScaling", input = #teq.float8_current_scaling_quantizer<f8E4M3FN>, weight = #teq.float8_current_scaling_quantizer<f8E4M3FN>, output = #teq.float8_current_scaling_quantizer<f8E4M3FN>, grad_output = #teq.float8_current_scaling_quantizer<f8E5M2>, grad_input = #teq.float8_current_scaling_quantizer<f8E5M2>, fprop_split_accumulator = false>}
// The backward ops, outside the region, carry the same quantizers.
// CHECK: teq.linear_backward {{.*}} config(#teq.linear<parallel_mode = column, sequence_parallel = true, tp_size = 2, name = "col">)
// CHECK-SAME: {quantization = #teq.linear_quantization<recipe = "Float8CurrentScaling", input = #teq.float8_current_scaling_quantizer<f8E4M3FN, with_amax_reduction = true>, weight = #teq.float8_current_scaling_quantizer<f8E4M3FN>, output = #teq.float8_current_scaling_quantizer<f8E4M3FN>, grad_output = #teq.float8_current_scaling_quantizer<f8E5M2>, grad_input = #teq.float8_current_scaling_quantizer<f8E5M2>, fprop_split_accumulator = false>}
// CHECK: teq.linear_backward {{.*}} config(#teq.linear<parallel_mode = row, sequence_parallel = true, tp_size = 2, name = "row">)
// CHECK-SAME: {quantization = #teq.linear_quantization<recipe = "Float8CurrentScaling", input = #teq.float8_current_scaling_quantizer<f8E4M3FN>, weight = #teq.float8_current_scaling_quantizer<f8E4M3FN>, output = #teq.float8_current_scaling_quantizer<f8E4M3FN>, grad_output = #teq.float8_current_scaling_quantizer<f8E5M2, with_amax_reduction = true>, grad_input = #teq.float8_current_scaling_quantizer<f8E5M2>, fprop_split_accumulator = false>}
module attributes {teq.target = #teq.target<sm_90>} {
  func.func @amax_reduction_current(%tp: !teq.process_group, %xc: tensor<32x128xbf16>, %wc: tensor<128x128xbf16>, %dyc: tensor<64x128xbf16>, %xr: tensor<64x64xbf16>, %wr: tensor<256x64xbf16>, %dyr: tensor<32x256xbf16>, %x: tensor<64x128xbf16>) -> (tensor<64x128xbf16>, tensor<32x256xbf16>, tensor<64x128xbf16>, tensor<64x128xbf16>, tensor<32x128xbf16>, tensor<128x128xbf16>, tensor<64x64xbf16>, tensor<256x64xbf16>) {
    %yc, %sxc, %swc, %yr, %sxr, %swr, %y1, %y2 = teq.autocast recipe(#teq.float8_current_scaling<>) -> tensor<64x128xbf16>, tensor<32x128xbf16>, tensor<128x128xbf16>, tensor<32x256xbf16>, tensor<64x64xbf16>, tensor<256x64xbf16>, tensor<64x128xbf16>, tensor<64x128xbf16> {
      %o1, %a1, %b1 = teq.linear_forward %xc, %wc tp_group(%tp) config(#teq.linear<parallel_mode = column, sequence_parallel = true, tp_size = 2, name = "col">) : tensor<32x128xbf16>, tensor<128x128xbf16> -> tensor<64x128xbf16> saved_input(tensor<32x128xbf16>) saved_weight(tensor<128x128xbf16>)
      %o2, %a2, %b2 = teq.linear_forward %xr, %wr tp_group(%tp) config(#teq.linear<parallel_mode = row, sequence_parallel = true, tp_size = 2, name = "row">) : tensor<64x64xbf16>, tensor<256x64xbf16> -> tensor<32x256xbf16> saved_input(tensor<64x64xbf16>) saved_weight(tensor<256x64xbf16>)
      %o3 = teq.linear_forward %x, %wc tp_group(%tp) config(#teq.linear<parallel_mode = column, tp_size = 2, name = "col_nosp">) : tensor<64x128xbf16>, tensor<128x128xbf16> -> tensor<64x128xbf16>
      %o4 = teq.linear_forward %x, %wc config(#teq.linear<parallel_mode = column, sequence_parallel = true, tp_size = 1, name = "col_tp1">) : tensor<64x128xbf16>, tensor<128x128xbf16> -> tensor<64x128xbf16>
      teq.yield %o1, %a1, %b1, %o2, %a2, %b2, %o3, %o4 : tensor<64x128xbf16>, tensor<32x128xbf16>, tensor<128x128xbf16>, tensor<32x256xbf16>, tensor<64x64xbf16>, tensor<256x64xbf16>, tensor<64x128xbf16>, tensor<64x128xbf16>
    }
    %dxc, %dwc = teq.linear_backward %dyc, %sxc, %swc tp_group(%tp) config(#teq.linear<parallel_mode = column, sequence_parallel = true, tp_size = 2, name = "col">) : tensor<64x128xbf16>, tensor<32x128xbf16>, tensor<128x128xbf16> dgrad(tensor<32x128xbf16>) wgrad(tensor<128x128xbf16>)
    %dxr, %dwr = teq.linear_backward %dyr, %sxr, %swr tp_group(%tp) config(#teq.linear<parallel_mode = row, sequence_parallel = true, tp_size = 2, name = "row">) : tensor<32x256xbf16>, tensor<64x64xbf16>, tensor<256x64xbf16> dgrad(tensor<64x64xbf16>) wgrad(tensor<256x64xbf16>)
    return %yc, %yr, %y1, %y2, %dxc, %dwc, %dxr, %dwr : tensor<64x128xbf16>, tensor<32x256xbf16>, tensor<64x128xbf16>, tensor<64x128xbf16>, tensor<32x128xbf16>, tensor<128x128xbf16>, tensor<64x64xbf16>, tensor<256x64xbf16>
  }
}

// -----

// CHECK-LABEL: func.func @amax_reduction_nvfp4
// CHECK: teq.linear_forward {{.*}} config(#teq.linear<parallel_mode = column, sequence_parallel = true, tp_size = 2, name = "col">)
// CHECK-SAME: {quantization = #teq.linear_quantization<recipe = "NVFP4BlockScaling", input = #teq.nvfp4_quantizer<f4E2M1FN, with_amax_reduction = true, with_rht = true, with_post_rht_amax = true>, weight = #teq.nvfp4_quantizer<f4E2M1FN, with_2d_quantization = true>, output = #teq.nvfp4_quantizer<f4E2M1FN, with_rht = true, with_post_rht_amax = true>, grad_output = #teq.nvfp4_quantizer<f4E2M1FN, with_rht = true, with_post_rht_amax = true, stochastic_rounding = true>, grad_input = #teq.nvfp4_quantizer<f4E2M1FN, with_rht = true, with_post_rht_amax = true, stochastic_rounding = true>>}
// CHECK: teq.linear_forward {{.*}} config(#teq.linear<parallel_mode = row, sequence_parallel = true, tp_size = 2, name = "row">)
// CHECK-SAME: {quantization = #teq.linear_quantization<recipe = "NVFP4BlockScaling", input = #teq.nvfp4_quantizer<f4E2M1FN, with_rht = true, with_post_rht_amax = true>, weight = #teq.nvfp4_quantizer<f4E2M1FN, with_2d_quantization = true>, output = #teq.nvfp4_quantizer<f4E2M1FN, with_rht = true, with_post_rht_amax = true>, grad_output = #teq.nvfp4_quantizer<f4E2M1FN, with_amax_reduction = true, with_rht = true, with_post_rht_amax = true, stochastic_rounding = true>, grad_input = #teq.nvfp4_quantizer<f4E2M1FN, with_rht = true, with_post_rht_amax = true, stochastic_rounding = true>>}
// CHECK: teq.linear_backward {{.*}} config(#teq.linear<parallel_mode = column, sequence_parallel = true, tp_size = 2, name = "col">)
// CHECK-SAME: input = #teq.nvfp4_quantizer<f4E2M1FN, with_amax_reduction = true, with_rht = true, with_post_rht_amax = true>,
// CHECK: teq.linear_backward {{.*}} config(#teq.linear<parallel_mode = row, sequence_parallel = true, tp_size = 2, name = "row">)
// CHECK-SAME: grad_output = #teq.nvfp4_quantizer<f4E2M1FN, with_amax_reduction = true, with_rht = true, with_post_rht_amax = true, stochastic_rounding = true>,
module attributes {teq.target = #teq.target<sm_100>} {
  func.func @amax_reduction_nvfp4(%tp: !teq.process_group, %xc: tensor<32x128xbf16>, %wc: tensor<128x128xbf16>, %dyc: tensor<64x128xbf16>, %xr: tensor<64x64xbf16>, %wr: tensor<256x64xbf16>, %dyr: tensor<32x256xbf16>, %rng: tensor<2xi64>, %rng2: tensor<2xi64>) -> (tensor<64x128xbf16>, tensor<32x256xbf16>, tensor<32x128xbf16>, tensor<128x128xbf16>, tensor<64x64xbf16>, tensor<256x64xbf16>) {
    %yc, %sxc, %swc, %yr, %sxr, %swr = teq.autocast recipe(#teq.nvfp4_block_scaling<>) -> tensor<64x128xbf16>, tensor<32x128xbf16>, tensor<128x128xbf16>, tensor<32x256xbf16>, tensor<64x64xbf16>, tensor<256x64xbf16> {
      %o1, %a1, %b1 = teq.linear_forward %xc, %wc tp_group(%tp) config(#teq.linear<parallel_mode = column, sequence_parallel = true, tp_size = 2, name = "col">) : tensor<32x128xbf16>, tensor<128x128xbf16> -> tensor<64x128xbf16> saved_input(tensor<32x128xbf16>) saved_weight(tensor<128x128xbf16>)
      %o2, %a2, %b2 = teq.linear_forward %xr, %wr tp_group(%tp) config(#teq.linear<parallel_mode = row, sequence_parallel = true, tp_size = 2, name = "row">) : tensor<64x64xbf16>, tensor<256x64xbf16> -> tensor<32x256xbf16> saved_input(tensor<64x64xbf16>) saved_weight(tensor<256x64xbf16>)
      teq.yield %o1, %a1, %b1, %o2, %a2, %b2 : tensor<64x128xbf16>, tensor<32x128xbf16>, tensor<128x128xbf16>, tensor<32x256xbf16>, tensor<64x64xbf16>, tensor<256x64xbf16>
    }
    %dxc, %dwc = teq.linear_backward %dyc, %sxc, %swc rng_state(%rng : tensor<2xi64>) tp_group(%tp) config(#teq.linear<parallel_mode = column, sequence_parallel = true, tp_size = 2, name = "col">) : tensor<64x128xbf16>, tensor<32x128xbf16>, tensor<128x128xbf16> dgrad(tensor<32x128xbf16>) wgrad(tensor<128x128xbf16>)
    %dxr, %dwr = teq.linear_backward %dyr, %sxr, %swr rng_state(%rng2 : tensor<2xi64>) tp_group(%tp) config(#teq.linear<parallel_mode = row, sequence_parallel = true, tp_size = 2, name = "row">) : tensor<32x256xbf16>, tensor<64x64xbf16>, tensor<256x64xbf16> dgrad(tensor<64x64xbf16>) wgrad(tensor<256x64xbf16>)
    return %yc, %yr, %dxc, %dwc, %dxr, %dwr : tensor<64x128xbf16>, tensor<32x256xbf16>, tensor<32x128xbf16>, tensor<128x128xbf16>, tensor<64x64xbf16>, tensor<256x64xbf16>
  }
}

// -----

// Other recipes' quantizers have no amax reduction: MXFP8 under column + SP
// is unchanged.
// CHECK-LABEL: func.func @amax_reduction_mxfp8
// CHECK: teq.linear_forward {{.*}} config(#teq.linear<parallel_mode = column, sequence_parallel = true, tp_size = 2>)
// CHECK-SAME: {quantization = #teq.linear_quantization<recipe = "MXFP8BlockScaling", input = #teq.mxfp8_quantizer<f8E4M3FN>, weight = #teq.mxfp8_quantizer<f8E4M3FN>, output = #teq.mxfp8_quantizer<f8E4M3FN>, grad_output = #teq.mxfp8_quantizer<f8E4M3FN>, grad_input = #teq.mxfp8_quantizer<f8E4M3FN>, fprop_split_accumulator = false>}
module attributes {teq.target = #teq.target<sm_100>} {
  func.func @amax_reduction_mxfp8(%tp: !teq.process_group, %xc: tensor<32x128xbf16>, %wc: tensor<128x128xbf16>) -> tensor<64x128xbf16> {
    %y = teq.autocast recipe(#teq.mxfp8_block_scaling<>) -> tensor<64x128xbf16> {
      %o = teq.linear_forward %xc, %wc tp_group(%tp) config(#teq.linear<parallel_mode = column, sequence_parallel = true, tp_size = 2>) : tensor<32x128xbf16>, tensor<128x128xbf16> -> tensor<64x128xbf16>
      teq.yield %o : tensor<64x128xbf16>
    }
    return %y : tensor<64x128xbf16>
  }
}

// -----

// Outside any region a Linear runs in high precision: no quantizer, every
// split flag at its default.
// CHECK-LABEL: func.func @no_region
// CHECK-NEXT: teq.linear_forward {{.*}} {quantization = #teq.linear_quantization<recipe = "high_precision">} :
// CHECK-NEXT: teq.linear_backward {{.*}} {quantization = #teq.linear_quantization<recipe = "high_precision">} :
module attributes {teq.target = #teq.target<sm_100>} {
  func.func @no_region(%x: tensor<64x128xbf16>, %w: tensor<256x128xbf16>, %dy: tensor<64x256xbf16>) -> (tensor<64x256xbf16>, tensor<64x128xbf16>, tensor<256x128xbf16>) {
    %y, %sx, %sw = teq.linear_forward %x, %w config(#teq.linear<>) : tensor<64x128xbf16>, tensor<256x128xbf16> -> tensor<64x256xbf16> saved_input(tensor<64x128xbf16>) saved_weight(tensor<256x128xbf16>)
    %dx, %dw = teq.linear_backward %dy, %sx, %sw config(#teq.linear<>) : tensor<64x256xbf16>, tensor<64x128xbf16>, tensor<256x128xbf16> dgrad(tensor<64x128xbf16>) wgrad(tensor<256x128xbf16>)
    return %y, %dx, %dw : tensor<64x256xbf16>, tensor<64x128xbf16>, tensor<256x128xbf16>
  }
}

//--- errors.mlir

// A custom recipe must map every role of a Linear.
module attributes {teq.target = #teq.target<sm_90>} {
  func.func @custom_missing_output(%x: tensor<64x128xbf16>, %w: tensor<256x128xbf16>) -> tensor<64x256xbf16> {
    %y = teq.autocast recipe(#teq.custom_recipe<[<tensor_type = input> -> #teq.float8_current_scaling_quantizer<f8E4M3FN>, <tensor_type = weight> -> #teq.float8_current_scaling_quantizer<f8E4M3FN>, <tensor_type = grad_output> -> #teq.float8_current_scaling_quantizer<f8E5M2>, <tensor_type = grad_input> -> #teq.float8_current_scaling_quantizer<f8E5M2>]>) -> tensor<64x256xbf16> {
      // expected-error @+1 {{'teq.linear_forward' op CustomRecipe maps no quantizer to the output of Linear "fc1"; add a rule for it (a catch-all is `<> -> ...`)}}
      %o = teq.linear_forward %x, %w config(#teq.linear<name = "fc1">) : tensor<64x128xbf16>, tensor<256x128xbf16> -> tensor<64x256xbf16>
      teq.yield %o : tensor<64x256xbf16>
    }
    return %y : tensor<64x256xbf16>
  }
}

// -----

// Rules for another module name do not apply: the backward roles of "fc2" are
// missing.
module attributes {teq.target = #teq.target<sm_90>} {
  func.func @custom_missing_backward_roles(%x: tensor<64x128xbf16>, %w: tensor<256x128xbf16>) -> tensor<64x256xbf16> {
    %y = teq.autocast recipe(#teq.custom_recipe<[<tensor_type = grad_output, name = "fc1"> -> #teq.float8_current_scaling_quantizer<f8E5M2>, <tensor_type = grad_input, name = "fc1"> -> #teq.float8_current_scaling_quantizer<f8E5M2>, <tensor_type = input> -> #teq.float8_current_scaling_quantizer<f8E4M3FN>, <tensor_type = weight> -> #teq.float8_current_scaling_quantizer<f8E4M3FN>, <tensor_type = output> -> #teq.float8_current_scaling_quantizer<f8E4M3FN>]>) -> tensor<64x256xbf16> {
      // expected-error @+1 {{'teq.linear_forward' op CustomRecipe maps no quantizer to the grad_output of Linear "fc2"; add a rule for it (a catch-all is `<> -> ...`)}}
      %o = teq.linear_forward %x, %w config(#teq.linear<name = "fc2">) : tensor<64x128xbf16>, tensor<256x128xbf16> -> tensor<64x256xbf16>
      teq.yield %o : tensor<64x256xbf16>
    }
    return %y : tensor<64x256xbf16>
  }
}

// -----

// A backward op outside the region resolves with its forward's custom recipe,
// which has no rule for "fc1" here. The backward is reported first because it
// comes first in the function.
module attributes {teq.target = #teq.target<sm_90>} {
  func.func @custom_missing_role_backward(%x: tensor<64x128xbf16>, %w: tensor<256x128xbf16>, %dy: tensor<64x256xbf16>) -> (tensor<64x128xbf16>, tensor<256x128xbf16>) {
    // expected-error @+1 {{'teq.linear_backward' op CustomRecipe maps no quantizer to the input of Linear "fc1"; add a rule for it (a catch-all is `<> -> ...`)}}
    %dx, %dw = teq.linear_backward %dy, %x, %w config(#teq.linear<name = "fc1">) : tensor<64x256xbf16>, tensor<64x128xbf16>, tensor<256x128xbf16> dgrad(tensor<64x128xbf16>) wgrad(tensor<256x128xbf16>)
    %y = teq.autocast recipe(#teq.custom_recipe<[<name = "fc2"> -> #teq.float8_current_scaling_quantizer<f8E4M3FN>]>) -> tensor<64x256xbf16> {
      %o = teq.linear_forward %x, %w config(#teq.linear<name = "fc1">) : tensor<64x128xbf16>, tensor<256x128xbf16> -> tensor<64x256xbf16>
      teq.yield %o : tensor<64x256xbf16>
    }
    return %dx, %dw : tensor<64x128xbf16>, tensor<256x128xbf16>
  }
}

// -----

// The default recipe depends on the GPU, so the module needs a target.
// expected-error @+1 {{no #teq.target on the module: the default recipe depends on the GPU; add attributes {teq.target = #teq.target<sm_90>}}
module {
  func.func @no_target(%x: tensor<64x128xbf16>, %w: tensor<256x128xbf16>) -> tensor<64x256xbf16> {
    %y = teq.autocast -> tensor<64x256xbf16> {
      %o = teq.linear_forward %x, %w config(#teq.linear<>) : tensor<64x128xbf16>, tensor<256x128xbf16> -> tensor<64x256xbf16>
      teq.yield %o : tensor<64x256xbf16>
    }
    return %y : tensor<64x256xbf16>
  }
}

// -----

// The resolved Linear must then carry the state its quantizers need: sm_90's
// default recipe is DelayedScaling, so a Linear without state fails to verify
// once resolved (teq-check-recipe-support reports this before resolution).
module attributes {teq.target = #teq.target<sm_90>} {
  func.func @default_without_state(%x: tensor<64x128xbf16>, %w: tensor<256x128xbf16>) -> tensor<64x256xbf16> {
    %y = teq.autocast -> tensor<64x256xbf16> {
      // expected-error @+1 {{'teq.linear_forward' op resolved to delayed scaling (DelayedScaling) but has no state: pass state(%scale, %amax_history : tensor<3xf32>, tensor<Lx3xf32>)}}
      %o = teq.linear_forward %x, %w config(#teq.linear<>) : tensor<64x128xbf16>, tensor<256x128xbf16> -> tensor<64x256xbf16>
      teq.yield %o : tensor<64x256xbf16>
    }
    return %y : tensor<64x256xbf16>
  }
}
