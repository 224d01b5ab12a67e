// The saved-memory report counts what the program keeps: with
// requires_wgrad = false backward never reads the saved input, so it is not
// counted (only the weight, which dgrad reads; dedupe then recomputes it).
// RUN: te-opt %s --teq-frontend=print-saved-memory=true -o /dev/null | FileCheck %s

module attributes {teq.target = #teq.target<sm_90>} {
  func.func @f(%x: tensor<64x128xbf16>, %w: tensor<256x128xbf16>, %dy: tensor<64x256xbf16>) -> (tensor<64x256xbf16>, tensor<64x128xbf16>) {
    %y, %dx = teq.autocast recipe(#teq.float8_current_scaling<>) -> tensor<64x256xbf16>, tensor<64x128xbf16> {
      %o, %sx, %sw = teq.linear_forward %x, %w config(#teq.linear<requires_wgrad = false>) : tensor<64x128xbf16>, tensor<256x128xbf16> -> tensor<64x256xbf16> saved_input(tensor<64x128xbf16>) saved_weight(tensor<256x128xbf16>)
      %g = teq.linear_backward %dy, %sx, %sw config(#teq.linear<requires_wgrad = false>) : tensor<64x256xbf16>, tensor<64x128xbf16>, tensor<256x128xbf16> dgrad(tensor<64x128xbf16>)
      teq.yield %o, %g : tensor<64x256xbf16>, tensor<64x128xbf16>
    }
    return %y, %dx : tensor<64x256xbf16>, tensor<64x128xbf16>
  }
}

// CHECK-LABEL: saved memory of @f on sm_90:
// CHECK-NEXT: before dedupe: 1 tensors, 32772 bytes (Float8CurrentScaling: 32772)
// CHECK-NEXT: after dedupe: 0 tensors, 0 bytes
