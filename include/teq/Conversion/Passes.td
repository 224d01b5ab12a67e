//===- Passes.td - Lowerings out of the teq dialect -------*- tablegen -*-===//

#ifndef TEQ_CONVERSION_PASSES_TD
#define TEQ_CONVERSION_PASSES_TD

include "mlir/Pass/PassBase.td"

def ConvertTEQToGPU : Pass<"convert-teq-to-gpu", "ModuleOp"> {
  let summary = "lower teq entry functions to GPU kernels and host launches";
  let description = [{
    Every public function with a body becomes an entry point of the
    artifact (docs/Artifact.md): its tensor and `!teq.proto` arguments and
    results become flat device buffers (one per buffer a proto describes on
    the module's target, results passed by the caller), and each
    `teq.quantize` becomes kernels in `gpu.module @teq_kernels`, generated
    for its static shape, dtype and quantizer and launched in order on one
    stream (`gpu.launch_func async`). Kernels per format (te-semantics.md
    §5), all with 256-thread blocks:
    * per-tensor FP8 current scaling: per-block amax (16-byte loads), one
      block reducing it into the scale and scale_inv (§5.1), and a cast that
      writes the rowwise data and, where the target needs it, the transposed
      copy in the same pass (64x64 tiles through shared memory);
    * delayed scaling: the cast with the stored scale, recording the amax in
      the same pass, then a record kernel (history[0], scale_inv); the update
      step `teq.delayed_scaling_update` is one kernel (§5.2);
    * FP8 block scaling 1x128 / 128x128 and MXFP8 1D / 2D: one 128x128 tile
      per block staged in shared memory, both copies from it, scales compact
      or GEMM-swizzled with zero padding (§5.3, §5.4);
    * NVFP4: global amax (with RHT one pass computes it and the amax of
      the Hadamard-transformed columnwise copy), then one 64x64 tile per
      block staged in shared memory with 16-byte loads, both copies from it
      (one thread per 16-element block and copy): E4M3 block scale, software
      E2M1 rounding to nearest or stochastically (§5.5), 8-byte data stores. Stochastic rounding reads the `rng_state`
      argument (tensor<2xi64>: seed, offset; an i64 tensor in the manifest)
      and evaluates Philox4x32-10 in the kernel, element i of a copy
      (row-major in its stored orientation) drawing word i % 4 of block
      i / 4, the columnwise copy from stream offset ^ 2^63
      (include/teq/Reference/Random.h).
    Temporaries live in static device globals of the kernel module. The
    manifest describing the entries is attached to the module as
    `teq.manifest`.

    Ops without a GPU lowering yet are errors that name the op.

    Before:
    ```mlir
    func.func @q(%x: tensor<128x256xbf16>) -> !teq.proto<128x256xbf16, #cs, rowwise|columnwise> {
      %q = teq.quantize %x : tensor<128x256xbf16> -> !teq.proto<...>
      return %q : !teq.proto<...>
    }
    ```
    After (sm_90):
    ```mlir
    func.func @q(%x: memref<32768xbf16>, %data: memref<32768xi8>,
                 %transpose: memref<32768xi8>, %scale_inv: memref<1xf32>) {
      %t0 = gpu.wait async
      %t1 = gpu.launch_func async [%t0] @teq_kernels::@q0_amax ... args(%x : memref<32768xbf16>)
      %t2 = gpu.launch_func async [%t1] @teq_kernels::@q0_scale ... args(%scale_inv : memref<1xf32>)
      %t3 = gpu.launch_func async [%t2] @teq_kernels::@q0_cast ... args(%x, %data, %transpose ...)
      gpu.wait [%t3]
      return
    }
    ```
  }];
  let dependentDialects = [
    "::mlir::arith::ArithDialect", "::mlir::gpu::GPUDialect",
    "::mlir::math::MathDialect", "::mlir::memref::MemRefDialect",
    "::mlir::NVVM::NVVMDialect", "::mlir::scf::SCFDialect",
    "::mlir::vector::VectorDialect"
  ];
}

#endif // TEQ_CONVERSION_PASSES_TD
