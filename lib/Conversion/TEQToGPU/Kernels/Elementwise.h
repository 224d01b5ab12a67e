//===- Elementwise.h - Fused elementwise ops on tensors ---------*- C++ -*-===//
//
// A cluster of arith/math ops applied elementwise to same-shaped
// high-precision tensors (an activation, its gradient; ElementwiseFusion.h)
// becomes one grid-stride kernel: each element loads its inputs once,
// computes the ops in registers and stores the cluster's outputs. Each op
// computes in f32 and rounds to its result's element type (truncf, then extf
// for the ops that read it), exactly as a store and a load between two
// kernels would, so fusing changes no bit. Splat constants are scalars of
// the kernel.
//
//===----------------------------------------------------------------------===//

#ifndef TEQ_LIB_CONVERSION_TEQTOGPU_KERNELS_ELEMENTWISE_H
#define TEQ_LIB_CONVERSION_TEQTOGPU_KERNELS_ELEMENTWISE_H

#include "KernelBuilder.h"
#include "PerTensorFP8.h"

namespace mlir::teq::kernels {

/// What one elementwise kernel computes. `ops` are arith/math ops on
/// tensors of one shape, each after the ops whose results it reads; their
/// operands are those results, `inputs` or splat `arith.constant`s.
/// `outputs`, results of `ops`, are what the kernel stores.
struct ElementwiseSpec {
  llvm::ArrayRef<Operation *> ops;
  ValueRange inputs, outputs;
  /// An output a current-scaling quantization reads next, whose amax (of
  /// the stored values) the kernel computes into that quantization's scale
  /// (`amax`), or null.
  Value amaxOf;
  ProducerAmax amax;
};
/// The 1-D memrefs `inputs` are loaded from and `outputs` stored into, in
/// the spec's order.
struct ElementwiseBuffers {
  ValueRange inputs, outputs;
};

/// The suffix naming a kernel of `ops`: "_tanh", "_mulf_mulf_subf", or
/// "_fused<n>" past four ops.
std::string elementwiseKernelSuffix(llvm::ArrayRef<Operation *> ops);

/// Emits kernel `<prefix>` + elementwiseKernelSuffix(ops) and returns its
/// launch (inputs, then outputs; stage "_elementwise"). tanh and erf become
/// polynomials: NVVM has no instruction for them and kernels call no
/// libdevice.
KernelGroup emitElementwise(const EmitContext &ctx,
                            const ElementwiseSpec &spec,
                            const ElementwiseBuffers &buffers);

} // namespace mlir::teq::kernels

#endif // TEQ_LIB_CONVERSION_TEQTOGPU_KERNELS_ELEMENTWISE_H
