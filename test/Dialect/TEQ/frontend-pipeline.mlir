// The teq-frontend pipeline on programs written without a #teq.target: the
// pipeline's target= option sets it (teq-set-target), then recipes are
// checked against it, autocast regions resolved, saved prototypes inferred,
// saved tensors deduped (report with print-saved-memory) and quantizations
// CSE'd. Also the errors of teq-set-target.

// RUN: rm -rf %t && split-file %s %t

// Float8CurrentScaling, sm_90, both pipeline spellings.
// RUN: te-opt %t/current.mlir --pass-pipeline='builtin.module(teq-frontend{target=sm_90 print-saved-memory=true})' | FileCheck %s --check-prefixes=CUR,CUR90 --implicit-check-not=teq.autocast
// RUN: te-opt %t/current.mlir --teq-frontend="target=sm_90 print-saved-memory=true" | FileCheck %s --check-prefixes=CUR,CUR90 --implicit-check-not=teq.autocast
// RUN: te-opt %t/current.mlir --teq-frontend="target=sm_100" | FileCheck %s --check-prefixes=CUR,CUR100 --implicit-check-not=teq.autocast

// MXFP8: rejected on sm_90 with TE's message, compiled for sm_100.
// RUN: not te-opt %t/mxfp8.mlir --teq-frontend="target=sm_90" 2>&1 | FileCheck %s --check-prefix=MX90
// RUN: te-opt %t/mxfp8.mlir --teq-frontend="target=sm_100 print-saved-memory=true" | FileCheck %s --check-prefix=MX100 --implicit-check-not=teq.autocast

// teq-set-target errors.
// RUN: not te-opt %t/targeted.mlir --teq-set-target=target=sm_90 2>&1 | FileCheck %s --check-prefix=CONFLICT
// RUN: te-opt %t/targeted.mlir --teq-set-target=target=sm_100 | FileCheck %s --check-prefix=SAME
// RUN: not te-opt %t/current.mlir --teq-set-target=target=sm_77x 2>&1 | FileCheck %s --check-prefix=INVALID
// RUN: not te-opt %t/current.mlir --teq-set-target 2>&1 | FileCheck %s --check-prefix=MISSING
// RUN: not te-opt %t/targeted.mlir --teq-frontend="target=sm_90" 2>&1 | FileCheck %s --check-prefix=CONFLICT
// teq-set-target alone puts the attribute on a module without one.
// RUN: te-opt %t/current.mlir --teq-set-target=target=sm_100a | FileCheck %s --check-prefix=SET

//--- current.mlir
module {
  func.func @lin(%x: tensor<64x128xbf16>, %w: tensor<256x128xbf16>, %dy: tensor<64x256xbf16>) -> (tensor<64x256xbf16>, tensor<64x128xbf16>, tensor<256x128xbf16>) {
    %y, %dx, %dw = teq.autocast recipe(#teq.float8_current_scaling<>) -> tensor<64x256xbf16>, tensor<64x128xbf16>, tensor<256x128xbf16> {
      %out, %a, %b = teq.linear_forward %x, %w config(#teq.linear<name = "fc1">) : tensor<64x128xbf16>, tensor<256x128xbf16> -> tensor<64x256xbf16> saved_input(tensor<64x128xbf16>) saved_weight(tensor<256x128xbf16>)
      %gx, %gw = teq.linear_backward %dy, %a, %b config(#teq.linear<name = "fc1">) : tensor<64x256xbf16>, tensor<64x128xbf16>, tensor<256x128xbf16> dgrad(tensor<64x128xbf16>) wgrad(tensor<256x128xbf16>)
      teq.yield %out, %gx, %gw : tensor<64x256xbf16>, tensor<64x128xbf16>, tensor<256x128xbf16>
    }
    return %y, %dx, %dw : tensor<64x256xbf16>, tensor<64x128xbf16>, tensor<256x128xbf16>
  }
}

// sm_90 report: saved input 64x128 columnwise FP8 on Hopper = transposed
// copy 128*64 + 4-byte scale_inv = 8196; saved weight 256x128 = 32768 + 4 =
// 32772; total 40968 before, 8196 after (the weight is re-quantized).
// CUR90: saved memory of @lin on sm_90:
// CUR90-NEXT: {{^}}  before dedupe: 2 tensors, 40968 bytes (Float8CurrentScaling: 40968){{$}}
// CUR90-NEXT: {{^}}  after dedupe: 1 tensors, 8196 bytes (Float8CurrentScaling: 8196){{$}}
// CUR90: module attributes {teq.target = #teq.target<sm_90>} {
// CUR100: module attributes {teq.target = #teq.target<sm_100>} {
// CUR-LABEL: func.func @lin(
// CUR-SAME: %[[X:[a-z0-9_]+]]: tensor<64x128xbf16>, %[[W:[a-z0-9_]+]]: tensor<256x128xbf16>, %[[DY:[a-z0-9_]+]]: tensor<64x256xbf16>)
// CUR: %{{.*}}, %[[SX:[a-z0-9_]+]] = teq.linear_forward %[[X]], %[[W]]
// CUR-SAME: quantization = #teq.linear_quantization<recipe = "Float8CurrentScaling", input = #teq.float8_current_scaling_quantizer<f8E4M3FN>, weight = #teq.float8_current_scaling_quantizer<f8E4M3FN>, output = #teq.float8_current_scaling_quantizer<f8E4M3FN>, grad_output = #teq.float8_current_scaling_quantizer<f8E5M2>, grad_input = #teq.float8_current_scaling_quantizer<f8E5M2>
// CUR-SAME: saved_input(!teq.proto<64x128xbf16, #teq.float8_current_scaling_quantizer<f8E4M3FN>, columnwise>){{$}}
// CUR-NEXT: %[[QW:[a-z0-9_]+]] = teq.quantize %[[W]] {teq.recompute} : tensor<256x128xbf16> -> !teq.proto<256x128xbf16, #teq.float8_current_scaling_quantizer<f8E4M3FN>, columnwise>
// CUR-NEXT: teq.linear_backward %[[DY]], %[[SX]], %[[QW]]

// SET: module attributes {teq.target = #teq.target<sm_100a>} {
// SET: teq.autocast recipe(#teq.float8_current_scaling<>)

// INVALID: error: target=sm_77x: invalid GPU target 'sm_77x'; expected sm_<compute capability>[a|f] such as sm_90 or sm_100a
// MISSING: error: teq-set-target needs target=<chip>, e.g. target=sm_90

//--- mxfp8.mlir
module {
  func.func @lin_mx(%x: tensor<64x128xbf16>, %w: tensor<256x128xbf16>, %dy: tensor<64x256xbf16>) -> (tensor<64x256xbf16>, tensor<64x128xbf16>, tensor<256x128xbf16>) {
    %y, %dx, %dw = teq.autocast recipe(#teq.mxfp8_block_scaling<>) -> tensor<64x256xbf16>, tensor<64x128xbf16>, tensor<256x128xbf16> {
      %out, %a, %b = teq.linear_forward %x, %w config(#teq.linear<name = "fc1">) : tensor<64x128xbf16>, tensor<256x128xbf16> -> tensor<64x256xbf16> saved_input(tensor<64x128xbf16>) saved_weight(tensor<256x128xbf16>)
      %gx, %gw = teq.linear_backward %dy, %a, %b config(#teq.linear<name = "fc1">) : tensor<64x256xbf16>, tensor<64x128xbf16>, tensor<256x128xbf16> dgrad(tensor<64x128xbf16>) wgrad(tensor<256x128xbf16>)
      teq.yield %out, %gx, %gw : tensor<64x256xbf16>, tensor<64x128xbf16>, tensor<256x128xbf16>
    }
    return %y, %dx, %dw : tensor<64x256xbf16>, tensor<64x128xbf16>, tensor<256x128xbf16>
  }
}

// MX90: error: MXFP8BlockScaling is not supported on sm_90: Device compute capability 10.0 or higher required for MXFP8 execution.

// MX100: saved memory of @lin_mx on sm_100:
// MX100-NEXT: before dedupe: 2 tensors
// MX100-NEXT: after dedupe: 1 tensors
// MX100: module attributes {teq.target = #teq.target<sm_100>} {
// MX100: teq.linear_forward
// MX100-SAME: recipe = "MXFP8BlockScaling"
// MX100-SAME: saved_input(!teq.proto<64x128xbf16, #teq.mxfp8_quantizer<f8E4M3FN>, columnwise, gemm_swizzled>){{$}}
// MX100-NEXT: teq.quantize %{{.*}} : tensor<256x128xbf16> -> !teq.proto<256x128xbf16, #teq.mxfp8_quantizer<f8E4M3FN>, columnwise, gemm_swizzled>
// MX100-NEXT: teq.linear_backward

//--- targeted.mlir
module attributes {teq.target = #teq.target<sm_100>} {
  func.func @empty() {
    return
  }
}

// CONFLICT: error: the module targets sm_100 but target=sm_90 was requested; remove one of them
// SAME: module attributes {teq.target = #teq.target<sm_100>} {
