// What teq-cache-weight-quantization refuses, at the op or function.
// RUN: te-opt %s -split-input-file -verify-diagnostics --teq-cache-weight-quantization

!w = tensor<256x128xbf16>
!wq = !teq.proto<256x128xbf16, #teq.float8_quantizer<f8E4M3FN>, rowwise>
module attributes {teq.target = #teq.target<sm_90>} {
  func.func @delayed(%w: !w {teq.name = "fc1.weight", teq.role = "parameter"}, %scale: tensor<1xf32>, %hist: tensor<16xf32>)
      -> (!wq, tensor<16xf32>) attributes {teq.weight_cache} {
    // expected-error @+1 {{teq.weight_cache: the quantization of parameter 'fc1.weight' reads delayed-scaling state (its scale moves every step); a cached copy cannot follow it}}
    %wq, %h = teq.quantize %w state(%scale, %hist : tensor<1xf32>, tensor<16xf32>) : !w -> !wq, tensor<16xf32>
    return %wq, %h : !wq, tensor<16xf32>
  }
}

// -----

!w = tensor<256x128xbf16>
!wq = !teq.proto<256x128xbf16, #teq.float8_current_scaling_quantizer<f8E4M3FN>, rowwise>
module attributes {teq.target = #teq.target<sm_90>} {
  // expected-error @+1 {{teq.weight_cache: no argument is a parameter (teq.role = "parameter"): the cache keeps the quantized copies of parameters}}
  func.func @no_roles(%w: !w) -> !wq attributes {teq.weight_cache} {
    %wq = teq.quantize %w : !w -> !wq
    return %wq : !wq
  }
}

// -----

module attributes {teq.target = #teq.target<sm_90>} {
  // expected-error @+1 {{teq.weight_cache: @unquantized quantizes no parameter: there is nothing to cache}}
  func.func @unquantized(%w: tensor<4xbf16> {teq.role = "parameter"}) -> tensor<4xbf16> attributes {teq.weight_cache} {
    return %w : tensor<4xbf16>
  }
}

// -----

!w = tensor<256x128xbf16>
!wq = !teq.proto<256x128xbf16, #teq.float8_current_scaling_quantizer<f8E4M3FN>, rowwise>
module attributes {teq.target = #teq.target<sm_90>} {
  // expected-error @+1 {{teq.weight_cache: the module already has a @f_weights, the name of the entry it adds}}
  func.func @f(%w: !w {teq.role = "parameter"}) -> !wq attributes {teq.weight_cache} {
    %wq = teq.quantize %w : !w -> !wq
    return %wq : !wq
  }
  func.func @f_weights() {
    return
  }
}

// -----

// expected-error @+1 {{'teq.weight_cache' is a unit attribute of functions}}
module attributes {teq.weight_cache} {
}
