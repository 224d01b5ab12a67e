//===- QuantizeFusion.cpp - Work a quantization's kernels do on the way ---===//

#include "QuantizeFusion.h"

#include "Kernels/PerTensorFP8.h"
#include "Lowerable.h"
#include "teq/Layout/BufferLayout.h"

#include "llvm/ADT/STLExtras.h"
#include "llvm/ADT/SmallPtrSet.h"

using namespace mlir;
using namespace mlir::teq;
using namespace mlir::teq::lowering;

namespace {

/// Whether `quantize`'s per-tensor FP8 cast is the transposing one, on a
/// shape whose tiles can sum columns, without an amax all-reduce between
/// its kernels.
bool castCanSumColumns(QuantizeOp quantize, TargetAttr target) {
  TensorProtoType proto = quantize.getResult().getType();
  QuantizerAttrInterface q = proto.getQuantizer();
  if (!isa<Float8QuantizerAttr, Float8CurrentScalingQuantizerAttr>(q) ||
      q.hasAmaxReduction())
    return false;
  kernels::PerTensorFP8Spec spec;
  layout::Flat2D flat = layout::flatten2D(std::vector<int64_t>(
      proto.getShape().begin(), proto.getShape().end()));
  spec.rows = flat.m;
  spec.cols = flat.k;
  spec.transpose = llvm::any_of(proto.getBuffers(target), [](const auto &d) {
    return d.name == "transpose";
  });
  return kernels::canSumColumns(spec);
}

/// The first quantization of `biasGrad`'s input that can sum its columns,
/// sums no other bias gradient's (`claimed`), and before which nothing
/// reads the bias gradient, or null.
QuantizeOp castFor(BiasGradOp biasGrad, TargetAttr target,
                   const llvm::SmallPtrSetImpl<Operation *> &claimed) {
  Value input = biasGrad.getInput();
  auto inputType = cast<RankedTensorType>(input.getType());
  if (inputType.getShape().back() !=
      biasGrad.getResult().getType().getNumElements())
    return {};
  QuantizeOp best;
  for (Operation *user : input.getUsers()) {
    auto quantize = dyn_cast<QuantizeOp>(user);
    if (!quantize || quantize->getBlock() != biasGrad->getBlock() ||
        claimed.contains(quantize) || !castCanSumColumns(quantize, target))
      continue;
    if (best && best->isBeforeInBlock(quantize))
      continue;
    bool readBefore = llvm::any_of(
        biasGrad.getResult().getUsers(), [&](Operation *reader) {
          return reader->getBlock() != quantize->getBlock() ||
                 !quantize->isBeforeInBlock(reader);
        });
    if (!readBefore)
      best = quantize;
  }
  return best;
}

} // namespace

namespace {

/// Whether `quantize` can take its scale from the elementwise kernel that
/// stores its input: current scaling without an amax all-reduce, of a
/// tensor an elementwise op of the same block computes.
bool canTakeProducerAmax(QuantizeOp quantize) {
  auto q = dyn_cast<Float8CurrentScalingQuantizerAttr>(
      quantize.getResult().getType().getQuantizer());
  if (!q || q.hasAmaxReduction() || quantize.getAmaxReductionGroup())
    return false;
  Value input = quantize.getInput();
  Operation *producer = input.getDefiningOp();
  if (!producer || producer->getBlock() != quantize->getBlock())
    return false;
  if (auto ln = dyn_cast<LayerNormOp>(producer))
    return input == ln.getY();
  if (auto rms = dyn_cast<RMSNormOp>(producer))
    return input == rms.getY();
  return isElementwiseOnTensors(*producer) || isFusedLastDimConcat(*producer);
}

void planAmaxFusions(func::FuncOp entry) {
  // One quantization a producer: the first of each tensor.
  llvm::SmallPtrSet<Value, 8> claimed;
  for (auto quantize : entry.getBody().front().getOps<QuantizeOp>())
    if (canTakeProducerAmax(quantize) &&
        claimed.insert(quantize.getInput()).second)
      quantize->setAttr(kAmaxFromProducerAttr,
                        UnitAttr::get(entry.getContext()));
}

} // namespace

kernels::ProducerAmax lowering::producerAmaxFor(QuantizeOp quantize,
                                                Value scale) {
  auto q = cast<Float8CurrentScalingQuantizerAttr>(
      quantize.getResult().getType().getQuantizer());
  kernels::ProducerAmax amax;
  amax.e5m2 = isa<Float8E5M2Type>(q.getFp8Dtype());
  amax.forcePow2 = q.getForcePow_2Scales();
  amax.epsilon = static_cast<float>(q.getAmaxEpsilon().convertToDouble());
  amax.scale = scale;
  return amax;
}

QuantizeOp lowering::quantizeTakingAmaxOf(Value v) {
  for (Operation *user : v.getUsers())
    if (auto quantize = dyn_cast<QuantizeOp>(user);
        quantize && takesProducerAmax(quantize))
      return quantize;
  return {};
}

void lowering::planQuantizeFusions(func::FuncOp entry, TargetAttr target,
                                   const FusionOptions &options) {
  if (options.amax)
    planAmaxFusions(entry);
  if (!options.biasGrad)
    return;
  llvm::SmallPtrSet<Operation *, 8> claimed;
  for (auto biasGrad :
       llvm::make_early_inc_range(entry.getBody().front().getOps<BiasGradOp>()))
    if (QuantizeOp quantize = castFor(biasGrad, target, claimed)) {
      claimed.insert(quantize);
      biasGrad->moveAfter(quantize);
      biasGrad->setAttr(kSummedByCastAttr, UnitAttr::get(entry.getContext()));
    }
}

BiasGradOp lowering::biasGradSummedBy(QuantizeOp quantize) {
  auto next = dyn_cast_or_null<BiasGradOp>(quantize->getNextNode());
  if (!next || !isSummedByCast(next) ||
      next.getInput() != quantize.getInput())
    return {};
  return next;
}
