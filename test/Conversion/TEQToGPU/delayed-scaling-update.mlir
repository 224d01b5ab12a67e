// teq.delayed_scaling_update (TE's amax_and_scale_update_after_reduction,
// te-semantics.md §5.2) as convert-teq-to-gpu emits it
// (Kernels/DelayedScalingUpdate): one block a slot, its threads striding
// over the history rows. Pinned: the kernel's signature and launch (grid =
// slots, 256 threads; scale, history, new scale, new history, then the
// reduced row 0 under a group), the roll (new[l] = old[l+1], new[L-1] =
// last, new[0] = 0, only where last != 0), the window max (algo "max") or
// last ("most_recent"), the scale formula fp8_max * 2^-margin / amax kept
// where amax is not finite and positive, inf -> FLT_MAX; and, under an
// amax_reduction_group, the teqAllReduce (max, f32, every slot in one call)
// of row 0 into the op's scratch before the launch.
// RUN: split-file %s %t
// RUN: te-opt %t/max.mlir --convert-teq-to-gpu | FileCheck %s --check-prefix=MAX
// RUN: te-opt %t/most-recent-group.mlir --convert-teq-to-gpu | FileCheck %s --check-prefix=RECENT

//--- max.mlir
// Three slots, history length 16, E4M3 with margin 2: scaled max 448 / 4.
module attributes {teq.target = #teq.target<sm_90>} {
  func.func @update(%scale: tensor<3xf32>, %history: tensor<16x3xf32>) -> (tensor<3xf32>, tensor<16x3xf32>) {
    %s, %h = teq.delayed_scaling_update %scale, %history {fp8_dtype = f8E4M3FN, margin = 2 : i64, amax_compute_algo = #teq.amax_compute_algo<max>} : tensor<3xf32>, tensor<16x3xf32>
    return %s, %h : tensor<3xf32>, tensor<16x3xf32>
  }
}

// MAX-LABEL: gpu.func @u0_update(
// MAX-SAME: %[[SCALE:[^:]*]]: memref<3xf32>, %[[HIST:[^:]*]]: memref<48xf32>, %[[NSCALE:[^:]*]]: memref<3xf32>, %[[NHIST:[^:]*]]: memref<48xf32>)
// MAX-SAME: workgroup(%[[WARPS:[^ ]*]] : memref<8xf32, #gpu.address_space<workgroup>>)
// MAX-SAME: known_block_size = array<i32: 256, 1, 1>
// MAX-DAG: %[[C0:.*]] = arith.constant 0 : index
// MAX-DAG: %[[C1:.*]] = arith.constant 1 : index
// MAX-DAG: %[[C256:.*]] = arith.constant 256 : index
// MAX-DAG: %[[C3:.*]] = arith.constant 3 : index
// MAX-DAG: %[[C16:.*]] = arith.constant 16 : index
// MAX-DAG: %[[ZERO:.*]] = arith.constant 0.000000e+00 : f32
// MAX-DAG: %[[INF:.*]] = arith.constant 0x7F800000 : f32
// MAX-DAG: %[[FLTMAX:.*]] = arith.constant 3.40282347E+38 : f32
// MAX-DAG: %[[SMAX:.*]] = arith.constant 1.120000e+02 : f32
// MAX: %[[T:.*]] = gpu.thread_id  x
// MAX-NEXT: %[[S:.*]] = gpu.block_id  x
// last = history[0][s]; no reduced row without a group.
// MAX-NEXT: %[[LAST:.*]] = memref.load %[[HIST]][%[[S]]] : memref<48xf32>
// MAX-NEXT: %[[LASTNZ:.*]] = arith.cmpf une, %[[LAST]], %[[ZERO]] : f32
// MAX-NEXT: %[[TMAX:.*]] = scf.for %[[L:.*]] = %[[T]] to %[[C16]] step %[[C256]] iter_args(%[[M:.*]] = %[[ZERO]]) -> (f32) {
// MAX-NEXT: %[[NEXT:.*]] = arith.addi %[[L]], %[[C1]] : index
// MAX-NEXT: %[[INR:.*]] = arith.cmpi ult, %[[NEXT]], %[[C16]] : index
// MAX-NEXT: %[[INCOMING:.*]] = scf.if %[[INR]] -> (f32) {
// MAX-NEXT: %[[NROW:.*]] = arith.muli %[[NEXT]], %[[C3]] : index
// MAX-NEXT: %[[NAT:.*]] = arith.addi %[[NROW]], %[[S]] : index
// MAX-NEXT: %[[NV:.*]] = memref.load %[[HIST]][%[[NAT]]] : memref<48xf32>
// MAX-NEXT: scf.yield %[[NV]] : f32
// MAX-NEXT: } else {
// MAX-NEXT: scf.yield %[[LAST]] : f32
// MAX-NEXT: }
// The NaN-ignoring max (maxnumf, spelled without libdevice).
// MAX-NEXT: %[[GT:.*]] = arith.cmpf ogt, %[[M]], %[[INCOMING]] : f32
// MAX-NEXT: %[[NAN:.*]] = arith.cmpf uno, %[[INCOMING]], %[[INCOMING]] : f32
// MAX-NEXT: %[[KEEP:.*]] = arith.ori %[[GT]], %[[NAN]] : i1
// MAX-NEXT: %[[NMAX:.*]] = arith.select %[[KEEP]], %[[M]], %[[INCOMING]] : f32
// MAX-NEXT: %[[ROW:.*]] = arith.muli %[[L]], %[[C3]] : index
// MAX-NEXT: %[[AT:.*]] = arith.addi %[[ROW]], %[[S]] : index
// MAX-NEXT: %[[OLD:.*]] = memref.load %[[HIST]][%[[AT]]] : memref<48xf32>
// MAX-NEXT: %[[NOTFIRST:.*]] = arith.cmpi ugt, %[[L]], %[[C0]] : index
// MAX-NEXT: %[[ROLLED:.*]] = arith.select %[[NOTFIRST]], %[[INCOMING]], %[[ZERO]] : f32
// MAX-NEXT: %[[UPD:.*]] = arith.select %[[LASTNZ]], %[[ROLLED]], %[[OLD]] : f32
// MAX-NEXT: memref.store %[[UPD]], %[[NHIST]][%[[AT]]] : memref<48xf32>
// MAX-NEXT: scf.yield %[[NMAX]] : f32
// The block's max: warp shuffles, one slot a warp, thread 0 finishes.
// MAX-COUNT-5: gpu.shuffle  xor
// MAX: memref.store %{{.*}}, %[[WARPS]]
// MAX: gpu.barrier
// MAX: scf.if
// MAX: %[[WMAX:.*]] = scf.for
// MAX: memref.load %[[WARPS]]
// MAX: }
// MAX-NEXT: %[[WIN:.*]] = arith.select %[[LASTNZ]], %[[WMAX]], %[[ZERO]] : f32
// MAX-NEXT: %[[AMAX:.*]] = arith.addf %[[WIN]], %[[ZERO]] : f32
// isfinite(amax) && amax > 0 (|amax| < inf, the absf as a bit mask).
// MAX-NEXT: %[[BITS:.*]] = arith.bitcast %[[AMAX]] : f32 to i32
// MAX-NEXT: %[[MASK:.*]] = arith.constant 2147483647 : i32
// MAX-NEXT: %[[ABITS:.*]] = arith.andi %[[BITS]], %[[MASK]] : i32
// MAX-NEXT: %[[ABS:.*]] = arith.bitcast %[[ABITS]] : i32 to f32
// MAX-NEXT: %[[FIN:.*]] = arith.cmpf olt, %[[ABS]], %[[INF]] : f32
// MAX-NEXT: %[[POS:.*]] = arith.cmpf ogt, %[[AMAX]], %[[ZERO]] : f32
// MAX-NEXT: %[[USE:.*]] = arith.andi %[[FIN]], %[[POS]] : i1
// MAX-NEXT: %[[OLDS:.*]] = memref.load %[[SCALE]][%[[S]]] : memref<3xf32>
// MAX-NEXT: %[[Q:.*]] = arith.divf %[[SMAX]], %[[AMAX]] : f32
// MAX-NEXT: %[[CAND:.*]] = arith.select %[[USE]], %[[Q]], %[[OLDS]] : f32
// MAX-NEXT: %[[CBITS:.*]] = arith.bitcast %[[CAND]] : f32 to i32
// MAX-NEXT: %[[MASK2:.*]] = arith.constant 2147483647 : i32
// MAX-NEXT: %[[CABITS:.*]] = arith.andi %[[CBITS]], %[[MASK2]] : i32
// MAX-NEXT: %[[CABS:.*]] = arith.bitcast %[[CABITS]] : i32 to f32
// MAX-NEXT: %[[ISINF:.*]] = arith.cmpf oeq, %[[CABS]], %[[INF]] : f32
// MAX-NEXT: %[[NEW:.*]] = arith.select %[[ISINF]], %[[FLTMAX]], %[[CAND]] : f32
// MAX-NEXT: memref.store %[[NEW]], %[[NSCALE]][%[[S]]] : memref<3xf32>
// MAX-NEXT: }
// MAX-NEXT: gpu.return

// One block a slot; no collective, no workspace.
// MAX-LABEL: func.func @update(
// MAX-SAME: %[[A0:[^:]*]]: memref<3xf32>, %[[A1:[^:]*]]: memref<48xf32>, %[[A2:[^:]*]]: memref<3xf32>, %[[A3:[^:]*]]: memref<48xf32>) attributes {teq.entry}
// MAX-NOT: call
// MAX: gpu.launch_func async [%{{.*}}] @teq_kernels::@u0_update blocks in (%c3, %c1{{[_0-9]*}}, %c1{{[_0-9]*}}) threads in (%c256, %c1{{[_0-9]*}}, %c1{{[_0-9]*}})  args(%[[A0]] : memref<3xf32>, %[[A1]] : memref<48xf32>, %[[A2]] : memref<3xf32>, %[[A3]] : memref<48xf32>)
// MAX-NOT: gpu.launch_func
// MAX-NOT: @teqAllReduce

//--- most-recent-group.mlir
// One slot (a 1-D history of 1024), E5M2, margin 0, most_recent, under an
// amax reduction group: last is the reduced amax where non-zero, the amax
// is last itself, the scale 57344 / last.
module attributes {teq.target = #teq.target<sm_90>} {
  func.func @update(%scale: tensor<1xf32>, %history: tensor<1024xf32>, %dp: !teq.process_group) -> (tensor<1xf32>, tensor<1024xf32>) {
    %s, %h = teq.delayed_scaling_update %scale, %history amax_reduction_group(%dp) {fp8_dtype = f8E5M2, margin = 0 : i64, amax_compute_algo = #teq.amax_compute_algo<most_recent>} : tensor<1xf32>, tensor<1024xf32>
    return %s, %h : tensor<1xf32>, tensor<1024xf32>
  }
}

// RECENT-LABEL: gpu.func @u0_update(
// RECENT-SAME: %[[SCALE:[^:]*]]: memref<1xf32>, %[[HIST:[^:]*]]: memref<1024xf32>, %{{[^:]*}}: memref<1xf32>, %[[NHIST:[^:]*]]: memref<1024xf32>, %[[RED:[^:]*]]: memref<1xf32>)
// RECENT-DAG: %[[C1024:.*]] = arith.constant 1024 : index
// RECENT-DAG: %[[ZERO:.*]] = arith.constant 0.000000e+00 : f32
// RECENT-DAG: %[[SMAX:.*]] = arith.constant 5.734400e+04 : f32
// RECENT: %[[T:.*]] = gpu.thread_id  x
// RECENT-NEXT: %[[S:.*]] = gpu.block_id  x
// RECENT-NEXT: %[[ROW0:.*]] = memref.load %[[HIST]][%[[S]]] : memref<1024xf32>
// RECENT-NEXT: %[[R:.*]] = memref.load %[[RED]][%[[S]]] : memref<1xf32>
// RECENT-NEXT: %[[RNZ:.*]] = arith.cmpf une, %[[R]], %[[ZERO]] : f32
// RECENT-NEXT: %[[LAST:.*]] = arith.select %[[RNZ]], %[[R]], %[[ROW0]] : f32
// RECENT-NEXT: %[[LASTNZ:.*]] = arith.cmpf une, %[[LAST]], %[[ZERO]] : f32
// RECENT-NEXT: scf.for %{{.*}} = %[[T]] to %[[C1024]] step
// The roll still takes last (the reduced value) into row L-1.
// RECENT: } else {
// RECENT-NEXT: scf.yield %[[LAST]] : f32
// RECENT: arith.select %[[LASTNZ]], %{{.*}}, %{{.*}} : f32
// RECENT-NEXT: memref.store %{{.*}}, %[[NHIST]]
// RECENT: gpu.barrier
// amax = last + 0, not the window's max.
// RECENT: %[[AMAX:.*]] = arith.addf %[[LAST]], %[[ZERO]] : f32
// RECENT: memref.load %[[SCALE]][%[[S]]] : memref<1xf32>
// RECENT-NEXT: arith.divf %[[SMAX]], %[[AMAX]] : f32

// Row 0 of the caller's history all-reduced (group 0, one element, f32,
// max) into the scratch, then the kernel launched with the scratch last.
// RECENT-LABEL: func.func @update(
// RECENT-SAME: %[[A0:[^:]*]]: memref<1xf32>, %[[A1:[^:]*]]: memref<1024xf32>, %[[A2:[^:]*]]: memref<1xf32>, %[[A3:[^:]*]]: memref<1024xf32>, %[[WS:[^:]*]]: memref<256xi8>) attributes {teq.entry}
// RECENT: %[[SCRATCH:.*]] = memref.view %[[WS]][%{{.*}}][] : memref<256xi8> to memref<1xf32>
// RECENT-NOT: gpu.launch_func
// RECENT: %[[HP:.*]] = memref.extract_aligned_pointer_as_index %[[A1]] : memref<1024xf32> -> index
// RECENT-NEXT: %[[HI:.*]] = arith.index_cast %[[HP]] : index to i64
// RECENT-NEXT: %[[SP:.*]] = memref.extract_aligned_pointer_as_index %[[SCRATCH]] : memref<1xf32> -> index
// RECENT-NEXT: %[[SI:.*]] = arith.index_cast %[[SP]] : index to i64
// RECENT-NOT: gpu.launch_func
// RECENT: call @teqAllReduce(%c0_i64, %[[HI]], %[[SI]], %c1_i64, %c1_i32, %c1_i32{{[_0-9]*}}) : (i64, i64, i64, i64, i32, i32) -> ()
// RECENT-NOT: call
// RECENT: gpu.launch_func async [%{{.*}}] @teq_kernels::@u0_update blocks in (%c1{{[_0-9]*}}, %c1{{[_0-9]*}}, %c1{{[_0-9]*}}) threads in (%c256, %c1{{[_0-9]*}}, %c1{{[_0-9]*}})  args(%[[A0]] : memref<1xf32>, %[[A1]] : memref<1024xf32>, %[[A2]] : memref<1xf32>, %[[A3]] : memref<1024xf32>, %[[SCRATCH]] : memref<1xf32>)
// RECENT: func.func private @teqAllReduce(i64, i64, i64, i64, i32, i32)
