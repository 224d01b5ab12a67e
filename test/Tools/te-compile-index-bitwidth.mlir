// Kernels index in 32 bits where every memref they touch has at most 2^30
// elements (64-bit index arithmetic takes two instructions an operation),
// else in 64 bits: the amax kernel's index shifts and masks are 32-bit in
// the first case, 64-bit in the second (and with --kernel-index-bitwidth=64).
// RUN: split-file %s %t
// RUN: te-compile %t/small.mlir --emit=ptx | FileCheck %s --check-prefix=SMALL
// RUN: te-compile %t/large.mlir --emit=ptx | FileCheck %s --check-prefix=WIDE
// RUN: te-compile %t/small.mlir --emit=ptx --kernel-index-bitwidth=64 | FileCheck %s --check-prefix=WIDE

// SMALL-LABEL: .visible .entry q0_amax(
// SMALL-NOT: {{(shl|shr|and)\.[bu]64}}
// SMALL: ret;

// large.mlir: 32768 x 65536 = 2^31 elements.
// WIDE-LABEL: .visible .entry q0_amax(
// WIDE: {{(shl|shr|and)\.[bu]64}}
// WIDE: ret;

//--- small.mlir
module attributes {teq.target = #teq.target<sm_90>} {
  func.func @quantize(%x: tensor<128x256xbf16>) -> !teq.proto<128x256xbf16, #teq.float8_current_scaling_quantizer<f8E4M3FN>, rowwise> {
    %q = teq.quantize %x : tensor<128x256xbf16> -> !teq.proto<128x256xbf16, #teq.float8_current_scaling_quantizer<f8E4M3FN>, rowwise>
    return %q : !teq.proto<128x256xbf16, #teq.float8_current_scaling_quantizer<f8E4M3FN>, rowwise>
  }
}

//--- large.mlir
module attributes {teq.target = #teq.target<sm_90>} {
  func.func @quantize(%x: tensor<32768x65536xbf16>) -> !teq.proto<32768x65536xbf16, #teq.float8_current_scaling_quantizer<f8E4M3FN>, rowwise> {
    %q = teq.quantize %x : tensor<32768x65536xbf16> -> !teq.proto<32768x65536xbf16, #teq.float8_current_scaling_quantizer<f8E4M3FN>, rowwise>
    return %q : !teq.proto<32768x65536xbf16, #teq.float8_current_scaling_quantizer<f8E4M3FN>, rowwise>
  }
}
