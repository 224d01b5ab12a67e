// te-compile: NVFP4 lowers to an amax pass whose last block writes both
// amax buffers and the S_enc / encode-multiplier constants, then one data
// kernel over 64x64 tiles (both usages from one read of x); swizzled scale
// padding is zeroed first.
// Stochastic rounding passes the rng_state buffer (seed, offset) to it.
// RUN: te-compile %s --emit=mlir | FileCheck %s --check-prefix=MLIR
// RUN: te-compile %s --emit=ptx | FileCheck %s --check-prefix=PTX
// RUN: te-compile %s --emit=mlir | FileCheck %s --check-prefix=MANIFEST

module attributes {teq.target = #teq.target<sm_90>} {
  func.func @quantize(%x: tensor<64x128xbf16>) -> !teq.proto<64x128xbf16, #teq.nvfp4_quantizer<f4E2M1FN>, rowwise|columnwise, gemm_swizzled> {
    %q = teq.quantize %x : tensor<64x128xbf16> -> !teq.proto<64x128xbf16, #teq.nvfp4_quantizer<f4E2M1FN>, rowwise|columnwise, gemm_swizzled>
    return %q : !teq.proto<64x128xbf16, #teq.nvfp4_quantizer<f4E2M1FN>, rowwise|columnwise, gemm_swizzled>
  }
  func.func @quantize_rht(%x: tensor<64x128xbf16>) -> !teq.proto<64x128xbf16, #teq.nvfp4_quantizer<f4E2M1FN, with_rht = true, with_post_rht_amax = true>, rowwise|columnwise> {
    %q = teq.quantize %x : tensor<64x128xbf16> -> !teq.proto<64x128xbf16, #teq.nvfp4_quantizer<f4E2M1FN, with_rht = true, with_post_rht_amax = true>, rowwise|columnwise>
    return %q : !teq.proto<64x128xbf16, #teq.nvfp4_quantizer<f4E2M1FN, with_rht = true, with_post_rht_amax = true>, rowwise|columnwise>
  }
  func.func @quantize_sr(%x: tensor<64x128xbf16>, %rng: tensor<2xi64>) -> !teq.proto<64x128xbf16, #teq.nvfp4_quantizer<f4E2M1FN, with_rht = true, with_post_rht_amax = true, stochastic_rounding = true>, rowwise|columnwise> {
    %q = teq.quantize %x rng_state(%rng : tensor<2xi64>) : tensor<64x128xbf16> -> !teq.proto<64x128xbf16, #teq.nvfp4_quantizer<f4E2M1FN, with_rht = true, with_post_rht_amax = true, stochastic_rounding = true>, rowwise|columnwise>
    return %q : !teq.proto<64x128xbf16, #teq.nvfp4_quantizer<f4E2M1FN, with_rht = true, with_post_rht_amax = true, stochastic_rounding = true>, rowwise|columnwise>
  }
}

// The rng_state is an i64[2] input; the manifest says which argument the
// quantization drew its random bits from.
// MANIFEST: \22dependent_launch_kernels\22:[\22q0_nvfp4\22,\22q1_nvfp4\22,\22q2_nvfp4\22]
// MANIFEST: \22name\22:\22arg1\22,\22tensor\22:{\22dtype\22:\22i64\22,\22shape\22:[2]}
// MANIFEST-SAME: \22computed_by\22:{\22input\22:\22arg0\22,\22op\22:\22quantize\22,\22rng_state\22:\22arg1\22}

// Buffers (te-semantics.md §4.4): rowwise data [64, 64] and scales
// [128, 8], columnwise data [128, 32] and scales [128, 4], two amaxes.
// MLIR-LABEL: func.func @quantize(
// MLIR-SAME: %[[X:.*]]: memref<8192xbf16>, %[[RD:.*]]: memref<4096xi8>, %[[RS:.*]]: memref<1024xi8>, %[[CD:.*]]: memref<4096xi8>, %[[CS:.*]]: memref<512xi8>, %[[RA:.*]]: memref<1xf32>, %[[CA:.*]]: memref<1xf32>) attributes {teq.entry}
// MLIR: @teq_kernels::@q0_zero_rs {{.*}} args(%[[RS]] : memref<1024xi8>)
// The columnwise scales [128, 4] have no padding: no zero fill.
// MLIR-NOT: @teq_kernels::@q0_zero_cs
// One amax pass; its last block writes both amaxes (no finalize kernel).
// MLIR: @teq_kernels::@q0_amax {{.*}} args(%[[X]] : memref<8192xbf16>, %[[RA]] : memref<1xf32>, %[[CA]] : memref<1xf32>)
// MLIR-NOT: @teq_kernels::@q0_nvfp4_amax
// The data kernel takes S_enc from the amax pass's constants, not the amaxes.
// MLIR: @teq_kernels::@q0_nvfp4 blocks in (%{{.*}}, %{{.*}}, %{{.*}}) {{.*}} args(%[[X]] : memref<8192xbf16>, %[[RD]] : memref<4096xi8>, %[[RS]] : memref<1024xi8>, %[[CD]] : memref<4096xi8>, %[[CS]] : memref<512xi8>)

// With RHT the columnwise amax is the transformed copy's: the plain amax
// goes to the rowwise buffer only.
// MLIR-LABEL: func.func @quantize_rht(
// MLIR-SAME: %[[X:.*]]: memref<8192xbf16>, %{{.*}}: memref<4096xi8>, %{{.*}}: memref<1024xi8>, %{{.*}}: memref<4096xi8>, %{{.*}}: memref<512xi8>, %[[RA:.*]]: memref<1xf32>, %[[CA:.*]]: memref<1xf32>) attributes {teq.entry}
// One pass over x computes both and writes them.
// MLIR-NOT: @teq_kernels::@q1_amax
// MLIR: @teq_kernels::@q1_rht_amax {{.*}} args(%[[X]] : memref<8192xbf16>, %[[CA]] : memref<1xf32>, %[[RA]] : memref<1xf32>)
// MLIR-NOT: @teq_kernels::@q1_nvfp4_amax
// MLIR: @teq_kernels::@q1_nvfp4 {{.*}} args(%[[X]] : memref<8192xbf16>, %{{.*}} : memref<4096xi8>, %{{.*}} : memref<1024xi8>, %{{.*}} : memref<4096xi8>, %{{.*}} : memref<512xi8>)

// Stochastic rounding: the data kernel reads the rng_state buffer.
// MLIR-LABEL: func.func @quantize_sr(
// MLIR-SAME: %[[X:.*]]: memref<8192xbf16>, %[[RNG:.*]]: memref<2xi64>, %[[RD:.*]]: memref<4096xi8>, %[[RS:.*]]: memref<1024xi8>, %[[CD:.*]]: memref<4096xi8>, %[[CS:.*]]: memref<512xi8>, %[[RA:.*]]: memref<1xf32>, %[[CA:.*]]: memref<1xf32>) attributes {teq.entry}
// MLIR: @teq_kernels::@q2_nvfp4 {{.*}} args(%[[X]] : memref<8192xbf16>, %[[RD]] : memref<4096xi8>, %[[RS]] : memref<1024xi8>, %[[CD]] : memref<4096xi8>, %[[CS]] : memref<512xi8>, %[[RNG]] : memref<2xi64>)

// S_enc = 2688 / amax and the encode multipliers divide with IEEE rounding
// once, in the amax pass's last block (after its count of blocks done), into
// the constants the data kernel reads; block scales use the hardware E4M3
// RNE + satfinite conversion; no libdevice calls.
// On sm_90 each data kernel is a programmatic dependent of its amax pass:
// the pass signals at its start, the data kernel stages its tile and waits
// before reading the constants; the manifest lists it for the runtime.
// PTX-LABEL: .visible .entry q0_amax(
// PTX: griddepcontrol.launch_dependents;
// PTX: atom.global.add.u32 {{.*}}[q0_amax_count]
// PTX: bar.sync
// PTX: div.rn.f32
// PTX: mov.b64 {{.*}}, q0_nvfp4_consts;
// PTX: st.global
// The tile is staged with 16-byte loads, the data written 8 bytes a store;
// no division: the encode multipliers are looked up.
// Round to nearest on whole tiles: capped at 32 registers (eight blocks an
// SM).
// PTX-LABEL: .visible .entry q0_nvfp4(
// PTX: .maxnreg 32
// PTX: ld.global.v4
// PTX: st.shared.v4
// PTX: griddepcontrol.wait;
// PTX-NEXT: setp
// PTX-NOT: div.rn.f32
// PTX-NOT: rcp.rn.f32
// PTX: bar.sync
// PTX: cvt.rn.satfinite.e4m3x2.f32
// PTX: st.global.v2.b32
// PTX: cvt.rn.satfinite.e4m3x2.f32
// PTX: st.global.v2.b32
// PTX-NOT: call
// The RHT amax pass transforms without the 0.25 and the BF16 roundings and
// rounds the thread's max once; only where the plain amax reaches 2^123
// (0f7D000000) does it redo its groups exactly, rounding the transformed
// values to BF16 like TE's Hadamard output, two at a time.
// PTX-LABEL: .visible .entry q1_rht_amax(
// PTX-NOT: cvt.rn.bf16x2.f32
// PTX: cvt.rn.bf16.f32
// PTX-NOT: cvt.rn.bf16x2.f32
// PTX: setp.lt.f32 %p{{[0-9]+}}, %r{{[0-9]+}}, 0f7D000000;
// PTX: cvt.rn.bf16x2.f32
// PTX-LABEL: .visible .entry q1_nvfp4(
// Philox4x32-10's 32x32->64 products are wide multiplies; the SR decision
// frac * 2^32 > random is an exact f64 comparison; still no libdevice.
// PTX-LABEL: .visible .entry q2_nvfp4(
// PTX: mul.wide.u32
// PTX: setp.gt.f64
// PTX-NOT: call
