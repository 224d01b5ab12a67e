//===- Random.h - Counter-based random bits for stochastic rounding -*- C++ -*-===//
//
// Philox4x32-10 (Salmon, Moraes, Dror, Shaw: "Parallel random numbers: as
// easy as 1, 2, 3", SC'11; the Random123 library), implemented from its
// published definition, and the mapping TEQ uses from (seed, offset, element
// index) to the 32 random bits of one stochastically rounded element. A GPU
// kernel reproduces the reference exactly by evaluating the same mapping.
//
//===----------------------------------------------------------------------===//

#ifndef TEQ_REFERENCE_RANDOM_H
#define TEQ_REFERENCE_RANDOM_H

#include <array>
#include <cstdint>

namespace mlir::teq::reference {

using PhiloxCounter = std::array<uint32_t, 4>;
using PhiloxKey = std::array<uint32_t, 2>;

/// One Philox4x32 round:
///   (hi0, lo0) = 0xD2511F53 * c[0]   (full 64-bit product)
///   (hi1, lo1) = 0xCD9E8D57 * c[2]
///   c' = { hi1 ^ c[1] ^ k[0], lo1, hi0 ^ c[3] ^ k[1], lo0 }
PhiloxCounter philoxRound(const PhiloxCounter &counter, const PhiloxKey &key);

/// Philox4x32-10: ten rounds; before every round but the first the key is
/// bumped by k[0] += 0x9E3779B9, k[1] += 0xBB67AE85 (mod 2^32). This is
/// Random123's philox4x32(ctr, key) and the block function of cuRAND's
/// Philox4_32_10 generator.
PhiloxCounter philox4x32_10(PhiloxCounter counter, PhiloxKey key);

/// The random word of element `index` in stream (seed, offset):
///   key     = { lo32(seed), hi32(seed) }
///   counter = { lo32(index / 4), hi32(index / 4), lo32(offset), hi32(offset) }
///   word    = philox4x32_10(counter, key)[index % 4]
/// so four consecutive indices share one Philox evaluation, in order.
/// This is exactly cuRAND's Philox4_32_10 stream: after
///   curand_init(seed, /*subsequence=*/offset, /*offset=*/index, &state)
/// the next curand(&state) returns this word (checked against cuRAND on an
/// H200 for 65536 random (seed, offset, index) triples), so a kernel may use
/// either form. Note that PTX cvt.rs consumes random bits its own way; the
/// kernel must apply floatToE2M1Stochastic's rule in software.
uint32_t philoxRandomWord(uint64_t seed, uint64_t offset, uint64_t index);

/// The NVFP4 quantizer's two streams. Rowwise data uses `offset` as given;
/// the columnwise (transposed) copy uses `offset ^ 2^63`, so the two copies
/// draw independent bits (TE also gives them separate Philox states). The
/// element index is the row-major position in the stored orientation:
/// rowwise m*K + k, columnwise k*M + m (before nibble packing).
constexpr uint64_t kColumnwiseStreamBit = uint64_t(1) << 63;

} // namespace mlir::teq::reference

#endif // TEQ_REFERENCE_RANDOM_H
