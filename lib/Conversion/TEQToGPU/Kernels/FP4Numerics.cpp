//===- FP4Numerics.cpp - NVFP4's arithmetic as IR -------------------------===//

#include "FP4Numerics.h"

#include "KernelBuilder.h"

#include "teq/Reference/Hadamard.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/LLVMIR/NVVMDialect.h"
#include "mlir/Dialect/Math/IR/Math.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/Vector/IR/VectorOps.h"

using namespace mlir;
using namespace mlir::teq::kernels;

namespace {

using arith::CmpFPredicate;
using arith::CmpIPredicate;
constexpr auto kContract = arith::FastMathFlags::contract;

Value i32Bits(ImplicitLocOpBuilder &b, uint32_t bits) {
  return constantI32(b, static_cast<int32_t>(bits));
}

Value constantI64(ImplicitLocOpBuilder &b, int64_t value) {
  return arith::ConstantIntOp::create(b, b.getI64Type(), value);
}

Value bitcast(ImplicitLocOpBuilder &b, Type type, Value value) {
  return arith::BitcastOp::create(b, type, value);
}

/// Whether the Hadamard sign s[i] is -1.
bool rhtNegated(int i) {
  return (mlir::teq::reference::kRHTSignMask >> i) & 1u;
}

} // namespace

//===----------------------------------------------------------------------===//
// E2M1
//===----------------------------------------------------------------------===//

// The code is round-to-nearest-even of g(|s|) = min(2|s|, |s| + 2, |s| / 2
// + 4) to an integer, saturated at 7: g maps the E2M1 grid 0, 0.5, 1, 1.5,
// 2, 3, 4, 6 onto 0..7 and is linear between neighbours, so its integer ties
// are E2M1's ties, the even code included. Rounding is monotonic, so the
// min of the three pieces' rounded values is the rounded min. Each piece
// rounds exactly in one f32 operation: with M = 2^23 (ulp 1), M + k + y
// (y = 2|s|, |s|, |s| / 2: exact scalings) is M + k + RNE(y) for y < 2^23,
// larger pieces lose the min to M + 7, and NaN loses every minnum (NaN ->
// 7). M's low 23 bits are zero, so the min's pattern has the code in its
// low bits. Checked equal to the seven comparisons (sign and NaN included)
// for all 2^32 patterns of s.
Value mlir::teq::kernels::e2m1MagnitudeBits(ImplicitLocOpBuilder &b,
                                            Value absValue, bool saturate) {
  // 2|s| and |s| / 2 are exact (a subnormal's half rounds, but far below
  // any bound), so a fused multiply-add (contract: LLVM forms fma.rn)
  // rounds like the separate add; math.fma would be a libdevice call.
  Value twice =
      arith::MulFOp::create(b, absValue, constantF32(b, 2.0f), kContract);
  Value piece1 =
      arith::AddFOp::create(b, twice, constantF32(b, 8388608.0f), kContract);
  Value piece2 = arith::AddFOp::create(b, absValue, constantF32(b, 8388610.0f));
  Value half =
      arith::MulFOp::create(b, absValue, constantF32(b, 0.5f), kContract);
  Value piece3 =
      arith::AddFOp::create(b, half, constantF32(b, 8388612.0f), kContract);
  // NaN-ignoring min as a reduction (native min.f32; arith.minnumf would
  // be a libdevice call); the accumulator M + 7 saturates.
  Value pieces =
      vector::FromElementsOp::create(b, VectorType::get({3}, b.getF32Type()),
                                     ValueRange{piece1, piece2, piece3});
  Value min =
      saturate ? vector::ReductionOp::create(b, vector::CombiningKind::MINNUMF,
                                             pieces, constantF32(b, 8388615.0f))
               : vector::ReductionOp::create(b, vector::CombiningKind::MINNUMF,
                                             pieces);
  return bitcast(b, b.getI32Type(), min);
}

Value mlir::teq::kernels::e2m1Nibble(ImplicitLocOpBuilder &b, Value value) {
  Value absValue = math::AbsFOp::create(b, value);
  return e2m1Nibble(b, absValue, value);
}

Value mlir::teq::kernels::e2m1Nibble(ImplicitLocOpBuilder &b, Value absValue,
                                     Value signSource) {
  Value magnitude = e2m1MagnitudeBits(b, absValue);
  // NaN is 0x7 whatever its sign: its magnitude code is 7 already, and bit
  // 3 is set for negative non-NaN values only (-0 to -inf: pattern - 2^31
  // in [0, 0x7F800000]).
  Value bits = bitcast(b, b.getI32Type(), signSource);
  Value offset = arith::SubIOp::create(b, bits, i32Bits(b, 0x80000000u));
  Value negative = arith::CmpIOp::create(b, CmpIPredicate::ule, offset,
                                         i32Bits(b, 0x7F800000u));
  Value sign = arith::SelectOp::create(b, negative, constantI32(b, 8),
                                       constantI32(b, 0));
  return arith::OrIOp::create(b, magnitude, sign);
}

Value mlir::teq::kernels::e2m1NibbleNaNFree(ImplicitLocOpBuilder &b,
                                            Value absValue, Value signSource,
                                            const OpaqueMultipliers &opaque) {
  Value magnitude = e2m1MagnitudeBits(b, absValue);
  // Bit 3 is the sign bit: the high word of pattern * 2 is the sign, times
  // 8; the magnitude's bits below do not overlap it.
  Value bits = bitcast(b, b.getI32Type(), signSource);
  auto wide = arith::MulUIExtendedOp::create(b, bits, opaque.two);
  Value sign = arith::MulIOp::create(b, wide.getHigh(), opaque.eight);
  return arith::AddIOp::create(b, magnitude, sign);
}

Value mlir::teq::kernels::e2m1NibbleHardware(ImplicitLocOpBuilder &b,
                                             Value value) {
  // The conversion puts its second operand in the low nibble.
  Value pair = NVVM::ConvertF32x2ToF4x2Op::create(
      b, b.getI8Type(), value, value, /*relu=*/false,
      b.getType<Float4E2M1FNType>());
  Value wide = arith::ExtUIOp::create(b, b.getI32Type(), pair);
  return arith::AndIOp::create(b, wide, constantI32(b, 15));
}

Value mlir::teq::kernels::e2m1StochasticNibble(ImplicitLocOpBuilder &b,
                                               Value value, Value random) {
  Value zero = constantF32(b, 0.0f), one = constantF32(b, 1.0f);
  Value half = constantF32(b, 0.5f), two = constantF32(b, 2.0f);
  Value absValue = math::AbsFOp::create(b, value);
  Value finite = arith::CmpFOp::create(b, CmpFPredicate::OLT, absValue,
                                       constantF32(b, 6.0f));
  Value a = arith::SelectOp::create(b, finite, absValue, zero);
  // The grid step around |x| (0.5 below 2, 1 below 4, else 2) and its
  // inverse.
  Value below2 = arith::CmpFOp::create(b, CmpFPredicate::OLT, a, two);
  Value below4 =
      arith::CmpFOp::create(b, CmpFPredicate::OLT, a, constantF32(b, 4.0f));
  Value stepAbove2 = arith::SelectOp::create(b, below4, one, two);
  Value step = arith::SelectOp::create(b, below2, half, stepAbove2);
  Value inverseAbove2 = arith::SelectOp::create(b, below4, one, half);
  Value inverseStep = arith::SelectOp::create(b, below2, two, inverseAbove2);
  // floor(|x| / step): a power-of-two scaling, then truncation (>= 0).
  Value steps = arith::MulFOp::create(b, a, inverseStep);
  Value stepsInt = arith::FPToUIOp::create(b, b.getI32Type(), steps);
  Value stepsFloor = arith::UIToFPOp::create(b, b.getF32Type(), stepsInt);
  Value lo = arith::MulFOp::create(b, stepsFloor, step);
  Value hi = arith::AddFOp::create(b, lo, step);
  // frac = (|x| - lo) / step is exact in f32; frac * 2^32 against the
  // random word compares exactly in f64.
  Value above = arith::SubFOp::create(b, a, lo);
  Value fraction = arith::MulFOp::create(b, above, inverseStep);
  Value fractionWide = arith::ExtFOp::create(b, b.getF64Type(), fraction);
  Value scaled = arith::MulFOp::create(
      b, fractionWide,
      arith::ConstantOp::create(b, b.getF64FloatAttr(4294967296.0)));
  Value randomWide = arith::UIToFPOp::create(b, b.getF64Type(), random);
  Value up = arith::CmpFOp::create(b, CmpFPredicate::OGT, scaled, randomWide);
  Value magnitude = arith::SelectOp::create(b, up, hi, lo);
  Value magnitudeBits = bitcast(b, b.getI32Type(), magnitude);
  Value valueBits = bitcast(b, b.getI32Type(), value);
  Value signBit = arith::AndIOp::create(b, valueBits, i32Bits(b, 0x80000000u));
  Value signedBits = arith::OrIOp::create(b, magnitudeBits, signBit);
  Value rounded = bitcast(b, b.getF32Type(), signedBits);
  Value chosen = arith::SelectOp::create(b, finite, rounded, value);
  // The chosen value is on the grid (or NaN, or saturating): round to
  // nearest encodes it.
  return e2m1Nibble(b, chosen);
}

// Each half block is one word W + S: W = sum over j of m_j 16^j with m_j
// the pattern of e2m1MagnitudeBits (2^23 + code: the codes land in nibble
// j, 2^23's bits only in the top byte, as 0xFB000000 in all), a Horner
// chain of multiply-adds by the opaque 16, which LLVM keeps as IMADs beside
// the min.f32s; S = the sign bits at bit 3 of each nibble, gathered by byte
// permutes.
Value mlir::teq::kernels::e2m1PackNaNFreeBlock(
    ImplicitLocOpBuilder &b, ArrayRef<Value> absValues, ArrayRef<Value> values,
    Value enc, const OpaqueMultipliers &opaque) {
  SmallVector<Value, 16> magnitudes, bits;
  for (int i = 0; i < 16; ++i) {
    Value scaled = arith::MulFOp::create(b, absValues[i], enc);
    magnitudes.push_back(e2m1MagnitudeBits(b, scaled, /*saturate=*/false));
    bits.push_back(bitcast(b, b.getI32Type(), values[i]));
  }
  // A half block's sign bits by byte permutes: the top bytes (sign in bit
  // 7) of elements (0, 2) and (4, 6), then of (1, 3) and (5, 7), side by
  // side (selector 0x73: bytes 3 and 7); then each group of four as
  // sign-replicated bytes (0xDC98: bytes 0, 1, 4, 5 with bit 3 of each
  // selector nibble set), masked to bit 3 (even elements, the low nibbles)
  // or bit 7 (odd): six permutes and two logic operations for eight
  // elements.
  auto permute = [&](uint32_t selector, Value lo, Value hi) -> Value {
    return NVVM::PermuteOp::create(b, b.getI32Type(), lo, hi,
                                   i32Bits(b, selector),
                                   NVVM::PermuteMode::DEFAULT);
  };
  SmallVector<Value, 2> words;
  for (int w = 0; w < 2; ++w) {
    ArrayRef<Value> half = ArrayRef<Value>(magnitudes).slice(8 * w, 8);
    ArrayRef<Value> sign = ArrayRef<Value>(bits).slice(8 * w, 8);
    Value word = half[7];
    for (int j = 6; j >= 0; --j) {
      Value shifted = arith::MulIOp::create(b, word, opaque.sixteen);
      word = arith::AddIOp::create(b, shifted, half[j]);
    }
    Value even0 = permute(0x73, sign[0], sign[2]);
    Value even1 = permute(0x73, sign[4], sign[6]);
    Value odd0 = permute(0x73, sign[1], sign[3]);
    Value odd1 = permute(0x73, sign[5], sign[7]);
    Value even = permute(0xDC98, even0, even1);
    Value odd = permute(0xDC98, odd0, odd1);
    Value evenSigns = arith::AndIOp::create(b, even, i32Bits(b, 0x08080808u));
    Value oddSigns = arith::AndIOp::create(b, odd, i32Bits(b, 0x80808080u));
    Value signs = arith::OrIOp::create(b, evenSigns, oddSigns);
    Value withSigns = arith::AddIOp::create(b, word, signs);
    // Less 0xFB000000: the words' pattern bits of 2^23.
    words.push_back(
        arith::AddIOp::create(b, withSigns, i32Bits(b, 0x05000000u)));
  }
  Value pair = vector::FromElementsOp::create(
      b, VectorType::get({2}, b.getI32Type()), words);
  return vector::BitCastOp::create(b, VectorType::get({8}, b.getI8Type()),
                                   pair);
}

//===----------------------------------------------------------------------===//
// Philox4x32-10
//===----------------------------------------------------------------------===//

PhiloxKey mlir::teq::kernels::philoxKeyFromState(ImplicitLocOpBuilder &b,
                                                 Value rngState,
                                                 bool columnwise) {
  Value seed =
      memref::LoadOp::create(b, rngState, ValueRange{constantIndex(b, 0)});
  Value offset0 =
      memref::LoadOp::create(b, rngState, ValueRange{constantIndex(b, 1)});
  Value offset = arith::XOrIOp::create(
      b, offset0,
      constantI64(b, columnwise ? std::numeric_limits<int64_t>::min() : 0));
  Value thirtyTwo = constantI64(b, 32);
  Type i32 = b.getI32Type();
  PhiloxKey key;
  key.key0[0] = arith::TruncIOp::create(b, i32, seed);
  Value seedHigh = arith::ShRUIOp::create(b, seed, thirtyTwo);
  key.key1[0] = arith::TruncIOp::create(b, i32, seedHigh);
  key.counter2 = arith::TruncIOp::create(b, i32, offset);
  Value offsetHigh = arith::ShRUIOp::create(b, offset, thirtyTwo);
  key.counter3 = arith::TruncIOp::create(b, i32, offsetHigh);
  // Random123's key bump before every round but the first.
  for (int r = 1; r < 10; ++r) {
    key.key0[r] =
        arith::AddIOp::create(b, key.key0[r - 1], i32Bits(b, 0x9E3779B9u));
    key.key1[r] =
        arith::AddIOp::create(b, key.key1[r - 1], i32Bits(b, 0xBB67AE85u));
  }
  return key;
}

std::array<Value, 4> mlir::teq::kernels::philox4x32(ImplicitLocOpBuilder &b,
                                                    const PhiloxKey &key,
                                                    Value block) {
  Type i32 = b.getI32Type();
  Value c0 = arith::TruncIOp::create(b, i32, block);
  Value blockHigh = arith::ShRUIOp::create(b, block, constantI64(b, 32));
  Value c1 = arith::TruncIOp::create(b, i32, blockHigh);
  Value c2 = key.counter2, c3 = key.counter3;
  // The 32x32->64 products are mul.lo / mul.hi pairs.
  for (int r = 0; r < 10; ++r) {
    auto product0 =
        arith::MulUIExtendedOp::create(b, i32Bits(b, 0xD2511F53u), c0);
    auto product1 =
        arith::MulUIExtendedOp::create(b, i32Bits(b, 0xCD9E8D57u), c2);
    Value mixed0 = arith::XOrIOp::create(b, product1.getHigh(), c1);
    Value next0 = arith::XOrIOp::create(b, mixed0, key.key0[r]);
    Value mixed2 = arith::XOrIOp::create(b, product0.getHigh(), c3);
    Value next2 = arith::XOrIOp::create(b, mixed2, key.key1[r]);
    c0 = next0;
    c1 = product1.getLow();
    c2 = next2;
    c3 = product0.getLow();
  }
  return {c0, c1, c2, c3};
}

//===----------------------------------------------------------------------===//
// E4M3 block scales
//===----------------------------------------------------------------------===//

E4M3Code mlir::teq::kernels::nvfp4ScaleCode(ImplicitLocOpBuilder &b,
                                            Value blockAmax, Value sEnc) {
  Value fltMax = constantF32(b, std::numeric_limits<float>::max());
  Value perSix = arith::MulFOp::create(b, sEnc, constantF32(b, 1.0f / 6.0f));
  Value decode = arith::MulFOp::create(b, blockAmax, perSix);
  Value finite = arith::CmpFOp::create(b, CmpFPredicate::OLT, decode, fltMax);
  Value bounded = arith::SelectOp::create(b, finite, decode, fltMax);
  // cvt.rn.satfinite.e4m3x2 (sm_89+); the first operand goes to the upper
  // byte.
  Value pair = NVVM::ConvertF32x2ToF8x2Op::create(
      b, b.getI16Type(), constantF32(b, 0.0f), bounded,
      NVVM::FPRoundingMode::RN, NVVM::SaturationMode::SATFINITE,
      /*relu=*/false, b.getType<Float8E4M3FNType>());
  E4M3Code code;
  code.code8 = arith::TruncIOp::create(b, b.getI8Type(), pair);
  code.code = arith::ExtUIOp::create(b, b.getI32Type(), code.code8);
  return code;
}

Value mlir::teq::kernels::nvfp4EncodeMultiplier(ImplicitLocOpBuilder &b,
                                                Value code, Value sDec) {
  // The scale's value: a normal E4M3 (exponent bias 7: f32 exponent
  // e + 120, mantissa moved up 20 bits) or a subnormal one (m * 2^-9).
  Value exponent0 = arith::ShRUIOp::create(b, code, constantI32(b, 3));
  Value exponent = arith::AndIOp::create(b, exponent0, constantI32(b, 15));
  Value mantissa = arith::AndIOp::create(b, code, constantI32(b, 7));
  Value biased = arith::AddIOp::create(b, exponent, constantI32(b, 120));
  Value exponentBits = arith::ShLIOp::create(b, biased, constantI32(b, 23));
  Value mantissaBits = arith::ShLIOp::create(b, mantissa, constantI32(b, 20));
  Value normalBits = arith::OrIOp::create(b, exponentBits, mantissaBits);
  Value normal = bitcast(b, b.getF32Type(), normalBits);
  Value mantissaValue = arith::UIToFPOp::create(b, b.getF32Type(), mantissa);
  Value subnormal =
      arith::MulFOp::create(b, mantissaValue, constantF32(b, 0.001953125f));
  Value isSubnormal =
      arith::CmpIOp::create(b, CmpIPredicate::eq, exponent, constantI32(b, 0));
  Value scale = arith::SelectOp::create(b, isSubnormal, subnormal, normal);
  // fminf(1 / (scale * (1 / S_enc)), FLT_MAX).
  Value fltMax = constantF32(b, std::numeric_limits<float>::max());
  Value decoded = arith::MulFOp::create(b, scale, sDec);
  Value enc = arith::DivFOp::create(b, constantF32(b, 1.0f), decoded);
  Value finite = arith::CmpFOp::create(b, CmpFPredicate::OLT, enc, fltMax);
  return arith::SelectOp::create(b, finite, enc, fltMax);
}

//===----------------------------------------------------------------------===//
// Random Hadamard transform
//===----------------------------------------------------------------------===//

HadamardBlock mlir::teq::kernels::randomHadamard16(ImplicitLocOpBuilder &b,
                                                   ArrayRef<Value> v) {
  constexpr int n = mlir::teq::reference::kRHTSize;
  assert(v.size() == n && "a Hadamard block has 16 values");
  auto signedQuarter = [&](int i) {
    return constantF32(b, rhtNegated(i) ? -0.25f : 0.25f);
  };
  // (s[i] * v[i]) * 0.25 is exact for 16-bit inputs (even for their
  // subnormals: f32 has 16 more exponent steps below), so the first stage
  // takes the odd elements' products inside fused multiply-adds: the same
  // roundings, one multiply fewer a pair. (The sign is the multiplier's:
  // s[i] * 0.25 is +-0.25 exactly.)
  SmallVector<Value, 16> a(n);
  for (int i = 0; i < n; i += 2)
    a[i] = arith::MulFOp::create(b, v[i], signedQuarter(i));
  for (int h = 1; h < n; h <<= 1) {
    SmallVector<Value, 16> next = a;
    for (int j = 0; j < n; ++j) {
      if (j & h)
        continue;
      if (h == 1) {
        // fma(v, +-0.25, a) and fma(v, -+0.25, a): contract lets LLVM fuse
        // the exact product into both.
        Value product =
            arith::MulFOp::create(b, v[j + 1], signedQuarter(j + 1), kContract);
        next[j] = arith::AddFOp::create(b, a[j], product, kContract);
        next[j + 1] = arith::SubFOp::create(b, a[j], product, kContract);
        continue;
      }
      next[j] = arith::AddFOp::create(b, a[j], a[j + h]);
      next[j + h] = arith::SubFOp::create(b, a[j], a[j + h]);
    }
    a = next;
  }
  // The BF16 roundings two at a time (cvt.rn.bf16x2.f32; a plain truncf
  // stays one cvt each), widened back by placing each half in the upper
  // 16 bits. The conversion's first operand is the upper half.
  HadamardBlock block;
  auto bf16Pair = VectorType::get({2}, b.getBF16Type());
  for (int i = 0; i < n; i += 2) {
    Value pair = NVVM::ConvertF32x2ToBF16x2Op::create(
        b, bf16Pair, a[i + 1], a[i], /*random_bits=*/Value(),
        NVVM::FPRoundingMode::RN);
    Value lo = vector::ExtractOp::create(b, pair, int64_t(0));
    Value hi = vector::ExtractOp::create(b, pair, int64_t(1));
    block.values.push_back(arith::ExtFOp::create(b, b.getF32Type(), lo));
    block.values.push_back(arith::ExtFOp::create(b, b.getF32Type(), hi));
  }
  for (Value t : block.values)
    block.magnitudes.push_back(math::AbsFOp::create(b, t));
  block.magnitudeVector = vector::FromElementsOp::create(
      b, VectorType::get({n}, b.getF32Type()), block.magnitudes);
  return block;
}

// Both omissions are exact for the amax when max |v_i| < 2^123:
// - the scaled butterfly's values are exactly 0.25 times these: the scaling
//   commutes with every f32 rounding because no value overflows (|t| <= 16
//   max |v| < 2^127) and every value is a multiple of 2^-133 (16-bit
//   inputs), so scaled by 0.25 it stays one of 2^-135, which f32 represents
//   exactly below 2^-126;
// - the reference's max |round_bf16(t_i)| is round_bf16(max |t_i|): the
//   rounding is monotonic and odd.
Value mlir::teq::kernels::randomHadamard16UnscaledAmax(ImplicitLocOpBuilder &b,
                                                       ArrayRef<Value> v) {
  constexpr int n = mlir::teq::reference::kRHTSize;
  assert(v.size() == n && "a Hadamard block has 16 values");
  // Each value with whether it stands for its negation: the signs s_i and
  // the ones the stages make are carried, not computed, since RN(-x) =
  // -RN(x) and only |t_i| is needed: every step is one add or subtract.
  struct Term {
    Value value;
    bool negated;
  };
  SmallVector<Term, 16> a;
  for (int i = 0; i < n; ++i)
    a.push_back({v[i], rhtNegated(i)});
  // (+-x) + (+-y) and (+-x) - (+-y) as +-(x op y).
  auto combine = [&](const Term &x, const Term &y, bool subtract) -> Term {
    bool yNegated = subtract ? !y.negated : y.negated;
    if (x.negated == yNegated)
      return {arith::AddFOp::create(b, x.value, y.value), x.negated};
    const Term &positive = x.negated ? y : x, &negative = x.negated ? x : y;
    return {arith::SubFOp::create(b, positive.value, negative.value), false};
  };
  for (int h = 1; h < n; h <<= 1) {
    SmallVector<Term, 16> next = a;
    for (int j = 0; j < n; ++j) {
      if (j & h)
        continue;
      next[j] = combine(a[j], a[j + h], /*subtract=*/false);
      next[j + h] = combine(a[j], a[j + h], /*subtract=*/true);
    }
    a = next;
  }
  SmallVector<Value, 16> magnitudes;
  for (const Term &t : a)
    magnitudes.push_back(math::AbsFOp::create(b, t.value));
  Value vector = vector::FromElementsOp::create(
      b, VectorType::get({n}, b.getF32Type()), magnitudes);
  // max(0, .) with 0 as the reduction's accumulator: a native max.f32,
  // which ptxas keeps (test/Tools/ptxas-nan-max.mlir).
  return vector::ReductionOp::create(b, vector::CombiningKind::MAXNUMF, vector,
                                     constantF32(b, 0.0f));
}
