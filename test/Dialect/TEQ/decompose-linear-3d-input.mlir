// Regression test for teq-decompose-linear (a bug found and fixed in
// development; the case below describes what it checks).
//
// A Linear on a sequence-first 3-D activation x : [S, B, in] (teq.linear_forward
// accepts `[*, in]`). fprop and dgrad are fine (teq.gemm flattens B), but the
// wgrad GEMM gets x itself as its A operand and the verifier rejects it:
// "'teq.gemm' op A must be 2-D, got [4x16x128]". TE flattens the input to
// [S*B, in] before the wgrad GEMM.

// RUN: te-opt %s --teq-lower-to-gemm | FileCheck %s

module attributes {teq.target = #teq.target<sm_90>} {
  func.func @input_3d(%x: tensor<4x16x128xbf16>, %w: tensor<256x128xbf16>, %dy: tensor<4x16x256xbf16>) -> (tensor<4x16x256xbf16>, tensor<4x16x128xbf16>, tensor<256x128xbf16>) {
    %y, %dx, %dw = teq.autocast recipe(#teq.float8_current_scaling<>) -> tensor<4x16x256xbf16>, tensor<4x16x128xbf16>, tensor<256x128xbf16> {
      %out, %a, %b = teq.linear_forward %x, %w config(#teq.linear<>) : tensor<4x16x128xbf16>, tensor<256x128xbf16> -> tensor<4x16x256xbf16> saved_input(tensor<4x16x128xbf16>) saved_weight(tensor<256x128xbf16>)
      %gx, %gw = teq.linear_backward %dy, %a, %b config(#teq.linear<>) : tensor<4x16x256xbf16>, tensor<4x16x128xbf16>, tensor<256x128xbf16> dgrad(tensor<4x16x128xbf16>) wgrad(tensor<256x128xbf16>)
      teq.yield %out, %gx, %gw : tensor<4x16x256xbf16>, tensor<4x16x128xbf16>, tensor<256x128xbf16>
    }
    return %y, %dx, %dw : tensor<4x16x256xbf16>, tensor<4x16x128xbf16>, tensor<256x128xbf16>
  }
}

// CHECK-LABEL: func.func @input_3d(
// CHECK: teq.gemm TN {{.*}}kind = #teq.gemm_kind<fprop>{{.*}} -> tensor<4x16x256xbf16>
// CHECK: teq.gemm NN {{.*}}kind = #teq.gemm_kind<dgrad>{{.*}} -> tensor<4x16x128xbf16>
// CHECK: teq.gemm NT {{.*}}kind = #teq.gemm_kind<wgrad>{{.*}} -> tensor<256x128xbf16>
// CHECK: return
