//===- FakeArtifact.cpp - Stand-ins for te-compile output in tests --------===//
//
// Shared libraries shaped like TEQ artifacts (docs/Artifact.md), without
// device code: they exercise loading, manifest errors, constructor errors and
// the error state of entries. Built several times with different macros:
//   FAKE_MANIFEST   0: no teq_artifact_manifest, 1: a valid manifest,
//                   2: an invalid one
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

/// Records an error unless mgpuStreamCreate returns the runtime's stream.
EXPORT void teq_entry_stream(void **buffers) {
  (void)buffers;
  void *stream = mgpuStreamCreate();
  if (!stream)
    mgpuModuleGetFunction(nullptr, "stream_was_null");
  mgpuStreamSynchronize(stream);
  mgpuStreamDestroy(stream);
}
