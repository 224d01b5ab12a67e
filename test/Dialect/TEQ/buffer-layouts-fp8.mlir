// Buffers of per-tensor FP8 tensors (Float8Tensor, te-semantics.md §4.1) for
// current scaling (E4M3) and delayed scaling (E5M2), every usage, on TN-only
// targets (Hopper/Ada/SM12x: a separate physically transposed `transpose`
// copy for columnwise usage) and on non-TN targets (SM in [100,120) or
// >= 130, §2: only `data`, read with a flipped transpose flag).
// with_data = rowwise || non_tn; with_transpose = columnwise && !non_tn;
// one fp32 scale_inv [1] shared by both usages.
// Expected values are computed by hand from the spec, not from the C++.

// RUN: te-opt %s --teq-print-buffer-layouts -o /dev/null | FileCheck %s --check-prefix=TN '-D$CHIP=sm_90'
// RUN: te-opt %s --teq-print-buffer-layouts=target=sm_100 -o /dev/null | FileCheck %s --check-prefix=NONTN '-D$CHIP=sm_100'
// The boundaries of nvte_is_non_tn_fp8_gemm_supported (§2).
// RUN: te-opt %s --teq-print-buffer-layouts=target=sm_89 -o /dev/null | FileCheck %s --check-prefix=TN '-D$CHIP=sm_89'
// RUN: te-opt %s --teq-print-buffer-layouts=target=sm_90a -o /dev/null | FileCheck %s --check-prefix=TN '-D$CHIP=sm_90a'
// RUN: te-opt %s --teq-print-buffer-layouts=target=sm_103 -o /dev/null | FileCheck %s --check-prefix=NONTN '-D$CHIP=sm_103'
// RUN: te-opt %s --teq-print-buffer-layouts=target=sm_110 -o /dev/null | FileCheck %s --check-prefix=NONTN '-D$CHIP=sm_110'
// RUN: te-opt %s --teq-print-buffer-layouts=target=sm_120 -o /dev/null | FileCheck %s --check-prefix=TN '-D$CHIP=sm_120'
// RUN: te-opt %s --teq-print-buffer-layouts=target=sm_121 -o /dev/null | FileCheck %s --check-prefix=TN '-D$CHIP=sm_121'
// RUN: te-opt %s --teq-print-buffer-layouts=target=sm_130 -o /dev/null | FileCheck %s --check-prefix=NONTN '-D$CHIP=sm_130'

module attributes {teq.target = #teq.target<sm_90>} {
  func.func @current_e4m3_303x300(
      %row: !teq.proto<303x300xbf16, #teq.float8_current_scaling_quantizer<f8E4M3FN>, rowwise>,
      %col: !teq.proto<303x300xbf16, #teq.float8_current_scaling_quantizer<f8E4M3FN>, columnwise>,
      %both: !teq.proto<303x300xbf16, #teq.float8_current_scaling_quantizer<f8E4M3FN>, rowwise|columnwise>) {
    return
  }
  func.func @current_e4m3_1x16(
      %row: !teq.proto<1x16xbf16, #teq.float8_current_scaling_quantizer<f8E4M3FN>, rowwise>,
      %col: !teq.proto<1x16xbf16, #teq.float8_current_scaling_quantizer<f8E4M3FN>, columnwise>,
      %both: !teq.proto<1x16xbf16, #teq.float8_current_scaling_quantizer<f8E4M3FN>, rowwise|columnwise>) {
    return
  }
  func.func @current_e4m3_2333x1(
      %row: !teq.proto<2333x1xf16, #teq.float8_current_scaling_quantizer<f8E4M3FN>, rowwise>,
      %col: !teq.proto<2333x1xf16, #teq.float8_current_scaling_quantizer<f8E4M3FN>, columnwise>,
      %both: !teq.proto<2333x1xf16, #teq.float8_current_scaling_quantizer<f8E4M3FN>, rowwise|columnwise>) {
    return
  }
  func.func @current_e4m3_993x512(
      %row: !teq.proto<993x512xbf16, #teq.float8_current_scaling_quantizer<f8E4M3FN>, rowwise>,
      %col: !teq.proto<993x512xbf16, #teq.float8_current_scaling_quantizer<f8E4M3FN>, columnwise>,
      %both: !teq.proto<993x512xbf16, #teq.float8_current_scaling_quantizer<f8E4M3FN>, rowwise|columnwise>) {
    return
  }
  func.func @current_e4m3_300x256(
      %row: !teq.proto<300x256xbf16, #teq.float8_current_scaling_quantizer<f8E4M3FN>, rowwise>,
      %col: !teq.proto<300x256xbf16, #teq.float8_current_scaling_quantizer<f8E4M3FN>, columnwise>,
      %both: !teq.proto<300x256xbf16, #teq.float8_current_scaling_quantizer<f8E4M3FN>, rowwise|columnwise>) {
    return
  }
  func.func @current_e4m3_128x256(
      %row: !teq.proto<128x256xbf16, #teq.float8_current_scaling_quantizer<f8E4M3FN>, rowwise>,
      %col: !teq.proto<128x256xbf16, #teq.float8_current_scaling_quantizer<f8E4M3FN>, columnwise>,
      %both: !teq.proto<128x256xbf16, #teq.float8_current_scaling_quantizer<f8E4M3FN>, rowwise|columnwise>) {
    return
  }
  func.func @current_e4m3_256x272(
      %row: !teq.proto<256x272xbf16, #teq.float8_current_scaling_quantizer<f8E4M3FN>, rowwise>,
      %col: !teq.proto<256x272xbf16, #teq.float8_current_scaling_quantizer<f8E4M3FN>, columnwise>,
      %both: !teq.proto<256x272xbf16, #teq.float8_current_scaling_quantizer<f8E4M3FN>, rowwise|columnwise>) {
    return
  }
  func.func @current_e4m3_5x4x3x160(
      %row: !teq.proto<5x4x3x160xf32, #teq.float8_current_scaling_quantizer<f8E4M3FN>, rowwise>,
      %col: !teq.proto<5x4x3x160xf32, #teq.float8_current_scaling_quantizer<f8E4M3FN>, columnwise>,
      %both: !teq.proto<5x4x3x160xf32, #teq.float8_current_scaling_quantizer<f8E4M3FN>, rowwise|columnwise>) {
    return
  }
  func.func @delayed_e5m2_303x300(
      %row: !teq.proto<303x300xbf16, #teq.float8_quantizer<f8E5M2>, rowwise>,
      %col: !teq.proto<303x300xbf16, #teq.float8_quantizer<f8E5M2>, columnwise>,
      %both: !teq.proto<303x300xbf16, #teq.float8_quantizer<f8E5M2>, rowwise|columnwise>) {
    return
  }
  func.func @delayed_e5m2_1x16(
      %row: !teq.proto<1x16xbf16, #teq.float8_quantizer<f8E5M2>, rowwise>,
      %col: !teq.proto<1x16xbf16, #teq.float8_quantizer<f8E5M2>, columnwise>,
      %both: !teq.proto<1x16xbf16, #teq.float8_quantizer<f8E5M2>, rowwise|columnwise>) {
    return
  }
  func.func @delayed_e5m2_2333x1(
      %row: !teq.proto<2333x1xf16, #teq.float8_quantizer<f8E5M2>, rowwise>,
      %col: !teq.proto<2333x1xf16, #teq.float8_quantizer<f8E5M2>, columnwise>,
      %both: !teq.proto<2333x1xf16, #teq.float8_quantizer<f8E5M2>, rowwise|columnwise>) {
    return
  }
  func.func @delayed_e5m2_993x512(
      %row: !teq.proto<993x512xbf16, #teq.float8_quantizer<f8E5M2>, rowwise>,
      %col: !teq.proto<993x512xbf16, #teq.float8_quantizer<f8E5M2>, columnwise>,
      %both: !teq.proto<993x512xbf16, #teq.float8_quantizer<f8E5M2>, rowwise|columnwise>) {
    return
  }
  func.func @delayed_e5m2_300x256(
      %row: !teq.proto<300x256xbf16, #teq.float8_quantizer<f8E5M2>, rowwise>,
      %col: !teq.proto<300x256xbf16, #teq.float8_quantizer<f8E5M2>, columnwise>,
      %both: !teq.proto<300x256xbf16, #teq.float8_quantizer<f8E5M2>, rowwise|columnwise>) {
    return
  }
  func.func @delayed_e5m2_128x256(
      %row: !teq.proto<128x256xbf16, #teq.float8_quantizer<f8E5M2>, rowwise>,
      %col: !teq.proto<128x256xbf16, #teq.float8_quantizer<f8E5M2>, columnwise>,
      %both: !teq.proto<128x256xbf16, #teq.float8_quantizer<f8E5M2>, rowwise|columnwise>) {
    return
  }
  func.func @delayed_e5m2_256x272(
      %row: !teq.proto<256x272xbf16, #teq.float8_quantizer<f8E5M2>, rowwise>,
      %col: !teq.proto<256x272xbf16, #teq.float8_quantizer<f8E5M2>, columnwise>,
      %both: !teq.proto<256x272xbf16, #teq.float8_quantizer<f8E5M2>, rowwise|columnwise>) {
    return
  }
  func.func @delayed_e5m2_5x4x3x160(
      %row: !teq.proto<5x4x3x160xf32, #teq.float8_quantizer<f8E5M2>, rowwise>,
      %col: !teq.proto<5x4x3x160xf32, #teq.float8_quantizer<f8E5M2>, columnwise>,
      %both: !teq.proto<5x4x3x160xf32, #teq.float8_quantizer<f8E5M2>, rowwise|columnwise>) {
    return
  }
}

// TN-LABEL: !teq.proto<303x300xbf16, #teq.float8_current_scaling_quantizer<f8E4M3FN>, rowwise>
// TN-SAME: on [[$CHIP]]: 2 buffers, 90904 bytes{{$}}
// TN-NEXT: {{^}} data e4m3 [303, 300] 90900 B{{$}}
// TN-NEXT: {{^}} scale_inv f32 [1] 4 B{{$}}
// TN-NOT: {{^ }}
// NONTN-LABEL: !teq.proto<303x300xbf16, #teq.float8_current_scaling_quantizer<f8E4M3FN>, rowwise>
// NONTN-SAME: on [[$CHIP]]: 2 buffers, 90904 bytes{{$}}
// NONTN-NEXT: {{^}} data e4m3 [303, 300] 90900 B{{$}}
// NONTN-NEXT: {{^}} scale_inv f32 [1] 4 B{{$}}
// NONTN-NOT: {{^ }}

// TN-LABEL: !teq.proto<303x300xbf16, #teq.float8_current_scaling_quantizer<f8E4M3FN>, columnwise>
// TN-SAME: on [[$CHIP]]: 2 buffers, 90904 bytes{{$}}
// TN-NEXT: {{^}} transpose e4m3 [300, 303] transposed 90900 B{{$}}
// TN-NEXT: {{^}} scale_inv f32 [1] 4 B{{$}}
// TN-NOT: {{^ }}
// NONTN-LABEL: !teq.proto<303x300xbf16, #teq.float8_current_scaling_quantizer<f8E4M3FN>, columnwise>
// NONTN-SAME: on [[$CHIP]]: 2 buffers, 90904 bytes{{$}}
// NONTN-NEXT: {{^}} data e4m3 [303, 300] 90900 B{{$}}
// NONTN-NEXT: {{^}} scale_inv f32 [1] 4 B{{$}}
// NONTN-NOT: {{^ }}

// TN-LABEL: !teq.proto<303x300xbf16, #teq.float8_current_scaling_quantizer<f8E4M3FN>, rowwise|columnwise>
// TN-SAME: on [[$CHIP]]: 3 buffers, 181804 bytes{{$}}
// TN-NEXT: {{^}} data e4m3 [303, 300] 90900 B{{$}}
// TN-NEXT: {{^}} transpose e4m3 [300, 303] transposed 90900 B{{$}}
// TN-NEXT: {{^}} scale_inv f32 [1] 4 B{{$}}
// TN-NOT: {{^ }}
// NONTN-LABEL: !teq.proto<303x300xbf16, #teq.float8_current_scaling_quantizer<f8E4M3FN>, rowwise|columnwise>
// NONTN-SAME: on [[$CHIP]]: 2 buffers, 90904 bytes{{$}}
// NONTN-NEXT: {{^}} data e4m3 [303, 300] 90900 B{{$}}
// NONTN-NEXT: {{^}} scale_inv f32 [1] 4 B{{$}}
// NONTN-NOT: {{^ }}

// TN-LABEL: !teq.proto<1x16xbf16, #teq.float8_current_scaling_quantizer<f8E4M3FN>, rowwise>
// TN-SAME: on [[$CHIP]]: 2 buffers, 20 bytes{{$}}
// TN-NEXT: {{^}} data e4m3 [1, 16] 16 B{{$}}
// TN-NEXT: {{^}} scale_inv f32 [1] 4 B{{$}}
// TN-NOT: {{^ }}
// NONTN-LABEL: !teq.proto<1x16xbf16, #teq.float8_current_scaling_quantizer<f8E4M3FN>, rowwise>
// NONTN-SAME: on [[$CHIP]]: 2 buffers, 20 bytes{{$}}
// NONTN-NEXT: {{^}} data e4m3 [1, 16] 16 B{{$}}
// NONTN-NEXT: {{^}} scale_inv f32 [1] 4 B{{$}}
// NONTN-NOT: {{^ }}

// TN-LABEL: !teq.proto<1x16xbf16, #teq.float8_current_scaling_quantizer<f8E4M3FN>, columnwise>
// TN-SAME: on [[$CHIP]]: 2 buffers, 20 bytes{{$}}
// TN-NEXT: {{^}} transpose e4m3 [16, 1] transposed 16 B{{$}}
// TN-NEXT: {{^}} scale_inv f32 [1] 4 B{{$}}
// TN-NOT: {{^ }}
// NONTN-LABEL: !teq.proto<1x16xbf16, #teq.float8_current_scaling_quantizer<f8E4M3FN>, columnwise>
// NONTN-SAME: on [[$CHIP]]: 2 buffers, 20 bytes{{$}}
// NONTN-NEXT: {{^}} data e4m3 [1, 16] 16 B{{$}}
// NONTN-NEXT: {{^}} scale_inv f32 [1] 4 B{{$}}
// NONTN-NOT: {{^ }}

// TN-LABEL: !teq.proto<1x16xbf16, #teq.float8_current_scaling_quantizer<f8E4M3FN>, rowwise|columnwise>
// TN-SAME: on [[$CHIP]]: 3 buffers, 36 bytes{{$}}
// TN-NEXT: {{^}} data e4m3 [1, 16] 16 B{{$}}
// TN-NEXT: {{^}} transpose e4m3 [16, 1] transposed 16 B{{$}}
// TN-NEXT: {{^}} scale_inv f32 [1] 4 B{{$}}
// TN-NOT: {{^ }}
// NONTN-LABEL: !teq.proto<1x16xbf16, #teq.float8_current_scaling_quantizer<f8E4M3FN>, rowwise|columnwise>
// NONTN-SAME: on [[$CHIP]]: 2 buffers, 20 bytes{{$}}
// NONTN-NEXT: {{^}} data e4m3 [1, 16] 16 B{{$}}
// NONTN-NEXT: {{^}} scale_inv f32 [1] 4 B{{$}}
// NONTN-NOT: {{^ }}

// TN-LABEL: !teq.proto<2333x1xf16, #teq.float8_current_scaling_quantizer<f8E4M3FN>, rowwise>
// TN-SAME: on [[$CHIP]]: 2 buffers, 2337 bytes{{$}}
// TN-NEXT: {{^}} data e4m3 [2333, 1] 2333 B{{$}}
// TN-NEXT: {{^}} scale_inv f32 [1] 4 B{{$}}
// TN-NOT: {{^ }}
// NONTN-LABEL: !teq.proto<2333x1xf16, #teq.float8_current_scaling_quantizer<f8E4M3FN>, rowwise>
// NONTN-SAME: on [[$CHIP]]: 2 buffers, 2337 bytes{{$}}
// NONTN-NEXT: {{^}} data e4m3 [2333, 1] 2333 B{{$}}
// NONTN-NEXT: {{^}} scale_inv f32 [1] 4 B{{$}}
// NONTN-NOT: {{^ }}

// TN-LABEL: !teq.proto<2333x1xf16, #teq.float8_current_scaling_quantizer<f8E4M3FN>, columnwise>
// TN-SAME: on [[$CHIP]]: 2 buffers, 2337 bytes{{$}}
// TN-NEXT: {{^}} transpose e4m3 [1, 2333] transposed 2333 B{{$}}
// TN-NEXT: {{^}} scale_inv f32 [1] 4 B{{$}}
// TN-NOT: {{^ }}
// NONTN-LABEL: !teq.proto<2333x1xf16, #teq.float8_current_scaling_quantizer<f8E4M3FN>, columnwise>
// NONTN-SAME: on [[$CHIP]]: 2 buffers, 2337 bytes{{$}}
// NONTN-NEXT: {{^}} data e4m3 [2333, 1] 2333 B{{$}}
// NONTN-NEXT: {{^}} scale_inv f32 [1] 4 B{{$}}
// NONTN-NOT: {{^ }}

// TN-LABEL: !teq.proto<2333x1xf16, #teq.float8_current_scaling_quantizer<f8E4M3FN>, rowwise|columnwise>
// TN-SAME: on [[$CHIP]]: 3 buffers, 4670 bytes{{$}}
// TN-NEXT: {{^}} data e4m3 [2333, 1] 2333 B{{$}}
// TN-NEXT: {{^}} transpose e4m3 [1, 2333] transposed 2333 B{{$}}
// TN-NEXT: {{^}} scale_inv f32 [1] 4 B{{$}}
// TN-NOT: {{^ }}
// NONTN-LABEL: !teq.proto<2333x1xf16, #teq.float8_current_scaling_quantizer<f8E4M3FN>, rowwise|columnwise>
// NONTN-SAME: on [[$CHIP]]: 2 buffers, 2337 bytes{{$}}
// NONTN-NEXT: {{^}} data e4m3 [2333, 1] 2333 B{{$}}
// NONTN-NEXT: {{^}} scale_inv f32 [1] 4 B{{$}}
// NONTN-NOT: {{^ }}

// TN-LABEL: !teq.proto<993x512xbf16, #teq.float8_current_scaling_quantizer<f8E4M3FN>, rowwise>
// TN-SAME: on [[$CHIP]]: 2 buffers, 508420 bytes{{$}}
// TN-NEXT: {{^}} data e4m3 [993, 512] 508416 B{{$}}
// TN-NEXT: {{^}} scale_inv f32 [1] 4 B{{$}}
// TN-NOT: {{^ }}
// NONTN-LABEL: !teq.proto<993x512xbf16, #teq.float8_current_scaling_quantizer<f8E4M3FN>, rowwise>
// NONTN-SAME: on [[$CHIP]]: 2 buffers, 508420 bytes{{$}}
// NONTN-NEXT: {{^}} data e4m3 [993, 512] 508416 B{{$}}
// NONTN-NEXT: {{^}} scale_inv f32 [1] 4 B{{$}}
// NONTN-NOT: {{^ }}

// TN-LABEL: !teq.proto<993x512xbf16, #teq.float8_current_scaling_quantizer<f8E4M3FN>, columnwise>
// TN-SAME: on [[$CHIP]]: 2 buffers, 508420 bytes{{$}}
// TN-NEXT: {{^}} transpose e4m3 [512, 993] transposed 508416 B{{$}}
// TN-NEXT: {{^}} scale_inv f32 [1] 4 B{{$}}
// TN-NOT: {{^ }}
// NONTN-LABEL: !teq.proto<993x512xbf16, #teq.float8_current_scaling_quantizer<f8E4M3FN>, columnwise>
// NONTN-SAME: on [[$CHIP]]: 2 buffers, 508420 bytes{{$}}
// NONTN-NEXT: {{^}} data e4m3 [993, 512] 508416 B{{$}}
// NONTN-NEXT: {{^}} scale_inv f32 [1] 4 B{{$}}
// NONTN-NOT: {{^ }}

// TN-LABEL: !teq.proto<993x512xbf16, #teq.float8_current_scaling_quantizer<f8E4M3FN>, rowwise|columnwise>
// TN-SAME: on [[$CHIP]]: 3 buffers, 1016836 bytes{{$}}
// TN-NEXT: {{^}} data e4m3 [993, 512] 508416 B{{$}}
// TN-NEXT: {{^}} transpose e4m3 [512, 993] transposed 508416 B{{$}}
// TN-NEXT: {{^}} scale_inv f32 [1] 4 B{{$}}
// TN-NOT: {{^ }}
// NONTN-LABEL: !teq.proto<993x512xbf16, #teq.float8_current_scaling_quantizer<f8E4M3FN>, rowwise|columnwise>
// NONTN-SAME: on [[$CHIP]]: 2 buffers, 508420 bytes{{$}}
// NONTN-NEXT: {{^}} data e4m3 [993, 512] 508416 B{{$}}
// NONTN-NEXT: {{^}} scale_inv f32 [1] 4 B{{$}}
// NONTN-NOT: {{^ }}

// TN-LABEL: !teq.proto<300x256xbf16, #teq.float8_current_scaling_quantizer<f8E4M3FN>, rowwise>
// TN-SAME: on [[$CHIP]]: 2 buffers, 76804 bytes{{$}}
// TN-NEXT: {{^}} data e4m3 [300, 256] 76800 B{{$}}
// TN-NEXT: {{^}} scale_inv f32 [1] 4 B{{$}}
// TN-NOT: {{^ }}
// NONTN-LABEL: !teq.proto<300x256xbf16, #teq.float8_current_scaling_quantizer<f8E4M3FN>, rowwise>
// NONTN-SAME: on [[$CHIP]]: 2 buffers, 76804 bytes{{$}}
// NONTN-NEXT: {{^}} data e4m3 [300, 256] 76800 B{{$}}
// NONTN-NEXT: {{^}} scale_inv f32 [1] 4 B{{$}}
// NONTN-NOT: {{^ }}

// TN-LABEL: !teq.proto<300x256xbf16, #teq.float8_current_scaling_quantizer<f8E4M3FN>, columnwise>
// TN-SAME: on [[$CHIP]]: 2 buffers, 76804 bytes{{$}}
// TN-NEXT: {{^}} transpose e4m3 [256, 300] transposed 76800 B{{$}}
// TN-NEXT: {{^}} scale_inv f32 [1] 4 B{{$}}
// TN-NOT: {{^ }}
// NONTN-LABEL: !teq.proto<300x256xbf16, #teq.float8_current_scaling_quantizer<f8E4M3FN>, columnwise>
// NONTN-SAME: on [[$CHIP]]: 2 buffers, 76804 bytes{{$}}
// NONTN-NEXT: {{^}} data e4m3 [300, 256] 76800 B{{$}}
// NONTN-NEXT: {{^}} scale_inv f32 [1] 4 B{{$}}
// NONTN-NOT: {{^ }}

// TN-LABEL: !teq.proto<300x256xbf16, #teq.float8_current_scaling_quantizer<f8E4M3FN>, rowwise|columnwise>
// TN-SAME: on [[$CHIP]]: 3 buffers, 153604 bytes{{$}}
// TN-NEXT: {{^}} data e4m3 [300, 256] 76800 B{{$}}
// TN-NEXT: {{^}} transpose e4m3 [256, 300] transposed 76800 B{{$}}
// TN-NEXT: {{^}} scale_inv f32 [1] 4 B{{$}}
// TN-NOT: {{^ }}
// NONTN-LABEL: !teq.proto<300x256xbf16, #teq.float8_current_scaling_quantizer<f8E4M3FN>, rowwise|columnwise>
// NONTN-SAME: on [[$CHIP]]: 2 buffers, 76804 bytes{{$}}
// NONTN-NEXT: {{^}} data e4m3 [300, 256] 76800 B{{$}}
// NONTN-NEXT: {{^}} scale_inv f32 [1] 4 B{{$}}
// NONTN-NOT: {{^ }}

// TN-LABEL: !teq.proto<128x256xbf16, #teq.float8_current_scaling_quantizer<f8E4M3FN>, rowwise>
// TN-SAME: on [[$CHIP]]: 2 buffers, 32772 bytes{{$}}
// TN-NEXT: {{^}} data e4m3 [128, 256] 32768 B{{$}}
// TN-NEXT: {{^}} scale_inv f32 [1] 4 B{{$}}
// TN-NOT: {{^ }}
// NONTN-LABEL: !teq.proto<128x256xbf16, #teq.float8_current_scaling_quantizer<f8E4M3FN>, rowwise>
// NONTN-SAME: on [[$CHIP]]: 2 buffers, 32772 bytes{{$}}
// NONTN-NEXT: {{^}} data e4m3 [128, 256] 32768 B{{$}}
// NONTN-NEXT: {{^}} scale_inv f32 [1] 4 B{{$}}
// NONTN-NOT: {{^ }}

// TN-LABEL: !teq.proto<128x256xbf16, #teq.float8_current_scaling_quantizer<f8E4M3FN>, columnwise>
// TN-SAME: on [[$CHIP]]: 2 buffers, 32772 bytes{{$}}
// TN-NEXT: {{^}} transpose e4m3 [256, 128] transposed 32768 B{{$}}
// TN-NEXT: {{^}} scale_inv f32 [1] 4 B{{$}}
// TN-NOT: {{^ }}
// NONTN-LABEL: !teq.proto<128x256xbf16, #teq.float8_current_scaling_quantizer<f8E4M3FN>, columnwise>
// NONTN-SAME: on [[$CHIP]]: 2 buffers, 32772 bytes{{$}}
// NONTN-NEXT: {{^}} data e4m3 [128, 256] 32768 B{{$}}
// NONTN-NEXT: {{^}} scale_inv f32 [1] 4 B{{$}}
// NONTN-NOT: {{^ }}

// TN-LABEL: !teq.proto<128x256xbf16, #teq.float8_current_scaling_quantizer<f8E4M3FN>, rowwise|columnwise>
// TN-SAME: on [[$CHIP]]: 3 buffers, 65540 bytes{{$}}
// TN-NEXT: {{^}} data e4m3 [128, 256] 32768 B{{$}}
// TN-NEXT: {{^}} transpose e4m3 [256, 128] transposed 32768 B{{$}}
// TN-NEXT: {{^}} scale_inv f32 [1] 4 B{{$}}
// TN-NOT: {{^ }}
// NONTN-LABEL: !teq.proto<128x256xbf16, #teq.float8_current_scaling_quantizer<f8E4M3FN>, rowwise|columnwise>
// NONTN-SAME: on [[$CHIP]]: 2 buffers, 32772 bytes{{$}}
// NONTN-NEXT: {{^}} data e4m3 [128, 256] 32768 B{{$}}
// NONTN-NEXT: {{^}} scale_inv f32 [1] 4 B{{$}}
// NONTN-NOT: {{^ }}

// TN-LABEL: !teq.proto<256x272xbf16, #teq.float8_current_scaling_quantizer<f8E4M3FN>, rowwise>
// TN-SAME: on [[$CHIP]]: 2 buffers, 69636 bytes{{$}}
// TN-NEXT: {{^}} data e4m3 [256, 272] 69632 B{{$}}
// TN-NEXT: {{^}} scale_inv f32 [1] 4 B{{$}}
// TN-NOT: {{^ }}
// NONTN-LABEL: !teq.proto<256x272xbf16, #teq.float8_current_scaling_quantizer<f8E4M3FN>, rowwise>
// NONTN-SAME: on [[$CHIP]]: 2 buffers, 69636 bytes{{$}}
// NONTN-NEXT: {{^}} data e4m3 [256, 272] 69632 B{{$}}
// NONTN-NEXT: {{^}} scale_inv f32 [1] 4 B{{$}}
// NONTN-NOT: {{^ }}

// TN-LABEL: !teq.proto<256x272xbf16, #teq.float8_current_scaling_quantizer<f8E4M3FN>, columnwise>
// TN-SAME: on [[$CHIP]]: 2 buffers, 69636 bytes{{$}}
// TN-NEXT: {{^}} transpose e4m3 [272, 256] transposed 69632 B{{$}}
// TN-NEXT: {{^}} scale_inv f32 [1] 4 B{{$}}
// TN-NOT: {{^ }}
// NONTN-LABEL: !teq.proto<256x272xbf16, #teq.float8_current_scaling_quantizer<f8E4M3FN>, columnwise>
// NONTN-SAME: on [[$CHIP]]: 2 buffers, 69636 bytes{{$}}
// NONTN-NEXT: {{^}} data e4m3 [256, 272] 69632 B{{$}}
// NONTN-NEXT: {{^}} scale_inv f32 [1] 4 B{{$}}
// NONTN-NOT: {{^ }}

// TN-LABEL: !teq.proto<256x272xbf16, #teq.float8_current_scaling_quantizer<f8E4M3FN>, rowwise|columnwise>
// TN-SAME: on [[$CHIP]]: 3 buffers, 139268 bytes{{$}}
// TN-NEXT: {{^}} data e4m3 [256, 272] 69632 B{{$}}
// TN-NEXT: {{^}} transpose e4m3 [272, 256] transposed 69632 B{{$}}
// TN-NEXT: {{^}} scale_inv f32 [1] 4 B{{$}}
// TN-NOT: {{^ }}
// NONTN-LABEL: !teq.proto<256x272xbf16, #teq.float8_current_scaling_quantizer<f8E4M3FN>, rowwise|columnwise>
// NONTN-SAME: on [[$CHIP]]: 2 buffers, 69636 bytes{{$}}
// NONTN-NEXT: {{^}} data e4m3 [256, 272] 69632 B{{$}}
// NONTN-NEXT: {{^}} scale_inv f32 [1] 4 B{{$}}
// NONTN-NOT: {{^ }}

// TN-LABEL: !teq.proto<5x4x3x160xf32, #teq.float8_current_scaling_quantizer<f8E4M3FN>, rowwise>
// TN-SAME: on [[$CHIP]]: 2 buffers, 9604 bytes{{$}}
// TN-NEXT: {{^}} data e4m3 [5, 4, 3, 160] 9600 B{{$}}
// TN-NEXT: {{^}} scale_inv f32 [1] 4 B{{$}}
// TN-NOT: {{^ }}
// NONTN-LABEL: !teq.proto<5x4x3x160xf32, #teq.float8_current_scaling_quantizer<f8E4M3FN>, rowwise>
// NONTN-SAME: on [[$CHIP]]: 2 buffers, 9604 bytes{{$}}
// NONTN-NEXT: {{^}} data e4m3 [5, 4, 3, 160] 9600 B{{$}}
// NONTN-NEXT: {{^}} scale_inv f32 [1] 4 B{{$}}
// NONTN-NOT: {{^ }}

// TN-LABEL: !teq.proto<5x4x3x160xf32, #teq.float8_current_scaling_quantizer<f8E4M3FN>, columnwise>
// TN-SAME: on [[$CHIP]]: 2 buffers, 9604 bytes{{$}}
// TN-NEXT: {{^}} transpose e4m3 [160, 5, 4, 3] transposed 9600 B{{$}}
// TN-NEXT: {{^}} scale_inv f32 [1] 4 B{{$}}
// TN-NOT: {{^ }}
// NONTN-LABEL: !teq.proto<5x4x3x160xf32, #teq.float8_current_scaling_quantizer<f8E4M3FN>, columnwise>
// NONTN-SAME: on [[$CHIP]]: 2 buffers, 9604 bytes{{$}}
// NONTN-NEXT: {{^}} data e4m3 [5, 4, 3, 160] 9600 B{{$}}
// NONTN-NEXT: {{^}} scale_inv f32 [1] 4 B{{$}}
// NONTN-NOT: {{^ }}

// TN-LABEL: !teq.proto<5x4x3x160xf32, #teq.float8_current_scaling_quantizer<f8E4M3FN>, rowwise|columnwise>
// TN-SAME: on [[$CHIP]]: 3 buffers, 19204 bytes{{$}}
// TN-NEXT: {{^}} data e4m3 [5, 4, 3, 160] 9600 B{{$}}
// TN-NEXT: {{^}} transpose e4m3 [160, 5, 4, 3] transposed 9600 B{{$}}
// TN-NEXT: {{^}} scale_inv f32 [1] 4 B{{$}}
// TN-NOT: {{^ }}
// NONTN-LABEL: !teq.proto<5x4x3x160xf32, #teq.float8_current_scaling_quantizer<f8E4M3FN>, rowwise|columnwise>
// NONTN-SAME: on [[$CHIP]]: 2 buffers, 9604 bytes{{$}}
// NONTN-NEXT: {{^}} data e4m3 [5, 4, 3, 160] 9600 B{{$}}
// NONTN-NEXT: {{^}} scale_inv f32 [1] 4 B{{$}}
// NONTN-NOT: {{^ }}

// TN-LABEL: !teq.proto<303x300xbf16, #teq.float8_quantizer<f8E5M2>, rowwise>
// TN-SAME: on [[$CHIP]]: 2 buffers, 90904 bytes{{$}}
// TN-NEXT: {{^}} data e5m2 [303, 300] 90900 B{{$}}
// TN-NEXT: {{^}} scale_inv f32 [1] 4 B{{$}}
// TN-NOT: {{^ }}
// NONTN-LABEL: !teq.proto<303x300xbf16, #teq.float8_quantizer<f8E5M2>, rowwise>
// NONTN-SAME: on [[$CHIP]]: 2 buffers, 90904 bytes{{$}}
// NONTN-NEXT: {{^}} data e5m2 [303, 300] 90900 B{{$}}
// NONTN-NEXT: {{^}} scale_inv f32 [1] 4 B{{$}}
// NONTN-NOT: {{^ }}

// TN-LABEL: !teq.proto<303x300xbf16, #teq.float8_quantizer<f8E5M2>, columnwise>
// TN-SAME: on [[$CHIP]]: 2 buffers, 90904 bytes{{$}}
// TN-NEXT: {{^}} transpose e5m2 [300, 303] transposed 90900 B{{$}}
// TN-NEXT: {{^}} scale_inv f32 [1] 4 B{{$}}
// TN-NOT: {{^ }}
// NONTN-LABEL: !teq.proto<303x300xbf16, #teq.float8_quantizer<f8E5M2>, columnwise>
// NONTN-SAME: on [[$CHIP]]: 2 buffers, 90904 bytes{{$}}
// NONTN-NEXT: {{^}} data e5m2 [303, 300] 90900 B{{$}}
// NONTN-NEXT: {{^}} scale_inv f32 [1] 4 B{{$}}
// NONTN-NOT: {{^ }}

// TN-LABEL: !teq.proto<303x300xbf16, #teq.float8_quantizer<f8E5M2>, rowwise|columnwise>
// TN-SAME: on [[$CHIP]]: 3 buffers, 181804 bytes{{$}}
// TN-NEXT: {{^}} data e5m2 [303, 300] 90900 B{{$}}
// TN-NEXT: {{^}} transpose e5m2 [300, 303] transposed 90900 B{{$}}
// TN-NEXT: {{^}} scale_inv f32 [1] 4 B{{$}}
// TN-NOT: {{^ }}
// NONTN-LABEL: !teq.proto<303x300xbf16, #teq.float8_quantizer<f8E5M2>, rowwise|columnwise>
// NONTN-SAME: on [[$CHIP]]: 2 buffers, 90904 bytes{{$}}
// NONTN-NEXT: {{^}} data e5m2 [303, 300] 90900 B{{$}}
// NONTN-NEXT: {{^}} scale_inv f32 [1] 4 B{{$}}
// NONTN-NOT: {{^ }}

// TN-LABEL: !teq.proto<1x16xbf16, #teq.float8_quantizer<f8E5M2>, rowwise>
// TN-SAME: on [[$CHIP]]: 2 buffers, 20 bytes{{$}}
// TN-NEXT: {{^}} data e5m2 [1, 16] 16 B{{$}}
// TN-NEXT: {{^}} scale_inv f32 [1] 4 B{{$}}
// TN-NOT: {{^ }}
// NONTN-LABEL: !teq.proto<1x16xbf16, #teq.float8_quantizer<f8E5M2>, rowwise>
// NONTN-SAME: on [[$CHIP]]: 2 buffers, 20 bytes{{$}}
// NONTN-NEXT: {{^}} data e5m2 [1, 16] 16 B{{$}}
// NONTN-NEXT: {{^}} scale_inv f32 [1] 4 B{{$}}
// NONTN-NOT: {{^ }}

// TN-LABEL: !teq.proto<1x16xbf16, #teq.float8_quantizer<f8E5M2>, columnwise>
// TN-SAME: on [[$CHIP]]: 2 buffers, 20 bytes{{$}}
// TN-NEXT: {{^}} transpose e5m2 [16, 1] transposed 16 B{{$}}
// TN-NEXT: {{^}} scale_inv f32 [1] 4 B{{$}}
// TN-NOT: {{^ }}
// NONTN-LABEL: !teq.proto<1x16xbf16, #teq.float8_quantizer<f8E5M2>, columnwise>
// NONTN-SAME: on [[$CHIP]]: 2 buffers, 20 bytes{{$}}
// NONTN-NEXT: {{^}} data e5m2 [1, 16] 16 B{{$}}
// NONTN-NEXT: {{^}} scale_inv f32 [1] 4 B{{$}}
// NONTN-NOT: {{^ }}

// TN-LABEL: !teq.proto<1x16xbf16, #teq.float8_quantizer<f8E5M2>, rowwise|columnwise>
// TN-SAME: on [[$CHIP]]: 3 buffers, 36 bytes{{$}}
// TN-NEXT: {{^}} data e5m2 [1, 16] 16 B{{$}}
// TN-NEXT: {{^}} transpose e5m2 [16, 1] transposed 16 B{{$}}
// TN-NEXT: {{^}} scale_inv f32 [1] 4 B{{$}}
// TN-NOT: {{^ }}
// NONTN-LABEL: !teq.proto<1x16xbf16, #teq.float8_quantizer<f8E5M2>, rowwise|columnwise>
// NONTN-SAME: on [[$CHIP]]: 2 buffers, 20 bytes{{$}}
// NONTN-NEXT: {{^}} data e5m2 [1, 16] 16 B{{$}}
// NONTN-NEXT: {{^}} scale_inv f32 [1] 4 B{{$}}
// NONTN-NOT: {{^ }}

// TN-LABEL: !teq.proto<2333x1xf16, #teq.float8_quantizer<f8E5M2>, rowwise>
// TN-SAME: on [[$CHIP]]: 2 buffers, 2337 bytes{{$}}
// TN-NEXT: {{^}} data e5m2 [2333, 1] 2333 B{{$}}
// TN-NEXT: {{^}} scale_inv f32 [1] 4 B{{$}}
// TN-NOT: {{^ }}
// NONTN-LABEL: !teq.proto<2333x1xf16, #teq.float8_quantizer<f8E5M2>, rowwise>
// NONTN-SAME: on [[$CHIP]]: 2 buffers, 2337 bytes{{$}}
// NONTN-NEXT: {{^}} data e5m2 [2333, 1] 2333 B{{$}}
// NONTN-NEXT: {{^}} scale_inv f32 [1] 4 B{{$}}
// NONTN-NOT: {{^ }}

// TN-LABEL: !teq.proto<2333x1xf16, #teq.float8_quantizer<f8E5M2>, columnwise>
// TN-SAME: on [[$CHIP]]: 2 buffers, 2337 bytes{{$}}
// TN-NEXT: {{^}} transpose e5m2 [1, 2333] transposed 2333 B{{$}}
// TN-NEXT: {{^}} scale_inv f32 [1] 4 B{{$}}
// TN-NOT: {{^ }}
// NONTN-LABEL: !teq.proto<2333x1xf16, #teq.float8_quantizer<f8E5M2>, columnwise>
// NONTN-SAME: on [[$CHIP]]: 2 buffers, 2337 bytes{{$}}
// NONTN-NEXT: {{^}} data e5m2 [2333, 1] 2333 B{{$}}
// NONTN-NEXT: {{^}} scale_inv f32 [1] 4 B{{$}}
// NONTN-NOT: {{^ }}

// TN-LABEL: !teq.proto<2333x1xf16, #teq.float8_quantizer<f8E5M2>, rowwise|columnwise>
// TN-SAME: on [[$CHIP]]: 3 buffers, 4670 bytes{{$}}
// TN-NEXT: {{^}} data e5m2 [2333, 1] 2333 B{{$}}
// TN-NEXT: {{^}} transpose e5m2 [1, 2333] transposed 2333 B{{$}}
// TN-NEXT: {{^}} scale_inv f32 [1] 4 B{{$}}
// TN-NOT: {{^ }}
// NONTN-LABEL: !teq.proto<2333x1xf16, #teq.float8_quantizer<f8E5M2>, rowwise|columnwise>
// NONTN-SAME: on [[$CHIP]]: 2 buffers, 2337 bytes{{$}}
// NONTN-NEXT: {{^}} data e5m2 [2333, 1] 2333 B{{$}}
// NONTN-NEXT: {{^}} scale_inv f32 [1] 4 B{{$}}
// NONTN-NOT: {{^ }}

// TN-LABEL: !teq.proto<993x512xbf16, #teq.float8_quantizer<f8E5M2>, rowwise>
// TN-SAME: on [[$CHIP]]: 2 buffers, 508420 bytes{{$}}
// TN-NEXT: {{^}} data e5m2 [993, 512] 508416 B{{$}}
// TN-NEXT: {{^}} scale_inv f32 [1] 4 B{{$}}
// TN-NOT: {{^ }}
// NONTN-LABEL: !teq.proto<993x512xbf16, #teq.float8_quantizer<f8E5M2>, rowwise>
// NONTN-SAME: on [[$CHIP]]: 2 buffers, 508420 bytes{{$}}
// NONTN-NEXT: {{^}} data e5m2 [993, 512] 508416 B{{$}}
// NONTN-NEXT: {{^}} scale_inv f32 [1] 4 B{{$}}
// NONTN-NOT: {{^ }}

// TN-LABEL: !teq.proto<993x512xbf16, #teq.float8_quantizer<f8E5M2>, columnwise>
// TN-SAME: on [[$CHIP]]: 2 buffers, 508420 bytes{{$}}
// TN-NEXT: {{^}} transpose e5m2 [512, 993] transposed 508416 B{{$}}
// TN-NEXT: {{^}} scale_inv f32 [1] 4 B{{$}}
// TN-NOT: {{^ }}
// NONTN-LABEL: !teq.proto<993x512xbf16, #teq.float8_quantizer<f8E5M2>, columnwise>
// NONTN-SAME: on [[$CHIP]]: 2 buffers, 508420 bytes{{$}}
// NONTN-NEXT: {{^}} data e5m2 [993, 512] 508416 B{{$}}
// NONTN-NEXT: {{^}} scale_inv f32 [1] 4 B{{$}}
// NONTN-NOT: {{^ }}

// TN-LABEL: !teq.proto<993x512xbf16, #teq.float8_quantizer<f8E5M2>, rowwise|columnwise>
// TN-SAME: on [[$CHIP]]: 3 buffers, 1016836 bytes{{$}}
// TN-NEXT: {{^}} data e5m2 [993, 512] 508416 B{{$}}
// TN-NEXT: {{^}} transpose e5m2 [512, 993] transposed 508416 B{{$}}
// TN-NEXT: {{^}} scale_inv f32 [1] 4 B{{$}}
// TN-NOT: {{^ }}
// NONTN-LABEL: !teq.proto<993x512xbf16, #teq.float8_quantizer<f8E5M2>, rowwise|columnwise>
// NONTN-SAME: on [[$CHIP]]: 2 buffers, 508420 bytes{{$}}
// NONTN-NEXT: {{^}} data e5m2 [993, 512] 508416 B{{$}}
// NONTN-NEXT: {{^}} scale_inv f32 [1] 4 B{{$}}
// NONTN-NOT: {{^ }}

// TN-LABEL: !teq.proto<300x256xbf16, #teq.float8_quantizer<f8E5M2>, rowwise>
// TN-SAME: on [[$CHIP]]: 2 buffers, 76804 bytes{{$}}
// TN-NEXT: {{^}} data e5m2 [300, 256] 76800 B{{$}}
// TN-NEXT: {{^}} scale_inv f32 [1] 4 B{{$}}
// TN-NOT: {{^ }}
// NONTN-LABEL: !teq.proto<300x256xbf16, #teq.float8_quantizer<f8E5M2>, rowwise>
// NONTN-SAME: on [[$CHIP]]: 2 buffers, 76804 bytes{{$}}
// NONTN-NEXT: {{^}} data e5m2 [300, 256] 76800 B{{$}}
// NONTN-NEXT: {{^}} scale_inv f32 [1] 4 B{{$}}
// NONTN-NOT: {{^ }}

// TN-LABEL: !teq.proto<300x256xbf16, #teq.float8_quantizer<f8E5M2>, columnwise>
// TN-SAME: on [[$CHIP]]: 2 buffers, 76804 bytes{{$}}
// TN-NEXT: {{^}} transpose e5m2 [256, 300] transposed 76800 B{{$}}
// TN-NEXT: {{^}} scale_inv f32 [1] 4 B{{$}}
// TN-NOT: {{^ }}
// NONTN-LABEL: !teq.proto<300x256xbf16, #teq.float8_quantizer<f8E5M2>, columnwise>
// NONTN-SAME: on [[$CHIP]]: 2 buffers, 76804 bytes{{$}}
// NONTN-NEXT: {{^}} data e5m2 [300, 256] 76800 B{{$}}
// NONTN-NEXT: {{^}} scale_inv f32 [1] 4 B{{$}}
// NONTN-NOT: {{^ }}

// TN-LABEL: !teq.proto<300x256xbf16, #teq.float8_quantizer<f8E5M2>, rowwise|columnwise>
// TN-SAME: on [[$CHIP]]: 3 buffers, 153604 bytes{{$}}
// TN-NEXT: {{^}} data e5m2 [300, 256] 76800 B{{$}}
// TN-NEXT: {{^}} transpose e5m2 [256, 300] transposed 76800 B{{$}}
// TN-NEXT: {{^}} scale_inv f32 [1] 4 B{{$}}
// TN-NOT: {{^ }}
// NONTN-LABEL: !teq.proto<300x256xbf16, #teq.float8_quantizer<f8E5M2>, rowwise|columnwise>
// NONTN-SAME: on [[$CHIP]]: 2 buffers, 76804 bytes{{$}}
// NONTN-NEXT: {{^}} data e5m2 [300, 256] 76800 B{{$}}
// NONTN-NEXT: {{^}} scale_inv f32 [1] 4 B{{$}}
// NONTN-NOT: {{^ }}

// TN-LABEL: !teq.proto<128x256xbf16, #teq.float8_quantizer<f8E5M2>, rowwise>
// TN-SAME: on [[$CHIP]]: 2 buffers, 32772 bytes{{$}}
// TN-NEXT: {{^}} data e5m2 [128, 256] 32768 B{{$}}
// TN-NEXT: {{^}} scale_inv f32 [1] 4 B{{$}}
// TN-NOT: {{^ }}
// NONTN-LABEL: !teq.proto<128x256xbf16, #teq.float8_quantizer<f8E5M2>, rowwise>
// NONTN-SAME: on [[$CHIP]]: 2 buffers, 32772 bytes{{$}}
// NONTN-NEXT: {{^}} data e5m2 [128, 256] 32768 B{{$}}
// NONTN-NEXT: {{^}} scale_inv f32 [1] 4 B{{$}}
// NONTN-NOT: {{^ }}

// TN-LABEL: !teq.proto<128x256xbf16, #teq.float8_quantizer<f8E5M2>, columnwise>
// TN-SAME: on [[$CHIP]]: 2 buffers, 32772 bytes{{$}}
// TN-NEXT: {{^}} transpose e5m2 [256, 128] transposed 32768 B{{$}}
// TN-NEXT: {{^}} scale_inv f32 [1] 4 B{{$}}
// TN-NOT: {{^ }}
// NONTN-LABEL: !teq.proto<128x256xbf16, #teq.float8_quantizer<f8E5M2>, columnwise>
// NONTN-SAME: on [[$CHIP]]: 2 buffers, 32772 bytes{{$}}
// NONTN-NEXT: {{^}} data e5m2 [128, 256] 32768 B{{$}}
// NONTN-NEXT: {{^}} scale_inv f32 [1] 4 B{{$}}
// NONTN-NOT: {{^ }}

// TN-LABEL: !teq.proto<128x256xbf16, #teq.float8_quantizer<f8E5M2>, rowwise|columnwise>
// TN-SAME: on [[$CHIP]]: 3 buffers, 65540 bytes{{$}}
// TN-NEXT: {{^}} data e5m2 [128, 256] 32768 B{{$}}
// TN-NEXT: {{^}} transpose e5m2 [256, 128] transposed 32768 B{{$}}
// TN-NEXT: {{^}} scale_inv f32 [1] 4 B{{$}}
// TN-NOT: {{^ }}
// NONTN-LABEL: !teq.proto<128x256xbf16, #teq.float8_quantizer<f8E5M2>, rowwise|columnwise>
// NONTN-SAME: on [[$CHIP]]: 2 buffers, 32772 bytes{{$}}
// NONTN-NEXT: {{^}} data e5m2 [128, 256] 32768 B{{$}}
// NONTN-NEXT: {{^}} scale_inv f32 [1] 4 B{{$}}
// NONTN-NOT: {{^ }}

// TN-LABEL: !teq.proto<256x272xbf16, #teq.float8_quantizer<f8E5M2>, rowwise>
// TN-SAME: on [[$CHIP]]: 2 buffers, 69636 bytes{{$}}
// TN-NEXT: {{^}} data e5m2 [256, 272] 69632 B{{$}}
// TN-NEXT: {{^}} scale_inv f32 [1] 4 B{{$}}
// TN-NOT: {{^ }}
// NONTN-LABEL: !teq.proto<256x272xbf16, #teq.float8_quantizer<f8E5M2>, rowwise>
// NONTN-SAME: on [[$CHIP]]: 2 buffers, 69636 bytes{{$}}
// NONTN-NEXT: {{^}} data e5m2 [256, 272] 69632 B{{$}}
// NONTN-NEXT: {{^}} scale_inv f32 [1] 4 B{{$}}
// NONTN-NOT: {{^ }}

// TN-LABEL: !teq.proto<256x272xbf16, #teq.float8_quantizer<f8E5M2>, columnwise>
// TN-SAME: on [[$CHIP]]: 2 buffers, 69636 bytes{{$}}
// TN-NEXT: {{^}} transpose e5m2 [272, 256] transposed 69632 B{{$}}
// TN-NEXT: {{^}} scale_inv f32 [1] 4 B{{$}}
// TN-NOT: {{^ }}
// NONTN-LABEL: !teq.proto<256x272xbf16, #teq.float8_quantizer<f8E5M2>, columnwise>
// NONTN-SAME: on [[$CHIP]]: 2 buffers, 69636 bytes{{$}}
// NONTN-NEXT: {{^}} data e5m2 [256, 272] 69632 B{{$}}
// NONTN-NEXT: {{^}} scale_inv f32 [1] 4 B{{$}}
// NONTN-NOT: {{^ }}

// TN-LABEL: !teq.proto<256x272xbf16, #teq.float8_quantizer<f8E5M2>, rowwise|columnwise>
// TN-SAME: on [[$CHIP]]: 3 buffers, 139268 bytes{{$}}
// TN-NEXT: {{^}} data e5m2 [256, 272] 69632 B{{$}}
// TN-NEXT: {{^}} transpose e5m2 [272, 256] transposed 69632 B{{$}}
// TN-NEXT: {{^}} scale_inv f32 [1] 4 B{{$}}
// TN-NOT: {{^ }}
// NONTN-LABEL: !teq.proto<256x272xbf16, #teq.float8_quantizer<f8E5M2>, rowwise|columnwise>
// NONTN-SAME: on [[$CHIP]]: 2 buffers, 69636 bytes{{$}}
// NONTN-NEXT: {{^}} data e5m2 [256, 272] 69632 B{{$}}
// NONTN-NEXT: {{^}} scale_inv f32 [1] 4 B{{$}}
// NONTN-NOT: {{^ }}

// TN-LABEL: !teq.proto<5x4x3x160xf32, #teq.float8_quantizer<f8E5M2>, rowwise>
// TN-SAME: on [[$CHIP]]: 2 buffers, 9604 bytes{{$}}
// TN-NEXT: {{^}} data e5m2 [5, 4, 3, 160] 9600 B{{$}}
// TN-NEXT: {{^}} scale_inv f32 [1] 4 B{{$}}
// TN-NOT: {{^ }}
// NONTN-LABEL: !teq.proto<5x4x3x160xf32, #teq.float8_quantizer<f8E5M2>, rowwise>
// NONTN-SAME: on [[$CHIP]]: 2 buffers, 9604 bytes{{$}}
// NONTN-NEXT: {{^}} data e5m2 [5, 4, 3, 160] 9600 B{{$}}
// NONTN-NEXT: {{^}} scale_inv f32 [1] 4 B{{$}}
// NONTN-NOT: {{^ }}

// TN-LABEL: !teq.proto<5x4x3x160xf32, #teq.float8_quantizer<f8E5M2>, columnwise>
// TN-SAME: on [[$CHIP]]: 2 buffers, 9604 bytes{{$}}
// TN-NEXT: {{^}} transpose e5m2 [160, 5, 4, 3] transposed 9600 B{{$}}
// TN-NEXT: {{^}} scale_inv f32 [1] 4 B{{$}}
// TN-NOT: {{^ }}
// NONTN-LABEL: !teq.proto<5x4x3x160xf32, #teq.float8_quantizer<f8E5M2>, columnwise>
// NONTN-SAME: on [[$CHIP]]: 2 buffers, 9604 bytes{{$}}
// NONTN-NEXT: {{^}} data e5m2 [5, 4, 3, 160] 9600 B{{$}}
// NONTN-NEXT: {{^}} scale_inv f32 [1] 4 B{{$}}
// NONTN-NOT: {{^ }}

// TN-LABEL: !teq.proto<5x4x3x160xf32, #teq.float8_quantizer<f8E5M2>, rowwise|columnwise>
// TN-SAME: on [[$CHIP]]: 3 buffers, 19204 bytes{{$}}
// TN-NEXT: {{^}} data e5m2 [5, 4, 3, 160] 9600 B{{$}}
// TN-NEXT: {{^}} transpose e5m2 [160, 5, 4, 3] transposed 9600 B{{$}}
// TN-NEXT: {{^}} scale_inv f32 [1] 4 B{{$}}
// TN-NOT: {{^ }}
// NONTN-LABEL: !teq.proto<5x4x3x160xf32, #teq.float8_quantizer<f8E5M2>, rowwise|columnwise>
// NONTN-SAME: on [[$CHIP]]: 2 buffers, 9604 bytes{{$}}
// NONTN-NEXT: {{^}} data e5m2 [5, 4, 3, 160] 9600 B{{$}}
// NONTN-NEXT: {{^}} scale_inv f32 [1] 4 B{{$}}
// NONTN-NOT: {{^ }}
