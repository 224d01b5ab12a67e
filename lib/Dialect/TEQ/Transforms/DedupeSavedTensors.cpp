//===- DedupeSavedTensors.cpp - Keep each saved tensor at most once -------===//

#include "teq/Dialect/TEQ/IR/TEQOps.h"
#include "teq/Dialect/TEQ/IR/TEQDialect.h"
#include "teq/Dialect/TEQ/Transforms/Passes.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/IR/Builders.h"
#include "mlir/IR/BuiltinOps.h"
#include "llvm/ADT/MapVector.h"

#include <map>

namespace mlir::teq {
#define GEN_PASS_DEF_DEDUPESAVEDTENSORS
#include "teq/Dialect/TEQ/Transforms/Passes.h.inc"
} // namespace mlir::teq

using namespace mlir;
using namespace mlir::teq;

namespace {

int64_t bytesOf(Type type, TargetAttr target) {
  if (auto proto = dyn_cast<TensorProtoType>(type)) {
    int64_t total = 0;
    for (const auto &buffer : proto.getBuffers(target))
      total += buffer.sizeInBytes();
    return total;
  }
  auto tensor = cast<RankedTensorType>(type);
  return tensor.getNumElements() *
         ((tensor.getElementType().getIntOrFloatBitWidth() + 7) / 8);
}

std::string recipeOf(Operation *op) {
  if (auto q = op->getAttrOfType<LinearQuantizationAttr>("quantization"))
    return q.getRecipe().str();
  return "unresolved";
}

/// Bytes kept between forward and backward by the Linears of one function:
/// saved results, plus activations backward reads directly (after dedupe,
/// a high-precision input is read from the forward's operand). Weights are
/// parameters, alive anyway, and not counted.
struct SavedMemory {
  unsigned tensors = 0;
  int64_t bytes = 0;
  std::map<std::string, int64_t> perRecipe;
};

SavedMemory measure(func::FuncOp func, TargetAttr target) {
  SavedMemory memory;
  DenseSet<Value> counted;
  auto count = [&](Value v, Operation *op) {
    if (!counted.insert(v).second)
      return;
    int64_t b = bytesOf(v.getType(), target);
    ++memory.tensors;
    memory.bytes += b;
    memory.perRecipe[recipeOf(op)] += b;
  };
  // A saved value is kept if something reads it: a return (the pair form)
  // or any op, except a linear_backward that does not need it (the input
  // only feeds wgrad, the weight only dgrad).
  auto kept = [](Value saved) {
    return llvm::any_of(saved.getUses(), [&](OpOperand &use) {
      auto bwd = dyn_cast<LinearBackwardOp>(use.getOwner());
      if (!bwd)
        return true;
      LinearConfigAttr config = bwd.getConfig();
      if (use.get() == bwd.getInput() && !config.getRequiresWgrad() &&
          use.getOperandNumber() == bwd.getInputMutable().getOperandNumber())
        return false;
      if (use.get() == bwd.getWeight() && !config.getRequiresDgrad() &&
          use.getOperandNumber() == bwd.getWeightMutable().getOperandNumber())
        return false;
      return true;
    });
  };
  func.walk([&](Operation *op) {
    if (auto fwd = dyn_cast<LinearForwardOp>(op)) {
      if (Value v = fwd.getSavedInput(); v && kept(v))
        count(v, op);
      if (Value v = fwd.getSavedWeight(); v && kept(v))
        count(v, op);
    } else if (auto bwd = dyn_cast<LinearBackwardOp>(op)) {
      // Backward reading a forward's own input keeps that activation alive.
      Value in = bwd.getInput();
      if (llvm::any_of(in.getUsers(), [&](Operation *user) {
            auto fwd = dyn_cast<LinearForwardOp>(user);
            return fwd && fwd.getInput() == in;
          }))
        count(in, op);
    }
  });
  return memory;
}

void printMemory(raw_ostream &os, StringRef when, const SavedMemory &m) {
  os << "  " << when << ": " << m.tensors << " tensors, " << m.bytes
     << " bytes";
  if (!m.perRecipe.empty()) {
    os << " (";
    llvm::interleaveComma(m.perRecipe, os, [&](const auto &entry) {
      os << entry.first << ": " << entry.second;
    });
    os << ")";
  }
  os << "\n";
}

/// {tensors, bytes, per_recipe = {recipe = bytes}} as an attribute.
DictionaryAttr memoryAttr(MLIRContext *context, const SavedMemory &m) {
  Builder b(context);
  SmallVector<NamedAttribute> perRecipe;
  for (const auto &[recipe, bytes] : m.perRecipe)
    perRecipe.push_back(b.getNamedAttr(recipe, b.getI64IntegerAttr(bytes)));
  return b.getDictionaryAttr(
      {b.getNamedAttr("tensors", b.getI64IntegerAttr(m.tensors)),
       b.getNamedAttr("bytes", b.getI64IntegerAttr(m.bytes)),
       b.getNamedAttr("per_recipe", b.getDictionaryAttr(perRecipe))});
}

/// Rebuilds `fwd` without the saved results whose flag is set.
void dropSaved(LinearForwardOp fwd, bool dropInput, bool dropWeight) {
  if (!dropInput && !dropWeight)
    return;
  OpBuilder builder(fwd);
  Value savedInput = dropInput ? Value() : fwd.getSavedInput();
  Value savedWeight = dropWeight ? Value() : fwd.getSavedWeight();
  Value history = fwd.getUpdatedAmaxHistory();
  auto rebuilt = LinearForwardOp::create(
      builder, fwd.getLoc(), fwd.getOutput().getType(),
      savedInput ? savedInput.getType() : Type(),
      savedWeight ? savedWeight.getType() : Type(),
      history ? history.getType() : Type(), fwd.getInput(), fwd.getWeight(),
      fwd.getBias(), fwd.getScale(), fwd.getAmaxHistory(), fwd.getRngState(),
      fwd.getTpGroup(),
      fwd.getConfig(), fwd.getQuantizationAttr());
  rebuilt->setDiscardableAttrs(fwd->getDiscardableAttrDictionary());
  fwd.getOutput().replaceAllUsesWith(rebuilt.getOutput());
  if (savedInput)
    savedInput.replaceAllUsesWith(rebuilt.getSavedInput());
  if (savedWeight)
    savedWeight.replaceAllUsesWith(rebuilt.getSavedWeight());
  if (history)
    history.replaceAllUsesWith(rebuilt.getUpdatedAmaxHistory());
  fwd.erase();
}

/// True if every use of `v` is a Linear backward (so a rebuilt value can be
/// produced right before each of them).
bool onlyBackwardUses(Value v) {
  return llvm::all_of(v.getUsers(), [](Operation *user) {
    return isa<LinearBackwardOp>(user);
  });
}

/// Delayed-scaling tensors depend on each Linear's own scale, stochastically
/// rounded ones on its own random bits: two of them quantize the same input
/// differently, so they are never merged (nor rebuilt without that state).
bool isStateful(Type type) {
  auto proto = dyn_cast<TensorProtoType>(type);
  return proto && (proto.getQuantizer().isStateful() ||
                   proto.getQuantizer().isStochastic());
}

void dedupeFunction(func::FuncOp func) {
  // (original value, saved type) -> the saved value kept for it.
  DenseMap<std::pair<Value, Type>, Value> kept;
  SmallVector<LinearForwardOp> forwards;
  func.walk([&](LinearForwardOp op) { forwards.push_back(op); });
  // Decide first, rebuild last: `kept` holds results of ops that a rebuild
  // would erase.
  SmallVector<std::tuple<LinearForwardOp, bool, bool>> rebuilds;
  for (LinearForwardOp fwd : forwards) {
    bool dropInput = false, dropWeight = false;
    if (Value saved = fwd.getSavedInput()) {
      Value original = fwd.getInput();
      auto key = std::make_pair(original, saved.getType());
      if (saved.getType() == original.getType()) {
        saved.replaceAllUsesWith(original); // aliases the forward input
        dropInput = true;
      } else if (Value earlier = kept.lookup(key);
                 earlier && !isStateful(saved.getType())) {
        saved.replaceAllUsesWith(earlier); // saved twice
        dropInput = true;
      } else {
        kept[key] = saved;
      }
    }
    if (Value saved = fwd.getSavedWeight()) {
      Value weight = fwd.getWeight();
      auto proto = dyn_cast<TensorProtoType>(saved.getType());
      auto key = std::make_pair(weight, saved.getType());
      if (saved.getType() == weight.getType()) {
        saved.replaceAllUsesWith(weight);
        dropWeight = true;
      } else if (Value earlier = kept.lookup(key);
                 earlier && !isStateful(saved.getType())) {
        saved.replaceAllUsesWith(earlier);
        dropWeight = true;
      } else if (proto && !isStateful(proto) &&
                 !proto.getQuantizer().hasAmaxReduction() &&
                 isa<RankedTensorType>(weight.getType()) &&
                 onlyBackwardUses(saved)) {
        // Rebuild the quantized weight where backward needs it.
        for (OpOperand &use : llvm::make_early_inc_range(saved.getUses())) {
          OpBuilder builder(use.getOwner());
          auto requantized = QuantizeOp::create(
              builder, use.getOwner()->getLoc(), TypeRange{proto}, weight,
              Value(), Value(), Value(), Value());
          requantized->setAttr(TEQDialect::getRecomputeAttrName(),
                               UnitAttr::get(func.getContext()));
          use.set(requantized.getResult());
        }
        dropWeight = true;
      }
    }
    rebuilds.emplace_back(fwd, dropInput, dropWeight);
  }
  for (auto [fwd, dropInput, dropWeight] : rebuilds)
    dropSaved(fwd, dropInput, dropWeight);
}

/// Pair-of-functions form: results that are the function's own arguments
/// are removed; call sites use the argument; the mapping is recorded.
void dropArgumentResults(func::FuncOp func, ModuleOp module) {
  if (func.isExternal())
    return;
  auto ret = dyn_cast<func::ReturnOp>(func.getBody().back().getTerminator());
  if (!ret)
    return;
  SmallVector<std::pair<unsigned, unsigned>> mapping; // result -> argument
  llvm::BitVector erase(ret.getNumOperands());
  for (auto [i, v] : llvm::enumerate(ret.getOperands()))
    if (auto arg = dyn_cast<BlockArgument>(v))
      if (arg.getOwner() == &func.getBody().front() &&
          isa<TensorProtoType>(arg.getType()) == false &&
          llvm::any_of(arg.getUsers(), [](Operation *user) {
            return isa<LinearForwardOp>(user);
          })) {
        mapping.emplace_back(i, arg.getArgNumber());
        erase.set(i);
      }
  if (mapping.empty())
    return;
  std::optional<SymbolTable::UseRange> uses =
      SymbolTable::getSymbolUses(func, module);
  if (uses)
    for (SymbolTable::SymbolUse use : *uses) {
      auto call = dyn_cast<func::CallOp>(use.getUser());
      if (!call)
        return; // an unknown user: keep the signature as it is
    }
  if (uses)
    for (SymbolTable::SymbolUse use : *uses) {
      auto call = cast<func::CallOp>(use.getUser());
      for (auto [result, arg] : mapping)
        call.getResult(result).replaceAllUsesWith(call.getOperand(arg));
      OpBuilder builder(call);
      SmallVector<Type> types;
      for (auto [i, t] : llvm::enumerate(call.getResultTypes()))
        if (!erase.test(i))
          types.push_back(t);
      auto newCall = func::CallOp::create(builder, call.getLoc(),
                                          call.getCallee(), types,
                                          call.getOperands());
      unsigned next = 0;
      for (auto [i, r] : llvm::enumerate(call.getResults()))
        if (!erase.test(i))
          r.replaceAllUsesWith(newCall.getResult(next++));
      call.erase();
    }
  ret->eraseOperands(erase);
  if (failed(func.eraseResults(erase)))
    return;
  Builder b(func.getContext());
  SmallVector<Attribute> pairs;
  for (auto [result, arg] : mapping)
    pairs.push_back(b.getDenseI64ArrayAttr(
        {static_cast<int64_t>(result), static_cast<int64_t>(arg)}));
  func->setAttr(TEQDialect::getSavedFromArgsAttrName(), b.getArrayAttr(pairs));
}

struct DedupeSavedTensorsPass
    : public mlir::teq::impl::DedupeSavedTensorsBase<DedupeSavedTensorsPass> {
  using Base::Base;

  void runOnOperation() override {
    ModuleOp module = getOperation();
    TargetAttr target = TargetAttr::lookup(module);
    bool report = printSavedMemory || recordSavedMemory;
    if (report && !target) {
      module.emitError() << (printSavedMemory ? "print" : "record")
                         << "-saved-memory needs a #teq.target on the "
                            "module: quantized sizes depend on the GPU";
      return signalPassFailure();
    }
    SmallVector<func::FuncOp> funcs(module.getOps<func::FuncOp>());
    std::vector<SavedMemory> before;
    if (report)
      for (func::FuncOp f : funcs)
        before.push_back(measure(f, target));
    for (func::FuncOp f : funcs)
      dedupeFunction(f);
    for (func::FuncOp f : funcs)
      dropArgumentResults(f, module);
    if (!report)
      return;
    for (auto [f, b] : llvm::zip(funcs, before)) {
      if (b.tensors == 0)
        continue;
      SavedMemory after = measure(f, target);
      if (recordSavedMemory) {
        MLIRContext *context = f.getContext();
        f->setAttr(TEQDialect::getSavedMemoryAttrName(),
                   DictionaryAttr::get(
                       context, {NamedAttribute(StringAttr::get(context, "before"),
                                                memoryAttr(context, b)),
                                 NamedAttribute(StringAttr::get(context, "after"),
                                                memoryAttr(context, after))}));
      }
      if (!printSavedMemory)
        continue;
      llvm::outs() << "saved memory of @" << f.getSymName() << " on "
                   << target.getChip() << ":\n";
      printMemory(llvm::outs(), "before dedupe", b);
      printMemory(llvm::outs(), "after dedupe", after);
    }
  }
};

} // namespace
