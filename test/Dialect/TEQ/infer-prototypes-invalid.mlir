// teq-infer-prototypes without teq-resolve-autocast: saved types depend on
// the quantizers a Linear resolved to, so every Linear needs its
// `quantization` and no teq.autocast region may remain. Each error is at the
// offending op; a leftover autocast region stops the pass before it looks at
// the Linears inside it (so they report nothing). Afterwards the module is
// re-verified: a caller that passes a high-precision tensor where a backward
// function now takes a quantized one is reported.

// RUN: te-opt %s -split-input-file -verify-diagnostics --teq-infer-prototypes

// A leftover autocast region (the pipeline forgot teq-resolve-autocast).
module attributes {teq.target = #teq.target<sm_90>} {
  func.func @leftover_autocast(%x: tensor<64x128xbf16>, %w: tensor<256x128xbf16>) -> (tensor<64x256xbf16>, tensor<64x128xbf16>, tensor<256x128xbf16>) {
    // expected-error @+1 {{teq-infer-prototypes needs resolved Linears: run teq-resolve-autocast first}}
    %y, %sx, %sw = teq.autocast recipe(#teq.float8_current_scaling<>) -> tensor<64x256xbf16>, tensor<64x128xbf16>, tensor<256x128xbf16> {
      %out, %a, %b = teq.linear_forward %x, %w config(#teq.linear<>) : tensor<64x128xbf16>, tensor<256x128xbf16> -> tensor<64x256xbf16> saved_input(tensor<64x128xbf16>) saved_weight(tensor<256x128xbf16>)
      teq.yield %out, %a, %b : tensor<64x256xbf16>, tensor<64x128xbf16>, tensor<256x128xbf16>
    }
    return %y, %sx, %sw : tensor<64x256xbf16>, tensor<64x128xbf16>, tensor<256x128xbf16>
  }
}

// -----

// Every leftover region is reported, nested ones and disabled ones included;
// a region without Linears is still a leftover region.
module attributes {teq.target = #teq.target<sm_90>} {
  func.func @nested_autocast(%x: tensor<64x128xbf16>, %w: tensor<256x128xbf16>) -> tensor<64x256xbf16> {
    // expected-error @+1 {{teq-infer-prototypes needs resolved Linears: run teq-resolve-autocast first}}
    %y = teq.autocast recipe(#teq.float8_current_scaling<>) -> tensor<64x256xbf16> {
      // expected-error @+1 {{teq-infer-prototypes needs resolved Linears: run teq-resolve-autocast first}}
      %o = teq.autocast enabled(false) -> tensor<64x256xbf16> {
        %out = teq.linear_forward %x, %w config(#teq.linear<>) : tensor<64x128xbf16>, tensor<256x128xbf16> -> tensor<64x256xbf16>
        teq.yield %out : tensor<64x256xbf16>
      }
      teq.yield %o : tensor<64x256xbf16>
    }
    return %y : tensor<64x256xbf16>
  }
  func.func @empty_autocast() {
    // expected-error @+1 {{teq-infer-prototypes needs resolved Linears: run teq-resolve-autocast first}}
    teq.autocast recipe(#teq.delayed_scaling<>) {
    }
    return
  }
}

// -----

// An unresolved Linear forward outside any region: no `quantization`.
module attributes {teq.target = #teq.target<sm_90>} {
  func.func @unresolved_forward(%x: tensor<64x128xbf16>, %w: tensor<256x128xbf16>) -> (tensor<64x256xbf16>, tensor<64x128xbf16>, tensor<256x128xbf16>) {
    // expected-error @+1 {{teq-infer-prototypes needs resolved Linears: run teq-resolve-autocast first}}
    %y, %sx, %sw = teq.linear_forward %x, %w config(#teq.linear<>) : tensor<64x128xbf16>, tensor<256x128xbf16> -> tensor<64x256xbf16> saved_input(tensor<64x128xbf16>) saved_weight(tensor<256x128xbf16>)
    return %y, %sx, %sw : tensor<64x256xbf16>, tensor<64x128xbf16>, tensor<256x128xbf16>
  }
}

// -----

// An unresolved backward in a backward function, next to a resolved forward:
// only the backward is reported.
module attributes {teq.target = #teq.target<sm_90>} {
  func.func @fwd(%x: tensor<64x128xbf16>, %w: tensor<256x128xbf16>) -> (tensor<64x256xbf16>, tensor<64x128xbf16>, tensor<256x128xbf16>) {
    %y, %sx, %sw = teq.linear_forward %x, %w config(#teq.linear<>) {quantization = #teq.linear_quantization<recipe = "Float8CurrentScaling", input = #teq.float8_current_scaling_quantizer<f8E4M3FN>, weight = #teq.float8_current_scaling_quantizer<f8E4M3FN>, output = #teq.float8_current_scaling_quantizer<f8E4M3FN>, grad_output = #teq.float8_current_scaling_quantizer<f8E5M2>, grad_input = #teq.float8_current_scaling_quantizer<f8E5M2>, fprop_split_accumulator = false>} : tensor<64x128xbf16>, tensor<256x128xbf16> -> tensor<64x256xbf16> saved_input(tensor<64x128xbf16>) saved_weight(tensor<256x128xbf16>)
    return %y, %sx, %sw : tensor<64x256xbf16>, tensor<64x128xbf16>, tensor<256x128xbf16>
  }
  func.func @bwd(%dy: tensor<64x256xbf16>, %sx: tensor<64x128xbf16>, %sw: tensor<256x128xbf16>) -> (tensor<64x128xbf16>, tensor<256x128xbf16>) {
    // expected-error @+1 {{teq-infer-prototypes needs resolved Linears: run teq-resolve-autocast first}}
    %dx, %dw = teq.linear_backward %dy, %sx, %sw config(#teq.linear<>) : tensor<64x256xbf16>, tensor<64x128xbf16>, tensor<256x128xbf16> dgrad(tensor<64x128xbf16>) wgrad(tensor<256x128xbf16>)
    return %dx, %dw : tensor<64x128xbf16>, tensor<256x128xbf16>
  }
}

// -----

// Resolved, but a caller feeds the backward function the high-precision
// tensors instead of the forward's saved ones: once @bwd takes quantized
// arguments the call no longer verifies, and the pass says so.
module attributes {teq.target = #teq.target<sm_90>} {
  func.func @bwd(%dy: tensor<64x256xbf16>, %sx: tensor<64x128xbf16>, %sw: tensor<256x128xbf16>) -> (tensor<64x128xbf16>, tensor<256x128xbf16>) {
    %dx, %dw = teq.linear_backward %dy, %sx, %sw config(#teq.linear<>) {quantization = #teq.linear_quantization<recipe = "Float8CurrentScaling", input = #teq.float8_current_scaling_quantizer<f8E4M3FN>, weight = #teq.float8_current_scaling_quantizer<f8E4M3FN>, output = #teq.float8_current_scaling_quantizer<f8E4M3FN>, grad_output = #teq.float8_current_scaling_quantizer<f8E5M2>, grad_input = #teq.float8_current_scaling_quantizer<f8E5M2>, fprop_split_accumulator = false>} : tensor<64x256xbf16>, tensor<64x128xbf16>, tensor<256x128xbf16> dgrad(tensor<64x128xbf16>) wgrad(tensor<256x128xbf16>)
    return %dx, %dw : tensor<64x128xbf16>, tensor<256x128xbf16>
  }
  func.func @caller(%x: tensor<64x128xbf16>, %w: tensor<256x128xbf16>, %dy: tensor<64x256xbf16>) -> (tensor<64x128xbf16>, tensor<256x128xbf16>) {
    // expected-error @+1 {{'func.call' op operand type mismatch: expected operand type '!teq.proto<64x128xbf16, #teq.float8_current_scaling_quantizer<f8E4M3FN>, columnwise>', but provided 'tensor<64x128xbf16>' for operand number 1}}
    %dx, %dw = func.call @bwd(%dy, %x, %w) : (tensor<64x256xbf16>, tensor<64x128xbf16>, tensor<256x128xbf16>) -> (tensor<64x128xbf16>, tensor<256x128xbf16>)
    return %dx, %dw : tensor<64x128xbf16>, tensor<256x128xbf16>
  }
}
