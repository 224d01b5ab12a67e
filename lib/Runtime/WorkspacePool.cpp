//===- WorkspacePool.cpp - Per-call device state, ordered by stream -------===//
//
// See teq/Runtime/WorkspacePool.h.
//
//===----------------------------------------------------------------------===//

#include "teq/Runtime/WorkspacePool.h"

#include "teq/Runtime/Mgpu.h"

#include "Driver.h"

#include <atomic>
#include <limits>
#include <utility>

namespace mlir::teq::runtime::detail {

WorkspaceDevice::~WorkspaceDevice() = default;

namespace {

/// Slot keys, unique in the process (0 means "no slot").
uint64_t nextSlotKey() {
  static std::atomic<uint64_t> next{1};
  return next.fetch_add(1);
}

class CudaWorkspaceDevice final : public WorkspaceDevice {
public:
  explicit CudaWorkspaceDevice(CUcontext context) : context_(context) {}

  StatusOr<StreamState> streamState(void *stream) override {
    auto cu = getDriver();
    if (!cu.ok())
      return cu.status();
    CUstream s = static_cast<CUstream>(stream);
    CUstreamCaptureStatus capture = CU_STREAM_CAPTURE_STATUS_NONE;
    TEQ_RETURN_IF_ERROR(checkCU((*cu)->cuStreamIsCapturing(s, &capture),
                                "cannot query the stream (cuStreamIsCapturing)"));
    StreamState state;
    if (capture != CU_STREAM_CAPTURE_STATUS_NONE) {
      state.capturing = true;
      return state;
    }
    unsigned long long id = 0;
    TEQ_RETURN_IF_ERROR(checkCU((*cu)->cuStreamGetId(s, &id),
                                "cannot query the stream (cuStreamGetId)"));
    state.id = static_cast<uint64_t>(id);
    return state;
  }

  StatusOr<uint64_t> allocate(uint64_t bytes, bool duringCapture) override {
    auto cu = getDriver();
    if (!cu.ok())
      return cu.status();
    const Driver &d = **cu;
    TEQ_RETURN_IF_ERROR(checkCU(d.cuCtxSetCurrent(context_),
                                "cannot make the CUDA context current"));
    // A capture in the default (global) mode forbids cuMemAlloc on this
    // thread; the allocation does not touch the captured stream.
    CUstreamCaptureMode mode = CU_STREAM_CAPTURE_MODE_RELAXED;
    if (duringCapture)
      (void)d.cuThreadExchangeStreamCaptureMode(&mode);
    CUdeviceptr ptr = 0;
    CUresult result = d.cuMemAlloc(&ptr, static_cast<size_t>(bytes));
    if (duringCapture)
      (void)d.cuThreadExchangeStreamCaptureMode(&mode);
    TEQ_RETURN_IF_ERROR(checkCU(result, "cuMemAlloc"));
    // cuMemAlloc aligns to at least 256 bytes.
    return static_cast<uint64_t>(ptr);
  }

  void free(uint64_t ptr) override {
    auto cu = getDriver();
    if (!cu.ok() || !ptr)
      return;
    CurrentContextRestorer restorer;
    (void)(*cu)->cuCtxSetCurrent(context_);
    (void)(*cu)->cuMemFree(static_cast<CUdeviceptr>(ptr));
  }

  StatusOr<void *> createEvent() override {
    auto cu = getDriver();
    if (!cu.ok())
      return cu.status();
    CUevent event = nullptr;
    TEQ_RETURN_IF_ERROR(
        checkCU((*cu)->cuEventCreate(&event, CU_EVENT_DISABLE_TIMING),
                "cannot create a CUDA event"));
    return static_cast<void *>(event);
  }

  void destroyEvent(void *event) override {
    auto cu = getDriver();
    if (cu.ok() && event)
      (void)(*cu)->cuEventDestroy(static_cast<CUevent>(event));
  }

  Status recordEvent(void *event, void *stream) override {
    auto cu = getDriver();
    if (!cu.ok())
      return cu.status();
    return checkCU((*cu)->cuEventRecord(static_cast<CUevent>(event),
                                        static_cast<CUstream>(stream)),
                   "cannot record a CUDA event");
  }

  bool eventDone(void *event) override {
    auto cu = getDriver();
    return cu.ok() &&
           (*cu)->cuEventQuery(static_cast<CUevent>(event)) == CUDA_SUCCESS;
  }

  Status streamWaitEvent(void *stream, void *event) override {
    auto cu = getDriver();
    if (!cu.ok())
      return cu.status();
    return checkCU((*cu)->cuStreamWaitEvent(static_cast<CUstream>(stream),
                                            static_cast<CUevent>(event), 0),
                   "cannot order the stream after another stream's use of "
                   "the workspace (cuStreamWaitEvent)");
  }

  void synchronizeEvent(void *event) override {
    auto cu = getDriver();
    if (cu.ok() && event)
      (void)(*cu)->cuEventSynchronize(static_cast<CUevent>(event));
  }

  void synchronizeContext() override {
    auto cu = getDriver();
    if (!cu.ok())
      return;
    CurrentContextRestorer restorer;
    (void)(*cu)->cuCtxSetCurrent(context_);
    (void)(*cu)->cuCtxSynchronize();
  }

  void releaseSlot(uint64_t key) override { releaseModuleSlot(key); }

private:
  CUcontext context_;
};

} // namespace

std::unique_ptr<WorkspaceDevice> makeCudaWorkspaceDevice(void *cuContext) {
  return std::make_unique<CudaWorkspaceDevice>(static_cast<CUcontext>(cuContext));
}

//===----------------------------------------------------------------------===//
// WorkspacePool
//===----------------------------------------------------------------------===//

StatusOr<std::unique_ptr<WorkspacePool>>
WorkspacePool::create(std::unique_ptr<WorkspaceDevice> device, uint64_t bytes,
                      std::string what, size_t streamSlots) {
  if (!device)
    return Status::error(what + ": no device");
  std::unique_ptr<WorkspacePool> pool(new WorkspacePool());
  pool->device_ = std::move(device);
  pool->bytes_ = bytes;
  pool->what_ = std::move(what);
  pool->streamSlots_ = streamSlots == 0 ? 1 : streamSlots;
  auto slot = pool->newSlot(/*duringCapture=*/false);
  if (!slot.ok())
    return slot.status();
  pool->slots_.push_back(*slot);
  return pool;
}

StatusOr<WorkspacePool::Slot> WorkspacePool::newSlot(bool duringCapture) {
  Slot slot;
  if (bytes_ > 0) {
    auto ptr = device_->allocate(bytes_, duringCapture);
    if (!ptr.ok())
      return Status::error("cannot allocate the " + std::to_string(bytes_) +
                           "-byte " + what_ + ": " + ptr.message());
    slot.ptr = *ptr;
  }
  // A graph's slot is never given back: it needs no event.
  if (!duringCapture) {
    auto event = device_->createEvent();
    if (!event.ok()) {
      device_->free(slot.ptr);
      return event.status().withPrefix(what_);
    }
    slot.event = *event;
  }
  slot.key = nextSlotKey();
  return slot;
}

WorkspacePool::~WorkspacePool() {
  // A graph's slot, a retired one or one still held: its last use is not
  // known, so wait for the whole context.
  bool unknownUse = false;
  for (const Slot &slot : slots_)
    if (slot.captured || slot.retired || slot.held)
      unknownUse = true;
  if (unknownUse)
    device_->synchronizeContext();
  for (const Slot &slot : slots_) {
    if (!unknownUse && slot.releasedAt != 0)
      device_->synchronizeEvent(slot.event);
    if (slot.event)
      device_->destroyEvent(slot.event);
    if (slot.ptr)
      device_->free(slot.ptr);
    device_->releaseSlot(slot.key);
  }
}

StatusOr<WorkspacePool::StreamState>
WorkspacePool::streamState(void *stream) {
  auto state = device_->streamState(stream);
  if (!state.ok())
    return state.status().withPrefix(what_);
  return *state;
}

StatusOr<WorkspacePool::Lease> WorkspacePool::acquire(void *stream) {
  auto state = streamState(stream);
  if (!state.ok())
    return state.status();
  return acquire(stream, *state);
}

StatusOr<WorkspacePool::Lease>
WorkspacePool::acquire(void *stream, const StreamState &streamState) {
  const StreamState *state = &streamState;
  Lease lease;
  lease.pool_ = this;
  lease.stream_ = stream;
  lease.streamId_ = state->id;
  auto take = [&](size_t index) {
    Slot &slot = slots_[index];
    slot.held = true;
    lease.slot_ = index;
    lease.ptr_ = slot.ptr;
    lease.key_ = slot.key;
  };

  if (state->capturing) {
    // The graph keeps this slot: a fresh one, never given back.
    auto slot = newSlot(/*duringCapture=*/true);
    if (!slot.ok())
      return Status::error(slot.message() +
                           " (for a stream that is capturing a CUDA graph)");
    slot->captured = true;
    std::lock_guard<std::mutex> lock(mutex_);
    slots_.push_back(*slot);
    take(slots_.size() - 1);
    return lease;
  }

  std::unique_lock<std::mutex> lock(mutex_);
  auto isFree = [&](const Slot &slot) {
    return !slot.held && !slot.captured && !slot.retired;
  };
  constexpr size_t none = std::numeric_limits<size_t>::max();
  // A free slot that needs no ordering: last used on this stream, never
  // used, or whose last use has finished.
  size_t pick = none;
  for (size_t i = 0; i < slots_.size() && pick == none; ++i)
    if (isFree(slots_[i]) && slots_[i].releasedAt != 0 &&
        slots_[i].lastStreamId == state->id)
      pick = i;
  for (size_t i = 0; i < slots_.size() && pick == none; ++i)
    if (isFree(slots_[i]) && slots_[i].releasedAt == 0)
      pick = i;
  for (size_t i = 0; i < slots_.size() && pick == none; ++i)
    if (isFree(slots_[i]) && device_->eventDone(slots_[i].event))
      pick = i;
  if (pick != none) {
    take(pick);
    return lease;
  }

  // Every free slot is in use on another stream. Below the limit, or if no
  // slot is free at all (other threads are enqueuing on them), a new slot;
  // else order this stream after the free slot released longest ago.
  size_t active = 0, oldest = none;
  for (size_t i = 0; i < slots_.size(); ++i) {
    const Slot &slot = slots_[i];
    if (slot.captured || slot.retired)
      continue;
    ++active;
    if (isFree(slot) &&
        (oldest == none || slot.releasedAt < slots_[oldest].releasedAt))
      oldest = i;
  }
  if (active < streamSlots_ || oldest == none) {
    lock.unlock();
    auto slot = newSlot(/*duringCapture=*/false);
    if (!slot.ok())
      return slot.status();
    lock.lock();
    slots_.push_back(*slot);
    take(slots_.size() - 1);
    return lease;
  }
  TEQ_RETURN_IF_ERROR(
      device_->streamWaitEvent(stream, slots_[oldest].event).withPrefix(what_));
  ++streamWaits_;
  take(oldest);
  return lease;
}

Status WorkspacePool::releaseSlot(size_t index, void *stream,
                                  uint64_t streamId) {
  std::lock_guard<std::mutex> lock(mutex_);
  Slot &slot = slots_[index];
  if (slot.captured)
    return Status::success(); // the graph's
  Status status = device_->recordEvent(slot.event, stream);
  if (!status.ok()) {
    // Its last use cannot be waited for: never hand it out again.
    slot.retired = true;
    return status.withPrefix(what_);
  }
  slot.held = false;
  slot.lastStreamId = streamId;
  slot.releasedAt = ++releases_;
  return Status::success();
}

WorkspacePool::Stats WorkspacePool::stats() const {
  std::lock_guard<std::mutex> lock(mutex_);
  Stats stats;
  stats.slots = slots_.size();
  for (const Slot &slot : slots_) {
    stats.held += slot.held ? 1 : 0;
    stats.captured += slot.captured ? 1 : 0;
  }
  stats.streamWaits = streamWaits_;
  return stats;
}

//===----------------------------------------------------------------------===//
// Lease
//===----------------------------------------------------------------------===//

WorkspacePool::Lease::Lease(Lease &&other) noexcept
    : pool_(other.pool_), slot_(other.slot_), stream_(other.stream_),
      streamId_(other.streamId_), ptr_(other.ptr_), key_(other.key_) {
  other.pool_ = nullptr;
}

WorkspacePool::Lease &
WorkspacePool::Lease::operator=(Lease &&other) noexcept {
  if (this != &other) {
    (void)release();
    pool_ = other.pool_;
    slot_ = other.slot_;
    stream_ = other.stream_;
    streamId_ = other.streamId_;
    ptr_ = other.ptr_;
    key_ = other.key_;
    other.pool_ = nullptr;
  }
  return *this;
}

Status WorkspacePool::Lease::release() {
  if (!pool_)
    return Status::success();
  WorkspacePool *pool = pool_;
  pool_ = nullptr;
  return pool->releaseSlot(slot_, stream_, streamId_);
}

} // namespace mlir::teq::runtime::detail
