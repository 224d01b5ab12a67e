// RUN: te-opt %s -split-input-file -canonicalize | FileCheck %s

// A quantization keeps only the usages its users read: the fprop GEMM reads
// B (x) rowwise, so the columnwise copy saved for a backward that is not in
// the program is dropped (TE would compute it; TEQ sees the whole program).
// CHECK-LABEL: func.func @forward_only(
// CHECK: teq.quantize %{{.*}} : tensor<64x128xbf16> -> !teq.proto<64x128xbf16, #teq.float8_current_scaling_quantizer<f8E4M3FN>, rowwise>
// CHECK: teq.quantize %{{.*}} : tensor<256x128xbf16> -> !teq.proto<256x128xbf16, #teq.float8_current_scaling_quantizer<f8E4M3FN>, rowwise>
// CHECK-NOT: teq.update_usage
func.func @forward_only(%x: tensor<64x128xbf16>, %w: tensor<256x128xbf16>) -> tensor<64x256xbf16> {
  %xq = teq.quantize %x : tensor<64x128xbf16> -> !teq.proto<64x128xbf16, #teq.float8_current_scaling_quantizer<f8E4M3FN>, rowwise|columnwise>
  %wq = teq.quantize %w : tensor<256x128xbf16> -> !teq.proto<256x128xbf16, #teq.float8_current_scaling_quantizer<f8E4M3FN>, rowwise|columnwise>
  %y = teq.gemm TN %wq, %xq : !teq.proto<256x128xbf16, #teq.float8_current_scaling_quantizer<f8E4M3FN>, rowwise|columnwise>, !teq.proto<64x128xbf16, #teq.float8_current_scaling_quantizer<f8E4M3FN>, rowwise|columnwise> -> tensor<64x256xbf16>
  %saved = teq.update_usage %xq : !teq.proto<64x128xbf16, #teq.float8_current_scaling_quantizer<f8E4M3FN>, rowwise|columnwise> -> !teq.proto<64x128xbf16, #teq.float8_current_scaling_quantizer<f8E4M3FN>, columnwise>
  return %y : tensor<64x256xbf16>
}

// -----

// A usage view keeps what it views; the view of exactly the narrowed usages
// folds away. wgrad (NT) reads A columnwise.
// CHECK-LABEL: func.func @view_kept(
// CHECK: %[[Q:.*]] = teq.quantize %{{.*}} -> !teq.proto<64x128xbf16, #teq.float8_current_scaling_quantizer<f8E4M3FN>, columnwise>
// CHECK-NOT: teq.update_usage
// CHECK: teq.gemm NT %[[Q]], %{{.*}}
func.func @view_kept(%x: tensor<64x128xbf16>, %dy: !teq.proto<64x256xbf16, #teq.float8_current_scaling_quantizer<f8E5M2>, columnwise>) -> tensor<256x128xbf16> {
  %xq = teq.quantize %x : tensor<64x128xbf16> -> !teq.proto<64x128xbf16, #teq.float8_current_scaling_quantizer<f8E4M3FN>, rowwise|columnwise>
  %sx = teq.update_usage %xq : !teq.proto<64x128xbf16, #teq.float8_current_scaling_quantizer<f8E4M3FN>, rowwise|columnwise> -> !teq.proto<64x128xbf16, #teq.float8_current_scaling_quantizer<f8E4M3FN>, columnwise>
  %dw = teq.gemm NT %sx, %dy : !teq.proto<64x128xbf16, #teq.float8_current_scaling_quantizer<f8E4M3FN>, columnwise>, !teq.proto<64x256xbf16, #teq.float8_current_scaling_quantizer<f8E5M2>, columnwise> -> tensor<256x128xbf16>
  return %dw : tensor<256x128xbf16>
}

// -----

// Returned quantizations keep every usage; so does one a view derives a new
// usage from (per-tensor FP8: the transpose comes from the rowwise copy).
// CHECK-LABEL: func.func @kept(
// CHECK: teq.quantize %{{.*}} -> !teq.proto<64x128xbf16, #teq.float8_current_scaling_quantizer<f8E4M3FN>, rowwise|columnwise>
// CHECK: teq.quantize %{{.*}} -> !teq.proto<64x128xbf16, #teq.float8_current_scaling_quantizer<f8E4M3FN>, rowwise>
// CHECK: teq.update_usage %{{.*}} -> !teq.proto<64x128xbf16, #teq.float8_current_scaling_quantizer<f8E4M3FN>, columnwise>
func.func @kept(%x: tensor<64x128xbf16>) -> (!teq.proto<64x128xbf16, #teq.float8_current_scaling_quantizer<f8E4M3FN>, rowwise|columnwise>, !teq.proto<64x128xbf16, #teq.float8_current_scaling_quantizer<f8E4M3FN>, columnwise>) {
  %a = teq.quantize %x : tensor<64x128xbf16> -> !teq.proto<64x128xbf16, #teq.float8_current_scaling_quantizer<f8E4M3FN>, rowwise|columnwise>
  %b = teq.quantize %x : tensor<64x128xbf16> -> !teq.proto<64x128xbf16, #teq.float8_current_scaling_quantizer<f8E4M3FN>, rowwise>
  %c = teq.update_usage %b : !teq.proto<64x128xbf16, #teq.float8_current_scaling_quantizer<f8E4M3FN>, rowwise> -> !teq.proto<64x128xbf16, #teq.float8_current_scaling_quantizer<f8E4M3FN>, columnwise>
  return %a, %c : !teq.proto<64x128xbf16, #teq.float8_current_scaling_quantizer<f8E4M3FN>, rowwise|columnwise>, !teq.proto<64x128xbf16, #teq.float8_current_scaling_quantizer<f8E4M3FN>, columnwise>
}

// -----

// One quantization as both operands: A of a TN GEMM reads rowwise, B of it
// rowwise too; nothing reads the columnwise copy.
// CHECK-LABEL: func.func @both_operands(
// CHECK: teq.quantize %{{.*}} -> !teq.proto<128x128xbf16, #teq.float8_current_scaling_quantizer<f8E4M3FN>, rowwise>
func.func @both_operands(%x: tensor<128x128xbf16>) -> tensor<128x128xbf16> {
  %q = teq.quantize %x : tensor<128x128xbf16> -> !teq.proto<128x128xbf16, #teq.float8_current_scaling_quantizer<f8E4M3FN>, rowwise|columnwise>
  %y = teq.gemm TN %q, %q : !teq.proto<128x128xbf16, #teq.float8_current_scaling_quantizer<f8E4M3FN>, rowwise|columnwise>, !teq.proto<128x128xbf16, #teq.float8_current_scaling_quantizer<f8E4M3FN>, rowwise|columnwise> -> tensor<128x128xbf16>
  return %y : tensor<128x128xbf16>
}
