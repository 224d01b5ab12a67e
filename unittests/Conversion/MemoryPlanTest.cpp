//===- MemoryPlanTest.cpp - Offsets of an entry's temporaries ------------===//

#include "../../lib/Conversion/TEQToGPU/MemoryPlan.h"

#include <gtest/gtest.h>

using namespace mlir::teq;

namespace {

bool overlaps(const TemporaryBuffer &a, const TemporaryBuffer &b) {
  bool alive = a.firstOp <= b.lastOp && b.firstOp <= a.lastOp;
  bool bytes = a.offset < b.offset + b.bytes && b.offset < a.offset + a.bytes;
  return alive && bytes;
}

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

} // namespace
