// teq.swizzle_scales (te-semantics.md §4.2): compact MXFP8 / NVFP4 scales
// moved into cuBLAS's 128x4 tiles on the GPU, padding included. te-run
// --check compares every buffer with the reference's swizzle of the
// reference quantization, bit for bit. Shapes leave padding in both scale
// dimensions; the *_view entries keep the swizzled value a temporary (its
// data buffers are the quantization's, not copies) and return a usage view.
module attributes {teq.target = #teq.target<sm_90>} {
  func.func @mxfp8_320x288(%x: tensor<320x288xbf16>) -> !teq.proto<320x288xbf16, #teq.mxfp8_quantizer<f8E4M3FN>, rowwise|columnwise, gemm_swizzled> {
    %q = teq.quantize %x : tensor<320x288xbf16> -> !teq.proto<320x288xbf16, #teq.mxfp8_quantizer<f8E4M3FN>, rowwise|columnwise>
    %s = teq.swizzle_scales %q : !teq.proto<320x288xbf16, #teq.mxfp8_quantizer<f8E4M3FN>, rowwise|columnwise> -> !teq.proto<320x288xbf16, #teq.mxfp8_quantizer<f8E4M3FN>, rowwise|columnwise, gemm_swizzled>
    return %s : !teq.proto<320x288xbf16, #teq.mxfp8_quantizer<f8E4M3FN>, rowwise|columnwise, gemm_swizzled>
  }
  func.func @mxfp8_2d_e5m2_96x416(%x: tensor<96x416xbf16>) -> !teq.proto<96x416xbf16, #teq.mxfp8_quantizer<f8E5M2, with_2d_quantization = true>, rowwise|columnwise, gemm_swizzled> {
    %q = teq.quantize %x : tensor<96x416xbf16> -> !teq.proto<96x416xbf16, #teq.mxfp8_quantizer<f8E5M2, with_2d_quantization = true>, rowwise|columnwise>
    %s = teq.swizzle_scales %q : !teq.proto<96x416xbf16, #teq.mxfp8_quantizer<f8E5M2, with_2d_quantization = true>, rowwise|columnwise> -> !teq.proto<96x416xbf16, #teq.mxfp8_quantizer<f8E5M2, with_2d_quantization = true>, rowwise|columnwise, gemm_swizzled>
    return %s : !teq.proto<96x416xbf16, #teq.mxfp8_quantizer<f8E5M2, with_2d_quantization = true>, rowwise|columnwise, gemm_swizzled>
  }
  func.func @mxfp8_3d_2x160x256(%x: tensor<2x160x256xbf16>) -> !teq.proto<2x160x256xbf16, #teq.mxfp8_quantizer<f8E4M3FN>, rowwise|columnwise, gemm_swizzled> {
    %q = teq.quantize %x : tensor<2x160x256xbf16> -> !teq.proto<2x160x256xbf16, #teq.mxfp8_quantizer<f8E4M3FN>, rowwise|columnwise>
    %s = teq.swizzle_scales %q : !teq.proto<2x160x256xbf16, #teq.mxfp8_quantizer<f8E4M3FN>, rowwise|columnwise> -> !teq.proto<2x160x256xbf16, #teq.mxfp8_quantizer<f8E4M3FN>, rowwise|columnwise, gemm_swizzled>
    return %s : !teq.proto<2x160x256xbf16, #teq.mxfp8_quantizer<f8E4M3FN>, rowwise|columnwise, gemm_swizzled>
  }
  func.func @nvfp4_272x208(%x: tensor<272x208xbf16>) -> !teq.proto<272x208xbf16, #teq.nvfp4_quantizer<f4E2M1FN>, rowwise|columnwise, gemm_swizzled> {
    %q = teq.quantize %x : tensor<272x208xbf16> -> !teq.proto<272x208xbf16, #teq.nvfp4_quantizer<f4E2M1FN>, rowwise|columnwise>
    %s = teq.swizzle_scales %q : !teq.proto<272x208xbf16, #teq.nvfp4_quantizer<f4E2M1FN>, rowwise|columnwise> -> !teq.proto<272x208xbf16, #teq.nvfp4_quantizer<f4E2M1FN>, rowwise|columnwise, gemm_swizzled>
    return %s : !teq.proto<272x208xbf16, #teq.nvfp4_quantizer<f4E2M1FN>, rowwise|columnwise, gemm_swizzled>
  }
  func.func @nvfp4_2d_144x512(%x: tensor<144x512xbf16>) -> !teq.proto<144x512xbf16, #teq.nvfp4_quantizer<f4E2M1FN, with_2d_quantization = true>, rowwise|columnwise, gemm_swizzled> {
    %q = teq.quantize %x : tensor<144x512xbf16> -> !teq.proto<144x512xbf16, #teq.nvfp4_quantizer<f4E2M1FN, with_2d_quantization = true>, rowwise|columnwise>
    %s = teq.swizzle_scales %q : !teq.proto<144x512xbf16, #teq.nvfp4_quantizer<f4E2M1FN, with_2d_quantization = true>, rowwise|columnwise> -> !teq.proto<144x512xbf16, #teq.nvfp4_quantizer<f4E2M1FN, with_2d_quantization = true>, rowwise|columnwise, gemm_swizzled>
    return %s : !teq.proto<144x512xbf16, #teq.nvfp4_quantizer<f4E2M1FN, with_2d_quantization = true>, rowwise|columnwise, gemm_swizzled>
  }
  func.func @mxfp8_320x288_view(%x: tensor<320x288xbf16>) -> !teq.proto<320x288xbf16, #teq.mxfp8_quantizer<f8E4M3FN>, columnwise, gemm_swizzled> {
    %q = teq.quantize %x : tensor<320x288xbf16> -> !teq.proto<320x288xbf16, #teq.mxfp8_quantizer<f8E4M3FN>, rowwise|columnwise>
    %s = teq.swizzle_scales %q : !teq.proto<320x288xbf16, #teq.mxfp8_quantizer<f8E4M3FN>, rowwise|columnwise> -> !teq.proto<320x288xbf16, #teq.mxfp8_quantizer<f8E4M3FN>, rowwise|columnwise, gemm_swizzled>
    %r = teq.update_usage %s : !teq.proto<320x288xbf16, #teq.mxfp8_quantizer<f8E4M3FN>, rowwise|columnwise, gemm_swizzled> -> !teq.proto<320x288xbf16, #teq.mxfp8_quantizer<f8E4M3FN>, columnwise, gemm_swizzled>
    return %r : !teq.proto<320x288xbf16, #teq.mxfp8_quantizer<f8E4M3FN>, columnwise, gemm_swizzled>
  }
  func.func @nvfp4_272x208_view(%x: tensor<272x208xbf16>) -> !teq.proto<272x208xbf16, #teq.nvfp4_quantizer<f4E2M1FN>, columnwise, gemm_swizzled> {
    %q = teq.quantize %x : tensor<272x208xbf16> -> !teq.proto<272x208xbf16, #teq.nvfp4_quantizer<f4E2M1FN>, rowwise|columnwise>
    %s = teq.swizzle_scales %q : !teq.proto<272x208xbf16, #teq.nvfp4_quantizer<f4E2M1FN>, rowwise|columnwise> -> !teq.proto<272x208xbf16, #teq.nvfp4_quantizer<f4E2M1FN>, rowwise|columnwise, gemm_swizzled>
    %r = teq.update_usage %s : !teq.proto<272x208xbf16, #teq.nvfp4_quantizer<f4E2M1FN>, rowwise|columnwise, gemm_swizzled> -> !teq.proto<272x208xbf16, #teq.nvfp4_quantizer<f4E2M1FN>, columnwise, gemm_swizzled>
    return %r : !teq.proto<272x208xbf16, #teq.nvfp4_quantizer<f4E2M1FN>, columnwise, gemm_swizzled>
  }
}
