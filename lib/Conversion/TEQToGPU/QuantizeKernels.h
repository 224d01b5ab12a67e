//===- QuantizeKernels.h - GPU kernels of teq.quantize ----------*- C++ -*-===//
//
// The device code of one quantization, as `gpu.func` kernels specialised to
// its static shape, dtype and quantizer: written in MLIR (gpu, arith, math,
// vector, memref, scf and nvvm ops) and lowered by MLIR's NVVM path like any
// other kernel. Shapes are compile-time constants, so every kernel knows
// which accesses can be 16-byte vectors and which need bounds checks.
//
//===----------------------------------------------------------------------===//

#ifndef TEQ_LIB_CONVERSION_TEQTOGPU_QUANTIZEKERNELS_H
#define TEQ_LIB_CONVERSION_TEQTOGPU_QUANTIZEKERNELS_H

#include "Kernels/KernelBuilder.h"

#include <cstdint>
#include <string>
#include <vector>

namespace mlir::teq::kernels {

/// Description of an FP8 block-scaled quantization (te-semantics.md §5.3).
struct BlockFP8Spec {
  std::string prefix;
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

/// `gpu.func @<prefix>_block(%x, [%rdata, %rscale], [%cdata, %cscale])`:
/// one 128x128 tile per 256-thread block (grid ceil(K/128) x ceil(M/128));
/// the input is read once into registers (16-byte loads), block amaxes are
/// reduced over the valid elements (shuffles, small workgroup buffers),
/// scales follow compute_scale_from_amax with value_for_inf = the input
/// type's max, rowwise data is stored from registers and the transposed copy
/// goes through a 16 KiB FP8 byte tile (16-byte stores both); scale padding
/// is zero-filled. No dynamic shared memory (`blockFP8SharedBytes` is 0).
std::string blockFP8Kernel(const BlockFP8Spec &spec);
int64_t blockFP8SharedBytes(const BlockFP8Spec &spec);

/// Dynamic shared memory of the 128x128-tile kernels (block FP8, MXFP8):
/// none since they keep the tile in registers (their few KiB of workgroup
/// buffers are static).
int64_t tileSharedBytes(InputType input);

/// Description of an MXFP8 quantization (te-semantics.md §5.4, §4.2).
struct MXFP8Spec {
  std::string prefix;
  int64_t rows = 1, cols = 1;
  InputType input = InputType::BF16;
  bool e5m2 = false;
  bool twoD = false;     ///< One exponent per 32x32 tile.
  bool rowwise = true;   ///< rowwise_data [M,K], 1x32 blocks.
  bool columnwise = true; ///< columnwise_data [M,K] (not transposed), 32x1.
  bool swizzled = false; ///< GEMM-swizzled scales (§4.2), else compact.
  int64_t rowScaleRows = 0, rowScaleCols = 0;
  int64_t colScaleRows = 0, colScaleCols = 0;
  /// E8M0 scales by the hardware's cvt.rp.satfinite.ue8m0x2 (sm_100a and
  /// later arch-specific targets) instead of TE's software emulation of it.
  bool hardwareConversions = false;
};

/// `name(full, part)` for a static tensor slice (tensor.extract_slice /
/// insert_slice of delayed-scaling state): gather copies the slice of
/// `full` into the contiguous `part`; scatter writes `part` into it.
struct SliceSpec {
  std::string name;
  std::string elementType; ///< MLIR type name, e.g. "f32".
  std::vector<int64_t> fullShape, offsets, sizes, strides;
  bool scatter = false;
};
std::string sliceKernel(const SliceSpec &spec);

/// teq.bias_grad of an M x N (flattened) gradient: `<prefix>_bgrad_partial`
/// (grid N/256 x chunks; x -> fp32 partial sums [chunks, N]) then
/// `<prefix>_bgrad_final` (grid N/256; partials -> db [N]), summing in a
/// fixed order.
struct BiasGradSpec {
  std::string prefix;
  int64_t rows = 0, cols = 0;
  InputType input = InputType::BF16;
  InputType output = InputType::BF16;
};
int64_t biasGradChunks(const BiasGradSpec &spec);
std::string biasGradKernels(const BiasGradSpec &spec);

/// `gpu.func @<prefix>_mxfp8(%x, [%rdata, %rscale], [%cdata, %cscale])`: one
/// 128x128 tile per block staged in dynamic shared memory; E8M0 block
/// exponents from float_to_e8m0(amax * (1/fp8_max)), elements multiplied by
/// exp2f_rcp(e) (te-semantics.md §5.4), scales compact or GEMM-swizzled.
std::string mxfp8Kernel(const MXFP8Spec &spec);

/// `gpu.func @<name>(%scale: memref<S x f32>, %hist: memref<L*S x f32>,
/// %new_scale, %new_hist)`: TE's fused delayed-scaling update per slot
/// (te-semantics.md §5.2), one thread a slot.
std::string delayedScalingUpdateKernel(const std::string &name, int64_t slots,
                                       int64_t length, float fp8Max,
                                       int64_t margin, bool mostRecent);

} // namespace mlir::teq::kernels

#endif // TEQ_LIB_CONVERSION_TEQTOGPU_QUANTIZEKERNELS_H
