// NVFP4 quantization kernels (te-semantics.md §5.5, §4.4) as
// convert-teq-to-gpu emits them (Kernels/NVFP4, NVFP4Amax, FP4Numerics):
// the amax pass and its fused finish, the data kernel's staging, barriers,
// vector widths and paths, and the launches with their grids and the
// programmatic dependent launch.
// RUN: split-file %s %t
// RUN: te-opt %t/rn-hopper.mlir --convert-teq-to-gpu | FileCheck %s --check-prefix=RN
// RUN: te-opt %t/rht-sr.mlir --convert-teq-to-gpu | FileCheck %s --check-prefix=RHT
// RUN: te-opt %t/twod.mlir --convert-teq-to-gpu | FileCheck %s --check-prefix=TWOD
// RUN: te-opt %t/padded-ada.mlir --convert-teq-to-gpu | FileCheck %s --check-prefix=PAD
// RUN: te-opt %t/blackwell.mlir --convert-teq-to-gpu | FileCheck %s --check-prefix=HW
// RUN: te-compile %t/linear.mlir --emit=mlir | FileCheck %s --check-prefix=ALPHA

//--- rn-hopper.mlir
// Round to nearest, 1D, both copies, on whole 64x64 tiles on Hopper.
module attributes {teq.target = #teq.target<sm_90>} {
  func.func @rn(%x: tensor<128x128xbf16>) -> !teq.proto<128x128xbf16, #teq.nvfp4_quantizer<f4E2M1FN>, rowwise|columnwise> {
    %q = teq.quantize %x : tensor<128x128xbf16> -> !teq.proto<128x128xbf16, #teq.nvfp4_quantizer<f4E2M1FN>, rowwise|columnwise>
    return %q : !teq.proto<128x128xbf16, #teq.nvfp4_quantizer<f4E2M1FN>, rowwise|columnwise>
  }
}

// The data kernel is a programmatic dependent of the amax pass.
// RN: teq.manifest = "{\22dependent_launch_kernels\22:[\22q0_nvfp4\22]
// The running amax maxima and count of blocks done, and the per-copy
// constants (S_enc and 128 encode multipliers a copy).
// RN: memref.global "private" @q0_amax_acc : memref<2xi32, #gpu.address_space<global>> = dense<0>
// RN-NEXT: memref.global "private" @q0_amax_count : memref<1xi32, #gpu.address_space<global>> = dense<0>
// RN-NEXT: memref.global "private" @q0_nvfp4_consts : memref<260xf32, #gpu.address_space<global>> = dense<0.000000e+00>

// RN-LABEL: gpu.func @q0_amax(
// RN-SAME: %[[X:[^:]*]]: memref<16384xbf16>, %[[RAMAX:[^:]*]]: memref<1xf32>, %[[CAMAX:[^:]*]]: memref<1xf32>)
// RN-SAME: workgroup(%[[SLOTS:[^ ]*]] : memref<11xf32, #gpu.address_space<workgroup>>)
// The dependent data kernel may start as soon as every block has begun.
// RN-NEXT: nvvm.griddepcontrol  launch_dependents
// Four independent 16-byte loads in flight, then one at a time.
// RN: scf.for
// RN-COUNT-4: vector.load %[[X]][%{{.*}}] {alignment = 16 : i64} : memref<16384xbf16>, vector<8xbf16>
// RN-COUNT-4: vector.reduction <maxnumf>, %{{.*}} : vector<8xf32> into f32
// RN: scf.for
// RN: vector.load %[[X]][%{{.*}}] {alignment = 16 : i64} : memref<16384xbf16>, vector<8xbf16>
// RN-NOT: memref.load %[[X]]
// The block's max: warp shuffles, a slot per warp, a barrier, thread 0.
// RN-COUNT-5: gpu.shuffle  xor
// RN: memref.store %{{.*}}, %[[SLOTS]]
// RN: gpu.barrier
// Thread 0 folds the block's max into the running one; the last block
// stores both copies' amax, resets the globals and hands the amax over.
// RN: memref.get_global @q0_amax_acc
// RN: memref.get_global @q0_amax_count
// RN: memref.atomic_rmw maxu
// RN-NEXT: nvvm.memory.barrier <gpu>
// RN: memref.atomic_rmw addi
// RN: scf.if
// RN-NEXT: nvvm.memory.barrier <gpu>
// RN: memref.atomic_rmw maxu
// RN: memref.store %{{.*}}, %[[RAMAX]]
// RN: memref.store %{{.*}}, %[[CAMAX]]
// RN: gpu.barrier
// Then the last block's threads fill the constants: S_enc = 2688 / amax
// and the encode multiplier of each E4M3 code.
// RN: memref.get_global @q0_nvfp4_consts
// RN: arith.constant 2.688000e+03 : f32
// RN: arith.divf
// RN: gpu.return

// RN-LABEL: gpu.func @q0_nvfp4(
// RN-SAME: %[[DX:[^:]*]]: memref<16384xbf16>, %[[RDATA:[^:]*]]: memref<8192xi8>, %[[RSCALE:[^:]*]]: memref<1024xi8>, %[[CDATA:[^:]*]]: memref<8192xi8>, %[[CSCALE:[^:]*]]: memref<1024xi8>)
// RN-SAME: workgroup(%[[TILE:[^ ]*]] : memref<4096xbf16, #gpu.address_space<workgroup>> {llvm.align = 16 : i64}, %{{[^ ]*}} : memref<256xf32, #gpu.address_space<workgroup>>, %{{[^ ]*}} : memref<16xf32, #gpu.address_space<workgroup>>, %[[CONSTS:[^ ]*]] : memref<8xf32, #gpu.address_space<workgroup>>, %[[RSTAGE:[^ ]*]] : memref<256xi8, #gpu.address_space<workgroup>> {llvm.align = 4 : i64}, %[[CSTAGE:[^ ]*]] : memref<256xi8, #gpu.address_space<workgroup>> {llvm.align = 4 : i64}, %[[DSTAGE:[^ ]*]] : memref<2560xi8, #gpu.address_space<workgroup>> {llvm.align = 8 : i64})
// RN-SAME: known_block_size = array<i32: 256, 1, 1>, nvvm.maxnreg = 32 : i32
// Staging: a thread's 16 elements, one 16-byte load, into the tile; then
// the wait for the amax pass, and thread 0's constants.
// RN: vector.load %[[DX]][%{{.*}}] {alignment = 16 : i64} : memref<16384xbf16>, vector<16xbf16>
// RN: vector.store %{{.*}}, %[[TILE]][%{{.*}}] : memref<4096xbf16, #gpu.address_space<workgroup>>, vector<16xbf16>
// RN-NEXT: nvvm.griddepcontrol  wait
// RN: memref.load %{{.*}}[%c0{{.*}}] : memref<260xf32, #gpu.address_space<global>>
// RN: memref.load %{{.*}}[%c1{{.*}}] : memref<260xf32, #gpu.address_space<global>>
// RN: gpu.barrier
// Rowwise block (from registers): the NaN-propagating max picks the fast
// path, whose scale code is the hardware E4M3 cvt; sign bits by permutes,
// two words of eight nibbles, one 8-byte store.
// RN: vector.reduction <maximumf>, %{{.*}}, %{{.*}} : vector<16xf32> into f32
// RN: nvvm.convert.f32x2.to.f8x2 {{.*}} : i16(f8E4M3FN)
// RN: scf.if
// RN: memref.store %{{.*}}, %[[RSTAGE]]
// RN-COUNT-6: nvvm.prmt <default>
// RN: vector.bitcast %{{.*}} : vector<2xi32> to vector<8xi8>
// RN-NEXT: vector.store %{{.*}}, %[[RDATA]][%{{.*}}] {alignment = 8 : i64} : memref<8192xi8>, vector<8xi8>
// The general path: the NaN-ignoring amax, eight pairs of nibbles.
// RN: } else {
// RN: vector.reduction <maxnumf>
// RN: vector.from_elements {{.*}} : vector<8xi8>
// RN-NEXT: vector.store %{{.*}}, %[[RDATA]][%{{.*}}] {alignment = 8 : i64}
// Columnwise block: 16 loads down a tile column, its bytes to the stage.
// RN-COUNT-16: memref.load %[[TILE]]
// RN: vector.reduction <maximumf>
// RN: vector.store %{{.*}}, %[[DSTAGE]][%{{.*}}] {alignment = 8 : i64}
// The staged scales as 4-byte words and the columnwise data as 8-byte
// pairs, after a barrier.
// RN: gpu.barrier
// RN: vector.load %[[RSTAGE]][%{{.*}}] : memref<256xi8, #gpu.address_space<workgroup>>, vector<4xi8>
// RN: vector.store %{{.*}}, %[[RSCALE]][%{{.*}}] {alignment = 4 : i64} : memref<1024xi8>, vector<4xi8>
// RN: vector.load %[[CSTAGE]]
// RN: vector.store %{{.*}}, %[[CSCALE]]
// RN: vector.load %[[DSTAGE]]
// RN: vector.load %[[DSTAGE]]
// RN: vector.store %{{.*}}, %[[CDATA]][%{{.*}}] {alignment = 8 : i64}
// RN-NEXT: vector.store %{{.*}}, %[[CDATA]][%{{.*}}] {alignment = 8 : i64}
// RN-NEXT: }
// RN-NEXT: gpu.return

// The amax pass over 8 blocks, then 2 x 2 tiles; no scale zero-fill (the
// scales have no padding).
// RN-LABEL: func.func @rn(
// RN-NOT: _zero_
// RN: gpu.launch_func async [%{{.*}}] @teq_kernels::@q0_amax blocks in (%c8, %c1{{(_[0-9]+)?}}, %c1{{(_[0-9]+)?}}) threads in (%c256{{(_[0-9]+)?}}, %c1{{(_[0-9]+)?}}, %c1{{(_[0-9]+)?}})  args(%arg0 : memref<16384xbf16>, %{{.*}} : memref<1xf32>, %{{.*}} : memref<1xf32>)
// RN-NEXT: arith.constant
// RN-COUNT-5: arith.constant
// RN-NEXT: gpu.launch_func async [%{{.*}}] @teq_kernels::@q0_nvfp4 blocks in (%c2, %c2{{(_[0-9]+)?}}, %c1{{(_[0-9]+)?}})

//--- rht-sr.mlir
// Random Hadamard transform of the columnwise copy and stochastic rounding,
// GEMM-swizzled scales.
module attributes {teq.target = #teq.target<sm_90>} {
  func.func @rht(%x: tensor<128x256xbf16>, %rng: tensor<2xi64>) -> !teq.proto<128x256xbf16, #teq.nvfp4_quantizer<f4E2M1FN, with_rht = true, with_post_rht_amax = true, stochastic_rounding = true>, rowwise|columnwise, gemm_swizzled> {
    %q = teq.quantize %x rng_state(%rng : tensor<2xi64>) : tensor<128x256xbf16> -> !teq.proto<128x256xbf16, #teq.nvfp4_quantizer<f4E2M1FN, with_rht = true, with_post_rht_amax = true, stochastic_rounding = true>, rowwise|columnwise, gemm_swizzled>
    return %q : !teq.proto<128x256xbf16, #teq.nvfp4_quantizer<f4E2M1FN, with_rht = true, with_post_rht_amax = true, stochastic_rounding = true>, rowwise|columnwise, gemm_swizzled>
  }
}

// RHT-NOT: gpu.func @q0_amax(
// RHT-LABEL: gpu.func @q0_rht_amax(
// RHT-SAME: %[[X:[^:]*]]: memref<32768xbf16>, %[[CAMAX:[^:]*]]: memref<1xf32>, %[[RAMAX:[^:]*]]: memref<1xf32>)
// RHT-SAME: workgroup(%[[SLOTS:[^ ]*]] : memref<19xf32, #gpu.address_space<workgroup>>)
// RHT-NEXT: nvvm.griddepcontrol  launch_dependents
// A thread's group: 16 rows of four columns, one 8-byte load a row; the
// plain max and the unscaled transform's amax of each column.
// RHT: scf.for {{.*}} -> (f32, f32) {
// RHT-COUNT-16: vector.load %[[X]][%{{.*}}] {alignment = 8 : i64} : memref<32768xbf16>, vector<4xbf16>
// RHT: vector.reduction <maxnumf>, %{{.*}}, %{{.*}} : vector<16xf32> into f32
// RHT: vector.reduction <maxnumf>, %{{.*}}, %{{.*}} : vector<16xf32> into f32
// RHT: vector.reduction <maxnumf>, %{{.*}}, %{{.*}} : vector<4xf32> into f32
// Below 2^123 the transformed amax is round_bf16(0.25 * unscaled); else
// the exact transforms again (BF16 roundings two at a time).
// RHT: arith.constant 1.0633824E+37 : f32
// RHT: arith.cmpf olt
// RHT: scf.if %{{.*}} -> (f32) {
// RHT: arith.truncf %{{.*}} : f32 to bf16
// RHT: } else {
// RHT: scf.for
// RHT: nvvm.convert.f32x2.to.bf16x2 {{.*}} {rnd = #nvvm.fp_rnd_mode<rn>} : vector<2xbf16>
// Both maxima reduced in the block: the transformed one into slots 0..7,
// the plain one into 8..15.
// RHT: gpu.barrier
// RHT-COUNT-5: gpu.shuffle  xor
// RHT: gpu.barrier
// RHT: memref.atomic_rmw maxu
// RHT: memref.atomic_rmw maxu
// RHT: memref.store %{{.*}}, %[[CAMAX]]
// RHT: memref.store %{{.*}}, %[[RAMAX]]
// RHT: gpu.return

// RHT-LABEL: gpu.func @q0_nvfp4(
// RHT-SAME: %[[RNG:[^:]*]]: memref<2xi64>)
// RHT-NOT: nvvm.maxnreg
// RHT: nvvm.griddepcontrol  wait
// Each phase's Philox key from (seed, offset); the columnwise copy's
// stream at offset ^ 2^63.
// RHT: memref.load %[[RNG]]
// RHT: arith.xori %{{.*}}, %c0_i64
// Philox4x32-10: ten rounds of two 32x32->64 products, four blocks.
// RHT-COUNT-80: arith.mului_extended
// RHT-NOT: nvvm.prmt
// Stochastic rounding compares frac * 2^32 with the random word in f64.
// RHT: arith.uitofp %{{.*}} : i32 to f64
// RHT: arith.cmpf ogt, %{{.*}}, %{{.*}} : f64
// RHT: memref.load %[[RNG]]
// RHT: arith.xori %{{.*}}, %c-9223372036854775808_i64
// The columnwise block is transformed from the tile (eight BF16 pairs).
// RHT-COUNT-8: nvvm.convert.f32x2.to.bf16x2
// RHT: gpu.return

// RHT-LABEL: func.func @rht(
// RHT: gpu.launch_func async [%{{.*}}] @teq_kernels::@q0_rht_amax blocks in (%c2,
// RHT-SAME: args(%arg0 : memref<32768xbf16>, %{{.*}} : memref<1xf32>, %{{.*}} : memref<1xf32>)
// RHT: gpu.launch_func async [%{{.*}}] @teq_kernels::@q0_nvfp4 blocks in (%c4, %c2{{(_[0-9]+)?}},
// RHT-SAME: %arg1 : memref<2xi64>)

//--- twod.mlir
// 16x16 scaling blocks on whole tiles: each code is computed once, by the
// rowwise phase, and the columnwise phase packs them.
module attributes {teq.target = #teq.target<sm_90>} {
  func.func @twod(%x: tensor<64x128xf16>) -> !teq.proto<64x128xf16, #teq.nvfp4_quantizer<f4E2M1FN, with_2d_quantization = true>, rowwise|columnwise> {
    %q = teq.quantize %x : tensor<64x128xf16> -> !teq.proto<64x128xf16, #teq.nvfp4_quantizer<f4E2M1FN, with_2d_quantization = true>, rowwise|columnwise>
    return %q : !teq.proto<64x128xf16, #teq.nvfp4_quantizer<f4E2M1FN, with_2d_quantization = true>, rowwise|columnwise>
  }
}

// TWOD-LABEL: gpu.func @q0_nvfp4(
// TWOD-SAME: workgroup(%[[TILE:[^ ]*]] : memref<4096xf16, #gpu.address_space<workgroup>> {llvm.align = 16 : i64}, %[[PART:[^ ]*]] : memref<256xf32, #gpu.address_space<workgroup>>, %[[TAMAX:[^ ]*]] : memref<16xf32, #gpu.address_space<workgroup>>, %{{[^ ]*}} : memref<8xf32, #gpu.address_space<workgroup>>, %{{[^ ]*}} : memref<256xi8, #gpu.address_space<workgroup>> {llvm.align = 4 : i64}, %{{[^ ]*}} : memref<256xi8, #gpu.address_space<workgroup>> {llvm.align = 4 : i64}, %{{[^ ]*}} : memref<2560xi8, #gpu.address_space<workgroup>> {llvm.align = 8 : i64}, %[[CODES:[^ ]*]] : memref<4096xi8, #gpu.address_space<workgroup>> {llvm.align = 16 : i64}, %[[TCODE:[^ ]*]] : memref<16xi8, #gpu.address_space<workgroup>>, %[[TENC:[^ ]*]] : memref<16xf32, #gpu.address_space<workgroup>>)
// TWOD-NOT: nvvm.maxnreg
// Each thread's 16-element partial, then (after the constants' barrier)
// threads 0..15 reduce a 16x16 tile each and compute its scale once.
// TWOD: vector.reduction <maxnumf>, %{{.*}}, %{{.*}} : vector<16xf32> into f32
// TWOD-NEXT: memref.store %{{.*}}, %[[PART]]
// TWOD: gpu.barrier
// TWOD: memref.load %[[PART]]
// TWOD: memref.store %{{.*}}, %[[TAMAX]]
// TWOD: nvvm.convert.f32x2.to.f8x2
// TWOD: memref.store %{{.*}}, %[[TCODE]]
// TWOD-NEXT: memref.store %{{.*}}, %[[TENC]]
// TWOD: gpu.barrier
// Rowwise: blocks with a NaN take the general path, the others the fast
// one; both leave every code for the columnwise phase.
// TWOD: arith.cmpf uno
// TWOD: memref.load %[[TCODE]]
// TWOD: vector.store %{{.*}}, %[[CODES]][%{{.*}}] {alignment = 16 : i64} : memref<4096xi8, #gpu.address_space<workgroup>>, vector<16xi8>
// TWOD: } else {
// TWOD: memref.load %[[TCODE]]
// TWOD: vector.store %{{.*}}, %[[CODES]][%{{.*}}] {alignment = 16 : i64}
// Columnwise, after a barrier: 16 codes down a column of the codes,
// packed two a byte; no E2M1 rounding of its own.
// TWOD: gpu.barrier
// TWOD: memref.load %[[TCODE]]
// TWOD-COUNT-16: memref.load %[[CODES]]
// TWOD-NOT: memref.load %[[TILE]]
// TWOD: vector.from_elements {{.*}} : vector<8xi8>
// TWOD: gpu.barrier
// TWOD: gpu.return

//--- padded-ada.mlir
// A partial tile with padded scale buffers, rowwise only, on Ada: the
// scale padding is zero-filled first, scales go straight to memory, and
// no programmatic dependent launch (Hopper and later).
module attributes {teq.target = #teq.target<sm_89>} {
  func.func @padded(%x: tensor<48x48xf32>) -> !teq.proto<48x48xf32, #teq.nvfp4_quantizer<f4E2M1FN>, rowwise> {
    %q = teq.quantize %x : tensor<48x48xf32> -> !teq.proto<48x48xf32, #teq.nvfp4_quantizer<f4E2M1FN>, rowwise>
    return %q : !teq.proto<48x48xf32, #teq.nvfp4_quantizer<f4E2M1FN>, rowwise>
  }
}

// PAD-NOT: dependent_launch_kernels\22:[\22
// PAD-LABEL: gpu.func @q0_amax(
// PAD-SAME: memref<2304xf32>, %{{[^:]*}}: memref<1xf32>)
// PAD-NOT: griddepcontrol
// PAD: vector.load %{{.*}} {alignment = 16 : i64} : memref<2304xf32>, vector<4xf32>
// PAD: gpu.return
// PAD-LABEL: gpu.func @q0_nvfp4_row(
// PAD-SAME: %[[X:[^:]*]]: memref<2304xf32>, %[[DATA:[^:]*]]: memref<1152xi8>, %[[SCALE:[^:]*]]: memref<512xi8>)
// PAD-SAME: workgroup(%{{[^ ]*}} : memref<4096xf32, #gpu.address_space<workgroup>> {llvm.align = 16 : i64}, %{{[^ ]*}} : memref<256xf32, #gpu.address_space<workgroup>>, %{{[^ ]*}} : memref<16xf32, #gpu.address_space<workgroup>>, %{{[^ ]*}} : memref<8xf32, #gpu.address_space<workgroup>>) kernel
// PAD-NOT: griddepcontrol
// Out-of-range rows and columns stage zeros, one element at a time.
// PAD: vector.load %[[X]][%{{.*}}] {alignment = 16 : i64} : memref<2304xf32>, vector<16xf32>
// PAD: } else {
// PAD: scf.for
// PAD: memref.load %[[X]]
// PAD: vector.insert
// PAD: memref.store %{{.*}}, %[[SCALE]][%{{.*}}] : memref<512xi8>
// PAD: vector.store %{{.*}}, %[[DATA]][%{{.*}}] {alignment = 8 : i64}
// PAD: gpu.return
// PAD-LABEL: gpu.func @q0_zero_rs(
// PAD-SAME: %[[BUF:[^:]*]]: memref<512xi8>)
// PAD: gpu.grid_dim  x
// PAD: scf.for
// PAD-NEXT: memref.store %{{.*}}, %[[BUF]]
// PAD-LABEL: func.func @padded(
// PAD: gpu.launch_func async [%{{.*}}] @teq_kernels::@q0_zero_rs blocks in (%c2,
// PAD: gpu.launch_func async [%{{.*}}] @teq_kernels::@q0_amax blocks in (%c3,
// PAD: gpu.launch_func async [%{{.*}}] @teq_kernels::@q0_nvfp4_row blocks in (%c1{{(_[0-9]+)?}}, %c1

//--- blackwell.mlir
// Round to nearest by Blackwell's cvt, columnwise only.
module attributes {teq.target = #teq.target<sm_100a>} {
  func.func @hw(%x: tensor<64x128xbf16>) -> !teq.proto<64x128xbf16, #teq.nvfp4_quantizer<f4E2M1FN>, columnwise> {
    %q = teq.quantize %x : tensor<64x128xbf16> -> !teq.proto<64x128xbf16, #teq.nvfp4_quantizer<f4E2M1FN>, columnwise>
    return %q : !teq.proto<64x128xbf16, #teq.nvfp4_quantizer<f4E2M1FN>, columnwise>
  }
}

// HW-LABEL: gpu.func @q0_nvfp4_col(
// HW-NOT: vector.reduction <maximumf>
// HW-NOT: nvvm.prmt
// HW-COUNT-16: nvvm.convert.f32x2.to.f4x2 %[[V:.*]], %[[V]] : i8(f4E2M1FN)
// HW-NOT: nvvm.convert.f32x2.to.f4x2
// HW: gpu.return

//--- linear.mlir
// An NVFP4 Linear's GEMMs take their alpha from the operands' amaxes, on
// the device.
module attributes {teq.target = #teq.target<sm_100a>} {
  func.func @linear(%x: tensor<128x256xbf16>, %w: tensor<384x256xbf16>) -> tensor<128x384xbf16> {
    %r = teq.autocast recipe(#teq.nvfp4_block_scaling<>) -> tensor<128x384xbf16> {
      %out, %sx, %sw = teq.linear_forward %x, %w config(#teq.linear<>) : tensor<128x256xbf16>, tensor<384x256xbf16> -> tensor<128x384xbf16> saved_input(tensor<128x256xbf16>) saved_weight(tensor<384x256xbf16>)
      teq.yield %out : tensor<128x384xbf16>
    }
    return %r : tensor<128x384xbf16>
  }
}

// ALPHA-LABEL: gpu.func @g{{[0-9]+}}_alpha(
// ALPHA-SAME: %[[A:[^:]*]]: memref<1xf32>, %[[B:[^:]*]]: memref<1xf32>, %[[ALPHA:[^:]*]]: memref<1xf32>)
// ALPHA: scf.if
// ALPHA-NEXT: %[[AV:.*]] = memref.load %[[A]]
// ALPHA-NEXT: %[[BV:.*]] = memref.load %[[B]]
// ALPHA-NEXT: %[[AB:.*]] = arith.mulf %[[AV]], %[[BV]] : f32
// 6 * 6 * 448 * 448 = 7225344.
// ALPHA-NEXT: %[[DEN:.*]] = arith.constant 0x4ADC8000 : f32
// ALPHA-NEXT: %[[R:.*]] = arith.divf %[[AB]], %[[DEN]] : f32
// ALPHA-NEXT: memref.store %[[R]], %[[ALPHA]]
// ALPHA: gpu.launch_func async [%{{.*}}] @teq_kernels::@g{{[0-9]+}}_alpha blocks in (%c1{{(_[0-9]+)?}}, %c1{{(_[0-9]+)?}}, %c1{{(_[0-9]+)?}})
