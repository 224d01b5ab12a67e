// RUN: te-opt %s -split-input-file -verify-diagnostics

// Every error of the norm ops' verifiers (TEQNormOps.cpp), one per split.

func.func @eps_zero(%x: tensor<8x64xbf16>, %g: tensor<64xbf16>) {
  // expected-error @+1 {{'teq.layer_norm' op eps must be a finite number > 0, got 0}}
  %y:3 = teq.layer_norm %x, %g {eps = 0.0 : f32}
      : (tensor<8x64xbf16>, tensor<64xbf16>) -> (tensor<8x64xbf16>, tensor<8xf32>, tensor<8xf32>)
  return
}

// -----

func.func @eps_negative(%x: tensor<8x64xbf16>, %g: tensor<64xbf16>) {
  // expected-error @+1 {{'teq.rms_norm' op eps must be a finite number > 0, got -1}}
  %y:2 = teq.rms_norm %x, %g {eps = -1.0 : f32}
      : (tensor<8x64xbf16>, tensor<64xbf16>) -> (tensor<8x64xbf16>, tensor<8xf32>)
  return
}

// -----

func.func @rank1(%x: tensor<64xbf16>, %g: tensor<64xbf16>) {
  // expected-error @+1 {{'teq.rms_norm' op x must have rank >= 2 (rows, then the normalised last dimension), got 'tensor<64xbf16>'}}
  %y:2 = teq.rms_norm %x, %g
      : (tensor<64xbf16>, tensor<64xbf16>) -> (tensor<64xbf16>, tensor<1xf32>)
  return
}

// -----

func.func @dynamic_hidden(%x: tensor<8x?xbf16>, %g: tensor<64xbf16>) {
  // expected-error @+1 {{'teq.rms_norm' op the normalised (last) dimension of x must be static and >= 1, got 'tensor<8x?xbf16>'}}
  %y:2 = teq.rms_norm %x, %g
      : (tensor<8x?xbf16>, tensor<64xbf16>) -> (tensor<8x?xbf16>, tensor<8xf32>)
  return
}

// -----

func.func @gamma_shape(%x: tensor<8x64xbf16>, %g: tensor<32xbf16>) {
  // expected-error @+1 {{'teq.layer_norm' op gamma must be [64] (x's last dimension), got 'tensor<32xbf16>'}}
  %y:3 = teq.layer_norm %x, %g
      : (tensor<8x64xbf16>, tensor<32xbf16>) -> (tensor<8x64xbf16>, tensor<8xf32>, tensor<8xf32>)
  return
}

// -----

func.func @gamma_dtype(%x: tensor<8x64xbf16>, %g: tensor<64xf16>) {
  // expected-error @+1 {{'teq.layer_norm' op gamma must be of x's dtype ('bf16') or f32, got 'f16'}}
  %y:3 = teq.layer_norm %x, %g
      : (tensor<8x64xbf16>, tensor<64xf16>) -> (tensor<8x64xbf16>, tensor<8xf32>, tensor<8xf32>)
  return
}

// -----

func.func @beta_dtype(%x: tensor<8x64xbf16>, %g: tensor<64xf32>, %b: tensor<64xbf16>) {
  // expected-error @+1 {{'teq.layer_norm' op beta must have gamma's dtype ('f32'), got 'bf16'}}
  %y:3 = teq.layer_norm %x, %g, %b
      : (tensor<8x64xbf16>, tensor<64xf32>, tensor<64xbf16>) -> (tensor<8x64xbf16>, tensor<8xf32>, tensor<8xf32>)
  return
}

// -----

func.func @stats_shape(%x: tensor<2x4x64xbf16>, %g: tensor<64xbf16>) {
  // expected-error @+1 {{'teq.layer_norm' op rstd must be f32 [M], M = 8 (the product of x's leading dimensions), got 'tensor<4xf32>'}}
  %y:3 = teq.layer_norm %x, %g
      : (tensor<2x4x64xbf16>, tensor<64xbf16>) -> (tensor<2x4x64xbf16>, tensor<8xf32>, tensor<4xf32>)
  return
}

// -----

func.func @stats_dtype(%x: tensor<8x64xbf16>, %g: tensor<64xbf16>) {
  // expected-error @+1 {{result #1 must be ranked tensor of 32-bit float values}}
  %y:3 = teq.layer_norm %x, %g
      : (tensor<8x64xbf16>, tensor<64xbf16>) -> (tensor<8x64xbf16>, tensor<8xbf16>, tensor<8xf32>)
  return
}

// -----

func.func @y_type(%x: tensor<8x64xbf16>, %g: tensor<64xbf16>) {
  // expected-error @+1 {{'teq.rms_norm' op y must have x's type tensor<8x64xbf16>, got tensor<8x64xf32>}}
  %y:2 = teq.rms_norm %x, %g
      : (tensor<8x64xbf16>, tensor<64xbf16>) -> (tensor<8x64xf32>, tensor<8xf32>)
  return
}

// -----

func.func @int_x(%x: tensor<8x64xi8>, %g: tensor<64xbf16>) {
  // expected-error @+1 {{operand #0 must be ranked tensor of bfloat16 type or 16-bit float or 32-bit float values}}
  %y:2 = teq.rms_norm %x, %g
      : (tensor<8x64xi8>, tensor<64xbf16>) -> (tensor<8x64xi8>, tensor<8xf32>)
  return
}

// -----

func.func @dy_type(%dy: tensor<8x64xf32>, %x: tensor<8x64xbf16>, %m: tensor<8xf32>, %r: tensor<8xf32>, %g: tensor<64xbf16>) {
  // expected-error @+1 {{'teq.layer_norm_backward' op dy must have x's type tensor<8x64xbf16>, got tensor<8x64xf32>}}
  %d:3 = teq.layer_norm_backward %dy, %x, %m, %r, %g
      : (tensor<8x64xf32>, tensor<8x64xbf16>, tensor<8xf32>, tensor<8xf32>, tensor<64xbf16>)
      -> (tensor<8x64xbf16>, tensor<64xbf16>, tensor<64xbf16>)
  return
}

// -----

func.func @dgamma_dtype(%dy: tensor<8x64xbf16>, %x: tensor<8x64xbf16>, %m: tensor<8xf32>, %r: tensor<8xf32>, %g: tensor<64xbf16>) {
  // expected-error @+1 {{'teq.layer_norm_backward' op dbeta must have gamma's dtype ('bf16'), got 'f32'}}
  %d:3 = teq.layer_norm_backward %dy, %x, %m, %r, %g
      : (tensor<8x64xbf16>, tensor<8x64xbf16>, tensor<8xf32>, tensor<8xf32>, tensor<64xbf16>)
      -> (tensor<8x64xbf16>, tensor<64xbf16>, tensor<64xf32>)
  return
}

// -----

func.func @rms_backward_dgamma(%dy: tensor<8x64xbf16>, %x: tensor<8x64xbf16>, %r: tensor<8xf32>, %g: tensor<64xbf16>) {
  // expected-error @+1 {{'teq.rms_norm_backward' op dgamma must be [64] (x's last dimension), got 'tensor<8xbf16>'}}
  %d:2 = teq.rms_norm_backward %dy, %x, %r, %g
      : (tensor<8x64xbf16>, tensor<8x64xbf16>, tensor<8xf32>, tensor<64xbf16>)
      -> (tensor<8x64xbf16>, tensor<8xbf16>)
  return
}

// -----

// `add` (TE's rmsnorm_bwd_add) is added to dx element for element.
func.func @add_dtype(%dy: tensor<8x64xbf16>, %x: tensor<8x64xbf16>, %m: tensor<8xf32>, %r: tensor<8xf32>, %g: tensor<64xbf16>, %a: tensor<8x64xf32>) {
  // expected-error @+1 {{'teq.layer_norm_backward' op add must have dx's type tensor<8x64xbf16>, got tensor<8x64xf32>}}
  %d:3 = teq.layer_norm_backward %dy, %x, %m, %r, %g, %a
      : (tensor<8x64xbf16>, tensor<8x64xbf16>, tensor<8xf32>, tensor<8xf32>, tensor<64xbf16>, tensor<8x64xf32>)
      -> (tensor<8x64xbf16>, tensor<64xbf16>, tensor<64xbf16>)
  return
}

// -----

func.func @add_shape(%dy: tensor<8x64xbf16>, %x: tensor<8x64xbf16>, %r: tensor<8xf32>, %g: tensor<64xbf16>, %a: tensor<64x8xbf16>) {
  // expected-error @+1 {{'teq.rms_norm_backward' op add must have dx's type tensor<8x64xbf16>, got tensor<64x8xbf16>}}
  %d:2 = teq.rms_norm_backward %dy, %x, %r, %g, %a
      : (tensor<8x64xbf16>, tensor<8x64xbf16>, tensor<8xf32>, tensor<64xbf16>, tensor<64x8xbf16>)
      -> (tensor<8x64xbf16>, tensor<64xbf16>)
  return
}
