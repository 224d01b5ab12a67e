//===- CommunicatorTest.cpp - Parallel groups, NCCL and the collectives ---===//
//
// Without a GPU: unique ids, the manifest's "groups" (as the artifact
// contract reads them), the communicator
// checks Entry::run makes before anything runs, the collectives' errors
// outside an entry, NCCL loading ($TEQ_NCCL_LIBRARY) and the C API's groups.
// With one GPU: a one-rank NCCL communicator and the errors of a missing or
// mismatched communicator on a loaded artifact. With two GPUs (skipped
// otherwise): the collectives of a stand-in artifact on two ranks, one
// thread each, against values computed here.
//
//===----------------------------------------------------------------------===//

#include "teq-c/Runtime.h"
#include "teq/Runtime/Artifact.h"
#include "teq/Runtime/Communicator.h"
#include "teq/Runtime/DeviceBuffer.h"
#include "teq/Runtime/Mgpu.h"

#include <gtest/gtest.h>

#include <dlfcn.h>

#include <atomic>
#include <chrono>
#include <condition_variable>
#include <cstdlib>
#include <cstring>
#include <functional>
#include <memory>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

using namespace mlir::teq::runtime;

namespace {

bool contains(const std::string &text, const std::string &part) {
  return text.find(part) != std::string::npos;
}

#define EXPECT_CONTAINS(text, part)                                            \
  EXPECT_PRED2(contains, text, part)

//===----------------------------------------------------------------------===//
// Unique ids
//===----------------------------------------------------------------------===//

TEST(UniqueIdTest, HexRoundTrip) {
  UniqueId id;
  EXPECT_TRUE(id.empty());
  for (size_t i = 0; i < UniqueId::kBytes; ++i)
    id.bytes[i] = static_cast<char>(i * 7 + 3);
  EXPECT_FALSE(id.empty());
  std::string hex = id.toHex();
  EXPECT_EQ(hex.size(), 2 * UniqueId::kBytes);
  EXPECT_EQ(hex.substr(0, 6), "030a11");
  auto back = UniqueId::fromHex(hex);
  ASSERT_TRUE(back.ok()) << back.message();
  EXPECT_EQ(back->bytes, id.bytes);
}

TEST(UniqueIdTest, HexErrors) {
  auto shortId = UniqueId::fromHex("0a1b");
  ASSERT_FALSE(shortId.ok());
  EXPECT_EQ(shortId.message(), "unique id: expected 256 hex digits, got 4");
  std::string bad(256, '0');
  bad[9] = 'g';
  auto notHex = UniqueId::fromHex(bad);
  ASSERT_FALSE(notHex.ok());
  EXPECT_EQ(notHex.message(),
            "unique id: 'g' at position 9 is not a hex digit");
}

//===----------------------------------------------------------------------===//
// The manifest's "groups"
//===----------------------------------------------------------------------===//

/// The groups of the one entry of a manifest (the artifact contract's
/// reader, teq/Artifact/Manifest.h).
StatusOr<std::vector<GroupSpec>> groupsOf(const std::string &groups) {
  std::string json = R"({"format": "teq-artifact", "version": 1,
    "target": "sm_90", "device_code": "ptx", "entries": [{"name": "e", )" +
                     (groups.empty() ? std::string()
                                     : "\"groups\": " + groups + ", ") +
                     R"("args": []}]})";
  auto manifest = parseManifest(json);
  if (!manifest.ok())
    return manifest.status();
  return manifest->entries[0].groups;
}

std::string groupsError(const std::string &groups) {
  auto parsed = groupsOf(groups);
  EXPECT_FALSE(parsed.ok());
  return parsed.ok() ? std::string() : parsed.message();
}

TEST(GroupsTest, Parse) {
  auto none = groupsOf("");
  ASSERT_TRUE(none.ok()) << none.message();
  EXPECT_TRUE(none->empty());
  auto two = groupsOf(
      R"([{"name": "tp", "size": 2}, {"name": "dp", "size": 8}])");
  ASSERT_TRUE(two.ok()) << two.message();
  ASSERT_EQ(two->size(), 2u);
  EXPECT_EQ((*two)[0].name, "tp");
  EXPECT_EQ((*two)[0].size, 2);
  EXPECT_EQ((*two)[1].name, "dp");
  EXPECT_EQ((*two)[1].size, 8);
}

TEST(GroupsTest, WrittenAndReadBack) {
  Manifest manifest;
  manifest.target.sm = 90;
  manifest.target.name = "sm_90";
  EntrySpec entry;
  entry.name = "mlp";
  entry.symbol = "teq_entry_mlp";
  entry.groups = {{"tp", 2}, {"dp", 4}};
  manifest.entries.push_back(entry);
  std::string json = mlir::teq::artifact::writeManifest(manifest);
  EXPECT_NE(json.find(R"("groups":[{"name":"tp","size":2},{"name":"dp","size":4}])"),
            std::string::npos)
      << json;
  auto read = parseManifest(json);
  ASSERT_TRUE(read.ok()) << read.message();
  ASSERT_EQ(read->entries[0].groups.size(), 2u);
  EXPECT_EQ(read->entries[0].groups[1].name, "dp");
  EXPECT_EQ(read->entries[0].groups[1].size, 4);
  // No groups: no key.
  manifest.entries[0].groups.clear();
  EXPECT_EQ(mlir::teq::artifact::writeManifest(manifest).find("groups"), std::string::npos);
}

TEST(GroupsTest, Errors) {
  EXPECT_EQ(groupsError(R"({"name": "tp"})"),
            "manifest: entries[0].groups: expected an array, got an object");
  EXPECT_EQ(groupsError(R"([{"size": 2}])"),
            "manifest: entries[0].groups[0]: missing \"name\"");
  EXPECT_EQ(groupsError(R"([{"name": "tp"}])"),
            "manifest: entries[0].groups[0]: missing \"size\"");
  EXPECT_EQ(groupsError(R"([{"name": "tp", "size": -1}])"),
            "manifest: entries[0].groups[0].size: a group has 1 to 2^30 "
            "ranks (0: any), got -1");
  EXPECT_EQ(groupsError(R"([{"name": "", "size": 2}])"),
            "manifest: entries[0].groups[0].name: must not be empty");
  EXPECT_EQ(
      groupsError(R"([{"name": "tp", "size": 2}, {"name": "tp", "size": 2}])"),
      "manifest: entries[0].groups[1].name: group \"tp\" is listed twice");
  EXPECT_EQ(groupsError(R"([2])"),
            "manifest: entries[0].groups[0]: expected an object, got a number");
}

//===----------------------------------------------------------------------===//
// Checks before a run
//===----------------------------------------------------------------------===//

TEST(CheckCommunicatorsTest, MissingOrMismatched) {
  const std::vector<GroupSpec> tp = {{"tp", 2}};
  CommunicatorInfo rank1{"tp", 2, 1, 0};
  EXPECT_TRUE(checkCommunicators("mlp", tp, {&rank1}, 0).ok());
  EXPECT_TRUE(checkCommunicators("noop", {}, {}, 0).ok());

  EXPECT_EQ(checkCommunicators("mlp", tp, {}, 0).message(),
            "entry 'mlp' needs 1 communicator (group 'tp' of 2 ranks), got 0: "
            "pass one per group, in this order, in "
            "RunOptions::communicators");
  EXPECT_EQ(checkCommunicators("mlp", {{"tp", 2}, {"dp", 4}}, {&rank1}, 0)
                .message(),
            "entry 'mlp' needs 2 communicators (group 'tp' of 2 ranks, group "
            "'dp' of 4 ranks), got 1: pass one per group, in this order, in "
            "RunOptions::communicators");
  EXPECT_EQ(checkCommunicators("noop", {}, {&rank1}, 0).message(),
            "entry 'noop' communicates over no group, but 1 communicator was "
            "given");
  EXPECT_EQ(checkCommunicators("mlp", tp, {nullptr}, 0).message(),
            "entry 'mlp': no communicator given for group 0 ('tp')");

  CommunicatorInfo four{"world", 4, 3, 0};
  EXPECT_EQ(checkCommunicators("mlp", tp, {&four}, 0).message(),
            "entry 'mlp': group 0 ('tp') has 2 ranks, but its communicator "
            "'world' has 4 (it is rank 3 of 4)");
  CommunicatorInfo otherDevice{"tp", 2, 1, 1};
  EXPECT_EQ(checkCommunicators("mlp", tp, {&otherDevice}, 0).message(),
            "entry 'mlp': the communicator 'tp' for group 0 ('tp') is on CUDA "
            "device 1, but the artifact runs on device 0");
  CommunicatorInfo badRank{"", 2, 2, 0};
  EXPECT_EQ(checkCommunicators("mlp", tp, {&badRank}, 0).message(),
            "entry 'mlp': the communicator for group 0 ('tp') has rank 2, out "
            "of range for 2 ranks");
}

//===----------------------------------------------------------------------===//
// The collectives' ABI outside an entry
//===----------------------------------------------------------------------===//

TEST(CollectivesTest, OutsideAnEntry) {
  clearMgpuError();
  teqAllReduce(0, 0, 0, 4, 1, 0);
  Status status = takeMgpuError();
  EXPECT_EQ(status.message(),
            "all-reduce on group 0: called with no communicators current on "
            "this thread (it must be called from an entry the TEQ runtime "
            "runs)");

  std::vector<GroupSpec> groups = {{"tp", 2}};
  std::vector<const Communicator *> communicators = {nullptr};
  detail::CollectiveScope scope(&groups, &communicators);
  teqAllGather(1, 0, 0, 4, 0);
  EXPECT_EQ(takeMgpuError().message(),
            "all-gather on group 1: out of range: the entry has 1 group");
  teqReduceScatter(-1, 0, 0, 4, 2, 0);
  EXPECT_EQ(takeMgpuError().message(),
            "reduce-scatter on group -1: out of range: the entry has 1 group");
  // The first error wins: later calls do nothing.
  teqAllGather(5, 0, 0, 4, 0);
  teqAllReduce(7, 0, 0, 4, 1, 0);
  EXPECT_EQ(takeMgpuError().message(),
            "all-gather on group 5: out of range: the entry has 1 group");
}

TEST(CollectivesTest, Names) {
  EXPECT_EQ(stringifyCollectiveType(0), "bytes");
  EXPECT_EQ(stringifyCollectiveType(2), "bf16");
  EXPECT_EQ(stringifyCollectiveType(9), "type 9");
  EXPECT_EQ(stringifyReduceOp(1), "max");
  EXPECT_EQ(stringifyReduceOp(-1), "op -1");
  EXPECT_EQ(collectiveTypeBytes(1), 4);
  EXPECT_EQ(collectiveTypeBytes(3), 2);
  EXPECT_EQ(collectiveTypeBytes(4), 0);
}

//===----------------------------------------------------------------------===//
// Communicators without a GPU
//===----------------------------------------------------------------------===//

UniqueId someId() {
  UniqueId id;
  id.bytes[0] = 1;
  return id;
}

TEST(CommunicatorTest, ArgumentErrorsBeforeNccl) {
  auto badRank = Communicator::create(nullptr, someId(), 2, 2, "tp");
  ASSERT_FALSE(badRank.ok());
  EXPECT_EQ(badRank.message(), "communicator 'tp' (rank 2 of 2): rank 2 is "
                               "out of range for a group of 2 ranks");
  auto negative = Communicator::create(nullptr, someId(), 2, -1);
  ASSERT_FALSE(negative.ok());
  EXPECT_EQ(negative.message(), "communicator (rank -1 of 2): rank -1 is out "
                                "of range for a group of 2 ranks");
  auto empty = Communicator::create(nullptr, someId(), 0, 0, "tp");
  ASSERT_FALSE(empty.ok());
  EXPECT_EQ(empty.message(), "communicator 'tp' (rank 0 of 0): a group needs "
                             "at least 1 rank, got 0");
  auto noId = Communicator::create(nullptr, UniqueId(), 2, 0, "tp");
  ASSERT_FALSE(noId.ok());
  EXPECT_EQ(noId.message(),
            "communicator 'tp' (rank 0 of 2): the unique id is empty (create "
            "it with createUniqueId on one rank and pass it to every rank)");
  auto noContext = Communicator::create(nullptr, someId(), 2, 1, "tp");
  ASSERT_FALSE(noContext.ok());
  EXPECT_EQ(noContext.message(),
            "communicator 'tp' (rank 1 of 2): no CUDA context given");
  CommunicatorOptions options;
  options.timeoutSeconds = -1;
  auto badTimeout =
      Communicator::create(nullptr, someId(), 2, 1, "tp", options);
  ASSERT_FALSE(badTimeout.ok());
  EXPECT_EQ(badTimeout.message(), "communicator 'tp' (rank 1 of 2): the "
                                  "timeout must be 0 (none) or positive, got "
                                  "-1 s");
}

TEST(CommunicatorTest, UniqueIdFromNccl) {
  auto first = Communicator::createUniqueId();
  if (!first.ok()) {
    // Where NCCL is not installed, the error must say so and how to fix it.
    EXPECT_CONTAINS(first.message(), "NCCL not available: cannot open "
                                     "libnccl.so.2");
    EXPECT_CONTAINS(first.message(), "TEQ_NCCL_LIBRARY");
    GTEST_SKIP() << first.message();
  }
  EXPECT_FALSE(first->empty());
  auto second = Communicator::createUniqueId();
  ASSERT_TRUE(second.ok()) << second.message();
  EXPECT_NE(first->bytes, second->bytes);
}

// NCCL is loaded once per process: the TEQ_NCCL_LIBRARY cases run in a
// child process each.
TEST(CommunicatorDeathTest, NcclLibraryFromTheEnvironment) {
  GTEST_FLAG_SET(death_test_style, "threadsafe");
  auto expectError = [](const char *value, const std::string &expected) {
    ::setenv("TEQ_NCCL_LIBRARY", value, 1);
    auto id = Communicator::createUniqueId();
    std::exit(!id.ok() && contains(id.message(), expected) ? 0 : 1);
  };
  EXPECT_EXIT(expectError("/nonexistent/libnccl.so.2",
                          "NCCL not available: cannot open "
                          "/nonexistent/libnccl.so.2 (named by "
                          "TEQ_NCCL_LIBRARY)"),
              ::testing::ExitedWithCode(0), "");
  // A directory names the library inside it.
  EXPECT_EXIT(expectError("/proc", "cannot open /proc/libnccl.so.2"),
              ::testing::ExitedWithCode(0), "");
  // A library that is not NCCL.
  EXPECT_EXIT(expectError("libc.so.6", "has no ncclGetVersion"),
              ::testing::ExitedWithCode(0), "");
  // An NCCL older than 2.14 (no non-blocking communicators), by its
  // version; one that lacks ncclCommInitRankConfig, by the symbol.
  EXPECT_EXIT(expectError(TEQ_FAKE_NCCL_OLD,
                          "is NCCL 2.12.7; the runtime needs NCCL 2.14.0 or "
                          "later (non-blocking communicators, "
                          "ncclCommInitRankConfig)"),
              ::testing::ExitedWithCode(0), "");
  EXPECT_EXIT(expectError(TEQ_FAKE_NCCL_NO_CONFIG,
                          " (NCCL 2.14.0) has no ncclCommInitRankConfig: the "
                          "runtime needs NCCL 2.14.0 or later"),
              ::testing::ExitedWithCode(0), "");
}

//===----------------------------------------------------------------------===//
// Waiting for NCCL and ordering streams, without a GPU
//===----------------------------------------------------------------------===//

TEST(PollWhileInProgressTest, DoneAbortedTimedOut) {
  using detail::kNcclInProgress;
  int calls = 0;
  auto doneAfter = [&](int n, int result) {
    return [&, n, result] { return ++calls < n ? kNcclInProgress : result; };
  };
  detail::PollResult done =
      detail::pollWhileInProgress(doneAfter(100, 0), nullptr, 0);
  EXPECT_EQ(done.result, 0);
  EXPECT_FALSE(done.aborted || done.timedOut);
  EXPECT_EQ(calls, 100);
  // An error ends the wait too (a peer failed during initialization).
  calls = 0;
  EXPECT_EQ(detail::pollWhileInProgress(doneAfter(3, 6), nullptr, 0).result,
            6);
  // The abort check is polled between queries.
  calls = 0;
  int checks = 0;
  detail::PollResult aborted = detail::pollWhileInProgress(
      doneAfter(1000000, 0), [&] { return ++checks == 5; }, 0);
  EXPECT_TRUE(aborted.aborted);
  EXPECT_EQ(aborted.result, kNcclInProgress);
  EXPECT_EQ(checks, 5);
  // A peer that never joins: the timeout.
  detail::PollResult timedOut = detail::pollWhileInProgress(
      [] { return kNcclInProgress; }, [] { return false; }, 0.05);
  EXPECT_TRUE(timedOut.timedOut);
  EXPECT_FALSE(timedOut.aborted);
}

/// A WorkspaceDevice that logs what StreamSerializer asks of it.
class SerializerDevice final : public detail::WorkspaceDevice {
public:
  struct Log {
    std::vector<std::pair<void *, void *>> waits, records; // stream, event
    std::vector<void *> capturing;
    int events = 0;
    bool failRecord = false, failWait = false;
  };
  explicit SerializerDevice(std::shared_ptr<Log> log) : log_(std::move(log)) {}
  StatusOr<StreamState> streamState(void *stream) override {
    StreamState state;
    for (void *s : log_->capturing)
      if (s == stream)
        state.capturing = true;
    if (!state.capturing)
      state.id = reinterpret_cast<uintptr_t>(stream);
    return state;
  }
  StatusOr<uint64_t> allocate(uint64_t, bool) override { return 0; }
  void free(uint64_t) override {}
  StatusOr<void *> createEvent() override {
    ++log_->events;
    return reinterpret_cast<void *>(uintptr_t(0xE0));
  }
  void destroyEvent(void *event) override {
    EXPECT_EQ(event, reinterpret_cast<void *>(uintptr_t(0xE0)));
    --log_->events;
  }
  Status recordEvent(void *event, void *stream) override {
    if (log_->failRecord)
      return Status::error("cannot record a CUDA event: CUDA_ERROR_X");
    log_->records.push_back({stream, event});
    return Status::success();
  }
  bool eventDone(void *) override { return false; }
  Status streamWaitEvent(void *stream, void *event) override {
    if (log_->failWait)
      return Status::error("cuStreamWaitEvent: CUDA_ERROR_Y");
    log_->waits.push_back({stream, event});
    return Status::success();
  }
  void synchronizeEvent(void *) override {}
  void synchronizeContext() override {}
  void releaseSlot(uint64_t) override {}

private:
  std::shared_ptr<Log> log_;
};

void *streamAt(uintptr_t id) { return reinterpret_cast<void *>(id); }

TEST(StreamSerializerTest, WaitsOnlyWhenTheStreamChanges) {
  auto log = std::make_shared<SerializerDevice::Log>();
  {
    auto serializer = detail::StreamSerializer::create(
        std::make_unique<SerializerDevice>(log));
    ASSERT_TRUE(serializer.ok()) << serializer.message();
    detail::StreamSerializer &order = **serializer;
    void *event = reinterpret_cast<void *>(uintptr_t(0xE0));
    void *a = streamAt(0x10), *b = streamAt(0x20);
    // The first collective waits for nothing; the next on the same stream
    // neither (stream order); on another stream it waits for the event
    // recorded after the last one; back on the first stream too.
    for (void *stream : {a, a, b, b, a}) {
      ASSERT_TRUE(order.begin(stream).ok());
      ASSERT_TRUE(order.end().ok());
    }
    using Pairs = std::vector<std::pair<void *, void *>>;
    EXPECT_EQ(log->waits, (Pairs{{b, event}, {a, event}}));
    EXPECT_EQ(log->records,
              (Pairs{{a, event}, {a, event}, {b, event}, {b, event},
                     {a, event}}));
    EXPECT_EQ(order.stats().waits, 2u);
    EXPECT_EQ(order.stats().records, 5u);

    // A capturing stream is neither ordered nor recorded (its graph runs
    // when launched); the stream after it still waits for the last
    // uncaptured collective.
    void *graph = streamAt(0x30);
    log->capturing.push_back(graph);
    log->waits.clear();
    log->records.clear();
    ASSERT_TRUE(order.begin(graph).ok());
    ASSERT_TRUE(order.end().ok());
    EXPECT_TRUE(log->waits.empty());
    EXPECT_TRUE(log->records.empty());
    ASSERT_TRUE(order.begin(b).ok());
    ASSERT_TRUE(order.end().ok());
    EXPECT_EQ(log->waits, (Pairs{{b, event}}));

    // Errors are the caller's; a failed record forgets the last stream (no
    // wait on a stale record).
    log->failWait = true;
    EXPECT_EQ(order.begin(a).message(), "cuStreamWaitEvent: CUDA_ERROR_Y");
    log->failWait = false;
    log->failRecord = true;
    ASSERT_TRUE(order.begin(b).ok());
    EXPECT_EQ(order.end().message(),
              "cannot record a CUDA event: CUDA_ERROR_X");
    log->failRecord = false;
    log->waits.clear();
    ASSERT_TRUE(order.begin(a).ok());
    EXPECT_TRUE(log->waits.empty());
    ASSERT_TRUE(order.end().ok());
    EXPECT_EQ(log->events, 1);
  }
  EXPECT_EQ(log->events, 0) << "the event is destroyed with the serializer";
}

//===----------------------------------------------------------------------===//
// Artifacts with groups
//===----------------------------------------------------------------------===//

TEST(ArtifactGroupsTest, InspectReadsGroups) {
  auto manifest = Artifact::inspect(TEQ_FAKE_ARTIFACT_COLLECTIVES);
  ASSERT_TRUE(manifest.ok()) << manifest.message();
  const std::vector<GroupSpec> &groups = manifest->entries[0].groups;
  ASSERT_EQ(groups.size(), 1u);
  EXPECT_EQ(groups[0].name, "tp");
  EXPECT_EQ(groups[0].size, 2);

  auto bad = Artifact::inspect(TEQ_FAKE_ARTIFACT_BAD_GROUPS);
  ASSERT_FALSE(bad.ok());
  EXPECT_EQ(bad.message(),
            std::string("artifact '") + TEQ_FAKE_ARTIFACT_BAD_GROUPS +
                "': manifest: entries[1].groups[0].size: a group has 1 to "
                "2^30 ranks (0: any), got -1");
}

TEST(ArtifactGroupsTest, CApi) {
  TeqRtArtifact artifact{nullptr};
  ASSERT_EQ(teqRtArtifactInspect(TEQ_FAKE_ARTIFACT_COLLECTIVES, &artifact),
            TEQ_RT_SUCCESS)
      << teqRtGetLastError();
  TeqRtEntry entry{nullptr};
  ASSERT_EQ(teqRtArtifactLookupEntry(artifact, "all_gather", &entry),
            TEQ_RT_SUCCESS);
  size_t numGroups = 0;
  ASSERT_EQ(teqRtEntryGetNumGroups(entry, &numGroups), TEQ_RT_SUCCESS);
  EXPECT_EQ(numGroups, 1u);
  TeqRtGroupInfo info;
  ASSERT_EQ(teqRtEntryGetGroupInfo(entry, 0, &info), TEQ_RT_SUCCESS);
  EXPECT_STREQ(info.name, "tp");
  EXPECT_EQ(info.size, 2);
  EXPECT_EQ(teqRtEntryGetGroupInfo(entry, 1, &info), TEQ_RT_OUT_OF_RANGE);
  EXPECT_STREQ(teqRtGetLastError(), "entry 'all_gather': group index 1 is "
                                    "out of range (it has 1 group)");
  TeqRtEntry noop{nullptr};
  ASSERT_EQ(teqRtArtifactLookupEntry(artifact, "noop", &noop), TEQ_RT_SUCCESS);
  ASSERT_EQ(teqRtEntryGetNumGroups(noop, &numGroups), TEQ_RT_SUCCESS);
  EXPECT_EQ(numGroups, 0u);

  uint64_t buffers[2] = {0, 0};
  EXPECT_EQ(teqRtEntryRunWithCommunicators(entry, buffers, 2, nullptr, 1,
                                           nullptr, nullptr),
            TEQ_RT_FAILURE);
  EXPECT_CONTAINS(teqRtGetLastError(), "was opened for inspection only");
  teqRtArtifactDestroy(artifact);

  EXPECT_EQ(teqRtUniqueIdCreate(nullptr), TEQ_RT_INVALID_ARGUMENT);
  EXPECT_STREQ(teqRtGetLastError(), "teqRtUniqueIdCreate: 'id' is null");
  TeqRtUniqueId id;
  std::memset(&id, 1, sizeof(id));
  TeqRtCommunicator comm{nullptr};
  EXPECT_EQ(teqRtCommunicatorCreate(TeqRtContext{nullptr}, &id, 2, 0, "tp",
                                    &comm),
            TEQ_RT_INVALID_ARGUMENT);
  EXPECT_STREQ(teqRtGetLastError(),
               "teqRtCommunicatorCreate: null context handle");
  TeqRtCommunicatorOptions defaults = teqRtCommunicatorOptionsGetDefault();
  EXPECT_EQ(defaults.timeoutSeconds, 0.0);
  EXPECT_EQ(defaults.shouldAbort, nullptr);
  EXPECT_EQ(teqRtCommunicatorCreateWithOptions(TeqRtContext{nullptr}, &id, 2,
                                               0, "tp", &defaults, &comm),
            TEQ_RT_INVALID_ARGUMENT);
  EXPECT_STREQ(teqRtGetLastError(),
               "teqRtCommunicatorCreateWithOptions: null context handle");
  int size = 0;
  EXPECT_EQ(teqRtCommunicatorGetSize(comm, &size), TEQ_RT_INVALID_ARGUMENT);
  EXPECT_EQ(teqRtCommunicatorCheckAsyncError(comm), TEQ_RT_INVALID_ARGUMENT);
  EXPECT_EQ(teqRtCommunicatorAbort(comm), TEQ_RT_INVALID_ARGUMENT);
  EXPECT_STREQ(teqRtGetLastError(),
               "teqRtCommunicatorAbort: null communicator handle");
  teqRtCommunicatorDestroy(comm); // null: ignored
}

//===----------------------------------------------------------------------===//
// On GPUs
//===----------------------------------------------------------------------===//

int deviceCount() {
  int count = 0;
  while (count < 8 && Context::create(count).ok())
    ++count;
  return count;
}

std::vector<uint8_t> bytesOf(const void *data, size_t size) {
  const uint8_t *begin = static_cast<const uint8_t *>(data);
  return std::vector<uint8_t>(begin, begin + size);
}

/// bf16 of small integers (exact).
std::vector<uint16_t> toBf16(const std::vector<float> &values) {
  std::vector<uint16_t> out;
  for (float value : values) {
    uint32_t bits;
    std::memcpy(&bits, &value, 4);
    out.push_back(static_cast<uint16_t>(bits >> 16));
  }
  return out;
}

/// A device buffer holding `bytes`.
DeviceBuffer upload(const std::shared_ptr<Context> &context,
                    const std::vector<uint8_t> &bytes) {
  auto buffer = DeviceBuffer::allocate(context, bytes.size());
  EXPECT_TRUE(buffer.ok()) << buffer.message();
  EXPECT_TRUE(buffer->upload(bytes).ok());
  return std::move(*buffer);
}

TEST(CommunicatorGpuTest, OneRankAndMismatchedCommunicators) {
  auto context = Context::create(0);
  if (!context.ok())
    GTEST_SKIP() << "no CUDA device";
  auto id = Communicator::createUniqueId();
  ASSERT_TRUE(id.ok()) << id.message();
  auto comm = Communicator::create(*context, *id, 1, 0, "solo");
  ASSERT_TRUE(comm.ok()) << comm.message();
  EXPECT_EQ((*comm)->size(), 1);
  EXPECT_EQ((*comm)->info().device, 0);
  EXPECT_NE((*comm)->ncclComm(), nullptr);

  // A one-rank all-reduce is a copy; max of one rank is the value.
  std::vector<float> x(64);
  for (size_t i = 0; i < x.size(); ++i)
    x[i] = static_cast<float>(i) - 20.0f;
  DeviceBuffer in = upload(*context, bytesOf(x.data(), 256));
  DeviceBuffer out = upload(*context, std::vector<uint8_t>(256, 0));
  ASSERT_TRUE((*comm)
                  ->allReduce(in.ptr(), out.ptr(), 64, CollectiveType::F32,
                              ReduceOp::Max, nullptr)
                  .ok());
  ASSERT_TRUE((*context)->synchronize().ok());
  auto got = out.download();
  ASSERT_TRUE(got.ok());
  EXPECT_EQ(*got, bytesOf(x.data(), 256));
  EXPECT_TRUE((*comm)->asyncError().ok());
  // Reductions of opaque bytes are refused before NCCL.
  Status bytes = (*comm)->allReduce(in.ptr(), out.ptr(), 64,
                                    CollectiveType::Bytes, ReduceOp::Sum,
                                    nullptr);
  EXPECT_EQ(bytes.message(),
            "all-reduce (sum) on communicator 'solo' (rank 0 of 1): cannot "
            "reduce opaque bytes (element type 'bytes'); reductions need f32, "
            "bf16 or f16");

  // The entry needs group "tp" of 2 ranks: no communicator, or this one,
  // are errors before anything runs.
  auto artifact = Artifact::open(TEQ_FAKE_ARTIFACT_COLLECTIVES, *context);
  ASSERT_TRUE(artifact.ok()) << artifact.message();
  const Entry *entry = (*artifact)->findEntry("all_reduce");
  ASSERT_NE(entry, nullptr);
  ASSERT_EQ(entry->groups().size(), 1u);
  DeviceBuffer sum = upload(*context, std::vector<uint8_t>(256, 0));
  RunOptions options;
  Status missing = entry->run({in.ptr(), sum.ptr(), out.ptr()}, options);
  EXPECT_EQ(missing.message(),
            "entry 'all_reduce' needs 1 communicator (group 'tp' of 2 ranks), "
            "got 0: pass one per group, in this order, in "
            "RunOptions::communicators");
  options.communicators = {comm->get()};
  Status mismatched = entry->run({in.ptr(), sum.ptr(), out.ptr()}, options);
  EXPECT_EQ(mismatched.message(),
            "entry 'all_reduce': group 0 ('tp') has 2 ranks, but its "
            "communicator 'solo' has 1 (it is rank 0 of 1)");

  // After an abort (a peer failed), collectives fail instead of waiting.
  (*comm)->abort();
  (*comm)->abort(); // idempotent
  EXPECT_EQ((*comm)
                ->allReduce(in.ptr(), out.ptr(), 64, CollectiveType::F32,
                            ReduceOp::Sum, nullptr)
                .message(),
            "all-reduce (sum) on communicator 'solo' (rank 0 of 1): the "
            "communicator was aborted");
  EXPECT_EQ((*comm)->asyncError().message(),
            "communicator 'solo' (rank 0 of 1): the communicator was aborted");
}

/// Runs `body(rank, context)` on two threads, one per GPU.
void onTwoRanks(const std::function<void(int, std::shared_ptr<Context>,
                                         const UniqueId &)> &body) {
  auto id = Communicator::createUniqueId();
  ASSERT_TRUE(id.ok()) << id.message();
  std::vector<std::thread> threads;
  for (int rank = 0; rank < 2; ++rank)
    threads.emplace_back([&, rank] {
      auto context = Context::create(rank);
      ASSERT_TRUE(context.ok()) << context.message();
      body(rank, *context, *id);
    });
  for (std::thread &thread : threads)
    thread.join();
}

TEST(CommunicatorGpuTest, CollectivesOfAnArtifactOnTwoRanks) {
  if (deviceCount() < 2)
    GTEST_SKIP() << "needs 2 CUDA devices";
  onTwoRanks([](int rank, std::shared_ptr<Context> context,
                const UniqueId &id) {
    auto comm = Communicator::create(context, id, 2, rank, "tp");
    ASSERT_TRUE(comm.ok()) << comm.message();
    EXPECT_EQ((*comm)->rank(), rank);
    EXPECT_EQ((*comm)->info().device, rank);
    auto artifact = Artifact::open(TEQ_FAKE_ARTIFACT_COLLECTIVES, context);
    ASSERT_TRUE(artifact.ok()) << artifact.message();
    RunOptions options;
    options.synchronize = true;
    options.communicators = {comm->get()};
    const float sign = rank == 0 ? 1.0f : -1.0f;

    // all_reduce: sum and max of x_r[i] = sign * i + r.
    std::vector<float> x(64), sum(64), max(64);
    for (int i = 0; i < 64; ++i) {
      x[i] = sign * static_cast<float>(i) + static_cast<float>(rank);
      float x0 = static_cast<float>(i), x1 = -static_cast<float>(i) + 1.0f;
      sum[i] = x0 + x1;
      max[i] = std::max(x0, x1);
    }
    DeviceBuffer in = upload(context, bytesOf(x.data(), 256));
    DeviceBuffer sumOut = upload(context, std::vector<uint8_t>(256, 0xA5));
    DeviceBuffer maxOut = upload(context, std::vector<uint8_t>(256, 0xA5));
    const Entry *allReduce = (*artifact)->findEntry("all_reduce");
    Status status =
        allReduce->run({in.ptr(), sumOut.ptr(), maxOut.ptr()}, options);
    ASSERT_TRUE(status.ok()) << status.message();
    EXPECT_EQ(*sumOut.download(), bytesOf(sum.data(), 256)) << "rank " << rank;
    EXPECT_EQ(*maxOut.download(), bytesOf(max.data(), 256)) << "rank " << rank;

    // all_gather: rank r's 32 rows land at rows 32r.. of every rank's y.
    std::vector<float> shard(32 * 16), gathered(64 * 16);
    for (int i = 0; i < 32 * 16; ++i) {
      shard[i] = static_cast<float>(rank * 1000 + i % 256);
      gathered[i] = static_cast<float>(i % 256);
      gathered[32 * 16 + i] = static_cast<float>(1000 + i % 256);
    }
    std::vector<uint16_t> shardBf16 = toBf16(shard),
                          gatheredBf16 = toBf16(gathered);
    DeviceBuffer gx = upload(context, bytesOf(shardBf16.data(), 1024));
    DeviceBuffer gy = upload(context, std::vector<uint8_t>(2048, 0xA5));
    status = (*artifact)->findEntry("all_gather")->run({gx.ptr(), gy.ptr()},
                                                       options);
    ASSERT_TRUE(status.ok()) << status.message();
    EXPECT_EQ(*gy.download(), bytesOf(gatheredBf16.data(), 2048))
        << "rank " << rank;

    // reduce_scatter: rows 32r.. of the sum of both ranks' x.
    std::vector<float> full(64 * 16), part(32 * 16);
    for (int i = 0; i < 64 * 16; ++i)
      full[i] = static_cast<float>((i % 64) * (rank + 1));
    for (int i = 0; i < 32 * 16; ++i)
      part[i] = static_cast<float>(((rank * 32 * 16 + i) % 64) * 3);
    std::vector<uint16_t> fullBf16 = toBf16(full), partBf16 = toBf16(part);
    DeviceBuffer rx = upload(context, bytesOf(fullBf16.data(), 2048));
    DeviceBuffer ry = upload(context, std::vector<uint8_t>(1024, 0xA5));
    status = (*artifact)->findEntry("reduce_scatter")->run(
        {rx.ptr(), ry.ptr()}, options);
    ASSERT_TRUE(status.ok()) << status.message();
    EXPECT_EQ(*ry.download(), bytesOf(partBf16.data(), 1024))
        << "rank " << rank;

    // A group the entry does not have: the artifact's call fails on every
    // rank alike, before NCCL (so nobody waits for a peer).
    status = (*artifact)->findEntry("bad_group")->run({in.ptr()}, options);
    EXPECT_EQ(status.message(), "entry 'bad_group': all-reduce on group 3: "
                                "out of range: the entry has 1 group");
    EXPECT_TRUE((*comm)->asyncError().ok());
  });
}

TEST(CommunicatorGpuTest, InitializationGivesUpWhenAPeerNeverJoins) {
  auto context = Context::create(0);
  if (!context.ok())
    GTEST_SKIP() << "no CUDA device";
  auto id = Communicator::createUniqueId();
  ASSERT_TRUE(id.ok()) << id.message();
  // Rank 1 never comes (it failed before ncclCommInitRank): rank 0 must not
  // wait forever.
  using Clock = std::chrono::steady_clock;
  CommunicatorOptions timeout;
  timeout.timeoutSeconds = 0.5;
  Clock::time_point start = Clock::now();
  auto timedOut = Communicator::create(*context, *id, 2, 0, "tp", timeout);
  ASSERT_FALSE(timedOut.ok());
  EXPECT_EQ(timedOut.message(),
            "communicator 'tp' (rank 0 of 2): initialization timed out after "
            "0.5 s: not every rank of the group joined (each must create its "
            "communicator from the same unique id)");
  EXPECT_LT(Clock::now() - start, std::chrono::seconds(20));

  // Another thread says that a peer failed.
  auto id2 = Communicator::createUniqueId();
  ASSERT_TRUE(id2.ok()) << id2.message();
  std::atomic<bool> peerFailed{false};
  CommunicatorOptions abort;
  abort.shouldAbort = [&] { return peerFailed.load(); };
  abort.abortReason = "another rank failed";
  std::thread failing([&] {
    std::this_thread::sleep_for(std::chrono::milliseconds(300));
    peerFailed = true;
  });
  start = Clock::now();
  auto aborted = Communicator::create(*context, *id2, 2, 0, "tp", abort);
  failing.join();
  ASSERT_FALSE(aborted.ok());
  EXPECT_EQ(aborted.message(), "communicator 'tp' (rank 0 of 2): "
                               "initialization aborted: another rank failed");
  EXPECT_LT(Clock::now() - start, std::chrono::seconds(20));

  // The C API: a timeout, and an abort callback.
  TeqRtContext capi{nullptr};
  ASSERT_EQ(teqRtContextCreate(0, &capi), TEQ_RT_SUCCESS);
  TeqRtUniqueId rawId;
  ASSERT_EQ(teqRtUniqueIdCreate(&rawId), TEQ_RT_SUCCESS);
  TeqRtCommunicatorOptions options = teqRtCommunicatorOptionsGetDefault();
  options.timeoutSeconds = 0.2;
  TeqRtCommunicator comm{nullptr};
  EXPECT_EQ(teqRtCommunicatorCreateWithOptions(capi, &rawId, 2, 0, "tp",
                                               &options, &comm),
            TEQ_RT_FAILURE);
  EXPECT_CONTAINS(teqRtGetLastError(), "initialization timed out after 0.2 s");
  EXPECT_TRUE(teqRtCommunicatorIsNull(comm));
  ASSERT_EQ(teqRtUniqueIdCreate(&rawId), TEQ_RT_SUCCESS);
  options = teqRtCommunicatorOptionsGetDefault();
  int polls = 0;
  options.shouldAbort = [](void *data) {
    return ++*static_cast<int *>(data) >= 100 ? 1 : 0;
  };
  options.shouldAbortData = &polls;
  EXPECT_EQ(teqRtCommunicatorCreateWithOptions(capi, &rawId, 2, 0, "tp",
                                               &options, &comm),
            TEQ_RT_FAILURE);
  EXPECT_CONTAINS(teqRtGetLastError(),
                  "initialization aborted: the caller's shouldAbort returned "
                  "nonzero");
  EXPECT_EQ(polls, 100);
  teqRtContextDestroy(capi);
}

/// The driver's stream functions and an asynchronous memset, from libcuda
/// itself (the tests do not link it).
struct DriverStreams {
  int (*create)(void **stream, unsigned flags) = nullptr;
  int (*destroy)(void *stream) = nullptr;
  int (*synchronize)(void *stream) = nullptr;
  int (*memsetD8Async)(uint64_t ptr, unsigned char value, size_t count,
                       void *stream) = nullptr;

  static const DriverStreams *get() {
    static const DriverStreams api = [] {
      DriverStreams loaded;
      void *cuda = dlopen("libcuda.so.1", RTLD_NOW | RTLD_LOCAL);
      if (!cuda)
        return loaded;
      loaded.create = reinterpret_cast<decltype(loaded.create)>(
          dlsym(cuda, "cuStreamCreate"));
      loaded.destroy = reinterpret_cast<decltype(loaded.destroy)>(
          dlsym(cuda, "cuStreamDestroy_v2"));
      loaded.synchronize = reinterpret_cast<decltype(loaded.synchronize)>(
          dlsym(cuda, "cuStreamSynchronize"));
      loaded.memsetD8Async = reinterpret_cast<decltype(loaded.memsetD8Async)>(
          dlsym(cuda, "cuMemsetD8Async"));
      return loaded;
    }();
    return api.create && api.destroy && api.synchronize && api.memsetD8Async
               ? &api
               : nullptr;
  }
};

/// A non-blocking stream of `context` (destroyed after it finished).
std::shared_ptr<void> makeStream(const Context &context) {
  const DriverStreams *api = DriverStreams::get();
  if (!api || !context.makeCurrent().ok())
    return nullptr;
  void *stream = nullptr;
  if (api->create(&stream, /*CU_STREAM_NON_BLOCKING=*/1) != 0)
    return nullptr;
  return std::shared_ptr<void>(stream, [](void *s) {
    DriverStreams::get()->synchronize(s);
    DriverStreams::get()->destroy(s);
  });
}

/// Two threads per rank, each running entries with the rank's one
/// communicator on a stream of its own (issue 17: collectives sharing a
/// communicator on two streams must execute in the order every rank
/// enqueued them, and a run's collectives must stay together).
TEST(CommunicatorGpuTest, TwoStreamsAndThreadsShareOneCommunicator) {
  if (deviceCount() < 2 || !DriverStreams::get())
    GTEST_SKIP() << "needs 2 CUDA devices";
  constexpr int kRounds = 20;
  onTwoRanks([](int rank, std::shared_ptr<Context> context,
                const UniqueId &id) {
    auto comm = Communicator::create(context, id, 2, rank, "tp");
    ASSERT_TRUE(comm.ok()) << comm.message();
    auto artifact = Artifact::open(TEQ_FAKE_ARTIFACT_COLLECTIVES, context);
    ASSERT_TRUE(artifact.ok()) << artifact.message();
    std::shared_ptr<void> streams[2] = {makeStream(*context),
                                        makeStream(*context)};
    ASSERT_TRUE(streams[0] && streams[1]);
    const Entry *allReduce = (*artifact)->findEntry("all_reduce");
    const Entry *allGather = (*artifact)->findEntry("all_gather");

    // Inputs: all_reduce's x_r[i] = (r + 1) * i (sum 3i, max 2i);
    // all_gather's shard of rank r is bytes 16r + i % 16.
    std::vector<float> x(64), sum(64), max(64);
    for (int i = 0; i < 64; ++i) {
      x[i] = static_cast<float>((rank + 1) * i);
      sum[i] = static_cast<float>(3 * i);
      max[i] = static_cast<float>(2 * i);
    }
    std::vector<uint8_t> shard(1024), gathered(2048);
    for (int i = 0; i < 1024; ++i) {
      shard[i] = static_cast<uint8_t>(16 * rank + i % 16);
      gathered[i] = static_cast<uint8_t>(i % 16);
      gathered[1024 + i] = static_cast<uint8_t>(16 + i % 16);
    }
    // Rank 0 keeps stream 0 busy before each of its runs there (large
    // memsets), so that without the runtime's order stream 1's all-gather
    // would overtake stream 0's all-reduces on rank 0 but not on rank 1.
    auto busy = DeviceBuffer::allocate(context, size_t(256) << 20);
    ASSERT_TRUE(busy.ok()) << busy.message();

    // 1. Two entries, two threads, two streams, in an order every rank
    //    shares: round k runs all_reduce on stream 0 (thread A), then
    //    all_gather on stream 1 (thread B).
    {
      DeviceBuffer in = upload(context, bytesOf(x.data(), 256));
      DeviceBuffer gin = upload(context, shard);
      std::vector<DeviceBuffer> sums, maxes, gouts;
      for (int k = 0; k < kRounds; ++k) {
        sums.push_back(upload(context, std::vector<uint8_t>(256, 0xA5)));
        maxes.push_back(upload(context, std::vector<uint8_t>(256, 0xA5)));
        gouts.push_back(upload(context, std::vector<uint8_t>(2048, 0xA5)));
      }
      std::mutex mutex;
      std::condition_variable turn;
      int next = 0; // even: thread A's round next / 2; odd: thread B's
      std::string errors[2];
      auto worker = [&](int which) {
        // The memsets below are driver calls of this thread's own.
        EXPECT_TRUE(context->makeCurrent().ok());
        for (int k = 0; k < kRounds; ++k) {
          std::unique_lock<std::mutex> lock(mutex);
          turn.wait(lock, [&] { return next == 2 * k + which; });
          RunOptions options;
          options.stream = streams[which].get();
          options.communicators = {comm->get()};
          Status status;
          if (which == 0) {
            if (rank == 0)
              for (int m = 0; m < 16; ++m)
                if (DriverStreams::get()->memsetD8Async(
                        busy->ptr(), static_cast<unsigned char>(m),
                        busy->size(), options.stream) != 0 &&
                    errors[0].empty())
                  errors[0] = "cuMemsetD8Async failed";
            status = allReduce->run(
                {in.ptr(), sums[k].ptr(), maxes[k].ptr()}, options);
          } else {
            status = allGather->run({gin.ptr(), gouts[k].ptr()}, options);
          }
          if (!status.ok() && errors[which].empty())
            errors[which] = status.message();
          ++next;
          turn.notify_all();
        }
      };
      std::thread a(worker, 0), b(worker, 1);
      a.join();
      b.join();
      EXPECT_EQ(errors[0], "");
      EXPECT_EQ(errors[1], "");
      ASSERT_TRUE(DriverStreams::get()->synchronize(streams[0].get()) == 0);
      ASSERT_TRUE(DriverStreams::get()->synchronize(streams[1].get()) == 0);
      for (int k = 0; k < kRounds; ++k) {
        EXPECT_EQ(*sums[k].download(), bytesOf(sum.data(), 256))
            << "rank " << rank << " round " << k;
        EXPECT_EQ(*maxes[k].download(), bytesOf(max.data(), 256))
            << "rank " << rank << " round " << k;
        EXPECT_EQ(*gouts[k].download(), gathered)
            << "rank " << rank << " round " << k;
      }
    }

    // 2. One entry (two all-reduces: sum, then max) from two threads at
    //    once, racing, on two streams. Which thread goes first may differ
    //    between the ranks (both have the same inputs, so that does not
    //    matter), but each run's two collectives must stay together:
    //    interleaved, one rank's sum would meet the other's max.
    {
      DeviceBuffer in = upload(context, bytesOf(x.data(), 256));
      std::vector<DeviceBuffer> sums[2], maxes[2];
      for (int t = 0; t < 2; ++t)
        for (int k = 0; k < kRounds; ++k) {
          sums[t].push_back(upload(context, std::vector<uint8_t>(256, 0xA5)));
          maxes[t].push_back(upload(context, std::vector<uint8_t>(256, 0xA5)));
        }
      std::string errors[2];
      auto worker = [&](int t) {
        RunOptions options;
        options.stream = streams[t].get();
        options.communicators = {comm->get()};
        for (int k = 0; k < kRounds; ++k) {
          Status status = allReduce->run(
              {in.ptr(), sums[t][k].ptr(), maxes[t][k].ptr()}, options);
          if (!status.ok() && errors[t].empty())
            errors[t] = status.message();
        }
      };
      std::thread a(worker, 0), b(worker, 1);
      a.join();
      b.join();
      EXPECT_EQ(errors[0], "");
      EXPECT_EQ(errors[1], "");
      ASSERT_TRUE(DriverStreams::get()->synchronize(streams[0].get()) == 0);
      ASSERT_TRUE(DriverStreams::get()->synchronize(streams[1].get()) == 0);
      for (int t = 0; t < 2; ++t)
        for (int k = 0; k < kRounds; ++k) {
          EXPECT_EQ(*sums[t][k].download(), bytesOf(sum.data(), 256))
              << "rank " << rank << " thread " << t << " run " << k;
          EXPECT_EQ(*maxes[t][k].download(), bytesOf(max.data(), 256))
              << "rank " << rank << " thread " << t << " run " << k;
        }
    }
    EXPECT_TRUE((*comm)->asyncError().ok());
  });
}

TEST(CommunicatorGpuTest, CApiOnTwoRanks) {
  if (deviceCount() < 2)
    GTEST_SKIP() << "needs 2 CUDA devices";
  TeqRtUniqueId id;
  ASSERT_EQ(teqRtUniqueIdCreate(&id), TEQ_RT_SUCCESS) << teqRtGetLastError();
  std::vector<std::thread> threads;
  for (int rank = 0; rank < 2; ++rank)
    threads.emplace_back([&, rank] {
      TeqRtContext context{nullptr};
      ASSERT_EQ(teqRtContextCreate(rank, &context), TEQ_RT_SUCCESS);
      TeqRtCommunicator comm{nullptr};
      ASSERT_EQ(teqRtCommunicatorCreate(context, &id, 2, rank, "tp", &comm),
                TEQ_RT_SUCCESS)
          << teqRtGetLastError();
      int size = 0, got = -1;
      EXPECT_EQ(teqRtCommunicatorGetSize(comm, &size), TEQ_RT_SUCCESS);
      EXPECT_EQ(teqRtCommunicatorGetRank(comm, &got), TEQ_RT_SUCCESS);
      EXPECT_EQ(size, 2);
      EXPECT_EQ(got, rank);
      TeqRtArtifact artifact{nullptr};
      ASSERT_EQ(teqRtArtifactLoad(context, TEQ_FAKE_ARTIFACT_COLLECTIVES,
                                  &artifact),
                TEQ_RT_SUCCESS)
          << teqRtGetLastError();
      TeqRtEntry entry{nullptr};
      ASSERT_EQ(teqRtArtifactLookupEntry(artifact, "all_reduce", &entry),
                TEQ_RT_SUCCESS);
      std::shared_ptr<Context> ctx = Context::create(rank).value();
      std::vector<float> x(64, static_cast<float>(rank + 1));
      DeviceBuffer in = upload(ctx, bytesOf(x.data(), 256));
      DeviceBuffer sum = upload(ctx, std::vector<uint8_t>(256, 0));
      DeviceBuffer max = upload(ctx, std::vector<uint8_t>(256, 0));
      uint64_t buffers[3] = {in.ptr(), sum.ptr(), max.ptr()};
      // Without the communicator: the check's error.
      EXPECT_EQ(teqRtEntryRun(entry, buffers, 3, nullptr, nullptr),
                TEQ_RT_FAILURE);
      EXPECT_CONTAINS(teqRtGetLastError(), "needs 1 communicator");
      TeqRtRunOptions options = teqRtRunOptionsGetDefault();
      options.synchronize = true;
      ASSERT_EQ(teqRtEntryRunWithCommunicators(entry, buffers, 3, &comm, 1,
                                               nullptr, &options),
                TEQ_RT_SUCCESS)
          << teqRtGetLastError();
      std::vector<float> three(64, 3.0f), two(64, 2.0f);
      EXPECT_EQ(*sum.download(), bytesOf(three.data(), 256));
      EXPECT_EQ(*max.download(), bytesOf(two.data(), 256));
      EXPECT_EQ(teqRtCommunicatorCheckAsyncError(comm), TEQ_RT_SUCCESS);
      teqRtArtifactDestroy(artifact);
      teqRtCommunicatorDestroy(comm);
      teqRtContextDestroy(context);
    });
  for (std::thread &thread : threads)
    thread.join();
}

} // namespace
