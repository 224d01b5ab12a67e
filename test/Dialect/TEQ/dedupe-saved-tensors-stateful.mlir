// teq-dedupe-saved-tensors: two DelayedScaling Linears read one input but
// each has its own state (scale, amax history), so each quantizes %x with
// its own scale: TE saves two different FP8 tensors, and both must stay.
//

// RUN: te-opt %s --teq-resolve-autocast --teq-infer-prototypes --teq-dedupe-saved-tensors | FileCheck %s

module attributes {teq.target = #teq.target<sm_90>} {
  func.func @delayed_qk(%x: tensor<64x128xbf16>, %wq: tensor<128x128xbf16>, %wk: tensor<128x128xbf16>, %s1: tensor<3xf32>, %h1: tensor<1024x3xf32>, %s2: tensor<3xf32>, %h2: tensor<1024x3xf32>) -> (tensor<64x128xbf16>, tensor<64x128xbf16>, tensor<64x128xbf16>, tensor<64x128xbf16>) {
    %q, %qx, %qw, %qh, %k, %kx, %kw, %kh = teq.autocast recipe(#teq.delayed_scaling<>) -> tensor<64x128xbf16>, tensor<64x128xbf16>, tensor<128x128xbf16>, tensor<1024x3xf32>, tensor<64x128xbf16>, tensor<64x128xbf16>, tensor<128x128xbf16>, tensor<1024x3xf32> {
      %o1, %a1, %b1, %hh1 = teq.linear_forward %x, %wq state(%s1, %h1 : tensor<3xf32>, tensor<1024x3xf32>) config(#teq.linear<name = "q">) : tensor<64x128xbf16>, tensor<128x128xbf16> -> tensor<64x128xbf16> saved_input(tensor<64x128xbf16>) saved_weight(tensor<128x128xbf16>) updated_amax_history(tensor<1024x3xf32>)
      %o2, %a2, %b2, %hh2 = teq.linear_forward %x, %wk state(%s2, %h2 : tensor<3xf32>, tensor<1024x3xf32>) config(#teq.linear<name = "k">) : tensor<64x128xbf16>, tensor<128x128xbf16> -> tensor<64x128xbf16> saved_input(tensor<64x128xbf16>) saved_weight(tensor<128x128xbf16>) updated_amax_history(tensor<1024x3xf32>)
      teq.yield %o1, %a1, %b1, %hh1, %o2, %a2, %b2, %hh2 : tensor<64x128xbf16>, tensor<64x128xbf16>, tensor<128x128xbf16>, tensor<1024x3xf32>, tensor<64x128xbf16>, tensor<64x128xbf16>, tensor<128x128xbf16>, tensor<1024x3xf32>
    }
    return %qx, %kx, %q, %k : tensor<64x128xbf16>, tensor<64x128xbf16>, tensor<64x128xbf16>, tensor<64x128xbf16>
  }
}

// CHECK-LABEL: func.func @delayed_qk(
// CHECK: %{{.*}}, %[[QX:[a-z0-9_]+]], %{{.*}}, %{{.*}} = teq.linear_forward {{.*}}config(#teq.linear<name = "q">)
// CHECK-SAME: saved_input(!teq.proto<64x128xbf16, #teq.float8_quantizer<f8E4M3FN>, columnwise>)
// CHECK: %{{.*}}, %[[KX:[a-z0-9_]+]], %{{.*}}, %{{.*}} = teq.linear_forward {{.*}}config(#teq.linear<name = "k">)
// CHECK-SAME: saved_input(!teq.proto<64x128xbf16, #teq.float8_quantizer<f8E4M3FN>, columnwise>)
// CHECK: return %[[QX]], %[[KX]],
