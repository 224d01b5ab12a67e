//===- LegalizeGemmOperands.cpp - GEMM operands as cuBLASLt takes them ----===//
//
// TE prepares a GEMM's operands in general_gemm whoever produced them
// (te-semantics.md §6.1, §6.2): block scales swizzled for the GEMM, an f32
// bias of an FP8 GEMM cast to bf16. This pass does the same for every
// teq.gemm, so that a GEMM written by hand, fed by a gather or by a caller's
// quantization compiles like one a Linear decomposed into.
//
//===----------------------------------------------------------------------===//

#include "LinearTypes.h"

#include "teq/Dialect/TEQ/IR/TEQDialect.h"
#include "teq/Dialect/TEQ/IR/TEQOps.h"
#include "teq/Dialect/TEQ/Transforms/Passes.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/IR/Builders.h"

namespace mlir::teq {
#define GEN_PASS_DEF_LEGALIZEGEMMOPERANDS
#include "teq/Dialect/TEQ/Transforms/Passes.h.inc"
} // namespace mlir::teq

using namespace mlir;
using namespace mlir::teq;

namespace {

/// `operand` with GEMM-swizzled scales where the GEMM reads it so and its
/// scales are compact (§4.2).
void swizzleScales(OpBuilder &b, GemmOp gemm, OpOperand &operand) {
  auto proto = dyn_cast<TensorProtoType>(operand.get().getType());
  if (!proto || !hasGemmSwizzledScales(proto.getQuantizer()) ||
      proto.getScaleLayout() == ScaleLayout::gemm_swizzled)
    return;
  operand.set(SwizzleScalesOp::create(
                  b, gemm.getLoc(),
                  proto.withScaleLayout(ScaleLayout::gemm_swizzled),
                  operand.get())
                  .getResult());
}

/// An f32 bias of a GEMM on quantized operands, cast to bf16 (round to
/// nearest even): cuBLASLt's FP8/FP4 GEMMs take no f32 bias (§6.1).
void castBias(OpBuilder &b, GemmOp gemm) {
  Value bias = gemm.getBias();
  if (!bias || !isa<TensorProtoType>(gemm.getA().getType()))
    return;
  auto type = cast<RankedTensorType>(bias.getType());
  if (!type.getElementType().isF32())
    return;
  Value cast = arith::TruncFOp::create(b, gemm.getLoc(),
                                       type.clone(b.getBF16Type()), bias);
  gemm.getBiasMutable().assign(cast);
}

struct LegalizeGemmOperandsPass
    : mlir::teq::impl::LegalizeGemmOperandsBase<LegalizeGemmOperandsPass> {
  void runOnOperation() override {
    getOperation()->walk([](GemmOp gemm) {
      OpBuilder b(gemm);
      swizzleScales(b, gemm, gemm.getAMutable());
      swizzleScales(b, gemm, gemm.getBMutable());
      castBias(b, gemm);
    });
  }
};

} // namespace
