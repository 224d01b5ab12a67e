// RUN: te-opt %s | te-opt | FileCheck %s

// The norm ops print and parse back; eps is printed only when it is not
// the default (1e-5); zero_centered_gamma is a unit attribute.

// CHECK-LABEL: func.func @layer_norm
// CHECK: %y, %mean, %rstd = teq.layer_norm %arg0, %arg1, %arg2 : (tensor<256x1024xbf16>, tensor<1024xbf16>, tensor<1024xbf16>) -> (tensor<256x1024xbf16>, tensor<256xf32>, tensor<256xf32>)
// CHECK: teq.layer_norm %arg0, %arg3 {eps = 1.000000e-03 : f32, zero_centered_gamma} : (tensor<256x1024xbf16>, tensor<1024xf32>) -> (tensor<256x1024xbf16>, tensor<256xf32>, tensor<256xf32>)
func.func @layer_norm(%x: tensor<256x1024xbf16>, %g: tensor<1024xbf16>,
                      %b: tensor<1024xbf16>, %g32: tensor<1024xf32>) {
  %y, %mean, %rstd = teq.layer_norm %x, %g, %b
      : (tensor<256x1024xbf16>, tensor<1024xbf16>, tensor<1024xbf16>)
      -> (tensor<256x1024xbf16>, tensor<256xf32>, tensor<256xf32>)
  %y2:3 = teq.layer_norm %x, %g32 {eps = 1.0e-3 : f32, zero_centered_gamma}
      : (tensor<256x1024xbf16>, tensor<1024xf32>)
      -> (tensor<256x1024xbf16>, tensor<256xf32>, tensor<256xf32>)
  return
}

// A 3-D x: M is the product of the leading dimensions (4 * 16).
// CHECK-LABEL: func.func @layer_norm_backward
// CHECK: teq.layer_norm_backward %arg0, %arg1, %arg2, %arg3, %arg4 {zero_centered_gamma} : (tensor<4x16x512xf32>, tensor<4x16x512xf32>, tensor<64xf32>, tensor<64xf32>, tensor<512xf32>) -> (tensor<4x16x512xf32>, tensor<512xf32>, tensor<512xf32>)
func.func @layer_norm_backward(%dy: tensor<4x16x512xf32>, %x: tensor<4x16x512xf32>,
                               %mean: tensor<64xf32>, %rstd: tensor<64xf32>,
                               %g: tensor<512xf32>) {
  %dx:3 = teq.layer_norm_backward %dy, %x, %mean, %rstd, %g {zero_centered_gamma}
      : (tensor<4x16x512xf32>, tensor<4x16x512xf32>, tensor<64xf32>,
         tensor<64xf32>, tensor<512xf32>)
      -> (tensor<4x16x512xf32>, tensor<512xf32>, tensor<512xf32>)
  return
}

// CHECK-LABEL: func.func @rms_norm
// CHECK: %y, %rstd = teq.rms_norm %arg0, %arg1 : (tensor<64x4096xf16>, tensor<4096xf16>) -> (tensor<64x4096xf16>, tensor<64xf32>)
// CHECK: teq.rms_norm_backward %arg2, %arg0, %rstd, %arg1 {zero_centered_gamma} : (tensor<64x4096xf16>, tensor<64x4096xf16>, tensor<64xf32>, tensor<4096xf16>) -> (tensor<64x4096xf16>, tensor<4096xf16>)
func.func @rms_norm(%x: tensor<64x4096xf16>, %g: tensor<4096xf16>,
                    %dy: tensor<64x4096xf16>) {
  %y:2 = teq.rms_norm %x, %g
      : (tensor<64x4096xf16>, tensor<4096xf16>)
      -> (tensor<64x4096xf16>, tensor<64xf32>)
  %dx:2 = teq.rms_norm_backward %dy, %x, %y#1, %g {zero_centered_gamma}
      : (tensor<64x4096xf16>, tensor<64x4096xf16>, tensor<64xf32>,
         tensor<4096xf16>)
      -> (tensor<64x4096xf16>, tensor<4096xf16>)
  return
}

// With `add` (TE's rmsnorm_bwd_add): the last operand, dx's type.
// CHECK-LABEL: func.func @backward_add
// CHECK: teq.layer_norm_backward %arg0, %arg1, %arg2, %arg3, %arg4, %arg5 : (tensor<8x64xbf16>, tensor<8x64xbf16>, tensor<8xf32>, tensor<8xf32>, tensor<64xbf16>, tensor<8x64xbf16>) -> (tensor<8x64xbf16>, tensor<64xbf16>, tensor<64xbf16>)
// CHECK: teq.rms_norm_backward %arg0, %arg1, %arg3, %arg4, %arg5 {zero_centered_gamma} : (tensor<8x64xbf16>, tensor<8x64xbf16>, tensor<8xf32>, tensor<64xbf16>, tensor<8x64xbf16>) -> (tensor<8x64xbf16>, tensor<64xbf16>)
func.func @backward_add(%dy: tensor<8x64xbf16>, %x: tensor<8x64xbf16>,
                        %mean: tensor<8xf32>, %rstd: tensor<8xf32>,
                        %g: tensor<64xbf16>, %a: tensor<8x64xbf16>) {
  %ln:3 = teq.layer_norm_backward %dy, %x, %mean, %rstd, %g, %a
      : (tensor<8x64xbf16>, tensor<8x64xbf16>, tensor<8xf32>, tensor<8xf32>,
         tensor<64xbf16>, tensor<8x64xbf16>)
      -> (tensor<8x64xbf16>, tensor<64xbf16>, tensor<64xbf16>)
  %rms:2 = teq.rms_norm_backward %dy, %x, %rstd, %g, %a {zero_centered_gamma}
      : (tensor<8x64xbf16>, tensor<8x64xbf16>, tensor<8xf32>, tensor<64xbf16>,
         tensor<8x64xbf16>)
      -> (tensor<8x64xbf16>, tensor<64xbf16>)
  return
}
