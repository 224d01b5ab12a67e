// Per-tensor FP8 delayed scaling, the cast step (te-semantics.md §5.2): the
// stored scale quantizes, max|x| is recorded into amax_history[0] and
// scale_inv = 1/scale. test/GPU/quantize-delayed.test checks every output
// (data, transposed copy, scale_inv and the updated history) bit for bit.
module attributes {teq.target = #teq.target<sm_90>} {
  func.func @delayed_e4m3_128x256(%x: tensor<128x256xbf16>, %scale: tensor<1xf32>, %history: tensor<1024xf32>) -> (!teq.proto<128x256xbf16, #teq.float8_quantizer<f8E4M3FN>, rowwise|columnwise>, tensor<1024xf32>) {
    %q, %h = teq.quantize %x state(%scale, %history : tensor<1xf32>, tensor<1024xf32>) : tensor<128x256xbf16> -> !teq.proto<128x256xbf16, #teq.float8_quantizer<f8E4M3FN>, rowwise|columnwise>, tensor<1024xf32>
    return %q, %h : !teq.proto<128x256xbf16, #teq.float8_quantizer<f8E4M3FN>, rowwise|columnwise>, tensor<1024xf32>
  }
  func.func @delayed_e5m2_128x256(%x: tensor<128x256xbf16>, %scale: tensor<1xf32>, %history: tensor<1024xf32>) -> (!teq.proto<128x256xbf16, #teq.float8_quantizer<f8E5M2>, rowwise|columnwise>, tensor<1024xf32>) {
    %q, %h = teq.quantize %x state(%scale, %history : tensor<1xf32>, tensor<1024xf32>) : tensor<128x256xbf16> -> !teq.proto<128x256xbf16, #teq.float8_quantizer<f8E5M2>, rowwise|columnwise>, tensor<1024xf32>
    return %q, %h : !teq.proto<128x256xbf16, #teq.float8_quantizer<f8E5M2>, rowwise|columnwise>, tensor<1024xf32>
  }
  func.func @delayed_e4m3_16(%x: tensor<16xbf16>, %scale: tensor<1xf32>, %history: tensor<16xf32>) -> (!teq.proto<16xbf16, #teq.float8_quantizer<f8E4M3FN>, rowwise|columnwise>, tensor<16xf32>) {
    %q, %h = teq.quantize %x state(%scale, %history : tensor<1xf32>, tensor<16xf32>) : tensor<16xbf16> -> !teq.proto<16xbf16, #teq.float8_quantizer<f8E4M3FN>, rowwise|columnwise>, tensor<16xf32>
    return %q, %h : !teq.proto<16xbf16, #teq.float8_quantizer<f8E4M3FN>, rowwise|columnwise>, tensor<16xf32>
  }
  func.func @delayed_e5m2_16(%x: tensor<16xbf16>, %scale: tensor<1xf32>, %history: tensor<16xf32>) -> (!teq.proto<16xbf16, #teq.float8_quantizer<f8E5M2>, rowwise|columnwise>, tensor<16xf32>) {
    %q, %h = teq.quantize %x state(%scale, %history : tensor<1xf32>, tensor<16xf32>) : tensor<16xbf16> -> !teq.proto<16xbf16, #teq.float8_quantizer<f8E5M2>, rowwise|columnwise>, tensor<16xf32>
    return %q, %h : !teq.proto<16xbf16, #teq.float8_quantizer<f8E5M2>, rowwise|columnwise>, tensor<16xf32>
  }
  func.func @delayed_e4m3_1x16(%x: tensor<1x16xbf16>, %scale: tensor<1xf32>, %history: tensor<16xf32>) -> (!teq.proto<1x16xbf16, #teq.float8_quantizer<f8E4M3FN>, rowwise|columnwise>, tensor<16xf32>) {
    %q, %h = teq.quantize %x state(%scale, %history : tensor<1xf32>, tensor<16xf32>) : tensor<1x16xbf16> -> !teq.proto<1x16xbf16, #teq.float8_quantizer<f8E4M3FN>, rowwise|columnwise>, tensor<16xf32>
    return %q, %h : !teq.proto<1x16xbf16, #teq.float8_quantizer<f8E4M3FN>, rowwise|columnwise>, tensor<16xf32>
  }
  func.func @delayed_e5m2_1x16(%x: tensor<1x16xbf16>, %scale: tensor<1xf32>, %history: tensor<16xf32>) -> (!teq.proto<1x16xbf16, #teq.float8_quantizer<f8E5M2>, rowwise|columnwise>, tensor<16xf32>) {
    %q, %h = teq.quantize %x state(%scale, %history : tensor<1xf32>, tensor<16xf32>) : tensor<1x16xbf16> -> !teq.proto<1x16xbf16, #teq.float8_quantizer<f8E5M2>, rowwise|columnwise>, tensor<16xf32>
    return %q, %h : !teq.proto<1x16xbf16, #teq.float8_quantizer<f8E5M2>, rowwise|columnwise>, tensor<16xf32>
  }
  func.func @delayed_e4m3_5x160(%x: tensor<5x160xbf16>, %scale: tensor<1xf32>, %history: tensor<16xf32>) -> (!teq.proto<5x160xbf16, #teq.float8_quantizer<f8E4M3FN>, rowwise|columnwise>, tensor<16xf32>) {
    %q, %h = teq.quantize %x state(%scale, %history : tensor<1xf32>, tensor<16xf32>) : tensor<5x160xbf16> -> !teq.proto<5x160xbf16, #teq.float8_quantizer<f8E4M3FN>, rowwise|columnwise>, tensor<16xf32>
    return %q, %h : !teq.proto<5x160xbf16, #teq.float8_quantizer<f8E4M3FN>, rowwise|columnwise>, tensor<16xf32>
  }
  func.func @delayed_e5m2_5x160(%x: tensor<5x160xbf16>, %scale: tensor<1xf32>, %history: tensor<16xf32>) -> (!teq.proto<5x160xbf16, #teq.float8_quantizer<f8E5M2>, rowwise|columnwise>, tensor<16xf32>) {
    %q, %h = teq.quantize %x state(%scale, %history : tensor<1xf32>, tensor<16xf32>) : tensor<5x160xbf16> -> !teq.proto<5x160xbf16, #teq.float8_quantizer<f8E5M2>, rowwise|columnwise>, tensor<16xf32>
    return %q, %h : !teq.proto<5x160xbf16, #teq.float8_quantizer<f8E5M2>, rowwise|columnwise>, tensor<16xf32>
  }
  func.func @delayed_e4m3_217x256(%x: tensor<217x256xbf16>, %scale: tensor<1xf32>, %history: tensor<16xf32>) -> (!teq.proto<217x256xbf16, #teq.float8_quantizer<f8E4M3FN>, rowwise|columnwise>, tensor<16xf32>) {
    %q, %h = teq.quantize %x state(%scale, %history : tensor<1xf32>, tensor<16xf32>) : tensor<217x256xbf16> -> !teq.proto<217x256xbf16, #teq.float8_quantizer<f8E4M3FN>, rowwise|columnwise>, tensor<16xf32>
    return %q, %h : !teq.proto<217x256xbf16, #teq.float8_quantizer<f8E4M3FN>, rowwise|columnwise>, tensor<16xf32>
  }
  func.func @delayed_e5m2_217x256(%x: tensor<217x256xbf16>, %scale: tensor<1xf32>, %history: tensor<16xf32>) -> (!teq.proto<217x256xbf16, #teq.float8_quantizer<f8E5M2>, rowwise|columnwise>, tensor<16xf32>) {
    %q, %h = teq.quantize %x state(%scale, %history : tensor<1xf32>, tensor<16xf32>) : tensor<217x256xbf16> -> !teq.proto<217x256xbf16, #teq.float8_quantizer<f8E5M2>, rowwise|columnwise>, tensor<16xf32>
    return %q, %h : !teq.proto<217x256xbf16, #teq.float8_quantizer<f8E5M2>, rowwise|columnwise>, tensor<16xf32>
  }
  func.func @delayed_e4m3_2333x1(%x: tensor<2333x1xbf16>, %scale: tensor<1xf32>, %history: tensor<16xf32>) -> (!teq.proto<2333x1xbf16, #teq.float8_quantizer<f8E4M3FN>, rowwise|columnwise>, tensor<16xf32>) {
    %q, %h = teq.quantize %x state(%scale, %history : tensor<1xf32>, tensor<16xf32>) : tensor<2333x1xbf16> -> !teq.proto<2333x1xbf16, #teq.float8_quantizer<f8E4M3FN>, rowwise|columnwise>, tensor<16xf32>
    return %q, %h : !teq.proto<2333x1xbf16, #teq.float8_quantizer<f8E4M3FN>, rowwise|columnwise>, tensor<16xf32>
  }
  func.func @delayed_e5m2_2333x1(%x: tensor<2333x1xbf16>, %scale: tensor<1xf32>, %history: tensor<16xf32>) -> (!teq.proto<2333x1xbf16, #teq.float8_quantizer<f8E5M2>, rowwise|columnwise>, tensor<16xf32>) {
    %q, %h = teq.quantize %x state(%scale, %history : tensor<1xf32>, tensor<16xf32>) : tensor<2333x1xbf16> -> !teq.proto<2333x1xbf16, #teq.float8_quantizer<f8E5M2>, rowwise|columnwise>, tensor<16xf32>
    return %q, %h : !teq.proto<2333x1xbf16, #teq.float8_quantizer<f8E5M2>, rowwise|columnwise>, tensor<16xf32>
  }
  func.func @delayed_e4m3_1481x677(%x: tensor<1481x677xbf16>, %scale: tensor<1xf32>, %history: tensor<16xf32>) -> (!teq.proto<1481x677xbf16, #teq.float8_quantizer<f8E4M3FN>, rowwise|columnwise>, tensor<16xf32>) {
    %q, %h = teq.quantize %x state(%scale, %history : tensor<1xf32>, tensor<16xf32>) : tensor<1481x677xbf16> -> !teq.proto<1481x677xbf16, #teq.float8_quantizer<f8E4M3FN>, rowwise|columnwise>, tensor<16xf32>
    return %q, %h : !teq.proto<1481x677xbf16, #teq.float8_quantizer<f8E4M3FN>, rowwise|columnwise>, tensor<16xf32>
  }
  func.func @delayed_e5m2_1481x677(%x: tensor<1481x677xbf16>, %scale: tensor<1xf32>, %history: tensor<16xf32>) -> (!teq.proto<1481x677xbf16, #teq.float8_quantizer<f8E5M2>, rowwise|columnwise>, tensor<16xf32>) {
    %q, %h = teq.quantize %x state(%scale, %history : tensor<1xf32>, tensor<16xf32>) : tensor<1481x677xbf16> -> !teq.proto<1481x677xbf16, #teq.float8_quantizer<f8E5M2>, rowwise|columnwise>, tensor<16xf32>
    return %q, %h : !teq.proto<1481x677xbf16, #teq.float8_quantizer<f8E5M2>, rowwise|columnwise>, tensor<16xf32>
  }
  func.func @delayed_e4m3_768x1024(%x: tensor<768x1024xbf16>, %scale: tensor<1xf32>, %history: tensor<16xf32>) -> (!teq.proto<768x1024xbf16, #teq.float8_quantizer<f8E4M3FN>, rowwise|columnwise>, tensor<16xf32>) {
    %q, %h = teq.quantize %x state(%scale, %history : tensor<1xf32>, tensor<16xf32>) : tensor<768x1024xbf16> -> !teq.proto<768x1024xbf16, #teq.float8_quantizer<f8E4M3FN>, rowwise|columnwise>, tensor<16xf32>
    return %q, %h : !teq.proto<768x1024xbf16, #teq.float8_quantizer<f8E4M3FN>, rowwise|columnwise>, tensor<16xf32>
  }
  func.func @delayed_e5m2_768x1024(%x: tensor<768x1024xbf16>, %scale: tensor<1xf32>, %history: tensor<16xf32>) -> (!teq.proto<768x1024xbf16, #teq.float8_quantizer<f8E5M2>, rowwise|columnwise>, tensor<16xf32>) {
    %q, %h = teq.quantize %x state(%scale, %history : tensor<1xf32>, tensor<16xf32>) : tensor<768x1024xbf16> -> !teq.proto<768x1024xbf16, #teq.float8_quantizer<f8E5M2>, rowwise|columnwise>, tensor<16xf32>
    return %q, %h : !teq.proto<768x1024xbf16, #teq.float8_quantizer<f8E5M2>, rowwise|columnwise>, tensor<16xf32>
  }
  func.func @delayed_e4m3_2048x12288(%x: tensor<2048x12288xbf16>, %scale: tensor<1xf32>, %history: tensor<16xf32>) -> (!teq.proto<2048x12288xbf16, #teq.float8_quantizer<f8E4M3FN>, rowwise|columnwise>, tensor<16xf32>) {
    %q, %h = teq.quantize %x state(%scale, %history : tensor<1xf32>, tensor<16xf32>) : tensor<2048x12288xbf16> -> !teq.proto<2048x12288xbf16, #teq.float8_quantizer<f8E4M3FN>, rowwise|columnwise>, tensor<16xf32>
    return %q, %h : !teq.proto<2048x12288xbf16, #teq.float8_quantizer<f8E4M3FN>, rowwise|columnwise>, tensor<16xf32>
  }
  func.func @delayed_e5m2_2048x12288(%x: tensor<2048x12288xbf16>, %scale: tensor<1xf32>, %history: tensor<16xf32>) -> (!teq.proto<2048x12288xbf16, #teq.float8_quantizer<f8E5M2>, rowwise|columnwise>, tensor<16xf32>) {
    %q, %h = teq.quantize %x state(%scale, %history : tensor<1xf32>, tensor<16xf32>) : tensor<2048x12288xbf16> -> !teq.proto<2048x12288xbf16, #teq.float8_quantizer<f8E5M2>, rowwise|columnwise>, tensor<16xf32>
    return %q, %h : !teq.proto<2048x12288xbf16, #teq.float8_quantizer<f8E5M2>, rowwise|columnwise>, tensor<16xf32>
  }
}
