//===- CheckRecipeSupport.cpp - Recipes and Linears vs the target ---------===//

#include "EffectiveRecipe.h"
#include "teq/Dialect/TEQ/IR/TEQOps.h"
#include "teq/Dialect/TEQ/Transforms/Passes.h"

#include "mlir/IR/BuiltinOps.h"
#include "llvm/Support/MathExtras.h"

namespace mlir::teq {
#define GEN_PASS_DEF_CHECKRECIPESUPPORT
#include "teq/Dialect/TEQ/Transforms/Passes.h.inc"
} // namespace mlir::teq

using namespace mlir;
using namespace mlir::teq;

namespace {

std::string dimsStr(ArrayRef<int64_t> shape) {
  std::string s = "[";
  for (auto [i, d] : llvm::enumerate(shape))
    s += (i ? ", " : "") +
         (ShapedType::isDynamic(d) ? std::string("?") : std::to_string(d));
  return s + "]";
}

ArrayRef<int64_t> shapeOf(Value v) {
  if (auto proto = dyn_cast<TensorProtoType>(v.getType()))
    return proto.getShape();
  return cast<RankedTensorType>(v.getType()).getShape();
}

std::string linearName(LinearConfigAttr config) {
  if (config.getName().empty())
    return "Linear";
  return ("Linear \"" + config.getName() + "\"").str();
}

/// The amax history length a delayed-scaling Linear's state must have.
std::optional<int64_t> historyLength(RecipeAttrInterface recipe) {
  if (auto delayed = dyn_cast<DelayedScalingAttr>(recipe))
    return delayed.getAmaxHistoryLen();
  if (auto custom = dyn_cast<CustomRecipeAttr>(recipe))
    for (Attribute q : custom.getQuantizers())
      if (auto request = dyn_cast<DelayedScalingRequestAttr>(q))
        return request.getAmaxHistoryLen();
  return std::nullopt;
}


struct CheckRecipeSupportPass
    : public mlir::teq::impl::CheckRecipeSupportBase<CheckRecipeSupportPass> {
  using Base::Base;

  TargetAttr target;
  bool hadError = false;

  void checkAutocast(AutocastOp op) {
    EffectiveRecipe effective = getEnclosingRecipe(&op.getBody().front().front(),
                                                   target);
    if (!effective.recipe)
      return;
    if (auto why = effective.recipe.checkTargetSupport(target)) {
      auto diag = op.emitError() << effective.recipe.getRecipeName();
      if (effective.isDefault)
        diag << " (the default recipe of " << target.getChip()
             << ", since the region names none)";
      diag << " is not supported on " << target.getChip() << ": " << *why;
      hadError = true;
    }
  }

  /// TE's shape rules for one quantized tensor of a Linear.
  void checkTensorShape(Operation *op, StringRef what, Value tensor,
                        QuantizerAttrInterface quantizer, bool fp8ExecRule,
                        StringRef recipeName, StringRef name) {
    if (!quantizer)
      return;
    ArrayRef<int64_t> shape = shapeOf(tensor);
    auto fail = [&]() -> InFlightDiagnostic {
      hadError = true;
      return op->emitError() << name << " under " << recipeName << ": "
                             << what << " with dims=" << dimsStr(shape)
                             << ": ";
    };
    // TE's rules below (and the quantized buffers) need the element count:
    // a dynamic dimension has none, and a product past 2^63 is no count.
    if (llvm::any_of(shape, ShapedType::isDynamic)) {
      fail() << "a quantized tensor needs a static shape; dynamic "
                "dimensions are not supported";
      return;
    }
    int64_t last = shape.empty() ? 1 : shape.back();
    int64_t leading = 1;
    for (int64_t d : shape.drop_back())
      if (llvm::MulOverflow(leading, d, leading)) {
        fail() << "the tensor has more than 2^63 elements";
        return;
      }
    if (fp8ExecRule && (leading % 8 != 0 || last % 16 != 0)) {
      fail() << "FP8 execution requires the product of all dimensions "
                "except the last to be divisible by 8 and the last dimension "
                "to be divisible by 16, but got tensor with dims="
             << dimsStr(shape);
      return;
    }
    Type element = isa<TensorProtoType>(tensor.getType())
                       ? cast<TensorProtoType>(tensor.getType()).getElementType()
                       : cast<RankedTensorType>(tensor.getType()).getElementType();
    if (auto why = quantizableShapeError(quantizer, shape, element))
      fail() << *why;
  }

  /// Stochastic rounding draws from an explicit Philox state, like delayed
  /// scaling's explicit scale and history: a Linear that quantizes a tensor
  /// stochastically needs rng_state; one that cannot must not take it.
  void checkRngState(Operation *op, StringRef name, StringRef recipeName,
                     LinearQuantizationAttr quantization) {
    auto forward = dyn_cast<LinearForwardOp>(op);
    auto backward = dyn_cast<LinearBackwardOp>(op);
    Value rng = forward ? forward.getRngState() : backward.getRngState();
    auto stochastic = [](QuantizerAttrInterface q) {
      return q && q.isStochastic();
    };
    // The tensors this op certainly quantizes stochastically.
    SmallVector<StringRef> rounded;
    if (forward) {
      if (stochastic(quantization.getInput()) &&
          isa<RankedTensorType>(forward.getInput().getType()))
        rounded.push_back("input");
      if (stochastic(quantization.getWeight()) &&
          isa<RankedTensorType>(forward.getWeight().getType()))
        rounded.push_back("weight");
    } else if (stochastic(quantization.getGradOutput()) &&
               (backward.getDgrad() || backward.getWgrad())) {
      rounded.push_back("grad_output");
    }
    // Backward may also rebuild the input or weight it was not given
    // quantized (decompose-linear reports that case).
    bool mayUse = !rounded.empty() ||
                  (backward && (stochastic(quantization.getInput()) ||
                                stochastic(quantization.getWeight())));
    if (rounded.size() > 1) {
      op->emitError() << name << " under " << recipeName << " rounds both "
                      << rounded[0] << " and " << rounded[1]
                      << " stochastically, but a Linear op has one rng_state "
                         "(one Philox stream) and both would round with the "
                         "same random bits; round at most one of them "
                         "stochastically";
      hadError = true;
    } else if (!rounded.empty() && !rng) {
      op->emitError() << name << " under " << recipeName << " rounds "
                      << rounded[0]
                      << " stochastically (NVFP4 stochastic_rounding) and "
                         "needs the state of its random bits: pass the "
                         "Philox seed and offset explicitly with "
                         "rng_state(%rng : tensor<2xi64>), advancing the "
                         "offset every step (or disable it, e.g. "
                         "NVFP4BlockScaling's disable_stochastic_rounding = "
                         "true)";
      hadError = true;
    } else if (!mayUse && rng) {
      op->emitError() << name << " takes an rng_state but " << recipeName
                      << " rounds none of its tensors stochastically; remove "
                         "rng_state(...)";
      hadError = true;
    }
  }

  void checkLinear(Operation *op) {
    auto config = op->getAttrOfType<LinearConfigAttr>("config");
    std::string name = linearName(config);
    EffectiveRecipe effective = getLinearRecipe(op, target);
    auto forward = dyn_cast<LinearForwardOp>(op);
    auto backward = dyn_cast<LinearBackwardOp>(op);
    Value scale = forward ? forward.getScale() : backward.getScale();
    Value history =
        forward ? forward.getAmaxHistory() : backward.getAmaxHistory();
    Value rng = forward ? forward.getRngState() : backward.getRngState();
    if (!effective.recipe) {
      if (scale || rng) {
        op->emitError() << name << " takes "
                        << (scale ? "delayed-scaling state" : "an rng_state")
                        << " but runs in high precision (no enabled "
                           "teq.autocast around it)";
        hadError = true;
      }
      return;
    }
    FailureOr<LinearQuantizationAttr> quantization =
        resolveLinearQuantization(op, effective);
    if (failed(quantization)) {
      hadError = true;
      return;
    }
    std::string recipeName = effective.recipe.getRecipeName().str();
    if (effective.isDefault)
      recipeName += " (the default recipe of " + target.getChip() + ")";
    bool needsState = forward ? quantization->needsForwardState()
                              : quantization->needsBackwardState();
    int64_t slots = forward ? 3 : 2;
    std::optional<int64_t> length = historyLength(effective.recipe);
    if (needsState && !scale) {
      op->emitError() << name << " under " << recipeName
                      << " needs its delayed-scaling state: the recipe keeps "
                         "a scale and an amax history per quantizer slot ("
                      << (forward ? "input, weight, output"
                                  : "grad_output, grad_input")
                      << "); pass them explicitly with state(%scale, "
                         "%amax_history : tensor<"
                      << slots << "xf32>, tensor<" << length.value_or(1024)
                      << "x" << slots << "xf32>)";
      hadError = true;
    } else if (!needsState && scale) {
      op->emitError() << name << " takes delayed-scaling state but "
                      << recipeName << " does not use it";
      hadError = true;
    } else if (needsState && length &&
               cast<RankedTensorType>(history.getType()).getDimSize(0) !=
                   *length) {
      op->emitError() << name << ": the amax history has "
                      << cast<RankedTensorType>(history.getType())
                             .getDimSize(0)
                      << " rows but " << recipeName
                      << " has amax_history_len = " << *length;
      hadError = true;
    }
    checkRngState(op, name, recipeName, *quantization);
    if (forward) {
      checkTensorShape(op, "input", forward.getInput(),
                       quantization->getInput(), true, recipeName, name);
      checkTensorShape(op, "weight", forward.getWeight(),
                       quantization->getWeight(), true, recipeName, name);
    } else {
      checkTensorShape(op, "grad_output", backward.getGradOutput(),
                       quantization->getGradOutput(), false, recipeName, name);
    }
  }

  void runOnOperation() override {
    ModuleOp module = getOperation();
    target = TargetAttr::lookup(module);
    if (!target) {
      module.emitError() << "no #teq.target on the module: recipe support "
                            "depends on the GPU; add attributes {teq.target "
                            "= #teq.target<sm_90>}";
      return signalPassFailure();
    }
    hadError = false;
    module.walk([&](Operation *op) {
      if (auto autocast = dyn_cast<AutocastOp>(op))
        checkAutocast(autocast);
      else if (isa<LinearForwardOp, LinearBackwardOp>(op))
        checkLinear(op);
    });
    if (hadError)
      signalPassFailure();
    markAllAnalysesPreserved();
  }
};

} // namespace
