//===- Elementwise.h - Elementwise arith/math ops on tensors ---*- C++ -*-===//
//
// An arith/math op applied to same-shaped high-precision tensors (a Linear's
// neighbours: activations, gradient sums) becomes one grid-stride kernel
// that computes in f32 and rounds once to the result type.
//
//===----------------------------------------------------------------------===//

#ifndef TEQ_LIB_CONVERSION_TEQTOGPU_KERNELS_ELEMENTWISE_H
#define TEQ_LIB_CONVERSION_TEQTOGPU_KERNELS_ELEMENTWISE_H

#include "KernelBuilder.h"

namespace mlir::teq::kernels {

/// Emits kernel `name` applying `op` (its name and attributes, on f32
/// scalars) to `operands` (one 1-D memref per operand of `op`) into `result`,
/// and returns its launch. tanh and erf become polynomials: NVVM has no
/// instruction for them and kernels call no libdevice.
KernelLaunch emitElementwise(ImplicitLocOpBuilder &b, gpu::GPUModuleOp module,
                             llvm::StringRef name, Operation &op,
                             ValueRange operands, Value result);

} // namespace mlir::teq::kernels

#endif // TEQ_LIB_CONVERSION_TEQTOGPU_KERNELS_ELEMENTWISE_H
