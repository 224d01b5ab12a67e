//===- Internal.h - Shared internals of lib/Runtime -------------*- C++ -*-===//

#ifndef TEQ_LIB_RUNTIME_INTERNAL_H
#define TEQ_LIB_RUNTIME_INTERNAL_H

#include <string>

namespace mlir::teq::runtime::detail {

struct GemmResources;

/// The name of the last kernel launched through mgpuLaunchKernel on this
/// thread since the error state was last cleared ("" if none).
const std::string &lastLaunchedKernel();

/// Records `message` as the calling thread's mgpu error unless one is
/// already recorded (the first error wins).
void recordMgpuError(std::string message);
/// Whether calls from the artifact should do nothing on this thread: an
/// error is recorded, or the artifact is only being inspected.
bool skipMgpuCall();
/// The stream (CUstream) of the MgpuScope active on this thread, or null.
void *currentMgpuStream();

/// Frees a Context's GEMM resources (null is ignored); the context must be
/// current and its stream idle.
void destroyGemmResources(GemmResources *resources);

} // namespace mlir::teq::runtime::detail

#endif // TEQ_LIB_RUNTIME_INTERNAL_H
