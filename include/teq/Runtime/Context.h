//===- Context.h - A CUDA device, its context and stream ------------*- C++ -*-===//
//
// A Context is one GPU: the device's primary CUDA context (retained for the
// Context's lifetime) and one stream on which the runtime runs everything
// (entries, copies, memsets, events), in order, unless a call names another
// stream (RunOptions::stream). Artifacts, buffers and events keep their
// Context alive through a shared_ptr.
//
// Threads: a Context may be used from any number of threads at once (every
// call makes the CUDA context current on the calling thread itself), and
// several Contexts may exist, for one device or several (Contexts of one
// device share its primary context). What the GEMMs of all its artifacts
// share (gemmResources) is either read-only or taken per call and stream.
//
// The runtime talks to the CUDA driver API only, loaded at run time from
// libcuda.so.1 (see lib/Runtime/Driver.h): this header does not include
// cuda.h, and creating a Context on a machine without a driver fails with a
// Status instead of the process failing to load.
//
// No MLIR/LLVM dependency.
//
//===----------------------------------------------------------------------===//

#ifndef TEQ_RUNTIME_CONTEXT_H
#define TEQ_RUNTIME_CONTEXT_H

#include "teq/Runtime/Export.h"
#include "teq/Runtime/Status.h"

#include <cstdint>
#include <memory>
#include <mutex>
#include <string>

namespace mlir::teq::runtime {

namespace detail {
struct GemmResources;
} // namespace detail

/// A device address (CUdeviceptr).
using DevicePtr = uint64_t;

/// What the runtime knows about its device.
struct TEQ_RUNTIME_EXPORT DeviceInfo {
  int ordinal = 0;
  std::string name;         ///< e.g. "NVIDIA H100 80GB HBM3".
  int computeCapability = 0; ///< major*10 + minor (sm_90 -> 90).
  int multiprocessors = 0;
  int64_t totalMemoryBytes = 0;
  int64_t l2CacheBytes = 0;
  int driverVersion = 0;    ///< e.g. 13000 for CUDA 13.0.

  /// "sm_90".
  std::string smName() const;
};

class TEQ_RUNTIME_EXPORT Context {
public:
  /// cuInit, the device `ordinal`, its primary context (made current on the
  /// calling thread) and one stream. Errors: "CUDA driver not available:
  /// ...", "cuInit failed: ...", "CUDA device 1 requested, but 1 device is
  /// present", ...
  static StatusOr<std::shared_ptr<Context>> create(int ordinal = 0);

  ~Context();
  Context(const Context &) = delete;
  Context &operator=(const Context &) = delete;

  const DeviceInfo &device() const { return device_; }

  /// Makes the context current on the calling thread (every runtime call
  /// that touches the device does this itself).
  Status makeCurrent() const;
  /// Waits for everything queued on the stream; a failed kernel's error
  /// surfaces here ("stream synchronization failed: CUDA_ERROR_...").
  Status synchronize() const;

  /// The CUcontext and CUstream, as opaque handles (for code that includes
  /// cuda.h itself, e.g. framework interop).
  void *cuContext() const { return context_; }
  void *stream() const { return stream_; }

  /// What the GEMMs of every artifact on this context share: the cuBLASLt
  /// handle (never changed after creation, so threads share it), a pool of
  /// cuBLASLt workspaces (32 MiB + 1024 B on sm_90+, else 4 MiB, as TE),
  /// one per stream running GEMMs at once (WorkspacePool.h; one is
  /// allocated here), and fp32 constants 0 and 1 in device memory (beta in
  /// device pointer mode; read-only). Created on first call, so that
  /// quantize-only artifacts never load cuBLASLt; fails with "cuBLASLt not
  /// available: ..." without it. Thread-safe.
  /// (Internal: the type is defined in lib/Runtime.)
  StatusOr<detail::GemmResources *> gemmResources() const;

private:
  Context() = default;
  mutable std::mutex gemmMutex_;
  /// Owned; destroyed by ~Context before the stream and the context.
  mutable detail::GemmResources *gemm_ = nullptr;
  DeviceInfo device_;
  int cuDevice_ = 0;
  void *context_ = nullptr; ///< CUcontext (the primary context).
  void *stream_ = nullptr;  ///< CUstream.
};

/// Timing on a Context's stream (CUDA events).
class TEQ_RUNTIME_EXPORT Event {
public:
  static StatusOr<Event> create(std::shared_ptr<Context> context);
  Event(Event &&other) noexcept;
  Event &operator=(Event &&other) noexcept;
  ~Event();

  /// Records the event on the context's stream.
  Status record();
  Status synchronize();
  /// Milliseconds between two recorded, completed events.
  static StatusOr<float> elapsedMs(const Event &start, const Event &stop);

private:
  Event() = default;
  void reset();
  std::shared_ptr<Context> context_;
  void *event_ = nullptr; ///< CUevent.
};

} // namespace mlir::teq::runtime

#endif // TEQ_RUNTIME_CONTEXT_H
