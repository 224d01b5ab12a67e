/*===-- teq-c/Builder.h - Writing teq programs without IR text ----*- C -*-===*\
|*                                                                            *|
|* Builds a function of a teq program op by op, the way TE's Python runs:     *|
|* arguments, autocast regions (nesting as TE's: the innermost wins), Linear  *|
|* forward and backward with TE's options (#teq.linear), elementwise          *|
|* arith/math ops, return. Result types are derived (a Linear's output shape  *|
|* from its input, weight and tensor-parallel options); values used after    *|
|* the autocast region that defines them leave it through teq.yield. The     *|
|* finished function is verified. The Python builder (teq.Program) is built  *|
|* on this.                                                                   *|
|*                                                                            *|
\*===----------------------------------------------------------------------===*/

#ifndef TEQ_C_BUILDER_H
#define TEQ_C_BUILDER_H

#include "teq-c/Support.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef struct TeqFunctionBuilder {
  void *ptr;
} TeqFunctionBuilder;

/// Starts the public function @`name` at the end of `module`'s body, taking
/// arguments of `argTypes` (ranked tensors, !teq.proto, !teq.process_group).
/// Errors: a null module, an empty or taken name.
MLIR_CAPI_EXPORTED TeqStatus teqFunctionBuilderCreate(
    MlirModule module, MlirStringRef name, intptr_t numArgs,
    const MlirType *argTypes, TeqFunctionBuilder *result);

/// Argument `index` of the function (a null value out of range).
MLIR_CAPI_EXPORTED MlirValue
teqFunctionBuilderGetArgument(TeqFunctionBuilder builder, intptr_t index);

/// Names argument `index` in the artifact's manifest (the teq.name argument
/// attribute; default "arg<index>").
MLIR_CAPI_EXPORTED TeqStatus teqFunctionBuilderSetArgumentName(
    TeqFunctionBuilder builder, intptr_t index, MlirStringRef name);

/// Gives argument `index` its role in the artifact's manifest (the
/// teq.role and teq.role_of argument attributes; "role" and "of" in
/// docs/Artifact.md): `role` is input, parameter, output, saved, state,
/// state_update, grad_output, grad, main_grad or quantized_weight; `of`
/// (empty: none) names the value a saved, state_update, grad_output, grad,
/// main_grad or quantized_weight refers
/// to. Errors: an index out of range, an unknown role, an `of` for a role
/// that refers to nothing.
MLIR_CAPI_EXPORTED TeqStatus teqFunctionBuilderSetArgumentRole(
    TeqFunctionBuilder builder, intptr_t index, MlirStringRef role,
    MlirStringRef of);

/// Gives result `index` its role, as teqFunctionBuilderSetArgumentRole does
/// for arguments; recorded until teqFunctionBuilderReturn builds the
/// results (which fails if `index` is not one of them).
MLIR_CAPI_EXPORTED TeqStatus teqFunctionBuilderSetResultRole(
    TeqFunctionBuilder builder, intptr_t index, MlirStringRef role,
    MlirStringRef of);

/// Marks the function teq.weight_cache: compiling it also yields
/// @<name>_weights (its parameters' quantizations) and @<name>_cached (the
/// function taking their results; teq-cache-weight-quantization).
MLIR_CAPI_EXPORTED TeqStatus
teqFunctionBuilderCacheWeights(TeqFunctionBuilder builder);

/// Opens a teq.autocast region: `recipe` (a teq recipe attribute, or null:
/// the target's default recipe) and `enabled`. Ops built until the matching
/// teq FunctionBuilderEndAutocast go inside it.
MLIR_CAPI_EXPORTED TeqStatus teqFunctionBuilderBeginAutocast(
    TeqFunctionBuilder builder, MlirAttribute recipe, bool enabled);
/// Closes the innermost open autocast region.
MLIR_CAPI_EXPORTED TeqStatus
teqFunctionBuilderEndAutocast(TeqFunctionBuilder builder);

typedef struct TeqLinearForwardResults {
  MlirValue output;
  /// Null unless asked for: what backward reads (saved_input, saved_weight).
  MlirValue savedInput;
  MlirValue savedWeight;
  /// Delayed scaling: the updated amax history (null without state).
  MlirValue updatedAmaxHistory;
} TeqLinearForwardResults;

/// teq.linear_forward of `input` [*, in] and `weight` [out, in] with the
/// Linear's options `config` (#teq.linear<...>). Optional (null) operands:
/// `bias` [out] (config bias = true), the delayed-scaling state `scale` and
/// `amaxHistory`, and `tpGroup` (tensor parallel). `saveInput` /
/// `saveWeight` add the saved results.
MLIR_CAPI_EXPORTED TeqStatus teqFunctionBuilderLinearForward(
    TeqFunctionBuilder builder, MlirValue input, MlirValue weight,
    MlirValue bias, MlirValue scale, MlirValue amaxHistory, MlirValue tpGroup,
    MlirAttribute config, bool saveInput, bool saveWeight,
    TeqLinearForwardResults *results);

typedef struct TeqLinearBackwardResults {
  MlirValue dgrad;  ///< Null when config requires_dgrad = false.
  MlirValue wgrad;  ///< Null when config requires_wgrad = false.
  MlirValue dbias;  ///< Null without a bias.
  MlirValue updatedAmaxHistory;
} TeqLinearBackwardResults;

/// teq.linear_backward of `gradOutput` with the saved `input` and
/// `weight`. Optional (null): `mainGrad` (fp32 [out, in];
/// fuse_wgrad_accumulation = true), the delayed-scaling state, `tpGroup`.
MLIR_CAPI_EXPORTED TeqStatus teqFunctionBuilderLinearBackward(
    TeqFunctionBuilder builder, MlirValue gradOutput, MlirValue input,
    MlirValue weight, MlirValue mainGrad, MlirValue scale,
    MlirValue amaxHistory, MlirValue tpGroup, MlirAttribute config,
    TeqLinearBackwardResults *results);

/// TE's delayed-scaling update step (teq.delayed_scaling_update) of one
/// state tensor pair: `scale` [S] and `amaxHistory` [L, S] (amaxes recorded
/// in row 0 by the Linears) -> the new scales and the rolled history.
/// `fp8Dtype` (f8E4M3FN or f8E5M2) gives fp8_max; `amaxComputeAlgo` is
/// "max" or "most_recent". `amaxReductionGroup` (a !teq.process_group
/// argument, or null) all-reduces (max) row 0 over the group first, as
/// DelayedScaling's reduce_amax does, so every rank gets the same scales.
MLIR_CAPI_EXPORTED TeqStatus teqFunctionBuilderDelayedScalingUpdate(
    TeqFunctionBuilder builder, MlirValue scale, MlirValue amaxHistory,
    MlirValue amaxReductionGroup, MlirType fp8Dtype, int64_t margin,
    MlirStringRef amaxComputeAlgo, MlirValue *updatedScale,
    MlirValue *updatedAmaxHistory);

/// An elementwise op on same-typed tensors, its result of that type:
/// "math.tanh", "math.exp", "arith.addf", "arith.subf", "arith.mulf",
/// "arith.divf", "arith.maximumf", "arith.negf", ... (any arith/math op
/// with one result of its operands' type).
MLIR_CAPI_EXPORTED TeqStatus teqFunctionBuilderElementwise(
    TeqFunctionBuilder builder, MlirStringRef opName, intptr_t numOperands,
    const MlirValue *operands, MlirValue *result);

/// teq.activation of `input` (bf16/f16/f32): `kind` by TE's name ("gelu",
/// the tanh form; "gelu_erf", PyTorch's exact GELU; "qgelu", "silu",
/// "relu", "srelu", "tanh", "sigmoid"; gated [..., 2n] -> [..., n]:
/// "geglu", "qgeglu", "reglu", "sreglu", "swiglu", "glu"). The result has
/// the input's dtype. Its derivative is teq-decompose-activations'.
MLIR_CAPI_EXPORTED TeqStatus teqFunctionBuilderActivation(
    TeqFunctionBuilder builder, MlirStringRef kind, MlirValue input,
    MlirValue *result);

/// teq.activation_backward: dx (of `input`'s type) from the incoming
/// gradient `grad` (the forward result's shape) and the forward's `input`.
MLIR_CAPI_EXPORTED TeqStatus teqFunctionBuilderActivationBackward(
    TeqFunctionBuilder builder, MlirStringRef kind, MlirValue grad,
    MlirValue input, MlirValue *result);

/// teq.layer_norm (TE's LayerNorm, docs/Norms.md): `x` [..., n]
/// (bf16/f16/f32, rank >= 2) normalised over its last dimension with
/// `gamma` [n] and `beta` [n] (null: none), of x's dtype or f32. Results:
/// `y` (x's type) and the f32 statistics `mean` and `rstd` [M] (M the
/// product of x's leading dimensions) that the backward reads. `eps` > 0;
/// `zeroCenteredGamma` scales by gamma + 1.
MLIR_CAPI_EXPORTED TeqStatus teqFunctionBuilderLayerNorm(
    TeqFunctionBuilder builder, MlirValue x, MlirValue gamma, MlirValue beta,
    float eps, bool zeroCenteredGamma, MlirValue *y, MlirValue *mean,
    MlirValue *rstd);

/// teq.layer_norm_backward: `dx` (x's type), `dgamma` and `dbeta`
/// (gamma's type) from the incoming gradient `dy` and the forward's `x`,
/// `mean`, `rstd` and `gamma`.
MLIR_CAPI_EXPORTED TeqStatus teqFunctionBuilderLayerNormBackward(
    TeqFunctionBuilder builder, MlirValue dy, MlirValue x, MlirValue mean,
    MlirValue rstd, MlirValue gamma, bool zeroCenteredGamma, MlirValue *dx,
    MlirValue *dgamma, MlirValue *dbeta);

/// teq.rms_norm (TE's RMSNorm): as teqFunctionBuilderLayerNorm without
/// beta and mean; results `y` and `rstd`.
MLIR_CAPI_EXPORTED TeqStatus teqFunctionBuilderRMSNorm(
    TeqFunctionBuilder builder, MlirValue x, MlirValue gamma, float eps,
    bool zeroCenteredGamma, MlirValue *y, MlirValue *rstd);

/// teq.rms_norm_backward: `dx` and `dgamma` from `dy` and the forward's
/// `x`, `rstd` and `gamma`.
MLIR_CAPI_EXPORTED TeqStatus teqFunctionBuilderRMSNormBackward(
    TeqFunctionBuilder builder, MlirValue dy, MlirValue x, MlirValue rstd,
    MlirValue gamma, bool zeroCenteredGamma, MlirValue *dx,
    MlirValue *dgamma);

/// A splat constant tensor of `type` (a float tensor type), e.g. the 1.0
/// of a derivative.
MLIR_CAPI_EXPORTED TeqStatus teqFunctionBuilderConstant(
    TeqFunctionBuilder builder, MlirType type, double value, MlirValue *result);

/// Returns `values` (every autocast region must be closed), named `names`
/// in the manifest (null: result<i>), sets the function type, moves values
/// out of the autocast regions that define them, and verifies the function.
/// Once the return is built the builder is finished, also when verification
/// fails (the function then stays in the module, for the caller to print or
/// erase).
MLIR_CAPI_EXPORTED TeqStatus teqFunctionBuilderReturn(
    TeqFunctionBuilder builder, intptr_t numValues, const MlirValue *values,
    const MlirStringRef *names);

/// Frees the builder; an unfinished function is erased from the module, so
/// destroy builders before their module and context.
MLIR_CAPI_EXPORTED void teqFunctionBuilderDestroy(TeqFunctionBuilder builder);

#ifdef __cplusplus
}
#endif

#endif /* TEQ_C_BUILDER_H */
