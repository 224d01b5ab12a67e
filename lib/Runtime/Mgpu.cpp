//===- Mgpu.cpp - The mgpu* functions artifacts call ----------------------===//
//
// See teq/Runtime/Mgpu.h and docs/Artifact.md. Errors are recorded, never
// printed; the first one on a thread wins until the runtime takes it.
//
//===----------------------------------------------------------------------===//

#include "teq/Runtime/Mgpu.h"

#include "Driver.h"
#include "Internal.h"

#include <algorithm>
#include <cstring>
#include <map>
#include <mutex>
#include <string>
#include <tuple>
#include <utility>
#include <vector>

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
  /// The slot whose module instances the kernels come from (0: none).
  uint64_t moduleSlot = 0;
  /// Kernels launched on this thread (for benchmarks).
  uint64_t launches = 0;
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

/// The driver, with the calling thread's current context checked (and
/// returned in `context`); records "<what>: ..." and returns null on
/// failure.
const Driver *driverWithContext(const std::string &what,
                                CUcontext *context = nullptr) {
  auto driver = getDriver();
  if (!driver.ok()) {
    recordError(what + ": " + driver.message());
    return nullptr;
  }
  CUcontext current = nullptr;
  CUresult result = (*driver)->cuCtxGetCurrent(&current);
  if (context)
    *context = current;
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

/// Kernel lookups, cached per (module, slot, name), each function's name,
/// its static shared memory and the dynamic shared memory it was opted into;
/// and the modules the artifacts' constructors loaded, with the image they
/// came from and their instances per slot (Mgpu.h).
struct FunctionInfo {
  std::string name;
  int32_t maxDynamicSmem = 48 * 1024;
  int32_t staticSmem = -1; ///< -1: not queried yet.
  /// Whether the kernel is in `dependentSet` (an artifact's
  /// dependentLaunchKernels), decided at its first launch under that set,
  /// so that a launch does not look its name up in the set.
  const std::set<std::string> *dependentSet = nullptr;
  bool dependent = false;
};

struct ModuleInstance {
  CUmodule module = nullptr;
  CUcontext context = nullptr;
};

struct LoadedModule {
  const void *image = nullptr; ///< PTX (NUL-terminated) or cubin.
  bool ptx = true;
  int32_t optLevel = 0;
  CUcontext context = nullptr; ///< Where the module itself lives.
  uint64_t claimedBy = 0;      ///< The slot that uses the module itself.
  /// Slot -> the module that slot uses (the module itself if claimed).
  std::map<uint64_t, ModuleInstance> instances;
};

struct FunctionKey {
  CUmodule module; ///< As the artifact passes it (the loaded module).
  uint64_t slot;
  std::string name;
  bool operator<(const FunctionKey &other) const {
    return std::tie(module, slot, name) <
           std::tie(other.module, other.slot, other.name);
  }
};

/// A lookup by the caller's name pointer: an artifact passes the same
/// constant string for a kernel on every call, so a lookup is one map probe
/// on three words (and a strcmp with the cached name, in case a caller
/// reuses the pointer for another name) instead of a string key.
struct FunctionPointerKey {
  CUmodule module;
  uint64_t slot;
  const char *name;
  bool operator<(const FunctionPointerKey &other) const {
    return std::tie(module, slot, name) <
           std::tie(other.module, other.slot, other.name);
  }
};

struct FunctionCache {
  std::mutex mutex;
  std::map<FunctionKey, CUfunction> byName;
  std::map<FunctionPointerKey, CUfunction> byPointer;
  std::map<CUfunction, FunctionInfo> info;
  std::map<CUmodule, LoadedModule> modules;
};

FunctionCache &functionCache() {
  // Leaked on purpose: artifacts' module destructors may run during exit.
  static FunctionCache *cache = new FunctionCache();
  return *cache;
}

/// Drops the cached functions of `module` for `slot` (any slot if
/// `anySlot`). The cache's mutex must be held.
void forgetFunctions(FunctionCache &cache, CUmodule module, uint64_t slot,
                     bool anySlot) {
  for (auto it = cache.byPointer.begin(); it != cache.byPointer.end();) {
    if (it->first.module == module && (anySlot || it->first.slot == slot))
      it = cache.byPointer.erase(it);
    else
      ++it;
  }
  for (auto it = cache.byName.begin(); it != cache.byName.end();) {
    if (it->first.module == module && (anySlot || it->first.slot == slot)) {
      cache.info.erase(it->second);
      it = cache.byName.erase(it);
    } else {
      ++it;
    }
  }
}

/// Unloads `instance` in its own context (best effort: from destructors and
/// teardown, where nobody could act on an error; never records one).
void unloadInstance(const Driver &driver, const ModuleInstance &instance) {
  CUcontext previous = nullptr;
  const bool switchContext =
      instance.context &&
      driver.cuCtxGetCurrent(&previous) == CUDA_SUCCESS &&
      previous != instance.context;
  if (switchContext)
    (void)driver.cuCtxSetCurrent(instance.context);
  (void)driver.cuModuleUnload(instance.module);
  if (switchContext)
    (void)driver.cuCtxSetCurrent(previous);
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
                     const std::set<std::string> *dependentLaunchKernels,
                     uint64_t moduleSlot)
    : savedStream_(threadState.stream),
      savedInspectOnly_(threadState.inspectOnly),
      savedDependentLaunchKernels_(threadState.dependentLaunchKernels),
      savedModuleSlot_(threadState.moduleSlot) {
  threadState.stream = static_cast<CUstream>(stream);
  threadState.inspectOnly = inspectOnly;
  threadState.dependentLaunchKernels = dependentLaunchKernels;
  threadState.moduleSlot = moduleSlot;
}

MgpuScope::~MgpuScope() {
  threadState.stream = static_cast<CUstream>(savedStream_);
  threadState.inspectOnly = savedInspectOnly_;
  threadState.dependentLaunchKernels = savedDependentLaunchKernels_;
  threadState.moduleSlot = savedModuleSlot_;
}

void releaseModuleSlot(uint64_t key) {
  if (key == 0)
    return;
  std::vector<ModuleInstance> unload;
  {
    FunctionCache &cache = functionCache();
    std::lock_guard<std::mutex> lock(cache.mutex);
    for (auto &[module, loaded] : cache.modules) {
      auto it = loaded.instances.find(key);
      if (it == loaded.instances.end())
        continue;
      if (it->second.module != module)
        unload.push_back(it->second);
      loaded.instances.erase(it);
      if (loaded.claimedBy == key)
        loaded.claimedBy = 0;
      forgetFunctions(cache, module, key, /*anySlot=*/false);
    }
  }
  if (unload.empty())
    return;
  auto driver = getDriver();
  if (!driver.ok())
    return;
  for (const ModuleInstance &instance : unload)
    unloadInstance(**driver, instance);
}

size_t moduleInstanceCount() {
  FunctionCache &cache = functionCache();
  std::lock_guard<std::mutex> lock(cache.mutex);
  size_t count = 0;
  for (const auto &[module, loaded] : cache.modules)
    for (const auto &[slot, instance] : loaded.instances)
      count += instance.module != module ? 1 : 0;
  return count;
}
} // namespace detail

} // namespace mlir::teq::runtime

//===----------------------------------------------------------------------===//
// The C ABI
//===----------------------------------------------------------------------===//

namespace {

/// Loads PTX with the JIT at `level`; on failure returns the error (with
/// the JIT log) and leaves `module` null.
std::string loadPtx(const Driver &driver, const void *ptx, int32_t level,
                    CUmodule *module) {
  constexpr size_t kLogSize = 16384;
  static thread_local char errorLog[kLogSize];
  std::memset(errorLog, 0, kLogSize);
  CUjit_option options[] = {CU_JIT_ERROR_LOG_BUFFER,
                            CU_JIT_ERROR_LOG_BUFFER_SIZE_BYTES,
                            CU_JIT_OPTIMIZATION_LEVEL};
  void *values[] = {errorLog,
                    reinterpret_cast<void *>(static_cast<uintptr_t>(kLogSize)),
                    reinterpret_cast<void *>(static_cast<uintptr_t>(level))};
  *module = nullptr;
  CUresult result = driver.cuModuleLoadDataEx(
      module, ptx, sizeof(options) / sizeof(options[0]), options, values);
  if (result == CUDA_SUCCESS)
    return std::string();
  *module = nullptr;
  std::string log = trimLog(errorLog, kLogSize);
  return describeCUresult(result) +
         (log.empty() ? std::string() : "; PTX JIT log: " + log);
}

std::string loadCubin(const Driver &driver, const void *cubin,
                      CUmodule *module) {
  *module = nullptr;
  CUresult result = driver.cuModuleLoadData(module, cubin);
  if (result == CUDA_SUCCESS)
    return std::string();
  *module = nullptr;
  return describeCUresult(result);
}

/// Remembers a module an artifact's constructor loaded, and the image it
/// came from, so that slots can load instances of it.
void rememberModule(CUmodule module, const void *image, bool ptx,
                    int32_t optLevel, CUcontext context) {
  FunctionCache &cache = functionCache();
  std::lock_guard<std::mutex> lock(cache.mutex);
  LoadedModule &loaded = cache.modules[module];
  loaded = LoadedModule();
  loaded.image = image;
  loaded.ptx = ptx;
  loaded.optLevel = optLevel;
  loaded.context = context;
}

/// The module slot `slot` uses for `module` (see Mgpu.h); records an error
/// and returns null if an instance cannot be loaded.
CUmodule moduleForSlot(const Driver &driver, CUmodule module, uint64_t slot,
                       const std::string &kernel) {
  if (slot == 0)
    return module;
  FunctionCache &cache = functionCache();
  LoadedModule image;
  {
    std::lock_guard<std::mutex> lock(cache.mutex);
    auto it = cache.modules.find(module);
    if (it == cache.modules.end())
      return module; // not loaded by mgpuModuleLoad[JIT]: use it as given
    auto instance = it->second.instances.find(slot);
    if (instance != it->second.instances.end())
      return instance->second.module;
    image = it->second;
  }
  CUcontext current = nullptr;
  if (driver.cuCtxGetCurrent(&current) != CUDA_SUCCESS || !current) {
    recordError("kernel '" + kernel +
                "': no CUDA context is current on this thread");
    return nullptr;
  }
  {
    // The module itself, if no other slot uses it and it lives here.
    std::lock_guard<std::mutex> lock(cache.mutex);
    auto it = cache.modules.find(module);
    if (it != cache.modules.end() && it->second.claimedBy == 0 &&
        it->second.context == current) {
      it->second.claimedBy = slot;
      it->second.instances[slot] = ModuleInstance{module, current};
      return module;
    }
  }
  // Another instance, with module globals of its own.
  CUmodule instance = nullptr;
  std::string error = image.ptx
                          ? loadPtx(driver, image.image, image.optLevel,
                                    &instance)
                          : loadCubin(driver, image.image, &instance);
  if (!instance) {
    recordError("kernel '" + kernel +
                "': loading another instance of its module (for a call "
                "running concurrently with another, or on another device) "
                "failed: " +
                error);
    return nullptr;
  }
  std::lock_guard<std::mutex> lock(cache.mutex);
  auto it = cache.modules.find(module);
  if (it == cache.modules.end()) {
    // Unloaded meanwhile (its library was closed): cannot happen while an
    // entry of it runs, but do not leak.
    (void)driver.cuModuleUnload(instance);
    recordError("kernel '" + kernel + "': its module was unloaded");
    return nullptr;
  }
  it->second.instances[slot] = ModuleInstance{instance, current};
  return instance;
}

} // namespace

extern "C" {

void *mgpuModuleLoadJIT(void *ptx, int32_t optLevel) {
  if (skipCall())
    return nullptr;
  const std::string what = "loading PTX module failed";
  if (!ptx) {
    recordError(what + ": null PTX");
    return nullptr;
  }
  CUcontext context = nullptr;
  const Driver *driver = driverWithContext(what, &context);
  if (!driver)
    return nullptr;
  int32_t level = optLevel < 0 ? 0 : (optLevel > 4 ? 4 : optLevel);
  CUmodule module = nullptr;
  std::string error = loadPtx(*driver, ptx, level, &module);
  if (!module) {
    recordError(what + ": " + error);
    return nullptr;
  }
  rememberModule(module, ptx, /*ptx=*/true, level, context);
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
  CUcontext context = nullptr;
  const Driver *driver = driverWithContext(what, &context);
  if (!driver)
    return nullptr;
  CUmodule module = nullptr;
  std::string error = loadCubin(*driver, cubin, &module);
  if (!module) {
    recordError(what + ": " + error);
    return nullptr;
  }
  rememberModule(module, cubin, /*ptx=*/false, 0, context);
  return module;
}

void mgpuModuleUnload(void *module) {
  if (!module)
    return;
  CUmodule cuModule = static_cast<CUmodule>(module);
  std::vector<ModuleInstance> instances;
  CUcontext context = nullptr;
  {
    FunctionCache &cache = functionCache();
    std::lock_guard<std::mutex> lock(cache.mutex);
    forgetFunctions(cache, cuModule, 0, /*anySlot=*/true);
    auto it = cache.modules.find(cuModule);
    if (it != cache.modules.end()) {
      context = it->second.context;
      for (const auto &[slot, instance] : it->second.instances)
        if (instance.module != cuModule)
          instances.push_back(instance);
      cache.modules.erase(it);
    }
  }
  if (threadState.inspectOnly)
    return;
  auto driver = getDriver();
  if (!driver.ok())
    return;
  // Best effort: this runs from artifact destructors, where nobody could act
  // on an error, and it must not replace a recorded one.
  for (const ModuleInstance &instance : instances)
    unloadInstance(**driver, instance);
  unloadInstance(**driver, ModuleInstance{cuModule, context});
}

void *mgpuModuleGetFunction(void *module, const char *name) {
  if (skipCall())
    return nullptr;
  if (!module) {
    recordError("kernel '" + std::string(name ? name : "<null>") +
                "': its module was not loaded");
    return nullptr;
  }
  if (!name) {
    recordError("mgpuModuleGetFunction called with a null kernel name");
    return nullptr;
  }
  CUmodule cuModule = static_cast<CUmodule>(module);
  const FunctionPointerKey pointerKey{cuModule, threadState.moduleSlot, name};
  FunctionCache &cache = functionCache();
  {
    // Every call of an entry asks again for each kernel it launches: found
    // here by the name's address, without building a string.
    std::lock_guard<std::mutex> lock(cache.mutex);
    auto it = cache.byPointer.find(pointerKey);
    if (it != cache.byPointer.end()) {
      auto info = cache.info.find(it->second);
      if (info != cache.info.end() &&
          std::strcmp(info->second.name.c_str(), name) == 0)
        return it->second;
    }
  }
  const std::string kernel = name;
  const FunctionKey key{cuModule, threadState.moduleSlot, kernel};
  {
    std::lock_guard<std::mutex> lock(cache.mutex);
    auto it = cache.byName.find(key);
    if (it != cache.byName.end()) {
      cache.byPointer[pointerKey] = it->second;
      return it->second;
    }
  }
  auto driver = getDriver();
  if (!driver.ok()) {
    recordError("kernel '" + kernel + "': " + driver.message());
    return nullptr;
  }
  CUmodule target = moduleForSlot(**driver, cuModule, key.slot, kernel);
  if (!target)
    return nullptr;
  CUfunction function = nullptr;
  CUresult result = (*driver)->cuModuleGetFunction(&function, target, name);
  if (result != CUDA_SUCCESS) {
    recordError("kernel '" + kernel + "' not found in its module: " +
                describeCUresult(result));
    return nullptr;
  }
  std::lock_guard<std::mutex> lock(cache.mutex);
  cache.byName[key] = function;
  cache.byPointer[pointerKey] = function;
  // A function already known (slot 0 and the slot that claimed the module
  // share it) keeps its name: launches read it without the lock.
  auto [info, inserted] = cache.info.try_emplace(function);
  if (inserted)
    info->second.name = kernel;
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
  // What a launch needs to know about its kernel, in one lookup: its name
  // (for errors and lastKernel; the cached string lives as long as the
  // kernel's module, which outlives the entry call), whether it is a
  // programmatic dependent, and whether its shared memory needs no opt-in.
  const char *kernel = "<unknown>";
  bool dependent = false, smemReady = smem == 0;
  {
    std::lock_guard<std::mutex> lock(cache.mutex);
    auto it = cache.info.find(cuFunction);
    const std::set<std::string> *dependents =
        threadState.dependentLaunchKernels;
    if (it != cache.info.end()) {
      FunctionInfo &info = it->second;
      kernel = info.name.c_str();
      if (dependents) {
        if (info.dependentSet != dependents) {
          info.dependentSet = dependents;
          info.dependent = dependents->count(info.name) != 0;
        }
        dependent = info.dependent;
      }
      smemReady = smem == 0 ||
                  (smem > 0 && info.staticSmem >= 0 &&
                   smem <= info.maxDynamicSmem &&
                   !(smem + info.staticSmem > 48 * 1024 &&
                     info.maxDynamicSmem == 48 * 1024));
    } else if (dependents) {
      dependent = dependents->count(kernel) != 0;
    }
  }
  // Errors only: the message names the kernel.
  auto what = [&] {
    return "kernel '" + std::string(kernel) + "' launch failed";
  };
  const int64_t dims[6] = {gridX, gridY, gridZ, blockX, blockY, blockZ};
  for (int64_t dim : dims) {
    if (dim < 1 || dim > int64_t(UINT32_MAX)) {
      recordError(what() + ": grid (" + std::to_string(gridX) + ", " +
                  std::to_string(gridY) + ", " + std::to_string(gridZ) +
                  ") block (" + std::to_string(blockX) + ", " +
                  std::to_string(blockY) + ", " + std::to_string(blockZ) +
                  ") has a dimension out of range");
      return;
    }
  }
  if (smem < 0) {
    recordError(what() + ": negative dynamic shared memory size " +
                std::to_string(smem));
    return;
  }
  auto driver = getDriver();
  if (!driver.ok()) {
    recordError(what() + ": " + driver.message());
    return;
  }
  if (!smemReady) {
    // Without an opt-in, static plus dynamic shared memory is limited to
    // 48 KiB: count the kernel's static shared memory too. Checked and
    // raised under the lock, so that the opt-in only grows: a launch on
    // another thread never finds it lowered below what it checked.
    std::lock_guard<std::mutex> lock(cache.mutex);
    FunctionInfo unknown;
    auto it = cache.info.find(cuFunction);
    FunctionInfo &info = it != cache.info.end() ? it->second : unknown;
    if (info.staticSmem < 0) {
      int staticSmem = 0;
      if ((*driver)->cuFuncGetAttribute(&staticSmem,
                                        CU_FUNC_ATTRIBUTE_SHARED_SIZE_BYTES,
                                        cuFunction) != CUDA_SUCCESS)
        staticSmem = 0;
      info.staticSmem = staticSmem;
    }
    if (smem > info.maxDynamicSmem ||
        (smem + info.staticSmem > 48 * 1024 &&
         info.maxDynamicSmem == 48 * 1024)) {
      CUresult result = (*driver)->cuFuncSetAttribute(
          cuFunction, CU_FUNC_ATTRIBUTE_MAX_DYNAMIC_SHARED_SIZE_BYTES,
          std::max(smem, info.maxDynamicSmem));
      if (result != CUDA_SUCCESS) {
        recordError(what() + ": cannot allow " + std::to_string(smem) +
                    " bytes of dynamic shared memory: " +
                    describeCUresult(result));
        return;
      }
      info.maxDynamicSmem = std::max(smem, info.maxDynamicSmem);
    }
  }
  CUstream cuStream = static_cast<CUstream>(stream);
  if (!cuStream)
    cuStream = threadState.stream;
  CUresult result;
  if (dependent) {
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
    recordError(what() + ": " + describeCUresult(result));
    return;
  }
  // Assigned into the thread's string, whose capacity stays: no allocation
  // once it has held a name this long.
  threadState.lastKernel.assign(kernel);
  ++threadState.launches;
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
uint64_t launchedKernelCount() { return threadState.launches; }
} // namespace mlir::teq::runtime::detail
