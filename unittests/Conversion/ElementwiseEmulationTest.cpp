//===- ElementwiseEmulationTest.cpp - Fused elementwise kernels on the CPU ===//
//
// Runs the very IR of the fused elementwise kernels that convert-teq-to-gpu
// generates for ElementwiseKernels.mlir on the CPU (te-opt
// --teq-test-kernels-to-cpu, then MLIR's LLVM lowering and llc: see
// CMakeLists.txt), over every block of their launch, and compares every
// output bit for bit with the unfused program: each op in f32 from its
// operands as stored, its result rounded to nearest even to its tensor's
// element type, as one kernel per op stored and loaded it. With every buffer
// 16-byte aligned the kernels take their vector path (and one element at a
// time past the last vector); with one buffer misaligned, the scalar path
// for all elements. The dequantize kernel (Kernels/Dequantize.h) is checked
// the same way on every FP8 code.
//
//===----------------------------------------------------------------------===//

#include "teq/Reference/Numerics.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <random>
#include <vector>

using namespace mlir::teq::reference;

namespace {

/// A rank-1 memref descriptor (llvm.emit_c_interface).
struct MemRef1D {
  void *allocated;
  void *aligned;
  int64_t offset;
  int64_t size;
  int64_t stride;
};

} // namespace

extern "C" {
/// fptrunc to bfloat on the host (bf16_shim.ll): the reference's RNE.
uint16_t teq_emu_float_to_bf16(float value) { return floatToBF16(value); }

#define M1 MemRef1D *
void _mlir_ciface_e0_mulf_mulf_subf(M1, M1, M1, int64_t, int64_t);
void _mlir_ciface_e1_fused5(M1, M1, M1, M1, int64_t, int64_t);
void _mlir_ciface_e2_fused6(M1, M1, M1, M1, int64_t, int64_t);
void _mlir_ciface_d3_dequantize(M1, M1, M1, int64_t, int64_t);
void _mlir_ciface_d4_dequantize(M1, M1, M1, int64_t, int64_t);
#undef M1
}

namespace {

/// Blocks of the kernels' launches (KernelLaunch::gridX of emitElementwise:
/// one 256-thread block per 2048 elements, at least one).
int64_t blocksOf(int64_t elements) {
  return std::max<int64_t>(1, (elements / 8 + 255) / 256);
}

/// A buffer of `count` 16-bit or 32-bit elements whose data starts 16-byte
/// aligned, or 2 bytes past it (`misaligned`).
struct Buffer {
  Buffer(int64_t count, size_t elementBytes, bool misaligned)
      : storage(count * elementBytes + 64, 0xA5), elementBytes(elementBytes),
        count(count) {
    uintptr_t base = reinterpret_cast<uintptr_t>(storage.data());
    uintptr_t aligned = (base + 15) / 16 * 16 + (misaligned ? 2 : 0);
    data = storage.data() + (aligned - base);
  }
  MemRef1D memref() { return MemRef1D{data, data, 0, count, 1}; }
  uint16_t half(int64_t i) const {
    uint16_t v;
    std::memcpy(&v, data + 2 * i, 2);
    return v;
  }
  void setHalf(int64_t i, uint16_t v) { std::memcpy(data + 2 * i, &v, 2); }
  float f32(int64_t i) const {
    float v;
    std::memcpy(&v, data + 4 * i, 4);
    return v;
  }
  void setF32(int64_t i, float v) { std::memcpy(data + 4 * i, &v, 4); }

  std::vector<uint8_t> storage;
  uint8_t *data;
  size_t elementBytes;
  int64_t count;
};

/// bf16 / f16 rounding of an op's f32 result, and its value read back.
float bf16(float v) { return bf16ToFloat(floatToBF16(v)); }
float f16(float v) { return f16ToFloat(floatToF16(v)); }

class ElementwiseEmulation : public ::testing::TestWithParam<bool> {
protected:
  bool misaligned() const { return GetParam(); }
  std::mt19937 rng{20261126};
  std::normal_distribution<float> normal{0.0f, 1.0f};
};

TEST_P(ElementwiseEmulation, TanhBackwardChain) {
  const int64_t n = 64 * 512;
  Buffer da(n, 2, false), a(n, 2, misaligned()), dh(n, 2, false);
  for (int64_t i = 0; i < n; ++i) {
    da.setHalf(i, floatToBF16(normal(rng)));
    a.setHalf(i, floatToBF16(std::tanh(normal(rng))));
  }
  MemRef1D mda = da.memref(), ma = a.memref(), mdh = dh.memref();
  for (int64_t bx = 0; bx < blocksOf(n); ++bx)
    _mlir_ciface_e0_mulf_mulf_subf(&mda, &ma, &mdh, bx, 0);
  for (int64_t i = 0; i < n; ++i) {
    float x = bf16ToFloat(da.half(i)), y = bf16ToFloat(a.half(i));
    float p = bf16(x * y), q = bf16(p * y);
    ASSERT_EQ(dh.half(i), floatToBF16(x - q)) << "element " << i;
  }
}

TEST_P(ElementwiseEmulation, ConstantsAndTwoOutputs) {
  const int64_t n = 37 * 29;
  Buffer h(n, 2, false), g(n, 2, false), s(n, 2, misaligned()), e(n, 2, false);
  for (int64_t i = 0; i < n; ++i) {
    h.setHalf(i, floatToBF16(normal(rng)));
    g.setHalf(i, floatToBF16(normal(rng) + 3.0f));
  }
  MemRef1D mh = h.memref(), mg = g.memref(), ms = s.memref(), me = e.memref();
  for (int64_t bx = 0; bx < blocksOf(n); ++bx)
    _mlir_ciface_e1_fused5(&mh, &mg, &ms, &me, bx, 0);
  // The constants as the program's bf16 values.
  const float k = bf16(0.044715f), one = 1.0f;
  for (int64_t i = 0; i < n; ++i) {
    float x = bf16ToFloat(h.half(i)), y = bf16ToFloat(g.half(i));
    float h2 = bf16(x * x), c = bf16(k * h2), sum = bf16(x + c);
    float d = bf16(sum / y);
    ASSERT_EQ(s.half(i), floatToBF16(sum)) << "element " << i;
    ASSERT_EQ(e.half(i), floatToBF16(one - d)) << "element " << i;
  }
}

TEST_P(ElementwiseEmulation, MixedTypesAndCasts) {
  const int64_t n = 33 * 7;
  Buffer y(n, 2, false), x(n, 4, false), out16(n, 2, false),
      out32(n, 4, misaligned());
  for (int64_t i = 0; i < n; ++i) {
    y.setHalf(i, floatToF16(normal(rng)));
    x.setF32(i, normal(rng));
  }
  MemRef1D my = y.memref(), mx = x.memref(), m16 = out16.memref(),
           m32 = out32.memref();
  for (int64_t bx = 0; bx < blocksOf(n); ++bx)
    _mlir_ciface_e2_fused6(&my, &mx, &m16, &m32, bx, 0);
  for (int64_t i = 0; i < n; ++i) {
    float xf = x.f32(i), yf = f16ToFloat(y.half(i));
    // Two f32 ops, each rounded to f32 (no contraction into an FMA).
    float m = xf * yf;
    float s = m + 2.5f;
    float narrow = f16(s);
    ASSERT_EQ(out16.half(i), floatToF16(s)) << "element " << i;
    float d = narrow / xf;
    uint32_t got, want;
    float g = out32.f32(i);
    std::memcpy(&got, &g, 4);
    std::memcpy(&want, &d, 4);
    ASSERT_EQ(got, want) << "element " << i;
  }
}

/// teq.dequantize of per-tensor FP8 (Kernels/Dequantize.h): every one of the
/// 256 codes times scale_inv, the product in f32 rounded once to the output
/// dtype, against the reference's decoding (TE's dequantize); NaN codes give
/// NaN.
TEST(DequantizeEmulation, EveryCodeE4M3ToBF16AndE5M2ToF32) {
  for (float scaleInv : {1.0f, 0.37f, 3.0e-3f, 1.0e5f}) {
    Buffer codes(256, 1, false), scale(1, 4, false), bf(256, 2, false),
        f32(256, 4, false);
    for (int64_t i = 0; i < 256; ++i)
      codes.data[i] = static_cast<uint8_t>(i);
    scale.setF32(0, scaleInv);
    MemRef1D mc = codes.memref(), ms = scale.memref(), mb = bf.memref(),
             mf = f32.memref();
    _mlir_ciface_d3_dequantize(&mc, &ms, &mb, 0, 0);
    _mlir_ciface_d4_dequantize(&mc, &ms, &mf, 0, 0);
    for (int64_t i = 0; i < 256; ++i) {
      float e4m3 = fp8ToFloat(FP8Type::E4M3, static_cast<uint8_t>(i)) * scaleInv;
      float e5m2 = fp8ToFloat(FP8Type::E5M2, static_cast<uint8_t>(i)) * scaleInv;
      if (std::isnan(e4m3))
        EXPECT_TRUE(std::isnan(bf16ToFloat(bf.half(i)))) << "E4M3 code " << i;
      else
        EXPECT_EQ(bf.half(i), floatToBF16(e4m3))
            << "E4M3 code " << i << ", scale_inv " << scaleInv;
      float got = f32.f32(i);
      if (std::isnan(e5m2)) {
        EXPECT_TRUE(std::isnan(got)) << "E5M2 code " << i;
      } else {
        uint32_t g, w;
        std::memcpy(&g, &got, 4);
        std::memcpy(&w, &e5m2, 4);
        EXPECT_EQ(g, w) << "E5M2 code " << i << ", scale_inv " << scaleInv;
      }
    }
  }
}

INSTANTIATE_TEST_SUITE_P(Alignment, ElementwiseEmulation, ::testing::Bool(),
                         [](const ::testing::TestParamInfo<bool> &info) {
                           return info.param ? "OneBufferMisaligned"
                                             : "Aligned";
                         });

} // namespace
