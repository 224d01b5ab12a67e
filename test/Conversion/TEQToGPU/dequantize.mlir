// teq.dequantize of per-tensor FP8 lowers to one kernel (Kernels/Dequantize.h:
// the code decoded exactly, times scale_inv in f32, rounded once to the
// result's dtype; bit-exact on every code in unittests/Conversion's CPU
// emulation); the manifest describes the result as computed by "dequantize".
// Other formats, and an input without its rowwise copy, are refused at the op.
// RUN: split-file --leading-lines %s %t
// RUN: te-opt %t/ok.mlir --convert-teq-to-gpu | FileCheck %s
// RUN: te-compile %t/ok.mlir --emit=manifest | FileCheck %s --check-prefix=MANIFEST
// RUN: not te-opt %t/errors.mlir --convert-teq-to-gpu --split-input-file 2>&1 | FileCheck %s --check-prefix=ERR

//--- ok.mlir
module attributes {teq.target = #teq.target<sm_90>} {
  func.func @f(%q: !teq.proto<64x128xbf16, #teq.float8_current_scaling_quantizer<f8E4M3FN>, rowwise> {teq.name = "q"}) -> tensor<64x128xbf16> {
    %x = teq.dequantize %q : !teq.proto<64x128xbf16, #teq.float8_current_scaling_quantizer<f8E4M3FN>, rowwise> -> tensor<64x128xbf16>
    return %x : tensor<64x128xbf16>
  }
}
// CHECK-LABEL: gpu.func @d0_dequantize(
// CHECK-SAME: %[[CODES:[^:]*]]: memref<8192xi8>, %[[SCALE:[^:]*]]: memref<1xf32>, %[[OUT:[^:]*]]: memref<8192xbf16>)
// CHECK: %[[S:.*]] = memref.load %[[SCALE]]
// CHECK: scf.for
// CHECK: %[[CODE:.*]] = memref.load %[[CODES]]
// CHECK: %[[BITS:.*]] = arith.extui %[[CODE]] : i8 to i32
// CHECK: %[[V:.*]] = arith.bitcast %{{.*}} : i32 to f32
// CHECK-NEXT: %[[P:.*]] = arith.mulf %[[V]], %[[S]] : f32
// CHECK-NEXT: %[[B:.*]] = arith.truncf %[[P]] : f32 to bf16
// CHECK-NEXT: memref.store %[[B]], %[[OUT]]
// CHECK: gpu.launch_func async [%{{.*}}] @teq_kernels::@d0_dequantize
// MANIFEST: "computed_by": {
// MANIFEST-NEXT: "input": "q",
// MANIFEST-NEXT: "op": "dequantize"

//--- errors.mlir
module attributes {teq.target = #teq.target<sm_100a>} {
  func.func @mxfp8(%q: !teq.proto<64x128xbf16, #teq.mxfp8_quantizer<f8E4M3FN>, rowwise>) -> tensor<64x128xbf16> {
    // ERR: errors.mlir:[[# @LINE + 1]]:10: error: 'teq.dequantize' op of a MXFP8Quantizer tensor has no GPU lowering yet (per-tensor FP8 only: Float8CurrentScalingQuantizer, Float8Quantizer)
    %x = teq.dequantize %q : !teq.proto<64x128xbf16, #teq.mxfp8_quantizer<f8E4M3FN>, rowwise> -> tensor<64x128xbf16>
    return %x : tensor<64x128xbf16>
  }
}
// -----
module attributes {teq.target = #teq.target<sm_90>} {
  func.func @columnwise(%q: !teq.proto<64x128xbf16, #teq.float8_current_scaling_quantizer<f8E4M3FN>, columnwise>) -> tensor<64x128xbf16> {
    // ERR: errors.mlir:[[# @LINE + 1]]:10: error: 'teq.dequantize' op reads the rowwise copy, which the input lacks (usage columnwise)
    %x = teq.dequantize %q : !teq.proto<64x128xbf16, #teq.float8_current_scaling_quantizer<f8E4M3FN>, columnwise> -> tensor<64x128xbf16>
    return %x : tensor<64x128xbf16>
  }
}
