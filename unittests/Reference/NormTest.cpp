//===- NormTest.cpp - The CPU reference of LayerNorm and RMSNorm ----------===//
//
// Forward values computed by hand from te-layer-semantics.md §1.2-1.4; the
// backward against central differences of an independent float64 forward.
//
//===----------------------------------------------------------------------===//

#include "teq/Reference/Norm.h"

#include <gtest/gtest.h>

#include <cmath>
#include <random>

using namespace mlir::teq::reference;

namespace {

TEST(LayerNorm, ForwardByHand) {
  // mean 2.5, var (2.25 + 0.25 + 0.25 + 2.25) / 4 = 1.25; with eps 0.75 the
  // rstd is 1/sqrt(2).
  NormForward f = layerNormForward({1, 4}, {1, 2, 3, 4}, {2, 2, 2, 2},
                                   {1, 1, 1, 1}, 0.75f, false);
  const float rs = 1.0f / std::sqrt(2.0f);
  EXPECT_EQ(f.mean[0], 2.5f);
  EXPECT_EQ(f.rstd[0], rs);
  EXPECT_EQ(f.y[0], 2.0f * (rs * -1.5f) + 1.0f);
  EXPECT_EQ(f.y[3], 2.0f * (rs * 1.5f) + 1.0f);
}

TEST(LayerNorm, ZeroCenteredGammaAddsOne) {
  // gamma 0 with zero_centered_gamma is weight 1; no beta is b = 0.
  NormForward plain = layerNormForward({1, 4}, {1, 2, 3, 4}, {1, 1, 1, 1}, {},
                                       0.75f, false);
  NormForward centred = layerNormForward({1, 4}, {1, 2, 3, 4}, {0, 0, 0, 0},
                                         {}, 0.75f, true);
  EXPECT_EQ(plain.y, centred.y);
  EXPECT_EQ(effectiveGamma(0.5f, true), 1.5f);
}

TEST(LayerNorm, RowsAreIndependent) {
  NormForward f = layerNormForward({2, 2}, {1, 3, 10, 10}, {1, 1}, {}, 1.0f,
                                   false);
  EXPECT_EQ(f.mean[0], 2.0f);
  EXPECT_EQ(f.mean[1], 10.0f);
  // var 1 + eps 1 = 2; a constant row has var 0 + eps 1 = 1.
  EXPECT_EQ(f.rstd[0], 1.0f / std::sqrt(2.0f));
  EXPECT_EQ(f.rstd[1], 1.0f);
  EXPECT_EQ(f.y[2], 0.0f);
}

TEST(RMSNorm, ForwardByHand) {
  // (9 + 16) / 2 + 3.5 = 16: rstd 0.25 exactly.
  NormForward f = rmsNormForward({1, 2}, {3, 4}, {2, 0}, 3.5f, true);
  EXPECT_TRUE(f.mean.empty());
  EXPECT_EQ(f.rstd[0], 0.25f);
  EXPECT_EQ(f.y[0], 3.0f * 0.75f);
  EXPECT_EQ(f.y[1], 1.0f);
}

TEST(Norm, ReciprocalIsF32) {
  EXPECT_EQ(reciprocalOf(3), 1.0f / 3.0f);
  EXPECT_EQ(reciprocalOf(4096), 0x1p-12f);
}

/// sum_j c_j * y_j of an independent float64 forward (LayerNorm or RMSNorm)
/// of one row.
double loss(const std::vector<double> &x, const std::vector<double> &g,
            const std::vector<double> &c, double eps, bool layerNorm) {
  const double n = static_cast<double>(x.size());
  double mu = 0, ms = 0;
  for (double v : x)
    mu += v / n;
  for (double v : x)
    ms += layerNorm ? (v - mu) * (v - mu) / n : v * v / n;
  double rs = 1.0 / std::sqrt(ms + eps), l = 0;
  for (size_t j = 0; j < x.size(); ++j)
    l += c[j] * g[j] * rs * (layerNorm ? x[j] - mu : x[j]);
  return l;
}

void checkBackward(bool layerNorm, bool zeroCentered) {
  const int64_t rows = 3, n = 16;
  std::mt19937 rng(7);
  std::uniform_real_distribution<float> u(-2.0f, 2.0f);
  std::vector<float> x(rows * n), dy(rows * n), gamma(n);
  for (float &v : x)
    v = u(rng);
  for (float &v : dy)
    v = u(rng);
  for (float &v : gamma)
    v = u(rng);
  const float eps = 1e-5f;
  NormForward f = layerNorm
                      ? layerNormForward({rows, n}, x, gamma, {}, eps, zeroCentered)
                      : rmsNormForward({rows, n}, x, gamma, eps, zeroCentered);
  NormBackward b =
      layerNorm
          ? layerNormBackward({rows, n}, dy, x, f.mean, f.rstd, gamma, zeroCentered)
          : rmsNormBackward({rows, n}, dy, x, f.rstd, gamma, zeroCentered);
  EXPECT_EQ(b.dbeta.empty(), !layerNorm);
  std::vector<double> g(n);
  for (int64_t j = 0; j < n; ++j)
    g[j] = effectiveGamma(gamma[j], zeroCentered);
  std::vector<double> dgamma(n, 0.0), dbeta(n, 0.0);
  for (int64_t r = 0; r < rows; ++r) {
    std::vector<double> xr(x.begin() + r * n, x.begin() + (r + 1) * n);
    std::vector<double> c(dy.begin() + r * n, dy.begin() + (r + 1) * n);
    for (int64_t j = 0; j < n; ++j) {
      const double h = 1e-4;
      std::vector<double> plus = xr, minus = xr;
      plus[j] += h;
      minus[j] -= h;
      double numeric = (loss(plus, g, c, eps, layerNorm) -
                        loss(minus, g, c, eps, layerNorm)) /
                       (2 * h);
      EXPECT_NEAR(b.dx[r * n + j], numeric, 2e-3 * (1 + std::fabs(numeric)))
          << "row " << r << " column " << j;
      // dgamma: dy times the normalised x (with gamma 1).
      double xhat = f.rstd[r] * (layerNorm ? xr[j] - f.mean[r] : xr[j]);
      dgamma[j] += c[j] * xhat;
      dbeta[j] += c[j];
    }
  }
  for (int64_t j = 0; j < n; ++j) {
    EXPECT_NEAR(b.dgamma[j], dgamma[j], 1e-5 * (1 + std::fabs(dgamma[j])));
    if (layerNorm) {
      EXPECT_NEAR(b.dbeta[j], dbeta[j], 1e-5 * (1 + std::fabs(dbeta[j])));
    }
  }
}

TEST(LayerNorm, BackwardMatchesCentralDifferences) {
  checkBackward(true, false);
  checkBackward(true, true);
}

TEST(RMSNorm, BackwardMatchesCentralDifferences) {
  checkBackward(false, false);
  checkBackward(false, true);
}

TEST(Norm, ApplyIsTheForwardsY) {
  std::vector<float> x = {0.5f, -1.25f, 3.0f, 7.5f, -2.0f, 0.125f};
  std::vector<float> gamma = {0.9f, 1.1f, -0.3f}, beta = {0.1f, 0.0f, -0.2f};
  NormForward f = layerNormForward({2, 3}, x, gamma, beta, 1e-5f, true);
  EXPECT_EQ(normApply({2, 3}, x, f.mean, f.rstd, gamma, beta, true), f.y);
  NormForward r = rmsNormForward({2, 3}, x, gamma, 1e-5f, false);
  EXPECT_EQ(normApply({2, 3}, x, {}, r.rstd, gamma, {}, false), r.y);
}

// TE's rmsnorm_bwd_add: `add` goes into dx in f32 (dx_f32 + add, the
// caller rounds once); dgamma and dbeta do not see it.
TEST(Norm, BackwardAddIsAddedInF32) {
  std::vector<float> x = {0.5f, -1.25f, 3.0f, 7.5f, -2.0f, 0.125f};
  std::vector<float> dy = {1.0f, -0.5f, 0.25f, 2.0f, 0.75f, -1.5f};
  std::vector<float> gamma = {0.9f, 1.1f, -0.3f};
  // Not representable in bf16 alongside dx: an f32 sum, not a bf16 one.
  std::vector<float> add = {1e-3f, -3.0f, 0.1f, 1e4f, -1e-7f, 0.0f};
  NormForward f = layerNormForward({2, 3}, x, gamma, {}, 1e-5f, false);
  NormBackward plain =
      layerNormBackward({2, 3}, dy, x, f.mean, f.rstd, gamma, false);
  NormBackward added =
      layerNormBackward({2, 3}, dy, x, f.mean, f.rstd, gamma, false, add);
  for (size_t i = 0; i < x.size(); ++i)
    EXPECT_EQ(added.dx[i], plain.dx[i] + add[i]) << i;
  EXPECT_EQ(added.dgamma, plain.dgamma);
  EXPECT_EQ(added.dbeta, plain.dbeta);
  NormForward r = rmsNormForward({2, 3}, x, gamma, 1e-5f, true);
  NormBackward rPlain = rmsNormBackward({2, 3}, dy, x, r.rstd, gamma, true);
  NormBackward rAdded =
      rmsNormBackward({2, 3}, dy, x, r.rstd, gamma, true, add);
  for (size_t i = 0; i < x.size(); ++i)
    EXPECT_EQ(rAdded.dx[i], rPlain.dx[i] + add[i]) << i;
  EXPECT_EQ(rAdded.dgamma, rPlain.dgamma);
}

} // namespace
