//===- Norm.h - CPU reference of TE's LayerNorm and RMSNorm -----*- C++ -*-===//
//
// TE's normalization formulas (te-layer-semantics.md §1.2-1.5) in f32 on
// the CPU, for te-run's check and the unit tests. Inputs are the exact f32
// values of x, dy, gamma and beta (bf16/f16 widen exactly); every result is
// f32 before its one rounding to the output's dtype (the caller rounds).
//
// What the GPU reproduces bit for bit and what it does not:
// - Row sums here run sequentially; the GPU kernels sum in a tree, so
//   mean, the variance and the backward's row and column sums differ in
//   their last bits.
// - rstd here is 1 / sqrtf(v) (two IEEE roundings); the kernels use CUDA's
//   rsqrtf, PTX rsqrt.approx.f32 (as TE; within 2 ulp, not correctly
//   rounded).
// - Given the same mean and rstd, y (normApply) is the same f32 arithmetic
//   in the same order as the kernel's, so it is bit-identical.
//
// No MLIR/LLVM dependency.
//
//===----------------------------------------------------------------------===//

#ifndef TEQ_REFERENCE_NORM_H
#define TEQ_REFERENCE_NORM_H

#include <cstdint>
#include <vector>

namespace mlir::teq::reference {

/// A [rows, n] problem: x row-major, gamma (and beta) [n].
struct NormShape {
  int64_t rows = 0;
  int64_t n = 0;
};

/// Forward results: y [rows * n] (f32, not yet rounded to x's dtype),
/// mean (LayerNorm only) and rstd [rows].
struct NormForward {
  std::vector<float> y, mean, rstd;
};

/// Backward results: dx [rows * n] (f32), dgamma and dbeta (LayerNorm only)
/// [n], accumulated in f32 over the rows in order (not yet rounded).
struct NormBackward {
  std::vector<float> dx, dgamma, dbeta;
};

/// The effective weight g_j: fl32(gamma_j), plus 1 in f32 with
/// zero_centered_gamma (§1.4).
float effectiveGamma(float gamma, bool zeroCenteredGamma);

/// rn = fl32(1/n), as TE's kernels scale the row sums.
float reciprocalOf(int64_t n);

/// LayerNorm forward (§1.2, TE's general kernel: two passes):
/// mean = (sum x) * rn, var = (sum (x - mean)^2) * rn,
/// rstd = 1 / sqrtf(var + eps), y = g * (rstd * (x - mean)) + b.
/// `beta` may be empty (b = 0).
NormForward layerNormForward(NormShape shape, const std::vector<float> &x,
                             const std::vector<float> &gamma,
                             const std::vector<float> &beta, float eps,
                             bool zeroCenteredGamma);

/// RMSNorm forward (§1.3, TE's general kernel): rstd = 1 / sqrtf((sum x^2)
/// * rn + eps), y = g * (rstd * x).
NormForward rmsNormForward(NormShape shape, const std::vector<float> &x,
                           const std::vector<float> &gamma, float eps,
                           bool zeroCenteredGamma);

/// y from given statistics, in the kernels' order: LayerNorm
/// g * (rstd * (x - mean)) + b (b = 0 where `beta` is empty), RMSNorm
/// (`mean` empty) g * (rstd * x).
std::vector<float> normApply(NormShape shape, const std::vector<float> &x,
                             const std::vector<float> &mean,
                             const std::vector<float> &rstd,
                             const std::vector<float> &gamma,
                             const std::vector<float> &beta,
                             bool zeroCenteredGamma);

/// LayerNorm backward (§1.5) from the saved mean and rstd: y = rstd *
/// (x - mean), dz = g * dy, mdy = (sum dz) * rn, mdyy = (sum dz * y) * rn,
/// dx = rstd * (dz - (mdyy * y + mdy)), dgamma = sum_rows dy * y,
/// dbeta = sum_rows dy. A non-empty `add` (x's size: TE's rmsnorm_bwd_add)
/// is added to dx in f32: dx = rstd * (...) + add.
NormBackward layerNormBackward(NormShape shape, const std::vector<float> &dy,
                               const std::vector<float> &x,
                               const std::vector<float> &mean,
                               const std::vector<float> &rstd,
                               const std::vector<float> &gamma,
                               bool zeroCenteredGamma,
                               const std::vector<float> &add = {});

/// RMSNorm backward (§1.5): y = rstd * x, dz = g * dy,
/// mdyy = (sum dz * y) * rn, dx = rstd * (dz - mdyy * y),
/// dgamma = sum_rows dy * y (dbeta empty); dx + add in f32 with a
/// non-empty `add`.
NormBackward rmsNormBackward(NormShape shape, const std::vector<float> &dy,
                             const std::vector<float> &x,
                             const std::vector<float> &rstd,
                             const std::vector<float> &gamma,
                             bool zeroCenteredGamma,
                             const std::vector<float> &add = {});

} // namespace mlir::teq::reference

#endif // TEQ_REFERENCE_NORM_H
