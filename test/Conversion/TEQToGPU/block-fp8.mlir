// FP8 block scaling kernels (te-semantics.md §5.3) as convert-teq-to-gpu
// emits them (Kernels/BlockFP8, Tile): one 128x128 tile a block read once
// into registers, the block amaxes (shuffles, workgroup partials), the
// rowwise bytes stored from registers, the columnwise copy transposed
// through the byte tile, the scale stores, and the launch with its grid.
// RUN: split-file %s %t
// RUN: te-opt %t/1d-bf16.mlir --convert-teq-to-gpu | FileCheck %s --check-prefix=ONE
// RUN: te-opt %t/2d-f32-ragged.mlir --convert-teq-to-gpu | FileCheck %s --check-prefix=TWO
// RUN: te-opt %t/rowwise-f16.mlir --convert-teq-to-gpu | FileCheck %s --check-prefix=ROW
// RUN: te-opt %t/rowwise-f16.mlir --convert-teq-to-gpu | FileCheck %s --check-prefix=ROWNOT

//--- 1d-bf16.mlir
// 1x128 blocks, both copies, whole tiles.
module attributes {teq.target = #teq.target<sm_90>} {
  func.func @block1d(%x: tensor<256x256xbf16>) -> !teq.proto<256x256xbf16, #teq.float8_block_quantizer<f8E4M3FN, block_scaling_dim = 1>, rowwise|columnwise> {
    %q = teq.quantize %x : tensor<256x256xbf16> -> !teq.proto<256x256xbf16, #teq.float8_block_quantizer<f8E4M3FN, block_scaling_dim = 1>, rowwise|columnwise>
    return %q : !teq.proto<256x256xbf16, #teq.float8_block_quantizer<f8E4M3FN, block_scaling_dim = 1>, rowwise|columnwise>
  }
}

// Column partials (a warp's 16 rows), the column scales, the byte tile; no
// dynamic shared memory. bf16 tiles leave room for three blocks an SM.
// ONE-LABEL: gpu.func @q0_block(
// ONE-SAME: %[[X:[^:]*]]: memref<65536xbf16>, %[[RDATA:[^:]*]]: memref<65536xi8>, %[[RSCALE:[^:]*]]: memref<512xf32>, %[[CDATA:[^:]*]]: memref<65536xi8>, %[[CSCALE:[^:]*]]: memref<512xf32>)
// ONE-SAME: workgroup(%[[PARTIALS:[^ ]*]] : memref<1024xf32, #gpu.address_space<workgroup>> {llvm.align = 16 : i64}, %[[COLSCALES:[^ ]*]] : memref<128xf32, #gpu.address_space<workgroup>> {llvm.align = 16 : i64}, %[[STAGE:[^ ]*]] : memref<16384xi8, #gpu.address_space<workgroup>> {llvm.align = 16 : i64})
// ONE-SAME: kernel attributes {known_block_size = array<i32: 256, 1, 1>, nvvm.minctasm = 3 : i32}
// The thread's four rows: four 16-byte loads kept as raw bits where whole,
// else element by element.
// ONE: scf.if %{{.*}} -> (vector<8xi32>, vector<8xi32>, vector<8xi32>, vector<8xi32>) {
// ONE-COUNT-4: vector.load %[[X]][%{{.*}}] {alignment = 16 : i64} : memref<65536xbf16>, vector<16xbf16>
// ONE-COUNT-4: vector.bitcast %{{.*}} : vector<16xbf16> to vector<8xi32>
// ONE: } else {
// ONE: scf.for {{.*}} -> (vector<16xi16>) {
// ONE: memref.load %[[X]][%{{.*}}] : memref<65536xbf16>
// Per row step: the column maxima (one max.f32 an element,
// llvm.intr.maxnum) and the 1x128 block amax over the 8 lanes of a row
// (xor 1, 2, 4), before any barrier.
// ONE-NOT: gpu.barrier
// ONE: llvm.intr.maxnum(%{{.*}}, %{{.*}}) : (vector<16xf32>, vector<16xf32>) -> vector<16xf32>
// ONE: vector.reduction <maxnumf>, %{{.*}} : vector<16xf32> into f32
// ONE: gpu.shuffle  xor %{{.*}}, %c1_i32{{(_[0-9]+)?}}, %c32_i32
// ONE-NEXT: llvm.intr.maxnum
// ONE: gpu.shuffle  xor %{{.*}}, %c2_i32{{(_[0-9]+)?}}, %c32_i32
// ONE: gpu.shuffle  xor %{{.*}}, %c4_i32{{(_[0-9]+)?}}, %c32_i32
// Column maxima over the warp's rows (lanes 8 and 16 apart), stored by
// lanes 0..7.
// ONE-NOT: gpu.barrier
// ONE: gpu.shuffle  xor %{{.*}}, %c8_i32{{(_[0-9]+)?}}, %c32_i32{{(_[0-9]+)?}} : f32
// ONE: gpu.shuffle  xor %{{.*}}, %c16_i32{{(_[0-9]+)?}}, %c32_i32{{(_[0-9]+)?}} : f32
// ONE: scf.if
// ONE-COUNT-16: memref.store %{{.*}}, %[[PARTIALS]][%{{.*}}]
// One scale a lane: row step chunk % 4's (picked by selects), exchanged
// by xor shuffles 1, 2, 3; then each row step's eight cvt pairs and one
// 16-byte store; lanes with chunk < 4 store 1/scale.
// ONE-NOT: gpu.barrier
// ONE: %[[STEP:.*]] = arith.remui %{{.*}}, %c4{{(_[0-9]+)?}} : index
// ONE-COUNT-3: arith.select
// ONE: arith.constant 4.480000e+02 : f32
// ONE: arith.constant 3.38953139E+38 : f32
// ONE: %[[INV:.*]] = arith.divf %{{.*}}, %[[OWN:.*]] : f32
// ONE: gpu.shuffle  xor %[[OWN]], %c1_i32{{(_[0-9]+)?}}, %c32_i32
// ONE: gpu.shuffle  xor %[[OWN]], %c2_i32{{(_[0-9]+)?}}, %c32_i32
// ONE: gpu.shuffle  xor %[[OWN]], %c3_i32{{(_[0-9]+)?}}, %c32_i32
// ONE: arith.xori %[[STEP]]
// ONE: arith.extui %{{.*}} : vector<16xi16> to vector<16xi32>
// ONE-COUNT-8: nvvm.convert.f32x2.to.f8x2 {{.*}} : i16(f8E4M3FN)
// ONE: vector.store %{{.*}}, %[[RDATA]][%{{.*}}] {alignment = 16 : i64} : memref<65536xi8>, vector<16xi8>
// ONE-COUNT-3: vector.store %{{.*}}, %[[RDATA]][%{{.*}}] {alignment = 16 : i64}
// ONE: memref.store %[[INV]], %[[RSCALE]][%{{.*}}] : memref<512xf32>
// The column scales: 128 threads reduce the 8 warps' partials.
// ONE: gpu.barrier
// ONE: scf.for {{.*}} -> (f32) {
// ONE: memref.load %[[PARTIALS]]
// ONE: memref.store %{{.*}}, %[[COLSCALES]]
// ONE: memref.store %{{.*}}, %[[CSCALE]]
// ONE: gpu.barrier
// ONE-NEXT: vector.load %[[COLSCALES]][%{{.*}}] {alignment = 16 : i64} : memref<128xf32, #gpu.address_space<workgroup>>, vector<16xf32>
// The columnwise bytes into the XOR-swizzled byte tile, then gathered
// along columns: 16-byte runs of the transposed rows.
// ONE-COUNT-4: vector.store %{{.*}}, %[[STAGE]][%{{.*}}] {alignment = 16 : i64} : memref<16384xi8, #gpu.address_space<workgroup>>, vector<16xi8>
// ONE-NEXT: gpu.barrier
// ONE: scf.for
// ONE-COUNT-16: memref.load %[[STAGE]]
// ONE: vector.from_elements {{.*}} : vector<16xi8>
// ONE: vector.store %{{.*}}, %[[CDATA]][%{{.*}}] {alignment = 16 : i64} : memref<65536xi8>, vector<16xi8>
// ONE-NOT: gpu.barrier
// ONE: gpu.return
// One block a tile, x over K.
// ONE: gpu.launch_func async [%{{.*}}] @teq_kernels::@q0_block blocks in (%c2, %c2{{(_[0-9]+)?}}, %c1{{(_[0-9]+)?}}) threads in (%c256{{(_[0-9]+)?}}, %c1{{(_[0-9]+)?}}, %c1{{(_[0-9]+)?}})  args(%arg0 : memref<65536xbf16>, %arg1 : memref<65536xi8>, %arg2 : memref<512xf32>, %arg3 : memref<65536xi8>, %arg4 : memref<512xf32>)
// ONE-NOT: gpu.launch_func

//--- 2d-f32-ragged.mlir
// 128x128 blocks, E5M2, f32, ragged edges (K % 8 != 0: no 16-byte loads).
module attributes {teq.target = #teq.target<sm_90>} {
  func.func @block2d(%x: tensor<303x300xf32>) -> !teq.proto<303x300xf32, #teq.float8_block_quantizer<f8E5M2>, rowwise|columnwise> {
    %q = teq.quantize %x : tensor<303x300xf32> -> !teq.proto<303x300xf32, #teq.float8_block_quantizer<f8E5M2>, rowwise|columnwise>
    return %q : !teq.proto<303x300xf32, #teq.float8_block_quantizer<f8E5M2>, rowwise|columnwise>
  }
}

// TWO-LABEL: gpu.func @q0_block(
// TWO-SAME: %[[X:[^:]*]]: memref<90900xf32>, %[[RDATA:[^:]*]]: memref<90900xi8>, %[[RSCALE:[^:]*]]: memref<12xf32>, %[[CDATA:[^:]*]]: memref<90900xi8>, %[[CSCALE:[^:]*]]: memref<12xf32>)
// TWO-SAME: workgroup(%[[AMAXES:[^ ]*]] : memref<8xf32, #gpu.address_space<workgroup>> {llvm.align = 16 : i64}, %[[STAGE:[^ ]*]] : memref<16384xi8, #gpu.address_space<workgroup>> {llvm.align = 16 : i64})
// TWO-SAME: kernel attributes {known_block_size = array<i32: 256, 1, 1>} {
// The fast path is off: 16-byte loads would be misaligned.
// TWO: %[[ALIGNED:.*]] = arith.constant false
// TWO: %[[FAST:.*]] = arith.andi %{{.*}}, %[[ALIGNED]] : i1
// TWO: scf.if %[[FAST]] -> (vector<16xf32>, vector<16xf32>, vector<16xf32>, vector<16xf32>) {
// TWO-COUNT-4: vector.load %[[X]][%{{.*}}] {alignment = 16 : i64} : memref<90900xf32>, vector<16xf32>
// The tile amax: thread, warp (xor 1..16), the 8 warp maxima after one
// barrier; one scale for the tile.
// TWO: vector.reduction <maxnumf>, %{{.*}} : vector<16xf32> into f32
// TWO-COUNT-5: gpu.shuffle  xor
// TWO: memref.store %{{.*}}, %[[AMAXES]]
// TWO: gpu.barrier
// TWO: vector.load %[[AMAXES]][%{{.*}}] {alignment = 16 : i64} : memref<8xf32, #gpu.address_space<workgroup>>, vector<8xf32>
// TWO-NEXT: vector.reduction <maxnumf>, %{{.*}} : vector<8xf32> into f32
// TWO: arith.constant 5.734400e+04 : f32
// TWO: arith.constant 3.40282347E+38 : f32
// TWO: %[[INV:.*]] = arith.divf
// TWO-NOT: gpu.shuffle
// TWO-COUNT-8: nvvm.convert.f32x2.to.f8x2 {{.*}} : i16(f8E5M2)
// TWO: vector.store %{{.*}}, %[[RDATA]]
// Thread 0 stores the tile's scales; the last tile of a band also zeroes
// the band's padding (3 blocks, padded to 4).
// TWO: memref.store %[[INV]], %[[RSCALE]]
// TWO: scf.for %{{.*}} = %c3{{(_[0-9]+)?}} to %c4{{(_[0-9]+)?}}
// TWO: memref.store %{{.*}}, %[[RSCALE]]
// TWO: memref.store %[[INV]], %[[CSCALE]]
// TWO: scf.for %{{.*}} = %c3{{(_[0-9]+)?}} to %c4{{(_[0-9]+)?}}
// TWO: memref.store %{{.*}}, %[[CSCALE]]
// TWO-COUNT-4: vector.store %{{.*}}, %[[STAGE]]
// TWO-NEXT: gpu.barrier
// TWO: vector.store %{{.*}}, %[[CDATA]]
// TWO-NOT: gpu.barrier
// TWO: gpu.return
// TWO: @teq_kernels::@q0_block blocks in (%c3, %c3{{(_[0-9]+)?}}, %c1{{(_[0-9]+)?}})

//--- rowwise-f16.mlir
// 1x128 blocks, the rowwise copy only: no workgroup memory, no barrier.
module attributes {teq.target = #teq.target<sm_90>} {
  func.func @rowwise(%x: tensor<65x96xf16>) -> !teq.proto<65x96xf16, #teq.float8_block_quantizer<f8E4M3FN, block_scaling_dim = 1, force_pow_2_scales = false>, rowwise> {
    %q = teq.quantize %x : tensor<65x96xf16> -> !teq.proto<65x96xf16, #teq.float8_block_quantizer<f8E4M3FN, block_scaling_dim = 1, force_pow_2_scales = false>, rowwise>
    return %q : !teq.proto<65x96xf16, #teq.float8_block_quantizer<f8E4M3FN, block_scaling_dim = 1, force_pow_2_scales = false>, rowwise>
  }
}

// ROW-LABEL: gpu.func @q0_block(
// ROW-SAME: %[[X:[^:]*]]: memref<6240xf16>, %[[RDATA:[^:]*]]: memref<6240xi8>, %[[RSCALE:[^:]*]]: memref<68xf32>)
// ROW-SAME: kernel attributes {known_block_size = array<i32: 256, 1, 1>} {
// ROW: vector.load %[[X]][%{{.*}}] {alignment = 16 : i64} : memref<6240xf16>, vector<16xf16>
// ROW: arith.extf %{{.*}} : vector<16xf16> to vector<16xf32>
// ROW: vector.store %{{.*}}, %[[RDATA]]
// ROW: memref.store %{{.*}}, %[[RSCALE]]
// Rows 65..67 are the scales' padding: zero.
// ROW: arith.cmpi uge, %{{.*}}, %c65{{(_[0-9]+)?}} : index
// ROW: arith.cmpi ult, %{{.*}}, %c68{{(_[0-9]+)?}} : index
// ROW: memref.store %{{.*}}, %[[RSCALE]]
// ROW: gpu.return
// ROW: @teq_kernels::@q0_block blocks in (%c1{{(_[0-9]+)?}}, %c1{{(_[0-9]+)?}}, %c1{{(_[0-9]+)?}}) {{.*}} args(%arg0 : memref<6240xf16>, %arg1 : memref<6240xi8>, %arg2 : memref<68xf32>)
// No barrier, and fp32 scales (force_pow_2_scales = false): no mantissa
// mask.
// ROWNOT-NOT: gpu.barrier
// ROWNOT-NOT: -8388608
