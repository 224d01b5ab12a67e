// Activations through te-compile: teq-decompose-activations, then the
// elementwise fusion (ElementwiseFusion.h) makes each forward and each
// backward ONE kernel. A gated kind reads its halves in place (row stride
// 2n, column offset 0 or n) and its backward stores [da | db] into the
// halves of one buffer: no slice or copy kernels; rows that are not 16-byte
// vectors run one element at a time, and a gated input computed by another
// elementwise op is stored by that op's kernel and loaded by the
// activation's. The kernels call nothing (exp's polynomial range reduction
// floors through i32, no __nv_floorf).
// RUN: te-compile %s --emit=mlir -o - | FileCheck %s
// RUN: te-compile %s --emit=ptx -o - | FileCheck %s --check-prefix=PTX
// Without the decomposition, convert-teq-to-gpu says which pass to run.
// RUN: not te-opt %s --convert-teq-to-gpu 2>&1 | FileCheck %s --check-prefix=UNDECOMPOSED
// UNDECOMPOSED: error: 'teq.activation' op is lowered as arith/math ops: run teq-decompose-activations before convert-teq-to-gpu (teq-lower-to-gemm and te-compile do)

module attributes {teq.target = #teq.target<sm_90>} {
  func.func @gelu(%x: tensor<64x256xbf16>) -> tensor<64x256xbf16> {
    %y = teq.activation gelu %x : tensor<64x256xbf16> -> tensor<64x256xbf16>
    return %y : tensor<64x256xbf16>
  }
  func.func @gelu_backward(%dy: tensor<64x256xbf16>, %x: tensor<64x256xbf16>) -> tensor<64x256xbf16> {
    %dx = teq.activation_backward gelu %dy, %x : tensor<64x256xbf16>, tensor<64x256xbf16>
    return %dx : tensor<64x256xbf16>
  }
  func.func @swiglu(%x: tensor<64x512xbf16>) -> tensor<64x256xbf16> {
    %y = teq.activation swiglu %x : tensor<64x512xbf16> -> tensor<64x256xbf16>
    return %y : tensor<64x256xbf16>
  }
  func.func @swiglu_backward(%dy: tensor<64x256xbf16>, %x: tensor<64x512xbf16>) -> tensor<64x512xbf16> {
    %dx = teq.activation_backward swiglu %dy, %x : tensor<64x256xbf16>, tensor<64x512xbf16>
    return %dx : tensor<64x512xbf16>
  }
  // Rows of 7 are not 16-byte vectors: every element one at a time.
  func.func @swiglu_ragged(%x: tensor<33x14xbf16>) -> tensor<33x7xbf16> {
    %y = teq.activation swiglu %x : tensor<33x14xbf16> -> tensor<33x7xbf16>
    return %y : tensor<33x7xbf16>
  }
  // A gated input computed by an elementwise op: that op's kernel stores
  // [64, 512], the activation's loads its halves (the slices never join the
  // producer's kernel, whose elements are not the halves').
  func.func @squared_then_swiglu(%x: tensor<64x512xbf16>) -> tensor<64x256xbf16> {
    %s = arith.mulf %x, %x : tensor<64x512xbf16>
    %y = teq.activation swiglu %s : tensor<64x512xbf16> -> tensor<64x256xbf16>
    return %y : tensor<64x256xbf16>
  }
}

// The gated forward: x [64, 512] in, y [64, 256] out; the halves are
// loaded at row * 512 + column (+ 256).
// CHECK: gpu.func @[[$SWIGLU:e[0-9]+_fused[0-9]+]](%{{.*}}: memref<32768xbf16>, %{{.*}}: memref<16384xbf16>) kernel
// CHECK: arith.divui %{{.*}}, %c256
// CHECK: arith.remui %{{.*}}, %c256
// CHECK: arith.muli %{{.*}}, %c512
// The backward: dy [64, 256] and x [64, 512] in, dx [64, 512] out.
// CHECK: gpu.func @[[$SWIGLU_BWD:e[0-9]+_fused[0-9]+]](%{{.*}}: memref<16384xbf16>, %{{.*}}: memref<32768xbf16>, %{{.*}}: memref<32768xbf16>) kernel
// CHECK: gpu.func @[[$RAGGED:e[0-9]+_fused[0-9]+]](%{{.*}}: memref<462xbf16>, %{{.*}}: memref<231xbf16>) kernel
// CHECK-NOT: vector.load
// CHECK: gpu.return
// The square's kernel; the activation after it is swiglu's kernel again.
// CHECK: gpu.func @[[$SQUARE:e[0-9]+_mulf]](%{{.*}}: memref<32768xbf16>, %{{.*}}: memref<32768xbf16>) kernel
// CHECK-NOT: gpu.func

// One launch per entry.
// CHECK-LABEL: func.func @gelu(
// CHECK-COUNT-1: gpu.launch_func
// CHECK-NOT: gpu.launch_func
// CHECK-LABEL: func.func @gelu_backward(
// CHECK-COUNT-1: gpu.launch_func
// CHECK-NOT: gpu.launch_func
// CHECK-LABEL: func.func @swiglu(
// CHECK: gpu.launch_func {{.*}} @teq_kernels::@[[$SWIGLU]]
// CHECK-NOT: gpu.launch_func
// CHECK-LABEL: func.func @swiglu_backward(
// CHECK: gpu.launch_func {{.*}} @teq_kernels::@[[$SWIGLU_BWD]]
// CHECK-NOT: gpu.launch_func
// CHECK-LABEL: func.func @swiglu_ragged(
// CHECK: gpu.launch_func {{.*}} @teq_kernels::@[[$RAGGED]]
// CHECK-NOT: gpu.launch_func
// CHECK-LABEL: func.func @squared_then_swiglu(
// CHECK: gpu.launch_func {{.*}} @teq_kernels::@[[$SQUARE]]
// CHECK: gpu.launch_func {{.*}} @teq_kernels::@[[$SWIGLU]]
// CHECK-NOT: gpu.launch_func

// PTX-NOT: call
// PTX: cvt.rzi.s32.f32
// PTX-NOT: call
