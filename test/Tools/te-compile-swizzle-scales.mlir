// teq.swizzle_scales lowers to one kernel per scale buffer (builder-emitted,
// grid-stride over the compact bytes); the swizzled value's data buffers are
// its input's (no copy, no workspace), and the manifest records how it was
// computed. A Linear whose weight arrives quantized with compact MXFP8
// scales gets the swizzle before its GEMM (sm_100a).
// RUN: te-compile %s --emit=mlir | FileCheck %s --check-prefix=MLIR
// RUN: te-compile %s --emit=manifest | FileCheck %s --check-prefix=MANIFEST
// RUN: te-compile %S/Inputs/linear-prequantized-weight.mlir --target=sm_100a --emit=manifest | FileCheck %s --check-prefix=LINEAR

module attributes {teq.target = #teq.target<sm_90>} {
  func.func @swizzle_view(%x: tensor<320x288xbf16>) -> !teq.proto<320x288xbf16, #teq.mxfp8_quantizer<f8E4M3FN>, columnwise, gemm_swizzled> {
    %q = teq.quantize %x : tensor<320x288xbf16> -> !teq.proto<320x288xbf16, #teq.mxfp8_quantizer<f8E4M3FN>, rowwise|columnwise>
    %s = teq.swizzle_scales %q : !teq.proto<320x288xbf16, #teq.mxfp8_quantizer<f8E4M3FN>, rowwise|columnwise> -> !teq.proto<320x288xbf16, #teq.mxfp8_quantizer<f8E4M3FN>, rowwise|columnwise, gemm_swizzled>
    %r = teq.update_usage %s : !teq.proto<320x288xbf16, #teq.mxfp8_quantizer<f8E4M3FN>, rowwise|columnwise, gemm_swizzled> -> !teq.proto<320x288xbf16, #teq.mxfp8_quantizer<f8E4M3FN>, columnwise, gemm_swizzled>
    return %r : !teq.proto<320x288xbf16, #teq.mxfp8_quantizer<f8E4M3FN>, columnwise, gemm_swizzled>
  }
}

// Rowwise scales [384, 12] (4608 bytes), swizzled with 3 tiles per band;
// columnwise [12, 384], swizzled after a transpose (3 tiles per band).
// MLIR: gpu.func @[[RS:s[0-9]+_swizzle]](%{{.*}}: memref<4608xi8>, %{{.*}}: memref<4608xi8>) kernel attributes {known_block_size = array<i32: 256, 1, 1>}
// MLIR: scf.for
// MLIR: arith.constant 12 : index
// MLIR: memref.load
// MLIR: memref.store
// MLIR: gpu.func @[[CS:s[0-9]+_swizzle]](%{{.*}}: memref<4608xi8>, %{{.*}}: memref<4608xi8>)
// MLIR: arith.constant 384 : index
// MLIR: func.func @swizzle_view(
// MLIR: gpu.launch_func {{.*}}@teq_kernels::@[[RS]] blocks in (%{{.*}}, %{{.*}}, %{{.*}}) threads in
// MLIR: gpu.launch_func {{.*}}@teq_kernels::@[[CS]]

// The result is a copy of the view; the temporaries are the compact
// quantization and its swizzle. The rowwise data (92160 bytes) dies at the
// swizzle, long before the copy writes the result: it lives in the result's
// columnwise data. Workspace: the columnwise data (92160 bytes, copied at
// the end) and the 4 x 4608 scale bytes.
// MANIFEST: "computed_by": {
// MANIFEST-NEXT: "input": "view(t1)",
// MANIFEST-NEXT: "op": "copy"
// MANIFEST: "computed_by": {
// MANIFEST-NEXT: "input": "arg0",
// MANIFEST-NEXT: "op": "quantize"
// MANIFEST: "name": "t0"
// MANIFEST-NEXT: "placement": [
// MANIFEST-NEXT: {
// MANIFEST-NEXT: "buffer": 0,
// MANIFEST-NEXT: "in": "output",
// MANIFEST-NEXT: "offset": 0,
// MANIFEST-NEXT: "output": "result0"
// MANIFEST: "computed_by": {
// MANIFEST-NEXT: "input": "t0",
// MANIFEST-NEXT: "op": "swizzle_scales"
// MANIFEST: "name": "t1"
// MANIFEST-NEXT: "placement": [
// MANIFEST-NEXT: {
// MANIFEST-NEXT: "in": "input"
// MANIFEST: "workspace_bytes": 110592

// LINEAR: "op": "swizzle_scales"
// LINEAR: "a_scale_mode": "vec32_ue8m0"
