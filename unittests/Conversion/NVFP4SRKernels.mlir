// The NVFP4 quantizations whose row/column kernels NVFP4SREmulationTest runs
// on the CPU (see CMakeLists.txt): each data path of the kernel generator
// with stochastic rounding.
//   @rht:     rowwise 16-wide vector path, RHT columnwise in registers,
//             GEMM-swizzled scales;
//   @ragged:  per-pair paths both ways (K % 16 != 0; columnwise rows of 34,
//             so Philox blocks of 4 straddle rows);
//   @twod:    16x16 tiles, partial in both dimensions;
//   @f32_row: f32 input, rowwise only;
//   @f16_col: f16 input, columnwise only.
module attributes {teq.target = #teq.target<sm_90>} {
  func.func @rht(%x: tensor<64x128xbf16>, %rng: tensor<2xi64>) -> !teq.proto<64x128xbf16, #teq.nvfp4_quantizer<f4E2M1FN, with_rht = true, with_post_rht_amax = true, stochastic_rounding = true>, rowwise|columnwise, gemm_swizzled> {
    %q = teq.quantize %x rng_state(%rng : tensor<2xi64>) : tensor<64x128xbf16> -> !teq.proto<64x128xbf16, #teq.nvfp4_quantizer<f4E2M1FN, with_rht = true, with_post_rht_amax = true, stochastic_rounding = true>, rowwise|columnwise, gemm_swizzled>
    return %q : !teq.proto<64x128xbf16, #teq.nvfp4_quantizer<f4E2M1FN, with_rht = true, with_post_rht_amax = true, stochastic_rounding = true>, rowwise|columnwise, gemm_swizzled>
  }
  func.func @ragged(%x: tensor<34x40xbf16>, %rng: tensor<2xi64>) -> !teq.proto<34x40xbf16, #teq.nvfp4_quantizer<f4E2M1FN, stochastic_rounding = true>, rowwise|columnwise> {
    %q = teq.quantize %x rng_state(%rng : tensor<2xi64>) : tensor<34x40xbf16> -> !teq.proto<34x40xbf16, #teq.nvfp4_quantizer<f4E2M1FN, stochastic_rounding = true>, rowwise|columnwise>
    return %q : !teq.proto<34x40xbf16, #teq.nvfp4_quantizer<f4E2M1FN, stochastic_rounding = true>, rowwise|columnwise>
  }
  func.func @twod(%x: tensor<50x72xbf16>, %rng: tensor<2xi64>) -> !teq.proto<50x72xbf16, #teq.nvfp4_quantizer<f4E2M1FN, with_2d_quantization = true, stochastic_rounding = true>, rowwise|columnwise> {
    %q = teq.quantize %x rng_state(%rng : tensor<2xi64>) : tensor<50x72xbf16> -> !teq.proto<50x72xbf16, #teq.nvfp4_quantizer<f4E2M1FN, with_2d_quantization = true, stochastic_rounding = true>, rowwise|columnwise>
    return %q : !teq.proto<50x72xbf16, #teq.nvfp4_quantizer<f4E2M1FN, with_2d_quantization = true, stochastic_rounding = true>, rowwise|columnwise>
  }
  func.func @f32_row(%x: tensor<32x64xf32>, %rng: tensor<2xi64>) -> !teq.proto<32x64xf32, #teq.nvfp4_quantizer<f4E2M1FN, stochastic_rounding = true>, rowwise, gemm_swizzled> {
    %q = teq.quantize %x rng_state(%rng : tensor<2xi64>) : tensor<32x64xf32> -> !teq.proto<32x64xf32, #teq.nvfp4_quantizer<f4E2M1FN, stochastic_rounding = true>, rowwise, gemm_swizzled>
    return %q : !teq.proto<32x64xf32, #teq.nvfp4_quantizer<f4E2M1FN, stochastic_rounding = true>, rowwise, gemm_swizzled>
  }
  func.func @f16_col(%x: tensor<32x48xf16>, %rng: tensor<2xi64>) -> !teq.proto<32x48xf16, #teq.nvfp4_quantizer<f4E2M1FN, stochastic_rounding = true>, columnwise> {
    %q = teq.quantize %x rng_state(%rng : tensor<2xi64>) : tensor<32x48xf16> -> !teq.proto<32x48xf16, #teq.nvfp4_quantizer<f4E2M1FN, stochastic_rounding = true>, columnwise>
    return %q : !teq.proto<32x48xf16, #teq.nvfp4_quantizer<f4E2M1FN, stochastic_rounding = true>, columnwise>
  }
}
