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
#include "Kernels/PerTensorFP8.h"

#include <cstdint>
#include <string>
#include <vector>

namespace mlir::teq::kernels {

/// Device globals the kernels below share: `@<prefix>_partials` (one amax
/// per amax block) and `@<prefix>_scale_value`. Entries run in order on one
/// stream, so static device memory is the whole memory plan for them.
std::string perTensorGlobals(const PerTensorFP8Spec &spec);

/// `gpu.func @<prefix>_amax(%x: memref<N x T>)`: per-block max|x|
/// (NaN-ignoring, like fmaxf) into `@<prefix>_partials`. With
/// `finalBuffers` (NVFP4's amax pass) the kernel takes those amax buffers
/// (memref<1xf32>) after %x and finishes the reduction itself
/// (fusedAmaxGlobals): no partials; its last block also fills
/// `@<prefix>_nvfp4_consts` (nvfp4ConstsGlobal).
std::string perTensorAmaxKernel(const PerTensorFP8Spec &spec,
                                const std::vector<std::string> &finalBuffers = {});

/// The device globals of a fused amax reduction (`@<prefix>_amax_acc`,
/// two running maxima as bit patterns, and `@<prefix>_amax_count`, blocks
/// done), zero at load and reset by the last block.
std::string fusedAmaxGlobals(const std::string &prefix);

/// The device global `@<prefix>_nvfp4_consts` of an NVFP4 quantization:
/// each copy's S_enc, 1 / S_enc and encode multipliers per E4M3 scale
/// code, written by the amax pass's last block, read by the data kernel.
std::string nvfp4ConstsGlobal(const std::string &prefix);

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

/// Description of an NVFP4 quantization (te-semantics.md §5.5, §4.4).
struct NVFP4Spec {
  std::string prefix;
  int64_t rows = 1, cols = 1;
  InputType input = InputType::BF16;
  bool twoD = false;      ///< One block scale per 16x16 tile.
  bool rowwise = true;    ///< rowwise_data [M, K/2], 1x16 blocks.
  bool columnwise = true; ///< columnwise_data [K, M/2] (x^T), 16x1 blocks.
  bool swizzled = false;  ///< GEMM-swizzled scales (§4.2), else compact.
  /// Random Hadamard transform of the columnwise copy (bf16, M % 16 == 0);
  /// its amax is the transformed tensor's (with_post_rht_amax).
  bool rht = false;
  /// Round-to-nearest E2M1 by the hardware's cvt.rn.satfinite.e2m1x2
  /// (sm_100a and later arch-specific targets); stochastic rounding stays in
  /// software everywhere (the reference's rule, not cvt.rs's bit use).
  bool hardwareConversions = false;
  /// Stochastic rounding of both copies: the row and column kernels take
  /// the Philox state `%rng: memref<2xi64>` (seed, offset) as a last
  /// argument and round element i of a copy (row-major in its stored
  /// orientation) with philoxRandomWord(seed, offset [^ 2^63 columnwise],
  /// i) by floatToE2M1Stochastic's rule, in software (Random.h,
  /// Numerics.h; PTX cvt.rs consumes random bits its own way).
  bool stochastic = false;
  /// Programmatic dependent launch (sm_90+): the amax pass signals its
  /// dependents at its start; the data kernel stages its tile, then waits
  /// (griddepcontrol.wait) for the pass and its memory before it reads the
  /// constants. The data kernel's launch must then carry CUDA's
  /// programmatic stream serialization attribute (the manifest's
  /// "dependent_launch_kernels"); without it the wait returns at once,
  /// the pass having finished.
  bool dependentLaunch = false;
  /// Shapes of the scale buffers (te-semantics.md §4.4), row-major.
  int64_t rowScaleRows = 0, rowScaleCols = 0;
  int64_t colScaleRows = 0, colScaleCols = 0;
};

/// NVFP4 kernels of one quantization, all 256 threads a block:
/// `@<prefix>_amax(%x, [%amax_rowwise], [%amax_columnwise])` (the global
/// amax into the amax buffers, the last block finishing the reduction;
/// with RHT `@<prefix>_rht_amax(%x, %amax_c[, %amax_r])` instead: the
/// transformed copy's amax and, for a rowwise copy, the plain one; the last
/// block also fills `@<prefix>_nvfp4_consts`: each copy's S_enc and encode
/// multiplier per E4M3 scale code), then the data kernel, one 64x64
/// tile of x a block staged in workgroup memory (grid nvfp4TileGrid),
/// which reads those constants:
/// `@<prefix>_nvfp4(%x, %rdata, %rscale, %cdata, %cscale[, %rng])` with
/// both usages (x read once for both copies), else
/// `@<prefix>_nvfp4_row(%x, %data, %scale[, %rng])` or
/// `@<prefix>_nvfp4_col(...)` with the same arguments. Scales are
/// e4m3(block_amax * (S_enc / 6)) with S_enc = 2688 / global_amax; elements
/// are rounded to E2M1 in software (sm_90 has no cvt to e2m1x2), to
/// nearest or stochastically.
std::string nvfp4Kernels(const NVFP4Spec &spec);
/// Grid (x over K, y over M) of the NVFP4 data kernel: 64x64 tiles.
void nvfp4TileGrid(const NVFP4Spec &spec, int64_t &gridX, int64_t &gridY);
/// Blocks of the `_rht_amax` launch.
int64_t nvfp4RhtAmaxGrid(const NVFP4Spec &spec);

/// `gpu.func @<prefix>_zero(%scales: memref<S x i8>)`: zero-fills a scale
/// buffer (its padding must read as zero, te-semantics.md §4.2).
std::string zeroBytesKernel(const std::string &name, int64_t bytes);
/// `name(amax_a, amax_b, alpha)`: an NVFP4 GEMM's device alpha from the
/// operands' global amaxes (one block).
std::string nvfp4GemmAlphaKernel(const std::string &name);

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
