//===- TestPasses.td - Test-only conversions ------------*- tablegen -*-===//
//
// Passes that exist for TEQ's tests, registered by te-opt only.
//
//===----------------------------------------------------------------------===//

#ifndef TEQ_TEST_CONVERSION_PASSES_TD
#define TEQ_TEST_CONVERSION_PASSES_TD

include "mlir/Pass/PassBase.td"

def TestKernelsToCPU : Pass<"teq-test-kernels-to-cpu", "ModuleOp"> {
  let summary = "turn the GPU kernels of a module into CPU functions that "
                "emulate one block (or one thread) of a launch";
  let description = [{
    Lets a unit test run the very IR of the kernels that
    `--convert-teq-to-gpu` emits on the host and compare it bit for bit with
    the C++ reference, without a GPU. Every `gpu.func` with the `gpu.kernel`
    attribute of every `gpu.module` (or the ones `kernels` names) becomes a
    public `func.func` with `llvm.emit_c_interface`; the module's
    `memref.global`s move to the top level; the host code, the `gpu.module`s
    and the module's attributes are removed, so that upstream's CPU lowering
    (`--convert-scf-to-cf ... --convert-func-to-llvm`) applies as is. The
    kernels are arith / math / vector / memref / scf except for what is
    replaced here (an op of the gpu or nvvm dialect not listed is an error
    that names it):

    * `gpu.thread_id x`, `gpu.block_id x|y` become function arguments (or,
      per block, the thread loop's variable); `gpu.thread_id y|z` is 0,
      `gpu.block_dim x` the kernel's `known_block_size`, `gpu.grid_dim x|y`
      the grid of the kernel's launches in the module (all constant and
      equal); `gpu.return` becomes `func.return`;
    * `#gpu.address_space<workgroup|global>` is dropped from every memref;
    * `nvvm.convert.f32x2.to.f8x2` (round to nearest even, satfinite)
      becomes a call of `emu_e4m3(a, b) -> i16` or `emu_e5m2(a, b) -> i16`,
      `nvvm.prmt <default>` a call of `emu_prmt(lo, hi, selector) -> i32`,
      both implemented by the test (the first operand in the upper byte, as
      the hardware does); `nvvm.convert.f32x2.to.bf16x2` (rn) becomes two
      `arith.truncf`, the first operand in element 1;
    * `nvvm.griddepcontrol` (programmatic dependent launch) and
      `nvvm.memory.barrier` (fences) are dropped: the emulation runs blocks
      and kernels one after another.

    By default a function runs one block: `func.func @k(args...,
    %emu_bx: index, %emu_by: index)`, called by the test for every block of
    the grid. Workgroup attributions become `memref.alloca`s (aligned to
    16 bytes, or to their `llvm.align` if larger). The block's threads run one after
    another, phase by phase: the body is cut at its top-level `gpu.barrier`s
    into segments S0..Sn, and phase p is a loop over the threads that runs
    S0..Sp. A barrier means "every thread has finished what precedes it
    before any thread goes on", which holds here because phase p only
    starts once every thread finished phase p-1. Segment p needs the values
    its thread computed in S0..Sp-1, which are not kept across loops, so
    the phase recomputes them by running the earlier segments again. That
    is only sound for kernels whose earlier segments can run twice: they
    may write workgroup or global memory only with values that do not
    change when written again, and the pass leaves out, when it re-runs
    them, their result-less region ops that hold atomics (the fused amax
    reductions: counting or accumulating twice would be wrong, and such a
    region defines no value a later segment reads). A top-level
    `gpu.shuffle xor` is a cut too: each thread stores its value into a
    buffer of the block and, after the cut, loads lane `tid ^ offset`'s.
    Barriers or shuffles inside control flow cannot be cut and are errors.

    Before:
    ```mlir
    gpu.module @kernels {
      gpu.func @k(%x: memref<256xf32>) workgroup(%sum : memref<1xf32, #gpu.address_space<workgroup>>)
          kernel attributes {known_block_size = array<i32: 256, 1, 1>} {
        %tid = gpu.thread_id x
        %c0 = arith.constant 0 : index
        %zero = arith.constant 0.0 : f32
        %cond = arith.cmpi eq, %tid, %c0 : index
        scf.if %cond {
          memref.store %zero, %sum[%c0] : memref<1xf32, #gpu.address_space<workgroup>>
        }
        gpu.barrier
        %v = memref.load %sum[%c0] : memref<1xf32, #gpu.address_space<workgroup>>
        memref.store %v, %x[%tid] : memref<256xf32>
        gpu.return
      }
    }
    ```
    After (each phase clones the segments' ops, their constants included):
    ```mlir
    func.func @k(%x: memref<256xf32>, %emu_bx: index, %emu_by: index)
        attributes {llvm.emit_c_interface} {
      %c0 = arith.constant 0 : index
      %c1 = arith.constant 1 : index
      %c256 = arith.constant 256 : index
      %sum = memref.alloca() {alignment = 16 : i64} : memref<1xf32>
      scf.for %tid = %c0 to %c256 step %c1 {     // phase 0: S0
        %zero = arith.constant 0.0 : f32
        %cond = arith.cmpi eq, %tid, %c0 : index
        scf.if %cond { memref.store %zero, %sum[%c0] : memref<1xf32> }
      }
      scf.for %tid = %c0 to %c256 step %c1 {     // phase 1: S0, S1
        %zero = arith.constant 0.0 : f32
        %cond = arith.cmpi eq, %tid, %c0 : index
        scf.if %cond { memref.store %zero, %sum[%c0] : memref<1xf32> }
        %v = memref.load %sum[%c0] : memref<1xf32>
        memref.store %v, %x[%tid] : memref<256xf32>
      }
      return
    }
    ```

    With `per-thread`, a function runs one thread: `func.func @k(args...,
    workgroup buffers..., %emu_dyn: memref<?xi8>, %emu_bx: index,
    %emu_by: index, %emu_tid: index)`, its workgroup attributions (rank 1)
    and dynamic shared memory passed by the caller, which runs every thread
    of a block as a coroutine: `gpu.barrier` becomes a call of
    `emu_barrier()` and `gpu.shuffle xor` (f32) a call of
    `emu_shfl_xor(value, offset, width) -> f32` (its `valid` result true),
    where the caller switches threads. Barriers and shuffles may then be
    anywhere.

    With `case-table=<file>`, the pass also writes TileKernelEmulationTest's
    table of cases from the module's `teq.manifest` before it removes the
    host code: per entry, the block FP8 or MXFP8 output it quantizes, the
    kernel that reads the entry's input (its number of arguments and the
    bytes of its workgroup buffers) and whether an earlier launch of the
    entry receives its scale buffers (zero-filled first).
  }];
  let options = [
    ListOption<"kernels", "kernels", "std::string",
               "the kernels to convert (default: every kernel)">,
    Option<"perThread", "per-thread", "bool", /*default=*/"false",
           "one function per thread, barriers and shuffles calling the "
           "host (default: one function per block, threads phase by phase)">,
    Option<"caseTable", "case-table", "std::string", /*default=*/"\"\"",
           "write TileKernelEmulationTest's case table to this file">,
  ];
  let dependentDialects = [
    "::mlir::arith::ArithDialect", "::mlir::func::FuncDialect",
    "::mlir::memref::MemRefDialect", "::mlir::scf::SCFDialect",
    "::mlir::vector::VectorDialect"
  ];
}

#endif // TEQ_TEST_CONVERSION_PASSES_TD
