// Buffers of NVFP4 tensors (NVFP4Tensor, te-semantics.md §4.4), compact and
// GEMM-swizzled scales, and row-scaled. Data packs two E2M1 codes per byte:
// rowwise [*leading, K/2]; columnwise [K, M/2] (physically transposed, then
// packed). E4M3 scales: rowwise [roundup(M,128), roundup(K/16,4)], columnwise
// [roundup(K,128), roundup(M/16,4)]. fp32 amax_rowwise [1] ([M] if
// row-scaled) with rowwise usage, amax_columnwise [1] with columnwise usage
// (NVFP4Quantizer.make_empty). Shapes with an odd packed dimension (K for
// rowwise, M for columnwise) are rejected by the type verifier and are
// tested in buffer-layouts-invalid.mlir.
// The layout does not depend on the target: the same CHECK lines run on
// sm_90 (the module's #teq.target) and on sm_100 (the pass option).
// Expected values are computed by hand from the spec, not from the C++.

// RUN: te-opt %s --teq-print-buffer-layouts -o /dev/null | FileCheck %s '-D$CHIP=sm_90'
// RUN: te-opt %s --teq-print-buffer-layouts=target=sm_100 -o /dev/null | FileCheck %s '-D$CHIP=sm_100'

module attributes {teq.target = #teq.target<sm_90>} {
  func.func @nvfp4_303x300(
      %row: !teq.proto<303x300xbf16, #teq.nvfp4_quantizer<f4E2M1FN>, rowwise>) {
    return
  }
  func.func @nvfp4_1x16(
      %row: !teq.proto<1x16xbf16, #teq.nvfp4_quantizer<f4E2M1FN>, rowwise>) {
    return
  }
  func.func @nvfp4_993x512(
      %row: !teq.proto<993x512xbf16, #teq.nvfp4_quantizer<f4E2M1FN>, rowwise>) {
    return
  }
  func.func @nvfp4_300x256(
      %row: !teq.proto<300x256xbf16, #teq.nvfp4_quantizer<f4E2M1FN>, rowwise>,
      %col: !teq.proto<300x256xbf16, #teq.nvfp4_quantizer<f4E2M1FN>, columnwise>,
      %both: !teq.proto<300x256xbf16, #teq.nvfp4_quantizer<f4E2M1FN>, rowwise|columnwise>) {
    return
  }
  func.func @nvfp4_128x256(
      %row: !teq.proto<128x256xbf16, #teq.nvfp4_quantizer<f4E2M1FN>, rowwise>,
      %col: !teq.proto<128x256xbf16, #teq.nvfp4_quantizer<f4E2M1FN>, columnwise>,
      %both: !teq.proto<128x256xbf16, #teq.nvfp4_quantizer<f4E2M1FN>, rowwise|columnwise>) {
    return
  }
  func.func @nvfp4_256x272(
      %row: !teq.proto<256x272xbf16, #teq.nvfp4_quantizer<f4E2M1FN>, rowwise>,
      %col: !teq.proto<256x272xbf16, #teq.nvfp4_quantizer<f4E2M1FN>, columnwise>,
      %both: !teq.proto<256x272xbf16, #teq.nvfp4_quantizer<f4E2M1FN>, rowwise|columnwise>) {
    return
  }
  func.func @nvfp4_5x4x3x160(
      %row: !teq.proto<5x4x3x160xf32, #teq.nvfp4_quantizer<f4E2M1FN>, rowwise>,
      %col: !teq.proto<5x4x3x160xf32, #teq.nvfp4_quantizer<f4E2M1FN>, columnwise>,
      %both: !teq.proto<5x4x3x160xf32, #teq.nvfp4_quantizer<f4E2M1FN>, rowwise|columnwise>) {
    return
  }
  func.func @nvfp4_swizzled_303x300(
      %row: !teq.proto<303x300xbf16, #teq.nvfp4_quantizer<f4E2M1FN>, rowwise, gemm_swizzled>) {
    return
  }
  func.func @nvfp4_swizzled_1x16(
      %row: !teq.proto<1x16xbf16, #teq.nvfp4_quantizer<f4E2M1FN>, rowwise, gemm_swizzled>) {
    return
  }
  func.func @nvfp4_swizzled_993x512(
      %row: !teq.proto<993x512xbf16, #teq.nvfp4_quantizer<f4E2M1FN>, rowwise, gemm_swizzled>) {
    return
  }
  func.func @nvfp4_swizzled_300x256(
      %row: !teq.proto<300x256xbf16, #teq.nvfp4_quantizer<f4E2M1FN>, rowwise, gemm_swizzled>,
      %col: !teq.proto<300x256xbf16, #teq.nvfp4_quantizer<f4E2M1FN>, columnwise, gemm_swizzled>,
      %both: !teq.proto<300x256xbf16, #teq.nvfp4_quantizer<f4E2M1FN>, rowwise|columnwise, gemm_swizzled>) {
    return
  }
  func.func @nvfp4_swizzled_128x256(
      %row: !teq.proto<128x256xbf16, #teq.nvfp4_quantizer<f4E2M1FN>, rowwise, gemm_swizzled>,
      %col: !teq.proto<128x256xbf16, #teq.nvfp4_quantizer<f4E2M1FN>, columnwise, gemm_swizzled>,
      %both: !teq.proto<128x256xbf16, #teq.nvfp4_quantizer<f4E2M1FN>, rowwise|columnwise, gemm_swizzled>) {
    return
  }
  func.func @nvfp4_swizzled_256x272(
      %row: !teq.proto<256x272xbf16, #teq.nvfp4_quantizer<f4E2M1FN>, rowwise, gemm_swizzled>,
      %col: !teq.proto<256x272xbf16, #teq.nvfp4_quantizer<f4E2M1FN>, columnwise, gemm_swizzled>,
      %both: !teq.proto<256x272xbf16, #teq.nvfp4_quantizer<f4E2M1FN>, rowwise|columnwise, gemm_swizzled>) {
    return
  }
  func.func @nvfp4_swizzled_5x4x3x160(
      %row: !teq.proto<5x4x3x160xf32, #teq.nvfp4_quantizer<f4E2M1FN>, rowwise, gemm_swizzled>,
      %col: !teq.proto<5x4x3x160xf32, #teq.nvfp4_quantizer<f4E2M1FN>, columnwise, gemm_swizzled>,
      %both: !teq.proto<5x4x3x160xf32, #teq.nvfp4_quantizer<f4E2M1FN>, rowwise|columnwise, gemm_swizzled>) {
    return
  }
  func.func @nvfp4_row_scaled_303x300(
      %row: !teq.proto<303x300xbf16, #teq.nvfp4_quantizer<f4E2M1FN, row_scaled_nvfp4 = true>, rowwise>) {
    return
  }
  func.func @nvfp4_row_scaled_1x16(
      %row: !teq.proto<1x16xbf16, #teq.nvfp4_quantizer<f4E2M1FN, row_scaled_nvfp4 = true>, rowwise>) {
    return
  }
  func.func @nvfp4_row_scaled_993x512(
      %row: !teq.proto<993x512xbf16, #teq.nvfp4_quantizer<f4E2M1FN, row_scaled_nvfp4 = true>, rowwise>) {
    return
  }
  func.func @nvfp4_row_scaled_300x256(
      %row: !teq.proto<300x256xbf16, #teq.nvfp4_quantizer<f4E2M1FN, row_scaled_nvfp4 = true>, rowwise>,
      %col: !teq.proto<300x256xbf16, #teq.nvfp4_quantizer<f4E2M1FN, row_scaled_nvfp4 = true>, columnwise>,
      %both: !teq.proto<300x256xbf16, #teq.nvfp4_quantizer<f4E2M1FN, row_scaled_nvfp4 = true>, rowwise|columnwise>) {
    return
  }
  func.func @nvfp4_row_scaled_128x256(
      %row: !teq.proto<128x256xbf16, #teq.nvfp4_quantizer<f4E2M1FN, row_scaled_nvfp4 = true>, rowwise>,
      %col: !teq.proto<128x256xbf16, #teq.nvfp4_quantizer<f4E2M1FN, row_scaled_nvfp4 = true>, columnwise>,
      %both: !teq.proto<128x256xbf16, #teq.nvfp4_quantizer<f4E2M1FN, row_scaled_nvfp4 = true>, rowwise|columnwise>) {
    return
  }
  func.func @nvfp4_row_scaled_256x272(
      %row: !teq.proto<256x272xbf16, #teq.nvfp4_quantizer<f4E2M1FN, row_scaled_nvfp4 = true>, rowwise>,
      %col: !teq.proto<256x272xbf16, #teq.nvfp4_quantizer<f4E2M1FN, row_scaled_nvfp4 = true>, columnwise>,
      %both: !teq.proto<256x272xbf16, #teq.nvfp4_quantizer<f4E2M1FN, row_scaled_nvfp4 = true>, rowwise|columnwise>) {
    return
  }
  func.func @nvfp4_row_scaled_5x4x3x160(
      %row: !teq.proto<5x4x3x160xf32, #teq.nvfp4_quantizer<f4E2M1FN, row_scaled_nvfp4 = true>, rowwise>,
      %col: !teq.proto<5x4x3x160xf32, #teq.nvfp4_quantizer<f4E2M1FN, row_scaled_nvfp4 = true>, columnwise>,
      %both: !teq.proto<5x4x3x160xf32, #teq.nvfp4_quantizer<f4E2M1FN, row_scaled_nvfp4 = true>, rowwise|columnwise>) {
    return
  }
}

// CHECK-LABEL: !teq.proto<303x300xbf16, #teq.nvfp4_quantizer<f4E2M1FN>, rowwise>
// CHECK-SAME: on [[$CHIP]]: 3 buffers, 53134 bytes{{$}}
// CHECK-NEXT: {{^}} rowwise_data e2m1x2 [303, 150] 45450 B{{$}}
// CHECK-NEXT: {{^}} rowwise_scale_inv e4m3 [384, 20] valid [303, 19] compact 7680 B{{$}}
// CHECK-NEXT: {{^}} amax_rowwise f32 [1] 4 B{{$}}
// CHECK-NOT: {{^ }}

// CHECK-LABEL: !teq.proto<1x16xbf16, #teq.nvfp4_quantizer<f4E2M1FN>, rowwise>
// CHECK-SAME: on [[$CHIP]]: 3 buffers, 524 bytes{{$}}
// CHECK-NEXT: {{^}} rowwise_data e2m1x2 [1, 8] 8 B{{$}}
// CHECK-NEXT: {{^}} rowwise_scale_inv e4m3 [128, 4] valid [1, 1] compact 512 B{{$}}
// CHECK-NEXT: {{^}} amax_rowwise f32 [1] 4 B{{$}}
// CHECK-NOT: {{^ }}

// CHECK-LABEL: !teq.proto<993x512xbf16, #teq.nvfp4_quantizer<f4E2M1FN>, rowwise>
// CHECK-SAME: on [[$CHIP]]: 3 buffers, 286980 bytes{{$}}
// CHECK-NEXT: {{^}} rowwise_data e2m1x2 [993, 256] 254208 B{{$}}
// CHECK-NEXT: {{^}} rowwise_scale_inv e4m3 [1024, 32] valid [993, 32] compact 32768 B{{$}}
// CHECK-NEXT: {{^}} amax_rowwise f32 [1] 4 B{{$}}
// CHECK-NOT: {{^ }}

// CHECK-LABEL: !teq.proto<300x256xbf16, #teq.nvfp4_quantizer<f4E2M1FN>, rowwise>
// CHECK-SAME: on [[$CHIP]]: 3 buffers, 44548 bytes{{$}}
// CHECK-NEXT: {{^}} rowwise_data e2m1x2 [300, 128] 38400 B{{$}}
// CHECK-NEXT: {{^}} rowwise_scale_inv e4m3 [384, 16] valid [300, 16] compact 6144 B{{$}}
// CHECK-NEXT: {{^}} amax_rowwise f32 [1] 4 B{{$}}
// CHECK-NOT: {{^ }}

// CHECK-LABEL: !teq.proto<300x256xbf16, #teq.nvfp4_quantizer<f4E2M1FN>, columnwise>
// CHECK-SAME: on [[$CHIP]]: 3 buffers, 43524 bytes{{$}}
// CHECK-NEXT: {{^}} columnwise_data e2m1x2 [256, 150] transposed 38400 B{{$}}
// CHECK-NEXT: {{^}} columnwise_scale_inv e4m3 [256, 20] valid [256, 19] compact 5120 B{{$}}
// CHECK-NEXT: {{^}} amax_columnwise f32 [1] 4 B{{$}}
// CHECK-NOT: {{^ }}

// CHECK-LABEL: !teq.proto<300x256xbf16, #teq.nvfp4_quantizer<f4E2M1FN>, rowwise|columnwise>
// CHECK-SAME: on [[$CHIP]]: 6 buffers, 88072 bytes{{$}}
// CHECK-NEXT: {{^}} rowwise_data e2m1x2 [300, 128] 38400 B{{$}}
// CHECK-NEXT: {{^}} rowwise_scale_inv e4m3 [384, 16] valid [300, 16] compact 6144 B{{$}}
// CHECK-NEXT: {{^}} columnwise_data e2m1x2 [256, 150] transposed 38400 B{{$}}
// CHECK-NEXT: {{^}} columnwise_scale_inv e4m3 [256, 20] valid [256, 19] compact 5120 B{{$}}
// CHECK-NEXT: {{^}} amax_rowwise f32 [1] 4 B{{$}}
// CHECK-NEXT: {{^}} amax_columnwise f32 [1] 4 B{{$}}
// CHECK-NOT: {{^ }}

// CHECK-LABEL: !teq.proto<128x256xbf16, #teq.nvfp4_quantizer<f4E2M1FN>, rowwise>
// CHECK-SAME: on [[$CHIP]]: 3 buffers, 18436 bytes{{$}}
// CHECK-NEXT: {{^}} rowwise_data e2m1x2 [128, 128] 16384 B{{$}}
// CHECK-NEXT: {{^}} rowwise_scale_inv e4m3 [128, 16] compact 2048 B{{$}}
// CHECK-NEXT: {{^}} amax_rowwise f32 [1] 4 B{{$}}
// CHECK-NOT: {{^ }}

// CHECK-LABEL: !teq.proto<128x256xbf16, #teq.nvfp4_quantizer<f4E2M1FN>, columnwise>
// CHECK-SAME: on [[$CHIP]]: 3 buffers, 18436 bytes{{$}}
// CHECK-NEXT: {{^}} columnwise_data e2m1x2 [256, 64] transposed 16384 B{{$}}
// CHECK-NEXT: {{^}} columnwise_scale_inv e4m3 [256, 8] compact 2048 B{{$}}
// CHECK-NEXT: {{^}} amax_columnwise f32 [1] 4 B{{$}}
// CHECK-NOT: {{^ }}

// CHECK-LABEL: !teq.proto<128x256xbf16, #teq.nvfp4_quantizer<f4E2M1FN>, rowwise|columnwise>
// CHECK-SAME: on [[$CHIP]]: 6 buffers, 36872 bytes{{$}}
// CHECK-NEXT: {{^}} rowwise_data e2m1x2 [128, 128] 16384 B{{$}}
// CHECK-NEXT: {{^}} rowwise_scale_inv e4m3 [128, 16] compact 2048 B{{$}}
// CHECK-NEXT: {{^}} columnwise_data e2m1x2 [256, 64] transposed 16384 B{{$}}
// CHECK-NEXT: {{^}} columnwise_scale_inv e4m3 [256, 8] compact 2048 B{{$}}
// CHECK-NEXT: {{^}} amax_rowwise f32 [1] 4 B{{$}}
// CHECK-NEXT: {{^}} amax_columnwise f32 [1] 4 B{{$}}
// CHECK-NOT: {{^ }}

// CHECK-LABEL: !teq.proto<256x272xbf16, #teq.nvfp4_quantizer<f4E2M1FN>, rowwise>
// CHECK-SAME: on [[$CHIP]]: 3 buffers, 39940 bytes{{$}}
// CHECK-NEXT: {{^}} rowwise_data e2m1x2 [256, 136] 34816 B{{$}}
// CHECK-NEXT: {{^}} rowwise_scale_inv e4m3 [256, 20] valid [256, 17] compact 5120 B{{$}}
// CHECK-NEXT: {{^}} amax_rowwise f32 [1] 4 B{{$}}
// CHECK-NOT: {{^ }}

// CHECK-LABEL: !teq.proto<256x272xbf16, #teq.nvfp4_quantizer<f4E2M1FN>, columnwise>
// CHECK-SAME: on [[$CHIP]]: 3 buffers, 40964 bytes{{$}}
// CHECK-NEXT: {{^}} columnwise_data e2m1x2 [272, 128] transposed 34816 B{{$}}
// CHECK-NEXT: {{^}} columnwise_scale_inv e4m3 [384, 16] valid [272, 16] compact 6144 B{{$}}
// CHECK-NEXT: {{^}} amax_columnwise f32 [1] 4 B{{$}}
// CHECK-NOT: {{^ }}

// CHECK-LABEL: !teq.proto<256x272xbf16, #teq.nvfp4_quantizer<f4E2M1FN>, rowwise|columnwise>
// CHECK-SAME: on [[$CHIP]]: 6 buffers, 80904 bytes{{$}}
// CHECK-NEXT: {{^}} rowwise_data e2m1x2 [256, 136] 34816 B{{$}}
// CHECK-NEXT: {{^}} rowwise_scale_inv e4m3 [256, 20] valid [256, 17] compact 5120 B{{$}}
// CHECK-NEXT: {{^}} columnwise_data e2m1x2 [272, 128] transposed 34816 B{{$}}
// CHECK-NEXT: {{^}} columnwise_scale_inv e4m3 [384, 16] valid [272, 16] compact 6144 B{{$}}
// CHECK-NEXT: {{^}} amax_rowwise f32 [1] 4 B{{$}}
// CHECK-NEXT: {{^}} amax_columnwise f32 [1] 4 B{{$}}
// CHECK-NOT: {{^ }}

// CHECK-LABEL: !teq.proto<5x4x3x160xf32, #teq.nvfp4_quantizer<f4E2M1FN>, rowwise>
// CHECK-SAME: on [[$CHIP]]: 3 buffers, 6340 bytes{{$}}
// CHECK-NEXT: {{^}} rowwise_data e2m1x2 [5, 4, 3, 80] 4800 B{{$}}
// CHECK-NEXT: {{^}} rowwise_scale_inv e4m3 [128, 12] valid [60, 10] compact 1536 B{{$}}
// CHECK-NEXT: {{^}} amax_rowwise f32 [1] 4 B{{$}}
// CHECK-NOT: {{^ }}

// CHECK-LABEL: !teq.proto<5x4x3x160xf32, #teq.nvfp4_quantizer<f4E2M1FN>, columnwise>
// CHECK-SAME: on [[$CHIP]]: 3 buffers, 5828 bytes{{$}}
// CHECK-NEXT: {{^}} columnwise_data e2m1x2 [160, 30] transposed 4800 B{{$}}
// CHECK-NEXT: {{^}} columnwise_scale_inv e4m3 [256, 4] valid [160, 4] compact 1024 B{{$}}
// CHECK-NEXT: {{^}} amax_columnwise f32 [1] 4 B{{$}}
// CHECK-NOT: {{^ }}

// CHECK-LABEL: !teq.proto<5x4x3x160xf32, #teq.nvfp4_quantizer<f4E2M1FN>, rowwise|columnwise>
// CHECK-SAME: on [[$CHIP]]: 6 buffers, 12168 bytes{{$}}
// CHECK-NEXT: {{^}} rowwise_data e2m1x2 [5, 4, 3, 80] 4800 B{{$}}
// CHECK-NEXT: {{^}} rowwise_scale_inv e4m3 [128, 12] valid [60, 10] compact 1536 B{{$}}
// CHECK-NEXT: {{^}} columnwise_data e2m1x2 [160, 30] transposed 4800 B{{$}}
// CHECK-NEXT: {{^}} columnwise_scale_inv e4m3 [256, 4] valid [160, 4] compact 1024 B{{$}}
// CHECK-NEXT: {{^}} amax_rowwise f32 [1] 4 B{{$}}
// CHECK-NEXT: {{^}} amax_columnwise f32 [1] 4 B{{$}}
// CHECK-NOT: {{^ }}

// CHECK-LABEL: !teq.proto<303x300xbf16, #teq.nvfp4_quantizer<f4E2M1FN>, rowwise, gemm_swizzled>
// CHECK-SAME: on [[$CHIP]]: 3 buffers, 53134 bytes{{$}}
// CHECK-NEXT: {{^}} rowwise_data e2m1x2 [303, 150] 45450 B{{$}}
// CHECK-NEXT: {{^}} rowwise_scale_inv e4m3 [384, 20] valid [303, 19] gemm_swizzled 7680 B{{$}}
// CHECK-NEXT: {{^}} amax_rowwise f32 [1] 4 B{{$}}
// CHECK-NOT: {{^ }}

// CHECK-LABEL: !teq.proto<1x16xbf16, #teq.nvfp4_quantizer<f4E2M1FN>, rowwise, gemm_swizzled>
// CHECK-SAME: on [[$CHIP]]: 3 buffers, 524 bytes{{$}}
// CHECK-NEXT: {{^}} rowwise_data e2m1x2 [1, 8] 8 B{{$}}
// CHECK-NEXT: {{^}} rowwise_scale_inv e4m3 [128, 4] valid [1, 1] gemm_swizzled 512 B{{$}}
// CHECK-NEXT: {{^}} amax_rowwise f32 [1] 4 B{{$}}
// CHECK-NOT: {{^ }}

// CHECK-LABEL: !teq.proto<993x512xbf16, #teq.nvfp4_quantizer<f4E2M1FN>, rowwise, gemm_swizzled>
// CHECK-SAME: on [[$CHIP]]: 3 buffers, 286980 bytes{{$}}
// CHECK-NEXT: {{^}} rowwise_data e2m1x2 [993, 256] 254208 B{{$}}
// CHECK-NEXT: {{^}} rowwise_scale_inv e4m3 [1024, 32] valid [993, 32] gemm_swizzled 32768 B{{$}}
// CHECK-NEXT: {{^}} amax_rowwise f32 [1] 4 B{{$}}
// CHECK-NOT: {{^ }}

// CHECK-LABEL: !teq.proto<300x256xbf16, #teq.nvfp4_quantizer<f4E2M1FN>, rowwise, gemm_swizzled>
// CHECK-SAME: on [[$CHIP]]: 3 buffers, 44548 bytes{{$}}
// CHECK-NEXT: {{^}} rowwise_data e2m1x2 [300, 128] 38400 B{{$}}
// CHECK-NEXT: {{^}} rowwise_scale_inv e4m3 [384, 16] valid [300, 16] gemm_swizzled 6144 B{{$}}
// CHECK-NEXT: {{^}} amax_rowwise f32 [1] 4 B{{$}}
// CHECK-NOT: {{^ }}

// CHECK-LABEL: !teq.proto<300x256xbf16, #teq.nvfp4_quantizer<f4E2M1FN>, columnwise, gemm_swizzled>
// CHECK-SAME: on [[$CHIP]]: 3 buffers, 43524 bytes{{$}}
// CHECK-NEXT: {{^}} columnwise_data e2m1x2 [256, 150] transposed 38400 B{{$}}
// CHECK-NEXT: {{^}} columnwise_scale_inv e4m3 [256, 20] valid [256, 19] gemm_swizzled 5120 B{{$}}
// CHECK-NEXT: {{^}} amax_columnwise f32 [1] 4 B{{$}}
// CHECK-NOT: {{^ }}

// CHECK-LABEL: !teq.proto<300x256xbf16, #teq.nvfp4_quantizer<f4E2M1FN>, rowwise|columnwise, gemm_swizzled>
// CHECK-SAME: on [[$CHIP]]: 6 buffers, 88072 bytes{{$}}
// CHECK-NEXT: {{^}} rowwise_data e2m1x2 [300, 128] 38400 B{{$}}
// CHECK-NEXT: {{^}} rowwise_scale_inv e4m3 [384, 16] valid [300, 16] gemm_swizzled 6144 B{{$}}
// CHECK-NEXT: {{^}} columnwise_data e2m1x2 [256, 150] transposed 38400 B{{$}}
// CHECK-NEXT: {{^}} columnwise_scale_inv e4m3 [256, 20] valid [256, 19] gemm_swizzled 5120 B{{$}}
// CHECK-NEXT: {{^}} amax_rowwise f32 [1] 4 B{{$}}
// CHECK-NEXT: {{^}} amax_columnwise f32 [1] 4 B{{$}}
// CHECK-NOT: {{^ }}

// CHECK-LABEL: !teq.proto<128x256xbf16, #teq.nvfp4_quantizer<f4E2M1FN>, rowwise, gemm_swizzled>
// CHECK-SAME: on [[$CHIP]]: 3 buffers, 18436 bytes{{$}}
// CHECK-NEXT: {{^}} rowwise_data e2m1x2 [128, 128] 16384 B{{$}}
// CHECK-NEXT: {{^}} rowwise_scale_inv e4m3 [128, 16] gemm_swizzled 2048 B{{$}}
// CHECK-NEXT: {{^}} amax_rowwise f32 [1] 4 B{{$}}
// CHECK-NOT: {{^ }}

// CHECK-LABEL: !teq.proto<128x256xbf16, #teq.nvfp4_quantizer<f4E2M1FN>, columnwise, gemm_swizzled>
// CHECK-SAME: on [[$CHIP]]: 3 buffers, 18436 bytes{{$}}
// CHECK-NEXT: {{^}} columnwise_data e2m1x2 [256, 64] transposed 16384 B{{$}}
// CHECK-NEXT: {{^}} columnwise_scale_inv e4m3 [256, 8] gemm_swizzled 2048 B{{$}}
// CHECK-NEXT: {{^}} amax_columnwise f32 [1] 4 B{{$}}
// CHECK-NOT: {{^ }}

// CHECK-LABEL: !teq.proto<128x256xbf16, #teq.nvfp4_quantizer<f4E2M1FN>, rowwise|columnwise, gemm_swizzled>
// CHECK-SAME: on [[$CHIP]]: 6 buffers, 36872 bytes{{$}}
// CHECK-NEXT: {{^}} rowwise_data e2m1x2 [128, 128] 16384 B{{$}}
// CHECK-NEXT: {{^}} rowwise_scale_inv e4m3 [128, 16] gemm_swizzled 2048 B{{$}}
// CHECK-NEXT: {{^}} columnwise_data e2m1x2 [256, 64] transposed 16384 B{{$}}
// CHECK-NEXT: {{^}} columnwise_scale_inv e4m3 [256, 8] gemm_swizzled 2048 B{{$}}
// CHECK-NEXT: {{^}} amax_rowwise f32 [1] 4 B{{$}}
// CHECK-NEXT: {{^}} amax_columnwise f32 [1] 4 B{{$}}
// CHECK-NOT: {{^ }}

// CHECK-LABEL: !teq.proto<256x272xbf16, #teq.nvfp4_quantizer<f4E2M1FN>, rowwise, gemm_swizzled>
// CHECK-SAME: on [[$CHIP]]: 3 buffers, 39940 bytes{{$}}
// CHECK-NEXT: {{^}} rowwise_data e2m1x2 [256, 136] 34816 B{{$}}
// CHECK-NEXT: {{^}} rowwise_scale_inv e4m3 [256, 20] valid [256, 17] gemm_swizzled 5120 B{{$}}
// CHECK-NEXT: {{^}} amax_rowwise f32 [1] 4 B{{$}}
// CHECK-NOT: {{^ }}

// CHECK-LABEL: !teq.proto<256x272xbf16, #teq.nvfp4_quantizer<f4E2M1FN>, columnwise, gemm_swizzled>
// CHECK-SAME: on [[$CHIP]]: 3 buffers, 40964 bytes{{$}}
// CHECK-NEXT: {{^}} columnwise_data e2m1x2 [272, 128] transposed 34816 B{{$}}
// CHECK-NEXT: {{^}} columnwise_scale_inv e4m3 [384, 16] valid [272, 16] gemm_swizzled 6144 B{{$}}
// CHECK-NEXT: {{^}} amax_columnwise f32 [1] 4 B{{$}}
// CHECK-NOT: {{^ }}

// CHECK-LABEL: !teq.proto<256x272xbf16, #teq.nvfp4_quantizer<f4E2M1FN>, rowwise|columnwise, gemm_swizzled>
// CHECK-SAME: on [[$CHIP]]: 6 buffers, 80904 bytes{{$}}
// CHECK-NEXT: {{^}} rowwise_data e2m1x2 [256, 136] 34816 B{{$}}
// CHECK-NEXT: {{^}} rowwise_scale_inv e4m3 [256, 20] valid [256, 17] gemm_swizzled 5120 B{{$}}
// CHECK-NEXT: {{^}} columnwise_data e2m1x2 [272, 128] transposed 34816 B{{$}}
// CHECK-NEXT: {{^}} columnwise_scale_inv e4m3 [384, 16] valid [272, 16] gemm_swizzled 6144 B{{$}}
// CHECK-NEXT: {{^}} amax_rowwise f32 [1] 4 B{{$}}
// CHECK-NEXT: {{^}} amax_columnwise f32 [1] 4 B{{$}}
// CHECK-NOT: {{^ }}

// CHECK-LABEL: !teq.proto<5x4x3x160xf32, #teq.nvfp4_quantizer<f4E2M1FN>, rowwise, gemm_swizzled>
// CHECK-SAME: on [[$CHIP]]: 3 buffers, 6340 bytes{{$}}
// CHECK-NEXT: {{^}} rowwise_data e2m1x2 [5, 4, 3, 80] 4800 B{{$}}
// CHECK-NEXT: {{^}} rowwise_scale_inv e4m3 [128, 12] valid [60, 10] gemm_swizzled 1536 B{{$}}
// CHECK-NEXT: {{^}} amax_rowwise f32 [1] 4 B{{$}}
// CHECK-NOT: {{^ }}

// CHECK-LABEL: !teq.proto<5x4x3x160xf32, #teq.nvfp4_quantizer<f4E2M1FN>, columnwise, gemm_swizzled>
// CHECK-SAME: on [[$CHIP]]: 3 buffers, 5828 bytes{{$}}
// CHECK-NEXT: {{^}} columnwise_data e2m1x2 [160, 30] transposed 4800 B{{$}}
// CHECK-NEXT: {{^}} columnwise_scale_inv e4m3 [256, 4] valid [160, 4] gemm_swizzled 1024 B{{$}}
// CHECK-NEXT: {{^}} amax_columnwise f32 [1] 4 B{{$}}
// CHECK-NOT: {{^ }}

// CHECK-LABEL: !teq.proto<5x4x3x160xf32, #teq.nvfp4_quantizer<f4E2M1FN>, rowwise|columnwise, gemm_swizzled>
// CHECK-SAME: on [[$CHIP]]: 6 buffers, 12168 bytes{{$}}
// CHECK-NEXT: {{^}} rowwise_data e2m1x2 [5, 4, 3, 80] 4800 B{{$}}
// CHECK-NEXT: {{^}} rowwise_scale_inv e4m3 [128, 12] valid [60, 10] gemm_swizzled 1536 B{{$}}
// CHECK-NEXT: {{^}} columnwise_data e2m1x2 [160, 30] transposed 4800 B{{$}}
// CHECK-NEXT: {{^}} columnwise_scale_inv e4m3 [256, 4] valid [160, 4] gemm_swizzled 1024 B{{$}}
// CHECK-NEXT: {{^}} amax_rowwise f32 [1] 4 B{{$}}
// CHECK-NEXT: {{^}} amax_columnwise f32 [1] 4 B{{$}}
// CHECK-NOT: {{^ }}

// CHECK-LABEL: !teq.proto<303x300xbf16, #teq.nvfp4_quantizer<f4E2M1FN, row_scaled_nvfp4 = true>, rowwise>
// CHECK-SAME: on [[$CHIP]]: 3 buffers, 54342 bytes{{$}}
// CHECK-NEXT: {{^}} rowwise_data e2m1x2 [303, 150] 45450 B{{$}}
// CHECK-NEXT: {{^}} rowwise_scale_inv e4m3 [384, 20] valid [303, 19] compact 7680 B{{$}}
// CHECK-NEXT: {{^}} amax_rowwise f32 [303] 1212 B{{$}}
// CHECK-NOT: {{^ }}

// CHECK-LABEL: !teq.proto<1x16xbf16, #teq.nvfp4_quantizer<f4E2M1FN, row_scaled_nvfp4 = true>, rowwise>
// CHECK-SAME: on [[$CHIP]]: 3 buffers, 524 bytes{{$}}
// CHECK-NEXT: {{^}} rowwise_data e2m1x2 [1, 8] 8 B{{$}}
// CHECK-NEXT: {{^}} rowwise_scale_inv e4m3 [128, 4] valid [1, 1] compact 512 B{{$}}
// CHECK-NEXT: {{^}} amax_rowwise f32 [1] 4 B{{$}}
// CHECK-NOT: {{^ }}

// CHECK-LABEL: !teq.proto<993x512xbf16, #teq.nvfp4_quantizer<f4E2M1FN, row_scaled_nvfp4 = true>, rowwise>
// CHECK-SAME: on [[$CHIP]]: 3 buffers, 290948 bytes{{$}}
// CHECK-NEXT: {{^}} rowwise_data e2m1x2 [993, 256] 254208 B{{$}}
// CHECK-NEXT: {{^}} rowwise_scale_inv e4m3 [1024, 32] valid [993, 32] compact 32768 B{{$}}
// CHECK-NEXT: {{^}} amax_rowwise f32 [993] 3972 B{{$}}
// CHECK-NOT: {{^ }}

// CHECK-LABEL: !teq.proto<300x256xbf16, #teq.nvfp4_quantizer<f4E2M1FN, row_scaled_nvfp4 = true>, rowwise>
// CHECK-SAME: on [[$CHIP]]: 3 buffers, 45744 bytes{{$}}
// CHECK-NEXT: {{^}} rowwise_data e2m1x2 [300, 128] 38400 B{{$}}
// CHECK-NEXT: {{^}} rowwise_scale_inv e4m3 [384, 16] valid [300, 16] compact 6144 B{{$}}
// CHECK-NEXT: {{^}} amax_rowwise f32 [300] 1200 B{{$}}
// CHECK-NOT: {{^ }}

// CHECK-LABEL: !teq.proto<300x256xbf16, #teq.nvfp4_quantizer<f4E2M1FN, row_scaled_nvfp4 = true>, columnwise>
// CHECK-SAME: on [[$CHIP]]: 3 buffers, 43524 bytes{{$}}
// CHECK-NEXT: {{^}} columnwise_data e2m1x2 [256, 150] transposed 38400 B{{$}}
// CHECK-NEXT: {{^}} columnwise_scale_inv e4m3 [256, 20] valid [256, 19] compact 5120 B{{$}}
// CHECK-NEXT: {{^}} amax_columnwise f32 [1] 4 B{{$}}
// CHECK-NOT: {{^ }}

// CHECK-LABEL: !teq.proto<300x256xbf16, #teq.nvfp4_quantizer<f4E2M1FN, row_scaled_nvfp4 = true>, rowwise|columnwise>
// CHECK-SAME: on [[$CHIP]]: 6 buffers, 89268 bytes{{$}}
// CHECK-NEXT: {{^}} rowwise_data e2m1x2 [300, 128] 38400 B{{$}}
// CHECK-NEXT: {{^}} rowwise_scale_inv e4m3 [384, 16] valid [300, 16] compact 6144 B{{$}}
// CHECK-NEXT: {{^}} columnwise_data e2m1x2 [256, 150] transposed 38400 B{{$}}
// CHECK-NEXT: {{^}} columnwise_scale_inv e4m3 [256, 20] valid [256, 19] compact 5120 B{{$}}
// CHECK-NEXT: {{^}} amax_rowwise f32 [300] 1200 B{{$}}
// CHECK-NEXT: {{^}} amax_columnwise f32 [1] 4 B{{$}}
// CHECK-NOT: {{^ }}

// CHECK-LABEL: !teq.proto<128x256xbf16, #teq.nvfp4_quantizer<f4E2M1FN, row_scaled_nvfp4 = true>, rowwise>
// CHECK-SAME: on [[$CHIP]]: 3 buffers, 18944 bytes{{$}}
// CHECK-NEXT: {{^}} rowwise_data e2m1x2 [128, 128] 16384 B{{$}}
// CHECK-NEXT: {{^}} rowwise_scale_inv e4m3 [128, 16] compact 2048 B{{$}}
// CHECK-NEXT: {{^}} amax_rowwise f32 [128] 512 B{{$}}
// CHECK-NOT: {{^ }}

// CHECK-LABEL: !teq.proto<128x256xbf16, #teq.nvfp4_quantizer<f4E2M1FN, row_scaled_nvfp4 = true>, columnwise>
// CHECK-SAME: on [[$CHIP]]: 3 buffers, 18436 bytes{{$}}
// CHECK-NEXT: {{^}} columnwise_data e2m1x2 [256, 64] transposed 16384 B{{$}}
// CHECK-NEXT: {{^}} columnwise_scale_inv e4m3 [256, 8] compact 2048 B{{$}}
// CHECK-NEXT: {{^}} amax_columnwise f32 [1] 4 B{{$}}
// CHECK-NOT: {{^ }}

// CHECK-LABEL: !teq.proto<128x256xbf16, #teq.nvfp4_quantizer<f4E2M1FN, row_scaled_nvfp4 = true>, rowwise|columnwise>
// CHECK-SAME: on [[$CHIP]]: 6 buffers, 37380 bytes{{$}}
// CHECK-NEXT: {{^}} rowwise_data e2m1x2 [128, 128] 16384 B{{$}}
// CHECK-NEXT: {{^}} rowwise_scale_inv e4m3 [128, 16] compact 2048 B{{$}}
// CHECK-NEXT: {{^}} columnwise_data e2m1x2 [256, 64] transposed 16384 B{{$}}
// CHECK-NEXT: {{^}} columnwise_scale_inv e4m3 [256, 8] compact 2048 B{{$}}
// CHECK-NEXT: {{^}} amax_rowwise f32 [128] 512 B{{$}}
// CHECK-NEXT: {{^}} amax_columnwise f32 [1] 4 B{{$}}
// CHECK-NOT: {{^ }}

// CHECK-LABEL: !teq.proto<256x272xbf16, #teq.nvfp4_quantizer<f4E2M1FN, row_scaled_nvfp4 = true>, rowwise>
// CHECK-SAME: on [[$CHIP]]: 3 buffers, 40960 bytes{{$}}
// CHECK-NEXT: {{^}} rowwise_data e2m1x2 [256, 136] 34816 B{{$}}
// CHECK-NEXT: {{^}} rowwise_scale_inv e4m3 [256, 20] valid [256, 17] compact 5120 B{{$}}
// CHECK-NEXT: {{^}} amax_rowwise f32 [256] 1024 B{{$}}
// CHECK-NOT: {{^ }}

// CHECK-LABEL: !teq.proto<256x272xbf16, #teq.nvfp4_quantizer<f4E2M1FN, row_scaled_nvfp4 = true>, columnwise>
// CHECK-SAME: on [[$CHIP]]: 3 buffers, 40964 bytes{{$}}
// CHECK-NEXT: {{^}} columnwise_data e2m1x2 [272, 128] transposed 34816 B{{$}}
// CHECK-NEXT: {{^}} columnwise_scale_inv e4m3 [384, 16] valid [272, 16] compact 6144 B{{$}}
// CHECK-NEXT: {{^}} amax_columnwise f32 [1] 4 B{{$}}
// CHECK-NOT: {{^ }}

// CHECK-LABEL: !teq.proto<256x272xbf16, #teq.nvfp4_quantizer<f4E2M1FN, row_scaled_nvfp4 = true>, rowwise|columnwise>
// CHECK-SAME: on [[$CHIP]]: 6 buffers, 81924 bytes{{$}}
// CHECK-NEXT: {{^}} rowwise_data e2m1x2 [256, 136] 34816 B{{$}}
// CHECK-NEXT: {{^}} rowwise_scale_inv e4m3 [256, 20] valid [256, 17] compact 5120 B{{$}}
// CHECK-NEXT: {{^}} columnwise_data e2m1x2 [272, 128] transposed 34816 B{{$}}
// CHECK-NEXT: {{^}} columnwise_scale_inv e4m3 [384, 16] valid [272, 16] compact 6144 B{{$}}
// CHECK-NEXT: {{^}} amax_rowwise f32 [256] 1024 B{{$}}
// CHECK-NEXT: {{^}} amax_columnwise f32 [1] 4 B{{$}}
// CHECK-NOT: {{^ }}

// CHECK-LABEL: !teq.proto<5x4x3x160xf32, #teq.nvfp4_quantizer<f4E2M1FN, row_scaled_nvfp4 = true>, rowwise>
// CHECK-SAME: on [[$CHIP]]: 3 buffers, 6576 bytes{{$}}
// CHECK-NEXT: {{^}} rowwise_data e2m1x2 [5, 4, 3, 80] 4800 B{{$}}
// CHECK-NEXT: {{^}} rowwise_scale_inv e4m3 [128, 12] valid [60, 10] compact 1536 B{{$}}
// CHECK-NEXT: {{^}} amax_rowwise f32 [60] 240 B{{$}}
// CHECK-NOT: {{^ }}

// CHECK-LABEL: !teq.proto<5x4x3x160xf32, #teq.nvfp4_quantizer<f4E2M1FN, row_scaled_nvfp4 = true>, columnwise>
// CHECK-SAME: on [[$CHIP]]: 3 buffers, 5828 bytes{{$}}
// CHECK-NEXT: {{^}} columnwise_data e2m1x2 [160, 30] transposed 4800 B{{$}}
// CHECK-NEXT: {{^}} columnwise_scale_inv e4m3 [256, 4] valid [160, 4] compact 1024 B{{$}}
// CHECK-NEXT: {{^}} amax_columnwise f32 [1] 4 B{{$}}
// CHECK-NOT: {{^ }}

// CHECK-LABEL: !teq.proto<5x4x3x160xf32, #teq.nvfp4_quantizer<f4E2M1FN, row_scaled_nvfp4 = true>, rowwise|columnwise>
// CHECK-SAME: on [[$CHIP]]: 6 buffers, 12404 bytes{{$}}
// CHECK-NEXT: {{^}} rowwise_data e2m1x2 [5, 4, 3, 80] 4800 B{{$}}
// CHECK-NEXT: {{^}} rowwise_scale_inv e4m3 [128, 12] valid [60, 10] compact 1536 B{{$}}
// CHECK-NEXT: {{^}} columnwise_data e2m1x2 [160, 30] transposed 4800 B{{$}}
// CHECK-NEXT: {{^}} columnwise_scale_inv e4m3 [256, 4] valid [160, 4] compact 1024 B{{$}}
// CHECK-NEXT: {{^}} amax_rowwise f32 [60] 240 B{{$}}
// CHECK-NEXT: {{^}} amax_columnwise f32 [1] 4 B{{$}}
// CHECK-NOT: {{^ }}
