//===- ResolveAutocast.cpp - Explicit quantizers, no autocast regions -----===//

#include "EffectiveRecipe.h"
#include "teq/Dialect/TEQ/IR/TEQOps.h"
#include "teq/Dialect/TEQ/Transforms/Passes.h"

#include "mlir/IR/BuiltinOps.h"

namespace mlir::teq {
#define GEN_PASS_DEF_RESOLVEAUTOCAST
#include "teq/Dialect/TEQ/Transforms/Passes.h.inc"
} // namespace mlir::teq

using namespace mlir;
using namespace mlir::teq;

namespace {

/// Moves the body of `op` in front of it and forwards the yielded values.
void inlineAutocast(AutocastOp op) {
  Block &body = op.getBody().front();
  auto yield = cast<YieldOp>(body.getTerminator());
  op->replaceAllUsesWith(yield.getValues());
  yield.erase();
  op->getBlock()->getOperations().splice(Block::iterator(op),
                                         body.getOperations());
  op.erase();
}

struct ResolveAutocastPass
    : public mlir::teq::impl::ResolveAutocastBase<ResolveAutocastPass> {
  using Base::Base;

  void runOnOperation() override {
    ModuleOp module = getOperation();
    TargetAttr target = TargetAttr::lookup(module);
    if (!target) {
      module.emitError() << "no #teq.target on the module: the default "
                            "recipe depends on the GPU; add attributes "
                            "{teq.target = #teq.target<sm_90>}";
      return signalPassFailure();
    }
    // Resolve every Linear first: backward ops look at their forward's
    // region, which must still exist.
    SmallVector<std::pair<Operation *, LinearQuantizationAttr>> resolved;
    WalkResult result = module.walk([&](Operation *op) {
      if (!isa<LinearForwardOp, LinearBackwardOp>(op) ||
          op->hasAttr("quantization"))
        return WalkResult::advance();
      FailureOr<LinearQuantizationAttr> quantization =
          resolveLinearQuantization(op, getLinearRecipe(op, target));
      if (failed(quantization))
        return WalkResult::interrupt();
      resolved.emplace_back(op, *quantization);
      return WalkResult::advance();
    });
    if (result.wasInterrupted())
      return signalPassFailure();
    for (auto [op, quantization] : resolved)
      op->setAttr("quantization", quantization);
    // Inner regions first, so each inlining sees a flat body.
    SmallVector<AutocastOp> regions;
    module.walk<WalkOrder::PostOrder>(
        [&](AutocastOp op) { regions.push_back(op); });
    for (AutocastOp op : regions)
      inlineAutocast(op);
  }
};

} // namespace
