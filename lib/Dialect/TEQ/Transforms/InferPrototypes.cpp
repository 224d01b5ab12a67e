//===- InferPrototypes.cpp - Quantized types of saved tensors -------------===//

#include "LinearTypes.h"
#include "teq/Dialect/TEQ/IR/TEQOps.h"
#include "teq/Dialect/TEQ/Transforms/Passes.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/Verifier.h"

namespace mlir::teq {
#define GEN_PASS_DEF_INFERPROTOTYPES
#include "teq/Dialect/TEQ/Transforms/Passes.h.inc"
} // namespace mlir::teq

using namespace mlir;
using namespace mlir::teq;

namespace {

/// Makes `func`'s signature match its entry block and its return ops, and
/// retypes the results of its call sites.
void syncSignature(func::FuncOp func, SymbolTableCollection &symbols,
                   ModuleOp module) {
  if (func.isExternal())
    return;
  SmallVector<Type> results(func.getResultTypes());
  func.walk([&](func::ReturnOp ret) {
    if (ret->getParentOp() == func)
      results.assign(ret.getOperandTypes().begin(),
                     ret.getOperandTypes().end());
  });
  auto newType = FunctionType::get(
      func.getContext(), func.getBody().front().getArgumentTypes(), results);
  if (newType == func.getFunctionType())
    return;
  func.setFunctionType(newType);
  SymbolTable::UseRange uses =
      *SymbolTable::getSymbolUses(func, module);
  for (SymbolTable::SymbolUse use : uses)
    if (auto call = dyn_cast<func::CallOp>(use.getUser()))
      for (auto [result, type] : llvm::zip(call.getResults(), results))
        result.setType(type);
}

/// The proto type every call site passes for `arg`, if they all agree.
Type typePassedByCallers(BlockArgument arg, ModuleOp module) {
  auto func = cast<func::FuncOp>(arg.getOwner()->getParentOp());
  std::optional<SymbolTable::UseRange> uses =
      SymbolTable::getSymbolUses(func, module);
  if (!uses)
    return {};
  Type agreed;
  for (SymbolTable::SymbolUse use : *uses) {
    auto call = dyn_cast<func::CallOp>(use.getUser());
    if (!call)
      return {};
    Type passed = call.getOperand(arg.getArgNumber()).getType();
    if (!isa<TensorProtoType>(passed) || (agreed && agreed != passed))
      return {};
    agreed = passed;
  }
  return agreed;
}

struct InferPrototypesPass
    : public mlir::teq::impl::InferPrototypesBase<InferPrototypesPass> {
  using Base::Base;

  void runOnOperation() override {
    ModuleOp module = getOperation();
    bool failedAny = false;
    module.walk([&](AutocastOp op) {
      op.emitError() << "teq-infer-prototypes needs resolved Linears: run "
                        "teq-resolve-autocast first";
      failedAny = true;
    });
    if (failedAny)
      return signalPassFailure();

    SetVector<func::FuncOp> touched;
    SmallVector<LinearBackwardOp> backwards;
    module.walk([&](Operation *op) {
      auto quantization =
          op->getAttrOfType<LinearQuantizationAttr>("quantization");
      if (!isa<LinearForwardOp, LinearBackwardOp>(op))
        return;
      if (!quantization) {
        op->emitError() << "teq-infer-prototypes needs resolved Linears: run "
                           "teq-resolve-autocast first";
        failedAny = true;
        return;
      }
      auto config = op->getAttrOfType<LinearConfigAttr>("config");
      if (auto fwd = dyn_cast<LinearForwardOp>(op)) {
        if (Value saved = fwd.getSavedInput())
          saved.setType(savedInputType(fwd.getInput().getType(), config,
                                       quantization));
        if (Value saved = fwd.getSavedWeight())
          saved.setType(
              savedWeightType(fwd.getWeight().getType(), quantization));
        if (fwd.getSavedInput() || fwd.getSavedWeight())
          if (auto func = op->getParentOfType<func::FuncOp>())
            touched.insert(func);
        return;
      }
      backwards.push_back(cast<LinearBackwardOp>(op));
    });
    if (failedAny)
      return signalPassFailure();
    SymbolTableCollection symbols;
    for (func::FuncOp func : touched)
      syncSignature(func, symbols, module);
    touched.clear();

    for (LinearBackwardOp bwd : backwards) {
      auto quantization = bwd.getQuantizationAttr();
      LinearConfigAttr config = bwd.getConfig();
      // Pair-of-functions form: backward reads saved tensors from its
      // function's arguments, which take the types forward now returns.
      auto retypeArgument = [&](Value operand, Type type) {
        auto arg = dyn_cast<BlockArgument>(operand);
        if (!arg || !isa<func::FuncOp>(arg.getOwner()->getParentOp()) ||
            arg.getType() == type)
          return;
        // An argument a forward also reads is an original input (dedupe
        // form), not a saved tensor: it keeps its type.
        if (llvm::any_of(arg.getUsers(), [](Operation *user) {
              return isa<LinearForwardOp>(user);
            }))
          return;
        // What the callers pass wins over what the recipe predicts: they
        // pass exactly what the forward saved.
        if (Type passed = typePassedByCallers(arg, module))
          type = passed;
        arg.setType(type);
        touched.insert(cast<func::FuncOp>(arg.getOwner()->getParentOp()));
      };
      Type input = bwd.getInput().getType();
      if (isa<RankedTensorType>(input))
        retypeArgument(bwd.getInput(),
                       savedInputType(input, config, quantization));
      Type weight = bwd.getWeight().getType();
      if (isa<RankedTensorType>(weight))
        retypeArgument(bwd.getWeight(), savedWeightType(weight, quantization));
    }
    for (func::FuncOp func : touched)
      syncSignature(func, symbols, module);
    // Re-verify: a caller that passed a high-precision tensor where a
    // quantized one is now expected must be reported, not left behind.
    if (failed(verify(module)))
      return signalPassFailure();
  }
};

} // namespace
