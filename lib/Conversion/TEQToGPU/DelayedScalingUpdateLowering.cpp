//===- DelayedScalingUpdateLowering.cpp - teq.delayed_scaling_update ------===//
//
// TE's fused update of delayed-scaling state (te-semantics.md §5.2): one
// kernel rolls every slot's amax history and computes its new scale. Under
// an amax reduction group, row 0 of the history (every slot's newest amax)
// is first all-reduced (max) over the group into the op's scratch, one
// runtime call for all slots, as TE reduces them.
//
//===----------------------------------------------------------------------===//

#include "OpLowering.h"

#include "Kernels/DelayedScalingUpdate.h"

using namespace mlir;
using namespace mlir::teq;
using namespace mlir::teq::lowering;

namespace {

LogicalResult checkUpdate(Operation &operation) {
  auto op = cast<DelayedScalingUpdateOp>(operation);
  Value group = op.getAmaxReductionGroup();
  if (group && !isa<BlockArgument>(group))
    return op.emitOpError("needs its amax_reduction_group as an argument "
                          "of the entry function (the caller passes a "
                          "communicator per group)");
  return success();
}

LogicalResult lowerUpdate(LoweringContext &ctx, Operation &operation) {
  auto op = cast<DelayedScalingUpdateOp>(operation);
  kernels::DelayedScalingUpdateSpec spec;
  spec.slots = op.getScale().getType().getDimSize(0);
  spec.length = op.getAmaxHistory().getType().getDimSize(0);
  spec.fp8Max = static_cast<float>(getFormatMax(op.getFp8Dtype()));
  spec.margin = op.getMarginAttr().getValue().getSExtValue();
  spec.mostRecent = op.getAmaxComputeAlgo() == AmaxComputeAlgo::most_recent;
  kernels::DelayedScalingUpdateBuffers buffers;
  buffers.scale = ctx.buffer(op.getScale());
  buffers.history = ctx.buffer(op.getAmaxHistory());
  buffers.newScale = ctx.buffer(op.getUpdatedScale());
  buffers.newHistory = ctx.buffer(op.getUpdatedAmaxHistory());
  // Reduced amaxes: row 0 (the first S floats) all-reduced (max) into the
  // op's scratch.
  if (Value group = op.getAmaxReductionGroup()) {
    buffers.reduced = ctx.scratch(op);
    ctx.allReduceAmax(op.getLoc(), group, buffers.history, buffers.reduced,
                      spec.slots);
  }
  ctx.launchKernels(op.getLoc(), KernelKind::ScalingUpdate,
                    [&](const kernels::EmitContext &ec) {
                      return kernels::emitDelayedScalingUpdate(ec, spec,
                                                               buffers);
                    });
  return success();
}

} // namespace

const OpLowering lowering::delayedScalingUpdateLowering = {
    "teq.delayed_scaling_update",
    [](Operation &op) { return isa<DelayedScalingUpdateOp>(op); },
    checkUpdate,
    lowerUpdate,
};
