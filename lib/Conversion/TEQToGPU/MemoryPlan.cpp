//===- MemoryPlan.cpp - Offsets of an entry's temporaries -----------------===//

#include "MemoryPlan.h"

#include <algorithm>
#include <numeric>
#include <utility>

using namespace mlir::teq;

namespace {
/// Bytes a buffer occupies: aligned, and never empty.
int64_t footprint(const TemporaryBuffer &b) {
  int64_t bytes = b.bytes > 0 ? b.bytes : 1;
  return (bytes + kWorkspaceAlignment - 1) / kWorkspaceAlignment *
         kWorkspaceAlignment;
}

/// The lowest aligned offset where `buffer` fits among the placed buffers
/// of `host` (-1: the workspace) alive at the same time, or -1 where it
/// would end past `limit` (< 0: no limit).
int64_t firstFit(const std::vector<TemporaryBuffer> &buffers,
                 const std::vector<size_t> &placed,
                 const TemporaryBuffer &buffer, int64_t host, int64_t limit) {
  // Ranges of placed buffers alive at the same time, by offset.
  std::vector<std::pair<int64_t, int64_t>> busy;
  for (size_t j : placed) {
    const TemporaryBuffer &other = buffers[j];
    if (other.host == host && other.firstOp <= buffer.lastOp &&
        buffer.firstOp <= other.lastOp)
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
  // In a host only the buffer's own bytes need to fit: the host's end is
  // the end of the caller's buffer.
  if (limit >= 0 && offset + std::max<int64_t>(buffer.bytes, 1) > limit)
    return -1;
  return offset;
}
} // namespace

int64_t mlir::teq::planWorkspace(std::vector<TemporaryBuffer> &buffers,
                                 const std::vector<HostBuffer> &hosts) {
  std::vector<size_t> order(buffers.size());
  std::iota(order.begin(), order.end(), 0);
  // Largest first (small scale buffers then fill the gaps instead of
  // splitting the room large ones need), in definition order among equals.
  std::stable_sort(order.begin(), order.end(), [&](size_t x, size_t y) {
    int64_t fx = footprint(buffers[x]), fy = footprint(buffers[y]);
    if (fx != fy)
      return fx > fy;
    return buffers[x].firstOp < buffers[y].firstOp;
  });
  // Hosts by the op that first writes them: a buffer takes the one freed
  // up soonest after its last use, leaving later ones to longer lives.
  std::vector<size_t> hostOrder(hosts.size());
  std::iota(hostOrder.begin(), hostOrder.end(), 0);
  std::stable_sort(hostOrder.begin(), hostOrder.end(), [&](size_t x, size_t y) {
    return hosts[x].firstWrite < hosts[y].firstWrite;
  });
  std::vector<size_t> placed;
  int64_t total = 0;
  for (size_t i : order) {
    TemporaryBuffer &buffer = buffers[i];
    buffer.host = -1;
    buffer.offset = -1;
    for (size_t h : hostOrder) {
      if (hosts[h].firstWrite <= buffer.lastOp)
        continue;
      int64_t offset = firstFit(buffers, placed, buffer,
                                static_cast<int64_t>(h), hosts[h].bytes);
      if (offset < 0)
        continue;
      buffer.host = static_cast<int64_t>(h);
      buffer.offset = offset;
      break;
    }
    if (buffer.host < 0) {
      buffer.offset = firstFit(buffers, placed, buffer, -1, -1);
      total = std::max(total, buffer.offset + footprint(buffer));
    }
    placed.push_back(i);
  }
  return total;
}
