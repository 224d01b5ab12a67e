// The norm ops as convert-teq-to-gpu emits them (Kernels/Norm.h): the
// forward one CTA per row (16-byte vectors where n and the buffers allow,
// one element at a time otherwise), block sums as a warp xor butterfly then
// the warps' sums in order, rstd as rsqrt.approx.f32 through NVVM's
// intrinsic; the backward's per-CTA dgamma/dbeta partials in the op's
// scratch and the finalize kernel; each result's computed_by.
// RUN: split-file %s %t
// RUN: te-opt %t/layer-norm.mlir --convert-teq-to-gpu | FileCheck %s --check-prefix=LN
// RUN: te-opt %t/rms-backward.mlir --convert-teq-to-gpu | FileCheck %s --check-prefix=RMSB
// RUN: te-opt %t/layer-norm-backward-add.mlir --convert-teq-to-gpu | FileCheck %s --check-prefix=LNBA

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
// the finalize kernel has ceil(1002 / 32) = 32 CTAs. Two CTAs of 512 an SM
// (nvvm.minctasm: at most 64 registers).
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
// RMSB-SAME: known_block_size = array<i32: 512, 1, 1>, nvvm.minctasm = 2 : i32
// RMSB-NOT: vector.load
// gamma + 1 (zero_centered_gamma), loaded once before the rows.
// RMSB: %[[ONE:.*]] = arith.constant 1.000000e+00 : f32
// RMSB: %[[ONES:.*]] = vector.broadcast %[[ONE]] : f32 to vector<1xf32>
// RMSB: arith.addf %{{.*}}, %[[ONES]] : vector<1xf32>
// Rows grid-strided over the CTAs, dy * y summed per column in registers;
// the block sums alternate between two sets of shared slots (carried
// index), so one barrier a row. The one-element fallback loads each row in
// its iteration (no prefetch).
// RMSB: scf.for %{{.*}} = %block_id_x to %c96{{.*}} step %c96{{.*}} iter_args(%{{.*}} = %{{.*}}, %{{.*}} = %{{.*}}, %{{.*}} = %c0{{.*}}) -> (vector<1xf32>, vector<1xf32>, index)
// RMSB: gpu.barrier
// RMSB-NOT: gpu.barrier
// RMSB: scf.yield
// RMSB: memref.store %{{.*}}, %[[PART]][
// The finalize: CTA (x, y) sums columns [32x, 32x + 32) of sum y; its 8
// warps each add 12 of the 96 partial rows (all loaded, then added), then
// warp 0 adds the warps' sums in order.
// RMSB-LABEL: gpu.func @n0_norm_bwd_final(
// RMSB-SAME: %[[P:[^:]*]]: memref<96192xf32>, %[[DG:[^:]*]]: memref<1002xf32>) workgroup(%[[SH:[^ ]*]] : memref<256xf32, #gpu.address_space<workgroup>>)
// RMSB: scf.for %{{.*}} = %c0{{.*}} to %c12{{.*}} step %c12
// RMSB-COUNT-12: memref.load %[[P]]
// RMSB: scf.yield
// RMSB: memref.store %{{.*}}, %[[SH]][%thread_id_x]
// RMSB: gpu.barrier
// RMSB-COUNT-8: memref.load %[[SH]]
// RMSB-NOT: arith.truncf
// RMSB: memref.store %{{.*}}, %[[DG]]
// RMSB-LABEL: func.func @rmsb(
// RMSB: gpu.launch_func async [%{{.*}}] @teq_kernels::@n0_rms_norm_bwd blocks in (%c96, %c1{{.*}}, %c1{{.*}}) threads in (%c512,
// RMSB: gpu.launch_func async [%{{.*}}] @teq_kernels::@n0_norm_bwd_final blocks in (%c32, %c1{{.*}}, %c1{{.*}}) threads in (%c256,

//--- layer-norm-backward-add.mlir
// [300, 1024] bf16 with `add` (TE's rmsnorm_bwd_add): 128 threads, one
// group of 8 each, so the 16-byte path loads the next row's dy, x and add
// (bf16 vectors, carried) before it reduces the current one; dx + add in
// f32, then one rounding. 300 CTAs (min(300, 132 * 8)); the finalize's
// grid is 32 column tiles x 2 sums (dgamma, dbeta). The add is recorded in
// dx's computed_by only.
module attributes {teq.target = #teq.target<sm_90>} {
  func.func @lnba(%dy: tensor<300x1024xbf16>, %x: tensor<300x1024xbf16>, %mean: tensor<300xf32>,
                  %rstd: tensor<300xf32>, %g: tensor<1024xbf16>, %go: tensor<300x1024xbf16>)
      -> (tensor<300x1024xbf16>, tensor<1024xbf16>, tensor<1024xbf16>) {
    %dx, %dg, %db = teq.layer_norm_backward %dy, %x, %mean, %rstd, %g, %go
        : (tensor<300x1024xbf16>, tensor<300x1024xbf16>, tensor<300xf32>, tensor<300xf32>, tensor<1024xbf16>, tensor<300x1024xbf16>)
        -> (tensor<300x1024xbf16>, tensor<1024xbf16>, tensor<1024xbf16>)
    return %dx, %dg, %db : tensor<300x1024xbf16>, tensor<1024xbf16>, tensor<1024xbf16>
  }
}

// LNBA: computed_by\22:{\22add\22:\22arg5\22,\22dy\22:\22arg0\22,{{.*}}\22output\22:\22dx\22
// LNBA-NOT: \22add\22
// LNBA-LABEL: gpu.func @n0_layer_norm_bwd(
// LNBA-SAME: %[[DY:[^:]*]]: memref<307200xbf16>, %[[X:[^:]*]]: memref<307200xbf16>, %{{[^:]*}}: memref<300xf32>, %{{[^:]*}}: memref<300xf32>, %{{[^:]*}}: memref<1024xbf16>, %[[ADD:[^:]*]]: memref<307200xbf16>, %[[DX:[^:]*]]: memref<307200xbf16>, %{{[^:]*}}: memref<614400xf32>)
// LNBA-SAME: known_block_size = array<i32: 128, 1, 1>, nvvm.minctasm = 8 : i32
// The first row's inputs, then the loop carrying the next row's.
// LNBA: vector.load %[[DY]]
// LNBA: vector.load %[[X]]
// LNBA: vector.load %[[ADD]]
// LNBA: scf.for %{{.*}} = %block_id_x to %c300{{.*}} step %c300{{.*}} iter_args({{.*}}) -> (vector<8xf32>, vector<8xf32>, f32, f32, vector<8xbf16>, vector<8xbf16>, vector<8xbf16>, index)
// LNBA: vector.load %[[DY]]
// LNBA: vector.load %[[X]]
// LNBA: vector.load %[[ADD]]
// LNBA: gpu.barrier
// LNBA-NOT: gpu.barrier
// LNBA: %[[A:.*]] = arith.extf %{{.*}} : vector<8xbf16> to vector<8xf32>
// LNBA: %[[SUM:.*]] = arith.addf %{{.*}}, %[[A]] : vector<8xf32>
// LNBA: arith.truncf %[[SUM]] : vector<8xf32> to vector<8xbf16>
// LNBA: vector.store %{{.*}}, %[[DX]]
// LNBA-LABEL: func.func @lnba(
// LNBA: gpu.launch_func async [%{{.*}}] @teq_kernels::@n0_layer_norm_bwd blocks in (%c300, %c1{{.*}}, %c1{{.*}}) threads in (%c128,
// LNBA: gpu.launch_func async [%{{.*}}] @teq_kernels::@n0_norm_bwd_final blocks in (%c32, %c2, %c1{{.*}}) threads in (%c256,
