//===- PerTensorFP8.h - Per-tensor FP8 quantization kernels ----*- C++ -*-===//
//
// One scale for the whole tensor (te-semantics.md §5.1, §5.2). Current
// scaling: an amax pass, then the cast. For tensors up to 4M elements
// (launches dominate) the pass leaves per-block maxima in a partials global
// and every cast block computes the scale from them; above, the pass's
// blocks fold their maxima into one running max (atomics) and its last
// block computes the scale, and on Hopper and later the cast is its
// programmatic dependent (it loads its first tile while the pass drains).
// With an amax reduction the scale has its own one-block kernel, after the
// group's all-reduce. Delayed scaling: the cast with the stored
// scale records per-block maxima in the same read of x, then a one-block
// kernel records the amax into history[0] and writes scale_inv.
// Kernels are specialised to the static shape: they know which accesses
// are whole 16-byte vectors and which need bounds checks.
//
//===----------------------------------------------------------------------===//

#ifndef TEQ_LIB_CONVERSION_TEQTOGPU_KERNELS_PERTENSORFP8_H
#define TEQ_LIB_CONVERSION_TEQTOGPU_KERNELS_PERTENSORFP8_H

#include "KernelBuilder.h"

#include <functional>

namespace mlir::teq::kernels {

/// Description of a per-tensor FP8 quantization (current or delayed).
struct PerTensorFP8Spec {
  int64_t rows = 1;       ///< M: product of the leading dimensions.
  int64_t cols = 1;       ///< K: the last dimension.
  InputType input = InputType::BF16;
  bool e5m2 = false;      ///< E5M2 instead of E4M3.
  bool rowwise = true;    ///< Write `data` [M, K].
  bool transpose = false; ///< Write `transpose` [K, M] (non-TN targets).
  // Current scaling (te-semantics.md §5.1).
  bool forcePow2 = false;
  float epsilon = 0.0f;
  /// Amax reduction (with_amax_reduction, te-semantics.md §7): the rank's
  /// amax is in `PerTensorFP8Buffers::amax` after the launch of stage
  /// kPerTensorFP8AmaxOutStage, the caller all-reduces it (max) over the
  /// group there, and the scale kernel computes the scale from the result,
  /// so every rank's scale is the whole tensor's. Launches: amax, amax_out,
  /// [all-reduce], scale, cast.
  bool reduceAmax = false;
  /// Delayed scaling (§5.2): the cast takes the stored scale as an argument
  /// and records max|x| in the same pass (one read of the input).
  bool delayed = false;
  int64_t historyLength = 1;
  /// Hopper and later (TargetCaps::supportsDependentLaunch): where the amax
  /// pass computes the scale (current scaling of a tensor over 4M elements,
  /// no amax reduction), the cast is its programmatic dependent and loads
  /// its tile while the pass drains.
  bool dependentLaunch = false;
  /// The transposing cast also sums each column of its 64-row tile (f32)
  /// into PerTensorFP8Buffers::columnSums, row ceil(M / 64) - 1 - tile..:
  /// a bias gradient's first pass (teq.bias_grad of the same tensor, TE's
  /// bgrad + quantize), finished by emitBiasGradFinal over
  /// perTensorColumnSumChunks(spec) chunks. Needs `transpose`, M and K
  /// multiples of 64.
  bool columnSums = false;
  /// Current scaling whose amax the kernel producing the input computed
  /// (ProducerAmax): only the cast runs, reading the scale from
  /// PerTensorFP8Buffers::producerScale; its block (0, 0) stores scale_inv.
  bool scaleFromProducer = false;
};

/// What a kernel producing the input of a current-scaling quantization
/// needs to compute that quantization's scale from the amax of the values
/// it stores (QuantizeFusion.h, fusion "amax"; TE's norm and activation
/// kernels writing the amax with their output, te-layer-semantics.md §1.6,
/// §2.4): the quantizer's options, and `scale`, memref<2 x f32> receiving
/// [scale, scale_inv] for the cast.
struct ProducerAmax {
  bool e5m2 = false;
  bool forcePow2 = false;
  float epsilon = 0.0f;
  Value scale;
};

/// In a kernel being built at ctx.b (block of `blockX` threads, thread id
/// `tid`, `grid` blocks in all): folds this thread's `threadMax` (max|v| of
/// the values it stored, as stored) into the block's maximum (`shared`:
/// blockX / 32 workgroup f32 slots), each block's into a running maximum
/// (device globals `<prefix>_amax_acc`, `_amax_count` of ctx.module, an
/// atomic max of the float's pattern), and the last block done computes
/// [scale, scale_inv] into `scaleArg` (the kernel's argument for
/// `amax.scale`; TE's formula, as the amax pass does) and resets the
/// globals for the next launch.
void emitProducerAmaxToScale(const EmitContext &ctx, const ProducerAmax &amax,
                             Value scaleArg, Value threadMax, Value tid,
                             Value shared, int64_t blockX, int64_t grid);

/// Whether a quantization of this shape can sum columns in its cast
/// (PerTensorFP8Spec::columnSums).
bool canSumColumns(const PerTensorFP8Spec &spec);

/// The f32 rows of partial column sums a columnSums cast writes: one per
/// 64-row tile.
int64_t perTensorColumnSumChunks(const PerTensorFP8Spec &spec);

/// The buffers of one quantization, the kernels' arguments (memref<N x T>
/// input, memref<N x i8> data, memref<1 x f32> scales, memref<L x f32>
/// histories).
struct PerTensorFP8Buffers {
  Value input;
  Value data;      ///< [M, K], or null.
  Value transpose; ///< [K, M], or null.
  Value scaleInv;
  /// reduceAmax: memref<1 x f32>, the amax the group reduces.
  Value amax;
  // Delayed scaling.
  Value scale; ///< The stored scale the cast multiplies by.
  Value amaxHistory;
  Value updatedAmaxHistory;
  /// columnSums: memref<perTensorColumnSumChunks x K x f32>, flattened.
  Value columnSums;
  /// scaleFromProducer: memref<2 x f32>, [scale, scale_inv].
  Value producerScale;
};

/// The stage of the launch that leaves the rank's amax in
/// PerTensorFP8Buffers::amax (PerTensorFP8Spec::reduceAmax).
constexpr llvm::StringLiteral kPerTensorFP8AmaxOutStage = "_amax_out";

/// Emits the kernels of one quantization (device globals
/// `<prefix>_partials` or `_amax_acc` and `_amax_count`, and, unfused,
/// `<prefix>_scale_value`; kernels `<prefix>_cast` and `_record`, or `_amax`
/// [`_amax_out`] [and `_scale`]) and returns their launches in stream order.
KernelGroup emitPerTensorFP8(const EmitContext &ctx,
                             const PerTensorFP8Spec &spec,
                             const PerTensorFP8Buffers &buffers);

} // namespace mlir::teq::kernels

#endif // TEQ_LIB_CONVERSION_TEQTOGPU_KERNELS_PERTENSORFP8_H
