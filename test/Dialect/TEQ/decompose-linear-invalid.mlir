// Errors of teq-decompose-linear. The inputs are written as
// teq-resolve-autocast and teq-infer-prototypes leave them (explicit
// quantization attributes), so only this pass runs.

// RUN: te-opt %s -split-input-file -verify-diagnostics --teq-decompose-linear

// A Linear without a quantization attribute has not been resolved.
module attributes {teq.target = #teq.target<sm_90>} {
  func.func @unresolved(%x: tensor<64x128xbf16>, %w: tensor<256x128xbf16>) -> tensor<64x256xbf16> {
    // expected-error@+1 {{teq-decompose-linear needs resolved Linears: run teq-resolve-autocast and teq-infer-prototypes first}}
    %out = teq.linear_forward %x, %w config(#teq.linear<requires_dgrad = false, requires_wgrad = false>) : tensor<64x128xbf16>, tensor<256x128xbf16> -> tensor<64x256xbf16>
    return %out : tensor<64x256xbf16>
  }
}

// -----

// GEMM layouts depend on the GPU: a module without #teq.target is an error.
// expected-error@+1 {{no #teq.target on the module: GEMM layouts depend on the GPU; add attributes {teq.target = #teq.target<sm_90>}}}
module {
  func.func @no_target(%x: tensor<64x128xbf16>, %w: tensor<256x128xbf16>) -> tensor<64x256xbf16> {
    %out = teq.linear_forward %x, %w config(#teq.linear<requires_dgrad = false, requires_wgrad = false>) {quantization = #teq.linear_quantization<recipe = "high_precision">} : tensor<64x128xbf16>, tensor<256x128xbf16> -> tensor<64x256xbf16>
    return %out : tensor<64x256xbf16>
  }
}

// -----

// A pre-quantized MXFP8 input that holds only its columnwise usage: fprop
// reads it rowwise, and MXFP8 scales rows and columns differently, so the
// rowwise usage cannot be derived without the high-precision tensor.
module attributes {teq.target = #teq.target<sm_100>} {
  func.func @mxfp8_input_without_rowwise(%x: !teq.proto<64x128xbf16, #teq.mxfp8_quantizer<f8E4M3FN>, columnwise>, %w: tensor<256x128xbf16>) -> tensor<64x256xbf16> {
    // expected-error@+1 {{'teq.linear_forward' op the quantized input lacks the rowwise usage and MXFP8Quantizer cannot derive it from the other one}}
    %out = teq.linear_forward %x, %w config(#teq.linear<requires_dgrad = false, requires_wgrad = false>) {quantization = #teq.linear_quantization<recipe = "MXFP8BlockScaling", input = #teq.mxfp8_quantizer<f8E4M3FN>, weight = #teq.mxfp8_quantizer<f8E4M3FN>, output = #teq.mxfp8_quantizer<f8E4M3FN>, grad_output = #teq.mxfp8_quantizer<f8E4M3FN>, grad_input = #teq.mxfp8_quantizer<f8E4M3FN>, fprop_split_accumulator = false>} : !teq.proto<64x128xbf16, #teq.mxfp8_quantizer<f8E4M3FN>, columnwise>, tensor<256x128xbf16> -> tensor<64x256xbf16>
    return %out : tensor<64x256xbf16>
  }
}

// -----

// A custom recipe whose weight rule is a DelayedScalingRequest (stateful
// Float8Quantizer) and whose gradients use current scaling: forward carries
// the delayed-scaling state, backward has none. A backward that reads the
// high-precision weight would have to re-quantize it with the forward's
// scale and amax history, which it does not have: the quantized weight must
// be saved.
module attributes {teq.target = #teq.target<sm_90>} {
  func.func @delayed_weight_rebuilt_in_backward(%w: tensor<256x128xbf16>, %x: tensor<64x128xbf16>, %dy: tensor<64x256xbf16>) -> tensor<64x128xbf16> {
    // expected-error@+1 {{'teq.linear_backward' op cannot rebuild a Float8Quantizer tensor in backward: delayed scaling quantizes with the forward state, so forward must save it}}
    %dx = teq.linear_backward %dy, %x, %w config(#teq.linear<requires_wgrad = false>) {quantization = #teq.linear_quantization<recipe = "CustomRecipe", input = #teq.float8_current_scaling_quantizer<f8E4M3FN>, weight = #teq.float8_quantizer<f8E4M3FN>, output = #teq.float8_current_scaling_quantizer<f8E4M3FN>, grad_output = #teq.float8_current_scaling_quantizer<f8E5M2>, grad_input = #teq.float8_current_scaling_quantizer<f8E4M3FN>, fprop_split_accumulator = false>} : tensor<64x256xbf16>, tensor<64x128xbf16>, tensor<256x128xbf16> dgrad(tensor<64x128xbf16>)
    return %dx : tensor<64x128xbf16>
  }
}

// -----

// A CustomRecipe rounding the input stochastically: backward rebuilds the
// high-precision input (save_original_input) for wgrad with that quantizer,
// which needs the backward Linear's rng_state.
module attributes {teq.target = #teq.target<sm_100>} {
  func.func @sr_rebuild_without_rng_state(%w: !teq.proto<256x128xbf16, #teq.nvfp4_quantizer<f4E2M1FN>, columnwise>, %x: tensor<64x128xbf16>, %dy: tensor<64x256xbf16>) -> tensor<256x128xbf16> {
    // expected-error@+1 {{'teq.linear_backward' op needs an rng_state to quantize (rebuilding a saved tensor) with NVFP4Quantizer with stochastic_rounding: pass rng_state(%rng : tensor<2xi64>) with the Philox seed and offset}}
    %dw = teq.linear_backward %dy, %x, %w config(#teq.linear<requires_dgrad = false>) {quantization = #teq.linear_quantization<recipe = "CustomRecipe", input = #teq.nvfp4_quantizer<f4E2M1FN, stochastic_rounding = true>, weight = #teq.nvfp4_quantizer<f4E2M1FN>, output = #teq.nvfp4_quantizer<f4E2M1FN>, grad_output = #teq.nvfp4_quantizer<f4E2M1FN>, grad_input = #teq.nvfp4_quantizer<f4E2M1FN>>} : tensor<64x256xbf16>, tensor<64x128xbf16>, !teq.proto<256x128xbf16, #teq.nvfp4_quantizer<f4E2M1FN>, columnwise> wgrad(tensor<256x128xbf16>)
    return %dw : tensor<256x128xbf16>
  }
}

// -----

// A CustomRecipe rounding the input stochastically too: backward rebuilds
// the high-precision input (save_original_input) for wgrad, but
// grad_output's quantization already took the op's one Philox stream.
module attributes {teq.target = #teq.target<sm_100>} {
  func.func @sr_two_tensors_one_stream(%w: !teq.proto<256x128xbf16, #teq.nvfp4_quantizer<f4E2M1FN>, columnwise>, %x: tensor<64x128xbf16>, %dy: tensor<64x256xbf16>, %rng: tensor<2xi64>) -> (tensor<64x128xbf16>, tensor<256x128xbf16>) {
    // expected-error@+1 {{'teq.linear_backward' op quantizes two tensors with stochastic rounding but has one rng_state (one Philox stream), so both would round with the same random bits; round at most one tensor of a Linear op stochastically (or save the quantized tensor instead of rebuilding it)}}
    %dx, %dw = teq.linear_backward %dy, %x, %w rng_state(%rng : tensor<2xi64>) config(#teq.linear<>) {quantization = #teq.linear_quantization<recipe = "CustomRecipe", input = #teq.nvfp4_quantizer<f4E2M1FN, stochastic_rounding = true>, weight = #teq.nvfp4_quantizer<f4E2M1FN>, output = #teq.nvfp4_quantizer<f4E2M1FN>, grad_output = #teq.nvfp4_quantizer<f4E2M1FN, stochastic_rounding = true>, grad_input = #teq.nvfp4_quantizer<f4E2M1FN>>} : tensor<64x256xbf16>, tensor<64x128xbf16>, !teq.proto<256x128xbf16, #teq.nvfp4_quantizer<f4E2M1FN>, columnwise> dgrad(tensor<64x128xbf16>) wgrad(tensor<256x128xbf16>)
    return %dx, %dw : tensor<64x128xbf16>, tensor<256x128xbf16>
  }
}
