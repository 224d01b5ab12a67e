// MXFP8 (te-semantics.md §5.4, §4.2) on TE's test shapes (test_cast_mxfp8.cu,
// test_mxfp8_2d_quantize.py): 1x32 / 32x1 blocks and 32x32 tiles, E4M3/E5M2,
// compact and GEMM-swizzled E8M0 scales, bf16 and f32 inputs, single usages.
// TE's C++ tests also take ragged shapes (993x512, 1x16); its quantizers, and
// so teq.quantize, need multiples of 32, so those are 992x512 and 32x64 here.
// Kernels use the software E8M0 conversion (Hopper has no cvt.rp.ue8m0).
module attributes {teq.target = #teq.target<sm_90>} {
  func.func @mxfp8_1d_e4m3_64x64(%x: tensor<64x64xbf16>) -> !teq.proto<64x64xbf16, #teq.mxfp8_quantizer<f8E4M3FN>, rowwise|columnwise> {
    %q = teq.quantize %x : tensor<64x64xbf16> -> !teq.proto<64x64xbf16, #teq.mxfp8_quantizer<f8E4M3FN>, rowwise|columnwise>
    return %q : !teq.proto<64x64xbf16, #teq.mxfp8_quantizer<f8E4M3FN>, rowwise|columnwise>
  }
  func.func @mxfp8_1d_e4m3_swz_64x64(%x: tensor<64x64xbf16>) -> !teq.proto<64x64xbf16, #teq.mxfp8_quantizer<f8E4M3FN>, rowwise|columnwise, gemm_swizzled> {
    %q = teq.quantize %x : tensor<64x64xbf16> -> !teq.proto<64x64xbf16, #teq.mxfp8_quantizer<f8E4M3FN>, rowwise|columnwise, gemm_swizzled>
    return %q : !teq.proto<64x64xbf16, #teq.mxfp8_quantizer<f8E4M3FN>, rowwise|columnwise, gemm_swizzled>
  }
  func.func @mxfp8_1d_e5m2_64x64(%x: tensor<64x64xbf16>) -> !teq.proto<64x64xbf16, #teq.mxfp8_quantizer<f8E5M2>, rowwise|columnwise> {
    %q = teq.quantize %x : tensor<64x64xbf16> -> !teq.proto<64x64xbf16, #teq.mxfp8_quantizer<f8E5M2>, rowwise|columnwise>
    return %q : !teq.proto<64x64xbf16, #teq.mxfp8_quantizer<f8E5M2>, rowwise|columnwise>
  }
  func.func @mxfp8_1d_e5m2_swz_64x64(%x: tensor<64x64xbf16>) -> !teq.proto<64x64xbf16, #teq.mxfp8_quantizer<f8E5M2>, rowwise|columnwise, gemm_swizzled> {
    %q = teq.quantize %x : tensor<64x64xbf16> -> !teq.proto<64x64xbf16, #teq.mxfp8_quantizer<f8E5M2>, rowwise|columnwise, gemm_swizzled>
    return %q : !teq.proto<64x64xbf16, #teq.mxfp8_quantizer<f8E5M2>, rowwise|columnwise, gemm_swizzled>
  }
  func.func @mxfp8_2d_e4m3_64x64(%x: tensor<64x64xbf16>) -> !teq.proto<64x64xbf16, #teq.mxfp8_quantizer<f8E4M3FN, with_2d_quantization = true>, rowwise|columnwise> {
    %q = teq.quantize %x : tensor<64x64xbf16> -> !teq.proto<64x64xbf16, #teq.mxfp8_quantizer<f8E4M3FN, with_2d_quantization = true>, rowwise|columnwise>
    return %q : !teq.proto<64x64xbf16, #teq.mxfp8_quantizer<f8E4M3FN, with_2d_quantization = true>, rowwise|columnwise>
  }
  func.func @mxfp8_2d_e4m3_swz_64x64(%x: tensor<64x64xbf16>) -> !teq.proto<64x64xbf16, #teq.mxfp8_quantizer<f8E4M3FN, with_2d_quantization = true>, rowwise|columnwise, gemm_swizzled> {
    %q = teq.quantize %x : tensor<64x64xbf16> -> !teq.proto<64x64xbf16, #teq.mxfp8_quantizer<f8E4M3FN, with_2d_quantization = true>, rowwise|columnwise, gemm_swizzled>
    return %q : !teq.proto<64x64xbf16, #teq.mxfp8_quantizer<f8E4M3FN, with_2d_quantization = true>, rowwise|columnwise, gemm_swizzled>
  }
  func.func @mxfp8_2d_e5m2_64x64(%x: tensor<64x64xbf16>) -> !teq.proto<64x64xbf16, #teq.mxfp8_quantizer<f8E5M2, with_2d_quantization = true>, rowwise|columnwise> {
    %q = teq.quantize %x : tensor<64x64xbf16> -> !teq.proto<64x64xbf16, #teq.mxfp8_quantizer<f8E5M2, with_2d_quantization = true>, rowwise|columnwise>
    return %q : !teq.proto<64x64xbf16, #teq.mxfp8_quantizer<f8E5M2, with_2d_quantization = true>, rowwise|columnwise>
  }
  func.func @mxfp8_2d_e5m2_swz_64x64(%x: tensor<64x64xbf16>) -> !teq.proto<64x64xbf16, #teq.mxfp8_quantizer<f8E5M2, with_2d_quantization = true>, rowwise|columnwise, gemm_swizzled> {
    %q = teq.quantize %x : tensor<64x64xbf16> -> !teq.proto<64x64xbf16, #teq.mxfp8_quantizer<f8E5M2, with_2d_quantization = true>, rowwise|columnwise, gemm_swizzled>
    return %q : !teq.proto<64x64xbf16, #teq.mxfp8_quantizer<f8E5M2, with_2d_quantization = true>, rowwise|columnwise, gemm_swizzled>
  }
  func.func @mxfp8_1d_e4m3_256x288(%x: tensor<256x288xbf16>) -> !teq.proto<256x288xbf16, #teq.mxfp8_quantizer<f8E4M3FN>, rowwise|columnwise> {
    %q = teq.quantize %x : tensor<256x288xbf16> -> !teq.proto<256x288xbf16, #teq.mxfp8_quantizer<f8E4M3FN>, rowwise|columnwise>
    return %q : !teq.proto<256x288xbf16, #teq.mxfp8_quantizer<f8E4M3FN>, rowwise|columnwise>
  }
  func.func @mxfp8_1d_e4m3_swz_256x288(%x: tensor<256x288xbf16>) -> !teq.proto<256x288xbf16, #teq.mxfp8_quantizer<f8E4M3FN>, rowwise|columnwise, gemm_swizzled> {
    %q = teq.quantize %x : tensor<256x288xbf16> -> !teq.proto<256x288xbf16, #teq.mxfp8_quantizer<f8E4M3FN>, rowwise|columnwise, gemm_swizzled>
    return %q : !teq.proto<256x288xbf16, #teq.mxfp8_quantizer<f8E4M3FN>, rowwise|columnwise, gemm_swizzled>
  }
  func.func @mxfp8_1d_e5m2_256x288(%x: tensor<256x288xbf16>) -> !teq.proto<256x288xbf16, #teq.mxfp8_quantizer<f8E5M2>, rowwise|columnwise> {
    %q = teq.quantize %x : tensor<256x288xbf16> -> !teq.proto<256x288xbf16, #teq.mxfp8_quantizer<f8E5M2>, rowwise|columnwise>
    return %q : !teq.proto<256x288xbf16, #teq.mxfp8_quantizer<f8E5M2>, rowwise|columnwise>
  }
  func.func @mxfp8_1d_e5m2_swz_256x288(%x: tensor<256x288xbf16>) -> !teq.proto<256x288xbf16, #teq.mxfp8_quantizer<f8E5M2>, rowwise|columnwise, gemm_swizzled> {
    %q = teq.quantize %x : tensor<256x288xbf16> -> !teq.proto<256x288xbf16, #teq.mxfp8_quantizer<f8E5M2>, rowwise|columnwise, gemm_swizzled>
    return %q : !teq.proto<256x288xbf16, #teq.mxfp8_quantizer<f8E5M2>, rowwise|columnwise, gemm_swizzled>
  }
  func.func @mxfp8_2d_e4m3_256x288(%x: tensor<256x288xbf16>) -> !teq.proto<256x288xbf16, #teq.mxfp8_quantizer<f8E4M3FN, with_2d_quantization = true>, rowwise|columnwise> {
    %q = teq.quantize %x : tensor<256x288xbf16> -> !teq.proto<256x288xbf16, #teq.mxfp8_quantizer<f8E4M3FN, with_2d_quantization = true>, rowwise|columnwise>
    return %q : !teq.proto<256x288xbf16, #teq.mxfp8_quantizer<f8E4M3FN, with_2d_quantization = true>, rowwise|columnwise>
  }
  func.func @mxfp8_2d_e4m3_swz_256x288(%x: tensor<256x288xbf16>) -> !teq.proto<256x288xbf16, #teq.mxfp8_quantizer<f8E4M3FN, with_2d_quantization = true>, rowwise|columnwise, gemm_swizzled> {
    %q = teq.quantize %x : tensor<256x288xbf16> -> !teq.proto<256x288xbf16, #teq.mxfp8_quantizer<f8E4M3FN, with_2d_quantization = true>, rowwise|columnwise, gemm_swizzled>
    return %q : !teq.proto<256x288xbf16, #teq.mxfp8_quantizer<f8E4M3FN, with_2d_quantization = true>, rowwise|columnwise, gemm_swizzled>
  }
  func.func @mxfp8_2d_e5m2_256x288(%x: tensor<256x288xbf16>) -> !teq.proto<256x288xbf16, #teq.mxfp8_quantizer<f8E5M2, with_2d_quantization = true>, rowwise|columnwise> {
    %q = teq.quantize %x : tensor<256x288xbf16> -> !teq.proto<256x288xbf16, #teq.mxfp8_quantizer<f8E5M2, with_2d_quantization = true>, rowwise|columnwise>
    return %q : !teq.proto<256x288xbf16, #teq.mxfp8_quantizer<f8E5M2, with_2d_quantization = true>, rowwise|columnwise>
  }
  func.func @mxfp8_2d_e5m2_swz_256x288(%x: tensor<256x288xbf16>) -> !teq.proto<256x288xbf16, #teq.mxfp8_quantizer<f8E5M2, with_2d_quantization = true>, rowwise|columnwise, gemm_swizzled> {
    %q = teq.quantize %x : tensor<256x288xbf16> -> !teq.proto<256x288xbf16, #teq.mxfp8_quantizer<f8E5M2, with_2d_quantization = true>, rowwise|columnwise, gemm_swizzled>
    return %q : !teq.proto<256x288xbf16, #teq.mxfp8_quantizer<f8E5M2, with_2d_quantization = true>, rowwise|columnwise, gemm_swizzled>
  }
  func.func @mxfp8_1d_e4m3_352x256(%x: tensor<352x256xbf16>) -> !teq.proto<352x256xbf16, #teq.mxfp8_quantizer<f8E4M3FN>, rowwise|columnwise> {
    %q = teq.quantize %x : tensor<352x256xbf16> -> !teq.proto<352x256xbf16, #teq.mxfp8_quantizer<f8E4M3FN>, rowwise|columnwise>
    return %q : !teq.proto<352x256xbf16, #teq.mxfp8_quantizer<f8E4M3FN>, rowwise|columnwise>
  }
  func.func @mxfp8_1d_e5m2_352x256(%x: tensor<352x256xbf16>) -> !teq.proto<352x256xbf16, #teq.mxfp8_quantizer<f8E5M2>, rowwise|columnwise> {
    %q = teq.quantize %x : tensor<352x256xbf16> -> !teq.proto<352x256xbf16, #teq.mxfp8_quantizer<f8E5M2>, rowwise|columnwise>
    return %q : !teq.proto<352x256xbf16, #teq.mxfp8_quantizer<f8E5M2>, rowwise|columnwise>
  }
  func.func @mxfp8_2d_e4m3_352x256(%x: tensor<352x256xbf16>) -> !teq.proto<352x256xbf16, #teq.mxfp8_quantizer<f8E4M3FN, with_2d_quantization = true>, rowwise|columnwise> {
    %q = teq.quantize %x : tensor<352x256xbf16> -> !teq.proto<352x256xbf16, #teq.mxfp8_quantizer<f8E4M3FN, with_2d_quantization = true>, rowwise|columnwise>
    return %q : !teq.proto<352x256xbf16, #teq.mxfp8_quantizer<f8E4M3FN, with_2d_quantization = true>, rowwise|columnwise>
  }
  func.func @mxfp8_2d_e5m2_352x256(%x: tensor<352x256xbf16>) -> !teq.proto<352x256xbf16, #teq.mxfp8_quantizer<f8E5M2, with_2d_quantization = true>, rowwise|columnwise> {
    %q = teq.quantize %x : tensor<352x256xbf16> -> !teq.proto<352x256xbf16, #teq.mxfp8_quantizer<f8E5M2, with_2d_quantization = true>, rowwise|columnwise>
    return %q : !teq.proto<352x256xbf16, #teq.mxfp8_quantizer<f8E5M2, with_2d_quantization = true>, rowwise|columnwise>
  }
  func.func @mxfp8_1d_e4m3_992x512(%x: tensor<992x512xbf16>) -> !teq.proto<992x512xbf16, #teq.mxfp8_quantizer<f8E4M3FN>, rowwise|columnwise> {
    %q = teq.quantize %x : tensor<992x512xbf16> -> !teq.proto<992x512xbf16, #teq.mxfp8_quantizer<f8E4M3FN>, rowwise|columnwise>
    return %q : !teq.proto<992x512xbf16, #teq.mxfp8_quantizer<f8E4M3FN>, rowwise|columnwise>
  }
  func.func @mxfp8_1d_e4m3_swz_992x512(%x: tensor<992x512xbf16>) -> !teq.proto<992x512xbf16, #teq.mxfp8_quantizer<f8E4M3FN>, rowwise|columnwise, gemm_swizzled> {
    %q = teq.quantize %x : tensor<992x512xbf16> -> !teq.proto<992x512xbf16, #teq.mxfp8_quantizer<f8E4M3FN>, rowwise|columnwise, gemm_swizzled>
    return %q : !teq.proto<992x512xbf16, #teq.mxfp8_quantizer<f8E4M3FN>, rowwise|columnwise, gemm_swizzled>
  }
  func.func @mxfp8_1d_e5m2_992x512(%x: tensor<992x512xbf16>) -> !teq.proto<992x512xbf16, #teq.mxfp8_quantizer<f8E5M2>, rowwise|columnwise> {
    %q = teq.quantize %x : tensor<992x512xbf16> -> !teq.proto<992x512xbf16, #teq.mxfp8_quantizer<f8E5M2>, rowwise|columnwise>
    return %q : !teq.proto<992x512xbf16, #teq.mxfp8_quantizer<f8E5M2>, rowwise|columnwise>
  }
  func.func @mxfp8_1d_e5m2_swz_992x512(%x: tensor<992x512xbf16>) -> !teq.proto<992x512xbf16, #teq.mxfp8_quantizer<f8E5M2>, rowwise|columnwise, gemm_swizzled> {
    %q = teq.quantize %x : tensor<992x512xbf16> -> !teq.proto<992x512xbf16, #teq.mxfp8_quantizer<f8E5M2>, rowwise|columnwise, gemm_swizzled>
    return %q : !teq.proto<992x512xbf16, #teq.mxfp8_quantizer<f8E5M2>, rowwise|columnwise, gemm_swizzled>
  }
  func.func @mxfp8_2d_e4m3_992x512(%x: tensor<992x512xbf16>) -> !teq.proto<992x512xbf16, #teq.mxfp8_quantizer<f8E4M3FN, with_2d_quantization = true>, rowwise|columnwise> {
    %q = teq.quantize %x : tensor<992x512xbf16> -> !teq.proto<992x512xbf16, #teq.mxfp8_quantizer<f8E4M3FN, with_2d_quantization = true>, rowwise|columnwise>
    return %q : !teq.proto<992x512xbf16, #teq.mxfp8_quantizer<f8E4M3FN, with_2d_quantization = true>, rowwise|columnwise>
  }
  func.func @mxfp8_2d_e4m3_swz_992x512(%x: tensor<992x512xbf16>) -> !teq.proto<992x512xbf16, #teq.mxfp8_quantizer<f8E4M3FN, with_2d_quantization = true>, rowwise|columnwise, gemm_swizzled> {
    %q = teq.quantize %x : tensor<992x512xbf16> -> !teq.proto<992x512xbf16, #teq.mxfp8_quantizer<f8E4M3FN, with_2d_quantization = true>, rowwise|columnwise, gemm_swizzled>
    return %q : !teq.proto<992x512xbf16, #teq.mxfp8_quantizer<f8E4M3FN, with_2d_quantization = true>, rowwise|columnwise, gemm_swizzled>
  }
  func.func @mxfp8_2d_e5m2_992x512(%x: tensor<992x512xbf16>) -> !teq.proto<992x512xbf16, #teq.mxfp8_quantizer<f8E5M2, with_2d_quantization = true>, rowwise|columnwise> {
    %q = teq.quantize %x : tensor<992x512xbf16> -> !teq.proto<992x512xbf16, #teq.mxfp8_quantizer<f8E5M2, with_2d_quantization = true>, rowwise|columnwise>
    return %q : !teq.proto<992x512xbf16, #teq.mxfp8_quantizer<f8E5M2, with_2d_quantization = true>, rowwise|columnwise>
  }
  func.func @mxfp8_2d_e5m2_swz_992x512(%x: tensor<992x512xbf16>) -> !teq.proto<992x512xbf16, #teq.mxfp8_quantizer<f8E5M2, with_2d_quantization = true>, rowwise|columnwise, gemm_swizzled> {
    %q = teq.quantize %x : tensor<992x512xbf16> -> !teq.proto<992x512xbf16, #teq.mxfp8_quantizer<f8E5M2, with_2d_quantization = true>, rowwise|columnwise, gemm_swizzled>
    return %q : !teq.proto<992x512xbf16, #teq.mxfp8_quantizer<f8E5M2, with_2d_quantization = true>, rowwise|columnwise, gemm_swizzled>
  }
  func.func @mxfp8_1d_e4m3_320x256(%x: tensor<320x256xbf16>) -> !teq.proto<320x256xbf16, #teq.mxfp8_quantizer<f8E4M3FN>, rowwise|columnwise> {
    %q = teq.quantize %x : tensor<320x256xbf16> -> !teq.proto<320x256xbf16, #teq.mxfp8_quantizer<f8E4M3FN>, rowwise|columnwise>
    return %q : !teq.proto<320x256xbf16, #teq.mxfp8_quantizer<f8E4M3FN>, rowwise|columnwise>
  }
  func.func @mxfp8_1d_e5m2_320x256(%x: tensor<320x256xbf16>) -> !teq.proto<320x256xbf16, #teq.mxfp8_quantizer<f8E5M2>, rowwise|columnwise> {
    %q = teq.quantize %x : tensor<320x256xbf16> -> !teq.proto<320x256xbf16, #teq.mxfp8_quantizer<f8E5M2>, rowwise|columnwise>
    return %q : !teq.proto<320x256xbf16, #teq.mxfp8_quantizer<f8E5M2>, rowwise|columnwise>
  }
  func.func @mxfp8_2d_e4m3_320x256(%x: tensor<320x256xbf16>) -> !teq.proto<320x256xbf16, #teq.mxfp8_quantizer<f8E4M3FN, with_2d_quantization = true>, rowwise|columnwise> {
    %q = teq.quantize %x : tensor<320x256xbf16> -> !teq.proto<320x256xbf16, #teq.mxfp8_quantizer<f8E4M3FN, with_2d_quantization = true>, rowwise|columnwise>
    return %q : !teq.proto<320x256xbf16, #teq.mxfp8_quantizer<f8E4M3FN, with_2d_quantization = true>, rowwise|columnwise>
  }
  func.func @mxfp8_2d_e5m2_320x256(%x: tensor<320x256xbf16>) -> !teq.proto<320x256xbf16, #teq.mxfp8_quantizer<f8E5M2, with_2d_quantization = true>, rowwise|columnwise> {
    %q = teq.quantize %x : tensor<320x256xbf16> -> !teq.proto<320x256xbf16, #teq.mxfp8_quantizer<f8E5M2, with_2d_quantization = true>, rowwise|columnwise>
    return %q : !teq.proto<320x256xbf16, #teq.mxfp8_quantizer<f8E5M2, with_2d_quantization = true>, rowwise|columnwise>
  }
  func.func @mxfp8_1d_e4m3_32x64(%x: tensor<32x64xbf16>) -> !teq.proto<32x64xbf16, #teq.mxfp8_quantizer<f8E4M3FN>, rowwise|columnwise> {
    %q = teq.quantize %x : tensor<32x64xbf16> -> !teq.proto<32x64xbf16, #teq.mxfp8_quantizer<f8E4M3FN>, rowwise|columnwise>
    return %q : !teq.proto<32x64xbf16, #teq.mxfp8_quantizer<f8E4M3FN>, rowwise|columnwise>
  }
  func.func @mxfp8_1d_e5m2_32x64(%x: tensor<32x64xbf16>) -> !teq.proto<32x64xbf16, #teq.mxfp8_quantizer<f8E5M2>, rowwise|columnwise> {
    %q = teq.quantize %x : tensor<32x64xbf16> -> !teq.proto<32x64xbf16, #teq.mxfp8_quantizer<f8E5M2>, rowwise|columnwise>
    return %q : !teq.proto<32x64xbf16, #teq.mxfp8_quantizer<f8E5M2>, rowwise|columnwise>
  }
  func.func @mxfp8_2d_e4m3_32x64(%x: tensor<32x64xbf16>) -> !teq.proto<32x64xbf16, #teq.mxfp8_quantizer<f8E4M3FN, with_2d_quantization = true>, rowwise|columnwise> {
    %q = teq.quantize %x : tensor<32x64xbf16> -> !teq.proto<32x64xbf16, #teq.mxfp8_quantizer<f8E4M3FN, with_2d_quantization = true>, rowwise|columnwise>
    return %q : !teq.proto<32x64xbf16, #teq.mxfp8_quantizer<f8E4M3FN, with_2d_quantization = true>, rowwise|columnwise>
  }
  func.func @mxfp8_2d_e5m2_32x64(%x: tensor<32x64xbf16>) -> !teq.proto<32x64xbf16, #teq.mxfp8_quantizer<f8E5M2, with_2d_quantization = true>, rowwise|columnwise> {
    %q = teq.quantize %x : tensor<32x64xbf16> -> !teq.proto<32x64xbf16, #teq.mxfp8_quantizer<f8E5M2, with_2d_quantization = true>, rowwise|columnwise>
    return %q : !teq.proto<32x64xbf16, #teq.mxfp8_quantizer<f8E5M2, with_2d_quantization = true>, rowwise|columnwise>
  }
  func.func @mxfp8_1d_e4m3_128x128(%x: tensor<128x128xbf16>) -> !teq.proto<128x128xbf16, #teq.mxfp8_quantizer<f8E4M3FN>, rowwise|columnwise> {
    %q = teq.quantize %x : tensor<128x128xbf16> -> !teq.proto<128x128xbf16, #teq.mxfp8_quantizer<f8E4M3FN>, rowwise|columnwise>
    return %q : !teq.proto<128x128xbf16, #teq.mxfp8_quantizer<f8E4M3FN>, rowwise|columnwise>
  }
  func.func @mxfp8_1d_e5m2_128x128(%x: tensor<128x128xbf16>) -> !teq.proto<128x128xbf16, #teq.mxfp8_quantizer<f8E5M2>, rowwise|columnwise> {
    %q = teq.quantize %x : tensor<128x128xbf16> -> !teq.proto<128x128xbf16, #teq.mxfp8_quantizer<f8E5M2>, rowwise|columnwise>
    return %q : !teq.proto<128x128xbf16, #teq.mxfp8_quantizer<f8E5M2>, rowwise|columnwise>
  }
  func.func @mxfp8_2d_e4m3_128x128(%x: tensor<128x128xbf16>) -> !teq.proto<128x128xbf16, #teq.mxfp8_quantizer<f8E4M3FN, with_2d_quantization = true>, rowwise|columnwise> {
    %q = teq.quantize %x : tensor<128x128xbf16> -> !teq.proto<128x128xbf16, #teq.mxfp8_quantizer<f8E4M3FN, with_2d_quantization = true>, rowwise|columnwise>
    return %q : !teq.proto<128x128xbf16, #teq.mxfp8_quantizer<f8E4M3FN, with_2d_quantization = true>, rowwise|columnwise>
  }
  func.func @mxfp8_2d_e5m2_128x128(%x: tensor<128x128xbf16>) -> !teq.proto<128x128xbf16, #teq.mxfp8_quantizer<f8E5M2, with_2d_quantization = true>, rowwise|columnwise> {
    %q = teq.quantize %x : tensor<128x128xbf16> -> !teq.proto<128x128xbf16, #teq.mxfp8_quantizer<f8E5M2, with_2d_quantization = true>, rowwise|columnwise>
    return %q : !teq.proto<128x128xbf16, #teq.mxfp8_quantizer<f8E5M2, with_2d_quantization = true>, rowwise|columnwise>
  }
  func.func @mxfp8_1d_e4m3_1024x256(%x: tensor<1024x256xbf16>) -> !teq.proto<1024x256xbf16, #teq.mxfp8_quantizer<f8E4M3FN>, rowwise|columnwise> {
    %q = teq.quantize %x : tensor<1024x256xbf16> -> !teq.proto<1024x256xbf16, #teq.mxfp8_quantizer<f8E4M3FN>, rowwise|columnwise>
    return %q : !teq.proto<1024x256xbf16, #teq.mxfp8_quantizer<f8E4M3FN>, rowwise|columnwise>
  }
  func.func @mxfp8_1d_e5m2_1024x256(%x: tensor<1024x256xbf16>) -> !teq.proto<1024x256xbf16, #teq.mxfp8_quantizer<f8E5M2>, rowwise|columnwise> {
    %q = teq.quantize %x : tensor<1024x256xbf16> -> !teq.proto<1024x256xbf16, #teq.mxfp8_quantizer<f8E5M2>, rowwise|columnwise>
    return %q : !teq.proto<1024x256xbf16, #teq.mxfp8_quantizer<f8E5M2>, rowwise|columnwise>
  }
  func.func @mxfp8_2d_e4m3_1024x256(%x: tensor<1024x256xbf16>) -> !teq.proto<1024x256xbf16, #teq.mxfp8_quantizer<f8E4M3FN, with_2d_quantization = true>, rowwise|columnwise> {
    %q = teq.quantize %x : tensor<1024x256xbf16> -> !teq.proto<1024x256xbf16, #teq.mxfp8_quantizer<f8E4M3FN, with_2d_quantization = true>, rowwise|columnwise>
    return %q : !teq.proto<1024x256xbf16, #teq.mxfp8_quantizer<f8E4M3FN, with_2d_quantization = true>, rowwise|columnwise>
  }
  func.func @mxfp8_2d_e5m2_1024x256(%x: tensor<1024x256xbf16>) -> !teq.proto<1024x256xbf16, #teq.mxfp8_quantizer<f8E5M2, with_2d_quantization = true>, rowwise|columnwise> {
    %q = teq.quantize %x : tensor<1024x256xbf16> -> !teq.proto<1024x256xbf16, #teq.mxfp8_quantizer<f8E5M2, with_2d_quantization = true>, rowwise|columnwise>
    return %q : !teq.proto<1024x256xbf16, #teq.mxfp8_quantizer<f8E5M2, with_2d_quantization = true>, rowwise|columnwise>
  }
  func.func @mxfp8_1d_e4m3_320x320(%x: tensor<320x320xbf16>) -> !teq.proto<320x320xbf16, #teq.mxfp8_quantizer<f8E4M3FN>, rowwise|columnwise> {
    %q = teq.quantize %x : tensor<320x320xbf16> -> !teq.proto<320x320xbf16, #teq.mxfp8_quantizer<f8E4M3FN>, rowwise|columnwise>
    return %q : !teq.proto<320x320xbf16, #teq.mxfp8_quantizer<f8E4M3FN>, rowwise|columnwise>
  }
  func.func @mxfp8_1d_e5m2_320x320(%x: tensor<320x320xbf16>) -> !teq.proto<320x320xbf16, #teq.mxfp8_quantizer<f8E5M2>, rowwise|columnwise> {
    %q = teq.quantize %x : tensor<320x320xbf16> -> !teq.proto<320x320xbf16, #teq.mxfp8_quantizer<f8E5M2>, rowwise|columnwise>
    return %q : !teq.proto<320x320xbf16, #teq.mxfp8_quantizer<f8E5M2>, rowwise|columnwise>
  }
  func.func @mxfp8_2d_e4m3_320x320(%x: tensor<320x320xbf16>) -> !teq.proto<320x320xbf16, #teq.mxfp8_quantizer<f8E4M3FN, with_2d_quantization = true>, rowwise|columnwise> {
    %q = teq.quantize %x : tensor<320x320xbf16> -> !teq.proto<320x320xbf16, #teq.mxfp8_quantizer<f8E4M3FN, with_2d_quantization = true>, rowwise|columnwise>
    return %q : !teq.proto<320x320xbf16, #teq.mxfp8_quantizer<f8E4M3FN, with_2d_quantization = true>, rowwise|columnwise>
  }
  func.func @mxfp8_2d_e5m2_320x320(%x: tensor<320x320xbf16>) -> !teq.proto<320x320xbf16, #teq.mxfp8_quantizer<f8E5M2, with_2d_quantization = true>, rowwise|columnwise> {
    %q = teq.quantize %x : tensor<320x320xbf16> -> !teq.proto<320x320xbf16, #teq.mxfp8_quantizer<f8E5M2, with_2d_quantization = true>, rowwise|columnwise>
    return %q : !teq.proto<320x320xbf16, #teq.mxfp8_quantizer<f8E5M2, with_2d_quantization = true>, rowwise|columnwise>
  }
  func.func @mxfp8_1d_e4m3_8192x7168(%x: tensor<8192x7168xbf16>) -> !teq.proto<8192x7168xbf16, #teq.mxfp8_quantizer<f8E4M3FN>, rowwise|columnwise> {
    %q = teq.quantize %x : tensor<8192x7168xbf16> -> !teq.proto<8192x7168xbf16, #teq.mxfp8_quantizer<f8E4M3FN>, rowwise|columnwise>
    return %q : !teq.proto<8192x7168xbf16, #teq.mxfp8_quantizer<f8E4M3FN>, rowwise|columnwise>
  }
  func.func @mxfp8_2d_e4m3_8192x7168(%x: tensor<8192x7168xbf16>) -> !teq.proto<8192x7168xbf16, #teq.mxfp8_quantizer<f8E4M3FN, with_2d_quantization = true>, rowwise|columnwise> {
    %q = teq.quantize %x : tensor<8192x7168xbf16> -> !teq.proto<8192x7168xbf16, #teq.mxfp8_quantizer<f8E4M3FN, with_2d_quantization = true>, rowwise|columnwise>
    return %q : !teq.proto<8192x7168xbf16, #teq.mxfp8_quantizer<f8E4M3FN, with_2d_quantization = true>, rowwise|columnwise>
  }
  func.func @mxfp8_f32in_256x288(%x: tensor<256x288xf32>) -> !teq.proto<256x288xf32, #teq.mxfp8_quantizer<f8E4M3FN>, rowwise|columnwise> {
    %q = teq.quantize %x : tensor<256x288xf32> -> !teq.proto<256x288xf32, #teq.mxfp8_quantizer<f8E4M3FN>, rowwise|columnwise>
    return %q : !teq.proto<256x288xf32, #teq.mxfp8_quantizer<f8E4M3FN>, rowwise|columnwise>
  }
  func.func @mxfp8_rowwise_256x288(%x: tensor<256x288xbf16>) -> !teq.proto<256x288xbf16, #teq.mxfp8_quantizer<f8E4M3FN>, rowwise, gemm_swizzled> {
    %q = teq.quantize %x : tensor<256x288xbf16> -> !teq.proto<256x288xbf16, #teq.mxfp8_quantizer<f8E4M3FN>, rowwise, gemm_swizzled>
    return %q : !teq.proto<256x288xbf16, #teq.mxfp8_quantizer<f8E4M3FN>, rowwise, gemm_swizzled>
  }
  func.func @mxfp8_columnwise_256x288(%x: tensor<256x288xbf16>) -> !teq.proto<256x288xbf16, #teq.mxfp8_quantizer<f8E4M3FN>, columnwise, gemm_swizzled> {
    %q = teq.quantize %x : tensor<256x288xbf16> -> !teq.proto<256x288xbf16, #teq.mxfp8_quantizer<f8E4M3FN>, columnwise, gemm_swizzled>
    return %q : !teq.proto<256x288xbf16, #teq.mxfp8_quantizer<f8E4M3FN>, columnwise, gemm_swizzled>
  }
  func.func @mxfp8_f32in_992x512(%x: tensor<992x512xf32>) -> !teq.proto<992x512xf32, #teq.mxfp8_quantizer<f8E4M3FN>, rowwise|columnwise> {
    %q = teq.quantize %x : tensor<992x512xf32> -> !teq.proto<992x512xf32, #teq.mxfp8_quantizer<f8E4M3FN>, rowwise|columnwise>
    return %q : !teq.proto<992x512xf32, #teq.mxfp8_quantizer<f8E4M3FN>, rowwise|columnwise>
  }
  func.func @mxfp8_rowwise_992x512(%x: tensor<992x512xbf16>) -> !teq.proto<992x512xbf16, #teq.mxfp8_quantizer<f8E4M3FN>, rowwise, gemm_swizzled> {
    %q = teq.quantize %x : tensor<992x512xbf16> -> !teq.proto<992x512xbf16, #teq.mxfp8_quantizer<f8E4M3FN>, rowwise, gemm_swizzled>
    return %q : !teq.proto<992x512xbf16, #teq.mxfp8_quantizer<f8E4M3FN>, rowwise, gemm_swizzled>
  }
  func.func @mxfp8_columnwise_992x512(%x: tensor<992x512xbf16>) -> !teq.proto<992x512xbf16, #teq.mxfp8_quantizer<f8E4M3FN>, columnwise, gemm_swizzled> {
    %q = teq.quantize %x : tensor<992x512xbf16> -> !teq.proto<992x512xbf16, #teq.mxfp8_quantizer<f8E4M3FN>, columnwise, gemm_swizzled>
    return %q : !teq.proto<992x512xbf16, #teq.mxfp8_quantizer<f8E4M3FN>, columnwise, gemm_swizzled>
  }
}
