//===- MXFP8.h - MXFP8: FP8 with E8M0 block exponents -----------*- C++ -*-===//
//
// TE's MXFP8Quantizer (te-semantics.md §5.4, §4.2): FP8 data with one E8M0
// exponent per 1x32 block (rowwise), 32x1 block (columnwise, same [M, K]
// layout) or 32x32 tile (2D), stored compact or GEMM-swizzled.
//
//===----------------------------------------------------------------------===//

#ifndef TEQ_LIB_CONVERSION_TEQTOGPU_KERNELS_MXFP8_H
#define TEQ_LIB_CONVERSION_TEQTOGPU_KERNELS_MXFP8_H

#include "Tile.h"

#include <string>

namespace mlir::teq::kernels {

/// Description of an MXFP8 quantization.
struct MXFP8Spec {
  int64_t rows = 1, cols = 1;
  InputType input = InputType::BF16;
  bool e5m2 = false;
  bool twoD = false;      ///< One exponent per 32x32 tile.
  bool rowwise = true;    ///< rowwise_data [M,K], 1x32 blocks.
  bool columnwise = true; ///< columnwise_data [M,K] (not transposed), 32x1.
  bool swizzled = false;  ///< GEMM-swizzled scales (§4.2), else compact.
  int64_t rowScaleRows = 0, rowScaleCols = 0;
  int64_t colScaleRows = 0, colScaleCols = 0;
  /// E8M0 scales by the hardware's cvt.rp.satfinite.ue8m0x2 (sm_100a and
  /// later arch-specific targets) instead of TE's software emulation of it.
  bool hardwareConversions = false;
};

/// Emits `<prefix>_mxfp8(%x, [%rdata, %rscale], [%cdata, %cscale])` and returns its launch: one 128x128 tile a block (grid
/// ceil(K/128) x ceil(M/128)); E8M0 exponents float_to_e8m0(amax *
/// (1/fp8_max)), elements multiplied by exp2f_rcp(e). The tiles cover the
/// padded scale buffers exactly, so the kernel writes every scale byte,
/// padding (zero) included.
KernelGroup emitMXFP8(const EmitContext &ctx, const MXFP8Spec &spec,
                         const TileBuffers &buffers);

} // namespace mlir::teq::kernels

#endif // TEQ_LIB_CONVERSION_TEQTOGPU_KERNELS_MXFP8_H
