//===- DeviceBuffer.h - An owned device allocation ------------------*- C++ -*-===//
//
// RAII over cuMemAlloc/cuMemFree. Copies and memsets run on the Context's
// stream and are waited for, so they are ordered with the entries run there;
// entries run on other streams (RunOptions::stream) are not waited for:
// synchronize those streams before reading or writing their buffers. Freeing
// waits for the whole CUDA context, so a buffer may be freed while entries
// on any stream still use it. One buffer is not to be used by two threads
// at once; different buffers are independent.
//
// No MLIR/LLVM dependency.
//
//===----------------------------------------------------------------------===//

#ifndef TEQ_RUNTIME_DEVICEBUFFER_H
#define TEQ_RUNTIME_DEVICEBUFFER_H

#include "teq/Runtime/Context.h"
#include "teq/Runtime/Export.h"
#include "teq/Runtime/Status.h"

#include <cstddef>
#include <cstdint>
#include <memory>
#include <vector>

namespace mlir::teq::runtime {

class TEQ_RUNTIME_EXPORT DeviceBuffer {
public:
  /// An empty buffer (no allocation, ptr() == 0).
  DeviceBuffer() = default;
  /// `bytes` of device memory (contents undefined). A 0-byte buffer is
  /// allowed and holds no allocation.
  static StatusOr<DeviceBuffer> allocate(std::shared_ptr<Context> context,
                                         size_t bytes);

  DeviceBuffer(DeviceBuffer &&other) noexcept;
  DeviceBuffer &operator=(DeviceBuffer &&other) noexcept;
  DeviceBuffer(const DeviceBuffer &) = delete;
  DeviceBuffer &operator=(const DeviceBuffer &) = delete;
  ~DeviceBuffer();

  DevicePtr ptr() const { return ptr_; }
  size_t size() const { return size_; }

  /// Copies `bytes` from `host` to offset `offset`; the range must fit.
  Status upload(const void *host, size_t bytes, size_t offset = 0);
  Status upload(const std::vector<uint8_t> &host) {
    return upload(host.data(), host.size());
  }
  /// Copies `bytes` at offset `offset` to `host`.
  Status download(void *host, size_t bytes, size_t offset = 0) const;
  /// The whole buffer.
  StatusOr<std::vector<uint8_t>> download() const;
  /// Sets every byte to `value`.
  Status fill(uint8_t value);

  /// Frees the allocation now (also done by the destructor).
  void release();

private:
  std::shared_ptr<Context> context_;
  DevicePtr ptr_ = 0;
  size_t size_ = 0;
};

} // namespace mlir::teq::runtime

#endif // TEQ_RUNTIME_DEVICEBUFFER_H
