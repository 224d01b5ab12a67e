//===- WorkspacePool.h - Per-call device state, ordered by stream ----*- C++ -*-===//
//
// What one call of an entry (or one GEMM) needs for itself on the device
// and that two concurrent calls must not share: the entry workspace
// (temporaries, NVFP4's device alpha), the cuBLASLt workspace, and an
// instance of the kernels' module globals (the amax partials and
// accumulators the quantize kernels keep in their module). A pool holds
// *slots* of such state; a call takes one for its stream (acquire), enqueues
// its work, and gives it back (release), which records an event on that
// stream after the call's work. A slot is taken by one call at a time (so
// two threads never interleave their kernels on one slot, even on one
// stream), and its next call is ordered after its last one:
//
//   * on the same stream: stream order does it, nothing to do;
//   * its last use finished (the event completed): nothing to do;
//   * otherwise, if the pool has fewer than `streamSlots` slots, a new slot
//     is allocated (calls on different streams run concurrently, each on
//     its own state); else the call's stream waits on the slot's event
//     (cuStreamWaitEvent: the calls serialize on the GPU, the host does not
//     wait);
//   * every slot is held by a call being enqueued right now: a new slot,
//     whatever `streamSlots` says (host threads are never blocked).
//
// So calls on one stream reuse one slot, calls on k <= streamSlots streams
// that overlap get k slots, and nothing is ever shared unordered.
//
// Streams are told apart by cuStreamGetId (unique for the process's life,
// so a destroyed stream whose handle is reused is a new stream, and
// CU_STREAM_PER_THREAD is one stream per thread). A stream that is
// capturing a CUDA graph gets a slot of its own that is never given back:
// the graph may replay at any time, so its state stays the graph's until
// the pool is destroyed (a graph must not outlive the artifact and the
// Context it captured). Allocation during capture switches the thread to
// relaxed capture mode for the cuMemAlloc.
//
// Each slot has a unique key (never 0): the mgpu* functions give every key
// its own instance of an artifact's kernel modules (Mgpu.h), and the pool
// releases those instances with the slot.
//
// The device operations go through WorkspaceDevice, so the pool's logic is
// tested without a GPU (unittests/Runtime/WorkspacePoolTest.cpp).
//
// No MLIR/LLVM dependency; no cuda.h (streams and events are void *).
//
//===----------------------------------------------------------------------===//

#ifndef TEQ_RUNTIME_WORKSPACEPOOL_H
#define TEQ_RUNTIME_WORKSPACEPOOL_H

#include "teq/Runtime/Export.h"
#include "teq/Runtime/Status.h"

#include <cstddef>
#include <cstdint>
#include <memory>
#include <mutex>
#include <string>
#include <vector>

namespace mlir::teq::runtime::detail {

/// The device operations a WorkspacePool uses. makeCudaWorkspaceDevice is
/// the CUDA driver's; tests substitute their own.
class TEQ_RUNTIME_EXPORT WorkspaceDevice {
public:
  virtual ~WorkspaceDevice();

  struct StreamState {
    uint64_t id = 0;        ///< Unique for the process's life (cuStreamGetId).
    bool capturing = false; ///< Capturing a CUDA graph (id is then 0).
  };
  virtual StatusOr<StreamState> streamState(void *stream) = 0;
  /// `bytes` of device memory (bytes > 0), 256-byte aligned; during a
  /// capture, allocated in relaxed capture mode.
  virtual StatusOr<uint64_t> allocate(uint64_t bytes, bool duringCapture) = 0;
  virtual void free(uint64_t ptr) = 0;
  virtual StatusOr<void *> createEvent() = 0;
  virtual void destroyEvent(void *event) = 0;
  virtual Status recordEvent(void *event, void *stream) = 0;
  /// Whether the work before the event's last record has finished.
  virtual bool eventDone(void *event) = 0;
  virtual Status streamWaitEvent(void *stream, void *event) = 0;
  /// Waits on the host for the event (teardown).
  virtual void synchronizeEvent(void *event) = 0;
  /// Waits for the whole device context (teardown of graph-owned or
  /// retired slots, whose last use is not known).
  virtual void synchronizeContext() = 0;
  /// The slot `key` is gone: release what was attached to it (module
  /// instances, Mgpu.h).
  virtual void releaseSlot(uint64_t key) = 0;
};

/// The CUDA driver's WorkspaceDevice for the CUDA context `cuContext` (a
/// CUcontext), which it makes current for allocations and teardown.
TEQ_RUNTIME_EXPORT std::unique_ptr<WorkspaceDevice>
makeCudaWorkspaceDevice(void *cuContext);

class TEQ_RUNTIME_EXPORT WorkspacePool {
public:
  /// Slots whose streams may run concurrently before a call waits for
  /// another stream's slot instead of allocating one.
  static constexpr size_t kDefaultStreamSlots = 4;

  /// A pool of slots with `bytes` of device memory each (0: no memory, only
  /// the ordering and the module instances). `what` names the memory in
  /// errors ("cannot allocate the 4096-byte entry workspace: ..."). One slot
  /// is allocated now, so that running out of memory is the creator's error.
  static StatusOr<std::unique_ptr<WorkspacePool>>
  create(std::unique_ptr<WorkspaceDevice> device, uint64_t bytes,
         std::string what, size_t streamSlots = kDefaultStreamSlots);

  /// Waits for every slot's last use, then frees them.
  ~WorkspacePool();
  WorkspacePool(const WorkspacePool &) = delete;
  WorkspacePool &operator=(const WorkspacePool &) = delete;

  uint64_t bytes() const { return bytes_; }

  /// One call's slot; gives it back when destroyed (release()).
  class TEQ_RUNTIME_EXPORT Lease {
  public:
    Lease() = default;
    Lease(Lease &&other) noexcept;
    Lease &operator=(Lease &&other) noexcept;
    Lease(const Lease &) = delete;
    Lease &operator=(const Lease &) = delete;
    ~Lease() { (void)release(); }

    explicit operator bool() const { return pool_ != nullptr; }
    /// The slot's memory (0 if the pool's slots have none).
    uint64_t ptr() const { return ptr_; }
    /// The slot's key (Mgpu.h's module instances); 0 for an empty lease.
    uint64_t key() const { return key_; }
    /// Records the slot's event on the stream it was acquired for (after
    /// the work enqueued since) and gives the slot back. If the record
    /// fails, the slot is retired (never used again) and the error
    /// returned. Idempotent.
    Status release();

  private:
    friend class WorkspacePool;
    WorkspacePool *pool_ = nullptr;
    size_t slot_ = 0;
    void *stream_ = nullptr;
    uint64_t streamId_ = 0;
    uint64_t ptr_ = 0;
    uint64_t key_ = 0;
  };

  /// A slot for work on `stream` (see the file comment); when it returns,
  /// the slot may be used by work enqueued on `stream`. Errors: the stream
  /// cannot be queried, allocation, or the cross-stream wait failed.
  StatusOr<Lease> acquire(void *stream);

  using StreamState = WorkspaceDevice::StreamState;
  /// What acquire() asks the device about `stream` (its id, whether it is
  /// capturing), errors prefixed with the pool's name. A stream's state is
  /// the stream's, not the pool's: a call that takes slots of several pools
  /// for one stream (an entry's workspace and its GEMMs' cuBLASLt one)
  /// queries it once and passes it to acquire(stream, state).
  StatusOr<StreamState> streamState(void *stream);
  /// acquire() with the state of `stream` already queried (streamState(),
  /// on this pool or another one of the same device, for the same stream,
  /// and no capture begun or ended on it since).
  StatusOr<Lease> acquire(void *stream, const StreamState &state);

  /// For tests and reports.
  struct Stats {
    size_t slots = 0;       ///< Allocated (graph-owned and retired too).
    size_t held = 0;        ///< Taken by a call right now (and graph-owned).
    size_t captured = 0;    ///< Owned by a captured graph.
    size_t streamWaits = 0; ///< Cross-stream waits enqueued.
  };
  Stats stats() const;

private:
  WorkspacePool() = default;
  struct Slot {
    uint64_t ptr = 0;
    void *event = nullptr;
    uint64_t key = 0;
    uint64_t lastStreamId = 0;
    uint64_t releasedAt = 0; ///< Release sequence number, 0 = never used.
    bool held = false;
    bool captured = false;
    bool retired = false;
  };
  /// A new slot (memory, event, key), not yet in slots_.
  StatusOr<Slot> newSlot(bool duringCapture);
  Status releaseSlot(size_t slot, void *stream, uint64_t streamId);

  std::unique_ptr<WorkspaceDevice> device_;
  uint64_t bytes_ = 0;
  std::string what_;
  size_t streamSlots_ = kDefaultStreamSlots;
  mutable std::mutex mutex_;
  std::vector<Slot> slots_;
  uint64_t releases_ = 0;
  size_t streamWaits_ = 0;
};

} // namespace mlir::teq::runtime::detail

#endif // TEQ_RUNTIME_WORKSPACEPOOL_H
