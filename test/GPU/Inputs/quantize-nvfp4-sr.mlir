// NVFP4 with stochastic rounding (te-semantics.md §5.5, §1.6: the default
// for gradients) on TE's shapes (128x128, 256x272, 2048x2048, 8192x8192),
// 1x16 / 16x16 blocks and RHT of the columnwise copy, plus padded scale buffers,
// f32/f16 inputs and single usages. The Philox state (seed, offset) is the
// entry's second argument, a 16-byte device buffer; each element's 32
// random bits are Philox4x32-10 (Random.h) evaluated in the kernel and the
// rounding is floatToE2M1Stochastic's rule in software.
// test/GPU/quantize-nvfp4-sr.test checks every buffer bit for bit against
// the CPU reference with the same seed and offset.
module attributes {teq.target = #teq.target<sm_90>} {
  func.func @sr_1d_128x128(%x: tensor<128x128xbf16>, %rng: tensor<2xi64>) -> !teq.proto<128x128xbf16, #teq.nvfp4_quantizer<f4E2M1FN, stochastic_rounding = true>, rowwise|columnwise> {
    %q = teq.quantize %x rng_state(%rng : tensor<2xi64>) : tensor<128x128xbf16> -> !teq.proto<128x128xbf16, #teq.nvfp4_quantizer<f4E2M1FN, stochastic_rounding = true>, rowwise|columnwise>
    return %q : !teq.proto<128x128xbf16, #teq.nvfp4_quantizer<f4E2M1FN, stochastic_rounding = true>, rowwise|columnwise>
  }
  func.func @sr_2d_swz_128x128(%x: tensor<128x128xbf16>, %rng: tensor<2xi64>) -> !teq.proto<128x128xbf16, #teq.nvfp4_quantizer<f4E2M1FN, with_2d_quantization = true, stochastic_rounding = true>, rowwise|columnwise, gemm_swizzled> {
    %q = teq.quantize %x rng_state(%rng : tensor<2xi64>) : tensor<128x128xbf16> -> !teq.proto<128x128xbf16, #teq.nvfp4_quantizer<f4E2M1FN, with_2d_quantization = true, stochastic_rounding = true>, rowwise|columnwise, gemm_swizzled>
    return %q : !teq.proto<128x128xbf16, #teq.nvfp4_quantizer<f4E2M1FN, with_2d_quantization = true, stochastic_rounding = true>, rowwise|columnwise, gemm_swizzled>
  }
  func.func @sr_rht_128x128(%x: tensor<128x128xbf16>, %rng: tensor<2xi64>) -> !teq.proto<128x128xbf16, #teq.nvfp4_quantizer<f4E2M1FN, with_rht = true, with_post_rht_amax = true, stochastic_rounding = true>, rowwise|columnwise> {
    %q = teq.quantize %x rng_state(%rng : tensor<2xi64>) : tensor<128x128xbf16> -> !teq.proto<128x128xbf16, #teq.nvfp4_quantizer<f4E2M1FN, with_rht = true, with_post_rht_amax = true, stochastic_rounding = true>, rowwise|columnwise>
    return %q : !teq.proto<128x128xbf16, #teq.nvfp4_quantizer<f4E2M1FN, with_rht = true, with_post_rht_amax = true, stochastic_rounding = true>, rowwise|columnwise>
  }
  func.func @sr_1d_256x272(%x: tensor<256x272xbf16>, %rng: tensor<2xi64>) -> !teq.proto<256x272xbf16, #teq.nvfp4_quantizer<f4E2M1FN, stochastic_rounding = true>, rowwise|columnwise> {
    %q = teq.quantize %x rng_state(%rng : tensor<2xi64>) : tensor<256x272xbf16> -> !teq.proto<256x272xbf16, #teq.nvfp4_quantizer<f4E2M1FN, stochastic_rounding = true>, rowwise|columnwise>
    return %q : !teq.proto<256x272xbf16, #teq.nvfp4_quantizer<f4E2M1FN, stochastic_rounding = true>, rowwise|columnwise>
  }
  func.func @sr_2d_swz_256x272(%x: tensor<256x272xbf16>, %rng: tensor<2xi64>) -> !teq.proto<256x272xbf16, #teq.nvfp4_quantizer<f4E2M1FN, with_2d_quantization = true, stochastic_rounding = true>, rowwise|columnwise, gemm_swizzled> {
    %q = teq.quantize %x rng_state(%rng : tensor<2xi64>) : tensor<256x272xbf16> -> !teq.proto<256x272xbf16, #teq.nvfp4_quantizer<f4E2M1FN, with_2d_quantization = true, stochastic_rounding = true>, rowwise|columnwise, gemm_swizzled>
    return %q : !teq.proto<256x272xbf16, #teq.nvfp4_quantizer<f4E2M1FN, with_2d_quantization = true, stochastic_rounding = true>, rowwise|columnwise, gemm_swizzled>
  }
  func.func @sr_rht_swz_256x272(%x: tensor<256x272xbf16>, %rng: tensor<2xi64>) -> !teq.proto<256x272xbf16, #teq.nvfp4_quantizer<f4E2M1FN, with_rht = true, with_post_rht_amax = true, stochastic_rounding = true>, rowwise|columnwise, gemm_swizzled> {
    %q = teq.quantize %x rng_state(%rng : tensor<2xi64>) : tensor<256x272xbf16> -> !teq.proto<256x272xbf16, #teq.nvfp4_quantizer<f4E2M1FN, with_rht = true, with_post_rht_amax = true, stochastic_rounding = true>, rowwise|columnwise, gemm_swizzled>
    return %q : !teq.proto<256x272xbf16, #teq.nvfp4_quantizer<f4E2M1FN, with_rht = true, with_post_rht_amax = true, stochastic_rounding = true>, rowwise|columnwise, gemm_swizzled>
  }
  func.func @sr_1d_2048x2048(%x: tensor<2048x2048xbf16>, %rng: tensor<2xi64>) -> !teq.proto<2048x2048xbf16, #teq.nvfp4_quantizer<f4E2M1FN, stochastic_rounding = true>, rowwise|columnwise> {
    %q = teq.quantize %x rng_state(%rng : tensor<2xi64>) : tensor<2048x2048xbf16> -> !teq.proto<2048x2048xbf16, #teq.nvfp4_quantizer<f4E2M1FN, stochastic_rounding = true>, rowwise|columnwise>
    return %q : !teq.proto<2048x2048xbf16, #teq.nvfp4_quantizer<f4E2M1FN, stochastic_rounding = true>, rowwise|columnwise>
  }
  func.func @sr_2d_swz_2048x2048(%x: tensor<2048x2048xbf16>, %rng: tensor<2xi64>) -> !teq.proto<2048x2048xbf16, #teq.nvfp4_quantizer<f4E2M1FN, with_2d_quantization = true, stochastic_rounding = true>, rowwise|columnwise, gemm_swizzled> {
    %q = teq.quantize %x rng_state(%rng : tensor<2xi64>) : tensor<2048x2048xbf16> -> !teq.proto<2048x2048xbf16, #teq.nvfp4_quantizer<f4E2M1FN, with_2d_quantization = true, stochastic_rounding = true>, rowwise|columnwise, gemm_swizzled>
    return %q : !teq.proto<2048x2048xbf16, #teq.nvfp4_quantizer<f4E2M1FN, with_2d_quantization = true, stochastic_rounding = true>, rowwise|columnwise, gemm_swizzled>
  }
  func.func @sr_rht_2048x2048(%x: tensor<2048x2048xbf16>, %rng: tensor<2xi64>) -> !teq.proto<2048x2048xbf16, #teq.nvfp4_quantizer<f4E2M1FN, with_rht = true, with_post_rht_amax = true, stochastic_rounding = true>, rowwise|columnwise> {
    %q = teq.quantize %x rng_state(%rng : tensor<2xi64>) : tensor<2048x2048xbf16> -> !teq.proto<2048x2048xbf16, #teq.nvfp4_quantizer<f4E2M1FN, with_rht = true, with_post_rht_amax = true, stochastic_rounding = true>, rowwise|columnwise>
    return %q : !teq.proto<2048x2048xbf16, #teq.nvfp4_quantizer<f4E2M1FN, with_rht = true, with_post_rht_amax = true, stochastic_rounding = true>, rowwise|columnwise>
  }
  func.func @sr_1d_8192x8192(%x: tensor<8192x8192xbf16>, %rng: tensor<2xi64>) -> !teq.proto<8192x8192xbf16, #teq.nvfp4_quantizer<f4E2M1FN, stochastic_rounding = true>, rowwise|columnwise> {
    %q = teq.quantize %x rng_state(%rng : tensor<2xi64>) : tensor<8192x8192xbf16> -> !teq.proto<8192x8192xbf16, #teq.nvfp4_quantizer<f4E2M1FN, stochastic_rounding = true>, rowwise|columnwise>
    return %q : !teq.proto<8192x8192xbf16, #teq.nvfp4_quantizer<f4E2M1FN, stochastic_rounding = true>, rowwise|columnwise>
  }
  func.func @sr_2d_swz_8192x8192(%x: tensor<8192x8192xbf16>, %rng: tensor<2xi64>) -> !teq.proto<8192x8192xbf16, #teq.nvfp4_quantizer<f4E2M1FN, with_2d_quantization = true, stochastic_rounding = true>, rowwise|columnwise, gemm_swizzled> {
    %q = teq.quantize %x rng_state(%rng : tensor<2xi64>) : tensor<8192x8192xbf16> -> !teq.proto<8192x8192xbf16, #teq.nvfp4_quantizer<f4E2M1FN, with_2d_quantization = true, stochastic_rounding = true>, rowwise|columnwise, gemm_swizzled>
    return %q : !teq.proto<8192x8192xbf16, #teq.nvfp4_quantizer<f4E2M1FN, with_2d_quantization = true, stochastic_rounding = true>, rowwise|columnwise, gemm_swizzled>
  }
  func.func @sr_rht_swz_8192x8192(%x: tensor<8192x8192xbf16>, %rng: tensor<2xi64>) -> !teq.proto<8192x8192xbf16, #teq.nvfp4_quantizer<f4E2M1FN, with_rht = true, with_post_rht_amax = true, stochastic_rounding = true>, rowwise|columnwise, gemm_swizzled> {
    %q = teq.quantize %x rng_state(%rng : tensor<2xi64>) : tensor<8192x8192xbf16> -> !teq.proto<8192x8192xbf16, #teq.nvfp4_quantizer<f4E2M1FN, with_rht = true, with_post_rht_amax = true, stochastic_rounding = true>, rowwise|columnwise, gemm_swizzled>
    return %q : !teq.proto<8192x8192xbf16, #teq.nvfp4_quantizer<f4E2M1FN, with_rht = true, with_post_rht_amax = true, stochastic_rounding = true>, rowwise|columnwise, gemm_swizzled>
  }
  func.func @sr_1d_padded_48x48(%x: tensor<48x48xbf16>, %rng: tensor<2xi64>) -> !teq.proto<48x48xbf16, #teq.nvfp4_quantizer<f4E2M1FN, stochastic_rounding = true>, rowwise|columnwise> {
    %q = teq.quantize %x rng_state(%rng : tensor<2xi64>) : tensor<48x48xbf16> -> !teq.proto<48x48xbf16, #teq.nvfp4_quantizer<f4E2M1FN, stochastic_rounding = true>, rowwise|columnwise>
    return %q : !teq.proto<48x48xbf16, #teq.nvfp4_quantizer<f4E2M1FN, stochastic_rounding = true>, rowwise|columnwise>
  }
  func.func @sr_2d_padded_48x80(%x: tensor<48x80xbf16>, %rng: tensor<2xi64>) -> !teq.proto<48x80xbf16, #teq.nvfp4_quantizer<f4E2M1FN, with_2d_quantization = true, stochastic_rounding = true>, rowwise|columnwise, gemm_swizzled> {
    %q = teq.quantize %x rng_state(%rng : tensor<2xi64>) : tensor<48x80xbf16> -> !teq.proto<48x80xbf16, #teq.nvfp4_quantizer<f4E2M1FN, with_2d_quantization = true, stochastic_rounding = true>, rowwise|columnwise, gemm_swizzled>
    return %q : !teq.proto<48x80xbf16, #teq.nvfp4_quantizer<f4E2M1FN, with_2d_quantization = true, stochastic_rounding = true>, rowwise|columnwise, gemm_swizzled>
  }
  func.func @sr_1d_f32_128x256(%x: tensor<128x256xf32>, %rng: tensor<2xi64>) -> !teq.proto<128x256xf32, #teq.nvfp4_quantizer<f4E2M1FN, stochastic_rounding = true>, rowwise|columnwise> {
    %q = teq.quantize %x rng_state(%rng : tensor<2xi64>) : tensor<128x256xf32> -> !teq.proto<128x256xf32, #teq.nvfp4_quantizer<f4E2M1FN, stochastic_rounding = true>, rowwise|columnwise>
    return %q : !teq.proto<128x256xf32, #teq.nvfp4_quantizer<f4E2M1FN, stochastic_rounding = true>, rowwise|columnwise>
  }
  func.func @sr_1d_f16_32x64(%x: tensor<32x64xf16>, %rng: tensor<2xi64>) -> !teq.proto<32x64xf16, #teq.nvfp4_quantizer<f4E2M1FN, stochastic_rounding = true>, rowwise|columnwise> {
    %q = teq.quantize %x rng_state(%rng : tensor<2xi64>) : tensor<32x64xf16> -> !teq.proto<32x64xf16, #teq.nvfp4_quantizer<f4E2M1FN, stochastic_rounding = true>, rowwise|columnwise>
    return %q : !teq.proto<32x64xf16, #teq.nvfp4_quantizer<f4E2M1FN, stochastic_rounding = true>, rowwise|columnwise>
  }
  func.func @sr_1d_rowwise_1024x512(%x: tensor<1024x512xbf16>, %rng: tensor<2xi64>) -> !teq.proto<1024x512xbf16, #teq.nvfp4_quantizer<f4E2M1FN, stochastic_rounding = true>, rowwise, gemm_swizzled> {
    %q = teq.quantize %x rng_state(%rng : tensor<2xi64>) : tensor<1024x512xbf16> -> !teq.proto<1024x512xbf16, #teq.nvfp4_quantizer<f4E2M1FN, stochastic_rounding = true>, rowwise, gemm_swizzled>
    return %q : !teq.proto<1024x512xbf16, #teq.nvfp4_quantizer<f4E2M1FN, stochastic_rounding = true>, rowwise, gemm_swizzled>
  }
  func.func @sr_rht_columnwise_64x48(%x: tensor<64x48xbf16>, %rng: tensor<2xi64>) -> !teq.proto<64x48xbf16, #teq.nvfp4_quantizer<f4E2M1FN, with_rht = true, with_post_rht_amax = true, stochastic_rounding = true>, columnwise> {
    %q = teq.quantize %x rng_state(%rng : tensor<2xi64>) : tensor<64x48xbf16> -> !teq.proto<64x48xbf16, #teq.nvfp4_quantizer<f4E2M1FN, with_rht = true, with_post_rht_amax = true, stochastic_rounding = true>, columnwise>
    return %q : !teq.proto<64x48xbf16, #teq.nvfp4_quantizer<f4E2M1FN, with_rht = true, with_post_rht_amax = true, stochastic_rounding = true>, columnwise>
  }
}
