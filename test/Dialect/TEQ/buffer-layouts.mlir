// Buffer layouts depend on the GPU (te-semantics.md §2, §4.1), so
// --teq-print-buffer-layouts needs a target: the module's #teq.target or the
// pass option target=sm_XX. The layouts of each format are checked in
// buffer-layouts-{fp8,block,mxfp8,nvfp4}.mlir, the shapes NVFP4 cannot lay
// out in buffer-layouts-invalid.mlir.

// No #teq.target and no option: the pass fails and prints nothing.
// RUN: not te-opt %s --teq-print-buffer-layouts -o /dev/null 2>&1 | FileCheck %s --check-prefix=NOTARGET
// NOTARGET-NOT: buffers,
// NOTARGET: error: no #teq.target on the module: buffer layouts depend on the GPU; add attributes {teq.target = #teq.target<sm_90>} or pass target=sm_90
// NOTARGET-NOT: buffers,

// A malformed or unknown target option fails too.
// RUN: not te-opt %s --teq-print-buffer-layouts=target=sm_1 -o /dev/null 2>&1 | FileCheck %s --check-prefix=BADSM
// BADSM-NOT: buffers,
// BADSM: error: invalid target option 'sm_1'; expected e.g. sm_90 or sm_100
// BADSM-NOT: buffers,
// RUN: not te-opt %s --teq-print-buffer-layouts=target=foo -o /dev/null 2>&1 | FileCheck %s --check-prefix=BADNAME
// BADNAME-NOT: buffers,
// BADNAME: error: invalid target option 'foo'; expected e.g. sm_90 or sm_100
// BADNAME-NOT: buffers,

// The option stands in for the missing attribute.
// RUN: te-opt %s --teq-print-buffer-layouts=target=sm_100 -o /dev/null | FileCheck %s --check-prefix=OPTION
// OPTION-LABEL: !teq.proto<128x256xbf16, #teq.float8_current_scaling_quantizer<f8E4M3FN>, columnwise>
// OPTION-SAME: on sm_100: 2 buffers, 32772 bytes{{$}}
// OPTION-NEXT: {{^}} data e4m3 [128, 256] 32768 B{{$}}
// OPTION-NEXT: {{^}} scale_inv f32 [1] 4 B{{$}}
// OPTION-NOT: {{^ }}

module {
  func.func @f(%x: !teq.proto<128x256xbf16, #teq.float8_current_scaling_quantizer<f8E4M3FN>, columnwise>) {
    return
  }
}
