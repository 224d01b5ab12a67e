// The NVFP4 quantizations whose data kernels NVFP4SREmulationTest runs on
// the CPU (see CMakeLists.txt), one 64x64 tile a block, all threads of a
// block phase by phase (--teq-test-kernels-to-cpu): each data path of the
// kernel generator, with stochastic rounding (q0..q4) and to nearest (q5..q8).
//   @rht:     RHT columnwise in registers, GEMM-swizzled scales, 2 tiles;
//   @padded:  1D both ways on a partial 64x64 tile (48x48: padded scale
//             buffers; TE's quantizers take multiples of 16 only);
//   @twod:    16x16 tiles, partial 64x64 tiles in both dimensions;
//   @f32_row: f32 input, rowwise only;
//   @f16_col: f16 input, columnwise only;
//   @rn_1d:   1D, 3x2 tiles, whole blocks both ways (8-byte stores);
//   @rn_twod: 2D, partial tiles, swizzled scales;
//   @rn_rht:  RHT, 4 tiles;
//   @rn_f16_padded: f16, 2D, partial tiles;
//   @amax_big: only its amax kernels run (the per-tensor amax's grid is
//             clamped to 1024 blocks here, so its four-loads-a-thread main
//             loop and the remainder loop both run).
//   @rht_partial: RHT with SR, partial tiles both ways (M = 80, K = 48);
//   @rn_twod_tiles: 2D on whole tiles (each code computed once, the
//             columnwise bytes packed from the rowwise codes);
//   @rn_rht_k48: RHT on a partial tile (K = 48).
// The amax kernels of all entries run too (NVFP4AmaxKernels).
module attributes {teq.target = #teq.target<sm_90>} {
  func.func @rht(%x: tensor<64x128xbf16>, %rng: tensor<2xi64>) -> !teq.proto<64x128xbf16, #teq.nvfp4_quantizer<f4E2M1FN, with_rht = true, with_post_rht_amax = true, stochastic_rounding = true>, rowwise|columnwise, gemm_swizzled> {
    %q = teq.quantize %x rng_state(%rng : tensor<2xi64>) : tensor<64x128xbf16> -> !teq.proto<64x128xbf16, #teq.nvfp4_quantizer<f4E2M1FN, with_rht = true, with_post_rht_amax = true, stochastic_rounding = true>, rowwise|columnwise, gemm_swizzled>
    return %q : !teq.proto<64x128xbf16, #teq.nvfp4_quantizer<f4E2M1FN, with_rht = true, with_post_rht_amax = true, stochastic_rounding = true>, rowwise|columnwise, gemm_swizzled>
  }
  func.func @padded(%x: tensor<48x48xbf16>, %rng: tensor<2xi64>) -> !teq.proto<48x48xbf16, #teq.nvfp4_quantizer<f4E2M1FN, stochastic_rounding = true>, rowwise|columnwise> {
    %q = teq.quantize %x rng_state(%rng : tensor<2xi64>) : tensor<48x48xbf16> -> !teq.proto<48x48xbf16, #teq.nvfp4_quantizer<f4E2M1FN, stochastic_rounding = true>, rowwise|columnwise>
    return %q : !teq.proto<48x48xbf16, #teq.nvfp4_quantizer<f4E2M1FN, stochastic_rounding = true>, rowwise|columnwise>
  }
  func.func @twod(%x: tensor<48x80xbf16>, %rng: tensor<2xi64>) -> !teq.proto<48x80xbf16, #teq.nvfp4_quantizer<f4E2M1FN, with_2d_quantization = true, stochastic_rounding = true>, rowwise|columnwise> {
    %q = teq.quantize %x rng_state(%rng : tensor<2xi64>) : tensor<48x80xbf16> -> !teq.proto<48x80xbf16, #teq.nvfp4_quantizer<f4E2M1FN, with_2d_quantization = true, stochastic_rounding = true>, rowwise|columnwise>
    return %q : !teq.proto<48x80xbf16, #teq.nvfp4_quantizer<f4E2M1FN, with_2d_quantization = true, stochastic_rounding = true>, rowwise|columnwise>
  }
  func.func @f32_row(%x: tensor<32x64xf32>, %rng: tensor<2xi64>) -> !teq.proto<32x64xf32, #teq.nvfp4_quantizer<f4E2M1FN, stochastic_rounding = true>, rowwise, gemm_swizzled> {
    %q = teq.quantize %x rng_state(%rng : tensor<2xi64>) : tensor<32x64xf32> -> !teq.proto<32x64xf32, #teq.nvfp4_quantizer<f4E2M1FN, stochastic_rounding = true>, rowwise, gemm_swizzled>
    return %q : !teq.proto<32x64xf32, #teq.nvfp4_quantizer<f4E2M1FN, stochastic_rounding = true>, rowwise, gemm_swizzled>
  }
  func.func @f16_col(%x: tensor<32x48xf16>, %rng: tensor<2xi64>) -> !teq.proto<32x48xf16, #teq.nvfp4_quantizer<f4E2M1FN, stochastic_rounding = true>, columnwise> {
    %q = teq.quantize %x rng_state(%rng : tensor<2xi64>) : tensor<32x48xf16> -> !teq.proto<32x48xf16, #teq.nvfp4_quantizer<f4E2M1FN, stochastic_rounding = true>, columnwise>
    return %q : !teq.proto<32x48xf16, #teq.nvfp4_quantizer<f4E2M1FN, stochastic_rounding = true>, columnwise>
  }
  func.func @rn_1d(%x: tensor<192x128xbf16>) -> !teq.proto<192x128xbf16, #teq.nvfp4_quantizer<f4E2M1FN>, rowwise|columnwise> {
    %q = teq.quantize %x : tensor<192x128xbf16> -> !teq.proto<192x128xbf16, #teq.nvfp4_quantizer<f4E2M1FN>, rowwise|columnwise>
    return %q : !teq.proto<192x128xbf16, #teq.nvfp4_quantizer<f4E2M1FN>, rowwise|columnwise>
  }
  func.func @rn_twod(%x: tensor<96x80xbf16>) -> !teq.proto<96x80xbf16, #teq.nvfp4_quantizer<f4E2M1FN, with_2d_quantization = true>, rowwise|columnwise, gemm_swizzled> {
    %q = teq.quantize %x : tensor<96x80xbf16> -> !teq.proto<96x80xbf16, #teq.nvfp4_quantizer<f4E2M1FN, with_2d_quantization = true>, rowwise|columnwise, gemm_swizzled>
    return %q : !teq.proto<96x80xbf16, #teq.nvfp4_quantizer<f4E2M1FN, with_2d_quantization = true>, rowwise|columnwise, gemm_swizzled>
  }
  func.func @rn_rht(%x: tensor<128x128xbf16>) -> !teq.proto<128x128xbf16, #teq.nvfp4_quantizer<f4E2M1FN, with_rht = true, with_post_rht_amax = true>, rowwise|columnwise> {
    %q = teq.quantize %x : tensor<128x128xbf16> -> !teq.proto<128x128xbf16, #teq.nvfp4_quantizer<f4E2M1FN, with_rht = true, with_post_rht_amax = true>, rowwise|columnwise>
    return %q : !teq.proto<128x128xbf16, #teq.nvfp4_quantizer<f4E2M1FN, with_rht = true, with_post_rht_amax = true>, rowwise|columnwise>
  }
  func.func @rn_f16_padded(%x: tensor<48x48xf16>) -> !teq.proto<48x48xf16, #teq.nvfp4_quantizer<f4E2M1FN, with_2d_quantization = true>, rowwise|columnwise> {
    %q = teq.quantize %x : tensor<48x48xf16> -> !teq.proto<48x48xf16, #teq.nvfp4_quantizer<f4E2M1FN, with_2d_quantization = true>, rowwise|columnwise>
    return %q : !teq.proto<48x48xf16, #teq.nvfp4_quantizer<f4E2M1FN, with_2d_quantization = true>, rowwise|columnwise>
  }
  func.func @amax_big(%x: tensor<2032x4240xbf16>) -> !teq.proto<2032x4240xbf16, #teq.nvfp4_quantizer<f4E2M1FN>, rowwise> {
    %q = teq.quantize %x : tensor<2032x4240xbf16> -> !teq.proto<2032x4240xbf16, #teq.nvfp4_quantizer<f4E2M1FN>, rowwise>
    return %q : !teq.proto<2032x4240xbf16, #teq.nvfp4_quantizer<f4E2M1FN>, rowwise>
  }
  func.func @rht_partial(%x: tensor<80x48xbf16>, %rng: tensor<2xi64>) -> !teq.proto<80x48xbf16, #teq.nvfp4_quantizer<f4E2M1FN, with_rht = true, with_post_rht_amax = true, stochastic_rounding = true>, rowwise|columnwise, gemm_swizzled> {
    %q = teq.quantize %x rng_state(%rng : tensor<2xi64>) : tensor<80x48xbf16> -> !teq.proto<80x48xbf16, #teq.nvfp4_quantizer<f4E2M1FN, with_rht = true, with_post_rht_amax = true, stochastic_rounding = true>, rowwise|columnwise, gemm_swizzled>
    return %q : !teq.proto<80x48xbf16, #teq.nvfp4_quantizer<f4E2M1FN, with_rht = true, with_post_rht_amax = true, stochastic_rounding = true>, rowwise|columnwise, gemm_swizzled>
  }
  func.func @rn_twod_tiles(%x: tensor<128x192xbf16>) -> !teq.proto<128x192xbf16, #teq.nvfp4_quantizer<f4E2M1FN, with_2d_quantization = true>, rowwise|columnwise, gemm_swizzled> {
    %q = teq.quantize %x : tensor<128x192xbf16> -> !teq.proto<128x192xbf16, #teq.nvfp4_quantizer<f4E2M1FN, with_2d_quantization = true>, rowwise|columnwise, gemm_swizzled>
    return %q : !teq.proto<128x192xbf16, #teq.nvfp4_quantizer<f4E2M1FN, with_2d_quantization = true>, rowwise|columnwise, gemm_swizzled>
  }
  func.func @rn_rht_k48(%x: tensor<32x48xbf16>) -> !teq.proto<32x48xbf16, #teq.nvfp4_quantizer<f4E2M1FN, with_rht = true, with_post_rht_amax = true>, rowwise|columnwise> {
    %q = teq.quantize %x : tensor<32x48xbf16> -> !teq.proto<32x48xbf16, #teq.nvfp4_quantizer<f4E2M1FN, with_rht = true, with_post_rht_amax = true>, rowwise|columnwise>
    return %q : !teq.proto<32x48xbf16, #teq.nvfp4_quantizer<f4E2M1FN, with_rht = true, with_post_rht_amax = true>, rowwise|columnwise>
  }
}
