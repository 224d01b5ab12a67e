//===- Hadamard.cpp - NVFP4's random Hadamard transform -------------------===//
//
// See Hadamard.h for the definition and the exact arithmetic order.
//
//===----------------------------------------------------------------------===//

#include "teq/Reference/Hadamard.h"

#include "teq/Reference/Numerics.h"

namespace mlir::teq::reference {

float rhtSign(int i) { return ((kRHTSignMask >> i) & 1u) ? -1.0f : 1.0f; }

std::array<float, kRHTSize * kRHTSize> rhtMatrix() {
  std::array<float, kRHTSize * kRHTSize> matrix{};
  for (int i = 0; i < kRHTSize; ++i) {
    for (int j = 0; j < kRHTSize; ++j) {
      // Sylvester: H[i][j] = (-1)^popcount(i & j).
      unsigned parity = 0;
      for (unsigned bits = static_cast<unsigned>(i & j); bits; bits >>= 1)
        parity ^= bits & 1u;
      float h = parity ? -1.0f : 1.0f;
      matrix[i * kRHTSize + j] = roundTo(DType::BF16, rhtSign(i) * h * 0.25f);
    }
  }
  return matrix;
}

std::array<float, kRHTSize> rht16F32(const std::array<float, kRHTSize> &v) {
  std::array<float, kRHTSize> a;
  for (int i = 0; i < kRHTSize; ++i)
    a[i] = (rhtSign(i) * v[i]) * 0.25f;
  for (int h = 1; h < kRHTSize; h <<= 1) {
    for (int j = 0; j < kRHTSize; ++j) {
      if (j & h)
        continue;
      const float x = a[j];
      const float y = a[j + h];
      a[j] = x + y;
      a[j + h] = x - y;
    }
  }
  return a;
}

std::array<float, kRHTSize> rht16(const std::array<float, kRHTSize> &v) {
  std::array<float, kRHTSize> y = rht16F32(v);
  for (float &value : y)
    value = roundTo(DType::BF16, value);
  return y;
}

} // namespace mlir::teq::reference
