// RUN: te-opt %s -split-input-file -teq-decompose-activations -canonicalize | FileCheck %s

// (-canonicalize, as teq-lower-to-gemm runs it, hoists and merges the splat
// constants and must leave the formulas as they are.)

// teq-decompose-activations: TE's formulas as written (te-layer-semantics.md
// §2.1) on f32 tensors, the operands upcast once and the result rounded once.

// GELU (tanh form): the forward's tanh argument is x * (c0 + c1 * x * x).
// CHECK-LABEL: func.func @gelu
// CHECK-DAG: %[[C0:.*]] = arith.constant dense<0.797884583> : tensor<4x8xf32>
// CHECK-DAG: %[[C1:.*]] = arith.constant dense<0.0356774107> : tensor<4x8xf32>
// CHECK-DAG: %[[HALF:.*]] = arith.constant dense<5.000000e-01> : tensor<4x8xf32>
// CHECK: %[[X:.*]] = arith.extf %arg0 : tensor<4x8xbf16> to tensor<4x8xf32>
// CHECK: %[[A:.*]] = arith.mulf %[[X]], %[[C1]]
// CHECK: %[[B:.*]] = arith.mulf %[[A]], %[[X]]
// CHECK: %[[IN:.*]] = arith.addf %[[B]], %[[C0]]
// CHECK: %[[ARG:.*]] = arith.mulf %[[X]], %[[IN]]
// CHECK: %[[T:.*]] = math.tanh %[[ARG]]
// CHECK: %[[HT:.*]] = arith.mulf %[[T]], %[[HALF]]
// CHECK: %[[S:.*]] = arith.addf %[[HT]], %[[HALF]]
// CHECK: %[[Y:.*]] = arith.mulf %[[X]], %[[S]]
// CHECK: %[[R:.*]] = arith.truncf %[[Y]] : tensor<4x8xf32> to tensor<4x8xbf16>
// CHECK: return %[[R]]
// CHECK-NOT: teq.activation
func.func @gelu(%x: tensor<4x8xbf16>) -> tensor<4x8xbf16> {
  %y = teq.activation gelu %x : tensor<4x8xbf16> -> tensor<4x8xbf16>
  return %y : tensor<4x8xbf16>
}

// -----

// GELU's backward writes its tanh argument as c0 * x * (1 + 0.044715 * x * x)
// and multiplies by the upcast incoming gradient before the one rounding.
// CHECK-LABEL: func.func @gelu_backward
// CHECK-DAG: %[[C0:.*]] = arith.constant dense<0.797884583> : tensor<4x8xf32>
// CHECK-DAG: %[[CUBIC:.*]] = arith.constant dense<4.471500e-02> : tensor<4x8xf32>
// CHECK-DAG: %[[DC:.*]] = arith.constant dense<0.107032225> : tensor<4x8xf32>
// CHECK-DAG: %[[ONE:.*]] = arith.constant dense<1.000000e+00> : tensor<4x8xf32>
// CHECK-DAG: %[[HALF:.*]] = arith.constant dense<5.000000e-01> : tensor<4x8xf32>
// CHECK: %[[G:.*]] = arith.extf %arg0 : tensor<4x8xbf16> to tensor<4x8xf32>
// CHECK: %[[X:.*]] = arith.extf %arg1 : tensor<4x8xbf16> to tensor<4x8xf32>
// CHECK: %[[K:.*]] = arith.mulf %[[X]], %[[CUBIC]]
// CHECK: %[[KX:.*]] = arith.mulf %[[K]], %[[X]]
// CHECK: %[[ONEK:.*]] = arith.addf %[[KX]], %[[ONE]]
// CHECK: %[[CX:.*]] = arith.mulf %[[X]], %[[C0]]
// CHECK: %[[ARG:.*]] = arith.mulf %[[CX]], %[[ONEK]]
// CHECK: %[[T:.*]] = math.tanh %[[ARG]]
// CHECK: %[[R:.*]] = arith.mulf %[[X]], %[[DC]]
// CHECK: %[[RX:.*]] = arith.mulf %[[R]], %[[X]]
// CHECK: %[[POLY:.*]] = arith.addf %[[RX]], %[[C0]]
// CHECK: %[[TT:.*]] = arith.mulf %[[T]], %[[T]]
// CHECK: %[[SECH:.*]] = arith.subf %[[ONE]], %[[TT]]
// CHECK: %[[SLOPE:.*]] = arith.mulf %[[SECH]], %[[POLY]]
// CHECK: %[[T1:.*]] = arith.addf %[[T]], %[[ONE]]
// CHECK: %[[HT1:.*]] = arith.mulf %[[T1]], %[[HALF]]
// CHECK: %[[HX:.*]] = arith.mulf %[[X]], %[[HALF]]
// CHECK: %[[L:.*]] = arith.mulf %[[HX]], %[[SLOPE]]
// CHECK: %[[D:.*]] = arith.addf %[[L]], %[[HT1]]
// CHECK: %[[DX:.*]] = arith.mulf %[[D]], %[[G]]
// CHECK: arith.truncf %[[DX]] : tensor<4x8xf32> to tensor<4x8xbf16>
func.func @gelu_backward(%dy: tensor<4x8xbf16>, %x: tensor<4x8xbf16>) -> tensor<4x8xbf16> {
  %dx = teq.activation_backward gelu %dy, %x : tensor<4x8xbf16>, tensor<4x8xbf16>
  return %dx : tensor<4x8xbf16>
}

// -----

// f32: no extf, no truncf. sigmoid is 1 / (1 + exp(-x)).
// CHECK-LABEL: func.func @silu_f32
// CHECK: %[[ONE:.*]] = arith.constant dense<1.000000e+00>
// CHECK-NOT: arith.extf
// CHECK: %[[N:.*]] = arith.negf %arg0
// CHECK: %[[E:.*]] = math.exp %[[N]]
// CHECK: %[[D:.*]] = arith.addf %[[E]], %[[ONE]]
// CHECK: %[[S:.*]] = arith.divf %[[ONE]], %[[D]]
// CHECK: %[[Y:.*]] = arith.mulf %arg0, %[[S]]
// CHECK-NOT: arith.truncf
// CHECK: return %[[Y]]
func.func @silu_f32(%x: tensor<4x8xf32>) -> tensor<4x8xf32> {
  %y = teq.activation silu %x : tensor<4x8xf32> -> tensor<4x8xf32>
  return %y : tensor<4x8xf32>
}

// -----

// SwiGLU: the first half is activated, the second is linear; read through
// slices at last-dim offsets 0 and n.
// CHECK-LABEL: func.func @swiglu
// CHECK: %[[A16:.*]] = tensor.extract_slice %arg0[0, 0, 0] [2, 3, 4] [1, 1, 1] : tensor<2x3x8xbf16> to tensor<2x3x4xbf16>
// CHECK: %[[A:.*]] = arith.extf %[[A16]]
// CHECK: %[[B16:.*]] = tensor.extract_slice %arg0[0, 0, 4] [2, 3, 4] [1, 1, 1]
// CHECK: %[[B:.*]] = arith.extf %[[B16]]
// CHECK: math.exp
// CHECK: %[[S:.*]] = arith.divf
// CHECK: %[[F:.*]] = arith.mulf %[[A]], %[[S]]
// CHECK: %[[Y:.*]] = arith.mulf %[[F]], %[[B]]
// CHECK: arith.truncf %[[Y]] : tensor<2x3x4xf32> to tensor<2x3x4xbf16>
func.func @swiglu(%x: tensor<2x3x8xbf16>) -> tensor<2x3x4xbf16> {
  %y = teq.activation swiglu %x : tensor<2x3x8xbf16> -> tensor<2x3x4xbf16>
  return %y : tensor<2x3x4xbf16>
}

// -----

// The gated backward: da = (f'(a) * g) * b, db = g * f(a), each rounded
// once, joined as [da | db] on the last dimension. One sigmoid serves both.
// CHECK-LABEL: func.func @swiglu_backward
// CHECK: %[[G:.*]] = arith.extf %arg0
// CHECK: %[[A:.*]] = arith.extf %{{.*}} : tensor<4x4xbf16> to tensor<4x4xf32>
// CHECK: %[[B:.*]] = arith.extf %{{.*}} : tensor<4x4xbf16> to tensor<4x4xf32>
// CHECK: math.exp
// CHECK: %[[S:.*]] = arith.divf
// CHECK: %[[DS:.*]] = arith.mulf %[[S]], %{{.*}}
// CHECK: %[[ADS:.*]] = arith.mulf %[[A]], %[[DS]]
// CHECK: %[[DF:.*]] = arith.addf %[[ADS]], %[[S]]
// CHECK: %[[DG:.*]] = arith.mulf %[[DF]], %[[G]]
// CHECK: %[[DA:.*]] = arith.mulf %[[DG]], %[[B]]
// CHECK: %[[FA:.*]] = arith.mulf %[[A]], %[[S]]
// CHECK: %[[DB:.*]] = arith.mulf %[[G]], %[[FA]]
// CHECK: %[[DA16:.*]] = arith.truncf %[[DA]]
// CHECK: %[[DB16:.*]] = arith.truncf %[[DB]]
// CHECK: tensor.concat dim(1) %[[DA16]], %[[DB16]] : (tensor<4x4xbf16>, tensor<4x4xbf16>) -> tensor<4x8xbf16>
// CHECK-NOT: math.exp
func.func @swiglu_backward(%dy: tensor<4x4xbf16>, %x: tensor<4x8xbf16>) -> tensor<4x8xbf16> {
  %dx = teq.activation_backward swiglu %dy, %x : tensor<4x4xbf16>, tensor<4x8xbf16>
  return %dx : tensor<4x8xbf16>
}

// -----

// relu is maxnumf(x, 0) (a NaN gives 0); its derivative x > 0 ? 1 : 0 is
// min(max(x * 2^127 * 2^127, 0), 1).
// CHECK-LABEL: func.func @relu
// CHECK: %[[BIG:.*]] = arith.constant dense<1.70141183E+38> : tensor<4x8xf32>
// CHECK: arith.maxnumf %{{.*}}, %{{.*}} : tensor<4x8xf32>
// CHECK: %[[S1:.*]] = arith.mulf %{{.*}}, %[[BIG]]
// CHECK: %[[S2:.*]] = arith.mulf %[[S1]], %[[BIG]]
// CHECK: %[[M:.*]] = arith.maxnumf %[[S2]], %{{.*}}
// CHECK: arith.minnumf %[[M]], %{{.*}}
func.func @relu(%x: tensor<4x8xbf16>, %dy: tensor<4x8xbf16>) -> (tensor<4x8xbf16>, tensor<4x8xbf16>) {
  %y = teq.activation relu %x : tensor<4x8xbf16> -> tensor<4x8xbf16>
  %dx = teq.activation_backward relu %dy, %x : tensor<4x8xbf16>, tensor<4x8xbf16>
  return %y, %dx : tensor<4x8xbf16>, tensor<4x8xbf16>
}

// -----

// PyTorch's exact GELU: x * 0.5 * (1 + erf(x * sqrt(1/2))), and its
// backward cdf + x * exp(-0.5 * x * x) * kBeta.
// CHECK-LABEL: func.func @gelu_erf
// CHECK-DAG: %[[ALPHA:.*]] = arith.constant dense<0.707106769>
// CHECK-DAG: %[[MHALF:.*]] = arith.constant dense<-5.000000e-01>
// CHECK-DAG: %[[BETA:.*]] = arith.constant dense<0.398942292>
// CHECK: math.erf
// CHECK: math.erf
// CHECK: %[[NX:.*]] = arith.mulf %{{.*}}, %[[MHALF]] :
// CHECK: %[[NXX:.*]] = arith.mulf %[[NX]], %{{.*}}
// CHECK: %[[E:.*]] = math.exp %[[NXX]]
// CHECK: arith.mulf %[[E]], %[[BETA]]
func.func @gelu_erf(%x: tensor<4x8xf16>, %dy: tensor<4x8xf16>) -> (tensor<4x8xf16>, tensor<4x8xf16>) {
  %y = teq.activation gelu_erf %x : tensor<4x8xf16> -> tensor<4x8xf16>
  %dx = teq.activation_backward gelu_erf %dy, %x : tensor<4x8xf16>, tensor<4x8xf16>
  return %y, %dx : tensor<4x8xf16>, tensor<4x8xf16>
}
