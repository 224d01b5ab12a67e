// teq-fuse-residual-adds: an arith.addf of a teq.gemm result and a tensor of
// the same type becomes the GEMM with accumulate (beta = 1, cuBLASLt's C),
// where the GEMM's result has no other reader, it does not accumulate yet and
// computes no dbias.
// RUN: te-opt %s -split-input-file --teq-fuse-residual-adds | FileCheck %s

!q = !teq.proto<256x128xbf16, #teq.float8_current_scaling_quantizer<f8E4M3FN>, rowwise>
!x = !teq.proto<64x128xbf16, #teq.float8_current_scaling_quantizer<f8E4M3FN>, rowwise>

// CHECK-LABEL: func.func @residual_after(
// CHECK-SAME: %[[W:[a-z0-9_]+]]: {{.*}}, %[[X:[a-z0-9_]+]]: {{.*}}, %[[B:[a-z0-9_]+]]: tensor<256xbf16>, %[[R:[a-z0-9_]+]]: tensor<64x256xbf16>)
// CHECK-NEXT: %[[H:.*]] = teq.gemm TN %[[W]], %[[X]] bias(%[[B]] : tensor<256xbf16>) accumulate(%[[R]] : tensor<64x256xbf16>) {kind = #teq.gemm_kind<fprop>, use_split_accumulator = false}
// CHECK-NEXT: return %[[H]]
func.func @residual_after(%w: !q, %x: !x, %b: tensor<256xbf16>, %r: tensor<64x256xbf16>) -> tensor<64x256xbf16> {
  %y = teq.gemm TN %w, %x bias(%b : tensor<256xbf16>) {kind = #teq.gemm_kind<fprop>, use_split_accumulator = false} : !q, !x -> tensor<64x256xbf16>
  %h = arith.addf %y, %r : tensor<64x256xbf16>
  return %h : tensor<64x256xbf16>
}

// -----

!q = !teq.proto<256x128xbf16, #teq.float8_current_scaling_quantizer<f8E4M3FN>, rowwise>
!x = !teq.proto<64x128xbf16, #teq.float8_current_scaling_quantizer<f8E4M3FN>, rowwise>

// The residual on the left; the residual computed after the GEMM.
// CHECK-LABEL: func.func @residual_first(
// CHECK: %[[R:.*]] = arith.mulf
// CHECK-NEXT: %[[H:.*]] = teq.gemm TN %{{.*}}, %{{.*}} accumulate(%[[R]] : tensor<64x256xbf16>)
// CHECK-NEXT: return %[[H]]
func.func @residual_first(%w: !q, %x: !x, %r0: tensor<64x256xbf16>) -> tensor<64x256xbf16> {
  %y = teq.gemm TN %w, %x : !q, !x -> tensor<64x256xbf16>
  %r = arith.mulf %r0, %r0 : tensor<64x256xbf16>
  %h = arith.addf %r, %y : tensor<64x256xbf16>
  return %h : tensor<64x256xbf16>
}

// -----

!q = !teq.proto<256x128xbf16, #teq.float8_current_scaling_quantizer<f8E4M3FN>, rowwise>
!x = !teq.proto<64x128xbf16, #teq.float8_current_scaling_quantizer<f8E4M3FN>, rowwise>

// Left alone: a GEMM whose output is read elsewhere too (returned; added to
// itself); a GEMM that accumulates already.
// CHECK-LABEL: func.func @not_fused(
// CHECK: %[[Y:.*]] = teq.gemm TN
// CHECK-NOT: accumulate
// CHECK: arith.addf %[[Y]]
// CHECK: %[[Z:.*]] = teq.gemm TN
// CHECK-NOT: accumulate
// CHECK: arith.addf %[[Z]]
// CHECK: %[[A:.*]] = teq.gemm TN %{{.*}}, %{{.*}} accumulate(%{{.*}} : tensor<64x256xf32>)
// CHECK-NEXT: arith.addf %[[A]]
func.func @not_fused(%w: !q, %x: !x, %r: tensor<64x256xbf16>, %rf: tensor<64x256xf32>, %mg: tensor<64x256xf32>)
    -> (tensor<64x256xbf16>, tensor<64x256xbf16>, tensor<64x256xf32>, tensor<64x256xf32>) {
  %y = teq.gemm TN %w, %x : !q, !x -> tensor<64x256xbf16>
  %h = arith.addf %y, %r : tensor<64x256xbf16>
  %z = teq.gemm TN %w, %x : !q, !x -> tensor<64x256xf32>
  %rz = arith.addf %z, %z : tensor<64x256xf32>
  %a = teq.gemm TN %w, %x accumulate(%mg : tensor<64x256xf32>) : !q, !x -> tensor<64x256xf32>
  %ha = arith.addf %a, %rf : tensor<64x256xf32>
  return %h, %y, %rz, %ha : tensor<64x256xbf16>, tensor<64x256xbf16>, tensor<64x256xf32>, tensor<64x256xf32>
}
