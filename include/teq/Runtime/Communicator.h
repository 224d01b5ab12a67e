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
// Threads: NCCL communicators must not be used from several threads at
// once; a Communicator serializes the collectives it enqueues. Every rank
// must enqueue the same collectives on a communicator in the same order
// (running the same entries in the same order does that).
//
// No MLIR/LLVM dependency.
//
//===----------------------------------------------------------------------===//

#ifndef TEQ_RUNTIME_COMMUNICATOR_H
#define TEQ_RUNTIME_COMMUNICATOR_H

#include "teq/Runtime/Context.h"
#include "teq/Runtime/Export.h"
#include "teq/Runtime/Manifest.h"
#include "teq/Runtime/Status.h"

#include <array>
#include <cstdint>
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

/// Element types of the collectives' ABI (the `type` argument).
enum class CollectiveType : int32_t {
  Bytes = 0, ///< Opaque bytes (all-gather of quantized data and scales).
  F32 = 1,
  BF16 = 2,
  F16 = 3,
};
/// Reductions of the collectives' ABI (the `op` argument).
enum class ReduceOp : int32_t {
  Sum = 0,
  Max = 1, ///< Amax reduction.
};
/// "bytes", "f32", "bf16", "f16"; "type 7" for unknown values.
TEQ_RUNTIME_EXPORT std::string stringifyCollectiveType(int32_t type);
/// "sum", "max"; "op 7" for unknown values.
TEQ_RUNTIME_EXPORT std::string stringifyReduceOp(int32_t op);
/// Bytes of one element: 1, 4, 2, 2; 0 if unknown.
TEQ_RUNTIME_EXPORT int64_t collectiveTypeBytes(int32_t type);

/// One rank's NCCL communicator of one parallel group, on a Context's GPU.
class TEQ_RUNTIME_EXPORT Communicator {
public:
  /// ncclGetUniqueId. Errors: "NCCL not available: ...", "ncclGetUniqueId
  /// failed: ...".
  static StatusOr<UniqueId> createUniqueId();

  /// ncclCommInitRank on `context`'s device: rank `rank` of `size`. Blocks
  /// until every rank of the group has called it with the same id (so ranks
  /// of one process call it from threads of their own). `name` labels the
  /// group in messages (e.g. "tp"). Errors (before NCCL is called where
  /// possible) start with "communicator 'tp' (rank 1 of 2)", e.g.
  ///   "...: no CUDA context given"
  ///   "...: rank 2 is out of range for a group of 2 ranks"
  ///   "...: the unique id is empty (create it with createUniqueId on one
  ///    rank and pass it to every rank)"
  ///   "...: ncclCommInitRank failed: ncclUnhandledCudaError (...); NCCL:
  ///    ..."
  static StatusOr<std::unique_ptr<Communicator>>
  create(std::shared_ptr<Context> context, const UniqueId &id, int size,
         int rank, std::string name = "");

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
  /// CUstream; null: the context's). The context must be current. Errors
  /// name the collective and NCCL's message:
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
  /// not wait forever. Safe to call from another thread while entries wait
  /// on the communicator's work; later collectives fail ("communicator ...
  /// was aborted"). Idempotent.
  void abort();

private:
  Communicator() = default;
  Status check(const char *collective, int result) const;
  /// reduceScatter (`scatter`) and allReduce: one NCCL signature.
  Status reduce(bool scatter, uint64_t send, uint64_t recv, int64_t count,
                CollectiveType type, ReduceOp op, void *stream) const;
  std::shared_ptr<Context> context_;
  CommunicatorInfo info_;
  void *comm_ = nullptr; ///< ncclComm_t.
  /// NCCL communicators must not be used by two threads at once; comm_ is
  /// read and cleared (abort) under it.
  mutable std::mutex mutex_;
  mutable bool failed_ = false;
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
