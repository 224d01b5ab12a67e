// RUN: te-opt %s -split-input-file -verify-diagnostics

// Every error of teq.activation and teq.activation_backward.

func.func @gated_odd(%x: tensor<4x7xbf16>) {
  // expected-error @+1 {{gated activation swiglu needs an input whose last dimension is static and even ([..., 2n]: the activated half, then the linear half), got [4, 7]}}
  %0 = teq.activation swiglu %x : tensor<4x7xbf16> -> tensor<4x3xbf16>
  return
}

// -----

func.func @gated_dynamic(%x: tensor<4x?xbf16>) {
  // expected-error @+1 {{gated activation geglu needs an input whose last dimension is static and even}}
  %0 = teq.activation geglu %x : tensor<4x?xbf16> -> tensor<4x?xbf16>
  return
}

// -----

func.func @gated_not_halved(%x: tensor<4x8xbf16>) {
  // expected-error @+1 {{result must be [4, 4] for reglu of [4, 8], got [4, 8]}}
  %0 = teq.activation reglu %x : tensor<4x8xbf16> -> tensor<4x8xbf16>
  return
}

// -----

func.func @shape_changed(%x: tensor<4x8xbf16>) {
  // expected-error @+1 {{result must be [4, 8] for gelu of [4, 8], got [8, 4]}}
  %0 = teq.activation gelu %x : tensor<4x8xbf16> -> tensor<8x4xbf16>
  return
}

// -----

func.func @dtype_changed(%x: tensor<4x8xbf16>) {
  // expected-error @+1 {{result element type 'f32' must be the input's ('bf16')}}
  %0 = teq.activation silu %x : tensor<4x8xbf16> -> tensor<4x8xf32>
  return
}

// -----

func.func @integer_input(%x: tensor<4x8xi32>) {
  // expected-error @+1 {{operand #0 must be ranked tensor of bfloat16 type or 16-bit float or 32-bit float values}}
  %0 = teq.activation relu %x : tensor<4x8xi32> -> tensor<4x8xi32>
  return
}

// -----

func.func @unknown_kind(%x: tensor<4x8xbf16>) {
  // expected-error @+1 {{expected string or keyword containing one of the following enum values for attribute 'kind' [gelu, gelu_erf, qgelu, silu, relu, srelu, tanh, sigmoid, geglu, qgeglu, reglu, sreglu, swiglu, glu]}}
  %0 = teq.activation mish %x : tensor<4x8xbf16> -> tensor<4x8xbf16>
  return
}

// -----

func.func @grad_shape(%dy: tensor<4x4xbf16>, %x: tensor<4x8xbf16>) {
  // expected-error @+1 {{the incoming gradient must have the forward result's shape [4, 8] (gelu of [4, 8]), got [4, 4]}}
  %0 = teq.activation_backward gelu %dy, %x : tensor<4x4xbf16>, tensor<4x8xbf16>
  return
}

// -----

func.func @gated_grad_shape(%dy: tensor<4x8xbf16>, %x: tensor<4x8xbf16>) {
  // expected-error @+1 {{the incoming gradient must have the forward result's shape [4, 4] (swiglu of [4, 8]), got [4, 8]}}
  %0 = teq.activation_backward swiglu %dy, %x : tensor<4x8xbf16>, tensor<4x8xbf16>
  return
}

// -----

func.func @gated_backward_odd(%dy: tensor<4x3xbf16>, %x: tensor<4x7xbf16>) {
  // expected-error @+1 {{gated activation glu needs an input whose last dimension is static and even}}
  %0 = teq.activation_backward glu %dy, %x : tensor<4x3xbf16>, tensor<4x7xbf16>
  return
}
