// The kernels that move bytes (Kernels/Auxiliary) as convert-teq-to-gpu
// emits them: every one a grid-stride loop of 256-thread blocks over the
// elements, one element an iteration. Pinned: the copy (same index both
// sides), the transpose of per-tensor FP8 data that teq.update_usage
// derives on Hopper (element (r, c) of the M x K data to c * M + r of the
// transpose), tensor.extract_slice / insert_slice (the full tensor's index
// from the slice's offsets and strides; insert_slice copies the destination
// first), the scale swizzle of teq.swizzle_scales into cuBLAS's 128x4 tiles
// (te-semantics.md §4.2; MXFP8's columnwise scales transposed), kernel names,
// argument orders, grids; identical copies share one kernel; and the ops the
// lowering refuses.
// RUN: split-file %s %t
// RUN: te-opt %t/slices.mlir --convert-teq-to-gpu | FileCheck %s --check-prefix=SLICE
// RUN: te-opt %t/transpose.mlir --convert-teq-to-gpu | FileCheck %s --check-prefix=TRANS
// RUN: te-opt %t/swizzle.mlir --convert-teq-to-gpu | FileCheck %s --check-prefix=SWZ
// RUN: te-opt %t/errors.mlir --convert-teq-to-gpu --split-input-file -verify-diagnostics

//--- slices.mlir
// A 16x6 f32 state: rows 1, 3, .., 15 of columns 3..4 extracted; a part
// written over rows 0, 2, .., 14 of columns 4..5 of a copy of the state.
module attributes {teq.target = #teq.target<sm_90>} {
  func.func @slices(%state: tensor<16x6xf32>, %part: tensor<8x2xf32>) -> (tensor<8x2xf32>, tensor<16x6xf32>) {
    %e = tensor.extract_slice %state[1, 3] [8, 2] [2, 1] : tensor<16x6xf32> to tensor<8x2xf32>
    %i = tensor.insert_slice %part into %state[0, 4] [8, 2] [2, 1] : tensor<8x2xf32> into tensor<16x6xf32>
    return %e, %i : tensor<8x2xf32>, tensor<16x6xf32>
  }
}

// The grid-stride loop over the slice's 16 elements; element i = (r, c)
// with c = i % 2, r = (i / 2) % 8 reads full[(c + 3) + (2r + 1) * 6].
// SLICE-LABEL: gpu.func @s0_extract_slice(
// SLICE-SAME: %[[FULL:[^:]*]]: memref<96xf32>, %[[PART:[^:]*]]: memref<16xf32>) kernel attributes {known_block_size = array<i32: 256, 1, 1>}
// SLICE-NEXT: %[[C256:.*]] = arith.constant 256 : index
// SLICE-NEXT: %[[TX:.*]] = gpu.thread_id  x
// SLICE-NEXT: %[[BX:.*]] = gpu.block_id  x
// SLICE-NEXT: %[[GX:.*]] = gpu.grid_dim  x
// SLICE-NEXT: %[[B0:.*]] = arith.muli %[[BX]], %[[C256]] : index
// SLICE-NEXT: %[[START:.*]] = arith.addi %[[B0]], %[[TX]] : index
// SLICE-NEXT: %[[STEP:.*]] = arith.muli %[[GX]], %[[C256]] : index
// SLICE-NEXT: %[[N:.*]] = arith.constant 16 : index
// SLICE-NEXT: scf.for %[[I:.*]] = %[[START]] to %[[N]] step %[[STEP]] {
// SLICE-NEXT: %[[Z:.*]] = arith.constant 0 : index
// SLICE-NEXT: %[[S1:.*]] = arith.constant 2 : index
// SLICE-NEXT: %[[COL:.*]] = arith.remui %[[I]], %[[S1]] : index
// SLICE-NEXT: %[[REST:.*]] = arith.divui %[[I]], %[[S1]] : index
// SLICE-NEXT: %[[ST1:.*]] = arith.constant 1 : index
// SLICE-NEXT: %[[COLS:.*]] = arith.muli %[[COL]], %[[ST1]] : index
// SLICE-NEXT: %[[OFF1:.*]] = arith.constant 3 : index
// SLICE-NEXT: %[[COLC:.*]] = arith.addi %[[COLS]], %[[OFF1]] : index
// SLICE-NEXT: %[[FS1:.*]] = arith.constant 1 : index
// SLICE-NEXT: %[[T1:.*]] = arith.muli %[[COLC]], %[[FS1]] : index
// SLICE-NEXT: %[[AT1:.*]] = arith.addi %[[Z]], %[[T1]] : index
// SLICE-NEXT: %[[S0:.*]] = arith.constant 8 : index
// SLICE-NEXT: %[[ROW:.*]] = arith.remui %[[REST]], %[[S0]] : index
// SLICE-NEXT: arith.divui %[[REST]], %[[S0]] : index
// SLICE-NEXT: %[[ST0:.*]] = arith.constant 2 : index
// SLICE-NEXT: %[[ROWS:.*]] = arith.muli %[[ROW]], %[[ST0]] : index
// SLICE-NEXT: %[[OFF0:.*]] = arith.constant 1 : index
// SLICE-NEXT: %[[ROWC:.*]] = arith.addi %[[ROWS]], %[[OFF0]] : index
// SLICE-NEXT: %[[FS0:.*]] = arith.constant 6 : index
// SLICE-NEXT: %[[T0:.*]] = arith.muli %[[ROWC]], %[[FS0]] : index
// SLICE-NEXT: %[[AT:.*]] = arith.addi %[[AT1]], %[[T0]] : index
// SLICE-NEXT: %[[V:.*]] = memref.load %[[FULL]][%[[AT]]] : memref<96xf32>
// SLICE-NEXT: memref.store %[[V]], %[[PART]][%[[I]]] : memref<16xf32>
// SLICE-NEXT: }
// SLICE-NEXT: gpu.return

// SLICE-LABEL: gpu.func @c1_copy(
// SLICE-SAME: %[[CSRC:[^:]*]]: memref<96xf32>, %[[CDST:[^:]*]]: memref<96xf32>)
// SLICE: %[[CN:.*]] = arith.constant 96 : index
// SLICE-NEXT: scf.for %[[CI:.*]] = %{{.*}} to %[[CN]] step %{{.*}} {
// SLICE-NEXT: %[[CV:.*]] = memref.load %[[CSRC]][%[[CI]]] : memref<96xf32>
// SLICE-NEXT: memref.store %[[CV]], %[[CDST]][%[[CI]]] : memref<96xf32>
// SLICE-NEXT: }

// insert_slice: the same index math (offsets 0, 4), the store the other
// way: full[(c + 4) + (2r + 0) * 6] = part[i].
// SLICE-LABEL: gpu.func @s2_insert_slice(
// SLICE-SAME: %[[IFULL:[^:]*]]: memref<96xf32>, %[[IPART:[^:]*]]: memref<16xf32>)
// SLICE: scf.for %[[II:.*]] = %{{.*}} to %c16 step
// SLICE: %[[IOFF1:.*]] = arith.constant 4 : index
// SLICE-NEXT: arith.addi %{{.*}}, %[[IOFF1]] : index
// SLICE: %[[IST0:.*]] = arith.constant 2 : index
// SLICE-NEXT: arith.muli %{{.*}}, %[[IST0]] : index
// SLICE-NEXT: %[[IOFF0:.*]] = arith.constant 0 : index
// SLICE-NEXT: arith.addi %{{.*}}, %[[IOFF0]] : index
// SLICE-NEXT: %[[IFS0:.*]] = arith.constant 6 : index
// SLICE-NEXT: arith.muli %{{.*}}, %[[IFS0]] : index
// SLICE-NEXT: %[[IAT:.*]] = arith.addi
// SLICE-NEXT: %[[IV:.*]] = memref.load %[[IPART]][%[[II]]] : memref<16xf32>
// SLICE-NEXT: memref.store %[[IV]], %[[IFULL]][%[[IAT]]] : memref<96xf32>
// SLICE-NOT: gpu.func

// The extract into result 0; the state copied into result 1, then the part
// scattered into it. One block each.
// SLICE-LABEL: func.func @slices(
// SLICE-SAME: %[[STATE:[^:]*]]: memref<96xf32>, %[[P:[^:]*]]: memref<16xf32>, %[[R0:[^:]*]]: memref<16xf32>, %[[R1:[^:]*]]: memref<96xf32>) attributes {teq.entry}
// SLICE: gpu.launch_func async [%{{.*}}] @teq_kernels::@s0_extract_slice blocks in (%c1{{[_0-9]*}}, %c1{{[_0-9]*}}, %c1{{[_0-9]*}}) threads in (%c256, %c1{{[_0-9]*}}, %c1{{[_0-9]*}})  args(%[[STATE]] : memref<96xf32>, %[[R0]] : memref<16xf32>)
// SLICE: gpu.launch_func async [%{{.*}}] @teq_kernels::@c1_copy {{.*}} args(%[[STATE]] : memref<96xf32>, %[[R1]] : memref<96xf32>)
// SLICE: gpu.launch_func async [%{{.*}}] @teq_kernels::@s2_insert_slice {{.*}} args(%[[R1]] : memref<96xf32>, %[[P]] : memref<16xf32>)
// SLICE-NOT: gpu.launch_func

//--- transpose.mlir
// Delayed-scaling FP8 rowwise to rowwise|columnwise on Hopper: the data and
// scale_inv copied, the 64x96 transpose computed from the rowwise data.
module attributes {teq.target = #teq.target<sm_90>} {
  func.func @derive(%q: !teq.proto<64x96xbf16, #teq.float8_quantizer<f8E4M3FN>, rowwise>) -> !teq.proto<64x96xbf16, #teq.float8_quantizer<f8E4M3FN>, rowwise|columnwise> {
    %r = teq.update_usage %q : !teq.proto<64x96xbf16, #teq.float8_quantizer<f8E4M3FN>, rowwise> -> !teq.proto<64x96xbf16, #teq.float8_quantizer<f8E4M3FN>, rowwise|columnwise>
    return %r : !teq.proto<64x96xbf16, #teq.float8_quantizer<f8E4M3FN>, rowwise|columnwise>
  }
}

// TRANS-LABEL: gpu.func @c0_copy(
// TRANS-SAME: memref<6144xi8>, %{{[^:]*}}: memref<6144xi8>)
// TRANS-LABEL: gpu.func @t1_transpose(
// TRANS-SAME: %[[SRC:[^:]*]]: memref<6144xi8>, %[[DST:[^:]*]]: memref<6144xi8>) kernel attributes {known_block_size = array<i32: 256, 1, 1>}
// TRANS: scf.for %[[I:.*]] = %{{.*}} to %c6144 step %{{.*}} {
// TRANS-NEXT: %[[K:.*]] = arith.constant 96 : index
// TRANS-NEXT: %[[M:.*]] = arith.constant 64 : index
// TRANS-NEXT: %[[ROW:.*]] = arith.divui %[[I]], %[[K]] : index
// TRANS-NEXT: %[[COL:.*]] = arith.remui %[[I]], %[[K]] : index
// TRANS-NEXT: %[[CS:.*]] = arith.muli %[[COL]], %[[M]] : index
// TRANS-NEXT: %[[TO:.*]] = arith.addi %[[CS]], %[[ROW]] : index
// TRANS-NEXT: %[[V:.*]] = memref.load %[[SRC]][%[[I]]] : memref<6144xi8>
// TRANS-NEXT: memref.store %[[V]], %[[DST]][%[[TO]]] : memref<6144xi8>
// TRANS-LABEL: gpu.func @c2_copy(
// TRANS-SAME: memref<1xf32>, %{{[^:]*}}: memref<1xf32>)
// TRANS-NOT: gpu.func
// Result buffers: data, transpose, scale_inv. 6144 bytes: 24 blocks.
// TRANS-LABEL: func.func @derive(
// TRANS-SAME: %[[DATA:[^:]*]]: memref<6144xi8>, %[[SINV:[^:]*]]: memref<1xf32>, %[[RDATA:[^:]*]]: memref<6144xi8>, %[[RT:[^:]*]]: memref<6144xi8>, %[[RSINV:[^:]*]]: memref<1xf32>)
// TRANS: gpu.launch_func async [%{{.*}}] @teq_kernels::@c0_copy blocks in (%c24, %c1{{[_0-9]*}}, %c1{{[_0-9]*}}) threads in (%c256, %c1{{[_0-9]*}}, %c1{{[_0-9]*}})  args(%[[DATA]] : memref<6144xi8>, %[[RDATA]] : memref<6144xi8>)
// TRANS: gpu.launch_func async [%{{.*}}] @teq_kernels::@t1_transpose blocks in (%c24{{[_0-9]*}}, %c1{{[_0-9]*}}, %c1{{[_0-9]*}}) threads in (%c256{{[_0-9]*}}, %c1{{[_0-9]*}}, %c1{{[_0-9]*}})  args(%[[DATA]] : memref<6144xi8>, %[[RT]] : memref<6144xi8>)
// TRANS: gpu.launch_func async [%{{.*}}] @teq_kernels::@c2_copy blocks in (%c1{{[_0-9]*}}, %c1{{[_0-9]*}}, %c1{{[_0-9]*}}) {{.*}} args(%[[SINV]] : memref<1xf32>, %[[RSINV]] : memref<1xf32>)
// TRANS-NOT: gpu.launch_func

//--- swizzle.mlir
// MXFP8 256x64, both usages, on Blackwell: rowwise scales 256 x 4 (2
// padded to 4), columnwise 8 x 128 (64 padded to 128), 1024 bytes each;
// the data copied into the result (one copy kernel, launched twice).
module attributes {teq.target = #teq.target<sm_100>} {
  func.func @swizzle(%q: !teq.proto<256x64xbf16, #teq.mxfp8_quantizer<f8E4M3FN>, rowwise|columnwise>) -> !teq.proto<256x64xbf16, #teq.mxfp8_quantizer<f8E4M3FN>, rowwise|columnwise, gemm_swizzled> {
    %s = teq.swizzle_scales %q : !teq.proto<256x64xbf16, #teq.mxfp8_quantizer<f8E4M3FN>, rowwise|columnwise> -> !teq.proto<256x64xbf16, #teq.mxfp8_quantizer<f8E4M3FN>, rowwise|columnwise, gemm_swizzled>
    return %s : !teq.proto<256x64xbf16, #teq.mxfp8_quantizer<f8E4M3FN>, rowwise|columnwise, gemm_swizzled>
  }
}

// SWZ-LABEL: gpu.func @c0_copy(
// SWZ-SAME: memref<16384xi8>, %{{[^:]*}}: memref<16384xi8>)

// Rowwise: byte (i, j) = (at / 4, at % 4) goes to tile (i / 128) * 1 + j / 4,
// at tile * 512 + (i % 32) * 16 + ((i % 128) / 32) * 4 + j % 4.
// SWZ-LABEL: gpu.func @s1_swizzle(
// SWZ-SAME: %[[IN:[^:]*]]: memref<1024xi8>, %[[OUT:[^:]*]]: memref<1024xi8>) kernel attributes {known_block_size = array<i32: 256, 1, 1>}
// SWZ: scf.for %[[AT:.*]] = %{{.*}} to %c1024 step %{{.*}} {
// SWZ-NEXT: %[[COLS:.*]] = arith.constant 4 : index
// SWZ-NEXT: %[[I:.*]] = arith.divui %[[AT]], %[[COLS]] : index
// SWZ-NEXT: %[[J:.*]] = arith.remui %[[AT]], %[[COLS]] : index
// SWZ-NEXT: %[[C128:.*]] = arith.constant 128 : index
// SWZ-NEXT: %[[BAND:.*]] = arith.divui %[[I]], %[[C128]] : index
// SWZ-NEXT: %[[TX:.*]] = arith.constant 1 : index
// SWZ-NEXT: %[[BANDS:.*]] = arith.muli %[[BAND]], %[[TX]] : index
// SWZ-NEXT: %[[C4:.*]] = arith.constant 4 : index
// SWZ-NEXT: %[[TC:.*]] = arith.divui %[[J]], %[[C4]] : index
// SWZ-NEXT: %[[TILE:.*]] = arith.addi %[[BANDS]], %[[TC]] : index
// SWZ-NEXT: %[[C512:.*]] = arith.constant 512 : index
// SWZ-NEXT: %[[TS:.*]] = arith.muli %[[TILE]], %[[C512]] : index
// SWZ-NEXT: %[[C32:.*]] = arith.constant 32 : index
// SWZ-NEXT: %[[R32:.*]] = arith.remui %[[I]], %[[C32]] : index
// SWZ-NEXT: %[[C16:.*]] = arith.constant 16 : index
// SWZ-NEXT: %[[RO:.*]] = arith.muli %[[R32]], %[[C16]] : index
// SWZ-NEXT: %[[C128B:.*]] = arith.constant 128 : index
// SWZ-NEXT: %[[R128:.*]] = arith.remui %[[I]], %[[C128B]] : index
// SWZ-NEXT: %[[C32B:.*]] = arith.constant 32 : index
// SWZ-NEXT: %[[Q:.*]] = arith.divui %[[R128]], %[[C32B]] : index
// SWZ-NEXT: %[[C4B:.*]] = arith.constant 4 : index
// SWZ-NEXT: %[[QO:.*]] = arith.muli %[[Q]], %[[C4B]] : index
// SWZ-NEXT: %[[C4C:.*]] = arith.constant 4 : index
// SWZ-NEXT: %[[JC:.*]] = arith.remui %[[J]], %[[C4C]] : index
// SWZ-NEXT: %[[S0:.*]] = arith.addi %[[TS]], %[[RO]] : index
// SWZ-NEXT: %[[S1:.*]] = arith.addi %[[S0]], %[[QO]] : index
// SWZ-NEXT: %[[TO:.*]] = arith.addi %[[S1]], %[[JC]] : index
// SWZ-NEXT: %[[V:.*]] = memref.load %[[IN]][%[[AT]]] : memref<1024xi8>
// SWZ-NEXT: memref.store %[[V]], %[[OUT]][%[[TO]]] : memref<1024xi8>

// Columnwise (transposed): byte (i, j) = (at / 128, at % 128) is GEMM
// scale (j, i), with 8 / 4 = 2 tiles a band.
// SWZ-LABEL: gpu.func @s2_swizzle(
// SWZ-SAME: %[[CIN:[^:]*]]: memref<1024xi8>, %[[COUT:[^:]*]]: memref<1024xi8>)
// SWZ: scf.for %[[CAT:.*]] = %{{.*}} to %c1024 step %{{.*}} {
// SWZ-NEXT: %[[CCOLS:.*]] = arith.constant 128 : index
// SWZ-NEXT: %[[CI:.*]] = arith.divui %[[CAT]], %[[CCOLS]] : index
// SWZ-NEXT: %[[CJ:.*]] = arith.remui %[[CAT]], %[[CCOLS]] : index
// SWZ-NEXT: %[[D128:.*]] = arith.constant 128 : index
// SWZ-NEXT: %[[CBAND:.*]] = arith.divui %[[CJ]], %[[D128]] : index
// SWZ-NEXT: %[[CTX:.*]] = arith.constant 2 : index
// SWZ-NEXT: %[[CBANDS:.*]] = arith.muli %[[CBAND]], %[[CTX]] : index
// SWZ-NEXT: %[[D4:.*]] = arith.constant 4 : index
// SWZ-NEXT: %[[CTC:.*]] = arith.divui %[[CI]], %[[D4]] : index
// SWZ-NEXT: arith.addi %[[CBANDS]], %[[CTC]] : index
// SWZ: arith.remui %[[CJ]], %{{.*}} : index
// SWZ: arith.remui %[[CJ]], %{{.*}} : index
// SWZ: %[[CJC:.*]] = arith.remui %[[CI]], %{{.*}} : index
// SWZ: %[[CTO:.*]] = arith.addi %{{.*}}, %[[CJC]] : index
// SWZ-NEXT: %[[CV:.*]] = memref.load %[[CIN]][%[[CAT]]] : memref<1024xi8>
// SWZ-NEXT: memref.store %[[CV]], %[[COUT]][%[[CTO]]] : memref<1024xi8>
// SWZ-NOT: gpu.func

// Buffers: rowwise data, rowwise scales, columnwise data, columnwise
// scales; the result's likewise. 1024 bytes: 4 blocks; 16384: 64.
// SWZ-LABEL: func.func @swizzle(
// SWZ-SAME: %[[D:[^:]*]]: memref<16384xi8>, %[[RS:[^:]*]]: memref<1024xi8>, %[[CD:[^:]*]]: memref<16384xi8>, %[[CS:[^:]*]]: memref<1024xi8>, %[[OD:[^:]*]]: memref<16384xi8>, %[[ORS:[^:]*]]: memref<1024xi8>, %[[OCD:[^:]*]]: memref<16384xi8>, %[[OCS:[^:]*]]: memref<1024xi8>)
// SWZ: gpu.launch_func async [%{{.*}}] @teq_kernels::@c0_copy blocks in (%c64, {{.*}} args(%[[D]] : memref<16384xi8>, %[[OD]] : memref<16384xi8>)
// SWZ: gpu.launch_func async [%{{.*}}] @teq_kernels::@s1_swizzle blocks in (%c4, %c1{{[_0-9]*}}, %c1{{[_0-9]*}}) threads in (%c256{{[_0-9]*}}, {{.*}} args(%[[RS]] : memref<1024xi8>, %[[ORS]] : memref<1024xi8>)
// SWZ: gpu.launch_func async [%{{.*}}] @teq_kernels::@c0_copy blocks in (%c64{{[_0-9]*}}, {{.*}} args(%[[CD]] : memref<16384xi8>, %[[OCD]] : memref<16384xi8>)
// SWZ: gpu.launch_func async [%{{.*}}] @teq_kernels::@s2_swizzle blocks in (%c4{{[_0-9]*}}, {{.*}} args(%[[CS]] : memref<1024xi8>, %[[OCS]] : memref<1024xi8>)
// SWZ-NOT: gpu.launch_func

//--- errors.mlir
module attributes {teq.target = #teq.target<sm_90>} {
  func.func @dynamic_offset(%x: tensor<16x4xf32>, %i: index) -> tensor<1x4xf32> {
    // expected-error @+1 {{'tensor.extract_slice' op has dynamic offsets, sizes or strides; only static slices are lowered}}
    %s = tensor.extract_slice %x[%i, 0] [1, 4] [1, 1] : tensor<16x4xf32> to tensor<1x4xf32>
    return %s : tensor<1x4xf32>
  }
}

// -----

// Only per-tensor FP8's transpose is derived; its rowwise data is not.
module attributes {teq.target = #teq.target<sm_90>} {
  func.func @derive_rowwise(%q: !teq.proto<64x96xbf16, #teq.float8_quantizer<f8E4M3FN>, columnwise>) -> !teq.proto<64x96xbf16, #teq.float8_quantizer<f8E4M3FN>, rowwise> {
    // expected-error @+1 {{'teq.update_usage' op derives buffer 'data' its input does not hold (sm_90); deriving a usage has no GPU lowering yet: quantize with every usage the program reads}}
    %r = teq.update_usage %q : !teq.proto<64x96xbf16, #teq.float8_quantizer<f8E4M3FN>, columnwise> -> !teq.proto<64x96xbf16, #teq.float8_quantizer<f8E4M3FN>, rowwise>
    return %r : !teq.proto<64x96xbf16, #teq.float8_quantizer<f8E4M3FN>, rowwise>
  }
}

// -----

module attributes {teq.target = #teq.target<sm_90>} {
  func.func @derive_block(%q: !teq.proto<128x128xbf16, #teq.float8_block_quantizer<f8E4M3FN>, rowwise>) -> !teq.proto<128x128xbf16, #teq.float8_block_quantizer<f8E4M3FN>, columnwise> {
    // expected-error @+1 {{'teq.update_usage' op derives buffer 'columnwise_data' its input does not hold (sm_90)}}
    %r = teq.update_usage %q : !teq.proto<128x128xbf16, #teq.float8_block_quantizer<f8E4M3FN>, rowwise> -> !teq.proto<128x128xbf16, #teq.float8_block_quantizer<f8E4M3FN>, columnwise>
    return %r : !teq.proto<128x128xbf16, #teq.float8_block_quantizer<f8E4M3FN>, columnwise>
  }
}
