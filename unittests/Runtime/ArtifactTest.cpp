//===- ArtifactTest.cpp - Loading artifacts, entries and their errors -----===//
//
// Uses the stand-in artifacts of FakeArtifact.cpp. Artifact::inspect needs no
// GPU; the tests that open an artifact for real need a device and skip
// themselves without one.
//
//===----------------------------------------------------------------------===//

#include "teq/Runtime/Artifact.h"
#include "teq/Runtime/DeviceBuffer.h"
#include "teq/Runtime/Mgpu.h"

#include <gtest/gtest.h>

#include <dlfcn.h>

#include <string>

using namespace mlir::teq::runtime;

namespace {

bool contains(const std::string &text, const std::string &part) {
  return text.find(part) != std::string::npos;
}

TEST(ArtifactInspectTest, ReadsTheManifestWithoutAGpu) {
  clearMgpuError();
  auto manifest = Artifact::inspect(TEQ_FAKE_ARTIFACT);
  ASSERT_TRUE(manifest.ok()) << manifest.message();
  ASSERT_EQ(manifest->entries.size(), 3u);
  EXPECT_EQ(manifest->entries[0].name, "noop");
  EXPECT_EQ(manifest->entries[0].numBuffers(), 3u);
  EXPECT_EQ(manifest->entries[1].symbol, "teq_entry_fail");
  // A module constructor that loads (invalid) PTX is a no-op when inspecting.
  auto withPtx = Artifact::inspect(TEQ_FAKE_ARTIFACT_BAD_PTX);
  EXPECT_TRUE(withPtx.ok()) << withPtx.message();
  EXPECT_FALSE(hasMgpuError());
}

TEST(ArtifactInspectTest, Errors) {
  const std::string noManifest = TEQ_FAKE_ARTIFACT_NO_MANIFEST;
  EXPECT_EQ(Artifact::inspect(noManifest).message(),
            "artifact '" + noManifest +
                "': not a TEQ artifact (no teq_artifact_manifest)");
  const std::string badManifest = TEQ_FAKE_ARTIFACT_BAD_MANIFEST;
  EXPECT_EQ(Artifact::inspect(badManifest).message(),
            "artifact '" + badManifest +
                "': manifest: entries[0].args[0].tensor: missing \"shape\"");
  std::string missing = Artifact::inspect("/nonexistent/x.so").message();
  EXPECT_TRUE(contains(missing, "artifact '/nonexistent/x.so': cannot load: "))
      << missing;
  // A bare file name is a file in the current directory, not a library
  // search.
  std::string bare = Artifact::inspect("libm.so.6").message();
  EXPECT_TRUE(contains(bare, "artifact 'libm.so.6': cannot load: ")) << bare;
}

TEST(ArtifactInspectTest, ALibraryThatStaysLoadedCannotBeOpenedAfterwards) {
  const std::string path = TEQ_FAKE_ARTIFACT_NODELETE;
  ASSERT_TRUE(Artifact::inspect(path).ok());
  // Its constructors ran with device-code loading off and will not run again.
  EXPECT_EQ(Artifact::open(path, nullptr).message(),
            "artifact '" + path +
                "': was inspected in this process without loading its device "
                "code and could not be unloaded again (linked with -z "
                "nodelete?); open it before inspecting it, or in another "
                "process");
  // Inspecting it again reads the resident copy.
  EXPECT_TRUE(Artifact::inspect(path).ok());
}

/// A context on device 0, or null (and the test is skipped) without a GPU.
std::shared_ptr<Context> contextOrSkip() {
  auto context = Context::create(0);
  if (!context.ok())
    return nullptr;
  return *context;
}

TEST(ContextTest, CreateFailsCleanlyOrDescribesTheDevice) {
  auto context = Context::create(0);
  if (!context.ok()) {
    // No GPU (or no driver) here: the error says so, nothing aborts.
    EXPECT_FALSE(context.message().empty());
    return;
  }
  const DeviceInfo &device = (*context)->device();
  EXPECT_FALSE(device.name.empty());
  EXPECT_GE(device.computeCapability, 50);
  EXPECT_EQ(device.smName(), "sm_" + std::to_string(device.computeCapability));
  EXPECT_GT(device.multiprocessors, 0);
  EXPECT_NE((*context)->stream(), nullptr);
  EXPECT_TRUE((*context)->synchronize().ok());
  EXPECT_FALSE(Context::create(4096).ok());
}

TEST(DeviceBufferTest, RoundTrip) {
  auto context = contextOrSkip();
  if (!context)
    GTEST_SKIP() << "no CUDA device";
  auto buffer = DeviceBuffer::allocate(context, 1000);
  ASSERT_TRUE(buffer.ok()) << buffer.message();
  std::vector<uint8_t> data(1000);
  for (size_t i = 0; i < data.size(); ++i)
    data[i] = static_cast<uint8_t>(i * 7);
  ASSERT_TRUE(buffer->upload(data).ok());
  auto back = buffer->download();
  ASSERT_TRUE(back.ok());
  EXPECT_EQ(*back, data);
  ASSERT_TRUE(buffer->fill(0xA5).ok());
  back = buffer->download();
  ASSERT_TRUE(back.ok());
  EXPECT_EQ(*back, std::vector<uint8_t>(1000, 0xA5));
  EXPECT_EQ(buffer->upload(data.data(), 10, 995).message(),
            "upload of 10 bytes at offset 995 exceeds the 1000-byte device "
            "buffer");
  auto empty = DeviceBuffer::allocate(context, 0);
  ASSERT_TRUE(empty.ok());
  EXPECT_EQ(empty->ptr(), 0u);
}

TEST(ArtifactOpenTest, EntriesRunAndReportErrors) {
  auto context = contextOrSkip();
  if (!context)
    GTEST_SKIP() << "no CUDA device";
  const std::string path = TEQ_FAKE_ARTIFACT;
  auto artifact = Artifact::open(path, context);
  if (!artifact.ok() && contains(artifact.message(), " targets sm_90 "))
    GTEST_SKIP() << artifact.message();
  ASSERT_TRUE(artifact.ok()) << artifact.message();
  ASSERT_EQ((*artifact)->entries().size(), 3u);
  EXPECT_EQ((*artifact)->entry("nope").message(),
            "artifact '" + path + "': no entry 'nope' (entries: noop, fail, "
            "stream)");

  auto noop = (*artifact)->entry("noop");
  ASSERT_TRUE(noop.ok());
  auto x = DeviceBuffer::allocate(context, 512);
  auto data = DeviceBuffer::allocate(context, 256);
  auto scale = DeviceBuffer::allocate(context, 4);
  auto small = DeviceBuffer::allocate(context, 100);
  ASSERT_TRUE(x.ok() && data.ok() && scale.ok() && small.ok());

  EXPECT_TRUE((*noop)->run({x->ptr(), data->ptr(), scale->ptr()},
                           RunOptions{true, true})
                  .ok());
  EXPECT_EQ((*noop)->run({x->ptr(), data->ptr()}).message(),
            "entry 'noop': expected 3 buffers, got 2");
  EXPECT_EQ((*noop)->run({small->ptr(), data->ptr(), scale->ptr()}).message(),
            "entry 'noop': argument 'x' buffer 0: 512 bytes needed, 100 given");
  // Inside an allocation, the room left counts.
  EXPECT_EQ((*noop)->run({x->ptr(), data->ptr() + 200, scale->ptr()}).message(),
            "entry 'noop': argument 'result0' buffer 0 ('data'): 256 bytes "
            "needed, 56 given");
  std::vector<uint8_t> host(4096);
  const DevicePtr hostPtr = reinterpret_cast<uintptr_t>(host.data());
  EXPECT_EQ((*noop)->run({hostPtr, data->ptr(), scale->ptr()}).message(),
            "entry 'noop': pointer for argument 'x' is not device memory");
  EXPECT_EQ((*noop)->run({x->ptr(), data->ptr(), hostPtr}).message(),
            "entry 'noop': pointer for argument 'result0' buffer 1 "
            "('scale_inv') is not device memory");
  EXPECT_EQ((*noop)->run({0, data->ptr(), scale->ptr()}).message(),
            "entry 'noop': pointer for argument 'x' is null");

  auto failing = (*artifact)->entry("fail");
  ASSERT_TRUE(failing.ok());
  auto y = DeviceBuffer::allocate(context, 16);
  ASSERT_TRUE(y.ok());
  EXPECT_EQ((*failing)->run({y->ptr()}).message(),
            "entry 'fail': kernel launch with a null function");
  EXPECT_FALSE(hasMgpuError()); // taken by run()

  auto stream = (*artifact)->entry("stream");
  ASSERT_TRUE(stream.ok());
  EXPECT_TRUE((*stream)->run({}, RunOptions{true, true}).ok());
}

TEST(RunOptionsTest, Defaults) {
  RunOptions options;
  EXPECT_TRUE(options.validate);
  EXPECT_FALSE(options.synchronize);
  // Null: the context's stream.
  EXPECT_EQ(options.stream, nullptr);
}

/// The stream the `stream` entry of the fake artifact at `path` (open in this
/// process) last ran on, from its teq_fake_last_stream().
void *lastStreamOf(const std::string &path) {
  void *handle = dlopen(path.c_str(), RTLD_NOW | RTLD_NOLOAD);
  if (!handle)
    return nullptr;
  auto lastStream = reinterpret_cast<void *(*)()>(
      dlsym(handle, "teq_fake_last_stream"));
  void *stream = lastStream ? lastStream() : nullptr;
  dlclose(handle);
  return stream;
}

TEST(ArtifactOpenTest, EntriesRunOnTheCallersStream) {
  auto context = contextOrSkip();
  if (!context)
    GTEST_SKIP() << "no CUDA device";
  const std::string path = TEQ_FAKE_ARTIFACT;
  auto artifact = Artifact::open(path, context);
  if (!artifact.ok() && contains(artifact.message(), " targets sm_90 "))
    GTEST_SKIP() << artifact.message();
  ASSERT_TRUE(artifact.ok()) << artifact.message();
  // A second Context on the device shares its primary context and has a
  // stream of its own: a stream a framework could pass.
  auto other = Context::create(0);
  ASSERT_TRUE(other.ok()) << other.message();
  ASSERT_NE((*other)->stream(), context->stream());

  auto entry = (*artifact)->entry("stream");
  ASSERT_TRUE(entry.ok());
  ASSERT_TRUE((*entry)->run({}).ok());
  EXPECT_EQ(lastStreamOf(path), context->stream());

  RunOptions options;
  options.stream = (*other)->stream();
  options.synchronize = true; // waits on the caller's stream
  Status status = (*entry)->run({}, options);
  EXPECT_TRUE(status.ok()) << status.message();
  EXPECT_EQ(lastStreamOf(path), (*other)->stream());

  // Errors are reported the same way on the caller's stream.
  auto failing = (*artifact)->entry("fail");
  ASSERT_TRUE(failing.ok());
  auto y = DeviceBuffer::allocate(context, 16);
  ASSERT_TRUE(y.ok());
  EXPECT_EQ((*failing)->run({y->ptr()}, options).message(),
            "entry 'fail': kernel launch with a null function");
  EXPECT_FALSE(hasMgpuError());
}

TEST(ArtifactOpenTest, ConstructorErrorsReachTheCaller) {
  auto context = contextOrSkip();
  if (!context)
    GTEST_SKIP() << "no CUDA device";
  const std::string path = TEQ_FAKE_ARTIFACT_BAD_PTX;
  auto artifact = Artifact::open(path, context);
  ASSERT_FALSE(artifact.ok());
  if (contains(artifact.message(), " targets sm_90 "))
    GTEST_SKIP() << artifact.message();
  EXPECT_TRUE(contains(artifact.message(),
                       "artifact '" + path + "': loading PTX module failed: "))
      << artifact.message();
  EXPECT_FALSE(hasMgpuError());
}

TEST(ArtifactOpenTest, TargetMismatchIsReportedBeforeTheJitError) {
  auto context = contextOrSkip();
  if (!context)
    GTEST_SKIP() << "no CUDA device";
  const std::string path = TEQ_FAKE_ARTIFACT_FUTURE;
  const DeviceInfo &device = context->device();
  EXPECT_EQ(Artifact::open(path, context).message(),
            "artifact '" + path + "' targets sm_200 but the device is " +
                device.smName() + " (" + device.name + ")");
  EXPECT_FALSE(hasMgpuError());
  // Inspecting needs no compatible device.
  auto manifest = Artifact::inspect(path);
  ASSERT_TRUE(manifest.ok()) << manifest.message();
  EXPECT_EQ(manifest->target.sm, 200);
}

TEST(ArtifactOpenTest, NotAnArtifact) {
  auto context = contextOrSkip();
  if (!context)
    GTEST_SKIP() << "no CUDA device";
  const std::string path = TEQ_FAKE_ARTIFACT_NO_MANIFEST;
  EXPECT_EQ(Artifact::open(path, context).message(),
            "artifact '" + path +
                "': not a TEQ artifact (no teq_artifact_manifest)");
  EXPECT_EQ(Artifact::open(path, nullptr).message(),
            "artifact '" + path + "': no CUDA context given");
}

} // namespace
