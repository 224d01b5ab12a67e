// Found by the fuzzer (test/Fuzz/teq-fuzz.py): te-compile segfaulted on a
// teq.update_usage that adds a usage the verifier allows deriving but that
// needs a buffer its input lacks: the columnwise copy of a rowwise
// 128x128-block FP8 tensor, or the transposed copy of a rowwise per-tensor
// FP8 tensor on Hopper (or the rowwise copy of a columnwise one). The
// transposed copy of per-tensor FP8 is now computed from the rowwise data by a
// transpose kernel (TE's order after an all-gather on Hopper); the others
// need kernels of their own, and convert-teq-to-gpu refuses them with a
// located error.
// RUN: split-file %s %t
// RUN: not te-compile %t/block.mlir --emit=mlir -o /dev/null 2>&1 | FileCheck %s --check-prefix=BLOCK
// RUN: te-compile %t/hopper.mlir --emit=mlir | FileCheck %s --check-prefix=HOPPER
// BLOCK: block.mlir:4:10: error: 'teq.update_usage' op derives buffer 'columnwise_data' its input does not hold (sm_100); deriving a usage has no GPU lowering yet: quantize with every usage the program reads
// RUN: not te-compile %t/rowwise.mlir --emit=mlir -o /dev/null 2>&1 | FileCheck %s --check-prefix=ROWWISE
// The rowwise data (a temporary) transposed into the result's transpose, the
// scale copied.
// HOPPER-LABEL: func.func @q(
// HOPPER-SAME: %{{[^:]*}}: memref<32768xbf16>, %[[T:[^:]*]]: memref<32768xi8>, %[[S:[^:]*]]: memref<1xf32>
// HOPPER: gpu.launch_func async {{.*}}_transpose {{.*}} args(%{{.*}} : memref<32768xi8>, %[[T]] : memref<32768xi8>)
// HOPPER: gpu.launch_func async {{.*}}_copy {{.*}} args(%{{.*}} : memref<1xf32>, %[[S]] : memref<1xf32>)
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
