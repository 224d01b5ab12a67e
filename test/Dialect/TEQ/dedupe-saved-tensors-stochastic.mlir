// teq-dedupe-saved-tensors with stochastic rounding (a CustomRecipe rounding
// the input, or the weight, stochastically): each Linear rounds with its own
// rng_state, so
//  * two Linears that read one input save two different tensors, both kept
//    (TE's two quantizations draw different random bits);
//  * a stochastically rounded weight is saved, not rebuilt in backward (the
//    rebuild would need forward's Philox state).

// RUN: te-opt %s --teq-resolve-autocast --teq-infer-prototypes --teq-dedupe-saved-tensors | FileCheck %s

module attributes {teq.target = #teq.target<sm_100>} {
  func.func @sr_qk(%x: tensor<64x128xbf16>, %wq: tensor<128x128xbf16>, %wk: tensor<128x128xbf16>, %r1: tensor<2xi64>, %r2: tensor<2xi64>) -> (tensor<64x128xbf16>, tensor<64x128xbf16>, tensor<64x128xbf16>, tensor<64x128xbf16>) {
    %q, %qx, %qw, %k, %kx, %kw = teq.autocast recipe(#teq.custom_recipe<[<tensor_type = input> -> #teq.nvfp4_quantizer<f4E2M1FN, stochastic_rounding = true>, <> -> #teq.nvfp4_quantizer<f4E2M1FN>]>) -> tensor<64x128xbf16>, tensor<64x128xbf16>, tensor<128x128xbf16>, tensor<64x128xbf16>, tensor<64x128xbf16>, tensor<128x128xbf16> {
      %o1, %a1, %b1 = teq.linear_forward %x, %wq rng_state(%r1 : tensor<2xi64>) config(#teq.linear<name = "q">) : tensor<64x128xbf16>, tensor<128x128xbf16> -> tensor<64x128xbf16> saved_input(tensor<64x128xbf16>) saved_weight(tensor<128x128xbf16>)
      %o2, %a2, %b2 = teq.linear_forward %x, %wk rng_state(%r2 : tensor<2xi64>) config(#teq.linear<name = "k">) : tensor<64x128xbf16>, tensor<128x128xbf16> -> tensor<64x128xbf16> saved_input(tensor<64x128xbf16>) saved_weight(tensor<128x128xbf16>)
      teq.yield %o1, %a1, %b1, %o2, %a2, %b2 : tensor<64x128xbf16>, tensor<64x128xbf16>, tensor<128x128xbf16>, tensor<64x128xbf16>, tensor<64x128xbf16>, tensor<128x128xbf16>
    }
    return %qx, %kx, %q, %k : tensor<64x128xbf16>, tensor<64x128xbf16>, tensor<64x128xbf16>, tensor<64x128xbf16>
  }

  func.func @sr_weight(%x: tensor<64x128xbf16>, %w: tensor<256x128xbf16>, %dy: tensor<64x256xbf16>, %r: tensor<2xi64>) -> (tensor<64x256xbf16>, tensor<64x128xbf16>) {
    %y, %dx = teq.autocast recipe(#teq.custom_recipe<[<tensor_type = weight> -> #teq.nvfp4_quantizer<f4E2M1FN, stochastic_rounding = true>, <> -> #teq.nvfp4_quantizer<f4E2M1FN>]>) -> tensor<64x256xbf16>, tensor<64x128xbf16> {
      %o, %sw = teq.linear_forward %x, %w rng_state(%r : tensor<2xi64>) config(#teq.linear<requires_wgrad = false>) : tensor<64x128xbf16>, tensor<256x128xbf16> -> tensor<64x256xbf16> saved_weight(tensor<256x128xbf16>)
      %g = teq.linear_backward %dy, %x, %sw config(#teq.linear<requires_wgrad = false>) : tensor<64x256xbf16>, tensor<64x128xbf16>, tensor<256x128xbf16> dgrad(tensor<64x128xbf16>)
      teq.yield %o, %g : tensor<64x256xbf16>, tensor<64x128xbf16>
    }
    return %y, %dx : tensor<64x256xbf16>, tensor<64x128xbf16>
  }
}

// CHECK-LABEL: func.func @sr_qk(
// CHECK: %{{.*}}, %[[QX:[a-z0-9_]+]] = teq.linear_forward {{.*}}config(#teq.linear<name = "q">)
// CHECK-SAME: saved_input(!teq.proto<64x128xbf16, #teq.nvfp4_quantizer<f4E2M1FN, stochastic_rounding = true>, columnwise, gemm_swizzled>)
// CHECK: %{{.*}}, %[[KX:[a-z0-9_]+]] = teq.linear_forward {{.*}}config(#teq.linear<name = "k">)
// CHECK-SAME: saved_input(!teq.proto<64x128xbf16, #teq.nvfp4_quantizer<f4E2M1FN, stochastic_rounding = true>, columnwise, gemm_swizzled>)
// CHECK: return %[[QX]], %[[KX]],

// CHECK-LABEL: func.func @sr_weight(
// CHECK: %{{.*}}, %[[SW:[a-z0-9_]+]] = teq.linear_forward {{.*}} saved_weight(!teq.proto<256x128xbf16, #teq.nvfp4_quantizer<f4E2M1FN, stochastic_rounding = true>, columnwise, gemm_swizzled>)
// CHECK-NOT: teq.quantize
// CHECK: teq.linear_backward %{{.*}}, %{{.*}}, %[[SW]]
