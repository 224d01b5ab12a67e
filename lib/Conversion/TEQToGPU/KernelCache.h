//===- KernelCache.h - Each distinct kernel once per module ----*- C++ -*-===//
//
// A model repeats itself: 24 identical layers quantize tensors of the same
// shapes with the same quantizers, so their kernels are the same kernels.
// The cache emits each kernel group (what one emitter call builds: kernels
// and the device globals they share) into a scratch module first, under a
// placeholder prefix; if an earlier group is structurally identical
// (OperationEquivalence), its kernels are launched again and the scratch is
// dropped, else the group enters the kernel module under a fresh prefix.
// Sharing globals is safe: an entry's launches run in order on one stream,
// so one group's launches finish with its globals before the next begin,
// and concurrent calls each have their own module instance
// (docs/Artifact.md).
//
//===----------------------------------------------------------------------===//

#ifndef TEQ_LIB_CONVERSION_TEQTOGPU_KERNELCACHE_H
#define TEQ_LIB_CONVERSION_TEQTOGPU_KERNELCACHE_H

#include "Kernels/KernelBuilder.h"

#include "mlir/IR/OwningOpRef.h"
#include "llvm/ADT/DenseMap.h"

namespace mlir::teq::lowering {

class KernelCache {
public:
  explicit KernelCache(gpu::GPUModuleOp module) : module(module) {}

  /// Builds a kernel group into the context's module, naming every symbol
  /// the context's prefix + a suffix of the emitter's; returns its launches.
  using Emitter =
      llvm::function_ref<kernels::KernelGroup(const kernels::EmitContext &)>;

  /// The launches of `emit`'s group, built with `b` (at the op's location):
  /// an identical group emitted before, or a new one named `letter`<n>...
  kernels::KernelGroup emit(ImplicitLocOpBuilder &b, llvm::StringRef letter,
                            Emitter emit);

  gpu::GPUModuleOp getModule() const { return module; }

private:
  struct Group {
    OwningOpRef<gpu::GPUModuleOp> scratch; ///< Under the placeholder prefix.
    std::string prefix;                    ///< Its prefix in the module.
  };
  gpu::GPUModuleOp module;
  int counter = 0;
  /// Groups by a structural hash of their scratch module.
  llvm::DenseMap<llvm::hash_code, llvm::SmallVector<Group, 1>> groups;
};

} // namespace mlir::teq::lowering

#endif // TEQ_LIB_CONVERSION_TEQTOGPU_KERNELCACHE_H
