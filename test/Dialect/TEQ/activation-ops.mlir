// RUN: te-opt %s | te-opt | FileCheck %s

// teq.activation and teq.activation_backward print and parse back, every
// kind: the non-gated ones keep the shape, the gated ones halve the last
// dimension ([..., 2n] -> [..., n]) and their backward gives [..., 2n].

// CHECK-LABEL: func.func @every_kind
func.func @every_kind(%x: tensor<4x8xbf16>, %xf: tensor<2x3x8xf32>, %xh: tensor<4x8xf16>) {
  // CHECK: teq.activation gelu %{{.*}} : tensor<4x8xbf16> -> tensor<4x8xbf16>
  %0 = teq.activation gelu %x : tensor<4x8xbf16> -> tensor<4x8xbf16>
  // CHECK: teq.activation gelu_erf
  %1 = teq.activation gelu_erf %x : tensor<4x8xbf16> -> tensor<4x8xbf16>
  // CHECK: teq.activation qgelu
  %2 = teq.activation qgelu %xh : tensor<4x8xf16> -> tensor<4x8xf16>
  // CHECK: teq.activation silu
  %3 = teq.activation silu %xf : tensor<2x3x8xf32> -> tensor<2x3x8xf32>
  // CHECK: teq.activation relu
  %4 = teq.activation relu %x : tensor<4x8xbf16> -> tensor<4x8xbf16>
  // CHECK: teq.activation srelu
  %5 = teq.activation srelu %x : tensor<4x8xbf16> -> tensor<4x8xbf16>
  // CHECK: teq.activation tanh
  %6 = teq.activation tanh %x : tensor<4x8xbf16> -> tensor<4x8xbf16>
  // CHECK: teq.activation sigmoid
  %7 = teq.activation sigmoid %x : tensor<4x8xbf16> -> tensor<4x8xbf16>
  // CHECK: teq.activation geglu %{{.*}} : tensor<4x8xbf16> -> tensor<4x4xbf16>
  %8 = teq.activation geglu %x : tensor<4x8xbf16> -> tensor<4x4xbf16>
  // CHECK: teq.activation qgeglu
  %9 = teq.activation qgeglu %x : tensor<4x8xbf16> -> tensor<4x4xbf16>
  // CHECK: teq.activation reglu
  %10 = teq.activation reglu %x : tensor<4x8xbf16> -> tensor<4x4xbf16>
  // CHECK: teq.activation sreglu
  %11 = teq.activation sreglu %x : tensor<4x8xbf16> -> tensor<4x4xbf16>
  // CHECK: teq.activation swiglu %{{.*}} : tensor<2x3x8xf32> -> tensor<2x3x4xf32>
  %12 = teq.activation swiglu %xf : tensor<2x3x8xf32> -> tensor<2x3x4xf32>
  // CHECK: teq.activation glu
  %13 = teq.activation glu %x : tensor<4x8xbf16> -> tensor<4x4xbf16>
  return
}

// CHECK-LABEL: func.func @backward
func.func @backward(%dy: tensor<4x8xbf16>, %x: tensor<4x8xbf16>, %dg: tensor<4x4xf32>) -> (tensor<4x8xbf16>, tensor<4x8xbf16>) {
  // CHECK: teq.activation_backward gelu %{{.*}}, %{{.*}} : tensor<4x8xbf16>, tensor<4x8xbf16>
  %0 = teq.activation_backward gelu %dy, %x : tensor<4x8xbf16>, tensor<4x8xbf16>
  // The incoming gradient may have another dtype; dx has x's type.
  // CHECK: teq.activation_backward swiglu %{{.*}}, %{{.*}} : tensor<4x4xf32>, tensor<4x8xbf16>
  %1 = teq.activation_backward swiglu %dg, %x : tensor<4x4xf32>, tensor<4x8xbf16>
  return %0, %1 : tensor<4x8xbf16>, tensor<4x8xbf16>
}
