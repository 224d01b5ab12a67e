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
/// memref<rows*cols x i8> each.
struct ScaleSwizzleBuffers {
  Value compact, swizzled;
};

/// Kernel `<prefix>_swizzle`, reading `compact` and writing `swizzled`.
KernelGroup emitScaleSwizzle(const EmitContext &ctx,
                             const ScaleSwizzleSpec &spec,
                             const ScaleSwizzleBuffers &buffers);

/// A static strided slice of a row-major tensor of `fullShape` (the
/// offsets, sizes and strides of tensor.extract_slice / insert_slice).
struct SliceSpec {
  llvm::SmallVector<int64_t> fullShape, offsets, sizes, strides;
  /// insert_slice: write `part` into `full` (else read it from `full`).
  bool scatter = false;
};
/// `full`: memref<prod(fullShape) x T>; `part`: the contiguous
/// memref<prod(sizes) x T>.
struct SliceBuffers {
  Value full, part;
};

/// Kernel `<prefix>_extract_slice` (or `_insert_slice` with `scatter`)
/// moving the slice between `full` and `part`, one element per thread of a
/// grid-stride loop.
KernelGroup emitSlice(const EmitContext &ctx, const SliceSpec &spec,
                      const SliceBuffers &buffers);

/// 1-D memrefs of one type and size.
struct CopyBuffers {
  Value source, dest;
};

/// Kernel `<prefix>_copy` copying `source` into `dest`.
KernelGroup emitCopy(const EmitContext &ctx, const CopyBuffers &buffers);

/// The row-major [rows, cols] matrix transposed.
struct TransposeSpec {
  int64_t rows = 0, cols = 0;
};
/// 1-D memrefs of one type.
struct TransposeBuffers {
  Value source, dest;
};

/// Kernel `<prefix>_transpose` writing the [cols, rows] transpose of
/// `source` into `dest`, one element per thread of a grid-stride loop.
/// (Per-tensor FP8's columnwise copy of data gathered rowwise: TE
/// transposes after the all-gather on Hopper.)
KernelGroup emitTranspose(const EmitContext &ctx, const TransposeSpec &spec,
                          const TransposeBuffers &buffers);

} // namespace mlir::teq::kernels

#endif // TEQ_LIB_CONVERSION_TEQTOGPU_KERNELS_AUXILIARY_H
