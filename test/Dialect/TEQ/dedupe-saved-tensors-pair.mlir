// teq-dedupe-saved-tensors, pair of functions with forward results that are
// the function's own arguments.
//

// RUN: te-opt %s -split-input-file --teq-resolve-autocast --teq-infer-prototypes --teq-dedupe-saved-tensors | FileCheck %s --implicit-check-not=teq.autocast

// Pair of functions, high precision: @fwd's saved results are its own
// arguments %x and %w (results 1 and 2); they leave the signature, the
// mapping is recorded in teq.saved_from_args, and @step passes its own %x
// and %w to @bwd.
module attributes {teq.target = #teq.target<sm_90>} {
  func.func @fwd(%x: tensor<64x128xbf16>, %w: tensor<256x128xbf16>) -> (tensor<64x256xbf16>, tensor<64x128xbf16>, tensor<256x128xbf16>) {
    %y, %sx, %sw = teq.autocast enabled(false) -> tensor<64x256xbf16>, tensor<64x128xbf16>, tensor<256x128xbf16> {
      %out, %a, %b = teq.linear_forward %x, %w config(#teq.linear<name = "fc1">) : tensor<64x128xbf16>, tensor<256x128xbf16> -> tensor<64x256xbf16> saved_input(tensor<64x128xbf16>) saved_weight(tensor<256x128xbf16>)
      teq.yield %out, %a, %b : tensor<64x256xbf16>, tensor<64x128xbf16>, tensor<256x128xbf16>
    }
    return %y, %sx, %sw : tensor<64x256xbf16>, tensor<64x128xbf16>, tensor<256x128xbf16>
  }
  func.func @bwd(%dy: tensor<64x256xbf16>, %sx: tensor<64x128xbf16>, %sw: tensor<256x128xbf16>) -> (tensor<64x128xbf16>, tensor<256x128xbf16>) {
    %dx, %dw = teq.autocast enabled(false) -> tensor<64x128xbf16>, tensor<256x128xbf16> {
      %a, %b = teq.linear_backward %dy, %sx, %sw config(#teq.linear<name = "fc1">) : tensor<64x256xbf16>, tensor<64x128xbf16>, tensor<256x128xbf16> dgrad(tensor<64x128xbf16>) wgrad(tensor<256x128xbf16>)
      teq.yield %a, %b : tensor<64x128xbf16>, tensor<256x128xbf16>
    }
    return %dx, %dw : tensor<64x128xbf16>, tensor<256x128xbf16>
  }
  func.func @step(%x: tensor<64x128xbf16>, %w: tensor<256x128xbf16>, %dy: tensor<64x256xbf16>) -> (tensor<64x256xbf16>, tensor<64x128xbf16>, tensor<256x128xbf16>) {
    %y, %sx, %sw = func.call @fwd(%x, %w) : (tensor<64x128xbf16>, tensor<256x128xbf16>) -> (tensor<64x256xbf16>, tensor<64x128xbf16>, tensor<256x128xbf16>)
    %dx, %dw = func.call @bwd(%dy, %sx, %sw) : (tensor<64x256xbf16>, tensor<64x128xbf16>, tensor<256x128xbf16>) -> (tensor<64x128xbf16>, tensor<256x128xbf16>)
    return %y, %dx, %dw : tensor<64x256xbf16>, tensor<64x128xbf16>, tensor<256x128xbf16>
  }
}

// CHECK-LABEL: func.func @fwd(
// CHECK-SAME: %[[X:[a-z0-9_]+]]: tensor<64x128xbf16>, %[[W:[a-z0-9_]+]]: tensor<256x128xbf16>) -> tensor<64x256xbf16>
// CHECK-SAME: attributes {teq.saved_from_args = [array<i64: 1, 0>, array<i64: 2, 1>]}
// CHECK: %[[Y:[a-z0-9_]+]] = teq.linear_forward %[[X]], %[[W]]
// CHECK-SAME: -> tensor<64x256xbf16>{{$}}
// CHECK-NEXT: return %[[Y]] : tensor<64x256xbf16>
// CHECK-LABEL: func.func @bwd(
// CHECK-SAME: %[[DY:[a-z0-9_]+]]: tensor<64x256xbf16>, %[[SX:[a-z0-9_]+]]: tensor<64x128xbf16>, %[[SW:[a-z0-9_]+]]: tensor<256x128xbf16>)
// CHECK: teq.linear_backward %[[DY]], %[[SX]], %[[SW]]
// CHECK-LABEL: func.func @step(
// CHECK-SAME: %[[X:[a-z0-9_]+]]: tensor<64x128xbf16>, %[[W:[a-z0-9_]+]]: tensor<256x128xbf16>, %[[DY:[a-z0-9_]+]]: tensor<64x256xbf16>)
// CHECK-NEXT: %[[Y:[a-z0-9_]+]] = call @fwd(%[[X]], %[[W]]) : (tensor<64x128xbf16>, tensor<256x128xbf16>) -> tensor<64x256xbf16>
// CHECK-NEXT: %[[G:[a-z0-9_]+]]:2 = call @bwd(%[[DY]], %[[X]], %[[W]])
// CHECK-NEXT: return %[[Y]], %[[G]]#0, %[[G]]#1
