//===- Lowerable.h - What convert-teq-to-gpu lowers ------------*- C++ -*-===//
//
// The checks made before any IR is built: every op of an entry has a
// lowering, every value a static buffer. Each failure is an error at the op
// naming what is not supported.
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

/// An `arith.constant` splat of a bf16/f16/f32 tensor (GELU's 0.5, 1): it
/// has no buffer and no kernel, each elementwise kernel reading it holds the
/// value as a scalar.
bool isSplatTensorConstant(Operation &op);

/// Success if `op` has a lowering, else an error naming what is missing.
LogicalResult checkLowerable(Operation &op);

/// Whether `view` needs a buffer its input does not hold (per-tensor FP8's
/// transposed copy, derived from the rowwise data): it is then computed into
/// buffers of its own rather than aliasing its input's.
bool derivesBuffers(UpdateUsageOp view, TargetAttr target);

/// The checks of checkLowerable for teq.all_gather, teq.reduce_scatter and
/// teq.all_reduce: the group is an entry argument; tensors are bf16, f16 or
/// f32; a quantized all-gather is per-tensor FP8, rowwise, with a scale
/// every rank shares.
LogicalResult checkCollective(Operation &op);

} // namespace mlir::teq::lowering

#endif // TEQ_LIB_CONVERSION_TEQTOGPU_LOWERABLE_H
