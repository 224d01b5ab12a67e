//===- FakeArtifact.cpp - Stand-ins for te-compile output in tests --------===//
//
// Shared libraries shaped like TEQ artifacts (docs/Artifact.md), without
// device code: they exercise the checks of the artifact file, loading,
// constructor errors and the error state of entries. Built several times
// with different macros:
//   FAKE_NOTE     1: the TEQ note te-compile links into every artifact
//                 (teq/Runtime/ArtifactFile.h); 0: a library that is not an
//                 artifact
//   FAKE_GEMM     1: the entries of Inputs/fake-artifact-gemm.json (gemm,
//                 gemm_bad_id, gemm_no_d), which call teqGemm
//   FAKE_BAD_PTX  1: a module constructor loads invalid PTX
//   FAKE_COLLECTIVES 1: the entries of Inputs/fake-artifact-collectives.json
//                 (all_reduce, all_gather, reduce_scatter, bad_group), which
//                 call teqAllReduce / teqAllGather / teqReduceScatter on
//                 their group "tp"
// CMakeLists.txt seals them with te-seal and a manifest from Inputs/, as
// te-compile seals what it links. Their mgpu* references are undefined here
// and resolve against libteq_runtime.so when the test opens them, as a real
// artifact's do.
//
//===----------------------------------------------------------------------===//

#if FAKE_NOTE
#include "teq/Runtime/ArtifactFile.h"
#endif

#include <cstdint>

extern "C" {
void *mgpuModuleLoadJIT(void *ptx, int32_t optLevel);
void mgpuModuleUnload(void *module);
void *mgpuModuleGetFunction(void *module, const char *name);
void mgpuLaunchKernel(void *function, int64_t gridX, int64_t gridY,
                      int64_t gridZ, int64_t blockX, int64_t blockY,
                      int64_t blockZ, int32_t smem, void *stream,
                      void **params, void **extra, int64_t paramsCount);
void *mgpuStreamCreate(void);
void mgpuStreamSynchronize(void *stream);
void mgpuStreamDestroy(void *stream);
void teqGemm(int64_t id, uint64_t a, uint64_t aScale, uint64_t b,
             uint64_t bScale, uint64_t c, uint64_t d, uint64_t bias,
             uint64_t alpha);
void teqAllGather(int64_t group, uint64_t send, uint64_t recv,
                  int64_t sendCount, int32_t type);
void teqReduceScatter(int64_t group, uint64_t send, uint64_t recv,
                      int64_t recvCount, int32_t type, int32_t op);
void teqAllReduce(int64_t group, uint64_t send, uint64_t recv, int64_t count,
                  int32_t type, int32_t op);
}

#define EXPORT extern "C" __attribute__((visibility("default")))

#if FAKE_NOTE
namespace {
namespace af = mlir::teq::runtime::artifact_file;
__attribute__((section(".note.teq"), used, aligned(4)))
const std::array<unsigned char, af::kNoteBytes> teqNote = af::unsealedNote();
} // namespace
#endif

#if FAKE_BAD_PTX
namespace {
void *fakeModule = nullptr;
char badPtx[] = "this is not PTX";
__attribute__((constructor)) void loadFakeModule() {
  fakeModule = mgpuModuleLoadJIT(badPtx, 2);
}
__attribute__((destructor)) void unloadFakeModule() {
  mgpuModuleUnload(fakeModule);
}
} // namespace
#endif

#if FAKE_GEMM
/// y = x w^T through GEMM 0. Records an error (GEMM id -1) unless the
/// runtime passed a 256-byte aligned workspace after the three arguments.
EXPORT void teq_entry_gemm(void **buffers) {
  auto address = [&](int i) {
    return static_cast<uint64_t>(reinterpret_cast<uintptr_t>(buffers[i]));
  };
  if (address(3) == 0 || address(3) % 256 != 0)
    teqGemm(-1, 0, 0, 0, 0, 0, 0, 0, 0);
  teqGemm(0, address(0), 0, address(1), 0, 0, address(2), 0, 0);
}

EXPORT void teq_entry_gemm_bad_id(void **buffers) {
  (void)buffers;
  teqGemm(7, 0, 0, 0, 0, 0, 0, 0, 0);
}

EXPORT void teq_entry_gemm_no_d(void **buffers) {
  auto address = [&](int i) {
    return static_cast<uint64_t>(reinterpret_cast<uintptr_t>(buffers[i]));
  };
  teqGemm(0, address(0), 0, address(1), 0, 0, 0, 0, 0);
}
#endif

#if FAKE_COLLECTIVES
namespace {
uint64_t address(void **buffers, int i) {
  return static_cast<uint64_t>(reinterpret_cast<uintptr_t>(buffers[i]));
}
// The ABI's values (teq/Runtime/Communicator.h).
constexpr int32_t kBytes = 0, kF32 = 1, kBF16 = 2;
constexpr int32_t kSum = 0, kMax = 1;
} // namespace

/// x: f32[64] -> sum, max: f32[64] over group 0 (an amax reduction is the
/// max one).
EXPORT void teq_entry_all_reduce(void **buffers) {
  teqAllReduce(0, address(buffers, 0), address(buffers, 1), 64, kF32, kSum);
  teqAllReduce(0, address(buffers, 0), address(buffers, 2), 64, kF32, kMax);
}

/// x: bf16[32, 16] -> y: bf16[64, 16], gathered along dim 0 as bytes (as
/// quantized data is).
EXPORT void teq_entry_all_gather(void **buffers) {
  teqAllGather(0, address(buffers, 0), address(buffers, 1), 32 * 16 * 2,
               kBytes);
}

/// x: bf16[64, 16] -> y: bf16[32, 16], summed and scattered along dim 0.
EXPORT void teq_entry_reduce_scatter(void **buffers) {
  teqReduceScatter(0, address(buffers, 0), address(buffers, 1), 32 * 16,
                   kBF16, kSum);
}

/// A group index the entry does not have, then a valid call that must be
/// skipped (the first error wins).
EXPORT void teq_entry_bad_group(void **buffers) {
  teqAllReduce(3, address(buffers, 0), address(buffers, 0), 64, kF32, kSum);
  teqAllReduce(0, address(buffers, 0), address(buffers, 0), 64, kF32, kSum);
}
#endif

/// Does nothing (a valid call with any valid buffers).
EXPORT void teq_entry_noop(void **buffers) { (void)buffers; }

/// Launches a null function twice: the first failure must be the one
/// reported.
EXPORT void teq_entry_fail(void **buffers) {
  (void)buffers;
  void *stream = mgpuStreamCreate();
  mgpuLaunchKernel(nullptr, 1, 1, 1, 32, 1, 1, 0, stream, nullptr, nullptr, 0);
  mgpuModuleGetFunction(nullptr, "second_error");
  mgpuStreamSynchronize(stream);
  mgpuStreamDestroy(stream);
}

namespace {
void *lastStream = nullptr;
} // namespace

/// Records an error unless mgpuStreamCreate returns the runtime's stream,
/// and remembers that stream for teq_fake_last_stream.
EXPORT void teq_entry_stream(void **buffers) {
  (void)buffers;
  void *stream = mgpuStreamCreate();
  lastStream = stream;
  if (!stream)
    mgpuModuleGetFunction(nullptr, "stream_was_null");
  mgpuStreamSynchronize(stream);
  mgpuStreamDestroy(stream);
}

/// The stream the last call of teq_entry_stream ran on (not an entry: tests
/// look it up with dlsym to check RunOptions::stream).
EXPORT void *teq_fake_last_stream(void) { return lastStream; }
