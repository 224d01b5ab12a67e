//===- ConcurrencyTest.cpp - Entries on several threads and streams -------===//
//
// On the GPU (skipped without a device or without the artifact): the entries
// of test/GPU/Inputs/concurrency.mlir (compiled by scripts/gpu-prepare into
// $TEQ_ARTIFACTS/concurrency.so; scripts/gpu-check runs these tests) keep
// per-call state in the entry workspace, the kernels' module globals and
// the cuBLASLt workspace. Each test runs every entry on several buffer sets
// at once and compares every output buffer, byte for byte, with a serial
// run of the same inputs:
//   * one thread, two streams, calls back to back without synchronizing;
//   * two threads, each on its own stream;
//   * two threads on the same stream (the context's);
//   * a call in a second slot while the first is held (its own workspace
//     and its own instance of the module);
//   * two Artifacts of the same file (one library: shared module) on two
//     Contexts of one device, on two streams;
//   * the same file on two devices, if there are two;
//   * CUDA graphs (RunOptions::graph): every buffer set captured once and
//     replayed on two streams, each replay equal to the serial run.
//
//===----------------------------------------------------------------------===//

#include "teq/Runtime/Artifact.h"
#include "teq/Runtime/DeviceBuffer.h"
#include "teq/Runtime/Mgpu.h"

#include <gtest/gtest.h>

#include <dlfcn.h>
#include <unistd.h>

#include <cstdio>
#include <cstring>
#include <memory>
#include <mutex>
#include <random>
#include <string>
#include <thread>
#include <vector>

using namespace mlir::teq::runtime;

namespace {

std::string artifactPath(const std::string &name) {
  const char *dir = std::getenv("TEQ_ARTIFACTS");
  return std::string(dir && *dir ? dir : TEQ_DEFAULT_ARTIFACTS) + "/" + name;
}

/// The driver's stream functions, from libcuda itself (the tests do not link
/// it, so that they load without a driver).
struct StreamApi {
  int (*create)(void **stream, unsigned flags) = nullptr;
  int (*destroy)(void *stream) = nullptr;
  int (*synchronize)(void *stream) = nullptr;

  static const StreamApi *get() {
    static const StreamApi api = [] {
      StreamApi loaded;
      void *cuda = dlopen("libcuda.so.1", RTLD_NOW | RTLD_LOCAL);
      if (!cuda)
        return loaded;
      loaded.create = reinterpret_cast<decltype(loaded.create)>(
          dlsym(cuda, "cuStreamCreate"));
      loaded.destroy = reinterpret_cast<decltype(loaded.destroy)>(
          dlsym(cuda, "cuStreamDestroy_v2"));
      loaded.synchronize = reinterpret_cast<decltype(loaded.synchronize)>(
          dlsym(cuda, "cuStreamSynchronize"));
      return loaded;
    }();
    return api.create && api.destroy && api.synchronize ? &api : nullptr;
  }
};

/// A non-blocking stream of a context's CUDA context.
class Stream {
public:
  static std::unique_ptr<Stream> create(const Context &context) {
    const StreamApi *api = StreamApi::get();
    if (!api || !context.makeCurrent().ok())
      return nullptr;
    void *stream = nullptr;
    if (api->create(&stream, /*CU_STREAM_NON_BLOCKING=*/1) != 0)
      return nullptr;
    return std::unique_ptr<Stream>(new Stream(stream));
  }
  ~Stream() {
    StreamApi::get()->synchronize(stream_);
    StreamApi::get()->destroy(stream_);
  }
  void *get() const { return stream_; }
  bool synchronize() const { return StreamApi::get()->synchronize(stream_) == 0; }

private:
  explicit Stream(void *stream) : stream_(stream) {}
  void *stream_;
};

/// Finite values of the buffer's encoding, from `rng`, as bytes.
std::vector<uint8_t> randomBytes(const BufferSpec &buffer, bool positive,
                                 std::mt19937 &rng) {
  std::vector<uint8_t> bytes(static_cast<size_t>(buffer.bytes));
  auto bits = [&](int n) { return uint32_t(rng()) & ((1u << n) - 1); };
  auto sign = [&](int shift) {
    return positive ? 0u : (uint32_t(rng()) & 1u) << shift;
  };
  const std::string &e = buffer.encoding;
  if (e == "bf16" || e == "f16") {
    for (size_t i = 0; i + 1 < bytes.size(); i += 2) {
      // |x| in [2^-7, 2^4) (bf16) / [2^-5, 2^3) (f16).
      uint16_t v = e == "bf16"
                       ? uint16_t(sign(15) | ((120 + rng() % 11) << 7) | bits(7))
                       : uint16_t(sign(15) | ((10 + rng() % 8) << 10) | bits(10));
      std::memcpy(&bytes[i], &v, 2);
    }
  } else if (e == "f32") {
    for (size_t i = 0; i + 3 < bytes.size(); i += 4) {
      uint32_t v = sign(31) | ((120 + rng() % 11) << 23) | bits(23);
      std::memcpy(&bytes[i], &v, 4);
    }
  } else if (e == "e8m0") {
    for (uint8_t &b : bytes)
      b = uint8_t(120 + rng() % 15);
  } else if (e == "e4m3") {
    for (uint8_t &b : bytes) // no NaN (S.1111.111)
      b = uint8_t(sign(7) | (rng() % 0x7F));
  } else if (e == "e5m2") {
    for (uint8_t &b : bytes) // no inf/NaN (S.11111.xx)
      b = uint8_t(sign(7) | (rng() % 0x7C));
  } else {
    for (uint8_t &b : bytes) // i64 seeds and offsets, packed E2M1
      b = uint8_t(rng());
  }
  return bytes;
}

/// One call's device buffers and what they hold before the call: the
/// inputs, and a fill pattern in the outputs (so that bytes an entry does
/// not write compare equal too).
struct Call {
  std::vector<DeviceBuffer> buffers;
  std::vector<DevicePtr> pointers;
  std::vector<std::vector<uint8_t>> initial;
};

StatusOr<Call> makeCall(const std::shared_ptr<Context> &context,
                        const EntrySpec &spec, uint32_t seed) {
  Call call;
  std::mt19937 rng(seed);
  for (const BufferRef &ref : spec.flatBuffers) {
    const ArgSpec &arg = spec.args[ref.arg];
    const BufferSpec &buffer = arg.buffers[ref.buffer];
    auto allocated =
        DeviceBuffer::allocate(context, static_cast<size_t>(buffer.bytes));
    if (!allocated.ok())
      return allocated.status();
    call.pointers.push_back(allocated->ptr());
    call.buffers.push_back(std::move(*allocated));
    call.initial.push_back(
        arg.isRead()
            ? randomBytes(buffer, /*positive=*/arg.kind == ArgKind::InOut, rng)
            : std::vector<uint8_t>(static_cast<size_t>(buffer.bytes), 0xA5));
  }
  return call;
}

/// Puts the call's initial contents in place (and waits).
Status reset(Call &call) {
  for (size_t i = 0; i < call.buffers.size(); ++i)
    TEQ_RETURN_IF_ERROR(call.buffers[i].upload(call.initial[i]));
  return Status::success();
}

/// Every buffer the call writes, after it (the caller has synchronized).
std::vector<std::vector<uint8_t>> results(const EntrySpec &spec,
                                          const Call &call) {
  std::vector<std::vector<uint8_t>> out;
  for (size_t i = 0; i < spec.flatBuffers.size(); ++i) {
    if (!spec.args[spec.flatBuffers[i].arg].isWritten())
      continue;
    auto bytes = call.buffers[i].download();
    out.push_back(bytes.ok() ? std::move(*bytes) : std::vector<uint8_t>());
  }
  return out;
}

/// "" if equal, else what differs.
std::string compare(const EntrySpec &spec,
                    const std::vector<std::vector<uint8_t>> &got,
                    const std::vector<std::vector<uint8_t>> &want,
                    const std::string &where) {
  if (got.size() != want.size())
    return where + ": " + std::to_string(got.size()) + " results, expected " +
           std::to_string(want.size());
  size_t index = 0;
  for (size_t i = 0; i < spec.flatBuffers.size(); ++i) {
    const ArgSpec &arg = spec.args[spec.flatBuffers[i].arg];
    if (!arg.isWritten())
      continue;
    const std::vector<uint8_t> &g = got[index], &w = want[index];
    ++index;
    if (g == w)
      continue;
    size_t differing = 0, first = std::min(g.size(), w.size());
    for (size_t b = 0; b < std::min(g.size(), w.size()); ++b)
      if (g[b] != w[b] && differing++ == 0)
        first = b;
    return where + ": entry '" + spec.name + "' argument '" + arg.name +
           "' buffer '" + arg.buffers[spec.flatBuffers[i].buffer].name +
           "': " + std::to_string(differing) + " of " +
           std::to_string(w.size()) +
           " bytes differ from the serial run (first at byte " +
           std::to_string(first) + ")";
  }
  return std::string();
}

constexpr int kCalls = 4;  ///< Buffer sets per entry.
constexpr int kRounds = 4; ///< Repetitions of each concurrent schedule.

/// An entry with kCalls buffer sets and their serial results.
struct Case {
  const Entry *entry = nullptr;
  std::vector<Call> calls;
  std::vector<std::vector<std::vector<uint8_t>>> expected;
};

/// The artifact's entries, each with its buffer sets run one at a time on
/// the context's stream.
std::vector<Case> serialCases(const std::shared_ptr<Context> &context,
                              const Artifact &artifact) {
  std::vector<Case> cases;
  for (const Entry &entry : artifact.entries()) {
    Case c;
    c.entry = &entry;
    for (int i = 0; i < kCalls; ++i) {
      auto call = makeCall(context, entry.spec(), 1000u * uint32_t(i) + 7u);
      EXPECT_TRUE(call.ok()) << call.message();
      if (!call.ok())
        return {};
      c.calls.push_back(std::move(*call));
      Call &added = c.calls.back();
      Status status = reset(added);
      EXPECT_TRUE(status.ok()) << status.message();
      RunOptions options;
      options.synchronize = true;
      status = entry.run(added.pointers, options);
      EXPECT_TRUE(status.ok()) << status.message();
      if (!status.ok())
        return {};
      c.expected.push_back(results(entry.spec(), added));
    }
    cases.push_back(std::move(c));
  }
  return cases;
}

struct Fixture {
  std::shared_ptr<Context> context;
  std::unique_ptr<Artifact> artifact;
  std::string path;
  std::string skip; ///< Why the test cannot run here, if it cannot.
  bool failed = false; ///< It should run here, but setting up failed.
};

Fixture setUp() {
  Fixture f;
  auto context = Context::create(0);
  if (!context.ok()) {
    f.skip = "no CUDA device: " + context.message();
    return f;
  }
  f.context = *context;
  f.path = artifactPath("concurrency.so");
  if (access(f.path.c_str(), R_OK) != 0) {
    f.skip = f.path + " not found (scripts/gpu-prepare compiles it; set "
                      "TEQ_ARTIFACTS)";
    return f;
  }
  if (!StreamApi::get()) {
    f.skip = "libcuda.so.1 has no stream functions";
    return f;
  }
  auto artifact = Artifact::open(f.path, f.context);
  if (artifact.ok()) {
    f.artifact = std::move(*artifact);
  } else {
    f.skip = "cannot open " + f.path + ": " + artifact.message();
    f.failed = true;
  }
  return f;
}

#define SET_UP_OR_SKIP(f)                                                      \
  Fixture f = setUp();                                                         \
  if (!f.skip.empty()) {                                                       \
    if (f.failed)                                                              \
      FAIL() << f.skip;                                                        \
    GTEST_SKIP() << f.skip;                                                    \
  }

/// Runs `call` of `c` on `stream` without waiting; "" or the error.
std::string runOn(const Case &c, const Call &call, void *stream) {
  RunOptions options;
  options.stream = stream;
  Status status = c.entry->run(call.pointers, options);
  return status.ok() ? std::string() : status.message();
}

TEST(ConcurrencyGpuTest, TwoStreamsBackToBack) {
  SET_UP_OR_SKIP(f);
  std::vector<Case> cases = serialCases(f.context, *f.artifact);
  ASSERT_FALSE(cases.empty());
  auto a = Stream::create(*f.context), b = Stream::create(*f.context);
  ASSERT_TRUE(a && b);
  for (Case &c : cases)
    for (int round = 0; round < kRounds; ++round) {
      for (Call &call : c.calls)
        ASSERT_TRUE(reset(call).ok());
      // Calls 0, 2 on a, 1, 3 on b: both streams busy at once, and each
      // stream runs two calls in a row on different buffers.
      for (int i = 0; i < kCalls; ++i) {
        std::string error =
            runOn(c, c.calls[size_t(i)], (i % 2 ? b : a)->get());
        ASSERT_EQ(error, "");
      }
      ASSERT_TRUE(a->synchronize() && b->synchronize());
      for (int i = 0; i < kCalls; ++i)
        EXPECT_EQ(compare(c.entry->spec(),
                          results(c.entry->spec(), c.calls[size_t(i)]),
                          c.expected[size_t(i)],
                          "round " + std::to_string(round) + " call " +
                              std::to_string(i)),
                  "");
    }
  std::printf("entry workspace slots: %zu, cross-stream waits: %zu, module "
              "instances: %zu\n",
              f.artifact->workspaces().stats().slots,
              f.artifact->workspaces().stats().streamWaits,
              detail::moduleInstanceCount());
}

/// Two threads, each running its calls `rounds` times on its own stream (or
/// both on the context's, if `sameStream`); returns the mismatches.
std::vector<std::string> twoThreads(Fixture &f, std::vector<Case> &cases,
                                    bool sameStream) {
  std::mutex mutex;
  std::vector<std::string> problems;
  auto note = [&](const std::string &problem) {
    std::lock_guard<std::mutex> lock(mutex);
    problems.push_back(problem);
  };
  auto worker = [&](int t) {
    std::unique_ptr<Stream> own;
    if (!sameStream) {
      own = Stream::create(*f.context);
      if (!own)
        return note("thread " + std::to_string(t) + ": no stream");
    }
    for (Case &c : cases)
      for (int round = 0; round < kRounds; ++round) {
        // Thread t owns calls t and t + 2.
        for (int i = t; i < kCalls; i += 2) {
          Call &call = c.calls[size_t(i)];
          if (!reset(call).ok())
            return note("reset failed");
          RunOptions options;
          options.stream = own ? own->get() : nullptr;
          // Waits for this call's stream: with sameStream, the other
          // thread's calls too.
          options.synchronize = true;
          Status status = c.entry->run(call.pointers, options);
          if (!status.ok())
            return note(status.message());
          std::string diff = compare(
              c.entry->spec(), results(c.entry->spec(), call),
              c.expected[size_t(i)],
              "thread " + std::to_string(t) + " round " +
                  std::to_string(round) + " call " + std::to_string(i));
          if (!diff.empty())
            note(diff);
        }
      }
  };
  std::thread first(worker, 0), second(worker, 1);
  first.join();
  second.join();
  return problems;
}

TEST(ConcurrencyGpuTest, GraphReplaysEqualDirectCalls) {
  SET_UP_OR_SKIP(f);
  std::vector<Case> cases = serialCases(f.context, *f.artifact);
  ASSERT_FALSE(cases.empty());
  auto stream = Stream::create(*f.context);
  ASSERT_TRUE(stream);
  for (Case &c : cases) {
    for (int i = 0; i < kCalls; ++i) {
      Call &call = c.calls[i];
      // The capture (and its launch), then replays on a caller's stream
      // and on the context's.
      for (int replay = 0; replay < 3; ++replay) {
        ASSERT_TRUE(reset(call).ok());
        RunOptions options;
        options.graph = true;
        options.synchronize = true;
        options.stream = replay == 2 ? nullptr : stream->get();
        Status status = c.entry->run(call.pointers, options);
        ASSERT_TRUE(status.ok()) << status.message();
        EXPECT_EQ(compare(c.entry->spec(), results(c.entry->spec(), call),
                          c.expected[i],
                          "graph run " + std::to_string(replay)),
                  "");
      }
    }
    // One graph per buffer set, kept across replays.
    EXPECT_EQ(c.entry->graphCount(), size_t(kCalls)) << c.entry->name();
  }
}

TEST(ConcurrencyGpuTest, TwoThreadsTwoStreams) {
  SET_UP_OR_SKIP(f);
  std::vector<Case> cases = serialCases(f.context, *f.artifact);
  ASSERT_FALSE(cases.empty());
  for (const std::string &problem : twoThreads(f, cases, /*sameStream=*/false))
    ADD_FAILURE() << problem;
}

TEST(ConcurrencyGpuTest, TwoThreadsOneStream) {
  SET_UP_OR_SKIP(f);
  std::vector<Case> cases = serialCases(f.context, *f.artifact);
  ASSERT_FALSE(cases.empty());
  for (const std::string &problem : twoThreads(f, cases, /*sameStream=*/true))
    ADD_FAILURE() << problem;
}

TEST(ConcurrencyGpuTest, ASecondSlotHasItsOwnWorkspaceAndModule) {
  SET_UP_OR_SKIP(f);
  std::vector<Case> cases = serialCases(f.context, *f.artifact);
  ASSERT_FALSE(cases.empty());
  auto a = Stream::create(*f.context), b = Stream::create(*f.context);
  ASSERT_TRUE(a && b);
  const size_t instancesBefore = detail::moduleInstanceCount();
  {
    // A call being enqueued on a holds the first slot: calls on b must use
    // another one, with another instance of the module.
    auto held = f.artifact->workspaces().acquire(a->get());
    ASSERT_TRUE(held.ok()) << held.message();
    for (Case &c : cases) {
      Call &call = c.calls[1];
      ASSERT_TRUE(reset(call).ok());
      ASSERT_EQ(runOn(c, call, b->get()), "");
      ASSERT_TRUE(b->synchronize());
      EXPECT_EQ(compare(c.entry->spec(), results(c.entry->spec(), call),
                        c.expected[1], "second slot"),
                "");
    }
  }
  EXPECT_GE(f.artifact->workspaces().stats().slots, 2u);
  EXPECT_GT(detail::moduleInstanceCount(), instancesBefore);
  // The instances go with the artifact.
  f.artifact.reset();
  EXPECT_EQ(detail::moduleInstanceCount(), instancesBefore);
}

TEST(ConcurrencyGpuTest, TwoArtifactsOfOneFileOnTwoContexts) {
  SET_UP_OR_SKIP(f);
  std::vector<Case> cases = serialCases(f.context, *f.artifact);
  ASSERT_FALSE(cases.empty());
  // A second Context of the same device, and the same file opened again:
  // dlopen shares the library, and so its module, between the two.
  auto context2 = Context::create(0);
  ASSERT_TRUE(context2.ok()) << context2.message();
  auto artifact2 = Artifact::open(f.path, *context2);
  ASSERT_TRUE(artifact2.ok()) << artifact2.message();
  auto a = Stream::create(*f.context), b = Stream::create(**context2);
  ASSERT_TRUE(a && b);
  for (size_t e = 0; e < cases.size(); ++e) {
    Case &c = cases[e];
    const Entry *other = (*artifact2)->findEntry(c.entry->name());
    ASSERT_NE(other, nullptr);
    for (int round = 0; round < kRounds; ++round) {
      for (Call &call : c.calls)
        ASSERT_TRUE(reset(call).ok());
      for (int i = 0; i < kCalls; ++i) {
        RunOptions options;
        options.stream = (i % 2 ? b : a)->get();
        const Entry *entry = i % 2 ? other : c.entry;
        Status status = entry->run(c.calls[size_t(i)].pointers, options);
        ASSERT_TRUE(status.ok()) << status.message();
      }
      ASSERT_TRUE(a->synchronize() && b->synchronize());
      for (int i = 0; i < kCalls; ++i)
        EXPECT_EQ(compare(c.entry->spec(),
                          results(c.entry->spec(), c.calls[size_t(i)]),
                          c.expected[size_t(i)],
                          "two artifacts, round " + std::to_string(round) +
                              " call " + std::to_string(i)),
                  "");
    }
  }
}

TEST(ConcurrencyGpuTest, OneFileOnTwoDevices) {
  SET_UP_OR_SKIP(f);
  auto context1 = Context::create(1);
  if (!context1.ok())
    GTEST_SKIP() << "one CUDA device: " << context1.message();
  if ((*context1)->device().name != f.context->device().name)
    GTEST_SKIP() << "devices differ (" << f.context->device().name << ", "
                 << (*context1)->device().name
                 << "): GEMM results may differ between them";
  std::vector<Case> cases = serialCases(f.context, *f.artifact);
  ASSERT_FALSE(cases.empty());
  // The library is already loaded, its module in device 0's context: device
  // 1's calls get instances loaded there.
  auto artifact1 = Artifact::open(f.path, *context1);
  ASSERT_TRUE(artifact1.ok()) << artifact1.message();
  for (Case &c : cases) {
    const Entry *other = (*artifact1)->findEntry(c.entry->name());
    ASSERT_NE(other, nullptr);
    auto call = makeCall(*context1, c.entry->spec(), 7u); // = calls[0]'s
    ASSERT_TRUE(call.ok()) << call.message();
    ASSERT_TRUE(reset(*call).ok());
    ASSERT_TRUE(reset(c.calls[0]).ok());
    RunOptions options;
    Status status0 = c.entry->run(c.calls[0].pointers, options);
    Status status1 = other->run(call->pointers, options);
    ASSERT_TRUE(status0.ok()) << status0.message();
    ASSERT_TRUE(status1.ok()) << status1.message();
    ASSERT_TRUE(f.context->synchronize().ok());
    ASSERT_TRUE((*context1)->synchronize().ok());
    EXPECT_EQ(compare(c.entry->spec(), results(c.entry->spec(), c.calls[0]),
                      c.expected[0], "device 0"),
              "");
    EXPECT_EQ(compare(c.entry->spec(), results(c.entry->spec(), *call),
                      c.expected[0], "device 1"),
              "");
  }
}

} // namespace
