// A teq.bias_grad of the tensor a per-tensor FP8 quantization casts with its
// transposing kernel (a gradient quantized for dgrad and wgrad) is summed in
// that cast, as TE's bgrad + quantize does (QuantizeFusion.h): the cast
// writes one f32 row of column sums per 64-row tile into the bias gradient's
// scratch, and the bias gradient runs only its ordered final pass. Left
// unfused: shapes that are not whole 64x64 tiles, a rowwise-only cast (no
// transposing kernel), a bias gradient read before the quantization, and
// disabled-fusions=bias-grad.
// RUN: split-file %s %t
// RUN: te-opt %t/fused.mlir --convert-teq-to-gpu | FileCheck %s --check-prefix=FUSED
// RUN: te-opt %t/fused.mlir --convert-teq-to-gpu="disabled-fusions=bias-grad" | FileCheck %s --check-prefix=DISABLED
// RUN: te-opt %t/unfused.mlir --convert-teq-to-gpu | FileCheck %s --check-prefix=UNFUSED
// RUN: not te-opt %t/fused.mlir --convert-teq-to-gpu="disabled-fusions=bogus" 2>&1 | FileCheck %s --check-prefix=ERR
// RUN: not te-opt %t/marked.mlir --convert-teq-to-gpu 2>&1 | FileCheck %s --check-prefix=MARKED

//--- fused.mlir
// 128x256 bf16, E5M2 both usages on sm_90 (the transposed copy): 2 tile
// rows, so 2 x 256 f32 partials (2048 workspace bytes), from the cast to the
// final pass. The bias gradient comes first in the IR; it moves after the
// quantization.
#cur = #teq.float8_current_scaling_quantizer<f8E5M2>
module attributes {teq.target = #teq.target<sm_90>} {
  func.func @fused(%dy: tensor<128x256xbf16>) -> (tensor<256xbf16>, !teq.proto<128x256xbf16, #cur, rowwise|columnwise>) {
    %b = teq.bias_grad %dy : tensor<128x256xbf16> -> tensor<256xbf16>
    %q = teq.quantize %dy : tensor<128x256xbf16> -> !teq.proto<128x256xbf16, #cur, rowwise|columnwise>
    return %b, %q : tensor<256xbf16>, !teq.proto<128x256xbf16, #cur, rowwise|columnwise>
  }
}

// FUSED: computed_by\22:{\22input\22:\22arg0\22,\22op\22:\22bias_grad\22}
// FUSED-SAME: workspace_bytes\22:2048}
// The cast's last argument is the partials; its warps' sums go through
// workgroup memory (8 warps x 64 columns).
// FUSED-LABEL: gpu.func @q0_cast(
// FUSED-SAME: %{{[^:]*}}: memref<1xf32>, %[[SUMS:[^:]*]]: memref<512xf32>) workgroup(%{{[^:]*}} : memref<5120xi8, #gpu.address_space<workgroup>>, %[[WARPS:[^:]*]] : memref<512xf32, #gpu.address_space<workgroup>>
// FUSED-COUNT-48: gpu.shuffle  xor
// FUSED: memref.store %{{.*}}, %[[WARPS]]
// FUSED: gpu.barrier
// FUSED-COUNT-8: memref.load %[[WARPS]]
// FUSED: memref.store %{{.*}}, %[[SUMS]]
// FUSED-NOT: bgrad_partial
// FUSED-LABEL: gpu.func @b1_bgrad_final(
// FUSED-SAME: memref<512xf32>, %{{[^:]*}}: memref<256xbf16>)
// FUSED-LABEL: func.func @fused(
// FUSED: %[[SCRATCH:.*]] = memref.view %{{.*}} : memref<2048xi8> to memref<512xf32>
// FUSED: @teq_kernels::@q0_amax
// FUSED: @teq_kernels::@q0_cast {{.*}} %[[SCRATCH]] : memref<512xf32>)
// FUSED-NOT: @teq_kernels::
// FUSED: @teq_kernels::@b1_bgrad_final {{.*}} args(%[[SCRATCH]] : memref<512xf32>, %arg1 : memref<256xbf16>)

// DISABLED-LABEL: func.func @fused(
// DISABLED: @teq_kernels::@b{{[0-9]+}}_bgrad_partial
// DISABLED: @teq_kernels::@b{{[0-9]+}}_bgrad_final

// ERR: unknown fusion 'bogus' in disabled-fusions (known: bias-grad, amax)

//--- unfused.mlir
#cur = #teq.float8_current_scaling_quantizer<f8E5M2>
module attributes {teq.target = #teq.target<sm_90>} {
  // 100x256: the last tile row is partial.
  func.func @ragged(%dy: tensor<100x256xbf16>) -> (tensor<256xbf16>, !teq.proto<100x256xbf16, #cur, rowwise|columnwise>) {
    %b = teq.bias_grad %dy : tensor<100x256xbf16> -> tensor<256xbf16>
    %q = teq.quantize %dy : tensor<100x256xbf16> -> !teq.proto<100x256xbf16, #cur, rowwise|columnwise>
    return %b, %q : tensor<256xbf16>, !teq.proto<100x256xbf16, #cur, rowwise|columnwise>
  }
  // Rowwise only: the cast does not transpose.
  func.func @rowwise(%dy: tensor<128x256xbf16>) -> (tensor<256xbf16>, !teq.proto<128x256xbf16, #cur, rowwise>) {
    %b = teq.bias_grad %dy : tensor<128x256xbf16> -> tensor<256xbf16>
    %q = teq.quantize %dy : tensor<128x256xbf16> -> !teq.proto<128x256xbf16, #cur, rowwise>
    return %b, %q : tensor<256xbf16>, !teq.proto<128x256xbf16, #cur, rowwise>
  }
  // The bias gradient is read before the quantization.
  func.func @read_before(%dy: tensor<128x256xbf16>) -> (tensor<256xbf16>, !teq.proto<128x256xbf16, #cur, rowwise|columnwise>) {
    %b = teq.bias_grad %dy : tensor<128x256xbf16> -> tensor<256xbf16>
    %b2 = arith.addf %b, %b : tensor<256xbf16>
    %q = teq.quantize %dy : tensor<128x256xbf16> -> !teq.proto<128x256xbf16, #cur, rowwise|columnwise>
    return %b2, %q : tensor<256xbf16>, !teq.proto<128x256xbf16, #cur, rowwise|columnwise>
  }
}

// UNFUSED-LABEL: func.func @ragged(
// UNFUSED: bgrad_partial
// UNFUSED-LABEL: func.func @rowwise(
// UNFUSED: bgrad_partial
// UNFUSED-LABEL: func.func @read_before(
// UNFUSED: bgrad_partial

//--- marked.mlir
// The fusion marks are the lowering's own: IR that carries one is refused
// by the dialect's attribute verifier (a marked bias gradient with no cast
// summing it would read partials nobody wrote).
module attributes {teq.target = #teq.target<sm_90>} {
  func.func @marked(%dy: tensor<128x256xbf16>) -> tensor<256xbf16> {
    %b = teq.bias_grad %dy {teq.summed_by_cast} : tensor<128x256xbf16> -> tensor<256xbf16>
    return %b : tensor<256xbf16>
  }
}

// MARKED: error: unknown teq attribute 'teq.summed_by_cast' on an operation
