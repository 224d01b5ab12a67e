//===- CublasLt.cpp - cuBLASLt, loaded at run time ------------------------===//

#include "CublasLt.h"
#include "SharedLibrary.h"

#include <dlfcn.h>

#include <cstdlib>
#include <mutex>
#include <vector>

namespace mlir::teq::runtime::detail {

namespace {

struct LoadedCublasLt {
  CublasLt table;
  std::string error; ///< Empty if loaded.
};

LoadedCublasLt loadCublasLt() {
  LoadedCublasLt loaded;
  // The soname of the major version the runtime was compiled against first:
  // its ABI (struct layouts, enum values) is what cublasLt.h describes.
  const std::string soname =
      "libcublasLt.so." + std::to_string(CUBLAS_VER_MAJOR);
  std::vector<std::string> candidates = cudaToolkitCandidates(soname);
  candidates.insert(candidates.begin() + 1, "libcublasLt.so");
  OpenedLibrary opened = openFirst(candidates);
  void *handle = opened.handle;
  loaded.table.library = opened.path;
  if (!handle) {
    loaded.error = "cuBLASLt not available: cannot open " + soname + " (" +
                   opened.dlError +
                   "); GEMMs need the CUDA toolkit's cuBLASLt on the "
                   "library path";
    return loaded;
  }
  CublasLt &table = loaded.table;
#define TEQ_LOAD_CUBLASLT_FUNCTION(name)                                       \
  {                                                                            \
    (void)dlerror();                                                           \
    void *symbol = dlsym(handle, #name);                                       \
    if (!symbol) {                                                             \
      loaded.error = "cuBLASLt not available: " + table.library +              \
                     " has no " #name " (it is older than the cuBLASLt " +     \
                     std::to_string(CUBLAS_VER_MAJOR) + "." +                  \
                     std::to_string(CUBLAS_VER_MINOR) +                        \
                     " the runtime was built with?)";                          \
      dlclose(handle);                                                         \
      return loaded;                                                           \
    }                                                                          \
    table.name = reinterpret_cast<decltype(table.name)>(symbol);               \
  }
  TEQ_CUBLASLT_FUNCTIONS(TEQ_LOAD_CUBLASLT_FUNCTION)
#undef TEQ_LOAD_CUBLASLT_FUNCTION
  table.version = table.cublasLtGetVersion();
  // Struct layouts and attribute values are only stable within a major
  // version (the unversioned fallback name could be another one).
  if (table.version / 10000 != CUBLAS_VER_MAJOR) {
    loaded.error = "cuBLASLt not available: " + table.library +
                   " is version " + formatCublasVersion(table.version) +
                   ", but the runtime was built against cuBLASLt " +
                   std::to_string(CUBLAS_VER_MAJOR) + ".x";
    return loaded;
  }
  // The handle stays open for the life of the process.
  return loaded;
}

const LoadedCublasLt &loadedCublasLt() {
  static const LoadedCublasLt loaded = loadCublasLt();
  return loaded;
}

/// The name of `status` without cuBLASLt (for when it is not loaded).
const char *statusName(cublasStatus_t status) {
  switch (status) {
  case CUBLAS_STATUS_SUCCESS:
    return "CUBLAS_STATUS_SUCCESS";
  case CUBLAS_STATUS_NOT_INITIALIZED:
    return "CUBLAS_STATUS_NOT_INITIALIZED";
  case CUBLAS_STATUS_ALLOC_FAILED:
    return "CUBLAS_STATUS_ALLOC_FAILED";
  case CUBLAS_STATUS_INVALID_VALUE:
    return "CUBLAS_STATUS_INVALID_VALUE";
  case CUBLAS_STATUS_ARCH_MISMATCH:
    return "CUBLAS_STATUS_ARCH_MISMATCH";
  case CUBLAS_STATUS_MAPPING_ERROR:
    return "CUBLAS_STATUS_MAPPING_ERROR";
  case CUBLAS_STATUS_EXECUTION_FAILED:
    return "CUBLAS_STATUS_EXECUTION_FAILED";
  case CUBLAS_STATUS_INTERNAL_ERROR:
    return "CUBLAS_STATUS_INTERNAL_ERROR";
  case CUBLAS_STATUS_NOT_SUPPORTED:
    return "CUBLAS_STATUS_NOT_SUPPORTED";
  case CUBLAS_STATUS_LICENSE_ERROR:
    return "CUBLAS_STATUS_LICENSE_ERROR";
  }
  return nullptr;
}

} // namespace

StatusOr<const CublasLt *> getCublasLt() {
  const LoadedCublasLt &loaded = loadedCublasLt();
  if (!loaded.error.empty())
    return Status::error(loaded.error);
  return &loaded.table;
}

std::string describeCublasStatus(cublasStatus_t status) {
  const LoadedCublasLt &loaded = loadedCublasLt();
  const char *name = nullptr;
  const char *text = nullptr;
  if (loaded.error.empty()) {
    name = loaded.table.cublasLtGetStatusName(status);
    text = loaded.table.cublasLtGetStatusString(status);
  }
  if (!name)
    name = statusName(status);
  std::string out =
      name ? name : "cuBLAS status " + std::to_string(static_cast<int>(status));
  if (text && *text)
    out += std::string(" (") + text + ")";
  return out;
}

namespace {
/// One capture at a time: the logger is process-wide.
std::mutex &logMutex() {
  static std::mutex *mutex = new std::mutex();
  return *mutex;
}
std::string *capturedLog = nullptr; ///< Guarded by logMutex().

void captureLogLine(int level, const char *function, const char *message) {
  (void)level;
  if (!capturedLog || !message)
    return;
  if (!capturedLog->empty())
    *capturedLog += "; ";
  if (function && *function)
    *capturedLog += std::string(function) + ": ";
  *capturedLog += message;
}
} // namespace

bool beginCublasLtLogCapture(const CublasLt &lt) {
  if (std::getenv("CUBLASLT_LOG_LEVEL") || std::getenv("CUBLASLT_LOG_MASK"))
    return false;
  logMutex().lock();
  capturedLog = new std::string();
  (void)lt.cublasLtLoggerSetCallback(&captureLogLine);
  (void)lt.cublasLtLoggerSetLevel(1); // errors only
  return true;
}

std::string endCublasLtLogCapture(const CublasLt &lt) {
  (void)lt.cublasLtLoggerSetLevel(0);
  (void)lt.cublasLtLoggerSetCallback(nullptr);
  std::string log = std::move(*capturedLog);
  delete capturedLog;
  capturedLog = nullptr;
  logMutex().unlock();
  // cuBLASLt ends messages with a newline.
  while (!log.empty() && (log.back() == '\n' || log.back() == ' '))
    log.pop_back();
  return log;
}

std::string formatCublasVersion(size_t version) {
  return std::to_string(version / 10000) + "." +
         std::to_string((version / 100) % 100) + "." +
         std::to_string(version % 100);
}

} // namespace mlir::teq::runtime::detail
