// RUN: te-opt %s --teq-test-kernels-to-cpu --mlir-use-nameloc-as-prefix | FileCheck %s

// Per block: the kernels of the gpu.module become func.funcs running one
// block, its threads phase by phase; the host code and the gpu.module go.

// CHECK-LABEL: module {
// CHECK-NOT: gpu.
// CHECK-DAG: func.func private @emu_e4m3(f32, f32) -> i16
// CHECK-DAG: func.func private @emu_prmt(i32, i32, i32) -> i32
// CHECK-DAG: memref.global "private" @count : memref<1xi32> = dense<0>

// CHECK-LABEL: func.func @block_sum(
// CHECK-SAME:      %{{.*}}: memref<512xf32>, %[[OUT:.*]]: memref<2xf32>, %[[BX:emu_bx]]: index, %emu_by: index)
// CHECK-SAME:      attributes {llvm.emit_c_interface}
// CHECK-DAG:     %[[C0:.*]] = arith.constant 0 : index
// CHECK-DAG:     %[[C1:.*]] = arith.constant 1 : index
// CHECK-DAG:     %[[C256:.*]] = arith.constant 256 : index
// Workgroup memory is the block's, on the stack (its alignment kept).
// CHECK:         %[[PARTIAL:.*]] = memref.alloca() {alignment = 32 : i64} : memref<8xf32>
// The shuffle's lanes.
// CHECK:         %[[LANES:.*]] = memref.alloca() : memref<256xf32>
// Phase 0: up to the shuffle, every thread stores its value.
// CHECK:         scf.for %[[TID:emu_tid]] = %[[C0]] to %[[C256]] step %[[C1]] {
// CHECK:           %[[V:.*]] = memref.load
// CHECK:           memref.store %[[V]], %[[LANES]][%[[TID]]] : memref<256xf32>
// CHECK-NEXT:    }
// Phase 1: phase 0 again, the partner's lane, up to the barrier.
// CHECK:         scf.for %[[TID:emu_tid]] = %[[C0]] to %[[C256]] step %[[C1]] {
// CHECK:           memref.store %{{.*}}, %[[LANES]][%[[TID]]]
// CHECK:           %[[OFFSET:.*]] = arith.index_cast %{{.*}} : i32 to index
// CHECK:           %[[PARTNER:.*]] = arith.xori %[[TID]], %[[OFFSET]] : index
// CHECK:           %[[OTHER:.*]] = memref.load %[[LANES]][%[[PARTNER]]] : memref<256xf32>
// CHECK:           %[[SUM:.*]] = arith.addf %{{.*}}, %[[OTHER]] : f32
// CHECK:           scf.if
// CHECK-NEXT:        memref.store %[[SUM]], %[[PARTIAL]][%{{.*}}] : memref<8xf32>
// CHECK:         }
// Phase 2: the atomic, once.
// CHECK:         scf.for %[[TID:emu_tid]] = %[[C0]] to %[[C256]] step %[[C1]] {
// CHECK:           memref.store %{{.*}}, %[[PARTIAL]][
// CHECK:           scf.if
// CHECK-NEXT:        %[[COUNT:.*]] = memref.get_global @count : memref<1xi32>
// CHECK-NEXT:        memref.atomic_rmw addi %{{.*}}, %[[COUNT]][%{{.*}}] : (i32, memref<1xi32>) -> i32
// CHECK-NEXT:      }
// CHECK-NEXT:    }
// Phase 3: phases 0 to 2 without the atomic region, then the rest.
// CHECK:         scf.for %[[TID:emu_tid]] = %[[C0]] to %[[C256]] step %[[C1]] {
// CHECK-NOT:       atomic_rmw
// CHECK:           %[[P:.*]] = memref.load %[[PARTIAL]][%{{.*}}] : memref<8xf32>
// CHECK-NEXT:      memref.store %[[P]], %[[OUT]][%[[BX]]] : memref<2xf32>
// CHECK-NEXT:    }
// CHECK-NEXT:    return

// CHECK-LABEL: func.func @convert(
// CHECK-SAME:      %[[A:.*]]: memref<512xf32>, %{{.*}}: memref<256xi16>, %{{.*}}: memref<256xi32>, %[[BF:.*]]: memref<512xbf16>, %emu_bx: index, %emu_by: index)
// One phase: no barrier.
// CHECK:         scf.for %emu_tid =
// gpu.grid_dim x: the constant grid of the launch.
// CHECK:           %[[GRID:.*]] = arith.constant 3 : index
// CHECK-NEXT:      %[[STRIDE:.*]] = arith.muli %[[GRID]], %{{.*}} : index
// CHECK:           scf.for %{{.*}} = %{{.*}} to %{{.*}} step %[[STRIDE]] {
// CHECK:             %[[HI:.*]] = memref.load %[[A]]
// CHECK:             %[[LO:.*]] = memref.load %[[A]]
// CHECK:             func.call @emu_e4m3(%[[HI]], %[[LO]]) : (f32, f32) -> i16
// CHECK:             %[[HIB:.*]] = arith.bitcast %[[HI]] : f32 to i32
// CHECK:             %[[LOB:.*]] = arith.bitcast %[[LO]] : f32 to i32
// CHECK:             func.call @emu_prmt(%[[LOB]], %[[HIB]], %{{.*}}) : (i32, i32, i32) -> i32
// The first operand of the bf16x2 cvt in element 1.
// CHECK:             %[[LO16:.*]] = arith.truncf %[[LO]] : f32 to bf16
// CHECK:             %[[HI16:.*]] = arith.truncf %[[HI]] : f32 to bf16
// CHECK:             %[[PAIR:.*]] = vector.from_elements %[[LO16]], %[[HI16]] : vector<2xbf16>
// CHECK:             vector.store %[[PAIR]], %[[BF]]
// CHECK-NOT:   scf.for %emu_tid
// CHECK:         return
// CHECK-NOT:   func.func @host

module attributes {gpu.container_module} {
  gpu.module @kernels {
    memref.global "private" @count : memref<1xi32, #gpu.address_space<global>> = dense<0>

    // A block sum: a warp shuffle, a barrier, a counter bumped atomically.
    gpu.func @block_sum(%x: memref<512xf32>, %out: memref<2xf32>)
        workgroup(%partial : memref<8xf32, #gpu.address_space<workgroup>> {llvm.align = 32 : i64})
        kernel attributes {known_block_size = array<i32: 256, 1, 1>} {
      nvvm.griddepcontrol wait
      %c0 = arith.constant 0 : index
      %c32 = arith.constant 32 : index
      %c256 = arith.constant 256 : index
      %c1_i32 = arith.constant 1 : i32
      %c16_i32 = arith.constant 16 : i32
      %c32_i32 = arith.constant 32 : i32
      %tid = gpu.thread_id x
      %bx = gpu.block_id x
      %base = arith.muli %bx, %c256 : index
      %i = arith.addi %base, %tid : index
      %v = memref.load %x[%i] : memref<512xf32>
      %other, %valid = gpu.shuffle xor %v, %c16_i32, %c32_i32 : f32
      %sum = arith.addf %v, %other : f32
      %lane = arith.remui %tid, %c32 : index
      %warp = arith.divui %tid, %c32 : index
      %first = arith.cmpi eq, %lane, %c0 : index
      scf.if %first {
        memref.store %sum, %partial[%warp] : memref<8xf32, #gpu.address_space<workgroup>>
      }
      gpu.barrier
      %leader = arith.cmpi eq, %tid, %c0 : index
      scf.if %leader {
        %counter = memref.get_global @count : memref<1xi32, #gpu.address_space<global>>
        %old = memref.atomic_rmw addi %c1_i32, %counter[%c0] : (i32, memref<1xi32, #gpu.address_space<global>>) -> i32
        nvvm.memory.barrier #nvvm.mem_scope<gpu>
      }
      gpu.barrier
      %p = memref.load %partial[%c0] : memref<8xf32, #gpu.address_space<workgroup>>
      memref.store %p, %out[%bx] : memref<2xf32>
      gpu.return
    }

    // The hardware conversions and a grid-stride loop.
    gpu.func @convert(%a: memref<512xf32>, %codes: memref<256xi16>, %signs: memref<256xi32>, %bf: memref<512xbf16>)
        kernel attributes {known_block_size = array<i32: 256, 1, 1>} {
      %c1 = arith.constant 1 : index
      %c2 = arith.constant 2 : index
      %c256 = arith.constant 256 : index
      %sel = arith.constant 29554 : i32
      %tid = gpu.thread_id x
      %bx = gpu.block_id x
      %grid = gpu.grid_dim x
      %stride = arith.muli %grid, %c256 : index
      %start = arith.addi %tid, %c1 : index
      scf.for %i = %start to %c256 step %stride {
        %j = arith.muli %i, %c2 : index
        %j1 = arith.addi %j, %c1 : index
        %hi = memref.load %a[%j] : memref<512xf32>
        %lo = memref.load %a[%j1] : memref<512xf32>
        %code = nvvm.convert.f32x2.to.f8x2 %hi, %lo {rnd = #nvvm.fp_rnd_mode<rn>, sat = #nvvm.sat_mode<satfinite>} : i16 (f8E4M3FN)
        memref.store %code, %codes[%i] : memref<256xi16>
        %hi_bits = arith.bitcast %hi : f32 to i32
        %lo_bits = arith.bitcast %lo : f32 to i32
        %sign = nvvm.prmt #nvvm.permute_mode<default> %sel, %lo_bits, %hi_bits : i32
        memref.store %sign, %signs[%i] : memref<256xi32>
        %pair = nvvm.convert.f32x2.to.bf16x2 %hi, %lo {rnd = #nvvm.fp_rnd_mode<rn>} : vector<2xbf16>
        vector.store %pair, %bf[%j] : memref<512xbf16>, vector<2xbf16>
      }
      gpu.return
    }
  }

  func.func @host(%x: memref<512xf32>, %out: memref<2xf32>, %codes: memref<256xi16>, %signs: memref<256xi32>, %bf: memref<512xbf16>) {
    %c1 = arith.constant 1 : index
    %c2 = arith.constant 2 : index
    %c3 = arith.constant 3 : index
    %c256 = arith.constant 256 : index
    gpu.launch_func @kernels::@block_sum blocks in (%c2, %c1, %c1) threads in (%c256, %c1, %c1) args(%x : memref<512xf32>, %out : memref<2xf32>)
    gpu.launch_func @kernels::@convert blocks in (%c3, %c1, %c1) threads in (%c256, %c1, %c1) args(%x : memref<512xf32>, %codes : memref<256xi16>, %signs : memref<256xi32>, %bf : memref<512xbf16>)
    return
  }
}
