//===- NumericsTest.cpp - Element conversions, scale rules, Philox, RHT ---===//
//
// Expected values are computed by hand from te-semantics.md §5 / §11 and the
// published format and algorithm definitions, not from the implementation.
//
//===----------------------------------------------------------------------===//

#include "teq/Reference/Hadamard.h"
#include "teq/Reference/Numerics.h"
#include "teq/Reference/Random.h"

#include <gtest/gtest.h>

#include <cfloat>
#include <cmath>
#include <limits>

using namespace mlir::teq::reference;

namespace {

const float kInf = std::numeric_limits<float>::infinity();
const float kNaN = std::numeric_limits<float>::quiet_NaN();

//===----------------------------------------------------------------------===//
// BF16 / FP16
//===----------------------------------------------------------------------===//

TEST(BF16, Widening) {
  EXPECT_EQ(bf16ToFloat(0x3F80), 1.0f);
  EXPECT_EQ(bf16ToFloat(0xC000), -2.0f);
  EXPECT_EQ(bf16ToFloat(0x7F7F), kBF16Max);
  EXPECT_EQ(floatBits(kBF16Max), 0x7F7F0000u);
  EXPECT_EQ(bf16ToFloat(0x0001), std::ldexp(1.0f, -133)); // Subnormal.
  EXPECT_TRUE(std::isinf(bf16ToFloat(0x7F80)));
}

TEST(BF16, RoundToNearestEven) {
  // 1 + 2^-8 is halfway between 1 and 1 + 2^-7: ties to even (1.0).
  EXPECT_EQ(floatToBF16(1.0f + std::ldexp(1.0f, -8)), 0x3F80);
  // 1 + 3*2^-8 is halfway between 1+2^-7 (odd) and 1+2^-6: up.
  EXPECT_EQ(floatToBF16(1.0f + 3 * std::ldexp(1.0f, -8)), 0x3F82);
  EXPECT_EQ(floatToBF16(1.0f + std::ldexp(1.0f, -8) + std::ldexp(1.0f, -20)),
            0x3F81);
  EXPECT_EQ(floatToBF16(-0.0f), 0x8000);
  EXPECT_EQ(floatToBF16(FLT_MAX), 0x7F80); // Overflows to inf.
  EXPECT_EQ(floatToBF16(kBF16Max), 0x7F7F);
  EXPECT_EQ(floatToBF16(-kInf), 0xFF80);
  EXPECT_EQ(floatToBF16(kNaN), 0x7FFF); // Canonical, either sign.
  EXPECT_EQ(floatToBF16(-kNaN), 0x7FFF);
  EXPECT_EQ(floatToBF16(std::ldexp(1.0f, -133)), 0x0001); // Subnormal kept.
}

TEST(F16, Conversions) {
  EXPECT_EQ(f16ToFloat(0x3C00), 1.0f);
  EXPECT_EQ(f16ToFloat(0x7BFF), 65504.0f);
  EXPECT_EQ(f16ToFloat(0x0001), std::ldexp(1.0f, -24));
  EXPECT_EQ(f16ToFloat(0x8400), -std::ldexp(1.0f, -14));
  EXPECT_TRUE(std::isinf(f16ToFloat(0xFC00)));
  EXPECT_TRUE(std::isnan(f16ToFloat(0x7E00)));
  EXPECT_EQ(floatToF16(1.0f), 0x3C00);
  EXPECT_EQ(floatToF16(65504.0f), 0x7BFF);
  EXPECT_EQ(floatToF16(65519.0f), 0x7BFF); // Below the 65520 tie.
  EXPECT_EQ(floatToF16(65520.0f), 0x7C00); // Tie to even -> 65536 -> inf.
  EXPECT_EQ(floatToF16(std::ldexp(1.0f, -25)), 0x0000); // Tie to 0.
  EXPECT_EQ(floatToF16(std::ldexp(3.0f, -26)), 0x0001);
  EXPECT_EQ(floatToF16(-std::ldexp(1.0f, -24)), 0x8001);
  EXPECT_EQ(floatToF16(1.0f + std::ldexp(1.0f, -11)), 0x3C00); // Tie, even.
  EXPECT_EQ(floatToF16(kNaN), 0x7FFF);
  EXPECT_EQ(floatToF16(-kNaN), 0x7FFF);
  EXPECT_EQ(roundTo(DType::F16, 0.1f), f16ToFloat(0x2E66));
}

//===----------------------------------------------------------------------===//
// FP8
//===----------------------------------------------------------------------===//

TEST(E4M3, Encode) {
  EXPECT_EQ(floatToE4M3(0.0f), 0x00);
  EXPECT_EQ(floatToE4M3(-0.0f), 0x80);
  EXPECT_EQ(floatToE4M3(1.0f), 0x38);
  EXPECT_EQ(floatToE4M3(-2.0f), 0xC0);
  EXPECT_EQ(floatToE4M3(448.0f), 0x7E);
  EXPECT_EQ(floatToE4M3(-448.0f), 0xFE);
  EXPECT_EQ(floatToE4M3(449.0f), 0x7E);   // Rounds to 448.
  EXPECT_EQ(floatToE4M3(464.0f), 0x7E);   // Tie 448 (even) / 480: 448.
  EXPECT_EQ(floatToE4M3(465.0f), 0x7E);   // Saturates.
  EXPECT_EQ(floatToE4M3(1e30f), 0x7E);
  EXPECT_EQ(floatToE4M3(kInf), 0x7E);     // §11: inf saturates.
  EXPECT_EQ(floatToE4M3(-kInf), 0xFE);
  EXPECT_EQ(floatToE4M3(416.0f), 0x7D);   // Exact.
  EXPECT_EQ(floatToE4M3(432.0f), 0x7E);   // Tie 416 (odd) / 448: 448.
  EXPECT_EQ(floatToE4M3(0.001953125f), 0x01); // 2^-9: smallest subnormal.
  EXPECT_EQ(floatToE4M3(std::ldexp(1.0f, -10)), 0x00); // Tie with 0: even.
  EXPECT_EQ(floatToE4M3(std::ldexp(1.5f, -10)), 0x01);
  EXPECT_EQ(floatToE4M3(-std::ldexp(1.0f, -11)), 0x80); // Keeps the sign.
  EXPECT_EQ(floatToE4M3(std::ldexp(7.0f, -9)), 0x07);   // Largest subnormal.
  EXPECT_EQ(floatToE4M3(std::ldexp(1.0f, -6)), 0x08);   // Smallest normal.
  EXPECT_EQ(floatToE4M3(1.0625f), 0x38);  // Tie 1 (even) / 1.125: 1.
  EXPECT_EQ(floatToE4M3(1.1875f), 0x3A);  // Tie 1.125 (odd) / 1.25: 1.25.
  EXPECT_EQ(floatToE4M3(kNaN), 0x7F);
  EXPECT_EQ(floatToE4M3(-kNaN), 0x7F); // The hardware drops the sign.
}

TEST(E4M3, Decode) {
  EXPECT_EQ(e4m3ToFloat(0x7E), 448.0f);
  EXPECT_EQ(e4m3ToFloat(0xFE), -448.0f);
  EXPECT_EQ(e4m3ToFloat(0x01), 0.001953125f);
  EXPECT_EQ(e4m3ToFloat(0x38), 1.0f);
  EXPECT_TRUE(std::isnan(e4m3ToFloat(0x7F)));
  EXPECT_TRUE(std::isnan(e4m3ToFloat(0xFF)));
  EXPECT_TRUE(std::signbit(e4m3ToFloat(0x80)));
  // Every non-NaN code round-trips.
  for (int code = 0; code < 256; ++code) {
    if ((code & 0x7F) == 0x7F)
      continue;
    EXPECT_EQ(floatToE4M3(e4m3ToFloat(static_cast<uint8_t>(code))), code);
  }
}

TEST(E5M2, EncodeDecode) {
  EXPECT_EQ(floatToE5M2(57344.0f), 0x7B);
  EXPECT_EQ(floatToE5M2(61439.0f), 0x7B);
  EXPECT_EQ(floatToE5M2(61440.0f), 0x7B); // Tie 57344 (odd) / 65536: sat.
  EXPECT_EQ(floatToE5M2(-61440.0f), 0xFB);
  EXPECT_EQ(floatToE5M2(kInf), 0x7B);
  EXPECT_EQ(floatToE5M2(1.0f), 0x3C);
  EXPECT_EQ(floatToE5M2(std::ldexp(1.0f, -16)), 0x01); // Smallest subnormal.
  EXPECT_EQ(floatToE5M2(-std::ldexp(1.0f, -18)), 0x80);
  EXPECT_EQ(floatToE5M2(1.125f), 0x3C); // Tie 1 (even) / 1.25: 1.
  EXPECT_EQ(floatToE5M2(1.375f), 0x3E); // Tie 1.25 (odd) / 1.5: 1.5.
  EXPECT_EQ(floatToE5M2(kNaN), 0x7F);
  EXPECT_EQ(floatToE5M2(-kNaN), 0x7F);
  EXPECT_EQ(e5m2ToFloat(0x7B), 57344.0f);
  EXPECT_TRUE(std::isinf(e5m2ToFloat(0x7C)));
  EXPECT_TRUE(std::isnan(e5m2ToFloat(0x7F)));
  for (int code = 0; code < 256; ++code) {
    if ((code & 0x7C) == 0x7C)
      continue;
    EXPECT_EQ(floatToE5M2(e5m2ToFloat(static_cast<uint8_t>(code))), code);
  }
}

//===----------------------------------------------------------------------===//
// FP4 E2M1
//===----------------------------------------------------------------------===//

TEST(E2M1, TableAndTies) {
  const float table[8] = {0.0f, 0.5f, 1.0f, 1.5f, 2.0f, 3.0f, 4.0f, 6.0f};
  for (int code = 0; code < 16; ++code) {
    float expected = (code & 8) ? -table[code & 7] : table[code & 7];
    EXPECT_EQ(e2m1ToFloat(static_cast<uint8_t>(code)), expected) << code;
    EXPECT_EQ(floatToE2M1(expected), code) << code;
  }
  // §5.0 tie points.
  EXPECT_EQ(floatToE2M1(0.25f), 0x0);
  EXPECT_EQ(floatToE2M1(0.75f), 0x2);
  EXPECT_EQ(floatToE2M1(1.25f), 0x2);
  EXPECT_EQ(floatToE2M1(1.75f), 0x4);
  EXPECT_EQ(floatToE2M1(2.5f), 0x4);
  EXPECT_EQ(floatToE2M1(3.5f), 0x6);
  EXPECT_EQ(floatToE2M1(5.0f), 0x6);
  // Off-tie rounding, saturation, signs.
  EXPECT_EQ(floatToE2M1(0.26f), 0x1);
  EXPECT_EQ(floatToE2M1(5.01f), 0x7);
  EXPECT_EQ(floatToE2M1(100.0f), 0x7);
  EXPECT_EQ(floatToE2M1(kInf), 0x7);
  EXPECT_EQ(floatToE2M1(-kInf), 0xF);
  EXPECT_EQ(floatToE2M1(-2.5f), 0xC);
  EXPECT_EQ(floatToE2M1(-0.1f), 0x8); // §11: keeps the sign.
  EXPECT_EQ(floatToE2M1(-0.0f), 0x8);
  EXPECT_EQ(floatToE2M1(kNaN), 0x7);
}

TEST(E2M1, StochasticRounding) {
  // 0.25 is halfway between 0 and 0.5: frac = 0.5 -> up iff 2^31 > r.
  EXPECT_EQ(floatToE2M1Stochastic(0.25f, 0), 0x1);
  EXPECT_EQ(floatToE2M1Stochastic(0.25f, 0x7FFFFFFFu), 0x1);
  EXPECT_EQ(floatToE2M1Stochastic(0.25f, 0x80000000u), 0x0);
  EXPECT_EQ(floatToE2M1Stochastic(0.25f, 0xFFFFFFFFu), 0x0);
  // 4.5 between 4 and 6: frac = 0.25 -> up iff 2^30 > r.
  EXPECT_EQ(floatToE2M1Stochastic(4.5f, 0x3FFFFFFFu), 0x7);
  EXPECT_EQ(floatToE2M1Stochastic(4.5f, 0x40000000u), 0x6);
  // 2.75 between 2 and 3: frac = 0.75.
  EXPECT_EQ(floatToE2M1Stochastic(-2.75f, 0xBFFFFFFFu), 0xD);
  EXPECT_EQ(floatToE2M1Stochastic(-2.75f, 0xC0000000u), 0xC);
  // Representable values never move; out of range saturates.
  for (uint32_t r : {0u, 1u, 0x80000000u, 0xFFFFFFFFu}) {
    EXPECT_EQ(floatToE2M1Stochastic(3.0f, r), 0x5);
    EXPECT_EQ(floatToE2M1Stochastic(-0.5f, r), 0x9);
    EXPECT_EQ(floatToE2M1Stochastic(0.0f, r), 0x0);
    EXPECT_EQ(floatToE2M1Stochastic(6.5f, r), 0x7);
    EXPECT_EQ(floatToE2M1Stochastic(-kInf, r), 0xF);
  }
  // A negative value rounding down to zero keeps its sign.
  EXPECT_EQ(floatToE2M1Stochastic(-0.1f, 0xFFFFFFFFu), 0x8);
  // A tiny value (frac = 2^-40) only rounds up when r == 0.
  EXPECT_EQ(floatToE2M1Stochastic(std::ldexp(1.0f, -41), 0), 0x1);
  EXPECT_EQ(floatToE2M1Stochastic(std::ldexp(1.0f, -41), 1), 0x0);
}

//===----------------------------------------------------------------------===//
// Scale rules
//===----------------------------------------------------------------------===//

TEST(ComputeScale, EdgeCases) {
  // §5.1 with value_for_inf = FLT_MAX.
  EXPECT_EQ(computeScaleFromAmax(0.0f, 448.0f, false, 0.0f, FLT_MAX), 1.0f);
  EXPECT_EQ(computeScaleFromAmax(kInf, 448.0f, false, 0.0f, FLT_MAX), 1.0f);
  EXPECT_EQ(computeScaleFromAmax(kNaN, 448.0f, false, 0.0f, FLT_MAX), 1.0f);
  EXPECT_EQ(computeScaleFromAmax(kNaN, 448.0f, false, 1.0f, FLT_MAX), 1.0f);
  EXPECT_EQ(computeScaleFromAmax(224.0f, 448.0f, false, 0.0f, FLT_MAX), 2.0f);
  EXPECT_EQ(computeScaleFromAmax(3.0f, 448.0f, false, 0.0f, FLT_MAX),
            448.0f / 3.0f);
  // Tiny amax: 448 / 1e-45 overflows -> value_for_inf.
  EXPECT_EQ(computeScaleFromAmax(1e-45f, 448.0f, false, 0.0f, FLT_MAX),
            FLT_MAX);
  EXPECT_EQ(computeScaleFromAmax(1e-45f, 448.0f, false, 0.0f, kBF16Max),
            kBF16Max);
  EXPECT_EQ(computeScaleFromAmax(1e-45f, 448.0f, true, 0.0f, FLT_MAX),
            std::ldexp(1.0f, 127)); // FLT_MAX rounded down to a power of 2.
  // Epsilon floors the amax (also a zero amax).
  EXPECT_EQ(computeScaleFromAmax(0.0f, 448.0f, false, 2.0f, FLT_MAX), 224.0f);
  EXPECT_EQ(computeScaleFromAmax(1.0f, 448.0f, false, 2.0f, FLT_MAX), 224.0f);
  EXPECT_EQ(computeScaleFromAmax(4.0f, 448.0f, false, 2.0f, FLT_MAX), 112.0f);
  // pow2 rounds down: 448/3 = 149.33 -> 128; 448/0.75 = 597.3 -> 512.
  EXPECT_EQ(computeScaleFromAmax(3.0f, 448.0f, true, 0.0f, FLT_MAX), 128.0f);
  EXPECT_EQ(computeScaleFromAmax(0.75f, 448.0f, true, 0.0f, FLT_MAX), 512.0f);
  EXPECT_EQ(computeScaleFromAmax(448.0f, 448.0f, true, 0.0f, FLT_MAX), 1.0f);
  EXPECT_EQ(computeScaleFromAmax(57344.0f, 448.0f, true, 0.0f, FLT_MAX),
            std::ldexp(1.0f, -7)); // 448/57344 = 2^-7 exactly: kept.
  EXPECT_EQ(computeScaleFromAmax(60000.0f, 448.0f, true, 0.0f, FLT_MAX),
            std::ldexp(1.0f, -8)); // 0.00747 in [2^-8, 2^-7) -> 2^-8.
  EXPECT_EQ(reciprocal(4.0f), 0.25f);
  EXPECT_EQ(reciprocal(3.0f), 1.0f / 3.0f);
}

TEST(E8M0, FloatToE8M0) {
  EXPECT_EQ(floatToE8M0(1.0f), 127);
  EXPECT_EQ(floatToE8M0(1.0000001f), 128); // Rounds up.
  EXPECT_EQ(floatToE8M0(2.0f), 128);
  EXPECT_EQ(floatToE8M0(0.75f), 127);      // 2^-1 * 1.5 -> 2^0.
  EXPECT_EQ(floatToE8M0(0.0f), 0);
  EXPECT_EQ(floatToE8M0(kInf), 0xFE);
  EXPECT_EQ(floatToE8M0(kNaN), 0xFF);
  EXPECT_EQ(floatToE8M0(FLT_MAX), 0xFE);   // Saturates at exponent 254.
  EXPECT_EQ(floatToE8M0(std::ldexp(1.0f, 127)), 0xFE);
  EXPECT_EQ(floatToE8M0(std::ldexp(1.0f, -126)), 1);
  EXPECT_EQ(floatToE8M0(std::ldexp(1.0f, -127)), 0);  // Mantissa 0x400000.
  EXPECT_EQ(floatToE8M0(std::ldexp(1.0f, -140)), 0);
  EXPECT_EQ(floatToE8M0(std::ldexp(1.5f, -127)), 1);  // Mantissa 0x600000.
  EXPECT_EQ(floatToE8M0(std::ldexp(1.0f, -149)), 0);
}

TEST(E8M0, ScalesAndBlockExponent) {
  EXPECT_EQ(e8m0ToFloat(127), 1.0f);
  EXPECT_EQ(e8m0ToFloat(0), std::ldexp(1.0f, -127));
  EXPECT_EQ(e8m0ToFloat(254), std::ldexp(1.0f, 127));
  EXPECT_TRUE(std::isnan(e8m0ToFloat(255)));
  EXPECT_EQ(e8m0ReciprocalScale(127), 1.0f);
  EXPECT_EQ(e8m0ReciprocalScale(0), std::ldexp(1.0f, 127));
  EXPECT_EQ(e8m0ReciprocalScale(254), std::ldexp(1.0f, -127));
  EXPECT_EQ(e8m0ReciprocalScale(253), std::ldexp(1.0f, -126));
  EXPECT_TRUE(std::isnan(e8m0ReciprocalScale(255)));
  // 448 * (float)(1/448) rounds to exactly 1.0 -> 127.
  EXPECT_EQ(mxfp8BlockExponent(448.0f, FP8Type::E4M3), 127);
  EXPECT_EQ(mxfp8BlockExponent(449.0f, FP8Type::E4M3), 128);
  EXPECT_EQ(mxfp8BlockExponent(0.0f, FP8Type::E4M3), 0);
  EXPECT_EQ(mxfp8BlockExponent(kInf, FP8Type::E4M3), 0xFE);
  // amax 1: v = 1/448 in [2^-9, 2^-8) -> 2^-8 -> 127 - 8.
  EXPECT_EQ(mxfp8BlockExponent(1.0f, FP8Type::E4M3), 119);
  EXPECT_EQ(mxfp8BlockExponent(57344.0f, FP8Type::E5M2), 127);
  EXPECT_EQ(mxfp8BlockExponent(57345.0f, FP8Type::E5M2), 128);
}

TEST(NVFP4Scales, Rules) {
  EXPECT_EQ(nvfp4GlobalEncodeScale(6.0f), 448.0f);
  EXPECT_EQ(nvfp4GlobalEncodeScale(2688.0f), 1.0f);
  EXPECT_EQ(nvfp4GlobalEncodeScale(0.0f), 1.0f);
  EXPECT_EQ(nvfp4GlobalEncodeScale(kInf), 1.0f);       // 2688/inf = 0 -> 1.
  EXPECT_EQ(nvfp4GlobalEncodeScale(1e-45f), FLT_MAX);  // inf -> FLT_MAX.
  EXPECT_EQ(nvfp4GlobalEncodeScale(10.0f), 2688.0f / 10.0f);
  // Block scales with S_enc = 448: amax 6 -> 448 (0x7E), 3 -> 224 (0x76),
  // 0 -> 0.
  EXPECT_EQ(nvfp4BlockScale(6.0f, 448.0f), 0x7E);
  EXPECT_EQ(nvfp4BlockScale(3.0f, 448.0f), 0x76);
  EXPECT_EQ(nvfp4BlockScale(0.0f, 448.0f), 0x00);
  EXPECT_EQ(nvfp4BlockScale(kInf, 448.0f), 0x7E); // fminf then saturate.
  EXPECT_EQ(nvfp4BlockEncodeMultiplier(0x7E, 448.0f), 1.0f);
  EXPECT_EQ(nvfp4BlockEncodeMultiplier(0x76, 448.0f), 2.0f);
  EXPECT_EQ(nvfp4BlockEncodeMultiplier(0x00, 448.0f), FLT_MAX);
  // Decode: 448 * 6 / 2688 -> 1 (within fp32 rounding of 1/2688).
  EXPECT_NEAR(nvfp4DecodeMultiplier(0x7E, 6.0f), 1.0f, 1e-7f);
  EXPECT_EQ(nvfp4DecodeMultiplier(0x7E, 6.0f),
            (448.0f * 6.0f) * static_cast<float>(1.0 / 2688.0));
}

TEST(Amax, IgnoresNaN) {
  EXPECT_EQ(amaxAccumulate(0.0f, -3.0f), 3.0f);
  EXPECT_EQ(amaxAccumulate(2.0f, kNaN), 2.0f);
  EXPECT_EQ(amaxAccumulate(2.0f, -kInf), kInf);
}

//===----------------------------------------------------------------------===//
// Philox
//===----------------------------------------------------------------------===//

TEST(Philox, Random123KnownAnswers) {
  // Random123 tests/kat_vectors, philox4x32 with 10 rounds.
  EXPECT_EQ(philox4x32_10({0, 0, 0, 0}, {0, 0}),
            (PhiloxCounter{0x6627e8d5u, 0xe169c58du, 0xbc57ac4cu,
                           0x9b00dbd8u}));
  EXPECT_EQ(philox4x32_10({0xffffffffu, 0xffffffffu, 0xffffffffu, 0xffffffffu},
                          {0xffffffffu, 0xffffffffu}),
            (PhiloxCounter{0x408f276du, 0x41c83b0eu, 0xa20bc7c6u,
                           0x6d5451fdu}));
  EXPECT_EQ(philox4x32_10({0x243f6a88u, 0x85a308d3u, 0x13198a2eu, 0x03707344u},
                          {0xa4093822u, 0x299f31d0u}),
            (PhiloxCounter{0xd16cfe09u, 0x94fdccebu, 0x5001e420u,
                           0x24126ea1u}));
}

TEST(Philox, RoundByHand) {
  // One round from the definition: ctr {1, 2, 3, 4}, key {5, 6}.
  // 0xD2511F53 * 1 = 0x00000000'D2511F53; 0xCD9E8D57 * 3 = 0x2'68DBA805.
  PhiloxCounter out = philoxRound({1, 2, 3, 4}, {5, 6});
  EXPECT_EQ(out[0], 0x2u ^ 2u ^ 5u);
  EXPECT_EQ(out[1], 0x68DBA805u);
  EXPECT_EQ(out[2], 0x0u ^ 4u ^ 6u);
  EXPECT_EQ(out[3], 0xD2511F53u);
}

TEST(Philox, WordMapping) {
  // index i uses counter {i/4, 0, offset lo, offset hi}, word i%4.
  PhiloxCounter block0 = philox4x32_10({0, 0, 7, 0}, {42, 0});
  PhiloxCounter block1 = philox4x32_10({1, 0, 7, 0}, {42, 0});
  for (int i = 0; i < 4; ++i) {
    EXPECT_EQ(philoxRandomWord(42, 7, i), block0[i]);
    EXPECT_EQ(philoxRandomWord(42, 7, 4 + i), block1[i]);
  }
  // 64-bit seed / offset / index halves.
  PhiloxCounter wide = philox4x32_10({0x2u, 0x1u, 0x4u, 0x3u}, {0x6u, 0x5u});
  EXPECT_EQ(philoxRandomWord(0x0000000500000006ull, 0x0000000300000004ull,
                             (0x0000000100000002ull << 2) | 1),
            wide[1]);
  // Zero seed/offset, index 0..3 is the first KAT.
  EXPECT_EQ(philoxRandomWord(0, 0, 2), 0xbc57ac4cu);
}

//===----------------------------------------------------------------------===//
// RHT
//===----------------------------------------------------------------------===//

TEST(RHT, SignVector) {
  const int s[16] = {1, 1, 1, -1, 1, -1, -1, -1, -1, -1, -1, 1, -1, 1, -1, -1};
  uint16_t mask = 0;
  for (int i = 0; i < 16; ++i) {
    EXPECT_EQ(rhtSign(i), static_cast<float>(s[i]));
    if (s[i] < 0)
      mask |= static_cast<uint16_t>(1u << i);
  }
  EXPECT_EQ(mask, kRHTSignMask);
}

TEST(RHT, MatrixOrthogonal) {
  auto matrix = rhtMatrix();
  for (float entry : matrix) {
    EXPECT_EQ(std::fabs(entry), 0.25f); // Exact in BF16.
    EXPECT_EQ(roundTo(DType::BF16, entry), entry);
  }
  // M Mᵀ = I (exactly: entries +-1/4, 16 terms).
  for (int i = 0; i < 16; ++i) {
    for (int j = 0; j < 16; ++j) {
      double dot = 0.0;
      for (int l = 0; l < 16; ++l)
        dot += static_cast<double>(matrix[i * 16 + l]) * matrix[j * 16 + l];
      EXPECT_EQ(dot, i == j ? 1.0 : 0.0) << i << "," << j;
    }
  }
  // Row 0 of H is all ones: M[0][j] = s[0]/4 = 0.25; column 0 is s[i]/4.
  for (int j = 0; j < 16; ++j)
    EXPECT_EQ(matrix[j], 0.25f);
  for (int i = 0; i < 16; ++i)
    EXPECT_EQ(matrix[i * 16], rhtSign(i) * 0.25f);
}

TEST(RHT, HandCases) {
  // e_0 = [1, 0, ...]: y[j] = s[0] H[0][j] / 4 = 0.25 everywhere.
  std::array<float, 16> v{};
  v[0] = 1.0f;
  for (float y : rht16(v))
    EXPECT_EQ(y, 0.25f);
  // e_3: s[3] = -1, H[3][j] = (-1)^popcount(3 & j): j = 0 -> -0.25,
  // j = 1 -> +0.25, j = 2 -> +0.25, j = 3 -> -0.25, period 4.
  v = {};
  v[3] = 2.0f;
  auto y = rht16(v);
  const float expected3[4] = {-0.5f, 0.5f, 0.5f, -0.5f};
  for (int j = 0; j < 16; ++j)
    EXPECT_EQ(y[j], expected3[j % 4]) << j;
  // All ones: y[j] = sum_i s[i] H[i][j] / 4; for j = 0 that is
  // sum(s) / 4 = (6 - 10) / 4 = -1.
  v.fill(1.0f);
  y = rht16(v);
  EXPECT_EQ(y[0], -1.0f);
  // The butterfly equals the matrix product (exact here).
  auto matrix = rhtMatrix();
  std::array<float, 16> w;
  for (int i = 0; i < 16; ++i)
    w[i] = roundTo(DType::BF16, 0.37f * static_cast<float>(i) - 2.1f);
  auto fast = rht16F32(w);
  for (int j = 0; j < 16; ++j) {
    double sum = 0.0;
    for (int i = 0; i < 16; ++i)
      sum += static_cast<double>(w[i]) * matrix[i * 16 + j];
    EXPECT_EQ(static_cast<double>(fast[j]), sum) << j;
  }
  // Energy is preserved (orthogonal transform) before BF16 rounding.
  double before = 0.0, after = 0.0;
  for (int i = 0; i < 16; ++i) {
    before += static_cast<double>(w[i]) * w[i];
    after += static_cast<double>(fast[i]) * fast[i];
  }
  EXPECT_NEAR(before, after, 1e-9);
}

TEST(RHT, RoundsToBF16) {
  // v = [1, 2^-9, 0, ...]: a = [1/4, 2^-11, 0, ...], so y[j] = 1/4 +- 2^-11
  // (+ for even j, - for odd j), which BF16 cannot hold:
  //  - 1/4 + 2^-11 is a quarter of BF16's spacing (2^-9) above 1/4 -> 1/4;
  //  - 1/4 - 2^-11 lies in [1/8, 1/4) where the spacing is 2^-10: it is the
  //    midpoint of 1/4 - 2^-10 (odd mantissa) and 1/4 (even) -> 1/4.
  std::array<float, 16> v{};
  v[0] = 1.0f;
  v[1] = std::ldexp(1.0f, -9);
  auto exact = rht16F32(v);
  EXPECT_EQ(exact[0], (1.0f + std::ldexp(1.0f, -9)) * 0.25f);
  auto y = rht16(v);
  EXPECT_EQ(y[0], 0.25f);
  EXPECT_EQ(y[1], 0.25f);
}

} // namespace
