// On arch-specific Blackwell targets (sm_100a) the E8M0 scales of MXFP8 and
// the round-to-nearest E2M1 values of NVFP4 use the hardware conversions TE
// uses there; on sm_100 (and sm_90) exact software conversions stand in.
// Stochastic rounding stays in software everywhere (the reference's rule).
// RUN: te-compile %s --emit=ptx | FileCheck %s --check-prefix=HW
// RUN: sed -e "s/sm_100a>/sm_100>/" %s | te-compile - --emit=ptx | FileCheck %s --check-prefix=SW

module attributes {teq.target = #teq.target<sm_100a>} {
  func.func @mx(%x: tensor<128x128xbf16>) -> !teq.proto<128x128xbf16, #teq.mxfp8_quantizer<f8E4M3FN>, rowwise|columnwise> {
    %q = teq.quantize %x : tensor<128x128xbf16> -> !teq.proto<128x128xbf16, #teq.mxfp8_quantizer<f8E4M3FN>, rowwise|columnwise>
    return %q : !teq.proto<128x128xbf16, #teq.mxfp8_quantizer<f8E4M3FN>, rowwise|columnwise>
  }
  func.func @nv(%x: tensor<128x128xbf16>) -> !teq.proto<128x128xbf16, #teq.nvfp4_quantizer<f4E2M1FN>, rowwise|columnwise> {
    %q = teq.quantize %x : tensor<128x128xbf16> -> !teq.proto<128x128xbf16, #teq.nvfp4_quantizer<f4E2M1FN>, rowwise|columnwise>
    return %q : !teq.proto<128x128xbf16, #teq.nvfp4_quantizer<f4E2M1FN>, rowwise|columnwise>
  }
}

// HW: .target sm_100a
// HW-DAG: cvt.rp.satfinite.ue8m0x2.f32
// HW-DAG: cvt.rn.satfinite.e2m1x2.f32
// SW: .target sm_100
// SW-NOT: ue8m0x2
// SW-NOT: e2m1x2
