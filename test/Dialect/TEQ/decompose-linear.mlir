// teq-decompose-linear: each resolved Linear becomes TE's quantize + GEMM +
// collective ops (te-semantics.md §6.1, §6.3, §6.4, §7):
//   fprop  = gemm TN (w rowwise, x rowwise), bias in the epilogue;
//   dgrad  = gemm NN (w columnwise, dy rowwise);
//   wgrad  = gemm NT (x columnwise, dy columnwise);
// physical_layout is what cuBLASLt runs: TN for Hopper per-tensor FP8, NVFP4
// and block FP8; the logical layout for Blackwell per-tensor FP8, MXFP8 and
// high precision. use_split_accumulator defaults to true and is printed only
// when false: a GEMM attribute dictionary that ends right after
// physical_layout has split accumulation on.
//
// Both RUNs end with teq-legalize-gemm-operands, which swizzles the compact
// scales of gathered MXFP8/NVFP4 operands before their GEMMs (the pipeline's
// order). The first RUN has no CSE, so every quantization the pass emits is
// visible; the second merges them (teq-quantize-cse) and canonicalizes.

// RUN: te-opt %s -split-input-file --teq-resolve-autocast --teq-infer-prototypes --teq-decompose-linear --teq-legalize-gemm-operands | FileCheck %s --implicit-check-not=teq.linear_forward --implicit-check-not=teq.linear_backward --implicit-check-not=teq.autocast
// RUN: te-opt %s -split-input-file --teq-resolve-autocast --teq-infer-prototypes --teq-decompose-linear --teq-legalize-gemm-operands --teq-quantize-cse --canonicalize | FileCheck %s --check-prefix=CSE --implicit-check-not=teq.linear_forward --implicit-check-not=teq.linear_backward

// Float8CurrentScaling on sm_90 (Hopper). Forward quantizes x and w once each
// with every usage forward and backward read (rowwise for fprop, columnwise
// for backward); the saved tensors become update_usage ops of those
// quantizations that keep the columnwise usage. dy is quantized E5M2 with both
// usages. Hopper has no non-TN FP8 GEMM: dgrad and wgrad run TN on the
// transposed copies. fprop uses fast accumulation (split false), dgrad and
// wgrad split accumulation.
module attributes {teq.target = #teq.target<sm_90>} {
  func.func @current_sm90(%x: tensor<64x128xbf16>, %w: tensor<256x128xbf16>, %dy: tensor<64x256xbf16>) -> (tensor<64x256xbf16>, tensor<64x128xbf16>, tensor<256x128xbf16>) {
    %y, %dx, %dw = teq.autocast recipe(#teq.float8_current_scaling<>) -> tensor<64x256xbf16>, tensor<64x128xbf16>, tensor<256x128xbf16> {
      %out, %a, %b = teq.linear_forward %x, %w config(#teq.linear<name = "fc1">) : tensor<64x128xbf16>, tensor<256x128xbf16> -> tensor<64x256xbf16> saved_input(tensor<64x128xbf16>) saved_weight(tensor<256x128xbf16>)
      %gx, %gw = teq.linear_backward %dy, %a, %b config(#teq.linear<name = "fc1">) : tensor<64x256xbf16>, tensor<64x128xbf16>, tensor<256x128xbf16> dgrad(tensor<64x128xbf16>) wgrad(tensor<256x128xbf16>)
      teq.yield %out, %gx, %gw : tensor<64x256xbf16>, tensor<64x128xbf16>, tensor<256x128xbf16>
    }
    return %y, %dx, %dw : tensor<64x256xbf16>, tensor<64x128xbf16>, tensor<256x128xbf16>
  }
}

// CHECK-LABEL: func.func @current_sm90(
// CHECK-SAME: %[[X:[a-z0-9_]+]]: tensor<64x128xbf16>, %[[W:[a-z0-9_]+]]: tensor<256x128xbf16>, %[[DY:[a-z0-9_]+]]: tensor<64x256xbf16>)
// CHECK-NEXT: %[[XQ:[a-z0-9_]+]] = teq.quantize %[[X]] : tensor<64x128xbf16> -> !teq.proto<64x128xbf16, #teq.float8_current_scaling_quantizer<f8E4M3FN>, rowwise|columnwise>
// CHECK-NEXT: %[[WQ:[a-z0-9_]+]] = teq.quantize %[[W]] : tensor<256x128xbf16> -> !teq.proto<256x128xbf16, #teq.float8_current_scaling_quantizer<f8E4M3FN>, rowwise|columnwise>
// CHECK-NEXT: %[[Y:[a-z0-9_]+]] = teq.gemm TN %[[WQ]], %[[XQ]] {kind = #teq.gemm_kind<fprop>, physical_layout = #teq.gemm_layout<TN>, use_split_accumulator = false} : !teq.proto<256x128xbf16, #teq.float8_current_scaling_quantizer<f8E4M3FN>, rowwise|columnwise>, !teq.proto<64x128xbf16, #teq.float8_current_scaling_quantizer<f8E4M3FN>, rowwise|columnwise> -> tensor<64x256xbf16>
// CHECK-NEXT: %[[SX:[a-z0-9_]+]] = teq.update_usage %[[XQ]] : !teq.proto<64x128xbf16, #teq.float8_current_scaling_quantizer<f8E4M3FN>, rowwise|columnwise> -> !teq.proto<64x128xbf16, #teq.float8_current_scaling_quantizer<f8E4M3FN>, columnwise>
// CHECK-NEXT: %[[SW:[a-z0-9_]+]] = teq.update_usage %[[WQ]] : !teq.proto<256x128xbf16, #teq.float8_current_scaling_quantizer<f8E4M3FN>, rowwise|columnwise> -> !teq.proto<256x128xbf16, #teq.float8_current_scaling_quantizer<f8E4M3FN>, columnwise>
// CHECK-NEXT: %[[DYQ:[a-z0-9_]+]] = teq.quantize %[[DY]] : tensor<64x256xbf16> -> !teq.proto<64x256xbf16, #teq.float8_current_scaling_quantizer<f8E5M2>, rowwise|columnwise>
// CHECK-NEXT: %[[DX:[a-z0-9_]+]] = teq.gemm NN %[[SW]], %[[DYQ]] {kind = #teq.gemm_kind<dgrad>, physical_layout = #teq.gemm_layout<TN>} : !teq.proto<256x128xbf16, #teq.float8_current_scaling_quantizer<f8E4M3FN>, columnwise>, !teq.proto<64x256xbf16, #teq.float8_current_scaling_quantizer<f8E5M2>, rowwise|columnwise> -> tensor<64x128xbf16>
// CHECK-NEXT: %[[DW:[a-z0-9_]+]] = teq.gemm NT %[[SX]], %[[DYQ]] {kind = #teq.gemm_kind<wgrad>, physical_layout = #teq.gemm_layout<TN>} : !teq.proto<64x128xbf16, #teq.float8_current_scaling_quantizer<f8E4M3FN>, columnwise>, !teq.proto<64x256xbf16, #teq.float8_current_scaling_quantizer<f8E5M2>, rowwise|columnwise> -> tensor<256x128xbf16>
// CHECK-NEXT: return %[[Y]], %[[DX]], %[[DW]] : tensor<64x256xbf16>, tensor<64x128xbf16>, tensor<256x128xbf16>

// A single Linear has nothing to merge: still three quantizations.
// CSE-LABEL: func.func @current_sm90(
// CSE-COUNT-3: teq.quantize
// CSE-NOT: teq.quantize
// CSE: return

// -----

// The same Linear on sm_100 (Blackwell): per-tensor FP8 GEMMs need not be
// TN, so dgrad and wgrad keep their logical NN and NT layouts.
module attributes {teq.target = #teq.target<sm_100>} {
  func.func @current_sm100(%x: tensor<64x128xbf16>, %w: tensor<256x128xbf16>, %dy: tensor<64x256xbf16>) -> (tensor<64x256xbf16>, tensor<64x128xbf16>, tensor<256x128xbf16>) {
    %y, %dx, %dw = teq.autocast recipe(#teq.float8_current_scaling<>) -> tensor<64x256xbf16>, tensor<64x128xbf16>, tensor<256x128xbf16> {
      %out, %a, %b = teq.linear_forward %x, %w config(#teq.linear<name = "fc1">) : tensor<64x128xbf16>, tensor<256x128xbf16> -> tensor<64x256xbf16> saved_input(tensor<64x128xbf16>) saved_weight(tensor<256x128xbf16>)
      %gx, %gw = teq.linear_backward %dy, %a, %b config(#teq.linear<name = "fc1">) : tensor<64x256xbf16>, tensor<64x128xbf16>, tensor<256x128xbf16> dgrad(tensor<64x128xbf16>) wgrad(tensor<256x128xbf16>)
      teq.yield %out, %gx, %gw : tensor<64x256xbf16>, tensor<64x128xbf16>, tensor<256x128xbf16>
    }
    return %y, %dx, %dw : tensor<64x256xbf16>, tensor<64x128xbf16>, tensor<256x128xbf16>
  }
}

// CHECK-LABEL: func.func @current_sm100(
// CHECK-SAME: %[[X:[a-z0-9_]+]]: tensor<64x128xbf16>, %[[W:[a-z0-9_]+]]: tensor<256x128xbf16>, %[[DY:[a-z0-9_]+]]: tensor<64x256xbf16>)
// CHECK-NEXT: %[[XQ:[a-z0-9_]+]] = teq.quantize %[[X]] : tensor<64x128xbf16> -> !teq.proto<64x128xbf16, #teq.float8_current_scaling_quantizer<f8E4M3FN>, rowwise|columnwise>
// CHECK-NEXT: %[[WQ:[a-z0-9_]+]] = teq.quantize %[[W]] : tensor<256x128xbf16> -> !teq.proto<256x128xbf16, #teq.float8_current_scaling_quantizer<f8E4M3FN>, rowwise|columnwise>
// CHECK-NEXT: %[[Y:[a-z0-9_]+]] = teq.gemm TN %[[WQ]], %[[XQ]] {kind = #teq.gemm_kind<fprop>, physical_layout = #teq.gemm_layout<TN>, use_split_accumulator = false}
// CHECK-NEXT: %[[SX:[a-z0-9_]+]] = teq.update_usage %[[XQ]] : {{.*}} -> !teq.proto<64x128xbf16, #teq.float8_current_scaling_quantizer<f8E4M3FN>, columnwise>
// CHECK-NEXT: %[[SW:[a-z0-9_]+]] = teq.update_usage %[[WQ]] : {{.*}} -> !teq.proto<256x128xbf16, #teq.float8_current_scaling_quantizer<f8E4M3FN>, columnwise>
// CHECK-NEXT: %[[DYQ:[a-z0-9_]+]] = teq.quantize %[[DY]] : tensor<64x256xbf16> -> !teq.proto<64x256xbf16, #teq.float8_current_scaling_quantizer<f8E5M2>, rowwise|columnwise>
// CHECK-NEXT: %[[DX:[a-z0-9_]+]] = teq.gemm NN %[[SW]], %[[DYQ]] {kind = #teq.gemm_kind<dgrad>, physical_layout = #teq.gemm_layout<NN>} :
// CHECK-NEXT: %[[DW:[a-z0-9_]+]] = teq.gemm NT %[[SX]], %[[DYQ]] {kind = #teq.gemm_kind<wgrad>, physical_layout = #teq.gemm_layout<NT>} :
// CHECK-NEXT: return %[[Y]], %[[DX]], %[[DW]] :

// -----

// MXFP8 on sm_100: cuBLASLt keeps the logical layouts (TN, NN, NT). The
// activations x and dy get GEMM-swizzled scales (optimize_for_gemm), and so
// does the weight (TE swizzles it before the GEMM). MXFP8 cannot derive one usage from the other,
// so each tensor is quantized with both usages up front.
module attributes {teq.target = #teq.target<sm_100>} {
  func.func @mxfp8_sm100(%x: tensor<64x128xbf16>, %w: tensor<256x128xbf16>, %dy: tensor<64x256xbf16>) -> (tensor<64x256xbf16>, tensor<64x128xbf16>, tensor<256x128xbf16>) {
    %y, %dx, %dw = teq.autocast recipe(#teq.mxfp8_block_scaling<>) -> tensor<64x256xbf16>, tensor<64x128xbf16>, tensor<256x128xbf16> {
      %out, %a, %b = teq.linear_forward %x, %w config(#teq.linear<name = "fc1">) : tensor<64x128xbf16>, tensor<256x128xbf16> -> tensor<64x256xbf16> saved_input(tensor<64x128xbf16>) saved_weight(tensor<256x128xbf16>)
      %gx, %gw = teq.linear_backward %dy, %a, %b config(#teq.linear<name = "fc1">) : tensor<64x256xbf16>, tensor<64x128xbf16>, tensor<256x128xbf16> dgrad(tensor<64x128xbf16>) wgrad(tensor<256x128xbf16>)
      teq.yield %out, %gx, %gw : tensor<64x256xbf16>, tensor<64x128xbf16>, tensor<256x128xbf16>
    }
    return %y, %dx, %dw : tensor<64x256xbf16>, tensor<64x128xbf16>, tensor<256x128xbf16>
  }
}

// CHECK-LABEL: func.func @mxfp8_sm100(
// CHECK-SAME: %[[X:[a-z0-9_]+]]: tensor<64x128xbf16>, %[[W:[a-z0-9_]+]]: tensor<256x128xbf16>, %[[DY:[a-z0-9_]+]]: tensor<64x256xbf16>)
// CHECK-NEXT: %[[XQ:[a-z0-9_]+]] = teq.quantize %[[X]] : tensor<64x128xbf16> -> !teq.proto<64x128xbf16, #teq.mxfp8_quantizer<f8E4M3FN>, rowwise|columnwise, gemm_swizzled>
// CHECK-NEXT: %[[WQ:[a-z0-9_]+]] = teq.quantize %[[W]] : tensor<256x128xbf16> -> !teq.proto<256x128xbf16, #teq.mxfp8_quantizer<f8E4M3FN>, rowwise|columnwise, gemm_swizzled>
// CHECK-NEXT: %[[Y:[a-z0-9_]+]] = teq.gemm TN %[[WQ]], %[[XQ]] {kind = #teq.gemm_kind<fprop>, physical_layout = #teq.gemm_layout<TN>, use_split_accumulator = false} : !teq.proto<256x128xbf16, #teq.mxfp8_quantizer<f8E4M3FN>, rowwise|columnwise, gemm_swizzled>, !teq.proto<64x128xbf16, #teq.mxfp8_quantizer<f8E4M3FN>, rowwise|columnwise, gemm_swizzled> -> tensor<64x256xbf16>
// CHECK-NEXT: %[[SX:[a-z0-9_]+]] = teq.update_usage %[[XQ]] : !teq.proto<64x128xbf16, #teq.mxfp8_quantizer<f8E4M3FN>, rowwise|columnwise, gemm_swizzled> -> !teq.proto<64x128xbf16, #teq.mxfp8_quantizer<f8E4M3FN>, columnwise, gemm_swizzled>
// CHECK-NEXT: %[[SW:[a-z0-9_]+]] = teq.update_usage %[[WQ]] : !teq.proto<256x128xbf16, #teq.mxfp8_quantizer<f8E4M3FN>, rowwise|columnwise, gemm_swizzled> -> !teq.proto<256x128xbf16, #teq.mxfp8_quantizer<f8E4M3FN>, columnwise, gemm_swizzled>
// CHECK-NEXT: %[[DYQ:[a-z0-9_]+]] = teq.quantize %[[DY]] : tensor<64x256xbf16> -> !teq.proto<64x256xbf16, #teq.mxfp8_quantizer<f8E4M3FN>, rowwise|columnwise, gemm_swizzled>
// CHECK-NEXT: %[[DX:[a-z0-9_]+]] = teq.gemm NN %[[SW]], %[[DYQ]] {kind = #teq.gemm_kind<dgrad>, physical_layout = #teq.gemm_layout<NN>} :
// CHECK-NEXT: %[[DW:[a-z0-9_]+]] = teq.gemm NT %[[SX]], %[[DYQ]] {kind = #teq.gemm_kind<wgrad>, physical_layout = #teq.gemm_layout<NT>} :
// CHECK-NEXT: return %[[Y]], %[[DX]], %[[DW]] :

// -----

// NVFP4 on sm_100: always TN. Inputs get RHT and swizzled scales, the weight
// 16x16 2D blocks, grad_output RHT and stochastic rounding (NVFP4BlockScaling
// defaults). FP4 GEMMs never use fast accumulation, so the recipe leaves
// split accumulation on for all three. grad_output's quantization takes the
// backward Linear's rng_state.
module attributes {teq.target = #teq.target<sm_100>} {
  func.func @nvfp4_sm100(%x: tensor<64x128xbf16>, %w: tensor<256x128xbf16>, %dy: tensor<64x256xbf16>, %rng: tensor<2xi64>) -> (tensor<64x256xbf16>, tensor<64x128xbf16>, tensor<256x128xbf16>) {
    %y, %dx, %dw = teq.autocast recipe(#teq.nvfp4_block_scaling<>) -> tensor<64x256xbf16>, tensor<64x128xbf16>, tensor<256x128xbf16> {
      %out, %a, %b = teq.linear_forward %x, %w config(#teq.linear<name = "fc1">) : tensor<64x128xbf16>, tensor<256x128xbf16> -> tensor<64x256xbf16> saved_input(tensor<64x128xbf16>) saved_weight(tensor<256x128xbf16>)
      %gx, %gw = teq.linear_backward %dy, %a, %b rng_state(%rng : tensor<2xi64>) config(#teq.linear<name = "fc1">) : tensor<64x256xbf16>, tensor<64x128xbf16>, tensor<256x128xbf16> dgrad(tensor<64x128xbf16>) wgrad(tensor<256x128xbf16>)
      teq.yield %out, %gx, %gw : tensor<64x256xbf16>, tensor<64x128xbf16>, tensor<256x128xbf16>
    }
    return %y, %dx, %dw : tensor<64x256xbf16>, tensor<64x128xbf16>, tensor<256x128xbf16>
  }
}

// CHECK-LABEL: func.func @nvfp4_sm100(
// CHECK-SAME: %[[X:[a-z0-9_]+]]: tensor<64x128xbf16>, %[[W:[a-z0-9_]+]]: tensor<256x128xbf16>, %[[DY:[a-z0-9_]+]]: tensor<64x256xbf16>, %[[RNG:[a-z0-9_]+]]: tensor<2xi64>)
// CHECK-NEXT: %[[XQ:[a-z0-9_]+]] = teq.quantize %[[X]] : tensor<64x128xbf16> -> !teq.proto<64x128xbf16, #teq.nvfp4_quantizer<f4E2M1FN, with_rht = true, with_post_rht_amax = true>, rowwise|columnwise, gemm_swizzled>
// CHECK-NEXT: %[[WQ:[a-z0-9_]+]] = teq.quantize %[[W]] : tensor<256x128xbf16> -> !teq.proto<256x128xbf16, #teq.nvfp4_quantizer<f4E2M1FN, with_2d_quantization = true>, rowwise|columnwise, gemm_swizzled>
// CHECK-NEXT: %[[Y:[a-z0-9_]+]] = teq.gemm TN %[[WQ]], %[[XQ]] {kind = #teq.gemm_kind<fprop>, physical_layout = #teq.gemm_layout<TN>} :
// CHECK-NEXT: %[[SX:[a-z0-9_]+]] = teq.update_usage %[[XQ]] : {{.*}} -> !teq.proto<64x128xbf16, #teq.nvfp4_quantizer<f4E2M1FN, with_rht = true, with_post_rht_amax = true>, columnwise, gemm_swizzled>
// CHECK-NEXT: %[[SW:[a-z0-9_]+]] = teq.update_usage %[[WQ]] : {{.*}} -> !teq.proto<256x128xbf16, #teq.nvfp4_quantizer<f4E2M1FN, with_2d_quantization = true>, columnwise, gemm_swizzled>
// CHECK-NEXT: %[[DYQ:[a-z0-9_]+]] = teq.quantize %[[DY]] rng_state(%[[RNG]] : tensor<2xi64>) : tensor<64x256xbf16> -> !teq.proto<64x256xbf16, #teq.nvfp4_quantizer<f4E2M1FN, with_rht = true, with_post_rht_amax = true, stochastic_rounding = true>, rowwise|columnwise, gemm_swizzled>
// CHECK-NEXT: %[[DX:[a-z0-9_]+]] = teq.gemm NN %[[SW]], %[[DYQ]] {kind = #teq.gemm_kind<dgrad>, physical_layout = #teq.gemm_layout<TN>} :
// CHECK-NEXT: %[[DW:[a-z0-9_]+]] = teq.gemm NT %[[SX]], %[[DYQ]] {kind = #teq.gemm_kind<wgrad>, physical_layout = #teq.gemm_layout<TN>} :
// CHECK-NEXT: return %[[Y]], %[[DX]], %[[DW]] :

// -----

// Float8BlockScaling on sm_90: 1x128 blocks for x and dy, 128x128 for w;
// block FP8 runs every GEMM TN and with split accumulation (general_gemm
// forces it for block-scaled operands, so fprop has no
// use_split_accumulator = false either).
module attributes {teq.target = #teq.target<sm_90>} {
  func.func @block_sm90(%x: tensor<64x128xbf16>, %w: tensor<256x128xbf16>, %dy: tensor<64x256xbf16>) -> (tensor<64x256xbf16>, tensor<64x128xbf16>, tensor<256x128xbf16>) {
    %y, %dx, %dw = teq.autocast recipe(#teq.float8_block_scaling<>) -> tensor<64x256xbf16>, tensor<64x128xbf16>, tensor<256x128xbf16> {
      %out, %a, %b = teq.linear_forward %x, %w config(#teq.linear<name = "fc1">) : tensor<64x128xbf16>, tensor<256x128xbf16> -> tensor<64x256xbf16> saved_input(tensor<64x128xbf16>) saved_weight(tensor<256x128xbf16>)
      %gx, %gw = teq.linear_backward %dy, %a, %b config(#teq.linear<name = "fc1">) : tensor<64x256xbf16>, tensor<64x128xbf16>, tensor<256x128xbf16> dgrad(tensor<64x128xbf16>) wgrad(tensor<256x128xbf16>)
      teq.yield %out, %gx, %gw : tensor<64x256xbf16>, tensor<64x128xbf16>, tensor<256x128xbf16>
    }
    return %y, %dx, %dw : tensor<64x256xbf16>, tensor<64x128xbf16>, tensor<256x128xbf16>
  }
}

// CHECK-LABEL: func.func @block_sm90(
// CHECK-SAME: %[[X:[a-z0-9_]+]]: tensor<64x128xbf16>, %[[W:[a-z0-9_]+]]: tensor<256x128xbf16>, %[[DY:[a-z0-9_]+]]: tensor<64x256xbf16>)
// CHECK-NEXT: %[[XQ:[a-z0-9_]+]] = teq.quantize %[[X]] : tensor<64x128xbf16> -> !teq.proto<64x128xbf16, #teq.float8_block_quantizer<f8E4M3FN, block_scaling_dim = 1>, rowwise|columnwise>
// CHECK-NEXT: %[[WQ:[a-z0-9_]+]] = teq.quantize %[[W]] : tensor<256x128xbf16> -> !teq.proto<256x128xbf16, #teq.float8_block_quantizer<f8E4M3FN>, rowwise|columnwise>
// CHECK-NEXT: %[[Y:[a-z0-9_]+]] = teq.gemm TN %[[WQ]], %[[XQ]] {kind = #teq.gemm_kind<fprop>, physical_layout = #teq.gemm_layout<TN>} :
// CHECK-NEXT: %[[SX:[a-z0-9_]+]] = teq.update_usage %[[XQ]] : {{.*}} -> !teq.proto<64x128xbf16, #teq.float8_block_quantizer<f8E4M3FN, block_scaling_dim = 1>, columnwise>
// CHECK-NEXT: %[[SW:[a-z0-9_]+]] = teq.update_usage %[[WQ]] : {{.*}} -> !teq.proto<256x128xbf16, #teq.float8_block_quantizer<f8E4M3FN>, columnwise>
// CHECK-NEXT: %[[DYQ:[a-z0-9_]+]] = teq.quantize %[[DY]] : tensor<64x256xbf16> -> !teq.proto<64x256xbf16, #teq.float8_block_quantizer<f8E4M3FN, block_scaling_dim = 1>, rowwise|columnwise>
// CHECK-NEXT: %[[DX:[a-z0-9_]+]] = teq.gemm NN %[[SW]], %[[DYQ]] {kind = #teq.gemm_kind<dgrad>, physical_layout = #teq.gemm_layout<TN>} :
// CHECK-NEXT: %[[DW:[a-z0-9_]+]] = teq.gemm NT %[[SX]], %[[DYQ]] {kind = #teq.gemm_kind<wgrad>, physical_layout = #teq.gemm_layout<TN>} :
// CHECK-NEXT: return %[[Y]], %[[DX]], %[[DW]] :

// -----

// High precision (autocast disabled) with a bias: bf16 GEMMs on the original
// tensors, no quantization, logical layouts. The bias is fprop's epilogue;
// dbias is the wgrad GEMM's BGRADB epilogue, its second result (no
// teq.bias_grad). The CHECK-NEXT chain covers the whole body.
module attributes {teq.target = #teq.target<sm_90>} {
  func.func @high_precision_bias(%x: tensor<64x128xbf16>, %w: tensor<256x128xbf16>, %b: tensor<256xbf16>, %dy: tensor<64x256xbf16>) -> (tensor<64x256xbf16>, tensor<64x128xbf16>, tensor<256x128xbf16>, tensor<256xbf16>) {
    %y, %dx, %dw, %db = teq.autocast enabled(false) -> tensor<64x256xbf16>, tensor<64x128xbf16>, tensor<256x128xbf16>, tensor<256xbf16> {
      %out, %sa, %sb = teq.linear_forward %x, %w bias(%b : tensor<256xbf16>) config(#teq.linear<bias = true>) : tensor<64x128xbf16>, tensor<256x128xbf16> -> tensor<64x256xbf16> saved_input(tensor<64x128xbf16>) saved_weight(tensor<256x128xbf16>)
      %gx, %gw, %gb = teq.linear_backward %dy, %sa, %sb config(#teq.linear<bias = true>) : tensor<64x256xbf16>, tensor<64x128xbf16>, tensor<256x128xbf16> dgrad(tensor<64x128xbf16>) wgrad(tensor<256x128xbf16>) dbias(tensor<256xbf16>)
      teq.yield %out, %gx, %gw, %gb : tensor<64x256xbf16>, tensor<64x128xbf16>, tensor<256x128xbf16>, tensor<256xbf16>
    }
    return %y, %dx, %dw, %db : tensor<64x256xbf16>, tensor<64x128xbf16>, tensor<256x128xbf16>, tensor<256xbf16>
  }
}

// CHECK-LABEL: func.func @high_precision_bias(
// CHECK-SAME: %[[X:[a-z0-9_]+]]: tensor<64x128xbf16>, %[[W:[a-z0-9_]+]]: tensor<256x128xbf16>, %[[B:[a-z0-9_]+]]: tensor<256xbf16>, %[[DY:[a-z0-9_]+]]: tensor<64x256xbf16>)
// CHECK-NEXT: %[[Y:[a-z0-9_]+]] = teq.gemm TN %[[W]], %[[X]] bias(%[[B]] : tensor<256xbf16>) {kind = #teq.gemm_kind<fprop>, physical_layout = #teq.gemm_layout<TN>} : tensor<256x128xbf16>, tensor<64x128xbf16> -> tensor<64x256xbf16>
// CHECK-NEXT: %[[DX:[a-z0-9_]+]] = teq.gemm NN %[[W]], %[[DY]] {kind = #teq.gemm_kind<dgrad>, physical_layout = #teq.gemm_layout<NN>} : tensor<256x128xbf16>, tensor<64x256xbf16> -> tensor<64x128xbf16>
// CHECK-NEXT: %[[DW:[a-z0-9_]+]], %[[DB:[a-z0-9_]+]] = teq.gemm NT %[[X]], %[[DY]] {kind = #teq.gemm_kind<wgrad>, physical_layout = #teq.gemm_layout<NT>} : tensor<64x128xbf16>, tensor<64x256xbf16> -> tensor<256x128xbf16>, tensor<256xbf16>
// CHECK-NEXT: return %[[Y]], %[[DX]], %[[DW]], %[[DB]] :

// -----

// FP8 with a bias: the bias stays fprop's epilogue; dbias is a teq.bias_grad
// of the high-precision dy (fused with dy's quantization later), and the
// wgrad GEMM has no BGRADB result.
module attributes {teq.target = #teq.target<sm_90>} {
  func.func @current_bias(%x: tensor<64x128xbf16>, %w: tensor<256x128xbf16>, %b: tensor<256xbf16>, %dy: tensor<64x256xbf16>) -> (tensor<64x256xbf16>, tensor<64x128xbf16>, tensor<256x128xbf16>, tensor<256xbf16>) {
    %y, %dx, %dw, %db = teq.autocast recipe(#teq.float8_current_scaling<>) -> tensor<64x256xbf16>, tensor<64x128xbf16>, tensor<256x128xbf16>, tensor<256xbf16> {
      %out, %sa, %sb = teq.linear_forward %x, %w bias(%b : tensor<256xbf16>) config(#teq.linear<bias = true>) : tensor<64x128xbf16>, tensor<256x128xbf16> -> tensor<64x256xbf16> saved_input(tensor<64x128xbf16>) saved_weight(tensor<256x128xbf16>)
      %gx, %gw, %gb = teq.linear_backward %dy, %sa, %sb config(#teq.linear<bias = true>) : tensor<64x256xbf16>, tensor<64x128xbf16>, tensor<256x128xbf16> dgrad(tensor<64x128xbf16>) wgrad(tensor<256x128xbf16>) dbias(tensor<256xbf16>)
      teq.yield %out, %gx, %gw, %gb : tensor<64x256xbf16>, tensor<64x128xbf16>, tensor<256x128xbf16>, tensor<256xbf16>
    }
    return %y, %dx, %dw, %db : tensor<64x256xbf16>, tensor<64x128xbf16>, tensor<256x128xbf16>, tensor<256xbf16>
  }
}

// CHECK-LABEL: func.func @current_bias(
// CHECK-SAME: %[[X:[a-z0-9_]+]]: tensor<64x128xbf16>, %[[W:[a-z0-9_]+]]: tensor<256x128xbf16>, %[[B:[a-z0-9_]+]]: tensor<256xbf16>, %[[DY:[a-z0-9_]+]]: tensor<64x256xbf16>)
// CHECK: %[[Y:[a-z0-9_]+]] = teq.gemm TN %{{.*}}, %{{.*}} bias(%[[B]] : tensor<256xbf16>) {kind = #teq.gemm_kind<fprop>, physical_layout = #teq.gemm_layout<TN>, use_split_accumulator = false}
// CHECK: %[[DX:[a-z0-9_]+]] = teq.gemm NN
// CHECK-NEXT: %[[DW:[a-z0-9_]+]] = teq.gemm NT {{.*}} -> tensor<256x128xbf16>{{$}}
// CHECK-NEXT: %[[DB:[a-z0-9_]+]] = teq.bias_grad %[[DY]] : tensor<64x256xbf16> -> tensor<256xbf16>
// CHECK-NEXT: return %[[Y]], %[[DX]], %[[DW]], %[[DB]] :

// -----

// fuse_wgrad_accumulation: wgrad accumulates into the fp32 main_grad
// (beta = 1) and returns f32.
module attributes {teq.target = #teq.target<sm_90>} {
  func.func @main_grad(%x: tensor<64x128xbf16>, %w: tensor<256x128xbf16>, %dy: tensor<64x256xbf16>, %mg: tensor<256x128xf32>) -> (tensor<64x256xbf16>, tensor<64x128xbf16>, tensor<256x128xf32>) {
    %y, %dx, %dw = teq.autocast recipe(#teq.float8_current_scaling<>) -> tensor<64x256xbf16>, tensor<64x128xbf16>, tensor<256x128xf32> {
      %out, %a, %b = teq.linear_forward %x, %w config(#teq.linear<fuse_wgrad_accumulation = true>) : tensor<64x128xbf16>, tensor<256x128xbf16> -> tensor<64x256xbf16> saved_input(tensor<64x128xbf16>) saved_weight(tensor<256x128xbf16>)
      %gx, %gw = teq.linear_backward %dy, %a, %b main_grad(%mg : tensor<256x128xf32>) config(#teq.linear<fuse_wgrad_accumulation = true>) : tensor<64x256xbf16>, tensor<64x128xbf16>, tensor<256x128xbf16> dgrad(tensor<64x128xbf16>) wgrad(tensor<256x128xf32>)
      teq.yield %out, %gx, %gw : tensor<64x256xbf16>, tensor<64x128xbf16>, tensor<256x128xf32>
    }
    return %y, %dx, %dw : tensor<64x256xbf16>, tensor<64x128xbf16>, tensor<256x128xf32>
  }
}

// CHECK-LABEL: func.func @main_grad(
// CHECK-SAME: %[[MG:[a-z0-9_]+]]: tensor<256x128xf32>)
// CHECK: %[[DX:[a-z0-9_]+]] = teq.gemm NN {{.*}} -> tensor<64x128xbf16>
// CHECK-NEXT: %[[DW:[a-z0-9_]+]] = teq.gemm NT %{{.*}}, %{{.*}} accumulate(%[[MG]] : tensor<256x128xf32>) {kind = #teq.gemm_kind<wgrad>, physical_layout = #teq.gemm_layout<TN>} : {{.*}} -> tensor<256x128xf32>
// CHECK-NEXT: return %{{.*}}, %[[DX]], %[[DW]] : tensor<64x256xbf16>, tensor<64x128xbf16>, tensor<256x128xf32>

// -----

// requires_dgrad = false: no dgrad GEMM; forward quantizes w rowwise only
// (no saved weight) and dy is quantized columnwise only (wgrad's B).
module attributes {teq.target = #teq.target<sm_90>} {
  func.func @no_dgrad(%x: tensor<64x128xbf16>, %w: tensor<256x128xbf16>, %dy: tensor<64x256xbf16>) -> (tensor<64x256xbf16>, tensor<256x128xbf16>) {
    %y, %dw = teq.autocast recipe(#teq.float8_current_scaling<>) -> tensor<64x256xbf16>, tensor<256x128xbf16> {
      %out, %a = teq.linear_forward %x, %w config(#teq.linear<requires_dgrad = false>) : tensor<64x128xbf16>, tensor<256x128xbf16> -> tensor<64x256xbf16> saved_input(tensor<64x128xbf16>)
      %gw = teq.linear_backward %dy, %a, %w config(#teq.linear<requires_dgrad = false>) : tensor<64x256xbf16>, tensor<64x128xbf16>, tensor<256x128xbf16> wgrad(tensor<256x128xbf16>)
      teq.yield %out, %gw : tensor<64x256xbf16>, tensor<256x128xbf16>
    }
    return %y, %dw : tensor<64x256xbf16>, tensor<256x128xbf16>
  }
}

// CHECK-LABEL: func.func @no_dgrad(
// CHECK-SAME: %[[X:[a-z0-9_]+]]: tensor<64x128xbf16>, %[[W:[a-z0-9_]+]]: tensor<256x128xbf16>, %[[DY:[a-z0-9_]+]]: tensor<64x256xbf16>)
// CHECK-NOT: dgrad
// CHECK: teq.quantize %[[W]] : tensor<256x128xbf16> -> !teq.proto<256x128xbf16, #teq.float8_current_scaling_quantizer<f8E4M3FN>, rowwise>
// CHECK-NOT: dgrad
// CHECK: teq.quantize %[[DY]] : tensor<64x256xbf16> -> !teq.proto<64x256xbf16, #teq.float8_current_scaling_quantizer<f8E5M2>, columnwise>
// CHECK-NOT: dgrad
// CHECK: %[[DW:[a-z0-9_]+]] = teq.gemm NT {{.*}}kind = #teq.gemm_kind<wgrad>
// CHECK-NEXT: return %{{.*}}, %[[DW]] :

// -----

// requires_wgrad = false: no wgrad GEMM; the input needs no columnwise copy
// and dy is quantized rowwise only (dgrad's B).
module attributes {teq.target = #teq.target<sm_90>} {
  func.func @no_wgrad(%x: tensor<64x128xbf16>, %w: tensor<256x128xbf16>, %dy: tensor<64x256xbf16>) -> (tensor<64x256xbf16>, tensor<64x128xbf16>) {
    %y, %dx = teq.autocast recipe(#teq.float8_current_scaling<>) -> tensor<64x256xbf16>, tensor<64x128xbf16> {
      %out, %b = teq.linear_forward %x, %w config(#teq.linear<requires_wgrad = false>) : tensor<64x128xbf16>, tensor<256x128xbf16> -> tensor<64x256xbf16> saved_weight(tensor<256x128xbf16>)
      %gx = teq.linear_backward %dy, %x, %b config(#teq.linear<requires_wgrad = false>) : tensor<64x256xbf16>, tensor<64x128xbf16>, tensor<256x128xbf16> dgrad(tensor<64x128xbf16>)
      teq.yield %out, %gx : tensor<64x256xbf16>, tensor<64x128xbf16>
    }
    return %y, %dx : tensor<64x256xbf16>, tensor<64x128xbf16>
  }
}

// CHECK-LABEL: func.func @no_wgrad(
// CHECK-SAME: %[[X:[a-z0-9_]+]]: tensor<64x128xbf16>, %[[W:[a-z0-9_]+]]: tensor<256x128xbf16>, %[[DY:[a-z0-9_]+]]: tensor<64x256xbf16>)
// CHECK-NOT: wgrad
// CHECK: teq.quantize %[[X]] : tensor<64x128xbf16> -> !teq.proto<64x128xbf16, #teq.float8_current_scaling_quantizer<f8E4M3FN>, rowwise>
// CHECK-NOT: wgrad
// CHECK: teq.quantize %[[DY]] : tensor<64x256xbf16> -> !teq.proto<64x256xbf16, #teq.float8_current_scaling_quantizer<f8E5M2>, rowwise>
// CHECK-NEXT: %[[DX:[a-z0-9_]+]] = teq.gemm NN {{.*}}kind = #teq.gemm_kind<dgrad>
// CHECK-NEXT: return %{{.*}}, %[[DX]] :

// -----

// DelayedScaling with explicit state. Forward slots: 0 input, 1 weight
// (2 output is unused); backward slot 0 grad_output. Each stateful quantize
// reads scale[slot] and history[:, slot] (tensor.extract_slice), and its
// updated history column is put back (tensor.insert_slice) before the next
// slot is read; the final history is the op's updated_amax_history.
module attributes {teq.target = #teq.target<sm_90>} {
  func.func @delayed(%x: tensor<64x128xbf16>, %w: tensor<256x128xbf16>, %dy: tensor<64x256xbf16>, %s: tensor<3xf32>, %h: tensor<16x3xf32>, %bs: tensor<2xf32>, %bh: tensor<16x2xf32>) -> (tensor<64x256xbf16>, tensor<64x128xbf16>, tensor<256x128xbf16>, tensor<16x3xf32>, tensor<16x2xf32>) {
    %y, %dx, %dw, %h1, %bh1 = teq.autocast recipe(#teq.delayed_scaling<amax_history_len = 16>) -> tensor<64x256xbf16>, tensor<64x128xbf16>, tensor<256x128xbf16>, tensor<16x3xf32>, tensor<16x2xf32> {
      %out, %a, %b, %hh = teq.linear_forward %x, %w state(%s, %h : tensor<3xf32>, tensor<16x3xf32>) config(#teq.linear<name = "fc1">) : tensor<64x128xbf16>, tensor<256x128xbf16> -> tensor<64x256xbf16> saved_input(tensor<64x128xbf16>) saved_weight(tensor<256x128xbf16>) updated_amax_history(tensor<16x3xf32>)
      %gx, %gw, %bhh = teq.linear_backward %dy, %a, %b state(%bs, %bh : tensor<2xf32>, tensor<16x2xf32>) config(#teq.linear<name = "fc1">) : tensor<64x256xbf16>, tensor<64x128xbf16>, tensor<256x128xbf16> dgrad(tensor<64x128xbf16>) wgrad(tensor<256x128xbf16>) updated_amax_history(tensor<16x2xf32>)
      teq.yield %out, %gx, %gw, %hh, %bhh : tensor<64x256xbf16>, tensor<64x128xbf16>, tensor<256x128xbf16>, tensor<16x3xf32>, tensor<16x2xf32>
    }
    return %y, %dx, %dw, %h1, %bh1 : tensor<64x256xbf16>, tensor<64x128xbf16>, tensor<256x128xbf16>, tensor<16x3xf32>, tensor<16x2xf32>
  }
}

// CHECK-LABEL: func.func @delayed(
// CHECK-SAME: %[[X:[a-z0-9_]+]]: tensor<64x128xbf16>, %[[W:[a-z0-9_]+]]: tensor<256x128xbf16>, %[[DY:[a-z0-9_]+]]: tensor<64x256xbf16>, %[[S:[a-z0-9_]+]]: tensor<3xf32>, %[[H:[a-z0-9_]+]]: tensor<16x3xf32>, %[[BS:[a-z0-9_]+]]: tensor<2xf32>, %[[BH:[a-z0-9_]+]]: tensor<16x2xf32>)
// CHECK-NEXT: %[[S0:[a-z0-9_]+]] = tensor.extract_slice %[[S]][0] [1] [1] : tensor<3xf32> to tensor<1xf32>
// CHECK-NEXT: %[[H0:[a-z0-9_]+]] = tensor.extract_slice %[[H]][0, 0] [16, 1] [1, 1] : tensor<16x3xf32> to tensor<16xf32>
// CHECK-NEXT: %[[XQ:[a-z0-9_]+]], %[[H0U:[a-z0-9_]+]] = teq.quantize %[[X]] state(%[[S0]], %[[H0]] : tensor<1xf32>, tensor<16xf32>) : tensor<64x128xbf16> -> !teq.proto<64x128xbf16, #teq.float8_quantizer<f8E4M3FN>, rowwise|columnwise>, tensor<16xf32>
// CHECK-NEXT: %[[HA:[a-z0-9_]+]] = tensor.insert_slice %[[H0U]] into %[[H]][0, 0] [16, 1] [1, 1] : tensor<16xf32> into tensor<16x3xf32>
// CHECK-NEXT: %[[S1:[a-z0-9_]+]] = tensor.extract_slice %[[S]][1] [1] [1] : tensor<3xf32> to tensor<1xf32>
// CHECK-NEXT: %[[H1:[a-z0-9_]+]] = tensor.extract_slice %[[HA]][0, 1] [16, 1] [1, 1] : tensor<16x3xf32> to tensor<16xf32>
// CHECK-NEXT: %[[WQ:[a-z0-9_]+]], %[[H1U:[a-z0-9_]+]] = teq.quantize %[[W]] state(%[[S1]], %[[H1]] : tensor<1xf32>, tensor<16xf32>) : tensor<256x128xbf16> -> !teq.proto<256x128xbf16, #teq.float8_quantizer<f8E4M3FN>, rowwise|columnwise>, tensor<16xf32>
// CHECK-NEXT: %[[HB:[a-z0-9_]+]] = tensor.insert_slice %[[H1U]] into %[[HA]][0, 1] [16, 1] [1, 1] : tensor<16xf32> into tensor<16x3xf32>
// CHECK-NEXT: %[[Y:[a-z0-9_]+]] = teq.gemm TN %[[WQ]], %[[XQ]] {kind = #teq.gemm_kind<fprop>, physical_layout = #teq.gemm_layout<TN>, use_split_accumulator = false}
// CHECK-NEXT: %[[SX:[a-z0-9_]+]] = teq.update_usage %[[XQ]] : {{.*}} -> !teq.proto<64x128xbf16, #teq.float8_quantizer<f8E4M3FN>, columnwise>
// CHECK-NEXT: %[[SW:[a-z0-9_]+]] = teq.update_usage %[[WQ]] : {{.*}} -> !teq.proto<256x128xbf16, #teq.float8_quantizer<f8E4M3FN>, columnwise>
// CHECK-NEXT: %[[BS0:[a-z0-9_]+]] = tensor.extract_slice %[[BS]][0] [1] [1] : tensor<2xf32> to tensor<1xf32>
// CHECK-NEXT: %[[BH0:[a-z0-9_]+]] = tensor.extract_slice %[[BH]][0, 0] [16, 1] [1, 1] : tensor<16x2xf32> to tensor<16xf32>
// CHECK-NEXT: %[[DYQ:[a-z0-9_]+]], %[[BH0U:[a-z0-9_]+]] = teq.quantize %[[DY]] state(%[[BS0]], %[[BH0]] : tensor<1xf32>, tensor<16xf32>) : tensor<64x256xbf16> -> !teq.proto<64x256xbf16, #teq.float8_quantizer<f8E5M2>, rowwise|columnwise>, tensor<16xf32>
// CHECK-NEXT: %[[BHA:[a-z0-9_]+]] = tensor.insert_slice %[[BH0U]] into %[[BH]][0, 0] [16, 1] [1, 1] : tensor<16xf32> into tensor<16x2xf32>
// CHECK-NEXT: %[[DX:[a-z0-9_]+]] = teq.gemm NN %[[SW]], %[[DYQ]] {kind = #teq.gemm_kind<dgrad>, physical_layout = #teq.gemm_layout<TN>}
// CHECK-NEXT: %[[DW:[a-z0-9_]+]] = teq.gemm NT %[[SX]], %[[DYQ]] {kind = #teq.gemm_kind<wgrad>, physical_layout = #teq.gemm_layout<TN>}
// CHECK-NEXT: return %[[Y]], %[[DX]], %[[DW]], %[[HB]], %[[BHA]] :

// Stateful quantizations are never merged: still three, each with state.
// CSE-LABEL: func.func @delayed(
// CSE-COUNT-3: teq.quantize {{.*}} state(
// CSE-NOT: teq.quantize
// CSE: return

// -----

// Two Linears (Q and K projections) reading one input. The pass emits one
// quantization of x per Linear; teq-quantize-cse merges them, so the CSE run
// quantizes x exactly once.
module attributes {teq.target = #teq.target<sm_90>} {
  func.func @shared_input(%x: tensor<64x128xbf16>, %wq: tensor<128x128xbf16>, %wk: tensor<128x128xbf16>, %dq: tensor<64x128xbf16>, %dk: tensor<64x128xbf16>) -> (tensor<64x128xbf16>, tensor<64x128xbf16>, tensor<128x128xbf16>, tensor<128x128xbf16>) {
    %q, %k, %gwq, %gwk = teq.autocast recipe(#teq.float8_current_scaling<>) -> tensor<64x128xbf16>, tensor<64x128xbf16>, tensor<128x128xbf16>, tensor<128x128xbf16> {
      %oq, %qx = teq.linear_forward %x, %wq config(#teq.linear<requires_dgrad = false, name = "q">) : tensor<64x128xbf16>, tensor<128x128xbf16> -> tensor<64x128xbf16> saved_input(tensor<64x128xbf16>)
      %ok, %kx = teq.linear_forward %x, %wk config(#teq.linear<requires_dgrad = false, name = "k">) : tensor<64x128xbf16>, tensor<128x128xbf16> -> tensor<64x128xbf16> saved_input(tensor<64x128xbf16>)
      %dwk = teq.linear_backward %dk, %kx, %wk config(#teq.linear<requires_dgrad = false, name = "k">) : tensor<64x128xbf16>, tensor<64x128xbf16>, tensor<128x128xbf16> wgrad(tensor<128x128xbf16>)
      %dwq = teq.linear_backward %dq, %qx, %wq config(#teq.linear<requires_dgrad = false, name = "q">) : tensor<64x128xbf16>, tensor<64x128xbf16>, tensor<128x128xbf16> wgrad(tensor<128x128xbf16>)
      teq.yield %oq, %ok, %dwq, %dwk : tensor<64x128xbf16>, tensor<64x128xbf16>, tensor<128x128xbf16>, tensor<128x128xbf16>
    }
    return %q, %k, %gwq, %gwk : tensor<64x128xbf16>, tensor<64x128xbf16>, tensor<128x128xbf16>, tensor<128x128xbf16>
  }
}

// CHECK-LABEL: func.func @shared_input(
// CHECK-SAME: %[[X:[a-z0-9_]+]]: tensor<64x128xbf16>,
// CHECK-COUNT-2: teq.quantize %[[X]] : tensor<64x128xbf16> -> !teq.proto<64x128xbf16, #teq.float8_current_scaling_quantizer<f8E4M3FN>, rowwise|columnwise>
// CHECK-NOT: teq.quantize %[[X]]
// CHECK: return

// CSE-LABEL: func.func @shared_input(
// CSE-SAME: %[[X:[a-z0-9_]+]]: tensor<64x128xbf16>, %[[WQ:[a-z0-9_]+]]: tensor<128x128xbf16>, %[[WK:[a-z0-9_]+]]: tensor<128x128xbf16>,
// CSE-NEXT: %[[XQ:[a-z0-9_]+]] = teq.quantize %[[X]] : tensor<64x128xbf16> -> !teq.proto<64x128xbf16, #teq.float8_current_scaling_quantizer<f8E4M3FN>, rowwise|columnwise>
// CSE-NOT: teq.quantize %[[X]]
// CSE: %[[WQQ:[a-z0-9_]+]] = teq.quantize %[[WQ]]
// CSE-NEXT: teq.gemm TN %[[WQQ]], %[[XQ]] {kind = #teq.gemm_kind<fprop>
// CSE-NOT: teq.quantize %[[X]]
// CSE: %[[WKQ:[a-z0-9_]+]] = teq.quantize %[[WK]]
// CSE-NEXT: teq.gemm TN %[[WKQ]], %[[XQ]] {kind = #teq.gemm_kind<fprop>
// CSE-NOT: teq.quantize %[[X]]
// CSE: return

// -----

// A pre-quantized per-tensor FP8 input that holds only the columnwise usage:
// fprop needs rowwise, which per-tensor FP8 derives (update_usage adds it,
// the transposed copy being the same bytes); no quantize of x.
module attributes {teq.target = #teq.target<sm_90>} {
  func.func @prequantized_input(%x: !teq.proto<64x128xbf16, #teq.float8_current_scaling_quantizer<f8E4M3FN>, columnwise>, %w: tensor<256x128xbf16>, %dy: tensor<64x256xbf16>) -> (tensor<64x256xbf16>, tensor<64x128xbf16>, tensor<256x128xbf16>) {
    %y, %dx, %dw = teq.autocast recipe(#teq.float8_current_scaling<>) -> tensor<64x256xbf16>, tensor<64x128xbf16>, tensor<256x128xbf16> {
      %out, %a, %b = teq.linear_forward %x, %w config(#teq.linear<>) : !teq.proto<64x128xbf16, #teq.float8_current_scaling_quantizer<f8E4M3FN>, columnwise>, tensor<256x128xbf16> -> tensor<64x256xbf16> saved_input(!teq.proto<64x128xbf16, #teq.float8_current_scaling_quantizer<f8E4M3FN>, columnwise>) saved_weight(tensor<256x128xbf16>)
      %gx, %gw = teq.linear_backward %dy, %a, %b config(#teq.linear<>) : tensor<64x256xbf16>, !teq.proto<64x128xbf16, #teq.float8_current_scaling_quantizer<f8E4M3FN>, columnwise>, tensor<256x128xbf16> dgrad(tensor<64x128xbf16>) wgrad(tensor<256x128xbf16>)
      teq.yield %out, %gx, %gw : tensor<64x256xbf16>, tensor<64x128xbf16>, tensor<256x128xbf16>
    }
    return %y, %dx, %dw : tensor<64x256xbf16>, tensor<64x128xbf16>, tensor<256x128xbf16>
  }
}

// CHECK-LABEL: func.func @prequantized_input(
// CHECK-SAME: %[[X:[a-z0-9_]+]]: !teq.proto<64x128xbf16, #teq.float8_current_scaling_quantizer<f8E4M3FN>, columnwise>,
// CHECK-NOT: teq.quantize %[[X]]
// CHECK: %[[XR:[a-z0-9_]+]] = teq.update_usage %[[X]] : !teq.proto<64x128xbf16, #teq.float8_current_scaling_quantizer<f8E4M3FN>, columnwise> -> !teq.proto<64x128xbf16, #teq.float8_current_scaling_quantizer<f8E4M3FN>, rowwise|columnwise>
// CHECK: teq.gemm TN %{{.*}}, %[[XR]] {kind = #teq.gemm_kind<fprop>
// CHECK: teq.gemm NT %{{.*}}, %{{.*}} {kind = #teq.gemm_kind<wgrad>, physical_layout = #teq.gemm_layout<TN>} : !teq.proto<64x128xbf16, #teq.float8_current_scaling_quantizer<f8E4M3FN>, columnwise>,

// -----

// Column-parallel with sequence parallelism, tp_size = 2, per-tensor FP8 on
// sm_90: the local input [32, 128] is quantized rowwise only, with its amax
// reduced over the TP group, and the quantized data is all-gathered to
// [64, 128] before fprop. dgrad [64, 128] is reduce-scattered to [32, 128].
// wgrad re-gathers the saved rowwise input and derives the columnwise
// (transposed) copy after the gather (Hopper cannot gather transposed data).
module attributes {teq.target = #teq.target<sm_90>} {
  func.func @column_sp(%x: tensor<32x128xbf16>, %w: tensor<128x128xbf16>, %dy: tensor<64x128xbf16>, %tp: !teq.process_group) -> (tensor<64x128xbf16>, tensor<32x128xbf16>, tensor<128x128xbf16>) {
    %y, %dx, %dw = teq.autocast recipe(#teq.float8_current_scaling<>) -> tensor<64x128xbf16>, tensor<32x128xbf16>, tensor<128x128xbf16> {
      %out, %a, %b = teq.linear_forward %x, %w tp_group(%tp) config(#teq.linear<parallel_mode = column, sequence_parallel = true, tp_size = 2>) : tensor<32x128xbf16>, tensor<128x128xbf16> -> tensor<64x128xbf16> saved_input(tensor<32x128xbf16>) saved_weight(tensor<128x128xbf16>)
      %gx, %gw = teq.linear_backward %dy, %a, %b tp_group(%tp) config(#teq.linear<parallel_mode = column, sequence_parallel = true, tp_size = 2>) : tensor<64x128xbf16>, tensor<32x128xbf16>, tensor<128x128xbf16> dgrad(tensor<32x128xbf16>) wgrad(tensor<128x128xbf16>)
      teq.yield %out, %gx, %gw : tensor<64x128xbf16>, tensor<32x128xbf16>, tensor<128x128xbf16>
    }
    return %y, %dx, %dw : tensor<64x128xbf16>, tensor<32x128xbf16>, tensor<128x128xbf16>
  }
}

// CHECK-LABEL: func.func @column_sp(
// CHECK-SAME: %[[X:[a-z0-9_]+]]: tensor<32x128xbf16>, %[[W:[a-z0-9_]+]]: tensor<128x128xbf16>, %[[DY:[a-z0-9_]+]]: tensor<64x128xbf16>, %[[TP:[a-z0-9_]+]]: !teq.process_group)
// CHECK-NEXT: %[[XQ:[a-z0-9_]+]] = teq.quantize %[[X]] amax_reduction_group(%[[TP]]) : tensor<32x128xbf16> -> !teq.proto<32x128xbf16, #teq.float8_current_scaling_quantizer<f8E4M3FN, with_amax_reduction = true>, rowwise>
// CHECK-NEXT: %[[WQ:[a-z0-9_]+]] = teq.quantize %[[W]] : tensor<128x128xbf16> -> !teq.proto<128x128xbf16, #teq.float8_current_scaling_quantizer<f8E4M3FN>, rowwise|columnwise>
// CHECK-NEXT: %[[XG:[a-z0-9_]+]] = teq.all_gather %[[XQ]], %[[TP]] {tp_size = 2 : i64} : !teq.proto<32x128xbf16, #teq.float8_current_scaling_quantizer<f8E4M3FN, with_amax_reduction = true>, rowwise> -> !teq.proto<64x128xbf16, #teq.float8_current_scaling_quantizer<f8E4M3FN, with_amax_reduction = true>, rowwise>
// CHECK-NEXT: %[[Y:[a-z0-9_]+]] = teq.gemm TN %[[WQ]], %[[XG]] {kind = #teq.gemm_kind<fprop>, physical_layout = #teq.gemm_layout<TN>, use_split_accumulator = false} : {{.*}} -> tensor<64x128xbf16>
// CHECK-NEXT: %[[SW:[a-z0-9_]+]] = teq.update_usage %[[WQ]] : {{.*}} -> !teq.proto<128x128xbf16, #teq.float8_current_scaling_quantizer<f8E4M3FN>, columnwise>
// CHECK-NEXT: %[[DYQ:[a-z0-9_]+]] = teq.quantize %[[DY]] : tensor<64x128xbf16> -> !teq.proto<64x128xbf16, #teq.float8_current_scaling_quantizer<f8E5M2>, rowwise|columnwise>
// CHECK-NEXT: %[[DXF:[a-z0-9_]+]] = teq.gemm NN %[[SW]], %[[DYQ]] {kind = #teq.gemm_kind<dgrad>, physical_layout = #teq.gemm_layout<TN>} : {{.*}} -> tensor<64x128xbf16>
// CHECK-NEXT: %[[DX:[a-z0-9_]+]] = teq.reduce_scatter %[[DXF]], %[[TP]] {tp_size = 2 : i64} : tensor<64x128xbf16> -> tensor<32x128xbf16>
// CHECK-NEXT: %[[XG2:[a-z0-9_]+]] = teq.all_gather %[[XQ]], %[[TP]] {tp_size = 2 : i64} : !teq.proto<32x128xbf16, #teq.float8_current_scaling_quantizer<f8E4M3FN, with_amax_reduction = true>, rowwise> -> !teq.proto<64x128xbf16, #teq.float8_current_scaling_quantizer<f8E4M3FN, with_amax_reduction = true>, rowwise>
// CHECK-NEXT: %[[XT:[a-z0-9_]+]] = teq.update_usage %[[XG2]] : !teq.proto<64x128xbf16, #teq.float8_current_scaling_quantizer<f8E4M3FN, with_amax_reduction = true>, rowwise> -> !teq.proto<64x128xbf16, #teq.float8_current_scaling_quantizer<f8E4M3FN, with_amax_reduction = true>, rowwise|columnwise>
// CHECK-NEXT: %[[DW:[a-z0-9_]+]] = teq.gemm NT %[[XT]], %[[DYQ]] {kind = #teq.gemm_kind<wgrad>, physical_layout = #teq.gemm_layout<TN>} : {{.*}} -> tensor<128x128xbf16>
// CHECK-NEXT: return %[[Y]], %[[DX]], %[[DW]] : tensor<64x128xbf16>, tensor<32x128xbf16>, tensor<128x128xbf16>

// -----

// Column-parallel SP under MXFP8 (sm_100): the input keeps compact scales for
// the gather; teq.swizzle_scales puts them in the GEMM's layout after it; fprop gathers the rowwise usage,
// wgrad the saved columnwise one (MXFP8 supports a columnwise all-gather).
module attributes {teq.target = #teq.target<sm_100>} {
  func.func @column_sp_mxfp8(%x: tensor<32x128xbf16>, %w: tensor<128x128xbf16>, %dy: tensor<64x128xbf16>, %tp: !teq.process_group) -> (tensor<64x128xbf16>, tensor<32x128xbf16>, tensor<128x128xbf16>) {
    %y, %dx, %dw = teq.autocast recipe(#teq.mxfp8_block_scaling<>) -> tensor<64x128xbf16>, tensor<32x128xbf16>, tensor<128x128xbf16> {
      %out, %a, %b = teq.linear_forward %x, %w tp_group(%tp) config(#teq.linear<parallel_mode = column, sequence_parallel = true, tp_size = 2>) : tensor<32x128xbf16>, tensor<128x128xbf16> -> tensor<64x128xbf16> saved_input(tensor<32x128xbf16>) saved_weight(tensor<128x128xbf16>)
      %gx, %gw = teq.linear_backward %dy, %a, %b tp_group(%tp) config(#teq.linear<parallel_mode = column, sequence_parallel = true, tp_size = 2>) : tensor<64x128xbf16>, tensor<32x128xbf16>, tensor<128x128xbf16> dgrad(tensor<32x128xbf16>) wgrad(tensor<128x128xbf16>)
      teq.yield %out, %gx, %gw : tensor<64x128xbf16>, tensor<32x128xbf16>, tensor<128x128xbf16>
    }
    return %y, %dx, %dw : tensor<64x128xbf16>, tensor<32x128xbf16>, tensor<128x128xbf16>
  }
}

// CHECK-LABEL: func.func @column_sp_mxfp8(
// CHECK-SAME: %[[X:[a-z0-9_]+]]: tensor<32x128xbf16>, %[[W:[a-z0-9_]+]]: tensor<128x128xbf16>, %[[DY:[a-z0-9_]+]]: tensor<64x128xbf16>, %[[TP:[a-z0-9_]+]]: !teq.process_group)
// CHECK-NEXT: %[[XQ:[a-z0-9_]+]] = teq.quantize %[[X]] : tensor<32x128xbf16> -> !teq.proto<32x128xbf16, #teq.mxfp8_quantizer<f8E4M3FN>, rowwise|columnwise>
// CHECK-NEXT: %[[WQ:[a-z0-9_]+]] = teq.quantize %[[W]] : tensor<128x128xbf16> -> !teq.proto<128x128xbf16, #teq.mxfp8_quantizer<f8E4M3FN>, rowwise|columnwise, gemm_swizzled>
// CHECK-NEXT: %[[XR:[a-z0-9_]+]] = teq.update_usage %[[XQ]] : {{.*}} -> !teq.proto<32x128xbf16, #teq.mxfp8_quantizer<f8E4M3FN>, rowwise>
// CHECK-NEXT: %[[XG:[a-z0-9_]+]] = teq.all_gather %[[XR]], %[[TP]] {tp_size = 2 : i64} : !teq.proto<32x128xbf16, #teq.mxfp8_quantizer<f8E4M3FN>, rowwise> -> !teq.proto<64x128xbf16, #teq.mxfp8_quantizer<f8E4M3FN>, rowwise>
// CHECK-NEXT: %[[XS:[a-z0-9_]+]] = teq.swizzle_scales %[[XG]] : !teq.proto<64x128xbf16, #teq.mxfp8_quantizer<f8E4M3FN>, rowwise> -> !teq.proto<64x128xbf16, #teq.mxfp8_quantizer<f8E4M3FN>, rowwise, gemm_swizzled>
// CHECK-NEXT: %[[Y:[a-z0-9_]+]] = teq.gemm TN %[[WQ]], %[[XS]] {kind = #teq.gemm_kind<fprop>, physical_layout = #teq.gemm_layout<TN>, use_split_accumulator = false}
// CHECK-NEXT: %[[SX:[a-z0-9_]+]] = teq.update_usage %[[XQ]] : {{.*}} -> !teq.proto<32x128xbf16, #teq.mxfp8_quantizer<f8E4M3FN>, columnwise>
// CHECK-NEXT: %[[SW:[a-z0-9_]+]] = teq.update_usage %[[WQ]] : {{.*}} -> !teq.proto<128x128xbf16, #teq.mxfp8_quantizer<f8E4M3FN>, columnwise, gemm_swizzled>
// CHECK-NEXT: %[[DYQ:[a-z0-9_]+]] = teq.quantize %[[DY]] : tensor<64x128xbf16> -> !teq.proto<64x128xbf16, #teq.mxfp8_quantizer<f8E4M3FN>, rowwise|columnwise, gemm_swizzled>
// CHECK-NEXT: %[[DXF:[a-z0-9_]+]] = teq.gemm NN %[[SW]], %[[DYQ]] {kind = #teq.gemm_kind<dgrad>, physical_layout = #teq.gemm_layout<NN>}
// CHECK-NEXT: %[[DX:[a-z0-9_]+]] = teq.reduce_scatter %[[DXF]], %[[TP]] {tp_size = 2 : i64} : tensor<64x128xbf16> -> tensor<32x128xbf16>
// CHECK-NEXT: %[[XG2:[a-z0-9_]+]] = teq.all_gather %[[SX]], %[[TP]] {tp_size = 2 : i64} : !teq.proto<32x128xbf16, #teq.mxfp8_quantizer<f8E4M3FN>, columnwise> -> !teq.proto<64x128xbf16, #teq.mxfp8_quantizer<f8E4M3FN>, columnwise>
// CHECK-NEXT: %[[XS2:[a-z0-9_]+]] = teq.swizzle_scales %[[XG2]] : {{.*}} -> !teq.proto<64x128xbf16, #teq.mxfp8_quantizer<f8E4M3FN>, columnwise, gemm_swizzled>
// CHECK-NEXT: %[[DW:[a-z0-9_]+]] = teq.gemm NT %[[XS2]], %[[DYQ]] {kind = #teq.gemm_kind<wgrad>, physical_layout = #teq.gemm_layout<NT>}
// CHECK-NEXT: return %[[Y]], %[[DX]], %[[DW]] :

// -----

// Column-parallel without SP: the input is replicated (no gather); dgrad is
// all-reduced.
module attributes {teq.target = #teq.target<sm_90>} {
  func.func @column(%x: tensor<64x128xbf16>, %w: tensor<128x128xbf16>, %dy: tensor<64x128xbf16>, %tp: !teq.process_group) -> (tensor<64x128xbf16>, tensor<64x128xbf16>, tensor<128x128xbf16>) {
    %y, %dx, %dw = teq.autocast recipe(#teq.float8_current_scaling<>) -> tensor<64x128xbf16>, tensor<64x128xbf16>, tensor<128x128xbf16> {
      %out, %a, %b = teq.linear_forward %x, %w tp_group(%tp) config(#teq.linear<parallel_mode = column, tp_size = 2>) : tensor<64x128xbf16>, tensor<128x128xbf16> -> tensor<64x128xbf16> saved_input(tensor<64x128xbf16>) saved_weight(tensor<128x128xbf16>)
      %gx, %gw = teq.linear_backward %dy, %a, %b tp_group(%tp) config(#teq.linear<parallel_mode = column, tp_size = 2>) : tensor<64x128xbf16>, tensor<64x128xbf16>, tensor<128x128xbf16> dgrad(tensor<64x128xbf16>) wgrad(tensor<128x128xbf16>)
      teq.yield %out, %gx, %gw : tensor<64x128xbf16>, tensor<64x128xbf16>, tensor<128x128xbf16>
    }
    return %y, %dx, %dw : tensor<64x128xbf16>, tensor<64x128xbf16>, tensor<128x128xbf16>
  }
}

// CHECK-LABEL: func.func @column(
// CHECK-SAME: %[[X:[a-z0-9_]+]]: tensor<64x128xbf16>, %[[W:[a-z0-9_]+]]: tensor<128x128xbf16>, %[[DY:[a-z0-9_]+]]: tensor<64x128xbf16>, %[[TP:[a-z0-9_]+]]: !teq.process_group)
// CHECK-NOT: teq.all_gather
// CHECK-NOT: teq.reduce_scatter
// CHECK-NOT: amax_reduction_group
// CHECK: %[[XQ:[a-z0-9_]+]] = teq.quantize %[[X]] : tensor<64x128xbf16> -> !teq.proto<64x128xbf16, #teq.float8_current_scaling_quantizer<f8E4M3FN>, rowwise|columnwise>
// CHECK: %[[Y:[a-z0-9_]+]] = teq.gemm TN %{{.*}}, %[[XQ]] {kind = #teq.gemm_kind<fprop>
// CHECK: %[[DXF:[a-z0-9_]+]] = teq.gemm NN {{.*}}kind = #teq.gemm_kind<dgrad>
// CHECK-NEXT: %[[DX:[a-z0-9_]+]] = teq.all_reduce %[[DXF]], %[[TP]] {tp_size = 2 : i64} : tensor<64x128xbf16> -> tensor<64x128xbf16>
// CHECK-NEXT: %[[DW:[a-z0-9_]+]] = teq.gemm NT {{.*}}kind = #teq.gemm_kind<wgrad>
// CHECK-NEXT: return %[[Y]], %[[DX]], %[[DW]] :

// -----

// Row-parallel with SP, tp_size = 2, with a bias: the full-sequence partial
// output [64, 256] is reduce-scattered to [32, 256] and the bias added after
// the reduction (not in the GEMM epilogue). Backward: the local grad_output
// [32, 256] is quantized rowwise (amax reduced over the group), gathered to
// [64, 256] and given its columnwise copy; dgrad has no communication. dbias
// sums the local rows (teq.bias_grad of the high-precision dy), then over the
// group.
module attributes {teq.target = #teq.target<sm_90>} {
  func.func @row_sp(%x: tensor<64x64xbf16>, %w: tensor<256x64xbf16>, %b: tensor<256xbf16>, %dy: tensor<32x256xbf16>, %tp: !teq.process_group) -> (tensor<32x256xbf16>, tensor<64x64xbf16>, tensor<256x64xbf16>, tensor<256xbf16>) {
    %y, %dx, %dw, %db = teq.autocast recipe(#teq.float8_current_scaling<>) -> tensor<32x256xbf16>, tensor<64x64xbf16>, tensor<256x64xbf16>, tensor<256xbf16> {
      %out, %sa, %sb = teq.linear_forward %x, %w bias(%b : tensor<256xbf16>) tp_group(%tp) config(#teq.linear<bias = true, parallel_mode = row, sequence_parallel = true, tp_size = 2>) : tensor<64x64xbf16>, tensor<256x64xbf16> -> tensor<32x256xbf16> saved_input(tensor<64x64xbf16>) saved_weight(tensor<256x64xbf16>)
      %gx, %gw, %gb = teq.linear_backward %dy, %sa, %sb tp_group(%tp) config(#teq.linear<bias = true, parallel_mode = row, sequence_parallel = true, tp_size = 2>) : tensor<32x256xbf16>, tensor<64x64xbf16>, tensor<256x64xbf16> dgrad(tensor<64x64xbf16>) wgrad(tensor<256x64xbf16>) dbias(tensor<256xbf16>)
      teq.yield %out, %gx, %gw, %gb : tensor<32x256xbf16>, tensor<64x64xbf16>, tensor<256x64xbf16>, tensor<256xbf16>
    }
    return %y, %dx, %dw, %db : tensor<32x256xbf16>, tensor<64x64xbf16>, tensor<256x64xbf16>, tensor<256xbf16>
  }
}

// CHECK-LABEL: func.func @row_sp(
// CHECK-SAME: %[[X:[a-z0-9_]+]]: tensor<64x64xbf16>, %[[W:[a-z0-9_]+]]: tensor<256x64xbf16>, %[[B:[a-z0-9_]+]]: tensor<256xbf16>, %[[DY:[a-z0-9_]+]]: tensor<32x256xbf16>, %[[TP:[a-z0-9_]+]]: !teq.process_group)
// CHECK: %[[P:[a-z0-9_]+]] = teq.gemm TN %{{[a-z0-9_]+}}, %{{[a-z0-9_]+}} {kind = #teq.gemm_kind<fprop>, physical_layout = #teq.gemm_layout<TN>, use_split_accumulator = false} : {{.*}} -> tensor<64x256xbf16>
// CHECK-NEXT: %[[RS:[a-z0-9_]+]] = teq.reduce_scatter %[[P]], %[[TP]] {tp_size = 2 : i64} : tensor<64x256xbf16> -> tensor<32x256xbf16>
// CHECK-NEXT: %[[Y:[a-z0-9_]+]] = teq.bias_add %[[RS]], %[[B]] : tensor<32x256xbf16>, tensor<256xbf16>
// CHECK: %[[DYQ:[a-z0-9_]+]] = teq.quantize %[[DY]] amax_reduction_group(%[[TP]]) : tensor<32x256xbf16> -> !teq.proto<32x256xbf16, #teq.float8_current_scaling_quantizer<f8E5M2, with_amax_reduction = true>, rowwise>
// CHECK-NEXT: %[[DYG:[a-z0-9_]+]] = teq.all_gather %[[DYQ]], %[[TP]] {tp_size = 2 : i64} : !teq.proto<32x256xbf16, #teq.float8_current_scaling_quantizer<f8E5M2, with_amax_reduction = true>, rowwise> -> !teq.proto<64x256xbf16, #teq.float8_current_scaling_quantizer<f8E5M2, with_amax_reduction = true>, rowwise>
// CHECK-NEXT: %[[DYT:[a-z0-9_]+]] = teq.update_usage %[[DYG]] : !teq.proto<64x256xbf16, #teq.float8_current_scaling_quantizer<f8E5M2, with_amax_reduction = true>, rowwise> -> !teq.proto<64x256xbf16, #teq.float8_current_scaling_quantizer<f8E5M2, with_amax_reduction = true>, rowwise|columnwise>
// CHECK-NEXT: %[[DX:[a-z0-9_]+]] = teq.gemm NN %{{[a-z0-9_]+}}, %[[DYT]] {kind = #teq.gemm_kind<dgrad>, physical_layout = #teq.gemm_layout<TN>} : {{.*}} -> tensor<64x64xbf16>
// CHECK-NEXT: %[[DW:[a-z0-9_]+]] = teq.gemm NT %{{[a-z0-9_]+}}, %[[DYT]] {kind = #teq.gemm_kind<wgrad>, physical_layout = #teq.gemm_layout<TN>} : {{.*}} -> tensor<256x64xbf16>
// dbias is the local sum, as in TE: the framework reduces the gradients of
// sequence-parallel parameters.
// CHECK-NEXT: %[[DB:[a-z0-9_]+]] = teq.bias_grad %[[DY]] : tensor<32x256xbf16> -> tensor<256xbf16>
// CHECK-NEXT: return %[[Y]], %[[DX]], %[[DW]], %[[DB]] :

// -----

// Row-parallel without SP: the output is all-reduced, then the bias added;
// grad_output is not gathered and dbias needs no reduction.
module attributes {teq.target = #teq.target<sm_90>} {
  func.func @row(%x: tensor<64x64xbf16>, %w: tensor<256x64xbf16>, %b: tensor<256xbf16>, %dy: tensor<64x256xbf16>, %tp: !teq.process_group) -> (tensor<64x256xbf16>, tensor<64x64xbf16>, tensor<256x64xbf16>, tensor<256xbf16>) {
    %y, %dx, %dw, %db = teq.autocast recipe(#teq.float8_current_scaling<>) -> tensor<64x256xbf16>, tensor<64x64xbf16>, tensor<256x64xbf16>, tensor<256xbf16> {
      %out, %sa, %sb = teq.linear_forward %x, %w bias(%b : tensor<256xbf16>) tp_group(%tp) config(#teq.linear<bias = true, parallel_mode = row, tp_size = 2>) : tensor<64x64xbf16>, tensor<256x64xbf16> -> tensor<64x256xbf16> saved_input(tensor<64x64xbf16>) saved_weight(tensor<256x64xbf16>)
      %gx, %gw, %gb = teq.linear_backward %dy, %sa, %sb tp_group(%tp) config(#teq.linear<bias = true, parallel_mode = row, tp_size = 2>) : tensor<64x256xbf16>, tensor<64x64xbf16>, tensor<256x64xbf16> dgrad(tensor<64x64xbf16>) wgrad(tensor<256x64xbf16>) dbias(tensor<256xbf16>)
      teq.yield %out, %gx, %gw, %gb : tensor<64x256xbf16>, tensor<64x64xbf16>, tensor<256x64xbf16>, tensor<256xbf16>
    }
    return %y, %dx, %dw, %db : tensor<64x256xbf16>, tensor<64x64xbf16>, tensor<256x64xbf16>, tensor<256xbf16>
  }
}

// CHECK-LABEL: func.func @row(
// CHECK-SAME: %[[X:[a-z0-9_]+]]: tensor<64x64xbf16>, %[[W:[a-z0-9_]+]]: tensor<256x64xbf16>, %[[B:[a-z0-9_]+]]: tensor<256xbf16>, %[[DY:[a-z0-9_]+]]: tensor<64x256xbf16>, %[[TP:[a-z0-9_]+]]: !teq.process_group)
// CHECK-NOT: teq.all_gather
// CHECK-NOT: teq.reduce_scatter
// CHECK-NOT: amax_reduction_group
// CHECK: %[[P:[a-z0-9_]+]] = teq.gemm TN %{{[a-z0-9_]+}}, %{{[a-z0-9_]+}} {kind = #teq.gemm_kind<fprop>, physical_layout = #teq.gemm_layout<TN>, use_split_accumulator = false} : {{.*}} -> tensor<64x256xbf16>
// CHECK-NEXT: %[[AR:[a-z0-9_]+]] = teq.all_reduce %[[P]], %[[TP]] {tp_size = 2 : i64} : tensor<64x256xbf16> -> tensor<64x256xbf16>
// CHECK-NEXT: %[[Y:[a-z0-9_]+]] = teq.bias_add %[[AR]], %[[B]] : tensor<64x256xbf16>, tensor<256xbf16>
// CHECK: %[[DYQ:[a-z0-9_]+]] = teq.quantize %[[DY]] : tensor<64x256xbf16> -> !teq.proto<64x256xbf16, #teq.float8_current_scaling_quantizer<f8E5M2>, rowwise|columnwise>
// CHECK-NEXT: %[[DX:[a-z0-9_]+]] = teq.gemm NN %{{[a-z0-9_]+}}, %[[DYQ]] {kind = #teq.gemm_kind<dgrad>
// CHECK-NEXT: %[[DW:[a-z0-9_]+]] = teq.gemm NT %{{[a-z0-9_]+}}, %[[DYQ]] {kind = #teq.gemm_kind<wgrad>
// CHECK-NEXT: %[[DB:[a-z0-9_]+]] = teq.bias_grad %[[DY]] : tensor<64x256xbf16> -> tensor<256xbf16>
// CHECK-NEXT: return %[[Y]], %[[DX]], %[[DW]], %[[DB]] :
