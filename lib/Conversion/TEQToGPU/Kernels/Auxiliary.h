//===- Auxiliary.h - Kernels that move bytes: copies, slices, swizzles -*- C++ -*-===//
//
// Data movement around the quantize kernels and GEMMs: buffer copies (entry
// results that are arguments or views), tensor slices (delayed-scaling
// state of one quantizer among many) and teq.swizzle_scales, where every
// byte of a compact MXFP8/NVFP4 scale buffer moves to its place in cuBLAS's
// 128x4 tiles (te-semantics.md §4.2). Padding moves too, so the result is
// the buffer a quantization with swizzled scales writes.
//
//===----------------------------------------------------------------------===//

#ifndef TEQ_LIB_CONVERSION_TEQTOGPU_KERNELS_AUXILIARY_H
#define TEQ_LIB_CONVERSION_TEQTOGPU_KERNELS_AUXILIARY_H

#include "KernelBuilder.h"

namespace mlir::teq::kernels {

/// A scale buffer S[rows][cols] (padded shape, row-major when compact).
struct ScaleSwizzleSpec {
  int64_t rows = 0;
  int64_t cols = 0;
  /// MXFP8 columnwise scales ([roundup(M/32,4), roundup(K,128)]) are
  /// swizzled after a logical transpose: S[i][j] goes where the swizzle puts
  /// (j, i) of a buffer with rows/4 tiles per band.
  bool transposed = false;
};

/// Emits kernel `name` into `module` and returns its launch, reading
/// `compact` and writing `swizzled` (both memref<rows*cols x i8>).
KernelLaunch emitScaleSwizzle(ImplicitLocOpBuilder &b, gpu::GPUModuleOp module,
                              llvm::StringRef name,
                              const ScaleSwizzleSpec &spec, Value compact,
                              Value swizzled);

/// A static strided slice of a row-major tensor of `fullShape` (the
/// offsets, sizes and strides of tensor.extract_slice / insert_slice).
struct SliceSpec {
  llvm::SmallVector<int64_t> fullShape, offsets, sizes, strides;
  /// insert_slice: write `part` into `full` (else read it from `full`).
  bool scatter = false;
};

/// Emits kernel `name` moving the slice between `full` (memref<prod(full
/// shape) x T>) and the contiguous `part` (memref<prod(sizes) x T>), one
/// element per thread of a grid-stride loop, and returns its launch.
KernelLaunch emitSlice(ImplicitLocOpBuilder &b, gpu::GPUModuleOp module,
                       llvm::StringRef name, const SliceSpec &spec, Value full,
                       Value part);

/// Emits kernel `name` copying `source` into `dest` (1-D memrefs of one
/// type and size) and returns its launch.
KernelLaunch emitCopy(ImplicitLocOpBuilder &b, gpu::GPUModuleOp module,
                      llvm::StringRef name, Value source, Value dest);

/// Emits kernel `name` writing the [cols, rows] transpose of the row-major
/// [rows, cols] `source` into `dest` (1-D memrefs of one type), one element
/// per thread of a grid-stride loop, and returns its launch. (Per-tensor
/// FP8's columnwise copy of data gathered rowwise: TE transposes after the
/// all-gather on Hopper.)
KernelLaunch emitTranspose(ImplicitLocOpBuilder &b, gpu::GPUModuleOp module,
                           llvm::StringRef name, Value source, Value dest,
                           int64_t rows, int64_t cols);

} // namespace mlir::teq::kernels

#endif // TEQ_LIB_CONVERSION_TEQTOGPU_KERNELS_AUXILIARY_H
