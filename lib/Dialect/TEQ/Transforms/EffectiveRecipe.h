//===- EffectiveRecipe.h - Which recipe an op runs under --------*- C++ -*-===//
//
// TE decides the recipe at run time from the innermost active te.autocast;
// backward reuses the forward's. These helpers answer the same question on
// IR, shared by the checking and resolving passes.
//
//===----------------------------------------------------------------------===//

#ifndef TEQ_LIB_DIALECT_TEQ_TRANSFORMS_EFFECTIVERECIPE_H
#define TEQ_LIB_DIALECT_TEQ_TRANSFORMS_EFFECTIVERECIPE_H

#include "teq/Dialect/TEQ/IR/TEQOps.h"

namespace mlir::teq {

/// The recipe in effect at an op.
struct EffectiveRecipe {
  /// The innermost enclosing autocast, or null outside all of them.
  AutocastOp region;
  /// The recipe, or null for high precision (no region, or enabled = false).
  RecipeAttrInterface recipe;
  /// True if `recipe` is the target's default (the region named none).
  bool isDefault = false;
};

/// TE's get_default_recipe(): MXFP8BlockScaling where MXFP8 runs,
/// Float8CurrentScaling on CC >= 12.0, DelayedScaling otherwise.
RecipeAttrInterface getDefaultRecipe(TargetAttr target);

/// The recipe of the innermost autocast around `op` (forward semantics).
EffectiveRecipe getEnclosingRecipe(Operation *op, TargetAttr target);

/// The forward Linear whose saved tensors (or original input/weight) feed
/// `backward`, if it is in the same function.
LinearForwardOp findMatchingForward(LinearBackwardOp backward);

/// The backward_override of a recipe (none for DelayedScaling, whose
/// verifier refuses one, and for high precision).
BackwardOverride backwardOverrideOf(Attribute recipe);

/// The recipe a Linear op runs under: forward ops use their own region;
/// backward ops use their forward's (TE captures the recipe in ctx), or
/// their own region when the forward is in another function.
EffectiveRecipe getLinearRecipe(Operation *linearOp, TargetAttr target);

/// The role TE's custom recipes see for `tensor` of a Linear.
QuantizerRoleAttr getLinearRole(LinearConfigAttr config, TensorRole tensor);

/// The quantizers and GEMM flags `linearOp` (a teq.linear_forward or
/// teq.linear_backward) gets under `effective`; emits an error at the op and
/// fails if the recipe cannot quantize one of its tensors.
FailureOr<LinearQuantizationAttr>
resolveLinearQuantization(Operation *linearOp,
                          const EffectiveRecipe &effective);

} // namespace mlir::teq

#endif // TEQ_LIB_DIALECT_TEQ_TRANSFORMS_EFFECTIVERECIPE_H
