//===- Norm.cpp - CPU reference of TE's LayerNorm and RMSNorm -------------===//
//
// Plain f32 arithmetic, each operation rounded (the library is built with
// -ffp-contract=off), in the order Norm.h gives.
//
//===----------------------------------------------------------------------===//

#include "teq/Reference/Norm.h"

#include <cassert>
#include <cmath>

namespace mlir::teq::reference {

float effectiveGamma(float gamma, bool zeroCenteredGamma) {
  return zeroCenteredGamma ? gamma + 1.0f : gamma;
}

float reciprocalOf(int64_t n) { return 1.0f / static_cast<float>(n); }

namespace {

/// CUDA's rsqrtf is not correctly rounded; this is the nearest portable
/// formula (two IEEE roundings). Norm.h says where the bits differ.
float reciprocalSqrt(float v) { return 1.0f / std::sqrt(v); }

void checkSizes(NormShape shape, const std::vector<float> &x,
                const std::vector<float> &gamma) {
  (void)shape, (void)x, (void)gamma;
  assert(static_cast<int64_t>(x.size()) == shape.rows * shape.n &&
         static_cast<int64_t>(gamma.size()) == shape.n && "shapes of a norm");
}

} // namespace

std::vector<float> normApply(NormShape shape, const std::vector<float> &x,
                             const std::vector<float> &mean,
                             const std::vector<float> &rstd,
                             const std::vector<float> &gamma,
                             const std::vector<float> &beta,
                             bool zeroCenteredGamma) {
  checkSizes(shape, x, gamma);
  std::vector<float> y(x.size());
  for (int64_t r = 0; r < shape.rows; ++r)
    for (int64_t j = 0; j < shape.n; ++j) {
      float v = x[r * shape.n + j];
      if (!mean.empty())
        v = v - mean[r];
      float z = effectiveGamma(gamma[j], zeroCenteredGamma) * (rstd[r] * v);
      if (!beta.empty())
        z = z + beta[j];
      y[r * shape.n + j] = z;
    }
  return y;
}

NormForward layerNormForward(NormShape shape, const std::vector<float> &x,
                             const std::vector<float> &gamma,
                             const std::vector<float> &beta, float eps,
                             bool zeroCenteredGamma) {
  checkSizes(shape, x, gamma);
  const float rn = reciprocalOf(shape.n);
  NormForward out;
  out.mean.resize(shape.rows);
  out.rstd.resize(shape.rows);
  for (int64_t r = 0; r < shape.rows; ++r) {
    const float *row = x.data() + r * shape.n;
    float sum = 0.0f;
    for (int64_t j = 0; j < shape.n; ++j)
      sum += row[j];
    const float mu = sum * rn;
    float m2 = 0.0f;
    for (int64_t j = 0; j < shape.n; ++j) {
      float d = row[j] - mu;
      m2 += d * d;
    }
    out.mean[r] = mu;
    out.rstd[r] = reciprocalSqrt(m2 * rn + eps);
  }
  out.y = normApply(shape, x, out.mean, out.rstd, gamma, beta,
                    zeroCenteredGamma);
  return out;
}

NormForward rmsNormForward(NormShape shape, const std::vector<float> &x,
                           const std::vector<float> &gamma, float eps,
                           bool zeroCenteredGamma) {
  checkSizes(shape, x, gamma);
  const float rn = reciprocalOf(shape.n);
  NormForward out;
  out.rstd.resize(shape.rows);
  for (int64_t r = 0; r < shape.rows; ++r) {
    const float *row = x.data() + r * shape.n;
    float sum = 0.0f;
    for (int64_t j = 0; j < shape.n; ++j)
      sum += row[j] * row[j];
    out.rstd[r] = reciprocalSqrt(sum * rn + eps);
  }
  out.y = normApply(shape, x, {}, out.rstd, gamma, {}, zeroCenteredGamma);
  return out;
}

namespace {

/// Both backwards: `mean` empty for RMSNorm (no mean, no mdy, no dbeta).
NormBackward normBackward(NormShape shape, const std::vector<float> &dy,
                          const std::vector<float> &x,
                          const std::vector<float> &mean,
                          const std::vector<float> &rstd,
                          const std::vector<float> &gamma,
                          bool zeroCenteredGamma,
                          const std::vector<float> &add) {
  checkSizes(shape, x, gamma);
  assert(dy.size() == x.size() && "dy has x's shape");
  assert((add.empty() || add.size() == x.size()) && "add has x's shape");
  const bool layerNorm = !mean.empty();
  const float rn = reciprocalOf(shape.n);
  NormBackward out;
  out.dx.resize(x.size());
  out.dgamma.assign(shape.n, 0.0f);
  if (layerNorm)
    out.dbeta.assign(shape.n, 0.0f);
  std::vector<float> y(shape.n), dz(shape.n);
  for (int64_t r = 0; r < shape.rows; ++r) {
    const float *xr = x.data() + r * shape.n;
    const float *dyr = dy.data() + r * shape.n;
    float sumDz = 0.0f, sumDzY = 0.0f;
    for (int64_t j = 0; j < shape.n; ++j) {
      y[j] = layerNorm ? rstd[r] * (xr[j] - mean[r]) : rstd[r] * xr[j];
      dz[j] = effectiveGamma(gamma[j], zeroCenteredGamma) * dyr[j];
      sumDz += dz[j];
      sumDzY += dz[j] * y[j];
      out.dgamma[j] += dyr[j] * y[j];
      if (layerNorm)
        out.dbeta[j] += dyr[j];
    }
    const float mdy = sumDz * rn, mdyy = sumDzY * rn;
    for (int64_t j = 0; j < shape.n; ++j) {
      float dx = layerNorm ? rstd[r] * (dz[j] - (mdyy * y[j] + mdy))
                           : rstd[r] * (dz[j] - mdyy * y[j]);
      // TE's rmsnorm_bwd_add: in f32, before dx's one rounding.
      if (!add.empty())
        dx += add[r * shape.n + j];
      out.dx[r * shape.n + j] = dx;
    }
  }
  return out;
}

} // namespace

NormBackward layerNormBackward(NormShape shape, const std::vector<float> &dy,
                               const std::vector<float> &x,
                               const std::vector<float> &mean,
                               const std::vector<float> &rstd,
                               const std::vector<float> &gamma,
                               bool zeroCenteredGamma,
                               const std::vector<float> &add) {
  assert(static_cast<int64_t>(mean.size()) == shape.rows && "mean [rows]");
  return normBackward(shape, dy, x, mean, rstd, gamma, zeroCenteredGamma,
                      add);
}

NormBackward rmsNormBackward(NormShape shape, const std::vector<float> &dy,
                             const std::vector<float> &x,
                             const std::vector<float> &rstd,
                             const std::vector<float> &gamma,
                             bool zeroCenteredGamma,
                             const std::vector<float> &add) {
  return normBackward(shape, dy, x, {}, rstd, gamma, zeroCenteredGamma, add);
}

} // namespace mlir::teq::reference
