//===- QuantizeTest.cpp - Reference quantizers over TE's buffer layouts ---===//
//
// Expected bytes and scales are computed by hand from te-semantics.md §4-§5
// and §11 (the comments show the arithmetic); structural properties (layout,
// padding, transposes, swizzle placement) and TE's acceptance tolerances
// (§8) cover the larger cases.
//
//===----------------------------------------------------------------------===//

#include "teq/Reference/Hadamard.h"
#include "teq/Reference/Quantize.h"
#include "teq/Reference/Random.h"

#include <gtest/gtest.h>

#include <cfloat>
#include <cmath>
#include <limits>
#include <random>

using namespace mlir::teq;
using namespace mlir::teq::reference;
using layout::Encoding;
using layout::Format;
using layout::ScaleLayout;
using layout::TargetCaps;
using layout::TensorDesc;

namespace {

using Shape = std::vector<int64_t>;

const float kInf = std::numeric_limits<float>::infinity();
const TargetCaps sm90 = TargetCaps::fromSM(90);
const TargetCaps sm100 = TargetCaps::fromSM(100);

TensorDesc makeDesc(Shape shape, Format format,
                    unsigned usage = layout::UsageBoth,
                    Encoding encoding = Encoding::E4M3,
                    ScaleLayout scaleLayout = ScaleLayout::Compact) {
  TensorDesc desc;
  desc.shape = std::move(shape);
  desc.format = format;
  desc.usage = usage;
  desc.dataEncoding = format == Format::NVFP4 ? Encoding::E2M1x2 : encoding;
  desc.scaleLayout = scaleLayout;
  return desc;
}

std::vector<uint8_t> bytesOf(const QuantizedTensor &tensor,
                             const std::string &name) {
  const Buffer *buffer = tensor.find(name);
  EXPECT_NE(buffer, nullptr) << name;
  return buffer ? buffer->bytes : std::vector<uint8_t>{};
}

std::vector<float> randomNormal(size_t count, unsigned seed,
                                float stddev = 1.0f) {
  std::mt19937 generator(seed);
  std::normal_distribution<float> normal(0.0f, stddev);
  std::vector<float> values(count);
  for (float &value : values)
    value = normal(generator);
  return values;
}

/// TE's test_quantized_tensor tolerance: |deq - x| <= atol + rtol * |x|.
void expectRoundTrip(const std::vector<float> &x, const std::vector<float> &y,
                     Encoding encoding) {
  const float rtol = encoding == Encoding::E4M3 ? 0.125f : 0.25f;
  const float atol = encoding == Encoding::E4M3 ? 0.0675f : 0.125f;
  ASSERT_EQ(x.size(), y.size());
  for (size_t i = 0; i < x.size(); ++i)
    ASSERT_LE(std::fabs(y[i] - x[i]), atol + rtol * std::fabs(x[i]))
        << "element " << i << ": " << x[i] << " -> " << y[i];
}

/// Every buffer matches describeBuffers, in order and size.
void expectLayout(const QuantizedTensor &tensor) {
  auto expected = layout::describeBuffers(tensor.desc, tensor.target);
  ASSERT_EQ(tensor.buffers.size(), expected.size());
  for (size_t i = 0; i < expected.size(); ++i) {
    EXPECT_EQ(tensor.buffers[i].desc.name, expected[i].name);
    EXPECT_EQ(tensor.buffers[i].desc.shape, expected[i].shape);
    EXPECT_EQ(static_cast<int64_t>(tensor.buffers[i].bytes.size()),
              expected[i].sizeInBytes());
  }
}

//===----------------------------------------------------------------------===//
// Validation
//===----------------------------------------------------------------------===//

TEST(Validation, Errors) {
  Input x = Input::fromF32({2, 3}, {1, 2, 3, 4, 5, 6});
  auto wrongShape =
      quantizePerTensor(x, makeDesc({3, 2}, Format::PerTensorFP8), sm90);
  ASSERT_FALSE(wrongShape.ok());
  EXPECT_NE(wrongShape.message().find("does not match"), std::string::npos);

  auto wrongFormat = quantizeMXFP8(x, makeDesc({2, 3}, Format::NVFP4), sm100);
  ASSERT_FALSE(wrongFormat.ok());

  Input short_ = Input::fromF32({2, 3}, {1, 2});
  EXPECT_FALSE(
      quantizePerTensor(short_, makeDesc({2, 3}, Format::PerTensorFP8), sm90)
          .ok());

  // NVFP4 rowwise needs an even K (layout rule).
  EXPECT_FALSE(quantizeNVFP4(x, makeDesc({2, 3}, Format::NVFP4), sm100).ok());

  auto rowOnly = quantize(x, makeDesc({2, 3}, Format::PerTensorFP8,
                                      layout::UsageRowwise),
                          sm90);
  ASSERT_TRUE(rowOnly.ok()) << rowOnly.message();
  EXPECT_FALSE(dequantize(*rowOnly, layout::UsageColumnwise).ok());
  EXPECT_FALSE(dequantize(*rowOnly, layout::UsageBoth).ok());
}

//===----------------------------------------------------------------------===//
// Per-tensor current scaling (§5.1)
//===----------------------------------------------------------------------===//

TEST(CurrentScaling, SmallTensorWithTranspose) {
  // amax = 224 -> scale = 448/224 = 2, scale_inv = 0.5.
  // x*2 = [2, -4, 1, 448, 6, -2^-9] -> E4M3 0x40, 0xC8, 0x38, 0x7E, 0x4C, 0x81.
  Input x = Input::fromF32({2, 3}, {1.0f, -2.0f, 0.5f, 224.0f, 3.0f,
                                    -std::ldexp(1.0f, -10)});
  auto q = quantizePerTensor(x, makeDesc({2, 3}, Format::PerTensorFP8), sm90);
  ASSERT_TRUE(q.ok()) << q.message();
  expectLayout(*q);
  EXPECT_EQ(q->amax, 224.0f);
  EXPECT_EQ(q->scale, 2.0f);
  EXPECT_EQ(bytesOf(*q, "data"),
            (std::vector<uint8_t>{0x40, 0xC8, 0x38, 0x7E, 0x4C, 0x81}));
  // Hopper keeps a physically transposed copy [K, M] = [3, 2].
  EXPECT_EQ(bytesOf(*q, "transpose"),
            (std::vector<uint8_t>{0x40, 0x7E, 0xC8, 0x4C, 0x38, 0x81}));
  EXPECT_EQ(q->find("scale_inv")->f32(0), 0.5f);

  auto back = dequantize(*q, layout::UsageColumnwise);
  ASSERT_TRUE(back.ok());
  EXPECT_EQ(*back, (std::vector<float>{1.0f, -2.0f, 0.5f, 224.0f, 3.0f,
                                       -std::ldexp(1.0f, -10)}));

  // Blackwell: no transpose buffer; columnwise reads the same data.
  auto bw = quantizePerTensor(x, makeDesc({2, 3}, Format::PerTensorFP8), sm100);
  ASSERT_TRUE(bw.ok());
  expectLayout(*bw);
  EXPECT_EQ(bw->find("transpose"), nullptr);
  EXPECT_EQ(bytesOf(*bw, "data"), bytesOf(*q, "data"));
}

TEST(CurrentScaling, HigherRankTranspose) {
  // [2, 1, 3] -> M = 2, K = 3; transpose shape [3, 2, 1].
  Input x = Input::fromF32({2, 1, 3}, {1, 2, 3, 4, 5, 6});
  auto q =
      quantizePerTensor(x, makeDesc({2, 1, 3}, Format::PerTensorFP8), sm90);
  ASSERT_TRUE(q.ok()) << q.message();
  expectLayout(*q);
  const auto &data = q->find("data")->bytes;
  const auto &transposed = q->find("transpose")->bytes;
  for (int m = 0; m < 2; ++m)
    for (int k = 0; k < 3; ++k)
      EXPECT_EQ(transposed[k * 2 + m], data[m * 3 + k]);
}

TEST(CurrentScaling, OptionsAndEdges) {
  Input x = Input::fromF32({1, 4}, {3.0f, -1.0f, 0.5f, 0.0f});
  PerTensorOptions pow2;
  pow2.forcePow2Scales = true;
  auto q = quantizePerTensor(x, makeDesc({1, 4}, Format::PerTensorFP8), sm100,
                             pow2);
  ASSERT_TRUE(q.ok());
  EXPECT_EQ(q->scale, 128.0f); // 448/3 = 149.3 -> 128.
  EXPECT_EQ(q->find("scale_inv")->f32(0), 1.0f / 128.0f);
  // 3*128 = 384 = 1.5*2^8 -> 0x7C; -128 -> 0xF0; 64 -> 0x68; 0.
  EXPECT_EQ(bytesOf(*q, "data"), (std::vector<uint8_t>{0x7C, 0xF0, 0x68, 0}));

  // An all-reduced amax overrides max|x|.
  PerTensorOptions reduced;
  reduced.amax = 448.0f;
  q = quantizePerTensor(x, makeDesc({1, 4}, Format::PerTensorFP8), sm100,
                        reduced);
  ASSERT_TRUE(q.ok());
  EXPECT_EQ(q->scale, 1.0f);

  // §11: amax = inf -> scale 1; the inf saturates (E4M3 0x7E, E5M2 0x7B).
  Input withInf = Input::fromF32({1, 3}, {1.0f, kInf, -2.0f});
  q = quantizePerTensor(withInf, makeDesc({1, 3}, Format::PerTensorFP8), sm100);
  ASSERT_TRUE(q.ok());
  EXPECT_EQ(q->scale, 1.0f);
  EXPECT_EQ(bytesOf(*q, "data"), (std::vector<uint8_t>{0x38, 0x7E, 0xC0}));
  q = quantizePerTensor(withInf,
                        makeDesc({1, 3}, Format::PerTensorFP8,
                                 layout::UsageRowwise, Encoding::E5M2),
                        sm100);
  ASSERT_TRUE(q.ok());
  EXPECT_EQ(bytesOf(*q, "data"), (std::vector<uint8_t>{0x3C, 0x7B, 0xC0}));

  // All zeros -> scale 1; tiny amax -> FLT_MAX.
  Input zeros = Input::fromF32({1, 2}, {0.0f, -0.0f});
  q = quantizePerTensor(zeros, makeDesc({1, 2}, Format::PerTensorFP8), sm100);
  ASSERT_TRUE(q.ok());
  EXPECT_EQ(q->scale, 1.0f);
  EXPECT_EQ(bytesOf(*q, "data"), (std::vector<uint8_t>{0x00, 0x80}));
  Input tiny = Input::fromF32({1, 2}, {1e-45f, 0.0f});
  q = quantizePerTensor(tiny, makeDesc({1, 2}, Format::PerTensorFP8), sm100);
  ASSERT_TRUE(q.ok());
  EXPECT_EQ(q->scale, FLT_MAX);
}

TEST(CurrentScaling, RoundTripTolerances) {
  for (Encoding encoding : {Encoding::E4M3, Encoding::E5M2}) {
    std::vector<float> values = randomNormal(64 * 96, 7);
    Input x = Input::rounded(DType::BF16, {64, 96}, values);
    auto q = quantizePerTensor(
        x, makeDesc({64, 96}, Format::PerTensorFP8, layout::UsageBoth,
                    encoding),
        sm90);
    ASSERT_TRUE(q.ok());
    for (layout::Usage usage : {layout::UsageRowwise, layout::UsageColumnwise}) {
      auto back = dequantize(*q, usage);
      ASSERT_TRUE(back.ok());
      expectRoundTrip(x.values, *back, encoding);
    }
  }
}

//===----------------------------------------------------------------------===//
// Delayed scaling (§5.2)
//===----------------------------------------------------------------------===//

TEST(DelayedScaling, CastWithStoredScale) {
  // scale 4: [1, -3] -> [4, -12] -> 0x48, 0xD4 (12 = 1.5*2^3); amax 3.
  Input x = Input::fromF32({1, 2}, {1.0f, -3.0f});
  PerTensorOptions options;
  options.scaling = PerTensorScaling::Delayed;
  options.scale = 4.0f;
  auto q = quantizePerTensor(x, makeDesc({1, 2}, Format::PerTensorFP8), sm90,
                             options);
  ASSERT_TRUE(q.ok());
  EXPECT_EQ(q->amax, 3.0f);
  EXPECT_EQ(q->scale, 4.0f);
  EXPECT_EQ(bytesOf(*q, "data"), (std::vector<uint8_t>{0x48, 0xD4}));
  EXPECT_EQ(bytesOf(*q, "transpose"), (std::vector<uint8_t>{0x48, 0xD4}));
  EXPECT_EQ(q->find("scale_inv")->f32(0), 0.25f);
}

struct Step {
  float amax;          ///< Recorded by this step's cast (0: nothing).
  float expectedMax;   ///< Scale afterwards, algo "max".
  float expectedRecent;///< Scale afterwards, algo "most_recent".
  std::vector<float> expectedHistory;
};

TEST(DelayedScaling, UpdateOverSeveralSteps) {
  // fp8_max 448, margin 2 -> scaled_max = 112; history length 4.
  // Roll: new[i] = old[i+1], new[3] = last, new[0] = 0; "max" covers
  // old[1..3] and last.
  const std::vector<Step> steps = {
      {2.0f, 56.0f, 56.0f, {0, 0, 0, 2}},
      {8.0f, 14.0f, 14.0f, {0, 0, 2, 8}},
      {1.0f, 14.0f, 112.0f, {0, 2, 8, 1}},
      // last_amax == 0: no roll, "max" sees 0 -> the old scale is kept.
      {0.0f, 14.0f, 112.0f, {0, 2, 8, 1}},
      {4.0f, 14.0f, 28.0f, {0, 8, 1, 4}},
      // max(8, 1, 4, 3) = 8 although 8 leaves the window.
      {3.0f, 14.0f, 112.0f / 3.0f, {0, 1, 4, 3}},
      {2.0f, 28.0f, 56.0f, {0, 4, 3, 2}},
  };
  DelayedScalingState max{{0, 0, 0, 0}, 1.0f};
  DelayedScalingState recent{{0, 0, 0, 0}, 1.0f};
  for (size_t i = 0; i < steps.size(); ++i) {
    recordAmax(max, steps[i].amax);
    recordAmax(recent, steps[i].amax);
    updateDelayedScaling(max, 448.0f, 2, AmaxComputeAlgo::Max);
    updateDelayedScaling(recent, 448.0f, 2, AmaxComputeAlgo::MostRecent);
    EXPECT_EQ(max.scale, steps[i].expectedMax) << "step " << i;
    EXPECT_EQ(recent.scale, steps[i].expectedRecent) << "step " << i;
    EXPECT_EQ(max.amaxHistory, steps[i].expectedHistory) << "step " << i;
    EXPECT_EQ(recent.amaxHistory, steps[i].expectedHistory) << "step " << i;
  }
}

TEST(DelayedScaling, NumericScenarios) {
  // test_recipe::test_scale_update_numeric_scenarios: zero / tiny / normal /
  // inf / nan -> 1 / FLT_MAX / fp8_max/amax / 1 / 1 (old scale 1, margin 0).
  const float fp8Max = 448.0f;
  const float tiny = fp8Max / FLT_MAX / 2.0f;
  const float nan = std::numeric_limits<float>::quiet_NaN();
  struct Case {
    float amax;
    float expected;
  } cases[] = {{0.0f, 1.0f},
               {tiny, FLT_MAX},
               {3.0f, fp8Max / 3.0f},
               {kInf, 1.0f},
               {nan, 1.0f}};
  for (size_t length : {1u, 31u}) {
    for (AmaxComputeAlgo algo :
         {AmaxComputeAlgo::Max, AmaxComputeAlgo::MostRecent}) {
      for (const Case &c : cases) {
        DelayedScalingState state{std::vector<float>(length, 0.0f), 1.0f};
        state.amaxHistory[0] = c.amax;
        updateDelayedScaling(state, fp8Max, 0, algo);
        EXPECT_EQ(state.scale, c.expected)
            << "amax " << c.amax << " length " << length;
      }
    }
  }
}

TEST(DelayedScaling, ReducedAmax) {
  // A non-zero reduced amax replaces history[0]; a zero one does not.
  DelayedScalingState state{{5.0f, 0.0f}, 1.0f};
  updateDelayedScaling(state, 448.0f, 0, AmaxComputeAlgo::MostRecent, 7.0f);
  EXPECT_EQ(state.scale, 64.0f);
  EXPECT_EQ(state.amaxHistory, (std::vector<float>{0.0f, 7.0f}));
  state.amaxHistory[0] = 4.0f;
  updateDelayedScaling(state, 448.0f, 0, AmaxComputeAlgo::MostRecent, 0.0f);
  EXPECT_EQ(state.scale, 112.0f);
}

//===----------------------------------------------------------------------===//
// FP8 block scaling (§5.3)
//===----------------------------------------------------------------------===//

TEST(BlockFP8, Extrema) {
  // All-zero 128x128: scale_inv 1 everywhere (1D and 2D).
  for (Format format : {Format::BlockFP8_1D, Format::BlockFP8_2D}) {
    Input zeros = Input::fromF32({128, 128}, std::vector<float>(128 * 128));
    auto q = quantizeBlockFP8(zeros, makeDesc({128, 128}, format), sm90);
    ASSERT_TRUE(q.ok()) << q.message();
    expectLayout(*q);
    for (const char *name : {"rowwise_scale_inv", "columnwise_scale_inv"}) {
      const Buffer *scales = q->find(name);
      for (int64_t i = 0; i < scales->desc.validShape[0]; ++i)
        for (int64_t j = 0; j < scales->desc.validShape[1]; ++j)
          EXPECT_EQ(scales->f32(i * scales->desc.shape[1] + j), 1.0f);
    }
  }
  // A block of bf16 max: pow2(448 / 3.3895e38) = 2^-120 (the ratio is
  // 2^-119.2), scale_inv = 2^120; x * 2^-120 = 255 -> E4M3 256 = 0x78.
  std::vector<uint16_t> maxBits(128 * 128, 0x7F7F);
  Input bf16Max = Input::fromBF16Bits({128, 128}, maxBits);
  for (Format format : {Format::BlockFP8_1D, Format::BlockFP8_2D}) {
    auto q = quantizeBlockFP8(bf16Max, makeDesc({128, 128}, format), sm90);
    ASSERT_TRUE(q.ok());
    EXPECT_EQ(q->find("rowwise_scale_inv")->f32(0), std::ldexp(1.0f, 120));
    EXPECT_EQ(q->find("columnwise_scale_inv")->f32(0), std::ldexp(1.0f, 120));
    EXPECT_EQ(q->find("rowwise_data")->bytes[0], 0x78);
    EXPECT_EQ(q->find("columnwise_data")->bytes[5], 0x78);
  }
  // fp32 max without pow2: scale = 448/FLT_MAX, scale_inv = 1/scale.
  Input f32Max =
      Input::fromF32({1, 128}, std::vector<float>(128, FLT_MAX));
  BlockFP8Options noPow2;
  noPow2.forcePow2Scales = false;
  auto q = quantizeBlockFP8(
      f32Max, makeDesc({1, 128}, Format::BlockFP8_1D, layout::UsageRowwise),
      sm90, noPow2);
  ASSERT_TRUE(q.ok());
  EXPECT_EQ(q->find("rowwise_scale_inv")->f32(0), 1.0f / (448.0f / FLT_MAX));
  EXPECT_EQ(q->find("rowwise_data")->bytes[0], 0x7E);
}

TEST(BlockFP8, InfAndTinyBlocks) {
  // Block with +inf: scale 1 (kernel rule), inf -> 0x7E, -2 -> 0xC0.
  std::vector<float> values(128, 0.0f);
  values[0] = kInf;
  values[1] = -2.0f;
  auto q = quantizeBlockFP8(
      Input::fromF32({1, 128}, values),
      makeDesc({1, 128}, Format::BlockFP8_1D, layout::UsageRowwise), sm90);
  ASSERT_TRUE(q.ok());
  EXPECT_EQ(q->find("rowwise_scale_inv")->f32(0), 1.0f);
  EXPECT_EQ(q->find("rowwise_data")->bytes[0], 0x7E);
  EXPECT_EQ(q->find("rowwise_data")->bytes[1], 0xC0);

  // BF16 block whose amax is the smallest BF16 subnormal 2^-133:
  // 448 * 2^133 overflows -> value_for_inf = bf16 max -> pow2 -> 2^127;
  // x * 2^127 = 2^-6 -> E4M3 0x08.
  std::vector<uint16_t> bits(128, 0);
  bits[3] = 0x0001;
  q = quantizeBlockFP8(
      Input::fromBF16Bits({1, 128}, bits),
      makeDesc({1, 128}, Format::BlockFP8_1D, layout::UsageRowwise), sm90);
  ASSERT_TRUE(q.ok());
  EXPECT_EQ(q->find("rowwise_scale_inv")->f32(0), std::ldexp(1.0f, -127));
  EXPECT_EQ(q->find("rowwise_data")->bytes[3], 0x08);
  // Without pow2 the scale is bf16 max itself.
  BlockFP8Options noPow2;
  noPow2.forcePow2Scales = false;
  q = quantizeBlockFP8(
      Input::fromBF16Bits({1, 128}, bits),
      makeDesc({1, 128}, Format::BlockFP8_1D, layout::UsageRowwise), sm90,
      noPow2);
  ASSERT_TRUE(q.ok());
  EXPECT_EQ(q->find("rowwise_scale_inv")->f32(0), 1.0f / kBF16Max);
}

TEST(BlockFP8, Ragged1D) {
  // [3, 130]: K blocks [0,128) and [128,130); row 0 is all 1 except
  // x[0][129] = 14. Rowwise: block (0,0) amax 1 -> scale 256 (448 -> pow2);
  // block (0,1) amax 14 -> 448/14 = 32. Rows 1, 2 are 0.5 -> 512 / 512.
  const int64_t m = 3, k = 130;
  std::vector<float> values(m * k, 0.5f);
  for (int64_t c = 0; c < k; ++c)
    values[c] = 1.0f;
  values[129] = 14.0f;
  auto q = quantizeBlockFP8(Input::fromF32({m, k}, values),
                            makeDesc({m, k}, Format::BlockFP8_1D), sm90);
  ASSERT_TRUE(q.ok()) << q.message();
  expectLayout(*q);
  const Buffer &rowScales = *q->find("rowwise_scale_inv");
  ASSERT_EQ(rowScales.desc.shape, (Shape{2, 4})); // [kb][m], M padded to 4.
  EXPECT_EQ(rowScales.f32(0 * 4 + 0), 1.0f / 256.0f);
  EXPECT_EQ(rowScales.f32(1 * 4 + 0), 1.0f / 32.0f);
  EXPECT_EQ(rowScales.f32(0 * 4 + 1), 1.0f / 512.0f);
  EXPECT_EQ(rowScales.f32(1 * 4 + 2), 1.0f / 512.0f);
  EXPECT_EQ(rowScales.f32(0 * 4 + 3), 0.0f); // Padding.
  EXPECT_EQ(rowScales.f32(1 * 4 + 3), 0.0f);
  const auto &rowData = q->find("rowwise_data")->bytes;
  EXPECT_EQ(rowData[0], 0x78);   // 1 * 256 = 2^8.
  EXPECT_EQ(rowData[128], 0x60); // 1 * 32 = 2^5: exponent field 12.
  EXPECT_EQ(rowData[129], 0x7E); // 14 * 32 = 448.
  // Columnwise: [K, M] data, blocks of 128 along M (here all 3 rows):
  // column c amax = 1 (c < 129) -> 256; column 129 amax 14 -> 32.
  const Buffer &colScales = *q->find("columnwise_scale_inv");
  ASSERT_EQ(colScales.desc.shape, (Shape{1, 132}));
  EXPECT_EQ(colScales.f32(0), 1.0f / 256.0f);
  EXPECT_EQ(colScales.f32(129), 1.0f / 32.0f);
  EXPECT_EQ(colScales.f32(130), 0.0f);
  const auto &colData = q->find("columnwise_data")->bytes;
  EXPECT_EQ(colData[0 * m + 0], 0x78);   // x[0][0] * 256.
  EXPECT_EQ(colData[0 * m + 1], 0x70);   // x[1][0] = 0.5 * 256 = 128.
  EXPECT_EQ(colData[129 * m + 0], 0x7E); // 14 * 32.
  EXPECT_EQ(colData[129 * m + 2], 0x58); // 0.5 * 32 = 16 = 2^4.
  for (layout::Usage usage : {layout::UsageRowwise, layout::UsageColumnwise}) {
    auto back = dequantize(*q, usage);
    ASSERT_TRUE(back.ok());
    EXPECT_EQ(*back, values); // Every value is exact here.
  }
}

TEST(BlockFP8, TwoDTilesAndTranspose) {
  // [130, 260]: 2 x 3 tiles (ragged last row / column of tiles); tile
  // (mb, kb) holds +-{0.5, 0.75, 1} * 2^(mb + kb), so its amax is
  // 2^(mb + kb) and its scale pow2(448 / 2^(mb+kb)) = 2^(8 - mb - kb).
  const int64_t m = 130, k = 260;
  std::vector<float> values(m * k);
  for (int64_t r = 0; r < m; ++r)
    for (int64_t c = 0; c < k; ++c) {
      float magnitude = std::ldexp(1.0f, static_cast<int>(r / 128 + c / 128));
      values[r * k + c] = ((r + c) % 3 == 0 ? -1.0f : 1.0f) * magnitude *
                          (0.5f + 0.25f * static_cast<float>((r * 7 + c) % 3));
    }
  auto q = quantizeBlockFP8(Input::fromF32({m, k}, values),
                            makeDesc({m, k}, Format::BlockFP8_2D), sm90);
  ASSERT_TRUE(q.ok()) << q.message();
  expectLayout(*q);
  const Buffer &rowScales = *q->find("rowwise_scale_inv");
  const Buffer &colScales = *q->find("columnwise_scale_inv");
  ASSERT_EQ(rowScales.desc.shape, (Shape{2, 4}));
  ASSERT_EQ(colScales.desc.shape, (Shape{3, 4}));
  for (int mb = 0; mb < 2; ++mb) {
    for (int kb = 0; kb < 3; ++kb) {
      // amax = 1.0 * 2^(mb+kb) -> scale 448/amax -> pow2 256 / 2^(mb+kb).
      const float expected = std::ldexp(1.0f, mb + kb - 8);
      EXPECT_EQ(rowScales.f32(mb * 4 + kb), expected) << mb << "," << kb;
      EXPECT_EQ(colScales.f32(kb * 4 + mb), expected) << mb << "," << kb;
    }
    EXPECT_EQ(rowScales.f32(mb * 4 + 3), 0.0f);
  }
  const auto &rowData = q->find("rowwise_data")->bytes;
  const auto &colData = q->find("columnwise_data")->bytes;
  for (int64_t r = 0; r < m; ++r)
    for (int64_t c = 0; c < k; ++c)
      ASSERT_EQ(colData[c * m + r], rowData[r * k + c]);
  auto back = dequantize(*q, layout::UsageRowwise);
  ASSERT_TRUE(back.ok());
  EXPECT_EQ(*back, values); // 0.5, 0.75, 1 times powers of two: exact.
}

TEST(BlockFP8, RoundTripTolerances) {
  for (Format format : {Format::BlockFP8_1D, Format::BlockFP8_2D}) {
    for (Encoding encoding : {Encoding::E4M3, Encoding::E5M2}) {
      std::vector<float> values = randomNormal(200 * 300, 11);
      Input x = Input::rounded(DType::BF16, {200, 300}, values);
      auto q = quantizeBlockFP8(
          x, makeDesc({200, 300}, format, layout::UsageBoth, encoding), sm90);
      ASSERT_TRUE(q.ok());
      for (layout::Usage usage :
           {layout::UsageRowwise, layout::UsageColumnwise}) {
        auto back = dequantize(*q, usage);
        ASSERT_TRUE(back.ok());
        expectRoundTrip(x.values, *back, encoding);
      }
    }
  }
}

//===----------------------------------------------------------------------===//
// MXFP8 (§5.4)
//===----------------------------------------------------------------------===//

TEST(MXFP8, BlockExponentsAndData) {
  // [32, 128], every row the same: block 0 amax 448 -> 127, block 1 amax
  // 449 -> 128, block 2 zeros -> 0, block 3 holds +inf -> 0xFE.
  const int64_t m = 32, k = 128;
  std::vector<float> row(k, 1.0f);
  row[0] = 448.0f;
  row[32] = 449.0f;
  for (int c = 64; c < 96; ++c)
    row[c] = 0.0f;
  row[96] = kInf;
  row[97] = -3.0f;
  std::vector<float> values;
  for (int64_t r = 0; r < m; ++r)
    values.insert(values.end(), row.begin(), row.end());
  auto q = quantizeMXFP8(Input::fromF32({m, k}, values),
                         makeDesc({m, k}, Format::MXFP8), sm100);
  ASSERT_TRUE(q.ok()) << q.message();
  expectLayout(*q);
  const Buffer &scales = *q->find("rowwise_scale_inv");
  ASSERT_EQ(scales.desc.shape, (Shape{128, 4}));
  for (int64_t r = 0; r < m; ++r) {
    EXPECT_EQ(scales.bytes[r * 4 + 0], 127);
    EXPECT_EQ(scales.bytes[r * 4 + 1], 128);
    EXPECT_EQ(scales.bytes[r * 4 + 2], 0);
    EXPECT_EQ(scales.bytes[r * 4 + 3], 0xFE);
  }
  for (int64_t i = m * 4; i < 128 * 4; ++i)
    EXPECT_EQ(scales.bytes[i], 0); // Padding rows.
  const auto &data = q->find("rowwise_data")->bytes;
  EXPECT_EQ(data[0], 0x7E);  // 448 * 2^0.
  EXPECT_EQ(data[1], 0x38);  // 1.
  EXPECT_EQ(data[32], 0x76); // 449 / 2 = 224.5 -> 224.
  EXPECT_EQ(data[33], 0x30); // 0.5.
  EXPECT_EQ(data[64], 0x00); // Zero block: 0 * 2^127.
  EXPECT_EQ(data[96], 0x7E); // §11: inf saturates...
  EXPECT_EQ(data[97], 0x80); // ...and the rest become +-0 (-3 * 2^-127).
  EXPECT_EQ(data[98], 0x00);

  // Columnwise: one 32-row block per column; column amaxes are |row[c]|.
  const Buffer &colScales = *q->find("columnwise_scale_inv");
  ASSERT_EQ(colScales.desc.shape, (Shape{4, 128}));
  EXPECT_EQ(colScales.bytes[0], 127);   // 448.
  EXPECT_EQ(colScales.bytes[1], 119);   // 1 -> 2^-8.
  EXPECT_EQ(colScales.bytes[64], 0);
  EXPECT_EQ(colScales.bytes[96], 0xFE);
  EXPECT_EQ(colScales.bytes[97], 120);  // 3/448 in [2^-8, 2^-7) -> 2^-7.
  EXPECT_EQ(colScales.bytes[128], 0);   // Padding row block.
  const auto &colData = q->find("columnwise_data")->bytes;
  EXPECT_EQ(colData[1], 0x78);       // 1 * 2^8 = 256.
  EXPECT_EQ(colData[5 * k + 97], 0xFC); // -3 * 2^7 = -384 = -1.5*2^8.

  // Dequantize: the zero and inf-free blocks come back exactly.
  auto back = dequantize(*q, layout::UsageRowwise);
  ASSERT_TRUE(back.ok());
  EXPECT_EQ((*back)[0], 448.0f);
  EXPECT_EQ((*back)[1], 1.0f);
  EXPECT_EQ((*back)[32], 448.0f); // 224 * 2.
  EXPECT_TRUE(std::isinf((*back)[96])); // 448 * 2^127 overflows fp32.
}

TEST(MXFP8, SwizzledPlacement) {
  // [256, 256]: rowwise scales [256, 8] (2 x 2 tiles of 128x4), columnwise
  // [8, 256]. Block amaxes 2^((r + kb) % 16) give distinct-ish exponents.
  const int64_t m = 256, k = 256;
  std::vector<float> values(m * k);
  for (int64_t r = 0; r < m; ++r)
    for (int64_t c = 0; c < k; ++c)
      values[r * k + c] =
          std::ldexp(1.0f, static_cast<int>((r + c / 32 + c % 5) % 16));
  Input x = Input::fromF32({m, k}, values);
  auto compact = quantizeMXFP8(x, makeDesc({m, k}, Format::MXFP8), sm100);
  auto swizzled = quantizeMXFP8(
      x, makeDesc({m, k}, Format::MXFP8, layout::UsageBoth, Encoding::E4M3,
                  ScaleLayout::GemmSwizzled),
      sm100);
  ASSERT_TRUE(compact.ok() && swizzled.ok());
  expectLayout(*swizzled);
  EXPECT_EQ(bytesOf(*compact, "rowwise_data"),
            bytesOf(*swizzled, "rowwise_data"));
  // Hand-computed placements (te-semantics.md §4.2):
  // (33, 5): tile (0*2 + 1) -> 512 + 1*16 + 1*4 + 1 = 533.
  // (200, 6): tile (1*2 + 1) -> 1536 + 8*16 + 2*4 + 2 = 1674.
  const auto &rowC = compact->find("rowwise_scale_inv")->bytes;
  const auto &rowS = swizzled->find("rowwise_scale_inv")->bytes;
  EXPECT_EQ(rowS[533], rowC[33 * 8 + 5]);
  EXPECT_EQ(rowS[1674], rowC[200 * 8 + 6]);
  for (int64_t r = 0; r < m; ++r)
    for (int64_t j = 0; j < 8; ++j)
      ASSERT_EQ(rowS[layout::gemmSwizzledScaleIndex(r, j, 2)], rowC[r * 8 + j]);
  // Columnwise: logical transpose first; S[mb][c] goes to index(c, mb, 2).
  const auto &colC = compact->find("columnwise_scale_inv")->bytes;
  const auto &colS = swizzled->find("columnwise_scale_inv")->bytes;
  EXPECT_EQ(colS[533], colC[5 * 256 + 33]);
  for (int64_t mb = 0; mb < 8; ++mb)
    for (int64_t c = 0; c < k; ++c)
      ASSERT_EQ(colS[layout::gemmSwizzledScaleIndex(c, mb, 2)],
                colC[mb * 256 + c]);
  // Both dequantize identically.
  EXPECT_EQ(*dequantize(*compact, layout::UsageColumnwise),
            *dequantize(*swizzled, layout::UsageColumnwise));
}

TEST(MXFP8, SwizzledPaddingIsZero) {
  // TE's padding test shape (96, 160): rowwise valid [96, 5] of [128, 8];
  // columnwise valid [3, 160] of [4, 256]. All ones -> every valid code 119.
  const int64_t m = 96, k = 160;
  auto q = quantizeMXFP8(Input::fromF32({m, k}, std::vector<float>(m * k, 1)),
                         makeDesc({m, k}, Format::MXFP8, layout::UsageBoth,
                                  Encoding::E4M3, ScaleLayout::GemmSwizzled),
                         sm100);
  ASSERT_TRUE(q.ok());
  for (const char *name : {"rowwise_scale_inv", "columnwise_scale_inv"}) {
    const Buffer &scales = *q->find(name);
    int64_t nonZero = 0;
    for (uint8_t byte : scales.bytes) {
      if (byte) {
        EXPECT_EQ(byte, 119);
        ++nonZero;
      }
    }
    EXPECT_EQ(nonZero,
              scales.desc.validShape[0] * scales.desc.validShape[1]);
  }
}

TEST(MXFP8, TwoDTiles) {
  // [64, 64]: tiles (0,0) amax 448 -> 127, (0,1) 1 -> 119, (1,0) 0 -> 0,
  // (1,1) 2 -> 120; replicated into every row's / column's entry.
  const int64_t n = 64;
  std::vector<float> values(n * n, 0.0f);
  for (int64_t r = 0; r < 32; ++r)
    for (int64_t c = 0; c < 64; ++c)
      values[r * n + c] = c < 32 ? 0.5f : -1.0f;
  values[5 * n + 7] = 448.0f;
  for (int64_t r = 32; r < 64; ++r)
    for (int64_t c = 32; c < 64; ++c)
      values[r * n + c] = (r == 40 && c == 50) ? 2.0f : 1.0f;
  MXFP8Options twoD;
  twoD.twoD = true;
  auto q = quantizeMXFP8(Input::fromF32({n, n}, values),
                         makeDesc({n, n}, Format::MXFP8), sm100, twoD);
  ASSERT_TRUE(q.ok());
  const uint8_t tile[2][2] = {{127, 119}, {0, 120}};
  const Buffer &rowScales = *q->find("rowwise_scale_inv");
  const Buffer &colScales = *q->find("columnwise_scale_inv");
  for (int64_t r = 0; r < n; ++r)
    for (int64_t kb = 0; kb < 2; ++kb)
      EXPECT_EQ(rowScales.bytes[r * rowScales.desc.shape[1] + kb],
                tile[r / 32][kb]);
  for (int64_t mb = 0; mb < 2; ++mb)
    for (int64_t c = 0; c < n; ++c)
      EXPECT_EQ(colScales.bytes[mb * colScales.desc.shape[1] + c],
                tile[mb][c / 32]);
  // Same scales in both directions -> same data bytes.
  EXPECT_EQ(bytesOf(*q, "rowwise_data"), bytesOf(*q, "columnwise_data"));
  // 1.0 in tile (1,1) with exponent 120 (2^-7 multiplier 2^7) -> 128 = 0x70.
  EXPECT_EQ(q->find("rowwise_data")->bytes[33 * n + 33], 0x70);
}

TEST(MXFP8, RoundTripTolerances) {
  for (bool twoD : {false, true}) {
    for (Encoding encoding : {Encoding::E4M3, Encoding::E5M2}) {
      std::vector<float> values = randomNormal(128 * 96, 3);
      Input x = Input::rounded(DType::BF16, {128, 96}, values);
      MXFP8Options options;
      options.twoD = twoD;
      auto q = quantizeMXFP8(x,
                             makeDesc({128, 96}, Format::MXFP8,
                                      layout::UsageBoth, encoding,
                                      ScaleLayout::GemmSwizzled),
                             sm100, options);
      ASSERT_TRUE(q.ok());
      for (layout::Usage usage :
           {layout::UsageRowwise, layout::UsageColumnwise}) {
        auto back = dequantize(*q, usage);
        ASSERT_TRUE(back.ok());
        expectRoundTrip(x.values, *back, encoding);
      }
    }
  }
}

//===----------------------------------------------------------------------===//
// NVFP4 (§5.5)
//===----------------------------------------------------------------------===//

/// The hand-computed [2, 32] tensor: global amax 6 -> S_enc = 2688/6 = 448.
std::vector<float> nvfp4HandValues() {
  std::vector<float> values = {
      // Block (0,0): amax 6 -> S_dec_b = 6 * (448 * (1/6)) -> 448 = 0x7E,
      // enc = 1 / (448 * (1/448)) = 1: the values themselves are rounded.
      0.0f, 0.5f, 1.0f, 1.5f, 2.0f, 3.0f, 4.0f, 6.0f, -6.0f, -0.25f, 0.75f,
      1.25f, 5.0f, 3.5f, 2.5f, -0.1f,
      // Block (0,1): amax 3 -> 224 = 0x76, enc = 2: x*2 is rounded.
      3.0f, -3.0f, 1.5f, 0.75f, 0.2f, 0.3f, -0.25f, 1.0f, 2.0f, 2.5f, -1.25f,
      0.0f, 0.1f, 0.6f, 1.4f, 2.9f};
  values.resize(64, 0.0f); // Row 1: zeros.
  return values;
}

TEST(NVFP4, HandComputedBlocks) {
  std::vector<float> values = nvfp4HandValues();
  auto q = quantizeNVFP4(Input::fromF32({2, 32}, values),
                         makeDesc({2, 32}, Format::NVFP4), sm100);
  ASSERT_TRUE(q.ok()) << q.message();
  expectLayout(*q);
  EXPECT_EQ(q->find("amax_rowwise")->f32(0), 6.0f);
  EXPECT_EQ(q->find("amax_columnwise")->f32(0), 6.0f);

  const Buffer &scales = *q->find("rowwise_scale_inv");
  ASSERT_EQ(scales.desc.shape, (Shape{128, 4}));
  EXPECT_EQ(scales.bytes[0], 0x7E);
  EXPECT_EQ(scales.bytes[1], 0x76);
  EXPECT_EQ(scales.bytes[4], 0x00); // Row 1: zero blocks.
  EXPECT_EQ(scales.bytes[5], 0x00);

  // Block 0 nibbles: 0 1 2 3 4 5 6 7 | F (-6) 8 (-0.25 -> -0) 2 (0.75 -> 1)
  // 2 (1.25 -> 1) 6 (5 -> 4) 6 (3.5 -> 4) 4 (2.5 -> 2) 8 (-0.1 -> -0).
  // Block 1, x*2 = 6 -6 3 1.5 0.4 0.6 -0.5 2 | 4 5 -2.5 0 0.2 1.2 2.8 5.8:
  // 7 F 5 3 1 1 9 4 | 6 6 C 0 0 2 5 7. Even column in the low nibble.
  const std::vector<uint8_t> expectedRow0 = {
      0x10, 0x32, 0x54, 0x76, 0x8F, 0x22, 0x66, 0x84,
      0xF7, 0x35, 0x11, 0x49, 0x66, 0x0C, 0x20, 0x75};
  const auto &data = q->find("rowwise_data")->bytes;
  ASSERT_EQ(data.size(), 32u);
  EXPECT_EQ(std::vector<uint8_t>(data.begin(), data.begin() + 16),
            expectedRow0);
  for (size_t i = 16; i < 32; ++i)
    EXPECT_EQ(data[i], 0);

  // Columnwise: x^T [32, 2], one ragged 2-element block per row.
  // Row 9 of x^T is [-0.25, 0]: S_dec_b = 0.25 * 74.67 = 18.67 -> E4M3 18
  // (0x59), enc = 1 / (18/448) = 24.9, -0.25 * 24.9 = -6.2 -> saturates
  // to -6 (0xF).
  const Buffer &colScales = *q->find("columnwise_scale_inv");
  ASSERT_EQ(colScales.desc.shape, (Shape{128, 4}));
  EXPECT_EQ(colScales.bytes[9 * 4], 0x59);
  EXPECT_EQ(colScales.bytes[7 * 4], 0x7E); // [6, 0].
  const Buffer &colData = *q->find("columnwise_data");
  ASSERT_EQ(colData.desc.shape, (Shape{32, 1}));
  EXPECT_EQ(colData.bytes[9], 0x0F);
  EXPECT_EQ(colData.bytes[7], 0x07);

  // Dequantize block 0: e2m1 * (448 * 6) * (1/2688).
  auto back = dequantize(*q, layout::UsageRowwise);
  ASSERT_TRUE(back.ok());
  const float unit = (448.0f * 6.0f) * static_cast<float>(1.0 / 2688.0);
  EXPECT_EQ((*back)[7], 6.0f * unit);
  EXPECT_EQ((*back)[9], -0.0f);
  const float half = (224.0f * 6.0f) * static_cast<float>(1.0 / 2688.0);
  EXPECT_EQ((*back)[16], 6.0f * half);
  EXPECT_FLOAT_EQ((*back)[16], 3.0f);
  auto backT = dequantize(*q, layout::UsageColumnwise);
  ASSERT_TRUE(backT.ok());
  EXPECT_EQ((*backT)[9],
            -6.0f * ((18.0f * 6.0f) * static_cast<float>(1.0 / 2688.0)));
}

TEST(NVFP4, SwizzledScales) {
  // Same tensor with GEMM-swizzled scales: S[r][b] at
  // gemmSwizzledScaleIndex(r, b, 1); (1, 1) -> 1*16 + 1 = 17.
  std::vector<float> values = nvfp4HandValues();
  values[32 + 17] = 3.0f; // Row 1, block 1 amax 3 -> 0x76.
  auto q = quantizeNVFP4(Input::fromF32({2, 32}, values),
                         makeDesc({2, 32}, Format::NVFP4, layout::UsageBoth,
                                  Encoding::E2M1x2, ScaleLayout::GemmSwizzled),
                         sm100);
  ASSERT_TRUE(q.ok());
  const auto &scales = q->find("rowwise_scale_inv")->bytes;
  EXPECT_EQ(scales[0], 0x7E);
  EXPECT_EQ(scales[1], 0x76);
  EXPECT_EQ(scales[17], 0x76);
  int nonZero = 0;
  for (uint8_t byte : scales)
    nonZero += byte != 0;
  EXPECT_EQ(nonZero, 3);
  // Columnwise row 9 -> (9 % 32) * 16 = 144.
  EXPECT_EQ(q->find("columnwise_scale_inv")->bytes[144], 0x59);
}

TEST(NVFP4, TwoDTiles) {
  // [32, 32] with 16x16 tiles: (0,0) amax 6 -> 0x7E, (0,1) 3 -> 0x76,
  // (1,0) 0 -> 0, (1,1) 1.5 -> 112 = 0x6E (enc 4).
  const int64_t n = 32;
  std::vector<float> values(n * n, 0.0f);
  for (int64_t r = 0; r < 16; ++r)
    for (int64_t c = 0; c < 32; ++c)
      values[r * n + c] = (c < 16 ? 1.0f : 0.5f) * ((r + c) % 2 ? 1 : -1);
  values[3 * n + 4] = 6.0f;
  values[2 * n + 20] = -3.0f;
  for (int64_t r = 16; r < 32; ++r)
    for (int64_t c = 16; c < 32; ++c)
      values[r * n + c] = (r == 20 && c == 30) ? 1.5f : 0.25f;
  NVFP4Options options;
  options.twoD = true;
  auto q = quantizeNVFP4(Input::fromF32({n, n}, values),
                         makeDesc({n, n}, Format::NVFP4), sm100, options);
  ASSERT_TRUE(q.ok()) << q.message();
  const uint8_t tile[2][2] = {{0x7E, 0x76}, {0x00, 0x6E}};
  const Buffer &rowScales = *q->find("rowwise_scale_inv");
  const Buffer &colScales = *q->find("columnwise_scale_inv");
  for (int64_t r = 0; r < n; ++r) {
    for (int64_t b = 0; b < 2; ++b) {
      EXPECT_EQ(rowScales.bytes[r * 4 + b], tile[r / 16][b]);
      EXPECT_EQ(colScales.bytes[r * 4 + b], tile[b][r / 16]);
    }
  }
  // Columnwise nibbles are the transpose of the rowwise ones.
  const Buffer &rowData = *q->find("rowwise_data");
  const Buffer &colData = *q->find("columnwise_data");
  for (int64_t r = 0; r < n; ++r)
    for (int64_t c = 0; c < n; ++c)
      ASSERT_EQ(colData.nibble(c * n + r), rowData.nibble(r * n + c));
  EXPECT_EQ(rowData.nibble(20 * n + 30), 0x7); // 1.5 * 4 = 6.
  EXPECT_EQ(rowData.nibble(20 * n + 31), 0x2); // 0.25 * 4 = 1.
}

TEST(NVFP4, GlobalAmaxZeroAndOverride) {
  auto q = quantizeNVFP4(Input::fromF32({16, 16}, std::vector<float>(256)),
                         makeDesc({16, 16}, Format::NVFP4), sm100);
  ASSERT_TRUE(q.ok());
  EXPECT_EQ(q->find("amax_rowwise")->f32(0), 0.0f);
  for (const Buffer &buffer : q->buffers)
    for (uint8_t byte : buffer.bytes)
      EXPECT_EQ(byte, 0);

  // An all-reduced global amax of 12 -> S_enc = 224: block amax 6 ->
  // 6 * (224/6) = 224 (0x76) -> enc = 1/(224/224) = 1.
  std::vector<float> values(32, 0.0f);
  values[0] = 6.0f;
  NVFP4Options options;
  options.amaxRowwise = 12.0f;
  q = quantizeNVFP4(Input::fromF32({2, 16}, values),
                    makeDesc({2, 16}, Format::NVFP4), sm100, options);
  ASSERT_TRUE(q.ok());
  EXPECT_EQ(q->find("amax_rowwise")->f32(0), 12.0f);
  EXPECT_EQ(q->find("amax_columnwise")->f32(0), 12.0f); // Copied.
  EXPECT_EQ(q->find("rowwise_scale_inv")->bytes[0], 0x76);
  EXPECT_EQ(q->find("rowwise_data")->bytes[0], 0x07);
}

TEST(NVFP4, RandomHadamardTransform) {
  // [16, 16] BF16: column 0 is e_0, column 1 has x[3][1] = 2, the rest 0.
  // x^T row 0 -> RHT = 0.25 everywhere; row 1 -> -0.5, 0.5, 0.5, -0.5, ...
  // amax_columnwise = 0.5 -> S_enc = 5376. Row 0: S_dec_b = 0.25 * 896 ->
  // 224 (0x76), enc = 24, 0.25 * 24 = 6 -> 7. Row 1: 448 (0x7E), enc 12,
  // +-6 -> 7 / F. Rowwise is untouched: amax 2, S_enc 1344; row 0 block
  // amax 1 -> 224 -> enc 6 -> 7; row 3 amax 2 -> 448 -> enc 3 -> 7.
  std::vector<float> values(256, 0.0f);
  values[0 * 16 + 0] = 1.0f;
  values[3 * 16 + 1] = 2.0f;
  Input x = Input::rounded(DType::BF16, {16, 16}, values);
  NVFP4Options options;
  options.rht = true;
  auto q = quantizeNVFP4(x, makeDesc({16, 16}, Format::NVFP4), sm100, options);
  ASSERT_TRUE(q.ok()) << q.message();
  EXPECT_EQ(q->find("amax_rowwise")->f32(0), 2.0f);
  EXPECT_EQ(q->find("amax_columnwise")->f32(0), 0.5f);
  const Buffer &colScales = *q->find("columnwise_scale_inv");
  EXPECT_EQ(colScales.bytes[0 * 4], 0x76);
  EXPECT_EQ(colScales.bytes[1 * 4], 0x7E);
  EXPECT_EQ(colScales.bytes[2 * 4], 0x00);
  const Buffer &colData = *q->find("columnwise_data");
  const uint8_t pattern[4] = {0xF, 0x7, 0x7, 0xF};
  for (int j = 0; j < 16; ++j) {
    EXPECT_EQ(colData.nibble(0 * 16 + j), 0x7) << j;
    EXPECT_EQ(colData.nibble(1 * 16 + j), pattern[j % 4]) << j;
    EXPECT_EQ(colData.nibble(2 * 16 + j), 0x0) << j;
  }
  const Buffer &rowScales = *q->find("rowwise_scale_inv");
  EXPECT_EQ(rowScales.bytes[0 * 4], 0x76);
  EXPECT_EQ(rowScales.bytes[3 * 4], 0x7E);
  const Buffer &rowData = *q->find("rowwise_data");
  EXPECT_EQ(rowData.nibble(0 * 16 + 0), 0x7);
  EXPECT_EQ(rowData.nibble(3 * 16 + 1), 0x7);

  // Dequantizing the columnwise copy gives RHT(x^T) transposed back; the
  // transposed matrix (M^-1 = M^T) undoes it.
  auto back = dequantize(*q, layout::UsageColumnwise);
  ASSERT_TRUE(back.ok());
  auto matrix = rhtMatrix();
  for (int64_t c = 0; c < 16; ++c) {
    for (int i = 0; i < 16; ++i) {
      float sum = 0.0f;
      for (int j = 0; j < 16; ++j)
        sum += (*back)[j * 16 + c] * matrix[i * 16 + j];
      EXPECT_NEAR(sum, x.values[i * 16 + c], 1e-5f) << i << "," << c;
    }
  }

  // RHT needs BF16 input, whole 16-row groups, and no 2D.
  EXPECT_FALSE(quantizeNVFP4(Input::fromF32({16, 16}, values),
                             makeDesc({16, 16}, Format::NVFP4), sm100, options)
                   .ok());
  EXPECT_FALSE(quantizeNVFP4(Input::rounded(DType::BF16, {8, 16},
                                            std::vector<float>(128)),
                             makeDesc({8, 16}, Format::NVFP4), sm100, options)
                   .ok());
  NVFP4Options rht2D = options;
  rht2D.twoD = true;
  EXPECT_FALSE(quantizeNVFP4(x, makeDesc({16, 16}, Format::NVFP4), sm100, rht2D)
                   .ok());
  // Rowwise-only usage ignores RHT.
  EXPECT_TRUE(quantizeNVFP4(Input::fromF32({8, 16}, std::vector<float>(128)),
                            makeDesc({8, 16}, Format::NVFP4,
                                     layout::UsageRowwise),
                            sm100, options)
                  .ok());
}

TEST(NVFP4, RHTAmaxIsOverBF16Values) {
  // x^T row [1, 2^-9, 0...] (BF16-exact) transforms to 1/4 +- 2^-11,
  // which round to 1/4 in BF16: the columnwise amax is exactly 0.25.
  std::vector<float> values(16 * 2, 0.0f);
  values[0 * 2 + 0] = 1.0f;
  values[1 * 2 + 0] = std::ldexp(1.0f, -9);
  NVFP4Options options;
  options.rht = true;
  auto q = quantizeNVFP4(Input::rounded(DType::BF16, {16, 2}, values),
                         makeDesc({16, 2}, Format::NVFP4), sm100, options);
  ASSERT_TRUE(q.ok()) << q.message();
  EXPECT_EQ(q->find("amax_columnwise")->f32(0), 0.25f);
}

TEST(NVFP4, StochasticRoundingMapping) {
  // Every nibble is floatToE2M1Stochastic(x * enc, philoxRandomWord(seed,
  // offset', index)), index row-major in the stored orientation, offset' =
  // offset (rowwise) or offset ^ 2^63 (columnwise).
  const int64_t m = 32, k = 48;
  std::vector<float> values = randomNormal(m * k, 5);
  Input x = Input::rounded(DType::BF16, {m, k}, values);
  NVFP4Options options;
  options.stochasticRounding = true;
  options.seed = 0x123456789ABCDEFull;
  options.offset = 77;
  auto q = quantizeNVFP4(x, makeDesc({m, k}, Format::NVFP4), sm100, options);
  ASSERT_TRUE(q.ok());
  const float amax = q->find("amax_rowwise")->f32(0);
  const float sEnc = nvfp4GlobalEncodeScale(amax);
  const Buffer &rowScales = *q->find("rowwise_scale_inv");
  const Buffer &rowData = *q->find("rowwise_data");
  const Buffer &colScales = *q->find("columnwise_scale_inv");
  const Buffer &colData = *q->find("columnwise_data");
  for (int64_t r = 0; r < m; ++r) {
    for (int64_t c = 0; c < k; ++c) {
      const float v = x.values[r * k + c];
      const float encRow =
          nvfp4BlockEncodeMultiplier(rowScales.bytes[r * 4 + c / 16], sEnc);
      ASSERT_EQ(rowData.nibble(r * k + c),
                floatToE2M1Stochastic(
                    v * encRow, philoxRandomWord(options.seed, 77, r * k + c)));
      const float encCol =
          nvfp4BlockEncodeMultiplier(colScales.bytes[c * 4 + r / 16], sEnc);
      ASSERT_EQ(colData.nibble(c * m + r),
                floatToE2M1Stochastic(
                    v * encCol, philoxRandomWord(options.seed,
                                                 77 ^ kColumnwiseStreamBit,
                                                 c * m + r)));
    }
  }
  // Deterministic; another offset changes the bits.
  auto again = quantizeNVFP4(x, makeDesc({m, k}, Format::NVFP4), sm100, options);
  EXPECT_EQ(bytesOf(*again, "rowwise_data"), bytesOf(*q, "rowwise_data"));
  options.offset = 78;
  auto other = quantizeNVFP4(x, makeDesc({m, k}, Format::NVFP4), sm100, options);
  EXPECT_NE(bytesOf(*other, "rowwise_data"), bytesOf(*q, "rowwise_data"));
}

TEST(NVFP4, StochasticRoundingStatistics) {
  // test_nvfp4_sr_quantize: SR picks an adjacent FP4 value, and averaging
  // SR over many draws has a smaller mean error than RN.
  const int64_t m = 128, k = 256;
  std::vector<float> values = randomNormal(m * k, 21);
  Input x = Input::rounded(DType::BF16, {m, k}, values);
  const TensorDesc desc = makeDesc({m, k}, Format::NVFP4, layout::UsageRowwise);
  auto rn = quantizeNVFP4(x, desc, sm100);
  ASSERT_TRUE(rn.ok());
  auto rnBack = dequantize(*rn, layout::UsageRowwise);
  const float sEnc = nvfp4GlobalEncodeScale(rn->find("amax_rowwise")->f32(0));
  const Buffer &scales = *rn->find("rowwise_scale_inv");

  const int draws = 32;
  std::vector<double> sum(m * k, 0.0);
  const float grid[] = {0.0f, 0.5f, 1.0f, 1.5f, 2.0f, 3.0f, 4.0f, 6.0f};
  for (int draw = 0; draw < draws; ++draw) {
    NVFP4Options options;
    options.stochasticRounding = true;
    options.seed = 2024;
    options.offset = static_cast<uint64_t>(draw);
    auto sr = quantizeNVFP4(x, desc, sm100, options);
    ASSERT_TRUE(sr.ok());
    // Same scales as RN (they do not depend on the rounding).
    EXPECT_EQ(bytesOf(*sr, "rowwise_scale_inv"), scales.bytes);
    const Buffer &data = *sr->find("rowwise_data");
    auto back = dequantize(*sr, layout::UsageRowwise);
    for (int64_t i = 0; i < m * k; ++i) {
      sum[i] += (*back)[i];
      // Adjacent: |q| is the grid point just below or just above |v|.
      const float v = std::fabs(
          x.values[i] *
          nvfp4BlockEncodeMultiplier(
              scales.bytes[(i / k) * scales.desc.shape[1] + (i % k) / 16],
              sEnc));
      const float q = std::fabs(e2m1ToFloat(data.nibble(i)));
      float below = 0.0f, above = 6.0f;
      for (float g : grid) {
        if (g <= v)
          below = g;
        if (g >= v && g < above)
          above = g;
      }
      ASSERT_TRUE(q == below || q == above || (v > 6.0f && q == 6.0f))
          << "element " << i << ": " << v << " -> " << q;
    }
  }
  double errorSR = 0.0, errorRN = 0.0;
  for (int64_t i = 0; i < m * k; ++i) {
    errorSR += std::fabs(sum[i] / draws - x.values[i]);
    errorRN += std::fabs((*rnBack)[i] - x.values[i]);
  }
  EXPECT_LT(errorSR, errorRN);
}

TEST(NVFP4, StreamsDifferBetweenCopies) {
  // A symmetric matrix has identical rowwise and columnwise codes under RN
  // but not under SR (independent streams).
  const int64_t n = 32;
  std::vector<float> values = randomNormal(n * n, 9);
  for (int64_t r = 0; r < n; ++r)
    for (int64_t c = 0; c < r; ++c)
      values[r * n + c] = values[c * n + r];
  Input x = Input::rounded(DType::BF16, {n, n}, values);
  auto rn = quantizeNVFP4(x, makeDesc({n, n}, Format::NVFP4), sm100);
  ASSERT_TRUE(rn.ok());
  EXPECT_EQ(bytesOf(*rn, "rowwise_data"), bytesOf(*rn, "columnwise_data"));
  NVFP4Options options;
  options.stochasticRounding = true;
  auto sr = quantizeNVFP4(x, makeDesc({n, n}, Format::NVFP4), sm100, options);
  ASSERT_TRUE(sr.ok());
  EXPECT_NE(bytesOf(*sr, "rowwise_data"), bytesOf(*sr, "columnwise_data"));
}

TEST(Dispatch, AllFormats) {
  std::vector<float> values = randomNormal(64 * 64, 1);
  Input x = Input::rounded(DType::BF16, {64, 64}, values);
  for (Format format : {Format::PerTensorFP8, Format::BlockFP8_1D,
                        Format::BlockFP8_2D, Format::MXFP8, Format::NVFP4}) {
    auto q = quantize(x, makeDesc({64, 64}, format), sm100);
    ASSERT_TRUE(q.ok()) << layout::stringifyFormat(format) << ": "
                        << q.message();
    expectLayout(*q);
    EXPECT_TRUE(dequantize(*q, layout::UsageRowwise).ok());
    EXPECT_TRUE(dequantize(*q, layout::UsageColumnwise).ok());
  }
}

} // namespace
