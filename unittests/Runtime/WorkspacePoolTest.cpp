//===- WorkspacePoolTest.cpp - Per-call state ordered by stream -----------===//
//
// The WorkspacePool's logic without a GPU, on a fake device that models
// streams, events and allocations: one stream reuses one slot; overlapping
// streams get slots of their own up to the limit and then wait (on the
// device) for another stream's slot; a finished slot is reused without a
// wait; two calls being enqueued at once never share a slot, even on one
// stream and past the limit; a capturing stream's slot stays the graph's; a
// failed release retires its slot; teardown waits for every slot's last use
// and frees everything. The same on many threads at once.
//
//===----------------------------------------------------------------------===//

#include "teq/Runtime/WorkspacePool.h"

#include <gtest/gtest.h>

#include <atomic>
#include <map>
#include <mutex>
#include <random>
#include <set>
#include <string>
#include <thread>
#include <vector>

using namespace mlir::teq::runtime;
using namespace mlir::teq::runtime::detail;

namespace {

/// What the fake device saw; outlives the pool (which owns the device).
struct FakeLog {
  std::mutex mutex;
  uint64_t nextPtr = 0x100000;
  int nextEvent = 1;
  std::set<uint64_t> live;         ///< Allocated, not freed.
  std::set<void *> liveEvents;     ///< Created, not destroyed.
  size_t allocations = 0;
  size_t capturedAllocations = 0;
  /// Per event: the stream of its last record, and whether that finished.
  std::map<void *, void *> recordedOn;
  std::map<void *, bool> done;
  std::vector<std::pair<void *, void *>> waits; ///< (stream, event).
  std::vector<void *> synchronizedEvents;
  size_t contextSynchronizations = 0;
  std::vector<uint64_t> releasedKeys;
  // Failure injection.
  bool failAllocation = false;
  bool failRecord = false;
  bool failWait = false;
  bool failStreamQuery = false;
  size_t streamQueries = 0;
  std::set<void *> capturing; ///< Streams capturing a graph.

  void finishAll() {
    std::lock_guard<std::mutex> lock(mutex);
    for (auto &[event, finished] : done)
      finished = true;
  }
};

class FakeDevice final : public WorkspaceDevice {
public:
  explicit FakeDevice(std::shared_ptr<FakeLog> log) : log_(std::move(log)) {}

  StatusOr<StreamState> streamState(void *stream) override {
    std::lock_guard<std::mutex> lock(log_->mutex);
    ++log_->streamQueries;
    if (log_->failStreamQuery)
      return Status::error("cannot query the stream (cuStreamIsCapturing): "
                           "CUDA_ERROR_INVALID_HANDLE");
    StreamState state;
    if (log_->capturing.count(stream)) {
      state.capturing = true;
      return state;
    }
    state.id = reinterpret_cast<uintptr_t>(stream);
    return state;
  }
  StatusOr<uint64_t> allocate(uint64_t bytes, bool duringCapture) override {
    std::lock_guard<std::mutex> lock(log_->mutex);
    if (log_->failAllocation)
      return Status::error("cuMemAlloc: CUDA_ERROR_OUT_OF_MEMORY (out of "
                           "memory)");
    uint64_t ptr = log_->nextPtr;
    log_->nextPtr += (bytes + 255) / 256 * 256 + 256;
    log_->live.insert(ptr);
    ++log_->allocations;
    log_->capturedAllocations += duringCapture ? 1 : 0;
    return ptr;
  }
  void free(uint64_t ptr) override {
    std::lock_guard<std::mutex> lock(log_->mutex);
    EXPECT_EQ(log_->live.erase(ptr), 1u) << "double free or unknown pointer";
  }
  StatusOr<void *> createEvent() override {
    std::lock_guard<std::mutex> lock(log_->mutex);
    void *event = reinterpret_cast<void *>(uintptr_t(log_->nextEvent++) << 4);
    log_->liveEvents.insert(event);
    return event;
  }
  void destroyEvent(void *event) override {
    std::lock_guard<std::mutex> lock(log_->mutex);
    EXPECT_EQ(log_->liveEvents.erase(event), 1u);
  }
  Status recordEvent(void *event, void *stream) override {
    std::lock_guard<std::mutex> lock(log_->mutex);
    if (log_->failRecord)
      return Status::error("cannot record a CUDA event: CUDA_ERROR_LAUNCH_FAILED");
    log_->recordedOn[event] = stream;
    log_->done[event] = false;
    return Status::success();
  }
  bool eventDone(void *event) override {
    std::lock_guard<std::mutex> lock(log_->mutex);
    return log_->done[event];
  }
  Status streamWaitEvent(void *stream, void *event) override {
    std::lock_guard<std::mutex> lock(log_->mutex);
    if (log_->failWait)
      return Status::error("cannot order the stream: CUDA_ERROR_INVALID_HANDLE");
    log_->waits.push_back({stream, event});
    return Status::success();
  }
  void synchronizeEvent(void *event) override {
    std::lock_guard<std::mutex> lock(log_->mutex);
    log_->synchronizedEvents.push_back(event);
    log_->done[event] = true;
  }
  void synchronizeContext() override {
    std::lock_guard<std::mutex> lock(log_->mutex);
    ++log_->contextSynchronizations;
  }
  void releaseSlot(uint64_t key) override {
    std::lock_guard<std::mutex> lock(log_->mutex);
    log_->releasedKeys.push_back(key);
  }

private:
  std::shared_ptr<FakeLog> log_;
};

void *stream(int i) { return reinterpret_cast<void *>(uintptr_t(0x1000 * i)); }

std::unique_ptr<WorkspacePool> makePool(const std::shared_ptr<FakeLog> &log,
                                        uint64_t bytes = 4096,
                                        size_t streamSlots = 4) {
  auto pool = WorkspacePool::create(std::make_unique<FakeDevice>(log), bytes,
                                    "entry workspace", streamSlots);
  EXPECT_TRUE(pool.ok()) << pool.message();
  return pool.ok() ? std::move(*pool) : nullptr;
}

WorkspacePool::Lease take(WorkspacePool &pool, void *s) {
  auto lease = pool.acquire(s);
  EXPECT_TRUE(lease.ok()) << lease.message();
  return lease.ok() ? std::move(*lease) : WorkspacePool::Lease();
}

TEST(WorkspacePoolTest, CreateAllocatesOneSlot) {
  auto log = std::make_shared<FakeLog>();
  auto pool = makePool(log);
  ASSERT_TRUE(pool);
  EXPECT_EQ(pool->bytes(), 4096u);
  EXPECT_EQ(log->allocations, 1u);
  EXPECT_EQ(pool->stats().slots, 1u);

  auto failing = std::make_shared<FakeLog>();
  failing->failAllocation = true;
  auto refused = WorkspacePool::create(std::make_unique<FakeDevice>(failing),
                                       4096, "entry workspace");
  ASSERT_FALSE(refused.ok());
  EXPECT_EQ(refused.message(),
            "cannot allocate the 4096-byte entry workspace: cuMemAlloc: "
            "CUDA_ERROR_OUT_OF_MEMORY (out of memory)");
}

TEST(WorkspacePoolTest, OneStreamReusesOneSlotWithoutWaiting) {
  auto log = std::make_shared<FakeLog>();
  auto pool = makePool(log);
  ASSERT_TRUE(pool);
  uint64_t first = 0, key = 0;
  for (int call = 0; call < 5; ++call) {
    WorkspacePool::Lease lease = take(*pool, stream(1));
    ASSERT_TRUE(lease);
    if (call == 0) {
      first = lease.ptr();
      key = lease.key();
    }
    EXPECT_EQ(lease.ptr(), first);
    EXPECT_EQ(lease.key(), key);
    EXPECT_NE(lease.key(), 0u);
    EXPECT_TRUE(lease.release().ok());
  }
  // Never finished, but stream order covers it.
  EXPECT_EQ(pool->stats().slots, 1u);
  EXPECT_TRUE(log->waits.empty());
}

TEST(WorkspacePoolTest, OverlappingStreamsGetSlotsOfTheirOwn) {
  auto log = std::make_shared<FakeLog>();
  auto pool = makePool(log);
  ASSERT_TRUE(pool);
  uint64_t onOne = 0, onTwo = 0;
  for (int round = 0; round < 3; ++round) {
    // Back to back on two streams, nothing finishes in between.
    WorkspacePool::Lease one = take(*pool, stream(1));
    ASSERT_TRUE(one.release().ok());
    WorkspacePool::Lease two = take(*pool, stream(2));
    ASSERT_TRUE(two.release().ok());
    if (round == 0) {
      onOne = one.ptr();
      onTwo = two.ptr();
    }
    EXPECT_NE(one.ptr(), two.ptr());
    EXPECT_NE(one.key(), two.key());
    EXPECT_EQ(one.ptr(), onOne);
    EXPECT_EQ(two.ptr(), onTwo);
  }
  EXPECT_EQ(pool->stats().slots, 2u);
  EXPECT_TRUE(log->waits.empty());
}

TEST(WorkspacePoolTest, AFinishedSlotServesAnyStream) {
  auto log = std::make_shared<FakeLog>();
  auto pool = makePool(log);
  ASSERT_TRUE(pool);
  WorkspacePool::Lease one = take(*pool, stream(1));
  const uint64_t ptr = one.ptr();
  ASSERT_TRUE(one.release().ok());
  log->finishAll();
  WorkspacePool::Lease two = take(*pool, stream(2));
  EXPECT_EQ(two.ptr(), ptr);
  EXPECT_EQ(pool->stats().slots, 1u);
  EXPECT_TRUE(log->waits.empty());
}

TEST(WorkspacePoolTest, PastTheLimitAStreamWaitsForTheOldestSlot) {
  auto log = std::make_shared<FakeLog>();
  auto pool = makePool(log, 4096, /*streamSlots=*/2);
  ASSERT_TRUE(pool);
  WorkspacePool::Lease one = take(*pool, stream(1));
  const uint64_t onOne = one.ptr();
  ASSERT_TRUE(one.release().ok());
  WorkspacePool::Lease two = take(*pool, stream(2));
  ASSERT_TRUE(two.release().ok());
  std::map<void *, void *> recorded;
  {
    std::lock_guard<std::mutex> lock(log->mutex);
    recorded = log->recordedOn;
  }
  WorkspacePool::Lease three = take(*pool, stream(3));
  // Stream 1's slot was released first: stream 3 is ordered after it.
  EXPECT_EQ(three.ptr(), onOne);
  EXPECT_EQ(pool->stats().slots, 2u);
  EXPECT_EQ(pool->stats().streamWaits, 1u);
  ASSERT_EQ(log->waits.size(), 1u);
  EXPECT_EQ(log->waits[0].first, stream(3));
  EXPECT_EQ(recorded[log->waits[0].second], stream(1));
  ASSERT_TRUE(three.release().ok());
  // Its slot is now stream 3's: stream 3 again needs no wait.
  WorkspacePool::Lease again = take(*pool, stream(3));
  EXPECT_EQ(again.ptr(), onOne);
  EXPECT_EQ(log->waits.size(), 1u);
}

TEST(WorkspacePoolTest, CallsBeingEnqueuedAtOnceNeverShareASlot) {
  auto log = std::make_shared<FakeLog>();
  auto pool = makePool(log, 4096, /*streamSlots=*/1);
  ASSERT_TRUE(pool);
  // Two threads on the same stream: their kernels would interleave on it.
  WorkspacePool::Lease first = take(*pool, stream(1));
  WorkspacePool::Lease second = take(*pool, stream(1));
  WorkspacePool::Lease third = take(*pool, stream(2));
  EXPECT_NE(first.ptr(), second.ptr());
  EXPECT_NE(first.ptr(), third.ptr());
  EXPECT_NE(second.ptr(), third.ptr());
  EXPECT_EQ(pool->stats().held, 3u);
  EXPECT_EQ(pool->stats().slots, 3u);
  EXPECT_TRUE(log->waits.empty());
}

TEST(WorkspacePoolTest, SlotsWithoutMemory) {
  auto log = std::make_shared<FakeLog>();
  auto pool = makePool(log, /*bytes=*/0);
  ASSERT_TRUE(pool);
  EXPECT_EQ(log->allocations, 0u);
  WorkspacePool::Lease one = take(*pool, stream(1));
  WorkspacePool::Lease two = take(*pool, stream(2));
  EXPECT_EQ(one.ptr(), 0u);
  EXPECT_EQ(two.ptr(), 0u);
  // Still two slots: each has its own module instances (its key).
  EXPECT_NE(one.key(), two.key());
  EXPECT_EQ(pool->stats().slots, 2u);
}

TEST(WorkspacePoolTest, ACapturedGraphKeepsItsSlot) {
  auto log = std::make_shared<FakeLog>();
  auto pool = makePool(log);
  ASSERT_TRUE(pool);
  log->capturing.insert(stream(9));
  WorkspacePool::Lease captured = take(*pool, stream(9));
  const uint64_t graphs = captured.ptr();
  EXPECT_EQ(log->capturedAllocations, 1u);
  ASSERT_TRUE(captured.release().ok());
  // Given back, but the graph may replay: nobody else gets it.
  EXPECT_EQ(pool->stats().captured, 1u);
  for (int i = 1; i <= 3; ++i) {
    WorkspacePool::Lease lease = take(*pool, stream(i));
    EXPECT_NE(lease.ptr(), graphs);
  }
  log->finishAll();
  WorkspacePool::Lease later = take(*pool, stream(5));
  EXPECT_NE(later.ptr(), graphs);
  (void)later.release();
  pool.reset();
  // Its last use is unknown: teardown waits for the whole context.
  EXPECT_EQ(log->contextSynchronizations, 1u);
  EXPECT_TRUE(log->live.empty());
}

TEST(WorkspacePoolTest, AFailedReleaseRetiresTheSlot) {
  auto log = std::make_shared<FakeLog>();
  auto pool = makePool(log);
  ASSERT_TRUE(pool);
  WorkspacePool::Lease lease = take(*pool, stream(1));
  const uint64_t retired = lease.ptr();
  log->failRecord = true;
  Status status = lease.release();
  EXPECT_EQ(status.message(), "entry workspace: cannot record a CUDA event: "
                              "CUDA_ERROR_LAUNCH_FAILED");
  // Idempotent.
  EXPECT_TRUE(lease.release().ok());
  log->failRecord = false;
  log->finishAll();
  WorkspacePool::Lease next = take(*pool, stream(1));
  EXPECT_NE(next.ptr(), retired);
  (void)next.release();
  pool.reset();
  EXPECT_EQ(log->contextSynchronizations, 1u);
  EXPECT_TRUE(log->live.empty());
}

TEST(WorkspacePoolTest, AcquireErrors) {
  auto log = std::make_shared<FakeLog>();
  auto pool = makePool(log, 4096, /*streamSlots=*/1);
  ASSERT_TRUE(pool);
  log->failStreamQuery = true;
  auto refused = pool->acquire(stream(1));
  ASSERT_FALSE(refused.ok());
  EXPECT_EQ(refused.message(),
            "entry workspace: cannot query the stream (cuStreamIsCapturing): "
            "CUDA_ERROR_INVALID_HANDLE");
  log->failStreamQuery = false;

  WorkspacePool::Lease one = take(*pool, stream(1));
  ASSERT_TRUE(one.release().ok());
  // Past the limit, the wait fails: an error, and the slot stays free.
  log->failWait = true;
  auto noWait = pool->acquire(stream(2));
  ASSERT_FALSE(noWait.ok());
  EXPECT_EQ(noWait.message(), "entry workspace: cannot order the stream: "
                              "CUDA_ERROR_INVALID_HANDLE");
  log->failWait = false;
  EXPECT_EQ(pool->stats().held, 0u);
  WorkspacePool::Lease two = take(*pool, stream(2));
  EXPECT_EQ(two.ptr(), one.ptr());
  ASSERT_TRUE(two.release().ok());

  // A new slot that cannot be allocated.
  log->failAllocation = true;
  WorkspacePool::Lease held = take(*pool, stream(2));
  auto noMemory = pool->acquire(stream(3));
  ASSERT_FALSE(noMemory.ok());
  EXPECT_EQ(noMemory.message(), "cannot allocate the 4096-byte entry "
                                "workspace: cuMemAlloc: "
                                "CUDA_ERROR_OUT_OF_MEMORY (out of memory)");
}

TEST(WorkspacePoolTest, OneStreamQueryServesSeveralPools) {
  // An entry call takes its own slot and its GEMMs' cuBLASLt workspace for
  // one stream: the stream is asked about once, and the second pool
  // decides as acquire(stream) would.
  auto log = std::make_shared<FakeLog>();
  auto entryPool = makePool(log);
  auto gemmPool = makePool(log, 1024, /*streamSlots=*/1);
  ASSERT_TRUE(entryPool && gemmPool);
  for (int call = 0; call < 3; ++call) {
    size_t queries = log->streamQueries;
    auto state = entryPool->streamState(stream(1));
    ASSERT_TRUE(state.ok()) << state.message();
    EXPECT_EQ(state->id, reinterpret_cast<uintptr_t>(stream(1)));
    auto entry = entryPool->acquire(stream(1), *state);
    auto gemm = gemmPool->acquire(stream(1), *state);
    ASSERT_TRUE(entry.ok() && gemm.ok());
    EXPECT_EQ(log->streamQueries, queries + 1);
    EXPECT_TRUE(gemm->release().ok());
    EXPECT_TRUE(entry->release().ok());
  }
  EXPECT_EQ(entryPool->stats().slots, 1u);
  EXPECT_EQ(gemmPool->stats().slots, 1u);
  // Past the gemm pool's limit, another stream's state orders it after the
  // slot's last use, as acquire(stream) does.
  auto other = entryPool->streamState(stream(2));
  ASSERT_TRUE(other.ok());
  auto waited = gemmPool->acquire(stream(2), *other);
  ASSERT_TRUE(waited.ok()) << waited.message();
  EXPECT_EQ(gemmPool->stats().streamWaits, 1u);
  EXPECT_TRUE(waited->release().ok());

  // A capturing stream's state gives the graph a slot of its own.
  log->capturing.insert(stream(3));
  auto capturing = gemmPool->streamState(stream(3));
  ASSERT_TRUE(capturing.ok());
  EXPECT_TRUE(capturing->capturing);
  auto graph = entryPool->acquire(stream(3), *capturing);
  ASSERT_TRUE(graph.ok());
  EXPECT_EQ(entryPool->stats().captured, 1u);

  // The query's error names the pool that asked.
  log->failStreamQuery = true;
  auto refused = gemmPool->streamState(stream(1));
  ASSERT_FALSE(refused.ok());
  EXPECT_EQ(refused.message(),
            "entry workspace: cannot query the stream (cuStreamIsCapturing): "
            "CUDA_ERROR_INVALID_HANDLE");
}

TEST(WorkspacePoolTest, LeasesMoveAndReleaseOnce) {
  auto log = std::make_shared<FakeLog>();
  auto pool = makePool(log);
  ASSERT_TRUE(pool);
  WorkspacePool::Lease empty;
  EXPECT_FALSE(empty);
  EXPECT_EQ(empty.key(), 0u);
  EXPECT_TRUE(empty.release().ok());
  {
    WorkspacePool::Lease lease = take(*pool, stream(1));
    WorkspacePool::Lease moved = std::move(lease);
    EXPECT_FALSE(lease);
    EXPECT_TRUE(moved);
    EXPECT_EQ(pool->stats().held, 1u);
    WorkspacePool::Lease assigned;
    assigned = std::move(moved);
    EXPECT_EQ(pool->stats().held, 1u);
  } // released by the destructor, once
  EXPECT_EQ(pool->stats().held, 0u);
  std::lock_guard<std::mutex> lock(log->mutex);
  EXPECT_EQ(log->recordedOn.size(), 1u);
}

TEST(WorkspacePoolTest, TeardownWaitsForEverySlotAndFreesIt) {
  auto log = std::make_shared<FakeLog>();
  auto pool = makePool(log);
  ASSERT_TRUE(pool);
  std::set<uint64_t> keys;
  {
    WorkspacePool::Lease a = take(*pool, stream(1));
    WorkspacePool::Lease b = take(*pool, stream(2));
    WorkspacePool::Lease c = take(*pool, stream(3));
    keys = {a.key(), b.key(), c.key()};
  }
  EXPECT_EQ(keys.size(), 3u);
  EXPECT_EQ(log->allocations, 3u);
  pool.reset();
  EXPECT_EQ(log->contextSynchronizations, 0u);
  EXPECT_EQ(log->synchronizedEvents.size(), 3u);
  EXPECT_TRUE(log->live.empty());
  EXPECT_TRUE(log->liveEvents.empty());
  EXPECT_EQ(std::set<uint64_t>(log->releasedKeys.begin(),
                               log->releasedKeys.end()),
            keys);
}

TEST(WorkspacePoolTest, ManyThreadsNeverShareASlot) {
  auto log = std::make_shared<FakeLog>();
  auto pool = makePool(log, 4096, /*streamSlots=*/3);
  ASSERT_TRUE(pool);
  // Which thread holds each slot's memory now.
  std::mutex ownersMutex;
  std::map<uint64_t, int> owners;
  std::atomic<int> failures{0};
  std::vector<std::thread> threads;
  for (int t = 0; t < 8; ++t)
    threads.emplace_back([&, t] {
      std::mt19937 rng(t);
      for (int i = 0; i < 2000; ++i) {
        void *s = stream(1 + int(rng() % 4));
        auto lease = pool->acquire(s);
        if (!lease.ok()) {
          ++failures;
          continue;
        }
        {
          std::lock_guard<std::mutex> lock(ownersMutex);
          auto [it, inserted] = owners.emplace(lease->ptr(), t);
          if (!inserted)
            ++failures;
        }
        std::this_thread::yield();
        {
          std::lock_guard<std::mutex> lock(ownersMutex);
          owners.erase(lease->ptr());
        }
        if (!lease->release().ok())
          ++failures;
        if (rng() % 16 == 0)
          log->finishAll();
      }
    });
  for (std::thread &thread : threads)
    thread.join();
  EXPECT_EQ(failures.load(), 0);
  WorkspacePool::Stats stats = pool->stats();
  EXPECT_EQ(stats.held, 0u);
  // At most one slot per thread beyond the stream limit.
  EXPECT_LE(stats.slots, 3u + 8u);
  pool.reset();
  EXPECT_TRUE(log->live.empty());
}

} // namespace
