//===- CheckTest.cpp - te-run --check across ranks ------------------------===//
//
// te-run's checker (tools/te-run/Check.h) on the CPU: the values a
// collective computes are recomputed from every rank's buffers (gathered,
// summed), a quantize with an amax group uses the max of every rank's amax,
// and without the other ranks' buffers those values are reported as not
// checkable. No GPU: the "GPU" outputs are what a correct run writes.
//
//===----------------------------------------------------------------------===//

#include "Check.h"

#include "teq/Artifact/Manifest.h"
#include "teq/Layout/BufferLayout.h"
#include "teq/Reference/Numerics.h"

#include <gtest/gtest.h>

#include <cstring>

using namespace mlir::teq;
using namespace mlir::teq::terun;

namespace {

constexpr int64_t kRows = 32, kCols = 64; // one rank's shard of x

artifact::ArgSpec tensor(const std::string &name, artifact::ArgKind kind,
                         std::vector<int64_t> shape) {
  artifact::ArgSpec arg;
  arg.name = name;
  arg.kind = kind;
  arg.tensor.dtype = "bf16";
  arg.tensor.shape = std::move(shape);
  return arg;
}

artifact::ArgSpec fp8(const std::string &name, artifact::ArgKind kind,
                      std::vector<int64_t> shape) {
  artifact::ArgSpec arg;
  arg.name = name;
  arg.kind = kind;
  arg.isProto = true;
  arg.proto.dtype = "bf16";
  arg.proto.shape = std::move(shape);
  arg.proto.quantizer = artifact::QuantizerDesc::defaultFor(
      artifact::QuantizerKind::Float8CurrentScaling);
  arg.proto.quantizer.withAmaxReduction = true;
  arg.proto.usage = "rowwise";
  arg.proto.scaleLayout = "compact";
  arg.proto.text = "!teq.proto<...>";
  for (const layout::BufferDesc &desc : layout::describeBuffers(
           arg.proto.tensorDesc(), layout::TargetCaps::fromSM(90)))
    arg.buffers.push_back(artifact::BufferSpec::fromLayout(desc));
  return arg;
}

artifact::ComputedBy by(artifact::ComputeOp op, const std::string &input) {
  artifact::ComputedBy c;
  c.op = op;
  c.input = input;
  c.group = 0;
  return c;
}

/// An SP entry over a "tp" group of 2: x's shard quantized with its amax
/// reduced and all-gathered in FP8 (and the transposed copy derived from
/// the gathered data), x reduce-scattered and all-reduced.
Manifest manifest() {
  artifact::Manifest m;
  m.target.sm = 90;
  m.target.name = "sm_90";
  artifact::EntrySpec e;
  e.name = "sp";
  e.symbol = "teq_entry_sp";
  e.groups.push_back({"tp", 2});
  e.args.push_back(tensor("x", artifact::ArgKind::Input, {kRows, kCols}));
  artifact::ArgSpec full =
      fp8("full", artifact::ArgKind::Output, {2 * kRows, kCols});
  full.computedBy = by(artifact::ComputeOp::AllGather, "t0");
  e.args.push_back(full);
  artifact::ArgSpec part =
      tensor("part", artifact::ArgKind::Output, {kRows / 2, kCols});
  part.computedBy = by(artifact::ComputeOp::ReduceScatter, "x");
  e.args.push_back(part);
  artifact::ArgSpec sum =
      tensor("sum", artifact::ArgKind::Output, {kRows, kCols});
  sum.computedBy = by(artifact::ComputeOp::AllReduce, "x");
  e.args.push_back(sum);
  // The gathered tensor's transposed copy, derived from its data (TE on
  // Hopper after an all-gather).
  artifact::ArgSpec both =
      fp8("both", artifact::ArgKind::Output, {2 * kRows, kCols});
  both.proto.usage = "rowwise|columnwise";
  both.buffers.clear();
  for (const layout::BufferDesc &desc : layout::describeBuffers(
           both.proto.tensorDesc(), layout::TargetCaps::fromSM(90)))
    both.buffers.push_back(artifact::BufferSpec::fromLayout(desc));
  both.computedBy = by(artifact::ComputeOp::UpdateUsage, "full");
  both.computedBy->group = -1;
  e.args.push_back(both);
  artifact::ArgSpec shard =
      fp8("t0", artifact::ArgKind::Temporary, {kRows, kCols});
  shard.computedBy = by(artifact::ComputeOp::Quantize, "x");
  e.temporaries.push_back(shard);
  for (const artifact::BufferSpec &b : shard.buffers)
    e.workspaceBytes += (b.bytes + 255) / 256 * 256;
  m.entries.push_back(e);
  auto read = artifact::parseManifest(artifact::writeManifest(m));
  EXPECT_TRUE(read.ok()) << read.message();
  return read.ok() ? *read : Manifest();
}

std::vector<uint8_t> bf16Bytes(const std::vector<float> &values) {
  std::vector<uint8_t> bytes(values.size() * 2);
  for (size_t i = 0; i < values.size(); ++i) {
    uint16_t bits = reference::floatToBF16(values[i]);
    std::memcpy(&bytes[2 * i], &bits, 2);
  }
  return bytes;
}

/// Rank r's x: bf16 values, rank 1's with the larger amax.
std::vector<float> shardOf(int rank) {
  std::vector<float> x(kRows * kCols);
  for (size_t i = 0; i < x.size(); ++i)
    x[i] = reference::bf16ToFloat(reference::floatToBF16(
        static_cast<float>((i * 37 + 11 * rank) % 101) / 13.0f - 3.5f));
  if (rank == 1)
    x[77] = 40.0f;
  return x;
}

/// What a correct two-rank run leaves in every rank's buffers.
struct TwoRanks {
  Manifest m = manifest();
  std::vector<HostBuffers> before, after;

  TwoRanks() {
    const EntrySpec &e = m.entries[0];
    std::vector<float> x0 = shardOf(0), x1 = shardOf(1), whole = x0;
    whole.insert(whole.end(), x1.begin(), x1.end());
    // The gathered FP8: the full tensor quantized on one GPU.
    auto full = quantizeWithReference(m, e.args[1], whole);
    EXPECT_TRUE(full.ok()) << full.message();
    auto fullBoth = quantizeWithReference(m, e.args[4], whole);
    EXPECT_TRUE(fullBoth.ok()) << fullBoth.message();
    std::vector<float> sum(x0.size());
    for (size_t i = 0; i < sum.size(); ++i)
      sum[i] = x0[i] + x1[i];
    for (int r = 0; r < 2; ++r) {
      HostBuffers in(e.numBuffers()), out(e.numBuffers());
      in[flatIndex(e, 0, 0)] = out[flatIndex(e, 0, 0)] = bf16Bytes(shardOf(r));
      for (size_t b = 0; b < e.args[1].buffers.size(); ++b)
        out[flatIndex(e, 1, b)] = (*full)[b];
      std::vector<float> half(sum.begin() + r * sum.size() / 2,
                              sum.begin() + (r + 1) * sum.size() / 2);
      out[flatIndex(e, 2, 0)] = bf16Bytes(half);
      out[flatIndex(e, 3, 0)] = bf16Bytes(sum);
      for (size_t b = 0; b < e.args[4].buffers.size(); ++b)
        out[flatIndex(e, 4, b)] = (*fullBoth)[b];
      before.push_back(std::move(in));
      after.push_back(std::move(out));
    }
  }

  CheckReport check(int rank) const {
    std::vector<RankBuffers> ranks = {{&before[0], &after[0]},
                                      {&before[1], &after[1]}};
    return checkOutputs(m, m.entries[0], before[rank], after[rank], ranks,
                        rank);
  }

  std::string describe(const CheckReport &report) const {
    std::string text;
    for (const BufferCheck &c : report.buffers)
      text += c.arg + "." + c.buffer + ": " + c.message + "\n";
    for (const std::string &e : report.errors)
      text += e + "\n";
    return text;
  }
};

TEST(CheckTest, CollectivesAreRecomputedFromEveryRank) {
  TwoRanks run;
  for (int rank = 0; rank < 2; ++rank) {
    CheckReport report = run.check(rank);
    EXPECT_TRUE(report.passed) << "rank " << rank << "\n"
                               << run.describe(report);
    // full.data, full.scale_inv (bit for bit), part, sum, both.data,
    // both.transpose, both.scale_inv (bit for bit).
    EXPECT_EQ(report.buffers.size(), 7u) << run.describe(report);
  }
}

TEST(CheckTest, WithoutTheOtherRanksCollectivesAreNotCheckable) {
  TwoRanks run;
  const EntrySpec &e = run.m.entries[0];
  CheckReport report = checkOutputs(run.m, e, run.before[0], run.after[0]);
  EXPECT_FALSE(report.passed);
  // full, part and sum; `both` is derived from what the GPU wrote into
  // `full` (an output) and checks.
  ASSERT_EQ(report.errors.size(), 3u) << run.describe(report);
  EXPECT_NE(report.errors[0].find("check not available"), std::string::npos)
      << report.errors[0];
  EXPECT_NE(report.errors[0].find(
                "over group 'tp': it needs every rank's values (te-run "
                "--nranks)"),
            std::string::npos)
      << report.errors[0];
}

TEST(CheckTest, AnAmaxNotReducedOverTheGroupFails) {
  // Rank 0 scaled by its own amax (no all-reduce): its FP8 half of the
  // gathered data and its scale differ from the one-GPU quantization.
  TwoRanks run;
  const EntrySpec &e = run.m.entries[0];
  auto own = quantizeWithReference(run.m, e.temporaries[0], shardOf(0));
  ASSERT_TRUE(own.ok()) << own.message();
  std::vector<uint8_t> &data = run.after[0][flatIndex(e, 1, 0)];
  std::copy((*own)[0].begin(), (*own)[0].end(), data.begin());
  run.after[0][flatIndex(e, 1, 1)] = (*own)[1];
  CheckReport report = run.check(0);
  EXPECT_FALSE(report.passed);
  ASSERT_GE(report.buffers.size(), 2u);
  EXPECT_FALSE(report.buffers[0].ok) << run.describe(report);
  EXPECT_FALSE(report.buffers[1].ok) << run.describe(report);
  EXPECT_TRUE(run.check(1).passed);
}

TEST(CheckTest, ReducedSumsCompareWithinOneUlp) {
  TwoRanks run;
  const EntrySpec &e = run.m.entries[0];
  // One bf16 ulp on every element passes (NCCL's order and precision are
  // its own); a missing rank's contribution does not.
  std::vector<uint8_t> &sum = run.after[1][flatIndex(e, 3, 0)];
  for (size_t i = 0; i < sum.size(); i += 2) {
    uint16_t bits;
    std::memcpy(&bits, &sum[i], 2);
    if ((bits & 0x7fff) != 0 && (i / 2) % 3 == 0)
      ++bits;
    std::memcpy(&sum[i], &bits, 2);
  }
  EXPECT_TRUE(run.check(1).passed) << run.describe(run.check(1));
  std::vector<float> own = shardOf(1);
  run.after[1][flatIndex(e, 2, 0)] =
      bf16Bytes(std::vector<float>(own.begin() + kRows * kCols / 2, own.end()));
  CheckReport report = run.check(1);
  EXPECT_FALSE(report.passed);
  EXPECT_FALSE(report.buffers[2].ok) << run.describe(report);
}

} // namespace
