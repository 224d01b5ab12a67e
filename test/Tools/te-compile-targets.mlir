// Every target the dialect accepts compiles with a PTX version LLVM's NVPTX
// backend accepts for it and that has the kernels' instructions (sm_89: FP8
// conversions need PTX 8.1), or is refused with the list of targets; no
// LLVM abort.
// RUN: te-compile %s --target=sm_89 --emit=ptx | FileCheck %s --check-prefix=SM89
// RUN: te-compile %s --target=sm_90 --emit=ptx | FileCheck %s --check-prefix=SM90
// RUN: te-compile %s --target=sm_90a --emit=ptx | FileCheck %s --check-prefix=SM90A
// RUN: te-compile %s --target=sm_100 --emit=ptx | FileCheck %s --check-prefix=SM100
// RUN: te-compile %s --target=sm_100f --emit=ptx | FileCheck %s --check-prefix=SM100F
// RUN: te-compile %s --target=sm_101 --emit=ptx | FileCheck %s --check-prefix=SM101
// RUN: te-compile %s --target=sm_103 --emit=ptx | FileCheck %s --check-prefix=SM103
// RUN: te-compile %s --target=sm_110 --emit=ptx | FileCheck %s --check-prefix=SM110
// RUN: te-compile %s --target=sm_120 --emit=ptx | FileCheck %s --check-prefix=SM120
// RUN: te-compile %s --target=sm_121 --emit=ptx | FileCheck %s --check-prefix=SM121
// RUN: not te-compile %s --target=sm_95 --emit=ptx 2>&1 | FileCheck %s --check-prefix=SM95
// RUN: not te-compile %s --target=sm_130 --emit=ptx 2>&1 | FileCheck %s --check-prefix=SM130
// RUN: not te-compile %s --target=sm_89a --emit=ptx 2>&1 | FileCheck %s --check-prefix=SM89A

module {
  func.func @q(%x: tensor<128x256xbf16>) -> !teq.proto<128x256xbf16, #teq.float8_current_scaling_quantizer<f8E4M3FN>, rowwise|columnwise> {
    %q = teq.quantize %x : tensor<128x256xbf16> -> !teq.proto<128x256xbf16, #teq.float8_current_scaling_quantizer<f8E4M3FN>, rowwise|columnwise>
    return %q : !teq.proto<128x256xbf16, #teq.float8_current_scaling_quantizer<f8E4M3FN>, rowwise|columnwise>
  }
}

// SM89: .version 8.1
// SM89: .target sm_89
// SM89: cvt.rn.satfinite.e4m3x2.f32
// SM90: .version 8.0
// SM90: .target sm_90
// SM90A: .version 8.0
// SM90A: .target sm_90a
// SM100: .version 8.6
// SM100: .target sm_100
// SM100F: .version 8.8
// SM100F: .target sm_100f
// SM101: .version 8.6
// SM101: .target sm_101
// SM103: .version 8.8
// SM103: .target sm_103
// SM110: .version 9.0
// SM110: .target sm_110
// SM120: .version 8.7
// SM120: .target sm_120
// SM121: .version 8.8
// SM121: .target sm_121
// SM95: error: teq cannot generate GPU code for sm_95 (LLVM's NVPTX backend has no such target); it compiles for sm_89, sm_90, sm_90a, sm_100, sm_100a, sm_100f, sm_101, sm_101a, sm_101f, sm_103, sm_103a, sm_103f, sm_110, sm_110a, sm_110f, sm_120, sm_120a, sm_120f, sm_121, sm_121a, sm_121f{{$}}
// SM130: error: teq cannot generate GPU code for sm_130
// SM89A: error: teq cannot generate GPU code for sm_89a
