// Buffers of MXFP8 tensors (MXFP8Tensor, te-semantics.md §4.2), compact and
// GEMM-swizzled scales. Columnwise data is NOT transposed. E8M0 scales:
//   rowwise [roundup(M,128), roundup(K/32,4)], columnwise [roundup(M/32,4), roundup(K,128)]
// (ragged M or K, which TE itself rejects, round up: K/32 -> ceil(K/32)).
// Swizzling changes only the byte order, not the shape.
// The layout does not depend on the target: the same CHECK lines run on
// sm_90 (the module's #teq.target) and on sm_100 (the pass option).
// Expected values are computed by hand from the spec, not from the C++.

// RUN: te-opt %s --teq-print-buffer-layouts -o /dev/null | FileCheck %s '-D$CHIP=sm_90'
// RUN: te-opt %s --teq-print-buffer-layouts=target=sm_100 -o /dev/null | FileCheck %s '-D$CHIP=sm_100'

module attributes {teq.target = #teq.target<sm_90>} {
  func.func @mxfp8_303x300(
      %row: !teq.proto<303x300xbf16, #teq.mxfp8_quantizer<f8E4M3FN>, rowwise>,
      %col: !teq.proto<303x300xbf16, #teq.mxfp8_quantizer<f8E4M3FN>, columnwise>,
      %both: !teq.proto<303x300xbf16, #teq.mxfp8_quantizer<f8E4M3FN>, rowwise|columnwise>) {
    return
  }
  func.func @mxfp8_1x16(
      %row: !teq.proto<1x16xbf16, #teq.mxfp8_quantizer<f8E4M3FN>, rowwise>,
      %col: !teq.proto<1x16xbf16, #teq.mxfp8_quantizer<f8E4M3FN>, columnwise>,
      %both: !teq.proto<1x16xbf16, #teq.mxfp8_quantizer<f8E4M3FN>, rowwise|columnwise>) {
    return
  }
  func.func @mxfp8_2333x1(
      %row: !teq.proto<2333x1xf16, #teq.mxfp8_quantizer<f8E4M3FN>, rowwise>,
      %col: !teq.proto<2333x1xf16, #teq.mxfp8_quantizer<f8E4M3FN>, columnwise>,
      %both: !teq.proto<2333x1xf16, #teq.mxfp8_quantizer<f8E4M3FN>, rowwise|columnwise>) {
    return
  }
  func.func @mxfp8_993x512(
      %row: !teq.proto<993x512xbf16, #teq.mxfp8_quantizer<f8E4M3FN>, rowwise>,
      %col: !teq.proto<993x512xbf16, #teq.mxfp8_quantizer<f8E4M3FN>, columnwise>,
      %both: !teq.proto<993x512xbf16, #teq.mxfp8_quantizer<f8E4M3FN>, rowwise|columnwise>) {
    return
  }
  func.func @mxfp8_300x256(
      %row: !teq.proto<300x256xbf16, #teq.mxfp8_quantizer<f8E4M3FN>, rowwise>,
      %col: !teq.proto<300x256xbf16, #teq.mxfp8_quantizer<f8E4M3FN>, columnwise>,
      %both: !teq.proto<300x256xbf16, #teq.mxfp8_quantizer<f8E4M3FN>, rowwise|columnwise>) {
    return
  }
  func.func @mxfp8_128x256(
      %row: !teq.proto<128x256xbf16, #teq.mxfp8_quantizer<f8E4M3FN>, rowwise>,
      %col: !teq.proto<128x256xbf16, #teq.mxfp8_quantizer<f8E4M3FN>, columnwise>,
      %both: !teq.proto<128x256xbf16, #teq.mxfp8_quantizer<f8E4M3FN>, rowwise|columnwise>) {
    return
  }
  func.func @mxfp8_256x272(
      %row: !teq.proto<256x272xbf16, #teq.mxfp8_quantizer<f8E4M3FN>, rowwise>,
      %col: !teq.proto<256x272xbf16, #teq.mxfp8_quantizer<f8E4M3FN>, columnwise>,
      %both: !teq.proto<256x272xbf16, #teq.mxfp8_quantizer<f8E4M3FN>, rowwise|columnwise>) {
    return
  }
  func.func @mxfp8_5x4x3x160(
      %row: !teq.proto<5x4x3x160xf32, #teq.mxfp8_quantizer<f8E4M3FN>, rowwise>,
      %col: !teq.proto<5x4x3x160xf32, #teq.mxfp8_quantizer<f8E4M3FN>, columnwise>,
      %both: !teq.proto<5x4x3x160xf32, #teq.mxfp8_quantizer<f8E4M3FN>, rowwise|columnwise>) {
    return
  }
  func.func @mxfp8_swizzled_303x300(
      %row: !teq.proto<303x300xbf16, #teq.mxfp8_quantizer<f8E4M3FN>, rowwise, gemm_swizzled>,
      %col: !teq.proto<303x300xbf16, #teq.mxfp8_quantizer<f8E4M3FN>, columnwise, gemm_swizzled>,
      %both: !teq.proto<303x300xbf16, #teq.mxfp8_quantizer<f8E4M3FN>, rowwise|columnwise, gemm_swizzled>) {
    return
  }
  func.func @mxfp8_swizzled_1x16(
      %row: !teq.proto<1x16xbf16, #teq.mxfp8_quantizer<f8E4M3FN>, rowwise, gemm_swizzled>,
      %col: !teq.proto<1x16xbf16, #teq.mxfp8_quantizer<f8E4M3FN>, columnwise, gemm_swizzled>,
      %both: !teq.proto<1x16xbf16, #teq.mxfp8_quantizer<f8E4M3FN>, rowwise|columnwise, gemm_swizzled>) {
    return
  }
  func.func @mxfp8_swizzled_2333x1(
      %row: !teq.proto<2333x1xf16, #teq.mxfp8_quantizer<f8E4M3FN>, rowwise, gemm_swizzled>,
      %col: !teq.proto<2333x1xf16, #teq.mxfp8_quantizer<f8E4M3FN>, columnwise, gemm_swizzled>,
      %both: !teq.proto<2333x1xf16, #teq.mxfp8_quantizer<f8E4M3FN>, rowwise|columnwise, gemm_swizzled>) {
    return
  }
  func.func @mxfp8_swizzled_993x512(
      %row: !teq.proto<993x512xbf16, #teq.mxfp8_quantizer<f8E4M3FN>, rowwise, gemm_swizzled>,
      %col: !teq.proto<993x512xbf16, #teq.mxfp8_quantizer<f8E4M3FN>, columnwise, gemm_swizzled>,
      %both: !teq.proto<993x512xbf16, #teq.mxfp8_quantizer<f8E4M3FN>, rowwise|columnwise, gemm_swizzled>) {
    return
  }
  func.func @mxfp8_swizzled_300x256(
      %row: !teq.proto<300x256xbf16, #teq.mxfp8_quantizer<f8E4M3FN>, rowwise, gemm_swizzled>,
      %col: !teq.proto<300x256xbf16, #teq.mxfp8_quantizer<f8E4M3FN>, columnwise, gemm_swizzled>,
      %both: !teq.proto<300x256xbf16, #teq.mxfp8_quantizer<f8E4M3FN>, rowwise|columnwise, gemm_swizzled>) {
    return
  }
  func.func @mxfp8_swizzled_128x256(
      %row: !teq.proto<128x256xbf16, #teq.mxfp8_quantizer<f8E4M3FN>, rowwise, gemm_swizzled>,
      %col: !teq.proto<128x256xbf16, #teq.mxfp8_quantizer<f8E4M3FN>, columnwise, gemm_swizzled>,
      %both: !teq.proto<128x256xbf16, #teq.mxfp8_quantizer<f8E4M3FN>, rowwise|columnwise, gemm_swizzled>) {
    return
  }
  func.func @mxfp8_swizzled_256x272(
      %row: !teq.proto<256x272xbf16, #teq.mxfp8_quantizer<f8E4M3FN>, rowwise, gemm_swizzled>,
      %col: !teq.proto<256x272xbf16, #teq.mxfp8_quantizer<f8E4M3FN>, columnwise, gemm_swizzled>,
      %both: !teq.proto<256x272xbf16, #teq.mxfp8_quantizer<f8E4M3FN>, rowwise|columnwise, gemm_swizzled>) {
    return
  }
  func.func @mxfp8_swizzled_5x4x3x160(
      %row: !teq.proto<5x4x3x160xf32, #teq.mxfp8_quantizer<f8E4M3FN>, rowwise, gemm_swizzled>,
      %col: !teq.proto<5x4x3x160xf32, #teq.mxfp8_quantizer<f8E4M3FN>, columnwise, gemm_swizzled>,
      %both: !teq.proto<5x4x3x160xf32, #teq.mxfp8_quantizer<f8E4M3FN>, rowwise|columnwise, gemm_swizzled>) {
    return
  }
}

// CHECK-LABEL: !teq.proto<303x300xbf16, #teq.mxfp8_quantizer<f8E4M3FN>, rowwise>
// CHECK-SAME: on [[$CHIP]]: 2 buffers, 95508 bytes{{$}}
// CHECK-NEXT: {{^}} rowwise_data e4m3 [303, 300] 90900 B{{$}}
// CHECK-NEXT: {{^}} rowwise_scale_inv e8m0 [384, 12] valid [303, 10] compact 4608 B{{$}}
// CHECK-NOT: {{^ }}

// CHECK-LABEL: !teq.proto<303x300xbf16, #teq.mxfp8_quantizer<f8E4M3FN>, columnwise>
// CHECK-SAME: on [[$CHIP]]: 2 buffers, 95508 bytes{{$}}
// CHECK-NEXT: {{^}} columnwise_data e4m3 [303, 300] 90900 B{{$}}
// CHECK-NEXT: {{^}} columnwise_scale_inv e8m0 [12, 384] valid [10, 300] compact 4608 B{{$}}
// CHECK-NOT: {{^ }}

// CHECK-LABEL: !teq.proto<303x300xbf16, #teq.mxfp8_quantizer<f8E4M3FN>, rowwise|columnwise>
// CHECK-SAME: on [[$CHIP]]: 4 buffers, 191016 bytes{{$}}
// CHECK-NEXT: {{^}} rowwise_data e4m3 [303, 300] 90900 B{{$}}
// CHECK-NEXT: {{^}} rowwise_scale_inv e8m0 [384, 12] valid [303, 10] compact 4608 B{{$}}
// CHECK-NEXT: {{^}} columnwise_data e4m3 [303, 300] 90900 B{{$}}
// CHECK-NEXT: {{^}} columnwise_scale_inv e8m0 [12, 384] valid [10, 300] compact 4608 B{{$}}
// CHECK-NOT: {{^ }}

// CHECK-LABEL: !teq.proto<1x16xbf16, #teq.mxfp8_quantizer<f8E4M3FN>, rowwise>
// CHECK-SAME: on [[$CHIP]]: 2 buffers, 528 bytes{{$}}
// CHECK-NEXT: {{^}} rowwise_data e4m3 [1, 16] 16 B{{$}}
// CHECK-NEXT: {{^}} rowwise_scale_inv e8m0 [128, 4] valid [1, 1] compact 512 B{{$}}
// CHECK-NOT: {{^ }}

// CHECK-LABEL: !teq.proto<1x16xbf16, #teq.mxfp8_quantizer<f8E4M3FN>, columnwise>
// CHECK-SAME: on [[$CHIP]]: 2 buffers, 528 bytes{{$}}
// CHECK-NEXT: {{^}} columnwise_data e4m3 [1, 16] 16 B{{$}}
// CHECK-NEXT: {{^}} columnwise_scale_inv e8m0 [4, 128] valid [1, 16] compact 512 B{{$}}
// CHECK-NOT: {{^ }}

// CHECK-LABEL: !teq.proto<1x16xbf16, #teq.mxfp8_quantizer<f8E4M3FN>, rowwise|columnwise>
// CHECK-SAME: on [[$CHIP]]: 4 buffers, 1056 bytes{{$}}
// CHECK-NEXT: {{^}} rowwise_data e4m3 [1, 16] 16 B{{$}}
// CHECK-NEXT: {{^}} rowwise_scale_inv e8m0 [128, 4] valid [1, 1] compact 512 B{{$}}
// CHECK-NEXT: {{^}} columnwise_data e4m3 [1, 16] 16 B{{$}}
// CHECK-NEXT: {{^}} columnwise_scale_inv e8m0 [4, 128] valid [1, 16] compact 512 B{{$}}
// CHECK-NOT: {{^ }}

// CHECK-LABEL: !teq.proto<2333x1xf16, #teq.mxfp8_quantizer<f8E4M3FN>, rowwise>
// CHECK-SAME: on [[$CHIP]]: 2 buffers, 12061 bytes{{$}}
// CHECK-NEXT: {{^}} rowwise_data e4m3 [2333, 1] 2333 B{{$}}
// CHECK-NEXT: {{^}} rowwise_scale_inv e8m0 [2432, 4] valid [2333, 1] compact 9728 B{{$}}
// CHECK-NOT: {{^ }}

// CHECK-LABEL: !teq.proto<2333x1xf16, #teq.mxfp8_quantizer<f8E4M3FN>, columnwise>
// CHECK-SAME: on [[$CHIP]]: 2 buffers, 12061 bytes{{$}}
// CHECK-NEXT: {{^}} columnwise_data e4m3 [2333, 1] 2333 B{{$}}
// CHECK-NEXT: {{^}} columnwise_scale_inv e8m0 [76, 128] valid [73, 1] compact 9728 B{{$}}
// CHECK-NOT: {{^ }}

// CHECK-LABEL: !teq.proto<2333x1xf16, #teq.mxfp8_quantizer<f8E4M3FN>, rowwise|columnwise>
// CHECK-SAME: on [[$CHIP]]: 4 buffers, 24122 bytes{{$}}
// CHECK-NEXT: {{^}} rowwise_data e4m3 [2333, 1] 2333 B{{$}}
// CHECK-NEXT: {{^}} rowwise_scale_inv e8m0 [2432, 4] valid [2333, 1] compact 9728 B{{$}}
// CHECK-NEXT: {{^}} columnwise_data e4m3 [2333, 1] 2333 B{{$}}
// CHECK-NEXT: {{^}} columnwise_scale_inv e8m0 [76, 128] valid [73, 1] compact 9728 B{{$}}
// CHECK-NOT: {{^ }}

// CHECK-LABEL: !teq.proto<993x512xbf16, #teq.mxfp8_quantizer<f8E4M3FN>, rowwise>
// CHECK-SAME: on [[$CHIP]]: 2 buffers, 524800 bytes{{$}}
// CHECK-NEXT: {{^}} rowwise_data e4m3 [993, 512] 508416 B{{$}}
// CHECK-NEXT: {{^}} rowwise_scale_inv e8m0 [1024, 16] valid [993, 16] compact 16384 B{{$}}
// CHECK-NOT: {{^ }}

// CHECK-LABEL: !teq.proto<993x512xbf16, #teq.mxfp8_quantizer<f8E4M3FN>, columnwise>
// CHECK-SAME: on [[$CHIP]]: 2 buffers, 524800 bytes{{$}}
// CHECK-NEXT: {{^}} columnwise_data e4m3 [993, 512] 508416 B{{$}}
// CHECK-NEXT: {{^}} columnwise_scale_inv e8m0 [32, 512] compact 16384 B{{$}}
// CHECK-NOT: {{^ }}

// CHECK-LABEL: !teq.proto<993x512xbf16, #teq.mxfp8_quantizer<f8E4M3FN>, rowwise|columnwise>
// CHECK-SAME: on [[$CHIP]]: 4 buffers, 1049600 bytes{{$}}
// CHECK-NEXT: {{^}} rowwise_data e4m3 [993, 512] 508416 B{{$}}
// CHECK-NEXT: {{^}} rowwise_scale_inv e8m0 [1024, 16] valid [993, 16] compact 16384 B{{$}}
// CHECK-NEXT: {{^}} columnwise_data e4m3 [993, 512] 508416 B{{$}}
// CHECK-NEXT: {{^}} columnwise_scale_inv e8m0 [32, 512] compact 16384 B{{$}}
// CHECK-NOT: {{^ }}

// CHECK-LABEL: !teq.proto<300x256xbf16, #teq.mxfp8_quantizer<f8E4M3FN>, rowwise>
// CHECK-SAME: on [[$CHIP]]: 2 buffers, 79872 bytes{{$}}
// CHECK-NEXT: {{^}} rowwise_data e4m3 [300, 256] 76800 B{{$}}
// CHECK-NEXT: {{^}} rowwise_scale_inv e8m0 [384, 8] valid [300, 8] compact 3072 B{{$}}
// CHECK-NOT: {{^ }}

// CHECK-LABEL: !teq.proto<300x256xbf16, #teq.mxfp8_quantizer<f8E4M3FN>, columnwise>
// CHECK-SAME: on [[$CHIP]]: 2 buffers, 79872 bytes{{$}}
// CHECK-NEXT: {{^}} columnwise_data e4m3 [300, 256] 76800 B{{$}}
// CHECK-NEXT: {{^}} columnwise_scale_inv e8m0 [12, 256] valid [10, 256] compact 3072 B{{$}}
// CHECK-NOT: {{^ }}

// CHECK-LABEL: !teq.proto<300x256xbf16, #teq.mxfp8_quantizer<f8E4M3FN>, rowwise|columnwise>
// CHECK-SAME: on [[$CHIP]]: 4 buffers, 159744 bytes{{$}}
// CHECK-NEXT: {{^}} rowwise_data e4m3 [300, 256] 76800 B{{$}}
// CHECK-NEXT: {{^}} rowwise_scale_inv e8m0 [384, 8] valid [300, 8] compact 3072 B{{$}}
// CHECK-NEXT: {{^}} columnwise_data e4m3 [300, 256] 76800 B{{$}}
// CHECK-NEXT: {{^}} columnwise_scale_inv e8m0 [12, 256] valid [10, 256] compact 3072 B{{$}}
// CHECK-NOT: {{^ }}

// CHECK-LABEL: !teq.proto<128x256xbf16, #teq.mxfp8_quantizer<f8E4M3FN>, rowwise>
// CHECK-SAME: on [[$CHIP]]: 2 buffers, 33792 bytes{{$}}
// CHECK-NEXT: {{^}} rowwise_data e4m3 [128, 256] 32768 B{{$}}
// CHECK-NEXT: {{^}} rowwise_scale_inv e8m0 [128, 8] compact 1024 B{{$}}
// CHECK-NOT: {{^ }}

// CHECK-LABEL: !teq.proto<128x256xbf16, #teq.mxfp8_quantizer<f8E4M3FN>, columnwise>
// CHECK-SAME: on [[$CHIP]]: 2 buffers, 33792 bytes{{$}}
// CHECK-NEXT: {{^}} columnwise_data e4m3 [128, 256] 32768 B{{$}}
// CHECK-NEXT: {{^}} columnwise_scale_inv e8m0 [4, 256] compact 1024 B{{$}}
// CHECK-NOT: {{^ }}

// CHECK-LABEL: !teq.proto<128x256xbf16, #teq.mxfp8_quantizer<f8E4M3FN>, rowwise|columnwise>
// CHECK-SAME: on [[$CHIP]]: 4 buffers, 67584 bytes{{$}}
// CHECK-NEXT: {{^}} rowwise_data e4m3 [128, 256] 32768 B{{$}}
// CHECK-NEXT: {{^}} rowwise_scale_inv e8m0 [128, 8] compact 1024 B{{$}}
// CHECK-NEXT: {{^}} columnwise_data e4m3 [128, 256] 32768 B{{$}}
// CHECK-NEXT: {{^}} columnwise_scale_inv e8m0 [4, 256] compact 1024 B{{$}}
// CHECK-NOT: {{^ }}

// CHECK-LABEL: !teq.proto<256x272xbf16, #teq.mxfp8_quantizer<f8E4M3FN>, rowwise>
// CHECK-SAME: on [[$CHIP]]: 2 buffers, 72704 bytes{{$}}
// CHECK-NEXT: {{^}} rowwise_data e4m3 [256, 272] 69632 B{{$}}
// CHECK-NEXT: {{^}} rowwise_scale_inv e8m0 [256, 12] valid [256, 9] compact 3072 B{{$}}
// CHECK-NOT: {{^ }}

// CHECK-LABEL: !teq.proto<256x272xbf16, #teq.mxfp8_quantizer<f8E4M3FN>, columnwise>
// CHECK-SAME: on [[$CHIP]]: 2 buffers, 72704 bytes{{$}}
// CHECK-NEXT: {{^}} columnwise_data e4m3 [256, 272] 69632 B{{$}}
// CHECK-NEXT: {{^}} columnwise_scale_inv e8m0 [8, 384] valid [8, 272] compact 3072 B{{$}}
// CHECK-NOT: {{^ }}

// CHECK-LABEL: !teq.proto<256x272xbf16, #teq.mxfp8_quantizer<f8E4M3FN>, rowwise|columnwise>
// CHECK-SAME: on [[$CHIP]]: 4 buffers, 145408 bytes{{$}}
// CHECK-NEXT: {{^}} rowwise_data e4m3 [256, 272] 69632 B{{$}}
// CHECK-NEXT: {{^}} rowwise_scale_inv e8m0 [256, 12] valid [256, 9] compact 3072 B{{$}}
// CHECK-NEXT: {{^}} columnwise_data e4m3 [256, 272] 69632 B{{$}}
// CHECK-NEXT: {{^}} columnwise_scale_inv e8m0 [8, 384] valid [8, 272] compact 3072 B{{$}}
// CHECK-NOT: {{^ }}

// CHECK-LABEL: !teq.proto<5x4x3x160xf32, #teq.mxfp8_quantizer<f8E4M3FN>, rowwise>
// CHECK-SAME: on [[$CHIP]]: 2 buffers, 10624 bytes{{$}}
// CHECK-NEXT: {{^}} rowwise_data e4m3 [5, 4, 3, 160] 9600 B{{$}}
// CHECK-NEXT: {{^}} rowwise_scale_inv e8m0 [128, 8] valid [60, 5] compact 1024 B{{$}}
// CHECK-NOT: {{^ }}

// CHECK-LABEL: !teq.proto<5x4x3x160xf32, #teq.mxfp8_quantizer<f8E4M3FN>, columnwise>
// CHECK-SAME: on [[$CHIP]]: 2 buffers, 10624 bytes{{$}}
// CHECK-NEXT: {{^}} columnwise_data e4m3 [5, 4, 3, 160] 9600 B{{$}}
// CHECK-NEXT: {{^}} columnwise_scale_inv e8m0 [4, 256] valid [2, 160] compact 1024 B{{$}}
// CHECK-NOT: {{^ }}

// CHECK-LABEL: !teq.proto<5x4x3x160xf32, #teq.mxfp8_quantizer<f8E4M3FN>, rowwise|columnwise>
// CHECK-SAME: on [[$CHIP]]: 4 buffers, 21248 bytes{{$}}
// CHECK-NEXT: {{^}} rowwise_data e4m3 [5, 4, 3, 160] 9600 B{{$}}
// CHECK-NEXT: {{^}} rowwise_scale_inv e8m0 [128, 8] valid [60, 5] compact 1024 B{{$}}
// CHECK-NEXT: {{^}} columnwise_data e4m3 [5, 4, 3, 160] 9600 B{{$}}
// CHECK-NEXT: {{^}} columnwise_scale_inv e8m0 [4, 256] valid [2, 160] compact 1024 B{{$}}
// CHECK-NOT: {{^ }}

// CHECK-LABEL: !teq.proto<303x300xbf16, #teq.mxfp8_quantizer<f8E4M3FN>, rowwise, gemm_swizzled>
// CHECK-SAME: on [[$CHIP]]: 2 buffers, 95508 bytes{{$}}
// CHECK-NEXT: {{^}} rowwise_data e4m3 [303, 300] 90900 B{{$}}
// CHECK-NEXT: {{^}} rowwise_scale_inv e8m0 [384, 12] valid [303, 10] gemm_swizzled 4608 B{{$}}
// CHECK-NOT: {{^ }}

// CHECK-LABEL: !teq.proto<303x300xbf16, #teq.mxfp8_quantizer<f8E4M3FN>, columnwise, gemm_swizzled>
// CHECK-SAME: on [[$CHIP]]: 2 buffers, 95508 bytes{{$}}
// CHECK-NEXT: {{^}} columnwise_data e4m3 [303, 300] 90900 B{{$}}
// CHECK-NEXT: {{^}} columnwise_scale_inv e8m0 [12, 384] valid [10, 300] gemm_swizzled 4608 B{{$}}
// CHECK-NOT: {{^ }}

// CHECK-LABEL: !teq.proto<303x300xbf16, #teq.mxfp8_quantizer<f8E4M3FN>, rowwise|columnwise, gemm_swizzled>
// CHECK-SAME: on [[$CHIP]]: 4 buffers, 191016 bytes{{$}}
// CHECK-NEXT: {{^}} rowwise_data e4m3 [303, 300] 90900 B{{$}}
// CHECK-NEXT: {{^}} rowwise_scale_inv e8m0 [384, 12] valid [303, 10] gemm_swizzled 4608 B{{$}}
// CHECK-NEXT: {{^}} columnwise_data e4m3 [303, 300] 90900 B{{$}}
// CHECK-NEXT: {{^}} columnwise_scale_inv e8m0 [12, 384] valid [10, 300] gemm_swizzled 4608 B{{$}}
// CHECK-NOT: {{^ }}

// CHECK-LABEL: !teq.proto<1x16xbf16, #teq.mxfp8_quantizer<f8E4M3FN>, rowwise, gemm_swizzled>
// CHECK-SAME: on [[$CHIP]]: 2 buffers, 528 bytes{{$}}
// CHECK-NEXT: {{^}} rowwise_data e4m3 [1, 16] 16 B{{$}}
// CHECK-NEXT: {{^}} rowwise_scale_inv e8m0 [128, 4] valid [1, 1] gemm_swizzled 512 B{{$}}
// CHECK-NOT: {{^ }}

// CHECK-LABEL: !teq.proto<1x16xbf16, #teq.mxfp8_quantizer<f8E4M3FN>, columnwise, gemm_swizzled>
// CHECK-SAME: on [[$CHIP]]: 2 buffers, 528 bytes{{$}}
// CHECK-NEXT: {{^}} columnwise_data e4m3 [1, 16] 16 B{{$}}
// CHECK-NEXT: {{^}} columnwise_scale_inv e8m0 [4, 128] valid [1, 16] gemm_swizzled 512 B{{$}}
// CHECK-NOT: {{^ }}

// CHECK-LABEL: !teq.proto<1x16xbf16, #teq.mxfp8_quantizer<f8E4M3FN>, rowwise|columnwise, gemm_swizzled>
// CHECK-SAME: on [[$CHIP]]: 4 buffers, 1056 bytes{{$}}
// CHECK-NEXT: {{^}} rowwise_data e4m3 [1, 16] 16 B{{$}}
// CHECK-NEXT: {{^}} rowwise_scale_inv e8m0 [128, 4] valid [1, 1] gemm_swizzled 512 B{{$}}
// CHECK-NEXT: {{^}} columnwise_data e4m3 [1, 16] 16 B{{$}}
// CHECK-NEXT: {{^}} columnwise_scale_inv e8m0 [4, 128] valid [1, 16] gemm_swizzled 512 B{{$}}
// CHECK-NOT: {{^ }}

// CHECK-LABEL: !teq.proto<2333x1xf16, #teq.mxfp8_quantizer<f8E4M3FN>, rowwise, gemm_swizzled>
// CHECK-SAME: on [[$CHIP]]: 2 buffers, 12061 bytes{{$}}
// CHECK-NEXT: {{^}} rowwise_data e4m3 [2333, 1] 2333 B{{$}}
// CHECK-NEXT: {{^}} rowwise_scale_inv e8m0 [2432, 4] valid [2333, 1] gemm_swizzled 9728 B{{$}}
// CHECK-NOT: {{^ }}

// CHECK-LABEL: !teq.proto<2333x1xf16, #teq.mxfp8_quantizer<f8E4M3FN>, columnwise, gemm_swizzled>
// CHECK-SAME: on [[$CHIP]]: 2 buffers, 12061 bytes{{$}}
// CHECK-NEXT: {{^}} columnwise_data e4m3 [2333, 1] 2333 B{{$}}
// CHECK-NEXT: {{^}} columnwise_scale_inv e8m0 [76, 128] valid [73, 1] gemm_swizzled 9728 B{{$}}
// CHECK-NOT: {{^ }}

// CHECK-LABEL: !teq.proto<2333x1xf16, #teq.mxfp8_quantizer<f8E4M3FN>, rowwise|columnwise, gemm_swizzled>
// CHECK-SAME: on [[$CHIP]]: 4 buffers, 24122 bytes{{$}}
// CHECK-NEXT: {{^}} rowwise_data e4m3 [2333, 1] 2333 B{{$}}
// CHECK-NEXT: {{^}} rowwise_scale_inv e8m0 [2432, 4] valid [2333, 1] gemm_swizzled 9728 B{{$}}
// CHECK-NEXT: {{^}} columnwise_data e4m3 [2333, 1] 2333 B{{$}}
// CHECK-NEXT: {{^}} columnwise_scale_inv e8m0 [76, 128] valid [73, 1] gemm_swizzled 9728 B{{$}}
// CHECK-NOT: {{^ }}

// CHECK-LABEL: !teq.proto<993x512xbf16, #teq.mxfp8_quantizer<f8E4M3FN>, rowwise, gemm_swizzled>
// CHECK-SAME: on [[$CHIP]]: 2 buffers, 524800 bytes{{$}}
// CHECK-NEXT: {{^}} rowwise_data e4m3 [993, 512] 508416 B{{$}}
// CHECK-NEXT: {{^}} rowwise_scale_inv e8m0 [1024, 16] valid [993, 16] gemm_swizzled 16384 B{{$}}
// CHECK-NOT: {{^ }}

// CHECK-LABEL: !teq.proto<993x512xbf16, #teq.mxfp8_quantizer<f8E4M3FN>, columnwise, gemm_swizzled>
// CHECK-SAME: on [[$CHIP]]: 2 buffers, 524800 bytes{{$}}
// CHECK-NEXT: {{^}} columnwise_data e4m3 [993, 512] 508416 B{{$}}
// CHECK-NEXT: {{^}} columnwise_scale_inv e8m0 [32, 512] gemm_swizzled 16384 B{{$}}
// CHECK-NOT: {{^ }}

// CHECK-LABEL: !teq.proto<993x512xbf16, #teq.mxfp8_quantizer<f8E4M3FN>, rowwise|columnwise, gemm_swizzled>
// CHECK-SAME: on [[$CHIP]]: 4 buffers, 1049600 bytes{{$}}
// CHECK-NEXT: {{^}} rowwise_data e4m3 [993, 512] 508416 B{{$}}
// CHECK-NEXT: {{^}} rowwise_scale_inv e8m0 [1024, 16] valid [993, 16] gemm_swizzled 16384 B{{$}}
// CHECK-NEXT: {{^}} columnwise_data e4m3 [993, 512] 508416 B{{$}}
// CHECK-NEXT: {{^}} columnwise_scale_inv e8m0 [32, 512] gemm_swizzled 16384 B{{$}}
// CHECK-NOT: {{^ }}

// CHECK-LABEL: !teq.proto<300x256xbf16, #teq.mxfp8_quantizer<f8E4M3FN>, rowwise, gemm_swizzled>
// CHECK-SAME: on [[$CHIP]]: 2 buffers, 79872 bytes{{$}}
// CHECK-NEXT: {{^}} rowwise_data e4m3 [300, 256] 76800 B{{$}}
// CHECK-NEXT: {{^}} rowwise_scale_inv e8m0 [384, 8] valid [300, 8] gemm_swizzled 3072 B{{$}}
// CHECK-NOT: {{^ }}

// CHECK-LABEL: !teq.proto<300x256xbf16, #teq.mxfp8_quantizer<f8E4M3FN>, columnwise, gemm_swizzled>
// CHECK-SAME: on [[$CHIP]]: 2 buffers, 79872 bytes{{$}}
// CHECK-NEXT: {{^}} columnwise_data e4m3 [300, 256] 76800 B{{$}}
// CHECK-NEXT: {{^}} columnwise_scale_inv e8m0 [12, 256] valid [10, 256] gemm_swizzled 3072 B{{$}}
// CHECK-NOT: {{^ }}

// CHECK-LABEL: !teq.proto<300x256xbf16, #teq.mxfp8_quantizer<f8E4M3FN>, rowwise|columnwise, gemm_swizzled>
// CHECK-SAME: on [[$CHIP]]: 4 buffers, 159744 bytes{{$}}
// CHECK-NEXT: {{^}} rowwise_data e4m3 [300, 256] 76800 B{{$}}
// CHECK-NEXT: {{^}} rowwise_scale_inv e8m0 [384, 8] valid [300, 8] gemm_swizzled 3072 B{{$}}
// CHECK-NEXT: {{^}} columnwise_data e4m3 [300, 256] 76800 B{{$}}
// CHECK-NEXT: {{^}} columnwise_scale_inv e8m0 [12, 256] valid [10, 256] gemm_swizzled 3072 B{{$}}
// CHECK-NOT: {{^ }}

// CHECK-LABEL: !teq.proto<128x256xbf16, #teq.mxfp8_quantizer<f8E4M3FN>, rowwise, gemm_swizzled>
// CHECK-SAME: on [[$CHIP]]: 2 buffers, 33792 bytes{{$}}
// CHECK-NEXT: {{^}} rowwise_data e4m3 [128, 256] 32768 B{{$}}
// CHECK-NEXT: {{^}} rowwise_scale_inv e8m0 [128, 8] gemm_swizzled 1024 B{{$}}
// CHECK-NOT: {{^ }}

// CHECK-LABEL: !teq.proto<128x256xbf16, #teq.mxfp8_quantizer<f8E4M3FN>, columnwise, gemm_swizzled>
// CHECK-SAME: on [[$CHIP]]: 2 buffers, 33792 bytes{{$}}
// CHECK-NEXT: {{^}} columnwise_data e4m3 [128, 256] 32768 B{{$}}
// CHECK-NEXT: {{^}} columnwise_scale_inv e8m0 [4, 256] gemm_swizzled 1024 B{{$}}
// CHECK-NOT: {{^ }}

// CHECK-LABEL: !teq.proto<128x256xbf16, #teq.mxfp8_quantizer<f8E4M3FN>, rowwise|columnwise, gemm_swizzled>
// CHECK-SAME: on [[$CHIP]]: 4 buffers, 67584 bytes{{$}}
// CHECK-NEXT: {{^}} rowwise_data e4m3 [128, 256] 32768 B{{$}}
// CHECK-NEXT: {{^}} rowwise_scale_inv e8m0 [128, 8] gemm_swizzled 1024 B{{$}}
// CHECK-NEXT: {{^}} columnwise_data e4m3 [128, 256] 32768 B{{$}}
// CHECK-NEXT: {{^}} columnwise_scale_inv e8m0 [4, 256] gemm_swizzled 1024 B{{$}}
// CHECK-NOT: {{^ }}

// CHECK-LABEL: !teq.proto<256x272xbf16, #teq.mxfp8_quantizer<f8E4M3FN>, rowwise, gemm_swizzled>
// CHECK-SAME: on [[$CHIP]]: 2 buffers, 72704 bytes{{$}}
// CHECK-NEXT: {{^}} rowwise_data e4m3 [256, 272] 69632 B{{$}}
// CHECK-NEXT: {{^}} rowwise_scale_inv e8m0 [256, 12] valid [256, 9] gemm_swizzled 3072 B{{$}}
// CHECK-NOT: {{^ }}

// CHECK-LABEL: !teq.proto<256x272xbf16, #teq.mxfp8_quantizer<f8E4M3FN>, columnwise, gemm_swizzled>
// CHECK-SAME: on [[$CHIP]]: 2 buffers, 72704 bytes{{$}}
// CHECK-NEXT: {{^}} columnwise_data e4m3 [256, 272] 69632 B{{$}}
// CHECK-NEXT: {{^}} columnwise_scale_inv e8m0 [8, 384] valid [8, 272] gemm_swizzled 3072 B{{$}}
// CHECK-NOT: {{^ }}

// CHECK-LABEL: !teq.proto<256x272xbf16, #teq.mxfp8_quantizer<f8E4M3FN>, rowwise|columnwise, gemm_swizzled>
// CHECK-SAME: on [[$CHIP]]: 4 buffers, 145408 bytes{{$}}
// CHECK-NEXT: {{^}} rowwise_data e4m3 [256, 272] 69632 B{{$}}
// CHECK-NEXT: {{^}} rowwise_scale_inv e8m0 [256, 12] valid [256, 9] gemm_swizzled 3072 B{{$}}
// CHECK-NEXT: {{^}} columnwise_data e4m3 [256, 272] 69632 B{{$}}
// CHECK-NEXT: {{^}} columnwise_scale_inv e8m0 [8, 384] valid [8, 272] gemm_swizzled 3072 B{{$}}
// CHECK-NOT: {{^ }}

// CHECK-LABEL: !teq.proto<5x4x3x160xf32, #teq.mxfp8_quantizer<f8E4M3FN>, rowwise, gemm_swizzled>
// CHECK-SAME: on [[$CHIP]]: 2 buffers, 10624 bytes{{$}}
// CHECK-NEXT: {{^}} rowwise_data e4m3 [5, 4, 3, 160] 9600 B{{$}}
// CHECK-NEXT: {{^}} rowwise_scale_inv e8m0 [128, 8] valid [60, 5] gemm_swizzled 1024 B{{$}}
// CHECK-NOT: {{^ }}

// CHECK-LABEL: !teq.proto<5x4x3x160xf32, #teq.mxfp8_quantizer<f8E4M3FN>, columnwise, gemm_swizzled>
// CHECK-SAME: on [[$CHIP]]: 2 buffers, 10624 bytes{{$}}
// CHECK-NEXT: {{^}} columnwise_data e4m3 [5, 4, 3, 160] 9600 B{{$}}
// CHECK-NEXT: {{^}} columnwise_scale_inv e8m0 [4, 256] valid [2, 160] gemm_swizzled 1024 B{{$}}
// CHECK-NOT: {{^ }}

// CHECK-LABEL: !teq.proto<5x4x3x160xf32, #teq.mxfp8_quantizer<f8E4M3FN>, rowwise|columnwise, gemm_swizzled>
// CHECK-SAME: on [[$CHIP]]: 4 buffers, 21248 bytes{{$}}
// CHECK-NEXT: {{^}} rowwise_data e4m3 [5, 4, 3, 160] 9600 B{{$}}
// CHECK-NEXT: {{^}} rowwise_scale_inv e8m0 [128, 8] valid [60, 5] gemm_swizzled 1024 B{{$}}
// CHECK-NEXT: {{^}} columnwise_data e4m3 [5, 4, 3, 160] 9600 B{{$}}
// CHECK-NEXT: {{^}} columnwise_scale_inv e8m0 [4, 256] valid [2, 160] gemm_swizzled 1024 B{{$}}
// CHECK-NOT: {{^ }}
