//===- Lowerable.h - Op and type classes of the lowering -------*- C++ -*-===//
//
// The classes of ops and types the lowering's planning and its op families
// both ask about: which ops are elementwise on tensors, which constants are
// splats, which usage views need buffers of their own, which types have a
// static buffer. (Which ops lower at all is OpLowering.h's registry.)
//
//===----------------------------------------------------------------------===//

#ifndef TEQ_LIB_CONVERSION_TEQTOGPU_LOWERABLE_H
#define TEQ_LIB_CONVERSION_TEQTOGPU_LOWERABLE_H

#include "teq/Dialect/TEQ/IR/TEQOps.h"

#include "mlir/IR/Operation.h"

namespace mlir::teq::lowering {

/// Entry values become buffers of a size fixed at compile time: static,
/// non-empty shapes whose bytes fit the runtime's 2^48-byte limit
/// (docs/Artifact.md), checked before any size is computed.
LogicalResult checkBufferShape(Type type, Location loc);

/// An arith/math op applied elementwise to same-shaped high-precision
/// tensors (a Linear's neighbours: activations, gradient sums).
bool isElementwiseOnTensors(Operation &op);

/// A static tensor.extract_slice of columns [offset, offset + n) of the
/// last dimension of a bf16/f16/f32 tensor, every other dimension whole,
/// read only by elementwise ops (a gated activation's half): the
/// elementwise kernel reading it loads it in place, row stride the full
/// last dimension.
bool isFusedColumnSlice(Operation &op);

/// tensor.concat along the last dimension of two bf16/f16/f32 tensors of
/// one shape (a gated activation's gradient [da | db]): the elementwise
/// kernel computing the operands stores them into the result's halves.
bool isFusedLastDimConcat(Operation &op);

/// An `arith.constant` splat of a bf16/f16/f32 tensor (GELU's 0.5, 1): it
/// has no buffer and no kernel, each elementwise kernel reading it holds the
/// value as a scalar.
bool isSplatTensorConstant(Operation &op);

/// Whether `view` needs a buffer its input does not hold (per-tensor FP8's
/// transposed copy, derived from the rowwise data): it is then computed into
/// buffers of its own rather than aliasing its input's.
bool derivesBuffers(UpdateUsageOp view, TargetAttr target);

} // namespace mlir::teq::lowering

#endif // TEQ_LIB_CONVERSION_TEQTOGPU_LOWERABLE_H
