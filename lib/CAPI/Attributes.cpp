//===- Attributes.cpp - Targets, recipes, quantizers in the C API ---------===//

#include "teq-c/Attributes.h"
#include "Status.h"
#include "teq/Dialect/TEQ/IR/TEQAttrs.h"

#include "mlir/CAPI/IR.h"
#include "mlir/CAPI/Support.h"
#include "mlir/IR/Builders.h"
#include "mlir/IR/BuiltinAttributes.h"
#include "llvm/ADT/TypeSwitch.h"

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

//===----------------------------------------------------------------------===//
// Parameters
//===----------------------------------------------------------------------===//

MlirStringRef teqAttributeGetMnemonic(MlirAttribute attr) {
  Attribute a = unwrap(attr);
  if (!a || a.getDialect().getNamespace() != "teq")
    return empty();
  // An ODS attribute's name is "<dialect>.<mnemonic>".
  StringRef name = a.getAbstractAttribute().getName();
  name.consume_front("teq.");
  return wrap(name);
}

namespace {
/// The named parameters of one attribute, as builtin attributes.
class Parameters {
public:
  explicit Parameters(MLIRContext *ctx) : builder(ctx) {}

  Parameters &flag(StringRef name, bool value) {
    return add(name, builder.getBoolAttr(value));
  }
  Parameters &integer(StringRef name, int64_t value) {
    return add(name, builder.getI64IntegerAttr(value));
  }
  Parameters &real(StringRef name, APFloat value) {
    bool lost = false;
    value.convert(APFloat::IEEEdouble(), APFloat::rmNearestTiesToEven, &lost);
    return add(name, builder.getF64FloatAttr(value.convertToDouble()));
  }
  Parameters &keyword(StringRef name, StringRef value) {
    return add(name, builder.getStringAttr(value));
  }
  Parameters &type(StringRef name, Type value) {
    return add(name, TypeAttr::get(value));
  }
  Parameters &add(StringRef name, Attribute value) {
    entries.push_back(builder.getNamedAttr(name, value));
    return *this;
  }
  DictionaryAttr dict() { return builder.getDictionaryAttr(entries); }

private:
  Builder builder;
  SmallVector<NamedAttribute> entries;
};

DictionaryAttr parametersOf(Attribute attr) {
  Parameters p(attr.getContext());
  bool known =
      TypeSwitch<Attribute, bool>(attr)
          .Case([&](MMParamsAttr a) {
            p.flag("use_split_accumulator", a.getUseSplitAccumulator());
            return true;
          })
          .Case([&](QuantizerRoleAttr a) {
            p.keyword("module_type", a.getModuleType());
            if (std::optional<TensorRole> role = a.getTensorType())
              p.keyword("tensor_type", stringifyTensorRole(*role));
            p.keyword("name", a.getName());
            return true;
          })
          .Case([&](DelayedScalingRequestAttr a) {
            p.keyword("fp8_format", stringifyFormat(a.getFp8Format()))
                .integer("margin", a.getMargin())
                .integer("amax_history_len", a.getAmaxHistoryLen())
                .keyword("amax_compute_algo",
                         stringifyAmaxComputeAlgo(a.getAmaxComputeAlgo()))
                .flag("reduce_amax", a.getReduceAmax());
            return true;
          })
          .Case([&](DelayedScalingAttr a) {
            p.integer("margin", a.getMargin())
                .keyword("fp8_format", stringifyFormat(a.getFp8Format()))
                .integer("amax_history_len", a.getAmaxHistoryLen())
                .keyword("amax_compute_algo",
                         stringifyAmaxComputeAlgo(a.getAmaxComputeAlgo()))
                .flag("reduce_amax", a.getReduceAmax())
                .flag("fp8_dpa", a.getFp8Dpa())
                .flag("fp8_mha", a.getFp8Mha())
                .keyword("backward_override",
                         stringifyBackwardOverride(a.getBackwardOverride()));
            return true;
          })
          .Case([&](Float8CurrentScalingAttr a) {
            p.flag("use_power_2_scales", a.getUsePower_2Scales())
                .keyword("fp8_format", stringifyFormat(a.getFp8Format()))
                .add("fp8_gemm_fprop", parametersOf(a.getFp8GemmFprop()))
                .add("fp8_gemm_dgrad", parametersOf(a.getFp8GemmDgrad()))
                .add("fp8_gemm_wgrad", parametersOf(a.getFp8GemmWgrad()))
                .flag("fp8_dpa", a.getFp8Dpa())
                .flag("fp8_mha", a.getFp8Mha())
                .keyword("backward_override",
                         stringifyBackwardOverride(a.getBackwardOverride()));
            return true;
          })
          .Case([&](Float8BlockScalingAttr a) {
            p.flag("use_f32_scales", a.getUseF32Scales())
                .keyword("fp8_format", stringifyFormat(a.getFp8Format()))
                .integer("x_block_scaling_dim", a.getXBlockScalingDim())
                .integer("w_block_scaling_dim", a.getWBlockScalingDim())
                .integer("grad_block_scaling_dim", a.getGradBlockScalingDim())
                .add("fp8_gemm_fprop", parametersOf(a.getFp8GemmFprop()))
                .add("fp8_gemm_dgrad", parametersOf(a.getFp8GemmDgrad()))
                .add("fp8_gemm_wgrad", parametersOf(a.getFp8GemmWgrad()))
                .flag("fp8_dpa", a.getFp8Dpa())
                .flag("fp8_mha", a.getFp8Mha())
                .keyword("backward_override",
                         stringifyBackwardOverride(a.getBackwardOverride()));
            return true;
          })
          .Case([&](MXFP8BlockScalingAttr a) {
            p.integer("margin", a.getMargin())
                .keyword("fp8_format", stringifyFormat(a.getFp8Format()))
                .flag("enable_2d_quantization", a.getEnable_2dQuantization())
                .flag("fp8_dpa", a.getFp8Dpa())
                .flag("fp8_mha", a.getFp8Mha())
                .keyword("backward_override",
                         stringifyBackwardOverride(a.getBackwardOverride()));
            return true;
          })
          .Case([&](NVFP4BlockScalingAttr a) {
            p.flag("disable_rht", a.getDisableRht())
                .flag("disable_stochastic_rounding",
                      a.getDisableStochasticRounding())
                .flag("disable_2d_quantization", a.getDisable_2dQuantization())
                .flag("row_scaled_activation", a.getRowScaledActivation())
                .keyword("nvfp4_4over6",
                         stringifyNVFP4FourOverSix(a.getNvfp4_4over6()))
                .keyword("nvfp4_4over6_e4m3_use_256",
                         stringifyNVFP4FourOverSix(
                             a.getNvfp4_4over6E4m3Use_256()))
                .keyword("nvfp4_4over6_err_mode",
                         stringifyNVFP4ErrMode(a.getNvfp4_4over6ErrMode()))
                .keyword("fp4_format", stringifyFormat(a.getFp4Format()))
                .keyword("fp8_format", stringifyFormat(a.getFp8Format()))
                .flag("fp8_dpa", a.getFp8Dpa())
                .flag("fp8_mha", a.getFp8Mha())
                .keyword("backward_override",
                         stringifyBackwardOverride(a.getBackwardOverride()));
            return true;
          })
          .Case([&](CustomRecipeAttr a) {
            SmallVector<Attribute> rules;
            for (auto [role, quantizer] :
                 llvm::zip_equal(a.getRoles(), a.getQuantizers()))
              rules.push_back(ArrayAttr::get(
                  a.getContext(), {parametersOf(role), quantizer}));
            p.add("rules", ArrayAttr::get(a.getContext(), rules))
                .keyword("fp8_format", stringifyFormat(a.getFp8Format()))
                .integer("quantization_alignment",
                         a.getQuantizationAlignment())
                .keyword("backward_override",
                         stringifyBackwardOverride(a.getBackwardOverride()));
            return true;
          })
          .Case([&](Float8QuantizerAttr a) {
            p.type("fp8_dtype", a.getFp8Dtype());
            return true;
          })
          .Case([&](Float8CurrentScalingQuantizerAttr a) {
            p.type("fp8_dtype", a.getFp8Dtype())
                .flag("with_amax_reduction", a.getWithAmaxReduction())
                .flag("force_pow_2_scales", a.getForcePow_2Scales())
                .real("amax_epsilon", a.getAmaxEpsilon());
            return true;
          })
          .Case([&](Float8BlockQuantizerAttr a) {
            p.type("fp8_dtype", a.getFp8Dtype())
                .integer("block_scaling_dim", a.getBlockScalingDim())
                .flag("force_pow_2_scales", a.getForcePow_2Scales())
                .real("amax_epsilon", a.getAmaxEpsilon());
            return true;
          })
          .Case([&](MXFP8QuantizerAttr a) {
            p.type("fp8_dtype", a.getFp8Dtype())
                .flag("with_2d_quantization", a.getWith_2dQuantization());
            return true;
          })
          .Case([&](NVFP4QuantizerAttr a) {
            p.type("fp4_dtype", a.getFp4Dtype())
                .flag("with_amax_reduction", a.getWithAmaxReduction())
                .flag("with_rht", a.getWithRht())
                .flag("with_post_rht_amax", a.getWithPostRhtAmax())
                .flag("with_2d_quantization", a.getWith_2dQuantization())
                .flag("stochastic_rounding", a.getStochasticRounding())
                .flag("row_scaled_nvfp4", a.getRowScaledNvfp4())
                .flag("nvfp4_use_4over6", a.getNvfp4Use_4over6())
                .integer("nvfp4_e4m3_max", a.getNvfp4E4m3Max())
                .keyword("nvfp4_4over6_err_mode",
                         stringifyNVFP4ErrMode(a.getNvfp4_4over6ErrMode()))
                .flag("with_random_sign_mask", a.getWithRandomSignMask());
            return true;
          })
          .Default([](Attribute) { return false; });
  return known ? p.dict() : DictionaryAttr();
}
} // namespace

MlirAttribute teqAttributeGetParameters(MlirAttribute attr) {
  Attribute a = unwrap(attr);
  return wrap(a ? Attribute(parametersOf(a)) : Attribute());
}
