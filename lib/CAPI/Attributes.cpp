//===- Attributes.cpp - Targets, recipes, quantizers in the C API ---------===//

#include "teq-c/Attributes.h"
#include "Status.h"
#include "teq/Dialect/TEQ/IR/TEQAttrs.h"

#include "mlir/CAPI/IR.h"
#include "mlir/CAPI/Support.h"

using namespace mlir;
using namespace mlir::teq;
using namespace mlir::teq::capi;

namespace {
TargetAttr target(MlirAttribute attr) {
  return dyn_cast_or_null<TargetAttr>(unwrap(attr));
}
RecipeAttrInterface recipe(MlirAttribute attr) {
  return dyn_cast_or_null<RecipeAttrInterface>(unwrap(attr));
}
QuantizerAttrInterface quantizer(MlirAttribute attr) {
  return dyn_cast_or_null<QuantizerAttrInterface>(unwrap(attr));
}
MlirStringRef empty() { return mlirStringRefCreate("", 0); }
} // namespace

//===----------------------------------------------------------------------===//
// Target
//===----------------------------------------------------------------------===//

bool teqAttributeIsATarget(MlirAttribute attr) {
  return static_cast<bool>(target(attr));
}

TeqStatus teqTargetAttrGet(MlirContext context, MlirStringRef chip,
                           MlirStringRef cudaVersion, MlirAttribute *result) {
  if (mlirContextIsNull(context))
    return makeError("teqTargetAttrGet: null context");
  if (!result)
    return makeError("teqTargetAttrGet: null result pointer");
  *result = MlirAttribute{nullptr};
  MLIRContext *ctx = unwrap(context);
  StringRef cuda = unwrap(cudaVersion);
  DiagnosticCapture capture(ctx);
  TargetAttr attr = TargetAttr::getFromChip(
      [&] { return emitError(UnknownLoc::get(ctx)); }, ctx, unwrap(chip),
      cuda.empty() ? StringRef("13.0") : cuda);
  if (!attr)
    return capture.error("invalid GPU target '" + unwrap(chip).str() + "'");
  *result = wrap(attr);
  return makeSuccess();
}

unsigned teqTargetAttrGetSM(MlirAttribute attr) {
  TargetAttr t = target(attr);
  return t ? t.getSm() : 0;
}

MlirStringRef teqTargetAttrGetSuffix(MlirAttribute attr) {
  TargetAttr t = target(attr);
  return t ? wrap(t.getSuffix()) : empty();
}

MlirStringRef teqTargetAttrGetCudaVersion(MlirAttribute attr) {
  TargetAttr t = target(attr);
  return t ? wrap(t.getCuda()) : empty();
}

void teqTargetAttrGetChip(MlirAttribute attr, MlirStringCallback callback,
                          void *userData) {
  TargetAttr t = target(attr);
  if (!t || !callback)
    return;
  std::string chip = t.getChip();
  callback(mlirStringRefCreate(chip.data(), chip.size()), userData);
}

bool teqTargetAttrSupportsFP8(MlirAttribute attr) {
  TargetAttr t = target(attr);
  return t && t.supportsFP8();
}
bool teqTargetAttrSupportsFP8BlockScaling(MlirAttribute attr) {
  TargetAttr t = target(attr);
  return t && t.supportsFP8BlockScaling();
}
bool teqTargetAttrSupportsMXFP8(MlirAttribute attr) {
  TargetAttr t = target(attr);
  return t && t.supportsMXFP8();
}
bool teqTargetAttrSupportsNVFP4(MlirAttribute attr) {
  TargetAttr t = target(attr);
  return t && t.supportsNVFP4();
}
bool teqTargetAttrSupportsNonTNFP8Gemm(MlirAttribute attr) {
  TargetAttr t = target(attr);
  return t && t.isNonTNFP8GemmSupported();
}

//===----------------------------------------------------------------------===//
// Recipes
//===----------------------------------------------------------------------===//

bool teqAttributeIsARecipe(MlirAttribute attr) {
  return static_cast<bool>(recipe(attr));
}

MlirStringRef teqRecipeAttrGetName(MlirAttribute attr) {
  RecipeAttrInterface r = recipe(attr);
  return r ? wrap(r.getRecipeName()) : empty();
}

bool teqRecipeAttrGetUseSplitAccumulator(MlirAttribute attr,
                                         TeqGemmKind gemm) {
  RecipeAttrInterface r = recipe(attr);
  if (!r)
    return false;
  switch (gemm) {
  case TeqGemmKindFprop:
    return r.getUseSplitAccumulator(GemmKind::fprop);
  case TeqGemmKindDgrad:
    return r.getUseSplitAccumulator(GemmKind::dgrad);
  case TeqGemmKindWgrad:
    return r.getUseSplitAccumulator(GemmKind::wgrad);
  }
  return false;
}

TeqStatus teqRecipeAttrCheckTargetSupport(MlirAttribute recipeAttr,
                                          MlirAttribute targetAttr,
                                          bool *supported,
                                          MlirStringCallback reason,
                                          void *userData) {
  if (!supported)
    return makeError("teqRecipeAttrCheckTargetSupport: null result pointer");
  RecipeAttrInterface r = recipe(recipeAttr);
  if (!r)
    return makeError("teqRecipeAttrCheckTargetSupport: the first argument "
                     "is not a teq recipe");
  TargetAttr t = target(targetAttr);
  if (!t)
    return makeError("teqRecipeAttrCheckTargetSupport: the second argument "
                     "is not a #teq.target");
  std::optional<std::string> why = r.checkTargetSupport(t);
  *supported = !why;
  if (why && reason)
    reason(mlirStringRefCreate(why->data(), why->size()), userData);
  return makeSuccess();
}

//===----------------------------------------------------------------------===//
// Quantizers
//===----------------------------------------------------------------------===//

bool teqAttributeIsAQuantizer(MlirAttribute attr) {
  return static_cast<bool>(quantizer(attr));
}

MlirStringRef teqQuantizerAttrGetName(MlirAttribute attr) {
  QuantizerAttrInterface q = quantizer(attr);
  return q ? wrap(q.getQuantizerName()) : empty();
}

MlirType teqQuantizerAttrGetDataType(MlirAttribute attr) {
  QuantizerAttrInterface q = quantizer(attr);
  return q ? wrap(q.getDataType()) : MlirType{nullptr};
}

MlirStringRef teqQuantizerAttrGetFormat(MlirAttribute attr) {
  QuantizerAttrInterface q = quantizer(attr);
  return q ? mlirStringRefCreateFromCString(
                 layout::stringifyFormat(q.getLayoutFormat()))
           : empty();
}

bool teqQuantizerAttrIsStateful(MlirAttribute attr) {
  QuantizerAttrInterface q = quantizer(attr);
  return q && q.isStateful();
}

bool teqQuantizerAttrHasAmaxReduction(MlirAttribute attr) {
  QuantizerAttrInterface q = quantizer(attr);
  return q && q.hasAmaxReduction();
}

bool teqQuantizerAttrIsStochastic(MlirAttribute attr) {
  QuantizerAttrInterface q = quantizer(attr);
  return q && q.isStochastic();
}
