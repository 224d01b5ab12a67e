// RUN: te-opt %s --teq-test-kernels-to-cpu=per-thread --mlir-use-nameloc-as-prefix | FileCheck %s
// RUN: te-opt %s --teq-test-kernels-to-cpu="per-thread kernels=tile" | FileCheck %s --check-prefix=ONE

// Per thread: the kernels become functions of one thread, their workgroup
// buffers and dynamic shared memory passed by the caller, barriers and
// shuffles calls of the host, which switches threads.

// CHECK-LABEL: module {
// CHECK-NOT:   gpu.
// CHECK-DAG:   func.func private @emu_barrier()
// CHECK-DAG:   func.func private @emu_shfl_xor(f32, i32, i32) -> f32
// CHECK-DAG:   func.func private @emu_e5m2(f32, f32) -> i16

// CHECK-LABEL: func.func @tile(
// CHECK-SAME:      %[[X:.*]]: memref<1024xf32>, %[[Y:.*]]: memref<1024xi16>, %[[TILE:.*]]: memref<256xf32>,
// CHECK-SAME:      %[[DYN:emu_dyn]]: memref<?xi8>, %[[BX:emu_bx]]: index, %[[BY:emu_by]]: index, %[[TID:emu_tid]]: index)
// CHECK-SAME:      attributes {llvm.emit_c_interface}
// CHECK-NOT:     scf.for
// CHECK:         %[[ROW:.*]] = arith.muli %[[BY]], %{{.*}} : index
// CHECK:         %[[I:.*]] = arith.addi %[[ROW]], %[[TID]] : index
// CHECK:         memref.store %{{.*}}, %[[TILE]][%[[TID]]] : memref<256xf32>
// CHECK:         memref.view %[[DYN]]
// CHECK:         call @emu_barrier() : () -> ()
// CHECK:         scf.if %{{.*}} {
// CHECK-NEXT:      call @emu_barrier() : () -> ()
// CHECK:         %[[S:.*]] = call @emu_shfl_xor(%{{.*}}, %{{.*}}, %{{.*}}) : (f32, i32, i32) -> f32
// CHECK:         call @emu_e5m2(%[[S]], %{{.*}}) : (f32, f32) -> i16
// CHECK:         return

// CHECK-LABEL: func.func @other(
// CHECK-SAME:      memref<4xf32>, %emu_dyn: memref<?xi8>, %emu_bx: index, %emu_by: index, %emu_tid: index)

// ONE-NOT: @other
// ONE: func.func @tile(
// ONE-NOT: @other

module attributes {gpu.container_module} {
  gpu.module @kernels {
    gpu.func @tile(%x: memref<1024xf32>, %y: memref<1024xi16>)
        workgroup(%tile : memref<256xf32, #gpu.address_space<workgroup>>)
        kernel attributes {known_block_size = array<i32: 256, 1, 1>} {
      %c0 = arith.constant 0 : index
      %c256 = arith.constant 256 : index
      %c1_i32 = arith.constant 1 : i32
      %c32_i32 = arith.constant 32 : i32
      %tid = gpu.thread_id x
      %by = gpu.block_id y
      %row = arith.muli %by, %c256 : index
      %i = arith.addi %row, %tid : index
      %v = memref.load %x[%i] : memref<1024xf32>
      memref.store %v, %tile[%tid] : memref<256xf32, #gpu.address_space<workgroup>>
      %dyn = gpu.dynamic_shared_memory : memref<?xi8, #gpu.address_space<workgroup>>
      %scratch = memref.view %dyn[%c0][] : memref<?xi8, #gpu.address_space<workgroup>> to memref<4xf32, #gpu.address_space<workgroup>>
      gpu.barrier
      %first = arith.cmpi eq, %tid, %c0 : index
      scf.if %first {
        gpu.barrier
      }
      %w = memref.load %tile[%c0] : memref<256xf32, #gpu.address_space<workgroup>>
      %s, %valid = gpu.shuffle xor %w, %c1_i32, %c32_i32 : f32
      %code = nvvm.convert.f32x2.to.f8x2 %s, %w {rnd = #nvvm.fp_rnd_mode<rn>, sat = #nvvm.sat_mode<satfinite>} : i16 (f8E5M2)
      memref.store %code, %y[%i] : memref<1024xi16>
      gpu.return
    }
    gpu.func @other(%x: memref<4xf32>) kernel attributes {known_block_size = array<i32: 256, 1, 1>} {
      gpu.return
    }
  }
}
