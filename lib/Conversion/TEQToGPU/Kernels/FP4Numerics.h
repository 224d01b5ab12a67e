//===- FP4Numerics.h - NVFP4's arithmetic as IR -----------------*- C++ -*-===//
//
// The per-element and per-block arithmetic of NVFP4 (te-semantics.md §3,
// §5.5), built as IR for the data and amax kernels: E2M1 rounding to nearest
// (in software or by Blackwell's cvt) and stochastically, the Philox4x32-10
// generator that feeds stochastic rounding, the E4M3 block scales, and the
// 16-point random Hadamard transform. Each function matches the host
// reference (teq/Reference: Numerics.h, Random.h, Hadamard.h) bit for bit;
// the comments say why each sequence of operations is exact.
//
//===----------------------------------------------------------------------===//

#ifndef TEQ_LIB_CONVERSION_TEQTOGPU_KERNELS_FP4NUMERICS_H
#define TEQ_LIB_CONVERSION_TEQTOGPU_KERNELS_FP4NUMERICS_H

#include "mlir/IR/ImplicitLocOpBuilder.h"

#include "llvm/ADT/SmallVector.h"

#include <array>

namespace mlir::teq::kernels {

//===----------------------------------------------------------------------===//
// E2M1 (FP4) rounding
//===----------------------------------------------------------------------===//

/// The integers 2, 8 and 16 as values LLVM cannot fold (the kernel loads
/// them from memory): multiplies by them stay integer multiplies, which run
/// beside the min.f32s of the E2M1 fast paths, where shifts and selects
/// would queue with them.
struct OpaqueMultipliers {
  Value two, eight, sixteen;
};

/// The f32 pattern (as i32) of 2^23 + the E2M1 magnitude code of the
/// non-negative f32 `absValue`, the code in the low three bits. Without
/// `saturate` the caller guarantees `absValue` < 7 (no NaN), and the
/// saturation at code 7 is left out.
Value e2m1MagnitudeBits(ImplicitLocOpBuilder &b, Value absValue,
                        bool saturate = true);

/// The E2M1 nibble (i32; only the low four bits are defined) of f32 `value`
/// rounded to nearest even, saturating to +-6, NaN to 0x7 (te-semantics.md
/// §3).
Value e2m1Nibble(ImplicitLocOpBuilder &b, Value value);

/// The same from |value| (`absValue`) and an f32 with value's sign
/// (`signSource`), where the caller has both (|x| * enc for x * enc).
Value e2m1Nibble(ImplicitLocOpBuilder &b, Value absValue, Value signSource);

/// The same for a NaN-free value: the sign bit moves to bit 3 by integer
/// multiplies (see OpaqueMultipliers) instead of a compare and select.
Value e2m1NibbleNaNFree(ImplicitLocOpBuilder &b, Value absValue,
                        Value signSource, const OpaqueMultipliers &opaque);

/// Blackwell's cvt.rn.satfinite.e2m1x2 of `value` (sm_100a and later
/// arch-specific targets), the same nibble as e2m1Nibble.
Value e2m1NibbleHardware(ImplicitLocOpBuilder &b, Value value);

/// The E2M1 nibble of `value` rounded stochastically with the random word
/// `random` (i32), exactly as the reference's floatToE2M1Stochastic: for
/// |x| < 6 between grid points lo <= |x| < hi, hi iff frac * 2^32 > random
/// with frac = (|x| - lo) / (hi - lo), x's sign kept; NaN and |x| >= 6 as
/// round to nearest.
Value e2m1StochasticNibble(ImplicitLocOpBuilder &b, Value value, Value random);

/// The eight E2M1 bytes (vector<8xi8>, two codes a byte, the even element
/// in the low nibble) of a block of 16 f32 values without NaN whose scaled
/// magnitudes |x_i| * `enc` are all below 7. `absValues` / `values`: |x_i|
/// and x_i.
Value e2m1PackNaNFreeBlock(ImplicitLocOpBuilder &b, ArrayRef<Value> absValues,
                           ArrayRef<Value> values, Value enc,
                           const OpaqueMultipliers &opaque);

//===----------------------------------------------------------------------===//
// Philox4x32-10 (Random.h)
//===----------------------------------------------------------------------===//

/// Philox's key schedule and the high counter words of one copy's random
/// stream, from the stochastic-rounding state (seed, offset).
struct PhiloxKey {
  std::array<Value, 10> key0, key1; ///< The round keys (i32).
  Value counter2, counter3;         ///< The offset's low and high words.
};

/// The key schedule from `rngState` (memref<2xi64>: seed, offset); the
/// columnwise copy draws its own stream, at offset ^ 2^63.
PhiloxKey philoxKeyFromState(ImplicitLocOpBuilder &b, Value rngState,
                             bool columnwise);

/// The four words of Philox4x32-10 at counter {lo, hi of the i64 `block`,
/// counter2, counter3}.
std::array<Value, 4> philox4x32(ImplicitLocOpBuilder &b, const PhiloxKey &key,
                                Value block);

//===----------------------------------------------------------------------===//
// E4M3 block scales (te-semantics.md §5.5)
//===----------------------------------------------------------------------===//

/// A block's E4M3 scale code: e4m3(fminf(amax * (S_enc * (1/6)), FLT_MAX)).
struct E4M3Code {
  Value code8; ///< i8
  Value code;  ///< i32, zero-extended
};
E4M3Code nvfp4ScaleCode(ImplicitLocOpBuilder &b, Value blockAmax, Value sEnc);

/// The encode multiplier fminf(1 / (scale * sDec), FLT_MAX) of the E4M3
/// code `code` (i32, 0..127: non-negative and finite), with sDec = 1 / S_enc.
Value nvfp4EncodeMultiplier(ImplicitLocOpBuilder &b, Value code, Value sDec);

//===----------------------------------------------------------------------===//
// The 16-point random Hadamard transform (Hadamard.h)
//===----------------------------------------------------------------------===//

/// The transform of 16 f32 values widened from bf16, in Hadamard.h's order:
/// the BF16-rounded outputs, their magnitudes, and those as a vector<16xf32>.
struct HadamardBlock {
  SmallVector<Value, 16> values;
  SmallVector<Value, 16> magnitudes;
  Value magnitudeVector;
};
HadamardBlock randomHadamard16(ImplicitLocOpBuilder &b, ArrayRef<Value> v);

/// max(0, max_i |t_i|) of the transform of 16 bf16-widened values without
/// the 0.25 and without the BF16 roundings: the transformed block's amax is
/// round_bf16(0.25 * this) while max |v_i| < 2^123 (see the definition).
Value randomHadamard16UnscaledAmax(ImplicitLocOpBuilder &b, ArrayRef<Value> v);

} // namespace mlir::teq::kernels

#endif // TEQ_LIB_CONVERSION_TEQTOGPU_KERNELS_FP4NUMERICS_H
