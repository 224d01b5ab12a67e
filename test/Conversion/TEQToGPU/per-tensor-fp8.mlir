// Per-tensor FP8 quantization kernels (te-semantics.md §5.1, §5.2) as
// convert-teq-to-gpu emits them (Kernels/PerTensorFP8): what each kernel
// reads and writes, its vector widths, barriers and reductions, and the
// launches with their grids.
// RUN: split-file %s %t
// RUN: te-opt %t/current-hopper.mlir --convert-teq-to-gpu | FileCheck %s --check-prefix=CUR
// RUN: te-opt %t/current-large.mlir --convert-teq-to-gpu | FileCheck %s --check-prefix=LARGE
// RUN: te-opt %t/delayed.mlir --convert-teq-to-gpu | FileCheck %s --check-prefix=DEL
// RUN: te-opt %t/current-f32-blackwell.mlir --convert-teq-to-gpu | FileCheck %s --check-prefix=F32

//--- current-hopper.mlir
// Current scaling of a small tensor on Hopper (non-TN: a transposed copy):
// the amax pass, then the cast, which reduces the partials and computes the
// scale itself; 64x64 tiles transposed through shared memory.
module attributes {teq.target = #teq.target<sm_90>} {
  func.func @current(%x: tensor<128x256xbf16>) -> !teq.proto<128x256xbf16, #teq.float8_current_scaling_quantizer<f8E4M3FN>, rowwise|columnwise> {
    %q = teq.quantize %x : tensor<128x256xbf16> -> !teq.proto<128x256xbf16, #teq.float8_current_scaling_quantizer<f8E4M3FN>, rowwise|columnwise>
    return %q : !teq.proto<128x256xbf16, #teq.float8_current_scaling_quantizer<f8E4M3FN>, rowwise|columnwise>
  }
}

// One partial per amax block; no scale global (the cast computes it).
// CUR: memref.global "private" @q0_partials : memref<16xf32, #gpu.address_space<global>>
// CUR-NOT: memref.global

// CUR-LABEL: gpu.func @q0_cast(
// CUR-SAME: %{{.*}}: memref<32768xbf16>, %[[DATA:[^:]*]]: memref<32768xi8>, %[[TRANSPOSE:[^:]*]]: memref<32768xi8>, %[[SINV:[^:]*]]: memref<1xf32>)
// CUR-SAME: workgroup(%[[TILE:[^ ]*]] : memref<5120xi8, #gpu.address_space<workgroup>>, %[[SLOTS:[^ ]*]] : memref<8xf32, #gpu.address_space<workgroup>>)
// CUR-SAME: known_block_size = array<i32: 256, 1, 1>
// Phase 1's load first (a row's 16 elements, one 16-byte load; tiles in
// reverse order), then the scale.
// CUR: gpu.block_id  x
// CUR: arith.subi %c3, %block_id_x : index
// CUR: gpu.block_id  y
// CUR: arith.subi %c1, %block_id_y : index
// CUR: vector.load %{{.*}} {alignment = 16 : i64} : memref<32768xbf16>, vector<16xbf16>
// The fused scale: the partials' max (a block reduction every block
// repeats), compute_scale_from_amax, block (0, 0) thread 0 writes scale_inv.
// CUR-NOT: nvvm.griddepcontrol
// CUR: memref.get_global @q0_partials
// CUR-COUNT-5: gpu.shuffle  xor
// CUR: memref.store %{{.*}}, %[[SLOTS]]
// CUR-NEXT: }
// CUR-NEXT: gpu.barrier
// CUR: memref.load %[[SLOTS]]
// CUR: arith.constant 4.480000e+02 : f32
// CUR: arith.constant 3.40282347E+38 : f32
// CUR-NEXT: arith.select
// CUR-NEXT: %[[SCALE:.*]] = arith.select
// CUR-NEXT: %[[INV:.*]] = arith.divf %{{.*}}, %[[SCALE]] : f32
// CUR: memref.store %[[INV]], %[[SINV]]
// Phase 1: the loaded elements scaled, eight cvt pairs, the bytes to the
// data and into the tile.
// CUR: vector.broadcast %[[SCALE]] : f32 to vector<16xf32>
// CUR: arith.extf %{{.*}} : vector<16xbf16> to vector<16xf32>
// CUR-COUNT-8: nvvm.convert.f32x2.to.f8x2 {{.*}} : i16(f8E4M3FN)
// CUR: vector.bitcast %{{.*}} : vector<8xi16> to vector<16xi8>
// CUR-NEXT: vector.store %{{.*}}, %[[DATA]][%{{.*}}] {alignment = 16 : i64} : memref<32768xi8>, vector<16xi8>
// CUR-NEXT: vector.store %{{.*}}, %[[TILE]][%{{.*}}] {alignment = 16 : i64}
// Rows and columns past the tensor's edge: one element at a time.
// CUR: } else {
// CUR: scf.for
// CUR: memref.load %{{.*}} : memref<32768xbf16>
// CUR: nvvm.convert.f32x2.to.f8x2
// CUR: memref.store %{{.*}}, %[[DATA]]
// CUR: memref.store %{{.*}}, %[[TILE]]
// Phase 2: a tile column's 16 bytes, one 16-byte store to the transpose.
// CUR: gpu.barrier
// CUR-COUNT-16: memref.load %[[TILE]]
// CUR: vector.from_elements {{.*}} : vector<16xi8>
// CUR: vector.store %{{.*}}, %[[TRANSPOSE]][%{{.*}}] {alignment = 16 : i64} : memref<32768xi8>, vector<16xi8>
// CUR: } else {
// CUR: vector.extract
// CUR: memref.store %{{.*}}, %[[TRANSPOSE]]
// No amax is recorded: the partials came from the amax pass.
// CUR-NOT: memref.store {{.*}} memref<16xf32
// CUR: gpu.return

// CUR-LABEL: gpu.func @q0_amax(
// CUR-SAME: %[[X:[^:]*]]: memref<32768xbf16>) workgroup(%[[ASLOTS:[^ ]*]] : memref<8xf32, #gpu.address_space<workgroup>>)
// Four independent 16-byte loads in flight, then one at a time, then the
// last elements one a thread.
// CUR: scf.for
// CUR-COUNT-4: vector.load %[[X]][%{{.*}}] {alignment = 16 : i64} : memref<32768xbf16>, vector<8xbf16>
// CUR-COUNT-4: vector.reduction <maxnumf>, %{{.*}} : vector<8xf32> into f32
// CUR: scf.for
// CUR: vector.load %[[X]][%{{.*}}] {alignment = 16 : i64} : memref<32768xbf16>, vector<8xbf16>
// CUR: vector.reduction <maxnumf>
// CUR: scf.if
// CUR: memref.load %[[X]]
// The block's max: warp shuffles, a slot per warp, a barrier, thread 0.
// CUR: %[[BID:.*]] = gpu.block_id  x
// CUR-COUNT-5: gpu.shuffle  xor
// CUR: memref.store %{{.*}}, %[[ASLOTS]]
// CUR: gpu.barrier
// CUR: scf.for
// CUR: memref.load %[[ASLOTS]]
// CUR: %[[PARTIALS:.*]] = memref.get_global @q0_partials
// CUR-NEXT: memref.store %{{.*}}, %[[PARTIALS]][%[[BID]]]
// CUR: gpu.return

// Launches: the amax pass over 16 blocks, then the cast's 4 x 2 tiles.
// CUR-LABEL: func.func @current(
// CUR: gpu.launch_func async [%{{.*}}] @teq_kernels::@q0_amax blocks in (%c16, %c1{{(_[0-9]+)?}}, %c1{{(_[0-9]+)?}}) threads in (%c256{{(_[0-9]+)?}}, %c1{{(_[0-9]+)?}}, %c1{{(_[0-9]+)?}})  args(%arg0 : memref<32768xbf16>)
// CUR-NOT: gpu.launch_func
// CUR: gpu.launch_func async [%{{.*}}] @teq_kernels::@q0_cast blocks in (%c4, %c2, %c1{{(_[0-9]+)?}}) threads in (%c256{{(_[0-9]+)?}}, %c1{{(_[0-9]+)?}}, %c1{{(_[0-9]+)?}})  args(%arg0 : memref<32768xbf16>, %arg1 : memref<32768xi8>, %arg2 : memref<32768xi8>, %arg3 : memref<1xf32>)

//--- current-large.mlir
// Current scaling of a large tensor, rowwise only: the amax pass's last
// block computes the scale (stored in a device global the cast reads), and
// the cast is elementwise (a grid-stride loop, no tile).
module attributes {teq.target = #teq.target<sm_90>} {
  func.func @large(%x: tensor<2048x4096xbf16>) -> !teq.proto<2048x4096xbf16, #teq.float8_current_scaling_quantizer<f8E4M3FN>, rowwise> {
    %q = teq.quantize %x : tensor<2048x4096xbf16> -> !teq.proto<2048x4096xbf16, #teq.float8_current_scaling_quantizer<f8E4M3FN>, rowwise>
    return %q : !teq.proto<2048x4096xbf16, #teq.float8_current_scaling_quantizer<f8E4M3FN>, rowwise>
  }
}

// No partials: the amax pass folds its blocks' maxima into one running max
// (an atomic max of their patterns) and counts the blocks done.
// LARGE: memref.global "private" @q0_amax_acc : memref<1xi32, #gpu.address_space<global>> = dense<0>
// LARGE-NEXT: memref.global "private" @q0_amax_count : memref<1xi32, #gpu.address_space<global>> = dense<0>
// LARGE-NEXT: memref.global "private" @q0_scale_value : memref<1xf32, #gpu.address_space<global>>
// LARGE-NOT: @q0_partials

// The cast: a programmatic dependent of the amax pass, which waits for it
// before it reads the scale.
// LARGE-LABEL: gpu.func @q0_cast(
// LARGE-SAME: %[[X:[^:]*]]: memref<8388608xbf16>, %[[DATA:[^:]*]]: memref<8388608xi8>) workgroup(%{{[^ ]*}} : memref<8xf32, #gpu.address_space<workgroup>>)
// LARGE-NEXT: nvvm.griddepcontrol  wait
// LARGE: %[[SV:.*]] = memref.get_global @q0_scale_value
// LARGE-NEXT: %[[SCALE:.*]] = memref.load %[[SV]]
// LARGE: vector.broadcast %[[SCALE]] : f32 to vector<16xf32>
// LARGE: gpu.grid_dim  x
// LARGE: scf.for
// LARGE: vector.load %[[X]][%[[OFF:.*]]] {alignment = 16 : i64} : memref<8388608xbf16>, vector<16xbf16>
// LARGE-COUNT-8: nvvm.convert.f32x2.to.f8x2
// LARGE: vector.store %{{.*}}, %[[DATA]][%[[OFF]]] {alignment = 16 : i64} : memref<8388608xi8>, vector<16xi8>
// The n % 16 elements after the last chunk, one a thread.
// LARGE: scf.if
// LARGE: memref.load %[[X]]
// LARGE: %[[PAIR:.*]] = nvvm.convert.f32x2.to.f8x2 %cst{{.*}}, %{{.*}} {rnd = #nvvm.fp_rnd_mode<rn>, sat = #nvvm.sat_mode<satfinite>} : i16(f8E4M3FN)
// LARGE-NEXT: %[[BYTE:.*]] = arith.trunci %[[PAIR]] : i16 to i8
// LARGE-NEXT: memref.store %[[BYTE]], %[[DATA]]
// LARGE-NOT: gpu.barrier
// LARGE: gpu.return

// The amax pass lets the cast launch at once, and its last block computes
// the scale.
// LARGE-LABEL: gpu.func @q0_amax(
// LARGE-SAME: %{{[^:]*}}: memref<8388608xbf16>, %[[SINV:[^:]*]]: memref<1xf32>) workgroup(%{{[^ ]*}} : memref<8xf32, #gpu.address_space<workgroup>>)
// LARGE-NEXT: nvvm.griddepcontrol  launch_dependents
// Thread 0, after the block's reduction: the running max, a fence, the count.
// LARGE: %[[ACC:.*]] = memref.get_global @q0_amax_acc
// LARGE-NEXT: %[[COUNT:.*]] = memref.get_global @q0_amax_count
// LARGE-NEXT: %[[BITS:.*]] = arith.bitcast %{{.*}} : f32 to i32
// LARGE: memref.atomic_rmw maxu %[[BITS]], %[[ACC]]
// LARGE-NEXT: nvvm.memory.barrier
// LARGE: %[[DONE:.*]] = memref.atomic_rmw addi %{{.*}}, %[[COUNT]]
// LARGE: %[[LAST:.*]] = arith.cmpi eq, %[[DONE]], %c1023_i32
// LARGE-NEXT: scf.if %[[LAST]] {
// LARGE: memref.atomic_rmw maxu %c0_i32, %[[ACC]]
// compute_scale_from_amax: eps, special values, fp8_max / amax, FLT_MAX
// when that overflows; no power-of-two rounding here.
// LARGE: arith.cmpf olt
// LARGE: arith.cmpf oeq
// LARGE: arith.cmpf uno
// LARGE: arith.constant 4.480000e+02 : f32
// LARGE: arith.divf
// LARGE: arith.constant 3.40282347E+38 : f32
// LARGE-NEXT: arith.select
// LARGE-NEXT: %[[SCALE2:.*]] = arith.select
// LARGE-NEXT: %[[INV:.*]] = arith.divf %{{.*}}, %[[SCALE2]]
// LARGE: %[[SV2:.*]] = memref.get_global @q0_scale_value
// LARGE-NEXT: memref.store %[[SCALE2]], %[[SV2]]
// LARGE: memref.store %[[INV]], %[[SINV]]
// Both globals reset for the next launch.
// LARGE: memref.store %{{.*}}, %[[ACC]]
// LARGE: memref.store %{{.*}}, %[[COUNT]]
// LARGE: gpu.return

// Launches: amax (1024 blocks), then the cast (2048 blocks); no scale kernel.
// LARGE-LABEL: func.func @large(
// LARGE: @teq_kernels::@q0_amax blocks in (%c1024, %c1{{(_[0-9]+)?}}, %c1{{(_[0-9]+)?}}) {{.*}} args(%arg0 : memref<8388608xbf16>, %arg2 : memref<1xf32>)
// LARGE-NOT: q0_scale
// LARGE: @teq_kernels::@q0_cast blocks in (%c2048, %c1{{(_[0-9]+)?}}, %c1{{(_[0-9]+)?}}) {{.*}} args(%arg0 : memref<8388608xbf16>, %arg1 : memref<8388608xi8>)

//--- delayed.mlir
// Delayed scaling: the cast multiplies by the stored scale and records each
// block's max|x| in the same read of x; the record kernel folds the
// partials into history[0] and writes scale_inv = 1 / scale.
module attributes {teq.target = #teq.target<sm_90>} {
  func.func @delayed(%x: tensor<256x64xbf16>, %scale: tensor<1xf32>, %history: tensor<16xf32>) -> (!teq.proto<256x64xbf16, #teq.float8_quantizer<f8E4M3FN>, rowwise|columnwise>, tensor<16xf32>) {
    %q, %h = teq.quantize %x state(%scale, %history : tensor<1xf32>, tensor<16xf32>) : tensor<256x64xbf16> -> !teq.proto<256x64xbf16, #teq.float8_quantizer<f8E4M3FN>, rowwise|columnwise>, tensor<16xf32>
    return %q, %h : !teq.proto<256x64xbf16, #teq.float8_quantizer<f8E4M3FN>, rowwise|columnwise>, tensor<16xf32>
  }
}

// One partial per cast block (1 x 4 tiles).
// DEL: memref.global "private" @q0_partials : memref<4xf32, #gpu.address_space<global>>
// DEL-NOT: memref.global

// DEL-LABEL: gpu.func @q0_cast(
// DEL-SAME: %{{.*}}: memref<16384xbf16>, %[[SCALEIN:[^:]*]]: memref<1xf32>, %{{.*}}: memref<16384xi8>, %{{.*}}: memref<16384xi8>)
// DEL-SAME: workgroup(%[[TILE:[^ ]*]] : memref<5120xi8, #gpu.address_space<workgroup>>, %[[SLOTS:[^ ]*]] : memref<8xf32, #gpu.address_space<workgroup>>)
// DEL: %[[SCALE:.*]] = memref.load %[[SCALEIN]]
// DEL: vector.broadcast %[[SCALE]]
// DEL: vector.reduction <maxnumf>, %{{.*}} : vector<16xf32> into f32
// DEL: gpu.barrier
// DEL: vector.from_elements {{.*}} : vector<16xi8>
// The block's max|x| into partials[by * gridDim.x + bx].
// DEL: %[[GX:.*]] = gpu.grid_dim  x
// DEL: %[[ROW:.*]] = arith.muli %{{.*}}, %[[GX]]
// DEL: %[[INDEX:.*]] = arith.addi %[[ROW]]
// DEL-COUNT-5: gpu.shuffle  xor
// DEL: memref.store %{{.*}}, %[[SLOTS]]
// DEL: gpu.barrier
// DEL: %[[PARTIALS:.*]] = memref.get_global @q0_partials
// DEL-NEXT: memref.store %{{.*}}, %[[PARTIALS]][%[[INDEX]]]
// DEL: gpu.return

// DEL-LABEL: gpu.func @q0_record(
// DEL-SAME: %[[S:[^:]*]]: memref<1xf32>, %[[HIST:[^:]*]]: memref<16xf32>, %[[UPDATED:[^:]*]]: memref<16xf32>, %[[SINV:[^:]*]]: memref<1xf32>)
// History entries 1.. are copied unchanged.
// DEL: scf.for %[[I:.*]] = %thread_id_x to %c16 step %c256
// DEL: arith.cmpi ne, %[[I]]
// DEL: memref.load %[[HIST]][%[[I]]]
// DEL: memref.store %{{.*}}, %[[UPDATED]][%[[I]]]
// DEL: memref.get_global @q0_partials
// DEL-COUNT-5: gpu.shuffle  xor
// DEL: gpu.barrier
// history[0] = fmaxf(history[0], amax); scale_inv = 1 / scale.
// DEL: memref.load %[[HIST]]
// DEL: arith.cmpf ogt
// DEL: arith.cmpf uno
// DEL: memref.store %{{.*}}, %[[UPDATED]]
// DEL: %[[STORED:.*]] = memref.load %[[S]]
// DEL: %[[INV:.*]] = arith.divf %cst{{.*}}, %[[STORED]]
// DEL: memref.store %[[INV]], %[[SINV]]

// DEL-LABEL: func.func @delayed(
// DEL: @teq_kernels::@q0_cast blocks in (%c1{{(_[0-9]+)?}}, %c4, %c1{{(_[0-9]+)?}}) {{.*}} args(%arg0 : memref<16384xbf16>, %arg1 : memref<1xf32>, %arg3 : memref<16384xi8>, %arg4 : memref<16384xi8>)
// DEL: @teq_kernels::@q0_record blocks in (%c1{{(_[0-9]+)?}}, %c1{{(_[0-9]+)?}}, %c1{{(_[0-9]+)?}}) {{.*}} args(%arg1 : memref<1xf32>, %arg2 : memref<16xf32>, %arg6 : memref<16xf32>, %arg5 : memref<1xf32>)

//--- current-f32-blackwell.mlir
// f32 input, E5M2, power-of-two scales on Blackwell (TN for every layout:
// no transposed copy, so the cast is elementwise).
module attributes {teq.target = #teq.target<sm_100>} {
  func.func @blackwell(%x: tensor<5x160xf32>) -> !teq.proto<5x160xf32, #teq.float8_current_scaling_quantizer<f8E5M2, force_pow_2_scales = true>, rowwise|columnwise> {
    %q = teq.quantize %x : tensor<5x160xf32> -> !teq.proto<5x160xf32, #teq.float8_current_scaling_quantizer<f8E5M2, force_pow_2_scales = true>, rowwise|columnwise>
    return %q : !teq.proto<5x160xf32, #teq.float8_current_scaling_quantizer<f8E5M2, force_pow_2_scales = true>, rowwise|columnwise>
  }
}

// F32-LABEL: gpu.func @q0_cast(
// F32-SAME: %{{.*}}: memref<800xf32>, %{{.*}}: memref<800xi8>, %{{.*}}: memref<1xf32>) workgroup(%{{[^ ]*}} : memref<8xf32, #gpu.address_space<workgroup>>)
// The E5M2 maximum, and the scale rounded down to a power of two.
// F32: arith.constant 5.734400e+04 : f32
// F32: arith.andi %{{.*}}, %c-8388608_i32 : i32
// F32: vector.load %{{.*}} : memref<800xf32>, vector<16xf32>
// f32 needs no widening.
// F32-NOT: arith.extf
// F32-COUNT-8: nvvm.convert.f32x2.to.f8x2 {{.*}} : i16(f8E5M2)
// F32: gpu.return

// Four f32 a 16-byte load.
// F32-LABEL: gpu.func @q0_amax(
// F32-COUNT-4: vector.load %{{.*}} : memref<800xf32>, vector<4xf32>
// F32-NOT: arith.extf
// F32: gpu.return
