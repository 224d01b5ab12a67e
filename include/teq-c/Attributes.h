/*===-- teq-c/Attributes.h - Targets, recipes, quantizers ---------*- C -*-===*\
|*                                                                            *|
|* The teq attributes in the C API: the GPU target (#teq.target), TE's        *|
|* recipes (#teq.delayed_scaling, #teq.float8_current_scaling,                *|
|* #teq.float8_block_scaling, #teq.mxfp8_block_scaling,                       *|
|* #teq.nvfp4_block_scaling, #teq.custom_recipe) and quantizers               *|
|* (#teq.float8_quantizer, ..._current_scaling_quantizer, ...). Recipes and   *|
|* quantizers are built from their text (teqParseAttribute: every field has   *|
|* TE's name and default, and TE's checks run) and queried here; their        *|
|* fields print with mlirAttributePrint.                                      *|
|*                                                                            *|
\*===----------------------------------------------------------------------===*/

#ifndef TEQ_C_ATTRIBUTES_H
#define TEQ_C_ATTRIBUTES_H

#include "teq-c/Support.h"

#ifdef __cplusplus
extern "C" {
#endif

//===--------------------------------------------------------------------===//
// Target
//===--------------------------------------------------------------------===//

MLIR_CAPI_EXPORTED bool teqAttributeIsATarget(MlirAttribute attr);
/// #teq.target for `chip` ("sm_90", "sm_100a", ...) and a CUDA version
/// ("12.9"; empty: the default, "13.0"). Errors name a malformed chip.
MLIR_CAPI_EXPORTED TeqStatus teqTargetAttrGet(MlirContext context,
                                              MlirStringRef chip,
                                              MlirStringRef cudaVersion,
                                              MlirAttribute *result);
/// The compute capability as major*10 + minor (sm_90a -> 90).
MLIR_CAPI_EXPORTED unsigned teqTargetAttrGetSM(MlirAttribute target);
/// "", "a" or "f".
MLIR_CAPI_EXPORTED MlirStringRef teqTargetAttrGetSuffix(MlirAttribute target);
MLIR_CAPI_EXPORTED MlirStringRef
teqTargetAttrGetCudaVersion(MlirAttribute target);
/// "sm_90a", through `callback`.
MLIR_CAPI_EXPORTED void teqTargetAttrGetChip(MlirAttribute target,
                                             MlirStringCallback callback,
                                             void *userData);
/// Capabilities as TE derives them (te-semantics.md §2, §4).
MLIR_CAPI_EXPORTED bool teqTargetAttrSupportsFP8(MlirAttribute target);
MLIR_CAPI_EXPORTED bool
teqTargetAttrSupportsFP8BlockScaling(MlirAttribute target);
MLIR_CAPI_EXPORTED bool teqTargetAttrSupportsMXFP8(MlirAttribute target);
MLIR_CAPI_EXPORTED bool teqTargetAttrSupportsNVFP4(MlirAttribute target);
/// Whether FP8 GEMMs run in layouts other than TN (no transposed copies).
MLIR_CAPI_EXPORTED bool
teqTargetAttrSupportsNonTNFP8Gemm(MlirAttribute target);

//===--------------------------------------------------------------------===//
// Recipes
//===--------------------------------------------------------------------===//

MLIR_CAPI_EXPORTED bool teqAttributeIsARecipe(MlirAttribute attr);
/// TE's class name: "DelayedScaling", "Float8CurrentScaling", ...
MLIR_CAPI_EXPORTED MlirStringRef teqRecipeAttrGetName(MlirAttribute recipe);

/// Which GEMM of a Linear.
typedef enum TeqGemmKind {
  TeqGemmKindFprop = 0,
  TeqGemmKindDgrad = 1,
  TeqGemmKindWgrad = 2,
} TeqGemmKind;

/// TE's use_split_accumulator of one GEMM under `recipe` (MMParams, or the
/// module defaults: off for fprop, on for dgrad and wgrad).
MLIR_CAPI_EXPORTED bool
teqRecipeAttrGetUseSplitAccumulator(MlirAttribute recipe, TeqGemmKind gemm);

/// Whether `target` runs `recipe`. Sets `*supported`; where it does not,
/// calls `reason` with TE's message (e.g. "MXFP8BlockScaling ... requires
/// compute capability 10.0 or later"). Fails only on bad arguments (null or
/// not a recipe / target).
MLIR_CAPI_EXPORTED TeqStatus teqRecipeAttrCheckTargetSupport(
    MlirAttribute recipe, MlirAttribute target, bool *supported,
    MlirStringCallback reason, void *userData);

//===--------------------------------------------------------------------===//
// Quantizers
//===--------------------------------------------------------------------===//

MLIR_CAPI_EXPORTED bool teqAttributeIsAQuantizer(MlirAttribute attr);
/// TE's class name: "Float8Quantizer", "MXFP8Quantizer", ...
MLIR_CAPI_EXPORTED MlirStringRef
teqQuantizerAttrGetName(MlirAttribute quantizer);
/// The element type of the quantized values (f8E4M3FN, f8E5M2, f4E2M1FN).
MLIR_CAPI_EXPORTED MlirType teqQuantizerAttrGetDataType(MlirAttribute quantizer);
/// The storage format: "per_tensor_fp8", "block_fp8_1d", "block_fp8_2d",
/// "mxfp8", "nvfp4".
MLIR_CAPI_EXPORTED MlirStringRef
teqQuantizerAttrGetFormat(MlirAttribute quantizer);
/// Delayed scaling: quantizing needs the scale and amax history.
MLIR_CAPI_EXPORTED bool teqQuantizerAttrIsStateful(MlirAttribute quantizer);
/// The amax is max-reduced over a process group.
MLIR_CAPI_EXPORTED bool
teqQuantizerAttrHasAmaxReduction(MlirAttribute quantizer);
/// NVFP4 stochastic rounding (an rng_state operand).
MLIR_CAPI_EXPORTED bool teqQuantizerAttrIsStochastic(MlirAttribute quantizer);

//===--------------------------------------------------------------------===//
// Parameters (every field of a recipe, a quantizer and their parts)
//===--------------------------------------------------------------------===//

/// The mnemonic of a teq dialect attribute ("delayed_scaling",
/// "mxfp8_quantizer", "quantizer_role", ...); empty for other attributes.
MLIR_CAPI_EXPORTED MlirStringRef teqAttributeGetMnemonic(MlirAttribute attr);

/// Every parameter (defaults included) of a recipe, a quantizer, a
/// delayed_scaling_request, a quantizer_role or an mm_params attribute, by
/// its textual name, as a builtin DictionaryAttr: booleans are BoolAttr,
/// integers i64 IntegerAttr, floats f64 FloatAttr, enums the StringAttr of
/// their keyword ("HYBRID", "most_recent", "none"), element types TypeAttr,
/// mm_params and quantizer roles nested dictionaries (a role's unset
/// tensor_type is absent), a custom_recipe's "rules" an ArrayAttr of
/// [role dictionary, quantizer or delayed_scaling_request attribute]. A
/// null attribute for any other attribute.
MLIR_CAPI_EXPORTED MlirAttribute teqAttributeGetParameters(MlirAttribute attr);

#ifdef __cplusplus
}
#endif

#endif /* TEQ_C_ATTRIBUTES_H */
