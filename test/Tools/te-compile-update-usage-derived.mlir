// Found by the fuzzer (test/Fuzz/teq-fuzz.py): te-compile segfaulted on a
// teq.update_usage that adds a usage the verifier allows deriving but that
// needs a buffer its input lacks: the columnwise copy of a rowwise
// 128x128-block FP8 tensor, or the transposed copy of a rowwise per-tensor
// FP8 tensor on Hopper (or the rowwise copy of a columnwise one). That needs a transpose kernel; until there is one,
// convert-teq-to-gpu refuses it with a located error.
// RUN: split-file %s %t
// RUN: not te-compile %t/block.mlir --emit=mlir -o /dev/null 2>&1 | FileCheck %s --check-prefix=BLOCK
// RUN: not te-compile %t/hopper.mlir --emit=mlir -o /dev/null 2>&1 | FileCheck %s --check-prefix=HOPPER
// BLOCK: block.mlir:4:10: error: 'teq.update_usage' op derives buffer 'columnwise_data' its input does not hold (sm_100); deriving a usage has no GPU lowering yet: quantize with every usage the program reads
// RUN: not te-compile %t/rowwise.mlir --emit=mlir -o /dev/null 2>&1 | FileCheck %s --check-prefix=ROWWISE
// HOPPER: hopper.mlir:4:10: error: 'teq.update_usage' op derives buffer 'transpose' its input does not hold (sm_90)
// ROWWISE: rowwise.mlir:4:10: error: 'teq.update_usage' op derives buffer 'data' its input does not hold (sm_120a)

//--- block.mlir
module attributes {teq.target = #teq.target<sm_100>} {
  func.func @q(%x: tensor<256x128xbf16>) -> !teq.proto<256x128xbf16, #teq.float8_block_quantizer<f8E4M3FN>, columnwise> {
    %q = teq.quantize %x : tensor<256x128xbf16> -> !teq.proto<256x128xbf16, #teq.float8_block_quantizer<f8E4M3FN>, rowwise>
    %u = teq.update_usage %q : !teq.proto<256x128xbf16, #teq.float8_block_quantizer<f8E4M3FN>, rowwise> -> !teq.proto<256x128xbf16, #teq.float8_block_quantizer<f8E4M3FN>, columnwise>
    return %u : !teq.proto<256x128xbf16, #teq.float8_block_quantizer<f8E4M3FN>, columnwise>
  }
}

//--- hopper.mlir
module attributes {teq.target = #teq.target<sm_90>} {
  func.func @q(%x: tensor<256x128xbf16>) -> !teq.proto<256x128xbf16, #teq.float8_current_scaling_quantizer<f8E4M3FN>, columnwise> {
    %q = teq.quantize %x : tensor<256x128xbf16> -> !teq.proto<256x128xbf16, #teq.float8_current_scaling_quantizer<f8E4M3FN>, rowwise>
    %u = teq.update_usage %q : !teq.proto<256x128xbf16, #teq.float8_current_scaling_quantizer<f8E4M3FN>, rowwise> -> !teq.proto<256x128xbf16, #teq.float8_current_scaling_quantizer<f8E4M3FN>, columnwise>
    return %u : !teq.proto<256x128xbf16, #teq.float8_current_scaling_quantizer<f8E4M3FN>, columnwise>
  }
}

//--- rowwise.mlir
module attributes {teq.target = #teq.target<sm_120a>} {
  func.func @q(%x: tensor<64x64xbf16>) -> !teq.proto<64x64xbf16, #teq.float8_current_scaling_quantizer<f8E5M2>, rowwise|columnwise> {
    %q = teq.quantize %x : tensor<64x64xbf16> -> !teq.proto<64x64xbf16, #teq.float8_current_scaling_quantizer<f8E5M2>, columnwise>
    %u = teq.update_usage %q : !teq.proto<64x64xbf16, #teq.float8_current_scaling_quantizer<f8E5M2>, columnwise> -> !teq.proto<64x64xbf16, #teq.float8_current_scaling_quantizer<f8E5M2>, rowwise|columnwise>
    return %u : !teq.proto<64x64xbf16, #teq.float8_current_scaling_quantizer<f8E5M2>, rowwise|columnwise>
  }
}
