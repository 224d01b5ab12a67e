//===- Passes.td - Lowerings out of the teq dialect -------*- tablegen -*-===//

#ifndef TEQ_CONVERSION_PASSES_TD
#define TEQ_CONVERSION_PASSES_TD

include "mlir/Pass/PassBase.td"

def ConvertTEQToGPU : Pass<"convert-teq-to-gpu", "ModuleOp"> {
  let summary = "lower teq entry functions to GPU kernels, GEMM calls and launches";
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
    Around the quantizations (te-semantics.md §6):
    * `teq.gemm` becomes a call `teqGemm(id, a, a_scale, b, b_scale, c, d,
      bias, alpha)` of the runtime, enqueued on the same stream; the
      manifest's `gemms[id]` describes it for cuBLASLt, canonicalized as TE
      does for the target (Hopper per-tensor and block FP8 run TN on the
      transposed copies; scale modes, bias / BGRADB epilogue, beta = 1 into
      a `main_grad`, FAST_ACCUM iff the split accumulator is off; NVFP4's
      alpha is computed on the device from the two global amaxes). What
      cuBLASLt cannot run (FP8 leading dimensions not multiples of 16, MXFP8
      before sm_100, unswizzled MXFP8/NVFP4 scales, ...) is an error at the
      op;
    * `teq.update_usage` is a view (the input's buffers of the same names);
    * `teq.bias_grad` is two kernels (fp32 partial column sums, then their
      ordered sum); elementwise arith/math ops on same-shaped bf16/f16/f32
      tensors are one kernel each, computing in f32 (tanh and erf as
      polynomials, no libdevice); static `tensor.extract_slice` /
      `insert_slice` (delayed-scaling state) are gather / copy + scatter
      kernels.
    Values the entry computes but does not return (temporaries) live in one
    workspace the runtime passes as the entry's last buffer: each buffer is
    live from its defining op to its last use and buffers whose lifetimes
    do not overlap share bytes (256-byte aligned; `workspace_bytes` in the
    manifest). A result that is an argument, a view or a value returned
    twice is copied. The manifest (`teq.manifest` on the module) names how
    every result and temporary is computed, so `te-run --check` can
    recompute the program on the CPU.

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
    A GEMM on two quantized temporaries (the entry's last argument is the
    workspace):
    ```mlir
    %xq = memref.view %ws[%c0][] : memref<82688xi8> to memref<8192xi8>
    ...
    %a = memref.extract_aligned_pointer_as_index %wq_data : memref<32768xi8> -> index
    ...
    call @teqGemm(%c0_i64, %a_i64, %a_scale, %b_i64, %b_scale, %zero, %d, %zero, %zero)
        : (i64, i64, i64, i64, i64, i64, i64, i64, i64) -> ()
    ```
  }];
  let options = [
    ListOption<"disabledFusions", "disabled-fusions", "std::string",
               "fusions across ops to leave out (bias-grad: a bias gradient "
               "summed by the transposing cast of the same tensor; amax: a "
               "current-scaling quantization's amax computed by the "
               "elementwise kernel producing its input)">,
  ];
  let dependentDialects = [
    "::mlir::arith::ArithDialect", "::mlir::gpu::GPUDialect",
    "::mlir::LLVM::LLVMDialect", "::mlir::math::MathDialect",
    "::mlir::memref::MemRefDialect", "::mlir::NVVM::NVVMDialect",
    "::mlir::scf::SCFDialect", "::mlir::vector::VectorDialect"
  ];
}

#endif // TEQ_CONVERSION_PASSES_TD
