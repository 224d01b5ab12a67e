/*===- RuntimeCAPITest.c - The runtime C API, from C ----------------------===*\
|*                                                                            *|
|* Compiled as C99 (with -pedantic-errors), so it also proves that            *|
|* teq-c/Runtime.h is C. Each function runs a group of checks on the stand-in *|
|* artifacts of FakeArtifact.cpp, prints one line per check and returns the   *|
|* number of failed checks; RuntimeCAPITest.cpp calls them from GoogleTest.   *|
|* Without a GPU, context creation must fail with a message and the parts     *|
|* that need a device report themselves skipped.                              *|
|*                                                                            *|
\*===----------------------------------------------------------------------===*/

#include "teq-c/Runtime.h"

#include <dlfcn.h>
#include <stdio.h>
#include <string.h>

static int failures;

static void report(int ok, const char *what, const char *file, int line) {
  if (ok) {
    printf("[capi] ok:   %s\n", what);
  } else {
    printf("[capi] FAIL: %s (%s:%d; last error: \"%s\")\n", what, file, line,
           teqRtGetLastError());
    ++failures;
  }
  fflush(stdout);
}

#define CHECK(condition)                                                       \
  report((condition) ? 1 : 0, #condition, __FILE__, __LINE__)

/// Checks that `actual` equals `expected` (both strings).
static void checkString(const char *actual, const char *expected,
                        const char *what, const char *file, int line) {
  int ok = actual && strcmp(actual, expected) == 0;
  if (!ok)
    printf("[capi]   expected \"%s\"\n[capi]   got      \"%s\"\n", expected,
           actual ? actual : "(null)");
  report(ok, what, file, line);
}
#define CHECK_STR(actual, expected)                                            \
  checkString((actual), (expected), #actual " == " #expected, __FILE__,        \
              __LINE__)

/// Checks that `text` starts with `prefix`.
static void checkPrefix(const char *text, const char *prefix, const char *what,
                        const char *file, int line) {
  int ok = text && strncmp(text, prefix, strlen(prefix)) == 0;
  if (!ok)
    printf("[capi]   expected a prefix \"%s\"\n[capi]   got \"%s\"\n", prefix,
           text ? text : "(null)");
  report(ok, what, file, line);
}
#define CHECK_PREFIX(text, prefix)                                             \
  checkPrefix((text), (prefix), #text " starts with " #prefix, __FILE__,       \
              __LINE__)

/// Checks that the last call failed with `status` and the message
/// `expected`.
static void checkError(TeqRtStatus status, TeqRtStatus expectedStatus,
                       const char *expected, const char *what, const char *file,
                       int line) {
  const char *message = teqRtGetLastError();
  int ok = status == expectedStatus && strcmp(message, expected) == 0;
  if (!ok)
    printf("[capi]   expected status %d \"%s\"\n[capi]   got      status %d "
           "\"%s\"\n",
           (int)expectedStatus, expected, (int)status, message);
  report(ok, what, file, line);
}
#define CHECK_ERROR(call, expectedStatus, expected)                            \
  checkError((call), (expectedStatus), (expected), #call, __FILE__, __LINE__)

#define CHECK_OK(call)                                                         \
  report((call) == TEQ_RT_SUCCESS && teqRtGetLastError()[0] == '\0', #call,    \
         __FILE__, __LINE__)

static int shapeIs(size_t rank, const int64_t *shape, size_t expectedRank,
                   int64_t d0, int64_t d1) {
  if (rank != expectedRank || (rank > 0 && !shape))
    return 0;
  if (rank >= 1 && shape[0] != d0)
    return 0;
  if (rank >= 2 && shape[1] != d1)
    return 0;
  return 1;
}

/*===----------------------------------------------------------------------===*
 * Inspecting: listing without a GPU
 *===----------------------------------------------------------------------===*/

int teqRtCapiTestInspect(void) {
  TeqRtArtifact artifact = {NULL};
  TeqRtEntry entry = {NULL};
  TeqRtArgInfo arg;
  TeqRtBufferInfo buffer;
  TeqRtGemmInfo gemm;
  const char *text = NULL;
  size_t count = 0;
  int64_t bytes = -1;
  bool loaded = true;

  failures = 0;
  printf("[capi] inspect %s\n", TEQ_FAKE_ARTIFACT);
  CHECK_OK(teqRtArtifactInspect(TEQ_FAKE_ARTIFACT, &artifact));
  if (teqRtArtifactIsNull(artifact))
    return failures + 1;
  CHECK_OK(teqRtArtifactIsLoaded(artifact, &loaded));
  CHECK(!loaded);
  CHECK_OK(teqRtArtifactGetPath(artifact, &text));
  CHECK_STR(text, TEQ_FAKE_ARTIFACT);
  CHECK_OK(teqRtArtifactGetTarget(artifact, &text));
  CHECK_STR(text, "sm_90");
  CHECK_OK(teqRtArtifactGetDeviceCode(artifact, &text));
  CHECK_STR(text, "ptx");
  CHECK_OK(teqRtArtifactGetManifestJson(artifact, &text));
  CHECK(text && text[0] == '{');
  CHECK(text && strstr(text, "\"format\":\"teq-artifact\"") != NULL);
  /* Keys the API does not model are in the JSON. */
  CHECK(text && strstr(text, "\"future_key\":{\"ignored\":[1,2,3]}") != NULL);
  CHECK_OK(teqRtArtifactGetNumGemms(artifact, &count));
  CHECK(count == 0);

  /* Entries. */
  CHECK_OK(teqRtArtifactGetNumEntries(artifact, &count));
  CHECK(count == 3);
  CHECK_OK(teqRtArtifactGetEntry(artifact, 1, &entry));
  CHECK_OK(teqRtEntryGetName(entry, &text));
  CHECK_STR(text, "fail");
  CHECK_OK(teqRtArtifactLookupEntry(artifact, "stream", &entry));
  CHECK_OK(teqRtEntryGetName(entry, &text));
  CHECK_STR(text, "stream");
  CHECK_OK(teqRtEntryGetNumArgs(entry, &count));
  CHECK(count == 0);
  CHECK_OK(teqRtEntryGetNumBuffers(entry, &count));
  CHECK(count == 0);

  CHECK_OK(teqRtArtifactGetEntry(artifact, 0, &entry));
  CHECK_OK(teqRtEntryGetName(entry, &text));
  CHECK_STR(text, "noop");
  CHECK_OK(teqRtEntryGetWorkspaceBytes(entry, &bytes));
  CHECK(bytes == 0);
  CHECK_OK(teqRtEntryGetNumArgs(entry, &count));
  CHECK(count == 3);

  /* A tensor argument. */
  CHECK_OK(teqRtEntryGetArgInfo(entry, 0, &arg));
  CHECK_STR(arg.name, "x");
  CHECK(arg.kind == TEQ_RT_ARG_INPUT);
  CHECK(!arg.isProto);
  CHECK_STR(arg.dtype, "bf16");
  CHECK(shapeIs(arg.rank, arg.shape, 2, 16, 16));
  CHECK(arg.numBuffers == 1 && arg.firstBuffer == 0);
  CHECK(arg.bytes == 512);
  CHECK_STR(arg.quantizerKind, "");
  CHECK_STR(arg.usage, "");
  CHECK_STR(arg.quantizerJson, "");

  /* A quantized (proto) result. */
  CHECK_OK(teqRtEntryGetArgInfo(entry, 1, &arg));
  CHECK_STR(arg.name, "result0");
  CHECK(arg.kind == TEQ_RT_ARG_OUTPUT);
  CHECK(arg.isProto);
  CHECK_STR(arg.dtype, "bf16");
  CHECK(shapeIs(arg.rank, arg.shape, 2, 16, 16));
  CHECK(arg.numBuffers == 2 && arg.firstBuffer == 1);
  CHECK(arg.bytes == 260);
  CHECK_STR(arg.quantizerKind, "float8_current_scaling");
  CHECK_STR(arg.usage, "rowwise");
  CHECK_STR(arg.scaleLayout, "compact");
  CHECK(strstr(arg.quantizerJson, "\"fp8_dtype\":\"e4m3\"") != NULL);
  CHECK_STR(arg.aliasOf, "");

  /* An alias output: argument x itself, no buffers of its own. */
  CHECK_OK(teqRtEntryGetArgInfo(entry, 2, &arg));
  CHECK_STR(arg.name, "saved_x");
  CHECK(arg.kind == TEQ_RT_ARG_OUTPUT);
  CHECK_STR(arg.aliasOf, "x");
  CHECK_STR(arg.role, "saved");
  CHECK(shapeIs(arg.rank, arg.shape, 2, 16, 16));
  CHECK(arg.numBuffers == 0 && arg.bytes == 0);

  /* The flat buffer list (nothing for the alias). */
  CHECK_OK(teqRtEntryGetNumBuffers(entry, &count));
  CHECK(count == 3);
  CHECK_OK(teqRtEntryGetBufferInfo(entry, 0, &buffer));
  CHECK(buffer.argIndex == 0 && buffer.bufferIndex == 0);
  CHECK_STR(buffer.name, "tensor");
  CHECK_STR(buffer.encoding, "bf16");
  CHECK(shapeIs(buffer.rank, buffer.shape, 2, 16, 16));
  CHECK(buffer.bytes == 512);
  CHECK_OK(teqRtEntryGetBufferInfo(entry, 1, &buffer));
  CHECK(buffer.argIndex == 1 && buffer.bufferIndex == 0);
  CHECK_STR(buffer.name, "data");
  CHECK_STR(buffer.encoding, "e4m3");
  CHECK(shapeIs(buffer.rank, buffer.shape, 2, 16, 16));
  CHECK(shapeIs(buffer.rank, buffer.validShape, 2, 16, 16));
  CHECK(buffer.bytes == 256 && !buffer.transposed);
  CHECK_OK(teqRtEntryGetBufferInfo(entry, 2, &buffer));
  CHECK(buffer.argIndex == 1 && buffer.bufferIndex == 1);
  CHECK_STR(buffer.name, "scale_inv");
  CHECK_STR(buffer.encoding, "f32");
  CHECK(shapeIs(buffer.rank, buffer.shape, 1, 1, 0));
  CHECK(buffer.bytes == 4);
  teqRtArtifactDestroy(artifact);

  /* GEMMs and a workspace. */
  printf("[capi] inspect %s\n", TEQ_FAKE_ARTIFACT_GEMM);
  artifact.ptr = NULL;
  CHECK_OK(teqRtArtifactInspect(TEQ_FAKE_ARTIFACT_GEMM, &artifact));
  if (teqRtArtifactIsNull(artifact))
    return failures + 1;
  CHECK_OK(teqRtArtifactGetNumGemms(artifact, &count));
  CHECK(count == 1);
  CHECK_OK(teqRtArtifactGetGemmInfo(artifact, 0, &gemm));
  CHECK(gemm.id == 0);
  CHECK_STR(gemm.name, "fake:fprop");
  CHECK(gemm.m == 32 && gemm.n == 16 && gemm.k == 64);
  CHECK(gemm.transa && !gemm.transb);
  CHECK_STR(gemm.aType, "bf16");
  CHECK_STR(gemm.bType, "bf16");
  CHECK_STR(gemm.dType, "bf16");
  CHECK(gemm.lda == 64 && gemm.ldb == 64 && gemm.ldd == 32);
  CHECK_STR(gemm.aScaleMode, "none");
  CHECK_STR(gemm.bScaleMode, "none");
  CHECK_STR(gemm.epilogue, "default");
  CHECK(!gemm.accumulate && !gemm.fastAccum);
  CHECK_ERROR(teqRtArtifactGetGemmInfo(artifact, 1, &gemm), TEQ_RT_OUT_OF_RANGE,
              "artifact '" TEQ_FAKE_ARTIFACT_GEMM
              "': GEMM index 1 is out of range (it has 1 GEMM)");
  CHECK_OK(teqRtArtifactLookupEntry(artifact, "gemm", &entry));
  CHECK_OK(teqRtEntryGetWorkspaceBytes(entry, &bytes));
  CHECK(bytes == 4000);
  /* The workspace is not one of the caller's buffers. */
  CHECK_OK(teqRtEntryGetNumBuffers(entry, &count));
  CHECK(count == 3);
  teqRtArtifactDestroy(artifact);
  return failures;
}

/*===----------------------------------------------------------------------===*
 * Errors without a GPU
 *===----------------------------------------------------------------------===*/

int teqRtCapiTestErrors(void) {
  TeqRtArtifact artifact = {NULL};
  TeqRtArtifact none = {NULL};
  TeqRtEntry entry = {NULL};
  TeqRtEntry noEntry = {NULL};
  TeqRtEntry kept = {NULL};
  TeqRtContext noContext = {NULL};
  TeqRtArgInfo arg;
  TeqRtBufferInfo buffer;
  TeqRtRunOptions options = teqRtRunOptionsGetDefault();
  const char *text = NULL;
  size_t count = 0;
  uint64_t pointers[3] = {0, 0, 0};

  failures = 0;
  CHECK(options.validate && !options.synchronize);
  /* Loading. */
  CHECK(teqRtArtifactInspect("/nonexistent/x.so", &artifact) == TEQ_RT_FAILURE);
  CHECK_PREFIX(teqRtGetLastError(),
               "artifact '/nonexistent/x.so': cannot load: ");
  CHECK(teqRtArtifactIsNull(artifact));
  CHECK_ERROR(teqRtArtifactInspect(TEQ_FAKE_ARTIFACT_NO_MANIFEST, &artifact),
              TEQ_RT_FAILURE,
              "artifact '" TEQ_FAKE_ARTIFACT_NO_MANIFEST
              "': not a TEQ artifact (no trailer)");
  CHECK_ERROR(teqRtArtifactInspect(TEQ_FAKE_ARTIFACT_BAD_MANIFEST, &artifact),
              TEQ_RT_FAILURE,
              "artifact '" TEQ_FAKE_ARTIFACT_BAD_MANIFEST
              "': manifest: entries[0].args[0].tensor: missing \"shape\"");
  CHECK(teqRtArtifactIsNull(artifact));
  CHECK_ERROR(teqRtArtifactInspect(NULL, &artifact), TEQ_RT_INVALID_ARGUMENT,
              "teqRtArtifactInspect: 'path' is null");
  CHECK_ERROR(teqRtArtifactInspect(TEQ_FAKE_ARTIFACT, NULL),
              TEQ_RT_INVALID_ARGUMENT,
              "teqRtArtifactInspect: 'artifact' is null");
  CHECK_ERROR(teqRtArtifactLoad(noContext, TEQ_FAKE_ARTIFACT, &artifact),
              TEQ_RT_INVALID_ARGUMENT,
              "teqRtArtifactLoad: null context handle");

  /* Null handles and out-pointers. */
  CHECK_ERROR(teqRtArtifactGetNumEntries(none, &count), TEQ_RT_INVALID_ARGUMENT,
              "teqRtArtifactGetNumEntries: null artifact handle");
  CHECK_ERROR(teqRtArtifactGetManifestJson(none, &text),
              TEQ_RT_INVALID_ARGUMENT,
              "teqRtArtifactGetManifestJson: null artifact handle");
  CHECK_ERROR(teqRtEntryGetName(noEntry, &text), TEQ_RT_INVALID_ARGUMENT,
              "teqRtEntryGetName: null entry handle");
  CHECK_ERROR(teqRtEntryRun(noEntry, NULL, 0, NULL, NULL),
              TEQ_RT_INVALID_ARGUMENT, "teqRtEntryRun: null entry handle");
  CHECK_ERROR(teqRtContextSynchronize(noContext), TEQ_RT_INVALID_ARGUMENT,
              "teqRtContextSynchronize: null context handle");
  CHECK_ERROR(teqRtContextCreate(0, NULL), TEQ_RT_INVALID_ARGUMENT,
              "teqRtContextCreate: 'context' is null");
  /* Destroying null handles does nothing. */
  teqRtArtifactDestroy(none);
  teqRtContextDestroy(noContext);

  CHECK_OK(teqRtArtifactInspect(TEQ_FAKE_ARTIFACT, &artifact));
  if (teqRtArtifactIsNull(artifact))
    return failures + 1;
  CHECK_ERROR(teqRtArtifactGetNumEntries(artifact, NULL),
              TEQ_RT_INVALID_ARGUMENT,
              "teqRtArtifactGetNumEntries: 'numEntries' is null");
  CHECK_ERROR(teqRtArtifactLookupEntry(artifact, NULL, &entry),
              TEQ_RT_INVALID_ARGUMENT,
              "teqRtArtifactLookupEntry: 'name' is null");

  /* Indices and names. */
  CHECK_OK(teqRtArtifactGetEntry(artifact, 0, &kept));
  entry = kept;
  CHECK_ERROR(teqRtArtifactGetEntry(artifact, 3, &entry), TEQ_RT_OUT_OF_RANGE,
              "artifact '" TEQ_FAKE_ARTIFACT
              "': entry index 3 is out of range (it has 3 entries)");
  /* Out-pointers are left alone on failure. */
  CHECK(entry.ptr == kept.ptr);
  CHECK_ERROR(teqRtArtifactLookupEntry(artifact, "nope", &entry),
              TEQ_RT_NOT_FOUND,
              "artifact '" TEQ_FAKE_ARTIFACT
              "': no entry 'nope' (entries: noop, fail, stream)");
  CHECK_ERROR(teqRtArtifactGetGemmInfo(artifact, 0, NULL),
              TEQ_RT_INVALID_ARGUMENT,
              "teqRtArtifactGetGemmInfo: 'info' is null");
  CHECK_ERROR(teqRtEntryGetArgInfo(entry, 3, &arg), TEQ_RT_OUT_OF_RANGE,
              "entry 'noop': argument index 3 is out of range (it has 3 "
              "arguments)");
  CHECK_ERROR(teqRtEntryGetBufferInfo(entry, 7, &buffer), TEQ_RT_OUT_OF_RANGE,
              "entry 'noop': buffer index 7 is out of range (it has 3 "
              "buffers)");
  /* A success clears the last error. */
  CHECK_OK(teqRtEntryGetName(entry, &text));
  CHECK_STR(teqRtGetLastError(), "");

  /* The caller's contract, checked on an inspected entry too: results
   * 256-byte aligned, overlapping nothing (x is 512 bytes, result0's data
   * 256, its scale_inv 4). */
  {
    uint64_t contract[3] = {0x10000, 0x20000, 0x30000};
    CHECK_OK(teqRtEntryCheckBuffers(entry, contract, 3));
    contract[1] = 0x10100;
    CHECK_ERROR(teqRtEntryCheckBuffers(entry, contract, 3),
                TEQ_RT_INVALID_ARGUMENT,
                "entry 'noop': result 'result0' buffer 0 ('data') overlaps "
                "argument 'x'");
    contract[1] = 0x20010;
    CHECK_ERROR(teqRtEntryCheckBuffers(entry, contract, 3),
                TEQ_RT_INVALID_ARGUMENT,
                "entry 'noop': result 'result0' buffer 0 ('data') at 0x20010 "
                "is not 256-byte aligned");
    CHECK_ERROR(teqRtEntryCheckBuffers(entry, contract, 2),
                TEQ_RT_INVALID_ARGUMENT,
                "entry 'noop': expected 3 buffers, got 2");
  }

  /* Running what was only inspected. */
  CHECK_ERROR(teqRtEntryRun(entry, pointers, 3, NULL, &options), TEQ_RT_FAILURE,
              "entry 'noop': artifact '" TEQ_FAKE_ARTIFACT
              "' was opened for inspection only; load it on a context "
              "(teqRtArtifactLoad) to run its entries");
  CHECK_ERROR(teqRtEntryValidate(entry, pointers, 3), TEQ_RT_FAILURE,
              "entry 'noop': artifact '" TEQ_FAKE_ARTIFACT
              "' was opened for inspection only; load it on a context "
              "(teqRtArtifactLoad) to run its entries");
  teqRtArtifactDestroy(artifact);
  return failures;
}

/*===----------------------------------------------------------------------===*
 * A device: context, loading and running
 *===----------------------------------------------------------------------===*/

/* Device memory without linking libcuda: the driver's cuMemAlloc_v2 and
 * cuMemFree_v2, looked up at run time as the runtime does. The context made
 * current by teqRtContextCreate is current on this thread. */
typedef int (*MemAllocFn)(uint64_t *pointer, size_t bytes);
typedef int (*MemFreeFn)(uint64_t pointer);
static MemAllocFn memAlloc;
static MemFreeFn memFree;

static int loadMemoryFunctions(void) {
  void *driver = dlopen("libcuda.so.1", RTLD_NOW | RTLD_LOCAL);
  if (!driver)
    return 0;
  /* The cast through void ** keeps ISO C's object/function pointer rule. */
  *(void **)(&memAlloc) = dlsym(driver, "cuMemAlloc_v2");
  *(void **)(&memFree) = dlsym(driver, "cuMemFree_v2");
  return memAlloc && memFree;
}

/* The stream the fake artifact's `stream` entry last ran on. */
static void *lastStream(void) {
  void *(*function)(void) = NULL;
  void *stream = NULL;
  void *handle = dlopen(TEQ_FAKE_ARTIFACT, RTLD_NOW | RTLD_NOLOAD);
  if (!handle)
    return NULL;
  *(void **)(&function) = dlsym(handle, "teq_fake_last_stream");
  if (function)
    stream = function();
  dlclose(handle);
  return stream;
}

int teqRtCapiTestDevice(int *skipped) {
  TeqRtContext context = {NULL};
  TeqRtContext other = {NULL};
  TeqRtArtifact artifact = {NULL};
  TeqRtEntry noop = {NULL};
  TeqRtEntry failing = {NULL};
  TeqRtEntry streamEntry = {NULL};
  TeqRtDeviceInfo device;
  TeqRtRunOptions options = teqRtRunOptionsGetDefault();
  TeqRtStatus status;
  void *stream = NULL;
  void *otherStream = NULL;
  uint64_t buffers[3] = {0, 0, 0};
  uint64_t y = 0;
  bool loaded = false;
  char expected[1024];

  failures = 0;
  *skipped = 0;
  status = teqRtContextCreate(0, &context);
  if (status != TEQ_RT_SUCCESS) {
    /* No GPU or no driver: an error with text, nothing else happens. */
    printf("[capi] no device: %s\n", teqRtGetLastError());
    CHECK(status == TEQ_RT_FAILURE);
    CHECK(teqRtGetLastError()[0] != '\0');
    CHECK(teqRtContextIsNull(context));
    *skipped = 1;
    return failures;
  }
  CHECK_STR(teqRtGetLastError(), "");
  CHECK_OK(teqRtContextGetDeviceInfo(context, &device));
  printf("[capi] device %d: %s (%s, %d SMs)\n", device.ordinal, device.name,
         device.smName, device.multiprocessors);
  CHECK(device.computeCapability >= 50 && device.multiprocessors > 0);
  CHECK(device.name[0] != '\0');
  CHECK_PREFIX(device.smName, "sm_");
  CHECK_OK(teqRtContextGetStream(context, &stream));
  CHECK(stream != NULL);
  CHECK_OK(teqRtContextSynchronize(context));
  CHECK(teqRtContextCreate(4096, &other) == TEQ_RT_FAILURE);
  CHECK_PREFIX(teqRtGetLastError(), "CUDA device 4096 requested, but ");

  status = teqRtArtifactLoad(context, TEQ_FAKE_ARTIFACT, &artifact);
  if (status != TEQ_RT_SUCCESS &&
      strstr(teqRtGetLastError(), " targets sm_90 ") != NULL) {
    printf("[capi] skipped running: %s\n", teqRtGetLastError());
    *skipped = 1;
    teqRtContextDestroy(context);
    return failures;
  }
  CHECK(status == TEQ_RT_SUCCESS);
  if (status != TEQ_RT_SUCCESS) {
    teqRtContextDestroy(context);
    return failures;
  }
  /* The artifact keeps the device alive. */
  teqRtContextDestroy(context);
  CHECK_OK(teqRtArtifactIsLoaded(artifact, &loaded));
  CHECK(loaded);
  CHECK_ERROR(teqRtArtifactLookupEntry(artifact, "nope", &noop),
              TEQ_RT_NOT_FOUND,
              "artifact '" TEQ_FAKE_ARTIFACT
              "': no entry 'nope' (entries: noop, fail, stream)");
  CHECK_OK(teqRtArtifactLookupEntry(artifact, "noop", &noop));
  CHECK_OK(teqRtArtifactLookupEntry(artifact, "fail", &failing));
  CHECK_OK(teqRtArtifactLookupEntry(artifact, "stream", &streamEntry));

  if (!loadMemoryFunctions()) {
    CHECK(!"cuMemAlloc_v2 from libcuda.so.1");
    teqRtArtifactDestroy(artifact);
    return failures;
  }
  CHECK(memAlloc(&buffers[0], 512) == 0);
  CHECK(memAlloc(&buffers[1], 256) == 0);
  CHECK(memAlloc(&buffers[2], 4) == 0);
  CHECK(memAlloc(&y, 16) == 0);

  /* Runs, on the context's stream and with all options. */
  CHECK_OK(teqRtEntryValidate(noop, buffers, 3));
  CHECK_OK(teqRtEntryRun(noop, buffers, 3, NULL, NULL));
  options.synchronize = true;
  CHECK_OK(teqRtEntryRun(noop, buffers, 3, NULL, &options));
  options.validate = false;
  CHECK_OK(teqRtEntryRun(noop, buffers, 3, NULL, &options));
  options = teqRtRunOptionsGetDefault();

  /* Bad calls. */
  CHECK_ERROR(teqRtEntryRun(noop, buffers, 2, NULL, NULL),
              TEQ_RT_INVALID_ARGUMENT,
              "entry 'noop': expected 3 buffers, got 2");
  CHECK_ERROR(teqRtEntryRun(noop, NULL, 3, NULL, NULL), TEQ_RT_INVALID_ARGUMENT,
              "teqRtEntryRun: entry 'noop': 'buffers' is null but 3 buffers "
              "were announced");
  buffers[0] += 256; /* 256 of the 512 bytes left */
  CHECK_ERROR(teqRtEntryRun(noop, buffers, 3, NULL, NULL), TEQ_RT_FAILURE,
              "entry 'noop': argument 'x' buffer 0: 512 bytes needed, 256 "
              "given");
  buffers[0] -= 256;
  snprintf(expected, sizeof expected,
           "entry 'noop': pointer for argument 'x' is not device memory");
  {
    uint64_t host[3];
    host[0] = (uint64_t)(uintptr_t)expected;
    host[1] = buffers[1];
    host[2] = buffers[2];
    CHECK_ERROR(teqRtEntryValidate(noop, host, 3), TEQ_RT_FAILURE, expected);
  }
  CHECK_ERROR(teqRtEntryRun(failing, &y, 1, NULL, NULL), TEQ_RT_FAILURE,
              "entry 'fail': kernel launch with a null function");

  /* The caller's stream: another context's on the same device (the same
   * primary context, a stream of its own). */
  CHECK_OK(teqRtEntryRun(streamEntry, NULL, 0, NULL, NULL));
  CHECK(lastStream() == stream);
  CHECK_OK(teqRtContextCreate(0, &other));
  CHECK_OK(teqRtContextGetStream(other, &otherStream));
  CHECK(otherStream != NULL && otherStream != stream);
  options.synchronize = true;
  CHECK_OK(teqRtEntryRun(streamEntry, NULL, 0, otherStream, &options));
  CHECK(lastStream() == otherStream);
  CHECK_OK(teqRtEntryRun(noop, buffers, 3, otherStream, &options));
  CHECK_ERROR(teqRtEntryRun(failing, &y, 1, otherStream, &options),
              TEQ_RT_FAILURE,
              "entry 'fail': kernel launch with a null function");
  CHECK_OK(teqRtContextSynchronize(other));

  CHECK(memFree(buffers[0]) == 0);
  CHECK(memFree(buffers[1]) == 0);
  CHECK(memFree(buffers[2]) == 0);
  CHECK(memFree(y) == 0);
  teqRtArtifactDestroy(artifact);
  teqRtContextDestroy(other);
  return failures;
}
