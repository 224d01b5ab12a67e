//===- Driver.h - The CUDA driver API, loaded at run time -------*- C++ -*-===//
//
// The runtime calls the CUDA driver API (cuda.h) through this table. The
// driver library (libcuda.so.1) is opened with dlopen on first use and every
// entry point is resolved with cuGetProcAddress for the cuda.h version the
// runtime was compiled against, instead of linking libcuda at build time. So
// libteq_runtime.so (and te-run, and the unit tests) load on a machine with
// no GPU driver: manifest parsing, `te-run --list` and every error path work
// there, and CUDA calls fail with a Status ("CUDA driver not available: ...").
//
// Internal to lib/Runtime.
//
//===----------------------------------------------------------------------===//

#ifndef TEQ_LIB_RUNTIME_DRIVER_H
#define TEQ_LIB_RUNTIME_DRIVER_H

#include "teq/Runtime/Status.h"

#include <cuda.h>

#include <string>

namespace mlir::teq::runtime::detail {

// Names as in cuda.h: where cuda.h #defines a versioned name (cuMemAlloc ->
// cuMemAlloc_v2), the member and its type follow that definition and the
// string passed to cuGetProcAddress is the base name, as the driver expects.
#define TEQ_CUDA_DRIVER_FUNCTIONS(X)                                           \
  X(cuGetErrorName)                                                            \
  X(cuGetErrorString)                                                          \
  X(cuInit)                                                                    \
  X(cuDriverGetVersion)                                                        \
  X(cuDeviceGetCount)                                                          \
  X(cuDeviceGet)                                                               \
  X(cuDeviceGetName)                                                           \
  X(cuDeviceGetAttribute)                                                      \
  X(cuDeviceTotalMem)                                                          \
  X(cuDevicePrimaryCtxRetain)                                                  \
  X(cuDevicePrimaryCtxRelease)                                                 \
  X(cuCtxGetCurrent)                                                           \
  X(cuCtxSetCurrent)                                                           \
  X(cuCtxSynchronize)                                                          \
  X(cuStreamCreate)                                                            \
  X(cuStreamDestroy)                                                           \
  X(cuStreamSynchronize)                                                       \
  X(cuModuleLoadData)                                                          \
  X(cuModuleLoadDataEx)                                                        \
  X(cuModuleUnload)                                                            \
  X(cuModuleGetFunction)                                                       \
  X(cuFuncGetAttribute)                                                        \
  X(cuFuncSetAttribute)                                                        \
  X(cuLaunchKernel)                                                            \
  X(cuLaunchKernelEx)                                                          \
  X(cuMemAlloc)                                                                \
  X(cuMemFree)                                                                 \
  X(cuMemcpyHtoDAsync)                                                         \
  X(cuMemcpyDtoHAsync)                                                         \
  X(cuMemsetD8Async)                                                           \
  X(cuMemGetAddressRange)                                                      \
  X(cuPointerGetAttribute)                                                     \
  X(cuEventCreate)                                                             \
  X(cuEventDestroy)                                                            \
  X(cuEventRecord)                                                             \
  X(cuEventSynchronize)                                                        \
  X(cuEventElapsedTime)                                                        \
  X(cuEventQuery)                                                              \
  X(cuStreamWaitEvent)                                                         \
  X(cuStreamGetId)                                                             \
  X(cuStreamIsCapturing)                                                       \
  X(cuThreadExchangeStreamCaptureMode)                                         \
  X(cuStreamBeginCapture)                                                      \
  X(cuStreamEndCapture)                                                        \
  X(cuGraphInstantiateWithFlags)                                               \
  X(cuGraphLaunch)                                                             \
  X(cuGraphExecDestroy)                                                        \
  X(cuGraphDestroy)
// cuBLASLt (GEMMs) will be loaded the same way, in its own table, when the
// GEMM lowering lands: see Context.h.

struct Driver {
#define TEQ_DECLARE_DRIVER_MEMBER(name) decltype(&::name) name = nullptr;
  TEQ_CUDA_DRIVER_FUNCTIONS(TEQ_DECLARE_DRIVER_MEMBER)
#undef TEQ_DECLARE_DRIVER_MEMBER
};

/// The driver table, loading it on first call (thread-safe). Fails with
/// "CUDA driver not available: ..." if libcuda.so.1 cannot be opened or an
/// entry point is missing. cuInit is not called here.
StatusOr<const Driver *> getDriver();

/// "CUDA_ERROR_X (description)" for `result`, from the driver if loaded.
std::string describeCUresult(CUresult result);

/// Success, or "<what>: CUDA_ERROR_X (description)".
Status checkCU(CUresult result, const std::string &what);

/// Puts back, when destroyed, the CUDA context that was current on this
/// thread when it was made. Destructors and aborts make their own object's
/// context current, and they run on whichever thread drops the last
/// reference or calls them (Python's garbage collector may free one rank's
/// buffers on another rank's thread; a failing rank aborts every rank's
/// communicator): they must leave that thread's context, which its framework
/// relies on (PyTorch's current device), as they found it.
class CurrentContextRestorer {
public:
  CurrentContextRestorer() {
    auto driver = getDriver();
    saved_ = driver.ok() &&
             (*driver)->cuCtxGetCurrent(&previous_) == CUDA_SUCCESS;
  }
  ~CurrentContextRestorer() {
    if (!saved_)
      return;
    const Driver &cu = **getDriver();
    CUcontext current = nullptr;
    if (cu.cuCtxGetCurrent(&current) == CUDA_SUCCESS && current != previous_)
      (void)cu.cuCtxSetCurrent(previous_);
  }
  CurrentContextRestorer(const CurrentContextRestorer &) = delete;
  CurrentContextRestorer &operator=(const CurrentContextRestorer &) = delete;

private:
  CUcontext previous_ = nullptr;
  bool saved_ = false;
};

} // namespace mlir::teq::runtime::detail

#endif // TEQ_LIB_RUNTIME_DRIVER_H
