//===- TEQTypes.td - Quantized tensor prototypes ----------*- tablegen -*-===//

#ifndef TEQ_DIALECT_TEQ_IR_TEQTYPES_TD
#define TEQ_DIALECT_TEQ_IR_TEQTYPES_TD

include "mlir/IR/AttrTypeBase.td"
include "mlir/IR/BuiltinTypeInterfaces.td"
include "teq/Dialect/TEQ/IR/TEQBase.td"
include "teq/Dialect/TEQ/IR/TEQEnums.td"
include "teq/Dialect/TEQ/IR/TEQInterfaces.td"

def TEQ_TensorProtoType : TEQ_Type<"TensorProto", "proto", [
    DeclareTypeInterfaceMethods<TEQ_TensorProtoTypeInterface,
                                ["getQuantizerInterface", "getBuffers"]>]> {
  let summary = "a quantized tensor (TE's tensor prototype as a type)";
  let description = [{
    Logical shape and high-precision dtype, the quantizer, the usages the
    tensor holds (rowwise, columnwise or both) and, for MXFP8 and NVFP4, the
    byte order of the block scales (TE's `optimize_for_gemm`). A value of this
    type is a quantized tensor; the type alone is TE's data-free prototype.
    Through `TensorProtoTypeInterface` it describes its inner buffers exactly
    (te-semantics.md §4) for the module's `#teq.target`; changing usage is a
    type change (`teq.update_usage`).

    ```mlir
    !teq.proto<128x256xbf16, #teq.float8_current_scaling_quantizer<f8E4M3FN>, rowwise>
    !teq.proto<4096x1024xbf16, #teq.mxfp8_quantizer<f8E4M3FN>, rowwise|columnwise, gemm_swizzled>
    ```
  }];
  let parameters = (ins
    ArrayRefParameter<"int64_t", "logical shape">:$shape,
    "::mlir::Type":$elementType,
    "::mlir::teq::QuantizerAttrInterface":$quantizer,
    "::mlir::teq::Usage":$usage,
    DefaultValuedParameter<"::mlir::teq::ScaleLayout",
                           "::mlir::teq::ScaleLayout::compact">:$scaleLayout);
  let hasCustomAssemblyFormat = 1;
  let genVerifyDecl = 1;
  let builders = [
    TypeBuilderWithInferredContext<(ins
        "::llvm::ArrayRef<int64_t>":$shape, "::mlir::Type":$elementType,
        "::mlir::teq::QuantizerAttrInterface":$quantizer,
        "::mlir::teq::Usage":$usage,
        CArg<"::mlir::teq::ScaleLayout", "::mlir::teq::ScaleLayout::compact">:$scaleLayout), [{
      return $_get(elementType.getContext(), shape, elementType, quantizer,
                   usage, scaleLayout);
    }]>
  ];
  let extraClassDeclaration = [{
    /// The same tensor with other usages.
    TensorProtoType withUsage(::mlir::teq::Usage usage) const {
      return get(getContext(), getShape(), getElementType(), getQuantizer(),
                 usage, getScaleLayout());
    }
    /// The same tensor with its block scales in another layout.
    TensorProtoType withScaleLayout(::mlir::teq::ScaleLayout layout) const {
      return get(getContext(), getShape(), getElementType(), getQuantizer(),
                 getUsage(), layout);
    }
    /// The high-precision tensor type this quantizes.
    ::mlir::RankedTensorType getLogicalType() const {
      return ::mlir::RankedTensorType::get(getShape(), getElementType());
    }
    bool hasRowwise() const;
    bool hasColumnwise() const;
    /// The MLIR-free description the layout library works on.
    ::mlir::teq::layout::TensorDesc getLayoutDesc() const;
  }];
}

def TEQ_ProcessGroupType : TEQ_Type<"ProcessGroup", "process_group"> {
  let summary = "a communicator (NCCL) for amax reductions and TP/SP collectives";
  let description = [{
    An opaque handle passed in at run time. Quantizers never hold one; ops
    that reduce amaxes or communicate take it as an operand.

    ```mlir
    func.func @f(%tp: !teq.process_group) { return }
    ```
  }];
}

def TEQ_AnyTensorOrProto : AnyTypeOf<[AnyRankedTensor, TEQ_TensorProtoType],
    "ranked tensor or !teq.proto">;

#endif // TEQ_DIALECT_TEQ_IR_TEQTYPES_TD
