//===- LibdeviceFree.cpp - Kernels that need no CUDA toolkit --------------===//

#include "LibdeviceFree.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "mlir/Dialect/Math/IR/Math.h"
#include "mlir/IR/BuiltinTypes.h"
#include "mlir/IR/TypeUtilities.h"
#include "mlir/Transforms/WalkPatternRewriteDriver.h"

using namespace mlir;

namespace {

/// f32 or vector<N x f32>: the types libdevice would be called for.
bool isF32OrVector(Type type) {
  return getElementTypeOrSelf(type).isF32();
}

/// The same shape with i32 / i1 elements.
Type withElement(Type type, Type element) {
  if (auto vector = dyn_cast<VectorType>(type))
    return vector.clone(element);
  return element;
}

struct AbsFAsSignClear : OpRewritePattern<math::AbsFOp> {
  using OpRewritePattern::OpRewritePattern;
  LogicalResult matchAndRewrite(math::AbsFOp op,
                                PatternRewriter &rewriter) const override {
    Type type = op.getType();
    if (!isF32OrVector(type))
      return failure();
    Location loc = op.getLoc();
    Type i32 = withElement(type, rewriter.getI32Type());
    Value bits = arith::BitcastOp::create(rewriter, loc, i32, op.getOperand());
    TypedAttr maskValue = rewriter.getI32IntegerAttr(0x7fffffff);
    if (auto vector = dyn_cast<VectorType>(i32))
      maskValue = DenseElementsAttr::get(vector, maskValue);
    Value mask = arith::ConstantOp::create(rewriter, loc, maskValue);
    Value cleared = arith::AndIOp::create(rewriter, loc, bits, mask);
    rewriter.replaceOpWithNewOp<arith::BitcastOp>(op, type, cleared);
    return success();
  }
};

/// `arith.maxnumf a, b` -> `a > b || b is NaN ? a : b`, and minnumf with
/// `<`: the NaN-ignoring maximum and minimum.
template <typename Op, arith::CmpFPredicate Picks>
struct NumFAsSelect : OpRewritePattern<Op> {
  using OpRewritePattern<Op>::OpRewritePattern;
  LogicalResult matchAndRewrite(Op op,
                                PatternRewriter &rewriter) const override {
    if (!isF32OrVector(op.getType()))
      return failure();
    Location loc = op.getLoc();
    Value a = op.getLhs(), b = op.getRhs();
    Value aWins = arith::CmpFOp::create(rewriter, loc, Picks, a, b);
    Value bIsNaN = arith::CmpFOp::create(rewriter, loc,
                                         arith::CmpFPredicate::UNO, b, b);
    Value pickA = arith::OrIOp::create(rewriter, loc, aWins, bIsNaN);
    rewriter.replaceOpWithNewOp<arith::SelectOp>(op, pickA, a, b);
    return success();
  }
};
using MaxNumFAsSelect = NumFAsSelect<arith::MaxNumFOp, arith::CmpFPredicate::OGT>;
using MinNumFAsSelect = NumFAsSelect<arith::MinNumFOp, arith::CmpFPredicate::OLT>;

/// math.fma (the tanh and erf polynomials are built of it) -> llvm.intr.fma,
/// which NVPTX emits as fma.rn: one rounding, like libdevice's __nv_fmaf.
struct FmaAsIntrinsic : OpRewritePattern<math::FmaOp> {
  using OpRewritePattern::OpRewritePattern;
  LogicalResult matchAndRewrite(math::FmaOp op,
                                PatternRewriter &rewriter) const override {
    if (!isF32OrVector(op.getType()))
      return failure();
    rewriter.replaceOpWithNewOp<LLVM::FMAOp>(op, op.getA(), op.getB(),
                                             op.getC());
    return success();
  }
};

/// math.floor (the exp polynomial's range reduction) -> through i32:
/// t = float(int(y)) (truncation), t - 1 where that passed y; y itself past
/// 2^23 in magnitude (already an integer, inf or NaN); y * 0 where t is 0,
/// so -0 stays -0. Exact, like libdevice's __nv_floorf (the NVVM lowering
/// refuses llvm.intr.floor).
struct FloorThroughInteger : OpRewritePattern<math::FloorOp> {
  using OpRewritePattern::OpRewritePattern;
  LogicalResult matchAndRewrite(math::FloorOp op,
                                PatternRewriter &rewriter) const override {
    Type type = op.getType();
    if (!isF32OrVector(type))
      return failure();
    Location loc = op.getLoc();
    Value y = op.getOperand();
    auto constant = [&](float value) -> Value {
      TypedAttr attr = rewriter.getF32FloatAttr(value);
      if (auto vector = dyn_cast<VectorType>(type))
        attr = DenseElementsAttr::get(vector, attr);
      return arith::ConstantOp::create(rewriter, loc, attr);
    };
    auto compare = [&](arith::CmpFPredicate predicate, Value a, Value b) {
      return arith::CmpFOp::create(rewriter, loc, predicate, a, b);
    };
    Type i32 = withElement(type, rewriter.getI32Type());
    Value truncated = arith::SIToFPOp::create(
        rewriter, loc, type, arith::FPToSIOp::create(rewriter, loc, i32, y));
    Value zero = constant(0);
    Value floor = arith::SelectOp::create(
        rewriter, loc, compare(arith::CmpFPredicate::OGT, truncated, y),
        arith::SubFOp::create(rewriter, loc, truncated, constant(1)),
        arith::SelectOp::create(
            rewriter, loc,
            compare(arith::CmpFPredicate::OEQ, truncated, zero),
            arith::MulFOp::create(rewriter, loc, y, zero), truncated));
    Value small = arith::AndIOp::create(
        rewriter, loc, compare(arith::CmpFPredicate::OLT, y, constant(0x1p23f)),
        compare(arith::CmpFPredicate::OGT, y, constant(-0x1p23f)));
    rewriter.replaceOpWithNewOp<arith::SelectOp>(op, small, floor, y);
    return success();
  }
};

} // namespace

void mlir::teq::kernels::populateLibdeviceFreePatterns(
    RewritePatternSet &patterns) {
  patterns.add<AbsFAsSignClear, MaxNumFAsSelect, MinNumFAsSelect,
               FmaAsIntrinsic, FloorThroughInteger>(patterns.getContext());
}

void mlir::teq::kernels::makeLibdeviceFree(Operation *root) {
  RewritePatternSet patterns(root->getContext());
  populateLibdeviceFreePatterns(patterns);
  walkAndApplyPatterns(root, std::move(patterns));
}
