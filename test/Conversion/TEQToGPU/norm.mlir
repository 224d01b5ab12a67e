// The norm ops as convert-teq-to-gpu emits them (Kernels/Norm.h): the
// forward one CTA per row (16-byte vectors where n and the buffers allow,
// one element at a time otherwise), block sums as a warp xor butterfly then
// the warps' sums in order, rstd as rsqrt.approx.f32 through NVVM's
// intrinsic; the backward's per-CTA dgamma/dbeta partials in the op's
// scratch and the finalize kernel; each result's computed_by.
// RUN: split-file %s %t
// RUN: te-opt %t/layer-norm.mlir --convert-teq-to-gpu | FileCheck %s --check-prefix=LN
// RUN: te-opt %t/rms-backward.mlir --convert-teq-to-gpu | FileCheck %s --check-prefix=RMSB

//--- layer-norm.mlir
// [256, 1024] bf16: 128 groups of 8 per row, so 128 threads (4 warps), one
// group each; two block sums (mean, then the squared deviations) in slots
// [0, 4) and [4, 8).
module attributes {teq.target = #teq.target<sm_90>} {
  func.func @ln(%x: tensor<256x1024xbf16>, %g: tensor<1024xbf16>, %b: tensor<1024xbf16>)
      -> (tensor<256x1024xbf16>, tensor<256xf32>, tensor<256xf32>) {
    %y, %mean, %rstd = teq.layer_norm %x, %g, %b
        : (tensor<256x1024xbf16>, tensor<1024xbf16>, tensor<1024xbf16>)
        -> (tensor<256x1024xbf16>, tensor<256xf32>, tensor<256xf32>)
    return %y, %mean, %rstd : tensor<256x1024xbf16>, tensor<256xf32>, tensor<256xf32>
  }
}

// LN: computed_by\22:{\22beta\22:\22arg2\22,\22eps\22:9.9999997473787516e-06,\22gamma\22:\22arg1\22,\22op\22:\22layer_norm\22,\22output\22:\22y\22,\22x\22:\22arg0\22,\22zero_centered_gamma\22:false}
// LN-SAME: \22output\22:\22mean\22
// LN-SAME: \22output\22:\22rstd\22

// LN-LABEL: gpu.func @n0_layer_norm(
// LN-SAME: %[[X:[^:]*]]: memref<262144xbf16>, %{{[^:]*}}: memref<1024xbf16>, %{{[^:]*}}: memref<1024xbf16>, %{{[^:]*}}: memref<262144xbf16>, %{{[^:]*}}: memref<256xf32>, %{{[^:]*}}: memref<256xf32>) workgroup(%[[SH:[^ ]*]] : memref<8xf32, #gpu.address_space<workgroup>>) kernel
// LN-SAME: known_block_size = array<i32: 128, 1, 1>
// The 16-byte path where every buffer is aligned.
// LN: scf.if
// LN: vector.load %[[X]][%{{.*}}] {alignment = 16 : i64} : memref<262144xbf16>, vector<8xbf16>
// LN: gpu.shuffle  xor %{{.*}}, %c16_i32
// LN: gpu.shuffle  xor %{{.*}}, %c1_i32
// LN: memref.store %{{.*}}, %[[SH]][
// LN: gpu.barrier
// LN: memref.load %[[SH]][%c3
// The second sum (squared deviations from the mean) in slots 4-7.
// LN: gpu.barrier
// LN: memref.load %[[SH]][%c7
// LN: llvm.call_intrinsic "llvm.nvvm.rsqrt.approx.f"(%{{.*}}) : (f32) -> f32
// LN: arith.truncf %{{.*}} : vector<8xf32> to vector<8xbf16>
// The fallback one element at a time (memref.load, no vector).
// LN: } else {
// LN: memref.load %[[X]][%{{.*}}] : memref<262144xbf16>
// LN: llvm.call_intrinsic "llvm.nvvm.rsqrt.approx.f"
// LN-LABEL: func.func @ln(
// LN: gpu.launch_func async [%{{.*}}] @teq_kernels::@n0_layer_norm blocks in (%c256, %c1{{.*}}, %c1{{.*}}) threads in (%c128,

//--- rms-backward.mlir
// [96, 1002] bf16, 1002 not a multiple of 8: one element at a time only;
// 1002 groups -> 512 threads, 2 elements each. f32 gamma (and dgamma) with
// zero_centered_gamma. The first level runs min(96, 132 * 2) = 96 CTAs, one
// row each; its partials are 96 x 1002 f32 (384768 bytes of workspace);
// the finalize kernel has ceil(1002 / 256) = 4 CTAs.
module attributes {teq.target = #teq.target<sm_90>} {
  func.func @rmsb(%dy: tensor<96x1002xbf16>, %x: tensor<96x1002xbf16>, %rstd: tensor<96xf32>, %g: tensor<1002xf32>)
      -> (tensor<96x1002xbf16>, tensor<1002xf32>) {
    %dx, %dg = teq.rms_norm_backward %dy, %x, %rstd, %g {zero_centered_gamma}
        : (tensor<96x1002xbf16>, tensor<96x1002xbf16>, tensor<96xf32>, tensor<1002xf32>)
        -> (tensor<96x1002xbf16>, tensor<1002xf32>)
    return %dx, %dg : tensor<96x1002xbf16>, tensor<1002xf32>
  }
}

// RMSB: computed_by\22:{\22dy\22:\22arg0\22,\22gamma\22:\22arg3\22,\22op\22:\22rms_norm_backward\22,\22output\22:\22dx\22,\22rstd\22:\22arg2\22,\22x\22:\22arg1\22,\22zero_centered_gamma\22:true}
// RMSB-SAME: \22output\22:\22dgamma\22
// RMSB-SAME: workspace_bytes\22:384768}

// RMSB-LABEL: gpu.func @n0_rms_norm_bwd(
// RMSB-SAME: memref<96192xbf16>, %{{[^:]*}}: memref<96192xbf16>, %{{[^:]*}}: memref<96xf32>, %{{[^:]*}}: memref<1002xf32>, %{{[^:]*}}: memref<96192xbf16>, %[[PART:[^:]*]]: memref<96192xf32>)
// RMSB-SAME: known_block_size = array<i32: 512, 1, 1>
// RMSB-NOT: vector.load
// gamma + 1 (zero_centered_gamma), loaded once before the rows.
// RMSB: %[[ONE:.*]] = arith.constant 1.000000e+00 : f32
// RMSB: %[[ONES:.*]] = vector.broadcast %[[ONE]] : f32 to vector<1xf32>
// RMSB: arith.addf %{{.*}}, %[[ONES]] : vector<1xf32>
// Rows grid-strided over the CTAs, dy * y summed per column in registers.
// RMSB: scf.for %{{.*}} = %block_id_x to %c96{{.*}} step %c96{{.*}} iter_args(%{{.*}} = %{{.*}}, %{{.*}} = %{{.*}}) -> (vector<1xf32>, vector<1xf32>)
// RMSB: gpu.barrier
// RMSB: gpu.barrier
// RMSB: memref.store %{{.*}}, %[[PART]][
// RMSB-LABEL: gpu.func @n0_norm_bwd_final(
// RMSB-SAME: %[[P:[^:]*]]: memref<96192xf32>, %[[DG:[^:]*]]: memref<1002xf32>)
// RMSB: scf.for %{{.*}} = %c0{{.*}} to %c96 step %c1
// RMSB: memref.load %[[P]]
// RMSB-NOT: arith.truncf
// RMSB: memref.store %{{.*}}, %[[DG]]
// RMSB-LABEL: func.func @rmsb(
// RMSB: gpu.launch_func async [%{{.*}}] @teq_kernels::@n0_rms_norm_bwd blocks in (%c96, %c1{{.*}}, %c1{{.*}}) threads in (%c512,
// RMSB: gpu.launch_func async [%{{.*}}] @teq_kernels::@n0_norm_bwd_final blocks in (%c4, %c1{{.*}}, %c1{{.*}}) threads in (%c256,
