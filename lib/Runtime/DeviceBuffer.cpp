//===- DeviceBuffer.cpp - An owned device allocation ----------------------===//

#include "teq/Runtime/DeviceBuffer.h"

#include "Driver.h"

namespace mlir::teq::runtime {

using detail::checkCU;
using detail::getDriver;

StatusOr<DeviceBuffer> DeviceBuffer::allocate(std::shared_ptr<Context> context,
                                              size_t bytes) {
  if (!context)
    return Status::error("DeviceBuffer::allocate: null context");
  DeviceBuffer buffer;
  buffer.context_ = std::move(context);
  if (bytes == 0)
    return buffer;
  TEQ_RETURN_IF_ERROR(buffer.context_->makeCurrent());
  CUdeviceptr ptr = 0;
  TEQ_RETURN_IF_ERROR(
      checkCU((*getDriver())->cuMemAlloc(&ptr, bytes),
              "cannot allocate " + std::to_string(bytes) +
                  " bytes of device memory"));
  buffer.ptr_ = static_cast<DevicePtr>(ptr);
  buffer.size_ = bytes;
  return buffer;
}

DeviceBuffer::DeviceBuffer(DeviceBuffer &&other) noexcept
    : context_(std::move(other.context_)), ptr_(other.ptr_),
      size_(other.size_) {
  other.ptr_ = 0;
  other.size_ = 0;
}

DeviceBuffer &DeviceBuffer::operator=(DeviceBuffer &&other) noexcept {
  if (this != &other) {
    release();
    context_ = std::move(other.context_);
    ptr_ = other.ptr_;
    size_ = other.size_;
    other.ptr_ = 0;
    other.size_ = 0;
  }
  return *this;
}

DeviceBuffer::~DeviceBuffer() { release(); }

void DeviceBuffer::release() {
  detail::CurrentContextRestorer restorer;
  if (ptr_ && context_ && context_->makeCurrent().ok()) {
    // Work queued on any stream may still use the memory (entries run on
    // callers' streams too, RunOptions::stream), and cuMemFree is not
    // ordered with a non-blocking stream: wait for the whole context.
    (void)(*getDriver())->cuCtxSynchronize();
    (void)(*getDriver())->cuMemFree(static_cast<CUdeviceptr>(ptr_));
  }
  ptr_ = 0;
  size_ = 0;
}

static Status checkRange(size_t offset, size_t bytes, size_t size,
                         const char *what) {
  if (offset > size || bytes > size - offset)
    return Status::error(std::string(what) + " of " + std::to_string(bytes) +
                         " bytes at offset " + std::to_string(offset) +
                         " exceeds the " + std::to_string(size) +
                         "-byte device buffer");
  return Status::success();
}

Status DeviceBuffer::upload(const void *host, size_t bytes, size_t offset) {
  TEQ_RETURN_IF_ERROR(checkRange(offset, bytes, size_, "upload"));
  if (bytes == 0)
    return Status::success();
  TEQ_RETURN_IF_ERROR(context_->makeCurrent());
  TEQ_RETURN_IF_ERROR(checkCU(
      (*getDriver())->cuMemcpyHtoDAsync(
          static_cast<CUdeviceptr>(ptr_ + offset), host, bytes,
          static_cast<CUstream>(context_->stream())),
      "host-to-device copy failed"));
  return context_->synchronize();
}

Status DeviceBuffer::download(void *host, size_t bytes, size_t offset) const {
  TEQ_RETURN_IF_ERROR(checkRange(offset, bytes, size_, "download"));
  if (bytes == 0)
    return Status::success();
  TEQ_RETURN_IF_ERROR(context_->makeCurrent());
  TEQ_RETURN_IF_ERROR(checkCU(
      (*getDriver())->cuMemcpyDtoHAsync(
          host, static_cast<CUdeviceptr>(ptr_ + offset), bytes,
          static_cast<CUstream>(context_->stream())),
      "device-to-host copy failed"));
  return context_->synchronize();
}

StatusOr<std::vector<uint8_t>> DeviceBuffer::download() const {
  std::vector<uint8_t> host(size_);
  TEQ_RETURN_IF_ERROR(download(host.data(), host.size()));
  return host;
}

Status DeviceBuffer::fill(uint8_t value) {
  if (size_ == 0)
    return Status::success();
  TEQ_RETURN_IF_ERROR(context_->makeCurrent());
  TEQ_RETURN_IF_ERROR(checkCU(
      (*getDriver())->cuMemsetD8Async(static_cast<CUdeviceptr>(ptr_), value,
                                      size_,
                                      static_cast<CUstream>(context_->stream())),
      "device memset failed"));
  return context_->synchronize();
}

} // namespace mlir::teq::runtime
