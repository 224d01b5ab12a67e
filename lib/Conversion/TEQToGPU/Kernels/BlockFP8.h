//===- BlockFP8.h - FP8 block scaling (1x128, 128x128) ----------*- C++ -*-===//
//
// TE's Float8BlockQuantizer (te-semantics.md §5.3): FP8 data with one f32
// scale per 1x128 block (rowwise; the columnwise copy, of x^T, per 1x128
// block of its rows) or per 128x128 tile, scales from the block amax by
// compute_scale_from_amax with value_for_inf = the input type's max.
//
//===----------------------------------------------------------------------===//

#ifndef TEQ_LIB_CONVERSION_TEQTOGPU_KERNELS_BLOCKFP8_H
#define TEQ_LIB_CONVERSION_TEQTOGPU_KERNELS_BLOCKFP8_H

#include "Tile.h"

#include <string>

namespace mlir::teq::kernels {

/// Description of an FP8 block-scaled quantization.
struct BlockFP8Spec {
  int64_t rows = 1, cols = 1;
  InputType input = InputType::BF16;
  bool e5m2 = false;
  bool twoD = false;      ///< 128x128 blocks; 1x128 otherwise.
  bool rowwise = true;    ///< rowwise_data [M,K] + rowwise_scale_inv.
  bool columnwise = true; ///< columnwise_data [K,M] + columnwise_scale_inv.
  bool forcePow2 = true;
  float epsilon = 0.0f;
  /// Shapes of the scale buffers (te-semantics.md §4.3), row-major.
  int64_t rowScaleRows = 0, rowScaleCols = 0;
  int64_t colScaleRows = 0, colScaleCols = 0;
};

/// Emits `<prefix>_block(%x, [%rdata, %rscale], [%cdata, %cscale])` and returns its launch: one 128x128 tile a block (grid
/// ceil(K/128) x ceil(M/128)); block amaxes over the valid elements
/// (shuffles, small workgroup buffers); rowwise data stored from registers,
/// the transposed copy through a 16 KiB FP8 byte tile (16-byte stores
/// both); the scale padding zero-filled by the kernel itself.
KernelGroup emitBlockFP8(const EmitContext &ctx, const BlockFP8Spec &spec,
                         const TileBuffers &buffers);

} // namespace mlir::teq::kernels

#endif // TEQ_LIB_CONVERSION_TEQTOGPU_KERNELS_BLOCKFP8_H
