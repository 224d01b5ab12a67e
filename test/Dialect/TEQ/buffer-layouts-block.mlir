// Buffers of FP8 block-scaled tensors (Float8BlockwiseQTensor, te-semantics.md
// §4.3): 1x128 (block_scaling_dim = 1) and 128x128 (the default, 2) blocks.
// Columnwise data is [K, *leading], physically transposed; fp32 GEMM-ready
// scales padded to 4 along the innermost dimension:
//   1D: rowwise [ceil(K/128), roundup(M,4)], columnwise [ceil(M/128), roundup(K,4)]
//   2D: rowwise [ceil(M/128), roundup(ceil(K/128),4)],
//       columnwise [ceil(K/128), roundup(ceil(M/128),4)]
// Storage is the same on Blackwell (block scaling is emulated with MXFP8 only
// at GEMM time).
// The layout does not depend on the target: the same CHECK lines run on
// sm_90 (the module's #teq.target) and on sm_100 (the pass option).
// Expected values are computed by hand from the spec, not from the C++.

// RUN: te-opt %s --teq-print-buffer-layouts -o /dev/null | FileCheck %s '-D$CHIP=sm_90'
// RUN: te-opt %s --teq-print-buffer-layouts=target=sm_100 -o /dev/null | FileCheck %s '-D$CHIP=sm_100'

module attributes {teq.target = #teq.target<sm_90>} {
  func.func @block1d_303x300(
      %row: !teq.proto<303x300xbf16, #teq.float8_block_quantizer<f8E4M3FN, block_scaling_dim = 1>, rowwise>,
      %col: !teq.proto<303x300xbf16, #teq.float8_block_quantizer<f8E4M3FN, block_scaling_dim = 1>, columnwise>,
      %both: !teq.proto<303x300xbf16, #teq.float8_block_quantizer<f8E4M3FN, block_scaling_dim = 1>, rowwise|columnwise>) {
    return
  }
  func.func @block1d_1x16(
      %row: !teq.proto<1x16xbf16, #teq.float8_block_quantizer<f8E4M3FN, block_scaling_dim = 1>, rowwise>,
      %col: !teq.proto<1x16xbf16, #teq.float8_block_quantizer<f8E4M3FN, block_scaling_dim = 1>, columnwise>,
      %both: !teq.proto<1x16xbf16, #teq.float8_block_quantizer<f8E4M3FN, block_scaling_dim = 1>, rowwise|columnwise>) {
    return
  }
  func.func @block1d_2333x1(
      %row: !teq.proto<2333x1xf16, #teq.float8_block_quantizer<f8E4M3FN, block_scaling_dim = 1>, rowwise>,
      %col: !teq.proto<2333x1xf16, #teq.float8_block_quantizer<f8E4M3FN, block_scaling_dim = 1>, columnwise>,
      %both: !teq.proto<2333x1xf16, #teq.float8_block_quantizer<f8E4M3FN, block_scaling_dim = 1>, rowwise|columnwise>) {
    return
  }
  func.func @block1d_993x512(
      %row: !teq.proto<993x512xbf16, #teq.float8_block_quantizer<f8E4M3FN, block_scaling_dim = 1>, rowwise>,
      %col: !teq.proto<993x512xbf16, #teq.float8_block_quantizer<f8E4M3FN, block_scaling_dim = 1>, columnwise>,
      %both: !teq.proto<993x512xbf16, #teq.float8_block_quantizer<f8E4M3FN, block_scaling_dim = 1>, rowwise|columnwise>) {
    return
  }
  func.func @block1d_300x256(
      %row: !teq.proto<300x256xbf16, #teq.float8_block_quantizer<f8E4M3FN, block_scaling_dim = 1>, rowwise>,
      %col: !teq.proto<300x256xbf16, #teq.float8_block_quantizer<f8E4M3FN, block_scaling_dim = 1>, columnwise>,
      %both: !teq.proto<300x256xbf16, #teq.float8_block_quantizer<f8E4M3FN, block_scaling_dim = 1>, rowwise|columnwise>) {
    return
  }
  func.func @block1d_128x256(
      %row: !teq.proto<128x256xbf16, #teq.float8_block_quantizer<f8E4M3FN, block_scaling_dim = 1>, rowwise>,
      %col: !teq.proto<128x256xbf16, #teq.float8_block_quantizer<f8E4M3FN, block_scaling_dim = 1>, columnwise>,
      %both: !teq.proto<128x256xbf16, #teq.float8_block_quantizer<f8E4M3FN, block_scaling_dim = 1>, rowwise|columnwise>) {
    return
  }
  func.func @block1d_256x272(
      %row: !teq.proto<256x272xbf16, #teq.float8_block_quantizer<f8E4M3FN, block_scaling_dim = 1>, rowwise>,
      %col: !teq.proto<256x272xbf16, #teq.float8_block_quantizer<f8E4M3FN, block_scaling_dim = 1>, columnwise>,
      %both: !teq.proto<256x272xbf16, #teq.float8_block_quantizer<f8E4M3FN, block_scaling_dim = 1>, rowwise|columnwise>) {
    return
  }
  func.func @block1d_5x4x3x160(
      %row: !teq.proto<5x4x3x160xf32, #teq.float8_block_quantizer<f8E4M3FN, block_scaling_dim = 1>, rowwise>,
      %col: !teq.proto<5x4x3x160xf32, #teq.float8_block_quantizer<f8E4M3FN, block_scaling_dim = 1>, columnwise>,
      %both: !teq.proto<5x4x3x160xf32, #teq.float8_block_quantizer<f8E4M3FN, block_scaling_dim = 1>, rowwise|columnwise>) {
    return
  }
  func.func @block2d_303x300(
      %row: !teq.proto<303x300xbf16, #teq.float8_block_quantizer<f8E4M3FN>, rowwise>,
      %col: !teq.proto<303x300xbf16, #teq.float8_block_quantizer<f8E4M3FN>, columnwise>,
      %both: !teq.proto<303x300xbf16, #teq.float8_block_quantizer<f8E4M3FN>, rowwise|columnwise>) {
    return
  }
  func.func @block2d_1x16(
      %row: !teq.proto<1x16xbf16, #teq.float8_block_quantizer<f8E4M3FN>, rowwise>,
      %col: !teq.proto<1x16xbf16, #teq.float8_block_quantizer<f8E4M3FN>, columnwise>,
      %both: !teq.proto<1x16xbf16, #teq.float8_block_quantizer<f8E4M3FN>, rowwise|columnwise>) {
    return
  }
  func.func @block2d_2333x1(
      %row: !teq.proto<2333x1xf16, #teq.float8_block_quantizer<f8E4M3FN>, rowwise>,
      %col: !teq.proto<2333x1xf16, #teq.float8_block_quantizer<f8E4M3FN>, columnwise>,
      %both: !teq.proto<2333x1xf16, #teq.float8_block_quantizer<f8E4M3FN>, rowwise|columnwise>) {
    return
  }
  func.func @block2d_993x512(
      %row: !teq.proto<993x512xbf16, #teq.float8_block_quantizer<f8E4M3FN>, rowwise>,
      %col: !teq.proto<993x512xbf16, #teq.float8_block_quantizer<f8E4M3FN>, columnwise>,
      %both: !teq.proto<993x512xbf16, #teq.float8_block_quantizer<f8E4M3FN>, rowwise|columnwise>) {
    return
  }
  func.func @block2d_300x256(
      %row: !teq.proto<300x256xbf16, #teq.float8_block_quantizer<f8E4M3FN>, rowwise>,
      %col: !teq.proto<300x256xbf16, #teq.float8_block_quantizer<f8E4M3FN>, columnwise>,
      %both: !teq.proto<300x256xbf16, #teq.float8_block_quantizer<f8E4M3FN>, rowwise|columnwise>) {
    return
  }
  func.func @block2d_128x256(
      %row: !teq.proto<128x256xbf16, #teq.float8_block_quantizer<f8E4M3FN>, rowwise>,
      %col: !teq.proto<128x256xbf16, #teq.float8_block_quantizer<f8E4M3FN>, columnwise>,
      %both: !teq.proto<128x256xbf16, #teq.float8_block_quantizer<f8E4M3FN>, rowwise|columnwise>) {
    return
  }
  func.func @block2d_256x272(
      %row: !teq.proto<256x272xbf16, #teq.float8_block_quantizer<f8E4M3FN>, rowwise>,
      %col: !teq.proto<256x272xbf16, #teq.float8_block_quantizer<f8E4M3FN>, columnwise>,
      %both: !teq.proto<256x272xbf16, #teq.float8_block_quantizer<f8E4M3FN>, rowwise|columnwise>) {
    return
  }
  func.func @block2d_5x4x3x160(
      %row: !teq.proto<5x4x3x160xf32, #teq.float8_block_quantizer<f8E4M3FN>, rowwise>,
      %col: !teq.proto<5x4x3x160xf32, #teq.float8_block_quantizer<f8E4M3FN>, columnwise>,
      %both: !teq.proto<5x4x3x160xf32, #teq.float8_block_quantizer<f8E4M3FN>, rowwise|columnwise>) {
    return
  }
}

// CHECK-LABEL: !teq.proto<303x300xbf16, #teq.float8_block_quantizer<f8E4M3FN, block_scaling_dim = 1>, rowwise>
// CHECK-SAME: on [[$CHIP]]: 2 buffers, 94548 bytes{{$}}
// CHECK-NEXT: {{^}} rowwise_data e4m3 [303, 300] 90900 B{{$}}
// CHECK-NEXT: {{^}} rowwise_scale_inv f32 [3, 304] valid [3, 303] 3648 B{{$}}
// CHECK-NOT: {{^ }}

// CHECK-LABEL: !teq.proto<303x300xbf16, #teq.float8_block_quantizer<f8E4M3FN, block_scaling_dim = 1>, columnwise>
// CHECK-SAME: on [[$CHIP]]: 2 buffers, 94500 bytes{{$}}
// CHECK-NEXT: {{^}} columnwise_data e4m3 [300, 303] transposed 90900 B{{$}}
// CHECK-NEXT: {{^}} columnwise_scale_inv f32 [3, 300] 3600 B{{$}}
// CHECK-NOT: {{^ }}

// CHECK-LABEL: !teq.proto<303x300xbf16, #teq.float8_block_quantizer<f8E4M3FN, block_scaling_dim = 1>, rowwise|columnwise>
// CHECK-SAME: on [[$CHIP]]: 4 buffers, 189048 bytes{{$}}
// CHECK-NEXT: {{^}} rowwise_data e4m3 [303, 300] 90900 B{{$}}
// CHECK-NEXT: {{^}} rowwise_scale_inv f32 [3, 304] valid [3, 303] 3648 B{{$}}
// CHECK-NEXT: {{^}} columnwise_data e4m3 [300, 303] transposed 90900 B{{$}}
// CHECK-NEXT: {{^}} columnwise_scale_inv f32 [3, 300] 3600 B{{$}}
// CHECK-NOT: {{^ }}

// CHECK-LABEL: !teq.proto<1x16xbf16, #teq.float8_block_quantizer<f8E4M3FN, block_scaling_dim = 1>, rowwise>
// CHECK-SAME: on [[$CHIP]]: 2 buffers, 32 bytes{{$}}
// CHECK-NEXT: {{^}} rowwise_data e4m3 [1, 16] 16 B{{$}}
// CHECK-NEXT: {{^}} rowwise_scale_inv f32 [1, 4] valid [1, 1] 16 B{{$}}
// CHECK-NOT: {{^ }}

// CHECK-LABEL: !teq.proto<1x16xbf16, #teq.float8_block_quantizer<f8E4M3FN, block_scaling_dim = 1>, columnwise>
// CHECK-SAME: on [[$CHIP]]: 2 buffers, 80 bytes{{$}}
// CHECK-NEXT: {{^}} columnwise_data e4m3 [16, 1] transposed 16 B{{$}}
// CHECK-NEXT: {{^}} columnwise_scale_inv f32 [1, 16] 64 B{{$}}
// CHECK-NOT: {{^ }}

// CHECK-LABEL: !teq.proto<1x16xbf16, #teq.float8_block_quantizer<f8E4M3FN, block_scaling_dim = 1>, rowwise|columnwise>
// CHECK-SAME: on [[$CHIP]]: 4 buffers, 112 bytes{{$}}
// CHECK-NEXT: {{^}} rowwise_data e4m3 [1, 16] 16 B{{$}}
// CHECK-NEXT: {{^}} rowwise_scale_inv f32 [1, 4] valid [1, 1] 16 B{{$}}
// CHECK-NEXT: {{^}} columnwise_data e4m3 [16, 1] transposed 16 B{{$}}
// CHECK-NEXT: {{^}} columnwise_scale_inv f32 [1, 16] 64 B{{$}}
// CHECK-NOT: {{^ }}

// CHECK-LABEL: !teq.proto<2333x1xf16, #teq.float8_block_quantizer<f8E4M3FN, block_scaling_dim = 1>, rowwise>
// CHECK-SAME: on [[$CHIP]]: 2 buffers, 11677 bytes{{$}}
// CHECK-NEXT: {{^}} rowwise_data e4m3 [2333, 1] 2333 B{{$}}
// CHECK-NEXT: {{^}} rowwise_scale_inv f32 [1, 2336] valid [1, 2333] 9344 B{{$}}
// CHECK-NOT: {{^ }}

// CHECK-LABEL: !teq.proto<2333x1xf16, #teq.float8_block_quantizer<f8E4M3FN, block_scaling_dim = 1>, columnwise>
// CHECK-SAME: on [[$CHIP]]: 2 buffers, 2637 bytes{{$}}
// CHECK-NEXT: {{^}} columnwise_data e4m3 [1, 2333] transposed 2333 B{{$}}
// CHECK-NEXT: {{^}} columnwise_scale_inv f32 [19, 4] valid [19, 1] 304 B{{$}}
// CHECK-NOT: {{^ }}

// CHECK-LABEL: !teq.proto<2333x1xf16, #teq.float8_block_quantizer<f8E4M3FN, block_scaling_dim = 1>, rowwise|columnwise>
// CHECK-SAME: on [[$CHIP]]: 4 buffers, 14314 bytes{{$}}
// CHECK-NEXT: {{^}} rowwise_data e4m3 [2333, 1] 2333 B{{$}}
// CHECK-NEXT: {{^}} rowwise_scale_inv f32 [1, 2336] valid [1, 2333] 9344 B{{$}}
// CHECK-NEXT: {{^}} columnwise_data e4m3 [1, 2333] transposed 2333 B{{$}}
// CHECK-NEXT: {{^}} columnwise_scale_inv f32 [19, 4] valid [19, 1] 304 B{{$}}
// CHECK-NOT: {{^ }}

// CHECK-LABEL: !teq.proto<993x512xbf16, #teq.float8_block_quantizer<f8E4M3FN, block_scaling_dim = 1>, rowwise>
// CHECK-SAME: on [[$CHIP]]: 2 buffers, 524352 bytes{{$}}
// CHECK-NEXT: {{^}} rowwise_data e4m3 [993, 512] 508416 B{{$}}
// CHECK-NEXT: {{^}} rowwise_scale_inv f32 [4, 996] valid [4, 993] 15936 B{{$}}
// CHECK-NOT: {{^ }}

// CHECK-LABEL: !teq.proto<993x512xbf16, #teq.float8_block_quantizer<f8E4M3FN, block_scaling_dim = 1>, columnwise>
// CHECK-SAME: on [[$CHIP]]: 2 buffers, 524800 bytes{{$}}
// CHECK-NEXT: {{^}} columnwise_data e4m3 [512, 993] transposed 508416 B{{$}}
// CHECK-NEXT: {{^}} columnwise_scale_inv f32 [8, 512] 16384 B{{$}}
// CHECK-NOT: {{^ }}

// CHECK-LABEL: !teq.proto<993x512xbf16, #teq.float8_block_quantizer<f8E4M3FN, block_scaling_dim = 1>, rowwise|columnwise>
// CHECK-SAME: on [[$CHIP]]: 4 buffers, 1049152 bytes{{$}}
// CHECK-NEXT: {{^}} rowwise_data e4m3 [993, 512] 508416 B{{$}}
// CHECK-NEXT: {{^}} rowwise_scale_inv f32 [4, 996] valid [4, 993] 15936 B{{$}}
// CHECK-NEXT: {{^}} columnwise_data e4m3 [512, 993] transposed 508416 B{{$}}
// CHECK-NEXT: {{^}} columnwise_scale_inv f32 [8, 512] 16384 B{{$}}
// CHECK-NOT: {{^ }}

// CHECK-LABEL: !teq.proto<300x256xbf16, #teq.float8_block_quantizer<f8E4M3FN, block_scaling_dim = 1>, rowwise>
// CHECK-SAME: on [[$CHIP]]: 2 buffers, 79200 bytes{{$}}
// CHECK-NEXT: {{^}} rowwise_data e4m3 [300, 256] 76800 B{{$}}
// CHECK-NEXT: {{^}} rowwise_scale_inv f32 [2, 300] 2400 B{{$}}
// CHECK-NOT: {{^ }}

// CHECK-LABEL: !teq.proto<300x256xbf16, #teq.float8_block_quantizer<f8E4M3FN, block_scaling_dim = 1>, columnwise>
// CHECK-SAME: on [[$CHIP]]: 2 buffers, 79872 bytes{{$}}
// CHECK-NEXT: {{^}} columnwise_data e4m3 [256, 300] transposed 76800 B{{$}}
// CHECK-NEXT: {{^}} columnwise_scale_inv f32 [3, 256] 3072 B{{$}}
// CHECK-NOT: {{^ }}

// CHECK-LABEL: !teq.proto<300x256xbf16, #teq.float8_block_quantizer<f8E4M3FN, block_scaling_dim = 1>, rowwise|columnwise>
// CHECK-SAME: on [[$CHIP]]: 4 buffers, 159072 bytes{{$}}
// CHECK-NEXT: {{^}} rowwise_data e4m3 [300, 256] 76800 B{{$}}
// CHECK-NEXT: {{^}} rowwise_scale_inv f32 [2, 300] 2400 B{{$}}
// CHECK-NEXT: {{^}} columnwise_data e4m3 [256, 300] transposed 76800 B{{$}}
// CHECK-NEXT: {{^}} columnwise_scale_inv f32 [3, 256] 3072 B{{$}}
// CHECK-NOT: {{^ }}

// CHECK-LABEL: !teq.proto<128x256xbf16, #teq.float8_block_quantizer<f8E4M3FN, block_scaling_dim = 1>, rowwise>
// CHECK-SAME: on [[$CHIP]]: 2 buffers, 33792 bytes{{$}}
// CHECK-NEXT: {{^}} rowwise_data e4m3 [128, 256] 32768 B{{$}}
// CHECK-NEXT: {{^}} rowwise_scale_inv f32 [2, 128] 1024 B{{$}}
// CHECK-NOT: {{^ }}

// CHECK-LABEL: !teq.proto<128x256xbf16, #teq.float8_block_quantizer<f8E4M3FN, block_scaling_dim = 1>, columnwise>
// CHECK-SAME: on [[$CHIP]]: 2 buffers, 33792 bytes{{$}}
// CHECK-NEXT: {{^}} columnwise_data e4m3 [256, 128] transposed 32768 B{{$}}
// CHECK-NEXT: {{^}} columnwise_scale_inv f32 [1, 256] 1024 B{{$}}
// CHECK-NOT: {{^ }}

// CHECK-LABEL: !teq.proto<128x256xbf16, #teq.float8_block_quantizer<f8E4M3FN, block_scaling_dim = 1>, rowwise|columnwise>
// CHECK-SAME: on [[$CHIP]]: 4 buffers, 67584 bytes{{$}}
// CHECK-NEXT: {{^}} rowwise_data e4m3 [128, 256] 32768 B{{$}}
// CHECK-NEXT: {{^}} rowwise_scale_inv f32 [2, 128] 1024 B{{$}}
// CHECK-NEXT: {{^}} columnwise_data e4m3 [256, 128] transposed 32768 B{{$}}
// CHECK-NEXT: {{^}} columnwise_scale_inv f32 [1, 256] 1024 B{{$}}
// CHECK-NOT: {{^ }}

// CHECK-LABEL: !teq.proto<256x272xbf16, #teq.float8_block_quantizer<f8E4M3FN, block_scaling_dim = 1>, rowwise>
// CHECK-SAME: on [[$CHIP]]: 2 buffers, 72704 bytes{{$}}
// CHECK-NEXT: {{^}} rowwise_data e4m3 [256, 272] 69632 B{{$}}
// CHECK-NEXT: {{^}} rowwise_scale_inv f32 [3, 256] 3072 B{{$}}
// CHECK-NOT: {{^ }}

// CHECK-LABEL: !teq.proto<256x272xbf16, #teq.float8_block_quantizer<f8E4M3FN, block_scaling_dim = 1>, columnwise>
// CHECK-SAME: on [[$CHIP]]: 2 buffers, 71808 bytes{{$}}
// CHECK-NEXT: {{^}} columnwise_data e4m3 [272, 256] transposed 69632 B{{$}}
// CHECK-NEXT: {{^}} columnwise_scale_inv f32 [2, 272] 2176 B{{$}}
// CHECK-NOT: {{^ }}

// CHECK-LABEL: !teq.proto<256x272xbf16, #teq.float8_block_quantizer<f8E4M3FN, block_scaling_dim = 1>, rowwise|columnwise>
// CHECK-SAME: on [[$CHIP]]: 4 buffers, 144512 bytes{{$}}
// CHECK-NEXT: {{^}} rowwise_data e4m3 [256, 272] 69632 B{{$}}
// CHECK-NEXT: {{^}} rowwise_scale_inv f32 [3, 256] 3072 B{{$}}
// CHECK-NEXT: {{^}} columnwise_data e4m3 [272, 256] transposed 69632 B{{$}}
// CHECK-NEXT: {{^}} columnwise_scale_inv f32 [2, 272] 2176 B{{$}}
// CHECK-NOT: {{^ }}

// CHECK-LABEL: !teq.proto<5x4x3x160xf32, #teq.float8_block_quantizer<f8E4M3FN, block_scaling_dim = 1>, rowwise>
// CHECK-SAME: on [[$CHIP]]: 2 buffers, 10080 bytes{{$}}
// CHECK-NEXT: {{^}} rowwise_data e4m3 [5, 4, 3, 160] 9600 B{{$}}
// CHECK-NEXT: {{^}} rowwise_scale_inv f32 [2, 60] 480 B{{$}}
// CHECK-NOT: {{^ }}

// CHECK-LABEL: !teq.proto<5x4x3x160xf32, #teq.float8_block_quantizer<f8E4M3FN, block_scaling_dim = 1>, columnwise>
// CHECK-SAME: on [[$CHIP]]: 2 buffers, 10240 bytes{{$}}
// CHECK-NEXT: {{^}} columnwise_data e4m3 [160, 5, 4, 3] transposed 9600 B{{$}}
// CHECK-NEXT: {{^}} columnwise_scale_inv f32 [1, 160] 640 B{{$}}
// CHECK-NOT: {{^ }}

// CHECK-LABEL: !teq.proto<5x4x3x160xf32, #teq.float8_block_quantizer<f8E4M3FN, block_scaling_dim = 1>, rowwise|columnwise>
// CHECK-SAME: on [[$CHIP]]: 4 buffers, 20320 bytes{{$}}
// CHECK-NEXT: {{^}} rowwise_data e4m3 [5, 4, 3, 160] 9600 B{{$}}
// CHECK-NEXT: {{^}} rowwise_scale_inv f32 [2, 60] 480 B{{$}}
// CHECK-NEXT: {{^}} columnwise_data e4m3 [160, 5, 4, 3] transposed 9600 B{{$}}
// CHECK-NEXT: {{^}} columnwise_scale_inv f32 [1, 160] 640 B{{$}}
// CHECK-NOT: {{^ }}

// CHECK-LABEL: !teq.proto<303x300xbf16, #teq.float8_block_quantizer<f8E4M3FN>, rowwise>
// CHECK-SAME: on [[$CHIP]]: 2 buffers, 90948 bytes{{$}}
// CHECK-NEXT: {{^}} rowwise_data e4m3 [303, 300] 90900 B{{$}}
// CHECK-NEXT: {{^}} rowwise_scale_inv f32 [3, 4] valid [3, 3] 48 B{{$}}
// CHECK-NOT: {{^ }}

// CHECK-LABEL: !teq.proto<303x300xbf16, #teq.float8_block_quantizer<f8E4M3FN>, columnwise>
// CHECK-SAME: on [[$CHIP]]: 2 buffers, 90948 bytes{{$}}
// CHECK-NEXT: {{^}} columnwise_data e4m3 [300, 303] transposed 90900 B{{$}}
// CHECK-NEXT: {{^}} columnwise_scale_inv f32 [3, 4] valid [3, 3] 48 B{{$}}
// CHECK-NOT: {{^ }}

// CHECK-LABEL: !teq.proto<303x300xbf16, #teq.float8_block_quantizer<f8E4M3FN>, rowwise|columnwise>
// CHECK-SAME: on [[$CHIP]]: 4 buffers, 181896 bytes{{$}}
// CHECK-NEXT: {{^}} rowwise_data e4m3 [303, 300] 90900 B{{$}}
// CHECK-NEXT: {{^}} rowwise_scale_inv f32 [3, 4] valid [3, 3] 48 B{{$}}
// CHECK-NEXT: {{^}} columnwise_data e4m3 [300, 303] transposed 90900 B{{$}}
// CHECK-NEXT: {{^}} columnwise_scale_inv f32 [3, 4] valid [3, 3] 48 B{{$}}
// CHECK-NOT: {{^ }}

// CHECK-LABEL: !teq.proto<1x16xbf16, #teq.float8_block_quantizer<f8E4M3FN>, rowwise>
// CHECK-SAME: on [[$CHIP]]: 2 buffers, 32 bytes{{$}}
// CHECK-NEXT: {{^}} rowwise_data e4m3 [1, 16] 16 B{{$}}
// CHECK-NEXT: {{^}} rowwise_scale_inv f32 [1, 4] valid [1, 1] 16 B{{$}}
// CHECK-NOT: {{^ }}

// CHECK-LABEL: !teq.proto<1x16xbf16, #teq.float8_block_quantizer<f8E4M3FN>, columnwise>
// CHECK-SAME: on [[$CHIP]]: 2 buffers, 32 bytes{{$}}
// CHECK-NEXT: {{^}} columnwise_data e4m3 [16, 1] transposed 16 B{{$}}
// CHECK-NEXT: {{^}} columnwise_scale_inv f32 [1, 4] valid [1, 1] 16 B{{$}}
// CHECK-NOT: {{^ }}

// CHECK-LABEL: !teq.proto<1x16xbf16, #teq.float8_block_quantizer<f8E4M3FN>, rowwise|columnwise>
// CHECK-SAME: on [[$CHIP]]: 4 buffers, 64 bytes{{$}}
// CHECK-NEXT: {{^}} rowwise_data e4m3 [1, 16] 16 B{{$}}
// CHECK-NEXT: {{^}} rowwise_scale_inv f32 [1, 4] valid [1, 1] 16 B{{$}}
// CHECK-NEXT: {{^}} columnwise_data e4m3 [16, 1] transposed 16 B{{$}}
// CHECK-NEXT: {{^}} columnwise_scale_inv f32 [1, 4] valid [1, 1] 16 B{{$}}
// CHECK-NOT: {{^ }}

// CHECK-LABEL: !teq.proto<2333x1xf16, #teq.float8_block_quantizer<f8E4M3FN>, rowwise>
// CHECK-SAME: on [[$CHIP]]: 2 buffers, 2637 bytes{{$}}
// CHECK-NEXT: {{^}} rowwise_data e4m3 [2333, 1] 2333 B{{$}}
// CHECK-NEXT: {{^}} rowwise_scale_inv f32 [19, 4] valid [19, 1] 304 B{{$}}
// CHECK-NOT: {{^ }}

// CHECK-LABEL: !teq.proto<2333x1xf16, #teq.float8_block_quantizer<f8E4M3FN>, columnwise>
// CHECK-SAME: on [[$CHIP]]: 2 buffers, 2413 bytes{{$}}
// CHECK-NEXT: {{^}} columnwise_data e4m3 [1, 2333] transposed 2333 B{{$}}
// CHECK-NEXT: {{^}} columnwise_scale_inv f32 [1, 20] valid [1, 19] 80 B{{$}}
// CHECK-NOT: {{^ }}

// CHECK-LABEL: !teq.proto<2333x1xf16, #teq.float8_block_quantizer<f8E4M3FN>, rowwise|columnwise>
// CHECK-SAME: on [[$CHIP]]: 4 buffers, 5050 bytes{{$}}
// CHECK-NEXT: {{^}} rowwise_data e4m3 [2333, 1] 2333 B{{$}}
// CHECK-NEXT: {{^}} rowwise_scale_inv f32 [19, 4] valid [19, 1] 304 B{{$}}
// CHECK-NEXT: {{^}} columnwise_data e4m3 [1, 2333] transposed 2333 B{{$}}
// CHECK-NEXT: {{^}} columnwise_scale_inv f32 [1, 20] valid [1, 19] 80 B{{$}}
// CHECK-NOT: {{^ }}

// CHECK-LABEL: !teq.proto<993x512xbf16, #teq.float8_block_quantizer<f8E4M3FN>, rowwise>
// CHECK-SAME: on [[$CHIP]]: 2 buffers, 508544 bytes{{$}}
// CHECK-NEXT: {{^}} rowwise_data e4m3 [993, 512] 508416 B{{$}}
// CHECK-NEXT: {{^}} rowwise_scale_inv f32 [8, 4] 128 B{{$}}
// CHECK-NOT: {{^ }}

// CHECK-LABEL: !teq.proto<993x512xbf16, #teq.float8_block_quantizer<f8E4M3FN>, columnwise>
// CHECK-SAME: on [[$CHIP]]: 2 buffers, 508544 bytes{{$}}
// CHECK-NEXT: {{^}} columnwise_data e4m3 [512, 993] transposed 508416 B{{$}}
// CHECK-NEXT: {{^}} columnwise_scale_inv f32 [4, 8] 128 B{{$}}
// CHECK-NOT: {{^ }}

// CHECK-LABEL: !teq.proto<993x512xbf16, #teq.float8_block_quantizer<f8E4M3FN>, rowwise|columnwise>
// CHECK-SAME: on [[$CHIP]]: 4 buffers, 1017088 bytes{{$}}
// CHECK-NEXT: {{^}} rowwise_data e4m3 [993, 512] 508416 B{{$}}
// CHECK-NEXT: {{^}} rowwise_scale_inv f32 [8, 4] 128 B{{$}}
// CHECK-NEXT: {{^}} columnwise_data e4m3 [512, 993] transposed 508416 B{{$}}
// CHECK-NEXT: {{^}} columnwise_scale_inv f32 [4, 8] 128 B{{$}}
// CHECK-NOT: {{^ }}

// CHECK-LABEL: !teq.proto<300x256xbf16, #teq.float8_block_quantizer<f8E4M3FN>, rowwise>
// CHECK-SAME: on [[$CHIP]]: 2 buffers, 76848 bytes{{$}}
// CHECK-NEXT: {{^}} rowwise_data e4m3 [300, 256] 76800 B{{$}}
// CHECK-NEXT: {{^}} rowwise_scale_inv f32 [3, 4] valid [3, 2] 48 B{{$}}
// CHECK-NOT: {{^ }}

// CHECK-LABEL: !teq.proto<300x256xbf16, #teq.float8_block_quantizer<f8E4M3FN>, columnwise>
// CHECK-SAME: on [[$CHIP]]: 2 buffers, 76832 bytes{{$}}
// CHECK-NEXT: {{^}} columnwise_data e4m3 [256, 300] transposed 76800 B{{$}}
// CHECK-NEXT: {{^}} columnwise_scale_inv f32 [2, 4] valid [2, 3] 32 B{{$}}
// CHECK-NOT: {{^ }}

// CHECK-LABEL: !teq.proto<300x256xbf16, #teq.float8_block_quantizer<f8E4M3FN>, rowwise|columnwise>
// CHECK-SAME: on [[$CHIP]]: 4 buffers, 153680 bytes{{$}}
// CHECK-NEXT: {{^}} rowwise_data e4m3 [300, 256] 76800 B{{$}}
// CHECK-NEXT: {{^}} rowwise_scale_inv f32 [3, 4] valid [3, 2] 48 B{{$}}
// CHECK-NEXT: {{^}} columnwise_data e4m3 [256, 300] transposed 76800 B{{$}}
// CHECK-NEXT: {{^}} columnwise_scale_inv f32 [2, 4] valid [2, 3] 32 B{{$}}
// CHECK-NOT: {{^ }}

// CHECK-LABEL: !teq.proto<128x256xbf16, #teq.float8_block_quantizer<f8E4M3FN>, rowwise>
// CHECK-SAME: on [[$CHIP]]: 2 buffers, 32784 bytes{{$}}
// CHECK-NEXT: {{^}} rowwise_data e4m3 [128, 256] 32768 B{{$}}
// CHECK-NEXT: {{^}} rowwise_scale_inv f32 [1, 4] valid [1, 2] 16 B{{$}}
// CHECK-NOT: {{^ }}

// CHECK-LABEL: !teq.proto<128x256xbf16, #teq.float8_block_quantizer<f8E4M3FN>, columnwise>
// CHECK-SAME: on [[$CHIP]]: 2 buffers, 32800 bytes{{$}}
// CHECK-NEXT: {{^}} columnwise_data e4m3 [256, 128] transposed 32768 B{{$}}
// CHECK-NEXT: {{^}} columnwise_scale_inv f32 [2, 4] valid [2, 1] 32 B{{$}}
// CHECK-NOT: {{^ }}

// CHECK-LABEL: !teq.proto<128x256xbf16, #teq.float8_block_quantizer<f8E4M3FN>, rowwise|columnwise>
// CHECK-SAME: on [[$CHIP]]: 4 buffers, 65584 bytes{{$}}
// CHECK-NEXT: {{^}} rowwise_data e4m3 [128, 256] 32768 B{{$}}
// CHECK-NEXT: {{^}} rowwise_scale_inv f32 [1, 4] valid [1, 2] 16 B{{$}}
// CHECK-NEXT: {{^}} columnwise_data e4m3 [256, 128] transposed 32768 B{{$}}
// CHECK-NEXT: {{^}} columnwise_scale_inv f32 [2, 4] valid [2, 1] 32 B{{$}}
// CHECK-NOT: {{^ }}

// CHECK-LABEL: !teq.proto<256x272xbf16, #teq.float8_block_quantizer<f8E4M3FN>, rowwise>
// CHECK-SAME: on [[$CHIP]]: 2 buffers, 69664 bytes{{$}}
// CHECK-NEXT: {{^}} rowwise_data e4m3 [256, 272] 69632 B{{$}}
// CHECK-NEXT: {{^}} rowwise_scale_inv f32 [2, 4] valid [2, 3] 32 B{{$}}
// CHECK-NOT: {{^ }}

// CHECK-LABEL: !teq.proto<256x272xbf16, #teq.float8_block_quantizer<f8E4M3FN>, columnwise>
// CHECK-SAME: on [[$CHIP]]: 2 buffers, 69680 bytes{{$}}
// CHECK-NEXT: {{^}} columnwise_data e4m3 [272, 256] transposed 69632 B{{$}}
// CHECK-NEXT: {{^}} columnwise_scale_inv f32 [3, 4] valid [3, 2] 48 B{{$}}
// CHECK-NOT: {{^ }}

// CHECK-LABEL: !teq.proto<256x272xbf16, #teq.float8_block_quantizer<f8E4M3FN>, rowwise|columnwise>
// CHECK-SAME: on [[$CHIP]]: 4 buffers, 139344 bytes{{$}}
// CHECK-NEXT: {{^}} rowwise_data e4m3 [256, 272] 69632 B{{$}}
// CHECK-NEXT: {{^}} rowwise_scale_inv f32 [2, 4] valid [2, 3] 32 B{{$}}
// CHECK-NEXT: {{^}} columnwise_data e4m3 [272, 256] transposed 69632 B{{$}}
// CHECK-NEXT: {{^}} columnwise_scale_inv f32 [3, 4] valid [3, 2] 48 B{{$}}
// CHECK-NOT: {{^ }}

// CHECK-LABEL: !teq.proto<5x4x3x160xf32, #teq.float8_block_quantizer<f8E4M3FN>, rowwise>
// CHECK-SAME: on [[$CHIP]]: 2 buffers, 9616 bytes{{$}}
// CHECK-NEXT: {{^}} rowwise_data e4m3 [5, 4, 3, 160] 9600 B{{$}}
// CHECK-NEXT: {{^}} rowwise_scale_inv f32 [1, 4] valid [1, 2] 16 B{{$}}
// CHECK-NOT: {{^ }}

// CHECK-LABEL: !teq.proto<5x4x3x160xf32, #teq.float8_block_quantizer<f8E4M3FN>, columnwise>
// CHECK-SAME: on [[$CHIP]]: 2 buffers, 9632 bytes{{$}}
// CHECK-NEXT: {{^}} columnwise_data e4m3 [160, 5, 4, 3] transposed 9600 B{{$}}
// CHECK-NEXT: {{^}} columnwise_scale_inv f32 [2, 4] valid [2, 1] 32 B{{$}}
// CHECK-NOT: {{^ }}

// CHECK-LABEL: !teq.proto<5x4x3x160xf32, #teq.float8_block_quantizer<f8E4M3FN>, rowwise|columnwise>
// CHECK-SAME: on [[$CHIP]]: 4 buffers, 19248 bytes{{$}}
// CHECK-NEXT: {{^}} rowwise_data e4m3 [5, 4, 3, 160] 9600 B{{$}}
// CHECK-NEXT: {{^}} rowwise_scale_inv f32 [1, 4] valid [1, 2] 16 B{{$}}
// CHECK-NEXT: {{^}} columnwise_data e4m3 [160, 5, 4, 3] transposed 9600 B{{$}}
// CHECK-NEXT: {{^}} columnwise_scale_inv f32 [2, 4] valid [2, 1] 32 B{{$}}
// CHECK-NOT: {{^ }}
