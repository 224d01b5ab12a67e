//===- FakeCuda.cpp - A stand-in CUDA driver and cuBLASLt for host timing -===//
//
// libcuda.so.1 and libcublasLt.so.<major> that do no device work: one
// sm_90 "device" whose memory is host memory, modules, functions, streams
// and events that are handles, launches and matmuls that return at once.
// With them on LD_LIBRARY_PATH, host_cost (and the runtime's unit tests)
// run the runtime's whole per-call path on a machine without a GPU, and
// what host_cost measures there is the runtime's own host work per call:
// everything but the driver's and cuBLASLt's (bench/host_cost/CMakeLists.txt
// builds them with -DTEQ_HOST_COST_FAKE_CUDA=ON). Nothing here is used on
// the GPU machine.
//
// The runtime resolves the driver through cuGetProcAddress_v2 (Driver.h) and
// cuBLASLt through dlsym (CublasLt.h); the signatures come from the
// toolkit's own headers. Built twice: FAKE_CUBLASLT 0 (the driver) and 1.
//
//===----------------------------------------------------------------------===//

#include <cuda.h>
#if FAKE_CUBLASLT
#include <cublasLt.h>
#endif

#include <atomic>
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <map>
#include <mutex>
#include <string>

#define FAKE_EXPORT extern "C" __attribute__((visibility("default")))

namespace {
/// Distinct non-null handles (never dereferenced by the runtime).
void *newHandle() {
  static std::atomic<uintptr_t> next{0x1000};
  return reinterpret_cast<void *>(next.fetch_add(0x100));
}
} // namespace

#if !FAKE_CUBLASLT

namespace {
thread_local CUcontext current = nullptr;
CUcontext const primary = reinterpret_cast<CUcontext>(0x10);

struct Memory {
  std::mutex mutex;
  std::map<uintptr_t, size_t> allocations; ///< base -> size
};
Memory &memory() {
  static Memory *m = new Memory();
  return *m;
}

struct FakeStream {
  unsigned long long id;
};
std::atomic<unsigned long long> nextStreamId{1};
} // namespace

extern "C" {
CUresult fakeGetErrorName(CUresult, const char **name) {
  *name = "CUDA_ERROR_FAKE";
  return CUDA_SUCCESS;
}
CUresult fakeGetErrorString(CUresult, const char **text) {
  *text = "fake driver";
  return CUDA_SUCCESS;
}
CUresult fakeInit(unsigned) { return CUDA_SUCCESS; }
CUresult fakeDriverGetVersion(int *v) {
  *v = CUDA_VERSION;
  return CUDA_SUCCESS;
}
CUresult fakeDeviceGetCount(int *count) {
  *count = 1;
  return CUDA_SUCCESS;
}
CUresult fakeDeviceGet(CUdevice *device, int ordinal) {
  *device = ordinal;
  return ordinal == 0 ? CUDA_SUCCESS : CUDA_ERROR_INVALID_DEVICE;
}
CUresult fakeDeviceGetName(char *name, int len, CUdevice) {
  std::strncpy(name, "Fake CUDA device (no GPU)", len);
  return CUDA_SUCCESS;
}
CUresult fakeDeviceGetAttribute(int *value, CUdevice_attribute attribute,
                                CUdevice) {
  switch (attribute) {
  case CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MAJOR:
    *value = 9;
    break;
  case CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MINOR:
    *value = 0;
    break;
  case CU_DEVICE_ATTRIBUTE_MULTIPROCESSOR_COUNT:
    *value = 132;
    break;
  case CU_DEVICE_ATTRIBUTE_L2_CACHE_SIZE:
    *value = 50 << 20;
    break;
  default:
    *value = 0;
  }
  return CUDA_SUCCESS;
}
CUresult fakeDeviceTotalMem(size_t *bytes, CUdevice) {
  *bytes = size_t(80) << 30;
  return CUDA_SUCCESS;
}
CUresult fakeDevicePrimaryCtxRetain(CUcontext *context, CUdevice) {
  *context = primary;
  return CUDA_SUCCESS;
}
CUresult fakeDevicePrimaryCtxRelease(CUdevice) { return CUDA_SUCCESS; }
CUresult fakeCtxGetCurrent(CUcontext *context) {
  *context = current;
  return CUDA_SUCCESS;
}
CUresult fakeCtxSetCurrent(CUcontext context) {
  current = context;
  return CUDA_SUCCESS;
}
CUresult fakeCtxSynchronize() { return CUDA_SUCCESS; }
CUresult fakeStreamSynchronize(CUstream) { return CUDA_SUCCESS; }
CUresult fakeEventDestroy(CUevent) { return CUDA_SUCCESS; }
CUresult fakeEventRecord(CUevent, CUstream) { return CUDA_SUCCESS; }
CUresult fakeEventSynchronize(CUevent) { return CUDA_SUCCESS; }
CUresult fakeEventQuery(CUevent) { return CUDA_SUCCESS; }
CUresult fakeStreamWaitEvent(CUstream, CUevent, unsigned) {
  return CUDA_SUCCESS;
}
CUresult fakeStreamCreate(CUstream *stream, unsigned) {
  *stream = reinterpret_cast<CUstream>(
      new FakeStream{nextStreamId.fetch_add(1)});
  return CUDA_SUCCESS;
}
CUresult fakeStreamDestroy(CUstream stream) {
  delete reinterpret_cast<FakeStream *>(stream);
  return CUDA_SUCCESS;
}
CUresult fakeStreamGetId(CUstream stream, unsigned long long *id) {
  // The legacy and per-thread default streams are handles, not objects.
  uintptr_t handle = reinterpret_cast<uintptr_t>(stream);
  *id = handle < 0x100 ? handle : reinterpret_cast<FakeStream *>(stream)->id;
  return CUDA_SUCCESS;
}
CUresult fakeStreamIsCapturing(CUstream, CUstreamCaptureStatus *status) {
  *status = CU_STREAM_CAPTURE_STATUS_NONE;
  return CUDA_SUCCESS;
}
CUresult fakeThreadExchangeStreamCaptureMode(CUstreamCaptureMode *) {
  return CUDA_SUCCESS;
}
// CUDA graphs (RunOptions::graph): captured and launched as no-ops.
CUresult fakeStreamBeginCapture(CUstream, CUstreamCaptureMode) {
  return CUDA_SUCCESS;
}
CUresult fakeStreamEndCapture(CUstream, CUgraph *graph) {
  *graph = static_cast<CUgraph>(newHandle());
  return CUDA_SUCCESS;
}
CUresult fakeGraphInstantiateWithFlags(CUgraphExec *exec, CUgraph,
                                       unsigned long long) {
  *exec = static_cast<CUgraphExec>(newHandle());
  return CUDA_SUCCESS;
}
CUresult fakeGraphLaunch(CUgraphExec, CUstream) { return CUDA_SUCCESS; }
CUresult fakeGraphExecDestroy(CUgraphExec) { return CUDA_SUCCESS; }
CUresult fakeGraphDestroy(CUgraph) { return CUDA_SUCCESS; }
CUresult fakeModuleLoadData(CUmodule *module, const void *) {
  *module = static_cast<CUmodule>(newHandle());
  return CUDA_SUCCESS;
}
CUresult fakeModuleLoadDataEx(CUmodule *module, const void *, unsigned,
                              CUjit_option *, void **) {
  *module = static_cast<CUmodule>(newHandle());
  return CUDA_SUCCESS;
}
CUresult fakeModuleUnload(CUmodule) { return CUDA_SUCCESS; }
CUresult fakeModuleGetFunction(CUfunction *function, CUmodule, const char *) {
  *function = static_cast<CUfunction>(newHandle());
  return CUDA_SUCCESS;
}
CUresult fakeFuncGetAttribute(int *value, CUfunction_attribute, CUfunction) {
  *value = 0;
  return CUDA_SUCCESS;
}
CUresult fakeFuncSetAttribute(CUfunction, CUfunction_attribute, int) {
  return CUDA_SUCCESS;
}
CUresult fakeLaunchKernel(CUfunction, unsigned, unsigned, unsigned, unsigned,
                          unsigned, unsigned, unsigned, CUstream, void **,
                          void **) {
  return CUDA_SUCCESS;
}
CUresult fakeLaunchKernelEx(const CUlaunchConfig *, CUfunction, void **,
                            void **) {
  return CUDA_SUCCESS;
}
CUresult fakeMemAlloc(CUdeviceptr *ptr, size_t bytes) {
  void *p = std::aligned_alloc(256, (bytes + 255) / 256 * 256);
  if (!p)
    return CUDA_ERROR_OUT_OF_MEMORY;
  std::lock_guard<std::mutex> lock(memory().mutex);
  memory().allocations[reinterpret_cast<uintptr_t>(p)] = bytes;
  *ptr = reinterpret_cast<CUdeviceptr>(p);
  return CUDA_SUCCESS;
}
CUresult fakeMemFree(CUdeviceptr ptr) {
  {
    std::lock_guard<std::mutex> lock(memory().mutex);
    memory().allocations.erase(static_cast<uintptr_t>(ptr));
  }
  std::free(reinterpret_cast<void *>(ptr));
  return CUDA_SUCCESS;
}
CUresult fakeMemcpyHtoDAsync(CUdeviceptr dst, const void *src, size_t bytes,
                             CUstream) {
  std::memcpy(reinterpret_cast<void *>(dst), src, bytes);
  return CUDA_SUCCESS;
}
CUresult fakeMemcpyDtoHAsync(void *dst, CUdeviceptr src, size_t bytes,
                             CUstream) {
  std::memcpy(dst, reinterpret_cast<const void *>(src), bytes);
  return CUDA_SUCCESS;
}
CUresult fakeMemsetD8Async(CUdeviceptr dst, unsigned char value, size_t bytes,
                           CUstream) {
  std::memset(reinterpret_cast<void *>(dst), value, bytes);
  return CUDA_SUCCESS;
}
CUresult fakeMemGetAddressRange(CUdeviceptr *base, size_t *size,
                                CUdeviceptr ptr) {
  std::lock_guard<std::mutex> lock(memory().mutex);
  auto &allocations = memory().allocations;
  auto it = allocations.upper_bound(static_cast<uintptr_t>(ptr));
  if (it == allocations.begin())
    return CUDA_ERROR_NOT_FOUND;
  --it;
  if (ptr >= it->first + it->second)
    return CUDA_ERROR_NOT_FOUND;
  *base = it->first;
  *size = it->second;
  return CUDA_SUCCESS;
}
CUresult fakePointerGetAttribute(void *data, CUpointer_attribute attribute,
                                 CUdeviceptr ptr) {
  CUdeviceptr base;
  size_t size;
  if (fakeMemGetAddressRange(&base, &size, ptr) != CUDA_SUCCESS)
    return CUDA_ERROR_INVALID_VALUE;
  if (attribute == CU_POINTER_ATTRIBUTE_MEMORY_TYPE)
    *static_cast<unsigned *>(data) = CU_MEMORYTYPE_DEVICE;
  else if (attribute == CU_POINTER_ATTRIBUTE_DEVICE_ORDINAL)
    *static_cast<int *>(data) = 0;
  else
    return CUDA_ERROR_NOT_SUPPORTED;
  return CUDA_SUCCESS;
}
CUresult fakeEventCreate(CUevent *event, unsigned) {
  *event = static_cast<CUevent>(newHandle());
  return CUDA_SUCCESS;
}
CUresult fakeEventElapsedTime(float *ms, CUevent, CUevent) {
  *ms = 0;
  return CUDA_SUCCESS;
}

// Under their own names too, for code that looks them up with dlsym (the
// runtime's ConcurrencyTest makes its streams so, RuntimeCAPITest its
// buffers).
FAKE_EXPORT CUresult cuMemAlloc(CUdeviceptr *ptr, size_t bytes) {
  return fakeMemAlloc(ptr, bytes);
}
FAKE_EXPORT CUresult cuMemFree(CUdeviceptr ptr) { return fakeMemFree(ptr); }
FAKE_EXPORT CUresult cuStreamCreate(CUstream *stream, unsigned flags) {
  return fakeStreamCreate(stream, flags);
}
FAKE_EXPORT CUresult cuStreamDestroy(CUstream stream) {
  return fakeStreamDestroy(stream);
}
FAKE_EXPORT CUresult cuStreamSynchronize(CUstream stream) {
  return fakeStreamSynchronize(stream);
}

FAKE_EXPORT CUresult cuGetProcAddress_v2(const char *symbol, void **pfn, int,
                                         cuuint64_t,
                                         CUdriverProcAddressQueryResult *found) {
  static const std::map<std::string, void *> table = {
#define FAKE_ENTRY(name, fn) {name, reinterpret_cast<void *>(&fn)}
      FAKE_ENTRY("cuGetErrorName", fakeGetErrorName),
      FAKE_ENTRY("cuGetErrorString", fakeGetErrorString),
      FAKE_ENTRY("cuInit", fakeInit),
      FAKE_ENTRY("cuDriverGetVersion", fakeDriverGetVersion),
      FAKE_ENTRY("cuDeviceGetCount", fakeDeviceGetCount),
      FAKE_ENTRY("cuDeviceGet", fakeDeviceGet),
      FAKE_ENTRY("cuDeviceGetName", fakeDeviceGetName),
      FAKE_ENTRY("cuDeviceGetAttribute", fakeDeviceGetAttribute),
      FAKE_ENTRY("cuDeviceTotalMem", fakeDeviceTotalMem),
      FAKE_ENTRY("cuDevicePrimaryCtxRetain", fakeDevicePrimaryCtxRetain),
      FAKE_ENTRY("cuDevicePrimaryCtxRelease", fakeDevicePrimaryCtxRelease),
      FAKE_ENTRY("cuCtxGetCurrent", fakeCtxGetCurrent),
      FAKE_ENTRY("cuCtxSetCurrent", fakeCtxSetCurrent),
      FAKE_ENTRY("cuCtxSynchronize", fakeCtxSynchronize),
      FAKE_ENTRY("cuStreamCreate", fakeStreamCreate),
      FAKE_ENTRY("cuStreamDestroy", fakeStreamDestroy),
      FAKE_ENTRY("cuStreamSynchronize", fakeStreamSynchronize),
      FAKE_ENTRY("cuModuleLoadData", fakeModuleLoadData),
      FAKE_ENTRY("cuModuleLoadDataEx", fakeModuleLoadDataEx),
      FAKE_ENTRY("cuModuleUnload", fakeModuleUnload),
      FAKE_ENTRY("cuModuleGetFunction", fakeModuleGetFunction),
      FAKE_ENTRY("cuFuncGetAttribute", fakeFuncGetAttribute),
      FAKE_ENTRY("cuFuncSetAttribute", fakeFuncSetAttribute),
      FAKE_ENTRY("cuLaunchKernel", fakeLaunchKernel),
      FAKE_ENTRY("cuLaunchKernelEx", fakeLaunchKernelEx),
      FAKE_ENTRY("cuMemAlloc", fakeMemAlloc),
      FAKE_ENTRY("cuMemFree", fakeMemFree),
      FAKE_ENTRY("cuMemcpyHtoDAsync", fakeMemcpyHtoDAsync),
      FAKE_ENTRY("cuMemcpyDtoHAsync", fakeMemcpyDtoHAsync),
      FAKE_ENTRY("cuMemsetD8Async", fakeMemsetD8Async),
      FAKE_ENTRY("cuMemGetAddressRange", fakeMemGetAddressRange),
      FAKE_ENTRY("cuPointerGetAttribute", fakePointerGetAttribute),
      FAKE_ENTRY("cuEventCreate", fakeEventCreate),
      FAKE_ENTRY("cuEventDestroy", fakeEventDestroy),
      FAKE_ENTRY("cuEventRecord", fakeEventRecord),
      FAKE_ENTRY("cuEventSynchronize", fakeEventSynchronize),
      FAKE_ENTRY("cuEventElapsedTime", fakeEventElapsedTime),
      FAKE_ENTRY("cuEventQuery", fakeEventQuery),
      FAKE_ENTRY("cuStreamWaitEvent", fakeStreamWaitEvent),
      FAKE_ENTRY("cuStreamGetId", fakeStreamGetId),
      FAKE_ENTRY("cuStreamIsCapturing", fakeStreamIsCapturing),
      FAKE_ENTRY("cuThreadExchangeStreamCaptureMode",
                 fakeThreadExchangeStreamCaptureMode),
      FAKE_ENTRY("cuStreamBeginCapture", fakeStreamBeginCapture),
      FAKE_ENTRY("cuStreamEndCapture", fakeStreamEndCapture),
      FAKE_ENTRY("cuGraphInstantiateWithFlags", fakeGraphInstantiateWithFlags),
      FAKE_ENTRY("cuGraphLaunch", fakeGraphLaunch),
      FAKE_ENTRY("cuGraphExecDestroy", fakeGraphExecDestroy),
      FAKE_ENTRY("cuGraphDestroy", fakeGraphDestroy),
#undef FAKE_ENTRY
  };
  auto it = table.find(symbol);
  if (it == table.end()) {
    *pfn = nullptr;
    if (found)
      *found = CU_GET_PROC_ADDRESS_SYMBOL_NOT_FOUND;
    return CUDA_ERROR_NOT_FOUND;
  }
  *pfn = it->second;
  if (found)
    *found = CU_GET_PROC_ADDRESS_SUCCESS;
  return CUDA_SUCCESS;
}
} // extern "C"

#else // FAKE_CUBLASLT

// Exported under cuBLASLt's own names: the runtime resolves them with dlsym.
extern "C" {
FAKE_EXPORT cublasStatus_t cublasLtCreate(cublasLtHandle_t *handle) {
  *handle = static_cast<cublasLtHandle_t>(newHandle());
  return CUBLAS_STATUS_SUCCESS;
}
FAKE_EXPORT cublasStatus_t cublasLtDestroy(cublasLtHandle_t) {
  return CUBLAS_STATUS_SUCCESS;
}
FAKE_EXPORT const char *cublasLtGetStatusName(cublasStatus_t) {
  return "CUBLAS_STATUS_FAKE";
}
FAKE_EXPORT const char *cublasLtGetStatusString(cublasStatus_t) {
  return "fake cuBLASLt";
}
FAKE_EXPORT size_t cublasLtGetVersion(void) { return CUBLAS_VERSION; }
FAKE_EXPORT cublasStatus_t
cublasLtMatmul(cublasLtHandle_t, cublasLtMatmulDesc_t, const void *,
               const void *, cublasLtMatrixLayout_t, const void *,
               cublasLtMatrixLayout_t, const void *, const void *,
               cublasLtMatrixLayout_t, void *, cublasLtMatrixLayout_t,
               const cublasLtMatmulAlgo_t *, void *, size_t, cudaStream_t) {
  return CUBLAS_STATUS_SUCCESS;
}
FAKE_EXPORT cublasStatus_t cublasLtMatmulDescCreate(cublasLtMatmulDesc_t *desc,
                                                    cublasComputeType_t,
                                                    cudaDataType_t) {
  *desc = static_cast<cublasLtMatmulDesc_t>(newHandle());
  return CUBLAS_STATUS_SUCCESS;
}
FAKE_EXPORT cublasStatus_t cublasLtMatmulDescDestroy(cublasLtMatmulDesc_t) {
  return CUBLAS_STATUS_SUCCESS;
}
FAKE_EXPORT cublasStatus_t
cublasLtMatmulDescSetAttribute(cublasLtMatmulDesc_t,
                               cublasLtMatmulDescAttributes_t, const void *,
                               size_t) {
  return CUBLAS_STATUS_SUCCESS;
}
FAKE_EXPORT cublasStatus_t
cublasLtMatrixLayoutCreate(cublasLtMatrixLayout_t *layout, cudaDataType,
                           uint64_t, uint64_t, int64_t) {
  *layout = static_cast<cublasLtMatrixLayout_t>(newHandle());
  return CUBLAS_STATUS_SUCCESS;
}
FAKE_EXPORT cublasStatus_t cublasLtMatrixLayoutDestroy(cublasLtMatrixLayout_t) {
  return CUBLAS_STATUS_SUCCESS;
}
FAKE_EXPORT cublasStatus_t
cublasLtMatmulPreferenceCreate(cublasLtMatmulPreference_t *pref) {
  *pref = static_cast<cublasLtMatmulPreference_t>(newHandle());
  return CUBLAS_STATUS_SUCCESS;
}
FAKE_EXPORT cublasStatus_t
cublasLtMatmulPreferenceDestroy(cublasLtMatmulPreference_t) {
  return CUBLAS_STATUS_SUCCESS;
}
FAKE_EXPORT cublasStatus_t cublasLtMatmulPreferenceSetAttribute(
    cublasLtMatmulPreference_t, cublasLtMatmulPreferenceAttributes_t,
    const void *, size_t) {
  return CUBLAS_STATUS_SUCCESS;
}
FAKE_EXPORT cublasStatus_t cublasLtMatmulAlgoGetHeuristic(
    cublasLtHandle_t, cublasLtMatmulDesc_t, cublasLtMatrixLayout_t,
    cublasLtMatrixLayout_t, cublasLtMatrixLayout_t, cublasLtMatrixLayout_t,
    cublasLtMatmulPreference_t, int requested,
    cublasLtMatmulHeuristicResult_t results[], int *returned) {
  if (requested < 1)
    return CUBLAS_STATUS_INVALID_VALUE;
  std::memset(&results[0], 0, sizeof(results[0]));
  results[0].state = CUBLAS_STATUS_SUCCESS;
  results[0].wavesCount = 1.0f;
  *returned = 1;
  return CUBLAS_STATUS_SUCCESS;
}
FAKE_EXPORT cublasStatus_t cublasLtMatmulAlgoInit(
    cublasLtHandle_t, cublasComputeType_t, cudaDataType_t, cudaDataType_t,
    cudaDataType_t, cudaDataType_t, cudaDataType_t, int,
    cublasLtMatmulAlgo_t *algo) {
  std::memset(algo, 0, sizeof(*algo));
  return CUBLAS_STATUS_SUCCESS;
}
FAKE_EXPORT cublasStatus_t cublasLtMatmulAlgoCheck(
    cublasLtHandle_t, cublasLtMatmulDesc_t, cublasLtMatrixLayout_t,
    cublasLtMatrixLayout_t, cublasLtMatrixLayout_t, cublasLtMatrixLayout_t,
    const cublasLtMatmulAlgo_t *, cublasLtMatmulHeuristicResult_t *result) {
  std::memset(result, 0, sizeof(*result));
  result->state = CUBLAS_STATUS_SUCCESS;
  return CUBLAS_STATUS_SUCCESS;
}
FAKE_EXPORT cublasStatus_t cublasLtMatmulAlgoConfigGetAttribute(
    const cublasLtMatmulAlgo_t *, cublasLtMatmulAlgoConfigAttributes_t,
    void *buffer, size_t size, size_t *written) {
  std::memset(buffer, 0, size);
  if (written)
    *written = size;
  return CUBLAS_STATUS_SUCCESS;
}
FAKE_EXPORT cublasStatus_t cublasLtMatmulAlgoConfigSetAttribute(
    cublasLtMatmulAlgo_t *, cublasLtMatmulAlgoConfigAttributes_t, const void *,
    size_t) {
  return CUBLAS_STATUS_SUCCESS;
}
FAKE_EXPORT cublasStatus_t cublasLtLoggerSetCallback(cublasLtLoggerCallback_t) {
  return CUBLAS_STATUS_SUCCESS;
}
FAKE_EXPORT cublasStatus_t cublasLtLoggerSetLevel(int) {
  return CUBLAS_STATUS_SUCCESS;
}
} // extern "C"

#endif // FAKE_CUBLASLT
