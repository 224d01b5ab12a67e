//===- TEQBase.td - The teq dialect -----------------------*- tablegen -*-===//

#ifndef TEQ_DIALECT_TEQ_IR_TEQBASE_TD
#define TEQ_DIALECT_TEQ_IR_TEQBASE_TD

include "mlir/IR/OpBase.td"
include "mlir/IR/AttrTypeBase.td"

def TEQ_Dialect : Dialect {
  let name = "teq";
  let cppNamespace = "::mlir::teq";
  let summary = "TransformerEngine quantization as IR";
  let description = [{
    The `teq` dialect makes what TransformerEngine (TE) keeps in Python objects
    and global state explicit IR: the GPU target, FP8/FP4 recipes, quantizers,
    quantized-tensor prototypes, autocast regions, Linear forward/backward with
    their saved tensors, quantize/dequantize and GEMMs.

    * `#teq.target<sm_90>` on the module decides what the hardware can do.
    * Recipes (`#teq.delayed_scaling<...>`, `#teq.float8_current_scaling<...>`,
      ...) carry TE's fields and defaults and answer which quantizer each
      tensor role gets.
    * Quantizers (`#teq.float8_current_scaling_quantizer<f8E4M3FN>`, ...) are
      value objects: equal quantizers are the same attribute. They never hold
      a process group or a tensor; those are operands of the ops that need
      them.
    * `!teq.proto<shape x dtype, quantizer, usage>` is a quantized tensor; the
      type alone is TE's data-free tensor prototype and describes its inner
      buffers exactly for the module's target.

    The name `teq` keeps the dialect clear of upstream `quant`; both can be
    loaded in one context.
  }];
  let useDefaultAttributePrinterParser = 1;
  let useDefaultTypePrinterParser = 1;
  let hasOperationAttrVerify = 1;
  let hasRegionArgAttrVerify = 1;
  let hasRegionResultAttrVerify = 1;
  let extraClassDeclaration = [{
    /// Name of the module attribute holding the #teq.target.
    static constexpr ::llvm::StringLiteral getTargetAttrName() {
      return ::llvm::StringLiteral("teq.target");
    }
    /// Function attribute recording which results dedupe replaced by
    /// arguments: [result index, argument index] pairs.
    static constexpr ::llvm::StringLiteral getSavedFromArgsAttrName() {
      return ::llvm::StringLiteral("teq.saved_from_args");
    }
    /// Unit attribute on a teq.quantize that rebuilds in backward what
    /// forward did not save; quantize CSE keeps it apart from forward's.
    static constexpr ::llvm::StringLiteral getRecomputeAttrName() {
      return ::llvm::StringLiteral("teq.recompute");
    }
    /// Unit attribute on a lowered function that is an artifact entry point.
    static constexpr ::llvm::StringLiteral getEntryAttrName() {
      return ::llvm::StringLiteral("teq.entry");
    }
    /// Function attribute written by teq-dedupe-saved-tensors with
    /// record-saved-memory: {before, after} = {tensors, bytes, per_recipe}.
    static constexpr ::llvm::StringLiteral getSavedMemoryAttrName() {
      return ::llvm::StringLiteral("teq.saved_memory");
    }
    /// Argument or result attribute of an entry function: its name in the
    /// artifact's manifest (default "arg<i>" / "result<i>").
    static constexpr ::llvm::StringLiteral getNameAttrName() {
      return ::llvm::StringLiteral("teq.name");
    }
    /// Unit attribute on a forward function: teq-cache-weight-quantization
    /// adds @<name>_weights and @<name>_cached (TE's is_first_microbatch).
    static constexpr ::llvm::StringLiteral getWeightCacheAttrName() {
      return ::llvm::StringLiteral("teq.weight_cache");
    }
    /// Module attribute: the artifact manifest (JSON, docs/Artifact.md).
    static constexpr ::llvm::StringLiteral getManifestAttrName() {
      return ::llvm::StringLiteral("teq.manifest");
    }
  private:
    void registerAttributes();
    void registerTypes();
  public:
  }];
}

class TEQ_Attr<string name, string attrMnemonic, list<Trait> traits = []>
    : AttrDef<TEQ_Dialect, name, traits> {
  let mnemonic = attrMnemonic;
}

class TEQ_Type<string name, string typeMnemonic, list<Trait> traits = []>
    : TypeDef<TEQ_Dialect, name, traits> {
  let mnemonic = typeMnemonic;
}

class TEQ_Op<string mnemonic, list<Trait> traits = []>
    : Op<TEQ_Dialect, mnemonic, traits>;

#endif // TEQ_DIALECT_TEQ_IR_TEQBASE_TD
