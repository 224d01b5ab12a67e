//===- NVFP4SREmulationTest.cpp - NVFP4 kernels on the CPU vs reference ---===//
//
// The GPU tests (test/GPU) need a GPU; this runs the very IR of the NVFP4
// row and column kernels that convert-teq-to-gpu generates for
// NVFP4SRKernels.mlir, lowered for the host (kernels_to_cpu.py, then
// mlir-opt / mlir-translate / llc: see CMakeLists.txt), over every
// (block, thread) of their launch, and compares the data and scale buffers
// with the CPU reference byte for byte. It checks the kernels' stochastic
// rounding: Philox4x32-10 evaluated in the kernel (Random.h), the element
// index in the stored orientation, the columnwise stream and
// floatToE2M1Stochastic's rule, on each data path (vector rowwise, RHT,
// per-pair, 2D; bf16, f16, f32). The global amax comes from the reference
// (its kernels are the round-to-nearest ones) and the hardware E4M3
// conversion of the block scale is the reference's (kernels_to_cpu.py).
//
//===----------------------------------------------------------------------===//

#include "teq/Reference/Quantize.h"

#include <gtest/gtest.h>

#include <cmath>
#include <cstdint>
#include <cstring>
#include <limits>
#include <random>
#include <string>
#include <vector>

using namespace mlir::teq;
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
MemRef1D memref(void *data, int64_t size) {
  return MemRef1D{data, data, 0, size, 1};
}

} // namespace

extern "C" {
/// nvvm.convert.f32x2.to.f8x2 (rn, satfinite, E4M3): `a` in the upper byte.
int16_t emu_e4m3(float a, float b) {
  return static_cast<int16_t>((static_cast<uint16_t>(floatToE4M3(a)) << 8) |
                              floatToE4M3(b));
}
uint16_t teq_emu_float_to_bf16(float value) { return floatToBF16(value); }

/// (x, amax, data, scale, rng, block, thread).
using Kernel = void (*)(MemRef1D *, MemRef1D *, MemRef1D *, MemRef1D *,
                        MemRef1D *, int64_t, int64_t);
#define TEQ_KERNEL(name)                                                       \
  void _mlir_ciface_##name(MemRef1D *, MemRef1D *, MemRef1D *, MemRef1D *,     \
                           MemRef1D *, int64_t, int64_t);
// Kernel prefixes follow the entries of NVFP4SRKernels.mlir in order.
TEQ_KERNEL(q0_nvfp4_row)
TEQ_KERNEL(q0_nvfp4_col)
TEQ_KERNEL(q1_nvfp4_row)
TEQ_KERNEL(q1_nvfp4_col)
TEQ_KERNEL(q2_nvfp4_row)
TEQ_KERNEL(q2_nvfp4_col)
TEQ_KERNEL(q3_nvfp4_row)
TEQ_KERNEL(q4_nvfp4_col)
#undef TEQ_KERNEL
}

namespace {

struct Case {
  const char *name;
  int64_t m, k;
  DType dtype;
  bool rht, twoD, swizzled;
  Kernel row, col; ///< Null where the entry lacks that usage.
};

const Case kCases[] = {
    {"rht", 64, 128, DType::BF16, true, false, true, _mlir_ciface_q0_nvfp4_row,
     _mlir_ciface_q0_nvfp4_col},
    {"ragged", 34, 40, DType::BF16, false, false, false,
     _mlir_ciface_q1_nvfp4_row, _mlir_ciface_q1_nvfp4_col},
    {"twod", 50, 72, DType::BF16, false, true, false, _mlir_ciface_q2_nvfp4_row,
     _mlir_ciface_q2_nvfp4_col},
    {"f32_row", 32, 64, DType::F32, false, false, true,
     _mlir_ciface_q3_nvfp4_row, nullptr},
    {"f16_col", 32, 48, DType::F16, false, false, false, nullptr,
     _mlir_ciface_q4_nvfp4_col},
};

enum class Fill { Normal, Special, Tiny, Grid };

std::vector<float> makeValues(int64_t n, Fill fill, unsigned seed) {
  std::mt19937 gen(seed);
  std::normal_distribution<float> normal(0.0f, 1.0f);
  std::vector<float> v(static_cast<size_t>(n));
  for (size_t i = 0; i < v.size(); ++i) {
    switch (fill) {
    case Fill::Normal:
      v[i] = normal(gen);
      break;
    case Fill::Special:
      v[i] = normal(gen) * 3.0f;
      break;
    case Fill::Tiny: // Scaled up by S_enc to the usual range.
      v[i] = normal(gen) * 1e-30f;
      break;
    case Fill::Grid: // E2M1 grid points and midpoints (after scaling).
      v[i] = static_cast<float>(static_cast<int>(i % 13) - 6) * 0.5f;
      break;
    }
  }
  if (fill == Fill::Special) {
    const float inf = std::numeric_limits<float>::infinity();
    v[3] = inf;
    v[7] = -inf;
    v[11] = std::numeric_limits<float>::quiet_NaN();
    v[20] = 1e30f;
    v[21] = -0.0f;
    v[v.size() - 1] = -1e-3f;
  }
  return v;
}

/// The input bytes in the case's dtype.
std::vector<uint8_t> inputBytes(const Input &x) {
  std::vector<uint8_t> bytes;
  for (float value : x.values) {
    if (x.dtype == DType::F32) {
      uint8_t b[4];
      std::memcpy(b, &value, 4);
      bytes.insert(bytes.end(), b, b + 4);
      continue;
    }
    uint16_t h = x.dtype == DType::BF16 ? floatToBF16(value) : floatToF16(value);
    bytes.push_back(static_cast<uint8_t>(h));
    bytes.push_back(static_cast<uint8_t>(h >> 8));
  }
  return bytes;
}

int64_t firstDifference(const std::vector<uint8_t> &a,
                        const std::vector<uint8_t> &b) {
  for (size_t i = 0; i < a.size(); ++i)
    if (a[i] != b[i])
      return static_cast<int64_t>(i);
  return -1;
}

void runCase(const Case &c, Fill fill, uint64_t seed, uint64_t offset,
             unsigned valueSeed) {
  Input x = Input::rounded(c.dtype, {c.m, c.k},
                           makeValues(c.m * c.k, fill, valueSeed));
  layout::TensorDesc desc;
  desc.shape = {c.m, c.k};
  desc.format = layout::Format::NVFP4;
  desc.dataEncoding = layout::Encoding::E2M1x2;
  desc.usage = (c.row ? layout::UsageRowwise : 0u) |
               (c.col ? layout::UsageColumnwise : 0u);
  desc.scaleLayout = c.swizzled ? layout::ScaleLayout::GemmSwizzled
                                : layout::ScaleLayout::Compact;
  NVFP4Options options;
  options.rht = c.rht;
  options.twoD = c.twoD;
  options.stochasticRounding = true;
  options.seed = seed;
  options.offset = offset;
  auto expected =
      quantizeNVFP4(x, desc, layout::TargetCaps::fromSM(90), options);
  ASSERT_TRUE(expected.ok()) << expected.message();

  std::vector<uint8_t> input = inputBytes(x);
  uint64_t rng[2] = {seed, offset};
  for (bool columnwise : {false, true}) {
    Kernel kernel = columnwise ? c.col : c.row;
    if (!kernel)
      continue;
    const std::string copy = columnwise ? "columnwise" : "rowwise";
    const Buffer &data = *expected->find(copy + "_data");
    const Buffer &scale = *expected->find(copy + "_scale_inv");
    float amax = expected->find("amax_" + copy)->f32(0);
    // Data starts as garbage (every byte must be written), scales as zeros
    // (the zero-fill kernel runs first).
    std::vector<uint8_t> gotData(data.bytes.size(), 0xA5);
    std::vector<uint8_t> gotScale(scale.bytes.size(), 0);
    MemRef1D mx = memref(input.data(), c.m * c.k);
    MemRef1D ma = memref(&amax, 1);
    MemRef1D md = memref(gotData.data(), gotData.size());
    MemRef1D ms = memref(gotScale.data(), gotScale.size());
    MemRef1D mr = memref(rng, 2);
    // One thread per 16-element block of the copy's rows, 256 a block.
    const int64_t rows = columnwise ? c.k : c.m, len = columnwise ? c.m : c.k;
    const int64_t threads = rows * ((len + 15) / 16);
    for (int64_t block = 0; block * 256 < threads; ++block)
      for (int64_t thread = 0; thread < 256; ++thread)
        kernel(&mx, &ma, &md, &ms, &mr, block, thread);
    const std::string what = std::string(c.name) + " " + copy + " fill " +
                             std::to_string(static_cast<int>(fill)) +
                             " seed " + std::to_string(seed) + " offset " +
                             std::to_string(offset);
    int64_t at = firstDifference(data.bytes, gotData);
    EXPECT_EQ(at, -1) << what << ": data byte " << at << ": reference 0x"
                      << std::hex << int(data.bytes[at]) << ", kernel 0x"
                      << int(gotData[at]);
    at = firstDifference(scale.bytes, gotScale);
    EXPECT_EQ(at, -1) << what << ": scale byte " << at;
  }
}

TEST(NVFP4SRKernels, MatchReferenceBitForBit) {
  std::mt19937_64 gen(2026);
  for (const Case &c : kCases)
    for (Fill fill : {Fill::Normal, Fill::Special, Fill::Tiny, Fill::Grid})
      for (int draw = 0; draw < 3; ++draw) {
        // (0, 0), then full 64-bit seeds and offsets (the columnwise stream
        // flips the offset's top bit).
        uint64_t seed = draw ? gen() : 0, offset = draw ? gen() : 0;
        runCase(c, fill, seed, offset, 100u * draw + static_cast<unsigned>(fill));
      }
}

TEST(NVFP4SRKernels, OtherStateOtherBits) {
  // The check above is not vacuous: the kernel's bits follow the state.
  const Case &c = kCases[0];
  Input x = Input::rounded(c.dtype, {c.m, c.k},
                           makeValues(c.m * c.k, Fill::Normal, 5));
  layout::TensorDesc desc;
  desc.shape = {c.m, c.k};
  desc.format = layout::Format::NVFP4;
  desc.dataEncoding = layout::Encoding::E2M1x2;
  desc.usage = layout::UsageRowwise;
  desc.scaleLayout = layout::ScaleLayout::GemmSwizzled;
  NVFP4Options options;
  options.stochasticRounding = true;
  options.seed = 7;
  options.offset = 8;
  auto expected =
      quantizeNVFP4(x, desc, layout::TargetCaps::fromSM(90), options);
  ASSERT_TRUE(expected.ok());
  std::vector<uint8_t> input = inputBytes(x);
  float amax = expected->find("amax_rowwise")->f32(0);
  const Buffer &data = *expected->find("rowwise_data");
  std::vector<uint8_t> got(data.bytes.size());
  std::vector<uint8_t> scale(expected->find("rowwise_scale_inv")->bytes.size());
  uint64_t rng[2] = {7, 9}; // Another offset.
  MemRef1D mx = memref(input.data(), c.m * c.k), ma = memref(&amax, 1),
           md = memref(got.data(), got.size()),
           ms = memref(scale.data(), scale.size()), mr = memref(rng, 2);
  for (int64_t block = 0; block * 256 < c.m * c.k / 16; ++block)
    for (int64_t thread = 0; thread < 256; ++thread)
      c.row(&mx, &ma, &md, &ms, &mr, block, thread);
  EXPECT_NE(firstDifference(data.bytes, got), -1);
}

} // namespace
