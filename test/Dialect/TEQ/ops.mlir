// RUN: te-opt %s | FileCheck %s
// RUN: te-opt %s | te-opt | FileCheck %s

// Realistic teq programs: a Linear's forward and backward under each recipe,
// a tensor-parallel MLP, a fused QKV projection and a Linear lowered by hand
// to quantize + GEMM. Each must verify and print back unchanged.

// CHECK-LABEL: module @hopper attributes {teq.target = #teq.target<sm_90, cuda = "12.9">}
module @hopper attributes {teq.target = #teq.target<sm_90, cuda = "12.9">} {

// Delayed scaling: the recipe state of the three forward slots and the two
// backward slots is explicit, and the updated histories leave the region.
// CHECK-LABEL: func.func @linear_delayed_scaling(
// CHECK-SAME:  [[X:%.*]]: tensor<128x1024xbf16>, [[W:%.*]]: tensor<4096x1024xbf16>, [[B:%.*]]: tensor<4096xbf16>, [[DY:%.*]]: tensor<128x4096xbf16>, [[FS:%.*]]: tensor<3xf32>, [[FH:%.*]]: tensor<1024x3xf32>, [[BS:%.*]]: tensor<2xf32>, [[BH:%.*]]: tensor<1024x2xf32>, [[DP:%.*]]: !teq.process_group)
// CHECK-NEXT:  [[R:%.*]]:6 = teq.autocast recipe(#teq.delayed_scaling<margin = 1, amax_compute_algo = most_recent>) amax_reduction_group([[DP]]) -> tensor<128x4096xbf16>, tensor<128x1024xbf16>, tensor<4096x1024xbf16>, tensor<4096xbf16>, tensor<1024x3xf32>, tensor<1024x2xf32> {
// CHECK-NEXT:    [[Y:%.*]], [[SX:%.*]], [[SW:%.*]], [[FH2:%.*]] = teq.linear_forward [[X]], [[W]] bias([[B]] : tensor<4096xbf16>) state([[FS]], [[FH]] : tensor<3xf32>, tensor<1024x3xf32>) config(#teq.linear<bias = true, name = "fc1">) : tensor<128x1024xbf16>, tensor<4096x1024xbf16> -> tensor<128x4096xbf16> saved_input(tensor<128x1024xbf16>) saved_weight(tensor<4096x1024xbf16>) updated_amax_history(tensor<1024x3xf32>)
// CHECK-NEXT:    [[DX:%.*]], [[DW:%.*]], [[DB:%.*]], [[BH2:%.*]] = teq.linear_backward [[DY]], [[SX]], [[SW]] state([[BS]], [[BH]] : tensor<2xf32>, tensor<1024x2xf32>) config(#teq.linear<bias = true, name = "fc1">) : tensor<128x4096xbf16>, tensor<128x1024xbf16>, tensor<4096x1024xbf16> dgrad(tensor<128x1024xbf16>) wgrad(tensor<4096x1024xbf16>) dbias(tensor<4096xbf16>) updated_amax_history(tensor<1024x2xf32>)
// CHECK-NEXT:    teq.yield [[Y]], [[DX]], [[DW]], [[DB]], [[FH2]], [[BH2]] : tensor<128x4096xbf16>, tensor<128x1024xbf16>, tensor<4096x1024xbf16>, tensor<4096xbf16>, tensor<1024x3xf32>, tensor<1024x2xf32>
// CHECK-NEXT:  }
// CHECK-NEXT:  return [[R]]#0, [[R]]#1, [[R]]#2, [[R]]#3, [[R]]#4, [[R]]#5 :
func.func @linear_delayed_scaling(
    %x: tensor<128x1024xbf16>, %w: tensor<4096x1024xbf16>, %b: tensor<4096xbf16>, %dy: tensor<128x4096xbf16>,
    %fwd_scale: tensor<3xf32>, %fwd_hist: tensor<1024x3xf32>,
    %bwd_scale: tensor<2xf32>, %bwd_hist: tensor<1024x2xf32>, %dp: !teq.process_group)
    -> (tensor<128x4096xbf16>, tensor<128x1024xbf16>, tensor<4096x1024xbf16>, tensor<4096xbf16>, tensor<1024x3xf32>, tensor<1024x2xf32>) {
  %r:6 = teq.autocast recipe(#teq.delayed_scaling<margin = 1, amax_compute_algo = most_recent>) amax_reduction_group(%dp)
      -> tensor<128x4096xbf16>, tensor<128x1024xbf16>, tensor<4096x1024xbf16>, tensor<4096xbf16>, tensor<1024x3xf32>, tensor<1024x2xf32> {
    %y, %sx, %sw, %fh = teq.linear_forward %x, %w bias(%b : tensor<4096xbf16>)
        state(%fwd_scale, %fwd_hist : tensor<3xf32>, tensor<1024x3xf32>)
        config(#teq.linear<bias = true, name = "fc1">)
        : tensor<128x1024xbf16>, tensor<4096x1024xbf16> -> tensor<128x4096xbf16>
          saved_input(tensor<128x1024xbf16>) saved_weight(tensor<4096x1024xbf16>)
          updated_amax_history(tensor<1024x3xf32>)
    %dx, %dw, %db, %bh = teq.linear_backward %dy, %sx, %sw
        state(%bwd_scale, %bwd_hist : tensor<2xf32>, tensor<1024x2xf32>)
        config(#teq.linear<bias = true, name = "fc1">)
        : tensor<128x4096xbf16>, tensor<128x1024xbf16>, tensor<4096x1024xbf16>
          dgrad(tensor<128x1024xbf16>) wgrad(tensor<4096x1024xbf16>) dbias(tensor<4096xbf16>)
          updated_amax_history(tensor<1024x2xf32>)
    teq.yield %y, %dx, %dw, %db, %fh, %bh
        : tensor<128x4096xbf16>, tensor<128x1024xbf16>, tensor<4096x1024xbf16>, tensor<4096xbf16>, tensor<1024x3xf32>, tensor<1024x2xf32>
  }
  return %r#0, %r#1, %r#2, %r#3, %r#4, %r#5
      : tensor<128x4096xbf16>, tensor<128x1024xbf16>, tensor<4096x1024xbf16>, tensor<4096xbf16>, tensor<1024x3xf32>, tensor<1024x2xf32>
}

// Current scaling with wgrad fused into an fp32 main_grad (Megatron style).
// CHECK-LABEL: func.func @linear_current_scaling(
// CHECK-SAME:  [[X:%.*]]: tensor<4x32x1024xbf16>, [[W:%.*]]: tensor<1024x1024xbf16>, [[DY:%.*]]: tensor<4x32x1024xbf16>, [[MG:%.*]]: tensor<1024x1024xf32>)
// CHECK-NEXT:  [[R:%.*]]:3 = teq.autocast recipe(#teq.float8_current_scaling<fp8_gemm_wgrad = <use_split_accumulator = false>>) -> tensor<4x32x1024xbf16>, tensor<4x32x1024xbf16>, tensor<1024x1024xf32> {
// CHECK-NEXT:    [[Y:%.*]], [[SX:%.*]], [[SW:%.*]] = teq.linear_forward [[X]], [[W]] config(#teq.linear<fuse_wgrad_accumulation = true, name = "proj">) : tensor<4x32x1024xbf16>, tensor<1024x1024xbf16> -> tensor<4x32x1024xbf16> saved_input(tensor<4x32x1024xbf16>) saved_weight(tensor<1024x1024xbf16>)
// CHECK-NEXT:    [[DX:%.*]], [[DW:%.*]] = teq.linear_backward [[DY]], [[SX]], [[SW]] main_grad([[MG]] : tensor<1024x1024xf32>) config(#teq.linear<fuse_wgrad_accumulation = true, name = "proj">) : tensor<4x32x1024xbf16>, tensor<4x32x1024xbf16>, tensor<1024x1024xbf16> dgrad(tensor<4x32x1024xbf16>) wgrad(tensor<1024x1024xf32>)
// CHECK-NEXT:    teq.yield [[Y]], [[DX]], [[DW]] : tensor<4x32x1024xbf16>, tensor<4x32x1024xbf16>, tensor<1024x1024xf32>
// CHECK-NEXT:  }
// CHECK-NEXT:  return [[R]]#0, [[R]]#1, [[R]]#2 :
func.func @linear_current_scaling(
    %x: tensor<4x32x1024xbf16>, %w: tensor<1024x1024xbf16>, %dy: tensor<4x32x1024xbf16>, %main_grad: tensor<1024x1024xf32>)
    -> (tensor<4x32x1024xbf16>, tensor<4x32x1024xbf16>, tensor<1024x1024xf32>) {
  %r:3 = teq.autocast recipe(#teq.float8_current_scaling<fp8_gemm_wgrad = <use_split_accumulator = false>>)
      -> tensor<4x32x1024xbf16>, tensor<4x32x1024xbf16>, tensor<1024x1024xf32> {
    %y, %sx, %sw = teq.linear_forward %x, %w config(#teq.linear<fuse_wgrad_accumulation = true, name = "proj">)
        : tensor<4x32x1024xbf16>, tensor<1024x1024xbf16> -> tensor<4x32x1024xbf16>
          saved_input(tensor<4x32x1024xbf16>) saved_weight(tensor<1024x1024xbf16>)
    %dx, %dw = teq.linear_backward %dy, %sx, %sw main_grad(%main_grad : tensor<1024x1024xf32>)
        config(#teq.linear<fuse_wgrad_accumulation = true, name = "proj">)
        : tensor<4x32x1024xbf16>, tensor<4x32x1024xbf16>, tensor<1024x1024xbf16>
          dgrad(tensor<4x32x1024xbf16>) wgrad(tensor<1024x1024xf32>)
    teq.yield %y, %dx, %dw : tensor<4x32x1024xbf16>, tensor<4x32x1024xbf16>, tensor<1024x1024xf32>
  }
  return %r#0, %r#1, %r#2 : tensor<4x32x1024xbf16>, tensor<4x32x1024xbf16>, tensor<1024x1024xf32>
}

// Block scaling (DeepSeek-V3: 1x128 activations, 128x128 weights). The
// forward runs in the outer region, the backward in a nested one that keeps
// the weight gradient out of FP8.
// CHECK-LABEL: func.func @linear_block_scaling(
// CHECK-SAME:  [[X:%.*]]: tensor<256x2048xbf16>, [[W:%.*]]: tensor<512x2048xbf16>, [[B:%.*]]: tensor<512xbf16>, [[DY:%.*]]: tensor<256x512xbf16>)
// CHECK-NEXT:  [[R:%.*]]:4 = teq.autocast recipe(#teq.float8_block_scaling<>) -> tensor<256x512xbf16>, tensor<256x2048xbf16>, tensor<512x2048xbf16>, tensor<512xbf16> {
// CHECK-NEXT:    [[Y:%.*]], [[SX:%.*]], [[SW:%.*]] = teq.linear_forward [[X]], [[W]] bias([[B]] : tensor<512xbf16>) config(#teq.linear<bias = true>) : tensor<256x2048xbf16>, tensor<512x2048xbf16> -> tensor<256x512xbf16> saved_input(tensor<256x2048xbf16>) saved_weight(tensor<512x2048xbf16>)
// CHECK-NEXT:    [[G:%.*]]:3 = teq.autocast enabled(false) -> tensor<256x2048xbf16>, tensor<512x2048xbf16>, tensor<512xbf16> {
// CHECK-NEXT:      [[DX:%.*]], [[DW:%.*]], [[DB:%.*]] = teq.linear_backward [[DY]], [[SX]], [[SW]] config(#teq.linear<bias = true>) : tensor<256x512xbf16>, tensor<256x2048xbf16>, tensor<512x2048xbf16> dgrad(tensor<256x2048xbf16>) wgrad(tensor<512x2048xbf16>) dbias(tensor<512xbf16>)
// CHECK-NEXT:      teq.yield [[DX]], [[DW]], [[DB]] : tensor<256x2048xbf16>, tensor<512x2048xbf16>, tensor<512xbf16>
// CHECK-NEXT:    }
// CHECK-NEXT:    teq.yield [[Y]], [[G]]#0, [[G]]#1, [[G]]#2 : tensor<256x512xbf16>, tensor<256x2048xbf16>, tensor<512x2048xbf16>, tensor<512xbf16>
// CHECK-NEXT:  }
// CHECK-NEXT:  return [[R]]#0, [[R]]#1, [[R]]#2, [[R]]#3 :
func.func @linear_block_scaling(
    %x: tensor<256x2048xbf16>, %w: tensor<512x2048xbf16>, %b: tensor<512xbf16>, %dy: tensor<256x512xbf16>)
    -> (tensor<256x512xbf16>, tensor<256x2048xbf16>, tensor<512x2048xbf16>, tensor<512xbf16>) {
  %r:4 = teq.autocast recipe(#teq.float8_block_scaling<x_block_scaling_dim = 1, w_block_scaling_dim = 2, grad_block_scaling_dim = 1>)
      -> tensor<256x512xbf16>, tensor<256x2048xbf16>, tensor<512x2048xbf16>, tensor<512xbf16> {
    %y, %sx, %sw = teq.linear_forward %x, %w bias(%b : tensor<512xbf16>) config(#teq.linear<bias = true>)
        : tensor<256x2048xbf16>, tensor<512x2048xbf16> -> tensor<256x512xbf16>
          saved_input(tensor<256x2048xbf16>) saved_weight(tensor<512x2048xbf16>)
    %g:3 = teq.autocast enabled(false) -> tensor<256x2048xbf16>, tensor<512x2048xbf16>, tensor<512xbf16> {
      %dx, %dw, %db = teq.linear_backward %dy, %sx, %sw config(#teq.linear<bias = true>)
          : tensor<256x512xbf16>, tensor<256x2048xbf16>, tensor<512x2048xbf16>
            dgrad(tensor<256x2048xbf16>) wgrad(tensor<512x2048xbf16>) dbias(tensor<512xbf16>)
      teq.yield %dx, %dw, %db : tensor<256x2048xbf16>, tensor<512x2048xbf16>, tensor<512xbf16>
    }
    teq.yield %y, %g#0, %g#1, %g#2 : tensor<256x512xbf16>, tensor<256x2048xbf16>, tensor<512x2048xbf16>, tensor<512xbf16>
  }
  return %r#0, %r#1, %r#2, %r#3 : tensor<256x512xbf16>, tensor<256x2048xbf16>, tensor<512x2048xbf16>, tensor<512xbf16>
}

// A current-scaling Linear lowered by hand (te-semantics.md §6.1): quantize
// x, w and dy, then the fprop TN, dgrad NN and wgrad NT GEMMs. The saved
// input keeps only its columnwise copy.
// CHECK-LABEL: func.func @linear_lowered(
// CHECK-SAME:  [[X:%.*]]: tensor<128x1024xbf16>, [[W:%.*]]: tensor<4096x1024xbf16>, [[B:%.*]]: tensor<4096xbf16>, [[DY:%.*]]: tensor<128x4096xbf16>)
// CHECK-NEXT:  [[XQ:%.*]] = teq.quantize [[X]] : tensor<128x1024xbf16> -> !teq.proto<128x1024xbf16, #teq.float8_current_scaling_quantizer<f8E4M3FN>, rowwise|columnwise>
// CHECK-NEXT:  [[WQ:%.*]] = teq.quantize [[W]] : tensor<4096x1024xbf16> -> !teq.proto<4096x1024xbf16, #teq.float8_current_scaling_quantizer<f8E4M3FN>, rowwise|columnwise>
// CHECK-NEXT:  [[Y:%.*]] = teq.gemm TN [[WQ]], [[XQ]] bias([[B]] : tensor<4096xbf16>) {kind = #teq.gemm_kind<fprop>, use_split_accumulator = false} : !teq.proto<4096x1024xbf16, #teq.float8_current_scaling_quantizer<f8E4M3FN>, rowwise|columnwise>, !teq.proto<128x1024xbf16, #teq.float8_current_scaling_quantizer<f8E4M3FN>, rowwise|columnwise> -> tensor<128x4096xbf16>
// CHECK-NEXT:  [[SX:%.*]] = teq.update_usage [[XQ]] : !teq.proto<128x1024xbf16, #teq.float8_current_scaling_quantizer<f8E4M3FN>, rowwise|columnwise> -> !teq.proto<128x1024xbf16, #teq.float8_current_scaling_quantizer<f8E4M3FN>, columnwise>
// CHECK-NEXT:  [[DYQ:%.*]] = teq.quantize [[DY]] : tensor<128x4096xbf16> -> !teq.proto<128x4096xbf16, #teq.float8_current_scaling_quantizer<f8E5M2>, rowwise|columnwise>
// CHECK-NEXT:  [[DX:%.*]] = teq.gemm NN [[WQ]], [[DYQ]] {kind = #teq.gemm_kind<dgrad>} : !teq.proto<4096x1024xbf16, #teq.float8_current_scaling_quantizer<f8E4M3FN>, rowwise|columnwise>, !teq.proto<128x4096xbf16, #teq.float8_current_scaling_quantizer<f8E5M2>, rowwise|columnwise> -> tensor<128x1024xbf16>
// CHECK-NEXT:  [[DW:%.*]] = teq.gemm NT [[SX]], [[DYQ]] {kind = #teq.gemm_kind<wgrad>} : !teq.proto<128x1024xbf16, #teq.float8_current_scaling_quantizer<f8E4M3FN>, columnwise>, !teq.proto<128x4096xbf16, #teq.float8_current_scaling_quantizer<f8E5M2>, rowwise|columnwise> -> tensor<4096x1024xbf16>
// CHECK-NEXT:  return [[Y]], [[DX]], [[DW]] : tensor<128x4096xbf16>, tensor<128x1024xbf16>, tensor<4096x1024xbf16>
func.func @linear_lowered(
    %x: tensor<128x1024xbf16>, %w: tensor<4096x1024xbf16>, %b: tensor<4096xbf16>, %dy: tensor<128x4096xbf16>)
    -> (tensor<128x4096xbf16>, tensor<128x1024xbf16>, tensor<4096x1024xbf16>) {
  %xq = teq.quantize %x : tensor<128x1024xbf16>
      -> !teq.proto<128x1024xbf16, #teq.float8_current_scaling_quantizer<f8E4M3FN>, rowwise|columnwise>
  %wq = teq.quantize %w : tensor<4096x1024xbf16>
      -> !teq.proto<4096x1024xbf16, #teq.float8_current_scaling_quantizer<f8E4M3FN>, rowwise|columnwise>
  %y = teq.gemm TN %wq, %xq bias(%b : tensor<4096xbf16>) {kind = #teq.gemm_kind<fprop>, use_split_accumulator = false}
      : !teq.proto<4096x1024xbf16, #teq.float8_current_scaling_quantizer<f8E4M3FN>, rowwise|columnwise>,
        !teq.proto<128x1024xbf16, #teq.float8_current_scaling_quantizer<f8E4M3FN>, rowwise|columnwise>
      -> tensor<128x4096xbf16>
  %sx = teq.update_usage %xq
      : !teq.proto<128x1024xbf16, #teq.float8_current_scaling_quantizer<f8E4M3FN>, rowwise|columnwise>
      -> !teq.proto<128x1024xbf16, #teq.float8_current_scaling_quantizer<f8E4M3FN>, columnwise>
  %dyq = teq.quantize %dy : tensor<128x4096xbf16>
      -> !teq.proto<128x4096xbf16, #teq.float8_current_scaling_quantizer<f8E5M2>, rowwise|columnwise>
  %dx = teq.gemm NN %wq, %dyq {kind = #teq.gemm_kind<dgrad>}
      : !teq.proto<4096x1024xbf16, #teq.float8_current_scaling_quantizer<f8E4M3FN>, rowwise|columnwise>,
        !teq.proto<128x4096xbf16, #teq.float8_current_scaling_quantizer<f8E5M2>, rowwise|columnwise>
      -> tensor<128x1024xbf16>
  %dw = teq.gemm NT %sx, %dyq {kind = #teq.gemm_kind<wgrad>}
      : !teq.proto<128x1024xbf16, #teq.float8_current_scaling_quantizer<f8E4M3FN>, columnwise>,
        !teq.proto<128x4096xbf16, #teq.float8_current_scaling_quantizer<f8E5M2>, rowwise|columnwise>
      -> tensor<4096x1024xbf16>
  return %y, %dx, %dw : tensor<128x4096xbf16>, tensor<128x1024xbf16>, tensor<4096x1024xbf16>
}

}

// Blackwell: MXFP8, NVFP4 and custom recipes.
// CHECK-LABEL: module @blackwell attributes {teq.target = #teq.target<sm_100a>}
module @blackwell attributes {teq.target = #teq.target<sm_100a>} {

// MXFP8 with the forward quantized and saved tensors already prototypes (as
// after prototype inference): the saved input and weight hold the usages
// wgrad and dgrad read.
// CHECK-LABEL: func.func @linear_mxfp8(
// CHECK-SAME:  [[X:%.*]]: tensor<128x1024xbf16>, [[W:%.*]]: tensor<4096x1024xbf16>, [[DY:%.*]]: tensor<128x4096xbf16>)
// CHECK-NEXT:  [[R:%.*]]:3 = teq.autocast recipe(#teq.mxfp8_block_scaling<enable_2d_quantization = true>) -> tensor<128x4096xbf16>, tensor<128x1024xbf16>, tensor<4096x1024xbf16> {
// CHECK-NEXT:    [[Y:%.*]], [[SX:%.*]], [[SW:%.*]] = teq.linear_forward [[X]], [[W]] config(#teq.linear<>) : tensor<128x1024xbf16>, tensor<4096x1024xbf16> -> tensor<128x4096xbf16> saved_input(!teq.proto<128x1024xbf16, #teq.mxfp8_quantizer<f8E4M3FN>, columnwise, gemm_swizzled>) saved_weight(!teq.proto<4096x1024xbf16, #teq.mxfp8_quantizer<f8E4M3FN, with_2d_quantization = true>, columnwise, gemm_swizzled>)
// CHECK-NEXT:    [[DX:%.*]], [[DW:%.*]] = teq.linear_backward [[DY]], [[SX]], [[SW]] config(#teq.linear<>) : tensor<128x4096xbf16>, !teq.proto<128x1024xbf16, #teq.mxfp8_quantizer<f8E4M3FN>, columnwise, gemm_swizzled>, !teq.proto<4096x1024xbf16, #teq.mxfp8_quantizer<f8E4M3FN, with_2d_quantization = true>, columnwise, gemm_swizzled> dgrad(tensor<128x1024xbf16>) wgrad(tensor<4096x1024xbf16>)
// CHECK-NEXT:    teq.yield [[Y]], [[DX]], [[DW]] : tensor<128x4096xbf16>, tensor<128x1024xbf16>, tensor<4096x1024xbf16>
// CHECK-NEXT:  }
// CHECK-NEXT:  return [[R]]#0, [[R]]#1, [[R]]#2 :
func.func @linear_mxfp8(%x: tensor<128x1024xbf16>, %w: tensor<4096x1024xbf16>, %dy: tensor<128x4096xbf16>)
    -> (tensor<128x4096xbf16>, tensor<128x1024xbf16>, tensor<4096x1024xbf16>) {
  %r:3 = teq.autocast recipe(#teq.mxfp8_block_scaling<enable_2d_quantization = true>)
      -> tensor<128x4096xbf16>, tensor<128x1024xbf16>, tensor<4096x1024xbf16> {
    %y, %sx, %sw = teq.linear_forward %x, %w config(#teq.linear<>)
        : tensor<128x1024xbf16>, tensor<4096x1024xbf16> -> tensor<128x4096xbf16>
          saved_input(!teq.proto<128x1024xbf16, #teq.mxfp8_quantizer<f8E4M3FN>, columnwise, gemm_swizzled>)
          saved_weight(!teq.proto<4096x1024xbf16, #teq.mxfp8_quantizer<f8E4M3FN, with_2d_quantization = true>, columnwise, gemm_swizzled>)
    %dx, %dw = teq.linear_backward %dy, %sx, %sw config(#teq.linear<>)
        : tensor<128x4096xbf16>,
          !teq.proto<128x1024xbf16, #teq.mxfp8_quantizer<f8E4M3FN>, columnwise, gemm_swizzled>,
          !teq.proto<4096x1024xbf16, #teq.mxfp8_quantizer<f8E4M3FN, with_2d_quantization = true>, columnwise, gemm_swizzled>
          dgrad(tensor<128x1024xbf16>) wgrad(tensor<4096x1024xbf16>)
    teq.yield %y, %dx, %dw : tensor<128x4096xbf16>, tensor<128x1024xbf16>, tensor<4096x1024xbf16>
  }
  return %r#0, %r#1, %r#2 : tensor<128x4096xbf16>, tensor<128x1024xbf16>, tensor<4096x1024xbf16>
}

// NVFP4 with the default recipe (RHT on the wgrad operands, stochastic
// rounding on gradients, 16x16 weight blocks), dgrad only: the weight is
// frozen. Backward takes the Philox state of grad_output's rounding.
// CHECK-LABEL: func.func @linear_nvfp4_frozen_weight(
// CHECK-SAME:  [[X:%.*]]: tensor<2x64x1024xbf16>, [[W:%.*]]: tensor<1024x1024xbf16>, [[DY:%.*]]: tensor<2x64x1024xbf16>, [[RNG:%.*]]: tensor<2xi64>)
// CHECK-NEXT:  [[R:%.*]]:2 = teq.autocast recipe(#teq.nvfp4_block_scaling<>) -> tensor<2x64x1024xbf16>, tensor<2x64x1024xbf16> {
// CHECK-NEXT:    [[Y:%.*]], [[SW:%.*]] = teq.linear_forward [[X]], [[W]] config(#teq.linear<requires_wgrad = false>) : tensor<2x64x1024xbf16>, tensor<1024x1024xbf16> -> tensor<2x64x1024xbf16> saved_weight(tensor<1024x1024xbf16>)
// CHECK-NEXT:    [[DX:%.*]] = teq.linear_backward [[DY]], [[X]], [[SW]] rng_state([[RNG]] : tensor<2xi64>) config(#teq.linear<requires_wgrad = false>) : tensor<2x64x1024xbf16>, tensor<2x64x1024xbf16>, tensor<1024x1024xbf16> dgrad(tensor<2x64x1024xbf16>)
// CHECK-NEXT:    teq.yield [[Y]], [[DX]] : tensor<2x64x1024xbf16>, tensor<2x64x1024xbf16>
// CHECK-NEXT:  }
// CHECK-NEXT:  return [[R]]#0, [[R]]#1 :
func.func @linear_nvfp4_frozen_weight(%x: tensor<2x64x1024xbf16>, %w: tensor<1024x1024xbf16>, %dy: tensor<2x64x1024xbf16>, %rng: tensor<2xi64>)
    -> (tensor<2x64x1024xbf16>, tensor<2x64x1024xbf16>) {
  %r:2 = teq.autocast recipe(#teq.nvfp4_block_scaling<>) -> tensor<2x64x1024xbf16>, tensor<2x64x1024xbf16> {
    // Nothing reads the saved input: backward takes the original value.
    %y, %sw = teq.linear_forward %x, %w config(#teq.linear<requires_wgrad = false>)
        : tensor<2x64x1024xbf16>, tensor<1024x1024xbf16> -> tensor<2x64x1024xbf16>
          saved_weight(tensor<1024x1024xbf16>)
    %dx = teq.linear_backward %dy, %x, %sw rng_state(%rng : tensor<2xi64>) config(#teq.linear<requires_wgrad = false>)
        : tensor<2x64x1024xbf16>, tensor<2x64x1024xbf16>, tensor<1024x1024xbf16>
          dgrad(tensor<2x64x1024xbf16>)
    teq.yield %y, %dx : tensor<2x64x1024xbf16>, tensor<2x64x1024xbf16>
  }
  return %r#0, %r#1 : tensor<2x64x1024xbf16>, tensor<2x64x1024xbf16>
}

// A custom recipe: block-scaled weights, delayed-scaling gradients, MXFP8
// for everything else. The backward slots take delayed-scaling state.
// CHECK-LABEL: func.func @linear_custom_recipe(
// CHECK-SAME:  [[X:%.*]]: tensor<128x1024xbf16>, [[W:%.*]]: tensor<1024x1024xbf16>, [[DY:%.*]]: tensor<128x1024xbf16>, [[BS:%.*]]: tensor<2xf32>, [[BH:%.*]]: tensor<16x2xf32>)
// CHECK-NEXT:  [[R:%.*]]:4 = teq.autocast recipe(#teq.custom_recipe<[<tensor_type = weight> -> #teq.float8_block_quantizer<f8E4M3FN>, <tensor_type = grad_output> -> #teq.delayed_scaling_request<amax_history_len = 16>, <tensor_type = grad_input> -> #teq.delayed_scaling_request<amax_history_len = 16>, <> -> #teq.mxfp8_quantizer<f8E4M3FN>], quantization_alignment = 32>) -> tensor<128x1024xbf16>, tensor<128x1024xbf16>, tensor<1024x1024xbf16>, tensor<16x2xf32> {
// CHECK-NEXT:    [[Y:%.*]], [[SX:%.*]], [[SW:%.*]] = teq.linear_forward [[X]], [[W]] config(#teq.linear<name = "out_proj">) : tensor<128x1024xbf16>, tensor<1024x1024xbf16> -> tensor<128x1024xbf16> saved_input(tensor<128x1024xbf16>) saved_weight(tensor<1024x1024xbf16>)
// CHECK-NEXT:    [[DX:%.*]], [[DW:%.*]], [[BH2:%.*]] = teq.linear_backward [[DY]], [[SX]], [[SW]] state([[BS]], [[BH]] : tensor<2xf32>, tensor<16x2xf32>) config(#teq.linear<name = "out_proj">) : tensor<128x1024xbf16>, tensor<128x1024xbf16>, tensor<1024x1024xbf16> dgrad(tensor<128x1024xbf16>) wgrad(tensor<1024x1024xbf16>) updated_amax_history(tensor<16x2xf32>)
// CHECK-NEXT:    teq.yield [[Y]], [[DX]], [[DW]], [[BH2]] : tensor<128x1024xbf16>, tensor<128x1024xbf16>, tensor<1024x1024xbf16>, tensor<16x2xf32>
// CHECK-NEXT:  }
// CHECK-NEXT:  return [[R]]#0, [[R]]#1, [[R]]#2, [[R]]#3 :
func.func @linear_custom_recipe(
    %x: tensor<128x1024xbf16>, %w: tensor<1024x1024xbf16>, %dy: tensor<128x1024xbf16>,
    %bwd_scale: tensor<2xf32>, %bwd_hist: tensor<16x2xf32>)
    -> (tensor<128x1024xbf16>, tensor<128x1024xbf16>, tensor<1024x1024xbf16>, tensor<16x2xf32>) {
  %r:4 = teq.autocast recipe(#teq.custom_recipe<[
        <tensor_type = weight> -> #teq.float8_block_quantizer<f8E4M3FN>,
        <tensor_type = grad_output> -> #teq.delayed_scaling_request<amax_history_len = 16>,
        <tensor_type = grad_input> -> #teq.delayed_scaling_request<amax_history_len = 16>,
        <> -> #teq.mxfp8_quantizer<f8E4M3FN>],
      quantization_alignment = 32>)
      -> tensor<128x1024xbf16>, tensor<128x1024xbf16>, tensor<1024x1024xbf16>, tensor<16x2xf32> {
    %y, %sx, %sw = teq.linear_forward %x, %w config(#teq.linear<name = "out_proj">)
        : tensor<128x1024xbf16>, tensor<1024x1024xbf16> -> tensor<128x1024xbf16>
          saved_input(tensor<128x1024xbf16>) saved_weight(tensor<1024x1024xbf16>)
    %dx, %dw, %bh = teq.linear_backward %dy, %sx, %sw state(%bwd_scale, %bwd_hist : tensor<2xf32>, tensor<16x2xf32>)
        config(#teq.linear<name = "out_proj">)
        : tensor<128x1024xbf16>, tensor<128x1024xbf16>, tensor<1024x1024xbf16>
          dgrad(tensor<128x1024xbf16>) wgrad(tensor<1024x1024xbf16>) updated_amax_history(tensor<16x2xf32>)
    teq.yield %y, %dx, %dw, %bh : tensor<128x1024xbf16>, tensor<128x1024xbf16>, tensor<1024x1024xbf16>, tensor<16x2xf32>
  }
  return %r#0, %r#1, %r#2, %r#3 : tensor<128x1024xbf16>, tensor<128x1024xbf16>, tensor<1024x1024xbf16>, tensor<16x2xf32>
}

// A Megatron MLP on 2-way tensor parallelism with sequence parallelism:
// column-parallel fc1 (input all-gathered from [S/tp] = 64 rows to S = 128),
// ReLU, row-parallel fc2 (output reduce-scattered back to 64 rows), then the
// backward through both. The per-rank shards are 4096 / 2 = 2048 wide.
// CHECK-LABEL: func.func @mlp_tp_sp(
// CHECK-SAME:  [[X:%.*]]: tensor<64x1024xbf16>, [[W1:%.*]]: tensor<2048x1024xbf16>, [[B1:%.*]]: tensor<2048xbf16>, [[W2:%.*]]: tensor<1024x2048xbf16>, [[B2:%.*]]: tensor<1024xbf16>, [[DY:%.*]]: tensor<64x1024xbf16>, [[TP:%.*]]: !teq.process_group)
// CHECK-NEXT:  [[R:%.*]]:6 = teq.autocast recipe(#teq.mxfp8_block_scaling<>) -> tensor<64x1024xbf16>, tensor<64x1024xbf16>, tensor<2048x1024xbf16>, tensor<2048xbf16>, tensor<1024x2048xbf16>, tensor<1024xbf16> {
// CHECK-NEXT:    [[H:%.*]], [[SX1:%.*]], [[SW1:%.*]] = teq.linear_forward [[X]], [[W1]] bias([[B1]] : tensor<2048xbf16>) tp_group([[TP]]) config(#teq.linear<bias = true, parallel_mode = column, sequence_parallel = true, tp_size = 2, name = "fc1">) : tensor<64x1024xbf16>, tensor<2048x1024xbf16> -> tensor<128x2048xbf16> saved_input(tensor<64x1024xbf16>) saved_weight(tensor<2048x1024xbf16>)
// CHECK-NEXT:    [[ZERO:%.*]] = arith.constant dense<0.000000e+00> : tensor<128x2048xbf16>
// CHECK-NEXT:    [[A:%.*]] = arith.maximumf [[H]], [[ZERO]] : tensor<128x2048xbf16>
// CHECK-NEXT:    [[Y:%.*]], [[SX2:%.*]], [[SW2:%.*]] = teq.linear_forward [[A]], [[W2]] bias([[B2]] : tensor<1024xbf16>) tp_group([[TP]]) config(#teq.linear<bias = true, parallel_mode = row, sequence_parallel = true, tp_size = 2, name = "fc2">) : tensor<128x2048xbf16>, tensor<1024x2048xbf16> -> tensor<64x1024xbf16> saved_input(tensor<128x2048xbf16>) saved_weight(tensor<1024x2048xbf16>)
// CHECK-NEXT:    [[DA:%.*]], [[DW2:%.*]], [[DB2:%.*]] = teq.linear_backward [[DY]], [[SX2]], [[SW2]] tp_group([[TP]]) config(#teq.linear<bias = true, parallel_mode = row, sequence_parallel = true, tp_size = 2, name = "fc2">) : tensor<64x1024xbf16>, tensor<128x2048xbf16>, tensor<1024x2048xbf16> dgrad(tensor<128x2048xbf16>) wgrad(tensor<1024x2048xbf16>) dbias(tensor<1024xbf16>)
// CHECK-NEXT:    [[POS:%.*]] = arith.cmpf ogt, [[H]], [[ZERO]] : tensor<128x2048xbf16>
// CHECK-NEXT:    [[DH:%.*]] = arith.select [[POS]], [[DA]], [[ZERO]] : tensor<128x2048xi1>, tensor<128x2048xbf16>
// CHECK-NEXT:    [[DX:%.*]], [[DW1:%.*]], [[DB1:%.*]] = teq.linear_backward [[DH]], [[SX1]], [[SW1]] tp_group([[TP]]) config(#teq.linear<bias = true, parallel_mode = column, sequence_parallel = true, tp_size = 2, name = "fc1">) : tensor<128x2048xbf16>, tensor<64x1024xbf16>, tensor<2048x1024xbf16> dgrad(tensor<64x1024xbf16>) wgrad(tensor<2048x1024xbf16>) dbias(tensor<2048xbf16>)
// CHECK-NEXT:    teq.yield [[Y]], [[DX]], [[DW1]], [[DB1]], [[DW2]], [[DB2]] : tensor<64x1024xbf16>, tensor<64x1024xbf16>, tensor<2048x1024xbf16>, tensor<2048xbf16>, tensor<1024x2048xbf16>, tensor<1024xbf16>
// CHECK-NEXT:  }
// CHECK-NEXT:  return [[R]]#0, [[R]]#1, [[R]]#2, [[R]]#3, [[R]]#4, [[R]]#5 :
func.func @mlp_tp_sp(
    %x: tensor<64x1024xbf16>,
    %w1: tensor<2048x1024xbf16>, %b1: tensor<2048xbf16>,
    %w2: tensor<1024x2048xbf16>, %b2: tensor<1024xbf16>,
    %dy: tensor<64x1024xbf16>, %tp: !teq.process_group)
    -> (tensor<64x1024xbf16>, tensor<64x1024xbf16>, tensor<2048x1024xbf16>, tensor<2048xbf16>, tensor<1024x2048xbf16>, tensor<1024xbf16>) {
  %r:6 = teq.autocast recipe(#teq.mxfp8_block_scaling<>)
      -> tensor<64x1024xbf16>, tensor<64x1024xbf16>, tensor<2048x1024xbf16>, tensor<2048xbf16>, tensor<1024x2048xbf16>, tensor<1024xbf16> {
    %h, %sx1, %sw1 = teq.linear_forward %x, %w1 bias(%b1 : tensor<2048xbf16>) tp_group(%tp)
        config(#teq.linear<bias = true, parallel_mode = column, sequence_parallel = true, tp_size = 2, name = "fc1">)
        : tensor<64x1024xbf16>, tensor<2048x1024xbf16> -> tensor<128x2048xbf16>
          saved_input(tensor<64x1024xbf16>) saved_weight(tensor<2048x1024xbf16>)
    %zero = arith.constant dense<0.0> : tensor<128x2048xbf16>
    %a = arith.maximumf %h, %zero : tensor<128x2048xbf16>
    %y, %sx2, %sw2 = teq.linear_forward %a, %w2 bias(%b2 : tensor<1024xbf16>) tp_group(%tp)
        config(#teq.linear<bias = true, parallel_mode = row, sequence_parallel = true, tp_size = 2, name = "fc2">)
        : tensor<128x2048xbf16>, tensor<1024x2048xbf16> -> tensor<64x1024xbf16>
          saved_input(tensor<128x2048xbf16>) saved_weight(tensor<1024x2048xbf16>)
    %da, %dw2, %db2 = teq.linear_backward %dy, %sx2, %sw2 tp_group(%tp)
        config(#teq.linear<bias = true, parallel_mode = row, sequence_parallel = true, tp_size = 2, name = "fc2">)
        : tensor<64x1024xbf16>, tensor<128x2048xbf16>, tensor<1024x2048xbf16>
          dgrad(tensor<128x2048xbf16>) wgrad(tensor<1024x2048xbf16>) dbias(tensor<1024xbf16>)
    %pos = arith.cmpf ogt, %h, %zero : tensor<128x2048xbf16>
    %dh = arith.select %pos, %da, %zero : tensor<128x2048xi1>, tensor<128x2048xbf16>
    %dx, %dw1, %db1 = teq.linear_backward %dh, %sx1, %sw1 tp_group(%tp)
        config(#teq.linear<bias = true, parallel_mode = column, sequence_parallel = true, tp_size = 2, name = "fc1">)
        : tensor<128x2048xbf16>, tensor<64x1024xbf16>, tensor<2048x1024xbf16>
          dgrad(tensor<64x1024xbf16>) wgrad(tensor<2048x1024xbf16>) dbias(tensor<2048xbf16>)
    teq.yield %y, %dx, %dw1, %db1, %dw2, %db2
        : tensor<64x1024xbf16>, tensor<64x1024xbf16>, tensor<2048x1024xbf16>, tensor<2048xbf16>, tensor<1024x2048xbf16>, tensor<1024xbf16>
  }
  return %r#0, %r#1, %r#2, %r#3, %r#4, %r#5
      : tensor<64x1024xbf16>, tensor<64x1024xbf16>, tensor<2048x1024xbf16>, tensor<2048xbf16>, tensor<1024x2048xbf16>, tensor<1024xbf16>
}

// A fused QKV projection on 4-way tensor parallelism (no SP): 16 heads of
// 64 split 4 ways, so each rank computes 3 x 256 outputs, split into q, k, v.
// The attention output projection is row parallel and saves the original
// (high-precision) input. The QKV Linear runs under NVFP4 with 4over6 on the
// weights, the projection under current scaling.
// CHECK-LABEL: func.func @qkv(
// CHECK-SAME:  [[X:%.*]]: tensor<2x128x1024xbf16>, [[WQKV:%.*]]: tensor<768x1024xbf16>, [[BQKV:%.*]]: tensor<768xbf16>, [[WO:%.*]]: tensor<1024x256xbf16>, [[TP:%.*]]: !teq.process_group)
// CHECK-NEXT:  [[R:%.*]]:4 = teq.autocast recipe(#teq.nvfp4_block_scaling<nvfp4_4over6 = weights>) -> tensor<2x128x256xbf16>, tensor<2x128x256xbf16>, tensor<2x128x256xbf16>, tensor<2x128x1024xbf16> {
// CHECK-NEXT:    [[QKV:%.*]] = teq.linear_forward [[X]], [[WQKV]] bias([[BQKV]] : tensor<768xbf16>) tp_group([[TP]]) config(#teq.linear<bias = true, parallel_mode = column, tp_size = 4, name = "qkv">) : tensor<2x128x1024xbf16>, tensor<768x1024xbf16> -> tensor<2x128x768xbf16>
// CHECK-NEXT:    [[Q:%.*]] = tensor.extract_slice [[QKV]][0, 0, 0] [2, 128, 256] [1, 1, 1] : tensor<2x128x768xbf16> to tensor<2x128x256xbf16>
// CHECK-NEXT:    [[K:%.*]] = tensor.extract_slice [[QKV]][0, 0, 256] [2, 128, 256] [1, 1, 1] : tensor<2x128x768xbf16> to tensor<2x128x256xbf16>
// CHECK-NEXT:    [[V:%.*]] = tensor.extract_slice [[QKV]][0, 0, 512] [2, 128, 256] [1, 1, 1] : tensor<2x128x768xbf16> to tensor<2x128x256xbf16>
// CHECK-NEXT:    [[O:%.*]] = teq.autocast recipe(#teq.float8_current_scaling<>) -> tensor<2x128x1024xbf16> {
// CHECK-NEXT:      [[P:%.*]], [[SV:%.*]] = teq.linear_forward [[V]], [[WO]] tp_group([[TP]]) config(#teq.linear<parallel_mode = row, tp_size = 4, save_original_input = true, name = "proj">) : tensor<2x128x256xbf16>, tensor<1024x256xbf16> -> tensor<2x128x1024xbf16> saved_input(tensor<2x128x256xbf16>)
// CHECK-NEXT:      teq.yield [[P]] : tensor<2x128x1024xbf16>
// CHECK-NEXT:    }
// CHECK-NEXT:    teq.yield [[Q]], [[K]], [[V]], [[O]] : tensor<2x128x256xbf16>, tensor<2x128x256xbf16>, tensor<2x128x256xbf16>, tensor<2x128x1024xbf16>
// CHECK-NEXT:  }
// CHECK-NEXT:  return [[R]]#0, [[R]]#1, [[R]]#2, [[R]]#3 :
func.func @qkv(
    %x: tensor<2x128x1024xbf16>, %wqkv: tensor<768x1024xbf16>, %bqkv: tensor<768xbf16>,
    %wo: tensor<1024x256xbf16>, %tp: !teq.process_group)
    -> (tensor<2x128x256xbf16>, tensor<2x128x256xbf16>, tensor<2x128x256xbf16>, tensor<2x128x1024xbf16>) {
  %r:4 = teq.autocast recipe(#teq.nvfp4_block_scaling<nvfp4_4over6 = weights>)
      -> tensor<2x128x256xbf16>, tensor<2x128x256xbf16>, tensor<2x128x256xbf16>, tensor<2x128x1024xbf16> {
    %qkv = teq.linear_forward %x, %wqkv bias(%bqkv : tensor<768xbf16>) tp_group(%tp)
        config(#teq.linear<bias = true, parallel_mode = column, tp_size = 4, name = "qkv">)
        : tensor<2x128x1024xbf16>, tensor<768x1024xbf16> -> tensor<2x128x768xbf16>
    %q = tensor.extract_slice %qkv[0, 0, 0] [2, 128, 256] [1, 1, 1] : tensor<2x128x768xbf16> to tensor<2x128x256xbf16>
    %k = tensor.extract_slice %qkv[0, 0, 256] [2, 128, 256] [1, 1, 1] : tensor<2x128x768xbf16> to tensor<2x128x256xbf16>
    %v = tensor.extract_slice %qkv[0, 0, 512] [2, 128, 256] [1, 1, 1] : tensor<2x128x768xbf16> to tensor<2x128x256xbf16>
    %o = teq.autocast recipe(#teq.float8_current_scaling<>) -> tensor<2x128x1024xbf16> {
      %p, %sv = teq.linear_forward %v, %wo tp_group(%tp)
          config(#teq.linear<parallel_mode = row, tp_size = 4, save_original_input = true, name = "proj">)
          : tensor<2x128x256xbf16>, tensor<1024x256xbf16> -> tensor<2x128x1024xbf16>
            saved_input(tensor<2x128x256xbf16>)
      teq.yield %p : tensor<2x128x1024xbf16>
    }
    teq.yield %q, %k, %v, %o : tensor<2x128x256xbf16>, tensor<2x128x256xbf16>, tensor<2x128x256xbf16>, tensor<2x128x1024xbf16>
  }
  return %r#0, %r#1, %r#2, %r#3 : tensor<2x128x256xbf16>, tensor<2x128x256xbf16>, tensor<2x128x256xbf16>, tensor<2x128x1024xbf16>
}

// NVFP4 lowered by hand: the GEMMs read the swizzled block scales, and the
// RHT-transformed columnwise copies feed wgrad; grad_output rounds
// stochastically with the Philox state %rng.
// CHECK-LABEL: func.func @nvfp4_lowered(
// CHECK-SAME:  [[X:%.*]]: tensor<128x1024xbf16>, [[W:%.*]]: tensor<1024x1024xbf16>, [[DY:%.*]]: tensor<128x1024xbf16>, [[RNG:%.*]]: tensor<2xi64>)
// CHECK-NEXT:  [[XQ:%.*]] = teq.quantize [[X]] : tensor<128x1024xbf16> -> !teq.proto<128x1024xbf16, #teq.nvfp4_quantizer<f4E2M1FN, with_rht = true, with_post_rht_amax = true>, rowwise|columnwise, gemm_swizzled>
// CHECK-NEXT:  [[WQ:%.*]] = teq.quantize [[W]] : tensor<1024x1024xbf16> -> !teq.proto<1024x1024xbf16, #teq.nvfp4_quantizer<f4E2M1FN, with_2d_quantization = true>, rowwise|columnwise, gemm_swizzled>
// CHECK-NEXT:  [[DYQ:%.*]] = teq.quantize [[DY]] rng_state([[RNG]] : tensor<2xi64>) : tensor<128x1024xbf16> -> !teq.proto<128x1024xbf16, #teq.nvfp4_quantizer<f4E2M1FN, with_rht = true, with_post_rht_amax = true, stochastic_rounding = true>, rowwise|columnwise, gemm_swizzled>
// CHECK-NEXT:  [[Y:%.*]] = teq.gemm TN [[WQ]], [[XQ]] {kind = #teq.gemm_kind<fprop>} :
// CHECK-SAME:  -> tensor<128x1024xbf16>
// CHECK-NEXT:  [[DX:%.*]] = teq.gemm NN [[WQ]], [[DYQ]] {kind = #teq.gemm_kind<dgrad>} :
// CHECK-SAME:  -> tensor<128x1024xbf16>
// CHECK-NEXT:  [[DW:%.*]] = teq.gemm NT [[XQ]], [[DYQ]] {kind = #teq.gemm_kind<wgrad>} :
// CHECK-SAME:  -> tensor<1024x1024xf32>
// CHECK-NEXT:  return [[Y]], [[DX]], [[DW]] :
func.func @nvfp4_lowered(%x: tensor<128x1024xbf16>, %w: tensor<1024x1024xbf16>, %dy: tensor<128x1024xbf16>, %rng: tensor<2xi64>)
    -> (tensor<128x1024xbf16>, tensor<128x1024xbf16>, tensor<1024x1024xf32>) {
  %xq = teq.quantize %x : tensor<128x1024xbf16>
      -> !teq.proto<128x1024xbf16, #teq.nvfp4_quantizer<f4E2M1FN, with_rht = true, with_post_rht_amax = true>, rowwise|columnwise, gemm_swizzled>
  %wq = teq.quantize %w : tensor<1024x1024xbf16>
      -> !teq.proto<1024x1024xbf16, #teq.nvfp4_quantizer<f4E2M1FN, with_2d_quantization = true>, rowwise|columnwise, gemm_swizzled>
  %dyq = teq.quantize %dy rng_state(%rng : tensor<2xi64>) : tensor<128x1024xbf16>
      -> !teq.proto<128x1024xbf16, #teq.nvfp4_quantizer<f4E2M1FN, with_rht = true, with_post_rht_amax = true, stochastic_rounding = true>, rowwise|columnwise, gemm_swizzled>
  %y = teq.gemm TN %wq, %xq {kind = #teq.gemm_kind<fprop>}
      : !teq.proto<1024x1024xbf16, #teq.nvfp4_quantizer<f4E2M1FN, with_2d_quantization = true>, rowwise|columnwise, gemm_swizzled>,
        !teq.proto<128x1024xbf16, #teq.nvfp4_quantizer<f4E2M1FN, with_rht = true, with_post_rht_amax = true>, rowwise|columnwise, gemm_swizzled>
      -> tensor<128x1024xbf16>
  %dx = teq.gemm NN %wq, %dyq {kind = #teq.gemm_kind<dgrad>}
      : !teq.proto<1024x1024xbf16, #teq.nvfp4_quantizer<f4E2M1FN, with_2d_quantization = true>, rowwise|columnwise, gemm_swizzled>,
        !teq.proto<128x1024xbf16, #teq.nvfp4_quantizer<f4E2M1FN, with_rht = true, with_post_rht_amax = true, stochastic_rounding = true>, rowwise|columnwise, gemm_swizzled>
      -> tensor<128x1024xbf16>
  %dw = teq.gemm NT %xq, %dyq {kind = #teq.gemm_kind<wgrad>}
      : !teq.proto<128x1024xbf16, #teq.nvfp4_quantizer<f4E2M1FN, with_rht = true, with_post_rht_amax = true>, rowwise|columnwise, gemm_swizzled>,
        !teq.proto<128x1024xbf16, #teq.nvfp4_quantizer<f4E2M1FN, with_rht = true, with_post_rht_amax = true, stochastic_rounding = true>, rowwise|columnwise, gemm_swizzled>
      -> tensor<1024x1024xf32>
  return %y, %dx, %dw : tensor<128x1024xbf16>, tensor<128x1024xbf16>, tensor<1024x1024xf32>
}

}
