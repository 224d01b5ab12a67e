// te-compile reports what it cannot do, with the op's location.
// RUN: split-file %s %t
// RUN: not te-compile %t/unsupported.mlir --emit=mlir 2>&1 | FileCheck %s --check-prefix=UNLOWERED
// RUN: not te-compile %t/no-target.mlir --emit=mlir 2>&1 | FileCheck %s --check-prefix=NOTARGET
// RUN: not te-compile %t/mxfp8-hopper.mlir --emit=mlir 2>&1 | FileCheck %s --check-prefix=MXFP8
// RUN: not te-compile %t/no-target.mlir --target=sm_7 --emit=mlir 2>&1 | FileCheck %s --check-prefix=BADCHIP
// RUN: not te-compile %t/missing.mlir 2>&1 | FileCheck %s --check-prefix=MISSING
// RUN: not te-compile %t/dequantize.mlir --emit=mlir 2>&1 | FileCheck %s --check-prefix=DEQUANT
// RUN: not te-compile %t/rht-f32.mlir --emit=mlir 2>&1 | FileCheck %s --check-prefix=RHTF32
// RUN: not te-compile %t/rht-rows.mlir --emit=mlir 2>&1 | FileCheck %s --check-prefix=RHTROWS
// RUN: not te-compile %t/rht-no-post-amax.mlir --emit=mlir 2>&1 | FileCheck %s --check-prefix=RHTAMAX
// RUN: not te-compile %t/declaration.mlir --emit=mlir 2>&1 | FileCheck %s --check-prefix=DECL
// A write that fails (a full disk) is an error, not LLVM's abort.
// RUN: not te-compile %t/valid.mlir --emit=manifest -o /dev/full 2>&1 | FileCheck %s --check-prefix=FULL
// RUN: not te-compile %t/valid.mlir --emit=ptx -o /dev/full 2>&1 | FileCheck %s --check-prefix=FULL
// RUN: not te-compile %t/valid.mlir --emit=obj -o /dev/full 2>&1 | FileCheck %s --check-prefix=FULL

//--- unsupported.mlir
module attributes {teq.target = #teq.target<sm_100>} {
  func.func @nv(%x: tensor<64x64xbf16>) -> !teq.proto<64x64xbf16, #teq.nvfp4_quantizer<f4E2M1FN, nvfp4_use_4over6 = true>, rowwise> {
    // UNLOWERED: unsupported.mlir:{{[0-9]+}}:10: error: 'teq.quantize' op NVFP4Quantizer with nvfp4_use_4over6 has no GPU lowering yet (this version lowers NVFP4 with round-to-nearest or stochastic rounding, 1D and 2D, and RHT with the post-RHT amax)
    %q = teq.quantize %x : tensor<64x64xbf16> -> !teq.proto<64x64xbf16, #teq.nvfp4_quantizer<f4E2M1FN, nvfp4_use_4over6 = true>, rowwise>
    return %q : !teq.proto<64x64xbf16, #teq.nvfp4_quantizer<f4E2M1FN, nvfp4_use_4over6 = true>, rowwise>
  }
}

//--- no-target.mlir
// NOTARGET: error: no #teq.target on the module
module {
  func.func @f(%x: tensor<16xbf16>) -> tensor<16xbf16> {
    return %x : tensor<16xbf16>
  }
}

//--- mxfp8-hopper.mlir
// MXFP8: error: MXFP8BlockScaling is not supported on sm_90: Device compute capability 10.0 or higher required for MXFP8 execution.
module attributes {teq.target = #teq.target<sm_90>} {
  func.func @f(%x: tensor<64x128xbf16>, %w: tensor<256x128xbf16>) -> tensor<64x256xbf16> {
    %y = teq.autocast recipe(#teq.mxfp8_block_scaling<>) -> tensor<64x256xbf16> {
      %o = teq.linear_forward %x, %w config(#teq.linear<>) : tensor<64x128xbf16>, tensor<256x128xbf16> -> tensor<64x256xbf16>
      teq.yield %o : tensor<64x256xbf16>
    }
    return %y : tensor<64x256xbf16>
  }
}

// BADCHIP: error: target=sm_7: invalid GPU target 'sm_7'; expected sm_<compute capability>[a|f] such as sm_90 or sm_100a
// MISSING: te-compile: error: {{.*}}missing.mlir{{.*}}

//--- rht-f32.mlir
// RHTF32: error: RHT is only supported for bfloat16 input, got 'f32'
module attributes {teq.target = #teq.target<sm_90>} {
  func.func @f(%x: tensor<64x64xf32>) -> !teq.proto<64x64xf32, #teq.nvfp4_quantizer<f4E2M1FN, with_rht = true, with_post_rht_amax = true>, columnwise> {
    %q = teq.quantize %x : tensor<64x64xf32> -> !teq.proto<64x64xf32, #teq.nvfp4_quantizer<f4E2M1FN, with_rht = true, with_post_rht_amax = true>, columnwise>
    return %q : !teq.proto<64x64xf32, #teq.nvfp4_quantizer<f4E2M1FN, with_rht = true, with_post_rht_amax = true>, columnwise>
  }
}

//--- rht-rows.mlir
// RHTROWS: error: 'teq.quantize' op cannot quantize 'tensor<40x64xbf16>': NVFP4Quantizer needs at least 2 dimensions with both the product of the leading dimensions (40) and the last dimension (64) divisible by 16
module attributes {teq.target = #teq.target<sm_90>} {
  func.func @f(%x: tensor<40x64xbf16>) -> !teq.proto<40x64xbf16, #teq.nvfp4_quantizer<f4E2M1FN, with_rht = true, with_post_rht_amax = true>, rowwise|columnwise> {
    %q = teq.quantize %x : tensor<40x64xbf16> -> !teq.proto<40x64xbf16, #teq.nvfp4_quantizer<f4E2M1FN, with_rht = true, with_post_rht_amax = true>, rowwise|columnwise>
    return %q : !teq.proto<40x64xbf16, #teq.nvfp4_quantizer<f4E2M1FN, with_rht = true, with_post_rht_amax = true>, rowwise|columnwise>
  }
}

//--- rht-no-post-amax.mlir
// RHTAMAX: error: NVFP4Quantizer: with_rht requires with_post_rht_amax = true (only the post-RHT amax is implemented)
module attributes {teq.target = #teq.target<sm_90>} {
  func.func @f(%x: tensor<64x64xbf16>) -> !teq.proto<64x64xbf16, #teq.nvfp4_quantizer<f4E2M1FN, with_rht = true>, columnwise> {
    %q = teq.quantize %x : tensor<64x64xbf16> -> !teq.proto<64x64xbf16, #teq.nvfp4_quantizer<f4E2M1FN, with_rht = true>, columnwise>
    return %q : !teq.proto<64x64xbf16, #teq.nvfp4_quantizer<f4E2M1FN, with_rht = true>, columnwise>
  }
}

//--- dequantize.mlir
// An op with no GPU lowering: the error lists what lowers.
// DEQUANT: dequantize.mlir:{{[0-9]+}}:10: error: 'teq.create_tensor' op has no GPU lowering yet; convert-teq-to-gpu lowers teq.quantize, teq.update_usage, teq.swizzle_scales, teq.dequantize (per-tensor FP8), teq.gemm, teq.all_gather, teq.reduce_scatter, teq.all_reduce, teq.bias_grad, teq.delayed_scaling_update, teq.layer_norm, teq.rms_norm and their backwards, static tensor.extract_slice and tensor.insert_slice, elementwise arith/math ops on bf16/f16/f32 tensors of one shape, last-dimension column slices read by them and two-way last-dimension tensor.concat, and splat constants in this version
module attributes {teq.target = #teq.target<sm_90>} {
  func.func @f() -> !teq.proto<64x128xbf16, #teq.float8_current_scaling_quantizer<f8E4M3FN>, rowwise> {
    %e = teq.create_tensor : !teq.proto<64x128xbf16, #teq.float8_current_scaling_quantizer<f8E4M3FN>, rowwise>
    return %e : !teq.proto<64x128xbf16, #teq.float8_current_scaling_quantizer<f8E4M3FN>, rowwise>
  }
}

//--- declaration.mlir
module attributes {teq.target = #teq.target<sm_90>} {
  func.func private @host_kernel(tensor<4x8x!quant.uniform<i8:f32, 0.5>>)
}
// DECL: declaration.mlir:2:3: error: cannot compile the declaration of @host_kernel into an artifact: artifacts do not call functions outside themselves; compile a module without it

//--- valid.mlir
module attributes {teq.target = #teq.target<sm_90>} {
  func.func @f(%x: tensor<64x128xbf16>) -> tensor<64x128xbf16> {
    %y = math.tanh %x : tensor<64x128xbf16>
    return %y : tensor<64x128xbf16>
  }
}
// FULL: valid.mlir:1:1: error: cannot write '/dev/full': No space left on device
