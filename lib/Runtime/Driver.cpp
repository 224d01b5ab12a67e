//===- Driver.cpp - The CUDA driver API, loaded at run time ---------------===//

#include "Driver.h"
#include "SharedLibrary.h"

#include <dlfcn.h>

#include <algorithm>
#include <string_view>

namespace mlir::teq::runtime::detail {

namespace {

struct LoadedDriver {
  Driver driver;
  std::string error; ///< Empty if loaded.
};

LoadedDriver loadDriver() {
  LoadedDriver loaded;
  // The driver comes with the NVIDIA driver, on the library search path.
  OpenedLibrary opened = openFirst({"libcuda.so.1", "libcuda.so"});
  void *handle = opened.handle;
  if (!handle) {
    loaded.error = "CUDA driver not available: cannot open libcuda.so.1 (" +
                   opened.dlError + "); is an NVIDIA driver installed?";
    return loaded;
  }

  // cuGetProcAddress (CUDA 12+ ABI) resolves each entry point to the version
  // matching the cuda.h this file was compiled with (CUDA_VERSION).
  using GetProcAddress = decltype(&cuGetProcAddress);
  auto getProcAddress = reinterpret_cast<GetProcAddress>(
      dlsym(handle, "cuGetProcAddress_v2"));
  if (!getProcAddress) {
    loaded.error = "CUDA driver not available: the installed driver has no "
                   "cuGetProcAddress_v2 (it is older than CUDA 12; this "
                   "runtime needs a driver for CUDA " +
                   std::to_string(CUDA_VERSION / 1000) + "." +
                   std::to_string((CUDA_VERSION % 1000) / 10) + " or newer)";
    return loaded;
  }

  // The ABI an entry point is requested at. CUDA 13 gives cuCtxSynchronize
  // a _v2 taking the context, which cuGetProcAddress returns for 13000 while
  // cuda.h still declares the argument-less form the runtime calls: request
  // that one (CUDA 12's, the current context) explicitly.
  auto abiVersion = [](std::string_view name) {
    return name == "cuCtxSynchronize" ? std::min(CUDA_VERSION, 12000)
                                      : CUDA_VERSION;
  };
  Driver &driver = loaded.driver;
#define TEQ_LOAD_DRIVER_FUNCTION(name)                                         \
  {                                                                            \
    void *pfn = nullptr;                                                       \
    CUdriverProcAddressQueryResult found = CU_GET_PROC_ADDRESS_SUCCESS;        \
    CUresult result = getProcAddress(#name, &pfn, abiVersion(#name),           \
                                     CU_GET_PROC_ADDRESS_DEFAULT, &found);     \
    if (result != CUDA_SUCCESS || found != CU_GET_PROC_ADDRESS_SUCCESS ||      \
        !pfn) {                                                                \
      loaded.error = std::string("CUDA driver not available: entry point ") +  \
                     #name + " not found for CUDA " +                          \
                     std::to_string(CUDA_VERSION) +                            \
                     " (is the driver older than the toolkit the runtime "     \
                     "was built with?)";                                       \
      return loaded;                                                           \
    }                                                                          \
    driver.name = reinterpret_cast<decltype(driver.name)>(pfn);                \
  }
  TEQ_CUDA_DRIVER_FUNCTIONS(TEQ_LOAD_DRIVER_FUNCTION)
#undef TEQ_LOAD_DRIVER_FUNCTION
  // The handle stays open for the life of the process.
  return loaded;
}

const LoadedDriver &loadedDriver() {
  static const LoadedDriver loaded = loadDriver();
  return loaded;
}

} // namespace

StatusOr<const Driver *> getDriver() {
  const LoadedDriver &loaded = loadedDriver();
  if (!loaded.error.empty())
    return Status::error(loaded.error);
  return &loaded.driver;
}

std::string describeCUresult(CUresult result) {
  const LoadedDriver &loaded = loadedDriver();
  const char *name = nullptr;
  const char *text = nullptr;
  if (loaded.error.empty()) {
    if (loaded.driver.cuGetErrorName(result, &name) != CUDA_SUCCESS)
      name = nullptr;
    if (loaded.driver.cuGetErrorString(result, &text) != CUDA_SUCCESS)
      text = nullptr;
  }
  std::string out = name ? name : "CUDA error " + std::to_string(result);
  if (text)
    out += std::string(" (") + text + ")";
  return out;
}

Status checkCU(CUresult result, const std::string &what) {
  if (result == CUDA_SUCCESS)
    return Status::success();
  return Status::error(what + ": " + describeCUresult(result));
}

} // namespace mlir::teq::runtime::detail
