// teq-cache-weight-quantization (TE's is_first_microbatch): a forward marked
// teq.weight_cache gets @<f>_weights, which runs its quantizations of
// parameters, and @<f>_cached, which takes their results as arguments (each
// after its parameter; a parameter nothing else reads is dropped). The
// original forward stays, without the attribute.
// RUN: te-opt %s -split-input-file --teq-cache-weight-quantization | FileCheck %s
// RUN: te-opt %s -split-input-file --teq-cache-weight-quantization --teq-cache-weight-quantization | FileCheck %s --check-prefix=IDEMPOTENT

!x = tensor<64x128xbf16>
!w = tensor<256x128xbf16>
!xq = !teq.proto<64x128xbf16, #teq.float8_current_scaling_quantizer<f8E4M3FN>, rowwise>
!wq = !teq.proto<256x128xbf16, #teq.float8_current_scaling_quantizer<f8E4M3FN>, rowwise|columnwise>
!wcol = !teq.proto<256x128xbf16, #teq.float8_current_scaling_quantizer<f8E4M3FN>, columnwise>
module attributes {teq.target = #teq.target<sm_90>} {
  // CHECK-LABEL: func.func @fwd(
  // CHECK-NOT: teq.weight_cache
  // CHECK: teq.quantize %arg1
  // CHECK-LABEL: func.func @fwd_weights(
  // CHECK-SAME: %[[W:[a-z0-9_]+]]: tensor<256x128xbf16> {teq.name = "fc1.weight", teq.role = "parameter"})
  // CHECK-SAME: -> (!teq.proto<256x128xbf16, #teq.float8_current_scaling_quantizer<f8E4M3FN>, rowwise|columnwise> {teq.name = "fc1.weight.quantized", teq.role = "quantized_weight", teq.role_of = "fc1.weight"})
  // CHECK-NEXT: %[[Q:[a-z0-9_]+]] = teq.quantize %[[W]]
  // CHECK-NEXT: return %[[Q]]
  // CHECK-LABEL: func.func @fwd_cached(
  // CHECK-SAME: %[[X:[a-z0-9_]+]]: tensor<64x128xbf16> {teq.name = "x", teq.role = "input"},
  // CHECK-SAME: %[[WQ:[a-z0-9_]+]]: !teq.proto<256x128xbf16, {{.*}}, rowwise|columnwise> {teq.name = "fc1.weight.quantized", teq.role = "quantized_weight", teq.role_of = "fc1.weight"})
  // CHECK-NOT: attributes
  // CHECK-NEXT: %[[XQ:[a-z0-9_]+]] = teq.quantize %[[X]]
  // CHECK-NEXT: %[[Y:[a-z0-9_]+]] = teq.gemm TN %[[WQ]], %[[XQ]]
  // CHECK-NEXT: %[[SW:[a-z0-9_]+]] = teq.update_usage %[[WQ]]
  // CHECK-NEXT: return %[[Y]], %[[SW]]
  // IDEMPOTENT-COUNT-3: func.func @
  // IDEMPOTENT-NOT: func.func @
  // IDEMPOTENT: {{^// -{5}$}}
  func.func @fwd(%x: !x {teq.name = "x", teq.role = "input"}, %w: !w {teq.name = "fc1.weight", teq.role = "parameter"})
      -> (tensor<64x256xbf16>, !wcol) attributes {teq.weight_cache} {
    %xq = teq.quantize %x : !x -> !xq
    %wq = teq.quantize %w : !w -> !wq
    %y = teq.gemm TN %wq, %xq {kind = #teq.gemm_kind<fprop>} : !wq, !xq -> tensor<64x256xbf16>
    %sw = teq.update_usage %wq : !wq -> !wcol
    return %y, %sw : tensor<64x256xbf16>, !wcol
  }
}

// -----

// MXFP8 on Blackwell: the GEMM reads the weight's swizzled scales, so the
// cache keeps the swizzled copy and the cached forward swizzles nothing. A
// parameter also read unquantized (the bias) stays an argument.
!x = tensor<128x128xbf16>
!w = tensor<256x128xbf16>
!xq = !teq.proto<128x128xbf16, #teq.mxfp8_quantizer<f8E4M3FN>, rowwise, gemm_swizzled>
!wq = !teq.proto<256x128xbf16, #teq.mxfp8_quantizer<f8E4M3FN>, rowwise>
!wqs = !teq.proto<256x128xbf16, #teq.mxfp8_quantizer<f8E4M3FN>, rowwise, gemm_swizzled>
module attributes {teq.target = #teq.target<sm_100>} {
  // CHECK-LABEL: func.func @mx_weights(
  // CHECK-SAME: %[[W:[a-z0-9_]+]]: tensor<256x128xbf16> {teq.name = "w", teq.role = "parameter"})
  // CHECK-SAME: -> (!teq.proto<256x128xbf16, #teq.mxfp8_quantizer<f8E4M3FN>, rowwise, gemm_swizzled> {teq.name = "w.quantized"
  // CHECK-NEXT: %[[Q:[a-z0-9_]+]] = teq.quantize %[[W]]
  // CHECK-NEXT: %[[S:[a-z0-9_]+]] = teq.swizzle_scales %[[Q]]
  // CHECK-NEXT: return %[[S]]
  // CHECK-LABEL: func.func @mx_cached(
  // CHECK-SAME: %[[X:[a-z0-9_]+]]: !teq.proto<128x128xbf16, {{.*}}>, %[[WS:[a-z0-9_]+]]: !teq.proto<256x128xbf16, {{.*}}, rowwise, gemm_swizzled> {teq.name = "w.quantized"{{.*}}}, %[[B:[a-z0-9_]+]]: tensor<256xbf16> {teq.name = "b", teq.role = "parameter"})
  // CHECK-NEXT: teq.gemm TN %[[WS]], %[[X]] bias(%[[B]] : tensor<256xbf16>)
  // CHECK-NOT: teq.swizzle_scales
  // CHECK: return
  func.func @mx(%xq: !xq, %w: !w {teq.name = "w", teq.role = "parameter"}, %b: tensor<256xbf16> {teq.name = "b", teq.role = "parameter"})
      -> tensor<128x256xbf16> attributes {teq.weight_cache} {
    %wq = teq.quantize %w : !w -> !wq
    %ws = teq.swizzle_scales %wq : !wq -> !wqs
    %y = teq.gemm TN %ws, %xq bias(%b : tensor<256xbf16>) {kind = #teq.gemm_kind<fprop>} : !wqs, !xq -> tensor<128x256xbf16>
    return %y : tensor<128x256xbf16>
  }
}
