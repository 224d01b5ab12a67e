//===- OpLowering.h - The op families convert-teq-to-gpu lowers -*- C++ -*-===//
//
// One registry of what the lowering takes, serving both legality and
// dispatch (as torch-mlir pairs each populate*Patterns with its legality):
// every op family — quantize, the delayed-scaling update, quantized layouts
// (usage views, scale swizzles), dequantization, slices, GEMMs, bias
// gradients,
// collectives, elementwise ops, norms — is one OpLowering, defined in its own
// <Family>Lowering.cpp: which ops it takes, the checks made before any IR
// is built, and the lowering of one op on the shared LoweringContext.
//
// Adding a family: a new <Family>Lowering.cpp defining its OpLowering, its
// emitter under Kernels/, its entry in opLowerings() (OpLowering.cpp), and
// its manifest description (ManifestWriter.cpp, lib/Artifact).
//
//===----------------------------------------------------------------------===//

#ifndef TEQ_LIB_CONVERSION_TEQTOGPU_OPLOWERING_H
#define TEQ_LIB_CONVERSION_TEQTOGPU_OPLOWERING_H

#include "LoweringContext.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"

namespace mlir::teq::lowering {

struct OpLowering {
  /// The ops of the family as the "has no GPU lowering" error lists them.
  llvm::StringLiteral ops;
  /// Whether `op` belongs to the family.
  bool (*matches)(Operation &op);
  /// Errors at `op` for what the family cannot lower (success if nothing
  /// is checked beyond the buffer shapes every op gets).
  LogicalResult (*check)(Operation &op);
  /// Lowers `op`, in program order, onto `ctx`.
  LogicalResult (*lower)(LoweringContext &ctx, Operation &op);
};

// The families, each defined in its <Family>Lowering.cpp.
extern const OpLowering quantizeLowering;
extern const OpLowering delayedScalingUpdateLowering;
extern const OpLowering quantizedLayoutLowering;
extern const OpLowering sliceLowering;
extern const OpLowering gemmLowering;
extern const OpLowering biasGradLowering;
extern const OpLowering dequantizeLowering;
extern const OpLowering collectiveLowering;
extern const OpLowering elementwiseLowering;
extern const OpLowering normLowering;

/// Every family, in the order the error message lists them.
llvm::ArrayRef<const OpLowering *> opLowerings();

/// The family of `op`, or null (func.return, or an op with no lowering).
const OpLowering *findLowering(Operation &op);

/// Success if `op` has a lowering and passes its family's checks (and every
/// operand and result has a static buffer shape), else an error at the op
/// naming what is not supported.
LogicalResult checkLowerable(Operation &op);

/// checkLowerable over the entry's ops, after the entry-wide checks (one
/// block, arguments of static shapes): run before anything is planned.
LogicalResult checkEntryLowerable(func::FuncOp entry);

} // namespace mlir::teq::lowering

#endif // TEQ_LIB_CONVERSION_TEQTOGPU_OPLOWERING_H
