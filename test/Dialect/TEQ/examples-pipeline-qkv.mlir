// examples/qkv.mlir through teq-frontend for sm_90 and sm_100: Q, K and V
// share one saved quantized input; each weight is re-quantized before its
// backward.
//

// RUN: te-opt %teq_src_root/examples/qkv.mlir --teq-frontend="target=sm_90 print-saved-memory=true" | FileCheck %s --check-prefixes=CHECK,SM90
// RUN: te-opt %teq_src_root/examples/qkv.mlir --teq-frontend="target=sm_100 print-saved-memory=true" | FileCheck %s --check-prefixes=CHECK,SM100

// Six saved tensors before (3 inputs of 8196 + 3 weights 128x128 of
// 16384 + 4 = 16388: 73752 bytes), one after (x's quantized copy, 8196).
// SM90: saved memory of @qkv on sm_90:
// SM100: saved memory of @qkv on sm_100:
// CHECK-NEXT: before dedupe: 6 tensors, 73752 bytes (Float8CurrentScaling: 73752)
// CHECK-NEXT: after dedupe: 1 tensors, 8196 bytes (Float8CurrentScaling: 8196)
// CHECK: saved memory of @qkv_block on
// CHECK-NEXT: before dedupe: 3 tensors
// CHECK-NEXT: after dedupe: 1 tensors
// CHECK-LABEL: func.func @qkv(
// CHECK-SAME: %[[X:[a-z0-9_]+]]: tensor<64x128xbf16>, %[[WQ:[a-z0-9_]+]]: tensor<128x128xbf16>, %[[WK:[a-z0-9_]+]]: tensor<128x128xbf16>, %[[WV:[a-z0-9_]+]]: tensor<128x128xbf16>,
// CHECK: %{{.*}}, %[[SX:[a-z0-9_]+]] = teq.linear_forward %[[X]], %[[WQ]]
// CHECK-SAME: saved_input(!teq.proto<64x128xbf16, #teq.float8_current_scaling_quantizer<f8E4M3FN>, columnwise>){{$}}
// CHECK-NEXT: teq.linear_forward %[[X]], %[[WK]]
// CHECK-SAME: -> tensor<64x128xbf16>{{$}}
// CHECK-NEXT: teq.linear_forward %[[X]], %[[WV]]
// CHECK-SAME: -> tensor<64x128xbf16>{{$}}
// CHECK: teq.linear_backward %{{.*}}, %[[SX]], %{{.*}} config(#teq.linear<name = "v">)
// CHECK: teq.linear_backward %{{.*}}, %[[SX]], %{{.*}} config(#teq.linear<name = "k">)
// CHECK: teq.linear_backward %{{.*}}, %[[SX]], %{{.*}} config(#teq.linear<name = "q">)
// CHECK-LABEL: func.func @qkv_block(
// CHECK: %{{.*}}, %[[SX:[a-z0-9_]+]] = teq.linear_forward
// CHECK-SAME: saved_input(!teq.proto<64x128xbf16, #teq.float8_block_quantizer<f8E4M3FN, block_scaling_dim = 1>, columnwise>){{$}}
// CHECK-NEXT: teq.linear_forward {{.*}} -> tensor<64x128xbf16>{{$}}
// CHECK-NEXT: teq.linear_forward {{.*}} -> tensor<64x128xbf16>{{$}}
// CHECK-NEXT: return {{.*}}, %[[SX]], %[[SX]], %[[SX]] :
