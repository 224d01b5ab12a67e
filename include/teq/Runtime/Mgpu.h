//===- Mgpu.h - The mgpu* functions artifacts call -------------------*- C++ -*-===//
//
// MLIR's gpu-to-llvm lowering (LLVM 22) turns gpu.launch_func and the GPU
// module globals into calls to these C functions; an artifact has undefined
// references to them that resolve against libteq_runtime.so, which exports
// them (docs/Artifact.md, "The mgpu* functions the artifact calls").
//
// Error handling: none of them prints or aborts. The first failure on a
// thread is recorded in thread-local state (the CUDA error name and string,
// the call, the kernel, the PTX JIT log); while a failure is recorded, later
// calls do nothing (module loads and function lookups return null, launches
// are skipped). The runtime clears the state before it calls an entry or
// opens an artifact and turns it into the Status it returns after.
//
// Streams: mgpuStreamCreate returns the stream the runtime is running an
// entry on (RunOptions::stream, else its Context's; entries run in order on
// it); mgpuStreamDestroy does not
// destroy it, and mgpuStreamSynchronize does not wait on it: entries are
// asynchronous, and the caller decides when to wait (RunOptions::synchronize
// makes Entry::run wait and report kernel faults; Context::synchronize).
//
// Module globals and concurrent calls: an artifact's kernels keep state in
// their module's globals (the quantize kernels' amax partials, fused amax
// accumulators and counters, NVFP4 constants), written and read within one
// call. The module is loaded once per process (its constructor runs in
// dlopen, and dlopen shares a library between every Artifact::open of it),
// so two calls running at once on two streams would share that state. The
// runtime therefore runs each call in a *slot* (WorkspacePool.h, taken by
// Entry::run and set by MgpuScope): mgpuModuleGetFunction returns the kernel
// of the slot's own instance of the module. The first slot that asks for a
// module in the module's own CUDA context uses the module itself; every
// other slot (a concurrent call on another stream, another Artifact of the
// same file, the same file opened on another device) gets the module
// loaded again from the same image, in the current context, with globals of
// its own. Instances are unloaded with their slot (releaseModuleSlot) or
// with the module (mgpuModuleUnload). Calls outside a slot (slot 0) use the
// module as given.
//
// Thread safety: every function may be called from any thread; the error
// state and the scope are per thread, the kernel and module caches are
// behind one mutex, and the dynamic shared memory opt-in of a kernel only
// ever grows (a concurrent launch never sees it shrink).
//
//===----------------------------------------------------------------------===//

#ifndef TEQ_RUNTIME_MGPU_H
#define TEQ_RUNTIME_MGPU_H

#include "teq/Runtime/Export.h"
#include "teq/Runtime/Status.h"

#include <cstdint>
#include <set>
#include <string>

extern "C" {

/// Loads PTX (NUL-terminated) with cuModuleLoadDataEx at JIT optimization
/// level `optLevel` (clamped to 0..4); a JIT failure's log is part of the
/// recorded error.
TEQ_RUNTIME_EXPORT void *mgpuModuleLoadJIT(void *ptx, int32_t optLevel);
/// Loads a cubin (or fatbin) of `size` bytes.
TEQ_RUNTIME_EXPORT void *mgpuModuleLoad(void *cubin, int64_t size);
/// Unloads a module (null is ignored). Runs even while an error is recorded,
/// and does not replace one.
TEQ_RUNTIME_EXPORT void mgpuModuleUnload(void *module);
/// The kernel `name` of `module`, cached per (module, name).
TEQ_RUNTIME_EXPORT void *mgpuModuleGetFunction(void *module, const char *name);
/// cuLaunchKernel. Dynamic shared memory above 48 KiB is opted into first.
TEQ_RUNTIME_EXPORT void mgpuLaunchKernel(void *function, int64_t gridX,
                                         int64_t gridY, int64_t gridZ,
                                         int64_t blockX, int64_t blockY,
                                         int64_t blockZ, int32_t smem,
                                         void *stream, void **params,
                                         void **extra, int64_t paramsCount);
TEQ_RUNTIME_EXPORT void *mgpuStreamCreate(void);
TEQ_RUNTIME_EXPORT void mgpuStreamSynchronize(void *stream);
TEQ_RUNTIME_EXPORT void mgpuStreamDestroy(void *stream);

} // extern "C"

namespace mlir::teq::runtime {

/// Clears the calling thread's recorded mgpu error (and last kernel name).
TEQ_RUNTIME_EXPORT void clearMgpuError();
/// Whether the calling thread has a recorded mgpu error.
TEQ_RUNTIME_EXPORT bool hasMgpuError();
/// The calling thread's recorded error as a Status (success if none), e.g.
/// "kernel 'cast_transpose_0' launch failed: CUDA_ERROR_INVALID_VALUE
/// (invalid argument)". Clears it.
TEQ_RUNTIME_EXPORT Status takeMgpuError();

namespace detail {
/// While alive on a thread, the mgpu* functions use `stream` (a CUstream) for
/// mgpuStreamCreate and, if `inspectOnly`, do not touch CUDA at all: module
/// loads return null without an error (used to read an artifact's manifest
/// without a GPU). mgpuLaunchKernel launches the kernels named in
/// `dependentLaunchKernels` (the manifest's, if given) as programmatic
/// dependents of the kernel before them. mgpuModuleGetFunction returns the
/// kernels of slot `moduleSlot`'s instance of their module (a
/// WorkspacePool::Lease's key; 0: the module as given). Nests.
class TEQ_RUNTIME_EXPORT MgpuScope {
public:
  MgpuScope(void *stream, bool inspectOnly,
            const std::set<std::string> *dependentLaunchKernels = nullptr,
            uint64_t moduleSlot = 0);
  ~MgpuScope();
  MgpuScope(const MgpuScope &) = delete;
  MgpuScope &operator=(const MgpuScope &) = delete;

private:
  void *savedStream_;
  bool savedInspectOnly_;
  const std::set<std::string> *savedDependentLaunchKernels_;
  uint64_t savedModuleSlot_;
};

/// Unloads every module instance of slot `key` and gives up the modules it
/// uses as their own (WorkspacePool calls this when a slot goes; the slot's
/// calls must have finished). Unknown keys are ignored.
TEQ_RUNTIME_EXPORT void releaseModuleSlot(uint64_t key);

/// How many module instances (beyond the modules the artifacts' constructors
/// loaded) are loaded now (for tests).
TEQ_RUNTIME_EXPORT size_t moduleInstanceCount();

/// How many kernels mgpuLaunchKernel has launched on the calling thread
/// (for benchmarks: launches per entry call).
TEQ_RUNTIME_EXPORT uint64_t launchedKernelCount();
} // namespace detail

} // namespace mlir::teq::runtime

#endif // TEQ_RUNTIME_MGPU_H
