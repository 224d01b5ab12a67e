//===- FakeArtifact.cpp - Stand-ins for te-compile output in tests --------===//
//
// Shared libraries shaped like TEQ artifacts (docs/Artifact.md), without
// device code: they exercise loading, manifest errors, constructor errors and
// the error state of entries. Built several times with different macros:
//   FAKE_MANIFEST   0: no teq_artifact_manifest, 1: a valid manifest,
//                   2: an invalid one, 3: a valid one with a GEMM and a
//                   workspace (entries gemm, gemm_bad_id, gemm_no_d)
//   FAKE_BAD_PTX    1: a module constructor loads invalid PTX
//   FAKE_TARGET     the manifest's target (default "sm_90")
// Their mgpu* references are undefined here and resolve against
// libteq_runtime.so when the test opens them, as a real artifact's do.
//
//===----------------------------------------------------------------------===//

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
}

#define EXPORT extern "C" __attribute__((visibility("default")))

#ifndef FAKE_TARGET
#define FAKE_TARGET "sm_90"
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

#if FAKE_MANIFEST == 1
EXPORT const char *teq_artifact_manifest(void) {
  return R"json({
  "format": "teq-artifact",
  "version": 1,
  "target": ")json" FAKE_TARGET R"json(",
  "device_code": "ptx",
  "future_key": {"ignored": [1, 2, 3]},
  "entries": [
    {
      "name": "noop",
      "symbol": "teq_entry_noop",
      "args": [
        {"name": "x", "kind": "input", "tensor": {"dtype": "bf16", "shape": [16, 16]}},
        {"name": "result0", "kind": "output",
         "proto": {
           "dtype": "bf16", "shape": [16, 16],
           "quantizer": {"kind": "float8_current_scaling", "fp8_dtype": "e4m3",
                         "force_pow_2_scales": false, "amax_epsilon": 0.0},
           "usage": "rowwise", "scale_layout": "compact"},
         "buffers": [
           {"name": "data", "encoding": "e4m3", "shape": [16, 16], "valid_shape": [16, 16], "bytes": 256},
           {"name": "scale_inv", "encoding": "f32", "shape": [1], "valid_shape": [1], "bytes": 4}
         ],
         "computed_by": {"op": "quantize", "input": "x"}}
      ]
    },
    {
      "name": "fail",
      "args": [
        {"name": "y", "kind": "output", "tensor": {"dtype": "f32", "shape": [4]}}
      ]
    },
    {
      "name": "stream",
      "args": []
    }
  ]
})json";
}
#elif FAKE_MANIFEST == 2
EXPORT const char *teq_artifact_manifest(void) {
  return R"json({"format": "teq-artifact", "version": 1, "target": "sm_90",
  "device_code": "ptx", "entries": [{"name": "e", "args": [
    {"name": "x", "kind": "input", "tensor": {"dtype": "bf16"}}]}]})json";
}
#elif FAKE_MANIFEST == 3
// One bf16 TN GEMM, D[32 x 16] = A^T B with A stored 64 x 32 and B 64 x 16
// (column-major), as the compiler would describe fprop of a 16 x 64 input
// with a 32 x 64 weight; the "gemm" entry also takes a workspace.
EXPORT const char *teq_artifact_manifest(void) {
  return R"json({
  "format": "teq-artifact",
  "version": 1,
  "target": ")json" FAKE_TARGET R"json(",
  "device_code": "ptx",
  "entries": [
    {
      "name": "gemm",
      "workspace_bytes": 4000,
      "args": [
        {"name": "w", "kind": "input", "tensor": {"dtype": "bf16", "shape": [32, 64]}},
        {"name": "x", "kind": "input", "tensor": {"dtype": "bf16", "shape": [16, 64]}},
        {"name": "y", "kind": "output", "tensor": {"dtype": "bf16", "shape": [16, 32]}}
      ]
    },
    {"name": "gemm_bad_id", "args": []},
    {
      "name": "gemm_no_d",
      "args": [
        {"name": "w", "kind": "input", "tensor": {"dtype": "bf16", "shape": [32, 64]}},
        {"name": "x", "kind": "input", "tensor": {"dtype": "bf16", "shape": [16, 64]}}
      ]
    }
  ],
  "gemms": [
    {"id": 0, "name": "fake:fprop", "m": 32, "n": 16, "k": 64,
     "transa": true, "transb": false,
     "a_type": "bf16", "b_type": "bf16", "d_type": "bf16",
     "lda": 64, "ldb": 64, "ldd": 32,
     "a_scale_mode": "none", "b_scale_mode": "none",
     "epilogue": "default", "accumulate": false, "fast_accum": false,
     "alpha": "host", "compute_type": "32f"}
  ]
})json";
}

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
