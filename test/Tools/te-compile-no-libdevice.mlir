// Kernels need no CUDA toolkit: nothing in the PTX calls libdevice (without
// the toolkit, te-compile cannot link it and the module would not load).
// Each quantize path, with CUDA_HOME unset as on a machine without CUDA.
// RUN: env -u CUDA_HOME te-compile %s --emit=ptx | FileCheck %s --implicit-check-not=__nv_
// CHECK-DAG: .visible .entry q0_cast(
// CHECK-DAG: .visible .entry q1_nvfp4(
// CHECK-DAG: .visible .entry q2_nvfp4(
// CHECK-DAG: .visible .entry q3_rht_amax(
// CHECK-DAG: .visible .entry q3_nvfp4(
// CHECK-DAG: .visible .entry q4_mxfp8(
// CHECK-DAG: .visible .entry q5_block(
// Elementwise ops that convert-gpu-to-nvvm would make libdevice calls, in f32
// and bf16 (the IR patterns of Kernels/LibdeviceFree rewrite them).
// CHECK-DAG: .visible .entry e{{[0-9]+}}_absf(
// CHECK-DAG: .visible .entry e{{[0-9]+}}_maxnumf(
// CHECK-DAG: .visible .entry e{{[0-9]+}}_maximumf(
// tanh and erf are polynomials of fmas (llvm.intr.fma: fma.rn, exact);
// minnumf is a select like maxnumf.
// CHECK-DAG: .visible .entry e{{[0-9]+}}_tanh(
// CHECK-DAG: .visible .entry e{{[0-9]+}}_erf(
// CHECK-DAG: .visible .entry e{{[0-9]+}}_truncf_minnumf(
// CHECK-DAG: fma.rn.f32
// RUN: te-compile %s --emit=mlir | FileCheck %s --check-prefix=MLIR
// MLIR-NOT: = math.absf
// MLIR-NOT: = arith.maxnumf
// MLIR-NOT: = arith.minnumf
// MLIR-NOT: = math.fma


module attributes {teq.target = #teq.target<sm_90>} {
  func.func @current(%x: tensor<128x256xbf16>) -> !teq.proto<128x256xbf16, #teq.float8_current_scaling_quantizer<f8E4M3FN>, rowwise|columnwise> {
    %q = teq.quantize %x : tensor<128x256xbf16> -> !teq.proto<128x256xbf16, #teq.float8_current_scaling_quantizer<f8E4M3FN>, rowwise|columnwise>
    return %q : !teq.proto<128x256xbf16, #teq.float8_current_scaling_quantizer<f8E4M3FN>, rowwise|columnwise>
  }
  func.func @nvfp4_1d(%x: tensor<128x128xbf16>) -> !teq.proto<128x128xbf16, #teq.nvfp4_quantizer<f4E2M1FN>, rowwise|columnwise, gemm_swizzled> {
    %q = teq.quantize %x : tensor<128x128xbf16> -> !teq.proto<128x128xbf16, #teq.nvfp4_quantizer<f4E2M1FN>, rowwise|columnwise, gemm_swizzled>
    return %q : !teq.proto<128x128xbf16, #teq.nvfp4_quantizer<f4E2M1FN>, rowwise|columnwise, gemm_swizzled>
  }
  func.func @nvfp4_2d(%x: tensor<128x128xbf16>) -> !teq.proto<128x128xbf16, #teq.nvfp4_quantizer<f4E2M1FN, with_2d_quantization = true>, rowwise|columnwise> {
    %q = teq.quantize %x : tensor<128x128xbf16> -> !teq.proto<128x128xbf16, #teq.nvfp4_quantizer<f4E2M1FN, with_2d_quantization = true>, rowwise|columnwise>
    return %q : !teq.proto<128x128xbf16, #teq.nvfp4_quantizer<f4E2M1FN, with_2d_quantization = true>, rowwise|columnwise>
  }
  func.func @nvfp4_rht_sr(%x: tensor<128x128xbf16>, %rng: tensor<2xi64>) -> !teq.proto<128x128xbf16, #teq.nvfp4_quantizer<f4E2M1FN, with_rht = true, with_post_rht_amax = true, stochastic_rounding = true>, rowwise|columnwise, gemm_swizzled> {
    %q = teq.quantize %x rng_state(%rng : tensor<2xi64>) : tensor<128x128xbf16> -> !teq.proto<128x128xbf16, #teq.nvfp4_quantizer<f4E2M1FN, with_rht = true, with_post_rht_amax = true, stochastic_rounding = true>, rowwise|columnwise, gemm_swizzled>
    return %q : !teq.proto<128x128xbf16, #teq.nvfp4_quantizer<f4E2M1FN, with_rht = true, with_post_rht_amax = true, stochastic_rounding = true>, rowwise|columnwise, gemm_swizzled>
  }
  func.func @mxfp8(%x: tensor<128x128xbf16>) -> !teq.proto<128x128xbf16, #teq.mxfp8_quantizer<f8E4M3FN>, rowwise|columnwise> {
    %q = teq.quantize %x : tensor<128x128xbf16> -> !teq.proto<128x128xbf16, #teq.mxfp8_quantizer<f8E4M3FN>, rowwise|columnwise>
    return %q : !teq.proto<128x128xbf16, #teq.mxfp8_quantizer<f8E4M3FN>, rowwise|columnwise>
  }
  func.func @block(%x: tensor<128x128xbf16>) -> !teq.proto<128x128xbf16, #teq.float8_block_quantizer<f8E4M3FN, block_scaling_dim = 1>, rowwise|columnwise> {
    %q = teq.quantize %x : tensor<128x128xbf16> -> !teq.proto<128x128xbf16, #teq.float8_block_quantizer<f8E4M3FN, block_scaling_dim = 1>, rowwise|columnwise>
    return %q : !teq.proto<128x128xbf16, #teq.float8_block_quantizer<f8E4M3FN, block_scaling_dim = 1>, rowwise|columnwise>
  }
  func.func @elementwise(%a: tensor<64x64xf32>, %b: tensor<64x64xbf16>, %c: tensor<64x64xbf16>) -> (tensor<64x64xf32>, tensor<64x64xbf16>, tensor<64x64xbf16>) {
    %0 = math.absf %a : tensor<64x64xf32>
    %1 = arith.maxnumf %b, %c : tensor<64x64xbf16>
    %2 = arith.maximumf %b, %c : tensor<64x64xbf16>
    return %0, %1, %2 : tensor<64x64xf32>, tensor<64x64xbf16>, tensor<64x64xbf16>
  }
  func.func @polynomials(%a: tensor<64x64xf32>, %b: tensor<64x64xbf16>, %c: tensor<64x64xbf16>) -> (tensor<64x64xf32>, tensor<64x64xbf16>, tensor<64x64xbf16>) {
    %0 = math.tanh %a : tensor<64x64xf32>
    %1 = math.erf %b : tensor<64x64xbf16>
    %2 = arith.minnumf %a, %a : tensor<64x64xf32>
    %3 = arith.truncf %2 : tensor<64x64xf32> to tensor<64x64xbf16>
    %4 = arith.minnumf %3, %c : tensor<64x64xbf16>
    return %0, %1, %4 : tensor<64x64xf32>, tensor<64x64xbf16>, tensor<64x64xbf16>
  }
}
