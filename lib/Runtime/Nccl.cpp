//===- Nccl.cpp - NCCL, loaded at run time --------------------------------===//

#include "Nccl.h"
#include "SharedLibrary.h"

#include <dlfcn.h>
#include <sys/stat.h>

#include <cstdlib>
#include <vector>

namespace mlir::teq::runtime::detail {

static_assert(NCCL_VERSION_CODE >= kMinNcclVersion,
              "the runtime needs nccl.h of NCCL 2.14 or later "
              "(ncclCommInitRankConfig, ncclConfig_t.blocking)");

namespace {

struct LoadedNccl {
  Nccl table;
  std::string error; ///< Empty if loaded.
};

constexpr const char *kSoname = "libnccl.so.2";

bool isDirectory(const std::string &path) {
  struct stat info;
  return ::stat(path.c_str(), &info) == 0 && S_ISDIR(info.st_mode);
}

LoadedNccl loadNccl() {
  LoadedNccl loaded;
  std::vector<std::string> candidates;
  const char *configured = std::getenv("TEQ_NCCL_LIBRARY");
  if (configured && *configured) {
    std::string path = configured;
    if (isDirectory(path))
      path += std::string("/") + kSoname;
    candidates.push_back(path);
  } else {
    candidates = cudaToolkitCandidates(kSoname);
  }
  OpenedLibrary opened = openFirst(candidates);
  void *handle = opened.handle;
  const std::string &dlError = opened.dlError;
  loaded.table.library = opened.path;
  if (!handle) {
    loaded.error =
        configured && *configured
            ? "NCCL not available: cannot open " + candidates.front() +
                  " (named by TEQ_NCCL_LIBRARY): " + dlError
            : std::string("NCCL not available: cannot open ") + kSoname +
                  " (" + dlError +
                  "); set TEQ_NCCL_LIBRARY to the library or its directory "
                  "(e.g. the nvidia/nccl/lib directory of the "
                  "nvidia-nccl-cu13 Python package)";
    return loaded;
  }
  Nccl &table = loaded.table;
  // The version first, so that a missing function of an old NCCL says which
  // version it is.
  (void)dlerror();
  table.ncclGetVersion = reinterpret_cast<decltype(table.ncclGetVersion)>(
      dlsym(handle, "ncclGetVersion"));
  std::string versionText;
  if (table.ncclGetVersion &&
      table.ncclGetVersion(&table.version) == ncclSuccess) {
    versionText = " (NCCL " + formatNcclVersion(table.version) + ")";
    if (table.version < kMinNcclVersion) {
      loaded.error = "NCCL not available: " + table.library + " is NCCL " +
                     formatNcclVersion(table.version) +
                     "; the runtime needs NCCL " +
                     formatNcclVersion(kMinNcclVersion) +
                     " or later (non-blocking communicators, "
                     "ncclCommInitRankConfig)";
      dlclose(handle);
      return loaded;
    }
  }
#define TEQ_LOAD_NCCL_FUNCTION(name)                                           \
  {                                                                            \
    (void)dlerror();                                                           \
    void *symbol = dlsym(handle, #name);                                       \
    if (!symbol) {                                                             \
      loaded.error = "NCCL not available: " + table.library + versionText +    \
                     " has no " #name ": the runtime needs NCCL " +            \
                     formatNcclVersion(kMinNcclVersion) +                      \
                     " or later (it was built with " +                         \
                     formatNcclVersion(NCCL_VERSION_CODE) + ")";               \
      dlclose(handle);                                                         \
      return loaded;                                                           \
    }                                                                          \
    table.name = reinterpret_cast<decltype(table.name)>(symbol);               \
  }
  TEQ_NCCL_FUNCTIONS(TEQ_LOAD_NCCL_FUNCTION)
#undef TEQ_LOAD_NCCL_FUNCTION
  ncclResult_t result = table.ncclGetVersion(&table.version);
  if (result != ncclSuccess) {
    loaded.error = "NCCL not available: ncclGetVersion failed in " +
                   table.library + ": " +
                   table.ncclGetErrorString(result);
    return loaded;
  }
  // ncclUniqueId, ncclConfig_t and the enums are stable within a major
  // version only.
  if (table.version / 10000 != NCCL_MAJOR) {
    loaded.error = "NCCL not available: " + table.library + " is version " +
                   formatNcclVersion(table.version) +
                   ", but the runtime was built against NCCL " +
                   std::to_string(NCCL_MAJOR) + ".x";
    return loaded;
  }
  // The handle stays open for the life of the process.
  return loaded;
}

const LoadedNccl &loadedNccl() {
  static const LoadedNccl loaded = loadNccl();
  return loaded;
}

const char *resultName(ncclResult_t result) {
  switch (result) {
  case ncclSuccess:
    return "ncclSuccess";
  case ncclUnhandledCudaError:
    return "ncclUnhandledCudaError";
  case ncclSystemError:
    return "ncclSystemError";
  case ncclInternalError:
    return "ncclInternalError";
  case ncclInvalidArgument:
    return "ncclInvalidArgument";
  case ncclInvalidUsage:
    return "ncclInvalidUsage";
  case ncclRemoteError:
    return "ncclRemoteError";
  case ncclInProgress:
    return "ncclInProgress";
  case ncclNumResults:
    break;
  }
  return nullptr;
}

} // namespace

StatusOr<const Nccl *> getNccl() {
  const LoadedNccl &loaded = loadedNccl();
  if (!loaded.error.empty())
    return Status::error(loaded.error);
  return &loaded.table;
}

std::string formatNcclVersion(int version) {
  // NCCL_VERSION(X,Y,Z): X*10000 + Y*100 + Z since 2.9 (X*1000 + Y*100 + Z
  // before).
  if (version < 10000)
    return std::to_string(version / 1000) + "." +
           std::to_string((version / 100) % 10) + "." +
           std::to_string(version % 100);
  return std::to_string(version / 10000) + "." +
         std::to_string((version / 100) % 100) + "." +
         std::to_string(version % 100);
}

std::string describeNcclResult(ncclResult_t result, ncclComm_t comm) {
  const char *name = resultName(result);
  std::string out =
      name ? name : "NCCL result " + std::to_string(static_cast<int>(result));
  const LoadedNccl &loaded = loadedNccl();
  if (!loaded.error.empty())
    return out;
  if (const char *text = loaded.table.ncclGetErrorString(result);
      text && *text)
    out += std::string(" (") + text + ")";
  if (const char *last = loaded.table.ncclGetLastError(comm); last && *last) {
    std::string message = last;
    while (!message.empty() &&
           (message.back() == '\n' || message.back() == ' '))
      message.pop_back();
    if (!message.empty())
      out += "; NCCL: " + message;
  }
  return out;
}

} // namespace mlir::teq::runtime::detail
