//===- FuseResidualAdds.cpp - Residual adds through a GEMM's C input ------===//
//
// A transformer layer adds its residual to a GEMM's output
// (`h = proj(attn) + x`, `out = fc2(a) + h`): unfused, a separate
// elementwise kernel reads both [tokens, hidden] tensors and writes the
// sum. cuBLASLt adds it for free: D = A.B + beta C (+ bias) with beta = 1
// (teq.gemm's `accumulate`), as TE's te.ops ForwardLinearBiasAdd does
// (te-layer-semantics.md §4).
//
//===----------------------------------------------------------------------===//

#include "AddOperand.h"

#include "teq/Dialect/TEQ/IR/TEQDialect.h"
#include "teq/Dialect/TEQ/IR/TEQOps.h"
#include "teq/Dialect/TEQ/Transforms/Passes.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/IR/PatternMatch.h"
#include "mlir/Transforms/GreedyPatternRewriteDriver.h"

namespace mlir::teq {
#define GEN_PASS_DEF_FUSERESIDUALADDS
#include "teq/Dialect/TEQ/Transforms/Passes.h.inc"
} // namespace mlir::teq

using namespace mlir;
using namespace mlir::teq;

namespace {

/// `arith.addf(gemm, r)` or `arith.addf(r, gemm)` -> `teq.gemm ...
/// accumulate(r)`, where the GEMM's result has no other reader, the GEMM
/// does not accumulate already and computes no dbias, and r has the
/// result's type (cuBLASLt reads C as D's type).
struct AddIntoGemm : OpRewritePattern<arith::AddFOp> {
  using OpRewritePattern::OpRewritePattern;

  LogicalResult matchAndRewrite(arith::AddFOp add,
                                PatternRewriter &rewriter) const override {
    auto match = addOperandFrom<GemmOp>(
        add, [](GemmOp gemm, Value, Value residual) {
          return !gemm.getAccumulate() && !gemm.getDbias() &&
                 gemm.getResult().hasOneUse() &&
                 residual.getType() == gemm.getResult().getType();
        });
    if (!match)
      return rewriter.notifyMatchFailure(add, "no GEMM result to add into");
    auto [gemm, residual] = *match;
    // At the add: the GEMM's operands and the residual all dominate it.
    auto fused = GemmOp::create(
        rewriter, gemm.getLoc(), gemm.getResult().getType(), Type(),
        gemm.getA(), gemm.getB(), gemm.getBias(), residual,
        gemm.getLayoutAttr(), gemm.getUseSplitAccumulatorAttr(),
        gemm.getKindAttr(), gemm.getPhysicalLayoutAttr());
    // Discardable attributes (a GEMM's name) go with it.
    for (NamedAttribute attr : gemm->getDiscardableAttrs())
      fused->setDiscardableAttr(attr.getName(), attr.getValue());
    rewriter.replaceOp(add, fused.getResult());
    rewriter.eraseOp(gemm);
    return success();
  }
};

struct FuseResidualAddsPass
    : mlir::teq::impl::FuseResidualAddsBase<FuseResidualAddsPass> {
  void runOnOperation() override {
    RewritePatternSet patterns(&getContext());
    patterns.add<AddIntoGemm>(&getContext());
    if (failed(applyPatternsGreedily(getOperation(), std::move(patterns))))
      signalPassFailure();
  }
};

} // namespace
