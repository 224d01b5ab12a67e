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

#include <cstdlib>
#include <cstring>
#include <functional>
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
  EXPECT_EQ(groupsError(R"([{"name": "tp", "size": 0}])"),
            "manifest: entries[0].groups[0].size: a group has 1 to 2^30 "
            "ranks, got 0");
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
                "2^30 ranks, got 0");
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
