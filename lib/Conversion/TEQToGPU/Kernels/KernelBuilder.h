//===- KernelBuilder.h - Shared pieces of the kernel emitters --*- C++ -*-===//
//
// Kernel emitters build `gpu.func` kernels with IR builders and return the
// launches they need, so the lowering never spells a kernel's name, grid or
// argument order a second time. This header holds what emitters share:
// creating a kernel, thread ids, and index arithmetic of TE's layouts.
//
//===----------------------------------------------------------------------===//

#ifndef TEQ_LIB_CONVERSION_TEQTOGPU_KERNELS_KERNELBUILDER_H
#define TEQ_LIB_CONVERSION_TEQTOGPU_KERNELS_KERNELBUILDER_H

#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/IR/ImplicitLocOpBuilder.h"

#include "llvm/ADT/SmallVector.h"

#include <string>

namespace mlir::teq::kernels {

/// Threads per block of the quantize kernels.
constexpr int64_t kBlockSize = 256;

/// Element type of a kernel's high-precision input.
enum class InputType { F32, BF16, F16 };
int64_t bytesOf(InputType type);
/// The InputType of an f32 or f16 element type; bf16 for any other.
InputType inputTypeOf(Type element);
Type elementTypeOf(Builder &b, InputType type);

/// One `gpu.launch_func` an emitter asks for: the kernel (a symbol of the
/// kernel module), its 2-D grid of 1-D blocks, dynamic shared memory, and the
/// caller's values in the kernel's argument order.
struct KernelLaunch {
  std::string kernel;
  int64_t gridX = 1;
  int64_t gridY = 1;
  int64_t blockX = 256;
  int64_t sharedBytes = 0;
  llvm::SmallVector<Value> args;
  /// Launched as a programmatic dependent of the launch before it (CUDA's
  /// programmatic stream serialization; the manifest's
  /// "dependent_launch_kernels"): the kernel waits for it with
  /// griddepcontrol.wait.
  bool dependentLaunch = false;
  /// The launch's name within its group: its kernel's suffix (the name
  /// after the group's prefix, e.g. "_amax_out"). The lowering runs hooks
  /// between launches by stage (LaunchHook), never by position.
  llvm::StringRef stage;
};

/// What one emitter call builds, in stream order: a kernel group (its
/// kernels and the device globals they share).
using KernelGroup = llvm::SmallVector<KernelLaunch, 2>;

/// Where every emitter builds its group (as XLA's emitters share one
/// context): a builder at the op's location, the module the kernels go into
/// (a scratch module of the lowering's kernel cache) and the prefix every
/// symbol of the group starts with. The cache picks the prefix and renames
/// the group; an emitter only appends its suffixes. Every emitter is
///   KernelGroup emit<Family>(const EmitContext &, const <Family>Spec &,
///                            const <Family>Buffers &)
/// (without a spec where nothing but the buffers varies).
struct EmitContext {
  ImplicitLocOpBuilder &b;
  gpu::GPUModuleOp module;
  llvm::StringRef prefix;

  /// `prefix` + `suffix`: the name of a kernel or global of the group.
  std::string symbol(llvm::StringRef suffix) const {
    return (prefix + suffix).str();
  }
  /// A launch of kernel `prefix` + `suffix`, its stage `suffix` (a string
  /// literal: stages outlive the emitter).
  KernelLaunch launchOf(llvm::StringLiteral suffix) const {
    KernelLaunch launch;
    launch.kernel = symbol(suffix);
    launch.stage = suffix;
    return launch;
  }
};

/// A new kernel `name` in `module` taking `args`' types, with the known
/// block size (blockX, 1, 1) set so index arithmetic narrows. Its entry
/// block (with the arguments) is empty; the caller fills it and ends it with
/// gpu.return.
gpu::GPUFuncOp createKernel(ImplicitLocOpBuilder &b, gpu::GPUModuleOp module,
                            llvm::StringRef name, ValueRange args,
                            int64_t blockX);

/// blockIdx.x * blockDim.x + threadIdx.x, and gridDim.x * blockDim.x: a 1-D
/// grid-stride loop's start and step.
struct GridStride {
  Value start;
  Value step;
};
GridStride gridStride1D(ImplicitLocOpBuilder &b, int64_t blockX);

/// Blocks of `blockX` threads covering `n` items one per thread, capped at
/// `maxBlocks` (grid-stride loops cover the rest).
int64_t blocksFor(int64_t n, int64_t blockX, int64_t maxBlocks = 4096);

/// Byte offset of scale S[i][j] in a GEMM-swizzled MXFP8/NVFP4 scale buffer
/// with `numTilesX` 128x4 tiles per 128-row band (te-semantics.md §4.2; the
/// IR form of layout::gemmSwizzledScaleIndex).
Value gemmSwizzledScaleIndex(ImplicitLocOpBuilder &b, Value i, Value j,
                             int64_t numTilesX);

/// Offset of scale S[i][j] in a scale buffer: row-major with `cols`
/// columns (compact), or gemmSwizzledScaleIndex with `numTilesX`.
Value scaleOffset(ImplicitLocOpBuilder &b, Value i, Value j, bool swizzled,
                  int64_t cols, int64_t numTilesX);


//===----------------------------------------------------------------------===//
// Constants, memory and control flow
//===----------------------------------------------------------------------===//

Value constantIndex(ImplicitLocOpBuilder &b, int64_t value);
Value constantI32(ImplicitLocOpBuilder &b, int32_t value);
/// Exact: the constant holds `value`'s bits.
Value constantF32(ImplicitLocOpBuilder &b, float value);

/// A new workgroup (shared memory) buffer `memref<size x element>` of
/// `kernel`, one per block.
Value addWorkgroupBuffer(gpu::GPUFuncOp kernel, Type element, int64_t size);

/// A private device global `memref<size x element>` of `module`, in global
/// memory: zero at module load with `zeroInit`, else uninitialised.
/// Entries run in order on one stream, so such globals are the whole memory
/// plan of state that lives between a quantization's kernels.
memref::GlobalOp addDeviceGlobal(ImplicitLocOpBuilder &b,
                                 gpu::GPUModuleOp module, llvm::StringRef name,
                                 Type element, int64_t size,
                                 bool zeroInit = false);
Value getDeviceGlobal(ImplicitLocOpBuilder &b, memref::GlobalOp global);

/// A 16-byte-aligned vector load of `type` from the 1-D `memref` at
/// element `offset` (the caller guarantees the alignment), and its store.
Value loadVector(ImplicitLocOpBuilder &b, VectorType type, Value memref,
                 Value offset);
void storeVector(ImplicitLocOpBuilder &b, Value vector, Value memref,
                 Value offset);

/// `scf.if cond { then() }`, building at `b` and leaving `b` after it.
void ifThen(ImplicitLocOpBuilder &b, Value cond,
            llvm::function_ref<void()> then);
/// `scf.if cond { then() } else { otherwise() }`.
void ifThenElse(ImplicitLocOpBuilder &b, Value cond,
                llvm::function_ref<void()> then,
                llvm::function_ref<void()> otherwise);
/// `scf.if cond -> type`, yielding what `then` / `otherwise` return.
Value ifThenElse(ImplicitLocOpBuilder &b, Type type, Value cond,
                 llvm::function_ref<Value()> then,
                 llvm::function_ref<Value()> otherwise);
/// `scf.for iv = lb to ub step step { body(iv) }`.
void forLoop(ImplicitLocOpBuilder &b, Value lb, Value ub, Value step,
             llvm::function_ref<void(Value iv)> body);
/// The same carrying one value from `init`: body returns the next one; the
/// loop's result is the last.
Value forLoop(ImplicitLocOpBuilder &b, Value lb, Value ub, Value step,
              Value init, llvm::function_ref<Value(Value iv, Value carried)> body);

//===----------------------------------------------------------------------===//
// Max reductions (NaN-ignoring, like fmaxf: arith.maxnumf)
//===----------------------------------------------------------------------===//

/// The maximum of f32 `value` over the 32 lanes of a warp (xor shuffles),
/// in every lane.
Value warpMax(ImplicitLocOpBuilder &b, Value value);

/// Lane 0 of warp w stores warpMax(value) into `shared`[w] (f32, one slot
/// per warp of the block), then the block waits at a barrier.
void warpMaxToShared(ImplicitLocOpBuilder &b, Value value, Value tid,
                     Value shared);

/// The maximum of `shared`[0..count) and 0 (one thread's loop).
Value sharedMax(ImplicitLocOpBuilder &b, Value shared, int64_t count);

/// The block's maximum of `value` (warpMaxToShared into `shared`, which
/// needs a slot per warp), handed to `onThread0` in thread 0.
void blockMaxOnThread0(ImplicitLocOpBuilder &b, Value value, Value tid,
                       Value shared, int64_t blockX,
                       llvm::function_ref<void(Value max)> onThread0);

} // namespace mlir::teq::kernels

#endif // TEQ_LIB_CONVERSION_TEQTOGPU_KERNELS_KERNELBUILDER_H
