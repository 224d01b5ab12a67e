// teq-infer-prototypes: the types of the tensors a Linear forward saves for
// its backward (te-semantics.md §6.1, §7, §3 optimize_for_gemm):
//
// * the saved input keeps only its columnwise usage (wgrad reads x
//   columnwise); per-tensor FP8 (delayed or current scaling) under
//   column-parallel sequence parallelism keeps rowwise instead (backward
//   re-gathers it, and per-tensor FP8 all-gathers rowwise data only); under
//   save_original_input it stays the high-precision input;
// * the saved weight keeps its columnwise usage (dgrad reads w columnwise),
//   with the scale layout its GEMMs read (GEMM-swizzled for MXFP8 / NVFP4);
// * MXFP8 / NVFP4 saved inputs have GEMM-swizzled scales, except under
//   column-parallel SP, where the all-gather needs compact ones;
// * high-precision Linears keep their types;
// * functions returning saved tensors, backward functions taking them, and
//   their call sites follow.
//
// The pass runs after teq-resolve-autocast, which inlines every autocast
// region: none may remain.

// RUN: te-opt %s -split-input-file --teq-resolve-autocast --teq-infer-prototypes | FileCheck %s --implicit-check-not=teq.autocast

//===----------------------------------------------------------------------===//
// One recipe per case, forward and backward in one function: backward reads
// the saved values, so its operand types follow.
//===----------------------------------------------------------------------===//

// Float8CurrentScaling: per-tensor FP8, E4M3 input and weight, no scale
// layout (compact is the default and is not printed).
module attributes {teq.target = #teq.target<sm_90>} {
  func.func @current(%x: tensor<64x128xbf16>, %w: tensor<256x128xbf16>, %dy: tensor<64x256xbf16>) -> (tensor<64x256xbf16>, tensor<64x128xbf16>, tensor<256x128xbf16>) {
    %y, %sx, %sw = teq.autocast recipe(#teq.float8_current_scaling<>) -> tensor<64x256xbf16>, tensor<64x128xbf16>, tensor<256x128xbf16> {
      %out, %a, %b = teq.linear_forward %x, %w config(#teq.linear<name = "fc1">) : tensor<64x128xbf16>, tensor<256x128xbf16> -> tensor<64x256xbf16> saved_input(tensor<64x128xbf16>) saved_weight(tensor<256x128xbf16>)
      teq.yield %out, %a, %b : tensor<64x256xbf16>, tensor<64x128xbf16>, tensor<256x128xbf16>
    }
    %dx, %dw = teq.linear_backward %dy, %sx, %sw config(#teq.linear<name = "fc1">) : tensor<64x256xbf16>, tensor<64x128xbf16>, tensor<256x128xbf16> dgrad(tensor<64x128xbf16>) wgrad(tensor<256x128xbf16>)
    return %y, %dx, %dw : tensor<64x256xbf16>, tensor<64x128xbf16>, tensor<256x128xbf16>
  }
}

// CHECK-LABEL: func.func @current(
// CHECK-SAME: %[[X:[a-z0-9_]+]]: tensor<64x128xbf16>, %[[W:[a-z0-9_]+]]: tensor<256x128xbf16>, %[[DY:[a-z0-9_]+]]: tensor<64x256xbf16>)
// CHECK-SAME: -> (tensor<64x256xbf16>, tensor<64x128xbf16>, tensor<256x128xbf16>)
// CHECK: %[[Y:[a-z0-9_]+]], %[[SX:[a-z0-9_]+]], %[[SW:[a-z0-9_]+]] = teq.linear_forward %[[X]], %[[W]]
// CHECK-SAME: recipe = "Float8CurrentScaling"
// CHECK-SAME: : tensor<64x128xbf16>, tensor<256x128xbf16> -> tensor<64x256xbf16>
// CHECK-SAME: saved_input(!teq.proto<64x128xbf16, #teq.float8_current_scaling_quantizer<f8E4M3FN>, columnwise>)
// CHECK-SAME: saved_weight(!teq.proto<256x128xbf16, #teq.float8_current_scaling_quantizer<f8E4M3FN>, columnwise>){{$}}
// CHECK: %[[DX:[a-z0-9_]+]], %[[DW:[a-z0-9_]+]] = teq.linear_backward %[[DY]], %[[SX]], %[[SW]]
// CHECK-SAME: : tensor<64x256xbf16>, !teq.proto<64x128xbf16, #teq.float8_current_scaling_quantizer<f8E4M3FN>, columnwise>, !teq.proto<256x128xbf16, #teq.float8_current_scaling_quantizer<f8E4M3FN>, columnwise>
// CHECK-SAME: dgrad(tensor<64x128xbf16>) wgrad(tensor<256x128xbf16>)
// CHECK: return %[[Y]], %[[DX]], %[[DW]] : tensor<64x256xbf16>, tensor<64x128xbf16>, tensor<256x128xbf16>

// -----

// DelayedScaling with explicit state: stateful Float8Quantizer types; the
// state operands and the updated histories are untouched.
module attributes {teq.target = #teq.target<sm_90>} {
  func.func @delayed(%x: tensor<64x128xbf16>, %w: tensor<256x128xbf16>, %dy: tensor<64x256xbf16>, %s: tensor<3xf32>, %h: tensor<1024x3xf32>, %bs: tensor<2xf32>, %bh: tensor<1024x2xf32>) -> (tensor<64x256xbf16>, tensor<64x128xbf16>, tensor<256x128xbf16>, tensor<1024x3xf32>, tensor<1024x2xf32>) {
    %y, %sx, %sw, %h1 = teq.autocast recipe(#teq.delayed_scaling<>) -> tensor<64x256xbf16>, tensor<64x128xbf16>, tensor<256x128xbf16>, tensor<1024x3xf32> {
      %out, %a, %b, %hh = teq.linear_forward %x, %w state(%s, %h : tensor<3xf32>, tensor<1024x3xf32>) config(#teq.linear<name = "fc1">) : tensor<64x128xbf16>, tensor<256x128xbf16> -> tensor<64x256xbf16> saved_input(tensor<64x128xbf16>) saved_weight(tensor<256x128xbf16>) updated_amax_history(tensor<1024x3xf32>)
      teq.yield %out, %a, %b, %hh : tensor<64x256xbf16>, tensor<64x128xbf16>, tensor<256x128xbf16>, tensor<1024x3xf32>
    }
    %dx, %dw, %bh1 = teq.linear_backward %dy, %sx, %sw state(%bs, %bh : tensor<2xf32>, tensor<1024x2xf32>) config(#teq.linear<name = "fc1">) : tensor<64x256xbf16>, tensor<64x128xbf16>, tensor<256x128xbf16> dgrad(tensor<64x128xbf16>) wgrad(tensor<256x128xbf16>) updated_amax_history(tensor<1024x2xf32>)
    return %y, %dx, %dw, %h1, %bh1 : tensor<64x256xbf16>, tensor<64x128xbf16>, tensor<256x128xbf16>, tensor<1024x3xf32>, tensor<1024x2xf32>
  }
}

// CHECK-LABEL: func.func @delayed(
// CHECK-SAME: %[[S:[a-z0-9_]+]]: tensor<3xf32>, %[[H:[a-z0-9_]+]]: tensor<1024x3xf32>, %[[BS:[a-z0-9_]+]]: tensor<2xf32>, %[[BH:[a-z0-9_]+]]: tensor<1024x2xf32>)
// CHECK-SAME: -> (tensor<64x256xbf16>, tensor<64x128xbf16>, tensor<256x128xbf16>, tensor<1024x3xf32>, tensor<1024x2xf32>)
// CHECK: %{{.*}}, %[[SX:[a-z0-9_]+]], %[[SW:[a-z0-9_]+]], %{{.*}} = teq.linear_forward %{{.*}}, %{{.*}} state(%[[S]], %[[H]] : tensor<3xf32>, tensor<1024x3xf32>)
// CHECK-SAME: recipe = "DelayedScaling"
// CHECK-SAME: saved_input(!teq.proto<64x128xbf16, #teq.float8_quantizer<f8E4M3FN>, columnwise>)
// CHECK-SAME: saved_weight(!teq.proto<256x128xbf16, #teq.float8_quantizer<f8E4M3FN>, columnwise>)
// CHECK-SAME: updated_amax_history(tensor<1024x3xf32>)
// CHECK: teq.linear_backward %{{.*}}, %[[SX]], %[[SW]] state(%[[BS]], %[[BH]] : tensor<2xf32>, tensor<1024x2xf32>)
// CHECK-SAME: : tensor<64x256xbf16>, !teq.proto<64x128xbf16, #teq.float8_quantizer<f8E4M3FN>, columnwise>, !teq.proto<256x128xbf16, #teq.float8_quantizer<f8E4M3FN>, columnwise>
// CHECK-SAME: updated_amax_history(tensor<1024x2xf32>)

// -----

// Float8BlockScaling (default dims): 1x128 blocks for the input, 128x128 for
// the weight. Block FP8 has no swizzled layout: both compact.
module attributes {teq.target = #teq.target<sm_90>} {
  func.func @block(%x: tensor<256x128xbf16>, %w: tensor<256x128xbf16>, %dy: tensor<256x256xbf16>) -> (tensor<256x256xbf16>, tensor<256x128xbf16>, tensor<256x128xbf16>) {
    %y, %sx, %sw = teq.autocast recipe(#teq.float8_block_scaling<>) -> tensor<256x256xbf16>, tensor<256x128xbf16>, tensor<256x128xbf16> {
      %out, %a, %b = teq.linear_forward %x, %w config(#teq.linear<name = "fc1">) : tensor<256x128xbf16>, tensor<256x128xbf16> -> tensor<256x256xbf16> saved_input(tensor<256x128xbf16>) saved_weight(tensor<256x128xbf16>)
      teq.yield %out, %a, %b : tensor<256x256xbf16>, tensor<256x128xbf16>, tensor<256x128xbf16>
    }
    %dx, %dw = teq.linear_backward %dy, %sx, %sw config(#teq.linear<name = "fc1">) : tensor<256x256xbf16>, tensor<256x128xbf16>, tensor<256x128xbf16> dgrad(tensor<256x128xbf16>) wgrad(tensor<256x128xbf16>)
    return %y, %dx, %dw : tensor<256x256xbf16>, tensor<256x128xbf16>, tensor<256x128xbf16>
  }
}

// CHECK-LABEL: func.func @block(
// CHECK: %{{.*}}, %[[SX:[a-z0-9_]+]], %[[SW:[a-z0-9_]+]] = teq.linear_forward
// CHECK-SAME: recipe = "Float8BlockScaling"
// CHECK-SAME: saved_input(!teq.proto<256x128xbf16, #teq.float8_block_quantizer<f8E4M3FN, block_scaling_dim = 1>, columnwise>)
// CHECK-SAME: saved_weight(!teq.proto<256x128xbf16, #teq.float8_block_quantizer<f8E4M3FN>, columnwise>){{$}}
// CHECK: teq.linear_backward %{{.*}}, %[[SX]], %[[SW]]
// CHECK-SAME: : tensor<256x256xbf16>, !teq.proto<256x128xbf16, #teq.float8_block_quantizer<f8E4M3FN, block_scaling_dim = 1>, columnwise>, !teq.proto<256x128xbf16, #teq.float8_block_quantizer<f8E4M3FN>, columnwise> dgrad

// -----

// MXFP8BlockScaling: input and weight both have GEMM-swizzled scales (the
// input quantizer is optimize_for_gemm; TE swizzles the weight's before the
// GEMM, TEQ quantizes it swizzled).
module attributes {teq.target = #teq.target<sm_100>} {
  func.func @mxfp8(%x: tensor<64x128xbf16>, %w: tensor<256x128xbf16>, %dy: tensor<64x256xbf16>) -> (tensor<64x256xbf16>, tensor<64x128xbf16>, tensor<256x128xbf16>) {
    %y, %sx, %sw = teq.autocast recipe(#teq.mxfp8_block_scaling<>) -> tensor<64x256xbf16>, tensor<64x128xbf16>, tensor<256x128xbf16> {
      %out, %a, %b = teq.linear_forward %x, %w config(#teq.linear<name = "fc1">) : tensor<64x128xbf16>, tensor<256x128xbf16> -> tensor<64x256xbf16> saved_input(tensor<64x128xbf16>) saved_weight(tensor<256x128xbf16>)
      teq.yield %out, %a, %b : tensor<64x256xbf16>, tensor<64x128xbf16>, tensor<256x128xbf16>
    }
    %dx, %dw = teq.linear_backward %dy, %sx, %sw config(#teq.linear<name = "fc1">) : tensor<64x256xbf16>, tensor<64x128xbf16>, tensor<256x128xbf16> dgrad(tensor<64x128xbf16>) wgrad(tensor<256x128xbf16>)
    return %y, %dx, %dw : tensor<64x256xbf16>, tensor<64x128xbf16>, tensor<256x128xbf16>
  }
}

// CHECK-LABEL: func.func @mxfp8(
// CHECK: %{{.*}}, %[[SX:[a-z0-9_]+]], %[[SW:[a-z0-9_]+]] = teq.linear_forward
// CHECK-SAME: recipe = "MXFP8BlockScaling"
// CHECK-SAME: saved_input(!teq.proto<64x128xbf16, #teq.mxfp8_quantizer<f8E4M3FN>, columnwise, gemm_swizzled>)
// CHECK-SAME: saved_weight(!teq.proto<256x128xbf16, #teq.mxfp8_quantizer<f8E4M3FN>, columnwise, gemm_swizzled>){{$}}
// CHECK: teq.linear_backward %{{.*}}, %[[SX]], %[[SW]]
// CHECK-SAME: : tensor<64x256xbf16>, !teq.proto<64x128xbf16, #teq.mxfp8_quantizer<f8E4M3FN>, columnwise, gemm_swizzled>, !teq.proto<256x128xbf16, #teq.mxfp8_quantizer<f8E4M3FN>, columnwise, gemm_swizzled> dgrad

// -----

// MXFP8 with 2D weight blocks: the weight quantizer carries
// with_2d_quantization; still GEMM-swizzled.
module attributes {teq.target = #teq.target<sm_100>} {
  func.func @mxfp8_2d(%x: tensor<64x128xbf16>, %w: tensor<256x128xbf16>) -> (tensor<64x256xbf16>, tensor<64x128xbf16>, tensor<256x128xbf16>) {
    %y, %sx, %sw = teq.autocast recipe(#teq.mxfp8_block_scaling<enable_2d_quantization = true>) -> tensor<64x256xbf16>, tensor<64x128xbf16>, tensor<256x128xbf16> {
      %out, %a, %b = teq.linear_forward %x, %w config(#teq.linear<name = "fc1">) : tensor<64x128xbf16>, tensor<256x128xbf16> -> tensor<64x256xbf16> saved_input(tensor<64x128xbf16>) saved_weight(tensor<256x128xbf16>)
      teq.yield %out, %a, %b : tensor<64x256xbf16>, tensor<64x128xbf16>, tensor<256x128xbf16>
    }
    return %y, %sx, %sw : tensor<64x256xbf16>, tensor<64x128xbf16>, tensor<256x128xbf16>
  }
}

// CHECK-LABEL: func.func @mxfp8_2d(
// CHECK-SAME: -> (tensor<64x256xbf16>, !teq.proto<64x128xbf16, #teq.mxfp8_quantizer<f8E4M3FN>, columnwise, gemm_swizzled>, !teq.proto<256x128xbf16, #teq.mxfp8_quantizer<f8E4M3FN, with_2d_quantization = true>, columnwise, gemm_swizzled>)
// CHECK: teq.linear_forward
// CHECK-SAME: saved_input(!teq.proto<64x128xbf16, #teq.mxfp8_quantizer<f8E4M3FN>, columnwise, gemm_swizzled>)
// CHECK-SAME: saved_weight(!teq.proto<256x128xbf16, #teq.mxfp8_quantizer<f8E4M3FN, with_2d_quantization = true>, columnwise, gemm_swizzled>){{$}}

// -----

// NVFP4BlockScaling on sm_100: the input quantizer has RHT (post-RHT amax),
// the weight 16x16 2D blocks. Both GEMM-swizzled.
module attributes {teq.target = #teq.target<sm_100>} {
  func.func @nvfp4(%x: tensor<64x128xbf16>, %w: tensor<256x128xbf16>, %dy: tensor<64x256xbf16>, %rng: tensor<2xi64>) -> (tensor<64x256xbf16>, tensor<64x128xbf16>, tensor<256x128xbf16>) {
    %y, %sx, %sw = teq.autocast recipe(#teq.nvfp4_block_scaling<>) -> tensor<64x256xbf16>, tensor<64x128xbf16>, tensor<256x128xbf16> {
      %out, %a, %b = teq.linear_forward %x, %w config(#teq.linear<name = "fc1">) : tensor<64x128xbf16>, tensor<256x128xbf16> -> tensor<64x256xbf16> saved_input(tensor<64x128xbf16>) saved_weight(tensor<256x128xbf16>)
      teq.yield %out, %a, %b : tensor<64x256xbf16>, tensor<64x128xbf16>, tensor<256x128xbf16>
    }
    %dx, %dw = teq.linear_backward %dy, %sx, %sw rng_state(%rng : tensor<2xi64>) config(#teq.linear<name = "fc1">) : tensor<64x256xbf16>, tensor<64x128xbf16>, tensor<256x128xbf16> dgrad(tensor<64x128xbf16>) wgrad(tensor<256x128xbf16>)
    return %y, %dx, %dw : tensor<64x256xbf16>, tensor<64x128xbf16>, tensor<256x128xbf16>
  }
}

// CHECK-LABEL: func.func @nvfp4(
// CHECK: %{{.*}}, %[[SX:[a-z0-9_]+]], %[[SW:[a-z0-9_]+]] = teq.linear_forward
// CHECK-SAME: recipe = "NVFP4BlockScaling"
// CHECK-SAME: saved_input(!teq.proto<64x128xbf16, #teq.nvfp4_quantizer<f4E2M1FN, with_rht = true, with_post_rht_amax = true>, columnwise, gemm_swizzled>)
// CHECK-SAME: saved_weight(!teq.proto<256x128xbf16, #teq.nvfp4_quantizer<f4E2M1FN, with_2d_quantization = true>, columnwise, gemm_swizzled>){{$}}
// CHECK: teq.linear_backward %{{.*}}, %[[SX]], %[[SW]]
// CHECK-SAME: : tensor<64x256xbf16>, !teq.proto<64x128xbf16, #teq.nvfp4_quantizer<f4E2M1FN, with_rht = true, with_post_rht_amax = true>, columnwise, gemm_swizzled>, !teq.proto<256x128xbf16, #teq.nvfp4_quantizer<f4E2M1FN, with_2d_quantization = true>, columnwise, gemm_swizzled> dgrad

// -----

// An autocast region without a recipe runs the target's default recipe
// (§1.8): MXFP8BlockScaling on sm_100.
module attributes {teq.target = #teq.target<sm_100>} {
  func.func @default_recipe(%x: tensor<64x128xbf16>, %w: tensor<256x128xbf16>) -> (tensor<64x256xbf16>, tensor<64x128xbf16>, tensor<256x128xbf16>) {
    %y, %sx, %sw = teq.autocast -> tensor<64x256xbf16>, tensor<64x128xbf16>, tensor<256x128xbf16> {
      %out, %a, %b = teq.linear_forward %x, %w config(#teq.linear<>) : tensor<64x128xbf16>, tensor<256x128xbf16> -> tensor<64x256xbf16> saved_input(tensor<64x128xbf16>) saved_weight(tensor<256x128xbf16>)
      teq.yield %out, %a, %b : tensor<64x256xbf16>, tensor<64x128xbf16>, tensor<256x128xbf16>
    }
    return %y, %sx, %sw : tensor<64x256xbf16>, tensor<64x128xbf16>, tensor<256x128xbf16>
  }
}

// CHECK-LABEL: func.func @default_recipe(
// CHECK-SAME: -> (tensor<64x256xbf16>, !teq.proto<64x128xbf16, #teq.mxfp8_quantizer<f8E4M3FN>, columnwise, gemm_swizzled>, !teq.proto<256x128xbf16, #teq.mxfp8_quantizer<f8E4M3FN>, columnwise, gemm_swizzled>)
// CHECK: teq.linear_forward
// CHECK-SAME: recipe = "MXFP8BlockScaling"
// CHECK-SAME: saved_input(!teq.proto<64x128xbf16, #teq.mxfp8_quantizer<f8E4M3FN>, columnwise, gemm_swizzled>)
// CHECK-SAME: saved_weight(!teq.proto<256x128xbf16, #teq.mxfp8_quantizer<f8E4M3FN>, columnwise, gemm_swizzled>){{$}}

// -----

//===----------------------------------------------------------------------===//
// save_original_input and high precision
//===----------------------------------------------------------------------===//

// save_original_input = true: the saved input is the high-precision input;
// the weight is still saved quantized, columnwise.
module attributes {teq.target = #teq.target<sm_90>} {
  func.func @save_original(%x: tensor<64x128xbf16>, %w: tensor<256x128xbf16>, %dy: tensor<64x256xbf16>) -> (tensor<64x256xbf16>, tensor<64x128xbf16>, tensor<256x128xbf16>) {
    %y, %sx, %sw = teq.autocast recipe(#teq.float8_current_scaling<>) -> tensor<64x256xbf16>, tensor<64x128xbf16>, tensor<256x128xbf16> {
      %out, %a, %b = teq.linear_forward %x, %w config(#teq.linear<save_original_input = true, name = "fc1">) : tensor<64x128xbf16>, tensor<256x128xbf16> -> tensor<64x256xbf16> saved_input(tensor<64x128xbf16>) saved_weight(tensor<256x128xbf16>)
      teq.yield %out, %a, %b : tensor<64x256xbf16>, tensor<64x128xbf16>, tensor<256x128xbf16>
    }
    %dx, %dw = teq.linear_backward %dy, %sx, %sw config(#teq.linear<save_original_input = true, name = "fc1">) : tensor<64x256xbf16>, tensor<64x128xbf16>, tensor<256x128xbf16> dgrad(tensor<64x128xbf16>) wgrad(tensor<256x128xbf16>)
    return %y, %dx, %dw : tensor<64x256xbf16>, tensor<64x128xbf16>, tensor<256x128xbf16>
  }
}

// CHECK-LABEL: func.func @save_original(
// CHECK: %{{.*}}, %[[SX:[a-z0-9_]+]], %[[SW:[a-z0-9_]+]] = teq.linear_forward
// CHECK-SAME: recipe = "Float8CurrentScaling"
// CHECK-SAME: saved_input(tensor<64x128xbf16>)
// CHECK-SAME: saved_weight(!teq.proto<256x128xbf16, #teq.float8_current_scaling_quantizer<f8E4M3FN>, columnwise>){{$}}
// CHECK: teq.linear_backward %{{.*}}, %[[SX]], %[[SW]]
// CHECK-SAME: : tensor<64x256xbf16>, tensor<64x128xbf16>, !teq.proto<256x128xbf16, #teq.float8_current_scaling_quantizer<f8E4M3FN>, columnwise> dgrad

// -----

// save_original_input with MXFP8 (the input quantizer is not needed for
// backward): the input stays bf16, the weight columnwise MXFP8.
module attributes {teq.target = #teq.target<sm_100>} {
  func.func @save_original_mxfp8(%x: tensor<64x128xbf16>, %w: tensor<256x128xbf16>) -> (tensor<64x256xbf16>, tensor<64x128xbf16>, tensor<256x128xbf16>) {
    %y, %sx, %sw = teq.autocast recipe(#teq.mxfp8_block_scaling<>) -> tensor<64x256xbf16>, tensor<64x128xbf16>, tensor<256x128xbf16> {
      %out, %a, %b = teq.linear_forward %x, %w config(#teq.linear<save_original_input = true>) : tensor<64x128xbf16>, tensor<256x128xbf16> -> tensor<64x256xbf16> saved_input(tensor<64x128xbf16>) saved_weight(tensor<256x128xbf16>)
      teq.yield %out, %a, %b : tensor<64x256xbf16>, tensor<64x128xbf16>, tensor<256x128xbf16>
    }
    return %y, %sx, %sw : tensor<64x256xbf16>, tensor<64x128xbf16>, tensor<256x128xbf16>
  }
}

// CHECK-LABEL: func.func @save_original_mxfp8(
// CHECK-SAME: -> (tensor<64x256xbf16>, tensor<64x128xbf16>, !teq.proto<256x128xbf16, #teq.mxfp8_quantizer<f8E4M3FN>, columnwise, gemm_swizzled>)
// CHECK: teq.linear_forward
// CHECK-SAME: saved_input(tensor<64x128xbf16>) saved_weight(!teq.proto<256x128xbf16, #teq.mxfp8_quantizer<f8E4M3FN>, columnwise, gemm_swizzled>){{$}}

// -----

// enabled(false): a high-precision Linear; nothing is quantized, no type
// changes anywhere.
module attributes {teq.target = #teq.target<sm_90>} {
  func.func @high_precision(%x: tensor<64x128xbf16>, %w: tensor<256x128xbf16>, %dy: tensor<64x256xbf16>) -> (tensor<64x256xbf16>, tensor<64x128xbf16>, tensor<256x128xbf16>) {
    %y, %sx, %sw = teq.autocast enabled(false) -> tensor<64x256xbf16>, tensor<64x128xbf16>, tensor<256x128xbf16> {
      %out, %a, %b = teq.linear_forward %x, %w config(#teq.linear<name = "fc1">) : tensor<64x128xbf16>, tensor<256x128xbf16> -> tensor<64x256xbf16> saved_input(tensor<64x128xbf16>) saved_weight(tensor<256x128xbf16>)
      teq.yield %out, %a, %b : tensor<64x256xbf16>, tensor<64x128xbf16>, tensor<256x128xbf16>
    }
    %dx, %dw = teq.linear_backward %dy, %sx, %sw config(#teq.linear<name = "fc1">) : tensor<64x256xbf16>, tensor<64x128xbf16>, tensor<256x128xbf16> dgrad(tensor<64x128xbf16>) wgrad(tensor<256x128xbf16>)
    return %y, %dx, %dw : tensor<64x256xbf16>, tensor<64x128xbf16>, tensor<256x128xbf16>
  }
}

// CHECK-LABEL: func.func @high_precision(
// CHECK-NOT: !teq.proto
// CHECK: %{{.*}}, %[[SX:[a-z0-9_]+]], %[[SW:[a-z0-9_]+]] = teq.linear_forward
// CHECK-SAME: recipe = "high_precision"
// CHECK-SAME: saved_input(tensor<64x128xbf16>) saved_weight(tensor<256x128xbf16>){{$}}
// CHECK-NOT: !teq.proto
// CHECK: teq.linear_backward %{{.*}}, %[[SX]], %[[SW]]
// CHECK-SAME: : tensor<64x256xbf16>, tensor<64x128xbf16>, tensor<256x128xbf16> dgrad
// CHECK-NOT: !teq.proto
// CHECK: return

// -----

// A high-precision function pair: signatures and call sites unchanged.
module attributes {teq.target = #teq.target<sm_90>} {
  func.func @hp_fwd(%x: tensor<64x128xbf16>, %w: tensor<256x128xbf16>) -> (tensor<64x256xbf16>, tensor<64x128xbf16>, tensor<256x128xbf16>) {
    %y, %sx, %sw = teq.linear_forward %x, %w config(#teq.linear<>) : tensor<64x128xbf16>, tensor<256x128xbf16> -> tensor<64x256xbf16> saved_input(tensor<64x128xbf16>) saved_weight(tensor<256x128xbf16>)
    return %y, %sx, %sw : tensor<64x256xbf16>, tensor<64x128xbf16>, tensor<256x128xbf16>
  }
  func.func @hp_bwd(%dy: tensor<64x256xbf16>, %sx: tensor<64x128xbf16>, %sw: tensor<256x128xbf16>) -> (tensor<64x128xbf16>, tensor<256x128xbf16>) {
    %dx, %dw = teq.linear_backward %dy, %sx, %sw config(#teq.linear<>) : tensor<64x256xbf16>, tensor<64x128xbf16>, tensor<256x128xbf16> dgrad(tensor<64x128xbf16>) wgrad(tensor<256x128xbf16>)
    return %dx, %dw : tensor<64x128xbf16>, tensor<256x128xbf16>
  }
  func.func @hp_step(%x: tensor<64x128xbf16>, %w: tensor<256x128xbf16>, %dy: tensor<64x256xbf16>) -> (tensor<64x128xbf16>, tensor<256x128xbf16>) {
    %y, %sx, %sw = func.call @hp_fwd(%x, %w) : (tensor<64x128xbf16>, tensor<256x128xbf16>) -> (tensor<64x256xbf16>, tensor<64x128xbf16>, tensor<256x128xbf16>)
    %dx, %dw = func.call @hp_bwd(%dy, %sx, %sw) : (tensor<64x256xbf16>, tensor<64x128xbf16>, tensor<256x128xbf16>) -> (tensor<64x128xbf16>, tensor<256x128xbf16>)
    return %dx, %dw : tensor<64x128xbf16>, tensor<256x128xbf16>
  }
}

// CHECK-LABEL: func.func @hp_fwd(
// CHECK-SAME: -> (tensor<64x256xbf16>, tensor<64x128xbf16>, tensor<256x128xbf16>)
// CHECK: recipe = "high_precision"
// CHECK-LABEL: func.func @hp_bwd(
// CHECK-SAME: %{{.*}}: tensor<64x256xbf16>, %{{.*}}: tensor<64x128xbf16>, %{{.*}}: tensor<256x128xbf16>)
// CHECK-LABEL: func.func @hp_step(
// CHECK: call @hp_fwd(%{{.*}}, %{{.*}}) : (tensor<64x128xbf16>, tensor<256x128xbf16>) -> (tensor<64x256xbf16>, tensor<64x128xbf16>, tensor<256x128xbf16>)
// CHECK: call @hp_bwd(%{{.*}}, %{{.*}}, %{{.*}}) : (tensor<64x256xbf16>, tensor<64x128xbf16>, tensor<256x128xbf16>) -> (tensor<64x128xbf16>, tensor<256x128xbf16>)

// -----

//===----------------------------------------------------------------------===//
// Tensor and sequence parallelism (§6.1, §7)
//===----------------------------------------------------------------------===//

// Column-parallel + SP, tp_size = 2, per-tensor FP8 (current scaling): the
// saved input keeps rowwise (backward re-gathers it; per-tensor FP8 gathers
// rowwise data only). The input quantizer reduces its amax over the TP group.
// The saved (local) input is the [S/tp, in] shard.
module attributes {teq.target = #teq.target<sm_90>} {
  func.func @column_sp_current(%x: tensor<32x128xbf16>, %w: tensor<256x128xbf16>, %dy: tensor<64x256xbf16>, %tp: !teq.process_group) -> (tensor<64x256xbf16>, tensor<32x128xbf16>, tensor<256x128xbf16>) {
    %y, %sx, %sw = teq.autocast recipe(#teq.float8_current_scaling<>) -> tensor<64x256xbf16>, tensor<32x128xbf16>, tensor<256x128xbf16> {
      %out, %a, %b = teq.linear_forward %x, %w tp_group(%tp) config(#teq.linear<parallel_mode = column, sequence_parallel = true, tp_size = 2, name = "fc1">) : tensor<32x128xbf16>, tensor<256x128xbf16> -> tensor<64x256xbf16> saved_input(tensor<32x128xbf16>) saved_weight(tensor<256x128xbf16>)
      teq.yield %out, %a, %b : tensor<64x256xbf16>, tensor<32x128xbf16>, tensor<256x128xbf16>
    }
    %dx, %dw = teq.linear_backward %dy, %sx, %sw tp_group(%tp) config(#teq.linear<parallel_mode = column, sequence_parallel = true, tp_size = 2, name = "fc1">) : tensor<64x256xbf16>, tensor<32x128xbf16>, tensor<256x128xbf16> dgrad(tensor<32x128xbf16>) wgrad(tensor<256x128xbf16>)
    return %y, %dx, %dw : tensor<64x256xbf16>, tensor<32x128xbf16>, tensor<256x128xbf16>
  }
}

// CHECK-LABEL: func.func @column_sp_current(
// CHECK: %{{.*}}, %[[SX:[a-z0-9_]+]], %[[SW:[a-z0-9_]+]] = teq.linear_forward
// CHECK-SAME: saved_input(!teq.proto<32x128xbf16, #teq.float8_current_scaling_quantizer<f8E4M3FN, with_amax_reduction = true>, rowwise>)
// CHECK-SAME: saved_weight(!teq.proto<256x128xbf16, #teq.float8_current_scaling_quantizer<f8E4M3FN>, columnwise>){{$}}
// CHECK: teq.linear_backward %{{.*}}, %[[SX]], %[[SW]] tp_group(
// CHECK-SAME: : tensor<64x256xbf16>, !teq.proto<32x128xbf16, #teq.float8_current_scaling_quantizer<f8E4M3FN, with_amax_reduction = true>, rowwise>, !teq.proto<256x128xbf16, #teq.float8_current_scaling_quantizer<f8E4M3FN>, columnwise> dgrad

// -----

// The same for delayed scaling (also per-tensor FP8): rowwise.
module attributes {teq.target = #teq.target<sm_90>} {
  func.func @column_sp_delayed(%x: tensor<32x128xbf16>, %w: tensor<256x128xbf16>, %tp: !teq.process_group, %s: tensor<3xf32>, %h: tensor<16x3xf32>) -> (tensor<64x256xbf16>, tensor<32x128xbf16>, tensor<256x128xbf16>, tensor<16x3xf32>) {
    %y, %sx, %sw, %h1 = teq.autocast recipe(#teq.delayed_scaling<amax_history_len = 16>) -> tensor<64x256xbf16>, tensor<32x128xbf16>, tensor<256x128xbf16>, tensor<16x3xf32> {
      %out, %a, %b, %hh = teq.linear_forward %x, %w state(%s, %h : tensor<3xf32>, tensor<16x3xf32>) tp_group(%tp) config(#teq.linear<parallel_mode = column, sequence_parallel = true, tp_size = 2>) : tensor<32x128xbf16>, tensor<256x128xbf16> -> tensor<64x256xbf16> saved_input(tensor<32x128xbf16>) saved_weight(tensor<256x128xbf16>) updated_amax_history(tensor<16x3xf32>)
      teq.yield %out, %a, %b, %hh : tensor<64x256xbf16>, tensor<32x128xbf16>, tensor<256x128xbf16>, tensor<16x3xf32>
    }
    return %y, %sx, %sw, %h1 : tensor<64x256xbf16>, tensor<32x128xbf16>, tensor<256x128xbf16>, tensor<16x3xf32>
  }
}

// CHECK-LABEL: func.func @column_sp_delayed(
// CHECK-SAME: -> (tensor<64x256xbf16>, !teq.proto<32x128xbf16, #teq.float8_quantizer<f8E4M3FN>, rowwise>, !teq.proto<256x128xbf16, #teq.float8_quantizer<f8E4M3FN>, columnwise>, tensor<16x3xf32>)
// CHECK: teq.linear_forward
// CHECK-SAME: saved_input(!teq.proto<32x128xbf16, #teq.float8_quantizer<f8E4M3FN>, rowwise>)
// CHECK-SAME: saved_weight(!teq.proto<256x128xbf16, #teq.float8_quantizer<f8E4M3FN>, columnwise>)

// -----

// Column-parallel + SP with MXFP8: columnwise (MXFP8 all-gathers columnwise
// data), but compact scales: the all-gather needs them compact.
module attributes {teq.target = #teq.target<sm_100>} {
  func.func @column_sp_mxfp8(%x: tensor<32x128xbf16>, %w: tensor<256x128xbf16>, %dy: tensor<64x256xbf16>, %tp: !teq.process_group) -> (tensor<64x256xbf16>, tensor<32x128xbf16>, tensor<256x128xbf16>) {
    %y, %sx, %sw = teq.autocast recipe(#teq.mxfp8_block_scaling<>) -> tensor<64x256xbf16>, tensor<32x128xbf16>, tensor<256x128xbf16> {
      %out, %a, %b = teq.linear_forward %x, %w tp_group(%tp) config(#teq.linear<parallel_mode = column, sequence_parallel = true, tp_size = 2, name = "fc1">) : tensor<32x128xbf16>, tensor<256x128xbf16> -> tensor<64x256xbf16> saved_input(tensor<32x128xbf16>) saved_weight(tensor<256x128xbf16>)
      teq.yield %out, %a, %b : tensor<64x256xbf16>, tensor<32x128xbf16>, tensor<256x128xbf16>
    }
    %dx, %dw = teq.linear_backward %dy, %sx, %sw tp_group(%tp) config(#teq.linear<parallel_mode = column, sequence_parallel = true, tp_size = 2, name = "fc1">) : tensor<64x256xbf16>, tensor<32x128xbf16>, tensor<256x128xbf16> dgrad(tensor<32x128xbf16>) wgrad(tensor<256x128xbf16>)
    return %y, %dx, %dw : tensor<64x256xbf16>, tensor<32x128xbf16>, tensor<256x128xbf16>
  }
}

// CHECK-LABEL: func.func @column_sp_mxfp8(
// CHECK: %{{.*}}, %[[SX:[a-z0-9_]+]], %[[SW:[a-z0-9_]+]] = teq.linear_forward
// CHECK-SAME: saved_input(!teq.proto<32x128xbf16, #teq.mxfp8_quantizer<f8E4M3FN>, columnwise>)
// CHECK-SAME: saved_weight(!teq.proto<256x128xbf16, #teq.mxfp8_quantizer<f8E4M3FN>, columnwise, gemm_swizzled>){{$}}
// CHECK: teq.linear_backward %{{.*}}, %[[SX]], %[[SW]] tp_group(
// CHECK-SAME: : tensor<64x256xbf16>, !teq.proto<32x128xbf16, #teq.mxfp8_quantizer<f8E4M3FN>, columnwise>, !teq.proto<256x128xbf16, #teq.mxfp8_quantizer<f8E4M3FN>, columnwise, gemm_swizzled> dgrad

// -----

// Column-parallel + SP with NVFP4: columnwise, compact scales (the quantizer
// also reduces its amax over the TP group).
module attributes {teq.target = #teq.target<sm_100>} {
  func.func @column_sp_nvfp4(%x: tensor<32x128xbf16>, %w: tensor<256x128xbf16>, %tp: !teq.process_group) -> (tensor<64x256xbf16>, tensor<32x128xbf16>, tensor<256x128xbf16>) {
    %y, %sx, %sw = teq.autocast recipe(#teq.nvfp4_block_scaling<>) -> tensor<64x256xbf16>, tensor<32x128xbf16>, tensor<256x128xbf16> {
      %out, %a, %b = teq.linear_forward %x, %w tp_group(%tp) config(#teq.linear<parallel_mode = column, sequence_parallel = true, tp_size = 2>) : tensor<32x128xbf16>, tensor<256x128xbf16> -> tensor<64x256xbf16> saved_input(tensor<32x128xbf16>) saved_weight(tensor<256x128xbf16>)
      teq.yield %out, %a, %b : tensor<64x256xbf16>, tensor<32x128xbf16>, tensor<256x128xbf16>
    }
    return %y, %sx, %sw : tensor<64x256xbf16>, tensor<32x128xbf16>, tensor<256x128xbf16>
  }
}

// CHECK-LABEL: func.func @column_sp_nvfp4(
// CHECK: teq.linear_forward
// CHECK-SAME: saved_input(!teq.proto<32x128xbf16, #teq.nvfp4_quantizer<f4E2M1FN, with_amax_reduction = true, with_rht = true, with_post_rht_amax = true>, columnwise>)
// CHECK-SAME: saved_weight(!teq.proto<256x128xbf16, #teq.nvfp4_quantizer<f4E2M1FN, with_2d_quantization = true>, columnwise, gemm_swizzled>){{$}}

// -----

// Column-parallel + SP with 1D block FP8: columnwise (block FP8 all-gathers
// columnwise data); block FP8 has no swizzled layout.
module attributes {teq.target = #teq.target<sm_90>} {
  func.func @column_sp_block(%x: tensor<128x128xbf16>, %w: tensor<256x128xbf16>, %tp: !teq.process_group) -> (tensor<256x256xbf16>, tensor<128x128xbf16>, tensor<256x128xbf16>) {
    %y, %sx, %sw = teq.autocast recipe(#teq.float8_block_scaling<>) -> tensor<256x256xbf16>, tensor<128x128xbf16>, tensor<256x128xbf16> {
      %out, %a, %b = teq.linear_forward %x, %w tp_group(%tp) config(#teq.linear<parallel_mode = column, sequence_parallel = true, tp_size = 2>) : tensor<128x128xbf16>, tensor<256x128xbf16> -> tensor<256x256xbf16> saved_input(tensor<128x128xbf16>) saved_weight(tensor<256x128xbf16>)
      teq.yield %out, %a, %b : tensor<256x256xbf16>, tensor<128x128xbf16>, tensor<256x128xbf16>
    }
    return %y, %sx, %sw : tensor<256x256xbf16>, tensor<128x128xbf16>, tensor<256x128xbf16>
  }
}

// CHECK-LABEL: func.func @column_sp_block(
// CHECK: teq.linear_forward
// CHECK-SAME: saved_input(!teq.proto<128x128xbf16, #teq.float8_block_quantizer<f8E4M3FN, block_scaling_dim = 1>, columnwise>)
// CHECK-SAME: saved_weight(!teq.proto<256x128xbf16, #teq.float8_block_quantizer<f8E4M3FN>, columnwise>){{$}}

// -----

// Column-parallel without SP: the input is replicated, nothing is gathered:
// per-tensor FP8 keeps columnwise only, MXFP8 keeps swizzled scales.
module attributes {teq.target = #teq.target<sm_100>} {
  func.func @column_no_sp(%x: tensor<64x128xbf16>, %w: tensor<128x128xbf16>, %tp: !teq.process_group) -> (tensor<64x128xbf16>, tensor<64x128xbf16>, tensor<128x128xbf16>, tensor<64x128xbf16>, tensor<64x128xbf16>, tensor<128x128xbf16>) {
    %y1, %sx1, %sw1 = teq.autocast recipe(#teq.float8_current_scaling<>) -> tensor<64x128xbf16>, tensor<64x128xbf16>, tensor<128x128xbf16> {
      %out, %a, %b = teq.linear_forward %x, %w tp_group(%tp) config(#teq.linear<parallel_mode = column, tp_size = 2, name = "fp8">) : tensor<64x128xbf16>, tensor<128x128xbf16> -> tensor<64x128xbf16> saved_input(tensor<64x128xbf16>) saved_weight(tensor<128x128xbf16>)
      teq.yield %out, %a, %b : tensor<64x128xbf16>, tensor<64x128xbf16>, tensor<128x128xbf16>
    }
    %y2, %sx2, %sw2 = teq.autocast recipe(#teq.mxfp8_block_scaling<>) -> tensor<64x128xbf16>, tensor<64x128xbf16>, tensor<128x128xbf16> {
      %out, %a, %b = teq.linear_forward %x, %w tp_group(%tp) config(#teq.linear<parallel_mode = column, tp_size = 2, name = "mx">) : tensor<64x128xbf16>, tensor<128x128xbf16> -> tensor<64x128xbf16> saved_input(tensor<64x128xbf16>) saved_weight(tensor<128x128xbf16>)
      teq.yield %out, %a, %b : tensor<64x128xbf16>, tensor<64x128xbf16>, tensor<128x128xbf16>
    }
    return %y1, %sx1, %sw1, %y2, %sx2, %sw2 : tensor<64x128xbf16>, tensor<64x128xbf16>, tensor<128x128xbf16>, tensor<64x128xbf16>, tensor<64x128xbf16>, tensor<128x128xbf16>
  }
}

// CHECK-LABEL: func.func @column_no_sp(
// CHECK: teq.linear_forward
// CHECK-SAME: name = "fp8"
// CHECK-SAME: saved_input(!teq.proto<64x128xbf16, #teq.float8_current_scaling_quantizer<f8E4M3FN>, columnwise>)
// CHECK: teq.linear_forward
// CHECK-SAME: name = "mx"
// CHECK-SAME: saved_input(!teq.proto<64x128xbf16, #teq.mxfp8_quantizer<f8E4M3FN>, columnwise, gemm_swizzled>)

// -----

// sequence_parallel only takes effect with tp_size > 1 (§7): with
// tp_size = 1 the per-tensor FP8 saved input is columnwise.
module attributes {teq.target = #teq.target<sm_90>} {
  func.func @sp_tp1(%x: tensor<64x128xbf16>, %w: tensor<256x128xbf16>) -> (tensor<64x256xbf16>, tensor<64x128xbf16>, tensor<256x128xbf16>) {
    %y, %sx, %sw = teq.autocast recipe(#teq.float8_current_scaling<>) -> tensor<64x256xbf16>, tensor<64x128xbf16>, tensor<256x128xbf16> {
      %out, %a, %b = teq.linear_forward %x, %w config(#teq.linear<parallel_mode = column, sequence_parallel = true>) : tensor<64x128xbf16>, tensor<256x128xbf16> -> tensor<64x256xbf16> saved_input(tensor<64x128xbf16>) saved_weight(tensor<256x128xbf16>)
      teq.yield %out, %a, %b : tensor<64x256xbf16>, tensor<64x128xbf16>, tensor<256x128xbf16>
    }
    return %y, %sx, %sw : tensor<64x256xbf16>, tensor<64x128xbf16>, tensor<256x128xbf16>
  }
}

// CHECK-LABEL: func.func @sp_tp1(
// CHECK: teq.linear_forward
// CHECK-SAME: saved_input(!teq.proto<64x128xbf16, #teq.float8_current_scaling_quantizer<f8E4M3FN>, columnwise>)

// -----

// Row-parallel + SP: the input is not gathered (grad_output is), so the
// per-tensor FP8 saved input is columnwise and MXFP8 keeps swizzled scales.
module attributes {teq.target = #teq.target<sm_100>} {
  func.func @row_sp(%x: tensor<64x64xbf16>, %w: tensor<128x64xbf16>, %tp: !teq.process_group) -> (tensor<32x128xbf16>, tensor<64x64xbf16>, tensor<128x64xbf16>, tensor<32x128xbf16>, tensor<64x64xbf16>, tensor<128x64xbf16>) {
    %y1, %sx1, %sw1 = teq.autocast recipe(#teq.float8_current_scaling<>) -> tensor<32x128xbf16>, tensor<64x64xbf16>, tensor<128x64xbf16> {
      %out, %a, %b = teq.linear_forward %x, %w tp_group(%tp) config(#teq.linear<parallel_mode = row, sequence_parallel = true, tp_size = 2, name = "fp8">) : tensor<64x64xbf16>, tensor<128x64xbf16> -> tensor<32x128xbf16> saved_input(tensor<64x64xbf16>) saved_weight(tensor<128x64xbf16>)
      teq.yield %out, %a, %b : tensor<32x128xbf16>, tensor<64x64xbf16>, tensor<128x64xbf16>
    }
    %y2, %sx2, %sw2 = teq.autocast recipe(#teq.mxfp8_block_scaling<>) -> tensor<32x128xbf16>, tensor<64x64xbf16>, tensor<128x64xbf16> {
      %out, %a, %b = teq.linear_forward %x, %w tp_group(%tp) config(#teq.linear<parallel_mode = row, sequence_parallel = true, tp_size = 2, name = "mx">) : tensor<64x64xbf16>, tensor<128x64xbf16> -> tensor<32x128xbf16> saved_input(tensor<64x64xbf16>) saved_weight(tensor<128x64xbf16>)
      teq.yield %out, %a, %b : tensor<32x128xbf16>, tensor<64x64xbf16>, tensor<128x64xbf16>
    }
    return %y1, %sx1, %sw1, %y2, %sx2, %sw2 : tensor<32x128xbf16>, tensor<64x64xbf16>, tensor<128x64xbf16>, tensor<32x128xbf16>, tensor<64x64xbf16>, tensor<128x64xbf16>
  }
}

// CHECK-LABEL: func.func @row_sp(
// CHECK: teq.linear_forward
// CHECK-SAME: name = "fp8"
// CHECK-SAME: saved_input(!teq.proto<64x64xbf16, #teq.float8_current_scaling_quantizer<f8E4M3FN>, columnwise>)
// CHECK-SAME: saved_weight(!teq.proto<128x64xbf16, #teq.float8_current_scaling_quantizer<f8E4M3FN>, columnwise>){{$}}
// CHECK: teq.linear_forward
// CHECK-SAME: name = "mx"
// CHECK-SAME: saved_input(!teq.proto<64x64xbf16, #teq.mxfp8_quantizer<f8E4M3FN>, columnwise, gemm_swizzled>)
// CHECK-SAME: saved_weight(!teq.proto<128x64xbf16, #teq.mxfp8_quantizer<f8E4M3FN>, columnwise, gemm_swizzled>){{$}}

// -----

//===----------------------------------------------------------------------===//
// Pre-quantized operands
//===----------------------------------------------------------------------===//

// A !teq.proto input: the saved input is that same prototype (its own
// quantizer and scale layout) with columnwise usage only.
module attributes {teq.target = #teq.target<sm_90>} {
  func.func @prequantized(%x: !teq.proto<64x128xbf16, #teq.float8_current_scaling_quantizer<f8E4M3FN>, rowwise|columnwise>, %w: tensor<256x128xbf16>, %dy: tensor<64x256xbf16>) -> (tensor<64x256xbf16>, tensor<64x128xbf16>, tensor<256x128xbf16>) {
    %y, %sx, %sw = teq.autocast recipe(#teq.float8_current_scaling<>) -> tensor<64x256xbf16>, tensor<64x128xbf16>, tensor<256x128xbf16> {
      %out, %a, %b = teq.linear_forward %x, %w config(#teq.linear<name = "fc1">) : !teq.proto<64x128xbf16, #teq.float8_current_scaling_quantizer<f8E4M3FN>, rowwise|columnwise>, tensor<256x128xbf16> -> tensor<64x256xbf16> saved_input(tensor<64x128xbf16>) saved_weight(tensor<256x128xbf16>)
      teq.yield %out, %a, %b : tensor<64x256xbf16>, tensor<64x128xbf16>, tensor<256x128xbf16>
    }
    %dx, %dw = teq.linear_backward %dy, %sx, %sw config(#teq.linear<name = "fc1">) : tensor<64x256xbf16>, tensor<64x128xbf16>, tensor<256x128xbf16> dgrad(tensor<64x128xbf16>) wgrad(tensor<256x128xbf16>)
    return %y, %dx, %dw : tensor<64x256xbf16>, tensor<64x128xbf16>, tensor<256x128xbf16>
  }
}

// CHECK-LABEL: func.func @prequantized(
// CHECK-SAME: %[[X:[a-z0-9_]+]]: !teq.proto<64x128xbf16, #teq.float8_current_scaling_quantizer<f8E4M3FN>, rowwise|columnwise>,
// CHECK: %{{.*}}, %[[SX:[a-z0-9_]+]], %[[SW:[a-z0-9_]+]] = teq.linear_forward %[[X]], %{{.*}} config
// CHECK-SAME: : !teq.proto<64x128xbf16, #teq.float8_current_scaling_quantizer<f8E4M3FN>, rowwise|columnwise>, tensor<256x128xbf16> -> tensor<64x256xbf16>
// CHECK-SAME: saved_input(!teq.proto<64x128xbf16, #teq.float8_current_scaling_quantizer<f8E4M3FN>, columnwise>)
// CHECK-SAME: saved_weight(!teq.proto<256x128xbf16, #teq.float8_current_scaling_quantizer<f8E4M3FN>, columnwise>){{$}}
// CHECK: teq.linear_backward %{{.*}}, %[[SX]], %[[SW]]
// CHECK-SAME: : tensor<64x256xbf16>, !teq.proto<64x128xbf16, #teq.float8_current_scaling_quantizer<f8E4M3FN>, columnwise>, !teq.proto<256x128xbf16, #teq.float8_current_scaling_quantizer<f8E4M3FN>, columnwise> dgrad

// -----

// A pre-quantized MXFP8 input with compact scales keeps its own (compact)
// layout, and a pre-quantized weight is saved columnwise; the recipe's
// swizzled input layout does not apply to a tensor quantized elsewhere.
module attributes {teq.target = #teq.target<sm_100>} {
  func.func @prequantized_mxfp8(%x: !teq.proto<64x128xbf16, #teq.mxfp8_quantizer<f8E4M3FN>, rowwise|columnwise>, %w: !teq.proto<256x128xbf16, #teq.mxfp8_quantizer<f8E4M3FN>, rowwise|columnwise>) -> (tensor<64x256xbf16>, tensor<64x128xbf16>, tensor<256x128xbf16>) {
    %y, %sx, %sw = teq.autocast recipe(#teq.mxfp8_block_scaling<>) -> tensor<64x256xbf16>, tensor<64x128xbf16>, tensor<256x128xbf16> {
      %out, %a, %b = teq.linear_forward %x, %w config(#teq.linear<>) : !teq.proto<64x128xbf16, #teq.mxfp8_quantizer<f8E4M3FN>, rowwise|columnwise>, !teq.proto<256x128xbf16, #teq.mxfp8_quantizer<f8E4M3FN>, rowwise|columnwise> -> tensor<64x256xbf16> saved_input(tensor<64x128xbf16>) saved_weight(tensor<256x128xbf16>)
      teq.yield %out, %a, %b : tensor<64x256xbf16>, tensor<64x128xbf16>, tensor<256x128xbf16>
    }
    return %y, %sx, %sw : tensor<64x256xbf16>, tensor<64x128xbf16>, tensor<256x128xbf16>
  }
}

// CHECK-LABEL: func.func @prequantized_mxfp8(
// CHECK-SAME: -> (tensor<64x256xbf16>, !teq.proto<64x128xbf16, #teq.mxfp8_quantizer<f8E4M3FN>, columnwise>, !teq.proto<256x128xbf16, #teq.mxfp8_quantizer<f8E4M3FN>, columnwise>)
// CHECK: teq.linear_forward
// CHECK-SAME: saved_input(!teq.proto<64x128xbf16, #teq.mxfp8_quantizer<f8E4M3FN>, columnwise>)
// CHECK-SAME: saved_weight(!teq.proto<256x128xbf16, #teq.mxfp8_quantizer<f8E4M3FN>, columnwise>){{$}}

// -----

//===----------------------------------------------------------------------===//
// Pair of functions: forward returns the saved tensors, backward takes them,
// a caller calls both. Signatures and call sites follow.
//===----------------------------------------------------------------------===//

module attributes {teq.target = #teq.target<sm_100>} {
  func.func @fwd(%x: tensor<64x128xbf16>, %w: tensor<256x128xbf16>) -> (tensor<64x256xbf16>, tensor<64x128xbf16>, tensor<256x128xbf16>) {
    %y, %sx, %sw = teq.autocast recipe(#teq.mxfp8_block_scaling<>) -> tensor<64x256xbf16>, tensor<64x128xbf16>, tensor<256x128xbf16> {
      %out, %a, %b = teq.linear_forward %x, %w config(#teq.linear<name = "fc1">) : tensor<64x128xbf16>, tensor<256x128xbf16> -> tensor<64x256xbf16> saved_input(tensor<64x128xbf16>) saved_weight(tensor<256x128xbf16>)
      teq.yield %out, %a, %b : tensor<64x256xbf16>, tensor<64x128xbf16>, tensor<256x128xbf16>
    }
    return %y, %sx, %sw : tensor<64x256xbf16>, tensor<64x128xbf16>, tensor<256x128xbf16>
  }
  func.func @bwd(%dy: tensor<64x256xbf16>, %sx: tensor<64x128xbf16>, %sw: tensor<256x128xbf16>) -> (tensor<64x128xbf16>, tensor<256x128xbf16>) {
    %dx, %dw = teq.autocast recipe(#teq.mxfp8_block_scaling<>) -> tensor<64x128xbf16>, tensor<256x128xbf16> {
      %a, %b = teq.linear_backward %dy, %sx, %sw config(#teq.linear<name = "fc1">) : tensor<64x256xbf16>, tensor<64x128xbf16>, tensor<256x128xbf16> dgrad(tensor<64x128xbf16>) wgrad(tensor<256x128xbf16>)
      teq.yield %a, %b : tensor<64x128xbf16>, tensor<256x128xbf16>
    }
    return %dx, %dw : tensor<64x128xbf16>, tensor<256x128xbf16>
  }
  func.func @step(%x: tensor<64x128xbf16>, %w: tensor<256x128xbf16>, %dy: tensor<64x256xbf16>) -> (tensor<64x128xbf16>, tensor<256x128xbf16>) {
    %y, %sx, %sw = func.call @fwd(%x, %w) : (tensor<64x128xbf16>, tensor<256x128xbf16>) -> (tensor<64x256xbf16>, tensor<64x128xbf16>, tensor<256x128xbf16>)
    %dx, %dw = func.call @bwd(%dy, %sx, %sw) : (tensor<64x256xbf16>, tensor<64x128xbf16>, tensor<256x128xbf16>) -> (tensor<64x128xbf16>, tensor<256x128xbf16>)
    return %dx, %dw : tensor<64x128xbf16>, tensor<256x128xbf16>
  }
}

// CHECK-LABEL: func.func @fwd(
// CHECK-SAME: %{{.*}}: tensor<64x128xbf16>, %{{.*}}: tensor<256x128xbf16>)
// CHECK-SAME: -> (tensor<64x256xbf16>, !teq.proto<64x128xbf16, #teq.mxfp8_quantizer<f8E4M3FN>, columnwise, gemm_swizzled>, !teq.proto<256x128xbf16, #teq.mxfp8_quantizer<f8E4M3FN>, columnwise, gemm_swizzled>) {
// CHECK: %[[Y:[a-z0-9_]+]], %[[SX:[a-z0-9_]+]], %[[SW:[a-z0-9_]+]] = teq.linear_forward
// CHECK-SAME: saved_input(!teq.proto<64x128xbf16, #teq.mxfp8_quantizer<f8E4M3FN>, columnwise, gemm_swizzled>)
// CHECK-SAME: saved_weight(!teq.proto<256x128xbf16, #teq.mxfp8_quantizer<f8E4M3FN>, columnwise, gemm_swizzled>){{$}}
// CHECK: return %[[Y]], %[[SX]], %[[SW]] : tensor<64x256xbf16>, !teq.proto<64x128xbf16, #teq.mxfp8_quantizer<f8E4M3FN>, columnwise, gemm_swizzled>, !teq.proto<256x128xbf16, #teq.mxfp8_quantizer<f8E4M3FN>, columnwise, gemm_swizzled>{{$}}

// CHECK-LABEL: func.func @bwd(
// CHECK-SAME: %[[DY:[a-z0-9_]+]]: tensor<64x256xbf16>, %[[SX:[a-z0-9_]+]]: !teq.proto<64x128xbf16, #teq.mxfp8_quantizer<f8E4M3FN>, columnwise, gemm_swizzled>, %[[SW:[a-z0-9_]+]]: !teq.proto<256x128xbf16, #teq.mxfp8_quantizer<f8E4M3FN>, columnwise, gemm_swizzled>)
// CHECK-SAME: -> (tensor<64x128xbf16>, tensor<256x128xbf16>) {
// CHECK: teq.linear_backward %[[DY]], %[[SX]], %[[SW]]
// CHECK-SAME: : tensor<64x256xbf16>, !teq.proto<64x128xbf16, #teq.mxfp8_quantizer<f8E4M3FN>, columnwise, gemm_swizzled>, !teq.proto<256x128xbf16, #teq.mxfp8_quantizer<f8E4M3FN>, columnwise, gemm_swizzled> dgrad

// CHECK-LABEL: func.func @step(
// CHECK-SAME: %[[X:[a-z0-9_]+]]: tensor<64x128xbf16>, %[[W:[a-z0-9_]+]]: tensor<256x128xbf16>, %[[DY:[a-z0-9_]+]]: tensor<64x256xbf16>)
// CHECK-SAME: -> (tensor<64x128xbf16>, tensor<256x128xbf16>) {
// CHECK: %[[F:[0-9]+]]:3 = call @fwd(%[[X]], %[[W]]) : (tensor<64x128xbf16>, tensor<256x128xbf16>) -> (tensor<64x256xbf16>, !teq.proto<64x128xbf16, #teq.mxfp8_quantizer<f8E4M3FN>, columnwise, gemm_swizzled>, !teq.proto<256x128xbf16, #teq.mxfp8_quantizer<f8E4M3FN>, columnwise, gemm_swizzled>){{$}}
// CHECK: %[[B:[0-9]+]]:2 = call @bwd(%[[DY]], %[[F]]#1, %[[F]]#2) : (tensor<64x256xbf16>, !teq.proto<64x128xbf16, #teq.mxfp8_quantizer<f8E4M3FN>, columnwise, gemm_swizzled>, !teq.proto<256x128xbf16, #teq.mxfp8_quantizer<f8E4M3FN>, columnwise, gemm_swizzled>) -> (tensor<64x128xbf16>, tensor<256x128xbf16>){{$}}
// CHECK: return %[[B]]#0, %[[B]]#1 : tensor<64x128xbf16>, tensor<256x128xbf16>

// -----

// The pair in another order (callers and backward before forward), current
// scaling under column-parallel SP (backward computes the same rowwise
// saved-input type from its own config), and a second caller that calls
// only forward: every call site of @fwd2 is retyped.
module attributes {teq.target = #teq.target<sm_90>} {
  func.func @step2(%x: tensor<32x128xbf16>, %w: tensor<256x128xbf16>, %dy: tensor<64x256xbf16>, %tp: !teq.process_group) -> (tensor<64x256xbf16>, tensor<32x128xbf16>, tensor<256x128xbf16>) {
    %y, %sx, %sw = func.call @fwd2(%x, %w, %tp) : (tensor<32x128xbf16>, tensor<256x128xbf16>, !teq.process_group) -> (tensor<64x256xbf16>, tensor<32x128xbf16>, tensor<256x128xbf16>)
    %dx, %dw = func.call @bwd2(%dy, %sx, %sw, %tp) : (tensor<64x256xbf16>, tensor<32x128xbf16>, tensor<256x128xbf16>, !teq.process_group) -> (tensor<32x128xbf16>, tensor<256x128xbf16>)
    return %y, %dx, %dw : tensor<64x256xbf16>, tensor<32x128xbf16>, tensor<256x128xbf16>
  }
  func.func @bwd2(%dy: tensor<64x256xbf16>, %sx: tensor<32x128xbf16>, %sw: tensor<256x128xbf16>, %tp: !teq.process_group) -> (tensor<32x128xbf16>, tensor<256x128xbf16>) {
    %dx, %dw = teq.autocast recipe(#teq.float8_current_scaling<>) -> tensor<32x128xbf16>, tensor<256x128xbf16> {
      %a, %b = teq.linear_backward %dy, %sx, %sw tp_group(%tp) config(#teq.linear<parallel_mode = column, sequence_parallel = true, tp_size = 2>) : tensor<64x256xbf16>, tensor<32x128xbf16>, tensor<256x128xbf16> dgrad(tensor<32x128xbf16>) wgrad(tensor<256x128xbf16>)
      teq.yield %a, %b : tensor<32x128xbf16>, tensor<256x128xbf16>
    }
    return %dx, %dw : tensor<32x128xbf16>, tensor<256x128xbf16>
  }
  func.func @fwd2(%x: tensor<32x128xbf16>, %w: tensor<256x128xbf16>, %tp: !teq.process_group) -> (tensor<64x256xbf16>, tensor<32x128xbf16>, tensor<256x128xbf16>) {
    %y, %sx, %sw = teq.autocast recipe(#teq.float8_current_scaling<>) -> tensor<64x256xbf16>, tensor<32x128xbf16>, tensor<256x128xbf16> {
      %out, %a, %b = teq.linear_forward %x, %w tp_group(%tp) config(#teq.linear<parallel_mode = column, sequence_parallel = true, tp_size = 2>) : tensor<32x128xbf16>, tensor<256x128xbf16> -> tensor<64x256xbf16> saved_input(tensor<32x128xbf16>) saved_weight(tensor<256x128xbf16>)
      teq.yield %out, %a, %b : tensor<64x256xbf16>, tensor<32x128xbf16>, tensor<256x128xbf16>
    }
    return %y, %sx, %sw : tensor<64x256xbf16>, tensor<32x128xbf16>, tensor<256x128xbf16>
  }
  func.func @forward_only(%x: tensor<32x128xbf16>, %w: tensor<256x128xbf16>, %tp: !teq.process_group) -> tensor<64x256xbf16> {
    %y, %sx, %sw = func.call @fwd2(%x, %w, %tp) : (tensor<32x128xbf16>, tensor<256x128xbf16>, !teq.process_group) -> (tensor<64x256xbf16>, tensor<32x128xbf16>, tensor<256x128xbf16>)
    return %y : tensor<64x256xbf16>
  }
}

// CHECK-LABEL: func.func @step2(
// CHECK-SAME: -> (tensor<64x256xbf16>, tensor<32x128xbf16>, tensor<256x128xbf16>) {
// CHECK: %[[F:[0-9]+]]:3 = call @fwd2(%{{.*}}) : (tensor<32x128xbf16>, tensor<256x128xbf16>, !teq.process_group) -> (tensor<64x256xbf16>, !teq.proto<32x128xbf16, #teq.float8_current_scaling_quantizer<f8E4M3FN, with_amax_reduction = true>, rowwise>, !teq.proto<256x128xbf16, #teq.float8_current_scaling_quantizer<f8E4M3FN>, columnwise>){{$}}
// CHECK: call @bwd2(%{{.*}}, %[[F]]#1, %[[F]]#2, %{{.*}}) : (tensor<64x256xbf16>, !teq.proto<32x128xbf16, #teq.float8_current_scaling_quantizer<f8E4M3FN, with_amax_reduction = true>, rowwise>, !teq.proto<256x128xbf16, #teq.float8_current_scaling_quantizer<f8E4M3FN>, columnwise>, !teq.process_group) -> (tensor<32x128xbf16>, tensor<256x128xbf16>){{$}}
// CHECK-LABEL: func.func @bwd2(
// CHECK-SAME: %{{.*}}: tensor<64x256xbf16>, %{{.*}}: !teq.proto<32x128xbf16, #teq.float8_current_scaling_quantizer<f8E4M3FN, with_amax_reduction = true>, rowwise>, %{{.*}}: !teq.proto<256x128xbf16, #teq.float8_current_scaling_quantizer<f8E4M3FN>, columnwise>, %{{.*}}: !teq.process_group)
// CHECK-SAME: -> (tensor<32x128xbf16>, tensor<256x128xbf16>) {
// CHECK-LABEL: func.func @fwd2(
// CHECK-SAME: -> (tensor<64x256xbf16>, !teq.proto<32x128xbf16, #teq.float8_current_scaling_quantizer<f8E4M3FN, with_amax_reduction = true>, rowwise>, !teq.proto<256x128xbf16, #teq.float8_current_scaling_quantizer<f8E4M3FN>, columnwise>) {
// CHECK-LABEL: func.func @forward_only(
// CHECK-SAME: -> tensor<64x256xbf16> {
// CHECK: %[[F:[0-9]+]]:3 = call @fwd2(%{{.*}}) : (tensor<32x128xbf16>, tensor<256x128xbf16>, !teq.process_group) -> (tensor<64x256xbf16>, !teq.proto<32x128xbf16, #teq.float8_current_scaling_quantizer<f8E4M3FN, with_amax_reduction = true>, rowwise>, !teq.proto<256x128xbf16, #teq.float8_current_scaling_quantizer<f8E4M3FN>, columnwise>){{$}}
// CHECK: return %[[F]]#0 : tensor<64x256xbf16>

// -----

//===----------------------------------------------------------------------===//
// Programs with several Linears
//===----------------------------------------------------------------------===//

// MLP: fc1, a high-precision activation, fc2; backward through both. Each
// Linear gets its own saved types; the high-precision ops between them keep
// theirs.
module attributes {teq.target = #teq.target<sm_100>} {
  func.func @mlp(%x: tensor<64x128xbf16>, %w1: tensor<256x128xbf16>, %w2: tensor<128x256xbf16>, %dy: tensor<64x128xbf16>) -> (tensor<64x128xbf16>, tensor<64x128xbf16>, tensor<256x128xbf16>, tensor<128x256xbf16>) {
    %y, %s1x, %s1w, %act, %s2x, %s2w = teq.autocast recipe(#teq.mxfp8_block_scaling<>) -> tensor<64x128xbf16>, tensor<64x128xbf16>, tensor<256x128xbf16>, tensor<64x256xbf16>, tensor<64x256xbf16>, tensor<128x256xbf16> {
      %h, %a1, %b1 = teq.linear_forward %x, %w1 config(#teq.linear<name = "fc1">) : tensor<64x128xbf16>, tensor<256x128xbf16> -> tensor<64x256xbf16> saved_input(tensor<64x128xbf16>) saved_weight(tensor<256x128xbf16>)
      %t = math.tanh %h : tensor<64x256xbf16>
      %o, %a2, %b2 = teq.linear_forward %t, %w2 config(#teq.linear<name = "fc2">) : tensor<64x256xbf16>, tensor<128x256xbf16> -> tensor<64x128xbf16> saved_input(tensor<64x256xbf16>) saved_weight(tensor<128x256xbf16>)
      teq.yield %o, %a1, %b1, %t, %a2, %b2 : tensor<64x128xbf16>, tensor<64x128xbf16>, tensor<256x128xbf16>, tensor<64x256xbf16>, tensor<64x256xbf16>, tensor<128x256xbf16>
    }
    %dt, %dw2 = teq.linear_backward %dy, %s2x, %s2w config(#teq.linear<name = "fc2">) : tensor<64x128xbf16>, tensor<64x256xbf16>, tensor<128x256xbf16> dgrad(tensor<64x256xbf16>) wgrad(tensor<128x256xbf16>)
    %dh = arith.mulf %dt, %act : tensor<64x256xbf16>
    %dx, %dw1 = teq.linear_backward %dh, %s1x, %s1w config(#teq.linear<name = "fc1">) : tensor<64x256xbf16>, tensor<64x128xbf16>, tensor<256x128xbf16> dgrad(tensor<64x128xbf16>) wgrad(tensor<256x128xbf16>)
    return %y, %dx, %dw1, %dw2 : tensor<64x128xbf16>, tensor<64x128xbf16>, tensor<256x128xbf16>, tensor<128x256xbf16>
  }
}

// CHECK-LABEL: func.func @mlp(
// CHECK-SAME: -> (tensor<64x128xbf16>, tensor<64x128xbf16>, tensor<256x128xbf16>, tensor<128x256xbf16>) {
// CHECK: %[[H:[a-z0-9_]+]], %[[S1X:[a-z0-9_]+]], %[[S1W:[a-z0-9_]+]] = teq.linear_forward
// CHECK-SAME: name = "fc1"
// CHECK-SAME: saved_input(!teq.proto<64x128xbf16, #teq.mxfp8_quantizer<f8E4M3FN>, columnwise, gemm_swizzled>)
// CHECK-SAME: saved_weight(!teq.proto<256x128xbf16, #teq.mxfp8_quantizer<f8E4M3FN>, columnwise, gemm_swizzled>){{$}}
// CHECK: %[[T:[0-9]+]] = math.tanh %[[H]] : tensor<64x256xbf16>
// CHECK: %{{.*}}, %[[S2X:[a-z0-9_]+]], %[[S2W:[a-z0-9_]+]] = teq.linear_forward %[[T]], %{{.*}} config
// CHECK-SAME: name = "fc2"
// CHECK-SAME: : tensor<64x256xbf16>, tensor<128x256xbf16> -> tensor<64x128xbf16>
// CHECK-SAME: saved_input(!teq.proto<64x256xbf16, #teq.mxfp8_quantizer<f8E4M3FN>, columnwise, gemm_swizzled>)
// CHECK-SAME: saved_weight(!teq.proto<128x256xbf16, #teq.mxfp8_quantizer<f8E4M3FN>, columnwise, gemm_swizzled>){{$}}
// CHECK: %[[DT:[a-z0-9_]+]], %{{.*}} = teq.linear_backward %{{.*}}, %[[S2X]], %[[S2W]]
// CHECK-SAME: : tensor<64x128xbf16>, !teq.proto<64x256xbf16, #teq.mxfp8_quantizer<f8E4M3FN>, columnwise, gemm_swizzled>, !teq.proto<128x256xbf16, #teq.mxfp8_quantizer<f8E4M3FN>, columnwise, gemm_swizzled> dgrad(tensor<64x256xbf16>)
// CHECK: %[[DH:[0-9]+]] = arith.mulf %[[DT]], %[[T]] : tensor<64x256xbf16>
// CHECK: teq.linear_backward %[[DH]], %[[S1X]], %[[S1W]]
// CHECK-SAME: : tensor<64x256xbf16>, !teq.proto<64x128xbf16, #teq.mxfp8_quantizer<f8E4M3FN>, columnwise, gemm_swizzled>, !teq.proto<256x128xbf16, #teq.mxfp8_quantizer<f8E4M3FN>, columnwise, gemm_swizzled> dgrad(tensor<64x128xbf16>)

// -----

// QKV: three Linears read one input. Each saves its own columnwise copy of
// it (the same prototype); the shared input itself stays high precision.
// Forward only, returning the saved tensors: the signature follows.
module attributes {teq.target = #teq.target<sm_90>} {
  func.func @qkv(%x: tensor<64x128xbf16>, %wq: tensor<128x128xbf16>, %wk: tensor<128x128xbf16>, %wv: tensor<128x128xbf16>) -> (tensor<64x128xbf16>, tensor<64x128xbf16>, tensor<64x128xbf16>, tensor<64x128xbf16>, tensor<64x128xbf16>, tensor<64x128xbf16>) {
    %q, %k, %v, %sq, %sk, %sv = teq.autocast recipe(#teq.float8_current_scaling<>) -> tensor<64x128xbf16>, tensor<64x128xbf16>, tensor<64x128xbf16>, tensor<64x128xbf16>, tensor<64x128xbf16>, tensor<64x128xbf16> {
      %q0, %xq, %bq = teq.linear_forward %x, %wq config(#teq.linear<name = "q">) : tensor<64x128xbf16>, tensor<128x128xbf16> -> tensor<64x128xbf16> saved_input(tensor<64x128xbf16>) saved_weight(tensor<128x128xbf16>)
      %k0, %xk, %bk = teq.linear_forward %x, %wk config(#teq.linear<name = "k">) : tensor<64x128xbf16>, tensor<128x128xbf16> -> tensor<64x128xbf16> saved_input(tensor<64x128xbf16>) saved_weight(tensor<128x128xbf16>)
      %v0, %xv, %bv = teq.linear_forward %x, %wv config(#teq.linear<name = "v">) : tensor<64x128xbf16>, tensor<128x128xbf16> -> tensor<64x128xbf16> saved_input(tensor<64x128xbf16>) saved_weight(tensor<128x128xbf16>)
      teq.yield %q0, %k0, %v0, %xq, %xk, %xv : tensor<64x128xbf16>, tensor<64x128xbf16>, tensor<64x128xbf16>, tensor<64x128xbf16>, tensor<64x128xbf16>, tensor<64x128xbf16>
    }
    return %q, %k, %v, %sq, %sk, %sv : tensor<64x128xbf16>, tensor<64x128xbf16>, tensor<64x128xbf16>, tensor<64x128xbf16>, tensor<64x128xbf16>, tensor<64x128xbf16>
  }
}

// CHECK-LABEL: func.func @qkv(
// CHECK-SAME: %[[X:[a-z0-9_]+]]: tensor<64x128xbf16>,
// CHECK-SAME: -> (tensor<64x128xbf16>, tensor<64x128xbf16>, tensor<64x128xbf16>, !teq.proto<64x128xbf16, #teq.float8_current_scaling_quantizer<f8E4M3FN>, columnwise>, !teq.proto<64x128xbf16, #teq.float8_current_scaling_quantizer<f8E4M3FN>, columnwise>, !teq.proto<64x128xbf16, #teq.float8_current_scaling_quantizer<f8E4M3FN>, columnwise>) {
// CHECK: %[[Q:[a-z0-9_]+]], %[[SQ:[a-z0-9_]+]], %{{.*}} = teq.linear_forward %[[X]], %{{.*}} config(#teq.linear<name = "q">)
// CHECK-SAME: : tensor<64x128xbf16>, tensor<128x128xbf16> -> tensor<64x128xbf16>
// CHECK-SAME: saved_input(!teq.proto<64x128xbf16, #teq.float8_current_scaling_quantizer<f8E4M3FN>, columnwise>)
// CHECK-SAME: saved_weight(!teq.proto<128x128xbf16, #teq.float8_current_scaling_quantizer<f8E4M3FN>, columnwise>){{$}}
// CHECK: %[[K:[a-z0-9_]+]], %[[SK:[a-z0-9_]+]], %{{.*}} = teq.linear_forward %[[X]], %{{.*}} config(#teq.linear<name = "k">)
// CHECK-SAME: : tensor<64x128xbf16>, tensor<128x128xbf16> -> tensor<64x128xbf16>
// CHECK-SAME: saved_input(!teq.proto<64x128xbf16, #teq.float8_current_scaling_quantizer<f8E4M3FN>, columnwise>)
// CHECK-SAME: saved_weight(!teq.proto<128x128xbf16, #teq.float8_current_scaling_quantizer<f8E4M3FN>, columnwise>){{$}}
// CHECK: %[[V:[a-z0-9_]+]], %[[SV:[a-z0-9_]+]], %{{.*}} = teq.linear_forward %[[X]], %{{.*}} config(#teq.linear<name = "v">)
// CHECK-SAME: : tensor<64x128xbf16>, tensor<128x128xbf16> -> tensor<64x128xbf16>
// CHECK-SAME: saved_input(!teq.proto<64x128xbf16, #teq.float8_current_scaling_quantizer<f8E4M3FN>, columnwise>)
// CHECK-SAME: saved_weight(!teq.proto<128x128xbf16, #teq.float8_current_scaling_quantizer<f8E4M3FN>, columnwise>){{$}}
// CHECK: return %[[Q]], %[[K]], %[[V]], %[[SQ]], %[[SK]], %[[SV]] : tensor<64x128xbf16>, tensor<64x128xbf16>, tensor<64x128xbf16>, !teq.proto<64x128xbf16, #teq.float8_current_scaling_quantizer<f8E4M3FN>, columnwise>, !teq.proto<64x128xbf16, #teq.float8_current_scaling_quantizer<f8E4M3FN>, columnwise>, !teq.proto<64x128xbf16, #teq.float8_current_scaling_quantizer<f8E4M3FN>, columnwise>{{$}}

// -----

//===----------------------------------------------------------------------===//
// Pre-quantized inputs under SP, backward reading original values, and
// pre-quantized inputs in the pair-of-functions form.
//===----------------------------------------------------------------------===//

// A pre-quantized per-tensor FP8 input under column-parallel SP: §6.1's rule
// does not depend on who quantized the input. Backward re-gathers it and
// per-tensor FP8 gathers rowwise data only, so the saved input must keep its
// rowwise usage (TE's linear.py skips update_usage(columnwise only) for
// per-tensor FP8 when the input needs a gather).
module attributes {teq.target = #teq.target<sm_90>} {
  func.func @prequantized_column_sp(%x: !teq.proto<32x128xbf16, #teq.float8_current_scaling_quantizer<f8E4M3FN, with_amax_reduction = true>, rowwise|columnwise>, %w: tensor<256x128xbf16>, %dy: tensor<64x256xbf16>, %tp: !teq.process_group) -> (tensor<64x256xbf16>, tensor<32x128xbf16>, tensor<256x128xbf16>) {
    %y, %sx, %sw = teq.autocast recipe(#teq.float8_current_scaling<>) -> tensor<64x256xbf16>, tensor<32x128xbf16>, tensor<256x128xbf16> {
      %out, %a, %b = teq.linear_forward %x, %w tp_group(%tp) config(#teq.linear<parallel_mode = column, sequence_parallel = true, tp_size = 2>) : !teq.proto<32x128xbf16, #teq.float8_current_scaling_quantizer<f8E4M3FN, with_amax_reduction = true>, rowwise|columnwise>, tensor<256x128xbf16> -> tensor<64x256xbf16> saved_input(tensor<32x128xbf16>) saved_weight(tensor<256x128xbf16>)
      teq.yield %out, %a, %b : tensor<64x256xbf16>, tensor<32x128xbf16>, tensor<256x128xbf16>
    }
    %dx, %dw = teq.linear_backward %dy, %sx, %sw tp_group(%tp) config(#teq.linear<parallel_mode = column, sequence_parallel = true, tp_size = 2>) : tensor<64x256xbf16>, tensor<32x128xbf16>, tensor<256x128xbf16> dgrad(tensor<32x128xbf16>) wgrad(tensor<256x128xbf16>)
    return %y, %dx, %dw : tensor<64x256xbf16>, tensor<32x128xbf16>, tensor<256x128xbf16>
  }
}

// CHECK-LABEL: func.func @prequantized_column_sp(
// CHECK: teq.linear_forward
// CHECK-SAME: saved_input(!teq.proto<32x128xbf16, #teq.float8_current_scaling_quantizer<f8E4M3FN, with_amax_reduction = true>, rowwise{{(\|columnwise)?}}>)
// CHECK-SAME: saved_weight(!teq.proto<256x128xbf16, #teq.float8_current_scaling_quantizer<f8E4M3FN>, columnwise>){{$}}

// -----

// Backward reading the original values (a saved slot removed by dedupe is
// rebuilt from the original value, TEQOps.td): the forward has no saved
// results, and the function arguments that backward reads are the forward's
// own high-precision operands. They must not be retyped: the function's
// signature and the forward's operands stay high precision.
module attributes {teq.target = #teq.target<sm_90>} {
  func.func @original_values(%x: tensor<64x128xbf16>, %w: tensor<256x128xbf16>, %dy: tensor<64x256xbf16>) -> (tensor<64x256xbf16>, tensor<64x128xbf16>, tensor<256x128xbf16>) {
    %y = teq.autocast recipe(#teq.float8_current_scaling<>) -> tensor<64x256xbf16> {
      %out = teq.linear_forward %x, %w config(#teq.linear<name = "fc1">) : tensor<64x128xbf16>, tensor<256x128xbf16> -> tensor<64x256xbf16>
      teq.yield %out : tensor<64x256xbf16>
    }
    %dx, %dw = teq.linear_backward %dy, %x, %w config(#teq.linear<name = "fc1">) : tensor<64x256xbf16>, tensor<64x128xbf16>, tensor<256x128xbf16> dgrad(tensor<64x128xbf16>) wgrad(tensor<256x128xbf16>)
    return %y, %dx, %dw : tensor<64x256xbf16>, tensor<64x128xbf16>, tensor<256x128xbf16>
  }
}

// CHECK-LABEL: func.func @original_values(
// CHECK-SAME: %[[X:[a-z0-9_]+]]: tensor<64x128xbf16>, %[[W:[a-z0-9_]+]]: tensor<256x128xbf16>, %[[DY:[a-z0-9_]+]]: tensor<64x256xbf16>)
// CHECK-NOT: !teq.proto
// CHECK: teq.linear_forward %[[X]], %[[W]]
// CHECK-SAME: : tensor<64x128xbf16>, tensor<256x128xbf16> -> tensor<64x256xbf16>{{$}}
// CHECK: teq.linear_backward %[[DY]], %[[X]], %[[W]]
// CHECK-SAME: : tensor<64x256xbf16>, tensor<64x128xbf16>, tensor<256x128xbf16> dgrad
// CHECK-NOT: !teq.proto
// CHECK: return

// -----

// The pair-of-functions form with a pre-quantized MXFP8 input (compact
// scales): forward saves that prototype columnwise, compact (as
// @prequantized_mxfp8 above). Backward's argument must take exactly the type
// forward returns, so the call verifies; the recipe's swizzled default does
// not apply to a tensor quantized elsewhere.
module attributes {teq.target = #teq.target<sm_100>} {
  func.func @pq_fwd(%x: !teq.proto<64x128xbf16, #teq.mxfp8_quantizer<f8E4M3FN>, rowwise|columnwise>, %w: tensor<256x128xbf16>) -> (tensor<64x256xbf16>, tensor<64x128xbf16>, tensor<256x128xbf16>) {
    %y, %sx, %sw = teq.autocast recipe(#teq.mxfp8_block_scaling<>) -> tensor<64x256xbf16>, tensor<64x128xbf16>, tensor<256x128xbf16> {
      %out, %a, %b = teq.linear_forward %x, %w config(#teq.linear<name = "fc1">) : !teq.proto<64x128xbf16, #teq.mxfp8_quantizer<f8E4M3FN>, rowwise|columnwise>, tensor<256x128xbf16> -> tensor<64x256xbf16> saved_input(tensor<64x128xbf16>) saved_weight(tensor<256x128xbf16>)
      teq.yield %out, %a, %b : tensor<64x256xbf16>, tensor<64x128xbf16>, tensor<256x128xbf16>
    }
    return %y, %sx, %sw : tensor<64x256xbf16>, tensor<64x128xbf16>, tensor<256x128xbf16>
  }
  func.func @pq_bwd(%dy: tensor<64x256xbf16>, %sx: tensor<64x128xbf16>, %sw: tensor<256x128xbf16>) -> (tensor<64x128xbf16>, tensor<256x128xbf16>) {
    %dx, %dw = teq.autocast recipe(#teq.mxfp8_block_scaling<>) -> tensor<64x128xbf16>, tensor<256x128xbf16> {
      %a, %b = teq.linear_backward %dy, %sx, %sw config(#teq.linear<name = "fc1">) : tensor<64x256xbf16>, tensor<64x128xbf16>, tensor<256x128xbf16> dgrad(tensor<64x128xbf16>) wgrad(tensor<256x128xbf16>)
      teq.yield %a, %b : tensor<64x128xbf16>, tensor<256x128xbf16>
    }
    return %dx, %dw : tensor<64x128xbf16>, tensor<256x128xbf16>
  }
  func.func @pq_step(%x: !teq.proto<64x128xbf16, #teq.mxfp8_quantizer<f8E4M3FN>, rowwise|columnwise>, %w: tensor<256x128xbf16>, %dy: tensor<64x256xbf16>) -> (tensor<64x128xbf16>, tensor<256x128xbf16>) {
    %y, %sx, %sw = func.call @pq_fwd(%x, %w) : (!teq.proto<64x128xbf16, #teq.mxfp8_quantizer<f8E4M3FN>, rowwise|columnwise>, tensor<256x128xbf16>) -> (tensor<64x256xbf16>, tensor<64x128xbf16>, tensor<256x128xbf16>)
    %dx, %dw = func.call @pq_bwd(%dy, %sx, %sw) : (tensor<64x256xbf16>, tensor<64x128xbf16>, tensor<256x128xbf16>) -> (tensor<64x128xbf16>, tensor<256x128xbf16>)
    return %dx, %dw : tensor<64x128xbf16>, tensor<256x128xbf16>
  }
}

// CHECK-LABEL: func.func @pq_fwd(
// CHECK-SAME: -> (tensor<64x256xbf16>, !teq.proto<64x128xbf16, #teq.mxfp8_quantizer<f8E4M3FN>, columnwise>, !teq.proto<256x128xbf16, #teq.mxfp8_quantizer<f8E4M3FN>, columnwise, gemm_swizzled>) {
// CHECK-LABEL: func.func @pq_bwd(
// CHECK-SAME: %{{.*}}: tensor<64x256xbf16>, %{{.*}}: !teq.proto<64x128xbf16, #teq.mxfp8_quantizer<f8E4M3FN>, columnwise>, %{{.*}}: !teq.proto<256x128xbf16, #teq.mxfp8_quantizer<f8E4M3FN>, columnwise, gemm_swizzled>)
// CHECK-LABEL: func.func @pq_step(
// CHECK: %[[F:[0-9]+]]:3 = call @pq_fwd(
// CHECK: call @pq_bwd(%{{.*}}, %[[F]]#1, %[[F]]#2) : (tensor<64x256xbf16>, !teq.proto<64x128xbf16, #teq.mxfp8_quantizer<f8E4M3FN>, columnwise>, !teq.proto<256x128xbf16, #teq.mxfp8_quantizer<f8E4M3FN>, columnwise, gemm_swizzled>) -> (tensor<64x128xbf16>, tensor<256x128xbf16>){{$}}
