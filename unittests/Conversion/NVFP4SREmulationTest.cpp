//===- NVFP4SREmulationTest.cpp - NVFP4 kernels on the CPU vs reference ---===//
//
// The GPU tests (test/GPU) need a GPU; this runs the very IR of the NVFP4
// data kernels (one 64x64 tile a block, staged in workgroup memory) that
// convert-teq-to-gpu generates for NVFP4SRKernels.mlir, lowered for the
// host (te-opt --teq-test-kernels-to-cpu: a block's threads one after
// another, phase by phase between barriers; then mlir-opt / mlir-translate /
// llc: see CMakeLists.txt), over every block of their launch, and compares
// the data and scale buffers with the CPU reference byte for byte. It checks
// the tiling (staging loads, partial tiles, 2D tile amaxes, the columnwise
// copy read from the tile, 8-byte data stores), round to nearest and the
// kernels' stochastic rounding: Philox4x32-10 evaluated in the kernel
// (Random.h), the element index in the stored orientation, the columnwise
// stream and floatToE2M1Stochastic's rule, on each data path (whole
// blocks, RHT, per-pair, 2D; bf16, f16, f32). The global amax comes from
// the reference (the amax kernels are separate) and the hardware E4M3
// conversion of the block scale is the reference's (emu_e4m3).
//
//===----------------------------------------------------------------------===//

#include "teq/Reference/Quantize.h"

#include <gtest/gtest.h>

#include <algorithm>
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
/// prmt.b32 d, lo, hi, selector (default mode): byte i of d is byte
/// (nibble i of selector) & 7 of {hi, lo}, or with the nibble's bit 3 that
/// byte's sign bit replicated.
int32_t emu_prmt(int32_t lo, int32_t hi, int32_t selector) {
  uint64_t pool = (static_cast<uint64_t>(static_cast<uint32_t>(hi)) << 32) |
                  static_cast<uint32_t>(lo);
  uint32_t d = 0;
  for (int i = 0; i < 4; ++i) {
    uint32_t nibble = (static_cast<uint32_t>(selector) >> (4 * i)) & 0xF;
    uint32_t byte = (pool >> (8 * (nibble & 7))) & 0xFF;
    if (nibble & 8)
      byte = (byte & 0x80) ? 0xFF : 0x00;
    d |= byte << (8 * i);
  }
  return static_cast<int32_t>(d);
}
uint16_t teq_emu_float_to_bf16(float value) { return floatToBF16(value); }

/// One block (bx, by) of a data kernel: (x, [data, scale] per copy, [rng],
/// bx, by).
#define M1 MemRef1D *
using Both = void (*)(M1, M1, M1, M1, M1, int64_t, int64_t);
using BothSR = void (*)(M1, M1, M1, M1, M1, M1, int64_t, int64_t);
using OneSR = void (*)(M1, M1, M1, M1, int64_t, int64_t);
// Kernel prefixes follow the entries of NVFP4SRKernels.mlir in order.
void _mlir_ciface_q0_nvfp4(M1, M1, M1, M1, M1, M1, int64_t, int64_t);
void _mlir_ciface_q1_nvfp4(M1, M1, M1, M1, M1, M1, int64_t, int64_t);
void _mlir_ciface_q2_nvfp4(M1, M1, M1, M1, M1, M1, int64_t, int64_t);
void _mlir_ciface_q3_nvfp4_row(M1, M1, M1, M1, int64_t, int64_t);
void _mlir_ciface_q4_nvfp4_col(M1, M1, M1, M1, int64_t, int64_t);
void _mlir_ciface_q5_nvfp4(M1, M1, M1, M1, M1, int64_t, int64_t);
void _mlir_ciface_q6_nvfp4(M1, M1, M1, M1, M1, int64_t, int64_t);
void _mlir_ciface_q7_nvfp4(M1, M1, M1, M1, M1, int64_t, int64_t);
void _mlir_ciface_q8_nvfp4(M1, M1, M1, M1, M1, int64_t, int64_t);
void _mlir_ciface_q10_nvfp4(M1, M1, M1, M1, M1, M1, int64_t, int64_t);
void _mlir_ciface_q11_nvfp4(M1, M1, M1, M1, M1, int64_t, int64_t);
void _mlir_ciface_q12_nvfp4(M1, M1, M1, M1, M1, int64_t, int64_t);
// The amax kernels: (x, amax buffer..., bx, by); the last block of the
// grid writes the buffers.
void _mlir_ciface_q0_rht_amax(M1, M1, M1, int64_t, int64_t);
void _mlir_ciface_q1_amax(M1, M1, M1, int64_t, int64_t);
void _mlir_ciface_q3_amax(M1, M1, int64_t, int64_t);
void _mlir_ciface_q4_amax(M1, M1, int64_t, int64_t);
void _mlir_ciface_q7_rht_amax(M1, M1, M1, int64_t, int64_t);
void _mlir_ciface_q9_amax(M1, M1, int64_t, int64_t);
void _mlir_ciface_q10_rht_amax(M1, M1, M1, int64_t, int64_t);
void _mlir_ciface_q12_rht_amax(M1, M1, M1, int64_t, int64_t);
void _mlir_ciface_q2_amax(M1, M1, M1, int64_t, int64_t);
void _mlir_ciface_q5_amax(M1, M1, M1, int64_t, int64_t);
void _mlir_ciface_q6_amax(M1, M1, M1, int64_t, int64_t);
void _mlir_ciface_q8_amax(M1, M1, M1, int64_t, int64_t);
void _mlir_ciface_q11_amax(M1, M1, M1, int64_t, int64_t);
#undef M1
}

namespace {

using Amax1 = void (*)(MemRef1D *, MemRef1D *, int64_t, int64_t);
using Amax2 = void (*)(MemRef1D *, MemRef1D *, MemRef1D *, int64_t, int64_t);

struct Case {
  const char *name;
  int64_t m, k;
  DType dtype;
  bool rht, twoD, swizzled, stochastic;
  bool row, col;  ///< The usages of the entry.
  Both both;      ///< Round to nearest, both usages.
  BothSR bothSR;  ///< Stochastic, both usages.
  OneSR one;      ///< Stochastic, one usage.
  /// The amax pass (one kernel over its grid; its last block writes the
  /// amax buffers and the S_enc / encode-multiplier constants the data
  /// kernel reads): one buffer, or two (rowwise, columnwise; with RHT
  /// columnwise, rowwise).
  Amax1 amax1;
  Amax2 amax2;
};

const Case kCases[] = {
    {"rht", 64, 128, DType::BF16, true, false, true, true, true, true, nullptr,
     _mlir_ciface_q0_nvfp4, nullptr,
     nullptr, _mlir_ciface_q0_rht_amax},
    {"padded", 48, 48, DType::BF16, false, false, false, true, true, true,
     nullptr, _mlir_ciface_q1_nvfp4, nullptr,
     nullptr, _mlir_ciface_q1_amax},
    {"twod", 48, 80, DType::BF16, false, true, false, true, true, true, nullptr,
     _mlir_ciface_q2_nvfp4, nullptr,
     nullptr, _mlir_ciface_q2_amax},
    {"f32_row", 32, 64, DType::F32, false, false, true, true, true, false,
     nullptr, nullptr, _mlir_ciface_q3_nvfp4_row,
     _mlir_ciface_q3_amax, nullptr},
    {"f16_col", 32, 48, DType::F16, false, false, false, true, false, true,
     nullptr, nullptr, _mlir_ciface_q4_nvfp4_col,
     _mlir_ciface_q4_amax, nullptr},
    {"rn_1d", 192, 128, DType::BF16, false, false, false, false, true, true,
     _mlir_ciface_q5_nvfp4, nullptr, nullptr,
     nullptr, _mlir_ciface_q5_amax},
    {"rn_twod", 96, 80, DType::BF16, false, true, true, false, true, true,
     _mlir_ciface_q6_nvfp4, nullptr, nullptr,
     nullptr, _mlir_ciface_q6_amax},
    {"rn_rht", 128, 128, DType::BF16, true, false, false, false, true, true,
     _mlir_ciface_q7_nvfp4, nullptr, nullptr,
     nullptr, _mlir_ciface_q7_rht_amax},
    {"rn_f16_padded", 48, 48, DType::F16, false, true, false, false, true, true,
     _mlir_ciface_q8_nvfp4, nullptr, nullptr,
     nullptr, _mlir_ciface_q8_amax},
    {"rht_partial", 80, 48, DType::BF16, true, false, true, true, true, true,
     nullptr, _mlir_ciface_q10_nvfp4, nullptr,
     nullptr, _mlir_ciface_q10_rht_amax},
    // Whole 64x64 tiles: the 2D kernel computing each code once.
    {"rn_twod_tiles", 128, 192, DType::BF16, false, true, true, false, true,
     true, _mlir_ciface_q11_nvfp4, nullptr, nullptr,
     nullptr, _mlir_ciface_q11_amax},
    {"rn_rht_k48", 32, 48, DType::BF16, true, false, false, false, true, true,
     _mlir_ciface_q12_nvfp4, nullptr, nullptr,
     nullptr, _mlir_ciface_q12_rht_amax},
};

/// Grids of the amax kernels (Kernels/NVFP4Amax.cpp: passBlocks over the
/// vectors of the plain pass and the 16-row groups of the RHT pass).
int64_t amaxGrid(int64_t n, DType dtype) {
  int64_t perVector = dtype == DType::F32 ? 4 : 8;
  return std::clamp<int64_t>((n / perVector + 255) / 256, 1, 1024);
}
// As nvfp4RhtAmaxGrid: a thread transforms four columns of 16-bit x when
// K % 4 == 0, else one.
int64_t rhtAmaxGrid(int64_t m, int64_t k, DType dtype) {
  int64_t width = dtype != DType::F32 && k % 4 == 0 ? 4 : 1;
  return std::clamp<int64_t>((k / width * (m / 16) + 255) / 256, 1, 1024);
}

/// Block b of the case's amax pass (ra / ca: the amax buffers).
void runAmaxBlock(const Case &c, MemRef1D *x, MemRef1D *ra, MemRef1D *ca,
                  int64_t b) {
  if (c.amax2 && c.rht)
    c.amax2(x, ca, ra, b, 0);
  else if (c.amax2)
    c.amax2(x, ra, ca, b, 0);
  else
    c.amax1(x, c.row ? ra : ca, b, 0);
}

int64_t amaxPassGrid(const Case &c) {
  return c.rht ? rhtAmaxGrid(c.m, c.k, c.dtype) : amaxGrid(c.m * c.k, c.dtype);
}

/// Runs the case's amax pass, then every 64x64 tile (block) of its data
/// kernel, which reads the constants the pass left.
void runKernel(const Case &c, MemRef1D *x, MemRef1D *ra, MemRef1D *rd,
               MemRef1D *rs, MemRef1D *ca, MemRef1D *cd, MemRef1D *cs,
               MemRef1D *rng) {
  for (int64_t b = 0; b < amaxPassGrid(c); ++b)
    runAmaxBlock(c, x, ra, ca, b);
  for (int64_t by = 0; by * 64 < c.m; ++by)
    for (int64_t bx = 0; bx * 64 < c.k; ++bx) {
      if (c.both)
        c.both(x, rd, rs, cd, cs, bx, by);
      else if (c.bothSR)
        c.bothSR(x, rd, rs, cd, cs, rng, bx, by);
      else if (c.row)
        c.one(x, rd, rs, rng, bx, by);
      else
        c.one(x, cd, cs, rng, bx, by);
    }
}

enum class Fill { Normal, Special, Tiny, Grid, Huge };

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
    case Fill::Huge: // Sums of two overflow f32; a quarter of them do not
                     // (the RHT amax pass's unscaled transform must not
                     // be used).
      v[i] = std::clamp(normal(gen), -3.0f, 3.0f) * 1e38f;
      break;
    }
  }
  if (fill == Fill::Special) {
    const float inf = std::numeric_limits<float>::infinity();
    v[3] = inf;
    v[7] = -inf;
    v[11] = std::numeric_limits<float>::quiet_NaN();
    v[12] = -std::numeric_limits<float>::quiet_NaN(); // sign bit set
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

/// The reference quantization of the case's usages and layout on `x`.
auto referenceQuantize(const Case &c, const Input &x, bool stochastic,
                       uint64_t seed, uint64_t offset) {
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
  options.stochasticRounding = stochastic;
  options.seed = seed;
  options.offset = offset;
  return quantizeNVFP4(x, desc, layout::TargetCaps::fromSM(90), options);
}

void runCase(const Case &c, Fill fill, uint64_t seed, uint64_t offset,
             unsigned valueSeed) {
  Input x = Input::rounded(c.dtype, {c.m, c.k},
                           makeValues(c.m * c.k, fill, valueSeed));
  auto expected = referenceQuantize(c, x, c.stochastic, seed, offset);
  ASSERT_TRUE(expected.ok()) << expected.message();

  std::vector<uint8_t> input = inputBytes(x);
  uint64_t rng[2] = {seed, offset};
  // Per copy: amax, data (garbage at first: every byte must be written),
  // scales (zeros: the zero-fill kernel runs first).
  float amax[2] = {0, 0};
  std::vector<uint8_t> got[2][2];
  MemRef1D mem[2][3];
  const char *copies[2] = {"rowwise", "columnwise"};
  for (int cw = 0; cw < 2; ++cw) {
    if (!(cw ? c.col : c.row))
      continue;
    const std::string copy = copies[cw];
    amax[cw] = expected->find("amax_" + copy)->f32(0);
    got[cw][0].assign(expected->find(copy + "_data")->bytes.size(), 0xA5);
    got[cw][1].assign(expected->find(copy + "_scale_inv")->bytes.size(), 0);
    mem[cw][0] = memref(&amax[cw], 1);
    mem[cw][1] = memref(got[cw][0].data(), got[cw][0].size());
    mem[cw][2] = memref(got[cw][1].data(), got[cw][1].size());
  }
  MemRef1D mx = memref(input.data(), c.m * c.k);
  MemRef1D mr = memref(rng, 2);
  runKernel(c, &mx, &mem[0][0], &mem[0][1], &mem[0][2], &mem[1][0],
            &mem[1][1], &mem[1][2], &mr);
  for (int cw = 0; cw < 2; ++cw) {
    if (!(cw ? c.col : c.row))
      continue;
    const std::string copy = copies[cw];
    const Buffer &data = *expected->find(copy + "_data");
    const Buffer &scale = *expected->find(copy + "_scale_inv");
    const std::string what = std::string(c.name) + " " + copy + " fill " +
                             std::to_string(static_cast<int>(fill)) +
                             " seed " + std::to_string(seed) + " offset " +
                             std::to_string(offset);
    int64_t at = firstDifference(data.bytes, got[cw][0]);
    EXPECT_EQ(at, -1) << what << ": data byte " << at << ": reference 0x"
                      << std::hex << int(data.bytes[at]) << ", kernel 0x"
                      << int(got[cw][0][at]);
    at = firstDifference(scale.bytes, got[cw][1]);
    EXPECT_EQ(at, -1) << what << ": scale byte " << at;
  }
}

TEST(NVFP4SRKernels, MatchReferenceBitForBit) {
  std::mt19937_64 gen(2026);
  for (const Case &c : kCases)
    for (Fill fill : {Fill::Normal, Fill::Special, Fill::Tiny, Fill::Grid,
                      Fill::Huge})
      for (int draw = 0; draw < 3; ++draw) {
        // (0, 0), then full 64-bit seeds and offsets (the columnwise stream
        // flips the offset's top bit).
        uint64_t seed = draw ? gen() : 0, offset = draw ? gen() : 0;
        runCase(c, fill, seed, offset, 100u * draw + static_cast<unsigned>(fill));
      }
}

TEST(NVFP4SRKernels, OtherStateOtherBits) {
  // The check above is not vacuous: the kernel's bits follow the state.
  const Case &c = kCases[3]; // f32_row
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
  runKernel(c, &mx, &ma, &md, &ms, nullptr, nullptr, nullptr, &mr);
  EXPECT_NE(firstDifference(data.bytes, got), -1);
}

TEST(NVFP4AmaxKernels, MatchReferenceBitForBit) {
  for (const Case &c : kCases)
    for (Fill fill : {Fill::Normal, Fill::Special, Fill::Tiny, Fill::Grid,
                      Fill::Huge})
      for (unsigned draw = 0; draw < 3; ++draw) {
        std::vector<float> values = makeValues(c.m * c.k, fill, 7 * draw + 1);
        if (fill == Fill::Normal && draw == 1)
          values[values.size() / 2] = std::numeric_limits<float>::quiet_NaN();
        if (fill == Fill::Normal && draw == 2) // the max somewhere else
          values[values.size() - 3] = -40.0f;
        Input x = Input::rounded(c.dtype, {c.m, c.k}, values);
        // The amaxes do not depend on the rounding.
        auto expected = referenceQuantize(c, x, /*stochastic=*/false, 0, 0);
        ASSERT_TRUE(expected.ok()) << expected.message();
        std::vector<uint8_t> input = inputBytes(x);
        MemRef1D mx = memref(input.data(), c.m * c.k);
        int64_t grid = amaxPassGrid(c);
        float got[2] = {-1.0f, -1.0f};
        MemRef1D mr = memref(&got[0], 1), mc = memref(&got[1], 1);
        for (int64_t b = 0; b < grid; ++b) {
          runAmaxBlock(c, &mx, &mr, &mc, b);
          // Only the last block writes the amaxes.
          if (b + 1 < grid) {
            EXPECT_EQ(got[0], -1.0f);
            EXPECT_EQ(got[1], -1.0f);
          }
        }
        const std::string what = std::string(c.name) + " fill " +
                                 std::to_string(static_cast<int>(fill)) +
                                 " draw " + std::to_string(draw);
        if (c.row) {
          float want = expected->find("amax_rowwise")->f32(0);
          EXPECT_EQ(std::memcmp(&want, &got[0], 4), 0)
              << what << ": rowwise amax " << want << ", kernel " << got[0];
        }
        if (c.col) {
          float want = expected->find("amax_columnwise")->f32(0);
          EXPECT_EQ(std::memcmp(&want, &got[1], 4), 0)
              << what << ": columnwise amax " << want << ", kernel " << got[1];
        }
      }
}

TEST(NVFP4AmaxKernels, LargeTensorAllLoops) {
  // 2032 x 4240 bf16: 1076960 16-byte vectors over 1024 x 256 threads (the
  // unrolled loop, then the remainder; TE's quantizers take multiples of 16
  // only, so no element tail). The amax is max |x| (NaN ignored), placed in
  // each part in turn.
  const int64_t m = 2032, k = 4240, n = m * k;
  std::vector<float> values = makeValues(n, Fill::Normal, 11);
  values[1234] = std::numeric_limits<float>::quiet_NaN();
  for (int64_t at : {int64_t(17), int64_t(4 * 1024 * 256 * 8 + 5),
                     n - 9, n - 1}) {
    std::vector<float> v = values;
    v[at] = -77.0f;
    Input x = Input::rounded(DType::BF16, {m, k}, v);
    std::vector<uint8_t> input = inputBytes(x);
    MemRef1D mx = memref(input.data(), n);
    float got = -1.0f;
    MemRef1D mr = memref(&got, 1);
    for (int64_t b = 0; b < amaxGrid(n, DType::BF16); ++b)
      _mlir_ciface_q9_amax(&mx, &mr, b, 0);
    EXPECT_EQ(got, 77.0f) << "max at " << at;
  }
}

} // namespace


namespace {

/// The kernels' E2M1 rounding (Kernels/FP4Numerics.cpp, e2m1Nibble) in C++: the
/// code is the min of three pieces, each rounded to an integer by one f32
/// operation against 2^23, saturated at 7 (NaN loses every fminf); the sign
/// bit for negative non-NaN values.
uint8_t kernelE2M1(float s) {
  uint32_t u;
  std::memcpy(&u, &s, 4);
  float a = std::fabs(s);
  float p1 = std::fmaf(a, 2.0f, 8388608.0f);
  float p2 = a + 8388610.0f;
  float p3 = std::fmaf(a, 0.5f, 8388612.0f);
  float pm = std::fminf(std::fminf(std::fminf(p1, p2), p3), 8388615.0f);
  uint32_t mag;
  std::memcpy(&mag, &pm, 4);
  uint32_t sign = u - 0x80000000u <= 0x7F800000u ? 8u : 0u;
  return static_cast<uint8_t>((mag | sign) & 0xFu);
}

TEST(NVFP4E2M1Rounding, KernelFormulaIsTheReference) {
  // Every pattern near each rounding bound, zero and infinity (both signs),
  // then a stride through all 2^32 (every pattern was checked once, off
  // line: ~20 s).
  const float bounds[] = {0.0f, 0.25f, 0.5f,  0.75f, 1.0f, 1.25f,
                          1.5f, 1.75f, 2.0f,  2.5f,  3.0f, 3.5f,
                          4.0f, 5.0f,  6.0f,  8.0f,  std::numeric_limits<float>::infinity()};
  auto check = [](uint32_t u) {
    float s;
    std::memcpy(&s, &u, 4);
    ASSERT_EQ(kernelE2M1(s), floatToE2M1(s)) << std::hex << "pattern 0x" << u;
  };
  for (float b : bounds)
    for (uint32_t sign : {0u, 0x80000000u}) {
      uint32_t u;
      std::memcpy(&u, &b, 4);
      for (int64_t d = -70000; d <= 70000; ++d) {
        int64_t p = static_cast<int64_t>(u) + d;
        if (p >= 0 && p <= 0x7FFFFFFF)
          check(static_cast<uint32_t>(p) | sign);
      }
    }
  for (uint64_t u = 0; u < (1ull << 32); u += 4099)
    check(static_cast<uint32_t>(u));
}

} // namespace
