//===- SliceLowering.cpp - Static tensor slices ---------------------------===//
//
// tensor.extract_slice and tensor.insert_slice with static offsets, sizes
// and strides (teq-decompose-linear slices one quantizer's delayed-scaling
// state out of the state of many and writes it back). extract_slice is a
// gather into the result; insert_slice a copy of the destination, then a
// scatter of the source (both results are new buffers, so the operands
// stay intact).
//
//===----------------------------------------------------------------------===//

#include "OpLowering.h"

#include "Lowerable.h"

#include "Kernels/Auxiliary.h"

#include "mlir/Dialect/Tensor/IR/Tensor.h"

using namespace mlir;
using namespace mlir::teq;
using namespace mlir::teq::lowering;

namespace {

LogicalResult checkSlice(Operation &op) {
  auto slice = cast<OffsetSizeAndStrideOpInterface>(op);
  if (!slice.getOffsets().empty() || !slice.getSizes().empty() ||
      !slice.getStrides().empty())
    return op.emitOpError("has dynamic offsets, sizes or strides; only "
                          "static slices are lowered");
  return success();
}

LogicalResult lowerSlice(LoweringContext &ctx, Operation &op) {
  auto slice = cast<OffsetSizeAndStrideOpInterface>(op);
  auto insert = dyn_cast<tensor::InsertSliceOp>(op);
  Value full = insert ? insert.getDest() : op.getOperand(0);
  kernels::SliceSpec spec;
  spec.fullShape.assign(cast<RankedTensorType>(full.getType()).getShape());
  spec.offsets.assign(slice.getStaticOffsets());
  spec.sizes.assign(slice.getStaticSizes());
  spec.strides.assign(slice.getStaticStrides());
  spec.scatter = static_cast<bool>(insert);
  Value result = ctx.buffer(op.getResult(0));
  if (insert)
    ctx.copyInto(ctx.getEntry().getLoc(), full, {result});
  kernels::SliceBuffers buffers;
  buffers.part = insert ? ctx.buffer(insert.getSource()) : result;
  buffers.full = insert ? result : ctx.buffer(full);
  ctx.launchKernels(op.getLoc(), KernelKind::Slice,
                    [&](const kernels::EmitContext &ec) {
                      return kernels::emitSlice(ec, spec, buffers);
                    });
  return success();
}

} // namespace

const OpLowering lowering::sliceLowering = {
    "static tensor.extract_slice and tensor.insert_slice",
    [](Operation &op) {
      // A column slice read by elementwise ops loads in their kernel.
      return isa<tensor::ExtractSliceOp, tensor::InsertSliceOp>(op) &&
             !isFusedColumnSlice(op);
    },
    checkSlice,
    lowerSlice,
};
