//===- LoweringContext.h - What every op family's lowering shares -*- C++ -*-===//
//
// The state of one entry being lowered, shared by the op families'
// lowerings (OpLowering.h): where each value lives (its memrefs, an op's
// scratch, a group's index), the builder at the end of the lowered body,
// the stream token the launches are chained on, the module's kernel cache
// and the manifest. It also holds the few primitives several families need
// — launching a kernel group, copying a buffer, calling the runtime — so
// the families call only this context and their emitters, never each other.
//
//===----------------------------------------------------------------------===//

#ifndef TEQ_LIB_CONVERSION_TEQTOGPU_LOWERINGCONTEXT_H
#define TEQ_LIB_CONVERSION_TEQTOGPU_LOWERINGCONTEXT_H

#include "EntryBuffers.h"
#include "KernelCache.h"
#include "Kernels/KernelBuilder.h"
#include "ManifestWriter.h"

#include "teq/Artifact/RuntimeCalls.h"

#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/IR/Builders.h"

namespace mlir::teq::lowering {

/// The gpu.module holding every kernel of the artifact.
constexpr llvm::StringLiteral kKernelModule = "teq_kernels";

/// What a kernel group does. Its kernels are named `<letter><n><suffix>`,
/// n counting every group of the module, so the letter only tells a reader
/// of the PTX what a kernel is for (slices and scale swizzles share 's', as
/// in artifacts compiled before the letters had names).
enum class KernelKind {
  Quantize,      ///< q: teq.quantize
  ScalingUpdate, ///< u: teq.delayed_scaling_update
  ScaleSwizzle,  ///< s: teq.swizzle_scales
  Slice,         ///< s: tensor.extract_slice / insert_slice
  Transpose,     ///< t: a derived per-tensor FP8 usage
  Elementwise,   ///< e: a cluster of elementwise ops
  BiasGrad,      ///< b: teq.bias_grad
  Copy,          ///< c: a buffer copied
  GemmAlpha,     ///< g: an NVFP4 GEMM's device alpha
  Dequantize,    ///< d: teq.dequantize
  Norm,          ///< n: teq.layer_norm, teq.rms_norm, their backwards
};
llvm::StringRef kernelKindLetter(KernelKind kind);

/// Work run between two launches of one kernel group: after the launch of
/// stage `after` (KernelLaunch::stage), before the next.
struct LaunchHook {
  llvm::StringRef after;
  llvm::function_ref<void()> run;
};

class LoweringContext {
public:
  LoweringContext(func::FuncOp entry, TargetAttr target, const EntryPlan &plan,
                  KernelCache &kernelCache, ManifestWriter &manifest,
                  OpBuilder &builder)
      : entry(entry), target(target), plan(plan), kernelCache(kernelCache),
        manifest(manifest), b(builder) {}

  func::FuncOp getEntry() const { return entry; }
  TargetAttr getTarget() const { return target; }
  const EntryPlan &getPlan() const { return plan; }
  /// The builder at the end of the lowered entry's body.
  OpBuilder &builder() { return b; }

  //===--- Where values live ----------------------------------------------===//

  /// The memrefs of `v`, in layout order (empty for a value without any).
  llvm::ArrayRef<Value> buffers(Value v) const;
  /// The only (or first) memref of `v`.
  Value buffer(Value v) const { return buffers(v).front(); }
  /// Buffer `name` (TE's) of the quantized value `v`.
  Value namedBuffer(Value v, llvm::StringRef name) const;
  /// The quantized value `v`'s buffers by TE name, with their layouts.
  llvm::StringMap<NamedBuffer> namedBuffers(Value v) const;
  /// Sets `v`'s memrefs (a result's, a temporary's view, an alias).
  llvm::SmallVector<Value> &buffersOf(Value v) { return buffersOfValue[v]; }
  bool hasBuffers(Value v) const { return buffersOfValue.count(v); }
  /// The workspace scratch of `op` (EntryPlan::scratch), or null.
  Value scratch(Operation *op) const { return scratchOf.lookup(op); }
  /// The index of a !teq.process_group argument among the entry's groups
  /// (the `group` of the runtime's collectives).
  int64_t groupIndex(Value group) const { return groupIndexOf.lookup(group); }
  void setGroupIndex(Value group, int64_t index) {
    groupIndexOf[group] = index;
  }
  void setScratch(Operation *op, Value memref) { scratchOf[op] = memref; }
  /// A GEMM's artifact-wide id (its index in the manifest's "gemms") and
  /// its cuBLASLt problem.
  void setGemm(GemmOp op, int64_t id, const gemm::GemmDescriptor &desc);
  int64_t gemmId(GemmOp op) const;
  const gemm::GemmDescriptor &gemmDescriptor(GemmOp op) const;

  //===--- Launching ------------------------------------------------------===//

  /// Launches the kernel group `emit` builds, after everything enqueued so
  /// far: the kernel cache names it (`kind`'s letter and a count) or reuses
  /// an identical group. Each hook runs after the launch of its stage; a
  /// hook whose stage the group lacks is a bug of the caller.
  void launchKernels(Location loc, KernelKind kind, KernelCache::Emitter emit,
                     llvm::ArrayRef<LaunchHook> hooks = {});
  /// Copies `source` into `dest` (one type and size) with a copy kernel.
  void copyBuffer(Location loc, Value source, Value dest);
  /// Copies `value`'s buffers into `destination` (a result's buffers, in
  /// layout order; a view's are a named subset of its input's, in order).
  void copyInto(Location loc, Value value, llvm::ArrayRef<Value> destination);

  //===--- Runtime calls (teq/Artifact/RuntimeCalls.h) --------------------===//

  /// The device address of `memref`'s data as an i64; 0 for a null memref.
  Value devicePointer(Location loc, Value memref);
  /// Calls the runtime function `callee`, declared in the module (once)
  /// with `args`' types. The call runs on the entry's stream, after
  /// everything enqueued before it.
  void callRuntime(Location loc, llvm::StringRef callee, ValueRange args);
  /// teqAllReduce (max) over `group` of `count` f32 amaxes from `send`
  /// into `recv` (in place where they are one buffer).
  void allReduceAmax(Location loc, Value group, Value send, Value recv,
                     int64_t count = 1);

  /// The stream token of the last launch (the entry's end waits on it).
  Value getToken() const { return token; }
  void setToken(Value t) { token = t; }

private:
  void launch(Location loc, const kernels::KernelLaunch &k);

  func::FuncOp entry;
  TargetAttr target;
  const EntryPlan &plan;
  /// The module's kernels, each distinct one emitted once.
  KernelCache &kernelCache;
  ManifestWriter &manifest;
  OpBuilder &b;
  Value token;
  DenseMap<Operation *, std::pair<int64_t, const gemm::GemmDescriptor *>>
      gemms;
  DenseMap<Operation *, Value> scratchOf;
  DenseMap<Value, int64_t> groupIndexOf;
  DenseMap<Value, SmallVector<Value>> buffersOfValue;
};

} // namespace mlir::teq::lowering

#endif // TEQ_LIB_CONVERSION_TEQTOGPU_LOWERINGCONTEXT_H
