//===- Norm.h - LayerNorm and RMSNorm kernels -------------------*- C++ -*-===//
//
// TE's normalizations (te-layer-semantics.md §1; lib/Reference/Norm.h is
// the CPU reference) as TEQ kernels, all in f32:
// - forward: one row per CTA of up to 512 threads; each thread keeps its
//   elements of the row in registers (16-byte vector loads where n and
//   every buffer allow, else one element at a time), so x is read once.
//   Row sums are a warp xor butterfly, then the warps' sums added in warp
//   order: the same bits every run. rstd is CUDA's rsqrtf, PTX
//   rsqrt.approx.f32 (what TE's kernels call; NVVM's intrinsic, no
//   libdevice). mean and rstd are written as f32 [M].
// - backward: dx per row as the forward reads it, grid-strided over
//   normBackwardCtas CTAs, the next row's loads issued before the current
//   row's work (memory-bound: loads stay in flight across its block sums);
//   with `add` (TE's rmsnorm_bwd_add) dx = dx + add in f32 before the one
//   rounding. dgamma/dbeta in TE's two levels (§1.5): each CTA accumulates
//   its rows' dy*y and dy per column in registers and writes them as one row
//   of the f32 partials [ctas, n] of the op's scratch; a finalize kernel adds
//   the partials in a fixed order (per 32 columns, 8 warps each a slice of
//   the CTAs' rows, then the slices in order) and rounds once. No atomics,
//   so the results are deterministic.
//
//===----------------------------------------------------------------------===//

#ifndef TEQ_LIB_CONVERSION_TEQTOGPU_KERNELS_NORM_H
#define TEQ_LIB_CONVERSION_TEQTOGPU_KERNELS_NORM_H

#include "KernelBuilder.h"
#include "PerTensorFP8.h"

namespace mlir::teq::kernels {

/// The largest normalised dimension the kernels take: each thread holds
/// n / 512 elements of a row in registers (TE's largest tuned size).
constexpr int64_t kMaxNormCols = 65536;

struct NormSpec {
  bool rms = false;      ///< RMSNorm: no mean, no beta, no dbeta.
  bool backward = false; ///< The backward (dx, dgamma, dbeta).
  int64_t rows = 0, cols = 0;
  InputType x = InputType::BF16;     ///< x, y, dy, dx.
  InputType gamma = InputType::BF16; ///< gamma, beta, dgamma, dbeta.
  bool hasBeta = false;              ///< LayerNorm forward with a beta.
  bool hasAdd = false; ///< Backward with `add` (x's dtype) added to dx.
  bool zeroCenteredGamma = false;
  float eps = 1e-5f;
  /// Forward: the amax of y as stored (bf16-rounded, TE's
  /// FUSED_NORM_AMAX_FP8) goes into the scale of the current-scaling
  /// quantization that reads y (ProducerAmax; NormBuffers::scale).
  bool amaxOfY = false;
  ProducerAmax amax;
};

/// CTAs of the backward's first level (rows grid-strided over them): the
/// rows of its partials.
int64_t normBackwardCtas(const NormSpec &spec);
/// f32 elements of the backward's scratch: dgamma's partials, then
/// dbeta's (LayerNorm), each [normBackwardCtas, n]. 0 for a forward.
int64_t normScratchElements(const NormSpec &spec);

/// The 1-D memrefs of the op (null where the op has none). Forward: x,
/// gamma, beta, y, mean, rstd. Backward: dy, x, mean, rstd, gamma, add,
/// dx, dgamma, dbeta, and `partials` (the f32 scratch of
/// normScratchElements).
struct NormBuffers {
  Value x, gamma, beta, y, mean, rstd;
  Value scale; ///< amaxOfY: the quantization's [scale, scale_inv].
  Value dy, add, dx, dgamma, dbeta, partials;
};

/// Forward: `<prefix>_layer_norm` / `_rms_norm` (grid M). Backward:
/// `<prefix>_layer_norm_bwd` / `_rms_norm_bwd` (grid normBackwardCtas),
/// then `<prefix>_norm_bwd_final` (one thread per column).
KernelGroup emitNorm(const EmitContext &ctx, const NormSpec &spec,
                     const NormBuffers &buffers);

} // namespace mlir::teq::kernels

#endif // TEQ_LIB_CONVERSION_TEQTOGPU_KERNELS_NORM_H
