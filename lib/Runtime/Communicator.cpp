//===- Communicator.cpp - NCCL communicators and the collectives ABI ------===//

#include "teq/Runtime/Communicator.h"

#include "teq/Runtime/Mgpu.h"

#include "Driver.h"
#include "Internal.h"
#include "Nccl.h"

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstring>
#include <thread>

namespace mlir::teq::runtime {

using detail::describeNcclResult;
using detail::getNccl;

//===----------------------------------------------------------------------===//
// UniqueId and the ABI's enums
//===----------------------------------------------------------------------===//

static_assert(UniqueId::kBytes == sizeof(ncclUniqueId),
              "UniqueId must hold an ncclUniqueId");

bool UniqueId::empty() const {
  for (char byte : bytes)
    if (byte)
      return false;
  return true;
}

std::string UniqueId::toHex() const {
  static const char kDigits[] = "0123456789abcdef";
  std::string text;
  text.reserve(2 * kBytes);
  for (char byte : bytes) {
    unsigned char value = static_cast<unsigned char>(byte);
    text += kDigits[value >> 4];
    text += kDigits[value & 15];
  }
  return text;
}

StatusOr<UniqueId> UniqueId::fromHex(std::string_view text) {
  if (text.size() != 2 * kBytes)
    return Status::error("unique id: expected " + std::to_string(2 * kBytes) +
                         " hex digits, got " + std::to_string(text.size()));
  auto digit = [](char c) -> int {
    if (c >= '0' && c <= '9')
      return c - '0';
    if (c >= 'a' && c <= 'f')
      return c - 'a' + 10;
    if (c >= 'A' && c <= 'F')
      return c - 'A' + 10;
    return -1;
  };
  UniqueId id;
  for (size_t i = 0; i < kBytes; ++i) {
    int high = digit(text[2 * i]), low = digit(text[2 * i + 1]);
    if (high < 0 || low < 0)
      return Status::error("unique id: '" +
                           std::string(1, text[2 * i + (high < 0 ? 0 : 1)]) +
                           "' at position " +
                           std::to_string(2 * i + (high < 0 ? 0 : 1)) +
                           " is not a hex digit");
    id.bytes[i] = static_cast<char>((high << 4) | low);
  }
  return id;
}

std::string stringifyCollectiveType(int32_t type) {
  switch (static_cast<CollectiveType>(type)) {
  case CollectiveType::Bytes:
    return "bytes";
  case CollectiveType::F32:
    return "f32";
  case CollectiveType::BF16:
    return "bf16";
  case CollectiveType::F16:
    return "f16";
  }
  return "type " + std::to_string(type);
}

std::string stringifyReduceOp(int32_t op) {
  switch (static_cast<ReduceOp>(op)) {
  case ReduceOp::Sum:
    return "sum";
  case ReduceOp::Max:
    return "max";
  }
  return "op " + std::to_string(op);
}

int64_t collectiveTypeBytes(int32_t type) {
  switch (static_cast<CollectiveType>(type)) {
  case CollectiveType::Bytes:
    return 1;
  case CollectiveType::F32:
    return 4;
  case CollectiveType::BF16:
  case CollectiveType::F16:
    return 2;
  }
  return 0;
}

namespace {

ncclDataType_t ncclType(CollectiveType type) {
  switch (type) {
  case CollectiveType::Bytes:
    return ncclUint8;
  case CollectiveType::F32:
    return ncclFloat32;
  case CollectiveType::BF16:
    return ncclBfloat16;
  case CollectiveType::F16:
    return ncclFloat16;
  }
  return ncclUint8;
}

ncclRedOp_t ncclOp(ReduceOp op) {
  return op == ReduceOp::Max ? ncclMax : ncclSum;
}

/// "30 s", "0.5 s".
std::string formatSeconds(double seconds) {
  char text[32];
  std::snprintf(text, sizeof(text), "%g s", seconds);
  return text;
}

std::string describeGroup(const std::string &name, int rank, int size) {
  return "communicator" + (name.empty() ? std::string() : " '" + name + "'") +
         " (rank " + std::to_string(rank) + " of " + std::to_string(size) +
         ")";
}

/// The checks every collective makes of its arguments (the ABI's integers
/// come from compiled code, so they are checked, not trusted).
Status checkArguments(const char *collective, uint64_t send, uint64_t recv,
                      int64_t count, int32_t type, int32_t op,
                      bool reduces) {
  const std::string what = collective;
  if (collectiveTypeBytes(type) == 0)
    return Status::error(what + ": unknown element type " +
                         std::to_string(type));
  if (reduces && static_cast<CollectiveType>(type) == CollectiveType::Bytes)
    return Status::error(what + ": cannot reduce opaque bytes (element type "
                                "'bytes'); reductions need f32, bf16 or f16");
  if (reduces && op != static_cast<int32_t>(ReduceOp::Sum) &&
      op != static_cast<int32_t>(ReduceOp::Max))
    return Status::error(what + ": unknown reduction " + std::to_string(op));
  if (count < 0)
    return Status::error(what + ": negative element count " +
                         std::to_string(count));
  if (count > 0 && (!send || !recv))
    return Status::error(what + ": null " +
                         std::string(!send ? "send" : "receive") + " buffer");
  return Status::success();
}

} // namespace

//===----------------------------------------------------------------------===//
// Waiting for NCCL, ordering streams
//===----------------------------------------------------------------------===//

static_assert(detail::kNcclInProgress == ncclInProgress,
              "kNcclInProgress must be NCCL's ncclInProgress");

namespace detail {

PollResult pollWhileInProgress(const std::function<int()> &query,
                               const std::function<bool()> &shouldAbort,
                               double timeoutSeconds) {
  using Clock = std::chrono::steady_clock;
  const Clock::time_point start = Clock::now();
  PollResult poll;
  for (;;) {
    poll.result = query();
    if (poll.result != kNcclInProgress)
      return poll;
    if (shouldAbort && shouldAbort()) {
      poll.aborted = true;
      return poll;
    }
    if (timeoutSeconds > 0 &&
        std::chrono::duration<double>(Clock::now() - start).count() >=
            timeoutSeconds) {
      poll.timedOut = true;
      return poll;
    }
    // A collective's enqueue on a non-blocking communicator is usually done
    // within microseconds, and every sleep would add its length to the
    // step (on 2 H100s, 64 yields then 50 us sleeps made a TP/SP MLP step
    // of 130 us take 490): spin, yielding to NCCL's thread, for the first
    // millisecond. An initialization takes milliseconds to seconds.
    const double waited =
        std::chrono::duration<double>(Clock::now() - start).count();
    if (waited < 1e-3)
      std::this_thread::yield();
    else
      std::this_thread::sleep_for(
          std::chrono::microseconds(waited < 0.1 ? 20 : 1000));
  }
}

StatusOr<std::unique_ptr<StreamSerializer>>
StreamSerializer::create(std::unique_ptr<WorkspaceDevice> device) {
  if (!device)
    return Status::error("StreamSerializer: no device");
  auto event = device->createEvent();
  if (!event.ok())
    return event.status();
  std::unique_ptr<StreamSerializer> serializer(new StreamSerializer());
  serializer->device_ = std::move(device);
  serializer->event_ = *event;
  return serializer;
}

StreamSerializer::~StreamSerializer() {
  // A pending event may be destroyed: CUDA releases it once it completes.
  if (device_ && event_)
    device_->destroyEvent(event_);
}

Status StreamSerializer::begin(void *stream) {
  stream_ = nullptr;
  auto state = device_->streamState(stream);
  if (!state.ok())
    return state.status();
  if (state->capturing)
    return Status::success(); // ordered by the graph's launch
  stream_ = stream;
  streamId_ = state->id;
  if (lastStreamId_ != 0 && lastStreamId_ != streamId_) {
    TEQ_RETURN_IF_ERROR(device_->streamWaitEvent(stream, event_));
    ++stats_.waits;
  }
  return Status::success();
}

Status StreamSerializer::end() {
  if (!stream_)
    return Status::success();
  void *stream = stream_;
  stream_ = nullptr;
  Status status = device_->recordEvent(event_, stream);
  if (!status.ok()) {
    // The next collective cannot be ordered after this one; forget it
    // rather than wait on a stale record.
    lastStreamId_ = 0;
    return status;
  }
  ++stats_.records;
  lastStreamId_ = streamId_;
  return Status::success();
}

} // namespace detail

//===----------------------------------------------------------------------===//
// Communicator
//===----------------------------------------------------------------------===//

StatusOr<UniqueId> Communicator::createUniqueId() {
  auto nccl = getNccl();
  if (!nccl.ok())
    return nccl.status();
  ncclUniqueId raw;
  ncclResult_t result = (*nccl)->ncclGetUniqueId(&raw);
  if (result != ncclSuccess)
    return Status::error("ncclGetUniqueId failed: " +
                         describeNcclResult(result, nullptr));
  UniqueId id;
  std::memcpy(id.bytes.data(), &raw, UniqueId::kBytes);
  return id;
}

StatusOr<std::unique_ptr<Communicator>>
Communicator::create(std::shared_ptr<Context> context, const UniqueId &id,
                     int size, int rank, std::string name) {
  return create(std::move(context), id, size, rank, std::move(name),
                CommunicatorOptions());
}

StatusOr<std::unique_ptr<Communicator>>
Communicator::create(std::shared_ptr<Context> context, const UniqueId &id,
                     int size, int rank, std::string name,
                     const CommunicatorOptions &options) {
  const std::string prefix = describeGroup(name, rank, size);
  if (size < 1)
    return Status::error(prefix + ": a group needs at least 1 rank, got " +
                         std::to_string(size));
  if (rank < 0 || rank >= size)
    return Status::error(prefix + ": rank " + std::to_string(rank) +
                         " is out of range for a group of " +
                         std::to_string(size) +
                         (size == 1 ? " rank" : " ranks"));
  if (id.empty())
    return Status::error(prefix + ": the unique id is empty (create it with "
                                  "createUniqueId on one rank and pass it to "
                                  "every rank)");
  if (!(options.timeoutSeconds >= 0))
    return Status::error(prefix + ": the timeout must be 0 (none) or "
                                  "positive, got " +
                         formatSeconds(options.timeoutSeconds));
  if (!context)
    return Status::error(prefix + ": no CUDA context given");
  auto nccl = getNccl();
  if (!nccl.ok())
    return nccl.status().withPrefix(prefix);
  const detail::Nccl &api = **nccl;
  // NCCL takes the device from the current CUDA context.
  TEQ_RETURN_IF_ERROR(context->makeCurrent().withPrefix(prefix));
  ncclUniqueId raw;
  std::memcpy(&raw, id.bytes.data(), UniqueId::kBytes);
  // Non-blocking where the caller may give the wait for the other ranks up
  // (NCCL user guide, "Fault Tolerance"); the collectives then wait while
  // NCCL reports ncclInProgress (enqueue()). That costs host time on every
  // collective: on 2 H100s a TP/SP MLP step with 3-4 small collectives took
  // 356 us forward against 139 us with a blocking communicator (te-run
  // --nranks 2 --bench, NCCL_COMM_BLOCKING=0 vs 1). So blocking otherwise,
  // as NCCL's ncclCommInitRank is; abort() still stops hung collectives.
  ncclConfig_t config = NCCL_CONFIG_INITIALIZER;
  config.blocking =
      options.shouldAbort || options.timeoutSeconds > 0 ? 0 : 1;
  ncclComm_t comm = nullptr;
  ncclResult_t result =
      api.ncclCommInitRankConfig(&comm, size, raw, rank, &config);
  auto abandon = [&] {
    if (comm)
      (void)api.ncclCommAbort(comm);
  };
  if (result == ncclInProgress) {
    detail::PollResult poll = detail::pollWhileInProgress(
        [&] {
          ncclResult_t state = ncclSuccess;
          ncclResult_t queried = api.ncclCommGetAsyncError(comm, &state);
          return static_cast<int>(queried != ncclSuccess ? queried : state);
        },
        options.shouldAbort, options.timeoutSeconds);
    if (poll.aborted || poll.timedOut) {
      abandon();
      if (poll.aborted)
        return Status::error(prefix + ": initialization aborted: " +
                             options.abortReason);
      return Status::error(
          prefix + ": initialization timed out after " +
          formatSeconds(options.timeoutSeconds) +
          ": not every rank of the group joined (each must create its "
          "communicator from the same unique id)");
    }
    result = static_cast<ncclResult_t>(poll.result);
  }
  if (result != ncclSuccess) {
    std::string message = describeNcclResult(result, comm);
    abandon();
    return Status::error(prefix + ": ncclCommInitRankConfig failed: " +
                         message);
  }
  std::unique_ptr<Communicator> communicator(new Communicator());
  communicator->context_ = std::move(context);
  communicator->comm_ = comm; // destroyed by ~Communicator from here on
  communicator->info_.name = std::move(name);
  communicator->info_.size = size;
  communicator->info_.rank = rank;
  int device = -1;
  result = api.ncclCommCuDevice(comm, &device);
  if (result != ncclSuccess)
    return Status::error(prefix + ": ncclCommCuDevice failed: " +
                         describeNcclResult(result, comm));
  communicator->info_.device = device;
  const int expected = communicator->context_->device().ordinal;
  if (device != expected)
    return Status::error(prefix + ": NCCL put the communicator on CUDA "
                                  "device " +
                         std::to_string(device) + ", not the context's " +
                         std::to_string(expected));
  auto serializer = detail::StreamSerializer::create(
      detail::makeCudaWorkspaceDevice(communicator->context_->cuContext()));
  if (!serializer.ok())
    return serializer.status().withPrefix(prefix);
  communicator->serializer_ = std::move(*serializer);
  return communicator;
}

Communicator::~Communicator() {
  detail::CurrentContextRestorer restorer;
  if (context_)
    (void)context_->makeCurrent();
  serializer_.reset(); // its CUDA event, in the communicator's context
  if (!comm_)
    return; // never created, or aborted
  auto nccl = getNccl();
  if (!nccl.ok())
    return;
  ncclComm_t comm = static_cast<ncclComm_t>(comm_);
  // Destroying a communicator whose peers failed can wait forever.
  if (failed_)
    (void)(*nccl)->ncclCommAbort(comm);
  else
    (void)(*nccl)->ncclCommDestroy(comm);
}

void Communicator::abort() {
  // First, so that a thread waiting for NCCL under mutex_ lets go of it.
  abortRequested_ = true;
  std::lock_guard<std::mutex> lock(mutex_);
  if (!comm_)
    return;
  auto nccl = getNccl();
  if (!nccl.ok())
    return;
  // Any thread may abort any rank's communicator.
  detail::CurrentContextRestorer restorer;
  if (context_)
    (void)context_->makeCurrent();
  (void)(*nccl)->ncclCommAbort(static_cast<ncclComm_t>(comm_));
  comm_ = nullptr;
  failed_ = true;
}

Communicator::RunLock::RunLock(
    const std::vector<const Communicator *> &communicators) {
  for (const Communicator *comm : communicators)
    if (comm)
      held_.push_back(comm);
  std::sort(held_.begin(), held_.end(), std::less<const Communicator *>());
  held_.erase(std::unique(held_.begin(), held_.end()), held_.end());
  for (const Communicator *comm : held_)
    comm->runMutex_.lock();
}

Communicator::RunLock::~RunLock() {
  for (auto it = held_.rbegin(); it != held_.rend(); ++it)
    (*it)->runMutex_.unlock();
}

std::string Communicator::describe() const {
  return describeGroup(info_.name, info_.rank, info_.size);
}

Status Communicator::check(const char *collective, int result) const {
  if (result == ncclSuccess)
    return Status::success();
  failed_ = true;
  return Status::error(std::string(collective) + " failed: " +
                       describeNcclResult(static_cast<ncclResult_t>(result),
                                          static_cast<ncclComm_t>(comm_)));
}

Status Communicator::allGather(uint64_t send, uint64_t recv, int64_t sendCount,
                               CollectiveType type, void *stream) const {
  const std::string what = "all-gather on " + describe();
  TEQ_RETURN_IF_ERROR(checkArguments(what.c_str(), send, recv, sendCount,
                                     static_cast<int32_t>(type), 0,
                                     /*reduces=*/false));
  if (sendCount == 0)
    return Status::success();
  auto nccl = getNccl();
  if (!nccl.ok())
    return nccl.status().withPrefix(what);
  return enqueue(what, "ncclAllGather", stream,
                 [&](void *comm, void *cudaStream) {
                   return static_cast<int>((*nccl)->ncclAllGather(
                       reinterpret_cast<const void *>(send),
                       reinterpret_cast<void *>(recv),
                       static_cast<size_t>(sendCount), ncclType(type),
                       static_cast<ncclComm_t>(comm),
                       static_cast<cudaStream_t>(cudaStream)));
                 });
}

Status Communicator::reduceScatter(uint64_t send, uint64_t recv,
                                   int64_t recvCount, CollectiveType type,
                                   ReduceOp op, void *stream) const {
  return reduce(/*scatter=*/true, send, recv, recvCount, type, op, stream);
}

Status Communicator::allReduce(uint64_t send, uint64_t recv, int64_t count,
                               CollectiveType type, ReduceOp op,
                               void *stream) const {
  return reduce(/*scatter=*/false, send, recv, count, type, op, stream);
}

Status Communicator::reduce(bool scatter, uint64_t send, uint64_t recv,
                            int64_t count, CollectiveType type, ReduceOp op,
                            void *stream) const {
  const std::string what =
      std::string(scatter ? "reduce-scatter (" : "all-reduce (") +
      stringifyReduceOp(static_cast<int32_t>(op)) + ") on " + describe();
  TEQ_RETURN_IF_ERROR(checkArguments(what.c_str(), send, recv, count,
                                     static_cast<int32_t>(type),
                                     static_cast<int32_t>(op),
                                     /*reduces=*/true));
  if (count == 0)
    return Status::success();
  auto nccl = getNccl();
  if (!nccl.ok())
    return nccl.status().withPrefix(what);
  // Same signature: count is the received elements of a reduce-scatter,
  // the elements of an all-reduce.
  auto collective =
      scatter ? (*nccl)->ncclReduceScatter : (*nccl)->ncclAllReduce;
  return enqueue(what, scatter ? "ncclReduceScatter" : "ncclAllReduce",
                 stream, [&](void *comm, void *cudaStream) {
                   return static_cast<int>(collective(
                       reinterpret_cast<const void *>(send),
                       reinterpret_cast<void *>(recv),
                       static_cast<size_t>(count), ncclType(type), ncclOp(op),
                       static_cast<ncclComm_t>(comm),
                       static_cast<cudaStream_t>(cudaStream)));
                 });
}

int Communicator::waitWhileInProgress() const {
  const detail::Nccl &api = **getNccl();
  detail::PollResult poll = detail::pollWhileInProgress(
      [&] {
        ncclResult_t state = ncclSuccess;
        ncclResult_t queried =
            api.ncclCommGetAsyncError(static_cast<ncclComm_t>(comm_), &state);
        return static_cast<int>(queried != ncclSuccess ? queried : state);
      },
      [&] { return abortRequested_.load(); }, /*timeoutSeconds=*/0);
  return poll.aborted ? -1 : poll.result;
}

Status Communicator::enqueue(
    const std::string &what, const char *call, void *stream,
    const std::function<int(void *comm, void *stream)> &launch) const {
  // A run holding the communicator (RunLock) keeps other threads out until
  // it has enqueued its entry; its own collectives pass (recursive).
  std::lock_guard<std::recursive_mutex> runLock(runMutex_);
  std::lock_guard<std::mutex> lock(mutex_);
  if (!comm_ || abortRequested_)
    return Status::error(what + ": the communicator was aborted");
  void *cudaStream = stream ? stream : context_->stream();
  // After the previous collective on this communicator, whatever stream it
  // was on: every rank executes them in the order they were enqueued.
  TEQ_RETURN_IF_ERROR(serializer_->begin(cudaStream).withPrefix(
      what + ": cannot order it after the communicator's previous collective"));
  int result = launch(comm_, cudaStream);
  if (result == ncclInProgress) {
    // Still being enqueued in the background (a non-blocking communicator,
    // e.g. while NCCL connects to the peers on first use): NCCL must finish
    // before anything else goes on the stream or the communicator.
    result = waitWhileInProgress();
    if (result == -1) {
      failed_ = true;
      return Status::error(what + ": the communicator was aborted while "
                                  "NCCL was enqueuing " +
                           call);
    }
  }
  TEQ_RETURN_IF_ERROR(check(call, result).withPrefix(what));
  return serializer_->end().withPrefix(
      what + ": cannot order the communicator's next collective after it");
}

Status Communicator::asyncError() const {
  auto nccl = getNccl();
  if (!nccl.ok())
    return nccl.status().withPrefix(describe());
  std::lock_guard<std::mutex> lock(mutex_);
  if (!comm_)
    return Status::error(describe() + ": the communicator was aborted");
  ncclResult_t asyncResult = ncclSuccess;
  ncclResult_t result = (*nccl)->ncclCommGetAsyncError(
      static_cast<ncclComm_t>(comm_), &asyncResult);
  if (result != ncclSuccess)
    return check("ncclCommGetAsyncError", result).withPrefix(describe());
  if (asyncResult == ncclSuccess || asyncResult == ncclInProgress)
    return Status::success();
  failed_ = true;
  return Status::error(describe() + ": NCCL reported " +
                       describeNcclResult(asyncResult,
                                          static_cast<ncclComm_t>(comm_)));
}

//===----------------------------------------------------------------------===//
// The checks before a run
//===----------------------------------------------------------------------===//

Status
checkCommunicators(const std::string &entryName,
                   const std::vector<GroupSpec> &groups,
                   const std::vector<const CommunicatorInfo *> &communicators,
                   int device) {
  const std::string prefix = "entry '" + entryName + "'";
  auto describeGroups = [&] {
    std::string text;
    for (const GroupSpec &group : groups)
      text += (text.empty() ? "" : ", ") +
              ("group '" + group.name + "' of " +
               (group.size == 0 ? std::string("any size")
                                : std::to_string(group.size) +
                                      (group.size == 1 ? " rank" : " ranks")));
    return text;
  };
  if (communicators.size() != groups.size()) {
    if (groups.empty())
      return Status::error(prefix + " communicates over no group, but " +
                           std::to_string(communicators.size()) +
                           (communicators.size() == 1 ? " communicator was"
                                                      : " communicators were") +
                           " given");
    return Status::error(
        prefix + " needs " + std::to_string(groups.size()) +
        (groups.size() == 1 ? " communicator (" : " communicators (") +
        describeGroups() + "), got " + std::to_string(communicators.size()) +
        ": pass one per group, in this order, in RunOptions::communicators");
  }
  for (size_t i = 0; i < groups.size(); ++i) {
    const GroupSpec &group = groups[i];
    const std::string which =
        "group " + std::to_string(i) + " ('" + group.name + "')";
    const CommunicatorInfo *comm = communicators[i];
    if (!comm)
      return Status::error(prefix + ": no communicator given for " + which);
    const std::string commName =
        comm->name.empty() ? std::string() : " '" + comm->name + "'";
    if (group.size != 0 && comm->size != group.size) // 0: any size
      return Status::error(
          prefix + ": " + which + " has " + std::to_string(group.size) +
          (group.size == 1 ? " rank" : " ranks") + ", but its communicator" +
          commName + " has " + std::to_string(comm->size) + " (it is rank " +
          std::to_string(comm->rank) + " of " + std::to_string(comm->size) +
          ")");
    if (comm->rank < 0 || comm->rank >= comm->size)
      return Status::error(prefix + ": the communicator" + commName + " for " +
                           which + " has rank " + std::to_string(comm->rank) +
                           ", out of range for " + std::to_string(comm->size) +
                           " ranks");
    if (comm->device != device)
      return Status::error(prefix + ": the communicator" + commName + " for " +
                           which + " is on CUDA device " +
                           std::to_string(comm->device) +
                           ", but the artifact runs on device " +
                           std::to_string(device));
  }
  return Status::success();
}

//===----------------------------------------------------------------------===//
// CollectiveScope and the ABI
//===----------------------------------------------------------------------===//

namespace {
/// The communicators the collectives use on this thread (CollectiveScope).
thread_local const detail::CollectiveScope::State *currentCollectives =
    nullptr;
} // namespace

namespace detail {
CollectiveScope::CollectiveScope(
    const std::vector<GroupSpec> *groups,
    const std::vector<const Communicator *> *communicators)
    : saved_(currentCollectives) {
  state_.groups = groups;
  state_.communicators = communicators;
  currentCollectives = &state_;
}

CollectiveScope::~CollectiveScope() { currentCollectives = saved_; }
} // namespace detail

namespace {

/// The communicator of `group` for a call from the artifact, or null with
/// the error recorded. `what` names the collective ("all-gather").
const Communicator *communicatorFor(const char *what, int64_t group,
                                    std::string &groupLabel) {
  const detail::CollectiveScope::State *state = currentCollectives;
  const std::string call = std::string(what) + " on group " +
                           std::to_string(group);
  if (!state || !state->communicators || !state->groups) {
    detail::recordMgpuError(call + ": called with no communicators current "
                                   "on this thread (it must be called from "
                                   "an entry the TEQ runtime runs)");
    return nullptr;
  }
  const auto &communicators = *state->communicators;
  if (group < 0 || group >= static_cast<int64_t>(communicators.size()) ||
      group >= static_cast<int64_t>(state->groups->size())) {
    detail::recordMgpuError(
        call + ": out of range: the entry has " +
        std::to_string(state->groups->size()) +
        (state->groups->size() == 1 ? " group" : " groups"));
    return nullptr;
  }
  groupLabel = "group " + std::to_string(group) + " ('" +
               (*state->groups)[group].name + "')";
  const Communicator *comm = communicators[static_cast<size_t>(group)];
  if (!comm)
    detail::recordMgpuError(std::string(what) + " on " + groupLabel +
                            ": no communicator (internal error)");
  return comm;
}

void *collectiveStream(const Communicator &comm) {
  void *stream = detail::currentMgpuStream();
  return stream ? stream : comm.context()->stream();
}

} // namespace

} // namespace mlir::teq::runtime

using namespace mlir::teq::runtime;

extern "C" void teqAllGather(int64_t group, uint64_t send, uint64_t recv,
                             int64_t sendCount, int32_t type) {
  if (detail::skipMgpuCall())
    return;
  std::string label;
  const Communicator *comm = communicatorFor("all-gather", group, label);
  if (!comm)
    return;
  if (collectiveTypeBytes(type) == 0) {
    detail::recordMgpuError("all-gather on " + label +
                            ": unknown element type " + std::to_string(type));
    return;
  }
  Status status = comm->allGather(send, recv, sendCount,
                                  static_cast<CollectiveType>(type),
                                  collectiveStream(*comm));
  if (!status.ok())
    detail::recordMgpuError(label + ": " + status.message());
}

extern "C" void teqReduceScatter(int64_t group, uint64_t send, uint64_t recv,
                                 int64_t recvCount, int32_t type, int32_t op) {
  if (detail::skipMgpuCall())
    return;
  std::string label;
  const Communicator *comm = communicatorFor("reduce-scatter", group, label);
  if (!comm)
    return;
  Status status = comm->reduceScatter(
      send, recv, recvCount, static_cast<CollectiveType>(type),
      static_cast<ReduceOp>(op), collectiveStream(*comm));
  if (!status.ok())
    detail::recordMgpuError(label + ": " + status.message());
}

extern "C" void teqAllReduce(int64_t group, uint64_t send, uint64_t recv,
                             int64_t count, int32_t type, int32_t op) {
  if (detail::skipMgpuCall())
    return;
  std::string label;
  const Communicator *comm = communicatorFor("all-reduce", group, label);
  if (!comm)
    return;
  Status status = comm->allReduce(send, recv, count,
                                  static_cast<CollectiveType>(type),
                                  static_cast<ReduceOp>(op),
                                  collectiveStream(*comm));
  if (!status.ok())
    detail::recordMgpuError(label + ": " + status.message());
}
