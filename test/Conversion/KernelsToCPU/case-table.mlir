// RUN: te-opt %s --convert-teq-to-gpu --teq-test-kernels-to-cpu="per-thread case-table=%t.inc" -o /dev/null
// RUN: FileCheck %s --input-file %t.inc

// case-table: TileKernelEmulationTest's cases, one per entry, from the
// manifest (the quantization) and the launches (the kernel reading the
// entry's input, its arguments and workgroup bytes).

// CHECK:      #ifdef TEQ_TILE_KERNEL
// CHECK-NEXT: TEQ_TILE_KERNEL([[BLOCK:.*]])
// CHECK-NEXT: TEQ_TILE_KERNEL([[MX:.*]])
// CHECK-NEXT: #else
// CHECK-NEXT: {"block: !teq.proto<300x256xbf16, #teq.float8_block_quantizer<f8E4M3FN, block_scaling_dim = 1>, rowwise|columnwise>", _mlir_ciface_[[BLOCK]], 5, {{[{][0-9, ]+[}]}}, {300, 256}, DType::BF16, layout::Format::BlockFP8_1D, false, true, true, false, true, 0.000000000e+00f, false, false, false},
// CHECK-NEXT: {"mx: !teq.proto<64x64xf16, #teq.mxfp8_quantizer<f8E5M2, with_2d_quantization = true>, rowwise, gemm_swizzled>", _mlir_ciface_[[MX]], 3, {{[{][0-9, ]*[}]}}, {64, 64}, DType::F16, layout::Format::MXFP8, true, true, false, true, false, 0.000000000e+00f, true, false, false},
// CHECK-NEXT: #endif

module attributes {teq.target = #teq.target<sm_90>} {
  func.func @block(%x: tensor<300x256xbf16>) -> !teq.proto<300x256xbf16, #teq.float8_block_quantizer<f8E4M3FN, block_scaling_dim = 1>, rowwise|columnwise> {
    %q = teq.quantize %x : tensor<300x256xbf16> -> !teq.proto<300x256xbf16, #teq.float8_block_quantizer<f8E4M3FN, block_scaling_dim = 1>, rowwise|columnwise>
    return %q : !teq.proto<300x256xbf16, #teq.float8_block_quantizer<f8E4M3FN, block_scaling_dim = 1>, rowwise|columnwise>
  }
  func.func @mx(%x: tensor<64x64xf16>) -> !teq.proto<64x64xf16, #teq.mxfp8_quantizer<f8E5M2, with_2d_quantization = true>, rowwise, gemm_swizzled> {
    %q = teq.quantize %x : tensor<64x64xf16> -> !teq.proto<64x64xf16, #teq.mxfp8_quantizer<f8E5M2, with_2d_quantization = true>, rowwise, gemm_swizzled>
    return %q : !teq.proto<64x64xf16, #teq.mxfp8_quantizer<f8E5M2, with_2d_quantization = true>, rowwise, gemm_swizzled>
  }
}
