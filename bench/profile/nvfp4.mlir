// NVFP4 quantize at 8192x8192 bf16 (1D, 2D, RHT; both usages, swizzled
// scales) and block FP8 1D for reference: the program scripts/gpu-profile
// times variant by variant (scripts/profile-variants compiles it with
// several revisions of the kernel generator).
module attributes {teq.target = #teq.target<sm_90>} {
  func.func @nvfp4_1d_both_8192x8192(%x: tensor<8192x8192xbf16>) -> !teq.proto<8192x8192xbf16, #teq.nvfp4_quantizer<f4E2M1FN>, rowwise|columnwise, gemm_swizzled> {
    %q = teq.quantize %x : tensor<8192x8192xbf16> -> !teq.proto<8192x8192xbf16, #teq.nvfp4_quantizer<f4E2M1FN>, rowwise|columnwise, gemm_swizzled>
    return %q : !teq.proto<8192x8192xbf16, #teq.nvfp4_quantizer<f4E2M1FN>, rowwise|columnwise, gemm_swizzled>
  }
  func.func @nvfp4_2d_both_8192x8192(%x: tensor<8192x8192xbf16>) -> !teq.proto<8192x8192xbf16, #teq.nvfp4_quantizer<f4E2M1FN, with_2d_quantization = true>, rowwise|columnwise, gemm_swizzled> {
    %q = teq.quantize %x : tensor<8192x8192xbf16> -> !teq.proto<8192x8192xbf16, #teq.nvfp4_quantizer<f4E2M1FN, with_2d_quantization = true>, rowwise|columnwise, gemm_swizzled>
    return %q : !teq.proto<8192x8192xbf16, #teq.nvfp4_quantizer<f4E2M1FN, with_2d_quantization = true>, rowwise|columnwise, gemm_swizzled>
  }
  func.func @nvfp4_rht_both_8192x8192(%x: tensor<8192x8192xbf16>) -> !teq.proto<8192x8192xbf16, #teq.nvfp4_quantizer<f4E2M1FN, with_rht = true, with_post_rht_amax = true>, rowwise|columnwise, gemm_swizzled> {
    %q = teq.quantize %x : tensor<8192x8192xbf16> -> !teq.proto<8192x8192xbf16, #teq.nvfp4_quantizer<f4E2M1FN, with_rht = true, with_post_rht_amax = true>, rowwise|columnwise, gemm_swizzled>
    return %q : !teq.proto<8192x8192xbf16, #teq.nvfp4_quantizer<f4E2M1FN, with_rht = true, with_post_rht_amax = true>, rowwise|columnwise, gemm_swizzled>
  }
  func.func @block1d_both_8192x8192(%x: tensor<8192x8192xbf16>) -> !teq.proto<8192x8192xbf16, #teq.float8_block_quantizer<f8E4M3FN, block_scaling_dim = 1>, rowwise|columnwise> {
    %q = teq.quantize %x : tensor<8192x8192xbf16> -> !teq.proto<8192x8192xbf16, #teq.float8_block_quantizer<f8E4M3FN, block_scaling_dim = 1>, rowwise|columnwise>
    return %q : !teq.proto<8192x8192xbf16, #teq.float8_block_quantizer<f8E4M3FN, block_scaling_dim = 1>, rowwise|columnwise>
  }
}
