//===- Hadamard.h - NVFP4's random Hadamard transform -------------*- C++ -*-===//
//
// The 16-point random Hadamard transform (RHT) TE applies to the columnwise
// copy of NVFP4 inputs and gradients (te-semantics.md §5.5): each run of 16
// consecutive elements v (along M, i.e. along a row of x^T) becomes
//
//   y = v · M,   M = diag(s) · H16 / 4,
//
// with H16 the Sylvester Hadamard matrix, H[i][j] = (-1)^popcount(i & j), and
// the fixed sign vector s = TE's get_wgrad_sign_vector()
//   [1,1,1,-1,1,-1,-1,-1,-1,-1,-1,1,-1,1,-1,-1]   (sign mask 0xD7E8, bit i set
//                                                  where s[i] = -1),
// i.e. y[j] = sum_i s[i] * v[i] * H[i][j] / 4. M is stored in BF16 by TE; its
// entries are +-0.25, exact in BF16, so rounding them is a no-op.
//
// Exact arithmetic order (the GPU kernel must use this one):
//   1. a[i] = (s[i] * v[i]) * 0.25f        exact: a sign flip and a power of
//                                          two (BF16 inputs never underflow)
//   2. four in-place butterfly stages, h = 1, 2, 4, 8 in that order:
//        for every j with (j & h) == 0:
//          (a[j], a[j+h]) = (a[j] + a[j+h], a[j] - a[j+h])   fp32, RN each
//      (the fast Walsh-Hadamard transform; it yields sum_i a[i] H[i][j] in
//      natural order)
//   3. y[j] = bf16_rne(a[j]): the transformed tensor is BF16, as TE's
//      unfused Hadamard kernel writes it (its MMA accumulates in fp32 and
//      converts with cvt.rn.bf16x2.f32). The columnwise amax is taken over
//      these BF16 values and they are what gets quantized.
// When every partial sum is exact in fp32 (the usual case: 16 BF16 values
// with exponents within ~15 binades) any summation order gives the same
// result, so this matches TE's tensor-core accumulation; otherwise the
// butterfly order above is the definition. Measured on an H200 against
// torch's BF16 matmul x.view(-1,16) @ M (TE's Python reference): 0 of 2^21
// outputs differ for N(0,1) data; 60 of 2^21 differ when every element is
// also scaled by a random 2^[-20,20] (order-dependent rounding).
//
//===----------------------------------------------------------------------===//

#ifndef TEQ_REFERENCE_HADAMARD_H
#define TEQ_REFERENCE_HADAMARD_H

#include <array>
#include <cstdint>

namespace mlir::teq::reference {

constexpr int kRHTSize = 16;

/// TE's fixed wgrad sign vector as a mask: bit i set iff s[i] == -1.
constexpr uint16_t kRHTSignMask = 0xD7E8;

/// s[i] as +-1.0f.
float rhtSign(int i);

/// The matrix M = diag(s) · H16 / 4 with entries rounded to BF16 (all
/// +-0.25), row-major: M[i][j] = s[i] * H[i][j] / 4.
std::array<float, kRHTSize * kRHTSize> rhtMatrix();

/// Steps 1-2 above: the fp32 transform of 16 values, before BF16 rounding.
std::array<float, kRHTSize> rht16F32(const std::array<float, kRHTSize> &v);

/// Steps 1-3: the BF16-rounded transform, widened back to fp32.
std::array<float, kRHTSize> rht16(const std::array<float, kRHTSize> &v);

} // namespace mlir::teq::reference

#endif // TEQ_REFERENCE_HADAMARD_H
