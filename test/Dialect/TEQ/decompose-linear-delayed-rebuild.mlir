// Regression test for teq-decompose-linear (a bug found and fixed in
// development; the case below describes what it checks).
//
// Under DelayedScaling the backward op carries state (its grad_output and
// grad_input slots). When it reads a high-precision weight, the pass
// re-quantizes it through "slot -1" of the *backward* state and emits
// `tensor.extract_slice %scale[-1] [1] [1]`; the verifier then fails with
// "expected offsets to be non-negative, but got -1" instead of the pass's
// own diagnostic (which it only gives when the backward has no state at all,
// see decompose-linear-invalid.mlir). The weight's scale lives in the
// forward's state: backward cannot rebuild it.
//
// The same happens through the whole pipeline for a DelayedScaling Linear
// with save_original_input = true (backward re-quantizes the input):
//   te-opt --teq-lower-to-gemm on such a Linear fails the same way.

// RUN: te-opt %s -verify-diagnostics --teq-decompose-linear

module attributes {teq.target = #teq.target<sm_90>} {
  func.func @delayed_weight_rebuilt_in_backward(%w: tensor<256x128xbf16>, %x: !teq.proto<64x128xbf16, #teq.float8_quantizer<f8E4M3FN>, columnwise>, %dy: tensor<64x256xbf16>, %bs: tensor<2xf32>, %bh: tensor<16x2xf32>) -> (tensor<64x128xbf16>, tensor<16x2xf32>) {
    // expected-error@+1 {{cannot rebuild a Float8Quantizer tensor in backward: delayed scaling quantizes with the forward state, so forward must save it}}
    %dx, %bh1 = teq.linear_backward %dy, %x, %w state(%bs, %bh : tensor<2xf32>, tensor<16x2xf32>) config(#teq.linear<requires_wgrad = false>) {quantization = #teq.linear_quantization<recipe = "DelayedScaling", input = #teq.float8_quantizer<f8E4M3FN>, weight = #teq.float8_quantizer<f8E4M3FN>, output = #teq.float8_quantizer<f8E4M3FN>, grad_output = #teq.float8_quantizer<f8E5M2>, grad_input = #teq.float8_quantizer<f8E5M2>, fprop_split_accumulator = false>} : tensor<64x256xbf16>, !teq.proto<64x128xbf16, #teq.float8_quantizer<f8E4M3FN>, columnwise>, tensor<256x128xbf16> dgrad(tensor<64x128xbf16>) updated_amax_history(tensor<16x2xf32>)
    return %dx, %bh1 : tensor<64x128xbf16>, tensor<16x2xf32>
  }
}
