//===- MemoryPlan.cpp - Offsets of an entry's temporaries -----------------===//

#include "MemoryPlan.h"

#include <algorithm>
#include <numeric>

using namespace mlir::teq;

namespace {
/// Bytes a buffer occupies: aligned, and never empty.
int64_t footprint(const TemporaryBuffer &b) {
  int64_t bytes = b.bytes > 0 ? b.bytes : 1;
  return (bytes + kWorkspaceAlignment - 1) / kWorkspaceAlignment *
         kWorkspaceAlignment;
}
} // namespace

int64_t mlir::teq::planWorkspace(std::vector<TemporaryBuffer> &buffers) {
  std::vector<size_t> order(buffers.size());
  std::iota(order.begin(), order.end(), 0);
  std::stable_sort(order.begin(), order.end(), [&](size_t x, size_t y) {
    return buffers[x].firstOp < buffers[y].firstOp;
  });
  std::vector<size_t> placed;
  int64_t total = 0;
  for (size_t i : order) {
    TemporaryBuffer &buffer = buffers[i];
    // Ranges of placed buffers alive at the same time, by offset.
    std::vector<std::pair<int64_t, int64_t>> busy;
    for (size_t j : placed) {
      const TemporaryBuffer &other = buffers[j];
      if (other.firstOp <= buffer.lastOp && buffer.firstOp <= other.lastOp)
        busy.push_back({other.offset, other.offset + footprint(other)});
    }
    std::sort(busy.begin(), busy.end());
    int64_t size = footprint(buffer);
    int64_t offset = 0;
    for (auto [begin, end] : busy) {
      if (offset + size <= begin)
        break;
      offset = std::max(offset, end);
    }
    buffer.offset = offset;
    total = std::max(total, offset + size);
    placed.push_back(i);
  }
  return total;
}
