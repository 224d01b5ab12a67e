//===- CacheWeightQuantization.cpp - Quantize weights once per step -------===//
//
// TE's is_first_microbatch (te-layer-semantics.md §5): under gradient
// accumulation a weight is quantized on the first microbatch and its copies
// reused by the others. Here that is two entries cut out of a forward marked
// teq.weight_cache: @f_weights runs the forward's quantizations of its
// parameters, @f_cached is the forward taking their results as arguments.
// Cutting after DecomposeLinear keeps one source of truth for what a weight
// is quantized to (usages, scale layout after LegalizeGemmOperands).
//
//===----------------------------------------------------------------------===//

#include "teq/Dialect/TEQ/IR/TEQDialect.h"
#include "teq/Dialect/TEQ/IR/TEQOps.h"
#include "teq/Dialect/TEQ/IR/TEQRoles.h"
#include "teq/Dialect/TEQ/Transforms/Passes.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/IR/Builders.h"
#include "mlir/IR/IRMapping.h"
#include "mlir/IR/SymbolTable.h"
#include "llvm/ADT/SmallString.h"

namespace mlir::teq {
#define GEN_PASS_DEF_CACHEWEIGHTQUANTIZATION
#include "teq/Dialect/TEQ/Transforms/Passes.h.inc"
} // namespace mlir::teq

using namespace mlir;
using namespace mlir::teq;

namespace {

/// One value the cache keeps: a quantization of a parameter, or the
/// GEMM-swizzled scales of one.
struct CachedValue {
  unsigned param; ///< Argument index in @f.
  Value value;    ///< In @f.
};

std::string argumentName(func::FuncOp f, unsigned i) {
  if (auto name = f.getArgAttrOfType<StringAttr>(
          i, TEQDialect::getNameAttrName()))
    return name.getValue().str();
  return "arg" + std::to_string(i);
}

bool isParameter(func::FuncOp f, unsigned i) {
  auto role = f.getArgAttrOfType<StringAttr>(i, getRoleAttrName());
  return role && role.getValue() == "parameter";
}

/// The values of `f` to cache, in program order; errors at a quantization
/// of a parameter that reads more than the parameter.
FailureOr<SmallVector<CachedValue>> findCachedValues(func::FuncOp f) {
  SmallVector<CachedValue> cached;
  bool failed = false;
  f.walk([&](QuantizeOp q) {
    auto param = dyn_cast<BlockArgument>(q.getInput());
    if (!param || param.getOwner()->getParentOp() != f ||
        !isParameter(f, param.getArgNumber()))
      return;
    const char *reads = q.getScale()            ? "delayed-scaling state (its "
                                                  "scale moves every step)"
                        : q.getRngState()       ? "an RNG state (stochastic "
                                                  "rounding draws new bits "
                                                  "each call)"
                        : q.getAmaxReductionGroup() ? "a process group (its "
                                                      "amax is reduced over "
                                                      "ranks)"
                                                    : nullptr;
    if (reads) {
      q.emitError() << "teq.weight_cache: the quantization of parameter '"
                    << argumentName(f, param.getArgNumber()) << "' reads "
                    << reads << "; a cached copy cannot follow it";
      failed = true;
      return;
    }
    // The swizzled scales a GEMM reads are cached swizzled; the
    // quantization itself only where something else reads it.
    bool otherUsers = false;
    for (Operation *user : q.getResult().getUsers()) {
      if (auto swizzle = dyn_cast<SwizzleScalesOp>(user))
        cached.push_back({param.getArgNumber(), swizzle.getResult()});
      else
        otherUsers = true;
    }
    if (otherUsers)
      cached.push_back({param.getArgNumber(), q.getResult()});
  });
  if (failed)
    return failure();
  return cached;
}

/// The name of cached value `index` of `param`: "<param>.quantized", with
/// the index where the parameter has several.
std::string cachedName(func::FuncOp f, ArrayRef<CachedValue> cached,
                       size_t index) {
  unsigned param = cached[index].param;
  size_t ofParam = 0, position = 0;
  for (size_t i = 0; i < cached.size(); ++i)
    if (cached[i].param == param) {
      if (i == index)
        position = ofParam;
      ++ofParam;
    }
  std::string name = argumentName(f, param) + ".quantized";
  if (ofParam > 1)
    name += std::to_string(position);
  return name;
}

DictionaryAttr cachedAttrs(Builder &b, func::FuncOp f,
                           ArrayRef<CachedValue> cached, size_t index) {
  return b.getDictionaryAttr(
      {b.getNamedAttr(TEQDialect::getNameAttrName(),
                      b.getStringAttr(cachedName(f, cached, index))),
       b.getNamedAttr(getRoleAttrName(), b.getStringAttr("quantized_weight")),
       b.getNamedAttr(getRoleOfAttrName(),
                      b.getStringAttr(argumentName(f, cached[index].param)))});
}

/// @f_weights: the parameters in, the cached values out, computed by
/// clones of @f's ops that compute them.
void buildWeightsEntry(OpBuilder &b, func::FuncOp f,
                       ArrayRef<CachedValue> cached, StringRef name) {
  SmallVector<unsigned> params;
  for (const CachedValue &c : cached)
    if (!llvm::is_contained(params, c.param))
      params.push_back(c.param);
  SmallVector<Type> argTypes, resultTypes;
  for (unsigned p : params)
    argTypes.push_back(f.getArgument(p).getType());
  for (const CachedValue &c : cached)
    resultTypes.push_back(c.value.getType());
  auto weights = func::FuncOp::create(b, f.getLoc(), name,
                                      b.getFunctionType(argTypes, resultTypes));
  for (auto [i, p] : llvm::enumerate(params))
    weights.setArgAttrs(i, f.getArgAttrDict(p));
  for (size_t i = 0; i < cached.size(); ++i)
    weights.setResultAttrs(i, cachedAttrs(b, f, cached, i));

  OpBuilder body = OpBuilder::atBlockBegin(weights.addEntryBlock());
  IRMapping mapping;
  for (auto [i, p] : llvm::enumerate(params))
    mapping.map(f.getArgument(p), weights.getArgument(i));
  SmallVector<Value> results;
  for (const CachedValue &c : cached) {
    // A quantization, or a swizzle of one: clone what is not cloned yet.
    Operation *def = c.value.getDefiningOp();
    if (auto swizzle = dyn_cast<SwizzleScalesOp>(def))
      if (!mapping.contains(swizzle.getInput()))
        body.clone(*swizzle.getInput().getDefiningOp(), mapping);
    if (!mapping.contains(c.value))
      body.clone(*def, mapping);
    results.push_back(mapping.lookup(c.value));
  }
  func::ReturnOp::create(body, f.getLoc(), results);
}

/// @f_cached: a clone of @f taking the cached values as arguments, each
/// after its parameter; a parameter nothing reads any more is dropped.
void buildCachedEntry(OpBuilder &b, func::FuncOp f,
                      ArrayRef<CachedValue> cached, StringRef name) {
  IRMapping mapping;
  auto clone = cast<func::FuncOp>(b.clone(*f, mapping));
  clone.setSymName(name);
  clone->removeAttr(TEQDialect::getWeightCacheAttrName());
  // Each cached value right after its parameter and the values of that
  // parameter inserted before it.
  SmallVector<unsigned> inserted(f.getNumArguments(), 0);
  SmallVector<BlockArgument> cachedArgs;
  for (size_t i = 0; i < cached.size(); ++i) {
    unsigned param = cached[i].param;
    unsigned index = param + 1;
    for (unsigned p = 0; p <= param; ++p)
      index += inserted[p];
    Value value = mapping.lookup(cached[i].value);
    (void)clone.insertArgument(index, value.getType(),
                               cachedAttrs(b, f, cached, i), value.getLoc());
    ++inserted[param];
    cachedArgs.push_back(clone.getArgument(index));
  }
  // The cached values are arguments now: what computed them goes (a
  // swizzle first, then the quantization it read once nothing else does).
  SmallVector<Operation *> swizzles, quantizations;
  for (size_t i = 0; i < cached.size(); ++i) {
    Value value = mapping.lookup(cached[i].value);
    value.replaceAllUsesWith(cachedArgs[i]);
    Operation *def = value.getDefiningOp();
    if (auto swizzle = dyn_cast<SwizzleScalesOp>(def)) {
      swizzles.push_back(def);
      def = swizzle.getInput().getDefiningOp();
    }
    if (!llvm::is_contained(quantizations, def))
      quantizations.push_back(def);
  }
  for (Operation *op : swizzles)
    op->erase();
  for (Operation *op : quantizations)
    if (op->use_empty())
      op->erase();
  // Parameters nothing reads: gone from the signature.
  llvm::BitVector unused(clone.getNumArguments());
  for (BlockArgument arg : clone.getArguments())
    if (arg.use_empty() && isParameter(clone, arg.getArgNumber()))
      unused.set(arg.getArgNumber());
  // teq.saved_from_args pairs name argument indices: renumber them.
  if (auto pairs = clone->getAttrOfType<ArrayAttr>(
          TEQDialect::getSavedFromArgsAttrName())) {
    SmallVector<Attribute> renumbered;
    for (Attribute a : pairs) {
      auto pair = cast<DenseI64ArrayAttr>(a);
      // Indices into @f: past the insertions, then past the erasures.
      unsigned arg = static_cast<unsigned>(pair[1]);
      unsigned shifted = arg;
      for (unsigned p = 0; p < arg; ++p)
        shifted += inserted[p];
      if (unused.test(shifted))
        continue;
      unsigned erasedBefore = 0;
      for (unsigned k = 0; k < shifted; ++k)
        erasedBefore += unused.test(k);
      renumbered.push_back(b.getDenseI64ArrayAttr(
          {pair[0], static_cast<int64_t>(shifted - erasedBefore)}));
    }
    clone->setAttr(TEQDialect::getSavedFromArgsAttrName(),
                   b.getArrayAttr(renumbered));
  }
  (void)clone.eraseArguments(unused);
}

struct CacheWeightQuantizationPass
    : teq::impl::CacheWeightQuantizationBase<CacheWeightQuantizationPass> {
  void runOnOperation() override {
    ModuleOp module = getOperation();
    SmallVector<func::FuncOp> marked;
    for (auto f : module.getOps<func::FuncOp>())
      if (f->hasAttr(TEQDialect::getWeightCacheAttrName()))
        marked.push_back(f);
    SymbolTable symbols(module);
    for (func::FuncOp f : marked) {
      if (failed(cache(f, symbols)))
        return signalPassFailure();
    }
  }

  LogicalResult cache(func::FuncOp f, SymbolTable &symbols) {
    f->removeAttr(TEQDialect::getWeightCacheAttrName());
    std::string weightsName = (f.getSymName() + "_weights").str();
    std::string cachedName = (f.getSymName() + "_cached").str();
    for (const std::string &name : {weightsName, cachedName})
      if (symbols.lookup(name))
        return f.emitError() << "teq.weight_cache: the module already has a @"
                             << name << ", the name of the entry it adds";
    bool anyParameter = false;
    for (unsigned i = 0; i < f.getNumArguments(); ++i)
      anyParameter |= isParameter(f, i);
    if (!anyParameter)
      return f.emitError()
             << "teq.weight_cache: no argument is a parameter (teq.role = "
                "\"parameter\"): the cache keeps the quantized copies of "
                "parameters";
    auto cached = findCachedValues(f);
    if (failed(cached))
      return failure();
    if (cached->empty())
      return f.emitError() << "teq.weight_cache: @" << f.getSymName()
                           << " quantizes no parameter: there is nothing to "
                              "cache";
    OpBuilder b(f->getContext());
    b.setInsertionPointAfter(f);
    buildWeightsEntry(b, f, *cached, weightsName);
    buildCachedEntry(b, f, *cached, cachedName);
    return success();
  }
};

} // namespace
