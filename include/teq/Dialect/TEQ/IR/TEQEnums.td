//===- TEQEnums.td - Enumerations of the teq dialect ------*- tablegen -*-===//

#ifndef TEQ_DIALECT_TEQ_IR_TEQENUMS_TD
#define TEQ_DIALECT_TEQ_IR_TEQENUMS_TD

include "mlir/IR/EnumAttr.td"
include "teq/Dialect/TEQ/IR/TEQBase.td"

// TE's recipe.Format. Spelled as in TE.
def TEQ_Format : I32EnumAttr<"Format", "TE recipe format", [
    I32EnumAttrCase<"E2M1", 0>,
    I32EnumAttrCase<"E4M3", 1>,
    I32EnumAttrCase<"E5M2", 2>,
    I32EnumAttrCase<"HYBRID", 3>]> {
  let cppNamespace = "::mlir::teq";
  let genSpecializedAttr = 0;
}

def TEQ_AmaxComputeAlgo : I32EnumAttr<"AmaxComputeAlgo",
    "how delayed scaling reduces the amax history", [
    I32EnumAttrCase<"max", 0>,
    I32EnumAttrCase<"most_recent", 1>]> {
  let cppNamespace = "::mlir::teq";
  let genSpecializedAttr = 0;
}

def TEQ_BackwardOverride : I32EnumAttr<"BackwardOverride",
    "precision of the backward GEMMs (NVTE_BACKWARD_OVERRIDE)", [
    I32EnumAttrCase<"none", 0>,
    I32EnumAttrCase<"high_precision", 1>,
    I32EnumAttrCase<"dequantized", 2>]> {
  let cppNamespace = "::mlir::teq";
  let genSpecializedAttr = 0;
}

def TEQ_NVFP4FourOverSix : I32EnumAttr<"NVFP4FourOverSix",
    "which tensors use NVFP4 4over6 block scaling", [
    I32EnumAttrCase<"none", 0>,
    I32EnumAttrCase<"weights", 1>,
    I32EnumAttrCase<"activations", 2>,
    I32EnumAttrCase<"all", 3>]> {
  let cppNamespace = "::mlir::teq";
  let genSpecializedAttr = 0;
}

def TEQ_NVFP4ErrMode : I32EnumAttr<"NVFP4ErrMode",
    "error measure that picks the 4over6 candidate", [
    I32EnumAttrCase<"MAE", 0>,
    I32EnumAttrCase<"MSE", 1>]> {
  let cppNamespace = "::mlir::teq";
  let genSpecializedAttr = 0;
}

// TE's QuantizerRole.tensor_type: forward slots input/weight/output, backward
// slots grad_output/grad_input.
def TEQ_TensorRole : I32EnumAttr<"TensorRole", "role of a tensor in a GEMM", [
    I32EnumAttrCase<"input", 0>,
    I32EnumAttrCase<"weight", 1>,
    I32EnumAttrCase<"output", 2>,
    I32EnumAttrCase<"grad_output", 3>,
    I32EnumAttrCase<"grad_input", 4>]> {
  let cppNamespace = "::mlir::teq";
  let genSpecializedAttr = 0;
}

def TEQ_Usage : I32BitEnumAttr<"Usage", "which copies of a quantized tensor exist", [
    I32BitEnumAttrCaseNone<"none">,
    I32BitEnumAttrCaseBit<"rowwise", 0>,
    I32BitEnumAttrCaseBit<"columnwise", 1>]> {
  let cppNamespace = "::mlir::teq";
  let separator = "|";
  let genSpecializedAttr = 0;
  let printBitEnumPrimaryGroups = 1;
}

def TEQ_ScaleLayout : I32EnumAttr<"ScaleLayout",
    "byte order of MXFP8/NVFP4 block scales", [
    I32EnumAttrCase<"compact", 0>,
    I32EnumAttrCase<"gemm_swizzled", 1>]> {
  let cppNamespace = "::mlir::teq";
  let genSpecializedAttr = 0;
}

def TEQ_ParallelMode : I32EnumAttr<"ParallelMode",
    "tensor-parallel split of a Linear (TE's parallel_mode)", [
    I32EnumAttrCase<"none", 0>,
    I32EnumAttrCase<"column", 1>,
    I32EnumAttrCase<"row", 2>]> {
  let cppNamespace = "::mlir::teq";
  let genSpecializedAttr = 0;
}

// TE's general_gemm layout string: layout[0] = transa, layout[1] = transb.
def TEQ_GemmLayout : I32EnumAttr<"GemmLayout", "operand transposes of a GEMM", [
    I32EnumAttrCase<"TN", 0>,
    I32EnumAttrCase<"NN", 1>,
    I32EnumAttrCase<"NT", 2>,
    I32EnumAttrCase<"TT", 3>]> {
  let cppNamespace = "::mlir::teq";
  let genSpecializedAttr = 0;
}

def TEQ_GemmKind : I32EnumAttr<"GemmKind", "which GEMM of a Linear", [
    I32EnumAttrCase<"fprop", 0>,
    I32EnumAttrCase<"dgrad", 1>,
    I32EnumAttrCase<"wgrad", 2>]> {
  let cppNamespace = "::mlir::teq";
  let genSpecializedAttr = 0;
}

// Activations, with TE's names (te-layer-semantics.md §2). gelu is TE's
// tanh approximation (its default); gelu_erf is PyTorch's exact GELU
// (approximate='none'), which TE has no kernel for. The gated kinds take
// [..., 2n] and activate the first half: out = f(a) * b.
def TEQ_ActivationKind : I32EnumAttr<"ActivationKind",
    "an activation function (TE's names)", [
    I32EnumAttrCase<"gelu", 0>,
    I32EnumAttrCase<"gelu_erf", 1>,
    I32EnumAttrCase<"qgelu", 2>,
    I32EnumAttrCase<"silu", 3>,
    I32EnumAttrCase<"relu", 4>,
    I32EnumAttrCase<"srelu", 5>,
    I32EnumAttrCase<"tanh", 6>,
    I32EnumAttrCase<"sigmoid", 7>,
    I32EnumAttrCase<"geglu", 8>,
    I32EnumAttrCase<"qgeglu", 9>,
    I32EnumAttrCase<"reglu", 10>,
    I32EnumAttrCase<"sreglu", 11>,
    I32EnumAttrCase<"swiglu", 12>,
    I32EnumAttrCase<"glu", 13>]> {
  let cppNamespace = "::mlir::teq";
  // A bare keyword in the ops' syntax: `teq.activation gelu %x ...`.
}

// Standalone enum attributes read `#teq.gemm_kind<fprop>`.
class TEQ_EnumAttr<EnumAttrInfo info, string mnemonic>
    : EnumAttr<TEQ_Dialect, info, mnemonic> {
  let assemblyFormat = "`<` $value `>`";
}

def TEQ_FormatAttr : TEQ_EnumAttr<TEQ_Format, "format">;
def TEQ_UsageAttr : TEQ_EnumAttr<TEQ_Usage, "usage">;
def TEQ_ParallelModeAttr : TEQ_EnumAttr<TEQ_ParallelMode, "parallel_mode">;
def TEQ_GemmLayoutAttr : TEQ_EnumAttr<TEQ_GemmLayout, "gemm_layout">;
def TEQ_GemmKindAttr : TEQ_EnumAttr<TEQ_GemmKind, "gemm_kind">;
def TEQ_TensorRoleAttr : TEQ_EnumAttr<TEQ_TensorRole, "tensor_role">;
def TEQ_AmaxComputeAlgoAttr
    : TEQ_EnumAttr<TEQ_AmaxComputeAlgo, "amax_compute_algo">;

#endif // TEQ_DIALECT_TEQ_IR_TEQENUMS_TD
