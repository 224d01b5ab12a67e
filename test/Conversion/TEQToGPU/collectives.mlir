// TP/SP collectives (te-semantics.md §7) as convert-teq-to-gpu lowers them:
// calls of the runtime's teqAllGather / teqReduceScatter / teqAllReduce
// (docs/Artifact.md, "Collectives") with the index of the op's group among
// the entry's process-group arguments, the buffers' device pointers, the
// element count and type; process groups become the manifest's "groups",
// not buffers. A row-parallel Linear in bf16 goes through te-compile's whole
// pipeline (its GEMM, then the all-reduce of the partial output).
// RUN: split-file %s %t
// RUN: te-opt %t/tensors.mlir --convert-teq-to-gpu | FileCheck %s --check-prefix=IR
// RUN: te-compile %t/tensors.mlir --emit=manifest | FileCheck %s --check-prefix=MANIFEST
// RUN: te-opt %t/fp8-gather.mlir --convert-teq-to-gpu | FileCheck %s --check-prefix=FP8
// RUN: te-opt %t/amax.mlir --convert-teq-to-gpu | FileCheck %s --check-prefix=AMAX
// RUN: te-compile %t/amax.mlir --emit=manifest | FileCheck %s --check-prefix=AMAX-MANIFEST
// RUN: te-compile %t/column-sp.mlir --emit=mlir | FileCheck %s --check-prefix=COLSP
// RUN: te-compile %t/row-linear.mlir --emit=mlir | FileCheck %s --check-prefix=ROW
// RUN: te-compile %t/row-linear.mlir --emit=manifest | FileCheck %s --check-prefix=ROW-MANIFEST
// RUN: te-opt %t/delayed.mlir --convert-teq-to-gpu | FileCheck %s --check-prefix=DELAYED
// RUN: te-compile %t/delayed.mlir --emit=manifest | FileCheck %s --check-prefix=DELAYED-MANIFEST
// RUN: not te-opt %t/errors.mlir --convert-teq-to-gpu --split-input-file 2>&1 | FileCheck %s --check-prefix=ERR

//--- tensors.mlir
// Two groups; the gathered f32 tensor is a temporary (workspace) read by an
// add, the other results are written in place into the caller's buffers.
module attributes {teq.target = #teq.target<sm_90>} {
  func.func @tp(%x: tensor<64x256xbf16>, %dp: !teq.process_group, %g: tensor<32x128xf32>, %tp: !teq.process_group) -> (tensor<32x256xbf16>, tensor<64x256xbf16>, tensor<64x128xf32>) {
    %rs = teq.reduce_scatter %x, %tp {tp_size = 2 : i64} : tensor<64x256xbf16> -> tensor<32x256xbf16>
    %ar = teq.all_reduce %x, %dp {tp_size = 4 : i64} : tensor<64x256xbf16> -> tensor<64x256xbf16>
    %ag = teq.all_gather %g, %tp {tp_size = 2 : i64} : tensor<32x128xf32> -> tensor<64x128xf32>
    %sum = arith.addf %ag, %ag : tensor<64x128xf32>
    return %rs, %ar, %sum : tensor<32x256xbf16>, tensor<64x256xbf16>, tensor<64x128xf32>
  }
}

// No memref for the groups: x, g, three results, the workspace.
// IR-LABEL: func.func @tp(
// IR-SAME: %[[X:[^:]*]]: memref<16384xbf16>, %[[G:[^:]*]]: memref<4096xf32>, %[[RS:[^:]*]]: memref<8192xbf16>, %[[AR:[^:]*]]: memref<16384xbf16>, %[[SUM:[^:]*]]: memref<8192xf32>, %[[WS:[^:]*]]: memref<32768xi8>)
// IR: %[[AG:.*]] = memref.view %[[WS]]
// reduce-scatter over %tp (group 1): 8192 bf16 (type 2) received, sum (0).
// IR: %[[XP:.*]] = memref.extract_aligned_pointer_as_index %[[X]]
// IR: %[[RSP:.*]] = memref.extract_aligned_pointer_as_index %[[RS]]
// IR: call @teqReduceScatter(%c1_i64, %{{.*}}, %{{.*}}, %c8192_i64, %c2_i32, %c0_i32) : (i64, i64, i64, i64, i32, i32) -> ()
// all-reduce over %dp (group 0): 16384 elements.
// IR: call @teqAllReduce(%c0_i64, %{{.*}}, %{{.*}}, %c16384_i64, %c2_i32{{.*}}, %c0_i32{{.*}}) : (i64, i64, i64, i64, i32, i32) -> ()
// all-gather into the workspace temporary: 4096 f32 (type 1) sent by each rank.
// IR: memref.extract_aligned_pointer_as_index %[[G]]
// IR: memref.extract_aligned_pointer_as_index %[[AG]]
// IR: call @teqAllGather(%c1_i64{{.*}}, %{{.*}}, %{{.*}}, %c4096_i64, %c1_i32{{.*}}) : (i64, i64, i64, i64, i32) -> ()
// The add reads the gathered temporary after the call, on the same stream.
// IR: gpu.launch_func async
// IR-SAME: args(%[[AG]] : memref<8192xf32>
// IR-DAG: func.func private @teqReduceScatter(i64, i64, i64, i64, i32, i32)
// IR-DAG: func.func private @teqAllReduce(i64, i64, i64, i64, i32, i32)
// IR-DAG: func.func private @teqAllGather(i64, i64, i64, i64, i32)

// The groups, in argument order, sized by their collectives; no argument
// for them; the gathered value is a temporary. Each collective's result is
// computed_by the collective over its group's index (te-run --nranks
// --check recomputes it from every rank's input).
// MANIFEST: "name": "arg0",
// MANIFEST-NOT: "name": "arg1",
// MANIFEST: "name": "arg2",
// MANIFEST-NOT: "name": "arg3",
// MANIFEST: "computed_by": {
// MANIFEST-NEXT: "group": 1,
// MANIFEST-NEXT: "input": "arg0",
// MANIFEST-NEXT: "op": "reduce_scatter"
// MANIFEST: "name": "result0",
// MANIFEST: "computed_by": {
// MANIFEST-NEXT: "group": 0,
// MANIFEST-NEXT: "input": "arg0",
// MANIFEST-NEXT: "op": "all_reduce"
// MANIFEST: "name": "result1",
// MANIFEST: "groups": [
// MANIFEST-NEXT: {
// MANIFEST-NEXT: "name": "arg1",
// MANIFEST-NEXT: "size": 4
// MANIFEST-NEXT: },
// MANIFEST-NEXT: {
// MANIFEST-NEXT: "name": "arg3",
// MANIFEST-NEXT: "size": 2
// MANIFEST: "temporaries": [
// MANIFEST: "computed_by": {
// MANIFEST-NEXT: "group": 1,
// MANIFEST-NEXT: "input": "arg2",
// MANIFEST-NEXT: "op": "all_gather"
// MANIFEST: "name": "t0",
// MANIFEST: "workspace_bytes": 32768

//--- fp8-gather.mlir
// Sequence-parallel input in per-tensor FP8 (delayed scaling: every rank
// quantizes with the same stored scale): the rowwise data is gathered as
// bytes (type 0), the scale_inv copied from the rank's own shard.
module attributes {teq.target = #teq.target<sm_90>} {
  func.func @gather(%xq: !teq.proto<32x128xbf16, #teq.float8_quantizer<f8E4M3FN>, rowwise>, %tp: !teq.process_group) -> !teq.proto<64x128xbf16, #teq.float8_quantizer<f8E4M3FN>, rowwise> {
    %full = teq.all_gather %xq, %tp {tp_size = 2 : i64} : !teq.proto<32x128xbf16, #teq.float8_quantizer<f8E4M3FN>, rowwise> -> !teq.proto<64x128xbf16, #teq.float8_quantizer<f8E4M3FN>, rowwise>
    return %full : !teq.proto<64x128xbf16, #teq.float8_quantizer<f8E4M3FN>, rowwise>
  }
}

// FP8-LABEL: func.func @gather(
// FP8-SAME: %[[DATA:[^:]*]]: memref<4096xi8>, %[[SINV:[^:]*]]: memref<1xf32>, %[[ODATA:[^:]*]]: memref<8192xi8>, %[[OSINV:[^:]*]]: memref<1xf32>)
// FP8: memref.extract_aligned_pointer_as_index %[[DATA]]
// FP8: memref.extract_aligned_pointer_as_index %[[ODATA]]
// FP8: call @teqAllGather(%c0_i64, %{{.*}}, %{{.*}}, %c4096_i64, %c0_i32)
// FP8: gpu.launch_func async {{.*}} args(%[[SINV]] : memref<1xf32>, %[[OSINV]] : memref<1xf32>

//--- amax.mlir
// A sequence-parallel input quantized with current scaling and amax
// reduction, then gathered in FP8 (TE's column-parallel SP fprop input):
// the rank's amax goes to a workspace scalar, the group all-reduces it (max,
// f32, one element) in place, and only then is the scale computed, so every
// rank casts with the whole tensor's scale and the gathered data shares it.
module attributes {teq.target = #teq.target<sm_90>} {
  func.func @amax(%x: tensor<32x256xbf16>, %tp: !teq.process_group) -> !teq.proto<64x256xbf16, #teq.float8_current_scaling_quantizer<f8E4M3FN, with_amax_reduction = true>, rowwise> {
    %q = teq.quantize %x amax_reduction_group(%tp) : tensor<32x256xbf16> -> !teq.proto<32x256xbf16, #teq.float8_current_scaling_quantizer<f8E4M3FN, with_amax_reduction = true>, rowwise>
    %g = teq.all_gather %q, %tp {tp_size = 2 : i64} : !teq.proto<32x256xbf16, #teq.float8_current_scaling_quantizer<f8E4M3FN, with_amax_reduction = true>, rowwise> -> !teq.proto<64x256xbf16, #teq.float8_current_scaling_quantizer<f8E4M3FN, with_amax_reduction = true>, rowwise>
    return %g : !teq.proto<64x256xbf16, #teq.float8_current_scaling_quantizer<f8E4M3FN, with_amax_reduction = true>, rowwise>
  }
}

// The partials' max, stored by thread 0 into the amax scalar.
// AMAX-LABEL: gpu.func @q0_amax_out(
// AMAX-SAME: %[[OUT:[^:]*]]: memref<1xf32>)
// AMAX: memref.store %{{.*}}, %[[OUT]][
// The scale from the reduced amax (no partials: thread 0 reads the scalar).
// AMAX-LABEL: gpu.func @q0_scale(
// AMAX-SAME: %[[SINV:[^:]*]]: memref<1xf32>, %[[AMAXIN:[^:]*]]: memref<1xf32>)
// AMAX-NOT: @q0_partials
// AMAX: memref.load %[[AMAXIN]]
// AMAX: memref.store %{{.*}}, %[[SINV]]
// AMAX-LABEL: func.func @amax(
// AMAX: %[[SCALEINV:.*]] = memref.view %{{.*}} : memref<{{[0-9]+}}xi8> to memref<1xf32>
// AMAX: %[[AMAX:.*]] = memref.view %{{.*}} : memref<{{[0-9]+}}xi8> to memref<1xf32>
// AMAX: gpu.launch_func async {{.*}} @teq_kernels::@q0_amax blocks
// AMAX-NOT: gpu.launch_func
// AMAX: gpu.launch_func async {{.*}} @teq_kernels::@q0_amax_out {{.*}} args(%[[AMAX]] : memref<1xf32>)
// AMAX-NOT: gpu.launch_func
// AMAX: memref.extract_aligned_pointer_as_index %[[AMAX]]
// AMAX-NEXT: %[[P:.*]] = arith.index_cast
// AMAX-NOT: gpu.launch_func
// AMAX: call @teqAllReduce(%c0_i64, %[[P]], %[[P]], %c1_i64, %c1_i32, %c1_i32{{.*}})
// AMAX-NOT: call
// AMAX: gpu.launch_func async {{.*}} @teq_kernels::@q0_scale {{.*}} args(%[[SCALEINV]] : memref<1xf32>, %[[AMAX]] : memref<1xf32>)
// AMAX-NOT: call
// AMAX: gpu.launch_func async {{.*}} @teq_kernels::@q0_cast
// AMAX: call @teqAllGather(

// The manifest: the gathered result is computed_by the all-gather of the
// quantized shard, which is computed_by a quantize whose amax is reduced
// over group 0 (te-run --nranks --check: the max of every rank's amax).
// AMAX-MANIFEST: "computed_by": {
// AMAX-MANIFEST-NEXT: "group": 0,
// AMAX-MANIFEST-NEXT: "input": "t0",
// AMAX-MANIFEST-NEXT: "op": "all_gather"
// AMAX-MANIFEST: "name": "result0",
// AMAX-MANIFEST: "computed_by": {
// AMAX-MANIFEST-NEXT: "amax_group": 0,
// AMAX-MANIFEST-NEXT: "input": "arg0",
// AMAX-MANIFEST-NEXT: "op": "quantize"
// AMAX-MANIFEST: "name": "t0",

//--- delayed.mlir
// Delayed scaling under an amax reduction group (TE's reduce_amax): the
// forward quantizes x with the stored scale and records only its own amax
// (no collective: the quantize's group says the update reduces it), so its
// FP8 data may be gathered; the update entry all-reduces (max) row 0 of the
// history, every slot in one call, from the caller's history into a
// workspace row the update kernel reads, and the group has no fixed size.
module attributes {teq.target = #teq.target<sm_90>} {
  func.func @forward(%x: tensor<32x256xbf16>, %scale: tensor<1xf32>, %history: tensor<16xf32>, %tp: !teq.process_group) -> (!teq.proto<64x256xbf16, #teq.float8_quantizer<f8E4M3FN>, rowwise>, tensor<16xf32>) {
    %q, %h = teq.quantize %x state(%scale, %history : tensor<1xf32>, tensor<16xf32>) amax_reduction_group(%tp) : tensor<32x256xbf16> -> !teq.proto<32x256xbf16, #teq.float8_quantizer<f8E4M3FN>, rowwise>, tensor<16xf32>
    %g = teq.all_gather %q, %tp {tp_size = 2 : i64} : !teq.proto<32x256xbf16, #teq.float8_quantizer<f8E4M3FN>, rowwise> -> !teq.proto<64x256xbf16, #teq.float8_quantizer<f8E4M3FN>, rowwise>
    return %g, %h : !teq.proto<64x256xbf16, #teq.float8_quantizer<f8E4M3FN>, rowwise>, tensor<16xf32>
  }
  func.func @update(%scale: tensor<3xf32>, %history: tensor<16x3xf32>, %group: !teq.process_group) -> (tensor<3xf32>, tensor<16x3xf32>) {
    %s, %h = teq.delayed_scaling_update %scale, %history amax_reduction_group(%group) {fp8_dtype = f8E4M3FN} : tensor<3xf32>, tensor<16x3xf32>
    return %s, %h : tensor<3xf32>, tensor<16x3xf32>
  }
  // A program's entries take all its groups; one an entry does not use
  // works at any size too.
  func.func @takes_a_group(%x: tensor<64x256xbf16>, %world: !teq.process_group) -> tensor<64x256xbf16> {
    %y = math.tanh %x : tensor<64x256xbf16>
    return %y : tensor<64x256xbf16>
  }
}

// The update kernel takes the reduced row last and uses it where non-zero.
// DELAYED-LABEL: gpu.func @u{{[0-9]+}}_update(
// DELAYED-SAME: %{{[^:]*}}: memref<3xf32>, %[[HIST:[^:]*]]: memref<48xf32>, %{{[^:]*}}: memref<3xf32>, %{{[^:]*}}: memref<48xf32>, %[[RED:[^:]*]]: memref<3xf32>)
// DELAYED: %[[SLOT:.*]] = gpu.block_id x
// DELAYED-NEXT: %[[ROW0:.*]] = memref.load %[[HIST]][%[[SLOT]]] : memref<48xf32>
// DELAYED-NEXT: %[[R:.*]] = memref.load %[[RED]][%[[SLOT]]] : memref<3xf32>
// DELAYED-NEXT: %[[NZ:.*]] = arith.cmpf une, %[[R]]
// DELAYED-NEXT: arith.select %[[NZ]], %[[R]], %[[ROW0]] : f32
// DELAYED-LABEL: func.func @forward(
// DELAYED-NOT: call @teqAllReduce
// DELAYED: call @teqAllGather(
// DELAYED-LABEL: func.func @update(
// DELAYED-SAME: %[[H:[^:]*]]: memref<48xf32>
// DELAYED: %[[REDUCED:.*]] = memref.view %{{.*}} : memref<{{[0-9]+}}xi8> to memref<3xf32>
// DELAYED: memref.extract_aligned_pointer_as_index %[[H]]
// DELAYED: memref.extract_aligned_pointer_as_index %[[REDUCED]]
// DELAYED: call @teqAllReduce(%c0_i64, %{{.*}}, %{{.*}}, %c3_i64, %c1_i32, %c1_i32{{.*}})
// DELAYED: gpu.launch_func async {{.*}} @teq_kernels::@u{{[0-9]+}}_update {{.*}} %[[REDUCED]] : memref<3xf32>)

// The manifest: the update's group has no fixed size; its outputs are
// computed_by the update with amax_group (te-run --nranks --check takes the
// max of every rank's row 0); the forward's recorded amax is the rank's own.
// DELAYED-MANIFEST: "op": "all_gather"
// DELAYED-MANIFEST: "computed_by": {
// DELAYED-MANIFEST-NEXT: "amax_history": "arg2",
// DELAYED-MANIFEST-NEXT: "input": "arg0",
// DELAYED-MANIFEST-NEXT: "op": "record_amax",
// DELAYED-MANIFEST: "name": "forward",
// DELAYED-MANIFEST: "computed_by": {
// DELAYED-MANIFEST-NEXT: "amax_history": "arg2",
// DELAYED-MANIFEST-NEXT: "input": "arg0",
// DELAYED-MANIFEST-NEXT: "op": "quantize",
// DELAYED-MANIFEST: "computed_by": {
// DELAYED-MANIFEST-NEXT: "amax_compute_algo": "max",
// DELAYED-MANIFEST-NEXT: "amax_group": 0,
// DELAYED-MANIFEST: "groups": [
// DELAYED-MANIFEST-NEXT: {
// DELAYED-MANIFEST-NEXT: "name": "arg2",
// DELAYED-MANIFEST-NEXT: "size": 0
// DELAYED-MANIFEST: "name": "update",
// DELAYED-MANIFEST: "groups": [
// DELAYED-MANIFEST-NEXT: {
// DELAYED-MANIFEST-NEXT: "name": "arg1",
// DELAYED-MANIFEST-NEXT: "size": 0
// DELAYED-MANIFEST: "name": "takes_a_group",

//--- column-sp.mlir
// A column-parallel Linear with sequence parallelism, forward and backward,
// current scaling, tp = 2 (teq-decompose-linear's form, te-semantics.md §7):
// the input's amax all-reduced (max) before its scale, its FP8 data
// gathered for fprop, dgrad reduce-scattered in bf16, the saved input
// re-gathered and transposed (Hopper cannot gather transposed data) for
// wgrad.
module attributes {teq.target = #teq.target<sm_90>} {
  func.func @column_sp(%x: tensor<32x128xbf16>, %w: tensor<128x128xbf16>, %dy: tensor<64x128xbf16>, %tp: !teq.process_group) -> (tensor<64x128xbf16>, tensor<32x128xbf16>, tensor<128x128xbf16>) {
    %y, %dx, %dw = teq.autocast recipe(#teq.float8_current_scaling<>) -> tensor<64x128xbf16>, tensor<32x128xbf16>, tensor<128x128xbf16> {
      %out, %a, %b = teq.linear_forward %x, %w tp_group(%tp) config(#teq.linear<parallel_mode = column, sequence_parallel = true, tp_size = 2>) : tensor<32x128xbf16>, tensor<128x128xbf16> -> tensor<64x128xbf16> saved_input(tensor<32x128xbf16>) saved_weight(tensor<128x128xbf16>)
      %gx, %gw = teq.linear_backward %dy, %a, %b tp_group(%tp) config(#teq.linear<parallel_mode = column, sequence_parallel = true, tp_size = 2>) : tensor<64x128xbf16>, tensor<32x128xbf16>, tensor<128x128xbf16> dgrad(tensor<32x128xbf16>) wgrad(tensor<128x128xbf16>)
      teq.yield %out, %gx, %gw : tensor<64x128xbf16>, tensor<32x128xbf16>, tensor<128x128xbf16>
    }
    return %y, %dx, %dw : tensor<64x128xbf16>, tensor<32x128xbf16>, tensor<128x128xbf16>
  }
}

// The transpose of the gathered [64, 128] FP8 data: element (row, col) of
// the source to (col, row).
// COLSP-LABEL: gpu.func @t{{[0-9]+}}_transpose(
// COLSP-SAME: %[[SRC:[^:]*]]: memref<8192xi8>, %[[DST:[^:]*]]: memref<8192xi8>)
// COLSP: arith.divui %{{.*}}, %c128
// COLSP: arith.remui %{{.*}}, %c128
// COLSP: arith.muli %{{.*}}, %c64
// COLSP: %[[V:.*]] = memref.load %[[SRC]]
// COLSP: memref.store %[[V]], %[[DST]]
// COLSP-LABEL: func.func @column_sp(
// COLSP: call @teqAllReduce(%c0_i64, %[[P:[^,]*]], %[[P]], %c1_i64, %c1_i32, %c1_i32{{.*}})
// COLSP: call @teqAllGather(%c0_i64{{.*}}, %{{.*}}, %{{.*}}, %c4096_i64, %c0_i32)
// COLSP: call @teqGemm(
// COLSP: call @teqGemm(
// COLSP: call @teqReduceScatter(%c0_i64{{.*}}, %{{.*}}, %{{.*}}, %c4096_i64{{.*}}, %c2_i32, %c0_i32{{.*}})
// COLSP: call @teqAllGather(%c0_i64{{.*}}, %{{.*}}, %{{.*}}, %c4096_i64{{.*}}, %c0_i32{{.*}})
// COLSP: gpu.launch_func async {{.*}}_transpose
// COLSP: call @teqGemm(

//--- row-linear.mlir
// A row-parallel Linear in bf16, tp = 2 (no sequence parallelism, no bias:
// teq.bias_add, which a row-parallel bias needs, has no lowering yet): the
// partial output of the local GEMM is all-reduced into the result.
module attributes {teq.target = #teq.target<sm_90>} {
  func.func @fwd(%x: tensor<64x64xbf16>, %w: tensor<256x64xbf16>, %tp: !teq.process_group) -> tensor<64x256xbf16> {
    %y = teq.autocast enabled(false) -> tensor<64x256xbf16> {
      %out, %sa, %sb = teq.linear_forward %x, %w tp_group(%tp) config(#teq.linear<parallel_mode = row, tp_size = 2>) : tensor<64x64xbf16>, tensor<256x64xbf16> -> tensor<64x256xbf16> saved_input(tensor<64x64xbf16>) saved_weight(tensor<256x64xbf16>)
      teq.yield %out : tensor<64x256xbf16>
    }
    return %y : tensor<64x256xbf16>
  }
}

// ROW: call @teqGemm(
// ROW: call @teqAllReduce(%c0_i64{{.*}}, %{{.*}}, %{{.*}}, %c16384_i64, %c2_i32, %c0_i32)
// ROW-MANIFEST: "groups": [
// ROW-MANIFEST-NEXT: {
// ROW-MANIFEST-NEXT: "name": "arg2",
// ROW-MANIFEST-NEXT: "size": 2

//--- errors.mlir
module attributes {teq.target = #teq.target<sm_90>} {
  func.func @current_without_amax_reduction(%q: !teq.proto<32x128xbf16, #teq.float8_current_scaling_quantizer<f8E4M3FN>, rowwise>, %tp: !teq.process_group) -> !teq.proto<64x128xbf16, #teq.float8_current_scaling_quantizer<f8E4M3FN>, rowwise> {
    // ERR: error: 'teq.all_gather' op gathers current-scaling FP8 whose quantizer has no amax reduction
    %r = teq.all_gather %q, %tp {tp_size = 2 : i64} : !teq.proto<32x128xbf16, #teq.float8_current_scaling_quantizer<f8E4M3FN>, rowwise> -> !teq.proto<64x128xbf16, #teq.float8_current_scaling_quantizer<f8E4M3FN>, rowwise>
    return %r : !teq.proto<64x128xbf16, #teq.float8_current_scaling_quantizer<f8E4M3FN>, rowwise>
  }
}

// -----

module attributes {teq.target = #teq.target<sm_90>} {
  func.func @columnwise(%q: !teq.proto<32x128xbf16, #teq.float8_quantizer<f8E4M3FN>, rowwise|columnwise>, %tp: !teq.process_group) -> !teq.proto<64x128xbf16, #teq.float8_quantizer<f8E4M3FN>, rowwise|columnwise> {
    // ERR: error: 'teq.all_gather' op gathers per-tensor FP8 with a columnwise usage; TE gathers only the rowwise data
    %r = teq.all_gather %q, %tp {tp_size = 2 : i64} : !teq.proto<32x128xbf16, #teq.float8_quantizer<f8E4M3FN>, rowwise|columnwise> -> !teq.proto<64x128xbf16, #teq.float8_quantizer<f8E4M3FN>, rowwise|columnwise>
    return %r : !teq.proto<64x128xbf16, #teq.float8_quantizer<f8E4M3FN>, rowwise|columnwise>
  }
}

// -----

module attributes {teq.target = #teq.target<sm_90>} {
  func.func @mxfp8(%q: !teq.proto<32x128xbf16, #teq.mxfp8_quantizer<f8E4M3FN>, rowwise>, %tp: !teq.process_group) -> !teq.proto<64x128xbf16, #teq.mxfp8_quantizer<f8E4M3FN>, rowwise> {
    // ERR: error: 'teq.all_gather' op all-gather of MXFP8Quantizer data has no GPU lowering yet
    %r = teq.all_gather %q, %tp {tp_size = 2 : i64} : !teq.proto<32x128xbf16, #teq.mxfp8_quantizer<f8E4M3FN>, rowwise> -> !teq.proto<64x128xbf16, #teq.mxfp8_quantizer<f8E4M3FN>, rowwise>
    return %r : !teq.proto<64x128xbf16, #teq.mxfp8_quantizer<f8E4M3FN>, rowwise>
  }
}

// -----

module attributes {teq.target = #teq.target<sm_90>} {
  func.func @amax_over_another_group(%x: tensor<32x256xbf16>, %dp: !teq.process_group, %tp: !teq.process_group) -> !teq.proto<64x256xbf16, #teq.float8_current_scaling_quantizer<f8E4M3FN, with_amax_reduction = true>, rowwise> {
    %q = teq.quantize %x amax_reduction_group(%dp) : tensor<32x256xbf16> -> !teq.proto<32x256xbf16, #teq.float8_current_scaling_quantizer<f8E4M3FN, with_amax_reduction = true>, rowwise>
    // ERR: error: 'teq.all_gather' op gathers FP8 whose amax is reduced over another process group than the gather's
    %g = teq.all_gather %q, %tp {tp_size = 2 : i64} : !teq.proto<32x256xbf16, #teq.float8_current_scaling_quantizer<f8E4M3FN, with_amax_reduction = true>, rowwise> -> !teq.proto<64x256xbf16, #teq.float8_current_scaling_quantizer<f8E4M3FN, with_amax_reduction = true>, rowwise>
    return %g : !teq.proto<64x256xbf16, #teq.float8_current_scaling_quantizer<f8E4M3FN, with_amax_reduction = true>, rowwise>
  }
}

// -----

module attributes {teq.target = #teq.target<sm_90>} {
  func.func @delayed_quantized_here(%x: tensor<32x128xbf16>, %scale: tensor<1xf32>, %history: tensor<16xf32>, %tp: !teq.process_group) -> (!teq.proto<64x128xbf16, #teq.float8_quantizer<f8E4M3FN>, rowwise>, tensor<16xf32>) {
    %q, %h = teq.quantize %x state(%scale, %history : tensor<1xf32>, tensor<16xf32>) : tensor<32x128xbf16> -> !teq.proto<32x128xbf16, #teq.float8_quantizer<f8E4M3FN>, rowwise>, tensor<16xf32>
    // ERR: error: 'teq.all_gather' op gathers delayed-scaling FP8 quantized in this entry without an amax_reduction_group: each rank records only its own amax
    %g = teq.all_gather %q, %tp {tp_size = 2 : i64} : !teq.proto<32x128xbf16, #teq.float8_quantizer<f8E4M3FN>, rowwise> -> !teq.proto<64x128xbf16, #teq.float8_quantizer<f8E4M3FN>, rowwise>
    return %g, %h : !teq.proto<64x128xbf16, #teq.float8_quantizer<f8E4M3FN>, rowwise>, tensor<16xf32>
  }
}

// -----

module attributes {teq.target = #teq.target<sm_90>} {
  func.func @sizes(%x: tensor<64x256xbf16>, %tp: !teq.process_group) -> (tensor<64x256xbf16>, tensor<64x256xbf16>) {
    %a = teq.all_reduce %x, %tp {tp_size = 2 : i64} : tensor<64x256xbf16> -> tensor<64x256xbf16>
    // ERR: error: 'teq.all_reduce' op has tp_size = 4, but an earlier collective over the same group has 2
    %b = teq.all_reduce %x, %tp {tp_size = 4 : i64} : tensor<64x256xbf16> -> tensor<64x256xbf16>
    return %a, %b : tensor<64x256xbf16>, tensor<64x256xbf16>
  }
}

// -----

module attributes {teq.target = #teq.target<sm_90>} {
  func.func @delayed_gather_without_a_reducing_update(%x: tensor<32x128xbf16>, %scale: tensor<1xf32>, %history: tensor<16xf32>, %tp: !teq.process_group) -> (!teq.proto<64x128xbf16, #teq.float8_quantizer<f8E4M3FN>, rowwise>, tensor<16xf32>) {
    %q, %h = teq.quantize %x state(%scale, %history : tensor<1xf32>, tensor<16xf32>) amax_reduction_group(%tp) : tensor<32x128xbf16> -> !teq.proto<32x128xbf16, #teq.float8_quantizer<f8E4M3FN>, rowwise>, tensor<16xf32>
    // ERR: error: 'teq.all_gather' op gathers delayed-scaling FP8, but no teq.delayed_scaling_update of this module reduces amaxes over a group
    %g = teq.all_gather %q, %tp {tp_size = 2 : i64} : !teq.proto<32x128xbf16, #teq.float8_quantizer<f8E4M3FN>, rowwise> -> !teq.proto<64x128xbf16, #teq.float8_quantizer<f8E4M3FN>, rowwise>
    return %g, %h : !teq.proto<64x128xbf16, #teq.float8_quantizer<f8E4M3FN>, rowwise>, tensor<16xf32>
  }
  func.func @update(%scale: tensor<1xf32>, %history: tensor<16xf32>) -> (tensor<1xf32>, tensor<16xf32>) {
    %s, %h = teq.delayed_scaling_update %scale, %history {fp8_dtype = f8E4M3FN} : tensor<1xf32>, tensor<16xf32>
    return %s, %h : tensor<1xf32>, tensor<16xf32>
  }
}

// -----

module attributes {teq.target = #teq.target<sm_90>} {
  func.func @nvfp4_amax(%x: tensor<64x256xbf16>, %tp: !teq.process_group) -> (!teq.proto<64x256xbf16, #teq.nvfp4_quantizer<f4E2M1FN, with_amax_reduction = true>, rowwise>, tensor<64x256xbf16>) {
    // ERR: error: 'teq.quantize' op NVFP4Quantizer with with_amax_reduction has no GPU lowering yet
    %q = teq.quantize %x amax_reduction_group(%tp) : tensor<64x256xbf16> -> !teq.proto<64x256xbf16, #teq.nvfp4_quantizer<f4E2M1FN, with_amax_reduction = true>, rowwise>
    %a = teq.all_reduce %x, %tp {tp_size = 2 : i64} : tensor<64x256xbf16> -> tensor<64x256xbf16>
    return %q, %a : !teq.proto<64x256xbf16, #teq.nvfp4_quantizer<f4E2M1FN, with_amax_reduction = true>, rowwise>, tensor<64x256xbf16>
  }
}
