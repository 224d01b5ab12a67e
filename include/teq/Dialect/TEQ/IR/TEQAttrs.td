//===- TEQAttrs.td - Targets, recipes, quantizers ---------*- tablegen -*-===//

#ifndef TEQ_DIALECT_TEQ_IR_TEQATTRS_TD
#define TEQ_DIALECT_TEQ_IR_TEQATTRS_TD

include "mlir/IR/AttrTypeBase.td"
include "mlir/IR/EnumAttr.td"
include "teq/Dialect/TEQ/IR/TEQBase.td"
include "teq/Dialect/TEQ/IR/TEQEnums.td"
include "teq/Dialect/TEQ/IR/TEQInterfaces.td"

//===----------------------------------------------------------------------===//
// Parameter kinds with TE-style spelling (true/false, 0.0, enum keywords).
//===----------------------------------------------------------------------===//

class TEQ_RequiredBoolParam<string desc = "">
    : AttrParameter<"bool", desc> {
  let parser = "::mlir::teq::detail::parseBoolParameter($_parser)";
  let printer = "$_printer << ($_self ? \"true\" : \"false\")";
}

class TEQ_BoolParam<string default, string desc = "">
    : TEQ_RequiredBoolParam<desc> {
  let defaultValue = default;
}

class TEQ_IntParam<string default, string desc = "">
    : AttrParameter<"int64_t", desc> {
  let defaultValue = default;
}

class TEQ_FloatParam<string default, string desc = "">
    : APFloatParameter<desc> {
  let defaultValue = "::llvm::APFloat(" # default # ")";
  let parser = "::mlir::teq::detail::parseFloatParameter($_parser)";
  let printer = "$_printer.printFloat($_self)";
}

class TEQ_EnumParam<EnumAttrInfo info, string default, string desc = "">
    : EnumParameter<info> {
  let defaultValue = info.cppNamespace # "::" # info.className # "::" # default;
  let summary = desc;
}

//===----------------------------------------------------------------------===//
// Target
//===----------------------------------------------------------------------===//

def TEQ_TargetAttr : TEQ_Attr<"Target", "target"> {
  let summary = "the GPU a module is compiled for";
  let description = [{
    Names the GPU by its SM (`sm_89`, `sm_90`, `sm_90a`, `sm_100`, `sm_100a`,
    `sm_103`, `sm_120`, ...) and optionally the CUDA version it runs under
    (default "13.0"). Capabilities are derived from the compute capability
    exactly as TE does (te-semantics.md §2, §4):

    * FP8: CC >= 8.9 (Ada also needs CUDA 12.1);
    * FP8 block scaling: CC >= 9.0 and CUDA >= 12.9 (emulated with MXFP8 on
      CC >= 10.0);
    * MXFP8: 10.0 <= CC < 12.0;  NVFP4: CC >= 10.0;
    * non-TN FP8 GEMMs (so no transposed FP8 copies): SM in [100,120) or >= 130.

    ```mlir
    module attributes {teq.target = #teq.target<sm_90>} {}
    module attributes {teq.target = #teq.target<sm_89, cuda = "12.0">} {}
    ```
  }];
  let parameters = (ins
    "unsigned":$sm,
    StringRefParameter<"arch suffix: \"\", \"a\" or \"f\"", "\"\"">:$suffix,
    StringRefParameter<"CUDA version", "\"13.0\"">:$cuda);
  let hasCustomAssemblyFormat = 1;
  let genVerifyDecl = 1;
  let extraClassDeclaration = [{
    /// "sm_90a" and the like.
    std::string getChip() const;
    /// Compute capability as (major, minor).
    std::pair<unsigned, unsigned> getComputeCapability() const {
      return {getSm() / 10, getSm() % 10};
    }
    /// CUDA version as major*10 + minor (13.0 -> 130, 12.9 -> 129).
    unsigned getCudaVersion() const;
    /// What the target can do (the layout library's one definition).
    ::mlir::teq::layout::TargetCaps getCaps() const {
      return ::mlir::teq::layout::TargetCaps::fromSM(getSm(),
                                                     getCudaVersion());
    }
    bool supportsFP8() const { return getCaps().supportsFP8(); }
    bool supportsFP8BlockScaling() const {
      return getCaps().supportsFP8BlockScaling();
    }
    bool supportsMXFP8() const { return getCaps().supportsMXFP8(); }
    bool supportsNVFP4() const { return getCaps().supportsNVFP4(); }
    bool isNonTNFP8GemmSupported() const {
      return getCaps().nonTNFP8GemmSupported();
    }
    /// The target of the closest enclosing op carrying `teq.target`, or null.
    static TargetAttr lookup(::mlir::Operation *op);
    /// The target named `chip` ("sm_90", "sm_100a"), for CUDA `cuda`; null
    /// after an error naming what is wrong with either.
    static TargetAttr getFromChip(
        ::llvm::function_ref<::mlir::InFlightDiagnostic()> emitError,
        ::mlir::MLIRContext *context, ::llvm::StringRef chip,
        ::llvm::StringRef cuda = "13.0");
  }];
}

//===----------------------------------------------------------------------===//
// Recipe building blocks
//===----------------------------------------------------------------------===//

def TEQ_MMParamsAttr : TEQ_Attr<"MMParams", "mm_params"> {
  let summary = "TE's MMParams: GEMM options of one Linear GEMM";
  let description = [{
    `use_split_accumulator = true` means FP8 fast accumulation is off
    (CUBLASLT_MATMUL_DESC_FAST_ACCUM = 0). Inside a recipe it is written
    without the prefix: `fp8_gemm_fprop = <use_split_accumulator = false>`.
  }];
  let parameters = (ins
    TEQ_RequiredBoolParam<"promote partial sums to FP32 periodically">:$use_split_accumulator);
  let assemblyFormat = "`<` struct(params) `>`";
}

def TEQ_QuantizerRoleAttr : TEQ_Attr<"QuantizerRole", "quantizer_role"> {
  let summary = "TE's QuantizerRole: which tensor of which module";
  let description = [{
    `module_type` ("linear", "grouped_linear", ...), `tensor_type` (input,
    weight, output, grad_output, grad_input) and `name` (the module's name).
    In a custom recipe a missing field matches anything.

    ```mlir
    #teq.quantizer_role<module_type = "linear", tensor_type = weight, name = "fc1">
    #teq.quantizer_role<tensor_type = grad_output>
    #teq.quantizer_role<>
    ```
  }];
  let parameters = (ins
    StringRefParameter<"module type; empty matches any">:$module_type,
    OptionalParameter<"std::optional<::mlir::teq::TensorRole>">:$tensor_type,
    StringRefParameter<"module name; empty matches any">:$name);
  let hasCustomAssemblyFormat = 1;
  let extraClassDeclaration = [{
    /// True if this (pattern) role matches the concrete role `other`.
    bool matches(QuantizerRoleAttr other) const;
  }];
}

def TEQ_DelayedScalingRequestAttr
    : TEQ_Attr<"DelayedScalingRequest", "delayed_scaling_request"> {
  let summary = "TE's DelayedScalingRequest, returned by a custom recipe's qfactory";
  let description = [{
    Asks for a stateful delayed-scaling quantizer for one role of a custom
    recipe. All requests of one recipe must match (TE's rule).

    ```mlir
    #teq.delayed_scaling_request<amax_history_len = 16, margin = 1>
    ```
  }];
  let parameters = (ins
    TEQ_EnumParam<TEQ_Format, "HYBRID">:$fp8_format,
    TEQ_IntParam<"0">:$margin,
    TEQ_IntParam<"1024">:$amax_history_len,
    TEQ_EnumParam<TEQ_AmaxComputeAlgo, "max">:$amax_compute_algo,
    TEQ_BoolParam<"true">:$reduce_amax);
  let assemblyFormat = "`<` struct(params) `>`";
  let genVerifyDecl = 1;
}

//===----------------------------------------------------------------------===//
// Recipes (te-semantics.md §1). Field names and defaults are TE's.
//===----------------------------------------------------------------------===//

class TEQ_RecipeAttr<string name, string mnemonic>
    : TEQ_Attr<name, mnemonic, [
        DeclareAttrInterfaceMethods<TEQ_RecipeAttrInterface,
                                    ["getAlignSizeForQuantization"]>]> {
  let genVerifyDecl = 1;
}

def TEQ_DelayedScalingAttr : TEQ_RecipeAttr<"DelayedScaling", "delayed_scaling"> {
  let summary = "TE's DelayedScaling recipe";
  let description = [{
    Per-tensor FP8 with a scale computed from an amax history of earlier
    steps: `scale = (FP8_MAX / amax) / 2^margin`. Quantizers of this recipe
    are stateful; the scale and amax history are operands of the ops that
    use them. Callables (`amax_compute_algo` as a function,
    `scaling_factor_compute_algo`) cannot be expressed. TE rejects
    `backward_override` for this recipe.

    ```mlir
    #teq.delayed_scaling<>
    #teq.delayed_scaling<margin = 1, amax_history_len = 16, amax_compute_algo = most_recent>
    ```
  }];
  let parameters = (ins
    TEQ_IntParam<"0">:$margin,
    TEQ_EnumParam<TEQ_Format, "HYBRID">:$fp8_format,
    TEQ_IntParam<"1024">:$amax_history_len,
    TEQ_EnumParam<TEQ_AmaxComputeAlgo, "max">:$amax_compute_algo,
    TEQ_BoolParam<"true">:$reduce_amax,
    TEQ_BoolParam<"false">:$fp8_dpa,
    TEQ_BoolParam<"false">:$fp8_mha,
    TEQ_EnumParam<TEQ_BackwardOverride, "none">:$backward_override);
  let assemblyFormat = "`<` struct(params) `>`";
}

def TEQ_Float8CurrentScalingAttr
    : TEQ_RecipeAttr<"Float8CurrentScaling", "float8_current_scaling"> {
  let summary = "TE's Float8CurrentScaling recipe";
  let description = [{
    Per-tensor FP8 with the scale computed from the tensor's own amax.
    Fast accumulation is on for fprop by default.

    ```mlir
    #teq.float8_current_scaling<>
    #teq.float8_current_scaling<use_power_2_scales = true, fp8_gemm_fprop = <use_split_accumulator = true>>
    ```
  }];
  let parameters = (ins
    TEQ_BoolParam<"false">:$use_power_2_scales,
    TEQ_EnumParam<TEQ_Format, "HYBRID">:$fp8_format,
    DefaultValuedParameter<"MMParamsAttr",
      "MMParamsAttr::get($_ctxt, false)">:$fp8_gemm_fprop,
    DefaultValuedParameter<"MMParamsAttr",
      "MMParamsAttr::get($_ctxt, true)">:$fp8_gemm_dgrad,
    DefaultValuedParameter<"MMParamsAttr",
      "MMParamsAttr::get($_ctxt, true)">:$fp8_gemm_wgrad,
    TEQ_BoolParam<"false">:$fp8_dpa,
    TEQ_BoolParam<"false">:$fp8_mha,
    TEQ_EnumParam<TEQ_BackwardOverride, "none">:$backward_override);
  let assemblyFormat = "`<` struct(params) `>`";
}

def TEQ_Float8BlockScalingAttr
    : TEQ_RecipeAttr<"Float8BlockScaling", "float8_block_scaling"> {
  let summary = "TE's Float8BlockScaling recipe (DeepSeek-V3 style)";
  let description = [{
    FP8 with one scale per 1x128 (dim 1) or 128x128 (dim 2) block. Split
    accumulation is required for all GEMMs; 2D x 2D GEMM pairs are rejected.

    ```mlir
    #teq.float8_block_scaling<>
    #teq.float8_block_scaling<x_block_scaling_dim = 1, w_block_scaling_dim = 1>
    ```
  }];
  let parameters = (ins
    TEQ_BoolParam<"false">:$use_f32_scales,
    TEQ_EnumParam<TEQ_Format, "E4M3">:$fp8_format,
    TEQ_IntParam<"1">:$x_block_scaling_dim,
    TEQ_IntParam<"2">:$w_block_scaling_dim,
    TEQ_IntParam<"1">:$grad_block_scaling_dim,
    DefaultValuedParameter<"MMParamsAttr",
      "MMParamsAttr::get($_ctxt, true)">:$fp8_gemm_fprop,
    DefaultValuedParameter<"MMParamsAttr",
      "MMParamsAttr::get($_ctxt, true)">:$fp8_gemm_dgrad,
    DefaultValuedParameter<"MMParamsAttr",
      "MMParamsAttr::get($_ctxt, true)">:$fp8_gemm_wgrad,
    TEQ_BoolParam<"false">:$fp8_dpa,
    TEQ_BoolParam<"false">:$fp8_mha,
    TEQ_EnumParam<TEQ_BackwardOverride, "none">:$backward_override);
  let assemblyFormat = "`<` struct(params) `>`";
}

def TEQ_MXFP8BlockScalingAttr
    : TEQ_RecipeAttr<"MXFP8BlockScaling", "mxfp8_block_scaling"> {
  let summary = "TE's MXFP8BlockScaling recipe";
  let description = [{
    FP8 with one E8M0 scale per 32 elements; with `enable_2d_quantization`
    the weights of Linear modules use 32x32 blocks.

    ```mlir
    #teq.mxfp8_block_scaling<>
    #teq.mxfp8_block_scaling<fp8_format = HYBRID, enable_2d_quantization = true>
    ```
  }];
  let parameters = (ins
    TEQ_IntParam<"0">:$margin,
    TEQ_EnumParam<TEQ_Format, "E4M3">:$fp8_format,
    TEQ_BoolParam<"false">:$enable_2d_quantization,
    TEQ_BoolParam<"false">:$fp8_dpa,
    TEQ_BoolParam<"false">:$fp8_mha,
    TEQ_EnumParam<TEQ_BackwardOverride, "none">:$backward_override);
  let assemblyFormat = "`<` struct(params) `>`";
}

def TEQ_NVFP4BlockScalingAttr
    : TEQ_RecipeAttr<"NVFP4BlockScaling", "nvfp4_block_scaling"> {
  let summary = "TE's NVFP4BlockScaling recipe";
  let description = [{
    FP4 E2M1 with an E4M3 scale per 16 elements and a per-tensor fp32 scale.
    By default inputs and gradients get the random Hadamard transform on
    their columnwise copy, gradients stochastic rounding, weights 16x16 2D
    blocks. `fp4_format` must be E2M1 and `fp8_format` E4M3.

    ```mlir
    #teq.nvfp4_block_scaling<>
    #teq.nvfp4_block_scaling<disable_rht = true, disable_stochastic_rounding = true>
    ```
  }];
  let parameters = (ins
    TEQ_BoolParam<"false">:$disable_rht,
    TEQ_BoolParam<"false">:$disable_stochastic_rounding,
    TEQ_BoolParam<"false">:$disable_2d_quantization,
    TEQ_BoolParam<"false">:$row_scaled_activation,
    TEQ_EnumParam<TEQ_NVFP4FourOverSix, "none">:$nvfp4_4over6,
    TEQ_EnumParam<TEQ_NVFP4FourOverSix, "all">:$nvfp4_4over6_e4m3_use_256,
    TEQ_EnumParam<TEQ_NVFP4ErrMode, "MAE">:$nvfp4_4over6_err_mode,
    TEQ_EnumParam<TEQ_Format, "E2M1">:$fp4_format,
    TEQ_EnumParam<TEQ_Format, "E4M3">:$fp8_format,
    TEQ_BoolParam<"false">:$fp8_dpa,
    TEQ_BoolParam<"false">:$fp8_mha,
    TEQ_EnumParam<TEQ_BackwardOverride, "none">:$backward_override);
  let assemblyFormat = "`<` struct(params) `>`";
}

def TEQ_CustomRecipeAttr : TEQ_RecipeAttr<"CustomRecipe", "custom_recipe"> {
  let summary = "TE's CustomRecipe: a map from quantizer roles to quantizers";
  let description = [{
    TE's `qfactory` callable becomes an ordered list of rules
    `role pattern -> quantizer`; the first rule whose pattern matches a role
    gives its quantizer (or a `#teq.delayed_scaling_request`). Role fields
    left out match anything, so `<>` is a catch-all.

    ```mlir
    #teq.custom_recipe<[
        <tensor_type = weight> -> #teq.float8_block_quantizer<f8E4M3FN>,
        <tensor_type = grad_output> -> #teq.float8_current_scaling_quantizer<f8E5M2>,
        <> -> #teq.float8_current_scaling_quantizer<f8E4M3FN>],
      quantization_alignment = 64>
    ```
  }];
  let parameters = (ins
    ArrayRefParameter<"QuantizerRoleAttr", "role patterns">:$roles,
    ArrayRefParameter<"::mlir::Attribute", "quantizers, one per pattern">:$quantizers,
    TEQ_EnumParam<TEQ_Format, "HYBRID">:$fp8_format,
    TEQ_IntParam<"128">:$quantization_alignment,
    TEQ_EnumParam<TEQ_BackwardOverride, "none">:$backward_override);
  let hasCustomAssemblyFormat = 1;
}

//===----------------------------------------------------------------------===//
// Quantizers (te-semantics.md §3). Written `<dtype, field = value, ...>`.
// Usage (rowwise/columnwise) and scale swizzling are part of the tensor type,
// not of the quantizer; process groups and state tensors are op operands.
//===----------------------------------------------------------------------===//

class TEQ_QuantizerAttr<string name, string mnemonic,
                        list<string> overridden = []>
    : TEQ_Attr<name, mnemonic, [
        DeclareAttrInterfaceMethods<TEQ_QuantizerAttrInterface, overridden>]> {
  let hasCustomAssemblyFormat = 1;
  let genVerifyDecl = 1;
}

def TEQ_Float8QuantizerAttr
    : TEQ_QuantizerAttr<"Float8Quantizer", "float8_quantizer", ["isStateful"]> {
  let summary = "TE's Float8Quantizer (delayed scaling)";
  let description = [{
    Per-tensor FP8 with a stored scale. Stateful: ops that quantize with it
    take the scale and amax history as operands.

    ```mlir
    #teq.float8_quantizer<f8E4M3FN>
    ```
  }];
  let parameters = (ins "::mlir::Type":$fp8_dtype);
}

def TEQ_Float8CurrentScalingQuantizerAttr
    : TEQ_QuantizerAttr<"Float8CurrentScalingQuantizer",
                        "float8_current_scaling_quantizer", ["hasAmaxReduction"]> {
  let summary = "TE's Float8CurrentScalingQuantizer";
  let description = [{
    ```mlir
    #teq.float8_current_scaling_quantizer<f8E4M3FN>
    #teq.float8_current_scaling_quantizer<f8E5M2, force_pow_2_scales = true, amax_epsilon = 1.0e-06>
    #teq.float8_current_scaling_quantizer<f8E4M3FN, with_amax_reduction = true>
    ```
  }];
  let parameters = (ins
    "::mlir::Type":$fp8_dtype,
    TEQ_BoolParam<"false">:$with_amax_reduction,
    TEQ_BoolParam<"false">:$force_pow_2_scales,
    TEQ_FloatParam<"0.0">:$amax_epsilon);
}

def TEQ_Float8BlockQuantizerAttr
    : TEQ_QuantizerAttr<"Float8BlockQuantizer", "float8_block_quantizer"> {
  let summary = "TE's Float8BlockQuantizer (1x128 or 128x128 blocks)";
  let description = [{
    ```mlir
    #teq.float8_block_quantizer<f8E4M3FN>
    #teq.float8_block_quantizer<f8E5M2, block_scaling_dim = 1>
    ```
  }];
  let parameters = (ins
    "::mlir::Type":$fp8_dtype,
    TEQ_IntParam<"2">:$block_scaling_dim,
    TEQ_BoolParam<"true">:$force_pow_2_scales,
    TEQ_FloatParam<"0.0">:$amax_epsilon);
}

def TEQ_MXFP8QuantizerAttr
    : TEQ_QuantizerAttr<"MXFP8Quantizer", "mxfp8_quantizer"> {
  let summary = "TE's MXFP8Quantizer (1x32 blocks, E8M0 scales)";
  let description = [{
    ```mlir
    #teq.mxfp8_quantizer<f8E4M3FN>
    #teq.mxfp8_quantizer<f8E4M3FN, with_2d_quantization = true>
    ```
  }];
  let parameters = (ins
    "::mlir::Type":$fp8_dtype,
    TEQ_BoolParam<"false">:$with_2d_quantization);
}

def TEQ_NVFP4QuantizerAttr
    : TEQ_QuantizerAttr<"NVFP4Quantizer", "nvfp4_quantizer",
                        ["hasAmaxReduction", "isRowScaled", "isStochastic"]> {
  let summary = "TE's NVFP4Quantizer (E2M1 data, E4M3 1x16 block scales)";
  let description = [{
    ```mlir
    #teq.nvfp4_quantizer<f4E2M1FN>
    #teq.nvfp4_quantizer<f4E2M1FN, with_rht = true, with_post_rht_amax = true, stochastic_rounding = true>
    #teq.nvfp4_quantizer<f4E2M1FN, with_2d_quantization = true>
    ```
  }];
  let parameters = (ins
    "::mlir::Type":$fp4_dtype,
    TEQ_BoolParam<"false">:$with_amax_reduction,
    TEQ_BoolParam<"false">:$with_rht,
    TEQ_BoolParam<"false">:$with_post_rht_amax,
    TEQ_BoolParam<"false">:$with_2d_quantization,
    TEQ_BoolParam<"false">:$stochastic_rounding,
    TEQ_BoolParam<"false">:$row_scaled_nvfp4,
    TEQ_BoolParam<"false">:$nvfp4_use_4over6,
    TEQ_IntParam<"448">:$nvfp4_e4m3_max,
    TEQ_EnumParam<TEQ_NVFP4ErrMode, "MAE">:$nvfp4_4over6_err_mode,
    TEQ_BoolParam<"true">:$with_random_sign_mask);
}

//===----------------------------------------------------------------------===//
// Resolved quantization of one Linear
//===----------------------------------------------------------------------===//

def TEQ_OptionalQuantizerParam
    : OptionalParameter<"::mlir::teq::QuantizerAttrInterface"> {
  let parser = "::mlir::teq::detail::parseQuantizerParameter($_parser)";
  let printer = "$_printer.printAttribute($_self)";
}

def TEQ_LinearQuantizationAttr
    : TEQ_Attr<"LinearQuantization", "linear_quantization"> {
  let summary = "the quantizers and GEMM flags a Linear resolved to";
  let description = [{
    What `teq-resolve-autocast` derives for one Linear from the recipe in
    effect: the quantizer of each tensor role (none means high precision for
    that tensor) and TE's use_split_accumulator of its fprop, dgrad and wgrad
    GEMMs. `recipe` names the recipe it came from ("high_precision" outside
    any enabled autocast region). `backward_override` is the recipe's
    (te-semantics.md §1.0): under `high_precision` or `dequantized` the
    backward GEMMs run in high precision (no grad_output or grad_input
    quantizer) on the original input and weight, or on the forward's
    quantized copies dequantized, and the forward keeps only rowwise copies.

    ```mlir
    #teq.linear_quantization<recipe = "Float8CurrentScaling",
        input = #teq.float8_current_scaling_quantizer<f8E4M3FN>,
        weight = #teq.float8_current_scaling_quantizer<f8E4M3FN>,
        output = #teq.float8_current_scaling_quantizer<f8E4M3FN>,
        grad_output = #teq.float8_current_scaling_quantizer<f8E5M2>,
        grad_input = #teq.float8_current_scaling_quantizer<f8E5M2>,
        fprop_split_accumulator = false>
    #teq.linear_quantization<recipe = "high_precision">
    ```
  }];
  let parameters = (ins
    StringRefParameter<"recipe name">:$recipe,
    TEQ_OptionalQuantizerParam:$input,
    TEQ_OptionalQuantizerParam:$weight,
    TEQ_OptionalQuantizerParam:$output,
    TEQ_OptionalQuantizerParam:$grad_output,
    TEQ_OptionalQuantizerParam:$grad_input,
    TEQ_BoolParam<"true">:$fprop_split_accumulator,
    TEQ_BoolParam<"true">:$dgrad_split_accumulator,
    TEQ_BoolParam<"true">:$wgrad_split_accumulator,
    TEQ_EnumParam<TEQ_BackwardOverride, "none">:$backward_override);
  let assemblyFormat = "`<` struct(params) `>`";
  let genVerifyDecl = 1;
  let extraClassDeclaration = [{
    /// True if no tensor is quantized.
    bool isHighPrecision() const {
      return !getInput() && !getWeight() && !getGradOutput();
    }
    /// True if a forward (backward) tensor uses delayed scaling state.
    bool needsForwardState() const;
    bool needsBackwardState() const;
    /// The quantizer of `role`, or null.
    ::mlir::teq::QuantizerAttrInterface getQuantizer(::mlir::teq::TensorRole role) const;
  }];
}

//===----------------------------------------------------------------------===//
// Linear options
//===----------------------------------------------------------------------===//

def TEQ_LinearConfigAttr : TEQ_Attr<"LinearConfig", "linear"> {
  let summary = "TE's Linear module options";
  let description = [{
    The options of one `te.Linear` that forward and backward share:
    whether it has a bias, its tensor-parallel split and size, sequence
    parallelism, whether wgrad accumulates into an fp32 `main_grad`, which
    gradients backward computes, whether forward saves the high-precision
    input, and the module's name (matched by custom recipe roles).

    ```mlir
    #teq.linear<bias = true>
    #teq.linear<parallel_mode = column, sequence_parallel = true, tp_size = 4, name = "qkv">
    ```
  }];
  let parameters = (ins
    TEQ_BoolParam<"false">:$bias,
    TEQ_EnumParam<TEQ_ParallelMode, "none">:$parallel_mode,
    TEQ_BoolParam<"false">:$sequence_parallel,
    TEQ_IntParam<"1">:$tp_size,
    TEQ_BoolParam<"false">:$fuse_wgrad_accumulation,
    TEQ_BoolParam<"true">:$requires_dgrad,
    TEQ_BoolParam<"true">:$requires_wgrad,
    TEQ_BoolParam<"false">:$save_original_input,
    StringRefParameter<"module name", "\"\"">:$name);
  let assemblyFormat = "`<` struct(params) `>`";
  let genVerifyDecl = 1;
  let extraClassDeclaration = [{
    /// sequence_parallel only takes effect when tp_size > 1 (TE).
    bool isSequenceParallel() const {
      return getSequenceParallel() && getTpSize() > 1;
    }
  }];
}

#endif // TEQ_DIALECT_TEQ_IR_TEQATTRS_TD
