// The block FP8 and MXFP8 quantizations whose tile kernels
// TileKernelEmulationTest runs on the CPU (--teq-test-kernels-to-cpu=per-thread,
// which also writes the test's case table from this module's entries): TE's
// ragged shapes, 1D/2D, E4M3/E5M2, bf16/f16/f32, compact and GEMM-swizzled
// scales, single usages.
module attributes {teq.target = #teq.target<sm_90>} {
  func.func @e0(%x: tensor<303x300xbf16>) -> !teq.proto<303x300xbf16, #teq.float8_block_quantizer<f8E4M3FN, block_scaling_dim = 1>, rowwise|columnwise> {
    %q = teq.quantize %x : tensor<303x300xbf16> -> !teq.proto<303x300xbf16, #teq.float8_block_quantizer<f8E4M3FN, block_scaling_dim = 1>, rowwise|columnwise>
    return %q : !teq.proto<303x300xbf16, #teq.float8_block_quantizer<f8E4M3FN, block_scaling_dim = 1>, rowwise|columnwise>
  }
  func.func @e1(%x: tensor<303x300xbf16>) -> !teq.proto<303x300xbf16, #teq.float8_block_quantizer<f8E4M3FN, block_scaling_dim = 2>, rowwise|columnwise> {
    %q = teq.quantize %x : tensor<303x300xbf16> -> !teq.proto<303x300xbf16, #teq.float8_block_quantizer<f8E4M3FN, block_scaling_dim = 2>, rowwise|columnwise>
    return %q : !teq.proto<303x300xbf16, #teq.float8_block_quantizer<f8E4M3FN, block_scaling_dim = 2>, rowwise|columnwise>
  }
  func.func @e2(%x: tensor<303x300xf32>) -> !teq.proto<303x300xf32, #teq.float8_block_quantizer<f8E5M2, block_scaling_dim = 1>, rowwise|columnwise> {
    %q = teq.quantize %x : tensor<303x300xf32> -> !teq.proto<303x300xf32, #teq.float8_block_quantizer<f8E5M2, block_scaling_dim = 1>, rowwise|columnwise>
    return %q : !teq.proto<303x300xf32, #teq.float8_block_quantizer<f8E5M2, block_scaling_dim = 1>, rowwise|columnwise>
  }
  func.func @e3(%x: tensor<303x300xf16>) -> !teq.proto<303x300xf16, #teq.float8_block_quantizer<f8E5M2, block_scaling_dim = 2>, rowwise|columnwise> {
    %q = teq.quantize %x : tensor<303x300xf16> -> !teq.proto<303x300xf16, #teq.float8_block_quantizer<f8E5M2, block_scaling_dim = 2>, rowwise|columnwise>
    return %q : !teq.proto<303x300xf16, #teq.float8_block_quantizer<f8E5M2, block_scaling_dim = 2>, rowwise|columnwise>
  }
  func.func @e4(%x: tensor<256x272xbf16>) -> !teq.proto<256x272xbf16, #teq.float8_block_quantizer<f8E4M3FN, block_scaling_dim = 1>, rowwise|columnwise> {
    %q = teq.quantize %x : tensor<256x272xbf16> -> !teq.proto<256x272xbf16, #teq.float8_block_quantizer<f8E4M3FN, block_scaling_dim = 1>, rowwise|columnwise>
    return %q : !teq.proto<256x272xbf16, #teq.float8_block_quantizer<f8E4M3FN, block_scaling_dim = 1>, rowwise|columnwise>
  }
  func.func @e5(%x: tensor<256x272xf32>) -> !teq.proto<256x272xf32, #teq.float8_block_quantizer<f8E4M3FN, block_scaling_dim = 2>, rowwise|columnwise> {
    %q = teq.quantize %x : tensor<256x272xf32> -> !teq.proto<256x272xf32, #teq.float8_block_quantizer<f8E4M3FN, block_scaling_dim = 2>, rowwise|columnwise>
    return %q : !teq.proto<256x272xf32, #teq.float8_block_quantizer<f8E4M3FN, block_scaling_dim = 2>, rowwise|columnwise>
  }
  func.func @e6(%x: tensor<256x272xf16>) -> !teq.proto<256x272xf16, #teq.float8_block_quantizer<f8E4M3FN, block_scaling_dim = 1, force_pow_2_scales = false>, rowwise|columnwise> {
    %q = teq.quantize %x : tensor<256x272xf16> -> !teq.proto<256x272xf16, #teq.float8_block_quantizer<f8E4M3FN, block_scaling_dim = 1, force_pow_2_scales = false>, rowwise|columnwise>
    return %q : !teq.proto<256x272xf16, #teq.float8_block_quantizer<f8E4M3FN, block_scaling_dim = 1, force_pow_2_scales = false>, rowwise|columnwise>
  }
  func.func @e7(%x: tensor<2000x2000xbf16>) -> !teq.proto<2000x2000xbf16, #teq.float8_block_quantizer<f8E4M3FN, block_scaling_dim = 1>, rowwise|columnwise> {
    %q = teq.quantize %x : tensor<2000x2000xbf16> -> !teq.proto<2000x2000xbf16, #teq.float8_block_quantizer<f8E4M3FN, block_scaling_dim = 1>, rowwise|columnwise>
    return %q : !teq.proto<2000x2000xbf16, #teq.float8_block_quantizer<f8E4M3FN, block_scaling_dim = 1>, rowwise|columnwise>
  }
  func.func @e8(%x: tensor<2000x2000xbf16>) -> !teq.proto<2000x2000xbf16, #teq.float8_block_quantizer<f8E5M2, block_scaling_dim = 2>, rowwise|columnwise> {
    %q = teq.quantize %x : tensor<2000x2000xbf16> -> !teq.proto<2000x2000xbf16, #teq.float8_block_quantizer<f8E5M2, block_scaling_dim = 2>, rowwise|columnwise>
    return %q : !teq.proto<2000x2000xbf16, #teq.float8_block_quantizer<f8E5M2, block_scaling_dim = 2>, rowwise|columnwise>
  }
  func.func @e9(%x: tensor<256x256xbf16>) -> !teq.proto<256x256xbf16, #teq.float8_block_quantizer<f8E4M3FN, block_scaling_dim = 1, amax_epsilon = 1.0>, rowwise|columnwise> {
    %q = teq.quantize %x : tensor<256x256xbf16> -> !teq.proto<256x256xbf16, #teq.float8_block_quantizer<f8E4M3FN, block_scaling_dim = 1, amax_epsilon = 1.0>, rowwise|columnwise>
    return %q : !teq.proto<256x256xbf16, #teq.float8_block_quantizer<f8E4M3FN, block_scaling_dim = 1, amax_epsilon = 1.0>, rowwise|columnwise>
  }
  func.func @e10(%x: tensor<256x256xbf16>) -> !teq.proto<256x256xbf16, #teq.float8_block_quantizer<f8E4M3FN, block_scaling_dim = 2, force_pow_2_scales = false>, rowwise|columnwise> {
    %q = teq.quantize %x : tensor<256x256xbf16> -> !teq.proto<256x256xbf16, #teq.float8_block_quantizer<f8E4M3FN, block_scaling_dim = 2, force_pow_2_scales = false>, rowwise|columnwise>
    return %q : !teq.proto<256x256xbf16, #teq.float8_block_quantizer<f8E4M3FN, block_scaling_dim = 2, force_pow_2_scales = false>, rowwise|columnwise>
  }
  func.func @e11(%x: tensor<65x96xbf16>) -> !teq.proto<65x96xbf16, #teq.float8_block_quantizer<f8E4M3FN, block_scaling_dim = 1>, rowwise> {
    %q = teq.quantize %x : tensor<65x96xbf16> -> !teq.proto<65x96xbf16, #teq.float8_block_quantizer<f8E4M3FN, block_scaling_dim = 1>, rowwise>
    return %q : !teq.proto<65x96xbf16, #teq.float8_block_quantizer<f8E4M3FN, block_scaling_dim = 1>, rowwise>
  }
  func.func @e12(%x: tensor<65x96xbf16>) -> !teq.proto<65x96xbf16, #teq.float8_block_quantizer<f8E4M3FN, block_scaling_dim = 2>, columnwise> {
    %q = teq.quantize %x : tensor<65x96xbf16> -> !teq.proto<65x96xbf16, #teq.float8_block_quantizer<f8E4M3FN, block_scaling_dim = 2>, columnwise>
    return %q : !teq.proto<65x96xbf16, #teq.float8_block_quantizer<f8E4M3FN, block_scaling_dim = 2>, columnwise>
  }
  func.func @e13(%x: tensor<305x256xf32>) -> !teq.proto<305x256xf32, #teq.float8_block_quantizer<f8E4M3FN, block_scaling_dim = 1>, columnwise> {
    %q = teq.quantize %x : tensor<305x256xf32> -> !teq.proto<305x256xf32, #teq.float8_block_quantizer<f8E4M3FN, block_scaling_dim = 1>, columnwise>
    return %q : !teq.proto<305x256xf32, #teq.float8_block_quantizer<f8E4M3FN, block_scaling_dim = 1>, columnwise>
  }
  func.func @e14(%x: tensor<305x256xbf16>) -> !teq.proto<305x256xbf16, #teq.float8_block_quantizer<f8E4M3FN, block_scaling_dim = 2>, rowwise> {
    %q = teq.quantize %x : tensor<305x256xbf16> -> !teq.proto<305x256xbf16, #teq.float8_block_quantizer<f8E4M3FN, block_scaling_dim = 2>, rowwise>
    return %q : !teq.proto<305x256xbf16, #teq.float8_block_quantizer<f8E4M3FN, block_scaling_dim = 2>, rowwise>
  }
  func.func @e15(%x: tensor<1x16xbf16>) -> !teq.proto<1x16xbf16, #teq.float8_block_quantizer<f8E4M3FN, block_scaling_dim = 1>, rowwise|columnwise> {
    %q = teq.quantize %x : tensor<1x16xbf16> -> !teq.proto<1x16xbf16, #teq.float8_block_quantizer<f8E4M3FN, block_scaling_dim = 1>, rowwise|columnwise>
    return %q : !teq.proto<1x16xbf16, #teq.float8_block_quantizer<f8E4M3FN, block_scaling_dim = 1>, rowwise|columnwise>
  }
  func.func @e16(%x: tensor<1024x1xbf16>) -> !teq.proto<1024x1xbf16, #teq.float8_block_quantizer<f8E4M3FN, block_scaling_dim = 2>, rowwise|columnwise> {
    %q = teq.quantize %x : tensor<1024x1xbf16> -> !teq.proto<1024x1xbf16, #teq.float8_block_quantizer<f8E4M3FN, block_scaling_dim = 2>, rowwise|columnwise>
    return %q : !teq.proto<1024x1xbf16, #teq.float8_block_quantizer<f8E4M3FN, block_scaling_dim = 2>, rowwise|columnwise>
  }
  func.func @e17(%x: tensor<3x5x130xf16>) -> !teq.proto<3x5x130xf16, #teq.float8_block_quantizer<f8E4M3FN, block_scaling_dim = 1>, rowwise|columnwise> {
    %q = teq.quantize %x : tensor<3x5x130xf16> -> !teq.proto<3x5x130xf16, #teq.float8_block_quantizer<f8E4M3FN, block_scaling_dim = 1>, rowwise|columnwise>
    return %q : !teq.proto<3x5x130xf16, #teq.float8_block_quantizer<f8E4M3FN, block_scaling_dim = 1>, rowwise|columnwise>
  }
  func.func @e18(%x: tensor<993x512xbf16>) -> !teq.proto<993x512xbf16, #teq.float8_block_quantizer<f8E4M3FN, block_scaling_dim = 1>, rowwise|columnwise> {
    %q = teq.quantize %x : tensor<993x512xbf16> -> !teq.proto<993x512xbf16, #teq.float8_block_quantizer<f8E4M3FN, block_scaling_dim = 1>, rowwise|columnwise>
    return %q : !teq.proto<993x512xbf16, #teq.float8_block_quantizer<f8E4M3FN, block_scaling_dim = 1>, rowwise|columnwise>
  }
  func.func @e19(%x: tensor<992x512xbf16>) -> !teq.proto<992x512xbf16, #teq.mxfp8_quantizer<f8E4M3FN>, rowwise|columnwise> {
    %q = teq.quantize %x : tensor<992x512xbf16> -> !teq.proto<992x512xbf16, #teq.mxfp8_quantizer<f8E4M3FN>, rowwise|columnwise>
    return %q : !teq.proto<992x512xbf16, #teq.mxfp8_quantizer<f8E4M3FN>, rowwise|columnwise>
  }
  func.func @e20(%x: tensor<992x512xbf16>) -> !teq.proto<992x512xbf16, #teq.mxfp8_quantizer<f8E4M3FN, with_2d_quantization = true>, rowwise|columnwise, gemm_swizzled> {
    %q = teq.quantize %x : tensor<992x512xbf16> -> !teq.proto<992x512xbf16, #teq.mxfp8_quantizer<f8E4M3FN, with_2d_quantization = true>, rowwise|columnwise, gemm_swizzled>
    return %q : !teq.proto<992x512xbf16, #teq.mxfp8_quantizer<f8E4M3FN, with_2d_quantization = true>, rowwise|columnwise, gemm_swizzled>
  }
  func.func @e21(%x: tensor<352x256xf16>) -> !teq.proto<352x256xf16, #teq.mxfp8_quantizer<f8E5M2>, rowwise|columnwise, gemm_swizzled> {
    %q = teq.quantize %x : tensor<352x256xf16> -> !teq.proto<352x256xf16, #teq.mxfp8_quantizer<f8E5M2>, rowwise|columnwise, gemm_swizzled>
    return %q : !teq.proto<352x256xf16, #teq.mxfp8_quantizer<f8E5M2>, rowwise|columnwise, gemm_swizzled>
  }
  func.func @e22(%x: tensor<352x256xbf16>) -> !teq.proto<352x256xbf16, #teq.mxfp8_quantizer<f8E5M2, with_2d_quantization = true>, rowwise|columnwise> {
    %q = teq.quantize %x : tensor<352x256xbf16> -> !teq.proto<352x256xbf16, #teq.mxfp8_quantizer<f8E5M2, with_2d_quantization = true>, rowwise|columnwise>
    return %q : !teq.proto<352x256xbf16, #teq.mxfp8_quantizer<f8E5M2, with_2d_quantization = true>, rowwise|columnwise>
  }
  func.func @e23(%x: tensor<256x288xf32>) -> !teq.proto<256x288xf32, #teq.mxfp8_quantizer<f8E4M3FN, with_2d_quantization = true>, rowwise|columnwise> {
    %q = teq.quantize %x : tensor<256x288xf32> -> !teq.proto<256x288xf32, #teq.mxfp8_quantizer<f8E4M3FN, with_2d_quantization = true>, rowwise|columnwise>
    return %q : !teq.proto<256x288xf32, #teq.mxfp8_quantizer<f8E4M3FN, with_2d_quantization = true>, rowwise|columnwise>
  }
  func.func @e24(%x: tensor<256x288xbf16>) -> !teq.proto<256x288xbf16, #teq.mxfp8_quantizer<f8E4M3FN>, rowwise|columnwise, gemm_swizzled> {
    %q = teq.quantize %x : tensor<256x288xbf16> -> !teq.proto<256x288xbf16, #teq.mxfp8_quantizer<f8E4M3FN>, rowwise|columnwise, gemm_swizzled>
    return %q : !teq.proto<256x288xbf16, #teq.mxfp8_quantizer<f8E4M3FN>, rowwise|columnwise, gemm_swizzled>
  }
  func.func @e25(%x: tensor<64x64xbf16>) -> !teq.proto<64x64xbf16, #teq.mxfp8_quantizer<f8E4M3FN>, rowwise, gemm_swizzled> {
    %q = teq.quantize %x : tensor<64x64xbf16> -> !teq.proto<64x64xbf16, #teq.mxfp8_quantizer<f8E4M3FN>, rowwise, gemm_swizzled>
    return %q : !teq.proto<64x64xbf16, #teq.mxfp8_quantizer<f8E4M3FN>, rowwise, gemm_swizzled>
  }
  func.func @e26(%x: tensor<64x64xbf16>) -> !teq.proto<64x64xbf16, #teq.mxfp8_quantizer<f8E4M3FN>, columnwise> {
    %q = teq.quantize %x : tensor<64x64xbf16> -> !teq.proto<64x64xbf16, #teq.mxfp8_quantizer<f8E4M3FN>, columnwise>
    return %q : !teq.proto<64x64xbf16, #teq.mxfp8_quantizer<f8E4M3FN>, columnwise>
  }
  func.func @e27(%x: tensor<320x256xf32>) -> !teq.proto<320x256xf32, #teq.mxfp8_quantizer<f8E5M2>, columnwise, gemm_swizzled> {
    %q = teq.quantize %x : tensor<320x256xf32> -> !teq.proto<320x256xf32, #teq.mxfp8_quantizer<f8E5M2>, columnwise, gemm_swizzled>
    return %q : !teq.proto<320x256xf32, #teq.mxfp8_quantizer<f8E5M2>, columnwise, gemm_swizzled>
  }
  func.func @e28(%x: tensor<320x320xf16>) -> !teq.proto<320x320xf16, #teq.mxfp8_quantizer<f8E4M3FN, with_2d_quantization = true>, rowwise> {
    %q = teq.quantize %x : tensor<320x320xf16> -> !teq.proto<320x320xf16, #teq.mxfp8_quantizer<f8E4M3FN, with_2d_quantization = true>, rowwise>
    return %q : !teq.proto<320x320xf16, #teq.mxfp8_quantizer<f8E4M3FN, with_2d_quantization = true>, rowwise>
  }
  func.func @e29(%x: tensor<32x64xbf16>) -> !teq.proto<32x64xbf16, #teq.mxfp8_quantizer<f8E4M3FN>, rowwise|columnwise> {
    %q = teq.quantize %x : tensor<32x64xbf16> -> !teq.proto<32x64xbf16, #teq.mxfp8_quantizer<f8E4M3FN>, rowwise|columnwise>
    return %q : !teq.proto<32x64xbf16, #teq.mxfp8_quantizer<f8E4M3FN>, rowwise|columnwise>
  }
  func.func @e30(%x: tensor<1024x256xbf16>) -> !teq.proto<1024x256xbf16, #teq.mxfp8_quantizer<f8E4M3FN, with_2d_quantization = true>, rowwise|columnwise, gemm_swizzled> {
    %q = teq.quantize %x : tensor<1024x256xbf16> -> !teq.proto<1024x256xbf16, #teq.mxfp8_quantizer<f8E4M3FN, with_2d_quantization = true>, rowwise|columnwise, gemm_swizzled>
    return %q : !teq.proto<1024x256xbf16, #teq.mxfp8_quantizer<f8E4M3FN, with_2d_quantization = true>, rowwise|columnwise, gemm_swizzled>
  }
  func.func @e31(%x: tensor<2x32x96xbf16>) -> !teq.proto<2x32x96xbf16, #teq.mxfp8_quantizer<f8E4M3FN>, rowwise|columnwise> {
    %q = teq.quantize %x : tensor<2x32x96xbf16> -> !teq.proto<2x32x96xbf16, #teq.mxfp8_quantizer<f8E4M3FN>, rowwise|columnwise>
    return %q : !teq.proto<2x32x96xbf16, #teq.mxfp8_quantizer<f8E4M3FN>, rowwise|columnwise>
  }
}
