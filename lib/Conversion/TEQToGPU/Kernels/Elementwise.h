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

namespace mlir::teq::kernels {

/// What one elementwise kernel computes. `ops` are arith/math ops on
/// tensors of one shape, each after the ops whose results it reads; their
/// operands are those results, `inputs` (loaded from `inputBuffers`, 1-D
/// memrefs) or splat `arith.constant`s. `outputs`, results of `ops`, are
/// stored into `outputBuffers`.
struct ElementwiseKernel {
  llvm::ArrayRef<Operation *> ops;
  ValueRange inputs, inputBuffers;
  ValueRange outputs, outputBuffers;
};

/// The suffix naming a kernel of `ops`: "_tanh", "_mulf_mulf_subf", or
/// "_fused<n>" past four ops.
std::string elementwiseKernelSuffix(llvm::ArrayRef<Operation *> ops);

/// Emits kernel `name` computing `kernel` and returns its launch (inputs,
/// then outputs). tanh and erf become polynomials: NVVM has no instruction
/// for them and kernels call no libdevice.
KernelLaunch emitElementwise(ImplicitLocOpBuilder &b, gpu::GPUModuleOp module,
                             llvm::StringRef name,
                             const ElementwiseKernel &kernel);

} // namespace mlir::teq::kernels

#endif // TEQ_LIB_CONVERSION_TEQTOGPU_KERNELS_ELEMENTWISE_H
