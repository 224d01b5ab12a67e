// teq-legalize-gemm-operands prepares every teq.gemm's operands as TE does
// just before the cuBLASLt call (te-semantics.md §6.1, §6.2): MXFP8/NVFP4
// operands with compact scales get a teq.swizzle_scales, and an f32 bias of
// a GEMM on quantized operands is cast to bf16. Everything already right
// (swizzled scales, a bf16 bias, a high-precision GEMM's f32 bias, per-tensor
// FP8 scales) is left alone.
// RUN: te-opt %s -split-input-file --teq-legalize-gemm-operands | FileCheck %s

module attributes {teq.target = #teq.target<sm_90>} {
  // CHECK-LABEL: func.func @fp8_f32_bias(
  // CHECK-SAME: %[[A:[a-z0-9_]+]]: !teq.proto<256x128xf32, {{.*}}>, %[[B:[a-z0-9_]+]]: !teq.proto<64x128xf32, {{.*}}>, %[[BIAS:[a-z0-9_]+]]: tensor<256xf32>)
  // CHECK-NEXT: %[[CAST:[a-z0-9_]+]] = arith.truncf %[[BIAS]] : tensor<256xf32> to tensor<256xbf16>
  // CHECK-NEXT: teq.gemm TN %[[A]], %[[B]] bias(%[[CAST]] : tensor<256xbf16>)
  func.func @fp8_f32_bias(%a: !teq.proto<256x128xf32, #teq.float8_current_scaling_quantizer<f8E4M3FN>, rowwise>, %b: !teq.proto<64x128xf32, #teq.float8_current_scaling_quantizer<f8E4M3FN>, rowwise>, %bias: tensor<256xf32>) -> tensor<64x256xf32> {
    %y = teq.gemm TN %a, %b bias(%bias : tensor<256xf32>) : !teq.proto<256x128xf32, #teq.float8_current_scaling_quantizer<f8E4M3FN>, rowwise>, !teq.proto<64x128xf32, #teq.float8_current_scaling_quantizer<f8E4M3FN>, rowwise> -> tensor<64x256xf32>
    return %y : tensor<64x256xf32>
  }

  // CHECK-LABEL: func.func @fp8_bf16_bias(
  // CHECK-NOT: arith.truncf
  // CHECK: teq.gemm TN %{{.*}}, %{{.*}} bias(%{{.*}} : tensor<256xbf16>)
  func.func @fp8_bf16_bias(%a: !teq.proto<256x128xbf16, #teq.float8_current_scaling_quantizer<f8E4M3FN>, rowwise>, %b: !teq.proto<64x128xbf16, #teq.float8_current_scaling_quantizer<f8E4M3FN>, rowwise>, %bias: tensor<256xbf16>) -> tensor<64x256xbf16> {
    %y = teq.gemm TN %a, %b bias(%bias : tensor<256xbf16>) : !teq.proto<256x128xbf16, #teq.float8_current_scaling_quantizer<f8E4M3FN>, rowwise>, !teq.proto<64x128xbf16, #teq.float8_current_scaling_quantizer<f8E4M3FN>, rowwise> -> tensor<64x256xbf16>
    return %y : tensor<64x256xbf16>
  }

  // A high-precision GEMM takes an f32 bias as it is.
  // CHECK-LABEL: func.func @f32_gemm_f32_bias(
  // CHECK-NOT: arith.truncf
  // CHECK: teq.gemm TN %{{.*}}, %{{.*}} bias(%{{.*}} : tensor<256xf32>)
  func.func @f32_gemm_f32_bias(%a: tensor<256x128xf32>, %b: tensor<64x128xf32>, %bias: tensor<256xf32>) -> tensor<64x256xf32> {
    %y = teq.gemm TN %a, %b bias(%bias : tensor<256xf32>) : tensor<256x128xf32>, tensor<64x128xf32> -> tensor<64x256xf32>
    return %y : tensor<64x256xf32>
  }
}

// -----

module attributes {teq.target = #teq.target<sm_100a>} {
  // One compact MXFP8 operand: swizzled; the other already is.
  // CHECK-LABEL: func.func @mxfp8_compact(
  // CHECK-SAME: %[[A:[a-z0-9_]+]]: !teq.proto<64x64xbf16, #teq.mxfp8_quantizer<f8E4M3FN>, rowwise>, %[[B:[a-z0-9_]+]]: !teq.proto<64x64xbf16, #teq.mxfp8_quantizer<f8E4M3FN>, rowwise, gemm_swizzled>)
  // CHECK-NEXT: %[[AS:[a-z0-9_]+]] = teq.swizzle_scales %[[A]] : !teq.proto<64x64xbf16, #teq.mxfp8_quantizer<f8E4M3FN>, rowwise> -> !teq.proto<64x64xbf16, #teq.mxfp8_quantizer<f8E4M3FN>, rowwise, gemm_swizzled>
  // CHECK-NEXT: teq.gemm TN %[[AS]], %[[B]] :
  func.func @mxfp8_compact(%a: !teq.proto<64x64xbf16, #teq.mxfp8_quantizer<f8E4M3FN>, rowwise>, %b: !teq.proto<64x64xbf16, #teq.mxfp8_quantizer<f8E4M3FN>, rowwise, gemm_swizzled>) -> tensor<64x64xbf16> {
    %y = teq.gemm TN %a, %b : !teq.proto<64x64xbf16, #teq.mxfp8_quantizer<f8E4M3FN>, rowwise>, !teq.proto<64x64xbf16, #teq.mxfp8_quantizer<f8E4M3FN>, rowwise, gemm_swizzled> -> tensor<64x64xbf16>
    return %y : tensor<64x64xbf16>
  }

  // Both NVFP4 operands compact, and an f32 bias: both swizzled, the bias cast.
  // CHECK-LABEL: func.func @nvfp4_compact_f32_bias(
  // CHECK-SAME: %[[A:[a-z0-9_]+]]: !teq.proto<{{.*}}>, %[[B:[a-z0-9_]+]]: !teq.proto<{{.*}}>, %[[BIAS:[a-z0-9_]+]]: tensor<64xf32>)
  // CHECK-NEXT: %[[AS:[a-z0-9_]+]] = teq.swizzle_scales %[[A]] : {{.*}} -> !teq.proto<64x64xbf16, #teq.nvfp4_quantizer<f4E2M1FN>, rowwise, gemm_swizzled>
  // CHECK-NEXT: %[[BS:[a-z0-9_]+]] = teq.swizzle_scales %[[B]] : {{.*}} -> !teq.proto<64x64xbf16, #teq.nvfp4_quantizer<f4E2M1FN>, rowwise, gemm_swizzled>
  // CHECK-NEXT: %[[CAST:[a-z0-9_]+]] = arith.truncf %[[BIAS]] : tensor<64xf32> to tensor<64xbf16>
  // CHECK-NEXT: teq.gemm TN %[[AS]], %[[BS]] bias(%[[CAST]] : tensor<64xbf16>)
  func.func @nvfp4_compact_f32_bias(%a: !teq.proto<64x64xbf16, #teq.nvfp4_quantizer<f4E2M1FN>, rowwise>, %b: !teq.proto<64x64xbf16, #teq.nvfp4_quantizer<f4E2M1FN>, rowwise>, %bias: tensor<64xf32>) -> tensor<64x64xbf16> {
    %y = teq.gemm TN %a, %b bias(%bias : tensor<64xf32>) : !teq.proto<64x64xbf16, #teq.nvfp4_quantizer<f4E2M1FN>, rowwise>, !teq.proto<64x64xbf16, #teq.nvfp4_quantizer<f4E2M1FN>, rowwise> -> tensor<64x64xbf16>
    return %y : tensor<64x64xbf16>
  }
}
