//===- TEQRecipes.cpp - TE's recipes as attributes ------------------------===//
//
// Parsing, printing and verification of the recipe attributes, and the
// recipe logic TE keeps in Python: which quantizer each role gets
// (te-semantics.md §1), split accumulation per GEMM (§6.4) and the
// hardware checks of a recipe on a target (§2).
//
//===----------------------------------------------------------------------===//

#include "AttrSupport.h"

#include "teq/Dialect/TEQ/IR/TEQAttrs.h"
#include "teq/Dialect/TEQ/IR/TEQDialect.h"

#include "mlir/IR/Builders.h"
#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/DialectImplementation.h"
#include "llvm/ADT/STLExtras.h"
#include "llvm/ADT/StringExtras.h"
#include "llvm/ADT/StringSet.h"
#include "llvm/ADT/StringSwitch.h"
#include "llvm/ADT/TypeSwitch.h"

#include <cmath>
#include <functional>

using namespace mlir;
using namespace mlir::teq;
using namespace mlir::teq::attrs;

//===----------------------------------------------------------------------===//
// Recipes
//===----------------------------------------------------------------------===//

// DelayedScaling ------------------------------------------------------------

LogicalResult DelayedScalingAttr::verify(
    function_ref<InFlightDiagnostic()> emitError, int64_t margin,
    Format fp8Format, int64_t amaxHistoryLen, AmaxComputeAlgo, bool, bool,
    bool, BackwardOverride backwardOverride) {
  if (failed(verifyDelayedScalingFields(emitError, "DelayedScaling", fp8Format,
                                        margin, amaxHistoryLen)))
    return failure();
  if (backwardOverride != BackwardOverride::none)
    return emitError() << "DelayedScaling: backward_override is not supported "
                          "with delayed scaling (TE asserts it is None)";
  return success();
}

StringRef DelayedScalingAttr::getRecipeName() const { return "DelayedScaling"; }

Attribute DelayedScalingAttr::getQuantizerFor(const QuantizerRoleAttr &role) const {
  bool fwd = !role.getTensorType() || isForwardRole(*role.getTensorType());
  return Float8QuantizerAttr::get(
      getContext(), getRecipeFP8Type(getContext(), getFp8Format(), fwd));
}

// Module defaults _2X_ACC_FPROP=False, _2X_ACC_DGRAD=_2X_ACC_WGRAD=True.
static bool defaultSplitAccumulator(GemmKind gemm) {
  return gemm != GemmKind::fprop;
}

bool DelayedScalingAttr::getUseSplitAccumulator(GemmKind gemm) const {
  return defaultSplitAccumulator(gemm);
}

std::optional<std::string>
DelayedScalingAttr::checkTargetSupport(const TargetAttr &target) const {
  return checkFP8(target);
}

int64_t DelayedScalingAttr::getAlignSizeForQuantization() const { return 16; }

// Float8CurrentScaling -------------------------------------------------------

LogicalResult Float8CurrentScalingAttr::verify(
    function_ref<InFlightDiagnostic()> emitError, bool, Format fp8Format,
    MMParamsAttr, MMParamsAttr, MMParamsAttr, bool, bool, BackwardOverride) {
  return verifyFP8Format(emitError, "Float8CurrentScaling", fp8Format);
}

StringRef Float8CurrentScalingAttr::getRecipeName() const {
  return "Float8CurrentScaling";
}

Attribute
Float8CurrentScalingAttr::getQuantizerFor(const QuantizerRoleAttr &role) const {
  bool fwd = !role.getTensorType() || isForwardRole(*role.getTensorType());
  return Float8CurrentScalingQuantizerAttr::get(
      getContext(), getRecipeFP8Type(getContext(), getFp8Format(), fwd),
      /*with_amax_reduction=*/false,
      /*force_pow_2_scales=*/getUsePower_2Scales(),
      /*amax_epsilon=*/llvm::APFloat(0.0));
}

bool Float8CurrentScalingAttr::getUseSplitAccumulator(GemmKind gemm) const {
  switch (gemm) {
  case GemmKind::fprop:
    return getFp8GemmFprop().getUseSplitAccumulator();
  case GemmKind::dgrad:
    return getFp8GemmDgrad().getUseSplitAccumulator();
  case GemmKind::wgrad:
    return getFp8GemmWgrad().getUseSplitAccumulator();
  }
  return true;
}

std::optional<std::string>
Float8CurrentScalingAttr::checkTargetSupport(const TargetAttr &target) const {
  return checkFP8(target);
}

int64_t Float8CurrentScalingAttr::getAlignSizeForQuantization() const {
  return 16;
}

// Float8BlockScaling ---------------------------------------------------------

LogicalResult Float8BlockScalingAttr::verify(
    function_ref<InFlightDiagnostic()> emitError, bool, Format fp8Format,
    int64_t xDim, int64_t wDim, int64_t gradDim, MMParamsAttr fprop,
    MMParamsAttr dgrad, MMParamsAttr wgrad, bool fp8Dpa, bool fp8Mha,
    BackwardOverride) {
  if (failed(verifyFP8Format(emitError, "Float8BlockScaling", fp8Format)))
    return failure();
  for (auto [name, dim] : {std::pair<StringRef, int64_t>{"x", xDim},
                           {"w", wDim},
                           {"grad", gradDim}})
    if (dim != 1 && dim != 2)
      return emitError() << "Float8BlockScaling: " << name
                         << "_block_scaling_dim must be 1 or 2, got " << dim;
  for (auto [a, b, da, db] :
       {std::tuple<StringRef, StringRef, int64_t, int64_t>{"x", "w", xDim, wDim},
        {"x", "grad", xDim, gradDim},
        {"w", "grad", wDim, gradDim}})
    if (da == 2 && db == 2)
      return emitError() << "Float8BlockScaling: 2D by 2D block gemm not "
                            "supported ("
                         << a << "_block_scaling_dim = 2 and " << b
                         << "_block_scaling_dim = 2)";
  for (auto [name, params] : {std::pair<StringRef, MMParamsAttr>{"fprop", fprop},
                              {"dgrad", dgrad},
                              {"wgrad", wgrad}})
    if (!params.getUseSplitAccumulator())
      return emitError() << "Float8BlockScaling: fp8_gemm_" << name
                         << " must use split accumulator (block-scaled GEMMs "
                            "require use_split_accumulator = true)";
  if (fp8Dpa || fp8Mha)
    return emitError() << "Float8BlockScaling: FP8 attention (fp8_dpa, "
                          "fp8_mha) is not supported with block scaling";
  return success();
}

StringRef Float8BlockScalingAttr::getRecipeName() const {
  return "Float8BlockScaling";
}

Attribute Float8BlockScalingAttr::getQuantizerFor(const QuantizerRoleAttr &role) const {
  TensorRole tensor = role.getTensorType().value_or(TensorRole::input);
  bool fwd = isForwardRole(tensor);
  int64_t dim = tensor == TensorRole::weight ? getWBlockScalingDim()
                : fwd                        ? getXBlockScalingDim()
                                             : getGradBlockScalingDim();
  return Float8BlockQuantizerAttr::get(
      getContext(), getRecipeFP8Type(getContext(), getFp8Format(), fwd), dim,
      /*force_pow_2_scales=*/!getUseF32Scales(),
      /*amax_epsilon=*/llvm::APFloat(0.0));
}

bool Float8BlockScalingAttr::getUseSplitAccumulator(GemmKind) const {
  return true; // Verified; general_gemm also forces it for block operands.
}

std::optional<std::string>
Float8BlockScalingAttr::checkTargetSupport(const TargetAttr &target) const {
  if (auto msg = checkFP8(target))
    return msg;
  if (auto msg = checkBlockScaling(target))
    return msg;
  // Blackwell runs FP8 block scaling as MXFP8 (hasBlockScaledGemms).
  if (target.getCaps().hasBlockScaledGemms() && getUseF32Scales())
    return std::string("On Blackwell and newer, the FP8 block scaling recipe "
                       "is emulated with MXFP8, which requires using power of "
                       "two scaling factors.");
  return std::nullopt;
}

int64_t Float8BlockScalingAttr::getAlignSizeForQuantization() const { return 16; }

// MXFP8BlockScaling ----------------------------------------------------------

LogicalResult MXFP8BlockScalingAttr::verify(
    function_ref<InFlightDiagnostic()> emitError, int64_t, Format fp8Format,
    bool, bool, bool, BackwardOverride) {
  return verifyFP8Format(emitError, "MXFP8BlockScaling", fp8Format);
}

StringRef MXFP8BlockScalingAttr::getRecipeName() const {
  return "MXFP8BlockScaling";
}

Attribute MXFP8BlockScalingAttr::getQuantizerFor(const QuantizerRoleAttr &role) const {
  TensorRole tensor = role.getTensorType().value_or(TensorRole::input);
  bool fwd = isForwardRole(tensor);
  // 2D blocks apply to weights of linear / grouped_linear modules only.
  StringRef module = role.getModuleType();
  bool is2D = getEnable_2dQuantization() && tensor == TensorRole::weight &&
              (module.empty() || module == "linear" ||
               module == "grouped_linear");
  return MXFP8QuantizerAttr::get(
      getContext(), getRecipeFP8Type(getContext(), getFp8Format(), fwd), is2D);
}

bool MXFP8BlockScalingAttr::getUseSplitAccumulator(GemmKind gemm) const {
  return defaultSplitAccumulator(gemm);
}

std::optional<std::string>
MXFP8BlockScalingAttr::checkTargetSupport(const TargetAttr &target) const {
  if (auto msg = checkFP8(target))
    return msg;
  return checkMXFP8(target);
}

int64_t MXFP8BlockScalingAttr::getAlignSizeForQuantization() const { return 32; }

// NVFP4BlockScaling ----------------------------------------------------------

static bool fourOverSixApplies(NVFP4FourOverSix scope, TensorRole role) {
  switch (scope) {
  case NVFP4FourOverSix::none:
    return false;
  case NVFP4FourOverSix::all:
    return true;
  case NVFP4FourOverSix::weights:
    return role == TensorRole::weight;
  case NVFP4FourOverSix::activations:
    return role != TensorRole::weight;
  }
  return false;
}

LogicalResult NVFP4BlockScalingAttr::verify(
    function_ref<InFlightDiagnostic()> emitError, bool disableRht,
    bool disableSr, bool, bool rowScaled, NVFP4FourOverSix fourOverSix,
    NVFP4FourOverSix, NVFP4ErrMode, Format fp4Format, Format fp8Format, bool,
    bool, BackwardOverride) {
  if (fp4Format != Format::E2M1)
    return emitError() << "NVFP4BlockScaling: fp4_format must be E2M1, got "
                       << stringifyFormat(fp4Format);
  if (fp8Format != Format::E4M3)
    return emitError() << "NVFP4BlockScaling: fp8_format (the block scale "
                          "format) must be E4M3, got "
                       << stringifyFormat(fp8Format);
  // Activations and gradients are the tensors that get RHT / SR.
  bool activations4over6 = fourOverSix == NVFP4FourOverSix::activations ||
                           fourOverSix == NVFP4FourOverSix::all;
  if (activations4over6 && (!disableRht || !disableSr))
    return emitError() << "NVFP4BlockScaling: nvfp4_4over6 = "
                       << stringifyNVFP4FourOverSix(fourOverSix)
                       << " cannot be combined with RHT or stochastic "
                          "rounding; set disable_rht = true and "
                          "disable_stochastic_rounding = true";
  if (rowScaled && !disableRht)
    return emitError() << "NVFP4BlockScaling: row_scaled_activation forbids "
                          "RHT; set disable_rht = true";
  return success();
}

StringRef NVFP4BlockScalingAttr::getRecipeName() const {
  return "NVFP4BlockScaling";
}

Attribute NVFP4BlockScalingAttr::getQuantizerFor(const QuantizerRoleAttr &role) const {
  TensorRole tensor = role.getTensorType().value_or(TensorRole::input);
  // QParams: fp4_quant_fwd_inp / fwd_weight / bwd_grad (te-semantics.md §1.6).
  bool rht = false, sr = false, twoD = false;
  if (tensor == TensorRole::weight) {
    twoD = !getDisable_2dQuantization();
  } else if (isForwardRole(tensor)) {
    rht = !getDisableRht();
  } else {
    rht = !getDisableRht();
    sr = !getDisableStochasticRounding();
  }
  bool rowScaled = getRowScaledActivation() && tensor == TensorRole::input;
  bool use4over6 = fourOverSixApplies(getNvfp4_4over6(), tensor);
  int64_t e4m3Max =
      use4over6 && fourOverSixApplies(getNvfp4_4over6E4m3Use_256(), tensor)
          ? 256
          : 448;
  return NVFP4QuantizerAttr::get(
      getContext(), Float4E2M1FNType::get(getContext()),
      /*with_amax_reduction=*/false, /*with_rht=*/rht,
      /*with_post_rht_amax=*/rht, /*with_2d_quantization=*/twoD,
      /*stochastic_rounding=*/sr, /*row_scaled_nvfp4=*/rowScaled,
      /*nvfp4_use_4over6=*/use4over6, /*nvfp4_e4m3_max=*/e4m3Max,
      /*nvfp4_4over6_err_mode=*/getNvfp4_4over6ErrMode(),
      /*with_random_sign_mask=*/true);
}

bool NVFP4BlockScalingAttr::getUseSplitAccumulator(GemmKind) const {
  // FAST_ACCUM is only ever set for FP8 operands; FP4 GEMMs always use 0.
  return true;
}

std::optional<std::string>
NVFP4BlockScalingAttr::checkTargetSupport(const TargetAttr &target) const {
  if (auto msg = checkFP8(target))
    return msg;
  return checkNVFP4(target);
}

int64_t NVFP4BlockScalingAttr::getAlignSizeForQuantization() const { return 128; }

// CustomRecipe ---------------------------------------------------------------

Attribute CustomRecipeAttr::parse(AsmParser &parser, Type) {
  SMLoc loc = parser.getCurrentLocation();
  SmallVector<QuantizerRoleAttr> roles;
  SmallVector<Attribute> quantizers;
  Format fp8Format = Format::HYBRID;
  int64_t alignment = 128;
  BackwardOverride backwardOverride = BackwardOverride::none;

  auto parseRule = [&]() -> ParseResult {
    QuantizerRoleAttr role;
    Attribute quantizer;
    if (parser.parseCustomAttributeWithFallback(role) || parser.parseArrow() ||
        parser.parseAttribute(quantizer))
      return failure();
    roles.push_back(role);
    quantizers.push_back(quantizer);
    return success();
  };
  if (parser.parseLess() ||
      parser.parseCommaSeparatedList(AsmParser::Delimiter::Square, parseRule,
                                     " in a custom recipe's rule list"))
    return {};
  llvm::StringSet<> seen;
  while (succeeded(parser.parseOptionalComma())) {
    SMLoc keyLoc = parser.getCurrentLocation();
    StringRef key;
    if (parser.parseKeyword(&key) || parser.parseEqual())
      return {};
    if (!seen.insert(key).second) {
      parser.emitError(keyLoc, "field '") << key << "' given twice";
      return {};
    }
    StringRef value;
    if (key == "quantization_alignment") {
      if (parser.parseInteger(alignment))
        return {};
      continue;
    }
    if (key != "fp8_format" && key != "backward_override") {
      parser.emitError(keyLoc, "unknown field '")
          << key
          << "' in #teq.custom_recipe; expected fp8_format, "
             "quantization_alignment or backward_override";
      return {};
    }
    SMLoc valLoc = parser.getCurrentLocation();
    if (parser.parseKeyword(&value))
      return {};
    if (key == "fp8_format") {
      auto f = symbolizeFormat(value);
      if (!f) {
        parser.emitError(valLoc, "unknown format '") << value << "'";
        return {};
      }
      fp8Format = *f;
    } else {
      auto b = symbolizeBackwardOverride(value);
      if (!b) {
        parser.emitError(valLoc, "unknown backward_override '") << value << "'";
        return {};
      }
      backwardOverride = *b;
    }
  }
  if (parser.parseGreater())
    return {};
  // The declared getChecked (ArrayRefs): the storage class is complete only
  // in TEQAttrs.cpp, where ODS defines it.
  return parser.getChecked<CustomRecipeAttr>(
      loc, parser.getContext(), ArrayRef<QuantizerRoleAttr>(roles),
      ArrayRef<Attribute>(quantizers), fp8Format, alignment,
      backwardOverride);
}

void CustomRecipeAttr::print(AsmPrinter &printer) const {
  printer << "<[";
  llvm::interleaveComma(llvm::zip(getRoles(), getQuantizers()), printer,
                        [&](auto pair) {
                          printer.printStrippedAttrOrType(std::get<0>(pair));
                          printer << " -> ";
                          printer.printAttribute(std::get<1>(pair));
                        });
  printer << "]";
  if (getFp8Format() != Format::HYBRID)
    printer << ", fp8_format = " << stringifyFormat(getFp8Format());
  if (getQuantizationAlignment() != 128)
    printer << ", quantization_alignment = " << getQuantizationAlignment();
  if (getBackwardOverride() != BackwardOverride::none)
    printer << ", backward_override = "
            << stringifyBackwardOverride(getBackwardOverride());
  printer << ">";
}

LogicalResult
CustomRecipeAttr::verify(function_ref<InFlightDiagnostic()> emitError,
                         ArrayRef<QuantizerRoleAttr> roles,
                         ArrayRef<Attribute> quantizers, Format fp8Format,
                         int64_t alignment, BackwardOverride) {
  if (failed(verifyFP8Format(emitError, "CustomRecipe", fp8Format)))
    return failure();
  if (alignment <= 0)
    return emitError() << "CustomRecipe: quantization_alignment must be "
                          "greater than 0, got "
                       << alignment;
  if (roles.size() != quantizers.size())
    return emitError() << "CustomRecipe: " << roles.size() << " roles but "
                       << quantizers.size() << " quantizers";
  if (roles.empty())
    return emitError() << "CustomRecipe: the rule list is empty; map at least "
                          "one role to a quantizer";
  DelayedScalingRequestAttr firstRequest;
  for (auto [i, q] : llvm::enumerate(quantizers)) {
    if (isa<Float8QuantizerAttr>(q))
      return emitError()
             << "CustomRecipe: rule " << i
             << " gives a stateful #teq.float8_quantizer; ask for delayed "
                "scaling with #teq.delayed_scaling_request<...> instead";
    if (auto request = dyn_cast<DelayedScalingRequestAttr>(q)) {
      if (!firstRequest)
        firstRequest = request;
      else if (request != firstRequest)
        return emitError() << "CustomRecipe: all DelayedScalingRequests of "
                              "one recipe must match, but rule "
                           << i << " differs from an earlier one";
      continue;
    }
    if (!isa<QuantizerAttrInterface>(q))
      return emitError() << "CustomRecipe: rule " << i << " maps to " << q
                         << ", which is neither a quantizer nor a "
                            "#teq.delayed_scaling_request";
  }
  return success();
}

StringRef CustomRecipeAttr::getRecipeName() const { return "CustomRecipe"; }

Attribute CustomRecipeAttr::getQuantizerFor(const QuantizerRoleAttr &role) const {
  for (auto [pattern, quantizer] : llvm::zip(getRoles(), getQuantizers()))
    if (pattern.matches(role))
      return quantizer;
  return {};
}

bool CustomRecipeAttr::getUseSplitAccumulator(GemmKind gemm) const {
  return defaultSplitAccumulator(gemm);
}

std::optional<std::string>
CustomRecipeAttr::checkTargetSupport(const TargetAttr &target) const {
  if (auto msg = checkFP8(target))
    return msg;
  for (Attribute q : getQuantizers())
    if (auto quantizer = dyn_cast<QuantizerAttrInterface>(q))
      if (auto msg = checkQuantizerSupport(quantizer, target))
        return msg;
  return std::nullopt;
}

int64_t CustomRecipeAttr::getAlignSizeForQuantization() const {
  return getQuantizationAlignment();
}

