// REQUIRES: ptxas
// The NVFP4 kernels' block amaxes ignore NaN also after ptxas: every
// max(0, .) after a max.f32 tree survives (Inputs/ptxas_nan_max.py). The
// columnwise RHT block amax used to be a compare and select that ptxas drops,
// so an all-NaN block (one NaN input, after the RHT) got scale 448, not 0.
// RUN: te-compile %s --emit=ptx -o %t.ptx
// RUN: rm -rf %t.d && mkdir -p %t.d
// RUN: %python %S/Inputs/ptxas_nan_max.py %t.ptx %ptxas sm_90 %t.d | FileCheck %s

module attributes {teq.target = #teq.target<sm_90>} {
  func.func @rht(%x: tensor<128x128xbf16>) -> !teq.proto<128x128xbf16, #teq.nvfp4_quantizer<f4E2M1FN, with_rht = true, with_post_rht_amax = true>, rowwise|columnwise> {
    %q = teq.quantize %x : tensor<128x128xbf16> -> !teq.proto<128x128xbf16, #teq.nvfp4_quantizer<f4E2M1FN, with_rht = true, with_post_rht_amax = true>, rowwise|columnwise>
    return %q : !teq.proto<128x128xbf16, #teq.nvfp4_quantizer<f4E2M1FN, with_rht = true, with_post_rht_amax = true>, rowwise|columnwise>
  }
  func.func @rht_col(%x: tensor<64x48xbf16>) -> !teq.proto<64x48xbf16, #teq.nvfp4_quantizer<f4E2M1FN, with_rht = true, with_post_rht_amax = true>, columnwise> {
    %q = teq.quantize %x : tensor<64x48xbf16> -> !teq.proto<64x48xbf16, #teq.nvfp4_quantizer<f4E2M1FN, with_rht = true, with_post_rht_amax = true>, columnwise>
    return %q : !teq.proto<64x48xbf16, #teq.nvfp4_quantizer<f4E2M1FN, with_rht = true, with_post_rht_amax = true>, columnwise>
  }
  func.func @rht_sr(%x: tensor<128x128xbf16>, %rng: tensor<2xi64>) -> !teq.proto<128x128xbf16, #teq.nvfp4_quantizer<f4E2M1FN, with_rht = true, with_post_rht_amax = true, stochastic_rounding = true>, rowwise|columnwise, gemm_swizzled> {
    %q = teq.quantize %x rng_state(%rng : tensor<2xi64>) : tensor<128x128xbf16> -> !teq.proto<128x128xbf16, #teq.nvfp4_quantizer<f4E2M1FN, with_rht = true, with_post_rht_amax = true, stochastic_rounding = true>, rowwise|columnwise, gemm_swizzled>
    return %q : !teq.proto<128x128xbf16, #teq.nvfp4_quantizer<f4E2M1FN, with_rht = true, with_post_rht_amax = true, stochastic_rounding = true>, rowwise|columnwise, gemm_swizzled>
  }
  func.func @one_d(%x: tensor<64x64xbf16>) -> !teq.proto<64x64xbf16, #teq.nvfp4_quantizer<f4E2M1FN>, rowwise|columnwise> {
    %q = teq.quantize %x : tensor<64x64xbf16> -> !teq.proto<64x64xbf16, #teq.nvfp4_quantizer<f4E2M1FN>, rowwise|columnwise>
    return %q : !teq.proto<64x64xbf16, #teq.nvfp4_quantizer<f4E2M1FN>, rowwise|columnwise>
  }
  func.func @two_d(%x: tensor<64x64xbf16>) -> !teq.proto<64x64xbf16, #teq.nvfp4_quantizer<f4E2M1FN, with_2d_quantization = true>, rowwise|columnwise> {
    %q = teq.quantize %x : tensor<64x64xbf16> -> !teq.proto<64x64xbf16, #teq.nvfp4_quantizer<f4E2M1FN, with_2d_quantization = true>, rowwise|columnwise>
    return %q : !teq.proto<64x64xbf16, #teq.nvfp4_quantizer<f4E2M1FN, with_2d_quantization = true>, rowwise|columnwise>
  }
}

// CHECK-NOT: DROPPED
// CHECK: q0_rht_amax: {{.*}}: kept
// CHECK: q0_nvfp4: {{.*}}: kept
// CHECK: q0_nvfp4: {{.*}}: kept
// CHECK: q1_rht_amax: {{.*}}: kept
// CHECK: q1_nvfp4_col: {{.*}}: kept
// CHECK: q2_nvfp4: {{.*}}: kept
// CHECK: q2_nvfp4: {{.*}}: kept
// CHECK: q3_nvfp4: {{.*}}: kept
// CHECK: q3_nvfp4: {{.*}}: kept
// CHECK: q4_nvfp4: {{.*}}: kept
// CHECK-NOT: DROPPED
