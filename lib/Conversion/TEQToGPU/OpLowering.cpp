//===- OpLowering.cpp - The op families convert-teq-to-gpu lowers ---------===//

#include "OpLowering.h"

#include "Lowerable.h"

#include "llvm/ADT/STLExtras.h"

using namespace mlir;
using namespace mlir::teq;
using namespace mlir::teq::lowering;

ArrayRef<const OpLowering *> lowering::opLowerings() {
  static const OpLowering *const families[] = {
      &quantizeLowering,   &quantizedLayoutLowering,
      &dequantizeLowering, &gemmLowering,
      &collectiveLowering, &biasGradLowering,
      &delayedScalingUpdateLowering,
      &normLowering,
      &sliceLowering,      &elementwiseLowering,
  };
  return families;
}

const OpLowering *lowering::findLowering(Operation &op) {
  for (const OpLowering *family : opLowerings())
    if (family->matches(op))
      return family;
  return nullptr;
}

LogicalResult lowering::checkLowerable(Operation &op) {
  for (Type type : llvm::concat<Type>(op.getOperandTypes(), op.getResultTypes()))
    if (failed(checkBufferShape(type, op.getLoc())))
      return failure();
  if (isa<func::ReturnOp>(op))
    return success();
  if (const OpLowering *family = findLowering(op))
    return family->check(op);
  if (isa<ActivationOp, ActivationBackwardOp>(op))
    return op.emitOpError("is lowered as arith/math ops: run "
                          "teq-decompose-activations before "
                          "convert-teq-to-gpu (teq-lower-to-gemm and "
                          "te-compile do)");
  std::string lowered;
  for (const OpLowering *family : opLowerings())
    lowered += (lowered.empty() ? "" : ", ") + family->ops.str();
  return op.emitOpError("has no GPU lowering yet; convert-teq-to-gpu lowers ")
         << lowered << " in this version";
}

LogicalResult lowering::checkEntryLowerable(func::FuncOp entry) {
  if (!entry.getBody().hasOneBlock())
    return entry.emitOpError("entry functions must be one block");
  Block &body = entry.getBody().front();
  for (BlockArgument arg : body.getArguments())
    if (failed(checkBufferShape(arg.getType(), entry.getLoc())))
      return failure();
  for (Operation &op : body)
    if (failed(checkLowerable(op)))
      return failure();
  return success();
}
