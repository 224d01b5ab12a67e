//===- Mgpu.cpp - The mgpu* functions artifacts call ----------------------===//
//
// See teq/Runtime/Mgpu.h and docs/Artifact.md. Errors are recorded, never
// printed; the first one on a thread wins until the runtime takes it.
//
//===----------------------------------------------------------------------===//

#include "teq/Runtime/Mgpu.h"

#include "Driver.h"
#include "Internal.h"

#include <cstring>
#include <map>
#include <mutex>
#include <string>
#include <utility>

using namespace mlir::teq::runtime;
using namespace mlir::teq::runtime::detail;

namespace {

struct ThreadState {
  bool failed = false;
  std::string message;
  std::string lastKernel; ///< Name of the last kernel launched.
  CUstream stream = nullptr;
  bool inspectOnly = false;
  /// The running artifact's programmatic dependents (MgpuScope), or null.
  const std::set<std::string> *dependentLaunchKernels = nullptr;
};

thread_local ThreadState threadState;

void recordError(std::string message) {
  if (threadState.failed)
    return;
  threadState.failed = true;
  threadState.message = std::move(message);
}

/// Whether mgpu calls should do nothing: inspect-only mode or a recorded
/// error.
bool skipCall() { return threadState.inspectOnly || threadState.failed; }

/// The driver, with the calling thread's current context checked; records
/// "<what>: ..." and returns null on failure.
const Driver *driverWithContext(const std::string &what) {
  auto driver = getDriver();
  if (!driver.ok()) {
    recordError(what + ": " + driver.message());
    return nullptr;
  }
  CUcontext current = nullptr;
  CUresult result = (*driver)->cuCtxGetCurrent(&current);
  if (result != CUDA_SUCCESS) {
    recordError(what + ": cuCtxGetCurrent failed: " + describeCUresult(result));
    return nullptr;
  }
  if (!current) {
    recordError(what + ": no CUDA context is current on this thread (open "
                       "artifacts through the TEQ runtime)");
    return nullptr;
  }
  return *driver;
}

/// Kernel lookups, cached per (module, name), and each function's name and
/// the dynamic shared memory it was opted into.
struct FunctionInfo {
  std::string name;
  int32_t maxDynamicSmem = 48 * 1024;
};

struct FunctionCache {
  std::mutex mutex;
  std::map<std::pair<CUmodule, std::string>, CUfunction> byName;
  std::map<CUfunction, FunctionInfo> info;
};

FunctionCache &functionCache() {
  // Leaked on purpose: artifacts' module destructors may run during exit.
  static FunctionCache *cache = new FunctionCache();
  return *cache;
}

std::string trimLog(const char *log, size_t capacity) {
  size_t length = strnlen(log, capacity);
  std::string text(log, length);
  while (!text.empty() && (text.back() == '\n' || text.back() == ' ' ||
                           text.back() == '\r' || text.back() == '\0'))
    text.pop_back();
  return text;
}

} // namespace

//===----------------------------------------------------------------------===//
// Error state
//===----------------------------------------------------------------------===//

namespace mlir::teq::runtime {

void clearMgpuError() {
  threadState.failed = false;
  threadState.message.clear();
  threadState.lastKernel.clear();
}

bool hasMgpuError() { return threadState.failed; }

Status takeMgpuError() {
  if (!threadState.failed)
    return Status::success();
  Status status = Status::error(threadState.message);
  clearMgpuError();
  return status;
}

namespace detail {
MgpuScope::MgpuScope(void *stream, bool inspectOnly,
                     const std::set<std::string> *dependentLaunchKernels)
    : savedStream_(threadState.stream),
      savedInspectOnly_(threadState.inspectOnly),
      savedDependentLaunchKernels_(threadState.dependentLaunchKernels) {
  threadState.stream = static_cast<CUstream>(stream);
  threadState.inspectOnly = inspectOnly;
  threadState.dependentLaunchKernels = dependentLaunchKernels;
}

MgpuScope::~MgpuScope() {
  threadState.stream = static_cast<CUstream>(savedStream_);
  threadState.inspectOnly = savedInspectOnly_;
  threadState.dependentLaunchKernels = savedDependentLaunchKernels_;
}
} // namespace detail

} // namespace mlir::teq::runtime

//===----------------------------------------------------------------------===//
// The C ABI
//===----------------------------------------------------------------------===//

extern "C" {

void *mgpuModuleLoadJIT(void *ptx, int32_t optLevel) {
  if (skipCall())
    return nullptr;
  const std::string what = "loading PTX module failed";
  if (!ptx) {
    recordError(what + ": null PTX");
    return nullptr;
  }
  const Driver *driver = driverWithContext(what);
  if (!driver)
    return nullptr;

  constexpr size_t kLogSize = 16384;
  static thread_local char errorLog[kLogSize];
  std::memset(errorLog, 0, kLogSize);
  int32_t level = optLevel < 0 ? 0 : (optLevel > 4 ? 4 : optLevel);
  CUjit_option options[] = {CU_JIT_ERROR_LOG_BUFFER,
                            CU_JIT_ERROR_LOG_BUFFER_SIZE_BYTES,
                            CU_JIT_OPTIMIZATION_LEVEL};
  void *values[] = {errorLog,
                    reinterpret_cast<void *>(static_cast<uintptr_t>(kLogSize)),
                    reinterpret_cast<void *>(static_cast<uintptr_t>(level))};
  CUmodule module = nullptr;
  CUresult result = driver->cuModuleLoadDataEx(
      &module, ptx, sizeof(options) / sizeof(options[0]), options, values);
  if (result != CUDA_SUCCESS) {
    std::string log = trimLog(errorLog, kLogSize);
    recordError(what + ": " + describeCUresult(result) +
                (log.empty() ? std::string() : "; PTX JIT log: " + log));
    return nullptr;
  }
  return module;
}

void *mgpuModuleLoad(void *cubin, int64_t size) {
  if (skipCall())
    return nullptr;
  const std::string what =
      "loading cubin module (" + std::to_string(size) + " bytes) failed";
  if (!cubin) {
    recordError(what + ": null image");
    return nullptr;
  }
  const Driver *driver = driverWithContext(what);
  if (!driver)
    return nullptr;
  CUmodule module = nullptr;
  CUresult result = driver->cuModuleLoadData(&module, cubin);
  if (result != CUDA_SUCCESS) {
    recordError(what + ": " + describeCUresult(result));
    return nullptr;
  }
  return module;
}

void mgpuModuleUnload(void *module) {
  if (!module)
    return;
  CUmodule cuModule = static_cast<CUmodule>(module);
  {
    FunctionCache &cache = functionCache();
    std::lock_guard<std::mutex> lock(cache.mutex);
    for (auto it = cache.byName.begin(); it != cache.byName.end();) {
      if (it->first.first == cuModule) {
        cache.info.erase(it->second);
        it = cache.byName.erase(it);
      } else {
        ++it;
      }
    }
  }
  if (threadState.inspectOnly)
    return;
  auto driver = getDriver();
  if (!driver.ok())
    return;
  // Best effort: this runs from artifact destructors, where nobody could act
  // on an error, and it must not replace a recorded one.
  (void)(*driver)->cuModuleUnload(cuModule);
}

void *mgpuModuleGetFunction(void *module, const char *name) {
  if (skipCall())
    return nullptr;
  const std::string kernel = name ? name : "<null>";
  if (!module) {
    recordError("kernel '" + kernel + "': its module was not loaded");
    return nullptr;
  }
  if (!name) {
    recordError("mgpuModuleGetFunction called with a null kernel name");
    return nullptr;
  }
  CUmodule cuModule = static_cast<CUmodule>(module);
  FunctionCache &cache = functionCache();
  {
    std::lock_guard<std::mutex> lock(cache.mutex);
    auto it = cache.byName.find({cuModule, kernel});
    if (it != cache.byName.end())
      return it->second;
  }
  auto driver = getDriver();
  if (!driver.ok()) {
    recordError("kernel '" + kernel + "': " + driver.message());
    return nullptr;
  }
  CUfunction function = nullptr;
  CUresult result = (*driver)->cuModuleGetFunction(&function, cuModule, name);
  if (result != CUDA_SUCCESS) {
    recordError("kernel '" + kernel + "' not found in its module: " +
                describeCUresult(result));
    return nullptr;
  }
  std::lock_guard<std::mutex> lock(cache.mutex);
  cache.byName[{cuModule, kernel}] = function;
  cache.info[function].name = kernel;
  return function;
}

void mgpuLaunchKernel(void *function, int64_t gridX, int64_t gridY,
                      int64_t gridZ, int64_t blockX, int64_t blockY,
                      int64_t blockZ, int32_t smem, void *stream,
                      void **params, void **extra, int64_t paramsCount) {
  (void)paramsCount;
  if (skipCall())
    return;
  if (!function) {
    recordError("kernel launch with a null function");
    return;
  }
  CUfunction cuFunction = static_cast<CUfunction>(function);
  FunctionCache &cache = functionCache();
  std::string kernel = "<unknown>";
  int32_t maxDynamicSmem = 48 * 1024;
  {
    std::lock_guard<std::mutex> lock(cache.mutex);
    auto it = cache.info.find(cuFunction);
    if (it != cache.info.end()) {
      kernel = it->second.name;
      maxDynamicSmem = it->second.maxDynamicSmem;
    }
  }
  const std::string what = "kernel '" + kernel + "' launch failed";
  const int64_t dims[6] = {gridX, gridY, gridZ, blockX, blockY, blockZ};
  for (int64_t dim : dims) {
    if (dim < 1 || dim > int64_t(UINT32_MAX)) {
      recordError(what + ": grid (" + std::to_string(gridX) + ", " +
                  std::to_string(gridY) + ", " + std::to_string(gridZ) +
                  ") block (" + std::to_string(blockX) + ", " +
                  std::to_string(blockY) + ", " + std::to_string(blockZ) +
                  ") has a dimension out of range");
      return;
    }
  }
  if (smem < 0) {
    recordError(what + ": negative dynamic shared memory size " +
                std::to_string(smem));
    return;
  }
  auto driver = getDriver();
  if (!driver.ok()) {
    recordError(what + ": " + driver.message());
    return;
  }
  // Without an opt-in, static plus dynamic shared memory is limited to
  // 48 KiB: count the kernel's static shared memory too.
  int staticSmem = 0;
  if (smem > 0 && (*driver)->cuFuncGetAttribute(
                      &staticSmem, CU_FUNC_ATTRIBUTE_SHARED_SIZE_BYTES,
                      cuFunction) != CUDA_SUCCESS)
    staticSmem = 0;
  if (smem > maxDynamicSmem ||
      (smem > 0 && smem + staticSmem > 48 * 1024 &&
       maxDynamicSmem == 48 * 1024)) {
    CUresult result = (*driver)->cuFuncSetAttribute(
        cuFunction, CU_FUNC_ATTRIBUTE_MAX_DYNAMIC_SHARED_SIZE_BYTES, smem);
    if (result != CUDA_SUCCESS) {
      recordError(what + ": cannot allow " + std::to_string(smem) +
                  " bytes of dynamic shared memory: " +
                  describeCUresult(result));
      return;
    }
    std::lock_guard<std::mutex> lock(cache.mutex);
    auto it = cache.info.find(cuFunction);
    if (it != cache.info.end())
      it->second.maxDynamicSmem = smem;
  }
  CUstream cuStream = static_cast<CUstream>(stream);
  if (!cuStream)
    cuStream = threadState.stream;
  CUresult result;
  if (threadState.dependentLaunchKernels &&
      threadState.dependentLaunchKernels->count(kernel)) {
    // A programmatic dependent of the kernel before it: its blocks may
    // start as that grid's blocks signal (griddepcontrol.launch_dependents)
    // and wait for it themselves (griddepcontrol.wait).
    CUlaunchAttribute attribute = {};
    attribute.id = CU_LAUNCH_ATTRIBUTE_PROGRAMMATIC_STREAM_SERIALIZATION;
    attribute.value.programmaticStreamSerializationAllowed = 1;
    CUlaunchConfig config = {};
    config.gridDimX = static_cast<unsigned>(gridX);
    config.gridDimY = static_cast<unsigned>(gridY);
    config.gridDimZ = static_cast<unsigned>(gridZ);
    config.blockDimX = static_cast<unsigned>(blockX);
    config.blockDimY = static_cast<unsigned>(blockY);
    config.blockDimZ = static_cast<unsigned>(blockZ);
    config.sharedMemBytes = static_cast<unsigned>(smem);
    config.hStream = cuStream;
    config.attrs = &attribute;
    config.numAttrs = 1;
    result = (*driver)->cuLaunchKernelEx(&config, cuFunction, params, extra);
  } else {
    result = (*driver)->cuLaunchKernel(
        cuFunction, static_cast<unsigned>(gridX), static_cast<unsigned>(gridY),
        static_cast<unsigned>(gridZ), static_cast<unsigned>(blockX),
        static_cast<unsigned>(blockY), static_cast<unsigned>(blockZ),
        static_cast<unsigned>(smem), cuStream, params, extra);
  }
  if (result != CUDA_SUCCESS) {
    recordError(what + ": " + describeCUresult(result));
    return;
  }
  threadState.lastKernel = kernel;
}

void *mgpuStreamCreate(void) {
  // The runtime's stream: entries run in order on it.
  return threadState.stream;
}

void mgpuStreamSynchronize(void *stream) {
  if (skipCall())
    return;
  // An entry ends with a wait on the stream it got from mgpuStreamCreate:
  // the runtime's own. Whether a call waits is the caller's choice
  // (RunOptions::synchronize, Context::synchronize), so entries can be
  // queued back to back without a host round trip each.
  if (!stream || stream == threadState.stream)
    return;
  auto driver = getDriver();
  if (!driver.ok()) {
    recordError("stream synchronization failed: " + driver.message());
    return;
  }
  CUstream cuStream = static_cast<CUstream>(stream);
  CUresult result = (*driver)->cuStreamSynchronize(cuStream);
  if (result != CUDA_SUCCESS)
    recordError("stream synchronization failed: " + describeCUresult(result) +
                (threadState.lastKernel.empty()
                     ? std::string()
                     : " (last kernel launched: '" + threadState.lastKernel +
                           "')"));
}

void mgpuStreamDestroy(void *stream) {
  // The stream belongs to the runtime's Context.
  (void)stream;
}

} // extern "C"

namespace mlir::teq::runtime::detail {
/// The name of the last kernel launched on this thread ("" if none).
const std::string &lastLaunchedKernel() { return threadState.lastKernel; }
void recordMgpuError(std::string message) { recordError(std::move(message)); }
bool skipMgpuCall() { return skipCall(); }
void *currentMgpuStream() { return threadState.stream; }
} // namespace mlir::teq::runtime::detail
