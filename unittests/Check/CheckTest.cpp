//===- CheckTest.cpp - The checker of te-run --check, across ranks --------===//
//
// The checker (teq/Check/Check.h, TEQCheck) on the CPU: the values a
// collective computes are recomputed from every rank's buffers (gathered,
// summed), a quantize with an amax group uses the max of every rank's amax,
// and without the other ranks' buffers those values are reported as not
// checkable. No GPU: the "GPU" outputs are what a correct run writes.
//
//===----------------------------------------------------------------------===//

#include "teq/Check/Check.h"
#include "teq/Check/Inputs.h"

#include "teq/Artifact/Manifest.h"
#include "teq/Layout/BufferLayout.h"
#include "teq/Reference/Numerics.h"
#include "teq/Reference/Quantize.h"

#include <gtest/gtest.h>

#include <cstring>

using namespace mlir::teq;
using namespace mlir::teq::check;

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

/// The update step of delayed scaling with its amaxes reduced over a group
/// of any size (size 0): 2 slots, a history of 4.
struct ReducedUpdate {
  static constexpr int64_t kSlots = 2, kLength = 4;
  Manifest m;
  std::vector<HostBuffers> before, after;

  static std::vector<float> historyOf(int rank) {
    // Row 0 is what the rank recorded: slot 0's max is rank 1's, slot 1's
    // rank 0's; rows 1-3 (the same on every rank) hold earlier amaxes.
    std::vector<float> h = {rank ? 7.0f : 3.0f, rank ? 0.25f : 0.5f,
                            2.0f, 1.0f, 4.0f, 0.0f, 1.0f, 0.125f};
    return h;
  }
  static std::vector<uint8_t> f32Bytes(const std::vector<float> &values) {
    std::vector<uint8_t> bytes(values.size() * 4);
    std::memcpy(bytes.data(), values.data(), bytes.size());
    return bytes;
  }

  /// The new scales (or history) given row 0 = `row0` on every slot.
  static std::vector<float> updated(const std::vector<float> &row0,
                                    bool scale) {
    std::vector<float> h = historyOf(0), scales = {1.0f, 1.0f};
    h[0] = row0[0];
    h[1] = row0[1];
    for (int64_t slot = 0; slot < kSlots; ++slot) {
      reference::DelayedScalingState state;
      state.scale = scales[slot];
      for (int64_t l = 0; l < kLength; ++l)
        state.amaxHistory.push_back(h[l * kSlots + slot]);
      reference::updateDelayedScaling(state, 448.0f, 0,
                                      reference::AmaxComputeAlgo::Max);
      scales[slot] = state.scale;
      for (int64_t l = 0; l < kLength; ++l)
        h[l * kSlots + slot] = state.amaxHistory[l];
    }
    return scale ? scales : h;
  }

  ReducedUpdate() {
    m.target.sm = 90;
    m.target.name = "sm_90";
    artifact::EntrySpec e;
    e.name = "update";
    e.symbol = "teq_entry_update";
    e.groups.push_back({"world", 0});
    auto f32 = [](const std::string &name, artifact::ArgKind kind,
                  std::vector<int64_t> shape) {
      artifact::ArgSpec arg = tensor(name, kind, std::move(shape));
      arg.tensor.dtype = "f32";
      return arg;
    };
    e.args.push_back(f32("scale", artifact::ArgKind::Input, {kSlots}));
    e.args.push_back(
        f32("history", artifact::ArgKind::Input, {kLength, kSlots}));
    for (bool outputsScale : {true, false}) {
      artifact::ArgSpec out =
          outputsScale ? f32("new_scale", artifact::ArgKind::Output, {kSlots})
                       : f32("new_history", artifact::ArgKind::Output,
                             {kLength, kSlots});
      artifact::ComputedBy c;
      c.op = artifact::ComputeOp::DelayedScalingUpdate;
      c.outputsScale = outputsScale;
      c.scale = "scale";
      c.amaxHistory = "history";
      c.fp8Max = 448.0;
      c.group = 0;
      out.computedBy = c;
      e.args.push_back(out);
    }
    m.entries.push_back(e);
    auto read = artifact::parseManifest(artifact::writeManifest(m));
    EXPECT_TRUE(read.ok()) << read.message();
    if (read.ok())
      m = *read;
    const std::vector<float> reduced = {7.0f, 0.5f};
    for (int r = 0; r < 2; ++r) {
      HostBuffers in(m.entries[0].numBuffers());
      in[0] = f32Bytes({1.0f, 1.0f});
      in[1] = f32Bytes(historyOf(r));
      HostBuffers out = in;
      out[2] = f32Bytes(updated(reduced, true));
      out[3] = f32Bytes(updated(reduced, false));
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
};

TEST(CheckTest, DelayedScalingUpdateReducesRowZeroOverTheGroup) {
  ReducedUpdate run;
  for (int rank = 0; rank < 2; ++rank) {
    CheckReport report = run.check(rank);
    EXPECT_TRUE(report.passed) << "rank " << rank;
    EXPECT_EQ(report.buffers.size(), 2u);
  }
  // A rank that updated from its own amaxes (no all-reduce) fails, scales
  // and history both.
  run.after[0][2] = ReducedUpdate::f32Bytes(
      ReducedUpdate::updated(ReducedUpdate::historyOf(0), true));
  run.after[0][3] = ReducedUpdate::f32Bytes(
      ReducedUpdate::updated(ReducedUpdate::historyOf(0), false));
  CheckReport report = run.check(0);
  EXPECT_FALSE(report.passed);
  ASSERT_EQ(report.buffers.size(), 2u);
  EXPECT_FALSE(report.buffers[0].ok);
  EXPECT_FALSE(report.buffers[1].ok);
  // Any number of ranks may run a group of size 0.
  EXPECT_TRUE(run.check(1).passed);
}

} // namespace

/// te-run's check of teq.dequantize (computed_by "dequantize"): the GPU's
/// bf16 values must be each FP8 code times scale_inv, rounded once, bit for
/// bit (Kernels/Dequantize.h); one element one ulp off fails.
TEST(CheckTest, DequantizeIsRecomputedBitForBit) {
  artifact::Manifest m;
  m.target.sm = 90;
  m.target.name = "sm_90";
  artifact::EntrySpec e;
  e.name = "dq";
  e.symbol = "teq_entry_dq";
  artifact::ArgSpec q = fp8("q", artifact::ArgKind::Input, {kRows, kCols});
  q.proto.quantizer.withAmaxReduction = false;
  e.args.push_back(q);
  artifact::ArgSpec y = tensor("y", artifact::ArgKind::Output, {kRows, kCols});
  y.computedBy = by(artifact::ComputeOp::Dequantize, "q");
  y.computedBy->group = -1;
  e.args.push_back(y);
  m.entries.push_back(e);
  auto read = artifact::parseManifest(artifact::writeManifest(m));
  ASSERT_TRUE(read.ok()) << read.message();
  const Manifest &manifest = *read;
  const EntrySpec &entry = manifest.entries[0];

  // Every FP8 code (NaN codes aside), scale_inv 0.37.
  HostBuffers in(entry.numBuffers()), out(entry.numBuffers());
  std::vector<uint8_t> codes(kRows * kCols);
  for (size_t i = 0; i < codes.size(); ++i) {
    codes[i] = static_cast<uint8_t>(i % 256);
    if ((codes[i] & 0x7f) == 0x7f)
      codes[i] = 0x7e; // E4M3's NaN codes
  }
  const float scaleInv = 0.37f;
  std::vector<uint8_t> scale(4);
  std::memcpy(scale.data(), &scaleInv, 4);
  in[flatIndex(entry, 0, 0)] = out[flatIndex(entry, 0, 0)] = codes;
  in[flatIndex(entry, 0, 1)] = out[flatIndex(entry, 0, 1)] = scale;
  std::vector<float> values(codes.size());
  for (size_t i = 0; i < codes.size(); ++i)
    values[i] = reference::fp8ToFloat(reference::FP8Type::E4M3, codes[i]) *
                scaleInv;
  out[flatIndex(entry, 1, 0)] = bf16Bytes(values);
  CheckReport report = checkOutputs(manifest, entry, in, out);
  EXPECT_TRUE(report.passed) << (report.buffers.empty()
                                     ? std::string("no buffer checked")
                                     : report.buffers[0].message);
  ASSERT_EQ(report.buffers.size(), 1u);

  out[flatIndex(entry, 1, 0)][2 * 100] ^= 1; // one ulp
  report = checkOutputs(manifest, entry, in, out);
  EXPECT_FALSE(report.passed);
}

TEST(CheckTest, AliasOutputsAreNotedAndTakeNoBuffers) {
  // dq(q) -> (saved_q = q itself, y = dequantize(q)): the alias sits
  // between q and y and has no buffers, so y is flat buffer 2.
  artifact::Manifest m;
  m.target.sm = 90;
  m.target.name = "sm_90";
  artifact::EntrySpec e;
  e.name = "dq";
  e.symbol = "teq_entry_dq";
  artifact::ArgSpec q = fp8("q", artifact::ArgKind::Input, {kRows, kCols});
  q.proto.quantizer.withAmaxReduction = false;
  e.args.push_back(q);
  artifact::ArgSpec saved = q;
  saved.name = "saved_q";
  saved.kind = artifact::ArgKind::Output;
  saved.aliasOf = "q";
  saved.buffers.clear();
  e.args.push_back(saved);
  artifact::ArgSpec y = tensor("y", artifact::ArgKind::Output, {kRows, kCols});
  y.computedBy = by(artifact::ComputeOp::Dequantize, "q");
  y.computedBy->group = -1;
  e.args.push_back(y);
  m.entries.push_back(e);
  auto read = artifact::parseManifest(artifact::writeManifest(m));
  ASSERT_TRUE(read.ok()) << read.message();
  const EntrySpec &entry = read->entries[0];
  ASSERT_EQ(entry.numBuffers(), 3u);
  EXPECT_EQ(flatIndex(entry, 2, 0), 2u);

  HostBuffers in(entry.numBuffers()), out(entry.numBuffers());
  std::vector<uint8_t> codes(kRows * kCols, 0x38); // 1.0 in E4M3
  const float scaleInv = 0.5f;
  std::vector<uint8_t> scale(4);
  std::memcpy(scale.data(), &scaleInv, 4);
  in[0] = out[0] = codes;
  in[1] = out[1] = scale;
  out[2] = bf16Bytes(std::vector<float>(codes.size(), 0.5f));
  CheckReport report = checkOutputs(*read, entry, in, out);
  EXPECT_TRUE(report.passed) << (report.errors.empty() ? std::string()
                                                       : report.errors[0]);
  ASSERT_EQ(report.buffers.size(), 1u);
  EXPECT_EQ(report.buffers[0].arg, "y");
  ASSERT_EQ(report.notes.size(), 1u);
  EXPECT_EQ(report.notes[0],
            "output 'saved_q' is argument 'q' itself (alias_of): not written");
}
