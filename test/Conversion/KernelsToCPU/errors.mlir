// RUN: te-opt %s --teq-test-kernels-to-cpu -split-input-file -verify-diagnostics
// RUN: not te-opt %s --teq-test-kernels-to-cpu=kernels=missing -split-input-file 2>&1 | FileCheck %s --check-prefix=NAMED

// What the emulation cannot run is an error that names the op.

// NAMED: error: no kernel named 'missing'

gpu.module @kernels {
  gpu.func @k(%x: memref<256xf32>) kernel attributes {known_block_size = array<i32: 256, 1, 1>} {
    %lane = gpu.lane_id
    // expected-error @above {{'gpu.lane_id' op cannot be emulated on the CPU: no emulation of this op}}
    gpu.return
  }
}

// -----

gpu.module @kernels {
  gpu.func @k(%x: memref<256xf32>) kernel attributes {known_block_size = array<i32: 256, 1, 1>} {
    %tid = gpu.thread_id x
    %c0 = arith.constant 0 : index
    %first = arith.cmpi eq, %tid, %c0 : index
    scf.if %first {
      // expected-error @below {{'gpu.barrier' op inside control flow cannot be emulated phase by phase (per-thread emulates it)}}
      gpu.barrier
    }
    gpu.return
  }
}

// -----

gpu.module @kernels {
  gpu.func @k(%x: memref<256xf32>, %offset: i32) kernel attributes {known_block_size = array<i32: 256, 1, 1>} {
    %c32 = arith.constant 32 : i32
    %v = arith.constant 1.0 : f32
    // expected-error @below {{'gpu.shuffle' op cannot be emulated phase by phase: needs a constant offset below a constant width, a power of two up to 32}}
    %s, %valid = gpu.shuffle xor %v, %offset, %c32 : f32
    gpu.return
  }
}

// -----

gpu.module @kernels {
  // expected-error @below {{cannot emulate a kernel without known_block_size = [N, 1, 1]}}
  gpu.func @k(%x: memref<256xf32>) kernel {
    gpu.return
  }
}

// -----

gpu.module @kernels {
  gpu.func @k(%x: memref<256xf32>) kernel attributes {known_block_size = array<i32: 256, 1, 1>} {
    // expected-error @below {{'gpu.grid_dim' op cannot be emulated on the CPU: the module does not launch the kernel}}
    %grid = gpu.grid_dim x
    gpu.return
  }
}

// -----

gpu.module @kernels {
  gpu.func @k(%count: memref<1xi32>) kernel attributes {known_block_size = array<i32: 256, 1, 1>} {
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : i32
    // A later phase re-runs this segment: its atomic would run twice.
    // expected-error @below {{'memref.atomic_rmw' op holds atomics and defines values: re-running it for a later phase would repeat them}}
    %old = memref.atomic_rmw addi %c1, %count[%c0] : (i32, memref<1xi32>) -> i32
    gpu.barrier
    gpu.return
  }
}

// -----

gpu.module @kernels {
  gpu.func @k(%lo: i32, %hi: i32, %out: memref<1xi32>) kernel attributes {known_block_size = array<i32: 256, 1, 1>} {
    %sel = arith.constant 1 : i32
    // expected-error @below {{'nvvm.prmt' op cannot be emulated on the CPU: only the default mode with two sources is emulated}}
    %r = nvvm.prmt #nvvm.permute_mode<f4e> %sel, %lo, %hi : i32
    gpu.return
  }
}

// -----

// expected-error @below {{no kernels to convert}}
module {
}
