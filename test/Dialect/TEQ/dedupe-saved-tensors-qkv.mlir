// teq-dedupe-saved-tensors, Linears sharing one input (QKV).
//

// RUN: te-opt %s -split-input-file --teq-resolve-autocast --teq-infer-prototypes --teq-dedupe-saved-tensors | FileCheck %s --implicit-check-not=teq.autocast

// QKV: three Linears read one input %x under one current-scaling recipe. The
// quantized input is saved once (by Q); K's and V's backward read Q's saved
// input; each weight is rebuilt before its own backward.
module attributes {teq.target = #teq.target<sm_90>} {
  func.func @qkv(%x: tensor<64x128xbf16>, %wq: tensor<128x128xbf16>, %wk: tensor<128x128xbf16>, %wv: tensor<128x128xbf16>, %dq: tensor<64x128xbf16>, %dk: tensor<64x128xbf16>, %dv: tensor<64x128xbf16>) -> (tensor<64x128xbf16>, tensor<64x128xbf16>, tensor<64x128xbf16>, tensor<64x128xbf16>, tensor<64x128xbf16>, tensor<64x128xbf16>) {
    %q, %qx, %qw, %k, %kx, %kw, %v, %vx, %vw = teq.autocast recipe(#teq.float8_current_scaling<>) -> tensor<64x128xbf16>, tensor<64x128xbf16>, tensor<128x128xbf16>, tensor<64x128xbf16>, tensor<64x128xbf16>, tensor<128x128xbf16>, tensor<64x128xbf16>, tensor<64x128xbf16>, tensor<128x128xbf16> {
      %o1, %a1, %b1 = teq.linear_forward %x, %wq config(#teq.linear<name = "q">) : tensor<64x128xbf16>, tensor<128x128xbf16> -> tensor<64x128xbf16> saved_input(tensor<64x128xbf16>) saved_weight(tensor<128x128xbf16>)
      %o2, %a2, %b2 = teq.linear_forward %x, %wk config(#teq.linear<name = "k">) : tensor<64x128xbf16>, tensor<128x128xbf16> -> tensor<64x128xbf16> saved_input(tensor<64x128xbf16>) saved_weight(tensor<128x128xbf16>)
      %o3, %a3, %b3 = teq.linear_forward %x, %wv config(#teq.linear<name = "v">) : tensor<64x128xbf16>, tensor<128x128xbf16> -> tensor<64x128xbf16> saved_input(tensor<64x128xbf16>) saved_weight(tensor<128x128xbf16>)
      teq.yield %o1, %a1, %b1, %o2, %a2, %b2, %o3, %a3, %b3 : tensor<64x128xbf16>, tensor<64x128xbf16>, tensor<128x128xbf16>, tensor<64x128xbf16>, tensor<64x128xbf16>, tensor<128x128xbf16>, tensor<64x128xbf16>, tensor<64x128xbf16>, tensor<128x128xbf16>
    }
    %gv, %gwv = teq.linear_backward %dv, %vx, %vw config(#teq.linear<name = "v">) : tensor<64x128xbf16>, tensor<64x128xbf16>, tensor<128x128xbf16> dgrad(tensor<64x128xbf16>) wgrad(tensor<128x128xbf16>)
    %gk, %gwk = teq.linear_backward %dk, %kx, %kw config(#teq.linear<name = "k">) : tensor<64x128xbf16>, tensor<64x128xbf16>, tensor<128x128xbf16> dgrad(tensor<64x128xbf16>) wgrad(tensor<128x128xbf16>)
    %gq, %gwq = teq.linear_backward %dq, %qx, %qw config(#teq.linear<name = "q">) : tensor<64x128xbf16>, tensor<64x128xbf16>, tensor<128x128xbf16> dgrad(tensor<64x128xbf16>) wgrad(tensor<128x128xbf16>)
    return %q, %k, %v, %gq, %gk, %gv : tensor<64x128xbf16>, tensor<64x128xbf16>, tensor<64x128xbf16>, tensor<64x128xbf16>, tensor<64x128xbf16>, tensor<64x128xbf16>
  }
}

// CHECK-LABEL: func.func @qkv(
// CHECK-SAME: %[[X:[a-z0-9_]+]]: tensor<64x128xbf16>, %[[WQ:[a-z0-9_]+]]: tensor<128x128xbf16>, %[[WK:[a-z0-9_]+]]: tensor<128x128xbf16>, %[[WV:[a-z0-9_]+]]: tensor<128x128xbf16>,
// CHECK: %{{.*}}, %[[SX:[a-z0-9_]+]] = teq.linear_forward %[[X]], %[[WQ]] config(#teq.linear<name = "q">)
// CHECK-SAME: saved_input(!teq.proto<64x128xbf16, #teq.float8_current_scaling_quantizer<f8E4M3FN>, columnwise>){{$}}
// CHECK-NEXT: %{{[a-z0-9_]+}} = teq.linear_forward %[[X]], %[[WK]] config(#teq.linear<name = "k">)
// CHECK-SAME: -> tensor<64x128xbf16>{{$}}
// CHECK-NEXT: %{{[a-z0-9_]+}} = teq.linear_forward %[[X]], %[[WV]] config(#teq.linear<name = "v">)
// CHECK-SAME: -> tensor<64x128xbf16>{{$}}
// CHECK-NEXT: %[[QV:[a-z0-9_]+]] = teq.quantize %[[WV]]
// CHECK-NEXT: teq.linear_backward %{{.*}}, %[[SX]], %[[QV]] config(#teq.linear<name = "v">)
// CHECK-NEXT: %[[QK:[a-z0-9_]+]] = teq.quantize %[[WK]]
// CHECK-NEXT: teq.linear_backward %{{.*}}, %[[SX]], %[[QK]] config(#teq.linear<name = "k">)
// CHECK-NEXT: %[[QQ:[a-z0-9_]+]] = teq.quantize %[[WQ]]
// CHECK-NEXT: teq.linear_backward %{{.*}}, %[[SX]], %[[QQ]] config(#teq.linear<name = "q">)
