//===- ElementwiseLowering.cpp - Elementwise arith/math ops ---------------===//
//
// Arith/math ops on same-shaped bf16/f16/f32 tensors (activations and
// their gradients between the Linears) and the splat constants they read.
// ElementwiseFusion.h groups an entry's elementwise ops into clusters when
// the entry is planned; each cluster is one kernel launched where its last
// op stands, and every other op of it lowers to nothing. A splat constant
// becomes a scalar of the kernels that read it, with no buffer; one that is
// returned or read by another op (a GEMM, a quantization) is also stored by
// a fill kernel of its own.
//
//===----------------------------------------------------------------------===//

#include "OpLowering.h"

#include "Lowerable.h"
#include "QuantizeFusion.h"

#include "Kernels/Elementwise.h"

#include "mlir/Dialect/Arith/IR/Arith.h"

using namespace mlir;
using namespace mlir::teq;
using namespace mlir::teq::lowering;

namespace {

/// A tensor constant lowers only as a splat (a scalar of the kernels that
/// read it, a fill kernel where it is stored): the manifest describes it by
/// its one value, which must be finite (JSON).
LogicalResult checkTensorConstant(arith::ConstantOp op) {
  if (!isSplatTensorConstant(*op))
    return op.emitOpError("is a tensor constant that is not a splat of a "
                          "bf16, f16 or f32 value; only splats lower (into "
                          "the elementwise kernels that read them): pass "
                          "other constant tensors as entry arguments");
  APFloat value = cast<DenseElementsAttr>(op.getValue()).getSplatValue<APFloat>();
  if (!value.isFinite())
    return op.emitOpError("is a splat of a non-finite value, which has no "
                          "GPU lowering yet (the manifest describes constants "
                          "by a finite value)");
  return success();
}

bool isElementwiseOrTensorConstant(Operation &op) {
  if (isElementwiseOnTensors(op) || isFusedColumnSlice(op) ||
      isFusedLastDimConcat(op))
    return true;
  auto constant = dyn_cast<arith::ConstantOp>(op);
  return constant && isa<RankedTensorType>(constant.getType());
}

LogicalResult checkElementwise(Operation &op) {
  if (auto constant = dyn_cast<arith::ConstantOp>(op))
    return checkTensorConstant(constant);
  return success();
}

LogicalResult lowerElementwise(LoweringContext &ctx, Operation &op) {
  // A constant is a scalar of the kernels that read it (and where it must be
  // stored, a fill kernel of its own); an op other than its cluster's last
  // computes inside that op's kernel.
  const ElementwiseCluster *cluster = ctx.getPlan().fusion.launchedAt(&op);
  // Nothing reads a cluster without outputs (dead code).
  if (!cluster || cluster->outputs.empty())
    return success();
  SmallVector<Value> inputBuffers, outputBuffers;
  for (Value input : cluster->inputs)
    inputBuffers.push_back(ctx.buffer(input));
  for (Value output : cluster->outputs)
    outputBuffers.push_back(ctx.buffer(output));
  kernels::ElementwiseSpec spec{cluster->ops, cluster->inputs,
                                cluster->outputs};
  // An output whose current-scaling quantization takes its amax from here
  // (QuantizeFusion.h): the first such.
  for (Value output : cluster->outputs)
    if (QuantizeOp quantize = quantizeTakingAmaxOf(output)) {
      spec.amaxOf = output;
      spec.amax = producerAmaxFor(quantize, ctx.scratch(quantize));
      break;
    }
  kernels::ElementwiseBuffers buffers{inputBuffers, outputBuffers};
  ctx.launchKernels(cluster->launchAt->getLoc(), KernelKind::Elementwise,
                    [&](const kernels::EmitContext &ec) {
                      return kernels::emitElementwise(ec, spec, buffers);
                    });
  return success();
}

} // namespace

const OpLowering lowering::elementwiseLowering = {
    "elementwise arith/math ops on bf16/f16/f32 tensors of one shape, "
    "last-dimension column slices read by them and two-way last-dimension "
    "tensor.concat, and splat constants",
    isElementwiseOrTensorConstant,
    checkElementwise,
    lowerElementwise,
};
