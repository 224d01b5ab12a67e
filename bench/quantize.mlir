// Quantize benchmark inputs (bench/quantize_bench.py): per-tensor FP8 current
// scaling of bf16 tensors larger than the H100's 50 MB L2, with and without
// the transposed copy Hopper keeps for columnwise usage; block FP8, MXFP8 and
// NVFP4 (1D, 2D 16x16, RHT columnwise) with both usages.
module attributes {teq.target = #teq.target<sm_90>} {
  func.func @current_both_8192x8192(%x: tensor<8192x8192xbf16>) -> !teq.proto<8192x8192xbf16, #teq.float8_current_scaling_quantizer<f8E4M3FN>, rowwise|columnwise> {
    %q = teq.quantize %x : tensor<8192x8192xbf16> -> !teq.proto<8192x8192xbf16, #teq.float8_current_scaling_quantizer<f8E4M3FN>, rowwise|columnwise>
    return %q : !teq.proto<8192x8192xbf16, #teq.float8_current_scaling_quantizer<f8E4M3FN>, rowwise|columnwise>
  }
  func.func @current_rowwise_8192x8192(%x: tensor<8192x8192xbf16>) -> !teq.proto<8192x8192xbf16, #teq.float8_current_scaling_quantizer<f8E4M3FN>, rowwise> {
    %q = teq.quantize %x : tensor<8192x8192xbf16> -> !teq.proto<8192x8192xbf16, #teq.float8_current_scaling_quantizer<f8E4M3FN>, rowwise>
    return %q : !teq.proto<8192x8192xbf16, #teq.float8_current_scaling_quantizer<f8E4M3FN>, rowwise>
  }
  func.func @current_both_16384x4096(%x: tensor<16384x4096xbf16>) -> !teq.proto<16384x4096xbf16, #teq.float8_current_scaling_quantizer<f8E4M3FN>, rowwise|columnwise> {
    %q = teq.quantize %x : tensor<16384x4096xbf16> -> !teq.proto<16384x4096xbf16, #teq.float8_current_scaling_quantizer<f8E4M3FN>, rowwise|columnwise>
    return %q : !teq.proto<16384x4096xbf16, #teq.float8_current_scaling_quantizer<f8E4M3FN>, rowwise|columnwise>
  }
  func.func @current_rowwise_16384x4096(%x: tensor<16384x4096xbf16>) -> !teq.proto<16384x4096xbf16, #teq.float8_current_scaling_quantizer<f8E4M3FN>, rowwise> {
    %q = teq.quantize %x : tensor<16384x4096xbf16> -> !teq.proto<16384x4096xbf16, #teq.float8_current_scaling_quantizer<f8E4M3FN>, rowwise>
    return %q : !teq.proto<16384x4096xbf16, #teq.float8_current_scaling_quantizer<f8E4M3FN>, rowwise>
  }
  func.func @block1d_both_8192x8192(%x: tensor<8192x8192xbf16>) -> !teq.proto<8192x8192xbf16, #teq.float8_block_quantizer<f8E4M3FN, block_scaling_dim = 1>, rowwise|columnwise> {
    %q = teq.quantize %x : tensor<8192x8192xbf16> -> !teq.proto<8192x8192xbf16, #teq.float8_block_quantizer<f8E4M3FN, block_scaling_dim = 1>, rowwise|columnwise>
    return %q : !teq.proto<8192x8192xbf16, #teq.float8_block_quantizer<f8E4M3FN, block_scaling_dim = 1>, rowwise|columnwise>
  }
  func.func @block1d_both_16384x4096(%x: tensor<16384x4096xbf16>) -> !teq.proto<16384x4096xbf16, #teq.float8_block_quantizer<f8E4M3FN, block_scaling_dim = 1>, rowwise|columnwise> {
    %q = teq.quantize %x : tensor<16384x4096xbf16> -> !teq.proto<16384x4096xbf16, #teq.float8_block_quantizer<f8E4M3FN, block_scaling_dim = 1>, rowwise|columnwise>
    return %q : !teq.proto<16384x4096xbf16, #teq.float8_block_quantizer<f8E4M3FN, block_scaling_dim = 1>, rowwise|columnwise>
  }
  func.func @block2d_both_8192x8192(%x: tensor<8192x8192xbf16>) -> !teq.proto<8192x8192xbf16, #teq.float8_block_quantizer<f8E4M3FN>, rowwise|columnwise> {
    %q = teq.quantize %x : tensor<8192x8192xbf16> -> !teq.proto<8192x8192xbf16, #teq.float8_block_quantizer<f8E4M3FN>, rowwise|columnwise>
    return %q : !teq.proto<8192x8192xbf16, #teq.float8_block_quantizer<f8E4M3FN>, rowwise|columnwise>
  }
  func.func @block2d_both_16384x4096(%x: tensor<16384x4096xbf16>) -> !teq.proto<16384x4096xbf16, #teq.float8_block_quantizer<f8E4M3FN>, rowwise|columnwise> {
    %q = teq.quantize %x : tensor<16384x4096xbf16> -> !teq.proto<16384x4096xbf16, #teq.float8_block_quantizer<f8E4M3FN>, rowwise|columnwise>
    return %q : !teq.proto<16384x4096xbf16, #teq.float8_block_quantizer<f8E4M3FN>, rowwise|columnwise>
  }
  func.func @mxfp8_both_8192x8192(%x: tensor<8192x8192xbf16>) -> !teq.proto<8192x8192xbf16, #teq.mxfp8_quantizer<f8E4M3FN>, rowwise|columnwise, gemm_swizzled> {
    %q = teq.quantize %x : tensor<8192x8192xbf16> -> !teq.proto<8192x8192xbf16, #teq.mxfp8_quantizer<f8E4M3FN>, rowwise|columnwise, gemm_swizzled>
    return %q : !teq.proto<8192x8192xbf16, #teq.mxfp8_quantizer<f8E4M3FN>, rowwise|columnwise, gemm_swizzled>
  }
  func.func @mxfp8_both_16384x4096(%x: tensor<16384x4096xbf16>) -> !teq.proto<16384x4096xbf16, #teq.mxfp8_quantizer<f8E4M3FN>, rowwise|columnwise, gemm_swizzled> {
    %q = teq.quantize %x : tensor<16384x4096xbf16> -> !teq.proto<16384x4096xbf16, #teq.mxfp8_quantizer<f8E4M3FN>, rowwise|columnwise, gemm_swizzled>
    return %q : !teq.proto<16384x4096xbf16, #teq.mxfp8_quantizer<f8E4M3FN>, rowwise|columnwise, gemm_swizzled>
  }
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
  func.func @nvfp4_1d_both_16384x4096(%x: tensor<16384x4096xbf16>) -> !teq.proto<16384x4096xbf16, #teq.nvfp4_quantizer<f4E2M1FN>, rowwise|columnwise, gemm_swizzled> {
    %q = teq.quantize %x : tensor<16384x4096xbf16> -> !teq.proto<16384x4096xbf16, #teq.nvfp4_quantizer<f4E2M1FN>, rowwise|columnwise, gemm_swizzled>
    return %q : !teq.proto<16384x4096xbf16, #teq.nvfp4_quantizer<f4E2M1FN>, rowwise|columnwise, gemm_swizzled>
  }
  func.func @nvfp4_2d_both_16384x4096(%x: tensor<16384x4096xbf16>) -> !teq.proto<16384x4096xbf16, #teq.nvfp4_quantizer<f4E2M1FN, with_2d_quantization = true>, rowwise|columnwise, gemm_swizzled> {
    %q = teq.quantize %x : tensor<16384x4096xbf16> -> !teq.proto<16384x4096xbf16, #teq.nvfp4_quantizer<f4E2M1FN, with_2d_quantization = true>, rowwise|columnwise, gemm_swizzled>
    return %q : !teq.proto<16384x4096xbf16, #teq.nvfp4_quantizer<f4E2M1FN, with_2d_quantization = true>, rowwise|columnwise, gemm_swizzled>
  }
  func.func @nvfp4_rht_both_16384x4096(%x: tensor<16384x4096xbf16>) -> !teq.proto<16384x4096xbf16, #teq.nvfp4_quantizer<f4E2M1FN, with_rht = true, with_post_rht_amax = true>, rowwise|columnwise, gemm_swizzled> {
    %q = teq.quantize %x : tensor<16384x4096xbf16> -> !teq.proto<16384x4096xbf16, #teq.nvfp4_quantizer<f4E2M1FN, with_rht = true, with_post_rht_amax = true>, rowwise|columnwise, gemm_swizzled>
    return %q : !teq.proto<16384x4096xbf16, #teq.nvfp4_quantizer<f4E2M1FN, with_rht = true, with_post_rht_amax = true>, rowwise|columnwise, gemm_swizzled>
  }
}
