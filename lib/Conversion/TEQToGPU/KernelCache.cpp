//===- KernelCache.cpp - Each distinct kernel once per module -------------===//

#include "KernelCache.h"

#include "mlir/IR/SymbolTable.h"

using namespace mlir;
using namespace mlir::teq;
using namespace mlir::teq::lowering;

namespace {

/// The prefix of every symbol of a scratch module. Emitters append their
/// suffixes to the prefix they are given, so a name minus this prefix is
/// the suffix.
constexpr llvm::StringLiteral kPlaceholder = "kernel_group";

/// A hash of the ops of `scratch` that is the same for structurally equal
/// modules (values by position, not identity; locations differ between
/// groups emitted for different ops and do not count).
llvm::hash_code structuralHash(gpu::GPUModuleOp scratch) {
  llvm::hash_code hash = llvm::hash_value(0);
  scratch.getBody()->walk([&](Operation *op) {
    hash = llvm::hash_combine(
        hash, OperationEquivalence::computeHash(
                  op, OperationEquivalence::ignoreHashValue,
                  OperationEquivalence::ignoreHashValue,
                  OperationEquivalence::IgnoreLocations));
  });
  return hash;
}

} // namespace

kernels::KernelGroup KernelCache::emit(ImplicitLocOpBuilder &b,
                                       StringRef letter, Emitter emitGroup) {
  OpBuilder detached(module.getContext());
  OwningOpRef<gpu::GPUModuleOp> scratch =
      gpu::GPUModuleOp::create(detached, b.getLoc(), "scratch");
  kernels::KernelGroup launches =
      emitGroup(kernels::EmitContext{b, *scratch, kPlaceholder});
  llvm::hash_code hash = structuralHash(*scratch);

  auto rename = [&](kernels::KernelLaunch &k, StringRef prefix) {
    assert(StringRef(k.kernel).starts_with(kPlaceholder) &&
           "emitters name kernels after the prefix they are given");
    k.kernel = (prefix + StringRef(k.kernel).drop_front(kPlaceholder.size()))
                   .str();
  };
  SmallVector<Group, 1> &candidates = groups[hash];
  for (Group &group : candidates)
    if (OperationEquivalence::isRegionEquivalentTo(
            &group.scratch->getBodyRegion(), &scratch->getBodyRegion(),
            OperationEquivalence::IgnoreLocations)) {
      for (kernels::KernelLaunch &k : launches)
        rename(k, group.prefix);
      return launches;
    }

  // A new group: a copy of the scratch, renamed, enters the module; the
  // scratch stays as the group's pattern.
  std::string prefix = (letter + std::to_string(counter++)).str();
  OwningOpRef<gpu::GPUModuleOp> copy = scratch->clone();
  for (Operation &op : *copy->getBody()) {
    auto name = op.getAttrOfType<StringAttr>(SymbolTable::getSymbolAttrName());
    if (!name)
      continue;
    auto renamed = StringAttr::get(
        module.getContext(),
        prefix + name.getValue().drop_front(kPlaceholder.size()));
    if (failed(SymbolTable::replaceAllSymbolUses(&op, renamed, *copy)))
      llvm_unreachable("kernel symbols are used by their own group only");
    SymbolTable::setSymbolName(&op, renamed);
  }
  Block *body = module.getBody();
  for (Operation &op : llvm::make_early_inc_range(*copy->getBody()))
    op.moveBefore(body, body->end());
  for (kernels::KernelLaunch &k : launches)
    rename(k, prefix);
  candidates.push_back({std::move(scratch), prefix});
  return launches;
}
