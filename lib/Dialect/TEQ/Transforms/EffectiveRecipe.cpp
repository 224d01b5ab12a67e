//===- EffectiveRecipe.cpp - Which recipe an op runs under ----------------===//

#include "EffectiveRecipe.h"

using namespace mlir;
using namespace mlir::teq;

RecipeAttrInterface mlir::teq::getDefaultRecipe(TargetAttr target) {
  MLIRContext *ctx = target.getContext();
  if (target.supportsMXFP8())
    return MXFP8BlockScalingAttr::get(ctx, 0, Format::E4M3, false, false,
                                      false, BackwardOverride::none);
  if (target.getSm() >= 120)
    return Float8CurrentScalingAttr::get(
        ctx, false, Format::HYBRID, MMParamsAttr::get(ctx, false),
        MMParamsAttr::get(ctx, true), MMParamsAttr::get(ctx, true), false,
        false, BackwardOverride::none);
  return DelayedScalingAttr::get(ctx, 0, Format::HYBRID, 1024,
                                 AmaxComputeAlgo::max, true, false, false,
                                 BackwardOverride::none);
}

EffectiveRecipe mlir::teq::getEnclosingRecipe(Operation *op,
                                              TargetAttr target) {
  EffectiveRecipe result;
  result.region = op->getParentOfType<AutocastOp>();
  if (!result.region || !result.region.getEnabled())
    return result;
  if (auto recipe = result.region.getRecipeAttr()) {
    result.recipe = recipe;
  } else if (target) {
    result.recipe = getDefaultRecipe(target);
    result.isDefault = true;
  }
  return result;
}

/// The forward op that defines `value`, looking through teq.update_usage
/// and values leaving autocast regions.
static LinearForwardOp definingForward(Value value) {
  while (true) {
    if (auto update = value.getDefiningOp<UpdateUsageOp>()) {
      value = update.getInput();
      continue;
    }
    if (auto autocast = value.getDefiningOp<AutocastOp>()) {
      auto yield = cast<YieldOp>(autocast.getBody().front().getTerminator());
      value = yield.getValues()[cast<OpResult>(value).getResultNumber()];
      continue;
    }
    return value.getDefiningOp<LinearForwardOp>();
  }
}

LinearForwardOp mlir::teq::findMatchingForward(LinearBackwardOp backward) {
  if (auto fwd = definingForward(backward.getInput()))
    return fwd;
  if (auto fwd = definingForward(backward.getWeight()))
    return fwd;
  // After dedupe, backward may read the forward's original operands; the
  // forward is then the Linear that consumes the same input and weight.
  Operation *scope =
      backward->getParentWithTrait<OpTrait::IsIsolatedFromAbove>();
  for (Operation *user : backward.getWeight().getUsers())
    if (auto fwd = dyn_cast<LinearForwardOp>(user))
      if (fwd.getWeight() == backward.getWeight() &&
          fwd.getConfig() == backward.getConfig() &&
          fwd->getParentWithTrait<OpTrait::IsIsolatedFromAbove>() == scope)
        return fwd;
  return {};
}

EffectiveRecipe mlir::teq::getLinearRecipe(Operation *linearOp,
                                           TargetAttr target) {
  if (auto backward = dyn_cast<LinearBackwardOp>(linearOp))
    if (auto forward = findMatchingForward(backward))
      return getEnclosingRecipe(forward, target);
  return getEnclosingRecipe(linearOp, target);
}

QuantizerRoleAttr mlir::teq::getLinearRole(LinearConfigAttr config,
                                           TensorRole tensor) {
  return QuantizerRoleAttr::get(config.getContext(), "linear", tensor,
                                config.getName());
}

/// The quantizer a recipe gives one role of a Linear, with TE's Linear
/// adjustments (amax reduction over the TP group for column+SP inputs and
/// row+SP grad_outputs, te-semantics.md §7).
static FailureOr<QuantizerAttrInterface>
quantizerForRole(Operation *op, RecipeAttrInterface recipe,
                 LinearConfigAttr config, TensorRole tensor) {
  Attribute q = recipe.getQuantizerFor(getLinearRole(config, tensor));
  MLIRContext *ctx = op->getContext();
  if (!q)
  {
    auto diag = op->emitOpError()
                << recipe.getRecipeName() << " maps no quantizer to the "
                << stringifyTensorRole(tensor) << " of Linear";
    if (!config.getName().empty())
      diag << " \"" << config.getName() << "\"";
    return diag << "; add a rule for it (a catch-all is `<> -> ...`)";
  }
  if (auto request = dyn_cast<DelayedScalingRequestAttr>(q)) {
    bool forward = tensor == TensorRole::input ||
                   tensor == TensorRole::weight || tensor == TensorRole::output;
    q = Float8QuantizerAttr::get(
        ctx, getRecipeFP8Type(ctx, request.getFp8Format(), forward));
  }
  auto quantizer = dyn_cast<QuantizerAttrInterface>(q);
  if (!quantizer)
    return op->emitOpError() << recipe.getRecipeName() << " maps the "
                             << stringifyTensorRole(tensor)
                             << " to " << q << ", which is not a quantizer";
  // TE customizes amax reduction only for these two recipes (linear.py).
  bool reducingRecipe =
      isa<Float8CurrentScalingAttr, NVFP4BlockScalingAttr>(recipe);
  bool reduce =
      reducingRecipe && config.isSequenceParallel() &&
      ((tensor == TensorRole::input &&
        config.getParallelMode() == ParallelMode::column) ||
       (tensor == TensorRole::grad_output &&
        config.getParallelMode() == ParallelMode::row));
  if (reduce) {
    if (auto cs = dyn_cast<Float8CurrentScalingQuantizerAttr>(quantizer))
      quantizer = Float8CurrentScalingQuantizerAttr::get(
          ctx, cs.getFp8Dtype(), /*with_amax_reduction=*/true,
          cs.getForcePow_2Scales(), cs.getAmaxEpsilon());
    else if (auto nv = dyn_cast<NVFP4QuantizerAttr>(quantizer))
      quantizer = NVFP4QuantizerAttr::get(
          ctx, nv.getFp4Dtype(), /*with_amax_reduction=*/true, nv.getWithRht(),
          nv.getWithPostRhtAmax(), nv.getWith_2dQuantization(),
          nv.getStochasticRounding(), nv.getRowScaledNvfp4(),
          nv.getNvfp4Use_4over6(), nv.getNvfp4E4m3Max(),
          nv.getNvfp4_4over6ErrMode(), nv.getWithRandomSignMask());
  }
  return quantizer;
}

BackwardOverride mlir::teq::backwardOverrideOf(Attribute recipe) {
  if (auto r = dyn_cast<Float8CurrentScalingAttr>(recipe))
    return r.getBackwardOverride();
  if (auto r = dyn_cast<Float8BlockScalingAttr>(recipe))
    return r.getBackwardOverride();
  if (auto r = dyn_cast<MXFP8BlockScalingAttr>(recipe))
    return r.getBackwardOverride();
  if (auto r = dyn_cast<NVFP4BlockScalingAttr>(recipe))
    return r.getBackwardOverride();
  if (auto r = dyn_cast<CustomRecipeAttr>(recipe))
    return r.getBackwardOverride();
  return BackwardOverride::none;
}

FailureOr<LinearQuantizationAttr>
mlir::teq::resolveLinearQuantization(Operation *linearOp,
                                     const EffectiveRecipe &effective) {
  MLIRContext *ctx = linearOp->getContext();
  if (!effective.recipe)
    return LinearQuantizationAttr::get(ctx, "high_precision", {}, {}, {}, {},
                                       {}, true, true, true,
                                       BackwardOverride::none);
  auto config = linearOp->getAttrOfType<LinearConfigAttr>("config");
  RecipeAttrInterface recipe = effective.recipe;
  SmallVector<QuantizerAttrInterface, 5> quantizers;
  for (TensorRole role : {TensorRole::input, TensorRole::weight,
                          TensorRole::output, TensorRole::grad_output,
                          TensorRole::grad_input}) {
    FailureOr<QuantizerAttrInterface> q =
        quantizerForRole(linearOp, recipe, config, role);
    if (failed(q))
      return failure();
    quantizers.push_back(*q);
  }
  // general_gemm forces split accumulation when either operand is
  // block-scaled, whatever the recipe says (te-semantics.md §1.5).
  auto isBlock = [](QuantizerAttrInterface q) {
    return isa_and_nonnull<Float8BlockQuantizerAttr>(q);
  };
  // backward_override: the backward runs in high precision (TE clears the
  // grad_output and grad_input quantizers, te-semantics.md §1.0).
  BackwardOverride override = backwardOverrideOf(recipe);
  if (override != BackwardOverride::none)
    quantizers[3] = quantizers[4] = QuantizerAttrInterface();
  QuantizerAttrInterface x = quantizers[0], w = quantizers[1],
                         dy = quantizers[3];
  return LinearQuantizationAttr::get(
      ctx, recipe.getRecipeName(), quantizers[0], quantizers[1],
      quantizers[2], quantizers[3], quantizers[4],
      recipe.getUseSplitAccumulator(GemmKind::fprop) || isBlock(x) ||
          isBlock(w),
      recipe.getUseSplitAccumulator(GemmKind::dgrad) || isBlock(w) ||
          isBlock(dy),
      recipe.getUseSplitAccumulator(GemmKind::wgrad) || isBlock(x) ||
          isBlock(dy),
      override);
}
