//===- Communicator.h - NCCL communicators and the collectives ABI -*- C++ -*-===//
//
// Tensor and sequence parallel entries (te-semantics.md §7) communicate over
// parallel groups: each group is one NCCL communicator that the caller
// creates and passes to every run of the entry, as every NCCL program does.
// One rank creates a unique id (Communicator::createUniqueId), the caller
// hands it to every rank of the group (threads of one process, processes of
// one host or of many: NCCL bootstraps over the network from the id), and
// each rank creates its communicator from it on its own GPU:
//
//   // rank r of n, on its own thread or process, with its own Context
//   auto comm = Communicator::create(context, id, n, r, "tp");
//   RunOptions options;
//   options.communicators = {comm->get()}; // one per group of the entry
//   Status status = entry->run(buffers, options);
//
// The groups an entry needs are in its manifest ("groups": [{"name": "tp",
// "size": 2}], docs/Artifact.md); Entry::run checks the communicators
// against them (count, size, device) before anything runs. The artifact's
// host code calls teqAllGather / teqReduceScatter / teqAllReduce below with
// the group's index; they run NCCL's collective on the entry's stream.
//
// NCCL is loaded at run time (lib/Runtime/Nccl.h, $TEQ_NCCL_LIBRARY):
// nothing here needs it until a unique id or a communicator is made.
//
// Order. NCCL needs every rank to issue a communicator's collectives in the
// same order, and must not be called on one communicator from two threads at
// once (NCCL user guide, "Thread Safety"). The runtime guarantees, per
// communicator:
//   * one thread at a time: a run holds its communicators (RunLock) while it
//     enqueues its entry, so a run's collectives are never interleaved with
//     another run's or another thread's on the same communicator;
//   * device order = host enqueue order, across streams: a collective on a
//     stream other than the previous collective's waits for that one on the
//     device (an event recorded after every collective, cuStreamWaitEvent;
//     detail::StreamSerializer), so two runs on two streams cannot execute
//     their collectives in another order than they were enqueued. Streams
//     capturing a CUDA graph are not ordered: graphs with collectives must
//     be launched in the same order on every rank (NCCL's own rule).
// What the caller must guarantee: every rank enqueues the runs (and direct
// collectives) that use a communicator in the same order. Runs of one rank
// from several threads must therefore be ordered by the caller (which of two
// racing threads gets the communicator first is not the same on every rank;
// a mismatch hangs or mixes data). The order is per communicator: two
// communicators of one GPU used on overlapping streams need one order across
// both too (NCCL's "Using multiple NCCL communicators concurrently").
//
// Errors and aborts. Communicators are created non-blocking
// (ncclCommInitRankConfig, blocking = 0; NCCL 2.14 or later) and the
// runtime waits for NCCL itself (ncclCommGetAsyncError), so that nothing is
// ever stuck inside NCCL: create() can give up when the caller says so
// (CommunicatorOptions: a rank that failed before it joined leaves the others
// waiting in initialization forever otherwise) and abort() can stop a
// communicator at any time, which NCCL allows for non-blocking communicators
// only (NCCL user guide, "Fault Tolerance").
//
// No MLIR/LLVM dependency.
//
//===----------------------------------------------------------------------===//

#ifndef TEQ_RUNTIME_COMMUNICATOR_H
#define TEQ_RUNTIME_COMMUNICATOR_H

#include "teq/Artifact/RuntimeCalls.h"
#include "teq/Runtime/Context.h"
#include "teq/Runtime/Export.h"
#include "teq/Runtime/Manifest.h"
#include "teq/Runtime/Status.h"
#include "teq/Runtime/WorkspacePool.h"

#include <array>
#include <atomic>
#include <cstdint>
#include <functional>
#include <memory>
#include <mutex>
#include <string>
#include <string_view>
#include <vector>

namespace mlir::teq::runtime {

/// NCCL's ncclUniqueId: 128 opaque bytes, created on one rank and given to
/// every rank of the group.
struct TEQ_RUNTIME_EXPORT UniqueId {
  static constexpr size_t kBytes = 128; ///< NCCL_UNIQUE_ID_BYTES.
  std::array<char, kBytes> bytes{};

  /// Whether every byte is zero (never created).
  bool empty() const;
  /// 256 hex digits, for passing the id as text (a command line, a file).
  std::string toHex() const;
  /// The inverse of toHex(); "unique id: expected 256 hex digits, got 12".
  static StatusOr<UniqueId> fromHex(std::string_view text);
};

/// A parallel group an entry communicates over (the manifest's "groups";
/// index i is what the artifact passes as `group`).
using artifact::GroupSpec;

/// What the communicator checks of Entry::run look at.
struct TEQ_RUNTIME_EXPORT CommunicatorInfo {
  std::string name;
  int size = 0;
  int rank = 0;
  int device = 0; ///< CUDA device ordinal.
};

/// Element types and reductions of the collectives' ABI (the `type` and
/// `op` arguments; the compiler emits the same codes).
using artifact::CollectiveType;
using artifact::ReduceOp;
/// "bytes", "f32", "bf16", "f16"; "type 7" for unknown values.
TEQ_RUNTIME_EXPORT std::string stringifyCollectiveType(int32_t type);
/// "sum", "max"; "op 7" for unknown values.
TEQ_RUNTIME_EXPORT std::string stringifyReduceOp(int32_t op);
/// Bytes of one element: 1, 4, 2, 2; 0 if unknown.
TEQ_RUNTIME_EXPORT int64_t collectiveTypeBytes(int32_t type);

/// How Communicator::create waits for the other ranks of the group. With a
/// shouldAbort check or a timeout the communicator is non-blocking (NCCL's
/// config.blocking = 0), so that the wait can be given up; each collective
/// on it then costs more host time (on 2 H100s about 50-70 us per small
/// collective, docs/Parallel.md). Without either it is blocking, as
/// ncclCommInitRank makes it.
struct TEQ_RUNTIME_EXPORT CommunicatorOptions {
  /// Polled (on the creating thread, about every millisecond) while NCCL's
  /// initialization waits for the other ranks; once it returns true the
  /// pending communicator is aborted (ncclCommAbort) and create() fails
  /// ("...: initialization aborted: ..."). E.g. "another rank of this job
  /// failed". Empty: never.
  std::function<bool()> shouldAbort;
  /// What the error says when shouldAbort stopped the initialization.
  std::string abortReason = "the caller's abort check returned true";
  /// Gives up (aborting the pending communicator) after this many seconds;
  /// 0: waits as long as it takes (NCCL's own timeouts aside).
  double timeoutSeconds = 0;
};

namespace detail {
/// The outcome of pollWhileInProgress.
struct PollResult {
  int result = 0;        ///< The last ncclResult_t `query` returned.
  bool aborted = false;  ///< shouldAbort returned true first.
  bool timedOut = false; ///< The timeout passed first.
};
/// ncclInProgress.
constexpr int kNcclInProgress = 7;
/// Calls `query` (an NCCL state: ncclCommGetAsyncError's) until it returns
/// something other than ncclInProgress, checking `shouldAbort` (may be
/// empty) and the timeout (seconds; 0: none) between calls. How create()
/// and the collectives wait for a non-blocking communicator.
TEQ_RUNTIME_EXPORT PollResult
pollWhileInProgress(const std::function<int()> &query,
                    const std::function<bool()> &shouldAbort,
                    double timeoutSeconds);

/// Orders work that one object enqueues on several streams in the order it
/// is enqueued on the host: begin(stream) makes `stream` wait
/// (cuStreamWaitEvent) for the work enqueued between the previous
/// begin()/end() pair if that was on another stream; end() records the
/// event on `stream` after the work. A stream capturing a CUDA graph is left
/// alone (neither waits nor records: the graph runs when it is launched).
/// Not thread-safe: the caller serializes begin/end pairs (a Communicator's
/// lock). The device operations go through WorkspaceDevice, so it is tested
/// without a GPU.
class TEQ_RUNTIME_EXPORT StreamSerializer {
public:
  static StatusOr<std::unique_ptr<StreamSerializer>>
  create(std::unique_ptr<WorkspaceDevice> device);
  ~StreamSerializer();
  StreamSerializer(const StreamSerializer &) = delete;
  StreamSerializer &operator=(const StreamSerializer &) = delete;

  /// Before enqueueing on `stream`. Errors: the stream cannot be queried, or
  /// the wait failed ("cannot order ... (cuStreamWaitEvent): ...").
  Status begin(void *stream);
  /// After enqueueing on the stream of the last begin().
  Status end();

  struct Stats {
    size_t waits = 0;   ///< Cross-stream waits enqueued.
    size_t records = 0; ///< Events recorded.
  };
  Stats stats() const { return stats_; }

private:
  StreamSerializer() = default;
  std::unique_ptr<WorkspaceDevice> device_;
  void *event_ = nullptr;
  void *stream_ = nullptr;    ///< Of the current begin(); null if capturing.
  uint64_t streamId_ = 0;     ///< Of the current begin().
  uint64_t lastStreamId_ = 0; ///< Where event_ was last recorded; 0: never.
  Stats stats_;
};
} // namespace detail

/// One rank's NCCL communicator of one parallel group, on a Context's GPU.
class TEQ_RUNTIME_EXPORT Communicator {
public:
  /// ncclGetUniqueId. Errors: "NCCL not available: ...", "ncclGetUniqueId
  /// failed: ...".
  static StatusOr<UniqueId> createUniqueId();

  /// A non-blocking NCCL communicator (ncclCommInitRankConfig with
  /// blocking = 0) on `context`'s device: rank `rank` of `size`. Returns
  /// once every rank of the group has called it with the same id (so ranks
  /// of one process call it from threads of their own), or once `options`
  /// say to give up. `name` labels the group in messages (e.g. "tp").
  /// Errors (before NCCL is called where possible) start with
  /// "communicator 'tp' (rank 1 of 2)", e.g.
  ///   "...: no CUDA context given"
  ///   "...: rank 2 is out of range for a group of 2 ranks"
  ///   "...: the unique id is empty (create it with createUniqueId on one
  ///    rank and pass it to every rank)"
  ///   "...: the timeout must be 0 (none) or positive, got -1"
  ///   "...: ncclCommInitRankConfig failed: ncclUnhandledCudaError (...);
  ///    NCCL: ..."
  ///   "...: initialization aborted: another rank failed"
  ///   "...: initialization timed out after 30 s: not every rank of the
  ///    group joined (each must create its communicator from the same
  ///    unique id)"
  static StatusOr<std::unique_ptr<Communicator>>
  create(std::shared_ptr<Context> context, const UniqueId &id, int size,
         int rank, std::string name = "");
  static StatusOr<std::unique_ptr<Communicator>>
  create(std::shared_ptr<Context> context, const UniqueId &id, int size,
         int rank, std::string name, const CommunicatorOptions &options);

  /// ncclCommDestroy, or ncclCommAbort once NCCL reported an error.
  ~Communicator();
  Communicator(const Communicator &) = delete;
  Communicator &operator=(const Communicator &) = delete;

  const std::string &name() const { return info_.name; }
  int size() const { return info_.size; }
  int rank() const { return info_.rank; }
  const CommunicatorInfo &info() const { return info_; }
  const std::shared_ptr<Context> &context() const { return context_; }
  /// The ncclComm_t (for code that includes nccl.h itself).
  void *ncclComm() const { return comm_; }
  /// "communicator 'tp' (rank 1 of 2)".
  std::string describe() const;

  /// ncclAllGather of `sendCount` elements from every rank into `recv`
  /// (size * sendCount elements, rank r's at r * sendCount) on `stream` (a
  /// CUstream; null: the context's). The context must be current. Ordered
  /// after this communicator's previous collective even if that was on
  /// another stream (see "Order" above); returns once NCCL has enqueued it.
  /// Errors name the collective and NCCL's message:
  ///   "all-gather on communicator 'tp' (rank 0 of 2): ncclAllGather
  ///    failed: ncclInvalidArgument (invalid argument); NCCL: ..."
  Status allGather(uint64_t send, uint64_t recv, int64_t sendCount,
                   CollectiveType type, void *stream) const;
  /// ncclReduceScatter: `recv` gets `recvCount` elements, block `rank` of
  /// the reduction of every rank's `send` (size * recvCount elements).
  Status reduceScatter(uint64_t send, uint64_t recv, int64_t recvCount,
                       CollectiveType type, ReduceOp op, void *stream) const;
  /// ncclAllReduce of `count` elements.
  Status allReduce(uint64_t send, uint64_t recv, int64_t count,
                   CollectiveType type, ReduceOp op, void *stream) const;

  /// An error NCCL found while collectives ran (ncclCommGetAsyncError: a
  /// peer failed, the network broke): "communicator 'tp' (rank 0 of 2):
  /// NCCL reported ncclRemoteError (...)". Success if none.
  Status asyncError() const;

  /// ncclCommAbort: stops this rank's collectives (NCCL's kernels waiting
  /// for a peer that failed return), so that a rank whose peer failed does
  /// not wait forever. Safe to call from another thread at any time, also
  /// while a run holds the communicator (a collective still being enqueued
  /// stops waiting for NCCL and fails); later collectives fail
  /// ("communicator ... was aborted"). Idempotent.
  void abort();

  /// Holds communicators for one run (Entry::run makes one around the
  /// entry): until it is destroyed, no other thread enqueues collectives on
  /// them, so the run's collectives stay together in every rank's order.
  /// Locks each distinct communicator once, in address order (no deadlock
  /// between runs over overlapping sets); null entries are skipped. The
  /// holding thread's own collectives go through.
  class TEQ_RUNTIME_EXPORT RunLock {
  public:
    explicit RunLock(const std::vector<const Communicator *> &communicators);
    ~RunLock();
    RunLock(const RunLock &) = delete;
    RunLock &operator=(const RunLock &) = delete;

  private:
    std::vector<const Communicator *> held_;
  };

private:
  Communicator() = default;
  Status check(const char *collective, int result) const;
  /// reduceScatter (`scatter`) and allReduce: one NCCL signature.
  Status reduce(bool scatter, uint64_t send, uint64_t recv, int64_t count,
                CollectiveType type, ReduceOp op, void *stream) const;
  /// The body every collective shares once its arguments are checked: the
  /// locks, the cross-stream order, `launch` (the NCCL call on a stream),
  /// waiting while NCCL reports ncclInProgress, NCCL's errors.
  Status enqueue(const std::string &what, const char *call, void *stream,
                 const std::function<int(void *comm, void *stream)> &launch)
      const;
  /// Waits (mutex_ held) while NCCL is still enqueuing in the background
  /// (ncclInProgress), unless abort() is called meanwhile.
  int waitWhileInProgress() const;
  std::shared_ptr<Context> context_;
  CommunicatorInfo info_;
  void *comm_ = nullptr; ///< ncclComm_t.
  /// Held by a run (RunLock) while it enqueues its entry, and by every
  /// collective (recursively, for the run's own).
  mutable std::recursive_mutex runMutex_;
  /// NCCL communicators must not be used by two threads at once; comm_,
  /// serializer_ and failed_ are used under it.
  mutable std::mutex mutex_;
  mutable bool failed_ = false;
  /// Set by abort() before it takes mutex_, so that a thread waiting for
  /// NCCL under mutex_ lets go.
  std::atomic<bool> abortRequested_{false};
  std::unique_ptr<detail::StreamSerializer> serializer_;
};

/// The checks Entry::run makes before it runs an entry of `groups` with
/// `communicators` (one per group, in order) on CUDA device `device`:
///   "entry 'mlp' needs 1 communicator (group 'tp' of 2 ranks), got 0: pass
///    one per group in RunOptions::communicators"
///   "entry 'mlp': group 0 ('tp') has 2 ranks, but its communicator 'x' has
///    4 (it is rank 1 of 4)"
///   "entry 'mlp': the communicator for group 0 ('tp') is on CUDA device 1,
///    but the artifact runs on device 0"
/// `communicators` may hold null entries (an error: "no communicator given
/// for group 0 ('tp')").
TEQ_RUNTIME_EXPORT Status
checkCommunicators(const std::string &entryName,
                   const std::vector<GroupSpec> &groups,
                   const std::vector<const CommunicatorInfo *> &communicators,
                   int device);

namespace detail {
/// While alive on a thread, teqAllGather / teqReduceScatter / teqAllReduce
/// run on `communicators` (the entry's, one per group of `groups`; checked
/// by checkCommunicators) on the stream of the thread's MgpuScope. Entry::run
/// makes one around the entry call. Nests; without one the calls record
/// "... called with no communicators current on this thread".
class TEQ_RUNTIME_EXPORT CollectiveScope {
public:
  CollectiveScope(const std::vector<GroupSpec> *groups,
                  const std::vector<const Communicator *> *communicators);
  ~CollectiveScope();
  CollectiveScope(const CollectiveScope &) = delete;
  CollectiveScope &operator=(const CollectiveScope &) = delete;

  struct State {
    const std::vector<GroupSpec> *groups = nullptr;
    const std::vector<const Communicator *> *communicators = nullptr;
  };

private:
  State state_;
  const State *saved_;
};
} // namespace detail

} // namespace mlir::teq::runtime

// The collectives an artifact's host code calls (docs/Artifact.md,
// "Collectives"), like teqGemm: `group` indexes the entry's "groups",
// pointers are device addresses, counts are elements of `type`
// (CollectiveType), `op` a ReduceOp. Errors are recorded as the entry's (the
// mgpu error state, Mgpu.h), naming the collective, the group and NCCL's
// message; while one is recorded the calls do nothing.
extern "C" {
TEQ_RUNTIME_EXPORT void teqAllGather(int64_t group, uint64_t send,
                                     uint64_t recv, int64_t sendCount,
                                     int32_t type);
TEQ_RUNTIME_EXPORT void teqReduceScatter(int64_t group, uint64_t send,
                                         uint64_t recv, int64_t recvCount,
                                         int32_t type, int32_t op);
TEQ_RUNTIME_EXPORT void teqAllReduce(int64_t group, uint64_t send,
                                     uint64_t recv, int64_t count, int32_t type,
                                     int32_t op);
} // extern "C"

#endif // TEQ_RUNTIME_COMMUNICATOR_H
