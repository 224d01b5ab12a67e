//===- NVFP4.h - The kernels of an NVFP4 quantization -----------*- C++ -*-===//
//
// NVFP4 (te-semantics.md §5.5, §4.4): E2M1 data in 16-element blocks, an
// E4M3 scale per block and a global FP32 scale from the tensor's amax. One
// quantization is a pass over x for the amax (with the random Hadamard
// transform of the columnwise copy, that copy's amax is the transformed
// tensor's), whose last block also leaves per-copy constants in a device
// global, then a data kernel over 64x64 tiles of x writing both copies.
//
//===----------------------------------------------------------------------===//

#ifndef TEQ_LIB_CONVERSION_TEQTOGPU_KERNELS_NVFP4_H
#define TEQ_LIB_CONVERSION_TEQTOGPU_KERNELS_NVFP4_H

#include "KernelBuilder.h"

namespace mlir::teq::kernels {

/// Description of an NVFP4 quantization (te-semantics.md §5.5, §4.4).
struct NVFP4Spec {
  /// M (the leading dimensions' product) and K, multiples of 16.
  int64_t rows = 1, cols = 1;
  InputType input = InputType::BF16;
  bool twoD = false;      ///< One block scale per 16x16 tile.
  bool rowwise = true;    ///< rowwise_data [M, K/2], 1x16 blocks.
  bool columnwise = true; ///< columnwise_data [K, M/2] (x^T), 16x1 blocks.
  bool swizzled = false;  ///< GEMM-swizzled scales (§4.2), else compact.
  /// Random Hadamard transform of the columnwise copy (bf16 input); its
  /// amax is the transformed tensor's (with_post_rht_amax).
  bool rht = false;
  /// Round-to-nearest E2M1 by the hardware's cvt.rn.satfinite.e2m1x2
  /// (sm_100a and later arch-specific targets); stochastic rounding stays in
  /// software everywhere (the reference's rule, not cvt.rs's bit use).
  bool hardwareConversions = false;
  /// Stochastic rounding of both copies: element i of a copy (row-major in
  /// its stored orientation) rounds with philoxRandomWord(seed, offset
  /// [^ 2^63 columnwise], i) by floatToE2M1Stochastic's rule (Random.h,
  /// Numerics.h).
  bool stochastic = false;
  /// Programmatic dependent launch (sm_90+): the amax pass signals its
  /// dependents at its start; the data kernel stages its tile, then waits
  /// (griddepcontrol.wait) for the pass and its memory before it reads the
  /// constants. Without the launch attribute the wait returns at once, the
  /// pass having finished.
  bool dependentLaunch = false;
  /// Shapes of the scale buffers (te-semantics.md §4.4), row-major.
  int64_t rowScaleRows = 0, rowScaleCols = 0;
  int64_t colScaleRows = 0, colScaleCols = 0;
};

/// The buffers of one NVFP4 quantization (null where the copy is absent).
struct NVFP4Buffers {
  Value input;             ///< x: memref<M*K x T>
  Value rowData, rowScale; ///< memref<M*K/2 x i8>, memref<S x i8>
  Value columnData, columnScale;
  Value rowAmax, columnAmax; ///< memref<1xf32>
  Value rngState;            ///< memref<2xi64> (seed, offset); stochastic
};

/// Emits the kernels (and device globals) of one NVFP4 quantization and
/// returns their launches in stream order: zero-fills of padded scale
/// buffers (`<prefix>_zero_rs`, `_zero_cs`), the amax pass (`_amax`, or
/// `_rht_amax` with RHT), then the data kernel (`_nvfp4`, `_nvfp4_row` or
/// `_nvfp4_col`), which is a programmatic dependent launch with
/// NVFP4Spec::dependentLaunch.
KernelGroup emitNVFP4Quantize(const EmitContext &ctx, const NVFP4Spec &spec,
                              const NVFP4Buffers &buffers);

/// The amaxes of an NVFP4 GEMM's operands and its device alpha (each
/// memref<1xf32>).
struct NVFP4GemmAlphaBuffers {
  Value amaxA, amaxB, alpha;
};

/// Emits kernel `<prefix>_alpha`: an NVFP4 GEMM's device alpha, amax_a *
/// amax_b / (6 * 6 * 448 * 448) (te-semantics.md §6.2), and returns its
/// launch.
KernelGroup emitNVFP4GemmAlpha(const EmitContext &ctx,
                               const NVFP4GemmAlphaBuffers &buffers);

} // namespace mlir::teq::kernels

#endif // TEQ_LIB_CONVERSION_TEQTOGPU_KERNELS_NVFP4_H
