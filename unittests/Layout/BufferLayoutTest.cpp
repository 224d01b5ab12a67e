//===- BufferLayoutTest.cpp - Tests for TE's quantized storage layouts ----===//
//
// Every expected shape below is computed by hand from te-semantics.md §4
// (and §2 for non-TN FP8 GEMM support), not from the implementation.
//
//===----------------------------------------------------------------------===//

#include "teq/Layout/BufferLayout.h"

#include <gtest/gtest.h>

#include <cctype>
#include <set>
#include <utility>
#include <string>
#include <vector>

using namespace mlir::teq::layout;

namespace {

using Shape = std::vector<int64_t>;
using Idx = std::pair<int64_t, int64_t>;

const TargetCaps sm89 = TargetCaps::fromSM(89);
const TargetCaps sm90 = TargetCaps::fromSM(90);
const TargetCaps sm100 = TargetCaps::fromSM(100);
const TargetCaps sm120 = TargetCaps::fromSM(120);

TensorDesc makeTensor(Shape shape, Format format, unsigned usage = UsageBoth) {
  TensorDesc tensor;
  tensor.shape = std::move(shape);
  tensor.format = format;
  tensor.usage = usage;
  tensor.dataEncoding =
      format == Format::NVFP4 ? Encoding::E2M1x2 : Encoding::E4M3;
  return tensor;
}

/// What one buffer should look like.
struct Expected {
  std::string name;
  BufferRole role;
  unsigned usage;
  Shape shape;
  Shape validShape;
  Encoding encoding;
  bool transposed = false;
};

Expected data(std::string name, unsigned usage, Shape shape, Encoding encoding,
              bool transposed = false) {
  return {std::move(name), BufferRole::Data, usage, shape, shape, encoding,
          transposed};
}
Expected scale(std::string name, unsigned usage, Shape shape, Shape valid,
               Encoding encoding) {
  return {std::move(name), BufferRole::ScaleInv, usage, std::move(shape),
          std::move(valid), encoding, false};
}
Expected amax(std::string name, unsigned usage, Shape shape) {
  return {std::move(name), BufferRole::Amax, usage, shape, shape,
          Encoding::F32, false};
}

std::vector<std::string> names(const std::vector<BufferDesc> &buffers) {
  std::vector<std::string> result;
  for (const BufferDesc &buffer : buffers)
    result.push_back(buffer.name);
  return result;
}

void expectBuffers(const std::vector<BufferDesc> &actual,
                   const std::vector<Expected> &expected) {
  std::vector<std::string> expectedNames;
  for (const Expected &e : expected)
    expectedNames.push_back(e.name);
  ASSERT_EQ(names(actual), expectedNames);
  for (size_t i = 0; i < expected.size(); ++i) {
    SCOPED_TRACE("buffer " + expected[i].name);
    const BufferDesc &a = actual[i];
    const Expected &e = expected[i];
    EXPECT_EQ(a.role, e.role);
    EXPECT_EQ(static_cast<unsigned>(a.usage), e.usage);
    EXPECT_EQ(a.shape, e.shape);
    EXPECT_EQ(a.validShape, e.validShape);
    EXPECT_EQ(stringifyEncoding(a.encoding), std::string(stringifyEncoding(e.encoding)));
    EXPECT_EQ(a.transposed, e.transposed);
  }
}

bool sameBuffers(const std::vector<BufferDesc> &a,
                 const std::vector<BufferDesc> &b) {
  if (a.size() != b.size())
    return false;
  for (size_t i = 0; i < a.size(); ++i)
    if (a[i].name != b[i].name || a[i].role != b[i].role ||
        a[i].usage != b[i].usage || a[i].shape != b[i].shape ||
        a[i].validShape != b[i].validShape ||
        a[i].encoding != b[i].encoding || a[i].transposed != b[i].transposed ||
        a[i].scaleLayout != b[i].scaleLayout)
      return false;
  return true;
}

const BufferDesc &find(const std::vector<BufferDesc> &buffers,
                       const std::string &name) {
  for (const BufferDesc &buffer : buffers)
    if (buffer.name == name)
      return buffer;
  ADD_FAILURE() << "no buffer named " << name;
  static BufferDesc none;
  return none;
}

constexpr auto E4M3 = Encoding::E4M3;
constexpr auto E8M0 = Encoding::E8M0;
constexpr auto F32 = Encoding::F32;
constexpr auto FP4 = Encoding::E2M1x2;
constexpr unsigned R = UsageRowwise, C = UsageColumnwise, RC = UsageBoth;

//===----------------------------------------------------------------------===//
// Basics
//===----------------------------------------------------------------------===//

TEST(Flatten2D, Ranks) {
  Flat2D f = flatten2D({});
  EXPECT_EQ(f.m, 1);
  EXPECT_EQ(f.k, 1);
  f = flatten2D({64});
  EXPECT_EQ(f.m, 1);
  EXPECT_EQ(f.k, 64);
  f = flatten2D({303, 300});
  EXPECT_EQ(f.m, 303);
  EXPECT_EQ(f.k, 300);
  f = flatten2D({5, 4, 3, 160});
  EXPECT_EQ(f.m, 60);
  EXPECT_EQ(f.k, 160);
}

TEST(TargetCaps, NonTNFP8GemmSupport) {
  // §2: true iff SM in [100,120) or SM >= 130.
  EXPECT_FALSE(TargetCaps::fromSM(89).nonTNFP8GemmSupported());
  EXPECT_FALSE(TargetCaps::fromSM(90).nonTNFP8GemmSupported());
  EXPECT_FALSE(TargetCaps::fromSM(99).nonTNFP8GemmSupported());
  EXPECT_TRUE(TargetCaps::fromSM(100).nonTNFP8GemmSupported());
  EXPECT_TRUE(TargetCaps::fromSM(103).nonTNFP8GemmSupported());
  EXPECT_TRUE(TargetCaps::fromSM(110).nonTNFP8GemmSupported());
  EXPECT_TRUE(TargetCaps::fromSM(119).nonTNFP8GemmSupported());
  EXPECT_FALSE(TargetCaps::fromSM(120).nonTNFP8GemmSupported());
  EXPECT_FALSE(TargetCaps::fromSM(121).nonTNFP8GemmSupported());
  EXPECT_FALSE(TargetCaps::fromSM(129).nonTNFP8GemmSupported());
  EXPECT_TRUE(TargetCaps::fromSM(130).nonTNFP8GemmSupported());
  EXPECT_EQ(TargetCaps{}.sm, 90);
}

TEST(Stringify, Names) {
  EXPECT_STREQ(stringifyFormat(Format::PerTensorFP8), "per_tensor_fp8");
  EXPECT_STREQ(stringifyFormat(Format::BlockFP8_1D), "block_fp8_1d");
  EXPECT_STREQ(stringifyFormat(Format::BlockFP8_2D), "block_fp8_2d");
  EXPECT_STREQ(stringifyFormat(Format::MXFP8), "mxfp8");
  EXPECT_STREQ(stringifyFormat(Format::NVFP4), "nvfp4");
  EXPECT_STREQ(stringifyEncoding(Encoding::F32), "f32");
  EXPECT_STREQ(stringifyEncoding(Encoding::E4M3), "e4m3");
  EXPECT_STREQ(stringifyEncoding(Encoding::E5M2), "e5m2");
  EXPECT_STREQ(stringifyEncoding(Encoding::E8M0), "e8m0");
  EXPECT_STREQ(stringifyEncoding(Encoding::E2M1x2), "e2m1x2");
}

TEST(Encoding, StorageBytes) {
  EXPECT_EQ(storageBytes(Encoding::F32), 4);
  EXPECT_EQ(storageBytes(Encoding::E4M3), 1);
  EXPECT_EQ(storageBytes(Encoding::E5M2), 1);
  EXPECT_EQ(storageBytes(Encoding::E8M0), 1);
  EXPECT_EQ(storageBytes(Encoding::E2M1x2), 1);
}

TEST(BufferDesc, NumElementsSizeAndPadding) {
  BufferDesc b;
  b.shape = {384, 8};
  b.validShape = {300, 8};
  b.encoding = Encoding::E8M0;
  EXPECT_EQ(b.numElements(), 3072);
  EXPECT_EQ(b.sizeInBytes(), 3072);
  EXPECT_TRUE(b.padded());
  b.encoding = Encoding::F32;
  EXPECT_EQ(b.sizeInBytes(), 4 * 3072);
  b.validShape = b.shape;
  EXPECT_FALSE(b.padded());
  b.shape = b.validShape = {};
  EXPECT_EQ(b.numElements(), 1); // A scalar.
}

//===----------------------------------------------------------------------===//
// Per-tensor FP8 (§4.1)
//===----------------------------------------------------------------------===//

TEST(PerTensorFP8, HopperBothUsagesKeepsTranspose) {
  auto buffers = describeBuffers(makeTensor({128, 64}, Format::PerTensorFP8),
                                 sm90);
  expectBuffers(buffers, {data("data", R, {128, 64}, E4M3),
                          data("transpose", C, {64, 128}, E4M3, true),
                          scale("scale_inv", RC, {1}, {1}, F32)});
  for (const BufferDesc &b : buffers)
    EXPECT_FALSE(b.scaleLayout.has_value()) << b.name;
  // Ada behaves like Hopper.
  EXPECT_TRUE(sameBuffers(
      buffers,
      describeBuffers(makeTensor({128, 64}, Format::PerTensorFP8), sm89)));
}

TEST(PerTensorFP8, BlackwellBothUsagesOnlyData) {
  auto buffers = describeBuffers(makeTensor({128, 64}, Format::PerTensorFP8),
                                 sm100);
  // The data serves the columnwise usage too (flipped transpose flag).
  expectBuffers(buffers, {data("data", RC, {128, 64}, E4M3),
                          scale("scale_inv", RC, {1}, {1}, F32)});
  for (int sm : {103, 110, 130})
    EXPECT_TRUE(sameBuffers(
        buffers, describeBuffers(makeTensor({128, 64}, Format::PerTensorFP8),
                                 TargetCaps::fromSM(sm))))
        << "sm_" << sm;
}

TEST(PerTensorFP8, SM120BothUsagesKeepsTranspose) {
  expectBuffers(
      describeBuffers(makeTensor({128, 64}, Format::PerTensorFP8), sm120),
      {data("data", R, {128, 64}, E4M3),
       data("transpose", C, {64, 128}, E4M3, true),
       scale("scale_inv", RC, {1}, {1}, F32)});
}

TEST(PerTensorFP8, SingleUsage) {
  // Rowwise only: the data on every target.
  for (const TargetCaps &t : {sm90, sm100, sm120})
    expectBuffers(
        describeBuffers(makeTensor({32, 16}, Format::PerTensorFP8, R), t),
        {data("data", R, {32, 16}, E4M3), scale("scale_inv", R, {1}, {1}, F32)});
  // Columnwise only: a transpose without data on Hopper/SM12x, ...
  for (const TargetCaps &t : {sm90, sm120})
    expectBuffers(
        describeBuffers(makeTensor({32, 16}, Format::PerTensorFP8, C), t),
        {data("transpose", C, {16, 32}, E4M3, true),
         scale("scale_inv", C, {1}, {1}, F32)});
  // ... the untransposed data on Blackwell (with_data = rowwise || non-TN).
  expectBuffers(
      describeBuffers(makeTensor({32, 16}, Format::PerTensorFP8, C), sm100),
      {data("data", C, {32, 16}, E4M3), scale("scale_inv", C, {1}, {1}, F32)});
}

TEST(PerTensorFP8, E5M2AndSizes) {
  TensorDesc t = makeTensor({303, 300}, Format::PerTensorFP8);
  t.dataEncoding = Encoding::E5M2;
  auto buffers = describeBuffers(t, sm90);
  expectBuffers(buffers, {data("data", R, {303, 300}, Encoding::E5M2),
                          data("transpose", C, {300, 303}, Encoding::E5M2, true),
                          scale("scale_inv", RC, {1}, {1}, F32)});
  EXPECT_EQ(buffers[0].sizeInBytes(), 90900);
  EXPECT_EQ(buffers[1].sizeInBytes(), 90900);
  EXPECT_EQ(buffers[2].sizeInBytes(), 4);
}

TEST(PerTensorFP8, LowRanks) {
  // Rank 1 [K]: (shape[-1], *shape[:-1]) = [K].
  expectBuffers(describeBuffers(makeTensor({48}, Format::PerTensorFP8), sm90),
                {data("data", R, {48}, E4M3),
                 data("transpose", C, {48}, E4M3, true),
                 scale("scale_inv", RC, {1}, {1}, F32)});
  // Rank 0: a scalar is its own transpose.
  auto buffers = describeBuffers(makeTensor({}, Format::PerTensorFP8), sm90);
  expectBuffers(buffers, {data("data", R, {}, E4M3),
                          data("transpose", C, {}, E4M3, true),
                          scale("scale_inv", RC, {1}, {1}, F32)});
  EXPECT_EQ(buffers[0].sizeInBytes(), 1);
  EXPECT_FALSE(checkLayoutable(makeTensor({}, Format::PerTensorFP8)));
}

//===----------------------------------------------------------------------===//
// FP8 block scaling (§4.3)
//===----------------------------------------------------------------------===//

TEST(BlockFP8, OneDimensional) {
  // 256x384: rowwise scales [ceil(384/128)=3, roundup(256,4)=256],
  // columnwise [ceil(256/128)=2, roundup(384,4)=384].
  auto buffers =
      describeBuffers(makeTensor({256, 384}, Format::BlockFP8_1D), sm90);
  expectBuffers(buffers,
                {data("rowwise_data", R, {256, 384}, E4M3),
                 scale("rowwise_scale_inv", R, {3, 256}, {3, 256}, F32),
                 data("columnwise_data", C, {384, 256}, E4M3, true),
                 scale("columnwise_scale_inv", C, {2, 384}, {2, 384}, F32)});
  for (const BufferDesc &b : buffers)
    EXPECT_FALSE(b.scaleLayout.has_value()) << b.name;
  EXPECT_EQ(buffers[1].sizeInBytes(), 3 * 256 * 4);
}

TEST(BlockFP8, OneDimensionalPadsMToFour) {
  // M x K = 6 x 200: rowwise [ceil(200/128)=2, roundup(6,4)=8] valid [2,6];
  // columnwise [ceil(6/128)=1, roundup(200,4)=200].
  auto buffers = describeBuffers(
      makeTensor({6, 200}, Format::BlockFP8_1D, R), sm100);
  expectBuffers(buffers, {data("rowwise_data", R, {6, 200}, E4M3),
                          scale("rowwise_scale_inv", R, {2, 8}, {2, 6}, F32)});
  EXPECT_TRUE(buffers[1].padded());
  EXPECT_EQ(buffers[1].sizeInBytes(), 2 * 8 * 4);
  expectBuffers(
      describeBuffers(makeTensor({6, 202}, Format::BlockFP8_1D, C), sm100),
      {data("columnwise_data", C, {202, 6}, E4M3, true),
       scale("columnwise_scale_inv", C, {1, 204}, {1, 202}, F32)});
}

TEST(BlockFP8, TwoDimensional) {
  // 640 x 256: M blocks 5, K blocks 2. Rowwise [5, roundup(2,4)=4],
  // columnwise [2, roundup(5,4)=8].
  expectBuffers(
      describeBuffers(makeTensor({640, 256}, Format::BlockFP8_2D), sm90),
      {data("rowwise_data", R, {640, 256}, E4M3),
       scale("rowwise_scale_inv", R, {5, 4}, {5, 2}, F32),
       data("columnwise_data", C, {256, 640}, E4M3, true),
       scale("columnwise_scale_inv", C, {2, 8}, {2, 5}, F32)});
}

//===----------------------------------------------------------------------===//
// MXFP8 (§4.2)
//===----------------------------------------------------------------------===//

TEST(MXFP8, RaggedRows300x256) {
  // Rowwise scales [roundup(300,128)=384, roundup(256/32=8,4)=8], valid
  // [300, 8]; columnwise [roundup(ceil(300/32)=10,4)=12, 256], valid [10,256].
  auto buffers = describeBuffers(makeTensor({300, 256}, Format::MXFP8), sm100);
  expectBuffers(buffers,
                {data("rowwise_data", R, {300, 256}, E4M3),
                 scale("rowwise_scale_inv", R, {384, 8}, {300, 8}, E8M0),
                 data("columnwise_data", C, {300, 256}, E4M3),
                 scale("columnwise_scale_inv", C, {12, 256}, {10, 256}, E8M0)});
  EXPECT_EQ(buffers[1].sizeInBytes(), 384 * 8);
  EXPECT_EQ(buffers[3].sizeInBytes(), 12 * 256);
  EXPECT_TRUE(buffers[1].padded());
  EXPECT_FALSE(buffers[2].padded());
}

TEST(MXFP8, ScaleLayoutOnlyOnScales) {
  TensorDesc t = makeTensor({128, 128}, Format::MXFP8);
  auto compact = describeBuffers(t, sm100);
  ASSERT_EQ(compact.size(), 4u);
  EXPECT_FALSE(compact[0].scaleLayout.has_value());
  EXPECT_EQ(compact[1].scaleLayout, ScaleLayout::Compact);
  EXPECT_FALSE(compact[2].scaleLayout.has_value());
  EXPECT_EQ(compact[3].scaleLayout, ScaleLayout::Compact);

  t.scaleLayout = ScaleLayout::GemmSwizzled;
  auto swizzled = describeBuffers(t, sm100);
  ASSERT_EQ(swizzled.size(), 4u);
  EXPECT_FALSE(swizzled[0].scaleLayout.has_value());
  EXPECT_EQ(swizzled[1].scaleLayout, ScaleLayout::GemmSwizzled);
  EXPECT_FALSE(swizzled[2].scaleLayout.has_value());
  EXPECT_EQ(swizzled[3].scaleLayout, ScaleLayout::GemmSwizzled);
  // The shape is the same in both layouts.
  for (size_t i = 0; i < 4; ++i) {
    EXPECT_EQ(compact[i].shape, swizzled[i].shape);
    EXPECT_EQ(compact[i].validShape, swizzled[i].validShape);
  }
}

TEST(MXFP8, RankOne) {
  // [64]: M = 1. Rowwise scales [128, roundup(2,4)=4] valid [1,2];
  // columnwise [roundup(1,4)=4, 128] valid [1,64].
  expectBuffers(describeBuffers(makeTensor({64}, Format::MXFP8), sm100),
                {data("rowwise_data", R, {64}, E4M3),
                 scale("rowwise_scale_inv", R, {128, 4}, {1, 2}, E8M0),
                 data("columnwise_data", C, {64}, E4M3),
                 scale("columnwise_scale_inv", C, {4, 128}, {1, 64}, E8M0)});
}

//===----------------------------------------------------------------------===//
// NVFP4 (§4.4)
//===----------------------------------------------------------------------===//

TEST(NVFP4, Basic256x128) {
  // Rowwise data [256, 64]; columnwise [128, 128]. Rowwise scales
  // [256, roundup(128/16=8,4)=8]; columnwise [roundup(128,128)=128,
  // roundup(256/16=16,4)=16].
  TensorDesc t = makeTensor({256, 128}, Format::NVFP4);
  t.scaleLayout = ScaleLayout::GemmSwizzled;
  auto buffers = describeBuffers(t, sm100);
  expectBuffers(buffers,
                {data("rowwise_data", R, {256, 64}, FP4),
                 scale("rowwise_scale_inv", R, {256, 8}, {256, 8}, E4M3),
                 data("columnwise_data", C, {128, 128}, FP4, true),
                 scale("columnwise_scale_inv", C, {128, 16}, {128, 16}, E4M3),
                 amax("amax_rowwise", R, {1}),
                 amax("amax_columnwise", C, {1})});
  // E2M1x2 counts bytes: 256*128 FP4 values are 16384 bytes.
  EXPECT_EQ(buffers[0].numElements(), 256 * 64);
  EXPECT_EQ(buffers[0].sizeInBytes(), 256 * 128 / 2);
  EXPECT_EQ(buffers[2].sizeInBytes(), 256 * 128 / 2);
  EXPECT_EQ(buffers[1].scaleLayout, ScaleLayout::GemmSwizzled);
  EXPECT_EQ(buffers[3].scaleLayout, ScaleLayout::GemmSwizzled);
  EXPECT_FALSE(buffers[0].scaleLayout.has_value());
  EXPECT_FALSE(buffers[4].scaleLayout.has_value());
  EXPECT_EQ(buffers[4].sizeInBytes(), 4);
}

TEST(NVFP4, RaggedEven304x300) {
  // K = 300: ceil(300/16) = 19 -> 20; M = 304: ceil(304/16) = 19 -> 20.
  expectBuffers(
      describeBuffers(makeTensor({304, 300}, Format::NVFP4), sm100),
      {data("rowwise_data", R, {304, 150}, FP4),
       scale("rowwise_scale_inv", R, {384, 20}, {304, 19}, E4M3),
       data("columnwise_data", C, {300, 152}, FP4, true),
       scale("columnwise_scale_inv", C, {384, 20}, {300, 19}, E4M3),
       amax("amax_rowwise", R, {1}), amax("amax_columnwise", C, {1})});
}

TEST(NVFP4, RowScaledAmax) {
  TensorDesc t = makeTensor({2, 8, 64}, Format::NVFP4);
  t.rowScaledNVFP4 = true;
  ASSERT_FALSE(checkLayoutable(t));
  auto buffers = describeBuffers(t, sm100);
  const BufferDesc &rowAmax = find(buffers, "amax_rowwise");
  EXPECT_EQ(rowAmax.shape, Shape({16}));
  EXPECT_EQ(rowAmax.sizeInBytes(), 64);
  EXPECT_EQ(find(buffers, "amax_columnwise").shape, Shape({1}));
}

TEST(NVFP4, SingleUsage) {
  expectBuffers(
      describeBuffers(makeTensor({32, 32}, Format::NVFP4, R), sm100),
      {data("rowwise_data", R, {32, 16}, FP4),
       scale("rowwise_scale_inv", R, {128, 4}, {32, 2}, E4M3),
       amax("amax_rowwise", R, {1})});
  expectBuffers(
      describeBuffers(makeTensor({32, 32}, Format::NVFP4, C), sm100),
      {data("columnwise_data", C, {32, 16}, FP4, true),
       scale("columnwise_scale_inv", C, {128, 4}, {32, 2}, E4M3),
       amax("amax_columnwise", C, {1})});
}

//===----------------------------------------------------------------------===//
// A 3-D (here 4-D) shape: leading dims kept, flattened for the scales.
//===----------------------------------------------------------------------===//

TEST(HigherRank, FourDimensional) {
  const Shape shape{5, 4, 3, 160}; // M = 60, K = 160.
  expectBuffers(describeBuffers(makeTensor(shape, Format::PerTensorFP8), sm90),
                {data("data", R, shape, E4M3),
                 data("transpose", C, {160, 5, 4, 3}, E4M3, true),
                 scale("scale_inv", RC, {1}, {1}, F32)});
  // Block 1D: rowwise [ceil(160/128)=2, roundup(60,4)=60];
  // columnwise [ceil(60/128)=1, roundup(160,4)=160].
  expectBuffers(describeBuffers(makeTensor(shape, Format::BlockFP8_1D), sm90),
                {data("rowwise_data", R, shape, E4M3),
                 scale("rowwise_scale_inv", R, {2, 60}, {2, 60}, F32),
                 data("columnwise_data", C, {160, 5, 4, 3}, E4M3, true),
                 scale("columnwise_scale_inv", C, {1, 160}, {1, 160}, F32)});
  // Block 2D: rowwise [1, roundup(2,4)=4]; columnwise [2, roundup(1,4)=4].
  expectBuffers(describeBuffers(makeTensor(shape, Format::BlockFP8_2D), sm90),
                {data("rowwise_data", R, shape, E4M3),
                 scale("rowwise_scale_inv", R, {1, 4}, {1, 2}, F32),
                 data("columnwise_data", C, {160, 5, 4, 3}, E4M3, true),
                 scale("columnwise_scale_inv", C, {2, 4}, {2, 1}, F32)});
  // MXFP8: rowwise [128, roundup(5,4)=8] valid [60,5];
  // columnwise [roundup(ceil(60/32)=2,4)=4, roundup(160,128)=256] valid [2,160].
  expectBuffers(describeBuffers(makeTensor(shape, Format::MXFP8), sm100),
                {data("rowwise_data", R, shape, E4M3),
                 scale("rowwise_scale_inv", R, {128, 8}, {60, 5}, E8M0),
                 data("columnwise_data", C, shape, E4M3),
                 scale("columnwise_scale_inv", C, {4, 256}, {2, 160}, E8M0)});
  // NVFP4: rowwise data [5,4,3,80], columnwise [160, 30]; rowwise scales
  // [128, roundup(10,4)=12] valid [60,10]; columnwise
  // [256, roundup(ceil(60/16)=4,4)=4] valid [160,4].
  expectBuffers(describeBuffers(makeTensor(shape, Format::NVFP4), sm100),
                {data("rowwise_data", R, {5, 4, 3, 80}, FP4),
                 scale("rowwise_scale_inv", R, {128, 12}, {60, 10}, E4M3),
                 data("columnwise_data", C, {160, 30}, FP4, true),
                 scale("columnwise_scale_inv", C, {256, 4}, {160, 4}, E4M3),
                 amax("amax_rowwise", R, {1}), amax("amax_columnwise", C, {1})});
}

//===----------------------------------------------------------------------===//
// TE's ragged test shapes, every format, sm_90 and sm_100.
//===----------------------------------------------------------------------===//

struct RaggedCase {
  int64_t m, k;
  std::vector<Expected> block1D, block2D, mxfp8;
  std::string nvfp4Error;                 // UsageBoth.
  std::vector<Expected> nvfp4Rowwise;     // Empty: rowwise not layoutable.
  std::string nvfp4RowwiseError;
};

std::vector<RaggedCase> raggedCases() {
  return {
      {303, 300,
       // 1D: [ceil(300/128)=3, roundup(303,4)=304]; [ceil(303/128)=3, 300].
       {data("rowwise_data", R, {303, 300}, E4M3),
        scale("rowwise_scale_inv", R, {3, 304}, {3, 303}, F32),
        data("columnwise_data", C, {300, 303}, E4M3, true),
        scale("columnwise_scale_inv", C, {3, 300}, {3, 300}, F32)},
       // 2D: [3, roundup(3,4)=4]; [3, 4].
       {data("rowwise_data", R, {303, 300}, E4M3),
        scale("rowwise_scale_inv", R, {3, 4}, {3, 3}, F32),
        data("columnwise_data", C, {300, 303}, E4M3, true),
        scale("columnwise_scale_inv", C, {3, 4}, {3, 3}, F32)},
       // MXFP8: [384, roundup(10,4)=12] valid [303,10];
       // [roundup(10,4)=12, 384] valid [10,300].
       {data("rowwise_data", R, {303, 300}, E4M3),
        scale("rowwise_scale_inv", R, {384, 12}, {303, 10}, E8M0),
        data("columnwise_data", C, {303, 300}, E4M3),
        scale("columnwise_scale_inv", C, {12, 384}, {10, 300}, E8M0)},
       "NVFP4 packs two E2M1 values per byte: M = 303 must be even for "
       "columnwise usage",
       // Rowwise: [303,150]; scales [384, roundup(19,4)=20] valid [303,19].
       {data("rowwise_data", R, {303, 150}, FP4),
        scale("rowwise_scale_inv", R, {384, 20}, {303, 19}, E4M3),
        amax("amax_rowwise", R, {1})},
       ""},
      {1, 16,
       // 1D: [1, 4] valid [1,1]; [1, 16].
       {data("rowwise_data", R, {1, 16}, E4M3),
        scale("rowwise_scale_inv", R, {1, 4}, {1, 1}, F32),
        data("columnwise_data", C, {16, 1}, E4M3, true),
        scale("columnwise_scale_inv", C, {1, 16}, {1, 16}, F32)},
       // 2D: [1, 4] valid [1,1] both ways.
       {data("rowwise_data", R, {1, 16}, E4M3),
        scale("rowwise_scale_inv", R, {1, 4}, {1, 1}, F32),
        data("columnwise_data", C, {16, 1}, E4M3, true),
        scale("columnwise_scale_inv", C, {1, 4}, {1, 1}, F32)},
       // MXFP8: [128, 4] valid [1,1]; [4, 128] valid [1,16].
       {data("rowwise_data", R, {1, 16}, E4M3),
        scale("rowwise_scale_inv", R, {128, 4}, {1, 1}, E8M0),
        data("columnwise_data", C, {1, 16}, E4M3),
        scale("columnwise_scale_inv", C, {4, 128}, {1, 16}, E8M0)},
       "NVFP4 packs two E2M1 values per byte: M = 1 must be even for "
       "columnwise usage",
       // Rowwise: [1,8]; scales [128, 4] valid [1,1].
       {data("rowwise_data", R, {1, 8}, FP4),
        scale("rowwise_scale_inv", R, {128, 4}, {1, 1}, E4M3),
        amax("amax_rowwise", R, {1})},
       ""},
      {2333, 1,
       // 1D: [1, roundup(2333,4)=2336] valid [1,2333];
       // [ceil(2333/128)=19, roundup(1,4)=4] valid [19,1].
       {data("rowwise_data", R, {2333, 1}, E4M3),
        scale("rowwise_scale_inv", R, {1, 2336}, {1, 2333}, F32),
        data("columnwise_data", C, {1, 2333}, E4M3, true),
        scale("columnwise_scale_inv", C, {19, 4}, {19, 1}, F32)},
       // 2D: [19, 4] valid [19,1]; [1, roundup(19,4)=20] valid [1,19].
       {data("rowwise_data", R, {2333, 1}, E4M3),
        scale("rowwise_scale_inv", R, {19, 4}, {19, 1}, F32),
        data("columnwise_data", C, {1, 2333}, E4M3, true),
        scale("columnwise_scale_inv", C, {1, 20}, {1, 19}, F32)},
       // MXFP8: [roundup(2333,128)=2432, 4] valid [2333,1];
       // [roundup(ceil(2333/32)=73,4)=76, 128] valid [73,1].
       {data("rowwise_data", R, {2333, 1}, E4M3),
        scale("rowwise_scale_inv", R, {2432, 4}, {2333, 1}, E8M0),
        data("columnwise_data", C, {2333, 1}, E4M3),
        scale("columnwise_scale_inv", C, {76, 128}, {73, 1}, E8M0)},
       "NVFP4 packs two E2M1 values per byte: K = 1 must be even for "
       "rowwise usage",
       {},
       "NVFP4 packs two E2M1 values per byte: K = 1 must be even for "
       "rowwise usage"},
      {993, 512,
       // 1D: [4, roundup(993,4)=996] valid [4,993]; [ceil(993/128)=8, 512].
       {data("rowwise_data", R, {993, 512}, E4M3),
        scale("rowwise_scale_inv", R, {4, 996}, {4, 993}, F32),
        data("columnwise_data", C, {512, 993}, E4M3, true),
        scale("columnwise_scale_inv", C, {8, 512}, {8, 512}, F32)},
       // 2D: [8, roundup(4,4)=4] valid [8,4]; [4, roundup(8,4)=8] valid [4,8].
       {data("rowwise_data", R, {993, 512}, E4M3),
        scale("rowwise_scale_inv", R, {8, 4}, {8, 4}, F32),
        data("columnwise_data", C, {512, 993}, E4M3, true),
        scale("columnwise_scale_inv", C, {4, 8}, {4, 8}, F32)},
       // MXFP8: [1024, 16] valid [993,16];
       // [roundup(ceil(993/32)=32,4)=32, 512] valid [32,512].
       {data("rowwise_data", R, {993, 512}, E4M3),
        scale("rowwise_scale_inv", R, {1024, 16}, {993, 16}, E8M0),
        data("columnwise_data", C, {993, 512}, E4M3),
        scale("columnwise_scale_inv", C, {32, 512}, {32, 512}, E8M0)},
       "NVFP4 packs two E2M1 values per byte: M = 993 must be even for "
       "columnwise usage",
       // Rowwise: [993,256]; scales [1024, roundup(32,4)=32] valid [993,32].
       {data("rowwise_data", R, {993, 256}, FP4),
        scale("rowwise_scale_inv", R, {1024, 32}, {993, 32}, E4M3),
        amax("amax_rowwise", R, {1})},
       ""},
  };
}

class RaggedShapes : public ::testing::TestWithParam<int> {};

TEST_P(RaggedShapes, EveryFormatOnHopperAndBlackwell) {
  const RaggedCase c = raggedCases()[GetParam()];
  const Shape shape{c.m, c.k};
  SCOPED_TRACE(std::to_string(c.m) + "x" + std::to_string(c.k));

  for (const TargetCaps &target : {sm90, sm100}) {
    SCOPED_TRACE("sm_" + std::to_string(target.sm));
    const bool nonTN = target.nonTNFP8GemmSupported();

    // Per-tensor FP8: the only format whose layout depends on the target.
    TensorDesc perTensor = makeTensor(shape, Format::PerTensorFP8);
    EXPECT_FALSE(checkLayoutable(perTensor));
    if (nonTN)
      expectBuffers(describeBuffers(perTensor, target),
                    {data("data", RC, shape, E4M3),
                     scale("scale_inv", RC, {1}, {1}, F32)});
    else
      expectBuffers(describeBuffers(perTensor, target),
                    {data("data", R, shape, E4M3),
                     data("transpose", C, {c.k, c.m}, E4M3, true),
                     scale("scale_inv", RC, {1}, {1}, F32)});

    TensorDesc block1D = makeTensor(shape, Format::BlockFP8_1D);
    EXPECT_FALSE(checkLayoutable(block1D));
    expectBuffers(describeBuffers(block1D, target), c.block1D);

    TensorDesc block2D = makeTensor(shape, Format::BlockFP8_2D);
    EXPECT_FALSE(checkLayoutable(block2D));
    expectBuffers(describeBuffers(block2D, target), c.block2D);

    TensorDesc mxfp8 = makeTensor(shape, Format::MXFP8);
    EXPECT_FALSE(checkLayoutable(mxfp8));
    expectBuffers(describeBuffers(mxfp8, target), c.mxfp8);

    // Every ragged shape has an odd M or K: NVFP4 with both usages is out.
    TensorDesc nvfp4 = makeTensor(shape, Format::NVFP4);
    EXPECT_EQ(checkLayoutable(nvfp4).value_or("<layoutable>"), c.nvfp4Error);
    TensorDesc nvfp4Row = makeTensor(shape, Format::NVFP4, R);
    if (c.nvfp4Rowwise.empty()) {
      EXPECT_EQ(checkLayoutable(nvfp4Row).value_or("<layoutable>"),
                c.nvfp4RowwiseError);
    } else {
      EXPECT_FALSE(checkLayoutable(nvfp4Row));
      expectBuffers(describeBuffers(nvfp4Row, target), c.nvfp4Rowwise);
    }
  }
}

INSTANTIATE_TEST_SUITE_P(TE, RaggedShapes, ::testing::Range(0, 4));

TEST(RaggedSizes, SizesInBytes303x300) {
  auto block = describeBuffers(makeTensor({303, 300}, Format::BlockFP8_1D),
                               sm90);
  EXPECT_EQ(find(block, "rowwise_scale_inv").sizeInBytes(), 3 * 304 * 4);
  EXPECT_EQ(find(block, "columnwise_data").sizeInBytes(), 303 * 300);
  auto mx = describeBuffers(makeTensor({303, 300}, Format::MXFP8), sm100);
  EXPECT_EQ(find(mx, "rowwise_scale_inv").sizeInBytes(), 384 * 12);
  EXPECT_EQ(find(mx, "columnwise_scale_inv").sizeInBytes(), 12 * 384);
  auto fp4 = describeBuffers(makeTensor({303, 300}, Format::NVFP4, R), sm100);
  EXPECT_EQ(find(fp4, "rowwise_data").sizeInBytes(), 303 * 300 / 2);
  EXPECT_EQ(find(fp4, "rowwise_scale_inv").sizeInBytes(), 384 * 20);
}

TEST(RaggedSizes, NVFP4ColumnwiseOnlyOddM) {
  EXPECT_EQ(checkLayoutable(makeTensor({2333, 1}, Format::NVFP4, C))
                .value_or("<layoutable>"),
            "NVFP4 packs two E2M1 values per byte: M = 2333 must be even for "
            "columnwise usage");
  // 3-D: M = 3*5 = 15 is odd even though no single dimension names it.
  EXPECT_EQ(checkLayoutable(makeTensor({3, 5, 32}, Format::NVFP4))
                .value_or("<layoutable>"),
            "NVFP4 packs two E2M1 values per byte: M = 15 must be even for "
            "columnwise usage");
}

//===----------------------------------------------------------------------===//
// checkLayoutable diagnostics
//===----------------------------------------------------------------------===//

TEST(CheckLayoutable, Usage) {
  EXPECT_EQ(checkLayoutable(makeTensor({16, 16}, Format::MXFP8, UsageNone))
                .value_or("<layoutable>"),
            "a quantized tensor needs at least one usage (rowwise or "
            "columnwise)");
  EXPECT_EQ(checkLayoutable(makeTensor({16, 16}, Format::MXFP8, 5))
                .value_or("<layoutable>"),
            "usage 5 has bits other than rowwise (1) and columnwise (2)");
}

TEST(CheckLayoutable, Dimensions) {
  EXPECT_EQ(checkLayoutable(makeTensor({16, 0}, Format::PerTensorFP8))
                .value_or("<layoutable>"),
            "dimension 1 is 0; quantized tensors need positive dimensions");
  EXPECT_EQ(checkLayoutable(makeTensor({-3, 4, 16}, Format::BlockFP8_1D))
                .value_or("<layoutable>"),
            "dimension 0 is -3; quantized tensors need positive dimensions");
  EXPECT_EQ(
      checkLayoutable(makeTensor({int64_t(1) << 30, int64_t(1) << 30, 256},
                                 Format::MXFP8))
          .value_or("<layoutable>"),
      "the tensor has more than 2^56 elements");
}

TEST(CheckLayoutable, Encodings) {
  TensorDesc t = makeTensor({16, 16}, Format::NVFP4);
  t.dataEncoding = Encoding::E4M3;
  EXPECT_EQ(checkLayoutable(t).value_or("<layoutable>"),
            "nvfp4 data must be e2m1x2, not e4m3");
  t = makeTensor({16, 16}, Format::MXFP8);
  t.dataEncoding = Encoding::E2M1x2;
  EXPECT_EQ(checkLayoutable(t).value_or("<layoutable>"),
            "mxfp8 data must be e4m3 or e5m2, not e2m1x2");
  t = makeTensor({16, 16}, Format::PerTensorFP8);
  t.dataEncoding = Encoding::F32;
  EXPECT_EQ(checkLayoutable(t).value_or("<layoutable>"),
            "per_tensor_fp8 data must be e4m3 or e5m2, not f32");
  t = makeTensor({16, 16}, Format::BlockFP8_2D);
  t.dataEncoding = Encoding::E8M0;
  EXPECT_EQ(checkLayoutable(t).value_or("<layoutable>"),
            "block_fp8_2d data must be e4m3 or e5m2, not e8m0");
  t.dataEncoding = Encoding::E5M2;
  EXPECT_FALSE(checkLayoutable(t));
}

TEST(CheckLayoutable, RowScaledOnlyForNVFP4) {
  TensorDesc t = makeTensor({16, 16}, Format::MXFP8);
  t.rowScaledNVFP4 = true;
  EXPECT_EQ(checkLayoutable(t).value_or("<layoutable>"),
            "row-scaled amax is only available for nvfp4, not mxfp8");
}

TEST(CheckLayoutable, MessagesAreDiagnosticStyle) {
  std::vector<TensorDesc> bad = {
      makeTensor({16, 16}, Format::MXFP8, UsageNone),
      makeTensor({16, 0}, Format::MXFP8),
      makeTensor({3, 16}, Format::NVFP4),
      makeTensor({16, 3}, Format::NVFP4),
  };
  for (const TensorDesc &t : bad) {
    auto message = checkLayoutable(t);
    ASSERT_TRUE(message);
    ASSERT_FALSE(message->empty());
    EXPECT_NE(message->back(), '.') << *message;
    // Lowercase start, or an all-caps format name such as "NVFP4".
    EXPECT_TRUE(std::islower(static_cast<unsigned char>(message->front())) ||
                message->rfind("NVFP4 ", 0) == 0)
        << *message;
  }
}

//===----------------------------------------------------------------------===//
// GEMM scale swizzle (§4.2)
//===----------------------------------------------------------------------===//

TEST(GemmSwizzle, InTileInterleave) {
  // Invert the index over one 128x4 tile.
  std::vector<Idx> byteToScale(512, Idx(-1, -1));
  for (int64_t i = 0; i < 128; ++i)
    for (int64_t j = 0; j < 4; ++j) {
      int64_t byte = gemmSwizzledScaleIndex(i, j, /*numTilesX=*/1);
      ASSERT_GE(byte, 0);
      ASSERT_LT(byte, 512);
      byteToScale[byte] = {i, j};
    }
  // Bytes 0..3: row 0, columns 0..3; 4..7: row 32; 8..11: row 64;
  // 12..15: row 96; 16..19: row 1.
  for (int64_t j = 0; j < 4; ++j) {
    EXPECT_EQ(byteToScale[j], Idx(0, j));
    EXPECT_EQ(byteToScale[4 + j], Idx(32, j));
    EXPECT_EQ(byteToScale[8 + j], Idx(64, j));
    EXPECT_EQ(byteToScale[12 + j], Idx(96, j));
    EXPECT_EQ(byteToScale[16 + j], Idx(1, j));
  }
  // The row order 0,32,64,96,1,33,65,97,2,... (the MXFP8 doc's interleave).
  std::vector<int64_t> rows;
  for (int64_t group = 0; group < 128; ++group)
    rows.push_back(byteToScale[4 * group].first);
  const std::vector<int64_t> prefix{0, 32, 64, 96, 1, 33, 65, 97, 2, 34};
  EXPECT_EQ(std::vector<int64_t>(rows.begin(), rows.begin() + 10), prefix);
  EXPECT_EQ(rows.back(), 127);
  EXPECT_EQ(gemmSwizzledScaleIndex(31, 3, 1), 31 * 16 + 3);
  EXPECT_EQ(gemmSwizzledScaleIndex(127, 3, 1), 511);
}

TEST(GemmSwizzle, TileOrder) {
  // A 256x8 buffer: 2 tiles per 128-row band, bands one after another.
  EXPECT_EQ(gemmSwizzledScaleIndex(0, 4, 2), 512);
  EXPECT_EQ(gemmSwizzledScaleIndex(128, 0, 2), 1024);
  EXPECT_EQ(gemmSwizzledScaleIndex(128, 4, 2), 1536);
  EXPECT_EQ(gemmSwizzledScaleIndex(129, 5, 2), 1536 + 16 + 1);
}

TEST(GemmSwizzle, BijectionOverPadded256x8) {
  std::set<int64_t> seen;
  for (int64_t i = 0; i < 256; ++i)
    for (int64_t j = 0; j < 8; ++j) {
      int64_t byte = gemmSwizzledScaleIndex(i, j, /*numTilesX=*/8 / 4);
      EXPECT_GE(byte, 0);
      EXPECT_LT(byte, 256 * 8);
      seen.insert(byte);
    }
  EXPECT_EQ(seen.size(), size_t(256 * 8));
}

TEST(GemmSwizzle, MatchesTensorForm) {
  // mxfp8_utils.py: view [R/128, 4, 32, C/4, 4], permute (0,3,2,1,4).
  const int64_t rows = 384, cols = 12, tilesX = cols / 4;
  for (int64_t i = 0; i < rows; ++i)
    for (int64_t j = 0; j < cols; ++j) {
      int64_t a = i / 128, b = (i % 128) / 32, c = i % 32;
      int64_t d = j / 4, e = j % 4;
      int64_t permuted = (((a * tilesX + d) * 32 + c) * 4 + b) * 4 + e;
      ASSERT_EQ(gemmSwizzledScaleIndex(i, j, tilesX), permuted)
          << "(" << i << ", " << j << ")";
    }
}

} // namespace
