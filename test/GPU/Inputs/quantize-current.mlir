// Per-tensor FP8 current scaling (te-semantics.md §5.1) on TE's test shapes
// (test_cast_current_scaling.cu and test_float8_current_scaling_exact.py),
// E4M3 and E5M2, bf16 input, rowwise + columnwise (the transposed copy on
// Hopper). scripts/gpu-prepare compiles it with te-compile --target=sm_90;
// test/GPU/quantize-current.test runs every entry with te-run --check.
module attributes {teq.target = #teq.target<sm_90>} {
  func.func @current_e4m3_128x256(%x: tensor<128x256xbf16>) -> !teq.proto<128x256xbf16, #teq.float8_current_scaling_quantizer<f8E4M3FN>, rowwise|columnwise> {
    %q = teq.quantize %x : tensor<128x256xbf16> -> !teq.proto<128x256xbf16, #teq.float8_current_scaling_quantizer<f8E4M3FN>, rowwise|columnwise>
    return %q : !teq.proto<128x256xbf16, #teq.float8_current_scaling_quantizer<f8E4M3FN>, rowwise|columnwise>
  }
  func.func @current_e5m2_128x256(%x: tensor<128x256xbf16>) -> !teq.proto<128x256xbf16, #teq.float8_current_scaling_quantizer<f8E5M2>, rowwise|columnwise> {
    %q = teq.quantize %x : tensor<128x256xbf16> -> !teq.proto<128x256xbf16, #teq.float8_current_scaling_quantizer<f8E5M2>, rowwise|columnwise>
    return %q : !teq.proto<128x256xbf16, #teq.float8_current_scaling_quantizer<f8E5M2>, rowwise|columnwise>
  }
  func.func @current_e4m3_16(%x: tensor<16xbf16>) -> !teq.proto<16xbf16, #teq.float8_current_scaling_quantizer<f8E4M3FN>, rowwise|columnwise> {
    %q = teq.quantize %x : tensor<16xbf16> -> !teq.proto<16xbf16, #teq.float8_current_scaling_quantizer<f8E4M3FN>, rowwise|columnwise>
    return %q : !teq.proto<16xbf16, #teq.float8_current_scaling_quantizer<f8E4M3FN>, rowwise|columnwise>
  }
  func.func @current_e5m2_16(%x: tensor<16xbf16>) -> !teq.proto<16xbf16, #teq.float8_current_scaling_quantizer<f8E5M2>, rowwise|columnwise> {
    %q = teq.quantize %x : tensor<16xbf16> -> !teq.proto<16xbf16, #teq.float8_current_scaling_quantizer<f8E5M2>, rowwise|columnwise>
    return %q : !teq.proto<16xbf16, #teq.float8_current_scaling_quantizer<f8E5M2>, rowwise|columnwise>
  }
  func.func @current_e4m3_16000(%x: tensor<16000xbf16>) -> !teq.proto<16000xbf16, #teq.float8_current_scaling_quantizer<f8E4M3FN>, rowwise|columnwise> {
    %q = teq.quantize %x : tensor<16000xbf16> -> !teq.proto<16000xbf16, #teq.float8_current_scaling_quantizer<f8E4M3FN>, rowwise|columnwise>
    return %q : !teq.proto<16000xbf16, #teq.float8_current_scaling_quantizer<f8E4M3FN>, rowwise|columnwise>
  }
  func.func @current_e5m2_16000(%x: tensor<16000xbf16>) -> !teq.proto<16000xbf16, #teq.float8_current_scaling_quantizer<f8E5M2>, rowwise|columnwise> {
    %q = teq.quantize %x : tensor<16000xbf16> -> !teq.proto<16000xbf16, #teq.float8_current_scaling_quantizer<f8E5M2>, rowwise|columnwise>
    return %q : !teq.proto<16000xbf16, #teq.float8_current_scaling_quantizer<f8E5M2>, rowwise|columnwise>
  }
  func.func @current_e4m3_1x16(%x: tensor<1x16xbf16>) -> !teq.proto<1x16xbf16, #teq.float8_current_scaling_quantizer<f8E4M3FN>, rowwise|columnwise> {
    %q = teq.quantize %x : tensor<1x16xbf16> -> !teq.proto<1x16xbf16, #teq.float8_current_scaling_quantizer<f8E4M3FN>, rowwise|columnwise>
    return %q : !teq.proto<1x16xbf16, #teq.float8_current_scaling_quantizer<f8E4M3FN>, rowwise|columnwise>
  }
  func.func @current_e5m2_1x16(%x: tensor<1x16xbf16>) -> !teq.proto<1x16xbf16, #teq.float8_current_scaling_quantizer<f8E5M2>, rowwise|columnwise> {
    %q = teq.quantize %x : tensor<1x16xbf16> -> !teq.proto<1x16xbf16, #teq.float8_current_scaling_quantizer<f8E5M2>, rowwise|columnwise>
    return %q : !teq.proto<1x16xbf16, #teq.float8_current_scaling_quantizer<f8E5M2>, rowwise|columnwise>
  }
  func.func @current_e4m3_5x160(%x: tensor<5x160xbf16>) -> !teq.proto<5x160xbf16, #teq.float8_current_scaling_quantizer<f8E4M3FN>, rowwise|columnwise> {
    %q = teq.quantize %x : tensor<5x160xbf16> -> !teq.proto<5x160xbf16, #teq.float8_current_scaling_quantizer<f8E4M3FN>, rowwise|columnwise>
    return %q : !teq.proto<5x160xbf16, #teq.float8_current_scaling_quantizer<f8E4M3FN>, rowwise|columnwise>
  }
  func.func @current_e5m2_5x160(%x: tensor<5x160xbf16>) -> !teq.proto<5x160xbf16, #teq.float8_current_scaling_quantizer<f8E5M2>, rowwise|columnwise> {
    %q = teq.quantize %x : tensor<5x160xbf16> -> !teq.proto<5x160xbf16, #teq.float8_current_scaling_quantizer<f8E5M2>, rowwise|columnwise>
    return %q : !teq.proto<5x160xbf16, #teq.float8_current_scaling_quantizer<f8E5M2>, rowwise|columnwise>
  }
  func.func @current_e4m3_217x256(%x: tensor<217x256xbf16>) -> !teq.proto<217x256xbf16, #teq.float8_current_scaling_quantizer<f8E4M3FN>, rowwise|columnwise> {
    %q = teq.quantize %x : tensor<217x256xbf16> -> !teq.proto<217x256xbf16, #teq.float8_current_scaling_quantizer<f8E4M3FN>, rowwise|columnwise>
    return %q : !teq.proto<217x256xbf16, #teq.float8_current_scaling_quantizer<f8E4M3FN>, rowwise|columnwise>
  }
  func.func @current_e5m2_217x256(%x: tensor<217x256xbf16>) -> !teq.proto<217x256xbf16, #teq.float8_current_scaling_quantizer<f8E5M2>, rowwise|columnwise> {
    %q = teq.quantize %x : tensor<217x256xbf16> -> !teq.proto<217x256xbf16, #teq.float8_current_scaling_quantizer<f8E5M2>, rowwise|columnwise>
    return %q : !teq.proto<217x256xbf16, #teq.float8_current_scaling_quantizer<f8E5M2>, rowwise|columnwise>
  }
  func.func @current_e4m3_2333x1(%x: tensor<2333x1xbf16>) -> !teq.proto<2333x1xbf16, #teq.float8_current_scaling_quantizer<f8E4M3FN>, rowwise|columnwise> {
    %q = teq.quantize %x : tensor<2333x1xbf16> -> !teq.proto<2333x1xbf16, #teq.float8_current_scaling_quantizer<f8E4M3FN>, rowwise|columnwise>
    return %q : !teq.proto<2333x1xbf16, #teq.float8_current_scaling_quantizer<f8E4M3FN>, rowwise|columnwise>
  }
  func.func @current_e5m2_2333x1(%x: tensor<2333x1xbf16>) -> !teq.proto<2333x1xbf16, #teq.float8_current_scaling_quantizer<f8E5M2>, rowwise|columnwise> {
    %q = teq.quantize %x : tensor<2333x1xbf16> -> !teq.proto<2333x1xbf16, #teq.float8_current_scaling_quantizer<f8E5M2>, rowwise|columnwise>
    return %q : !teq.proto<2333x1xbf16, #teq.float8_current_scaling_quantizer<f8E5M2>, rowwise|columnwise>
  }
  func.func @current_e4m3_1481x677(%x: tensor<1481x677xbf16>) -> !teq.proto<1481x677xbf16, #teq.float8_current_scaling_quantizer<f8E4M3FN>, rowwise|columnwise> {
    %q = teq.quantize %x : tensor<1481x677xbf16> -> !teq.proto<1481x677xbf16, #teq.float8_current_scaling_quantizer<f8E4M3FN>, rowwise|columnwise>
    return %q : !teq.proto<1481x677xbf16, #teq.float8_current_scaling_quantizer<f8E4M3FN>, rowwise|columnwise>
  }
  func.func @current_e5m2_1481x677(%x: tensor<1481x677xbf16>) -> !teq.proto<1481x677xbf16, #teq.float8_current_scaling_quantizer<f8E5M2>, rowwise|columnwise> {
    %q = teq.quantize %x : tensor<1481x677xbf16> -> !teq.proto<1481x677xbf16, #teq.float8_current_scaling_quantizer<f8E5M2>, rowwise|columnwise>
    return %q : !teq.proto<1481x677xbf16, #teq.float8_current_scaling_quantizer<f8E5M2>, rowwise|columnwise>
  }
  func.func @current_e4m3_768x1024(%x: tensor<768x1024xbf16>) -> !teq.proto<768x1024xbf16, #teq.float8_current_scaling_quantizer<f8E4M3FN>, rowwise|columnwise> {
    %q = teq.quantize %x : tensor<768x1024xbf16> -> !teq.proto<768x1024xbf16, #teq.float8_current_scaling_quantizer<f8E4M3FN>, rowwise|columnwise>
    return %q : !teq.proto<768x1024xbf16, #teq.float8_current_scaling_quantizer<f8E4M3FN>, rowwise|columnwise>
  }
  func.func @current_e5m2_768x1024(%x: tensor<768x1024xbf16>) -> !teq.proto<768x1024xbf16, #teq.float8_current_scaling_quantizer<f8E5M2>, rowwise|columnwise> {
    %q = teq.quantize %x : tensor<768x1024xbf16> -> !teq.proto<768x1024xbf16, #teq.float8_current_scaling_quantizer<f8E5M2>, rowwise|columnwise>
    return %q : !teq.proto<768x1024xbf16, #teq.float8_current_scaling_quantizer<f8E5M2>, rowwise|columnwise>
  }
  func.func @current_e4m3_65536x160(%x: tensor<65536x160xbf16>) -> !teq.proto<65536x160xbf16, #teq.float8_current_scaling_quantizer<f8E4M3FN>, rowwise|columnwise> {
    %q = teq.quantize %x : tensor<65536x160xbf16> -> !teq.proto<65536x160xbf16, #teq.float8_current_scaling_quantizer<f8E4M3FN>, rowwise|columnwise>
    return %q : !teq.proto<65536x160xbf16, #teq.float8_current_scaling_quantizer<f8E4M3FN>, rowwise|columnwise>
  }
  func.func @current_e5m2_65536x160(%x: tensor<65536x160xbf16>) -> !teq.proto<65536x160xbf16, #teq.float8_current_scaling_quantizer<f8E5M2>, rowwise|columnwise> {
    %q = teq.quantize %x : tensor<65536x160xbf16> -> !teq.proto<65536x160xbf16, #teq.float8_current_scaling_quantizer<f8E5M2>, rowwise|columnwise>
    return %q : !teq.proto<65536x160xbf16, #teq.float8_current_scaling_quantizer<f8E5M2>, rowwise|columnwise>
  }
  func.func @current_e4m3_2048x12288(%x: tensor<2048x12288xbf16>) -> !teq.proto<2048x12288xbf16, #teq.float8_current_scaling_quantizer<f8E4M3FN>, rowwise|columnwise> {
    %q = teq.quantize %x : tensor<2048x12288xbf16> -> !teq.proto<2048x12288xbf16, #teq.float8_current_scaling_quantizer<f8E4M3FN>, rowwise|columnwise>
    return %q : !teq.proto<2048x12288xbf16, #teq.float8_current_scaling_quantizer<f8E4M3FN>, rowwise|columnwise>
  }
  func.func @current_e5m2_2048x12288(%x: tensor<2048x12288xbf16>) -> !teq.proto<2048x12288xbf16, #teq.float8_current_scaling_quantizer<f8E5M2>, rowwise|columnwise> {
    %q = teq.quantize %x : tensor<2048x12288xbf16> -> !teq.proto<2048x12288xbf16, #teq.float8_current_scaling_quantizer<f8E5M2>, rowwise|columnwise>
    return %q : !teq.proto<2048x12288xbf16, #teq.float8_current_scaling_quantizer<f8E5M2>, rowwise|columnwise>
  }
  func.func @current_e4m3_f32_256x512(%x: tensor<256x512xf32>) -> !teq.proto<256x512xf32, #teq.float8_current_scaling_quantizer<f8E4M3FN>, rowwise|columnwise> {
    %q = teq.quantize %x : tensor<256x512xf32> -> !teq.proto<256x512xf32, #teq.float8_current_scaling_quantizer<f8E4M3FN>, rowwise|columnwise>
    return %q : !teq.proto<256x512xf32, #teq.float8_current_scaling_quantizer<f8E4M3FN>, rowwise|columnwise>
  }
  func.func @current_e4m3_f16_256x512(%x: tensor<256x512xf16>) -> !teq.proto<256x512xf16, #teq.float8_current_scaling_quantizer<f8E4M3FN>, rowwise|columnwise> {
    %q = teq.quantize %x : tensor<256x512xf16> -> !teq.proto<256x512xf16, #teq.float8_current_scaling_quantizer<f8E4M3FN>, rowwise|columnwise>
    return %q : !teq.proto<256x512xf16, #teq.float8_current_scaling_quantizer<f8E4M3FN>, rowwise|columnwise>
  }
  func.func @current_pow2_512x1024(%x: tensor<512x1024xbf16>) -> !teq.proto<512x1024xbf16, #teq.float8_current_scaling_quantizer<f8E4M3FN, force_pow_2_scales = true>, rowwise|columnwise> {
    %q = teq.quantize %x : tensor<512x1024xbf16> -> !teq.proto<512x1024xbf16, #teq.float8_current_scaling_quantizer<f8E4M3FN, force_pow_2_scales = true>, rowwise|columnwise>
    return %q : !teq.proto<512x1024xbf16, #teq.float8_current_scaling_quantizer<f8E4M3FN, force_pow_2_scales = true>, rowwise|columnwise>
  }
  func.func @current_eps_512x1024(%x: tensor<512x1024xbf16>) -> !teq.proto<512x1024xbf16, #teq.float8_current_scaling_quantizer<f8E4M3FN, amax_epsilon = 1.0e+03>, rowwise|columnwise> {
    %q = teq.quantize %x : tensor<512x1024xbf16> -> !teq.proto<512x1024xbf16, #teq.float8_current_scaling_quantizer<f8E4M3FN, amax_epsilon = 1.0e+03>, rowwise|columnwise>
    return %q : !teq.proto<512x1024xbf16, #teq.float8_current_scaling_quantizer<f8E4M3FN, amax_epsilon = 1.0e+03>, rowwise|columnwise>
  }
  func.func @current_rowwise_1000x1000(%x: tensor<1000x1000xbf16>) -> !teq.proto<1000x1000xbf16, #teq.float8_current_scaling_quantizer<f8E4M3FN>, rowwise> {
    %q = teq.quantize %x : tensor<1000x1000xbf16> -> !teq.proto<1000x1000xbf16, #teq.float8_current_scaling_quantizer<f8E4M3FN>, rowwise>
    return %q : !teq.proto<1000x1000xbf16, #teq.float8_current_scaling_quantizer<f8E4M3FN>, rowwise>
  }
}
