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
#include "mlir/IR/ImplicitLocOpBuilder.h"

#include "llvm/ADT/SmallVector.h"

#include <string>

namespace mlir::teq::kernels {

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

} // namespace mlir::teq::kernels

#endif // TEQ_LIB_CONVERSION_TEQTOGPU_KERNELS_KERNELBUILDER_H
