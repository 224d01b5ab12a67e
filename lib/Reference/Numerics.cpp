//===- Numerics.cpp - Exact element conversions and scale rules -----------===//
//
// Software conversions between fp32 and the narrow element types, and TE's
// scale rules (te-semantics.md §5). Rounding to a narrow grid is done on
// doubles, where every step is exact: |x| / quantum is an exact power-of-two
// scaling of a float, and rounding it to an integer is done by hand (ties to
// even), independent of the FP environment.
//
//===----------------------------------------------------------------------===//

#include "teq/Reference/Numerics.h"

#include <algorithm>
#include <cfloat>
#include <cmath>
#include <cstring>
#include <limits>

namespace mlir::teq::reference {

//===----------------------------------------------------------------------===//
// Constants and bit casts
//===----------------------------------------------------------------------===//

const char *stringifyDType(DType dtype) {
  switch (dtype) {
  case DType::F32:
    return "f32";
  case DType::BF16:
    return "bf16";
  case DType::F16:
    return "f16";
  }
  return "unknown";
}

float maxFinite(DType dtype) {
  switch (dtype) {
  case DType::F32:
    return FLT_MAX;
  case DType::BF16:
    return kBF16Max;
  case DType::F16:
    return kF16Max;
  }
  return FLT_MAX;
}

float fp8Max(FP8Type type) {
  return type == FP8Type::E4M3 ? kE4M3Max : kE5M2Max;
}

uint32_t floatBits(float value) {
  uint32_t bits;
  std::memcpy(&bits, &value, sizeof(bits));
  return bits;
}

float floatFromBits(uint32_t bits) {
  float value;
  std::memcpy(&value, &bits, sizeof(value));
  return value;
}

namespace {

//===----------------------------------------------------------------------===//
// Generic narrow binary floating-point formats
//===----------------------------------------------------------------------===//

/// A binary format with `manBits` stored mantissa bits, exponent bias `bias`
/// and a smallest normal exponent of 1 - bias.
struct MiniFormat {
  int manBits;
  int bias;
  int minNormalExp() const { return 1 - bias; }
};

constexpr MiniFormat kE4M3{3, 7};
constexpr MiniFormat kE5M2{2, 15};
constexpr MiniFormat kE2M1{1, 1};
constexpr MiniFormat kF16{10, 15};

/// Round the integer-scaled value `v` (exact in double) to an integer, ties
/// to even.
double roundHalfEven(double v) {
  double floor = std::floor(v);
  double diff = v - floor; // Exact: v has few significant bits.
  if (diff > 0.5)
    return floor + 1.0;
  if (diff < 0.5)
    return floor;
  return std::fmod(floor, 2.0) == 0.0 ? floor : floor + 1.0;
}

/// |a| (finite, >= 0) rounded to nearest even on the grid of `format`,
/// subnormals included, without any range limit.
double roundToGrid(double a, const MiniFormat &format) {
  int exp = a == 0.0 ? format.minNormalExp()
                     : std::max(std::ilogb(a), format.minNormalExp());
  double quantum = std::ldexp(1.0, exp - format.manBits);
  return roundHalfEven(a / quantum) * quantum;
}

/// Exponent and mantissa fields (no sign) of a representable magnitude.
uint32_t encodeMagnitude(double v, const MiniFormat &format) {
  double minNormal = std::ldexp(1.0, format.minNormalExp());
  if (v < minNormal) // Subnormal (or zero): exponent field 0.
    return static_cast<uint32_t>(
        v / std::ldexp(1.0, format.minNormalExp() - format.manBits));
  int exp = std::ilogb(v);
  uint32_t mantissa = static_cast<uint32_t>(
      v / std::ldexp(1.0, exp - format.manBits) - std::ldexp(1.0, format.manBits));
  return (static_cast<uint32_t>(exp + format.bias) << format.manBits) |
         mantissa;
}

/// The magnitude of finite fields (no sign) `code`.
double decodeMagnitude(uint32_t code, const MiniFormat &format) {
  uint32_t exp = code >> format.manBits;
  uint32_t mantissa = code & ((1u << format.manBits) - 1);
  if (exp == 0)
    return std::ldexp(static_cast<double>(mantissa),
                      format.minNormalExp() - format.manBits);
  return std::ldexp(static_cast<double>((1u << format.manBits) | mantissa),
                    static_cast<int>(exp) - format.bias - format.manBits);
}

/// RNE + satfinite conversion of a finite or infinite non-NaN `value`:
/// returns the magnitude code; `maxCode` encodes `maxValue`.
uint32_t saturatingMagnitude(float value, const MiniFormat &format,
                             double maxValue, uint32_t maxCode) {
  double a = std::fabs(static_cast<double>(value));
  if (a >= maxValue) // Includes inf.
    return maxCode;
  double rounded = roundToGrid(a, format);
  if (rounded > maxValue)
    return maxCode;
  return encodeMagnitude(rounded, format);
}

} // namespace

//===----------------------------------------------------------------------===//
// BF16 / FP16
//===----------------------------------------------------------------------===//

float bf16ToFloat(uint16_t bits) {
  return floatFromBits(static_cast<uint32_t>(bits) << 16);
}

uint16_t floatToBF16(float value) {
  uint32_t bits = floatBits(value);
  if ((bits & 0x7FFFFFFFu) > 0x7F800000u) // NaN: canonical, as cvt.rn.bf16.
    return 0x7FFFu;
  uint32_t lsb = (bits >> 16) & 1u;
  bits += 0x7FFFu + lsb; // Round to nearest even; carries into the exponent.
  return static_cast<uint16_t>(bits >> 16);
}

float f16ToFloat(uint16_t bits) {
  uint32_t sign = bits & 0x8000u;
  uint32_t exp = (bits >> 10) & 0x1Fu;
  uint32_t mantissa = bits & 0x3FFu;
  float magnitude;
  if (exp == 0x1F)
    magnitude = mantissa ? std::numeric_limits<float>::quiet_NaN()
                         : std::numeric_limits<float>::infinity();
  else
    magnitude = static_cast<float>(decodeMagnitude(bits & 0x7FFFu, kF16));
  return sign ? -magnitude : magnitude;
}

uint16_t floatToF16(float value) {
  if (std::isnan(value)) // Canonical, as cvt.rn.f16.f32.
    return 0x7FFFu;
  uint16_t sign = std::signbit(value) ? 0x8000u : 0u;
  double a = std::fabs(static_cast<double>(value));
  if (std::isinf(value))
    return static_cast<uint16_t>(0x7C00u | sign);
  double rounded = roundToGrid(a, kF16);
  if (rounded > kF16Max)
    return static_cast<uint16_t>(0x7C00u | sign);
  return static_cast<uint16_t>(encodeMagnitude(rounded, kF16) | sign);
}

float roundTo(DType dtype, float value) {
  switch (dtype) {
  case DType::F32:
    return value;
  case DType::BF16:
    return bf16ToFloat(floatToBF16(value));
  case DType::F16:
    return f16ToFloat(floatToF16(value));
  }
  return value;
}

//===----------------------------------------------------------------------===//
// FP8 / FP4 encoding
//===----------------------------------------------------------------------===//

uint8_t floatToE4M3(float value) {
  if (std::isnan(value)) // Every NaN, either sign, as the hardware cvt.
    return 0x7Fu;
  uint8_t sign = std::signbit(value) ? 0x80u : 0u;
  return static_cast<uint8_t>(
      saturatingMagnitude(value, kE4M3, kE4M3Max, 0x7Eu) | sign);
}

uint8_t floatToE5M2(float value) {
  if (std::isnan(value)) // Every NaN, either sign, as the hardware cvt.
    return 0x7Fu;
  uint8_t sign = std::signbit(value) ? 0x80u : 0u;
  return static_cast<uint8_t>(
      saturatingMagnitude(value, kE5M2, kE5M2Max, 0x7Bu) | sign);
}

uint8_t floatToFP8(FP8Type type, float value) {
  return type == FP8Type::E4M3 ? floatToE4M3(value) : floatToE5M2(value);
}

uint8_t floatToE2M1(float value) {
  if (std::isnan(value))
    return 0x7u;
  uint8_t sign = std::signbit(value) ? 0x8u : 0u;
  return static_cast<uint8_t>(
      saturatingMagnitude(value, kE2M1, kE2M1Max, 0x7u) | sign);
}

uint8_t floatToE2M1Stochastic(float value, uint32_t random) {
  if (std::isnan(value))
    return 0x7u;
  uint8_t sign = std::signbit(value) ? 0x8u : 0u;
  float a = std::fabs(value);
  if (a >= kE2M1Max)
    return static_cast<uint8_t>(0x7u | sign);
  // Adjacent grid points lo <= a < hi = lo + step.
  float step = a < 2.0f ? 0.5f : (a < 4.0f ? 1.0f : 2.0f);
  float lo = std::floor(a / step) * step; // Exact: power-of-two scalings.
  float hi = lo + step;
  float frac = (a - lo) / step; // Exact (Sterbenz; power-of-two divisor).
  bool up = static_cast<double>(frac) * 4294967296.0 >
            static_cast<double>(random);
  float magnitude = up ? hi : lo;
  return static_cast<uint8_t>(encodeMagnitude(magnitude, kE2M1) | sign);
}

//===----------------------------------------------------------------------===//
// Decoding
//===----------------------------------------------------------------------===//

float e4m3ToFloat(uint8_t code) {
  if ((code & 0x7Fu) == 0x7Fu)
    return std::numeric_limits<float>::quiet_NaN();
  float magnitude = static_cast<float>(decodeMagnitude(code & 0x7Fu, kE4M3));
  return (code & 0x80u) ? -magnitude : magnitude;
}

float e5m2ToFloat(uint8_t code) {
  uint32_t exp = (code >> 2) & 0x1Fu;
  float magnitude;
  if (exp == 0x1F)
    magnitude = (code & 0x3u) ? std::numeric_limits<float>::quiet_NaN()
                              : std::numeric_limits<float>::infinity();
  else
    magnitude = static_cast<float>(decodeMagnitude(code & 0x7Fu, kE5M2));
  return (code & 0x80u) ? -magnitude : magnitude;
}

float fp8ToFloat(FP8Type type, uint8_t code) {
  return type == FP8Type::E4M3 ? e4m3ToFloat(code) : e5m2ToFloat(code);
}

float e2m1ToFloat(uint8_t code) {
  float magnitude = static_cast<float>(decodeMagnitude(code & 0x7u, kE2M1));
  return (code & 0x8u) ? -magnitude : magnitude;
}

float e8m0ToFloat(uint8_t code) {
  if (code == 0xFFu)
    return std::numeric_limits<float>::quiet_NaN();
  if (code == 0)
    return floatFromBits(0x00400000u); // 2^-127.
  return floatFromBits(static_cast<uint32_t>(code) << 23);
}

//===----------------------------------------------------------------------===//
// Amax and scales
//===----------------------------------------------------------------------===//

float amaxAccumulate(float acc, float value) {
  return std::fmax(acc, std::fabs(value)); // fmax ignores a NaN operand.
}

float computeScaleFromAmax(float amax, float maxFP8, bool forcePow2,
                           float epsilon, float valueForInf) {
  if (amax < epsilon) // NaN compares false; handled below.
    amax = epsilon;
  if (std::isinf(amax) || amax == 0.0f || std::isnan(amax))
    return 1.0f;
  float scale = maxFP8 / amax;
  if (std::isinf(scale))
    scale = valueForInf;
  if (forcePow2)
    scale = floatFromBits(floatBits(scale) & 0xFF800000u);
  return scale;
}

float reciprocal(float value) { return 1.0f / value; }

uint8_t floatToE8M0(float value) {
  if (std::isnan(value))
    return 0xFFu;
  if (std::isinf(value))
    return 0xFEu;
  if (value == 0.0f)
    return 0x00u;
  uint32_t bits = floatBits(value);
  uint32_t exponent = (bits >> 23) & 0xFFu;
  uint32_t mantissa = bits & 0x7FFFFFu;
  if ((mantissa > 0 && exponent != 0xFEu) &&
      !(exponent == 0 && mantissa <= 0x400000u))
    ++exponent;
  return static_cast<uint8_t>(exponent);
}

float e8m0ReciprocalScale(uint8_t code) {
  if (code == 0xFFu)
    return std::numeric_limits<float>::quiet_NaN();
  if (code == 0xFEu)
    return floatFromBits(0x00400000u); // 2^-127.
  return floatFromBits(static_cast<uint32_t>(254u - code) << 23);
}

uint8_t mxfp8BlockExponent(float blockAmax, FP8Type type) {
  // Quantized_Limits<OType>::max_norm_rcp: 1/max rounded once to fp32.
  const float maxNormRcp = type == FP8Type::E4M3
                               ? static_cast<float>(1.0 / 448.0)
                               : static_cast<float>(1.0 / 57344.0);
  return floatToE8M0(blockAmax * maxNormRcp);
}

float nvfp4GlobalEncodeScale(float globalAmax) {
  constexpr float kFP8TimesFP4Max = kE4M3Max * kE2M1Max; // 2688, exact.
  float scale = kFP8TimesFP4Max / globalAmax;
  scale = std::fmin(scale, FLT_MAX); // fminf: NaN -> FLT_MAX.
  if (globalAmax == 0.0f || scale == 0.0f)
    return 1.0f;
  return scale;
}

uint8_t nvfp4BlockScale(float blockAmax, float sEnc) {
  constexpr float kFP4MaxInv = 1.0f / kE2M1Max;
  float decode = blockAmax * (sEnc * kFP4MaxInv);
  return floatToE4M3(std::fmin(decode, FLT_MAX));
}

float nvfp4BlockEncodeMultiplier(uint8_t blockScale, float sEnc) {
  float sDec = 1.0f / sEnc;
  return std::fmin(1.0f / (e4m3ToFloat(blockScale) * sDec), FLT_MAX);
}

float nvfp4DecodeMultiplier(uint8_t blockScale, float globalAmax) {
  const float factorInv = static_cast<float>(1.0 / (6.0 * 448.0));
  return (e4m3ToFloat(blockScale) * globalAmax) * factorInv;
}

} // namespace mlir::teq::reference
