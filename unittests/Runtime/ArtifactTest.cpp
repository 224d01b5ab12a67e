//===- ArtifactTest.cpp - Loading artifacts, entries and their errors -----===//
//
// Uses the stand-in artifacts of FakeArtifact.cpp (sealed as te-compile
// seals an artifact) and damaged copies of them. Artifact::inspect and the
// checks of the artifact file need no GPU; the tests that open an artifact
// for real need a device and skip themselves without one.
//
//===----------------------------------------------------------------------===//

#include "teq/Runtime/Artifact.h"
#include "teq/Runtime/ArtifactFile.h"
#include "teq/Runtime/DeviceBuffer.h"
#include "teq/Runtime/Mgpu.h"

#include <gtest/gtest.h>

#include <dlfcn.h>
#include <unistd.h>

#include <atomic>
#include <cstdio>
#include <fstream>
#include <string>
#include <thread>
#include <utility>

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
            "artifact '" + noManifest + "': not a TEQ artifact (no trailer)");
  const std::string badManifest = TEQ_FAKE_ARTIFACT_BAD_MANIFEST;
  EXPECT_EQ(Artifact::inspect(badManifest).message(),
            "artifact '" + badManifest +
                "': manifest: entries[0].args[0].tensor: missing \"shape\"");
  EXPECT_EQ(Artifact::inspect("/nonexistent/x.so").message(),
            "artifact '/nonexistent/x.so': cannot load: cannot open the file: "
            "No such file or directory");
  // A bare file name is a file in the current directory, not a library
  // search.
  std::string bare = Artifact::inspect("libm.so.6").message();
  EXPECT_TRUE(contains(bare, "artifact 'libm.so.6': cannot load: ")) << bare;
  EXPECT_EQ(Artifact::inspect("/").message(),
            "artifact '/': cannot load: not a regular file");
}

TEST(ArtifactInspectTest, LoadsNoCode) {
  // Not even a library that could not be unloaded again (-z nodelete), or
  // one whose constructor loads (invalid) PTX: inspect reads the file.
  for (const std::string path :
       {TEQ_FAKE_ARTIFACT_NODELETE, TEQ_FAKE_ARTIFACT_BAD_PTX}) {
    ASSERT_TRUE(Artifact::inspect(path).ok()) << path;
    EXPECT_EQ(dlopen(path.c_str(), RTLD_NOW | RTLD_NOLOAD), nullptr) << path;
  }
  EXPECT_EQ(Artifact::open(TEQ_FAKE_ARTIFACT_NODELETE, nullptr).message(),
            "artifact '" + std::string(TEQ_FAKE_ARTIFACT_NODELETE) +
                "': no CUDA context given");
}

//===----------------------------------------------------------------------===//
// The caller's contract on result buffers (no GPU: pointer arithmetic)
//===----------------------------------------------------------------------===//

TEST(BufferContractTest, ResultsAreAlignedAndOverlapNothing) {
  // Entry 'noop': input x (bf16 16x16, 512 bytes), output result0 (per-tensor
  // FP8: data 256 bytes, scale_inv 4 bytes), output saved_x (x itself,
  // alias_of: no buffers, so the call passes none for it).
  auto manifest = Artifact::inspect(TEQ_FAKE_ARTIFACT);
  ASSERT_TRUE(manifest.ok()) << manifest.message();
  const EntrySpec &noop = manifest->entries[0];
  ASSERT_EQ(noop.name, "noop");
  auto check = [&](std::vector<DevicePtr> buffers) {
    Status status = checkBufferContract(noop, buffers);
    return status.ok() ? std::string() : status.message();
  };
  EXPECT_EQ(check({0x10000, 0x20000, 0x30000}), "");
  // Back to back is not overlapping.
  EXPECT_EQ(check({0x10000, 0x10200, 0x10300}), "");
  // A result inside an input, or an input inside a result.
  EXPECT_EQ(check({0x10000, 0x10100, 0x30000}),
            "entry 'noop': result 'result0' buffer 0 ('data') overlaps "
            "argument 'x'");
  EXPECT_EQ(check({0x10000, 0x20000, 0x10000}),
            "entry 'noop': result 'result0' buffer 1 ('scale_inv') overlaps "
            "argument 'x'");
  // An input that starts inside a result (found by address, whatever the
  // order of the buffers).
  EXPECT_EQ(check({0x20080, 0x20000, 0x30000}),
            "entry 'noop': result 'result0' buffer 0 ('data') overlaps "
            "argument 'x'");
  // Two buffers of results.
  EXPECT_EQ(check({0x10000, 0x20000, 0x20000}),
            "entry 'noop': result 'result0' buffer 0 ('data') overlaps "
            "result 'result0' buffer 1 ('scale_inv')");
  // Alignment: results only (inputs follow their own rules).
  EXPECT_EQ(check({0x10000, 0x20010, 0x30000}),
            "entry 'noop': result 'result0' buffer 0 ('data') at 0x20010 is "
            "not 256-byte aligned");
  EXPECT_EQ(check({0x10010, 0x20000, 0x30000}), "");
  // Null pointers are validate()'s to report; the count is checked.
  EXPECT_EQ(check({0, 0, 0}), "");
  EXPECT_EQ(check({0x10000}), "entry 'noop': expected 3 buffers, got 1");
  EXPECT_EQ(check({0x10000, 0x20000, 0x30000, 0x10000}),
            "entry 'noop': expected 3 buffers, got 4");
  ASSERT_EQ(noop.args.size(), 3u);
  EXPECT_EQ(noop.args[2].aliasOf, "x");
  EXPECT_EQ(noop.numBuffers(), 3u);
}

//===----------------------------------------------------------------------===//
// The artifact file: trailer, note, checksum, symbols
//===----------------------------------------------------------------------===//

namespace af = artifact_file;

std::string readAll(const std::string &path) {
  auto bytes = readFileBytes(path);
  EXPECT_TRUE(bytes.ok()) << bytes.message();
  return bytes.ok() ? *bytes : std::string();
}

/// Writes `bytes` to a file of its own under the test's temporary directory.
std::string writeTemporary(const std::string &name, const std::string &bytes) {
  const std::string path = ::testing::TempDir() + "teq-artifact-test-" +
                           std::to_string(::getpid()) + "-" + name;
  std::ofstream(path, std::ios::binary | std::ios::trunc) << bytes;
  return path;
}

/// The message of verifyArtifactFile, "" if it passes.
std::string verifyError(const std::string &bytes) {
  auto parts = verifyArtifactFile(bytes);
  return parts.ok() ? std::string() : parts.message();
}

/// The fake artifact's library (before its trailer) and manifest.
struct FakeParts {
  std::string file, library, manifest;
};

FakeParts fakeParts() {
  FakeParts fake;
  fake.file = readAll(TEQ_FAKE_ARTIFACT);
  auto parts = verifyArtifactFile(fake.file);
  EXPECT_TRUE(parts.ok()) << parts.message();
  if (parts.ok()) {
    fake.library = std::string(parts->library);
    fake.manifest = std::string(parts->manifest);
  }
  return fake;
}

/// `library` with a new trailer around `manifest`, its note reset first.
std::string resealed(std::string library, const std::string &manifest) {
  std::optional<af::Note> note = af::findNote(library);
  EXPECT_TRUE(note.has_value());
  if (note)
    af::storeLE64(library.data() + note->descriptorOffset + 8, 0);
  std::string why = af::seal(library, manifest);
  EXPECT_EQ(why, "");
  return library;
}

/// Rewrites the footer field at `offset` (from the footer's start) and
/// recomputes the checksum, as a tool that forged the file would.
std::string forgedFooter(std::string file, size_t offset, uint64_t value) {
  char *footer = file.data() + file.size() - af::kFooterBytes;
  af::storeLE64(footer + offset, value);
  af::storeLE64(footer + af::kChecksumOffset,
                af::xxh64(std::string_view(file).substr(
                    0, file.size() - af::kFooterBytes + af::kChecksumOffset)));
  return file;
}

TEST(ArtifactFileTest, Xxh64MatchesTheReference) {
  // Values of libxxhash's XXH64(data, size, 0).
  EXPECT_EQ(af::xxh64(""), 0xEF46DB3751D8E999ull);
  EXPECT_EQ(af::xxh64("abc"), 0x44BC2CF5AD770999ull);
  EXPECT_EQ(af::xxh64("The quick brown fox jumps over the lazy dog"),
            0x0B242D361FDA71BCull);
}

TEST(ArtifactFileTest, ASealedFileHasItsPartsAndLength) {
  FakeParts fake = fakeParts();
  ASSERT_FALSE(fake.library.empty());
  EXPECT_EQ(fake.file.size(),
            fake.library.size() + fake.manifest.size() + af::kFooterBytes);
  EXPECT_TRUE(parseManifest(fake.manifest).ok());
  std::optional<af::Note> note = af::findNote(fake.file);
  ASSERT_TRUE(note.has_value());
  EXPECT_EQ(note->version, af::kVersion);
  EXPECT_EQ(note->totalBytes, fake.file.size());
  std::optional<af::Footer> footer = af::readFooter(fake.file);
  ASSERT_TRUE(footer.has_value());
  EXPECT_EQ(footer->libraryBytes, fake.library.size());
  EXPECT_EQ(footer->manifestBytes, fake.manifest.size());
  EXPECT_EQ(footer->totalBytes, fake.file.size());
  // Sealing the library again gives the same file.
  EXPECT_EQ(resealed(fake.library, fake.manifest), fake.file);
  std::string sealedTwice = fake.file;
  EXPECT_EQ(af::seal(sealedTwice, "{}"),
            "the library already ends with a TEQ trailer");
  std::string notALibrary = "just text";
  EXPECT_TRUE(contains(af::seal(notALibrary, "{}"),
                       "the library has no TEQ note"));
}

TEST(ArtifactFileTest, TruncatedOrExtended) {
  const std::string file = fakeParts().file;
  const std::string size = std::to_string(file.size());
  for (size_t keep : {file.size() - 1, file.size() - af::kFooterBytes,
                      file.size() / 2, size_t(4096)})
    EXPECT_EQ(verifyError(file.substr(0, keep)),
              "truncated: its TEQ note records " + size +
                  " bytes, the file has " + std::to_string(keep));
  // Cut before the note (or before the ELF header is whole): nothing says it
  // was an artifact.
  EXPECT_EQ(verifyError(file.substr(0, 100)),
            "not a TEQ artifact (no trailer)");
  EXPECT_EQ(verifyError(""), "not a TEQ artifact (no trailer)");
  EXPECT_EQ(verifyError(file + "xyz"),
            "extended: its TEQ note records " + size +
                " bytes, the file has " + std::to_string(file.size() + 3) +
                " (bytes were appended after the trailer)");
  // Bytes removed from the middle: the trailer is still at the end.
  std::string cut = file.substr(0, 5000) + file.substr(5100);
  EXPECT_EQ(verifyError(cut), "truncated: the trailer says " + size +
                                  " bytes, the file has " +
                                  std::to_string(cut.size()));
  std::string inserted = file.substr(0, 5000) + "x" + file.substr(5000);
  EXPECT_EQ(verifyError(inserted), "extended: the trailer says " + size +
                                       " bytes, the file has " +
                                       std::to_string(inserted.size()));

  // Through inspect: the path and the problem.
  const std::string path = writeTemporary("short.so", file.substr(0, 4096));
  EXPECT_EQ(Artifact::inspect(path).message(),
            "artifact '" + path + "': truncated: its TEQ note records " +
                size + " bytes, the file has 4096");
  std::remove(path.c_str());
}

TEST(ArtifactFileTest, EveryFlippedByteIsCaught) {
  const std::string file = fakeParts().file;
  // Every byte of the library and the manifest, and every byte of the footer
  // before its checksum, is covered by the checksum or checked on its own.
  for (size_t offset = 0; offset < file.size(); ++offset) {
    std::string damaged = file;
    damaged[offset] ^= 0x01;
    std::string error = verifyError(damaged);
    EXPECT_FALSE(error.empty()) << "byte " << offset;
  }
  std::string code = file;
  code[file.size() / 3] ^= 0x40;
  EXPECT_TRUE(contains(verifyError(code),
                       "checksum mismatch: the file changed after te-compile "
                       "wrote it (its trailer records XXH64 0x"))
      << verifyError(code);
  std::string magic = file;
  magic[file.size() - af::kFooterBytes] ^= 0x01;
  EXPECT_EQ(verifyError(magic),
            "damaged trailer: its TEQ note records " +
                std::to_string(file.size()) +
                " bytes, but the file does not end with a TEQ trailer");
  std::string version = file;
  version[file.size() - af::kFooterBytes + 8] = 2;
  EXPECT_EQ(verifyError(version),
            "unsupported trailer format version 2 (this runtime reads "
            "version 1; written by another te-compile?)");
}

TEST(ArtifactFileTest, ForgedTrailers) {
  const std::string file = fakeParts().file;
  const size_t size = file.size();
  // Checksums recomputed: what is left to catch is what does not add up.
  EXPECT_EQ(verifyError(forgedFooter(file, 16, 64)),
            "damaged trailer: library (64 bytes), manifest (" +
                std::to_string(af::readFooter(file)->manifestBytes) +
                " bytes) and footer (48 bytes) do not add up to the file's " +
                std::to_string(size) + " bytes");
  EXPECT_TRUE(contains(verifyError(forgedFooter(file, 8, 1 | (1ull << 32))),
                       "unsupported trailer flags 0x"));
  // A note that disagrees with the trailer.
  std::string note = file;
  af::storeLE64(note.data() + af::findNote(note)->descriptorOffset + 8, 12345);
  note = forgedFooter(note, 32, size);
  EXPECT_EQ(verifyError(note), "its TEQ note records 12345 bytes, its "
                               "trailer " +
                                   std::to_string(size));
  // A library linked with the note but never sealed.
  std::string unsealed = fakeParts().library;
  af::storeLE64(
      unsealed.data() + af::findNote(unsealed)->descriptorOffset + 8, 0);
  EXPECT_EQ(verifyError(unsealed),
            "not sealed: the library has a TEQ note but no trailer "
            "(te-compile appends it after linking; a library linked by hand "
            "needs te-seal)");
}

TEST(ArtifactFileTest, ExportedFunctionsAndMachine) {
  FakeParts fake = fakeParts();
  auto exported = readExportedFunctions(fake.library);
  ASSERT_TRUE(exported.ok()) << exported.message();
  for (const char *name : {"teq_entry_noop", "teq_entry_fail",
                           "teq_entry_stream", "teq_fake_last_stream"})
    EXPECT_EQ(exported->count(name), 1u) << name;
  // Undefined (resolved against the runtime) and local symbols are not
  // exported.
  EXPECT_EQ(exported->count("mgpuLaunchKernel"), 0u);
  EXPECT_EQ(exported->count("teq_entry_gemm"), 0u);
  EXPECT_TRUE(checkElfMachine(fake.library).ok());

  // The ELF machine, without loading: e_machine is at offset 18.
  std::string foreign = fake.library;
#if defined(__aarch64__)
  af::storeLE32(foreign.data() + 16, 3 | (62u << 16)); // ET_DYN, EM_X86_64
  const std::string expected =
      "built for x86_64 (ELF machine 62), but this runtime runs on aarch64";
#else
  af::storeLE32(foreign.data() + 16, 3 | (183u << 16)); // ET_DYN, EM_AARCH64
  const std::string expected = "built for aarch64 (ELF machine 183), but "
                               "this runtime runs on x86_64";
#endif
#if defined(__x86_64__) || defined(__aarch64__)
  EXPECT_EQ(checkElfMachine(foreign).message(), expected);
#endif
  std::string executable = fake.library;
  executable[16] = 2; // ET_EXEC
  EXPECT_EQ(checkElfMachine(executable).message(),
            "not a shared library (ELF type 2)");
  EXPECT_EQ(readExportedFunctions("not an ELF file").message(),
            "not an ELF file");

  // Damaged section headers are an error, not a read out of bounds.
  std::string damaged = fake.library;
  af::storeLE64(damaged.data() + 40, uint64_t(1) << 60); // e_shoff
  EXPECT_EQ(readExportedFunctions(damaged).message(),
            "damaged ELF section headers");
  damaged = fake.library;
  af::storeLE64(damaged.data() + 40, damaged.size() - 10);
  EXPECT_EQ(readExportedFunctions(damaged).message(),
            "damaged ELF section headers");
}

TEST(ArtifactFileTest, EntrySymbolsAreCheckedWithoutLoading) {
  FakeParts fake = fakeParts();
  std::string manifest = fake.manifest;
  const std::string from = "\"symbol\": \"teq_entry_noop\"";
  ASSERT_NE(manifest.find(from), std::string::npos);
  manifest.replace(manifest.find(from), from.size(),
                   "\"symbol\": \"teq_entry_missing\"");
  const std::string path =
      writeTemporary("missing-symbol.so", resealed(fake.library, manifest));
  EXPECT_EQ(Artifact::inspect(path).message(),
            "artifact '" + path +
                "': entry 'noop': the library does not export its symbol "
                "'teq_entry_missing'");
  EXPECT_EQ(dlopen(path.c_str(), RTLD_NOW | RTLD_NOLOAD), nullptr);
  std::remove(path.c_str());
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

TEST(ArtifactOpenTest, TheBufferContractIsCheckedForEveryNewSetOfPointers) {
  // run() remembers the last pointers that met the contract, so that the
  // same pointers are not sorted again: any other set is still checked,
  // from any thread, with or without validation.
  auto context = contextOrSkip();
  if (!context)
    GTEST_SKIP() << "no CUDA device";
  auto artifact = Artifact::open(TEQ_FAKE_ARTIFACT, context);
  if (!artifact.ok() && contains(artifact.message(), " targets sm_90 "))
    GTEST_SKIP() << artifact.message();
  ASSERT_TRUE(artifact.ok()) << artifact.message();
  auto noop = (*artifact)->entry("noop");
  ASSERT_TRUE(noop.ok());
  auto x = DeviceBuffer::allocate(context, 1024);
  auto out = DeviceBuffer::allocate(context, 1024);
  ASSERT_TRUE(x.ok() && out.ok());
  const std::vector<DevicePtr> good = {x->ptr(), out->ptr(),
                                       out->ptr() + 512};
  // The data inside the input; the scale at the data.
  const std::vector<DevicePtr> overlapping = {x->ptr(), x->ptr() + 256,
                                              out->ptr() + 512};
  const std::vector<DevicePtr> selfOverlapping = {x->ptr(), out->ptr(),
                                                  out->ptr()};
  RunOptions unvalidated;
  unvalidated.validate = false;
  std::vector<std::thread> threads;
  std::atomic<int> mistakes{0};
  for (int t = 0; t < 4; ++t)
    threads.emplace_back([&, t] {
      for (int i = 0; i < 200; ++i) {
        const RunOptions options = (i + t) % 2 ? unvalidated : RunOptions();
        if (!(*noop)->run(good, options).ok())
          ++mistakes;
        if ((*noop)->run(overlapping, options).message() !=
            "entry 'noop': result 'result0' buffer 0 ('data') overlaps "
            "argument 'x'")
          ++mistakes;
        if ((*noop)->run(selfOverlapping, options).message() !=
            "entry 'noop': result 'result0' buffer 0 ('data') overlaps "
            "result 'result0' buffer 1 ('scale_inv')")
          ++mistakes;
      }
    });
  for (std::thread &thread : threads)
    thread.join();
  EXPECT_EQ(mistakes.load(), 0);
  EXPECT_TRUE(context->synchronize().ok());
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

TEST(ArtifactOpenTest, DamagedFilesAreRefusedBeforeLoading) {
  auto context = contextOrSkip();
  if (!context)
    GTEST_SKIP() << "no CUDA device";
  FakeParts fake = fakeParts();
  std::string flipped = fake.file;
  flipped[flipped.size() / 3] ^= 0x01;
  std::string manifest = fake.manifest;
  const std::string from = "\"symbol\": \"teq_entry_noop\"";
  manifest.replace(manifest.find(from), from.size(),
                   "\"symbol\": \"teq_entry_missing\"");
  const std::pair<std::string, std::string> cases[] = {
      {"truncated.so", fake.file.substr(0, fake.file.size() - 1)},
      {"flipped.so", flipped},
      {"missing-symbol.so", resealed(fake.library, manifest)}};
  for (const auto &[name, bytes] : cases) {
    const std::string path = writeTemporary(name, bytes);
    auto opened = Artifact::open(path, context);
    ASSERT_FALSE(opened.ok()) << name;
    EXPECT_EQ(opened.message(), Artifact::inspect(path).message()) << name;
    // Refused before dlopen: the library was never loaded.
    EXPECT_EQ(dlopen(path.c_str(), RTLD_NOW | RTLD_NOLOAD), nullptr) << name;
    EXPECT_FALSE(hasMgpuError());
    std::remove(path.c_str());
  }
}

TEST(ArtifactOpenTest, NotAnArtifact) {
  auto context = contextOrSkip();
  if (!context)
    GTEST_SKIP() << "no CUDA device";
  const std::string path = TEQ_FAKE_ARTIFACT_NO_MANIFEST;
  EXPECT_EQ(Artifact::open(path, context).message(),
            "artifact '" + path + "': not a TEQ artifact (no trailer)");
  EXPECT_EQ(Artifact::open(path, nullptr).message(),
            "artifact '" + path + "': no CUDA context given");
}

} // namespace
