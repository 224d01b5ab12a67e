//===- TEQInterfaces.td - Recipe, quantizer, proto interfaces -*- tablegen -*-===//

#ifndef TEQ_DIALECT_TEQ_IR_TEQINTERFACES_TD
#define TEQ_DIALECT_TEQ_IR_TEQINTERFACES_TD

include "mlir/IR/OpBase.td"

def TEQ_QuantizerAttrInterface : AttrInterface<"QuantizerAttrInterface"> {
  let cppNamespace = "::mlir::teq";
  let description = [{
    A TE quantizer: how a high-precision tensor becomes a quantized one. The
    attribute is the whole description (no tensors, no process groups), so two
    equal quantizers are the same attribute.
  }];
  let methods = [
    InterfaceMethod<"TE's class name, for diagnostics (e.g. \"MXFP8Quantizer\").",
      "::llvm::StringRef", "getQuantizerName">,
    InterfaceMethod<"Element type of the quantized values (f8E4M3FN, f8E5M2, f4E2M1FN).",
      "::mlir::Type", "getDataType">,
    InterfaceMethod<"Storage format that decides the tensor's inner buffers.",
      "::mlir::teq::layout::Format", "getLayoutFormat">,
    InterfaceMethod<[{
        True if quantizing needs delayed-scaling state (scale, amax history)
        passed as operands.
      }], "bool", "isStateful", (ins), [{}], [{ return false; }]>,
    InterfaceMethod<[{
        True if the amax is MAX-reduced over a process group given as an
        operand of the quantizing op.
      }], "bool", "hasAmaxReduction", (ins), [{}], [{ return false; }]>,
    InterfaceMethod<"True for NVFP4 with one amax per row.",
      "bool", "isRowScaled", (ins), [{}], [{ return false; }]>,
    InterfaceMethod<[{
        True if quantizing rounds stochastically (NVFP4 stochastic_rounding):
        the random bits come from a Philox state (seed, offset) passed as an
        rng_state operand of the quantizing op.
      }], "bool", "isStochastic", (ins), [{}], [{ return false; }]>,
    InterfaceMethod<[{
        The quantizer as the artifact manifest describes it: its kind and
        every field with TE's names (teq/Artifact/Quantizer.h).
      }], "::mlir::teq::artifact::QuantizerDesc", "getArtifactDescription">,
  ];
}

def TEQ_RecipeAttrInterface : AttrInterface<"RecipeAttrInterface"> {
  let cppNamespace = "::mlir::teq";
  let description = [{
    A TE recipe. It answers which quantizer each tensor role gets, whether
    each GEMM of a Linear uses split accumulation, and whether a target can
    run it.
  }];
  let methods = [
    InterfaceMethod<"TE's class name, for diagnostics (e.g. \"DelayedScaling\").",
      "::llvm::StringRef", "getRecipeName">,
    InterfaceMethod<[{
        The quantizer for `role` (tensor type, module type, module name), or
        for delayed scaling a #teq.delayed_scaling_request; a null attribute
        if the recipe maps the role to nothing (custom recipes only).
      }], "::mlir::Attribute", "getQuantizerFor",
      (ins "const ::mlir::teq::QuantizerRoleAttr &":$role)>,
    InterfaceMethod<[{
        TE's use_split_accumulator for one GEMM of a Linear (MMParams or the
        module defaults _2X_ACC_FPROP=False, _2X_ACC_DGRAD/WGRAD=True).
      }], "bool", "getUseSplitAccumulator", (ins "::mlir::teq::GemmKind":$gemm)>,
    InterfaceMethod<[{
        Why `target` cannot run this recipe, with TE's message; std::nullopt
        if it can (te-semantics.md §2).
      }], "std::optional<std::string>", "checkTargetSupport",
      (ins "const ::mlir::teq::TargetAttr &":$target)>,
    InterfaceMethod<"Padding alignment for grouped ops (get_align_size_for_quantization).",
      "int64_t", "getAlignSizeForQuantization", (ins), [{}], [{ return 16; }]>,
  ];
}

def TEQ_TensorProtoTypeInterface : TypeInterface<"TensorProtoTypeInterface"> {
  let cppNamespace = "::mlir::teq";
  let description = [{
    A quantized tensor type that can describe its inner buffers (names,
    shapes, encodings, padding, transposition, scale swizzling) on a target.
  }];
  let methods = [
    InterfaceMethod<"Logical (unquantized) shape.",
      "::llvm::ArrayRef<int64_t>", "getShape">,
    InterfaceMethod<"Logical high-precision element type.",
      "::mlir::Type", "getElementType">,
    InterfaceMethod<"The quantizer.",
      "::mlir::teq::QuantizerAttrInterface", "getQuantizerInterface">,
    InterfaceMethod<"Which copies (rowwise, columnwise) the tensor holds.",
      "::mlir::teq::Usage", "getUsage">,
    InterfaceMethod<"The inner buffers on `target` (te-semantics.md §4).",
      "std::vector<::mlir::teq::layout::BufferDesc>", "getBuffers",
      (ins "const ::mlir::teq::TargetAttr &":$target)>,
  ];
}

#endif // TEQ_DIALECT_TEQ_IR_TEQINTERFACES_TD
