//===- MemoryPlanTest.cpp - Offsets of an entry's temporaries ------------===//

#include "../../lib/Conversion/TEQToGPU/MemoryPlan.h"

#include <gtest/gtest.h>

using namespace mlir::teq;

namespace {

bool overlaps(const TemporaryBuffer &a, const TemporaryBuffer &b) {
  bool alive = a.firstOp <= b.lastOp && b.firstOp <= a.lastOp;
  bool bytes = a.offset < b.offset + b.bytes && b.offset < a.offset + a.bytes;
  return a.host == b.host && alive && bytes;
}

constexpr int64_t MiB = 1 << 20;

TEST(MemoryPlan, DisjointLifetimesShareBytes) {
  // t0 dies at op 1; t1 is born at op 2 and reuses its bytes.
  std::vector<TemporaryBuffer> buffers = {{1000, 0, 1}, {1000, 2, 3}};
  EXPECT_EQ(planWorkspace(buffers), 1024);
  EXPECT_EQ(buffers[0].offset, 0);
  EXPECT_EQ(buffers[1].offset, 0);
}

TEST(MemoryPlan, LastUseAndDefinitionAtOneOpDoNotShare) {
  // An op never writes over its own inputs: lifetimes are inclusive.
  std::vector<TemporaryBuffer> buffers = {{512, 0, 1}, {512, 1, 2}};
  EXPECT_EQ(planWorkspace(buffers), 1024);
  EXPECT_NE(buffers[0].offset, buffers[1].offset);
}

TEST(MemoryPlan, AlignedAndNeverEmpty) {
  std::vector<TemporaryBuffer> buffers = {{4, 0, 5}, {0, 0, 5}, {300, 0, 5}};
  EXPECT_EQ(planWorkspace(buffers), 256 + 256 + 512);
  for (const TemporaryBuffer &b : buffers)
    EXPECT_EQ(b.offset % kWorkspaceAlignment, 0);
}

TEST(MemoryPlan, FirstFitFillsGaps) {
  // a [0,10] and c [0,10] stay; b [0,1] dies; d [2,3] fits in b's gap.
  std::vector<TemporaryBuffer> buffers = {
      {256, 0, 10}, {512, 0, 1}, {256, 0, 10}, {512, 2, 3}};
  EXPECT_EQ(planWorkspace(buffers), 1024);
  EXPECT_EQ(buffers[3].offset, buffers[1].offset);
}

TEST(MemoryPlan, NoLiveBuffersOverlap) {
  // A pseudo-random program: every pair alive at once gets disjoint bytes.
  std::vector<TemporaryBuffer> buffers;
  unsigned state = 12345;
  auto next = [&] { return state = state * 1103515245u + 12345u; };
  for (int i = 0; i < 200; ++i) {
    int64_t first = next() % 100;
    buffers.push_back({int64_t(next() % 5000), first,
                       first + int64_t(next() % 20)});
  }
  int64_t total = planWorkspace(buffers);
  for (size_t i = 0; i < buffers.size(); ++i) {
    EXPECT_LE(buffers[i].offset + buffers[i].bytes, total);
    for (size_t j = i + 1; j < buffers.size(); ++j)
      EXPECT_FALSE(overlaps(buffers[i], buffers[j])) << i << " and " << j;
  }
}

TEST(MemoryPlan, WithoutHostsEverythingIsInTheWorkspace) {
  std::vector<TemporaryBuffer> buffers = {{1000, 0, 1}, {1000, 1, 3}};
  EXPECT_EQ(planWorkspace(buffers, {}), 2048);
  for (const TemporaryBuffer &b : buffers)
    EXPECT_EQ(b.host, -1);
}

TEST(MemoryPlan, AHostTakesWhatDiesBeforeItIsWritten) {
  // The result is written at op 3: a buffer dying at op 2 lives in it; one
  // read at op 3 (the op that writes the result) must not (an op never
  // writes over its own inputs), nor one read later.
  std::vector<HostBuffer> hosts = {{4096, 3}};
  std::vector<TemporaryBuffer> buffers = {
      {1024, 0, 2}, {1024, 1, 3}, {1024, 2, 5}};
  EXPECT_EQ(planWorkspace(buffers, hosts), 2048);
  EXPECT_EQ(buffers[0].host, 0);
  EXPECT_EQ(buffers[0].offset, 0);
  EXPECT_EQ(buffers[1].host, -1);
  EXPECT_EQ(buffers[2].host, -1);
}

TEST(MemoryPlan, AHostHoldsOnlyItsBytes) {
  // 1000 bytes fit a 1000-byte host (no rounding at its end); the next
  // buffer alive at once does not, and goes to the workspace.
  std::vector<HostBuffer> hosts = {{1000, 10}};
  std::vector<TemporaryBuffer> buffers = {{1000, 0, 2}, {256, 0, 2}};
  EXPECT_EQ(planWorkspace(buffers, hosts), 256);
  EXPECT_EQ(buffers[0].host, 0);
  EXPECT_EQ(buffers[1].host, -1);
  // Bytes it no longer needs are reused in the host too.
  std::vector<TemporaryBuffer> later = {{1000, 0, 2}, {1000, 3, 4}};
  EXPECT_EQ(planWorkspace(later, hosts), 0);
  EXPECT_EQ(later[1].host, 0);
  EXPECT_EQ(later[1].offset, 0);
}

TEST(MemoryPlan, TheHostWrittenSoonestIsTakenFirst) {
  // Host 0 is written at op 9, host 1 at op 4. A buffer dying at op 2 takes
  // host 1, leaving host 0 to the buffer that lives until op 8.
  std::vector<HostBuffer> hosts = {{1024, 9}, {1024, 4}};
  std::vector<TemporaryBuffer> buffers = {{1024, 0, 2}, {1024, 1, 8}};
  EXPECT_EQ(planWorkspace(buffers, hosts), 0);
  EXPECT_EQ(buffers[0].host, 1);
  EXPECT_EQ(buffers[1].host, 0);
}

TEST(MemoryPlan, LinearForwardBackwardFitsTheResults) {
  // A Linear's forward and backward at 8192^3, FP8 current scaling, as
  // teq-decompose-linear orders it: 0 quantize x (data, transpose), 1
  // quantize w (data), 2 fprop -> y, 4 quantize w (transpose), 5 quantize dy
  // (data, transpose), 6 dgrad -> dx, 7 wgrad -> dw. Every FP8 copy is 64
  // MiB, every result 128 MiB. Two copies die before dw is written and two
  // before dx; only the two wgrad reads (x's and dy's transposes, read by
  // the op that writes dw, after dx is written) need the workspace: 128 MiB
  // where it took 256 without hosts.
  std::vector<HostBuffer> results = {{128 * MiB, 2}, {128 * MiB, 6},
                                     {128 * MiB, 7}};
  std::vector<TemporaryBuffer> fp8 = {
      {64 * MiB, 0, 2}, {64 * MiB, 0, 7}, {64 * MiB, 1, 2},
      {64 * MiB, 4, 6}, {64 * MiB, 5, 6}, {64 * MiB, 5, 7}};
  std::vector<TemporaryBuffer> alone = fp8;
  EXPECT_EQ(planWorkspace(alone), 256 * MiB);
  EXPECT_EQ(planWorkspace(fp8, results), 128 * MiB);
  EXPECT_EQ(fp8[1].host, -1);
  EXPECT_EQ(fp8[5].host, -1);
  for (size_t i = 0; i < fp8.size(); ++i)
    for (size_t j = i + 1; j < fp8.size(); ++j)
      EXPECT_FALSE(overlaps(fp8[i], fp8[j])) << i << " and " << j;
}

TEST(MemoryPlan, NoLiveBuffersOverlapInHostsEither) {
  // Pseudo-random buffers and hosts: each hosted buffer dies before its
  // host is written and lies inside it, and buffers alive at once in one
  // place never share bytes.
  std::vector<TemporaryBuffer> buffers;
  std::vector<HostBuffer> hosts;
  unsigned state = 54321;
  auto next = [&] { return state = state * 1103515245u + 12345u; };
  for (int i = 0; i < 8; ++i)
    hosts.push_back({int64_t(next() % 20000), int64_t(next() % 120)});
  for (int i = 0; i < 300; ++i) {
    int64_t first = next() % 100;
    buffers.push_back({int64_t(next() % 5000), first,
                       first + int64_t(next() % 20)});
  }
  int64_t total = planWorkspace(buffers, hosts);
  int hosted = 0;
  for (size_t i = 0; i < buffers.size(); ++i) {
    const TemporaryBuffer &b = buffers[i];
    EXPECT_EQ(b.offset % kWorkspaceAlignment, 0);
    if (b.host >= 0) {
      ++hosted;
      EXPECT_LT(b.lastOp, hosts[b.host].firstWrite) << i;
      EXPECT_LE(b.offset + b.bytes, hosts[b.host].bytes) << i;
    } else {
      EXPECT_LE(b.offset + b.bytes, total) << i;
    }
    for (size_t j = i + 1; j < buffers.size(); ++j)
      EXPECT_FALSE(overlaps(b, buffers[j])) << i << " and " << j;
  }
  EXPECT_GT(hosted, 0);
}

} // namespace
