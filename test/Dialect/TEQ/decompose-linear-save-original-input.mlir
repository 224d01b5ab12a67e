// Regression test for teq-decompose-linear (a bug found and fixed in
// development; the case below describes what it checks).
//
// save_original_input: forward quantizes x rowwise only (TE: the input
// quantizer's columnwise usage is `... && !save_original_input`,
// te-semantics.md §6.1) and backward re-quantizes the saved high-precision x
// columnwise for wgrad.
//
// RUN 1: without teq-dedupe-saved-tensors the saved input is the
// high-precision x, and the pass replaces it with a teq.update_usage whose
// result is a plain tensor: the verifier rejects the output ("'teq.update_usage'
// op result #0 must be a quantized tensor").
// RUN 2: through teq-lower-to-gemm the backward rebuild is not marked
// teq.recompute, so teq-quantize-cse merges it into forward's quantization:
// forward quantizes x rowwise|columnwise and keeps the columnwise copy alive
// until backward, which save_original_input exists to avoid.

// RUN: te-opt %s --teq-resolve-autocast --teq-infer-prototypes --teq-decompose-linear | FileCheck %s
// RUN: te-opt %s --teq-lower-to-gemm | FileCheck %s

module attributes {teq.target = #teq.target<sm_90>} {
  func.func @save_original_input(%x: tensor<64x128xbf16>, %w: tensor<256x128xbf16>, %dy: tensor<64x256xbf16>) -> (tensor<64x256xbf16>, tensor<256x128xbf16>) {
    %y, %dw = teq.autocast recipe(#teq.float8_current_scaling<>) -> tensor<64x256xbf16>, tensor<256x128xbf16> {
      %out, %a = teq.linear_forward %x, %w config(#teq.linear<requires_dgrad = false, save_original_input = true>) : tensor<64x128xbf16>, tensor<256x128xbf16> -> tensor<64x256xbf16> saved_input(tensor<64x128xbf16>)
      %gw = teq.linear_backward %dy, %a, %w config(#teq.linear<requires_dgrad = false, save_original_input = true>) : tensor<64x256xbf16>, tensor<64x128xbf16>, tensor<256x128xbf16> wgrad(tensor<256x128xbf16>)
      teq.yield %out, %gw : tensor<64x256xbf16>, tensor<256x128xbf16>
    }
    return %y, %dw : tensor<64x256xbf16>, tensor<256x128xbf16>
  }
}

// CHECK-LABEL: func.func @save_original_input(
// CHECK-SAME: %[[X:[a-z0-9_]+]]: tensor<64x128xbf16>,
// CHECK-NOT: rowwise|columnwise
// CHECK: %[[XR:[a-z0-9_]+]] = teq.quantize %[[X]] : tensor<64x128xbf16> -> !teq.proto<64x128xbf16, #teq.float8_current_scaling_quantizer<f8E4M3FN>, rowwise>
// CHECK-NOT: rowwise|columnwise
// CHECK: teq.gemm TN %{{[a-z0-9_]+}}, %[[XR]] {kind = #teq.gemm_kind<fprop>
// CHECK-NOT: rowwise|columnwise
// CHECK: %[[XC:[a-z0-9_]+]] = teq.quantize %[[X]] {{.*}}: tensor<64x128xbf16> -> !teq.proto<64x128xbf16, #teq.float8_current_scaling_quantizer<f8E4M3FN>, columnwise>
// CHECK-NOT: rowwise|columnwise
// CHECK: teq.gemm NT %[[XC]], %{{[a-z0-9_]+}} {kind = #teq.gemm_kind<wgrad>
// CHECK: return
