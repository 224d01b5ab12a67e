// NVFP4 with round-to-nearest, with and without the random Hadamard
// transform of the columnwise copy (te-semantics.md §5.5, §4.4) on
// TE's shapes (128x128, 256x272, 304x304, 2048x2048, 8192x8192) and more:
// 1x16 / 16x1 blocks and 16x16 tiles, compact and GEMM-swizzled E4M3
// scales, bf16/f16/f32 inputs, single usages and shapes whose scale
// buffers are padded (TE's quantizers take only multiples of 16). E2M1 rounding is software (Hopper has no e2m1x2 cvt);
// test/GPU/quantize-nvfp4.test checks every buffer bit for bit.
module attributes {teq.target = #teq.target<sm_90>} {
  func.func @nvfp4_1d_64x64(%x: tensor<64x64xbf16>) -> !teq.proto<64x64xbf16, #teq.nvfp4_quantizer<f4E2M1FN>, rowwise|columnwise> {
    %q = teq.quantize %x : tensor<64x64xbf16> -> !teq.proto<64x64xbf16, #teq.nvfp4_quantizer<f4E2M1FN>, rowwise|columnwise>
    return %q : !teq.proto<64x64xbf16, #teq.nvfp4_quantizer<f4E2M1FN>, rowwise|columnwise>
  }
  func.func @nvfp4_1d_swz_64x64(%x: tensor<64x64xbf16>) -> !teq.proto<64x64xbf16, #teq.nvfp4_quantizer<f4E2M1FN>, rowwise|columnwise, gemm_swizzled> {
    %q = teq.quantize %x : tensor<64x64xbf16> -> !teq.proto<64x64xbf16, #teq.nvfp4_quantizer<f4E2M1FN>, rowwise|columnwise, gemm_swizzled>
    return %q : !teq.proto<64x64xbf16, #teq.nvfp4_quantizer<f4E2M1FN>, rowwise|columnwise, gemm_swizzled>
  }
  func.func @nvfp4_2d_64x64(%x: tensor<64x64xbf16>) -> !teq.proto<64x64xbf16, #teq.nvfp4_quantizer<f4E2M1FN, with_2d_quantization = true>, rowwise|columnwise> {
    %q = teq.quantize %x : tensor<64x64xbf16> -> !teq.proto<64x64xbf16, #teq.nvfp4_quantizer<f4E2M1FN, with_2d_quantization = true>, rowwise|columnwise>
    return %q : !teq.proto<64x64xbf16, #teq.nvfp4_quantizer<f4E2M1FN, with_2d_quantization = true>, rowwise|columnwise>
  }
  func.func @nvfp4_2d_swz_256x128(%x: tensor<256x128xbf16>) -> !teq.proto<256x128xbf16, #teq.nvfp4_quantizer<f4E2M1FN, with_2d_quantization = true>, rowwise|columnwise, gemm_swizzled> {
    %q = teq.quantize %x : tensor<256x128xbf16> -> !teq.proto<256x128xbf16, #teq.nvfp4_quantizer<f4E2M1FN, with_2d_quantization = true>, rowwise|columnwise, gemm_swizzled>
    return %q : !teq.proto<256x128xbf16, #teq.nvfp4_quantizer<f4E2M1FN, with_2d_quantization = true>, rowwise|columnwise, gemm_swizzled>
  }
  func.func @nvfp4_1d_f32_128x256(%x: tensor<128x256xf32>) -> !teq.proto<128x256xf32, #teq.nvfp4_quantizer<f4E2M1FN>, rowwise|columnwise> {
    %q = teq.quantize %x : tensor<128x256xf32> -> !teq.proto<128x256xf32, #teq.nvfp4_quantizer<f4E2M1FN>, rowwise|columnwise>
    return %q : !teq.proto<128x256xf32, #teq.nvfp4_quantizer<f4E2M1FN>, rowwise|columnwise>
  }
  func.func @nvfp4_1d_f16_32x64(%x: tensor<32x64xf16>) -> !teq.proto<32x64xf16, #teq.nvfp4_quantizer<f4E2M1FN>, rowwise|columnwise> {
    %q = teq.quantize %x : tensor<32x64xf16> -> !teq.proto<32x64xf16, #teq.nvfp4_quantizer<f4E2M1FN>, rowwise|columnwise>
    return %q : !teq.proto<32x64xf16, #teq.nvfp4_quantizer<f4E2M1FN>, rowwise|columnwise>
  }
  func.func @nvfp4_1d_rowwise_1024x512(%x: tensor<1024x512xbf16>) -> !teq.proto<1024x512xbf16, #teq.nvfp4_quantizer<f4E2M1FN>, rowwise, gemm_swizzled> {
    %q = teq.quantize %x : tensor<1024x512xbf16> -> !teq.proto<1024x512xbf16, #teq.nvfp4_quantizer<f4E2M1FN>, rowwise, gemm_swizzled>
    return %q : !teq.proto<1024x512xbf16, #teq.nvfp4_quantizer<f4E2M1FN>, rowwise, gemm_swizzled>
  }
  func.func @nvfp4_1d_columnwise_512x1024(%x: tensor<512x1024xbf16>) -> !teq.proto<512x1024xbf16, #teq.nvfp4_quantizer<f4E2M1FN>, columnwise> {
    %q = teq.quantize %x : tensor<512x1024xbf16> -> !teq.proto<512x1024xbf16, #teq.nvfp4_quantizer<f4E2M1FN>, columnwise>
    return %q : !teq.proto<512x1024xbf16, #teq.nvfp4_quantizer<f4E2M1FN>, columnwise>
  }
  func.func @nvfp4_1d_padded_48x48(%x: tensor<48x48xbf16>) -> !teq.proto<48x48xbf16, #teq.nvfp4_quantizer<f4E2M1FN>, rowwise|columnwise> {
    %q = teq.quantize %x : tensor<48x48xbf16> -> !teq.proto<48x48xbf16, #teq.nvfp4_quantizer<f4E2M1FN>, rowwise|columnwise>
    return %q : !teq.proto<48x48xbf16, #teq.nvfp4_quantizer<f4E2M1FN>, rowwise|columnwise>
  }
  func.func @nvfp4_2d_padded_48x80(%x: tensor<48x80xbf16>) -> !teq.proto<48x80xbf16, #teq.nvfp4_quantizer<f4E2M1FN, with_2d_quantization = true>, rowwise|columnwise, gemm_swizzled> {
    %q = teq.quantize %x : tensor<48x80xbf16> -> !teq.proto<48x80xbf16, #teq.nvfp4_quantizer<f4E2M1FN, with_2d_quantization = true>, rowwise|columnwise, gemm_swizzled>
    return %q : !teq.proto<48x80xbf16, #teq.nvfp4_quantizer<f4E2M1FN, with_2d_quantization = true>, rowwise|columnwise, gemm_swizzled>
  }
  func.func @nvfp4_1d_128x128(%x: tensor<128x128xbf16>) -> !teq.proto<128x128xbf16, #teq.nvfp4_quantizer<f4E2M1FN>, rowwise|columnwise> {
    %q = teq.quantize %x : tensor<128x128xbf16> -> !teq.proto<128x128xbf16, #teq.nvfp4_quantizer<f4E2M1FN>, rowwise|columnwise>
    return %q : !teq.proto<128x128xbf16, #teq.nvfp4_quantizer<f4E2M1FN>, rowwise|columnwise>
  }
  func.func @nvfp4_2d_swz_128x128(%x: tensor<128x128xbf16>) -> !teq.proto<128x128xbf16, #teq.nvfp4_quantizer<f4E2M1FN, with_2d_quantization = true>, rowwise|columnwise, gemm_swizzled> {
    %q = teq.quantize %x : tensor<128x128xbf16> -> !teq.proto<128x128xbf16, #teq.nvfp4_quantizer<f4E2M1FN, with_2d_quantization = true>, rowwise|columnwise, gemm_swizzled>
    return %q : !teq.proto<128x128xbf16, #teq.nvfp4_quantizer<f4E2M1FN, with_2d_quantization = true>, rowwise|columnwise, gemm_swizzled>
  }
  func.func @nvfp4_1d_256x272(%x: tensor<256x272xbf16>) -> !teq.proto<256x272xbf16, #teq.nvfp4_quantizer<f4E2M1FN>, rowwise|columnwise> {
    %q = teq.quantize %x : tensor<256x272xbf16> -> !teq.proto<256x272xbf16, #teq.nvfp4_quantizer<f4E2M1FN>, rowwise|columnwise>
    return %q : !teq.proto<256x272xbf16, #teq.nvfp4_quantizer<f4E2M1FN>, rowwise|columnwise>
  }
  func.func @nvfp4_2d_swz_256x272(%x: tensor<256x272xbf16>) -> !teq.proto<256x272xbf16, #teq.nvfp4_quantizer<f4E2M1FN, with_2d_quantization = true>, rowwise|columnwise, gemm_swizzled> {
    %q = teq.quantize %x : tensor<256x272xbf16> -> !teq.proto<256x272xbf16, #teq.nvfp4_quantizer<f4E2M1FN, with_2d_quantization = true>, rowwise|columnwise, gemm_swizzled>
    return %q : !teq.proto<256x272xbf16, #teq.nvfp4_quantizer<f4E2M1FN, with_2d_quantization = true>, rowwise|columnwise, gemm_swizzled>
  }
  func.func @nvfp4_1d_304x304(%x: tensor<304x304xbf16>) -> !teq.proto<304x304xbf16, #teq.nvfp4_quantizer<f4E2M1FN>, rowwise|columnwise> {
    %q = teq.quantize %x : tensor<304x304xbf16> -> !teq.proto<304x304xbf16, #teq.nvfp4_quantizer<f4E2M1FN>, rowwise|columnwise>
    return %q : !teq.proto<304x304xbf16, #teq.nvfp4_quantizer<f4E2M1FN>, rowwise|columnwise>
  }
  func.func @nvfp4_2d_swz_304x304(%x: tensor<304x304xbf16>) -> !teq.proto<304x304xbf16, #teq.nvfp4_quantizer<f4E2M1FN, with_2d_quantization = true>, rowwise|columnwise, gemm_swizzled> {
    %q = teq.quantize %x : tensor<304x304xbf16> -> !teq.proto<304x304xbf16, #teq.nvfp4_quantizer<f4E2M1FN, with_2d_quantization = true>, rowwise|columnwise, gemm_swizzled>
    return %q : !teq.proto<304x304xbf16, #teq.nvfp4_quantizer<f4E2M1FN, with_2d_quantization = true>, rowwise|columnwise, gemm_swizzled>
  }
  func.func @nvfp4_1d_2048x2048(%x: tensor<2048x2048xbf16>) -> !teq.proto<2048x2048xbf16, #teq.nvfp4_quantizer<f4E2M1FN>, rowwise|columnwise> {
    %q = teq.quantize %x : tensor<2048x2048xbf16> -> !teq.proto<2048x2048xbf16, #teq.nvfp4_quantizer<f4E2M1FN>, rowwise|columnwise>
    return %q : !teq.proto<2048x2048xbf16, #teq.nvfp4_quantizer<f4E2M1FN>, rowwise|columnwise>
  }
  func.func @nvfp4_2d_swz_2048x2048(%x: tensor<2048x2048xbf16>) -> !teq.proto<2048x2048xbf16, #teq.nvfp4_quantizer<f4E2M1FN, with_2d_quantization = true>, rowwise|columnwise, gemm_swizzled> {
    %q = teq.quantize %x : tensor<2048x2048xbf16> -> !teq.proto<2048x2048xbf16, #teq.nvfp4_quantizer<f4E2M1FN, with_2d_quantization = true>, rowwise|columnwise, gemm_swizzled>
    return %q : !teq.proto<2048x2048xbf16, #teq.nvfp4_quantizer<f4E2M1FN, with_2d_quantization = true>, rowwise|columnwise, gemm_swizzled>
  }
  func.func @nvfp4_1d_8192x8192(%x: tensor<8192x8192xbf16>) -> !teq.proto<8192x8192xbf16, #teq.nvfp4_quantizer<f4E2M1FN>, rowwise|columnwise> {
    %q = teq.quantize %x : tensor<8192x8192xbf16> -> !teq.proto<8192x8192xbf16, #teq.nvfp4_quantizer<f4E2M1FN>, rowwise|columnwise>
    return %q : !teq.proto<8192x8192xbf16, #teq.nvfp4_quantizer<f4E2M1FN>, rowwise|columnwise>
  }
  func.func @nvfp4_2d_swz_8192x8192(%x: tensor<8192x8192xbf16>) -> !teq.proto<8192x8192xbf16, #teq.nvfp4_quantizer<f4E2M1FN, with_2d_quantization = true>, rowwise|columnwise, gemm_swizzled> {
    %q = teq.quantize %x : tensor<8192x8192xbf16> -> !teq.proto<8192x8192xbf16, #teq.nvfp4_quantizer<f4E2M1FN, with_2d_quantization = true>, rowwise|columnwise, gemm_swizzled>
    return %q : !teq.proto<8192x8192xbf16, #teq.nvfp4_quantizer<f4E2M1FN, with_2d_quantization = true>, rowwise|columnwise, gemm_swizzled>
  }
  func.func @nvfp4_rht_128x128(%x: tensor<128x128xbf16>) -> !teq.proto<128x128xbf16, #teq.nvfp4_quantizer<f4E2M1FN, with_rht = true, with_post_rht_amax = true>, rowwise|columnwise> {
    %q = teq.quantize %x : tensor<128x128xbf16> -> !teq.proto<128x128xbf16, #teq.nvfp4_quantizer<f4E2M1FN, with_rht = true, with_post_rht_amax = true>, rowwise|columnwise>
    return %q : !teq.proto<128x128xbf16, #teq.nvfp4_quantizer<f4E2M1FN, with_rht = true, with_post_rht_amax = true>, rowwise|columnwise>
  }
  func.func @nvfp4_rht_256x272(%x: tensor<256x272xbf16>) -> !teq.proto<256x272xbf16, #teq.nvfp4_quantizer<f4E2M1FN, with_rht = true, with_post_rht_amax = true>, rowwise|columnwise> {
    %q = teq.quantize %x : tensor<256x272xbf16> -> !teq.proto<256x272xbf16, #teq.nvfp4_quantizer<f4E2M1FN, with_rht = true, with_post_rht_amax = true>, rowwise|columnwise>
    return %q : !teq.proto<256x272xbf16, #teq.nvfp4_quantizer<f4E2M1FN, with_rht = true, with_post_rht_amax = true>, rowwise|columnwise>
  }
  func.func @nvfp4_rht_304x304(%x: tensor<304x304xbf16>) -> !teq.proto<304x304xbf16, #teq.nvfp4_quantizer<f4E2M1FN, with_rht = true, with_post_rht_amax = true>, rowwise|columnwise, gemm_swizzled> {
    %q = teq.quantize %x : tensor<304x304xbf16> -> !teq.proto<304x304xbf16, #teq.nvfp4_quantizer<f4E2M1FN, with_rht = true, with_post_rht_amax = true>, rowwise|columnwise, gemm_swizzled>
    return %q : !teq.proto<304x304xbf16, #teq.nvfp4_quantizer<f4E2M1FN, with_rht = true, with_post_rht_amax = true>, rowwise|columnwise, gemm_swizzled>
  }
  func.func @nvfp4_rht_2048x2048(%x: tensor<2048x2048xbf16>) -> !teq.proto<2048x2048xbf16, #teq.nvfp4_quantizer<f4E2M1FN, with_rht = true, with_post_rht_amax = true>, rowwise|columnwise> {
    %q = teq.quantize %x : tensor<2048x2048xbf16> -> !teq.proto<2048x2048xbf16, #teq.nvfp4_quantizer<f4E2M1FN, with_rht = true, with_post_rht_amax = true>, rowwise|columnwise>
    return %q : !teq.proto<2048x2048xbf16, #teq.nvfp4_quantizer<f4E2M1FN, with_rht = true, with_post_rht_amax = true>, rowwise|columnwise>
  }
  func.func @nvfp4_rht_8192x8192(%x: tensor<8192x8192xbf16>) -> !teq.proto<8192x8192xbf16, #teq.nvfp4_quantizer<f4E2M1FN, with_rht = true, with_post_rht_amax = true>, rowwise|columnwise, gemm_swizzled> {
    %q = teq.quantize %x : tensor<8192x8192xbf16> -> !teq.proto<8192x8192xbf16, #teq.nvfp4_quantizer<f4E2M1FN, with_rht = true, with_post_rht_amax = true>, rowwise|columnwise, gemm_swizzled>
    return %q : !teq.proto<8192x8192xbf16, #teq.nvfp4_quantizer<f4E2M1FN, with_rht = true, with_post_rht_amax = true>, rowwise|columnwise, gemm_swizzled>
  }
  func.func @nvfp4_rht_col_64x48(%x: tensor<64x48xbf16>) -> !teq.proto<64x48xbf16, #teq.nvfp4_quantizer<f4E2M1FN, with_rht = true, with_post_rht_amax = true>, columnwise> {
    %q = teq.quantize %x : tensor<64x48xbf16> -> !teq.proto<64x48xbf16, #teq.nvfp4_quantizer<f4E2M1FN, with_rht = true, with_post_rht_amax = true>, columnwise>
    return %q : !teq.proto<64x48xbf16, #teq.nvfp4_quantizer<f4E2M1FN, with_rht = true, with_post_rht_amax = true>, columnwise>
  }
}
