// teq-fuse-norm-backward-adds: an arith.addf of a norm backward's dx and a
// tensor of dx's type becomes the backward with that tensor as its `add`
// (TE's rmsnorm_bwd_add: added in f32 before dx's one rounding), where dx has
// no other reader and the backward has no add yet.
// RUN: te-opt %s -split-input-file --teq-fuse-norm-backward-adds | FileCheck %s

// The residual gradient an argument, on either side of the add.
// CHECK-LABEL: func.func @layer_norm(
// CHECK-SAME: %[[DY:[a-z0-9_]+]]: tensor<64x256xbf16>, %[[X:[a-z0-9_]+]]: tensor<64x256xbf16>, %[[M:[a-z0-9_]+]]: tensor<64xf32>, %[[R:[a-z0-9_]+]]: tensor<64xf32>, %[[G:[a-z0-9_]+]]: tensor<256xbf16>, %[[GO:[a-z0-9_]+]]: tensor<64x256xbf16>)
// CHECK-NEXT: %[[GX:[a-z0-9_]+]], %[[DG:[a-z0-9_]+]], %[[DB:[a-z0-9_]+]] = teq.layer_norm_backward %[[DY]], %[[X]], %[[M]], %[[R]], %[[G]], %[[GO]] {zero_centered_gamma}
// CHECK-NEXT: return %[[GX]], %[[DG]], %[[DB]] :
func.func @layer_norm(%dy: tensor<64x256xbf16>, %x: tensor<64x256xbf16>, %m: tensor<64xf32>,
                      %r: tensor<64xf32>, %g: tensor<256xbf16>, %go: tensor<64x256xbf16>)
    -> (tensor<64x256xbf16>, tensor<256xbf16>, tensor<256xbf16>) {
  %dx, %dg, %db = teq.layer_norm_backward %dy, %x, %m, %r, %g {zero_centered_gamma}
      : (tensor<64x256xbf16>, tensor<64x256xbf16>, tensor<64xf32>, tensor<64xf32>, tensor<256xbf16>)
      -> (tensor<64x256xbf16>, tensor<256xbf16>, tensor<256xbf16>)
  %gx = arith.addf %go, %dx : tensor<64x256xbf16>
  return %gx, %dg, %db : tensor<64x256xbf16>, tensor<256xbf16>, tensor<256xbf16>
}

// -----

// The residual gradient computed after the norm (on the right): the fused
// op goes where the add was; dgamma is read only after it.
// CHECK-LABEL: func.func @rms_norm_after(
// CHECK: %[[A:.*]] = arith.mulf
// CHECK-NEXT: %[[GX:[a-z0-9_]+]], %[[DG:[a-z0-9_]+]] = teq.rms_norm_backward %{{[^,]*}}, %{{[^,]*}}, %{{[^,]*}}, %{{[^,]*}}, %[[A]] :
// CHECK-NEXT: %[[S:.*]] = arith.mulf %[[DG]], %[[DG]]
// CHECK-NEXT: return %[[GX]], %[[S]] :
func.func @rms_norm_after(%dy: tensor<64x256xbf16>, %x: tensor<64x256xbf16>, %r: tensor<64xf32>,
                          %g: tensor<256xf32>, %a0: tensor<64x256xbf16>)
    -> (tensor<64x256xbf16>, tensor<256xf32>) {
  %dx, %dg = teq.rms_norm_backward %dy, %x, %r, %g
      : (tensor<64x256xbf16>, tensor<64x256xbf16>, tensor<64xf32>, tensor<256xf32>)
      -> (tensor<64x256xbf16>, tensor<256xf32>)
  %a = arith.mulf %a0, %a0 : tensor<64x256xbf16>
  %gx = arith.addf %dx, %a : tensor<64x256xbf16>
  %s = arith.mulf %dg, %dg : tensor<256xf32>
  return %gx, %s : tensor<64x256xbf16>, tensor<256xf32>
}

// -----

// Left alone: dx read elsewhere too (returned); an addend computed after the
// norm while dgamma is read before the add (the fused op would have to go
// at the add, after dgamma's reader); a backward that has an add already.
// CHECK-LABEL: func.func @not_fused(
// CHECK: %[[D1:[a-z0-9_]+]], %{{.*}} = teq.rms_norm_backward %{{[^,]*}}, %{{[^,]*}}, %{{[^,]*}}, %{{[^,]*}} :
// CHECK: arith.addf %{{.*}}, %[[D1]] :
// CHECK: %[[D2:[a-z0-9_]+]], %{{.*}} = teq.rms_norm_backward %{{[^,]*}}, %{{[^,]*}}, %{{[^,]*}}, %{{[^,]*}} :
// CHECK: arith.addf %{{.*}}, %[[D2]] :
// CHECK: %[[D3:[a-z0-9_]+]], %{{.*}} = teq.rms_norm_backward %{{[^,]*}}, %{{[^,]*}}, %{{[^,]*}}, %{{[^,]*}}, %{{[^,]*}} :
// CHECK: arith.addf %[[D3]], %
func.func @not_fused(%dy: tensor<64x256xbf16>, %x: tensor<64x256xbf16>, %r: tensor<64xf32>,
                     %g: tensor<256xbf16>, %go: tensor<64x256xbf16>)
    -> (tensor<64x256xbf16>, tensor<64x256xbf16>, tensor<64x256xbf16>, tensor<256xbf16>, tensor<64x256xbf16>) {
  %d1:2 = teq.rms_norm_backward %dy, %x, %r, %g
      : (tensor<64x256xbf16>, tensor<64x256xbf16>, tensor<64xf32>, tensor<256xbf16>)
      -> (tensor<64x256xbf16>, tensor<256xbf16>)
  %s1 = arith.addf %go, %d1#0 : tensor<64x256xbf16>
  %d2:2 = teq.rms_norm_backward %dy, %x, %r, %g
      : (tensor<64x256xbf16>, tensor<64x256xbf16>, tensor<64xf32>, tensor<256xbf16>)
      -> (tensor<64x256xbf16>, tensor<256xbf16>)
  %dg2 = arith.mulf %d2#1, %d2#1 : tensor<256xbf16>
  %a = arith.mulf %go, %go : tensor<64x256xbf16>
  %s2 = arith.addf %a, %d2#0 : tensor<64x256xbf16>
  %d3:2 = teq.rms_norm_backward %dy, %x, %r, %g, %go
      : (tensor<64x256xbf16>, tensor<64x256xbf16>, tensor<64xf32>, tensor<256xbf16>, tensor<64x256xbf16>)
      -> (tensor<64x256xbf16>, tensor<256xbf16>)
  %s3 = arith.addf %d3#0, %go : tensor<64x256xbf16>
  return %d1#0, %s1, %s2, %dg2, %s3 : tensor<64x256xbf16>, tensor<64x256xbf16>, tensor<64x256xbf16>, tensor<256xbf16>, tensor<64x256xbf16>
}
