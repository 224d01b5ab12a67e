//===- EntryLowering.h - One teq entry function to launches ----*- C++ -*-===//
//
// convert-teq-to-gpu lowers each public function of the module (an entry)
// to a function of memrefs, one per buffer (docs/Artifact.md), whose body
// enqueues on one stream, in program order, the kernels the emitters of
// Kernels/ build into the module's gpu.module and the teqGemm calls of its
// GEMMs. The work is split by job:
//   EntryBuffers    where each value lives (caller buffers, workspace plan)
//   KernelLowering  teq ops to kernel launches
//   GemmLowering    teq.gemm to teqGemm calls
//   ManifestWriter  the artifact manifest
//   EntryLowering   the driver of one entry (this class's run()).
//
//===----------------------------------------------------------------------===//

#ifndef TEQ_LIB_CONVERSION_TEQTOGPU_ENTRYLOWERING_H
#define TEQ_LIB_CONVERSION_TEQTOGPU_ENTRYLOWERING_H

#include "EntryBuffers.h"
#include "KernelCache.h"
#include "Kernels/KernelBuilder.h"
#include "ManifestWriter.h"

#include "teq/Artifact/RuntimeCalls.h"

#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/IR/Builders.h"

namespace mlir::teq::lowering {

/// The device address of `memref`'s data as an i64 (a runtime call's
/// pointer argument); 0 for a null memref.
Value devicePointer(OpBuilder &b, Location loc, Value memref);

/// The gpu.module holding every kernel of the artifact.
constexpr llvm::StringLiteral kKernelModule = "teq_kernels";
// The runtime functions the host code calls (teq/Artifact/RuntimeCalls.h).
using artifact::kAllGatherFunction;
using artifact::kAllReduceFunction;
using artifact::kGemmFunction;
using artifact::kGemmFunctionArgs;
using artifact::kReduceScatterFunction;

class EntryLowering {
public:
  EntryLowering(func::FuncOp func, TargetAttr target,
                KernelCache &kernelCache, ManifestWriter &manifest)
      : func(func), target(target), kernelCache(kernelCache),
        manifest(manifest) {}

  /// Replaces the entry by its lowered form and adds it to the manifest.
  LogicalResult run();

private:
  // KernelLowering.cpp
  LogicalResult lowerQuantize(OpBuilder &b, QuantizeOp op,
                              ArrayRef<Value> outputs, Value updatedHistory,
                              Value &token);
  LogicalResult lowerBlockQuantize(OpBuilder &b, QuantizeOp op,
                                   ArrayRef<Value> outputs, Value &token);
  LogicalResult lowerMXFP8Quantize(OpBuilder &b, QuantizeOp op,
                                   ArrayRef<Value> outputs, Value &token);
  LogicalResult lowerNVFP4Quantize(OpBuilder &b, QuantizeOp op,
                                   ArrayRef<Value> outputs, Value &token);
  void lowerUpdate(OpBuilder &b, DelayedScalingUpdateOp op, Value &token);
  /// Copies `value`'s buffers into `destination` (a result's buffers).
  void copyInto(OpBuilder &b, Value value, ArrayRef<Value> destination,
                Value &token);
  void copyBuffer(OpBuilder &b, Location loc, Value source, Value dest,
                  Value &token);
  /// A usage view shares its input's buffers of the same name.
  void aliasUsageView(UpdateUsageOp view);
  /// A view deriving per-tensor FP8's transposed copy: the rowwise data
  /// transposed into it, the other buffers copied.
  void lowerDerivedUsage(OpBuilder &b, UpdateUsageOp view, Value &token);
  /// The swizzled scales, written by the swizzle kernel; the data and amax
  /// buffers are the input's (copied only into an entry result's buffers).
  void lowerSwizzleScales(OpBuilder &b, SwizzleScalesOp op, Value &token);
  /// extract_slice: a gather into the result; insert_slice: a copy of the
  /// destination, then a scatter of the source (both results are new
  /// buffers, so the operands stay intact).
  void lowerSlice(OpBuilder &b, Operation &op, Value &token);
  /// One grid-stride kernel computing a cluster of elementwise ops.
  void lowerElementwise(OpBuilder &b, const ElementwiseCluster &cluster,
                        Value &token);
  /// Column sums in two ordered passes through scratch partials.
  void lowerBiasGrad(OpBuilder &b, BiasGradOp op, Value &token);
  /// Launches what a kernel emitter asked for, after `token`.
  void launch(OpBuilder &b, Location loc, const kernels::KernelLaunch &k,
              Value &token);
  /// Builds a kernel group into `into` under `prefix` (KernelCache.h).
  using GroupEmitter = llvm::function_ref<llvm::SmallVector<
      kernels::KernelLaunch>(ImplicitLocOpBuilder &b, gpu::GPUModuleOp into,
                             llvm::StringRef prefix)>;
  using KernelEmitter = llvm::function_ref<kernels::KernelLaunch(
      ImplicitLocOpBuilder &b, gpu::GPUModuleOp into, llvm::StringRef prefix)>;
  /// Launches the group `emit` builds, after `token`: its kernels are
  /// emitted under a new prefix `letter`<n> unless an identical group was
  /// emitted before in the module.
  void launchGroup(OpBuilder &b, Location loc, llvm::StringRef letter,
                   GroupEmitter emit, Value &token);
  /// The same for an emitter of one kernel.
  void launchKernel(OpBuilder &b, Location loc, llvm::StringRef letter,
                    KernelEmitter emit, Value &token);

  // GemmLowering.cpp
  /// One teqGemm call (docs/Artifact.md) on the runtime's stream.
  void lowerGemm(OpBuilder &b, GemmOp op, const gemm::GemmDescriptor &desc,
                 Value &token);
  // CollectiveLowering.cpp
  /// One teqAllGather / teqReduceScatter / teqAllReduce call on the
  /// runtime's stream (a quantized all-gather also copies its scales).
  void lowerCollective(OpBuilder &b, Operation &op, Value &token);
  /// teqAllReduce (max) over `group` of `count` f32 amaxes from `send` into
  /// `recv` (in place where they are one buffer).
  void lowerAmaxReduction(OpBuilder &b, Location loc, Value group, Value send,
                          Value recv, int64_t count = 1);

  /// Launches the kernel computing an NVFP4 GEMM's alpha; returns its buffer.
  Value lowerNVFP4Alpha(OpBuilder &b, GemmOp op,
                        const gemm::GemmDescriptor &desc, Value &token);

  /// Buffer `name` (TE's) of the quantized value `v`.
  Value namedBuffer(Value v, StringRef name) {
    return buffersByName(cast<TensorProtoType>(v.getType()), target,
                         buffersOfValue.lookup(v))
        .lookup(name)
        .value;
  }

  func::FuncOp func;
  TargetAttr target;
  /// The module's kernels, each distinct one emitted once.
  KernelCache &kernelCache;
  ManifestWriter &manifest;
  /// Artifact-wide GEMM ids (indices of the manifest's "gemms").
  DenseMap<Operation *, int64_t> gemmIds;
  /// Workspace scratch of one op (EntryPlan::scratch).
  DenseMap<Operation *, Value> scratchOf;
  /// The index of each !teq.process_group argument among the entry's groups
  /// (EntryPlan::groups; the `group` of the runtime's collectives).
  DenseMap<Value, int64_t> groupIndexOf;
  /// The memrefs of each value of the entry, in layout order.
  DenseMap<Value, SmallVector<Value>> buffersOfValue;
};

} // namespace mlir::teq::lowering

#endif // TEQ_LIB_CONVERSION_TEQTOGPU_ENTRYLOWERING_H
