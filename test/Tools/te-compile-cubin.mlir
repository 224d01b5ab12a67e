// REQUIRES: ptxas
// te-compile --device-code=cubin embeds a cubin built by ptxas; the manifest
// says so, and the artifact loads it with mgpuModuleLoad (no JIT).
// RUN: te-compile %s --device-code=cubin --emit=llvm | FileCheck %s
// RUN: te-compile %s --device-code=ptx --emit=llvm | FileCheck %s --check-prefix=PTX

module attributes {teq.target = #teq.target<sm_90>} {
  func.func @quantize(%x: tensor<64x128xbf16>) -> !teq.proto<64x128xbf16, #teq.float8_current_scaling_quantizer<f8E5M2>, rowwise> {
    %q = teq.quantize %x : tensor<64x128xbf16> -> !teq.proto<64x128xbf16, #teq.float8_current_scaling_quantizer<f8E5M2>, rowwise>
    return %q : !teq.proto<64x128xbf16, #teq.float8_current_scaling_quantizer<f8E5M2>, rowwise>
  }
}

// CHECK: \22device_code\22:\22cubin\22
// CHECK: call ptr @mgpuModuleLoad(
// PTX: \22device_code\22:\22ptx\22
// PTX: call ptr @mgpuModuleLoadJIT(
