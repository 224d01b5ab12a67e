// MXFP8 quantization kernels (te-semantics.md §5.4, §4.2) as
// convert-teq-to-gpu emits them (Kernels/MXFP8, Tile): one 128x128 tile a
// block read once into registers, the block amaxes (lane pairs, the warp's
// rows, the partner warp through workgroup memory), E8M0 by TE's software
// float_to_e8m0 or Blackwell's cvt, the scale bytes compact or
// GEMM-swizzled, and the launch with its grid.
// RUN: split-file %s %t
// RUN: te-opt %t/1d-bf16.mlir --convert-teq-to-gpu | FileCheck %s --check-prefix=ONE
// RUN: te-opt %t/2d-swizzled-f32.mlir --convert-teq-to-gpu | FileCheck %s --check-prefix=TWO
// RUN: te-opt %t/columnwise-blackwell.mlir --convert-teq-to-gpu | FileCheck %s --check-prefix=HW

//--- 1d-bf16.mlir
// 1x32 and 32x1 blocks, both copies, compact scales, Hopper.
module attributes {teq.target = #teq.target<sm_90>} {
  func.func @mxfp8_1d(%x: tensor<256x256xbf16>) -> !teq.proto<256x256xbf16, #teq.mxfp8_quantizer<f8E4M3FN>, rowwise|columnwise> {
    %q = teq.quantize %x : tensor<256x256xbf16> -> !teq.proto<256x256xbf16, #teq.mxfp8_quantizer<f8E4M3FN>, rowwise|columnwise>
    return %q : !teq.proto<256x256xbf16, #teq.mxfp8_quantizer<f8E4M3FN>, rowwise|columnwise>
  }
}

// Column partials and column multipliers; no byte tile (both copies are
// [M, K]); three bf16 blocks an SM.
// ONE-LABEL: gpu.func @q0_mxfp8(
// ONE-SAME: %[[X:[^:]*]]: memref<65536xbf16>, %[[RDATA:[^:]*]]: memref<65536xi8>, %[[RSCALE:[^:]*]]: memref<2048xi8>, %[[CDATA:[^:]*]]: memref<65536xi8>, %[[CSCALE:[^:]*]]: memref<2048xi8>)
// ONE-SAME: workgroup(%[[PARTIALS:[^ ]*]] : memref<1024xf32, #gpu.address_space<workgroup>> {llvm.align = 16 : i64}, %[[MULS:[^ ]*]] : memref<512xf32, #gpu.address_space<workgroup>> {llvm.align = 16 : i64})
// ONE-SAME: kernel attributes {known_block_size = array<i32: 256, 1, 1>, nvvm.minctasm = 3 : i32}
// ONE: scf.if %{{.*}} -> (vector<8xi32>, vector<8xi32>, vector<8xi32>, vector<8xi32>) {
// ONE-COUNT-4: vector.load %[[X]][%{{.*}}] {alignment = 16 : i64} : memref<65536xbf16>, vector<16xbf16>
// Column maxima over the warp's 16 rows, stored by lanes 0..7.
// ONE-NOT: gpu.barrier
// ONE: gpu.shuffle  xor %{{.*}}, %c8_i32{{(_[0-9]+)?}}, %c32_i32
// ONE: gpu.shuffle  xor %{{.*}}, %c16_i32{{(_[0-9]+)?}}, %c32_i32
// ONE: scf.if
// ONE-COUNT-16: memref.store %{{.*}}, %[[PARTIALS]][%{{.*}}]
// A row step's 1x32 block is two neighbouring lanes (xor 1); its E8M0
// exponent (TE's emulation: exponent field, rounded up) and multiplier
// 2^(127 - e); the 16 bytes; every even lane stores the scale byte, zero
// in the padding.
// ONE-NOT: gpu.barrier
// ONE: vector.reduction <maxnumf>, %{{.*}} : vector<16xf32> into f32
// ONE: %{{.*}}, %{{.*}} = gpu.shuffle  xor %{{.*}}, %c1_i32{{(_[0-9]+)?}}, %c32_i32
// ONE-NOT: gpu.shuffle
// ONE: arith.constant 0.00223214296 : f32
// ONE: arith.shrui %{{.*}}, %c23_i32{{(_[0-9]+)?}} : i32
// ONE: arith.shli %{{.*}}, %c23_i32{{(_[0-9]+)?}} : i32
// ONE-COUNT-8: nvvm.convert.f32x2.to.f8x2 {{.*}} : i16(f8E4M3FN)
// ONE: vector.store %{{.*}}, %[[RDATA]][%{{.*}}] {alignment = 16 : i64} : memref<65536xi8>, vector<16xi8>
// ONE: arith.trunci %{{.*}} : i32 to i8
// ONE-NEXT: arith.select %{{.*}}, %{{.*}}, %c0_i8 : i8
// ONE-NEXT: memref.store %{{.*}}, %[[RSCALE]][%{{.*}}] : memref<2048xi8>
// ONE-COUNT-3: memref.store %{{.*}}, %[[RSCALE]]
// 32x1 blocks: two (group, column) exponents a thread from the two warps'
// partials, the multipliers through workgroup memory.
// ONE: gpu.barrier
// ONE: scf.for
// ONE: memref.load %[[PARTIALS]]
// ONE-NEXT: memref.load %[[PARTIALS]]
// ONE: memref.store %{{.*}}, %[[MULS]]
// ONE: memref.store %{{.*}}, %[[CSCALE]]
// ONE: gpu.barrier
// ONE: vector.load %[[MULS]][%{{.*}}] {alignment = 16 : i64} : memref<512xf32, #gpu.address_space<workgroup>>, vector<16xf32>
// ONE-COUNT-4: vector.store %{{.*}}, %[[CDATA]][%{{.*}}] {alignment = 16 : i64} : memref<65536xi8>, vector<16xi8>
// ONE-NOT: gpu.barrier
// ONE: gpu.return
// ONE: gpu.launch_func async [%{{.*}}] @teq_kernels::@q0_mxfp8 blocks in (%c2, %c2{{(_[0-9]+)?}}, %c1{{(_[0-9]+)?}}) threads in (%c256{{(_[0-9]+)?}}, %c1{{(_[0-9]+)?}}, %c1{{(_[0-9]+)?}})  args(%arg0 : memref<65536xbf16>, %arg1 : memref<65536xi8>, %arg2 : memref<2048xi8>, %arg3 : memref<65536xi8>, %arg4 : memref<2048xi8>)
// ONE-NOT: gpu.launch_func

//--- 2d-swizzled-f32.mlir
// 32x32 tiles, E5M2, f32, GEMM-swizzled scales.
module attributes {teq.target = #teq.target<sm_90>} {
  func.func @mxfp8_2d(%x: tensor<256x288xf32>) -> !teq.proto<256x288xf32, #teq.mxfp8_quantizer<f8E5M2, with_2d_quantization = true>, rowwise|columnwise, gemm_swizzled> {
    %q = teq.quantize %x : tensor<256x288xf32> -> !teq.proto<256x288xf32, #teq.mxfp8_quantizer<f8E5M2, with_2d_quantization = true>, rowwise|columnwise, gemm_swizzled>
    return %q : !teq.proto<256x288xf32, #teq.mxfp8_quantizer<f8E5M2, with_2d_quantization = true>, rowwise|columnwise, gemm_swizzled>
  }
}

// TWO-LABEL: gpu.func @q0_mxfp8(
// TWO-SAME: %[[X:[^:]*]]: memref<73728xf32>, %[[RDATA:[^:]*]]: memref<73728xi8>, %[[RSCALE:[^:]*]]: memref<3072xi8>, %[[CDATA:[^:]*]]: memref<73728xi8>, %[[CSCALE:[^:]*]]: memref<3072xi8>)
// TWO-SAME: workgroup(%[[TILES:[^ ]*]] : memref<32xf32, #gpu.address_space<workgroup>> {llvm.align = 16 : i64})
// TWO-SAME: kernel attributes {known_block_size = array<i32: 256, 1, 1>} {
// TWO-COUNT-4: vector.load %[[X]][%{{.*}}] {alignment = 16 : i64} : memref<73728xf32>, vector<16xf32>
// The 32x32 tile amax: the lane pair, the warp's rows, one barrier, the
// partner warp's maximum.
// TWO: vector.reduction <maxnumf>, %{{.*}} : vector<16xf32> into f32
// TWO: gpu.shuffle  xor %{{.*}}, %c1_i32{{(_[0-9]+)?}}, %c32_i32
// TWO: gpu.shuffle  xor %{{.*}}, %c8_i32{{(_[0-9]+)?}}, %c32_i32
// TWO: gpu.shuffle  xor %{{.*}}, %c16_i32{{(_[0-9]+)?}}, %c32_i32
// TWO: memref.store %{{.*}}, %[[TILES]]
// TWO: gpu.barrier
// TWO: memref.load %[[TILES]]
// TWO-NOT: gpu.shuffle
// TWO: arith.constant 1.74386169E-5 : f32
// TWO-COUNT-8: nvvm.convert.f32x2.to.f8x2 {{.*}} : i16(f8E5M2)
// TWO: vector.store %{{.*}}, %[[RDATA]]
// Rowwise scale S[row][k / 32] at its place in the 128x4 tiles (3 tiles a
// band: 12 scale columns).
// TWO: arith.divui %{{.*}}, %c128{{(_[0-9]+)?}} : index
// TWO: arith.muli %{{.*}}, %c3{{(_[0-9]+)?}} : index
// TWO: arith.muli %{{.*}}, %c512{{(_[0-9]+)?}} : index
// TWO: memref.store %{{.*}}, %[[RSCALE]]
// TWO-COUNT-4: vector.store %{{.*}}, %[[CDATA]]
// Columnwise: the column is the swizzle's row (2 tiles a band: 8 scale
// rows), 16 columns a writer.
// TWO: scf.for
// TWO: arith.divui %{{.*}}, %c128{{(_[0-9]+)?}} : index
// TWO: arith.muli %{{.*}}, %c2{{(_[0-9]+)?}} : index
// TWO: arith.muli %{{.*}}, %c512{{(_[0-9]+)?}} : index
// TWO: memref.store %{{.*}}, %[[CSCALE]]
// TWO-NOT: gpu.barrier
// TWO: gpu.return
// TWO: @teq_kernels::@q0_mxfp8 blocks in (%c3, %c2{{(_[0-9]+)?}}, %c1{{(_[0-9]+)?}})

//--- columnwise-blackwell.mlir
// The columnwise copy only, on sm_100a: E8M0 by cvt.rp.satfinite.ue8m0x2.
module attributes {teq.target = #teq.target<sm_100a>} {
  func.func @mxfp8_col(%x: tensor<64x64xbf16>) -> !teq.proto<64x64xbf16, #teq.mxfp8_quantizer<f8E4M3FN>, columnwise> {
    %q = teq.quantize %x : tensor<64x64xbf16> -> !teq.proto<64x64xbf16, #teq.mxfp8_quantizer<f8E4M3FN>, columnwise>
    return %q : !teq.proto<64x64xbf16, #teq.mxfp8_quantizer<f8E4M3FN>, columnwise>
  }
}

// HW-LABEL: gpu.func @q0_mxfp8(
// HW-SAME: %[[X:[^:]*]]: memref<4096xbf16>, %[[CDATA:[^:]*]]: memref<4096xi8>, %[[CSCALE:[^:]*]]: memref<512xi8>)
// HW-SAME: workgroup(%[[PARTIALS:[^ ]*]] : memref<1024xf32, #gpu.address_space<workgroup>> {llvm.align = 16 : i64}, %[[MULS:[^ ]*]] : memref<512xf32, #gpu.address_space<workgroup>> {llvm.align = 16 : i64})
// HW: gpu.barrier
// HW: scf.for
// HW-NOT: arith.shrui
// HW: %[[V:.*]] = arith.mulf %{{.*}}, %{{.*}} : f32
// HW: %[[PAIR:.*]] = nvvm.convert.f32x2.to.f8x2 %[[V]], %[[V]] {rnd = #nvvm.fp_rnd_mode<rp>, sat = #nvvm.sat_mode<satfinite>} : i16(f8E8M0FNU)
// HW-NEXT: %[[WIDE:.*]] = arith.extui %[[PAIR]] : i16 to i32
// HW-NEXT: arith.andi %[[WIDE]], %c255_i32{{(_[0-9]+)?}} : i32
// HW-NOT: arith.shrui
// HW: memref.store %{{.*}}, %[[MULS]]
// HW: memref.store %{{.*}}, %[[CSCALE]]
// HW: gpu.barrier
// HW-COUNT-4: vector.store %{{.*}}, %[[CDATA]]
// HW: gpu.return
// HW: @teq_kernels::@q0_mxfp8 blocks in (%c1{{(_[0-9]+)?}}, %c1{{(_[0-9]+)?}}, %c1{{(_[0-9]+)?}})
