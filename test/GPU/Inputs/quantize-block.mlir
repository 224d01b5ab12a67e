// FP8 block scaling (te-semantics.md §5.3) on TE's test shapes
// (test_float8_blockwise_scaling_exact.py, test_cast_float8blockwise.cu):
// 1x128 and 128x128 blocks, E4M3/E5M2, bf16 and f32 inputs, pow2 scales
// (the default) and fp32 scales, epsilon; rowwise + columnwise and single
// usages. test/GPU/quantize-block.test checks every buffer bit for bit.
module attributes {teq.target = #teq.target<sm_90>} {
  func.func @block1d_e4m3_128x128(%x: tensor<128x128xbf16>) -> !teq.proto<128x128xbf16, #teq.float8_block_quantizer<f8E4M3FN, block_scaling_dim = 1>, rowwise|columnwise> {
    %q = teq.quantize %x : tensor<128x128xbf16> -> !teq.proto<128x128xbf16, #teq.float8_block_quantizer<f8E4M3FN, block_scaling_dim = 1>, rowwise|columnwise>
    return %q : !teq.proto<128x128xbf16, #teq.float8_block_quantizer<f8E4M3FN, block_scaling_dim = 1>, rowwise|columnwise>
  }
  func.func @block1d_e5m2_128x128(%x: tensor<128x128xbf16>) -> !teq.proto<128x128xbf16, #teq.float8_block_quantizer<f8E5M2, block_scaling_dim = 1>, rowwise|columnwise> {
    %q = teq.quantize %x : tensor<128x128xbf16> -> !teq.proto<128x128xbf16, #teq.float8_block_quantizer<f8E5M2, block_scaling_dim = 1>, rowwise|columnwise>
    return %q : !teq.proto<128x128xbf16, #teq.float8_block_quantizer<f8E5M2, block_scaling_dim = 1>, rowwise|columnwise>
  }
  func.func @block2d_e4m3_128x128(%x: tensor<128x128xbf16>) -> !teq.proto<128x128xbf16, #teq.float8_block_quantizer<f8E4M3FN>, rowwise|columnwise> {
    %q = teq.quantize %x : tensor<128x128xbf16> -> !teq.proto<128x128xbf16, #teq.float8_block_quantizer<f8E4M3FN>, rowwise|columnwise>
    return %q : !teq.proto<128x128xbf16, #teq.float8_block_quantizer<f8E4M3FN>, rowwise|columnwise>
  }
  func.func @block2d_e5m2_128x128(%x: tensor<128x128xbf16>) -> !teq.proto<128x128xbf16, #teq.float8_block_quantizer<f8E5M2>, rowwise|columnwise> {
    %q = teq.quantize %x : tensor<128x128xbf16> -> !teq.proto<128x128xbf16, #teq.float8_block_quantizer<f8E5M2>, rowwise|columnwise>
    return %q : !teq.proto<128x128xbf16, #teq.float8_block_quantizer<f8E5M2>, rowwise|columnwise>
  }
  func.func @block1d_e4m3_256x272(%x: tensor<256x272xbf16>) -> !teq.proto<256x272xbf16, #teq.float8_block_quantizer<f8E4M3FN, block_scaling_dim = 1>, rowwise|columnwise> {
    %q = teq.quantize %x : tensor<256x272xbf16> -> !teq.proto<256x272xbf16, #teq.float8_block_quantizer<f8E4M3FN, block_scaling_dim = 1>, rowwise|columnwise>
    return %q : !teq.proto<256x272xbf16, #teq.float8_block_quantizer<f8E4M3FN, block_scaling_dim = 1>, rowwise|columnwise>
  }
  func.func @block1d_e5m2_256x272(%x: tensor<256x272xbf16>) -> !teq.proto<256x272xbf16, #teq.float8_block_quantizer<f8E5M2, block_scaling_dim = 1>, rowwise|columnwise> {
    %q = teq.quantize %x : tensor<256x272xbf16> -> !teq.proto<256x272xbf16, #teq.float8_block_quantizer<f8E5M2, block_scaling_dim = 1>, rowwise|columnwise>
    return %q : !teq.proto<256x272xbf16, #teq.float8_block_quantizer<f8E5M2, block_scaling_dim = 1>, rowwise|columnwise>
  }
  func.func @block2d_e4m3_256x272(%x: tensor<256x272xbf16>) -> !teq.proto<256x272xbf16, #teq.float8_block_quantizer<f8E4M3FN>, rowwise|columnwise> {
    %q = teq.quantize %x : tensor<256x272xbf16> -> !teq.proto<256x272xbf16, #teq.float8_block_quantizer<f8E4M3FN>, rowwise|columnwise>
    return %q : !teq.proto<256x272xbf16, #teq.float8_block_quantizer<f8E4M3FN>, rowwise|columnwise>
  }
  func.func @block2d_e5m2_256x272(%x: tensor<256x272xbf16>) -> !teq.proto<256x272xbf16, #teq.float8_block_quantizer<f8E5M2>, rowwise|columnwise> {
    %q = teq.quantize %x : tensor<256x272xbf16> -> !teq.proto<256x272xbf16, #teq.float8_block_quantizer<f8E5M2>, rowwise|columnwise>
    return %q : !teq.proto<256x272xbf16, #teq.float8_block_quantizer<f8E5M2>, rowwise|columnwise>
  }
  func.func @block1d_e4m3_303x300(%x: tensor<303x300xbf16>) -> !teq.proto<303x300xbf16, #teq.float8_block_quantizer<f8E4M3FN, block_scaling_dim = 1>, rowwise|columnwise> {
    %q = teq.quantize %x : tensor<303x300xbf16> -> !teq.proto<303x300xbf16, #teq.float8_block_quantizer<f8E4M3FN, block_scaling_dim = 1>, rowwise|columnwise>
    return %q : !teq.proto<303x300xbf16, #teq.float8_block_quantizer<f8E4M3FN, block_scaling_dim = 1>, rowwise|columnwise>
  }
  func.func @block1d_e5m2_303x300(%x: tensor<303x300xbf16>) -> !teq.proto<303x300xbf16, #teq.float8_block_quantizer<f8E5M2, block_scaling_dim = 1>, rowwise|columnwise> {
    %q = teq.quantize %x : tensor<303x300xbf16> -> !teq.proto<303x300xbf16, #teq.float8_block_quantizer<f8E5M2, block_scaling_dim = 1>, rowwise|columnwise>
    return %q : !teq.proto<303x300xbf16, #teq.float8_block_quantizer<f8E5M2, block_scaling_dim = 1>, rowwise|columnwise>
  }
  func.func @block2d_e4m3_303x300(%x: tensor<303x300xbf16>) -> !teq.proto<303x300xbf16, #teq.float8_block_quantizer<f8E4M3FN>, rowwise|columnwise> {
    %q = teq.quantize %x : tensor<303x300xbf16> -> !teq.proto<303x300xbf16, #teq.float8_block_quantizer<f8E4M3FN>, rowwise|columnwise>
    return %q : !teq.proto<303x300xbf16, #teq.float8_block_quantizer<f8E4M3FN>, rowwise|columnwise>
  }
  func.func @block2d_e5m2_303x300(%x: tensor<303x300xbf16>) -> !teq.proto<303x300xbf16, #teq.float8_block_quantizer<f8E5M2>, rowwise|columnwise> {
    %q = teq.quantize %x : tensor<303x300xbf16> -> !teq.proto<303x300xbf16, #teq.float8_block_quantizer<f8E5M2>, rowwise|columnwise>
    return %q : !teq.proto<303x300xbf16, #teq.float8_block_quantizer<f8E5M2>, rowwise|columnwise>
  }
  func.func @block1d_e4m3_305x256(%x: tensor<305x256xbf16>) -> !teq.proto<305x256xbf16, #teq.float8_block_quantizer<f8E4M3FN, block_scaling_dim = 1>, rowwise|columnwise> {
    %q = teq.quantize %x : tensor<305x256xbf16> -> !teq.proto<305x256xbf16, #teq.float8_block_quantizer<f8E4M3FN, block_scaling_dim = 1>, rowwise|columnwise>
    return %q : !teq.proto<305x256xbf16, #teq.float8_block_quantizer<f8E4M3FN, block_scaling_dim = 1>, rowwise|columnwise>
  }
  func.func @block1d_e5m2_305x256(%x: tensor<305x256xbf16>) -> !teq.proto<305x256xbf16, #teq.float8_block_quantizer<f8E5M2, block_scaling_dim = 1>, rowwise|columnwise> {
    %q = teq.quantize %x : tensor<305x256xbf16> -> !teq.proto<305x256xbf16, #teq.float8_block_quantizer<f8E5M2, block_scaling_dim = 1>, rowwise|columnwise>
    return %q : !teq.proto<305x256xbf16, #teq.float8_block_quantizer<f8E5M2, block_scaling_dim = 1>, rowwise|columnwise>
  }
  func.func @block2d_e4m3_305x256(%x: tensor<305x256xbf16>) -> !teq.proto<305x256xbf16, #teq.float8_block_quantizer<f8E4M3FN>, rowwise|columnwise> {
    %q = teq.quantize %x : tensor<305x256xbf16> -> !teq.proto<305x256xbf16, #teq.float8_block_quantizer<f8E4M3FN>, rowwise|columnwise>
    return %q : !teq.proto<305x256xbf16, #teq.float8_block_quantizer<f8E4M3FN>, rowwise|columnwise>
  }
  func.func @block2d_e5m2_305x256(%x: tensor<305x256xbf16>) -> !teq.proto<305x256xbf16, #teq.float8_block_quantizer<f8E5M2>, rowwise|columnwise> {
    %q = teq.quantize %x : tensor<305x256xbf16> -> !teq.proto<305x256xbf16, #teq.float8_block_quantizer<f8E5M2>, rowwise|columnwise>
    return %q : !teq.proto<305x256xbf16, #teq.float8_block_quantizer<f8E5M2>, rowwise|columnwise>
  }
  func.func @block1d_e4m3_2000x2000(%x: tensor<2000x2000xbf16>) -> !teq.proto<2000x2000xbf16, #teq.float8_block_quantizer<f8E4M3FN, block_scaling_dim = 1>, rowwise|columnwise> {
    %q = teq.quantize %x : tensor<2000x2000xbf16> -> !teq.proto<2000x2000xbf16, #teq.float8_block_quantizer<f8E4M3FN, block_scaling_dim = 1>, rowwise|columnwise>
    return %q : !teq.proto<2000x2000xbf16, #teq.float8_block_quantizer<f8E4M3FN, block_scaling_dim = 1>, rowwise|columnwise>
  }
  func.func @block1d_e5m2_2000x2000(%x: tensor<2000x2000xbf16>) -> !teq.proto<2000x2000xbf16, #teq.float8_block_quantizer<f8E5M2, block_scaling_dim = 1>, rowwise|columnwise> {
    %q = teq.quantize %x : tensor<2000x2000xbf16> -> !teq.proto<2000x2000xbf16, #teq.float8_block_quantizer<f8E5M2, block_scaling_dim = 1>, rowwise|columnwise>
    return %q : !teq.proto<2000x2000xbf16, #teq.float8_block_quantizer<f8E5M2, block_scaling_dim = 1>, rowwise|columnwise>
  }
  func.func @block2d_e4m3_2000x2000(%x: tensor<2000x2000xbf16>) -> !teq.proto<2000x2000xbf16, #teq.float8_block_quantizer<f8E4M3FN>, rowwise|columnwise> {
    %q = teq.quantize %x : tensor<2000x2000xbf16> -> !teq.proto<2000x2000xbf16, #teq.float8_block_quantizer<f8E4M3FN>, rowwise|columnwise>
    return %q : !teq.proto<2000x2000xbf16, #teq.float8_block_quantizer<f8E4M3FN>, rowwise|columnwise>
  }
  func.func @block2d_e5m2_2000x2000(%x: tensor<2000x2000xbf16>) -> !teq.proto<2000x2000xbf16, #teq.float8_block_quantizer<f8E5M2>, rowwise|columnwise> {
    %q = teq.quantize %x : tensor<2000x2000xbf16> -> !teq.proto<2000x2000xbf16, #teq.float8_block_quantizer<f8E5M2>, rowwise|columnwise>
    return %q : !teq.proto<2000x2000xbf16, #teq.float8_block_quantizer<f8E5M2>, rowwise|columnwise>
  }
  func.func @block1d_e4m3_2048x1024(%x: tensor<2048x1024xbf16>) -> !teq.proto<2048x1024xbf16, #teq.float8_block_quantizer<f8E4M3FN, block_scaling_dim = 1>, rowwise|columnwise> {
    %q = teq.quantize %x : tensor<2048x1024xbf16> -> !teq.proto<2048x1024xbf16, #teq.float8_block_quantizer<f8E4M3FN, block_scaling_dim = 1>, rowwise|columnwise>
    return %q : !teq.proto<2048x1024xbf16, #teq.float8_block_quantizer<f8E4M3FN, block_scaling_dim = 1>, rowwise|columnwise>
  }
  func.func @block1d_e5m2_2048x1024(%x: tensor<2048x1024xbf16>) -> !teq.proto<2048x1024xbf16, #teq.float8_block_quantizer<f8E5M2, block_scaling_dim = 1>, rowwise|columnwise> {
    %q = teq.quantize %x : tensor<2048x1024xbf16> -> !teq.proto<2048x1024xbf16, #teq.float8_block_quantizer<f8E5M2, block_scaling_dim = 1>, rowwise|columnwise>
    return %q : !teq.proto<2048x1024xbf16, #teq.float8_block_quantizer<f8E5M2, block_scaling_dim = 1>, rowwise|columnwise>
  }
  func.func @block2d_e4m3_2048x1024(%x: tensor<2048x1024xbf16>) -> !teq.proto<2048x1024xbf16, #teq.float8_block_quantizer<f8E4M3FN>, rowwise|columnwise> {
    %q = teq.quantize %x : tensor<2048x1024xbf16> -> !teq.proto<2048x1024xbf16, #teq.float8_block_quantizer<f8E4M3FN>, rowwise|columnwise>
    return %q : !teq.proto<2048x1024xbf16, #teq.float8_block_quantizer<f8E4M3FN>, rowwise|columnwise>
  }
  func.func @block2d_e5m2_2048x1024(%x: tensor<2048x1024xbf16>) -> !teq.proto<2048x1024xbf16, #teq.float8_block_quantizer<f8E5M2>, rowwise|columnwise> {
    %q = teq.quantize %x : tensor<2048x1024xbf16> -> !teq.proto<2048x1024xbf16, #teq.float8_block_quantizer<f8E5M2>, rowwise|columnwise>
    return %q : !teq.proto<2048x1024xbf16, #teq.float8_block_quantizer<f8E5M2>, rowwise|columnwise>
  }
  func.func @block1d_e4m3_1x16(%x: tensor<1x16xbf16>) -> !teq.proto<1x16xbf16, #teq.float8_block_quantizer<f8E4M3FN, block_scaling_dim = 1>, rowwise|columnwise> {
    %q = teq.quantize %x : tensor<1x16xbf16> -> !teq.proto<1x16xbf16, #teq.float8_block_quantizer<f8E4M3FN, block_scaling_dim = 1>, rowwise|columnwise>
    return %q : !teq.proto<1x16xbf16, #teq.float8_block_quantizer<f8E4M3FN, block_scaling_dim = 1>, rowwise|columnwise>
  }
  func.func @block1d_e5m2_1x16(%x: tensor<1x16xbf16>) -> !teq.proto<1x16xbf16, #teq.float8_block_quantizer<f8E5M2, block_scaling_dim = 1>, rowwise|columnwise> {
    %q = teq.quantize %x : tensor<1x16xbf16> -> !teq.proto<1x16xbf16, #teq.float8_block_quantizer<f8E5M2, block_scaling_dim = 1>, rowwise|columnwise>
    return %q : !teq.proto<1x16xbf16, #teq.float8_block_quantizer<f8E5M2, block_scaling_dim = 1>, rowwise|columnwise>
  }
  func.func @block2d_e4m3_1x16(%x: tensor<1x16xbf16>) -> !teq.proto<1x16xbf16, #teq.float8_block_quantizer<f8E4M3FN>, rowwise|columnwise> {
    %q = teq.quantize %x : tensor<1x16xbf16> -> !teq.proto<1x16xbf16, #teq.float8_block_quantizer<f8E4M3FN>, rowwise|columnwise>
    return %q : !teq.proto<1x16xbf16, #teq.float8_block_quantizer<f8E4M3FN>, rowwise|columnwise>
  }
  func.func @block2d_e5m2_1x16(%x: tensor<1x16xbf16>) -> !teq.proto<1x16xbf16, #teq.float8_block_quantizer<f8E5M2>, rowwise|columnwise> {
    %q = teq.quantize %x : tensor<1x16xbf16> -> !teq.proto<1x16xbf16, #teq.float8_block_quantizer<f8E5M2>, rowwise|columnwise>
    return %q : !teq.proto<1x16xbf16, #teq.float8_block_quantizer<f8E5M2>, rowwise|columnwise>
  }
  func.func @block1d_e4m3_993x512(%x: tensor<993x512xbf16>) -> !teq.proto<993x512xbf16, #teq.float8_block_quantizer<f8E4M3FN, block_scaling_dim = 1>, rowwise|columnwise> {
    %q = teq.quantize %x : tensor<993x512xbf16> -> !teq.proto<993x512xbf16, #teq.float8_block_quantizer<f8E4M3FN, block_scaling_dim = 1>, rowwise|columnwise>
    return %q : !teq.proto<993x512xbf16, #teq.float8_block_quantizer<f8E4M3FN, block_scaling_dim = 1>, rowwise|columnwise>
  }
  func.func @block1d_e5m2_993x512(%x: tensor<993x512xbf16>) -> !teq.proto<993x512xbf16, #teq.float8_block_quantizer<f8E5M2, block_scaling_dim = 1>, rowwise|columnwise> {
    %q = teq.quantize %x : tensor<993x512xbf16> -> !teq.proto<993x512xbf16, #teq.float8_block_quantizer<f8E5M2, block_scaling_dim = 1>, rowwise|columnwise>
    return %q : !teq.proto<993x512xbf16, #teq.float8_block_quantizer<f8E5M2, block_scaling_dim = 1>, rowwise|columnwise>
  }
  func.func @block2d_e4m3_993x512(%x: tensor<993x512xbf16>) -> !teq.proto<993x512xbf16, #teq.float8_block_quantizer<f8E4M3FN>, rowwise|columnwise> {
    %q = teq.quantize %x : tensor<993x512xbf16> -> !teq.proto<993x512xbf16, #teq.float8_block_quantizer<f8E4M3FN>, rowwise|columnwise>
    return %q : !teq.proto<993x512xbf16, #teq.float8_block_quantizer<f8E4M3FN>, rowwise|columnwise>
  }
  func.func @block2d_e5m2_993x512(%x: tensor<993x512xbf16>) -> !teq.proto<993x512xbf16, #teq.float8_block_quantizer<f8E5M2>, rowwise|columnwise> {
    %q = teq.quantize %x : tensor<993x512xbf16> -> !teq.proto<993x512xbf16, #teq.float8_block_quantizer<f8E5M2>, rowwise|columnwise>
    return %q : !teq.proto<993x512xbf16, #teq.float8_block_quantizer<f8E5M2>, rowwise|columnwise>
  }
  func.func @block1d_e4m3_1024x1(%x: tensor<1024x1xbf16>) -> !teq.proto<1024x1xbf16, #teq.float8_block_quantizer<f8E4M3FN, block_scaling_dim = 1>, rowwise|columnwise> {
    %q = teq.quantize %x : tensor<1024x1xbf16> -> !teq.proto<1024x1xbf16, #teq.float8_block_quantizer<f8E4M3FN, block_scaling_dim = 1>, rowwise|columnwise>
    return %q : !teq.proto<1024x1xbf16, #teq.float8_block_quantizer<f8E4M3FN, block_scaling_dim = 1>, rowwise|columnwise>
  }
  func.func @block1d_e5m2_1024x1(%x: tensor<1024x1xbf16>) -> !teq.proto<1024x1xbf16, #teq.float8_block_quantizer<f8E5M2, block_scaling_dim = 1>, rowwise|columnwise> {
    %q = teq.quantize %x : tensor<1024x1xbf16> -> !teq.proto<1024x1xbf16, #teq.float8_block_quantizer<f8E5M2, block_scaling_dim = 1>, rowwise|columnwise>
    return %q : !teq.proto<1024x1xbf16, #teq.float8_block_quantizer<f8E5M2, block_scaling_dim = 1>, rowwise|columnwise>
  }
  func.func @block2d_e4m3_1024x1(%x: tensor<1024x1xbf16>) -> !teq.proto<1024x1xbf16, #teq.float8_block_quantizer<f8E4M3FN>, rowwise|columnwise> {
    %q = teq.quantize %x : tensor<1024x1xbf16> -> !teq.proto<1024x1xbf16, #teq.float8_block_quantizer<f8E4M3FN>, rowwise|columnwise>
    return %q : !teq.proto<1024x1xbf16, #teq.float8_block_quantizer<f8E4M3FN>, rowwise|columnwise>
  }
  func.func @block2d_e5m2_1024x1(%x: tensor<1024x1xbf16>) -> !teq.proto<1024x1xbf16, #teq.float8_block_quantizer<f8E5M2>, rowwise|columnwise> {
    %q = teq.quantize %x : tensor<1024x1xbf16> -> !teq.proto<1024x1xbf16, #teq.float8_block_quantizer<f8E5M2>, rowwise|columnwise>
    return %q : !teq.proto<1024x1xbf16, #teq.float8_block_quantizer<f8E5M2>, rowwise|columnwise>
  }
  func.func @block1d_e4m3_65x96(%x: tensor<65x96xbf16>) -> !teq.proto<65x96xbf16, #teq.float8_block_quantizer<f8E4M3FN, block_scaling_dim = 1>, rowwise|columnwise> {
    %q = teq.quantize %x : tensor<65x96xbf16> -> !teq.proto<65x96xbf16, #teq.float8_block_quantizer<f8E4M3FN, block_scaling_dim = 1>, rowwise|columnwise>
    return %q : !teq.proto<65x96xbf16, #teq.float8_block_quantizer<f8E4M3FN, block_scaling_dim = 1>, rowwise|columnwise>
  }
  func.func @block1d_e5m2_65x96(%x: tensor<65x96xbf16>) -> !teq.proto<65x96xbf16, #teq.float8_block_quantizer<f8E5M2, block_scaling_dim = 1>, rowwise|columnwise> {
    %q = teq.quantize %x : tensor<65x96xbf16> -> !teq.proto<65x96xbf16, #teq.float8_block_quantizer<f8E5M2, block_scaling_dim = 1>, rowwise|columnwise>
    return %q : !teq.proto<65x96xbf16, #teq.float8_block_quantizer<f8E5M2, block_scaling_dim = 1>, rowwise|columnwise>
  }
  func.func @block2d_e4m3_65x96(%x: tensor<65x96xbf16>) -> !teq.proto<65x96xbf16, #teq.float8_block_quantizer<f8E4M3FN>, rowwise|columnwise> {
    %q = teq.quantize %x : tensor<65x96xbf16> -> !teq.proto<65x96xbf16, #teq.float8_block_quantizer<f8E4M3FN>, rowwise|columnwise>
    return %q : !teq.proto<65x96xbf16, #teq.float8_block_quantizer<f8E4M3FN>, rowwise|columnwise>
  }
  func.func @block2d_e5m2_65x96(%x: tensor<65x96xbf16>) -> !teq.proto<65x96xbf16, #teq.float8_block_quantizer<f8E5M2>, rowwise|columnwise> {
    %q = teq.quantize %x : tensor<65x96xbf16> -> !teq.proto<65x96xbf16, #teq.float8_block_quantizer<f8E5M2>, rowwise|columnwise>
    return %q : !teq.proto<65x96xbf16, #teq.float8_block_quantizer<f8E5M2>, rowwise|columnwise>
  }
  func.func @block1d_f32in_256x256(%x: tensor<256x256xf32>) -> !teq.proto<256x256xf32, #teq.float8_block_quantizer<f8E4M3FN, block_scaling_dim = 1>, rowwise|columnwise> {
    %q = teq.quantize %x : tensor<256x256xf32> -> !teq.proto<256x256xf32, #teq.float8_block_quantizer<f8E4M3FN, block_scaling_dim = 1>, rowwise|columnwise>
    return %q : !teq.proto<256x256xf32, #teq.float8_block_quantizer<f8E4M3FN, block_scaling_dim = 1>, rowwise|columnwise>
  }
  func.func @block1d_f32scales_256x256(%x: tensor<256x256xbf16>) -> !teq.proto<256x256xbf16, #teq.float8_block_quantizer<f8E4M3FN, block_scaling_dim = 1, force_pow_2_scales = false>, rowwise|columnwise> {
    %q = teq.quantize %x : tensor<256x256xbf16> -> !teq.proto<256x256xbf16, #teq.float8_block_quantizer<f8E4M3FN, block_scaling_dim = 1, force_pow_2_scales = false>, rowwise|columnwise>
    return %q : !teq.proto<256x256xbf16, #teq.float8_block_quantizer<f8E4M3FN, block_scaling_dim = 1, force_pow_2_scales = false>, rowwise|columnwise>
  }
  func.func @block1d_eps_256x256(%x: tensor<256x256xbf16>) -> !teq.proto<256x256xbf16, #teq.float8_block_quantizer<f8E4M3FN, block_scaling_dim = 1, amax_epsilon = 1.0>, rowwise|columnwise> {
    %q = teq.quantize %x : tensor<256x256xbf16> -> !teq.proto<256x256xbf16, #teq.float8_block_quantizer<f8E4M3FN, block_scaling_dim = 1, amax_epsilon = 1.0>, rowwise|columnwise>
    return %q : !teq.proto<256x256xbf16, #teq.float8_block_quantizer<f8E4M3FN, block_scaling_dim = 1, amax_epsilon = 1.0>, rowwise|columnwise>
  }
  func.func @block1d_rowwise_256x256(%x: tensor<256x256xbf16>) -> !teq.proto<256x256xbf16, #teq.float8_block_quantizer<f8E4M3FN, block_scaling_dim = 1>, rowwise> {
    %q = teq.quantize %x : tensor<256x256xbf16> -> !teq.proto<256x256xbf16, #teq.float8_block_quantizer<f8E4M3FN, block_scaling_dim = 1>, rowwise>
    return %q : !teq.proto<256x256xbf16, #teq.float8_block_quantizer<f8E4M3FN, block_scaling_dim = 1>, rowwise>
  }
  func.func @block1d_columnwise_256x256(%x: tensor<256x256xbf16>) -> !teq.proto<256x256xbf16, #teq.float8_block_quantizer<f8E4M3FN, block_scaling_dim = 1>, columnwise> {
    %q = teq.quantize %x : tensor<256x256xbf16> -> !teq.proto<256x256xbf16, #teq.float8_block_quantizer<f8E4M3FN, block_scaling_dim = 1>, columnwise>
    return %q : !teq.proto<256x256xbf16, #teq.float8_block_quantizer<f8E4M3FN, block_scaling_dim = 1>, columnwise>
  }
  func.func @block2d_f32in_256x256(%x: tensor<256x256xf32>) -> !teq.proto<256x256xf32, #teq.float8_block_quantizer<f8E4M3FN, block_scaling_dim = 2>, rowwise|columnwise> {
    %q = teq.quantize %x : tensor<256x256xf32> -> !teq.proto<256x256xf32, #teq.float8_block_quantizer<f8E4M3FN, block_scaling_dim = 2>, rowwise|columnwise>
    return %q : !teq.proto<256x256xf32, #teq.float8_block_quantizer<f8E4M3FN, block_scaling_dim = 2>, rowwise|columnwise>
  }
  func.func @block2d_f32scales_256x256(%x: tensor<256x256xbf16>) -> !teq.proto<256x256xbf16, #teq.float8_block_quantizer<f8E4M3FN, block_scaling_dim = 2, force_pow_2_scales = false>, rowwise|columnwise> {
    %q = teq.quantize %x : tensor<256x256xbf16> -> !teq.proto<256x256xbf16, #teq.float8_block_quantizer<f8E4M3FN, block_scaling_dim = 2, force_pow_2_scales = false>, rowwise|columnwise>
    return %q : !teq.proto<256x256xbf16, #teq.float8_block_quantizer<f8E4M3FN, block_scaling_dim = 2, force_pow_2_scales = false>, rowwise|columnwise>
  }
  func.func @block2d_eps_256x256(%x: tensor<256x256xbf16>) -> !teq.proto<256x256xbf16, #teq.float8_block_quantizer<f8E4M3FN, block_scaling_dim = 2, amax_epsilon = 1.0>, rowwise|columnwise> {
    %q = teq.quantize %x : tensor<256x256xbf16> -> !teq.proto<256x256xbf16, #teq.float8_block_quantizer<f8E4M3FN, block_scaling_dim = 2, amax_epsilon = 1.0>, rowwise|columnwise>
    return %q : !teq.proto<256x256xbf16, #teq.float8_block_quantizer<f8E4M3FN, block_scaling_dim = 2, amax_epsilon = 1.0>, rowwise|columnwise>
  }
  func.func @block2d_rowwise_256x256(%x: tensor<256x256xbf16>) -> !teq.proto<256x256xbf16, #teq.float8_block_quantizer<f8E4M3FN, block_scaling_dim = 2>, rowwise> {
    %q = teq.quantize %x : tensor<256x256xbf16> -> !teq.proto<256x256xbf16, #teq.float8_block_quantizer<f8E4M3FN, block_scaling_dim = 2>, rowwise>
    return %q : !teq.proto<256x256xbf16, #teq.float8_block_quantizer<f8E4M3FN, block_scaling_dim = 2>, rowwise>
  }
  func.func @block2d_columnwise_256x256(%x: tensor<256x256xbf16>) -> !teq.proto<256x256xbf16, #teq.float8_block_quantizer<f8E4M3FN, block_scaling_dim = 2>, columnwise> {
    %q = teq.quantize %x : tensor<256x256xbf16> -> !teq.proto<256x256xbf16, #teq.float8_block_quantizer<f8E4M3FN, block_scaling_dim = 2>, columnwise>
    return %q : !teq.proto<256x256xbf16, #teq.float8_block_quantizer<f8E4M3FN, block_scaling_dim = 2>, columnwise>
  }
  func.func @block1d_f32in_303x300(%x: tensor<303x300xf32>) -> !teq.proto<303x300xf32, #teq.float8_block_quantizer<f8E4M3FN, block_scaling_dim = 1>, rowwise|columnwise> {
    %q = teq.quantize %x : tensor<303x300xf32> -> !teq.proto<303x300xf32, #teq.float8_block_quantizer<f8E4M3FN, block_scaling_dim = 1>, rowwise|columnwise>
    return %q : !teq.proto<303x300xf32, #teq.float8_block_quantizer<f8E4M3FN, block_scaling_dim = 1>, rowwise|columnwise>
  }
  func.func @block1d_f32scales_303x300(%x: tensor<303x300xbf16>) -> !teq.proto<303x300xbf16, #teq.float8_block_quantizer<f8E4M3FN, block_scaling_dim = 1, force_pow_2_scales = false>, rowwise|columnwise> {
    %q = teq.quantize %x : tensor<303x300xbf16> -> !teq.proto<303x300xbf16, #teq.float8_block_quantizer<f8E4M3FN, block_scaling_dim = 1, force_pow_2_scales = false>, rowwise|columnwise>
    return %q : !teq.proto<303x300xbf16, #teq.float8_block_quantizer<f8E4M3FN, block_scaling_dim = 1, force_pow_2_scales = false>, rowwise|columnwise>
  }
  func.func @block1d_eps_303x300(%x: tensor<303x300xbf16>) -> !teq.proto<303x300xbf16, #teq.float8_block_quantizer<f8E4M3FN, block_scaling_dim = 1, amax_epsilon = 1.0>, rowwise|columnwise> {
    %q = teq.quantize %x : tensor<303x300xbf16> -> !teq.proto<303x300xbf16, #teq.float8_block_quantizer<f8E4M3FN, block_scaling_dim = 1, amax_epsilon = 1.0>, rowwise|columnwise>
    return %q : !teq.proto<303x300xbf16, #teq.float8_block_quantizer<f8E4M3FN, block_scaling_dim = 1, amax_epsilon = 1.0>, rowwise|columnwise>
  }
  func.func @block1d_rowwise_303x300(%x: tensor<303x300xbf16>) -> !teq.proto<303x300xbf16, #teq.float8_block_quantizer<f8E4M3FN, block_scaling_dim = 1>, rowwise> {
    %q = teq.quantize %x : tensor<303x300xbf16> -> !teq.proto<303x300xbf16, #teq.float8_block_quantizer<f8E4M3FN, block_scaling_dim = 1>, rowwise>
    return %q : !teq.proto<303x300xbf16, #teq.float8_block_quantizer<f8E4M3FN, block_scaling_dim = 1>, rowwise>
  }
  func.func @block1d_columnwise_303x300(%x: tensor<303x300xbf16>) -> !teq.proto<303x300xbf16, #teq.float8_block_quantizer<f8E4M3FN, block_scaling_dim = 1>, columnwise> {
    %q = teq.quantize %x : tensor<303x300xbf16> -> !teq.proto<303x300xbf16, #teq.float8_block_quantizer<f8E4M3FN, block_scaling_dim = 1>, columnwise>
    return %q : !teq.proto<303x300xbf16, #teq.float8_block_quantizer<f8E4M3FN, block_scaling_dim = 1>, columnwise>
  }
  func.func @block2d_f32in_303x300(%x: tensor<303x300xf32>) -> !teq.proto<303x300xf32, #teq.float8_block_quantizer<f8E4M3FN, block_scaling_dim = 2>, rowwise|columnwise> {
    %q = teq.quantize %x : tensor<303x300xf32> -> !teq.proto<303x300xf32, #teq.float8_block_quantizer<f8E4M3FN, block_scaling_dim = 2>, rowwise|columnwise>
    return %q : !teq.proto<303x300xf32, #teq.float8_block_quantizer<f8E4M3FN, block_scaling_dim = 2>, rowwise|columnwise>
  }
  func.func @block2d_f32scales_303x300(%x: tensor<303x300xbf16>) -> !teq.proto<303x300xbf16, #teq.float8_block_quantizer<f8E4M3FN, block_scaling_dim = 2, force_pow_2_scales = false>, rowwise|columnwise> {
    %q = teq.quantize %x : tensor<303x300xbf16> -> !teq.proto<303x300xbf16, #teq.float8_block_quantizer<f8E4M3FN, block_scaling_dim = 2, force_pow_2_scales = false>, rowwise|columnwise>
    return %q : !teq.proto<303x300xbf16, #teq.float8_block_quantizer<f8E4M3FN, block_scaling_dim = 2, force_pow_2_scales = false>, rowwise|columnwise>
  }
  func.func @block2d_eps_303x300(%x: tensor<303x300xbf16>) -> !teq.proto<303x300xbf16, #teq.float8_block_quantizer<f8E4M3FN, block_scaling_dim = 2, amax_epsilon = 1.0>, rowwise|columnwise> {
    %q = teq.quantize %x : tensor<303x300xbf16> -> !teq.proto<303x300xbf16, #teq.float8_block_quantizer<f8E4M3FN, block_scaling_dim = 2, amax_epsilon = 1.0>, rowwise|columnwise>
    return %q : !teq.proto<303x300xbf16, #teq.float8_block_quantizer<f8E4M3FN, block_scaling_dim = 2, amax_epsilon = 1.0>, rowwise|columnwise>
  }
  func.func @block2d_rowwise_303x300(%x: tensor<303x300xbf16>) -> !teq.proto<303x300xbf16, #teq.float8_block_quantizer<f8E4M3FN, block_scaling_dim = 2>, rowwise> {
    %q = teq.quantize %x : tensor<303x300xbf16> -> !teq.proto<303x300xbf16, #teq.float8_block_quantizer<f8E4M3FN, block_scaling_dim = 2>, rowwise>
    return %q : !teq.proto<303x300xbf16, #teq.float8_block_quantizer<f8E4M3FN, block_scaling_dim = 2>, rowwise>
  }
  func.func @block2d_columnwise_303x300(%x: tensor<303x300xbf16>) -> !teq.proto<303x300xbf16, #teq.float8_block_quantizer<f8E4M3FN, block_scaling_dim = 2>, columnwise> {
    %q = teq.quantize %x : tensor<303x300xbf16> -> !teq.proto<303x300xbf16, #teq.float8_block_quantizer<f8E4M3FN, block_scaling_dim = 2>, columnwise>
    return %q : !teq.proto<303x300xbf16, #teq.float8_block_quantizer<f8E4M3FN, block_scaling_dim = 2>, columnwise>
  }
  func.func @block1d_f32in_2048x1024(%x: tensor<2048x1024xf32>) -> !teq.proto<2048x1024xf32, #teq.float8_block_quantizer<f8E4M3FN, block_scaling_dim = 1>, rowwise|columnwise> {
    %q = teq.quantize %x : tensor<2048x1024xf32> -> !teq.proto<2048x1024xf32, #teq.float8_block_quantizer<f8E4M3FN, block_scaling_dim = 1>, rowwise|columnwise>
    return %q : !teq.proto<2048x1024xf32, #teq.float8_block_quantizer<f8E4M3FN, block_scaling_dim = 1>, rowwise|columnwise>
  }
  func.func @block1d_f32scales_2048x1024(%x: tensor<2048x1024xbf16>) -> !teq.proto<2048x1024xbf16, #teq.float8_block_quantizer<f8E4M3FN, block_scaling_dim = 1, force_pow_2_scales = false>, rowwise|columnwise> {
    %q = teq.quantize %x : tensor<2048x1024xbf16> -> !teq.proto<2048x1024xbf16, #teq.float8_block_quantizer<f8E4M3FN, block_scaling_dim = 1, force_pow_2_scales = false>, rowwise|columnwise>
    return %q : !teq.proto<2048x1024xbf16, #teq.float8_block_quantizer<f8E4M3FN, block_scaling_dim = 1, force_pow_2_scales = false>, rowwise|columnwise>
  }
  func.func @block1d_eps_2048x1024(%x: tensor<2048x1024xbf16>) -> !teq.proto<2048x1024xbf16, #teq.float8_block_quantizer<f8E4M3FN, block_scaling_dim = 1, amax_epsilon = 1.0>, rowwise|columnwise> {
    %q = teq.quantize %x : tensor<2048x1024xbf16> -> !teq.proto<2048x1024xbf16, #teq.float8_block_quantizer<f8E4M3FN, block_scaling_dim = 1, amax_epsilon = 1.0>, rowwise|columnwise>
    return %q : !teq.proto<2048x1024xbf16, #teq.float8_block_quantizer<f8E4M3FN, block_scaling_dim = 1, amax_epsilon = 1.0>, rowwise|columnwise>
  }
  func.func @block1d_rowwise_2048x1024(%x: tensor<2048x1024xbf16>) -> !teq.proto<2048x1024xbf16, #teq.float8_block_quantizer<f8E4M3FN, block_scaling_dim = 1>, rowwise> {
    %q = teq.quantize %x : tensor<2048x1024xbf16> -> !teq.proto<2048x1024xbf16, #teq.float8_block_quantizer<f8E4M3FN, block_scaling_dim = 1>, rowwise>
    return %q : !teq.proto<2048x1024xbf16, #teq.float8_block_quantizer<f8E4M3FN, block_scaling_dim = 1>, rowwise>
  }
  func.func @block1d_columnwise_2048x1024(%x: tensor<2048x1024xbf16>) -> !teq.proto<2048x1024xbf16, #teq.float8_block_quantizer<f8E4M3FN, block_scaling_dim = 1>, columnwise> {
    %q = teq.quantize %x : tensor<2048x1024xbf16> -> !teq.proto<2048x1024xbf16, #teq.float8_block_quantizer<f8E4M3FN, block_scaling_dim = 1>, columnwise>
    return %q : !teq.proto<2048x1024xbf16, #teq.float8_block_quantizer<f8E4M3FN, block_scaling_dim = 1>, columnwise>
  }
  func.func @block2d_f32in_2048x1024(%x: tensor<2048x1024xf32>) -> !teq.proto<2048x1024xf32, #teq.float8_block_quantizer<f8E4M3FN, block_scaling_dim = 2>, rowwise|columnwise> {
    %q = teq.quantize %x : tensor<2048x1024xf32> -> !teq.proto<2048x1024xf32, #teq.float8_block_quantizer<f8E4M3FN, block_scaling_dim = 2>, rowwise|columnwise>
    return %q : !teq.proto<2048x1024xf32, #teq.float8_block_quantizer<f8E4M3FN, block_scaling_dim = 2>, rowwise|columnwise>
  }
  func.func @block2d_f32scales_2048x1024(%x: tensor<2048x1024xbf16>) -> !teq.proto<2048x1024xbf16, #teq.float8_block_quantizer<f8E4M3FN, block_scaling_dim = 2, force_pow_2_scales = false>, rowwise|columnwise> {
    %q = teq.quantize %x : tensor<2048x1024xbf16> -> !teq.proto<2048x1024xbf16, #teq.float8_block_quantizer<f8E4M3FN, block_scaling_dim = 2, force_pow_2_scales = false>, rowwise|columnwise>
    return %q : !teq.proto<2048x1024xbf16, #teq.float8_block_quantizer<f8E4M3FN, block_scaling_dim = 2, force_pow_2_scales = false>, rowwise|columnwise>
  }
  func.func @block2d_eps_2048x1024(%x: tensor<2048x1024xbf16>) -> !teq.proto<2048x1024xbf16, #teq.float8_block_quantizer<f8E4M3FN, block_scaling_dim = 2, amax_epsilon = 1.0>, rowwise|columnwise> {
    %q = teq.quantize %x : tensor<2048x1024xbf16> -> !teq.proto<2048x1024xbf16, #teq.float8_block_quantizer<f8E4M3FN, block_scaling_dim = 2, amax_epsilon = 1.0>, rowwise|columnwise>
    return %q : !teq.proto<2048x1024xbf16, #teq.float8_block_quantizer<f8E4M3FN, block_scaling_dim = 2, amax_epsilon = 1.0>, rowwise|columnwise>
  }
  func.func @block2d_rowwise_2048x1024(%x: tensor<2048x1024xbf16>) -> !teq.proto<2048x1024xbf16, #teq.float8_block_quantizer<f8E4M3FN, block_scaling_dim = 2>, rowwise> {
    %q = teq.quantize %x : tensor<2048x1024xbf16> -> !teq.proto<2048x1024xbf16, #teq.float8_block_quantizer<f8E4M3FN, block_scaling_dim = 2>, rowwise>
    return %q : !teq.proto<2048x1024xbf16, #teq.float8_block_quantizer<f8E4M3FN, block_scaling_dim = 2>, rowwise>
  }
  func.func @block2d_columnwise_2048x1024(%x: tensor<2048x1024xbf16>) -> !teq.proto<2048x1024xbf16, #teq.float8_block_quantizer<f8E4M3FN, block_scaling_dim = 2>, columnwise> {
    %q = teq.quantize %x : tensor<2048x1024xbf16> -> !teq.proto<2048x1024xbf16, #teq.float8_block_quantizer<f8E4M3FN, block_scaling_dim = 2>, columnwise>
    return %q : !teq.proto<2048x1024xbf16, #teq.float8_block_quantizer<f8E4M3FN, block_scaling_dim = 2>, columnwise>
  }
}
