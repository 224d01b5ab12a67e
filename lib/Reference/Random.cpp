//===- Random.cpp - Philox4x32-10 and the stochastic-rounding bit mapping -===//
//
// Written from the published definition of Philox4x32 (Salmon et al., SC'11).
//
//===----------------------------------------------------------------------===//

#include "teq/Reference/Random.h"

namespace mlir::teq::reference {

namespace {
constexpr uint32_t kPhiloxM0 = 0xD2511F53u;
constexpr uint32_t kPhiloxM1 = 0xCD9E8D57u;
constexpr uint32_t kPhiloxW0 = 0x9E3779B9u; // Golden ratio.
constexpr uint32_t kPhiloxW1 = 0xBB67AE85u; // sqrt(3) - 1.
} // namespace

PhiloxCounter philoxRound(const PhiloxCounter &counter, const PhiloxKey &key) {
  const uint64_t product0 = static_cast<uint64_t>(kPhiloxM0) * counter[0];
  const uint64_t product1 = static_cast<uint64_t>(kPhiloxM1) * counter[2];
  const uint32_t hi0 = static_cast<uint32_t>(product0 >> 32);
  const uint32_t lo0 = static_cast<uint32_t>(product0);
  const uint32_t hi1 = static_cast<uint32_t>(product1 >> 32);
  const uint32_t lo1 = static_cast<uint32_t>(product1);
  return {hi1 ^ counter[1] ^ key[0], lo1, hi0 ^ counter[3] ^ key[1], lo0};
}

PhiloxCounter philox4x32_10(PhiloxCounter counter, PhiloxKey key) {
  for (int round = 0; round < 10; ++round) {
    if (round > 0) {
      key[0] += kPhiloxW0;
      key[1] += kPhiloxW1;
    }
    counter = philoxRound(counter, key);
  }
  return counter;
}

uint32_t philoxRandomWord(uint64_t seed, uint64_t offset, uint64_t index) {
  const uint64_t block = index >> 2;
  const PhiloxKey key = {static_cast<uint32_t>(seed),
                         static_cast<uint32_t>(seed >> 32)};
  const PhiloxCounter counter = {
      static_cast<uint32_t>(block), static_cast<uint32_t>(block >> 32),
      static_cast<uint32_t>(offset), static_cast<uint32_t>(offset >> 32)};
  return philox4x32_10(counter, key)[index & 3];
}

} // namespace mlir::teq::reference
