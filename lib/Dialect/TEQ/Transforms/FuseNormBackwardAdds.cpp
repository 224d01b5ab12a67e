//===- FuseNormBackwardAdds.cpp - A residual gradient into a norm's dx ----===//
//
// A layer's backward adds the residual branch's gradient to a norm's dx:
// unfused, an elementwise kernel right after the norm's backward reads dx
// and the residual gradient and writes the sum. The norm's kernel adds it
// in f32 before dx's one rounding instead, as TE's rmsnorm_bwd_add
// (te-layer-semantics.md §1.5).
//
//===----------------------------------------------------------------------===//

#include "AddOperand.h"

#include "teq/Dialect/TEQ/IR/TEQDialect.h"
#include "teq/Dialect/TEQ/IR/TEQOps.h"
#include "teq/Dialect/TEQ/Transforms/Passes.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/IR/Dominance.h"
#include "mlir/IR/PatternMatch.h"
#include "mlir/Transforms/GreedyPatternRewriteDriver.h"

namespace mlir::teq {
#define GEN_PASS_DEF_FUSENORMBACKWARDADDS
#include "teq/Dialect/TEQ/Transforms/Passes.h.inc"
} // namespace mlir::teq

using namespace mlir;
using namespace mlir::teq;

namespace {

/// `arith.addf(dx, r)` or `arith.addf(r, dx)` -> the norm backward with
/// `add(r)`, where dx (result 0) has no other reader, the backward has no
/// add yet and r has dx's type.
template <typename NormBackwardOp>
struct AddIntoNormBackward : OpRewritePattern<arith::AddFOp> {
  AddIntoNormBackward(MLIRContext *context, DominanceInfo &dominance)
      : OpRewritePattern<arith::AddFOp>(context), dominance(dominance) {}

  LogicalResult matchAndRewrite(arith::AddFOp add,
                                PatternRewriter &rewriter) const override {
    auto match = addOperandFrom<NormBackwardOp>(
        add, [&](NormBackwardOp norm, Value operand, Value residual) {
          return !norm.getAdd() && operand == norm.getDx() &&
                 norm.getDx().hasOneUse() &&
                 residual.getType() == norm.getDx().getType() &&
                 where(norm, add, residual);
        });
    if (!match)
      return rewriter.notifyMatchFailure(add, "no norm backward's dx to add to");
    auto [norm, residual] = *match;
    rewriter.setInsertionPoint(where(norm, add, residual));
    auto fused = cast<NormBackwardOp>(rewriter.clone(*norm));
    rewriter.modifyOpInPlace(fused,
                             [&] { fused.getAddMutable().assign(residual); });
    rewriter.replaceOp(add, fused.getDx());
    rewriter.replaceOp(norm, fused->getResults());
    return success();
  }

  /// Where the fused op can go: at the norm if `residual` is defined before
  /// it; else at the add if the norm's other results are read only after
  /// it (the norm's operands dominate the add); else nowhere.
  Operation *where(NormBackwardOp norm, arith::AddFOp add,
                   Value residual) const {
    if (dominance.properlyDominates(residual, norm))
      return norm;
    for (Value result : norm->getResults().drop_front())
      for (Operation *user : result.getUsers())
        if (!dominance.properlyDominates(add.getOperation(), user))
          return nullptr;
    return add;
  }

  DominanceInfo &dominance;
};

struct FuseNormBackwardAddsPass
    : mlir::teq::impl::FuseNormBackwardAddsBase<FuseNormBackwardAddsPass> {
  void runOnOperation() override {
    // The rewrites move no blocks: block dominance stays valid, and the
    // order within a block is recomputed as ops come and go.
    DominanceInfo dominance(getOperation());
    RewritePatternSet patterns(&getContext());
    patterns.add<AddIntoNormBackward<LayerNormBackwardOp>,
                 AddIntoNormBackward<RMSNormBackwardOp>>(&getContext(),
                                                          dominance);
    if (failed(applyPatternsGreedily(getOperation(), std::move(patterns))))
      signalPassFailure();
  }
};

} // namespace
