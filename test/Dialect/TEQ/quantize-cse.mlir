// teq-quantize-cse: quantizations of one tensor in one block with equal
// quantizers (compared by value), equal scale layout and equal operands
// (state, rng state, amax reduction group) become one teq.quantize, at the first one's
// position, holding the union of their usages; each former result becomes a
// teq.update_usage that drops what its users do not need (one per distinct
// usage, placed where that usage is first needed). Anything that differs
// (quantizer, input, scale layout, state, rng state or group operand, block) keeps its
// own quantization.

// RUN: te-opt %s -split-input-file --teq-quantize-cse | FileCheck %s

//===----------------------------------------------------------------------===//
// Merged
//===----------------------------------------------------------------------===//

// QKV: the Q and K Linears read x rowwise, V columnwise. One rowwise|columnwise
// quantize remains; Q and K share one rowwise update_usage.
func.func @qkv(%x: tensor<64x128xbf16>) -> (!teq.proto<64x128xbf16, #teq.float8_current_scaling_quantizer<f8E4M3FN>, rowwise>, !teq.proto<64x128xbf16, #teq.float8_current_scaling_quantizer<f8E4M3FN>, rowwise>, !teq.proto<64x128xbf16, #teq.float8_current_scaling_quantizer<f8E4M3FN>, columnwise>) {
  %q = teq.quantize %x : tensor<64x128xbf16> -> !teq.proto<64x128xbf16, #teq.float8_current_scaling_quantizer<f8E4M3FN>, rowwise>
  %k = teq.quantize %x : tensor<64x128xbf16> -> !teq.proto<64x128xbf16, #teq.float8_current_scaling_quantizer<f8E4M3FN>, rowwise>
  %v = teq.quantize %x : tensor<64x128xbf16> -> !teq.proto<64x128xbf16, #teq.float8_current_scaling_quantizer<f8E4M3FN>, columnwise>
  return %q, %k, %v : !teq.proto<64x128xbf16, #teq.float8_current_scaling_quantizer<f8E4M3FN>, rowwise>, !teq.proto<64x128xbf16, #teq.float8_current_scaling_quantizer<f8E4M3FN>, rowwise>, !teq.proto<64x128xbf16, #teq.float8_current_scaling_quantizer<f8E4M3FN>, columnwise>
}

// CHECK-LABEL: func.func @qkv(
// CHECK-SAME: %[[X:[a-z0-9_]+]]: tensor<64x128xbf16>)
// CHECK-NOT: teq.update_usage
// CHECK-COUNT-1: %[[QKV:[a-z0-9_]+]] = teq.quantize %[[X]] : tensor<64x128xbf16> -> !teq.proto<64x128xbf16, #teq.float8_current_scaling_quantizer<f8E4M3FN>, rowwise|columnwise>{{$}}
// CHECK-NOT: teq.quantize
// CHECK: %[[R:[a-z0-9_]+]] = teq.update_usage %[[QKV]] : !teq.proto<64x128xbf16, #teq.float8_current_scaling_quantizer<f8E4M3FN>, rowwise|columnwise> -> !teq.proto<64x128xbf16, #teq.float8_current_scaling_quantizer<f8E4M3FN>, rowwise>{{$}}
// CHECK-NOT: teq.quantize
// CHECK: %[[C:[a-z0-9_]+]] = teq.update_usage %[[QKV]] : !teq.proto<64x128xbf16, #teq.float8_current_scaling_quantizer<f8E4M3FN>, rowwise|columnwise> -> !teq.proto<64x128xbf16, #teq.float8_current_scaling_quantizer<f8E4M3FN>, columnwise>{{$}}
// CHECK-NOT: teq.quantize
// CHECK-NOT: teq.update_usage
// CHECK: return %[[R]], %[[R]], %[[C]] :

// -----

// The merged op sits at the first quantization; each update_usage sits where
// its usage was first quantized, so the users in between are unchanged in
// order. MXFP8 with swizzled scales: the layout is kept.
func.func @placement(%x: tensor<64x128xbf16>) -> (tensor<64x128xf32>, tensor<64x128xf32>) {
  %a = teq.quantize %x : tensor<64x128xbf16> -> !teq.proto<64x128xbf16, #teq.mxfp8_quantizer<f8E4M3FN>, rowwise, gemm_swizzled>
  %da = teq.dequantize %a : !teq.proto<64x128xbf16, #teq.mxfp8_quantizer<f8E4M3FN>, rowwise, gemm_swizzled> -> tensor<64x128xf32>
  %b = teq.quantize %x : tensor<64x128xbf16> -> !teq.proto<64x128xbf16, #teq.mxfp8_quantizer<f8E4M3FN>, columnwise, gemm_swizzled>
  %db = teq.dequantize %b : !teq.proto<64x128xbf16, #teq.mxfp8_quantizer<f8E4M3FN>, columnwise, gemm_swizzled> -> tensor<64x128xf32>
  return %da, %db : tensor<64x128xf32>, tensor<64x128xf32>
}

// CHECK-LABEL: func.func @placement(
// CHECK-SAME: %[[X:[a-z0-9_]+]]: tensor<64x128xbf16>)
// CHECK-NEXT: %[[M:[a-z0-9_]+]] = teq.quantize %[[X]] : tensor<64x128xbf16> -> !teq.proto<64x128xbf16, #teq.mxfp8_quantizer<f8E4M3FN>, rowwise|columnwise, gemm_swizzled>{{$}}
// CHECK-NEXT: %[[A:[a-z0-9_]+]] = teq.update_usage %[[M]] : !teq.proto<64x128xbf16, #teq.mxfp8_quantizer<f8E4M3FN>, rowwise|columnwise, gemm_swizzled> -> !teq.proto<64x128xbf16, #teq.mxfp8_quantizer<f8E4M3FN>, rowwise, gemm_swizzled>{{$}}
// CHECK-NEXT: %[[DA:[a-z0-9_]+]] = teq.dequantize %[[A]] :
// CHECK-NEXT: %[[B:[a-z0-9_]+]] = teq.update_usage %[[M]] : !teq.proto<64x128xbf16, #teq.mxfp8_quantizer<f8E4M3FN>, rowwise|columnwise, gemm_swizzled> -> !teq.proto<64x128xbf16, #teq.mxfp8_quantizer<f8E4M3FN>, columnwise, gemm_swizzled>{{$}}
// CHECK-NEXT: %[[DB:[a-z0-9_]+]] = teq.dequantize %[[B]] :
// CHECK-NEXT: return %[[DA]], %[[DB]] :

// -----

// When one quantization already holds the union, its users take the merged
// result directly: only the columnwise user gets an update_usage.
func.func @union_present(%x: tensor<64x128xbf16>) -> (!teq.proto<64x128xbf16, #teq.float8_block_quantizer<f8E4M3FN, block_scaling_dim = 1>, columnwise>, !teq.proto<64x128xbf16, #teq.float8_block_quantizer<f8E4M3FN, block_scaling_dim = 1>, rowwise|columnwise>) {
  %c = teq.quantize %x : tensor<64x128xbf16> -> !teq.proto<64x128xbf16, #teq.float8_block_quantizer<f8E4M3FN, block_scaling_dim = 1>, columnwise>
  %rc = teq.quantize %x : tensor<64x128xbf16> -> !teq.proto<64x128xbf16, #teq.float8_block_quantizer<f8E4M3FN, block_scaling_dim = 1>, rowwise|columnwise>
  return %c, %rc : !teq.proto<64x128xbf16, #teq.float8_block_quantizer<f8E4M3FN, block_scaling_dim = 1>, columnwise>, !teq.proto<64x128xbf16, #teq.float8_block_quantizer<f8E4M3FN, block_scaling_dim = 1>, rowwise|columnwise>
}

// CHECK-LABEL: func.func @union_present(
// CHECK-NEXT: %[[M:[a-z0-9_]+]] = teq.quantize %{{.*}} : tensor<64x128xbf16> -> !teq.proto<64x128xbf16, #teq.float8_block_quantizer<f8E4M3FN, block_scaling_dim = 1>, rowwise|columnwise>{{$}}
// CHECK-NEXT: %[[C:[a-z0-9_]+]] = teq.update_usage %[[M]] : !teq.proto<64x128xbf16, #teq.float8_block_quantizer<f8E4M3FN, block_scaling_dim = 1>, rowwise|columnwise> -> !teq.proto<64x128xbf16, #teq.float8_block_quantizer<f8E4M3FN, block_scaling_dim = 1>, columnwise>{{$}}
// CHECK-NEXT: return %[[C]], %[[M]] :

// -----

// Identical quantizations (same usage): one quantize, no update_usage.
func.func @identical(%x: tensor<64x128xbf16>) -> (!teq.proto<64x128xbf16, #teq.nvfp4_quantizer<f4E2M1FN>, rowwise, gemm_swizzled>, !teq.proto<64x128xbf16, #teq.nvfp4_quantizer<f4E2M1FN>, rowwise, gemm_swizzled>) {
  %a = teq.quantize %x : tensor<64x128xbf16> -> !teq.proto<64x128xbf16, #teq.nvfp4_quantizer<f4E2M1FN>, rowwise, gemm_swizzled>
  %b = teq.quantize %x : tensor<64x128xbf16> -> !teq.proto<64x128xbf16, #teq.nvfp4_quantizer<f4E2M1FN>, rowwise, gemm_swizzled>
  return %a, %b : !teq.proto<64x128xbf16, #teq.nvfp4_quantizer<f4E2M1FN>, rowwise, gemm_swizzled>, !teq.proto<64x128xbf16, #teq.nvfp4_quantizer<f4E2M1FN>, rowwise, gemm_swizzled>
}

// CHECK-LABEL: func.func @identical(
// CHECK-NEXT: %[[M:[a-z0-9_]+]] = teq.quantize %{{.*}} : tensor<64x128xbf16> -> !teq.proto<64x128xbf16, #teq.nvfp4_quantizer<f4E2M1FN>, rowwise, gemm_swizzled>{{$}}
// CHECK-NOT: teq.update_usage
// CHECK-NEXT: return %[[M]], %[[M]] :

// -----

// Equal quantizers spelled differently (an explicit default field) are the
// same attribute: merged. The printed quantizer has no default fields.
func.func @spelled_defaults(%x: tensor<64x128xbf16>) -> (!teq.proto<64x128xbf16, #teq.float8_current_scaling_quantizer<f8E4M3FN>, rowwise>, !teq.proto<64x128xbf16, #teq.float8_current_scaling_quantizer<f8E4M3FN, amax_epsilon = 0.0>, columnwise>, !teq.proto<64x128xbf16, #teq.float8_current_scaling_quantizer<f8E4M3FN, with_amax_reduction = false, force_pow_2_scales = false>, rowwise>) {
  %a = teq.quantize %x : tensor<64x128xbf16> -> !teq.proto<64x128xbf16, #teq.float8_current_scaling_quantizer<f8E4M3FN>, rowwise>
  %b = teq.quantize %x : tensor<64x128xbf16> -> !teq.proto<64x128xbf16, #teq.float8_current_scaling_quantizer<f8E4M3FN, amax_epsilon = 0.0>, columnwise>
  %c = teq.quantize %x : tensor<64x128xbf16> -> !teq.proto<64x128xbf16, #teq.float8_current_scaling_quantizer<f8E4M3FN, with_amax_reduction = false, force_pow_2_scales = false>, rowwise>
  return %a, %b, %c : !teq.proto<64x128xbf16, #teq.float8_current_scaling_quantizer<f8E4M3FN>, rowwise>, !teq.proto<64x128xbf16, #teq.float8_current_scaling_quantizer<f8E4M3FN, amax_epsilon = 0.0>, columnwise>, !teq.proto<64x128xbf16, #teq.float8_current_scaling_quantizer<f8E4M3FN, with_amax_reduction = false, force_pow_2_scales = false>, rowwise>
}

// CHECK-LABEL: func.func @spelled_defaults(
// CHECK-NEXT: %[[M:[a-z0-9_]+]] = teq.quantize %{{.*}} : tensor<64x128xbf16> -> !teq.proto<64x128xbf16, #teq.float8_current_scaling_quantizer<f8E4M3FN>, rowwise|columnwise>{{$}}
// CHECK-NEXT: %[[R:[a-z0-9_]+]] = teq.update_usage %[[M]] : {{.*}} -> !teq.proto<64x128xbf16, #teq.float8_current_scaling_quantizer<f8E4M3FN>, rowwise>{{$}}
// CHECK-NEXT: %[[C:[a-z0-9_]+]] = teq.update_usage %[[M]] : {{.*}} -> !teq.proto<64x128xbf16, #teq.float8_current_scaling_quantizer<f8E4M3FN>, columnwise>{{$}}
// CHECK-NEXT: return %[[R]], %[[C]], %[[R]] :

// -----

// The same for MXFP8 (with_2d_quantization = false) and 2D block FP8
// (block_scaling_dim = 2, force_pow_2_scales = true are the defaults).
func.func @spelled_defaults_block(%x: tensor<128x128xbf16>) -> (!teq.proto<128x128xbf16, #teq.mxfp8_quantizer<f8E4M3FN>, rowwise>, !teq.proto<128x128xbf16, #teq.mxfp8_quantizer<f8E4M3FN, with_2d_quantization = false>, columnwise>, !teq.proto<128x128xbf16, #teq.float8_block_quantizer<f8E4M3FN>, rowwise>, !teq.proto<128x128xbf16, #teq.float8_block_quantizer<f8E4M3FN, block_scaling_dim = 2, force_pow_2_scales = true>, columnwise>) {
  %a = teq.quantize %x : tensor<128x128xbf16> -> !teq.proto<128x128xbf16, #teq.mxfp8_quantizer<f8E4M3FN>, rowwise>
  %b = teq.quantize %x : tensor<128x128xbf16> -> !teq.proto<128x128xbf16, #teq.mxfp8_quantizer<f8E4M3FN, with_2d_quantization = false>, columnwise>
  %c = teq.quantize %x : tensor<128x128xbf16> -> !teq.proto<128x128xbf16, #teq.float8_block_quantizer<f8E4M3FN>, rowwise>
  %d = teq.quantize %x : tensor<128x128xbf16> -> !teq.proto<128x128xbf16, #teq.float8_block_quantizer<f8E4M3FN, block_scaling_dim = 2, force_pow_2_scales = true>, columnwise>
  return %a, %b, %c, %d : !teq.proto<128x128xbf16, #teq.mxfp8_quantizer<f8E4M3FN>, rowwise>, !teq.proto<128x128xbf16, #teq.mxfp8_quantizer<f8E4M3FN, with_2d_quantization = false>, columnwise>, !teq.proto<128x128xbf16, #teq.float8_block_quantizer<f8E4M3FN>, rowwise>, !teq.proto<128x128xbf16, #teq.float8_block_quantizer<f8E4M3FN, block_scaling_dim = 2, force_pow_2_scales = true>, columnwise>
}

// CHECK-LABEL: func.func @spelled_defaults_block(
// CHECK-NEXT: %[[MX:[a-z0-9_]+]] = teq.quantize %{{.*}} : tensor<128x128xbf16> -> !teq.proto<128x128xbf16, #teq.mxfp8_quantizer<f8E4M3FN>, rowwise|columnwise>{{$}}
// CHECK-NEXT: %[[A:[a-z0-9_]+]] = teq.update_usage %[[MX]] : {{.*}} -> !teq.proto<128x128xbf16, #teq.mxfp8_quantizer<f8E4M3FN>, rowwise>{{$}}
// CHECK-NEXT: %[[B:[a-z0-9_]+]] = teq.update_usage %[[MX]] : {{.*}} -> !teq.proto<128x128xbf16, #teq.mxfp8_quantizer<f8E4M3FN>, columnwise>{{$}}
// CHECK-NEXT: %[[BL:[a-z0-9_]+]] = teq.quantize %{{.*}} : tensor<128x128xbf16> -> !teq.proto<128x128xbf16, #teq.float8_block_quantizer<f8E4M3FN>, rowwise|columnwise>{{$}}
// CHECK-NEXT: %[[C:[a-z0-9_]+]] = teq.update_usage %[[BL]] : {{.*}} -> !teq.proto<128x128xbf16, #teq.float8_block_quantizer<f8E4M3FN>, rowwise>{{$}}
// CHECK-NEXT: %[[D:[a-z0-9_]+]] = teq.update_usage %[[BL]] : {{.*}} -> !teq.proto<128x128xbf16, #teq.float8_block_quantizer<f8E4M3FN>, columnwise>{{$}}
// CHECK-NEXT: return %[[A]], %[[B]], %[[C]], %[[D]] :

// -----

// Delayed scaling with identical state(...) operands: merged; every use of
// either updated amax history takes the merged op's.
func.func @delayed_same_state(%x: tensor<64x128xbf16>, %s: tensor<1xf32>, %h: tensor<16xf32>) -> (!teq.proto<64x128xbf16, #teq.float8_quantizer<f8E4M3FN>, rowwise>, !teq.proto<64x128xbf16, #teq.float8_quantizer<f8E4M3FN>, columnwise>, tensor<16xf32>, tensor<16xf32>) {
  %a, %h1 = teq.quantize %x state(%s, %h : tensor<1xf32>, tensor<16xf32>) : tensor<64x128xbf16> -> !teq.proto<64x128xbf16, #teq.float8_quantizer<f8E4M3FN>, rowwise>, tensor<16xf32>
  %b, %h2 = teq.quantize %x state(%s, %h : tensor<1xf32>, tensor<16xf32>) : tensor<64x128xbf16> -> !teq.proto<64x128xbf16, #teq.float8_quantizer<f8E4M3FN>, columnwise>, tensor<16xf32>
  return %a, %b, %h1, %h2 : !teq.proto<64x128xbf16, #teq.float8_quantizer<f8E4M3FN>, rowwise>, !teq.proto<64x128xbf16, #teq.float8_quantizer<f8E4M3FN>, columnwise>, tensor<16xf32>, tensor<16xf32>
}

// CHECK-LABEL: func.func @delayed_same_state(
// CHECK-SAME: %[[X:[a-z0-9_]+]]: tensor<64x128xbf16>, %[[S:[a-z0-9_]+]]: tensor<1xf32>, %[[H:[a-z0-9_]+]]: tensor<16xf32>)
// CHECK-NEXT: %[[M:[a-z0-9_]+]], %[[MH:[a-z0-9_]+]] = teq.quantize %[[X]] state(%[[S]], %[[H]] : tensor<1xf32>, tensor<16xf32>) : tensor<64x128xbf16> -> !teq.proto<64x128xbf16, #teq.float8_quantizer<f8E4M3FN>, rowwise|columnwise>, tensor<16xf32>{{$}}
// CHECK-NEXT: %[[A:[a-z0-9_]+]] = teq.update_usage %[[M]] : {{.*}} -> !teq.proto<64x128xbf16, #teq.float8_quantizer<f8E4M3FN>, rowwise>{{$}}
// CHECK-NEXT: %[[B:[a-z0-9_]+]] = teq.update_usage %[[M]] : {{.*}} -> !teq.proto<64x128xbf16, #teq.float8_quantizer<f8E4M3FN>, columnwise>{{$}}
// CHECK-NEXT: return %[[A]], %[[B]], %[[MH]], %[[MH]] :

// -----

// The same amax reduction group operand: merged, the group kept.
func.func @same_group(%x: tensor<64x128xbf16>, %g: !teq.process_group) -> (!teq.proto<64x128xbf16, #teq.float8_current_scaling_quantizer<f8E4M3FN, with_amax_reduction = true>, rowwise>, !teq.proto<64x128xbf16, #teq.float8_current_scaling_quantizer<f8E4M3FN, with_amax_reduction = true>, columnwise>) {
  %a = teq.quantize %x amax_reduction_group(%g) : tensor<64x128xbf16> -> !teq.proto<64x128xbf16, #teq.float8_current_scaling_quantizer<f8E4M3FN, with_amax_reduction = true>, rowwise>
  %b = teq.quantize %x amax_reduction_group(%g) : tensor<64x128xbf16> -> !teq.proto<64x128xbf16, #teq.float8_current_scaling_quantizer<f8E4M3FN, with_amax_reduction = true>, columnwise>
  return %a, %b : !teq.proto<64x128xbf16, #teq.float8_current_scaling_quantizer<f8E4M3FN, with_amax_reduction = true>, rowwise>, !teq.proto<64x128xbf16, #teq.float8_current_scaling_quantizer<f8E4M3FN, with_amax_reduction = true>, columnwise>
}

// CHECK-LABEL: func.func @same_group(
// CHECK-SAME: %[[X:[a-z0-9_]+]]: tensor<64x128xbf16>, %[[G:[a-z0-9_]+]]: !teq.process_group)
// CHECK-NEXT: %[[M:[a-z0-9_]+]] = teq.quantize %[[X]] amax_reduction_group(%[[G]]) : tensor<64x128xbf16> -> !teq.proto<64x128xbf16, #teq.float8_current_scaling_quantizer<f8E4M3FN, with_amax_reduction = true>, rowwise|columnwise>{{$}}
// CHECK-COUNT-2: teq.update_usage %[[M]] :
// CHECK-NOT: teq.quantize
// CHECK-NEXT: return

// -----

//===----------------------------------------------------------------------===//
// Not merged
//===----------------------------------------------------------------------===//

// Different quantizers of one tensor: per-tensor vs MXFP8, E4M3 vs E5M2, a
// non-default field (force_pow_2_scales), 1D vs 2D blocks. Nothing changes.
func.func @different_quantizers(%x: tensor<128x128xbf16>) -> (!teq.proto<128x128xbf16, #teq.float8_current_scaling_quantizer<f8E4M3FN>, rowwise>, !teq.proto<128x128xbf16, #teq.mxfp8_quantizer<f8E4M3FN>, columnwise>, !teq.proto<128x128xbf16, #teq.float8_current_scaling_quantizer<f8E5M2>, columnwise>, !teq.proto<128x128xbf16, #teq.float8_current_scaling_quantizer<f8E4M3FN, force_pow_2_scales = true>, columnwise>, !teq.proto<128x128xbf16, #teq.float8_block_quantizer<f8E4M3FN, block_scaling_dim = 1>, rowwise>, !teq.proto<128x128xbf16, #teq.float8_block_quantizer<f8E4M3FN>, columnwise>) {
  %a = teq.quantize %x : tensor<128x128xbf16> -> !teq.proto<128x128xbf16, #teq.float8_current_scaling_quantizer<f8E4M3FN>, rowwise>
  %b = teq.quantize %x : tensor<128x128xbf16> -> !teq.proto<128x128xbf16, #teq.mxfp8_quantizer<f8E4M3FN>, columnwise>
  %c = teq.quantize %x : tensor<128x128xbf16> -> !teq.proto<128x128xbf16, #teq.float8_current_scaling_quantizer<f8E5M2>, columnwise>
  %d = teq.quantize %x : tensor<128x128xbf16> -> !teq.proto<128x128xbf16, #teq.float8_current_scaling_quantizer<f8E4M3FN, force_pow_2_scales = true>, columnwise>
  %e = teq.quantize %x : tensor<128x128xbf16> -> !teq.proto<128x128xbf16, #teq.float8_block_quantizer<f8E4M3FN, block_scaling_dim = 1>, rowwise>
  %f = teq.quantize %x : tensor<128x128xbf16> -> !teq.proto<128x128xbf16, #teq.float8_block_quantizer<f8E4M3FN>, columnwise>
  return %a, %b, %c, %d, %e, %f : !teq.proto<128x128xbf16, #teq.float8_current_scaling_quantizer<f8E4M3FN>, rowwise>, !teq.proto<128x128xbf16, #teq.mxfp8_quantizer<f8E4M3FN>, columnwise>, !teq.proto<128x128xbf16, #teq.float8_current_scaling_quantizer<f8E5M2>, columnwise>, !teq.proto<128x128xbf16, #teq.float8_current_scaling_quantizer<f8E4M3FN, force_pow_2_scales = true>, columnwise>, !teq.proto<128x128xbf16, #teq.float8_block_quantizer<f8E4M3FN, block_scaling_dim = 1>, rowwise>, !teq.proto<128x128xbf16, #teq.float8_block_quantizer<f8E4M3FN>, columnwise>
}

// CHECK-LABEL: func.func @different_quantizers(
// CHECK-NOT: teq.update_usage
// CHECK: %[[A:[a-z0-9_]+]] = teq.quantize %{{.*}} -> !teq.proto<128x128xbf16, #teq.float8_current_scaling_quantizer<f8E4M3FN>, rowwise>{{$}}
// CHECK-NEXT: %[[B:[a-z0-9_]+]] = teq.quantize %{{.*}} -> !teq.proto<128x128xbf16, #teq.mxfp8_quantizer<f8E4M3FN>, columnwise>{{$}}
// CHECK-NEXT: %[[C:[a-z0-9_]+]] = teq.quantize %{{.*}} -> !teq.proto<128x128xbf16, #teq.float8_current_scaling_quantizer<f8E5M2>, columnwise>{{$}}
// CHECK-NEXT: %[[D:[a-z0-9_]+]] = teq.quantize %{{.*}} -> !teq.proto<128x128xbf16, #teq.float8_current_scaling_quantizer<f8E4M3FN, force_pow_2_scales = true>, columnwise>{{$}}
// CHECK-NEXT: %[[E:[a-z0-9_]+]] = teq.quantize %{{.*}} -> !teq.proto<128x128xbf16, #teq.float8_block_quantizer<f8E4M3FN, block_scaling_dim = 1>, rowwise>{{$}}
// CHECK-NEXT: %[[F:[a-z0-9_]+]] = teq.quantize %{{.*}} -> !teq.proto<128x128xbf16, #teq.float8_block_quantizer<f8E4M3FN>, columnwise>{{$}}
// CHECK-NEXT: return %[[A]], %[[B]], %[[C]], %[[D]], %[[E]], %[[F]] :

// -----

// Different inputs, equal quantizers: two quantizations.
func.func @different_inputs(%x: tensor<64x128xbf16>, %y: tensor<64x128xbf16>) -> (!teq.proto<64x128xbf16, #teq.float8_current_scaling_quantizer<f8E4M3FN>, rowwise>, !teq.proto<64x128xbf16, #teq.float8_current_scaling_quantizer<f8E4M3FN>, columnwise>) {
  %a = teq.quantize %x : tensor<64x128xbf16> -> !teq.proto<64x128xbf16, #teq.float8_current_scaling_quantizer<f8E4M3FN>, rowwise>
  %b = teq.quantize %y : tensor<64x128xbf16> -> !teq.proto<64x128xbf16, #teq.float8_current_scaling_quantizer<f8E4M3FN>, columnwise>
  return %a, %b : !teq.proto<64x128xbf16, #teq.float8_current_scaling_quantizer<f8E4M3FN>, rowwise>, !teq.proto<64x128xbf16, #teq.float8_current_scaling_quantizer<f8E4M3FN>, columnwise>
}

// CHECK-LABEL: func.func @different_inputs(
// CHECK-SAME: %[[X:[a-z0-9_]+]]: tensor<64x128xbf16>, %[[Y:[a-z0-9_]+]]: tensor<64x128xbf16>)
// CHECK-NEXT: %[[A:[a-z0-9_]+]] = teq.quantize %[[X]] : tensor<64x128xbf16> -> !teq.proto<64x128xbf16, #teq.float8_current_scaling_quantizer<f8E4M3FN>, rowwise>{{$}}
// CHECK-NEXT: %[[B:[a-z0-9_]+]] = teq.quantize %[[Y]] : tensor<64x128xbf16> -> !teq.proto<64x128xbf16, #teq.float8_current_scaling_quantizer<f8E4M3FN>, columnwise>{{$}}
// CHECK-NEXT: return %[[A]], %[[B]] :

// -----

// Different scale layouts (compact vs GEMM-swizzled) are different
// quantizations: MXFP8 and NVFP4.
func.func @different_layouts(%x: tensor<64x128xbf16>) -> (!teq.proto<64x128xbf16, #teq.mxfp8_quantizer<f8E4M3FN>, rowwise>, !teq.proto<64x128xbf16, #teq.mxfp8_quantizer<f8E4M3FN>, columnwise, gemm_swizzled>, !teq.proto<64x128xbf16, #teq.nvfp4_quantizer<f4E2M1FN>, rowwise, gemm_swizzled>, !teq.proto<64x128xbf16, #teq.nvfp4_quantizer<f4E2M1FN>, rowwise>) {
  %a = teq.quantize %x : tensor<64x128xbf16> -> !teq.proto<64x128xbf16, #teq.mxfp8_quantizer<f8E4M3FN>, rowwise>
  %b = teq.quantize %x : tensor<64x128xbf16> -> !teq.proto<64x128xbf16, #teq.mxfp8_quantizer<f8E4M3FN>, columnwise, gemm_swizzled>
  %c = teq.quantize %x : tensor<64x128xbf16> -> !teq.proto<64x128xbf16, #teq.nvfp4_quantizer<f4E2M1FN>, rowwise, gemm_swizzled>
  %d = teq.quantize %x : tensor<64x128xbf16> -> !teq.proto<64x128xbf16, #teq.nvfp4_quantizer<f4E2M1FN>, rowwise>
  return %a, %b, %c, %d : !teq.proto<64x128xbf16, #teq.mxfp8_quantizer<f8E4M3FN>, rowwise>, !teq.proto<64x128xbf16, #teq.mxfp8_quantizer<f8E4M3FN>, columnwise, gemm_swizzled>, !teq.proto<64x128xbf16, #teq.nvfp4_quantizer<f4E2M1FN>, rowwise, gemm_swizzled>, !teq.proto<64x128xbf16, #teq.nvfp4_quantizer<f4E2M1FN>, rowwise>
}

// CHECK-LABEL: func.func @different_layouts(
// CHECK-NEXT: %[[A:[a-z0-9_]+]] = teq.quantize %{{.*}} -> !teq.proto<64x128xbf16, #teq.mxfp8_quantizer<f8E4M3FN>, rowwise>{{$}}
// CHECK-NEXT: %[[B:[a-z0-9_]+]] = teq.quantize %{{.*}} -> !teq.proto<64x128xbf16, #teq.mxfp8_quantizer<f8E4M3FN>, columnwise, gemm_swizzled>{{$}}
// CHECK-NEXT: %[[C:[a-z0-9_]+]] = teq.quantize %{{.*}} -> !teq.proto<64x128xbf16, #teq.nvfp4_quantizer<f4E2M1FN>, rowwise, gemm_swizzled>{{$}}
// CHECK-NEXT: %[[D:[a-z0-9_]+]] = teq.quantize %{{.*}} -> !teq.proto<64x128xbf16, #teq.nvfp4_quantizer<f4E2M1FN>, rowwise>{{$}}
// CHECK-NEXT: return %[[A]], %[[B]], %[[C]], %[[D]] :

// -----

// Delayed scaling with different state: another scale, or another amax
// history, is another quantizer slot. Three quantizations, each keeping its
// own updated history.
func.func @delayed_different_state(%x: tensor<64x128xbf16>, %s1: tensor<1xf32>, %s2: tensor<1xf32>, %h1: tensor<16xf32>, %h2: tensor<16xf32>) -> (!teq.proto<64x128xbf16, #teq.float8_quantizer<f8E4M3FN>, rowwise>, !teq.proto<64x128xbf16, #teq.float8_quantizer<f8E4M3FN>, columnwise>, !teq.proto<64x128xbf16, #teq.float8_quantizer<f8E4M3FN>, columnwise>, tensor<16xf32>, tensor<16xf32>, tensor<16xf32>) {
  %a, %ha = teq.quantize %x state(%s1, %h1 : tensor<1xf32>, tensor<16xf32>) : tensor<64x128xbf16> -> !teq.proto<64x128xbf16, #teq.float8_quantizer<f8E4M3FN>, rowwise>, tensor<16xf32>
  %b, %hb = teq.quantize %x state(%s2, %h1 : tensor<1xf32>, tensor<16xf32>) : tensor<64x128xbf16> -> !teq.proto<64x128xbf16, #teq.float8_quantizer<f8E4M3FN>, columnwise>, tensor<16xf32>
  %c, %hc = teq.quantize %x state(%s1, %h2 : tensor<1xf32>, tensor<16xf32>) : tensor<64x128xbf16> -> !teq.proto<64x128xbf16, #teq.float8_quantizer<f8E4M3FN>, columnwise>, tensor<16xf32>
  return %a, %b, %c, %ha, %hb, %hc : !teq.proto<64x128xbf16, #teq.float8_quantizer<f8E4M3FN>, rowwise>, !teq.proto<64x128xbf16, #teq.float8_quantizer<f8E4M3FN>, columnwise>, !teq.proto<64x128xbf16, #teq.float8_quantizer<f8E4M3FN>, columnwise>, tensor<16xf32>, tensor<16xf32>, tensor<16xf32>
}

// CHECK-LABEL: func.func @delayed_different_state(
// CHECK-SAME: %[[X:[a-z0-9_]+]]: tensor<64x128xbf16>, %[[S1:[a-z0-9_]+]]: tensor<1xf32>, %[[S2:[a-z0-9_]+]]: tensor<1xf32>, %[[H1:[a-z0-9_]+]]: tensor<16xf32>, %[[H2:[a-z0-9_]+]]: tensor<16xf32>)
// CHECK-NEXT: %[[A:[a-z0-9_]+]], %[[HA:[a-z0-9_]+]] = teq.quantize %[[X]] state(%[[S1]], %[[H1]] : {{.*}} -> !teq.proto<64x128xbf16, #teq.float8_quantizer<f8E4M3FN>, rowwise>, tensor<16xf32>{{$}}
// CHECK-NEXT: %[[B:[a-z0-9_]+]], %[[HB:[a-z0-9_]+]] = teq.quantize %[[X]] state(%[[S2]], %[[H1]] : {{.*}} -> !teq.proto<64x128xbf16, #teq.float8_quantizer<f8E4M3FN>, columnwise>, tensor<16xf32>{{$}}
// CHECK-NEXT: %[[C:[a-z0-9_]+]], %[[HC:[a-z0-9_]+]] = teq.quantize %[[X]] state(%[[S1]], %[[H2]] : {{.*}} -> !teq.proto<64x128xbf16, #teq.float8_quantizer<f8E4M3FN>, columnwise>, tensor<16xf32>{{$}}
// CHECK-NEXT: return %[[A]], %[[B]], %[[C]], %[[HA]], %[[HB]], %[[HC]] :

// -----

// Stochastic rounding: one Philox state gives each copy the same bits
// whichever usages one op holds, so equal rng_state operands merge; another
// rng_state is other random bits, another quantization.
!sr = !teq.proto<64x128xbf16, #teq.nvfp4_quantizer<f4E2M1FN, stochastic_rounding = true>, rowwise>
!sc = !teq.proto<64x128xbf16, #teq.nvfp4_quantizer<f4E2M1FN, stochastic_rounding = true>, columnwise>
func.func @sr_rng_states(%x: tensor<64x128xbf16>, %r1: tensor<2xi64>, %r2: tensor<2xi64>) -> (!sr, !sc, !sc) {
  %a = teq.quantize %x rng_state(%r1 : tensor<2xi64>) : tensor<64x128xbf16> -> !sr
  %b = teq.quantize %x rng_state(%r1 : tensor<2xi64>) : tensor<64x128xbf16> -> !sc
  %c = teq.quantize %x rng_state(%r2 : tensor<2xi64>) : tensor<64x128xbf16> -> !sc
  return %a, %b, %c : !sr, !sc, !sc
}

// CHECK-LABEL: func.func @sr_rng_states(
// CHECK-SAME: %[[X:[a-z0-9_]+]]: tensor<64x128xbf16>, %[[R1:[a-z0-9_]+]]: tensor<2xi64>, %[[R2:[a-z0-9_]+]]: tensor<2xi64>)
// CHECK-NEXT: %[[AB:[a-z0-9_]+]] = teq.quantize %[[X]] rng_state(%[[R1]] : tensor<2xi64>) : tensor<64x128xbf16> -> !teq.proto<64x128xbf16, #teq.nvfp4_quantizer<f4E2M1FN, stochastic_rounding = true>, rowwise|columnwise>
// CHECK-NEXT: %[[A:[a-z0-9_]+]] = teq.update_usage %[[AB]] : {{.*}} -> !teq.proto<64x128xbf16, #teq.nvfp4_quantizer<f4E2M1FN, stochastic_rounding = true>, rowwise>
// CHECK-NEXT: %[[B:[a-z0-9_]+]] = teq.update_usage %[[AB]] : {{.*}} -> !teq.proto<64x128xbf16, #teq.nvfp4_quantizer<f4E2M1FN, stochastic_rounding = true>, columnwise>
// CHECK-NEXT: %[[C:[a-z0-9_]+]] = teq.quantize %[[X]] rng_state(%[[R2]] : tensor<2xi64>) : tensor<64x128xbf16> -> !teq.proto<64x128xbf16, #teq.nvfp4_quantizer<f4E2M1FN, stochastic_rounding = true>, columnwise>
// CHECK-NEXT: return %[[A]], %[[B]], %[[C]] :

// -----

// Different amax reduction groups: two quantizations.
func.func @different_groups(%x: tensor<64x128xbf16>, %g1: !teq.process_group, %g2: !teq.process_group) -> (!teq.proto<64x128xbf16, #teq.float8_current_scaling_quantizer<f8E4M3FN, with_amax_reduction = true>, rowwise>, !teq.proto<64x128xbf16, #teq.float8_current_scaling_quantizer<f8E4M3FN, with_amax_reduction = true>, columnwise>) {
  %a = teq.quantize %x amax_reduction_group(%g1) : tensor<64x128xbf16> -> !teq.proto<64x128xbf16, #teq.float8_current_scaling_quantizer<f8E4M3FN, with_amax_reduction = true>, rowwise>
  %b = teq.quantize %x amax_reduction_group(%g2) : tensor<64x128xbf16> -> !teq.proto<64x128xbf16, #teq.float8_current_scaling_quantizer<f8E4M3FN, with_amax_reduction = true>, columnwise>
  return %a, %b : !teq.proto<64x128xbf16, #teq.float8_current_scaling_quantizer<f8E4M3FN, with_amax_reduction = true>, rowwise>, !teq.proto<64x128xbf16, #teq.float8_current_scaling_quantizer<f8E4M3FN, with_amax_reduction = true>, columnwise>
}

// CHECK-LABEL: func.func @different_groups(
// CHECK-SAME: %[[X:[a-z0-9_]+]]: tensor<64x128xbf16>, %[[G1:[a-z0-9_]+]]: !teq.process_group, %[[G2:[a-z0-9_]+]]: !teq.process_group)
// CHECK-NEXT: %[[A:[a-z0-9_]+]] = teq.quantize %[[X]] amax_reduction_group(%[[G1]]) : {{.*}}, rowwise>{{$}}
// CHECK-NEXT: %[[B:[a-z0-9_]+]] = teq.quantize %[[X]] amax_reduction_group(%[[G2]]) : {{.*}}, columnwise>{{$}}
// CHECK-NEXT: return %[[A]], %[[B]] :

// -----

// Different blocks are not merged: one quantization in the function body and
// one in each scf.if region stay three. Two in the same region do merge.
func.func @regions(%c: i1, %x: tensor<64x128xbf16>) -> (!teq.proto<64x128xbf16, #teq.float8_current_scaling_quantizer<f8E4M3FN>, rowwise>, !teq.proto<64x128xbf16, #teq.float8_current_scaling_quantizer<f8E4M3FN>, columnwise>) {
  %a = teq.quantize %x : tensor<64x128xbf16> -> !teq.proto<64x128xbf16, #teq.float8_current_scaling_quantizer<f8E4M3FN>, rowwise>
  %r = scf.if %c -> (!teq.proto<64x128xbf16, #teq.float8_current_scaling_quantizer<f8E4M3FN>, columnwise>) {
    %t = teq.quantize %x : tensor<64x128xbf16> -> !teq.proto<64x128xbf16, #teq.float8_current_scaling_quantizer<f8E4M3FN>, columnwise>
    scf.yield %t : !teq.proto<64x128xbf16, #teq.float8_current_scaling_quantizer<f8E4M3FN>, columnwise>
  } else {
    %e1 = teq.quantize %x : tensor<64x128xbf16> -> !teq.proto<64x128xbf16, #teq.float8_current_scaling_quantizer<f8E4M3FN>, rowwise>
    %e2 = teq.quantize %x : tensor<64x128xbf16> -> !teq.proto<64x128xbf16, #teq.float8_current_scaling_quantizer<f8E4M3FN>, columnwise>
    %d = teq.dequantize %e1 : !teq.proto<64x128xbf16, #teq.float8_current_scaling_quantizer<f8E4M3FN>, rowwise> -> tensor<64x128xbf16>
    scf.yield %e2 : !teq.proto<64x128xbf16, #teq.float8_current_scaling_quantizer<f8E4M3FN>, columnwise>
  }
  return %a, %r : !teq.proto<64x128xbf16, #teq.float8_current_scaling_quantizer<f8E4M3FN>, rowwise>, !teq.proto<64x128xbf16, #teq.float8_current_scaling_quantizer<f8E4M3FN>, columnwise>
}

// CHECK-LABEL: func.func @regions(
// CHECK-SAME: %[[C:[a-z0-9_]+]]: i1, %[[X:[a-z0-9_]+]]: tensor<64x128xbf16>)
// CHECK-NEXT: %[[A:[a-z0-9_]+]] = teq.quantize %[[X]] : tensor<64x128xbf16> -> !teq.proto<64x128xbf16, #teq.float8_current_scaling_quantizer<f8E4M3FN>, rowwise>{{$}}
// CHECK-NEXT: %[[R:[a-z0-9_]+]] = scf.if %[[C]]
// CHECK-NEXT: %[[T:[a-z0-9_]+]] = teq.quantize %[[X]] : tensor<64x128xbf16> -> !teq.proto<64x128xbf16, #teq.float8_current_scaling_quantizer<f8E4M3FN>, columnwise>{{$}}
// CHECK-NEXT: scf.yield %[[T]]
// CHECK-NEXT: } else {
// CHECK-NEXT: %[[M:[a-z0-9_]+]] = teq.quantize %[[X]] : tensor<64x128xbf16> -> !teq.proto<64x128xbf16, #teq.float8_current_scaling_quantizer<f8E4M3FN>, rowwise|columnwise>{{$}}
// CHECK-NEXT: %[[E1:[a-z0-9_]+]] = teq.update_usage %[[M]] : {{.*}} -> !teq.proto<64x128xbf16, #teq.float8_current_scaling_quantizer<f8E4M3FN>, rowwise>{{$}}
// CHECK-NEXT: %[[E2:[a-z0-9_]+]] = teq.update_usage %[[M]] : {{.*}} -> !teq.proto<64x128xbf16, #teq.float8_current_scaling_quantizer<f8E4M3FN>, columnwise>{{$}}
// CHECK-NEXT: teq.dequantize %[[E1]]
// CHECK-NEXT: scf.yield %[[E2]]
// CHECK-NEXT: }
// CHECK-NEXT: return %[[A]], %[[R]] :

// -----

// Two functions quantizing their own argument the same way: separate.
func.func @first(%x: tensor<64x128xbf16>) -> !teq.proto<64x128xbf16, #teq.float8_current_scaling_quantizer<f8E4M3FN>, rowwise> {
  %a = teq.quantize %x : tensor<64x128xbf16> -> !teq.proto<64x128xbf16, #teq.float8_current_scaling_quantizer<f8E4M3FN>, rowwise>
  return %a : !teq.proto<64x128xbf16, #teq.float8_current_scaling_quantizer<f8E4M3FN>, rowwise>
}
func.func @second(%x: tensor<64x128xbf16>) -> !teq.proto<64x128xbf16, #teq.float8_current_scaling_quantizer<f8E4M3FN>, columnwise> {
  %b = teq.quantize %x : tensor<64x128xbf16> -> !teq.proto<64x128xbf16, #teq.float8_current_scaling_quantizer<f8E4M3FN>, columnwise>
  return %b : !teq.proto<64x128xbf16, #teq.float8_current_scaling_quantizer<f8E4M3FN>, columnwise>
}

// CHECK-LABEL: func.func @first(
// CHECK-NEXT: %[[A:[a-z0-9_]+]] = teq.quantize %{{.*}} : tensor<64x128xbf16> -> !teq.proto<64x128xbf16, #teq.float8_current_scaling_quantizer<f8E4M3FN>, rowwise>{{$}}
// CHECK-NEXT: return %[[A]] :
// CHECK-LABEL: func.func @second(
// CHECK-NEXT: %[[B:[a-z0-9_]+]] = teq.quantize %{{.*}} : tensor<64x128xbf16> -> !teq.proto<64x128xbf16, #teq.float8_current_scaling_quantizer<f8E4M3FN>, columnwise>{{$}}
// CHECK-NEXT: return %[[B]] :
