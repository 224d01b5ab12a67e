// What cuBLASLt (or this lowering) cannot run is reported at the teq.gemm.
// RUN: split-file %s %t
// RUN: not te-compile %t/leading-dim.mlir --emit=mlir 2>&1 | FileCheck %s --check-prefix=LD
// RUN: not te-compile %t/mxfp8-hopper.mlir --emit=mlir 2>&1 | FileCheck %s --check-prefix=MXHOPPER
// RUN: not te-compile %t/block-blackwell.mlir --emit=mlir 2>&1 | FileCheck %s --check-prefix=BLOCKSM100
// RUN: not te-compile %t/block-m.mlir --emit=mlir 2>&1 | FileCheck %s --check-prefix=BLOCKM
// RUN: not te-compile %t/dynamic-slice.mlir --emit=mlir 2>&1 | FileCheck %s --check-prefix=SLICE

//--- leading-dim.mlir
// LD: leading-dim.mlir:{{[0-9]+}}:10: error: 'teq.gemm' op cuBLASLt FP8 GEMMs need leading dimensions that are multiples of 16; this GEMM has lda = 40 and ldb = 40 (m = 32, n = 32, k = 40); pad the tensors
module attributes {teq.target = #teq.target<sm_90>} {
  func.func @f(%a: !teq.proto<32x40xbf16, #teq.float8_current_scaling_quantizer<f8E4M3FN>, rowwise>, %b: !teq.proto<32x40xbf16, #teq.float8_current_scaling_quantizer<f8E4M3FN>, rowwise>) -> tensor<32x32xbf16> {
    %y = teq.gemm TN %a, %b : !teq.proto<32x40xbf16, #teq.float8_current_scaling_quantizer<f8E4M3FN>, rowwise>, !teq.proto<32x40xbf16, #teq.float8_current_scaling_quantizer<f8E4M3FN>, rowwise> -> tensor<32x32xbf16>
    return %y : tensor<32x32xbf16>
  }
}

//--- mxfp8-hopper.mlir
// MXHOPPER: error: 'teq.gemm' op MXFP8 GEMMs need sm_100 or newer, the module targets sm_90
module attributes {teq.target = #teq.target<sm_90>} {
  func.func @f(%a: !teq.proto<64x64xbf16, #teq.mxfp8_quantizer<f8E4M3FN>, rowwise, gemm_swizzled>, %b: !teq.proto<64x64xbf16, #teq.mxfp8_quantizer<f8E4M3FN>, rowwise, gemm_swizzled>) -> tensor<64x64xbf16> {
    %y = teq.gemm TN %a, %b : !teq.proto<64x64xbf16, #teq.mxfp8_quantizer<f8E4M3FN>, rowwise, gemm_swizzled>, !teq.proto<64x64xbf16, #teq.mxfp8_quantizer<f8E4M3FN>, rowwise, gemm_swizzled> -> tensor<64x64xbf16>
    return %y : tensor<64x64xbf16>
  }
}

//--- block-blackwell.mlir
// BLOCKSM100: error: 'teq.gemm' op FP8 block-scaled GEMMs on sm_100 run as MXFP8 after a scale conversion that has no lowering yet; FP8 block-scaled GEMMs are lowered for sm_89/sm_90
module attributes {teq.target = #teq.target<sm_100>} {
  func.func @f(%a: !teq.proto<128x128xbf16, #teq.float8_block_quantizer<f8E4M3FN>, rowwise>, %b: !teq.proto<128x128xbf16, #teq.float8_block_quantizer<f8E4M3FN, block_scaling_dim = 1>, rowwise>) -> tensor<128x128xbf16> {
    %y = teq.gemm TN %a, %b : !teq.proto<128x128xbf16, #teq.float8_block_quantizer<f8E4M3FN>, rowwise>, !teq.proto<128x128xbf16, #teq.float8_block_quantizer<f8E4M3FN, block_scaling_dim = 1>, rowwise> -> tensor<128x128xbf16>
    return %y : tensor<128x128xbf16>
  }
}

//--- block-m.mlir
// BLOCKM: error: 'teq.gemm' op FP8 block-scaled GEMMs need m % 8 == 0 (cuBLASLt), got m = 20
module attributes {teq.target = #teq.target<sm_90>} {
  func.func @f(%a: !teq.proto<20x128xbf16, #teq.float8_block_quantizer<f8E4M3FN>, rowwise>, %b: !teq.proto<64x128xbf16, #teq.float8_block_quantizer<f8E4M3FN, block_scaling_dim = 1>, rowwise>) -> tensor<64x20xbf16> {
    %y = teq.gemm TN %a, %b : !teq.proto<20x128xbf16, #teq.float8_block_quantizer<f8E4M3FN>, rowwise>, !teq.proto<64x128xbf16, #teq.float8_block_quantizer<f8E4M3FN, block_scaling_dim = 1>, rowwise> -> tensor<64x20xbf16>
    return %y : tensor<64x20xbf16>
  }
}

//--- dynamic-slice.mlir
// SLICE: error: 'tensor.extract_slice' op has dynamic offsets, sizes or strides; only static slices are lowered
module attributes {teq.target = #teq.target<sm_90>} {
  func.func @f(%h: tensor<16x3xf32>, %i: index) -> tensor<16xf32> {
    %s = tensor.extract_slice %h[0, %i] [16, 1] [1, 1] : tensor<16x3xf32> to tensor<16xf32>
    return %s : tensor<16xf32>
  }
}
