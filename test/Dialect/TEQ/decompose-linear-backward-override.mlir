// backward_override (te-semantics.md §1.0; TE's Linear): the forward keeps
// only the rowwise copies fprop reads; the backward GEMMs run in high
// precision, grad_output unquantized and dbias from the wgrad GEMM's BGRADB
// epilogue as in TE's non-FP8 backward:
//   high_precision: on the original input and weight (saved as they are);
//   dequantized: on the forward's quantized copies, dequantized.
// RUN: te-opt %s -split-input-file --teq-lower-to-gemm | FileCheck %s
// RUN: te-opt %s -split-input-file --teq-resolve-autocast --teq-infer-prototypes --teq-dedupe-saved-tensors=print-saved-memory | FileCheck %s --check-prefix=SAVED
//
// What is kept for backward (the saved-memory report): high_precision keeps
// x and w themselves (w, an argument, is not counted after dedupe);
// dequantized keeps the rowwise FP8 copies (x: 64*128 + 4 bytes, w:
// 256*128 + 4), of which the weight's is rebuilt in backward after dedupe.
// SAVED-LABEL: saved memory of @high_precision on sm_90:
// SAVED-NEXT: before dedupe: 2 tensors, 81920 bytes (Float8CurrentScaling: 81920)
// SAVED-NEXT: after dedupe: 1 tensors, 16384 bytes (Float8CurrentScaling: 16384)
// SAVED-LABEL: saved memory of @dequantized on sm_90:
// SAVED-NEXT: before dedupe: 2 tensors, 40968 bytes (Float8CurrentScaling: 40968)
// SAVED-NEXT: after dedupe: 1 tensors, 8196 bytes (Float8CurrentScaling: 8196)

module attributes {teq.target = #teq.target<sm_90>} {
  func.func @high_precision(%x: tensor<64x128xbf16>, %w: tensor<256x128xbf16>, %b: tensor<256xbf16>, %dy: tensor<64x256xbf16>) -> (tensor<64x256xbf16>, tensor<64x128xbf16>, tensor<256x128xbf16>, tensor<256xbf16>) {
    %y, %dx, %dw, %db = teq.autocast recipe(#teq.float8_current_scaling<backward_override = high_precision>) -> tensor<64x256xbf16>, tensor<64x128xbf16>, tensor<256x128xbf16>, tensor<256xbf16> {
      %out, %sx, %sw = teq.linear_forward %x, %w bias(%b : tensor<256xbf16>) config(#teq.linear<bias = true, name = "fc">)
          : tensor<64x128xbf16>, tensor<256x128xbf16> -> tensor<64x256xbf16>
            saved_input(tensor<64x128xbf16>) saved_weight(tensor<256x128xbf16>)
      %gx, %gw, %gb = teq.linear_backward %dy, %sx, %sw config(#teq.linear<bias = true, name = "fc">)
          : tensor<64x256xbf16>, tensor<64x128xbf16>, tensor<256x128xbf16>
            dgrad(tensor<64x128xbf16>) wgrad(tensor<256x128xbf16>) dbias(tensor<256xbf16>)
      teq.yield %out, %gx, %gw, %gb : tensor<64x256xbf16>, tensor<64x128xbf16>, tensor<256x128xbf16>, tensor<256xbf16>
    }
    return %y, %dx, %dw, %db : tensor<64x256xbf16>, tensor<64x128xbf16>, tensor<256x128xbf16>, tensor<256xbf16>
  }
}

// CHECK-LABEL: func.func @high_precision(
// CHECK-SAME: %[[X:[a-z0-9_]+]]: tensor<64x128xbf16>, %[[W:[a-z0-9_]+]]: tensor<256x128xbf16>, %[[B:[a-z0-9_]+]]: tensor<256xbf16>, %[[DY:[a-z0-9_]+]]: tensor<64x256xbf16>)
// CHECK-NEXT: %[[XQ:[a-z0-9_]+]] = teq.quantize %[[X]] : tensor<64x128xbf16> -> !teq.proto<64x128xbf16, #teq.float8_current_scaling_quantizer<f8E4M3FN>, rowwise>
// CHECK-NEXT: %[[WQ:[a-z0-9_]+]] = teq.quantize %[[W]] : tensor<256x128xbf16> -> !teq.proto<256x128xbf16, #teq.float8_current_scaling_quantizer<f8E4M3FN>, rowwise>
// CHECK-NEXT: %[[Y:[a-z0-9_]+]] = teq.gemm TN %[[WQ]], %[[XQ]] bias(%[[B]] : tensor<256xbf16>) {kind = #teq.gemm_kind<fprop>
// CHECK-NEXT: %[[DX:[a-z0-9_]+]] = teq.gemm NN %[[W]], %[[DY]] {kind = #teq.gemm_kind<dgrad>, physical_layout = #teq.gemm_layout<NN>} : tensor<256x128xbf16>, tensor<64x256xbf16> -> tensor<64x128xbf16>
// CHECK-NEXT: %[[DW:[a-z0-9_]+]], %[[DB:[a-z0-9_]+]] = teq.gemm NT %[[X]], %[[DY]] {kind = #teq.gemm_kind<wgrad>, physical_layout = #teq.gemm_layout<NT>} : tensor<64x128xbf16>, tensor<64x256xbf16> -> tensor<256x128xbf16>, tensor<256xbf16>
// CHECK-NEXT: return %[[Y]], %[[DX]], %[[DW]], %[[DB]]

// -----

module attributes {teq.target = #teq.target<sm_90>} {
  func.func @dequantized(%x: tensor<64x128xbf16>, %w: tensor<256x128xbf16>, %b: tensor<256xbf16>, %dy: tensor<64x256xbf16>) -> (tensor<64x256xbf16>, tensor<64x128xbf16>, tensor<256x128xbf16>, tensor<256xbf16>) {
    %y, %dx, %dw, %db = teq.autocast recipe(#teq.float8_current_scaling<backward_override = dequantized>) -> tensor<64x256xbf16>, tensor<64x128xbf16>, tensor<256x128xbf16>, tensor<256xbf16> {
      %out, %sx, %sw = teq.linear_forward %x, %w bias(%b : tensor<256xbf16>) config(#teq.linear<bias = true, name = "fc">)
          : tensor<64x128xbf16>, tensor<256x128xbf16> -> tensor<64x256xbf16>
            saved_input(tensor<64x128xbf16>) saved_weight(tensor<256x128xbf16>)
      %gx, %gw, %gb = teq.linear_backward %dy, %sx, %sw config(#teq.linear<bias = true, name = "fc">)
          : tensor<64x256xbf16>, tensor<64x128xbf16>, tensor<256x128xbf16>
            dgrad(tensor<64x128xbf16>) wgrad(tensor<256x128xbf16>) dbias(tensor<256xbf16>)
      teq.yield %out, %gx, %gw, %gb : tensor<64x256xbf16>, tensor<64x128xbf16>, tensor<256x128xbf16>, tensor<256xbf16>
    }
    return %y, %dx, %dw, %db : tensor<64x256xbf16>, tensor<64x128xbf16>, tensor<256x128xbf16>, tensor<256xbf16>
  }
}

// The weight's rowwise copy is rebuilt in backward (the saved-tensor dedupe
// trades it for memory, bit-identical under current scaling).
// CHECK-LABEL: func.func @dequantized(
// CHECK-SAME: %[[X:[a-z0-9_]+]]: tensor<64x128xbf16>, %[[W:[a-z0-9_]+]]: tensor<256x128xbf16>, %[[B:[a-z0-9_]+]]: tensor<256xbf16>, %[[DY:[a-z0-9_]+]]: tensor<64x256xbf16>)
// CHECK-NEXT: %[[XQ:[a-z0-9_]+]] = teq.quantize %[[X]] : tensor<64x128xbf16> -> !teq.proto<64x128xbf16, #teq.float8_current_scaling_quantizer<f8E4M3FN>, rowwise>
// CHECK-NEXT: %[[WQ:[a-z0-9_]+]] = teq.quantize %[[W]] : tensor<256x128xbf16> -> !teq.proto<256x128xbf16, #teq.float8_current_scaling_quantizer<f8E4M3FN>, rowwise>
// CHECK-NEXT: %[[Y:[a-z0-9_]+]] = teq.gemm TN %[[WQ]], %[[XQ]] bias(%[[B]] : tensor<256xbf16>) {kind = #teq.gemm_kind<fprop>
// CHECK-NEXT: %[[WR:[a-z0-9_]+]] = teq.quantize %[[W]] {teq.recompute} : tensor<256x128xbf16> -> !teq.proto<256x128xbf16, #teq.float8_current_scaling_quantizer<f8E4M3FN>, rowwise>
// CHECK-NEXT: %[[WD:[a-z0-9_]+]] = teq.dequantize %[[WR]] : !teq.proto<256x128xbf16, #teq.float8_current_scaling_quantizer<f8E4M3FN>, rowwise> -> tensor<256x128xbf16>
// CHECK-NEXT: %[[DX:[a-z0-9_]+]] = teq.gemm NN %[[WD]], %[[DY]] {kind = #teq.gemm_kind<dgrad>
// CHECK-NEXT: %[[XD:[a-z0-9_]+]] = teq.dequantize %[[XQ]] : !teq.proto<64x128xbf16, #teq.float8_current_scaling_quantizer<f8E4M3FN>, rowwise> -> tensor<64x128xbf16>
// CHECK-NEXT: %[[DW:[a-z0-9_]+]], %[[DB:[a-z0-9_]+]] = teq.gemm NT %[[XD]], %[[DY]] {kind = #teq.gemm_kind<wgrad>
// CHECK-NEXT: return %[[Y]], %[[DX]], %[[DW]], %[[DB]]

// -----

// Block scaling too (1D activations, 2D weight): the same high-precision
// backward; only the forward quantizes.
module attributes {teq.target = #teq.target<sm_90>} {
  func.func @block_high_precision(%x: tensor<64x128xbf16>, %w: tensor<256x128xbf16>, %b: tensor<256xbf16>, %dy: tensor<64x256xbf16>) -> (tensor<64x256xbf16>, tensor<64x128xbf16>, tensor<256x128xbf16>, tensor<256xbf16>) {
    %y, %dx, %dw, %db = teq.autocast recipe(#teq.float8_block_scaling<backward_override = high_precision>) -> tensor<64x256xbf16>, tensor<64x128xbf16>, tensor<256x128xbf16>, tensor<256xbf16> {
      %out, %sx, %sw = teq.linear_forward %x, %w bias(%b : tensor<256xbf16>) config(#teq.linear<bias = true, name = "fc">)
          : tensor<64x128xbf16>, tensor<256x128xbf16> -> tensor<64x256xbf16>
            saved_input(tensor<64x128xbf16>) saved_weight(tensor<256x128xbf16>)
      %gx, %gw, %gb = teq.linear_backward %dy, %sx, %sw config(#teq.linear<bias = true, name = "fc">)
          : tensor<64x256xbf16>, tensor<64x128xbf16>, tensor<256x128xbf16>
            dgrad(tensor<64x128xbf16>) wgrad(tensor<256x128xbf16>) dbias(tensor<256xbf16>)
      teq.yield %out, %gx, %gw, %gb : tensor<64x256xbf16>, tensor<64x128xbf16>, tensor<256x128xbf16>, tensor<256xbf16>
    }
    return %y, %dx, %dw, %db : tensor<64x256xbf16>, tensor<64x128xbf16>, tensor<256x128xbf16>, tensor<256xbf16>
  }
}

// CHECK-LABEL: func.func @block_high_precision(
// CHECK-NOT: teq.quantize %{{.*}} : tensor<64x256xbf16>
// CHECK: teq.gemm NN %{{[a-z0-9_]+}}, %{{[a-z0-9_]+}} {kind = #teq.gemm_kind<dgrad>{{.*}}} : tensor<256x128xbf16>, tensor<64x256xbf16>
// CHECK: teq.gemm NT %{{[a-z0-9_]+}}, %{{[a-z0-9_]+}} {kind = #teq.gemm_kind<wgrad>{{.*}}} : tensor<64x128xbf16>, tensor<64x256xbf16>
